/*
 * decimal.h - exact DECIMAL(p, s) values as scaled 128-bit integers.
 *
 * A DECIMAL(p, s) value v is stored as the integer v * 10^s (sl_i128), with
 * |unscaled| < 10^p.  Nothing here goes through a double.  Overflow (a
 * result that does not fit its precision) is reported, never wrapped or
 * turned into NULL silently (docs/semantics.md §2).
 */
#ifndef SL_DECIMAL_H
#define SL_DECIMAL_H

#include <stddef.h>

#include "types.h"

/*
 * Parses text ("12.5", "-0.01", "1e3", "  7 ") into DECIMAL(p, s): rounds
 * HALF_UP to scale s.  Returns 0, -1 for malformed text, -2 when the value
 * does not fit precision p.
 */
int sl_dec_parse(const char *s, size_t len, int p, int scale, sl_i128 *out);

/* Formats with exactly `scale` fraction digits ("12.50", "-0.01", "0.00").
 * buf needs at least 44 bytes.  Returns the length written. */
int sl_dec_format(sl_i128 v, int scale, char *buf);

/* Rescales from scale s1 to s2 (HALF_UP when reducing).  Returns 0 or -2
 * when the result does not fit precision p. */
int sl_dec_rescale(sl_i128 v, int s1, int s2, int p, sl_i128 *out);

/* 1 when |v| < 10^p. */
int sl_dec_fits(sl_i128 v, int p);

/* Checked 128-bit arithmetic: return 0, or -2 on overflow of int128. */
int sl_i128_add(sl_i128 a, sl_i128 b, sl_i128 *out);
int sl_i128_mul(sl_i128 a, sl_i128 b, sl_i128 *out);

/* Conversions. */
double sl_dec_to_double(sl_i128 v, int scale);
int sl_dec_from_double(double d, int p, int scale, sl_i128 *out); /* 0, -2 overflow, -1 NaN/inf */

#endif
