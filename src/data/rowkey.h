/*
 * rowkey.h - encoding selected columns of a row into a byte-string key and
 * back.
 *
 * Grouping operators key their state by the values of the GROUP BY
 * columns.  The encoding is: per column, one null byte (1 = NULL) followed,
 * when not NULL, by the value: 8 bytes for I64/F64 (native order), 16 for
 * I128, u32 length + bytes for strings.  Equal values give equal bytes
 * (doubles: -0.0 is normalized to 0.0 and NaNs to one NaN, so SQL-equal
 * keys group together).  The encoding is only used inside state tables;
 * snapshots store it as opaque bytes, so it must stay stable across
 * versions (changing it needs a state format version bump).
 */
#ifndef SL_ROWKEY_H
#define SL_ROWKEY_H

#include <stdint.h>

#include "../base/buf.h"
#include "batch.h"

/* Appends the key of row `row` over columns cols[0..n) of b to out.
 * Returns 0 or SL_ENOMEM.  ROW columns are not supported as keys (the
 * planner refuses them). */
int sl_rowkey_encode(const sl_batch *b, const int *cols, int n, int row, sl_buf *out);

/* Decodes a key written by sl_rowkey_encode into row `row` of the output
 * columns out[0..n) (types must match the encoded columns); strings are
 * copied into ob's arena.  Returns the number of bytes consumed, or a
 * negative code for a malformed key. */
int sl_rowkey_decode(const void *key, uint32_t klen, sl_batch *ob, sl_col *const *out, int n,
                     int row);

#endif
