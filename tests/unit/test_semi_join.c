/*
 * test_semi_join.c - the semi and anti join operator (op_semi_join.c)
 * driven through its method table with synthetic batches on two inputs:
 * a left row emitted when its first match arrives and retracted when the
 * last goes (semi), the opposite (anti), duplicates, updating inputs on
 * both sides, retractions of rows never seen, NULL keys (never a match;
 * an anti join emits its row at once), a residual predicate, no keys at
 * all (EXISTS without correlation), and NOT IN's null-aware condition
 * (x = y OR x IS NULL OR y IS NULL: a NULL on either side is a match, an
 * empty right side matches nothing); on both state backends, and with a
 * snapshot/restore after every row whose output equals an uninterrupted
 * run's.
 *
 * Harness (tests/unit/harness.h): two feeder operators connected to inputs 0
 * (left) and 1 (right), a capture operator recording rows as text.  Both
 * inputs have the schema k STRING, ts TIMESTAMP(3), v BIGINT; the output
 * has the left columns.
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
#include "exec/join.h"
#include "harness.h"

/* ---- harness (tests/unit/harness.h) ------------------------------------ */

#define T0 TH_T0
#define S(x) TH_S(x)

/* residual: none, left v < right v, NOT IN's (l.v = r.v OR l.v IS NULL OR
 * r.v IS NULL) with v NULL when the test writes -1 */
typedef enum { RES_NONE, RES_LT, RES_NOT_IN } res_kind;

typedef th_graph harness;

static const char *g_backend = "hashmap";
static int keys[1] = {0};

static sl_expr *col(harness *h, int c)
{
	return sl_expr_col(&h->arena, c, h->types[c]);
}

static sl_expr *call2(harness *h, sl_fn fn, sl_expr *a, sl_expr *b)
{
	sl_expr *x[2] = {a, b};
	return sl_expr_call(&h->arena, fn, x, b ? 2 : 1, NULL, 0, &h->err);
}

static sl_op *make_op(harness *h, int anti, int nkeys, res_kind res)
{
	sl_join_plan p;
	memset(&p, 0, sizeof(p));
	p.nl = p.nr = 3;
	p.ltypes = h->types;
	p.rtypes = h->types + 3;
	p.nkeys = nkeys;
	p.lkeys = p.rkeys = keys;
	if (res == RES_LT)
		p.residual = call2(h, SL_FN_LT, col(h, 2), col(h, 5));
	if (res == RES_NOT_IN)
		p.residual = call2(h, SL_FN_OR,
		                   call2(h, SL_FN_OR, call2(h, SL_FN_EQ, col(h, 2), col(h, 5)),
		                         call2(h, SL_FN_IS_NULL, col(h, 2), NULL)),
		                   call2(h, SL_FN_IS_NULL, col(h, 5), NULL));
	return sl_op_semi_join_new(&p, anti, &h->err);
}

static void h_init(harness *h, int anti, int nkeys, res_kind res)
{
	th_graph_init(h, g_backend, 3);
	th_kv_schema(h->types);
	th_kv_schema(h->types + 3);
	th_graph_open(h, make_op(h, anti, nkeys, res), 2, 3, h->types, NULL, 0);
}

static void h_deinit(harness *h)
{
	th_graph_deinit(h);
}

/* An input row (harness.h): side, key (NULL ok), ts and W_before in seconds. */
typedef th_kv_row in_row;

/* Feeds rows (consecutive rows of one side in batches of up to bs); after
 * each batch the side's watermark moves to the next row's W_before of that
 * side, when given. */
static void feed(harness *h, const in_row *rows, int n, int bs)
{
	th_feed_sides(h, rows, n, bs, TH_NEG_IS_NULL);
}

#define L 0
#define R 1
#define I SL_INSERT
#define D SL_DELETE
#define UB SL_UPDATE_BEFORE
#define UA SL_UPDATE_AFTER
#define SEMI 0
#define ANTI 1

/* ---- semi join ------------------------------------------------------------ */

