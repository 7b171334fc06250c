/*
 * op_session_assign.c - the SESSION window TVF read as a table: every row
 * with window_start, window_end and window_time of its session appended,
 * emitted when the session closes.
 *
 * INTERFACE ROUTINES
 *   process    a row late for sessions by its own W_before (ts + gap <=
 *              W_before) is dropped and counted; otherwise it merges into
 *              its partition's sessions (docs/semantics.md §1: [ts, ts +
 *              gap) merges with every open session it overlaps or touches;
 *              a session ends at its last event + gap) and waits in state.
 *              A row whose key has a session closed for it (end <=
 *              W_before) that has not fired yet, or rows waiting with a
 *              W_before at or below its own, or whose ts is at or below
 *              its W_before while W is below it, waits in "pending" until the
 *              watermark reaches its W_before (docs/watermarks.md,
 *              "Sessions"): it never joins a session closed for it, which
 *              rows of a split that is behind may still extend.
 *   watermark  in time order per key due, emits the rows of every session
 *              [s, e) with e <= W and applies the waiting rows with
 *              W_before <= W (sessions ending at or before a row's
 *              W_before first; docs/parallel.md §4, rule 4), each
 *              session's rows in arrival order, as +I with window_start = s,
 *              window_end = e, window_time = e - 1 ms (a time attribute: the
 *              rows carry W_before = e - 1 us, rule 6, below e);
 *              then forwards W.  The output is append-only.
 *   snapshot   the watermark acted on.
 *
 * A session's rows cannot be emitted before it closes: a later row may
 * still extend it (or bridge it with the next one) and change its end, as
 * in Flink, where the SESSION table function's rows come out when the
 * session window fires.
 *
 * State.  "sessions": namespace 0, key = encoded PARTITION BY key (empty
 * without one), value = the key's open sessions, [start, end] int64 pairs
 * sorted by start.  "rows": same key, value = the key's pending rows in
 * arrival order, each [i64 ts][u32 len][every input column in the row
 * form of rowcodec.h]; a session's rows are exactly the key's rows with ts in
 * [start, end) (open sessions of a key do not overlap, since a row that
 * would touch a session closed for it waits).  "pending": same key, value
 * = the key's waiting rows in (W_before, arrival) order, each [i64
 * W_before][i64 ts][u32 len][row form].  "timers" (keyed timers,
 * timers.h): namespace = a session end or a waiting row's W_before, key =
 * the partition key; a stale timer (the session grew) costs a lookup.  Output rows go through
 * an emitter (emit.h).  Appending a row rewrites its key's row
 * list: cost per row grows with the rows its key has pending (open
 * sessions).  One thread; no malloc per row (reused buffers).
 */
#include "emit.h"
#include "graph.h"
#include "ops.h"
#include "timers.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct span {
	int64_t start, end;
} span;

typedef struct sassign_op {
	sl_op base;
	sl_window_spec w;
	int nin;
	int *key_cols, nkeys;
	int *all_cols;
	sl_state_table *sess, *rows, *pend;
	sl_timers timers; /* timers.h: table "timers" */
	sl_emitter out;  /* emit.h */
	sl_col **cols;
	sl_buf key, list, rlist, plist, enc;
	int64_t wm;
} sassign_op;

static int flush(sassign_op *o, sl_err *err)
{
	return sl_emitter_flush(&o->out, err);
}

static int load(sl_state_table *t, const sl_buf *key, sl_buf *out)
{
	const void *v;
	uint32_t vl;
	sl_buf_clear(out);
	if (sl_state_get_var(t, 0, key->p, (uint32_t)key->len, &v, &vl))
		return sl_buf_append(out, v, vl);
	return 0;
}

static int store(sl_state_table *t, const sl_buf *key, const sl_buf *val)
{
	if (val->len == 0) {
		sl_state_delete(t, 0, key->p, (uint32_t)key->len);
		return 0;
	}
	return sl_state_put_var(t, 0, key->p, (uint32_t)key->len, val->p, (uint32_t)val->len);
}

/* Emits one stored row (bytes r, n) with the session's window columns. */
static int emit_row(sassign_op *o, const char *r, uint32_t n, const span *s, sl_err *err)
{
	int row = sl_emitter_row(&o->out, SL_INSERT, s->end - 1, err); /* rule 6 */
	if (row < 0)
		return row;
	sl_batch *b = o->out.b;
	if (sl_rowcodec_decode(r, n, b, o->cols, o->nin, row) < 0)
		return sl_err_set(err, SL_ESTATE, "session table function: malformed stored row");
	sl_col_set_i64(&b->cols[o->nin], row, sl_win_to_local(o->w.tz, s->start));
	sl_col_set_i64(&b->cols[o->nin + 1], row, sl_win_to_local(o->w.tz, s->end));
	sl_col_set_i64(&b->cols[o->nin + 2], row, s->end - 1000);
	return 0;
}

