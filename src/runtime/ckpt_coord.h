/*
 * ckpt_coord.h - the checkpoint coordinator of a running job (docs/semantics.md §3,
 * docs/checkpoints.md).
 *
 * The coordinator takes checkpoints and savepoints of one graph between
 * two pump steps (an aligned barrier for every source at once), writes
 * them with checkpoint.c, and drives the operators' checkpoint hooks
 * (pre_commit, commit, abort, recover: src/exec/op.h) on whichever
 * operators have them, walking the graph in order.  It knows no operator
 * or connector kind.  At start it restores the newest complete checkpoint
 * or savepoint into a freshly planned graph.
 *
 * Layering: src/runtime/ sits between exec and plan (base <- data <-
 * {expr, format, state} <- connector <- exec <- runtime <- plan <- api <-
 * cli); api/ (engine.c) owns a coordinator per job and calls it.
 *
 * Threading: every function is called on the job's thread (at
 * parallelism > 1 the job's coordinating thread, which runs no operator;
 * the instances are parked or ended whenever it touches their graphs).  A periodic
 * checkpoint is written by a forked child or, for backends that cannot be
 * forked (RocksDB), by a writer thread; the coordinator reaps it and runs
 * phase 2 on the job's thread.
 */
#ifndef SL_CKPT_COORD_H
#define SL_CKPT_COORD_H

#include <stdint.h>

#include "../base/buf.h"
#include "../base/counter.h"
#include "../base/err.h"
#include "../base/opts.h"
#include "../exec/graph.h"
#include "../state/state.h"

struct ck_writer;
struct sl_collapser;

/* One instance's graph and state backend (a task of a parallel job:
 * instance inst of par; at parallelism 1 the one graph, 0 of 1). */
typedef struct sl_coord_part {
	sl_graph *graph;
	sl_state_backend *state;
	int par, inst;
} sl_coord_part;

/*
 * What a parallel runtime (prun.c) gives the coordinator (docs/parallel.md
 * §5): park brings every instance to checkpoint barrier id and parks it
 * (every channel empty, every operator between two messages): 1 parked,
 * 0 the job ended or was cancelled first (nothing taken), or an error;
 * *aligned_us: from the first instance's park to the last one's.  release
 * lets the parked instances go on.  phase2 runs every instance's commit
 * hooks (abort: its abort hooks) on that instance's own thread, or on the
 * caller's when the instance ended or is parked; 0 or the first error.
 * barrier (optional; the writer-thread checkpoint, which needs no
 * parking: docs/parallel.md §5, "Without parking") brings every instance
 * to checkpoint barrier id, and each instance, once aligned and past the
 * barrier, calls work(arg, k, err) for its own part k on its own thread
 * and goes on without waiting for the others; instances that ended have
 * theirs run on the caller's thread.  It returns 1 when every work ran
 * (0 or the first work's error in *work_rc, its message in err), 0 when
 * the job ended or was cancelled first (no work is running any more);
 * *aligned_us: from the first instance's work done to the last one's;
 * *blocked_us: the longest work of one instance.
 */
typedef struct sl_coord_rt {
	void *ctx;
	int (*park)(void *ctx, int64_t id, int64_t *aligned_us, sl_err *err);
	void (*release)(void *ctx);
	int (*phase2)(void *ctx, int64_t id, int abort, sl_err *err);
	int (*barrier)(void *ctx, int64_t id, int (*work)(void *arg, int k, sl_err *err),
	               void *arg, int *work_rc, int64_t *aligned_us, int64_t *blocked_us,
	               sl_err *err);
} sl_coord_rt;

/* Checkpoint figures the metrics snapshot reads while the job runs:
 * written by the job's thread with SL_CTR_* (base/counter.h), read with
 * SL_CTR_GET from any thread. */
typedef struct sl_coord_metrics {
	int64_t completed, failed;  /* checkpoints and savepoints completed / failed */
	int64_t last_id;            /* the last completed one (0: none) */
	int64_t last_duration_us;   /* its duration, barrier to commit */
	int64_t last_size;          /* its state file's bytes */
	int64_t last_blocked_us;    /* time processing was blocked for it */
	int64_t last_end_wall_us;   /* when it completed (wall clock, micros) */
} sl_coord_metrics;

