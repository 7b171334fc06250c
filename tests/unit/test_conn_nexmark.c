/*
 * test_conn_nexmark.c - the 'nexmark' source through its method table:
 * determinism (same options, same events, whatever the batch size), the
 * splits (at subtask i of n the instances' events are disjoint and their
 * union is the one-instance stream, chunk for chunk; seed rows give the
 * chunks' initial watermarks; an unbounded stream walks instance i's
 * chunks i, i + n, ...), the event mix and the id ranges of the
 * specification (docs/nexmark.md), events.num, stop-at and keep-alive,
 * snapshot/restore, option and schema errors, other proportions,
 * RisingWave's one-type tables, and the generator's throughput into a
 * batch (a figure, not an assertion).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "connector/conn.h"
#include "sluice.h"

/* ---- Flink's wide schema ------------------------------------------------------ */

static sl_field person_f[8], auction_f[10], bid_f[7];
static sl_row_type person_rt = {8, person_f}, auction_rt = {10, auction_f}, bid_rt = {7, bid_f};

static void set_fields(sl_field *f, const char *spec)
{
	/* spec: one letter per field: i BIGINT, s STRING, t TIMESTAMP(3) */
	for (int i = 0; spec[i]; i++) {
		f[i].name = "f";
		f[i].type = spec[i] == 'i'   ? sl_type_make(SL_T_BIGINT)
		            : spec[i] == 's' ? sl_type_varchar(SL_STRING_LEN)
		                             : sl_type_timestamp(SL_T_TIMESTAMP, 3);
	}
}

typedef struct fixture {
	sl_arena arena;
	sl_opts opts;
	sl_field fields[4];
	sl_type types[4];
} fixture;

static void fx_init(fixture *f, long long events)
{
	memset(f, 0, sizeof *f);
	set_fields(person_f, "isssssts");
	set_fields(auction_f, "issiittiis");
	set_fields(bid_f, "iiissts");
	sl_arena_init(&f->arena, 0);
	sl_opts_init(&f->opts, &f->arena);
	sl_opts_set(&f->opts, "connector", "nexmark");
	char v[32];
	snprintf(v, sizeof v, "%lld", events);
	sl_opts_set(&f->opts, "events.num", v);
	const char *names[4] = {"event_type", "person", "auction", "bid"};
	const sl_row_type *rt[4] = {NULL, &person_rt, &auction_rt, &bid_rt};
	for (int i = 0; i < 4; i++) {
		f->fields[i].name = names[i];
		f->fields[i].type = sl_type_make(i ? SL_T_ROW : SL_T_INT);
		f->fields[i].type.row = rt[i];
		f->types[i] = f->fields[i].type;
	}
}

static sl_source *fx_open_at(fixture *f, int subtask, int n, sl_err *err)
{
	sl_conn_args a = {.table = "nx", .fields = f->fields, .nfields = 4, .opts = &f->opts,
	                  .tz = "UTC", .subtask = subtask, .nsubtasks = n};
	sl_err_clear(err);
	return sl_source_new_open(sl_source_find("nexmark"), &a, err);
}

static sl_source *fx_open(fixture *f, sl_err *err)
{
	return fx_open_at(f, 0, 1, err);
}

/* ---- rows ------------------------------------------------------------------- */

static uint64_t hmix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

static uint64_t hcol(uint64_t h, const sl_col *c, int r)
{
	if (c->null[r])
		return hmix(h, 0xdead);
	if (sl_type_phys(c->type) == SL_PHYS_STR) {
		h = hmix(h, (uint64_t)c->v.str[r].len);
		for (int64_t i = 0; i < c->v.str[r].len; i++)
			h = hmix(h, (unsigned char)c->v.str[r].ptr[i]);
		return h;
	}
	return hmix(h, (uint64_t)c->v.i64[r]);
}

/* A hash of row r: every field of every column. */
static uint64_t row_hash(const sl_batch *b, int r)
{
	uint64_t h = hcol(1, &b->cols[0], r);
	for (int c = 1; c < 4; c++) {
		h = hmix(h, b->cols[c].null[r]);
		if (!b->cols[c].null[r])
			for (int k = 0; k < b->cols[c].nchild; k++)
				h = hcol(h, &b->cols[c].child[k], r);
	}
	return h;
}

/* Reads every event (seed batches apart) into hashes; returns the count.
 * seeds, when not NULL, gets the number of seed rows. */
