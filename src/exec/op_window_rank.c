/*
 * op_window_rank.c - window Top-N: ROW_NUMBER() OVER (PARTITION BY
 * window_start, window_end, k ORDER BY x) with WHERE rn <= N, over the rows
 * of a window TVF or the results of a window aggregate.  Final and
 * append-only: a window's top rows are emitted (+I, with rn 1..) once,
 * when the window closes.
 *
 * INTERFACE ROUTINES
 *   process    judges each row against the window it belongs to (its
 *              window_time + 1 ms is the window end): late when its own
 *              W_before >= end, or the window fired (dropped and counted);
 *              otherwise inserted into the sorted list of (window, key),
 *              keeping the best N (ties in arrival order, or the last
 *              arrival first with p->ties_last: Flink's window
 *              deduplication keeping the last row).
 *   watermark  fires every window with end <= W, in end order (within one
 *              window, keys in the state's scan order), frees its state and
 *              forwards W.  Windows fire at the operator's watermark only,
 *              never at a row's W_before (docs/parallel.md §4), so output
 *              does not depend on batch boundaries; rows carry W_before =
 *              end - 1 us (rule 6).
 *   snapshot   the watermark up to which windows fired.
 *
 * RANK() / DENSE_RANK() (a sluice extension): the list keeps every row
 * whose rank is <= N (peers of the last rank too) and the window emits
 * those in the rank range with their rank.
 *
 * State: table "win", namespace = window end (window_time + 1 ms), key =
 * encoded PARTITION BY key without the window columns, value = the sorted
 * list of op_rank.h (at most N entries, or N ranks).  The namespaces are
 * the operator's event-time timers (sl_ns_timers, timers.h): a window's
 * namespace fires once and is dropped.  Output rows go through an emitter
 * (emit.h).
 */
#include "op_rank.h"
#include "emit.h"
#include "graph.h"
#include "timers.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct wrank_op {
	sl_op base;
	sl_rank_plan p;
	int nin;
	sl_type *in_types;
	sl_state_table *win;
	sl_emitter out;    /* emit.h */
	sl_col **cols;
	sl_buf key, entry, list, old;
	sl_ns_timers tm;   /* the namespaces of "win" (timers.h); tm.fired: windows
	                    * with end <= tm.fired have fired */
	int64_t firing;    /* end of the window being fired */
} wrank_op;

static int flush(wrank_op *o, sl_err *err)
{
	return sl_emitter_flush(&o->out, err);
}

/* Emits one (window, key)'s list: +I rows ranked 1.. */
static int fire_entry(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                      sl_err *err)
{
	wrank_op *o = ctx;
	int n = sl__rank_list_count(val, vlen);
	const uint8_t *e = sl__rank_list_at(val, 0), *prev = NULL;
	int64_t rank = 0;
	for (int r = 0; r < n; r++, prev = e, e += sl__rank_entry_size(e)) {
		rank = sl__rank_value(&o->p, o->in_types, prev, e, r, rank);
		if (rank > o->p.n)
			break;
		if (rank < o->p.lo)
			continue; /* below the rank range's start */
		int row = sl_emitter_row(&o->out, SL_INSERT, o->firing - 1, err);
		if (row < 0)
			return row;
		if (sl__rank_decode_row(e, o->out.b, o->cols, o->nin, row))
			return sl_err_set(err, SL_ESTATE, "window Top-N state: malformed row");
		if (o->p.out_rn)
			sl_col_set_i64(&o->out.b->cols[o->nin], row, rank);
	}
	return 0;
}

/* Fires window `end` (a namespace timer, timers.h): its keys' lists. */
static int fire_window(void *ctx, int64_t end, sl_err *err)
{
	wrank_op *o = ctx;
	o->firing = end;
	return sl_state_ns_scan(o->win, end, fire_entry, o, err);
}

/* Fires every window with end <= wm, oldest first, and drops it. */
static int advance(wrank_op *o, int64_t wm, sl_err *err)
{
	int rc = sl_ns_timers_fire(&o->tm, wm, fire_window, o, err);
	return rc ? rc : flush(o, err);
}

