/*
 * buf.h - a growable byte buffer (output text, encoded keys, file I/O).
 *
 * Owned by its user; grows geometrically, so appends are amortized O(1) and
 * a buffer that is re-used (sl_buf_clear) stops allocating once it reached
 * its working size.
 */
#ifndef SL_BUF_H
#define SL_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct sl_buf {
	char *p;
	size_t len, cap;
} sl_buf;

static inline void sl_buf_init(sl_buf *b) { b->p = NULL; b->len = b->cap = 0; }
void sl_buf_deinit(sl_buf *b);
static inline void sl_buf_clear(sl_buf *b) { b->len = 0; }

/* Makes room for n more bytes; returns 0 or SL_ENOMEM. */
int sl_buf_reserve(sl_buf *b, size_t n);

static inline int sl_buf_append(sl_buf *b, const void *p, size_t n)
{
	if (n == 0)
		return 0;
	if (b->len + n > b->cap && sl_buf_reserve(b, n))
		return -1;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}
static inline int sl_buf_putc(sl_buf *b, char c)
{
	if (b->len + 1 > b->cap && sl_buf_reserve(b, 1))
		return -1;
	b->p[b->len++] = c;
	return 0;
}
static inline int sl_buf_puts(sl_buf *b, const char *s) { return sl_buf_append(b, s, strlen(s)); }

/* printf-append; returns 0 or SL_ENOMEM. */
int sl_buf_printf(sl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* NUL-terminates (not counted in len) and returns b->p. */
const char *sl_buf_cstr(sl_buf *b);

#endif
