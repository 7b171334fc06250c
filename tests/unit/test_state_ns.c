/*
 * test_state_ns.c - the ordered index of a state table's namespaces
 * (src/state/nsidx.{c,h}, the B+tree both backends keep their namespaces
 * in): random puts and deletes against a reference with the tree's
 * invariants checked, iteration and next() order, the timer patterns
 * (in order, dropped from the oldest; in reverse); then, on both backends,
 * the regression of the far-apart splits (docs/performance.md, 2026-12-03:
 * timers of a split read behind another one moved every later namespace,
 * quadratic) as a bound on the index's work counter, never a time, and
 * snapshots of such tables restored into either backend in order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "state/nsidx.h"
#include "state/state.h"
#include "state/state_backends.h"

static uint64_t g_rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	g_rng ^= g_rng << 13;
	g_rng ^= g_rng >> 7;
	g_rng ^= g_rng << 17;
	return g_rng;
}

/* ---- the tree alone ------------------------------------------------------- */

#define DOM 20000 /* keys -DOM/2 .. DOM/2 - 1, times 3 */

static int64_t key_of(int i)
{
	return (int64_t)(i - DOM / 2) * 3;
}

/* Everything a reference set says about x: get, iteration, next. */
static void same_as(sl_nsidx *x, const unsigned char *in, int n)
{
	assert_int_equal(sl__nsidx_check(x), 0);
	assert_int_equal((int)x->n, n);
	sl_nsidx_it it;
	sl__nsidx_begin(x, &it);
	int64_t k;
	void *v;
	int i = 0;
	while (sl__nsidx_it_next(&it, &k, &v)) {
		while (i < DOM && !in[i])
			i++;
		assert_true(i < DOM);
		assert_int_equal(k, key_of(i));
		assert_ptr_equal(v, (void *)(uintptr_t)(i + 1));
		i++;
	}
	while (i < DOM && !in[i])
		i++;
	assert_int_equal(i, DOM);
	/* next() from every gap and every key, get() of present and absent ones */
	int nxt = DOM; /* the smallest present index > i */
	for (i = DOM - 1; i >= -1; i--) {
		int64_t after = i >= 0 ? key_of(i) : key_of(0) - 2;
		for (int d = 0; d <= 1; d++) {
			int got = sl__nsidx_next(x, after + d, &k, &v);
			assert_int_equal(got, nxt < DOM);
			if (got)
				assert_int_equal(k, key_of(nxt));
		}
		if (i >= 0) {
			void **p = sl__nsidx_get(x, key_of(i));
			assert_int_equal(p != NULL, in[i]);
			assert_null(sl__nsidx_get(x, key_of(i) + 1));
			if (in[i])
				nxt = i;
		}
	}
	int have = sl__nsidx_first(x, &k, &v);
	assert_int_equal(have, n > 0);
	/* a walk by next() (each from where the last ended) sees them all */
	int walked = 0;
	for (i = 0; have; have = sl__nsidx_next(x, k, &k, &v)) {
		while (!in[i])
			i++;
		assert_int_equal(k, key_of(i));
		i++;
		walked++;
	}
	assert_int_equal(walked, n);
}

/* A short walk by next() from k: each step the smallest present key
 * above the last (the walk's hint must not survive a change). */
static void walk_from(sl_nsidx *x, const unsigned char *in, int i)
{
	int64_t k = key_of(i);
	for (int step = 0; step < 3; step++) {
		int j = i + 1;
		while (j < DOM && !in[j])
			j++;
		int64_t got;
		assert_int_equal(sl__nsidx_next(x, k, &got, NULL), j < DOM);
		if (j >= DOM)
			return;
		assert_int_equal(got, key_of(j));
		k = got;
		i = j;
	}
}

static void test_nsidx_random(void **st)
{
	sl_nsidx x;
	sl__nsidx_init(&x);
	unsigned char *in = calloc(DOM, 1);
	int n = 0;
	/* phases: mostly puts (the tree grows to 4 levels of splits), mixed,
	 * mostly deletes (merges and shares down to a leaf) */
	const int pput[3] = {90, 50, 10};
	for (int ph = 0; ph < 3; ph++) {
		for (int op = 0; op < 60000; op++) {
			int i = (int)(rnd() % DOM);
			if ((int)(rnd() % 100) < pput[ph]) {
				if (in[i])
					continue;
				assert_int_equal(sl__nsidx_put(&x, key_of(i), (void *)(uintptr_t)(i + 1)), 0);
				in[i] = 1;
				n++;
			} else {
				void *v = NULL;
				assert_int_equal(sl__nsidx_del(&x, key_of(i), &v), in[i]);
				if (in[i])
					assert_ptr_equal(v, (void *)(uintptr_t)(i + 1));
				n -= in[i];
				in[i] = 0;
			}
			if (op % 5000 == 0)
				assert_int_equal(sl__nsidx_check(&x), 0);
			if (op % 7 == 0)
				walk_from(&x, in, (int)(rnd() % DOM));
		}
		same_as(&x, in, n);
	}
	for (int i = 0; i < DOM; i++)
		if (in[i]) {
			assert_int_equal(sl__nsidx_del(&x, key_of(i), NULL), 1);
			in[i] = 0;
			n--;
		}
	same_as(&x, in, 0);
	assert_int_equal(x.height, 0);
	sl__nsidx_deinit(&x);
	free(in);
}

