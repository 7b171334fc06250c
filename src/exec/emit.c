/*
 * emit.c - the output emitter (emit.h): one batch of rows an operator
 * builds, pushed to its consumers through sl_op_emit when full and at the
 * flush points the operator chooses (end of an input batch, before a
 * watermark is forwarded, finish).  The inline appenders live in emit.h;
 * this file has the parts that allocate or call downstream.
 */
#include "emit.h"
#include "sluice.h"

#include <stdlib.h>

int sl_emitter_init(sl_emitter *e, sl_op *op, int cap, sl_err *err)
{
	e->op = op;
	if (!(e->b = sl_batch_new(op->nout, op->out_types, cap)))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

int sl_emitter_track_src(sl_emitter *e, sl_err *err)
{
	if (!(e->src = calloc((size_t)e->b->cap + 1, sizeof(int))))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

void sl_emitter_deinit(sl_emitter *e)
{
	sl_batch_free(e->b);
	e->b = NULL;
	free(e->src);
	e->src = NULL;
}

int sl_emitter_flush(sl_emitter *e, sl_err *err)
{
	sl_batch *b = e->b;
	if (b->nrows == 0)
		return 0;
	int rc = e->before ? e->before(e->ctx, b, err) : 0;
	if (!rc) {
		rc = sl_op_emit(e->op, b, err);
		if (rc && e->src && err->row > 0 && err->row_batch == b) {
			int src = e->src[err->row - 1];
			err->row_batch = src >= 0 ? e->src_in : NULL;
			err->row = src >= 0 ? src + 1 : 0;
		}
	}
	sl_batch_reset(b);
	return rc;
}

int sl_emitter_copy_row(sl_emitter *e, const sl_batch *src, int src_row, uint8_t op, int64_t wm,
                        sl_err *err)
{
	int rc = sl_emitter_reserve(e, 1, err);
	if (rc)
		return rc;
	int row = sl_batch_copy_row(e->b, src, src_row, op, wm);
	return row < 0 ? sl_err_set(err, SL_ENOMEM, "out of memory") : row;
}
