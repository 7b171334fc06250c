/*
 * fn_charset.c - ENCODE(string, charset) -> BYTES and DECODE(binary,
 * charset) -> STRING (Flink's StringCallGen: String.getBytes(charset) and
 * new String(bytes, charset)).
 *
 * Charsets: the six Flink documents, US-ASCII, ISO-8859-1, UTF-8,
 * UTF-16BE, UTF-16LE and UTF-16, named as Java's Charset.forName accepts
 * them (case-insensitive, with Java's common aliases: ASCII, latin1,
 * ISO8859_1, UTF8, UTF_16BE, ...); any other name fails the job at run
 * time, as Java's UnsupportedEncodingException does (Java knows more
 * charsets: GBK, windows-1252, ... are not here).
 *
 * sluice strings are UTF-8.  ENCODE reads them as Java holds them: code
 * points, an invalid UTF-8 sequence being U+FFFD (decoded with DECODE's
 * UTF-8 rules); it writes a character the charset lacks as '?' (one per
 * code point, a supplementary one included), UTF-16 with a big-endian
 * byte-order mark first (none for the empty string), as Java's encoders
 * do.  DECODE replaces malformed input with U+FFFD as Java's decoders:
 * UTF-8 by the JDK's rules for the length of a malformed sequence (an
 * encoded surrogate is one replacement, an overlong lead byte one per
 * byte), US-ASCII per byte >= 0x80, UTF-16 an unpaired low surrogate per
 * unit, a high surrogate not followed by a low one with the next unit,
 * a final odd byte; UTF-16 reads a byte-order mark (FE FF big-endian, FF
 * FE little-endian) and is big-endian without one.  Checked against
 * OpenJDK 17 (tests/slt/functions_misc.slt).
 *
 * Results are built in the step's buffer and copied into its arena; no
 * allocation per row otherwise.
 */
#include "expr_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { CS_ASCII, CS_LATIN1, CS_UTF8, CS_UTF16BE, CS_UTF16LE, CS_UTF16 };

static const struct {
	const char *name;
	int cs;
} CHARSETS[] = {
	{"US-ASCII", CS_ASCII}, {"ASCII", CS_ASCII}, {"US_ASCII", CS_ASCII},
	{"ISO646-US", CS_ASCII},
	{"ISO-8859-1", CS_LATIN1}, {"ISO8859_1", CS_LATIN1}, {"ISO8859-1", CS_LATIN1},
	{"ISO_8859_1", CS_LATIN1}, {"ISO_8859-1", CS_LATIN1}, {"LATIN1", CS_LATIN1},
	{"L1", CS_LATIN1}, {"8859_1", CS_LATIN1},
	{"UTF-8", CS_UTF8}, {"UTF8", CS_UTF8},
	{"UTF-16BE", CS_UTF16BE}, {"UTF_16BE", CS_UTF16BE}, {"X-UTF-16BE", CS_UTF16BE},
	{"UTF-16LE", CS_UTF16LE}, {"UTF_16LE", CS_UTF16LE}, {"X-UTF-16LE", CS_UTF16LE},
	{"UTF-16", CS_UTF16}, {"UTF_16", CS_UTF16}, {"UTF16", CS_UTF16},
};

static int charset_of(sl_str n)
{
	for (size_t i = 0; i < sizeof(CHARSETS) / sizeof(CHARSETS[0]); i++)
		if (strlen(CHARSETS[i].name) == (size_t)n.len &&
		    !strncasecmp(CHARSETS[i].name, n.ptr, (size_t)n.len))
			return CHARSETS[i].cs;
	return -1;
}

typedef struct cs_aux {
	sl_buf buf;
} cs_aux;

static void aux_free(void *v)
{
	cs_aux *a = v;
	sl_buf_deinit(&a->buf);
	free(a);
}

static int cont(const unsigned char *p, const unsigned char *e, int k)
{
	return p + k < e && (p[k] & 0xC0) == 0x80;
}

/* The next code point of UTF-8 bytes [*pp, e) by the JDK's decoder: a
 * malformed sequence is U+FFFD and consumes the bytes the JDK's
 * malformedN counts.  Returns the code point, *pp advanced. */
