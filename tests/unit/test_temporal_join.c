/*
 * test_temporal_join.c - the event-time temporal join operator
 * (op_temporal_join.c) driven through its method table with synthetic
 * batches and watermarks on its two inputs: probes wait until the merged
 * watermark is above their time, then join the latest version at or before
 * it (versions before, at and after the probe time, a -U ignored, a -D
 * ending the key, a version replacing one of the same time), LEFT padding,
 * NULL keys, a residual, late probes dropped and counted, versions freed
 * once the watermark passes a newer one, one watermark firing several
 * probe times; each on both state backends, and
 * with a snapshot/restore after every prefix of a stream whose output
 * equals an uninterrupted run's.
 *
 * Harness (tests/unit/harness.h): two feeder operators feed input 0 (probes)
 * and input 1 (versions) of the join; a capture operator records rows as
 * text.  Both inputs have the schema k STRING, ts TIMESTAMP(3), v BIGINT.
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
#include "exec/join.h"
#include "harness.h"

/* ---- harness (tests/unit/harness.h) ------------------------------------ */

#define T0 TH_T0
#define S(x) TH_S(x)

typedef th_graph harness;

static const char *g_backend = "hashmap";

static int keys[1] = {0};

/* A temporal join of kind k on k; residual "left v < right v" when `res`. */
static sl_op *make_op(harness *h, sl_join_kind k, int res)
{
	sl_join_plan p;
	memset(&p, 0, sizeof(p));
	p.kind = k;
	p.nl = p.nr = 3;
	p.ltypes = h->types;
	p.rtypes = h->types + 3;
	p.nkeys = 1;
	p.lkeys = p.rkeys = keys;
	if (res) {
		sl_expr *a[2] = {sl_expr_col(&h->arena, 2, h->types[2]),
		                 sl_expr_col(&h->arena, 5, h->types[5])};
		p.residual = sl_expr_call(&h->arena, SL_FN_LT, a, 2, NULL, 0, &h->err);
	}
	p.ltime = p.rtime = 1;
	p.time_side = 0;
	return sl_op_temporal_join_new(&p, &h->err);
}

static void h_init(harness *h, sl_join_kind k, int res)
{
	th_graph_init(h, g_backend, 3);
	th_kv_schema(h->types);
	th_kv_schema(h->types + 3);
	th_graph_open(h, make_op(h, k, res), 2, 6, h->types, NULL, 0);
}

static void h_deinit(harness *h)
{
	th_graph_deinit(h);
}

/* An input row (harness.h): side, key (NULL ok), ts and W_before in seconds. */
typedef th_kv_row in_row;

/* Feeds rows (consecutive rows of one side in batches of up to bs); after
 * each batch the side's watermark moves to the next row's W_before of that
 * side, when given. */
static void feed(harness *h, const in_row *rows, int n, int bs)
{
	th_feed_sides(h, rows, n, bs, 0);
}

static void end_inputs(harness *h)
{
	assert_int_equal(sl_graph_end_source(h->feed[0], &h->err), 0);
	assert_int_equal(sl_graph_end_source(h->feed[1], &h->err), 0);
}

static void wm(harness *h, int side, int64_t s)
{
	assert_int_equal(sl_op_emit_watermark(h->feed[side], T0 + S(s), &h->err), 0);
}

#define L 0
#define R 1
#define I SL_INSERT
#define D SL_DELETE
#define UB SL_UPDATE_BEFORE
#define UA SL_UPDATE_AFTER


#define TS(s) "2026-08-01 09:00:" s

