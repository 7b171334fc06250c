/*
 * test_op_kind.c - every built-in operator declares its kind and
 * properties (src/exec/op_kind.h), and they are the ones the planner and
 * the engine decided by before they stopped comparing names.
 *
 * The planner (state TTL, EXPLAIN's state marker, the STATE_TTL hint) and
 * the job summary decide by sl_op_vtab.kind and .flags and by the
 * instance's sl_op.state_proctime, never by display names or labels.  This
 * test plans a corpus of jobs that between them use every kind, and checks
 * for every operator: a kind in range, one method table per kind and one
 * kind per method table, its display name, and its flags against the
 * table below, which is the rule of the name lists these flags replaced
 * (plan_ttl.c state_kind(), engine.c sl_job_stats).  A window aggregate
 * over a processing-time window has state_proctime set; one over event
 * time has not.  The kind table the planner reads before any operator
 * exists (src/exec/pnode.c) holds the same names and flags.
 *
 * The physical plan (src/exec/pnode.h): each job of the corpus planned
 * with sl_plan_job (which builds no operator: it has no graph) gives nodes
 * in topological order, with each node's state bound following its kind
 * and an EXPLAIN line per node; the runtime's constructor table
 * (sl_instantiate) turns them into a graph with one operator per node, of
 * the node's kind, label, id and TTL, and an edge for every input, twice
 * from the same plan (a node owns nothing that instantiation uses up, as
 * parallel instances will need).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "sluice.h"
#include "api/engine_int.h"
#include "exec/pnode.h"
#include "plan/plan.h"
#include "runtime/instantiate.h"
#include "sql/parser.h"

static const char *DDL =
	"CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), v INT, "
	"  ts TIMESTAMP(3), pt AS PROCTIME(), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) "
	"  WITH ('connector' = 'push');"
	"CREATE TABLE users (user_id STRING, name STRING, uts TIMESTAMP(3), "
	"  WATERMARK FOR uts AS uts) WITH ('connector' = 'push');"
	"CREATE TABLE rates (user_id STRING, rate INT, rts TIMESTAMP(3), WATERMARK FOR rts AS rts, "
	"  PRIMARY KEY (user_id) NOT ENFORCED) WITH ('connector' = 'push', "
	"  'format' = 'debezium-json');"
	"CREATE TABLE dim (k STRING, name STRING, score BIGINT) WITH ('connector' = 'filesystem', "
	"  'path' = 'tests/fixtures/lookup/dim.jsonl', 'format' = 'json');"
	"CREATE TABLE out_strict (id CHAR(3), v INT NOT NULL) WITH ('connector' = 'push');";

/* Between them, every kind of operator. */
static const char *JOBS[] = {
	"SELECT id, amount * 2 FROM orders WHERE v > 1",
	"INSERT INTO out_strict SELECT id, v FROM orders",
	"SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS t (n, s)",
	"SELECT user_id FROM orders UNION ALL SELECT user_id FROM users",
	"SELECT user_id FROM orders INTERSECT SELECT user_id FROM users",
	"SELECT user_id, COUNT(*) FROM orders GROUP BY user_id",
	"SELECT window_start, user_id, SUM(amount) FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), "
	"INTERVAL '10' SECOND)) GROUP BY window_start, window_end, user_id",
	"SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(pt), "
	"INTERVAL '10' SECOND)) GROUP BY window_start, window_end",
	"SELECT window_start, user_id, COUNT(*) FROM TABLE(SESSION(TABLE orders PARTITION BY user_id, "
	"DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, user_id",
	"SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND))",
	"SELECT * FROM TABLE(SESSION(TABLE orders PARTITION BY user_id, DESCRIPTOR(ts), "
	"INTERVAL '10' SECOND))",
	"SELECT id, SUM(amount) OVER (PARTITION BY user_id ORDER BY ts ROWS BETWEEN 2 PRECEDING "
	"AND CURRENT ROW) FROM orders",
	"SELECT o.id, u.name FROM orders AS o JOIN users AS u ON o.user_id = u.user_id",
	"SELECT id FROM orders WHERE user_id IN (SELECT user_id FROM users)",
	"SELECT o.id, u.name FROM orders AS o JOIN users AS u ON o.user_id = u.user_id AND "
	"o.ts BETWEEN u.uts - INTERVAL '1' MINUTE AND u.uts",
	"SELECT L.id, R.name FROM (SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), "
	"INTERVAL '10' SECOND))) L JOIN (SELECT * FROM TABLE(TUMBLE(TABLE users, DESCRIPTOR(uts), "
	"INTERVAL '10' SECOND))) R ON L.user_id = R.user_id AND L.window_start = R.window_start "
	"AND L.window_end = R.window_end",
	"SELECT o.id, r.rate FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r "
	"ON o.user_id = r.user_id",
	"SELECT o.id, d.name FROM orders AS o LEFT JOIN dim FOR SYSTEM_TIME AS OF o.pt AS d "
	"ON o.user_id = d.k",
	"SELECT * FROM (SELECT id, user_id, amount, ROW_NUMBER() OVER (PARTITION BY user_id "
	"ORDER BY amount DESC) AS rn FROM orders) WHERE rn <= 3",
	"SELECT id, user_id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts DESC) "
	"AS rn FROM orders) WHERE rn = 1",
	"SELECT * FROM (SELECT window_start, window_end, user_id, s, ROW_NUMBER() OVER (PARTITION BY "
	"window_start, window_end ORDER BY s DESC) AS rn FROM (SELECT window_start, window_end, "
	"user_id, SUM(amount) AS s FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), "
	"INTERVAL '10' SECOND)) GROUP BY window_start, window_end, user_id)) WHERE rn <= 2",
	"SELECT * FROM rates",
	"SELECT o.id, t.x FROM orders AS o CROSS JOIN UNNEST(ARRAY[o.v, 2]) AS t (x)",
	"SELECT * FROM orders MATCH_RECOGNIZE (PARTITION BY user_id ORDER BY ts "
	"MEASURES FIRST(A.id) AS a_id, LAST(B.id) AS b_id ONE ROW PER MATCH "
	"AFTER MATCH SKIP PAST LAST ROW PATTERN (A B) DEFINE B AS B.v > A.v) AS m",
};

