/*
 * conn_pgcdc_proto.c - bytes from PostgreSQL into sluice values, for the
 * postgres-cdc source (conn_pgcdc.c): pgoutput's messages (protocol
 * version 1: Begin, Commit, Relation, Insert, Update, Delete, Truncate;
 * Origin, Type and logical Messages are recognised and skipped), lines of
 * COPY's text format (the initial snapshot) and values in PostgreSQL's
 * text output.  See conn_pgcdc.h for the contracts.
 *
 * Every read is bounds-checked against the message's length: the bytes
 * come from the network and tests/fuzz/fuzz_pgoutput.c feeds this file
 * arbitrary input.  No allocation except the COPY scratch buffer and the
 * batch arena.
 */
#include "conn_pgcdc.h"
#include "base/buf.h"
#include "base/timeutil.h"
#include "data/decimal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t sl__pgo_get64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return (int64_t)v;
}

void sl__pgo_put64(uint8_t *p, int64_t v)
{
	for (int i = 7; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v = (int64_t)((uint64_t)v >> 8);
	}
}

/* ---- pgoutput messages ----------------------------------------------------- */

typedef struct rd {
	const uint8_t *p, *e;
	int bad;
} rd;

static uint8_t u8(rd *r)
{
	if (r->e - r->p < 1) {
		r->bad = 1;
		return 0;
	}
	return *r->p++;
}

static uint32_t u32(rd *r)
{
	if (r->e - r->p < 4) {
		r->bad = 1;
		r->p = r->e;
		return 0;
	}
	uint32_t v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 |
	             r->p[3];
	r->p += 4;
	return v;
}

static uint16_t u16(rd *r)
{
	if (r->e - r->p < 2) {
		r->bad = 1;
		r->p = r->e;
		return 0;
	}
	uint16_t v = (uint16_t)(r->p[0] << 8 | r->p[1]);
	r->p += 2;
	return v;
}

static int64_t i64(rd *r)
{
	if (r->e - r->p < 8) {
		r->bad = 1;
		r->p = r->e;
		return 0;
	}
	int64_t v = sl__pgo_get64(r->p);
	r->p += 8;
	return v;
}

/* A NUL-terminated string inside the message. */
static const char *str(rd *r)
{
	const uint8_t *z = r->bad ? NULL : memchr(r->p, 0, (size_t)(r->e - r->p));
	if (!z) {
		r->bad = 1;
		r->p = r->e;
		return "";
	}
	const char *s = (const char *)r->p;
	r->p = z + 1;
	return s;
}

static int tuple(rd *r, sl_pgo_val *v, int *n, char *emsg, size_t cap)
{
	int nc = u16(r);
	if (r->bad)
		return -1;
	if (nc > SL_PGO_MAX_COLS) {
		snprintf(emsg, cap, "a tuple of %d columns (at most %d)", nc, SL_PGO_MAX_COLS);
		return -1;
	}
	for (int i = 0; i < nc; i++) {
		char k = (char)u8(r);
		v[i].kind = k;
		v[i].p = NULL;
		v[i].len = 0;
		if (k == 't' || k == 'b') {
			uint32_t l = u32(r);
			if (r->bad || l > (uint32_t)(r->e - r->p)) {
				r->bad = 1;
				break;
			}
			if (k == 'b') {
				snprintf(emsg, cap, "column %d is in binary format (only text is asked for)", i + 1);
				return -1;
			}
			v[i].p = (const char *)r->p;
			v[i].len = (int32_t)l;
			r->p += l;
		} else if (k != 'n' && k != 'u') {
			if (!r->bad)
				snprintf(emsg, cap, "unknown tuple value kind 0x%02x in column %d", (uint8_t)k,
				         i + 1);
			return -1;
		}
	}
	*n = nc;
	return r->bad ? -1 : 0;
}

