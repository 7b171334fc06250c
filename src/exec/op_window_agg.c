/*
 * op_window_agg.c - window aggregation: TUMBLE, HOP, CUMULATE, on event or
 * processing time.
 *
 * INTERFACE ROUTINES (sl_op_vtab)
 *   open       opens the accumulator and distinct-value state tables
 *   process    assigns each row to its windows and folds it in, or judges
 *              it late; emits corrections under ALLOWED LATENESS
 *   watermark  fires every window whose end <= W, frees state past
 *              end + lateness, forwards W
 *   snapshot   (none of its own: accumulators live in state tables and the
 *              watermark in the graph's snapshot)
 *
 * State.  Table "acc": namespace = window end, key = encoded GROUP BY
 * key, value = [slot header][accumulators].  Table "pending" (ALLOWED
 * LATENESS only): late rows waiting for their window to fire (below).  Table "distinct" (only with
 * DISTINCT aggregates): namespace = window end, key = group key + aggregate
 * index + value, value = occurrence count.  Window start is derived from
 * the end (end - size, or for CUMULATE the enclosing max-size window), so
 * it is not stored.  The namespaces (window ends) are the operator's
 * event-time timers (sl_ns_timers, timers.h: fired in end order up to W,
 * dropped at W >= end + lateness); fired results leave through an emitter
 * (emit.h) whose before-emit hook applies HAVING.
 *
 * Attached windows (sl_window_spec.attached): the rows are results of
 * another window aggregate (or a window TVF), grouped by their window's
 * bounds: each row goes to the one window whose end its window_end column
 * holds (Flink's window-attached strategy), the rest as above.
 *
 * Processing time (sl_window_spec.proc): the job's clock takes the
 * watermark's place: a row goes to the windows of the clock when it
 * arrives, windows fire when the clock reaches their end (the proctime
 * method, called as the clock moves, and before each row), watermarks are
 * only forwarded, nothing is late, and at end of input windows still open
 * are not fired (as Flink's streaming mode).
 *
 * Time (docs/semantics.md §1, docs/parallel.md §4).  Windows fire at the
 * operator's watermark only (the minimum over its inputs, the watermark
 * method), never at a row's W_before: a window [start, end) closes when
 * W >= end.  A row is late for a window exactly when its own W_before >=
 * end (rule 3; or the window fired already, which only idle inputs can
 * cause), whether or not the window has fired here, so which rows count
 * depends on the data only, not on batch boundaries or on how far other
 * inputs have got.  A late row still counts in its other windows that are
 * not late.  A row late for all its windows is dropped (counted once) or
 * sent to the ON LATE INSERT INTO operator; with ALLOWED LATENESS L a
 * window keeps its state until W >= end + L and a row late by less than L
 * corrects it: -U old / +U new, +I when the (window, key) had emitted
 * nothing, -D / +I when HAVING stops / starts to hold.  Such a row whose
 * window has not fired yet is kept in "pending" and applied right after
 * the window fires, so the first result and the changes do not depend on
 * when the watermark came.  Rule 6: fired results carry W_before = end -
 * 1 us, corrections the late row's W_before.
 *
 * Two phases (sl_window_agg_plan.phase, plan_twophase.c, docs/parallel.md
 * §11).  At parallelism > 1 an event-time aggregate of mergeable
 * aggregates without ALLOWED LATENESS may run as two operators of this
 * file: the LocalWindowAggregate (its own method table, local_vtab, kind
 * SL_OPK_LOCAL_WINDOW_AGG), chained to the source instance, which makes
 * every decision above about a row (its windows, late or not, dropped,
 * counted or diverted) and folds it into partial accumulators in memory
 * (ltab.h), emitted as (keys, window end, record, hash) rows when the
 * watermark passes the window's end, before a checkpoint barrier
 * (pre_barrier) and at end of input; and the aggregate itself in its
 * GLOBAL phase (this method table, so its state, snapshot and rescaling
 * are the one-phase operator's), which merges the partials into "acc"
 * (global_process) and fires as above.  The local stage has no state
 * table and no snapshot of its own.
 */
#include "emit.h"
#include "ltab.h"
#include "graph.h"
#include "ops.h"
#include "timers.h"
#include "../data/rowcodec.h"
#include "sluice.h"
#include "sluice_udf.h"
#include "../base/copy.h"
#include "../base/timeutil.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/*
 * Slot header, before the accumulators, only under ALLOWED LATENESS (its
 * `emitted` flag drives corrections).  Without lateness the slot is just
 * the accumulators: every slot is created by a row folded into it, so
 * `rows` is always >= 1 there.  Why: 16 bytes less per (window, key);
 * with 1 M keys open that is 16 MB of the 100 MB budget (bench 3).
 */
typedef struct slot_hdr {
	int64_t rows;    /* rows folded in (net) */
	int32_t emitted; /* the (window, key) currently has a visible result */
	int32_t pad;
} slot_hdr;

#define MAX_WINDOWS 1024 /* HOP size/slide or CUMULATE max/step bound */

typedef struct win_op {
	sl_op base;
	sl_window_agg_plan p;
	int *key_cols;
	sl_agg *aggs;
	uint32_t slot_size;
	uint32_t hdr_size;      /* sizeof(slot_hdr) with lateness, else 0 */
	int has_distinct;
	uint8_t *kinds;         /* sl_agg_fast_kind of each aggregate */
	int fast;               /* no DISTINCT, no string aggregate, no slot header */
	sl_prog *having;
	sl_state_table *acc, *dist;
	sl_state_table *strs;   /* string MIN/MAX/FIRST/LAST values (agg.h) */
	int has_str;
	sl_buf skey;            /* key scratch for strs */
	sl_emitter out;         /* output rows being built (emit.h) */
	void **out_slots;       /* slot of each output row (for the emitted flag) */
	sl_batch *late;         /* late rows for the side output */
	sl_batch *corr;         /* two-row scratch: old and new result */
	sl_type *late_types;    /* types of the late rows (leading input columns) */
	sl_buf key;             /* encoded keys of the batch being processed */
	const char *kp;         /* the current row's key (inside key) */
	uint32_t kl;            /* its length */
	uint32_t *koff;         /* per live row: offset of its key in key, +1 */
	uint32_t *khash;        /* per live row: sl_state_hash of its key */
	int64_t *kend;          /* per live row: TUMBLE window end (prefetch) */
	int kcap;               /* capacity of koff/khash/kend in rows */
	sl_buf dkey;            /* distinct key scratch */
	sl_state_pkey_cols_ctx pkc; /* partitioning key of dist, strs: the GROUP BY key */
	/* The namespaces of acc, distinct and strings are the windows'
	 * event-time timers (timers.h), kept past firing for the lateness:
	 * tm.fired: windows with end <= tm.fired have fired; tm.next: no acc
	 * namespace below it (SL_WM_MIN: unknown). */
	sl_ns_timers tm;
	int nkeys_out;
	int str1;               /* the GROUP BY key is one CHAR/VARCHAR/BYTES column */
	int i641;               /* ... is one 8-byte integer column (SL_PHYS_I64) */
	/* ALLOWED LATENESS only: table "pending" (namespace = window end, key
	 * = group key, value = the key's late rows that arrived before the
	 * window fired: [i64 W_before][u32 len][row form]...), applied right
	 * after the window fires; prow decodes one of them. */
	sl_state_table *pending;
	sl_batch *prow;
	sl_type *in_types;
	int nin;
	sl_buf pbuf;
	/* Two-phase (p.phase, docs/parallel.md §11).  LOCAL: the partials
	 * (ltab.h), no state table; they leave at the watermark, before a
	 * checkpoint barrier (pre_barrier) and at end of input. */
	sl_ltab lt;
	sl_err *lerr;           /* LOCAL: the error of the flush under way */
	void *mslot;            /* GLOBAL: a partial's slot, copied aligned
	                         * (a batch's string bytes have no alignment) */
} win_op;

