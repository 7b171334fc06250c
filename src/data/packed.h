/*
 * packed.h - ARRAY and MAP values: one byte string per value (packed.c).
 *
 * A column of ARRAY<T> or MAP<K, V> is physically a string column
 * (types.h): each non-NULL value is a packed byte string
 *
 *   u32 n      the number of elements (ARRAY) or entries (MAP)
 *   elements   ARRAY: n values of T; MAP: n (key, value) pairs
 *
 * where every value is written in the row codec's layout (rowcodec.h: a
 * null byte, then the value by physical kind; a nested ARRAY or MAP is a
 * string holding its own packed bytes, a ROW its fields).  So a
 * collection is copied, moved between batches, hashed as a key and kept in
 * state by the code that handles strings, with no case of its own, and
 * the bytes that snapshots hold are those of the row codec (stable in the
 * same way).  Only code that knows the logical type looks inside: through
 * a reader (sl_unpack) that steps over elements and decodes one into a row
 * of an ordinary column, and the builder functions below that append a
 * column's value as an element.  Elements are read in order (arr[i] steps
 * over i - 1 of them: O(i), fine for the arrays of events and headers).
 *
 * MAP keys are unique: the MAP[...] constructor and the JSON reader keep
 * the last value of a repeated key, at the first key's position, and put
 * the entries in java.util.HashMap's order (sl_pack_map_hashmap: what
 * Flink prints).  Equality of packed bytes is equality of
 * ARRAY values (element by element, doubles by their bits); MAP equality
 * would need order-free comparison and is refused by the binder.
 *
 * No state of its own; any thread.
 */
#ifndef SL_PACKED_H
#define SL_PACKED_H

#include <stdint.h>

#include "../base/buf.h"
#include "batch.h"

/* Starts a packed value in out (cleared first): the count, 0 for now. */
int sl_pack_begin(sl_buf *out);

/* Appends the value of column c at row `row` as the next element (or map
 * key / map value: a MAP's entries are key, value, key, value...). */
int sl_pack_value(sl_buf *out, const sl_col *c, int row);

/* Sets the count of the packed value in out (elements, or map entries). */
void sl_pack_end(sl_buf *out, uint32_t n);

/* A reader over one packed value. */
typedef struct sl_unpack {
	const char *p, *end; /* the next element's bytes */
	uint32_t n;          /* elements (entries) in the value */
} sl_unpack;

/* Opens bytes (p, len) of a packed value.  0, or SL_ESTATE when they are
 * too short to hold the count. */
int sl_unpack_open(sl_unpack *u, const char *p, int64_t len);

/* Steps over the next value, of type t.  0 or SL_ESTATE. */
int sl_unpack_skip(sl_unpack *u, sl_type t);

/* Decodes the next value into row `row` of c (c's type is the element's):
 * strings copied into arena a, or pointing into the packed bytes when a
 * is NULL.  0, SL_ESTATE or SL_ENOMEM. */
int sl_unpack_next(sl_unpack *u, sl_arena *a, sl_col *c, int row);

/*
 * A MAP's value for key `key` (a 1-row column of the map's key type, row
 * krow): on a match, decodes the value into row `row` of out and returns
 * 1; returns 0 when the map has no such key (out untouched), or a negative
 * SL_E* code.  Keys compare by their encoded bytes (doubles by their bits).
 * kbuf is scratch.
 */
int sl_unpack_map_get(const char *p, int64_t len, sl_type map, const sl_col *key, int krow,
                      sl_buf *kbuf, sl_arena *a, sl_col *out, int row);

/*
 * Drops repeated keys from the packed MAP in buf (key type kt, value type
 * vt): the last value of a key is kept at the first key's position, the
 * order is kept (MAP_FROM_ARRAYS, MAP_UNION, Kafka headers: Flink's order
 * there is not String's HashMap order).  Rewrites buf in place through tmp
 * (scratch).  Returns the number of entries left, or a negative SL_E* code.
 */
int sl_pack_map_dedup(sl_buf *buf, sl_type kt, sl_type vt, sl_buf *tmp);

/*
 * Makes the packed MAP in buf (key type kt, value type vt) hold what a
 * java.util.HashMap filled with its entries in order holds, as Flink's
 * map constructor and json reader build it: a repeated key keeps its last
 * value at the first key's position, and the entries come in the
 * HashMap's iteration order (javahash.h; `MAP['b', 1, 'a', 2]` is {a=2,
 * b=1}), a string key hashed as a Java String, or with flink_strings as
 * Flink's BinaryStringData (the json reader's HashMap<StringData, ..>),
 * unless a key type has no Java hashCode of its own (BYTES, ROW, ARRAY,
 * MAP: their order is kept).  Rewrites buf in place through tmp
 * (scratch).  Returns the number of entries left, or a negative SL_E*
 * code.
 */
int sl_pack_map_hashmap(sl_buf *buf, sl_type kt, sl_type vt, sl_buf *tmp, int flink_strings);

#endif
