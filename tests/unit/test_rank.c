/*
 * test_rank.c - the ROW_NUMBER and OVER operators driven through their
 * method tables with synthetic batches and watermarks: Top-N (with and
 * without the rn column, ties), deduplication (event-time keep-first with
 * late rows, processing-time keep-last), window Top-N and OVER aggregates,
 * DOUBLE -0.0 through a retracting Top-N;
 * each also with a snapshot/restore in the middle of the stream whose
 * output must equal an uninterrupted run's, on both state backends
 * ("hashmap", "rocksdb") and at batch sizes 1 and 3.
 *
 * Harness (tests/unit/harness.h): a "feeder" operator is the graph's
 * source, the operator under test consumes it, a "capture" operator
 * records every row as text ("+I[a, 30]").
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
#include "exec/op_over.h"
#include "exec/op_rank.h"
#include "exec/ops.h"
#include "harness.h"

/* ---- harness (tests/unit/harness.h) ------------------------------------ */

static const char *g_type = "hashmap"; /* the backend the cases run on */

typedef th_graph harness;

/* Builds the operator under test: output types into t, count into *nout. */
typedef sl_op *(*make_fn)(sl_type *t, int *nout);

static void h_init(harness *h, make_fn mk)
{
	th_graph_init(h, g_type, 3);
	th_kv_schema(h->types);
	sl_type t[8];
	int nout;
	sl_op *op = mk(t, &nout);
	th_graph_open(h, op, 1, nout, t, NULL, 0);
}

static void h_deinit(harness *h)
{
	th_graph_deinit(h);
}

/* A row: key, ts in seconds after 09:00:00, value; the watermark is ts -
 * 2 s (bounded out-of-orderness), W_before the maximum so far. */
/* Rows are written {k, ts, v} with op defaulting to +I. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
typedef struct in_row {
	const char *k;
	int64_t ts_s;
	int64_t v;
	uint8_t op;  /* row kind, SL_INSERT (0) unless given */
} in_row;

#define T0 1785574800000000LL /* 2026-08-01 09:00:00 UTC in micros */
#define S(x) ((int64_t)(x) * 1000000LL)
#define DELAY S(2)

/* Feeds rows[from, to) in batches of bs, W carried in *wm across calls. */
static int feed(harness *h, const in_row *rows, int from, int to, int bs, int64_t *wm)
{
	sl_batch *b = sl_batch_new(3, h->types, bs);
	int rc = 0;
	for (int i = from; i < to && !rc; i += bs) {
		sl_batch_reset(b);
		for (int k = i; k < to && k < i + bs; k++) {
			int r = sl_batch_add_row(b, rows[k].op, *wm);
			sl_col_set_str_ref(&b->cols[0], r, rows[k].k, (int64_t)strlen(rows[k].k));
			sl_col_set_i64(&b->cols[1], r, T0 + S(rows[k].ts_s));
			sl_col_set_i64(&b->cols[2], r, rows[k].v);
			if (T0 + S(rows[k].ts_s) - DELAY > *wm)
				*wm = T0 + S(rows[k].ts_s) - DELAY;
		}
		rc = sl_op_emit(h->feed[0], b, &h->err);
		if (!rc && *wm != SL_WM_MIN)
			rc = sl_op_emit_watermark(h->feed[0], *wm, &h->err);
	}
	sl_batch_free(b);
	return rc;
}

/* Runs rows uninterrupted; returns the output (malloc'd) and late drops. */
static char *run_all(make_fn mk, const in_row *rows, int n, int bs, int64_t *late)
{
	harness h;
	int64_t wm = SL_WM_MIN;
	h_init(&h, mk);
	assert_int_equal(feed(&h, rows, 0, n, bs, &wm), 0);
	assert_int_equal(sl_graph_end_source(h.feed[0], &h.err), 0);
	char *s = strdup(th_out(&h));
	if (late)
		*late = h.op->stats.late_dropped;
	h_deinit(&h);
	return s;
}

/* Snapshot after `cut` rows, restore into a fresh graph (and backend),
 * finish there: the concatenated output equals the uninterrupted run's. */
static void roundtrip(make_fn mk, const in_row *rows, int n, int bs, int cut)
{
	char *want = run_all(mk, rows, n, bs, NULL);
	harness b, c;
	int64_t wm = SL_WM_MIN;
	h_init(&b, mk);
	assert_int_equal(feed(&b, rows, 0, cut, bs, &wm), 0);
	sl_snap_writer w;
	th_snapshot(&b, &w);
	sl_buf all;
	sl_buf_init(&all);
	sl_buf_puts(&all, th_out(&b));
	h_deinit(&b);
	h_init(&c, mk);
	th_restore(&c, &w);
	assert_int_equal(feed(&c, rows, cut, n, bs, &wm), 0);
	assert_int_equal(sl_graph_end_source(c.feed[0], &c.err), 0);
	sl_buf_puts(&all, th_out(&c));
	assert_string_equal(sl_buf_cstr(&all), want);
	sl_buf_deinit(&all);
	sl_snap_writer_deinit(&w);
	h_deinit(&c);
	free(want);
}

