/*
 * test_plan_dist.c - the distribution each plan node requires of its
 * inputs (src/plan/plan_dist.c, sl_dist in src/exec/pnode.h) agrees with
 * the key groups of its operator's state, on real jobs.
 *
 * The rule a parallel run rests on (docs/parallel.md section 2): the
 * bytes a hash exchange hashes for a row, the key form of the row's
 * sl_dist columns, give the key group (sl_keygroup_of) of every state
 * entry that row creates, which the backend computes from the table's
 * partitioning key (docs/state.md "Key groups").  For every job of a
 * corpus that between them uses every keyed kind, on both backends, the
 * test runs the job on sample input (NULL keys, equal keys of different
 * column types across a join, -0.0 and 0.0), records at each operator with
 * a keyed input (hash or singleton) the group of every row reaching it as
 * its exchange would compute it (its process method wrapped), then takes a
 * snapshot and checks that every entry of the operator's tables lies in a
 * group some row of the matching input reached (for a join's "left" and
 * "right" tables, that side's rows): a sharded run would have found it on
 * the instance owning it.  'pipeline.max-parallelism' is 32768, so that a
 * wrong key rarely falls into a recorded group by chance.  Every keyed
 * operator must have state to check, so no case passes vacuously.  Across
 * a join on INT = BIGINT, the left's keys must hash to groups the right's
 * equal keys reach (the planner accepts key types of different SQL types
 * only when their key forms are equal bytes).  The
 * distributions themselves (which kind, which columns) are pinned by the
 * EXPLAIN cases of tests/slt/explain.slt ('sluice.explain.exchanges').
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "api/engine_int.h"
#include "base/buf.h"
#include "data/keygroup.h"
#include "data/rowcodec.h"
#include "exec/pnode.h"
#include "plan/plan.h"
#include "sql/parser.h"
#include "state/state.h"

#define MAXP 32768
#define MAXOPS 32

static const char *DDL =
	"CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), v INT, d DOUBLE, "
	"  ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) "
	"  WITH ('connector' = 'push');"
	"CREATE TABLE users (user_id STRING, name STRING, n BIGINT, uts TIMESTAMP(3), "
	"  WATERMARK FOR uts AS uts) WITH ('connector' = 'push');"
	"CREATE TABLE rates (user_id STRING, rate INT, rts TIMESTAMP(3), WATERMARK FOR rts AS rts, "
	"  PRIMARY KEY (user_id) NOT ENFORCED) WITH ('connector' = 'push', "
	"  'format' = 'debezium-json');";

/* Between them, every kind with a keyed input (and keyless variants). */
static const char *JOBS[] = {
	"SELECT user_id, COUNT(*), COUNT(DISTINCT v), MAX(id) FROM orders GROUP BY user_id",
	"SELECT d, v, SUM(amount) FROM orders GROUP BY d, v",
	"SELECT COUNT(*), SUM(v) FROM orders",
	"SELECT window_start, user_id, SUM(amount), COUNT(DISTINCT v), MIN(id) FROM "
	"TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
	"GROUP BY window_start, window_end, user_id",
	"SELECT window_start, COUNT(*) FROM TABLE(HOP(TABLE orders, DESCRIPTOR(ts), "
	"INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY window_start, window_end",
	"SELECT window_start, user_id, COUNT(*) FROM TABLE(SESSION(TABLE orders PARTITION BY user_id, "
	"DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, user_id",
	"SELECT * FROM TABLE(SESSION(TABLE orders PARTITION BY user_id, DESCRIPTOR(ts), "
	"INTERVAL '10' SECOND))",
	"SELECT id, SUM(amount) OVER (PARTITION BY user_id ORDER BY ts ROWS BETWEEN 2 PRECEDING "
	"AND CURRENT ROW) FROM orders",
	"SELECT id, COUNT(*) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) "
	"FROM orders",
	/* C never holds: every partition keeps a waiting match (buffer, timer) */
	"SELECT * FROM orders MATCH_RECOGNIZE (PARTITION BY user_id ORDER BY ts "
	"MEASURES A.id AS a PATTERN (A B+ C) DEFINE B AS B.v >= 0, C AS C.v < 0)",
	"SELECT o.id, u.name FROM orders AS o JOIN users AS u ON o.user_id = u.user_id",
	"SELECT o.id, u.name FROM orders AS o FULL JOIN users AS u ON o.v = u.n",
	"SELECT id FROM orders WHERE user_id IN (SELECT user_id FROM users)",
	"SELECT id FROM orders WHERE v > (SELECT AVG(n) FROM users)",
	"SELECT id, (SELECT name FROM users WHERE name = 'n3') FROM orders",
	"SELECT id FROM orders WHERE EXISTS (SELECT * FROM users)",
	"SELECT id FROM orders WHERE v NOT IN (SELECT n FROM users)",
	"SELECT id FROM orders AS o WHERE EXISTS (SELECT * FROM users AS u WHERE "
	"u.user_id = o.user_id AND u.n > o.v)",
	"SELECT id FROM orders AS o WHERE o.v NOT IN (SELECT n FROM users AS u WHERE "
	"u.user_id = o.user_id)",
	"SELECT id FROM orders AS o WHERE UPPER(o.user_id) IN (SELECT UPPER(name) FROM users)",
	"SELECT id FROM orders WHERE NOT EXISTS (SELECT * FROM users WHERE users.n = orders.v)",
	"SELECT o.id, u.name FROM orders AS o LEFT JOIN users AS u ON o.v < u.n",
	"SELECT o.id, u.name FROM orders AS o CROSS JOIN users AS u",
	"SELECT o.id, u.name FROM orders AS o FULL JOIN users AS u ON "
	"o.ts BETWEEN u.uts - INTERVAL '1' MINUTE AND u.uts + INTERVAL '1' MINUTE",
	"SELECT o.id, u.name FROM orders AS o LEFT JOIN users AS u ON o.user_id = u.user_id AND "
	"o.ts BETWEEN u.uts - INTERVAL '1' MINUTE AND u.uts + INTERVAL '1' MINUTE",
	"SELECT L.id, R.name FROM (SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), "
	"INTERVAL '10' SECOND))) L LEFT JOIN (SELECT * FROM TABLE(TUMBLE(TABLE users, "
	"DESCRIPTOR(uts), INTERVAL '10' SECOND))) R ON L.user_id = R.user_id AND "
	"L.window_start = R.window_start AND L.window_end = R.window_end",
	"SELECT L.id, R.name FROM (SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), "
	"INTERVAL '10' SECOND))) L FULL JOIN (SELECT * FROM TABLE(TUMBLE(TABLE users, "
	"DESCRIPTOR(uts), INTERVAL '10' SECOND))) R ON L.v = R.n AND "
	"L.window_start = R.window_start AND L.window_end = R.window_end",
	"SELECT o.id, r.rate FROM orders AS o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r "
	"ON o.user_id = r.user_id",
	"SELECT * FROM (SELECT id, user_id, amount, ROW_NUMBER() OVER (PARTITION BY user_id "
	"ORDER BY amount DESC) AS rn FROM orders) WHERE rn <= 3",
	"SELECT * FROM (SELECT id, d, RANK() OVER (PARTITION BY d ORDER BY v) AS rk FROM orders) "
	"WHERE rk <= 2",
	"SELECT * FROM (SELECT v, user_id, c, ROW_NUMBER() OVER (PARTITION BY v ORDER BY c DESC) "
	"AS rn FROM (SELECT user_id, v, COUNT(*) AS c FROM orders GROUP BY user_id, v)) WHERE rn <= 2",
	"SELECT DISTINCT user_id, d FROM orders",
	"SELECT id, user_id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts DESC) "
	"AS rn FROM orders) WHERE rn = 1",
	"SELECT id, user_id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id, v "
	"ORDER BY ts) AS rn FROM orders) WHERE rn = 1",
	"SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end "
	"ORDER BY v DESC) AS rn FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), "
	"INTERVAL '10' SECOND))) WHERE rn <= 2",
	"SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, user_id "
	"ORDER BY v DESC) AS rn FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), "
	"INTERVAL '10' SECOND))) WHERE rn <= 2",
	"SELECT id, v FROM orders ORDER BY v LIMIT 3",
	"SELECT id, ts FROM orders ORDER BY ts",
	"SELECT user_id FROM orders INTERSECT SELECT user_id FROM users",
	"SELECT user_id, v FROM orders EXCEPT ALL SELECT user_id, CAST(n AS INT) FROM users",
	"SELECT * FROM rates",
	"SELECT user_id, SUM(rate) FROM rates GROUP BY user_id",
};