/* Emits the rows of span sp (the loaded key's session [start, end), which
 * W closed) from rlist and removes them. */
static int emit_span(sassign_op *o, const span *sp, sl_err *err)
{
	size_t at = 0, kept = 0;
	int rc;
	while (at < o->rlist.len) {
		int64_t ts;
		uint32_t len;
		memcpy(&ts, o->rlist.p + at, 8);
		memcpy(&len, o->rlist.p + at + 8, 4);
		size_t sz = 12 + (size_t)len;
		if (ts >= sp->start && ts < sp->end) {
			if ((rc = emit_row(o, o->rlist.p + at + 12, len, sp, err)))
				return rc;
		} else {
			memmove(o->rlist.p + kept, o->rlist.p + at, sz);
			kept += sz;
		}
		at += sz;
	}
	o->rlist.len = kept;
	return 0;
}

/* Merges [ts, ts + gap) into the loaded key's sessions (list) and appends
 * the row (ts, its len bytes of row form) to its rows (rlist); the caller
 * stores both.  Every session the row touches is open for it: a row that
 * would touch one closed for it waits in "pending" until it has fired
 * (sassign_process), so the sessions of a key never overlap. */
static int add_row(sassign_op *o, int64_t ts, const void *row, uint32_t len, sl_err *err)
{
	span m = {ts, ts + o->w.size};
	int n = (int)(o->list.len / sizeof(span)), keep = 0;
	span *sp = (span *)o->list.p;
	for (int i = 0; i < n; i++) {
		if (sp[i].start <= m.end && m.start <= sp[i].end) { /* overlaps or touches */
			if (sp[i].start < m.start)
				m.start = sp[i].start;
			if (sp[i].end > m.end)
				m.end = sp[i].end;
			continue;
		}
		sp[keep++] = sp[i];
	}
	int pos = 0;
	while (pos < keep && sp[pos].start < m.start)
		pos++;
	o->list.len = (size_t)keep * sizeof(span);
	if (sl_buf_append(&o->list, &m, sizeof(span)))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	sp = (span *)o->list.p;
	memmove(sp + pos + 1, sp + pos, sizeof(span) * (size_t)(keep - pos));
	sp[pos] = m;
	if (sl_buf_append(&o->rlist, &ts, 8) || sl_buf_append(&o->rlist, &len, 4) ||
	    sl_buf_append(&o->rlist, row, len))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return sl_timers_set(&o->timers, m.end, o->key.p, (uint32_t)o->key.len, err);
}

/* The W_before of the loaded key's first pending row, INT64_MAX if none. */
static int64_t first_pending(const sassign_op *o)
{
	int64_t w = INT64_MAX;
	if (o->plist.len >= 20)
		memcpy(&w, o->plist.p, 8);
	return w;
}

static int load_pending(sassign_op *o)
{
	sl_buf_clear(&o->plist);
	return sl_state_count(o->pend) ? load(o->pend, &o->key, &o->plist) : 0;
}

/* Settles the loaded key (list loaded) at W: in time order, emits every
 * session with end <= W and applies every pending row with W_before <= W
 * (a session ending at or before a row's W_before first: it is closed for
 * the row), as if the watermark had reached each of those times in turn;
 * re-arms the key's timers. */
