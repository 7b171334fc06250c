/*
 * fn_string.c - string function kernels: CONCAT, CONCAT_WS, UPPER, LOWER,
 * SUBSTRING, CHAR_LENGTH, TRIM, REPLACE, POSITION, SPLIT_INDEX, LPAD,
 * RPAD and LIKE.
 *
 * Strings are UTF-8 (pointer, length) pairs.  Positions and lengths are
 * counted in characters, as Flink counts them (SUBSTRING is 1-based; a
 * negative start counts from the end, one before the start gives '', a
 * negative length NULL).  LPAD/RPAD give NULL for a negative length or an
 * empty pad; SPLIT_INDEX gives NULL for '' and splits at each whitespace
 * character when the delimiter is empty; REPLACE of '' puts the replacement around every
 * character, as Java's String.replace (Flink's SqlFunctionUtils rules).
 * Results that are slices of an argument point into it (no copy); new
 * strings are allocated from the
 * step's arena (the output batch's arena when the value can reach an
 * output column, the program's scratch arena otherwise), never malloc'd.
 * UPPER/LOWER map every script with the C library's simple case mappings
 * ('ß' upper-cases to "SS", as Java); Java's context rules (Greek final
 * sigma) and other multi-character mappings are not applied.
 *
 * LIKE: a literal pattern is classified once at bind time (exact, prefix%,
 * %suffix, %infix%, or general); the general matcher is the iterative
 * two-pointer algorithm that backtracks only to the last '%'.
 */
#include "expr_int.h"
#include "str_util.h"

#include <locale.h>
#include <string.h>
#include <wctype.h>

static int k_concat(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	sl_arena *ar = sl__x_arena(x, st);
	int ws = st->fn == SL_FN_CONCAT_WS;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (ws ? SL_X_ARG(x, st, 0)->null[i] : sl__any_null(x, st, i)) {
			o->null[i] = 1;
			continue;
		}
		sl_str sep = ws ? SL_X_ARG(x, st, 0)->v.str[i] : (sl_str){"", 0};
		int64_t n = 0, parts = 0;
		for (int j = ws; j < st->nargs; j++)
			if (!SL_X_ARG(x, st, j)->null[i]) {
				n += SL_X_ARG(x, st, j)->v.str[i].len;
				parts++;
			}
		n += parts > 1 ? sep.len * (parts - 1) : 0;
		char *d = sl_arena_alloc(ar, (size_t)n + 1), *w = d;
		if (!d)
			return sl__str_oom(x, st);
		parts = 0;
		for (int j = ws; j < st->nargs; j++) {
			const sl_col *c = SL_X_ARG(x, st, j);
			if (c->null[i])
				continue;
			if (parts++ && sep.len) {
				memcpy(w, sep.ptr, (size_t)sep.len);
				w += sep.len;
			}
			memcpy(w, c->v.str[i].ptr, (size_t)c->v.str[i].len);
			w += c->v.str[i].len;
		}
		*w = 0;
		sl__set_str(o, i, d, n);
	});
	return 0;
}

