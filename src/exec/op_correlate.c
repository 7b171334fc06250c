/*
 * op_correlate.c - Correlate: UNNEST of an ARRAY or MAP value of each
 * input row (`FROM t CROSS JOIN UNNEST(t.arr) AS u (x)`, the comma form,
 * `LEFT JOIN UNNEST(..) ON TRUE`), stateless, chained to its input.
 *
 * INTERFACE ROUTINES
 *   process   for every live input row, evaluates the collection (or
 *             reads it in place when it is an input column), then emits
 *             one output row per element: the input row's columns
 *             followed by the element columns (ARRAY<ROW<..>>: the row's
 *             fields, NULL fields for a NULL row element; other ARRAYs:
 *             the element; MAP: key, value; WITH ORDINALITY: the 1-based
 *             position last).  A NULL or empty collection gives no row,
 *             or with `left` one row with NULL element columns.  Every
 *             output row carries its input row's change kind and
 *             W_before, so a -U / -D input row expands into the -U / -D
 *             rows of the elements it had (what Flink's Correlate emits:
 *             the same function of the same row), and rowtime columns
 *             pass through unchanged.
 *   watermark (default: forwarded unchanged)
 *
 * Columnar, without copying values: element columns are decoded straight
 * from the packed bytes (data/packed.h) into the output batch, pointing
 * into them; input columns are gathered column by column from the input
 * batch through the list of source rows, strings by reference.  Output
 * rows so point into the input batch and the collection's bytes, which
 * is valid because the output is emitted during the call that hands the
 * input over (as Calc's view is).  When the output batch fills, it is
 * emitted and reused: no allocation per row or per batch in steady state
 * (the argument's scratch batch grows once to the largest input batch).
 *
 * Run-time errors (the argument's evaluation, a malformed packed value)
 * name the input row (err->row_batch = the input batch).  An error of a
 * consumer whose row is in the output batch is handed back as the output
 * row's input row.
 */
#include "graph.h"
#include "ops.h"
#include "data/packed.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct corr_op {
	sl_op base;
	sl_prog *arg;       /* NULL: the collection is input column argcol */
	int argcol;
	sl_type coll;       /* ARRAY or MAP */
	int nin;            /* input columns: the leading output columns */
	int nelem;          /* element columns after them (ordinality excluded) */
	int row_elem;       /* ARRAY<ROW<..>>: the element's fields are columns */
	uint8_t left, ordinality;
	sl_batch *scratch;  /* the evaluated argument (one column) */
	sl_batch *out;
	uint32_t *src;      /* per output row: its input row */
} corr_op;

/* d[0..k) = s[src[0..k)]: values and NULL flags by reference (ROW: its
 * fields too). */
static void gather(sl_col *d, const sl_col *s, const uint32_t *src, int k)
{
	for (int i = 0; i < k; i++)
		d->null[i] = s->null[src[i]];
	switch (sl_type_phys(d->type)) {
	case SL_PHYS_I64:
		for (int i = 0; i < k; i++)
			d->v.i64[i] = s->v.i64[src[i]];
		break;
	case SL_PHYS_F64:
		for (int i = 0; i < k; i++)
			d->v.f64[i] = s->v.f64[src[i]];
		break;
	case SL_PHYS_I128:
		for (int i = 0; i < k; i++)
			d->v.i128[i] = s->v.i128[src[i]];
		break;
	case SL_PHYS_STR:
		for (int i = 0; i < k; i++)
			d->v.str[i] = s->v.str[src[i]];
		break;
	case SL_PHYS_ROW:
		for (int f = 0; f < d->nchild && f < s->nchild; f++)
			gather(&d->child[f], &s->child[f], src, k);
		break;
	}
}

/* Emits the k rows built in o->out: their input columns gathered from in,
 * change kinds and W_before their input rows'.  The batch is reset for
 * reuse after. */
static int flush(corr_op *o, const sl_batch *in, int k, sl_err *err)
{
	sl_batch *out = o->out;
	if (!k)
		return 0;
	for (int c = 0; c < o->nin; c++)
		gather(&out->cols[c], &in->cols[c], o->src, k);
	for (int i = 0; i < k; i++) {
		out->op[i] = in->op[o->src[i]];
		out->wm[i] = in->wm[o->src[i]];
	}
	out->nrows = k;
	out->sel = NULL;
	int rc = sl_op_emit(&o->base, out, err);
	if (rc && err->row_batch == out && err->row >= 1 && err->row <= k) {
		err->row = 1 + (int)o->src[err->row - 1]; /* the consumer's row, as an input row */
		err->row_batch = in;
	}
	out->nrows = 0;
	return rc;
}

/* Writes element e (0-based) of u into the element columns of output row
 * k, stepping u over it; with e < 0 sets them NULL (a LEFT JOIN's row for
 * a NULL or empty collection).  0 or SL_ESTATE. */
