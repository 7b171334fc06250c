/*
 * valtext.c - the text form of every SQL value, as Flink spells it.
 *
 * The print sink, the CSV encoder, CAST(x AS STRING) and the test runner all
 * come here, so a value reads the same everywhere: TRUE/FALSE, integers,
 * DOUBLE and FLOAT as Java's Double.toString / Float.toString (shortest
 * round-trip digits, "5.0", "1.0E10", "1.0E-4"), DECIMAL with exactly its
 * scale, strings raw, BYTES as x'0a0b', DATE/TIME/TIMESTAMP per timeutil.c,
 * TIMESTAMP_LTZ shifted into the session zone, INTERVALs as "+0 00:00:05.000"
 * and "+1-02", ROW as "(a, b)", ARRAY as "[1, 2]" and MAP as "{a=1, b=2}".
 *
 * Stateless and thread-safe; appends into a caller-owned sl_buf (which
 * stops allocating once it reached its working size).
 */
#include "valtext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "javahash.h"
#include "packed.h"
#include "sluice.h"
#include "../base/timeutil.h"

/*
 * Shortest decimal digits of d that read back as d (as a double, or as a
 * float when is_float): fills digits (no dot, no trailing zeros, at least
 * one) and the decimal exponent of the first digit.  d is finite, nonzero.
 */
static void shortest_digits(double d, int is_float, char *digits, int *exp10)
{
	char tmp[40];
	int maxp = is_float ? 9 : 17;
	for (int prec = 1; prec <= maxp; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, fabs(d));
		if (is_float ? strtof(tmp, NULL) == (float)fabs(d) : strtod(tmp, NULL) == fabs(d))
			break;
	}
	/* tmp = "d.ddde[+-]xx" */
	int n = 0;
	const char *p = tmp;
	for (; *p && *p != 'e'; p++)
		if (*p != '.')
			digits[n++] = *p;
	while (n > 1 && digits[n - 1] == '0')
		n--;
	digits[n] = 0;
	*exp10 = *p == 'e' ? atoi(p + 1) : 0;
}

/*
 * sl_double_text: Java's Double.toString (is_float = 0) or Float.toString
 * (is_float = 1) of d into buf (>= 32 bytes); returns the length.
 */
int sl_double_text(double d, int is_float, char *buf)
{
	if (isnan(d))
		return sprintf(buf, "NaN");
	if (isinf(d))
		return sprintf(buf, d < 0 ? "-Infinity" : "Infinity");
	char *b = buf;
	if (signbit(d))
		*b++ = '-';
	if (d == 0) {
		strcpy(b, "0.0");
		return (int)(b - buf) + 3;
	}
	char dg[24];
	int e;
	shortest_digits(d, is_float, dg, &e);
	int n = (int)strlen(dg);
	double a = fabs(d);
	if (a >= 1e-3 && a < 1e7) {
		if (e >= 0) {
			for (int i = 0; i <= e; i++)
				*b++ = i < n ? dg[i] : '0';
			*b++ = '.';
			if (n > e + 1) {
				memcpy(b, dg + e + 1, (size_t)(n - e - 1));
				b += n - e - 1;
			} else {
				*b++ = '0';
			}
		} else {
			*b++ = '0';
			*b++ = '.';
			for (int i = 0; i < -e - 1; i++)
				*b++ = '0';
			memcpy(b, dg, (size_t)n);
			b += n;
		}
		*b = 0;
		return (int)(b - buf);
	}
	*b++ = dg[0];
	*b++ = '.';
	if (n > 1) {
		memcpy(b, dg + 1, (size_t)(n - 1));
		b += n - 1;
	} else {
		*b++ = '0';
	}
	b += sprintf(b, "E%d", e);
	return (int)(b - buf);
}

/* sl_interval_dt_text: "+D HH:MM:SS.mmm" of a day-time interval (micros). */
int sl_interval_dt_text(int64_t us, char *buf)
{
	uint64_t a = us < 0 ? (uint64_t)0 - (uint64_t)us : (uint64_t)us;
	uint64_t ms = a / 1000;
	return sprintf(buf, "%c%llu %02u:%02u:%02u.%03u", us < 0 ? '-' : '+',
	               (unsigned long long)(ms / 86400000), (unsigned)(ms / 3600000 % 24),
	               (unsigned)(ms / 60000 % 60), (unsigned)(ms / 1000 % 60),
	               (unsigned)(ms % 1000));
}

