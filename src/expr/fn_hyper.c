/*
 * fn_hyper.c - SINH, COSH and TANH with Java's digits.
 *
 * Flink evaluates them with java.lang.Math, whose sinh, cosh and tanh are
 * StrictMath's: the fdlibm algorithms, which build the result from exp and
 * expm1 (cosh x = (e^|x| + 1/e^|x|) / 2 for 0.5 ln 2 <= |x| < 22, ...).
 * C's libm computes them its own way and differs in the last digit now and
 * then (COSH(1): 1.5430806348152437 here, Flink 1.543080634815244), so
 * sluice follows the same formulas, over fdlibm's exp (java_exp below: C's
 * exp is correctly rounded where fdlibm's is not always; StrictMath.exp(1)
 * is 2.7182818284590455) and C's expm1 (which agreed with StrictMath's on
 * every value tried).  On 3000 random arguments from 1e-7 to 750 all three
 * equal Java's Math.sinh / cosh / tanh digit for digit.  Stateless.
 */
#include "expr_int.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static uint32_t high_word(double x)
{
	uint64_t b;
	memcpy(&b, &x, sizeof(b));
	return (uint32_t)(b >> 32);
}

/*
 * fdlibm's exp (Java's StrictMath.exp): x = k ln2 + r with |r| <= 0.5 ln2
 * (ln2 split into a high and a low part), exp(r) from a degree-5 rational
 * approximation, then scaled by 2^k.
 */
static double java_exp(double x)
{
	static const double half[2] = {0.5, -0.5};
	static const double ln2_hi[2] = {6.93147180369123816490e-01, -6.93147180369123816490e-01};
	static const double ln2_lo[2] = {1.90821492927058770002e-10, -1.90821492927058770002e-10};
	const double inv_ln2 = 1.44269504088896338700e+00;
	const double p1 = 1.66666666666666019037e-01, p2 = -2.77777777770155933842e-03,
	             p3 = 6.61375632143793436117e-05, p4 = -1.65339022054652515390e-06,
	             p5 = 4.13813679705723846039e-08;
	double hi = 0, lo = 0, c, t;
	int k = 0;
	uint32_t hx = high_word(x);
	int neg = (int)(hx >> 31);
	hx &= 0x7fffffff;
	if (isnan(x))
		return x + x;
	if (hx >= 0x40862E42) { /* |x| >= 709.78: overflow, underflow, infinities */
		if (isinf(x))
			return neg ? 0.0 : x;
		if (x > 7.09782712893383973096e+02)
			return HUGE_VAL;
		if (x < -7.45133219101941108420e+02)
			return 0.0;
	}
	if (hx > 0x3fd62e42) { /* |x| > 0.5 ln2: reduce */
		if (hx < 0x3FF0A2B2) { /* and < 1.5 ln2 */
			hi = x - ln2_hi[neg];
			lo = ln2_lo[neg];
			k = 1 - neg - neg;
		} else {
			k = (int)(inv_ln2 * x + half[neg]);
			t = k;
			hi = x - t * ln2_hi[0];
			lo = t * ln2_lo[0];
		}
		x = hi - lo;
	} else if (hx < 0x3e300000) { /* |x| < 2^-28 */
		return 1.0 + x;
	}
	t = x * x;
	c = x - t * (p1 + t * (p2 + t * (p3 + t * (p4 + t * p5))));
	if (k == 0)
		return 1.0 - ((x * c) / (c - 2.0) - x);
	return ldexp(1.0 - ((lo - (x * c) / (2.0 - c)) - hi), k);
}

/* The ranges fdlibm splits at, by the high 32 bits of |x|: about 0.5 ln 2,
 * ln(DBL_MAX) and the overflow threshold */
#define LN2_HALF 0x1.62e43p-2         /* high word 0x3fd62e43 */
#define LN_MAX 0x1.62e42p+9           /* high word 0x40862e42 */
#define OVERFLOW 0x1.633ce8fb9f87dp+9 /* 710.4758600739439: larger overflows */

/* sl__java_cosh: see expr_int.h. */
double sl__java_cosh(double x)
{
	double a = fabs(x);
	if (isnan(x) || isinf(x))
		return x * x;
	if (a < LN2_HALF) {
		double t = expm1(a), w = 1.0 + t;
		if (a < 0x1p-55)
			return w;
		return 1.0 + (t * t) / (w + w);
	}
	if (a < 22.0) {
		double t = java_exp(a);
		return 0.5 * t + 0.5 / t;
	}
	if (a < LN_MAX)
		return 0.5 * java_exp(a);
	if (a <= OVERFLOW) {
		double w = java_exp(0.5 * a), t = 0.5 * w;
		return t * w;
	}
	return HUGE_VAL;
}

/* sl__java_sinh: see expr_int.h. */
double sl__java_sinh(double x)
{
	double a = fabs(x), h = x < 0 ? -0.5 : 0.5;
	if (isnan(x) || isinf(x))
		return x + x;
	if (a < 22.0) {
		if (a < 0x1p-28)
			return x;
		double t = expm1(a);
		if (a < 1.0)
			return h * (2.0 * t - t * t / (t + 1.0));
		return h * (t + t / (t + 1.0));
	}
	if (a < LN_MAX)
		return h * java_exp(a);
	if (a <= OVERFLOW) {
		double w = java_exp(0.5 * a), t = h * w;
		return t * w;
	}
	return x * HUGE_VAL;
}

/* sl__java_tanh: see expr_int.h. */
double sl__java_tanh(double x)
{
	double a = fabs(x), z;
	if (isnan(x))
		return x + x;
	if (isinf(x))
		return x > 0 ? 1.0 : -1.0;
	if (a < 22.0) {
		if (a < 0x1p-55)
			return x * (1.0 + x);
		if (a >= 1.0) {
			double t = expm1(2.0 * a);
			z = 1.0 - 2.0 / (t + 2.0);
		} else {
			double t = expm1(-2.0 * a);
			z = -t / (t + 2.0);
		}
	} else {
		z = 1.0;
	}
	return x >= 0 ? z : -z;
}
