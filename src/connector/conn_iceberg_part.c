/*
 * conn_iceberg_part.c - the Iceberg sink's partition spec (docs/iceberg.md
 * "Partitioning"): identity fields from PARTITIONED BY, or the transforms
 * of the 'partitioning' option (a sluice extension in the form of Trino's
 * Iceberg table property: 'col', 'year(col)', 'month(col)', 'day(col)',
 * 'hour(col)', 'bucket(col, n)', 'truncate(col, w)', comma-separated), and
 * for each partition field: its name (Iceberg's defaults: col, col_year,
 * col_month, col_day, col_hour, col_bucket, col_trunc), its transform's
 * name in the spec ("hour", "bucket[16]"), its Avro type in manifests, the
 * Avro encoding of a row's partition value and the text of its directory.
 *
 * Transforms follow the table spec ("Partition Transforms", "Bucket
 * Transform Details"): year/month/day/hour count from 1970-01-01 00:00
 * (floor, so before 1970 is negative), day's result type is date; bucket
 * is (murmur3_x86_32(v) & INT_MAX) % n over the value's single-value
 * hash bytes (integers and dates as 8-byte little-endian longs, timestamps
 * as microseconds, strings as UTF-8); truncate keeps v - (v mod w) for
 * integers and the first w code points of a string.
 */
#include "conn_iceberg_int.h"
#include "sluice.h"
#include "base/timeutil.h"
#include "data/valtext.h"
#include "format/avro.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define US_HOUR 3600000000LL
#define US_DAY 86400000000LL

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static uint32_t rotl(uint32_t x, int r)
{
	return (x << r) | (x >> (32 - r));
}

uint32_t sl__ice_murmur3(const void *data, size_t n)
{
	const uint8_t *d = data;
	uint32_t h = 0, k;
	const uint32_t c1 = 0xcc9e2d51, c2 = 0x1b873593;
	size_t i = 0;
	for (; i + 4 <= n; i += 4) {
		k = (uint32_t)d[i] | (uint32_t)d[i + 1] << 8 | (uint32_t)d[i + 2] << 16 |
		    (uint32_t)d[i + 3] << 24;
		k *= c1;
		k = rotl(k, 15);
		k *= c2;
		h ^= k;
		h = rotl(h, 13);
		h = h * 5 + 0xe6546b64;
	}
	k = 0;
	switch (n & 3) {
	case 3: k ^= (uint32_t)d[i + 2] << 16; /* fall through */
	case 2: k ^= (uint32_t)d[i + 1] << 8;  /* fall through */
	case 1:
		k ^= d[i];
		k *= c1;
		k = rotl(k, 15);
		k *= c2;
		h ^= k;
	}
	h ^= (uint32_t)n;
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	h ^= h >> 16;
	return h;
}

static int is_time(sl_type t)
{
	return t.id == SL_T_DATE || sl_type_is_timestamp(t);
}

static int is_int(sl_type t)
{
	return sl_type_is_integer(t) || t.id == SL_T_DATE;
}

/* Whether transform tr applies to a column of type t. */
static int applies(int tr, sl_type t)
{
	switch (tr) {
	case ICE_T_IDENTITY:
		return t.id == SL_T_BOOLEAN || sl_type_is_integer(t) || t.id == SL_T_FLOAT ||
		       t.id == SL_T_DOUBLE || is_time(t) || sl_type_is_string(t);
	case ICE_T_YEAR: case ICE_T_MONTH: case ICE_T_DAY:
		return is_time(t);
	case ICE_T_HOUR:
		return sl_type_is_timestamp(t);
	case ICE_T_BUCKET:
		return is_int(t) || sl_type_is_timestamp(t) || sl_type_is_string(t);
	case ICE_T_TRUNCATE:
		return sl_type_is_integer(t) || sl_type_is_string(t);
	default:
		return 0;
	}
}

static const char *const tr_names[] = {"identity", "year", "month", "day", "hour", "bucket",
                                       "truncate"};
static const char *const tr_suffix[] = {"", "_year", "_month", "_day", "_hour", "_bucket",
                                        "_trunc"};

