/*
 * types.h - SQL logical types and their physical representation.
 *
 * Every value that travels through sluice has a logical SQL type (sl_type)
 * and one of a handful of physical representations (sl_phys).  Column
 * vectors (src/data/batch.h) store values by physical kind only, so kernels
 * are written once per physical kind:
 *
 *   SL_PHYS_I64   BOOLEAN (0/1), TINYINT..BIGINT, DATE (days since epoch),
 *                 TIME (micros of day), TIMESTAMP(p) and TIMESTAMP_LTZ(p)
 *                 (microseconds since 1970-01-01 00:00:00 UTC; for TIMESTAMP
 *                 without zone the "wall clock" read as if it were UTC),
 *                 INTERVAL DAY TO SECOND (microseconds),
 *                 INTERVAL YEAR TO MONTH (months), NULL type.
 *   SL_PHYS_F64   FLOAT (rounded to float precision on write), DOUBLE.
 *   SL_PHYS_I128  DECIMAL(p,s): the unscaled integer, value = v / 10^s.
 *   SL_PHYS_STR   CHAR, VARCHAR, STRING, BYTES: (pointer, length) pairs.
 *   SL_PHYS_ROW   ROW<...>: child column vectors, one per field.
 *   SL_PHYS_STR   also ARRAY<T> and MAP<K, V>: each value is one packed
 *                 byte string (src/data/packed.h: a count, then the
 *                 elements in the row codec's layout), so a collection
 *                 moves, is copied, hashed and kept in state as a string
 *                 is.  Only code that knows the logical type looks inside.
 *
 * Types are plain values (copied freely).  A ROW type points at an
 * sl_row_type that lives in an arena at least as long as the plan that uses
 * it; the pointer is never owned by the sl_type.  ARRAY and MAP use the same
 * pointer for their element types: one field "element" for an ARRAY, two
 * fields "key" and "value" for a MAP (sl_type_elem, sl_type_map_key,
 * sl_type_map_value).
 */
#ifndef SL_TYPES_H
#define SL_TYPES_H

#include <stdint.h>
#include <stddef.h>

typedef __int128 sl_i128;

typedef enum sl_type_id {
	SL_T_NULL = 0,
	SL_T_BOOLEAN,
	SL_T_TINYINT,
	SL_T_SMALLINT,
	SL_T_INT,
	SL_T_BIGINT,
	SL_T_FLOAT,
	SL_T_DOUBLE,
	SL_T_DECIMAL,
	SL_T_CHAR,
	SL_T_VARCHAR,   /* STRING is VARCHAR with length SL_STRING_LEN */
	SL_T_BINARY,
	SL_T_VARBINARY, /* BYTES is VARBINARY with length SL_STRING_LEN */
	SL_T_DATE,
	SL_T_TIME,
	SL_T_TIMESTAMP,
	SL_T_TIMESTAMP_LTZ,
	SL_T_INTERVAL_DT, /* INTERVAL DAY TO SECOND family, micros */
	SL_T_INTERVAL_YM, /* INTERVAL YEAR TO MONTH family, months */
	SL_T_ROW,
	SL_T_ARRAY, /* ARRAY<T>: row->fields[0] is the element */
	SL_T_MAP,   /* MAP<K, V>: row->fields[0] key, [1] value */
	SL_T__COUNT
} sl_type_id;

typedef enum sl_phys {
	SL_PHYS_I64 = 0,
	SL_PHYS_F64,
	SL_PHYS_I128,
	SL_PHYS_STR,
	SL_PHYS_ROW
} sl_phys;

#define SL_STRING_LEN 2147483647 /* length of STRING / BYTES */

struct sl_row_type;

typedef struct sl_type {
	uint8_t id;        /* sl_type_id */
	uint8_t precision; /* DECIMAL precision 1..38; TIMESTAMP/TIME precision 0..9 */
	uint8_t scale;     /* DECIMAL scale */
	uint8_t notnull;   /* 1 when declared NOT NULL */
	int32_t length;    /* CHAR/VARCHAR/BINARY length; SL_STRING_LEN for STRING */
	const struct sl_row_type *row; /* ROW fields; ARRAY/MAP element types; not owned */
} sl_type;

