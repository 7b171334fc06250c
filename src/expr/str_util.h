/*
 * str_util.h - small UTF-8 and result helpers shared by the string kernels
 * (fn_string.c, fn_text.c, fn_regex.c).  Strings are UTF-8 (pointer, length) pairs;
 * character counts and offsets count lead bytes, as the kernels count
 * Flink's characters.  Static inline: each is a line or a loop used per row.
 */
#ifndef SL_EXPR_STR_UTIL_H
#define SL_EXPR_STR_UTIL_H

#include "expr_int.h"

#include <string.h>

/* Sets "out of memory in '<fn>'" on x's error and returns its code. */
static inline int sl__str_oom(sl_xctx *x, const sl_step *st)
{
	return sl_err_set(x->err, SL_ENOMEM, "out of memory in '%s'", sl_fn_name(st->fn));
}

/* Length in bytes of the UTF-8 sequence whose lead byte is c. */
static inline int sl__u8len(unsigned char c)
{
	return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

/*
 * 1 when the len bytes at s are well-formed UTF-8 as RFC 3629 (and PCRE2's
 * UTF check) define it: no overlong forms, no surrogates (U+D800-DFFF),
 * nothing above U+10FFFF, no truncated sequence.  ASCII is tested 32 and
 * then eight bytes at a time: PCRE2's own check (pcre2_match without
 * PCRE2_NO_UTF_CHECK) went byte by byte, 553 instructions for a 75-byte
 * URL, 18% of Nexmark q21 (docs/nexmark.md §22).
 */
static inline int sl__utf8_valid(const char *str, int64_t len)
{
	const unsigned char *s = (const unsigned char *)str, *e = s + len;
	while (s < e) {
		if (e - s >= 32) {
			uint64_t w[4];
			memcpy(w, s, 32);
			if (!((w[0] | w[1] | w[2] | w[3]) & 0x8080808080808080ULL)) {
				s += 32;
				continue;
			}
		}
		if (e - s >= 8) {
			uint64_t w;
			memcpy(&w, s, 8);
			if (!(w & 0x8080808080808080ULL)) {
				s += 8;
				continue;
			}
		}
		unsigned c = *s;
		if (c < 0x80) {
			s++;
			continue;
		}
		/* lo/hi: the range of the second byte; n: continuation bytes */
		unsigned lo = 0x80, hi = 0xBF;
		int n;
		if (c >= 0xC2 && c <= 0xDF)
			n = 1;
		else if (c >= 0xE0 && c <= 0xEF) {
			n = 2;
			lo = c == 0xE0 ? 0xA0 : 0x80;
			hi = c == 0xED ? 0x9F : 0xBF;
		} else if (c >= 0xF0 && c <= 0xF4) {
			n = 3;
			lo = c == 0xF0 ? 0x90 : 0x80;
			hi = c == 0xF4 ? 0x8F : 0xBF;
		} else
			return 0;
		if (e - s <= n || s[1] < lo || s[1] > hi)
			return 0;
		for (int k = 2; k <= n; k++)
			if ((s[k] & 0xC0) != 0x80)
				return 0;
		s += n + 1;
	}
	return 1;
}

/* Number of characters in the len bytes at s. */
static inline int64_t sl__nchars(const char *s, int64_t len)
{
	int64_t n = 0;
	for (int64_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

/* Byte offset of character index ci (clamped to len). */
static inline int64_t sl__char_off(const char *s, int64_t len, int64_t ci)
{
	int64_t i = 0;
	while (i < len && ci > 0) {
		i += sl__u8len((unsigned char)s[i]);
		ci--;
	}
	return i > len ? len : i;
}

/* 1 when any argument of st is NULL in row i (the row's result is NULL). */
static inline int sl__any_null(const sl_xctx *x, const sl_step *st, int i)
{
	for (int j = 0; j < st->nargs; j++)
		if (SL_X_ARG(x, st, j)->null[i])
			return 1;
	return 0;
}

/* Sets row i of o to the non-NULL string (p, n). */
static inline void sl__set_str(sl_col *o, int i, const char *p, int64_t n)
{
	o->null[i] = 0;
	o->v.str[i].ptr = p;
	o->v.str[i].len = n;
}

#endif