/* ---- window assignment ------------------------------------------------- */

static int64_t win_start_of_end(const sl_window_spec *w, int64_t end)
{
	if (w->kind == SL_WIN_CUMULATE)
		return sl_floordiv(end - 1 - w->offset, w->size) * w->size + w->offset;
	return end - w->size;
}

static int assign_local(const sl_window_spec *w, int64_t ts, int64_t *ends);

int64_t sl_win_to_local(const char *tz, int64_t utc)
{
	int64_t off = 0;
	if (tz && utc != SL_WM_MIN && utc != SL_WM_MAX)
		sl_tz_offset(tz, utc, &off);
	return utc + off;
}

int64_t sl_win_to_utc(const char *tz, int64_t local)
{
	int64_t off = 0;
	if (!tz)
		return local;
	sl_tz_offset(tz, local, &off);
	sl_tz_offset(tz, local - off, &off);
	return local - off;
}

/* Writes the ends (UTC instants) of every window containing ts into ends[];
 * returns the count.  Windows align in the spec's time zone. */
static int assign(const sl_window_spec *w, int64_t ts, int64_t *ends)
{
	if (w->attached) { /* ts is the row's window_end, local in tz */
		ends[0] = sl_win_to_utc(w->tz, ts);
		return 1;
	}
	int n = assign_local(w, sl_win_to_local(w->tz, ts), ends);
	for (int i = 0; w->tz && i < n; i++)
		ends[i] = sl_win_to_utc(w->tz, ends[i]);
	return n;
}

/* Window ends of ts in the window's own (local) time line. */
static int assign_local(const sl_window_spec *w, int64_t ts, int64_t *ends)
{
	int n = 0;
	switch (w->kind) {
	case SL_WIN_TUMBLE: {
		int64_t start = sl_floordiv(ts - w->offset, w->size) * w->size + w->offset;
		ends[n++] = start + w->size;
		break;
	}
	case SL_WIN_HOP: {
		int64_t last = sl_floordiv(ts - w->offset, w->slide) * w->slide + w->offset;
		/* ascending ends: oldest window first */
		int64_t first = last;
		while (first - w->slide > ts - w->size)
			first -= w->slide;
		for (int64_t s = first; s <= last && n < MAX_WINDOWS; s += w->slide)
			ends[n++] = s + w->size;
		break;
	}
	case SL_WIN_CUMULATE: {
		int64_t ws = sl_floordiv(ts - w->offset, w->size) * w->size + w->offset;
		for (int64_t e = ws + w->slide; e <= ws + w->size && n < MAX_WINDOWS; e += w->slide)
			if (ts < e)
				ends[n++] = e;
		break;
	}
	default: /* sessions have their own operator (op_session_agg.c) */
		assert(!"window kind of a window aggregate");
		break;
	}
	return n;
}

/* ---- output rows --------------------------------------------------------- */

/* put_key_cols's general case: the key of nk columns decoded by the row
 * codec into columns 0..nk-1 of row `row` of b; 0, SL_ESTATE when
 * malformed, SL_ENOMEM. */
static __attribute__((noinline)) int decode_key_cols(int nk, sl_batch *b, int row,
                                                    const void *key, uint32_t klen)
{
	int rc = sl_rowcodec_decode_cols(key, klen, b, b->cols, nk, row);
	if (rc)
		return rc;
	for (int i = 0; i < nk; i++)
		if (b->cols[i].null[row])
			sl_col_clear(&b->cols[i], row);
	return 0;
}

/* Decodes the encoded GROUP BY key into columns 0..nkeys-1 of row `row`
 * of b; ref: a single STRING key points into key instead of being copied
 * (key must then outlive b's rows).  0, or a negative code with err set. */
static int put_key_cols(win_op *o, sl_batch *b, int row, const void *key, uint32_t klen,
                        int ref, sl_err *err)
{
	const char *kb = key;
	uint32_t slen;
	/* the two single-column fast paths before the column array is
	 * filled: filling it first was ~11 instructions a call (callgrind) */
	if (o->i641 && klen == 9 && kb[0] == 0) {
		/* a single 8-byte integer key, not NULL: [0][the value's 8
		 * bytes] (rowcodec.c); the generic decoder was ~110
		 * instructions a partial of the datagen benchmark (callgrind) */
		int64_t v;
		memcpy(&v, kb + 1, 8);
		sl_col_set_i64(&b->cols[0], row, v);
		return 0;
	}
	if (o->str1 && klen >= 5 && kb[0] == 0 && (memcpy(&slen, kb + 1, 4), slen == klen - 5)) {
		/* a single STRING key, not NULL: [0][u32 length][bytes] (rowcodec.c)
		 * decoded here; the generic decoder's loop and type dispatch
		 * were ~80 instructions a result (callgrind, bench 4) */
		if (ref)
			sl_col_set_str_ref(&b->cols[0], row, kb + 5, slen);
		else if (sl_col_set_str(b, &b->cols[0], row, kb + 5, slen))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	} else {
		int rc = decode_key_cols(o->p.nkeys, b, row, key, klen);
		if (rc)
			return rc == SL_ENOMEM ? sl_err_set(err, rc, "out of memory")
			                       : sl_err_set(err, SL_ESTATE, "window state: malformed key");
	}
	return 0;
}

/* Appends the result row of (end, key, slot) to b with kind op and
 * W_before wm (docs/parallel.md §4, rule 6: end - 1 us for a window's
 * firing, the late row's W_before for its correction). */
/*
 * Why not sl_batch_add_row: it marks all columns NULL with zeroed values,
 * and every column is then set here anyway: clearing them first was ~150
 * instructions a result (callgrind, bench 4, where results are 3/4 of the
 * input rows).  Each column ends as sl_batch_add_row and the setters
 * would leave it: a column left NULL (a NULL key, an aggregate over no
 * value) gets its zeroed value from sl_col_clear.
 */
static int build_row(win_op *o, sl_batch *b, int64_t end, const void *key, uint32_t klen,
                     const void *slot, uint8_t op, int64_t wm, sl_err *err)
{
	assert(b->nrows < b->cap);
	int row = b->nrows++;
	b->op[row] = op;
	b->wm[row] = wm;
	int nk = o->p.nkeys;
	int rc = put_key_cols(o, b, row, key, klen, 0, err);
	if (rc)
		return rc;
	int64_t lend = sl_win_to_local(o->p.win.tz, end);
	sl_col_set_i64(&b->cols[nk], row, win_start_of_end(&o->p.win, lend));
	sl_col_set_i64(&b->cols[nk + 1], row, lend);
	sl_col_set_i64(&b->cols[nk + 2], row, end - 1000); /* window_time = end - 1 ms */
	for (int i = 0; i < o->p.naggs; i++) {
		sl_col *c = &b->cols[nk + 3 + i];
		c->null[row] = 1; /* a result that sets nothing leaves NULL */
		rc = o->has_str && sl_agg_is_str(&o->aggs[i])
		       ? sl_agg_str_result(&o->aggs[i], i, o->strs, end, key, klen, &o->skey, b, c, row)
		       : o->aggs[i].vt->result(&o->aggs[i], (const char *)slot + o->aggs[i].offset, c,
		                               row, err);
		if (rc)
			return rc == SL_ENOMEM ? sl_err_set(err, rc, "out of memory") : rc;
		if (c->null[row])
			sl_col_clear(c, row);
	}
	return row;
}

/* The emitter's hook (emit.h), on each batch of fired results before it
 * leaves: HAVING selects the rows; under lateness the results that leave
 * are marked visible, so a late row later corrects them. */
