/*
 * test_state.c - the state backends: upsert/get/delete, namespaces,
 * variable-length values, scans, snapshot/restore round trips and damaged
 * snapshots, each run against both backends ("hashmap", "rocksdb"); then
 * map tables (a map per key prefix: prefix scans, removals at the head,
 * middle and tail, order kept by snapshots and restores into either
 * backend, behind a TTL) and the one-call read-modify-write of a
 * variable-length value (sl_state_update_var); then
 * what is particular to RocksDB (slot write-back, namespace byte order with
 * negative namespaces, drops) and snapshots restored across backends.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "state/state.h"

#include <pthread.h>

typedef struct acc {
	int64_t sum, cnt;
} acc;

static const char *g_type = "hashmap"; /* the backend the shared cases run on */

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

static sl_state_backend *open_be(void)
{
	return open_type(g_type);
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

static int count_cb(void *ctx, const void *k, uint32_t kl, void *v, uint32_t vl, sl_err *err)
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
	sl_state_ns_scan(t, 10, count_cb, &n, &err);
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
	size_t step = strcmp(g_type, "rocksdb") ? 97 : 1999; /* a database per cut */
	for (size_t cut = 0; cut < w.len; cut += step) {
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


/* ---- map tables (sl_state_table_set_prefix, sl_state_prefix_scan) ----------- */

/* Keys [u8 n][n prefix bytes][rest]: the prefix is the first 1 + n bytes. */
static uint32_t map_pk(const void *ctx, const void *key, uint32_t klen, const void *val,
                       uint32_t vlen, const void **pk)
{
	(void)ctx, (void)val, (void)vlen;
	*pk = key;
	uint32_t n = klen ? 1u + *(const uint8_t *)key : 0;
	return n <= klen ? n : klen;
}

/* Key of entry i of group g: the prefix "g<g>" (a length that varies with
 * g, so prefixes of other lengths share bytes), then i big-endian. */
static uint32_t map_key(char *k, int g, int i)
{
	int n = snprintf(k + 1, 16, "g%d", g);
	k[0] = (char)n;
	for (int b = 0; b < 4; b++)
		k[1 + n + b] = (char)((uint32_t)i >> (24 - 8 * b));
	return (uint32_t)(1 + n + 4);
}

typedef struct map_seen {
	int n;
	int i[512];
	int64_t v[512];
} map_seen;

static int map_cb(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                  sl_err *err)
{
	(void)err;
	map_seen *m = ctx;
	const uint8_t *k = key;
	assert_true(klen >= 5 && m->n < 512);
	uint32_t i = (uint32_t)k[klen - 4] << 24 | (uint32_t)k[klen - 3] << 16 |
	             (uint32_t)k[klen - 2] << 8 | k[klen - 1];
	assert_int_equal(vlen, 8);
	m->i[m->n] = (int)i;
	memcpy(&m->v[m->n++], val, 8);
	return 0;
}

/* The entries of group g, as ordered as the backend scans them. */
static map_seen map_scan(sl_state_table *t, int g)
{
	map_seen m = {0};
	char k[32];
	uint32_t kl = map_key(k, g, 0);
	sl_err err;
	sl_err_clear(&err);
	assert_int_equal(sl_state_prefix_scan(t, 3, k, kl - 4, map_cb, &m, &err), 0);
	return m;
}

/* Group g holds (with the deletions below) i in [0, n) but 0, n / 2, n - 1,
 * then 0 again, added last; values g * 1000 + i. */
static int map_n(int g) { return (g % 7 + 1) * 9; }

static void map_check(sl_state_table *t, int ordered)
{
	for (int g = 0; g < 40; g++) {
		map_seen m = map_scan(t, g);
		int n = map_n(g), want[512], w = 0;
		for (int i = 1; i < n - 1; i++)
			if (i != n / 2)
				want[w++] = i;
		want[w++] = 0;
		assert_int_equal(m.n, w);
		if (!ordered) { /* key order: 0 first */
			memmove(want + 1, want, sizeof(int) * (size_t)(w - 1));
			want[0] = 0;
		}
		for (int j = 0; j < w; j++) {
			assert_int_equal(m.i[j], want[j]);
			assert_int_equal(m.v[j], g * 1000 + want[j]);
		}
	}
	assert_int_equal(map_scan(t, 99).n, 0); /* no such group */
}

static sl_state_table *map_open(sl_state_backend *be)
{
	sl_err err;
	sl_err_clear(&err);
	sl_state_table *t = sl_state_table_open(be, "op", "map", 0, &err);
	assert_non_null(t);
	sl_state_table_set_prefix(t, map_pk, NULL);
	return t;
}

static void test_map_table(void **st)
{
	sl_state_backend *be = open_be();
	sl_state_table *t = map_open(be);
	char k[32];
	int ordered = !strcmp(g_type, "hashmap"); /* RocksDB scans in key order */
	/* groups filled round-robin, so their entries interleave in memory */
	for (int i = 0; i < 63; i++)
		for (int g = 0; g < 40; g++) {
			if (i >= map_n(g))
				continue;
			int64_t v = g * 1000 + i;
			assert_int_equal(sl_state_put_var(t, 3, k, map_key(k, g, i), &v, 8), 0);
		}
	/* remove the head, a middle entry and the tail of every group, then
	 * add the head again: it comes last in creation order */
	for (int g = 0; g < 40; g++) {
		int n = map_n(g);
		sl_state_delete(t, 3, k, map_key(k, g, 0));
		sl_state_delete(t, 3, k, map_key(k, g, n / 2));
		sl_state_delete(t, 3, k, map_key(k, g, n - 1));
		int64_t v = g * 1000;
		assert_int_equal(sl_state_put_var(t, 3, k, map_key(k, g, 0), &v, 8), 0);
	}
	/* an emptied group is gone; rewriting a value keeps its place */
	for (int i = 0; i < map_n(1); i++)
		sl_state_delete(t, 3, k, map_key(k, 1, i));
	assert_int_equal(map_scan(t, 1).n, 0);
	for (int i = 0; i < map_n(1); i++) {
		int64_t v = 1000 + i;
		if (i != map_n(1) / 2 && i != map_n(1) - 1)
			assert_int_equal(sl_state_put_var(t, 3, k, map_key(k, 1, i), &v, 8), 0);
	}
	sl_state_delete(t, 3, k, map_key(k, 1, 0));
	int64_t v0 = 1000;
	assert_int_equal(sl_state_put_var(t, 3, k, map_key(k, 1, 0), &v0, 8), 0);
	int64_t v5 = 5 * 1000 + 3;
	assert_int_equal(sl_state_put_var(t, 3, k, map_key(k, 5, 3), &v5, 8), 0);
	/* prefetch hints of every stage (the groups' for a map table, stages 2
	 * and 3), for present and absent keys and namespaces, and on a table
	 * that is no map table, change nothing */
	sl_err perr;
	sl_err_clear(&perr);
	sl_state_table *plain = sl_state_table_open(be, "op", "plain", 0, &perr);
	assert_non_null(plain);
	assert_int_equal(sl_state_put_var(plain, 3, k, map_key(k, 1, 1), &v5, 8), 0);
	for (int stage = 0; stage < 4; stage++)
		for (int g = 0; g < 41; g++) {
			uint32_t kl = map_key(k, g, 1);
			sl_state_prefetch(t, 3, sl_state_hash(k, kl - 4), stage);
			sl_state_prefetch(t, 3, sl_state_hash(k, kl), stage);
			sl_state_prefetch(t, 4, sl_state_hash(k, kl - 4), stage);
			sl_state_prefetch(plain, 3, sl_state_hash(k, kl - 4), stage);
		}
	map_check(t, ordered);
	/* snapshots keep each group's order: restored into a map table of
	 * either backend (opened first, as operators do) */
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	sl_err err;
	sl_err_clear(&err);
	assert_int_equal(sl_state_snapshot(be, NULL, &w, &err), 0);
	const char *to[2] = {"hashmap", "rocksdb"};
	for (int b = 0; b < 2; b++) {
		sl_state_backend *be2 = open_type(to[b]);
		sl_state_table *t2 = map_open(be2);
		sl_snap_reader r;
		sl_snap_reader_init(&r, w.buf, w.len);
		assert_int_equal(sl_state_restore(be2, &r, &err), 0);
		map_check(t2, ordered && b == 0);
		sl_state_backend_close(be2);
	}
	sl_snap_writer_deinit(&w);
	sl_state_backend_close(be);
}

/* A map table behind a state TTL: a prefix scan skips expired entries. */
static void test_map_table_ttl(void **st)
{
	sl_state_backend *be = open_be();
	sl_err err;
	sl_err_clear(&err);
	int64_t now = 1000000;
	sl_state_table *chain = NULL;
	sl_state_table *t = sl_state_table_open_ttl(be, "op", "map", 0, 10, &now, 0, &chain, &err);
	assert_non_null(t);
	sl_state_table_set_prefix(t, map_pk, NULL);
	char k[32];
	for (int i = 0; i < 6; i++) {
		int64_t v = 7000 + i;
		now += 2;
		assert_int_equal(sl_state_put_var(t, 3, k, map_key(k, 7, i), &v, 8), 0);
	}
	now += 5; /* entries 0..2 written 10 or more microseconds ago */
	map_seen m = map_scan(t, 7);
	assert_int_equal(m.n, 3);
	for (int j = 0; j < 3; j++)
		assert_int_equal(m.i[j], 3 + j);
	sl_state_ttl_free_chain(chain);
	sl_state_backend_close(be);
}

/* sl_state_update_var's callback: adds `add` to the 8-byte counter; 0
 * removes it, and a negative `add` does not create it; fail makes it return an error
 * after changing val, which must not stick. */
typedef struct upd {
	int64_t add;
	int fail, seen, present;
} upd;

static int upd_cb(void *ctx, void *val, uint32_t vlen, int present)
{
	upd *u = ctx;
	int64_t v;
	assert_int_equal(vlen, 8);
	memcpy(&v, val, 8);
	if (!present)
		assert_int_equal(v, 0);
	u->seen++;
	u->present = present;
	if (!present && u->add < 0)
		return 0; /* a retraction of nothing */
	v += u->add;
	memcpy(val, &v, 8);
	return u->fail ? SL_EINVAL : v != 0;
}

static int64_t upd_get(sl_state_table *t, int64_t ns, const char *k, uint32_t kl)
{
	const void *v;
	uint32_t vl;
	int64_t x;
	if (!sl_state_get_var(t, ns, k, kl, &v, &vl))
		return -999;
	assert_int_equal(vl, 8);
	memcpy(&x, v, 8);
	return x;
}

/* sl_state_update_var (one lookup on the hashmap backend, get + put on
 * the others): creates, changes in place, removes, does not create, keeps
 * a failed change out, refuses a value of another length; on a map table
 * (new entries join their group in creation order, a removed one leaves
 * it) and behind a TTL. */
static void test_update_var(void **st)
{
	sl_state_backend *be = open_be();
	sl_err err;
	sl_err_clear(&err);
	int64_t now = 1000;
	sl_state_table *chain = NULL;
	sl_state_table *plain = sl_state_table_open(be, "o", "v", 0, &err);
	sl_state_table *map = map_open(be);
	sl_state_table *ttl = sl_state_table_open_ttl(be, "o", "t", 0, 1000, &now, 0, &chain, &err);
	assert_non_null(plain);
	assert_non_null(ttl);
	sl_state_table *tabs[3] = {plain, map, ttl};
	for (int ti = 0; ti < 3; ti++) {
		sl_state_table *t = tabs[ti];
		char k[32];
		uint32_t kl = map_key(k, 5, 1);
		upd u = {0};
		u.add = -1; /* a retraction of nothing: nothing stored */
		assert_int_equal(sl_state_update_var(t, 3, k, kl, 8, upd_cb, &u), 0);
		assert_int_equal(u.present, 0);
		assert_int_equal(upd_get(t, 3, k, kl), -999);
		u.add = 5;
		assert_int_equal(sl_state_update_var(t, 3, k, kl, 8, upd_cb, &u), 0);
		assert_int_equal(upd_get(t, 3, k, kl), 5);
		u.add = 2;
		assert_int_equal(sl_state_update_var(t, 3, k, kl, 8, upd_cb, &u), 0);
		assert_int_equal(u.present, 1);
		assert_int_equal(upd_get(t, 3, k, kl), 7);
		u.fail = 1;
		assert_int_equal(sl_state_update_var(t, 3, k, kl, 8, upd_cb, &u), SL_EINVAL);
		assert_int_equal(upd_get(t, 3, k, kl), 7);
		u.fail = 0;
		assert_int_equal(sl_state_update_var(t, 3, k, kl, 16, upd_cb, &u), SL_ESTATE);
		for (int i = 2; i < 5; i++) { /* more entries of group 5, in order */
			u.add = 10 + i;
			uint32_t kn = map_key(k, 5, i);
			assert_int_equal(sl_state_update_var(t, 3, k, kn, 8, upd_cb, &u), 0);
		}
		kl = map_key(k, 5, 3);
		u.add = -13; /* entry 3 goes */
		assert_int_equal(sl_state_update_var(t, 3, k, kl, 8, upd_cb, &u), 0);
		assert_int_equal(upd_get(t, 3, k, kl), -999);
		if (t == map) {
			map_seen m = map_scan(t, 5);
			assert_int_equal(m.n, 3);
			assert_int_equal(m.i[0], 1);
			assert_int_equal(m.v[0], 7);
			assert_int_equal(m.i[1], 2);
			assert_int_equal(m.i[2], 4);
			assert_int_equal(m.v[2], 14);
		}
		assert_int_equal(sl_state_count(t), 3);
	}
	sl_state_ttl_free_chain(chain);
	sl_state_backend_close(be);
}

/* ---- RocksDB specifics and cross-backend restores ---------------------------- */

static void test_slot_writeback(void **st)
{
	sl_state_backend *be = open_type("rocksdb");
	sl_err err;
	sl_err_clear(&err);
	sl_state_table *t = sl_state_table_open(be, "op", "acc", sizeof(acc), &err);
	int created;
	acc *a = sl_state_upsert(t, 0, "a", 1, &created);
	assert_int_equal(created, 1);
	a->sum = 5;
	/* the same key again: the same slot, no reload */
	assert_ptr_equal(sl_state_upsert(t, 0, "a", 1, &created), a);
	assert_int_equal(created, 0);
	a->sum += 1;
	acc *b = sl_state_upsert(t, 0, "b", 1, &created); /* writes a back */
	assert_int_equal(created, 1);
	b->cnt = 9;
	acc *x = sl_state_get(t, 0, "a", 1); /* writes b back */
	assert_non_null(x);
	assert_int_equal(x->sum, 6);
	x->cnt = 3; /* a change through a get's slot persists too */
	assert_int_equal(sl_state_flush(be, &err), 0);
	x->cnt = 4; /* and after a flush, at the next call */
	x = sl_state_get(t, 0, "b", 1);
	assert_int_equal(x->cnt, 9);
	x = sl_state_get(t, 0, "a", 1);
	assert_int_equal(x->cnt, 4);
	assert_null(sl_state_get(t, 0, "c", 1));
	/* a created slot left all zero still exists */
	sl_state_upsert(t, 7, "z", 1, &created);
	assert_int_equal(created, 1);
	assert_non_null(sl_state_get(t, 7, "z", 1));
	assert_int_equal(sl_state_count(t), 3);
	sl_state_delete(t, 7, "z", 1);
	assert_null(sl_state_get(t, 7, "z", 1));
	assert_int_equal(sl_state_count(t), 2);
	sl_state_backend_close(be);
}

static int add_cb(void *ctx, const void *k, uint32_t kl, void *v, uint32_t vl, sl_err *err)
{
	((acc *)v)->sum += 100;
	*(int64_t *)ctx += 1;
	return 0;
}

static void test_ns_order(void **st)
{
	sl_state_backend *be = open_be();
	sl_err err;
	sl_err_clear(&err);
	sl_state_table *t = sl_state_table_open(be, "w", "win", sizeof(acc), &err);
	sl_state_table *other = sl_state_table_open(be, "w", "other", sizeof(acc), &err);
	int64_t nss[] = {3, -1, INT64_MIN, 0, INT64_MAX, -5, 256, -256};
	int64_t sorted[] = {INT64_MIN, -256, -5, -1, 0, 3, 256, INT64_MAX};
	for (int i = 0; i < 8; i++) {
		for (int k = 0; k < 3; k++) {
			char key[2] = {(char)('a' + k), (char)i};
			acc *a = sl_state_upsert(t, nss[i], key, 2, NULL);
			a->sum = nss[i] / 2 + k;
		}
		sl_state_upsert(other, nss[i], "o", 1, NULL);
	}
	int64_t ns;
	assert_int_equal(sl_state_ns_first(t, &ns), 1);
	for (int i = 0; i < 8; i++) {
		assert_true(ns == sorted[i]);
		int64_t n = 0;
		assert_int_equal(sl_state_ns_scan(t, ns, add_cb, &n, &err), 0);
		assert_int_equal(n, 3); /* no bleeding into neighbours or the other table */
		int more = sl_state_ns_next(t, ns, &ns);
		assert_int_equal(more, i < 7);
	}
	char key[2] = {'b', 1}; /* ns -1 */
	acc *a = sl_state_get(t, -1, key, 2);
	assert_non_null(a);
	assert_int_equal(a->sum, 0 + 1 + 100); /* scan's in-place change persisted */
	assert_int_equal(sl_state_ns_next(t, -3, &ns), 1);
	assert_true(ns == -1);
	/* drop, also of the namespace whose slot is cached */
	sl_state_ns_drop(t, -1);
	sl_state_ns_drop(t, INT64_MIN);
	assert_null(sl_state_get(t, -1, key, 2));
	assert_int_equal(sl_state_count(t), 18);
	assert_int_equal(sl_state_ns_first(t, &ns), 1);
	assert_true(ns == -256);
	int64_t n = 0;
	sl_state_scan(t, add_cb, &n, &err);
	assert_int_equal(n, 18);
	assert_int_equal(sl_state_count(other), 8);
	sl_state_backend_close(be);
}

/* Stops at the second entry: with an error in the scan's sink (negative
 * ctx->stop) or without one (positive). */
typedef struct stop_ctx {
	int n, stop;
} stop_ctx;

static int stop_cb(void *ctx, const void *k, uint32_t kl, void *v, uint32_t vl, sl_err *err)
{
	stop_ctx *s = ctx;
	if (++s->n < 2)
		return 0;
	return s->stop < 0 ? sl_err_set(err, s->stop, "stopped at entry %d", s->n) : s->stop;
}

/* The scan callback's error sink: the error a callback sets comes back
 * from ns_scan and scan with its message; a positive stop is returned
 * with err left clear; both stop the scan. */
static void test_scan_error_sink(void **st)
{
	sl_state_backend *be = open_be();
	sl_err err;
	sl_err_clear(&err);
	sl_state_table *t = sl_state_table_open(be, "w", "win", 8, &err);
	for (int i = 0; i < 4; i++) {
		char k = (char)('a' + i);
		assert_non_null(sl_state_upsert(t, i % 2, &k, 1, NULL));
	}
	stop_ctx s = {0, SL_EINPUT};
	assert_int_equal(sl_state_ns_scan(t, 0, stop_cb, &s, &err), SL_EINPUT);
	assert_int_equal(s.n, 2);
	assert_int_equal(err.code, SL_EINPUT);
	assert_string_equal(err.msg, "stopped at entry 2");
	sl_err_clear(&err);
	s = (stop_ctx){0, SL_EINPUT};
	assert_int_equal(sl_state_scan(t, stop_cb, &s, &err), SL_EINPUT);
	assert_int_equal(s.n, 2);
	assert_string_equal(err.msg, "stopped at entry 2");
	sl_err_clear(&err);
	s = (stop_ctx){0, 7};
	assert_int_equal(sl_state_scan(t, stop_cb, &s, &err), 7);
	assert_int_equal(s.n, 2);
	assert_int_equal(err.code, 0);
	sl_state_backend_close(be);
}

/* Fills be with a mix of fixed and variable tables; checks it (check = 1). */
static int g_n = 3000; /* entries of fill_or_check's fixed-size table */

static void fill_or_check(sl_state_backend *be, int check)
{
	sl_err err;
	sl_err_clear(&err);
	sl_state_table *t = sl_state_table_open(be, "op", "acc", sizeof(acc), &err);
	sl_state_table *v = sl_state_table_open(be, "op2", "var", 0, &err);
	char key[32], val[64];
	for (int i = 0; i < g_n; i++) {
		int n = snprintf(key, sizeof(key), "k%d", i);
		int64_t ns = (i % 11) - 5;
		if (check) {
			acc *a = sl_state_get(t, ns, key, (uint32_t)n);
			assert_non_null(a);
			assert_int_equal(a->sum, i);
			assert_int_equal(a->cnt, -i);
		} else {
			acc *a = sl_state_upsert(t, ns, key, (uint32_t)n, NULL);
			a->sum = i;
			a->cnt = -i;
		}
		if (i % 3)
			continue;
		int vn = snprintf(val, sizeof(val), "value of %d", i * 7);
		if (check) {
			const void *p;
			uint32_t pl;
			assert_int_equal(sl_state_get_var(v, ns, key, (uint32_t)n, &p, &pl), 1);
			assert_int_equal(pl, vn);
			assert_memory_equal(p, val, vn);
		} else {
			assert_int_equal(sl_state_put_var(v, ns, key, (uint32_t)n, val, (uint32_t)vn), 0);
		}
	}
	assert_int_equal(sl_state_count(t), g_n);
	assert_int_equal(sl_state_count(v), (g_n + 2) / 3);
}

static void cross(const char *from, const char *to)
{
	sl_state_backend *a = open_type(from), *b = open_type(to);
	sl_err err;
	sl_err_clear(&err);
	fill_or_check(a, 0);
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	assert_int_equal(sl_state_snapshot(a, NULL, &w, &err), 0);
	sl_snap_reader r;
	sl_snap_reader_init(&r, w.buf, w.len);
	assert_int_equal(sl_state_restore(b, &r, &err), 0);
	fill_or_check(b, 1);
	/* and back again: the same bytes as the target backend filled directly
	 * (entries may be in another order; the memory backend's snapshots
	 * also record their order, 2 bytes per entry) */
	sl_state_backend *c = open_type(to);
	fill_or_check(c, 0);
	sl_snap_writer w2, w3;
	sl_snap_writer_init(&w2);
	sl_snap_writer_init(&w3);
	assert_int_equal(sl_state_snapshot(b, NULL, &w2, &err), 0);
	assert_int_equal(sl_state_snapshot(c, NULL, &w3, &err), 0);
	assert_int_equal(w2.len, w3.len);
	sl_snap_writer_deinit(&w);
	sl_snap_writer_deinit(&w2);
	sl_snap_writer_deinit(&w3);
	sl_state_backend_close(a);
	sl_state_backend_close(b);
	sl_state_backend_close(c);
}

static void test_cross_backend(void **st)
{
	cross("hashmap", "rocksdb");
	cross("rocksdb", "hashmap");
	cross("rocksdb", "rocksdb");
}

/* Tables of SST_MIN (65536) entries or more are restored into RocksDB by
 * ingesting an SST file: whole when the snapshot is in key order (from
 * RocksDB), switching to write batches at the first key out of order (from
 * the memory backend). */
static void test_restore_large(void **st)
{
	g_n = 100000;
	cross("rocksdb", "rocksdb");
	cross("hashmap", "rocksdb");
	g_n = 3000;
}

static void test_rocksdb_options(void **st)
{
	sl_state_backend *be = NULL;
	sl_err err;
	sl_err_clear(&err);
	assert_int_equal(sl_state_backend_open("lmdb", &be, &err), SL_EINVAL);
	assert_true(strstr(err.msg, "rocksdb") != NULL);
	be = open_type("rocksdb");
	assert_int_equal(sl_state_backend_can_fork(be), 0);
	assert_string_equal(sl_state_backend_type(be), "rocksdb");
	sl_state_backend_close(be);
	be = open_type("hashmap");
	assert_int_equal(sl_state_backend_can_fork(be), 1);
	sl_state_backend_close(be);
}

/* Values that grow by appending (a join key's rows) reuse the space of
 * their earlier, smaller copies: memory stays within a small factor of
 * what is live (it grew with the square of the value sizes before). */
static void test_var_growth(void **st)
{
	sl_state_backend *be = open_be();
	sl_err err;
	sl_err_clear(&err);
	sl_state_table *t = sl_state_table_open(be, "op", "lists", 0, &err);
	static char val[32768];
	memset(val, 'x', sizeof(val));
	char k[16];
	for (uint32_t len = 64; len <= sizeof(val); len += 64)
		for (int i = 0; i < 64; i++) {
			int n = snprintf(k, sizeof(k), "key%d", i);
			assert_int_equal(sl_state_put_var(t, 0, k, (uint32_t)n, val, len), 0);
		}
	const void *v;
	uint32_t vlen;
	assert_int_equal(sl_state_get_var(t, 0, "key7", 4, &v, &vlen), 1);
	assert_int_equal(vlen, sizeof(val));
	uint64_t live = 64 * sizeof(val);
	if (!strcmp(g_type, "hashmap"))
		assert_true(sl_state_backend_mem(be) < 8 * live); /* was ~250x */
	sl_state_backend_close(be);
}

/* ---- two-step snapshots (RocksDB: written by a thread while the job goes on) ---- */

static void mutate(sl_state_table *t, sl_state_table *v, int from, int to, int64_t add)
{
	char k[16];
	for (int i = from; i < to; i++) {
		int n = snprintf(k, sizeof(k), "k%d", i);
		acc *a = sl_state_upsert(t, i % 3 == 0 ? 5 : 0, k, (uint32_t)n, NULL);
		a->sum += add;
		a->cnt++;
		if (i % 7 == 0)
			sl_state_put_var(v, 0, k, (uint32_t)n, k, (uint32_t)n - (uint32_t)(add & 1));
	}
}

static void del_range(sl_state_table *t, int from, int to)
{
	char k[16];
	for (int i = from; i < to; i++) {
		int n = snprintf(k, sizeof(k), "k%d", i);
		sl_state_delete(t, i % 3 == 0 ? 5 : 0, k, (uint32_t)n);
	}
}

typedef struct snap_job {
	sl_state_snap *s;
	sl_snap_writer w;
	int rc;
} snap_job;

static void *snap_thread(void *arg)
{
	snap_job *j = arg;
	sl_err err;
	sl_err_clear(&err);
	j->rc = sl_state_snap_write(j->s, &j->w, &err);
	return NULL;
}

/* The two-step snapshot writes, on another thread and while the tables
 * keep changing, exactly the bytes a snapshot at the barrier writes:
 * entries only in RocksDB, changed and new ones only in the write-back
 * cache, deletes not yet written back, variable-length values. */
static void test_two_step_snapshot(void **st)
{
	sl_state_backend *be = open_type("rocksdb");
	sl_err err;
	sl_err_clear(&err);
	sl_state_table *t = sl_state_table_open(be, "op", "acc", sizeof(acc), &err);
	sl_state_table *v = sl_state_table_open(be, "op", "var", 0, &err);
	mutate(t, v, 0, 3000, 1);
	assert_int_equal(sl_state_flush(be, &err), 0);
	mutate(t, v, 0, 1000, 2);    /* dirty in the cache */
	del_range(t, 1000, 1100);    /* deletes */
	mutate(t, v, 3000, 3200, 4); /* new, dirty */
	sl_snap_writer a;
	sl_snap_writer_init(&a);
	assert_int_equal(sl_state_snapshot(be, NULL, &a, &err), 0);
	snap_job j = {0};
	sl_snap_writer_init(&j.w);
	assert_int_equal(sl_state_snap_begin(be, NULL, &j.s, &err), 0);
	/* after the barrier: everything changes, some of it before the write */
	mutate(t, v, 0, 4000, 8);
	del_range(t, 2000, 2500);
	sl_state_ns_drop(t, 5);
	assert_int_equal(sl_state_flush(be, &err), 0);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, snap_thread, &j), 0);
	mutate(t, v, 0, 5000, 16); /* and while it is written */
	assert_int_equal(sl_state_flush(be, &err), 0);
	pthread_join(th, NULL);
	assert_int_equal(j.rc, 0);
	sl_state_snap_free(j.s);
	assert_int_equal(j.w.len, a.len);
	assert_memory_equal(j.w.buf, a.buf, a.len);
	/* the memory backend has no two-step snapshot: it is forked */
	sl_state_backend *m = open_type("hashmap");
	sl_state_snap *none;
	assert_int_equal(sl_state_snap_begin(m, NULL, &none, &err), SL_ENOTSUP);
	sl_state_backend_close(m);
	sl_snap_writer_deinit(&a);
	sl_snap_writer_deinit(&j.w);
	sl_state_backend_close(be);
}

