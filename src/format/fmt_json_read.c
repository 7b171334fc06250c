/*
 * fmt_json_read.c - the schema-directed JSON reader that the JSON formats
 * share: the `json` format (fmt_json.c) reads a record with it when its
 * flat path does not take the record, the changelog formats
 * (fmt_debezium_json.c, fmt_canal_json.c, fmt_maxwell_json.c) read their
 * row images with it, and the csv format converts its fields' text with
 * sl__json_set_text.
 *
 * There is no DOM: the reader walks the text once, writing values straight
 * into the typed column vectors of a batch row, and for each key finds the
 * target field through a per-level lookup (sl_jschema) that first tries
 * the field after the previous match (records almost always list keys in
 * schema order: its quoted name is compared in place, 8 bytes at a time,
 * before the key is scanned) and otherwise a small open-addressing hash
 * of the key.  Unknown keys are skipped, whatever they hold; missing keys
 * stay NULL.  Strings without escapes are referenced in place (the caller
 * keeps the record bytes alive as long as the batch is used, see
 * format.h); strings with escapes are unescaped into the batch arena.
 * Numbers become integers, doubles or exact DECIMALs from their text
 * (decimal.c, never through a double); timestamps use timeutil.c's
 * parser, whose fast path matches "YYYY-MM-DD HH:MM:SS.fff".  ARRAY and
 * MAP values are packed (data/packed.h) through a one-row scratch column
 * per level.  The hot-path pieces the `json` format's flat path inlines
 * too (key match, string scan, DECIMAL conversion) are in
 * fmt_json_read.h.
 *
 * Invariants: nothing is allocated per row except unescaped string bytes
 * and packed collections in the batch arena; on an error the message names
 * the field path or the byte offset, and the caller removes the row (the
 * reader never does); nesting deeper than SL_JSON_MAX_DEPTH is an error,
 * never a stack overflow.  A decoder's lookup is read-only once built,
 * except the packing buffers of its collection levels: one decoder is
 * used by one thread at a time.
 */
#include "fmt_json_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/decimal.h"
#include "data/packed.h"
#include "base/timeutil.h"
#include "data/valtext.h"
#include "sluice.h"

#define SL_JSON_MAX_DEPTH 64

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

/* sl__json_jkey_build: see fmt_json_read.h. */
void sl__json_jkey_build(jkey *k, const char *name, size_t len, int colon)
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
		sl__json_jkey_build(&s->key[i], fields[i].name, len, 0);
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

/* End of the string whose body holds no escape before p (the closing
 * quote), or NULL: from one quote or backslash to the next (quote_or_bs),
 * a backslash escaping the byte after it.  Why not memchr for the quote
 * and a count of the backslashes before it: Flink's "extra" strings hold
 * a backslash every ~40 bytes, and the libc call per quote or escape
 * showed (callgrind, the Nexmark wide table). */
static const char *string_end(const char *p, const char *e)
{
	for (;;) {
		p = quote_or_bs(p, e);
		if (p == e)
			return NULL;
		if (*p == '"')
			return p;
		if (e - p < 2)
			return NULL;
		p += 2;
	}
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
	return sl__json_read_escaped(c, start, q, out);
}

/* sl__json_read_escaped: see fmt_json_read.h.  The bytes are copied 16 at
 * a time while the record has them (SSE2), up to the next backslash or
 * the string's end.  Why: memchr and memcpy per escape were ~520
 * instructions a Nexmark "extra" string (~2.3 escapes in ~200 bytes;
 * callgrind), this ~460.  The output never runs ahead of the input (an
 * escape is longer than what it stands for), so with 16 bytes of slack a
 * 16-byte store at o stays inside the buffer. */
int sl__json_read_escaped(sl_jcur *c, const char *start, const char *bs, sl_str *out)
{
	const char *end = string_end(bs, c->e);
	if (!end)
		return sl__json_syntax(c, "unterminated string");
	/* 16 bytes of slack: the last 16-byte store may pass the string's end */
	char *buf = sl_arena_alloc(&c->b->arena, (size_t)(end - start) + 16);
	if (!buf)
		return sl_err_set(c->err, SL_ENOMEM, "out of memory");
	size_t run = (size_t)(bs - start);
	memcpy(buf, start, run);
	char *o = buf + run;
	const char *p = bs;
	while (p < end) {
#if defined(__SSE2__)
		/* 16 bytes loaded while the record has them, even past the
		 * string's end (only the bytes before it count) */
		const __m128i bv = _mm_set1_epi8('\\');
		if (c->e - p >= 16) {
			__m128i w = _mm_loadu_si128((const __m128i *)(const void *)p);
			_mm_storeu_si128((__m128i *)(void *)o, w);
			unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, bv));
			int k = m ? __builtin_ctz(m) : 16;
			if (k >= end - p) { /* no backslash before the end */
				o += end - p;
				break;
			}
			p += k;
			o += k;
			if (!m)
				continue;
		} else
#endif
		if (*p != '\\') {
			*o++ = *p++;
			continue;
		}
		c->p = p + 1;
		if (!(o = unescape_one(c, o)))
			return SL_EINPUT;
		p = c->p;
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

static int read_key(sl_jcur *c, sl_str *k);
static int read_coll(sl_jcur *c, jcoll *jc, sl_col *col, int row);

/* sl__json_read_value: see fmt_json_read.h. */
int sl__json_read_value(sl_jcur *c, const sl_jschema *sub, sl_col *col, int row)
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
	if (id == SL_T_BIGINT || id == SL_T_INT || id == SL_T_SMALLINT || id == SL_T_TINYINT) {
		int64_t v; /* the usual integer inline (int_fast), else below */
		if (int_fast(c->p, c->e, &v, &len) == 0 && int_fits(id, v)) {
			c->p += len;
			sl_col_set_i64(col, row, v);
			return 0;
		}
	}
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
			if (sl__json_read_value(c, jc->sub[ismap], &jc->ec[ismap], 0))
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
	    sl_pack_map_hashmap(&jc->buf, sl_type_map_key(jc->type), sl_type_map_value(jc->type),
	                        &jc->tmp, 1) < 0)
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
			if (sl__json_read_value(c, s->child[f], &cols[f], row))
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

