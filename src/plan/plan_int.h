/*
 * plan_int.h - the planner's internal model, shared by its files.
 *
 * The planner turns statements into a physical plan in one pass over the
 * AST: each FROM item, filter, projection or aggregate becomes a "rel" (a
 * relation: the plan node that produces it plus its columns, its time
 * attributes and its changelog kind), built on top of the rels below it.
 * Plan nodes (src/exec/pnode.h) are made by sl__node_new only, appended
 * to the planner's node list in topological order; the planner builds no
 * operator (the runtime instantiates the nodes, src/runtime/instantiate.c)
 * and does no I/O.  After the statements, plan_ident.c gives every node its
 * id, rewrite.c applies the rewrite rules and plan_job.c prints EXPLAIN
 * from the nodes.  Expressions are bound against a scope (the columns of a
 * rel, and in an aggregate query the mapping of GROUP BY keys and
 * aggregate calls to the aggregate's output columns).
 *
 * Files: bind.c (expressions), bind_fn.c (IF, JSON functions), bind_time.c
 * (temporal rewrites), bind_inlist.c (OR chains as IN), bind_udf.c (C UDF
 * calls), plan_query.c (FROM, WHERE, SELECT, window TVFs, UNION /
 * INTERSECT / EXCEPT, WITH), plan_agg.c (GROUP BY, windows, aggregates,
 * SELECT DISTINCT), plan_grouping.c (GROUPING SETS), plan_join.c (joins),
 * plan_comma.c (FROM a, b WHERE ...), plan_subquery.c (IN / EXISTS /
 * scalar subqueries), plan_over.c (ROW_NUMBER, OVER aggregates), plan_order.c
 * (ORDER BY, LIMIT), plan_values.c (VALUES), plan_job.c (plan nodes, scans,
 * sinks, INSERT, statement sets, EXPLAIN), plan_sink.c (casts and
 * constraints in front of a sink), plan_ident.c (operator ids), rewrite.c
 * (rewrite rules over the plan), plan_prune.c (column pruning, a rule), plan_ttl.c (state TTL and state bounds),
 * plan_dist.c (the distribution of each node's inputs),
 * plan_unsup.c (Flink functions sluice lacks), plan_show.c (SHOW,
 * DESCRIBE), catalog.c, udf.c (CREATE FUNCTION).
 */
#ifndef SL_PLAN_INT_H
#define SL_PLAN_INT_H

#include "../base/buf.h"
#include "../exec/graph.h"
#include "../exec/op_ident.h"
#include "../exec/ops.h"
#include "../exec/pnode.h"
#include "../sql/ast.h"
#include "catalog.h"
#include "plan.h"

typedef struct rcol {
	const char *qual;  /* table alias / name qualifying the column, or NULL */
	const char *name;
	sl_type type;
} rcol;

typedef struct rel rel;

