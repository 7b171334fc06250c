/*
 * rowcodec.c - the byte encoding of row values (rowcodec.h): the key form
 * (doubles canonical, for state keys and rows compared by their bytes) and
 * the row form (values exact, for rows kept in state), one layout and one
 * decoder for both.
 *
 * It replaces two codecs that wrote the same layout: rowkey.c (the key
 * form, without ROW values) and the row bytes of exec/join_rows.c (the row
 * form); their bytes are kept exactly, so snapshots written by earlier
 * versions restore (tests/unit/test_rowcodec.c pins them per type).
 *
 * Called per row on hot paths (every keyed operator encodes a key per
 * row): no allocation here beyond the caller's growing buffer (and the
 * arena decoded strings are copied into), recursion only into ROW fields.
 * One value at a time (sl_rowcodec_value / _get / _skip) is the element
 * layout of packed ARRAY and MAP values (packed.c).  No state of its own:
 * any thread.
 */
#include "rowcodec.h"
#include "sluice.h"

#include <math.h>
#include <string.h>

static int enc_fields(const sl_col *c, int row, int canon, sl_buf *out);


/* Appends column c's value at row `row`; canon: doubles canonical.  Why
 * always inline, with ROW fields in a separate function: recursing into
 * enc_col kept the encoder out of line and made key encoding 25-35% slower
 * than the rowkey.c it replaced (a micro-benchmark of 20 M (STRING,
 * BIGINT) keys on a loaded 2-core machine: 43-51 ns/row vs 34); inlined,
 * the best of six runs is 11.2 ns/row vs rowkey.c's 13.3 (1 column: 5.4
 * vs 5.2, 3 columns: 17.0 vs 15.9), i.e. the same within the noise. */
static inline __attribute__((always_inline)) int enc_col(const sl_col *c, int row, int canon,
                                                         sl_buf *out)
{
	char isnull = (char)c->null[row];
	if (sl_buf_putc(out, isnull))
		return SL_ENOMEM;
	if (isnull)
		return 0;
	int rc = 0;
	switch (sl_type_phys(c->type)) {
	case SL_PHYS_I64: rc = sl_buf_append(out, &c->v.i64[row], 8); break;
	case SL_PHYS_F64: {
		double d = canon ? sl_rowcodec_canon(c->v.f64[row]) : c->v.f64[row];
		rc = sl_buf_append(out, &d, 8);
		break;
	}
	case SL_PHYS_I128: rc = sl_buf_append(out, &c->v.i128[row], 16); break;
	case SL_PHYS_STR: {
		uint32_t len = (uint32_t)c->v.str[row].len;
		rc = sl_buf_append(out, &len, 4);
		if (!rc)
			rc = sl_buf_append(out, c->v.str[row].ptr, len);
		break;
	}
	case SL_PHYS_ROW: return enc_fields(c, row, canon, out);
	}
	return rc ? SL_ENOMEM : 0;
}

/* The fields of the (non-NULL) ROW value of c at row `row`, in order. */
static int enc_fields(const sl_col *c, int row, int canon, sl_buf *out)
{
	for (int i = 0; i < c->nchild; i++)
		if (enc_col(&c->child[i], row, canon, out))
			return SL_ENOMEM;
	return 0;
}

int sl_rowcodec_key(const sl_batch *b, const int *cols, int n, int row, sl_buf *out)
{
	for (int i = 0; i < n; i++)
		if (enc_col(&b->cols[cols[i]], row, 1, out))
			return SL_ENOMEM;
	return 0;
}

int sl_rowcodec_row(const sl_batch *b, int row, sl_buf *out)
{
	for (int i = 0; i < b->ncols; i++)
		if (enc_col(&b->cols[i], row, 0, out))
			return SL_ENOMEM;
	return 0;
}

int sl_rowcodec_cols(const sl_batch *b, const int *cols, int n, int row, sl_buf *out)
{
	for (int i = 0; i < n; i++)
		if (enc_col(&b->cols[cols[i]], row, 0, out))
			return SL_ENOMEM;
	return 0;
}

