/*
 * chan_bench.c - the cost of a message through a channel
 * (src/runtime/channel.h; the figures in docs/parallel.md §2): one thread
 * pushes N messages into a channel of capacity CAP, the main thread pops
 * them, optionally spinning WORK_NS per message to stand for the work of
 * a batch; prints messages per second, the time per message, and how
 * often the producer found the channel full.  Checks that every message
 * arrived once, in order (exit 1 otherwise).
 *
 *     chan_bench [CAP] [N] [WORK_NS]      (defaults: 64 5000000 0)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "runtime/channel.h"

static sl_chan *chan;
static long count;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *producer(void *arg)
{
	for (long i = 0; i < count; i++) {
		sl_chan_msg m = {SL_CHAN_BATCH, 0, i, NULL};
		sl_chan_push(chan, &m);
	}
	sl_chan_msg end = {SL_CHAN_END, 0, 0, NULL};
	sl_chan_push(chan, &end);
	return arg;
}

int main(int argc, char **argv)
{
	int cap = argc > 1 ? atoi(argv[1]) : 64;
	count = argc > 2 ? atol(argv[2]) : 5000000;
	double work = argc > 3 ? atof(argv[3]) / 1e9 : 0;
	if (!(chan = sl_chan_new(cap, NULL))) {
		fprintf(stderr, "chan_bench: bad capacity %d\n", cap);
		return 2;
	}
	double t0 = now_s();
	pthread_t th;
	if (pthread_create(&th, NULL, producer, NULL))
		return 2;
	sl_chan_msg m;
	long next = 0;
	int ok = 1;
	while (sl_chan_pop(chan, &m) == 1 && m.kind != SL_CHAN_END) {
		ok &= m.value == next++;
		for (double until = work > 0 ? now_s() + work : 0; work > 0 && now_s() < until;)
			;
	}
	pthread_join(th, NULL);
	double s = now_s() - t0;
	sl_chan_stats st;
	sl_chan_stats_get(chan, &st);
	printf("capacity %d: %ld messages in %.3f s: %.2f M/s, %.0f ns each; producer found it "
	       "full %llu times, blocked %.3f s\n",
	       sl_chan_cap(chan), next, s, next / s / 1e6, s / (next ? next : 1) * 1e9,
	       (unsigned long long)st.blocks, st.blocked_ns / 1e9);
	sl_chan_free(chan);
	return ok && next == count ? 0 : 1;
}