struct rel {
	sl_pnode *node;     /* producing plan node (NULL for a virtual TVF rel) */
	int ncols;
	rcol *cols;
	int rowtime;        /* event-time attribute column, -1 */
	int proctime;       /* processing-time attribute column, -1 */
	int updating;       /* produces -U/+U/-D */
	const char *upd_op; /* the operator that makes it updating */
	const char *upsert_key; /* updating as an upsert stream keyed by these
	                         * columns (no -U; a -D may hold only the key), or
	                         * NULL: a full retract stream (EXPLAIN shows it) */
	/* A materialized window TVF (and projections keeping both columns):
	 * its window and the columns of window_start / window_end; NULL when
	 * not (window joins need both sides to be the same window TVF). */
	const sl_window_spec *win;
	int win_start, win_end;
	/* 1 + a column holding the window end of the window its append-only
	 * row belongs to (a window aggregate's or window TVF's window_end,
	 * kept by projections even without window_start), 0 when none: every
	 * row comes with W_before < that end (results fire at end - 1 us), so
	 * an interval join may bound on it as on a rowtime when the rel has
	 * no rowtime (plan_join.c; Nexmark q7).  UTC windows only. */
	int wend_time1;
	/* 1 + the column holding the event-time column of a window TVF read as
	 * a table (its DESCRIPTOR column, kept by projections), 0 when none:
	 * Flink keeps it a time attribute beside window_time, so ROW_NUMBER
	 * ordered by it DESC with rn = 1 is its window deduplication keeping
	 * the last row (plan_over.c). */
	int tvf_time1;
	/* Window TVF (virtual): columns = input columns + window_start,
	 * window_end, window_time; consumed by a window aggregate. */
	rel *tvf_in;
	sl_window_spec tvf_win;
	const sl_ast_expr *tvf_call;
	const sl_ast_expr *tvf_part; /* SESSION: the TABLE arg with PARTITION BY */
	/* What Top-N's strategy needs (plan_over.c; Flink's modified
	 * monotonicity and upsert keys), NULL when not known: mono[i] = how
	 * column i moves when its row is updated (SL_MONO_*); ukey[i] = the
	 * member of the input's upsert key that column i copies, or -1, over
	 * nukey members.  Set by a GROUP BY over an append-only input, kept
	 * by projections without a filter (plan_query.c add_calc). */
	const int8_t *mono;
	const int8_t *ukey;
	int nukey;
};

enum { SL_MONO_NOT = 0, SL_MONO_CONST, SL_MONO_INC, SL_MONO_DEC };

/* Aggregate query scope: what GROUP BY keys and aggregates became. */
typedef struct agg_map {
	int n;
	const char **text;  /* printed AST of a key expr / agg call / window fn */
	int *col;           /* output column of the aggregate operator */
	int over;           /* maps OVER calls (plan_over.c): every input column
	                     * stays visible, '*' is allowed and expands to the
	                     * first nstar columns (the FROM relation's) */
	int nstar;
} agg_map;

typedef struct scope {
	const rel *r;
	const agg_map *agg; /* non-NULL after aggregation */
	const rel *agg_in;  /* the aggregate's input, for messages */
} scope;

/* A named query in scope (WITH). */
typedef struct cte_def {
	const char *name;
	const sl_ast_cte *cte;
	rel *planned;
} cte_def;

typedef struct planner {
	sl_arena *a;             /* plan arena: job lifetime */
	const sl_catalog *cat;
	const sl_opts *session;  /* SET options */
	sl_pplan plan;           /* the physical plan: nodes in creation order,
	                          * which is topological */
	sl_err *err;
	struct sl_engine *engine;
	const char *tz;
	/* sources are shared by every statement of the job */
	int nscans;
	struct { const sl_table_def *t; const sl_opts *hint; rel *r; } scans[64];
	int nctes;
	cte_def ctes[64];
	int select_to_queue;     /* bare SELECT -> push queue (API) or print (CLI) */
	const sl_sink_vtab *push_sink; /* sl_plan_args.push_sink */
	int64_t default_lateness;
	int mini_batch;
	int64_t mb_latency, mb_size; /* 'table.exec.mini-batch.allow-latency', '.size' */
	int warned_split;        /* the distinct-agg split warning was written */
	int checkpointing;       /* sinks stage output until checkpoints commit */
	int parallelism;         /* the job's parallelism (plan_par.c), >= 1 */
	int parallelism_explicit; /* sl_plan_args.parallelism_explicit */
	sl_buf *warnings;
	const char *job;
	int64_t attempt;
	int64_t state_ttl;              /* 'table.exec.state.ttl' in micros, 0 = none */
	const sl_ast_select *ttl_sel;   /* the SELECT being planned (its STATE_TTL hint) */
	/* Scalar subqueries of the SELECTs being planned (plan_subquery.c): the
	 * AST node and the column ("$scalarN") the binder reads it from. */
	int nscalar;
	const sl_ast_expr *scalar_at[32];
	const char *scalar_col[32];
	int view_depth;                 /* views being expanded (SL_PLAN_MAX_VIEW_DEPTH) */
} planner;

