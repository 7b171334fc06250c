/*
 * test_state.c - the memory state backend: upsert/get/delete, namespaces,
 * variable-length values, scans, snapshot/restore round trips and damaged
 * snapshots.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "sluice.h"
#include "state/state.h"

typedef struct acc {
	int64_t sum, cnt;
} acc;

static sl_state_backend *open_be(void)
{
	sl_state_backend *be = NULL;
	sl_err err;
	sl_err_clear(&err);
	assert_int_equal(sl_state_backend_open("hashmap", &be, &err), 0);
	return be;
}

static void test_upsert_get_delete(void **st)
{
	sl_state_backend *be = open_be();
	sl_err err;
	sl_err_clear(&err);
	sl_state_table *t = sl_state_table_open(be, "op1", "acc", sizeof(acc), &err);
	assert_non_null(t);
	char key[32];
	for (int i = 0; i < 100000; i++) {
		int n = snprintf(key, sizeof(key), "user%d", i % 5000);
		int created;
		acc *a = sl_state_upsert(t, 0, key, (uint32_t)n, &created);
		assert_non_null(a);
		assert_int_equal(created, i < 5000);
		a->sum += i;
		a->cnt++;
	}
	assert_int_equal(sl_state_count(t), 5000);
	acc *a = sl_state_get(t, 0, "user7", 5);
	assert_non_null(a);
	assert_int_equal(a->cnt, 20);
	assert_null(sl_state_get(t, 0, "nobody", 6));
	assert_null(sl_state_get(t, 1, "user7", 5));
	/* delete half, the rest must stay reachable (backward-shift deletion) */
	for (int i = 0; i < 5000; i += 2) {
		int n = snprintf(key, sizeof(key), "user%d", i);
		sl_state_delete(t, 0, key, (uint32_t)n);
	}
	assert_int_equal(sl_state_count(t), 2500);
	for (int i = 0; i < 5000; i++) {
		int n = snprintf(key, sizeof(key), "user%d", i);
		acc *x = sl_state_get(t, 0, key, (uint32_t)n);
		if (i % 2)
			assert_non_null(x), assert_int_equal(x->cnt, 20);
		else
			assert_null(x);
	}
	/* same name, other size is refused */
	assert_null(sl_state_table_open(be, "op1", "acc", 8, &err));
	assert_true(strstr(err.msg, "value size") != NULL);
	sl_state_backend_close(be);
}

static int count_cb(void *ctx, const void *k, uint32_t kl, void *v, uint32_t vl)
{
	(*(int *)ctx)++;
	return 0;
}

static void test_namespaces(void **st)
{
	sl_state_backend *be = open_be();
	sl_err err;
	sl_err_clear(&err);
	sl_state_table *t = sl_state_table_open(be, "w", "win", 16, &err);
	int64_t ends[] = {30, 10, 20, 10, 40};
	for (int i = 0; i < 5; i++) {
		char k = (char)('a' + i);
		assert_non_null(sl_state_upsert(t, ends[i], &k, 1, NULL));
	}
	int64_t ns;
	assert_int_equal(sl_state_ns_first(t, &ns), 1);
	assert_int_equal(ns, 10);
	int n = 0;
	sl_state_ns_scan(t, 10, count_cb, &n);
	assert_int_equal(n, 2);
	assert_int_equal(sl_state_ns_next(t, 10, &ns), 1);
	assert_int_equal(ns, 20);
	assert_int_equal(sl_state_ns_next(t, 15, &ns), 1);
	assert_int_equal(ns, 20);
	sl_state_ns_drop(t, 10);
	assert_int_equal(sl_state_ns_first(t, &ns), 1);
	assert_int_equal(ns, 20);
	assert_int_equal(sl_state_count(t), 3);
	assert_int_equal(sl_state_ns_next(t, 40, &ns), 0);
	sl_state_backend_close(be);
}

static void test_var_values(void **st)
{
	sl_state_backend *be = open_be();
	sl_err err;
	sl_err_clear(&err);
	sl_state_table *t = sl_state_table_open(be, "o", "v", 0, &err);
	assert_int_equal(sl_state_put_var(t, 0, "k", 1, "short", 5), 0);
	assert_int_equal(sl_state_put_var(t, 0, "k", 1, "a much longer value here", 24), 0);
	const void *v;
	uint32_t vl;
	assert_int_equal(sl_state_get_var(t, 0, "k", 1, &v, &vl), 1);
	assert_int_equal(vl, 24);
	assert_memory_equal(v, "a much longer value here", 24);
	assert_int_equal(sl_state_count(t), 1);
	assert_int_equal(sl_state_get_var(t, 0, "x", 1, &v, &vl), 0);
	sl_state_backend_close(be);
}

static void test_snapshot_roundtrip(void **st)
{
	sl_state_backend *be = open_be();
	sl_err err;
	sl_err_clear(&err);
	sl_state_table *t = sl_state_table_open(be, "op", "acc", sizeof(acc), &err);
	sl_state_table *v = sl_state_table_open(be, "op2", "var", 0, &err);
	char key[32];
	for (int i = 0; i < 1000; i++) {
		int n = snprintf(key, sizeof(key), "k%d", i);
		acc *a = sl_state_upsert(t, i % 7, key, (uint32_t)n, NULL);
		a->sum = i;
		a->cnt = i * 2;
	}
	sl_state_put_var(v, 5, "x", 1, "hello", 5);
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	assert_int_equal(sl_state_snapshot(be, NULL, &w, &err), 0);

	sl_state_backend *be2 = open_be();
	sl_snap_reader r;
	sl_snap_reader_init(&r, w.buf, w.len);
	assert_int_equal(sl_state_restore(be2, &r, &err), 0);
	sl_state_table *t2 = sl_state_table_open(be2, "op", "acc", sizeof(acc), &err);
	assert_int_equal(sl_state_count(t2), 1000);
	for (int i = 0; i < 1000; i++) {
		int n = snprintf(key, sizeof(key), "k%d", i);
		acc *a = sl_state_get(t2, i % 7, key, (uint32_t)n);
		assert_non_null(a);
		assert_int_equal(a->sum, i);
		assert_int_equal(a->cnt, i * 2);
	}
	sl_state_table *v2 = sl_state_table_open(be2, "op2", "var", 0, &err);
	const void *p;
	uint32_t pl;
	assert_int_equal(sl_state_get_var(v2, 5, "x", 1, &p, &pl), 1);
	assert_memory_equal(p, "hello", 5);

	/* every truncation is detected, never a crash */
	for (size_t cut = 0; cut < w.len; cut += 97) {
		sl_state_backend *be3 = open_be();
		sl_err e3;
		sl_err_clear(&e3);
		sl_snap_reader_init(&r, w.buf, cut);
		assert_int_equal(sl_state_restore(be3, &r, &e3), SL_ESTATE);
		sl_state_backend_close(be3);
	}
	/* per-operator snapshot holds only that operator's tables */
	sl_snap_writer w2;
	sl_snap_writer_init(&w2);
	assert_int_equal(sl_state_snapshot(be, "op2", &w2, &err), 0);
	assert_true(w2.len < 100);
	sl_snap_writer_deinit(&w2);
	sl_snap_writer_deinit(&w);
	sl_state_backend_close(be);
	sl_state_backend_close(be2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upsert_get_delete),
		cmocka_unit_test(test_namespaces),
		cmocka_unit_test(test_var_values),
		cmocka_unit_test(test_snapshot_roundtrip),
	};
	return cmocka_run_group_tests_name("state", tests, NULL, NULL);
}
