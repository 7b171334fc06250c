/*
 * channel.h - a bounded single-producer single-consumer queue of messages
 * between two threads of a parallel job (docs/parallel.md, "Channels").
 *
 * One channel is one edge between an instance of an operator chain and an
 * instance downstream: exactly one thread pushes and exactly one thread
 * pops.  A message is a batch pointer or a control message (watermark,
 * checkpoint barrier, end of input), and they arrive in the order they
 * were pushed, so watermarks and barriers stay in place among the rows as
 * the design contract requires (DESIGN.md §3: "control messages travel in
 * the same channel, in order").
 *
 * Bounded: a channel holds at most its capacity (rounded up to a power of
 * two).  sl_chan_push on a full channel blocks until the consumer pops;
 * that wait is the job's backpressure, and the channel counts how long
 * its producer spent blocked (sl_chan_stats: --stats per edge).  The
 * consumer blocks on an empty channel, or on several at once
 * (sl_chan_wait_any) when its channels share one sl_wake.
 *
 * The queue is a lock-free ring; threads sleep on a futex only when the
 * ring is full (producer) or empty (consumer), so a message that finds
 * room costs a slot copy, one sequentially consistent store and one load.
 * Cancelling a channel (sl_chan_cancel, a failing job) wakes both sides:
 * a blocked push returns and later pushes and pops fail.
 *
 * Batches travel by pointer and stay owned by the producer: the consumer
 * reads a batch and hands it back (docs/parallel.md: through a second
 * channel in the other direction) before the producer may reset it.
 */
#ifndef SL_CHANNEL_H
#define SL_CHANNEL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct sl_batch;

/* What a message carries. */
typedef enum sl_chan_kind {
	SL_CHAN_BATCH = 1, /* batch: rows (value unused) */
	SL_CHAN_WATERMARK, /* value: the sender's watermark (micros; SL_WM_MAX at the end) */
	SL_CHAN_BARRIER,   /* value: the checkpoint id; flags: SL_CHAN_F_* */
	SL_CHAN_END,       /* end of input: the last message of the channel */
	SL_CHAN_MARKER,    /* value: the marker's id (a drain: exchange.h, prun.h) */
} sl_chan_kind;

/* Barrier flags. */
enum {
	SL_CHAN_F_SAVEPOINT = 1, /* the barrier of a savepoint */
	SL_CHAN_F_FINAL = 2,     /* the final checkpoint at the end of all inputs */
};

/* One message (copied into and out of the ring). */
typedef struct sl_chan_msg {
	uint32_t kind;          /* sl_chan_kind */
	uint32_t flags;         /* SL_CHAN_BARRIER: SL_CHAN_F_* */
	int64_t value;          /* watermark or checkpoint id */
	struct sl_batch *batch; /* SL_CHAN_BATCH: the batch, still the producer's */
} sl_chan_msg;

/*
 * Where a consumer thread sleeps.  Every channel has one; a consumer with
 * several input channels gives them one shared sl_wake (sl_chan_new) and
 * waits on all of them at once with sl_chan_wait_any.  Only its owner
 * thread waits on it; any thread may wake it.
 */
typedef struct sl_wake {
	_Atomic uint32_t seq;     /* futex word: bumped by every wake-up */
	_Atomic uint32_t waiting; /* the owner is about to sleep or asleep */
} sl_wake;

/* Initializes a wake (no one waiting). */
void sl_wake_init(sl_wake *w);

/*
 * Sleeping on a wake shared by several conditions (the owner thread
 * only; prun.c: one wake per thread for all its channels, both sides).
 * s = sl_wake_arm(w), then check every condition (sl_chan_readable,
 * sl_chan_writable, ...); when none holds sl_wake_sleep(w, s, timeout_us)
 * (timeout_us < 0: no limit), else sl_wake_disarm(w).  No wake-up is
 * lost: a change made after the conditions were checked bumps w's
 * sequence (channel.c's file comment), so the sleep returns at once.
 * Spurious returns happen; the caller checks again.  sl_wake_all wakes
 * the owner whether it is waiting or not (any thread).
 */
uint32_t sl_wake_arm(sl_wake *w);
void sl_wake_sleep(sl_wake *w, uint32_t s, int64_t timeout_us);
void sl_wake_disarm(sl_wake *w);
void sl_wake_all(sl_wake *w);

