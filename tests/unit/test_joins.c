/*
 * test_joins.c - the join operators driven through their method tables
 * with synthetic batches and watermarks on two inputs: the regular join
 * (inner, outer padding and its retraction, updating inputs, NULL keys,
 * a residual predicate), the interval join (rows exactly on the bounds,
 * outer rows emitted when the watermark proves no match can come, state
 * freed, the held-back output watermark) and the window join (pairs and
 * padding when the watermark closes a window, late rows; window semi and
 * anti joins: the left rows with / without a match, NULL keys); each on both
 * state backends, and with a snapshot/restore in the middle of the stream
 * whose output equals an uninterrupted run's.
 *
 * Harness (tests/unit/harness.h): two "feeder" operators (no methods) are
 * the graph's sources, connected to inputs 0 (left) and 1 (right) of the
 * join; a "capture" operator records every row as text ("+I[a, 09:00:01,
 * 1, ...]") and the last watermark.  Both inputs have the schema k STRING, ts TIMESTAMP(3),
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

#include "sluice.h"
#include "exec/join.h"
#include "harness.h"

/* ---- harness (tests/unit/harness.h) ------------------------------------ */

#define T0 TH_T0
#define S(x) TH_S(x)

typedef enum { REGULAR, INTERVAL, WINDOW } jtype;

typedef th_graph harness;

static const char *g_backend = "hashmap";

static int keys[1] = {0};

/* A join of kind k; residual "left v < right v" when `res`. */
static sl_op *make_op(harness *h, jtype t, sl_join_kind k, int res, int64_t lo, int64_t hi)
{
	sl_join_plan p;
	memset(&p, 0, sizeof(p));
	p.kind = k;
	p.nl = p.nr = 3;
	p.ltypes = h->types;
	p.rtypes = h->types + 3;
	p.nkeys = 1;
	p.lkeys = p.rkeys = keys;
	if (res) {
		sl_expr *a[2] = {sl_expr_col(&h->arena, 2, h->types[2]),
		                 sl_expr_col(&h->arena, 5, h->types[5])};
		p.residual = sl_expr_call(&h->arena, SL_FN_LT, a, 2, NULL, 0, &h->err);
	}
	p.ltime = p.rtime = 1;
	p.lo = lo;
	p.hi = hi;
	p.time_side = k == SL_JOIN_FULL ? -1 : k == SL_JOIN_RIGHT ? 1 : 0;
	p.lwend = p.rwend = 1; /* window join: ts holds the window end */
	return t == REGULAR ? sl_op_join_new(&p, &h->err)
	     : t == INTERVAL ? sl_op_interval_join_new(&p, &h->err)
	                     : sl_op_window_join_new(&p, &h->err);
}

static void h_init(harness *h, jtype t, sl_join_kind k, int res, int64_t lo, int64_t hi)
{
	th_graph_init(h, g_backend, 3);
	th_kv_schema(h->types);
	th_kv_schema(h->types + 3);
	int nout = k == SL_JOIN_SEMI || k == SL_JOIN_ANTI ? 3 : 6; /* semi: left columns */
	th_graph_open(h, make_op(h, t, k, res, lo, hi), 2, nout, h->types, NULL, 0);
}

static void h_deinit(harness *h)
{
	th_graph_deinit(h);
}

/* An input row (harness.h): side, key (NULL ok), ts and W_before in seconds. */
typedef th_kv_row in_row;

/* Feeds rows (consecutive rows of one side in batches of up to bs); after
 * each batch the side's watermark moves to the next row's W_before of that
 * side, when given. */
static void feed(harness *h, const in_row *rows, int n, int bs)
{
	th_feed_sides(h, rows, n, bs, 0);
}

static void end_inputs(harness *h)
{
	assert_int_equal(sl_graph_end_source(h->feed[0], &h->err), 0);
	assert_int_equal(sl_graph_end_source(h->feed[1], &h->err), 0);
}

static void wm(harness *h, int side, int64_t s)
{
	assert_int_equal(sl_op_emit_watermark(h->feed[side], T0 + S(s), &h->err), 0);
}

