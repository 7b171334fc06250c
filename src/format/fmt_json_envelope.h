/*
 * fmt_json_envelope.h - internal: the one encoder of the JSON changelog
 * formats (debezium-json, canal-json, maxwell-json).  Each writes a row as
 * a JSON object between two literals that depend only on the format and
 * on whether the change adds the row (+I, +U) or takes it back (-U, -D);
 * a format describes itself with an sl_jenvelope table and points its
 * method table's encoder entries here (fmt_json_envelope.c).
 */
#ifndef SL_FMT_JSON_ENVELOPE_H
#define SL_FMT_JSON_ENVELOPE_H

#include "fmt_json.h"

/* How a format wraps one row: <open> {row as JSON} <close>, newline
 * included in <close>.  Static tables; the literals are copied as they are. */
typedef struct sl_jenvelope {
	const char *format;               /* "debezium-json": option prefix, messages */
	const char *add_open, *add_close; /* +I and +U */
	const char *del_open, *del_close; /* -U and -D */
} sl_jenvelope;

/* The encoder state of every envelope format (the vtab's encoder_size). */
typedef struct sl_jenv_encoder {
	sl_encoder base;
	sl_jopts o;              /* '<format>.timestamp-format.standard', ... */
	const sl_jenvelope *env; /* the format's table, static */
} sl_jenv_encoder;

/* encoder_init of an envelope format: reads the shared JSON options under
 * env->format's prefix and keeps env (not copied; it must be static).
 * Returns 0 or SL_EINVAL with err set for a bad option value. */
int sl__jenv_encoder_init(sl_encoder *e, const sl_jenvelope *env, const sl_opts *opts,
                          sl_err *err);

/* encode: appends row `row` of b wrapped in the envelope of its change
 * kind.  Returns 0 or SL_ENOMEM ("<format>: out of memory"). */
int sl__jenv_encode(sl_encoder *e, const sl_batch *b, int row, sl_buf *out, sl_err *err);

/* encoder_deinit: nothing to free (the vtab needs a function). */
void sl__jenv_encoder_deinit(sl_encoder *e);

#endif
