/*
 * fn_math.c - numeric functions: ABS, ROUND, TRUNCATE, FLOOR, CEIL, SIGN,
 * POWER, SQRT, LN, LOG, LOG2, LOG10, EXP, the trigonometric functions,
 * DEGREES, RADIANS, PI and E.
 *
 * DECIMAL stays exact: ROUND(DECIMAL(p, s), d) rounds HALF_UP to
 * DECIMAL(1 + p - s + d, d) (Flink's findRoundDecimalType; a negative d
 * rounds to tens, hundreds, ... with scale 0), TRUNCATE rounds toward zero
 * to the same type, FLOOR/CEIL give scale 0.  Integers round to negative
 * digit counts HALF_UP too.  DOUBLE rounds (and truncates) its shortest
 * decimal form, as Flink does through BigDecimal.valueOf: ROUND(1.005, 2)
 * is 1.01, not the 1.0 that scaling the binary value would give.  The
 * transcendental functions take DOUBLE (the constructor casts) and follow
 * C's math library (NaN for LN(-1), as Java), except SINH, COSH and TANH,
 * which follow Java's formulas (fn_hyper.c); LOG(b, x) is ln(x) / ln(b).
 */
#include "expr_int.h"
#include "data/decimal.h"
#include "data/valtext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int k_abs(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	sl_phys ph = sl_type_phys(st->type);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = a->null[i];
		if (ph == SL_PHYS_F64)
			o->v.f64[i] = fabs(a->v.f64[i]);
		else if (ph == SL_PHYS_I128)
			o->v.i128[i] = a->v.i128[i] < 0 ? -a->v.i128[i] : a->v.i128[i];
		else
			o->v.i64[i] = sl__wrap_int(a->v.i64[i] < 0 ? (int64_t)(0 - (uint64_t)a->v.i64[i])
			                                           : a->v.i64[i], st->type.id);
	});
	return 0;
}

/* v / 10^k rounded HALF_UP, or toward zero when trunc (k > 0). */
static sl_i128 div_round(sl_i128 v, int k, int trunc)
{
	sl_i128 d = sl_pow10_i128(k), q = v / d, r = v % d;
	if (r < 0)
		r = -r;
	if (!trunc && r >= d - r)
		q += v < 0 ? -1 : 1;
	return q;
}

static int round_digits(const sl_xctx *x, const sl_step *st, int i, int *d)
{
	if (st->nargs < 2) {
		*d = 0;
		return 0;
	}
	const sl_col *c = SL_X_ARG(x, st, 1);
	if (c->null[i])
		return 1;
	int64_t v = c->v.i64[i];
	*d = v > 40 ? 40 : v < -40 ? -40 : (int)v;
	return 0;
}

/* v rounded to d fractional digits (negative d: tens, hundreds, ...) on
 * its shortest decimal form (Java's Double.toString digits, what
 * BigDecimal.valueOf reads): HALF_UP when half_up, toward zero otherwise. */
static double dec_text_round(double v, int d, int half_up)
{
	char t[40], digits[40], out[64];
	if (!isfinite(v))
		return v;
	int n = sl_double_text(v, 0, t), nd = 0, e10 = 0, frac = 0, seen_point = 0;
	const char *c = t;
	int neg = *c == '-';
	c += neg;
	for (; c < t + n && *c != 'E'; c++) {
		if (*c == '.') {
			seen_point = 1;
			continue;
		}
		digits[nd++] = *c;
		frac += seen_point;
	}
	e10 = -frac + (c < t + n ? atoi(c + 1) : 0);
	int k = -d - e10; /* digits to drop */
	if (k <= 0)
		return v;
	uint64_t kept = 0;
	for (int i = 0; i < nd - k; i++)
		kept = kept * 10 + (uint64_t)(digits[i] - '0');
	if (half_up && k <= nd && digits[nd - k] >= '5')
		kept++;
	if (kept == 0)
		return 0.0; /* BigDecimal has no negative zero */
	snprintf(out, sizeof(out), "%s%llue%d", neg ? "-" : "", (unsigned long long)kept, -d);
	return strtod(out, NULL);
}

static int k_round(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	sl_phys ph = sl_type_phys(st->type);
	int s = x->p->regs[st->args[0]].type.scale, trunc = st->fn == SL_FN_TRUNCATE;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		int d;
		o->null[i] = a->null[i] || round_digits(x, st, i, &d);
		if (o->null[i])
			continue;
		if (ph == SL_PHYS_F64) {
			o->v.f64[i] = dec_text_round(a->v.f64[i], d, !trunc);
		} else if (ph == SL_PHYS_I128) {
			sl_i128 v = a->v.i128[i];
			if (d < s)
				v = d >= 0 ? div_round(v, s - d, trunc)
				           : div_round(v, s - d, trunc) * sl_pow10_i128(-d > 38 ? 38 : -d);
			if (!sl_dec_fits(v, st->type.precision))
				return sl_err_set(x->err, SL_ERUNTIME, "DECIMAL(%d, %d) overflow in '%s'",
				                  st->type.precision, st->type.scale, sl_fn_name(st->fn));
			o->v.i128[i] = v;
		} else {
			int64_t v = a->v.i64[i];
			if (d < 0 && d > -19)
				v = (int64_t)(div_round(v, -d, trunc) * sl_pow10_i128(-d));
			else if (d <= -19)
				v = 0;
			o->v.i64[i] = sl__wrap_int(v, st->type.id);
		}
	});
	return 0;
}

