/*
 * fmt_json.h - internal: the schema-directed JSON reader
 * (fmt_json_read.c) and writer (fmt_json_write.c) that the `json` format
 * (fmt_json.c) and the changelog formats (debezium-json, canal-json,
 * maxwell-json: their row images) share; csv converts its fields' text
 * with sl__json_set_text.
 *
 * The reader walks one JSON text once, writing values straight into the
 * typed column vectors of a batch row; a precomputed per-ROW-level lookup
 * (sl_jschema) maps keys to fields.  The writer appends one row as a JSON
 * object.  Neither allocates per row except string bytes that need
 * unescaping (batch arena) and output growth (the caller's sl_buf).
 */
#ifndef SL_FMT_JSON_H
#define SL_FMT_JSON_H

#include "format.h"
#include "base/timeutil.h"

/* Key -> field lookup of one object level (the top schema or a ROW type). */
typedef struct sl_jschema sl_jschema;

/* Options shared by the json and debezium-json codecs. */
typedef struct sl_jopts {
	int fail_on_missing; /* '<fmt>.fail-on-missing-field' */
	int iso;             /* '<fmt>.timestamp-format.standard' = 'ISO-8601' */
} sl_jopts;

/* A reader over one record. */
typedef struct sl_jcur {
	const char *s, *p, *e; /* record start, position, end */
	sl_batch *b;           /* target batch (string bytes go to its arena) */
	sl_err *err;
	const sl_jopts *o;
	sl_ts_cache *tsc;      /* the decoder's date cache (timeutil.h), or NULL */
	int depth;
	const char *path[32];  /* field names from the top, for messages */
	int npath;
} sl_jcur;

/* Builds the lookup for fields[0..n) and, recursively, their ROW types, in
 * arena a.  Returns 0 or SL_ENOMEM. */
int sl__jschema_build(sl_arena *a, const sl_field *fields, int n, sl_jschema **out);

/* Frees what a lookup holds outside its arena (the packing buffers of its
 * ARRAY and MAP levels); call before freeing the arena.  Safe on NULL. */
void sl__jschema_free(sl_jschema *s);

/* sl__json_ws's loop (call that instead). */
int sl__json_ws_skip(sl_jcur *c);

/* Skips blanks; returns the next byte or -1 at the end.  Why inline with
 * the first byte tested here: in records like {"id":"o1",...} there is
 * almost never a blank, and the call per token was 10% of the file
 * benchmark (perf). */
static inline int sl__json_ws(sl_jcur *c)
{
	if (c->p < c->e && (unsigned char)*c->p > ' ')
		return (unsigned char)*c->p;
	return sl__json_ws_skip(c);
}

/* Reads the object at c->p (which must be '{') into row `row` of cols
 * (one column per field of s).  Returns 0 or SL_EINPUT with c->err set. */
int sl__json_read_object(sl_jcur *c, const sl_jschema *s, sl_col *cols, int row);

/* Skips any JSON value at c->p.  Returns 0 or SL_EINPUT. */
int sl__json_skip_value(sl_jcur *c);

/* Reads a string at c->p (which must be '"'); *out points into the record
 * when the string has no escapes, else into the batch arena.  0 or
 * SL_EINPUT / SL_ENOMEM. */
int sl__json_read_string(sl_jcur *c, sl_str *out);

/* Converts text v[0..n) (a JSON string's content, a CSV field) into (col,
 * row) by the column's type: strings referenced as is, BYTES from base64,
 * other scalars parsed (errors name c->path).  Not for ROW columns.
 * Returns 0 or SL_EINPUT / SL_ENOMEM. */
int sl__json_set_text(sl_jcur *c, sl_col *col, int row, const char *v, size_t n);

/* Sets "malformed JSON at byte N: <what>" and returns SL_EINPUT. */
int sl__json_syntax(sl_jcur *c, const char *what);

/* Appends row `row` of cols (fields[0..n)) as a JSON object (no newline).
 * Returns 0 or SL_ENOMEM. */
int sl__json_write_object(const sl_field *fields, int n, const sl_col *cols, int row,
                          const sl_jopts *o, sl_buf *out);

/* Appends s as a JSON string literal with escapes.  0 or SL_ENOMEM. */
int sl__json_write_string(const char *s, size_t len, sl_buf *out);

/* Reads the shared options of format `fmt` ("json", "debezium-json"). */
int sl__jopts_read(const char *fmt, const sl_opts *opts, sl_jopts *o, int *ignore_errors,
                   sl_err *err);

#endif