/* Appends code point cp as UTF-8 at w; returns the bytes written. */
static int put_utf8(unsigned char *w, uint32_t cp)
{
	if (cp < 0x80) {
		w[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		w[0] = (unsigned char)(0xC0 | (cp >> 6));
		w[1] = (unsigned char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		w[0] = (unsigned char)(0xE0 | (cp >> 12));
		w[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		w[2] = (unsigned char)(0x80 | (cp & 0x3F));
		return 3;
	}
	w[0] = (unsigned char)(0xF0 | (cp >> 18));
	w[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
	w[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
	w[3] = (unsigned char)(0x80 | (cp & 0x3F));
	return 4;
}

/*
 * Index of the first byte of the n bytes at s that UPPER (up) or LOWER may
 * change: an ASCII letter of the other case, or any byte >= 0x80; n when
 * there is none.  Eight bytes at a time: for bytes below 0x80, x + (0x80 -
 * lo) has its top bit set iff x >= lo, without a carry into the next byte.
 */
static int64_t case_first_change(const unsigned char *s, int64_t n, int up)
{
	const uint64_t ones = 0x0101010101010101ULL, top = ones * 0x80;
	unsigned char lo = up ? 'a' : 'A', hi = up ? 'z' : 'Z';
	const uint64_t add_lo = ones * (uint64_t)(0x80 - lo), add_hi = ones * (uint64_t)(0x7F - hi);
	int64_t k = 0;
	for (; k + 8 <= n; k += 8) {
		uint64_t w;
		memcpy(&w, s + k, 8);
		if ((w & top) || ((w + add_lo) & ~(w + add_hi) & top))
			break;
	}
	for (; k < n; k++)
		if (s[k] >= 0x80 || (s[k] >= lo && s[k] <= hi))
			return k;
	return n;
}

/* UPPER / LOWER: ASCII directly, other characters through the C.UTF-8
 * locale's simple case mappings (towupper_l / towlower_l), 'ß' upper-cased
 * to "SS" as Java does; Latin-1 only when the C library lacks that locale.
 * Simple mappings change a character's UTF-8 length by at most half.
 * A string that has nothing to change (no letter of the other case, all
 * ASCII) is its own result, the argument's bytes: the copy per row was
 * 15% of Nexmark q21, whose lower(channel) is mostly 'channel-1234'
 * (docs/nexmark.md §22); the bytes before the first change are copied
 * with memcpy. */
static int k_case_map(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	sl_arena *ar = sl__x_arena(x, st);
	int up = st->fn == SL_FN_UPPER;
	locale_t loc = st->aux;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (a->null[i]) {
			o->null[i] = 1;
			continue;
		}
		const unsigned char *s = (const unsigned char *)a->v.str[i].ptr;
		int64_t n = a->v.str[i].len, k = case_first_change(s, n, up), w = k;
		if (k == n) {
			sl__set_str(o, i, (const char *)s, n);
			continue;
		}
		unsigned char *d = sl_arena_alloc(ar, (size_t)(n + n / 2 + 5));
		if (!d)
			return sl__str_oom(x, st);
		memcpy(d, s, (size_t)k);
		while (k < n) {
			unsigned char c = s[k];
			int m = sl__u8len(c);
			if (c < 0x80 || k + m > n) {
				d[w++] = up ? (c >= 'a' && c <= 'z' ? c ^ 0x20 : c)
				            : (c >= 'A' && c <= 'Z' ? c ^ 0x20 : c);
				k++;
				continue;
			}
			uint32_t cp = m == 2 ? c & 0x1F : m == 3 ? c & 0x0F : c & 0x07;
			for (int j = 1; j < m; j++)
				cp = (cp << 6) | (s[k + j] & 0x3F);
			k += m;
			if (up && cp == 0xDF) {
				d[w++] = 'S';
				d[w++] = 'S';
				continue;
			}
			if (loc)
				cp = (uint32_t)(up ? towupper_l((wint_t)cp, loc) : towlower_l((wint_t)cp, loc));
			else if (up && cp >= 0xE0 && cp <= 0xFE && cp != 0xF7)
				cp -= 0x20;
			else if (!up && cp >= 0xC0 && cp <= 0xDE && cp != 0xD7)
				cp += 0x20;
			w += put_utf8(d + w, cp);
		}
		d[w] = 0;
		sl__set_str(o, i, (const char *)d, w);
	});
	return 0;
}

static int k_substring(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0), *ps = SL_X_ARG(x, st, 1);
	const sl_col *pl = st->nargs > 2 ? SL_X_ARG(x, st, 2) : NULL;
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (sl__any_null(x, st, i)) {
			o->null[i] = 1;
			continue;
		}
		const char *s = a->v.str[i].ptr;
		int64_t len = a->v.str[i].len, pos = ps->v.i64[i];
		if (pl && pl->v.i64[i] < 0) { /* Flink: a negative length gives NULL */
			o->null[i] = 1;
			continue;
		}
		int64_t nc = sl__nchars(s, len);
		int64_t start = pos > 0 ? pos - 1 : pos < 0 ? nc + pos : 0;
		int64_t end = pl && pl->v.i64[i] < nc - start ? start + pl->v.i64[i] : nc;
		if (end <= start || start < 0) { /* before the start: '' (Flink) */
			sl__set_str(o, i, "", 0);
			continue;
		}
		int64_t b0 = sl__char_off(s, len, start);
		int64_t b1 = b0 + sl__char_off(s + b0, len - b0, end - start);
		sl__set_str(o, i, s + b0, b1 - b0);
	});
	return 0;
}

static int k_char_length(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = a->null[i];
		o->v.i64[i] = a->null[i] ? 0 : sl__nchars(a->v.str[i].ptr, a->v.str[i].len);
	});
	return 0;
}

