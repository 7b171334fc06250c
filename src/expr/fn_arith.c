/*
 * fn_arith.c - kernels for arithmetic, comparison, IN, NULLIF and
 * IS [NOT] DISTINCT FROM.
 *
 * Kernels are specialised per physical type (int64, double, DECIMAL as
 * int128) and, for the hot int64/double cases, per operator, so the dense
 * loops are plain element-wise code the compiler vectorizes.  Integer
 * arithmetic wraps to the result type's width like Java (Flink's INT + INT
 * overflows silently); integer division and MOD by zero raise.  DECIMAL
 * arithmetic is exact: operands are brought to a common scale with
 * factors computed at bind time, results are rounded HALF_UP to the result
 * scale, and a result that does not fit the result precision raises
 * "DECIMAL(p, s) overflow in '+'".  TIMESTAMP/DATE +/- INTERVAL adds
 * micros, or calendar months for YEAR TO MONTH intervals (clamping the day
 * to the month's length, as Flink does).
 */
#include "expr_int.h"
#include "base/timeutil.h"

#include <stdlib.h>
#include <string.h>

/* ---- integers and doubles ----------------------------------------------- */

#define BIN_I64(NAME, EXPR)                                                   \
	static int NAME(sl_xctx *x, const sl_step *st)                        \
	{                                                                     \
		const sl_col *ca = SL_X_ARG(x, st, 0), *cb = SL_X_ARG(x, st, 1); \
		sl_col *co = SL_X_OUT(x, st);                                 \
		const int64_t *av = ca->v.i64, *bv = cb->v.i64;               \
		const uint8_t *an = ca->null, *bn = cb->null;                 \
		int64_t *ov = co->v.i64;                                      \
		uint8_t *on = co->null;                                       \
		int sh = (int)st->k1;                                         \
		(void)sh;                                                     \
		SL_FOR_ROWS(SL_X_SEL(x, st), i, {                             \
			uint64_t a = (uint64_t)av[i], b = (uint64_t)bv[i];    \
			ov[i] = (int64_t)((EXPR) << sh) >> sh;                \
			on[i] = an[i] | bn[i];                                \
		});                                                           \
		return 0;                                                     \
	}

BIN_I64(k_add_i64, a + b)
BIN_I64(k_sub_i64, a - b)
BIN_I64(k_mul_i64, a * b)

static int div_zero(sl_xctx *x, const sl_step *st)
{
	return sl_err_set(x->err, SL_ERUNTIME, "division by zero in '%s'", sl_fn_name(st->fn));
}

static int k_div_i64(sl_xctx *x, const sl_step *st)
{
	const sl_col *ca = SL_X_ARG(x, st, 0), *cb = SL_X_ARG(x, st, 1);
	sl_col *co = SL_X_OUT(x, st);
	int sh = (int)st->k1, mod = st->fn == SL_FN_MOD;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		int64_t a = ca->v.i64[i], b = cb->v.i64[i], r;
		co->null[i] = ca->null[i] | cb->null[i];
		if (co->null[i]) {
			co->v.i64[i] = 0;
			continue;
		}
		if (b == 0)
			return div_zero(x, st);
		if (b == -1)
			r = mod ? 0 : (int64_t)(0 - (uint64_t)a);
		else
			r = mod ? a % b : a / b;
		co->v.i64[i] = (int64_t)((uint64_t)r << sh) >> sh;
	});
	return 0;
}

static int k_neg_i64(sl_xctx *x, const sl_step *st)
{
	const sl_col *ca = SL_X_ARG(x, st, 0);
	sl_col *co = SL_X_OUT(x, st);
	int sh = (int)st->k1;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		co->v.i64[i] = (int64_t)((0 - (uint64_t)ca->v.i64[i]) << sh) >> sh;
		co->null[i] = ca->null[i];
	});
	return 0;
}