#define L 0
#define R 1
#define I SL_INSERT
#define D SL_DELETE
#define UB SL_UPDATE_BEFORE
#define UA SL_UPDATE_AFTER

/* ---- regular join ----------------------------------------------------------- */

static void test_regular_left_retractions(void **st)
{
	harness h;
	h_init(&h, REGULAR, SL_JOIN_LEFT, 0, 0, 0);
	const in_row a[] = {{L, "a", 1, 1, I, -1}, {L, NULL, 2, 2, I, -1}};
	feed(&h, a, 2, 4);
	assert_string_equal(th_out(&h), "+I[a, 2026-08-01 09:00:01, 1, NULL, NULL, NULL]\n"
	                             "+I[NULL, 2026-08-01 09:00:02, 2, NULL, NULL, NULL]\n");
	th_out_reset(&h);
	/* the first match retracts the padding; a second match adds a row */
	const in_row b[] = {{R, "a", 5, 10, I, -1}, {R, "a", 6, 11, I, -1}, {R, NULL, 7, 12, I, -1}};
	feed(&h, b, 3, 1);
	assert_string_equal(th_out(&h),
	                    "-D[a, 2026-08-01 09:00:01, 1, NULL, NULL, NULL]\n"
	                    "+I[a, 2026-08-01 09:00:01, 1, a, 2026-08-01 09:00:05, 10]\n"
	                    "+I[a, 2026-08-01 09:00:01, 1, a, 2026-08-01 09:00:06, 11]\n");
	th_out_reset(&h);
	/* the matches go away one by one: padding back after the last */
	const in_row c[] = {{R, "a", 5, 10, UB, -1}, {R, "a", 6, 11, D, -1}, {R, "z", 6, 11, D, -1}};
	feed(&h, c, 3, 3);
	assert_string_equal(th_out(&h),
	                    "-D[a, 2026-08-01 09:00:01, 1, a, 2026-08-01 09:00:05, 10]\n"
	                    "-D[a, 2026-08-01 09:00:01, 1, a, 2026-08-01 09:00:06, 11]\n"
	                    "+I[a, 2026-08-01 09:00:01, 1, NULL, NULL, NULL]\n");
	th_out_reset(&h);
	/* the left row itself retracted; then the NULL-keyed one */
	const in_row d[] = {{L, "a", 1, 1, D, -1}, {L, NULL, 2, 2, D, -1}};
	feed(&h, d, 2, 2);
	assert_string_equal(th_out(&h), "-D[a, 2026-08-01 09:00:01, 1, NULL, NULL, NULL]\n"
	                             "-D[NULL, 2026-08-01 09:00:02, 2, NULL, NULL, NULL]\n");
	h_deinit(&h);
}

static void test_regular_inner_duplicates_residual(void **st)
{
	harness h;
	h_init(&h, REGULAR, SL_JOIN_INNER, 1, 0, 0);
	/* two identical left rows (one record, count 2); residual l.v < r.v */
	const in_row a[] = {{L, "a", 1, 5, I, -1}, {L, "a", 1, 5, I, -1}, {R, "a", 2, 4, I, -1},
	                    {R, "a", 3, 6, I, -1}, {L, "a", 1, 5, D, -1}, {R, "a", 3, 6, D, -1}};
	feed(&h, a, 6, 8);
	assert_string_equal(th_out(&h),
	                    "+I[a, 2026-08-01 09:00:01, 5, a, 2026-08-01 09:00:03, 6]\n"
	                    "+I[a, 2026-08-01 09:00:01, 5, a, 2026-08-01 09:00:03, 6]\n"
	                    "-D[a, 2026-08-01 09:00:01, 5, a, 2026-08-01 09:00:03, 6]\n"
	                    "-D[a, 2026-08-01 09:00:01, 5, a, 2026-08-01 09:00:03, 6]\n");
	h_deinit(&h);
}

/* A run of rows through a fresh operator, in one go and with a snapshot
 * after `cut` rows restored into a fresh graph: the outputs are equal. */
