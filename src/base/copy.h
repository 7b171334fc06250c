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
 * memcpy above that.  The ranges must not overlap.
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

#endif