/* 1 when the character at s (n bytes) occurs in set. */
static int in_set(const char *s, int n, sl_str set)
{
	for (int64_t k = 0; k < set.len;) {
		int m = sl__u8len((unsigned char)set.ptr[k]);
		if (m == n && !memcmp(set.ptr + k, s, (size_t)n))
			return 1;
		k += m;
	}
	return 0;
}

static int k_trim(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	const sl_col *cs = st->nargs > 1 ? SL_X_ARG(x, st, 1) : NULL;
	sl_col *o = SL_X_OUT(x, st);
	int lead = st->fn != SL_FN_TRIM_TRAILING, trail = st->fn != SL_FN_TRIM_LEADING;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (sl__any_null(x, st, i)) {
			o->null[i] = 1;
			continue;
		}
		sl_str set = cs ? cs->v.str[i] : (sl_str){" ", 1};
		const char *s = a->v.str[i].ptr;
		int64_t b = 0, e = a->v.str[i].len;
		while (lead && b < e) {
			int m = sl__u8len((unsigned char)s[b]);
			if (!in_set(s + b, m, set))
				break;
			b += m;
		}
		while (trail && e > b) {
			int64_t k = e - 1;
			while (k > b && ((unsigned char)s[k] & 0xC0) == 0x80)
				k--;
			if (!in_set(s + k, (int)(e - k), set))
				break;
			e = k;
		}
		sl__set_str(o, i, s + b, e - b);
	});
	return 0;
}

static const char *find(const char *h, int64_t hn, const char *n, int64_t nn)
{
	if (nn == 0)
		return h;
	return memmem(h, (size_t)hn, n, (size_t)nn);
}

static int k_replace(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0), *f = SL_X_ARG(x, st, 1), *t = SL_X_ARG(x, st, 2);
	sl_col *o = SL_X_OUT(x, st);
	sl_arena *ar = sl__x_arena(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (sl__any_null(x, st, i)) {
			o->null[i] = 1;
			continue;
		}
		sl_str s = a->v.str[i], fr = f->v.str[i], to = t->v.str[i];
		if (fr.len == 0) {
			/* as Flink (Java's String.replace): the replacement goes before
			 * every character and at the end: REPLACE('ab', '', 'x') = 'xaxbx' */
			int64_t nc = 0;
			for (int64_t b = 0; b < s.len; b += sl__char_off(s.ptr + b, s.len - b, 1))
				nc++;
			int64_t n = s.len + (nc + 1) * to.len;
			char *d = sl_arena_alloc(ar, (size_t)n + 1), *w = d;
			if (!d)
				return sl__str_oom(x, st);
			for (int64_t b = 0;;) {
				memcpy(w, to.ptr, (size_t)to.len);
				w += to.len;
				if (b >= s.len)
					break;
				int64_t cl = sl__char_off(s.ptr + b, s.len - b, 1);
				memcpy(w, s.ptr + b, (size_t)cl);
				w += cl;
				b += cl;
			}
			d[n] = 0;
			sl__set_str(o, i, d, n);
			continue;
		}
		int64_t cnt = 0;
		for (const char *p = s.ptr, *e = s.ptr + s.len, *q; (q = find(p, e - p, fr.ptr, fr.len));
		     p = q + fr.len)
			cnt++;
		int64_t n = s.len + cnt * (to.len - fr.len);
		char *d = sl_arena_alloc(ar, (size_t)n + 1), *w = d;
		if (!d)
			return sl__str_oom(x, st);
		const char *p = s.ptr, *e = s.ptr + s.len, *q;
		while ((q = find(p, e - p, fr.ptr, fr.len))) {
			memcpy(w, p, (size_t)(q - p));
			w += q - p;
			memcpy(w, to.ptr, (size_t)to.len);
			w += to.len;
			p = q + fr.len;
		}
		memcpy(w, p, (size_t)(e - p));
		d[n] = 0;
		sl__set_str(o, i, d, n);
	});
	return 0;
}

static int k_position(sl_xctx *x, const sl_step *st)
{
	const sl_col *nd = SL_X_ARG(x, st, 0), *h = SL_X_ARG(x, st, 1);
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = nd->null[i] | h->null[i];
		if (o->null[i])
			continue;
		sl_str hs = h->v.str[i], ns = nd->v.str[i];
		const char *q = find(hs.ptr, hs.len, ns.ptr, ns.len);
		o->v.i64[i] = q ? sl__nchars(hs.ptr, q - hs.ptr) + 1 : 0;
	});
	return 0;
}