static void roundtrip(jtype t, sl_join_kind k, int64_t lo, int64_t hi, const in_row *rows,
                      int n, int cut, const char *want)
{
	harness a, b, c;
	h_init(&a, t, k, 0, lo, hi);
	feed(&a, rows, n, 3);
	end_inputs(&a);
	if (want)
		assert_string_equal(th_out(&a), want);

	h_init(&b, t, k, 0, lo, hi);
	feed(&b, rows, cut, 3);
	sl_snap_writer w;
	th_snapshot(&b, &w);
	char *first = strdup(th_out(&b));
	h_deinit(&b);

	h_init(&c, t, k, 0, lo, hi);
	th_restore(&c, &w);
	feed(&c, rows + cut, n - cut, 3);
	end_inputs(&c);
	sl_buf all;
	sl_buf_init(&all);
	sl_buf_puts(&all, first);
	sl_buf_puts(&all, th_out(&c));
	char *x = th_sorted_lines(sl_buf_cstr(&all)), *y = th_sorted_lines(th_out(&a));
	assert_string_equal(x, y);
	free(x);
	free(y);
	sl_buf_deinit(&all);
	free(first);
	sl_snap_writer_deinit(&w);
	h_deinit(&a);
	h_deinit(&c);
}

static const in_row full_rows[] = {
	{L, "a", 1, 1, I, -1}, {L, "b", 2, 2, I, -1}, {R, "b", 3, 3, I, -1},
	{R, "c", 4, 4, I, -1}, {L, "c", 5, 5, I, -1}, {R, "b", 3, 3, D, -1},
	{L, "a", 1, 1, UB, -1}, {L, "a", 1, 7, UA, -1}, {R, "a", 8, 8, I, -1},
};

static void test_regular_full_snapshot_restore(void **st)
{
	for (int cut = 0; cut <= 9; cut += 3)
		roundtrip(REGULAR, SL_JOIN_FULL, 0, 0, full_rows, 9, cut, NULL);
}

/* ---- interval join -------------------------------------------------------- */

/* L.ts - R.ts in [-5 s, 10 s]: L.ts BETWEEN R.ts - 5 s AND R.ts + 10 s. */
static void test_interval_bounds(void **st)
{
	harness h;
	h_init(&h, INTERVAL, SL_JOIN_INNER, 0, -S(5), S(10));
	/* right row at 20; left rows at 15 (= 20 - 5, on the bound), 14.999
	 * (just outside), 30 (= 20 + 10, on the bound), 31 (outside) */
	const in_row r[] = {{R, "a", 20, 1, I, -1}};
	feed(&h, r, 1, 1);
	sl_batch *b = sl_batch_new(3, h.types, 8);
	int64_t ts[4] = {T0 + S(15), T0 + S(15) - 1000, T0 + S(30), T0 + S(31)};
	for (int i = 0; i < 4; i++) {
		int row = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
		sl_col_set_str_ref(&b->cols[0], row, "a", 1);
		sl_col_set_i64(&b->cols[1], row, ts[i]);
		sl_col_set_i64(&b->cols[2], row, 10 + i);
	}
	assert_int_equal(sl_op_emit(h.feed[0], b, &h.err), 0);
	assert_string_equal(th_out(&h),
	                    "+I[a, 2026-08-01 09:00:15, 10, a, 2026-08-01 09:00:20, 1]\n"
	                    "+I[a, 2026-08-01 09:00:30, 12, a, 2026-08-01 09:00:20, 1]\n");
	sl_batch_free(b);
	h_deinit(&h);
}

