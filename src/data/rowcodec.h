/*
 * rowcodec.h - the one encoding of row values as byte strings, used for
 * state keys and for rows kept in state (rowcodec.c).
 *
 * Layout, per column in order: one null byte (1 = NULL) and, when not
 * NULL, the value by physical kind (types.h): 8 bytes for I64 and F64
 * (native byte order), 16 for I128, u32 length + bytes for strings, and
 * for a ROW value its fields in order, each encoded the same way (so
 * nested ROWs nest).  A NULL ROW is the null byte alone.  ARRAY and MAP
 * values are strings (their packed bytes, packed.h), so they need nothing
 * of their own here; packed.h reuses this layout for their elements.
 *
 * Two forms share that layout and differ only in doubles:
 *
 *   key form  (sl_rowcodec_key)  doubles canonical: -0.0 is written as
 *             0.0 and every NaN as one NaN, so SQL-equal values give
 *             equal bytes.  It is what operators hash and compare: state
 *             keys (GROUP BY, PARTITION BY, join and PRIMARY KEYs), and
 *             rows whose bytes are matched against each other (the set
 *             operations' rows, Top-N's sort keys).
 *   row form  (sl_rowcodec_row, sl_rowcodec_cols)  values exact (doubles
 *             as they are): rows kept in state to be given back as they
 *             came (join records, the lookup index, the rows stored by
 *             deduplication, Top-N, ChangelogNormalize, OVER and the
 *             SESSION window TVF).  Where such rows are matched (Top-N's
 *             retractions, ChangelogNormalize's duplicate events),
 *             sl_rowcodec_equal compares them as the key form would.
 *
 * One decoder reads both.  Equal bytes mean equal values of the same
 * column types; byte order is not value order (integers are little-endian
 * on the machines sluice runs on), so the forms are for hashing and
 * equality only (docs/state.md: RocksDB keeps keys byte-reversed for
 * locality, not for order).
 *
 * Stability: these bytes are written into snapshots and checkpoints
 * (tests/fixtures/ckpt-v1 holds them) and read back by later versions, so
 * the layout never changes without a checkpoint format version bump.
 * tests/unit/test_rowcodec.c pins the bytes of every type.
 */
#ifndef SL_ROWCODEC_H
#define SL_ROWCODEC_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/copy.h"
#include "batch.h"

/* Appends the key form of columns cols[0..n) of row `row` of b to out.
 * Every type is accepted, ROW (nested) included.  Returns 0 or
 * SL_ENOMEM. */
int sl_rowcodec_key(const sl_batch *b, const int *cols, int n, int row, sl_buf *out);

/* A double in the key form: -0.0 as 0.0, every NaN as one NaN. */
static inline double sl_rowcodec_canon(double d)
{
	if (d == 0)
		d = 0; /* -0.0 -> 0.0 */
	if (isnan(d))
		d = NAN;
	return d;
}

/* Writes the key form of column c at row `row` into buf[0..cap) without
 * allocating: the same bytes as sl_rowcodec_key of that one column.
 * Returns their length, or -1 when they do not fit in cap bytes or c is a
 * ROW column (then use sl_rowcodec_key).  What a hash exchange hashes per
 * row for a key of one column; inline because it is called per row
 * (tests/unit/test_rowcodec.c checks it against sl_rowcodec_key). */
