/*
 * test_restore_edit.c - restoring a snapshot into an edited job (graph.c's
 * check for state the job no longer has, docs/semantics.md §3).
 *
 * For each kind of stateful operator, a job v1 runs over push tables and
 * is snapshotted with state in that operator; then:
 *   - v2, the job edited so that the operator's id changed (a filter or a
 *     watermark upstream of it), refuses the snapshot with a message naming
 *     the operator;
 *   - v2 with 'execution.savepoint.ignore-unclaimed-state' (the CLI's
 *     --allow-non-restored-state) accepts it, and the operator starts
 *     empty (a probe row shows it);
 *   - v1 itself restores, and the operator has its state (the same probe
 *     row gives the other answer).
 * Every case runs on both state backends, without and with a state TTL
 * (the TTL's tables are "name~ttl").  An operator that holds no state at
 * the snapshot does not block the edited job (Flink skips empty state
 * too); scalars in the snapshot (a deduplication's or an OVER's watermark,
 * a source's position) are state even without rows.
 *
 * Before the fix, only operators that wrote snapshot scalars or whose name
 * contains "Aggregate" were checked: a join, a Top-N, a dedup, a set
 * operation, a ChangelogNormalize, an interval join or a semi join whose id
 * changed lost its state without a word.
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

static const char *DDL =
	"CREATE TABLE a (k INT, v INT, ts TIMESTAMP(3), p AS PROCTIME(), "
	"  WATERMARK FOR ts AS ts) WITH ('connector' = 'push');"
	"CREATE TABLE b (k INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) "
	"  WITH ('connector' = 'push');"
	/* `a` with other column types: an operator over it is another one */
	"CREATE VIEW a2 AS SELECT CAST(k AS BIGINT) AS k, CAST(v AS BIGINT) AS v, ts, p FROM a;";

/* a debezium create / update of key k (the update without 'before':
 * only ChangelogNormalize's state can retract the old row) */
#define CDC(op, k, v)                                                                      \
	"{\"before\":null,\"after\":{\"k\":" #k ",\"v\":" #v                                \
	",\"ts\":\"2026-01-01 10:00:00\"},\"op\":\"" op "\"}"

typedef struct edit_case {
	const char *name;    /* the operator's kind, as the refusal names it */
	const char *v1;      /* the job (after DDL; may declare its own tables) */
	const char *v2;      /* the same job edited: the operator's id changes */
	const char *feed_t;  /* rows pushed before the snapshot */
	const char *feed;    /* newline-separated JSON rows */
	const char *probe_t; /* a row pushed after the restore */
	const char *probe;
	const char *with;    /* the probe's output when the state was restored */
	const char *without; /* ... when the operator started empty */
	int body;            /* the snapshot holds scalars of an operator whose id
	                      * changed even before any row (a watermark, a
	                      * source's position): state, so even then refused */
} edit_case;

