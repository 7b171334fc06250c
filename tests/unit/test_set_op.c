/*
 * test_set_op.c - the SetOp operator (op_set_op.c: INTERSECT and EXCEPT,
 * ALL and DISTINCT) driven through its method table with two feeders of
 * synthetic changelog batches, on both state backends.
 *
 * Each case feeds random +I/-D rows (a -D only of a row fed before, as a
 * valid changelog; plus retractions of rows never fed, which must be
 * ignored) of one BIGINT column with NULLs to either side, and checks after
 * every row that the operator's output, applied as a multiset, equals the
 * formula of the operation over the two sides' current multisets, and that
 * one input row emits at most one output row.  A fixed case checks the
 * exact changelog of EXCEPT.
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
#include "exec/graph.h"
#include "exec/ops.h"
#include "harness.h"

#define NV 6 /* values 0..4 and NULL (index 5) */

typedef struct capture_op {
	sl_op base;
	int64_t net[NV]; /* output multiset */
	int rows;        /* rows seen since the last reset */
	int last_op;
} capture_op;

static int capture_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	(void)input;
	(void)err;
	capture_op *c = (capture_op *)op;
	SL_BATCH_FOREACH(in, k, row) {
		int v = in->cols[0].null[row] ? NV - 1 : (int)in->cols[0].v.i64[row];
		c->net[v] += in->op[row] == SL_INSERT ? 1 : -1;
		c->rows++;
		c->last_op = in->op[row];
	}
	return 0;
}

static const sl_op_vtab capture_vtab = {.name = "Capture", .process = capture_process};

typedef struct harness {
	th_graph x;      /* two feeders (v BIGINT) -> SetOp -> cap (harness.h) */
	capture_op *cap; /* the output multiset */
	sl_batch *b;
} harness;

static void h_init(harness *h, const char *backend, sl_setop_kind kind, int all)
{
	sl_type t = sl_type_make(SL_T_BIGINT);
	memset(h, 0, sizeof(*h));
	th_graph_init(&h->x, backend, 1);
	h->x.types[0] = t;
	h->cap = calloc(1, sizeof(capture_op));
	h->cap->base.vt = &capture_vtab;
	th_graph_open(&h->x, sl_op_set_op_new(kind, all, &h->x.err), 2, 1, &t, &h->cap->base, 0);
	h->b = sl_batch_new(1, &t, 4);
}

static void h_deinit(harness *h)
{
	sl_batch_free(h->b);
	th_graph_deinit(&h->x);
}

/* Feeds one row (v = NV - 1: NULL) to side `side`; returns output rows. */
static int feed(harness *h, int side, uint8_t op, int v)
{
	sl_batch_reset(h->b);
	int r = sl_batch_add_row(h->b, op, SL_WM_MIN);
	if (v != NV - 1)
		sl_col_set_i64(&h->b->cols[0], r, v);
	h->cap->rows = 0;
	assert_int_equal(h->x.op->vt->process(h->x.op, side, h->b, &h->x.err), 0);
	return h->cap->rows;
}

static int64_t expect_count(sl_setop_kind kind, int all, int64_t l, int64_t r)
{
	if (kind == SL_SETOP_INTERSECT)
		return all ? (l < r ? l : r) : (l > 0 && r > 0);
	return all ? (l > r ? l - r : 0) : (l > 0 && r == 0);
}

static void run_random(const char *backend, sl_setop_kind kind, int all, unsigned seed, int n)
{
	harness h;
	h_init(&h, backend, kind, all);
	int64_t cnt[2][NV] = {{0}};
	srand(seed);
	for (int i = 0; i < n; i++) {
		int side = rand() % 2, v = rand() % NV;
		uint8_t op = SL_INSERT;
		int r = rand() % 10;
		if (r < 3 && cnt[side][v] > 0)
			op = rand() % 2 ? SL_DELETE : SL_UPDATE_BEFORE;
		else if (r == 3)
			op = SL_DELETE; /* maybe a row never fed: ignored */
		else if (r == 4)
			op = SL_UPDATE_AFTER;
		int out = feed(&h, side, op, v);
		assert_true(out <= 1);
		int sign = op == SL_INSERT || op == SL_UPDATE_AFTER ? 1 : -1;
		if (sign > 0 || cnt[side][v] > 0)
			cnt[side][v] += sign;
		for (int k = 0; k < NV; k++)
			if (h.cap->net[k] != expect_count(kind, all, cnt[0][k], cnt[1][k])) {
				fprintf(stderr, "%s kind %d all %d seed %u row %d value %d: out %lld want %lld\n",
				        backend, kind, all, seed, i, k, (long long)h.cap->net[k],
				        (long long)expect_count(kind, all, cnt[0][k], cnt[1][k]));
				fail();
			}
	}
	h_deinit(&h);
}

static void test_random_hashmap(void **state)
{
	(void)state;
	for (unsigned s = 1; s <= 20; s++)
		for (int all = 0; all < 2; all++) {
			run_random("hashmap", SL_SETOP_INTERSECT, all, s, 400);
			run_random("hashmap", SL_SETOP_EXCEPT, all, s, 400);
		}
}

static void test_random_rocksdb(void **state)
{
	(void)state;
	for (int all = 0; all < 2; all++) {
		run_random("rocksdb", SL_SETOP_INTERSECT, all, 7, 300);
		run_random("rocksdb", SL_SETOP_EXCEPT, all, 7, 300);
	}
}

/* EXCEPT: the exact changes, +I / -D, and nothing for unchanged counts. */
static void test_except_changelog(void **state)
{
	(void)state;
	harness h;
	h_init(&h, "hashmap", SL_SETOP_EXCEPT, 0);
	assert_int_equal(feed(&h, 0, SL_INSERT, 1), 1);
	assert_int_equal(h.cap->last_op, SL_INSERT);
	assert_int_equal(feed(&h, 0, SL_INSERT, 1), 0); /* already in */
	assert_int_equal(feed(&h, 1, SL_INSERT, 1), 1);
	assert_int_equal(h.cap->last_op, SL_DELETE);
	assert_int_equal(feed(&h, 1, SL_INSERT, 1), 0);
	assert_int_equal(feed(&h, 1, SL_DELETE, 1), 0); /* one right copy left */
	assert_int_equal(feed(&h, 1, SL_DELETE, 1), 1); /* none: back in */
	assert_int_equal(h.cap->last_op, SL_INSERT);
	assert_int_equal(feed(&h, 1, SL_DELETE, 1), 0); /* never fed: ignored */
	assert_int_equal(feed(&h, 0, SL_DELETE, 1), 0);
	assert_int_equal(feed(&h, 0, SL_DELETE, 1), 1);
	assert_int_equal(h.cap->last_op, SL_DELETE);
	h_deinit(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_except_changelog),
		cmocka_unit_test(test_random_hashmap),
		cmocka_unit_test(test_random_rocksdb),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
