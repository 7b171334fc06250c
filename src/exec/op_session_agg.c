/*
 * op_session_agg.c - SESSION window aggregation, on event or processing time.
 *
 * INTERFACE ROUTINES
 *   process    merges each row into its key's sessions, or judges it late
 *   watermark  fires the sessions that W closed, frees state past
 *              end + lateness, forwards W
 *
 * Semantics (docs/semantics.md §1).  A row opens [ts, ts + gap); it merges with
 * every open session of its key that it overlaps or touches, and the merged
 * session ends at last event + gap.  A session [s, e) closes when W >= e.
 * Sessions fire at the operator's watermark W only (the minimum over its
 * inputs), never at a row's W_before; a row is judged by its own W_before
 * (docs/parallel.md §4; w below: W_before, or W when larger, which only
 * idle inputs cause).  A row is late for sessions when ts + gap <= w;
 * non-late rows merge only with sessions open for them (end > w).  Without
 * ALLOWED LATENESS a late row follows the ON LATE policy.  With lateness L,
 * closed sessions keep their state until W >= e + L, and a late row with
 * ts + gap + L > w merges with the sessions it overlaps or touches that
 * are not past the lateness for it (e + L > w): every emitted session it
 * extends or bridges is retracted (-D), and the merged session is emitted
 * (+I) at once if it is closed for the row, or when it closes.  Fired
 * sessions carry W_before = end - 1 us, corrections the row's W_before
 * (rule 6).
 *
 * Pending rows (docs/watermarks.md, "Sessions").  A row takes effect as if
 * W had reached w just before it: every session ending at or before w has
 * fired.  When that is not so yet, the row waits in "pending": a late row
 * while W < w, a row on time whose key has a session closed for it that
 * has not fired, a row on time with ts <= w while W < w (a split that is
 * behind may still close a session for it), and any row behind its key's
 * waiting rows with W_before <= w.  Settling a key at W (a due timer) fires its sessions and applies
 * its waiting rows in time order, a session ending at or before a row's
 * W_before first.  So results do not depend on batch boundaries nor on
 * how far the other inputs (splits) have got, except for the order in
 * which late rows of equal W_before correct (docs/watermarks.md says
 * which).
 *
 * Processing time (sl_window_spec.proc): a row's time is the job's clock
 * when it arrives, the clock plays W's part (the proctime method fires
 * sessions as it moves), watermarks are only forwarded, nothing is late,
 * and sessions open at end of input are not fired (as Flink).
 *
 * State.  Table "sess" (variable-length values), namespace 0, key = group
 * key: the key's sessions, sorted by start, each [start, end, flags,
 * accumulators].  Table "pending" (event time only), namespace 0, key =
 * group key: the key's waiting rows in (W_before, arrival) order, each
 * [i64 W_before][u32 len][the input row in rowcodec's row form].  Table
 * "timers" (keyed timers, timers.h): namespace = the time a key needs
 * attention (a session end, end + L for cleanup, a waiting row's
 * W_before), key = group key.  Timers may be stale (a session grew); handling a key
 * re-derives everything from its sessions, so a stale timer costs a lookup
 * and nothing else.  Output rows go through an emitter (emit.h).
 */
#include "emit.h"
#include "graph.h"
#include "ops.h"
#include "timers.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

#define F_FIRED 1   /* closed and handled at close */
#define F_VISIBLE 2 /* its result row is currently emitted */

typedef struct sess {
	int64_t start, end;
	int32_t flags;
	int32_t pad;
	int64_t pad2;
	/* accumulators follow (16-byte aligned) */
} sess;

