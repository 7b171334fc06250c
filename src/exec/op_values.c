/*
 * op_values.c - VALUES (..), (..) as a bounded source of constant rows.
 *
 * The planner folds every value to a constant of its column's type (the
 * common type of the column over all rows) and hands them over row by row;
 * the strings point into the plan arena, which lives as long as the job.
 * SELECT without FROM reads a one-row VALUES.
 *
 * INTERFACE ROUTINES
 *   pump       the first call emits every row (+I, W_before -infinity) in
 *              batches of SL_BATCH_ROWS; the next one returns SL_EEOF, and
 *              the graph then sends the +infinity watermark and end of
 *              input, as for any bounded source
 *   snapshot   whether the rows were emitted: a restored job does not emit
 *   restore    them twice
 *
 * sl_op_values_start runs the whole source at once; the engine calls it
 * when a job starts (after a restore), so that clients that only push rows
 * and poll (the C API, the slt runner) see VALUES rows without driving the
 * sources themselves.  One thread (the job's).
 */
#include "emit.h"
#include "graph.h"
#include "ops.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct values_op {
	sl_op base;
	int nrows, ncols;
	const sl_value *vals; /* nrows * ncols, row-major; plan arena */
	int done;
	sl_emitter out;
} values_op;

static void set_value(sl_col *c, int row, const sl_value *v)
{
	if (v->is_null)
		return; /* sl_batch_add_row left it NULL */
	switch (sl_type_phys(c->type)) {
	case SL_PHYS_I64: sl_col_set_i64(c, row, v->v.i64); break;
	case SL_PHYS_F64: sl_col_set_f64(c, row, v->v.f64); break;
	case SL_PHYS_I128: sl_col_set_i128(c, row, v->v.i128); break;
	case SL_PHYS_STR: sl_col_set_str_ref(c, row, v->v.str.ptr, v->v.str.len); break;
	default: break; /* the planner refuses other kinds */
	}
}

static int values_pump(sl_op *op, sl_err *err)
{
	values_op *o = (values_op *)op;
	if (o->done || o->nrows == 0)
		return SL_EEOF;
	o->done = 1;
	for (int r = 0; r < o->nrows; r++) {
		int row = sl_emitter_row(&o->out, SL_INSERT, SL_WM_MIN, err);
		if (row < 0)
			return row;
		for (int c = 0; c < o->ncols; c++)
			set_value(&o->out.b->cols[c], row,
			          &o->vals[(size_t)r * (size_t)o->ncols + (size_t)c]);
	}
	int rc = sl_emitter_flush(&o->out, err);
	return rc ? rc : o->nrows;
}

static int values_open(sl_op *op, sl_err *err)
{
	return sl_emitter_init(&((values_op *)op)->out, op, 0, err);
}

static int values_snapshot(sl_op *op, sl_snap_writer *w, sl_err *err)
{
	(void)err;
	sl_snap_put_u8(w, (uint8_t)((values_op *)op)->done);
	return 0;
}

static int values_restore(sl_op *op, sl_snap_reader *r, sl_err *err)
{
	((values_op *)op)->done = sl_snap_get_u8(r) != 0;
	if (!sl_snap_reader_ok(r))
		return sl_err_set(err, SL_ESTATE, "Values: damaged snapshot");
	return 0;
}

static void values_close(sl_op *op)
{
	sl_emitter_deinit(&((values_op *)op)->out);
}

static const sl_op_vtab values_vtab = {
	.name = "Values",
	.kind = SL_OPK_VALUES,
	.open = values_open,
	.pump = values_pump,
	.snapshot = values_snapshot,
	.restore = values_restore,
	.close = values_close,
};

/*
 * sl_op_values_new: a source of nrows constant rows of ncols values each
 * (vals, row-major, not copied: it and its strings must outlive the job,
 * e.g. the plan arena).  Values are of the physical kinds I64, F64, I128
 * or STR of the output column types given to sl_graph_add.  Returns the
 * operator or NULL with err set (SL_ENOMEM).
 */
sl_op *sl_op_values_new(int nrows, int ncols, const sl_value *vals, sl_err *err)
{
	values_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &values_vtab;
	o->nrows = nrows;
	o->ncols = ncols;
	o->vals = vals;
	return &o->base;
}

/*
 * sl_op_values_start: when op is a Values source that has not ended,
 * emits its rows and ends it (+infinity watermark, end of input
 * downstream).  Any other operator: nothing.  Returns 0 or the first
 * downstream error.
 */
int sl_op_values_start(sl_op *op, sl_err *err)
{
	if (op->vt != &values_vtab || op->in_ended)
		return 0;
	int rc = values_pump(op, err);
	if (rc < 0 && rc != SL_EEOF)
		return rc;
	return sl_graph_end_source(op, err);
}
