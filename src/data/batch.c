/*
 * batch.c - columnar batches (see batch.h).
 *
 * All vectors of a batch are allocated once in sl_batch_new, from one
 * malloc'd region per column, so recycling a batch (sl_batch_reset) costs
 * nothing but resetting counters and the string arena.  Rows are copied
 * one at a time (sl_batch_copy_row) or column by column for a set of rows
 * (sl_batch_append_rows, the exchange's copy).  Standalone columns
 * (sl_col_new, or sl_col_new_in from an arena) hold the one element
 * through which packed ARRAY and MAP values are read and written
 * (packed.h).
 */
#include "batch.h"
#include "sluice.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "../base/copy.h"

static size_t phys_width(sl_phys p)
{
	switch (p) {
	case SL_PHYS_I64: return sizeof(int64_t);
	case SL_PHYS_F64: return sizeof(double);
	case SL_PHYS_I128: return sizeof(sl_i128);
	case SL_PHYS_STR: return sizeof(sl_str);
	case SL_PHYS_ROW: return 0;
	}
	return 0;
}

static void col_deinit(sl_col *c)
{
	for (int i = 0; i < c->nchild; i++)
		col_deinit(&c->child[i]);
	free(c->child);
	free(c->null);
	free(c->v.data);
}

static int col_init(sl_col *c, sl_type t, int cap)
{
	memset(c, 0, sizeof(*c));
	c->type = t;
	c->null = calloc((size_t)cap, 1);
	if (!c->null)
		return SL_ENOMEM;
	sl_phys p = sl_type_phys(t);
	if (p == SL_PHYS_ROW) {
		int n = t.row ? t.row->nfields : 0;
		c->child = calloc((size_t)(n ? n : 1), sizeof(sl_col));
		if (!c->child)
			return SL_ENOMEM;
		c->nchild = n;
		for (int i = 0; i < n; i++)
			if (col_init(&c->child[i], t.row->fields[i].type, cap))
				return SL_ENOMEM;
		return 0;
	}
	/* 16-byte alignment for int128 */
	c->v.data = aligned_alloc(16, ((size_t)cap * phys_width(p) + 15) & ~(size_t)15);
	if (!c->v.data)
		return SL_ENOMEM;
	memset(c->v.data, 0, (size_t)cap * phys_width(p));
	return 0;
}

int sl_col_new(sl_col *c, sl_type t, int cap)
{
	return col_init(c, t, cap > 0 ? cap : 1);
}

void sl_col_free(sl_col *c)
{
	col_deinit(c);
	memset(c, 0, sizeof(*c));
}

int sl_col_new_in(sl_arena *a, sl_col *c, sl_type t)
{
	memset(c, 0, sizeof(*c));
	c->type = t;
	c->null = sl_arena_calloc(a, 16);
	if (!c->null)
		return SL_ENOMEM;
	c->null[0] = 1;
	if (sl_type_phys(t) != SL_PHYS_ROW) {
		c->v.data = sl_arena_calloc(a, 32); /* room to align an int128 up */
		if (!c->v.data)
			return SL_ENOMEM;
		if ((uintptr_t)c->v.data & 15)
			c->v.data = (void *)(((uintptr_t)c->v.data + 15) & ~(uintptr_t)15);
		if (sl_type_phys(t) == SL_PHYS_STR)
			c->v.str[0].ptr = "";
		return 0;
	}
	int n = t.row ? t.row->nfields : 0;
	c->child = sl_arena_calloc(a, sizeof(sl_col) * (size_t)(n ? n : 1));
	if (!c->child)
		return SL_ENOMEM;
	c->nchild = n;
	for (int i = 0; i < n; i++)
		if (sl_col_new_in(a, &c->child[i], t.row->fields[i].type))
			return SL_ENOMEM;
	return 0;
}

sl_batch *sl_batch_new(int ncols, const sl_type *types, int cap)
{
	if (cap <= 0)
		cap = SL_BATCH_ROWS;
	sl_batch *b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->ncols = ncols;
	b->cap = cap;
	sl_arena_init(&b->arena, 64 * 1024);
	b->cols = calloc((size_t)(ncols ? ncols : 1), sizeof(sl_col));
	b->op = calloc((size_t)cap, 1);
	b->wm = calloc((size_t)cap, sizeof(int64_t));
	if (!b->cols || !b->op || !b->wm)
		goto fail;
	for (int i = 0; i < ncols; i++)
		if (col_init(&b->cols[i], types[i], cap))
			goto fail;
	return b;
fail:
	sl_batch_free(b);
	return NULL;
}

