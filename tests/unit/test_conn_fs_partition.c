/*
 * test_conn_fs_partition.c - PARTITIONED BY filesystem tables through the
 * sink and source method tables (conn_fs_partition.c): directories per
 * value (escaped, default partition), read back with values from the
 * names, partition commit by process time and by partition time (success
 * files only after the files are published), crash and recovery across
 * partitions, a partitioned source snapshotted mid-file and restored,
 * configure (no directory created, a bad partition type refused) then open,
 * and a partitioned source read by parallel instances.
 * Shared helpers: fs_test_util.h.
 */
#include "fs_test_util.h"

/* ---- PARTITIONED BY (conn_fs_partition.c) --------------------------------- */

/* Schema (name STRING, n BIGINT, dt STRING) PARTITIONED BY (dt). */
typedef struct pfx {
	fx f;
	sl_field fields[3];
	int part[1];
} pfx;

static void pfx_init(pfx *p, const char *fmt, const char *path)
{
	fx_init(&p->f, fmt, path);
	p->fields[0] = p->f.fields[0];
	p->fields[1] = p->f.fields[1];
	p->fields[2] = (sl_field){"dt", sl_type_varchar(SL_STRING_LEN)};
	p->part[0] = 2;
}

static sl_conn_args pfx_args(pfx *p)
{
	sl_conn_args a = {.table = "orders", .fields = p->fields, .nfields = 3,
	                  .opts = &p->f.opts, .tz = "UTC", .part = p->part, .npart = 1};
	return a;
}

/* A partitioned sink (job NULL: without checkpointing). */
static sl_sink *p_sink(pfx *p, const char *job, int attempt, sl_err *err)
{
	sl_conn_args a = pfx_args(p);
	a.checkpointing = job != NULL;
	a.job = job;
	a.attempt = attempt;
	sl_err_clear(err);
	return sl_sink_new_open(sl_sink_find("filesystem")->partitioned, &a, err);
}

/* Rows r<i>:i for i in [from, from + n), all in partition dt (NULL: NULL). */
static void p_put(sl_sink *k, int from, int n, const char *dt, int64_t now, int64_t wm)
{
	sl_type t[3] = {sl_type_varchar(SL_STRING_LEN), sl_type_make(SL_T_BIGINT),
	                sl_type_varchar(SL_STRING_LEN)};
	sl_batch *b = sl_batch_new(3, t, 0);
	for (int i = from; i < from + n; i++) {
		int r = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
		char name[16];
		snprintf(name, sizeof name, "r%d", i);
		sl_col_set_str(b, &b->cols[0], r, name, (int64_t)strlen(name));
		sl_col_set_i64(&b->cols[1], r, i);
		if (dt)
			sl_col_set_str(b, &b->cols[2], r, dt, (int64_t)strlen(dt));
		else
			b->cols[2].null[r] = 1;
	}
	sl_err err;
	sl_err_clear(&err);
	k->proc_now = now;
	k->wm = wm;
	if (k->vt->write(k, b, &err))
		fail_msg("%s", err.msg);
	sl_batch_free(b);
}

/* One batch of rows r<i>:i, row i in partition dts[i] (NULL: NULL), so
 * consecutive rows change partition within the batch. */
static void p_put_each(sl_sink *k, const char *const *dts, int n)
{
	sl_type t[3] = {sl_type_varchar(SL_STRING_LEN), sl_type_make(SL_T_BIGINT),
	                sl_type_varchar(SL_STRING_LEN)};
	sl_batch *b = sl_batch_new(3, t, 0);
	for (int i = 0; i < n; i++) {
		int r = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
		char name[16];
		snprintf(name, sizeof name, "r%d", i);
		sl_col_set_str(b, &b->cols[0], r, name, (int64_t)strlen(name));
		sl_col_set_i64(&b->cols[1], r, i);
		if (dts[i])
			sl_col_set_str(b, &b->cols[2], r, dts[i], (int64_t)strlen(dts[i]));
		else
			b->cols[2].null[r] = 1;
	}
	sl_err err;
	sl_err_clear(&err);
	if (k->vt->write(k, b, &err))
		fail_msg("%s", err.msg);
	sl_batch_free(b);
}

