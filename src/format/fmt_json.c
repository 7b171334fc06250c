/*
 * fmt_json.c - the `json` format: one JSON object per record, decoded
 * straight into batch columns and encoded back from them.
 *
 * Data flow: a source hands each record (a line of a file, a Kafka message,
 * an sl_push_json text) to decode(), which appends one +I row to the
 * source's batch.  There is no DOM: the reader walks the text once, and for
 * each key finds the target field through a per-level lookup (sl_jschema)
 * that first tries the field after the previous match (records almost
 * always list keys in schema order: its quoted name is compared in place,
 * 8 bytes at a time, before the key is scanned) and otherwise a small
 * open-addressing hash of the key.  Unknown keys are skipped, whatever they hold; missing
 * keys stay NULL.  Before that general reader, a flat path (read_flat)
 * takes the usual record whole: exactly the schema's fields, in order,
 * no blanks, no nested ROW; any other record is read again from its start
 * by the general reader, so both give the same row or the same error.  Strings without escapes are referenced in place (the
 * caller keeps the record bytes alive as long as the batch is used, see
 * format.h); strings with escapes are unescaped into the batch arena.
 * Numbers become integers, doubles or exact DECIMALs from their text
 * (decimal.c, never through a double); timestamps use timeutil.c's parser,
 * whose fast path matches "YYYY-MM-DD HH:MM:SS.fff".
 *
 * Invariants: nothing is allocated per row except unescaped string bytes
 * in the batch arena; on any error the row appended for the record is
 * removed again (format.h's contract) and the message names the field path
 * or the byte offset; nesting deeper than SL_JSON_MAX_DEPTH is an error,
 * never a stack overflow.  The encoder writes fields in schema order.
 */
#include "fmt_builtin.h"
#include "fmt_json.h"

#include <math.h>
#include <stdio.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "data/decimal.h"
#include "data/packed.h"
#include "base/timeutil.h"
#include "data/valtext.h"
#include "sluice.h"

#define SL_JSON_MAX_DEPTH 64

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

/*
 * The level of an ARRAY or MAP value: a JSON array (ARRAY) or object
 * (MAP, keys converted from their text to the key type), each element
 * read into a one-row scratch column by read_value, then packed
 * (data/packed.h) in buf; the packed value is copied into the batch arena.
 */
typedef struct jcoll {
	sl_type type;       /* the ARRAY or MAP */
	sl_col ec[2];       /* element (MAP: key, value), one row, arena-held */
	sl_jschema *sub[2]; /* their levels when ROW, ARRAY or MAP; else NULL */
	sl_buf buf, tmp;    /* the value being packed; map-dedup scratch */
} jcoll;

struct sl_jschema {
	int n;
	const sl_field *fields;
	int32_t *namelen;
	uint16_t *slot;      /* field index + 1, 0 = empty; mask + 1 entries */
	uint32_t mask;
	sl_jschema **child;  /* ROW, ARRAY and MAP fields: their level; else NULL */
	jkey *key;           /* n entries */
	jcoll *coll;         /* a collection's level (n = 0): its elements */
};

static int coll_level(sl_arena *a, sl_type t, sl_jschema **out);

/* The level of a value of type t: ROW fields, a collection's elements, or
 * NULL for a scalar.  0 or SL_ENOMEM. */
static int sub_level(sl_arena *a, sl_type t, sl_jschema **out)
{
	*out = NULL;
	if (t.id == SL_T_ROW && t.row)
		return sl__jschema_build(a, t.row->fields, t.row->nfields, out);
	if (sl_type_is_collection(t))
		return coll_level(a, t, out);
	return 0;
}

static int coll_level(sl_arena *a, sl_type t, sl_jschema **out)
{
	sl_jschema *s = sl_arena_calloc(a, sizeof(*s));
	jcoll *jc = s ? sl_arena_calloc(a, sizeof(*jc)) : NULL;
	if (!jc)
		return SL_ENOMEM;
	s->coll = jc;
	jc->type = t;
	sl_buf_init(&jc->buf);
	sl_buf_init(&jc->tmp);
	for (int k = 0; k < t.row->nfields; k++)
		if (sl_col_new_in(a, &jc->ec[k], t.row->fields[k].type) ||
		    sub_level(a, t.row->fields[k].type, &jc->sub[k]))
			return SL_ENOMEM;
	*out = s;
	return 0;
}

/* sl__jschema_free: see fmt_json.h. */
void sl__jschema_free(sl_jschema *s)
{
	if (!s)
		return;
	if (s->coll) {
		sl_buf_deinit(&s->coll->buf);
		sl_buf_deinit(&s->coll->tmp);
		sl__jschema_free(s->coll->sub[0]);
		sl__jschema_free(s->coll->sub[1]);
	}
	for (int i = 0; s->child && i < s->n; i++)
		sl__jschema_free(s->child[i]);
}

static uint32_t key_hash(const char *k, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)k[i]) * 16777619u;
	return h;
}

static inline uint64_t load8(const char *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	return w;
}

