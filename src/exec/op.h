/*
 * op.h - the operator interface of the runtime.
 *
 * A running job is a DAG of operators (sl_graph, graph.c).  Each operator is
 * one op_*.c file implementing sl_op_vtab; its concrete struct embeds sl_op
 * as the first member.  Messages travel in order along each edge: batches
 * of rows, watermarks and end of input.  Operators never see a checkpoint
 * barrier: at parallelism 1 a checkpoint is taken between two pump steps,
 * when every operator is quiescent (src/runtime/run.c); at parallelism > 1
 * the barriers travel the exchange channels and are aligned by the
 * runtime's receivers (docs/parallel.md §5), which calls an operator's
 * pre_barrier hook, if any, before its state is taken.
 *
 * Lifecycle (PostgreSQL's init/exec/end, Arroyo's operator trait):
 *   open      once, after construction: open state tables, allocate output
 *             batches.  Plan data (expressions, key indexes) is read-only.
 *   process   a batch arrived on input `input`.  The operator emits zero or
 *             more batches with sl_op_emit; it must not keep `in`, nor
 *             change it, and must honour its selection vector (`in->sel`).
 *             What `in` (and the bytes its strings point to) stays valid
 *             for is the length of the call, and no longer: the
 *             producer may reuse it as soon as process() returns.  A
 *             parallel job's exchange sender relies on it (exchange.h,
 *             sl_xsend_set_local): it lends its own input, a view with a
 *             selection vector, to a consumer on its thread and returns
 *             only after that consumer's process() calls returned.
 *   watermark the (merged) watermark of the operator's inputs advanced to wm.
 *             The runtime merges several inputs (minimum, idle inputs
 *             ignored) and calls this only when the merged value grows.  The
 *             operator fires what wm completes, emits it, and forwards a
 *             watermark downstream with sl_op_emit_watermark (an operator
 *             that holds rows back forwards a smaller one).  May be NULL:
 *             the runtime then forwards wm unchanged.
 *   snapshot  write operator-private scalars (late counters, current
 *   restore   watermark) to / from the snapshot stream; state tables are
 *             snapshotted by the state backend, not here.  NULL = none.
 *   finish    end of all inputs, after the +infinity watermark: emit what
 *             is left.  NULL = nothing to do.
 *   close     free everything; never fails; safe after a failed open.
 *
 * Checkpoint protocol (docs/semantics.md §3, docs/checkpoints.md): four optional
 * hooks, called by the checkpoint coordinator (src/runtime/ckpt_coord.c)
 * on every operator that has them, in graph order, between two batches
 * (the job is quiescent: an aligned barrier for every source at once):
 *   pre_commit  phase 1, at the barrier of checkpoint id: make the output
 *               since the previous checkpoint durable but invisible and
 *               write into w what publishing it needs.  The bytes are
 *               stored in the checkpoint under the operator's uid and
 *               handed back to recover on restore.  Sinks.
 *   commit      phase 2, after the checkpoint's manifest is durable:
 *               publish what pre_commit staged for id (sinks), or tell
 *               the outside world that id is done (a source committing
 *               its offsets).  Idempotent; the job fails if it fails.
 *   abort       the checkpoint id failed before its manifest was durable:
 *               discard what pre_commit staged (the rows are written
 *               again into the next checkpoint's output).
 *   recover     at start, after the graph was restored (or with r NULL on
 *               a fresh start), before any input: r holds what pre_commit
 *               wrote for the restored checkpoint; finish what it staged
 *               (publish it if not yet published, idempotent) and roll
 *               back everything else an earlier run left staged.
 *               SL_ESTATE when output of a newer checkpoint was already
 *               published (falling back would repeat rows).
 * An operator that has pre_commit has a record in every checkpoint (empty
 * when it staged nothing), and a restore hands each record to the
 * operator with that uid and a pre_commit hook, so a kind keeps pre_commit
 * set for all its instances and across versions; hooks an operator does
 * not need stay NULL.
 *
 * Lifetime: a constructor (sl_op_*_new, ops.h) returns an operator owned
 * by its caller until sl_graph_add succeeds, owned by the graph after;
 * sl_op_free frees it in either stage (sl_graph_deinit calls it for every
 * registered operator).  A constructor that fails frees what it allocated
 * and returns NULL.
 *
 * Per-row watermarks: batch->wm[i] is the W_before of row i, the watermark
 * of the row's own source before it; operators pass it on unchanged.
 * Operators that judge lateness compare each row against it alone (a row
 * is late by its own W_before, never by another input's watermark), and
 * fire only in their watermark method, at the minimum over their inputs,
 * never at a row's W_before; rows they make carry the W_before of the row
 * they answer, or T - 1 us when the watermark passed a time T.  So results
 * depend neither on batch boundaries nor on the interleaving of inputs
 * (docs/parallel.md §4, docs/watermarks.md "The three rules").
 *
 * Threading: each operator instance runs on one thread (the job's at
 * parallelism 1, its task's above: src/runtime/prun.c); operators need no
 * locking.  Its counters (stats) and watermarks (wm, out_wm) are also read
 * by the metrics snapshot from other threads while the job runs: the
 * operator's thread writes them with SL_CTR_ADD / SL_CTR_SET only
 * (base/counter.h), never with a plain store.
 */
