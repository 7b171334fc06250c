/*
 * fn_math.c - numeric functions: ABS, ROUND, FLOOR, CEIL, POWER, SQRT,
 * LN, LOG10, EXP.
 *
 * DECIMAL stays exact: ROUND(DECIMAL(p, s), d) rounds HALF_UP to
 * DECIMAL(1 + p - s + d, d) (Flink's findRoundDecimalType; a negative d
 * rounds to tens, hundreds, ... with scale 0), FLOOR/CEIL give scale 0.
 * Integers round to negative digit counts HALF_UP too; DOUBLE rounds as
 * Flink (BigDecimal.valueOf(v), HALF_UP, back to double): on the value's
 * shortest decimal digits, so ROUND(1.005, 2) is 1.01 and no result is -0.0
 * (binary arithmetic gave 1.0 and -0.0; found by make test-flink).  The
 * transcendental functions take DOUBLE (the
 * constructor casts) and follow C's math library (NaN for LN(-1), as
 * Java).
 */
#include "expr_int.h"
#include "base/decimal.h"

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

/* v / 10^k rounded HALF_UP (k > 0). */
static sl_i128 div_half_up(sl_i128 v, int k)
{
	sl_i128 d = sl_pow10_i128(k), q = v / d, r = v % d;
	if (r < 0)
		r = -r;
	if (r >= d - r)
		q += v < 0 ? -1 : 1;
	return q;
}

/*
 * ROUND(v, d) of a DOUBLE as Flink: the shortest decimal digits that read
 * back as v (Java's Double.toString, which BigDecimal.valueOf uses), rounded
 * HALF_UP at 10^-d, read back as a double; zero is +0.0.  v is finite.
 */
static double round_dbl(double v, int d)
{
	char t[40];
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(t, sizeof(t), "%.*e", prec - 1, v);
		if (strtod(t, NULL) == v)
			break;
	}
	/* t = "[-]D.DDDDe[+-]XX": digits D (n of them), v = 0.D * 10^(e + 1) */
	const char *p = t;
	int neg = *p == '-';
	if (neg)
		p++;
	char dg[24];
	int n = 0;
	for (; *p && *p != 'e'; p++)
		if (*p != '.')
			dg[n++] = *p;
	int e = atoi(p + 1);
	while (n > 1 && dg[n - 1] == '0')
		n--;
	int k = e + 1 + d; /* digits at or above 10^-d */
	if (k >= n)
		return v;
	if (k < 0)
		return 0.0;
	uint64_t q = 0;
	for (int i = 0; i < k; i++)
		q = q * 10 + (uint64_t)(dg[i] - '0');
	if (dg[k] >= '5')
		q++;
	if (q == 0)
		return 0.0;
	snprintf(t, sizeof(t), "%s%llue%d", neg ? "-" : "", (unsigned long long)q, -d);
	return strtod(t, NULL);
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

static int k_round(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	sl_phys ph = sl_type_phys(st->type);
	int s = x->p->regs[st->args[0]].type.scale;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		int d;
		o->null[i] = a->null[i] || round_digits(x, st, i, &d);
		if (o->null[i])
			continue;
		if (ph == SL_PHYS_F64) {
			double v = a->v.f64[i];
			o->v.f64[i] = !isfinite(v) ? v : v == 0 ? 0.0 : round_dbl(v, d);
		} else if (ph == SL_PHYS_I128) {
			sl_i128 v = a->v.i128[i];
			if (d < s)
				v = d >= 0 ? div_half_up(v, s - d)
				           : div_half_up(v, s - d) * sl_pow10_i128(-d > 38 ? 38 : -d);
			if (!sl_dec_fits(v, st->type.precision))
				return sl_err_set(x->err, SL_ERUNTIME, "DECIMAL(%d, %d) overflow in 'ROUND'",
				                  st->type.precision, st->type.scale);
			o->v.i128[i] = v;
		} else {
			int64_t v = a->v.i64[i];
			if (d < 0 && d > -19)
				v = (int64_t)(div_half_up(v, -d) * sl_pow10_i128(-d));
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

/* Picks kernels for the numeric functions. */
int sl__bind_math(sl_prog *p, sl_step *st, sl_err *err)
{
	switch (st->fn) {
	case SL_FN_ABS: st->k = k_abs; return 0;
	case SL_FN_ROUND: st->k = k_round; return 0;
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
