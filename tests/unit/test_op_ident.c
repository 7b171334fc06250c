/*
 * test_op_ident.c - the label-hash operator identities of version 1
 * (sl_op.uid_v1, src/plan/plan_ident.c) pinned for a corpus of jobs.
 *
 * Snapshots written before structural ids (tests/fixtures/ckpt-v1, users'
 * savepoints) name each operator's state by its label-hash id: a hash of
 * its identity text (its label as it was when ids were introduced) chained
 * through its inputs.  A restore of such a snapshot matches operators by
 * these ids (exec/graph.c), so they must never move: a change of how a
 * label prints an expression, a type or an aggregate would make those
 * snapshots refuse to restore ("state of operators the job no longer
 * has").  This test pins them; the pinned values are those of the sluice
 * that wrote tests/fixtures/ckpt-v1 (checked against that build when this
 * test was written, for every job it could plan).  Never update a pinned
 * value silently.  The structural ids (sl_op.uid) that snapshots are
 * written with now are pinned by tests/slt/explain.slt.
 *
 * Also: two identical aggregates of one job get two ids (label-hash: the
 * first the id it had before ids were unique per job), under both schemes;
 * the structural identity texts of a few operators (kinds and types, the
 * same for `v > 1` and `1 < v`); and equal siblings of two statements keep
 * their own state when the statements are reordered.  SL_IDENT_PRINT=1
 * prints the label-hash ids.
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
#include "exec/op_ident.h"

static const char *DDL =
	"CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), v INT, "
	"  event_time TIMESTAMP(3), WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND) "
	"  WITH ('connector' = 'push');"
	"CREATE TABLE users (user_id STRING, name STRING, ts TIMESTAMP(3), "
	"  WATERMARK FOR ts AS ts) WITH ('connector' = 'push');"
	"CREATE TABLE out1 (user_id STRING, n BIGINT) WITH ('connector' = 'push');"
	"CREATE TABLE out2 (user_id STRING, n BIGINT) WITH ('connector' = 'push');";

typedef struct ident_case {
	const char *name;
	const char *job;
	const char *ids; /* "uid vtab-name" per operator, newline-separated */
} ident_case;

/* Plans job after DDL and writes its operators' "uid name" lines to out. */
static void job_ids(const char *job, char *out, size_t cap)
{
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, DDL), 0);
	int rc = sl_exec(e, job);
	if (rc)
		print_error("%s\n", sl_errmsg(e));
	assert_int_equal(rc, 0);
	size_t n = 0;
	out[0] = 0;
	for (int i = 0; i < e->graph.nops; i++) {
		const sl_op *op = e->graph.ops[i];
		n += (size_t)snprintf(out + n, cap - n, "%s %s\n", op->uid_v1, op->vt->name);
		assert_true(n < cap);
	}
	sl_engine_close(e);
}

/* As job_ids, with the structural ids (sl_op.uid). */
static void job_struct_ids(const char *job, char *out, size_t cap)
{
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, DDL), 0);
	assert_int_equal(sl_exec(e, job), 0);
	size_t n = 0;
	out[0] = 0;
	for (int i = 0; i < e->graph.nops; i++) {
		const sl_op *op = e->graph.ops[i];
		n += (size_t)snprintf(out + n, cap - n, "%s %s\n", op->uid, op->vt->name);
		assert_true(n < cap);
	}
	sl_engine_close(e);
}

/* The structural identity text of the first operator named `name` of
 * job (copied to out), and its id (to uid, 17 bytes). */
static void struct_ident(const char *job, const char *name, char *out, size_t cap, char *uid)
{
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, DDL), 0);
	assert_int_equal(sl_exec(e, job), 0);
	out[0] = 0;
	for (int i = 0; i < e->graph.nops && !out[0]; i++) {
		const sl_op *op = e->graph.ops[i];
		if (!strcmp(op->vt->name, name)) {
			snprintf(out, cap, "%s", op->sident);
			snprintf(uid, 17, "%s", op->uid);
		}
	}
	sl_engine_close(e);
	assert_true(out[0] != 0);
}

