/*
 * test_restore_prune.c - column pruning (src/plan/plan_prune.c) gives the
 * same results, and savepoints taken of the unpruned plan are either
 * restored correctly or refused by name, never read with the wrong layout
 * (docs/semantics.md §3, docs/architecture.md "Column pruning").
 *
 * Two jobs over push tables with columns nobody reads (`pad`, `junk`):
 *   - a TUMBLE window aggregate and a GROUP BY: pruning narrows the scan
 *     only; the aggregates' state layout does not change and neither do
 *     their ids, so a savepoint of the unpruned plan ('sluice.plan.prune'
 *     = 'false', the plan of the sluice before pruning) resumes into the
 *     pruned one with exactly the output of an uninterrupted run;
 *   - a regular join: pruning narrows the rows the join stores, so the
 *     join gets a new id and the savepoint of the unpruned plan is refused,
 *     naming the Join; the unpruned plan itself still resumes it.
 * Every job gives the same output pruned and unpruned.  Both backends.
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

#define OUT_CAP 16384

#define DDL                                                                                 \
	"CREATE TABLE t (k INT, pad STRING, v INT, ts TIMESTAMP(3), "                       \
	"  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'push');"     \
	"CREATE TABLE u (junk STRING, k INT, name STRING) WITH ('connector' = 'push');"     \
	"CREATE TABLE agg_out (k INT, n BIGINT, s INT, PRIMARY KEY (k) NOT ENFORCED) "      \
	"  WITH ('connector' = 'push');"                                                    \
	"CREATE TABLE win_out (k INT, ws TIMESTAMP(3), n BIGINT, mx INT) "                  \
	"  WITH ('connector' = 'push');"                                                    \
	"CREATE TABLE join_out (k INT, v INT, name STRING) WITH ('connector' = 'push');"

#define AGG_JOB                                                                             \
	"EXECUTE STATEMENT SET BEGIN "                                                      \
	"INSERT INTO agg_out SELECT k, COUNT(*), SUM(v) FROM t GROUP BY k; "                \
	"INSERT INTO win_out SELECT k, window_start, COUNT(*), MAX(v) FROM TABLE(TUMBLE(TABLE t, " \
	"  DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end; "   \
	"END"

#define JOIN_JOB "INSERT INTO join_out SELECT t.k, t.v, u.name FROM t JOIN u ON t.k = u.k"

#define ROW(k, v, s)                                                                        \
	"{\"k\": " #k ", \"pad\": \"xxxxxxxxxxxxxxxxxxxx\", \"v\": " #v                   \
	", \"ts\": \"2026-01-01 10:00:" #s "\"}\n"
#define UROW(k, n) "{\"junk\": \"yyyyyyyyyyyy\", \"k\": " #k ", \"name\": \"" n "\"}\n"

#define T1 ROW(1, 5, 01) ROW(2, 1, 02) ROW(1, 3, 04) ROW(3, 7, 09) ROW(2, 4, 12)
#define T2 ROW(1, 2, 13) ROW(3, 9, 15) ROW(2, 1, 16) ROW(1, 8, 18) ROW(2, 6, 25) ROW(3, 4, 31)
#define U1 UROW(1, "ann") UROW(2, "bob")
#define U2 UROW(3, "cy") UROW(1, "al")

static const char *g_backend = "hashmap";
static int g_join; /* the job reads u */

static void collect(void *ctx, const char *table, sl_rowkind kind, const char *json,
                    size_t len)
{
	static const char *const kinds[] = {"+I", "-U", "+U", "-D"};
	char *out = ctx;
	size_t n = strlen(out);
	int w = snprintf(out + n, OUT_CAP - n, "%s %s %.*s\n", table, kinds[kind], (int)len, json);
	assert_true(w > 0 && n + (size_t)w < OUT_CAP);
}

static sl_engine *start(const char *job, int prune)
{
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_set(e, "state.backend.type", g_backend), 0);
	assert_int_equal(sl_set(e, "sluice.plan.prune", prune ? "true" : "false"), 0);
	assert_int_equal(sl_exec(e, DDL), 0);
	int rc = sl_exec(e, job);
	if (rc)
		print_error("%s\n", sl_errmsg(e));
	assert_int_equal(rc, 0);
	return e;
}

