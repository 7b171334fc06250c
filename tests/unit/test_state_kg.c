/*
 * test_state_kg.c - state partitioned by key group (docs/state.md "Key
 * groups"): a snapshot taken at parallelism 1 restored into the 3
 * instances' ranges of groups, each instance holding exactly the entries
 * of its groups (by the partitioning key: the whole key, a key-form
 * prefix, or a key kept in the value), then the 3 instances' snapshots
 * merged back into 1 and split again into 2, giving the same entries, on
 * both backends and across them; the order of a memory backend's scans
 * kept by a restore; snapshots of the ungrouped format of earlier versions
 * restored whole and split, with any max parallelism; a different max
 * parallelism refused for a grouped snapshot, whole or partial restore; the grouper's spill file; damaged indexes; large
 * tables restored into RocksDB by merging their blocks; and the tables of
 * group and window aggregates (DISTINCT, string MIN/MAX), OVER and the
 * window join whose keys are not the partitioning key: their entries in
 * its group.
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
#include "base/arena.h"
#include "base/buf.h"
#include "base/opts.h"
#include "data/keygroup.h"
#include "state/state.h"

static int NKEYS = 3000; /* keys of fill_or_check */

/* The partitioning key types of table "more": BIGINT, STRING. */
static sl_type g_pk_types[2];
static sl_state_pkey_cols_ctx g_pkc = {g_pk_types, 2};

/* "pend"-like table: the value is [u32 len][partitioning key][payload]. */
static uint32_t val_pkey(const void *ctx, const void *key, uint32_t klen, const void *val,
                         uint32_t vlen, const void **pk)
{
	uint32_t n;
	memcpy(&n, val, 4);
	*pk = (const char *)val + 4;
	return n;
}

/* Key form of (BIGINT i, STRING "u<i>"). */
static size_t pkey_of(int i, uint8_t *out)
{
	int64_t v = i;
	char s[16];
	uint32_t sl = (uint32_t)snprintf(s, sizeof(s), "u%d", i % 977);
	size_t n = 0;
	out[n++] = 0;
	memcpy(out + n, &v, 8);
	n += 8;
	out[n++] = 0;
	memcpy(out + n, &sl, 4);
	n += 4;
	memcpy(out + n, s, sl);
	return n + sl;
}

typedef struct tabs {
	sl_state_table *acc, *more, *pend;
} tabs;

static sl_state_backend *open_kg(const char *type, int maxp, int first, int last)
{
	sl_state_backend *be = NULL;
	sl_err err;
	sl_err_clear(&err);
	assert_int_equal(sl_state_backend_open(type, &be, &err), 0);
	assert_int_equal(sl_state_set_key_groups(be, maxp, first, last, &err), 0);
	return be;
}

static tabs open_tabs(sl_state_backend *be)
{
	sl_err err;
	sl_err_clear(&err);
	tabs t;
	t.acc = sl_state_table_open(be, "op", "acc", 16, &err);
	t.more = sl_state_table_open(be, "op", "more", 0, &err);
	t.pend = sl_state_table_open(be, "op2", "pend", 0, &err);
	assert_non_null(t.acc);
	assert_non_null(t.more);
	assert_non_null(t.pend);
	sl_state_table_set_pkey(t.more, sl_state_pkey_cols, &g_pkc);
	sl_state_table_set_pkey(t.pend, val_pkey, NULL);
	return t;
}

/* The group of key i (every table's entries of i are in it). */
static int group_of(int i, int maxp)
{
	uint8_t k[64];
	size_t n = pkey_of(i, k);
	return sl_keygroup_of(k, (uint32_t)n, maxp);
}

/* Writes (check = 0) or checks (check = 1: present exactly when its group
 * is in [first, last]) the entries of keys 0..NKEYS-1. */
