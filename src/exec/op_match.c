/*
 * op_match.c - MATCH_RECOGNIZE over event time (plan: op_match.h; the
 * mechanism and the semantics chosen: docs/match_recognize.md).
 *
 * INTERFACE ROUTINES
 *   process    a row with ts < W_before (its own partition's watermark), or
 *              below a rowtime already acted on, is late: dropped and
 *              counted.  Otherwise it waits in "pend" until the operator's
 *              watermark passes it, as in op_over_agg.c: the pattern sees
 *              the rows of a partition in (rowtime, arrival) order, whatever
 *              order they came in.
 *   watermark  for every pending rowtime ts < W in order, each row of it in
 *              arrival order is appended to its partition's buffer and the
 *              partition's matcher runs (below); then the partitions whose
 *              oldest partial match may have timed out (WITHIN) or that
 *              wait for rows at the end of input (W = +infinity) run again
 *              through keyed timers; then W is forwarded.
 *   snapshot   the rowtime acted on and the arrival counter; everything
 *              else is in the state tables.  A rescale merges the old
 *              instances' records (lowest rowtime, highest counter).
 *
 * Matching (Flink's CEP semantics as its SQL documentation shows them):
 * the buffer of a partition starts at the row where the next match may
 * start (s).  From s the matcher advances every partial match of the
 * pattern one row at a time, breadth first, in preference order: a greedy
 * term takes the row when its condition holds (and then the path may not
 * leave the term on that row, Flink's greedy rule), a reluctant term
 * first tries to leave.  The first path that completes, at the earliest
 * row, is the match of s; it is emitted (one row: key columns, measures),
 * and AFTER MATCH SKIP gives the next s.  When no path survives, s + 1 is
 * next.  When paths remain but the buffer ends, the partition waits for
 * rows: later starts are not tried (their matches would come out of
 * order), unless WITHIN proves no later row can extend a path from s
 * (horizon - ts(s) > WITHIN, horizon = the least rowtime a future row can
 * have) or the input ended.  Rows before s are dropped.  The matcher keeps
 * no state of its own between runs: it restarts from s over the buffer,
 * so a checkpoint is the buffer alone.
 *
 * State:
 *   "pend"  the pending rows (pending_rows.h, as op_over_agg.c's):
 *           namespace = rowtime, key = arrival number and the partition
 *           key (unique when a rescale merges instances), value = [u32
 *           klen][partition key][row]; namespace timers (timers.h).
 *   "part"  namespace 0, key = encoded partition key, value = the buffer:
 *           [u32 len][row] per row, oldest first.  Deleted when empty.
 *   "due"   keyed timers (timers.h): partition key at ts(s) + WITHIN + 1,
 *           or at +infinity without WITHIN, when the partition waits.
 * One thread; no malloc per row: buffers, batches and path lists are
 * reused and grow to the largest partition seen.
 */
#include "op_match.h"
#include "emit.h"
#include "graph.h"
#include "pending_rows.h"
#include "timers.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Partial matches alive at once from one start: more fails the job (a
 * pattern whose reluctant terms accept every row doubles them per row). */
#define MAX_PATHS 100000

typedef struct match_op {
	sl_op base;
	sl_match_plan p;
	int nin, nrc;          /* input columns; row columns (input + derived) */
	sl_type *rtypes;       /* nrc */
	sl_prog *dprog;        /* derived columns, NULL when none */
	sl_prog **cprog;       /* per variable, NULL: TRUE */
	int **cnavs, *ncnav;   /* per variable: the navs its condition reads */
	sl_prog *mprog;        /* measures, NULL when none */
	int *mnavs, nmnav;
	sl_batch *rb;          /* the partition's rows, decoded */
	sl_col **rb_cols;
	sl_batch *nb;          /* one row of nav values */
	sl_batch *cb;          /* one condition result */
	sl_batch *mb;          /* one row of measures */
	void *slot;            /* aggregate accumulator (16-aligned) */
	sl_pend pend;          /* "pend" and its arrival counter (pending_rows.h) */
	sl_state_table *part;
	sl_ns_timers nst;
	sl_timers due;
	sl_emitter out;
	sl_buf key, st, offs, cur, next, win, abuf;
	int restored;          /* a snapshot record was restored (rescale merge) */
	int winlen;
	int64_t fired_wm;      /* rows with ts < fired_wm have been acted on */
	char skip_name[128];   /* the SKIP TO variable (messages) */
} match_op;

