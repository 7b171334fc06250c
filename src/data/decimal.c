/*
 * decimal.c - exact DECIMAL(p, s) arithmetic on scaled 128-bit integers.
 *
 * Every DECIMAL value in sluice is an sl_i128 "unscaled" integer u with
 * value u / 10^s; the type (p, s) travels separately in the column's
 * sl_type.  This file parses decimal text (JSON numbers, CSV fields, SQL
 * literals, CAST), formats it back with exactly `s` fraction digits as Flink
 * does, rescales with HALF_UP rounding (ties away from zero, Java's
 * RoundingMode.HALF_UP) and offers overflow-checked int128 add/multiply.
 *
 * Invariants: no function here goes through a double except the explicit
 * double conversions; a result that does not fit its precision is reported
 * (-2), never wrapped.  Multiplication is written by hand on unsigned
 * magnitudes because clang's __builtin_mul_overflow on __int128 needs
 * compiler-rt's __muloti4, which a libgcc link does not have.
 *
 * Pure functions, thread-safe.
 */
#include "decimal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

#define I128_MAX ((sl_i128)(((u128)1 << 127) - 1))
#define I128_MIN (-I128_MAX - 1)

/* 10^n for 0 <= n <= 38: constant data (10^19 and up do not fit an
 * int64_t literal, so they are products with P19 = 10^19). */
#define P19 ((sl_i128)10000000000000000000ULL)
static const sl_i128 pow10_tab[39] = {
	1, 10LL, 100LL,
	1000LL, 10000LL, 100000LL,
	1000000LL, 10000000LL, 100000000LL,
	1000000000LL, 10000000000LL, 100000000000LL,
	1000000000000LL, 10000000000000LL, 100000000000000LL,
	1000000000000000LL, 10000000000000000LL, 100000000000000000LL,
	1000000000000000000LL, P19, P19 * 10LL,
	P19 * 100LL, P19 * 1000LL, P19 * 10000LL,
	P19 * 100000LL, P19 * 1000000LL, P19 * 10000000LL,
	P19 * 100000000LL, P19 * 1000000000LL, P19 * 10000000000LL,
	P19 * 100000000000LL, P19 * 1000000000000LL, P19 * 10000000000000LL,
	P19 * 100000000000000LL, P19 * 1000000000000000LL, P19 * 10000000000000000LL,
	P19 * 100000000000000000LL, P19 * 1000000000000000000LL, P19 * P19,
};
#undef P19

static inline sl_i128 p10(int n)
{
	return pow10_tab[n];
}

static u128 uabs(sl_i128 v)
{
	return v < 0 ? (u128)0 - (u128)v : (u128)v;
}

/* sl_dec_fits: 1 when |v| < 10^p. */
int sl_dec_fits(sl_i128 v, int p)
{
	if (p >= 39)
		return 1;
	if (p < 0)
		return 0;
	return uabs(v) < (u128)p10(p);
}

/* sl_i128_add: checked addition; 0 or -2 on overflow of int128. */
int sl_i128_add(sl_i128 a, sl_i128 b, sl_i128 *out)
{
	if ((b > 0 && a > I128_MAX - b) || (b < 0 && a < I128_MIN - b))
		return -2;
	*out = a + b;
	return 0;
}

/* sl_i128_mul: checked multiplication; 0 or -2 on overflow of int128. */
int sl_i128_mul(sl_i128 a, sl_i128 b, sl_i128 *out)
{
	u128 ua = uabs(a), ub = uabs(b);
	int neg = (a < 0) != (b < 0);
	if (ua != 0 && ub > ~(u128)0 / ua)
		return -2;
	u128 r = ua * ub;
	u128 lim = neg ? (u128)1 << 127 : ((u128)1 << 127) - 1;
	if (r > lim)
		return -2;
	*out = neg ? (sl_i128)((u128)0 - r) : (sl_i128)r;
	return 0;
}

/* Scanned shape of a decimal literal: where the digits are and the power of
 * ten applied to the digit string read as an integer. */
typedef struct numtext {
	const char *d;   /* digit characters (may contain one '.') */
	const char *dend;
	int neg;
	long exp10;      /* value = digits * 10^exp10 */
	int ndig;        /* number of digits in [d, dend) */
} numtext;

static int scan_number(const char *s, size_t len, numtext *nt)
{
	const char *p = s, *e = s + len;
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		e--;
	nt->neg = 0;
	if (p < e && (*p == '-' || *p == '+'))
		nt->neg = *p++ == '-';
	nt->d = p;
	int nint = 0, nfrac = 0, dot = 0;
	for (; p < e; p++) {
		if (*p >= '0' && *p <= '9')
			dot ? nfrac++ : nint++;
		else if (*p == '.' && !dot)
			dot = 1;
		else
			break;
	}
	nt->dend = p;
	nt->ndig = nint + nfrac;
	if (nt->ndig == 0)
		return -1;
	long ex = 0;
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		int eneg = 0;
		if (p < e && (*p == '-' || *p == '+'))
			eneg = *p++ == '-';
		if (p == e)
			return -1;
		for (; p < e && *p >= '0' && *p <= '9'; p++)
			if (ex < 100000)
				ex = ex * 10 + (*p - '0');
		ex = eneg ? -ex : ex;
	}
	if (p != e)
		return -1;
	nt->exp10 = ex - nfrac;
	return 0;
}

/*
 * sl_dec_parse: text -> DECIMAL(p, scale), rounding HALF_UP.  Returns 0, -1
 * for malformed text, -2 when the value does not fit precision p.
 */