static void fill_or_check(tabs t, int check, int maxp, int first, int last)
{
	uint8_t k[64], mk[80], pv[96];
	uint64_t want = 0;
	for (int i = 0; i < NKEYS; i++) {
		size_t n = pkey_of(i, k);
		int64_t ns = i % 5 - 2;
		int in = group_of(i, maxp) >= first && group_of(i, maxp) <= last;
		/* more: the partitioning key, an index byte, a suffix */
		memcpy(mk, k, n);
		mk[n] = (uint8_t)(i % 3);
		memcpy(mk + n + 1, "sfx", 3);
		/* pend: key = an arrival number, value = [len][pkey][payload] */
		uint8_t seq[8];
		for (int b = 0; b < 8; b++)
			seq[b] = (uint8_t)((uint64_t)i >> (56 - 8 * b));
		uint32_t pl = (uint32_t)n;
		memcpy(pv, &pl, 4);
		memcpy(pv + 4, k, n);
		memcpy(pv + 4 + n, "payload", 7);
		if (!check) {
			int64_t *slot = sl_state_upsert(t.acc, ns, k, (uint32_t)n, NULL);
			slot[0] = i;
			slot[1] = -i;
			assert_int_equal(sl_state_put_var(t.more, 0, mk, (uint32_t)n + 4, "m", 1), 0);
			assert_int_equal(sl_state_put_var(t.pend, ns * 100, seq, 8, pv,
			                                  (uint32_t)n + 11), 0);
			continue;
		}
		int64_t *slot = sl_state_get(t.acc, ns, k, (uint32_t)n);
		const void *v;
		uint32_t vl;
		int hm = sl_state_get_var(t.more, 0, mk, (uint32_t)n + 4, &v, &vl);
		int hp = sl_state_get_var(t.pend, ns * 100, seq, 8, &v, &vl);
		if (!in) {
			assert_null(slot);
			assert_int_equal(hm, 0);
			assert_int_equal(hp, 0);
			continue;
		}
		want++;
		assert_non_null(slot);
		assert_int_equal(slot[0], i);
		assert_int_equal(slot[1], -i);
		assert_int_equal(hm, 1);
		assert_int_equal(hp, 1);
		assert_int_equal(vl, n + 11);
		assert_memory_equal(v, pv, vl);
	}
	if (check) {
		assert_int_equal(sl_state_count(t.acc), want);
		assert_int_equal(sl_state_count(t.more), want);
		assert_int_equal(sl_state_count(t.pend), want);
	}
}

static void snap(sl_state_backend *be, sl_snap_writer *w)
{
	sl_err err;
	sl_err_clear(&err);
	sl_snap_writer_init(w);
	assert_int_equal(sl_state_snapshot(be, NULL, w, &err), 0);
}

