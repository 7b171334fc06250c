/*
 * fn_cast.c - CAST and TRY_CAST kernels.
 *
 * A cast step converts its argument vector into the node's type.  The
 * binder picks one row converter per (source, target) class pair at
 * compile time; the kernel loops over the selection, handles NULL, and on
 * a value that does not convert either raises "cannot cast 'abc' to INT"
 * (CAST) or yields NULL (TRY_CAST).
 *
 * Rules (Flink 1.20): integer narrowing and DECIMAL/DOUBLE to integer
 * check the range (DECIMAL and DOUBLE truncate toward zero); DECIMAL
 * rescaling rounds HALF_UP and checks the precision; text is trimmed
 * before parsing; BOOLEAN from text accepts 'true'/'false' in any case;
 * x to text uses valtext.h (Flink's spelling; a TIMESTAMP's fraction keeps
 * its precision's digits, as Flink's cast; a ROW, ARRAY or MAP is written
 * element by element with these same rules, cast_text) and then truncates to a
 * VARCHAR(n)/CHAR(n) length (CHAR pads); TIMESTAMP <-> TIMESTAMP_LTZ and
 * DATE <-> TIMESTAMP_LTZ go through the session time zone; BIGINT to
 * TIMESTAMP_LTZ reads epoch seconds.
 */
#include "expr_int.h"
#include "data/decimal.h"
#include "base/timeutil.h"
#include "data/valtext.h"
#include "data/packed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Converts row i of a into row i of o: 0 ok, 1 does not convert, <0 error. */
typedef int (*conv_fn)(sl_xctx *x, const sl_step *st, const sl_col *a, int i, sl_col *o);

static sl_type src_type(const sl_xctx *x, const sl_step *st)
{
	return x->p->regs[st->args[0]].type;
}

static int int_fits(int64_t v, int id)
{
	switch (id) {
	case SL_T_TINYINT: return v >= INT8_MIN && v <= INT8_MAX;
	case SL_T_SMALLINT: return v >= INT16_MIN && v <= INT16_MAX;
	case SL_T_INT: return v >= INT32_MIN && v <= INT32_MAX;
	default: return 1;
	}
}

/* ---- numeric converters ------------------------------------------------- */

static int c_int_int(sl_xctx *x, const sl_step *st, const sl_col *a, int i, sl_col *o)
{
	int64_t v = a->v.i64[i];
	if (st->type.id == SL_T_BOOLEAN)
		v = v != 0;
	else if (!int_fits(v, st->type.id))
		return 1;
	o->v.i64[i] = v;
	return 0;
}

static int c_int_dec(sl_xctx *x, const sl_step *st, const sl_col *a, int i, sl_col *o)
{
	sl_i128 v = (sl_i128)a->v.i64[i] * sl_pow10_i128(st->type.scale);
	if (!sl_dec_fits(v, st->type.precision))
		return 1;
	o->v.i128[i] = v;
	return 0;
}

static int c_int_f64(sl_xctx *x, const sl_step *st, const sl_col *a, int i, sl_col *o)
{
	double d = (double)a->v.i64[i];
	o->v.f64[i] = st->type.id == SL_T_FLOAT ? (double)(float)d : d;
	return 0;
}

static int c_dec_int(sl_xctx *x, const sl_step *st, const sl_col *a, int i, sl_col *o)
{
	sl_i128 v = a->v.i128[i] / sl_pow10_i128(src_type(x, st).scale);
	if (st->type.id == SL_T_BOOLEAN) {
		o->v.i64[i] = a->v.i128[i] != 0;
		return 0;
	}
	if (v > INT64_MAX || v < INT64_MIN || !int_fits((int64_t)v, st->type.id))
		return 1;
	o->v.i64[i] = (int64_t)v;
	return 0;
}

static int c_dec_dec(sl_xctx *x, const sl_step *st, const sl_col *a, int i, sl_col *o)
{
	return sl_dec_rescale(a->v.i128[i], src_type(x, st).scale, st->type.scale,
	                      st->type.precision, &o->v.i128[i]) ? 1 : 0;
}

static int c_dec_f64(sl_xctx *x, const sl_step *st, const sl_col *a, int i, sl_col *o)
{
	double d = sl_dec_to_double(a->v.i128[i], src_type(x, st).scale);
	o->v.f64[i] = st->type.id == SL_T_FLOAT ? (double)(float)d : d;
	return 0;
}

