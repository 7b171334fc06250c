/*
 * op_over_agg.c - event-time OVER aggregates: agg(x) OVER (PARTITION BY k
 * ORDER BY rowtime ROWS|RANGE BETWEEN .. PRECEDING AND CURRENT ROW).  With
 * no aggregates, no PARTITION BY and an unbounded frame it is the temporal
 * sort of `ORDER BY rowtime` (plan_order.c): rows in rowtime order.
 *
 * INTERFACE ROUTINES
 *   process    a row with ts < W_before (its own partition's watermark) is
 *              late: dropped and counted.  Otherwise it waits in "pend"
 *              until the operator's watermark passes it; rows are never
 *              emitted at a row's W_before (docs/parallel.md §4), so which
 *              rows count and what is emitted do not depend on batch
 *              boundaries or on other inputs.
 *   watermark  emits every pending row with ts < W (W means no row with a
 *              smaller ts is still to come, docs/semantics.md §1), in rowtime order,
 *              rows of one rowtime in arrival order (or, with further sort
 *              keys, `ORDER BY rowtime, k [DESC] ..`, in the order of those
 *              keys, ties in arrival order), each with its input
 *              columns and the aggregates over its frame (+I: the output is
 *              append-only); then forwards W.  An emitted row with
 *              rowtime ts carries W_before = ts (rule 6: it was emitted
 *              when W reached ts + 1 us), so it is on time downstream.
 *   snapshot   the watermark acted on and the arrival counter.
 *
 * Frames.  ROWS n PRECEDING: the row and the n rows of its partition
 * before it in (rowtime, arrival) order.  RANGE d PRECEDING: every row of
 * the partition with rowtime in [ts - d, ts], so rows of the same rowtime
 * (peers) all see each other and get the same results (Flink's
 * RowTimeRangeBoundedPrecedingFunction): the rows of one rowtime are first
 * all added, then emitted.  UNBOUNDED PRECEDING: every row so far (peers
 * included for RANGE).
 *
 * Aggregates come from agg.c (user-defined ones from agg_udf.c, their
 * several argument columns all kept in frame rows).  When every aggregate
 * can retract (COUNT, SUM, AVG, a user-defined one with retract) or the
 * frame is unbounded, one accumulator per partition is
 * updated incrementally: rows entering the frame are added, rows leaving it
 * retracted.  Otherwise (MIN/MAX/FIRST_VALUE/LAST_VALUE over a bounded
 * frame) the result is recomputed over the frame's rows for every output
 * row (cost: the frame size).
 *
 * State:
 *   "pend"  the pending rows (pending_rows.h): namespace = rowtime, key =
 *           arrival number, value = [u32 klen][partition key][the row];
 *           the namespaces are event-time timers (sl_ns_timers,
 *           timers.h): one fires once W passes it, then is dropped.
 *   "part"  namespace 0, key = encoded partition key, value = [accumulator
 *           slot][u32 n][n frame rows: i64 ts, u32 len, the aggregates'
 *           argument columns], oldest first.  Unbounded frames keep no
 *           rows.  A partition's state is never freed (no state TTL
 *           yet), as in Flink without TTL.
 * Keys are in the key form of data/rowcodec.h, rows and argument columns
 * in its row form (values exact, ROW values included).
 * Output rows go through an emitter (emit.h).  One thread; no malloc per
 * row (reused buffers and scratch batches).
 */
#include "op_over.h"
#include "emit.h"
#include "graph.h"
#include "op_rank.h"
#include "pending_rows.h"
#include "timers.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

/* LAG (op_over.h): the operator computes it; its accumulator is empty. */
static int lag_type(sl_type arg, int star, sl_type *out, sl_err *err)
{
	(void)star;
	(void)err;
	*out = arg;
	out->notnull = 0;
	return 0;
}

static int lag_add(const sl_agg *a, void *acc, const sl_col *c, int row, int sign, sl_err *err)
{
	(void)a, (void)acc, (void)c, (void)row, (void)sign, (void)err;
	return 0;
}

static int lag_noresult(const sl_agg *a, const void *acc, sl_col *out, int orow, sl_err *err)
{
	(void)a, (void)acc, (void)out, (void)orow;
	return sl_err_set(err, SL_EPLAN, "LAG is only computed by an OVER aggregate");
}

const sl_agg_vtab sl_over_lag_vtab = {
	.name = "LAG", .retractable = 0, .result_type = lag_type, .acc_size = 0,
	.add = lag_add, .result = lag_noresult,
};