static int put_element(corr_op *o, sl_unpack *u, int e, int k)
{
	sl_col *ec = &o->out->cols[o->nin];
	if (o->ordinality) {
		sl_col *oc = &ec[o->nelem];
		if (e < 0)
			sl_col_clear(oc, k);
		else
			sl_col_set_i64(oc, k, (int64_t)e + 1);
	}
	if (e < 0) {
		for (int f = 0; f < o->nelem; f++)
			sl_col_clear(&ec[f], k);
		return 0;
	}
	if (o->coll.id == SL_T_MAP)
		return sl_unpack_next(u, NULL, &ec[0], k) || sl_unpack_next(u, NULL, &ec[1], k)
		       ? SL_ESTATE : 0;
	if (!o->row_elem)
		return sl_unpack_next(u, NULL, &ec[0], k) ? SL_ESTATE : 0;
	/* ARRAY<ROW>: the row's null byte, then its fields, each a value */
	if (u->p >= u->end)
		return SL_ESTATE;
	if (*u->p++) {
		for (int f = 0; f < o->nelem; f++)
			sl_col_clear(&ec[f], k);
		return 0;
	}
	for (int f = 0; f < o->nelem; f++)
		if (sl_unpack_next(u, NULL, &ec[f], k))
			return SL_ESTATE;
	return 0;
}

/* The collection column for in: the input's, or the argument evaluated
 * into o->scratch.  NULL with err set. */
static const sl_col *arg_col(corr_op *o, const sl_batch *in, sl_err *err)
{
	if (!o->arg)
		return &in->cols[o->argcol];
	if (in->nrows > o->scratch->cap) {
		sl_batch *b = sl_batch_new(1, &o->coll, in->nrows);
		if (!b) {
			sl_err_set(err, SL_ENOMEM, "out of memory");
			return NULL;
		}
		sl_batch_free(o->scratch);
		o->scratch = b;
	}
	sl_batch_reset(o->scratch);
	o->scratch->nrows = in->nrows;
	if (sl_prog_eval(o->arg, in, o->scratch, o->scratch->cols, &o->base.graph->ectx, err)) {
		if (err->row_batch == o->scratch)
			err->row_batch = in;
		return NULL;
	}
	return &o->scratch->cols[0];
}

static int corr_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	corr_op *o = (corr_op *)op;
	const sl_col *c = arg_col(o, in, err);
	if (!c)
		return err->code ? err->code : SL_ERUNTIME;
	int k = 0, cap = o->out->cap, rc = 0;
	o->out->nrows = 0;
	SL_BATCH_FOREACH(in, j, r) {
		sl_unpack u = {0};
		if (!c->null[r] && sl_unpack_open(&u, c->v.str[r].ptr, c->v.str[r].len)) {
			rc = SL_ESTATE;
		} else if (u.n == 0 && o->left) {
			put_element(o, &u, -1, k);
			o->src[k++] = (uint32_t)r;
		}
		for (uint32_t e = 0; !rc && e < u.n; e++) {
			if (k == cap) {
				if ((rc = flush(o, in, k, err)))
					return rc;
				k = 0;
			}
			rc = put_element(o, &u, (int)e, k);
			o->src[k++] = (uint32_t)r;
		}
		if (rc) {
			err->row = 1 + r;
			err->row_batch = in;
			return sl_err_set(err, SL_ERUNTIME, "UNNEST: malformed %s value",
			                  o->coll.id == SL_T_MAP ? "MAP" : "ARRAY");
		}
		if (k == cap) {
			if ((rc = flush(o, in, k, err)))
				return rc;
			k = 0;
		}
	}
	return flush(o, in, k, err);
}

static int corr_open(sl_op *op, sl_err *err)
{
	corr_op *o = (corr_op *)op;
	o->out = sl_batch_new(op->nout, op->out_types, 0);
	o->src = o->out ? malloc(sizeof(uint32_t) * (size_t)o->out->cap) : NULL;
	o->scratch = o->arg ? sl_batch_new(1, &o->coll, 0) : NULL;
	if (!o->out || !o->src || (o->arg && !o->scratch))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

static void corr_close(sl_op *op)
{
	corr_op *o = (corr_op *)op;
	sl_prog_free(o->arg);
	sl_batch_free(o->out);
	sl_batch_free(o->scratch);
	free(o->src);
}

static const sl_op_vtab corr_vtab = {
	.name = "Correlate",
	.kind = SL_OPK_CORRELATE,
	.open = corr_open,
	.process = corr_process,
	.close = corr_close,
};

sl_op *sl_op_correlate_new(const sl_correlate_params *cp, const sl_type *in_types, int nin,
                           const sl_type *out_types, int nout, sl_err *err)
{
	sl_type t = cp->arg->type;
	int nelem = t.id == SL_T_MAP ? 2
	          : t.id == SL_T_ARRAY && sl_type_elem(t).id == SL_T_ROW
	          ? sl_type_elem(t).row->nfields : 1;
	if (!sl_type_is_collection(t) || nout != nin + nelem + (cp->ordinality ? 1 : 0)) {
		sl_err_set(err, SL_EINVAL, "Correlate: %d output columns do not fit the input's %d "
		           "and the collection's", nout, nin);
		return NULL;
	}
	corr_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &corr_vtab;
	o->coll = t;
	o->nin = nin;
	o->nelem = nelem;
	o->row_elem = t.id == SL_T_ARRAY && sl_type_elem(t).id == SL_T_ROW;
	o->left = cp->left;
	o->ordinality = cp->ordinality;
	sl_expr *a = cp->arg;
	if (a->kind == SL_EX_COL && a->col >= 0 && a->col < nin &&
	    sl_type_equal(in_types[a->col], t)) {
		o->argcol = a->col;
	} else if (!(o->arg = sl_prog_compile(&a, 1, in_types, nin, err))) {
		sl_op_free(&o->base);
		return NULL;
	}
	return &o->base;
}