static inline int sl_rowcodec_key1(const sl_col *c, int row, char *buf, int cap)
{
	if (c->null[row]) {
		if (cap < 1)
			return -1;
		buf[0] = 1;
		return 1;
	}
	switch (sl_type_phys(c->type)) {
	case SL_PHYS_I64:
		if (cap < 9)
			return -1;
		buf[0] = 0;
		memcpy(buf + 1, &c->v.i64[row], 8);
		return 9;
	case SL_PHYS_F64: {
		if (cap < 9)
			return -1;
		double d = sl_rowcodec_canon(c->v.f64[row]);
		buf[0] = 0;
		memcpy(buf + 1, &d, 8);
		return 9;
	}
	case SL_PHYS_I128:
		if (cap < 17)
			return -1;
		buf[0] = 0;
		memcpy(buf + 1, &c->v.i128[row], 16);
		return 17;
	case SL_PHYS_STR: {
		int64_t len = c->v.str[row].len;
		if (len < 0 || len > cap - 5)
			return -1;
		uint32_t l32 = (uint32_t)len;
		buf[0] = 0;
		memcpy(buf + 1, &l32, 4);
		sl_copy_short(buf + 5, c->v.str[row].ptr, (size_t)len);
		return (int)len + 5;
	}
	case SL_PHYS_ROW: return -1;
	}
	return -1;
}

/* Appends the row form of every column of row `row` of b to out.  Returns
 * 0 or SL_ENOMEM. */
int sl_rowcodec_row(const sl_batch *b, int row, sl_buf *out);

/* Appends the row form of columns cols[0..n) of row `row` of b to out.
 * Returns 0 or SL_ENOMEM. */
int sl_rowcodec_cols(const sl_batch *b, const int *cols, int n, int row, sl_buf *out);

/* 1 when a column of cols[0..n) is NULL at row `row`: such a key matches
 * nothing in a join or a lookup (SQL's NULL = NULL is not TRUE). */
int sl_rowcodec_key_null(const sl_batch *b, const int *cols, int n, int row);

/* Decodes n encoded columns (either form) from p[0..len) into row `row`
 * of the columns out[0..n) of ob, whose types must be those encoded;
 * strings are copied into ob's arena; a NULL ROW sets its fields NULL
 * too.  Returns the number of bytes consumed (what follows is the
 * caller's), or SL_ESTATE for malformed bytes, SL_ENOMEM. */
int sl_rowcodec_decode(const void *p, uint32_t len, sl_batch *ob, sl_col *const *out, int n,
                       int row);

/* As sl_rowcodec_decode into the contiguous columns cols[0..n) of b, and
 * the bytes must be exactly n columns.  Returns 0, SL_ESTATE or
 * SL_ENOMEM. */
int sl_rowcodec_decode_cols(const void *p, uint32_t len, sl_batch *b, sl_col *cols, int n,
                            int row);

/* One value, for the packed ARRAY/MAP elements of packed.h: appends the
 * row form of column c at row `row` (null byte, then the value) to out;
 * 0 or SL_ENOMEM. */
int sl_rowcodec_value(const sl_col *c, int row, sl_buf *out);

/* Reads one encoded value at *pp (advancing it, within [*pp, end)) into
 * row `row` of c, whose type must be the one encoded; strings are copied
 * into arena a, or point into the encoded bytes when a is NULL (valid as
 * long as those are).  0, SL_ESTATE (malformed) or SL_ENOMEM. */
int sl_rowcodec_get(const char **pp, const char *end, sl_arena *a, sl_col *c, int row);

/* Steps over one encoded value of type t at *pp.  0 or SL_ESTATE. */
int sl_rowcodec_skip(sl_type t, const char **pp, const char *end);

/*
 * 1 when the encodings a[0..alen) and b[0..blen) (either form, each
 * exactly n columns of types[0..n)) hold values the key form makes equal:
 * the same bytes except that doubles compare as SQL does (-0.0 equals
 * 0.0) and every NaN equals every NaN.  So a row kept in the row form
 * (its -0.0 intact, to be output as given) can be matched as if it were
 * in the key form.  0 when they differ or either is malformed.
 */
int sl_rowcodec_equal(const sl_type *types, int n, const void *a, uint32_t alen, const void *b,
                      uint32_t blen);

/* 1 when the two forms can differ for columns of types[0..n): one of
 * them is a DOUBLE or FLOAT, ROW fields included.  Otherwise equal values
 * have equal bytes in either form and memcmp decides equality. */
int sl_rowcodec_forms_differ(const sl_type *types, int n);

#endif
