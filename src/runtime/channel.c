/*
 * channel.c - the bounded SPSC message queue of channel.h: a ring of
 * messages with a head index written only by the consumer and a tail
 * index written only by the producer, each on its own cache line with
 * that side's cached copy of the other index, and futex sleeps when the
 * ring is full or empty.
 *
 * Ordering (C11 atomics).  The producer writes a slot, then stores tail;
 * the consumer loads tail, then reads the slot: the store releases the
 * slot and the load acquires it.  Symmetrically the consumer's store of
 * head releases a slot it has finished reading before the producer, after
 * loading head, overwrites it.  Each side reads the other's index only
 * when its cached copy says full (producer) or empty (consumer), so a
 * stream of messages does not bounce the cache lines.
 *
 * Sleeping without lost wake-ups (the eventcount pattern).  A side about
 * to sleep reads its wake's sequence number s, sets `waiting`, then reads
 * the other side's index again; the other side stores its index, then
 * reads `waiting`, and when it is set bumps the sequence number and calls
 * FUTEX_WAKE.  All four accesses are sequentially consistent, so in their
 * single total order either the sleeper sees the new index (and does not
 * sleep) or the waker sees `waiting` (and bumps the sequence after the
 * sleeper read s, so FUTEX_WAIT(seq, s) returns at once or is woken).
 * No fences: ThreadSanitizer models sequentially consistent accesses but
 * not atomic_thread_fence.  On x86 each such store is one xchg, paid once
 * per message, not per row.
 *
 * Deferred wake-ups (sl_chan_set_lazy, docs/parallel.md §12).  A lazy
 * channel's producer skips the load of `waiting` (and the wake) for a
 * batch or watermark that is not the every-th since the last wake, and
 * counts it in `deferred` (its own line); sl_chan_kick later does what the
 * skipped push would have done, so the argument above holds with the
 * kick's load in place of the push's: it follows the index store in the
 * producer's program order.  The consumer is unchanged.  The price is
 * the producer's duty to kick before it waits for anything (channel.h).
 */
#include "channel.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CACHE_LINE 64

struct sl_chan {
	/* the consumer's line */
	_Alignas(CACHE_LINE) _Atomic size_t head; /* next slot to pop */
	size_t tail_seen;                         /* the consumer's last view of tail */
	sl_wake *data;                            /* where the consumer sleeps */
	/* the producer's line */
	_Alignas(CACHE_LINE) _Atomic size_t tail; /* next slot to fill */
	size_t head_seen;                         /* the producer's last view of head */
	int ended;                                /* an SL_CHAN_END was pushed */
	int lazy;                                 /* sl_chan_set_lazy's `every`, or 0 */
	int deferred;                             /* messages queued since the last wake */
	_Atomic uint64_t pushed, blocks, blocked_ns; /* written by the producer only */
	/* rarely written */
	_Alignas(CACHE_LINE) sl_wake *space;      /* where the producer sleeps */
	sl_wake own_space;                        /* the producer's when none is shared */
	sl_wake own;                              /* the consumer's when none is shared */
	_Atomic int cancelled;
	size_t mask;                              /* capacity - 1 */
	sl_chan_msg ring[];
};

static void futex_wait(_Atomic uint32_t *word, uint32_t expect, int64_t timeout_us)
{
	struct timespec ts, *tp = NULL;
	if (timeout_us >= 0) {
		ts.tv_sec = timeout_us / 1000000;
		ts.tv_nsec = (long)(timeout_us % 1000000) * 1000;
		tp = &ts;
	}
	/* EAGAIN (the word moved), EINTR and ETIMEDOUT all return to the
	 * caller, which checks its condition again */
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expect, tp, NULL, 0);
}

void sl_wake_init(sl_wake *w)
{
	atomic_init(&w->seq, 0);
	atomic_init(&w->waiting, 0);
}

/* Wakes w's owner if it is (about to be) asleep.  Called after the store
 * that makes its condition true (see the file comment).  The waker clears
 * `waiting` (an exchange) so that only the first of several pushes (or
 * pops) before the owner runs again pays the FUTEX_WAKE: strace of bench
 * job 1 at parallelism 2 on the loaded machine showed 3824 FUTEX_WAKE
 * calls for 3080 waits.  Still no lost wake-up: the owner re-checks its
 * condition after every store of waiting = 1, and a waker that finds 0
 * either stored its index before that store (the re-check sees it) or
 * found it cleared by another waker, whose wake-up makes the owner check
 * again. */