static void push(sl_engine *e, const char *table, const char *rows, char *out)
{
	int rc = sl_push_json_lines(e, table, rows, strlen(rows));
	if (rc)
		print_error("%s\n", sl_errmsg(e));
	assert_int_equal(rc, 0);
	assert_true(sl_poll(e, collect, out) >= 0);
}

/* Part 1 (u then t), or part 2 (t then u); u only for the join. */
static void part(sl_engine *e, int n, char *out)
{
	if (n == 1) {
		if (g_join)
			push(e, "u", U1, out);
		push(e, "t", T1, out);
	} else {
		push(e, "t", T2, out);
		if (g_join)
			push(e, "u", U2, out);
	}
}

/* An uninterrupted run: part 1 into out1, part 2 into out2. */
static void reference(const char *job, int prune, char *out1, char *out2)
{
	sl_engine *e = start(job, prune);
	out1[0] = out2[0] = 0;
	part(e, 1, out1);
	part(e, 2, out2);
	sl_engine_close(e);
}

/* A snapshot after part 1 (free it). */
static void *snapshot(const char *job, int prune, size_t *len)
{
	sl_engine *e = start(job, prune);
	char *out = calloc(1, OUT_CAP);
	part(e, 1, out);
	void *snap;
	assert_int_equal(sl_snapshot(e, &snap, len), 0);
	sl_engine_close(e);
	free(out);
	return snap;
}

/* Restores snap into job and runs part 2 into out (or the error). */
static int resume(const char *job, int prune, const void *snap, size_t len, char *out)
{
	sl_engine *e = start(job, prune);
	out[0] = 0;
	int rc = sl_restore(e, snap, len);
	if (rc)
		snprintf(out, OUT_CAP, "%s", sl_errmsg(e));
	else
		part(e, 2, out);
	sl_engine_close(e);
	return rc;
}

static void check(const char *job, int refused)
{
	g_join = refused;
	char *a1 = calloc(1, OUT_CAP), *a2 = calloc(1, OUT_CAP);
	char *b1 = calloc(1, OUT_CAP), *b2 = calloc(1, OUT_CAP), *out = calloc(1, OUT_CAP);
	/* the same output pruned and unpruned */
	reference(job, 0, a1, a2);
	reference(job, 1, b1, b2);
	assert_true(a1[0] && a2[0]);
	assert_string_equal(a1, b1);
	assert_string_equal(a2, b2);
	size_t len;
	void *old = snapshot(job, 0, &len);
	/* the unpruned plan resumes its own savepoint */
	assert_int_equal(resume(job, 0, old, len, out), 0);
	assert_string_equal(out, a2);
	int rc = resume(job, 1, old, len, out);
	if (refused) {
		if (!rc || !strstr(out, "no longer has") || !strstr(out, "Join ("))
			print_error("%s (%s): %s\n", job, g_backend, rc ? out : "restored");
		assert_int_not_equal(rc, 0);
		assert_non_null(strstr(out, "no longer has"));
		assert_non_null(strstr(out, "Join ("));
	} else {
		if (rc || strcmp(out, a2))
			print_error("%s (%s): %s\n  got:\n%s  want:\n%s", job, g_backend,
			            rc ? "refused" : "other output", out, a2);
		assert_int_equal(rc, 0);
		assert_string_equal(out, a2);
	}
	/* and the pruned plan resumes its own */
	free(old);
	old = snapshot(job, 1, &len);
	assert_int_equal(resume(job, 1, old, len, out), 0);
	assert_string_equal(out, a2);
	free(old);
	free(a1), free(a2), free(b1), free(b2), free(out);
}

static void test_agg_hashmap(void **st)
{
	(void)st;
	g_backend = "hashmap";
	check(AGG_JOB, 0);
}

static void test_agg_rocksdb(void **st)
{
	(void)st;
	g_backend = "rocksdb";
	check(AGG_JOB, 0);
}

static void test_join_hashmap(void **st)
{
	(void)st;
	g_backend = "hashmap";
	check(JOIN_JOB, 1);
}

static void test_join_rocksdb(void **st)
{
	(void)st;
	g_backend = "rocksdb";
	check(JOIN_JOB, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agg_hashmap),
		cmocka_unit_test(test_agg_rocksdb),
		cmocka_unit_test(test_join_hashmap),
		cmocka_unit_test(test_join_rocksdb),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
