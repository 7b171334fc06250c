/*
 * ops.h - constructors of the built-in operators, called by the runtime's
 * constructor table (src/runtime/instantiate.c).
 *
 * Each operator lives in its own op_*.c file; this header lists their plan
 * structs (read-only configuration the planner fills and keeps in a plan
 * node's parameters, pnode.h; owned by the plan arena unless said
 * otherwise) and constructors.  A constructor allocates
 * the operator and returns it (NULL with err set on failure, having freed
 * what it allocated); sl_graph_add takes ownership; sl_op_free (op.h)
 * frees it in any stage, including inside a constructor that fails.
 */
#ifndef SL_OPS_H
#define SL_OPS_H

#include "../connector/conn.h"
#include "../expr/expr.h"
#include "agg.h"
#include "op.h"
#include "op_match.h"

/* ---- Scan: a source plus computed columns and the watermark ------------- */

typedef struct sl_scan_plan {
	sl_source *source;        /* owned by the operator from now on; NULL =
	                           * push mode (rows come from sl_op_scan_push) */
	int nphys;                /* physical columns produced by the source */
	const sl_field *phys;     /* their names and types */
	const char *table;        /* for messages */
	/* Output = physical columns, then computed columns (in declared order
	 * interleaved: out_map[i] >= 0 is a physical column, -1-k is computed
	 * expression k). */
	int nout;
	int *out_map;
	sl_expr **computed;       /* over the physical columns */
	int ncomputed;
	int rowtime_col;          /* output column of the rowtime, -1 = none */
	sl_expr *watermark;       /* over the output columns; NULL = none */
	/* The columns the operator emits (column pruning, src/plan/
	 * plan_prune.c): output column i is proj[i] of the nout above, which
	 * the watermark, the rowtime and the NOT NULL checks still see;
	 * NULL (nproj 0) = all nout. */
	int nproj;
	const int *proj;
	const char *const *names; /* with proj: the nout columns' names
	                           * (messages), plan arena */
	int64_t idle_timeout_us;  /* 'scan.watermark.idle-timeout', 0 = off */
	int batch_rows;           /* rows per batch (0 = default) */
	/* Push mode: the decoder of the table's 'format' (json by default),
	 * owned by the operator from now on; NULL = a plain json decoder. */
	struct sl_decoder *push_dec;
} sl_scan_plan;

sl_op *sl_op_scan_new(const sl_scan_plan *p, sl_err *err);

/* ---- Push source: rows handed in through the C API ---------------------- */

/* Decodes one record (a JSON row, or a change event of the table's
 * changelog 'format') into the scan's batch and pushes it through (the
 * scan must have been built with a push source). */
int sl_op_scan_push(sl_op *op, const char *json, size_t len, sl_err *err);
int sl_op_scan_is_push(const sl_op *op);
/* Decodes newline-separated JSON rows and pushes them through in batches
 * of the scan's batch size (every line's effect as if pushed one by one). */
int sl_op_scan_push_lines(sl_op *op, const char *text, size_t len, sl_err *err);
/* The scanned table's name and the source's skipped-row count. */
const char *sl_op_scan_table(const sl_op *op);
int64_t sl_op_scan_skipped(const sl_op *op);

/* The live metrics of a scan's splits (op_scan_pub.c): publish copies the
 * splits' watermarks, idleness and ends (the scan's thread, sl_graph_publish);
 * nsplits is how many it shows (fixed once open) and splits copies up to
 * cap of them (node and instance not set; any thread). */
struct sl_metric_split;
void sl_op_scan_publish(sl_op *op);
int sl_op_scan_nsplits(const sl_op *op);
int sl_op_scan_splits(const sl_op *op, struct sl_metric_split *out, int cap);

/* A bounded file source's progress: bytes read of its splits' bytes
 * (*total 0: unknown).  Callable from any thread while the job runs
 * (relaxed atomics: the live metrics). */