typedef struct sess_op {
	sl_op base;
	sl_window_agg_plan p;
	int *key_cols;
	sl_agg *aggs;
	uint32_t acc_size, rec_size;
	sl_prog *having;
	sl_state_table *sess;
	sl_timers timers;   /* timers.h: table "timers" */
	sl_emitter out;     /* emit.h */
	sl_batch *tmp, *late;
	sl_type *late_types;
	sl_buf key;
	sl_buf list;        /* a key's sessions being edited */
	int64_t wm;         /* watermark seen */
	/* event time only: table "pending" (rows waiting for their W_before,
	 * below), plist the loaded key's, prow decodes one of them */
	sl_state_table *pending;
	sl_buf plist;
	sl_batch *prow;
	sl_type *in_types;
	int nin;
} sess_op;

static sess *rec(sess_op *o, sl_buf *b, int i)
{
	return (sess *)(b->p + (size_t)i * o->rec_size);
}

static int nrec(sess_op *o, const sl_buf *b)
{
	return (int)(b->len / o->rec_size);
}

/* ---- output ------------------------------------------------------------- */

/* Builds the result row of session s into b; returns its index. */
static int build_row(sess_op *o, sl_batch *b, const sess *s, uint8_t op, sl_err *err)
{
	int row = sl_batch_add_row(b, op, o->base.out_wm);
	sl_col *kc[64];
	int nk = o->p.nkeys;
	for (int i = 0; i < nk; i++)
		kc[i] = &b->cols[i];
	if (sl_rowcodec_decode(o->key.p, (uint32_t)o->key.len, b, kc, nk, row) < 0)
		return sl_err_set(err, SL_ESTATE, "session state: malformed key");
	sl_col_set_i64(&b->cols[nk], row, sl_win_to_local(o->p.win.tz, s->start));
	sl_col_set_i64(&b->cols[nk + 1], row, sl_win_to_local(o->p.win.tz, s->end));
	sl_col_set_i64(&b->cols[nk + 2], row, s->end - 1000);
	for (int i = 0; i < o->p.naggs; i++) {
		int rc = o->aggs[i].vt->result(&o->aggs[i], (const char *)(s + 1) + o->aggs[i].offset,
		                               &b->cols[nk + 3 + i], row, err);
		if (rc)
			return rc;
	}
	return row;
}

/* Emits s with kind op if it passes HAVING (for +I) / was visible (for -D),
 * with W_before wm (docs/parallel.md §4, rule 6: end - 1 us when the
 * session fires, the late row's W_before for its corrections). */
static int emit_one(sess_op *o, sess *s, uint8_t op, int64_t wm, sl_err *err)
{
	if (op == SL_DELETE && !(s->flags & F_VISIBLE))
		return 0;
	sl_batch *t = o->tmp;
	sl_batch_reset(t);
	int r = build_row(o, t, s, op, err);
	if (r < 0)
		return r;
	if (op == SL_INSERT) {
		if (o->having) {
			int rc = sl_prog_filter(o->having, t, &o->base.graph->ectx, err);
			if (rc)
				return rc;
			int pass = sl_batch_live(t) == 1;
			t->sel = NULL;
			if (!pass)
				return 0;
		}
		s->flags |= F_VISIBLE;
	} else {
		s->flags &= ~F_VISIBLE;
	}
	int rc = sl_emitter_copy_row(&o->out, t, 0, op, wm, err);
	return rc < 0 ? rc : 0;
}

static int flush_out(sess_op *o, sl_err *err)
{
	return sl_emitter_flush(&o->out, err);
}

/* ---- state helpers ------------------------------------------------------ */

static int load(sess_op *o)
{
	const void *v;
	uint32_t vl;
	sl_buf_clear(&o->list);
	if (sl_state_get_var(o->sess, 0, o->key.p, (uint32_t)o->key.len, &v, &vl))
		return sl_buf_append(&o->list, v, vl);
	return 0;
}

static int store(sess_op *o)
{
	if (o->list.len == 0) {
		sl_state_delete(o->sess, 0, o->key.p, (uint32_t)o->key.len);
		return 0;
	}
	return sl_state_put_var(o->sess, 0, o->key.p, (uint32_t)o->key.len, o->list.p,
	                        (uint32_t)o->list.len);
}

