/*
 * fmt_json_read.h - private to the JSON reader (fmt_json_read.c) and the
 * `json` format's flat path (fmt_json.c): the layout of a level's key
 * lookup (sl_jschema) and the reader's hot-path pieces, static inline so
 * that both files compile them into their loops.
 *
 * Why a header of inline functions rather than calls: the flat path reads
 * a usual record in a few hundred instructions, and a call per key,
 * string or number (its arguments copied) costs about as much as the work
 * itself (callgrind, bench 4; see dec_fast).  Nothing here allocates or
 * keeps state; every function reads at most the bytes its contract names.
 */
#ifndef SL_FMT_JSON_READ_H
#define SL_FMT_JSON_READ_H

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "fmt_json.h"
#include "base/timeutil.h"

/*
 * A field's key as it appears in a record, quote to quote ("name", ql
 * bytes), for matching the expected key in place (read_object): w0 holds
 * its first 8 bytes (m0 masks the ones a key shorter than 8 has), w1 its
 * last 8 when ql > 8.  ql = 0: no fast match (ql > 16, or the name holds a
 * '"', a '\\' or a control byte, which a record would write escaped).
 */
typedef struct jkey {
	uint64_t w0, w1, m0;
	uint32_t ql;
} jkey;

struct jcoll; /* a collection's level (fmt_json_read.c) */

struct sl_jschema {
	int n;
	const sl_field *fields;
	int32_t *namelen;
	uint16_t *slot;      /* field index + 1, 0 = empty; mask + 1 entries */
	uint32_t mask;
	sl_jschema **child;  /* ROW, ARRAY and MAP fields: their level; else NULL */
	jkey *key;           /* n entries */
	struct jcoll *coll;  /* a collection's level (n = 0): its elements */
};

/* Builds k for field name[0..len); colon = 1: the key followed by ':'
 * (ql one more), for the flat path.  k->ql = 0 when it does not fit. */
void sl__json_jkey_build(jkey *k, const char *name, size_t len, int colon);

/* Reads the string whose body starts at start and holds a backslash at bs
 * (the first: none in [start, bs)) into *out, unescaped into the batch
 * arena; c->p moves past its closing quote.  0 or SL_EINPUT / SL_ENOMEM
 * with c->err set (c->p as sl__json_read_string leaves it). */
int sl__json_read_escaped(sl_jcur *c, const char *start, const char *bs, sl_str *out);

/* Reads the value at c->p into (col, row); sub is the level of a ROW, an
 * ARRAY or a MAP field (sl_jschema.child), NULL for a scalar.  A ROW's
 * fields not in the object are left as they are (a new row's: NULL).
 * Returns 0 or SL_EINPUT / SL_ENOMEM with c->err set. */
int sl__json_read_value(sl_jcur *c, const sl_jschema *sub, sl_col *col, int row);

static inline uint64_t load8(const char *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	return w;
}

/* Whether the text at p (more than 16 bytes before the end) is key k, quotes
 * included: a key with those bytes holds no escape, so it is the field's
 * name exactly. */
static inline int jkey_at(const jkey *k, const char *p)
{
	if (!k->ql || (load8(p) & k->m0) != k->w0)
		return 0;
	return k->ql <= 8 || load8(p + k->ql - 8) == k->w1;
}

/*
 * The first '"' or '\\' in [p, e), or e.  Why not memchr for the quote and
 * again for a backslash: keys and values are a few bytes, and the two libc
 * calls per string were ~8% of the file benchmark (perf: memchr 10%,
 * read_string 4.5%).  Sixteen bytes at a time with SSE2 while the record
 * has them (the 8-byte loop below cost ~77 instructions a string value,
 * callgrind), then eight bytes at a time: a byte of w equal to c makes
 * (x - 0x01..) & ~x & 0x80.. nonzero with x = w ^ c*0x01..; its lowest set
 * bit marks the first match exactly (false hits only above it).
 */