static int64_t read_all(sl_source *s, fixture *f, int cap, uint64_t *out, int64_t max, int *seeds)
{
	sl_batch *b = sl_batch_new(4, f->types, cap);
	sl_err err;
	int64_t n = 0;
	for (;;) {
		sl_batch_reset(b);
		sl_err_clear(&err);
		int rc = s->vt->read(s, b, &err);
		if (rc == SL_EEOF)
			break;
		assert_true(rc > 0);
		if (s->seed) {
			if (seeds)
				*seeds += rc;
			continue;
		}
		for (int r = 0; r < b->nrows; r++) {
			assert_int_equal(b->op[r], SL_INSERT);
			assert_true(n < max);
			out[n++] = row_hash(b, r);
		}
	}
	sl_batch_free(b);
	return n;
}

/* ---- tests ------------------------------------------------------------------ */

static void test_deterministic(void **state)
{
	(void)state;
	fixture f;
	fx_init(&f, 20000);
	sl_err err;
	uint64_t *a = calloc(20000, 8), *b = calloc(20000, 8);
	sl_source *s = fx_open(&f, &err);
	assert_non_null(s);
	assert_int_equal(read_all(s, &f, 1024, a, 20000, NULL), 20000);
	sl_source_free(s);
	s = fx_open(&f, &err);
	assert_int_equal(read_all(s, &f, 77, b, 20000, NULL), 20000);
	sl_source_free(s);
	assert_memory_equal(a, b, 20000 * 8);
	/* another seed gives other events */
	sl_opts_set(&f.opts, "seed", "7");
	s = fx_open(&f, &err);
	assert_int_equal(read_all(s, &f, 1024, b, 20000, NULL), 20000);
	sl_source_free(s);
	int same = 0;
	for (int i = 0; i < 20000; i++)
		same += a[i] == b[i];
	assert_true(same < 100);
	free(a);
	free(b);
	sl_arena_deinit(&f.arena);
}

/* At subtask i of n, instance i reads chunks i, i + n, ... in order: the
 * events of each chunk are those of the one-instance stream. */
static void test_splits_union(void **state)
{
	(void)state;
	const int64_t total = 10500, chunk = 1000;
	setenv("SLUICE_TEST_NEXMARK_CHUNK_EVENTS", "1000", 1);
	fixture f;
	fx_init(&f, total);
	sl_err err;
	uint64_t *one = calloc((size_t)total, 8), *part = calloc((size_t)total, 8);
	uint8_t *seen = calloc((size_t)total, 1);
	sl_source *s = fx_open(&f, &err);
	int seeds = 0;
	assert_int_equal(read_all(s, &f, 300, one, total, &seeds), total);
	assert_int_equal(s->nsplits, 11);
	assert_int_equal(seeds, 10); /* every chunk but the first */
	sl_source_free(s);
	for (int n = 2; n <= 4; n++) {
		memset(seen, 0, (size_t)total);
		for (int i = 0; i < n; i++) {
			s = fx_open_at(&f, i, n, &err);
			assert_non_null(s);
			int64_t got = read_all(s, &f, 256, part, total, NULL);
			for (int64_t r = 0; r < got; r++) {
				int64_t g = (i + (r / chunk) * n) * chunk + r % chunk;
				assert_true(g < total);
				assert_int_equal(seen[g], 0);
				seen[g] = 1;
				assert_true(part[r] == one[g]);
			}
			sl_source_free(s);
		}
		for (int64_t g = 0; g < total; g++)
			assert_int_equal(seen[g], 1);
	}
	/* the seed rows: for each chunk j > 0, event j * chunk - 1; at 2
	 * instances, instance 1's chunks are 1, 3, 5, ... */
	for (int n = 1; n <= 2; n++) {
		s = fx_open_at(&f, n - 1, n, &err);
		sl_batch *b = sl_batch_new(4, f.types, 64);
		assert_true(s->vt->read(s, b, &err) > 0);
		assert_true(s->seed);
		for (int r = 0; r < b->nrows; r++) {
			int64_t k = (int64_t)s->seed_split[r] * n + (n - 1); /* the global chunk */
			assert_true(k > 0 && row_hash(b, r) == one[k * chunk - 1]);
		}
		assert_int_equal(b->nrows, n == 1 ? 10 : 5);
		sl_batch_free(b);
		sl_source_free(s);
	}
	/* an instance without chunks ends at once */
	s = fx_open_at(&f, 11, 12, &err);
	assert_int_equal(read_all(s, &f, 256, part, total, NULL), 0);
	sl_source_free(s);
	unsetenv("SLUICE_TEST_NEXMARK_CHUNK_EVENTS");
	free(one);
	free(part);
	free(seen);
	sl_arena_deinit(&f.arena);
}