/* Views expanded inside one another: a view over a view over ... deeper
 * than this is an error (planning recurses once per level). */
#define SL_PLAN_MAX_VIEW_DEPTH 200

/* ---- rewrite.c: rewrite rules over the plan ---- */

/* Applies the rewrite rules to p->plan (complete, ids set) until none
 * changes it; checks the plan after each change.  Returns 0, or a
 * negative SL_E* code with p->err set (SL_ERUNTIME: a rule broke the
 * plan). */
int sl__plan_rewrite(planner *p);

/* ---- plan_prune.c: column pruning, a rewrite rule ---- */

/* The rule "prune-columns" (rewrite.c): narrows every node's output to the
 * columns its consumers read (scans emit fewer columns, joins store
 * narrower rows), remapping the column references of the nodes above;
 * a stateful node whose state layout changes gets new ids.  Off with
 * 'sluice.plan.prune' = 'false'.  1 when the plan changed, 0 when not, or
 * a negative SL_E* code with p->err set. */
int sl__plan_prune(planner *p);

/* ---- plan_join_filter.c: filters below joins, a rewrite rule ---- */

/* The rule "join-filters" (rewrite.c): inserts in front of a regular,
 * interval or window join's input a Calc with the join's conditions over
 * that input's columns alone that may move there (its residual's, the
 * filter of the Calc above it), keeping them where they were.  Off with
 * 'sluice.plan.join-filters' = 'false'.  1 when the plan changed, 0 when
 * not, or a negative SL_E* code with p->err set. */
int sl__plan_join_filters(planner *p);

/* ---- plan_dist.c: the distribution each node requires of its inputs ---- */

/* Sets every node's dist (pnode.h) from its kind and parameters; after the
 * rewrite pass.  Returns 0 or SL_ENOMEM with p->err set. */
int sl__plan_dist(planner *p);

/* Node n's EXPLAIN marker of its inputs' distributions, one per input in
 * order ("exchange=[hash[user_id], forward]", arena string); called after
 * sl__plan_dist, for nodes with inputs. */
const char *sl__plan_dist_explain(planner *p, const sl_pnode *n);

/* ---- plan_par.c: parallelism and exchanges (issue 10 step 4) ---- */

/* Sets every node's parallelism (sl_pnode.par) and the exchange of each
 * of its inputs (sl_pnode.xchg) from p->parallelism and the nodes'
 * distributions (after sl__plan_dist).  Returns 0 or SL_ENOMEM. */
int sl__plan_par(planner *p);

/* EXPLAIN's text for node n at parallelism > 1: "parallelism=2" and, for
 * nodes with inputs, "ship=[HASH[user_id], FORWARD (chained)]". */
const char *sl__plan_par_explain(planner *p, const sl_pnode *n);

/* ---- plan_twophase.c: local-global window aggregation ---- */

/* After sl__plan_par: splits each window aggregate whose input crosses an
 * exchange into a LocalWindowAggregate chained to its producer and the
 * aggregate as the global stage, as 'table.optimizer.agg-phase-strategy'
 * allows (docs/parallel.md §11).  Returns 0, or SL_EPLAN (a bad option
 * value) / SL_ENOMEM with p->err set. */
int sl__plan_two_phase(planner *p);

/* ---- plan_scaleout.c: several processes sharing a Kafka topic ---- */

/* With 'sluice.scale-out' = 'kafka-group': checks that every piece of the
 * job's state belongs to one partition of its one Kafka source's topic
 * and fills *out; without the option returns 0 and leaves *out alone.
 * After sl__plan_dist.  0, or SL_EPLAN / SL_EINVAL with p->err saying why. */