static void restore(sl_state_backend *be, const sl_snap_writer *w, int merge)
{
	sl_err err;
	sl_err_clear(&err);
	sl_snap_reader r;
	sl_snap_reader_init(&r, w->buf, w->len);
	int rc = merge ? sl_state_restore_merge(be, &r, &err) : sl_state_restore(be, &r, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_int_equal(r.pos, r.len);
}

/* Splits snapshot w over par instances of type `type`, checks them and
 * writes their snapshots into parts[0..par). */
static void split(const char *type, const sl_snap_writer *w, int par, sl_snap_writer *parts)
{
	for (int i = 0; i < par; i++) {
		int first, last;
		sl_keygroup_range(i, par, 128, &first, &last);
		sl_state_backend *be = open_kg(type, 128, first, last);
		tabs t = open_tabs(be);
		restore(be, w, 0);
		fill_or_check(t, 1, 128, first, last);
		snap(be, &parts[i]);
		sl_state_backend_close(be);
	}
}

/* 1 -> 3 -> 1 -> 2 through the types a, b, c, d. */
static void rescale(const char *a, const char *b, const char *c, const char *d)
{
	sl_state_backend *one = open_kg(a, 128, 0, 127);
	fill_or_check(open_tabs(one), 0, 128, 0, 127);
	sl_snap_writer w, three[3], merged, two[2];
	snap(one, &w);
	split(b, &w, 3, three);
	/* the three instances' snapshots merged into one */
	sl_state_backend *m = open_kg(c, 128, 0, 127);
	tabs mt = open_tabs(m);
	for (int i = 0; i < 3; i++)
		restore(m, &three[i], i > 0);
	fill_or_check(mt, 1, 128, 0, 127);
	snap(m, &merged);
	split(d, &merged, 2, two);
	sl_state_backend_close(one);
	sl_state_backend_close(m);
	sl_snap_writer_deinit(&w);
	sl_snap_writer_deinit(&merged);
	for (int i = 0; i < 3; i++)
		sl_snap_writer_deinit(&three[i]);
	for (int i = 0; i < 2; i++)
		sl_snap_writer_deinit(&two[i]);
}

static void test_rescale_hashmap(void **st)
{
	rescale("hashmap", "hashmap", "hashmap", "hashmap");
}

static void test_rescale_rocksdb(void **st)
{
	rescale("rocksdb", "rocksdb", "rocksdb", "rocksdb");
}

static void test_rescale_mixed(void **st)
{
	rescale("hashmap", "rocksdb", "hashmap", "rocksdb");
	rescale("rocksdb", "hashmap", "rocksdb", "hashmap");
}

/* A snapshot of the ungrouped format (earlier versions, ckpt-v1) restores
 * whole and split, with any max parallelism (the group of each entry computed with the table's
 * partitioning key), on both backends. */
static void test_ungrouped_format(void **st)
{
	/* the same entries as fill_or_check, written as 'T' records */
	sl_state_backend *src = open_kg("hashmap", 128, 0, 127);
	fill_or_check(open_tabs(src), 0, 128, 0, 127);
	sl_snap_writer g;
	snap(src, &g);
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	sl_snap_reader r;
	sl_snap_reader_init(&r, g.buf, g.len);
	sl_snap_tab t;
	sl_err err;
	sl_err_clear(&err);
	while (sl_snap_get_tab(&r, &t, &err) == 1) {
		sl_snap_put_table(&w, t.name, t.val_size, t.count);
		int64_t ns;
		const void *k, *v;
		size_t kl, vl;
		int kg;
		while (sl_snap_tab_next(&r, &t, 0, 127, &kg, &ns, &k, &kl, &v, &vl, &err) == 1)
			sl_snap_put_entry(&w, ns, k, kl, v, vl);
		sl_snap_tab_deinit(&t);
	}
	sl_snap_put_end(&w);
	assert_int_equal(w.buf[0], SL_SNAP_TABLE);
	const char *types[2] = {"hashmap", "rocksdb"};
	for (int ty = 0; ty < 2; ty++) {
		sl_snap_writer parts[3];
		split(types[ty], &w, 3, parts);
		sl_state_backend *whole = open_kg(types[ty], 128, 0, 127);
		tabs wt = open_tabs(whole);
		restore(whole, &w, 0);
		fill_or_check(wt, 1, 128, 0, 127);
		sl_state_backend_close(whole);
		/* no groups recorded: any max parallelism, whole or partial */
		sl_state_backend *w256 = open_kg(types[ty], 256, 0, 255);
		tabs t256 = open_tabs(w256);
		restore(w256, &w, 0);
		fill_or_check(t256, 1, 256, 0, 255);
		sl_state_backend_close(w256);
		sl_state_backend *p256 = open_kg(types[ty], 256, 0, 99);
		tabs tp = open_tabs(p256);
		restore(p256, &w, 0);
		fill_or_check(tp, 1, 256, 0, 99);
		sl_state_backend_close(p256);
		for (int i = 0; i < 3; i++)
			sl_snap_writer_deinit(&parts[i]);
	}
	sl_snap_writer_deinit(&w);
	sl_snap_writer_deinit(&g);
	sl_state_backend_close(src);
}

/* keep hook: every table but operator op2's. */
static int not_op2(void *ctx, const char *name)
{
	(void)ctx;
	return strncmp(name, "op2/", 4) != 0;
}

/* The reader's keep hook (a rescaled parallel job restores each old
 * instance's snapshot into every new instance holding one of its
 * operators, each taking its own operators' tables): a skipped table
 * leaves no entry in the backend, the others restore whole, grouped
 * records and ungrouped ones, a partial range of groups too, both
 * backends; the reader ends at the snapshot's end. */
static void test_keep_hook(void **st)
{
	(void)st;
	sl_state_backend *src = open_kg("hashmap", 128, 0, 127);
	fill_or_check(open_tabs(src), 0, 128, 0, 127);
	sl_snap_writer g;
	snap(src, &g);
	const char *types[2] = {"hashmap", "rocksdb"};
	for (int ty = 0; ty < 2; ty++)
		for (int part = 0; part < 2; part++) {
			int last = part ? 63 : 127;
			sl_state_backend *be = open_kg(types[ty], 128, 0, last);
			tabs t = open_tabs(be);
			sl_err err;
			sl_err_clear(&err);
			sl_snap_reader r;
			sl_snap_reader_init(&r, g.buf, g.len);
			r.keep = not_op2;
			assert_int_equal(sl_state_restore_merge(be, &r, &err), 0);
			assert_int_equal(r.pos, r.len);
			assert_int_equal(sl_state_count(t.pend), 0);
			int64_t want = 0;
			for (int i = 0; i < NKEYS; i++)
				want += group_of(i, 128) <= last;
			assert_int_equal(sl_state_count(t.acc), want);
			assert_int_equal(sl_state_count(t.more), want);
			sl_state_backend_close(be);
		}
	sl_snap_writer_deinit(&g);
	sl_state_backend_close(src);
}

static int collect(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                   sl_err *err)
{
	sl_buf *b = ctx;
	sl_buf_append(b, &klen, 4);
	sl_buf_append(b, key, klen);
	return 0;
}

/* The memory backend scans a namespace in creation order; a restore of
 * every group keeps it (window results come out in that order). */
static void test_scan_order_kept(void **st)
{
	sl_state_backend *a = open_kg("hashmap", 128, 0, 127);
	tabs t = open_tabs(a);
	fill_or_check(t, 0, 128, 0, 127);
	sl_snap_writer w;
	snap(a, &w);
	sl_state_backend *b = open_kg("hashmap", 128, 0, 127);
	tabs u = open_tabs(b);
	restore(b, &w, 0);
	sl_err err;
	sl_err_clear(&err);
	for (int64_t ns = -2; ns <= 2; ns++) {
		sl_buf x, y;
		sl_buf_init(&x);
		sl_buf_init(&y);
		assert_int_equal(sl_state_ns_scan(t.acc, ns, collect, &x, &err), 0);
		assert_int_equal(sl_state_ns_scan(u.acc, ns, collect, &y, &err), 0);
		assert_int_equal(x.len, y.len);
		assert_memory_equal(x.p, y.p, x.len);
		sl_buf_deinit(&x);
		sl_buf_deinit(&y);
	}
	sl_snap_writer_deinit(&w);
	sl_state_backend_close(a);
	sl_state_backend_close(b);
}

/* Another max parallelism: refused by every backend, one holding every
 * group (parallelism 1) or a partial one, naming the option and both
 * values (docs/parallel.md section 7); the same max parallelism restores. */
static void test_maxp_change(void **st)
{
	sl_state_backend *a = open_kg("hashmap", 128, 0, 127);
	fill_or_check(open_tabs(a), 0, 128, 0, 127);
	sl_snap_writer w;
	snap(a, &w);
	sl_state_backend *same = open_kg("rocksdb", 128, 0, 127);
	tabs t = open_tabs(same);
	restore(same, &w, 0);
	fill_or_check(t, 1, 128, 0, 127);
	sl_state_backend *all = open_kg("rocksdb", 256, 0, 255);
	open_tabs(all);
	sl_state_backend *part = open_kg("hashmap", 256, 0, 99);
	open_tabs(part);
	sl_state_backend *bes[] = {all, part};
	sl_err err;
	for (int i = 0; i < 2; i++) {
		sl_err_clear(&err);
		sl_snap_reader r;
		sl_snap_reader_init(&r, w.buf, w.len);
		assert_int_equal(sl_state_restore(bes[i], &r, &err), SL_ESTATE);
		assert_non_null(strstr(err.msg, "'pipeline.max-parallelism' = 128"));
		assert_non_null(strstr(err.msg, "the job has 256"));
	}
	/* bad ranges */
	assert_int_equal(sl_state_set_key_groups(part, 0, 0, 0, &err), SL_EINVAL);
	assert_int_equal(sl_state_set_key_groups(part, 128, 5, 4, &err), SL_EINVAL);
	assert_int_equal(sl_state_set_key_groups(part, 128, 0, 128, &err), SL_EINVAL);
	assert_int_equal(sl_state_set_key_groups(part, 40000, 0, 1, &err), SL_EINVAL);
	sl_snap_writer_deinit(&w);
	sl_state_backend_close(a);
	sl_state_backend_close(same);
	sl_state_backend_close(all);
	sl_state_backend_close(part);
}

/* The grouper beyond its memory limit: the spill file's segments and the
 * buffers come back per group, in the order added. */
static void test_grouper_spill(void **st)
{
	sl_err err;
	sl_err_clear(&err);
	sl_snap_grouper gr;
	assert_int_equal(sl_snap_grouper_init(&gr, 16, NULL, 1, &err), 0);
	gr.limit = 1000;
	for (int i = 0; i < 5000; i++) {
		char k[16];
		int n = snprintf(k, sizeof(k), "%d", i);
		assert_int_equal(sl_snap_grouper_add(&gr, i * 7 % 16, i, k, (size_t)n, &i, 4, &err), 0);
	}
	assert_true(gr.nspills > 10);
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	assert_int_equal(sl_snap_grouper_finish(&gr, &w, "op/t", 4, &err), 0);
	sl_snap_grouper_deinit(&gr);
	sl_snap_put_end(&w);
	/* by groups: group g holds i with i*7 % 16 == g, ascending */
	for (int g = 0; g < 16; g++) {
		int expect = 0;
		for (int i = 0; i < 5000; i++)
			expect += i * 7 % 16 == g;
		sl_snap_reader r;
		sl_snap_reader_init(&r, w.buf, w.len);
		sl_snap_tab t;
		assert_int_equal(sl_snap_get_tab(&r, &t, &err), 1);
		assert_int_equal(t.count, 5000);
		assert_int_equal(sl_snap_tab_count_in(&r, &t, g, g), expect);
		int64_t ns, prev = -1;
		const void *k, *v;
		size_t kl, vl;
		int kg, n = 0;
		while (sl_snap_tab_next(&r, &t, g, g, &kg, &ns, &k, &kl, &v, &vl, &err) == 1) {
			assert_int_equal(kg, g);
			assert_int_equal(ns * 7 % 16, g);
			assert_true(ns > prev);
			prev = ns;
			n++;
		}
		assert_int_equal(n, expect);
		assert_int_equal(sl_snap_get_tab(&r, &t, &err), 0); /* then the end */
		sl_snap_tab_deinit(&t);
	}
	/* every group: the order added */
	sl_snap_reader r;
	sl_snap_reader_init(&r, w.buf, w.len);
	sl_snap_tab t;
	assert_int_equal(sl_snap_get_tab(&r, &t, &err), 1);
	int64_t ns;
	const void *k, *v;
	size_t kl, vl;
	int kg, n = 0;
	while (sl_snap_tab_next(&r, &t, 0, 15, &kg, &ns, &k, &kl, &v, &vl, &err) == 1)
		assert_int_equal(ns, n++);
	assert_int_equal(n, 5000);
	sl_snap_tab_deinit(&t);
	sl_snap_writer_deinit(&w);
}

/* A damaged index or order is reported, never followed. */
static void test_damaged_index(void **st)
{
	sl_state_backend *a = open_kg("hashmap", 128, 0, 127);
	fill_or_check(open_tabs(a), 0, 128, 0, 127);
	sl_snap_writer w;
	snap(a, &w);
	/* the first table's header: tag, name, val_size, count, maxp, nblocks */
	size_t idx = 1 + 4 + strlen("op/acc") + 4 + 8 + 4 + 4;
	const size_t offs[] = {idx - 8, idx - 4, idx, idx + 4, idx + 12, idx + 20,
	                       idx + 128 * 20 + 1};
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		for (int bit = 0; bit < 8; bit += 3) {
			w.buf[offs[i]] ^= (uint8_t)(1 << bit);
			sl_state_backend *b = open_kg("hashmap", 128, 0, 63);
			sl_err err;
			sl_err_clear(&err);
			sl_snap_reader r;
			sl_snap_reader_init(&r, w.buf, w.len);
			int rc = sl_state_restore(b, &r, &err);
			/* a flip may give another valid group layout, never a crash */
			assert_true(rc == 0 || rc == SL_ESTATE);
			sl_state_backend_close(b);
			b = open_kg("hashmap", 128, 0, 127);
			sl_snap_reader_init(&r, w.buf, w.len);
			rc = sl_state_restore(b, &r, &err);
			assert_true(rc == 0 || rc == SL_ESTATE);
			sl_state_backend_close(b);
			w.buf[offs[i]] ^= (uint8_t)(1 << bit);
		}
	}
	sl_snap_writer_deinit(&w);
	sl_state_backend_close(a);
}

