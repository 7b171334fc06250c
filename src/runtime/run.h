/*
 * run.h - the run loop of a job: the one place that drives its sources,
 * timers and checkpoint barriers (docs/runtime.md).
 *
 * A job is a graph (src/exec/graph.h) and its checkpoint coordinator
 * (ckpt_coord.h), both owned by the caller (src/api/engine.c).  The loop
 * repeats sl_graph_step (fire the processing-time timers, pump every
 * source once and push each batch to the end of the graph) and, between
 * two steps, lets the coordinator take a checkpoint; at the end of all
 * inputs it takes the final checkpoint.  Push tables (sl_push_*) are
 * driven by their caller instead, one call at a time, through the same
 * graph (sl_runtime_push below).
 */
#ifndef SL_RUN_H
#define SL_RUN_H

#include <stddef.h>

#include "../base/err.h"
#include "../exec/graph.h"
#include "ckpt_coord.h"

/*
 * Runs the job until all its sources end, g->stop is set (asynchronously:
 * sl_stop) or an error.  c is g's coordinator, prepared (sl_coord_prepare)
 * with the same err.  With checkpointing on (c->on) checkpoints are
 * taken as their interval passes, and at the end of all inputs the final
 * checkpoint commits the output.  Idle sources make the loop sleep 1 ms.
 * Returns 1 when all inputs ended (the job is finished), 0 when stopped,
 * or a negative code with err set (the caller fails the job:
 * sl_runtime_publish_on_error).
 */
int sl_runtime_run(sl_graph *g, sl_coord *c, sl_err *err);

/*
 * Stop with savepoint: with drain, ends every source first (a +infinity
 * watermark fires what is open, docs/semantics.md §1); then takes a savepoint and
 * writes its directory to path[0..cap) (path may be NULL).  Returns 0 or
 * a negative code.
 */
int sl_runtime_savepoint(sl_graph *g, sl_coord *c, int drain, char *path, size_t cap, sl_err *err);

/*
 * A clean stop without checkpointing: with drain, ends every source first;
 * then every sink publishes what it wrote (its finish, as at the end of
 * input: rows counted as written must not stay in hidden files).  Returns
 * 0 or the first error.
 */
int sl_runtime_stop_publish(sl_graph *g, int drain, sl_err *err);

/*
 * Push tables: the API caller drives the job a call at a time.
 *
 * sl_runtime_start_values emits the rows of the job's VALUES sources (once;
 * op_values.c), before any pushed row or poll, so that API clients see
 * them without driving the sources (after a restore, a restored source
 * emits nothing).  sl_runtime_push fires the processing-time timers the clock
 * passed, starts the VALUES sources, then decodes text (one JSON record or
 * change event; with lines, newline-separated ones) into the push-mode
 * scan `scan` and pushes it through the graph.  sl_runtime_push_end starts the
 * VALUES sources and ends `scan`'s input (+infinity watermark, finish).
 * Each returns 0 or a negative code with err set (the caller fails the
 * job).
 */
int sl_runtime_start_values(sl_graph *g, sl_err *err);
/* The manual clock (g->proc_manual, sl_set_processing_time) moved:
 * processing-time windows fire as it passes their ends. */
int sl_runtime_clock_moved(sl_graph *g, sl_err *err);
int sl_runtime_push(sl_graph *g, sl_op *scan, const char *text, size_t len, int lines, sl_err *err);
int sl_runtime_push_end(sl_graph *g, sl_op *scan, sl_err *err);

/*
 * After a fatal error: without checkpointing the sinks publish what they
 * wrote before it (docs/semantics.md §3); with checkpointing nothing happens (the
 * last checkpoint is what counts and a restart replays the rest).
 */
void sl_runtime_publish_on_error(sl_graph *g, const sl_coord *c);

#endif
