/*
 * test_changelog_ops.c - the operators of the changelog work driven
 * through their method tables with synthetic changelog batches, on both
 * state backends ("hashmap", "rocksdb"):
 *   ChangelogNormalize (op_changelog_normalize.c): new keys, updates
 *     without their old row, duplicates, key-only deletes, unknown keys,
 *     an update that changes the key, unchanged (TOASTed) columns;
 *   GroupAggregate with MIN/MAX over updating input (agg.c
 *     sl_agg_vals_add): the extreme taken back, equal values, numbers and
 *     strings, a group going to zero;
 *   the upsert sink view (op_sink.c) is covered by changelog_sink.slt.
 * Each stream is also cut at every row (RocksDB: two cuts, databases are
 * slow to create), snapshotted, restored into a fresh graph on a fresh
 * backend and finished there: the concatenated output must equal the
 * uninterrupted run's, at batch sizes 1 and 3.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "exec/ops.h"
#include "harness.h"

static const char *g_type = "hashmap";

/* ---- harness.h: feeder -> operator -> capture ------------------------------- */

typedef th_graph harness;

/* Input schema: k STRING, s STRING, v BIGINT. */
static void in_schema(sl_type *t)
{
	t[0] = sl_type_varchar(SL_STRING_LEN);
	t[1] = sl_type_varchar(SL_STRING_LEN);
	t[2] = sl_type_make(SL_T_BIGINT);
}

typedef sl_op *(*make_fn)(sl_type *out, int *nout);

static void h_init(harness *h, make_fn mk)
{
	th_graph_init(h, g_type, 3);
	in_schema(h->types);
	sl_type t[8];
	int nout;
	sl_op *op = mk(t, &nout);
	th_graph_open(h, op, 1, nout, t, NULL, 0);
}

static void h_deinit(harness *h)
{
	th_graph_deinit(h);
}

/* A row: kind, key, s (NULL = NULL, UNCH = unchanged: SL_NULL_UNCHANGED),
 * v (-1 = NULL). */
static const char UNCH[] = "(unchanged)";
typedef struct in_row {
	uint8_t op;
	const char *k, *s;
	int64_t v;
} in_row;

/* Feeds rows[0..n) in batches of bs; a -U and the +U after it stay in one
 * batch, as decoders produce them. */
static void feed(harness *h, const in_row *rows, int n, int bs)
{
	sl_batch *b = sl_batch_new(3, h->types, bs + 1);
	for (int i = 0; i < n;) {
		sl_batch_reset(b);
		for (int k = 0; i < n && (k < bs || (rows[i].op == SL_UPDATE_AFTER &&
		                                     rows[i - 1].op == SL_UPDATE_BEFORE));
		     k++, i++) {
			int r = sl_batch_add_row(b, rows[i].op, SL_WM_MIN);
			sl_col_set_str_ref(&b->cols[0], r, rows[i].k, (int64_t)strlen(rows[i].k));
			if (rows[i].s == UNCH)
				b->cols[1].null[r] = SL_NULL_UNCHANGED;
			else if (rows[i].s)
				sl_col_set_str_ref(&b->cols[1], r, rows[i].s, (int64_t)strlen(rows[i].s));
			if (rows[i].v >= 0)
				sl_col_set_i64(&b->cols[2], r, rows[i].v);
		}
		assert_int_equal(sl_op_emit(h->feed[0], b, &h->err), 0);
	}
	sl_batch_free(b);
}

/* Uninterrupted run equals want; every cut with a snapshot/restore into a
 * fresh graph (and backend) gives the same output. */
static void check(make_fn mk, const in_row *rows, int n, const char *want)
{
	for (int bs = 1; bs <= 3; bs += 2) {
		harness a;
		h_init(&a, mk);
		feed(&a, rows, n, bs);
		assert_string_equal(th_out(&a), want);
		h_deinit(&a);
		int rocks = !strcmp(g_type, "rocksdb");
		for (int cut = rocks ? n / 3 : 0; cut <= n; cut += rocks ? n / 3 : 1) {
			if (cut > 0 && cut < n && rows[cut].op == SL_UPDATE_AFTER &&
			    rows[cut - 1].op == SL_UPDATE_BEFORE)
				continue; /* a -U/+U pair travels together */
			harness b, c;
			h_init(&b, mk);
			feed(&b, rows, cut, bs);
			sl_snap_writer w;
			th_snapshot(&b, &w);
			sl_buf all;
			sl_buf_init(&all);
			sl_buf_puts(&all, th_out(&b));
			h_deinit(&b);
			h_init(&c, mk);
			th_restore(&c, &w);
			feed(&c, rows + cut, n - cut, bs);
			sl_buf_puts(&all, th_out(&c));
			if (strcmp(sl_buf_cstr(&all), want))
				fail_msg("%s, batch size %d, cut %d:\n%s\nwanted\n%s", g_type, bs, cut,
				         sl_buf_cstr(&all), want);
			sl_buf_deinit(&all);
			sl_snap_writer_deinit(&w);
			h_deinit(&c);
			if (rocks && cut + n / 3 > n)
				break;
		}
	}
}

