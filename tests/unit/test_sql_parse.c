/*
 * test_sql_parse.c - unit tests of the SQL front end (src/sql): statements,
 * types, queries and expressions are parsed and checked through the AST
 * printer and direct field checks; syntax errors check line, column and
 * message; fuzz-found inputs are named regression cases.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include "sluice.h"
#include "base/buf.h"
#include "sql/parser.h"

static sl_arena A;

static sl_ast_script *parse_ok(const char *sql)
{
	sl_ast_script *s = NULL;
	sl_err e;
	sl_err_clear(&e);
	int rc = sl_parse(&A, sql, &s, &e);
	if (rc)
		fail_msg("parse failed: %s", e.msg);
	return s;
}

/* Parses one statement and compares its printed form. */
static void check_stmt(const char *sql, const char *want)
{
	sl_ast_script *s = parse_ok(sql);
	sl_buf b;
	sl_buf_init(&b);
	assert_int_equal(s->nstmts, 1);
	assert_int_equal(sl_ast_print_stmt(&b, s->stmts[0]), 0);
	assert_string_equal(sl_buf_cstr(&b), want);
	sl_buf_deinit(&b);
}

static void check_expr(const char *sql, const char *want)
{
	sl_ast_expr *e = NULL;
	sl_err err;
	sl_err_clear(&err);
	if (sl_parse_expr(&A, sql, &e, &err))
		fail_msg("expr parse failed: %s", err.msg);
	sl_buf b;
	sl_buf_init(&b);
	sl_ast_print_expr(&b, e);
	assert_string_equal(sl_buf_cstr(&b), want);
	sl_buf_deinit(&b);
}

static void check_err(const char *sql, int code, int line, int col, const char *msg)
{
	sl_ast_script *s = NULL;
	sl_err e;
	sl_err_clear(&e);
	assert_int_equal(sl_parse(&A, sql, &s, &e), code);
	assert_null(s);
	assert_int_equal(e.line, line);
	assert_int_equal(e.col, col);
	assert_string_equal(e.msg, msg);
}

static void test_seed_pipeline(void **st)
{
	(void)st;
	sl_ast_script *s = parse_ok(
		"CREATE TABLE orders (\n"
		"  order_id BIGINT, user_id STRING, amount DECIMAL(10, 2),\n"
		"  event_time TIMESTAMP(3),\n"
		"  WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND\n"
		") WITH ('connector' = 'filesystem', 'path' = 'orders.json', 'format' = 'json');\n"
		"CREATE TABLE hourly_revenue (user_id STRING, window_start TIMESTAMP(3),\n"
		"  revenue DECIMAL(38, 2), PRIMARY KEY (user_id, window_start) NOT ENFORCED\n"
		") WITH ('connector' = 'print');\n"
		"INSERT INTO hourly_revenue SELECT user_id, TUMBLE_START(event_time, INTERVAL '1' HOUR) AS window_start,\n"
		"  SUM(amount) FROM orders GROUP BY user_id, TUMBLE(event_time, INTERVAL '1' HOUR);\n");
	assert_int_equal(s->nstmts, 3);
	const sl_ast_create_table *ct = &s->stmts[0]->u.create_table;
	assert_int_equal(s->stmts[0]->kind, SL_AS_CREATE_TABLE);
	assert_int_equal(ct->ncols, 4);
	assert_int_equal(ct->cols[2].type->sql.id, SL_T_DECIMAL);
	assert_int_equal(ct->cols[2].type->sql.precision, 10);
	assert_int_equal(ct->cols[2].type->sql.scale, 2);
	assert_int_equal(ct->cols[1].type->sql.length, SL_STRING_LEN);
	assert_int_equal(ct->cols[3].type->sql.precision, 3);
	assert_int_equal(ct->nwatermarks, 1);
	assert_int_equal(ct->watermarks[0].line, 4);
	assert_int_equal(ct->watermarks[0].col, 3);
	assert_int_equal(ct->noptions, 3);
	assert_string_equal(ct->options[1].value, "orders.json");
	const sl_ast_create_table *hr = &s->stmts[1]->u.create_table;
	assert_int_equal(hr->npk, 2);
	assert_int_equal(hr->pk_enforced, 0);
	assert_int_equal(s->stmts[2]->kind, SL_AS_INSERT);
	assert_int_equal(s->stmts[2]->line, 9);
	assert_true(strncmp(s->stmts[2]->text, "INSERT INTO hourly_revenue", 26) == 0);
	assert_int_equal(s->stmts[2]->text[s->stmts[2]->len - 1], ')');
	const sl_ast_select *sel = s->stmts[2]->u.insert.query->select;
	assert_int_equal(sel->ngroup, 2);
	assert_string_equal(sel->group[1]->u.call.fname, "TUMBLE");
}