static int add_timer(sess_op *o, int64_t t, sl_err *err)
{
	return sl_timers_set(&o->timers, t, o->key.p, (uint32_t)o->key.len, err);
}

static int merge_row(sess_op *o, const sl_batch *in, int row, int64_t ts, int late, int64_t w,
                     sl_err *err);

/* Loads the current key's pending rows into plist (empty when none). */
static int load_pending(sess_op *o)
{
	const void *v;
	uint32_t vl;
	sl_buf_clear(&o->plist);
	if (o->pending && sl_state_count(o->pending) &&
	    sl_state_get_var(o->pending, 0, o->key.p, (uint32_t)o->key.len, &v, &vl))
		return sl_buf_append(&o->plist, v, vl);
	return 0;
}

static int store_pending(sess_op *o)
{
	if (o->plist.len == 0) {
		if (sl_state_count(o->pending))
			sl_state_delete(o->pending, 0, o->key.p, (uint32_t)o->key.len);
		return 0;
	}
	return sl_state_put_var(o->pending, 0, o->key.p, (uint32_t)o->key.len, o->plist.p,
	                        (uint32_t)o->plist.len);
}

/* The W_before of the loaded key's first pending row, INT64_MAX if none. */
static int64_t first_pending(const sess_op *o)
{
	int64_t w = INT64_MAX;
	if (o->plist.len >= 12)
		memcpy(&w, o->plist.p, 8);
	return w;
}

/* 1 when a row on time at ts judged by w must wait in "pending"
 * (docs/parallel.md §4, rule 4; docs/watermarks.md, "Sessions"): the
 * loaded key has a session closed for it (end <= w) that has not fired
 * here yet, or a pending row at or before w, which it must follow; or
 * ts <= w while the operator's watermark is below w: a row of a split
 * that is behind (W_before < w) may still open a session that ends at or
 * before w and touches [ts, ts + gap), which is closed for this row in
 * W_before order (session_tie.slt; before, the result depended on which
 * split's row arrived first). */
static int must_wait(sess_op *o, int64_t ts, int64_t w)
{
	if (first_pending(o) <= w || (ts <= w && w > o->wm))
		return 1;
	for (int i = 0, n = nrec(o, &o->list); i < n; i++) {
		const sess *s = rec(o, &o->list, i);
		if (s->end <= w && !(s->flags & F_FIRED))
			return 1;
	}
	return 0;
}

/* Keeps row `row` of in, judged by w, in the loaded key's pending rows,
 * after those with W_before <= w (so in (W_before, arrival) order), and
 * arms the key's timer at w. */
static int keep_pending(sess_op *o, const sl_batch *in, int row, int64_t w, sl_err *err)
{
	size_t at = 0;
	while (at < o->plist.len) {
		int64_t pw;
		uint32_t len;
		memcpy(&pw, o->plist.p + at, 8);
		memcpy(&len, o->plist.p + at + 8, 4);
		if (pw > w)
			break;
		at += 12 + (size_t)len;
	}
	size_t tail = o->plist.len - at, old = o->plist.len;
	uint32_t len = 0;
	if (sl_buf_append(&o->plist, &w, 8) || sl_buf_append(&o->plist, &len, 4) ||
	    sl_rowcodec_row(in, row, &o->plist))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	size_t sz = o->plist.len - old;
	len = (uint32_t)(sz - 12);
	memcpy(o->plist.p + old + 8, &len, 4);
	if (tail) { /* rotate the new entry in front of the tail */
		if (sl_buf_reserve(&o->plist, sz))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		char *b = o->plist.p;
		memcpy(b + o->plist.len, b + old, sz);
		memmove(b + at + sz, b + at, tail);
		memcpy(b + at, b + o->plist.len, sz);
	}
	if (store_pending(o))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return add_timer(o, w, err);
}