typedef struct sl_coord {
	/* configuration (sl_coord_prepare) */
	int on;                  /* execution.checkpointing.interval set */
	int64_t interval_us, min_pause_us;
	int64_t retained;
	char job[128];
	char jobdir[2048];       /* ./sluice-state/<job> */
	char dir[2048];          /* checkpoints */
	char sp_dir[2048];       /* savepoints */
	/* the job (not owned) */
	const sl_opts *opts;     /* the session's options */
	sl_graph *graph;
	sl_state_backend *state;
	sl_err *err;             /* where errors go (the engine's) */
	/* the instances: {graph, state} at parallelism 1, the tasks' above
	 * (sl_coord_set_parts; multi: the job snapshot's version 2 layout) */
	sl_coord_part one;
	sl_coord_part *parts;
	int nparts, multi;
	sl_coord_rt rt;
	int lock_fd;             /* -1 = not locked */
	int64_t next_id;
	int64_t attempt;
	int64_t last_end_us;     /* monotonic end of the last checkpoint */
	int64_t restored_id;     /* 0 = fresh start */
	char restored_path[2048];
	sl_buf log;              /* per-checkpoint stats for --stats */
	sl_coord_metrics m;      /* the same, live (src/api/metrics.c) */
	/* the checkpoint being written in the background */
	int pending_pid;         /* forked writer, 0 = none */
	struct ck_writer *pending_thr; /* writer thread (RocksDB), or NULL */
	struct sl_collapser *collapser; /* re-maps state in huge pages (hugepage.h) */
	int64_t pending_id;
	int64_t pending_t0, pending_blocked, pending_aligned;
} sl_coord;

/* Initializes an idle coordinator (checkpointing off, nothing locked). */
void sl_coord_init(sl_coord *c);

/*
 * Before planning: reads the checkpointing options of `opts` (kept by
 * reference) for the job of graph g with state backend st (not owned);
 * with an interval set (c->on) takes the job lock and counts the run
 * attempt (c->attempt, for staged file names).  Errors go to err, kept
 * for the later calls.  Returns 0 or a negative code.
 */
int sl_coord_prepare(sl_coord *c, const sl_opts *opts, sl_graph *g, sl_state_backend *st,
                     sl_err *err);

/*
 * A parallel job (after sl_coord_prepare, before sl_coord_restore): the
 * instances parts[0..n) (copied; their graphs and backends must outlive
 * c) replace the graph and backend given to prepare, and rt drives the
 * barriers and phase 2 (see sl_coord_rt).  Checkpoints then hold every
 * instance's snapshot (the job snapshot's version 2, ckpt_coord.c).
 * Returns 0 or SL_ENOMEM.
 */
int sl_coord_set_parts(sl_coord *c, const sl_coord_part *parts, int n, const sl_coord_rt *rt);

/*
 * After the graph is open, before any input: restores the checkpoint or
 * savepoint named by 'execution.savepoint.path', or (unless 'sluice.fresh')
 * the newest complete one, trying older ones when one is damaged; then
 * calls every operator's recover hook (with the restored pre-commit data,
 * or NULL on a fresh start).  A snapshot taken by other instances than
 * the job's (another parallelism) is rescaled into them (ckpt_coord.c;
 * the same maxp is required).  Sets *finished to 1 when the restored
 * checkpoint was taken at the end of all inputs, else 0.  No-op (and
 * *finished untouched) when checkpointing is off.
 * Returns 0 or a negative code.
 */
int sl_coord_restore(sl_coord *c, int *finished);

/*
 * Between two pump steps: reaps a finished background checkpoint (phase
 * 2: commit, or abort on failure) and starts the next one when the
 * interval and min-pause have passed.  No-op when checkpointing is off.
 * Returns 0 or a negative code (a failed checkpoint fails the job).
 */
int sl_coord_maybe(sl_coord *c);

/*
 * Takes a checkpoint (savepoint = 0) or a savepoint now, synchronously,
 * after the pending one; `finished` marks the final checkpoint at the end
 * of all inputs.  The directory written goes to path[0..cap) when path is
 * not NULL.  Returns 0 or a negative code.
 */
int sl_coord_take(sl_coord *c, int savepoint, int finished, char *path, size_t cap);

/*
 * The embedding API's snapshots (sl_snapshot / sl_restore) of a job's
 * instances parts[0..n), outside checkpointing: sl_coord_snapshot_parts
 * appends the job snapshot of version 2 (every instance's graph snapshot,
 * no sink record) to w, the instances being quiescent (parked or not
 * started); sl_coord_restore_parts restores one, or a graph snapshot of
 * parallelism 1 (sl_graph_snapshot), into parts before they start (with
 * multi = 0, into the one graph of a job at parallelism 1), rescaling
 * when its instances are not these.  0 or an error.
 */
int sl_coord_snapshot_parts(sl_coord_part *parts, int n, sl_snap_writer *w, sl_err *err);
int sl_coord_restore_parts(sl_coord_part *parts, int n, int multi, const void *buf, size_t len,
                           sl_err *err);

/* 1 when buf holds a job snapshot (as the two calls above write), not
 * a graph snapshot. */
int sl_coord_is_job_snapshot(const void *buf, size_t len);

/* Waits for a background checkpoint, releases the lock and resets c to
 * sl_coord_init's state.  Safe on an initialized, never-prepared c. */
void sl_coord_close(sl_coord *c);

#endif
