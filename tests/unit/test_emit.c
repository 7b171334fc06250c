/*
 * test_emit.c - the output emitter (src/exec/emit.h) between a producing
 * operator and a capturing consumer in a graph: batches leave only when a
 * further row needs room or at a flush, reserve keeps a pair in one batch,
 * an empty flush emits nothing, the hook runs (and may select rows) just
 * before each emit, copies carry values, and a consumer's error comes back
 * with the batch emptied.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "exec/emit.h"
#include "exec/graph.h"

#define MAXB 64

typedef struct capture_op {
	sl_op base;
	int nb;               /* batches seen */
	int sizes[MAXB];      /* live rows of each */
	int64_t vals[1024];   /* values seen, in order */
	uint8_t ops[1024];
	int nvals;
	int fail;             /* return SL_EINPUT from process */
	int fail_row;         /* with fail: report this row (1-based) of the batch */
} capture_op;

static int capture_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	(void)input;
	capture_op *c = (capture_op *)op;
	if (c->fail) {
		sl_err_set(err, SL_EINPUT, "consumer failed");
		err->row = c->fail_row;
		return SL_EINPUT;
	}
	assert_true(c->nb < MAXB);
	c->sizes[c->nb++] = sl_batch_live(in);
	SL_BATCH_FOREACH(in, k, row) {
		c->vals[c->nvals] = in->cols[0].v.i64[row];
		c->ops[c->nvals++] = in->op[row];
	}
	return 0;
}

static const sl_op_vtab capture_vtab = {.name = "Capture", .process = capture_process};
static const sl_op_vtab producer_vtab = {.name = "Producer"};

typedef struct harness {
	sl_state_backend *be;
	sl_graph g;
	sl_op *prod;
	capture_op *cap;
	sl_emitter e;
	sl_err err;
} harness;

static void h_init(harness *h, int cap)
{
	sl_type t = sl_type_make(SL_T_BIGINT);
	memset(h, 0, sizeof(*h));
	assert_int_equal(sl_state_backend_open("hashmap", &h->be, &h->err), 0);
	sl_graph_init(&h->g, h->be);
	h->prod = calloc(1, sizeof(sl_op));
	h->prod->vt = &producer_vtab;
	assert_int_equal(sl_graph_add(&h->g, h->prod, 0, 1, &t, NULL), 0);
	h->cap = calloc(1, sizeof(capture_op));
	h->cap->base.vt = &capture_vtab;
	assert_int_equal(sl_graph_add(&h->g, &h->cap->base, 1, 0, NULL, NULL), 0);
	sl_graph_connect(&h->g, h->prod, &h->cap->base, 0);
	assert_int_equal(sl_graph_open(&h->g, &h->err), 0);
	assert_int_equal(sl_emitter_init(&h->e, h->prod, cap, &h->err), 0);
	assert_int_equal(h->e.b->cap, cap);
}

static void h_deinit(harness *h)
{
	sl_emitter_deinit(&h->e);
	sl_emitter_deinit(&h->e); /* twice is safe */
	sl_graph_deinit(&h->g);
	sl_state_backend_close(h->be);
}

static void add(harness *h, int64_t v)
{
	int row = sl_emitter_row(&h->e, SL_INSERT, SL_WM_MIN, &h->err);
	assert_true(row >= 0);
	sl_col_set_i64(&h->e.b->cols[0], row, v);
}

/* Ten rows into batches of four: 4, 4 when a fifth and ninth row need
 * room, the last 2 at the flush; an empty flush emits nothing. */
static void test_full_then_flush(void **state)
{
	(void)state;
	harness h;
	h_init(&h, 4);
	for (int i = 0; i < 4; i++)
		add(&h, i);
	assert_int_equal(h.cap->nb, 0); /* full, but no row needed room yet */
	for (int i = 4; i < 10; i++)
		add(&h, i);
	assert_int_equal(h.cap->nb, 2);
	assert_int_equal(sl_emitter_flush(&h.e, &h.err), 0);
	assert_int_equal(sl_emitter_flush(&h.e, &h.err), 0);
	assert_int_equal(h.cap->nb, 3);
	assert_int_equal(h.cap->sizes[0], 4);
	assert_int_equal(h.cap->sizes[1], 4);
	assert_int_equal(h.cap->sizes[2], 2);
	assert_int_equal(h.cap->nvals, 10);
	for (int i = 0; i < 10; i++)
		assert_int_equal(h.cap->vals[i], i);
	assert_int_equal(h.prod->stats.rows_out, 10);
	h_deinit(&h);
}

/* reserve(2) flushes a batch with one free slot, so a pair stays together. */
static void test_reserve_pair(void **state)
{
	(void)state;
	harness h;
	h_init(&h, 4);
	for (int i = 0; i < 3; i++)
		add(&h, i);
	assert_int_equal(sl_emitter_reserve(&h.e, 1, &h.err), 0);
	assert_int_equal(h.cap->nb, 0);
	assert_int_equal(sl_emitter_reserve(&h.e, 2, &h.err), 0);
	assert_int_equal(h.cap->nb, 1);
	assert_int_equal(h.cap->sizes[0], 3);
	assert_int_equal(h.e.b->nrows, 0);
	h_deinit(&h);
}