/* colon = 1: the key followed by ':' (ql one more), for the flat path. */
static void jkey_build(jkey *k, const char *name, size_t len, int colon)
{
	char q[24] = {0};
	memset(k, 0, sizeof(*k));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (len + 2 + (size_t)colon > 16)
		return;
	for (size_t i = 0; i < len; i++)
		if (name[i] == '"' || name[i] == '\\' || (unsigned char)name[i] < 0x20)
			return;
	q[0] = '"';
	memcpy(q + 1, name, len);
	q[len + 1] = '"';
	q[len + 2] = colon ? ':' : 0;
	k->ql = (uint32_t)(len + 2 + (size_t)colon);
	k->w0 = load8(q);
	k->m0 = k->ql >= 8 ? ~0ULL : (1ULL << (8 * k->ql)) - 1;
	if (k->ql > 8)
		k->w1 = load8(q + k->ql - 8);
#else
	(void)q, (void)name, (void)len;
#endif
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

/* sl__jschema_build: see fmt_json.h. */
int sl__jschema_build(sl_arena *a, const sl_field *fields, int n, sl_jschema **out)
{
	sl_jschema *s = sl_arena_calloc(a, sizeof(*s));
	if (!s)
		return SL_ENOMEM;
	uint32_t cap = 8;
	while (cap < (uint32_t)n * 2)
		cap *= 2;
	s->n = n;
	s->fields = fields;
	s->mask = cap - 1;
	s->namelen = sl_arena_calloc(a, sizeof(int32_t) * (size_t)(n + 1));
	s->slot = sl_arena_calloc(a, sizeof(uint16_t) * cap);
	s->child = sl_arena_calloc(a, sizeof(sl_jschema *) * (size_t)(n + 1));
	s->key = sl_arena_calloc(a, sizeof(jkey) * (size_t)(n + 1));
	if (!s->namelen || !s->slot || !s->child || !s->key || n > 65535)
		return SL_ENOMEM;
	for (int i = 0; i < n; i++) {
		size_t len = strlen(fields[i].name);
		s->namelen[i] = (int32_t)len;
		jkey_build(&s->key[i], fields[i].name, len, 0);
		uint32_t h = key_hash(fields[i].name, len) & s->mask;
		while (s->slot[h])
			h = (h + 1) & s->mask;
		s->slot[h] = (uint16_t)(i + 1);
		if (sub_level(a, fields[i].type, &s->child[i]))
			return SL_ENOMEM;
	}
	*out = s;
	return 0;
}

/* Field index of key k[0..n) or -1; `hint` is tried first. */
static int jschema_find(const sl_jschema *s, const char *k, size_t n, int hint)
{
	if (hint < s->n && (size_t)s->namelen[hint] == n && memcmp(s->fields[hint].name, k, n) == 0)
		return hint;
	uint32_t h = key_hash(k, n) & s->mask;
	for (uint16_t v; (v = s->slot[h]) != 0; h = (h + 1) & s->mask) {
		int i = v - 1;
		if ((size_t)s->namelen[i] == n && memcmp(s->fields[i].name, k, n) == 0)
			return i;
	}
	return -1;
}

/* ---- errors ----------------------------------------------------------- */

/* sl__json_syntax: see fmt_json.h. */
int sl__json_syntax(sl_jcur *c, const char *what)
{
	return sl_err_set(c->err, SL_EINPUT, "malformed JSON at byte %ld: %s", (long)(c->p - c->s),
	                  what);
}

static void path_text(const sl_jcur *c, char *buf, size_t cap)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < c->npath && n < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? "." : "", c->path[i]);
}

/* "field 'f': 'text' is not a TYPE" (kind 0) or "... is out of range for TYPE". */
static int value_err(sl_jcur *c, const char *v, size_t len, sl_type t, int range)
{
	char path[256], tn[128];
	path_text(c, path, sizeof(path));
	sl_type_format(t, tn, sizeof(tn));
	int show = len > 64 ? 64 : (int)len;
	if (range)
		return sl_err_set(c->err, SL_EINPUT, "field '%s': %.*s%s is out of range for %s", path,
		                  show, v, len > 64 ? "..." : "", tn);
	return sl_err_set(c->err, SL_EINPUT, "field '%s': '%.*s%s' is not a %s", path, show, v,
	                  len > 64 ? "..." : "", tn);
}

/* ---- lexical pieces ----------------------------------------------------- */

/* sl__json_ws_skip: see fmt_json.h. */
int sl__json_ws_skip(sl_jcur *c)
{
	const char *p = c->p;
	while (p < c->e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	c->p = p;
	return p < c->e ? (unsigned char)*p : -1;
}

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static int read_hex4(sl_jcur *c, const char *p, unsigned *out)
{
	if (c->e - p < 4)
		return -1;
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval((unsigned char)p[i]);
		if (h < 0)
			return -1;
		v = v << 4 | (unsigned)h;
	}
	*out = v;
	return 0;
}

static char *put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xC0 | cp >> 6);
		*o++ = (char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xE0 | cp >> 12);
		*o++ = (char)(0x80 | (cp >> 6 & 0x3F));
		*o++ = (char)(0x80 | (cp & 0x3F));
	} else {
		*o++ = (char)(0xF0 | cp >> 18);
		*o++ = (char)(0x80 | (cp >> 12 & 0x3F));
		*o++ = (char)(0x80 | (cp >> 6 & 0x3F));
		*o++ = (char)(0x80 | (cp & 0x3F));
	}
	return o;
}

/* Decodes one escape at c->p (just after the backslash) into o; returns the
 * new output pointer or NULL with the error set. */
