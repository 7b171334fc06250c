/*
 * copy.h - copying short byte strings inline.
 *
 * A call to memcpy costs 14-20 instructions of call and dispatch before it
 * copies a byte; the strings a hash exchange copies and hashes per row
 * (user ids, order ids, 5-20 bytes) cost more in the call than in the
 * copy.  sl_copy_short copies up to 16 bytes with at most two overlapping
 * loads and stores of one width, up to 64 bytes with two or four
 * overlapping 16-byte ones (the records a two-phase window aggregate's
 * partials carry across the exchange are 32-64 bytes: docs/parallel.md
 * §11), reading and writing only [s, s + n) and [d, d + n), and calls
 * memcpy above that.  The ranges must not overlap.  sl_zero16n and
 * sl_copy16n clear and copy accumulator slots (multiples of 16 bytes) the
 * same way.
 */
#ifndef SL_COPY_H
#define SL_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline void sl_copy_short(void *d, const void *s, size_t n)
{
	char *dp = d;
	const char *sp = s;
	if (n >= 8) {
		if (n > 16) {
			if (n > 64) {
				memcpy(dp, sp, n);
				return;
			}
			/* loads first, then stores: a fixed 16-byte memcpy is one
			 * vector move */
			char a[16], b[16], c[16], e[16];
			memcpy(a, sp, 16);
			memcpy(e, sp + n - 16, 16);
			if (n > 32) {
				memcpy(b, sp + 16, 16);
				memcpy(c, sp + n - 32, 16);
				memcpy(dp + 16, b, 16);
				memcpy(dp + n - 32, c, 16);
			}
			memcpy(dp, a, 16);
			memcpy(dp + n - 16, e, 16);
			return;
		}
		uint64_t a, b;
		memcpy(&a, sp, 8);
		memcpy(&b, sp + n - 8, 8);
		memcpy(dp, &a, 8);
		memcpy(dp + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t a, b;
		memcpy(&a, sp, 4);
		memcpy(&b, sp + n - 4, 4);
		memcpy(dp, &a, 4);
		memcpy(dp + n - 4, &b, 4);
	} else if (n) {
		dp[0] = sp[0];
		dp[n / 2] = sp[n / 2];
		dp[n - 1] = sp[n - 1];
	}
}

/* Clears n bytes at v, n a multiple of 16 (accumulator slots): straight
 * 16-byte stores up to 64 bytes (a loop cost as much as the libc call),
 * memset above. */
static inline void sl_zero16n(void *v, size_t n)
{
	char *p = v;
	switch (n) {
	case 64: memset(p + 48, 0, 16); /* fall through */
	case 48: memset(p + 32, 0, 16); /* fall through */
	case 32: memset(p + 16, 0, 16); /* fall through */
	case 16: memset(p, 0, 16); return;
	default: memset(p, 0, n);
	}
}

/* Copies n bytes, n a multiple of 16 (accumulator slots), as sl_zero16n
 * clears them.  The ranges must not overlap. */
static inline void sl_copy16n(void *d, const void *s, size_t n)
{
	char *dp = d;
	const char *sp = s;
	switch (n) {
	case 64: memcpy(dp + 48, sp + 48, 16); /* fall through */
	case 48: memcpy(dp + 32, sp + 32, 16); /* fall through */
	case 32: memcpy(dp + 16, sp + 16, 16); /* fall through */
	case 16: memcpy(dp, sp, 16); return;
	default: memcpy(dp, sp, n);
	}
}

#endif
