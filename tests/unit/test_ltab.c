/*
 * test_ltab.c - the two-phase window aggregate's partial accumulators
 * (src/exec/ltab.h): an upsert returns the same zeroed slot for the same
 * (window end, key) and distinct slots for distinct keys, across index
 * and buffer growth (50 000 keys in one window, keys of 1 to 40 bytes,
 * 16-byte aligned slots); windows are kept in ascending end order
 * whatever the order they are opened in; a scan visits a window's entries
 * in insertion order with their keys, slots, records (the partial's
 * wire form: length, key, zero padding, slot) and hashes; the inline
 * upsert finds what the call finds; a drop empties the
 * window, which is reused empty; the entry count follows.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "exec/ltab.h"
#include "state/state.h"

#define SLOT 32

/* Key number i: 1 to 40 bytes, distinct for distinct i. */
static uint32_t key_of(int i, char *k)
{
	uint32_t n = (uint32_t)snprintf(k, 64, "%d", i);
	uint32_t len = 1 + (uint32_t)(i % 40);
	if (len > n)
		memset(k + n, 'x', len - n);
	else
		len = n;
	return len;
}

static void *up(sl_ltab *t, int64_t end, int i)
{
	char k[64];
	uint32_t len = key_of(i, k);
	return sl_ltab_upsert(t, end, k, len, sl_state_hash(k, len));
}

typedef struct visit {
	int n;
	int64_t sum;       /* of the slots' first i64 */
	int in_order;      /* keys came as 0, 1, 2, ... */
} visit;

static int visit_cb(void *ctx, int64_t end, const sl_lent *e)
{
	visit *v = ctx;
	char k[64];
	uint32_t len = key_of(v->n, k);
	if (len != e->klen || memcmp(k, e->key, e->klen))
		v->in_order = 0;
	/* the record: [u32 klen][key][zeros to 16][slot], and the hash */
	uint32_t rk;
	memcpy(&rk, e->rec, 4);
	uint32_t head = sl_ltab_head(len);
	assert_int_equal(rk, len);
	assert_ptr_equal(e->key, e->rec + 4);
	assert_ptr_equal(e->slot, e->rec + head);
	assert_int_equal(e->len, head + SLOT);
	assert_int_equal(head % 16, 0);
	for (uint32_t b = 4 + len; b < head; b++)
		assert_int_equal(e->rec[b], 0);
	assert_int_equal(e->hash, sl_state_hash(k, len));
	int64_t x;
	memcpy(&x, e->slot, 8);
	v->sum += x;
	v->n++;
	return 0;
}

static void test_upsert_grow_scan(void **state)
{
	sl_ltab t;
	sl_ltab_init(&t, SLOT);
	const int N = 50000;
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < N; i++) {
			char *s = up(&t, 1000, i);
			assert_non_null(s);
			assert_int_equal((uintptr_t)s % 16, 0);
			int64_t x;
			memcpy(&x, s, 8);
			assert_int_equal(x, (int64_t)round * i); /* zeroed when new */
			x += i;
			memcpy(s, &x, 8);
			for (int b = 8; b < SLOT; b++)
				assert_int_equal(s[b], 0);
		}
	assert_int_equal(t.count, (uint64_t)N);
	visit v = {0, 0, 1};
	assert_int_equal(sl_ltab_scan(&t, 0, visit_cb, &v), 0);
	assert_int_equal(v.n, N);
	assert_true(v.in_order);
	assert_int_equal(v.sum, 3 * ((int64_t)N * (N - 1) / 2));
	sl_ltab_drop(&t, 0);
	assert_int_equal(t.count, 0);
	assert_int_equal(t.nwin, 0);
	/* the emptied window comes back empty */
	char *s = up(&t, 2000, 7);
	int64_t x;
	memcpy(&x, s, 8);
	assert_int_equal(x, 0);
	assert_int_equal(t.count, 1);
	sl_ltab_deinit(&t);
}

static void test_windows_in_order(void **state)
{
	sl_ltab t;
	sl_ltab_init(&t, SLOT);
	int64_t ends[] = {50, 10, 40, 20, 30};
	for (int w = 0; w < 5; w++)
		for (int i = 0; i <= w; i++)
			assert_non_null(up(&t, ends[w], i));
	assert_int_equal(t.nwin, 5);
	assert_int_equal(t.count, 15);
	int64_t e, prev = 0;
	int n = 0;
	while (sl_ltab_first(&t, &e)) {
		assert_true(e > prev);
		prev = e;
		visit v = {0, 0, 1};
		assert_int_equal(sl_ltab_scan(&t, 0, visit_cb, &v), 0);
		assert_true(v.in_order);
		sl_ltab_drop(&t, 0);
		n++;
	}
	assert_int_equal(n, 5);
	assert_int_equal(t.count, 0);
	/* a window in the middle */
	for (int w = 0; w < 3; w++)
		assert_non_null(up(&t, (w + 1) * 100, w));
	sl_ltab_drop(&t, 1);
	assert_int_equal(t.nwin, 2);
	assert_true(sl_ltab_first(&t, &e) && e == 100);
	assert_int_equal(t.win[1]->end, 300);
	sl_ltab_deinit(&t);
	sl_ltab_deinit(&t); /* twice is safe */
}

/* sl_ltab_upsert_inl gives the slot sl_ltab_upsert gives: an existing
 * key's (inline, or through the call when another window was last or its
 * index slot holds another key), a new key's zeroed. */
static void test_upsert_inl(void **state)
{
	sl_ltab t;
	sl_ltab_init(&t, SLOT);
	const int N = 3000;
	for (int i = 0; i < N; i++)
		assert_non_null(up(&t, 1000, i));
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 2 * N; i++) {
			char k[64];
			uint32_t len = key_of(i, k), h = sl_state_hash(k, len);
			int64_t end = i % 3 == 0 ? 2000 : 1000; /* switch windows often */
			char *a = sl_ltab_upsert_inl(&t, end, k, len, h);
			char *b = sl_ltab_upsert(&t, end, k, len, h);
			assert_non_null(a);
			assert_ptr_equal(a, b);
			if (round == 0 && (i >= N || end == 2000))
				for (int j = 0; j < SLOT; j++) /* new: zeroed */
					assert_int_equal(a[j], 0);
			a[0] = 1;
		}
	assert_int_equal(t.count, (uint64_t)(2 * N + N / 3)); /* 1000: 0..2N-1 but i % 3 == 0 past N; 2000: i % 3 == 0 */
	sl_ltab_deinit(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upsert_grow_scan),
		cmocka_unit_test(test_windows_in_order),
		cmocka_unit_test(test_upsert_inl),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