static uint32_t utf8_next(const unsigned char **pp, const unsigned char *e)
{
	const unsigned char *p = *pp;
	uint32_t b1 = p[0];
	if (b1 < 0x80) {
		*pp = p + 1;
		return b1;
	}
	if (b1 >= 0xC2 && b1 <= 0xDF) {
		if (cont(p, e, 1)) {
			*pp = p + 2;
			return ((b1 & 0x1F) << 6) | (p[1] & 0x3F);
		}
		*pp = p + 1;
		return 0xFFFD;
	}
	if (b1 >= 0xE0 && b1 <= 0xEF) {
		int ok2 = cont(p, e, 1) && !(b1 == 0xE0 && (p[1] & 0xE0) == 0x80);
		if (ok2 && cont(p, e, 2)) {
			uint32_t c = ((b1 & 0x0F) << 12) | ((uint32_t)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
			*pp = p + 3;
			return c >= 0xD800 && c <= 0xDFFF ? 0xFFFD : c; /* a surrogate: one, 3 bytes */
		}
		if (!ok2) {
			*pp = p + 1;
			return 0xFFFD;
		}
		/* b2 good, b3 bad or missing: the JDK drops b1 b2 together when b3
		 * is there and bad, all the rest when the input ends */
		*pp = p + 2 < e ? p + 2 : e;
		return 0xFFFD;
	}
	if (b1 >= 0xF0 && b1 <= 0xF4) {
		int ok2 = p + 1 < e && (p[1] & 0xC0) == 0x80 && !(b1 == 0xF0 && p[1] < 0x90) &&
		          !(b1 == 0xF4 && (p[1] & 0xF0) != 0x80);
		if (!ok2) {
			*pp = p + 1;
			return 0xFFFD;
		}
		if (cont(p, e, 2) && cont(p, e, 3)) {
			*pp = p + 4;
			return ((b1 & 0x07) << 18) | ((uint32_t)(p[1] & 0x3F) << 12) |
			       ((uint32_t)(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
		}
		if (p + 2 < e && !cont(p, e, 2))
			*pp = p + 2;
		else if (p + 3 < e)
			*pp = p + 3;
		else
			*pp = e;
		return 0xFFFD;
	}
	*pp = p + 1; /* 80..C1, F5..FF */
	return 0xFFFD;
}

static int put_utf8(sl_buf *b, uint32_t c)
{
	char t[4];
	int n;
	if (c < 0x80) {
		t[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		t[0] = (char)(0xC0 | (c >> 6));
		t[1] = (char)(0x80 | (c & 0x3F));
		n = 2;
	} else if (c < 0x10000) {
		t[0] = (char)(0xE0 | (c >> 12));
		t[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		t[2] = (char)(0x80 | (c & 0x3F));
		n = 3;
	} else {
		t[0] = (char)(0xF0 | (c >> 18));
		t[1] = (char)(0x80 | ((c >> 12) & 0x3F));
		t[2] = (char)(0x80 | ((c >> 6) & 0x3F));
		t[3] = (char)(0x80 | (c & 0x3F));
		n = 4;
	}
	return sl_buf_append(b, t, (size_t)n);
}

static int put_unit(sl_buf *b, uint32_t u, int le)
{
	char t[2] = {(char)(le ? u & 0xFF : u >> 8), (char)(le ? u >> 8 : u & 0xFF)};
	return sl_buf_append(b, t, 2);
}

/* String s (UTF-8) encoded in charset cs into b. */
static int encode(sl_buf *b, sl_str s, int cs)
{
	const unsigned char *p = (const unsigned char *)s.ptr, *e = p + s.len;
	int rc = 0;
	if (cs == CS_UTF16 && s.len)
		rc = put_unit(b, 0xFEFF, 0);
	while (p < e && !rc) {
		uint32_t c = utf8_next(&p, e);
		switch (cs) {
		case CS_ASCII: rc = sl_buf_putc(b, c < 0x80 ? (char)c : '?'); break;
		case CS_LATIN1: rc = sl_buf_putc(b, c <= 0xFF ? (char)c : '?'); break;
		case CS_UTF8: rc = put_utf8(b, c); break;
		default: {
			int le = cs == CS_UTF16LE;
			if (c >= 0x10000) {
				rc = put_unit(b, 0xD800 + ((c - 0x10000) >> 10), le);
				if (!rc)
					rc = put_unit(b, 0xDC00 + ((c - 0x10000) & 0x3FF), le);
			} else {
				rc = put_unit(b, c, le);
			}
		}
		}
	}
	return rc;
}

/* Bytes s in charset cs decoded into b as UTF-8. */
static int decode(sl_buf *b, sl_str s, int cs)
{
	const unsigned char *p = (const unsigned char *)s.ptr, *e = p + s.len;
	int rc = 0, le = cs == CS_UTF16LE;
	if (cs == CS_UTF16 && e - p >= 2 && ((p[0] == 0xFE && p[1] == 0xFF) ||
	                                      (p[0] == 0xFF && p[1] == 0xFE))) {
		le = p[0] == 0xFF;
		p += 2;
	}
	while (p < e && !rc) {
		uint32_t c;
		if (cs == CS_ASCII) {
			c = *p < 0x80 ? *p : 0xFFFD;
			p++;
		} else if (cs == CS_LATIN1) {
			c = *p++;
		} else if (cs == CS_UTF8) {
			c = utf8_next(&p, e);
		} else if (e - p < 2) {
			c = 0xFFFD; /* a final odd byte */
			p = e;
		} else {
			uint32_t u = le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 : (uint32_t)p[0] << 8 | p[1];
			p += 2;
			c = u;
			if (u >= 0xDC00 && u <= 0xDFFF) {
				c = 0xFFFD; /* a lone low surrogate */
			} else if (u >= 0xD800 && u <= 0xDBFF) {
				if (e - p < 2) {
					c = 0xFFFD;
					p = e;
				} else {
					uint32_t v = le ? (uint32_t)p[0] | (uint32_t)p[1] << 8
					                : (uint32_t)p[0] << 8 | p[1];
					p += 2; /* the JDK drops the next unit with a bad pair */
					c = v >= 0xDC00 && v <= 0xDFFF ? 0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00)
					                               : 0xFFFD;
				}
			}
		}
		rc = put_utf8(b, c);
	}
	return rc;
}

static int k_charset(sl_xctx *x, const sl_step *st)
{
	cs_aux *a = st->aux;
	const sl_col *s = SL_X_ARG(x, st, 0), *n = SL_X_ARG(x, st, 1);
	sl_col *o = SL_X_OUT(x, st);
	const char *fn = sl_fn_name(st->fn);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = s->null[i] | n->null[i];
		if (o->null[i])
			continue;
		int cs = charset_of(n->v.str[i]);
		if (cs < 0)
			return sl_err_set(x->err, SL_ERUNTIME, "%s: unsupported charset '%.*s' (US-ASCII, "
			                  "ISO-8859-1, UTF-8, UTF-16BE, UTF-16LE, UTF-16)", fn,
			                  (int)n->v.str[i].len, n->v.str[i].ptr);
		sl_buf_clear(&a->buf);
		int rc = st->fn == SL_FN_ENCODE ? encode(&a->buf, s->v.str[i], cs)
		                                : decode(&a->buf, s->v.str[i], cs);
		if (rc || sl_col_set_str_in(sl__x_arena(x, st), o, i, a->buf.p ? a->buf.p : "",
		                            (int64_t)a->buf.len))
			return sl_err_set(x->err, SL_ENOMEM, "out of memory in %s", fn);
	});
	return 0;
}

/* Picks the kernel of ENCODE / DECODE; SL_ENOTSUP for other functions. */
int sl__bind_charset(sl_prog *p, sl_step *st, sl_err *err)
{
	if (st->fn != SL_FN_ENCODE && st->fn != SL_FN_DECODE)
		return SL_ENOTSUP;
	cs_aux *a = calloc(1, sizeof(*a));
	if (!a || sl__prog_on_free(p, aux_free, a)) {
		free(a);
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	sl_buf_init(&a->buf);
	st->aux = a;
	st->k = k_charset;
	return 0;
}
