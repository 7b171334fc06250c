/*
 * fn_text.c - more string function kernels, as Flink 1.20 defines them:
 * REPEAT, REVERSE, INITCAP, ASCII, CHR, LEFT, RIGHT, INSTR, LOCATE,
 * OVERLAY, PARSE_URL, HEX, BIN, TO_BASE64, FROM_BASE64, IS_ALPHA, IS_DIGIT
 * and IS_DECIMAL.
 *
 * Like fn_string.c: UTF-8 strings, positions in characters, results that
 * are slices of an argument point into it, new text goes into the step's
 * arena (never malloc per row).  Any NULL argument gives NULL.  Rules taken
 * from Flink's function reference and its SqlFunctionUtils: OVERLAY leaves
 * s unchanged when the position is outside it and keeps the rest of s only
 * when the replaced part ends inside it; LOCATE searches from position 1
 * when given one below 1; LEFT/RIGHT of a negative length are '';
 * CHR keeps the low 8 bits of its argument (CHR(353) = 'a') and is '' for a
 * negative one; ASCII is the first byte as a signed Java byte (-61 for 'é'); INITCAP upper-cases the first and lower-cases the other
 * letters of each run of ASCII letters and digits; HEX of an integer is the
 * upper-case hex of its 64-bit two's complement, of a string that of its
 * UTF-8 bytes; BIN the binary digits likewise; FROM_BASE64 of text that is
 * not base64 is a run-time error naming the value.  PARSE_URL reads
 * `scheme://[userinfo@]host[:port][/path][?query][#ref]` (Java's URL parts)
 * and returns NULL when the URL has no such part or does not parse.
 * IS_ALPHA / IS_DIGIT / IS_DECIMAL (SqlFunctionUtils): FALSE for NULL and
 * ''; IS_DIGIT takes ASCII digits (Java also takes other scripts' digits),
 * IS_ALPHA letters (ASCII, others by the C.UTF-8 locale's classes),
 * IS_DECIMAL what Java's Double.parseDouble reads (NaN, Infinity, 1e5,
 * .5, 0x1p3, a d/f suffix, blanks around).
 */
#include "expr_int.h"
#include "str_util.h"

#include <locale.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>
#include <wctype.h>

static sl_str arg_str(const sl_xctx *x, const sl_step *st, int j, int i)
{
	return SL_X_ARG(x, st, j)->v.str[i];
}

static int64_t arg_int(const sl_xctx *x, const sl_step *st, int j, int i)
{
	return SL_X_ARG(x, st, j)->v.i64[i];
}

static int k_repeat(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (sl__any_null(x, st, i)) {
			o->null[i] = 1;
			continue;
		}
		sl_str s = arg_str(x, st, 0, i);
		int64_t n = arg_int(x, st, 1, i);
		if (n <= 0 || s.len == 0) {
			sl__set_str(o, i, "", 0);
			continue;
		}
		if (s.len > (INT32_MAX / n))
			return sl_err_set(x->err, SL_ERUNTIME, "REPEAT: result of %lld times %lld bytes is too long",
			                  (long long)n, (long long)s.len);
		char *d = sl_arena_alloc(sl__x_arena(x, st), (size_t)(s.len * n) + 1);
		if (!d)
			return sl__str_oom(x, st);
		for (int64_t k = 0; k < n; k++)
			memcpy(d + k * s.len, s.ptr, (size_t)s.len);
		d[s.len * n] = 0;
		sl__set_str(o, i, d, s.len * n);
	});
	return 0;
}

static int k_reverse(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (sl__any_null(x, st, i)) {
			o->null[i] = 1;
			continue;
		}
		sl_str s = arg_str(x, st, 0, i);
		char *d = sl_arena_alloc(sl__x_arena(x, st), (size_t)s.len + 1);
		if (!d)
			return sl__str_oom(x, st);
		for (int64_t k = 0; k < s.len;) { /* whole characters, back to front */
			int m = sl__u8len((unsigned char)s.ptr[k]);
			if (k + m > s.len)
				m = (int)(s.len - k);
			memcpy(d + s.len - k - m, s.ptr + k, (size_t)m);
			k += m;
		}
		d[s.len] = 0;
		sl__set_str(o, i, d, s.len);
	});
	return 0;
}