static int c_f64_int(sl_xctx *x, const sl_step *st, const sl_col *a, int i, sl_col *o)
{
	double d = a->v.f64[i];
	if (st->type.id == SL_T_BOOLEAN) {
		o->v.i64[i] = d != 0;
		return 0;
	}
	if (!(d > -9223372036854775808.0 && d < 9223372036854775808.0))
		return 1;
	int64_t v = (int64_t)d;
	if (!int_fits(v, st->type.id))
		return 1;
	o->v.i64[i] = v;
	return 0;
}

static int c_f64_dec(sl_xctx *x, const sl_step *st, const sl_col *a, int i, sl_col *o)
{
	return sl_dec_from_double(a->v.f64[i], st->type.precision, st->type.scale, &o->v.i128[i])
	           ? 1 : 0;
}

static int c_f64_f64(sl_xctx *x, const sl_step *st, const sl_col *a, int i, sl_col *o)
{
	double d = a->v.f64[i];
	o->v.f64[i] = st->type.id == SL_T_FLOAT ? (double)(float)d : d;
	return 0;
}

/* ---- temporal converters ------------------------------------------------ */

/* TIMESTAMP(p) precision: floor to a multiple of 10^(6-p) micros. */
static int64_t ts_trunc(int64_t us, int p)
{
	if (p >= 6)
		return us;
	int64_t unit = 1;
	for (int k = p; k < 6; k++)
		unit *= 10;
	return sl_floordiv(us, unit) * unit;
}

/* Wall clock in the session zone -> instant. */
static int64_t wall_to_utc(const sl_xctx *x, int64_t wall)
{
	int64_t off = sl__tz_off(x, wall);
	int64_t off2 = sl__tz_off(x, wall - off);
	return wall - off2;
}

static int c_time(sl_xctx *x, const sl_step *st, const sl_col *a, int i, sl_col *o)
{
	int from = src_type(x, st).id, to = st->type.id;
	int64_t v = a->v.i64[i];
	/* to a wall clock (TIMESTAMP semantics) first */
	if (from == SL_T_DATE)
		v *= SL_US_PER_DAY;
	else if (from == SL_T_TIMESTAMP_LTZ)
		v += sl__tz_off(x, v);
	else if (sl_type_is_integer(src_type(x, st)))
		v = v * SL_US_PER_SEC + sl__tz_off(x, v * SL_US_PER_SEC);
	switch (to) {
	case SL_T_DATE: v = sl_floordiv(v, SL_US_PER_DAY); break;
	case SL_T_TIME: v = ts_trunc(sl_floormod(v, SL_US_PER_DAY), st->type.precision); break;
	case SL_T_TIMESTAMP: v = ts_trunc(v, st->type.precision); break;
	case SL_T_TIMESTAMP_LTZ: v = ts_trunc(wall_to_utc(x, v), st->type.precision); break;
	default: /* to an integer: epoch seconds */
		if (from == SL_T_TIMESTAMP_LTZ)
			v = a->v.i64[i];
		v = sl_floordiv(v, SL_US_PER_SEC);
		if (!int_fits(v, to))
			return 1;
		break;
	}
	o->v.i64[i] = v;
	return 0;
}

/* ---- text --------------------------------------------------------------- */

static void trim_ws(const char **p, const char **e)
{
	while (*p < *e && (unsigned char)**p <= ' ')
		(*p)++;
	while (*e > *p && (unsigned char)(*e)[-1] <= ' ')
		(*e)--;
}

