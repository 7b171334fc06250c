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
 */
#include "join.h"
#include "graph.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct join_op {
	sl_op base;
	sl_join_plan p;
	int *keys[2];           /* key columns of each input */
	int outer[2];           /* side s keeps unmatched rows (padded) */
	sl_state_table *st[2];  /* "left", "right" */
	sl_joiner j;
	sl_buf key;             /* encoded join key of the current row */
	sl_buf row;             /* encoded current row */
	sl_buf mine, other;     /* copies of the key's record lists */
	size_t recoff[256];     /* offsets in `other` of the chunk's records */
} join_op;

/* Emits (input row | stored bytes of side 1 - s) with the input row on side
 * s; bytes NULL pads the other side, in NULL pads the input's side. */
static int emit_pair(join_op *o, int s, const sl_batch *in, int row, const char *bytes,
                     uint32_t len, uint8_t op, int64_t wm, sl_err *err)
{
	if (s == 0)
		return sl__joiner_emit(&o->j, in, row, NULL, 0, NULL, -1, bytes, len, op, wm, err);
	return sl__joiner_emit(&o->j, NULL, -1, bytes, len, in, row, NULL, 0, op, wm, err);
}

/* Emits n copies of a stored row of side `side`, the other side padded. */
static int emit_stored(join_op *o, int side, const char *bytes, uint32_t len, uint32_t n,
                       uint8_t op, int64_t wm, sl_err *err)
{
	for (uint32_t i = 0; i < n; i++) {
		int rc = side == 0
		       ? sl__joiner_emit(&o->j, NULL, -1, bytes, len, NULL, -1, NULL, 0, op, wm, err)
		       : sl__joiner_emit(&o->j, NULL, -1, NULL, 0, NULL, -1, bytes, len, op, wm, err);
		if (rc)
			return rc;
	}
	return 0;
}