static void wake_if_waiting(sl_wake *w)
{
	if (!atomic_load(&w->waiting) || !atomic_exchange(&w->waiting, 0))
		return;
	atomic_fetch_add(&w->seq, 1);
	syscall(SYS_futex, (uint32_t *)&w->seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void wake_always(sl_wake *w)
{
	atomic_fetch_add(&w->seq, 1);
	syscall(SYS_futex, (uint32_t *)&w->seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

sl_chan *sl_chan_new(int cap, sl_wake *consumer)
{
	return sl_chan_new2(cap, consumer, NULL);
}

sl_chan *sl_chan_new2(int cap, sl_wake *consumer, sl_wake *producer)
{
	if (cap < 1 || cap > (1 << 24))
		return NULL;
	size_t n = 1;
	while (n < (size_t)cap)
		n <<= 1;
	size_t bytes = sizeof(sl_chan) + n * sizeof(sl_chan_msg);
	bytes = (bytes + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE; /* aligned_alloc's rule */
	sl_chan *c = aligned_alloc(CACHE_LINE, bytes);
	if (!c)
		return NULL;
	memset(c, 0, bytes);
	atomic_init(&c->head, 0);
	atomic_init(&c->tail, 0);
	atomic_init(&c->pushed, 0);
	atomic_init(&c->blocks, 0);
	atomic_init(&c->blocked_ns, 0);
	atomic_init(&c->cancelled, 0);
	sl_wake_init(&c->own_space);
	sl_wake_init(&c->own);
	c->data = consumer ? consumer : &c->own;
	c->space = producer ? producer : &c->own_space;
	c->mask = n - 1;
	return c;
}

void sl_chan_free(sl_chan *c)
{
	free(c);
}

int sl_chan_cap(const sl_chan *c)
{
	return (int)(c->mask + 1);
}

/* Adds to a counter only the producer writes (no read-modify-write). */
static void count(_Atomic uint64_t *ctr, uint64_t n)
{
	atomic_store_explicit(ctr, atomic_load_explicit(ctr, memory_order_relaxed) + n,
	                      memory_order_relaxed);
}

/* Producer: is there room at tail t?  Refreshes the cached head. */
static int has_room(sl_chan *c, size_t t)
{
	if (t - c->head_seen <= c->mask)
		return 1;
	c->head_seen = atomic_load(&c->head);
	return t - c->head_seen <= c->mask;
}

/* The consumer's wake-up for the messages queued since the last one. */
static void wake_consumer(sl_chan *c)
{
	c->deferred = 0;
	wake_if_waiting(c->data);
}

static void put(sl_chan *c, size_t t, const sl_chan_msg *m)
{
	c->ring[t & c->mask] = *m;
	if (m->kind == SL_CHAN_END)
		c->ended = 1;
	atomic_store(&c->tail, t + 1); /* releases the slot; seq_cst: see the file comment */
	count(&c->pushed, 1);
	/* lazy: a batch or watermark wakes the consumer only as the lazy-th
	 * unwoken message; the producer owes the rest a wake (sl_chan_kick) */
	if (c->lazy && (m->kind == SL_CHAN_BATCH || m->kind == SL_CHAN_WATERMARK) &&
	    ++c->deferred < c->lazy)
		return;
	wake_consumer(c);
}

void sl_chan_set_lazy(sl_chan *c, int every)
{
	c->lazy = every > 1 ? every : 0;
}

void sl_chan_kick(sl_chan *c)
{
	if (c->deferred)
		wake_consumer(c);
}

int sl_chan_try_push(sl_chan *c, const sl_chan_msg *m)
{
	if (c->ended)
		abort(); /* a message after the end: the runtime is broken */
	if (atomic_load_explicit(&c->cancelled, memory_order_relaxed))
		return -1;
	size_t t = atomic_load_explicit(&c->tail, memory_order_relaxed);
	if (!has_room(c, t)) {
		sl_chan_kick(c); /* the caller waits for the consumer: it must be awake */
		return 0;
	}
	put(c, t, m);
	return 1;
}

int sl_chan_push(sl_chan *c, const sl_chan_msg *m)
{
	if (c->ended)
		abort(); /* a message after the end: the runtime is broken */
	size_t t = atomic_load_explicit(&c->tail, memory_order_relaxed);
	if (!has_room(c, t)) {
		int64_t t0 = now_ns();
		sl_chan_kick(c); /* the consumer must be awake to make room */
		for (;;) {
			uint32_t s = atomic_load(&c->space->seq);
			atomic_store(&c->space->waiting, 1);
			if (has_room(c, t) || atomic_load(&c->cancelled))
				break;
			futex_wait(&c->space->seq, s, -1);
		}
		atomic_store(&c->space->waiting, 0);
		count(&c->blocks, 1);
		count(&c->blocked_ns, (uint64_t)(now_ns() - t0));
	}
	if (atomic_load_explicit(&c->cancelled, memory_order_relaxed))
		return -1;
	put(c, t, m);
	return 0;
}

/* Consumer: is there a message at head h?  Refreshes the cached tail. */
static int has_msg(sl_chan *c, size_t h)
{
	if (h != c->tail_seen)
		return 1;
	c->tail_seen = atomic_load(&c->tail);
	return h != c->tail_seen;
}

int sl_chan_try_pop(sl_chan *c, sl_chan_msg *m)
{
	if (atomic_load_explicit(&c->cancelled, memory_order_relaxed))
		return -1;
	size_t h = atomic_load_explicit(&c->head, memory_order_relaxed);
	if (!has_msg(c, h))
		return 0;
	*m = c->ring[h & c->mask];
	atomic_store(&c->head, h + 1); /* the slot is free again; seq_cst: see above */
	wake_if_waiting(c->space);
	return 1;
}

int sl_chan_pop(sl_chan *c, sl_chan_msg *m)
{
	for (;;) {
		int r = sl_chan_try_pop(c, m);
		if (r)
			return r > 0;
		sl_chan *one = c;
		sl_chan_wait_any(&one, 1, -1);
	}
}

/* Consumer: does c hold a message or is it cancelled? */
static int ready(sl_chan *c)
{
	return has_msg(c, atomic_load_explicit(&c->head, memory_order_relaxed)) ||
	       atomic_load(&c->cancelled);
}

int sl_chan_wait_any(sl_chan *const *c, int n, int64_t timeout_us)
{
	sl_wake *w = n > 0 ? c[0]->data : NULL;
	int64_t deadline = timeout_us > 0 ? now_ns() + timeout_us * 1000 : 0;
	for (;;) {
		for (int i = 0; i < n; i++)
			if (ready(c[i]))
				return i;
		if (!w || timeout_us == 0)
			return -1;
		uint32_t s = atomic_load(&w->seq);
		atomic_store(&w->waiting, 1);
		int i = 0;
		while (i < n && !ready(c[i]))
			i++;
		int64_t left = -1;
		if (i == n && timeout_us > 0 && (left = (deadline - now_ns()) / 1000) <= 0)
			i = -1; /* timed out */
		if (i == n)
			futex_wait(&w->seq, s, left);
		atomic_store(&w->waiting, 0);
		if (i < n)
			return i;
	}
}

void sl_chan_cancel(sl_chan *c)
{
	atomic_store(&c->cancelled, 1);
	wake_always(c->space);
	wake_always(c->data);
}

int sl_chan_writable(sl_chan *c)
{
	return has_room(c, atomic_load_explicit(&c->tail, memory_order_relaxed)) ||
	       atomic_load(&c->cancelled);
}

int sl_chan_drained(sl_chan *c)
{
	c->head_seen = atomic_load(&c->head);
	return c->head_seen == atomic_load_explicit(&c->tail, memory_order_relaxed) ||
	       atomic_load(&c->cancelled);
}

int sl_chan_readable(sl_chan *c)
{
	return ready(c);
}

void sl_chan_note_block(sl_chan *c, uint64_t ns)
{
	count(&c->blocks, 1);
	count(&c->blocked_ns, ns);
}

uint32_t sl_wake_arm(sl_wake *w)
{
	uint32_t s = atomic_load(&w->seq);
	atomic_store(&w->waiting, 1);
	return s;
}

void sl_wake_sleep(sl_wake *w, uint32_t s, int64_t timeout_us)
{
	futex_wait(&w->seq, s, timeout_us);
	atomic_store(&w->waiting, 0);
}

void sl_wake_disarm(sl_wake *w)
{
	atomic_store(&w->waiting, 0);
}

void sl_wake_all(sl_wake *w)
{
	wake_always(w);
}

void sl_chan_stats_get(const sl_chan *c, sl_chan_stats *out)
{
	out->pushed = atomic_load_explicit(&c->pushed, memory_order_relaxed);
	out->blocks = atomic_load_explicit(&c->blocks, memory_order_relaxed);
	out->blocked_ns = atomic_load_explicit(&c->blocked_ns, memory_order_relaxed);
}