/* One operator's taps: the groups its inputs' rows reached. */
typedef struct tap {
	const sl_op *op;
	const sl_op_vtab *orig;
	sl_op_vtab vt;
	const sl_dist *dist; /* dist[0..nin) */
	uint8_t *seen[2];    /* MAXP bits per input */
	int rows;
	int entries;         /* state entries checked */
} tap;

static tap g_taps[MAXOPS];
static int g_ntaps;

static tap *tap_of(const sl_op *op)
{
	for (int i = 0; i < g_ntaps; i++)
		if (g_taps[i].op == op)
			return &g_taps[i];
	return NULL;
}

/* The wrapped process: the exchange's group of every live row, then the
 * operator's own process. */
static int tap_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	tap *t = tap_of(op);
	assert_non_null(t);
	const sl_dist *d = &t->dist[input];
	sl_buf k;
	sl_buf_init(&k);
	SL_BATCH_FOREACH(in, i, row)
	{
		k.len = 0;
		if (d->kind == SL_DIST_HASH)
			assert_int_equal(sl_rowcodec_key(in, d->cols, d->ncols, row, &k), 0);
		int kg = sl_keygroup_of(k.p, (uint32_t)k.len, MAXP);
		t->seen[input][kg / 8] |= (uint8_t)(1u << (kg % 8));
		t->rows++;
	}
	sl_buf_deinit(&k);
	return t->orig->process(op, input, in, err);
}

