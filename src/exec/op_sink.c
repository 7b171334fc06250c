/*
 * op_sink.c - the operator at the end of a pipeline: hands batches to a
 * connector sink (conn.h) and publishes at end of input.
 *
 * INTERFACE ROUTINES
 *   open        opens the sink (conn.h: the planner only configured it, so
 *               EXPLAIN creates no directory)
 *   process     sink->write(batch)
 *   finish      sink->finish (publish everything written; with
 *               checkpointing only flush: the final checkpoint publishes)
 *   pre_commit  the checkpoint protocol (op.h): the connector's
 *   commit      pre_commit / commit / abort / recover, each optional in the
 *   abort       connector (a sink without them stages nothing).  Every sink
 *   recover     operator has all four, so that every sink has a record in
 *               every checkpoint (the format of docs/checkpoints.md).
 *   close       closes the sink; a sink closed without finish keeps its
 *               output hidden (the checkpoint protocol decides its fate)
 *
 * The connector sees the job's processing time and the operator's input
 * watermark (sl_sink.proc_now / .wm) as of each write, finish and
 * pre_commit.
 *
 * Upsert mode (sl_op_sink_set_upsert: an upsert connector whose table has
 * a PRIMARY KEY, fed by an updating stream; Flink's upsert semantics): the
 * connector sees +I/+U as upserts by key and -D as deletes by key, never
 * -U.  A -U whose next row is the +U of the same key is dropped (the
 * upsert replaces it); any other -U (the key changed, or the stream is
 * keyed differently from the sink) becomes a -D of its key, so the old
 * row never stays behind.  Rows are not copied: the connector gets a view
 * with its own op vector and selection.
 */
#include "graph.h"
#include "ops.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct sink_op {
	sl_op base;
	sl_sink *sink;
	int finished;
	int *pk;          /* upsert mode: key columns of the sink's rows, or NULL */
	int npk;
	uint8_t *ops;     /* view op vector (upsert mode) */
	uint32_t *sel;    /* view selection (upsert mode) */
	int cap;
	sl_buf k1, k2;
} sink_op;

/* Upsert mode: the view of `in` the connector gets (see above).  Returns
 * 0 or SL_ENOMEM. */
static int upsert_view(sink_op *o, const sl_batch *in, sl_batch *v)
{
	if (in->nrows > o->cap) {
		uint8_t *ops = realloc(o->ops, (size_t)in->nrows);
		uint32_t *sel = ops ? realloc(o->sel, sizeof(uint32_t) * (size_t)in->nrows) : NULL;
		if (ops)
			o->ops = ops;
		if (!ops || !sel)
			return SL_ENOMEM;
		o->sel = sel;
		o->cap = in->nrows;
	}
	*v = *in;
	memcpy(o->ops, in->op, (size_t)in->nrows);
	v->op = o->ops;
	v->sel = o->sel;
	v->nsel = 0;
	int live = sl_batch_live(in);
	for (int k = 0; k < live; k++) {
		int row = in->sel ? (int)in->sel[k] : k;
		if (in->op[row] == SL_UPDATE_BEFORE) {
			int next = k + 1 < live ? (in->sel ? (int)in->sel[k + 1] : k + 1) : -1;
			int same = 0;
			if (next >= 0 && in->op[next] == SL_UPDATE_AFTER) {
				sl_buf_clear(&o->k1);
				sl_buf_clear(&o->k2);
				if (sl_rowcodec_key(in, o->pk, o->npk, row, &o->k1) ||
				    sl_rowcodec_key(in, o->pk, o->npk, next, &o->k2))
					return SL_ENOMEM;
				same = o->k1.len == o->k2.len && !memcmp(o->k1.p, o->k2.p, o->k1.len);
			}
			if (same)
				continue;
			o->ops[row] = SL_DELETE;
		}
		o->sel[v->nsel++] = (uint32_t)row;
	}
	return 0;
}

/* Gives the connector the job's processing time and the operator's input
 * watermark before it is called. */