typedef struct over_op {
	sl_op base;
	sl_over_plan p;
	int nin;
	int *key_cols;
	sl_agg *aggs;          /* over the input columns */
	sl_agg *faggs;         /* the same over the frame batch's columns */
	int nfcols;
	int *fcols;            /* input columns kept for frame rows */
	uint32_t slot_size;
	void *slot;            /* aligned scratch accumulator */
	int incremental;       /* accumulator kept, rows retracted */
	int keep_rows;         /* the frame is bounded, or LAG: frame rows are stored */
	/* MIN / MAX / FIRST_VALUE / LAST_VALUE / LISTAGG over strings
	 * (sl_agg_is_str): their value in "strings" (agg.h), keyed by the
	 * partition key and the aggregate's index */
	uint8_t *is_str;
	int has_str;
	sl_state_table *strs;
	sl_type *ktypes;       /* the partition key's column types (its key group) */
	sl_state_pkey_cols_ctx pkc;
	sl_buf skey;
	/* DISTINCT aggregates (incremental frames): per (partition key,
	 * aggregate, value) the count of rows in the frame holding the value,
	 * in "distinct"; a value counts when its count leaves (or reaches) 0 */
	int has_distinct;
	sl_state_table *dist;
	sl_buf dkey;
	uint32_t lag_keep;     /* LAG (unbounded frame): the rows kept are its last
	                        * lag_keep rows (largest offset + 1), never
	                        * retracted; 0 without LAG */
	sl_pend pend;          /* "pend" and its arrival counter (pending_rows.h) */
	sl_state_table *part;
	sl_emitter out;        /* output rows (emit.h) */
	sl_batch *row;         /* one decoded pending row (input columns) */
	sl_batch *fb;          /* one decoded frame row (frame columns) */
	sl_col **out_cols, **row_cols, **fb_cols;
	sl_buf key, enc, st;
	int64_t fired_wm;      /* rows with ts < fired_wm have been emitted */
	int64_t firing;        /* rowtime of the rows being emitted */
	sl_ns_timers tm;       /* the namespaces of "pend" (timers.h) */
	int *sort_cols;        /* p.nsort further sort keys */
	uint8_t *sort_desc, *sort_nf;
	int *phys;             /* physical kind of each input column */
} over_op;

/* ---- partition state in o->st: [slot][u32 n][frame rows] ---------------- */

static uint32_t st_count(over_op *o)
{
	uint32_t n;
	memcpy(&n, o->st.p + o->slot_size, 4);
	return n;
}

static void st_set_count(over_op *o, uint32_t n)
{
	memcpy(o->st.p + o->slot_size, &n, 4);
}

/* Loads the partition of key o->key into o->st (a fresh one if absent). */
static int st_load(over_op *o)
{
	const void *v;
	uint32_t vlen;
	sl_buf_clear(&o->st);
	if (sl_state_get_var(o->part, 0, o->key.p, (uint32_t)o->key.len, &v, &vlen))
		return sl_buf_append(&o->st, v, vlen);
	uint32_t z = 0;
	if (sl_buf_reserve(&o->st, o->slot_size + 4))
		return SL_ENOMEM;
	memset(o->st.p, 0, o->slot_size);
	o->st.len = o->slot_size;
	return sl_buf_append(&o->st, &z, 4);
}

static int st_store(over_op *o)
{
	return sl_state_put_var(o->part, 0, o->key.p, (uint32_t)o->key.len, o->st.p,
	                        (uint32_t)o->st.len);
}

/* Folds row `row` of b into o->slot (or "strings") for aggregate i, which
 * reads b's columns as a says (o->aggs for input rows, o->faggs for frame
 * rows), with sign.  A DISTINCT aggregate of an incremental frame takes a
 * value only when its count in "distinct" goes 0 -> 1 (sign +1) or 1 -> 0
 * (sign -1); over a recomputed frame DISTINCT is only on MIN / MAX
 * (plan_over.c), where it changes nothing. */
