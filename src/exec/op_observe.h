/*
 * op_observe.h - what operators publish for the live metrics besides
 * their counters: what they hold and the late rows of the last minute
 * (op_observe.c, docs/observability.md).
 */
#ifndef SL_OP_OBSERVE_H
#define SL_OP_OBSERVE_H

#include <stddef.h>
#include <stdint.h>

#include "op.h"

struct sl_graph;

#define SL_LATE_KEEP 4   /* late rows kept per operator instance */
#define SL_LATE_ROW 160  /* bytes of each one's text */

/* The operator whose open method runs on this thread (set by
 * sl_graph_open around it), for sl_op_pending_register. */
extern __thread sl_op *sl__op_opening;

/*
 * Registers t as a table of op whose namespaces are times (windows' ends,
 * pending rows' times, timers), at most two per operator; op NULL = the
 * operator being opened on this thread (timers.c calls it for the tables
 * of sl_timers and sl_ns_timers).  Its own thread, before the job runs.
 */
void sl_op_pending_register(sl_op *op, sl_state_table *t);

/*
 * Publishes what the operators of g hold into op->pub (see op_observe.c):
 * at most every 250 ms, or at once when idle != 0 (the caller is about to
 * sleep), for the operators that changed since.  On g's thread, between
 * steps.
 */
void sl_graph_publish(struct sl_graph *g, int idle);

/*
 * The late rows of op in the minute before now_us (wall clock): returns
 * their count and copies the newest one's text into row (cap bytes; ""
 * when none), with when it was dropped (*at_us, 0: none) and its W_before
 * (*wm).  Any thread (takes the ring's mutex).
 */
int64_t sl_op_late_read(sl_op *op, int64_t now_us, char *row, size_t cap, int64_t *at_us,
                        int64_t *wm);

/* Frees the late-row ring (sl_op_free). */
void sl_op_observe_free(sl_op *op);

#endif
