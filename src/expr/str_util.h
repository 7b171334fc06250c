/*
 * str_util.h - small UTF-8 and result helpers shared by the string kernels
 * (fn_string.c, fn_text.c).  Strings are UTF-8 (pointer, length) pairs;
 * character counts and offsets count lead bytes, as the kernels count
 * Flink's characters.  Static inline: each is a line or a loop used per row.
 */
#ifndef SL_EXPR_STR_UTIL_H
#define SL_EXPR_STR_UTIL_H

#include "expr_int.h"

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
