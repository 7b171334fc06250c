/*
 * test_sql_limits.c - no SQL text crashes the process (issue 8): generated
 * statements with very long operator chains and deep nesting either run
 * and give the right answer or fail with the documented limit's error
 * (docs/sql.md, "Limits"), through the whole pipeline (parse, bind, type,
 * compile, EXPLAIN, run) of the public API.
 *
 * Cases: WHERE with 50 000 ORed and 100 000 ANDed comparisons (parsed
 * and printed; 3 000-term chains run: the right rows pass), 999 concatenations and additions (run) and one more
 * than the limit (error), CASE and function calls nested 90 deep (run)
 * and past the parser's depth limit (error), 1001 UNION ALLs and JOINs, views nested 300 deep.
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
#include "base/buf.h"
#include "sql/parser.h"

static sl_engine *open_engine(void)
{
	sl_engine *e = NULL;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, "CREATE TABLE t (k STRING, v INT) WITH ('connector' = 'push')"), 0);
	return e;
}

typedef struct rows {
	int n;
	size_t len;      /* of the last row's JSON */
	char last[256];  /* its first 255 bytes */
} rows;

static void collect(void *ctx, const char *table, sl_rowkind kind, const char *json, size_t len)
{
	rows *r = ctx;
	(void)table, (void)kind;
	r->n++;
	r->len = len;
	snprintf(r->last, sizeof(r->last), "%.*s", (int)(len < 255 ? len : 255), json);
}

/* Runs `sql` as a job, pushes `input` (JSON lines), returns the rows. */
static rows run(const char *sql, const char *input)
{
	sl_engine *e = open_engine();
	rows r = {0};
	if (sl_exec(e, sql))
		fail_msg("sl_exec failed: %s", sl_errmsg(e));
	assert_int_equal(sl_push_json_lines(e, "t", input, strlen(input)), 0);
	assert_int_equal(sl_push_end(e, "t"), 0);
	sl_poll(e, collect, &r);
	sl_engine_close(e);
	return r;
}

/* sl_exec(sql) must fail with a message containing want. */
static void refused(const char *sql, const char *want)
{
	sl_engine *e = open_engine();
	assert_int_not_equal(sl_exec(e, sql), 0);
	if (!strstr(sl_errmsg(e), want))
		fail_msg("message '%s' does not contain '%s'", sl_errmsg(e), want);
	sl_engine_close(e);
}

/* "SELECT <head>" then n items joined by sep (printf with the index). */
static char *chain(const char *head, const char *item, const char *sep, int n, const char *tail)
{
	sl_buf b;
	sl_buf_init(&b);
	sl_buf_puts(&b, head);
	for (int i = 0; i < n; i++) {
		if (i)
			sl_buf_puts(&b, sep);
		sl_buf_printf(&b, item, i);
	}
	sl_buf_puts(&b, tail);
	sl_buf_cstr(&b);
	return b.p;
}

/* Parses sql and prints its AST (a recursive pass over every node). */
static void parse_and_print(const char *sql)
{
	sl_arena a;
	sl_ast_script *sc = NULL;
	sl_err err;
	sl_buf b;
	sl_arena_init(&a, 0);
	sl_err_clear(&err);
	if (sl_parse(&a, sql, &sc, &err))
		fail_msg("parse failed: %s", err.msg);
	sl_buf_init(&b);
	assert_int_equal(sl_ast_print_stmt(&b, sc->stmts[0]), 0);
	assert_true(b.len > strlen(sql) / 2);
	sl_buf_deinit(&b);
	sl_arena_deinit(&a);
}

/*
 * 50 000 ORs and 100 000 ANDs parse into balanced trees (the AST printer
 * recurses over them).  The whole pipeline runs on 3 000-term chains:
 * every node of a compiled expression owns a batch-sized vector (about
 * 9 KB at 1024 rows), so 100 000 terms take some GB (docs/sql.md, "Limits").
 */
static void test_or_chain(void **st)
{
	(void)st;
	char *sql = chain("SELECT k FROM t WHERE ", "v = %d", " OR ", 50000, "");
	parse_and_print(sql);
	free(sql);
	/* v = 0 OR v = 1 ... OR v = 2999: v = 2999 and 7 pass, -5 does not */
	sql = chain("SELECT k FROM t WHERE ", "v = %d", " OR ", 3000, "");
	rows r = run(sql, "{\"k\":\"a\",\"v\":2999}\n{\"k\":\"b\",\"v\":-5}\n{\"k\":\"c\",\"v\":7}\n");
	assert_int_equal(r.n, 2);
	sl_engine *e = open_engine();
	const char *text;
	assert_int_equal(sl_explain(e, sql, &text), 0);   /* EXPLAIN formats it */
	assert_non_null(strstr(text, "(v = 0)"));
	sl_engine_close(e);
	free(sql);
}

static void test_and_chain(void **st)
{
	(void)st;
	char *sql = chain("SELECT k FROM t WHERE ", "v <> %d", " AND ", 100000, "");
	parse_and_print(sql);
	free(sql);
	/* v <> 0 AND ... AND v <> 2999: only values outside pass */
	sql = chain("SELECT k FROM t WHERE ", "v <> %d", " AND ", 3000, "");
	rows r = run(sql, "{\"k\":\"a\",\"v\":3000}\n{\"k\":\"b\",\"v\":2999}\n{\"k\":\"c\",\"v\":0}\n");
	assert_int_equal(r.n, 1);
	assert_non_null(strstr(r.last, "\"a\""));
	free(sql);
}