#define BIN_F64(NAME, EXPR)                                                   \
	static int NAME(sl_xctx *x, const sl_step *st)                        \
	{                                                                     \
		const sl_col *ca = SL_X_ARG(x, st, 0), *cb = SL_X_ARG(x, st, 1); \
		sl_col *co = SL_X_OUT(x, st);                                 \
		int fl = st->type.id == SL_T_FLOAT;                           \
		SL_FOR_ROWS(SL_X_SEL(x, st), i, {                             \
			double a = ca->v.f64[i], b = cb->v.f64[i];            \
			double r = (EXPR);                                    \
			co->v.f64[i] = fl ? (double)(float)r : r;             \
			co->null[i] = ca->null[i] | cb->null[i];              \
		});                                                           \
		return 0;                                                     \
	}

BIN_F64(k_add_f64, a + b)
BIN_F64(k_sub_f64, a - b)
BIN_F64(k_mul_f64, a * b)
BIN_F64(k_div_f64, a / b)
BIN_F64(k_mod_f64, __builtin_fmod(a, b))

static int k_neg_f64(sl_xctx *x, const sl_step *st)
{
	const sl_col *ca = SL_X_ARG(x, st, 0);
	sl_col *co = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		co->v.f64[i] = -ca->v.f64[i];
		co->null[i] = ca->null[i];
	});
	return 0;
}

/* ---- DECIMAL ------------------------------------------------------------ */

static int dec_overflow(sl_xctx *x, const sl_step *st)
{
	char tb[64];
	return sl_err_set(x->err, SL_ERUNTIME, "%s overflow in '%s'",
	                  sl__type_str(st->type, tb, sizeof(tb)), sl_fn_name(st->fn));
}

/* v / 10^by rounded HALF_UP (by >= 0). */
static sl_i128 dec_down(sl_i128 v, int by)
{
	if (by <= 0)
		return v;
	sl_i128 d = sl_pow10_i128(by), q = v / d, r = v % d;
	if (r < 0)
		r = -r;
	if (r >= d - r)
		q += v < 0 ? -1 : 1;
	return q;
}

/* Limit 10^p of the result precision is in m2 for every decimal kernel;
 * scale factors of the operands in m1 (a) and k2 (b, as exponent). */
static int dec_fit(sl_i128 v, sl_i128 lim)
{
	return v < lim && v > -lim;
}

static int k_addsub_dec(sl_xctx *x, const sl_step *st)
{
	const sl_col *ca = SL_X_ARG(x, st, 0), *cb = SL_X_ARG(x, st, 1);
	sl_col *co = SL_X_OUT(x, st);
	sl_i128 fa = sl_pow10_i128((int)(st->k1 >> 8 & 0xff)), fb = sl_pow10_i128((int)(st->k1 & 0xff));
	int down = (int)st->k2, sub = st->fn == SL_FN_SUB;
	sl_i128 lim = st->m2;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		co->null[i] = ca->null[i] | cb->null[i];
		if (co->null[i]) {
			co->v.i128[i] = 0;
			continue;
		}
		sl_i128 a, b, r;
		if (sl__mul128_ovf(ca->v.i128[i], fa, &a) ||
		    sl__mul128_ovf(cb->v.i128[i], fb, &b) ||
		    (sub ? __builtin_sub_overflow(a, b, &r) : __builtin_add_overflow(a, b, &r)))
			return dec_overflow(x, st);
		r = dec_down(r, down);
		if (!dec_fit(r, lim))
			return dec_overflow(x, st);
		co->v.i128[i] = r;
	});
	return 0;
}

static int k_mul_dec(sl_xctx *x, const sl_step *st)
{
	const sl_col *ca = SL_X_ARG(x, st, 0), *cb = SL_X_ARG(x, st, 1);
	sl_col *co = SL_X_OUT(x, st);
	int down = (int)st->k2;
	sl_i128 lim = st->m2;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		co->null[i] = ca->null[i] | cb->null[i];
		if (co->null[i]) {
			co->v.i128[i] = 0;
			continue;
		}
		sl_i128 r;
		if (sl__mul128_ovf(ca->v.i128[i], cb->v.i128[i], &r))
			return dec_overflow(x, st);
		r = dec_down(r, down);
		if (!dec_fit(r, lim))
			return dec_overflow(x, st);
		co->v.i128[i] = r;
	});
	return 0;
}

