/*
 * op_semi_join.c - semi and anti joins: the rows of the left input that
 * have (semi) or have not (anti) a matching row in the right input, over
 * append-only or updating inputs (Flink's StreamingSemiAntiJoinOperator).
 * The planner makes them from `x IN (SELECT ...)`, `EXISTS (...)`, `NOT IN`
 * and `NOT EXISTS` (plan_subquery.c).
 *
 * INTERFACE ROUTINES
 *   open       opens the state table of each side and the candidate batch
 *   process    a row of input 0 (left) or 1 (right): counts or updates the
 *              matches of the left rows of its key and emits the left rows
 *              whose visibility changes
 *   watermark  none: forwarded unchanged (the output has no time
 *              attribute: the planner drops the left rowtime)
 *
 * Matching: equal keys (none at all when nkeys is 0: every left row meets
 * every right row) and the residual predicate, evaluated over the joined
 * row (left ++ right), TRUE.  A left row is visible when its match count
 * is > 0 (semi) or 0 (anti).  The output has the left input's columns.
 *
 * Changes.  A left row that accumulates (+I/+U) emits +I of itself when
 * visible; one that retracts (-U/-D) emits -D when it was visible (a
 * retraction of a row never seen is ignored).  A right row that
 * accumulates raises the count of each left row it matches: a count going
 * 0 -> 1 emits +I (semi) or -D (anti) of the left row, once per duplicate;
 * a right retraction lowers it, and 1 -> 0 emits -D (semi) or +I (anti).
 * A left row whose key has a NULL matches nothing: not stored, and emitted
 * at once by an anti join (with the row's kind: +I, or -D when it
 * retracts); a right row whose key has a NULL is ignored.  NOT IN's NULL
 * semantics come from the residual the planner gives (x = y OR x IS NULL
 * OR y IS NULL), which makes a NULL a match.
 *
 * State.  Tables "left" and "right": namespace 0, key = encoded join key
 * (one constant byte without keys, partitioned as the empty key: the
 * key group of the singleton exchange), value = a list of records (join.h),
 * one per distinct row: its bytes, its count (duplicates) and, on the left,
 * its match count in aux.  A record goes when its count falls to zero, a
 * key when its list is empty; with a state TTL (per side, as the regular
 * join) a key's rows go when not written for the TTL.  Each row reads and
 * rewrites its key's lists: O(rows of the key) per row, and every row
 * without keys is O(rows of the other side).
 *
 * Built on the join base (join_base.h: keys, record lists, chunked
 * matching); the output emitter (the joiner's) has the left columns only.
 */
#include "join_base.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct semi_op {
	sl_join_base b;         /* first (join_base.h); b.j.out: left columns */
	int anti;
	sl_buf row;             /* encoded current row */
	sl_buf mine, other;     /* copies of the key's record lists */
} semi_op;

/* Emits a left row: from the input batch (in, row) or stored bytes. */
static int emit_left(semi_op *o, const sl_batch *in, int row, const char *bytes, uint32_t len,
                     uint8_t op, int64_t wm, sl_err *err)
{
	if (in) {
		int rc = sl_emitter_copy_row(&o->b.j.out, in, row, op, wm, err);
		return rc < 0 ? rc : 0;
	}
	return sl__joiner_emit_left(&o->b.j, bytes, len, op, wm, err);
}

typedef struct match_ctx {
	semi_op *o;
	int acc;
	int64_t wm;
	int64_t total; /* left row: matching right rows; right row: a record changed */
} match_ctx;

/* Left row: sums the counts of the matching right records. */
static int count_match(void *ctx, char *rec, const sl_jrec *r, int cand, sl_err *err)
{
	(void)rec, (void)cand, (void)err;
	((match_ctx *)ctx)->total += r->count;
	return 0;
}

/* Right row: moves the match count of a matching left record by one and
 * emits the left row's change when its visibility flips. */
static int bump_match(void *ctx, char *rec, const sl_jrec *r, int cand, sl_err *err)
{
	match_ctx *m = ctx;
	semi_op *o = m->o;
	(void)cand;
	int64_t nm = m->acc ? r->aux + 1 : (r->aux > 0 ? r->aux - 1 : 0);
	sl__jrec_set(rec, r->count, nm);
	m->total = 1;
	if ((r->aux == 0) == (nm == 0))
		return 0; /* visibility unchanged */
	/* semi: 0 -> 1 inserts, 1 -> 0 deletes; anti the opposite */
	uint8_t op = (nm > 0) != o->anti ? SL_INSERT : SL_DELETE;
	for (uint32_t k = 0; k < r->count; k++) {
		int rc = emit_left(o, NULL, -1, r->row, r->len, op, m->wm, err);
		if (rc)
			return rc;
	}
	return 0;
}

