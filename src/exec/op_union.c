/*
 * op_union.c - UNION ALL: merges its inputs' rows, unchanged.
 *
 * The runtime merges the inputs' watermarks (minimum).  Rows pass with
 * their own W_before: a row is late exactly when it is late by the
 * watermark of its own partition (docs/parallel.md §4, rule 3), never
 * because of how far the other inputs have got, which at parallelism N
 * would be thread timing.  A row that is not late by its own W_before is
 * not late downstream either: an operator fires at its own watermark, the
 * minimum over its inputs, which is at most W_before(r) when r arrives.
 */
#include "ops.h"
#include "sluice.h"

#include <stdlib.h>

static int union_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	return sl_op_emit(op, in, err);
}

static const sl_op_vtab union_vtab = {
	.name = "Union",
	.kind = SL_OPK_UNION,
	.process = union_process,
};

sl_op *sl_op_union_new(sl_err *err)
{
	sl_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->vt = &union_vtab;
	return o;
}
