/*
 * test_ops.c - operators driven through their method tables with synthetic
 * batches and watermarks: window aggregate (tumble, hop, late policies,
 * allowed lateness), session aggregate, group aggregate (updates,
 * retractions, mini-batch), calc and union (rows keep their W_before); each stateful one also with a
 * snapshot/restore round trip in the middle of the stream, whose output
 * must equal an uninterrupted run's.
 *
 * Harness (tests/unit/harness.h): a "feeder" operator (no methods) is the
 * graph's source; the input schema is k STRING, ts TIMESTAMP(3), v BIGINT; the
 * operator under test consumes it; a "capture" operator records every row
 * it receives as text ("+I[a, 30]") and the watermarks.
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

/* ---- harness (tests/unit/harness.h) ------------------------------------ */

typedef th_graph harness;

static void h_init(harness *h, sl_op *op, int nout, const sl_type *out_types)
{
	th_graph_init(h, "hashmap", 3);
	th_kv_schema(h->types);
	th_graph_open(h, op, 1, nout, out_types, NULL, 0);
}

static void h_deinit(harness *h)
{
	th_graph_deinit(h);
}

/* A row: key, ts "HH:MM:SS" on 2026-08-01, value, op, W_before (-1 = -inf). */
typedef struct in_row {
	const char *k;
	int64_t ts_s;
	int64_t v;
	uint8_t op;
	int64_t wm_s;
} in_row;

#define T0 TH_T0
#define S(x) TH_S(x)

/* Feeds rows in batches of `bs`; after each batch the watermark after it. */
static int feed(harness *h, const in_row *rows, int n, int bs)
{
	sl_batch *b = sl_batch_new(3, h->types, bs);
	int rc = 0;
	for (int i = 0; i < n && !rc; i += bs) {
		sl_batch_reset(b);
		int64_t last = SL_WM_MIN;
		for (int k = i; k < n && k < i + bs; k++) {
			int64_t wm = rows[k].wm_s < 0 ? SL_WM_MIN : T0 + S(rows[k].wm_s);
			int r = sl_batch_add_row(b, rows[k].op, wm);
			sl_col_set_str_ref(&b->cols[0], r, rows[k].k, (int64_t)strlen(rows[k].k));
			sl_col_set_i64(&b->cols[1], r, T0 + S(rows[k].ts_s));
			sl_col_set_i64(&b->cols[2], r, rows[k].v);
			last = wm;
		}
		rc = sl_op_emit(h->feed[0], b, &h->err);
		if (!rc && last != SL_WM_MIN)
			rc = sl_op_emit_watermark(h->feed[0], last, &h->err);
	}
	sl_batch_free(b);
	return rc;
}

static int end_input(harness *h)
{
	return sl_graph_end_source(h->feed[0], &h->err);
}

/* ---- window aggregate ----------------------------------------------------- */

static sl_agg sum_agg(int col)
{
	sl_agg a;
	memset(&a, 0, sizeof(a));
	a.vt = sl_agg_find("SUM");
	a.arg_type = sl_type_make(SL_T_BIGINT);
	sl_err e;
	sl_err_clear(&e);
	a.vt->result_type(a.arg_type, 0, &a.out_type, &e);
	a.arg_col = col;
	a.filter_col = -1;
	return a;
}

static sl_op *window_op(sl_window_agg_plan *p, sl_type *out_t, int *nout, sl_win_kind kind,
                        int64_t size, int64_t slide, int64_t lateness)
{
	static int keys[1] = {0};
	static sl_agg aggs[1];
	aggs[0] = sum_agg(2);
	memset(p, 0, sizeof(*p));
	p->win.kind = kind;
	p->win.time_col = 1;
	p->win.size = size;
	p->win.slide = slide;
	p->nkeys = 1;
	p->key_cols = keys;
	p->naggs = 1;
	p->aggs = aggs;
	p->lateness = lateness;
	p->late_ncols = 3;
	p->time_type = sl_type_timestamp(SL_T_TIMESTAMP, 3);
	sl_type in[3];
	th_kv_schema(in);
	*nout = sl_window_agg_out_types(p, in, out_t);
	sl_err e;
	sl_err_clear(&e);
	return kind == SL_WIN_SESSION ? sl_op_session_agg_new(p, in, 3, &e)
	                              : sl_op_window_agg_new(p, in, 3, &e);
}

