/*
 * fmt_json_write.c - the schema-directed JSON writer that the JSON formats
 * share: one row of a batch appended as a JSON object, its fields in
 * schema order (the `json` format's encoder, fmt_json.c, and the
 * changelog formats' row images through fmt_json_envelope.c).
 *
 * Values are written as Flink's JSON format writes them: numbers as JSON
 * numbers (DECIMALs exactly, from their unscaled value; a non-finite
 * double as a string), strings escaped, BYTES in base64, temporal values
 * as strings in the SQL or ISO-8601 form ('<fmt>.timestamp-format.standard';
 * TIMESTAMP_LTZ's SQL form ends in 'Z'), ROW as a nested object, ARRAY as
 * an array and MAP as an object keyed by its keys' text.  Nothing is
 * allocated per row except the output's growth (the caller's sl_buf) and,
 * for a collection value, the one-row scratch columns it is unpacked
 * into.  Stateless: safe from any thread.
 */
#include "fmt_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/decimal.h"
#include "data/packed.h"
#include "base/timeutil.h"
#include "data/valtext.h"
#include "sluice.h"

/* sl__json_write_string: see fmt_json.h. */
int sl__json_write_string(const char *s, size_t len, sl_buf *out)
{
	static const char hx[] = "0123456789abcdef";
	if (sl_buf_reserve(out, len + 2))
		return SL_ENOMEM;
	out->p[out->len++] = '"';
	size_t run = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch >= 0x20 && ch != '"' && ch != '\\')
			continue;
		if (sl_buf_append(out, s + run, i - run))
			return SL_ENOMEM;
		run = i + 1;
		char e[6] = {'\\', 0};
		int n = 2;
		switch (ch) {
		case '"': e[1] = '"'; break;
		case '\\': e[1] = '\\'; break;
		case '\n': e[1] = 'n'; break;
		case '\r': e[1] = 'r'; break;
		case '\t': e[1] = 't'; break;
		case '\b': e[1] = 'b'; break;
		case '\f': e[1] = 'f'; break;
		default:
			e[1] = 'u', e[2] = '0', e[3] = '0', e[4] = hx[ch >> 4], e[5] = hx[ch & 15];
			n = 6;
		}
		if (sl_buf_append(out, e, (size_t)n))
			return SL_ENOMEM;
	}
	if (sl_buf_append(out, s + run, len - run) || sl_buf_putc(out, '"'))
		return SL_ENOMEM;
	return 0;
}

static int write_base64(const sl_str *s, sl_buf *out)
{
	static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	if (sl_buf_reserve(out, (size_t)s->len / 3 * 4 + 8))
		return SL_ENOMEM;
	char *o = out->p + out->len;
	const unsigned char *p = (const unsigned char *)s->ptr;
	int64_t i = 0;
	*o++ = '"';
	for (; i + 2 < s->len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		*o++ = al[v >> 18], *o++ = al[v >> 12 & 63], *o++ = al[v >> 6 & 63], *o++ = al[v & 63];
	}
	if (i < s->len) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < s->len ? (uint32_t)p[i + 1] << 8 : 0);
		*o++ = al[v >> 18], *o++ = al[v >> 12 & 63];
		*o++ = i + 1 < s->len ? al[v >> 6 & 63] : '=';
		*o++ = '=';
	}
	*o++ = '"';
	out->len = (size_t)(o - out->p);
	return 0;
}

static int write_value(const sl_col *col, int row, const sl_jopts *o, sl_buf *out);

/* An ARRAY as a JSON array, a MAP as an object whose keys are the keys'
 * text (valtext.c, as Flink's JSON format writes a MAP's keys); elements
 * go through write_value from a one-row scratch column (strings
 * referenced in the packed bytes). */