/* a / b: result unscaled = a * 10^e / b, e = so + s2 - s1 (k1), HALF_UP. */
static int k_div_dec(sl_xctx *x, const sl_step *st)
{
	const sl_col *ca = SL_X_ARG(x, st, 0), *cb = SL_X_ARG(x, st, 1);
	sl_col *co = SL_X_OUT(x, st);
	int e = (int)st->k1;
	sl_i128 fa = sl_pow10_i128(e > 0 ? e : 0), fb = sl_pow10_i128(e < 0 ? -e : 0);
	sl_i128 lim = st->m2;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		co->null[i] = ca->null[i] | cb->null[i];
		if (co->null[i]) {
			co->v.i128[i] = 0;
			continue;
		}
		sl_i128 a, b, q, r;
		if (cb->v.i128[i] == 0)
			return div_zero(x, st);
		if (sl__mul128_ovf(ca->v.i128[i], fa, &a) ||
		    sl__mul128_ovf(cb->v.i128[i], fb, &b))
			return dec_overflow(x, st);
		q = a / b;
		r = a % b;
		if (r < 0)
			r = -r;
		sl_i128 ab = b < 0 ? -b : b;
		if (r >= ab - r)
			q += (a < 0) != (b < 0) ? -1 : 1;
		if (!dec_fit(q, lim))
			return dec_overflow(x, st);
		co->v.i128[i] = q;
	});
	return 0;
}

static int k_mod_dec(sl_xctx *x, const sl_step *st)
{
	const sl_col *ca = SL_X_ARG(x, st, 0), *cb = SL_X_ARG(x, st, 1);
	sl_col *co = SL_X_OUT(x, st);
	sl_i128 fa = sl_pow10_i128((int)(st->k1 >> 8 & 0xff)), fb = sl_pow10_i128((int)(st->k1 & 0xff));
	int down = (int)st->k2;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		co->null[i] = ca->null[i] | cb->null[i];
		if (co->null[i]) {
			co->v.i128[i] = 0;
			continue;
		}
		sl_i128 a, b;
		if (sl__mul128_ovf(ca->v.i128[i], fa, &a) ||
		    sl__mul128_ovf(cb->v.i128[i], fb, &b))
			return dec_overflow(x, st);
		if (b == 0)
			return div_zero(x, st);
		co->v.i128[i] = dec_down(a % b, down);
	});
	return 0;
}

static int k_neg_dec(sl_xctx *x, const sl_step *st)
{
	const sl_col *ca = SL_X_ARG(x, st, 0);
	sl_col *co = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		co->v.i128[i] = -ca->v.i128[i];
		co->null[i] = ca->null[i];
	});
	return 0;
}

/* ---- temporal +/- interval ---------------------------------------------- */

/* Adds n months to a date (days), clamping the day of month. */
static int64_t add_months_days(int64_t days, int64_t n)
{
	int64_t y;
	unsigned m, d;
	sl_civil_from_days(days, &y, &m, &d);
	int64_t mm = y * 12 + (m - 1) + n;
	y = sl_floordiv(mm, 12);
	m = (unsigned)(sl_floormod(mm, 12) + 1);
	unsigned dim = (unsigned)sl_days_in_month(y, m);
	return sl_days_from_civil(y, m, d > dim ? dim : d);
}

int64_t sl__add_months_us(int64_t us, int64_t n)
{
	int64_t days = sl_floordiv(us, SL_US_PER_DAY), tod = sl_floormod(us, SL_US_PER_DAY);
	return add_months_days(days, n) * SL_US_PER_DAY + tod;
}

