/*
 * test_timers.c - event-time timers (src/exec/timers.h) on both state
 * backends: keyed timers fire in time order up to W and are gone after,
 * setting one twice fires it once, a callback may set a timer that fires
 * in the same call, an error stops the firing, and timers survive a
 * snapshot and restore into a new backend; namespace timers fire the union
 * of their tables' namespaces in order, once each, drop them at once or
 * after the retention, and report `fired` and `next`.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "exec/graph.h"
#include "exec/timers.h"

typedef struct fired_log {
	int n;
	int64_t ts[64];
	char key[64][8];
	sl_timers *tm;     /* set: the callback re-arms key "r" at ts + 5 once */
	int fail_at;       /* > 0: fail on that call */
} fired_log;

static int log_cb(void *ctx, int64_t ts, const void *key, uint32_t klen, sl_err *err)
{
	fired_log *l = ctx;
	assert_true(l->n < 64 && klen < 8);
	if (l->fail_at && l->n + 1 == l->fail_at)
		return sl_err_set(err, SL_EINPUT, "callback failed");
	l->ts[l->n] = ts;
	memcpy(l->key[l->n], key, klen);
	l->key[l->n][klen] = 0;
	l->n++;
	if (l->tm && klen == 1 && *(const char *)key == 'r' && ts < 100)
		return sl_timers_set(l->tm, ts + 5, "r", 1, err);
	return 0;
}

static sl_op *new_op(sl_state_backend *be)
{
	sl_op *op = calloc(1, sizeof(sl_op));
	op->state = be;
	strcpy(op->uid, "timer-test");
	return op;
}

static void keyed(const char *backend)
{
	sl_state_backend *be;
	sl_err err = {0};
	assert_int_equal(sl_state_backend_open(backend, &be, &err), 0);
	sl_op *op = new_op(be);
	sl_timers tm = {0};
	assert_int_equal(sl_timers_open(&tm, op, "timers", &err), 0);
	assert_int_equal(sl_timers_set(&tm, 30, "c", 1, &err), 0);
	assert_int_equal(sl_timers_set(&tm, 10, "a", 1, &err), 0);
	assert_int_equal(sl_timers_set(&tm, 20, "b", 1, &err), 0);
	assert_int_equal(sl_timers_set(&tm, 10, "a", 1, &err), 0); /* again: once */
	assert_int_equal(sl_timers_set(&tm, 10, "", 0, &err), 0);  /* empty key */
	assert_int_equal(sl_state_count(tm.t), 4);

	fired_log l = {0};
	assert_int_equal(sl_timers_fire(&tm, 5, log_cb, &l, &err), 0);
	assert_int_equal(l.n, 0);
	assert_int_equal(sl_timers_fire(&tm, 20, log_cb, &l, &err), 0);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.ts[0], 10);
	assert_int_equal(l.ts[1], 10);
	assert_int_equal(l.ts[2], 20);
	assert_string_equal(l.key[2], "b");
	assert_int_equal(sl_state_count(tm.t), 1); /* only 30 is left */
	assert_int_equal(sl_timers_fire(&tm, 20, log_cb, &l, &err), 0);
	assert_int_equal(l.n, 3); /* fired timers are gone */

	/* a callback re-arming "r" at ts + 5: 40, 45, 50 fire in one call */
	l.n = 0;
	l.tm = &tm;
	assert_int_equal(sl_timers_set(&tm, 40, "r", 1, &err), 0);
	assert_int_equal(sl_timers_fire(&tm, 50, log_cb, &l, &err), 0);
	assert_int_equal(l.n, 4);
	assert_string_equal(l.key[0], "c");
	assert_int_equal(l.ts[1], 40);
	assert_int_equal(l.ts[2], 45);
	assert_int_equal(l.ts[3], 50);
	assert_int_equal(sl_state_count(tm.t), 1); /* "r" at 55 */

	/* snapshot, restore into a new backend: the timer is still there */
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	assert_int_equal(sl_state_snapshot(be, NULL, &w, &err), 0);
	sl_state_backend *be2;
	assert_int_equal(sl_state_backend_open(backend, &be2, &err), 0);
	sl_op *op2 = new_op(be2);
	sl_timers tm2 = {0};
	assert_int_equal(sl_timers_open(&tm2, op2, "timers", &err), 0);
	sl_snap_reader r;
	sl_snap_reader_init(&r, w.buf, w.len);
	assert_int_equal(sl_state_restore(be2, &r, &err), 0);
	l.n = 0;
	l.tm = NULL;
	assert_int_equal(sl_timers_fire(&tm2, SL_WM_MAX, log_cb, &l, &err), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.ts[0], 55);
	assert_string_equal(l.key[0], "r");

	/* an error stops the firing and is returned */
	assert_int_equal(sl_timers_set(&tm, 60, "x", 1, &err), 0);
	assert_int_equal(sl_timers_set(&tm, 70, "y", 1, &err), 0);
	l.n = 0;
	l.fail_at = 2;
	assert_int_equal(sl_timers_fire(&tm, 100, log_cb, &l, &err), SL_EINPUT);
	assert_int_equal(l.n, 1);

	sl_snap_writer_deinit(&w);
	sl_timers_deinit(&tm);
	sl_timers_deinit(&tm2);
	sl_timers_deinit(&tm2); /* twice is safe */
	free(op);
	free(op2);
	sl_state_backend_close(be);
	sl_state_backend_close(be2);
}

