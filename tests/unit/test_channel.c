/*
 * test_channel.c - the bounded SPSC channel (src/runtime/channel.h):
 * messages come out in order with their kind, flags, value and batch
 * pointer; the ring wraps around; the capacity is a power of two; a full
 * channel blocks its producer and an empty one its consumer until the
 * other side moves; END is the last message and a push after it aborts;
 * a consumer waits on several channels sharing one wake, with a timeout;
 * cancelling wakes a blocked producer and consumer; a million messages
 * between two threads through small rings arrive intact and in order, and
 * so do the messages of three producers into channels sharing one
 * consumer's wake; and
 * the producer's blocked time counts its sleeps and nothing else; a lazy
 * channel (sl_chan_set_lazy) defers exactly the wake-ups channel.h says
 * and, kicked after each burst, never leaves its consumer asleep.  `make
 * tsan` runs this program under ThreadSanitizer.
 */
#include "harness.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/channel.h"

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

static sl_chan_msg msg(uint32_t kind, int64_t value)
{
	sl_chan_msg m = {kind, 0, value, NULL};
	if (kind == SL_CHAN_BATCH)
		m.batch = (struct sl_batch *)(uintptr_t)(0x1000 + 16 * value);
	return m;
}

static void test_order_and_kinds(void **st)
{
	sl_chan *c = sl_chan_new(8, NULL);
	assert_non_null(c);
	assert_int_equal(sl_chan_cap(c), 8);
	sl_chan_msg in[8] = {
		msg(SL_CHAN_BATCH, 1), msg(SL_CHAN_WATERMARK, -5), msg(SL_CHAN_BATCH, 2),
		msg(SL_CHAN_BARRIER, 7), msg(SL_CHAN_WATERMARK, INT64_MAX), msg(SL_CHAN_BATCH, 3),
		msg(SL_CHAN_BARRIER, 8), msg(SL_CHAN_BATCH, 4),
	};
	in[6].flags = SL_CHAN_F_SAVEPOINT | SL_CHAN_F_FINAL;
	sl_chan_msg out;
	assert_int_equal(sl_chan_try_pop(c, &out), 0); /* empty */
	for (int i = 0; i < 8; i++)
		assert_int_equal(sl_chan_push(c, &in[i]), 0);
	assert_int_equal(sl_chan_try_push(c, &in[0]), 0); /* full */
	for (int i = 0; i < 8; i++) {
		assert_int_equal(sl_chan_pop(c, &out), 1);
		assert_int_equal(out.kind, in[i].kind);
		assert_int_equal(out.flags, in[i].flags);
		assert_true(out.value == in[i].value);
		assert_ptr_equal(out.batch, in[i].batch);
	}
	assert_int_equal(sl_chan_try_pop(c, &out), 0);
	sl_chan_stats s;
	sl_chan_stats_get(c, &s);
	assert_int_equal(s.pushed, 8);
	assert_int_equal(s.blocks, 0); /* never found full by a blocking push */
	assert_int_equal(s.blocked_ns, 0);
	sl_chan_free(c);
}

static void test_capacity(void **st)
{
	assert_null(sl_chan_new(0, NULL));
	assert_null(sl_chan_new(-3, NULL));
	int want[][2] = {{1, 1}, {2, 2}, {3, 4}, {5, 8}, {64, 64}, {65, 128}};
	for (int i = 0; i < 6; i++) {
		sl_chan *c = sl_chan_new(want[i][0], NULL);
		assert_non_null(c);
		assert_int_equal(sl_chan_cap(c), want[i][1]);
		/* exactly cap messages fit */
		sl_chan_msg m = msg(SL_CHAN_WATERMARK, 0);
		for (int k = 0; k < want[i][1]; k++)
			assert_int_equal(sl_chan_try_push(c, &m), 1);
		assert_int_equal(sl_chan_try_push(c, &m), 0);
		sl_chan_free(c);
	}
	sl_chan_free(NULL);
}