static char *unescape_one(sl_jcur *c, char *o)
{
	char ch = *c->p++;
	switch (ch) {
	case '"': *o++ = '"'; return o;
	case '\\': *o++ = '\\'; return o;
	case '/': *o++ = '/'; return o;
	case 'b': *o++ = '\b'; return o;
	case 'f': *o++ = '\f'; return o;
	case 'n': *o++ = '\n'; return o;
	case 'r': *o++ = '\r'; return o;
	case 't': *o++ = '\t'; return o;
	case 'u': break;
	default: c->p--; sl__json_syntax(c, "invalid escape in string"); return NULL;
	}
	unsigned cp, lo;
	if (read_hex4(c, c->p, &cp)) {
		sl__json_syntax(c, "invalid \\u escape");
		return NULL;
	}
	c->p += 4;
	if (cp >= 0xD800 && cp <= 0xDBFF) {
		if (c->e - c->p < 6 || c->p[0] != '\\' || c->p[1] != 'u' ||
		    read_hex4(c, c->p + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
			sl__json_syntax(c, "invalid surrogate pair");
			return NULL;
		}
		c->p += 6;
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
	} else if (cp >= 0xDC00 && cp <= 0xDFFF) {
		sl__json_syntax(c, "invalid surrogate pair");
		return NULL;
	}
	return put_utf8(o, cp);
}

/* End of the string whose body starts at p (the closing quote), or NULL. */
static const char *string_end(const char *p, const char *e)
{
	for (;;) {
		const char *q = memchr(p, '"', (size_t)(e - p));
		if (!q)
			return NULL;
		size_t bs = 0;
		while (q - bs > p && q[-1 - (ptrdiff_t)bs] == '\\')
			bs++;
		if (!(bs & 1))
			return q;
		p = q + 1;
	}
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

static int read_escaped(sl_jcur *c, const char *start, sl_str *out);

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

/* sl__json_read_string: see fmt_json.h. */
int sl__json_read_string(sl_jcur *c, sl_str *out)
{
	const char *start = c->p + 1;
	const char *q = quote_or_bs(start, c->e);
	if (q == c->e)
		return sl__json_syntax(c, "unterminated string");
	if (*q == '"') { /* no escapes: referenced in place */
		out->ptr = start;
		out->len = q - start;
		c->p = q + 1;
		return 0;
	}
	return read_escaped(c, start, out);
}

/* The string whose body starts at start holds an escape: unescaped into
 * the batch arena. */
static int read_escaped(sl_jcur *c, const char *start, sl_str *out)
{
	const char *end = string_end(start, c->e);
	if (!end)
		return sl__json_syntax(c, "unterminated string");
	char *buf = sl_arena_alloc(&c->b->arena, (size_t)(end - start) + 1);
	if (!buf)
		return sl_err_set(c->err, SL_ENOMEM, "out of memory");
	char *o = buf;
	c->p = start;
	while (c->p < end) {
		const char *bs = memchr(c->p, '\\', (size_t)(end - c->p));
		size_t run = (size_t)((bs ? bs : end) - c->p);
		memcpy(o, c->p, run);
		o += run;
		c->p += run;
		if (!bs)
			break;
		c->p++;
		if (!(o = unescape_one(c, o)))
			return SL_EINPUT;
	}
	*o = 0;
	out->ptr = buf;
	out->len = o - buf;
	c->p = end + 1;
	return 0;
}

/* Validates a number or literal token at c->p; sets *len.  0 or -1. */
static int scan_scalar(sl_jcur *c, size_t *len)
{
	const char *p = c->p, *e = c->e;
	if (*p == 't' || *p == 'f' || *p == 'n') {
		const char *lit = *p == 't' ? "true" : *p == 'f' ? "false" : "null";
		size_t l = strlen(lit);
		if ((size_t)(e - p) < l || memcmp(p, lit, l))
			return -1;
		*len = l;
		return 0;
	}
	if (p < e && *p == '-')
		p++;
	const char *d = p;
	while (p < e && (unsigned)(*p - '0') < 10)
		p++;
	if (p == d || (*d == '0' && p - d > 1))
		return -1;
	if (p < e && *p == '.') {
		d = ++p;
		while (p < e && (unsigned)(*p - '0') < 10)
			p++;
		if (p == d)
			return -1;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		d = p;
		while (p < e && (unsigned)(*p - '0') < 10)
			p++;
		if (p == d)
			return -1;
	}
	*len = (size_t)(p - c->p);
	return 0;
}

/* sl__json_skip_value: see fmt_json.h. */
int sl__json_skip_value(sl_jcur *c)
{
	int ch = sl__json_ws(c);
	if (ch == '"') {
		const char *end = string_end(c->p + 1, c->e);
		if (!end)
			return sl__json_syntax(c, "unterminated string");
		c->p = end + 1;
		return 0;
	}
	if (ch == '{' || ch == '[') {
		if (++c->depth > SL_JSON_MAX_DEPTH)
			return sl__json_syntax(c, "nesting too deep");
		char close = ch == '{' ? '}' : ']';
		c->p++;
		if (sl__json_ws(c) == close) {
			c->p++;
			c->depth--;
			return 0;
		}
		for (;;) {
			if (close == '}') {
				if (sl__json_ws(c) != '"')
					return sl__json_syntax(c, "expected a string key");
				if (sl__json_skip_value(c))
					return SL_EINPUT;
				if (sl__json_ws(c) != ':')
					return sl__json_syntax(c, "expected ':'");
				c->p++;
			}
			if (sl__json_skip_value(c))
				return SL_EINPUT;
			ch = sl__json_ws(c);
			c->p++;
			if (ch == close)
				break;
			if (ch != ',') {
				c->p--;
				return sl__json_syntax(c, close == '}' ? "expected ',' or '}'"
				                                       : "expected ',' or ']'");
			}
		}
		c->depth--;
		return 0;
	}
	size_t len;
	if (ch < 0 || scan_scalar(c, &len))
		return sl__json_syntax(c, "expected a value");
	c->p += len;
	return 0;
}

/* ---- values ------------------------------------------------------------ */

static int parse_i64(const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	int neg = 0;
	while (i < n && s[i] == ' ')
		i++;
	while (n > i && s[n - 1] == ' ')
		n--;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	if (i == n)
		return -1;
	uint64_t v = 0;
	for (; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (d > 9)
			return -1;
		if (v > (UINT64_MAX - d) / 10)
			return -2;
		v = v * 10 + d;
	}
	if (v > (uint64_t)INT64_MAX + neg)
		return -2;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/*
 * Text to double.  Why the fast path: strtod needs a NUL-terminated copy and
 * costs ~80 ns; for up to 15 significant digits and |exp| <= 22 one exact
 * multiply or divide of two exactly representable doubles is correctly
 * rounded (Clinger), ~5 ns.
 */
static int parse_f64(const char *s, size_t n, double *out)
{
	static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
	                             1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	                             1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
	size_t i = 0;
	int neg = 0, nd = 0, frac = 0, dot = 0;
	uint64_t m = 0;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	for (; i < n; i++) {
		if ((unsigned)(s[i] - '0') < 10) {
			if (m || s[i] != '0')
				nd++;
			m = m * 10 + (uint64_t)(s[i] - '0');
			frac += dot;
			if (nd > 15)
				break;
		} else if (s[i] == '.' && !dot) {
			dot = 1;
		} else {
			break;
		}
	}
	if (i == n && nd <= 15 && frac <= 22 && (i > (size_t)neg + dot)) {
		double v = (double)m / p10[frac];
		*out = neg ? -v : v;
		return 0;
	}
	char tmp[512];
	if (n == 0 || n >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = 0;
	char *end;
	double v = strtod(tmp, &end);
	size_t used = (size_t)(end - tmp);
	while (used < n && tmp[used] == ' ')
		used++;
	if (used != n || end == tmp)
		return -1;
	*out = v;
	return 0;
}

static int int_fits(sl_type_id id, int64_t v)
{
	switch (id) {
	case SL_T_TINYINT: return v >= -128 && v <= 127;
	case SL_T_SMALLINT: return v >= -32768 && v <= 32767;
	case SL_T_INT: return v >= INT32_MIN && v <= INT32_MAX;
	default: return 1;
	}
}

static int64_t trunc_prec(int64_t us, int precision)
{
	static const int64_t unit[] = {1000000, 100000, 10000, 1000, 100, 10, 1};
	if (precision >= 6)
		return us;
	return sl_floordiv(us, unit[precision]) * unit[precision];
}

/* Converts scalar text v[0..n) (is_str: it was a JSON string) into column
 * col, row.  Returns 0 or SL_EINPUT. */
static int set_scalar(sl_jcur *c, sl_col *col, int row, const char *v, size_t n, int is_str)
{
	sl_type t = col->type;
	int64_t i;
	double d;
	sl_i128 dec;
	int rc;
	switch ((sl_type_id)t.id) {
	case SL_T_BOOLEAN:
		if (n == 4 && strncasecmp(v, "true", 4) == 0)
			sl_col_set_i64(col, row, 1);
		else if (n == 5 && strncasecmp(v, "false", 5) == 0)
			sl_col_set_i64(col, row, 0);
		else
			return value_err(c, v, n, t, 0);
		return 0;
	case SL_T_TINYINT:
	case SL_T_SMALLINT:
	case SL_T_INT:
	case SL_T_BIGINT:
		rc = parse_i64(v, n, &i);
		if (rc == -1 && !is_str && parse_f64(v, n, &d) == 0) {
			if (!(d > -9.3e18 && d < 9.3e18))
				return value_err(c, v, n, t, 1);
			i = (int64_t)d, rc = 0; /* Jackson's asLong(): truncation */
		}
		if (rc)
			return value_err(c, v, n, t, rc == -2);
		if (!int_fits((sl_type_id)t.id, i))
			return value_err(c, v, n, t, 1);
		sl_col_set_i64(col, row, i);
		return 0;
	case SL_T_FLOAT:
	case SL_T_DOUBLE:
		if (parse_f64(v, n, &d)) {
			if (!is_str)
				return value_err(c, v, n, t, 0);
			if (n == 3 && !memcmp(v, "NaN", 3))
				d = NAN;
			else if (n == 8 && !memcmp(v, "Infinity", 8))
				d = INFINITY;
			else if (n == 9 && !memcmp(v, "-Infinity", 9))
				d = -INFINITY;
			else
				return value_err(c, v, n, t, 0);
		}
		sl_col_set_f64(col, row, t.id == SL_T_FLOAT ? (double)(float)d : d);
		return 0;
	case SL_T_DECIMAL:
		rc = sl_dec_parse(v, n, t.precision, t.scale, &dec);
		if (rc)
			return value_err(c, v, n, t, rc == -2);
		sl_col_set_i128(col, row, dec);
		return 0;
	case SL_T_DATE:
		if (!is_str || sl_date_parse(v, n, &i))
			return value_err(c, v, n, t, 0);
		sl_col_set_i64(col, row, i);
		return 0;
	case SL_T_TIME:
		if (!is_str || sl_time_parse(v, n, &i))
			return value_err(c, v, n, t, 0);
		sl_col_set_i64(col, row, trunc_prec(i, t.precision));
		return 0;
	case SL_T_TIMESTAMP:
	case SL_T_TIMESTAMP_LTZ:
		if (is_str) {
			if (sl_ts_parse_cached(v, n, &i, c->tsc))
				return value_err(c, v, n, t, 0);
		} else if (t.id == SL_T_TIMESTAMP_LTZ && parse_i64(v, n, &i) == 0) {
			if (i > INT64_MAX / 1000 || i < INT64_MIN / 1000)
				return value_err(c, v, n, t, 1);
			i *= 1000; /* epoch millis */
		} else {
			return value_err(c, v, n, t, 0);
		}
		sl_col_set_i64(col, row, trunc_prec(i, t.precision));
		return 0;
	case SL_T_INTERVAL_DT:
	case SL_T_INTERVAL_YM:
		if (parse_i64(v, n, &i))
			return value_err(c, v, n, t, 0);
		sl_col_set_i64(col, row, i);
		return 0;
	default:
		return value_err(c, v, n, t, 0);
	}
}

static int b64val(int ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	if (ch == '+' || ch == '-')
		return 62;
	if (ch == '/' || ch == '_')
		return 63;
	return -1;
}

/* BYTES from a base64 JSON string (Jackson's binary encoding). */
static int set_base64(sl_jcur *c, sl_col *col, int row, const sl_str *s)
{
	char *o = sl_arena_alloc(&c->b->arena, (size_t)s->len * 3 / 4 + 3);
	if (!o)
		return sl_err_set(c->err, SL_ENOMEM, "out of memory");
	uint32_t acc = 0;
	int bits = 0;
	int64_t n = 0, k = s->len;
	while (k > 0 && s->ptr[k - 1] == '=')
		k--;
	for (int64_t i = 0; i < k; i++) {
		int v = b64val((unsigned char)s->ptr[i]);
		if (v < 0)
			return value_err(c, s->ptr, (size_t)s->len, col->type, 0);
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			o[n++] = (char)(acc >> bits);
		}
	}
	sl_col_set_str_ref(col, row, o, n);
	return 0;
}

/* sl__json_set_text: see fmt_json.h. */
int sl__json_set_text(sl_jcur *c, sl_col *col, int row, const char *v, size_t n)
{
	sl_type_id id = (sl_type_id)col->type.id;
	if (id == SL_T_CHAR || id == SL_T_VARCHAR) {
		sl_col_set_str_ref(col, row, v, (int64_t)n);
		return 0;
	}
	if (id == SL_T_BINARY || id == SL_T_VARBINARY) {
		sl_str s = {v, (int64_t)n};
		return set_base64(c, col, row, &s);
	}
	if (id == SL_T_ROW || id == SL_T_ARRAY || id == SL_T_MAP)
		return value_err(c, v, n, col->type, 0);
	return set_scalar(c, col, row, v, n, 1);
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

static int read_key(sl_jcur *c, sl_str *k);
static int read_coll(sl_jcur *c, jcoll *jc, sl_col *col, int row);

/* Reads the value at c->p into (col, row); sub is the level of a ROW, an
 * ARRAY or a MAP. */
static int read_value(sl_jcur *c, const sl_jschema *sub, sl_col *col, int row)
{
	int ch = sl__json_ws(c);
	sl_type_id id = (sl_type_id)col->type.id;
	const char *start = c->p;
	if (ch == 'n') {
		if (c->e - c->p < 4 || memcmp(c->p, "null", 4))
			return sl__json_syntax(c, "expected a value");
		c->p += 4;
		sl_col_set_null(col, row);
		return 0;
	}
	if (id == SL_T_ARRAY || id == SL_T_MAP)
		return read_coll(c, sub->coll, col, row);
	if (id == SL_T_ROW) {
		if (ch != '{') {
			if (sl__json_skip_value(c))
				return SL_EINPUT;
			return value_err(c, start, (size_t)(c->p - start), col->type, 0);
		}
		col->null[row] = 0;
		return sl__json_read_object(c, sub, col->child, row);
	}
	if (ch == '"') {
		sl_str s;
		int rc = read_string(c, &s);
		if (rc)
			return rc;
		if (id == SL_T_CHAR || id == SL_T_VARCHAR) {
			sl_col_set_str_ref(col, row, s.ptr, s.len);
			return 0;
		}
		if (id == SL_T_BINARY || id == SL_T_VARBINARY)
			return set_base64(c, col, row, &s);
		return set_scalar(c, col, row, s.ptr, (size_t)s.len, 1);
	}
	if (ch == '{' || ch == '[' || id == SL_T_CHAR || id == SL_T_VARCHAR) {
		/* a non-string value: its JSON text is the string (Jackson's toString) */
		if (sl__json_skip_value(c))
			return SL_EINPUT;
		if (id == SL_T_CHAR || id == SL_T_VARCHAR) {
			sl_col_set_str_ref(col, row, start, c->p - start);
			return 0;
		}
		return value_err(c, start, (size_t)(c->p - start), col->type, 0);
	}
	size_t len;
	if (id == SL_T_DECIMAL) {
		/* Why an int64 result: an sl_i128 passed through memory was
		 * written as two 8-byte halves and read back as one 16-byte
		 * load, which the store buffer cannot forward (perf annotate:
		 * 14% of read_object's samples on that load) */
		int64_t dec;
		if (dec_fast(c->p, c->e, col->type, &dec, &len) == 0) {
			c->p += len;
			sl_col_set_i128(col, row, (sl_i128)dec);
			return 0;
		}
	}
	if (ch < 0 || scan_scalar(c, &len))
		return sl__json_syntax(c, "expected a value");
	c->p += len;
	return set_scalar(c, col, row, start, len, 0);
}

/* A JSON array (ARRAY) or object (MAP) at c->p into (col, row) as a
 * packed value (jcoll above).  A MAP's keys are converted from their text
 * as a string value would be (sl__json_set_text); a repeated key keeps its
 * last value.  Anything else than an array (object) is an error naming the
 * field. */
static int read_coll(sl_jcur *c, jcoll *jc, sl_col *col, int row)
{
	int ismap = jc->type.id == SL_T_MAP, ch = sl__json_ws(c);
	const char *start = c->p;
	uint32_t n = 0;
	if (ch != (ismap ? '{' : '[')) {
		if (sl__json_skip_value(c))
			return SL_EINPUT;
		return value_err(c, start, (size_t)(c->p - start), jc->type, 0);
	}
	if (++c->depth > SL_JSON_MAX_DEPTH)
		return sl__json_syntax(c, "nesting too deep");
	c->p++;
	if (sl_pack_begin(&jc->buf))
		return sl_err_set(c->err, SL_ENOMEM, "out of memory");
	if (sl__json_ws(c) == (ismap ? '}' : ']')) {
		c->p++;
	} else {
		for (;;) {
			if (ismap) {
				sl_str k;
				sl_col_clear(&jc->ec[0], 0);
				if (read_key(c, &k) ||
				    sl__json_set_text(c, &jc->ec[0], 0, k.ptr, (size_t)k.len))
					return SL_EINPUT;
				if (sl_pack_value(&jc->buf, &jc->ec[0], 0))
					return sl_err_set(c->err, SL_ENOMEM, "out of memory");
			}
			sl_col_clear(&jc->ec[ismap], 0);
			if (read_value(c, jc->sub[ismap], &jc->ec[ismap], 0))
				return SL_EINPUT;
			if (sl_pack_value(&jc->buf, &jc->ec[ismap], 0))
				return sl_err_set(c->err, SL_ENOMEM, "out of memory");
			n++;
			ch = sl__json_ws(c);
			if (ch == ',') {
				c->p++;
				continue;
			}
			if (ch == (ismap ? '}' : ']')) {
				c->p++;
				break;
			}
			return sl__json_syntax(c, ismap ? "expected ',' or '}'" : "expected ',' or ']'");
		}
	}
	sl_pack_end(&jc->buf, n);
	if (ismap && n > 1 &&
	    sl_pack_map_dedup(&jc->buf, sl_type_map_key(jc->type), sl_type_map_value(jc->type),
	                      &jc->tmp) < 0)
		return sl_err_set(c->err, SL_ENOMEM, "out of memory");
	c->depth--;
	if (sl_col_set_str_in(&c->b->arena, col, row, jc->buf.p, (int64_t)jc->buf.len))
		return sl_err_set(c->err, SL_ENOMEM, "out of memory");
	return 0;
}

static int check_missing(sl_jcur *c, const sl_jschema *s, const uint8_t *seen)
{
	for (int i = 0; i < s->n; i++)
		if (!seen[i]) {
			char path[256];
			c->path[c->npath] = s->fields[i].name;
			c->npath++;
			path_text(c, path, sizeof(path));
			c->npath--;
			return sl_err_set(c->err, SL_EINPUT, "field '%s' is missing", path);
		}
	return 0;
}

/* Reads a key at c->p into *k (escapes rare: handled by read_string). */
static int read_key(sl_jcur *c, sl_str *k)
{
	if (sl__json_ws(c) != '"')
		return sl__json_syntax(c, "expected a string key");
	if (sl__json_read_string(c, k))
		return SL_EINPUT;
	if (sl__json_ws(c) != ':')
		return sl__json_syntax(c, "expected ':'");
	c->p++;
	return 0;
}

/* sl__json_read_object: see fmt_json.h. */
int sl__json_read_object(sl_jcur *c, const sl_jschema *s, sl_col *cols, int row)
{
	uint8_t seen_local[128], *seen = NULL;
	int hint = 0, ch;
	if (++c->depth > SL_JSON_MAX_DEPTH || c->npath >= 31)
		return sl__json_syntax(c, "nesting too deep");
	if (c->o->fail_on_missing) {
		seen = s->n <= 128 ? seen_local : sl_arena_alloc(&c->b->arena, (size_t)s->n);
		if (!seen)
			return sl_err_set(c->err, SL_ENOMEM, "out of memory");
		memset(seen, 0, (size_t)s->n);
	}
	c->p++; /* '{' */
	if (sl__json_ws(c) == '}') {
		c->p++;
		goto done;
	}
	for (;;) {
		sl_str k;
		int f;
		/* the key after the previous match, compared in place: records
		 * almost always list keys in schema order */
		if (hint < s->n && c->e - c->p > 16 && jkey_at(&s->key[hint], c->p) &&
		    c->p[s->key[hint].ql] == ':') {
			f = hint;
			c->p += s->key[hint].ql + 1;
		} else {
			if (read_key(c, &k))
				return SL_EINPUT;
			f = jschema_find(s, k.ptr, (size_t)k.len, hint);
		}
		if (f < 0) {
			if (sl__json_skip_value(c))
				return SL_EINPUT;
		} else {
			c->path[c->npath++] = s->fields[f].name;
			if (read_value(c, s->child[f], &cols[f], row))
				return SL_EINPUT;
			c->npath--;
			hint = f + 1;
			if (seen)
				seen[f] = 1;
		}
		ch = sl__json_ws(c);
		if (ch == ',') {
			c->p++;
			continue;
		}
		if (ch == '}') {
			c->p++;
			break;
		}
		return sl__json_syntax(c, "expected ',' or '}'");
	}
done:
	c->depth--;
	return seen ? check_missing(c, s, seen) : 0;
}

/* ---- writer ------------------------------------------------------------ */

/* sl__json_write_string: see fmt_json.h. */
int sl__json_write_string(const char *s, size_t len, sl_buf *out)
{
	static const char hx[] = "0123456789abcdef";
	if (sl_buf_reserve(out, len + 2))
		return SL_ENOMEM;
	out->p[out->len++] = '"';
	size_t run = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch >= 0x20 && ch != '"' && ch != '\\')
			continue;
		if (sl_buf_append(out, s + run, i - run))
			return SL_ENOMEM;
		run = i + 1;
		char e[6] = {'\\', 0};
		int n = 2;
		switch (ch) {
		case '"': e[1] = '"'; break;
		case '\\': e[1] = '\\'; break;
		case '\n': e[1] = 'n'; break;
		case '\r': e[1] = 'r'; break;
		case '\t': e[1] = 't'; break;
		case '\b': e[1] = 'b'; break;
		case '\f': e[1] = 'f'; break;
		default:
			e[1] = 'u', e[2] = '0', e[3] = '0', e[4] = hx[ch >> 4], e[5] = hx[ch & 15];
			n = 6;
		}
		if (sl_buf_append(out, e, (size_t)n))
			return SL_ENOMEM;
	}
	if (sl_buf_append(out, s + run, len - run) || sl_buf_putc(out, '"'))
		return SL_ENOMEM;
	return 0;
}

static int write_base64(const sl_str *s, sl_buf *out)
{
	static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	if (sl_buf_reserve(out, (size_t)s->len / 3 * 4 + 8))
		return SL_ENOMEM;
	char *o = out->p + out->len;
	const unsigned char *p = (const unsigned char *)s->ptr;
	int64_t i = 0;
	*o++ = '"';
	for (; i + 2 < s->len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		*o++ = al[v >> 18], *o++ = al[v >> 12 & 63], *o++ = al[v >> 6 & 63], *o++ = al[v & 63];
	}
	if (i < s->len) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < s->len ? (uint32_t)p[i + 1] << 8 : 0);
		*o++ = al[v >> 18], *o++ = al[v >> 12 & 63];
		*o++ = i + 1 < s->len ? al[v >> 6 & 63] : '=';
		*o++ = '=';
	}
	*o++ = '"';
	out->len = (size_t)(o - out->p);
	return 0;
}

