/*
 * test_expr.c - typing rules, compilation and evaluation of the core
 * operators: arithmetic (integers, DOUBLE, exact DECIMAL), comparisons,
 * three-valued logic, CASE short-circuiting, selections, filters, CAST and
 * TRY_CAST, constant folding and EXPLAIN formatting.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "expr/expr.h"
#include "expr/expr_int.h"
#include "sluice.h"

static sl_arena A;
static sl_err E;

static int setup(void **st)
{
	sl_arena_init(&A, 0);
	sl_err_clear(&E);
	return 0;
}

static int teardown(void **st)
{
	sl_arena_deinit(&A);
	return 0;
}

static sl_type T(sl_type_id id) { return sl_type_make(id); }
static sl_expr *col(int i, sl_type t) { return sl_expr_col(&A, i, t); }
static sl_expr *ilit(int64_t v) { return sl_expr_lit_i64(&A, T(SL_T_INT), v); }
static sl_expr *slit(const char *s) { return sl_expr_lit_str(&A, s, (int64_t)strlen(s)); }

static sl_expr *call(sl_fn fn, int n, ...)
{
	sl_expr *args[8];
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		args[i] = va_arg(ap, sl_expr *);
	va_end(ap);
	sl_expr *e = sl_expr_call(&A, fn, args, n, NULL, 0, &E);
	if (!e)
		print_message("type error: %s\n", E.msg);
	return e;
}

static sl_expr *cast(sl_fn fn, sl_expr *x, sl_type t)
{
	sl_expr *e = sl_expr_call(&A, fn, &x, 1, &t, 0, &E);
	if (!e)
		print_message("type error: %s\n", E.msg);
	return e;
}

static sl_expr *dlit(const char *text, int p, int s)
{
	sl_value v = {0};
	sl_i128 u = 0;
	int neg = 0, seen = 0;
	for (const char *c = text; *c; c++) {
		if (*c == '-')
			neg = 1;
		else if (*c != '.')
			u = u * 10 + (*c - '0');
		(void)seen;
	}
	v.v.i128 = neg ? -u : u;
	return sl_expr_lit(&A, sl_type_decimal(p, s), v);
}

/* Evaluates one expression over `in` into a fresh one-column batch. */
static sl_batch *eval1(sl_expr *e, sl_batch *in, int *rc)
{
	sl_type tin[8];
	for (int i = 0; i < in->ncols; i++)
		tin[i] = in->cols[i].type;
	sl_prog *p = sl_prog_compile(&e, 1, tin, in->ncols, &E);
	assert_non_null(p);
	sl_batch *out = sl_batch_new(1, &e->type, in->cap);
	for (int i = 0; i < in->nrows; i++)
		sl_batch_add_row(out, 0, SL_WM_MIN);
	*rc = sl_prog_eval(p, in, out, out->cols, NULL, &E);
	/* a string result may point into the program (a literal's bytes): copy
	 * it into the batch before the program is freed */
	sl_col *c = &out->cols[0];
	if (!*rc && sl_type_phys(c->type) == SL_PHYS_STR)
		for (int i = 0; i < out->nrows; i++)
			if (!c->null[i])
				assert_int_equal(sl_col_set_str_in(&out->arena, c, i, c->v.str[i].ptr,
				                                   c->v.str[i].len), 0);
	sl_prog_free(p);
	return out;
}

static sl_batch *ints(int n, const int64_t *a, const int64_t *b, const uint8_t *bnull)
{
	sl_type t[2] = {T(SL_T_INT), T(SL_T_INT)};
	sl_batch *in = sl_batch_new(2, t, 0);
	for (int i = 0; i < n; i++) {
		int r = sl_batch_add_row(in, 0, SL_WM_MIN);
		sl_col_set_i64(&in->cols[0], r, a[i]);
		if (!bnull || !bnull[i])
			sl_col_set_i64(&in->cols[1], r, b[i]);
	}
	return in;
}