/* Fill levels 0..cap in every phase of a small ring, thousands of laps. */
static void test_wrap_around(void **st)
{
	sl_chan *c = sl_chan_new(4, NULL);
	int64_t next_in = 0, next_out = 0;
	for (int round = 0; round < 20000; round++) {
		int fill = round % 5, drain = (round * 7) % 5;
		for (int k = 0; k < fill; k++) {
			sl_chan_msg m = msg(SL_CHAN_BATCH, next_in);
			int r = sl_chan_try_push(c, &m);
			if (r == 0)
				break;
			assert_int_equal(r, 1);
			next_in++;
		}
		assert_true(next_in - next_out <= 4);
		for (int k = 0; k < drain; k++) {
			sl_chan_msg m;
			int r = sl_chan_try_pop(c, &m);
			if (r == 0) {
				assert_true(next_in == next_out);
				break;
			}
			assert_true(m.value == next_out);
			assert_ptr_equal(m.batch, msg(SL_CHAN_BATCH, next_out).batch);
			next_out++;
		}
	}
	assert_true(next_in > 10000); /* thousands of laps of a 4-slot ring */
	sl_chan_free(c);
}

/* ---- two threads --------------------------------------------------------- */

typedef struct pusher {
	sl_chan *c;
	int64_t n;       /* push values 0..n) as batches */
	int end;         /* then an END */
	_Atomic int done;
	int rc;          /* the last push's result */
} pusher;

static void *push_main(void *arg)
{
	pusher *p = arg;
	for (int64_t i = 0; i < p->n && p->rc == 0; i++) {
		sl_chan_msg m = msg(i % 3 == 2 ? SL_CHAN_WATERMARK : SL_CHAN_BATCH, i);
		p->rc = sl_chan_push(p->c, &m);
	}
	if (p->end && p->rc == 0) {
		sl_chan_msg m = msg(SL_CHAN_END, 0);
		p->rc = sl_chan_push(p->c, &m);
	}
	atomic_store(&p->done, 1);
	return NULL;
}

static void test_producer_blocks_when_full(void **st)
{
	sl_chan *c = sl_chan_new(4, NULL);
	pusher p = {c, 5, 0, 0, 0};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, push_main, &p), 0);
	sl_chan_stats s;
	do { /* until the channel is full */
		sleep_ms(1);
		sl_chan_stats_get(c, &s);
	} while (s.pushed < 4);
	sleep_ms(100);
	assert_int_equal(atomic_load(&p.done), 0); /* the 5th push waits */
	sl_chan_msg m;
	assert_int_equal(sl_chan_pop(c, &m), 1);
	assert_true(m.value == 0);
	pthread_join(th, NULL);
	assert_int_equal(p.rc, 0);
	for (int i = 1; i < 5; i++) {
		assert_int_equal(sl_chan_pop(c, &m), 1);
		assert_true(m.value == i);
	}
	sl_chan_stats_get(c, &s);
	assert_int_equal(s.pushed, 5);
	assert_int_equal(s.blocks, 1);
	/* it slept most of the 100 ms we waited (less only if it was not
	 * scheduled between its 4th push and the 5th) */
	assert_true(s.blocked_ns >= 50 * 1000000ull);
	sl_chan_free(c);
}

typedef struct popper {
	sl_chan *c;
	sl_chan_msg got;
	_Atomic int done;
	int rc;
} popper;

static void *pop_main(void *arg)
{
	popper *p = arg;
	p->rc = sl_chan_pop(p->c, &p->got);
	atomic_store(&p->done, 1);
	return NULL;
}

static void test_consumer_blocks_when_empty(void **st)
{
	sl_chan *c = sl_chan_new(4, NULL);
	popper p = {c, {0}, 0, 0};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, pop_main, &p), 0);
	sleep_ms(50);
	assert_int_equal(atomic_load(&p.done), 0);
	sl_chan_msg m = msg(SL_CHAN_BARRIER, 42);
	assert_int_equal(sl_chan_push(c, &m), 0);
	pthread_join(th, NULL);
	assert_int_equal(p.rc, 1);
	assert_int_equal(p.got.kind, SL_CHAN_BARRIER);
	assert_true(p.got.value == 42);
	sl_chan_free(c);
}