/* The tutorial's late scenario (delay 5 s). */
static const in_row late_rows[] = {
	{"a", 5, 10, SL_INSERT, -1},
	{"b", 8, 20, SL_INSERT, 0},
	{"a", 22, 5, SL_INSERT, 3},
	{"c", 3, 3, SL_INSERT, 17},
	{"z", 1, 99, SL_INSERT, 17},
};

static void run_late(int bs, int64_t lateness, const char *want, int64_t want_dropped)
{
	harness h;
	sl_window_agg_plan p;
	sl_type t[8];
	int n;
	sl_op *op = window_op(&p, t, &n, SL_WIN_TUMBLE, S(10), 0, lateness);
	h_init(&h, op, n, t);
	assert_int_equal(feed(&h, late_rows, 5, bs), 0);
	assert_int_equal(end_input(&h), 0);
	assert_string_equal(th_out(&h), want);
	assert_int_equal(op->stats.late_dropped, want_dropped);
	assert_true(h.cap->last_wm == SL_WM_MAX);
	h_deinit(&h);
}

static void test_window_late_drop(void **st)
{
	const char *want = "+I[a, 2026-08-01 09:00:00, 2026-08-01 09:00:10, 2026-08-01 09:00:09.999, 10]\n"
	                   "+I[b, 2026-08-01 09:00:00, 2026-08-01 09:00:10, 2026-08-01 09:00:09.999, 20]\n"
	                   "+I[a, 2026-08-01 09:00:20, 2026-08-01 09:00:30, 2026-08-01 09:00:29.999, 5]\n";
	for (int bs = 1; bs <= 8; bs += 7)
		run_late(bs, 0, want, 2);
}

static void test_window_allowed_lateness(void **st)
{
	const char *want =
		"+I[a, 2026-08-01 09:00:00, 2026-08-01 09:00:10, 2026-08-01 09:00:09.999, 10]\n"
		"+I[b, 2026-08-01 09:00:00, 2026-08-01 09:00:10, 2026-08-01 09:00:09.999, 20]\n"
		"+I[c, 2026-08-01 09:00:00, 2026-08-01 09:00:10, 2026-08-01 09:00:09.999, 3]\n"
		"+I[z, 2026-08-01 09:00:00, 2026-08-01 09:00:10, 2026-08-01 09:00:09.999, 99]\n"
		"+I[a, 2026-08-01 09:00:20, 2026-08-01 09:00:30, 2026-08-01 09:00:29.999, 5]\n";
	run_late(1, S(60), want, 0);
	run_late(5, S(60), want, 0);
}

/* ts = end - 1 ms and ts = end, arriving with W_before below/at/above end. */
static void test_window_boundaries(void **st)
{
	harness h;
	sl_window_agg_plan p;
	sl_type t[8];
	int n;
	sl_op *op = window_op(&p, t, &n, SL_WIN_TUMBLE, S(10), 0, 0);
	h_init(&h, op, n, t);
	sl_batch *b = sl_batch_new(3, h.types, 8);
	/* rows with ts 09:00:09.999 arriving with W_before 09:00:09.999 (on time),
	 * 09:00:10 (late: W >= end) */
	int64_t end = T0 + S(10);
	int64_t wms[3] = {end - 1000, end - 1000, end};
	int64_t tss[3] = {end - 1000, end, end - 1000};
	for (int i = 0; i < 3; i++) {
		int r = sl_batch_add_row(b, SL_INSERT, wms[i]);
		sl_col_set_str_ref(&b->cols[0], r, "k", 1);
		sl_col_set_i64(&b->cols[1], r, tss[i]);
		sl_col_set_i64(&b->cols[2], r, 1 << i);
	}
	assert_int_equal(sl_op_emit(h.feed[0], b, &h.err), 0);
	/* the third row is late by its own W_before = end, although the window
	 * fires only at the operator's watermark (docs/parallel.md §4) */
	assert_string_equal(th_out(&h), "");
	assert_int_equal(op->stats.late_dropped, 1);
	assert_int_equal(end_input(&h), 0);
	assert_string_equal(th_out(&h), "+I[k, 2026-08-01 09:00:00, 2026-08-01 09:00:10, "
	                             "2026-08-01 09:00:09.999, 1]\n"
	                             "+I[k, 2026-08-01 09:00:10, 2026-08-01 09:00:20, "
	                             "2026-08-01 09:00:19.999, 2]\n");
	sl_batch_free(b);
	h_deinit(&h);
}