/* Tables large enough to be restored into RocksDB through SST files
 * (65536 entries or more): a restore into each of 3 instances merges its
 * blocks by key (test_state.c's test_restore_large restores a memory
 * backend's snapshot, whose blocks are not in key order, into RocksDB:
 * the fallback to write batches). */
static void test_large_split(void **st)
{
	NKEYS = 66000;
	rescale("rocksdb", "rocksdb", "rocksdb", "rocksdb");
	NKEYS = 3000;
}

/* ---- operators: their tables' entries are in the group of their key ------ */

typedef struct seen {
	int tables, entries;
	char names[1024];
} seen;

/* Finds the grouped state records in a job snapshot and checks that each
 * entry's group is that of its partitioning key: the key form of the INT
 * k (9 bytes) at the start of the state key, or, in OVER's "pend", at the
 * start of the value after its length. */
static void check_groups(const void *snap, size_t len, seen *sn)
{
	const uint8_t *b = snap;
	for (size_t p = 0; p + 6 < len; p++) {
		if (b[p] != SL_SNAP_GTABLE)
			continue;
		uint32_t nl = (uint32_t)b[p + 1] | (uint32_t)b[p + 2] << 8 | (uint32_t)b[p + 3] << 16 |
		              (uint32_t)b[p + 4] << 24;
		if (nl == 0 || nl > 255 || p + 5 + nl > len || !memchr(b + p + 5, '/', nl))
			continue;
		sl_snap_reader r;
		sl_snap_reader_init(&r, snap, len);
		r.pos = p;
		sl_snap_tab t;
		sl_err err;
		sl_err_clear(&err);
		if (sl_snap_get_tab(&r, &t, &err) != 1)
			continue;
		int pend = strstr(t.name, "/pend") != NULL;
		/* a window join's sides: a flag byte before the equi-key */
		int skip = strstr(t.name, "/left") || strstr(t.name, "/right");
		int64_t ns;
		const void *k, *v;
		size_t kl, vl;
		int kg;
		while (sl_snap_tab_next(&r, &t, 0, (int)t.maxp - 1, &kg, &ns, &k, &kl, &v, &vl,
		                        &err) == 1) {
			const uint8_t *pk = pend ? (const uint8_t *)v + 4 : (const uint8_t *)k + skip;
			assert_true(pend ? vl >= 13 : kl >= 9u + skip);
			/* the window join's key is its whole equi-key (k and the window
			 * bounds), after the flag and before the row number (flag bit 2) */
			uint32_t pkl = !skip ? 9
			             : (((const uint8_t *)k)[0] & 2) ? (uint32_t)kl - 9 : (uint32_t)kl - 1;
			if (kg != sl_keygroup_of(pk, pkl, (int)t.maxp))
				fail_msg("table %s (key %zu bytes, first %d): an entry in group %d, its key's group is %d", t.name, kl, kl ? ((const uint8_t *)k)[0] : -1, kg,
				         sl_keygroup_of(pk, pkl, (int)t.maxp));
			sn->entries++;
		}
		sl_snap_tab_deinit(&t);
		sn->tables++;
		size_t n = strlen(sn->names);
		snprintf(sn->names + n, sizeof(sn->names) - n, "%s ", strchr(t.name, '/') + 1);
		p = r.pos - 1;
	}
}

