/*
 * test_op_correlate.c - the Correlate operator (src/exec/op_correlate.c,
 * UNNEST) through its method table: synthetic batches of (id BIGINT, a
 * ARRAY<BIGINT>) and (id, m MAP<STRING, BIGINT>) rows built with the
 * packed-value builder, checking that each element gives a row carrying its
 * input row's change kind and W_before, NULL and empty collections (CROSS
 * and LEFT), WITH ORDINALITY, an input selection vector (only live rows
 * expand), an expansion of more rows than an output batch holds (emitted
 * in full batches, none lost), and a computed argument.  Stateless, so no
 * snapshot: the SQL behaviour is tests/slt/unnest.slt.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "harness.h"
#include "data/packed.h"
#include "exec/ops.h"

/* ARRAY<BIGINT> or MAP<STRING, BIGINT> in the harness arena. */
static sl_type coll_type(th_graph *h, sl_type_id id)
{
	sl_row_type *rt = sl_arena_calloc(&h->arena, sizeof(*rt));
	rt->fields = sl_arena_calloc(&h->arena, sizeof(sl_field) * 2);
	rt->fields[0].type = id == SL_T_MAP ? sl_type_varchar(SL_STRING_LEN) : sl_type_make(SL_T_BIGINT);
	rt->fields[1].type = sl_type_make(SL_T_BIGINT);
	return sl_type_collection(id, rt);
}

/* Opens h with a Correlate over (id BIGINT, c coll) on column 1 (or on
 * ARRAY[id, id * 10] when computed). */
static void open_corr(th_graph *h, sl_type_id id, int left, int ord, int computed)
{
	th_graph_init(h, "hashmap", 2);
	h->types[0] = sl_type_make(SL_T_BIGINT);
	h->types[1] = coll_type(h, id);
	sl_expr *arg = sl_expr_col(&h->arena, 1, h->types[1]);
	if (computed) {
		sl_expr *xs[2] = {sl_expr_col(&h->arena, 0, h->types[0]), NULL};
		sl_expr *ten = sl_expr_lit_i64(&h->arena, sl_type_make(SL_T_BIGINT), 10);
		sl_expr *mul[2] = {xs[0], ten};
		xs[1] = sl_expr_call(&h->arena, SL_FN_MUL, mul, 2, NULL, 0, &h->err);
		arg = sl_expr_call(&h->arena, SL_FN_ARRAY, xs, 2, NULL, 0, &h->err);
		assert_non_null(arg);
	}
	sl_type out[6] = {h->types[0], h->types[1]};
	int nout = 2;
	if (id == SL_T_MAP) {
		out[nout++] = sl_type_varchar(SL_STRING_LEN);
		out[nout++] = sl_type_make(SL_T_BIGINT);
	} else {
		out[nout++] = computed ? sl_type_elem(arg->type) : sl_type_make(SL_T_BIGINT);
	}
	if (ord)
		out[nout++] = sl_type_make(SL_T_INT);
	sl_correlate_params cp = {arg, (uint8_t)left, (uint8_t)ord};
	sl_op *op = sl_op_correlate_new(&cp, h->types, 2, out, nout, &h->err);
	assert_non_null(op);
	th_graph_open(h, op, 1, nout, out, NULL, TH_CAPTURE_ROW_WM);
}

/* Appends row (op, wm, id, array of n elements vals; n < 0: NULL) to b. */
static void add_array(sl_batch *b, uint8_t op, int64_t wm, int64_t id, const int64_t *vals,
                      int n, sl_buf *pk)
{
	int r = sl_batch_add_row(b, op, wm);
	sl_col_set_i64(&b->cols[0], r, id);
	if (n < 0)
		return;
	sl_col one;
	assert_int_equal(sl_col_new(&one, sl_type_make(SL_T_BIGINT), 1), 0);
	assert_int_equal(sl_pack_begin(pk), 0);
	for (int i = 0; i < n; i++) {
		if (vals[i] < 0)
			sl_col_clear(&one, 0); /* negative: a NULL element */
		else
			sl_col_set_i64(&one, 0, vals[i]);
		assert_int_equal(sl_pack_value(pk, &one, 0), 0);
	}
	sl_pack_end(pk, (uint32_t)n);
	sl_col_free(&one);
	assert_int_equal(sl_col_set_str(b, &b->cols[1], r, pk->p, (int64_t)pk->len), 0);
}

