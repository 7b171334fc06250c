/*
 * test_errpos.c - the SQL position of an error as fields of the public API
 * (sl_errpos, issue 9): syntax errors of the tokenizer and the parser,
 * planning errors of the catalog and the binder, run-time errors of
 * expressions (a failing CAST, an aggregate's overflow) reported by
 * sl_push_json, and errors that have no place.  The position agrees with
 * the "line L, column C: " that starts the message; a later successful
 * call clears it.  And the input place of an error about one input row
 * (sl_errinput): a record that does not decode and a run-time error, in
 * a file and in text pushed with sl_push_json_lines; none for generated
 * rows.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sluice.h"

/* Asserts that the last call failed at (line, col) and that the message
 * starts with that place and contains `what`. */
static void expect_pos(sl_engine *e, int line, int col, const char *what)
{
	int l = -1, c = -1;
	const char *msg = sl_errmsg(e);
	if (!sl_errpos(e, &l, &c) || l != line || c != col)
		fail_msg("'%s': position %d:%d, want %d:%d", msg, l, c, line, col);
	char pre[64];
	snprintf(pre, sizeof(pre), "line %d, column %d: ", line, col);
	if (strncmp(msg, pre, strlen(pre)) || !strstr(msg, what))
		fail_msg("message '%s' does not start with '%s' or lacks '%s'", msg, pre, what);
}

static void expect_no_pos(sl_engine *e)
{
	int l = -1, c = -1;
	assert_int_equal(sl_errpos(e, &l, &c), 0);
	assert_int_equal(l, 0);
	assert_int_equal(c, 0);
}

static void test_syntax_errors(void **st)
{
	(void)st;
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	/* the parser: a token where an expression should be */
	assert_int_equal(sl_exec(e, "SELECT a,\n  b FROM t\n  WHERE = 3"), SL_ESYNTAX);
	expect_pos(e, 3, 9, "expected");
	/* the tokenizer: a string that never ends; the column counts characters */
	assert_int_equal(sl_exec(e, "SELECT 1;\nSELECT 'é', 'oops"), SL_ESYNTAX);
	expect_pos(e, 2, 13, "unterminated");
	/* a construct sluice refuses, at its first word */
	assert_int_equal(sl_exec(e, "SELECT * FROM t\nTABLESAMPLE BERNOULLI(10)"), SL_ENOTSUP);
	expect_pos(e, 2, 1, "not supported");
	/* MATCH_RECOGNIZE syntax Flink lacks too, at its token */
	assert_int_equal(sl_exec(e, "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts\n"
	                            "PATTERN (A (B C)+) DEFINE A AS TRUE)"), SL_ENOTSUP);
	expect_pos(e, 2, 12, "not supported");
	/* NULL pointers are allowed */
	assert_int_equal(sl_errpos(e, NULL, NULL), 1);
	sl_engine_close(e);
}

static void test_planning_errors(void **st)
{
	(void)st;
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, "CREATE TABLE t (a INT, a STRING) WITH ('connector' = 'push')"),
	                 SL_EPLAN);
	expect_pos(e, 1, 24, "duplicate column 'a'");
	assert_int_equal(sl_exec(e, "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'push')"), 0);
	expect_no_pos(e); /* a success clears the place */
	assert_int_equal(sl_exec(e, "CREATE TABLE o (a INT) WITH ('connector' = 'push');\n"
	                            "INSERT INTO o\n"
	                            "SELECT nope FROM t"),
	                 SL_EPLAN);
	expect_pos(e, 3, 8, "nope");
	sl_engine_close(e);
}

static void test_runtime_errors(void **st)
{
	(void)st;
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, "CREATE TABLE t (s STRING) WITH ('connector' = 'push');\n"
	                            "CREATE TABLE o (n INT) WITH ('connector' = 'push');\n"
	                            "INSERT INTO o SELECT\n"
	                            "    CAST(s AS INT) FROM t"),
	                 0);
	assert_int_equal(sl_push_json(e, "t", "{\"s\": \"12\"}", 11), 0);
	expect_no_pos(e);
	const char *bad = "{\"s\": \"ab\"}";
	assert_int_equal(sl_push_json(e, "t", bad, strlen(bad)), SL_ERUNTIME);
	expect_pos(e, 4, 5, "cannot cast 'ab' to INT");
	sl_engine_close(e);

	/* an aggregate's overflow names the aggregate call (exec/agg.c) */
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, "CREATE TABLE t (k INT, v DECIMAL(38, 0)) WITH ('connector' = 'push');\n"
	                            "CREATE TABLE o (k INT, s DECIMAL(38, 0)) WITH ('connector' = 'push');\n"
	                            "INSERT INTO o SELECT k, SUM(v) FROM t GROUP BY k"),
	                 0);
	const char *big = "{\"k\": 1, \"v\": 90000000000000000000000000000000000000}";
	assert_int_equal(sl_push_json(e, "t", big, strlen(big)), 0);
	int rc = sl_push_json(e, "t", big, strlen(big));
	assert_int_equal(rc, SL_ERUNTIME);
	expect_pos(e, 3, 25, "overflow");
	sl_engine_close(e);
}

