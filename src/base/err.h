/*
 * err.h - error messages with a place.
 *
 * Fallible internal functions return 0 or a negative SL_E* code (sluice.h)
 * and, on failure, write a message into an sl_err that the caller passed
 * down.  The message says where (SQL line and column; file, line and field;
 * topic, partition and offset) and what.  The first error written wins:
 * sl_err_set on an sl_err that already holds a message is ignored, so the
 * innermost, most precise message survives as the call stack unwinds;
 * callers that add context use sl_err_prefix.
 */
#ifndef SL_ERR_H
#define SL_ERR_H

#include <stddef.h>
#include <stdint.h>

/*
 * Internal return codes: signalling between the runtime's parts, never
 * returned by a function of include/sluice.h (whose codes, SL_OK and
 * SL_ENOMEM .. SL_ESTATE, every file here uses too).  Their values do not
 * collide with the public ones; -9 stays reserved in sluice.h so the
 * public codes keep their values.  (Formats have one more of their own,
 * SL_EFULL in format/format.h.)
 */
#define SL_EEOF (-9) /* end of input: a source or a pump has nothing more */

#define SL_ERR_MAX 1024

typedef struct sl_err {
	int code;            /* negative SL_E* code, 0 when clear */
	char msg[SL_ERR_MAX];
	/* Optional caret support for SQL errors: the 1-based line and column of
	 * the error in sql_text, 0 when not a SQL text error. */
	int line, col;
	/* Run-time errors of expression evaluation (expr_eval.c): 1 + the
	 * physical index of the row that failed in batch row_batch (0:
	 * unknown).  Operators that keep row positions (Calc) move row_batch
	 * to their input batch as the error unwinds, so the scan that emitted
	 * the batch can name the row's source position (op_scan.c). */
	int row;
	const void *row_batch;
	/* Bad input and run-time errors of one input row: the row's file
	 * (in_file, "" for rows pushed through the API) and 1-based line
	 * (in_line, 0 when unknown).  Set with sl_err_input. */
	int64_t in_line;
	char in_file[SL_ERR_MAX];
} sl_err;

/* Clears the error. */
void sl_err_clear(sl_err *e);

/* Records code and a printf-style message unless an error is already set.
 * Returns code, so `return sl_err_set(e, SL_EPLAN, ...)` reads naturally.
 * e may be NULL (then only the code is returned). */
int sl_err_set(sl_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like sl_err_set for SQL text errors: also records line and column. */
int sl_err_set_at(sl_err *e, int code, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Prepends "prefix: " to an existing message (no-op if none). */
void sl_err_prefix(sl_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prepends "line L, column C: " to an existing message and records that
 * SQL position as the error's (no-op if no error is set): the context of
 * an error made without a place (a cast, a kernel) at the expression that
 * failed. */
void sl_err_prefix_at(sl_err *e, int line, int col);

/* Records the input place of an existing error: file (NULL or "" for rows
 * pushed through the API) and 1-based line.  The first place recorded
 * wins, like the message; a no-op without an error or with line <= 0. */
void sl_err_input(sl_err *e, const char *file, int64_t line);

/* Appends printf-style text to an existing message (no-op if none). */
void sl_err_append(sl_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Name of a return code ("syntax error", "planning error", ...). */
const char *sl_err_name(int code);

#endif
