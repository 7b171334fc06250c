/*
 * op_interval_join.c - the event-time interval join: rows match when their
 * keys are equal, L.ts - R.ts lies in [lo, hi] and the residual holds
 * (Flink's time-windowed join, e.g. L.ts BETWEEN R.ts - INTERVAL '5'
 * SECOND AND R.ts + INTERVAL '10' SECOND: lo = -5 s, hi = 10 s).  INNER,
 * LEFT, RIGHT and FULL; append-only inputs, append-only output.
 *
 * INTERFACE ROUTINES
 *   open       opens the row and timer tables of each side
 *   process    drops a row late by its own W_before (ts < W_before),
 *              joins any other row with the other side's stored rows of
 *              its key, emits +I of each match, and stores the row while
 *              a future row of the other side can still match it
 *   watermark  expires rows the watermark ends (emitting an outer row
 *              that never matched, padded with NULLs), then forwards the
 *              watermark held back by the bound (below)
 *
 * Time (docs/joins.md, docs/parallel.md §4).  A row r is late when ts <
 * W_before(r), its own partition's watermark (Flink: ts below the
 * operator's watermark): it is dropped and counted (--stats shows the
 * count once it is not zero), outer or not, whatever
 * the other input's watermark.  Stored rows expire only at the operator's
 * watermark W (the minimum over both inputs, the watermark method), never
 * at a row's W_before.  Every non-late row has ts >= W_before(r) >= W.  A
 * left row l can still match a future right row r only if r <= l - lo, so
 * it expires once W > l - lo; a right row r once W > r + hi.  So a
 * non-late row finds every partner it can match (a partner p expires at W
 * > E(p) >= ts), and which rows match depends on the data only.  A
 * non-late row already past its own bound (lo > 0: E < W) joins with the
 * rows stored now and is not stored; if it is an outer row without a match
 * it is emitted padded at once.  The output keeps the left rowtime (INNER,
 * LEFT) or the right one (RIGHT): later matches have left ts >= W + lo
 * and right ts >= W - hi, so the watermark sent downstream is min(W,
 * W + lo), resp. min(W, W - hi) (FULL: the smaller of both), and windows
 * can follow the join.  Rule 6: a match or padded row made for input row
 * r carries that shift of W_before(r); an outer row padded at expiry
 * carries the shift of its bound E (the watermark passed E + 1).
 *
 * State.  Tables "left"/"right": namespace 0, key = encoded join key,
 * value = list of records (join.h) with the row's time in `time` and its
 * match count in `aux`.  Tables "ltimers"/"rtimers" (keyed timers,
 * timers.h): namespace = the expiry instant E of a stored row, key = its
 * join key; firing a timer rewrites the key's list without the rows with
 * E < W.  So a row's state is freed as soon as the watermark passes its
 * bound.  Built on the join base (join_base.h: keys, record lists, chunked
 * matching with the time bounds as the pre-filter, padded output).
 */
#include "join_base.h"
#include "timers.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct ijoin_op {
	sl_join_base b;            /* first (join_base.h): tables "left", "right" */
	int time_col[2];
	sl_timers tm[2];           /* "ltimers", "rtimers" (timers.h) */
	sl_buf list;
	int64_t fired;             /* rows with E < fired are gone */
} ijoin_op;

static int64_t sat_add(int64_t a, int64_t b)
{
	if (a == SL_WM_MIN || a == SL_WM_MAX)
		return a;
	if (b > 0 && a > SL_WM_MAX - b)
		return SL_WM_MAX - 1;
	if (b < 0 && a < SL_WM_MIN + 1 - b)
		return SL_WM_MIN + 1;
	return a + b;
}

/* The output watermark for merged watermark w. */
static int64_t out_wm(const ijoin_op *o, int64_t w)
{
	const sl_join_plan *p = &o->b.p;
	int64_t a = sat_add(w, p->lo < 0 ? p->lo : 0), b = sat_add(w, p->hi > 0 ? -p->hi : 0);
	if (p->time_side == 0)
		return a;
	if (p->time_side == 1)
		return b;
	return a < b ? a : b;
}

/* Expiry instant of a row of side s with time ts. */
static int64_t expiry(const ijoin_op *o, int s, int64_t ts)
{
	return s == 0 ? sat_add(ts, -o->b.p.lo) : sat_add(ts, o->b.p.hi);
}