/* Adds partition field (col, tr, param) to *pf. */
static int add_field(ice_pfield **pf, int *n, int col, int tr, int param, const char *cname,
                     const char *table, sl_err *err)
{
	ice_pfield *nv = realloc(*pf, (size_t)(*n + 1) * sizeof *nv);
	if (!nv)
		return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", table);
	*pf = nv;
	size_t len = strlen(cname) + strlen(tr_suffix[tr]) + 1;
	char *name = malloc(len);
	if (!name)
		return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", table);
	snprintf(name, len, "%s%s", cname, tr_suffix[tr]);
	for (int i = 0; i < *n; i++)
		if (!strcmp(nv[i].name, name)) {
			free(name);
			return sl_err_set(err, SL_EINVAL, "sink '%s': partition field '%s' twice",
			                  table, nv[i].name);
		}
	nv[*n] = (ice_pfield){col, 1000 + *n, tr, param, name};
	(*n)++;
	return 0;
}

static int find_col(const sl_field *f, int nf, const char *name, size_t len)
{
	for (int i = 0; i < nf; i++)
		if (strlen(f[i].name) == len && !strncasecmp(f[i].name, name, len))
			return i;
	return -1;
}

int sl__ice_partitioning(const char *spec, const int *part, int npart, const sl_field *fields,
                         int nfields, const char *table, ice_pfield **pf, int *npf,
                         sl_err *err)
{
	char tb[64];
	*pf = NULL;
	*npf = 0;
	for (int i = 0; i < npart; i++)
		if (add_field(pf, npf, part[i], ICE_T_IDENTITY, 0, fields[part[i]].name, table, err))
			return err->code;
	for (const char *p = spec; p && *p;) {
		while (isspace((unsigned char)*p) || *p == ',')
			p++;
		if (!*p)
			break;
		const char *w = p;
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		size_t wl = (size_t)(p - w);
		int tr = ICE_T_IDENTITY, col, param = 0;
		const char *c = w;
		size_t cl = wl;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '(') {
			for (tr = 1; tr < 7 && !(strlen(tr_names[tr]) == wl && !strncasecmp(w, tr_names[tr], wl)); tr++)
				;
			for (p++; isspace((unsigned char)*p); p++)
				;
			c = p;
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			cl = (size_t)(p - c);
			while (isspace((unsigned char)*p))
				p++;
			if (tr == ICE_T_BUCKET || tr == ICE_T_TRUNCATE) {
				char *end;
				if (*p++ != ',')
					goto bad;
				long v = strtol(p, &end, 10);
				if (end == p || v < 1 || v > 1000000)
					goto bad;
				param = (int)v;
				for (p = end; isspace((unsigned char)*p); p++)
					;
			}
			if (tr == 7 || *p++ != ')')
				goto bad;
		}
		if (cl == 0 || wl == 0)
			goto bad;
		if ((col = find_col(fields, nfields, c, cl)) < 0)
			return sl_err_set(err, SL_EPLAN, "sink '%s': 'partitioning': no column '%.*s'",
			                  table, (int)cl, c);
		if (!applies(tr, fields[col].type))
			return sl_err_set(err, SL_ENOTSUP, "sink '%s': 'partitioning': %s does not apply "
			                  "to column '%s' of type %s", table, tr_names[tr], fields[col].name,
			                  sl_type_format(fields[col].type, tb, sizeof tb));
		if (add_field(pf, npf, col, tr, param, fields[col].name, table, err))
			return err->code;
		while (isspace((unsigned char)*p))
			p++;
		if (*p && *p != ',')
			goto bad;
		continue;
bad:
		return sl_err_set(err, SL_EINVAL, "sink '%s': 'partitioning' = '%s': expected a "
		                  "comma-separated list of col, year(col), month(col), day(col), "
		                  "hour(col), bucket(col, n) or truncate(col, w)", table, spec);
	}
	for (int i = 0; i < *npf; i++)
		if ((*pf)[i].transform == ICE_T_IDENTITY && !applies(ICE_T_IDENTITY,
		                                                      fields[(*pf)[i].col].type))
			return sl_err_set(err, SL_ENOTSUP, "sink '%s': cannot partition by column '%s' of "
			                  "type %s", table, fields[(*pf)[i].col].name,
			                  sl_type_format(fields[(*pf)[i].col].type, tb, sizeof tb));
	return 0;
}

