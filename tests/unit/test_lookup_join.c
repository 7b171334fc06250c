/*
 * test_lookup_join.c - the lookup join: the filesystem connector's lookup
 * method (conn_fs_lookup.c) driven directly with synthetic processing
 * times (a hit, rows of one key in file order, a miss, NULL keys left out;
 * 'lookup.cache' = 'NONE' reading the file again only when it changed,
 * 'FULL' reading it once, or again after the periodic interval in
 * FIXED_DELAY and FIXED_RATE mode; refused options; the table still
 * readable as a scan source with them; a parallel instance's lookup reads
 * the whole table), and the operator (op_lookup_join.c)
 * driven through its method table: INNER and LEFT (miss, NULL key, a
 * residual), the probe's kind and W_before kept, and a snapshot/restore in
 * the middle of the stream whose output equals an uninterrupted run's, on
 * both state backends (the operator has no state; the snapshot holds only
 * the graph's scalars).
 *
 * The looked-up file is written to a temporary directory; the table's
 * schema is k STRING, name STRING, n BIGINT; the probe side's k STRING,
 * v BIGINT.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sluice.h"
#include "connector/conn.h"
#include "exec/join.h"
#include "data/rowcodec.h"
#include "harness.h"

static char g_dir[256];
static char g_path[256];
static const char *g_backend = "hashmap";

static void write_file(const char *text)
{
	FILE *f = fopen(g_path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char *const rows_v1 = "{\"k\":\"a\",\"name\":\"apple\",\"n\":1}\n"
                                   "{\"k\":\"b\",\"name\":\"banana\",\"n\":2}\n"
                                   "{\"k\":\"b\",\"name\":\"blueberry\",\"n\":3}\n"
                                   "{\"k\":null,\"name\":\"none\",\"n\":4}\n";

typedef struct table {
	sl_arena arena;
	sl_opts opts;
	sl_field fields[3];
	sl_conn_args args;
	sl_err err;
} table;

/* The table's args with extra options (key, value pairs, NULL-ended). */
static void table_init(table *t, const char *const *kv)
{
	memset(t, 0, sizeof(*t));
	sl_arena_init(&t->arena, 4096);
	sl_opts_init(&t->opts, &t->arena);
	sl_opts_set(&t->opts, "connector", "filesystem");
	sl_opts_set(&t->opts, "path", g_path);
	sl_opts_set(&t->opts, "format", "json");
	for (int i = 0; kv && kv[i]; i += 2)
		sl_opts_set(&t->opts, kv[i], kv[i + 1]);
	t->fields[0].name = "k";
	t->fields[0].type = sl_type_varchar(SL_STRING_LEN);
	t->fields[1].name = "name";
	t->fields[1].type = sl_type_varchar(SL_STRING_LEN);
	t->fields[2].name = "n";
	t->fields[2].type = sl_type_make(SL_T_BIGINT);
	t->args.table = "dim";
	t->args.fields = t->fields;
	t->args.nfields = 3;
	t->args.opts = &t->opts;
}

static int key0[1] = {0};

/* The names of the rows of key k at time now, comma-separated. */
static const char *names(sl_lookup *l, const char *k, int64_t now, char *buf)
{
	sl_batch *b;
	sl_type types[1] = {sl_type_varchar(SL_STRING_LEN)};
	b = sl_batch_new(1, types, 4);
	int r = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
	sl_col_set_str_ref(&b->cols[0], r, k, (int64_t)strlen(k));
	sl_buf key;
	sl_buf_init(&key);
	assert_int_equal(sl_rowcodec_key(b, key0, 1, 0, &key), 0);
	const void *rows;
	uint32_t len;
	sl_err err;
	sl_err_clear(&err);
	assert_int_equal(l->vt->lookup(l, key.p, (uint32_t)key.len, now, &rows, &len, &err), 0);
	buf[0] = 0;
	/* each row: u32 n, then k (null byte, u32 len, bytes), name (same), n */
	const char *p = rows, *end = p + len;
	while (p < end) {
		uint32_t n, kl, nl;
		memcpy(&n, p, 4);
		const char *q = p + 4;
		q += 1; /* k not NULL */
		memcpy(&kl, q, 4);
		q += 4 + kl + 1;
		memcpy(&nl, q, 4);
		if (buf[0])
			strcat(buf, ",");
		strncat(buf, q + 4, nl);
		p += 4 + n;
	}
	sl_buf_deinit(&key);
	sl_batch_free(b);
	return buf;
}

#define SEC 1000000LL

