/*
 * status.h - the live status line of `sluice run` on a terminal
 * (status.c, docs/observability.md).
 */
#ifndef SL_CLI_STATUS_H
#define SL_CLI_STATUS_H

#include <stddef.h>

#include "sluice.h"

typedef struct sl_status sl_status;

/*
 * Starts redrawing the status line of e's job on standard error, from a
 * thread of its own, at most 4 times a second, when standard error is a
 * terminal (TERM not "dumb").  Returns the status line, or NULL when it
 * is off (not a terminal, or the thread could not start).  e must stay
 * open until sl_status_stop.
 */
sl_status *sl_status_start(sl_engine *e);

/* Stops the thread and erases the line (the terminal is as before);
 * safe on NULL. */
void sl_status_stop(sl_status *s);

/* From a signal handler before _exit: gives the terminal back its whole
 * screen (async-signal-safe: one write). */
void sl_status_abandon(void);

/*
 * Formats the status line of snapshot m into buf (cap bytes, at most
 * width characters when width > 0): elapsed time, rows read per source
 * with their rate and percent done, the job's watermark and its lag, rows
 * per sink, late rows, the last checkpoint.  Returns its length.
 */
size_t sl_status_format(const sl_metrics *m, char *buf, size_t cap, int width);

#endif
