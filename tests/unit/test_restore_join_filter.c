/*
 * test_restore_join_filter.c - savepoints across the rewrite rule
 * join-filters (src/plan/plan_join_filter.c, docs/joins.md "Filters below
 * a join"): the rule leaves every operator id as it was, so a savepoint of
 * the plan without it ('sluice.plan.join-filters' = 'false', the plan of
 * the sluice before it) restores into the plan with it, and the other way
 * round, and the output after the restore is exactly that of an
 * uninterrupted run.
 *
 * What makes it more than an id check: the savepoint of the plan without
 * the rule holds rows that the pushed filter would have dropped (the
 * auction of category 11, the bid of price 1), and part 2 brings rows that
 * match them; they must not join (the conditions stay in the join's
 * residual or the Calc above it).  Inner, LEFT (WHERE on the preserved
 * side, and NULL-rejecting on the NULL-supplied side, the ON conjunct of
 * the NULL-supplied side) and FULL joins, on both state backends.
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
	"CREATE TABLE bid (auction BIGINT, price BIGINT) WITH ('connector' = 'push');"      \
	"CREATE TABLE auction (id BIGINT, category BIGINT) WITH ('connector' = 'push');"

static const char *const JOBS[] = {
	/* Nexmark q20's shape */
	"SELECT b.auction, b.price, a.category FROM bid AS b JOIN auction AS a "
	"ON b.auction = a.id WHERE a.category = 10 AND b.price > 1",
	"SELECT b.auction, b.price, a.category FROM bid AS b LEFT JOIN auction AS a "
	"ON b.auction = a.id WHERE a.category = 10",
	"SELECT b.auction, b.price, a.category FROM bid AS b LEFT JOIN auction AS a "
	"ON b.auction = a.id AND a.category = 10 WHERE b.price > 1",
	"SELECT b.auction, b.price, a.id, a.category FROM bid AS b FULL JOIN auction AS a "
	"ON b.auction = a.id WHERE a.category = 10 AND b.price > 1",
};
#define NJOBS ((int)(sizeof(JOBS) / sizeof(JOBS[0])))

/* Part 1 stores the auction of category 11 and the bid of price 1 (which
 * the filters drop); part 2 matches them. */
#define A1 "{\"id\": 1, \"category\": 10}\n{\"id\": 2, \"category\": 11}\n{\"id\": 3, \"category\": 10}\n"
#define B1                                                                                  \
	"{\"auction\": 1, \"price\": 5}\n{\"auction\": 2, \"price\": 6}\n"                  \
	"{\"auction\": 1, \"price\": 1}\n{\"auction\": 4, \"price\": 3}\n"
#define B2                                                                                  \
	"{\"auction\": 2, \"price\": 7}\n{\"auction\": 1, \"price\": 8}\n"                  \
	"{\"auction\": 3, \"price\": 0}\n"
#define A2 "{\"id\": 4, \"category\": 12}\n{\"id\": 4, \"category\": 10}\n{\"id\": 1, \"category\": 10}\n"

static const char *g_backend = "hashmap";

static void collect(void *ctx, const char *table, sl_rowkind kind, const char *json,
                    size_t len)
{
	static const char *const kinds[] = {"+I", "-U", "+U", "-D"};
	char *out = ctx;
	size_t n = strlen(out);
	int w = snprintf(out + n, OUT_CAP - n, "%s %s %.*s\n", table, kinds[kind], (int)len, json);
	assert_true(w > 0 && n + (size_t)w < OUT_CAP);
}

static sl_engine *start(const char *job, int rule)
{
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_set(e, "state.backend.type", g_backend), 0);
	assert_int_equal(sl_set(e, "sluice.plan.join-filters", rule ? "true" : "false"), 0);
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

static void part(sl_engine *e, int n, char *out)
{
	push(e, n == 1 ? "auction" : "bid", n == 1 ? A1 : B2, out);
	push(e, n == 1 ? "bid" : "auction", n == 1 ? B1 : A2, out);
}

/* An uninterrupted run: part 1 into out1, part 2 into out2. */
static void reference(const char *job, int rule, char *out1, char *out2)
{
	sl_engine *e = start(job, rule);
	out1[0] = out2[0] = 0;
	part(e, 1, out1);
	part(e, 2, out2);
	sl_engine_close(e);
}

/* A snapshot after part 1 (free it). */
static void *snapshot(const char *job, int rule, size_t *len)
{
	sl_engine *e = start(job, rule);
	char *out = calloc(1, OUT_CAP);
	part(e, 1, out);
	void *snap;
	assert_int_equal(sl_snapshot(e, &snap, len), 0);
	sl_engine_close(e);
	free(out);
	return snap;
}

/* Restores snap into job and runs part 2 into out. */
static void resume(const char *job, int rule, const void *snap, size_t len, char *out)
{
	sl_engine *e = start(job, rule);
	out[0] = 0;
	int rc = sl_restore(e, snap, len);
	if (rc)
		print_error("%s (%s, rule %d): %s\n", job, g_backend, rule, sl_errmsg(e));
	assert_int_equal(rc, 0);
	part(e, 2, out);
	sl_engine_close(e);
}

static void check(const char *job)
{
	char *a1 = calloc(1, OUT_CAP), *a2 = calloc(1, OUT_CAP);
	char *b1 = calloc(1, OUT_CAP), *b2 = calloc(1, OUT_CAP), *out = calloc(1, OUT_CAP);
	reference(job, 0, a1, a2);
	reference(job, 1, b1, b2);
	assert_true(a2[0]);
	assert_string_equal(a1, b1);
	assert_string_equal(a2, b2);
	for (int from = 0; from < 2; from++) {
		size_t len;
		void *snap = snapshot(job, from, &len);
		for (int to = 0; to < 2; to++) {
			resume(job, to, snap, len, out);
			if (strcmp(out, a2))
				print_error("%s (%s): rule %d -> %d\n  got:\n%s  want:\n%s", job,
				            g_backend, from, to, out, a2);
			assert_string_equal(out, a2);
		}
		free(snap);
	}
	free(a1), free(a2), free(b1), free(b2), free(out);
}

static void test_hashmap(void **st)
{
	(void)st;
	g_backend = "hashmap";
	for (int i = 0; i < NJOBS; i++)
		check(JOBS[i]);
}

static void test_rocksdb(void **st)
{
	(void)st;
	g_backend = "rocksdb";
	for (int i = 0; i < NJOBS; i++)
		check(JOBS[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hashmap),
		cmocka_unit_test(test_rocksdb),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
