/*
 * pnode.h - a physical plan node: what the runtime instantiates.
 *
 * The planner (src/plan/) turns a job's statements into a list of plan
 * nodes, one per operator, in topological order (every node after its
 * inputs), without any I/O.  A node is read-only once planning and the
 * rewrite pass are done:
 * its kind (op_kind.h), its inputs in order, its output schema, changelog
 * mode, rowtime column, how its state is bounded, the distribution each
 * input requires (sl_dist below), its EXPLAIN label and
 * identity text, the UID hint, the state TTL and the operator's parameters
 * (the plan structs of ops.h, join.h, op_rank.h, op_over.h, or the small
 * structs below for constructors that take loose arguments), all in the
 * plan arena.  EXPLAIN, operator identities and the state-TTL decisions
 * read nodes; the runtime (src/runtime/instantiate.c) turns each node into
 * a running operator through one constructor per kind and wires the edges
 * of the graph (graph.h).  A pass between planning and instantiation may
 * rewrite the node list (src/plan/rewrite.c).
 *
 * Parameters by kind (sl_pnode.params):
 *   SCAN                  sl_scan_params
 *   VALUES                sl_values_params
 *   CALC                  sl_calc_params
 *   UNION                 none (NULL)
 *   CONSTRAINT            sl_constraint_params
 *   SINK                  sl_sink_params
 *   WINDOW_ASSIGN,
 *   SESSION_ASSIGN        sl_assign_params
 *   LOOKUP_JOIN           sl_lookup_join_params
 *   GROUP_AGG             sl_group_agg_plan
 *   WINDOW_AGG,
 *   SESSION_AGG           sl_window_agg_plan (late_op NULL: the ON LATE
 *                         sink is the node's `side`, wired at instantiation)
 *   OVER_AGG              sl_over_plan
 *   JOIN, INTERVAL_JOIN,
 *   WINDOW_JOIN,
 *   TEMPORAL_JOIN         sl_join_plan
 *   SEMI_JOIN             sl_semi_join_params
 *   RANK, DEDUP,
 *   WINDOW_RANK           sl_rank_plan
 *   SET_OP                sl_set_op_params
 *   CHANGELOG_NORMALIZE   sl_normalize_params
 *   CORRELATE             sl_correlate_params (ops.h)
 *   MATCH                 sl_match_plan (op_match.h)
 * The operator's input column types are its inputs' output types (the
 * first input's for one-input constructors).
 *
 * A node owns nothing and instantiation consumes nothing, so a plan can
 * be instantiated any number of times (issue 10: N instances per node).
 * Connectors are the one place this takes care: the planner configures
 * each (sl_source_new, sl_sink_new, sl_lookup_new: options checked, no
 * I/O) to report their errors, then frees it, and the node keeps what
 * configuring takes (the connector's vtab and its sl_conn_args, whose
 * pointers lead into the plan arena and the catalog); each instantiation
 * configures its own connector from them, which the operator owns.  Push
 * tables' decoders are built the same way.  What an instance needs beyond
 * that (which part of the input it reads, its part-file number) is for
 * issue 10 to add to the arguments.  Configuring marks the options it
 * reads in the shared sl_opts (sl_opts_get), so instantiate a plan on one
 * thread at a time.
 */
#ifndef SL_PNODE_H
#define SL_PNODE_H

#include <stdint.h>

#include "join.h"
#include "op_kind.h"
#include "op_over.h"
#include "op_rank.h"
#include "ops.h"

typedef struct sl_pnode sl_pnode;

/*
 * The distribution a node requires of one of its inputs (issue 10,
 * docs/parallel.md sections 1-2): how the rows of the input must be spread
 * over the node's parallel instances for each instance's state to be
 * complete.  Derived from the node's kind and parameters by
 * sl_plan_dist (src/plan/plan_dist.c) after the rewrite pass.
 *
 * The rule that makes a parallel run correct: for a HASH input, the key
 * group (sl_keygroup_of, data/keygroup.h) of the row codec's key form of
 * the row's columns cols[0..ncols) (sl_rowcodec key encoding, in that
 * order) is the group of every state entry the row creates or reads: the
 * partitioning key of the operator's state tables (the default, the
 * whole state key, or sl_state_table_set_pkey's function) is those same
 * bytes.  tests/unit/test_plan_dist.c checks it on real jobs, for every
 * keyed kind, on both backends.
 */