/* op: 0 ts+dt, 1 date+dt, 2 ts+ym, 3 date+ym; k1 = +1 / -1. */
static int k_time_interval(sl_xctx *x, const sl_step *st)
{
	const sl_col *ca = SL_X_ARG(x, st, 0), *cb = SL_X_ARG(x, st, 1);
	sl_col *co = SL_X_OUT(x, st);
	int64_t sign = st->k1;
	int op = st->op;
	if (op == 0 && !SL_X_SEL(x, st)->idx) {
		/* ts +/- a day-time interval over all rows (a watermark
		 * expression's case: evaluated for every scanned row), a loop
		 * without the switch that the compiler vectorizes: 28 -> ~6
		 * instructions a row (callgrind, bench 4); the same values */
		int n = SL_X_SEL(x, st)->n;
		const uint8_t *na = ca->null, *nb = cb->null;
		const int64_t *va = ca->v.i64, *vb = cb->v.i64;
		uint8_t *no = co->null;
		int64_t *vo = co->v.i64;
		for (int i = 0; i < n; i++) {
			uint8_t nl = na[i] | nb[i];
			int64_t r = va[i] + vb[i] * sign;
			no[i] = nl;
			vo[i] = nl ? 0 : r;
		}
		return 0;
	}
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		int64_t a = ca->v.i64[i], b = cb->v.i64[i] * sign, r;
		co->null[i] = ca->null[i] | cb->null[i];
		switch (op) {
		case 0: r = a + b; break;
		case 1: r = a + sl_floordiv(b, SL_US_PER_DAY); break;
		case 2: r = sl__add_months_us(a, b); break;
		default: r = add_months_days(a, b); break;
		}
		co->v.i64[i] = co->null[i] ? 0 : r;
	});
	return 0;
}

static int bind_arith_dec(sl_prog *p, sl_step *st, sl_type ta, sl_type tb, sl_err *err)
{
	int s1 = ta.scale, s2 = tb.scale, so = st->type.scale;
	st->m2 = sl_pow10_i128(st->type.precision);
	switch (st->fn) {
	case SL_FN_ADD: case SL_FN_SUB: case SL_FN_MOD: {
		int sc = s1 > s2 ? s1 : s2;
		st->k1 = (int64_t)((sc - s1) << 8 | (sc - s2));
		st->k2 = sc - so;
		if (st->k2 < 0)
			return sl_err_set(err, SL_EPLAN, "internal: DECIMAL scale grows in '%s'",
			                  sl_fn_name(st->fn));
		st->k = st->fn == SL_FN_MOD ? k_mod_dec : k_addsub_dec;
		return 0;
	}
	case SL_FN_MUL:
		st->k2 = s1 + s2 - so;
		st->k = k_mul_dec;
		return st->k2 < 0 ? sl_err_set(err, SL_EPLAN, "internal: DECIMAL '*' scale") : 0;
	default:
		st->k1 = so + s2 - s1;
		st->k = k_div_dec;
		return 0;
	}
}

static int bind_arith(sl_prog *p, sl_step *st, sl_err *err)
{
	sl_type ta = SL_X_ATYPE(p, st, 0);
	if (st->fn == SL_FN_NEG) {
		sl_phys ph = sl_type_phys(ta);
		st->k1 = sl_type_is_integer(ta) && ta.id != SL_T_BIGINT
		             ? 64 - (ta.id == SL_T_INT ? 32 : ta.id == SL_T_SMALLINT ? 16 : 8) : 0;
		st->k = ph == SL_PHYS_F64 ? k_neg_f64 : ph == SL_PHYS_I128 ? k_neg_dec : k_neg_i64;
		return 0;
	}
	sl_type tb = SL_X_ATYPE(p, st, 1);
	int tia = ta.id == SL_T_DATE || sl_type_is_timestamp(ta);
	int ivb = tb.id == SL_T_INTERVAL_DT || tb.id == SL_T_INTERVAL_YM;
	if (tia && ivb) {
		st->op = (ta.id == SL_T_DATE) + 2 * (tb.id == SL_T_INTERVAL_YM);
		st->k1 = st->fn == SL_FN_SUB ? -1 : 1;
		st->k = k_time_interval;
		return 0;
	}
	switch (sl_type_phys(st->type)) {
	case SL_PHYS_F64: {
		sl_kernel ks[] = {k_add_f64, k_sub_f64, k_mul_f64, k_div_f64, k_mod_f64};
		st->k = ks[st->fn - SL_FN_ADD];
		return 0;
	}
	case SL_PHYS_I128:
		return bind_arith_dec(p, st, ta, tb, err);
	case SL_PHYS_I64: {
		sl_type t = st->type;
		st->k1 = t.id == SL_T_TINYINT ? 56 : t.id == SL_T_SMALLINT ? 48 : t.id == SL_T_INT ? 32 : 0;
		sl_kernel ks[] = {k_add_i64, k_sub_i64, k_mul_i64, k_div_i64, k_div_i64};
		st->k = ks[st->fn - SL_FN_ADD];
		return 0;
	}
	default:
		return sl_err_set(err, SL_EPLAN, "cannot apply '%s' here", sl_fn_name(st->fn));
	}
}