static void test_types(void **st)
{
	(void)st;
	check_stmt("CREATE TABLE t (a INT NOT NULL, b VARCHAR, c CHAR, d DECIMAL, e TIMESTAMP, "
	           "f TIMESTAMP(3) WITH LOCAL TIME ZONE, g TIMESTAMP_LTZ(3), h DOUBLE PRECISION, "
	           "i ARRAY<INT>, j MAP<STRING, BIGINT>, k ROW<x INT, y STRING>, l BYTES, "
	           "m VARBINARY, n BINARY, o TIME, p CHARACTER VARYING, q TIMESTAMP_LTZ, "
	           "r VARCHAR(5)) WITH ()",
	           "(CREATE TABLE t (a INT NOT NULL) (b STRING) (c CHAR(1)) (d DECIMAL(10, 0)) "
	           "(e TIMESTAMP(6)) (f TIMESTAMP_LTZ(3)) (g TIMESTAMP_LTZ(3)) (h DOUBLE) "
	           "(i ARRAY<INT>) (j MAP<STRING, BIGINT>) (k ROW<`x` INT, `y` STRING>) (l BYTES) "
	           "(m BYTES) (n BINARY(1)) (o TIME(0)) (p STRING) (q TIMESTAMP_LTZ(6)) "
	           "(r VARCHAR(5)))");
}

static void test_exprs(void **st)
{
	(void)st;
	check_expr("a + b * c - -d", "(- (+ a (* b c)) (NEG d))");
	check_expr("NOT a = 1 OR b AND c", "(OR (NOT (= a 1)) (AND b c))");
	check_expr("EXTRACT(HOUR FROM ts)", "(EXTRACT HOUR ts)");
	check_expr("FLOOR(ts TO MINUTE)", "(FLOOR ts MINUTE)");
	check_expr("TRIM(LEADING 'x' FROM s)", "(TRIM LEADING 'x' s)");
	check_expr("TRIM(s)", "(TRIM BOTH ' ' s)");
	check_expr("SUBSTRING(s FROM 2 FOR 3)", "(SUBSTRING s 2 3)");
	check_expr("POSITION('a' IN s)", "(POSITION 'a' s)");
	check_expr("CASE WHEN a THEN 1 ELSE 2 END", "(CASE (WHEN a 1) (ELSE 2))");
	check_expr("CAST(x AS DECIMAL(5, 1))", "(CAST x DECIMAL(5, 1))");
	check_expr("x NOT IN (1, 2)", "(NOT IN x 1 2)");
	check_expr("s LIKE 'a%' ESCAPE '!'", "(LIKE s 'a%' ESCAPE '!')");
	check_expr("a IS DISTINCT FROM b", "(IS DISTINCT a b)");
	check_expr("'it''s' || `Col`", "(|| 'it's' `Col`)");
	check_expr("INTERVAL '1:30' HOUR TO MINUTE", "INTERVAL '1:30' HOUR TO MINUTE");
	check_expr("TIMESTAMPDIFF(SECOND, a, b)", "(TIMESTAMPDIFF SECOND a b)");
	check_expr("CURRENT_TIMESTAMP", "(CURRENT_TIMESTAMP)");
	check_expr("LEFT(s, 2)", "(LEFT s 2)");
	check_expr("COUNT(*)", "(COUNT *)");
	check_expr("m['k'].f", "(FIELD (ITEM m 'k') f)");
	check_expr("TIMESTAMP '2020-01-01 00:00:00'", "TIMESTAMP '2020-01-01 00:00:00'");
	check_expr("SUM(x) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW)",
	           "(SUM x (OVER (PARTITION k) (ORDER ts) (RANGE INTERVAL '1' HOUR PRECEDING AND CURRENT ROW)))");
}