/* Per kind: its display name and flags (the rule of the former name lists:
 * TTL-bounded GroupAggregate, Join, SemiJoin, Rank, Deduplicate,
 * ChangelogNormalize, SetOp; watermark-bounded WindowAggregate,
 * SessionWindowAggregate, IntervalJoin, WindowJoin, WindowRank; per-side
 * TTL Join and SemiJoin; late counters always printed for names containing
 * "WindowAggregate"). */
static const struct {
	const char *name;
	unsigned flags;
} EXPECT[SL_OPK__COUNT] = {
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

/* The job whose window aggregate is split in two at parallelism > 1
 * (plan_twophase.c): the local stage exists only in parallel plans. */
static const char *TWO_PHASE_JOB =
	"SELECT window_start, user_id, SUM(amount) FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), "
	"INTERVAL '10' SECOND)) GROUP BY window_start, window_end, user_id";

/*
 * Plans TWO_PHASE_JOB at parallelism 2 and instantiates its scan's chain
 * (the scan and the LocalWindowAggregate chained to it); returns the local
 * operator's method table after checking the node: its kind, state (none
 * kept: flushed before barriers) and no uid (no snapshot record).  A
 * kind that exists only in parallel plans is still one method table.
 */
static const sl_op_vtab *local_stage_vt(void)
{
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, DDL), 0);
	sl_arena a;
	sl_arena_init(&a, 16 * 1024);
	sl_ast_script *script;
	sl_err err = {0};
	assert_int_equal(sl_parse(&a, TWO_PHASE_JOB, &script, &err), 0);
	sl_plan_args pa = {.cat = &e->cat, .session = &e->session, .engine = e,
	                   .push_sink = &sl_push_sink_vtab, .select_to_queue = 1, .arena = &a,
	                   .parallelism = 2, .parallelism_explicit = 1};
	sl_pplan plan;
	if (sl_plan_job(&pa, script->stmts, script->nstmts, &plan, NULL, &err))
		fail_msg("%s: %s", TWO_PHASE_JOB, err.msg);
	uint8_t member[64] = {0};
	int local = -1;
	for (int i = 0; i < plan.n && i < 64; i++) {
		const sl_pnode *n = plan.nodes[i];
		assert_int_equal(n->id, i);
		if (n->kind == SL_OPK_LOCAL_WINDOW_AGG) {
			local = i;
			assert_int_equal(n->in[0]->kind, SL_OPK_SCAN);
			assert_int_equal(n->xchg[0], SL_XCHG_CHAIN);
			assert_int_equal(n->state, SL_STATE_NONE);
			assert_int_equal(n->uid[0], 0);
			member[i] = member[n->in[0]->id] = 1;
			/* its consumer: the aggregate, hashed by the partials' key */
			const sl_pnode *g = plan.nodes[i + 1];
			assert_int_equal(g->kind, SL_OPK_WINDOW_AGG);
			assert_ptr_equal(g->in[0], n);
			assert_int_equal(g->xchg[0], SL_XCHG_HASH);
			assert_non_null(strstr(g->label, "GlobalWindowAggregate("));
		}
	}
	assert_true(local >= 0);
	sl_graph g;
	sl_graph_init(&g, e->state);
	sl_op *op_of[64] = {0};
	if (sl_instantiate_part(&plan, member, 0, 2, NULL, &g, op_of, &err))
		fail_msg("%s: %s", TWO_PHASE_JOB, err.msg);
	const sl_op_vtab *vt = op_of[local]->vt;
	assert_int_equal(vt->kind, SL_OPK_LOCAL_WINDOW_AGG);
	assert_string_equal(op_of[local]->label, plan.nodes[local]->label);
	sl_graph_deinit(&g);
	sl_arena_deinit(&a);
	sl_engine_close(e);
	return vt;
}