static int left_row(semi_op *o, const sl_batch *in, int row, int acc, int64_t wm, sl_err *err)
{
	int rc = sl__join_key(&o->b, 0, in, row, err);
	if (rc < 0)
		return rc;
	if (rc == 1) /* NULL key: no match ever */
		return o->anti ? emit_left(o, in, row, NULL, 0, acc ? SL_INSERT : SL_DELETE, wm, err) : 0;
	const sl_buf *key = &o->b.key;
	sl_buf_clear(&o->row);
	if (sl_rowcodec_row(in, row, &o->row))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if ((rc = sl__jlist_load(o->b.st[0], 0, key->p, (uint32_t)key->len, &o->mine, err)))
		return rc;
	long at = sl__jlist_find(&o->b, &o->mine, o->row.p, o->row.len, err);
	if (at == -2)
		return err->code;
	int64_t nm = 0;
	if (!acc && at < 0)
		return 0; /* retraction of a row this join never saw */
	if (at >= 0) {
		const char *p = o->mine.p + at;
		sl_jrec r;
		if (sl__jrec_read(&p, o->mine.p + o->mine.len, &r)) /* at: sl__jlist_find's */
			return sl_err_set(err, SL_ESTATE, "semi join state: malformed record");
		nm = r.aux; /* the stored count is current */
	} else {
		match_ctx m = {o, acc, wm, 0};
		if ((rc = sl__jlist_load(o->b.st[1], 0, key->p, (uint32_t)key->len, &o->other, err)) ||
		    (rc = sl__join_match(&o->b, 0, in, row, &o->other, NULL, count_match, &m, err)))
			return rc;
		nm = m.total;
	}
	if ((nm > 0) != o->anti &&
	    (rc = emit_left(o, in, row, NULL, 0, acc ? SL_INSERT : SL_DELETE, wm, err)))
		return rc;
	if ((rc = sl__jlist_count(&o->mine, in, row, acc, at, nm, err)))
		return rc;
	return sl__jlist_store(&o->b, o->b.st[0], 0, key->p, (uint32_t)key->len, &o->mine, err);
}

static int right_row(semi_op *o, const sl_batch *in, int row, int acc, int64_t wm, sl_err *err)
{
	int rc = sl__join_key(&o->b, 1, in, row, err);
	if (rc)
		return rc < 0 ? rc : 0; /* a NULL key matches nothing */
	const sl_buf *key = &o->b.key;
	sl_buf_clear(&o->row);
	if (sl_rowcodec_row(in, row, &o->row))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if ((rc = sl__jlist_load(o->b.st[1], 0, key->p, (uint32_t)key->len, &o->mine, err)))
		return rc;
	long at = sl__jlist_find(&o->b, &o->mine, o->row.p, o->row.len, err);
	if (at == -2)
		return err->code;
	if (!acc && at < 0)
		return 0; /* retraction of a row this join never saw */
	match_ctx m = {o, acc, wm, 0};
	if ((rc = sl__jlist_load(o->b.st[0], 0, key->p, (uint32_t)key->len, &o->other, err)) ||
	    (rc = sl__join_match(&o->b, 1, in, row, &o->other, NULL, bump_match, &m, err)))
		return rc;
	if (m.total &&
	    (rc = sl__jlist_store(&o->b, o->b.st[0], 0, key->p, (uint32_t)key->len, &o->other, err)))
		return rc;
	if ((rc = sl__jlist_count(&o->mine, in, row, acc, at, 0, err)))
		return rc;
	return sl__jlist_store(&o->b, o->b.st[1], 0, key->p, (uint32_t)key->len, &o->mine, err);
}

static int semi_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	semi_op *o = (semi_op *)op;
	SL_BATCH_FOREACH(in, k, row) {
		int64_t wm = in->wm[row]; /* rule 6 (docs/parallel.md §4) */
		int acc = in->op[row] == SL_INSERT || in->op[row] == SL_UPDATE_AFTER;
		int rc = input == 0 ? left_row(o, in, row, acc, wm, err)
		                    : right_row(o, in, row, acc, wm, err);
		if (rc)
			return rc;
	}
	return sl__joiner_flush(&o->b.j, err);
}

static int semi_open(sl_op *op, sl_err *err)
{
	static const char *const names[2] = {"left", "right"};
	static const sl_state_pkey_cols_ctx none = {NULL, 0};
	sl_join_base *b = (sl_join_base *)op;
	int rc = sl__join_base_open(b, names, err);
	/* Without keys every row is under the one constant byte, but its key
	 * group is the empty key's, the one the singleton exchange gives every
	 * row (plan_dist.c): until s12 it was the byte's, harmless only
	 * because a singleton instance owns every group; test_plan_dist
	 * checks it.  With keys the whole key is the partitioning key. */
	for (int s = 0; !rc && b->p.nkeys == 0 && s < 2; s++)
		sl_state_table_set_pkey(b->st[s], sl__join_pkey, &none);
	return rc;
}

static void semi_close(sl_op *op)
{
	semi_op *o = (semi_op *)op;
	sl__join_base_close(&o->b);
	sl_buf_deinit(&o->row);
	sl_buf_deinit(&o->mine);
	sl_buf_deinit(&o->other);
}

static const sl_op_vtab semi_vtab = {
	.name = "SemiJoin",
	.kind = SL_OPK_SEMI_JOIN,
	.flags = SL_OPF_STATE_TTL | SL_OPF_TTL_PER_SIDE,
	.open = semi_open,
	.process = semi_process,
	.close = semi_close,
};

sl_op *sl_op_semi_join_new(const sl_join_plan *p, int anti, sl_err *err)
{
	sl_join_base *b = sl__join_base_new(sizeof(semi_op), &semi_vtab, p, "semi join", err);
	if (!b)
		return NULL;
	((semi_op *)b)->anti = anti;
	return &b->op;
}