void sl__ice_pfields_free(ice_pfield *pf, int n)
{
	for (int i = 0; i < n; i++)
		free(pf[i].name);
	free(pf);
}

const char *sl__ice_transform_name(const ice_pfield *pf, char *buf, size_t cap)
{
	if (pf->transform == ICE_T_BUCKET || pf->transform == ICE_T_TRUNCATE) {
		snprintf(buf, cap, "%s[%d]", tr_names[pf->transform], pf->param);
		return buf;
	}
	return tr_names[pf->transform];
}

const char *sl__ice_part_avro_type(const ice_pfield *pf, sl_type ty)
{
	switch (pf->transform) {
	case ICE_T_YEAR: case ICE_T_MONTH: case ICE_T_HOUR: case ICE_T_BUCKET:
		return "\"int\"";
	case ICE_T_DAY:
		return "{\"type\":\"int\",\"logicalType\":\"date\"}";
	default:
		break;
	}
	switch ((sl_type_id)ty.id) {
	case SL_T_BOOLEAN: return "\"boolean\"";
	case SL_T_TINYINT: case SL_T_SMALLINT: case SL_T_INT: return "\"int\"";
	case SL_T_BIGINT: return "\"long\"";
	case SL_T_FLOAT: return "\"float\"";
	case SL_T_DOUBLE: return "\"double\"";
	case SL_T_DATE: return "{\"type\":\"int\",\"logicalType\":\"date\"}";
	case SL_T_TIMESTAMP:
		return "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\",\"adjust-to-utc\":false}";
	case SL_T_TIMESTAMP_LTZ:
		return "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\",\"adjust-to-utc\":true}";
	case SL_T_CHAR: case SL_T_VARCHAR: return "\"string\"";
	default: return NULL;
	}
}

/* Bytes of the first w code points of UTF-8 s[0..n). */
static size_t utf8_prefix(const char *s, size_t n, int w)
{
	size_t i = 0;
	for (int cp = 0; i < n; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && cp++ == w)
			break;
	}
	return i;
}

/* The transformed value of an integer-like source: days, micros or the int. */
static int64_t time_value(int tr, sl_type t, int64_t v)
{
	int64_t days = t.id == SL_T_DATE ? v : floor_div(v, US_DAY), y;
	unsigned m, d;
	switch (tr) {
	case ICE_T_HOUR: return floor_div(v, US_HOUR);
	case ICE_T_DAY: return days;
	case ICE_T_MONTH: case ICE_T_YEAR:
		sl_civil_from_days(days, &y, &m, &d);
		return tr == ICE_T_YEAR ? y - 1970 : (y - 1970) * 12 + (int64_t)m - 1;
	default: return v;
	}
}

static int32_t bucket(const ice_pfield *pf, const sl_col *c, int row)
{
	uint32_t h;
	if (sl_type_is_string(c->type)) {
		h = sl__ice_murmur3(c->v.str[row].ptr, (size_t)c->v.str[row].len);
	} else {
		uint8_t le[8];
		uint64_t u = (uint64_t)c->v.i64[row];
		for (int i = 0; i < 8; i++)
			le[i] = (uint8_t)(u >> (8 * i));
		h = sl__ice_murmur3(le, 8);
	}
	return (int32_t)((h & 0x7fffffffu) % (uint32_t)pf->param);
}

