/*
 * types.c - SQL types: constructors, predicates, Flink spellings (ARRAY and
 * MAP included: their element types hang off the ROW fields pointer).
 */
#include "types.h"

#include <stdio.h>
#include <string.h>

sl_type sl_type_make(sl_type_id id)
{
	sl_type t;
	memset(&t, 0, sizeof(t));
	t.id = (uint8_t)id;
	if (id == SL_T_VARCHAR || id == SL_T_VARBINARY)
		t.length = SL_STRING_LEN;
	if (id == SL_T_CHAR || id == SL_T_BINARY)
		t.length = 1;
	if (id == SL_T_TIMESTAMP || id == SL_T_TIMESTAMP_LTZ)
		t.precision = 6;
	if (id == SL_T_DECIMAL) {
		t.precision = 10;
		t.scale = 0;
	}
	return t;
}

sl_type sl_type_decimal(int precision, int scale)
{
	sl_type t = sl_type_make(SL_T_DECIMAL);
	t.precision = (uint8_t)precision;
	t.scale = (uint8_t)scale;
	return t;
}

sl_type sl_type_varchar(int32_t length)
{
	sl_type t = sl_type_make(SL_T_VARCHAR);
	t.length = length;
	return t;
}

sl_type sl_type_timestamp(sl_type_id id, int precision)
{
	sl_type t = sl_type_make(id);
	t.precision = (uint8_t)precision;
	return t;
}

sl_type sl_type_collection(sl_type_id id, sl_row_type *rt)
{
	sl_type t = sl_type_make(id);
	rt->nfields = id == SL_T_MAP ? 2 : 1;
	rt->fields[0].name = id == SL_T_MAP ? "key" : "element";
	if (id == SL_T_MAP)
		rt->fields[1].name = "value";
	t.row = rt;
	return t;
}

int sl_type_contains(sl_type t, sl_type_id id)
{
	if (t.id == id)
		return 1;
	if ((t.id == SL_T_ROW || sl_type_is_collection(t)) && t.row)
		for (int i = 0; i < t.row->nfields; i++)
			if (sl_type_contains(t.row->fields[i].type, id))
				return 1;
	return 0;
}

int sl_type_same_bytes(sl_type f, sl_type t)
{
	if (sl_type_equal(f, t))
		return 1;
	if ((f.id == SL_T_CHAR || f.id == SL_T_VARCHAR) && t.id == SL_T_VARCHAR)
		return t.length >= f.length;
	if ((f.id == SL_T_BINARY || f.id == SL_T_VARBINARY) && t.id == SL_T_VARBINARY)
		return t.length >= f.length;
	if (sl_type_is_integer(f) && sl_type_is_integer(t))
		return t.id >= f.id;
	if (f.id != t.id || (f.id != SL_T_ROW && !sl_type_is_collection(f)) || !f.row || !t.row ||
	    f.row->nfields != t.row->nfields)
		return 0;
	for (int i = 0; i < f.row->nfields; i++)
		if ((f.id == SL_T_ROW && strcmp(f.row->fields[i].name, t.row->fields[i].name)) ||
		    !sl_type_same_bytes(f.row->fields[i].type, t.row->fields[i].type))
			return 0;
	return 1;
}

/* sl_type_phys: inline in types.h. */

int sl_type_is_integer(sl_type t)
{
	return t.id >= SL_T_TINYINT && t.id <= SL_T_BIGINT;
}

int sl_type_is_numeric(sl_type t)
{
	return t.id >= SL_T_TINYINT && t.id <= SL_T_DECIMAL;
}

int sl_type_is_string(sl_type t)
{
	return t.id == SL_T_CHAR || t.id == SL_T_VARCHAR;
}

int sl_type_is_binary(sl_type t)
{
	return t.id == SL_T_BINARY || t.id == SL_T_VARBINARY;
}

int sl_type_is_timestamp(sl_type t)
{
	return t.id == SL_T_TIMESTAMP || t.id == SL_T_TIMESTAMP_LTZ;
}