static int write_value(const sl_col *col, int row, const sl_jopts *o, sl_buf *out);

/* An ARRAY as a JSON array, a MAP as an object whose keys are the keys'
 * text (valtext.c, as Flink's JSON format writes a MAP's keys); elements
 * go through write_value from a one-row scratch column (strings
 * referenced in the packed bytes). */
static int write_coll(const sl_col *col, int row, const sl_jopts *o, sl_buf *out)
{
	const sl_str *v = &col->v.str[row];
	int ismap = col->type.id == SL_T_MAP, rc = SL_ENOMEM;
	sl_col ec[2];
	sl_buf kt;
	sl_unpack u;
	memset(ec, 0, sizeof(ec));
	sl_buf_init(&kt);
	if (sl_unpack_open(&u, v->ptr, v->len))
		return SL_ESTATE;
	for (int k = 0; k <= ismap; k++)
		if (sl_col_new(&ec[k], col->type.row->fields[k].type, 1))
			goto done;
	if (sl_buf_putc(out, ismap ? '{' : '['))
		goto done;
	for (uint32_t i = 0; i < u.n; i++) {
		if (i && sl_buf_putc(out, ','))
			goto done;
		if (ismap) {
			sl_buf_clear(&kt);
			if ((rc = sl_unpack_next(&u, NULL, &ec[0], 0)) ||
			    (rc = sl_value_text(&ec[0], 0, "null", NULL, &kt)) ||
			    (rc = sl__json_write_string(kt.p ? kt.p : "", kt.len, out)) ||
			    (rc = sl_buf_putc(out, ':') ? SL_ENOMEM : 0))
				goto done;
		}
		if ((rc = sl_unpack_next(&u, NULL, &ec[ismap], 0)) ||
		    (rc = write_value(&ec[ismap], 0, o, out)))
			goto done;
	}
	rc = sl_buf_putc(out, ismap ? '}' : ']') ? SL_ENOMEM : 0;
done:
	sl_col_free(&ec[0]);
	sl_col_free(&ec[1]);
	sl_buf_deinit(&kt);
	return rc;
}