static const char *pdir(const char *root, const char *rel)
{
	static char p[700];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	return p;
}

/* "name:n:dt" rows of the partitioned table at root, in file order. */
static const char *p_read(const char *root)
{
	static char out[4096];
	pfx p;
	sl_err err;
	pfx_init(&p, "json", root);
	sl_conn_args a = pfx_args(&p);
	sl_err_clear(&err);
	sl_source *s = sl_source_new_open(sl_source_find("filesystem")->partitioned, &a, &err);
	if (!s)
		fail_msg("%s", err.msg);
	sl_type t[3] = {sl_type_varchar(SL_STRING_LEN), sl_type_make(SL_T_BIGINT),
	                sl_type_varchar(SL_STRING_LEN)};
	sl_batch *b = sl_batch_new(3, t, 0);
	size_t len = 0;
	int rc;
	out[0] = 0;
	do {
		sl_batch_reset(b);
		rc = s->vt->read(s, b, &err);
		for (int r = 0; r < b->nrows; r++)
			len += (size_t)snprintf(out + len, sizeof out - len, "%s%.*s:%lld:%.*s",
			                        len ? " " : "", (int)b->cols[0].v.str[r].len,
			                        b->cols[0].v.str[r].ptr, (long long)b->cols[1].v.i64[r],
			                        b->cols[2].null[r] ? 4 : (int)b->cols[2].v.str[r].len,
			                        b->cols[2].null[r] ? "NULL" : b->cols[2].v.str[r].ptr);
	} while (rc > 0);
	assert_int_equal(rc, SL_EEOF);
	sl_batch_free(b);
	sl_source_free(s);
	sl_arena_deinit(&p.f.arena);
	return out;
}

/* Configure looks at nothing on disk: a partitioned sink configured (what
 * the planner does) creates no root directory, its open does; a
 * partitioned source over a missing root configures (a bad partition
 * column type is refused already) and its open names the path. */
static void test_part_configure_then_open(void **state)
{
	char *d = ck_dir("part_cfg");
	char root[600];
	struct stat st;
	snprintf(root, sizeof root, "%s/root", d);
	pfx p;
	sl_err err;
	pfx_init(&p, "csv", root);
	sl_conn_args a = pfx_args(&p);
	sl_err_clear(&err);
	sl_sink *k = sl_sink_new(sl_sink_find("filesystem")->partitioned, &a, &err);
	if (!k)
		fail_msg("%s", err.msg);
	assert_int_not_equal(stat(root, &st), 0);
	assert_int_equal(sl_sink_open(k, &err), 0);
	assert_int_equal(stat(root, &st), 0);
	sl_sink_free(k);
	sl_arena_deinit(&p.f.arena);

	snprintf(root, sizeof root, "%s/none", d);
	pfx_init(&p, "csv", root);
	a = pfx_args(&p);
	sl_err_clear(&err);
	sl_source *s = sl_source_new(sl_source_find("filesystem")->partitioned, &a, &err);
	if (!s)
		fail_msg("%s", err.msg);
	assert_int_equal(sl_source_open(s, &err), SL_EIO);
	assert_non_null(strstr(err.msg, "none' does not exist"));
	sl_source_free(s);
	p.fields[2].type = sl_type_make(SL_T_TIME);
	sl_err_clear(&err);
	assert_null(sl_source_new(sl_source_find("filesystem")->partitioned, &a, &err));
	assert_non_null(strstr(err.msg, "partition column 'dt' of type TIME"));
	sl_arena_deinit(&p.f.arena);
}

/* Without checkpointing: one directory per value (escaped; NULL and ''
 * in __DEFAULT_PARTITION__), the partition column not in the files,
 * nothing visible before finish, success files after it; read back with
 * the values from the directory names. */