/* ---- nav values ------------------------------------------------------------- */

static int var_of(const match_op *o, uint8_t term)
{
	return o->p.terms[term].var;
}

/* The row of rb that nav LAST / FIRST / PREV reads for the path asg[0..len)
 * (rows s .., asg = term per row), or -1 for none (NULL). */
static int nav_row(const match_op *o, const sl_match_nav *nv, const uint8_t *asg, int len, int s)
{
	int seen = 0;
	if (nv->kind == SL_MNAV_FIRST) {
		for (int k = 0; k < len; k++)
			if ((nv->var < 0 || var_of(o, asg[k]) == nv->var) && seen++ == nv->off)
				return s + k;
		return -1;
	}
	int want = nv->kind == SL_MNAV_LAST ? nv->off : 0;
	for (int k = len - 1; k >= 0; k--)
		if ((nv->var < 0 || var_of(o, asg[k]) == nv->var) && seen++ == want) {
			if (nv->kind == SL_MNAV_LAST)
				return s + k;
			return k - nv->off >= 0 ? s + k - nv->off : -1; /* PREV */
		}
	return -1;
}

/* Fills the navs idx[0..n) of o->nb's one row for path asg[0..len) from
 * s; the other navs keep stale values, which the program reading idx does
 * not read.  Why not a fresh row each time: clearing every nav column was
 * 8% of the operator's instructions (callgrind, 20 000 rows). */