typedef struct sl_chan sl_chan;

/*
 * A channel of at least cap messages (rounded up to a power of two; cap
 * >= 1).  The consumer sleeps on `consumer` when not NULL (shared by the
 * consumer's input channels; it must outlive the channel), else on the
 * channel's own wake.  Returns NULL when out of memory or cap < 1.
 */
sl_chan *sl_chan_new(int cap, sl_wake *consumer);

/* As sl_chan_new, and the producer sleeps on (and is woken through)
 * `producer` when not NULL, else on the channel's own. */
sl_chan *sl_chan_new2(int cap, sl_wake *consumer, sl_wake *producer);

/* Frees c (no thread may use it any more).  NULL is a no-op. */
void sl_chan_free(sl_chan *c);

/* The capacity in messages (a power of two). */
int sl_chan_cap(const sl_chan *c);

/*
 * Producer: appends *m, blocking while the channel is full.  Returns 0,
 * or -1 when the channel is cancelled (m was not queued).  Pushing after
 * an SL_CHAN_END message is a programming error.
 */
int sl_chan_push(sl_chan *c, const sl_chan_msg *m);

/* Producer: appends *m when there is room.  Returns 1 queued, 0 full, -1
 * cancelled.  Never blocks. */
int sl_chan_try_push(sl_chan *c, const sl_chan_msg *m);

/*
 * Deferred wake-ups (docs/parallel.md §12).  After sl_chan_set_lazy(c,
 * every) (every > 1; 0 or 1: off, the default), a pushed batch or
 * watermark wakes a sleeping consumer only when it is the every-th
 * message queued since the consumer was last woken; the others are owed
 * a wake, which the producer must give with sl_chan_kick before it sleeps,
 * blocks or waits for the consumer in any way, and may give at any time
 * (a no-op when nothing is owed).  END, markers and barriers always wake
 * (and pay what is owed); so does a push that finds the channel full
 * (sl_chan_try_push returning 0, a blocking sl_chan_push).  Producer
 * only: both.
 */
void sl_chan_set_lazy(sl_chan *c, int every);
void sl_chan_kick(sl_chan *c);

/*
 * Consumer: takes the oldest message into *m, blocking while the channel
 * is empty.  Returns 1, or 0 when the channel is cancelled (messages
 * still queued are dropped with it).
 */
int sl_chan_pop(sl_chan *c, sl_chan_msg *m);

/* Consumer: takes the oldest message when there is one.  Returns 1 taken,
 * 0 empty, -1 cancelled.  Never blocks. */
int sl_chan_try_pop(sl_chan *c, sl_chan_msg *m);

/*
 * Consumer: waits until one of c[0..n) holds a message or is cancelled,
 * or timeout_us microseconds passed (timeout_us < 0: no limit; 0: only
 * check).  Every c[i] must have been made with the same `consumer` wake.
 * Returns the index of the first such channel in c[] order, or -1 on
 * timeout.  Pops nothing.
 */
int sl_chan_wait_any(sl_chan *const *c, int n, int64_t timeout_us);

/* Consumer: 1 when c holds a message or is cancelled (pops nothing).
 * Producer: 1 when c has room or is cancelled.  Producer: 1 when the
 * consumer has taken every message pushed (or c is cancelled). */
int sl_chan_readable(sl_chan *c);
int sl_chan_writable(sl_chan *c);
int sl_chan_drained(sl_chan *c);

/* Producer: counts a wait of ns nanoseconds for room that the producer
 * spent outside sl_chan_push (sl_chan_stats: blocks, blocked_ns). */
void sl_chan_note_block(sl_chan *c, uint64_t ns);

/* Any thread: cancels c (a failing or stopping job): wakes both sides;
 * pushes and pops fail from now on.  Idempotent. */
void sl_chan_cancel(sl_chan *c);

/* Figures of a channel, readable from any thread while it runs (each
 * field is exact; the three together are not one instant). */
typedef struct sl_chan_stats {
	uint64_t pushed;     /* messages queued */
	uint64_t blocks;     /* pushes that found the channel full and slept */
	uint64_t blocked_ns; /* time the producer spent asleep in them */
} sl_chan_stats;

void sl_chan_stats_get(const sl_chan *c, sl_chan_stats *out);

#endif