static void test_interval_outer_and_cleanup(void **st)
{
	harness h;
	h_init(&h, INTERVAL, SL_JOIN_FULL, 0, -S(5), S(10));
	const in_row rows[] = {{L, "a", 10, 1, I, -1}, {R, "b", 10, 2, I, -1},
	                       {R, "a", 12, 3, I, -1}};
	feed(&h, rows, 3, 1);
	assert_string_equal(th_out(&h), "+I[a, 2026-08-01 09:00:10, 1, a, 2026-08-01 09:00:12, 3]\n");
	th_out_reset(&h);
	/* W = 15 on both sides: the left row (expires when W > 10 + 5) stays */
	wm(&h, L, 15);
	wm(&h, R, 15);
	assert_string_equal(th_out(&h), "");
	assert_true(h.cap->last_wm == T0 + S(5)); /* FULL: held back by max(5, 10) */
	/* W = 20.001: the left row's bound passed; right b (expires at W > 20) goes
	 * padded, right a (matched) silently */
	wm(&h, L, 21);
	wm(&h, R, 21);
	assert_string_equal(th_out(&h), "+I[NULL, NULL, NULL, b, 2026-08-01 09:00:10, 2]\n");
	end_inputs(&h);
	sl_state_table *t = sl_state_table_open(h.be, h.op->uid, "lbuckets", 0, &h.err);
	sl_state_table *u = sl_state_table_open(h.be, h.op->uid, "rbuckets", 0, &h.err);
	sl_state_table *tm = sl_state_table_open(h.be, h.op->uid, "lexpiry", 8, &h.err);
	sl_state_table *tm2 = sl_state_table_open(h.be, h.op->uid, "rexpiry", 8, &h.err);
	assert_int_equal(sl_state_count(t) + sl_state_count(u) + sl_state_count(tm) +
	                 sl_state_count(tm2), 0);
	h_deinit(&h);
}

static const in_row ij_rows[] = {
	{L, "a", 10, 1, I, -1}, {R, "a", 12, 2, I, -1}, {R, "b", 14, 3, I, -1},
	{L, "a", 18, 4, I, 10}, {L, "b", 30, 5, I, 18}, {R, "a", 31, 6, I, 14},
	{R, "b", 40, 7, I, 31}, {L, "c", 41, 8, I, 30}, {L, "b", 42, 9, I, 41},
};

static void test_interval_snapshot_restore(void **st)
{
	for (int cut = 1; cut <= 9; cut += 4) {
		roundtrip(INTERVAL, SL_JOIN_LEFT, -S(5), S(10), ij_rows, 9, cut, NULL);
		roundtrip(INTERVAL, SL_JOIN_FULL, -S(5), S(10), ij_rows, 9, cut, NULL);
	}
}

/* ---- window join ---------------------------------------------------------- */

static void test_window_join_fire(void **st)
{
	harness h;
	h_init(&h, WINDOW, SL_JOIN_FULL, 0, 0, 0);
	/* ts = the row's window end */
	const in_row rows[] = {{L, "a", 10, 1, I, -1}, {L, "b", 10, 2, I, -1},
	                       {L, NULL, 10, 3, I, -1}, {L, "a", 20, 4, I, -1},
	                       {R, "a", 10, 5, I, -1}, {R, "a", 10, 6, I, -1},
	                       {R, "c", 10, 7, I, -1}};
	feed(&h, rows, 7, 8);
	wm(&h, L, 9);
	wm(&h, R, 12);
	assert_string_equal(th_out(&h), ""); /* W = 9 < end 10 */
	wm(&h, L, 10);
	/* keys fire in the backend's order: compared as multisets */
	th_assert_same_rows(th_out(&h),
	                    "+I[a, 2026-08-01 09:00:10, 1, a, 2026-08-01 09:00:10, 5]\n"
	                    "+I[a, 2026-08-01 09:00:10, 1, a, 2026-08-01 09:00:10, 6]\n"
	                    "+I[b, 2026-08-01 09:00:10, 2, NULL, NULL, NULL]\n"
	                    "+I[NULL, 2026-08-01 09:00:10, 3, NULL, NULL, NULL]\n"
	                    "+I[NULL, NULL, NULL, c, 2026-08-01 09:00:10, 7]\n");
	th_out_reset(&h);
	/* a row for the fired window is late: dropped and counted */
	const in_row late[] = {{R, "b", 10, 8, I, 12}};
	feed(&h, late, 1, 1);
	assert_int_equal(h.op->stats.late_dropped, 1);
	end_inputs(&h);
	assert_string_equal(th_out(&h), "+I[a, 2026-08-01 09:00:20, 4, NULL, NULL, NULL]\n");
	sl_state_table *t = sl_state_table_open(h.be, h.op->uid, "left", 0, &h.err);
	assert_int_equal(sl_state_count(t), 0);
	h_deinit(&h);
}