static const edit_case CASES[] = {
	{"Join",
	 "SELECT a.k, b.v FROM a JOIN b ON a.k = b.k",
	 "SELECT a.k, b.v FROM a2 a JOIN b ON a.k = b.k",
	 "a", "{\"k\": 1, \"v\": 5, \"ts\": \"2026-01-01 10:00:00\"}",
	 "b", "{\"k\": 1, \"v\": 7, \"ts\": \"2026-01-01 10:00:00\"}",
	 "+I[1, 7]", "", 0},
	{"Rank",
	 "SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn "
	 "FROM a) WHERE rn <= 2",
	 "SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn "
	 "FROM a2) WHERE rn <= 2",
	 "a", "{\"k\": 1, \"v\": 5, \"ts\": \"2026-01-01 10:00:00\"}\n"
	      "{\"k\": 1, \"v\": 6, \"ts\": \"2026-01-01 10:00:00\"}",
	 "a", "{\"k\": 1, \"v\": 3, \"ts\": \"2026-01-01 10:00:00\"}",
	 "", "+I[1, 3]", 0},
	{"Deduplicate",
	 "SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY p) AS rn "
	 "FROM a) WHERE rn = 1",
	 "SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY p) AS rn "
	 "FROM a2) WHERE rn = 1",
	 "a", "{\"k\": 1, \"v\": 5, \"ts\": \"2026-01-01 10:00:00\"}",
	 "a", "{\"k\": 1, \"v\": 3, \"ts\": \"2026-01-01 10:00:00\"}",
	 "", "+I[1, 3]", 1},
	{"SetOp",
	 "SELECT k FROM a INTERSECT SELECT k FROM b",
	 "SELECT k FROM a2 INTERSECT SELECT k FROM b",
	 "a", "{\"k\": 1, \"v\": 5, \"ts\": \"2026-01-01 10:00:00\"}",
	 "b", "{\"k\": 1, \"v\": 7, \"ts\": \"2026-01-01 10:00:00\"}",
	 "+I[1]", "", 0},
	{"ChangelogNormalize",
	 "CREATE TABLE c (k INT, v INT, PRIMARY KEY (k) NOT ENFORCED) "
	 "  WITH ('connector' = 'push', 'format' = 'debezium-json');"
	 "SELECT k, v FROM c",
	 "CREATE TABLE c (k INT, v INT, ts TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED, "
	 "  WATERMARK FOR ts AS ts) WITH ('connector' = 'push', 'format' = 'debezium-json');"
	 "SELECT k, v FROM c",
	 "c", CDC("c", 1, 5),
	 "c", CDC("u", 1, 6),
	 "-U[1, 5] +U[1, 6]", "+I[1, 6]", 1},
	{"IntervalJoin",
	 "SELECT a.k, b.v FROM a, b WHERE a.k = b.k AND "
	 "a.ts BETWEEN b.ts - INTERVAL '1' HOUR AND b.ts + INTERVAL '1' HOUR",
	 "SELECT a.k, b.v FROM a2 a, b WHERE a.k = b.k AND "
	 "a.ts BETWEEN b.ts - INTERVAL '1' HOUR AND b.ts + INTERVAL '1' HOUR",
	 "a", "{\"k\": 1, \"v\": 5, \"ts\": \"2026-01-01 10:00:00\"}",
	 "b", "{\"k\": 1, \"v\": 7, \"ts\": \"2026-01-01 10:00:00\"}",
	 "+I[1, 7]", "", 0},
	{"SemiJoin",
	 "SELECT k, v FROM a WHERE k IN (SELECT k FROM b)",
	 "SELECT k, v FROM a2 WHERE k IN (SELECT k FROM b)",
	 "b", "{\"k\": 1, \"v\": 7, \"ts\": \"2026-01-01 10:00:00\"}",
	 "a", "{\"k\": 1, \"v\": 5, \"ts\": \"2026-01-01 10:00:00\"}",
	 "+I[1, 5]", "", 0},
	{"SemiJoin", /* the anti join is the same operator */
	 "SELECT k, v FROM a WHERE NOT EXISTS (SELECT * FROM b WHERE b.k = a.k)",
	 "SELECT k, v FROM a2 a WHERE NOT EXISTS (SELECT * FROM b WHERE b.k = a.k)",
	 "b", "{\"k\": 1, \"v\": 7, \"ts\": \"2026-01-01 10:00:00\"}",
	 "a", "{\"k\": 1, \"v\": 5, \"ts\": \"2026-01-01 10:00:00\"}",
	 "", "+I[1, 5]", 0},
	{"OverAggregate",
	 "SELECT k, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING "
	 "AND CURRENT ROW) FROM a",
	 "SELECT k, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING "
	 "AND CURRENT ROW) FROM a2",
	 "a", "{\"k\": 1, \"v\": 5, \"ts\": \"2026-01-01 10:00:00\"}\n"
	      "{\"k\": 2, \"v\": 1, \"ts\": \"2026-01-01 10:00:01\"}",
	 "a", "{\"k\": 1, \"v\": 3, \"ts\": \"2026-01-01 10:00:02\"}\n"
	      "{\"k\": 2, \"v\": 1, \"ts\": \"2026-01-01 10:00:03\"}",
	 "+I[2, 1] +I[1, 8]", "+I[1, 3]", 1},
	{"GroupAggregate",
	 "SELECT k, COUNT(*) FROM a GROUP BY k",
	 "SELECT k, COUNT(*) FROM a2 GROUP BY k",
	 "a", "{\"k\": 1, \"v\": 5, \"ts\": \"2026-01-01 10:00:00\"}",
	 "a", "{\"k\": 1, \"v\": 3, \"ts\": \"2026-01-01 10:00:00\"}",
	 "-U[1, 1] +U[1, 2]", "+I[1, 1]", 0},
};