static void test_fs_lookup_none(void **st)
{
	char buf[256];
	write_file(rows_v1);
	table t;
	table_init(&t, NULL);
	sl_lookup *l = sl_lookup_new(sl_source_find("filesystem")->lookup, &t.args, key0, 1, &t.err);
	assert_non_null(l);
	assert_int_equal(l->loads, 0); /* read when first needed */
	assert_string_equal(names(l, "a", 1 * SEC, buf), "apple");
	assert_string_equal(names(l, "b", 1 * SEC, buf), "banana,blueberry");
	assert_string_equal(names(l, "zz", 2 * SEC, buf), "");
	assert_int_equal(l->loads, 1);
	/* the file changes (another size): the next instant reads it again */
	write_file("{\"k\":\"a\",\"name\":\"avocado\",\"n\":9}\n");
	assert_string_equal(names(l, "a", 3 * SEC, buf), "avocado");
	assert_string_equal(names(l, "b", 3 * SEC, buf), "");
	assert_int_equal(l->loads, 2);
	assert_string_equal(names(l, "a", 4 * SEC, buf), "avocado");
	assert_int_equal(l->loads, 2);
	sl_lookup_free(l);
	sl_arena_deinit(&t.arena);
}

/* A lookup of a parallel instance (sl_conn_args.subtask/nsubtasks set, as
 * the runtime opens one per lookup join instance) reads the whole table,
 * not the instance's share of a scan's splits: here the file is cut into
 * ranges of 40 bytes (SLUICE_TEST_SPLIT_BYTES), so a share would miss
 * rows. */
static void test_fs_lookup_instance_reads_all(void **st)
{
	char buf[256];
	write_file(rows_v1);
	setenv("SLUICE_TEST_SPLIT_BYTES", "40", 1);
	for (int inst = 0; inst < 3; inst++) {
		table t;
		table_init(&t, NULL);
		t.args.subtask = inst;
		t.args.nsubtasks = 3;
		sl_lookup *l = sl_lookup_new(sl_source_find("filesystem")->lookup, &t.args, key0, 1,
		                             &t.err);
		assert_non_null(l);
		assert_int_equal(sl_lookup_open(l, &t.err), 0);
		assert_string_equal(names(l, "a", 1 * SEC, buf), "apple");
		assert_string_equal(names(l, "b", 1 * SEC, buf), "banana,blueberry");
		sl_lookup_free(l);
		sl_arena_deinit(&t.arena);
	}
	unsetenv("SLUICE_TEST_SPLIT_BYTES");
}

static void test_fs_lookup_full(void **st)
{
	char buf[256];
	write_file(rows_v1);
	table t;
	table_init(&t, (const char *const[]){"lookup.cache", "FULL", NULL});
	sl_lookup *l = sl_lookup_new(sl_source_find("filesystem")->lookup, &t.args, key0, 1, &t.err);
	assert_non_null(l);
	assert_string_equal(names(l, "b", 1 * SEC, buf), "banana,blueberry");
	write_file("{\"k\":\"a\",\"name\":\"avocado\",\"n\":9}\n");
	/* no reload interval: the first read stays */
	assert_string_equal(names(l, "a", 1000 * SEC, buf), "apple");
	assert_int_equal(l->loads, 1);
	sl_lookup_free(l);
	sl_arena_deinit(&t.arena);

	write_file(rows_v1);
	table_init(&t, (const char *const[]){"lookup.cache", "FULL",
	                                     "lookup.full-cache.periodic-reload.interval", "10 s",
	                                     NULL});
	l = sl_lookup_new(sl_source_find("filesystem")->lookup, &t.args, key0, 1, &t.err);
	assert_non_null(l);
	assert_string_equal(names(l, "a", 5 * SEC, buf), "apple");
	write_file("{\"k\":\"a\",\"name\":\"avocado\",\"n\":9}\n");
	/* FIXED_DELAY (the default): 10 s after the end of the read */
	assert_string_equal(names(l, "a", 14 * SEC, buf), "apple");
	assert_string_equal(names(l, "a", 16 * SEC, buf), "avocado");
	assert_int_equal(l->loads, 2);
	sl_lookup_free(l);
	sl_arena_deinit(&t.arena);

	/* FIXED_RATE: 10 s after the start of the read (the instant it ran at) */
	write_file(rows_v1);
	table_init(&t, (const char *const[]){"lookup.cache", "FULL",
	                                     "lookup.full-cache.periodic-reload.interval", "10 s",
	                                     "lookup.full-cache.periodic-reload.schedule-mode",
	                                     "FIXED_RATE", NULL});
	l = sl_lookup_new(sl_source_find("filesystem")->lookup, &t.args, key0, 1, &t.err);
	assert_non_null(l);
	assert_string_equal(names(l, "a", 5 * SEC, buf), "apple");
	write_file("{\"k\":\"a\",\"name\":\"avocado\",\"n\":9}\n");
	assert_string_equal(names(l, "a", 15 * SEC - 1, buf), "apple");
	assert_string_equal(names(l, "a", 15 * SEC, buf), "avocado");
	assert_int_equal(l->loads, 2);
	sl_lookup_free(l);
	sl_arena_deinit(&t.arena);
}

