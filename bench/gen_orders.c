/*
 * gen_orders.c - writes the order stream of the `make bench` file benchmark
 * as JSON lines on stdout.
 *
 * Usage: gen_orders ROWS USERS [STEP_MS] > orders.json
 *
 * Record i (0-based) is
 *   {"id":"o<i+1>","user_id":"u<k>","amount":<a>,"event_time":"<ts>"}
 * with k uniform in 1..USERS, a uniform in 0.01..500.00 (two decimals) and
 * ts = base + i * STEP_MS ms + (1999 - d) ms, d uniform in 0..1999:
 * event-time order with up to 2 s of disorder, so a watermark of
 * `event_time - INTERVAL '2' SECOND` never makes a row late (no record is
 * more than 1999 ms behind the largest event time before it).  base is
 * 2026-08-01 00:00:00.000 UTC.  STEP_MS defaults to 1 (the file benchmark:
 * 60 000 rows a minute over 10 000 users, ~6 a user a window); 10 gives the
 * high-cardinality case (6 000 rows a minute over 10 000 users: most
 * user/window pairs hold one or two rows, about 3/4 of the rows come out).
 * Deterministic: a fixed-seed xorshift generator, so every cache of the
 * data set holds the same bytes.  Output goes through one 1 MiB buffer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

/* xorshift64*: enough for a load generator, and reproducible. */
static uint64_t rnd(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static char outbuf[1 << 20];
static size_t outlen;

static void flush_out(void)
{
	size_t off = 0;
	while (off < outlen) {
		ssize_t n = write(1, outbuf + off, outlen - off);
		if (n <= 0) {
			perror("gen_orders: write");
			exit(1);
		}
		off += (size_t)n;
	}
	outlen = 0;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* Formats epoch milliseconds as "YYYY-MM-DD HH:MM:SS.fff". */
static int fmt_ts(char *p, int64_t ms)
{
	int64_t days = ms / 86400000, rem = ms % 86400000;
	int64_t z = days + 719468, era = z / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t y = (int64_t)yoe + era * 400;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	unsigned d = doy - (153 * mp + 2) / 5 + 1;
	unsigned m = mp < 10 ? mp + 3 : mp - 9;
	y += m <= 2;
	return sprintf(p, "%04lld-%02u-%02u %02lld:%02lld:%02lld.%03lld", (long long)y, m, d,
	               (long long)(rem / 3600000), (long long)(rem / 60000 % 60),
	               (long long)(rem / 1000 % 60), (long long)(rem % 1000));
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: gen_orders ROWS USERS [STEP_MS]\n");
		return 2;
	}
	long long rows = atoll(argv[1]), users = atoll(argv[2]);
	long long step = argc == 4 ? atoll(argv[3]) : 1;
	if (rows < 0 || users < 1 || step < 1) {
		fprintf(stderr, "gen_orders: bad ROWS, USERS or STEP_MS\n");
		return 2;
	}
	int64_t base = days_from_civil(2026, 8, 1) * 86400000LL;
	for (long long i = 0; i < rows; i++) {
		if (outlen > sizeof outbuf - 256)
			flush_out();
		long long user = (long long)(rnd() % (uint64_t)users) + 1;
		long long cents = (long long)(rnd() % 50000) + 1;
		int64_t ts = base + i * step + 1999 - (int64_t)(rnd() % 2000);
		char *p = outbuf + outlen;
		p += sprintf(p, "{\"id\":\"o%lld\",\"user_id\":\"u%lld\",\"amount\":%lld.%02lld,"
		             "\"event_time\":\"", i + 1, user, cents / 100, cents % 100);
		p += fmt_ts(p, ts);
		memcpy(p, "\"}\n", 3);
		p += 3;
		outlen = (size_t)(p - outbuf);
	}
	flush_out();
	return 0;
}