#ifndef SL_OP_H
#define SL_OP_H

#include <stdint.h>

#include "../base/counter.h"
#include "../base/err.h"
#include "../data/types.h"
#include "../state/state.h"
#include "../data/batch.h"
#include "op_kind.h"

struct sl_graph;
typedef struct sl_op sl_op;
typedef struct sl_op_vtab sl_op_vtab;

struct sl_op_vtab {
	const char *name; /* "WindowAggregate", "Calc", ... for display (EXPLAIN,
	                   * stats, messages); decide by kind and flags */
	sl_op_kind kind;  /* one value per method table (op_kind.h) */
	unsigned flags;   /* SL_OPF_* properties of the kind (op_kind.h) */
	int (*open)(sl_op *op, sl_err *err);
	int (*process)(sl_op *op, int input, const sl_batch *in, sl_err *err);
	int (*watermark)(sl_op *op, int64_t wm, sl_err *err);
	int (*snapshot)(sl_op *op, sl_snap_writer *w, sl_err *err);
	int (*restore)(sl_op *op, sl_snap_reader *r, sl_err *err);
	int (*finish)(sl_op *op, sl_err *err);
	void (*close)(sl_op *op);
	/*
	 * Source operators only (no inputs): produce the next batch and emit
	 * it with its watermark.  Returns rows emitted (> 0), 0 when nothing is
	 * available now, SL_EEOF at the end of input, or an error.
	 */
	int (*pump)(sl_op *op, sl_err *err);
	/*
	 * Processing-time timers (processing-time windows): the job's clock
	 * (graph.h, ectx.proctime) moved to `now`; fire what it completes and
	 * emit it.  Called by sl_graph_fire_timers, in topological order,
	 * before input that the new time stamps is processed, and never after
	 * the operator's inputs ended.  NULL = no timers.
	 */
	int (*proctime)(sl_op *op, int64_t now, sl_err *err);
	/* The checkpoint protocol (see the top of this file); NULL = nothing
	 * to do at that step. */
	int (*pre_commit)(sl_op *op, int64_t ckpt_id, sl_snap_writer *w, sl_err *err);
	int (*commit)(sl_op *op, int64_t ckpt_id, sl_err *err);
	int (*abort)(sl_op *op, int64_t ckpt_id, sl_err *err);
	int (*recover)(sl_op *op, sl_snap_reader *r, sl_err *err);
	/* State tables an earlier version of the operator wrote in a layout
	 * this one cannot read (names without "~ttl", NULL-terminated; NULL:
	 * none).  A restore of a snapshot holding one with entries is refused,
	 * naming the operator and the table (graph.c), never read silently. */
	const char *const *retired;
	/*
	 * A checkpoint barrier is about to pass this operator's instance
	 * (parallel jobs, src/runtime/prun_task.c: every input upstream of it
	 * delivered the barrier; nothing more reaches it before the barrier
	 * has passed; parallelism 1: sl_graph_pre_barrier, between two steps):
	 * emit what it holds outside its state, so the checkpoint needs none
	 * of it (Flink's prepareSnapshotPreBarrier).  The rows go downstream
	 * ahead of the barrier.  The two-phase window aggregate's local stage
	 * (op_window_agg.c), the group aggregate's mini-batch bundle
	 * (op_group_agg.c).  NULL = nothing.
	 */
	int (*pre_barrier)(sl_op *op, sl_err *err);
	/*
	 * Every input of the operator went idle ('scan.watermark.idle-timeout'):
	 * its consumers are about to leave it out of their watermark minimum,
	 * so whatever it holds outside its state that a consumer's window may
	 * need must go downstream now, ahead of the idle mark (graph.c,
	 * sl_op_emit_idle).  The two-phase window aggregate's local stage
	 * flushes its partials: held back, a window the consumer fires without
	 * this input would miss them.  NULL = nothing.
	 */
	int (*went_idle)(sl_op *op, sl_err *err);
};