/*
 * The common shape "[-]digits[.digits]" with at most 18 digits, no more
 * fraction digits than `scale` (no rounding) and the unscaled value below
 * 10^18: 1 and *out, else 0 (the caller takes the general path, which
 * gives the same value for these).  Why: sl_dec_parse was 5.6% of the
 * file benchmark (amounts like "344.88"): scan_number, then a 128-bit
 * multiply per digit and sl_dec_fits.
 */
static int parse_simple(const char *s, size_t len, int p, int scale, sl_i128 *out)
{
	static const int64_t p10_64[19] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
		1000000000, 10000000000, 100000000000, 1000000000000, 10000000000000,
		100000000000000, 1000000000000000, 10000000000000000,
		100000000000000000, 1000000000000000000};
	const char *q = s, *e = s + len;
	int neg = q < e && *q == '-';
	q += neg;
	int64_t v = 0;
	int nd = 0, nf = -1; /* nf: fraction digits, -1 before a '.' */
	for (; q < e; q++) {
		unsigned d = (unsigned)(*q - '0');
		if (d < 10) {
			if (++nd > 18) /* before the multiply: 19 digits overflow int64 */
				return 0;
			v = v * 10 + d;
			nf += nf >= 0;
		} else if (*q == '.' && nf < 0) {
			nf = 0;
		} else {
			return 0;
		}
	}
	int sh = scale - (nf > 0 ? nf : 0);
	if (nd == 0 || sh < 0 || nd + sh > 18 || p <= 0)
		return 0;
	v *= p10_64[sh];
	if (p <= 18 && v >= p10_64[p])
		return 0;
	*out = neg ? -(sl_i128)v : v;
	return 1;
}

int sl_dec_parse(const char *s, size_t len, int p, int scale, sl_i128 *out)
{
	if (parse_simple(s, len, p, scale, out))
		return 0;
	numtext nt;
	if (scan_number(s, len, &nt))
		return -1;
	long shift = nt.exp10 + scale; /* unscaled = digits * 10^shift */
	long keep = nt.ndig + (shift < 0 ? shift : 0); /* digits kept before rounding */
	sl_i128 acc = 0;
	int round = 0;
	long k = 0;
	sl_i128 lim = p10(37);
	for (const char *q = nt.d; q < nt.dend; q++) {
		if (*q == '.')
			continue;
		if (k < keep) {
			if (acc >= lim)
				return -2;
			acc = acc * 10 + (*q - '0');
		} else if (k == keep) {
			round = *q >= '5';
			break;
		}
		k++;
	}
	acc += round;
	if (shift > 0 && acc != 0) {
		if (shift > 38)
			return -2;
		if (sl_i128_mul(acc, p10((int)shift), &acc))
			return -2;
	}
	if (!sl_dec_fits(acc, p))
		return -2;
	*out = nt.neg ? -acc : acc;
	return 0;
}

/* sl_dec_format: exactly `scale` fraction digits; buf >= 44 bytes. */
int sl_dec_format(sl_i128 v, int scale, char *buf)
{
	char tmp[48];
	int n = 0;
	u128 u = uabs(v);
	do {
		tmp[n++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	while (n <= scale)
		tmp[n++] = '0';
	int o = 0;
	if (v < 0)
		buf[o++] = '-';
	for (int i = n - 1; i >= 0; i--) {
		buf[o++] = tmp[i];
		if (i == scale && scale > 0)
			buf[o++] = '.';
	}
	buf[o] = 0;
	return o;
}

/* Divides by 10^k (k >= 1) rounding HALF_UP, on the magnitude. */
static sl_i128 div_pow10_half_up(sl_i128 v, int k)
{
	if (k > 38)
		return 0;
	u128 d = (u128)p10(k);
	u128 u = uabs(v);
	u128 q = u / d, r = u % d;
	if (r * 2 >= d)
		q++;
	return v < 0 ? -(sl_i128)q : (sl_i128)q;
}

/* sl_dec_rescale: scale s1 -> s2 (HALF_UP when reducing); 0 or -2. */
int sl_dec_rescale(sl_i128 v, int s1, int s2, int p, sl_i128 *out)
{
	sl_i128 r = v;
	if (s2 > s1) {
		if (s2 - s1 > 38 || sl_i128_mul(v, p10(s2 - s1), &r))
			return v == 0 ? (*out = 0, 0) : -2;
	} else if (s2 < s1) {
		r = div_pow10_half_up(v, s1 - s2);
	}
	if (!sl_dec_fits(r, p))
		return -2;
	*out = r;
	return 0;
}

/* sl_dec_to_double: nearest double (exact division when both parts are
 * exactly representable, else through decimal text and strtod). */
double sl_dec_to_double(sl_i128 v, int scale)
{
	static const double e[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
	                           1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	                           1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
	if (uabs(v) < ((u128)1 << 53) && scale >= 0 && scale <= 22)
		return (double)(int64_t)v / e[scale];
	char buf[48];
	sl_dec_format(v, scale, buf);
	return strtod(buf, NULL);
}

/*
 * sl_dec_from_double: Java's BigDecimal.valueOf(d).setScale(scale, HALF_UP)
 * - the shortest round-trip text of d, then exact decimal rounding.
 * Returns 0, -2 on overflow, -1 for NaN/infinity.
 */
int sl_dec_from_double(double d, int p, int scale, sl_i128 *out)
{
	if (isnan(d) || isinf(d))
		return -1;
	char buf[40];
	int n = 0;
	for (int prec = 1; prec <= 17; prec++) {
		n = snprintf(buf, sizeof(buf), "%.*e", prec - 1, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	int r = sl_dec_parse(buf, (size_t)n, p, scale, out);
	return r == -1 ? -1 : r;
}
