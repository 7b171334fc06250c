/*
 * test_batch.c - unit tests of src/data/batch.c's column-wise copy,
 * sl_batch_append_rows (what a hash exchange copies rows with): the same
 * values, change kinds and W_before as copying the rows one by one with
 * sl_batch_copy_row, for every physical type (ROW values nested, NULL
 * values and NULL fields included), for a list of rows in any order and
 * for a contiguous range, appended behind rows already in the batch;
 * strings copied into the destination's arena, NUL-terminated, and
 * independent of the source's bytes afterwards.  sl_copy_short (base/copy.h,
 * the strings' copy) copies exactly n bytes for n = 0..100 at every
 * source and destination alignment, nothing outside them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "base/copy.h"
#include "data/batch.h"
#include "data/rowcodec.h"
#include "sluice.h"

static sl_field inner_f[] = {
	{"x", {SL_T_BIGINT, 0, 0, 0, 0, NULL}},
	{"s", {SL_T_VARCHAR, 0, 0, 0, SL_STRING_LEN, NULL}},
};
static sl_row_type inner_t = {2, inner_f};

enum { NC = 6, NR = 40 };

static void types(sl_type *t)
{
	t[0] = sl_type_make(SL_T_BIGINT);
	t[1] = sl_type_make(SL_T_DOUBLE);
	t[2] = sl_type_decimal(38, 2);
	t[3] = sl_type_varchar(SL_STRING_LEN);
	t[4] = sl_type_make(SL_T_ROW);
	t[4].row = &inner_t;
	t[5] = sl_type_varchar(SL_STRING_LEN);
}

/* Source bytes the source batch's strings point into (as a scan's read
 * buffer), overwritten after the copies. */
static char text[NR * 32];

/* NR rows: every third value NULL (a different column each row), strings
 * of 0..30 bytes by reference into text, a NULL ROW every seventh row. */
static sl_batch *source(void)
{
	sl_type t[NC];
	types(t);
	sl_batch *b = sl_batch_new(NC, t, NR);
	assert_non_null(b);
	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (char)('a' + i % 23);
	for (int i = 0; i < NR; i++) {
		int r = sl_batch_add_row(b, (uint8_t)(i % 4), 1000 + i / 3);
		sl_col_set_i64(&b->cols[0], r, (int64_t)i * 1000003);
		sl_col_set_f64(&b->cols[1], r, i * 0.25 - 3);
		sl_col_set_i128(&b->cols[2], r, ((sl_i128)i << 70) - i);
		sl_col_set_str_ref(&b->cols[3], r, text + i * 32, i % 31);
		if (i % 7) {
			sl_col *row = &b->cols[4];
			row->null[r] = 0;
			sl_col_set_i64(&row->child[0], r, -i);
			if (i % 5)
				sl_col_set_str_ref(&row->child[1], r, text + i * 32 + 1, (i * 7) % 17);
		}
		sl_col_set_str_ref(&b->cols[5], r, text + (NR - 1 - i) * 32, (i * 3) % 20);
		sl_col_set_null(&b->cols[i % NC], r); /* one NULL per row, each column in turn */
	}
	return b;
}

/* Row r of a and row s of b hold the same op, wm and values (row form
 * bytes, doubles exact); every non-NULL string of b is NUL-terminated and
 * lies in b's arena (not in text). */
static void same_row(const sl_batch *a, int r, const sl_batch *b, int s)
{
	assert_int_equal(a->op[r], b->op[s]);
	assert_int_equal(a->wm[r], b->wm[s]);
	sl_buf x, y;
	sl_buf_init(&x);
	sl_buf_init(&y);
	assert_int_equal(sl_rowcodec_row(a, r, &x), 0);
	assert_int_equal(sl_rowcodec_row(b, s, &y), 0);
	assert_int_equal(x.len, y.len);
	assert_memory_equal(x.p, y.p, x.len);
	sl_buf_deinit(&x);
	sl_buf_deinit(&y);
	if (b->ncols < NC)
		return;
	const sl_col *strs[] = {&b->cols[3], &b->cols[5], &b->cols[4].child[1]};
	for (int i = 0; i < 3; i++) {
		if (strs[i]->null[s])
			continue;
		const sl_str *v = &strs[i]->v.str[s];
		assert_int_equal(v->ptr[v->len], 0);
		assert_false(v->ptr >= text && v->ptr < text + sizeof(text));
	}
}