typedef struct hook_ctx {
	int calls;
	uint32_t sel[8];
} hook_ctx;

/* Keeps the even values (a filter that sets the selection vector). */
static int even_only(void *ctx, sl_batch *b, sl_err *err)
{
	(void)err;
	hook_ctx *hc = ctx;
	hc->calls++;
	b->nsel = 0;
	for (int r = 0; r < b->nrows; r++)
		if (b->cols[0].v.i64[r] % 2 == 0)
			hc->sel[b->nsel++] = (uint32_t)r;
	b->sel = hc->sel;
	return 0;
}

/* The hook runs once per non-empty emit and its selection is what leaves. */
static void test_hook(void **state)
{
	(void)state;
	harness h;
	hook_ctx hc = {0};
	h_init(&h, 4);
	sl_emitter_set_hook(&h.e, even_only, &hc);
	assert_int_equal(sl_emitter_flush(&h.e, &h.err), 0);
	assert_int_equal(hc.calls, 0);
	for (int i = 0; i < 6; i++)
		add(&h, i);
	assert_int_equal(sl_emitter_flush(&h.e, &h.err), 0);
	assert_int_equal(hc.calls, 2);
	assert_int_equal(h.cap->nb, 2);
	assert_int_equal(h.cap->nvals, 3);
	assert_int_equal(h.cap->vals[0], 0);
	assert_int_equal(h.cap->vals[1], 2);
	assert_int_equal(h.cap->vals[2], 4);
	assert_null(h.e.b->sel); /* reset with the batch */
	h_deinit(&h);
}

/* copy_row copies the value with the given kind. */
static void test_copy_row(void **state)
{
	(void)state;
	harness h;
	h_init(&h, 2);
	sl_type t = sl_type_make(SL_T_BIGINT);
	sl_batch *src = sl_batch_new(1, &t, 4);
	for (int i = 0; i < 3; i++)
		sl_col_set_i64(&src->cols[0], sl_batch_add_row(src, SL_INSERT, SL_WM_MIN), 10 + i);
	for (int i = 0; i < 3; i++)
		assert_true(sl_emitter_copy_row(&h.e, src, i, SL_DELETE, SL_WM_MIN, &h.err) >= 0);
	assert_int_equal(sl_emitter_flush(&h.e, &h.err), 0);
	assert_int_equal(h.cap->nb, 2);
	assert_int_equal(h.cap->nvals, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(h.cap->vals[i], 10 + i);
		assert_int_equal(h.cap->ops[i], SL_DELETE);
	}
	sl_batch_free(src);
	h_deinit(&h);
}

/* A consumer's error is returned by the flush (and by the row that needed
 * room), and the batch is emptied all the same. */
static void test_consumer_error(void **state)
{
	(void)state;
	harness h;
	h_init(&h, 2);
	add(&h, 1);
	add(&h, 2);
	h.cap->fail = 1;
	assert_int_equal(sl_emitter_row(&h.e, SL_INSERT, SL_WM_MIN, &h.err), SL_EINPUT);
	assert_int_equal(h.e.b->nrows, 0);
	memset(&h.err, 0, sizeof(h.err));
	add(&h, 3);
	assert_int_equal(sl_emitter_flush(&h.e, &h.err), SL_EINPUT);
	assert_int_equal(h.e.b->nrows, 0);
	h_deinit(&h);
}

/* Tracked sources: a consumer's error in row r of an emitted batch comes
 * back naming the input row that row answers, or no row (-1). */
static void test_track_src(void **state)
{
	(void)state;
	harness h;
	h_init(&h, 4);
	assert_int_equal(sl_emitter_track_src(&h.e, &h.err), 0);
	sl_type t = sl_type_make(SL_T_BIGINT);
	sl_batch *in = sl_batch_new(1, &t, 8);
	h.e.src_in = in;
	add(&h, 1);
	sl_emitter_set_src(&h.e, 0, 5);
	add(&h, 2);
	sl_emitter_set_src(&h.e, 1, -1);
	h.cap->fail = 1;
	h.cap->fail_row = 1;
	assert_int_equal(sl_emitter_flush(&h.e, &h.err), SL_EINPUT);
	assert_ptr_equal(h.err.row_batch, in);
	assert_int_equal(h.err.row, 6);
	memset(&h.err, 0, sizeof(h.err));
	add(&h, 1);
	sl_emitter_set_src(&h.e, 0, -1);
	assert_int_equal(sl_emitter_flush(&h.e, &h.err), SL_EINPUT);
	assert_null(h.err.row_batch);
	assert_int_equal(h.err.row, 0);
	sl_batch_free(in);
	h_deinit(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_then_flush),
		cmocka_unit_test(test_reserve_pair),
		cmocka_unit_test(test_hook),
		cmocka_unit_test(test_copy_row),
		cmocka_unit_test(test_consumer_error),
		cmocka_unit_test(test_track_src),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
