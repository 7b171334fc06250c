/*
 * graph.h - a running job's operator DAG and one step of driving it.
 *
 * The runtime builds a graph from the plan nodes (src/runtime/instantiate.c)
 * by adding operators (sl_graph_add) and edges (sl_graph_connect) in
 * topological order: sources first.  sl_graph_step
 * fires the processing-time timers and pumps every source once; the one
 * run loop (sl_runtime_run, src/runtime/run.h) repeats it and takes the
 * checkpoints between steps.  Every batch is pushed synchronously
 * through the DAG (sl_op_emit -> consumer process), so one job runs on one
 * thread with bounded memory (a batch in flight per edge at most) and
 * backpressure is implicit.  Watermarks follow their batches on every edge;
 * the graph merges them per operator (minimum over inputs) before calling
 * the operator's watermark method.  When a source ends it sends a final
 * +infinity watermark and end of input; an operator whose inputs have all
 * ended is finished (sl_op_vtab.finish) and ends its consumers in turn.
 */
#ifndef SL_GRAPH_H
#define SL_GRAPH_H

#include "../expr/expr.h"
#include "../state/state.h"
#include "op.h"

typedef struct sl_graph {
	sl_op **ops;
	int nops, capops;
	sl_state_backend *state;
	sl_eval_ctx ectx;      /* shared evaluation context (proctime, tz) */
	/* The job's processing-time clock is ectx.proctime (micros since the
	 * epoch): PROCTIME() and state TTL read it; sl_graph_tick sets it from
	 * the wall clock or, when proc_manual >= 0, to proc_manual (a manual
	 * clock for deterministic tests, sl_set_processing_time). */
	int64_t proc_manual;
	int stop;              /* set asynchronously to request a stop (atomic
	                        * builtins: sl_stop may run on another thread) */
	int opened;
	int64_t pub_due;       /* sl_graph_publish's next time (op_observe.c) */
	int allow_non_restored; /* restore may drop state of unknown operators */
	int restored_label_ids; /* the snapshot last restored (sl_graph_restore)
	                         * was written before structural ids: its records
	                         * name operators by op->uid_v1 */
} sl_graph;

/* Initializes an empty graph using backend `state` (not owned). */
void sl_graph_init(sl_graph *g, sl_state_backend *state);

/*
 * Adds op (allocated by its constructor) with nin inputs and nout output
 * columns of the given types/names (copied).  Returns 0: the graph owns op
 * from now on (sl_graph_deinit frees it); or SL_ENOMEM: op is not in the
 * graph and the caller still owns it (free it with sl_op_free).
 */
int sl_graph_add(sl_graph *g, sl_op *op, int nin, int nout, const sl_type *types,
                 const char *const *names);

/* Connects the output of `from` to input `input` of `to`. */
int sl_graph_connect(sl_graph *g, sl_op *from, sl_op *to, int input);

/* Sets the processing-time clock (g->ectx.proctime) to the wall clock, or
 * to g->proc_manual when that is >= 0.  Called before input is processed
 * (each step, each push), so a batch sees one processing time. */
void sl_graph_tick(sl_graph *g);

/* Sets the clock (sl_graph_tick) and calls the proctime method of every
 * operator that has one and whose inputs have not ended, in topological
 * order (processing-time windows fire).  Returns 0 or the first error. */
int sl_graph_fire_timers(sl_graph *g, sl_err *err);

/* A checkpoint barrier at parallelism 1 (the job quiescent between two
 * steps): calls the pre_barrier method of every operator that has one and
 * whose inputs have not ended, in topological order, so what they hold
 * outside their state (a group aggregate's mini-batch bundle) goes
 * downstream before the sinks' pre-commit and the snapshot, as a parallel
 * job's instances do at their barrier (op.h).  Returns 0 or the first
 * error. */
int sl_graph_pre_barrier(sl_graph *g, sl_err *err);

/* Opens every operator in order.  Returns 0 or the first error. */
int sl_graph_open(sl_graph *g, sl_err *err);

/*
 * Pumps every source once (one batch each at most).  Returns 1 while some
 * source may produce more, 0 when all sources have ended and the graph is
 * finished, or a negative error.  *progress is set to the rows produced.
 */
int sl_graph_step(sl_graph *g, int64_t *progress, sl_err *err);