void sl_batch_free(sl_batch *b)
{
	if (!b)
		return;
	if (b->cols)
		for (int i = 0; i < b->ncols; i++)
			col_deinit(&b->cols[i]);
	free(b->cols);
	free(b->op);
	free(b->wm);
	sl_arena_deinit(&b->arena);
	free(b);
}

void sl_batch_reset(sl_batch *b)
{
	b->nrows = 0;
	b->sel = NULL;
	b->nsel = 0;
	sl_arena_reset(&b->arena);
}

static void col_clear_row(sl_col *c, int row);

/* Why inline for scalar columns (ROW recurses out of line): the call per
 * column and row was 4% of the file benchmark (callgrind: 190
 * instructions a row for 4 columns with sl_batch_add_row). */
static inline void col_clear_one(sl_col *c, int row)
{
	c->null[row] = 1;
	sl_phys p = sl_type_phys(c->type);
	if (p == SL_PHYS_I64 || p == SL_PHYS_F64) {
		c->v.i64[row] = 0; /* a double's 0.0 is all zero bits */
	} else if (p == SL_PHYS_STR) {
		c->v.str[row].ptr = "";
		c->v.str[row].len = 0;
	} else if (p == SL_PHYS_I128) {
		c->v.i128[row] = 0;
	} else {
		col_clear_row(c, row);
	}
}

static void col_clear_row(sl_col *c, int row)
{
	c->null[row] = 1;
	for (int i = 0; i < c->nchild; i++)
		col_clear_one(&c->child[i], row);
}

/* sl_col_clear: see batch.h. */
void sl_col_clear(sl_col *c, int row)
{
	col_clear_one(c, row);
}

int sl_batch_add_row(sl_batch *b, uint8_t op, int64_t wm)
{
	assert(b->nrows < b->cap); /* callers flush a full batch first */
	int row = b->nrows++;
	b->op[row] = op;
	b->wm[row] = wm;
	for (int i = 0; i < b->ncols; i++)
		col_clear_one(&b->cols[i], row);
	return row;
}

int sl_col_set_str(sl_batch *b, sl_col *c, int row, const char *p, int64_t len)
{
	return sl_col_set_str_in(&b->arena, c, row, p, len);
}

int sl_col_set_str_in(sl_arena *a, sl_col *c, int row, const char *p, int64_t len)
{
	char *d = sl_arena_alloc_inl(a, (size_t)len + 1);
	if (!d)
		return SL_ENOMEM;
	if (len >= 8 && len <= 16) {
		/* group keys and ids are a few bytes: two overlapping 8-byte
		 * (or 4-byte) copies instead of a libc call (~20 instructions
		 * a value) */
		uint64_t w0, w1;
		memcpy(&w0, p, 8);
		memcpy(&w1, p + len - 8, 8);
		memcpy(d, &w0, 8);
		memcpy(d + len - 8, &w1, 8);
	} else if (len >= 4 && len < 8) {
		uint32_t w0, w1;
		memcpy(&w0, p, 4);
		memcpy(&w1, p + len - 4, 4);
		memcpy(d, &w0, 4);
		memcpy(d + len - 4, &w1, 4);
	} else {
		memcpy(d, p, (size_t)len);
	}
	d[len] = 0;
	sl_col_set_str_ref(c, row, d, len);
	return 0;
}

int sl_col_copy_value(sl_batch *db, sl_col *dst, int drow, const sl_col *src, int srow)
{
	dst->null[drow] = src->null[srow];
	switch (sl_type_phys(src->type)) {
	case SL_PHYS_I64: dst->v.i64[drow] = src->v.i64[srow]; break;
	case SL_PHYS_F64: dst->v.f64[drow] = src->v.f64[srow]; break;
	case SL_PHYS_I128: dst->v.i128[drow] = src->v.i128[srow]; break;
	case SL_PHYS_STR:
		if (src->null[srow]) {
			dst->v.str[drow].ptr = "";
			dst->v.str[drow].len = 0;
		} else if (sl_col_set_str(db, dst, drow, src->v.str[srow].ptr, src->v.str[srow].len)) {
			return SL_ENOMEM;
		}
		break;
	case SL_PHYS_ROW:
		for (int i = 0; i < src->nchild && i < dst->nchild; i++)
			if (sl_col_copy_value(db, &dst->child[i], drow, &src->child[i], srow))
				return SL_ENOMEM;
		break;
	}
	return 0;
}