static const char *g_backend = "hashmap";
static const char *g_ttl; /* 'table.exec.state.ttl', or NULL */
static int g_label;       /* restore the snapshot as written before structural ids */

/*
 * Turns snap, taken of e's job, into the snapshot the sluice before
 * structural ids wrote for that job: the graph snapshot's magic "SLG2"
 * instead of "SLG3" and every operator, and its state tables, named by its
 * label-hash id (uid_v1) instead of its structural id.  Nothing else of
 * the format changed with structural ids, and both ids are 16 hex digits,
 * so the bytes are otherwise the same.
 */
static void to_label_ids(sl_engine *e, void *snap, size_t len)
{
	unsigned char *b = snap;
	assert_true(len > 4 && !memcmp(b, "3GLS", 4)); /* u32 0x534c4733, little-endian */
	b[0] = '2';
	for (int i = 0; i < e->graph.nops; i++) {
		const sl_op *op = e->graph.ops[i];
		assert_int_equal(strlen(op->uid), 16);
		assert_int_equal(strlen(op->uid_v1), 16);
		for (size_t k = 4; k + 16 <= len; k++)
			if (!memcmp(b + k, op->uid, 16))
				memcpy(b + k, op->uid_v1, 16);
	}
}

/* Appends "+I[1, 7]" for the row {"k":1,"v":7} to out (numbers only). */
static void collect(void *ctx, const char *table, sl_rowkind kind, const char *json,
                    size_t len)
{
	static const char *const kinds[] = {"+I", "-U", "+U", "-D"};
	char *out = ctx;
	size_t n = strlen(out);
	(void)table;
	n += (size_t)snprintf(out + n, 512 - n, "%s%s", n ? " " : "", kinds[kind]);
	for (size_t i = 0; i < len && n < 500; i++) {
		char ch = json[i];
		if (ch == '"') { /* a key: skip it and its colon */
			while (++i < len && json[i] != '"')
				;
			i++;
			continue;
		}
		out[n++] = ch == '{' ? '[' : ch == '}' ? ']' : ch;
		if (ch == ',')
			out[n++] = ' ';
	}
	out[n] = 0;
}

/* An engine running `job`; allow: ignore unclaimed state. */
static sl_engine *start(const char *job, int allow)
{
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_set(e, "state.backend.type", g_backend), 0);
	if (g_ttl)
		assert_int_equal(sl_set(e, "table.exec.state.ttl", g_ttl), 0);
	if (allow)
		assert_int_equal(sl_set(e, "execution.savepoint.ignore-unclaimed-state", "true"), 0);
	/* the manual clock: TTL'd state must not expire during the test */
	assert_int_equal(sl_set_processing_time(e, 1767261600000000LL), 0);
	assert_int_equal(sl_exec(e, DDL), 0);
	int rc = sl_exec(e, job);
	if (rc)
		print_error("%s\n", sl_errmsg(e));
	assert_int_equal(rc, 0);
	return e;
}

static void push(sl_engine *e, const char *t, const char *rows)
{
	int rc = sl_push_json_lines(e, t, rows, strlen(rows));
	if (rc)
		print_error("%s\n", sl_errmsg(e));
	assert_int_equal(rc, 0);
}

/* Restores snap into `job` and pushes the probe; returns sl_restore's
 * code; the probe's output goes to out (the error message on failure). */
