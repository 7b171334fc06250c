/*
 * test_fs_sink_instances.c - the filesystem sink as several parallel
 * instances (sl_conn_args.subtask/nsubtasks, docs/parallel.md §6,
 * conn_fs_sink.c): part names carry the instance as `-s<i>` (names at one
 * instance unchanged), the two-phase commit per instance, recovery after a
 * crash at another parallelism (3 -> 2, 2 -> 3, 3 -> 1, 1 -> 3, 2 -> 2) with
 * the records handed out one per old instance or all to every instance, in
 * an order where one instance recovers before the others: every old
 * instance's pre-committed part is published once, no instance deletes
 * another's staged part, the leftovers go; jobs "j" and "j-5" sharing a
 * directory at different parallelism keep apart; a fresh start with
 * --overwrite-output at several instances; the PARTITIONED BY sink's
 * records per instance, and its 'success-file' policy refused at more than
 * one instance.  Shared helpers: fs_test_util.h.
 */
#include "fs_test_util.h"

/* A sink (checkpointing when job is set) as instance inst of np. */
static sl_sink *inst_sink(fx *f, const char *job, int attempt, int inst, int np, int overwrite)
{
	sl_conn_args a = fx_args(f);
	a.checkpointing = job != NULL;
	a.job = job;
	a.attempt = attempt;
	a.subtask = inst;
	a.nsubtasks = np;
	a.overwrite_output = overwrite;
	sl_err err;
	sl_err_clear(&err);
	sl_sink *k = sl_sink_new_open(sl_sink_find("filesystem"), &a, &err);
	if (!k)
		fail_msg("%s", err.msg);
	return k;
}