static int is_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static int k_initcap(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (sl__any_null(x, st, i)) {
			o->null[i] = 1;
			continue;
		}
		sl_str s = arg_str(x, st, 0, i);
		char *d = sl_arena_alloc(sl__x_arena(x, st), (size_t)s.len + 1);
		if (!d)
			return sl__str_oom(x, st);
		int start = 1;
		for (int64_t k = 0; k < s.len; k++) {
			unsigned char c = (unsigned char)s.ptr[k];
			if (!is_alnum(c)) {
				start = 1;
			} else {
				if (start && c >= 'a' && c <= 'z')
					c -= 32;
				else if (!start && c >= 'A' && c <= 'Z')
					c += 32;
				start = 0;
			}
			d[k] = (char)c;
		}
		d[s.len] = 0;
		sl__set_str(o, i, d, s.len);
	});
	return 0;
}

/* Flink's ASCII is the first UTF-8 byte as a signed Java byte
 * (StringCallGen.generateAscii): 97 for 'abc', -61 for 'é', 0 for ''. */
static int k_ascii(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		sl_str s = arg_str(x, st, 0, i);
		o->null[i] = sl__any_null(x, st, i);
		o->v.i64[i] = o->null[i] || s.len == 0 ? 0 : (int8_t)s.ptr[0];
	});
	return 0;
}

static int k_chr(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (sl__any_null(x, st, i)) {
			o->null[i] = 1;
			continue;
		}
		int64_t v = arg_int(x, st, 0, i);
		if (v < 0) {
			sl__set_str(o, i, "", 0);
			continue;
		}
		unsigned c = (unsigned)(v & 0xFF);
		char *d = sl_arena_alloc(sl__x_arena(x, st), 3);
		if (!d)
			return sl__str_oom(x, st);
		int n = 1;
		if (c < 0x80) {
			d[0] = (char)c;
		} else {
			d[0] = (char)(0xC0 | (c >> 6));
			d[1] = (char)(0x80 | (c & 0x3F));
			n = 2;
		}
		d[n] = 0;
		sl__set_str(o, i, d, n);
	});
	return 0;
}

static int k_left_right(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	int left = st->fn == SL_FN_LEFT;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (sl__any_null(x, st, i)) {
			o->null[i] = 1;
			continue;
		}
		sl_str s = arg_str(x, st, 0, i);
		int64_t n = arg_int(x, st, 1, i);
		if (n <= 0) {
			sl__set_str(o, i, "", 0);
			continue;
		}
		if (left) {
			sl__set_str(o, i, s.ptr, sl__char_off(s.ptr, s.len, n));
		} else {
			int64_t nc = sl__nchars(s.ptr, s.len);
			int64_t b = n >= nc ? 0 : sl__char_off(s.ptr, s.len, nc - n);
			sl__set_str(o, i, s.ptr + b, s.len - b);
		}
	});
	return 0;
}

/* 1-based character position of needle in s at or after character `from`
 * (0-based, negative = 0), 0 when absent; an empty needle is at 1 (Flink's
 * BinaryStringData.indexOf). */
static int64_t find_from(sl_str s, sl_str needle, int64_t from)
{
	if (needle.len == 0)
		return 1;
	int64_t b = sl__char_off(s.ptr, s.len, from < 0 ? 0 : from);
	const char *q = memmem(s.ptr + b, (size_t)(s.len - b), needle.ptr, (size_t)needle.len);
	return q ? sl__nchars(s.ptr, q - s.ptr) + 1 : 0;
}