/* Reads up to max events (seed batches apart) into hashes, in batches of
 * 250 (so a multiple of 250 is read exactly). */
static int64_t read_some(sl_source *s, fixture *f, uint64_t *out, int64_t max)
{
	sl_batch *b = sl_batch_new(4, f->types, 250);
	sl_err err;
	int64_t n = 0;
	while (n < max) {
		sl_batch_reset(b);
		int rc = s->vt->read(s, b, &err);
		assert_true(rc > 0);
		if (s->seed)
			continue;
		for (int r = 0; r < b->nrows && n < max; r++)
			out[n++] = row_hash(b, r);
	}
	sl_batch_free(b);
	return n;
}

/* An unbounded stream is one split per instance walking its chunks in
 * order: instance i of n reads chunks i, i + n, ... of the same events. */
static void test_unbounded_walk(void **state)
{
	(void)state;
	const int64_t chunk = 500, max = 6000;
	setenv("SLUICE_TEST_NEXMARK_CHUNK_EVENTS", "500", 1);
	fixture f;
	fx_init(&f, 0);
	sl_err err;
	uint64_t *one = calloc((size_t)max, 8), *part = calloc((size_t)max, 8);
	sl_source *s = fx_open(&f, &err);
	assert_non_null(s);
	assert_int_equal(s->nsplits, 0);
	read_some(s, &f, one, max);
	sl_source_free(s);
	for (int n = 2; n <= 3; n++)
		for (int i = 0; i < n; i++) {
			s = fx_open_at(&f, i, n, &err);
			int64_t k = max / n - chunk; /* stays inside the first max events */
			read_some(s, &f, part, k);
			for (int64_t r = 0; r < k; r++) {
				int64_t g = (i + (r / chunk) * n) * chunk + r % chunk;
				assert_true(g < max && part[r] == one[g]);
			}
			sl_source_free(s);
		}
	/* its position restores at its own instance, not at another parallelism */
	s = fx_open_at(&f, 1, 2, &err);
	read_some(s, &f, part, 750); /* chunk 1, 250 of chunk 3 */
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	assert_int_equal(s->vt->snapshot(s, &w, &err), 0);
	sl_source_free(s);
	for (int n = 2; n <= 3; n++) {
		s = fx_open_at(&f, 1, n, &err);
		sl_snap_reader r;
		sl_snap_reader_init(&r, w.buf, w.len);
		int rc = s->vt->restore(s, &r, &err);
		if (n == 2) {
			assert_int_equal(rc, 0);
			read_some(s, &f, part, 100); /* chunk 3 from 250 */
			for (int64_t i = 0; i < 100; i++)
				assert_true(part[i] == one[3 * chunk + 250 + i]);
		} else {
			assert_int_equal(rc, SL_ESTATE);
			assert_non_null(strstr(err.msg, "instance 1 of 2, this is instance 1 of 3"));
		}
		sl_source_free(s);
	}
	sl_snap_writer_deinit(&w);
	unsetenv("SLUICE_TEST_NEXMARK_CHUNK_EVENTS");
	free(one);
	free(part);
	sl_arena_deinit(&f.arena);
}

/* Walks every event checking the specification (docs/nexmark.md): the
 * mix 1/3/46 by event id, ids, hot keys, prices, channels, sizes. */