/* sl_interval_ym_text: "+Y-MM" of a year-month interval (months). */
int sl_interval_ym_text(int64_t months, char *buf)
{
	uint64_t a = months < 0 ? (uint64_t)0 - (uint64_t)months : (uint64_t)months;
	return sprintf(buf, "%c%llu-%02u", months < 0 ? '-' : '+', (unsigned long long)(a / 12),
	               (unsigned)(a % 12));
}

static int put_hex(sl_buf *out, const sl_str *s)
{
	static const char hx[] = "0123456789abcdef";
	if (sl_buf_reserve(out, (size_t)s->len * 2 + 3))
		return SL_ENOMEM;
	char *p = out->p + out->len;
	*p++ = 'x';
	*p++ = '\'';
	for (int64_t i = 0; i < s->len; i++) {
		unsigned char c = (unsigned char)s->ptr[i];
		*p++ = hx[c >> 4];
		*p++ = hx[c & 15];
	}
	*p++ = '\'';
	out->len = (size_t)(p - out->p);
	return 0;
}

static int put_row(const sl_col *c, int row, const char *null_text, const char *tz,
                   sl_buf *out)
{
	if (sl_buf_putc(out, '('))
		return SL_ENOMEM;
	for (int i = 0; i < c->nchild; i++) {
		if (i && sl_buf_append(out, ", ", 2))
			return SL_ENOMEM;
		int rc = sl_value_text(&c->child[i], row, null_text, tz, out);
		if (rc)
			return rc;
	}
	return sl_buf_putc(out, ')') ? SL_ENOMEM : 0;
}

/* The entries of a MAP value over u, in the order a java.util.HashMap
 * iterates them (javahash.h) when every key has a Java hashCode: their
 * byte offsets into off[] in that order (n <= cap).  Returns 1 when they
 * are in that order, 0 when the map keeps its own order, or SL_E*. */
static int java_order(sl_unpack u, sl_col *ec, const char **off, int n)
{
	uint32_t hash[64];
	int order[64];
	const char *at[64];
	for (int i = 0; i < n; i++) {
		at[i] = u.p;
		int rc = sl_unpack_next(&u, NULL, &ec[0], 0);
		if (rc)
			return rc;
		if (sl_java_hash(&ec[0], 0, &hash[i]))
			return 0;
		if ((rc = sl_unpack_skip(&u, ec[1].type)))
			return rc;
	}
	sl_java_map_order(hash, n, order);
	for (int i = 0; i < n; i++)
		off[i] = at[order[i]];
	return 1;
}

/*
 * An ARRAY as "[1, NULL, 3]", a MAP as "{a=1, b=NULL}" (nested NULLs as
 * "NULL"), each element through sl_value_text of a one-row scratch column
 * (strings referenced in place, not copied).  A MAP's entries come in Flink's printed order, java.util.HashMap's
 * (javahash.c: `MAP['b', 1, 'a', 2]` prints {a=2, b=1}), for maps of up
 * to 64 entries whose keys have a Java hashCode; others in their order.
 */
static int put_packed(const sl_col *c, int row, const char *tz, sl_buf *out)
{
	const sl_str *v = &c->v.str[row];
	int ismap = c->type.id == SL_T_MAP, rc = SL_ENOMEM, hashed = 0;
	sl_col ec[2];
	sl_unpack u;
	const char *off[64];
	memset(ec, 0, sizeof(ec));
	if (sl_unpack_open(&u, v->ptr, v->len))
		return SL_ESTATE;
	for (int k = 0; k <= ismap; k++)
		if (sl_col_new(&ec[k], c->type.row->fields[k].type, 1))
			goto done;
	if (ismap && u.n > 1 && u.n <= 64 && (hashed = java_order(u, ec, off, (int)u.n)) < 0) {
		rc = hashed;
		goto done;
	}
	if (sl_buf_putc(out, ismap ? '{' : '['))
		goto done;
	for (uint32_t i = 0; i < u.n; i++) {
		if (i && sl_buf_append(out, ", ", 2))
			goto done;
		if (hashed)
			u.p = off[i];
		for (int k = 0; k <= ismap; k++) {
			if (k && sl_buf_putc(out, '='))
				goto done;
			if ((rc = sl_unpack_next(&u, NULL, &ec[k], 0)) ||
			    (rc = sl_value_text(&ec[k], 0, "NULL", tz, out)))
				goto done;
		}
	}
	rc = sl_buf_putc(out, ismap ? '}' : ']') ? SL_ENOMEM : 0;
done:
	sl_col_free(&ec[0]);
	sl_col_free(&ec[1]);
	return rc;
}

