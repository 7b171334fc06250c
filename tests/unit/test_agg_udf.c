/*
 * test_agg_udf.c - unit tests of src/exec/agg_udf.c: a user-defined
 * aggregate's vtab driven through sl_agg_add_one / result / merge with
 * registrations defined here (no shared object): the lazy init header,
 * NULL handling of both kinds, retract, merges of initialised and fresh
 * accumulators, result normalisation (BOOLEAN, INT range) and the error
 * of each failing callback.  tests/udf/udaf.slt covers the same through
 * SQL and a real library.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "exec/agg.h"
#include "sluice.h"
#include "sluice_udf.h"

/* sum(BIGINT) -> INT with an init that starts at 100; fails on 13 (any
 * callback), get_value fails when the sum is 7. */
typedef struct acc {
	int64_t sum;
	int64_t inits; /* how often init ran on this accumulator */
	int64_t nulls; /* NULL arguments seen (CALLED_ON_NULL) */
} acc;

static void t_init(void *a)
{
	((acc *)a)->sum = 100;
	((acc *)a)->inits++;
}

static int fold(sluice_udf_ctx *ctx, int n, const uint32_t *rows, const sluice_udf_col *args,
                void *const *accs, int sign)
{
	for (int k = 0; k < n; k++) {
		acc *a = accs[k];
		if (args[0].null[rows[k]]) {
			a->nulls++;
			continue;
		}
		int64_t x = args[0].v.i64[rows[k]];
		if (x == 13) {
			snprintf(ctx->errmsg, sizeof ctx->errmsg, "unlucky %lld", (long long)x);
			return -1;
		}
		a->sum += sign * x;
	}
	return 0;
}

static int t_acc(sluice_udf_ctx *ctx, int n, const uint32_t *rows, const sluice_udf_col *args,
                 void *const *accs)
{
	return fold(ctx, n, rows, args, accs, 1);
}

static int t_ret(sluice_udf_ctx *ctx, int n, const uint32_t *rows, const sluice_udf_col *args,
                 void *const *accs)
{
	return fold(ctx, n, rows, args, accs, -1);
}

static int t_merge(sluice_udf_ctx *ctx, void *a, const void *b)
{
	if (((const acc *)b)->sum == 13) {
		snprintf(ctx->errmsg, sizeof ctx->errmsg, "cannot merge 13");
		return -1;
	}
	((acc *)a)->sum += ((const acc *)b)->sum - 100; /* both started at 100 */
	return 0;
}

static int t_get(sluice_udf_ctx *ctx, const void *a, sluice_udf_col *out, uint32_t row)
{
	const acc *x = a;
	assert_null(ctx->alloc);
	if (x->sum == 7) {
		snprintf(ctx->errmsg, sizeof ctx->errmsg, "seven");
		return -1;
	}
	out->v.i64[row] = x->sum;
	return 0;
}

static const sluice_udf reg = {
	.abi_version = SLUICE_UDF_ABI_VERSION, .name = "t",
	.nargs = 1, .result_type = "INT",
	.null_handling = SLUICE_UDF_NULL_IN_NULL_OUT,
	.kind = SLUICE_UDF_AGGREGATE, .acc_size = sizeof(acc), .init = t_init,
	.accumulate = t_acc, .retract = t_ret, .merge = t_merge, .get_value = t_get,
};

typedef struct fix {
	sl_agg_vtab vt;
	sl_agg a;
	sl_batch *in, *out;
	_Alignas(16) char slot[64], slot2[64];
	sl_err err;
} fix;

static void setup_agg(fix *f, const sluice_udf *u, sl_type out)
{
	memset(f, 0, sizeof(*f));
	sl_agg_udf_vtab(&f->vt, u, "t");
	f->a.vt = &f->vt;
	f->a.nargs = 1;
	f->a.arg_col = f->a.arg_cols[0] = 0;
	f->a.filter_col = -1;
	f->a.out_type = out;
	f->a.offset = 16; /* behind some other aggregate's accumulator */
	sl_type it = sl_type_make(SL_T_BIGINT);
	f->in = sl_batch_new(1, &it, 8);
	f->out = sl_batch_new(1, &out, 8);
	assert_non_null(f->in);
	assert_non_null(f->out);
}

