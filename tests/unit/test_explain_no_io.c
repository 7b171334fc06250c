/*
 * test_explain_no_io.c - planning touches nothing on disk (issue 9): the
 * planner only configures connectors (conn.h), the runtime opens them when
 * the job starts.  Through the public API: sl_explain and an EXPLAIN
 * statement of a job whose source files and sink directories do not exist
 * succeed, print the plan and create nothing; sl_exec of the same job
 * fails with the missing-file message planning used to give (and still
 * creates no sink directory, since the source fails first); option errors
 * (an unknown option, a bad value, a bad format) are still reported when
 * the job is planned, with the same text under sl_explain as under sl_exec.
 * tests/integration/explain_no_io.sh checks the same through `sluice`.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sluice.h"

typedef struct fixture {
	char dir[64];   /* a fresh directory, empty */
	char sql[4096]; /* the job's script */
} fixture;

static int exists(const char *dir, const char *name)
{
	char p[256];
	struct stat st;
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return stat(p, &st) == 0;
}

/* Four tables over paths under f->dir that do not exist: a filesystem
 * source, a lookup table, a sink and a partitioned sink; a datagen
 * source; two INSERTs (one with a lookup join). */
static void job_init(fixture *f, const char *extra_opt)
{
	snprintf(f->dir, sizeof f->dir, "/tmp/sluice-explain-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->sql, sizeof f->sql,
	         "CREATE TABLE src (k STRING, v BIGINT, pt AS PROCTIME()) WITH ("
	         "'connector' = 'filesystem', 'path' = '%s/in/src.jsonl', 'format' = 'json'%s);\n"
	         "CREATE TABLE dim (k STRING, name STRING) WITH ("
	         "'connector' = 'filesystem', 'path' = '%s/in/dim', 'format' = 'csv');\n"
	         "CREATE TABLE gen (k STRING, v BIGINT) WITH ("
	         "'connector' = 'datagen', 'number-of-rows' = '3');\n"
	         "CREATE TABLE dst (k STRING, name STRING, v BIGINT) WITH ("
	         "'connector' = 'filesystem', 'path' = '%s/out/dst', 'format' = 'json');\n"
	         "CREATE TABLE pdst (k STRING, v BIGINT) PARTITIONED BY (k) WITH ("
	         "'connector' = 'filesystem', 'path' = '%s/out/pdst', 'format' = 'csv');\n"
	         "INSERT INTO dst SELECT s.k, d.name, s.v FROM src AS s "
	         "JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d ON s.k = d.k;\n"
	         "INSERT INTO pdst SELECT k, v FROM gen;\n",
	         f->dir, extra_opt ? extra_opt : "", f->dir, f->dir, f->dir);
}

static void job_deinit(fixture *f)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
}

static void assert_untouched(const fixture *f)
{
	assert_false(exists(f->dir, "in"));
	assert_false(exists(f->dir, "out"));
}

/* sl_explain plans the job, prints every scan, the lookup join and both
 * sinks, and creates nothing. */
static void test_sl_explain_opens_nothing(void **st)
{
	(void)st;
	fixture f;
	job_init(&f, NULL);
	sl_engine *e;
	const char *text = NULL;
	assert_int_equal(sl_engine_open(&e), 0);
	int rc = sl_explain(e, f.sql, &text);
	if (rc)
		fail_msg("sl_explain: %s", sl_errmsg(e));
	assert_non_null(strstr(text, "TableSourceScan(table=[src], connector=[filesystem]"));
	assert_non_null(strstr(text, "TableSourceScan(table=[gen], connector=[datagen]"));
	assert_non_null(strstr(text, "LookupJoin("));
	assert_non_null(strstr(text, "Sink(table=[dst], connector=[filesystem]"));
	assert_non_null(strstr(text, "Sink(table=[pdst], connector=[filesystem]"));
	assert_untouched(&f);
	sl_engine_close(e);
	job_deinit(&f);
}

/* An EXPLAIN statement in a script run by sl_exec: the same. */
static void test_explain_statement_opens_nothing(void **st)
{
	(void)st;
	fixture f;
	job_init(&f, NULL);
	/* the DDL alone, then EXPLAIN of each INSERT */
	char *ins = strstr(f.sql, "INSERT INTO dst");
	char *ins2 = strstr(f.sql, "INSERT INTO pdst");
	assert_non_null(ins);
	assert_non_null(ins2);
	char script[4096];
	snprintf(script, sizeof script, "%.*sEXPLAIN %.*sEXPLAIN %s", (int)(ins - f.sql), f.sql,
	         (int)(ins2 - ins), ins, ins2);
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	if (sl_exec(e, script))
		fail_msg("sl_exec: %s", sl_errmsg(e));
	assert_non_null(strstr(sl_explain_text(e), "Sink(table=[dst]"));
	assert_non_null(strstr(sl_explain_text(e), "Sink(table=[pdst]"));
	assert_untouched(&f);
	sl_engine_close(e);
	job_deinit(&f);
}