static void test_every_kind_declared(void **state)
{
	const sl_op_vtab *vt_of[SL_OPK__COUNT] = {0};
	int windows = 0;
	for (size_t j = 0; j < sizeof(JOBS) / sizeof(JOBS[0]); j++) {
		sl_engine *e;
		assert_int_equal(sl_engine_open(&e), 0);
		assert_int_equal(sl_exec(e, DDL), 0);
		int rc = sl_exec(e, JOBS[j]);
		if (rc)
			print_error("%s: %s\n", JOBS[j], sl_errmsg(e));
		assert_int_equal(rc, 0);
		for (int i = 0; i < e->graph.nops; i++) {
			const sl_op *op = e->graph.ops[i];
			sl_op_kind k = op->vt->kind;
			if (k <= SL_OPK_NONE || k >= SL_OPK__COUNT)
				fail_msg("%s: operator %s has no kind", JOBS[j], op->vt->name);
			if (vt_of[k] && vt_of[k] != op->vt)
				fail_msg("kind %d has two method tables", (int)k);
			vt_of[k] = op->vt;
			assert_string_equal(op->vt->name, EXPECT[k].name);
			if (op->vt->flags != EXPECT[k].flags)
				fail_msg("%s: flags %#x, expected %#x", op->vt->name, op->vt->flags,
				         EXPECT[k].flags);
			if (k == SL_OPK_WINDOW_AGG) {
				/* the one processing-time window of the corpus */
				int proc = strstr(JOBS[j], "DESCRIPTOR(pt)") != NULL;
				assert_int_equal(op->state_proctime, proc);
				windows++;
			} else {
				assert_int_equal(op->state_proctime, 0);
			}
		}
		sl_engine_close(e);
	}
	vt_of[SL_OPK_LOCAL_WINDOW_AGG] = local_stage_vt();
	assert_string_equal(vt_of[SL_OPK_LOCAL_WINDOW_AGG]->name, "LocalWindowAggregate");
	assert_int_equal(vt_of[SL_OPK_LOCAL_WINDOW_AGG]->flags, EXPECT[SL_OPK_LOCAL_WINDOW_AGG].flags);
	for (int k = SL_OPK_NONE + 1; k < SL_OPK__COUNT; k++)
		if (!vt_of[k])
			fail_msg("no job of the corpus uses kind %d (%s)", k, EXPECT[k].name);
	for (int a = 1; a < SL_OPK__COUNT; a++)
		for (int b = a + 1; b < SL_OPK__COUNT; b++)
			assert_ptr_not_equal(vt_of[a], vt_of[b]);
	assert_true(windows >= 2);
	for (int k = SL_OPK_NONE + 1; k < SL_OPK__COUNT; k++) {
		assert_string_equal(sl_op_kind_name((sl_op_kind)k), EXPECT[k].name);
		assert_int_equal(sl_op_kind_flags((sl_op_kind)k), EXPECT[k].flags);
	}
}