/* Timers: put in order, dropped from the oldest (each put the newest, as
 * a window or an interval join sets them), then in reverse order. */
static void test_nsidx_patterns(void **st)
{
	sl_nsidx x;
	sl__nsidx_init(&x);
	unsigned char *in = calloc(DOM, 1);
	int lo = 0, hi = 0; /* present: [lo, hi) */
	while (hi < DOM) {
		for (int j = 0; j < 7 && hi < DOM; j++, hi++) {
			assert_int_equal(sl__nsidx_put(&x, key_of(hi), (void *)(uintptr_t)(hi + 1)), 0);
			in[hi] = 1;
		}
		if (hi > DOM / 2)
			for (int j = 0; j < 5 && lo < hi; j++, lo++) {
				int64_t k;
				assert_int_equal(sl__nsidx_first(&x, &k, NULL), 1);
				assert_int_equal(k, key_of(lo));
				assert_int_equal(sl__nsidx_del(&x, k, NULL), 1);
				in[lo] = 0;
			}
	}
	same_as(&x, in, hi - lo);
	/* in order from full leaves: a put at a leaf's end keeps it full */
	assert_true(x.height <= 2);
	while (lo < hi) {
		assert_int_equal(sl__nsidx_del(&x, key_of(lo), NULL), 1);
		in[lo++] = 0;
	}
	same_as(&x, in, 0);
	for (int i = DOM - 1; i >= 0; i--) {
		assert_int_equal(sl__nsidx_put(&x, key_of(i), (void *)(uintptr_t)(i + 1)), 0);
		in[i] = 1;
	}
	same_as(&x, in, DOM);
	for (int i = DOM - 1; i >= 0; i -= 2) {
		assert_int_equal(sl__nsidx_del(&x, key_of(i), NULL), 1);
		in[i] = 0;
	}
	same_as(&x, in, DOM / 2);
	sl__nsidx_deinit(&x);
	free(in);
}

/* ---- far-apart splits, on both backends ------------------------------------ */

static const char *g_type = "hashmap";

static int set_backend(void **st)
{
	g_type = *st;
	return 0;
}

