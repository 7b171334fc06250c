/*
 * test_state_ttl.c - state TTL (src/state/state_ttl.c) driven directly on a
 * hand-set clock, on both backends: writes restart an entry's clock and
 * reads do not; an expired entry is absent to get/get_var, restarts zeroed
 * from upsert (*created = 1) and is skipped by scans; the write times
 * survive a snapshot restored into the other backend; sweeps keep the
 * number of entries bounded while new keys keep arriving; READ_REFRESH.
 * Then the planner side through the public API: EXPLAIN's state markers
 * for the option, the STATE_TTL hint and watermark-bounded operators.
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
#include "state/state.h"

#define HOUR 3600000000LL

static const char *g_type = "hashmap";

static sl_state_backend *open_type(const char *type)
{
	sl_state_backend *be = NULL;
	sl_err err;
	sl_err_clear(&err);
	assert_int_equal(sl_state_backend_open(type, &be, &err), 0);
	return be;
}

static int count_cb(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                    sl_err *err)
{
	(void)key, (void)klen, (void)val, (void)vlen;
	++*(int *)ctx;
	return 0;
}

static void test_semantics(void **st)
{
	(void)st;
	sl_state_backend *be = open_type(g_type);
	sl_err err;
	sl_err_clear(&err);
	int64_t now = 10 * HOUR;
	sl_state_table *chain = NULL;
	sl_state_table *t = sl_state_table_open_ttl(be, "op", "acc", 16, HOUR, &now, 0, &chain, &err);
	sl_state_table *v = sl_state_table_open_ttl(be, "op", "rows", 0, HOUR, &now, 0, &chain, &err);
	assert_non_null(t);
	assert_non_null(v);
	assert_ptr_equal(sl_state_table_open_ttl(be, "op", "acc", 16, HOUR, &now, 0, &chain, &err), t);
	int created;
	int64_t *a = sl_state_upsert(t, 0, "k", 1, &created);
	assert_int_equal(created, 1);
	a[0] = 7;
	assert_int_equal(sl_state_put_var(v, 0, "k", 1, "hello", 5), 0);
	now += HOUR / 2; /* a write at 10:30 restarts the clock of k in acc */
	a = sl_state_upsert(t, 0, "k", 1, &created);
	assert_int_equal(created, 0);
	assert_int_equal(a[0], 7);
	now = 11 * HOUR - 1; /* reads do not restart it */
	const void *val;
	uint32_t vlen;
	assert_int_equal(sl_state_get_var(v, 0, "k", 1, &val, &vlen), 1);
	assert_int_equal(vlen, 5);
	assert_memory_equal(val, "hello", 5);
	int n = 0;
	sl_state_scan(v, count_cb, &n, &err);
	assert_int_equal(n, 1);
	now = 11 * HOUR; /* rows/k (written 10:00) expired; acc/k (10:30) not */
	assert_int_equal(sl_state_get_var(v, 0, "k", 1, &val, &vlen), 0);
	n = 0;
	sl_state_scan(v, count_cb, &n, &err);
	assert_int_equal(n, 0);
	assert_non_null(sl_state_get(t, 0, "k", 1));
	now = 11 * HOUR + HOUR / 2;
	assert_null(sl_state_get(t, 0, "k", 1));
	a = sl_state_upsert(t, 0, "k", 1, &created);
	assert_int_equal(created, 1);
	assert_int_equal(a[0], 0);
	sl_state_ttl_free_chain(chain);
	sl_state_backend_close(be);
}

/* Write times survive a snapshot restored into the other backend. */
static void test_restore_cross(void **st)
{
	(void)st;
	const char *other = strcmp(g_type, "rocksdb") ? "rocksdb" : "hashmap";
	sl_state_backend *be = open_type(g_type);
	sl_err err;
	sl_err_clear(&err);
	int64_t now = 10 * HOUR;
	sl_state_table *chain = NULL;
	sl_state_table *t = sl_state_table_open_ttl(be, "op", "acc", 8, HOUR, &now, 0, &chain, &err);
	*(int64_t *)sl_state_upsert(t, 0, "old", 3, NULL) = 1;
	now += HOUR / 2;
	*(int64_t *)sl_state_upsert(t, 0, "new", 3, NULL) = 2;
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	assert_int_equal(sl_state_snapshot(be, NULL, &w, &err), 0);
	sl_state_ttl_free_chain(chain);
	sl_state_backend_close(be);

	be = open_type(other);
	chain = NULL;
	t = sl_state_table_open_ttl(be, "op", "acc", 8, HOUR, &now, 0, &chain, &err);
	sl_snap_reader r;
	sl_snap_reader_init(&r, w.buf, w.len);
	assert_int_equal(sl_state_restore(be, &r, &err), 0);
	now = 11 * HOUR; /* old (10:00) expired, new (10:30) alive */
	assert_null(sl_state_get(t, 0, "old", 3));
	int64_t *v = sl_state_get(t, 0, "new", 3);
	assert_non_null(v);
	assert_int_equal(*v, 2);
	sl_snap_writer_deinit(&w);
	sl_state_ttl_free_chain(chain);
	sl_state_backend_close(be);
}