static const ident_case CASES[] = {
	{"group_agg",
	 "SELECT user_id, COUNT(*), SUM(amount), MAX(id) FROM orders WHERE v > 1 GROUP BY user_id",
	 "43043c15b58eea11 TableSourceScan\n"
	 "ba6734538e0430ae Calc\n"
	 "f30ed1deed36fbfc GroupAggregate\n"
	 "f95c2b3e637b20c1 Calc\n"
	 "ac3a5839754dad3c Sink\n"},
	{"tvf_window_agg",
	 "SELECT user_id, window_start, SUM(amount), COUNT(DISTINCT id) FROM TABLE(TUMBLE(TABLE orders, "
	 "DESCRIPTOR(event_time), INTERVAL '10' SECOND)) GROUP BY user_id, window_start, window_end",
	 "43043c15b58eea11 TableSourceScan\n"
	 "f6f7174093463e0c WindowAggregate\n"
	 "a16db93a8fce198d Calc\n"
	 "ac3a5839754dad3c Sink\n"},
	/* The Calc's id changed on purpose (it was bf941c76280c6dbf): a window
	 * aggregate with a lateness is now planned as updating, and the Calc
	 * after it is updating too (its identity text names its changelog
	 * kind).  The aggregate keeps its frozen append-only identity text and
	 * id; the Calc is stateless and never blocks a restore, so savepoints
	 * of this job keep restoring (checked with a savepoint of the sluice
	 * before the change).  A stateful operator after such a Calc changes
	 * id and its old state is refused by name: it was planned over an
	 * append-only input (MIN/MAX kept no values to retract). */
	{"legacy_window_lateness",
	 "SELECT user_id, TUMBLE_START(event_time, INTERVAL '1' MINUTE), COUNT(*) FROM orders "
	 "GROUP BY user_id, TUMBLE(event_time, INTERVAL '1' MINUTE) ALLOWED LATENESS INTERVAL '1' MINUTE",
	 "43043c15b58eea11 TableSourceScan\n"
	 "1bdc19dbbacfb9e8 WindowAggregate\n"
	 "bbaceab8ce4f49b2 Calc\n"
	 "ac3a5839754dad3c Sink\n"},
	/* The joins' ids changed on purpose (they were 8771a4469b94d099 and
	 * 094b7bf0bf5af39e): column pruning (src/plan/plan_prune.c) narrows
	 * the rows they store to the columns read above them, a new layout,
	 * so they get new ids and a savepoint of the unpruned plan is refused
	 * naming the join instead of read wrongly
	 * (tests/unit/test_restore_prune.c).  In dedup_topn a Calc that only
	 * dropped unread columns is gone (calc-passthrough); the others keep
	 * their ids.  In join, the stateless Calc cb608e457eeaca4b is new: the
	 * rewrite rule join-filters (src/plan/plan_join_filter.c) evaluates the
	 * one-sided `o.v > 2` below the join too; every pinned id is kept. */
	{"join",
	 "SELECT o.id, u.name FROM orders o JOIN users u ON o.user_id = u.user_id AND o.v > 2",
	 "43043c15b58eea11 TableSourceScan\n"
	 "02d42f38b6ba06fe TableSourceScan\n"
	 "cb608e457eeaca4b Calc\n"
	 "b47735b47fe323e7 Join\n"
	 "3138714399d5ff0d Calc\n"
	 "ac3a5839754dad3c Sink\n"},
	{"interval_join",
	 "SELECT o.id, u.name FROM orders o JOIN users u ON o.user_id = u.user_id AND "
	 "o.event_time BETWEEN u.ts - INTERVAL '1' HOUR AND u.ts",
	 "43043c15b58eea11 TableSourceScan\n"
	 "02d42f38b6ba06fe TableSourceScan\n"
	 "54ca4b01d5e8730f IntervalJoin\n"
	 "9d4d914b59c17929 Calc\n"
	 "ac3a5839754dad3c Sink\n"},
	{"dedup_topn",
	 "SELECT id, user_id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY v DESC) "
	 "AS rn FROM orders) WHERE rn <= 2",
	 "43043c15b58eea11 TableSourceScan\n"
	 "0263c10f4374fc7d Calc\n"
	 "a73f22615077ffea Rank\n"
	 "467198e78227c3d9 Calc\n"
	 "ac3a5839754dad3c Sink\n"},
	{"over",
	 "SELECT id, SUM(v) OVER (PARTITION BY user_id ORDER BY event_time ROWS BETWEEN 2 PRECEDING "
	 "AND CURRENT ROW) FROM orders",
	 "43043c15b58eea11 TableSourceScan\n"
	 "ddb9c6471f0a2c61 OverAggregate\n"
	 "e221881db8dac754 Calc\n"
	 "ac3a5839754dad3c Sink\n"},
	{"union_calc",
	 "SELECT id, CAST(v AS BIGINT) * 2 AS x FROM orders WHERE amount > 10 "
	 "UNION ALL SELECT user_id, CHAR_LENGTH(name) FROM users",
	 "43043c15b58eea11 TableSourceScan\n"
	 "2ec1e0fa81c66913 Calc\n"
	 "02d42f38b6ba06fe TableSourceScan\n"
	 "63a8f2dfce9520c7 Calc\n"
	 "2de03c2d43062979 Calc\n"
	 "f5e882b0379b35f8 Union\n"
	 "ac3a5839754dad3c Sink\n"},
	/* two identical aggregates: the first keeps the id every earlier
	 * sluice gave both (48a1...), the second gets its own */
	{"statement_set_two_aggs",
	 "EXECUTE STATEMENT SET BEGIN "
	 "INSERT INTO out1 SELECT user_id, COUNT(*) FROM orders GROUP BY user_id; "
	 "INSERT INTO out2 SELECT user_id, COUNT(*) FROM orders GROUP BY user_id; END",
	 "43043c15b58eea11 TableSourceScan\n"
	 "48a1bb416eed674d GroupAggregate\n"
	 "9baf94912351a746 Calc\n"
	 "c89835fb828c3016 Sink\n"
	 "d6d6f1647115f284 GroupAggregate\n"
	 "d6a5a9b8eec77758 Calc\n"
	 "0a492cf5304ebb11 Sink\n"},
};
#define NCASES ((int)(sizeof(CASES) / sizeof(CASES[0])))