static void test_end_is_last(void **st)
{
	sl_chan *c = sl_chan_new(2, NULL);
	pusher p = {c, 10, 1, 0, 0};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, push_main, &p), 0);
	sl_chan_msg m;
	int64_t n = 0;
	for (;;) {
		assert_int_equal(sl_chan_pop(c, &m), 1);
		if (m.kind == SL_CHAN_END)
			break;
		assert_true(m.value == n);
		n++;
	}
	pthread_join(th, NULL);
	assert_true(n == 10);
	assert_int_equal(sl_chan_try_pop(c, &m), 0);
	/* a push after the end is a broken runtime: it aborts */
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		sl_chan_msg b = msg(SL_CHAN_BATCH, 1);
		sl_chan_try_push(c, &b);
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	sl_chan_free(c);
}

static void test_cancel_wakes_both(void **st)
{
	/* a producer asleep on a full channel */
	sl_chan *c = sl_chan_new(1, NULL);
	pusher p = {c, 3, 0, 0, 0};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, push_main, &p), 0);
	sleep_ms(30);
	assert_int_equal(atomic_load(&p.done), 0);
	sl_chan_cancel(c);
	pthread_join(th, NULL);
	assert_int_equal(p.rc, -1);
	sl_chan_msg m = msg(SL_CHAN_BATCH, 0);
	assert_int_equal(sl_chan_try_push(c, &m), -1);
	assert_int_equal(sl_chan_push(c, &m), -1);
	assert_int_equal(sl_chan_try_pop(c, &m), -1);
	assert_int_equal(sl_chan_pop(c, &m), 0);
	sl_chan_cancel(c); /* idempotent */
	sl_chan_free(c);

	/* a consumer asleep on an empty one */
	c = sl_chan_new(4, NULL);
	popper q = {c, {0}, 0, 0};
	assert_int_equal(pthread_create(&th, NULL, pop_main, &q), 0);
	sleep_ms(30);
	assert_int_equal(atomic_load(&q.done), 0);
	sl_chan_cancel(c);
	pthread_join(th, NULL);
	assert_int_equal(q.rc, 0);
	sl_chan_free(c);
}

typedef struct delayed {
	sl_chan *c;
	int ms;
	int64_t value;
} delayed;

static void *delayed_push(void *arg)
{
	delayed *d = arg;
	sleep_ms(d->ms);
	sl_chan_msg m = msg(SL_CHAN_WATERMARK, d->value);
	sl_chan_push(d->c, &m);
	return NULL;
}

static void test_wait_any(void **st)
{
	sl_wake w;
	sl_wake_init(&w);
	sl_chan *c[3] = {sl_chan_new(4, &w), sl_chan_new(4, &w), sl_chan_new(4, &w)};
	/* nothing: a zero timeout only checks, a positive one waits that long */
	assert_int_equal(sl_chan_wait_any(c, 3, 0), -1);
	int64_t t0 = mono_ns();
	assert_int_equal(sl_chan_wait_any(c, 3, 30000), -1);
	assert_true(mono_ns() - t0 >= 29 * 1000000ll);
	/* a message pushed later into the second channel wakes the waiter
	 * (the others stay empty) */
	delayed d = {c[1], 40, 99};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, delayed_push, &d), 0);
	assert_int_equal(sl_chan_wait_any(c, 3, -1), 1);
	pthread_join(th, NULL);
	sl_chan_msg m;
	assert_int_equal(sl_chan_try_pop(c[1], &m), 1);
	assert_true(m.value == 99);
	/* the first ready channel in c[] order; a subset leaves the others */
	m = msg(SL_CHAN_BATCH, 1);
	assert_int_equal(sl_chan_push(c[2], &m), 0);
	assert_int_equal(sl_chan_push(c[0], &m), 0);
	assert_int_equal(sl_chan_wait_any(c, 3, -1), 0);
	assert_int_equal(sl_chan_wait_any(c + 1, 2, -1), 1); /* c[2] */
	assert_int_equal(sl_chan_wait_any(c + 1, 1, 1000), -1);
	/* a cancelled channel is ready */
	sl_chan_cancel(c[1]);
	assert_int_equal(sl_chan_wait_any(c + 1, 1, -1), 0);
	for (int i = 0; i < 3; i++)
		sl_chan_free(c[i]);
}