static int wrank_row(wrank_op *o, const sl_batch *in, int row, sl_err *err)
{
	int rc;
	if (in->op[row] != SL_INSERT)
		return sl_err_set(err, SL_EINPUT, "window Top-N: the input must be append-only");
	const sl_col *tc = &in->cols[o->p.time_col];
	if (tc->null[row])
		return sl_err_set(err, SL_EINPUT, "window Top-N: NULL window_time");
	int64_t end = tc->v.i64[row] + 1000; /* window_time = end - 1 ms */
	if (in->wm[row] >= end || o->tm.fired >= end) {
		sl_op_late_dropped(&o->base, in, row); /* counted, kept for the metrics */
		return 0;
	}
	sl_buf_clear(&o->key);
	if (sl_rowcodec_key(in, o->p.key_cols, o->p.nkeys, row, &o->key) ||
	    sl__rank_entry(&o->p, in, row, &o->entry))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	const void *v = NULL;
	uint32_t vlen = 0;
	sl_buf_clear(&o->old);
	if (sl_state_get_var(o->win, end, o->key.p, (uint32_t)o->key.len, &v, &vlen) &&
	    sl_buf_append(&o->old, v, vlen))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	int pos;
	const uint8_t *ev;
	/* RANK / DENSE_RANK keep every row that still ranks within N (the
	 * peers of the last rank too): insert without a bound, then prune */
	sl_rank_plan all = o->p;
	if (o->p.fn != SL_RANKFN_ROW_NUMBER)
		all.n = INT64_MAX;
	if (sl__rank_list_insert(&all, o->in_types, o->old.p, (uint32_t)o->old.len,
	                         (const uint8_t *)o->entry.p, &o->list, &pos, &ev))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (pos < 0)
		return 0;
	if (o->p.fn != SL_RANKFN_ROW_NUMBER)
		o->list.len = sl__rank_prune(&o->p, o->in_types, o->list.p, (uint32_t)o->list.len);
	rc = sl_state_put_var(o->win, end, o->key.p, (uint32_t)o->key.len, o->list.p,
	                      (uint32_t)o->list.len);
	return rc ? sl_err_set(err, rc, "window Top-N: state write failed") : 0;
}

static int wrank_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	wrank_op *o = (wrank_op *)op;
	SL_BATCH_FOREACH(in, k, row) {
		int rc = wrank_row(o, in, row, err);
		if (rc)
			return rc;
	}
	return flush(o, err);
}

static int wrank_watermark(sl_op *op, int64_t wm, sl_err *err)
{
	int rc = advance((wrank_op *)op, wm, err);
	return rc ? rc : sl_op_emit_watermark(op, wm, err);
}

static int wrank_snapshot(sl_op *op, sl_snap_writer *w, sl_err *err)
{
	sl_snap_put_i64(w, ((wrank_op *)op)->tm.fired);
	return 0;
}

static int wrank_restore(sl_op *op, sl_snap_reader *r, sl_err *err)
{
	((wrank_op *)op)->tm.fired = sl_snap_get_i64(r);
	return sl_snap_reader_ok(r) ? 0 : sl_err_set(err, SL_ESTATE, "window Top-N state damaged");
}

static int wrank_open(sl_op *op, sl_err *err)
{
	wrank_op *o = (wrank_op *)op;
	if (!(o->win = sl_state_table_open(op->state, op->uid, "win", 0, err)))
		return err->code;
	sl_ns_timers_add(&o->tm, o->win);
	return sl__rank_open_out(op, &o->out, 0, &o->cols, o->nin, &o->key, err);
}

static void wrank_close(sl_op *op)
{
	wrank_op *o = (wrank_op *)op;
	sl_emitter_deinit(&o->out);
	free(o->cols);
	free(o->in_types);
	sl_buf_deinit(&o->key);
	sl_buf_deinit(&o->entry);
	sl_buf_deinit(&o->list);
	sl_buf_deinit(&o->old);
	sl__rank_plan_free(&o->p);
}

static const sl_op_vtab wrank_vtab = {
	.name = "WindowRank",
	.kind = SL_OPK_WINDOW_RANK,
	.flags = SL_OPF_STATE_WM,
	.open = wrank_open,
	.process = wrank_process,
	.watermark = wrank_watermark,
	.snapshot = wrank_snapshot,
	.restore = wrank_restore,
	.close = wrank_close,
};

sl_op *sl_op_window_rank_new(const sl_rank_plan *p, const sl_type *in_types, int nin,
                             sl_err *err)
{
	wrank_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &wrank_vtab;
	o->nin = nin;
	sl_ns_timers_init(&o->tm, 0);
	o->in_types = calloc((size_t)nin + 1, sizeof(sl_type));
	if (!o->in_types || sl__rank_plan_copy(&o->p, p)) {
		sl_op_free(&o->base); /* calls its close */
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	memcpy(o->in_types, in_types, sizeof(sl_type) * (size_t)nin);
	return &o->base;
}