static int write_value(const sl_col *col, int row, const sl_jopts *o, sl_buf *out)
{
	char t[64];
	int n;
	sl_type ty = col->type;
	if (col->null[row])
		return sl_buf_append(out, "null", 4) ? SL_ENOMEM : 0;
	switch ((sl_type_id)ty.id) {
	case SL_T_BOOLEAN:
		return sl_buf_puts(out, col->v.i64[row] ? "true" : "false") ? SL_ENOMEM : 0;
	case SL_T_FLOAT:
	case SL_T_DOUBLE:
		n = sl_double_text(col->v.f64[row], ty.id == SL_T_FLOAT, t);
		if (!isfinite(col->v.f64[row]))
			return sl__json_write_string(t, (size_t)n, out);
		break;
	case SL_T_DECIMAL: n = sl_dec_format(col->v.i128[row], ty.scale, t); break;
	case SL_T_CHAR:
	case SL_T_VARCHAR:
		return sl__json_write_string(col->v.str[row].ptr, (size_t)col->v.str[row].len, out);
	case SL_T_BINARY:
	case SL_T_VARBINARY: return write_base64(&col->v.str[row], out);
	case SL_T_TIMESTAMP:
	case SL_T_TIMESTAMP_LTZ: {
		int ltz = ty.id == SL_T_TIMESTAMP_LTZ;
		n = sl_ts_format(col->v.i64[row], ty.precision, o->iso, ltz, t);
		if (ltz && !o->iso)
			t[n++] = 'Z'; /* Flink's SQL form of LTZ ends in 'Z' too */
		return sl__json_write_string(t, (size_t)n, out);
	}
	case SL_T_ROW:
		return sl__json_write_object(ty.row ? ty.row->fields : NULL, col->nchild, col->child,
		                             row, o, out);
	case SL_T_ARRAY:
	case SL_T_MAP: return write_coll(col, row, o, out);
	case SL_T_TINYINT:
	case SL_T_SMALLINT:
	case SL_T_INT:
	case SL_T_BIGINT: n = sprintf(t, "%lld", (long long)col->v.i64[row]); break;
	case SL_T_DATE:
		n = sl_date_format(col->v.i64[row], t);
		return sl__json_write_string(t, (size_t)n, out);
	case SL_T_TIME:
		n = sl_time_format(col->v.i64[row], ty.precision, t);
		return sl__json_write_string(t, (size_t)n, out);
	case SL_T_INTERVAL_DT:
		n = sl_interval_dt_text(col->v.i64[row], t);
		return sl__json_write_string(t, (size_t)n, out);
	case SL_T_INTERVAL_YM:
		n = sl_interval_ym_text(col->v.i64[row], t);
		return sl__json_write_string(t, (size_t)n, out);
	default: return sl_buf_append(out, "null", 4) ? SL_ENOMEM : 0;
	}
	return sl_buf_append(out, t, (size_t)n) ? SL_ENOMEM : 0;
}

