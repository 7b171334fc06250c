/*
 * rowkey.c - group keys as byte strings (see rowkey.h).
 */
#include "rowkey.h"
#include "sluice.h"

#include <math.h>
#include <string.h>

int sl_rowkey_encode(const sl_batch *b, const int *cols, int n, int row, sl_buf *out)
{
	for (int i = 0; i < n; i++) {
		const sl_col *c = &b->cols[cols[i]];
		char isnull = (char)c->null[row];
		if (sl_buf_putc(out, isnull))
			return SL_ENOMEM;
		if (isnull)
			continue;
		int rc = 0;
		switch (sl_type_phys(c->type)) {
		case SL_PHYS_I64: rc = sl_buf_append(out, &c->v.i64[row], 8); break;
		case SL_PHYS_F64: {
			double d = c->v.f64[row];
			if (d == 0)
				d = 0; /* -0.0 -> 0.0 */
			if (isnan(d))
				d = NAN;
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
		case SL_PHYS_ROW: return SL_EINVAL;
		}
		if (rc)
			return SL_ENOMEM;
	}
	return 0;
}

int sl_rowkey_decode(const void *key, uint32_t klen, sl_batch *ob, sl_col *const *out, int n,
                     int row)
{
	const char *p = key, *end = p + klen;
	for (int i = 0; i < n; i++) {
		sl_col *c = out[i];
		if (p >= end)
			return SL_ESTATE;
		if (*p++) {
			sl_col_set_null(c, row);
			continue;
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
			if (sl_col_set_str(ob, c, row, p, len))
				return SL_ENOMEM;
			p += len;
			break;
		}
		case SL_PHYS_ROW: return SL_ESTATE;
		}
	}
	return (int)(p - (const char *)key);
}