static int settle_key(sassign_op *o, int64_t w, sl_err *err)
{
	int rc;
	if (load(o->rows, &o->key, &o->rlist) || load_pending(o))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	int had_pending = o->plist.len > 0;
	for (;;) {
		int n = (int)(o->list.len / sizeof(span)), first = -1;
		span *sp = (span *)o->list.p;
		for (int i = 0; i < n; i++)
			if (sp[i].end <= w && (first < 0 || sp[i].end < sp[first].end))
				first = i;
		int64_t pw = first_pending(o);
		if (pw > w)
			pw = INT64_MAX;
		if (first < 0 && pw == INT64_MAX)
			break;
		if (first >= 0 && sp[first].end <= pw) {
			span s = sp[first];
			memmove(sp + first, sp + first + 1, sizeof(span) * (size_t)(n - first - 1));
			o->list.len -= sizeof(span);
			if ((rc = emit_span(o, &s, err)))
				return rc;
			continue;
		}
		/* the first pending row: [w][ts][len][row] */
		int64_t ts;
		uint32_t len;
		memcpy(&ts, o->plist.p + 8, 8);
		memcpy(&len, o->plist.p + 16, 4);
		size_t sz = 20 + (size_t)len;
		if (o->plist.len < sz)
			return sl_err_set(err, SL_ESTATE, "session table function: malformed pending row");
		if ((rc = add_row(o, ts, o->plist.p + 20, len, err)))
			return rc;
		memmove(o->plist.p, o->plist.p + sz, o->plist.len - sz);
		o->plist.len -= sz;
	}
	const span *sp = (const span *)o->list.p;
	for (size_t i = 0; i < o->list.len / sizeof(span); i++)
		if ((rc = sl_timers_set(&o->timers, sp[i].end, o->key.p, (uint32_t)o->key.len, err)))
			return rc;
	if (o->plist.len && (rc = sl_timers_set(&o->timers, first_pending(o), o->key.p,
	                                        (uint32_t)o->key.len, err)))
		return rc;
	if (store(o->sess, &o->key, &o->list) || store(o->rows, &o->key, &o->rlist) ||
	    (had_pending && store(o->pend, &o->key, &o->plist)))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

typedef struct fire_ctx {
	sassign_op *o;
	int64_t w;
} fire_ctx;

/* A due timer (timers.h): settles its key at W. */
static int fire_key(void *ctx, int64_t ts, const void *key, uint32_t klen, sl_err *err)
{
	fire_ctx *f = ctx;
	sassign_op *o = f->o;
	(void)ts;
	sl_buf_clear(&o->key);
	if (sl_buf_reserve(&o->key, 16) || sl_buf_append(&o->key, key, klen) ||
	    load(o->sess, &o->key, &o->list))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return settle_key(o, f->w, err);
}

/* Fires every timer <= w: the sessions W closed, the rows it released. */
static int advance(sassign_op *o, int64_t w, sl_err *err)
{
	fire_ctx f = {o, w};
	int rc = sl_timers_fire(&o->timers, w, fire_key, &f, err);
	if (rc)
		return rc;
	if (w > o->wm)
		o->wm = w;
	return flush(o, err);
}

/* 1 when a session of the loaded key ends at or before w. */
static int closed_for(const sassign_op *o, int64_t w)
{
	const span *sp = (const span *)o->list.p;
	for (size_t i = 0; i < o->list.len / sizeof(span); i++)
		if (sp[i].end <= w)
			return 1;
	return 0;
}

/* Keeps the row encoded in enc ([ts][len][row]), judged by w, in the
 * loaded key's pending rows after those with W_before <= w (so in
 * (W_before, arrival) order), and arms the key's timer at w. */
static int keep_pending(sassign_op *o, int64_t w, sl_err *err)
{
	size_t at = 0;
	while (at < o->plist.len) {
		int64_t pw;
		uint32_t len;
		memcpy(&pw, o->plist.p + at, 8);
		memcpy(&len, o->plist.p + at + 16, 4);
		if (pw > w)
			break;
		at += 20 + (size_t)len;
	}
	size_t sz = 8 + o->enc.len, tail = o->plist.len - at;
	if (sl_buf_reserve(&o->plist, sz))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	char *b = o->plist.p;
	memmove(b + at + sz, b + at, tail);
	memcpy(b + at, &w, 8);
	memcpy(b + at + 8, o->enc.p, o->enc.len);
	o->plist.len += sz;
	if (store(o->pend, &o->key, &o->plist))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return sl_timers_set(&o->timers, w, o->key.p, (uint32_t)o->key.len, err);
}

static int sassign_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	(void)input;
	sassign_op *o = (sassign_op *)op;
	const sl_col *tc = &in->cols[o->w.time_col];
	int rc;
	SL_BATCH_FOREACH(in, k, row) {
		if (in->op[row] != SL_INSERT)
			return sl_err_set(err, SL_EINPUT, "SESSION window TVF: the input must be append-only");
		if (tc->null[row])
			return sl_err_set(err, SL_EINPUT, "session window: NULL rowtime");
		int64_t ts = tc->v.i64[row];
		/* judged by its own W_before (rule 3; the fired watermark when
		 * larger: idle inputs) */
		int64_t w = in->wm[row] > o->wm ? in->wm[row] : o->wm;
		if (ts + o->w.size <= w) {
			sl_op_late_dropped(op, in, row); /* counted, kept for the metrics */
			continue;
		}
		sl_buf_clear(&o->key);
		if (sl_buf_reserve(&o->key, 16) ||
		    sl_rowcodec_key(in, o->key_cols, o->nkeys, row, &o->key) ||
		    load(o->sess, &o->key, &o->list) || load_pending(o))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		/* [ts][len][row] */
		sl_buf_clear(&o->enc);
		uint32_t len = 0;
		if (sl_buf_append(&o->enc, &ts, 8) || sl_buf_append(&o->enc, &len, 4) ||
		    sl_rowcodec_cols(in, o->all_cols, o->nin, row, &o->enc))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		len = (uint32_t)(o->enc.len - 12);
		memcpy(o->enc.p + 8, &len, 4);
		/* a session of its key closed for the row (end <= w) that has not
		 * fired yet (it fires at the operator's watermark only, rule 4),
		 * or an earlier pending row: the row waits, so it never joins a
		 * session closed for it and follows the rows before it; and so
		 * does a row with ts <= w while the operator's watermark is below
		 * w: a split that is behind may still open a session ending at or
		 * before w that touches the row's (session_tie.slt) */
		if (first_pending(o) <= w || closed_for(o, w) || (ts <= w && w > o->wm)) {
			if ((rc = keep_pending(o, w, err)))
				return rc;
			continue;
		}
		if (load(o->rows, &o->key, &o->rlist))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		if ((rc = add_row(o, ts, o->enc.p + 12, len, err)))
			return rc;
		if (store(o->sess, &o->key, &o->list) || store(o->rows, &o->key, &o->rlist))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	return flush(o, err);
}

static int sassign_watermark(sl_op *op, int64_t wm, sl_err *err)
{
	int rc = advance((sassign_op *)op, wm, err);
	return rc ? rc : sl_op_emit_watermark(op, wm, err);
}

static int sassign_snapshot(sl_op *op, sl_snap_writer *w, sl_err *err)
{
	(void)err;
	sl_snap_put_i64(w, ((sassign_op *)op)->wm);
	return 0;
}

static int sassign_restore(sl_op *op, sl_snap_reader *r, sl_err *err)
{
	((sassign_op *)op)->wm = sl_snap_get_i64(r);
	return sl_snap_reader_ok(r) ? 0 : sl_err_set(err, SL_ESTATE, "session table function state damaged");
}

static int sassign_open(sl_op *op, sl_err *err)
{
	sassign_op *o = (sassign_op *)op;
	if (!(o->sess = sl_state_table_open(op->state, op->uid, "sessions", 0, err)) ||
	    !(o->rows = sl_state_table_open(op->state, op->uid, "rows", 0, err)) ||
	    !(o->pend = sl_state_table_open(op->state, op->uid, "pending", 0, err)) ||
	    sl_timers_open(&o->timers, op, "timers", err))
		return err->code;
	if (sl_emitter_init(&o->out, op, 0, err))
		return err->code;
	o->cols = calloc((size_t)o->nin + 1, sizeof(sl_col *));
	if (!o->cols)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < o->nin; i++)
		o->cols[i] = &o->out.b->cols[i];
	return 0;
}

