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
 * (one constant byte without keys), value = a list of records (join.h),
 * one per distinct row: its bytes, its count (duplicates) and, on the left,
 * its match count in aux.  A record goes when its count falls to zero, a
 * key when its list is empty; with a state TTL (per side, as the regular
 * join) a key's rows go when not written for the TTL.  Each row reads and
 * rewrites its key's lists: O(rows of the key) per row, and every row
 * without keys is O(rows of the other side).
 */
#include "join.h"
#include "graph.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct semi_op {
	sl_op base;
	sl_join_plan p;
	int anti;
	int *keys[2];           /* key columns of each input */
	sl_type *jtypes;        /* left ++ right column types (candidates) */
	sl_state_table *st[2];  /* "left", "right" */
	sl_joiner j;            /* candidates and residual; j.out: left columns */
	sl_buf key;             /* encoded join key of the current row */
	sl_buf row;             /* encoded current row */
	sl_buf mine, other;     /* copies of the key's record lists */
	size_t recoff[256];     /* offsets in `other` of the chunk's records */
} semi_op;

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
	return rc ? sl_err_set(err, rc, "semi join state: write failed") : 0;
}

/* Emits a left row: from the input batch (in, row) or stored bytes. */
static int emit_left(semi_op *o, const sl_batch *in, int row, const char *bytes, uint32_t len,
                     uint8_t op, int64_t wm, sl_err *err)
{
	if (in) {
		int rc = sl_emitter_copy_row(&o->j.out, in, row, op, wm, err);
		return rc < 0 ? rc : 0;
	}
	return sl__joiner_emit_left(&o->j, bytes, len, op, wm, err);
}

/* Encodes the join key of row `row` of input s into o->key; 1 when a key
 * column is NULL (the row matches nothing). */
