/*
 * op_join.c - the regular join: INNER, LEFT, RIGHT and FULL OUTER on
 * equality keys plus a residual predicate, over append-only or updating
 * inputs (Flink's StreamingJoinOperator).
 *
 * INTERFACE ROUTINES
 *   open       opens the state table of each side and the output builder
 *   process    a row of input 0 (left) or 1 (right): matches it against
 *              the other side's rows of its key, emits the changes, and
 *              adds it to (or retracts it from) its own side's state
 *   watermark  none: forwarded unchanged (the output has no time
 *              attribute: the planner drops the inputs' rowtimes)
 *
 * Changes (docs/joins.md).  An accumulating row (+I/+U) emits +I of each
 * joined row; a retracting row (-U/-D) emits -D of each.  A row of an
 * outer side without a match emits +I (-D when retracted) of itself padded
 * with NULLs.  When a row of the other side gives an outer row its first
 * match, -D of the padded row comes before the +I of the joined one; when
 * its last match goes away, +I of the padded row follows the -D of the
 * joined one.  A row whose key has a NULL matches nothing (and is not
 * stored).  A retraction of a row that is not in the state is ignored.
 *
 * State.  Tables "left" and "right": namespace 0, key = encoded join key,
 * value = a list of records (join.h), one per distinct row: its bytes, its
 * count (duplicates) and, for outer sides, the number of rows of the other
 * side it matches (to know when the padded row must be retracted or
 * re-emitted).  A record goes when its count falls to zero, a key when its
 * list is empty; otherwise state lives as long as the job, unless a state
 * TTL (per side: 'table.exec.state.ttl', the STATE_TTL hint) expires a
 * key's list ttl after its last write (docs/state.md, "State TTL").
 * Each input row reads and rewrites its key's lists: a hot key with n rows
 * costs O(n) per row.
 *
 * Built on the join base (join_base.h): key encoding, the record lists,
 * the chunked matching and the padded output are the base's; what is
 * this operator's own is the changelog rules above.
 */
#include "join_base.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct join_op {
	sl_join_base b;         /* first (join_base.h): tables "left", "right" */
	sl_buf row;             /* encoded current row */
	sl_buf mine, other;     /* copies of the key's record lists */
} join_op;

/* Emits n copies of a stored row of side `side`, the other side padded. */
static int emit_stored(join_op *o, int side, const char *bytes, uint32_t len, uint32_t n,
                       uint8_t op, int64_t wm, sl_err *err)
{
	for (uint32_t i = 0; i < n; i++) {
		int rc = sl__joiner_emit_stored(&o->b.j, side, bytes, len, op, wm, err);
		if (rc)
			return rc;
	}
	return 0;
}

typedef struct match_ctx {
	join_op *o;
	int s, acc;
	int64_t wm;
	int64_t nm;   /* matched rows of the other side (with duplicates) */
	int changed;  /* a record of `other` was rewritten */
} match_ctx;

/* A stored record of the other side matches the input row: emits the
 * joined rows (and the outer side's padded row changes) and counts it. */
static int on_match(void *ctx, char *rec, const sl_jrec *r, int cand, sl_err *err)
{
	match_ctx *m = ctx;
	join_op *o = m->o;
	int os = 1 - m->s, rc;
	m->nm += r->count;
	if (m->acc) {
		if (o->b.outer[os] && r->aux == 0 &&
		    (rc = emit_stored(o, os, r->row, r->len, r->count, SL_DELETE, m->wm, err)))
			return rc;
		for (uint32_t k = 0; k < r->count; k++)
			if ((rc = sl__joiner_emit_cand(&o->b.j, cand, SL_INSERT, m->wm, err)))
				return rc;
		if (o->b.outer[os]) {
			sl__jrec_set(rec, r->count, r->aux + 1);
			m->changed = 1;
		}
	} else {
		for (uint32_t k = 0; k < r->count; k++)
			if ((rc = sl__joiner_emit_cand(&o->b.j, cand, SL_DELETE, m->wm, err)))
				return rc;
		if (o->b.outer[os]) {
			if (r->aux == 1 &&
			    (rc = emit_stored(o, os, r->row, r->len, r->count, SL_INSERT, m->wm, err)))
				return rc;
			sl__jrec_set(rec, r->count, r->aux > 0 ? r->aux - 1 : 0);
			m->changed = 1;
		}
	}
	return 0;
}