static void test_kinds_and_watermarks(void **state)
{
	th_graph h;
	sl_buf pk;
	sl_buf_init(&pk);
	open_corr(&h, SL_T_ARRAY, 0, 0, 0);
	sl_batch *b = sl_batch_new(2, h.types, 8);
	int64_t v1[] = {1, 2}, v2[] = {3, -1};
	add_array(b, SL_INSERT, 5, 10, v1, 2, &pk);
	add_array(b, SL_INSERT, 6, 11, NULL, 0, &pk);   /* empty: no row */
	add_array(b, SL_INSERT, 7, 12, NULL, -1, &pk);  /* NULL: no row */
	add_array(b, SL_UPDATE_BEFORE, 8, 10, v1, 2, &pk);
	add_array(b, SL_UPDATE_AFTER, 8, 10, v2, 2, &pk);
	add_array(b, SL_DELETE, 9, 10, v2, 2, &pk);
	assert_int_equal(sl_op_emit(h.feed[0], b, &h.err), 0);
	assert_string_equal(th_out(&h), "+I[10, [1, 2], 1] wm=5\n"
	                                "+I[10, [1, 2], 2] wm=5\n"
	                                "-U[10, [1, 2], 1] wm=8\n"
	                                "-U[10, [1, 2], 2] wm=8\n"
	                                "+U[10, [3, NULL], 3] wm=8\n"
	                                "+U[10, [3, NULL], NULL] wm=8\n"
	                                "-D[10, [3, NULL], 3] wm=9\n"
	                                "-D[10, [3, NULL], NULL] wm=9\n");
	sl_batch_free(b);
	sl_buf_deinit(&pk);
	th_graph_deinit(&h);
}

/* LEFT: one NULL-padded row for NULL and empty; ordinality; only the rows
 * of the input's selection vector expand. */
static void test_left_ordinality_selection(void **state)
{
	th_graph h;
	sl_buf pk;
	sl_buf_init(&pk);
	open_corr(&h, SL_T_ARRAY, 1, 1, 0);
	sl_batch *b = sl_batch_new(2, h.types, 8);
	int64_t v1[] = {7, 8};
	add_array(b, SL_INSERT, 1, 1, v1, 2, &pk);
	add_array(b, SL_INSERT, 1, 2, v1, 2, &pk);    /* not selected */
	add_array(b, SL_INSERT, 1, 3, NULL, 0, &pk);
	add_array(b, SL_INSERT, 1, 4, NULL, -1, &pk);
	uint32_t sel[] = {3, 0, 2};
	b->sel = sel;
	b->nsel = 3;
	assert_int_equal(sl_op_emit(h.feed[0], b, &h.err), 0);
	assert_string_equal(th_out(&h), "+I[4, NULL, NULL, NULL] wm=1\n"
	                                "+I[1, [7, 8], 7, 1] wm=1\n"
	                                "+I[1, [7, 8], 8, 2] wm=1\n"
	                                "+I[3, [], NULL, NULL] wm=1\n");
	b->sel = NULL;
	sl_batch_free(b);
	sl_buf_deinit(&pk);
	th_graph_deinit(&h);
}

/* 3000 elements of one row, then another row: more than an output batch
 * (SL_BATCH_ROWS) holds; every element arrives once, in order. */
static void test_larger_than_a_batch(void **state)
{
	th_graph h;
	sl_buf pk;
	sl_buf_init(&pk);
	open_corr(&h, SL_T_ARRAY, 0, 1, 0);
	enum { N = 3000 };
	static int64_t v[N];
	for (int i = 0; i < N; i++)
		v[i] = i;
	sl_batch *b = sl_batch_new(2, h.types, 4);
	add_array(b, SL_INSERT, 1, 1, v, N, &pk);
	add_array(b, SL_INSERT, 2, 2, v, 1, &pk);
	assert_int_equal(sl_op_emit(h.feed[0], b, &h.err), 0);
	const char *out = th_out(&h);
	int lines = 0;
	for (const char *p = out; (p = strchr(p, '\n')); p++)
		lines++;
	assert_int_equal(lines, N + 1);
	assert_non_null(strstr(out, ", 2999, 3000] wm=1\n+I[2, [0], 0, 1] wm=2\n"));
	assert_non_null(strstr(out, ", 1023, 1024] wm=1\n"));
	assert_non_null(strstr(out, ", 1024, 1025] wm=1\n"));
	sl_batch_free(b);
	sl_buf_deinit(&pk);
	th_graph_deinit(&h);
}

/* A computed argument: ARRAY[id, id * 10]. */
static void test_computed_argument(void **state)
{
	th_graph h;
	sl_buf pk;
	sl_buf_init(&pk);
	open_corr(&h, SL_T_ARRAY, 0, 0, 1);
	sl_batch *b = sl_batch_new(2, h.types, 4);
	add_array(b, SL_INSERT, 3, 4, NULL, -1, &pk);
	assert_int_equal(sl_op_emit(h.feed[0], b, &h.err), 0);
	assert_string_equal(th_out(&h), "+I[4, NULL, 4] wm=3\n+I[4, NULL, 40] wm=3\n");
	sl_batch_free(b);
	sl_buf_deinit(&pk);
	th_graph_deinit(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds_and_watermarks),
		cmocka_unit_test(test_left_ordinality_selection),
		cmocka_unit_test(test_larger_than_a_batch),
		cmocka_unit_test(test_computed_argument),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