/* Every cut point, batch sizes 1 and 3 (RocksDB: two cuts at batch size
 * 3, as each database costs tens of milliseconds to create). */
static void roundtrip_all(make_fn mk, const in_row *rows, int n)
{
	if (!strcmp(g_type, "rocksdb")) {
		roundtrip(mk, rows, n, 3, n / 3);
		roundtrip(mk, rows, n, 3, 2 * n / 3);
		return;
	}
	for (int bs = 1; bs <= 3; bs += 2)
		for (int cut = 0; cut <= n; cut++)
			roundtrip(mk, rows, n, bs, cut);
}

/* ---- rank plans ------------------------------------------------------------ */

static int g_retract; /* mk_rank builds a retracting Top-N */
static int g_update_fast; /* ... an update-fast one, upsert key (k, ts) */
static const int ukey1[] = {1};
static const int key0[] = {0};
static const int ord_v[] = {2};
static const int ord_ts[] = {1};
static const uint8_t desc1[] = {1}, asc1[] = {0};

static sl_op *mk_rank(sl_rank_mode mode, int out_rn, int64_t n, const int *ord,
                      const uint8_t *desc, sl_type *t, int *nout)
{
	sl_rank_plan p = {0};
	p.mode = mode;
	p.nkeys = 1;
	p.key_cols = key0;
	p.norder = 1;
	p.order_cols = ord;
	p.desc = desc;
	p.nulls_first = asc1;
	p.n = n;
	p.out_rn = out_rn;
	p.time_col = 1;
	p.retract = g_retract || g_update_fast;
	p.update_fast = g_update_fast;
	p.nukey = g_update_fast ? 1 : 0;
	p.ukey_cols = ukey1;
	sl_type in[3];
	th_kv_schema(in);
	*nout = sl__rank_out_types(&p, in, 3, t);
	sl_err err;
	sl_err_clear(&err);
	switch (mode) {
	case SL_RANK_TOPN: return sl_op_rank_new(&p, in, 3, &err);
	case SL_RANK_WINDOW: return sl_op_window_rank_new(&p, in, 3, &err);
	default: return sl_op_dedup_new(&p, in, 3, &err);
	}
}

static sl_op *top2_rn(sl_type *t, int *n) { return mk_rank(SL_RANK_TOPN, 1, 2, ord_v, desc1, t, n); }
static sl_op *top2(sl_type *t, int *n) { return mk_rank(SL_RANK_TOPN, 0, 2, ord_v, desc1, t, n); }
static sl_op *top1(sl_type *t, int *n) { return mk_rank(SL_RANK_TOPN, 0, 1, ord_v, desc1, t, n); }
static sl_op *first_row(sl_type *t, int *n)
{
	return mk_rank(SL_RANK_DEDUP_ROW_FIRST, 0, 1, ord_ts, asc1, t, n);
}
static sl_op *last_row(sl_type *t, int *n)
{
	return mk_rank(SL_RANK_DEDUP_ROW_LAST, 0, 1, ord_ts, desc1, t, n);
}
static sl_op *last_proc(sl_type *t, int *n)
{
	return mk_rank(SL_RANK_DEDUP_PROC_LAST, 1, 1, ord_ts, desc1, t, n);
}
/* window Top-2 where ts plays window_time: windows end at ts + 1 ms */
static sl_op *win_top2(sl_type *t, int *n)
{
	return mk_rank(SL_RANK_WINDOW, 1, 2, ord_v, desc1, t, n);
}

static const in_row topn_rows[] = {
	{"a", 1, 10}, {"a", 2, 20}, {"b", 3, 1}, {"a", 4, 15}, {"a", 5, 5}, {"a", 6, 20},
	{"b", 7, 3},
};
#define NROWS(a) ((int)(sizeof(a) / sizeof(a[0])))

