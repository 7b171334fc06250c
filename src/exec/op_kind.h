/*
 * op_kind.h - what kind of operator a method table implements, and the
 * properties every operator of that kind has, declared as data.
 *
 * Each built-in sl_op_vtab (op.h) names its kind (one value per method
 * table) and its flags; the planner and the engine decide by these, never
 * by comparing display names or EXPLAIN labels, which stay free to read
 * as Flink's do.  The kind is also what a plan node carries (pnode.h) and
 * the index of the runtime's table of constructors
 * (src/runtime/instantiate.c), so it lives in a header of its own with no
 * dependencies; each kind's flags are also listed in pnode.c, for the
 * planner, which decides before any operator exists.  A property that depends
 * on an operator's parameters rather than its kind (state freed by
 * processing time: a processing-time window) is a field of the sl_op
 * instance that its constructor sets (sl_op.state_proctime).
 */
#ifndef SL_OP_KIND_H
#define SL_OP_KIND_H

typedef enum sl_op_kind {
	SL_OPK_NONE = 0,          /* not a built-in operator (unit tests' capture
	                           * operators): nothing is decided by its kind */
	/* sources, sinks and stateless operators */
	SL_OPK_SCAN,              /* TableSourceScan, op_scan.c */
	SL_OPK_VALUES,            /* Values, op_values.c */
	SL_OPK_CALC,              /* Calc, op_calc.c */
	SL_OPK_UNION,             /* Union, op_union.c */
	SL_OPK_CONSTRAINT,        /* ConstraintEnforcer, op_constraint.c */
	SL_OPK_SINK,              /* Sink, op_sink.c */
	SL_OPK_WINDOW_ASSIGN,     /* WindowTableFunction, op_window_assign.c */
	SL_OPK_SESSION_ASSIGN,    /* SessionWindowTableFunction, op_session_assign.c */
	SL_OPK_LOOKUP_JOIN,       /* LookupJoin, op_lookup_join.c */
	/* aggregates */
	SL_OPK_GROUP_AGG,         /* GroupAggregate, op_group_agg.c */
	SL_OPK_WINDOW_AGG,        /* WindowAggregate, op_window_agg.c */
	SL_OPK_SESSION_AGG,       /* SessionWindowAggregate, op_session_agg.c */
	SL_OPK_OVER_AGG,          /* OverAggregate, op_over_agg.c */
	/* joins */
	SL_OPK_JOIN,              /* Join, op_join.c */
	SL_OPK_SEMI_JOIN,         /* SemiJoin, op_semi_join.c */
	SL_OPK_INTERVAL_JOIN,     /* IntervalJoin, op_interval_join.c */
	SL_OPK_WINDOW_JOIN,       /* WindowJoin, op_window_join.c */
	SL_OPK_TEMPORAL_JOIN,     /* TemporalJoin, op_temporal_join.c */
	/* Top-N, deduplication, set operations, changelogs */
	SL_OPK_RANK,              /* Rank, op_rank.c */
	SL_OPK_DEDUP,             /* Deduplicate, op_rank_dedup.c */
	SL_OPK_WINDOW_RANK,       /* WindowRank, op_window_rank.c */
	SL_OPK_SET_OP,            /* SetOp, op_set_op.c */
	SL_OPK_CHANGELOG_NORMALIZE, /* ChangelogNormalize, op_changelog_normalize.c */
	SL_OPK_LOCAL_WINDOW_AGG,  /* LocalWindowAggregate, op_window_agg.c (two-phase) */
	SL_OPK_CORRELATE,         /* Correlate (UNNEST), op_correlate.c */
	SL_OPK_MATCH,             /* MatchRecognize, op_match.c */
	SL_OPK__COUNT             /* number of kinds (a table indexed by kind) */
} sl_op_kind;

/*
 * sl_op_vtab.flags: properties of every operator of a kind.
 *
 * SL_OPF_STATE_TTL    'table.exec.state.ttl' and the STATE_TTL hint bound
 *                     its state (Flink's non-windowed stateful operators):
 *                     the planner sets sl_op.state_ttl, which the operator
 *                     passes to sl_op_table_open; EXPLAIN prints the bound.
 * SL_OPF_TTL_PER_SIDE with SL_OPF_STATE_TTL: two inputs with a TTL each,
 *                     state_ttl[0] the left, [1] the right (regular joins;
 *                     the hint names each side's input).
 * SL_OPF_STATE_WM     its state is freed as time passes its windows or
 *                     bounds, so no TTL applies: by the watermark, or by the
 *                     job's clock when the instance's sl_op.state_proctime
 *                     is set; EXPLAIN prints which.
 * SL_OPF_LATE_STATS   --stats always prints its late-row counters (dropped,
 *                     diverted to ON LATE, ALLOWED LATENESS corrections);
 *                     other operators print them only when not zero.
 *
 * Stateful operators whose state is bounded neither way (OVER aggregates,
 * temporal joins: the TTL does not apply to them) have no state flag; the
 * planner gives each its EXPLAIN marker by kind (plan_ttl.c).
 */
enum {
	SL_OPF_STATE_TTL = 1u << 0,
	SL_OPF_TTL_PER_SIDE = 1u << 1,
	SL_OPF_STATE_WM = 1u << 2,
	SL_OPF_LATE_STATS = 1u << 3,
};

#endif
