/*
 * run.c - the run loop of a job (see run.h): sources, processing-time
 * timers and checkpoint barriers are driven from here and nowhere else.
 *
 * One job runs on one thread.  Each iteration calls sl_graph_step, which
 * fires due processing-time timers and pumps every source once; every
 * batch is pushed synchronously to the end of the graph before the next
 * read, so when the step returns every operator is quiescent: the moment
 * between two steps is an aligned barrier for all sources at once, where
 * the coordinator (ckpt_coord.c) may take a checkpoint.  Push tables are
 * driven a call at a time by the API (sl_runtime_push): timers first, then the
 * pushed rows, through the same graph.
 */
#include "run.h"
#include "../exec/ops.h"
#include "../exec/op_observe.h"

#include <time.h>

int sl_runtime_run(sl_graph *g, sl_coord *c, sl_err *err)
{
	while (!__atomic_load_n(&g->stop, __ATOMIC_RELAXED)) {
		int64_t progress;
		int rc = sl_graph_step(g, &progress, err);
		if (rc == 0) {
			sl_graph_publish(g, 1); /* the live metrics' last figures */
			/* end of all inputs: the final checkpoint commits the output */
			if (c->on && (rc = sl_coord_take(c, 0, 1, NULL, 0)))
				return rc;
			return 1;
		}
		if (rc < 0 || (rc = sl_coord_maybe(c)))
			return rc;
		sl_graph_publish(g, progress == 0); /* the live metrics (op_observe.h) */
		if (progress == 0) {
			struct timespec ts = {0, 1000000}; /* idle sources: 1 ms */
			nanosleep(&ts, NULL);
		}
	}
	return 0;
}

/* Ends every source that has not ended (a +infinity watermark each). */
static int drain_sources(sl_graph *g, sl_err *err)
{
	int rc;
	for (int i = 0; i < g->nops; i++) {
		sl_op *op = g->ops[i];
		if (op->nin == 0 && !op->in_ended && (rc = sl_graph_end_source(op, err)))
			return rc;
	}
	return 0;
}

int sl_runtime_savepoint(sl_graph *g, sl_coord *c, int drain, char *path, size_t cap, sl_err *err)
{
	int rc = drain ? drain_sources(g, err) : 0;
	return rc ? rc : sl_coord_take(c, 1, 0, path, cap);
}

int sl_runtime_stop_publish(sl_graph *g, int drain, sl_err *err)
{
	int rc = drain ? drain_sources(g, err) : 0;
	for (int i = 0; !rc && i < g->nops; i++)
		rc = sl_op_sink_finish(g->ops[i], err);
	return rc;
}

int sl_runtime_start_values(sl_graph *g, sl_err *err)
{
	for (int i = 0; i < g->nops; i++) {
		int rc = sl_op_values_start(g->ops[i], err);
		if (rc)
			return rc;
	}
	return 0;
}

int sl_runtime_clock_moved(sl_graph *g, sl_err *err)
{
	return sl_graph_fire_timers(g, err);
}

int sl_runtime_push(sl_graph *g, sl_op *scan, const char *text, size_t len, int lines, sl_err *err)
{
	int rc = sl_graph_fire_timers(g, err);
	if (!rc)
		rc = sl_runtime_start_values(g, err);
	if (!rc)
		rc = lines ? sl_op_scan_push_lines(scan, text, len, err)
		           : sl_op_scan_push(scan, text, len, err);
	sl_graph_publish(g, 1); /* back to the caller: the live metrics (op_observe.h) */
	return rc;
}

int sl_runtime_push_end(sl_graph *g, sl_op *scan, sl_err *err)
{
	int rc = sl_runtime_start_values(g, err);
	return rc ? rc : sl_graph_end_source(scan, err);
}

void sl_runtime_publish_on_error(sl_graph *g, const sl_coord *c)
{
	if (c->on)
		return;
	sl_err ignore;
	sl_err_clear(&ignore);
	for (int i = 0; i < g->nops; i++)
		sl_op_sink_finish(g->ops[i], &ignore);
}