static void test_window_semi_anti(void **st)
{
	const in_row rows[] = {{L, "a", 10, 1, I, -1}, {L, "a", 10, 1, I, -1},
	                       {L, "b", 10, 2, I, -1}, {L, NULL, 10, 3, I, -1},
	                       {L, "c", 20, 4, I, -1}, {R, "a", 10, 5, I, -1},
	                       {R, "a", 10, 6, I, -1}, {R, NULL, 10, 7, I, -1},
	                       {R, "c", 10, 8, I, -1}};
	harness h;
	h_init(&h, WINDOW, SL_JOIN_SEMI, 0, 0, 0);
	feed(&h, rows, 9, 4);
	wm(&h, L, 10);
	wm(&h, R, 10);
	/* each matched left row once (two matches, two identical rows) */
	assert_string_equal(th_out(&h), "+I[a, 2026-08-01 09:00:10, 1]\n"
	                             "+I[a, 2026-08-01 09:00:10, 1]\n");
	th_out_reset(&h);
	end_inputs(&h); /* c's right row was in another window */
	assert_string_equal(th_out(&h), "");
	h_deinit(&h);

	h_init(&h, WINDOW, SL_JOIN_ANTI, 0, 0, 0);
	feed(&h, rows, 9, 4);
	wm(&h, L, 10);
	wm(&h, R, 10);
	/* unmatched left rows, the NULL key among them */
	th_assert_same_rows(th_out(&h), "+I[b, 2026-08-01 09:00:10, 2]\n"
	                          "+I[NULL, 2026-08-01 09:00:10, 3]\n");
	th_out_reset(&h);
	end_inputs(&h);
	assert_string_equal(th_out(&h), "+I[c, 2026-08-01 09:00:20, 4]\n");
	h_deinit(&h);

	/* a residual: l.v < r.v */
	h_init(&h, WINDOW, SL_JOIN_ANTI, 1, 0, 0);
	const in_row res[] = {{L, "a", 10, 5, I, -1}, {L, "a", 10, 9, I, -1},
	                      {R, "a", 10, 7, I, -1}};
	feed(&h, res, 3, 4);
	end_inputs(&h);
	assert_string_equal(th_out(&h), "+I[a, 2026-08-01 09:00:10, 9]\n");
	h_deinit(&h);
}

static const in_row wj_rows[] = {
	{L, "a", 10, 1, I, -1}, {R, "a", 10, 2, I, -1}, {R, "b", 10, 3, I, -1},
	{L, "a", 20, 4, I, 5}, {L, "c", 20, 5, I, 10}, {R, "a", 20, 6, I, 10},
	{R, "c", 30, 7, I, 20}, {L, "c", 30, 8, I, 20}, {L, "d", 40, 9, I, 30},
};

static void test_window_join_snapshot_restore(void **st)
{
	for (int cut = 1; cut <= 9; cut += 4) {
		roundtrip(WINDOW, SL_JOIN_INNER, 0, 0, wj_rows, 9, cut, NULL);
		roundtrip(WINDOW, SL_JOIN_FULL, 0, 0, wj_rows, 9, cut, NULL);
	}
	for (int cut = 0; cut <= 9; cut++) {
		roundtrip(WINDOW, SL_JOIN_SEMI, 0, 0, wj_rows, 9, cut, NULL);
		roundtrip(WINDOW, SL_JOIN_ANTI, 0, 0, wj_rows, 9, cut, NULL);
	}
}

static void run_all(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regular_left_retractions),
		cmocka_unit_test(test_regular_inner_duplicates_residual),
		cmocka_unit_test(test_regular_full_snapshot_restore),
		cmocka_unit_test(test_interval_bounds),
		cmocka_unit_test(test_interval_outer_and_cleanup),
		cmocka_unit_test(test_interval_snapshot_restore),
		cmocka_unit_test(test_window_join_fire),
		cmocka_unit_test(test_window_semi_anti),
		cmocka_unit_test(test_window_join_snapshot_restore),
	};
	if (cmocka_run_group_tests_name(g_backend, tests, NULL, NULL))
		exit(1);
}

int main(void)
{
	g_backend = "hashmap";
	run_all();
	g_backend = "rocksdb";
	run_all();
	return 0;
}