static void test_keyed_hashmap(void **state)
{
	(void)state;
	keyed("hashmap");
}

static void test_keyed_rocksdb(void **state)
{
	(void)state;
	keyed("rocksdb");
}

typedef struct ns_log {
	int n;
	int64_t ns[32];
	sl_state_table *add_to; /* set: firing 10 creates namespace 15 */
} ns_log;

static int ns_cb(void *ctx, int64_t ns, sl_err *err)
{
	ns_log *l = ctx;
	assert_true(l->n < 32);
	l->ns[l->n++] = ns;
	if (l->add_to && ns == 10 && !sl_state_upsert(l->add_to, 15, "k", 1, NULL))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

static void put(sl_state_table *t, int64_t ns)
{
	assert_non_null(sl_state_upsert(t, ns, "k", 1, NULL));
}

static void ns_timers(const char *backend)
{
	sl_state_backend *be;
	sl_err err = {0};
	assert_int_equal(sl_state_backend_open(backend, &be, &err), 0);
	sl_state_table *a = sl_state_table_open(be, "op", "a", 8, &err);
	sl_state_table *b = sl_state_table_open(be, "op", "b", 8, &err);
	assert_non_null(a);
	assert_non_null(b);

	/* retain 0: the union 10, 20, 30 of a {10, 30} and b {20, 30} */
	sl_ns_timers t;
	sl_ns_timers_init(&t, 0);
	sl_ns_timers_add(&t, a);
	sl_ns_timers_add(&t, NULL); /* ignored */
	sl_ns_timers_add(&t, b);
	assert_int_equal(t.ntabs, 2);
	assert_int_equal(t.next, SL_WM_MIN);
	put(a, 10);
	put(a, 30);
	put(b, 20);
	put(b, 30);
	put(b, 40);
	ns_log l = {0};
	l.add_to = a;
	assert_int_equal(sl_ns_timers_fire(&t, 30, ns_cb, &l, &err), 0);
	assert_int_equal(l.n, 4); /* 10, then 15 (created by the callback), 20, 30 */
	assert_int_equal(l.ns[0], 10);
	assert_int_equal(l.ns[1], 15);
	assert_int_equal(l.ns[2], 20);
	assert_int_equal(l.ns[3], 30);
	assert_int_equal(t.fired, 30);
	assert_int_equal(t.next, 40);
	assert_int_equal(sl_state_count(a), 0);
	assert_int_equal(sl_state_count(b), 1);
	assert_int_equal(sl_ns_timers_fire(&t, 30, ns_cb, &l, &err), 0); /* w <= fired */
	assert_int_equal(l.n, 4);
	assert_int_equal(sl_ns_timers_fire(&t, 100, ns_cb, &l, &err), 0);
	assert_int_equal(l.n, 5);
	assert_int_equal(t.next, INT64_MAX);

	/* retain 10: fired once, dropped when W >= ns + 10; a namespace
	 * written below fired (a late correction) does not fire again */
	sl_ns_timers_init(&t, 10);
	sl_ns_timers_add(&t, a);
	put(a, 10);
	put(a, 20);
	l.n = 0;
	l.add_to = NULL;
	assert_int_equal(sl_ns_timers_fire(&t, 15, ns_cb, &l, &err), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(sl_state_count(a), 2); /* 10 kept until W >= 20 */
	assert_int_equal(t.next, 20);
	put(a, 5); /* below fired: no firing, dropped with the others */
	assert_int_equal(sl_ns_timers_fire(&t, 20, ns_cb, &l, &err), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.ns[1], 20);
	assert_int_equal(sl_state_count(a), 1); /* 5 and 10 dropped, 20 kept */
	assert_int_equal(sl_ns_timers_fire(&t, 30, ns_cb, &l, &err), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(sl_state_count(a), 0);
	sl_state_backend_close(be);
}

static void test_ns_hashmap(void **state)
{
	(void)state;
	ns_timers("hashmap");
}

static void test_ns_rocksdb(void **state)
{
	(void)state;
	ns_timers("rocksdb");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keyed_hashmap),
		cmocka_unit_test(test_keyed_rocksdb),
		cmocka_unit_test(test_ns_hashmap),
		cmocka_unit_test(test_ns_rocksdb),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