static void test_spec(void **state)
{
	(void)state;
	const int total = 200000;
	fixture f;
	fx_init(&f, total);
	sl_opts_set(&f.opts, "first-event.rate", "1000");
	sl_err err;
	sl_source *s = fx_open(&f, &err);
	assert_non_null(s);
	sl_batch *b = sl_batch_new(4, f.types, 1024);
	int64_t g = 0, counts[3] = {0}, hot_auction = 0, hot_bidder = 0, hot_seller = 0, hot_chan = 0;
	int64_t with_cid = 0, chan_bids = 0, extra_sum = 0;
	for (;;) {
		sl_batch_reset(b);
		int rc = s->vt->read(s, b, &err);
		if (rc == SL_EEOF)
			break;
		assert_true(rc > 0);
		for (int r = 0; r < b->nrows; r++, g++) {
			int64_t e = g + 2, epoch = e / 50, off = e % 50;
			int t = (int)b->cols[0].v.i64[r];
			int want = off < 1 ? 0 : off < 4 ? 1 : 2;
			assert_int_equal(t, want);
			counts[t]++;
			for (int c = 1; c < 4; c++)
				assert_int_equal(b->cols[c].null[r], c != 1 + t);
			const sl_col *x = b->cols[1 + t].child;
			/* timestamps: base 2026-01-01 + (g + 1) ms at 1000 events/s */
			int ts_field = t == 0 ? 6 : t == 1 ? 5 : 5;
			assert_true(x[ts_field].v.i64[r] == (1767225600000LL + g + 1) * 1000);
			int64_t last_p = epoch, last_a = off < 1 ? epoch * 3 - 1 : off >= 4 ? epoch * 3 + 2
			                                                              : epoch * 3 + off - 1;
			if (t == 0) {
				assert_true(x[0].v.i64[r] == 1000 + last_p);
				assert_int_equal(x[3].v.str[r].len, 19);
				assert_int_equal(x[5].v.str[r].len, 2);
				const char *at = memchr(x[2].v.str[r].ptr, '@', (size_t)x[2].v.str[r].len);
				assert_non_null(at);
			} else if (t == 1) {
				assert_true(x[0].v.i64[r] == 1000 + last_a);
				int64_t seller = x[7].v.i64[r] - 1000;
				if (seller == (last_p / 100) * 100)
					hot_seller++;
				else
					assert_true(seller >= last_p + 1 - 1000 && seller <= last_p + 10);
				assert_true(x[8].v.i64[r] >= 10 && x[8].v.i64[r] < 15);
				assert_true(x[3].v.i64[r] >= 100 && x[3].v.i64[r] <= 100000000);
				assert_true(x[4].v.i64[r] > x[3].v.i64[r]);
				assert_true(x[6].v.i64[r] > x[5].v.i64[r]);
				assert_true(x[1].v.str[r].len <= 19 && x[2].v.str[r].len <= 99);
			} else {
				int64_t auction = x[0].v.i64[r] - 1000, bidder = x[1].v.i64[r] - 2000;
				if (auction == (last_a / 100) * 100)
					hot_auction++;
				else
					assert_true(auction >= (last_a > 100 ? last_a - 100 : 0) &&
					            auction <= last_a + 10);
				if (bidder == (last_p / 100) * 100 + 1)
					hot_bidder++;
				else
					assert_true(bidder >= last_p + 1 - 1000 && bidder <= last_p + 10);
				assert_true(x[2].v.i64[r] >= 100 && x[2].v.i64[r] <= 100000000);
				sl_str ch = x[3].v.str[r], url = x[4].v.str[r];
				assert_true(url.len > 24 && memcmp(url.ptr, "https://www.nexmark.com/", 24) == 0);
				if (ch.len >= 8 && memcmp(ch.ptr, "channel-", 8) == 0) {
					chan_bids++;
					with_cid += memmem(url.ptr, (size_t)url.len, "&channel_id=", 12) != NULL;
				} else {
					hot_chan++;
					assert_null(memmem(url.ptr, (size_t)url.len, "channel_id", 10));
				}
				/* extra: d = 100 - 32 = 68, delta 14: [54, 82) */
				assert_true(x[6].v.str[r].len >= 54 && x[6].v.str[r].len < 82);
				extra_sum += x[6].v.str[r].len;
			}
		}
	}
	assert_true(g == total);
	assert_true(counts[0] == total / 50 && counts[1] == total / 50 * 3 &&
	            counts[2] == total / 50 * 46);
	/* hot keys: 1/2 of bids, 3/4 of bidders, 3/4 of sellers (plus random hits) */
	double nb = (double)counts[2];
	assert_true(hot_auction / nb > 0.49 && hot_auction / nb < 0.52);
	assert_true(hot_bidder / nb > 0.74 && hot_bidder / nb < 0.76);
	assert_true(hot_seller / (double)counts[1] > 0.73 && hot_seller / (double)counts[1] < 0.77);
	assert_true(hot_chan / nb > 0.49 && hot_chan / nb < 0.51);
	assert_true(with_cid / (double)chan_bids > 0.88 && with_cid / (double)chan_bids < 0.92);
	assert_true(extra_sum / nb > 66 && extra_sum / nb < 69);
	sl_batch_free(b);
	sl_source_free(s);
	sl_arena_deinit(&f.arena);
}

