/*
 * op_union.c - UNION ALL: merges its inputs' rows, unchanged.
 *
 * The runtime merges the inputs' watermarks (minimum).  Each row's
 * W_before is lowered to the minimum of its own and the other inputs'
 * current watermarks, so that a downstream window judges it against the
 * merged watermark (docs/semantics.md §1: an operator with several inputs has the
 * minimum of its inputs' watermarks, idle inputs left out).
 */
#include "ops.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct union_op {
	sl_op base;
	int64_t *wm;   /* adjusted W_before vector */
	int cap;
} union_op;

static int union_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	union_op *o = (union_op *)op;
	int64_t others = sl_op_inputs_wm(op, input);
	if (in->nrows > o->cap) {
		free(o->wm);
		o->cap = in->nrows;
		if (!(o->wm = malloc(sizeof(int64_t) * (size_t)o->cap)))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	for (int i = 0; i < in->nrows; i++)
		o->wm[i] = in->wm[i] < others ? in->wm[i] : others;
	sl_batch view = *in;
	view.wm = o->wm;
	return sl_op_emit(op, &view, err);
}

static void union_close(sl_op *op)
{
	free(((union_op *)op)->wm);
}

static const sl_op_vtab union_vtab = {
	.name = "Union",
	.kind = SL_OPK_UNION,
	.process = union_process,
	.close = union_close,
};

sl_op *sl_op_union_new(sl_err *err)
{
	union_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &union_vtab;
	return &o->base;
}