typedef enum sl_dist_kind {
	SL_DIST_FORWARD = 0, /* any: stateless, or state per instance (a sink);
	                      * chained to its input, same parallelism */
	SL_DIST_HASH,        /* by the columns cols[0..ncols) of the input */
	SL_DIST_SINGLETON,   /* every row to one instance: a keyed operator
	                      * without a key (global aggregate, ORDER BY ...
	                      * LIMIT, a semi join without equi-keys), which
	                      * runs at parallelism 1; its key group is 0 */
	SL_DIST_BROADCAST    /* every row to every instance (no kind needs it
	                      * yet: a lookup join looks up per instance) */
} sl_dist_kind;

typedef struct sl_dist {
	sl_dist_kind kind;
	int ncols;           /* SL_DIST_HASH: at least 1 */
	const int *cols;     /* input columns, plan arena */
} sl_dist;

/*
 * How rows reach a node's input from its producer at run time (issue 10
 * step 4, docs/parallel.md sections 1-2), decided by sl_plan_par
 * (src/plan/plan_par.c) from the requirement (sl_dist) and the
 * parallelism of both ends.  At parallelism 1 every edge is CHAIN.
 */
typedef enum sl_xchg_kind {
	SL_XCHG_CHAIN = 0,   /* same instance, same thread: sl_op_emit */
	SL_XCHG_FORWARD,     /* instance i -> instance i over a channel */
	SL_XCHG_HASH,        /* by the key group of the input's sl_dist columns */
	SL_XCHG_REBALANCE,   /* a batch to each instance in turn (after a
	                      * source that cannot split) */
	SL_XCHG_GATHER,      /* every row to the one instance (singleton) */
	SL_XCHG_BROADCAST    /* every row to every instance (unused yet) */
} sl_xchg_kind;

/* How a node's output changes (Flink's changelog mode). */
typedef enum sl_changelog_mode {
	SL_CHANGELOG_APPEND = 0, /* +I only */
	SL_CHANGELOG_UPDATING,   /* +I, -U, +U, -D: a full retract stream */
	SL_CHANGELOG_UPSERT      /* keyed by upsert_key: no -U, a -D may hold only the key */
} sl_changelog_mode;

/* What bounds the keyed state of a node's operator. */
typedef enum sl_state_bound {
	SL_STATE_NONE = 0,       /* no keyed state */
	SL_STATE_TTL,            /* 'table.exec.state.ttl' / STATE_TTL hint (state_ttl) */
	SL_STATE_WATERMARK,      /* freed as the watermark passes its windows or bounds */
	SL_STATE_PROCTIME,       /* freed by the job's processing-time clock */
	SL_STATE_UNBOUNDED       /* kept for the job's life (OVER, temporal join versions) */
} sl_state_bound;

/* CALC: filter (NULL = none), then the projection proj[0..nproj). */
typedef struct sl_calc_params {
	sl_expr *filter;
	sl_expr *const *proj;
	int nproj;
} sl_calc_params;

/* VALUES: nrows rows of ncols constants, row-major. */
typedef struct sl_values_params {
	int nrows, ncols;
	const sl_value *vals;
} sl_values_params;

/* SET_OP: INTERSECT or EXCEPT, ALL or not. */
typedef struct sl_set_op_params {
	sl_setop_kind kind;
	int all;
} sl_set_op_params;

/* WINDOW_ASSIGN / SESSION_ASSIGN: the window TVF over its input's
 * columns; a SESSION partitioned by key_cols[0..nkeys). */
typedef struct sl_assign_params {
	sl_window_spec win;
	const int *key_cols;
	int nkeys;
} sl_assign_params;

/* CONSTRAINT: NOT NULL checks of columns cols[0..ncols) named names[]. */
typedef struct sl_constraint_params {
	const int *cols;
	const char *const *names;
	int ncols;
	int drop;
} sl_constraint_params;

/* CHANGELOG_NORMALIZE: last row per key key_cols[0..nkeys). */
typedef struct sl_normalize_params {
	const int *key_cols;
	int nkeys;
} sl_normalize_params;