static void test_fs_lookup_refused(void **st)
{
	static const char *const bad[][4] = {
		{"lookup.cache", "PARTIAL", NULL, NULL},
		{"lookup.partial-cache.expire-after-write", "1 min", NULL, NULL},
		{"lookup.cache", "FULL", "lookup.full-cache.reload-strategy", "TIMED"},
		{"lookup.cache", "FULL", "lookup.full-cache.periodic-reload.schedule-mode", "SOMETIMES"},
		{"lookup.full-cache.periodic-reload.interval", "1 s", NULL, NULL},
		{"lookup.cache", "MOST", NULL, NULL},
	};
	write_file(rows_v1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		table t;
		table_init(&t, bad[i]);
		assert_null(sl_lookup_new(sl_source_find("filesystem")->lookup, &t.args, key0, 1,
		                          &t.err));
		assert_int_equal(t.err.code, SL_EINVAL);
		assert_non_null(strstr(t.err.msg, "table 'dim'"));
		sl_arena_deinit(&t.arena);
	}
}

/* A table declared for lookups can be scanned: the source checks the
 * lookup options and reads the rows; it refuses what a lookup refuses. */
static void test_fs_scan_with_lookup_options(void **st)
{
	write_file(rows_v1);
	table t;
	table_init(&t, (const char *const[]){"lookup.cache", "FULL",
	                                     "lookup.full-cache.periodic-reload.interval", "1 min",
	                                     NULL});
	sl_source *s = sl_source_new_open(sl_source_find("filesystem"), &t.args, &t.err);
	assert_non_null(s);
	sl_opts_get(&t.opts, "connector"); /* read by the planner */
	assert_null(sl_opts_unused(&t.opts));
	sl_type types[3] = {t.fields[0].type, t.fields[1].type, t.fields[2].type};
	sl_batch *b = sl_batch_new(3, types, 16);
	assert_int_equal(s->vt->read(s, b, &t.err), 4);
	sl_batch_free(b);
	sl_source_free(s);
	sl_arena_deinit(&t.arena);
	table_init(&t, (const char *const[]){"lookup.cache", "PARTIAL", NULL});
	assert_null(sl_source_new_open(sl_source_find("filesystem"), &t.args, &t.err));
	assert_non_null(strstr(t.err.msg, "'PARTIAL' is not supported"));
	sl_arena_deinit(&t.arena);
}

/* ---- the operator ------------------------------------------------------------ */

typedef struct harness {
	th_graph x; /* feeder (probe k STRING, v BIGINT) -> lookup join -> capture */
	table t;    /* the looked-up table */
} harness;

/* A lookup join of kind k on probe k = dim k; residual "probe v < dim n"
 * when res. */
static void h_init(harness *h, sl_join_kind kind, int res)
{
	table_init(&h->t, NULL);
	th_graph_init(&h->x, g_backend, 2);
	h->x.types[0] = sl_type_varchar(SL_STRING_LEN);
	h->x.types[1] = sl_type_make(SL_T_BIGINT);
	for (int i = 0; i < 3; i++)
		h->x.types[2 + i] = h->t.fields[i].type;
	sl_join_plan p;
	memset(&p, 0, sizeof(p));
	p.kind = kind;
	p.nl = 2;
	p.nr = 3;
	p.ltypes = h->x.types;
	p.rtypes = h->x.types + 2;
	p.nkeys = 1;
	p.lkeys = p.rkeys = key0;
	if (res) {
		sl_expr *a[2] = {sl_expr_col(&h->t.arena, 1, h->x.types[1]),
		                 sl_expr_col(&h->t.arena, 4, h->x.types[4])};
		p.residual = sl_expr_call(&h->t.arena, SL_FN_LT, a, 2, NULL, 0, &h->t.err);
	}
	sl_lookup *l = sl_lookup_new(sl_source_find("filesystem")->lookup, &h->t.args, key0, 1,
	                             &h->t.err);
	assert_non_null(l);
	th_graph_open(&h->x, sl_op_lookup_join_new(&p, l, &h->t.err), 1, 5, h->x.types, NULL,
	              TH_CAPTURE_ROW_WM);
}