static int k_instr_locate(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	int locate = st->fn == SL_FN_LOCATE;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = sl__any_null(x, st, i);
		if (o->null[i])
			continue;
		/* INSTR(s, needle), LOCATE(needle, s [, pos]) */
		sl_str s = arg_str(x, st, locate ? 1 : 0, i), nd = arg_str(x, st, locate ? 0 : 1, i);
		int64_t pos = locate && st->nargs > 2 ? arg_int(x, st, 2, i) : 1;
		o->v.i64[i] = find_from(s, nd, pos - 1);
	});
	return 0;
}

static int k_overlay(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (sl__any_null(x, st, i)) {
			o->null[i] = 1;
			continue;
		}
		sl_str s = arg_str(x, st, 0, i), r = arg_str(x, st, 1, i);
		int64_t pos = arg_int(x, st, 2, i);
		int64_t len = st->nargs > 3 ? arg_int(x, st, 3, i) : sl__nchars(r.ptr, r.len);
		int64_t nc = sl__nchars(s.ptr, s.len);
		if (pos <= 0 || pos > nc) { /* Flink: s unchanged */
			sl__set_str(o, i, s.ptr, s.len);
			continue;
		}
		/* the rest after pos - 1 + len is kept only when len > 0 and it
		 * ends inside s (Flink's SqlFunctionUtils.overlay) */
		int64_t hb = sl__char_off(s.ptr, s.len, pos - 1);
		int64_t tb = len > 0 && pos + len <= nc ? sl__char_off(s.ptr, s.len, pos - 1 + len) : s.len;
		int64_t n = hb + r.len + (s.len - tb);
		char *d = sl_arena_alloc(sl__x_arena(x, st), (size_t)n + 1);
		if (!d)
			return sl__str_oom(x, st);
		memcpy(d, s.ptr, (size_t)hb);
		memcpy(d + hb, r.ptr, (size_t)r.len);
		memcpy(d + hb + r.len, s.ptr + tb, (size_t)(s.len - tb));
		d[n] = 0;
		sl__set_str(o, i, d, n);
	});
	return 0;
}

/* ---- PARSE_URL ---------------------------------------------------------- */

typedef struct url_parts {
	sl_str protocol, authority, userinfo, host, path, query, ref, file;
	int has_query, has_ref, has_userinfo;
} url_parts;

static int parse_url(sl_str u, url_parts *up)
{
	const char *p = u.ptr, *e = u.ptr + u.len, *c = p;
	memset(up, 0, sizeof(*up));
	if (c >= e || !((*c | 32) >= 'a' && (*c | 32) <= 'z'))
		return -1;
	while (c < e && *c != ':') {
		char ch = *c;
		if (!(((ch | 32) >= 'a' && (ch | 32) <= 'z') || (ch >= '0' && ch <= '9') || ch == '+' ||
		      ch == '-' || ch == '.'))
			return -1;
		c++;
	}
	if (c >= e)
		return -1;
	up->protocol = (sl_str){p, c - p};
	c++;
	const char *hash = memchr(c, '#', (size_t)(e - c));
	if (hash) {
		up->ref = (sl_str){hash + 1, e - hash - 1};
		up->has_ref = 1;
		e = hash;
	}
	const char *rest = c;
	if (e - c >= 2 && c[0] == '/' && c[1] == '/') {
		const char *a = c + 2, *ae = a;
		while (ae < e && *ae != '/' && *ae != '?')
			ae++;
		up->authority = (sl_str){a, ae - a};
		const char *at = memchr(a, '@', (size_t)(ae - a));
		const char *h = a;
		if (at) {
			up->userinfo = (sl_str){a, at - a};
			up->has_userinfo = 1;
			h = at + 1;
		}
		const char *he = h;
		if (he < ae && *he == '[') { /* IPv6 literal */
			while (he < ae && *he != ']')
				he++;
			if (he < ae)
				he++;
		} else {
			while (he < ae && *he != ':')
				he++;
		}
		up->host = (sl_str){h, he - h};
		rest = ae;
	}
	up->file = (sl_str){rest, e - rest};
	const char *q = memchr(rest, '?', (size_t)(e - rest));
	if (q) {
		up->query = (sl_str){q + 1, e - q - 1};
		up->has_query = 1;
		up->path = (sl_str){rest, q - rest};
	} else {
		up->path = (sl_str){rest, e - rest};
	}
	return 0;
}

