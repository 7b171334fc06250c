/*
 * op_calc.c - Calc: a filter followed by a projection, stateless.
 *
 * INTERFACE ROUTINES
 *   process   filter (sets a selection over a shallow copy of the input),
 *             then evaluates the projection for the surviving rows into the
 *             output batch at the same row positions; op and W_before pass
 *             through unchanged, so Calc works on updating streams too
 *             (each change is filtered and projected on its own, as in
 *             Flink).  A filter with a computed projection is one program
 *             (sl_prog_compile_where), so a call in both, as Nexmark q21's
 *             REGEXP_EXTRACT(url, ...) and lower(channel), runs once per
 *             row.
 *   watermark (default: forwarded unchanged)
 *
 * Strings of the output may point into the input batch; that is valid for
 * consumers because they see the output during the emit of the input.  A
 * projection of input columns only, each of its own type (as after a window
 * aggregate, which drops window_end and window_time), copies nothing: the
 * output is a view whose columns are the input's (o->ref).
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
	sl_prog *filter;   /* filter alone (a projection of input columns) */
	sl_prog *proj;     /* the projection, after the filter when there is one */
	int where;         /* proj is a where program: filter and projection */
	sl_batch *out;
	int *ref;       /* projection of input columns only: their indices; else NULL */
	sl_batch vout;  /* with ref: the output view (cols owned here, vectors not) */
} calc_op;

static int calc_process2(calc_op *o, const sl_batch *in, sl_batch *view, sl_err *err);
static int calc_where(calc_op *o, const sl_batch *in, sl_batch *view, sl_err *err);
static int out_reserve(calc_op *o, const sl_batch *in, sl_err *err);

static int calc_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	calc_op *o = (calc_op *)op;
	sl_batch view = *in;
	int rc = calc_process2(o, in, &view, err);
	if (rc && (err->row_batch == &view || err->row_batch == o->out || err->row_batch == &o->vout))
		err->row_batch = in; /* same row positions */
	return rc;
}

static int calc_process2(calc_op *o, const sl_batch *in, sl_batch *view, sl_err *err)
{
	sl_op *op = &o->base;
	int rc;
	if (o->where)
		return calc_where(o, in, view, err);
	if (o->filter) {
		if ((rc = sl_prog_filter(o->filter, view, &op->graph->ectx, err)))
			return rc;
		if (sl_batch_live(view) == 0)
			return 0;
	}
	if (o->ref) {
		sl_batch *v = &o->vout;
		v->nrows = in->nrows;
		v->cap = in->cap;
		v->op = in->op;
		v->wm = in->wm;
		v->sel = view->sel;
		v->nsel = view->nsel;
		for (int i = 0; i < v->ncols; i++)
			v->cols[i] = in->cols[o->ref[i]];
		return sl_op_emit(op, v, err);
	}
	if ((rc = out_reserve(o, in, err)))
		return rc;
	sl_batch *out = o->out;
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

/* Output batch o->out sized for `in`, reset.  0 or SL_ENOMEM. */
static int out_reserve(calc_op *o, const sl_batch *in, sl_err *err)
{
	sl_op *op = &o->base;
	if (in->nrows > o->out->cap) {
		sl_batch_free(o->out);
		o->out = sl_batch_new(op->nout, op->out_types, in->nrows);
		if (!o->out)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	sl_batch_reset(o->out);
	o->out->nrows = in->nrows;
	return 0;
}

/* Filter and projection in one program (o->where). */
static int calc_where(calc_op *o, const sl_batch *in, sl_batch *view, sl_err *err)
{
	int rc = out_reserve(o, in, err);
	if (rc)
		return rc;
	sl_batch *out = o->out;
	if ((rc = sl_prog_eval_where(o->proj, view, out, out->cols, &o->base.graph->ectx, err)))
		return rc;
	if (sl_batch_live(view) == 0)
		return 0;
	memcpy(out->op, in->op, (size_t)in->nrows);
	memcpy(out->wm, in->wm, sizeof(int64_t) * (size_t)in->nrows);
	out->sel = view->sel;
	out->nsel = view->nsel;
	rc = sl_op_emit(&o->base, out, err);
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
	free(o->ref);
	free(o->vout.cols);
}

/* Whether a and b hold the same values in the same representation. */
static int same_type(const sl_type *a, const sl_type *b)
{
	return a->id == b->id && a->precision == b->precision && a->scale == b->scale &&
	       a->length == b->length && a->row == b->row;
}

/* Sets o->ref when every projected expression is an input column of the
 * same type as the output's (nothing to compute).  0 or SL_ENOMEM. */
static int find_refs(calc_op *o, sl_expr *const *proj, int nproj, const sl_type *in_types,
                     int nin)
{
	for (int i = 0; i < nproj; i++)
		if (proj[i]->kind != SL_EX_COL || proj[i]->col < 0 || proj[i]->col >= nin ||
		    !same_type(&proj[i]->type, &in_types[proj[i]->col]))
			return 0;
	o->ref = malloc(sizeof(int) * (size_t)(nproj ? nproj : 1));
	o->vout.cols = calloc((size_t)(nproj ? nproj : 1), sizeof(sl_col));
	if (!o->ref || !o->vout.cols)
		return SL_ENOMEM;
	for (int i = 0; i < nproj; i++)
		o->ref[i] = proj[i]->col;
	o->vout.ncols = nproj;
	return 0;
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
	if (find_refs(o, proj, nproj, in_types, nin)) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		goto fail;
	}
	o->where = filter && !o->ref;
	if (filter && !o->where && !(o->filter = sl_prog_compile(&filter, 1, in_types, nin, err)))
		goto fail;
	if (o->where)
		o->proj = sl_prog_compile_where(filter, proj, nproj, in_types, nin, err);
	else
		o->proj = sl_prog_compile(proj, nproj, in_types, nin, err);
	if (!o->proj)
		goto fail;
	return &o->base;
fail:
	sl_op_free(&o->base); /* calls its close */
	return NULL;
}