static void run_job(const char *backend, const char *job, seen *sn)
{
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_set(e, "state.backend.type", backend), 0);
	assert_int_equal(sl_exec(e, "CREATE TABLE a (k INT, s STRING, v INT, ts TIMESTAMP(3), "
	                            "WATERMARK FOR ts AS ts) WITH ('connector' = 'push');"
	                            "CREATE TABLE b (k INT, s STRING, v INT, ts TIMESTAMP(3), "
	                            "WATERMARK FOR ts AS ts) WITH ('connector' = 'push')"), 0);
	int rc = sl_exec(e, job);
	if (rc)
		fail_msg("%s", sl_errmsg(e));
	char rows[8192];
	size_t n = 0;
	for (int i = 0; i < 60; i++)
		n += (size_t)snprintf(rows + n, sizeof(rows) - n,
		                      "{\"k\": %d, \"s\": \"s%d\", \"v\": %d, "
		                      "\"ts\": \"2026-01-01 10:%02d:00\"}\n", i % 13, i % 7, i % 5,
		                      i < 50 ? 0 : 30);
	assert_int_equal(sl_push_json_lines(e, "a", rows, n), 0);
	if (strstr(job, "TABLE b")) /* a table no query reads takes no rows */
		assert_int_equal(sl_push_json_lines(e, "b", rows, n), 0);
	void *snap;
	size_t len;
	assert_int_equal(sl_snapshot(e, &snap, &len), 0);
	check_groups(snap, len, sn);
	free(snap);
	sl_engine_close(e);
}