static inline const char *quote_or_bs(const char *p, const char *e)
{
#if defined(__SSE2__)
	/* 16 bytes at a time where the record has them (x86-64 always has
	 * SSE2): a compare for each byte, one mask, its lowest set bit */
	const __m128i qv = _mm_set1_epi8('"'), bv = _mm_set1_epi8('\\');
	while (e - p >= 16) {
		__m128i w = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_or_si128(_mm_cmpeq_epi8(w, qv), _mm_cmpeq_epi8(w, bv)));
		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	while (e - p >= 8) {
		uint64_t w, a, b;
		memcpy(&w, p, 8);
		a = w ^ (ones * '"');
		b = w ^ (ones * '\\');
		uint64_t m = (((a - ones) & ~a) | ((b - ones) & ~b)) & high;
		if (m)
			return p + (__builtin_ctzll(m) >> 3);
		p += 8;
	}
#endif
	while (p < e && *p != '"' && *p != '\\')
		p++;
	return p;
}

/* sl__json_read_string inline, for read_value's string values.  Why: the
 * call per value (three a record in the benchmarks) showed in perf. */
static inline int read_string(sl_jcur *c, sl_str *out)
{
	const char *start = c->p + 1;
	const char *q = quote_or_bs(start, c->e);
	if (q != c->e && *q == '"') {
		out->ptr = start;
		out->len = q - start;
		c->p = q + 1;
		return 0;
	}
	return sl__json_read_string(c, out);
}

/* A timestamp's microseconds cut to the column's precision (0..6). */
static inline int64_t trunc_prec(int64_t us, int precision)
{
	static const int64_t unit[] = {1000000, 100000, 10000, 1000, 100, 10, 1};
	if (precision >= 6)
		return us;
	return sl_floordiv(us, unit[precision]) * unit[precision];
}

/*
 * A DECIMAL column's value written as a plain JSON number [-]int[.frac]
 * (at most 18 digits, no more fraction digits than the scale, no exponent)
 * at p, converted as sl_dec_parse would: sets *out (the unscaled value,
 * which fits 18 digits) and *len (the number's bytes), returns 0; -1 for
 * anything else, which then takes the general path (scan_scalar and
 * sl_dec_parse) with its rounding and its errors.
 * Why: scanning the token and parsing it again was ~250 instructions a
 * value (callgrind, "amount":344.88), this one loop ~60.  Inlined into
 * its two callers: the call (its sl_type argument copied) cost ~30 more
 * instructions a value than the conversion (callgrind, bench 4).
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The number of leading ASCII digits (0..8) of the 8 bytes at q (all
 * readable), with the bytes in *w.  A byte is a digit when neither
 * b - '0' nor b + 0x46 sets its top bit; borrows and carries only reach
 * bytes after the first non-digit, which do not count. */
static inline int lead_digits(const char *q, uint64_t *w)
{
	memcpy(w, q, 8);
	uint64_t nd = ((*w - 0x3030303030303030ULL) | (*w + 0x4646464646464646ULL)) &
	              0x8080808080808080ULL;
	return nd ? __builtin_ctzll(nd) >> 3 : 8;
}

/* The value of the first n (1..8) digits of w (lead_digits): the digits
 * moved to the top bytes (zero bytes below are leading zeros), then
 * pairs, quads and the two halves combined by multiplies. */
static inline int64_t digits_value(uint64_t w, int n)
{
	uint64_t v = (w << (8 * (8 - n))) & 0x0F0F0F0F0F0F0F0FULL;
	v = (v * 2561) >> 8;
	v = ((v & 0x00FF00FF00FF00FFULL) * 6553601) >> 16;
	return (int64_t)(((v & 0x0000FFFF0000FFFFULL) * 42949672960001ULL) >> 32);
}
#endif

static inline __attribute__((always_inline)) int dec_fast(const char *p, const char *e,
                                                          sl_type t, int64_t *out,
                                                          size_t *len)
{
	static const int64_t p10[19] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
		1000000000, 10000000000, 100000000000, 1000000000000, 10000000000000,
		100000000000000, 1000000000000000, 10000000000000000,
		100000000000000000, 1000000000000000000};
	const char *q = p;
	int neg = q < e && *q == '-';
	q += neg;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Up to 7 integer and 7 fraction digits, 8 bytes at a time (the loops
	 * below were ~145 instructions for "344.88", callgrind); with 18
	 * bytes left, both loads stay inside [p, e).  Anything else (more
	 * digits, a leading zero, no digit) takes the loops, which decide. */
	if (e - p >= 18) {
		uint64_t wi, wf;
		int ni = lead_digits(q, &wi), nf = 0;
		if (ni >= 1 && ni < 8 && (q[0] != '0' || ni == 1)) {
			const char *r = q + ni;
			int64_t v = digits_value(wi, ni);
			if (*r == '.') {
				nf = lead_digits(r + 1, &wf);
				if (nf >= 1 && nf < 8) {
					v = v * p10[nf] + digits_value(wf, nf);
					r += 1 + nf;
				} else {
					nf = -1;
				}
			}
			int sh = t.scale - nf;
			if (nf >= 0 && *r != '.' && *r != 'e' && *r != 'E' && sh >= 0 &&
			    ni + nf + sh <= 18 && t.precision > 0) {
				v *= p10[sh];
				if (t.precision <= 18 && v >= p10[t.precision])
					return -1;
				*out = neg ? -v : v;
				*len = (size_t)(r - p);
				return 0;
			}
		}
	}