static void test_topn_updates(void **st)
{
	char *s = run_all(top2_rn, topn_rows, NROWS(topn_rows), 3, NULL);
	assert_string_equal(s,
		"+I[a, 2026-08-01 09:00:01, 10, 1]\n"
		"-U[a, 2026-08-01 09:00:01, 10, 1]\n"
		"+U[a, 2026-08-01 09:00:02, 20, 1]\n"
		"+I[a, 2026-08-01 09:00:01, 10, 2]\n"
		"+I[b, 2026-08-01 09:00:03, 1, 1]\n"
		"-U[a, 2026-08-01 09:00:01, 10, 2]\n"
		"+U[a, 2026-08-01 09:00:04, 15, 2]\n"
		"-U[a, 2026-08-01 09:00:04, 15, 2]\n"   /* tie with :02 ranks after it */
		"+U[a, 2026-08-01 09:00:06, 20, 2]\n"
		"-U[b, 2026-08-01 09:00:03, 1, 1]\n"
		"+U[b, 2026-08-01 09:00:07, 3, 1]\n"
		"+I[b, 2026-08-01 09:00:03, 1, 2]\n");
	free(s);
	s = run_all(top2, topn_rows, NROWS(topn_rows), 1, NULL);
	assert_string_equal(s,
		"+I[a, 2026-08-01 09:00:01, 10]\n"
		"+I[a, 2026-08-01 09:00:02, 20]\n"
		"+I[b, 2026-08-01 09:00:03, 1]\n"
		"-D[a, 2026-08-01 09:00:01, 10]\n"
		"+I[a, 2026-08-01 09:00:04, 15]\n"
		"-D[a, 2026-08-01 09:00:04, 15]\n"
		"+I[a, 2026-08-01 09:00:06, 20]\n"
		"+I[b, 2026-08-01 09:00:07, 3]\n");
	free(s);
	roundtrip_all(top2_rn, topn_rows, NROWS(topn_rows));
	roundtrip_all(top2, topn_rows, NROWS(topn_rows));
	/* Top-1 without rn: keyed by the partition key, -U old / +U new (as
	 * Flink's FastTop1Function); a tie or a lower row emits nothing */
	s = run_all(top1, topn_rows, NROWS(topn_rows), 1, NULL);
	assert_string_equal(s,
		"+I[a, 2026-08-01 09:00:01, 10]\n"
		"-U[a, 2026-08-01 09:00:01, 10]\n"
		"+U[a, 2026-08-01 09:00:02, 20]\n"
		"+I[b, 2026-08-01 09:00:03, 1]\n"
		"-U[b, 2026-08-01 09:00:03, 1]\n"
		"+U[b, 2026-08-01 09:00:07, 3]\n");
	free(s);
	roundtrip_all(top1, topn_rows, NROWS(topn_rows));
}

/* keep-first by rowtime with out-of-order and late rows (delay 2 s) */
static const in_row dedup_rows[] = {
	{"a", 10, 1}, {"b", 11, 2}, {"a", 9, 3}, {"a", 14, 4}, {"b", 8, 5} /* late: W :12 */,
	{"c", 15, 6}, {"c", 15, 7}, {"a", 20, 8}, {"b", 30, 9},
};

static void test_dedup_event_time(void **st)
{
	int64_t late;
	char *s = run_all(first_row, dedup_rows, NROWS(dedup_rows), 1, &late);
	assert_string_equal(s,
		"+I[a, 2026-08-01 09:00:09, 3]\n"
		"+I[b, 2026-08-01 09:00:11, 2]\n"
		"+I[c, 2026-08-01 09:00:15, 6]\n");
	assert_int_equal(late, 1);
	free(s);
	s = run_all(last_row, dedup_rows, NROWS(dedup_rows), 3, NULL);
	assert_string_equal(s,
		"+I[a, 2026-08-01 09:00:10, 1]\n"
		"+I[b, 2026-08-01 09:00:11, 2]\n"
		"-U[a, 2026-08-01 09:00:10, 1]\n"
		"+U[a, 2026-08-01 09:00:14, 4]\n"
		"+I[c, 2026-08-01 09:00:15, 6]\n"
		"-U[c, 2026-08-01 09:00:15, 6]\n"
		"+U[c, 2026-08-01 09:00:15, 7]\n"
		"-U[a, 2026-08-01 09:00:14, 4]\n"
		"+U[a, 2026-08-01 09:00:20, 8]\n"
		"-U[b, 2026-08-01 09:00:11, 2]\n"
		"+U[b, 2026-08-01 09:00:30, 9]\n");
	free(s);
	roundtrip_all(first_row, dedup_rows, NROWS(dedup_rows));
	roundtrip_all(last_row, dedup_rows, NROWS(dedup_rows));
	roundtrip_all(last_proc, dedup_rows, NROWS(dedup_rows));
}