static void test_operator_groups(void **st)
{
	static const char *const jobs[] = {
		"SELECT k, COUNT(DISTINCT v), MIN(s), MAX(s) FROM a GROUP BY k",
		"SELECT k, window_start, COUNT(DISTINCT v), MIN(s) FROM TABLE(TUMBLE(TABLE a, "
		"DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY k, window_start, window_end",
		"SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED "
		"PRECEDING AND CURRENT ROW) FROM a",
		"SELECT L.k, L.v, R.v FROM (SELECT * FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), "
		"INTERVAL '1' HOUR))) L JOIN (SELECT * FROM TABLE(TUMBLE(TABLE b, DESCRIPTOR(ts), "
		"INTERVAL '1' HOUR))) R ON L.window_start = R.window_start AND L.window_end = "
		"R.window_end AND L.k = R.k",
	};
	static const char *const tables[] = {"acc distinct strings ", "acc distinct strings ",
	                                     "pend part ", "left right "};
	const char *backends[2] = {"hashmap", "rocksdb"};
	for (int b = 0; b < 2; b++)
		for (int j = 0; j < 4; j++) {
			seen sn = {0};
			run_job(backends[b], jobs[j], &sn);
			if (strcmp(sn.names, tables[j]))
				fail_msg("job %d on %s: tables '%s'", j, backends[b], sn.names);
			assert_true(sn.entries > 13);
		}
}