static int restore_probe(const edit_case *c, const char *job, int allow, const void *snap,
                         size_t len, char out[512])
{
	sl_engine *e = start(job, allow);
	out[0] = 0;
	int rc = sl_restore(e, snap, len);
	if (rc) {
		snprintf(out, 512, "%s", sl_errmsg(e));
	} else {
		sl_poll(e, collect, out);
		out[0] = 0; /* rows emitted at start (none expected) */
		push(e, c->probe_t, c->probe);
		sl_poll(e, collect, out);
	}
	if (!rc && allow) {
		/* the dropped state is gone: the job's own next snapshot
		 * restores into it without the option, and into the job as it
		 * was before the edit (v1) without the old state */
		void *s2;
		size_t l2;
		char out2[512] = "";
		assert_int_equal(sl_snapshot(e, &s2, &l2), 0);
		sl_engine *e2 = start(job, 0);
		int rc2 = sl_restore(e2, s2, l2);
		if (rc2)
			print_error("%s (%s): the next snapshot: %s\n", c->name, g_backend, sl_errmsg(e2));
		assert_int_equal(rc2, 0);
		sl_engine_close(e2);
		e2 = start(c->v1, 1);
		assert_int_equal(sl_restore(e2, s2, l2), 0);
		sl_poll(e2, collect, out2);
		out2[0] = 0;
		push(e2, c->probe_t, c->probe);
		sl_poll(e2, collect, out2);
		/* (the OVER probe is late there: the source's watermark moved
		 * on in the edited job) */
		if (strcmp(c->name, "OverAggregate")) {
			if (strcmp(out2, c->without))
				print_error("%s (%s), back to v1: got '%s', want '%s'\n", c->name,
				            g_backend, out2, c->without);
			assert_string_equal(out2, c->without);
		}
		sl_engine_close(e2);
		free(s2);
	}
	sl_engine_close(e);
	return rc;
}

/* Runs case c: a snapshot of v1 with state in the operator (or, with
 * empty, before any row). */
static void run_case(const edit_case *c, int empty)
{
	sl_engine *e = start(c->v1, 0);
	char out[512] = "";
	if (!empty)
		push(e, c->feed_t, c->feed);
	sl_poll(e, collect, out);
	void *snap;
	size_t len;
	assert_int_equal(sl_snapshot(e, &snap, &len), 0);
	if (g_label)
		to_label_ids(e, snap, len);
	sl_engine_close(e);

	int rc = restore_probe(c, c->v2, 0, snap, len, out);
	if (empty) {
		/* no state: nothing is lost, the edited job starts */
		if (!rc != !c->body)
			print_error("%s (empty, %s): %s\n", c->name, g_backend, out);
		assert_int_equal(!rc, !c->body);
		free(snap);
		return;
	}
	if (!rc)
		print_error("%s (%s, ttl %s, %s ids): the edited job restored, dropping the state\n",
		            c->name, g_backend, g_ttl ? g_ttl : "none", g_label ? "label" : "structural");
	assert_int_not_equal(rc, 0);
	char want[64];
	snprintf(want, sizeof(want), "%s (", c->name);
	if (!strstr(out, "no longer has") || !strstr(out, want) ||
	    !strstr(out, "--allow-non-restored-state"))
		print_error("%s: message: %s\n", c->name, out);
	assert_non_null(strstr(out, "no longer has"));
	assert_non_null(strstr(out, want));

	rc = restore_probe(c, c->v2, 1, snap, len, out);
	assert_int_equal(rc, 0);
	if (strcmp(out, c->without))
		print_error("%s (%s), allowed: got '%s', want '%s'\n", c->name, g_backend, out,
		            c->without);
	assert_string_equal(out, c->without);

	rc = restore_probe(c, c->v1, 0, snap, len, out);
	if (rc)
		print_error("%s (%s), unchanged job: %s\n", c->name, g_backend, out);
	assert_int_equal(rc, 0);
	if (strcmp(out, c->with))
		print_error("%s (%s), unchanged: got '%s', want '%s'\n", c->name, g_backend, out,
		            c->with);
	assert_string_equal(out, c->with);
	free(snap);
}

/* Every case, with the snapshot as written now and as written before
 * structural ids (the restore matches by the label-hash ids then). */
static void run_all(int empty)
{
	for (g_label = 0; g_label < 2; g_label++)
		for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++)
			run_case(&CASES[i], empty);
	g_label = 0;
}

static void test_hashmap(void **st)
{
	(void)st;
	g_backend = "hashmap";
	g_ttl = NULL;
	run_all(0);
}

static void test_rocksdb(void **st)
{
	(void)st;
	g_backend = "rocksdb";
	g_ttl = NULL;
	run_all(0);
}

static void test_ttl(void **st)
{
	(void)st;
	g_ttl = "1 h";
	g_backend = "hashmap";
	run_all(0);
	g_backend = "rocksdb";
	run_all(0);
	g_ttl = NULL;
}

static void test_empty_state(void **st)
{
	(void)st;
	g_backend = "hashmap";
	g_ttl = NULL;
	run_all(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hashmap),
		cmocka_unit_test(test_rocksdb),
		cmocka_unit_test(test_ttl),
		cmocka_unit_test(test_empty_state),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