static void test_window_topn(void **st)
{
	/* rows at :10 and :11 are their own windows' window_time; the row at
	 * :05 arrives with W_before :09 and its window [.., :05.001) closed */
	static const in_row rows[] = {
		{"a", 10, 1}, {"a", 10, 3}, {"a", 10, 2}, {"b", 11, 4}, {"a", 5, 9}, {"a", 12, 0},
	};
	int64_t late;
	char *s = run_all(win_top2, rows, NROWS(rows), 1, &late);
	assert_string_equal(s,
		"+I[a, 2026-08-01 09:00:10, 3, 1]\n"
		"+I[a, 2026-08-01 09:00:10, 2, 2]\n"
		"+I[b, 2026-08-01 09:00:11, 4, 1]\n"
		"+I[a, 2026-08-01 09:00:12, 0, 1]\n");
	assert_int_equal(late, 1);
	free(s);
	roundtrip_all(win_top2, rows, NROWS(rows));
}

/* ---- OVER aggregates ---------------------------------------------------------- */

static sl_agg mk_agg(const char *name, int col)
{
	sl_agg a;
	memset(&a, 0, sizeof(a));
	a.vt = sl_agg_find(name);
	a.arg_type = sl_type_make(SL_T_BIGINT);
	sl_err e;
	sl_err_clear(&e);
	a.vt->result_type(a.arg_type, col < 0, &a.out_type, &e);
	a.arg_col = col;
	a.filter_col = -1;
	return a;
}

/* SUM(v), MIN(v), COUNT(*) OVER (PARTITION BY k ORDER BY ts <frame>) */
static sl_op *mk_over(int rows, int64_t preceding, sl_type *t, int *nout)
{
	sl_agg aggs[3] = {mk_agg("SUM", 2), mk_agg("MIN", 2), mk_agg("COUNT", -1)};
	sl_over_plan p = {0};
	p.nkeys = 1;
	p.key_cols = key0;
	p.time_col = 1;
	p.rows = rows;
	p.preceding = preceding;
	p.naggs = 3;
	p.aggs = aggs;
	th_kv_schema(t);
	for (int i = 0; i < 3; i++)
		t[3 + i] = aggs[i].out_type;
	*nout = 6;
	sl_err err;
	sl_err_clear(&err);
	return sl_op_over_agg_new(&p, t, 3, &err);
}

static sl_op *over_rows1(sl_type *t, int *n) { return mk_over(1, 1, t, n); }
static sl_op *over_range5(sl_type *t, int *n) { return mk_over(0, S(5), t, n); }
static sl_op *over_unbounded(sl_type *t, int *n) { return mk_over(1, -1, t, n); }

static void test_over_frames(void **st)
{
	int64_t late;
	char *s = run_all(over_rows1, dedup_rows, NROWS(dedup_rows), 1, &late);
	assert_string_equal(s,
		"+I[a, 2026-08-01 09:00:09, 3, 3, 3, 1]\n"
		"+I[a, 2026-08-01 09:00:10, 1, 4, 1, 2]\n"
		"+I[b, 2026-08-01 09:00:11, 2, 2, 2, 1]\n"
		"+I[a, 2026-08-01 09:00:14, 4, 5, 1, 2]\n"
		"+I[c, 2026-08-01 09:00:15, 6, 6, 6, 1]\n"
		"+I[c, 2026-08-01 09:00:15, 7, 13, 6, 2]\n"
		"+I[a, 2026-08-01 09:00:20, 8, 12, 4, 2]\n"
		"+I[b, 2026-08-01 09:00:30, 9, 11, 2, 2]\n");
	assert_int_equal(late, 1);
	free(s);
	s = run_all(over_range5, dedup_rows, NROWS(dedup_rows), 3, NULL);
	assert_string_equal(s,
		"+I[a, 2026-08-01 09:00:09, 3, 3, 3, 1]\n"
		"+I[a, 2026-08-01 09:00:10, 1, 4, 1, 2]\n"
		"+I[b, 2026-08-01 09:00:11, 2, 2, 2, 1]\n"
		"+I[a, 2026-08-01 09:00:14, 4, 8, 1, 3]\n"
		"+I[c, 2026-08-01 09:00:15, 6, 13, 6, 2]\n"
		"+I[c, 2026-08-01 09:00:15, 7, 13, 6, 2]\n"
		"+I[a, 2026-08-01 09:00:20, 8, 8, 8, 1]\n"
		"+I[b, 2026-08-01 09:00:30, 9, 9, 9, 1]\n");
	free(s);
	roundtrip_all(over_rows1, dedup_rows, NROWS(dedup_rows));
	roundtrip_all(over_range5, dedup_rows, NROWS(dedup_rows));
	roundtrip_all(over_unbounded, dedup_rows, NROWS(dedup_rows));
}

/* Top-2 over an updating input: retractions move rows up */
static const in_row retract_rows[] = {
	{"a", 1, 10}, {"a", 2, 20}, {"a", 3, 5}, {"a", 2, 20, SL_UPDATE_BEFORE},
	{"a", 4, 30, SL_UPDATE_AFTER}, {"a", 1, 10, SL_DELETE}, {"a", 9, 99, SL_DELETE},
	{"a", 4, 30, SL_DELETE}, {"a", 3, 5, SL_DELETE},
};