#endif
	const char *d = q, *lim = e - q > 18 ? q + 18 : e; /* 18 digits at most */
	int64_t v = 0;
	while (q < lim && (unsigned)(*q - '0') < 10)
		v = v * 10 + (*q++ - '0');
	int ni = (int)(q - d), nf = 0;
	if (ni == 0 || (*d == '0' && ni > 1))
		return -1; /* no digit, or a leading zero: JSON's error, general path */
	if (q < e && *q == '.') {
		const char *f = ++q;
		lim = e - q > 18 - ni ? q + (18 - ni) : e;
		while (q < lim && (unsigned)(*q - '0') < 10)
			v = v * 10 + (*q++ - '0');
		nf = (int)(q - f);
		if (nf == 0)
			return -1;
	}
	if (q < e && ((unsigned)(*q - '0') < 10 || *q == '.' || *q == 'e' || *q == 'E'))
		return -1; /* more digits than 18, or an exponent */
	int sh = t.scale - nf;
	if (sh < 0 || ni + nf + sh > 18 || t.precision <= 0)
		return -1;
	v *= p10[sh];
	if (t.precision <= 18 && v >= p10[t.precision])
		return -1;
	*out = neg ? -v : v; /* |v| < 10^18 */
	*len = (size_t)(q - p);
	return 0;
}

/* Whether integer v fits the integer type id (BIGINT: always). */
static inline int int_fits(sl_type_id id, int64_t v)
{
	switch (id) {
	case SL_T_TINYINT: return v >= -128 && v <= 127;
	case SL_T_SMALLINT: return v >= -32768 && v <= 32767;
	case SL_T_INT: return v >= INT32_MIN && v <= INT32_MAX;
	default: return 1;
	}
}

/*
 * An integer column's value written as a plain JSON integer
 * -?(0|[1-9][0-9]*) of at most 18 digits, not followed by a digit, '.',
 * 'e' or 'E', at p: sets *out and *len (its bytes), returns 0, as
 * scan_scalar and parse_i64 would; -1 for anything else (a fraction, an
 * exponent, 19 digits, a leading zero, no digit), which then takes the
 * general path (scan_scalar, set_scalar) with its conversions and errors.
 * Why: the general path was ~110 instructions a BIGINT value (scan, then
 * parse with blank trimming and overflow checks; callgrind, the Nexmark
 * wide table), this ~25 for up to 7 digits.
 */
static inline __attribute__((always_inline)) int int_fast(const char *p, const char *e,
                                                          int64_t *out, size_t *len)
{
	const char *q = p;
	int neg = q < e && *q == '-';
	q += neg;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* up to 7 digits from one 8-byte load; with 9 bytes left, the load
	 * and the byte after the digits stay inside [p, e) */
	if (e - q >= 9) {
		uint64_t w;
		int n = lead_digits(q, &w);
		if (n >= 1 && n < 8) {
			char nx = q[n];
			if ((q[0] == '0' && n > 1) || nx == '.' || nx == 'e' || nx == 'E')
				return -1;
			int64_t v = digits_value(w, n);
			*out = neg ? -v : v;
			*len = (size_t)(q + n - p);
			return 0;
		}
	}
#endif
	const char *d = q, *lim = e - q > 18 ? q + 18 : e;
	int64_t v = 0;
	while (q < lim && (unsigned)(*q - '0') < 10)
		v = v * 10 + (*q++ - '0');
	if (q == d || (*d == '0' && q - d > 1))
		return -1;
	if (q < e && ((unsigned)(*q - '0') < 10 || *q == '.' || *q == 'e' || *q == 'E'))
		return -1;
	*out = neg ? -v : v;
	*len = (size_t)(q - p);
	return 0;
}

#endif