int sl_rowcodec_key_null(const sl_batch *b, const int *cols, int n, int row)
{
	for (int i = 0; i < n; i++)
		if (b->cols[cols[i]].null[row])
			return 1;
	return 0;
}

static int dec_fields(const char **pp, const char *end, sl_arena *a, sl_col *c, int row);

/* Reads one column's value at *pp (advancing it) within [*pp, end);
 * strings are copied into arena a, or referenced in place when a is NULL.
 * Inline, ROW fields apart, for the reason enc_col is. */
static inline __attribute__((always_inline)) int dec_col(const char **pp, const char *end,
                                                         sl_arena *a, sl_col *c, int row)
{
	const char *p = *pp;
	if (p >= end)
		return SL_ESTATE;
	if (*p++) {
		/* NULL, value zeroed (ROW: its fields too), so a decoded row is
		 * whole without sl_batch_add_row's clearing (batch.h) */
		sl_col_clear(c, row);
		*pp = p;
		return 0;
	}
	switch (sl_type_phys(c->type)) {
	case SL_PHYS_I64:
	case SL_PHYS_F64:
		if (end - p < 8)
			return SL_ESTATE;
		c->null[row] = 0;
		memcpy(sl_type_phys(c->type) == SL_PHYS_I64 ? (void *)&c->v.i64[row]
		                                            : (void *)&c->v.f64[row], p, 8);
		p += 8;
		break;
	case SL_PHYS_I128:
		if (end - p < 16)
			return SL_ESTATE;
		c->null[row] = 0;
		memcpy(&c->v.i128[row], p, 16);
		p += 16;
		break;
	case SL_PHYS_STR: {
		uint32_t len;
		if (end - p < 4)
			return SL_ESTATE;
		memcpy(&len, p, 4);
		p += 4;
		if ((uint32_t)(end - p) < len)
			return SL_ESTATE;
		if (!a)
			sl_col_set_str_ref(c, row, p, len);
		else if (sl_col_set_str_in(a, c, row, p, len))
			return SL_ENOMEM;
		p += len;
		break;
	}
	case SL_PHYS_ROW: {
		/* q, not p: p's address taken would keep p in memory on every
		 * path (callgrind: 3 instructions a column more than rowkey.c's
		 * decoder, +1% on the Top-N benchmark) */
		const char *q = p;
		c->null[row] = 0;
		int rc = dec_fields(&q, end, a, c, row);
		if (rc)
			return rc;
		p = q;
		break;
	}
	}
	*pp = p;
	return 0;
}

/* The fields of a non-NULL ROW value of c, in order. */
static int dec_fields(const char **pp, const char *end, sl_arena *a, sl_col *c, int row)
{
	for (int i = 0; i < c->nchild; i++) {
		int rc = dec_col(pp, end, a, &c->child[i], row);
		if (rc)
			return rc;
	}
	return 0;
}

int sl_rowcodec_decode(const void *key, uint32_t klen, sl_batch *ob, sl_col *const *out, int n,
                       int row)
{
	const char *p = key, *end = p + klen;
	for (int i = 0; i < n; i++) {
		int rc = dec_col(&p, end, &ob->arena, out[i], row);
		if (rc)
			return rc;
	}
	return (int)(p - (const char *)key);
}

int sl_rowcodec_decode_cols(const void *bytes, uint32_t len, sl_batch *b, sl_col *cols, int n,
                            int row)
{
	const char *p = bytes, *end = p + len;
	for (int i = 0; i < n; i++) {
		int rc = dec_col(&p, end, &b->arena, &cols[i], row);
		if (rc)
			return rc;
	}
	return p == end ? 0 : SL_ESTATE;
}

int sl_rowcodec_value(const sl_col *c, int row, sl_buf *out)
{
	return enc_col(c, row, 0, out);
}

int sl_rowcodec_get(const char **pp, const char *end, sl_arena *a, sl_col *c, int row)
{
	return dec_col(pp, end, a, c, row);
}