int sl__pgo_parse(const uint8_t *buf, size_t len, sl_pgo_msg *m, const sl_pgo_arrays *a,
                  char *emsg, size_t cap)
{
	rd r = {buf, buf + len, 0};
	memset(m, 0, sizeof *m);
	emsg[0] = 0;
	m->type = (char)u8(&r);
	switch (m->type) {
	case 'B':
		m->lsn = i64(&r);
		m->ts = i64(&r);
		m->xid = u32(&r);
		break;
	case 'C':
		m->flags = u8(&r);
		m->lsn = i64(&r);
		m->end_lsn = i64(&r);
		m->ts = i64(&r);
		break;
	case 'O':
		i64(&r);
		str(&r);
		break;
	case 'Y':
		u32(&r);
		str(&r);
		str(&r);
		break;
	case 'M':
		u8(&r);
		i64(&r);
		str(&r);
		if (!r.bad) {
			uint32_t l = u32(&r);
			if (l > (uint32_t)(r.e - r.p))
				r.bad = 1;
			else
				r.p += l;
		}
		break;
	case 'R': {
		m->relid = u32(&r);
		m->nsp = str(&r);
		m->name = str(&r);
		m->replident = (char)u8(&r);
		int nc = u16(&r);
		if (nc > SL_PGO_MAX_COLS) {
			snprintf(emsg, cap, "a relation of %d columns (at most %d)", nc, SL_PGO_MAX_COLS);
			return -1;
		}
		for (int i = 0; i < nc && !r.bad; i++) {
			a->rel[i].flags = u8(&r);
			a->rel[i].name = str(&r);
			a->rel[i].typoid = u32(&r);
			a->rel[i].typmod = (int32_t)u32(&r);
		}
		m->ncols = nc;
		break;
	}
	case 'I':
		m->relid = u32(&r);
		if (u8(&r) != 'N' && !r.bad) {
			snprintf(emsg, cap, "an Insert without its new tuple");
			return -1;
		}
		if (tuple(&r, a->new_, &m->nnew, emsg, cap))
			goto bad;
		break;
	case 'U': {
		m->relid = u32(&r);
		char k = (char)u8(&r);
		if (k == 'K' || k == 'O') {
			m->old_kind = k;
			if (tuple(&r, a->old, &m->nold, emsg, cap))
				goto bad;
			k = (char)u8(&r);
		}
		if (k != 'N' && !r.bad) {
			snprintf(emsg, cap, "an Update without its new tuple");
			return -1;
		}
		if (tuple(&r, a->new_, &m->nnew, emsg, cap))
			goto bad;
		break;
	}
	case 'D': {
		m->relid = u32(&r);
		char k = (char)u8(&r);
		if (k != 'K' && k != 'O' && !r.bad) {
			snprintf(emsg, cap, "a Delete without its old key or row");
			return -1;
		}
		m->old_kind = k;
		if (tuple(&r, a->old, &m->nold, emsg, cap))
			goto bad;
		break;
	}
	case 'T': {
		uint32_t n = u32(&r);
		m->flags = u8(&r);
		if (n > SL_PGO_MAX_COLS) {
			snprintf(emsg, cap, "a Truncate of %u relations (at most %d)", n, SL_PGO_MAX_COLS);
			return -1;
		}
		for (uint32_t i = 0; i < n && !r.bad; i++)
			a->trunc_rel[i] = u32(&r);
		m->ntrunc = (int)n;
		break;
	}
	default:
		snprintf(emsg, cap, "unknown pgoutput message type 0x%02x", (uint8_t)m->type);
		return -1;
	}
	if (!r.bad)
		return 0;
bad:
	if (!emsg[0])
		snprintf(emsg, cap, "a truncated '%c' message (%zu bytes)", m->type, len);
	return -1;
}

/* ---- COPY text lines ---------------------------------------------------------- */

static int octal(char c) { return c >= '0' && c <= '7'; }