/* Drops the rows of key (side s) with E < w, emitting unmatched outer ones. */
static int expire_key(ijoin_op *o, int s, const char *key, uint32_t klen, int64_t w, sl_err *err)
{
	int rc = sl__jlist_load(o->b.st[s], 0, key, klen, &o->list, err);
	if (rc)
		return rc;
	char *p = o->list.p, *end = p + o->list.len, *keep = p;
	while (p < end) {
		sl_jrec r;
		const char *q = p;
		if (sl__jrec_read(&q, end, &r))
			return sl_err_set(err, SL_ESTATE, "interval join state: malformed record");
		size_t sz = (size_t)(q - p);
		int64_t e = expiry(o, s, r.time);
		if (e < w) {
			if (o->b.outer[s] && r.aux == 0 &&
			    (rc = sl__joiner_emit_stored(&o->b.j, s, r.row, r.len, SL_INSERT,
			                                 out_wm(o, e), err)))
				return rc;
		} else {
			memmove(keep, p, sz);
			keep += sz;
		}
		p += sz;
	}
	o->list.len = (size_t)(keep - o->list.p);
	return sl__jlist_store(&o->b, o->b.st[s], 0, key, klen, &o->list, err);
}

typedef struct expire_ctx {
	ijoin_op *o;
	int side;
	int64_t w;
} expire_ctx;

/* A due timer (timers.h): expires its key's rows of one side. */
static int expire_cb(void *ctx, int64_t ts, const void *key, uint32_t klen, sl_err *err)
{
	expire_ctx *x = ctx;
	(void)ts;
	return expire_key(x->o, x->side, key, klen, x->w, err);
}

/* Expires every stored row whose bound the merged watermark w passed: the
 * timers with E < w, i.e. E <= w - 1, of the left side, then the right. */
static int expire(ijoin_op *o, int64_t w, sl_err *err)
{
	if (w <= o->fired)
		return 0;
	o->fired = w;
	for (int s = 0; s < 2; s++) {
		expire_ctx x = {o, s, w};
		int rc = sl_timers_fire(&o->tm[s], w - 1, expire_cb, &x, err);
		if (rc)
			return rc;
	}
	return 0;
}

typedef struct match_ctx {
	ijoin_op *o;
	int s;
	int64_t ts, wm;
	int64_t nm;   /* matches */
	int changed;  /* a record's match count was raised */
} match_ctx;

/* Pre-filter: the stored row's time is within the bounds (L.ts - R.ts in
 * [lo, hi]). */
static int in_bounds(void *ctx, const sl_jrec *r)
{
	match_ctx *m = ctx;
	int64_t d = m->s == 0 ? m->ts - r->time : r->time - m->ts;
	return d >= m->o->b.p.lo && d <= m->o->b.p.hi;
}

static int on_match(void *ctx, char *rec, const sl_jrec *r, int cand, sl_err *err)
{
	match_ctx *m = ctx;
	ijoin_op *o = m->o;
	m->nm++;
	int rc = sl__joiner_emit_cand(&o->b.j, cand, SL_INSERT, m->wm, err);
	if (rc)
		return rc;
	if (o->b.outer[1 - m->s]) {
		sl__jrec_set(rec, r->count, r->aux + 1);
		m->changed = 1;
	}
	return 0;
}

/* Joins input row (s, in, row, ts) with the other side; *nm = matches. */
static int match_other(ijoin_op *o, int s, const sl_batch *in, int row, int64_t ts, int64_t wm,
                       int64_t *nm, sl_err *err)
{
	int os = 1 - s, rc;
	const sl_buf *key = &o->b.key;
	match_ctx m = {o, s, ts, wm, 0, 0};
	*nm = 0;
	if ((rc = sl__jlist_load(o->b.st[os], 0, key->p, (uint32_t)key->len, &o->list, err)) ||
	    (rc = sl__join_match(&o->b, s, in, row, &o->list, in_bounds, on_match, &m, err)))
		return rc;
	*nm = m.nm;
	return m.changed ? sl__jlist_store(&o->b, o->b.st[os], 0, key->p, (uint32_t)key->len,
	                                   &o->list, err)
	                 : 0;
}

/* Joins and stores row `row` of input s (not late); w: the watermark the
 * stored rows expired at (o->fired). */