static void test_semi_first_and_last_match(void **st)
{
	harness h;
	h_init(&h, SEMI, 1, RES_NONE);
	/* no match yet; a NULL key never matches */
	const in_row a[] = {{L, "a", 1, 1, I, -1}, {L, "a", 1, 1, I, -1}, {L, NULL, 2, 2, I, -1},
	                    {L, "b", 3, 3, I, -1}};
	feed(&h, a, 4, 4);
	assert_string_equal(th_out(&h), "");
	/* the first match emits both duplicates; the second match nothing */
	const in_row b[] = {{R, "a", 5, 10, I, -1}, {R, "a", 6, 11, I, -1}, {R, NULL, 7, 12, I, -1}};
	feed(&h, b, 3, 1);
	assert_string_equal(th_out(&h), "+I[a, 2026-08-01 09:00:01, 1]\n"
	                             "+I[a, 2026-08-01 09:00:01, 1]\n");
	th_out_reset(&h);
	/* a new left row of a matched key at once; a retraction of a row never
	 * seen is ignored */
	const in_row c[] = {{L, "a", 4, 4, I, -1}, {L, "z", 4, 4, D, -1}, {R, "q", 1, 1, D, -1}};
	feed(&h, c, 3, 3);
	assert_string_equal(th_out(&h), "+I[a, 2026-08-01 09:00:04, 4]\n");
	th_out_reset(&h);
	/* the matches go: -D after the last one only */
	const in_row d[] = {{R, "a", 5, 10, UB, -1}, {R, "a", 6, 11, D, -1}};
	feed(&h, d, 2, 1);
	assert_string_equal(th_out(&h), "-D[a, 2026-08-01 09:00:01, 1]\n"
	                             "-D[a, 2026-08-01 09:00:01, 1]\n"
	                             "-D[a, 2026-08-01 09:00:04, 4]\n");
	th_out_reset(&h);
	/* an update of a left row while matched: -D old, +I new */
	const in_row e[] = {{R, "b", 1, 1, I, -1}, {L, "b", 3, 3, UB, -1}, {L, "b", 3, 30, UA, -1}};
	feed(&h, e, 3, 1);
	assert_string_equal(th_out(&h), "+I[b, 2026-08-01 09:00:03, 3]\n"
	                             "-D[b, 2026-08-01 09:00:03, 3]\n"
	                             "+I[b, 2026-08-01 09:00:03, 30]\n");
	h_deinit(&h);
}

static void test_semi_residual(void **st)
{
	harness h;
	h_init(&h, SEMI, 1, RES_LT);
	/* l.v < r.v: 5 < 4 fails, 5 < 6 holds */
	const in_row a[] = {{L, "a", 1, 5, I, -1}, {R, "a", 2, 4, I, -1}, {R, "a", 3, 6, I, -1},
	                    {R, "a", 3, 6, D, -1}, {R, "a", 2, 4, D, -1}};
	feed(&h, a, 5, 1);
	assert_string_equal(th_out(&h), "+I[a, 2026-08-01 09:00:01, 5]\n"
	                             "-D[a, 2026-08-01 09:00:01, 5]\n");
	h_deinit(&h);
}

/* ---- anti join ------------------------------------------------------------ */

static void test_anti_key(void **st)
{
	harness h;
	h_init(&h, ANTI, 1, RES_NONE);
	/* no match: emitted at once; a NULL key at once too (never matches) */
	const in_row a[] = {{L, "a", 1, 1, I, -1}, {L, NULL, 2, 2, I, -1}, {R, "b", 1, 1, I, -1},
	                    {L, "b", 3, 3, I, -1}};
	feed(&h, a, 4, 2);
	assert_string_equal(th_out(&h), "+I[a, 2026-08-01 09:00:01, 1]\n"
	                             "+I[NULL, 2026-08-01 09:00:02, 2]\n");
	th_out_reset(&h);
	/* a match arrives: -D; it goes: +I again; NULL-keyed right rows ignored */
	const in_row b[] = {{R, "a", 5, 10, I, -1}, {R, NULL, 7, 12, I, -1}, {R, "a", 5, 10, D, -1},
	                    {R, "b", 1, 1, D, -1}, {L, NULL, 2, 2, D, -1}};
	feed(&h, b, 5, 1);
	assert_string_equal(th_out(&h), "-D[a, 2026-08-01 09:00:01, 1]\n"
	                             "+I[a, 2026-08-01 09:00:01, 1]\n"
	                             "+I[b, 2026-08-01 09:00:03, 3]\n"
	                             "-D[NULL, 2026-08-01 09:00:02, 2]\n");
	h_deinit(&h);
}

/* NOT IN without correlation: no keys, the null-aware residual. */
static void test_anti_not_in_nulls(void **st)
{
	harness h;
	h_init(&h, ANTI, 0, RES_NOT_IN);
	/* right side empty: every left row, a NULL v too, is kept */
	const in_row a[] = {{L, "a", 1, 1, I, -1}, {L, "b", 2, -1, I, -1}, {L, "c", 3, 3, I, -1}};
	feed(&h, a, 3, 3);
	assert_string_equal(th_out(&h), "+I[a, 2026-08-01 09:00:01, 1]\n"
	                             "+I[b, 2026-08-01 09:00:02, NULL]\n"
	                             "+I[c, 2026-08-01 09:00:03, 3]\n");
	th_out_reset(&h);
	/* right gets 3: the NULL (unknown) and 3 go */
	const in_row b[] = {{R, "x", 1, 3, I, -1}};
	feed(&h, b, 1, 1);
	assert_string_equal(th_out(&h), "-D[b, 2026-08-01 09:00:02, NULL]\n"
	                             "-D[c, 2026-08-01 09:00:03, 3]\n");
	th_out_reset(&h);
	/* a NULL in the subquery: NOT IN is unknown for every row */
	const in_row c[] = {{R, "y", 1, -1, I, -1}, {L, "d", 4, 4, I, -1}};
	feed(&h, c, 2, 1);
	assert_string_equal(th_out(&h), "-D[a, 2026-08-01 09:00:01, 1]\n");
	th_out_reset(&h);
	/* both right rows go: all visible again */
	const in_row d[] = {{R, "y", 1, -1, D, -1}, {R, "x", 1, 3, D, -1}};
	feed(&h, d, 2, 2);
	th_assert_same_rows(th_out(&h), "+I[a, 2026-08-01 09:00:01, 1]\n"
	                          "+I[d, 2026-08-01 09:00:04, 4]\n"
	                          "+I[b, 2026-08-01 09:00:02, NULL]\n"
	                          "+I[c, 2026-08-01 09:00:03, 3]\n");
	h_deinit(&h);
}

