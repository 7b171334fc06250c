/*
 * plan.h - the planner's entry point: statements -> a physical plan.
 *
 * Data flow:  AST statements (INSERT INTO, bare SELECT, statement sets)
 *             --(sl_plan_job)--> plan nodes (src/exec/pnode.h), rewritten
 *             (rewrite.c), with their operator ids, plus the EXPLAIN text
 *             printed from them; the runtime instantiates the nodes as a
 *             graph of operators (src/runtime/instantiate.h).
 *
 * All planning errors (unknown names, type mismatches, a window over a
 * column without a watermark, an updating stream into an append-only sink,
 * a late clause in the wrong place) are reported here, before any input is
 * read, with the SQL line and column.
 */
#ifndef SL_PLAN_H
#define SL_PLAN_H

#include "../base/arena.h"
#include "../base/buf.h"
#include "../base/err.h"
#include "../base/opts.h"
#include "../exec/pnode.h"
#include "../sql/ast.h"
#include "catalog.h"

struct sl_engine;

/* A job fit for 'sluice.scale-out' = 'kafka-group' (plan_scaleout.c,
 * docs/kafka.md "Several processes, one job"): its one Kafka source. */
typedef struct sl_scale_out {
	int on;                 /* 'sluice.scale-out' = 'kafka-group', checked */
	const char *table;      /* the source table */
	const sl_opts *opts;    /* its options (plan arena) */
	const char *topic;      /* its one topic */
	const char *group;      /* 'properties.group.id' */
	const char *keys;       /* the Kafka key's columns, "a, b" (EXPLAIN) */
	int nkeyed;             /* keyed inputs checked (EXPLAIN) */
	const char *co_topics[8]; /* the other tables' topics, joined partition by
	                           * partition (same partition count, checked by
	                           * the member) */
	int nco;
} sl_scale_out;

typedef struct sl_plan_args {
	const sl_catalog *cat;
	const sl_opts *session;   /* SET options */
	struct sl_engine *engine; /* for push connectors */
	/* the sink of 'push' tables (and of bare SELECTs with select_to_queue):
	 * the engine's (api/conn_push.c); NULL = 'push' cannot be written */
	const sl_sink_vtab *push_sink;
	int select_to_queue;      /* bare SELECT results: 1 = engine queue, 0 = print */
	sl_arena *arena;          /* plan arena, lives as long as the job */
	int checkpointing;        /* checkpoints on: sinks stage until commit */
	const char *job;          /* job name (sink file names), "" without checkpoints */
	int64_t attempt;          /* run attempt (sink file names) */
	sl_buf *warnings;         /* planning warnings, one per line (may be NULL) */
	int parallelism;          /* the job's parallelism (plan_par.c); 0 = 1 */
	int parallelism_explicit; /* the user set it ('parallelism.default'):
	                           * running at 1 instead is worth a warning */
	sl_scale_out *scale_out;  /* set when the job is fit for 'sluice.scale-out'
	                           * (may be NULL: not asked) */
} sl_plan_args;

/*
 * Plans statements stmts[0..n) (INSERT, QUERY or STATEMENT_SET) into the
 * physical plan *plan (nodes in a->arena, topological order) and appends
 * the EXPLAIN text to explain (may be NULL).  No I/O and no operator:
 * connectors are configured to check their options and freed;
 * sl_instantiate (runtime) builds the graph, configuring a connector for
 * each operator, and sl_graph_open opens them.  The plan owns nothing
 * outside the arena.  Returns 0 or a negative SL_E* code with err set.
 */
int sl_plan_job(const sl_plan_args *a, sl_ast_stmt *const *stmts, int n, sl_pplan *plan,
                sl_buf *explain, sl_err *err);

/* The output columns of query q planned as a job would plan it (no I/O,
 * no plan node kept): *ncols names and types in a->arena.  0, or a
 * negative SL_E* code with err set (line and column).  CREATE TABLE ... AS
 * (plan_ctas.c) takes its table's columns from it. */
int sl_plan_query_columns(const sl_plan_args *a, const sl_ast_query *q, int *ncols,
                          const char ***names, sl_type **types, sl_err *err);

/*
 * CREATE TABLE t WITH (...) AS query (Flink's CTAS, plan_ctas.c): adds t to
 * cat with the query's output columns (names and types, a time attribute
 * as its plain TIMESTAMP type) and s's options, and returns in *insert the
 * statement `INSERT INTO t query` for the job (cat's arena).  With IF NOT
 * EXISTS and t already there, only *insert.  Refused as Flink 1.20 refuses
 * them: a column list, WATERMARK, PRIMARY KEY, PARTITIONED BY, TEMPORARY,
 * LIKE.  0, or a negative SL_E* code with err set.
 */
int sl_plan_ctas(const sl_plan_args *a, sl_catalog *cat, sl_ast_stmt *s, sl_ast_stmt **insert,
                 sl_err *err);

/* Appends a table of nrows rows of ncols (at most 16) cells (v, row-major)
 * under the headers head, in Flink's SQL client tableau format, with its
 * "N rows in set" line ("Empty set" for none). */
void sl_plan_tableau(sl_buf *out, int ncols, const char *const *head, int nrows,
                     const char *const *v);

/*
 * Runs SHOW / DESCRIBE statement s (plan_show.c) against the catalog and
 * appends its output (Flink SQL client tableau format) to out; arena holds
 * scratch data.  Returns 0 or a negative SL_E* code with err set (line and
 * column of the statement).
 */
int sl_plan_show(const sl_catalog *cat, const sl_opts *session, sl_arena *arena,
                 const sl_ast_stmt *s, sl_buf *out, sl_err *err);

#endif