static void test_concat_chain(void **st)
{
	(void)st;
	/* 999 operands: 998 '||' (height 999 with the leaves) runs */
	char *sql = chain("SELECT ", "k", " || ", 999, " AS s FROM t");
	rows r = run(sql, "{\"k\":\"ab\",\"v\":1}\n");
	assert_int_equal(r.n, 1);
	assert_int_equal((int)r.len, 2 * 999 + 8); /* {"s":"abab..."} */
	free(sql);
	sql = chain("SELECT ", "k", " || ", 5000, " FROM t");
	refused(sql, "expression too deeply nested (more than 1000 levels");
	free(sql);
}

static void test_plus_chain(void **st)
{
	(void)st;
	char *sql = chain("SELECT ", "v", " + ", 999, " AS s FROM t");
	rows r = run(sql, "{\"k\":\"a\",\"v\":2}\n");
	assert_int_equal(r.n, 1);
	assert_string_equal(r.last, "{\"s\":1998}");
	free(sql);
	sql = chain("SELECT ", "v", " + ", 1002, " FROM t");
	refused(sql, "line 1, column 8: expression too deeply nested");
	free(sql);
	/* a chain inside parentheses inside a chain counts in full */
	sql = chain("SELECT (", "v", " * ", 600, ") - ");
	char *sql2 = chain(sql, "v", " - ", 600, " FROM t");
	refused(sql2, "expression too deeply nested");
	free(sql);
	free(sql2);
}

static void test_nested_case_and_calls(void **st)
{
	(void)st;
	sl_buf b;
	/* CASE nested 90 deep (two levels of the grammar each): under the
	 * parser's depth limit, runs */
	sl_buf_init(&b);
	sl_buf_puts(&b, "SELECT ");
	for (int i = 0; i < 90; i++)
		sl_buf_printf(&b, "CASE WHEN v = %d THEN 'x%d' ELSE ", i, i);
	sl_buf_puts(&b, "'none'");
	for (int i = 0; i < 90; i++)
		sl_buf_puts(&b, " END");
	sl_buf_puts(&b, " AS c FROM t");
	rows r = run(sl_buf_cstr(&b), "{\"k\":\"a\",\"v\":89}\n");
	assert_string_equal(r.last, "{\"c\":\"x89\"}");
	sl_buf_deinit(&b);
	/* nested 5000 deep: the parser's depth limit, an error */
	sl_buf_init(&b);
	sl_buf_puts(&b, "SELECT ");
	for (int i = 0; i < 5000; i++)
		sl_buf_puts(&b, "CASE WHEN v = 1 THEN 'a' ELSE ");
	sl_buf_puts(&b, "'b' FROM t");
	refused(sl_buf_cstr(&b), "nested too deeply (limit 200)");
	sl_buf_deinit(&b);
	/* function calls nested 90 deep run; 100 000 deep is an error */
	sl_buf_init(&b);
	sl_buf_puts(&b, "SELECT ");
	for (int i = 0; i < 90; i++)
		sl_buf_puts(&b, "UPPER(");
	sl_buf_puts(&b, "k");
	for (int i = 0; i < 90; i++)
		sl_buf_puts(&b, ")");
	sl_buf_puts(&b, " AS u FROM t");
	r = run(sl_buf_cstr(&b), "{\"k\":\"ab\",\"v\":1}\n");
	assert_string_equal(r.last, "{\"u\":\"AB\"}");
	sl_buf_deinit(&b);
	sl_buf_init(&b);
	sl_buf_puts(&b, "SELECT ");
	for (int i = 0; i < 100000; i++)
		sl_buf_puts(&b, "ABS(");
	refused(sl_buf_cstr(&b), "nested too deeply (limit 200)");
	sl_buf_deinit(&b);
}

static void test_links_and_views(void **st)
{
	(void)st;
	char *sql = chain("", "SELECT k FROM t", " UNION ALL ", 1002, "");
	refused(sql, "too many JOINs and set operations (UNION, INTERSECT, EXCEPT) in one statement "
	             "(limit 1000)");
	free(sql);
	sql = chain("SELECT t.k FROM t", " JOIN t AS t%d ON t.k = t.k", "", 1002, "");
	refused(sql, "too many JOINs and set operations");
	free(sql);
	sl_engine *e = open_engine();
	sl_buf b;
	sl_buf_init(&b);
	sl_buf_puts(&b, "CREATE VIEW v0 AS SELECT k, v FROM t;\n");
	for (int i = 1; i < 300; i++)
		sl_buf_printf(&b, "CREATE VIEW v%d AS SELECT k, v FROM v%d;\n", i, i - 1);
	assert_int_equal(sl_exec(e, sl_buf_cstr(&b)), 0);
	assert_int_not_equal(sl_exec(e, "SELECT * FROM v299"), 0);
	assert_non_null(strstr(sl_errmsg(e), "views nested too deeply"));
	sl_buf_deinit(&b);
	sl_engine_close(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_or_chain),
		cmocka_unit_test(test_and_chain),
		cmocka_unit_test(test_concat_chain),
		cmocka_unit_test(test_plus_chain),
		cmocka_unit_test(test_nested_case_and_calls),
		cmocka_unit_test(test_links_and_views),
	};
	return cmocka_run_group_tests_name("sql_limits", tests, NULL, NULL);
}