static void test_hop_partially_late(void **st)
{
	harness h;
	sl_window_agg_plan p;
	sl_type t[8];
	int n;
	sl_op *op = window_op(&p, t, &n, SL_WIN_HOP, S(10), S(5), 0);
	h_init(&h, op, n, t);
	/* W_before 09:00:10 closes [09:00:00, 09:00:10); a row at 09:00:07 is
	 * late for it but counts in [09:00:05, 09:00:15) */
	const in_row rows[] = {{"k", 1, 1, SL_INSERT, -1}, {"k", 7, 2, SL_INSERT, 10}};
	assert_int_equal(feed(&h, rows, 2, 1), 0);
	assert_int_equal(end_input(&h), 0);
	assert_string_equal(th_out(&h),
	                    "+I[k, 2026-08-01 08:59:55, 2026-08-01 09:00:05, 2026-08-01 09:00:04.999, 1]\n"
	                    "+I[k, 2026-08-01 09:00:00, 2026-08-01 09:00:10, 2026-08-01 09:00:09.999, 1]\n"
	                    "+I[k, 2026-08-01 09:00:05, 2026-08-01 09:00:15, 2026-08-01 09:00:14.999, 2]\n");
	assert_int_equal(op->stats.late_dropped, 0);
	h_deinit(&h);
}

/* Line i's (window, key) part: "k, start, end" of "+I[k, start, end, ...]". */
static size_t line_key(const char *l, size_t n)
{
	size_t i = 3;
	for (int commas = 0; i < n; i++)
		if (l[i] == ',' && ++commas == 3)
			break;
	return i;
}

typedef struct kline {
	const char *p;
	size_t n;
	int idx;
} kline;

static int kline_cmp(const void *a, const void *b)
{
	const kline *x = a, *y = b;
	size_t kx = line_key(x->p, x->n), ky = line_key(y->p, y->n);
	int c = memcmp(x->p + 3, y->p + 3, (kx < ky ? kx : ky) - 3);
	if (c)
		return c;
	if (kx != ky)
		return kx < ky ? -1 : 1;
	return x->idx - y->idx;
}

/* The captured lines grouped by (window, key), each key's lines in their
 * order (a stable sort): the contract's per-key order; the order among keys
 * may depend on batch boundaries (docs/parallel.md §4). */
static char *by_key_order(const char *text)
{
	kline v[256];
	int n = 0;
	for (const char *p = text; *p && n < 256;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		v[n].p = p;
		v[n].n = len;
		v[n].idx = n;
		n++;
		p += len + (e ? 1 : 0);
	}
	qsort(v, (size_t)n, sizeof(v[0]), kline_cmp);
	sl_buf out;
	sl_buf_init(&out);
	for (int i = 0; i < n; i++) {
		sl_buf_append(&out, v[i].p, v[i].n);
		sl_buf_putc(&out, '\n');
	}
	char *r = strdup(sl_buf_cstr(&out));
	sl_buf_deinit(&out);
	return r;
}

/* Snapshot after `cut` rows, restore into a fresh graph, finish there: the
 * concatenated output equals the uninterrupted run's, per (window, key)
 * (late rows pending while their window had not fired are applied in
 * window order, which depends on where the batches end). */
static void roundtrip(sl_win_kind kind, int64_t size, int64_t slide, int64_t lateness,
                      const in_row *rows, int nrows, int cut)
{
	harness a, b, c;
	sl_window_agg_plan p;
	sl_type t[8];
	int n;
	{ sl_op *op_ = window_op(&p, t, &n, kind, size, slide, lateness); h_init(&a, op_, n, t); }
	assert_int_equal(feed(&a, rows, nrows, 2), 0);
	assert_int_equal(end_input(&a), 0);

	{ sl_op *op_ = window_op(&p, t, &n, kind, size, slide, lateness); h_init(&b, op_, n, t); }
	assert_int_equal(feed(&b, rows, cut, 2), 0);
	sl_snap_writer w;
	th_snapshot(&b, &w);
	char *first = strdup(th_out(&b));
	h_deinit(&b);

	{ sl_op *op_ = window_op(&p, t, &n, kind, size, slide, lateness); h_init(&c, op_, n, t); }
	th_restore(&c, &w);
	assert_int_equal(feed(&c, rows + cut, nrows - cut, 2), 0);
	assert_int_equal(end_input(&c), 0);
	sl_buf all;
	sl_buf_init(&all);
	sl_buf_puts(&all, first);
	sl_buf_puts(&all, th_out(&c));
	char *got = by_key_order(sl_buf_cstr(&all)), *want = by_key_order(th_out(&a));
	assert_string_equal(got, want);
	free(got);
	free(want);
	sl_buf_deinit(&all);
	free(first);
	sl_snap_writer_deinit(&w);
	h_deinit(&a);
	h_deinit(&c);
}

