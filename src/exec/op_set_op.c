/*
 * op_set_op.c - INTERSECT and EXCEPT, ALL and DISTINCT, as one updating
 * operator with two inputs (0 = the left query, 1 = the right one).
 *
 * Both inputs have the same column types (the planner casts them to the
 * common type first).  The operator counts, per distinct row, how many
 * times it is present on each side; the rows it outputs are a function of
 * the two counts l and r:
 *
 *   INTERSECT ALL       min(l, r)          INTERSECT (DISTINCT)  l > 0 && r > 0
 *   EXCEPT ALL          max(l - r, 0)      EXCEPT (DISTINCT)     l > 0 && r == 0
 *
 * (SQL's multiset semantics, as Flink computes them.)
 *
 * INTERFACE ROUTINES
 *   process    per input row: +I/+U add one to its side's count, -U/-D take
 *              one away (a retraction of a row never counted is ignored:
 *              its state expired under a TTL).  When the output count of
 *              the row grows, +I of the row; when it shrinks, -D.  One
 *              input row changes one count by one, so it emits at most one
 *              row.  The emitted row is the input row itself (same values:
 *              they are the key), with the input row's W_before.
 *   watermark  forwarded unchanged (the output carries no time attribute)
 *
 * The output is append-only when it can only grow: INTERSECT over two
 * append-only inputs; otherwise it is updating (+I/-D).
 *
 * State: table "counts", namespace 0, key = every column in the key form
 * of data/rowcodec.h, value = two int64 counts (left, right); an entry
 * whose counts are both zero is deleted.  Snapshotted by the state backend like every
 * table; no private scalars.  Under a state TTL ('table.exec.state.ttl')
 * an entry not written for the TTL is forgotten, as in Flink.
 *
 * No malloc per row (the key buffer and the emitter's batch, emit.h, are
 * re-used).  One
 * thread (the job's).
 */
#include "emit.h"
#include "ops.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct counts {
	int64_t n[2]; /* left, right */
} counts;

typedef struct setop_op {
	sl_op base;
	sl_setop_kind kind;
	int all;
	int *all_cols; /* 0..nout-1 */
	sl_state_table *counts;
	sl_emitter out;
	sl_buf key;
} setop_op;

/* The number of copies of a row the operator outputs for counts c. */
static int64_t out_count(const setop_op *o, const counts *c)
{
	int64_t l = c->n[0], r = c->n[1];
	if (o->kind == SL_SETOP_INTERSECT)
		return o->all ? (l < r ? l : r) : (l > 0 && r > 0);
	return o->all ? (l > r ? l - r : 0) : (l > 0 && r == 0);
}

static int setop_row(setop_op *o, int input, const sl_batch *in, int row, sl_err *err)
{
	int sign = in->op[row] == SL_INSERT || in->op[row] == SL_UPDATE_AFTER ? 1 : -1;
	sl_buf_clear(&o->key);
	if (sl_rowcodec_key(in, o->all_cols, o->base.nout, row, &o->key))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	uint32_t klen = (uint32_t)o->key.len;
	counts *c = sign > 0 ? sl_state_upsert(o->counts, 0, o->key.p, klen, NULL)
	                     : sl_state_get(o->counts, 0, o->key.p, klen);
	if (!c) {
		if (sign > 0)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		return 0; /* retraction of a row never counted (expired state) */
	}
	if (sign < 0 && c->n[input] <= 0)
		return 0;
	int64_t before = out_count(o, c);
	c->n[input] += sign;
	int64_t after = out_count(o, c);
	if (c->n[0] == 0 && c->n[1] == 0)
		sl_state_delete(o->counts, 0, o->key.p, klen);
	if (after == before)
		return 0;
	int rc = sl_emitter_copy_row(&o->out, in, row, after > before ? SL_INSERT : SL_DELETE,
	                             in->wm[row], err);
	return rc < 0 ? rc : 0;
}

static int setop_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	setop_op *o = (setop_op *)op;
	int rc;
	SL_BATCH_FOREACH(in, k, row) {
		if ((rc = setop_row(o, input, in, row, err)))
			return rc;
	}
	return sl_emitter_flush(&o->out, err);
}

static int setop_open(sl_op *op, sl_err *err)
{
	setop_op *o = (setop_op *)op;
	if (!(o->counts = sl_op_table_open(op, "counts", sizeof(counts), 0, 0, err)))
		return err->code;
	if (sl_emitter_init(&o->out, op, 0, err))
		return err->code;
	o->all_cols = calloc((size_t)op->nout + 1, sizeof(int));
	if (!o->all_cols)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < op->nout; i++)
		o->all_cols[i] = i;
	return 0;
}

static void setop_close(sl_op *op)
{
	setop_op *o = (setop_op *)op;
	sl_emitter_deinit(&o->out);
	free(o->all_cols);
	sl_buf_deinit(&o->key);
}

static const sl_op_vtab setop_vtab = {
	.name = "SetOp",
	.kind = SL_OPK_SET_OP,
	.flags = SL_OPF_STATE_TTL,
	.open = setop_open,
	.process = setop_process,
	.close = setop_close,
};

/*
 * sl_op_set_op_new: an INTERSECT (kind SL_SETOP_INTERSECT) or EXCEPT
 * (SL_SETOP_EXCEPT) operator, multiset semantics when `all`, set semantics
 * otherwise.  Two inputs of identical column types; its output columns
 * (set by sl_graph_add) are the same.  Returns the operator (owned by the
 * graph once added) or NULL with err set (SL_ENOMEM).
 */
sl_op *sl_op_set_op_new(sl_setop_kind kind, int all, sl_err *err)
{
	setop_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &setop_vtab;
	o->kind = kind;
	o->all = all;
	return &o->base;
}