void sl_op_scan_progress(const sl_op *op, int64_t *done, int64_t *total);

/* ---- ChangelogNormalize: last row per PRIMARY KEY (op_changelog_normalize.c) */

sl_op *sl_op_changelog_normalize_new(const int *key_cols, int nkeys, sl_err *err);
int64_t sl_op_scan_events_skipped(const sl_op *op);

/* ---- Calc: filter then projection ---------------------------------------- */

sl_op *sl_op_calc_new(sl_expr *filter, sl_expr *const *proj, int nproj, const sl_type *in_types,
                      int nin, sl_err *err);

/* ---- Correlate: UNNEST of an ARRAY or MAP per input row (op_correlate.c) -- */

/* Parameters of a Correlate (plan node CORRELATE): the collection to
 * expand, an expression over the input row (a plain column reference is
 * read in place), and how.  Output: every input column, then the element
 * columns (ARRAY<ROW<..>>: the row's fields; other ARRAY: the element;
 * MAP: key, value), then with ordinality an INT position (1-based). */
typedef struct sl_correlate_params {
	sl_expr *arg;      /* ARRAY or MAP */
	uint8_t left;      /* LEFT JOIN: a NULL or empty collection gives one
	                    * row with NULL element columns; else no row */
	uint8_t ordinality; /* WITH ORDINALITY: a position column last */
} sl_correlate_params;

/* A Correlate over input columns in_types[0..nin); its output types are
 * out_types[0..nout) (the input's, then the element columns).  NULL with
 * err set. */
sl_op *sl_op_correlate_new(const sl_correlate_params *c, const sl_type *in_types, int nin,
                           const sl_type *out_types, int nout, sl_err *err);

/* ---- Sink ---------------------------------------------------------------- */

/* The operator owns `sink` from now on. */
sl_op *sl_op_sink_new(sl_sink *sink, sl_err *err);
int sl_op_sink_set_upsert(sl_op *op, const int *pk, int npk, sl_err *err);
/* The sink of a Sink operator, NULL for any other operator (statistics,
 * identities; the checkpoint protocol goes through sl_op_vtab). */
sl_sink *sl_op_sink_get(sl_op *op);
/* Publishes what a Sink operator has written, if not yet done (its finish;
 * the run loop calls it after a fatal error without checkpointing: the
 * rows before the error are kept, docs/semantics.md §3).  No-op for other
 * operators.  Returns 0 or the connector's error. */
int sl_op_sink_finish(sl_op *op, sl_err *err);

/* ---- ConstraintEnforcer: a sink's NOT NULL columns (op_constraint.c) ------ */

/* Checks that the columns cols[0..ncols) (names: the sink's column names,
 * kept by reference, plan arena) are not NULL: an error naming the column
 * (drop = 0, Flink's 'table.exec.sink.not-null-enforcer' = ERROR) or the
 * row left out (drop = 1, DROP).  Copies cols. */
sl_op *sl_op_constraint_new(const int *cols, const char *const *names, int ncols, int drop,
                            sl_err *err);

/* ---- Union all ----------------------------------------------------------- */

sl_op *sl_op_union_new(sl_err *err);

/* ---- VALUES: constant rows (op_values.c) --------------------------------- */

/* nrows rows of ncols constants (row-major, not copied: plan arena). */
sl_op *sl_op_values_new(int nrows, int ncols, const sl_value *vals, sl_err *err);
/* Emits a Values source's rows and ends it (no-op for other operators). */
int sl_op_values_start(sl_op *op, sl_err *err);

/* ---- INTERSECT / EXCEPT (op_set_op.c) ------------------------------------ */

typedef enum sl_setop_kind { SL_SETOP_INTERSECT = 1, SL_SETOP_EXCEPT } sl_setop_kind;

/* Two inputs (left, right) of the same column types; output: those
 * columns, +I/-D as the row's output count grows/shrinks. */