static void test_part_write_read(void **state)
{
	char *d = ck_dir("part_wr");
	pfx p;
	sl_err err;
	pfx_init(&p, "json", d);
	sl_opts_set(&p.f.opts, "sink.partition-commit.policy.kind", "success-file");
	sl_sink *k = p_sink(&p, NULL, 0, &err);
	assert_non_null(k);
	p_put(k, 0, 2, "2026-08-01", 0, SL_WM_MIN);
	p_put(k, 2, 1, "a/b:c", 0, SL_WM_MIN);
	p_put(k, 3, 1, NULL, 0, SL_WM_MIN);
	p_put(k, 4, 1, "", 0, SL_WM_MIN);
	p_put(k, 5, 1, "2026-08-01", 0, SL_WM_MIN);
	assert_string_equal(dir_names(d), "dt=2026-08-01 dt=__DEFAULT_PARTITION__ dt=a%2Fb%3Ac");
	assert_string_equal(visible_rows(pdir(d, "dt=2026-08-01")), "");
	k->wm = SL_WM_MAX; /* end of input */
	assert_int_equal(k->vt->finish(k, &err), 0);
	sl_sink_free(k);
	const char *names = dir_names(pdir(d, "dt=2026-08-01"));
	assert_non_null(strstr(names, "_SUCCESS"));
	assert_string_equal(visible_rows(pdir(d, "dt=2026-08-01")), "r0:0 r1:1 r5:5");
	assert_string_equal(visible_rows(pdir(d, "dt=__DEFAULT_PARTITION__")), "r3:3 r4:4");
	/* the files hold the data columns only */
	char cmd[900], line[256];
	snprintf(cmd, sizeof cmd, "cat '%s'/dt=a%%2Fb%%3Ac/part-*", d);
	FILE *f = popen(cmd, "r");
	assert_non_null(fgets(line, sizeof line, f));
	pclose(f);
	assert_string_equal(line, "{\"name\":\"r2\",\"n\":2}\n");
	assert_string_equal(p_read(d), "r0:0:2026-08-01 r1:1:2026-08-01 r5:5:2026-08-01 "
	                               "r3:3:NULL r4:4:NULL r2:2:a/b:c");
	/* a finish after a fatal error (the watermark is not +infinity):
	 * the rows are published, no partition is announced complete */
	char *d2 = ck_dir("part_wr_err");
	sl_opts_set(&p.f.opts, "path", d2);
	k = p_sink(&p, NULL, 0, &err);
	assert_non_null(k);
	p_put(k, 0, 1, "x", 0, SL_WM_MIN);
	assert_int_equal(k->vt->finish(k, &err), 0);
	sl_sink_free(k);
	assert_string_equal(visible_rows(pdir(d2, "dt=x")), "r0:0");
	assert_null(strstr(dir_names(pdir(d2, "dt=x")), "_SUCCESS"));
	sl_arena_deinit(&p.f.arena);
}

/* Rows of one batch whose partition changes from row to row (a run of one
 * partition shares its first row's path: conn_fs_partition.c): each row
 * lands in its own value's directory, NULL and '' in the default one. */
static void test_part_mixed_batch(void **state)
{
	char *d = ck_dir("part_mixed");
	pfx p;
	sl_err err;
	pfx_init(&p, "json", d);
	sl_sink *k = p_sink(&p, NULL, 0, &err);
	assert_non_null(k);
	static const char *const dts[] = {"x", "x", NULL, NULL, "", "y", "x", "xx", "x:", "x:"};
	p_put_each(k, dts, 10);
	k->wm = SL_WM_MAX;
	assert_int_equal(k->vt->finish(k, &err), 0);
	sl_sink_free(k);
	assert_string_equal(dir_names(d), "dt=__DEFAULT_PARTITION__ dt=x dt=x%3A dt=xx dt=y");
	assert_string_equal(visible_rows(pdir(d, "dt=x")), "r0:0 r1:1 r6:6");
	assert_string_equal(visible_rows(pdir(d, "dt=__DEFAULT_PARTITION__")), "r2:2 r3:3 r4:4");
	assert_string_equal(visible_rows(pdir(d, "dt=y")), "r5:5");
	assert_string_equal(visible_rows(pdir(d, "dt=xx")), "r7:7");
	assert_string_equal(visible_rows(pdir(d, "dt=x%3A")), "r8:8 r9:9");
	sl_arena_deinit(&p.f.arena);
}