static int ijoin_row(ijoin_op *o, int s, const sl_batch *in, int row, int64_t w, sl_err *err)
{
	int64_t wm = out_wm(o, in->wm[row]); /* rule 6 */
	const sl_col *tc = &in->cols[o->time_col[s]];
	int rc = tc->null[row] ? 1 : sl__join_key(&o->b, s, in, row, err);
	if (rc < 0)
		return rc;
	if (rc == 1) /* NULL time or key: matches nothing */
		return o->b.outer[s] ? sl__joiner_emit_in(&o->b.j, s, in, row, NULL, 0, SL_INSERT, wm,
		                                          err)
		                     : 0;
	const sl_buf *key = &o->b.key;
	int64_t ts = tc->v.i64[row], nm;
	if ((rc = match_other(o, s, in, row, ts, wm, &nm, err)))
		return rc;
	int64_t e = expiry(o, s, ts);
	if (e < w) { /* no future row can match it */
		if (nm == 0 && o->b.outer[s])
			return sl__joiner_emit_in(&o->b.j, s, in, row, NULL, 0, SL_INSERT, wm, err);
		return 0;
	}
	if ((rc = sl__jlist_load(o->b.st[s], 0, key->p, (uint32_t)key->len, &o->list, err)))
		return rc;
	if (sl__jrec_append(&o->list, in, row, 1, nm, ts))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if ((rc = sl__jlist_store(&o->b, o->b.st[s], 0, key->p, (uint32_t)key->len, &o->list, err)))
		return rc;
	return sl_timers_set(&o->tm[s], e, key->p, (uint32_t)key->len, err);
}

static int ijoin_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	ijoin_op *o = (ijoin_op *)op;
	const sl_col *tc = &in->cols[o->time_col[input]];
	SL_BATCH_FOREACH(in, k, row) {
		if (!tc->null[row] && tc->v.i64[row] < in->wm[row]) { /* late by its own W_before */
			sl_op_late_dropped(op, in, row); /* counted, kept for the metrics */
			continue;
		}
		int rc = ijoin_row(o, input, in, row, o->fired, err);
		if (rc)
			return rc;
	}
	return sl__joiner_flush(&o->b.j, err);
}

static int ijoin_watermark(sl_op *op, int64_t wm, sl_err *err)
{
	ijoin_op *o = (ijoin_op *)op;
	int rc = expire(o, wm, err);
	if (!rc)
		rc = sl__joiner_flush(&o->b.j, err);
	return rc ? rc : sl_op_emit_watermark(op, out_wm(o, wm), err);
}

static int ijoin_open(sl_op *op, sl_err *err)
{
	ijoin_op *o = (ijoin_op *)op;
	static const char *const names[2] = {"left", "right"}, *tnames[2] = {"ltimers", "rtimers"};
	static const char *const none[2] = {NULL, NULL};
	for (int s = 0; s < 2; s++) /* left, ltimers, right, rtimers: the snapshot's order */
		if (sl__join_base_table(&o->b, s, names[s], err) ||
		    sl_timers_open(&o->tm[s], op, tnames[s], err))
			return err->code;
	return sl__join_base_open(&o->b, none, err);
}

static void ijoin_close(sl_op *op)
{
	ijoin_op *o = (ijoin_op *)op;
	sl__join_base_close(&o->b);
	sl_buf_deinit(&o->list);
	sl_timers_deinit(&o->tm[0]);
	sl_timers_deinit(&o->tm[1]);
}

static const sl_op_vtab ijoin_vtab = {
	.name = "IntervalJoin",
	.kind = SL_OPK_INTERVAL_JOIN,
	.flags = SL_OPF_STATE_WM,
	.open = ijoin_open,
	.process = ijoin_process,
	.watermark = ijoin_watermark,
	.close = ijoin_close,
};

sl_op *sl_op_interval_join_new(const sl_join_plan *p, sl_err *err)
{
	sl_join_base *b = sl__join_base_new(sizeof(ijoin_op), &ijoin_vtab, p, "interval join", err);
	if (!b)
		return NULL;
	if (p->nkeys < 1 || p->ltime < 0 || p->rtime < 0 || p->lo > p->hi) {
		sl_err_set(err, SL_EPLAN, "an interval join needs an equality key, both rowtimes "
		                          "and bounds lo <= hi");
		sl_op_free(&b->op); /* calls its close */
		return NULL;
	}
	ijoin_op *o = (ijoin_op *)b;
	o->fired = SL_WM_MIN;
	o->time_col[0] = p->ltime;
	o->time_col[1] = p->rtime;
	return &b->op;
}