static void test_window_snapshot_restore(void **st)
{
	for (int cut = 1; cut < 5; cut++) {
		roundtrip(SL_WIN_TUMBLE, S(10), 0, 0, late_rows, 5, cut);
		roundtrip(SL_WIN_TUMBLE, S(10), 0, S(60), late_rows, 5, cut);
		roundtrip(SL_WIN_HOP, S(10), S(5), 0, late_rows, 5, cut);
		roundtrip(SL_WIN_CUMULATE, S(20), S(5), S(30), late_rows, 5, cut);
	}
}

/* ---- session aggregate ------------------------------------------------------- */

static const in_row sess_rows[] = {
	{"a", 0, 1, SL_INSERT, -1},
	{"a", 60, 2, SL_INSERT, 0},
	{"b", 120, 5, SL_INSERT, 55},
	{"a", 30, 10, SL_INSERT, 115}, /* late: bridges [60, 90) within lateness */
	{"a", -3600, 100, SL_INSERT, 115},
};

static void test_session_merge_and_lateness(void **st)
{
	harness h;
	sl_window_agg_plan p;
	sl_type t[8];
	int n;
	sl_op *op = window_op(&p, t, &n, SL_WIN_SESSION, S(30), 0, S(60));
	h_init(&h, op, n, t);
	assert_int_equal(feed(&h, sess_rows, 5, 1), 0);
	assert_int_equal(end_input(&h), 0);
	assert_string_equal(th_out(&h),
		"+I[a, 2026-08-01 09:00:00, 2026-08-01 09:00:30, 2026-08-01 09:00:29.999, 1]\n"
		"+I[a, 2026-08-01 09:01:00, 2026-08-01 09:01:30, 2026-08-01 09:01:29.999, 2]\n"
		"-D[a, 2026-08-01 09:01:00, 2026-08-01 09:01:30, 2026-08-01 09:01:29.999, 2]\n"
		"+I[a, 2026-08-01 09:00:30, 2026-08-01 09:01:30, 2026-08-01 09:01:29.999, 12]\n"
		"+I[b, 2026-08-01 09:02:00, 2026-08-01 09:02:30, 2026-08-01 09:02:29.999, 5]\n");
	assert_int_equal(op->stats.late_dropped, 1);
	assert_int_equal(op->stats.late_corrected, 1);
	h_deinit(&h);
}

static void test_session_touching(void **st)
{
	harness h;
	sl_window_agg_plan p;
	sl_type t[8];
	int n;
	{ sl_op *op_ = window_op(&p, t, &n, SL_WIN_SESSION, S(10), 0, 0); h_init(&h, op_, n, t); }
	/* [0,10) and [10,20) touch: one session [0, 20) */
	const in_row rows[] = {{"a", 0, 1, SL_INSERT, -1}, {"a", 10, 2, SL_INSERT, -1},
	                       {"a", 40, 4, SL_INSERT, -1}};
	assert_int_equal(feed(&h, rows, 3, 3), 0);
	assert_int_equal(end_input(&h), 0);
	assert_string_equal(th_out(&h),
		"+I[a, 2026-08-01 09:00:00, 2026-08-01 09:00:20, 2026-08-01 09:00:19.999, 3]\n"
		"+I[a, 2026-08-01 09:00:40, 2026-08-01 09:00:50, 2026-08-01 09:00:49.999, 4]\n");
	h_deinit(&h);
}

static void test_session_snapshot_restore(void **st)
{
	for (int cut = 1; cut < 5; cut++)
		roundtrip(SL_WIN_SESSION, S(30), 0, S(60), sess_rows, 5, cut);
}

/* ---- group aggregate ---------------------------------------------------------- */

static sl_op *group_op(int mini, sl_type *out_t, int *nout)
{
	static int keys[1] = {0};
	static sl_agg aggs[1];
	aggs[0] = sum_agg(2);
	sl_group_agg_plan p = {.nkeys = 1, .key_cols = keys, .naggs = 1, .aggs = aggs, .mini_batch = mini};
	out_t[0] = sl_type_varchar(SL_STRING_LEN);
	out_t[1] = aggs[0].out_type;
	*nout = 2;
	sl_type in[3];
	th_kv_schema(in);
	sl_err e;
	sl_err_clear(&e);
	return sl_op_group_agg_new(&p, in, 3, &e);
}

