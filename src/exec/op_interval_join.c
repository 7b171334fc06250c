/*
 * op_interval_join.c - the event-time interval join: rows match when their
 * keys are equal, L.ts - R.ts lies in [lo, hi] and the residual holds
 * (Flink's time-windowed join, e.g. L.ts BETWEEN R.ts - INTERVAL '5'
 * SECOND AND R.ts + INTERVAL '10' SECOND: lo = -5 s, hi = 10 s).  INNER,
 * LEFT, RIGHT and FULL; append-only inputs, append-only output.
 *
 * INTERFACE ROUTINES
 *   open       opens the row and timer tables of each side
 *   process    first expires what the row's W_before (merged over both
 *              inputs) ends, then joins the row with the other side's
 *              stored rows of its key, emits +I of each match, and stores
 *              the row while a future row of the other side can still
 *              match it
 *   watermark  expires rows the watermark ends (emitting an outer row
 *              that never matched, padded with NULLs), then forwards the
 *              watermark held back by the bound (below)
 *
 * Time (docs/joins.md).  Every future row has ts >= W (the merged
 * watermark).  A left row l can still match a future right row r only if
 * r <= l - lo, so it expires once W > l - lo; a right row r once
 * W > r + hi.  A row that arrives already expired (late) still joins with
 * the rows stored now and is not stored; if it is an outer row without a
 * match it is emitted padded at once (as Flink does).  The output keeps
 * the left rowtime (INNER, LEFT) or the right one (RIGHT): later matches
 * have left ts >= W + lo and right ts >= W - hi, so the watermark sent
 * downstream is min(W, W + lo), resp. min(W, W - hi) (FULL: the smaller
 * of both), and windows can follow the join.
 *
 * State.  Tables "left"/"right": namespace 0, key = encoded join key,
 * value = list of records (join.h) with the row's time in `time` and its
 * match count in `aux`.  Tables "ltimers"/"rtimers" (keyed timers,
 * timers.h): namespace = the expiry instant E of a stored row, key = its
 * join key; firing a timer rewrites the key's list without the rows with
 * E < W.  So a row's state
 * is freed as soon as the watermark passes its bound.
 */
#include "join.h"
#include "graph.h"
#include "timers.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct ijoin_op {
	sl_op base;
	sl_join_plan p;
	int *keys[2];
	int time_col[2];
	int outer[2];
	sl_state_table *st[2];     /* "left", "right" */
	sl_timers tm[2];           /* "ltimers", "rtimers" (timers.h) */
	sl_joiner j;
	sl_buf key, list;
	size_t recoff[256];
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
	int64_t a = sat_add(w, o->p.lo < 0 ? o->p.lo : 0), b = sat_add(w, o->p.hi > 0 ? -o->p.hi : 0);
	if (o->p.time_side == 0)
		return a;
	if (o->p.time_side == 1)
		return b;
	return a < b ? a : b;
}

/* Expiry instant of a row of side s with time ts. */
static int64_t expiry(const ijoin_op *o, int s, int64_t ts)
{
	return s == 0 ? sat_add(ts, -o->p.lo) : sat_add(ts, o->p.hi);
}

static int emit_stored(ijoin_op *o, int side, const char *bytes, uint32_t len, int64_t wm,
                       sl_err *err)
{
	return side == 0
	     ? sl__joiner_emit(&o->j, NULL, -1, bytes, len, NULL, -1, NULL, 0, SL_INSERT, wm, err)
	     : sl__joiner_emit(&o->j, NULL, -1, NULL, 0, NULL, -1, bytes, len, SL_INSERT, wm, err);
}