/* The decimal digits of v into t (>= 21 bytes), as "%lld" writes them,
 * without printf (sprintf was 18% of a CSV file sink's instructions). */
static int put_i64(int64_t v, char *t)
{
	char d[24];
	int n = 0, len = 0;
	uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do {
		d[n++] = (char)('0' + a % 10);
		a /= 10;
	} while (a);
	if (v < 0)
		t[len++] = '-';
	while (n)
		t[len++] = d[--n];
	t[len] = 0;
	return len;
}

/* sl_value_text: see valtext.h. */
int sl_value_text(const sl_col *c, int row, const char *null_text, const char *tz, sl_buf *out)
{
	char t[64];
	int n = 0;
	const sl_type ty = c->type;
	if (c->null[row])
		return sl_buf_puts(out, null_text ? null_text : "NULL") ? SL_ENOMEM : 0;
	switch ((sl_type_id)ty.id) {
	case SL_T_NULL: return sl_buf_puts(out, null_text ? null_text : "NULL") ? SL_ENOMEM : 0;
	case SL_T_BOOLEAN: return sl_buf_puts(out, c->v.i64[row] ? "TRUE" : "FALSE") ? SL_ENOMEM : 0;
	case SL_T_TINYINT:
	case SL_T_SMALLINT:
	case SL_T_INT:
	case SL_T_BIGINT: n = put_i64(c->v.i64[row], t); break;
	case SL_T_FLOAT: n = sl_double_text(c->v.f64[row], 1, t); break;
	case SL_T_DOUBLE: n = sl_double_text(c->v.f64[row], 0, t); break;
	case SL_T_DECIMAL: n = sl_dec_format(c->v.i128[row], ty.scale, t); break;
	case SL_T_CHAR:
	case SL_T_VARCHAR:
		return sl_buf_append(out, c->v.str[row].ptr, (size_t)c->v.str[row].len) ? SL_ENOMEM
		                                                                       : 0;
	case SL_T_BINARY:
	case SL_T_VARBINARY: return put_hex(out, &c->v.str[row]);
	case SL_T_DATE: n = sl_date_format(c->v.i64[row], t); break;
	case SL_T_TIME: /* the value's milliseconds whatever the precision (Flink
	                 * prints the LocalTime: TIME '10:11:12.345' is a TIME(0)
	                 * printed 10:11:12.345) */
		n = sl_time_format(c->v.i64[row], ty.precision > 3 ? ty.precision : 3, t);
		break;
	case SL_T_TIMESTAMP: n = sl_ts_format(c->v.i64[row], ty.precision, 0, 0, t); break;
	case SL_T_TIMESTAMP_LTZ: {
		int64_t us = c->v.i64[row], off = 0;
		if (sl_tz_offset(tz, us, &off))
			off = 0;
		n = sl_ts_format(us + off, ty.precision, 0, 0, t);
		break;
	}
	case SL_T_INTERVAL_DT: n = sl_interval_dt_text(c->v.i64[row], t); break;
	case SL_T_INTERVAL_YM: n = sl_interval_ym_text(c->v.i64[row], t); break;
	case SL_T_ROW: return put_row(c, row, null_text, tz, out);
	case SL_T_ARRAY:
	case SL_T_MAP: return put_packed(c, row, tz, out);
	default: return SL_EINVAL;
	}
	return sl_buf_append(out, t, (size_t)n) ? SL_ENOMEM : 0;
}