int sl__ice_part_value(const ice_pfield *pf, const sl_col *c, int row, sl_buf *out)
{
	if (c->null[row])
		return sl_avro_long(out, 0);
	if (sl_avro_long(out, 1))
		return -1;
	switch (pf->transform) {
	case ICE_T_YEAR: case ICE_T_MONTH: case ICE_T_DAY: case ICE_T_HOUR:
		return sl_avro_long(out, time_value(pf->transform, c->type, c->v.i64[row]));
	case ICE_T_BUCKET:
		return sl_avro_long(out, bucket(pf, c, row));
	case ICE_T_TRUNCATE:
		if (sl_type_is_string(c->type))
			return sl_avro_bytes(out, c->v.str[row].ptr,
			                     utf8_prefix(c->v.str[row].ptr, (size_t)c->v.str[row].len,
			                                 pf->param));
		return sl_avro_long(out, c->v.i64[row] - (((c->v.i64[row] % pf->param) + pf->param) %
		                                          pf->param));
	default:
		break;
	}
	switch ((sl_type_id)c->type.id) {
	case SL_T_BOOLEAN: return sl_avro_bool(out, c->v.i64[row] != 0);
	case SL_T_FLOAT: return sl_avro_float(out, (float)c->v.f64[row]);
	case SL_T_DOUBLE: return sl_avro_double(out, c->v.f64[row]);
	case SL_T_CHAR: case SL_T_VARCHAR:
		return sl_avro_bytes(out, c->v.str[row].ptr, (size_t)c->v.str[row].len);
	default: return sl_avro_long(out, c->v.i64[row]);
	}
}

/* Appends s[0..n) URL-escaped (letters, digits, '-', '_', '.' kept). */
static int put_escaped(sl_buf *out, const char *s, size_t n)
{
	int rc = 0;
	for (size_t j = 0; j < n; j++) {
		unsigned char ch = (unsigned char)s[j];
		if (isalnum(ch) || ch == '-' || ch == '_' || ch == '.')
			rc |= sl_buf_putc(out, (char)ch);
		else
			rc |= sl_buf_printf(out, "%%%02X", ch);
	}
	return rc;
}

int sl__ice_part_path(const ice_pfield *pf, const sl_col *c, int row, const char *tz,
                      sl_buf *out)
{
	int64_t y, v;
	unsigned m, d;
	int rc = sl_buf_printf(out, "%s=", pf->name);
	if (c->null[row])
		return rc | sl_buf_puts(out, "null/");
	switch (pf->transform) {
	case ICE_T_YEAR:
		rc |= sl_buf_printf(out, "%lld", 1970LL + (long long)time_value(ICE_T_YEAR, c->type,
		                                                                 c->v.i64[row]));
		break;
	case ICE_T_MONTH:
		v = time_value(ICE_T_MONTH, c->type, c->v.i64[row]);
		rc |= sl_buf_printf(out, "%04lld-%02d", 1970LL + (long long)floor_div(v, 12),
		                    (int)(v - floor_div(v, 12) * 12) + 1);
		break;
	case ICE_T_DAY: case ICE_T_HOUR:
		v = time_value(ICE_T_DAY, c->type, c->v.i64[row]);
		sl_civil_from_days(v, &y, &m, &d);
		rc |= sl_buf_printf(out, "%04lld-%02u-%02u", (long long)y, m, d);
		if (pf->transform == ICE_T_HOUR)
			rc |= sl_buf_printf(out, "-%02d", (int)(time_value(ICE_T_HOUR, c->type,
			                                                   c->v.i64[row]) -
			                                        v * 24));
		break;
	case ICE_T_BUCKET:
		rc |= sl_buf_printf(out, "%d", bucket(pf, c, row));
		break;
	case ICE_T_TRUNCATE:
		if (sl_type_is_string(c->type)) {
			const char *s = c->v.str[row].ptr;
			rc |= put_escaped(out, s, utf8_prefix(s, (size_t)c->v.str[row].len, pf->param));
		} else {
			v = c->v.i64[row];
			rc |= sl_buf_printf(out, "%lld", (long long)(v - (((v % pf->param) + pf->param) %
			                                                  pf->param)));
		}
		break;
	default: {
		sl_buf t;
		sl_buf_init(&t);
		rc |= sl_value_text(c, row, "null", tz, &t) ? -1 : 0;
		rc |= put_escaped(out, t.p, t.len);
		sl_buf_deinit(&t);
	}
	}
	return rc | sl_buf_putc(out, '/');
}
