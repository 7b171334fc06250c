/*
 * op_constraint.c - ConstraintEnforcer: the NOT NULL check of a sink's
 * columns, between the sink's cast Calc and the sink (Flink's
 * ConstraintEnforcer operator, 'table.exec.sink.not-null-enforcer').
 *
 * INTERFACE ROUTINES
 *   process   looks at the NOT NULL columns of every live row: with
 *             ERROR (Flink's default) a NULL stops the job with Flink's
 *             message naming the column; with DROP the row is left out
 *             of the batch passed on (a view with its own selection, no
 *             copy), whatever its change kind, as Flink drops it.
 *   watermark (default: forwarded unchanged)
 *
 * Stateless; rows, ops and W_before pass through unchanged.  The length
 * part of Flink's enforcer ('table.exec.sink.type-length-enforcer' =
 * TRIM_PAD) is a CAST in the Calc before this operator (plan_sink.c).
 */
#include "ops.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct constraint_op {
	sl_op base;
	int *cols;          /* NOT NULL columns */
	const char **names; /* their names (plan arena) */
	int ncols;
	int drop;           /* DROP rather than ERROR */
	uint32_t *sel;      /* DROP: the view's selection */
	int cap;
} constraint_op;

/* The first NOT NULL column that is NULL in row, or -1. */
static int null_col(const constraint_op *o, const sl_batch *in, int row)
{
	for (int c = 0; c < o->ncols; c++)
		if (in->cols[o->cols[c]].null[row])
			return c;
	return -1;
}

static int constraint_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	constraint_op *o = (constraint_op *)op;
	if (!o->drop) {
		SL_BATCH_FOREACH(in, k, row) {
			int c = null_col(o, in, row);
			if (c >= 0)
				return sl_err_set(err, SL_ERUNTIME,
				                  "Column '%s' is NOT NULL, however, a null value is being "
				                  "written into it. You can set job configuration "
				                  "'table.exec.sink.not-null-enforcer'='DROP' to suppress "
				                  "this exception and drop such records silently.",
				                  o->names[c]);
		}
		return sl_op_emit(op, in, err);
	}
	if (in->nrows > o->cap) {
		uint32_t *s = realloc(o->sel, sizeof(uint32_t) * (size_t)in->nrows);
		if (!s)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		o->sel = s;
		o->cap = in->nrows;
	}
	sl_batch view = *in;
	view.sel = o->sel;
	view.nsel = 0;
	SL_BATCH_FOREACH(in, k, row) {
		if (null_col(o, in, row) < 0)
			o->sel[view.nsel++] = (uint32_t)row;
	}
	if (view.nsel == sl_batch_live(in))
		return sl_op_emit(op, in, err);
	return sl_op_emit(op, &view, err);
}

static void constraint_close(sl_op *op)
{
	constraint_op *o = (constraint_op *)op;
	free(o->cols);
	free(o->sel);
}

static const sl_op_vtab constraint_vtab = {
	.name = "ConstraintEnforcer",
	.kind = SL_OPK_CONSTRAINT,
	.process = constraint_process,
	.close = constraint_close,
};

sl_op *sl_op_constraint_new(const int *cols, const char *const *names, int ncols, int drop,
                            sl_err *err)
{
	constraint_op *o = calloc(1, sizeof(*o));
	if (!o || !(o->cols = malloc(sizeof(int) * (size_t)(ncols + 1)))) {
		free(o);
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &constraint_vtab;
	memcpy(o->cols, cols, sizeof(int) * (size_t)ncols);
	o->names = (const char **)names;
	o->ncols = ncols;
	o->drop = drop;
	return &o->base;
}