static int has_success(const char *root, const char *rel)
{
	char path[800];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s/_SUCCESS", root, rel);
	return stat(path, &st) == 0;
}

#define MIN_US (60LL * 1000000)

/* process-time: a partition commits at the first checkpoint after its
 * first pending row's time + delay, after its files are published; a late
 * row makes it pending again; end of input commits every pending one. */
static void test_part_process_time(void **state)
{
	char *d = ck_dir("part_proc");
	pfx p;
	sl_err err;
	sl_snap_writer w;
	pfx_init(&p, "json", d);
	sl_opts_set(&p.f.opts, "sink.partition-commit.policy.kind", "success-file");
	sl_opts_set(&p.f.opts, "sink.partition-commit.delay", "10 min");
	sl_sink *k = p_sink(&p, "j", 1, &err);
	assert_non_null(k);
	p_put(k, 0, 2, "a", 0, SL_WM_MIN);
	k->proc_now = 1 * MIN_US;
	pre_commit(k, 1, &w);
	sl_snap_writer_deinit(&w);
	assert_string_equal(visible_rows(pdir(d, "dt=a")), "");
	commit(k, 1);
	assert_string_equal(visible_rows(pdir(d, "dt=a")), "r0:0 r1:1");
	assert_false(has_success(d, "dt=a"));
	p_put(k, 2, 1, "b", 5 * MIN_US, SL_WM_MIN);
	k->proc_now = 11 * MIN_US;
	pre_commit(k, 2, &w);
	sl_snap_writer_deinit(&w);
	assert_false(has_success(d, "dt=a")); /* not before commit */
	commit(k, 2);
	assert_true(has_success(d, "dt=a"));
	assert_false(has_success(d, "dt=b"));
	p_put(k, 3, 1, "a", 12 * MIN_US, SL_WM_MIN); /* late: pending again */
	k->wm = SL_WM_MAX; /* end of input */
	assert_int_equal(k->vt->finish(k, &err), 0);
	k->proc_now = 12 * MIN_US;
	pre_commit(k, 3, &w);
	sl_snap_writer_deinit(&w);
	commit(k, 3);
	assert_true(has_success(d, "dt=b"));
	assert_string_equal(p_read(d), "r0:0:a r1:1:a r3:3:a r2:2:b");
	sl_sink_free(k);
	sl_arena_deinit(&p.f.arena);
}

/* partition-time: commits when the watermark passes the extracted time +
 * delay (pattern and formatter as Flink's default extractor). */
static void test_part_partition_time(void **state)
{
	char *d = ck_dir("part_time");
	pfx p;
	sl_err err;
	sl_snap_writer w;
	pfx_init(&p, "json", d);
	sl_opts_set(&p.f.opts, "sink.partition-commit.policy.kind", "success-file");
	sl_opts_set(&p.f.opts, "sink.partition-commit.trigger", "partition-time");
	sl_opts_set(&p.f.opts, "sink.partition-commit.delay", "1 h");
	sl_opts_set(&p.f.opts, "partition.time-extractor.timestamp-pattern", "$dt 00:00:00");
	sl_sink *k = p_sink(&p, "j", 1, &err);
	assert_non_null(k);
	int64_t day = 86400LL * 1000000, t0 = 20665 * day; /* 2026-07-31 */
	p_put(k, 0, 1, "2026-08-01", 0, t0);
	p_put(k, 1, 1, "2026-08-02", 0, t0);
	k->wm = t0 + day + 60 * MIN_US; /* 2026-08-01 01:00:00: not past */
	pre_commit(k, 1, &w);
	sl_snap_writer_deinit(&w);
	commit(k, 1);
	assert_false(has_success(d, "dt=2026-08-01"));
	k->wm = t0 + day + 60 * MIN_US + 1000;
	pre_commit(k, 2, &w);
	sl_snap_writer_deinit(&w);
	commit(k, 2);
	assert_true(has_success(d, "dt=2026-08-01"));
	assert_false(has_success(d, "dt=2026-08-02"));
	sl_sink_free(k);
	sl_arena_deinit(&p.f.arena);
	/* a value the extractor cannot read is an error naming the partition */
	pfx_init(&p, "json", ck_dir("part_time_bad"));
	sl_opts_set(&p.f.opts, "sink.partition-commit.trigger", "partition-time");
	k = p_sink(&p, "j", 1, &err);
	assert_non_null(k);
	sl_type t[3] = {sl_type_varchar(SL_STRING_LEN), sl_type_make(SL_T_BIGINT),
	                sl_type_varchar(SL_STRING_LEN)};
	sl_batch *b = sl_batch_new(3, t, 0);
	int r = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
	sl_col_set_str(b, &b->cols[0], r, "x", 1);
	sl_col_set_i64(&b->cols[1], r, 1);
	sl_col_set_str(b, &b->cols[2], r, "soon", 4);
	sl_err_clear(&err);
	assert_int_equal(k->vt->write(k, b, &err), SL_EINPUT);
	assert_non_null(strstr(err.msg, "cannot extract the partition time of partition 'dt=soon'"));
	sl_batch_free(b);
	sl_sink_free(k);
	sl_arena_deinit(&p.f.arena);
	/* refused options */
	pfx_init(&p, "json", ck_dir("part_opts"));
	sl_opts_set(&p.f.opts, "sink.partition-commit.policy.kind", "metastore,success-file");
	assert_null(p_sink(&p, "j", 1, &err));
	assert_non_null(strstr(err.msg, "partition commit policy 'metastore' is not supported"));
	sl_arena_deinit(&p.f.arena);
}