static void test_bounds(void **state)
{
	(void)state;
	fixture f;
	fx_init(&f, 5000);
	sl_err err;
	uint64_t *h = calloc(5000, 8);
	sl_opts_set(&f.opts, "stop-at", "1234");
	sl_source *s = fx_open(&f, &err);
	assert_int_equal(read_all(s, &f, 1024, h, 5000, NULL), 1234);
	sl_source_free(s);
	/* keep-alive: idle (0 rows) after the last event, never the end */
	sl_opts_set(&f.opts, "keep-alive", "true");
	s = fx_open(&f, &err);
	sl_batch *b = sl_batch_new(4, f.types, 4096);
	assert_int_equal(s->vt->read(s, b, &err), 1234);
	sl_batch_reset(b);
	assert_int_equal(s->vt->read(s, b, &err), 0);
	assert_int_equal(s->vt->read(s, b, &err), 0);
	sl_batch_free(b);
	sl_source_free(s);
	free(h);
	sl_arena_deinit(&f.arena);
}

/* Snapshot after each batch, restore into a fresh source, read on: the
 * same events as without interruption, chunked or not. */
static void test_snapshot_restore(void **state)
{
	(void)state;
	for (int chunked = 0; chunked < 2; chunked++) {
		if (chunked)
			setenv("SLUICE_TEST_NEXMARK_CHUNK_EVENTS", "700", 1);
		fixture f;
		fx_init(&f, 3000);
		sl_err err;
		uint64_t *a = calloc(3000, 8), *b = calloc(3000, 8);
		sl_source *s = fx_open(&f, &err);
		assert_int_equal(read_all(s, &f, 256, a, 3000, NULL), 3000);
		sl_source_free(s);
		sl_batch *bt = sl_batch_new(4, f.types, 256);
		s = fx_open(&f, &err);
		int64_t n = 0;
		for (;;) {
			sl_batch_reset(bt);
			int rc = s->vt->read(s, bt, &err);
			if (rc == SL_EEOF)
				break;
			assert_true(rc > 0);
			if (s->seed) /* as the scan does: the seed's watermark */
				for (int r = 0; r < bt->nrows; r++) {
					int t = (int)bt->cols[0].v.i64[r];
					s->split_wm[s->seed_split[r]] =
						bt->cols[1 + t].child[t == 0 ? 6 : 5].v.i64[r] - 4000000;
				}
			else
				for (int r = 0; r < bt->nrows; r++)
					b[n++] = row_hash(bt, r);
			sl_snap_writer w;
			sl_snap_writer_init(&w);
			assert_int_equal(s->vt->snapshot(s, &w, &err), 0);
			sl_source_free(s);
			s = fx_open(&f, &err);
			sl_snap_reader r;
			sl_snap_reader_init(&r, w.buf, w.len);
			assert_int_equal(s->vt->restore(s, &r, &err), 0);
			sl_snap_writer_deinit(&w);
		}
		sl_source_free(s);
		assert_int_equal(n, 3000);
		assert_memory_equal(a, b, 3000 * 8);
		sl_batch_free(bt);
		free(a);
		free(b);
		sl_arena_deinit(&f.arena);
		unsetenv("SLUICE_TEST_NEXMARK_CHUNK_EVENTS");
	}
}

static void expect_error(const char *key, const char *value, const char *msg)
{
	fixture f;
	fx_init(&f, 100);
	sl_opts_set(&f.opts, key, value);
	sl_err err;
	sl_source *s = fx_open(&f, &err);
	assert_null(s);
	if (!strstr(err.msg, msg))
		fail_msg("%s = %s: got '%s', want '%s'", key, value, err.msg, msg);
	sl_arena_deinit(&f.arena);
}