/* Value of `key` in a query string k1=v1&k2=v2 (the first match). */
static int query_value(sl_str q, sl_str key, sl_str *out)
{
	const char *p = q.ptr, *e = q.ptr + q.len;
	while (p <= e) {
		const char *amp = memchr(p, '&', (size_t)(e - p));
		const char *pe = amp ? amp : e;
		if (pe - p > key.len && !memcmp(p, key.ptr, (size_t)key.len) && p[key.len] == '=') {
			*out = (sl_str){p + key.len + 1, pe - p - key.len - 1};
			return 1;
		}
		if (!amp)
			break;
		p = amp + 1;
	}
	return 0;
}

static int k_parse_url(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = 1;
		url_parts up;
		if (sl__any_null(x, st, i) || parse_url(arg_str(x, st, 0, i), &up))
			continue;
		sl_str part = arg_str(x, st, 1, i), r;
		char w[16];
		if (part.len >= (int64_t)sizeof(w))
			continue;
		memcpy(w, part.ptr, (size_t)part.len);
		w[part.len] = 0;
		if (st->nargs > 2) {
			if (!strcmp(w, "QUERY") && up.has_query &&
			    query_value(up.query, arg_str(x, st, 2, i), &r))
				sl__set_str(o, i, r.ptr, r.len);
			continue;
		}
		if (!strcmp(w, "HOST"))
			sl__set_str(o, i, up.host.ptr, up.host.len);
		else if (!strcmp(w, "PATH"))
			sl__set_str(o, i, up.path.ptr, up.path.len);
		else if (!strcmp(w, "QUERY") && up.has_query)
			sl__set_str(o, i, up.query.ptr, up.query.len);
		else if (!strcmp(w, "REF") && up.has_ref)
			sl__set_str(o, i, up.ref.ptr, up.ref.len);
		else if (!strcmp(w, "PROTOCOL"))
			sl__set_str(o, i, up.protocol.ptr, up.protocol.len);
		else if (!strcmp(w, "AUTHORITY") && up.authority.ptr)
			sl__set_str(o, i, up.authority.ptr, up.authority.len);
		else if (!strcmp(w, "FILE"))
			sl__set_str(o, i, up.file.ptr, up.file.len);
		else if (!strcmp(w, "USERINFO") && up.has_userinfo)
			sl__set_str(o, i, up.userinfo.ptr, up.userinfo.len);
	});
	return 0;
}

/* ---- HEX, BIN, base64 --------------------------------------------------- */

static const char HX[] = "0123456789ABCDEF";

static int k_hex_bin(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	int is_str = sl__type_is_char(SL_X_ATYPE(x->p, st, 0));
	int bits = st->fn == SL_FN_BIN ? 1 : 4;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (sl__any_null(x, st, i)) {
			o->null[i] = 1;
			continue;
		}
		if (is_str) {
			sl_str s = arg_str(x, st, 0, i);
			char *d = sl_arena_alloc(sl__x_arena(x, st), (size_t)s.len * 2 + 1);
			if (!d)
				return sl__str_oom(x, st);
			for (int64_t k = 0; k < s.len; k++) {
				d[2 * k] = HX[(unsigned char)s.ptr[k] >> 4];
				d[2 * k + 1] = HX[(unsigned char)s.ptr[k] & 15];
			}
			d[2 * s.len] = 0;
			sl__set_str(o, i, d, 2 * s.len);
			continue;
		}
		uint64_t v = (uint64_t)arg_int(x, st, 0, i);
		char tmp[65];
		int n = 0;
		do {
			tmp[n++] = HX[v & (uint64_t)((1 << bits) - 1)];
			v >>= bits;
		} while (v);
		char *d = sl_arena_alloc(sl__x_arena(x, st), (size_t)n + 1);
		if (!d)
			return sl__str_oom(x, st);
		for (int k = 0; k < n; k++)
			d[k] = tmp[n - 1 - k];
		d[n] = 0;
		sl__set_str(o, i, d, n);
	});
	return 0;
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int k_to_base64(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (sl__any_null(x, st, i)) {
			o->null[i] = 1;
			continue;
		}
		sl_str s = arg_str(x, st, 0, i);
		const unsigned char *p = (const unsigned char *)s.ptr;
		int64_t n = (s.len + 2) / 3 * 4;
		char *d = sl_arena_alloc(sl__x_arena(x, st), (size_t)n + 1), *w = d;
		if (!d)
			return sl__str_oom(x, st);
		for (int64_t k = 0; k < s.len; k += 3) {
			uint32_t v = (uint32_t)p[k] << 16;
			if (k + 1 < s.len)
				v |= (uint32_t)p[k + 1] << 8;
			if (k + 2 < s.len)
				v |= p[k + 2];
			*w++ = B64[v >> 18];
			*w++ = B64[(v >> 12) & 63];
			*w++ = k + 1 < s.len ? B64[(v >> 6) & 63] : '=';
			*w++ = k + 2 < s.len ? B64[v & 63] : '=';
		}
		*w = 0;
		sl__set_str(o, i, d, n);
	});
	return 0;
}