static void test_versions_and_probe_times(void **st)
{
	harness h;
	h_init(&h, SL_JOIN_LEFT, 0);
	/* a: 1 from :00, 2 from :10 (an update: -U ignored), b: 5 from :07 */
	const in_row v[] = {{R, "a", 0, 1, I, -1}, {R, "a", 0, 1, UB, 0}, {R, "a", 10, 2, UA, 0},
	                    {R, "b", 7, 5, I, 10}};
	feed(&h, v, 4, 2);
	const in_row p[] = {{L, "a", 5, 100, I, -1}, {L, "b", 6, 101, I, 5},
	                    {L, "a", 10, 102, I, 6}, {L, NULL, 11, 103, I, 10},
	                    {L, "c", 12, 104, I, 11}};
	feed(&h, p, 5, 5);
	/* nothing fired yet but the NULL key (padded at once): W = -inf on the
	 * version side until its batch's watermark moves */
	wm(&h, R, 10);
	wm(&h, L, 12);
	/* W = 10: probes at :05 and :06 fire; :10 waits */
	assert_string_equal(th_out(&h), "+I[NULL, " TS("11") ", 103, NULL, NULL, NULL]\n"
	                             "+I[a, " TS("05") ", 100, a, " TS("00") ", 1]\n"
	                             "+I[b, " TS("06") ", 101, NULL, NULL, NULL]\n");
	th_out_reset(&h);
	/* a version at exactly :10 replaces the one of :10; then W = 11 */
	const in_row v2[] = {{R, "a", 10, 3, UA, 10}};
	feed(&h, v2, 1, 1);
	wm(&h, R, 11);
	assert_string_equal(th_out(&h), "+I[a, " TS("10") ", 102, a, " TS("10") ", 3]\n");
	th_out_reset(&h);
	/* a late probe (:09 < W = 11) is dropped and counted */
	const in_row late[] = {{L, "a", 9, 105, I, 12}};
	feed(&h, late, 1, 1);
	assert_string_equal(th_out(&h), "");
	assert_int_equal(h.op->stats.late_dropped, 1);
	/* c has no version: padded once W is above :12 (W = 12 is not enough:
	 * a version at :12 could still come) */
	wm(&h, R, 20);
	assert_string_equal(th_out(&h), "");
	wm(&h, L, 13);
	assert_string_equal(th_out(&h), "+I[c, " TS("12") ", 104, NULL, NULL, NULL]\n");
	assert_int_equal(h.cap->last_wm, T0 + S(13));
	h_deinit(&h);
}

static void test_delete_and_cleanup(void **st)
{
	harness h;
	h_init(&h, SL_JOIN_INNER, 1);
	/* a: 10 from :00, 20 from :05, deleted at :08; residual l.v < r.v */
	const in_row v[] = {{R, "a", 0, 10, I, -1}, {R, "a", 5, 20, I, 0}, {R, "a", 8, 20, D, 5}};
	feed(&h, v, 3, 3);
	const in_row p[] = {{L, "a", 1, 5, I, -1}, {L, "a", 6, 15, I, 1}, {L, "a", 6, 25, I, 6},
	                    {L, "a", 9, 1, I, 6}};
	feed(&h, p, 4, 2);
	wm(&h, R, 8);
	wm(&h, L, 10);
	/* W = 8: :01 -> 10, :06 -> 20 (25 fails the residual); :09 waits */
	th_assert_same_rows(th_out(&h), "+I[a, " TS("01") ", 5, a, " TS("00") ", 10]\n"
	                          "+I[a, " TS("06") ", 15, a, " TS("05") ", 20]\n");
	th_out_reset(&h);
	/* W = 8 freed the versions before the newest at or before 8 (the -D,
	 * freed too): the key is gone */
	sl_state_table *t = sl_state_table_open(h.be, h.op->uid, "versions", 0, &h.err);
	assert_non_null(t);
	assert_int_equal(sl_state_count(t), 0);
	wm(&h, R, 30);
	assert_string_equal(th_out(&h), ""); /* :09 after the delete: nothing */
	h_deinit(&h);
}

static const in_row stream[] = {
	{R, "a", 0, 1, I, -1}, {L, "a", 1, 10, I, -1}, {R, "b", 2, 2, I, 0},
	{L, "b", 3, 11, I, 1}, {R, "a", 4, 3, UB, 2}, {R, "a", 4, 4, UA, 2},
	{L, "a", 4, 12, I, 3}, {L, "c", 5, 13, I, 4}, {R, "b", 6, 2, D, 4},
	{L, "b", 7, 14, I, 5}, {R, "a", 8, 5, I, 6}, {L, "a", 9, 15, I, 7},
	{R, "c", 9, 6, I, 8}, {L, "c", 10, 16, I, 9}, {R, "a", 12, 7, I, 9},
	{L, "a", 12, 17, I, 10},
};

/* Snapshot after `cut` rows, restore into a fresh graph, feed the rest:
 * the same rows as one uninterrupted run. */
static void roundtrip(int cut)
{
	int n = (int)(sizeof(stream) / sizeof(stream[0]));
	harness a, b, c;
	h_init(&a, SL_JOIN_LEFT, 0);
	feed(&a, stream, n, 3);
	end_inputs(&a);
	h_init(&b, SL_JOIN_LEFT, 0);
	feed(&b, stream, cut, 3);
	sl_snap_writer w;
	th_snapshot(&b, &w);
	char *first = strdup(th_out(&b));
	h_deinit(&b);
	h_init(&c, SL_JOIN_LEFT, 0);
	th_restore(&c, &w);
	feed(&c, stream + cut, n - cut, 3);
	end_inputs(&c);
	sl_buf all;
	sl_buf_init(&all);
	sl_buf_puts(&all, first);
	sl_buf_puts(&all, th_out(&c));
	th_assert_same_rows(sl_buf_cstr(&all), th_out(&a));
	sl_buf_deinit(&all);
	free(first);
	sl_snap_writer_deinit(&w);
	h_deinit(&a);
	h_deinit(&c);
}