/* sl__json_write_object: see fmt_json.h. */
int sl__json_write_object(const sl_field *fields, int n, const sl_col *cols, int row,
                          const sl_jopts *o, sl_buf *out)
{
	if (sl_buf_putc(out, '{'))
		return SL_ENOMEM;
	for (int i = 0; i < n; i++) {
		if ((i && sl_buf_putc(out, ',')) ||
		    sl__json_write_string(fields[i].name, strlen(fields[i].name), out) ||
		    sl_buf_putc(out, ':') || write_value(&cols[i], row, o, out))
			return SL_ENOMEM;
	}
	return sl_buf_putc(out, '}') ? SL_ENOMEM : 0;
}

/* ---- the `json` format ------------------------------------------------- */

typedef struct json_dec {
	sl_decoder base;
	sl_jopts o;
	sl_arena arena; /* lookup tables */
	sl_jschema *schema;
	sl_ts_cache tsc; /* last timestamp's date (timeutil.h) */
	struct jflat *fl; /* the flat path's view of each field; NULL: none */
} json_dec;

typedef struct json_enc {
	sl_encoder base;
	sl_jopts o;
} json_enc;

/*
 * The flat path.  Why: records of one table almost always hold exactly
 * its fields, in schema order, written without blanks ({"id":"o1",...}),
 * and the general reader's per-key bookkeeping (hint, path, seen, the
 * type dispatch of read_value, a new row's columns cleared first) was
 * most of its ~850 instructions a record (callgrind, bench 4).  read_flat
 * expects that form only: key i of the record is field i's quoted name
 * (jkey), then ':', the value, then ',' (or '}' and the record's end
 * after the last field).  STRING, DECIMAL and TIMESTAMP values in their
 * usual forms are parsed inline; anything else in the value (null, a
 * quoted number, an escape) goes through read_value, which is exactly
 * what the general reader would call there.  Every field is set (value or
 * NULL), so the row needs no clearing.  Any other shape (a blank, another
 * key order, a missing or unknown key, a nested ROW field, an error)
 * returns 0, and json_decode reads the record again from its start with
 * the general reader, which gives the same row or the same error as
 * before: the flat path changes how fast, never what.
 */