static void test_topn_retract(void **st)
{
	g_retract = 1;
	char *s = run_all(top2_rn, retract_rows, NROWS(retract_rows), 2, NULL);
	assert_string_equal(s,
		"+I[a, 2026-08-01 09:00:01, 10, 1]\n"
		"-U[a, 2026-08-01 09:00:01, 10, 1]\n"
		"+U[a, 2026-08-01 09:00:02, 20, 1]\n"
		"+I[a, 2026-08-01 09:00:01, 10, 2]\n"
		/* -U 20: 10 moves to rank 1, 5 (kept outside the top 2) to rank 2 */
		"-U[a, 2026-08-01 09:00:02, 20, 1]\n"
		"+U[a, 2026-08-01 09:00:01, 10, 1]\n"
		"-U[a, 2026-08-01 09:00:01, 10, 2]\n"
		"+U[a, 2026-08-01 09:00:03, 5, 2]\n"
		"-U[a, 2026-08-01 09:00:01, 10, 1]\n"
		"+U[a, 2026-08-01 09:00:04, 30, 1]\n"
		"-U[a, 2026-08-01 09:00:03, 5, 2]\n"
		"+U[a, 2026-08-01 09:00:01, 10, 2]\n"
		"-U[a, 2026-08-01 09:00:01, 10, 2]\n"   /* -D 10 */
		"+U[a, 2026-08-01 09:00:03, 5, 2]\n"
		/* -D of a row never seen: ignored */
		"-U[a, 2026-08-01 09:00:04, 30, 1]\n"
		"+U[a, 2026-08-01 09:00:03, 5, 1]\n"
		"-D[a, 2026-08-01 09:00:03, 5, 2]\n"
		"-D[a, 2026-08-01 09:00:03, 5, 1]\n");
	free(s);
	s = run_all(top2, retract_rows, NROWS(retract_rows), 3, NULL);
	assert_string_equal(s,
		"+I[a, 2026-08-01 09:00:01, 10]\n"
		"+I[a, 2026-08-01 09:00:02, 20]\n"
		"-D[a, 2026-08-01 09:00:02, 20]\n"
		"+I[a, 2026-08-01 09:00:03, 5]\n"
		"-D[a, 2026-08-01 09:00:03, 5]\n"
		"+I[a, 2026-08-01 09:00:04, 30]\n"
		"-D[a, 2026-08-01 09:00:01, 10]\n"
		"+I[a, 2026-08-01 09:00:03, 5]\n"
		"-D[a, 2026-08-01 09:00:04, 30]\n"
		"-D[a, 2026-08-01 09:00:03, 5]\n");
	free(s);
	roundtrip_all(top2_rn, retract_rows, NROWS(retract_rows));
	roundtrip_all(top2, retract_rows, NROWS(retract_rows));
	g_retract = 0;
}

/* Update-fast (Flink's UpdateFastStrategy): an upsert stream keyed by ts
 * (the "item") whose v only grows; -U rows are skipped (Flink's aggregate
 * does not send them). */
#define U_(k, ts, v) {k, ts, v, SL_UPDATE_BEFORE}, {k, ts, v, SL_UPDATE_AFTER}
static const in_row uf_rows[] = {
	{"a", 1, 10}, {"a", 2, 10},
	U_("a", 2, 10),            /* same sort key: updated in its place */
	{"a", 3, 5},               /* below the top 2 (a tie with the last too) */
	{"a", 3, 5, SL_UPDATE_BEFORE}, {"a", 3, 30, SL_UPDATE_AFTER}, /* enters: pushes :02 out */
	{"a", 1, 10, SL_UPDATE_BEFORE}, {"a", 1, 40, SL_UPDATE_AFTER}, /* moves from 2 to 1 */
	{"b", 9, 1},
};