static void sink_sync(sink_op *o)
{
	o->sink->proc_now = o->base.graph ? o->base.graph->ectx.proctime : 0;
	o->sink->wm = o->base.wm;
}

static int sink_open(sl_op *op, sl_err *err)
{
	sink_op *o = (sink_op *)op;
	int rc = sl_sink_open(o->sink, err);
	if (rc)
		sl_err_prefix(err, "table '%s'", o->sink->table);
	return rc;
}

static int sink_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	sink_op *o = (sink_op *)op;
	sl_batch view;
	sink_sync(o);
	if (o->pk) {
		if (upsert_view(o, in, &view))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		in = &view;
	}
	int rc = o->sink->vt->write(o->sink, in, err);
	if (rc)
		sl_err_prefix(err, "sink '%s'", o->sink->table);
	return rc;
}

static int sink_finish(sl_op *op, sl_err *err)
{
	sink_op *o = (sink_op *)op;
	if (o->finished)
		return 0;
	o->finished = 1;
	sink_sync(o);
	int rc = o->sink->vt->finish ? o->sink->vt->finish(o->sink, err) : 0;
	if (rc)
		sl_err_prefix(err, "sink '%s'", o->sink->table);
	return rc;
}

static void sink_close(sl_op *op)
{
	sink_op *o = (sink_op *)op;
	sl_sink_free(o->sink);
	free(o->pk);
	free(o->ops);
	free(o->sel);
	sl_buf_deinit(&o->k1);
	sl_buf_deinit(&o->k2);
}

static int sink_pre_commit(sl_op *op, int64_t id, sl_snap_writer *w, sl_err *err)
{
	sink_op *o = (sink_op *)op;
	sink_sync(o);
	return o->sink->vt->pre_commit ? o->sink->vt->pre_commit(o->sink, id, w, err) : 0;
}

static int sink_commit(sl_op *op, int64_t id, sl_err *err)
{
	sl_sink *k = ((sink_op *)op)->sink;
	return k->vt->commit ? k->vt->commit(k, id, err) : 0;
}

static int sink_abort(sl_op *op, int64_t id, sl_err *err)
{
	sl_sink *k = ((sink_op *)op)->sink;
	return k->vt->abort ? k->vt->abort(k, id, err) : 0;
}

static int sink_recover(sl_op *op, sl_snap_reader *r, sl_err *err)
{
	sl_sink *k = ((sink_op *)op)->sink;
	return k->vt->recover ? k->vt->recover(k, r, err) : 0;
}

static const sl_op_vtab sink_vtab = {
	.name = "Sink",
	.kind = SL_OPK_SINK,
	.open = sink_open,
	.process = sink_process,
	.finish = sink_finish,
	.close = sink_close,
	.pre_commit = sink_pre_commit,
	.commit = sink_commit,
	.abort = sink_abort,
	.recover = sink_recover,
};

sl_op *sl_op_sink_new(sl_sink *sink, sl_err *err)
{
	sink_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &sink_vtab;
	o->sink = sink;
	return &o->base;
}

int sl_op_sink_finish(sl_op *op, sl_err *err)
{
	if (op->vt != &sink_vtab)
		return 0;
	return sink_finish(op, err);
}

sl_sink *sl_op_sink_get(sl_op *op)
{
	return op->vt == &sink_vtab ? ((sink_op *)op)->sink : NULL;
}

/*
 * Puts a sink operator in upsert mode (see the top of this file): its
 * input rows are keyed by columns pk[0..npk) (copied).  Returns 0 or
 * SL_ENOMEM (err set).
 */
int sl_op_sink_set_upsert(sl_op *op, const int *pk, int npk, sl_err *err)
{
	sink_op *o = (sink_op *)op;
	if (!(o->pk = malloc(sizeof(int) * (size_t)(npk + 1))))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	memcpy(o->pk, pk, sizeof(int) * (size_t)npk);
	o->npk = npk;
	return 0;
}