static void test_option_errors(void **state)
{
	(void)state;
	expect_error("events.num", "-1", "'events.num' = -1 is out of range");
	expect_error("events.num", "many", "events.num");
	expect_error("first-event.rate", "0", "'first-event.rate' = 0 is out of range");
	expect_error("person.proportion", "-1", "'person.proportion' = -1 is out of range");
	expect_error("bid.hot-ratio.auctions", "0", "'bid.hot-ratio.auctions' = 0 is out of range");
	expect_error("rate.shape", "TRIANGLE", "'rate.shape' must be 'SQUARE' or 'SINE'");
	expect_error("bid.avg-size", "big", "'bid.avg-size'");
	expect_error("max-emit-speed", "maybe", "max-emit-speed");
	expect_error("base-time", "yesterday", "'base-time' = 'yesterday' is not a timestamp");
	fixture f;
	fx_init(&f, 100);
	sl_opts_set(&f.opts, "person.proportion", "0");
	sl_opts_set(&f.opts, "auction.proportion", "0");
	sl_opts_set(&f.opts, "bid.proportion", "0");
	sl_err err;
	assert_null(fx_open(&f, &err));
	assert_non_null(strstr(err.msg, "are all 0"));
	sl_arena_deinit(&f.arena);
	/* the schema */
	fx_init(&f, 100);
	f.fields[3].type.row = &person_rt; /* bid as a person ROW */
	assert_null(fx_open(&f, &err));
	assert_non_null(strstr(err.msg, "column 4 ('bid') must be the bid ROW of 7 fields"));
	f.fields[3].type.row = &bid_rt;
	bid_f[2].type = sl_type_make(SL_T_INT);
	assert_null(fx_open(&f, &err));
	assert_non_null(strstr(err.msg, "field 3 of bid ('f', Flink's price) must be BIGINT, not INT"));
	sl_arena_deinit(&f.arena);
}

/* Other proportions: the mix follows the event id modulo their sum. */
static void test_proportions(void **state)
{
	(void)state;
	fixture f;
	fx_init(&f, 10000);
	sl_opts_set(&f.opts, "person.proportion", "2");
	sl_opts_set(&f.opts, "auction.proportion", "3");
	sl_opts_set(&f.opts, "bid.proportion", "5");
	sl_err err;
	sl_source *s = fx_open(&f, &err);
	assert_non_null(s);
	sl_batch *b = sl_batch_new(4, f.types, 1024);
	int64_t g = 0, counts[3] = {0};
	while (s->vt->read(s, b, &err) > 0) {
		for (int r = 0; r < b->nrows; r++, g++) {
			int64_t off = (g + 2) % 10;
			int t = (int)b->cols[0].v.i64[r];
			assert_int_equal(t, off < 2 ? 0 : off < 5 ? 1 : 2);
			counts[t]++;
			if (t == 0) /* person id: epoch * 2 + offset */
				assert_true(b->cols[1].child[0].v.i64[r] == 1000 + (g + 2) / 10 * 2 + off);
		}
		sl_batch_reset(b);
	}
	assert_true(counts[0] == 2000 && counts[1] == 3000 && counts[2] == 5000);
	sl_batch_free(b);
	sl_source_free(s);
	sl_arena_deinit(&f.arena);
}

/* A hash of fields f[0..n) at row r. */
static uint64_t fields_hash(const sl_col *f, int n, int r)
{
	uint64_t h = 7;
	for (int k = 0; k < n; k++)
		h = hcol(h, &f[k], r);
	return h;
}

/* RisingWave's form: a table of one type ('nexmark.table.type', its ROW's
 * fields as columns) holds exactly the events of that type of the wide
 * stream, with RisingWave's option names. */