/* The first ASCII whitespace character (Java's Character.isWhitespace:
 * blank, \t \n \v \f \r and 0x1C-0x1F) in h[0..hn), or NULL. */
static const char *find_ws(const char *h, int64_t hn)
{
	for (int64_t k = 0; k < hn; k++) {
		unsigned char c = (unsigned char)h[k];
		if (c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F))
			return h + k;
	}
	return NULL;
}

static int k_split_index(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0), *dl = SL_X_ARG(x, st, 1), *ix = SL_X_ARG(x, st, 2);
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = 1;
		/* Flink: '' splits into no parts; an empty delimiter splits at every
		 * whitespace character (commons-lang's splitByWholeSeparator...) */
		if (sl__any_null(x, st, i) || ix->v.i64[i] < 0 || a->v.str[i].len == 0)
			continue;
		sl_str s = a->v.str[i], d = dl->v.str[i];
		int64_t want = ix->v.i64[i];
		const char *p = s.ptr, *e = s.ptr + s.len;
		for (int64_t k = 0;; k++) {
			const char *q = d.len ? find(p, e - p, d.ptr, d.len) : find_ws(p, e - p);
			const char *end = q ? q : e;
			if (k == want) {
				sl__set_str(o, i, p, end - p);
				break;
			}
			if (!q)
				break;
			p = q + (d.len ? d.len : 1); /* a whitespace separator is one byte */
		}
	});
	return 0;
}

static int k_pad(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0), *ln = SL_X_ARG(x, st, 1), *pd = SL_X_ARG(x, st, 2);
	sl_col *o = SL_X_OUT(x, st);
	sl_arena *ar = sl__x_arena(x, st);
	int left = st->fn == SL_FN_LPAD;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = 1;
		/* Flink: a negative length or an empty pad gives NULL */
		if (sl__any_null(x, st, i) || ln->v.i64[i] < 0 || pd->v.str[i].len == 0)
			continue;
		sl_str s = a->v.str[i], p = pd->v.str[i];
		int64_t want = ln->v.i64[i], have = sl__nchars(s.ptr, s.len);
		if (want <= have) {
			sl__set_str(o, i, s.ptr, sl__char_off(s.ptr, s.len, want));
			continue;
		}
		int64_t padc = want - have, pcn = sl__nchars(p.ptr, p.len);
		int64_t full = padc / pcn, rest = padc % pcn;
		int64_t padb = full * p.len + sl__char_off(p.ptr, p.len, rest);
		char *d = sl_arena_alloc(ar, (size_t)(padb + s.len + 1)), *w = d;
		if (!d)
			return sl__str_oom(x, st);
		if (!left) {
			memcpy(w, s.ptr, (size_t)s.len);
			w += s.len;
		}
		for (int64_t k = 0; k < full; k++, w += p.len)
			memcpy(w, p.ptr, (size_t)p.len);
		memcpy(w, p.ptr, (size_t)sl__char_off(p.ptr, p.len, rest));
		w += sl__char_off(p.ptr, p.len, rest);
		if (left) {
			memcpy(w, s.ptr, (size_t)s.len);
			w += s.len;
		}
		*w = 0;
		sl__set_str(o, i, d, padb + s.len);
	});
	return 0;
}

/* ---- LIKE --------------------------------------------------------------- */

enum { LK_GENERAL, LK_EXACT, LK_PREFIX, LK_SUFFIX, LK_INFIX, LK_ALL };

typedef struct like_pat {
	int kind;
	sl_str lit;  /* the literal part for the fast kinds */
} like_pat;

/* SQL LIKE over UTF-8: '%' any sequence, '_' one character, esc quotes the
 * next pattern character (esc < 0: none). */
static int like_match(const char *s, int64_t sn, const char *p, int64_t pn, int esc)
{
	int64_t si = 0, pi = 0, star_p = -1, star_s = 0;
	while (si < sn) {
		if (pi < pn) {
			unsigned char c = (unsigned char)p[pi];
			if (c == '%' && (int)c != esc) {
				star_p = ++pi;
				star_s = si;
				continue;
			}
			if (c == '_' && (int)c != esc) {
				si += sl__u8len((unsigned char)s[si]);
				pi++;
				continue;
			}
			int64_t q = pi;
			if ((int)c == esc && pi + 1 < pn)
				q = pi + 1;
			if (p[q] == s[si]) {
				si++;
				pi = q + 1;
				continue;
			}
		}
		if (star_p < 0)
			return 0;
		pi = star_p;
		star_s += sl__u8len((unsigned char)s[star_s]);
		si = star_s;
	}
	while (pi < pn && p[pi] == '%' && esc != '%')
		pi++;
	return pi == pn;
}