static int k_floor_ceil(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	sl_phys ph = sl_type_phys(st->type);
	int ceil_ = st->fn == SL_FN_CEIL;
	sl_i128 f = sl_pow10_i128(x->p->regs[st->args[0]].type.scale);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = a->null[i];
		if (ph == SL_PHYS_F64) {
			o->v.f64[i] = ceil_ ? ceil(a->v.f64[i]) : floor(a->v.f64[i]);
		} else if (ph == SL_PHYS_I128) {
			sl_i128 v = a->v.i128[i], q = v / f, r = v % f;
			if (r != 0 && (ceil_ ? v > 0 : v < 0))
				q += ceil_ ? 1 : -1;
			o->v.i128[i] = q;
		} else {
			o->v.i64[i] = a->v.i64[i];
		}
	});
	return 0;
}

static int k_unary_f64(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	double (*f)(double) = (double (*)(double))st->aux;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = a->null[i];
		o->v.f64[i] = o->null[i] ? 0 : f(a->v.f64[i]);
	});
	return 0;
}

static int k_power(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0), *b = SL_X_ARG(x, st, 1);
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = a->null[i] | b->null[i];
		o->v.f64[i] = o->null[i] ? 0 : pow(a->v.f64[i], b->v.f64[i]);
	});
	return 0;
}

static double cot_(double v) { return 1.0 / tan(v); }
static double log2_(double v) { return log(v) / log(2.0); }
static double degrees_(double v) { return v * 57.29577951308232; }
static double radians_(double v) { return v * 0.017453292519943295; }

/* LOG(x) = LN(x); LOG(b, x) = LN(x) / LN(b); ATAN2(y, x). */
static int k_log_atan2(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0), *b = st->nargs > 1 ? SL_X_ARG(x, st, 1) : NULL;
	sl_col *o = SL_X_OUT(x, st);
	int atan2_ = st->fn == SL_FN_ATAN2;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = a->null[i] | (b ? b->null[i] : 0);
		if (o->null[i])
			continue;
		o->v.f64[i] = atan2_ ? atan2(a->v.f64[i], b->v.f64[i])
		            : b ? log(b->v.f64[i]) / log(a->v.f64[i]) : log(a->v.f64[i]);
	});
	return 0;
}

static int k_const_f64(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	double v = st->fn == SL_FN_PI ? M_PI : M_E;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = 0;
		o->v.f64[i] = v;
	});
	return 0;
}

static int k_sign(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	sl_phys ph = sl_type_phys(st->type);
	sl_i128 one = sl_pow10_i128(st->type.scale);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = a->null[i];
		if (o->null[i])
			continue;
		if (ph == SL_PHYS_F64) {
			double v = a->v.f64[i];
			o->v.f64[i] = v > 0 ? 1.0 : v < 0 ? -1.0 : v;
		} else if (ph == SL_PHYS_I128) {
			sl_i128 v = a->v.i128[i], r = v > 0 ? one : v < 0 ? -one : 0;
			if (!sl_dec_fits(r, st->type.precision))
				return sl_err_set(x->err, SL_ERUNTIME, "DECIMAL(%d, %d) overflow in 'SIGN'",
				                  st->type.precision, st->type.scale);
			o->v.i128[i] = r;
		} else {
			o->v.i64[i] = a->v.i64[i] > 0 ? 1 : a->v.i64[i] < 0 ? -1 : 0;
		}
	});
	return 0;
}

/* Picks kernels for the numeric functions. */
int sl__bind_math(sl_prog *p, sl_step *st, sl_err *err)
{
	switch (st->fn) {
	case SL_FN_ABS: st->k = k_abs; return 0;
	case SL_FN_ROUND: case SL_FN_TRUNCATE: st->k = k_round; return 0;
	case SL_FN_LOG: case SL_FN_ATAN2: st->k = k_log_atan2; return 0;
	case SL_FN_PI: case SL_FN_E: st->k = k_const_f64; return 0;
	case SL_FN_SIGN: st->k = k_sign; return 0;
	case SL_FN_LOG2: st->aux = (void *)log2_; break;
	case SL_FN_SIN: st->aux = (void *)sin; break;
	case SL_FN_SINH: st->aux = (void *)sl__java_sinh; break;
	case SL_FN_COS: st->aux = (void *)cos; break;
	case SL_FN_COSH: st->aux = (void *)sl__java_cosh; break;
	case SL_FN_TAN: st->aux = (void *)tan; break;
	case SL_FN_TANH: st->aux = (void *)sl__java_tanh; break;
	case SL_FN_COT: st->aux = (void *)cot_; break;
	case SL_FN_ASIN: st->aux = (void *)asin; break;
	case SL_FN_ACOS: st->aux = (void *)acos; break;
	case SL_FN_ATAN: st->aux = (void *)atan; break;
	case SL_FN_DEGREES: st->aux = (void *)degrees_; break;
	case SL_FN_RADIANS: st->aux = (void *)radians_; break;
	case SL_FN_FLOOR: case SL_FN_CEIL: st->k = k_floor_ceil; return 0;
	case SL_FN_POWER: st->k = k_power; return 0;
	case SL_FN_SQRT: st->aux = (void *)sqrt; break;
	case SL_FN_LN: st->aux = (void *)log; break;
	case SL_FN_LOG10: st->aux = (void *)log10; break;
	case SL_FN_EXP: st->aux = (void *)exp; break;
	default: return SL_ENOTSUP;
	}
	st->k = k_unary_f64;
	return 0;
}