typedef struct sl_field {
	const char *name;
	sl_type type;
} sl_field;

typedef struct sl_row_type {
	int nfields;
	sl_field *fields;
} sl_row_type;

/* Constructors for common types (nullable). */
sl_type sl_type_make(sl_type_id id);
sl_type sl_type_decimal(int precision, int scale);
sl_type sl_type_varchar(int32_t length); /* SL_STRING_LEN for STRING */
sl_type sl_type_timestamp(sl_type_id id, int precision); /* TIMESTAMP or _LTZ */

/* ARRAY<elem> (1 field) or MAP<key, value> (2 fields) whose element types
 * are rt's fields; rt lives as long as the type (caller's arena).  The
 * fields' names are set here ("element", "key", "value"). */
sl_type sl_type_collection(sl_type_id id, struct sl_row_type *rt);

/* Element type of an ARRAY, key and value types of a MAP. */
static inline sl_type sl_type_elem(sl_type t)
{
	return t.row->fields[0].type;
}
static inline sl_type sl_type_map_key(sl_type t)
{
	return t.row->fields[0].type;
}
static inline sl_type sl_type_map_value(sl_type t)
{
	return t.row->fields[1].type;
}

/* 1 for ARRAY and MAP. */
static inline int sl_type_is_collection(sl_type t)
{
	return t.id == SL_T_ARRAY || t.id == SL_T_MAP;
}

/* 1 when t is, or contains (ROW fields, ARRAY/MAP elements), a type with
 * id `id` (used to refuse what a format or a comparison cannot take). */
int sl_type_contains(sl_type t, sl_type_id id);

/* 1 when every value of type f is, bit for bit, the value of type t it
 * converts to: equal types, a CHAR/VARCHAR into a VARCHAR at least as
 * long, a BINARY/VARBINARY into a VARBINARY at least as long, an integer
 * into a wider one, and ROW/ARRAY/MAP whose fields all are so.  Such a
 * CAST copies the (packed) value as it is: how ARRAY<CHAR(5)> becomes
 * ARRAY<STRING>. */
int sl_type_same_bytes(sl_type f, sl_type t);

/* Physical representation of a logical type.  Why inline: it is called
 * per row by aggregates and key encoding (1.5% of the datagen window
 * benchmark as a call, perf). */
static inline sl_phys sl_type_phys(sl_type t)
{
	switch ((sl_type_id)t.id) {
	case SL_T_FLOAT:
	case SL_T_DOUBLE:
		return SL_PHYS_F64;
	case SL_T_DECIMAL:
		return SL_PHYS_I128;
	case SL_T_CHAR:
	case SL_T_VARCHAR:
	case SL_T_BINARY:
	case SL_T_VARBINARY:
	case SL_T_ARRAY:
	case SL_T_MAP:
		return SL_PHYS_STR;
	case SL_T_ROW:
		return SL_PHYS_ROW;
	default:
		return SL_PHYS_I64;
	}
}

/* Type predicates. */
int sl_type_is_integer(sl_type t);   /* TINYINT..BIGINT */
int sl_type_is_numeric(sl_type t);   /* integer, FLOAT, DOUBLE, DECIMAL */
int sl_type_is_string(sl_type t);    /* CHAR, VARCHAR (not ARRAY/MAP, which are SL_PHYS_STR too) */
int sl_type_is_binary(sl_type t);    /* BINARY, VARBINARY */
int sl_type_is_timestamp(sl_type t); /* TIMESTAMP, TIMESTAMP_LTZ */
int sl_type_equal(sl_type a, sl_type b); /* same id/precision/scale/length/fields, ignoring notnull */

/*
 * Writes Flink's spelling of the type ("DECIMAL(10, 2)", "STRING",
 * "TIMESTAMP(3)", "TIMESTAMP_LTZ(3)", "ROW<`a` INT, `b` STRING>",
 * "ARRAY<INT>", "MAP<STRING, BIGINT>") into buf
 * (NUL-terminated, truncated to cap).  Returns buf.
 */
char *sl_type_format(sl_type t, char *buf, size_t cap);

/* 10^n as a 128-bit integer, 0 <= n <= 38. */
sl_i128 sl_pow10_i128(int n);

#endif
