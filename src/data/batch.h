/*
 * batch.h - columnar batches, the unit of data flow between operators.
 *
 * A batch holds up to `cap` rows (SL_BATCH_ROWS by default) as typed column
 * vectors (one per output column of the producing operator), plus three
 * per-row vectors every batch has:
 *
 *   op[i]   the row's change kind (sl_rowkind: +I, -U, +U, -D);
 *   wm[i]   W_before: the watermark of the row's stream just before the row
 *           (docs/semantics.md §1), SL_WM_MIN for -infinity.  Operators judge
 *           lateness with it; it is non-decreasing along a batch;
 *   sel     an optional selection vector: when non-NULL only the rows
 *           sel[0..nsel) are live, in that order (filters set it instead of
 *           copying).  Use SL_BATCH_FOREACH to visit live rows.
 *
 * Values are stored by physical kind (types.h).  Every column has a null
 * vector (one byte per row, 1 = NULL); the value slot of a NULL row is
 * zeroed but meaningless.  String values point into the batch's arena or
 * into memory the producer guarantees until the consumer's process() call
 * returns (a source's read buffer, say); a consumer that keeps a value
 * longer copies it (into its state).
 *
 * Ownership: the producer owns a batch.  Consumers read it during the call
 * that hands it to them and never modify or keep it.  A producer recycles
 * its batches with sl_batch_reset (no malloc in steady state).
 */
#ifndef SL_BATCH_H
#define SL_BATCH_H

#include <stdint.h>

#include "../base/arena.h"
#include "types.h"

#define SL_BATCH_ROWS 1024

#define SL_WM_MIN INT64_MIN /* watermark -infinity */
#define SL_WM_MAX INT64_MAX /* watermark +infinity (end of input) */

typedef struct sl_str {
	const char *ptr;
	int64_t len;
} sl_str;

typedef struct sl_col {
	sl_type type;
	uint8_t *null; /* per row, 1 = NULL; never a NULL pointer */
	union {
		int64_t *i64;
		double *f64;
		sl_i128 *i128;
		sl_str *str;
		void *data; /* NULL for ROW columns */
	} v;
	int nchild;            /* ROW: number of fields */
	struct sl_col *child;  /* ROW: one column per field */
} sl_col;

typedef struct sl_batch {
	int ncols;
	int nrows;     /* rows stored (live or not) */
	int cap;       /* capacity in rows */
	sl_col *cols;
	uint8_t *op;   /* sl_rowkind per row */
	int64_t *wm;   /* W_before per row (micros), SL_WM_MIN = -infinity */
	uint32_t *sel; /* NULL = all rows live */
	int nsel;      /* number of live rows when sel != NULL */
	sl_arena arena; /* string bytes and scratch; reset with the batch */
} sl_batch;

/* Number of live rows. */
static inline int sl_batch_live(const sl_batch *b)
{
	return b->sel ? b->nsel : b->nrows;
}

/* Visits live rows: `row` is the physical row index. */
#define SL_BATCH_FOREACH(b, k, row)                                           \
	for (int k = 0, row = 0;                                              \
	     k < sl_batch_live(b) && ((row = (b)->sel ? (int)(b)->sel[k] : k), 1); \
	     k++)

/*
 * Allocates a batch for ncols columns of the given types with room for cap
 * rows (0 = SL_BATCH_ROWS).  Vectors are allocated once, here; ROW columns
 * get child columns recursively.  Returns NULL when out of memory.  Free
 * with sl_batch_free.
 */
sl_batch *sl_batch_new(int ncols, const sl_type *types, int cap);

/* Frees a batch and everything it owns.  Safe on NULL. */
void sl_batch_free(sl_batch *b);

/* Empties a batch for re-use: nrows = 0, no selection, arena reset. */
void sl_batch_reset(sl_batch *b);

/*
 * A standalone column of type t with room for cap rows (ROW: its fields
 * too), outside any batch: the one-value scratch columns through which
 * packed ARRAY/MAP elements are read and written (packed.h).  Returns 0 or
 * SL_ENOMEM; free with sl_col_free either way.
 */
