/*
 * conn_iceberg_stats.c - the column bounds of the Iceberg sink's data files
 * (docs/iceberg.md "Data files"): per column the smallest and largest
 * non-null value a file holds, kept while the file is written and encoded
 * at its close as the manifest entry's lower_bounds and upper_bounds maps
 * in the table spec's single-value serialization ("Binary single-value
 * serialization"), so that readers can skip files by value ranges.
 *
 * Serialization: boolean one byte; int and date 4 bytes, long, time and
 * timestamps 8 bytes, float and double IEEE 754, all little-endian;
 * decimal the unscaled value as two's-complement big-endian in the fewest
 * bytes; string UTF-8 and binary as is.  Strings are truncated to 16 code
 * points and binary to 16 bytes, as Iceberg's default metrics mode
 * truncate(16) does: a truncated lower bound is a prefix (still <= every
 * value), a truncated upper bound has its last code point (byte)
 * incremented (still >= every value), or is left out when no code point
 * can be.  NaN is no bound (the spec: bounds hold for the non-NaN values),
 * and -0.0 is below 0.0 (Iceberg compares floats so).  Columns without a
 * non-null (non-NaN) value have no bounds.
 */
#include "conn_iceberg_int.h"
#include "format/avro.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ICE_TRUNC 16

void sl__ice_stats_free(ice_stat *st, int n)
{
	for (int i = 0; st && i < n; i++) {
		sl_buf_deinit(&st[i].slo);
		sl_buf_deinit(&st[i].shi);
	}
	free(st);
}

/* Iceberg's order of floats: -0.0 before 0.0. */
static int dless(double a, double b)
{
	return a < b || (a == b && signbit(a) && !signbit(b));
}

static int sless(const sl_str *a, const sl_buf *b)
{
	size_t n = (size_t)a->len < b->len ? (size_t)a->len : b->len;
	int c = memcmp(a->ptr, b->p, n);
	return c < 0 || (c == 0 && (size_t)a->len < b->len);
}

static int sgreater(const sl_str *a, const sl_buf *b)
{
	size_t n = (size_t)a->len < b->len ? (size_t)a->len : b->len;
	int c = memcmp(a->ptr, b->p, n);
	return c > 0 || (c == 0 && (size_t)a->len > b->len);
}

static int sset(sl_buf *b, const sl_str *s)
{
	sl_buf_clear(b);
	return sl_buf_append(b, s->ptr, (size_t)s->len);
}

int sl__ice_stats_add(ice_stat *st, const ice_table *t, const sl_batch *b, int row)
{
	for (int c = 0; c < t->ncols; c++) {
		const sl_col *col = &b->cols[c];
		ice_stat *s = &st[c];
		if (col->null[row])
			continue;
		switch (sl_type_phys(t->cols[c].type)) {
		case SL_PHYS_I64: {
			int64_t v = col->v.i64[row];
			if (!s->has || v < s->ilo)
				s->ilo = v;
			if (!s->has || v > s->ihi)
				s->ihi = v;
			break;
		}
		case SL_PHYS_F64: {
			double v = col->v.f64[row];
			if (t->cols[c].type.id == SL_T_FLOAT)
				v = (float)v;
			if (isnan(v))
				continue;
			if (!s->has || dless(v, s->dlo))
				s->dlo = v;
			if (!s->has || dless(s->dhi, v))
				s->dhi = v;
			break;
		}
		case SL_PHYS_I128: {
			sl_i128 v = col->v.i128[row];
			if (!s->has || v < s->qlo)
				s->qlo = v;
			if (!s->has || v > s->qhi)
				s->qhi = v;
			break;
		}
		case SL_PHYS_STR: {
			const sl_str *v = &col->v.str[row];
			if ((!s->has || sless(v, &s->slo)) && sset(&s->slo, v))
				return -1;
			if ((!s->has || sgreater(v, &s->shi)) && sset(&s->shi, v))
				return -1;
			break;
		}
		default:
			continue;
		}
		s->has = 1;
	}
	return 0;
}

/* The length of the first n code points of UTF-8 p[0..len). */
static size_t cp_prefix(const uint8_t *p, size_t len, int n, int *whole)
{
	size_t i = 0;
	while (i < len && n > 0) {
		i++;
		while (i < len && (p[i] & 0xC0) == 0x80)
			i++;
		n--;
	}
	*whole = i >= len;
	return i;
}