/* ---- comparison --------------------------------------------------------- */

#define CMP_KERNEL(NAME, FIELD, OP)                                           \
	static int NAME(sl_xctx *x, const sl_step *st)                        \
	{                                                                     \
		const sl_col *ca = SL_X_ARG(x, st, 0), *cb = SL_X_ARG(x, st, 1); \
		sl_col *co = SL_X_OUT(x, st);                                 \
		const uint8_t *an = ca->null, *bn = cb->null;                 \
		uint8_t *on = co->null;                                       \
		int64_t *ov = co->v.i64;                                      \
		SL_FOR_ROWS(SL_X_SEL(x, st), i, {                             \
			ov[i] = ca->v.FIELD[i] OP cb->v.FIELD[i];             \
			on[i] = an[i] | bn[i];                                \
		});                                                           \
		return 0;                                                     \
	}

CMP_KERNEL(k_eq_i64, i64, ==)
CMP_KERNEL(k_ne_i64, i64, !=)
CMP_KERNEL(k_lt_i64, i64, <)
CMP_KERNEL(k_le_i64, i64, <=)
CMP_KERNEL(k_gt_i64, i64, >)
CMP_KERNEL(k_ge_i64, i64, >=)
CMP_KERNEL(k_eq_f64, f64, ==)
CMP_KERNEL(k_ne_f64, f64, !=)
CMP_KERNEL(k_lt_f64, f64, <)
CMP_KERNEL(k_le_f64, f64, <=)
CMP_KERNEL(k_gt_f64, f64, >)
CMP_KERNEL(k_ge_f64, f64, >=)

static int cmp_str(sl_str a, sl_str b)
{
	int64_t n = a.len < b.len ? a.len : b.len;
	int c = n ? memcmp(a.ptr, b.ptr, (size_t)n) : 0;
	if (c)
		return c < 0 ? -1 : 1;
	return (a.len > b.len) - (a.len < b.len);
}

static int cmp_dec(sl_i128 a, sl_i128 b, sl_i128 fa, sl_i128 fb)
{
	sl_i128 x, y;
	if (sl__mul128_ovf(a, fa, &x) || sl__mul128_ovf(b, fb, &y)) {
		double dx = (double)a * (double)fa, dy = (double)b * (double)fb;
		return (dx > dy) - (dx < dy);
	}
	return (x > y) - (x < y);
}

/* Three-way comparison of row i of a with row j of b (not NULL). */
static int cmp_rows(sl_phys ph, const sl_col *a, int i, const sl_col *b, int j, const sl_step *st)
{
	switch (ph) {
	case SL_PHYS_F64: {
		double x = a->v.f64[i], y = b->v.f64[j];
		return (x > y) - (x < y);
	}
	case SL_PHYS_I128: return cmp_dec(a->v.i128[i], b->v.i128[j], st->m1, st->m2);
	case SL_PHYS_STR: return cmp_str(a->v.str[i], b->v.str[j]);
	default: return (a->v.i64[i] > b->v.i64[j]) - (a->v.i64[i] < b->v.i64[j]);
	}
}

static int cmp_holds(int fn, int c)
{
	switch (fn) {
	case SL_FN_EQ: return c == 0;
	case SL_FN_NE: return c != 0;
	case SL_FN_LT: return c < 0;
	case SL_FN_LE: return c <= 0;
	case SL_FN_GT: return c > 0;
	default: return c >= 0;
	}
}

/* Comparison on DECIMAL or strings: a three-way compare per row. */
static int k_cmp_generic(sl_xctx *x, const sl_step *st)
{
	const sl_col *ca = SL_X_ARG(x, st, 0), *cb = SL_X_ARG(x, st, 1);
	sl_col *co = SL_X_OUT(x, st);
	sl_phys ph = sl_type_phys(SL_X_ATYPE(x->p, st, 0));
	int fn = st->fn;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		co->null[i] = ca->null[i] | cb->null[i];
		co->v.i64[i] = co->null[i] ? 0 : cmp_holds(fn, cmp_rows(ph, ca, i, cb, i, st));
	});
	return 0;
}