/* n messages through a ring of cap: every value once, in order, and the
 * kinds as push_main made them. */
static void stream(int64_t n, int cap)
{
	sl_chan *c = sl_chan_new(cap, NULL);
	pusher p = {c, n, 1, 0, 0};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, push_main, &p), 0);
	int64_t next = 0;
	sl_chan_msg m;
	while (sl_chan_pop(c, &m) == 1 && m.kind != SL_CHAN_END) {
		if (m.value != next)
			fail_msg("message %lld arrived as %lld", (long long)next, (long long)m.value);
		uint32_t kind = next % 3 == 2 ? SL_CHAN_WATERMARK : SL_CHAN_BATCH;
		if (m.kind != kind || (kind == SL_CHAN_BATCH && m.batch != msg(kind, next).batch))
			fail_msg("message %lld damaged", (long long)next);
		next++;
	}
	pthread_join(th, NULL);
	assert_int_equal(p.rc, 0);
	assert_int_equal(m.kind, SL_CHAN_END);
	assert_true(next == n);
	sl_chan_stats s;
	sl_chan_stats_get(c, &s);
	assert_true(s.pushed == (uint64_t)n + 1);
	sl_chan_free(c);
}

static void test_many_messages(void **st)
{
	stream(1000000, 64);
	stream(50000, 1); /* every message a hand-over: both sides sleep often */
	stream(50000, 2);
}

/* An exchange's consumer: three producers, three small channels sharing
 * the consumer's wake, one consumer taking whatever is ready with
 * sl_chan_wait_any; each channel's messages arrive whole and in order and
 * the consumer never sleeps through a message (a lost wake-up would hang
 * here). */
static void test_shared_wake_many_producers(void **st)
{
	enum { NP = 3, N = 30000 };
	sl_wake w;
	sl_wake_init(&w);
	sl_chan *c[NP];
	pusher p[NP];
	pthread_t th[NP];
	for (int i = 0; i < NP; i++) {
		c[i] = sl_chan_new(i + 1, &w); /* capacities 1, 2 and 4 */
		p[i] = (pusher){c[i], N, 1, 0, 0};
		assert_int_equal(pthread_create(&th[i], NULL, push_main, &p[i]), 0);
	}
	int64_t next[NP] = {0};
	sl_chan *open[NP];
	int idx[NP], nopen = NP;
	for (int i = 0; i < NP; i++)
		open[i] = c[i], idx[i] = i;
	while (nopen > 0) {
		int k = sl_chan_wait_any(open, nopen, -1);
		assert_true(k >= 0 && k < nopen);
		sl_chan_msg m;
		assert_int_equal(sl_chan_try_pop(open[k], &m), 1);
		int i = idx[k];
		if (m.kind == SL_CHAN_END) {
			assert_true(next[i] == N);
			open[k] = open[nopen - 1];
			idx[k] = idx[nopen - 1];
			nopen--;
			continue;
		}
		if (m.value != next[i])
			fail_msg("channel %d: message %lld arrived as %lld", i, (long long)next[i],
			         (long long)m.value);
		next[i]++;
	}
	for (int i = 0; i < NP; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(p[i].rc, 0);
		sl_chan_free(c[i]);
	}
}

/* The producer's blocked time is its sleeps on a full channel: a consumer
 * that takes one message every 10 ms from a full 2-slot channel keeps it
 * asleep most of the ~200 ms; a fast consumer keeps it near zero. */