static const in_row grp_rows[] = {
	{"a", 0, 1, SL_INSERT, -1},
	{"b", 0, 5, SL_INSERT, -1},
	{"a", 0, 2, SL_INSERT, -1},
	{"a", 0, 0, SL_INSERT, -1},       /* unchanged result: nothing emitted */
	{"a", 0, 1, SL_UPDATE_BEFORE, -1}, /* retraction */
	{"b", 0, 5, SL_DELETE, -1},       /* group count falls to zero: -D */
};

static void test_group_updates(void **st)
{
	harness h;
	sl_type t[4];
	int n;
	{ sl_op *op_ = group_op(0, t, &n); h_init(&h, op_, n, t); }
	assert_int_equal(feed(&h, grp_rows, 6, 1), 0);
	assert_string_equal(th_out(&h), "+I[a, 1]\n+I[b, 5]\n-U[a, 1]\n+U[a, 3]\n-U[a, 3]\n+U[a, 2]\n"
	                             "-D[b, 5]\n");
	h_deinit(&h);
	/* same rows in one batch: the same changes */
	{ sl_op *op_ = group_op(0, t, &n); h_init(&h, op_, n, t); }
	assert_int_equal(feed(&h, grp_rows, 6, 6), 0);
	assert_string_equal(th_out(&h), "+I[a, 1]\n+I[b, 5]\n-U[a, 1]\n+U[a, 3]\n-U[a, 3]\n+U[a, 2]\n"
	                             "-D[b, 5]\n");
	h_deinit(&h);
}

static void test_group_mini_batch(void **st)
{
	harness h;
	sl_type t[4];
	int n;
	{ sl_op *op_ = group_op(1, t, &n); h_init(&h, op_, n, t); }
	assert_int_equal(feed(&h, grp_rows, 3, 3), 0);
	assert_int_equal(feed(&h, grp_rows + 3, 3, 3), 0);
	/* per batch: one change per key */
	assert_string_equal(th_out(&h), "+I[a, 3]\n+I[b, 5]\n-U[a, 3]\n+U[a, 2]\n-D[b, 5]\n");
	h_deinit(&h);
}

static void test_group_snapshot_restore(void **st)
{
	harness a, b;
	sl_type t[4];
	int n;
	{ sl_op *op_ = group_op(0, t, &n); h_init(&a, op_, n, t); }
	assert_int_equal(feed(&a, grp_rows, 3, 1), 0);
	sl_snap_writer w;
	th_snapshot(&a, &w);
	{ sl_op *op_ = group_op(0, t, &n); h_init(&b, op_, n, t); }
	th_restore(&b, &w);
	sl_snap_reader r;
	assert_int_equal(feed(&b, grp_rows + 3, 3, 1), 0);
	assert_string_equal(th_out(&b), "-U[a, 3]\n+U[a, 2]\n-D[b, 5]\n");
	/* a damaged snapshot is refused, never a crash */
	sl_snap_reader_init(&r, w.buf, w.len / 2);
	harness c;
	{ sl_op *op_ = group_op(0, t, &n); h_init(&c, op_, n, t); }
	assert_int_not_equal(sl_graph_restore(&c.g, &r, &c.err), 0);
	h_deinit(&c);
	sl_snap_writer_deinit(&w);
	h_deinit(&a);
	h_deinit(&b);
}

/* ---- calc and union ----------------------------------------------------------- */

static void test_calc_filter_projection(void **st)
{
	sl_arena ar;
	sl_arena_init(&ar, 4096);
	sl_err e;
	sl_err_clear(&e);
	sl_type in[3];
	th_kv_schema(in);
	sl_expr *v = sl_expr_col(&ar, 2, in[2]);
	sl_expr *two = sl_expr_lit_i64(&ar, sl_type_make(SL_T_INT), 2);
	sl_expr *gt_args[2] = {v, two};
	sl_expr *filter = sl_expr_call(&ar, SL_FN_GT, gt_args, 2, NULL, 0, &e);
	sl_expr *mul_args[2] = {v, sl_expr_lit_i64(&ar, sl_type_make(SL_T_INT), 10)};
	sl_expr *proj[2] = {sl_expr_col(&ar, 0, in[0]), sl_expr_call(&ar, SL_FN_MUL, mul_args, 2, NULL, 0, &e)};
	sl_type t[2] = {in[0], proj[1]->type};
	harness h;
	h_init(&h, sl_op_calc_new(filter, proj, 2, in, 3, &e), 2, t);
	const in_row rows[] = {{"a", 0, 1, SL_INSERT, -1}, {"b", 0, 3, SL_UPDATE_AFTER, -1},
	                       {"c", 0, 5, SL_DELETE, -1}};
	assert_int_equal(feed(&h, rows, 3, 3), 0);
	assert_string_equal(th_out(&h), "+U[b, 30]\n-D[c, 50]\n");
	h_deinit(&h);
	sl_arena_deinit(&ar);
}