/* The input whose rows fill table `name` of a two-input operator: a
 * join's "left" / "right" tables (the regular join's "left_map" /
 * "right_map"); -1 for the others (either input). */
static int table_input(const tap *t, const char *name)
{
	if (t->op->nin < 2)
		return 0;
	if (!strcmp(name, "left") || !strcmp(name, "left_map"))
		return 0;
	if (!strcmp(name, "right") || !strcmp(name, "right_map"))
		return 1;
	return -1;
}

/* Checks every entry of every grouped table in the job snapshot against
 * the groups its operator's inputs reached. */
static void check_snapshot(const void *snap, size_t len, const sl_graph *g, const char *job,
                           const char *backend)
{
	const uint8_t *b = snap;
	for (size_t p = 0; p + 6 < len; p++) {
		if (b[p] != SL_SNAP_GTABLE)
			continue;
		uint32_t nl = (uint32_t)b[p + 1] | (uint32_t)b[p + 2] << 8 | (uint32_t)b[p + 3] << 16 |
		              (uint32_t)b[p + 4] << 24;
		if (nl == 0 || nl > 255 || p + 5 + nl > len || !memchr(b + p + 5, '/', nl))
			continue;
		sl_snap_reader r;
		sl_snap_reader_init(&r, snap, len);
		r.pos = p;
		sl_snap_tab st;
		sl_err err;
		sl_err_clear(&err);
		if (sl_snap_get_tab(&r, &st, &err) != 1)
			continue;
		const char *slash = strchr(st.name, '/');
		const sl_op *op = NULL;
		for (int i = 0; i < g->nops && !op; i++)
			if (strlen(g->ops[i]->uid) == (size_t)(slash - st.name) &&
			    !strncmp(g->ops[i]->uid, st.name, (size_t)(slash - st.name)))
				op = g->ops[i];
		if (!op)
			fail_msg("%s (%s): table %s of no operator", job, backend, st.name);
		tap *t = tap_of(op);
		if (!t)
			fail_msg("%s (%s): table %s of %s, which has no keyed input", job, backend,
			         st.name, op->label);
		assert_int_equal(st.maxp, MAXP);
		int in = table_input(t, slash + 1);
		int64_t ns;
		const void *k, *v;
		size_t kl, vl;
		int kg;
		while (sl_snap_tab_next(&r, &st, 0, MAXP - 1, &kg, &ns, &k, &kl, &v, &vl, &err) == 1) {
			int hit = 0;
			for (int s = 0; s < op->nin; s++)
				if ((in < 0 || in == s) && (t->seen[s][kg / 8] >> (kg % 8) & 1))
					hit = 1;
			if (!hit)
				fail_msg("%s (%s): %s table %s: an entry (key %zu bytes) in group %d, "
				         "which no row its exchange hashed reached", job, backend, op->label,
				         slash + 1, kl, kg);
			t->entries++;
		}
		sl_snap_tab_deinit(&st);
		p = r.pos - 1;
	}
}