/* Ends input `input` of op: when all its inputs have ended, forwards a
 * +infinity watermark, finishes op and ends its consumers. */
int sl_graph_end_input(sl_op *op, int input, sl_err *err);

/* Marks source operator `op` as ended (sends +inf watermark and end). */
int sl_graph_end_source(sl_op *op, sl_err *err);

/*
 * Snapshot / restore of every operator's scalars and of the state backend.
 * Operators are matched by their stable id, so an edited job restores
 * every operator whose id is unchanged; operators that are new start
 * empty; state of operators the job no longer has makes the restore fail
 * unless g->allow_non_restored (then it is dropped).  A snapshot records
 * which ids it holds: snapshots are written with the structural ids
 * (op->uid, "SLG3"); one written before them ("SLG2", "SLG1": the label-
 * hash ids, tests/fixtures/ckpt-v1) is matched by op->uid_v1 and its state
 * is restored under op->uid, so the job's next snapshot has structural
 * ids (docs/checkpoints.md).
 */
int sl_graph_snapshot(sl_graph *g, sl_snap_writer *w, sl_err *err);

/* The first part of sl_graph_snapshot: everything but the state backend's
 * records, which follow it (written by sl_state_snapshot or, for a
 * checkpoint written on another thread, sl_state_snap_write). */
int sl_graph_snapshot_ops(sl_graph *g, sl_snap_writer *w, sl_err *err);
int sl_graph_restore(sl_graph *g, sl_snap_reader *r, sl_err *err);

/* The operator that a record of the snapshot last restored names by id
 * id[0..n): by op->uid, or by op->uid_v1 when that snapshot was written
 * before structural ids (g->restored_label_ids; an operator with an empty
 * uid_v1, not built by the planner, by op->uid).  NULL when the job has
 * none.  For records that follow the graph's in a checkpoint (the pre-
 * commit data of the coordinator). */
sl_op *sl_graph_op_by_snap_id(const sl_graph *g, const char *id, size_t n);

/*
 * Calls op's restore method with the body of the record of op's id in the
 * graph snapshot r (a copy: r is not moved), written by sl_graph_snapshot
 * of this version (structural ids): how a source instance of a parallel
 * job gets the snapshots of the other instances of the run that took the
 * checkpoint (connector/conn.h, docs/parallel.md §6).  0 (also when r has
 * no such record or op no restore method) or the error.
 */
int sl_graph_restore_op_from(sl_op *op, sl_snap_reader r, sl_err *err);

/*
 * A rescale (docs/parallel.md §7): restores g, instance inst of par of a
 * job, from the graph snapshots r[0..n) (of this version: structural ids)
 * of the old instances holding some operator of g, from[i] being r[i]'s
 * old instance number; leaves each r[i] after its state records.
 * Per operator, over the old records of its id: input and output
 * watermarks their minimum; counters the sum over the old instances j
 * with j % par == inst (so the instances' sums stay the job's); its own
 * scalars by its kind: a source's restore gets every record (each
 * instance keeps the splits it owns, connector/conn.h); the operators
 * whose scalars are a watermark they fired up to (window aggregate, join
 * and Top-N, temporal join, event-time deduplication, session aggregate
 * and table function) the record with the smallest; any other operator
 * with scalars from more than one old instance (OVER: its pending rows
 * are numbered per instance) is refused (SL_ENOTSUP) naming it.  State:
 * each r[i]'s tables of g's operators, the entries of the backend's key
 * groups (sl_state_restore_merge).  An old operator g lacks is not
 * looked at (the caller checks that some new instance has it).
 * 0 or an error.
 */
int sl_graph_restore_rescaled(sl_graph *g, sl_snap_reader *r, const int *from, int n, int inst,
                              int par, sl_err *err);

/* Calls cb(ctx, id, n) for the id of every operator record of the graph
 * snapshot r (a copy; exchanges' ends, which have none, left out).
 * 0, or SL_ESTATE when r is damaged or of a version before structural ids
 * (SL_ENOTSUP). */
int sl_graph_snap_ids(sl_snap_reader r, void (*cb)(void *ctx, const char *id, size_t n),
                      void *ctx, sl_err *err);

/* Closes and frees every operator (sl_op_free). */
void sl_graph_deinit(sl_graph *g);

#endif