static int encode_key(semi_op *o, int s, const sl_batch *in, int row, sl_err *err)
{
	sl_buf_clear(&o->key);
	if (o->p.nkeys == 0)
		return sl_buf_putc(&o->key, 0) ? -sl_err_set(err, SL_ENOMEM, "out of memory") : 0;
	if (sl_rowcodec_key_null(in, o->keys[s], o->p.nkeys, row))
		return 1;
	if (sl_rowcodec_key(in, o->keys[s], o->p.nkeys, row, &o->key))
		return -sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

/* Finds the current row (o->row) in `list`: its offset, -1 absent, -2 error. */
static long find_rec(const sl_buf *list, const sl_buf *row, sl_err *err)
{
	const char *p = list->p, *end = p + list->len;
	while (p < end) {
		const char *at = p;
		sl_jrec r;
		if (sl__jrec_read(&p, end, &r)) {
			sl_err_set(err, SL_ESTATE, "semi join state: malformed record");
			return -2;
		}
		if (r.len == row->len && memcmp(r.row, row->p, r.len) == 0)
			return at - list->p;
	}
	return -1;
}

/* Adds (acc) or retracts the current row in `list` (record at `at` or -1),
 * with match count nm for a new or updated record. */
static int update_list(sl_buf *list, const sl_batch *in, int row, int acc, long at, int64_t nm,
                       sl_err *err)
{
	if (at < 0)
		return sl__jrec_append(list, in, row, 1, nm, 0) ? sl_err_set(err, SL_ENOMEM,
		                                                             "out of memory") : 0;
	const char *p = list->p + at;
	sl_jrec r;
	sl__jrec_read(&p, list->p + list->len, &r);
	uint32_t count = acc ? r.count + 1 : r.count - 1;
	if (count == 0) {
		size_t sz = SL_JREC_HDR + r.len;
		memmove(list->p + at, list->p + at + sz, list->len - (size_t)at - sz);
		list->len -= sz;
	} else {
		sl__jrec_set(list->p + at, count, nm);
	}
	return 0;
}

/* Evaluates the residual for the records of `other` against input row
 * (s, in, row), chunk by chunk, calling back for each match. */
typedef int (*match_fn)(semi_op *o, int i, int64_t wm, int acc, int64_t *acc_out, sl_err *err);

static int for_matches(semi_op *o, int s, const sl_batch *in, int row, match_fn fn, int64_t wm,
                       int acc, int64_t *total, sl_err *err)
{
	const char *p = o->other.p, *end = p + o->other.len;
	int rc;
	while (p < end) {
		sl__joiner_cand_reset(&o->j);
		int n = 0;
		while (p < end && n < o->j.cand->cap) {
			sl_jrec r;
			o->recoff[n] = (size_t)(p - o->other.p);
			if (sl__jrec_read(&p, end, &r))
				return sl_err_set(err, SL_ESTATE, "semi join state: malformed record");
			rc = s == 0 ? sl__joiner_cand_add(&o->j, in, row, NULL, 0, NULL, -1, r.row, r.len, err)
			            : sl__joiner_cand_add(&o->j, NULL, -1, r.row, r.len, in, row, NULL, 0, err);
			if (rc < 0)
				return rc;
			n++;
		}
		if ((rc = sl__joiner_cand_eval(&o->j, err)))
			return rc;
		for (int i = 0; i < n; i++)
			if (o->j.ok[i] && (rc = fn(o, i, wm, acc, total, err)))
				return rc;
	}
	return 0;
}

/* Left row: sums the counts of the matching right records. */
static int count_match(semi_op *o, int i, int64_t wm, int acc, int64_t *total, sl_err *err)
{
	(void)wm, (void)acc;
	const char *p = o->other.p + o->recoff[i];
	sl_jrec r;
	if (sl__jrec_read(&p, o->other.p + o->other.len, &r))
		return sl_err_set(err, SL_ESTATE, "semi join state: malformed record");
	*total += r.count;
	return 0;
}

/* Right row: moves the match count of a matching left record by one and
 * emits the left row's change when its visibility flips. */
static int bump_match(semi_op *o, int i, int64_t wm, int acc, int64_t *changed, sl_err *err)
{
	char *rec = o->other.p + o->recoff[i];
	const char *p = rec;
	sl_jrec r;
	if (sl__jrec_read(&p, o->other.p + o->other.len, &r))
		return sl_err_set(err, SL_ESTATE, "semi join state: malformed record");
	int64_t nm = acc ? r.aux + 1 : (r.aux > 0 ? r.aux - 1 : 0);
	sl__jrec_set(rec, r.count, nm);
	*changed = 1;
	if ((r.aux == 0) == (nm == 0))
		return 0; /* visibility unchanged */
	/* semi: 0 -> 1 inserts, 1 -> 0 deletes; anti the opposite */
	uint8_t op = (nm > 0) != o->anti ? SL_INSERT : SL_DELETE;
	for (uint32_t k = 0; k < r.count; k++) {
		int rc = emit_left(o, NULL, -1, r.row, r.len, op, wm, err);
		if (rc)
			return rc;
	}
	return 0;
}

static int left_row(semi_op *o, const sl_batch *in, int row, int acc, int64_t wm, sl_err *err)
{
	int rc = encode_key(o, 0, in, row, err);
	if (rc < 0)
		return -rc;
	if (rc == 1) /* NULL key: no match ever */
		return o->anti ? emit_left(o, in, row, NULL, 0, acc ? SL_INSERT : SL_DELETE, wm, err) : 0;
	sl_buf_clear(&o->row);
	if (sl_rowcodec_row(in, row, &o->row))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if ((rc = load(o->st[0], &o->key, &o->mine, err)))
		return rc;
	long at = find_rec(&o->mine, &o->row, err);
	if (at == -2)
		return err->code;
	int64_t nm = 0;
	if (!acc && at < 0)
		return 0; /* retraction of a row this join never saw */
	if (at >= 0) {
		const char *p = o->mine.p + at;
		sl_jrec r;
		sl__jrec_read(&p, o->mine.p + o->mine.len, &r);
		nm = r.aux; /* the stored count is current */
	} else {
		if ((rc = load(o->st[1], &o->key, &o->other, err)) ||
		    (rc = for_matches(o, 0, in, row, count_match, wm, acc, &nm, err)))
			return rc;
	}
	if ((nm > 0) != o->anti &&
	    (rc = emit_left(o, in, row, NULL, 0, acc ? SL_INSERT : SL_DELETE, wm, err)))
		return rc;
	if ((rc = update_list(&o->mine, in, row, acc, at, nm, err)))
		return rc;
	return store(o->st[0], &o->key, &o->mine, err);
}

static int right_row(semi_op *o, const sl_batch *in, int row, int acc, int64_t wm, sl_err *err)
{
	int rc = encode_key(o, 1, in, row, err);
	if (rc)
		return rc < 0 ? -rc : 0; /* a NULL key matches nothing */
	sl_buf_clear(&o->row);
	if (sl_rowcodec_row(in, row, &o->row))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if ((rc = load(o->st[1], &o->key, &o->mine, err)))
		return rc;
	long at = find_rec(&o->mine, &o->row, err);
	if (at == -2)
		return err->code;
	if (!acc && at < 0)
		return 0; /* retraction of a row this join never saw */
	int64_t changed = 0;
	if ((rc = load(o->st[0], &o->key, &o->other, err)) ||
	    (rc = for_matches(o, 1, in, row, bump_match, wm, acc, &changed, err)))
		return rc;
	if (changed && (rc = store(o->st[0], &o->key, &o->other, err)))
		return rc;
	if ((rc = update_list(&o->mine, in, row, acc, at, 0, err)))
		return rc;
	return store(o->st[1], &o->key, &o->mine, err);
}

static int semi_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	semi_op *o = (semi_op *)op;
	int64_t others = sl_op_inputs_wm(op, input);
	SL_BATCH_FOREACH(in, k, row) {
		int64_t wm = in->wm[row] < others ? in->wm[row] : others;
		int acc = in->op[row] == SL_INSERT || in->op[row] == SL_UPDATE_AFTER;
		int rc = input == 0 ? left_row(o, in, row, acc, wm, err)
		                    : right_row(o, in, row, acc, wm, err);
		if (rc)
			return rc;
	}
	return sl__joiner_flush(&o->j, err);
}

