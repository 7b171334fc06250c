/*
 * counter.h - counters and gauges that one thread writes and other
 * threads read while it runs (docs/observability.md).
 *
 * An operator's counters (rows in and out, late rows), its watermarks, a
 * source's skipped rows and a channel's blocked time are written by the
 * thread that runs the operator only, and read by the metrics snapshot
 * (src/api/metrics.c) from any thread: the status line, the HTTP
 * endpoint, an embedding program.  Each write is a relaxed atomic store
 * of the writer's own plain load plus n, each foreign read a relaxed
 * atomic load.  On x86-64 and arm64 SL_CTR_ADD compiles to the same
 * load, add and store as `x += n` (no lock prefix, no fence: measured in
 * docs/performance.md, "Metrics"), and under the C11 memory model there
 * is no data race (ThreadSanitizer agrees: make tsan).  A reader sees
 * each value whole but no consistency between two of them (rows out of an
 * operator may lead rows in of its consumer by a batch): a live view,
 * not a checkpoint.  The writer may keep reading the field plainly.
 */
#ifndef SL_COUNTER_H
#define SL_COUNTER_H

/* x += n, by the only thread that writes x. */
#define SL_CTR_ADD(x, n) __atomic_store_n(&(x), (x) + (n), __ATOMIC_RELAXED)
/* x = v, by the only thread that writes x. */
#define SL_CTR_SET(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* x, from any thread. */
#define SL_CTR_GET(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

#endif
