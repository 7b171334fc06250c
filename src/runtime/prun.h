/*
 * prun.h - the parallel run loop (issue 10 step 4, docs/parallel.md §1-§3,
 * docs/runtime.md "Threads"): a job whose plan has a node at parallelism
 * above 1 runs as tasks, one per chain instance, each with its own graph
 * and state backend, joined by exchanges over channels; instance i of
 * every chain runs on thread i (slot sharing, docs/parallel.md §1).
 *
 * A chain is a run of plan nodes joined by chained edges (sl_pnode.xchg,
 * src/plan/plan_par.c) and side links (a window aggregate's ON LATE
 * sink); it runs as par instances.  Instance i of a chain is a task: a
 * graph holding one receiver per exchanged input (exchange.h), the
 * chain's operators (sl_instantiate_part: its connectors are instance i of
 * par), one sender per exchanged output, and a state backend owning the
 * key groups of instance i (sl_keygroup_range).  The caller's thread runs
 * no operator: it starts the threads, waits for them, and stops or
 * cancels them.  At parallelism 1 none of this exists (run.h).
 *
 * Push tables (the embedding API) are driven by drains (sl_prun_drain):
 * a marker through the channels that returns when every sink instance
 * has seen it.  Checkpoints (docs/parallel.md §5): with a coordinator
 * attached (sl_prun_attach_coord) the caller's thread in sl_prun_run is
 * the coordinator: a barrier is a marker through the channels after
 * which every instance parks; the checkpoint is taken while all are
 * parked; phase 2 runs on each instance's thread (its control channel).
 */
#ifndef SL_PRUN_H
#define SL_PRUN_H

#include <stddef.h>
#include <stdint.h>

#include "../base/buf.h"
#include "../base/err.h"
#include "../base/opts.h"
#include "../exec/graph.h"
#include "../exec/pnode.h"

typedef struct sl_prun sl_prun;

/*
 * Builds the tasks of plan (its nodes' par and xchg set) and opens their
 * graphs, on the calling thread: every error of instantiating and opening
 * comes before any thread starts.  The state backend of type
 * `backend` (NULL: hashmap) configured from session; maxp key groups
 * ('pipeline.max-parallelism'); proc_manual and tz as sl_graph's.  The
 * plan must outlive the job.  Returns the job, or NULL with err set.
 */
sl_prun *sl_prun_new(const sl_pplan *plan, const char *backend, const sl_opts *session, int maxp,
                     int64_t proc_manual, const char *tz, sl_err *err);

/*
 * Starts the threads (the first call) and waits until every task ended
 * (returns 1), a task failed (returns its negative code with its message
 * in err: every channel is cancelled and every thread joined first), or
 * sl_prun_stop was called (returns 0; the tasks stay, their sources
 * paused, for sl_prun_finish_stop).
 */
int sl_prun_run(sl_prun *j, sl_err *err);

/* Starts the threads when they have not started.  0 or an error. */
int sl_prun_start(sl_prun *j, sl_err *err);

/* The push-mode scan of push table `table` in some task, or NULL. */
sl_op *sl_prun_push_scan(const sl_prun *j, const char *table);

/* 1 when some task reads a push table. */
int sl_prun_has_push(const sl_prun *j);

enum { SL_PRUN_PUSH_NONE, SL_PRUN_PUSH_JSON, SL_PRUN_PUSH_LINES, SL_PRUN_PUSH_END };

/*
 * A drain (docs/parallel.md §6), on the API's thread: starts the threads
 * if needed, then sends a marker through the whole job and returns when
 * every task ending in sinks has seen it (or ended), so every row it
 * caused is in the sinks.  Before the marker: every task's manual clock
 * becomes `clock` (-1: the wall clock) and its timers fire; the task
 * owning `scan` (NULL: none) decodes text into it (mode JSON: one
 * record, LINES: newline-separated ones) or ends its input (END), after
 * its VALUES sources emitted their rows.  text must stay valid until the
 * call returns.  0, or the job's first error (every thread joined).
 */
int sl_prun_drain(sl_prun *j, const sl_op *scan, const char *text, size_t len, int mode,
                  int64_t clock, sl_err *err);

struct sl_coord;

/*
 * Makes c (prepared, checkpointing on) the job's checkpoint coordinator:
 * its parts become the tasks' graphs and backends (restore them with
 * sl_coord_restore before the threads start), and sl_prun_run takes
 * periodic checkpoints and, at the end of all inputs, the final one.
 * 0 or SL_ENOMEM.
 */
int sl_prun_attach_coord(sl_prun *j, struct sl_coord *c, sl_err *err);

/*
 * A savepoint of a job with a coordinator attached (the API's thread,
 * after sl_prun_run returned on a stop): with drain every source ends and
 * the job runs to its end first; without, every instance parks at a
 * barrier for it and is released after.  Its directory goes to path.  0
 * or an error.
 */
int sl_prun_savepoint(sl_prun *j, int drain, char *path, size_t cap, sl_err *err);

/*
 * The embedding API's snapshot of the job (sl_snapshot at parallelism >
 * 1): every instance parks at a barrier (when the threads run), the job
 * snapshot of every instance goes to w (ckpt_coord.h), they are released.
 * sl_prun_restore restores one, before the threads start (an error
 * after).  0 or an error.
 */
int sl_prun_snapshot(sl_prun *j, sl_snap_writer *w, sl_err *err);
int sl_prun_restore(sl_prun *j, const void *buf, size_t len, sl_err *err);

/* Requests a stop: sources pause.  Async-signal-safe (an atomic store). */
void sl_prun_stop(sl_prun *j);

/*
 * Completes a stop without checkpointing: with drain, every source ends
 * (+infinity watermark) and the job runs to its end, firing what is
 * open; without, every channel is cancelled, the threads are joined and
 * every sink instance publishes what it wrote (its finish).  Returns 0 or
 * the first error.
 */
int sl_prun_finish_stop(sl_prun *j, int drain, sl_err *err);

/* After a failure (threads joined): every sink instance publishes what it
 * wrote before the error (docs/semantics.md §3). */
void sl_prun_publish_on_error(sl_prun *j);

/* Cancels what still runs, joins the threads, frees everything. */
void sl_prun_free(sl_prun *j);

/* The instances of plan node `node` (0 when it has none) and instance i's
 * operator (for --stats, read after the threads ended; and for the live
 * metrics, which read only its SL_CTR_* fields while they run). */
int sl_prun_ninst(const sl_prun *j, int node);
sl_op *sl_prun_op(const sl_prun *j, int node, int i);

/*
 * The exchange into input `input` of plan node `node`, for the live
 * metrics (src/api/metrics.c; callable from any thread while the job
 * runs: the figures are relaxed atomics): its channels, the messages sent
 * over them and the time its producers spent blocked, summed.  Returns 1,
 * or 0 (figures 0) when that input is chained or has no exchange.
 */
int sl_prun_edge_get(const sl_prun *j, int node, int input, int *channels, uint64_t *messages,
                     uint64_t *blocked_ns);

/* Appends one line per exchange edge to out: its kind, channels and the
 * time its producers spent blocked (full channels, batches not yet
 * back), summed over its channels. */
void sl_prun_edge_stats(const sl_prun *j, sl_buf *out);

/* Appends one line per thread (after the join): its life, its time on a
 * core and waiting for one (the kernel's schedstat), asleep with nothing
 * to do and asleep on a blocked sender; then the job's parallel
 * efficiency, time on a core / (threads x the longest life). */
void sl_prun_thread_stats(const sl_prun *j, sl_buf *out);

#endif