/* Sample rows: 12 users (one NULL), v and n equal across types, d with
 * -0.0 and 0.0; event times within one 10-second window, so windowed
 * state stays until the snapshot. */
static size_t orders_rows(char *out, size_t cap)
{
	size_t n = 0;
	for (int i = 0; i < 40; i++) {
		char user[16];
		if (i % 12 == 11)
			snprintf(user, sizeof user, "null");
		else
			snprintf(user, sizeof user, "\"u%d\"", i % 12);
		n += (size_t)snprintf(out + n, cap - n,
		                      "{\"id\": \"o%d\", \"user_id\": %s, \"amount\": %d.25, \"v\": %d, "
		                      "\"d\": %s, \"ts\": \"2026-01-01 10:00:%02d\"}\n",
		                      i, user, i % 9, i % 7, i % 3 == 0 ? "-0.0" : i % 3 == 1 ? "0.0" : "1.5",
		                      i / 5);
	}
	return n;
}

static size_t users_rows(char *out, size_t cap)
{
	size_t n = 0;
	for (int i = 0; i < 15; i++)
		n += (size_t)snprintf(out + n, cap - n,
		                      "{\"user_id\": %s, \"name\": \"n%d\", \"n\": %d, "
		                      "\"uts\": \"2026-01-01 10:00:%02d\"}\n",
		                      i == 14 ? "null" : i % 2 ? "\"u1\"" : "\"u4\"", i, i % 9, i / 2);
	return n;
}

static size_t rates_rows(char *out, size_t cap)
{
	size_t n = 0;
	for (int i = 0; i < 10; i++)
		n += (size_t)snprintf(out + n, cap - n,
		                      "{\"before\": null, \"after\": {\"user_id\": \"u%d\", \"rate\": %d, "
		                      "\"rts\": \"2026-01-01 10:00:%02d\"}, \"op\": \"c\"}\n",
		                      i % 6, i, i);
	return n;
}

static int keyed_input(const sl_pnode *n)
{
	for (int i = 0; i < n->nin; i++)
		if (n->dist[i].kind == SL_DIST_HASH || n->dist[i].kind == SL_DIST_SINGLETON)
			return 1;
	return 0;
}