static void test_topn_update_fast(void **st)
{
	g_update_fast = 1;
	char *s = run_all(top2_rn, uf_rows, NROWS(uf_rows), 2, NULL);
	assert_string_equal(s,
		"+I[a, 2026-08-01 09:00:01, 10, 1]\n"
		"+I[a, 2026-08-01 09:00:02, 10, 2]\n"
		"-U[a, 2026-08-01 09:00:02, 10, 2]\n"
		"+U[a, 2026-08-01 09:00:02, 10, 2]\n"
		"-U[a, 2026-08-01 09:00:01, 10, 1]\n"
		"+U[a, 2026-08-01 09:00:03, 30, 1]\n"
		"-U[a, 2026-08-01 09:00:02, 10, 2]\n"
		"+U[a, 2026-08-01 09:00:01, 10, 2]\n"
		/* UpdatableTopNFunction's order: the old row retracted after the
		 * first rank's old row */
		"-U[a, 2026-08-01 09:00:03, 30, 1]\n"
		"-U[a, 2026-08-01 09:00:01, 10, 2]\n"
		"+U[a, 2026-08-01 09:00:01, 40, 1]\n"
		"+U[a, 2026-08-01 09:00:03, 30, 2]\n"
		"+I[b, 2026-08-01 09:00:09, 1, 1]\n");
	free(s);
	s = run_all(top2, uf_rows, NROWS(uf_rows), 3, NULL);
	assert_string_equal(s,
		"+I[a, 2026-08-01 09:00:01, 10]\n"
		"+I[a, 2026-08-01 09:00:02, 10]\n"
		"-U[a, 2026-08-01 09:00:02, 10]\n"
		"+U[a, 2026-08-01 09:00:02, 10]\n"
		"-D[a, 2026-08-01 09:00:02, 10]\n"
		"+I[a, 2026-08-01 09:00:03, 30]\n"
		"-U[a, 2026-08-01 09:00:01, 10]\n"
		"+U[a, 2026-08-01 09:00:01, 40]\n"
		"+I[b, 2026-08-01 09:00:09, 1]\n");
	free(s);
	/* Top-1 (FastTop1Function): only a row strictly before the top moves it */
	s = run_all(top1, uf_rows, NROWS(uf_rows), 1, NULL);
	assert_string_equal(s,
		"+I[a, 2026-08-01 09:00:01, 10]\n"
		"-U[a, 2026-08-01 09:00:01, 10]\n"
		"+U[a, 2026-08-01 09:00:03, 30]\n"
		"-U[a, 2026-08-01 09:00:03, 30]\n"
		"+U[a, 2026-08-01 09:00:01, 40]\n"
		"+I[b, 2026-08-01 09:00:09, 1]\n");
	free(s);
	roundtrip_all(top2_rn, uf_rows, NROWS(uf_rows));
	roundtrip_all(top2, uf_rows, NROWS(uf_rows));
	roundtrip_all(top1, uf_rows, NROWS(uf_rows));
	/* a -D cannot come from a monotonic upsert input: an error, not a guess */
	static const in_row del[] = {{"a", 1, 10}, {"a", 1, 10, SL_DELETE}};
	harness h;
	int64_t wm = SL_WM_MIN;
	h_init(&h, top2);
	assert_int_equal(feed(&h, del, 0, 2, 2, &wm), SL_EINPUT);
	assert_non_null(strstr(h.err.msg, "update-fast"));
	h_deinit(&h);
	g_update_fast = 0;
}

/* Flink's UpdatableTopNFunctionTest and FastTop1FunctionTest
 * (flink-table-runtime, operators/rank): testSortKeyChangesWhen(Not)
 * OutputRankNumber, rank range 1 .. 2 (and 1 .. 1) over
 * (partition, row key, sort value ASC), the row key here in the ts column;
 * the expected changelogs are Flink's, in Flink's order. */
static sl_op *top2_rn_asc(sl_type *t, int *n) { return mk_rank(SL_RANK_TOPN, 1, 2, ord_v, asc1, t, n); }
static sl_op *top2_asc(sl_type *t, int *n) { return mk_rank(SL_RANK_TOPN, 0, 2, ord_v, asc1, t, n); }
static sl_op *top1_asc(sl_type *t, int *n) { return mk_rank(SL_RANK_TOPN, 0, 1, ord_v, asc1, t, n); }
static sl_op *top1_rn_asc(sl_type *t, int *n) { return mk_rank(SL_RANK_TOPN, 1, 1, ord_v, asc1, t, n); }
static const in_row flink_uf_rows[] = {
	{"book", 2, 19}, {"book", 3, 16}, {"book", 2, 11, SL_UPDATE_AFTER},
	{"book", 3, 15, SL_UPDATE_AFTER}, {"book", 4, 2}, {"book", 2, 1, SL_UPDATE_AFTER},
};