enum { FK_GEN, FK_STR, FK_DEC, FK_TS };

/* A field as the flat path reads it: its key with the ':' (kc, matched as
 * one; kc.ql = 0 for a name of 14 bytes, which has room for the quoted
 * name only: then key, then ':'), and how its value is parsed. */
typedef struct jflat {
	jkey kc;
	const jkey *key;
	uint8_t kind;
} jflat;

static int flat_build(json_dec *j)
{
	const sl_jschema *s = j->schema;
	if (s->n == 0)
		return 0;
	for (int i = 0; i < s->n; i++)
		if (!s->key[i].ql || s->fields[i].type.id == SL_T_ROW ||
		    sl_type_is_collection(s->fields[i].type))
			return 0; /* no in-place match, or nested: general path only */
	j->fl = sl_arena_calloc(&j->arena, sizeof(jflat) * (size_t)s->n);
	if (!j->fl)
		return SL_ENOMEM;
	for (int i = 0; i < s->n; i++) {
		sl_type t = s->fields[i].type;
		jflat *f = &j->fl[i];
		jkey_build(&f->kc, s->fields[i].name, (size_t)s->namelen[i], 1);
		f->key = &s->key[i];
		f->kind = t.id == SL_T_CHAR || t.id == SL_T_VARCHAR ? FK_STR
		        : t.id == SL_T_DECIMAL                       ? FK_DEC
		        : t.id == SL_T_TIMESTAMP || t.id == SL_T_TIMESTAMP_LTZ ? FK_TS
		                                                     : FK_GEN;
	}
	return 0;
}

/* Whether key k (its quoted name) and a ':' are at p, in [p, e). */
static inline int flat_key(const jkey *k, const char *p, const char *e)
{
	if (e - p > 16)
		return jkey_at(k, p) && p[k->ql] == ':';
	if (e - p <= (ptrdiff_t)k->ql)
		return 0;
	uint64_t w = 0;
	memcpy(&w, p, k->ql < 8 ? k->ql : 8);
	if ((w & k->m0) != k->w0)
		return 0;
	if (k->ql > 8) {
		memcpy(&w, p + k->ql - 8, 8);
		if (w != k->w1)
			return 0;
	}
	return p[k->ql] == ':';
}

/* Reads the record at c->p ('{') into row `row` of cols by the flat path
 * (above): 1 when it did, 0 when the general reader must. */