static void teardown_agg(fix *f)
{
	sl_batch_free(f->in);
	sl_batch_free(f->out);
}

/* Adds a row of value x (null: NULL) to the input; returns its index. */
static int row(fix *f, int64_t x, int null)
{
	int r = sl_batch_add_row(f->in, SL_INSERT, SL_WM_MIN);
	if (null)
		sl_col_set_null(&f->in->cols[0], r);
	else
		sl_col_set_i64(&f->in->cols[0], r, x);
	return r;
}

static int64_t result(fix *f, const void *slot, int *isnull)
{
	int rc = f->vt.result(&f->a, (const char *)slot + f->a.offset, &f->out->cols[0], 0, &f->err);
	assert_int_equal(rc, 0);
	*isnull = f->out->cols[0].null[0];
	return f->out->cols[0].v.i64[0];
}

static void test_layout_and_init(void **st)
{
	fix f;
	setup_agg(&f, &reg, sl_type_make(SL_T_INT));
	assert_int_equal(f.vt.acc_size, 16 + 32); /* header + 24 bytes rounded to 16 */
	assert_true(f.vt.retractable);
	int isnull;
	/* a fresh slot reads as init's accumulator, and stays untouched */
	assert_int_equal(result(&f, f.slot, &isnull), 100);
	assert_false(isnull);
	const acc *a = (const acc *)(f.slot + f.a.offset + 16);
	assert_int_equal(a->inits, 0);
	/* the first row runs init once */
	assert_int_equal(sl_agg_add_one(&f.a, f.slot, f.in, row(&f, 5, 0), 1, &f.err), 0);
	assert_int_equal(sl_agg_add_one(&f.a, f.slot, f.in, row(&f, 6, 0), 1, &f.err), 0);
	assert_int_equal(a->inits, 1);
	assert_int_equal(result(&f, f.slot, &isnull), 111);
	/* NULL_IN_NULL_OUT: a NULL row is not passed */
	assert_int_equal(sl_agg_add_one(&f.a, f.slot, f.in, row(&f, 0, 1), 1, &f.err), 0);
	assert_int_equal(a->nulls, 0);
	/* retract */
	assert_int_equal(sl_agg_add_one(&f.a, f.slot, f.in, row(&f, 5, 0), -1, &f.err), 0);
	assert_int_equal(result(&f, f.slot, &isnull), 106);
	/* the bytes before the slice are not touched */
	for (int i = 0; i < 16; i++)
		assert_int_equal(f.slot[i], 0);
	teardown_agg(&f);
}

static void test_called_on_null(void **st)
{
	sluice_udf u = reg;
	u.null_handling = SLUICE_UDF_CALLED_ON_NULL;
	fix f;
	setup_agg(&f, &u, sl_type_make(SL_T_INT));
	assert_int_equal(sl_agg_add_one(&f.a, f.slot, f.in, row(&f, 0, 1), 1, &f.err), 0);
	const acc *a = (const acc *)(f.slot + f.a.offset + 16);
	assert_int_equal(a->nulls, 1);
	teardown_agg(&f);
}

