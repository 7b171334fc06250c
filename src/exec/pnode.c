/*
 * pnode.c - the properties of each operator kind that the plan layer
 * decides by before any operator exists (pnode.h): its SL_OPF_* flags and
 * its display name, one row per kind.
 *
 * The values repeat what each op_*.c method table declares (op_kind.h);
 * the runtime refuses a node whose instantiated operator disagrees
 * (src/runtime/instantiate.c), so a method table edited without this table
 * fails every test that builds that operator.
 */
#include "pnode.h"

#include <stddef.h>

static const struct {
	const char *name;
	unsigned flags;
} kinds[SL_OPK__COUNT] = {
	[SL_OPK_NONE] = {"?", 0},
	[SL_OPK_SCAN] = {"TableSourceScan", 0},
	[SL_OPK_VALUES] = {"Values", 0},
	[SL_OPK_CALC] = {"Calc", 0},
	[SL_OPK_UNION] = {"Union", 0},
	[SL_OPK_CONSTRAINT] = {"ConstraintEnforcer", 0},
	[SL_OPK_SINK] = {"Sink", 0},
	[SL_OPK_WINDOW_ASSIGN] = {"WindowTableFunction", 0},
	[SL_OPK_SESSION_ASSIGN] = {"SessionWindowTableFunction", 0},
	[SL_OPK_LOOKUP_JOIN] = {"LookupJoin", 0},
	[SL_OPK_GROUP_AGG] = {"GroupAggregate", SL_OPF_STATE_TTL},
	[SL_OPK_WINDOW_AGG] = {"WindowAggregate", SL_OPF_STATE_WM | SL_OPF_LATE_STATS},
	[SL_OPK_SESSION_AGG] = {"SessionWindowAggregate", SL_OPF_STATE_WM | SL_OPF_LATE_STATS},
	[SL_OPK_OVER_AGG] = {"OverAggregate", 0},
	[SL_OPK_JOIN] = {"Join", SL_OPF_STATE_TTL | SL_OPF_TTL_PER_SIDE},
	[SL_OPK_SEMI_JOIN] = {"SemiJoin", SL_OPF_STATE_TTL | SL_OPF_TTL_PER_SIDE},
	[SL_OPK_INTERVAL_JOIN] = {"IntervalJoin", SL_OPF_STATE_WM},
	[SL_OPK_WINDOW_JOIN] = {"WindowJoin", SL_OPF_STATE_WM},
	[SL_OPK_TEMPORAL_JOIN] = {"TemporalJoin", 0},
	[SL_OPK_RANK] = {"Rank", SL_OPF_STATE_TTL},
	[SL_OPK_DEDUP] = {"Deduplicate", SL_OPF_STATE_TTL},
	[SL_OPK_WINDOW_RANK] = {"WindowRank", SL_OPF_STATE_WM},
	[SL_OPK_SET_OP] = {"SetOp", SL_OPF_STATE_TTL},
	[SL_OPK_CHANGELOG_NORMALIZE] = {"ChangelogNormalize", SL_OPF_STATE_TTL},
	[SL_OPK_LOCAL_WINDOW_AGG] = {"LocalWindowAggregate", SL_OPF_LATE_STATS},
	[SL_OPK_CORRELATE] = {"Correlate", 0},
	[SL_OPK_MATCH] = {"MatchRecognize", 0},
};

unsigned sl_op_kind_flags(sl_op_kind k)
{
	return k > SL_OPK_NONE && k < SL_OPK__COUNT ? kinds[k].flags : 0;
}

const char *sl_op_kind_name(sl_op_kind k)
{
	return k > SL_OPK_NONE && k < SL_OPK__COUNT ? kinds[k].name : "?";
}

const char *sl_dist_kind_name(sl_dist_kind k)
{
	static const char *const names[] = {"forward", "hash", "singleton", "broadcast"};
	return k >= SL_DIST_FORWARD && k <= SL_DIST_BROADCAST ? names[k] : "?";
}

const char *sl_xchg_kind_name(sl_xchg_kind k)
{
	static const char *const names[] = {"FORWARD (chained)", "FORWARD", "HASH", "REBALANCE", "GLOBAL",
	                                    "BROADCAST"};
	return k >= SL_XCHG_CHAIN && k <= SL_XCHG_BROADCAST ? names[k] : "?";
}