sl_op *sl_op_set_op_new(sl_setop_kind kind, int all, sl_err *err);

/* ---- Window aggregate (TUMBLE / HOP / CUMULATE) -------------------------- */

typedef enum sl_win_kind { SL_WIN_TUMBLE, SL_WIN_HOP, SL_WIN_CUMULATE, SL_WIN_SESSION } sl_win_kind;

typedef struct sl_window_spec {
	sl_win_kind kind;
	int time_col;     /* input column (the rowtime) */
	int64_t size;     /* micros: TUMBLE/HOP size, CUMULATE max size, SESSION gap */
	int64_t slide;    /* HOP slide, CUMULATE step */
	int64_t offset;
	/* Windows over a TIMESTAMP_LTZ rowtime align in this session time zone
	 * ('table.local-time-zone'); NULL for UTC and for TIMESTAMP rowtimes.
	 * window_start/window_end are then local wall-clock TIMESTAMP(3) values,
	 * window_time the TIMESTAMP_LTZ instant end - 1 ms (as Flink). */
	const char *tz;
	/* 1: a processing-time window (time_col is a PROCTIME() attribute,
	 * TIMESTAMP_LTZ(3)).  Rows go to the windows of the job's clock when
	 * they reach the operator (graph.h), a window fires when the clock
	 * reaches its end (sl_op_vtab.proctime), never on watermarks; nothing
	 * is late; windows still open at end of input are not fired (Flink's
	 * streaming mode: pending processing-time timers are dropped). */
	int proc;
	/* 1: the rows carry their window already (a window aggregate over
	 * another window aggregate's results grouped by their window_start and
	 * window_end; Flink's window-attached strategy): time_col is the
	 * input's window_end column and a row's one window ends there (its
	 * local wall-clock value in tz; converted to the UTC instant); kind,
	 * size, slide and offset are the window's, which give window_start.
	 * Window aggregates only; 0 everywhere else. */
	int attached;
} sl_window_spec;

/* UTC instant -> local wall clock in zone tz, and back (tz NULL: identity). */
int64_t sl_win_to_local(const char *tz, int64_t utc);
int64_t sl_win_to_utc(const char *tz, int64_t local);

enum { SL_LATEPOL_DROP = 0, SL_LATEPOL_SIDE = 1 };

typedef struct sl_window_agg_plan {
	sl_window_spec win;
	int nkeys;
	const int *key_cols;   /* input columns of the GROUP BY keys */
	int naggs;
	const sl_agg *aggs;    /* offsets are assigned by the operator */
	/* HAVING over the output row (keys, window_start, window_end,
	 * window_time, aggregates); NULL = none.  Evaluated inside the operator
	 * so that late corrections can turn into -D / +I. */
	sl_expr *having;
	int64_t lateness;      /* ALLOWED LATENESS in micros, 0 = none */
	int late_policy;       /* SL_LATEPOL_DROP or SL_LATEPOL_SIDE */
	sl_op *late_op;        /* SL_LATEPOL_SIDE: receives late rows (input 0);
	                        * NULL in a plan node, set by the runtime from
	                        * the node's side (pnode.h) */
	int late_ncols;        /* leading input columns that form a late row */
	sl_type time_type;     /* type of window_time (rowtime type, precision 3) */
	/* Two-phase aggregation (docs/parallel.md §11, plan_twophase.c):
	 * SL_WINPHASE_ONE the whole aggregate; SL_WINPHASE_LOCAL the
	 * LocalWindowAggregate before the exchange (its output: the GROUP BY
	 * keys, the window end as a BIGINT UTC instant, the local entry's
	 * record as BYTES (ltab.h: the encoded key and the accumulator
	 * slot), the key's sl_state_hash as BIGINT); SL_WINPHASE_GLOBAL the aggregate after it, whose input
	 * is that output (key_cols 0..nkeys-1) and whose state, output and
	 * snapshot are the one-phase aggregate's. */
	int phase;
} sl_window_agg_plan;