static void test_merge(void **st)
{
	fix f;
	setup_agg(&f, &reg, sl_type_make(SL_T_INT));
	int isnull;
	/* fresh src into fresh dst: both stay fresh */
	assert_int_equal(f.vt.merge(&f.a, f.slot + 16, f.slot2 + 16, &f.err), 0);
	assert_int_equal(result(&f, f.slot, &isnull), 100);
	/* initialised src into fresh dst: copied */
	assert_int_equal(sl_agg_add_one(&f.a, f.slot2, f.in, row(&f, 4, 0), 1, &f.err), 0);
	assert_int_equal(f.vt.merge(&f.a, f.slot + 16, f.slot2 + 16, &f.err), 0);
	assert_int_equal(result(&f, f.slot, &isnull), 104);
	/* both initialised: the library's merge */
	assert_int_equal(f.vt.merge(&f.a, f.slot + 16, f.slot2 + 16, &f.err), 0);
	assert_int_equal(result(&f, f.slot, &isnull), 108);
	/* fresh src into initialised dst: nothing */
	char fresh[64] = {0};
	assert_int_equal(f.vt.merge(&f.a, f.slot + 16, fresh + 16, &f.err), 0);
	assert_int_equal(result(&f, f.slot, &isnull), 108);
	/* no merge callback: an error naming the function */
	sluice_udf u = reg;
	u.merge = NULL;
	sl_agg_vtab vt;
	sl_agg_udf_vtab(&vt, &u, "nomerge");
	sl_agg b = f.a;
	b.vt = &vt;
	assert_int_equal(vt.merge(&b, f.slot + 16, f.slot2 + 16, &f.err), SL_ERUNTIME);
	assert_non_null(strstr(f.err.msg, "'nomerge' has no merge function"));
	teardown_agg(&f);
}

static void test_errors(void **st)
{
	fix f;
	setup_agg(&f, &reg, sl_type_make(SL_T_INT));
	f.a.line = 3;
	f.a.col = 9;
	int r = row(&f, 13, 0);
	assert_int_equal(sl_agg_add_one(&f.a, f.slot, f.in, r, 1, &f.err), SL_ERUNTIME);
	assert_string_equal(f.err.msg, "line 3, column 9: user-defined aggregate function 't' "
	                               "failed in accumulate: unlucky 13");
	assert_int_equal(f.err.row, r + 1);
	memset(&f.err, 0, sizeof f.err);
	assert_int_equal(sl_agg_add_one(&f.a, f.slot, f.in, r, -1, &f.err), SL_ERUNTIME);
	assert_non_null(strstr(f.err.msg, "failed in retract: unlucky 13"));
	/* get_value failing, and an INT result out of range */
	memset(&f.err, 0, sizeof f.err);
	memset(f.slot, 0, sizeof f.slot);
	assert_int_equal(sl_agg_add_one(&f.a, f.slot, f.in, row(&f, -93, 0), 1, &f.err), 0);
	assert_int_equal(f.vt.result(&f.a, f.slot + 16, &f.out->cols[0], 0, &f.err), SL_ERUNTIME);
	assert_non_null(strstr(f.err.msg, "failed in get_value: seven"));
	memset(&f.err, 0, sizeof f.err);
	assert_int_equal(sl_agg_add_one(&f.a, f.slot, f.in, row(&f, (int64_t)1 << 40, 0), 1,
	                                &f.err), 0);
	assert_int_equal(f.vt.result(&f.a, f.slot + 16, &f.out->cols[0], 0, &f.err), SL_ERUNTIME);
	assert_non_null(strstr(f.err.msg, "'t' returned 1099511627783, out of range for its "
	                                  "result type INT"));
	/* no retract: an error rather than a silent no-op */
	sluice_udf u = reg;
	u.retract = NULL;
	sl_agg_vtab vt;
	sl_agg_udf_vtab(&vt, &u, "noret");
	assert_false(vt.retractable);
	sl_agg b = f.a;
	b.vt = &vt;
	memset(&f.err, 0, sizeof f.err);
	assert_int_equal(sl_agg_add_one(&b, f.slot, f.in, row(&f, 1, 0), -1, &f.err), SL_ERUNTIME);
	assert_non_null(strstr(f.err.msg, "'noret' has no retract function"));
	teardown_agg(&f);
}

static void test_boolean_result(void **st)
{
	fix f;
	setup_agg(&f, &reg, sl_type_make(SL_T_BOOLEAN));
	int isnull;
	assert_int_equal(result(&f, f.slot, &isnull), 1); /* 100 -> TRUE */
	teardown_agg(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_and_init),
		cmocka_unit_test(test_called_on_null),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_boolean_result),
	};
	return cmocka_run_group_tests_name("agg_udf", tests, NULL, NULL);
}