/* ---- ChangelogNormalize --------------------------------------------------- */

static sl_op *mk_norm(sl_type *t, int *nout)
{
	static const int key[] = {0};
	sl_err e;
	sl_err_clear(&e);
	in_schema(t);
	*nout = 3;
	return sl_op_changelog_normalize_new(key, 1, &e);
}

static void test_normalize(void **st)
{
	static const in_row rows[] = {
		{SL_INSERT, "a", "x", 1},
		{SL_UPDATE_AFTER, "a", "x", 2},       /* no -U: the old row is state */
		{SL_UPDATE_AFTER, "a", "x", 2},       /* a duplicate: nothing */
		{SL_INSERT, "b", "y", 5},
		{SL_DELETE, "a", NULL, -1},           /* key-only delete */
		{SL_DELETE, "zz", NULL, -1},          /* unknown key: nothing */
		{SL_UPDATE_BEFORE, "b", "y", 5},      /* full update: -U ignored */
		{SL_UPDATE_AFTER, "b", "y", 6},
		{SL_UPDATE_BEFORE, "b", "y", 6},      /* the key changes b -> c */
		{SL_UPDATE_AFTER, "c", "y", 6},
		{SL_INSERT, "a", "w", 9},             /* a key that came back */
	};
	check(mk_norm, rows, 11,
	      "+I[a, x, 1]\n"
	      "-U[a, x, 1]\n+U[a, x, 2]\n"
	      "+I[b, y, 5]\n"
	      "-D[a, x, 2]\n"
	      "-U[b, y, 5]\n+U[b, y, 6]\n"
	      "-D[b, y, 6]\n+I[c, y, 6]\n"
	      "+I[a, w, 9]\n");
}

/* Unchanged columns (PostgreSQL's TOASTed values, conn_pgcdc.c) come from
 * the stored row, or from the row a key-changing -U retracted. */
static void test_normalize_unchanged(void **st)
{
	static const in_row rows[] = {
		{SL_INSERT, "a", "big", 1},
		{SL_UPDATE_AFTER, "a", UNCH, 2},      /* s unchanged */
		{SL_UPDATE_BEFORE, "a", NULL, -1},    /* key-only old row: a -> c */
		{SL_UPDATE_AFTER, "c", UNCH, 3},
		{SL_UPDATE_AFTER, "c", "new", 3},
		{SL_UPDATE_AFTER, "c", UNCH, 3},      /* a duplicate once completed */
	};
	check(mk_norm, rows, 6,
	      "+I[a, big, 1]\n"
	      "-U[a, big, 1]\n+U[a, big, 2]\n"
	      "-D[a, big, 2]\n+I[c, big, 3]\n"
	      "-U[c, big, 3]\n+U[c, new, 3]\n");
}

/* An unchanged column of a key never seen fails the job: its value is
 * unknown (it must not become NULL). */
static void test_normalize_unchanged_unknown(void **st)
{
	harness h;
	h_init(&h, mk_norm);
	sl_batch *b = sl_batch_new(3, h.types, 2);
	int r = sl_batch_add_row(b, SL_UPDATE_AFTER, SL_WM_MIN);
	sl_col_set_str_ref(&b->cols[0], r, "q", 1);
	b->cols[1].null[r] = SL_NULL_UNCHANGED;
	sl_col_set_i64(&b->cols[2], r, 1);
	assert_int_not_equal(sl_op_emit(h.feed[0], b, &h.err), 0);
	assert_non_null(strstr(h.err.msg, "no earlier row of its key"));
	sl_batch_free(b);
	h_deinit(&h);
}

/* ... unless it is a replayed change (SL_NULL_UNCHANGED_REPLAY): NULL
 * then, and a known key still gets its stored value. */