static void test_blocked_time(void **st)
{
	sl_chan *c = sl_chan_new(2, NULL);
	pusher p = {c, 22, 1, 0, 0};
	pthread_t th;
	int64_t t0 = mono_ns();
	assert_int_equal(pthread_create(&th, NULL, push_main, &p), 0);
	sleep_ms(10);
	sl_chan_msg m;
	int n = 0;
	do {
		assert_int_equal(sl_chan_pop(c, &m), 1);
		n++;
		sleep_ms(10);
	} while (m.kind != SL_CHAN_END);
	pthread_join(th, NULL);
	int64_t wall = mono_ns() - t0;
	assert_int_equal(n, 23);
	sl_chan_stats s;
	sl_chan_stats_get(c, &s);
	/* 23 pops 10 ms apart; the producer waits for all but the first two
	 * slots: 21 x 10 ms asleep (less only if it was not scheduled for
	 * whole milliseconds while the channel had room) */
	assert_true(s.blocks >= 10 && s.blocks <= 21);
	assert_true(s.blocked_ns >= 100 * 1000000ull);
	assert_true((int64_t)s.blocked_ns <= wall);
	sl_chan_free(c);
}

/* ---- deferred wake-ups (sl_chan_set_lazy) -------------------------------- */

/* The wake-ups of a lazy channel, counted on its consumer's wake while
 * the consumer is armed (about to sleep), in one thread: a batch or
 * watermark wakes only as the every-th unwoken message; sl_chan_kick
 * pays what is owed and nothing else; END and markers always wake; a
 * push that finds the ring full wakes; off (0 or 1) every push wakes. */
static void test_lazy_wakes(void **st)
{
	sl_wake w;
	sl_wake_init(&w);
	sl_chan *c = sl_chan_new(8, &w);
	sl_chan_set_lazy(c, 4);
	sl_chan_msg m, out;
	uint32_t s = sl_wake_arm(&w);
	for (int i = 0; i < 3; i++) {
		m = msg(i == 1 ? SL_CHAN_WATERMARK : SL_CHAN_BATCH, i);
		assert_int_equal(sl_chan_try_push(c, &m), 1);
		assert_int_equal(atomic_load(&w.seq), s); /* owed, not given */
	}
	m = msg(SL_CHAN_BATCH, 3);
	assert_int_equal(sl_chan_try_push(c, &m), 1);
	assert_int_equal(atomic_load(&w.seq), s + 1); /* the 4th: woken */
	for (int i = 0; i < 4; i++)
		assert_int_equal(sl_chan_try_pop(c, &out), 1);
	s = sl_wake_arm(&w);
	sl_chan_kick(c); /* nothing owed */
	assert_int_equal(atomic_load(&w.seq), s);
	m = msg(SL_CHAN_BATCH, 4);
	assert_int_equal(sl_chan_try_push(c, &m), 1);
	assert_int_equal(atomic_load(&w.seq), s);
	sl_chan_kick(c);
	assert_int_equal(atomic_load(&w.seq), s + 1);
	sl_chan_kick(c); /* paid: the consumer is not woken twice */
	assert_int_equal(atomic_load(&w.seq), s + 1);
	/* a marker wakes at once, and pays for the batch before it */
	s = sl_wake_arm(&w);
	m = msg(SL_CHAN_BATCH, 5);
	assert_int_equal(sl_chan_try_push(c, &m), 1);
	m = msg(SL_CHAN_MARKER, 1);
	assert_int_equal(sl_chan_try_push(c, &m), 1);
	assert_int_equal(atomic_load(&w.seq), s + 1);
	s = sl_wake_arm(&w);
	sl_chan_kick(c);
	assert_int_equal(atomic_load(&w.seq), s);
	while (sl_chan_try_pop(c, &out) == 1)
		;
	/* a full ring: the refused push wakes the consumer it waits for */
	sl_chan_set_lazy(c, 16);
	s = sl_wake_arm(&w);
	for (int i = 0; i < 8; i++) {
		m = msg(SL_CHAN_BATCH, 10 + i);
		assert_int_equal(sl_chan_try_push(c, &m), 1);
	}
	assert_int_equal(atomic_load(&w.seq), s);
	m = msg(SL_CHAN_BATCH, 18);
	assert_int_equal(sl_chan_try_push(c, &m), 0);
	assert_int_equal(atomic_load(&w.seq), s + 1);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(sl_chan_try_pop(c, &out), 1);
		assert_true(out.value == 10 + i); /* order unchanged */
	}
	/* off: every push wakes; END always does */
	sl_chan_set_lazy(c, 1);
	s = sl_wake_arm(&w);
	m = msg(SL_CHAN_BATCH, 20);
	assert_int_equal(sl_chan_try_push(c, &m), 1);
	assert_int_equal(atomic_load(&w.seq), s + 1);
	sl_chan_set_lazy(c, 4);
	s = sl_wake_arm(&w);
	m = msg(SL_CHAN_END, 0);
	assert_int_equal(sl_chan_try_push(c, &m), 1);
	assert_int_equal(atomic_load(&w.seq), s + 1);
	sl_wake_disarm(&w);
	sl_chan_free(c);
}