/* Matches input row (s, in, row) against the other side's records of its
 * key, emitting joined rows; *nm = matched other rows (with duplicates). */
static int match_other(join_op *o, int s, const sl_batch *in, int row, int acc, int64_t wm,
                       int64_t *nm, sl_err *err)
{
	int os = 1 - s, rc;
	match_ctx m = {o, s, acc, wm, 0, 0};
	const sl_buf *key = &o->b.key;
	*nm = 0;
	if ((rc = sl__jlist_load(o->b.st[os], 0, key->p, (uint32_t)key->len, &o->other, err)) ||
	    (rc = sl__join_match(&o->b, s, in, row, &o->other, NULL, on_match, &m, err)))
		return rc;
	*nm = m.nm;
	return m.changed ? sl__jlist_store(&o->b, o->b.st[os], 0, key->p, (uint32_t)key->len,
	                                   &o->other, err)
	                 : 0;
}

static int join_row(join_op *o, int s, const sl_batch *in, int row, int64_t wm, sl_err *err)
{
	int acc = in->op[row] == SL_INSERT || in->op[row] == SL_UPDATE_AFTER;
	uint8_t kind = acc ? SL_INSERT : SL_DELETE;
	int rc = sl__join_key(&o->b, s, in, row, err);
	if (rc < 0)
		return rc;
	if (rc == 1) /* a NULL key matches nothing: only an outer row shows, padded */
		return o->b.outer[s] ? sl__joiner_emit_in(&o->b.j, s, in, row, NULL, 0, kind, wm, err)
		                     : 0;
	const sl_buf *key = &o->b.key;
	sl_buf_clear(&o->row);
	if (sl_rowcodec_row(in, row, &o->row))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if ((rc = sl__jlist_load(o->b.st[s], 0, key->p, (uint32_t)key->len, &o->mine, err)))
		return rc;
	long at = sl__jlist_find(&o->b, &o->mine, o->row.p, o->row.len, err);
	if (at == -2)
		return err->code;
	if (!acc && at < 0)
		return 0; /* retraction of a row this join never saw */
	int64_t nm;
	if ((rc = match_other(o, s, in, row, acc, wm, &nm, err)))
		return rc;
	if (nm == 0 && o->b.outer[s] &&
	    (rc = sl__joiner_emit_in(&o->b.j, s, in, row, NULL, 0, kind, wm, err)))
		return rc;
	/* `mine` is a copy: the other side's write did not disturb it */
	if ((rc = sl__jlist_count(&o->mine, in, row, acc, at, nm, err)))
		return rc;
	return sl__jlist_store(&o->b, o->b.st[s], 0, key->p, (uint32_t)key->len, &o->mine, err);
}

static int join_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	join_op *o = (join_op *)op;
	int64_t others = sl_op_inputs_wm(op, input);
	SL_BATCH_FOREACH(in, k, row) {
		int rc = join_row(o, input, in, row, sl__join_row_wm(in, row, others), err);
		if (rc)
			return rc;
	}
	return sl__joiner_flush(&o->b.j, err);
}

static int join_open(sl_op *op, sl_err *err)
{
	static const char *const names[2] = {"left", "right"};
	return sl__join_base_open((sl_join_base *)op, names, err);
}

static void join_close(sl_op *op)
{
	join_op *o = (join_op *)op;
	sl__join_base_close(&o->b);
	sl_buf_deinit(&o->row);
	sl_buf_deinit(&o->mine);
	sl_buf_deinit(&o->other);
}

static const sl_op_vtab join_vtab = {
	.name = "Join",
	.kind = SL_OPK_JOIN,
	.flags = SL_OPF_STATE_TTL | SL_OPF_TTL_PER_SIDE,
	.open = join_open,
	.process = join_process,
	.close = join_close,
};

sl_op *sl_op_join_new(const sl_join_plan *p, sl_err *err)
{
	sl_join_base *b = sl__join_base_new(sizeof(join_op), &join_vtab, p, "join", err);
	if (b && p->nkeys < 1) {
		sl_err_set(err, SL_EPLAN, "a join needs at least one equality key");
		sl_op_free(&b->op); /* calls its close */
		return NULL;
	}
	return b ? &b->op : NULL;
}
