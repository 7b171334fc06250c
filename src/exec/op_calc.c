/*
 * op_calc.c - Calc: a filter followed by a projection, stateless.
 *
 * INTERFACE ROUTINES
 *   process   filter (sets a selection over a shallow copy of the input),
 *             then evaluates the projection for the surviving rows into the
 *             output batch at the same row positions; op and W_before pass
 *             through unchanged, so Calc works on updating streams too
 *             (each change is filtered and projected on its own, as in
 *             Flink).
 *   watermark (default: forwarded unchanged)
 *
 * Strings of the output may point into the input batch; that is valid for
 * consumers because they see the output during the emit of the input.
 *
 * Run-time errors: rows keep their positions, so an error whose failing row
 * (err->row, err.h) is in the filtered view or in the output batch is
 * handed back as a row of the input batch; the scan upstream names its
 * source position.
 */
#include "graph.h"
#include "ops.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct calc_op {
	sl_op base;
	sl_prog *filter;
	sl_prog *proj;
	sl_batch *out;
} calc_op;

static int calc_process2(calc_op *o, const sl_batch *in, sl_batch *view, sl_err *err);

static int calc_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	calc_op *o = (calc_op *)op;
	sl_batch view = *in;
	int rc = calc_process2(o, in, &view, err);
	if (rc && (err->row_batch == &view || err->row_batch == o->out))
		err->row_batch = in; /* same row positions */
	return rc;
}

static int calc_process2(calc_op *o, const sl_batch *in, sl_batch *view, sl_err *err)
{
	sl_op *op = &o->base;
	int rc;
	if (o->filter) {
		if ((rc = sl_prog_filter(o->filter, view, &op->graph->ectx, err)))
			return rc;
		if (sl_batch_live(view) == 0)
			return 0;
	}
	sl_batch *out = o->out;
	if (in->nrows > out->cap) {
		sl_batch_free(out);
		o->out = out = sl_batch_new(op->nout, op->out_types, in->nrows);
		if (!out)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	sl_batch_reset(out);
	out->nrows = in->nrows;
	memcpy(out->op, in->op, (size_t)in->nrows);
	memcpy(out->wm, in->wm, sizeof(int64_t) * (size_t)in->nrows);
	if ((rc = sl_prog_eval(o->proj, view, out, out->cols, &op->graph->ectx, err)))
		return rc;
	out->sel = view->sel;
	out->nsel = view->nsel;
	rc = sl_op_emit(op, out, err);
	out->sel = NULL;
	return rc;
}

static int calc_open(sl_op *op, sl_err *err)
{
	calc_op *o = (calc_op *)op;
	o->out = sl_batch_new(op->nout, op->out_types, 0);
	return o->out ? 0 : sl_err_set(err, SL_ENOMEM, "out of memory");
}

static void calc_close(sl_op *op)
{
	calc_op *o = (calc_op *)op;
	sl_prog_free(o->filter);
	sl_prog_free(o->proj);
	sl_batch_free(o->out);
}

static const sl_op_vtab calc_vtab = {
	.name = "Calc",
	.kind = SL_OPK_CALC,
	.open = calc_open,
	.process = calc_process,
	.close = calc_close,
};

sl_op *sl_op_calc_new(sl_expr *filter, sl_expr *const *proj, int nproj, const sl_type *in_types,
                      int nin, sl_err *err)
{
	calc_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &calc_vtab;
	if (filter && !(o->filter = sl_prog_compile(&filter, 1, in_types, nin, err)))
		goto fail;
	if (!(o->proj = sl_prog_compile(proj, nproj, in_types, nin, err)))
		goto fail;
	return &o->base;
fail:
	sl_op_free(&o->base); /* calls its close */
	return NULL;
}