/* Running the job: the scan's missing file is the error, with the text
 * planning gave before connectors were opened at the job's start; the
 * sinks, opened after the scans, create nothing either. */
static void test_run_reports_missing_file(void **st)
{
	(void)st;
	fixture f;
	job_init(&f, NULL);
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, f.sql), SL_EIO);
	char want[256];
	snprintf(want, sizeof want, "table 'src': source 'src': path '%s/in/src.jsonl' does not "
	         "exist", f.dir);
	assert_string_equal(sl_errmsg(e), want);
	assert_untouched(&f);
	sl_engine_close(e);
	job_deinit(&f);
}

/* With the source present, the lookup table's missing directory is the
 * error at the start (the lookup's open), before any sink is opened. */
static void test_run_reports_missing_lookup_table(void **st)
{
	(void)st;
	fixture f;
	job_init(&f, NULL);
	char p[128];
	snprintf(p, sizeof p, "%s/in", f.dir);
	assert_int_equal(mkdir(p, 0777), 0);
	snprintf(p, sizeof p, "%s/in/src.jsonl", f.dir);
	FILE *fp = fopen(p, "w");
	assert_non_null(fp);
	fputs("{\"k\":\"a\",\"v\":1}\n", fp);
	fclose(fp);
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, f.sql), SL_EIO);
	char want[256];
	snprintf(want, sizeof want, "source 'dim': path '%s/in/dim' does not exist", f.dir);
	assert_string_equal(sl_errmsg(e), want);
	assert_false(exists(f.dir, "out"));
	sl_engine_close(e);
	job_deinit(&f);
}

/* Option errors are planning errors: sl_explain reports them with the
 * same text as sl_exec, and neither touches the disk. */
static void test_option_errors_at_planning(void **st)
{
	(void)st;
	static const struct {
		const char *opt, *msg;
	} cases[] = {
		{", 'no.such.option' = 'x'", "Unsupported options found for 'filesystem'"},
		{", 'json.fail-on-missing-field' = 'maybe'", "json.fail-on-missing-field"},
		{", 'scan.watermark.idle-timeout' = 'soon'", "scan.watermark.idle-timeout"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		fixture f;
		job_init(&f, cases[i].opt);
		sl_engine *e;
		const char *text;
		char msg[1024];
		assert_int_equal(sl_engine_open(&e), 0);
		assert_int_not_equal(sl_explain(e, f.sql, &text), 0);
		snprintf(msg, sizeof msg, "%s", sl_errmsg(e));
		if (!strstr(msg, cases[i].msg))
			fail_msg("case %zu: %s", i, msg);
		sl_engine_close(e);
		assert_int_equal(sl_engine_open(&e), 0);
		assert_int_not_equal(sl_exec(e, f.sql), 0);
		assert_string_equal(sl_errmsg(e), msg);
		sl_engine_close(e);
		assert_untouched(&f);
		job_deinit(&f);
	}
}

/* A bad sink option and an unknown sink format, also at planning. */
static void test_sink_option_errors_at_planning(void **st)
{
	(void)st;
	static const char *const bad[][2] = {
		{"'format' = 'json')", "'format' = 'json', 'sink.rolling-policy.file-size' = 'big')"},
		{"'format' = 'json')", "'format' = 'jsonish')"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		fixture f;
		job_init(&f, NULL);
		/* the option list of dst (the fourth table) */
		char *at = strstr(strstr(f.sql, "CREATE TABLE dst"), bad[i][0]);
		assert_non_null(at);
		char sql[4096];
		snprintf(sql, sizeof sql, "%.*s%s%s", (int)(at - f.sql), f.sql, bad[i][1],
		         at + strlen(bad[i][0]));
		sl_engine *e;
		const char *text;
		char msg[1024];
		assert_int_equal(sl_engine_open(&e), 0);
		assert_int_not_equal(sl_explain(e, sql, &text), 0);
		snprintf(msg, sizeof msg, "%s", sl_errmsg(e));
		if (!strstr(msg, "sink 'dst'"))
			fail_msg("case %zu: %s", i, msg);
		sl_engine_close(e);
		assert_int_equal(sl_engine_open(&e), 0);
		assert_int_not_equal(sl_exec(e, sql), 0);
		assert_string_equal(sl_errmsg(e), msg);
		sl_engine_close(e);
		assert_untouched(&f);
		job_deinit(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sl_explain_opens_nothing),
		cmocka_unit_test(test_explain_statement_opens_nothing),
		cmocka_unit_test(test_run_reports_missing_file),
		cmocka_unit_test(test_run_reports_missing_lookup_table),
		cmocka_unit_test(test_option_errors_at_planning),
		cmocka_unit_test(test_sink_option_errors_at_planning),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