static void test_topn_update_fast_flink(void **st)
{
	g_update_fast = 1;
	char *s = run_all(top2_rn_asc, flink_uf_rows, NROWS(flink_uf_rows), 1, NULL);
	assert_string_equal(s,
		"+I[book, 2026-08-01 09:00:02, 19, 1]\n"
		"-U[book, 2026-08-01 09:00:02, 19, 1]\n"
		"+U[book, 2026-08-01 09:00:03, 16, 1]\n"
		"+I[book, 2026-08-01 09:00:02, 19, 2]\n"
		"-U[book, 2026-08-01 09:00:03, 16, 1]\n"
		"-U[book, 2026-08-01 09:00:02, 19, 2]\n"
		"+U[book, 2026-08-01 09:00:02, 11, 1]\n"
		"+U[book, 2026-08-01 09:00:03, 16, 2]\n"
		"-U[book, 2026-08-01 09:00:03, 16, 2]\n"
		"+U[book, 2026-08-01 09:00:03, 15, 2]\n"
		"-U[book, 2026-08-01 09:00:02, 11, 1]\n"
		"+U[book, 2026-08-01 09:00:04, 2, 1]\n"
		"-U[book, 2026-08-01 09:00:03, 15, 2]\n"
		"+U[book, 2026-08-01 09:00:02, 11, 2]\n"
		"-U[book, 2026-08-01 09:00:04, 2, 1]\n"
		"-U[book, 2026-08-01 09:00:02, 11, 2]\n"
		"+U[book, 2026-08-01 09:00:02, 1, 1]\n"
		"+U[book, 2026-08-01 09:00:04, 2, 2]\n");
	free(s);
	s = run_all(top2_asc, flink_uf_rows, NROWS(flink_uf_rows), 1, NULL);
	assert_string_equal(s,
		"+I[book, 2026-08-01 09:00:02, 19]\n"
		"+I[book, 2026-08-01 09:00:03, 16]\n"
		"-U[book, 2026-08-01 09:00:02, 19]\n"
		"+U[book, 2026-08-01 09:00:02, 11]\n"
		"-U[book, 2026-08-01 09:00:03, 16]\n"
		"+U[book, 2026-08-01 09:00:03, 15]\n"
		"-D[book, 2026-08-01 09:00:03, 15]\n"
		"+I[book, 2026-08-01 09:00:04, 2]\n"
		"-U[book, 2026-08-01 09:00:02, 11]\n"
		"+U[book, 2026-08-01 09:00:02, 1]\n");
	free(s);
	/* FastTop1FunctionTest: testSortKeyChangesWhenNotOutputRankNumber and
	 * (the same rows with rn 1) testSortKeyChangesWhenOutputRankNumber */
	static const char top1_want[] =
		"+I[book, 2026-08-01 09:00:02, 19%s]\n"
		"-U[book, 2026-08-01 09:00:02, 19%s]\n"
		"+U[book, 2026-08-01 09:00:03, 16%s]\n"
		"-U[book, 2026-08-01 09:00:03, 16%s]\n"
		"+U[book, 2026-08-01 09:00:02, 11%s]\n"
		"-U[book, 2026-08-01 09:00:02, 11%s]\n"
		"+U[book, 2026-08-01 09:00:04, 2%s]\n"
		"-U[book, 2026-08-01 09:00:04, 2%s]\n"
		"+U[book, 2026-08-01 09:00:02, 1%s]\n";
	char want[1024];
	for (int rn = 0; rn <= 1; rn++) {
		const char *r = rn ? ", 1" : "";
		snprintf(want, sizeof(want), top1_want, r, r, r, r, r, r, r, r, r);
		s = run_all(rn ? top1_rn_asc : top1_asc, flink_uf_rows, NROWS(flink_uf_rows), 1, NULL);
		assert_string_equal(s, want);
		free(s);
	}
	g_update_fast = 0;
}

/* The retract strategy against Flink's RetractableTopNFunctionTest
 * (flink-table-runtime, operators/rank): testProcessRetractMessageWith
 * GenerateUpdateBefore, rank range 1 .. 2 with rn, sort value ASC. */
static const in_row flink_retract_rows[] = {
	{"book", 1, 12}, {"book", 2, 19}, {"book", 4, 11}, {"book", 1, 12, SL_UPDATE_BEFORE},
	{"book", 5, 11}, {"fruit", 4, 33}, {"fruit", 3, 44}, {"fruit", 5, 22},
};

static void test_topn_retract_flink(void **st)
{
	g_retract = 1;
	char *s = run_all(top2_rn_asc, flink_retract_rows, NROWS(flink_retract_rows), 1, NULL);
	assert_string_equal(s,
		"+I[book, 2026-08-01 09:00:01, 12, 1]\n"
		"+I[book, 2026-08-01 09:00:02, 19, 2]\n"
		"-U[book, 2026-08-01 09:00:01, 12, 1]\n"
		"+U[book, 2026-08-01 09:00:04, 11, 1]\n"
		"-U[book, 2026-08-01 09:00:02, 19, 2]\n"
		"+U[book, 2026-08-01 09:00:01, 12, 2]\n"
		"-U[book, 2026-08-01 09:00:01, 12, 2]\n"
		"+U[book, 2026-08-01 09:00:02, 19, 2]\n"
		"-U[book, 2026-08-01 09:00:02, 19, 2]\n"
		"+U[book, 2026-08-01 09:00:05, 11, 2]\n"
		"+I[fruit, 2026-08-01 09:00:04, 33, 1]\n"
		"+I[fruit, 2026-08-01 09:00:03, 44, 2]\n"
		"-U[fruit, 2026-08-01 09:00:04, 33, 1]\n"
		"+U[fruit, 2026-08-01 09:00:05, 22, 1]\n"
		"-U[fruit, 2026-08-01 09:00:03, 44, 2]\n"
		"+U[fruit, 2026-08-01 09:00:04, 33, 2]\n");
	free(s);
	g_retract = 0;
}

