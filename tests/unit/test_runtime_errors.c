/*
 * test_runtime_errors.c - run-time errors name the SQL position of the
 * expression and the source row (issue 8), through the public API with
 * sources that the slt runner cannot drive: a filesystem source (file and
 * line) and the datagen generator (its row number), in a projection, a
 * WHERE clause, a Calc behind another Calc, the residual conditions of
 * joins and HAVING.  Push sources are covered by tests/slt/errors.slt.
 * At parallelism 1: above it, an error raised after an exchange names the
 * SQL position only (docs/parallel.md §10); tests/unit/test_prun.c checks
 * the source position of an error raised in the scan's own chain there.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sluice.h"

static char g_path[64];

/* Runs script (a job over bounded sources) to its end; returns the error
 * message (static copy), "" when it succeeded. */
static const char *run_job(const char *script)
{
	static char msg[2048];
	sl_engine *e = NULL;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_set(e, "parallelism.default", "1"), 0);
	int rc = sl_exec(e, script);
	if (!rc)
		rc = sl_run(e);
	snprintf(msg, sizeof(msg), "%s", rc ? sl_errmsg(e) : "");
	sl_engine_close(e);
	return msg;
}

static void expect_msg(const char *script, const char *want)
{
	const char *got = run_job(script);
	if (!strstr(got, want))
		fail_msg("message '%s' does not contain '%s'", got, want);
}

static void test_file_source(void **st)
{
	(void)st;
	char sql[1024], want[256];
	/* a cast that fails on the second line, in a projection */
	snprintf(sql, sizeof(sql),
	         "CREATE TABLE t (k STRING, v STRING) WITH ('connector' = 'filesystem', "
	         "'path' = '%s', 'format' = 'json');\n"
	         "CREATE TABLE o (k STRING, n INT) WITH ('connector' = 'blackhole');\n"
	         "INSERT INTO o SELECT k,\n  CAST(v AS INT) FROM t", g_path);
	snprintf(want, sizeof(want),
	         "line 4, column 3: cannot cast 'ab' to INT (source 't', file '%s', line 2)", g_path);
	expect_msg(sql, want);
	/* a division by zero in WHERE, behind a Calc of a view */
	snprintf(sql, sizeof(sql),
	         "CREATE TABLE t (k STRING, v STRING) WITH ('connector' = 'filesystem', "
	         "'path' = '%s', 'format' = 'json');\n"
	         "CREATE VIEW w AS SELECT k, CHAR_LENGTH(v) - 2 AS n FROM t;\n"
	         "CREATE TABLE o (k STRING) WITH ('connector' = 'blackhole');\n"
	         "INSERT INTO o SELECT k FROM w WHERE 6 / n > 0", g_path);
	snprintf(want, sizeof(want),
	         "line 4, column 37: division by zero in '/' (source 't', file '%s', line 2)", g_path);
	expect_msg(sql, want);
}

static void test_datagen_source(void **st)
{
	(void)st;
	expect_msg("CREATE TABLE g (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '20', "
	           "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '20');\n"
	           "CREATE TABLE o (x INT) WITH ('connector' = 'blackhole');\n"
	           "INSERT INTO o SELECT 10 / (id - 5) FROM g",
	           "line 3, column 22: division by zero in '/' (source 'g', generated row 5)");
}

/* The same file read as t (and as d, u): the failing row is line 2 on
 * either side of a join, so the message names it whichever input's row
 * arrives second.  Each fails on CHAR_LENGTH('ab') - 2 = 0 (in joins, with
 * CHAR_LENGTH('b') - 1 of the other side: a condition over both sides, so
 * not pushed below the join). */