int sl_rowcodec_skip(sl_type t, const char **pp, const char *end)
{
	const char *p = *pp;
	if (p >= end)
		return SL_ESTATE;
	if (*p++) {
		*pp = p;
		return 0;
	}
	switch (sl_type_phys(t)) {
	case SL_PHYS_I64:
	case SL_PHYS_F64:
	case SL_PHYS_I128: {
		size_t w = sl_type_phys(t) == SL_PHYS_I128 ? 16 : 8;
		if ((size_t)(end - p) < w)
			return SL_ESTATE;
		p += w;
		break;
	}
	case SL_PHYS_STR: {
		uint32_t len;
		if (end - p < 4)
			return SL_ESTATE;
		memcpy(&len, p, 4);
		p += 4;
		if ((uint32_t)(end - p) < len)
			return SL_ESTATE;
		p += len;
		break;
	}
	case SL_PHYS_ROW:
		for (int f = 0; t.row && f < t.row->nfields; f++)
			if (sl_rowcodec_skip(t.row->fields[f].type, &p, end))
				return SL_ESTATE;
		break;
	}
	*pp = p;
	return 0;
}

/* ---- equality as the key form defines it -------------------------------------- */

static int eq_value(sl_type t, const char **pa, const char *ea, const char **pb, const char *eb);

/* Compares one encoded column of type t at *pa and *pb (advancing both):
 * 1 equal, 0 not (or malformed). */
static int eq_col(sl_type t, const char **pa, const char *ea, const char **pb, const char *eb)
{
	if (*pa >= ea || *pb >= eb)
		return 0;
	char na = *(*pa)++, nb = *(*pb)++;
	if (na != nb)
		return 0;
	return na ? 1 : eq_value(t, pa, ea, pb, eb);
}

static int eq_value(sl_type t, const char **pa, const char *ea, const char **pb, const char *eb)
{
	const char *a = *pa, *b = *pb;
	size_t n;
	switch (sl_type_phys(t)) {
	case SL_PHYS_F64: {
		double x, y;
		if (ea - a < 8 || eb - b < 8)
			return 0;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		*pa = a + 8, *pb = b + 8;
		return x == y || (isnan(x) && isnan(y)); /* -0.0 == 0.0; one NaN */
	}
	case SL_PHYS_ROW:
		for (int f = 0; t.row && f < t.row->nfields; f++)
			if (!eq_col(t.row->fields[f].type, pa, ea, pb, eb))
				return 0;
		return 1;
	case SL_PHYS_STR: {
		uint32_t la, lb;
		if (ea - a < 4 || eb - b < 4)
			return 0;
		memcpy(&la, a, 4);
		memcpy(&lb, b, 4);
		if (la != lb || (uint32_t)(ea - a - 4) < la || (uint32_t)(eb - b - 4) < lb)
			return 0;
		n = 4 + (size_t)la;
		break;
	}
	default:
		n = sl_type_phys(t) == SL_PHYS_I128 ? 16 : 8;
		if ((size_t)(ea - a) < n || (size_t)(eb - b) < n)
			return 0;
	}
	*pa = a + n, *pb = b + n;
	return memcmp(a, b, n) == 0;
}

int sl_rowcodec_equal(const sl_type *types, int n, const void *a, uint32_t alen, const void *b,
                      uint32_t blen)
{
	const char *pa = a, *ea = pa + alen, *pb = b, *eb = pb + blen;
	for (int i = 0; i < n; i++)
		if (!eq_col(types[i], &pa, ea, &pb, eb))
			return 0;
	return pa == ea && pb == eb;
}

int sl_rowcodec_forms_differ(const sl_type *types, int n)
{
	for (int i = 0; i < n; i++) {
		int phys = sl_type_phys(types[i]);
		if (phys == SL_PHYS_F64)
			return 1;
		if (phys == SL_PHYS_ROW && types[i].row) {
			for (int f = 0; f < types[i].row->nfields; f++)
				if (sl_rowcodec_forms_differ(&types[i].row->fields[f].type, 1))
					return 1;
		}
	}
	return 0;
}