int sl_batch_copy_row(sl_batch *dst, const sl_batch *src, int src_row, uint8_t op, int64_t wm)
{
	assert(dst->nrows < dst->cap && src_row >= 0 && src_row < src->nrows);
	assert(dst->ncols <= src->ncols);
	int row = dst->nrows++;
	dst->op[row] = op;
	dst->wm[row] = wm;
	for (int i = 0; i < dst->ncols; i++)
		if (sl_col_copy_value(dst, &dst->cols[i], row, &src->cols[i], src_row))
			return SL_ENOMEM;
	return row;
}


/* Row i of an append: rows[i], or first + i. */
#define APP_ROW(rows, first, i) ((rows) ? (int)(rows)[i] : (first) + (i))

/* Copies fixed-width values of n rows; contiguous ones with one memcpy. */
static void copy_fixed(char *dst, const char *src, size_t w, const uint32_t *rows, int first,
                       int n)
{
	if (!rows) {
		memcpy(dst, src + (size_t)first * w, (size_t)n * w);
		return;
	}
	switch (w) {
	case 1:
		for (int i = 0; i < n; i++)
			dst[i] = src[rows[i]];
		break;
	case 8:
		for (int i = 0; i < n; i++)
			memcpy(dst + (size_t)i * 8, src + (size_t)rows[i] * 8, 8);
		break;
	default:
		for (int i = 0; i < n; i++)
			memcpy(dst + (size_t)i * w, src + (size_t)rows[i] * w, w);
	}
}

/* Strings of n rows: their bytes in one arena allocation, each
 * NUL-terminated (what sl_col_set_str gives a consumer). */
static int copy_strs(sl_batch *db, sl_str *d, const sl_col *s, const uint32_t *rows, int first,
                     int n)
{
	size_t total = 0;
	for (int i = 0; i < n; i++) {
		int r = APP_ROW(rows, first, i);
		if (!s->null[r])
			total += (size_t)s->v.str[r].len + 1;
	}
	char *p = total ? sl_arena_alloc(&db->arena, total) : NULL;
	if (total && !p)
		return SL_ENOMEM;
	for (int i = 0; i < n; i++) {
		int r = APP_ROW(rows, first, i);
		if (s->null[r]) {
			d[i].ptr = "";
			d[i].len = 0;
			continue;
		}
		size_t len = (size_t)s->v.str[r].len;
		sl_copy_short(p, s->v.str[r].ptr, len);
		p[len] = 0;
		d[i].ptr = p;
		d[i].len = (int64_t)len;
		p += len + 1;
	}
	return 0;
}

/* n rows of column s into column d from row d0 on (same physical type). */
static int col_append(sl_batch *db, sl_col *d, int d0, const sl_col *s, const uint32_t *rows,
                      int first, int n)
{
	sl_phys p = sl_type_phys(s->type);
	if (rows && (p == SL_PHYS_I64 || p == SL_PHYS_F64)) {
		/* null flag and value in one pass (the common case of a hash
		 * exchange: 8-byte values picked by a row list); callgrind, the
		 * datagen window job at parallelism 2: 0.6% fewer instructions */
		uint8_t *dn = d->null + d0;
		int64_t *dv = d->v.i64 + d0;
		for (int i = 0; i < n; i++) {
			uint32_t r = rows[i];
			dn[i] = s->null[r];
			dv[i] = s->v.i64[r]; /* a double's bits as they are */
		}
		return 0;
	}
	copy_fixed((char *)d->null + d0, (const char *)s->null, 1, rows, first, n);
	switch (p) {
	case SL_PHYS_I64:
	case SL_PHYS_F64:
	case SL_PHYS_I128:
		copy_fixed((char *)d->v.data + (size_t)d0 * phys_width(p), s->v.data, phys_width(p),
		           rows, first, n);
		return 0;
	case SL_PHYS_STR:
		return copy_strs(db, d->v.str + d0, s, rows, first, n);
	case SL_PHYS_ROW:
		for (int i = 0; i < s->nchild && i < d->nchild; i++)
			if (col_append(db, &d->child[i], d0, &s->child[i], rows, first, n))
				return SL_ENOMEM;
		return 0;
	}
	return 0;
}

int sl_batch_append_rows(sl_batch *dst, const sl_batch *src, const uint32_t *rows, int first,
                         int n)
{
	assert(n >= 0 && dst->nrows + n <= dst->cap && dst->ncols <= src->ncols);
	int d0 = dst->nrows;
	copy_fixed((char *)dst->op + d0, (const char *)src->op, 1, rows, first, n);
	copy_fixed((char *)(dst->wm + d0), (const char *)src->wm, sizeof(int64_t), rows, first, n);
	for (int c = 0; c < dst->ncols; c++)
		if (col_append(dst, &dst->cols[c], d0, &src->cols[c], rows, first, n))
			return SL_ENOMEM;
	dst->nrows = d0 + n;
	return 0;
}