/* New keys every period: sweeps keep at most ~1.5 TTL of keys.  Memory of
 * the hashmap backend stays flat once deleted entries are reused. */
static void test_sweep_bounds(void **st)
{
	(void)st;
	sl_state_backend *be = open_type(g_type);
	sl_err err;
	sl_err_clear(&err);
	int64_t now = 0;
	sl_state_table *chain = NULL;
	sl_state_table *t = sl_state_table_open_ttl(be, "op", "acc", 32, HOUR, &now, 0, &chain, &err);
	const int per = 20000, rounds = 12;
	char key[32];
	uint64_t mem3 = 0, max_count = 0;
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < per; i++) {
			int n = snprintf(key, sizeof(key), "r%d-k%d", r, i);
			assert_non_null(sl_state_upsert(t, 0, key, (uint32_t)n, NULL));
			now += HOUR / per / 2; /* half an hour per round */
		}
		if (sl_state_count(t) > max_count)
			max_count = sl_state_count(t);
		if (r == 3)
			mem3 = sl_state_backend_mem(be);
	}
	/* 1 h TTL, sweeps every 30 min, 20 000 keys per 30 min: at most the
	 * keys of the last 1.5 h + one round */
	assert_true(max_count <= (uint64_t)per * 4);
	assert_true(sl_state_ttl_swept(t) >= (uint64_t)per * (rounds - 4));
	if (!strcmp(g_type, "hashmap")) {
		uint64_t mem = sl_state_backend_mem(be);
		printf("# hashmap: %d keys written, max %llu live, %llu swept, mem after round 4 "
		       "%llu, at the end %llu bytes\n", per * rounds, (unsigned long long)max_count,
		       (unsigned long long)sl_state_ttl_swept(t), (unsigned long long)mem3,
		       (unsigned long long)mem);
		assert_true(mem <= mem3 + mem3 / 4);
	}
	sl_state_ttl_free_chain(chain);
	sl_state_backend_close(be);
}

static void test_read_refresh(void **st)
{
	(void)st;
	sl_state_backend *be = open_type(g_type);
	sl_err err;
	sl_err_clear(&err);
	int64_t now = 0;
	sl_state_table *chain = NULL;
	sl_state_table *v = sl_state_table_open_ttl(be, "op", "s", 0, HOUR, &now,
	                                            SL_STATE_TTL_READ_REFRESH, &chain, &err);
	assert_int_equal(sl_state_put_var(v, 0, "k", 1, "abc", 3), 0);
	const void *val;
	uint32_t vlen;
	for (int i = 1; i <= 5; i++) {
		now = i * (HOUR - 1);
		assert_int_equal(sl_state_get_var(v, 0, "k", 1, &val, &vlen), 1);
		assert_int_equal(vlen, 3);
		assert_memory_equal(val, "abc", 3);
	}
	now += HOUR;
	assert_int_equal(sl_state_get_var(v, 0, "k", 1, &val, &vlen), 0);
	sl_state_ttl_free_chain(chain);
	sl_state_backend_close(be);
}