static void expect_line2(const char *query, int line, int col)
{
	char sql[2048], want[256];
	snprintf(sql, sizeof(sql),
	         "CREATE TABLE t (k STRING, v STRING, pt AS PROCTIME(), "
	         "ts AS TO_TIMESTAMP('2026-01-01 00:00:00'), WATERMARK FOR ts AS ts) WITH "
	         "('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');\n"
	         "CREATE TABLE d (k STRING, v STRING) WITH ('connector' = 'filesystem', "
	         "'path' = '%s', 'format' = 'json');\n"
	         "CREATE TABLE o (k STRING) WITH ('connector' = 'blackhole');\n"
	         "%s", g_path, g_path, query);
	snprintf(want, sizeof(want), "line %d, column %d: division by zero in '/' (source '", line,
	         col);
	const char *got = run_job(sql);
	char where[256];
	snprintf(where, sizeof(where), "', file '%s', line 2)", g_path);
	if (!strstr(got, want) || !strstr(got, where))
		fail_msg("message '%s' does not name the SQL position (%s) and the row (%s)", got, want,
		         where);
}

/* Conditions over the output of stateful operators: the residual of a
 * regular, interval, semi and lookup join, HAVING after a GROUP BY, a
 * filter after a deduplication and after a Top-N. */
static void test_join_and_having(void **st)
{
	(void)st;
	expect_line2("INSERT INTO o SELECT t.k FROM t JOIN t AS u ON t.k = u.k\n"
	             "  AND 6 / (CHAR_LENGTH(u.v) - CHAR_LENGTH(t.k) - 1) > 0", 5, 7);
	expect_line2("INSERT INTO o SELECT t.k FROM t LEFT JOIN t AS u ON t.k = u.k\n"
	             "  AND 6 / (CHAR_LENGTH(u.v) - CHAR_LENGTH(t.k) - 1) > 0", 5, 7);
	expect_line2("INSERT INTO o SELECT t.k FROM t, t AS u WHERE t.k = u.k\n"
	             "  AND t.ts BETWEEN u.ts - INTERVAL '1' HOUR AND u.ts\n"
	             "  AND 6 / (CHAR_LENGTH(u.v) - CHAR_LENGTH(t.k) - 1) > 0", 6, 7);
	expect_line2("INSERT INTO o SELECT k FROM t WHERE EXISTS (SELECT 1 FROM t AS u\n"
	             "  WHERE u.k = t.k AND 6 / (CHAR_LENGTH(u.v) - CHAR_LENGTH(t.k) - 1) > 0)", 5, 23);
	expect_line2("INSERT INTO o SELECT t.k FROM t JOIN d FOR SYSTEM_TIME AS OF t.pt\n"
	             "  ON t.k = d.k AND 6 / (CHAR_LENGTH(d.v) - CHAR_LENGTH(t.k) - 1) > 0", 5, 20);
	expect_line2("INSERT INTO o SELECT k FROM t GROUP BY k\n"
	             "  HAVING 6 / (MIN(CHAR_LENGTH(v)) - 2) > 0", 5, 10);
	/* a condition on the rows of a deduplication and of a Top-N */
	expect_line2("INSERT INTO o SELECT k FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k\n"
	             "  ORDER BY pt DESC) AS rn FROM t) WHERE rn = 1 AND 6 / (CHAR_LENGTH(v) - 2) > 0",
	             5, 52);
	expect_line2("INSERT INTO o SELECT k FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k\n"
	             "  ORDER BY v DESC) AS rn FROM t) WHERE rn <= 2 AND 6 / (CHAR_LENGTH(v) - 2) > 0",
	             5, 52);
}

static int setup(void **st)
{
	(void)st;
	snprintf(g_path, sizeof(g_path), "/tmp/sl-rterr-%d.jsonl", (int)getpid());
	FILE *f = fopen(g_path, "w");
	if (!f)
		return -1;
	/* line 2: CHAR_LENGTH('ab') - 2 = 0; line 3: not an INT */
	fputs("{\"k\": \"a\", \"v\": \"1\"}\n{\"k\": \"b\", \"v\": \"ab\"}\n"
	      "{\"k\": \"c\", \"v\": \"x3\"}\n", f);
	fclose(f);
	return 0;
}

static int teardown(void **st)
{
	(void)st;
	unlink(g_path);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_source),
		cmocka_unit_test(test_datagen_source),
		cmocka_unit_test(test_join_and_having),
	};
	return cmocka_run_group_tests_name("runtime_errors", tests, setup, teardown);
}