/* 1 when operator `from` has an edge to input `input` of `to`. */
static int has_edge(const sl_op *from, const sl_op *to, int input)
{
	for (int e = 0; e < from->nedges; e++)
		if (from->edges[e].to == to && from->edges[e].input == input)
			return 1;
	return 0;
}

/* Instantiates plan into g (on backend st) and checks it against the
 * nodes; seen[kind] = 1 for each node's kind. */
static void instantiate_checked(const sl_pplan *plan, sl_graph *g, sl_state_backend *st,
                                const char *job, int *seen)
{
	sl_err err = {0};
	sl_graph_init(g, st);
	if (sl_instantiate(plan, g, &err))
		fail_msg("%s: %s", job, err.msg);
	assert_int_equal(g->nops, plan->n);
	for (int i = 0; i < plan->n; i++) {
		const sl_pnode *n = plan->nodes[i];
		const sl_op *op = g->ops[i];
		seen[n->kind] = 1;
		assert_int_equal(op->vt->kind, n->kind);
		assert_string_equal(op->label, n->label);
		assert_string_equal(op->uid, n->uid);
		assert_int_equal(op->nin, n->nin);
		assert_int_equal(op->nout, n->nout);
		assert_true(op->state_ttl[0] == n->state_ttl[0] && op->state_ttl[1] == n->state_ttl[1]);
		assert_int_equal(op->state_proctime, n->state == SL_STATE_PROCTIME);
		for (int k = 0; k < n->nin; k++)
			assert_true(!n->in[k] || has_edge(g->ops[n->in[k]->id], op, k));
	}
}

static void test_plan_nodes_instantiated(void **state)
{
	int seen[SL_OPK__COUNT] = {0};
	for (size_t j = 0; j < sizeof(JOBS) / sizeof(JOBS[0]); j++) {
		sl_engine *e;
		assert_int_equal(sl_engine_open(&e), 0);
		assert_int_equal(sl_exec(e, DDL), 0);
		sl_arena a;
		sl_arena_init(&a, 16 * 1024);
		sl_ast_script *script;
		sl_err err = {0};
		assert_int_equal(sl_parse(&a, JOBS[j], &script, &err), 0);
		sl_plan_args pa = {.cat = &e->cat, .session = &e->session, .engine = e,
		                   .push_sink = &sl_push_sink_vtab, .select_to_queue = 1, .arena = &a};
		sl_pplan plan;
		sl_buf explain;
		sl_buf_init(&explain);
		int rc = sl_plan_job(&pa, script->stmts, script->nstmts, &plan, &explain, &err);
		if (rc)
			fail_msg("%s: %s", JOBS[j], err.msg);
		assert_true(plan.n >= 2);
		for (int i = 0; i < plan.n; i++) {
			const sl_pnode *n = plan.nodes[i];
			assert_int_equal(n->id, i);
			for (int k = 0; k < n->nin; k++)
				assert_true(!n->in[k] || n->in[k]->id < i);
			unsigned f = sl_op_kind_flags(n->kind);
			assert_int_equal(n->state == SL_STATE_TTL, (f & SL_OPF_STATE_TTL) != 0);
			assert_int_equal(n->state == SL_STATE_WATERMARK || n->state == SL_STATE_PROCTIME,
			                 (f & SL_OPF_STATE_WM) != 0);
			/* the EXPLAIN line of node i */
			char head[32];
			snprintf(head, sizeof head, "#%d %s", i, n->label);
			assert_non_null(strstr(sl_buf_cstr(&explain), head));
		}
		sl_graph g[2];
		for (int gi = 0; gi < 2; gi++)
			instantiate_checked(&plan, &g[gi], e->state, JOBS[j], seen);
		for (int i = 0; i < plan.n; i++) /* each its own operator, connector included */
			assert_ptr_not_equal(g[0].ops[i], g[1].ops[i]);
		sl_graph_deinit(&g[0]);
		sl_graph_deinit(&g[1]);
		sl_buf_deinit(&explain);
		sl_arena_deinit(&a);
		sl_engine_close(e);
	}
	seen[SL_OPK_LOCAL_WINDOW_AGG] = local_stage_vt() != NULL; /* parallel plans only */
	for (int k = SL_OPK_NONE + 1; k < SL_OPK__COUNT; k++)
		if (!seen[k])
			fail_msg("no job of the corpus has a node of kind %d", k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kind_declared),
		cmocka_unit_test(test_plan_nodes_instantiated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