static void sassign_close(sl_op *op)
{
	sassign_op *o = (sassign_op *)op;
	sl_emitter_deinit(&o->out);
	free(o->cols);
	free(o->key_cols);
	free(o->all_cols);
	sl_buf_deinit(&o->key);
	sl_buf_deinit(&o->list);
	sl_buf_deinit(&o->rlist);
	sl_buf_deinit(&o->plist);
	sl_timers_deinit(&o->timers);
	sl_buf_deinit(&o->enc);
}

static const sl_op_vtab sassign_vtab = {
	.name = "SessionWindowTableFunction",
	.kind = SL_OPK_SESSION_ASSIGN,
	/* No SL_OPF_STATE_WM although the watermark frees its state (rows of
	 * open sessions): EXPLAIN has never printed a state bound for a window
	 * TVF, and the flag would add one. */
	.open = sassign_open,
	.process = sassign_process,
	.watermark = sassign_watermark,
	.snapshot = sassign_snapshot,
	.restore = sassign_restore,
	.close = sassign_close,
};

/*
 * sl_op_session_assign_new: the SESSION window TVF w (kind SL_WIN_SESSION,
 * gap in w->size) over nin input columns, partitioned by key_cols[0..nkeys)
 * (copied; none: one partition).  Output (set by sl_graph_add): the input
 * columns, window_start, window_end, window_time.  Returns the operator or
 * NULL with err set (SL_ENOMEM).
 */
sl_op *sl_op_session_assign_new(const sl_window_spec *w, int nin, const int *key_cols, int nkeys,
                                sl_err *err)
{
	sassign_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &sassign_vtab;
	o->w = *w;
	o->nin = nin;
	o->nkeys = nkeys;
	o->wm = SL_WM_MIN;
	o->key_cols = calloc((size_t)nkeys + 1, sizeof(int));
	o->all_cols = calloc((size_t)nin + 1, sizeof(int));
	if (!o->key_cols || !o->all_cols) {
		sl_op_free(&o->base); /* calls its close */
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	if (nkeys)
		memcpy(o->key_cols, key_cols, sizeof(int) * (size_t)nkeys);
	for (int i = 0; i < nin; i++)
		o->all_cols[i] = i;
	return &o->base;
}