/* Applies the loaded key's first pending row, judged by its W_before,
 * and removes it from plist. */
static int apply_first_pending(sess_op *o, sl_err *err)
{
	int64_t pw;
	uint32_t len;
	memcpy(&pw, o->plist.p, 8);
	memcpy(&len, o->plist.p + 8, 4);
	if (o->plist.len < 12 + (size_t)len)
		return sl_err_set(err, SL_ESTATE, "session state: malformed pending row");
	sl_batch *b = o->prow;
	sl_batch_reset(b);
	int r = sl_batch_add_row(b, SL_INSERT, pw);
	int rc = sl_rowcodec_decode_cols(o->plist.p + 12, len, b, b->cols, b->ncols, r);
	if (rc)
		return rc == SL_ENOMEM ? sl_err_set(err, rc, "out of memory")
		                       : sl_err_set(err, SL_ESTATE, "session state: malformed pending row");
	size_t sz = 12 + (size_t)len;
	memmove(o->plist.p, o->plist.p + sz, o->plist.len - sz);
	o->plist.len -= sz;
	const sl_col *tc = &b->cols[o->p.win.time_col];
	int64_t ts = tc->v.i64[r];
	return merge_row(o, b, r, ts, ts + o->p.win.size <= pw, pw, err);
}

/* Settles the loaded key at W: in time order, fires every session with
 * end <= W and applies every pending row with W_before <= W (a session
 * ending at or before a row's W_before first: it is closed for the row),
 * as if the watermark had reached each of those times in turn; then drops
 * what is past lateness and re-arms the key's timers. */