static void test_union_keeps_row_wm(void **st)
{
	/* feeder -> union input 0; a second feeder at input 1 whose watermark
	 * lags: the union's watermark is the minimum, but rows from input 0
	 * keep their own W_before (docs/parallel.md §4, rule 3) */
	harness h;
	sl_type in[3];
	th_kv_schema(in);
	sl_err e;
	sl_err_clear(&e);
	h_init(&h, sl_op_union_new(&e), 3, in);
	/* graph already has feeder (input 0); add a second input */
	sl_op *f2 = th_feeder_new();
	h.op->nin = 2;
	h.op->in_wm = realloc(h.op->in_wm, 2 * sizeof(int64_t));
	h.op->in_idle = realloc(h.op->in_idle, 2);
	h.op->in_wm[1] = SL_WM_MIN;
	h.op->in_idle[1] = 0;
	assert_int_equal(sl_graph_add(&h.g, f2, 0, 3, in, NULL), 0);
	sl_graph_connect(&h.g, f2, h.op, 1);
	sl_op_emit_watermark(f2, T0 + S(3), &h.err);
	h.cap->flags = TH_CAPTURE_ROW_WM;
	const in_row rows[] = {{"a", 50, 1, SL_INSERT, 40}};
	assert_int_equal(feed(&h, rows, 1, 1), 0);
	assert_true(h.cap->last_wm == T0 + S(3)); /* the merged watermark */
	char want[64];
	snprintf(want, sizeof(want), " wm=%lld", (long long)(T0 + S(40)));
	assert_non_null(strstr(th_out(&h), want));
	h_deinit(&h);
}

/* An idle input is left out of the minimum; the watermark advances. */
static void test_idle_input(void **st)
{
	harness h;
	sl_type in[3];
	th_kv_schema(in);
	sl_err e;
	sl_err_clear(&e);
	h_init(&h, sl_op_union_new(&e), 3, in);
	sl_op *f2 = th_feeder_new();
	h.op->nin = 2;
	h.op->in_wm = realloc(h.op->in_wm, 2 * sizeof(int64_t));
	h.op->in_idle = realloc(h.op->in_idle, 2);
	h.op->in_wm[1] = SL_WM_MIN;
	h.op->in_idle[1] = 0;
	assert_int_equal(sl_graph_add(&h.g, f2, 0, 3, in, NULL), 0);
	sl_graph_connect(&h.g, f2, h.op, 1);
	const in_row rows[] = {{"a", 50, 1, SL_INSERT, 40}};
	assert_int_equal(feed(&h, rows, 1, 1), 0);
	assert_true(h.cap->last_wm == 0); /* input 1 holds it at -infinity */
	assert_int_equal(sl_op_emit_idle(f2, 1, &h.err), 0);
	assert_true(h.cap->last_wm == T0 + S(40));
	assert_int_equal(h.op->idle, 0);
	assert_int_equal(sl_op_emit_idle(h.feed[0], 1, &h.err), 0);
	assert_int_equal(h.op->idle, 1); /* all inputs idle: idle downstream too */
	assert_int_equal(h.cap->base.in_idle[0], 1);
	assert_int_equal(sl_op_emit_idle(f2, 0, &h.err), 0);
	assert_int_equal(h.op->idle, 0);
	h_deinit(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_late_drop),
		cmocka_unit_test(test_window_allowed_lateness),
		cmocka_unit_test(test_window_boundaries),
		cmocka_unit_test(test_hop_partially_late),
		cmocka_unit_test(test_window_snapshot_restore),
		cmocka_unit_test(test_session_merge_and_lateness),
		cmocka_unit_test(test_session_touching),
		cmocka_unit_test(test_session_snapshot_restore),
		cmocka_unit_test(test_group_updates),
		cmocka_unit_test(test_group_mini_batch),
		cmocka_unit_test(test_group_snapshot_restore),
		cmocka_unit_test(test_calc_filter_projection),
		cmocka_unit_test(test_union_keeps_row_wm),
		cmocka_unit_test(test_idle_input),
	};
	return cmocka_run_group_tests_name("ops", tests, NULL, NULL);
}