static void test_pinned(void **state)
{
	const ident_case *c = *state;
	char got[8192];
	job_ids(c->job, got, sizeof(got));
	if (getenv("SL_IDENT_PRINT")) {
		printf("== %s\n%s", c->name, got);
		return;
	}
	if (strcmp(got, c->ids)) {
		print_error("job %s: operator ids changed (savepoints of this job would no longer "
		            "restore)\n  pinned:\n%s  now:\n%s", c->name, c->ids, got);
		fail();
	}
}

/* Every id of a job is unique, also with identical operators, under both
 * schemes. */
static void test_unique(void **state)
{
	(void)state;
	for (int k = 0; k < 2 * NCASES; k++) {
		char got[8192];
		(k < NCASES ? job_ids : job_struct_ids)(CASES[k % NCASES].job, got, sizeof(got));
		for (char *l = got; *l; l = strchr(l, '\n') + 1)
			for (char *m = strchr(l, '\n') + 1; *m; m = strchr(m, '\n') + 1)
				if (!strncmp(l, m, 16)) {
					print_error("job %s: two operators with id %.16s\n",
					            CASES[k % NCASES].name, l);
					fail();
				}
	}
}

/* The structural identity: kinds and types, not expressions or names. */
static void test_struct_text(void **state)
{
	(void)state;
	char a[512], b[512], ua[17], ub[17];
	struct_ident("SELECT user_id, COUNT(*), SUM(amount), MAX(id) FROM orders WHERE v > 1 "
	             "GROUP BY user_id", "GroupAggregate", a, sizeof(a), ua);
	assert_string_equal(a, "v2 GroupAggregate keys=[VARCHAR] aggs=[COUNT(*)->BIGINT, "
	                       "SUM(DECIMAL(10,2))->DECIMAL(38,2), MAX(VARCHAR)->VARCHAR]");
	struct_ident("SELECT user_id AS u, COUNT(*) AS n, SUM(amount), MAX(id) FROM orders "
	             "WHERE 1 < v GROUP BY user_id", "GroupAggregate", b, sizeof(b), ub);
	assert_string_equal(a, b);
	assert_string_equal(ua, ub);
	struct_ident("SELECT id, amount FROM orders WHERE v > 1", "Calc", a, sizeof(a), ua);
	struct_ident("SELECT amount AS x, id FROM orders WHERE 1 < v", "Calc", b, sizeof(b), ub);
	assert_string_equal(a, "v2 Calc out={DECIMAL(10,2),VARCHAR}");
	assert_string_equal(a, b);
	assert_string_equal(ua, ub);
	struct_ident("SELECT o.id, u.name FROM orders o JOIN users u ON o.user_id = u.user_id",
	             "Join", a, sizeof(a), ua);
	/* the rows it stores: the columns read above it and its keys (pruned) */
	assert_string_equal(a, "v2 Join kind=INNER lkeys=[VARCHAR] rkeys=[VARCHAR] "
	                       "left=[VARCHAR,VARCHAR] right=[VARCHAR,VARCHAR]");
}