static int read_flat(sl_jcur *c, const json_dec *j, sl_col *cols, int row)
{
	const sl_jschema *s = j->schema;
	const char *p = c->p + 1, *e = c->e;
	int n = s->n;
	c->depth = 1;
	for (int i = 0;; i++) {
		const jflat *f = &j->fl[i];
		if (f->kc.ql && e - p > 16) { /* the key and ':' at once */
			if (!jkey_at(&f->kc, p))
				return 0;
			p += f->kc.ql;
		} else {
			if (!flat_key(f->key, p, e))
				return 0;
			p += f->key->ql + 1;
		}
		sl_col *col = &cols[i];
		const char *q;
		int done = 0;
		switch (f->kind) {
		case FK_STR:
			if (p < e && *p == '"' && (q = quote_or_bs(p + 1, e)) != e && *q == '"') {
				sl_col_set_str_ref(col, row, p + 1, q - p - 1);
				p = q + 1;
				done = 1;
			}
			break;
		case FK_DEC: {
			int64_t v;
			size_t len;
			if (dec_fast(p, e, col->type, &v, &len) == 0) {
				sl_col_set_i128(col, row, (sl_i128)v);
				p += len;
				done = 1;
			}
			break;
		}
		case FK_TS: {
			int64_t us;
			/* "YYYY-MM-DD HH:MM:SS.fff" first, without scanning for the
			 * closing quote: a text that parses holds no '"' or '\\' */
			if (e - p > 24 && *p == '"' && p[24] == '"' &&
			    sl_ts_parse_cached(p + 1, 23, &us, c->tsc) == 0) {
				sl_col_set_i64(col, row, trunc_prec(us, col->type.precision));
				p += 25;
				done = 1;
			} else if (p < e && *p == '"' && (q = quote_or_bs(p + 1, e)) != e && *q == '"' &&
			    sl_ts_parse_cached(p + 1, (size_t)(q - p - 1), &us, c->tsc) == 0) {
				sl_col_set_i64(col, row, trunc_prec(us, col->type.precision));
				p = q + 1;
				done = 1;
			}
			break;
		}
		}
		if (!done) {
			c->p = p;
			c->path[0] = s->fields[i].name;
			c->npath = 1;
			if (read_value(c, NULL, col, row))
				return 0;
			p = c->p;
		}
		if (p >= e)
			return 0;
		if (i + 1 < n) {
			if (*p != ',')
				return 0;
			p++;
			continue;
		}
		if (*p != '}' || p + 1 != e)
			return 0;
		c->p = p + 1;
		return 1;
	}
}

/* sl__jopts_read: see fmt_json.h. */
int sl__jopts_read(const char *fmt, const sl_opts *opts, sl_jopts *o, int *ignore_errors,
                   sl_err *err)
{
	char k[96];
	int v;
	memset(o, 0, sizeof(*o));
	if (ignore_errors) {
		snprintf(k, sizeof(k), "%s.ignore-parse-errors", fmt);
		if (sl_opts_bool(opts, k, 0, &v, err))
			return SL_EINVAL;
		*ignore_errors = v;
	}
	snprintf(k, sizeof(k), "%s.fail-on-missing-field", fmt);
	if (sl_opts_bool(opts, k, 0, &o->fail_on_missing, err))
		return SL_EINVAL;
	snprintf(k, sizeof(k), "%s.timestamp-format.standard", fmt);
	const char *ts = opts ? sl_opts_get(opts, k) : NULL;
	if (ts && strcmp(ts, "SQL") != 0 && strcmp(ts, "ISO-8601") != 0)
		return sl_err_set(err, SL_EINVAL,
		                  "option '%s': '%s' is not 'SQL' or 'ISO-8601'", k, ts);
	o->iso = ts && strcmp(ts, "ISO-8601") == 0;
	return 0;
}

static int json_decoder_init(sl_decoder *d, const sl_opts *opts, sl_err *err)
{
	json_dec *j = (json_dec *)d;
	sl_arena_init(&j->arena, 4096);
	if (sl__jopts_read("json", opts, &j->o, &d->ignore_errors, err))
		return SL_EINVAL;
	if (sl__jschema_build(&j->arena, d->fields, d->nfields, &j->schema))
		return sl_err_set(err, SL_ENOMEM, "json: out of memory");
	if (flat_build(j))
		return sl_err_set(err, SL_ENOMEM, "json: out of memory");
	return 0;
}

static void json_decoder_deinit(sl_decoder *d)
{
	sl__jschema_free(((json_dec *)d)->schema);
	sl_arena_deinit(&((json_dec *)d)->arena);
}

static int json_decode(sl_decoder *d, const char *rec, size_t len, sl_batch *out, int64_t wm,
                       sl_err *err)
{
	json_dec *j = (json_dec *)d;
	/* Why field by field: an initializer zeroes path[] too (256 bytes, ~50
	 * instructions a record, callgrind); only path[0..npath) is ever read */
	sl_jcur c;
	c.s = c.p = rec;
	c.e = rec + len;
	c.b = out;
	c.err = err;
	c.o = &j->o;
	c.tsc = &j->tsc;
	c.depth = 0;
	c.npath = 0;
	int ch = sl__json_ws(&c);
	if (ch < 0)
		return 0; /* blank record: nothing */
	if (ch != '{')
		return sl__json_syntax(&c, "expected '{'");
	if (j->fl && out->ncols == d->nfields && read_flat(&c, j, out->cols, out->nrows)) {
		int row = out->nrows++;
		out->op[row] = SL_INSERT;
		out->wm[row] = wm;
		return 1;
	}
	c.p = rec; /* the general path, from the start (the flat path set no state) */
	c.depth = 0;
	c.npath = 0;
	sl__json_ws(&c);
	int row = sl_batch_add_row(out, SL_INSERT, wm);
	int rc = sl__json_read_object(&c, j->schema, out->cols, row);
	if (rc == 0 && sl__json_ws(&c) >= 0)
		rc = sl__json_syntax(&c, "unexpected data after the object");
	if (rc) {
		out->nrows--;
		return rc == SL_ENOMEM ? rc : SL_EINPUT;
	}
	return 1;
}

static int json_encoder_init(sl_encoder *e, const sl_opts *opts, sl_err *err)
{
	return sl__jopts_read("json", opts, &((json_enc *)e)->o, NULL, err);
}

static int json_encode(sl_encoder *e, const sl_batch *b, int row, sl_buf *out, sl_err *err)
{
	static const char *const kind[] = {"+I", "-U", "+U", "-D"};
	if (b->op[row] != SL_INSERT)
		return sl_err_set(err, SL_EINVAL, "json format cannot encode %s rows (only +I)",
		                  kind[b->op[row] & 3]);
	if (sl__json_write_object(e->fields, e->nfields, b->cols, row, &((json_enc *)e)->o, out) ||
	    sl_buf_putc(out, '\n'))
		return sl_err_set(err, SL_ENOMEM, "json: out of memory");
	return 0;
}

static void json_encoder_deinit(sl_encoder *e)
{
}

const sl_format_vtab sl__fmt_json = {
	.name = "json",
	.decoder_size = sizeof(json_dec),
	.encoder_size = sizeof(json_enc),
	.changelog = 0,
	.decoder_init = json_decoder_init,
	.decode = json_decode,
	.decoder_deinit = json_decoder_deinit,
	.encoder_init = json_encoder_init,
	.encode = json_encode,
	.encoder_deinit = json_encoder_deinit,
};