int sl__plan_scale_out(planner *p, sl_scale_out *out);
/* EXPLAIN's "Scale-out: ..." line for so (nothing when so->on is 0). */
void sl__plan_scale_out_explain(planner *p, const sl_scale_out *so, sl_buf *explain);

/* ---- plan_ttl.c: state TTL ---- */

/* Sets node n's state bound (n->state, from its kind and parameters) and
 * gives it the job's TTL (p->state_ttl) when it is a non-windowed stateful
 * operator (sl__node_new calls it for every node). */
void sl__plan_ttl_default(planner *p, sl_pnode *n);

/* Checks the STATE_TTL hints of sel (durations, keys naming inputs of its
 * FROM).  Returns 0 or SL_EPLAN with the error at the argument. */
int sl__plan_ttl_check(planner *p, const sl_ast_select *sel);

/* Applies the current SELECT's STATE_TTL hint (p->ttl_sel) to the regular
 * join planned for FROM item f over inputs l and r (per side), and to the
 * group aggregate r->op of sel. */
void sl__plan_join_ttl(planner *p, const sl_ast_from *f, const rel *l, const rel *r);
/* The same for a join whose inputs l and r are the FROM items lf and rf
 * (either NULL: no hint for that side); comma joins (plan_comma.c). */
void sl__plan_join_ttl_items(planner *p, const sl_ast_from *lf, const sl_ast_from *rf,
                             const rel *l, const rel *r);
void sl__plan_agg_ttl(planner *p, const sl_ast_select *sel, rel *r);

/* The EXPLAIN marker of node n's state bound ("state=[bounded by TTL 1 h]",
 * arena string), or NULL for an operator without keyed state. */
const char *sl__plan_ttl_explain(planner *p, const sl_pnode *n);

/* ---- bind.c ---- */

/* Binds an expression in scope s; NULL with p->err set (line/column). */
sl_expr *sl__bind_expr(planner *p, const scope *s, const sl_ast_expr *e);