static void test_snapshot_restore(void **st)
{
	harness a;
	int n = (int)(sizeof(stream) / sizeof(stream[0]));
	h_init(&a, SL_JOIN_LEFT, 0);
	feed(&a, stream, n, 3);
	end_inputs(&a);
	th_assert_same_rows(th_out(&a), "+I[a, " TS("01") ", 10, a, " TS("00") ", 1]\n"
	                          "+I[b, " TS("03") ", 11, b, " TS("02") ", 2]\n"
	                          "+I[a, " TS("04") ", 12, a, " TS("04") ", 4]\n"
	                          "+I[c, " TS("05") ", 13, NULL, NULL, NULL]\n"
	                          "+I[b, " TS("07") ", 14, NULL, NULL, NULL]\n"
	                          "+I[a, " TS("09") ", 15, a, " TS("08") ", 5]\n"
	                          "+I[c, " TS("10") ", 16, c, " TS("09") ", 6]\n"
	                          "+I[a, " TS("12") ", 17, a, " TS("12") ", 7]\n");
	h_deinit(&a);
	for (int cut = 0; cut <= n; cut++)
		roundtrip(cut);
}

/* One watermark fires several pending probe times at once (the probes'
 * namespace timers, timers.h): oldest time first, a time's probes of one
 * key in arrival order, each joining the version valid at its own time;
 * a probe at W itself waits, and only it is left in "probes". */
static void test_watermark_fires_several_times(void **st)
{
	harness h;
	h_init(&h, SL_JOIN_LEFT, 0);
	const in_row v[] = {{R, "a", 0, 1, I, -1}, {R, "b", 0, 5, I, -1}, {R, "a", 3, 2, I, -1}};
	feed(&h, v, 3, 3);
	const in_row p[] = {{L, "a", 5, 100, I, -1}, {L, "b", 2, 101, I, -1},
	                    {L, "a", 1, 102, I, -1}, {L, "a", 5, 103, I, -1},
	                    {L, "c", 4, 104, I, -1}, {L, "b", 10, 105, I, -1}};
	feed(&h, p, 6, 6);
	wm(&h, R, 10);
	assert_string_equal(th_out(&h), "");
	wm(&h, L, 10); /* W = 10: times :01, :02, :04 and :05 fire, :10 waits */
	assert_string_equal(th_out(&h), "+I[a, " TS("01") ", 102, a, " TS("00") ", 1]\n"
	                             "+I[b, " TS("02") ", 101, b, " TS("00") ", 5]\n"
	                             "+I[c, " TS("04") ", 104, NULL, NULL, NULL]\n"
	                             "+I[a, " TS("05") ", 100, a, " TS("03") ", 2]\n"
	                             "+I[a, " TS("05") ", 103, a, " TS("03") ", 2]\n");
	assert_int_equal(h.cap->last_wm, T0 + S(10));
	sl_state_table *t = sl_state_table_open(h.be, h.op->uid, "probes", 0, &h.err);
	assert_non_null(t);
	assert_int_equal(sl_state_count(t), 1);
	int64_t ns;
	assert_true(sl_state_ns_first(t, &ns));
	assert_int_equal(ns, T0 + S(10));
	th_out_reset(&h);
	wm(&h, R, 11);
	wm(&h, L, 11);
	assert_string_equal(th_out(&h), "+I[b, " TS("10") ", 105, b, " TS("00") ", 5]\n");
	assert_int_equal(sl_state_count(t), 0);
	h_deinit(&h);
}

static void test_refused_plans(void **st)
{
	harness h;
	memset(&h, 0, sizeof(h));
	sl_join_plan p;
	memset(&p, 0, sizeof(p));
	p.kind = SL_JOIN_FULL;
	p.nl = p.nr = 3;
	p.nkeys = 1;
	p.lkeys = p.rkeys = keys;
	p.ltime = p.rtime = 1;
	assert_null(sl_op_temporal_join_new(&p, &h.err));
	assert_int_equal(h.err.code, SL_EPLAN);
}

static void run_all(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_versions_and_probe_times),
		cmocka_unit_test(test_delete_and_cleanup),
		cmocka_unit_test(test_snapshot_restore),
		cmocka_unit_test(test_watermark_fires_several_times),
		cmocka_unit_test(test_refused_plans),
	};
	if (cmocka_run_group_tests_name(g_backend, tests, NULL, NULL))
		exit(1);
}

int main(void)
{
	g_backend = "hashmap";
	run_all();
	g_backend = "rocksdb";
	run_all();
	return 0;
}