static void put(sl_sink *k, int from, int n)
{
	sl_type t[2] = {sl_type_varchar(SL_STRING_LEN), sl_type_make(SL_T_BIGINT)};
	sl_batch *b = sl_batch_new(2, t, 0);
	for (int i = from; i < from + n; i++) {
		int r = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
		char name[16];
		snprintf(name, sizeof name, "r%d", i);
		sl_col_set_str(b, &b->cols[0], r, name, (int64_t)strlen(name));
		sl_col_set_i64(&b->cols[1], r, i);
	}
	sl_err err;
	sl_err_clear(&err);
	if (k->vt->write(k, b, &err))
		fail_msg("%s", err.msg);
	sl_batch_free(b);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

/* The n of every visible row of dir, sorted, joined by ' '. */
static const char *visible_sorted(const char *dir)
{
	static char out[8192];
	static int v[2048];
	int n = 0;
	const char *rows = visible_rows(dir);
	for (const char *p = strchr(rows, ':'); p && n < 2048; p = strchr(p + 1, ':'))
		v[n++] = atoi(p + 1);
	qsort(v, (size_t)n, sizeof *v, cmp_int);
	size_t len = 0;
	out[0] = 0;
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(out + len, sizeof out - len, "%s%d", i ? " " : "", v[i]);
	return out;
}

/* The names of dir that start with '.' (hidden), joined by ' '. */
static const char *hidden_names(const char *dir)
{
	static char out[4096];
	const char *all = dir_names(dir);
	size_t len = 0;
	out[0] = 0;
	for (const char *p = all; *p;) {
		size_t l = strcspn(p, " ");
		if (*p == '.')
			len += (size_t)snprintf(out + len, sizeof out - len, "%s%.*s", len ? " " : "",
			                        (int)l, p);
		p += l;
		p += *p == ' ';
	}
	return out;
}

/* At one instance the names are those of before; at several each carries
 * `-s<i>` before the part number, in progress, staged, published and
 * without checkpointing. */
static void test_names(void **state)
{
	(void)state;
	char *d = ck_dir("names");
	fx f;
	sl_snap_writer w;
	fx_init(&f, "json", d);
	sl_sink *k = inst_sink(&f, "j", 1, 0, 1, 0);
	put(k, 0, 2);
	assert_string_equal(dir_names(d), ".part-j-1-0.json.inprogress");
	pre_commit(k, 1, &w);
	assert_int_equal(w.buf[0], 1); /* the record's version at one instance */
	sl_snap_writer_deinit(&w);
	commit(k, 1);
	sl_sink_free(k);
	assert_string_equal(dir_names(d), "part-j-1-1-0.json");

	k = inst_sink(&f, "j", 2, 2, 3, 0);
	put(k, 5, 2);
	assert_string_equal(dir_names(d), ".part-j-2-s2-0.json.inprogress part-j-1-1-0.json");
	pre_commit(k, 2, &w);
	assert_string_equal(dir_names(d), ".part-j-2-2-s2-0.json.pending part-j-1-1-0.json");
	sl_snap_reader r;
	size_t n;
	sl_snap_reader_init(&r, w.buf, w.len);
	assert_int_equal(sl_snap_get_u8(&r), 2);
	assert_int_equal(sl_snap_get_i64(&r), 2);
	(void)sl_snap_get_bytes(&r, &n);
	assert_int_equal(sl_snap_get_u32(&r), 2); /* attempt */
	assert_int_equal(sl_snap_get_u32(&r), 2); /* instance */
	assert_int_equal(sl_snap_get_u32(&r), 3); /* of */
	assert_int_equal(sl_snap_get_u32(&r), 1); /* one part */
	sl_snap_writer_deinit(&w);
	commit(k, 2);
	sl_sink_free(k);
	assert_string_equal(dir_names(d), "part-j-1-1-0.json part-j-2-2-s2-0.json");
	assert_string_equal(visible_sorted(d), "0 1 5 6");

	char *d2 = ck_dir("names_nockpt");
	fx_init(&f, "json", d2);
	k = inst_sink(&f, NULL, 0, 1, 2, 0);
	put(k, 0, 1);
	sl_err err;
	sl_err_clear(&err);
	assert_int_equal(k->vt->finish(k, &err), 0);
	sl_sink_free(k);
	const char *name = dir_names(d2);
	assert_true(!strncmp(name, "part-", 5));
	assert_non_null(strstr(name, "-s1-0.json"));
	sl_arena_deinit(&f.arena);
}

/*
 * A run of p instances (attempt 1) commits checkpoint 1, pre-commits 2
 * and crashes with rows in progress (and a leftover of an older run at a
 * higher parallelism lies there).  A run of q instances (attempt 2) gets
 * the checkpoint-2 records: mode 0 gives record j to instance j % q,
 * record 0 first (so instance 0 recovers while the other records still
 * wait); mode 1 gives every record to every instance.  Then checkpoints 1
 * and 2 of every old instance are visible once, nothing of attempt 1 and
 * no leftover stays hidden, and the new instances' output commits too.
 */
static void test_rescale_recover(void **state)
{
	(void)state;
	static const int pq[][2] = {{3, 2}, {2, 3}, {3, 1}, {1, 3}, {2, 2}};
	for (size_t z = 0; z < sizeof pq / sizeof pq[0]; z++)
	for (int mode = 0; mode < 2; mode++) {
		int p = pq[z][0], q = pq[z][1];
		char name[64];
		snprintf(name, sizeof name, "rescale_%d_%d_%d", p, q, mode);
		char *d = ck_dir(name);
		mkdir(d, 0777);
		write_file(d, ".part-j-0-s7-3.json.inprogress", "{\"name\":\"x\",\"n\":999}\n");
		fx f;
		fx_init(&f, "json", d);
		sl_sink *old[3];
		sl_snap_writer w2[3], w;
		for (int i = 0; i < p; i++) {
			old[i] = inst_sink(&f, "j", 1, i, p, 0);
			put(old[i], i * 100, 10);
			pre_commit(old[i], 1, &w);
			sl_snap_writer_deinit(&w);
			commit(old[i], 1);
			put(old[i], i * 100 + 10, 5);
			pre_commit(old[i], 2, &w2[i]);
			put(old[i], i * 100 + 15, 3); /* in progress at the crash */
		}
		for (int i = 0; i < p; i++)
			sl_sink_free(old[i]); /* crash: no commit(2) */
		char want[2048] = "";
		for (int i = 0; i < p; i++)
			for (int v = 0; v < 15; v++)
				snprintf(want + strlen(want), sizeof want - strlen(want), "%s%d",
				         want[0] ? " " : "", i * 100 + v);

		sl_sink *nw[3];
		sl_err err;
		for (int i = 0; i < q; i++)
			nw[i] = inst_sink(&f, "j", 2, i, q, 0);
		for (int j = 0; j < p; j++)
			for (int i = 0; i < q; i++) {
				if (mode == 0 && i != j % q)
					continue;
				assert_int_equal(recover(nw[i], &w2[j], &err), 0);
			}
		assert_string_equal(visible_sorted(d), want);
		assert_string_equal(hidden_names(d), "");
		for (int i = 0; i < q; i++) {
			put(nw[i], 1000 + i * 10, 2);
			pre_commit(nw[i], 3, &w);
			sl_snap_writer_deinit(&w);
		}
		for (int i = 0; i < q; i++) {
			commit(nw[i], 3);
			sl_sink_free(nw[i]);
		}
		for (int i = 0; i < q; i++)
			snprintf(want + strlen(want), sizeof want - strlen(want), " %d %d",
			         1000 + i * 10, 1001 + i * 10);
		const char *got = visible_sorted(d);
		for (int i = 0; i < q; i++) { /* the new rows, wherever they sort */
			char v[16];
			snprintf(v, sizeof v, "%d", 1000 + i * 10);
			assert_non_null(strstr(got, v));
		}
		assert_int_equal(strlen(got), strlen(want));
		for (int i = 0; i < p; i++)
			sl_snap_writer_deinit(&w2[i]);
		sl_arena_deinit(&f.arena);
	}
}

/* Jobs "j" (two instances) and "j-5" (one) share a directory: a fresh
 * start of either deletes only its own leftovers, and neither sees the
 * other's published part as its own. */
static void test_jobs_apart(void **state)
{
	(void)state;
	char *d = ck_dir("apart");
	fx f;
	sl_err err;
	sl_snap_writer w;
	fx_init(&f, "json", d);
	sl_sink *a0 = inst_sink(&f, "j", 1, 0, 2, 0), *a1 = inst_sink(&f, "j", 1, 1, 2, 0);
	sl_sink *b = inst_sink(&f, "j-5", 1, 0, 1, 0);
	put(a0, 0, 1);
	put(a1, 10, 1);
	put(b, 20, 1);
	pre_commit(a1, 5, &w);
	sl_snap_writer_deinit(&w);
	pre_commit(b, 7, &w);
	sl_snap_writer_deinit(&w);
	sl_sink_free(a0);
	sl_sink_free(a1);
	sl_sink_free(b);
	/* .part-j-1-s0-0 .part-j-5-1-s1-0.pending .part-j-5-7-1-0.pending */
	assert_string_equal(hidden_names(d), ".part-j-1-s0-0.json.inprogress "
	                    ".part-j-5-1-s1-0.json.pending .part-j-5-7-1-0.json.pending");
	b = inst_sink(&f, "j-5", 2, 0, 1, 0);
	assert_int_equal(recover(b, NULL, &err), 0);
	sl_sink_free(b);
	assert_string_equal(hidden_names(d), ".part-j-1-s0-0.json.inprogress "
	                    ".part-j-5-1-s1-0.json.pending");
	for (int i = 0; i < 2; i++) {
		a0 = inst_sink(&f, "j", 2, i, 2, 0);
		assert_int_equal(recover(a0, NULL, &err), 0);
		sl_sink_free(a0);
	}
	assert_string_equal(hidden_names(d), "");
	/* a published part of "j" at two instances is not "j-5"'s */
	a1 = inst_sink(&f, "j", 3, 1, 2, 0);
	put(a1, 30, 1);
	pre_commit(a1, 9, &w);
	sl_snap_writer_deinit(&w);
	commit(a1, 9);
	sl_sink_free(a1);
	assert_string_equal(dir_names(d), "part-j-9-3-s1-0.json");
	b = inst_sink(&f, "j-5", 3, 0, 1, 0);
	assert_int_equal(recover(b, NULL, &err), 0); /* nothing of its own published */
	sl_sink_free(b);
	sl_arena_deinit(&f.arena);
}

/* A fresh start at several instances: without --overwrite-output every
 * instance refuses the job's published output; with it each deletes its
 * share (instance numbers modulo the count, those of a larger earlier run
 * included) and none refuses the others' not yet deleted parts. */
static void test_fresh_overwrite(void **state)
{
	(void)state;
	char *d = ck_dir("fresh");
	fx f;
	sl_err err;
	sl_snap_writer w;
	fx_init(&f, "json", d);
	for (int i = 0; i < 3; i++) {
		sl_sink *k = inst_sink(&f, "j", 1, i, 3, 0);
		put(k, i, 1);
		pre_commit(k, 1, &w);
		sl_snap_writer_deinit(&w);
		commit(k, 1);
		sl_sink_free(k);
	}
	assert_string_equal(visible_sorted(d), "0 1 2");
	sl_sink *k = inst_sink(&f, "j", 2, 1, 2, 0);
	assert_int_equal(recover(k, NULL, &err), SL_ESTATE);
	sl_sink_free(k);
	for (int i = 0; i < 2; i++) {
		k = inst_sink(&f, "j", 3, i, 2, 1);
		assert_int_equal(recover(k, NULL, &err), 0);
		sl_sink_free(k);
	}
	assert_string_equal(dir_names(d), "");
	sl_arena_deinit(&f.arena);
}

/* PARTITIONED BY: two instances write the same partition directory and
 * pre-commit; a restart at one instance given both records publishes
 * both; the 'success-file' policy is refused at two instances. */
static void test_partitioned(void **state)
{
	(void)state;
	char *d = ck_dir("parted");
	fx f;
	sl_field fields[3];
	int part[1] = {2};
	sl_err err;
	fx_init(&f, "json", d);
	fields[0] = f.fields[0];
	fields[1] = f.fields[1];
	fields[2] = (sl_field){"dt", sl_type_varchar(SL_STRING_LEN)};
	sl_type t[3] = {fields[0].type, fields[1].type, fields[2].type};
	sl_snap_writer w[2];
	for (int i = 0; i < 2; i++) {
		sl_conn_args a = fx_args(&f);
		a.fields = fields;
		a.nfields = 3;
		a.part = part;
		a.npart = 1;
		a.checkpointing = 1;
		a.job = "j";
		a.attempt = 1;
		a.subtask = i;
		a.nsubtasks = 2;
		sl_err_clear(&err);
		sl_sink *k = sl_sink_new_open(sl_sink_find("filesystem")->partitioned, &a, &err);
		if (!k)
			fail_msg("%s", err.msg);
		sl_batch *b = sl_batch_new(3, t, 0);
		for (int v = 0; v < 3; v++) {
			int r = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
			sl_col_set_str(b, &b->cols[0], r, "x", 1);
			sl_col_set_i64(&b->cols[1], r, i * 10 + v);
			sl_col_set_str(b, &b->cols[2], r, "a", 1);
		}
		assert_int_equal(k->vt->write(k, b, &err), 0);
		sl_batch_free(b);
		pre_commit(k, 1, &w[i]);
		assert_int_equal(w[i].buf[0], 3); /* the record's version at several instances */
		sl_sink_free(k); /* crash before commit */
	}
	char pd[700];
	snprintf(pd, sizeof pd, "%s/dt=a", d);
	assert_string_equal(hidden_names(pd), ".part-j-1-1-s0-0.json.pending "
	                    ".part-j-1-1-s1-0.json.pending");
	sl_conn_args a = fx_args(&f);
	a.fields = fields;
	a.nfields = 3;
	a.part = part;
	a.npart = 1;
	a.checkpointing = 1;
	a.job = "j";
	a.attempt = 2;
	sl_sink *k = sl_sink_new_open(sl_sink_find("filesystem")->partitioned, &a, &err);
	assert_non_null(k);
	assert_int_equal(recover(k, &w[0], &err), 0);
	assert_int_equal(recover(k, &w[1], &err), 0);
	sl_sink_free(k);
	assert_string_equal(dir_names(pd), "part-j-1-1-s0-0.json part-j-1-1-s1-0.json");
	assert_string_equal(visible_sorted(pd), "0 1 2 10 11 12");
	for (int i = 0; i < 2; i++)
		sl_snap_writer_deinit(&w[i]);

	sl_opts_set(&f.opts, "sink.partition-commit.policy.kind", "success-file");
	a.subtask = 1;
	a.nsubtasks = 2;
	sl_err_clear(&err);
	assert_null(sl_sink_new(sl_sink_find("filesystem")->partitioned, &a, &err));
	assert_non_null(strstr(err.msg, "'success-file' needs parallelism 1"));
	a.nsubtasks = 1;
	a.subtask = 0;
	k = sl_sink_new(sl_sink_find("filesystem")->partitioned, &a, &err);
	assert_non_null(k);
	sl_sink_free(k);
	sl_arena_deinit(&f.arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_rescale_recover),
		cmocka_unit_test(test_jobs_apart),
		cmocka_unit_test(test_fresh_overwrite),
		cmocka_unit_test(test_partitioned),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
