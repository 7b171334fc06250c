/*
 * hugepage.h - keeping the memory backend's state in huge pages across
 * forked checkpoint writers.
 *
 * The memory backend's state lives in 2 MB transparent huge pages so that
 * fork() copies one page-table entry per 2 MB instead of 512 (the time
 * processing is blocked at a checkpoint; docs/checkpoints.md).  But while
 * a forked writer runs, the first write of the parent into a shared huge
 * page splits its mapping into 4 KB pages (copy-on-write copies 4 KB), and
 * the kernel does not merge them back by itself for a long time.  After a
 * few checkpoints most of the state is mapped with 4 KB pages and the fork
 * costs what it would without huge pages.
 *
 * The collapser undoes that: after a writer has exited, a background thread
 * asks the kernel to map each 2 MB region of the backend with a huge page
 * again (madvise MADV_COLLAPSE, Linux 6.1), one region per call, while the
 * job thread goes on.  Before the next fork the job thread pauses it; a
 * paused collapser thread holds no lock, so the child (which runs only the
 * forking thread) is safe.  Collapsing never changes memory contents, so a
 * region list that is stale (an index array freed and its address reused)
 * is harmless: the kernel collapses whatever is mapped there or fails the
 * call, which is ignored.
 *
 * Threading: sl_collapser_* are called by the job thread only (at
 * parallelism > 1 the coordinating thread: the checkpoint coordinator).
 */
#ifndef SL_HUGEPAGE_H
#define SL_HUGEPAGE_H

#include "state.h"

typedef struct sl_collapser sl_collapser;

/* Creates a collapser (its thread starts at the first sl_collapser_run).
 * Returns NULL when out of memory. */
sl_collapser *sl_collapser_new(void);

/* Takes the backend's huge-page regions (sl_state_regions) and has the
 * thread collapse them.  Work not done from an earlier call is replaced.
 * Never fails: without memory or a thread nothing is collapsed. */
void sl_collapser_run(sl_collapser *c, sl_state_backend *be);

/* The same in two steps, for several backends (a parallel job's
 * instances, docs/parallel.md §5): take lists the backends' regions now,
 * when none of them changes (the instances parked at the barrier, before
 * the fork); go has the thread collapse that list (after the forked
 * writer exited: the list may be stale by then, which is harmless, see
 * above).  A later take replaces a list not yet handed to go. */
void sl_collapser_take(sl_collapser *c, sl_state_backend *const *bes, int n);
void sl_collapser_go(sl_collapser *c);

/* Stops the thread's current work and waits until it is idle (at most one
 * madvise call, well under a millisecond).  Call before fork(). */
void sl_collapser_pause(sl_collapser *c);

/* Stops and joins the thread and frees c.  Safe on NULL. */
void sl_collapser_free(sl_collapser *c);

#endif