static int settle_key(sess_op *o, int64_t w, sl_err *err)
{
	int rc;
	if ((rc = load_pending(o)))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	int had_pending = o->plist.len > 0;
	for (;;) {
		int64_t e = INT64_MAX, pw = first_pending(o);
		int n = nrec(o, &o->list);
		for (int i = 0; i < n; i++) {
			const sess *s = rec(o, &o->list, i);
			if (!(s->flags & F_FIRED) && s->end <= w && s->end < e)
				e = s->end;
		}
		if (pw > w)
			pw = INT64_MAX;
		if (e == INT64_MAX && pw == INT64_MAX)
			break;
		if (e <= pw) {
			for (int i = 0; i < n; i++) {
				sess *s = rec(o, &o->list, i);
				if (s->end == e && !(s->flags & F_FIRED)) {
					s->flags |= F_FIRED;
					if ((rc = emit_one(o, s, SL_INSERT, s->end - 1, err)))
						return rc;
				}
			}
			continue;
		}
		if ((rc = apply_first_pending(o, err)))
			return rc;
	}
	int n = nrec(o, &o->list), keep = 0;
	for (int i = 0; i < n; i++) {
		sess *s = rec(o, &o->list, i);
		int expired = s->end <= w && (o->p.lateness == 0 || s->end <= w - o->p.lateness);
		if (expired)
			continue;
		if (keep != i)
			memmove(rec(o, &o->list, keep), s, o->rec_size);
		s = rec(o, &o->list, keep++);
		if ((rc = add_timer(o, (s->flags & F_FIRED) ? s->end + o->p.lateness : s->end, err)))
			return rc;
	}
	o->list.len = (size_t)keep * o->rec_size;
	if (o->plist.len && (rc = add_timer(o, first_pending(o), err)))
		return rc;
	if (store(o) || (had_pending && store_pending(o)))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

typedef struct fire_ctx {
	sess_op *o;
	int64_t w;
} fire_ctx;

/* A due timer (timers.h): settles its key's sessions at W. */
static int fire_key(void *ctx, int64_t ts, const void *key, uint32_t klen, sl_err *err)
{
	fire_ctx *f = ctx;
	sess_op *o = f->o;
	(void)ts;
	sl_buf_clear(&o->key);
	sl_buf_append(&o->key, key, klen);
	int rc;
	if ((rc = load(o)) || (rc = settle_key(o, f->w, err)))
		return rc < 0 ? rc : sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

/* Fires every timer <= w (sessions closed, state past lateness). */
static int advance(sess_op *o, int64_t w, sl_err *err)
{
	fire_ctx f = {o, w};
	int rc = sl_timers_fire(&o->timers, w, fire_key, &f, err);
	if (rc)
		return rc;
	if (w > o->wm)
		o->wm = w;
	return flush_out(o, err);
}

/* ---- rows --------------------------------------------------------------- */

/* Merges row `row` ([ts, ts + gap)) into the loaded key's sessions; w: the
 * watermark the row is judged by (its W_before, or the fired watermark when
 * larger): sessions with end <= w are closed for it, and have fired. */
static int merge_row(sess_op *o, const sl_batch *in, int row, int64_t ts, int late, int64_t w,
                     sl_err *err)
{
	int64_t s0 = ts, e0 = ts + o->p.win.size;
	int n = nrec(o, &o->list), rc;
	/* the merged session, built in a scratch record at the end of the list */
	if (sl_buf_reserve(&o->list, o->rec_size))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	sess *m = (sess *)(o->list.p + o->list.len);
	memset(m, 0, o->rec_size);
	m->start = s0;
	m->end = e0;
	int first = 1, keep = 0;
	/* every session closed for the row (end <= w) has fired here: a row
	 * waits in "pending" until it has (must_wait), so a late row corrects
	 * emitted sessions only, as if they had fired before it */
	for (int i = 0; i < n; i++) {
		sess *s = rec(o, &o->list, i);
		int touches = s->start <= e0 && s0 <= s->end;
		int open = s->end > w;
		int gone = s->end + o->p.lateness <= w; /* past lateness for the row */
		if (!touches || (!late && !open) || gone) {
			if (keep != i)
				memmove(rec(o, &o->list, keep), s, o->rec_size);
			keep++;
			continue;
		}
		if ((rc = emit_one(o, s, SL_DELETE, in->wm[row], err)))
			return rc;
		if (first) {
			memcpy(m + 1, s + 1, o->acc_size);
			first = 0;
		} else {
			for (int k = 0; k < o->p.naggs; k++)
				if ((rc = o->aggs[k].vt->merge(&o->aggs[k], (char *)(m + 1) + o->aggs[k].offset,
				                               (const char *)(s + 1) + o->aggs[k].offset, err)))
					return rc;
		}
		if (s->start < m->start)
			m->start = s->start;
		if (s->end > m->end)
			m->end = s->end;
	}
	sess merged = *m;
	char acc[4096];
	memcpy(acc, m + 1, o->acc_size);
	o->list.len = (size_t)keep * o->rec_size;
	/* insert the merged record sorted by start */
	int pos = 0;
	while (pos < keep && rec(o, &o->list, pos)->start < merged.start)
		pos++;
	if (sl_buf_reserve(&o->list, o->rec_size))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	memmove(o->list.p + (size_t)(pos + 1) * o->rec_size, o->list.p + (size_t)pos * o->rec_size,
	        (size_t)(keep - pos) * o->rec_size);
	o->list.len += o->rec_size;
	sess *d = rec(o, &o->list, pos);
	*d = merged;
	d->flags = 0;
	memcpy(d + 1, acc, o->acc_size);
	for (int k = 0; k < o->p.naggs; k++)
		if ((rc = sl_agg_add_one(&o->aggs[k], d + 1, in, row, 1, err)))
			return rc;
	if (d->end <= w) { /* closed for the row: a correction within lateness */
		d->flags |= F_FIRED;
		if ((rc = emit_one(o, d, SL_INSERT, in->wm[row], err)))
			return rc;
		SL_CTR_ADD(o->base.stats.late_corrected, 1);
		rc = add_timer(o, d->end + o->p.lateness, err);
	} else {
		rc = add_timer(o, d->end, err);
	}
	if (rc || store(o))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

static int sess_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	sess_op *o = (sess_op *)op;
	const sl_col *tc = &in->cols[o->p.win.time_col];
	int proc = o->p.win.proc;
	int64_t now = proc ? op->graph->ectx.proctime : 0;
	int rc;
	SL_BATCH_FOREACH(in, k, row) {
		/* processing time: the clock fires sessions before each row;
		 * event time fires at the operator's watermark only (rule 4) */
		if (proc && now > o->wm && (rc = advance(o, now, err)))
			return rc;
		if (tc->null[row])
			return sl_err_set(err, SL_EINPUT, "session window: NULL rowtime");
		int64_t ts = proc ? now : tc->v.i64[row];
		/* judged by its own W_before (rule 3; the fired watermark when
		 * larger: idle inputs) */
		int64_t w = !proc && in->wm[row] > o->wm ? in->wm[row] : o->wm;
		int late = ts + o->p.win.size <= w;
		if (late && (o->p.lateness == 0 || ts + o->p.win.size <= w - o->p.lateness)) {
			if ((rc = sl__window_late_row(&o->base, &o->p, o->late, in, row, err)))
				return rc;
			continue;
		}
		sl_buf_clear(&o->key);
		if (sl_rowcodec_key(in, o->key_cols, o->p.nkeys, row, &o->key))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		if (load(o) || load_pending(o))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		/* a late row waits until the operator's watermark reaches its
		 * W_before: every row still to come is judged by a W_before at
		 * least as large, and every session closed for it has fired
		 * (rule 4: sessions fire at the operator's watermark only); a
		 * row on time waits when its key has a session closed for it
		 * that has not fired yet, or a waiting row it must follow, or
		 * while a split that is behind may still close one for it
		 * (must_wait) */
		if (!proc && (late ? w > o->wm : must_wait(o, ts, w))) {
			if ((rc = keep_pending(o, in, row, w, err)))
				return rc;
			continue;
		}
		if ((rc = merge_row(o, in, row, ts, late, w, err)))
			return rc;
	}
	if ((rc = flush_out(o, err)))
		return rc;
	return sl__window_late_flush(&o->p, o->late, err);
}

static int sess_watermark(sl_op *op, int64_t wm, sl_err *err)
{
	if (((sess_op *)op)->p.win.proc) /* fires on the clock (sess_proctime) */
		return sl_op_emit_watermark(op, wm, err);
	int rc = advance((sess_op *)op, wm, err);
	return rc ? rc : sl_op_emit_watermark(op, wm, err);
}

/* Processing-time sessions: fire those whose end the clock reached. */
static int sess_proctime(sl_op *op, int64_t now, sl_err *err)
{
	sess_op *o = (sess_op *)op;
	if (!o->p.win.proc || now <= o->wm)
		return 0;
	int rc = advance(o, now, err);
	return rc ? rc : flush_out(o, err);
}

static int sess_finish(sl_op *op, sl_err *err)
{
	sess_op *o = (sess_op *)op;
	return o->p.late_op ? sl_graph_end_input(o->p.late_op, 0, err) : 0;
}

static int sess_snapshot(sl_op *op, sl_snap_writer *w, sl_err *err)
{
	sl_snap_put_i64(w, ((sess_op *)op)->wm);
	return 0;
}

static int sess_restore(sl_op *op, sl_snap_reader *r, sl_err *err)
{
	((sess_op *)op)->wm = sl_snap_get_i64(r);
	return sl_snap_reader_ok(r) ? 0 : sl_err_set(err, SL_ESTATE, "session operator state damaged");
}

static int sess_open(sl_op *op, sl_err *err)
{
	sess_op *o = (sess_op *)op;
	if (!(o->sess = sl_state_table_open(op->state, op->uid, "sessions", 0, err)) ||
	    sl_timers_open(&o->timers, op, "timers", err))
		return err->code;
	if (!o->p.win.proc) {
		if (!(o->pending = sl_state_table_open(op->state, op->uid, "pending", 0, err)))
			return err->code;
		if (!(o->prow = sl_batch_new(o->nin, o->in_types, 1)))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	if (sl_emitter_init(&o->out, op, 0, err))
		return err->code;
	o->tmp = sl_batch_new(op->nout, op->out_types, 2);
	if (!o->tmp)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (o->p.late_policy == SL_LATEPOL_SIDE &&
	    !(o->late = sl_batch_new(o->p.late_ncols, o->late_types, 0)))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

static void sess_close(sl_op *op)
{
	sess_op *o = (sess_op *)op;
	sl_emitter_deinit(&o->out);
	sl_batch_free(o->tmp);
	sl_batch_free(o->late);
	sl_batch_free(o->prow);
	sl_prog_free(o->having);
	sl_buf_deinit(&o->key);
	sl_buf_deinit(&o->list);
	sl_buf_deinit(&o->plist);
	free(o->in_types);
	sl_timers_deinit(&o->timers);
	free(o->key_cols);
	free(o->aggs);
	free(o->late_types);
}

static const sl_op_vtab sess_vtab = {
	.name = "SessionWindowAggregate",
	.kind = SL_OPK_SESSION_AGG,
	.flags = SL_OPF_STATE_WM | SL_OPF_LATE_STATS,
	.open = sess_open,
	.process = sess_process,
	.watermark = sess_watermark,
	.snapshot = sess_snapshot,
	.restore = sess_restore,
	.finish = sess_finish,
	.close = sess_close,
	.proctime = sess_proctime,
};

sl_op *sl_op_session_agg_new(const sl_window_agg_plan *p, const sl_type *in_types, int nin,
                             sl_err *err)
{
	sess_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &sess_vtab;
	o->p = *p;
	o->base.state_proctime = p->win.proc;
	o->wm = SL_WM_MIN;
	o->key_cols = calloc((size_t)p->nkeys + 1, sizeof(int));
	o->aggs = calloc((size_t)p->naggs + 1, sizeof(sl_agg));
	o->late_types = calloc((size_t)p->late_ncols + 1, sizeof(sl_type));
	o->in_types = calloc((size_t)nin + 1, sizeof(sl_type));
	o->nin = nin;
	if (!o->key_cols || !o->aggs || !o->late_types || !o->in_types)
		goto nomem;
	memcpy(o->in_types, in_types, sizeof(sl_type) * (size_t)nin);
	memcpy(o->key_cols, p->key_cols, sizeof(int) * (size_t)p->nkeys);
	memcpy(o->late_types, in_types, sizeof(sl_type) * (size_t)p->late_ncols);
	o->p.key_cols = o->key_cols;
	uint32_t off = 0;
	for (int i = 0; i < p->naggs; i++) {
		if (sl_agg_is_str(&p->aggs[i])) {
			sl_err_set(err, SL_ENOTSUP, "MIN/MAX/FIRST_VALUE/LAST_VALUE over strings in SESSION "
			           "windows are not supported yet");
			goto fail;
		}
		if (p->aggs[i].distinct) {
			sl_err_set(err, SL_ENOTSUP, "DISTINCT aggregates in SESSION windows are not "
			           "supported yet");
			goto fail;
		}
		o->aggs[i] = p->aggs[i];
		o->aggs[i].offset = off;
		off += o->aggs[i].vt->acc_size;
	}
	o->p.aggs = o->aggs;
	o->acc_size = off;
	o->rec_size = (uint32_t)sizeof(sess) + off;
	if (off > 4096 || p->nkeys > 64) {
		sl_err_set(err, SL_ENOTSUP, "too many aggregates or keys in one SESSION window");
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