static int load(sl_state_table *t, const sl_buf *key, sl_buf *into, sl_err *err)
{
	const void *v;
	uint32_t vl;
	sl_buf_clear(into);
	if (sl_state_get_var(t, 0, key->p, (uint32_t)key->len, &v, &vl) &&
	    sl_buf_append(into, v, vl))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

static int store(sl_state_table *t, const sl_buf *key, const sl_buf *val, sl_err *err)
{
	if (val->len == 0) {
		sl_state_delete(t, 0, key->p, (uint32_t)key->len);
		return 0;
	}
	int rc = sl_state_put_var(t, 0, key->p, (uint32_t)key->len, val->p, (uint32_t)val->len);
	return rc ? sl_err_set(err, rc, "join state: write failed") : 0;
}

/* Handles the matched records of one evaluated chunk (records at recoff[]
 * of `other`, candidates 0..n).  Adds the matched row count to *nm. */
static int chunk_matched(join_op *o, int s, int n, int acc, int64_t wm, int64_t *nm, int *changed,
                         sl_err *err)
{
	int os = 1 - s, rc;
	for (int i = 0; i < n; i++) {
		if (!o->j.ok[i])
			continue;
		const char *p = o->other.p + o->recoff[i], *end = o->other.p + o->other.len;
		sl_jrec r;
		if (sl__jrec_read(&p, end, &r))
			return sl_err_set(err, SL_ESTATE, "join state: malformed record");
		char *rec = o->other.p + o->recoff[i];
		*nm += r.count;
		if (acc) {
			if (o->outer[os] && r.aux == 0 &&
			    (rc = emit_stored(o, os, r.row, r.len, r.count, SL_DELETE, wm, err)))
				return rc;
			for (uint32_t k = 0; k < r.count; k++)
				if ((rc = sl__joiner_emit_cand(&o->j, i, SL_INSERT, wm, err)))
					return rc;
			if (o->outer[os]) {
				sl__jrec_set(rec, r.count, r.aux + 1);
				*changed = 1;
			}
		} else {
			for (uint32_t k = 0; k < r.count; k++)
				if ((rc = sl__joiner_emit_cand(&o->j, i, SL_DELETE, wm, err)))
					return rc;
			if (o->outer[os]) {
				if (r.aux == 1 &&
				    (rc = emit_stored(o, os, r.row, r.len, r.count, SL_INSERT, wm, err)))
					return rc;
				sl__jrec_set(rec, r.count, r.aux > 0 ? r.aux - 1 : 0);
				*changed = 1;
			}
		}
	}
	return 0;
}

/* Matches input row (s, in, row) against the other side's records of its
 * key, emitting joined rows; *nm = matched other rows (with duplicates). */
static int match_other(join_op *o, int s, const sl_batch *in, int row, int acc, int64_t wm,
                       int64_t *nm, sl_err *err)
{
	int os = 1 - s, rc, changed = 0;
	*nm = 0;
	if ((rc = load(o->st[os], &o->key, &o->other, err)))
		return rc;
	const char *p = o->other.p, *end = p + o->other.len;
	while (p < end) {
		sl__joiner_cand_reset(&o->j);
		int n = 0;
		while (p < end && n < o->j.cand->cap) {
			sl_jrec r;
			o->recoff[n] = (size_t)(p - o->other.p);
			if (sl__jrec_read(&p, end, &r))
				return sl_err_set(err, SL_ESTATE, "join state: malformed record");
			rc = s == 0 ? sl__joiner_cand_add(&o->j, in, row, NULL, 0, NULL, -1, r.row, r.len, err)
			            : sl__joiner_cand_add(&o->j, NULL, -1, r.row, r.len, in, row, NULL, 0, err);
			if (rc < 0)
				return rc;
			n++;
		}
		if ((rc = sl__joiner_cand_eval(&o->j, err)) ||
		    (rc = chunk_matched(o, s, n, acc, wm, nm, &changed, err)))
			return rc;
	}
	return changed ? store(o->st[os], &o->key, &o->other, err) : 0;
}

/* Finds the record of the current row (o->row) in `mine`: its offset, or -1. */
static long find_mine(join_op *o, sl_err *err)
{
	const char *p = o->mine.p, *end = p + o->mine.len;
	while (p < end) {
		const char *at = p;
		sl_jrec r;
		if (sl__jrec_read(&p, end, &r)) {
			sl_err_set(err, SL_ESTATE, "join state: malformed record");
			return -2;
		}
		if (r.len == o->row.len && memcmp(r.row, o->row.p, r.len) == 0)
			return at - o->mine.p;
	}
	return -1;
}

/* Adds (acc) or retracts the current row in its side's list (loaded in
 * `mine`, record at `at` or -1), nm = its matches, and writes it back. */
static int update_mine(join_op *o, int s, const sl_batch *in, int row, int acc, long at,
                       int64_t nm, sl_err *err)
{
	if (at < 0) {
		if (sl__jrec_append(&o->mine, in, row, 1, nm, 0))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	} else {
		const char *p = o->mine.p + at;
		sl_jrec r;
		sl__jrec_read(&p, o->mine.p + o->mine.len, &r);
		uint32_t count = acc ? r.count + 1 : r.count - 1;
		if (count == 0) {
			size_t sz = SL_JREC_HDR + r.len;
			memmove(o->mine.p + at, o->mine.p + at + sz, o->mine.len - (size_t)at - sz);
			o->mine.len -= sz;
		} else {
			sl__jrec_set(o->mine.p + at, count, nm);
		}
	}
	return store(o->st[s], &o->key, &o->mine, err);
}

static int join_row(join_op *o, int s, const sl_batch *in, int row, int64_t wm, sl_err *err)
{
	int acc = in->op[row] == SL_INSERT || in->op[row] == SL_UPDATE_AFTER, rc;
	if (sl_rowcodec_key_null(in, o->keys[s], o->p.nkeys, row)) {
		if (!o->outer[s])
			return 0;
		return emit_pair(o, s, in, row, NULL, 0, acc ? SL_INSERT : SL_DELETE, wm, err);
	}
	sl_buf_clear(&o->key);
	sl_buf_clear(&o->row);
	if (sl_rowcodec_key(in, o->keys[s], o->p.nkeys, row, &o->key) ||
	    sl_rowcodec_row(in, row, &o->row))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if ((rc = load(o->st[s], &o->key, &o->mine, err)))
		return rc;
	long at = find_mine(o, err);
	if (at == -2)
		return err->code;
	if (!acc && at < 0)
		return 0; /* retraction of a row this join never saw */
	int64_t nm;
	if ((rc = match_other(o, s, in, row, acc, wm, &nm, err)))
		return rc;
	if (nm == 0 && o->outer[s] &&
	    (rc = emit_pair(o, s, in, row, NULL, 0, acc ? SL_INSERT : SL_DELETE, wm, err)))
		return rc;
	/* `mine` is a copy: the other side's write did not disturb it */
	return update_mine(o, s, in, row, acc, at, nm, err);
}

static int join_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	join_op *o = (join_op *)op;
	int64_t others = sl_op_inputs_wm(op, input);
	SL_BATCH_FOREACH(in, k, row) {
		int64_t wm = in->wm[row] < others ? in->wm[row] : others;
		int rc = join_row(o, input, in, row, wm, err);
		if (rc)
			return rc;
	}
	return sl__joiner_flush(&o->j, err);
}

static int join_open(sl_op *op, sl_err *err)
{
	join_op *o = (join_op *)op;
	static const char *names[2] = {"left", "right"};
	for (int s = 0; s < 2; s++)
		if (!(o->st[s] = sl_op_table_open(op, names[s], 0, s, 0, err)))
			return err->code;
	return sl__joiner_init(&o->j, op, &o->p, err);
}

static void join_close(sl_op *op)
{
	join_op *o = (join_op *)op;
	sl__joiner_deinit(&o->j);
	sl_buf_deinit(&o->key);
	sl_buf_deinit(&o->row);
	sl_buf_deinit(&o->mine);
	sl_buf_deinit(&o->other);
	free(o->keys[0]);
	free(o->keys[1]);
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
	join_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &join_vtab;
	if (sl__join_plan_own(&o->p, o->keys, p, err) ||
	    (p->nkeys < 1 && sl_err_set(err, SL_EPLAN, "a join needs at least one equality key"))) {
		sl_op_free(&o->base); /* calls its close */
		return NULL;
	}
	o->outer[0] = p->kind == SL_JOIN_LEFT || p->kind == SL_JOIN_FULL;
	o->outer[1] = p->kind == SL_JOIN_RIGHT || p->kind == SL_JOIN_FULL;
	return &o->base;
}