static int b64v(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26
	     : c >= '0' && c <= '9' ? c - '0' + 52 : c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Decodes base64 (padding optional, as Java's decoder); length or -1. */
static int64_t b64_decode(sl_str s, char *d)
{
	int64_t n = s.len, w = 0;
	while (n > 0 && s.ptr[n - 1] == '=' && s.len - n < 2)
		n--;
	if (n % 4 == 1 || (n != s.len && s.len % 4))
		return -1;
	uint32_t acc = 0;
	int bits = 0;
	for (int64_t k = 0; k < n; k++) {
		int v = b64v((unsigned char)s.ptr[k]);
		if (v < 0)
			return -1;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			d[w++] = (char)(acc >> bits);
		}
	}
	return w;
}

static int k_from_base64(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (sl__any_null(x, st, i)) {
			o->null[i] = 1;
			continue;
		}
		sl_str s = arg_str(x, st, 0, i);
		char *d = sl_arena_alloc(sl__x_arena(x, st), (size_t)s.len + 1);
		if (!d)
			return sl__str_oom(x, st);
		int64_t n = b64_decode(s, d);
		if (n < 0)
			return sl_err_set(x->err, SL_ERUNTIME, "FROM_BASE64: '%.*s' is not base64",
			                  (int)(s.len > 60 ? 60 : s.len), s.ptr);
		d[n] = 0;
		sl__set_str(o, i, d, n);
	});
	return 0;
}

/* ---- IS_ALPHA, IS_DIGIT, IS_DECIMAL -------------------------------------- */

/* Java's Double.parseDouble accepts s (after trimming chars <= ' '):
 * [+-] (NaN | Infinity | digits [. digits] [e [+-] digits] | 0x hex float)
 * [fFdD]. */
static int java_double(const char *p, const char *e)
{
	while (p < e && (unsigned char)*p <= ' ')
		p++;
	while (e > p && (unsigned char)e[-1] <= ' ')
		e--;
	if (p < e && (*p == '+' || *p == '-'))
		p++;
	if (e - p == 3 && !memcmp(p, "NaN", 3))
		return 1;
	if (e - p == 8 && !memcmp(p, "Infinity", 8))
		return 1;
	if (e > p && strchr("fFdD", e[-1]))
		e--;
	int hex = e - p > 2 && p[0] == '0' && (p[1] | 32) == 'x';
	if (hex)
		p += 2;
	int digits = 0;
	while (p < e && (hex ? ((*p >= '0' && *p <= '9') || ((*p | 32) >= 'a' && (*p | 32) <= 'f'))
	                     : (*p >= '0' && *p <= '9')))
		p++, digits++;
	if (p < e && *p == '.') {
		p++;
		while (p < e && (hex ? ((*p >= '0' && *p <= '9') || ((*p | 32) >= 'a' && (*p | 32) <= 'f'))
		                     : (*p >= '0' && *p <= '9')))
			p++, digits++;
	}
	if (!digits)
		return 0;
	if (p < e && (*p | 32) == (hex ? 'p' : 'e')) {
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		int ed = 0;
		while (p < e && *p >= '0' && *p <= '9')
			p++, ed++;
		if (!ed)
			return 0;
	} else if (hex) {
		return 0; /* a hex float needs its binary exponent */
	}
	return p == e;
}