static void test_explain(void **st)
{
	(void)st;
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e,
		"CREATE TABLE o (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) "
		"WITH ('connector' = 'push');"
		"CREATE TABLE s (oid INT, st STRING) WITH ('connector' = 'push');"), 0);
	const char *text;
	assert_int_equal(sl_explain(e, "SELECT id, COUNT(*) FROM o GROUP BY id", &text), 0);
	assert_non_null(strstr(text, "GroupAggregate"));
	assert_non_null(strstr(text, "state=[unbounded: no TTL]"));
	assert_int_equal(sl_set(e, "table.exec.state.ttl", "90 min"), 0);
	assert_int_equal(sl_explain(e, "SELECT id, COUNT(*) FROM o GROUP BY id", &text), 0);
	assert_non_null(strstr(text, "state=[bounded by TTL 90 min]"));
	assert_int_equal(sl_explain(e, "SELECT /*+ STATE_TTL('s' = '1d') */ * FROM o JOIN s "
	                               "ON o.id = s.oid", &text), 0);
	assert_non_null(strstr(text, "state=[left bounded by TTL 90 min, right bounded by TTL 1 d]"));
	assert_int_equal(sl_explain(e, "SELECT /*+ STATE_TTL('o' = '0', 's' = '0') */ * FROM o "
	                               "JOIN s ON o.id = s.oid", &text), 0);
	assert_non_null(strstr(text, "Join("));
	assert_non_null(strstr(text, "state=[unbounded: no TTL]"));
	assert_int_equal(sl_explain(e, "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE o, "
	                               "DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, "
	                               "window_end", &text), 0);
	assert_non_null(strstr(text, "state=[bounded by watermark]"));
	assert_null(strstr(text, "TTL"));
	/* cascaded joins: each key goes to the join whose input it names; the
	 * second join's left input (the first join) keeps the option's TTL */
	assert_int_equal(sl_exec(e, "CREATE TABLE c (cid INT) WITH ('connector' = 'push');"
	                            "CREATE VIEW v AS SELECT oid, st FROM s WHERE oid > 0;"), 0);
	assert_int_equal(sl_explain(e, "SELECT /*+ STATE_TTL('o' = '1h', 'v' = '2h', "
	                               "'c' = '3h') */ o.id FROM o JOIN v ON o.id = v.oid "
	                               "JOIN c ON o.id = c.cid", &text), 0);
	assert_non_null(strstr(text, "state=[left bounded by TTL 1 h, right bounded by TTL 2 h]"));
	assert_non_null(strstr(text, "state=[left bounded by TTL 90 min, right bounded by TTL 3 h]"));
	/* a key naming an input of no join or aggregate of this SELECT: error */
	assert_int_equal(sl_explain(e, "SELECT /*+ STATE_TTL('zz' = '1h') */ * FROM o JOIN s "
	                               "ON o.id = s.oid", &text), SL_EPLAN);
	assert_non_null(strstr(sl_errmsg(e), "'zz' names no input"));
	/* Top-N and dedup take the option (the hint is for joins and aggregates) */
	assert_int_equal(sl_explain(e, "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "
	                               "oid ORDER BY st) AS rn FROM s) WHERE rn <= 2", &text), 0);
	assert_non_null(strstr(text, "Rank"));
	assert_non_null(strstr(text, "state=[bounded by TTL 90 min]"));
	sl_engine_close(e);
}

/* A job with ttl (NULL: none) over a GROUP BY and a join, one row each. */
static sl_engine *ttl_job(const char *ttl, void *snap, size_t len)
{
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	if (ttl)
		assert_int_equal(sl_set(e, "table.exec.state.ttl", ttl), 0);
	sl_set_processing_time(e, 10 * HOUR);
	assert_int_equal(sl_exec(e,
		"CREATE TABLE a (k INT, n INT) WITH ('connector' = 'push');"
		"CREATE TABLE b (k INT) WITH ('connector' = 'push');"
		"CREATE TABLE o1 (k INT, c BIGINT) WITH ('connector' = 'push');"
		"CREATE TABLE o2 (k INT, n INT) WITH ('connector' = 'push');"
		"INSERT INTO o1 SELECT k, COUNT(*) FROM a GROUP BY k;"
		"INSERT INTO o2 SELECT a.k, a.n FROM a JOIN b ON a.k = b.k;"), 0);
	if (snap) {
		int rc = sl_restore(e, snap, len);
		if (rc) {
			assert_int_equal(rc, SL_ESTATE);
			return e;
		}
	}
	assert_int_equal(sl_push_json(e, "a", "{\"k\": 1, \"n\": 2}", 16), 0);
	return e;
}

/* A TTL is part of the state's layout: switching it on or off across a
 * restore is refused (as Flink); changing its value is not. */
static void test_restore_ttl_switch(void **st)
{
	(void)st;
	void *with, *without;
	size_t wl, nl;
	sl_engine *e = ttl_job("1 h", NULL, 0);
	assert_int_equal(sl_snapshot(e, &with, &wl), 0);
	sl_engine_close(e);
	e = ttl_job(NULL, NULL, 0);
	assert_int_equal(sl_snapshot(e, &without, &nl), 0);
	sl_engine_close(e);

	e = ttl_job(NULL, with, wl);
	assert_non_null(strstr(sl_errmsg(e), "was written with a state TTL and the job has none"));
	sl_engine_close(e);
	e = ttl_job("1 h", without, nl);
	assert_non_null(strstr(sl_errmsg(e), "was written without a state TTL and the job has one"));
	sl_engine_close(e);
	e = ttl_job("2 h", with, wl); /* another value: restores */
	assert_string_equal(sl_errmsg(e), "");
	sl_engine_close(e);
	e = ttl_job(NULL, without, nl);
	assert_string_equal(sl_errmsg(e), "");
	sl_engine_close(e);
	free(with);
	free(without);
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
		SHARED(test_semantics, "hashmap"),
		SHARED(test_semantics, "rocksdb"),
		SHARED(test_restore_cross, "hashmap"),
		SHARED(test_restore_cross, "rocksdb"),
		SHARED(test_sweep_bounds, "hashmap"),
		SHARED(test_sweep_bounds, "rocksdb"),
		SHARED(test_read_refresh, "hashmap"),
		SHARED(test_read_refresh, "rocksdb"),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_restore_ttl_switch),
	};
	return cmocka_run_group_tests_name("state_ttl", tests, NULL, NULL);
}