static int hexv(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	     : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int sl__pgo_copy_line(const char *line, size_t len, sl_pgo_val *vals, int cap,
                      sl_buf *scratch)
{
	if (len && line[len - 1] == '\n')
		len--;
	sl_buf_clear(scratch);
	/* unescaping never lengthens a field: one reservation holds them all */
	if (sl_buf_reserve(scratch, len + 1))
		return -1;
	char *out = (char *)scratch->p;
	size_t o = 0;
	int n = 0;
	size_t i = 0;
	for (;;) {
		if (n >= cap)
			return -1;
		size_t start = o;
		if (len - i >= 2 && line[i] == '\\' && line[i + 1] == 'N' &&
		    (i + 2 == len || line[i + 2] == '\t')) {
			vals[n].kind = 'n';
			vals[n].p = NULL;
			vals[n].len = 0;
			i += 2;
		} else {
			while (i < len && line[i] != '\t') {
				char c = line[i++];
				if (c != '\\' || i == len) {
					out[o++] = c;
					continue;
				}
				c = line[i++];
				switch (c) {
				case 'b': out[o++] = '\b'; break;
				case 'f': out[o++] = '\f'; break;
				case 'n': out[o++] = '\n'; break;
				case 'r': out[o++] = '\r'; break;
				case 't': out[o++] = '\t'; break;
				case 'v': out[o++] = '\v'; break;
				case 'x':
					if (i < len && hexv(line[i]) >= 0) {
						int v = hexv(line[i++]);
						if (i < len && hexv(line[i]) >= 0)
							v = v * 16 + hexv(line[i++]);
						out[o++] = (char)v;
					} else {
						out[o++] = 'x';
					}
					break;
				default:
					if (octal(c)) {
						int v = c - '0';
						for (int k = 0; k < 2 && i < len && octal(line[i]); k++)
							v = v * 8 + (line[i++] - '0');
						out[o++] = (char)v;
					} else {
						out[o++] = c;
					}
				}
			}
			vals[n].kind = 't';
			vals[n].p = out + start;
			vals[n].len = (int32_t)(o - start);
		}
		n++;
		if (i >= len)
			break;
		i++; /* the tab */
	}
	scratch->len = o;
	return n;
}

/* ---- values ------------------------------------------------------------------- */

static int bad_value(char *emsg, size_t cap, const char *p, size_t n, const char *why)
{
	snprintf(emsg, cap, "'%.*s'%s%s", (int)(n > 64 ? 64 : n), p, n > 64 ? "..." : "", why);
	return -1;
}

/* PostgreSQL prints integers as [-]digits: up to 18 digits are read
 * here (no overflow possible), anything else by strtoll as before. */
static int parse_i64(const char *p, size_t n, int64_t lo, int64_t hi, int64_t *out)
{
	size_t i = n > 0 && p[0] == '-';
	if (n > i && n - i <= 18) {
		int64_t v = 0;
		size_t j = i;
		while (j < n && p[j] >= '0' && p[j] <= '9')
			v = v * 10 + (p[j++] - '0');
		if (j == n) {
			v = i ? -v : v;
			if (v < lo || v > hi)
				return -1;
			*out = v;
			return 0;
		}
	}
	char tmp[32];
	if (n == 0 || n >= sizeof tmp)
		return -1;
	memcpy(tmp, p, n);
	tmp[n] = 0;
	char *end;
	errno = 0;
	long long v = strtoll(tmp, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int parse_f64(const char *p, size_t n, double *out)
{
	char tmp[64];
	if (n == 0 || n >= sizeof tmp)
		return -1;
	memcpy(tmp, p, n);
	tmp[n] = 0;
	if (!strcmp(tmp, "NaN")) {
		*out = NAN;
		return 0;
	}
	if (!strcmp(tmp, "Infinity") || !strcmp(tmp, "-Infinity")) {
		*out = tmp[0] == '-' ? -INFINITY : INFINITY;
		return 0;
	}
	char *end;
	errno = 0;
	double v = strtod(tmp, &end);
	if (*end || (errno && v != 0 && !isinf(v)))
		return -1;
	*out = v;
	return 0;
}

/* A timestamptz printed with TimeZone UTC ends in "+00": drop it. */
static size_t strip_utc(const char *p, size_t n)
{
	if (n > 3 && p[n - 3] == '+' && p[n - 2] == '0' && p[n - 1] == '0')
		return n - 3;
	if (n > 6 && !memcmp(p + n - 6, "+00:00", 6))
		return n - 6;
	return (size_t)-1;
}

/*
 * An interval as IntervalStyle postgres prints it: "1 year 2 mons -3 days
 * +04:05:06.789", "00:00:00", "-00:00:00.5", "2562047788:00:54.775807"
 * (hours unbounded).  Sets its months, days and microseconds, as
 * PostgreSQL keeps them apart.  0, -1 malformed, -2 out of range.
 */
static int parse_interval(const char *p, size_t n, int64_t *months, int64_t *days, int64_t *us)
{
	const char *e = p + n;
	int any = 0;
	*months = *days = *us = 0;
	while (p < e) {
		while (p < e && *p == ' ')
			p++;
		if (p >= e)
			break;
		int neg = 0;
		if (*p == '-' || *p == '+')
			neg = *p++ == '-';
		const char *q = p;
		int64_t v = 0;
		while (q < e && *q >= '0' && *q <= '9') {
			if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *q - '0', &v))
				return -2;
			q++;
		}
		if (q == p)
			return -1;
		if (q < e && *q == ':') { /* [-]H:MM:SS[.ffffff] */
			int64_t mi = 0, se = 0, fr = 0, t;
			if (e - q < 6 || q[3] != ':' || q[1] < '0' || q[1] > '5' || q[2] < '0' ||
			    q[2] > '9' || q[4] < '0' || q[4] > '5' || q[5] < '0' || q[5] > '9')
				return -1;
			mi = (q[1] - '0') * 10 + (q[2] - '0');
			se = (q[4] - '0') * 10 + (q[5] - '0');
			q += 6;
			if (q < e && *q == '.') {
				int k = 0;
				for (q++; q < e && *q >= '0' && *q <= '9'; q++, k++)
					if (k < 6)
						fr = fr * 10 + (*q - '0');
				if (!k)
					return -1;
				for (; k < 6; k++)
					fr *= 10;
			}
			if (__builtin_mul_overflow(v, (int64_t)3600000000, &t) ||
			    __builtin_add_overflow(t, mi * 60000000 + se * 1000000 + fr, &t))
				return -2;
			if (__builtin_add_overflow(*us, neg ? -t : t, us))
				return -2;
			p = q;
			any = 1;
			continue;
		}
		if (q >= e || *q != ' ')
			return -1;
		p = q + 1;
		q = p;
		while (q < e && *q >= 'a' && *q <= 'z')
			q++;
		size_t ul = (size_t)(q - p);
		int64_t *to, mul = 1;
#define UNIT(s) (ul == sizeof(s) - 1 && !memcmp(p, s, ul))
		if (UNIT("year") || UNIT("years"))
			to = months, mul = 12;
		else if (UNIT("mon") || UNIT("mons"))
			to = months;
		else if (UNIT("day") || UNIT("days"))
			to = days;
		else
			return -1;
#undef UNIT
		if (__builtin_mul_overflow(v, mul, &v) || __builtin_add_overflow(*to, neg ? -v : v, to))
			return -2;
		p = q;
		any = 1;
	}
	return any ? 0 : -1;
}

int sl__pgo_set_value(sl_batch *b, sl_col *c, int row, const char *p, size_t n, char *emsg,
                      size_t cap)
{
	int64_t v;
	switch ((sl_type_id)c->type.id) {
	case SL_T_BOOLEAN:
		if (n == 1 && (p[0] == 't' || p[0] == 'f')) {
			sl_col_set_i64(c, row, p[0] == 't');
			return 0;
		}
		return bad_value(emsg, cap, p, n, " is not a boolean");
	case SL_T_TINYINT:
		if (parse_i64(p, n, INT8_MIN, INT8_MAX, &v))
			return bad_value(emsg, cap, p, n, " does not fit TINYINT");
		sl_col_set_i64(c, row, v);
		return 0;
	case SL_T_SMALLINT:
		if (parse_i64(p, n, INT16_MIN, INT16_MAX, &v))
			return bad_value(emsg, cap, p, n, " does not fit SMALLINT");
		sl_col_set_i64(c, row, v);
		return 0;
	case SL_T_INT:
		if (parse_i64(p, n, INT32_MIN, INT32_MAX, &v))
			return bad_value(emsg, cap, p, n, " does not fit INT");
		sl_col_set_i64(c, row, v);
		return 0;
	case SL_T_BIGINT:
		if (parse_i64(p, n, INT64_MIN, INT64_MAX, &v))
			return bad_value(emsg, cap, p, n, " does not fit BIGINT");
		sl_col_set_i64(c, row, v);
		return 0;
	case SL_T_FLOAT:
	case SL_T_DOUBLE: {
		double d;
		if (parse_f64(p, n, &d))
			return bad_value(emsg, cap, p, n, " is not a number");
		if (c->type.id == SL_T_FLOAT)
			d = (float)d;
		sl_col_set_f64(c, row, d);
		return 0;
	}
	case SL_T_DECIMAL: {
		sl_i128 d;
		int rc = sl_dec_parse(p, n, c->type.precision, c->type.scale, &d);
		if (rc)
			return bad_value(emsg, cap, p, n, rc == -2 ? " does not fit the DECIMAL's precision"
			                                         : " is not a decimal number");
		sl_col_set_i128(c, row, d);
		return 0;
	}
	case SL_T_CHAR:
	case SL_T_VARCHAR:
		if (sl_col_set_str(b, c, row, p, (int64_t)n))
			return bad_value(emsg, cap, "", 0, ": out of memory");
		return 0;
	case SL_T_BINARY:
	case SL_T_VARBINARY: {
		if (n < 2 || p[0] != '\\' || p[1] != 'x' || n % 2)
			return bad_value(emsg, cap, p, n, " is not bytea in hex form");
		size_t m = (n - 2) / 2;
		char *d = sl_arena_alloc(&b->arena, m + 1);
		if (!d)
			return bad_value(emsg, cap, "", 0, ": out of memory");
		for (size_t i = 0; i < m; i++) {
			int h = hexv(p[2 + 2 * i]), l = hexv(p[3 + 2 * i]);
			if (h < 0 || l < 0)
				return bad_value(emsg, cap, p, n, " is not bytea in hex form");
			d[i] = (char)(h * 16 + l);
		}
		sl_col_set_str_ref(c, row, d, (int64_t)m);
		return 0;
	}
	case SL_T_DATE:
		if (sl_date_parse(p, n, &v))
			return bad_value(emsg, cap, p, n, " is not a date sluice can hold");
		sl_col_set_i64(c, row, v);
		return 0;
	case SL_T_TIME:
		if (sl_time_parse(p, n, &v))
			return bad_value(emsg, cap, p, n, " is not a time");
		sl_col_set_i64(c, row, v);
		return 0;
	case SL_T_TIMESTAMP:
		if (sl_ts_parse(p, n, &v))
			return bad_value(emsg, cap, p, n, " is not a timestamp sluice can hold");
		sl_col_set_i64(c, row, v);
		return 0;
	case SL_T_TIMESTAMP_LTZ: {
		size_t m = strip_utc(p, n);
		if (m == (size_t)-1 || sl_ts_parse(p, m, &v))
			return bad_value(emsg, cap, p, n, " is not a UTC timestamptz sluice can hold");
		sl_col_set_i64(c, row, v);
		return 0;
	}
	case SL_T_INTERVAL_DT:
	case SL_T_INTERVAL_YM: {
		int64_t mo, d, us;
		int rc = parse_interval(p, n, &mo, &d, &us);
		if (rc == -1)
			return bad_value(emsg, cap, p, n, " is not an interval");
		if (rc == -2)
			return bad_value(emsg, cap, p, n, " is out of range (an interval's field "
			                 "overflows 64 bits)");
		if (c->type.id == SL_T_INTERVAL_YM) {
			if (d || us)
				return bad_value(emsg, cap, p, n, " has days or a time of day, which INTERVAL "
				                 "YEAR TO MONTH cannot hold");
			sl_col_set_i64(c, row, mo);
			return 0;
		}
		if (mo)
			return bad_value(emsg, cap, p, n, " has months or years, which INTERVAL DAY TO "
			                 "SECOND cannot hold (a month has no fixed length)");
		if (__builtin_mul_overflow(d, (int64_t)86400000000, &d) ||
		    __builtin_add_overflow(d, us, &d))
			return bad_value(emsg, cap, p, n, " is out of INTERVAL DAY TO SECOND's range "
			                 "(64-bit microseconds)");
		sl_col_set_i64(c, row, d);
		return 0;
	}
	case SL_T_ARRAY:
		return sl__pg_array_parse(b, c, row, p, n, emsg, cap);
	default:
		return bad_value(emsg, cap, p, n, ": the column's type cannot be read from PostgreSQL");
	}
}

/* ---- LSNs --------------------------------------------------------------------- */

int sl__pgo_lsn_parse(const char *s, int64_t *out)
{
	unsigned int hi, lo;
	int n = 0;
	if (!s || sscanf(s, "%X/%X%n", &hi, &lo, &n) != 2 || s[n])
		return -1;
	*out = (int64_t)((uint64_t)hi << 32 | lo);
	return 0;
}

void sl__pgo_lsn_format(int64_t lsn, char *buf)
{
	snprintf(buf, 24, "%X/%X", (unsigned)((uint64_t)lsn >> 32), (unsigned)(uint32_t)lsn);
}