/* Code point at s[*k] (advancing *k), or -1 for a malformed byte. */
static int32_t next_cp(sl_str s, int64_t *k)
{
	const unsigned char *p = (const unsigned char *)s.ptr + *k;
	int m = sl__u8len(p[0]);
	if (*k + m > s.len) {
		(*k)++;
		return -1;
	}
	int32_t cp = m == 1 ? p[0] : m == 2 ? p[0] & 0x1F : m == 3 ? p[0] & 0x0F : p[0] & 0x07;
	for (int j = 1; j < m; j++)
		cp = (cp << 6) | (p[j] & 0x3F);
	*k += m;
	return cp;
}

static int k_is_class(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	locale_t loc = st->aux;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = 0;
		o->v.i64[i] = 0;
		if (sl__any_null(x, st, i))
			continue;
		sl_str s = arg_str(x, st, 0, i);
		if (st->fn == SL_FN_IS_DECIMAL) {
			o->v.i64[i] = s.len > 0 && java_double(s.ptr, s.ptr + s.len);
			continue;
		}
		int ok = s.len > 0;
		for (int64_t k = 0; ok && k < s.len;) {
			int32_t cp = next_cp(s, &k);
			if (st->fn == SL_FN_IS_DIGIT)
				ok = cp >= '0' && cp <= '9';
			else if (cp < 0x80)
				ok = (cp | 32) >= 'a' && (cp | 32) <= 'z';
			else
				ok = cp > 0 && loc && iswalpha_l((wint_t)cp, loc);
		}
		o->v.i64[i] = ok;
	});
	return 0;
}

static locale_t utf8_loc;
static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;

static void utf8_init(void)
{
	utf8_loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

void *sl__utf8_locale(void)
{
	pthread_once(&utf8_once, utf8_init);
	return utf8_loc;
}

/* IS_ALPHA judges non-ASCII letters with the C.UTF-8 locale's classes
 * (iswalpha_l, no global locale change). */
static int bind_is_class(sl_prog *p, sl_step *st, sl_err *err)
{
	st->k = k_is_class;
	st->aux = st->fn == SL_FN_IS_ALPHA ? sl__utf8_locale() : NULL;
	return 0;
}

/* Picks kernels for the functions above. */
int sl__bind_text(sl_prog *p, sl_step *st, sl_err *err)
{
	switch (st->fn) {
	case SL_FN_REPEAT: st->k = k_repeat; return 0;
	case SL_FN_REVERSE: st->k = k_reverse; return 0;
	case SL_FN_INITCAP: st->k = k_initcap; return 0;
	case SL_FN_ASCII: st->k = k_ascii; return 0;
	case SL_FN_CHR: st->k = k_chr; return 0;
	case SL_FN_LEFT: case SL_FN_RIGHT: st->k = k_left_right; return 0;
	case SL_FN_INSTR: case SL_FN_LOCATE: st->k = k_instr_locate; return 0;
	case SL_FN_OVERLAY: st->k = k_overlay; return 0;
	case SL_FN_PARSE_URL: st->k = k_parse_url; return 0;
	case SL_FN_HEX: case SL_FN_BIN: st->k = k_hex_bin; return 0;
	case SL_FN_TO_BASE64: st->k = k_to_base64; return 0;
	case SL_FN_FROM_BASE64: st->k = k_from_base64; return 0;
	case SL_FN_IS_ALPHA: case SL_FN_IS_DECIMAL: case SL_FN_IS_DIGIT:
		return bind_is_class(p, st, err);
	default: return SL_ENOTSUP;
	}
}