/* One edge from an operator's output to a consumer input. */
typedef struct sl_edge {
	sl_op *to;
	int input;
} sl_edge;

/* Counters every operator keeps (printed by --stats, read live by the
 * metrics snapshot: written with SL_CTR_ADD only, see above). */
typedef struct sl_op_stats {
	int64_t rows_in, rows_out;
	int64_t late_dropped;  /* rows dropped as late (counted once per row) */
	int64_t late_diverted; /* rows written to an ON LATE INSERT INTO table */
	int64_t late_corrected;/* late rows that corrected a window (ALLOWED LATENESS) */
} sl_op_stats;

/*
 * What the live metrics read of an operator besides its counters
 * (exec/op_observe.c, docs/observability.md): published by the operator's
 * own thread (sl_graph_publish, with SL_CTR_SET) from state no other
 * thread may read.
 */
typedef struct sl_op_pub {
	int64_t pend_ts;       /* the oldest open window's end, pending row's time
	                        * or timer (the smallest time namespace above the
	                        * watermark); SL_WM_MIN: nothing pending */
	int64_t pend_n;        /* entries of it (groups, rows or keys) */
	int64_t pend_open;     /* time namespaces above the watermark (<= 1000) */
	int64_t state_bytes;   /* its state's size (sl_state_op_size) */
	int64_t state_entries;
	int64_t at_us;         /* wall clock when published; 0: never */
	/* the publisher's own (plain): what it saw last, when it is due */
	int64_t seen_rows, seen_wm;
} sl_op_pub;

struct sl_late_ring;

struct sl_op {
	const sl_op_vtab *vt;
	struct sl_graph *graph;
	int id;               /* position in the graph, topological */
	char uid[64];         /* stable id for state (hash of its structural identity
	                       * and inputs, or of its UID hint; plan_ident.c) */
	char uid_v1[64];      /* its id under the label-hash scheme of snapshots
	                       * written before structural ids (hash of ident), by
	                       * which a restore of such a snapshot matches it;
	                       * empty: the same as uid (graph.c) */
	const char *uid_hint; /* UID('...') hint of its SELECT of the query, or NULL */
	const char *label;    /* EXPLAIN text for this operator (plan arena) */
	const char *ident;    /* frozen label-hash identity text uid_v1 derives from
	                       * (plan arena; plan_ident.c) */
	const char *sident;   /* structural identity text uid derives from (plan
	                       * arena; exec/op_ident.c) */

