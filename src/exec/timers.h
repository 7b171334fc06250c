/*
 * timers.h - event-time timers: "fire everything due at watermark W, in
 * time order, then drop it", written once for the operators that close
 * windows, sessions or join buffers when the watermark passes them.
 *
 * Two forms, both kept in state tables (state.h), so they are part of
 * every checkpoint without code of their own and survive a restore:
 *
 * Keyed timers (sl_timers): a table of its own, namespace = the timer's
 * time, key = the key (a group or join key) that needs attention then,
 * value unused (8 zero bytes).  Setting a timer that exists is a no-op.
 * sl_timers_fire(W) fires every timer with time <= W, smallest time first
 * (within one time, in the table's scan order, state.h): it collects the
 * keys of that time, drops them, then calls the callback once per key.
 * A callback may set new timers; one at a time <= W fires in the same call,
 * after the current time's keys.  Timers may be stale (a session grew
 * after its timer was set): the callback re-derives what is due from the
 * key's state, so a stale timer costs a lookup and nothing else.
 * Used by the session aggregate, the session table function, the interval
 * join and the temporal join (its versions).
 *
 * Namespace timers (sl_ns_timers): the namespaces of the operator's own
 * state tables are the timers (a window's end, for window state), so
 * nothing extra is stored.  sl_ns_timers_fire(W) visits every namespace
 * ns <= W of the tables (their union), in ascending order: it calls the
 * callback for each ns above the last W fired (`fired`), then drops ns
 * from every table once ns <= W - retain (retain 0: at once; retain L:
 * ALLOWED LATENESS keeps a fired window's state for L more).  `fired` and
 * `next` are plain fields the operator reads (lateness checks, a fast
 * path that skips firing below `next`) and snapshots if it needs them.
 * Used by the window aggregate, window join and window Top-N, and (fired up
 * to W - 1, their rule being ts < W) the OVER aggregate, the event-time
 * keep-first deduplication and the temporal join (its probes).
 *
 * Both are driven by the operator in its watermark method, before the
 * watermark is forwarded: at the operator's watermark only, never at a
 * row's W_before (op.h, docs/parallel.md §4).  One thread (the job's); no allocation per
 * timer beyond the state table's own and a reused key buffer.
 */
#ifndef SL_TIMERS_H
#define SL_TIMERS_H

#include "../base/buf.h"
#include "op.h"

/* ---- keyed timers --------------------------------------------------------- */

/*
 * Called for one due timer: its time ts and key (klen bytes; valid during
 * the call only).  Returns 0, or a negative SL_E* code with err set, which
 * stops the firing and is returned by sl_timers_fire.
 */
typedef int (*sl_timer_cb)(void *ctx, int64_t ts, const void *key, uint32_t klen, sl_err *err);

typedef struct sl_timers {
	sl_state_table *t; /* namespace = time, key = key, 8-byte unused value */
	sl_buf due;        /* keys of the time being fired: (u32 len, bytes)... */
} sl_timers;

/*
 * Opens the timer table `name` of operator op (its state backend, no
 * TTL).  tm may be zero-filled before.  Returns 0 or a negative code with
 * err set.
 */
int sl_timers_open(sl_timers *tm, sl_op *op, const char *name, sl_err *err);

/* Frees the key buffer (the table belongs to the backend).  Safe on a
 * zero-filled sl_timers. */
void sl_timers_deinit(sl_timers *tm);

/* Sets a timer for key at time ts (no-op when set).  Returns 0 or
 * SL_ENOMEM with err set. */
int sl_timers_set(sl_timers *tm, int64_t ts, const void *key, uint32_t klen, sl_err *err);

/*
 * Fires every timer with time <= w in time order (see above) and removes
 * it before its callback runs.  The callback must not call sl_timers_fire
 * on the same tm.  Returns 0, SL_ENOMEM (err set) or the callback's error;
 * after an error the timers of the time being fired that were not handled
 * yet are lost, which is what the job's failure discards anyway.
 */
int sl_timers_fire(sl_timers *tm, int64_t w, sl_timer_cb cb, void *ctx, sl_err *err);

/* ---- namespace timers ------------------------------------------------------ */

#define SL_NS_TIMERS_MAX 4

/* Called for one namespace to fire.  Returns 0 or a negative code (err set). */
typedef int (*sl_ns_cb)(void *ctx, int64_t ns, sl_err *err);

typedef struct sl_ns_timers {
	sl_state_table *tabs[SL_NS_TIMERS_MAX];
	int ntabs;
	int64_t retain; /* drop a fired namespace once W >= ns + retain */
	int64_t fired;  /* namespaces <= fired have fired (SL_WM_MIN: none) */
	int64_t next;   /* after a fire: smallest namespace > fired, INT64_MAX
	                 * for none; SL_WM_MIN when unknown (after init) */
} sl_ns_timers;

/* Initializes t over no tables with the given retention (>= 0). */
void sl_ns_timers_init(sl_ns_timers *t, int64_t retain);

/* Adds a table whose namespaces are timers (and are dropped with them).
 * At most SL_NS_TIMERS_MAX; NULL is ignored. */
void sl_ns_timers_add(sl_ns_timers *t, sl_state_table *tab);

/*
 * Advances to watermark w: when w > fired, calls cb for every namespace
 * fired < ns <= w of the tables, ascending, drops each visited ns <= w -
 * retain from every table (after its callback), sets fired = w and next.
 * w <= fired: nothing.  cb must not drop namespaces itself but may write
 * to the tables (a namespace it creates above the one being fired is
 * visited in turn if <= w).  Returns 0 or cb's error (fired unchanged).
 */
int sl_ns_timers_fire(sl_ns_timers *t, int64_t w, sl_ns_cb cb, void *ctx, sl_err *err);

#endif