/* = and <> on strings: lengths first, the bytes only when they agree (the
 * three-way k_cmp_generic was 12% of Nexmark q21, whose CASE compares
 * lower(channel) with four literals; docs/nexmark.md §22). */
static int k_eq_str(sl_xctx *x, const sl_step *st)
{
	const sl_col *ca = SL_X_ARG(x, st, 0), *cb = SL_X_ARG(x, st, 1);
	sl_col *co = SL_X_OUT(x, st);
	int ne = st->fn == SL_FN_NE;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		int nul = ca->null[i] | cb->null[i];
		co->null[i] = (uint8_t)nul;
		sl_str a = ca->v.str[i], b = cb->v.str[i];
		int eq = !nul && a.len == b.len &&
		         (a.len == 0 || a.ptr == b.ptr || !memcmp(a.ptr, b.ptr, (size_t)a.len));
		co->v.i64[i] = !nul && (eq ^ ne);
	});
	return 0;
}

static int k_distinct(sl_xctx *x, const sl_step *st)
{
	const sl_col *ca = SL_X_ARG(x, st, 0), *cb = SL_X_ARG(x, st, 1);
	sl_col *co = SL_X_OUT(x, st);
	sl_phys ph = sl_type_phys(SL_X_ATYPE(x->p, st, 0));
	int want_distinct = st->fn == SL_FN_IS_DISTINCT;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		int same;
		if (ca->null[i] || cb->null[i])
			same = ca->null[i] && cb->null[i];
		else
			same = cmp_rows(ph, ca, i, cb, i, st) == 0;
		co->null[i] = 0;
		co->v.i64[i] = want_distinct ? !same : same;
	});
	return 0;
}

/* x IN (v1, ...): TRUE on a match, else NULL when x or some vi is NULL. */
static int k_in(sl_xctx *x, const sl_step *st)
{
	const sl_col *cx = SL_X_ARG(x, st, 0);
	sl_col *co = SL_X_OUT(x, st);
	sl_phys ph = sl_type_phys(SL_X_ATYPE(x->p, st, 0));
	sl_reg *regs = x->p->regs;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		int found = 0, anynull = cx->null[i];
		for (int j = 1; j < st->nargs && !found && !cx->null[i]; j++) {
			const sl_col *v = regs[st->args[j]].cur;
			if (v->null[i])
				anynull = 1;
			else if (cmp_rows(ph, cx, i, v, i, st) == 0)
				found = 1;
		}
		co->null[i] = !found && anynull;
		co->v.i64[i] = found;
	});
	return 0;
}

/*
 * IN over a list of constants (the usual `x IN (1, 2, ...)`, also long
 * generated lists): the non-NULL values are sorted once, at bind time, into
 * one vector (aux); each row is a binary search.  Why: k_in compares every
 * value per row, and every constant register owns a batch-sized broadcast
 * vector: IN with 100 000 values took 0.9 GB and 100 000 compares a row;
 * the list's registers are now scalar (sl_reg.scalar, no vector).  DOUBLE
 * lists keep k_in (NaN has no place in a sort order).
 */
typedef struct in_set {
	sl_col vals;   /* sorted non-NULL values, n entries */
	int n;
	int has_null;  /* the list holds a NULL */
} in_set;

/* Strings ordered by length, then bytes: the order of a string IN set,
 * so that a search mostly compares lengths (k_in_str). */
static int cmp_len_str(sl_str a, sl_str b)
{
	if (a.len != b.len)
		return a.len < b.len ? -1 : 1;
	int c = a.len ? memcmp(a.ptr, b.ptr, (size_t)a.len) : 0;
	return (c > 0) - (c < 0);
}

/* x IN (constant strings): a binary search in (length, bytes) order; the
 * three-way byte compare of k_in_set was 7% of Nexmark q21, whose list is
 * four channel names (docs/nexmark.md §22). */