	/* output schema */
	int nout;
	sl_type *out_types;
	const char **out_names;

	/* inputs: watermark of each input and the merged one */
	int nin;
	int64_t *in_wm;
	int64_t wm;           /* merged input watermark seen so far */
	int64_t out_wm;       /* last watermark forwarded */
	int in_ended;         /* inputs that reached end of input */
	uint8_t *in_idle;     /* per input: idle (left out of the minimum) */
	int idle;             /* this operator's output is idle */

	/* consumers */
	int nedges;
	sl_edge *edges;

	sl_state_backend *state; /* the job's backend */
	sl_op_stats stats;

	/* State TTL in microseconds of processing time (set by the planner
	 * for non-windowed stateful operators; 0 = none): [0] the operator's
	 * state or a join's left side, [1] a join's right side. */
	int64_t state_ttl[2];
	/* 1: its state is freed by the job's processing-time clock, not by the
	 * watermark (a processing-time window; set by the constructor from its
	 * parameters; see SL_OPF_STATE_WM). */
	int state_proctime;
	sl_state_table *ttl_chain; /* wrappers of its TTL tables (sl_op_table_open) */
	/* live metrics (op_observe.c): the published figures, the tables whose
	 * namespaces are times (registered by timers.c while the operator
	 * opens; keyed: sl_timers), the late rows of the last minute
	 * (allocated at the first late row) */
	sl_op_pub pub;
	sl_state_table *pend_tab[2];
	int npend;
	struct sl_late_ring *late;
};

/*
 * Frees an operator in any stage: just constructed (not yet in a graph),
 * registered in a graph (sl_graph_add) or left behind by a failed
 * sl_graph_add.  Calls its close method, then frees what the graph
 * allocated for it and the operator itself.  Only sl_graph_deinit frees a
 * registered operator (it must leave the graph's list first); NULL is a
 * no-op.
 */
void sl_op_free(sl_op *op);

/*
 * Opens the operator's state table `name` (sl_state_table_open) with the
 * TTL op->state_ttl[side] (0 or no graph: none) counted on the job's
 * processing-time clock (graph.h), flags as sl_state_table_open_ttl.  The
 * graph frees the TTL wrappers after the operator's close.  Returns NULL
 * with err set on failure.
 */
sl_state_table *sl_op_table_open(sl_op *op, const char *name, uint32_t val_size, int side,
                                 int flags, sl_err *err);

/* Emits a batch to every consumer (synchronously; consumers must not keep
 * it).  Empty batches are not forwarded.  Returns 0 or the first consumer
 * error. */
int sl_op_emit(sl_op *op, const sl_batch *b, sl_err *err);

/* Forwards a watermark to every consumer (ignored unless larger than the
 * last forwarded one). */
int sl_op_emit_watermark(sl_op *op, int64_t wm, sl_err *err);

/*
 * Marks the operator's output idle (1) or active (0) for its consumers
 * ('scan.watermark.idle-timeout', docs/semantics.md §1): an idle input is left out
 * of its consumer's watermark minimum, which may then advance; an operator
 * whose inputs are all idle is idle itself.  A source becomes active again
 * before it emits rows.
 */
int sl_op_emit_idle(sl_op *op, int idle, sl_err *err);

/*
 * A row dropped as late (row `row` of batch in, judged by its W_before
 * in->wm[row]): counts it in stats.late_dropped and keeps it, as text with
 * the time it was dropped, in the operator's ring of late rows (the last
 * minute's count and the newest rows: op_observe.c), read by the live
 * metrics.  Only on the late path: the ring is allocated at the first late
 * row and takes a mutex the metrics reader shares.
 */
void sl_op_late_dropped(sl_op *op, const sl_batch *in, int row);

/* The minimum watermark over op's inputs other than `except` (-1: all),
 * leaving out idle inputs; SL_WM_MAX when there are none. */
int64_t sl_op_inputs_wm(const sl_op *op, int except);

#endif