static void like_classify(like_pat *lp, sl_str p, int esc)
{
	lp->kind = LK_GENERAL;
	if (esc >= 0 || memchr(p.ptr, '_', (size_t)p.len))
		return;
	int64_t b = 0, e = p.len;
	int lead = 0, trail = 0;
	while (b < e && p.ptr[b] == '%')
		b++, lead = 1;
	while (e > b && p.ptr[e - 1] == '%')
		e--, trail = 1;
	if (e > b && memchr(p.ptr + b, '%', (size_t)(e - b)))
		return;
	lp->lit.ptr = p.ptr + b;
	lp->lit.len = e - b;
	lp->kind = b == e && lead ? LK_ALL : lead && trail ? LK_INFIX : lead ? LK_SUFFIX
	         : trail ? LK_PREFIX : LK_EXACT;
}

static int like_fast(const like_pat *lp, sl_str s)
{
	sl_str l = lp->lit;
	switch (lp->kind) {
	case LK_ALL: return 1;
	case LK_EXACT: return s.len == l.len && !memcmp(s.ptr, l.ptr, (size_t)l.len);
	case LK_PREFIX: return s.len >= l.len && !memcmp(s.ptr, l.ptr, (size_t)l.len);
	case LK_SUFFIX: return s.len >= l.len && !memcmp(s.ptr + s.len - l.len, l.ptr, (size_t)l.len);
	default: return find(s.ptr, s.len, l.ptr, l.len) != NULL;
	}
}

static int k_like(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0), *pc = SL_X_ARG(x, st, 1);
	const sl_col *ec = st->nargs > 2 ? SL_X_ARG(x, st, 2) : NULL;
	sl_col *o = SL_X_OUT(x, st);
	const like_pat *lp = st->aux;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = sl__any_null(x, st, i);
		if (o->null[i])
			continue;
		sl_str s = a->v.str[i], p = pc->v.str[i];
		if (lp && lp->kind != LK_GENERAL) {
			o->v.i64[i] = like_fast(lp, s);
			continue;
		}
		int esc = -1;
		if (ec) {
			if (ec->v.str[i].len != 1)
				return sl_err_set(x->err, SL_ERUNTIME,
				                  "LIKE escape must be one character, got '%.*s'",
				                  (int)ec->v.str[i].len, ec->v.str[i].ptr);
			esc = (unsigned char)ec->v.str[i].ptr[0];
		}
		o->v.i64[i] = like_match(s.ptr, s.len, p.ptr, p.len, esc);
	});
	return 0;
}

static int bind_like(sl_prog *p, sl_step *st, sl_err *err)
{
	st->k = k_like;
	const sl_value *pv = sl__step_const(p, st, 1);
	if (!pv || pv->is_null || st->nargs > 2)
		return 0;
	like_pat *lp = sl_arena_calloc(&p->arena, sizeof(*lp));
	if (!lp)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	like_classify(lp, pv->v.str, -1);
	st->aux = lp;
	return 0;
}

/* Picks kernels for the string functions. */
int sl__bind_string(sl_prog *p, sl_step *st, sl_err *err)
{
	switch (st->fn) {
	case SL_FN_CONCAT: case SL_FN_CONCAT_WS: st->k = k_concat; return 0;
	case SL_FN_UPPER: case SL_FN_LOWER:
		st->k = k_case_map;
		st->aux = sl__utf8_locale();
		return 0;
	case SL_FN_SUBSTRING: st->k = k_substring; return 0;
	case SL_FN_CHAR_LENGTH: st->k = k_char_length; return 0;
	case SL_FN_TRIM_BOTH: case SL_FN_TRIM_LEADING: case SL_FN_TRIM_TRAILING:
		st->k = k_trim;
		return 0;
	case SL_FN_REPLACE: st->k = k_replace; return 0;
	case SL_FN_POSITION: st->k = k_position; return 0;
	case SL_FN_SPLIT_INDEX: st->k = k_split_index; return 0;
	case SL_FN_LPAD: case SL_FN_RPAD: st->k = k_pad; return 0;
	case SL_FN_LIKE: return bind_like(p, st, err);
	default: return SL_ENOTSUP;
	}
}
