/*
 * op_sink.c - the operator at the end of a pipeline: hands batches to a
 * connector sink (conn.h) and publishes at end of input.
 *
 * INTERFACE ROUTINES
 *   process   sink->write(batch)
 *   finish    sink->finish (publish everything written)
 *   close     closes the sink; a sink closed without finish keeps its
 *             output hidden (the checkpoint protocol decides its fate)
 */
#include "ops.h"
#include "sluice.h"

#include <stdlib.h>

typedef struct sink_op {
	sl_op base;
	sl_sink *sink;
	int finished;
} sink_op;

static int sink_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	sink_op *o = (sink_op *)op;
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
	int rc = o->sink->vt->finish ? o->sink->vt->finish(o->sink, err) : 0;
	if (rc)
		sl_err_prefix(err, "sink '%s'", o->sink->table);
	return rc;
}

static void sink_close(sl_op *op)
{
	sl_sink_free(((sink_op *)op)->sink);
}

static const sl_op_vtab sink_vtab = {
	.name = "Sink",
	.process = sink_process,
	.finish = sink_finish,
	.close = sink_close,
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

/* Publishes what a sink operator has written, if not yet done (used after
 * a fatal error: the rows before it are kept, DESIGN.md §5). */
int sl_op_sink_finish(sl_op *op, sl_err *err)
{
	if (op->vt != &sink_vtab)
		return 0;
	return sink_finish(op, err);
}

/* The connector sink of a sink operator (NULL for other operators). */
sl_sink *sl_op_sink_get(sl_op *op)
{
	return op->vt == &sink_vtab ? ((sink_op *)op)->sink : NULL;
}
