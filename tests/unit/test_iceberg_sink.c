/*
 * test_iceberg_sink.c - the Iceberg sink's row-level deletes driven through
 * its vtab (conn_iceberg.c, docs/iceberg.md "Upserts"): a key written and
 * then deleted or replaced within one checkpoint is deleted by position
 * only (an equality delete would not apply to a row of the same sequence
 * number), a key of an earlier checkpoint by equality; the pending files of
 * two checkpoints whose first commit did not happen are committed as two
 * snapshots in checkpoint order (one snapshot would give the second
 * checkpoint's equality deletes the sequence number of the first's rows,
 * which they would then miss); a restore commits a pre-committed
 * checkpoint's data and delete files once.  The readers' view of such
 * tables is checked by tests/integration/iceberg_upsert.sh.
 */
#include "fs_test_util.h"

typedef struct ifx {
	sl_arena arena;
	sl_opts opts;
	sl_field fields[2];
	int pk[1];
} ifx;

static sl_sink *ice_sink_at(ifx *f, const char *wh, int updating, int upsert, int attempt,
                            const sl_snap_writer *restored)
{
	memset(f, 0, sizeof *f);
	sl_arena_init(&f->arena, 0);
	sl_opts_init(&f->opts, &f->arena);
	sl_opts_set(&f->opts, "connector", "iceberg");
	sl_opts_set(&f->opts, "warehouse", wh);
	if (upsert)
		sl_opts_set(&f->opts, "write.upsert.enabled", "true");
	f->fields[0] = (sl_field){"name", sl_type_varchar(SL_STRING_LEN)};
	f->fields[1] = (sl_field){"n", sl_type_make(SL_T_BIGINT)};
	f->pk[0] = 0;
	sl_conn_args a = {.table = "t", .fields = f->fields, .nfields = 2, .pk = f->pk, .npk = 1,
	                  .opts = &f->opts, .tz = "UTC", .checkpointing = 1, .job = "j",
	                  .attempt = attempt, .updating = updating};
	sl_err err;
	sl_err_clear(&err);
	sl_sink *k = sl_sink_new_open(sl_sink_find("iceberg"), &a, &err);
	if (!k)
		fail_msg("%s", err.msg);
	if (recover(k, restored, &err))
		fail_msg("%s", err.msg);
	return k;
}

static sl_sink *ice_sink(ifx *f, const char *wh, int updating, int upsert)
{
	return ice_sink_at(f, wh, updating, upsert, 1, NULL);
}

/* Writes rows given as "op name n ..." (op one of I U D). */
static void put(sl_sink *k, const char *rows)
{
	sl_type t[2] = {sl_type_varchar(SL_STRING_LEN), sl_type_make(SL_T_BIGINT)};
	sl_batch *b = sl_batch_new(2, t, 0);
	char op, name[16];
	long long n;
	int used;
	while (sscanf(rows, " %c %15s %lld%n", &op, name, &n, &used) == 3) {
		rows += used;
		int r = sl_batch_add_row(b, op == 'I' ? SL_INSERT : op == 'U' ? SL_UPDATE_AFTER
		                                                    : SL_DELETE, SL_WM_MIN);
		sl_col_set_str(b, &b->cols[0], r, name, (int64_t)strlen(name));
		sl_col_set_i64(&b->cols[1], r, n);
	}
	sl_err err;
	sl_err_clear(&err);
	if (k->vt->write(k, b, &err))
		fail_msg("%s", err.msg);
	sl_batch_free(b);
}

/* Files of dir whose names end with suffix. */
static int count(const char *dir, const char *suffix)
{
	int n = 0;
	size_t sl = strlen(suffix);
	DIR *d = opendir(dir);
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		n += l >= sl && !strcmp(e->d_name + l - sl, suffix);
	}
	closedir(d);
	return n;
}

/* The text of the table's version v. */
static char *version(const char *table, int v)
{
	static char text[65536];
	char p[512];
	snprintf(p, sizeof p, "%s/metadata/v%d.metadata.json", table, v);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = 0;
	return text;
}

static void test_positions_then_equality(void **state)
{
	(void)state;
	char wh[512], data[600], table[600];
	snprintf(wh, sizeof wh, "%s", subdir("ice1"));
	snprintf(table, sizeof table, "%s/default/t", wh);
	snprintf(data, sizeof data, "%s/data", table);
	ifx f;
	sl_snap_writer w;
	sl_sink *k = ice_sink(&f, wh, 1, 0);
	/* checkpoint 1: b inserted and deleted, a replaced: positions only */
	put(k, "I a 1 I b 2 D b 2 U a 3");
	put(k, "U a 4");
	pre_commit(k, 1, &w);
	sl_snap_writer_deinit(&w);
	assert_int_equal(count(data, "-pos-delete.parquet"), 1);
	assert_int_equal(count(data, "-eq-delete.parquet"), 0);
	commit(k, 1);
	const char *v = version(table, 2);
	assert_non_null(strstr(v, "\"operation\":\"overwrite\""));
	assert_non_null(strstr(v, "\"added-position-deletes\":\"3\""));
	assert_non_null(strstr(v, "\"added-equality-deletes\":\"0\""));
	/* checkpoint 2: a of checkpoint 1 replaced (equality), c inserted;
	 * checkpoint 3: a replaced again, c deleted (both by equality);
	 * checkpoint 2's commit does not happen before 3's */
	put(k, "U a 5 I c 6");
	pre_commit(k, 2, &w);
	sl_snap_writer_deinit(&w);
	put(k, "U a 7 D c 6");
	pre_commit(k, 3, &w);
	sl_snap_writer_deinit(&w);
	assert_int_equal(count(data, "-eq-delete.parquet"), 2);
	commit(k, 3);
	sl_sink_free(k);
	/* two snapshots, 2 then 3, each with its own sequence number */
	v = version(table, 3);
	assert_non_null(strstr(v, "\"flink.max-committed-checkpoint-id\":\"2\""));
	assert_null(strstr(v, "\"flink.max-committed-checkpoint-id\":\"3\""));
	assert_non_null(strstr(v, "\"last-sequence-number\" : 2"));
	v = version(table, 4);
	assert_non_null(strstr(v, "\"flink.max-committed-checkpoint-id\":\"3\""));
	assert_non_null(strstr(v, "\"last-sequence-number\" : 3"));
	assert_non_null(strstr(v, "\"total-equality-deletes\":\"3\""));
	sl_arena_deinit(&f.arena);
}