static void test_errors_without_place(void **st)
{
	(void)st;
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	expect_no_pos(e); /* nothing failed yet */
	assert_int_not_equal(sl_push_json(e, "nope", "{}", 2), 0);
	expect_no_pos(e);
	/* after a SQL error, an error without a place clears the old place */
	assert_int_equal(sl_exec(e, "SELECT FROM"), SL_ESYNTAX);
	assert_int_equal(sl_errpos(e, NULL, NULL), 1);
	assert_int_equal(sl_run(e), 0);
	assert_int_not_equal(sl_push_json(e, "nope", "{}", 2), 0);
	expect_no_pos(e);
	sl_engine_close(e);
	/* no engine: no place */
	assert_int_equal(sl_errpos(NULL, NULL, NULL), 0);
}

/* Asserts the input place of the last error (file NULL: none). */
static void expect_input(sl_engine *e, const char *file, long long line)
{
	const char *f = (const char *)1;
	long long l = -1;
	int has = sl_errinput(e, &f, &l);
	if (!file) {
		if (has || f || l)
			fail_msg("'%s': input place %s:%lld, want none", sl_errmsg(e), f ? f : "NULL", l);
		return;
	}
	if (!has || !f || strcmp(f, file) || l != line)
		fail_msg("'%s': input place %s:%lld, want %s:%lld", sl_errmsg(e), f ? f : "NULL", l,
		         file, line);
}

static void test_input_places(void **st)
{
	(void)st;
	sl_engine *e;
	/* pushed text: lines count from the start of the call's text */
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, "CREATE TABLE t (s STRING) WITH ('connector' = 'push');\n"
	                            "CREATE TABLE o (n INT) WITH ('connector' = 'push');\n"
	                            "INSERT INTO o SELECT CAST(s AS INT) FROM t"),
	                 0);
	const char *bad_rec = "{\"s\": \"1\"}\n\n{\"s\": \"2\"}\n{\"s\": }\n";
	assert_int_equal(sl_push_json_lines(e, "t", bad_rec, strlen(bad_rec)), SL_EINPUT);
	expect_input(e, "", 4);
	expect_no_pos(e);
	sl_engine_close(e); /* a failed push stops the job */
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, "CREATE TABLE t (s STRING) WITH ('connector' = 'push');\n"
	                            "CREATE TABLE o (n INT) WITH ('connector' = 'push');\n"
	                            "INSERT INTO o SELECT CAST(s AS INT) FROM t"),
	                 0);
	const char *good = "{\"s\": \"3\"}";
	assert_int_equal(sl_push_json_lines(e, "t", good, strlen(good)), 0);
	expect_input(e, NULL, 0);
	const char *bad_val = "{\"s\": \"1\"}\n{\"s\": \"x\"}\n";
	assert_int_equal(sl_push_json_lines(e, "t", bad_val, strlen(bad_val)), SL_ERUNTIME);
	expect_input(e, "", 2);
	expect_pos(e, 3, 22, "cannot cast 'x' to INT");
	assert_int_equal(sl_errinput(e, NULL, NULL), 1);
	sl_engine_close(e);

	/* a file: its path and line, for a bad record and for a bad value */
	char path[64], sql[1024];
	snprintf(path, sizeof(path), "/tmp/sl-errpos-%d.jsonl", (int)getpid());
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"s\": \"1\"}\n{\"s\": \"y\"}\n", f);
	fclose(f);
	snprintf(sql, sizeof(sql),
	         "CREATE TABLE t (s STRING) WITH ('connector' = 'filesystem', 'path' = '%s', "
	         "'format' = 'json');\n"
	         "CREATE TABLE o (n INT) WITH ('connector' = 'blackhole');\n"
	         "INSERT INTO o SELECT CAST(s AS INT) FROM t", path);
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, sql), 0);
	assert_int_equal(sl_run(e), SL_ERUNTIME);
	expect_input(e, path, 2);
	sl_engine_close(e);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"s\": \"1\"}\n{\"s\": \"2\"}\n{\"s\" \"3\"}\n", f);
	fclose(f);
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, sql), 0);
	assert_int_equal(sl_run(e), SL_EINPUT);
	expect_input(e, path, 3);
	sl_engine_close(e);
	unlink(path);

	/* generated rows have no input place (the message names the row) */
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, "CREATE TABLE g (id INT) WITH ('connector' = 'datagen', "
	                            "'number-of-rows' = '5', 'fields.id.kind' = 'sequence', "
	                            "'fields.id.start' = '1', 'fields.id.end' = '5');\n"
	                            "CREATE TABLE o (x INT) WITH ('connector' = 'blackhole');\n"
	                            "INSERT INTO o SELECT 10 / (id - 3) FROM g"),
	                 0);
	assert_int_equal(sl_run(e), SL_ERUNTIME);
	expect_input(e, NULL, 0);
	expect_pos(e, 3, 22, "division by zero");
	sl_engine_close(e);
	assert_int_equal(sl_errinput(NULL, NULL, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_planning_errors),
		cmocka_unit_test(test_runtime_errors),
		cmocka_unit_test(test_errors_without_place),
		cmocka_unit_test(test_input_places),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