/* SCAN: the scan's plan (its source and push_dec NULL: each instance
 * makes its own) and how: configure source vtab `source` with args, or
 * when it is NULL (a push table) build the decoder of the table's 'format'
 * (json by default) from args. */
typedef struct sl_scan_params {
	sl_scan_plan scan;
	const sl_source_vtab *source;
	sl_conn_args args;
} sl_scan_params;

/* SINK: configure sink vtab `sink` with args (table `table`); an upsert
 * sink keyed by its columns pk[0..npk) when npk > 0. */
typedef struct sl_sink_params {
	const sl_sink_vtab *sink;
	sl_conn_args args;
	const char *table;
	const int *pk;
	int npk;
} sl_sink_params;

/* LOOKUP_JOIN: the join, and the lookup connector to configure: vtab
 * `lookup` with args and the lookup keys keys[0..nkeys) (columns of the
 * looked-up table). */
typedef struct sl_lookup_join_params {
	sl_join_plan join;
	const sl_lookup_vtab *lookup;
	sl_conn_args args;
	const int *keys;
	int nkeys;
} sl_lookup_join_params;

/* SEMI_JOIN: semi (anti = 0) or anti (anti = 1) join. */
typedef struct sl_semi_join_params {
	sl_join_plan join;
	int anti;
} sl_semi_join_params;

struct sl_pnode {
	sl_op_kind kind;
	int id;                   /* position in the plan (topological) */
	void *params;             /* the kind's parameters (table above) */
	int nin;
	sl_pnode **in;            /* in[i] feeds input i; NULL: an input fed
	                           * directly by another node's side output
	                           * (the ON LATE sink of a window aggregate,
	                           * planned before it), no edge */
	sl_dist *dist;            /* dist[0..nin): the distribution each input
	                           * requires (plan_dist.c); set for every node
	                           * once planning is done */
	sl_xchg_kind *xchg;       /* xchg[0..nin): the exchange of each input
	                           * (plan_par.c); set once planning is done */
	int par;                  /* the node's parallelism (instances), >= 1 */
	sl_pnode *side;           /* WINDOW_AGG / SESSION_AGG: the ON LATE sink its
	                           * late rows go to directly (no edge), or NULL */
	/* output schema */
	int nout;
	const sl_type *out_types;
	const char **out_names;
	sl_changelog_mode changelog;
	const char *upsert_key;   /* SL_CHANGELOG_UPSERT: the key's column names */
	int rowtime;              /* event-time attribute column, -1 */
	/* state */
	sl_state_bound state;
	int64_t state_ttl[2];     /* SL_STATE_TTL: [0] the state or a join's left
	                           * side, [1] a join's right side; 0 = none */
	/* identity and display */
	const char *label;        /* EXPLAIN text */
	const char *ident;        /* frozen label-hash identity text uid_v1
	                           * derives from */
	const char *sident;       /* structural identity text uid derives from
	                           * (op_ident.h) */
	const char *uid_hint;     /* UID('...') hint, or NULL */
	char uid[64];             /* stable id for state (src/plan/plan_ident.c) */
	char uid_v1[64];          /* its label-hash id, by which restores of
	                           * snapshots older than structural ids match it */
};

/* A job's physical plan: nodes[0..n) in topological order, plan arena. */
typedef struct sl_pplan {
	int n, cap;
	sl_pnode **nodes;
	int par;      /* the job's parallelism (plan_par.c): above 1, some
	               * node runs as several instances (src/runtime/prun.h) */
} sl_pplan;

/* The SL_OPF_* flags (op_kind.h) of every operator of kind k: the same
 * values as the kind's method table (the runtime checks that they agree
 * when it instantiates a node). */
unsigned sl_op_kind_flags(sl_op_kind k);

/* The display name of kind k ("Calc", "Join", ...), as its method table's. */
const char *sl_op_kind_name(sl_op_kind k);

/* The name of distribution kind k: "forward", "hash", "singleton",
 * "broadcast" (EXPLAIN's exchanges). */
const char *sl_dist_kind_name(sl_dist_kind k);

/* The name of exchange kind k as Flink's plans print it ("ship
 * strategy"): "FORWARD (chained)" (no exchange), "FORWARD", "HASH", "REBALANCE", "GLOBAL"
 * (gather into one instance), "BROADCAST". */
const char *sl_xchg_kind_name(sl_xchg_kind k);

#endif