int sl_type_equal(sl_type a, sl_type b)
{
	if (a.id != b.id || a.precision != b.precision || a.scale != b.scale ||
	    a.length != b.length)
		return 0;
	if (a.id == SL_T_ROW || sl_type_is_collection(a)) {
		if (!a.row || !b.row)
			return a.row == b.row;
		if (a.row->nfields != b.row->nfields)
			return 0;
		for (int i = 0; i < a.row->nfields; i++)
			if (strcmp(a.row->fields[i].name, b.row->fields[i].name) ||
			    !sl_type_equal(a.row->fields[i].type, b.row->fields[i].type))
				return 0;
	}
	return 1;
}

char *sl_type_format(sl_type t, char *buf, size_t cap)
{
	const char *nn = t.notnull ? " NOT NULL" : "";
	switch ((sl_type_id)t.id) {
	case SL_T_NULL: snprintf(buf, cap, "NULL"); break;
	case SL_T_BOOLEAN: snprintf(buf, cap, "BOOLEAN%s", nn); break;
	case SL_T_TINYINT: snprintf(buf, cap, "TINYINT%s", nn); break;
	case SL_T_SMALLINT: snprintf(buf, cap, "SMALLINT%s", nn); break;
	case SL_T_INT: snprintf(buf, cap, "INT%s", nn); break;
	case SL_T_BIGINT: snprintf(buf, cap, "BIGINT%s", nn); break;
	case SL_T_FLOAT: snprintf(buf, cap, "FLOAT%s", nn); break;
	case SL_T_DOUBLE: snprintf(buf, cap, "DOUBLE%s", nn); break;
	case SL_T_DECIMAL: snprintf(buf, cap, "DECIMAL(%d, %d)%s", t.precision, t.scale, nn); break;
	case SL_T_CHAR: snprintf(buf, cap, "CHAR(%d)%s", t.length, nn); break;
	case SL_T_VARCHAR:
		if (t.length == SL_STRING_LEN)
			snprintf(buf, cap, "STRING%s", nn);
		else
			snprintf(buf, cap, "VARCHAR(%d)%s", t.length, nn);
		break;
	case SL_T_BINARY: snprintf(buf, cap, "BINARY(%d)%s", t.length, nn); break;
	case SL_T_VARBINARY:
		if (t.length == SL_STRING_LEN)
			snprintf(buf, cap, "BYTES%s", nn);
		else
			snprintf(buf, cap, "VARBINARY(%d)%s", t.length, nn);
		break;
	case SL_T_DATE: snprintf(buf, cap, "DATE%s", nn); break;
	case SL_T_TIME: snprintf(buf, cap, "TIME(%d)%s", t.precision, nn); break;
	case SL_T_TIMESTAMP: snprintf(buf, cap, "TIMESTAMP(%d)%s", t.precision, nn); break;
	case SL_T_TIMESTAMP_LTZ: snprintf(buf, cap, "TIMESTAMP_LTZ(%d)%s", t.precision, nn); break;
	case SL_T_INTERVAL_DT: snprintf(buf, cap, "INTERVAL SECOND(3)%s", nn); break;
	case SL_T_INTERVAL_YM: snprintf(buf, cap, "INTERVAL MONTH%s", nn); break;
	case SL_T_ROW: {
		size_t n = (size_t)snprintf(buf, cap, "ROW<");
		for (int i = 0; t.row && i < t.row->nfields && n < cap; i++) {
			char sub[256];
			sl_type_format(t.row->fields[i].type, sub, sizeof(sub));
			n += (size_t)snprintf(buf + n, cap - n, "%s`%s` %s", i ? ", " : "",
			                      t.row->fields[i].name, sub);
		}
		if (n < cap)
			snprintf(buf + n, cap - n, ">%s", nn);
		break;
	}
	case SL_T_ARRAY:
	case SL_T_MAP: {
		char k[256], v[256];
		if (!t.row) {
			snprintf(buf, cap, "%s", t.id == SL_T_ARRAY ? "ARRAY" : "MAP");
			break;
		}
		sl_type_format(t.row->fields[0].type, k, sizeof(k));
		if (t.id == SL_T_ARRAY)
			snprintf(buf, cap, "ARRAY<%s>%s", k, nn);
		else
			snprintf(buf, cap, "MAP<%s, %s>%s", k,
			         sl_type_format(t.row->fields[1].type, v, sizeof(v)), nn);
		break;
	}
	default: snprintf(buf, cap, "?"); break;
	}
	return buf;
}

sl_i128 sl_pow10_i128(int n)
{
	sl_i128 r = 1;
	while (n-- > 0)
		r *= 10;
	return r;
}