typedef struct burster {
	sl_chan *c;
	int64_t n;       /* push values 0..n) */
	unsigned seed;
	int rc;
} burster;

/* Pushes in bursts of 1 to 9 messages (batches and watermarks), each
 * followed by sl_chan_kick, as an exchange sender's turn is; after one
 * burst in eight waits until the consumer took everything (without the
 * kick that wait never ends: the consumer sleeps on the owed wake-up);
 * then END.  Full rings block in sl_chan_push. */
static void *burst_main(void *arg)
{
	burster *p = arg;
	for (int64_t i = 0; i < p->n && p->rc == 0; ) {
		int b = 1 + (int)(rand_r(&p->seed) % 9);
		for (int k = 0; k < b && i < p->n && p->rc == 0; k++, i++) {
			sl_chan_msg m = msg(i % 5 == 4 ? SL_CHAN_WATERMARK : SL_CHAN_BATCH, i);
			p->rc = sl_chan_push(p->c, &m);
		}
		sl_chan_kick(p->c);
		int r = (int)(rand_r(&p->seed) % 8);
		if (r == 0) /* waits for the consumer, as a sender whose pool ran dry */
			while (!sl_chan_drained(p->c))
				sched_yield();
		else if (r == 1)
			sched_yield();
	}
	if (p->rc == 0) {
		sl_chan_msg m = msg(SL_CHAN_END, 0);
		p->rc = sl_chan_push(p->c, &m);
	}
	return NULL;
}

/* Two lazy producers into channels sharing the consumer's wake; the
 * consumer sleeps with no timeout whenever both rings are empty, so a
 * wake-up that was owed and never given hangs this test; every message
 * arrives in order. */
static void test_lazy_no_lost_wake(void **st)
{
	enum { NP = 2, N = 200000 };
	sl_wake w;
	sl_wake_init(&w);
	sl_chan *c[NP];
	burster p[NP];
	pthread_t th[NP];
	for (int i = 0; i < NP; i++) {
		c[i] = sl_chan_new(i ? 8 : 4, &w);
		sl_chan_set_lazy(c[i], i ? 4 : 3);
		p[i] = (burster){c[i], N, 7u + (unsigned)i, 0};
		assert_int_equal(pthread_create(&th[i], NULL, burst_main, &p[i]), 0);
	}
	int64_t next[NP] = {0};
	int ended = 0;
	while (ended < NP) {
		int k = sl_chan_wait_any(c, NP, -1);
		assert_true(k >= 0 && k < NP);
		sl_chan_msg m;
		while (sl_chan_try_pop(c[k], &m) == 1) {
			if (m.kind == SL_CHAN_END) {
				assert_true(next[k] == N);
				ended++;
				break;
			}
			if (m.value != next[k])
				fail_msg("channel %d: message %lld arrived as %lld", k, (long long)next[k],
				         (long long)m.value);
			next[k]++;
		}
	}
	for (int i = 0; i < NP; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(p[i].rc, 0);
		sl_chan_free(c[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_kinds),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_wrap_around),
		cmocka_unit_test(test_producer_blocks_when_full),
		cmocka_unit_test(test_consumer_blocks_when_empty),
		cmocka_unit_test(test_end_is_last),
		cmocka_unit_test(test_cancel_wakes_both),
		cmocka_unit_test(test_wait_any),
		cmocka_unit_test(test_many_messages),
		cmocka_unit_test(test_shared_wake_many_producers),
		cmocka_unit_test(test_blocked_time),
		cmocka_unit_test(test_lazy_wakes),
		cmocka_unit_test(test_lazy_no_lost_wake),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
