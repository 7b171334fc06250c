/*
 * valtext.h - values as text, the way Flink prints them.
 *
 * Used by the print sink, CSV and JSON encoders, CAST(x AS STRING) and the
 * test runner: one place decides how a BOOLEAN, a DECIMAL or a TIMESTAMP is
 * spelled ("TRUE", "12.50", "2026-08-01 09:00:05.123").
 */
#ifndef SL_VALTEXT_H
#define SL_VALTEXT_H

#include "../base/buf.h"
#include "types.h"
#include "batch.h"

/*
 * Appends the text form of row `row` of column c (type c->type) to out.
 * NULL is written as `null_text` (NULL pointer = "NULL").  ROW values are
 * written as "(a, b)" for print and as nested JSON objects by fmt_json (it
 * has its own writer); ARRAY and MAP as Flink's CAST to STRING writes
 * them, "[1, NULL]" and "{a=1, b=NULL}".  tz is the session time zone for TIMESTAMP_LTZ.
 * Returns 0 or SL_ENOMEM.
 */
int sl_value_text(const sl_col *c, int row, const char *null_text, const char *tz, sl_buf *out);

/* Java's Double.toString (is_float 0) / Float.toString (is_float 1) of d:
 * "5.0", "0.1", "1.0E10", "1.0E-4", "NaN", "-Infinity".  buf >= 32 bytes.
 * Returns the length. */
int sl_double_text(double d, int is_float, char *buf);

/* Flink's text of intervals: day-time micros as "+0 00:00:05.000",
 * year-month months as "+1-02".  buf >= 40 bytes.  Return the length. */
int sl_interval_dt_text(int64_t us, char *buf);
int sl_interval_ym_text(int64_t months, char *buf);

#endif