enum { SL_WINPHASE_ONE = 0, SL_WINPHASE_LOCAL = 1, SL_WINPHASE_GLOBAL = 2 };

/* The LocalWindowAggregate of a two-phase window aggregate (p->phase ==
 * SL_WINPHASE_LOCAL; op_window_agg.c); in_types/nin: the one-phase
 * aggregate's input.  Output: sl_window_local_out_types. */
sl_op *sl_op_window_local_new(const sl_window_agg_plan *p, const sl_type *in_types, int nin,
                              sl_err *err);

/* The output types of a LocalWindowAggregate (t has room for nkeys + 3):
 * the keys, the window end (BIGINT NOT NULL), the record of the key and
 * its accumulators (BYTES NOT NULL), the key's hash (BIGINT NOT NULL);
 * returns the count. */
int sl_window_local_out_types(const sl_window_agg_plan *p, const sl_type *in_types, sl_type *t);

/* 1 when every aggregate of p can be split into a local and a global
 * phase (a merge of partial accumulators exists and the accumulator is
 * the fixed slot: no DISTINCT, no string aggregate, no FIRST_VALUE /
 * LAST_VALUE, no user-defined aggregate without merge). */
int sl_window_aggs_mergeable(const sl_window_agg_plan *p);

/* Output columns: keys..., window_start, window_end, window_time, aggs... */
sl_op *sl_op_window_agg_new(const sl_window_agg_plan *p, const sl_type *in_types, int nin,
                            sl_err *err);

/* A window TVF read as a table: input columns + window_start, window_end,
 * window_time (the graph gives it nin + 3 output columns). */
sl_op *sl_op_window_assign_new(const sl_window_spec *w, int nin, sl_err *err);

/* The SESSION window TVF read as a table (op_session_assign.c): the same
 * output; rows come out when their session closes.  Partitioned by
 * key_cols[0..nkeys) (copied). */
sl_op *sl_op_session_assign_new(const sl_window_spec *w, int nin, const int *key_cols, int nkeys,
                                sl_err *err);

/* Output types of a window aggregate (t has room for nkeys + 3 + naggs);
 * returns the count. */
int sl_window_agg_out_types(const sl_window_agg_plan *p, const sl_type *in_types, sl_type *t);

/* Shared by the window operators (op_window_agg.c): late rows under the
 * ON LATE policy, their flush to the side table, and HAVING's program. */
int sl__window_late_row(sl_op *op, const sl_window_agg_plan *p, sl_batch *late,
                        const sl_batch *in, int row, sl_err *err);
int sl__window_late_flush(const sl_window_agg_plan *p, sl_batch *late, sl_err *err);
sl_prog *sl__window_having(const sl_window_agg_plan *p, const sl_type *in_types, sl_err *err);

/* ---- Session window aggregate -------------------------------------------- */

sl_op *sl_op_session_agg_new(const sl_window_agg_plan *p, const sl_type *in_types, int nin,
                             sl_err *err);

/* ---- Non-windowed GROUP BY (updating output) ------------------------------ */

typedef struct sl_group_agg_plan {
	int nkeys;
	const int *key_cols;
	int naggs;
	const sl_agg *aggs;
	int mini_batch;        /* fold updates per key ('table.exec.mini-batch.enabled') */
	/* 'table.exec.mini-batch.allow-latency' in micros: 0 = a bundle per
	 * input batch (sluice's default), > 0 = bundles across input batches,
	 * emitted once that much processing time has passed since their first
	 * row (op_group_agg.c, "Mini-batch") */
	int64_t mb_latency;
	int64_t mb_size;       /* 'table.exec.mini-batch.size': rows per bundle, 0 = no limit */
} sl_group_agg_plan;

/* Output columns: keys..., aggs... */
sl_op *sl_op_group_agg_new(const sl_group_agg_plan *p, const sl_type *in_types, int nin,
                           sl_err *err);

#endif