static void run_job(const char *backend, const char *job, int *kinds_checked)
{
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_set(e, "state.backend.type", backend), 0);
	assert_int_equal(sl_set(e, "pipeline.max-parallelism", "32768"), 0);
	assert_int_equal(sl_exec(e, DDL), 0);
	/* the plan, as the engine will make it: node i is operator i */
	sl_arena a;
	sl_arena_init(&a, 16 * 1024);
	sl_ast_script *script;
	sl_err err = {0};
	assert_int_equal(sl_parse(&a, job, &script, &err), 0);
	sl_plan_args pa = {.cat = &e->cat, .session = &e->session, .engine = e,
	                   .push_sink = &sl_push_sink_vtab, .select_to_queue = 1, .arena = &a};
	sl_pplan plan;
	if (sl_plan_job(&pa, script->stmts, script->nstmts, &plan, NULL, &err))
		fail_msg("%s: %s", job, err.msg);
	if (sl_exec(e, job))
		fail_msg("%s: %s", job, sl_errmsg(e));
	sl_graph *g = &e->graph;
	assert_int_equal(g->nops, plan.n);
	assert_true(plan.n <= MAXOPS);
	g_ntaps = 0;
	for (int i = 0; i < plan.n; i++) {
		const sl_pnode *n = plan.nodes[i];
		sl_op *op = g->ops[i];
		assert_int_equal(op->vt->kind, n->kind);
		assert_string_equal(op->uid, n->uid);
		assert_non_null(n->dist);
		for (int k = 0; k < n->nin; k++)
			if (n->dist[k].kind == SL_DIST_HASH) {
				assert_true(n->dist[k].ncols > 0);
				for (int c = 0; c < n->dist[k].ncols; c++)
					assert_true(n->dist[k].cols[c] >= 0 && n->in[k] &&
					            n->dist[k].cols[c] < n->in[k]->nout);
			}
		if (!keyed_input(n))
			continue;
		assert_true(n->nin <= 2);
		tap *t = &g_taps[g_ntaps++];
		memset(t, 0, sizeof(*t));
		t->op = op;
		t->orig = op->vt;
		t->vt = *op->vt;
		t->vt.process = tap_process;
		t->dist = n->dist;
		for (int k = 0; k < n->nin; k++)
			t->seen[k] = calloc(MAXP / 8, 1);
		op->vt = &t->vt;
	}
	assert_true(g_ntaps > 0);
	char rows[8192];
	size_t len = orders_rows(rows, sizeof rows);
	if (strstr(job, "orders") && sl_push_json_lines(e, "orders", rows, len))
		fail_msg("%s (%s): %s", job, backend, sl_errmsg(e));
	if (strstr(job, "users")) { /* a table no query reads takes no rows */
		len = users_rows(rows, sizeof rows);
		assert_int_equal(sl_push_json_lines(e, "users", rows, len), 0);
	}
	if (strstr(job, "rates")) {
		len = rates_rows(rows, sizeof rows);
		assert_int_equal(sl_push_json_lines(e, "rates", rows, len), 0);
	}
	void *snap;
	size_t slen;
	assert_int_equal(sl_snapshot(e, &snap, &slen), 0);
	check_snapshot(snap, slen, g, job, backend);
	free(snap);
	for (int i = 0; i < g_ntaps; i++) {
		tap *t = &g_taps[i];
		if (!t->rows || !t->entries)
			fail_msg("%s (%s): %s: %d rows reached it, %d state entries checked", job, backend,
			         t->op->label, t->rows, t->entries);
		kinds_checked[t->op->vt->kind] = 1;
		/* INT = BIGINT: equal values hash alike on both sides (the left's
		 * v 0..6 are all among the right's n 0..8), so matching rows meet
		 * on one instance */
		if (strstr(job, "o.v = u.n") && t->op->nin == 2)
			for (int w = 0; w < MAXP / 8; w++)
				if (t->seen[0][w] & ~t->seen[1][w])
					fail_msg("%s (%s): a left key's group no right row reached", job,
					         backend);
		((sl_op *)t->op)->vt = t->orig;
		for (int k = 0; k < 2; k++)
			free(t->seen[k]);
	}
	g_ntaps = 0;
	sl_engine_close(e);
	sl_arena_deinit(&a);
}

static void test_exchange_groups(const char *backend)
{
	int kinds[SL_OPK__COUNT] = {0};
	for (size_t j = 0; j < sizeof(JOBS) / sizeof(JOBS[0]); j++)
		run_job(backend, JOBS[j], kinds);
	static const sl_op_kind keyed[] = {
		SL_OPK_GROUP_AGG, SL_OPK_WINDOW_AGG, SL_OPK_SESSION_AGG, SL_OPK_SESSION_ASSIGN,
		SL_OPK_OVER_AGG, SL_OPK_JOIN, SL_OPK_SEMI_JOIN, SL_OPK_INTERVAL_JOIN,
		SL_OPK_WINDOW_JOIN, SL_OPK_TEMPORAL_JOIN, SL_OPK_RANK, SL_OPK_DEDUP,
		SL_OPK_WINDOW_RANK, SL_OPK_SET_OP, SL_OPK_CHANGELOG_NORMALIZE, SL_OPK_MATCH,
	};
	for (size_t i = 0; i < sizeof(keyed) / sizeof(keyed[0]); i++)
		if (!kinds[keyed[i]])
			fail_msg("%s: no job checked an operator of kind %s", backend,
			         sl_op_kind_name(keyed[i]));
}

static void test_hashmap(void **st)
{
	test_exchange_groups("hashmap");
}

static void test_rocksdb(void **st)
{
	test_exchange_groups("rocksdb");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hashmap),
		cmocka_unit_test(test_rocksdb),
	};
	return cmocka_run_group_tests_name("plan_dist", tests, NULL, NULL);
}