static int k_in_str(sl_xctx *x, const sl_step *st)
{
	const in_set *s = st->aux;
	const sl_col *cx = SL_X_ARG(x, st, 0);
	sl_col *co = SL_X_OUT(x, st);
	const sl_str *v = s->vals.v.str;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		int found = 0;
		sl_str key = cx->v.str[i];
		for (int lo = 0, hi = s->n - 1; !cx->null[i] && lo <= hi && !found;) {
			int mid = lo + (hi - lo) / 2;
			int c = cmp_len_str(key, v[mid]);
			if (c == 0)
				found = 1;
			else if (c < 0)
				hi = mid - 1;
			else
				lo = mid + 1;
		}
		co->null[i] = cx->null[i] || (!found && s->has_null);
		co->v.i64[i] = found;
	});
	return 0;
}

static int k_in_set(sl_xctx *x, const sl_step *st)
{
	const in_set *s = st->aux;
	const sl_col *cx = SL_X_ARG(x, st, 0);
	sl_col *co = SL_X_OUT(x, st);
	sl_phys ph = sl_type_phys(SL_X_ATYPE(x->p, st, 0));
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		int found = 0;
		for (int lo = 0, hi = s->n - 1; !cx->null[i] && lo <= hi && !found;) {
			int mid = lo + (hi - lo) / 2;
			int c = cmp_rows(ph, cx, i, &s->vals, mid, st);
			if (c == 0)
				found = 1;
			else if (c < 0)
				hi = mid - 1;
			else
				lo = mid + 1;
		}
		co->null[i] = cx->null[i] || (!found && s->has_null);
		co->v.i64[i] = found;
	});
	return 0;
}

static void in_set_free(void *ptr)
{
	in_set *s = ptr;
	if (s) {
		free(s->vals.v.data);
		free(s);
	}
}

/* Sort order of the list values: all of one type (the call's common type),
 * so DECIMALs compare without rescaling. */
static int in_cmp(const void *a, const void *b, void *arg)
{
	static const sl_step same = {.m1 = 1, .m2 = 1};
	const sl_col *c = arg;
	int i = *(const int *)a, j = *(const int *)b;
	if (sl_type_phys(c->type) == SL_PHYS_STR)
		return cmp_len_str(c->v.str[i], c->v.str[j]); /* k_in_str's order */
	return cmp_rows(sl_type_phys(c->type), c, i, c, j, &same);
}

/* k_in_set when every list value is a constant register (not DOUBLE);
 * else k_in.  Returns 0 or SL_ENOMEM. */
static int bind_in(sl_prog *p, sl_step *st, sl_err *err)
{
	sl_phys ph = sl_type_phys(SL_X_ATYPE(p, st, 0));
	st->k = k_in;
	if (ph != SL_PHYS_I64 && ph != SL_PHYS_I128 && ph != SL_PHYS_STR)
		return 0;
	for (int j = 1; j < st->nargs; j++)
		if (!sl__step_const(p, st, j) || sl_type_phys(SL_X_ATYPE(p, st, j)) != ph)
			return 0;
	int n = st->nargs - 1;
	size_t w = ph == SL_PHYS_I128 ? sizeof(sl_i128) : ph == SL_PHYS_STR ? sizeof(sl_str)
	                                                                    : sizeof(int64_t);
	in_set *s = calloc(1, sizeof(*s));
	sl_col tmp = {0};
	int *ord = malloc(sizeof(int) * (size_t)n);
	tmp.v.data = malloc(w * (size_t)n);
	if (s)
		s->vals.v.data = malloc(w * (size_t)n);
	if (!s || !ord || !tmp.v.data || !s->vals.v.data) {
		free(ord);
		free(tmp.v.data);
		in_set_free(s);
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	tmp.type = SL_X_ATYPE(p, st, 1);
	for (int j = 1; j < st->nargs; j++) {
		const sl_value *v = sl__step_const(p, st, j);
		if (v->is_null) {
			s->has_null = 1;
			continue;
		}
		memcpy((char *)tmp.v.data + w * (size_t)s->n, &v->v, w);
		ord[s->n] = s->n;
		s->n++;
	}
	qsort_r(ord, (size_t)s->n, sizeof(int), in_cmp, &tmp);
	for (int k = 0; k < s->n; k++)
		memcpy((char *)s->vals.v.data + w * (size_t)k, (char *)tmp.v.data + w * (size_t)ord[k], w);
	s->vals.type = tmp.type;
	free(ord);
	free(tmp.v.data);
	if (sl__prog_on_free(p, in_set_free, s))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	st->aux = s;
	st->k = ph == SL_PHYS_STR ? k_in_str : k_in_set;
	for (int j = 1; j < st->nargs; j++)
		p->regs[st->args[j]].scalar = 1; /* read through aux only */
	return 0;
}

static int k_nullif(sl_xctx *x, const sl_step *st)
{
	const sl_col *ca = SL_X_ARG(x, st, 0), *cb = SL_X_ARG(x, st, 1);
	sl_col *co = SL_X_OUT(x, st);
	sl_phys ph = sl_type_phys(st->type);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		sl__copy_val(co, i, ca, i, ph);
		if (!ca->null[i] && !cb->null[i] && cmp_rows(ph, ca, i, cb, i, st) == 0)
			co->null[i] = 1;
	});
	return 0;
}