static int before_emit(void *ctx, sl_batch *b, sl_err *err)
{
	win_op *o = ctx;
	if (o->having) {
		int rc = sl_prog_filter(o->having, b, &o->base.graph->ectx, err);
		if (rc)
			return rc;
	}
	if (o->p.lateness > 0) {
		SL_BATCH_FOREACH(b, k, row)
			((slot_hdr *)o->out_slots[row])->emitted = 1;
	}
	return 0;
}

typedef struct fire_ctx {
	win_op *o;
	int64_t end;
} fire_ctx;

/* One (window, key) of the window being fired (a scan callback, state.h). */
static int fire_entry(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                      sl_err *err)
{
	fire_ctx *f = ctx;
	win_op *o = f->o;
	if (o->hdr_size && ((slot_hdr *)val)->rows <= 0)
		return 0;
	int rc = sl_emitter_reserve(&o->out, 1, err);
	if (rc)
		return rc;
	int row = build_row(o, o->out.b, f->end, key, klen, val, SL_INSERT, f->end - 1, err);
	if (row < 0)
		return row;
	o->out_slots[row] = val;
	return 0;
}

static int correct(win_op *o, int64_t end, const sl_batch *in, int row, sl_err *err);

/* The pending corrections of one key of the window being fired (a scan
 * callback over "pending", state.h): each stored late row, in arrival
 * order, corrects the result just emitted, as if the window had fired
 * before the row arrived. */
static int apply_pending(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                         sl_err *err)
{
	fire_ctx *f = ctx;
	win_op *o = f->o;
	const char *p = val, *e = p + vlen;
	while (p < e) {
		int64_t wm;
		uint32_t len;
		if (e - p < 12)
			return sl_err_set(err, SL_ESTATE, "window state: malformed pending row");
		memcpy(&wm, p, 8);
		memcpy(&len, p + 8, 4);
		p += 12;
		if ((uint32_t)(e - p) < len)
			return sl_err_set(err, SL_ESTATE, "window state: malformed pending row");
		sl_batch *b = o->prow;
		sl_batch_reset(b);
		int r = sl_batch_add_row(b, SL_INSERT, wm);
		int rc = sl_rowcodec_decode_cols(p, len, b, b->cols, b->ncols, r);
		if (rc)
			return rc == SL_ENOMEM ? sl_err_set(err, rc, "out of memory")
			                       : sl_err_set(err, SL_ESTATE, "window state: malformed pending row");
		p += len;
		o->kp = (const char *)key;
		o->kl = klen;
		if ((rc = correct(o, f->end, b, r, err)))
			return rc;
	}
	return 0;
}

/* Fires window `end` (a namespace timer, timers.h): emits the result of
 * every key, then applies the window's pending corrections (late rows that
 * arrived before it fired; they stay in "pending" until the window's
 * state is dropped at W >= end + lateness, and are never read again). */
static int fire_window(void *ctx, int64_t end, sl_err *err)
{
	win_op *o = ctx;
	fire_ctx f = {o, end};
	int rc = sl_state_ns_scan(o->acc, end, fire_entry, &f, err);
	if (!rc)
		rc = sl_emitter_flush(&o->out, err);
	if (!rc && o->pending)
		rc = sl_state_ns_scan(o->pending, end, apply_pending, &f, err);
	return rc;
}

/* Keeps row `row` of in, late by its own W_before for window `end` that
 * has not fired yet, as a pending correction of (end, current key),
 * appended after the key's earlier ones (docs/parallel.md §4, rule 4). */
static int keep_pending(win_op *o, int64_t end, const sl_batch *in, int row, sl_err *err)
{
	sl_buf *v = &o->pbuf;
	sl_buf_clear(v);
	const void *old;
	uint32_t olen;
	if (sl_state_get_var(o->pending, end, o->kp, o->kl, &old, &olen) &&
	    sl_buf_append(v, old, olen))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	size_t at = v->len;
	int64_t wm = in->wm[row];
	uint32_t len = 0;
	if (sl_buf_append(v, &wm, 8) || sl_buf_append(v, &len, 4) || sl_rowcodec_row(in, row, v))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	len = (uint32_t)(v->len - at - 12);
	memcpy(v->p + at + 8, &len, 4);
	int rc = sl_state_put_var(o->pending, end, o->kp, o->kl, v->p, (uint32_t)v->len);
	return rc ? sl_err_set(err, rc, rc == SL_ENOMEM ? "out of memory" : "state write failed") : 0;
}

/* Fires windows with tm.fired < end <= wm, frees state past end + lateness
 * (the timers drop a window's namespaces of acc, distinct and strings
 * together). */
static int advance(win_op *o, int64_t wm, sl_err *err)
{
	return sl_ns_timers_fire(&o->tm, wm, fire_window, o, err);
}

/* ---- folding rows ------------------------------------------------------- */