static void test_normalize_unchanged_replay(void **st)
{
	harness h;
	h_init(&h, mk_norm);
	sl_batch *b = sl_batch_new(3, h.types, 4);
	int r = sl_batch_add_row(b, SL_UPDATE_AFTER, SL_WM_MIN);
	sl_col_set_str_ref(&b->cols[0], r, "q", 1);
	b->cols[1].null[r] = SL_NULL_UNCHANGED_REPLAY;
	sl_col_set_i64(&b->cols[2], r, 1);
	r = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
	sl_col_set_str_ref(&b->cols[0], r, "k", 1);
	sl_col_set_str_ref(&b->cols[1], r, "big", 3);
	sl_col_set_i64(&b->cols[2], r, 1);
	r = sl_batch_add_row(b, SL_UPDATE_AFTER, SL_WM_MIN);
	sl_col_set_str_ref(&b->cols[0], r, "k", 1);
	b->cols[1].null[r] = SL_NULL_UNCHANGED_REPLAY;
	sl_col_set_i64(&b->cols[2], r, 2);
	r = sl_batch_add_row(b, SL_DELETE, SL_WM_MIN);
	sl_col_set_str_ref(&b->cols[0], r, "q", 1);
	assert_int_equal(sl_op_emit(h.feed[0], b, &h.err), 0);
	assert_string_equal(th_out(&h), "+I[q, NULL, 1]\n+I[k, big, 1]\n-U[k, big, 1]\n+U[k, big, 2]\n"
	                                "-D[q, NULL, 1]\n");
	sl_batch_free(b);
	h_deinit(&h);
}

/* ---- GroupAggregate with MIN/MAX retraction ------------------------------- */

static sl_agg mk_agg(const char *fn, int col, sl_type arg)
{
	sl_agg a;
	memset(&a, 0, sizeof(a));
	a.vt = sl_agg_find(fn);
	a.arg_type = arg;
	a.arg_col = col;
	a.filter_col = -1;
	a.retract = a.vt->retract_values;
	sl_err e;
	sl_err_clear(&e);
	a.vt->result_type(arg, col < 0, &a.out_type, &e);
	return a;
}

static sl_op *mk_group(sl_type *t, int *nout)
{
	static const int key[] = {0};
	static sl_agg aggs[5];
	sl_type in[3];
	in_schema(in);
	aggs[0] = mk_agg("MIN", 2, in[2]);
	aggs[1] = mk_agg("MAX", 2, in[2]);
	aggs[2] = mk_agg("MIN", 1, in[1]);
	aggs[3] = mk_agg("MAX", 1, in[1]);
	aggs[4] = mk_agg("COUNT", -1, in[2]);
	sl_group_agg_plan p = {.nkeys = 1, .key_cols = key, .naggs = 5, .aggs = aggs};
	t[0] = in[0];
	for (int i = 0; i < 5; i++)
		t[1 + i] = aggs[i].out_type;
	*nout = 6;
	sl_err e;
	sl_err_clear(&e);
	return sl_op_group_agg_new(&p, in, 3, &e);
}

static void test_group_minmax_retract(void **st)
{
	static const in_row rows[] = {
		{SL_INSERT, "g", "m", 10},
		{SL_INSERT, "g", "c", 5},
		{SL_INSERT, "g", "x", 20},
		{SL_INSERT, "g", "c", 5},              /* equal values */
		{SL_DELETE, "g", "c", 5},              /* one 5 and one "c" stay */
		{SL_UPDATE_BEFORE, "g", "x", 20},      /* the maximum taken back */
		{SL_UPDATE_AFTER, "g", "a", 7},
		{SL_DELETE, "g", "c", 5},              /* the minimum taken back */
		{SL_DELETE, "g", "m", 10},
		{SL_DELETE, "g", "a", 7},              /* the group's count falls to zero */
		{SL_INSERT, "g", NULL, -1},            /* NULLs are skipped */
	};
	check(mk_group, rows, 11,
	      "+I[g, 10, 10, m, m, 1]\n"
	      "-U[g, 10, 10, m, m, 1]\n+U[g, 5, 10, c, m, 2]\n"
	      "-U[g, 5, 10, c, m, 2]\n+U[g, 5, 20, c, x, 3]\n"
	      "-U[g, 5, 20, c, x, 3]\n+U[g, 5, 20, c, x, 4]\n"
	      "-U[g, 5, 20, c, x, 4]\n+U[g, 5, 20, c, x, 3]\n"
	      "-U[g, 5, 20, c, x, 3]\n+U[g, 5, 10, c, m, 2]\n"
	      "-U[g, 5, 10, c, m, 2]\n+U[g, 5, 10, a, m, 3]\n"
	      "-U[g, 5, 10, a, m, 3]\n+U[g, 7, 10, a, m, 2]\n"
	      "-U[g, 7, 10, a, m, 2]\n+U[g, 7, 7, a, a, 1]\n"
	      "-D[g, 7, 7, a, a, 1]\n"
	      "+I[g, NULL, NULL, NULL, NULL, 1]\n");
}

static int use_rocksdb(void **st)
{
	g_type = "rocksdb";
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_normalize_unchanged),
		cmocka_unit_test(test_normalize_unchanged_unknown),
		cmocka_unit_test(test_normalize_unchanged_replay),
		cmocka_unit_test(test_group_minmax_retract),
		cmocka_unit_test_setup(test_normalize, use_rocksdb),
		cmocka_unit_test_setup(test_group_minmax_retract, use_rocksdb),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