/* The structural id of the first operator named `name` of `job` planned
 * after `ddl` (to uid, 17 bytes). */
static void uid_after(const char *ddl, const char *job, const char *name, char *uid)
{
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, ddl), 0);
	assert_int_equal(sl_exec(e, job), 0);
	uid[0] = 0;
	for (int i = 0; i < e->graph.nops && !uid[0]; i++)
		if (!strcmp(e->graph.ops[i]->vt->name, name))
			snprintf(uid, 17, "%s", e->graph.ops[i]->uid);
	sl_engine_close(e);
	assert_true(uid[0] != 0);
}

/* A column added to a table: a scan is identified by its table, connector
 * and format, not its columns, so an aggregate over it keeps its id; an
 * operator that stores whole rows of it (a join) does not. */
static void test_column_added(void **state)
{
	(void)state;
	const char *t1 = "CREATE TABLE a (k STRING, v INT) WITH ('connector' = 'push');"
	                 "CREATE TABLE b (k STRING, w INT) WITH ('connector' = 'push');";
	const char *t2 = "CREATE TABLE a (k STRING, v INT, extra DOUBLE) WITH ('connector' = 'push');"
	                 "CREATE TABLE b (k STRING, w INT) WITH ('connector' = 'push');";
	const char *agg = "SELECT k, SUM(v) FROM a GROUP BY k";
	const char *join = "SELECT a.k, b.w FROM a JOIN b ON a.k = b.k";
	char u1[17], u2[17];
	uid_after(t1, agg, "GroupAggregate", u1);
	uid_after(t2, agg, "GroupAggregate", u2);
	assert_string_equal(u1, u2);
	uid_after(t1, join, "Join", u1);
	uid_after(t2, join, "Join", u2);
	assert_string_not_equal(u1, u2);
}

/* sl_op_struct_ident without the planner (the plan layer's node creation
 * calls it so): the version prefix, a Calc's output types as a sorted
 * multiset, and refusals of a kind without parameters. */
static void test_struct_ident_direct(void **state)
{
	(void)state;
	sl_buf b;
	sl_buf_init(&b);
	sl_err err;
	sl_err_clear(&err);
	sl_type t[3] = {sl_type_varchar(SL_STRING_LEN), sl_type_make(SL_T_BIGINT),
	                sl_type_decimal(10, 2)};
	t[1].notnull = 1;
	assert_int_equal(sl_op_struct_ident(&b, SL_OPK_CALC, NULL, NULL, 0, t, 3, &err), 0);
	assert_string_equal(sl_buf_cstr(&b), "v2 Calc out={BIGINT,DECIMAL(10,2),VARCHAR}");
	sl_buf_clear(&b);
	int keys[1] = {0};
	sl_keys_ident k = {keys, 1};
	assert_int_equal(sl_op_struct_ident(&b, SL_OPK_CHANGELOG_NORMALIZE, &k, t, 3, NULL, 0, &err),
	                 0);
	assert_string_equal(sl_buf_cstr(&b),
	                    "v2 ChangelogNormalize keys=[VARCHAR] in=[VARCHAR,BIGINT,DECIMAL(10,2)]");
	sl_buf_clear(&b);
	keys[0] = 3; /* not an input column */
	assert_int_equal(sl_op_struct_ident(&b, SL_OPK_CHANGELOG_NORMALIZE, &k, t, 3, NULL, 0, &err),
	                 SL_EINVAL);
	assert_int_equal(b.len, 0); /* nothing appended on failure */
	assert_int_equal(sl_op_struct_ident(&b, SL_OPK_GROUP_AGG, NULL, t, 3, NULL, 0, &err),
	                 SL_EINVAL);
	assert_int_equal(sl_op_struct_ident(&b, SL_OPK_NONE, NULL, t, 3, NULL, 0, &err), SL_EINVAL);
	sl_buf_deinit(&b);
}