static int write_coll(const sl_col *col, int row, const sl_jopts *o, sl_buf *out)
{
	const sl_str *v = &col->v.str[row];
	int ismap = col->type.id == SL_T_MAP, rc = SL_ENOMEM;
	sl_col ec[2];
	sl_buf kt;
	sl_unpack u;
	memset(ec, 0, sizeof(ec));
	sl_buf_init(&kt);
	if (sl_unpack_open(&u, v->ptr, v->len))
		return SL_ESTATE;
	for (int k = 0; k <= ismap; k++)
		if (sl_col_new(&ec[k], col->type.row->fields[k].type, 1))
			goto done;
	if (sl_buf_putc(out, ismap ? '{' : '['))
		goto done;
	for (uint32_t i = 0; i < u.n; i++) {
		if (i && sl_buf_putc(out, ','))
			goto done;
		if (ismap) {
			sl_buf_clear(&kt);
			if ((rc = sl_unpack_next(&u, NULL, &ec[0], 0)) ||
			    (rc = sl_value_text(&ec[0], 0, "null", NULL, &kt)) ||
			    (rc = sl__json_write_string(kt.p ? kt.p : "", kt.len, out)) ||
			    (rc = sl_buf_putc(out, ':') ? SL_ENOMEM : 0))
				goto done;
		}
		if ((rc = sl_unpack_next(&u, NULL, &ec[ismap], 0)) ||
		    (rc = write_value(&ec[ismap], 0, o, out)))
			goto done;
	}
	rc = sl_buf_putc(out, ismap ? '}' : ']') ? SL_ENOMEM : 0;
done:
	sl_col_free(&ec[0]);
	sl_col_free(&ec[1]);
	sl_buf_deinit(&kt);
	return rc;
}

static int write_value(const sl_col *col, int row, const sl_jopts *o, sl_buf *out)
{
	char t[64];
	int n;
	sl_type ty = col->type;
	if (col->null[row])
		return sl_buf_append(out, "null", 4) ? SL_ENOMEM : 0;
	switch ((sl_type_id)ty.id) {
	case SL_T_BOOLEAN:
		return sl_buf_puts(out, col->v.i64[row] ? "true" : "false") ? SL_ENOMEM : 0;
	case SL_T_FLOAT:
	case SL_T_DOUBLE:
		n = sl_double_text(col->v.f64[row], ty.id == SL_T_FLOAT, t);
		if (!isfinite(col->v.f64[row]))
			return sl__json_write_string(t, (size_t)n, out);
		break;
	case SL_T_DECIMAL: n = sl_dec_format(col->v.i128[row], ty.scale, t); break;
	case SL_T_CHAR:
	case SL_T_VARCHAR:
		return sl__json_write_string(col->v.str[row].ptr, (size_t)col->v.str[row].len, out);
	case SL_T_BINARY:
	case SL_T_VARBINARY: return write_base64(&col->v.str[row], out);
	case SL_T_TIMESTAMP:
	case SL_T_TIMESTAMP_LTZ: {
		int ltz = ty.id == SL_T_TIMESTAMP_LTZ;
		n = sl_ts_format(col->v.i64[row], ty.precision, o->iso, ltz, t);
		if (ltz && !o->iso)
			t[n++] = 'Z'; /* Flink's SQL form of LTZ ends in 'Z' too */
		return sl__json_write_string(t, (size_t)n, out);
	}
	case SL_T_ROW:
		return sl__json_write_object(ty.row ? ty.row->fields : NULL, col->nchild, col->child,
		                             row, o, out);
	case SL_T_ARRAY:
	case SL_T_MAP: return write_coll(col, row, o, out);
	case SL_T_TINYINT:
	case SL_T_SMALLINT:
	case SL_T_INT:
	case SL_T_BIGINT: n = sprintf(t, "%lld", (long long)col->v.i64[row]); break;
	case SL_T_DATE:
		n = sl_date_format(col->v.i64[row], t);
		return sl__json_write_string(t, (size_t)n, out);
	case SL_T_TIME:
		n = sl_time_format(col->v.i64[row], ty.precision, t);
		return sl__json_write_string(t, (size_t)n, out);
	case SL_T_INTERVAL_DT:
		n = sl_interval_dt_text(col->v.i64[row], t);
		return sl__json_write_string(t, (size_t)n, out);
	case SL_T_INTERVAL_YM:
		n = sl_interval_ym_text(col->v.i64[row], t);
		return sl__json_write_string(t, (size_t)n, out);
	default: return sl_buf_append(out, "null", 4) ? SL_ENOMEM : 0;
	}
	return sl_buf_append(out, t, (size_t)n) ? SL_ENOMEM : 0;
}

/* sl__json_write_object: see fmt_json.h. */
int sl__json_write_object(const sl_field *fields, int n, const sl_col *cols, int row,
                          const sl_jopts *o, sl_buf *out)
{
	if (sl_buf_putc(out, '{'))
		return SL_ENOMEM;
	for (int i = 0; i < n; i++) {
		if ((i && sl_buf_putc(out, ',')) ||
		    sl__json_write_string(fields[i].name, strlen(fields[i].name), out) ||
		    sl_buf_putc(out, ':') || write_value(&cols[i], row, o, out))
			return SL_ENOMEM;
	}
	return sl_buf_putc(out, '}') ? SL_ENOMEM : 0;
}
