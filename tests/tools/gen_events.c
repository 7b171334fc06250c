/*
 * gen_events.c - deterministic test input for the crash tests: N orders as
 * JSON lines, in event-time order with bounded disorder and a few late
 * rows, over K users.
 *
 *     gen_events N [K] [SEED] > orders.jsonl
 *
 * Rows: {"id":"o<i>","user_id":"u<k>","amount":<cents/100>,"event_time":"..."}
 * with event time advancing 10 ms per row from 2026-08-01 00:00:00, up to
 * 3 s of disorder, and one row in 1000 two minutes late.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/timeutil.h"

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: gen_events N [K] [SEED]\n");
		return 2;
	}
	long long n = atoll(argv[1]);
	long long k = argc > 2 ? atoll(argv[2]) : 1000;
	uint64_t s = argc > 3 ? (uint64_t)atoll(argv[3]) : 42;
	if (!s)
		s = 42;
	const int64_t t0 = 1785542400000000LL; /* 2026-08-01 00:00:00 UTC */
	char ts[64];
	for (long long i = 0; i < n; i++) {
		int64_t t = t0 + i * 10000 - (int64_t)(next(&s) % 3000) * 1000;
		if (next(&s) % 1000 == 0)
			t -= 120 * 1000000LL;
		sl_ts_format(t, 3, 0, 0, ts);
		long long cents = (long long)(next(&s) % 100000);
		printf("{\"id\":\"o%lld\",\"user_id\":\"u%lld\",\"amount\":%lld.%02lld,"
		       "\"event_time\":\"%s\"}\n", i, (long long)(next(&s) % (uint64_t)k), cents / 100,
		       cents % 100, ts);
	}
	return 0;
}