int sl_col_new(sl_col *c, sl_type t, int cap);
void sl_col_free(sl_col *c);

/* As sl_col_new with one row, every vector in arena a (freed with the
 * arena, never by sl_col_free).  0 or SL_ENOMEM. */
int sl_col_new_in(sl_arena *a, sl_col *c, sl_type t);

/*
 * Appends one row slot: sets op and wm, marks every column NULL (value
 * zeroed) and returns its index.  The caller then fills values with the
 * setters below.  The batch must not be full (nrows < cap).
 */
int sl_batch_add_row(sl_batch *b, uint8_t op, int64_t wm);

/* As sl_batch_add_row without clearing the columns: for a caller that then
 * sets every column of the row whole (sl_col_copy_value from a row made
 * so, sl_rowcodec_decode*, which zero a NULL's value).  Why: clearing the
 * 15 columns of each joined candidate that are overwritten at once was
 * 4.6% of Nexmark q9's instructions. */
static inline int sl_batch_add_row_nc(sl_batch *b, uint8_t op, int64_t wm)
{
	int row = b->nrows++;
	b->op[row] = op;
	b->wm[row] = wm;
	return row;
}

/* Marks row `row` of column c NULL with its value zeroed, as
 * sl_batch_add_row leaves every column of a new row (ROW columns: their
 * fields too). */
void sl_col_clear(sl_col *c, int row);

/* Value setters for row `row` of column `c`; they clear the null flag.
 * sl_col_set_str copies the bytes into the batch arena (returns SL_ENOMEM
 * on failure); sl_col_set_str_ref stores the pointer as is. */
static inline void sl_col_set_i64(sl_col *c, int row, int64_t v)
{
	c->null[row] = 0;
	c->v.i64[row] = v;
}
static inline void sl_col_set_f64(sl_col *c, int row, double v)
{
	c->null[row] = 0;
	c->v.f64[row] = v;
}
static inline void sl_col_set_i128(sl_col *c, int row, sl_i128 v)
{
	c->null[row] = 0;
	c->v.i128[row] = v;
}
static inline void sl_col_set_str_ref(sl_col *c, int row, const char *p, int64_t len)
{
	c->null[row] = 0;
	c->v.str[row].ptr = p;
	c->v.str[row].len = len;
}
int sl_col_set_str(sl_batch *b, sl_col *c, int row, const char *p, int64_t len);
/* As sl_col_set_str, the copy in arena a (NUL-terminated).  0 or SL_ENOMEM. */
int sl_col_set_str_in(sl_arena *a, sl_col *c, int row, const char *p, int64_t len);
static inline void sl_col_set_null(sl_col *c, int row)
{
	c->null[row] = 1;
}

/*
 * Copies row `src_row` of every column of `src` into a new row of `dst`
 * (same column types), with the given op and wm.  Strings are copied into
 * dst's arena.  Returns the new row index, or a negative SL_E* code.
 */
int sl_batch_copy_row(sl_batch *dst, const sl_batch *src, int src_row, uint8_t op, int64_t wm);

/*
 * Appends n rows of src to dst, column by column, with their op and wm:
 * rows rows[0..n) (physical indexes, any order) or, when rows is NULL, the
 * rows first..first+n-1.  dst has room for them (nrows + n <= cap) and
 * src's column types for its dst->ncols columns.  Strings are copied into
 * dst's arena (NUL-terminated, as sl_col_set_str does), one allocation
 * per column.  The same values as n calls of sl_batch_copy_row, at a type
 * dispatch per column instead of per value (a hash exchange's copy).
 * Returns 0, or SL_ENOMEM with dst's nrows unchanged.
 */
int sl_batch_append_rows(sl_batch *dst, const sl_batch *src, const uint32_t *rows, int first,
                         int n);

/* Copies value (src, srow) into (dst, drow) of a column of the same
 * physical type; strings are copied into dst_batch's arena.  Returns 0 or
 * SL_ENOMEM. */
int sl_col_copy_value(sl_batch *dst_batch, sl_col *dst, int drow, const sl_col *src, int srow);

#endif