/* With 'write.upsert.enabled' an insert-only input upserts: each key's
 * first row in a checkpoint deletes its earlier rows by equality, later
 * ones by position. */
static void test_upsert_inserts(void **state)
{
	(void)state;
	char wh[512], data[600], table[600];
	snprintf(wh, sizeof wh, "%s", subdir("ice2"));
	snprintf(table, sizeof table, "%s/default/t", wh);
	snprintf(data, sizeof data, "%s/data", table);
	ifx f;
	sl_snap_writer w;
	sl_sink *k = ice_sink(&f, wh, 0, 1);
	put(k, "I a 1 I a 2 I b 3 I a 4");
	pre_commit(k, 1, &w);
	sl_snap_writer_deinit(&w);
	commit(k, 1);
	sl_sink_free(k);
	const char *v = version(table, 2);
	assert_non_null(strstr(v, "\"added-equality-deletes\":\"2\""));
	assert_non_null(strstr(v, "\"added-position-deletes\":\"2\""));
	assert_non_null(strstr(v, "\"added-records\":\"4\""));
	sl_arena_deinit(&f.arena);
}

/* A crash after checkpoint 2's pre-commit, before its commit: the
 * restore commits its data and delete files (record version 3: content
 * and bounds per file) as checkpoint 2's snapshot, once. */
static void test_recover(void **state)
{
	(void)state;
	char wh[512], table[600];
	snprintf(wh, sizeof wh, "%s", subdir("ice4"));
	snprintf(table, sizeof table, "%s/default/t", wh);
	ifx f;
	sl_snap_writer w;
	sl_sink *k = ice_sink(&f, wh, 1, 0);
	put(k, "I a 1 I b 2");
	pre_commit(k, 1, &w);
	sl_snap_writer_deinit(&w);
	commit(k, 1);
	put(k, "U a 3 I c 4 D c 4");
	pre_commit(k, 2, &w);
	assert_int_equal(w.buf[0], 3); /* the record's version */
	sl_sink_free(k);                /* crash: no commit(2) */
	sl_arena_deinit(&f.arena);
	k = ice_sink_at(&f, wh, 1, 0, 2, &w);
	sl_sink_free(k);
	sl_arena_deinit(&f.arena);
	k = ice_sink_at(&f, wh, 1, 0, 3, &w); /* restored twice: committed once */
	sl_sink_free(k);
	sl_snap_writer_deinit(&w);
	const char *v = version(table, 3);
	assert_non_null(strstr(v, "\"flink.max-committed-checkpoint-id\":\"2\""));
	assert_non_null(strstr(v, "\"added-equality-deletes\":\"1\""));
	assert_non_null(strstr(v, "\"added-position-deletes\":\"1\""));
	char p[700];
	snprintf(p, sizeof p, "%s/metadata/v4.metadata.json", table);
	assert_int_equal(access(p, F_OK), -1);
	sl_arena_deinit(&f.arena);
}

/* An updating input needs a key; upserts need a key. */
static void test_refusals(void **state)
{
	(void)state;
	const sl_sink_vtab *vt = sl_sink_find("iceberg");
	sl_conn_args a = {.npk = 0};
	assert_int_equal(vt->can_update(&a), 0);
	a.npk = 1;
	assert_int_equal(vt->can_update(&a), 1);
	ifx f;
	memset(&f, 0, sizeof f);
	sl_arena_init(&f.arena, 0);
	sl_opts_init(&f.opts, &f.arena);
	sl_opts_set(&f.opts, "warehouse", subdir("ice3"));
	sl_opts_set(&f.opts, "write.upsert.enabled", "true");
	f.fields[0] = (sl_field){"name", sl_type_varchar(SL_STRING_LEN)};
	sl_conn_args b = {.table = "t", .fields = f.fields, .nfields = 1, .opts = &f.opts,
	                  .tz = "UTC"};
	sl_err err;
	sl_err_clear(&err);
	assert_null(sl_sink_new(vt, &b, &err));
	assert_non_null(strstr(err.msg, "needs a PRIMARY KEY"));
	sl_arena_deinit(&f.arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_positions_then_equality),
		cmocka_unit_test(test_upsert_inserts),
		cmocka_unit_test(test_recover),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