/* Sets a planning error at the node's position and returns NULL. */
void *sl__plan_error(planner *p, int line, int col, int code, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* sl_expr_call (target: the result type of a CAST, JSON_VALUE, ...; NULL
 * otherwise) with a type error placed at the SQL position of `at`, and a
 * CASE returning a ROW refused there (expr_compile.c cannot compile it).
 * NULL with p->err set. */
sl_expr *sl__bind_call(planner *p, const sl_ast_expr *at, sl_fn fn, sl_expr **args, int n,
                       const sl_type *target);

/* Converts an INTERVAL literal / constant expression to micros; 0 or error. */
int sl__bind_interval(planner *p, const sl_ast_expr *e, int64_t *us);

/* Printed form of an AST expression (arena string), used as a key. */
const char *sl__ast_text(planner *p, const sl_ast_expr *e);
/* plan_unsup.c: for a call name sluice does not know, a printf format
 * (one %s: the name) saying the Flink built-in is not supported, or NULL
 * when the name is not a Flink built-in. */
const char *sl__flink_missing_fn(const char *fname);
/* bind_inlist.c: for an OR (AND) node e whose leaves are 16 or more
 * `c = literal` (`c <> literal`) over one column, sets *done and returns
 * e bound as c IN (...) (NOT IN), or NULL with the error; *done = 0 (and
 * NULL) when e has another form. */
sl_expr *sl__bind_inlist(planner *p, const scope *s, const sl_ast_expr *e, int *done);

/* bind_udf.c: a call of user-defined function u (CREATE FUNCTION), its
 * arguments cast to the registration's types where Flink would cast
 * implicitly.  NULL with p->err set. */
sl_expr *sl__bind_udf_call(planner *p, const scope *s, const sl_ast_expr *e, const sl_func_def *u);
/* bind_udf.c: the user-defined aggregate function call e names (CREATE
 * FUNCTION of an aggregate registration), or NULL. */
const sl_func_def *sl__udaf(planner *p, const sl_ast_expr *e);
/* bind_udf.c: binds call e of user-defined aggregate u into *a (vtab,
 * types, nargs, position; arg_col, filter_col and arg_cols[] left -1 for
 * the caller, who places the returned arguments in input columns) and
 * returns its e->u.call.nargs argument expressions, cast to the declared
 * types; NULL with p->err set.  FILTER is the caller's. */
sl_expr **sl__bind_udaf_call(planner *p, const scope *s, const sl_ast_expr *e,
                             const sl_func_def *u, sl_agg *a);

/* Whether the call is an aggregate function (COUNT, SUM, ..., or a
 * user-defined aggregate of p's catalog) and not an OVER call. */
int sl__is_agg_call(planner *p, const sl_ast_expr *e);

/* ---- bind_time.c ---- */

/* Binds the temporal calls that are rewrites (YEAR ... SECOND, OVERLAPS,
 * LOCALTIMESTAMP, CURRENT_DATE, CURRENT_TIME, LOCALTIME,
 * CURRENT_ROW_TIMESTAMP); *handled = 0 (and NULL) for any other call.
 * NULL with p->err set on an error. */
sl_expr *sl__bind_time_call(planner *p, const scope *s, const sl_ast_expr *e, int *handled);

/* ---- bind_fn.c ---- */

/* Binds IF, IFNULL and the JSON query/constructor calls: 1 handled (*out
 * the result, NULL with p->err set), 0 not one of them. */
int sl__bind_fn_call(planner *p, const scope *s, const sl_ast_expr *e, sl_expr **out);
/* x IS JSON kind (e the IS node, arg the bound x); NULL with p->err set. */
sl_expr *sl__bind_is_json(planner *p, const sl_ast_expr *e, sl_expr *arg);

/* ---- plan_query.c ---- */

rel *sl__plan_query(planner *p, const sl_ast_query *q);

/* A new rel with n columns (arena). */
rel *sl__rel_new(planner *p, int ncols);

/*
 * The one place plan nodes are created (pnode.h): a node of kind k with
 * parameters params (size bytes, copied into the plan arena, layout kept;
 * NULL for none) over inputs in[0..nin) (in[i] feeds input i), the ON LATE
 * sink `side` (window aggregates, else NULL) and rel r's columns, changelog
 * mode and rowtime as its output; its EXPLAIN label is `label` followed by
 * the changelog decoration, its identity text sl__op_ident's, its state
 * bound and default TTL follow from its kind.  Sets r->node.  Returns the
 * node, or NULL with p->err set.
 */
sl_pnode *sl__node_new(planner *p, sl_op_kind k, const void *params, size_t size,
                       sl_pnode *const *in, int nin, sl_pnode *side, rel *r, const char *label);

/* The aggregate of sel over `from` (GROUP BY, window TVF or legacy group
 * window); fills m with what its output columns hold.  NULL with p->err
 * set. */
rel *sl__plan_aggregate(planner *p, const sl_ast_select *sel, rel *from, agg_map *m);

/* ---- plan_grouping.c: GROUPING SETS, ROLLUP, CUBE ---- */

/* Whether sel's GROUP BY has GROUPING SETS, ROLLUP, CUBE or a column list,
 * or its SELECT list or HAVING calls GROUPING / GROUPING_ID / GROUP_ID. */
int sl__select_has_grouping(planner *p, const sl_ast_select *sel);

/* Plans the aggregate of such a sel over `from` (one aggregate per
 * grouping set, merged by a Union, then HAVING); fills m like
 * sl__plan_aggregate.  NULL with p->err set. */
rel *sl__plan_grouping(planner *p, const sl_ast_select *sel, rel *from, agg_map *m);

/* ---- plan_ident.c: operator identity ---- */

/* The label-hash identity text of an operator with plan label `label` and
 * output r (arena string; frozen: the ids of snapshots written before
 * structural ids, op->uid_v1, are hashes of it). */
const char *sl__op_ident(planner *p, const char *label, const rel *r);

/* Sets n->sident, the structural identity of node n (exec/op_ident.h: of
 * its kind, from its parameters, its first input's column types where the
 * kind is identified by them, and its output types); sl__node_new calls
 * it for every node.  Returns 0 or an error (p->err). */
int sl__node_struct(planner *p, sl_pnode *n);

/* Sets the stable ids of every node of the complete plan: n->uid
 * (structural) and n->uid_v1 (label hash, for restores of older
 * snapshots), each unique within the job and the same for every run of
 * the same job text.  Returns 0, or SL_EPLAN when two nodes carry the
 * same UID hint or one has no structural identity. */
int sl__plan_idents(planner *p);

/* A Calc over `in`: optional filter, then the projection x[0..n) named
 * names[i]; time attributes follow plain column references.  NULL with
 * p->err set. */
rel *sl__add_calc(planner *p, rel *in, sl_expr *filter, sl_expr **x, int n, const char **names);

/* Identity projection of every column of in with a filter (keeps the time
 * attributes and qualifiers).  NULL with p->err set. */
rel *sl__add_filter(planner *p, rel *in, sl_expr *filter);

/* ---- plan_match.c: MATCH_RECOGNIZE ---- */
/* The MATCH_RECOGNIZE item f over its planned input `in`: a MatchRecognize
 * node; its relation holds the PARTITION BY columns, then the measures.
 * NULL with p->err set. */
rel *sl__plan_match(planner *p, const sl_ast_from *f, rel *in);
/* ---- plan_unnest.c: UNNEST as a Correlate ---- */

/* Whether FROM item f is UNNEST(..). */
int sl__is_unnest(const sl_ast_from *f);

/* The UNNEST item f over `left`, whose columns its argument reads: a
 * Correlate node; left_join pads a NULL or empty collection with one row
 * of NULLs.  NULL with p->err set. */
rel *sl__plan_unnest(planner *p, const sl_ast_from *f, rel *left, int left_join);

/* The join j whose right side is an UNNEST item, over its planned left
 * side: CROSS JOIN, JOIN .. ON cond (a filter after), LEFT JOIN .. ON
 * TRUE.  NULL with p->err set. */
rel *sl__plan_unnest_join(planner *p, const sl_ast_from *j, rel *left);

/* UNNEST(..) as a FROM item of its own, over one constant row. */
rel *sl__plan_unnest_alone(planner *p, const sl_ast_from *f);


/* ---- plan_comma.c: FROM a, b WHERE ... ---- */

/* Plans one FROM item (a window TVF materialized). */
typedef rel *(*sl_plan_item_fn)(planner *p, const sl_ast_from *f);

/* Plans the right side of a join FOR SYSTEM_TIME AS OF (plan_join.h). */
typedef rel *(*sl_plan_side_fn)(planner *p, const sl_ast_from *f);

/* Plans the comma join f (SL_AJ_COMMA items) with the conjuncts of where:
 * one-item conjuncts filter that item, the others are the conditions of
 * left-deep inner joins (sl__plan_join_cond); a last item FOR SYSTEM_TIME
 * AS OF is joined last by plan_side's table (NULL: refused); *rest gets the conjuncts
 * left for the WHERE (constants, subqueries; with keep_unbound also those
 * that do not bind against the items), NULL when none.  NULL with p->err
 * set. */
rel *sl__plan_comma(planner *p, const sl_ast_from *f, const sl_ast_expr *where,
                    const sl_ast_expr **rest, int keep_unbound, sl_plan_item_fn plan_item,
                    sl_plan_side_fn plan_side);

/* ---- plan_lateral.c: LATERAL (SELECT ...), a plain correlated SELECT ---- */

/* Whether FROM item f is LATERAL (SELECT ...) that plan_lateral.c plans:
 * a plain SELECT with FROM, or any SELECT without FROM. */
int sl__is_lateral(planner *p, const sl_ast_from *f);

/* The LATERAL item f over `left`, whose columns its SELECT reads: left's
 * columns then its items; an inner join, or with left_join a LEFT one (its
 * items NULL where it has no row).  plan_item plans its FROM items.  NULL
 * with p->err set. */
rel *sl__plan_lateral(planner *p, const sl_ast_from *f, rel *left, int left_join,
                      sl_plan_item_fn plan_item);

/* After a LATERAL subquery with FROM failed to plan: a column not found
 * gets the reason appended (it cannot read the items before it). */
void sl__lateral_hint(planner *p);

/* The join j whose right side is a LATERAL item, over its planned left
 * side: CROSS JOIN, JOIN .. ON cond (a filter after), LEFT JOIN .. ON
 * TRUE.  NULL with p->err set. */
rel *sl__plan_lateral_join(planner *p, const sl_ast_from *j, rel *left, sl_plan_item_fn plan_item);

/* ---- plan_subquery.c: IN / EXISTS subqueries ---- */

/* Plans the conjuncts of `where` over r: the plain ones as a filter, then
 * each IN, NOT IN, EXISTS, NOT EXISTS subquery as a semi or anti join.
 * The whole WHERE is consumed.  NULL with p->err set (other subqueries
 * are refused with their position). */
rel *sl__plan_subqueries(planner *p, rel *r, const sl_ast_expr *where, sl_plan_item_fn plan_item);

/* Plans the scalar subqueries of sel's WHERE and SELECT list (agg: sel
 * aggregates, where only its WHERE may have them): each uncorrelated
 * query of one column LEFT-joined ON TRUE to r (a second row of one that
 * is no global aggregate fails the job) as a column "$scalarN" the binder
 * reads the node from (p->scalar_at).  Returns r when there are none; NULL with
 * p->err set. */
rel *sl__plan_scalar_subqueries(planner *p, const sl_ast_select *sel, rel *r, int agg);

/* 1 when e holds a subquery (IN, EXISTS, scalar). */
int sl__ast_has_subquery(const sl_ast_expr *e);

/* The subquery nodes of e of kind `what` (not those nested in them): their
 * number; the first cap go to out. */
enum { SL_SUBQ_ANY, SL_SUBQ_SCALAR, SL_SUBQ_PRED /* IN, EXISTS */ };
int sl__ast_subqueries(const sl_ast_expr *e, int what, const sl_ast_expr **out, int cap);

/* The AST conjunction x[0] AND ... AND x[n-1] (arena), NULL when n = 0. */
const sl_ast_expr *sl__ast_and(planner *p, const sl_ast_expr **x, int n);
/* ---- helpers of plan_query.c shared with plan_agg.c ---- */

/* The interval argument `a` of window call c (named `what` in messages),
 * in micros, into *out.  0, or SL_EPLAN with p->err set. */
int sl__interval_arg(planner *p, const sl_ast_expr *c, const sl_ast_expr *a, const char *what,
                     int64_t *out);
/* The time zone windows over a column of type t align in (NULL: UTC). */
const char *sl__window_tz(planner *p, sl_type t);
/* Checks Flink's size rules of w (HOP, CUMULATE); SL_EPLAN with the
 * position of `at` when broken. */
int sl__check_window(planner *p, const sl_ast_expr *at, const sl_window_spec *w);
/* Index of r's column `name` when it is a time attribute (*proc = 1 for
 * processing time); -1 with p->err set otherwise. */
int sl__time_col(planner *p, const rel *r, const char *name, int line, int col, int *proc);
/* 1 when x (bound from `at`) is a BOOLEAN condition, else 0 with p->err set. */
int sl__is_condition(planner *p, const sl_ast_expr *at, const sl_expr *x);
/* sl__add_filter with the condition's SQL text for the Calc's label. */
rel *sl__add_filter_text(planner *p, rel *in, sl_expr *filter, const char *text);

/* ---- plan_agg.c ---- */

/* 1 when the SELECT list or HAVING of sel holds an aggregate call. */
int sl__has_agg(planner *p, const sl_ast_select *sel);
/* SELECT DISTINCT over in: a group aggregate keyed by all its columns.
 * NULL with p->err set. */
rel *sl__plan_distinct(planner *p, rel *in);

/* ---- plan_values.c ---- */

/* VALUES (..), (..): a Values source of constants.  NULL with p->err set. */
rel *sl__plan_values(planner *p, const sl_ast_query *q);
/* The one-row relation SELECT without FROM reads. */
rel *sl__plan_one_row(planner *p);

/* ---- plan_order.c ---- */

/* ORDER BY / LIMIT / OFFSET of q over its planned body r: a Top-N, a
 * Limit or a temporal sort; refused forms with Flink's reasons.  r's first
 * nvis columns are the query's; hidden[i] (NULL: none) is the column of r
 * holding ORDER BY item i planned as a hidden SELECT item, or -1.  The
 * result has the nvis columns.  NULL with p->err set. */
rel *sl__plan_order_limit(planner *p, const sl_ast_query *q, rel *r, int nvis,
                          const int *hidden);

/* ---- plan_over.c ---- */

/* 1 when sel reads a subquery whose SELECT list holds ROW_NUMBER() OVER. */
int sl__is_rank_query(const sl_ast_select *sel);
/* Plans that subquery and its rank operator (dedup, Top-N, window Top-N);
 * *rest = sel without the rn filter.  NULL with p->err set. */
rel *sl__plan_rank(planner *p, const sl_ast_select *sel, sl_ast_select *rest);
struct sl_rank_plan;
/* Top-N's strategy over r (Flink's RankProcessStrategy): sets
 * rp->update_fast (and the upsert key columns, arena-owned) when r is
 * updating, ROW_NUMBER ranks it, r's upsert key holds rp's partition key
 * and every ORDER BY column is constant or moves towards the top (r->mono);
 * otherwise leaves it 0 (the retract strategy).  rp's fn, keys and ORDER
 * BY must be set.  Returns 0 or SL_ENOMEM. */
int sl__rank_strategy(planner *p, const rel *r, struct sl_rank_plan *rp);
/* Number of OVER calls in sel's SELECT list. */
int sl__select_has_over(planner *p, const sl_ast_select *sel);
/* Plans them over r (after WHERE): an OverAggregate whose output is r's
 * columns plus the calls'; m maps the calls.  NULL with p->err set. */
rel *sl__plan_over_aggs(planner *p, const sl_ast_select *sel, rel *r, agg_map *m);

/* ---- plan_job.c ---- */

/* The scan of table t (shared by the job's statements unless `hint`
 * options, from an OPTIONS hint, override some of its WITH options). */
rel *sl__plan_scan(planner *p, const sl_table_def *t, const sl_opts *hint, int line, int col);
/* A sink for table t fed by `in` (connect = 0: not connected, for side
 * outputs fed directly by an operator). */
/* 1 when column c of t is one of its sink's columns: a physical column, or
 * a METADATA column that is not VIRTUAL whose key the table's sink
 * connector writes (sl_sink_vtab.metadata_keys: kafka's 'headers'). */
int sl__sink_writes(const sl_table_def *t, int c);

sl_pnode *sl__plan_sink(planner *p, const sl_table_def *t, const rel *in, int line, int col,
                        int connect);

/* ---- plan_sink.c ---- */

/* What feeds the sink of table t (its physical columns f[0..n)) from
 * `in`: the casts to its column types (lengths per
 * 'table.exec.sink.type-length-enforcer') and its NOT NULL checks
 * ('table.exec.sink.not-null-enforcer'), each only when needed.  NULL with
 * p->err set. */
rel *sl__plan_sink_input(planner *p, rel *in, const sl_table_def *t, const sl_field *f, int n);

#endif