static int add_agg(over_op *o, int i, const sl_agg *a, const sl_batch *b, int row, int sign,
                   sl_err *err)
{
	if (a->distinct && o->incremental && a->arg_col >= 0) {
		if (a->filter_col >= 0) { /* a row FILTER drops does not hold its value */
			const sl_col *f = &b->cols[a->filter_col];
			if (f->null[row] || !f->v.i64[row])
				return 0;
		}
		sl_buf_clear(&o->dkey);
		if (sl_buf_append(&o->dkey, o->key.p, o->key.len) || sl_buf_putc(&o->dkey, (char)i) ||
		    sl_rowcodec_key(b, &a->arg_col, 1, row, &o->dkey))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		int64_t *cnt = sl_state_upsert(o->dist, 0, o->dkey.p, (uint32_t)o->dkey.len, NULL);
		if (!cnt)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		*cnt += sign;
		int counts = sign > 0 ? *cnt == 1 : *cnt == 0;
		if (*cnt <= 0)
			sl_state_delete(o->dist, 0, o->dkey.p, (uint32_t)o->dkey.len);
		if (!counts)
			return 0;
	}
	return o->is_str[i] ? sl_agg_str_add(a, i, o->strs, 0, o->key.p, o->key.len, b, row,
	                                     &o->skey, err)
	                    : sl_agg_add_one(a, o->slot, b, row, sign, err);
}