static void test_rw_tables(void **state)
{
	(void)state;
	const int total = 30000;
	setenv("SLUICE_TEST_NEXMARK_CHUNK_EVENTS", "7000", 1);
	fixture f;
	fx_init(&f, total);
	sl_opts_set(&f.opts, "first-event.rate", "1000");
	sl_err err;
	uint64_t *want[3], *got = calloc(total, 8);
	int64_t nwant[3] = {0};
	for (int t = 0; t < 3; t++)
		want[t] = calloc(total, 8);
	sl_source *s = fx_open(&f, &err);
	sl_batch *b = sl_batch_new(4, f.types, 512);
	for (;;) {
		sl_batch_reset(b);
		int rc = s->vt->read(s, b, &err);
		if (rc == SL_EEOF)
			break;
		if (s->seed)
			continue;
		for (int r = 0; r < b->nrows; r++) {
			int t = (int)b->cols[0].v.i64[r];
			want[t][nwant[t]++] = fields_hash(b->cols[1 + t].child, b->cols[1 + t].nchild, r);
		}
	}
	sl_batch_free(b);
	sl_source_free(s);
	sl_arena_deinit(&f.arena);
	static const char *types[3] = {"Person", "auction", "BID"};
	const sl_row_type *rts[3] = {&person_rt, &auction_rt, &bid_rt};
	for (int t = 0; t < 3; t++) {
		sl_arena a;
		sl_opts o;
		sl_arena_init(&a, 0);
		sl_opts_init(&o, &a);
		sl_opts_set(&o, "connector", "nexmark");
		sl_opts_set(&o, "nexmark.table.type", types[t]);
		sl_opts_set(&o, "nexmark.event.num", "30000");
		sl_opts_set(&o, "nexmark.min.event.gap.in.ns", "1000000");
		sl_opts_set(&o, "nexmark.split.num", "4");
		sl_type ty[10];
		for (int i = 0; i < rts[t]->nfields; i++)
			ty[i] = rts[t]->fields[i].type;
		for (int n = 1; n <= 2; n++) {
			int64_t k = 0;
			for (int i = 0; i < n; i++) {
				sl_conn_args ca = {.table = "rw", .fields = rts[t]->fields,
				                   .nfields = rts[t]->nfields, .opts = &o, .tz = "UTC",
				                   .subtask = i, .nsubtasks = n};
				sl_err_clear(&err);
				s = sl_source_new_open(sl_source_find("nexmark"), &ca, &err);
				if (!s)
					fail_msg("%s", err.msg);
				b = sl_batch_new(rts[t]->nfields, ty, 300);
				for (;;) {
					sl_batch_reset(b);
					int rc = s->vt->read(s, b, &err);
					if (rc == SL_EEOF)
						break;
					assert_true(rc > 0);
					if (s->seed)
						continue;
					for (int r = 0; r < b->nrows; r++)
						got[k++] = fields_hash(b->cols, rts[t]->nfields, r);
				}
				sl_batch_free(b);
				sl_source_free(s);
			}
			assert_true(k == nwant[t]);
			if (n == 1) /* one instance: the same order */
				assert_memory_equal(got, want[t], (size_t)k * 8);
		}
		/* the wide schema is refused for a table type */
		sl_conn_args ca = {.table = "rw", .fields = f.fields, .nfields = 4, .opts = &o, .tz = "UTC"};
		assert_null(sl_source_new(sl_source_find("nexmark"), &ca, &err));
		assert_non_null(strstr(err.msg, "('nexmark.table.type') has"));
		sl_arena_deinit(&a);
	}
	for (int t = 0; t < 3; t++)
		free(want[t]);
	free(got);
	unsetenv("SLUICE_TEST_NEXMARK_CHUNK_EVENTS");
	expect_error("nexmark.table.type", "Seller", "'nexmark.table.type' must be");
	expect_error("nexmark.use.real.time", "true", "is not supported");
}

/* Events per CPU-second of the generator alone (a figure for
 * docs/nexmark.md; asserts only that it runs). */
static void test_throughput(void **state)
{
	(void)state;
	const long long total = 4000000;
	fixture f;
	fx_init(&f, total);
	sl_err err;
	sl_source *s = fx_open(&f, &err);
	sl_batch *b = sl_batch_new(4, f.types, 1024);
	struct rusage r0, r1;
	getrusage(RUSAGE_SELF, &r0);
	long long n = 0;
	for (;;) {
		sl_batch_reset(b);
		int rc = s->vt->read(s, b, &err);
		if (rc == SL_EEOF)
			break;
		assert_true(rc > 0);
		if (!s->seed)
			n += rc;
	}
	getrusage(RUSAGE_SELF, &r1);
	double cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
	             (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e6 +
	             (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
	             (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6;
	assert_true(n == total);
	printf("nexmark generator: %lld events in %.3f CPU-s = %.2f M events per CPU-second\n", n,
	       cpu, cpu > 0 ? (double)n / cpu / 1e6 : 0.0);
	sl_batch_free(b);
	sl_source_free(s);
	sl_arena_deinit(&f.arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_splits_union),
		cmocka_unit_test(test_unbounded_walk),
		cmocka_unit_test(test_spec),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_snapshot_restore),
		cmocka_unit_test(test_option_errors),
		cmocka_unit_test(test_proportions),
		cmocka_unit_test(test_rw_tables),
		cmocka_unit_test(test_throughput),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