static void h_deinit(harness *h)
{
	th_graph_deinit(&h->x);
	sl_arena_deinit(&h->t.arena);
}

typedef struct in_row {
	const char *k;
	int64_t v;
	uint8_t op;
	int64_t wm;
} in_row;

static void feed(harness *h, const in_row *rows, int n, int bs)
{
	sl_batch *b = sl_batch_new(2, h->x.types, bs);
	for (int i = 0; i < n; i += bs) {
		sl_batch_reset(b);
		for (int k = i; k < n && k < i + bs; k++) {
			int r = sl_batch_add_row(b, rows[k].op, rows[k].wm);
			if (rows[k].k)
				sl_col_set_str_ref(&b->cols[0], r, rows[k].k, (int64_t)strlen(rows[k].k));
			sl_col_set_i64(&b->cols[1], r, rows[k].v);
		}
		assert_int_equal(sl_op_emit(h->x.feed[0], b, &h->x.err), 0);
	}
	sl_batch_free(b);
}

static const in_row probes[] = {
	{"a", 0, SL_INSERT, 5}, {"b", 2, SL_INSERT, 6}, {"zz", 0, SL_INSERT, 7},
	{NULL, 0, SL_INSERT, 8}, {"a", 1, SL_INSERT, 9}, {"b", 5, SL_INSERT, 10},
};

static void test_op_inner_left(void **st)
{
	write_file(rows_v1);
	harness h;
	h_init(&h, SL_JOIN_INNER, 0);
	feed(&h, probes, 6, 4);
	assert_string_equal(th_out(&h.x),
	                    "+I[a, 0, a, apple, 1] wm=5\n"
	                    "+I[b, 2, b, banana, 2] wm=6\n"
	                    "+I[b, 2, b, blueberry, 3] wm=6\n"
	                    "+I[a, 1, a, apple, 1] wm=9\n"
	                    "+I[b, 5, b, banana, 2] wm=10\n"
	                    "+I[b, 5, b, blueberry, 3] wm=10\n");
	h_deinit(&h);
	h_init(&h, SL_JOIN_LEFT, 1); /* residual probe v < dim n */
	feed(&h, probes, 6, 1);
	assert_string_equal(th_out(&h.x),
	                    "+I[a, 0, a, apple, 1] wm=5\n"
	                    "+I[b, 2, b, blueberry, 3] wm=6\n"
	                    "+I[zz, 0, NULL, NULL, NULL] wm=7\n"
	                    "+I[NULL, 0, NULL, NULL, NULL] wm=8\n"
	                    "+I[a, 1, NULL, NULL, NULL] wm=9\n"
	                    "+I[b, 5, NULL, NULL, NULL] wm=10\n");
	h_deinit(&h);
}

static void test_op_snapshot_restore(void **st)
{
	write_file(rows_v1);
	harness a, b, c;
	h_init(&a, SL_JOIN_LEFT, 0);
	feed(&a, probes, 6, 2);
	for (int cut = 0; cut <= 6; cut++) {
		h_init(&b, SL_JOIN_LEFT, 0);
		feed(&b, probes, cut, 2);
		sl_snap_writer w;
		th_snapshot(&b.x, &w);
		h_init(&c, SL_JOIN_LEFT, 0);
		th_restore(&c.x, &w);
		feed(&c, probes + cut, 6 - cut, 2);
		sl_buf all;
		sl_buf_init(&all);
		sl_buf_puts(&all, th_out(&b.x));
		sl_buf_puts(&all, th_out(&c.x));
		assert_string_equal(sl_buf_cstr(&all), th_out(&a.x));
		sl_buf_deinit(&all);
		sl_snap_writer_deinit(&w);
		h_deinit(&b);
		h_deinit(&c);
	}
	h_deinit(&a);
}

static void run_all(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fs_lookup_none),
		cmocka_unit_test(test_fs_lookup_instance_reads_all),
		cmocka_unit_test(test_fs_lookup_full),
		cmocka_unit_test(test_fs_lookup_refused),
		cmocka_unit_test(test_fs_scan_with_lookup_options),
		cmocka_unit_test(test_op_inner_left),
		cmocka_unit_test(test_op_snapshot_restore),
	};
	if (cmocka_run_group_tests_name(g_backend, tests, NULL, NULL))
		exit(1);
}

int main(void)
{
	if (th_tmpdir(g_dir, sizeof(g_dir), "sl-lookup"))
		return 1;
	snprintf(g_path, sizeof(g_path), "%s/dim.jsonl", g_dir);
	g_backend = "hashmap";
	run_all();
	g_backend = "rocksdb";
	run_all();
	th_rmtree(g_dir);
	return 0;
}
