/*
 * op_window_assign.c - a window TVF read as a table: each row is repeated
 * once per window it belongs to, with window_start, window_end and
 * window_time appended (TUMBLE: once; HOP: size / slide times; CUMULATE:
 * once per step window containing it).
 *
 * INTERFACE ROUTINES
 *   process    expands each row into its windows; a row is dropped for a
 *              window it is late for (W_before >= window end) and counted
 *              once as late when it is late for all of them, as Flink's
 *              window table function drops late elements
 *   watermark  forwarded unchanged: window_time = end - 1 ms of an on-time
 *              window is at or above W_before, so it stays a time attribute
 *
 * Stateless (the watermark lives in the graph's snapshot).
 */
#include "graph.h"
#include "ops.h"
#include "sluice.h"
#include "../base/timeutil.h"

#include <stdlib.h>
#include <string.h>

#define MAX_WINDOWS 1024

typedef struct assign_op {
	sl_op base;
	sl_window_spec w;
	int nin;
	sl_batch *out;
} assign_op;

static int windows_of(const sl_window_spec *w, int64_t ts, int64_t *starts, int64_t *ends)
{
	int n = 0;
	if (w->kind == SL_WIN_TUMBLE) {
		starts[0] = sl_floordiv(ts - w->offset, w->size) * w->size + w->offset;
		ends[0] = starts[0] + w->size;
		return 1;
	}
	if (w->kind == SL_WIN_HOP) {
		int64_t last = sl_floordiv(ts - w->offset, w->slide) * w->slide + w->offset;
		int64_t first = last;
		while (first - w->slide > ts - w->size)
			first -= w->slide;
		for (int64_t s = first; s <= last && n < MAX_WINDOWS; s += w->slide, n++) {
			starts[n] = s;
			ends[n] = s + w->size;
		}
		return n;
	}
	int64_t ws = sl_floordiv(ts - w->offset, w->size) * w->size + w->offset;
	for (int64_t e = ws + w->slide; e <= ws + w->size && n < MAX_WINDOWS; e += w->slide)
		if (ts < e) {
			starts[n] = ws;
			ends[n++] = e;
		}
	return n;
}

static int assign_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	assign_op *o = (assign_op *)op;
	sl_batch *out = o->out;
	const sl_col *tc = &in->cols[o->w.time_col];
	int64_t starts[MAX_WINDOWS], ends[MAX_WINDOWS];
	int rc;
	SL_BATCH_FOREACH(in, k, row) {
		if (tc->null[row])
			return sl_err_set(err, SL_EINPUT, "window table function: NULL rowtime");
		int64_t ts = sl_win_to_local(o->w.tz, tc->v.i64[row]);
		int n = windows_of(&o->w, ts, starts, ends), emitted = 0;
		for (int i = 0; i < n; i++) {
			int64_t uend = sl_win_to_utc(o->w.tz, ends[i]);
			if (in->wm[row] >= uend)
				continue; /* late for this window */
			if (out->nrows == out->cap) {
				rc = sl_op_emit(op, out, err);
				sl_batch_reset(out);
				if (rc)
					return rc;
			}
			int r = out->nrows++;
			out->op[r] = in->op[row];
			out->wm[r] = in->wm[row];
			for (int c = 0; c < o->nin; c++)
				if (sl_col_copy_value(out, &out->cols[c], r, &in->cols[c], row))
					return sl_err_set(err, SL_ENOMEM, "out of memory");
			sl_col_set_i64(&out->cols[o->nin], r, starts[i]);
			sl_col_set_i64(&out->cols[o->nin + 1], r, ends[i]);
			sl_col_set_i64(&out->cols[o->nin + 2], r, uend - 1000);
			emitted = 1;
		}
		if (!emitted)
			sl_op_late_dropped(op, in, row); /* counted, kept for the metrics */
	}
	rc = sl_op_emit(op, out, err);
	sl_batch_reset(out);
	return rc;
}

static int assign_open(sl_op *op, sl_err *err)
{
	assign_op *o = (assign_op *)op;
	o->out = sl_batch_new(op->nout, op->out_types, 0);
	return o->out ? 0 : sl_err_set(err, SL_ENOMEM, "out of memory");
}

static void assign_close(sl_op *op)
{
	sl_batch_free(((assign_op *)op)->out);
}

static const sl_op_vtab assign_vtab = {
	.name = "WindowTableFunction",
	.kind = SL_OPK_WINDOW_ASSIGN,
	.open = assign_open,
	.process = assign_process,
	.close = assign_close,
};

sl_op *sl_op_window_assign_new(const sl_window_spec *w, int nin, sl_err *err)
{
	if (w->kind == SL_WIN_SESSION) {
		sl_err_set(err, SL_ENOTSUP, "the SESSION window TVF is only supported under GROUP BY");
		return NULL;
	}
	assign_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &assign_vtab;
	o->w = *w;
	o->nin = nin;
	return &o->base;
}