/* ---- snapshot / restore at every cut ---------------------------------------- */

static const in_row mixed[] = {
	{L, "a", 1, 1, I, -1}, {L, "b", 2, 2, I, -1}, {R, "b", 3, 3, I, -1},
	{R, "c", 4, 4, I, -1}, {L, "c", 5, 5, I, -1}, {L, NULL, 5, 5, I, -1},
	{R, "b", 3, 3, D, -1}, {L, "a", 1, 1, UB, -1}, {L, "a", 1, 7, UA, -1},
	{R, "a", 8, 8, I, -1}, {R, "a", 8, 8, I, -1}, {R, "a", 8, 8, D, -1},
	{L, "c", 5, 5, D, -1}, {R, "c", 4, 4, UB, -1}, {R, "c", 4, -1, UA, -1},
};
#define NMIXED ((int)(sizeof(mixed) / sizeof(mixed[0])))

static void roundtrip(int anti, int nkeys, res_kind res, int cut)
{
	harness a, b, c;
	h_init(&a, anti, nkeys, res);
	feed(&a, mixed, NMIXED, 2);

	h_init(&b, anti, nkeys, res);
	feed(&b, mixed, cut, 2);
	sl_snap_writer w;
	th_snapshot(&b, &w);
	char *first = strdup(th_out(&b));
	h_deinit(&b);

	h_init(&c, anti, nkeys, res);
	th_restore(&c, &w);
	feed(&c, mixed + cut, NMIXED - cut, 2);
	sl_buf all;
	sl_buf_init(&all);
	sl_buf_puts(&all, first);
	sl_buf_puts(&all, th_out(&c));
	th_assert_same_rows(sl_buf_cstr(&all), th_out(&a));
	sl_buf_deinit(&all);
	free(first);
	sl_snap_writer_deinit(&w);
	h_deinit(&a);
	h_deinit(&c);
}

static void test_snapshot_every_cut(void **st)
{
	for (int cut = 0; cut <= NMIXED; cut++) {
		roundtrip(SEMI, 1, RES_NONE, cut);
		roundtrip(ANTI, 1, RES_NONE, cut);
		roundtrip(SEMI, 1, RES_LT, cut);
		roundtrip(ANTI, 0, RES_NOT_IN, cut);
	}
}

/* The uninterrupted run of `mixed` itself (so the roundtrips compare
 * against a known answer): anti join by key. */
static void test_anti_mixed_answer(void **st)
{
	harness h;
	h_init(&h, ANTI, 1, RES_NONE);
	feed(&h, mixed, NMIXED, 1);
	assert_string_equal(th_out(&h),
	                    "+I[a, 2026-08-01 09:00:01, 1]\n"    /* a: no match */
	                    "+I[b, 2026-08-01 09:00:02, 2]\n"    /* b: no match yet */
	                    "-D[b, 2026-08-01 09:00:02, 2]\n"    /* b matched */
	                    "+I[NULL, 2026-08-01 09:00:05, 5]\n" /* c matched at once; NULL key */
	                    "+I[b, 2026-08-01 09:00:02, 2]\n"    /* b's match retracted */
	                    "-D[a, 2026-08-01 09:00:01, 1]\n"    /* a updated */
	                    "+I[a, 2026-08-01 09:00:01, 7]\n"
	                    "-D[a, 2026-08-01 09:00:01, 7]\n");  /* a matched; one of two
	                                                           * matches goes: no change */
	h_deinit(&h);
}

static void run_all(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_semi_first_and_last_match),
		cmocka_unit_test(test_semi_residual),
		cmocka_unit_test(test_anti_key),
		cmocka_unit_test(test_anti_not_in_nulls),
		cmocka_unit_test(test_anti_mixed_answer),
		cmocka_unit_test(test_snapshot_every_cut),
	};
	if (cmocka_run_group_tests_name(g_backend, tests, NULL, NULL))
		exit(1);
}

int main(void)
{
	g_backend = "hashmap";
	run_all();
	g_backend = "rocksdb";
	run_all();
	return 0;
}