/* Folds row `row` into slot for window `end`, honouring DISTINCT. */
static int fold(win_op *o, void *slot, int64_t end, const sl_batch *in, int row, sl_err *err)
{
	if (o->hdr_size)
		((slot_hdr *)slot)->rows++;
	for (int i = 0; i < o->p.naggs; i++) {
		const sl_agg *a = &o->aggs[i];
		if (a->distinct && a->arg_col >= 0) {
			const sl_col *c = &in->cols[a->arg_col];
			if (c->null[row] && !sl_agg_keeps_nulls(a))
				continue;
			if (a->filter_col >= 0) {
				const sl_col *f = &in->cols[a->filter_col];
				if (f->null[row] || !f->v.i64[row])
					continue;
			}
			sl_buf_clear(&o->dkey);
			sl_buf_append(&o->dkey, o->kp, o->kl);
			sl_buf_putc(&o->dkey, (char)i);
			if (sl_rowcodec_key(in, &a->arg_col, 1, row, &o->dkey))
				return sl_err_set(err, SL_ENOMEM, "out of memory");
			/* the distinct table call may move the acc slot in a
			 * read-modify-write backend, but they are different tables */
			int64_t *cnt = sl_state_upsert(o->dist, end, o->dkey.p, (uint32_t)o->dkey.len, NULL);
			if (!cnt)
				return sl_err_set(err, SL_ENOMEM, "out of memory");
			if ((*cnt)++ > 0)
				continue;
		}
		int rc = sl_agg_is_str(a)
		       ? sl_agg_str_add(a, i, o->strs, end, o->kp, o->kl, in, row, &o->skey, err)
		       : sl_agg_add_one(a, slot, in, row, 1, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Emits the correction of a closed window by a late row (ALLOWED LATENESS). */
static int correct(win_op *o, int64_t end, const sl_batch *in, int row, sl_err *err)
{
	int created;
	void *slot = sl_state_upsert(o->acc, end, o->kp, o->kl, &created);
	if (!slot)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	sl_batch *c = o->corr;
	sl_batch_reset(c);
	int old_vis = ((slot_hdr *)slot)->emitted;
	int rc;
	if (old_vis && (rc = build_row(o, c, end, o->kp, o->kl, slot, SL_UPDATE_BEFORE,
	                               in->wm[row], err)) < 0)
		return rc;
	if ((rc = fold(o, slot, end, in, row, err)))
		return rc;
	/* fold may have used other tables only; slot is still valid */
	int newrow = build_row(o, c, end, o->kp, o->kl, slot, SL_UPDATE_AFTER, in->wm[row], err);
	if (newrow < 0)
		return newrow;
	int new_vis = 1;
	if (o->having) {
		if ((rc = sl_prog_filter(o->having, c, &o->base.graph->ectx, err)))
			return rc;
		new_vis = 0;
		SL_BATCH_FOREACH(c, k, r)
			if (r == newrow)
				new_vis = 1;
		c->sel = NULL;
	}
	((slot_hdr *)slot)->emitted = new_vis;
	/* kinds: -U/+U, -D, +I */
	if (old_vis && new_vis) {
		c->op[0] = SL_UPDATE_BEFORE;
		c->op[1] = SL_UPDATE_AFTER;
	} else if (old_vis) {
		c->op[0] = SL_DELETE;
		c->nrows = 1;
	} else if (new_vis) {
		c->op[newrow] = SL_INSERT;
	} else {
		return 0;
	}
	SL_CTR_ADD(o->base.stats.late_corrected, 1);
	return sl_op_emit(&o->base, c, err);
}

/* Sends the collected late rows to the ON LATE INSERT INTO operator. */
int sl__window_late_flush(const sl_window_agg_plan *p, sl_batch *late, sl_err *err)
{
	if (!late || late->nrows == 0)
		return 0;
	sl_op *side = p->late_op;
	SL_CTR_ADD(side->stats.rows_in, late->nrows);
	int rc = side->vt->process(side, 0, late, err);
	sl_batch_reset(late);
	return rc;
}

/* A row late for all its windows: dropped and counted, or copied (the
 * input relation's leading columns) into `late` for the side table.
 * Shared by the window and session operators. */
int sl__window_late_row(sl_op *op, const sl_window_agg_plan *p, sl_batch *late,
                        const sl_batch *in, int row, sl_err *err)
{
	if (p->late_policy != SL_LATEPOL_SIDE) {
		sl_op_late_dropped(op, in, row); /* counted, kept for the metrics */
		return 0;
	}
	SL_CTR_ADD(op->stats.late_diverted, 1);
	int r = sl_batch_add_row(late, SL_INSERT, in->wm[row]);
	for (int i = 0; i < p->late_ncols; i++)
		if (sl_col_copy_value(late, &late->cols[i], r, &in->cols[i], row))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	return late->nrows == late->cap ? sl__window_late_flush(p, late, err) : 0;
}

/* Compiles the window aggregate's HAVING over its output row (NULL with
 * err set on failure).  Shared by the window and session operators. */
sl_prog *sl__window_having(const sl_window_agg_plan *p, const sl_type *in_types, sl_err *err)
{
	int nt = p->nkeys + 3 + p->naggs;
	sl_type *t = calloc((size_t)nt, sizeof(sl_type));
	if (!t) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	sl_window_agg_out_types(p, in_types, t);
	sl_prog *prog = sl_prog_compile(&p->having, 1, t, nt, err);
	free(t);
	return prog;
}

static int grow_key_arrays(win_op *o, int n)
{
	if (n + 1 <= o->kcap)
		return 0;
	int cap = n + 1;
	uint32_t *ko = realloc(o->koff, sizeof(*ko) * (size_t)cap);
	if (ko)
		o->koff = ko;
	uint32_t *kh = realloc(o->khash, sizeof(*kh) * (size_t)cap);
	if (kh)
		o->khash = kh;
	int64_t *ke = realloc(o->kend, sizeof(*ke) * (size_t)cap);
	if (ke)
		o->kend = ke;
	if (!ko || !kh || !ke)
		return SL_ENOMEM;
	o->kcap = cap;
	return 0;
}

/*
 * Writes the key of a single BIGINT GROUP BY column exactly as
 * sl_rowcodec_key does ([0][8 value bytes], or [1] for NULL) at p, which
 * has 16 bytes of room; returns its length.  Why: the generic encoder's
 * 1-byte and 8-byte stores, read back at once by the hash's 8-byte load,
 * defeat store-to-load forwarding: perf annotate put 36% of sl_state_hash
 * (14% of the datagen window benchmark) on that load.  Two 8-byte stores
 * that the hash's loads line up with forward fine.  Little-endian only
 * (the byte order sl_rowcodec_key's memcpy gives there).
 */
static inline uint32_t put_i64_key(char *p, const sl_col *c, int row)
{
	if (c->null[row]) {
		p[0] = 1;
		return 1;
	}
	uint64_t v = (uint64_t)c->v.i64[row], lo = v << 8, hi = v >> 56;
	memcpy(p, &lo, 8);
	memcpy(p + 8, &hi, 8);
	return 9;
}

/*
 * Appends the key of a single STRING (CHAR, VARCHAR, BYTES) GROUP BY column
 * exactly as sl_rowcodec_key does: [0][u32 length][bytes], or [1] for
 * NULL.  Why: the generic encoder (a loop over columns, a switch on the
 * type, three appends) was 104 instructions a row of the JSON benchmarks'
 * user_id key (callgrind); this is one reserve and two copies.
 */
static inline int put_str_key(sl_buf *b, const sl_col *c, int row)
{
	if (c->null[row])
		return sl_buf_putc(b, 1);
	uint32_t len = (uint32_t)c->v.str[row].len;
	if (b->len + 5 + len > b->cap && sl_buf_reserve(b, 5 + (size_t)len))
		return SL_ENOMEM;
	char *p = b->p + b->len;
	const char *s = c->v.str[row].ptr;
	p[0] = 0;
	memcpy(p + 1, &len, 4);
	if (len >= 4 && len <= 8) { /* user ids: no libc call (callgrind) */
		uint32_t w0, w1;
		memcpy(&w0, s, 4);
		memcpy(&w1, s + len - 4, 4);
		memcpy(p + 5, &w0, 4);
		memcpy(p + 5 + len - 4, &w1, 4);
	} else {
		memcpy(p + 5, s, len);
	}
	b->len += 5 + (size_t)len;
	return 0;
}

/* 1 when put_i64_key can encode the operator's group key. */
static int i64_key(const win_op *o, const sl_batch *in)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return o->p.nkeys == 1 && sl_type_phys(in->cols[o->key_cols[0]].type) == SL_PHYS_I64;
#else
	return 0;
#endif
}

/*
 * Encodes the group keys of every live row of `in` into o->key (offsets in
 * koff, hashes in khash) and, for TUMBLE, each row's window end (kend).
 * Why a separate pass: knowing the keys of later rows lets win_process
 * prefetch their state entries (sl_state_prefetch); see the measurement
 * there.  Outside a time zone the window end is recomputed (a 64-bit
 * division) only when a row leaves the last row's window: rows come
 * mostly in time order.
 */
static int encode_keys(win_op *o, const sl_batch *in, int n)
{
	if (grow_key_arrays(o, n))
		return SL_ENOMEM;
	const sl_window_spec *w = &o->p.win;
	const sl_col *tc = &in->cols[w->time_col];
	int tumble = w->kind == SL_WIN_TUMBLE && !w->tz && !w->attached &&
	             o->p.phase != SL_WINPHASE_GLOBAL, fixed = i64_key(o, in);
	const sl_col *kc = o->p.nkeys ? &in->cols[o->key_cols[0]] : NULL;
	int str1 = o->p.nkeys == 1 && sl_type_phys(kc->type) == SL_PHYS_STR;
	int64_t wlo = 0, whi = INT64_MIN; /* window [wlo, whi) of the last row */
	sl_buf_clear(&o->key);
	if (fixed && sl_buf_reserve(&o->key, (size_t)n * 9 + 16))
		return SL_ENOMEM;
	SL_BATCH_FOREACH(in, k, row) {
		o->koff[k] = (uint32_t)o->key.len;
		if (fixed)
			o->key.len += put_i64_key(o->key.p + o->key.len, kc, row);
		else if (str1) {
			if (put_str_key(&o->key, kc, row))
				return SL_ENOMEM;
		} else if (sl_rowcodec_key(in, o->key_cols, o->p.nkeys, row, &o->key))
			return SL_ENOMEM;
		int64_t ts = tc->v.i64[row];
		if (!tumble || tc->null[row]) {
			o->kend[k] = SL_WM_MIN;
			continue;
		}
		if (w->tz) {
			assign(w, ts, &o->kend[k]); /* aligned in the zone: one end */
			continue;
		}
		if (ts < wlo || ts >= whi) {
			wlo = sl_floordiv(ts - w->offset, w->size) * w->size + w->offset;
			whi = wlo + w->size;
		}
		o->kend[k] = whi;
	}
	o->koff[n] = (uint32_t)o->key.len;
	/* Why a loop of its own: hashing a key right after writing it loads
	 * 8-byte words that span the encoder's separate stores (the null byte,
	 * the length, the bytes), which the CPU cannot forward from its store
	 * buffer: perf annotate put 15% of win_process's samples on the hash's
	 * first load (STRING keys).  A batch later, the keys are in L1. */
	for (int k = 0; k < n; k++)
		o->khash[k] = sl_state_hash(o->key.p + o->koff[k], o->koff[k + 1] - o->koff[k]);
	return 0;
}

/*
 * Prefetch distances in live rows.  Why: the acc lookup of a random key
 * among 10 000 per window misses the cache (lookup() was 34% of the
 * datagen benchmark, 52 ns a row); touching the index slot 16 rows ahead
 * and the entry 8 rows ahead hides most of it (measured: see the commit
 * of this change and docs/performance.md).
 */
#define PF_INDEX 16
#define PF_ENTRY 8

/*
 * win_process's loop for the common case: event-time TUMBLE outside a time
 * zone (one window per row, its end from encode_keys), no ALLOWED
 * LATENESS, only inline aggregates (o->fast).  The same decisions as the
 * general loop below: a row is late when its W_before or the fired
 * watermark has reached its window's end (dropped or diverted), else it
 * is folded into (end, key).  Why a loop of its own: the general one's
 * window array, lateness branches and per-row bookkeeping were ~40
 * instructions a row (callgrind, bench 4).
 */
static int fold_tumble(win_op *o, const sl_batch *in, int live, sl_err *err)
{
	const sl_col *tc = &in->cols[o->p.win.time_col];
	const char *kbase = o->key.p;
	const uint32_t *koff = o->koff, *khash = o->khash;
	const int64_t *kend = o->kend;
	int rc;
	SL_BATCH_FOREACH(in, k, row) {
		if (k + PF_INDEX < live)
			sl_state_prefetch(o->acc, kend[k + PF_INDEX], khash[k + PF_INDEX], 0);
		if (k + PF_ENTRY < live)
			sl_state_prefetch(o->acc, kend[k + PF_ENTRY], khash[k + PF_ENTRY], 1);
		if (tc->null[row])
			return sl_err_set(err, SL_EINPUT, "window aggregate: NULL rowtime");
		int64_t end = kend[k];
		int64_t cur = in->wm[row] > o->tm.fired ? in->wm[row] : o->tm.fired;
		if (cur >= end) { /* late (rule 3), and no lateness allowed */
			if ((rc = sl__window_late_row(&o->base, &o->p, o->late, in, row, err)))
				return rc;
			continue;
		}
		if (end < o->tm.next)
			o->tm.next = end;
		void *slot = sl_state_upsert_h(o->acc, end, kbase + koff[k], koff[k + 1] - koff[k],
		                               khash[k], NULL);
		if (!slot)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		if ((rc = sl_agg_fold_row(o->aggs, o->kinds, o->p.naggs, slot, in, row, err)))
			return rc;
	}
	return sl__window_late_flush(&o->p, o->late, err);
}

/*
 * The GlobalWindowAggregate's process (p.phase GLOBAL): each input row is
 * a LocalWindowAggregate's partial, (keys, window end, record, hash): the
 * record is the local entry (ltab.h: the encoded GROUP BY key and the
 * accumulator slot) and the hash the key's sl_state_hash, so the key is
 * neither encoded nor hashed again here (that was ~120 instructions a
 * partial, callgrind); it is merged into (end, key) of "acc", the
 * one-phase aggregate's own state.
 * Nothing is late here: the local stage judged every row against its own
 * W_before, and a partial of window `end` always precedes, on its channel,
 * the watermark >= end that fires it (the local flushes before it
 * forwards that watermark), so the window has not fired at this instance
 * (docs/parallel.md §11).  The one exception is a channel that was idle
 * (its watermark left out of the minimum, a processing-time rule outside
 * the determinism promise): a partial for a window that fired already is
 * dropped and counted as a late row, as the one-phase aggregate drops
 * such rows.
 */
static int global_process(win_op *o, const sl_batch *in, sl_err *err)
{
	int nk = o->p.nkeys;
	const sl_col *ec = &in->cols[nk], *ac = &in->cols[nk + 1], *hc = &in->cols[nk + 2];
	SL_BATCH_FOREACH(in, k, row) {
		int64_t end = ec->v.i64[row];
		if (end <= o->tm.fired) {
			sl_op_late_dropped(&o->base, in, row);
			continue;
		}
		const char *rec = ac->v.str[row].ptr;
		uint64_t rlen = (uint64_t)ac->v.str[row].len;
		uint32_t klen = 0;
		if (rlen >= 4)
			memcpy(&klen, rec, 4);
		if (rlen < 4 || klen > rlen || sl_ltab_head(klen) + (uint64_t)o->slot_size != rlen)
			return sl_err_set(err, SL_ESTATE, "window aggregate: malformed partial "
			                  "accumulator (%llu bytes, slots of %u)",
			                  (unsigned long long)rlen, o->slot_size);
		if (end < o->tm.next)
			o->tm.next = end;
		int created;
		const char *src = o->mslot;
		sl_copy16n(o->mslot, rec + sl_ltab_head(klen), o->slot_size);
		void *slot = sl_state_upsert_h(o->acc, end, rec + 4, klen,
		                               (uint32_t)hc->v.i64[row], &created);
		if (!slot)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		if (created) {
			sl_copy16n(slot, src, o->slot_size);
			continue;
		}
		for (int i = 0; i < o->p.naggs; i++) {
			const sl_agg *a = &o->aggs[i];
			int rc = a->vt->merge(a, (char *)slot + a->offset, src + a->offset, err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int win_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	win_op *o = (win_op *)op;
	if (o->p.phase == SL_WINPHASE_GLOBAL) /* one method table per kind (op_kind.h) */
		return global_process(o, in, err);
	const sl_col *tc = &in->cols[o->p.win.time_col];
	int64_t ends[MAX_WINDOWS];
	int rc = 0;
	int live = sl_batch_live(in);
	if (encode_keys(o, in, live))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	int proc = o->p.win.proc;
	int64_t now = proc ? op->graph->ectx.proctime : 0;
	int pf = o->p.win.kind == SL_WIN_TUMBLE && !o->p.win.tz && !proc && /* kend is set */
	         !o->p.win.attached;
	if (pf) {
		for (int k = 0; k < PF_INDEX && k < live; k++)
			sl_state_prefetch(o->acc, o->kend[k], o->khash[k], 0);
		for (int k = 0; k < PF_ENTRY && k < live; k++)
			sl_state_prefetch(o->acc, o->kend[k], o->khash[k], 1);
	}
	if (pf && o->fast)
		return fold_tumble(o, in, live, err);
	SL_BATCH_FOREACH(in, k, row) {
		if (pf) {
			if (k + PF_INDEX < live)
				sl_state_prefetch(o->acc, o->kend[k + PF_INDEX], o->khash[k + PF_INDEX], 0);
			if (k + PF_ENTRY < live)
				sl_state_prefetch(o->acc, o->kend[k + PF_ENTRY], o->khash[k + PF_ENTRY], 1);
		}
		/* processing time: the clock fires windows before each row;
		 * event time fires at the operator's watermark only (rule 4) */
		if (proc && now > o->tm.fired && (rc = advance(o, now, err)))
			return rc;
		if (tc->null[row])
			return sl_err_set(err, SL_EINPUT, "window aggregate: NULL rowtime");
		o->kp = o->key.p + o->koff[k];
		o->kl = o->koff[k + 1] - o->koff[k];
		int n = 1;
		if (pf)
			ends[0] = o->kend[k]; /* TUMBLE: computed by encode_keys */
		else
			n = assign(&o->p.win, proc ? now : tc->v.i64[row], ends);
		int counted = 0;
		/* late by the row's own W_before (rule 3), or for a window that
		 * fired already (only possible with idle inputs) */
		int64_t cur = o->tm.fired;
		if (!proc && in->wm[row] > cur)
			cur = in->wm[row];
		for (int i = 0; i < n; i++) {
			if (cur >= ends[i]) {
				/* late for this window */
				if (o->p.lateness > 0 && cur < ends[i] + o->p.lateness) {
					rc = o->tm.fired >= ends[i] ? correct(o, ends[i], in, row, err)
					                            : keep_pending(o, ends[i], in, row, err);
					if (rc)
						return rc;
					counted = 1;
				}
				continue;
			}
			if (ends[i] < o->tm.next)
				o->tm.next = ends[i];
			void *slot = sl_state_upsert_h(o->acc, ends[i], o->kp, o->kl, o->khash[k], NULL);
			if (!slot)
				return sl_err_set(err, SL_ENOMEM, "out of memory");
			rc = o->fast ? sl_agg_fold_row(o->aggs, o->kinds, o->p.naggs, slot, in, row, err)
			             : fold(o, slot, ends[i], in, row, err);
			if (rc)
				return rc;
			counted = 1;
		}
		if (!counted && (rc = sl__window_late_row(&o->base, &o->p, o->late, in, row, err)))
			return rc;
	}
	return sl__window_late_flush(&o->p, o->late, err);
}

static int win_watermark(sl_op *op, int64_t wm, sl_err *err)
{
	win_op *o = (win_op *)op;
	if (o->p.win.proc) /* fires on the clock (win_proctime), not on W */
		return sl_op_emit_watermark(op, wm, err);
	int rc = advance(o, wm, err);
	if (rc)
		return rc;
	/* window results carry rowtime end - 1 ms: forward W unchanged (a
	 * cascaded window over window_time sees them as on time) */
	return sl_op_emit_watermark(op, wm, err);
}

/* Processing-time windows: fire every window whose end the clock reached. */
static int win_proctime(sl_op *op, int64_t now, sl_err *err)
{
	win_op *o = (win_op *)op;
	if (!o->p.win.proc || now <= o->tm.fired)
		return 0;
	return advance(o, now, err);
}

static int win_finish(sl_op *op, sl_err *err)
{
	win_op *o = (win_op *)op;
	int rc = sl__window_late_flush(&o->p, o->late, err);
	if (rc)
		return rc;
	if (o->p.late_op)
		return sl_graph_end_input(o->p.late_op, 0, err);
	return 0;
}

static int win_snapshot(sl_op *op, sl_snap_writer *w, sl_err *err)
{
	sl_snap_put_i64(w, ((win_op *)op)->tm.fired);
	return 0;
}

static int win_restore(sl_op *op, sl_snap_reader *r, sl_err *err)
{
	((win_op *)op)->tm.fired = sl_snap_get_i64(r);
	((win_op *)op)->tm.next = SL_WM_MIN; /* unknown: the next W runs advance() */
	return sl_snap_reader_ok(r) ? 0 : sl_err_set(err, SL_ESTATE, "window operator state damaged");
}

static int win_open(sl_op *op, sl_err *err)
{
	win_op *o = (win_op *)op;
	o->acc = sl_state_table_open(op->state, op->uid, "acc", o->slot_size, err);
	if (!o->acc)
		return err->code;
	if (o->has_distinct &&
	    !(o->dist = sl_state_table_open(op->state, op->uid, "distinct", 8, err)))
		return err->code;
	if (o->has_str && !(o->strs = sl_state_table_open(op->state, op->uid, "strings", 0, err)))
		return err->code;
	/* their keys are the GROUP BY key, then more (docs/state.md "Key groups") */
	o->pkc.types = op->out_types;
	o->pkc.n = o->p.nkeys;
	if (o->dist)
		sl_state_table_set_pkey(o->dist, sl_state_pkey_cols, &o->pkc);
	if (o->strs)
		sl_state_table_set_pkey(o->strs, sl_state_pkey_cols, &o->pkc);
	if (o->p.lateness > 0 && !o->p.win.proc) {
		/* key: the GROUP BY key alone, the default partitioning key */
		if (!(o->pending = sl_state_table_open(op->state, op->uid, "pending", 0, err)))
			return err->code;
		if (!(o->prow = sl_batch_new(o->nin, o->in_types, 1)))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	if (o->p.phase == SL_WINPHASE_GLOBAL && !(o->mslot = malloc(o->slot_size)))
		return sl_err_set(err, SL_ENOMEM, "out of memory"); /* malloc: 16-aligned */
	sl_ns_timers_add(&o->tm, o->acc);
	sl_ns_timers_add(&o->tm, o->dist); /* NULL: ignored */
	sl_ns_timers_add(&o->tm, o->strs);
	sl_ns_timers_add(&o->tm, o->pending);
	if (sl_emitter_init(&o->out, op, 0, err))
		return err->code;
	sl_emitter_set_hook(&o->out, before_emit, o);
	o->corr = sl_batch_new(op->nout, op->out_types, 2);
	o->out_slots = calloc(SL_BATCH_ROWS, sizeof(void *));
	if (!o->corr || !o->out_slots)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (o->p.late_policy == SL_LATEPOL_SIDE) {
		o->late = sl_batch_new(o->p.late_ncols, o->late_types, 0);
		if (!o->late)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	return 0;
}

static void win_close(sl_op *op)
{
	win_op *o = (win_op *)op;
	sl_ltab_deinit(&o->lt); /* the local stage's partials */
	free(o->mslot);
	sl_emitter_deinit(&o->out);
	sl_batch_free(o->corr);
	sl_batch_free(o->late);
	sl_batch_free(o->prow);
	free(o->in_types);
	sl_buf_deinit(&o->pbuf);
	free(o->out_slots);
	sl_prog_free(o->having);
	sl_buf_deinit(&o->key);
	free(o->koff);
	free(o->khash);
	free(o->kend);
	sl_buf_deinit(&o->dkey);
	sl_buf_deinit(&o->skey);
	free(o->key_cols);
	free(o->aggs);
	free(o->kinds);
	free(o->late_types);
}

static const sl_op_vtab win_vtab = {
	.name = "WindowAggregate",
	.kind = SL_OPK_WINDOW_AGG,
	.flags = SL_OPF_STATE_WM | SL_OPF_LATE_STATS,
	.open = win_open,
	.process = win_process,
	.watermark = win_watermark,
	.snapshot = win_snapshot,
	.restore = win_restore,
	.finish = win_finish,
	.close = win_close,
	.proctime = win_proctime,
};

/* Output types: keys, window_start, window_end, window_time, aggregates. */
static int out_types(const sl_window_agg_plan *p, const sl_type *in_types, sl_type *t)
{
	int n = 0;
	for (int i = 0; i < p->nkeys; i++)
		t[n++] = in_types[p->key_cols[i]];
	t[n] = sl_type_timestamp(SL_T_TIMESTAMP, 3);
	t[n++].notnull = 1;
	t[n] = sl_type_timestamp(SL_T_TIMESTAMP, 3);
	t[n++].notnull = 1;
	t[n] = p->time_type;
	t[n++].notnull = 1;
	for (int i = 0; i < p->naggs; i++)
		t[n++] = p->aggs[i].out_type;
	return n;
}

sl_op *sl_op_window_agg_new(const sl_window_agg_plan *p, const sl_type *in_types, int nin,
                            sl_err *err)
{
	win_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &win_vtab;
	o->p = *p;
	o->base.state_proctime = p->win.proc;
	o->key_cols = calloc((size_t)p->nkeys + 1, sizeof(int));
	o->aggs = calloc((size_t)p->naggs + 1, sizeof(sl_agg));
	o->kinds = calloc((size_t)p->naggs + 1, 1);
	if (!o->key_cols || !o->aggs || !o->kinds)
		goto nomem;
	memcpy(o->key_cols, p->key_cols, sizeof(int) * (size_t)p->nkeys);
	o->p.key_cols = o->key_cols;
	o->hdr_size = p->lateness > 0 ? (uint32_t)sizeof(slot_hdr) : 0;
	uint32_t off = o->hdr_size;
	for (int i = 0; i < p->naggs; i++) {
		o->aggs[i] = p->aggs[i];
		o->aggs[i].offset = off;
		off += o->aggs[i].vt->acc_size;
		if (p->aggs[i].distinct)
			o->has_distinct = 1;
		o->has_str |= sl_agg_is_str(&o->aggs[i]);
		o->kinds[i] = (uint8_t)sl_agg_fast_kind(&o->aggs[i]);
	}
	o->fast = !o->has_distinct && !o->has_str && !o->hdr_size;
	o->str1 = p->nkeys == 1 && sl_type_phys(in_types[p->key_cols[0]]) == SL_PHYS_STR;
	o->i641 = p->nkeys == 1 && sl_type_phys(in_types[p->key_cols[0]]) == SL_PHYS_I64;
	o->p.aggs = o->aggs;
	o->slot_size = off ? off : 16; /* no aggregates, no header: 0 would mean variable-length */
	if (p->lateness > 0) {
		if (!(o->in_types = calloc((size_t)nin + 1, sizeof(sl_type))))
			goto nomem;
		memcpy(o->in_types, in_types, sizeof(sl_type) * (size_t)nin);
		o->nin = nin;
	}
	sl_ns_timers_init(&o->tm, p->lateness);
	if (p->late_policy == SL_LATEPOL_SIDE) {
		o->late_types = calloc((size_t)p->late_ncols + 1, sizeof(sl_type));
		if (!o->late_types)
			goto nomem;
		memcpy(o->late_types, in_types, sizeof(sl_type) * (size_t)p->late_ncols);
	}
	if (p->nkeys > 64) {
		sl_err_set(err, SL_EPLAN, "at most 64 GROUP BY keys are supported");
		goto fail;
	}
	if (p->having && !(o->having = sl__window_having(p, in_types, err)))
		goto fail;
	return &o->base;
nomem:
	sl_err_set(err, SL_ENOMEM, "out of memory");
fail:
	sl_op_free(&o->base); /* calls its close */
	return NULL;
}

/* Output types of a window aggregate, for the planner (t has room for
 * nkeys + 3 + naggs). */
int sl_window_agg_out_types(const sl_window_agg_plan *p, const sl_type *in_types, sl_type *t)
{
	return out_types(p, in_types, t);
}

/* ---- two-phase aggregation: the local stage (docs/parallel.md §11) ------ */

/*
 * LocalWindowAggregate: the same operator over a private table, chained to
 * the source instance that reads the rows (before the hash exchange).  It
 * makes every decision the one-phase aggregate makes about a row (its
 * windows, late or not by its own W_before, dropped, counted or sent to
 * the ON LATE table: win_process, unchanged), so those decisions are made
 * where the split is read, as at parallelism 1.  Instead of results it
 * emits partials: (keys, window end, accumulator slot) rows, which the
 * GlobalWindowAggregate merges.  A window's partials leave when the
 * watermark passes its end (before the watermark is forwarded, so they
 * precede it on every channel), before a checkpoint barrier (pre_barrier:
 * the checkpoint then holds them in the global stage's state, and this
 * operator has nothing to snapshot), at end of input, and when the table
 * holds LOCAL_MAX_ENTRIES entries (local_shed; any partial may leave
 * early: merging is associative).  Its W_before is end - 1 us: the global stage judges no
 * lateness.
 */

/* Why 2^20 (about 80 MB of partials per instance: key, slot and index):
 * a source instance reading its splits interleaved has one window per
 * split still growing (the datagen benchmark's 50 M rows at parallelism 2:
 * 24 chunks an instance, 10 000 users, 240 000 growing entries), and those
 * must stay below half of it (local_shed); at 2^18 that job sent 20 M
 * partials for 8 M results. */
#define LOCAL_MAX_ENTRIES (1u << 20)
#define LOCAL_IDLE_BATCHES 64 /* see local_shed */

/* One (window, key) partial (an sl_ltab_cb): the key columns, the window
 * end, the entry's record (ltab.h: the encoded key and the slot) and the
 * key's hash, so the global stage neither encodes nor hashes the key
 * again.  The key and the record go by reference: the window's rows are
 * emitted before its entries are dropped (local_flush_at), and the
 * exchange copies them (exchange.c); two copies a partial fewer. */
static int local_entry(void *ctx, int64_t end, const sl_lent *e)
{
	win_op *o = ctx;
	sl_err *err = o->lerr;
	int rc = sl_emitter_reserve(&o->out, 1, err);
	if (rc)
		return rc;
	sl_batch *b = o->out.b;
	int row = b->nrows++;
	b->op[row] = SL_INSERT;
	b->wm[row] = end - 1;
	int nk = o->p.nkeys;
	if ((rc = put_key_cols(o, b, row, e->key, e->klen, 1, err)))
		return rc;
	sl_col_set_i64(&b->cols[nk], row, end);
	sl_col_set_str_ref(&b->cols[nk + 1], row, e->rec, e->len);
	sl_col_set_i64(&b->cols[nk + 2], row, e->hash);
	return 0;
}

/* Emits the partials of open window i, then drops it. */
static int local_flush_at(win_op *o, int i, sl_err *err)
{
	o->lerr = err;
	int rc = sl_ltab_scan(&o->lt, i, local_entry, o);
	if (!rc)
		rc = sl_emitter_flush(&o->out, err);
	if (!rc)
		sl_ltab_drop(&o->lt, i);
	return rc;
}

/* Emits every partial held and empties the table. */
static int local_flush_all(win_op *o, sl_err *err)
{
	int rc = 0;
	while (!rc && o->lt.nwin)
		rc = local_flush_at(o, 0, err);
	return rc;
}

/*
 * The table reached LOCAL_MAX_ENTRIES: emits the windows no row reached in
 * the last LOCAL_IDLE_BATCHES batches, and everything when that leaves
 * more than half.  Why not everything at once: a source instance reading
 * several splits interleaved (datagen chunks, docs/parallel.md §4 rule 5)
 * holds every split's past windows open until its slowest split's
 * watermark passes them; only each split's current window still grows,
 * and flushing it early is what costs partials (the datagen benchmark's 50
 * M rows at parallelism 2: 20 M partials when everything was flushed).
 */
static int local_shed(win_op *o, sl_err *err)
{
	int rc = 0;
	for (int i = 0; !rc && i < o->lt.nwin; ) {
		if (o->lt.win[i]->touched + LOCAL_IDLE_BATCHES <= o->lt.clock)
			rc = local_flush_at(o, i, err);
		else
			i++;
	}
	if (!rc && o->lt.count >= LOCAL_MAX_ENTRIES / 2)
		rc = local_flush_all(o, err);
	return rc;
}

/*
 * The local stage's process: win_process's decisions for an event-time
 * window without ALLOWED LATENESS (the only kind split, plan_twophase.c),
 * folding into the partials: a row goes to each of its windows that is
 * not late by its W_before (or by the watermark flushed already, which
 * only idle inputs can make larger), and a row counted in none is late:
 * dropped and counted, or sent to the ON LATE table, here, where its split
 * is read.
 */
/*
 * local_process's loop for event-time TUMBLE outside a time zone (one
 * window per row, its end from encode_keys), as fold_tumble is the
 * one-phase aggregate's: the same decisions as the general loop below (a
 * row late by its W_before or the flushed watermark is dropped or
 * diverted, else folded into (end, key)).  Why a loop of its own: the
 * general one's window array, `counted` and reloads of the operator's
 * fields were ~35 instructions a row (callgrind, bench-par's file job at
 * parallelism 2), which made the local stage's row cost more than the
 * one-phase aggregate's at parallelism 1.
 */
static int local_fold_tumble(win_op *o, const sl_batch *in, int live, sl_err *err)
{
	const sl_col *tc = &in->cols[o->p.win.time_col];
	const char *kbase = o->key.p;
	const uint32_t *koff = o->koff, *khash = o->khash;
	const int64_t *kend = o->kend;
	const int64_t fired = o->tm.fired; /* moves at the watermark only */
	sl_ltab *lt = &o->lt;
	int rc;
	for (int k = 0; k < PF_INDEX && k < live; k++)
		sl_ltab_prefetch(lt, kend[k], khash[k], 0);
	SL_BATCH_FOREACH(in, k, row) {
		if (k + PF_INDEX < live)
			sl_ltab_prefetch(lt, kend[k + PF_INDEX], khash[k + PF_INDEX], 0);
		if (k + PF_ENTRY < live)
			sl_ltab_prefetch(lt, kend[k + PF_ENTRY], khash[k + PF_ENTRY], 1);
		if (tc->null[row])
			return sl_err_set(err, SL_EINPUT, "window aggregate: NULL rowtime");
		int64_t end = kend[k];
		int64_t cur = in->wm[row] > fired ? in->wm[row] : fired;
		if (cur >= end) { /* late for its one window (rule 3) */
			if ((rc = sl__window_late_row(&o->base, &o->p, o->late, in, row, err)))
				return rc;
			continue;
		}
		void *slot = sl_ltab_upsert_inl(lt, end, kbase + koff[k], koff[k + 1] - koff[k],
		                                khash[k]);
		if (!slot)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		if ((rc = sl_agg_fold_row(o->aggs, o->kinds, o->p.naggs, slot, in, row, err)))
			return rc;
	}
	return 0;
}

/* local_process's general loop: HOP, CUMULATE, a time zone, attached
 * windows (each row's windows from assign). */
static int local_fold(win_op *o, const sl_batch *in, sl_err *err)
{
	const sl_col *tc = &in->cols[o->p.win.time_col];
	int64_t ends[MAX_WINDOWS];
	int rc;
	SL_BATCH_FOREACH(in, k, row) {
		if (tc->null[row])
			return sl_err_set(err, SL_EINPUT, "window aggregate: NULL rowtime");
		int n = assign(&o->p.win, tc->v.i64[row], ends);
		int64_t cur = in->wm[row] > o->tm.fired ? in->wm[row] : o->tm.fired;
		int counted = 0;
		for (int i = 0; i < n; i++) {
			if (cur >= ends[i])
				continue; /* late for this window (rule 3) */
			void *slot = sl_ltab_upsert(&o->lt, ends[i], o->key.p + o->koff[k],
			                            o->koff[k + 1] - o->koff[k], o->khash[k]);
			if (!slot)
				return sl_err_set(err, SL_ENOMEM, "out of memory");
			if ((rc = sl_agg_fold_row(o->aggs, o->kinds, o->p.naggs, slot, in, row, err)))
				return rc;
			counted = 1;
		}
		if (!counted && (rc = sl__window_late_row(&o->base, &o->p, o->late, in, row, err)))
			return rc;
	}
	return 0;
}

static int local_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	win_op *o = (win_op *)op;
	int live = sl_batch_live(in), rc;
	if (encode_keys(o, in, live))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	sl_ltab_tick(&o->lt);
	if (o->p.win.kind == SL_WIN_TUMBLE && !o->p.win.tz && !o->p.win.attached)
		rc = local_fold_tumble(o, in, live, err); /* kend set by encode_keys */
	else
		rc = local_fold(o, in, err);
	if (!rc)
		rc = sl__window_late_flush(&o->p, o->late, err);
	if (!rc && o->lt.count >= LOCAL_MAX_ENTRIES)
		rc = local_shed(o, err);
	return rc;
}

/* Emits the partials of every window with end <= wm, before wm goes on
 * (so on every channel they precede the watermark that fires them). */
static int local_watermark(sl_op *op, int64_t wm, sl_err *err)
{
	win_op *o = (win_op *)op;
	int64_t end;
	int rc = 0;
	while (!rc && sl_ltab_first(&o->lt, &end) && end <= wm)
		rc = local_flush_at(o, 0, err);
	if (rc)
		return rc;
	if (wm > o->tm.fired)
		o->tm.fired = wm;
	return sl_op_emit_watermark(op, wm, err);
}

static int local_pre_barrier(sl_op *op, sl_err *err)
{
	return local_flush_all((win_op *)op, err);
}

static int local_finish(sl_op *op, sl_err *err)
{
	int rc = local_flush_all((win_op *)op, err);
	return rc ? rc : win_finish(op, err);
}

static int local_open(sl_op *op, sl_err *err)
{
	win_op *o = (win_op *)op;
	sl_ltab_init(&o->lt, o->slot_size);
	if (sl_emitter_init(&o->out, op, 0, err))
		return err->code;
	if (o->p.late_policy == SL_LATEPOL_SIDE &&
	    !(o->late = sl_batch_new(o->p.late_ncols, o->late_types, 0)))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

static const sl_op_vtab local_vtab = {
	.name = "LocalWindowAggregate",
	.kind = SL_OPK_LOCAL_WINDOW_AGG,
	.flags = SL_OPF_LATE_STATS,
	.open = local_open,
	.process = local_process,
	.watermark = local_watermark,
	.finish = local_finish,
	.close = win_close,
	.pre_barrier = local_pre_barrier,
	.went_idle = local_pre_barrier, /* the same: every partial goes out */
};

int sl_window_aggs_mergeable(const sl_window_agg_plan *p)
{
	for (int i = 0; i < p->naggs; i++) {
		const sl_agg *a = &p->aggs[i];
		if (a->distinct || a->retract || sl_agg_is_str(a) || !a->vt->merge ||
		    (a->vt->udf && !a->vt->udf->merge) || !strcmp(a->vt->name, "FIRST_VALUE") ||
		    !strcmp(a->vt->name, "LAST_VALUE"))
			return 0;
	}
	return 1;
}

sl_op *sl_op_window_local_new(const sl_window_agg_plan *p, const sl_type *in_types, int nin,
                              sl_err *err)
{
	if (p->phase != SL_WINPHASE_LOCAL || p->lateness > 0 || p->win.proc || p->having ||
	    !sl_window_aggs_mergeable(p)) {
		sl_err_set(err, SL_EPLAN, "internal error: a window aggregate that cannot be split "
		           "into two phases");
		return NULL;
	}
	sl_op *op = sl_op_window_agg_new(p, in_types, nin, err);
	if (op)
		op->vt = &local_vtab;
	return op;
}

int sl_window_local_out_types(const sl_window_agg_plan *p, const sl_type *in_types, sl_type *t)
{
	int n = 0;
	for (int i = 0; i < p->nkeys; i++)
		t[n++] = in_types[p->key_cols[i]];
	t[n] = sl_type_make(SL_T_BIGINT);
	t[n++].notnull = 1;
	t[n] = sl_type_make(SL_T_VARBINARY); /* BYTES */
	t[n].length = SL_STRING_LEN;
	t[n++].notnull = 1;
	t[n] = sl_type_make(SL_T_BIGINT); /* the key's sl_state_hash */
	t[n++].notnull = 1;
	return n;
}