static int bind_compare(sl_prog *p, sl_step *st, sl_err *err)
{
	sl_type ta = SL_X_ATYPE(p, st, 0), tb = SL_X_ATYPE(p, st, 1);
	sl_phys ph = sl_type_phys(ta);
	st->m1 = st->m2 = 1;
	if (ph == SL_PHYS_I128) {
		int sc = ta.scale > tb.scale ? ta.scale : tb.scale;
		st->m1 = sl_pow10_i128(sc - ta.scale);
		st->m2 = sl_pow10_i128(sc - tb.scale);
	}
	if (ph != sl_type_phys(tb))
		return sl_err_set(err, SL_EPLAN, "internal: '%s' on different physical types",
		                  sl_fn_name(st->fn));
	if (ph == SL_PHYS_ROW)
		return sl_err_set(err, SL_ENOTSUP, "'%s' on ROW values is not supported",
		                  sl_fn_name(st->fn));
	switch (st->fn) {
	case SL_FN_IS_DISTINCT: case SL_FN_IS_NOT_DISTINCT: st->k = k_distinct; return 0;
	case SL_FN_IN: return bind_in(p, st, err);
	case SL_FN_NULLIF: st->k = k_nullif; return 0;
	default: break;
	}
	int o = st->fn - SL_FN_EQ;
	if (ph == SL_PHYS_I64) {
		sl_kernel ks[] = {k_eq_i64, k_ne_i64, k_lt_i64, k_le_i64, k_gt_i64, k_ge_i64};
		st->k = ks[o];
	} else if (ph == SL_PHYS_F64) {
		sl_kernel ks[] = {k_eq_f64, k_ne_f64, k_lt_f64, k_le_f64, k_gt_f64, k_ge_f64};
		st->k = ks[o];
	} else if (ph == SL_PHYS_STR && (st->fn == SL_FN_EQ || st->fn == SL_FN_NE)) {
		st->k = k_eq_str;
	} else {
		st->k = k_cmp_generic;
	}
	return 0;
}

/* Picks kernels for + - * / MOD, unary minus, comparisons, IN, NULLIF and
 * IS [NOT] DISTINCT FROM. */
int sl__bind_arith(sl_prog *p, sl_step *st, sl_err *err)
{
	switch (st->fn) {
	case SL_FN_ADD: case SL_FN_SUB: case SL_FN_MUL: case SL_FN_DIV: case SL_FN_MOD:
	case SL_FN_NEG:
		return bind_arith(p, st, err);
	case SL_FN_EQ: case SL_FN_NE: case SL_FN_LT: case SL_FN_LE: case SL_FN_GT: case SL_FN_GE:
	case SL_FN_IS_DISTINCT: case SL_FN_IS_NOT_DISTINCT: case SL_FN_IN: case SL_FN_NULLIF:
		return bind_compare(p, st, err);
	default:
		return SL_ENOTSUP;
	}
}
