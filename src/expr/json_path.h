/*
 * json_path.h - the JSON text reader and the JSON path language behind
 * Flink's JSON functions (JSON_VALUE, JSON_QUERY, JSON_EXISTS, IS JSON).
 *
 * A document is read in place: values are (start, end) byte spans of the
 * input text, never copied into a tree.  sl_json_check validates a whole
 * document the way Flink's JSON provider (Jackson) reads one: the first
 * root value must be well formed, what follows it is ignored, except that
 * a root number or literal must be followed by whitespace or the end.
 *
 * Paths follow Flink (its JsonPath library): an optional mode, `lax` or
 * `strict` followed by blanks (no mode means strict), then `$` and steps:
 * `.name`, `['name']` / `["name"]` (also after a dot, `$.['a b']`),
 * `[n]` (negative n counts from the end), `[n, m, ...]`, `[from:to]`,
 * `[*]` and `.*`.  Filters, deep scan (`..`) and functions are refused as
 * not supported.  A path with a wildcard, an index list or a slice is
 * indefinite: its result is the list of what matched (possibly empty).
 */
#ifndef SL_JSON_PATH_H
#define SL_JSON_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"

/* JSON value kinds. */
enum { SL_JV_NONE = 0, SL_JV_OBJECT, SL_JV_ARRAY, SL_JV_STRING, SL_JV_NUMBER, SL_JV_TRUE,
       SL_JV_FALSE, SL_JV_NULL };

/* Kind of the value starting at s (no leading blanks), SL_JV_NONE if none. */
int sl_json_kind(const char *s, int64_t n);

/*
 * Checks that s[0..n) holds a JSON document (see the header).  On success
 * returns the kind of the root value and sets *start / *end to its span;
 * returns SL_JV_NONE when the text is not JSON.
 */
int sl_json_check(const char *s, int64_t n, int64_t *start, int64_t *end);

enum { SL_JP_KEY, SL_JP_INDEX, SL_JP_WILD, SL_JP_SLICE };

typedef struct sl_jpath_step {
	int kind;             /* SL_JP_* */
	int nkeys;            /* SL_JP_KEY: names (more than one: indefinite) */
	const char **keys;
	int64_t *keylens;
	int nidx;             /* SL_JP_INDEX: indexes (more than one: indefinite) */
	int64_t *idx;
	int64_t from, to;     /* SL_JP_SLICE */
	int has_from, has_to;
} sl_jpath_step;

typedef struct sl_jpath {
	int strict;           /* 1 strict (also without a mode), 0 lax */
	int definite;         /* no wildcard, slice or list */
	int nsteps;
	sl_jpath_step *steps;
} sl_jpath;

enum { SL_JP_OK = 0, SL_JP_SYNTAX = -1, SL_JP_UNSUPPORTED = -2, SL_JP_NOMEM = -3 };

/*
 * Parses a path spec into *out (memory from arena a).  Returns SL_JP_OK,
 * SL_JP_SYNTAX (msg says why), SL_JP_UNSUPPORTED (filters, deep scan,
 * functions: msg names it) or SL_JP_NOMEM.
 */
int sl_jpath_parse(const char *spec, int64_t n, sl_arena *a, sl_jpath *out, char *msg, size_t cap);

/* A span of the document: one matched value. */
typedef struct sl_jspan {
	int64_t start, end;
} sl_jspan;

/* Reusable evaluation buffers (grown, never shrunk; one per step). */
typedef struct sl_jeval {
	sl_jspan *cur, *next;
	int ncur, nnext, cap;
} sl_jeval;

void sl_jeval_free(sl_jeval *ev);

/* Outcome of a path evaluation. */
enum { SL_JR_ERROR = -1, SL_JR_EMPTY = 0, SL_JR_VALUE = 1, SL_JR_LIST = 2 };

/*
 * Evaluates path over the document s[0..n) (already checked or not: an
 * invalid document is an error in strict mode and empty in lax mode, as
 * Flink).  Returns:
 *   SL_JR_VALUE: a definite path's value, span in ev->cur[0];
 *   SL_JR_LIST:  an indefinite path's matches, ev->cur[0..ncur);
 *   SL_JR_EMPTY: nothing (lax mode: no match, a JSON null, bad input);
 *   SL_JR_ERROR: strict mode failure (why in msg), or SL_JR_NOMEM-like
 *                out of memory (msg "out of memory").
 */
int sl_jpath_eval(const sl_jpath *path, const char *s, int64_t n, sl_jeval *ev, char *msg,
                  size_t cap);

/*
 * Appends the compact form of the JSON value s[0..n) to a growing buffer
 * (*buf, *len, *cap; realloc'd): blanks outside strings dropped, strings
 * re-escaped and numbers re-written (sl_json_number) as Jackson writes them.  Returns 0 or -1 (out of memory).
 */
int sl_json_compact(const char *s, int64_t n, char **buf, int64_t *len, int64_t *cap);

/* The text Flink gives the JSON number s[0..n): integers as written (-0 is
 * 0), others through a double as Java's Double.toString.  out >= 48 bytes;
 * returns the length. */
int sl_json_number(const char *s, int64_t n, char *out);

/* Appends raw UTF-8 text s[0..n) as a JSON string literal, escaped as
 * Jackson writes one.  Returns 0 or -1 (out of memory). */
int sl_json_quote(const char *s, int64_t n, char **buf, int64_t *len, int64_t *cap);

/*
 * Decodes the JSON string literal s[0..n) (quotes included) into *buf
 * (UTF-8, realloc'd as for sl_json_compact, replacing its content).
 * Returns the decoded length or -1.
 */
int64_t sl_json_unescape(const char *s, int64_t n, char **buf, int64_t *cap);

#endif