static int parse_i64(const char *p, const char *e, int64_t *out)
{
	int neg = 0;
	uint64_t v = 0;
	if (p < e && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	if (p == e)
		return -1;
	for (; p < e; p++) {
		if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v > (uint64_t)INT64_MAX + neg)
		return -1;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/*
 * CAST(text AS TINYINT..BIGINT), as Flink 1.20.3's BinaryStringDataUtil.toLong:
 * an optional sign, digits, and a fraction that is dropped (truncated
 * toward zero): '12.7' is 12, '-0.9' is 0, '.5' and '.' are 0, '5.' is 5;
 * anything else after the digits ('1.2.3', '12.x', '1e3') or no digit
 * and no '.' at all ('', '-') does not convert.  Checked on Flink 1.20.3.
 */
static int parse_int_text(const char *p, const char *e, int64_t *out)
{
	const char *dot = memchr(p, '.', (size_t)(e - p));
	if (!dot)
		return parse_i64(p, e, out);
	for (const char *q = dot + 1; q < e; q++)
		if (*q < '0' || *q > '9')
			return -1;
	const char *d = p + (p < dot && (*p == '-' || *p == '+'));
	if (d == dot) { /* no integer digits: '.5', '-.5', '.' */
		*out = 0;
		return 0;
	}
	return parse_i64(p, dot, out);
}

static int str_to(sl_xctx *x, const sl_step *st, const char *p, const char *e, sl_col *o, int i,
                  int cast);

static int c_str_to(sl_xctx *x, const sl_step *st, const sl_col *a, int i, sl_col *o)
{
	return str_to(x, st, a->v.str[i].ptr, a->v.str[i].ptr + a->v.str[i].len, o, i, 1);
}

int sl__cast_text(sl_xctx *x, const sl_step *st, const char *p, int64_t n, sl_col *o, int i)
{
	return str_to(x, st, p, p + n, o, i, 0);
}

/* Text (p, e) converted to st's type into row i of o: 0, or 1 when it does
 * not convert.  cast: a CAST (integers drop a fraction, parse_int_text),
 * not JSON_VALUE's RETURNING. */
static int str_to(sl_xctx *x, const sl_step *st, const char *p, const char *e, sl_col *o, int i,
                  int cast)
{
	sl_type t = st->type;
	trim_ws(&p, &e);
	size_t n = (size_t)(e - p);
	int64_t v;
	switch (t.id) {
	case SL_T_BOOLEAN:
		if (n == 4 && !strncasecmp(p, "true", 4))
			o->v.i64[i] = 1;
		else if (n == 5 && !strncasecmp(p, "false", 5))
			o->v.i64[i] = 0;
		else
			return 1;
		return 0;
	case SL_T_TINYINT: case SL_T_SMALLINT: case SL_T_INT: case SL_T_BIGINT:
		if ((cast ? parse_int_text(p, e, &v) : parse_i64(p, e, &v)) || !int_fits(v, t.id))
			return 1;
		o->v.i64[i] = v;
		return 0;
	case SL_T_DECIMAL:
		return sl_dec_parse(p, n, t.precision, t.scale, &o->v.i128[i]) ? 1 : 0;
	case SL_T_FLOAT: case SL_T_DOUBLE: {
		char buf[128], *end;
		if (n == 0 || n >= sizeof(buf))
			return 1;
		memcpy(buf, p, n);
		buf[n] = 0;
		double d = strtod(buf, &end);
		if (*end)
			return 1;
		o->v.f64[i] = t.id == SL_T_FLOAT ? (double)(float)d : d;
		return 0;
	}
	case SL_T_DATE:
		if (sl_date_parse(p, n, &v)) {
			if (sl_ts_parse(p, n, &v))
				return 1;
			v = sl_floordiv(v, SL_US_PER_DAY);
		}
		o->v.i64[i] = v;
		return 0;
	case SL_T_TIME:
		/* to milliseconds, as Flink 1.20.3 at run time (CAST(s AS TIME) of
		 * '10:11:12.5' prints 10:11:12.5 although the type is TIME(0)) */
		if (sl_time_parse(p, n, &v))
			return 1;
		o->v.i64[i] = ts_trunc(v, t.precision > 3 ? t.precision : 3);
		return 0;
	case SL_T_TIMESTAMP: case SL_T_TIMESTAMP_LTZ:
		if (sl_ts_parse(p, n, &v))
			return 1;
		if (t.id == SL_T_TIMESTAMP_LTZ)
			v = wall_to_utc(x, v);
		o->v.i64[i] = ts_trunc(v, t.precision);
		return 0;
	default:
		return 1;
	}
}

/* Length in bytes of the first `chars` UTF-8 characters of s. */
static int64_t utf8_prefix(const char *s, int64_t len, int64_t chars)
{
	int64_t i = 0;
	while (i < len && chars > 0) {
		i++;
		while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
			i++;
		chars--;
	}
	return i;
}

static int64_t utf8_count(const char *s, int64_t len)
{
	int64_t n = 0;
	for (int64_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

/* Stores text or bytes (p, n) as the result: truncated/padded to the target
 * length (characters: CHAR pads with spaces; bytes: BINARY pads with zero
 * bytes, as Flink's casts since 1.15), copied into the step's arena when
 * `copy`. */
static int put_text(sl_xctx *x, const sl_step *st, const char *p, int64_t n, int copy,
                    sl_col *o, int i)
{
	int32_t L = st->type.length;
	int64_t pad = 0;
	char padc = ' ';
	if (sl__type_is_char(st->type) && L != SL_STRING_LEN) {
		int64_t chars = utf8_count(p, n);
		if (chars > L)
			n = utf8_prefix(p, n, L);
		else if (st->type.id == SL_T_CHAR)
			pad = L - chars;
	} else if (sl_type_is_binary(st->type) && L != SL_STRING_LEN) {
		if (n > L)
			n = L;
		else if (st->type.id == SL_T_BINARY)
			pad = L - n;
		padc = 0;
	}
	if (!copy && !pad) {
		o->v.str[i].ptr = p;
		o->v.str[i].len = n;
		return 0;
	}
	char *d = sl_arena_alloc(sl__x_arena(x, st), (size_t)(n + pad + 1));
	if (!d)
		return sl_err_set(x->err, SL_ENOMEM, "out of memory in CAST");
	memcpy(d, p, (size_t)n);
	memset(d + n, padc, (size_t)pad);
	d[n + pad] = 0;
	o->v.str[i].ptr = d;
	o->v.str[i].len = n + pad;
	return 0;
}

static int c_str_str(sl_xctx *x, const sl_step *st, const sl_col *a, int i, sl_col *o)
{
	return put_text(x, st, a->v.str[i].ptr, a->v.str[i].len, 0, o, i);
}

/* The text of TIMESTAMP / TIMESTAMP_LTZ / TIME value (a, i) as CAST writes it
 * into t (>= 64 bytes): p fraction digits (c_ts_str); its length.  A TIME is
 * TIME(0) (docs/sql.md, Types), so its text has no fraction even when its value has
 * milliseconds (a TIME literal's): CAST(TIME '10:11:12.345' AS STRING) is
 * '10:11:12' in Flink 1.20.3, which prints the value itself as 10:11:12.345. */
static int ts_cast_text(const sl_col *a, int i, const char *tz, char *t)
{
	int64_t us = a->v.i64[i];
	if (a->type.id == SL_T_TIME) {
		int n = sl_time_format(us, a->type.precision, t);
		int p = a->type.precision > 6 ? 6 : a->type.precision;
		if (p > 0) {
			const char *dot = memchr(t, '.', (size_t)n);
			int have = dot ? n - (int)(dot - t) - 1 : 0;
			if (!dot)
				t[n++] = '.';
			for (; have < p; have++)
				t[n++] = '0';
			t[n] = 0;
		}
		return n;
	}
	if (a->type.id == SL_T_TIMESTAMP_LTZ) {
		int64_t off = 0;
		if (sl_tz_offset(tz, us, &off))
			off = 0;
		us += off;
	}
	int p = a->type.precision > 9 ? 9 : a->type.precision;
	int n = sl_ts_format(us, p, 0, 0, t);
	if (p > 0) {
		const char *dot = memchr(t, '.', (size_t)n);
		int have = dot ? n - (int)(dot - t) - 1 : 0;
		if (!dot)
			t[n++] = '.';
		for (; have < p; have++)
			t[n++] = '0';
		t[n] = 0;
	}
	return n;
}

/*
 * Value (c, row) as CAST(.. AS STRING) writes it, appended to b: a ROW as
 * "(f1, f2)", an ARRAY as "[e1, e2]", a MAP as "{k=v}" (Flink's
 * RowToStringCastRule, ArrayToStringCastRule, MapToStringCastRule), every
 * value inside by the cast's own rules: a NULL is "NULL", a TIMESTAMP keeps
 * p fraction digits, BINARY / VARBINARY are their bytes read as text (Flink:
 * [x'41'] is "[A]"); other values as valtext.h writes them.  Elements are
 * read through one-row columns in arena a (the program's scratch, reset
 * per call: no malloc per row).  0 or SL_ENOMEM / SL_ESTATE.
 */
static int cast_text(const sl_col *c, int row, const char *tz, sl_arena *a, sl_buf *b)
{
	char t[64];
	if (c->null[row])
		return sl_buf_puts(b, "NULL") ? SL_ENOMEM : 0;
	switch ((sl_type_id)c->type.id) {
	case SL_T_TIME:
	case SL_T_TIMESTAMP:
	case SL_T_TIMESTAMP_LTZ:
		return sl_buf_append(b, t, (size_t)ts_cast_text(c, row, tz, t)) ? SL_ENOMEM : 0;
	case SL_T_BINARY:
	case SL_T_VARBINARY:
		return sl_buf_append(b, c->v.str[row].ptr, (size_t)c->v.str[row].len) ? SL_ENOMEM : 0;
	case SL_T_ROW:
		if (sl_buf_putc(b, '('))
			return SL_ENOMEM;
		for (int k = 0; k < c->nchild; k++) {
			int rc = (k && sl_buf_append(b, ", ", 2)) ? SL_ENOMEM
			       : cast_text(&c->child[k], row, tz, a, b);
			if (rc)
				return rc;
		}
		return sl_buf_putc(b, ')') ? SL_ENOMEM : 0;
	case SL_T_ARRAY:
	case SL_T_MAP: {
		int ismap = c->type.id == SL_T_MAP;
		sl_col ec[2];
		sl_unpack u;
		if (sl_unpack_open(&u, c->v.str[row].ptr, c->v.str[row].len))
			return SL_ESTATE;
		for (int k = 0; k <= ismap; k++)
			if (sl_col_new_in(a, &ec[k], c->type.row->fields[k].type))
				return SL_ENOMEM;
		if (sl_buf_putc(b, ismap ? '{' : '['))
			return SL_ENOMEM;
		for (uint32_t e = 0; e < u.n; e++) {
			if (e && sl_buf_append(b, ", ", 2))
				return SL_ENOMEM;
			for (int k = 0; k <= ismap; k++) {
				int rc = (k && sl_buf_putc(b, '=')) ? SL_ENOMEM : sl_unpack_next(&u, a, &ec[k], 0);
				if (rc || (rc = cast_text(&ec[k], 0, tz, a, b)))
					return rc;
			}
		}
		return sl_buf_putc(b, ismap ? '}' : ']') ? SL_ENOMEM : 0;
	}
	default:
		return sl_value_text(c, row, "NULL", tz, b);
	}
}

static int c_to_str(sl_xctx *x, const sl_step *st, const sl_col *a, int i, sl_col *o)
{
	sl_buf *b = &x->p->tbuf;
	sl_buf_clear(b);
	int coll = a->type.id == SL_T_ROW || sl_type_is_collection(a->type);
	int rc = coll ? cast_text(a, i, x->ctx->tz, &x->p->scratch, b)
	              : sl_value_text(a, i, "", x->ctx->tz, b);
	if (rc == SL_ESTATE)
		return sl_err_set(x->err, SL_ERUNTIME, "CAST: a malformed %s value",
		                  coll ? "collection" : "value");
	if (rc)
		return sl_err_set(x->err, SL_ENOMEM, "out of memory in CAST");
	return put_text(x, st, b->p ? b->p : "", (int64_t)b->len, 1, o, i);
}

/*
 * CAST(TIMESTAMP(p) / TIMESTAMP_LTZ(p) AS STRING): as Flink 1.20 the fraction
 * always has p digits ("2020-02-29 00:00:00.000" for TIMESTAMP(3), none for
 * p = 0; LTZ in the session zone), unlike the printed form (valtext.c),
 * which drops trailing zeros.  Found by make test-flink (fn_cast).
 */
static int c_ts_str(sl_xctx *x, const sl_step *st, const sl_col *a, int i, sl_col *o)
{
	char t[64];
	int n = ts_cast_text(a, i, x->ctx->tz, t);
	return put_text(x, st, t, n, 1, o, i);
}

/* Writes a short text form of value (col, row) for error messages. */
static void value_snippet(const sl_col *c, int row, char *buf, size_t cap)
{
	sl_buf b;
	sl_buf_init(&b);
	if (sl_value_text(c, row, "NULL", NULL, &b) == 0 && b.p) {
		int quote = sl_type_phys(c->type) == SL_PHYS_STR;
		int n = b.len > 200 ? 200 : (int)b.len;
		snprintf(buf, cap, quote ? "'%.*s%s'" : "%.*s%s", n, b.p, b.len > 200 ? "..." : "");
	} else {
		snprintf(buf, cap, "?");
	}
	sl_buf_deinit(&b);
}

/* ---- the kernel and the binder ------------------------------------------ */

static int k_cast(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	conv_fn fn = (conv_fn)st->aux;
	int try_ = st->fn == SL_FN_TRY_CAST;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (a->null[i]) {
			o->null[i] = 1;
			continue;
		}
		o->null[i] = 0;
		int r = fn(x, st, a, i, o);
		if (r == 1) {
			if (try_) {
				o->null[i] = 1;
				continue;
			}
			char vb[256], tb[64];
			value_snippet(a, i, vb, sizeof(vb));
			return sl_err_set(x->err, SL_ERUNTIME, "cannot cast %s to %s", vb,
			                  sl__type_str(st->type, tb, sizeof(tb)));
		}
		if (r < 0)
			return r;
	});
	return 0;
}

/* NULL-typed source: every row NULL. */
static int k_cast_null(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, { o->null[i] = 1; });
	return 0;
}

static int num_class(sl_type t)
{
	if (t.id == SL_T_BOOLEAN || sl_type_is_integer(t))
		return 1;
	if (t.id == SL_T_DECIMAL)
		return 2;
	if (t.id == SL_T_FLOAT || t.id == SL_T_DOUBLE)
		return 3;
	return 0;
}

static conv_fn pick(sl_type f, sl_type t)
{
	static const conv_fn num[4][4] = {
		{0},
		{0, c_int_int, c_int_dec, c_int_f64},
		{0, c_dec_int, c_dec_dec, c_dec_f64},
		{0, c_f64_int, c_f64_dec, c_f64_f64},
	};
	int cf = num_class(f), ct = num_class(t);
	if (cf && ct)
		return num[cf][ct];
	if (sl__type_is_char(t) && (sl_type_is_timestamp(f) || f.id == SL_T_TIME))
		return c_ts_str;
	if (sl__type_is_char(t) || sl_type_is_binary(t))
		return sl__type_is_char(f) || sl_type_is_binary(f) ? c_str_str : c_to_str;
	if (sl__type_is_char(f))
		return c_str_to;
	int tf = f.id == SL_T_DATE || f.id == SL_T_TIME || sl_type_is_timestamp(f);
	int tt = t.id == SL_T_DATE || t.id == SL_T_TIME || sl_type_is_timestamp(t);
	if ((tf && (tt || sl_type_is_integer(t))) || (tt && sl_type_is_integer(f)))
		return c_time;
	if (f.id == t.id)
		return c_int_int; /* same-kind I64 (intervals) */
	return NULL;
}

/* Picks the converter for CAST / TRY_CAST. */
int sl__bind_cast(sl_prog *p, sl_step *st, sl_err *err)
{
	if (st->fn != SL_FN_CAST && st->fn != SL_FN_TRY_CAST)
		return SL_ENOTSUP;
	sl_type f = SL_X_ATYPE(p, st, 0), t = st->type;
	if (f.id == SL_T_NULL) {
		st->k = k_cast_null;
		return 0;
	}
	if (sl_type_equal(f, t) || (f.id == t.id && t.id == SL_T_ROW) ||
	    (sl_type_is_collection(f) && sl_type_same_bytes(f, t))) {
		st->k = sl__k_copy; /* a collection: its packed bytes are the target's */
		return 0;
	}
	if (sl_type_is_integer(f) && sl_type_is_integer(t) &&
	    (t.id >= f.id)) {
		st->k = sl__k_copy; /* widening: same int64 values */
		return 0;
	}
	conv_fn c = pick(f, t);
	if (!c) {
		char b1[64], b2[64];
		return sl_err_set(err, SL_EPLAN, "cannot cast %s to %s", sl__type_str(f, b1, sizeof(b1)),
		                  sl__type_str(t, b2, sizeof(b2)));
	}
	st->aux = (void *)c;
	st->k = k_cast;
	return 0;
}