/* Appends "<table> <kind> <json>\n" to the 4096-byte buffer ctx. */
static void collect(void *ctx, const char *table, sl_rowkind kind, const char *json,
                    size_t len)
{
	static const char *const kinds[] = {"+I", "-U", "+U", "-D"};
	char *out = ctx;
	size_t n = strlen(out);
	snprintf(out + n, 4096 - n, "%s %s %.*s\n", table, kinds[kind], (int)len, json);
}

/*
 * Two statements with the same aggregate behind different filters into
 * two tables (their Calcs are equal siblings: the same structure over the
 * same input): reordering the statements keeps every id, so each
 * aggregate gets its own state back.  With ids by occurrence alone the two
 * chains traded ids and the restore handed out1's count to out2's
 * aggregate without a word (out2's held nothing, so nothing was refused).
 */
static void test_siblings_reordered(void **state)
{
	(void)state;
	const char *s1 = "INSERT INTO out1 SELECT user_id, COUNT(*) FROM orders WHERE v > 1 "
	                 "GROUP BY user_id; ";
	const char *s2 = "INSERT INTO out2 SELECT user_id, COUNT(*) FROM orders WHERE v <= 1 "
	                 "GROUP BY user_id; ";
	const char *row = "{\"id\": \"a\", \"user_id\": \"u\", \"amount\": 1, \"v\": 5, "
	                  "\"event_time\": \"2026-01-01 10:00:00\"}";
	char job[2][1024], out[4096] = "";
	for (int k = 0; k < 2; k++)
		snprintf(job[k], sizeof(job[k]), "EXECUTE STATEMENT SET BEGIN %s%s END", k ? s2 : s1,
		         k ? s1 : s2);
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, DDL), 0);
	assert_int_equal(sl_exec(e, job[0]), 0);
	assert_int_equal(sl_push_json_lines(e, "orders", row, strlen(row)), 0);
	void *snap;
	size_t len;
	assert_int_equal(sl_snapshot(e, &snap, &len), 0);
	sl_engine_close(e);

	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, DDL), 0);
	assert_int_equal(sl_exec(e, job[1]), 0);
	int rc = sl_restore(e, snap, len);
	if (rc)
		print_error("reordered: %s\n", sl_errmsg(e));
	assert_int_equal(rc, 0);
	assert_true(sl_poll(e, collect, out) >= 0);
	out[0] = 0;
	assert_int_equal(sl_push_json_lines(e, "orders", row, strlen(row)), 0);
	assert_true(sl_poll(e, collect, out) >= 0);
	/* out1's aggregate goes on from its count of 1 */
	assert_string_equal(out, "out1 -U {\"user_id\":\"u\",\"n\":1}\n"
	                         "out1 +U {\"user_id\":\"u\",\"n\":2}\n");
	sl_engine_close(e);
	free(snap);
}

int main(void)
{
	struct CMUnitTest tests[NCASES + 5];
	static char names[NCASES][64];
	int n = 0;
	for (int i = 0; i < NCASES; i++) {
		snprintf(names[i], sizeof(names[0]), "pinned_%s", CASES[i].name);
		tests[n++] = (struct CMUnitTest){names[i], test_pinned, NULL, NULL, (void *)&CASES[i]};
	}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_unique);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_struct_text);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_struct_ident_direct);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_column_added);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_siblings_reordered);
	return _cmocka_run_group_tests("op_ident", tests, (size_t)n, NULL, NULL);
}