static void test_queries(void **st)
{
	(void)st;
	check_stmt("SELECT * FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' MINUTES))",
	           "(SELECT * (FROM (TABLE_FN (SESSION (TABLE t PARTITION BY k) (DESCRIPTOR ts) INTERVAL '5' MINUTE))))");
	check_stmt("SELECT a FROM TABLE(TUMBLE(DATA => TABLE t, TIMECOL => DESCRIPTOR(ts), SIZE => INTERVAL '1' HOUR))",
	           "(SELECT a (FROM (TABLE_FN (TUMBLE DATA => (TABLE t) TIMECOL => (DESCRIPTOR ts) SIZE => INTERVAL '1' HOUR))))");
	check_stmt("WITH a AS (SELECT 1) SELECT x FROM a UNION ALL SELECT y FROM b",
	           "(QUERY (WITH a (SELECT 1)) (UNION ALL (SELECT x (FROM (TABLE a))) (SELECT y (FROM (TABLE b)))))");
	check_stmt("SELECT t.* FROM s /*+ OPTIONS('k'='v') */ AS t, LATERAL TABLE(f(x)) CROSS JOIN u",
	           "(SELECT t.* (FROM (COMMA (TABLE s (HINT OPTIONS 'k'='v') AS t) (CROSS JOIN (LATERAL TABLE_FN (F x)) (TABLE u)))))");
	check_stmt("SELECT k FROM t GROUP BY k ON LATE DROP ALLOWED LATENESS INTERVAL '1' MINUTE",
	           "(SELECT k (FROM (TABLE t)) (GROUP k) (ALLOWED LATENESS INTERVAL '1' MINUTE) (ON LATE DROP))");
}

static void test_statements(void **st)
{
	(void)st;
	sl_ast_script *s = parse_ok("SET 'a.b' = 'c'; SET table.exec.mini-batch.enabled = true; RESET;"
	                            "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; INSERT INTO b SELECT 2; END;"
	                            "BEGIN STATEMENT SET; INSERT INTO a SELECT 1; END;"
	                            "EXPLAIN PLAN FOR SELECT 1; DROP TABLE IF EXISTS x; CREATE TEMPORARY VIEW v AS SELECT 1;");
	assert_int_equal(s->nstmts, 8);
	assert_string_equal(s->stmts[1]->u.set.option->key, "table.exec.mini-batch.enabled");
	assert_string_equal(s->stmts[1]->u.set.option->value, "true");
	assert_null(s->stmts[2]->u.set.option);
	assert_int_equal(s->stmts[3]->u.set_block.nstmts, 2);
	assert_int_equal(s->stmts[4]->kind, SL_AS_STATEMENT_SET);
	assert_int_equal(s->stmts[5]->kind, SL_AS_EXPLAIN);
	assert_int_equal(s->stmts[6]->u.drop.if_exists, 1);
	assert_int_equal(s->stmts[7]->u.create_view.temporary, 1);
	check_stmt("INSERT INTO t /*+ UID('x') */ (a, b) SELECT 1, 2",
	           "(INSERT t (HINT UID 'x') (a b) (SELECT 1 2))");
}

static void test_errors(void **st)
{
	(void)st;
	check_err("SELECT a\nFROM WHERE", SL_ESYNTAX, 2, 6,
	          "line 2, column 6: expected table name, subquery or TABLE(...), found 'WHERE'");
	check_err("SELECT 1 +", SL_ESYNTAX, 1, 11, "line 1, column 11: expected expression, found end of input");
	check_err("CREATE TABLE t (a INT", SL_ESYNTAX, 1, 22, "line 1, column 22: expected ')', found end of input");
	check_err("SELECT 'abc", SL_ESYNTAX, 1, 8, "line 1, column 8: unterminated string literal");
	check_err("INSERT OVERWRITE t SELECT 1", SL_ENOTSUP, 1, 8,
	          "line 1, column 8: INSERT OVERWRITE is not supported in streaming mode (as in Flink; "
	          "sluice runs every job in streaming mode): use INSERT INTO");
	check_err("SELECT k FROM t GROUP BY k ON LATE DROP ON LATE DROP", SL_ESYNTAX, 1, 41,
	          "line 1, column 41: ON LATE given twice");
}

static void test_deep_nesting(void **st)
{
	(void)st;
	char buf[2200];
	memset(buf, '(', 1000);
	strcpy(buf + 1000, "1");
	sl_ast_expr *e;
	sl_err err;
	sl_err_clear(&err);
	assert_int_equal(sl_parse_expr(&A, buf, &e, &err), SL_ESYNTAX);
	assert_non_null(strstr(err.msg, "nested too deeply"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_pipeline), cmocka_unit_test(test_types),
		cmocka_unit_test(test_exprs), cmocka_unit_test(test_queries),
		cmocka_unit_test(test_statements), cmocka_unit_test(test_errors),
		cmocka_unit_test(test_deep_nesting),
	};
	sl_arena_init(&A, 0);
	int rc = cmocka_run_group_tests_name("sql_parse", tests, NULL, NULL);
	sl_arena_deinit(&A);
	return rc;
}