static int set_backend(void **st)
{
	g_type = *st ? (const char *)*st : "hashmap";
	return 0;
}

#define SHARED(fn, type) cmocka_unit_test_prestate_setup_teardown(fn, set_backend, NULL, type)

int main(void)
{
	const struct CMUnitTest tests[] = {
		SHARED(test_upsert_get_delete, "hashmap"),
		SHARED(test_namespaces, "hashmap"),
		SHARED(test_var_values, "hashmap"),
		SHARED(test_snapshot_roundtrip, "hashmap"),
		SHARED(test_ns_order, "hashmap"),
		SHARED(test_var_growth, "hashmap"),
		SHARED(test_var_growth, "rocksdb"),
		SHARED(test_upsert_get_delete, "rocksdb"),
		SHARED(test_namespaces, "rocksdb"),
		SHARED(test_var_values, "rocksdb"),
		SHARED(test_snapshot_roundtrip, "rocksdb"),
		SHARED(test_ns_order, "rocksdb"),
		SHARED(test_scan_error_sink, "hashmap"),
		SHARED(test_scan_error_sink, "rocksdb"),
		SHARED(test_map_table, "hashmap"),
		SHARED(test_map_table, "rocksdb"),
		SHARED(test_map_table_ttl, "hashmap"),
		SHARED(test_map_table_ttl, "rocksdb"),
		SHARED(test_update_var, "hashmap"),
		SHARED(test_update_var, "rocksdb"),
		cmocka_unit_test(test_slot_writeback),
		cmocka_unit_test(test_cross_backend),
		cmocka_unit_test(test_restore_large),
		cmocka_unit_test(test_rocksdb_options),
		cmocka_unit_test(test_two_step_snapshot),
	};
	return cmocka_run_group_tests_name("state", tests, NULL, NULL);
}
