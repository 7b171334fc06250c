/*
 * opts.h - string options: WITH ('k' = 'v') clauses, SET values, hints.
 *
 * An ordered list of (key, value) strings.  Keys compare case-sensitively
 * as Flink's do.  Every lookup marks the key as used, so that after a
 * connector opened, sl_opts_unused() names the keys nobody read (reported
 * as "unsupported option" errors, as Flink does).  Strings are owned by the
 * arena given at construction.  Lookups may run on several threads at once
 * (the instances of a parallel job's connector configured from one table's
 * options: the used mark is a relaxed atomic); setting may not.
 */
#ifndef SL_OPTS_H
#define SL_OPTS_H

#include <stdint.h>

#include "arena.h"
#include "err.h"

typedef struct sl_opt {
	const char *key, *value;
	int used;
} sl_opt;

typedef struct sl_opts {
	int n, cap;
	sl_opt *v;
	sl_arena *arena;
} sl_opts;

void sl_opts_init(sl_opts *o, sl_arena *a);

/* Sets key to value (replacing an existing value).  Copies both strings. */
int sl_opts_set(sl_opts *o, const char *key, const char *value);

/* Copies every entry of src into o (src's values win). */
int sl_opts_merge(sl_opts *o, const sl_opts *src);

/* Value of key or NULL; marks it used. */
const char *sl_opts_get(const sl_opts *o, const char *key);

/* Value of the first present key among key and its alias (2.x spelling). */
const char *sl_opts_get2(const sl_opts *o, const char *key, const char *alias);

/* Typed getters: return 0 and set *out (def when absent), or SL_EINVAL with
 * err naming the key and the bad value. */
int sl_opts_int(const sl_opts *o, const char *key, int64_t def, int64_t *out, sl_err *err);
int sl_opts_bool(const sl_opts *o, const char *key, int def, int *out, sl_err *err);
/* Durations: "10 s", "5 min", "1 h", "100 ms", "2 d", or plain ms; to micros. */
int sl_opts_duration(const sl_opts *o, const char *key, int64_t def_us, int64_t *out_us,
                     sl_err *err);
/* Sizes: "256 mb", "1 gb", "4kb", plain bytes. */
int sl_opts_size(const sl_opts *o, const char *key, int64_t def, int64_t *out, sl_err *err);

/* Parses a duration string into micros; returns 0 or -1. */
int sl_parse_duration(const char *s, int64_t *out_us);

/* First key that was never read, or NULL. */
const char *sl_opts_unused(const sl_opts *o);

#endif
