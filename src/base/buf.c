/*
 * buf.c - growable byte buffer (see buf.h).
 */
#include "buf.h"
#include "sluice.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void sl_buf_deinit(sl_buf *b)
{
	free(b->p);
	sl_buf_init(b);
}

int sl_buf_reserve(sl_buf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return 0;
	size_t nc = b->cap ? b->cap : 256;
	while (nc < b->len + n)
		nc *= 2;
	char *p = realloc(b->p, nc);
	if (!p)
		return SL_ENOMEM;
	b->p = p;
	b->cap = nc;
	return 0;
}

int sl_buf_printf(sl_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || sl_buf_reserve(b, (size_t)n + 1))
		return SL_ENOMEM;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

const char *sl_buf_cstr(sl_buf *b)
{
	if (sl_buf_reserve(b, 1))
		return "";
	b->p[b->len] = 0;
	return b->p;
}