static int load(sl_state_table *t, const void *key, uint32_t klen, sl_buf *into, sl_err *err)
{
	const void *v;
	uint32_t vl;
	sl_buf_clear(into);
	if (sl_state_get_var(t, 0, key, klen, &v, &vl) && sl_buf_append(into, v, vl))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

static int store(sl_state_table *t, const void *key, uint32_t klen, const sl_buf *val, sl_err *err)
{
	if (val->len == 0) {
		sl_state_delete(t, 0, key, klen);
		return 0;
	}
	int rc = sl_state_put_var(t, 0, key, klen, val->p, (uint32_t)val->len);
	return rc ? sl_err_set(err, rc, "join state: write failed") : 0;
}


/* Drops the rows of key (side s) with E < w, emitting unmatched outer ones. */
static int expire_key(ijoin_op *o, int s, const char *key, uint32_t klen, int64_t w, sl_err *err)
{
	int rc = load(o->st[s], key, klen, &o->list, err);
	if (rc)
		return rc;
	char *p = o->list.p, *end = p + o->list.len, *keep = p;
	while (p < end) {
		sl_jrec r;
		const char *q = p;
		if (sl__jrec_read(&q, end, &r))
			return sl_err_set(err, SL_ESTATE, "interval join state: malformed record");
		size_t sz = (size_t)(q - p);
		if (expiry(o, s, r.time) < w) {
			if (o->outer[s] && r.aux == 0 &&
			    (rc = emit_stored(o, s, r.row, r.len, o->base.out_wm, err)))
				return rc;
		} else {
			memmove(keep, p, sz);
			keep += sz;
		}
		p += sz;
	}
	o->list.len = (size_t)(keep - o->list.p);
	return store(o->st[s], key, klen, &o->list, err);
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

/* Joins input row (s, in, row, ts) with the other side; *nm = matches. */
static int match_other(ijoin_op *o, int s, const sl_batch *in, int row, int64_t ts, int64_t wm,
                       int64_t *nm, sl_err *err)
{
	int os = 1 - s, rc, changed = 0;
	*nm = 0;
	if ((rc = load(o->st[os], o->key.p, (uint32_t)o->key.len, &o->list, err)))
		return rc;
	char *p = o->list.p, *end = p + o->list.len;
	while (p < end) {
		sl__joiner_cand_reset(&o->j);
		int n = 0;
		while (p < end && n < o->j.cand->cap) {
			sl_jrec r;
			size_t at = (size_t)(p - o->list.p);
			if (sl__jrec_read((const char **)&p, end, &r))
				return sl_err_set(err, SL_ESTATE, "interval join state: malformed record");
			int64_t d = s == 0 ? ts - r.time : r.time - ts; /* L.ts - R.ts */
			if (d < o->p.lo || d > o->p.hi)
				continue;
			o->recoff[n] = at;
			rc = s == 0 ? sl__joiner_cand_add(&o->j, in, row, NULL, 0, NULL, -1, r.row, r.len, err)
			            : sl__joiner_cand_add(&o->j, NULL, -1, r.row, r.len, in, row, NULL, 0, err);
			if (rc < 0)
				return rc;
			n++;
		}
		if ((rc = sl__joiner_cand_eval(&o->j, err)))
			return rc;
		for (int i = 0; i < n; i++) {
			if (!o->j.ok[i])
				continue;
			(*nm)++;
			if ((rc = sl__joiner_emit_cand(&o->j, i, SL_INSERT, wm, err)))
				return rc;
			if (o->outer[os]) {
				const char *q = o->list.p + o->recoff[i];
				sl_jrec r;
				sl__jrec_read(&q, end, &r);
				sl__jrec_set(o->list.p + o->recoff[i], r.count, r.aux + 1);
				changed = 1;
			}
		}
	}
	return changed ? store(o->st[os], o->key.p, (uint32_t)o->key.len, &o->list, err) : 0;
}

static int ijoin_row(ijoin_op *o, int s, const sl_batch *in, int row, int64_t w, sl_err *err)
{
	int rc;
	int64_t wm = out_wm(o, w);
	const sl_col *tc = &in->cols[o->time_col[s]];
	if (tc->null[row] || sl_rowcodec_key_null(in, o->keys[s], o->p.nkeys, row)) {
		if (!o->outer[s])
			return 0;
		return s == 0 ? sl__joiner_emit(&o->j, in, row, NULL, 0, NULL, -1, NULL, 0, SL_INSERT, wm, err)
		              : sl__joiner_emit(&o->j, NULL, -1, NULL, 0, in, row, NULL, 0, SL_INSERT, wm, err);
	}
	int64_t ts = tc->v.i64[row], nm;
	sl_buf_clear(&o->key);
	if (sl_rowcodec_key(in, o->keys[s], o->p.nkeys, row, &o->key))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if ((rc = match_other(o, s, in, row, ts, wm, &nm, err)))
		return rc;
	int64_t e = expiry(o, s, ts);
	if (e < w) { /* no future row can match it */
		if (nm == 0 && o->outer[s])
			return s == 0 ? sl__joiner_emit(&o->j, in, row, NULL, 0, NULL, -1, NULL, 0, SL_INSERT, wm, err)
			              : sl__joiner_emit(&o->j, NULL, -1, NULL, 0, in, row, NULL, 0, SL_INSERT, wm, err);
		return 0;
	}
	if ((rc = load(o->st[s], o->key.p, (uint32_t)o->key.len, &o->list, err)))
		return rc;
	if (sl__jrec_append(&o->list, in, row, 1, nm, ts))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if ((rc = store(o->st[s], o->key.p, (uint32_t)o->key.len, &o->list, err)))
		return rc;
	return sl_timers_set(&o->tm[s], e, o->key.p, (uint32_t)o->key.len, err);
}

static int ijoin_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	ijoin_op *o = (ijoin_op *)op;
	int64_t others = sl_op_inputs_wm(op, input);
	SL_BATCH_FOREACH(in, k, row) {
		int64_t w = in->wm[row] < others ? in->wm[row] : others;
		int rc = expire(o, w, err);
		if (!rc)
			rc = ijoin_row(o, input, in, row, w, err);
		if (rc)
			return rc;
	}
	return sl__joiner_flush(&o->j, err);
}

static int ijoin_watermark(sl_op *op, int64_t wm, sl_err *err)
{
	ijoin_op *o = (ijoin_op *)op;
	int rc = expire(o, wm, err);
	if (!rc)
		rc = sl__joiner_flush(&o->j, err);
	return rc ? rc : sl_op_emit_watermark(op, out_wm(o, wm), err);
}

static int ijoin_open(sl_op *op, sl_err *err)
{
	ijoin_op *o = (ijoin_op *)op;
	static const char *names[2] = {"left", "right"}, *tnames[2] = {"ltimers", "rtimers"};
	for (int s = 0; s < 2; s++)
		if (!(o->st[s] = sl_state_table_open(op->state, op->uid, names[s], 0, err)) ||
		    sl_timers_open(&o->tm[s], op, tnames[s], err))
			return err->code;
	return sl__joiner_init(&o->j, op, &o->p, err);
}

static void ijoin_close(sl_op *op)
{
	ijoin_op *o = (ijoin_op *)op;
	sl__joiner_deinit(&o->j);
	sl_buf_deinit(&o->key);
	sl_buf_deinit(&o->list);
	sl_timers_deinit(&o->tm[0]);
	sl_timers_deinit(&o->tm[1]);
	free(o->keys[0]);
	free(o->keys[1]);
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
	ijoin_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &ijoin_vtab;
	o->fired = SL_WM_MIN;
	if (sl__join_plan_own(&o->p, o->keys, p, err) ||
	    ((p->nkeys < 1 || p->ltime < 0 || p->rtime < 0 || p->lo > p->hi) &&
	     sl_err_set(err, SL_EPLAN, "an interval join needs an equality key, both rowtimes "
	                               "and bounds lo <= hi"))) {
		sl_op_free(&o->base); /* calls its close */
		return NULL;
	}
	o->time_col[0] = p->ltime;
	o->time_col[1] = p->rtime;
	o->outer[0] = p->kind == SL_JOIN_LEFT || p->kind == SL_JOIN_FULL;
	o->outer[1] = p->kind == SL_JOIN_RIGHT || p->kind == SL_JOIN_FULL;
	return &o->base;
}