/* The order rows are picked in: a permutation with repeats left out. */
static int pick(int i)
{
	return (i * 17 + 5) % NR;
}

static void test_rows_and_range(void **st)
{
	(void)st;
	sl_batch *src = source();
	sl_type t[NC];
	types(t);
	sl_batch *one = sl_batch_new(NC, t, 2 * NR), *col = sl_batch_new(NC, t, 2 * NR);
	assert_non_null(one);
	assert_non_null(col);
	/* a list of rows, in two appends, behind 3 rows already there */
	uint32_t rows[NR];
	for (int i = 0; i < NR; i++)
		rows[i] = (uint32_t)pick(i);
	for (int i = 0; i < 3; i++) {
		assert_true(sl_batch_copy_row(one, src, i, src->op[i], src->wm[i]) >= 0);
		assert_true(sl_batch_copy_row(col, src, i, src->op[i], src->wm[i]) >= 0);
	}
	for (int i = 0; i < NR; i++)
		assert_true(sl_batch_copy_row(one, src, (int)rows[i], src->op[rows[i]],
		                              src->wm[rows[i]]) >= 0);
	assert_int_equal(sl_batch_append_rows(col, src, rows, 0, 11), 0);
	assert_int_equal(sl_batch_append_rows(col, src, rows + 11, 0, NR - 11), 0);
	assert_int_equal(col->nrows, NR + 3);
	memset(text, '#', sizeof(text)); /* the source's buffer is reused */
	for (int i = 0; i < NR + 3; i++)
		same_row(one, i, col, i);
	sl_batch_free(src);

	/* a contiguous range, and an empty append */
	src = source();
	sl_batch_reset(one);
	sl_batch_reset(col);
	for (int i = 5; i < 5 + 30; i++)
		assert_true(sl_batch_copy_row(one, src, i, src->op[i], src->wm[i]) >= 0);
	assert_int_equal(sl_batch_append_rows(col, src, NULL, 5, 0), 0);
	assert_int_equal(col->nrows, 0);
	assert_int_equal(sl_batch_append_rows(col, src, NULL, 5, 30), 0);
	assert_int_equal(col->nrows, 30);
	memset(text, '#', sizeof(text));
	for (int i = 0; i < 30; i++)
		same_row(one, i, col, i);
	sl_batch_free(src);
	sl_batch_free(one);
	sl_batch_free(col);
}

/* A destination with fewer columns than the source takes the first ones. */
static void test_fewer_columns(void **st)
{
	(void)st;
	sl_batch *src = source();
	sl_type t[NC];
	types(t);
	sl_batch *a = sl_batch_new(2, t, NR), *b = sl_batch_new(2, t, NR);
	assert_non_null(a);
	assert_non_null(b);
	uint32_t rows[] = {7, 3, 3, 39, 0};
	for (int i = 0; i < 5; i++)
		assert_true(sl_batch_copy_row(a, src, (int)rows[i], src->op[rows[i]],
		                              src->wm[rows[i]]) >= 0);
	assert_int_equal(sl_batch_append_rows(b, src, rows, 0, 5), 0);
	for (int i = 0; i < 5; i++)
		same_row(a, i, b, i);
	sl_batch_free(a);
	sl_batch_free(b);
	sl_batch_free(src);
}

static void test_copy_short(void **state)
{
	char src[160], dst[160];
	for (int i = 0; i < (int)sizeof(src); i++)
		src[i] = (char)(i * 7 + 1);
	for (size_t n = 0; n <= 100; n++)
		for (int so = 0; so < 16; so++)
			for (int dof = 0; dof < 16; dof++) {
				memset(dst, 0x5a, sizeof(dst));
				sl_copy_short(dst + 20 + dof, src + so, n);
				for (int i = 0; i < (int)sizeof(dst); i++) {
					int in = i >= 20 + dof && i < 20 + dof + (int)n;
					assert_int_equal(dst[i], in ? src[so + i - 20 - dof] : 0x5a);
				}
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_and_range),
		cmocka_unit_test(test_fewer_columns),
		cmocka_unit_test(test_copy_short),
	};
	return cmocka_run_group_tests_name("batch", tests, NULL, NULL);
}