/* Folds frame row e (i64 ts, u32 len, columns) into o->slot with sign. */
static int fold_frame_row(over_op *o, const char *e, int sign, sl_err *err)
{
	uint32_t len;
	memcpy(&len, e + 8, 4);
	sl_batch_reset(o->fb);
	int r = sl_batch_add_row(o->fb, SL_INSERT, SL_WM_MIN);
	if (sl_rowcodec_decode(e + 12, len, o->fb, o->fb_cols, o->nfcols, r) < 0)
		return sl_err_set(err, SL_ESTATE, "OVER aggregate state: malformed row");
	for (int i = 0; i < o->p.naggs; i++) {
		int rc = add_agg(o, i, &o->faggs[i], o->fb, r, sign, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Adds the decoded pending row (o->row, row 0) with rowtime ts to the
 * partition in o->st. */
static int frame_add(over_op *o, int64_t ts, sl_err *err)
{
	memcpy(o->slot, o->st.p, o->slot_size);
	if (o->incremental)
		for (int i = 0; i < o->p.naggs; i++) {
			int rc = add_agg(o, i, &o->aggs[i], o->row, 0, 1, err);
			if (rc)
				return rc;
		}
	memcpy(o->st.p, o->slot, o->slot_size);
	if (!o->keep_rows)
		return 0;
	sl_buf_clear(&o->enc);
	if (sl_rowcodec_cols(o->row, o->fcols, o->nfcols, 0, &o->enc))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	uint32_t len = (uint32_t)o->enc.len;
	if (sl_buf_append(&o->st, &ts, 8) || sl_buf_append(&o->st, &len, 4) ||
	    sl_buf_append(&o->st, o->enc.p, len))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	st_set_count(o, st_count(o) + 1);
	return 0;
}

/* Drops frame rows from the front while there are more than `max` rows
 * (ROWS) or their ts is below `lo` (RANGE), retracting them. */
static int frame_expire(over_op *o, uint32_t max, int64_t lo, sl_err *err)
{
	uint32_t n = st_count(o), drop = 0;
	size_t off = o->slot_size + 4, start = off;
	memcpy(o->slot, o->st.p, o->slot_size);
	while (drop < n) {
		const char *e = o->st.p + off;
		int64_t ts;
		uint32_t len;
		memcpy(&ts, e, 8);
		memcpy(&len, e + 8, 4);
		if (n - drop <= max && ts >= lo)
			break;
		if (o->incremental && !o->lag_keep) {
			int rc = fold_frame_row(o, e, -1, err);
			if (rc)
				return rc;
		}
		off += 12 + len;
		drop++;
	}
	if (!drop)
		return 0;
	memcpy(o->st.p, o->slot, o->slot_size);
	memmove(o->st.p + start, o->st.p + off, o->st.len - off);
	o->st.len -= off - start;
	st_set_count(o, n - drop);
	return 0;
}

/* Sets o->slot to the aggregates over the partition's frame. */
static int frame_result(over_op *o, sl_err *err)
{
	if (o->incremental) {
		memcpy(o->slot, o->st.p, o->slot_size);
		return 0;
	}
	memset(o->slot, 0, o->slot_size);
	for (int i = 0; i < o->p.naggs; i++) /* strings: recomputed from the frame too */
		if (o->is_str[i])
			sl_agg_str_delete(i, o->strs, 0, o->key.p, o->key.len, &o->skey);
	size_t off = o->slot_size + 4;
	for (uint32_t i = 0, n = st_count(o); i < n; i++) {
		uint32_t len;
		memcpy(&len, o->st.p + off + 8, 4);
		int rc = fold_frame_row(o, o->st.p + off, 1, err);
		if (rc)
			return rc;
		off += 12 + len;
	}
	return 0;
}

/* ---- firing ------------------------------------------------------------------ */

/* Decodes collected pending entry i (pending_rows.h) into o->key and
 * o->row.  Returns 0, SL_ENOMEM or SL_ESTATE (a malformed row). */
static int load_pending(over_op *o, size_t i)
{
	uint32_t klen, rlen;
	const char *key = sl_pend_key(&o->pend, i, &klen), *row = sl_pend_row(&o->pend, i, &rlen);
	sl_buf_clear(&o->key);
	if (sl_buf_append(&o->key, key, klen))
		return SL_ENOMEM;
	sl_batch_reset(o->row);
	sl_batch_add_row(o->row, SL_INSERT, SL_WM_MIN);
	if (sl_rowcodec_decode(row, rlen, o->row, o->row_cols, o->nin, 0) < 0)
		return SL_ESTATE;
	return 0;
}

/* LAG's result (op_over.h) into (out, r): from the kept rows of the
 * partition in o->st, the last being the current row (ROWS) or the last
 * row of its rowtime (RANGE). */
static int lag_result(over_op *o, int i, sl_col *out, int r, sl_err *err)
{
	const sl_agg *fa = &o->faggs[i];
	uint32_t n = st_count(o), want;
	int c;
	if (n == 0)
		return sl_err_set(err, SL_ESTATE, "OVER aggregate state: LAG without rows");
	if (n > (uint32_t)fa->lag_offset) {
		want = n - 1 - (uint32_t)fa->lag_offset;
		c = fa->arg_cols[0];
	} else {
		want = n - 1;
		c = fa->nargs > 1 ? fa->arg_cols[1] : -1;
	}
	if (c < 0) {
		out->null[r] = 1;
		return 0;
	}
	size_t off = o->slot_size + 4;
	for (uint32_t k = 0; k < want; k++) {
		uint32_t len;
		memcpy(&len, o->st.p + off + 8, 4);
		off += 12 + len;
	}
	uint32_t len;
	memcpy(&len, o->st.p + off + 8, 4);
	sl_batch_reset(o->fb);
	int fr = sl_batch_add_row(o->fb, SL_INSERT, SL_WM_MIN);
	if (sl_rowcodec_decode(o->st.p + off + 12, len, o->fb, o->fb_cols, o->nfcols, fr) < 0)
		return sl_err_set(err, SL_ESTATE, "OVER aggregate state: malformed row");
	if (sl_col_copy_value(o->out.b, out, r, o->fb_cols[c], fr))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

/* Appends the output row: o->row's columns, then the results in o->slot. */
static int emit_row(over_op *o, sl_err *err)
{
	int r = sl_emitter_row(&o->out, SL_INSERT, o->firing, err);
	if (r < 0)
		return r;
	for (int i = 0; i < o->nin; i++)
		if (sl_col_copy_value(o->out.b, o->out_cols[i], r, o->row_cols[i], 0))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < o->p.naggs; i++) {
		const sl_agg *a = &o->aggs[i];
		int rc = a->vt == &sl_over_lag_vtab
		                 ? lag_result(o, i, o->out_cols[o->nin + i], r, err)
		         : o->is_str[i]
		                 ? sl_agg_str_result(a, i, o->strs, 0, o->key.p, o->key.len, &o->skey,
		                                     o->out.b, o->out_cols[o->nin + i], r)
		                 : a->vt->result(a, (const char *)o->slot + a->offset,
		                                 o->out_cols[o->nin + i], r, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* The encoded value of input column c in pending row `row` (row form,
 * rowcodec.h), or NULL when it is NULL. */
static const uint8_t *entry_col(const over_op *o, const char *row, int c)
{
	const uint8_t *v = (const uint8_t *)row;
	for (int i = 0; i < c; i++)
		v = *v ? v + 1 : sl__rank_skip_value(o->phys[i], v + 1);
	return *v ? NULL : v + 1;
}

/* The order of two pending rows by the further sort keys (sl_pend_cmp:
 * ties are left to the arrival order). */
static int entry_cmp(const char *ra, const char *rb, void *ctx)
{
	const over_op *o = ctx;
	for (int i = 0; i < o->p.nsort; i++) {
		int c = o->sort_cols[i];
		const uint8_t *a = entry_col(o, ra, c), *b = entry_col(o, rb, c);
		int r;
		if (!a || !b) {
			if (!a && !b)
				continue;
			r = !a ? -1 : 1; /* NULL smallest, then as NULLS FIRST/LAST says */
			return o->sort_nf[i] ? r : -r;
		}
		if ((r = sl__rank_cmp_value(o->phys[c], &a, &b)))
			return o->sort_desc[i] ? -r : r;
	}
	return 0;
}

/* One pass over the collected rows of one rowtime: add (and, for ROWS,
 * emit) each. */
static int fire_pass(over_op *o, int64_t ts, int pass, sl_err *err)
{
	int range = !o->p.rows, bounded = o->p.preceding >= 0, rc;
	for (size_t i = 0, n = sl_pend_count(&o->pend); i < n; i++) {
		if ((rc = load_pending(o, i)))
			return sl_err_set(err, rc, rc == SL_ENOMEM ? "out of memory"
			                                           : "OVER aggregate state: malformed row");
		if (st_load(o))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		if (pass == 0 && (rc = frame_add(o, ts, err)))
			return rc;
		if (pass == 0 && o->lag_keep && (rc = frame_expire(o, o->lag_keep, INT64_MIN, err)))
			return rc;
		if (range && pass == 0) {
			if ((rc = st_store(o)))
				return sl_err_set(err, rc, "OVER aggregate: state write failed");
			continue;
		}
		if (bounded && (rc = range ? frame_expire(o, UINT32_MAX, ts - o->p.preceding, err)
		                           : frame_expire(o, (uint32_t)o->p.preceding + 1, INT64_MIN,
		                                          err)))
			return rc;
		if ((rc = frame_result(o, err)) || (rc = emit_row(o, err)))
			return rc;
		if ((bounded || !range || o->lag_keep) && (rc = st_store(o)))
			return sl_err_set(err, rc, "OVER aggregate: state write failed");
	}
	return 0;
}

/* Fires rowtime ts (a namespace timer, timers.h, which drops it after):
 * emits its pending rows, in arrival order (or by the further sort keys,
 * ties in arrival order; pending_rows.h). */
static int fire_time(void *ctx, int64_t ts, sl_err *err)
{
	over_op *o = ctx;
	o->firing = ts;
	int rc = sl_pend_collect(&o->pend, ts, o->p.nsort ? entry_cmp : NULL, o, err);
	if (rc)
		return rc;
	if ((rc = fire_pass(o, ts, 0, err)) || (!o->p.rows && (rc = fire_pass(o, ts, 1, err))))
		return rc;
	return 0;
}

/* Emits every pending row with ts < wm (the timers up to wm - 1; wm >
 * SL_WM_MIN, as every watermark that moves). */
static int advance(over_op *o, int64_t wm, sl_err *err)
{
	int rc = sl_ns_timers_fire(&o->tm, wm - 1, fire_time, o, err);
	if (rc)
		return rc;
	if (wm > o->fired_wm)
		o->fired_wm = wm;
	return sl_emitter_flush(&o->out, err);
}

/* ---- method table -------------------------------------------------------------- */

static int over_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	over_op *o = (over_op *)op;
	const sl_col *tc = &in->cols[o->p.time_col];
	int rc;
	SL_BATCH_FOREACH(in, k, row) {
		if (in->op[row] != SL_INSERT)
			return sl_err_set(err, SL_EINPUT, "OVER aggregate: the input must be append-only");
		if (tc->null[row])
			return sl_err_set(err, SL_EINPUT, "OVER aggregate: NULL rowtime");
		int64_t ts = tc->v.i64[row];
		/* late by its own W_before (rule 3), or its rowtime was emitted */
		if (ts < in->wm[row] || ts < o->fired_wm) {
			sl_op_late_dropped(op, in, row); /* counted, kept for the metrics */
			continue;
		}
		if ((rc = sl_pend_put(&o->pend, ts, in, o->key_cols, o->p.nkeys, row, err)))
			return rc;
	}
	return sl_emitter_flush(&o->out, err);
}

static int over_watermark(sl_op *op, int64_t wm, sl_err *err)
{
	int rc = advance((over_op *)op, wm, err);
	return rc ? rc : sl_op_emit_watermark(op, wm, err);
}

static int over_snapshot(sl_op *op, sl_snap_writer *w, sl_err *err)
{
	sl_snap_put_i64(w, ((over_op *)op)->fired_wm);
	sl_snap_put_i64(w, ((over_op *)op)->pend.seq);
	return 0;
}

static int over_restore(sl_op *op, sl_snap_reader *r, sl_err *err)
{
	((over_op *)op)->fired_wm = sl_snap_get_i64(r);
	((over_op *)op)->pend.seq = sl_snap_get_i64(r);
	return sl_snap_reader_ok(r) ? 0 : sl_err_set(err, SL_ESTATE, "OVER aggregate state damaged");
}

static int over_open(sl_op *op, sl_err *err)
{
	over_op *o = (over_op *)op;
	if (sl_pend_open(&o->pend, op, "OVER aggregate", 0, err) ||
	    !(o->part = sl_state_table_open(op->state, op->uid, "part", 0, err)))
		return err->code;
	sl_ns_timers_add(&o->tm, o->pend.t);
	o->pkc.types = o->ktypes;
	o->pkc.n = o->p.nkeys;
	if (o->has_str) {
		if (!(o->strs = sl_state_table_open(op->state, op->uid, "strings", 0, err)))
			return err->code;
		sl_state_table_set_pkey(o->strs, sl_state_pkey_cols, &o->pkc);
	}
	if (o->has_distinct && o->incremental) {
		if (!(o->dist = sl_state_table_open(op->state, op->uid, "distinct", 8, err)))
			return err->code;
		sl_state_table_set_pkey(o->dist, sl_state_pkey_cols, &o->pkc);
	}
	sl_type *ft = calloc((size_t)o->nfcols + 1, sizeof(sl_type));
	if (!ft)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < o->nfcols; i++)
		ft[i] = op->out_types[o->fcols[i]];
	if (sl_emitter_init(&o->out, op, 0, err)) {
		free(ft);
		return err->code;
	}
	o->row = sl_batch_new(o->nin, op->out_types, 1);
	o->fb = sl_batch_new(o->nfcols, ft, 1);
	free(ft);
	o->slot = aligned_alloc(16, o->slot_size);
	o->out_cols = calloc((size_t)op->nout + 1, sizeof(sl_col *));
	o->row_cols = calloc((size_t)o->nin + 1, sizeof(sl_col *));
	o->fb_cols = calloc((size_t)o->nfcols + 1, sizeof(sl_col *));
	if (!o->row || !o->fb || !o->slot || !o->out_cols || !o->row_cols || !o->fb_cols)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < op->nout; i++)
		o->out_cols[i] = &o->out.b->cols[i];
	for (int i = 0; i < o->nin; i++)
		o->row_cols[i] = &o->row->cols[i];
	for (int i = 0; i < o->nfcols; i++)
		o->fb_cols[i] = &o->fb->cols[i];
	/* an empty PARTITION BY encodes to 0 bytes: keep key.p non-NULL (the
	 * backends memcmp/memcpy it) */
	if (sl_buf_reserve(&o->key, 64))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

static void over_close(sl_op *op)
{
	over_op *o = (over_op *)op;
	sl_emitter_deinit(&o->out);
	sl_batch_free(o->row);
	sl_batch_free(o->fb);
	free(o->slot);
	free(o->out_cols);
	free(o->row_cols);
	free(o->fb_cols);
	free(o->key_cols);
	free(o->aggs);
	free(o->faggs);
	free(o->fcols);
	free(o->sort_cols);
	free(o->sort_desc);
	free(o->sort_nf);
	free(o->phys);
	free(o->is_str);
	free(o->ktypes);
	sl_buf_deinit(&o->skey);
	sl_buf_deinit(&o->dkey);
	sl_pend_deinit(&o->pend);
	sl_buf_deinit(&o->key);
	sl_buf_deinit(&o->enc);
	sl_buf_deinit(&o->st);
}

static const sl_op_vtab over_vtab = {
	.name = "OverAggregate",
	.kind = SL_OPK_OVER_AGG,
	.open = over_open,
	.process = over_process,
	.watermark = over_watermark,
	.snapshot = over_snapshot,
	.restore = over_restore,
	.close = over_close,
};

/* The frame column index of input column c (added to fcols if new). */
static int frame_col(over_op *o, int c)
{
	if (c < 0)
		return -1;
	for (int i = 0; i < o->nfcols; i++)
		if (o->fcols[i] == c)
			return i;
	o->fcols[o->nfcols] = c;
	return o->nfcols++;
}

sl_op *sl_op_over_agg_new(const sl_over_plan *p, const sl_type *in_types, int nin, sl_err *err)
{
	if (p->retract)
		return sl__op_over_retract_new(p, in_types, nin, err);
	over_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &over_vtab;
	o->p = *p;
	o->nin = nin;
	o->key_cols = calloc((size_t)p->nkeys + 1, sizeof(int));
	o->aggs = calloc((size_t)p->naggs + 1, sizeof(sl_agg));
	o->faggs = calloc((size_t)p->naggs + 1, sizeof(sl_agg));
	o->fcols = calloc((size_t)p->naggs * (2 + SL_AGG_MAX_ARGS) + 1, sizeof(int));
	o->sort_cols = calloc((size_t)p->nsort + 1, sizeof(int));
	o->sort_desc = calloc((size_t)p->nsort + 1, 1);
	o->sort_nf = calloc((size_t)p->nsort + 1, 1);
	o->phys = calloc((size_t)nin + 1, sizeof(int));
	o->is_str = calloc((size_t)p->naggs + 1, 1);
	o->ktypes = calloc((size_t)p->nkeys + 1, sizeof(sl_type));
	if (!o->key_cols || !o->aggs || !o->faggs || !o->fcols || !o->sort_cols || !o->sort_desc ||
	    !o->sort_nf || !o->phys || !o->is_str || !o->ktypes) {
		sl_op_free(&o->base); /* calls its close */
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	if (p->nkeys)
		memcpy(o->key_cols, p->key_cols, sizeof(int) * (size_t)p->nkeys);
	for (int i = 0; i < p->nkeys; i++)
		o->ktypes[i] = in_types[p->key_cols[i]];
	o->p.key_cols = o->key_cols;
	for (int i = 0; i < nin; i++)
		o->phys[i] = sl_type_phys(in_types[i]);
	for (int i = 0; i < p->nsort; i++) {
		o->sort_cols[i] = p->sort_cols[i];
		o->sort_desc[i] = p->sort_desc[i];
		o->sort_nf[i] = p->sort_nulls_first[i];
	}
	o->p.sort_cols = o->sort_cols;
	o->p.sort_desc = o->sort_desc;
	o->p.sort_nulls_first = o->sort_nf;
	uint32_t off = 0;
	int retract = 1;
	for (int i = 0; i < p->naggs; i++) {
		o->aggs[i] = p->aggs[i];
		o->aggs[i].offset = off;
		off += o->aggs[i].vt->acc_size;
		retract &= o->aggs[i].vt->retractable;
		o->is_str[i] = (uint8_t)(o->aggs[i].vt != &sl_over_lag_vtab &&
		                         sl_agg_is_str(&o->aggs[i]));
		o->has_str |= o->is_str[i];
		o->has_distinct |= o->aggs[i].distinct;
		if (o->aggs[i].vt == &sl_over_lag_vtab &&
		    (uint32_t)o->aggs[i].lag_offset + 1 > o->lag_keep)
			o->lag_keep = (uint32_t)o->aggs[i].lag_offset + 1;
		o->faggs[i] = o->aggs[i];
		o->faggs[i].arg_col = frame_col(o, o->aggs[i].arg_col);
		o->faggs[i].filter_col = frame_col(o, o->aggs[i].filter_col);
		for (int j = 0; j < o->aggs[i].nargs; j++) /* user-defined aggregates */
			o->faggs[i].arg_cols[j] = frame_col(o, o->aggs[i].arg_cols[j]);
	}
	o->p.aggs = o->aggs;
	o->slot_size = off ? (off + 15) / 16 * 16 : 16;
	if (o->lag_keep && p->preceding >= 0) { /* plan_over.c refuses it */
		sl_op_free(&o->base);
		sl_err_set(err, SL_EPLAN, "LAG needs an OVER window with an UNBOUNDED frame");
		return NULL;
	}
	o->keep_rows = p->preceding >= 0 || o->lag_keep;
	o->incremental = retract || p->preceding < 0;
	o->fired_wm = SL_WM_MIN;
	sl_ns_timers_init(&o->tm, 0);
	return &o->base;
}