/* 'pipeline.max-parallelism' sets the backend's groups (all of them);
 * out of 1..32768 or not a number it is refused. */
static void test_max_parallelism_option(void **st)
{
	const char *types[2] = {"hashmap", "rocksdb"};
	for (int ty = 0; ty < 2; ty++) {
		sl_arena a;
		sl_arena_init(&a, 4096);
		sl_opts o;
		sl_opts_init(&o, &a);
		sl_err err;
		sl_err_clear(&err);
		sl_state_backend *be = NULL;
		sl_state_kgs k;
		assert_int_equal(sl_state_backend_open2(types[ty], &o, NULL, &be, &err), 0);
		sl_state_get_key_groups(be, &k);
		assert_int_equal(k.maxp, 128);
		assert_int_equal(k.first, 0);
		assert_int_equal(k.last, 127);
		sl_state_backend_close(be);
		assert_int_equal(sl_opts_set(&o, "pipeline.max-parallelism", "300"), 0);
		assert_int_equal(sl_state_backend_open2(types[ty], &o, NULL, &be, &err), 0);
		sl_state_get_key_groups(be, &k);
		assert_int_equal(k.maxp, 300);
		assert_int_equal(k.last, 299);
		sl_state_backend_close(be);
		const char *bad[3] = {"0", "32769", "many"};
		for (int i = 0; i < 3; i++) {
			be = NULL;
			assert_int_equal(sl_opts_set(&o, "pipeline.max-parallelism", bad[i]), 0);
			assert_int_equal(sl_state_backend_open2(types[ty], &o, NULL, &be, &err), SL_EINVAL);
			assert_null(be);
			assert_non_null(strstr(err.msg, "pipeline.max-parallelism"));
		}
		sl_arena_deinit(&a);
	}
}

int main(void)
{
	g_pk_types[0] = sl_type_make(SL_T_BIGINT);
	g_pk_types[1] = sl_type_varchar(SL_STRING_LEN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rescale_hashmap),
		cmocka_unit_test(test_rescale_rocksdb),
		cmocka_unit_test(test_rescale_mixed),
		cmocka_unit_test(test_ungrouped_format),
		cmocka_unit_test(test_keep_hook),
		cmocka_unit_test(test_scan_order_kept),
		cmocka_unit_test(test_maxp_change),
		cmocka_unit_test(test_grouper_spill),
		cmocka_unit_test(test_damaged_index),
		cmocka_unit_test(test_large_split),
		cmocka_unit_test(test_operator_groups),
		cmocka_unit_test(test_max_parallelism_option),
	};
	return cmocka_run_group_tests_name("state_kg", tests, NULL, NULL);
}