static int semi_open(sl_op *op, sl_err *err)
{
	semi_op *o = (semi_op *)op;
	static const char *names[2] = {"left", "right"};
	for (int s = 0; s < 2; s++)
		if (!(o->st[s] = sl_op_table_open(op, names[s], 0, s, 0, err)))
			return err->code;
	return sl__joiner_init(&o->j, op, &o->p, err);
}

static void semi_close(sl_op *op)
{
	semi_op *o = (semi_op *)op;
	sl__joiner_deinit(&o->j);
	sl_buf_deinit(&o->key);
	sl_buf_deinit(&o->row);
	sl_buf_deinit(&o->mine);
	sl_buf_deinit(&o->other);
	free(o->keys[0]);
	free(o->keys[1]);
	free(o->jtypes);
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
	semi_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &semi_vtab;
	o->anti = anti;
	if (sl__join_plan_own(&o->p, o->keys, p, err))
		goto fail;
	o->jtypes = malloc(sizeof(sl_type) * (size_t)(p->nl + p->nr + 1));
	if (!o->jtypes) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		goto fail;
	}
	memcpy(o->jtypes, p->ltypes, sizeof(sl_type) * (size_t)p->nl);
	memcpy(o->jtypes + p->nl, p->rtypes, sizeof(sl_type) * (size_t)p->nr);
	o->p.ltypes = o->jtypes; /* the left part; the planner's array may go */
	o->p.rtypes = o->jtypes + p->nl;
	return &o->base;
fail:
	sl_op_free(&o->base); /* calls its close */
	return NULL;
}