/* Appends the UTF-8 encoding of code point c. */
static int put_cp(sl_buf *o, uint32_t c)
{
	char b[4];
	int n;
	if (c < 0x80) { b[0] = (char)c; n = 1; }
	else if (c < 0x800) { b[0] = (char)(0xC0 | c >> 6); b[1] = (char)(0x80 | (c & 0x3F)); n = 2; }
	else if (c < 0x10000) {
		b[0] = (char)(0xE0 | c >> 12); b[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		b[2] = (char)(0x80 | (c & 0x3F)); n = 3;
	} else {
		b[0] = (char)(0xF0 | c >> 18); b[1] = (char)(0x80 | ((c >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((c >> 6) & 0x3F)); b[3] = (char)(0x80 | (c & 0x3F)); n = 4;
	}
	return sl_buf_append(o, b, (size_t)n);
}

/* Decodes the code point at p (well-formed UTF-8 of n bytes). */
static uint32_t get_cp(const uint8_t *p, size_t n)
{
	if (n == 1)
		return p[0];
	uint32_t c = p[0] & (0xFF >> (n + 1));
	for (size_t i = 1; i < n; i++)
		c = c << 6 | (p[i] & 0x3F);
	return c;
}

/*
 * The upper bound of a string whose first ICE_TRUNC code points are
 * p[0..len) and which goes on: the prefix with its last code point that
 * can be incremented incremented (the surrogates skipped), the rest
 * dropped.  0, 1 when there is none (all U+10FFFF), -1 out of memory.
 */
static int str_upper(const uint8_t *p, size_t len, sl_buf *o)
{
	size_t end = len;
	while (end > 0) {
		size_t st = end - 1;
		while (st > 0 && (p[st] & 0xC0) == 0x80)
			st--;
		uint32_t c = get_cp(p + st, end - st) + 1;
		if (c == 0xD800)
			c = 0xE000;
		if (c <= 0x10FFFF)
			return sl_buf_append(o, p, st) || put_cp(o, c) ? -1 : 0;
		end = st;
	}
	return 1;
}

/* The same for binary: the last byte below 0xFF incremented. */
static int bin_upper(const uint8_t *p, size_t len, sl_buf *o)
{
	while (len > 0 && p[len - 1] == 0xFF)
		len--;
	if (len == 0)
		return 1;
	if (sl_buf_append(o, p, len))
		return -1;
	o->p[len - 1]++;
	return 0;
}

/* Appends the serialization of column c's bound (hi: upper) as Avro
 * bytes; 1 when the column has none. */
static int put_bound(sl_buf *out, const ice_table *t, const ice_stat *s, int c, int hi,
                     sl_buf *tmp)
{
	sl_type ty = t->cols[c].type;
	uint8_t b[16];
	size_t n = 0;
	sl_buf_clear(tmp);
	switch ((sl_type_id)ty.id) {
	case SL_T_BOOLEAN:
		b[0] = (uint8_t)((hi ? s->ihi : s->ilo) != 0);
		n = 1;
		break;
	case SL_T_TINYINT: case SL_T_SMALLINT: case SL_T_INT: case SL_T_DATE: {
		int32_t v = (int32_t)(hi ? s->ihi : s->ilo);
		memcpy(b, &v, 4);
		n = 4;
		break;
	}
	case SL_T_BIGINT: case SL_T_TIME: case SL_T_TIMESTAMP: case SL_T_TIMESTAMP_LTZ: {
		int64_t v = hi ? s->ihi : s->ilo;
		memcpy(b, &v, 8);
		n = 8;
		break;
	}
	case SL_T_FLOAT: {
		float v = (float)(hi ? s->dhi : s->dlo);
		memcpy(b, &v, 4);
		n = 4;
		break;
	}
	case SL_T_DOUBLE: {
		double v = hi ? s->dhi : s->dlo;
		memcpy(b, &v, 8);
		n = 8;
		break;
	}
	case SL_T_DECIMAL: {
		sl_i128 v = hi ? s->qhi : s->qlo;
		uint8_t be[16];
		for (int k = 15; k >= 0; k--, v >>= 8)
			be[k] = (uint8_t)v;
		int k = 0; /* drop leading bytes that only extend the sign */
		while (k < 15 && ((be[k] == 0 && !(be[k + 1] & 0x80)) ||
		                  (be[k] == 0xFF && (be[k + 1] & 0x80))))
			k++;
		n = (size_t)(16 - k);
		memcpy(b, be + k, n);
		break;
	}
	case SL_T_CHAR: case SL_T_VARCHAR: case SL_T_BINARY: case SL_T_VARBINARY: {
		const sl_buf *v = hi ? &s->shi : &s->slo;
		const uint8_t *p = (const uint8_t *)v->p;
		int whole, bin = ty.id == SL_T_BINARY || ty.id == SL_T_VARBINARY;
		size_t len = bin ? (v->len < ICE_TRUNC ? v->len : ICE_TRUNC)
		                 : cp_prefix(p, v->len, ICE_TRUNC, &whole);
		if (bin)
			whole = len == v->len;
		if (!hi || whole) {
			if (sl_buf_append(tmp, p, len))
				return -1;
		} else {
			int r = bin ? bin_upper(p, len, tmp) : str_upper(p, len, tmp);
			if (r)
				return r;
		}
		return sl_avro_bytes(out, tmp->p, tmp->len);
	}
	default:
		return 1;
	}
	return sl_avro_bytes(out, b, n);
}

/* One bounds map (hi: upper_bounds) as a ["null", map] union. */
static int put_map(sl_buf *out, const ice_table *t, const ice_stat *st, int hi, sl_buf *tmp)
{
	sl_buf items;
	int cnt = 0, rc = 0;
	sl_buf_init(&items);
	for (int c = 0; c < t->ncols && !rc; c++) {
		if (!st[c].has)
			continue;
		size_t mark = items.len;
		rc = sl_avro_long(&items, t->cols[c].id);
		int r = rc ? -1 : put_bound(&items, t, &st[c], c, hi, tmp);
		if (r == 1)
			items.len = mark; /* none for this column */
		else if (r)
			rc = -1;
		else
			cnt++;
	}
	if (!rc && cnt == 0)
		rc = sl_avro_long(out, 0);
	else if (!rc)
		rc = sl_avro_long(out, 1) | sl_avro_long(out, cnt) |
		     sl_buf_append(out, items.p, items.len) | sl_avro_long(out, 0);
	sl_buf_deinit(&items);
	return rc ? -1 : 0;
}

int sl__ice_stats_encode(const ice_stat *st, const ice_table *t, sl_buf *out)
{
	sl_buf tmp;
	sl_buf_init(&tmp);
	int rc = put_map(out, t, st, 0, &tmp) || put_map(out, t, st, 1, &tmp) ? -1 : 0;
	sl_buf_deinit(&tmp);
	return rc;
}
