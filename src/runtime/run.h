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
 * graph.
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
 * sl_job_publish_on_error).
 */
int sl_job_run(sl_graph *g, sl_coord *c, sl_err *err);

/*
 * Stop with savepoint: with drain, ends every source first (a +infinity
 * watermark fires what is open, docs/semantics.md §1); then takes a savepoint and
 * writes its directory to path[0..cap) (path may be NULL).  Returns 0 or
 * a negative code.
 */
int sl_job_savepoint(sl_graph *g, sl_coord *c, int drain, char *path, size_t cap, sl_err *err);

/*
 * After a fatal error: without checkpointing the sinks publish what they
 * wrote before it (docs/semantics.md §3); with checkpointing nothing happens (the
 * last checkpoint is what counts and a restart replays the rest).
 */
void sl_job_publish_on_error(sl_graph *g, const sl_coord *c);

#endif