static sl_state_backend *open_type(const char *type)
{
	sl_state_backend *be = NULL;
	sl_err err;
	sl_err_clear(&err);
	int rc = sl_state_backend_open(type, &be, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	assert_int_equal(rc, 0);
	return be;
}

static uint64_t ns_work(const char *type, const sl_state_table *t)
{
	return strcmp(type, "rocksdb") ? sl__state_mem_ns_work(t) : sl__state_rdb_ns_work(t);
}

/* Rows of each of two splits: 64 K on the memory backend, 4 K on RocksDB
 * (whose drops are writes: 64 K took minutes on a loaded machine). */
static int g_rows = 1 << 16;
#define SPLIT_ROWS g_rows
#define BATCH (g_rows / 64)  /* rows a split gives in turn */
#define FAR 1000000000000ll  /* event time between the splits */

static int rows_for(const char *type)
{
	return strcmp(type, "rocksdb") ? 1 << 16 : 1 << 12;
}

/*
 * What a chunked datagen gives an interval join's timer table (2 x 1 M
 * rows in bench/stateful.sh, 2 x g_rows here): split 0's rows at times
 * 1, 2, ..., split 1's at FAR + 1, ..., a batch of each in turn, one
 * timer (namespace) per row.
 */
static void fill_far_apart(sl_state_table *t)
{
	for (int b = 0; b < SPLIT_ROWS / BATCH; b++)
		for (int s = 0; s < 2; s++)
			for (int i = b * BATCH; i < (b + 1) * BATCH; i++) {
				int64_t ts = s * FAR + i + 1;
				int64_t key = s * SPLIT_ROWS + i;
				assert_non_null(sl_state_upsert(t, ts, &key, 8, NULL));
			}
}

static int key_cb(void *ctx, const void *k, uint32_t kl, void *v, uint32_t vl, sl_err *err)
{
	assert_int_equal(kl, 8);
	memcpy(ctx, k, 8);
	return 0;
}

/* Every namespace of t in order, each with its one key, as fill_far_apart
 * made them; dropped as they are visited when `drop` (timers firing). */
static void check_far_apart(sl_state_table *t, int drop)
{
	sl_err err;
	sl_err_clear(&err);
	assert_int_equal(sl_state_count(t), 2 * SPLIT_ROWS);
	int64_t ns, prev = 0;
	int n = 0;
	int have = sl_state_ns_first(t, &ns);
	while (have) {
		int s = n / SPLIT_ROWS, i = n % SPLIT_ROWS;
		assert_int_equal(ns, s * FAR + i + 1);
		int64_t key = -1;
		assert_int_equal(sl_state_ns_scan(t, ns, key_cb, &key, &err), 0);
		assert_int_equal(key, (int64_t)s * SPLIT_ROWS + i);
		n++;
		prev = ns;
		if (drop) {
			sl_state_ns_drop(t, ns);
			have = sl_state_ns_first(t, &ns);
		} else {
			have = sl_state_ns_next(t, prev, &ns);
		}
	}
	assert_int_equal(n, 2 * SPLIT_ROWS);
	assert_int_equal(sl_state_count(t), drop ? 0 : 2 * SPLIT_ROWS);
}

/*
 * The regression: the namespace index's work (elements moved or compared,
 * nodes visited) stays within a bound linear in the number of operations
 * times the tree's node size.  The sorted array did ~g_rows / 2 moves per
 * timer of split 0 (2.1 * 10^9 in all on the memory backend, 64 times the
 * bound; over 100 CPU-seconds at 2 M rows); the tree does 2.9 * 10^6.
 */
static void test_far_apart_work(void **st)
{
	g_rows = rows_for(g_type);
	sl_state_backend *be = open_type(g_type);
	sl_err err;
	sl_err_clear(&err);
	sl_state_table *t = sl_state_table_open(be, "ij", "timers-l", 8, &err);
	assert_non_null(t);
	uint64_t ops = 2 * SPLIT_ROWS, bound = ops * 4 * SL_NSIDX_B;
	fill_far_apart(t);
	uint64_t w = ns_work(g_type, t);
	printf("# %s: %llu work for %llu puts (bound %llu)\n", g_type, (unsigned long long)w,
	       (unsigned long long)ops, (unsigned long long)bound);
	assert_true(w <= bound);
	/* firing every timer: first, scan, drop, each a lookup and a removal */
	check_far_apart(t, 1);
	w = ns_work(g_type, t);
	printf("# %s: %llu work after firing them\n", g_type, (unsigned long long)w);
	assert_true(w <= 3 * bound);
	sl_state_backend_close(be);
}

/* A snapshot of far-apart namespaces in a `from` backend restores into an
 * `into` one in namespace order (with a bounded work), and the restored
 * table takes new namespaces in between. */
static void snapshot_case(const char *from, const char *into, int rows)
{
	g_rows = rows;
	sl_state_backend *be = open_type(from);
	sl_err err;
	sl_err_clear(&err);
	sl_state_table *t = sl_state_table_open(be, "ij", "timers-l", 8, &err);
	fill_far_apart(t);
	check_far_apart(t, 0);
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	assert_int_equal(sl_state_snapshot(be, NULL, &w, &err), 0);
	sl_state_backend *be2 = open_type(into);
	sl_snap_reader r;
	sl_snap_reader_init(&r, w.buf, w.len);
	assert_int_equal(sl_state_restore(be2, &r, &err), 0);
	sl_state_table *t2 = sl_state_table_open(be2, "ij", "timers-l", 8, &err);
	assert_non_null(t2);
	/* a restore puts the namespaces key group by key group: out of order */
	assert_true(ns_work(into, t2) <= (uint64_t)2 * SPLIT_ROWS * 4 * SL_NSIDX_B);
	check_far_apart(t2, 0);
	int64_t key = 7, ns;
	assert_non_null(sl_state_upsert(t2, FAR / 2, &key, 8, NULL));
	assert_int_equal(sl_state_ns_next(t2, SPLIT_ROWS, &ns), 1);
	assert_int_equal(ns, FAR / 2);
	assert_int_equal(sl_state_ns_next(t2, FAR / 2, &ns), 1);
	assert_int_equal(ns, FAR + 1);
	sl_state_ns_drop(t2, FAR / 2);
	check_far_apart(t2, 1);
	sl_state_backend_close(be2);
	sl_snap_writer_deinit(&w);
	sl_state_backend_close(be);
}

static void test_far_apart_snapshot(void **st)
{
	snapshot_case("hashmap", "hashmap", 1 << 16);
	snapshot_case("hashmap", "rocksdb", 1 << 12);
	snapshot_case("rocksdb", "hashmap", 1 << 12);
	snapshot_case("rocksdb", "rocksdb", 1 << 12);
}

#define SHARED(fn, type) cmocka_unit_test_prestate_setup_teardown(fn, set_backend, NULL, type)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nsidx_random),
		cmocka_unit_test(test_nsidx_patterns),
		SHARED(test_far_apart_work, "hashmap"),
		SHARED(test_far_apart_work, "rocksdb"),
		cmocka_unit_test(test_far_apart_snapshot),
	};
	return cmocka_run_group_tests_name("state_ns", tests, NULL, NULL);
}