static int setup_rocksdb(void **st)
{
	g_type = "rocksdb";
	return 0;
}

static int setup_hashmap(void **st)
{
	g_type = "hashmap";
	return 0;
}

/* DOUBLE -0.0 through a retracting Top-2 (k STRING, d DOUBLE, v BIGINT),
 * ORDER BY v: the stored row comes back with its sign, and a retraction
 * finds the row SQL-equal to it (-0.0 = 0.0) though its bytes differ:
 * -D(0.0) removes the +I(-0.0), -D(-0.0) the +I(0.0) (as an entry stored
 * in the key form by earlier versions, whose 0.0 has the same bytes). */
static void feed_d(harness *h, const char *k, double d, int64_t v, uint8_t op)
{
	sl_batch *b = sl_batch_new(3, h->types, 1);
	int r = sl_batch_add_row(b, op, SL_WM_MIN);
	sl_col_set_str_ref(&b->cols[0], r, k, (int64_t)strlen(k));
	sl_col_set_f64(&b->cols[1], r, d);
	sl_col_set_i64(&b->cols[2], r, v);
	assert_int_equal(sl_op_emit(h->feed[0], b, &h->err), 0);
	sl_batch_free(b);
}

static void test_topn_negative_zero(void **st)
{
	harness h;
	th_graph_init(&h, g_type, 3);
	h.types[0] = sl_type_varchar(SL_STRING_LEN);
	h.types[1] = sl_type_make(SL_T_DOUBLE);
	h.types[2] = sl_type_make(SL_T_BIGINT);
	sl_rank_plan p = {0};
	p.mode = SL_RANK_TOPN;
	p.nkeys = 1;
	p.key_cols = key0;
	p.norder = 1;
	p.order_cols = ord_v;
	p.desc = desc1;
	p.nulls_first = asc1;
	p.n = 2;
	p.retract = 1;
	sl_op *op = sl_op_rank_new(&p, h.types, 3, &h.err);
	assert_non_null(op);
	th_graph_open(&h, op, 1, 3, h.types, NULL, 0);
	feed_d(&h, "a", -0.0, 1, SL_INSERT);
	feed_d(&h, "a", 0.0, 2, SL_INSERT);
	feed_d(&h, "a", 0.0, 1, SL_DELETE);  /* removes the -0.0 row */
	feed_d(&h, "a", -0.0, 2, SL_DELETE); /* removes the 0.0 row */
	assert_string_equal(th_out(&h), "+I[a, -0.0, 1]\n"
	                                "+I[a, 0.0, 2]\n"
	                                "-D[a, -0.0, 1]\n"
	                                "-D[a, 0.0, 2]\n");
	th_graph_deinit(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_topn_updates, setup_hashmap),
		cmocka_unit_test_setup(test_dedup_event_time, setup_hashmap),
		cmocka_unit_test_setup(test_window_topn, setup_hashmap),
		cmocka_unit_test_setup(test_over_frames, setup_hashmap),
		cmocka_unit_test_setup(test_topn_retract, setup_hashmap),
		cmocka_unit_test_setup(test_topn_negative_zero, setup_hashmap),
		cmocka_unit_test_setup(test_topn_update_fast, setup_hashmap),
		cmocka_unit_test_setup(test_topn_update_fast_flink, setup_hashmap),
		cmocka_unit_test_setup(test_topn_retract_flink, setup_hashmap),
		cmocka_unit_test_setup(test_topn_updates, setup_rocksdb),
		cmocka_unit_test_setup(test_dedup_event_time, setup_rocksdb),
		cmocka_unit_test_setup(test_window_topn, setup_rocksdb),
		cmocka_unit_test_setup(test_over_frames, setup_rocksdb),
		cmocka_unit_test_setup(test_topn_retract, setup_rocksdb),
		cmocka_unit_test_setup(test_topn_negative_zero, setup_rocksdb),
		cmocka_unit_test_setup(test_topn_update_fast, setup_rocksdb),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