/* A crash after pre_commit(2): the restart restores checkpoint 2 (its
 * parts published in every partition, its scheduled commits repeated), a
 * partition created after the checkpoint loses its hidden files, and a
 * start without a checkpoint is refused once parts are published. */
static void test_part_crash_recover(void **state)
{
	char *d = ck_dir("part_crash");
	pfx p;
	sl_err err;
	sl_snap_writer w1, w2;
	pfx_init(&p, "json", d);
	sl_opts_set(&p.f.opts, "sink.partition-commit.policy.kind", "success-file");
	sl_sink *k = p_sink(&p, "j", 1, &err);
	assert_non_null(k);
	p_put(k, 0, 2, "a", 0, SL_WM_MIN);
	pre_commit(k, 1, &w1);
	commit(k, 1);
	assert_true(has_success(d, "dt=a"));
	p_put(k, 2, 1, "a", 0, SL_WM_MIN);
	p_put(k, 3, 1, "b", 0, SL_WM_MIN);
	pre_commit(k, 2, &w2);
	p_put(k, 4, 1, "c", 0, SL_WM_MIN); /* after the barrier: lost with the crash */
	sl_sink_free(k);                    /* crash: checkpoint 2 never committed */
	assert_string_equal(visible_rows(pdir(d, "dt=a")), "r0:0 r1:1");
	assert_string_equal(visible_rows(pdir(d, "dt=b")), "");
	assert_false(has_success(d, "dt=b"));
	k = p_sink(&p, "j", 2, &err);
	assert_non_null(k);
	if (recover(k, &w2, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(visible_rows(pdir(d, "dt=a")), "r0:0 r1:1 r2:2");
	assert_string_equal(visible_rows(pdir(d, "dt=b")), "r3:3");
	assert_true(has_success(d, "dt=b"));
	assert_string_equal(dir_names(pdir(d, "dt=c")), ""); /* in-progress part deleted */
	assert_int_equal(recover(k, &w2, &err), 0); /* idempotent */
	sl_sink_free(k);
	k = p_sink(&p, "j", 3, &err);
	assert_int_equal(recover(k, &w2, &err), 0);
	assert_string_equal(p_read(d), "r0:0:a r1:1:a r2:2:a r3:3:b");
	sl_sink_free(k);
	/* falling back to checkpoint 1 would repeat checkpoint 2's rows */
	k = p_sink(&p, "j", 4, &err);
	assert_int_equal(recover(k, &w1, &err), SL_ESTATE);
	assert_non_null(strstr(err.msg, "newer than the restored checkpoint 1"));
	sl_sink_free(k);
	k = p_sink(&p, "j", 5, &err);
	assert_int_equal(recover(k, NULL, &err), SL_ESTATE);
	sl_sink_free(k);
	sl_snap_writer_deinit(&w1);
	sl_snap_writer_deinit(&w2);
	sl_arena_deinit(&p.f.arena);
}

/* Reads up to max rows of partitioned source s in batches of cap rows as
 * "name:n:dt" appended to out; returns the last read code. */
static int p_read_some(sl_source *s, int cap, int max, char *out, size_t outcap)
{
	sl_type t[3] = {sl_type_varchar(SL_STRING_LEN), sl_type_make(SL_T_BIGINT),
	                sl_type_varchar(SL_STRING_LEN)};
	sl_batch *b = sl_batch_new(3, t, cap);
	sl_err err;
	size_t len = strlen(out);
	int rc, n = 0;
	do {
		sl_batch_reset(b);
		sl_err_clear(&err);
		rc = s->vt->read(s, b, &err);
		for (int r = 0; r < b->nrows; r++, n++)
			len += (size_t)snprintf(out + len, outcap - len, "%s%.*s:%lld:%.*s",
			                        len ? " " : "", (int)b->cols[0].v.str[r].len,
			                        b->cols[0].v.str[r].ptr, (long long)b->cols[1].v.i64[r],
			                        b->cols[2].null[r] ? 4 : (int)b->cols[2].v.str[r].len,
			                        b->cols[2].null[r] ? "NULL" : b->cols[2].v.str[r].ptr);
	} while (rc > 0 && n < max);
	sl_batch_free(b);
	return rc;
}

/* A partitioned source snapshotted in the middle of a partition's file and
 * restored: the rest of the rows, with their partition values; a value
 * that does not fit its column is an error naming the file; another
 * connector's directory layout (a file at the top) is not read. */
static void test_part_source_restore(void **state)
{
	char *d = ck_dir("part_src");
	mkdir(d, 0777);
	char sub[700];
	snprintf(sub, sizeof sub, "%s/dt=a", d);
	mkdir(sub, 0777);
	write_file(sub, "f1.jsonl", "{\"name\": \"a1\", \"n\": 1}\n{\"name\": \"a2\", \"n\": 2}\n"
	                            "{\"name\": \"a3\", \"n\": 3}\n");
	write_file(sub, ".f0.jsonl.inprogress", "garbage\n");
	snprintf(sub, sizeof sub, "%s/dt=b%%2Fc", d);
	mkdir(sub, 0777);
	write_file(sub, "f2.jsonl", "{\"name\": \"b1\", \"n\": 4}\n");
	snprintf(sub, sizeof sub, "%s/other=x", d);
	mkdir(sub, 0777);
	write_file(sub, "f3.jsonl", "{\"name\": \"x\", \"n\": 9}\n");
	write_file(d, "top.jsonl", "{\"name\": \"top\", \"n\": 9}\n");
	pfx p;
	sl_err err;
	pfx_init(&p, "json", d);
	sl_conn_args a = pfx_args(&p);
	sl_err_clear(&err);
	sl_source *s = sl_source_new_open(sl_source_find("filesystem")->partitioned, &a, &err);
	assert_non_null(s);
	char out[1024] = "";
	assert_true(p_read_some(s, 2, 2, out, sizeof out) > 0);
	assert_string_equal(out, "a1:1:a a2:2:a");
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	assert_int_equal(s->vt->snapshot(s, &w, &err), 0);
	sl_source_free(s);
	s = sl_source_new_open(sl_source_find("filesystem")->partitioned, &a, &err);
	assert_non_null(s);
	sl_snap_reader r;
	sl_snap_reader_init(&r, w.buf, w.len);
	assert_int_equal(s->vt->restore(s, &r, &err), 0);
	out[0] = 0;
	assert_int_equal(p_read_some(s, 2, 100, out, sizeof out), SL_EEOF);
	assert_string_equal(out, "a3:3:a b1:4:b/c");
	sl_source_free(s);
	sl_snap_writer_deinit(&w);
	sl_arena_deinit(&p.f.arena);
	/* an INT partition column whose directory value is not a number */
	pfx_init(&p, "json", d);
	p.fields[2] = (sl_field){"dt", sl_type_make(SL_T_INT)};
	a = pfx_args(&p);
	s = sl_source_new_open(sl_source_find("filesystem")->partitioned, &a, &err);
	assert_non_null(s);
	sl_type t[3] = {sl_type_varchar(SL_STRING_LEN), sl_type_make(SL_T_BIGINT),
	                sl_type_make(SL_T_INT)};
	sl_batch *b = sl_batch_new(3, t, 0);
	sl_err_clear(&err);
	assert_int_equal(s->vt->read(s, b, &err), SL_EINPUT);
	assert_non_null(strstr(err.msg, "dt=a/f1.jsonl': partition value 'a' of column 'dt' is "
	                                "not a valid INT"));
	sl_batch_free(b);
	sl_source_free(s);
	sl_arena_deinit(&p.f.arena);
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The space-separated words of text, sorted, joined by ' ' (in place). */
static void sort_words(char *text)
{
	static char *w[512];
	static char copy[8192];
	int n = 0;
	snprintf(copy, sizeof copy, "%s", text);
	for (char *save = NULL, *t = strtok_r(copy, " ", &save); t && n < 512;
	     t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	qsort(w, (size_t)n, sizeof *w, cmp_cstr);
	size_t len = 0;
	text[0] = 0;
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, 8192 - len, "%s%s", i ? " " : "", w[i]);
}

/* A partitioned source as parallel instances (docs/parallel.md §4 rule 5):
 * five files in three partition directories, read by the instances of 2
 * and 3: each instance reads its files of the whole order, with their
 * partition values, and the union is the rows of one instance. */
static void test_part_source_instances(void **state)
{
	char *d = ck_dir("part_inst");
	mkdir(d, 0777);
	static const char *const dirs[] = {"dt=a", "dt=b", "dt=c"};
	for (int i = 0, v = 0; i < 3; i++) {
		char sub[700];
		snprintf(sub, sizeof sub, "%s/%s", d, dirs[i]);
		mkdir(sub, 0777);
		for (int f = 0; f < (i == 1 ? 1 : 2); f++) {
			char name[32], text[256] = "";
			snprintf(name, sizeof name, "f%d.jsonl", f);
			for (int r = 0; r < 3; r++, v++)
				snprintf(text + strlen(text), sizeof text - strlen(text),
				         "{\"name\": \"r%d\", \"n\": %d}\n", v, v);
			write_file(sub, name, text);
		}
	}
	pfx p;
	sl_err err;
	pfx_init(&p, "json", d);
	static char ref[8192], got[8192];
	ref[0] = 0;
	sl_conn_args a = pfx_args(&p);
	sl_source *s = sl_source_new_open(sl_source_find("filesystem")->partitioned, &a, &err);
	assert_non_null(s);
	assert_int_equal(s->nsplits, 5);
	assert_int_equal(p_read_some(s, 2, 1000, ref, sizeof ref), SL_EEOF);
	sl_source_free(s);
	sort_words(ref);
	for (int np = 2; np <= 3; np++) {
		got[0] = 0;
		for (int i = 0; i < np; i++) {
			a.subtask = i;
			a.nsubtasks = np;
			s = sl_source_new_open(sl_source_find("filesystem")->partitioned, &a, &err);
			assert_non_null(s);
			assert_int_equal(s->nsplits, (5 - i + np - 1) / np);
			assert_int_equal(p_read_some(s, 2, 1000, got, sizeof got), SL_EEOF);
			sl_source_free(s);
		}
		sort_words(got);
		assert_string_equal(got, ref);
	}
	sl_arena_deinit(&p.f.arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_part_configure_then_open),
		cmocka_unit_test(test_part_write_read),
		cmocka_unit_test(test_part_mixed_batch),
		cmocka_unit_test(test_part_process_time),
		cmocka_unit_test(test_part_partition_time),
		cmocka_unit_test(test_part_crash_recover),
		cmocka_unit_test(test_part_source_restore),
		cmocka_unit_test(test_part_source_instances),
	};
	return cmocka_run_group_tests_name("conn_fs_partition", tests, setup, teardown);
}