static int fill_navs(match_op *o, const int *idx, int n, const uint8_t *asg, int len, int s,
                     sl_err *err)
{
	sl_arena_reset(&o->nb->arena); /* strings of the previous call */
	for (int i = 0; i < n; i++) {
		const sl_match_nav *nv = &o->p.navs[idx[i]];
		sl_col *c = &o->nb->cols[idx[i]];
		if (nv->kind != SL_MNAV_AGG) {
			int r = nav_row(o, nv, asg, len, s);
			if (r < 0)
				sl_col_clear(c, 0);
			else if (sl_col_copy_value(o->nb, c, 0, &o->rb->cols[nv->col], r))
				return sl_err_set(err, SL_ENOMEM, "out of memory");
			continue;
		}
		memset(o->slot, 0, nv->agg.vt->acc_size ? nv->agg.vt->acc_size : 16);
		for (int k = 0; k < len; k++)
			if (nv->var < 0 || var_of(o, asg[k]) == nv->var) {
				int rc = sl_agg_add_one(&nv->agg, o->slot, o->rb, s + k, 1, err);
				if (rc)
					return rc;
			}
		int rc = nv->agg.vt->result(&nv->agg, o->slot, c, 0, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* *ok = whether the row s + len may be mapped to term t after the path
 * asg[0..len) (asg has room for one more). */
static int test(match_op *o, uint8_t t, uint8_t *asg, int len, int s, int *ok, sl_err *err)
{
	int v = var_of(o, t), rc;
	*ok = 1;
	if (!o->cprog[v])
		return 0;
	asg[len] = t;
	if ((rc = fill_navs(o, o->cnavs[v], o->ncnav[v], asg, len + 1, s, err)))
		return rc;
	if ((rc = sl_prog_eval(o->cprog[v], o->nb, o->cb, o->cb->cols, &o->base.graph->ectx, err)))
		return rc;
	*ok = !o->cb->cols[0].null[0] && o->cb->cols[0].v.i64[0] != 0;
	return 0;
}

/* ---- paths ------------------------------------------------------------------ */

/* A path record in o->cur / o->next: u16 term, u16 pad, i32 count, then the
 * assignment (one term index per row). */
#define REC_HDR 8

typedef struct step_ctx {
	int s, len;        /* start row; rows mapped so far */
	uint8_t *asg;      /* the path's assignment, room for len + 1 */
	int won;           /* a path completed on this row (o->win) */
} step_ctx;

/* Adds the path that maps the row to term j with count c (after asg). */
static int add_path(match_op *o, step_ctx *x, int j, int c, sl_err *err)
{
	const sl_match_term *t = &o->p.terms[j];
	x->asg[x->len] = (uint8_t)j;
	if (j == o->p.nterms - 1 && c >= t->min && (c == t->max || !t->greedy)) {
		sl_buf_clear(&o->win);
		if (sl_buf_append(&o->win, x->asg, (size_t)x->len + 1))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		o->winlen = x->len + 1;
		x->won = 1;
		return 0;
	}
	uint16_t tj = (uint16_t)j, pad = 0;
	int32_t cc = c;
	if (sl_buf_append(&o->next, &tj, 2) || sl_buf_append(&o->next, &pad, 2) ||
	    sl_buf_append(&o->next, &cc, 4) || sl_buf_append(&o->next, x->asg, (size_t)x->len + 1))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

/* The moves of a path at term i with count c over the next row, in
 * preference order (see the header); stops at the first completion. */
static int step(match_op *o, step_ctx *x, int i, int c, sl_err *err)
{
	if (i >= o->p.nterms || x->won)
		return 0;
	const sl_match_term *t = &o->p.terms[i];
	int can_take = t->max < 0 || c < t->max, ok = 0, rc;
	if (t->greedy) {
		if (can_take && (rc = test(o, (uint8_t)i, x->asg, x->len, x->s, &ok, err)))
			return rc;
		if (ok)
			return add_path(o, x, i, c + 1, err);
		return c >= t->min ? step(o, x, i + 1, 0, err) : 0;
	}
	if (c >= t->min && (rc = step(o, x, i + 1, 0, err)))
		return rc;
	if (x->won || !can_take)
		return 0;
	if ((rc = test(o, (uint8_t)i, x->asg, x->len, x->s, &ok, err)))
		return rc;
	return ok ? add_path(o, x, i, c + 1, err) : 0;
}

enum { M_DEAD = 0, M_MATCH, M_WAIT };

static int64_t row_ts(const match_op *o, int r)
{
	return o->rb->cols[o->p.time_col].v.i64[r];
}

/*
 * The match from row s of the n buffered rows: M_MATCH (o->win holds its
 * assignment, o->winlen rows), M_DEAD or M_WAIT (paths need rows not yet
 * seen).  horizon: the least rowtime a future row of the partition can
 * have (SL_WM_MAX: none will come).
 */
static int find_match(match_op *o, int s, int n, int64_t horizon, int *res, sl_err *err)
{
	uint16_t t0 = 0, pad = 0;
	int32_t c0 = 0;
	int64_t ts0 = row_ts(o, s);
	sl_buf_clear(&o->cur);
	sl_buf_append(&o->cur, &t0, 2);
	sl_buf_append(&o->cur, &pad, 2);
	if (sl_buf_append(&o->cur, &c0, 4))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int len = 0;; len++) {
		int r = s + len;
		size_t rec = REC_HDR + (size_t)len;
		if (!o->cur.len) {
			*res = M_DEAD;
			return 0;
		}
		if (r >= n) {
			int over = horizon == SL_WM_MAX ||
			           (o->p.within >= 0 && horizon - ts0 > o->p.within);
			*res = over ? M_DEAD : M_WAIT;
			return 0;
		}
		if (o->p.within >= 0 && row_ts(o, r) - ts0 > o->p.within) {
			*res = M_DEAD;
			return 0;
		}
		if (o->cur.len / rec > MAX_PATHS)
			return sl_err_set(err, SL_ERUNTIME, "MATCH_RECOGNIZE: more than %d partial "
			                  "matches from one row; bound the pattern's quantifiers",
			                  MAX_PATHS);
		sl_buf_clear(&o->next);
		if (sl_buf_reserve(&o->abuf, (size_t)len + 2))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		/* the assignment is copied out: add_path writes one past it */
		step_ctx x = {s, len, (uint8_t *)o->abuf.p, 0};
		for (size_t off = 0; off < o->cur.len && !x.won; off += rec) {
			uint16_t ti;
			int32_t ci;
			memcpy(&ti, o->cur.p + off, 2);
			memcpy(&ci, o->cur.p + off + 4, 4);
			memcpy(x.asg, o->cur.p + off + REC_HDR, (size_t)len);
			int rc = step(o, &x, ti, ci, err);
			if (rc)
				return rc;
		}
		if (x.won) {
			*res = M_MATCH;
			return 0;
		}
		sl_buf tmp = o->cur;
		o->cur = o->next;
		o->next = tmp;
	}
}

/* ---- partitions --------------------------------------------------------------- */

/* Decodes the buffer in o->st into o->rb (rows 0 .. n-1, offsets of each
 * row's entry in o->offs) and computes the derived columns; *n rows. */
static int load_rows(match_op *o, int *n, sl_err *err)
{
	int cnt = 0;
	sl_buf_clear(&o->offs);
	for (size_t off = 0; off + 4 <= o->st.len;) {
		uint32_t len;
		memcpy(&len, o->st.p + off, 4);
		if (sl_buf_append(&o->offs, &off, sizeof(off)))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		off += 4 + (size_t)len;
		cnt++;
	}
	if (cnt > o->rb->cap) {
		int cap = o->rb->cap;
		while (cap < cnt)
			cap *= 2;
		sl_batch *nb = sl_batch_new(o->nrc, o->rtypes, cap);
		if (!nb)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		sl_batch_free(o->rb);
		o->rb = nb;
		for (int i = 0; i < o->nrc; i++)
			o->rb_cols[i] = &o->rb->cols[i];
	}
	sl_batch_reset(o->rb);
	for (int i = 0; i < cnt; i++) {
		size_t off;
		uint32_t len;
		memcpy(&off, o->offs.p + (size_t)i * sizeof(off), sizeof(off));
		memcpy(&len, o->st.p + off, 4);
		int r = sl_batch_add_row_nc(o->rb, SL_INSERT, SL_WM_MIN);
		if (sl_rowcodec_decode(o->st.p + off + 4, len, o->rb, o->rb_cols, o->nin, r) < 0)
			return sl_err_set(err, SL_ESTATE, "MATCH_RECOGNIZE state: malformed row");
		for (int c = o->nin; c < o->nrc; c++)
			sl_col_clear(&o->rb->cols[c], r);
	}
	*n = cnt;
	if (o->dprog && cnt)
		return sl_prog_eval(o->dprog, o->rb, o->rb, &o->rb->cols[o->nin],
		                    &o->base.graph->ectx, err);
	return 0;
}

/* Emits the match o->win (o->winlen rows from s). */
static int emit_match(match_op *o, int s, sl_err *err)
{
	const uint8_t *asg = (const uint8_t *)o->win.p;
	int len = o->winlen, rc;
	int r = sl_emitter_row(&o->out, SL_INSERT, row_ts(o, s + len - 1), err);
	if (r < 0)
		return r;
	for (int i = 0; i < o->p.nkeys; i++)
		if (sl_col_copy_value(o->out.b, &o->out.b->cols[i], r, &o->rb->cols[o->p.key_cols[i]],
		                      s))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (!o->mprog)
		return 0;
	if ((rc = fill_navs(o, o->mnavs, o->nmnav, asg, len, s, err)))
		return rc;
	sl_arena_reset(&o->mb->arena);
	if ((rc = sl_prog_eval(o->mprog, o->nb, o->mb, o->mb->cols, &o->base.graph->ectx, err)))
		return rc;
	for (int j = 0; j < o->p.nmeasures; j++)
		if (sl_col_copy_value(o->out.b, &o->out.b->cols[o->p.nkeys + j], r, &o->mb->cols[j],
		                      0))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

/* The row after match o->win from s where the next match may start. */
static int skip_to(match_op *o, int s, int *next, sl_err *err)
{
	const uint8_t *asg = (const uint8_t *)o->win.p;
	int len = o->winlen, k = -1;
	switch (o->p.skip) {
	case SL_MSKIP_PAST_LAST:
		*next = s + len;
		return 0;
	case SL_MSKIP_NEXT_ROW:
		*next = s + 1;
		return 0;
	case SL_MSKIP_TO_FIRST:
		for (int i = 0; i < len && k < 0; i++)
			if (var_of(o, asg[i]) == o->p.skip_var)
				k = i;
		break;
	default:
		for (int i = len - 1; i >= 0 && k < 0; i--)
			if (var_of(o, asg[i]) == o->p.skip_var)
				k = i;
		break;
	}
	const char *v = o->skip_name;
	if (k < 0) /* as Flink: the standard needs a row to continue from */
		return sl_err_set(err, SL_ERUNTIME, "MATCH_RECOGNIZE: AFTER MATCH SKIP TO %s %s: no "
		                  "row of the match is mapped to %s",
		                  o->p.skip == SL_MSKIP_TO_FIRST ? "FIRST" : "LAST", v, v);
	if (k == 0) /* as Flink: a match would start where this one started */
		return sl_err_set(err, SL_ERUNTIME, "MATCH_RECOGNIZE: AFTER MATCH SKIP TO %s %s "
		                  "would start the next match at the first row of this one (an "
		                  "endless loop)", o->p.skip == SL_MSKIP_TO_FIRST ? "FIRST" : "LAST",
		                  v);
	*next = s + k;
	return 0;
}

/* Runs the matcher over the partition of key o->key whose buffer is in
 * o->st, emits its matches, then stores the rest of the buffer and sets
 * a timer when it waits. */
static int run_part(match_op *o, int64_t horizon, sl_err *err)
{
	int n = 0, s = 0, res = M_DEAD, rc;
	if ((rc = load_rows(o, &n, err)))
		return rc;
	while (s < n) {
		if ((rc = find_match(o, s, n, horizon, &res, err)))
			return rc;
		if (res == M_WAIT)
			break;
		if (res == M_DEAD) {
			s++;
			continue;
		}
		if ((rc = emit_match(o, s, err)) || (rc = skip_to(o, s, &s, err)))
			return rc;
	}
	if (s >= n) {
		sl_state_delete(o->part, 0, o->key.p, (uint32_t)o->key.len);
		return 0;
	}
	if (s > 0) {
		size_t off;
		memcpy(&off, o->offs.p + (size_t)s * sizeof(off), sizeof(off));
		memmove(o->st.p, o->st.p + off, o->st.len - off);
		o->st.len -= off;
	}
	if ((rc = sl_state_put_var(o->part, 0, o->key.p, (uint32_t)o->key.len, o->st.p,
	                           (uint32_t)o->st.len)))
		return sl_err_set(err, rc, "MATCH_RECOGNIZE: state write failed");
	int64_t at = o->p.within >= 0 ? row_ts(o, s) + o->p.within + 1 : SL_WM_MAX;
	return sl_timers_set(&o->due, at, o->key.p, (uint32_t)o->key.len, err);
}

/* Loads the buffer of partition o->key into o->st (empty when absent). */
static int load_part(match_op *o)
{
	const void *v;
	uint32_t vlen;
	sl_buf_clear(&o->st);
	if (sl_state_get_var(o->part, 0, o->key.p, (uint32_t)o->key.len, &v, &vlen))
		return sl_buf_append(&o->st, v, vlen);
	return 0;
}

/* ---- firing ------------------------------------------------------------------- */

/* Fires rowtime ts: its pending rows, in arrival order (pending_rows.h),
 * join their partitions' buffers, each followed by a run of the matcher. */
static int fire_time(void *ctx, int64_t ts, sl_err *err)
{
	match_op *o = ctx;
	int rc = sl_pend_collect(&o->pend, ts, NULL, NULL, err);
	if (rc)
		return rc;
	for (size_t i = 0, n = sl_pend_count(&o->pend); i < n; i++) {
		uint32_t klen, rlen;
		const char *key = sl_pend_key(&o->pend, i, &klen);
		const char *row = sl_pend_row(&o->pend, i, &rlen);
		sl_buf_clear(&o->key);
		if (sl_buf_append(&o->key, key, klen) || load_part(o) ||
		    sl_buf_append(&o->st, &rlen, 4) || sl_buf_append(&o->st, row, rlen))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		if ((rc = run_part(o, ts, err)))
			return rc;
	}
	return 0;
}

typedef struct due_ctx {
	match_op *o;
	int64_t w;
} due_ctx;

/* A partition that waited: runs it again with horizon w. */
static int fire_due(void *ctx, int64_t ts, const void *key, uint32_t klen, sl_err *err)
{
	due_ctx *d = ctx;
	match_op *o = d->o;
	(void)ts;
	sl_buf_clear(&o->key);
	if (sl_buf_append(&o->key, key, klen) || load_part(o))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return o->st.len ? run_part(o, d->w, err) : 0;
}

static int advance(match_op *o, int64_t wm, sl_err *err)
{
	int rc = sl_ns_timers_fire(&o->nst, wm - 1, fire_time, o, err);
	if (rc)
		return rc;
	if (wm > o->fired_wm)
		o->fired_wm = wm;
	due_ctx d = {o, wm};
	if ((rc = sl_timers_fire(&o->due, wm, fire_due, &d, err)))
		return rc;
	return sl_emitter_flush(&o->out, err);
}

/* ---- method table ----------------------------------------------------------------- */

static int match_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	match_op *o = (match_op *)op;
	const sl_col *tc = &in->cols[o->p.time_col];
	int rc;
	(void)input;
	SL_BATCH_FOREACH(in, k, row) {
		if (in->op[row] != SL_INSERT)
			return sl_err_set(err, SL_EINPUT, "MATCH_RECOGNIZE: the input must be "
			                  "append-only");
		if (tc->null[row])
			return sl_err_set(err, SL_EINPUT, "MATCH_RECOGNIZE: NULL rowtime");
		int64_t ts = tc->v.i64[row];
		if (ts < in->wm[row] || ts < o->fired_wm) {
			sl_op_late_dropped(op, in, row);
			continue;
		}
		if ((rc = sl_pend_put(&o->pend, ts, in, o->p.key_cols, o->p.nkeys, row, err)))
			return rc;
	}
	return 0;
}

static int match_watermark(sl_op *op, int64_t wm, sl_err *err)
{
	int rc = advance((match_op *)op, wm, err);
	return rc ? rc : sl_op_emit_watermark(op, wm, err);
}

static int match_snapshot(sl_op *op, sl_snap_writer *w, sl_err *err)
{
	(void)err;
	sl_snap_put_i64(w, ((match_op *)op)->fired_wm);
	sl_snap_put_i64(w, ((match_op *)op)->pend.seq);
	return 0;
}

/* Called once per old instance when a rescale merges several (graph.c):
 * the lowest rowtime acted on (rows are judged late by their own W_before
 * first, so this only keeps the check safe) and the highest arrival
 * number (a partition's new rows sort after its old ones). */
static int match_restore(sl_op *op, sl_snap_reader *r, sl_err *err)
{
	match_op *o = (match_op *)op;
	int64_t wm = sl_snap_get_i64(r), seq = sl_snap_get_i64(r);
	if (!sl_snap_reader_ok(r))
		return sl_err_set(err, SL_ESTATE, "MATCH_RECOGNIZE state damaged");
	if (!o->restored || wm < o->fired_wm)
		o->fired_wm = wm;
	if (!o->restored || seq > o->pend.seq)
		o->pend.seq = seq;
	o->restored = 1;
	return 0;
}

static int match_open(sl_op *op, sl_err *err)
{
	match_op *o = (match_op *)op;
	if (sl_pend_open(&o->pend, op, "MATCH_RECOGNIZE", 1, err) ||
	    !(o->part = sl_state_table_open(op->state, op->uid, "part", 0, err)) ||
	    sl_timers_open(&o->due, op, "due", err))
		return err->code;
	sl_ns_timers_add(&o->nst, o->pend.t);
	if (sl_emitter_init(&o->out, op, 0, err))
		return err->code;
	sl_type *navt = calloc((size_t)o->p.nnav + 1, sizeof(sl_type));
	sl_type *meat = calloc((size_t)o->p.nmeasures + 1, sizeof(sl_type));
	if (!navt || !meat) {
		free(navt);
		free(meat);
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	for (int i = 0; i < o->p.nnav; i++)
		navt[i] = o->p.navs[i].type;
	for (int j = 0; j < o->p.nmeasures; j++)
		meat[j] = op->out_types[o->p.nkeys + j];
	sl_type bt = sl_type_make(SL_T_BOOLEAN);
	o->rb = sl_batch_new(o->nrc, o->rtypes, 64);
	o->nb = sl_batch_new(o->p.nnav, navt, 1);
	o->cb = sl_batch_new(1, &bt, 1);
	o->mb = sl_batch_new(o->p.nmeasures, meat, 1);
	free(navt);
	free(meat);
	o->rb_cols = calloc((size_t)o->nrc + 1, sizeof(sl_col *));
	if (!o->rb || !o->nb || !o->cb || !o->mb || !o->rb_cols ||
	    sl_buf_reserve(&o->key, 64))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < o->nrc; i++)
		o->rb_cols[i] = &o->rb->cols[i];
	/* one row each, for good (fill_navs) */
	sl_batch_add_row(o->nb, SL_INSERT, SL_WM_MIN);
	sl_batch_add_row(o->cb, SL_INSERT, SL_WM_MIN);
	sl_batch_add_row(o->mb, SL_INSERT, SL_WM_MIN);
	return 0;
}

static void match_close(sl_op *op)
{
	match_op *o = (match_op *)op;
	sl_emitter_deinit(&o->out);
	sl_timers_deinit(&o->due);
	sl_batch_free(o->rb);
	sl_batch_free(o->nb);
	sl_batch_free(o->cb);
	sl_batch_free(o->mb);
	free(o->rb_cols);
	sl_prog_free(o->dprog);
	sl_prog_free(o->mprog);
	for (int v = 0; v < o->p.nvars; v++) {
		if (o->cprog)
			sl_prog_free(o->cprog[v]);
		if (o->cnavs)
			free(o->cnavs[v]);
	}
	free(o->cprog);
	free(o->cnavs);
	free(o->ncnav);
	free(o->mnavs);
	free(o->rtypes);
	free(o->slot);
	free((void *)o->p.key_cols);
	free((void *)o->p.terms);
	free((void *)o->p.navs);
	sl_buf_deinit(&o->key);
	sl_buf_deinit(&o->st);
	sl_pend_deinit(&o->pend);
	sl_buf_deinit(&o->offs);
	sl_buf_deinit(&o->cur);
	sl_buf_deinit(&o->next);
	sl_buf_deinit(&o->win);
	sl_buf_deinit(&o->abuf);
}

static const sl_op_vtab match_vtab = {
	.name = "MatchRecognize",
	.kind = SL_OPK_MATCH,
	.open = match_open,
	.process = match_process,
	.watermark = match_watermark,
	.snapshot = match_snapshot,
	.restore = match_restore,
	.close = match_close,
};

/* ---- construction ------------------------------------------------------------------- */

/* Marks in used[] the columns expression e reads. */
static void cols_used(const sl_expr *e, uint8_t *used, int n)
{
	if (!e)
		return;
	if (e->kind == SL_EX_COL && e->col >= 0 && e->col < n)
		used[e->col] = 1;
	for (int i = 0; i < e->nargs; i++)
		cols_used(e->args[i], used, n);
}

/* The navs exprs[0..n) read, into a new array (*out, *nout). */
static int navs_of(const match_op *o, sl_expr *const *exprs, int n, int **out, int *nout)
{
	uint8_t *used = calloc((size_t)o->p.nnav + 1, 1);
	*out = calloc((size_t)o->p.nnav + 1, sizeof(int));
	*nout = 0;
	if (!used || !*out) {
		free(used);
		return SL_ENOMEM;
	}
	for (int i = 0; i < n; i++)
		cols_used(exprs[i], used, o->p.nnav);
	for (int i = 0; i < o->p.nnav; i++)
		if (used[i])
			(*out)[(*nout)++] = i;
	free(used);
	return 0;
}

static sl_op *fail(match_op *o, sl_err *err, int code, const char *msg)
{
	if (code)
		sl_err_set(err, code, "%s", msg);
	sl_op_free(&o->base);
	return NULL;
}

sl_op *sl_op_match_new(const sl_match_plan *p, const sl_type *in_types, int nin, sl_err *err)
{
	match_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &match_vtab;
	o->p = *p;
	o->p.key_cols = NULL;
	o->p.terms = NULL;
	o->p.navs = NULL;
	o->nin = nin;
	o->nrc = nin + p->nderived;
	int *kc = calloc((size_t)p->nkeys + 1, sizeof(int));
	sl_match_term *tm = calloc((size_t)p->nterms + 1, sizeof(*tm));
	sl_match_nav *nv = calloc((size_t)p->nnav + 1, sizeof(*nv));
	if (p->skip == SL_MSKIP_TO_FIRST || p->skip == SL_MSKIP_TO_LAST)
		snprintf(o->skip_name, sizeof(o->skip_name), "%s", p->var_names[p->skip_var]);
	o->p.var_names = NULL;
	o->p.conds = NULL;
	o->p.derived = NULL;
	o->p.measures = NULL;
	o->p.key_cols = kc;
	o->p.terms = tm;
	o->p.navs = nv;
	o->rtypes = calloc((size_t)o->nrc + 1, sizeof(sl_type));
	o->cprog = calloc((size_t)p->nvars + 1, sizeof(sl_prog *));
	o->cnavs = calloc((size_t)p->nvars + 1, sizeof(int *));
	o->ncnav = calloc((size_t)p->nvars + 1, sizeof(int));
	if (!kc || !tm || !nv || !o->rtypes || !o->cprog || !o->cnavs || !o->ncnav)
		return fail(o, err, SL_ENOMEM, "out of memory");
	memcpy(kc, p->key_cols, sizeof(int) * (size_t)p->nkeys);
	memcpy(tm, p->terms, sizeof(*tm) * (size_t)p->nterms);
	memcpy(nv, p->navs, sizeof(*nv) * (size_t)p->nnav);
	for (int i = 0; i < nin; i++)
		o->rtypes[i] = in_types[i];
	for (int i = 0; i < p->nderived; i++)
		o->rtypes[nin + i] = p->derived[i]->type;
	uint32_t acc = 16;
	for (int i = 0; i < p->nnav; i++)
		if (nv[i].kind == SL_MNAV_AGG) {
			nv[i].agg.offset = 0;
			nv[i].agg.arg_col = nv[i].col;
			nv[i].agg.filter_col = -1;
			if (nv[i].agg.vt->acc_size > acc)
				acc = nv[i].agg.vt->acc_size;
		}
	o->slot = aligned_alloc(16, (acc + 15) / 16 * 16);
	if (!o->slot)
		return fail(o, err, SL_ENOMEM, "out of memory");
	if (p->nderived && !(o->dprog = sl_prog_compile(p->derived, p->nderived, in_types, nin, err)))
		return fail(o, err, 0, NULL);
	sl_type *navt = calloc((size_t)p->nnav + 1, sizeof(sl_type));
	if (!navt)
		return fail(o, err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < p->nnav; i++)
		navt[i] = nv[i].type;
	int rc = 0;
	for (int v = 0; v < p->nvars && !rc; v++) {
		if (!p->conds[v])
			continue;
		if (!(o->cprog[v] = sl_prog_compile(&p->conds[v], 1, navt, p->nnav, err)))
			rc = err->code ? err->code : SL_ENOMEM;
		else if (navs_of(o, &p->conds[v], 1, &o->cnavs[v], &o->ncnav[v]))
			rc = sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	if (!rc && p->nmeasures &&
	    (!(o->mprog = sl_prog_compile(p->measures, p->nmeasures, navt, p->nnav, err)) ||
	     navs_of(o, p->measures, p->nmeasures, &o->mnavs, &o->nmnav)))
		rc = err->code ? err->code : sl_err_set(err, SL_ENOMEM, "out of memory");
	free(navt);
	if (rc)
		return fail(o, err, 0, NULL);
	o->fired_wm = SL_WM_MIN;
	sl_ns_timers_init(&o->nst, 0);
	return &o->base;
}