static void test_int_arith(void **st)
{
	int64_t a[] = {7, -7, 2147483647, 10}, b[] = {2, 2, 1, 0};
	uint8_t bn[] = {0, 0, 0, 1};
	sl_batch *in = ints(4, a, b, bn);
	int rc;
	sl_expr *e = call(SL_FN_DIV, 2, col(0, T(SL_T_INT)), col(1, T(SL_T_INT)));
	assert_int_equal(e->type.id, SL_T_INT);
	sl_batch *o = eval1(e, in, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(o->cols[0].v.i64[0], 3);
	assert_int_equal(o->cols[0].v.i64[1], -3);
	assert_int_equal(o->cols[0].v.i64[2], 2147483647);
	assert_true(o->cols[0].null[3]);
	sl_batch_free(o);
	/* INT + INT wraps like Java */
	e = call(SL_FN_ADD, 2, col(0, T(SL_T_INT)), col(1, T(SL_T_INT)));
	o = eval1(e, in, &rc);
	assert_int_equal(o->cols[0].v.i64[2], INT32_MIN);
	sl_batch_free(o);
	/* MOD: sign of the dividend */
	e = call(SL_FN_MOD, 2, col(0, T(SL_T_INT)), col(1, T(SL_T_INT)));
	o = eval1(e, in, &rc);
	assert_int_equal(o->cols[0].v.i64[1], -1);
	sl_batch_free(o);
	/* division by zero raises */
	sl_col_set_i64(&in->cols[1], 3, 0);
	e = call(SL_FN_DIV, 2, col(0, T(SL_T_INT)), col(1, T(SL_T_INT)));
	o = eval1(e, in, &rc);
	assert_int_equal(rc, SL_ERUNTIME);
	assert_non_null(strstr(E.msg, "division by zero"));
	sl_batch_free(o);
	sl_batch_free(in);
}

static void test_type_rules(void **st)
{
	char buf[64];
	sl_expr *x = col(0, sl_type_decimal(10, 2)), *y = col(1, sl_type_decimal(10, 2));
	sl_expr *e = call(SL_FN_ADD, 2, x, y);
	assert_string_equal(sl_type_format(e->type, buf, sizeof(buf)), "DECIMAL(11, 2)");
	e = call(SL_FN_MUL, 2, x, y);
	assert_string_equal(sl_type_format(e->type, buf, sizeof(buf)), "DECIMAL(20, 4)");
	e = call(SL_FN_DIV, 2, x, y);
	/* s = max(6, 2 + 10 + 1) = 13, p = 10 - 2 + 2 + 13 = 23 */
	assert_string_equal(sl_type_format(e->type, buf, sizeof(buf)), "DECIMAL(23, 13)");
	e = call(SL_FN_ADD, 2, x, col(2, T(SL_T_INT)));
	/* INT -> DECIMAL(10, 0): p = max(8, 10) + 2 + 1 */
	assert_string_equal(sl_type_format(e->type, buf, sizeof(buf)), "DECIMAL(13, 2)");
	e = call(SL_FN_MUL, 2, col(0, sl_type_decimal(38, 10)), col(1, sl_type_decimal(38, 10)));
	assert_string_equal(sl_type_format(e->type, buf, sizeof(buf)), "DECIMAL(38, 6)");
	e = call(SL_FN_ADD, 2, col(0, T(SL_T_BIGINT)), col(1, T(SL_T_DOUBLE)));
	assert_int_equal(e->type.id, SL_T_DOUBLE);
	e = call(SL_FN_ADD, 2, col(0, T(SL_T_SMALLINT)), col(1, T(SL_T_INT)));
	assert_int_equal(e->type.id, SL_T_INT);
	e = call(SL_FN_DIV, 2, col(0, T(SL_T_BIGINT)), col(1, T(SL_T_INT)));
	assert_int_equal(e->type.id, SL_T_BIGINT);
	/* errors name the function and the types */
	sl_err_clear(&E);
	sl_expr *args[2] = {col(0, sl_type_varchar(SL_STRING_LEN)), col(1, T(SL_T_INT))};
	assert_null(sl_expr_call(&A, SL_FN_ADD, args, 2, NULL, 0, &E));
	assert_string_equal(E.msg, "cannot apply '+' to STRING and INT");
	/* nullability */
	sl_type nn = T(SL_T_INT);
	nn.notnull = 1;
	e = call(SL_FN_ADD, 2, col(0, nn), ilit(1));
	assert_true(e->type.notnull);
	e = call(SL_FN_ADD, 2, col(0, nn), col(1, T(SL_T_INT)));
	assert_false(e->type.notnull);
	/* CASE: least restrictive type */
	e = call(SL_FN_CASE, 3, col(0, T(SL_T_BOOLEAN)), ilit(1), col(1, sl_type_decimal(5, 2)));
	assert_string_equal(sl_type_format(e->type, buf, sizeof(buf)), "DECIMAL(12, 2)");
	/* || is STRING */
	e = call(SL_FN_CONCAT, 2, slit("a"), slit("bc"));
	assert_string_equal(sl_type_format(e->type, buf, sizeof(buf)), "STRING NOT NULL");
}

static sl_batch *decs(int n, const int64_t *a, const int64_t *b, int p, int s)
{
	sl_type t[2] = {sl_type_decimal(p, s), sl_type_decimal(p, s)};
	sl_batch *in = sl_batch_new(2, t, 0);
	for (int i = 0; i < n; i++) {
		int r = sl_batch_add_row(in, 0, SL_WM_MIN);
		sl_col_set_i128(&in->cols[0], r, a[i]);
		sl_col_set_i128(&in->cols[1], r, b[i]);
	}
	return in;
}

static void test_decimal(void **st)
{
	int64_t a[] = {1050, -1, 333}, b[] = {25, 1, 3}; /* 10.50, -0.01, 3.33 / 0.25, 0.01, 0.03 */
	sl_batch *in = decs(3, a, b, 10, 2);
	sl_type dt = sl_type_decimal(10, 2);
	int rc;
	sl_batch *o = eval1(call(SL_FN_ADD, 2, col(0, dt), col(1, dt)), in, &rc);
	assert_int_equal(rc, 0);
	assert_true(o->cols[0].v.i128[0] == 1075);
	assert_true(o->cols[0].v.i128[1] == 0);
	sl_batch_free(o);
	o = eval1(call(SL_FN_MUL, 2, col(0, dt), col(1, dt)), in, &rc);
	assert_true(o->cols[0].v.i128[0] == 26250); /* 2.6250 */
	sl_batch_free(o);
	sl_expr *d = call(SL_FN_DIV, 2, col(0, dt), col(1, dt));
	o = eval1(d, in, &rc);
	assert_int_equal(d->type.scale, 13);
	assert_true(o->cols[0].v.i128[0] == (sl_i128)42 * sl_pow10_i128(13)); /* 10.50 / 0.25 */
	assert_true(o->cols[0].v.i128[2] == (sl_i128)111 * sl_pow10_i128(13));
	sl_batch_free(o);
	/* comparison across scales */
	o = eval1(call(SL_FN_LT, 2, col(0, dt), dlit("10.501", 10, 3)), in, &rc);
	assert_int_equal(o->cols[0].v.i64[0], 1);
	sl_batch_free(o);
	sl_batch_free(in);
	/* overflow: DECIMAL(38, 2) + DECIMAL(38, 2) -> DECIMAL(38, 2) */
	sl_type big = sl_type_decimal(38, 2);
	sl_batch *bin = sl_batch_new(2, (sl_type[]){big, big}, 0);
	int r = sl_batch_add_row(bin, 0, SL_WM_MIN);
	sl_i128 max = sl_pow10_i128(38) - 1;
	sl_col_set_i128(&bin->cols[0], r, max);
	sl_col_set_i128(&bin->cols[1], r, 1);
	sl_err_clear(&E);
	o = eval1(call(SL_FN_ADD, 2, col(0, big), col(1, big)), bin, &rc);
	assert_int_equal(rc, SL_ERUNTIME);
	assert_string_equal(E.msg, "DECIMAL(38, 2) overflow in '+'");
	sl_batch_free(o);
	sl_batch_free(bin);
}

static sl_batch *bools(int n, const int *a, const int *b)
{
	/* -1 = NULL */
	sl_type t[2] = {T(SL_T_BOOLEAN), T(SL_T_BOOLEAN)};
	sl_batch *in = sl_batch_new(2, t, 0);
	for (int i = 0; i < n; i++) {
		int r = sl_batch_add_row(in, 0, SL_WM_MIN);
		if (a[i] >= 0)
			sl_col_set_i64(&in->cols[0], r, a[i]);
		if (b[i] >= 0)
			sl_col_set_i64(&in->cols[1], r, b[i]);
	}
	return in;
}

static void test_three_valued(void **st)
{
	int a[] = {1, 1, 1, 0, 0, 0, -1, -1, -1}, b[] = {1, 0, -1, 1, 0, -1, 1, 0, -1};
	int and_[] = {1, 0, -1, 0, 0, 0, -1, 0, -1}, or_[] = {1, 1, 1, 1, 0, -1, 1, -1, -1};
	sl_batch *in = bools(9, a, b);
	sl_type bt = T(SL_T_BOOLEAN);
	int rc;
	sl_batch *o = eval1(call(SL_FN_AND, 2, col(0, bt), col(1, bt)), in, &rc);
	for (int i = 0; i < 9; i++) {
		assert_int_equal(o->cols[0].null[i], and_[i] < 0);
		if (and_[i] >= 0)
			assert_int_equal(o->cols[0].v.i64[i], and_[i]);
	}
	sl_batch_free(o);
	o = eval1(call(SL_FN_OR, 2, col(0, bt), col(1, bt)), in, &rc);
	for (int i = 0; i < 9; i++) {
		assert_int_equal(o->cols[0].null[i], or_[i] < 0);
		if (or_[i] >= 0)
			assert_int_equal(o->cols[0].v.i64[i], or_[i]);
	}
	sl_batch_free(o);
	o = eval1(call(SL_FN_IS_NOT_TRUE, 1, col(0, bt)), in, &rc);
	assert_int_equal(o->cols[0].v.i64[0], 0);
	assert_int_equal(o->cols[0].v.i64[6], 1);
	assert_int_equal(o->cols[0].null[6], 0);
	sl_batch_free(o);
	o = eval1(call(SL_FN_IS_DISTINCT, 2, col(0, bt), col(1, bt)), in, &rc);
	assert_int_equal(o->cols[0].v.i64[8], 0); /* NULL vs NULL */
	assert_int_equal(o->cols[0].v.i64[2], 1); /* TRUE vs NULL */
	assert_int_equal(o->cols[0].v.i64[0], 0);
	sl_batch_free(o);
	sl_batch_free(in);
}

static void test_case_short_circuit(void **st)
{
	int64_t a[] = {0, 5, 0, -2}, b[] = {0, 0, 0, 0};
	sl_batch *in = ints(4, a, b, NULL);
	sl_type it = T(SL_T_INT);
	int rc;
	/* CASE WHEN x <> 0 THEN 10 / x END */
	sl_expr *e = call(SL_FN_CASE, 2, call(SL_FN_NE, 2, col(0, it), ilit(0)),
	                  call(SL_FN_DIV, 2, ilit(10), col(0, it)));
	sl_batch *o = eval1(e, in, &rc);
	assert_int_equal(rc, 0);
	assert_true(o->cols[0].null[0]);
	assert_int_equal(o->cols[0].v.i64[1], 2);
	assert_int_equal(o->cols[0].v.i64[3], -5);
	sl_batch_free(o);
	/* x <> 0 AND 10 / x > 1 */
	e = call(SL_FN_AND, 2, call(SL_FN_NE, 2, col(0, it), ilit(0)),
	         call(SL_FN_GT, 2, call(SL_FN_DIV, 2, ilit(10), col(0, it)), ilit(1)));
	o = eval1(e, in, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(o->cols[0].v.i64[0], 0);
	assert_int_equal(o->cols[0].v.i64[1], 1);
	assert_int_equal(o->cols[0].v.i64[3], 0);
	sl_batch_free(o);
	/* multi-branch with ELSE */
	e = call(SL_FN_CASE, 5, call(SL_FN_LT, 2, col(0, it), ilit(0)), slit("neg"),
	         call(SL_FN_EQ, 2, col(0, it), ilit(0)), slit("zero"), slit("pos"));
	o = eval1(e, in, &rc);
	assert_int_equal(o->cols[0].v.str[0].len, 4);
	assert_memory_equal(o->cols[0].v.str[0].ptr, "zero", 4);
	assert_memory_equal(o->cols[0].v.str[1].ptr, "pos", 3);
	assert_memory_equal(o->cols[0].v.str[3].ptr, "neg", 3);
	sl_batch_free(o);
	sl_batch_free(in);
}

static void test_filter_and_selection(void **st)
{
	sl_type t[3] = {T(SL_T_BIGINT), T(SL_T_BIGINT), T(SL_T_BIGINT)};
	sl_batch *in = sl_batch_new(3, t, 0);
	for (int i = 0; i < 100; i++) {
		int r = sl_batch_add_row(in, 0, SL_WM_MIN);
		sl_col_set_i64(&in->cols[0], r, i);
		sl_col_set_i64(&in->cols[1], r, i % 7);
		if (i % 10 != 3)
			sl_col_set_i64(&in->cols[2], r, 50);
	}
	/* a + b * 2 > c */
	sl_expr *e = call(SL_FN_GT, 2,
	                  call(SL_FN_ADD, 2, col(0, t[0]),
	                       call(SL_FN_MUL, 2, col(1, t[1]), sl_expr_lit_i64(&A, t[0], 2))),
	                  col(2, t[2]));
	sl_prog *p = sl_prog_compile(&e, 1, t, 3, &E);
	assert_non_null(p);
	/* pre-select the even rows */
	uint32_t sel[50];
	for (int i = 0; i < 50; i++)
		sel[i] = (uint32_t)(2 * i);
	in->sel = sel;
	in->nsel = 50;
	assert_int_equal(sl_prog_filter(p, in, NULL, &E), 0);
	int expect = 0;
	for (int i = 0; i < 100; i += 2)
		if (i % 10 != 3 && i + (i % 7) * 2 > 50)
			expect++;
	assert_int_equal(in->nsel, expect);
	for (int k = 0; k < in->nsel; k++) {
		int i = (int)in->sel[k];
		assert_true(i % 2 == 0 && i + (i % 7) * 2 > 50);
	}
	sl_prog_free(p);
	sl_batch_free(in);
}

static void test_cast(void **st)
{
	sl_type s = sl_type_varchar(SL_STRING_LEN);
	sl_batch *in = sl_batch_new(1, &s, 0);
	const char *vals[] = {"42", " -7 ", "abc", "3000000000"};
	for (int i = 0; i < 4; i++)
		sl_col_set_str(in, &in->cols[0], sl_batch_add_row(in, 0, SL_WM_MIN), vals[i],
		               (int64_t)strlen(vals[i]));
	int rc;
	sl_batch *o = eval1(cast(SL_FN_TRY_CAST, col(0, s), T(SL_T_INT)), in, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(o->cols[0].v.i64[0], 42);
	assert_int_equal(o->cols[0].v.i64[1], -7);
	assert_true(o->cols[0].null[2]);
	assert_true(o->cols[0].null[3]);
	sl_batch_free(o);
	sl_err_clear(&E);
	o = eval1(cast(SL_FN_CAST, col(0, s), T(SL_T_INT)), in, &rc);
	assert_int_equal(rc, SL_ERUNTIME);
	assert_string_equal(E.msg, "cannot cast 'abc' to INT");
	sl_batch_free(o);
	sl_batch_free(in);

	/* round trips through text, and numeric conversions */
	struct {
		sl_type t;
		const char *text, *back;
	} rt[] = {
		{sl_type_decimal(10, 2), "12.345", "12.35"},
		{sl_type_decimal(10, 2), "-0.005", "-0.01"},
		{T(SL_T_BOOLEAN), "TrUe", "TRUE"},
		{T(SL_T_DATE), "2026-08-01", "2026-08-01"},
		{sl_type_timestamp(SL_T_TIMESTAMP, 3), "2026-08-01 09:00:05.1239", "2026-08-01 09:00:05.123"},
		{T(SL_T_DOUBLE), "1.5", "1.5"},
		{T(SL_T_BIGINT), "-9223372036854775808", "-9223372036854775808"},
	};
	for (size_t k = 0; k < sizeof(rt) / sizeof(rt[0]); k++) {
		sl_expr *e = cast(SL_FN_CAST, cast(SL_FN_CAST, slit(rt[k].text), rt[k].t), s);
		sl_value v;
		assert_int_equal(sl_expr_eval_const(e, &A, &v, &E), 0);
		assert_false(v.is_null);
		assert_int_equal(v.v.str.len, (int64_t)strlen(rt[k].back));
		assert_memory_equal(v.v.str.ptr, rt[k].back, strlen(rt[k].back));
	}
	/* narrowing overflow */
	sl_value v;
	sl_err_clear(&E);
	assert_int_equal(sl_expr_eval_const(cast(SL_FN_CAST, ilit(300), T(SL_T_TINYINT)), &A, &v, &E),
	                 SL_ERUNTIME);
	assert_string_equal(E.msg, "cannot cast 300 to TINYINT");
	/* DOUBLE -> DECIMAL rounds HALF_UP; DECIMAL -> INT truncates */
	sl_expr *dd = sl_expr_lit(&A, T(SL_T_DOUBLE), (sl_value){.v.f64 = 2.675});
	assert_int_equal(sl_expr_eval_const(cast(SL_FN_CAST, dd, sl_type_decimal(5, 1)), &A, &v, &E), 0);
	assert_true(v.v.i128 == 27);
	assert_int_equal(sl_expr_eval_const(cast(SL_FN_CAST, dlit("-7.9", 3, 1), T(SL_T_INT)), &A, &v, &E), 0);
	assert_int_equal(v.v.i64, -7);
}

static void test_timestamp_compare_literal(void **st)
{
	sl_type ts = sl_type_timestamp(SL_T_TIMESTAMP, 3);
	sl_batch *in = sl_batch_new(1, &ts, 0);
	sl_col_set_i64(&in->cols[0], sl_batch_add_row(in, 0, SL_WM_MIN), 1785574805000000LL);
	sl_col_set_i64(&in->cols[0], sl_batch_add_row(in, 0, SL_WM_MIN), 1785574804000000LL);
	int rc;
	/* 2026-08-01 09:00:05 = 1785574805 s */
	sl_expr *e = call(SL_FN_GE, 2, col(0, ts), slit("2026-08-01 09:00:05"));
	assert_non_null(e);
	sl_batch *o = eval1(e, in, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(o->cols[0].v.i64[0], 1);
	assert_int_equal(o->cols[0].v.i64[1], 0);
	sl_batch_free(o);
	/* DATE vs TIMESTAMP */
	sl_expr *d = cast(SL_FN_CAST, slit("2026-08-01"), T(SL_T_DATE));
	e = call(SL_FN_GT, 2, col(0, ts), d);
	o = eval1(e, in, &rc);
	assert_int_equal(o->cols[0].v.i64[0], 1);
	sl_batch_free(o);
	/* TIMESTAMP + INTERVAL, month arithmetic clamps the day */
	sl_type ym = T(SL_T_INTERVAL_YM);
	sl_expr *jan31 = cast(SL_FN_CAST, slit("2024-01-31 10:00:00"), ts);
	e = call(SL_FN_ADD, 2, jan31, sl_expr_lit_i64(&A, ym, 1));
	sl_value v;
	assert_int_equal(sl_expr_eval_const(cast(SL_FN_CAST, e, sl_type_varchar(SL_STRING_LEN)), &A, &v, &E), 0);
	assert_memory_equal(v.v.str.ptr, "2024-02-29 10:00:00", 19);
	sl_batch_free(in);
}

static void test_in_coalesce_nullif(void **st)
{
	int64_t a[] = {1, 2, 3, 4}, b[] = {1, 0, 9, 0};
	uint8_t bn[] = {0, 1, 0, 1};
	sl_batch *in = ints(4, a, b, bn);
	sl_type it = T(SL_T_INT);
	int rc;
	sl_batch *o = eval1(call(SL_FN_IN, 4, col(0, it), ilit(2), col(1, it), ilit(4)), in, &rc);
	assert_int_equal(o->cols[0].v.i64[0], 1);   /* 1 IN (2, 1, 4) */
	assert_int_equal(o->cols[0].v.i64[1], 1);   /* 2 IN (2, NULL, 4) */
	assert_int_equal(o->cols[0].v.i64[2], 0);   /* 3 IN (2, 9, 4) */
	assert_int_equal(o->cols[0].null[2], 0);
	assert_int_equal(o->cols[0].null[3], 0);    /* 4 IN (2, NULL, 4): TRUE */
	sl_batch_free(o);
	o = eval1(call(SL_FN_IN, 3, col(0, it), ilit(7), col(1, it)), in, &rc);
	assert_true(o->cols[0].null[1]);            /* 2 IN (7, NULL): NULL */
	sl_batch_free(o);
	o = eval1(call(SL_FN_COALESCE, 2, col(1, it), col(0, it)), in, &rc);
	assert_int_equal(o->cols[0].v.i64[1], 2);
	assert_int_equal(o->cols[0].v.i64[2], 9);
	sl_batch_free(o);
	o = eval1(call(SL_FN_NULLIF, 2, col(0, it), col(1, it)), in, &rc);
	assert_true(o->cols[0].null[0]);
	assert_int_equal(o->cols[0].v.i64[2], 3);
	sl_batch_free(o);
	sl_batch_free(in);
}

static void test_fold_and_format(void **st)
{
	char buf[256];
	sl_type it = T(SL_T_INT);
	sl_expr *e = call(SL_FN_ADD, 2, col(1, it), call(SL_FN_MUL, 2, ilit(2), ilit(3)));
	const char *names[] = {"a", "b"};
	assert_string_equal(sl_expr_format(e, NULL, buf, sizeof(buf)), "($1 + (2 * 3))");
	assert_string_equal(sl_expr_format(e, names, buf, sizeof(buf)), "(b + (2 * 3))");
	sl_value v;
	assert_int_equal(sl_expr_eval_const(e->args[1], &A, &v, &E), 0);
	assert_int_equal(v.v.i64, 6);
	e = cast(SL_FN_CAST, col(0, it), T(SL_T_BIGINT));
	assert_string_equal(sl_expr_format(e, names, buf, sizeof(buf)), "CAST(a AS BIGINT)");
	sl_type ts3 = sl_type_timestamp(SL_T_TIMESTAMP, 3);
	e = call(SL_FN_FLOOR_TIME, 2, col(0, ts3), sl_expr_lit_i64(&A, it, SL_TU_HOUR));
	assert_string_equal(sl_expr_format(e, names, buf, sizeof(buf)), "FLOOR(a TO HOUR)");
	e = call(SL_FN_EXTRACT, 2, sl_expr_lit_i64(&A, it, SL_TU_YEAR), col(0, ts3));
	assert_string_equal(sl_expr_format(e, names, buf, sizeof(buf)), "EXTRACT(YEAR FROM a)");
	e = call(SL_FN_CASE, 3, call(SL_FN_IS_NULL, 1, col(1, it)), ilit(0), col(1, it));
	assert_string_equal(sl_expr_format(e, names, buf, sizeof(buf)),
	                    "CASE WHEN (b IS NULL) THEN 0 ELSE b END");
	/* the JSON functions print their clauses (fmt_json_call) */
	sl_type vt = sl_type_varchar(SL_STRING_LEN);
	sl_expr *path = sl_expr_lit_str(&A, "$.a", 3);
	e = call(SL_FN_IS_JSON, 2, col(0, vt), ilit(3));
	assert_string_equal(sl_expr_format(e, names, buf, sizeof(buf)), "(a IS JSON OBJECT)");
	e = call(SL_FN_JSON_EXISTS, 3, col(0, vt), path, ilit(SL_JSON_UNKNOWN));
	assert_string_equal(sl_expr_format(e, names, buf, sizeof(buf)),
	                    "JSON_EXISTS(a, '$.a' UNKNOWN ON ERROR)");
	e = call(SL_FN_JSON_QUERY, 5, col(0, vt), path, ilit(SL_JSON_CONDITIONAL_WRAPPER),
	         ilit(SL_JSON_EMPTY_ARRAY), ilit(SL_JSON_ERROR));
	assert_string_equal(sl_expr_format(e, names, buf, sizeof(buf)),
	                    "JSON_QUERY(a, '$.a' WITH CONDITIONAL ARRAY WRAPPER EMPTY ARRAY ON EMPTY "
	                    "ERROR ON ERROR)");
	assert_int_equal(sl_fn_from_name("character_length"), SL_FN_CHAR_LENGTH);
	assert_int_equal(sl_fn_from_name("LCASE"), SL_FN_LOWER);
	assert_int_equal(sl_fn_from_name("nope"), -1);
	assert_int_equal(sl_time_unit_from_name("hour"), SL_TU_HOUR);
	assert_int_equal(sl_time_unit_from_name("fortnight"), -1);
	/* a constant that fails is left for run time: CASE never reaches it */
	int64_t a[] = {1}, b[] = {1};
	sl_batch *in = ints(1, a, b, NULL);
	int rc;
	e = call(SL_FN_CASE, 3, call(SL_FN_GT, 2, col(0, it), ilit(0)), ilit(1),
	         call(SL_FN_DIV, 2, ilit(1), ilit(0)));
	sl_batch *o = eval1(e, in, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(o->cols[0].v.i64[0], 1);
	sl_batch_free(o);
	sl_batch_free(in);
}

static void test_big_batch(void **st)
{
	/* a batch larger than SL_BATCH_ROWS grows the registers */
	sl_type t = T(SL_T_BIGINT);
	sl_batch *in = sl_batch_new(1, &t, 3000);
	for (int i = 0; i < 3000; i++)
		sl_col_set_i64(&in->cols[0], sl_batch_add_row(in, 0, SL_WM_MIN), i);
	int rc;
	sl_batch *o = eval1(call(SL_FN_MUL, 2, call(SL_FN_ADD, 2, col(0, t), ilit(1)), ilit(2)), in, &rc);
	assert_int_equal(rc, 0);
	for (int i = 0; i < 3000; i++)
		assert_int_equal(o->cols[0].v.i64[i], (i + 1) * 2);
	sl_batch_free(o);
	sl_batch_free(in);
}

static void test_field_arity_guards(void **st)
{
	/* ROW<a INT, s STRING> */
	sl_field f[2] = {{"a", T(SL_T_INT)}, {"s", sl_type_varchar(SL_STRING_LEN)}};
	sl_row_type rt = {2, f};
	sl_type row = T(SL_T_ROW);
	row.row = &rt;
	sl_type t[2] = {row, T(SL_T_INT)};
	sl_batch *in = sl_batch_new(2, t, 0);
	int r0 = sl_batch_add_row(in, 0, SL_WM_MIN);
	in->cols[0].null[r0] = 0;
	sl_col_set_i64(&in->cols[0].child[0], r0, 41);
	sl_col_set_str(in, &in->cols[0].child[1], r0, "x", 1);
	sl_col_set_i64(&in->cols[1], r0, 0);
	int r1 = sl_batch_add_row(in, 0, SL_WM_MIN); /* NULL row */
	sl_col_set_i64(&in->cols[1], r1, 0);
	sl_expr *x = col(0, row);
	sl_expr *fa = sl_expr_call(&A, SL_FN_FIELD, &x, 1, NULL, 0, &E);
	assert_non_null(fa);
	assert_int_equal(fa->type.id, SL_T_INT);
	char buf[64];
	const char *names[] = {"r", "y"};
	assert_string_equal(sl_expr_format(fa, names, buf, sizeof(buf)), "r.a");
	int rc;
	sl_batch *o = eval1(call(SL_FN_ADD, 2, fa, ilit(1)), in, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(o->cols[0].v.i64[0], 42);
	assert_true(o->cols[0].null[1]);
	sl_batch_free(o);
	/* COALESCE(r.a, 10 / y): the division only runs where r.a is NULL */
	sl_expr *co = call(SL_FN_COALESCE, 2, fa, call(SL_FN_DIV, 2, ilit(10), col(1, T(SL_T_INT))));
	sl_err_clear(&E);
	o = eval1(co, in, &rc);
	assert_int_equal(rc, SL_ERUNTIME); /* row 1 reaches the division */
	sl_batch_free(o);
	uint32_t sel[1] = {0};
	in->sel = sel;
	in->nsel = 1;
	o = eval1(co, in, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(o->cols[0].v.i64[0], 41);
	sl_batch_free(o);
	sl_batch_free(in);
	/* arity errors */
	sl_err_clear(&E);
	sl_expr *one = ilit(1);
	assert_null(sl_expr_call(&A, SL_FN_SUBSTRING, &one, 1, NULL, 0, &E));
	assert_string_equal(E.msg, "'SUBSTRING' takes 2 to 3 arguments, got 1");
	sl_err_clear(&E);
	sl_expr *two[2] = {slit("a"), ilit(1)};
	assert_null(sl_expr_call(&A, SL_FN_UPPER, &two[1], 1, NULL, 0, &E));
	assert_string_equal(E.msg, "cannot apply 'UPPER' to INT");
}

/* FIELD of every physical type (sl__copy_rows): a NULL row, a NULL field
 * of a live row, dense and under a selection. */
static void test_field_rows(void **st)
{
	/* ROW<a BIGINT, d DOUBLE, s STRING, m DECIMAL(20,2)> */
	sl_field f[4] = {{"a", T(SL_T_BIGINT)}, {"d", T(SL_T_DOUBLE)},
	                 {"s", sl_type_varchar(SL_STRING_LEN)}, {"m", sl_type_decimal(20, 2)}};
	sl_row_type rt = {4, f};
	sl_type row = T(SL_T_ROW);
	row.row = &rt;
	sl_batch *in = sl_batch_new(1, &row, 0);
	for (int r = 0; r < 4; r++) {
		int i = sl_batch_add_row(in, 0, SL_WM_MIN);
		sl_col *c = &in->cols[0];
		c->null[i] = r == 1; /* row 1: a NULL row (its fields hold values) */
		sl_col_set_i64(&c->child[0], i, 10 + r);
		c->child[1].null[i] = 0;
		c->child[1].v.f64[i] = 0.5 + r;
		if (r == 2)
			c->child[2].null[i] = 1; /* a NULL field of a live row */
		else
			sl_col_set_str(in, &c->child[2], i, "abc", 3);
		c->child[3].null[i] = 0;
		c->child[3].v.i128[i] = 100 * r + 1;
	}
	sl_expr *x = col(0, row);
	uint32_t sel[2] = {1, 3};
	for (int pass = 0; pass < 2; pass++) {
		in->sel = pass ? sel : NULL;
		in->nsel = pass ? 2 : 0;
		for (int k = 0; k < 4; k++) {
			sl_expr *fe = sl_expr_call(&A, SL_FN_FIELD, &x, 1, NULL, k, &E);
			assert_non_null(fe);
			int rc;
			sl_batch *o = eval1(fe, in, &rc);
			assert_int_equal(rc, 0);
			const sl_col *c = &o->cols[0];
			for (int r = pass ? 1 : 0; r < 4; r += pass ? 2 : 1) {
				int isnull = r == 1 || (k == 2 && r == 2);
				assert_int_equal(c->null[r], isnull);
				if (isnull)
					continue;
				switch (k) {
				case 0: assert_int_equal(c->v.i64[r], 10 + r); break;
				case 1: assert_true(c->v.f64[r] == 0.5 + r); break;
				case 2: assert_memory_equal(c->v.str[r].ptr, "abc", 3); break;
				default: assert_true(c->v.i128[r] == 100 * r + 1); break;
				}
			}
			sl_batch_free(o);
		}
	}
	sl_batch_free(in);
}

/* Steps of p computing fn. */
static int count_steps(const sl_prog *p, sl_fn fn)
{
	int n = 0;
	for (int i = 0; i < p->nsteps; i++)
		n += p->steps[i].fn == fn && p->steps[i].k != NULL && p->steps[i].out >= 0;
	return n;
}

/* An equal deterministic call is compiled once when an earlier one was
 * computed for every row the later one needs (expr_compile.c), and each
 * root still gets its own value. */
static void test_reuse(void **st)
{
	sl_type s = sl_type_varchar(SL_STRING_LEN);
	sl_expr *lo = call(SL_FN_LOWER, 1, col(0, s));
	/* CASE WHEN lower(s) = 'a' THEN 1 WHEN lower(s) = 'b' THEN 2 ELSE 3 END:
	 * the second WHEN runs on the rows the first left, a subset */
	sl_expr *c1 = call(SL_FN_CASE, 5, call(SL_FN_EQ, 2, lo, slit("a")), ilit(1),
	                   call(SL_FN_EQ, 2, call(SL_FN_LOWER, 1, col(0, s)), slit("b")), ilit(2),
	                   ilit(3));
	sl_prog *p = sl_prog_compile(&c1, 1, &s, 1, &E);
	assert_non_null(p);
	assert_int_equal(count_steps(p, SL_FN_LOWER), 1);
	sl_prog_free(p);
	/* sibling branches run on different rows: one each */
	sl_expr *c2 = call(SL_FN_CASE, 3, call(SL_FN_EQ, 2, col(0, s), slit("x")),
	                   call(SL_FN_UPPER, 1, col(0, s)),
	                   call(SL_FN_CONCAT, 2, call(SL_FN_UPPER, 1, col(0, s)), slit("!")));
	p = sl_prog_compile(&c2, 1, &s, 1, &E);
	assert_non_null(p);
	assert_int_equal(count_steps(p, SL_FN_UPPER), 2);
	sl_prog_free(p);
	/* a branch's call is not reused by a later one over all rows */
	sl_expr *c3[2] = {call(SL_FN_CASE, 3, call(SL_FN_EQ, 2, col(0, s), slit("x")),
	                       call(SL_FN_UPPER, 1, col(0, s)), slit("")),
	                  call(SL_FN_UPPER, 1, col(0, s))};
	p = sl_prog_compile(c3, 2, &s, 1, &E);
	assert_non_null(p);
	assert_int_equal(count_steps(p, SL_FN_UPPER), 2);
	sl_prog_free(p);
	/* not deterministic: UUID() = UUID() compares two values */
	sl_expr *u = call(SL_FN_EQ, 2, call(SL_FN_UUID, 0), call(SL_FN_UUID, 0));
	p = sl_prog_compile(&u, 1, &s, 1, &E);
	assert_non_null(p);
	assert_int_equal(count_steps(p, SL_FN_UUID), 2);
	sl_prog_free(p);
	/* two roots of one value, and a root that is a part of an earlier root */
	sl_expr *r[3] = {call(SL_FN_EQ, 2, call(SL_FN_LOWER, 1, col(0, s)), slit("ab")),
	                 call(SL_FN_LOWER, 1, col(0, s)), call(SL_FN_LOWER, 1, col(0, s))};
	sl_batch *in = sl_batch_new(1, &s, 0);
	const char *vals[] = {"AB", "Cd", NULL};
	for (int i = 0; i < 3; i++) {
		int row = sl_batch_add_row(in, 0, SL_WM_MIN);
		if (vals[i])
			sl_col_set_str(in, &in->cols[0], row, vals[i], (int64_t)strlen(vals[i]));
		else
			in->cols[0].null[row] = 1;
	}
	p = sl_prog_compile(r, 3, &s, 1, &E);
	assert_non_null(p);
	sl_type ot[3] = {T(SL_T_BOOLEAN), s, s};
	sl_batch *out = sl_batch_new(3, ot, 0);
	for (int i = 0; i < 3; i++)
		sl_batch_add_row(out, 0, SL_WM_MIN);
	assert_int_equal(sl_prog_eval(p, in, out, out->cols, NULL, &E), 0);
	assert_int_equal(out->cols[0].v.i64[0], 1);
	assert_int_equal(out->cols[0].v.i64[1], 0);
	assert_true(out->cols[0].null[2]);
	for (int c = 1; c < 3; c++) {
		assert_int_equal(out->cols[c].v.str[0].len, 2);
		assert_memory_equal(out->cols[c].v.str[0].ptr, "ab", 2);
		assert_memory_equal(out->cols[c].v.str[1].ptr, "cd", 2);
		assert_true(out->cols[c].null[2]);
	}
	sl_prog_free(p);
	sl_batch_free(out);
	sl_batch_free(in);
}

/* A constant that folds cannot fail: an OR whose later argument holds
 * only such constants is not guarded, so q21's lower(s) IN ('a', 'b')
 * after a REGEXP_EXTRACT serves the CASE that follows; a constant that
 * does not fold (CAST('abc' AS INT)) still fails only for the rows that
 * reach it. */
static void test_fold_not_guarded(void **st)
{
	sl_type s = sl_type_varchar(SL_STRING_LEN), it = T(SL_T_INT);
	sl_expr *f = call(SL_FN_OR, 2,
	                  call(SL_FN_IS_NOT_NULL, 1,
	                       call(SL_FN_REGEXP_EXTRACT, 3, col(0, s), slit("(&|^)id=([^&]*)"), ilit(2))),
	                  call(SL_FN_IN, 3, call(SL_FN_LOWER, 1, col(0, s)), cast(SL_FN_CAST, slit("a"), s),
	                       cast(SL_FN_CAST, slit("b"), s)));
	sl_expr *pr = call(SL_FN_CASE, 3, call(SL_FN_EQ, 2, call(SL_FN_LOWER, 1, col(0, s)), slit("a")),
	                   slit("0"), slit("1"));
	sl_prog *p = sl_prog_compile_where(f, &pr, 1, &s, 1, &E);
	assert_non_null(p);
	assert_int_equal(count_steps(p, SL_FN_LOWER), 1);
	sl_prog_free(p);
	/* x = 0 OR CAST('abc' AS INT) = 1 */
	int64_t a0[] = {0, 0}, a1[] = {0, 3}, b[] = {0, 0};
	sl_expr *e = call(SL_FN_OR, 2, call(SL_FN_EQ, 2, col(0, it), ilit(0)),
	                  call(SL_FN_EQ, 2, cast(SL_FN_CAST, slit("abc"), it), ilit(1)));
	int rc;
	sl_batch *in = ints(2, a0, b, NULL);
	sl_batch *o = eval1(e, in, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(o->cols[0].v.i64[0], 1);
	sl_batch_free(o);
	sl_batch_free(in);
	in = ints(2, a1, b, NULL);
	sl_err_clear(&E);
	o = eval1(e, in, &rc);
	assert_int_not_equal(rc, 0);
	sl_err_clear(&E);
	sl_batch_free(o);
	sl_batch_free(in);
}

/* x IN (constant strings), k_in_str: the (length, bytes) order, NULLs in
 * the list and in x, a repeated value, '' */
static void test_in_strings(void **st)
{
	sl_type s = sl_type_varchar(SL_STRING_LEN);
	const char *vals[] = {"apple", "baidu", "google", "facebook", "", "appl", "applf", "apples",
	                      NULL, "zzzzz", "aaaaa"};
	int n = (int)(sizeof(vals) / sizeof(vals[0]));
	sl_batch *in = sl_batch_new(1, &s, 0);
	for (int i = 0; i < n; i++) {
		int row = sl_batch_add_row(in, 0, SL_WM_MIN);
		if (vals[i])
			sl_col_set_str(in, &in->cols[0], row, vals[i], (int64_t)strlen(vals[i]));
		else
			in->cols[0].null[row] = 1;
	}
	sl_expr *e = call(SL_FN_IN, 7, col(0, s), cast(SL_FN_CAST, slit("google"), s),
	                  cast(SL_FN_CAST, slit("apple"), s), cast(SL_FN_CAST, slit("facebook"), s),
	                  cast(SL_FN_CAST, slit("baidu"), s), cast(SL_FN_CAST, slit(""), s),
	                  cast(SL_FN_CAST, slit("apple"), s));
	int rc;
	sl_batch *o = eval1(e, in, &rc);
	assert_int_equal(rc, 0);
	int want[] = {1, 1, 1, 1, 1, 0, 0, 0, -1, 0, 0};
	for (int i = 0; i < n; i++) {
		if (want[i] < 0) {
			assert_true(o->cols[0].null[i]);
			continue;
		}
		assert_false(o->cols[0].null[i]);
		assert_int_equal(o->cols[0].v.i64[i], want[i]);
	}
	sl_batch_free(o);
	/* a NULL in the list: no match is NULL */
	e = call(SL_FN_IN, 3, col(0, s), cast(SL_FN_CAST, slit("apple"), s), sl_expr_lit_null(&A, s));
	o = eval1(e, in, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(o->cols[0].v.i64[0], 1);
	assert_false(o->cols[0].null[0]);
	assert_true(o->cols[0].null[1]);
	assert_true(o->cols[0].null[8]);
	sl_batch_free(o);
	sl_batch_free(in);
}

/* A filter and a projection as one program (sl_prog_compile_where): the
 * filter's calls serve the projection, the projection runs on the TRUE
 * rows only (NULL and FALSE dropped), in->sel holds them, and a batch
 * with no live rows or no passing rows leaves an empty, non-NULL sel. */
static void test_where_program(void **st)
{
	sl_type s = sl_type_varchar(SL_STRING_LEN);
	/* WHERE lower(s) <> 'skip' SELECT lower(s), CHAR_LENGTH(lower(s)) */
	sl_expr *f = call(SL_FN_NE, 2, call(SL_FN_LOWER, 1, col(0, s)), slit("skip"));
	sl_expr *pr[2] = {call(SL_FN_LOWER, 1, col(0, s)),
	                  call(SL_FN_CHAR_LENGTH, 1, call(SL_FN_LOWER, 1, col(0, s)))};
	sl_prog *p = sl_prog_compile_where(f, pr, 2, &s, 1, &E);
	assert_non_null(p);
	assert_int_equal(count_steps(p, SL_FN_LOWER), 1);
	sl_batch *in = sl_batch_new(1, &s, 0);
	const char *vals[] = {"AbC", "SKIP", NULL, "Zz"};
	for (int i = 0; i < 4; i++) {
		int row = sl_batch_add_row(in, 0, SL_WM_MIN);
		if (vals[i])
			sl_col_set_str(in, &in->cols[0], row, vals[i], (int64_t)strlen(vals[i]));
		else
			in->cols[0].null[row] = 1;
	}
	sl_type ot[2] = {s, T(SL_T_INT)};
	sl_batch *out = sl_batch_new(2, ot, 0);
	for (int i = 0; i < 4; i++)
		sl_batch_add_row(out, 0, SL_WM_MIN);
	sl_batch view = *in;
	assert_int_equal(sl_prog_eval_where(p, &view, out, out->cols, NULL, &E), 0);
	assert_int_equal(view.nsel, 2);
	assert_int_equal(view.sel[0], 0);
	assert_int_equal(view.sel[1], 3);
	assert_memory_equal(out->cols[0].v.str[0].ptr, "abc", 3);
	assert_memory_equal(out->cols[0].v.str[3].ptr, "zz", 2);
	assert_int_equal(out->cols[1].v.i64[0], 3);
	assert_int_equal(out->cols[1].v.i64[3], 2);
	/* the filter's strings are in the output batch's arena: a second
	 * evaluation into another batch leaves the first one's values */
	sl_batch *out2 = sl_batch_new(2, ot, 0);
	for (int i = 0; i < 4; i++)
		sl_batch_add_row(out2, 0, SL_WM_MIN);
	sl_col_set_str(in, &in->cols[0], 0, "QQQ", 3);
	view = *in;
	assert_int_equal(sl_prog_eval_where(p, &view, out2, out2->cols, NULL, &E), 0);
	assert_memory_equal(out->cols[0].v.str[0].ptr, "abc", 3);
	assert_memory_equal(out2->cols[0].v.str[0].ptr, "qqq", 3);
	/* no live rows; no passing rows */
	uint32_t none = 0;
	view = *in;
	view.sel = &none;
	view.nsel = 0;
	assert_int_equal(sl_prog_eval_where(p, &view, out, out->cols, NULL, &E), 0);
	assert_int_equal(view.nsel, 0);
	assert_non_null(view.sel);
	uint32_t one = 1;
	view = *in;
	view.sel = &one;
	view.nsel = 1;
	assert_int_equal(sl_prog_eval_where(p, &view, out, out->cols, NULL, &E), 0);
	assert_int_equal(view.nsel, 0);
	assert_non_null(view.sel);
	sl_prog_free(p);
	/* a filter that is not BOOLEAN is refused */
	sl_err_clear(&E);
	assert_null(sl_prog_compile_where(pr[0], pr, 1, &s, 1, &E));
	sl_batch_free(out);
	sl_batch_free(out2);
	sl_batch_free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_int_arith, setup, teardown),
		cmocka_unit_test_setup_teardown(test_type_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decimal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_three_valued, setup, teardown),
		cmocka_unit_test_setup_teardown(test_case_short_circuit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter_and_selection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cast, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timestamp_compare_literal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_coalesce_nullif, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fold_and_format, setup, teardown),
		cmocka_unit_test_setup_teardown(test_big_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_field_arity_guards, setup, teardown),
		cmocka_unit_test_setup_teardown(test_field_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_where_program, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fold_not_guarded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_strings, setup, teardown),
	};
	return cmocka_run_group_tests_name("expr", tests, NULL, NULL);
}
