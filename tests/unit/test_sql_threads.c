/*
 * test_sql_threads.c - the SQL front end and the checksum used by
 * checkpoints are safe to call from several threads at once (issue 9: no
 * lazily initialised globals).  Two threads each parse a script many times
 * with their own arena, and checksum a buffer, before anything else in
 * the process has tokenized or checksummed; every round must give the
 * answer computed afterwards in the main thread.  The tokenizer's
 * character classes and the CRC-32C table are constant data now, so this
 * is race-free by construction; run it under `valgrind --tool=helgrind` to
 * check that (helgrind reported the old lazily filled tables here).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <string.h>
#include "sluice.h"
#include "base/buf.h"
#include "base/crc32c.h"
#include "sql/parser.h"

#define ROUNDS 200

static const char *const script =
	"CREATE TABLE t (id BIGINT, name STRING, ts TIMESTAMP(3),\n"
	"  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'push');\n"
	"SELECT id, UPPER(name) || '!' AS n, x'0aFF', 1.5e3, `quoted id` FROM t\n"
	"  WHERE id <> 3 AND name LIKE 'a%' /* comment */ -- line comment\n"
	"  GROUP BY id, name HAVING COUNT(*) >= 2;";

typedef struct job {
	sl_buf first;  /* the first round's printed statements */
	uint32_t crc;  /* the first round's checksum */
	int failures;  /* rounds that differed from the first */
} job;

static const char data[] = "0123456789abcdefghijklmnopqrstuvwxyz";

/* Parses `script` and prints its statements, one per line, into b.
 * Returns 0 or -1. */
static int print_script(sl_buf *b)
{
	sl_arena a;
	sl_arena_init(&a, 0);
	sl_ast_script *s = NULL;
	sl_err err;
	sl_err_clear(&err);
	int rc = sl_parse(&a, script, &s, &err) ? -1 : 0;
	for (int i = 0; !rc && i < s->nstmts; i++)
		if (sl_ast_print_stmt(b, s->stmts[i]) || sl_buf_putc(b, '\n'))
			rc = -1;
	sl_arena_deinit(&a);
	return rc;
}

static void *worker(void *arg)
{
	job *j = arg;
	if (print_script(&j->first))
		j->failures++;
	sl_buf_cstr(&j->first);
	j->crc = sl_crc32c(0, data, sizeof(data) - 1);
	for (int r = 1; r < ROUNDS; r++) {
		sl_buf b;
		sl_buf_init(&b);
		if (print_script(&b) || strcmp(sl_buf_cstr(&b), j->first.p))
			j->failures++;
		sl_buf_deinit(&b);
		if (sl_crc32c(0, data, sizeof(data) - 1) != j->crc)
			j->failures++;
	}
	return NULL;
}

static void test_parse_in_two_threads(void **state)
{
	(void)state;
	job jobs[2];
	pthread_t th[2];
	for (int i = 0; i < 2; i++) {
		memset(&jobs[i], 0, sizeof(jobs[i]));
		sl_buf_init(&jobs[i].first);
		assert_int_equal(pthread_create(&th[i], NULL, worker, &jobs[i]), 0);
	}
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	sl_buf ref;
	sl_buf_init(&ref);
	assert_int_equal(print_script(&ref), 0);
	assert_non_null(strstr(sl_buf_cstr(&ref), "LIKE")); /* the script parsed whole */
	/* the CRC-32C check value of "123456789" (RFC 3720) */
	assert_int_equal(sl_crc32c(0, "123456789", 9), 0xe3069283u);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(jobs[i].failures, 0);
		assert_string_equal(jobs[i].first.p, sl_buf_cstr(&ref));
		assert_int_equal(jobs[i].crc, sl_crc32c(0, data, sizeof(data) - 1));
		sl_buf_deinit(&jobs[i].first);
	}
	sl_buf_deinit(&ref);
}

/* Two engines in two threads, each running sl_exec on its own: the public
 * API's promise (one engine per thread) holds with shared static data. */
static void *engine_worker(void *arg)
{
	job *j = arg;
	for (int r = 0; r < ROUNDS / 10; r++) {
		sl_engine *e;
		if (sl_engine_open(&e)) {
			j->failures++;
			continue;
		}
		if (sl_exec(e, "CREATE TABLE t (id BIGINT, s STRING) WITH ('connector' = 'push');\n"
		               "CREATE VIEW v AS SELECT id, s || 'x' AS s2 FROM t WHERE id > 1;"))
			j->failures++;
		/* a syntax error's place is a field, the same in every thread */
		int line, col;
		if (sl_exec(e, "SELECT id FROM t\nWHERE id = = 1") != SL_ESYNTAX ||
		    !sl_errpos(e, &line, &col) || line != 2 || col != 12)
			j->failures++;
		sl_engine_close(e);
	}
	return NULL;
}

static void test_engines_in_two_threads(void **state)
{
	(void)state;
	job jobs[2];
	pthread_t th[2];
	for (int i = 0; i < 2; i++) {
		memset(&jobs[i], 0, sizeof(jobs[i]));
		assert_int_equal(pthread_create(&th[i], NULL, engine_worker, &jobs[i]), 0);
	}
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(jobs[i].failures, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_in_two_threads),
		cmocka_unit_test(test_engines_in_two_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
