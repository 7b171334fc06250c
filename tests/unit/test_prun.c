/*
 * test_prun.c - the parallel runtime (src/runtime/prun.c, exchange.c;
 * docs/parallel.md §1-§3): jobs run through the public API at parallelism
 * 1, 2 and 3 give the same results, compared as the contract says: the
 * changelog as a multiset and, where every row comes from one split, each
 * key's changes in order; a global aggregate fed by several instances by
 * its final table.  The input is standard input (freopen), a source that
 * cannot split: it runs as one instance, and the job behind it runs at
 * the parallelism asked for (hash exchanges into group and window
 * aggregates and joins, a gather into a global aggregate, a rebalance
 * into a stateless tail).  Also: an error in a worker thread fails the
 * job with that row's message (file and line) and joins every thread;
 * sl_stop stops an unbounded job at parallelism 2, with and without
 * drain; a checkpointing job runs at the parallelism set, else at the
 * CPUs the process may use; three keyed stages give the same final table
 * with slot sharing (docs/parallel.md §1) and with a thread per task.
 * `make tsan` runs it under ThreadSanitizer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sluice.h"
#include "runtime/cpus.h"

#define NROWS 5000

typedef struct rows {
	char **v;
	int n, cap;
} rows;

static void rows_push(rows *r, const char *s, size_t len)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		r->v = realloc(r->v, sizeof(char *) * (size_t)r->cap);
		assert_non_null(r->v);
	}
	r->v[r->n] = malloc(len + 1);
	assert_non_null(r->v[r->n]);
	memcpy(r->v[r->n], s, len);
	r->v[r->n][len] = 0;
	r->n++;
}

static void rows_free(rows *r)
{
	for (int i = 0; i < r->n; i++)
		free(r->v[i]);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static void on_row(void *ctx, const char *table, sl_rowkind kind, const char *text, size_t len)
{
	static const char *const kinds[4] = {"+I", "-U", "+U", "-D"};
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "%s%.*s", kinds[kind & 3], (int)len, text);
	rows_push(ctx, buf, (size_t)n);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The input file: NROWS orders of 40 users, 1 s of event time apart. */
static char input[64];

static int setup(void **state)
{
	strcpy(input, "/tmp/test_prun.XXXXXX");
	int fd = mkstemp(input);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	for (int i = 0; i < NROWS; i++)
		fprintf(f, "{\"user_id\":\"u%d\",\"amount\":%d,\"ts\":\"2026-01-01 00:%02d:%02d\"}\n",
		        (i * 7) % 40, i % 97, (i / 60) % 60, i % 60);
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	unlink(input);
	return 0;
}

static const char *const tables =
	"CREATE TABLE o (user_id STRING, amount INT, ts TIMESTAMP(3),"
	" WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)"
	" WITH ('connector' = 'stdin', 'format' = 'json');"
	"CREATE VIEW users (user_id, tier) AS VALUES ('u0', 'gold'), ('u7', 'silver'),"
	" ('u14', 'gold'), ('u21', 'bronze'), ('u35', 'silver');";

/* 'sluice.slot-sharing' for run_job when not NULL */
static const char *slot_sharing;
/* run_job's last job's sl_job_stats(e, 1), when keep_stats is set (free it) */
static int keep_stats;
static char *last_stats;

/* Runs tables + sql at parallelism par over the input on stdin; the
 * result rows ("+I[...]") in arrival order into out. */
static void run_job(const char *sql, int par, rows *out)
{
	assert_non_null(freopen(input, "r", stdin));
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	char p[16];
	snprintf(p, sizeof(p), "%d", par);
	assert_int_equal(sl_set(e, "parallelism.default", p), 0);
	assert_int_equal(sl_set(e, "sluice.poll.format", "text"), 0);
	if (slot_sharing)
		assert_int_equal(sl_set(e, "sluice.slot-sharing", slot_sharing), 0);
	char *script = malloc(strlen(tables) + strlen(sql) + 1);
	strcpy(script, tables);
	strcat(script, sql);
	int rc = sl_exec(e, script);
	if (rc)
		fail_msg("%s", sl_errmsg(e));
	if (sl_run(e))
		fail_msg("%s", sl_errmsg(e));
	assert_true(sl_job_finished(e));
	assert_true(sl_poll(e, on_row, out) >= 0);
	if (keep_stats) {
		free(last_stats);
		last_stats = strdup(sl_job_stats(e, 1));
	}
	sl_engine_close(e);
	free(script);
}

static void assert_same_multiset(rows *a, rows *b)
{
	assert_int_equal(a->n, b->n);
	qsort(a->v, (size_t)a->n, sizeof(char *), cmp);
	qsort(b->v, (size_t)b->n, sizeof(char *), cmp);
	for (int i = 0; i < a->n; i++)
		assert_string_equal(a->v[i], b->v[i]);
}

/* Each key's (the first field's) changes in arrival order, keys sorted:
 * one string per key. */
static void per_key(const rows *r, rows *out)
{
	rows tmp = {0};
	for (int i = 0; i < r->n; i++) {
		const char *k = r->v[i] + 3, *end = strchr(k, ',');
		int kl = end ? (int)(end - k) : (int)strlen(k);
		char buf[600];
		int n = snprintf(buf, sizeof(buf), "%.*s %08d %s", kl, k, i, r->v[i]);
		rows_push(&tmp, buf, (size_t)n);
	}
	qsort(tmp.v, (size_t)tmp.n, sizeof(char *), cmp); /* by key, then arrival */
	for (int i = 0; i < tmp.n; i++) {
		char *sp = strchr(tmp.v[i], ' ');
		memmove(sp + 1, sp + 10, strlen(sp + 10) + 1); /* drop the position */
		rows_push(out, tmp.v[i], strlen(tmp.v[i]));
	}
	rows_free(&tmp);
}

/* The final table of a changelog: +I/+U add a row, -U/-D remove one. */
static void materialize(const rows *r, rows *out)
{
	rows t = {0};
	for (int i = 0; i < r->n; i++)
		if (r->v[i][0] == '+')
			rows_push(&t, r->v[i] + 2, strlen(r->v[i] + 2));
	for (int i = 0; i < r->n; i++) {
		if (r->v[i][0] != '-')
			continue;
		int j = 0;
		while (j < t.n && strcmp(t.v[j], r->v[i] + 2))
			j++;
		assert_true(j < t.n); /* a retraction of a row that is there */
		free(t.v[j]);
		t.v[j] = t.v[--t.n];
	}
	*out = t;
}

/* Runs sql at 1, 2 and 3 and compares with `how`: 0 the changelog as a
 * multiset, 1 also each key's order, 2 the final table. */
static void same_at_every_par(const char *sql, int how, int min_rows)
{
	rows base = {0};
	run_job(sql, 1, &base);
	assert_true(base.n >= min_rows);
	for (int par = 2; par <= 3; par++) {
		rows got = {0};
		run_job(sql, par, &got);
		if (how == 1) {
			rows a = {0}, b = {0};
			per_key(&base, &a);
			per_key(&got, &b);
			for (int i = 0; i < a.n && i < b.n; i++)
				assert_string_equal(a.v[i], b.v[i]);
			assert_int_equal(a.n, b.n);
			rows_free(&a);
			rows_free(&b);
		}
		if (how == 2) {
			rows a = {0}, b = {0};
			materialize(&base, &a);
			materialize(&got, &b);
			assert_same_multiset(&a, &b);
			rows_free(&a);
			rows_free(&b);
		} else {
			rows copy = {0};
			for (int i = 0; i < base.n; i++)
				rows_push(&copy, base.v[i], strlen(base.v[i]));
			assert_same_multiset(&copy, &got);
			rows_free(&copy);
		}
		rows_free(&got);
	}
	rows_free(&base);
}

static void test_group_by(void **state)
{
	same_at_every_par("SELECT user_id, SUM(amount), COUNT(*) FROM o GROUP BY user_id;", 1,
	                  NROWS);
}

static void test_tumble_by_key(void **state)
{
	same_at_every_par("SELECT user_id, window_start, COUNT(*), SUM(amount) FROM TABLE("
	                  "TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '1' MINUTE))"
	                  " GROUP BY user_id, window_start, window_end;", 0, 1000);
}

static void test_join(void **state)
{
	same_at_every_par("SELECT o.user_id, amount, tier FROM o JOIN users"
	                  " ON o.user_id = users.user_id;", 0, 500);
}

static void test_global_aggregate(void **state)
{
	same_at_every_par("SELECT COUNT(*), SUM(amount), MAX(ts) FROM o;", 2, 1);
}

static void test_union_rebalance(void **state)
{
	same_at_every_par("SELECT user_id, amount * 2 FROM o WHERE amount > 10"
	                  " UNION ALL SELECT user_id, 0 FROM users;", 0, 1000);
}

/* Three stages of keyed instances (two hash exchanges in a row, the
 * second fed by a changelog), with a thread per task (the default) and
 * with each instance i of every chain on thread i (docs/parallel.md §1,
 * "Slot sharing"): the same final table at 1, 2 and 3.  The channels fill
 * (5000 rows, a change per row into the second stage), so senders wait
 * and, sharing slots, help. */
static void test_slot_sharing_stages(void **state)
{
	const char *sql = "SELECT c, COUNT(*), SUM(s) FROM (SELECT user_id, COUNT(*) AS c,"
	                  " SUM(amount) AS s FROM o GROUP BY user_id) GROUP BY c;";
	same_at_every_par(sql, 2, 1); /* the default: a thread per task */
	slot_sharing = "true";
	same_at_every_par(sql, 2, 1);
	slot_sharing = NULL;
}

/* The threads of the three-stage job above at 2 (stdin's chain at 1 has
 * a thread of its own in any case): by default a thread per task, 1 + 2 +
 * 2; sharing slots, 1 + 2, each of the two running both stages' instance.
 * --stats prints a line per thread and the parallel efficiency
 * (docs/parallel.md §1, "Where a thread's time goes"). */
static void test_thread_default(void **state)
{
	const char *sql = "SELECT c, COUNT(*), SUM(s) FROM (SELECT user_id, COUNT(*) AS c,"
	                  " SUM(amount) AS s FROM o GROUP BY user_id) GROUP BY c;";
	rows r = {0};
	keep_stats = 1;
	run_job(sql, 2, &r);
	assert_non_null(strstr(last_stats, "\nthread 4 (1 tasks): "));
	assert_null(strstr(last_stats, "\nthread 5 "));
	assert_non_null(strstr(last_stats, "parallel efficiency "));
	assert_non_null(strstr(last_stats, "asleep on a blocked sender "));
	rows_free(&r);
	slot_sharing = "true";
	run_job(sql, 2, &r);
	assert_non_null(strstr(last_stats, "\nthread 1 (2 tasks): "));
	assert_non_null(strstr(last_stats, "\nthread 2 (1 tasks): "));
	assert_null(strstr(last_stats, "\nthread 3 "));
	slot_sharing = NULL;
	keep_stats = 0;
	free(last_stats);
	last_stats = NULL;
	rows_free(&r);
}

/* EXPLAIN at 2: the exchanges the runtime above runs. */
static void test_explain(void **state)
{
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_set(e, "parallelism.default", "2"), 0);
	const char *text;
	char *script = malloc(strlen(tables) + 200);
	strcpy(script, tables);
	strcat(script, "SELECT user_id, COUNT(*) FROM o GROUP BY user_id;");
	assert_int_equal(sl_explain(e, script, &text), 0);
	assert_non_null(strstr(text, "project=[user_id]) [append-only] parallelism=1\n"));
	assert_non_null(strstr(text, "parallelism=2 ship=[HASH[user_id]]"));
	sl_engine_close(e);
	/* a stateless tail after stdin is rebalanced */
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_set(e, "parallelism.default", "2"), 0);
	strcpy(script, tables);
	strcat(script, "SELECT UPPER(user_id) FROM o;");
	assert_int_equal(sl_explain(e, script, &text), 0);
	assert_non_null(strstr(text, "parallelism=2 ship=[REBALANCE]"));
	sl_engine_close(e);
	free(script);
}

/* A bad row in a file read at parallelism 3: the job fails with the row's
 * file and line, every thread joined (the engine closes cleanly). */
static void test_error_in_worker(void **state)
{
	char dir[] = "/tmp/test_prun_err.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof(path), "%s/in.jsonl", dir);
	FILE *f = fopen(path, "w");
	for (int i = 0; i < 300; i++)
		fprintf(f, "{\"k\":\"k%d\",\"n\":%d}\n", i % 5, i == 211 ? 0 : i + 1);
	fclose(f);
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_set(e, "parallelism.default", "3"), 0);
	char sql[512];
	snprintf(sql, sizeof(sql),
	         "CREATE TABLE t (k STRING, n INT) WITH ('connector' = 'filesystem',"
	         " 'path' = '%s', 'format' = 'json');"
	         "SELECT k, SUM(100 / n) FROM t GROUP BY k;", path);
	assert_int_equal(sl_exec(e, sql), 0);
	int rc = sl_run(e);
	assert_true(rc < 0);
	const char *msg = sl_errmsg(e);
	assert_non_null(strstr(msg, "division by zero"));
	assert_non_null(strstr(msg, "in.jsonl"));
	assert_non_null(strstr(msg, "line 212"));
	sl_engine_close(e);
	unlink(path);
	rmdir(dir);
}

/* A run-time error in an operator after a hash exchange (a Calc after a
 * GROUP BY): at parallelism 1 it names the source row's file and line; at
 * 3 the row was copied into another thread's batch, and the message names
 * the row's values as the exchange carried them (docs/parallel.md §10).
 * Only key 'z' (three rows, the third on line 212) divides by zero. */
static void test_error_after_exchange(void **state)
{
	char dir[] = "/tmp/test_prun_err2.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof(path), "%s/in.jsonl", dir);
	FILE *f = fopen(path, "w");
	for (int i = 0; i < 300; i++)
		fprintf(f, "{\"k\":\"%s%d\",\"n\":%d}\n", i == 100 || i == 150 || i == 211 ? "z" : "k",
		        i == 100 || i == 150 || i == 211 ? 0 : i % 5, i + 1);
	fclose(f);
	for (int par = 1; par <= 3; par += 2) {
		sl_engine *e;
		assert_int_equal(sl_engine_open(&e), 0);
		char p[8];
		snprintf(p, sizeof(p), "%d", par);
		assert_int_equal(sl_set(e, "parallelism.default", p), 0);
		char sql[768];
		snprintf(sql, sizeof(sql),
		         "CREATE TABLE t (k STRING, n INT) WITH ('connector' = 'filesystem',"
		         " 'path' = '%s', 'format' = 'json');"
		         "SELECT k, 100 / (c - 3 + CASE WHEN k = 'z0' THEN 0 ELSE 1000 END) FROM"
		         " (SELECT k, COUNT(*) AS c FROM t GROUP BY k);", path);
		assert_int_equal(sl_exec(e, sql), 0);
		int rc = sl_run(e);
		assert_true(rc < 0);
		const char *msg = sl_errmsg(e);
		assert_non_null(strstr(msg, "division by zero"));
		if (par == 1) {
			assert_non_null(strstr(msg, "in.jsonl"));
			assert_non_null(strstr(msg, "line 212"));
		} else {
			if (!strstr(msg, "row after an exchange: k='z0'"))
				fail_msg("no row named: %s", msg);
		}
		sl_engine_close(e);
	}
	unlink(path);
	rmdir(dir);
}

static void *stopper(void *arg)
{
	usleep(300 * 1000);
	sl_stop(arg);
	return NULL;
}

/* sl_stop at parallelism 2: the run returns, the stop completes. */
static void test_stop(void **state)
{
	for (int drain = 0; drain <= 1; drain++) {
		sl_engine *e;
		assert_int_equal(sl_engine_open(&e), 0);
		assert_int_equal(sl_set(e, "parallelism.default", "2"), 0);
		assert_int_equal(sl_exec(e, "CREATE TABLE g (k INT, v INT) WITH ('connector' = "
		                            "'datagen', 'rows-per-second' = '2000',"
		                            " 'fields.k.min' = '1', 'fields.k.max' = '50');"
		                            "CREATE TABLE h (k INT, c BIGINT) WITH ('connector' = "
		                            "'blackhole');"
		                            "INSERT INTO h SELECT k, COUNT(*) FROM g GROUP BY k;"),
		                 0);
		pthread_t th;
		assert_int_equal(pthread_create(&th, NULL, stopper, e), 0);
		assert_int_equal(sl_run(e), 0);
		pthread_join(th, NULL);
		assert_false(sl_job_finished(e));
		char path[16];
		assert_int_equal(sl_stop_complete(e, drain, path, sizeof(path)), 0);
		const char *st = sl_job_stats(e, 0);
		assert_non_null(strstr(st, "sink h:"));
		sl_engine_close(e);
	}
}

/* A checkpointing job runs at the parallelism the user set (barriers
 * through the channels, docs/parallel.md §5; tests/unit/test_pckpt.c),
 * and at the CPUs the process may use when none was set, as a job
 * without checkpoints does (its checkpoints restore at any parallelism:
 * §7), without a warning either way. */
static void test_checkpointing_parallelism(void **state)
{
	(void)state;
	for (int set = 0; set < 2; set++) {
		sl_engine *e;
		assert_int_equal(sl_engine_open(&e), 0);
		if (set)
			assert_int_equal(sl_set(e, "parallelism.default", "2"), 0);
		assert_int_equal(sl_set(e, "sluice.explain.exchanges", "true"), 0);
		assert_int_equal(sl_set(e, "execution.checkpointing.interval", "1 s"), 0);
		const char *text;
		char *script = malloc(strlen(tables) + 200);
		strcpy(script, tables);
		strcat(script, "SELECT user_id, COUNT(*) FROM o GROUP BY user_id;");
		assert_int_equal(sl_explain(e, script, &text), 0);
		int want = set ? 2 : sl_cpus_available();
		char par[32];
		snprintf(par, sizeof(par), "parallelism=%d", want);
		if (want > 1)
			assert_non_null(strstr(text, par));
		else
			assert_null(strstr(text, "parallelism=2"));
		assert_null(strstr(sl_warnings(e), "parallelism"));
		sl_engine_close(e);
		free(script);
	}
}

/* Push tables at parallelism > 1 (docs/parallel.md §6): every push drains
 * the job, so a poll right after it sees every result the rows caused.
 * Runs `sql` over push table p at parallelism par: 20 pushes of 50 rows
 * (keys k0..k12), a poll after each, then sl_push_end and a last poll;
 * each poll's rows sorted, one "#" line between polls. */
static void run_push(const char *sql, int par, rows *out)
{
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	char p[16];
	snprintf(p, sizeof(p), "%d", par);
	assert_int_equal(sl_set(e, "parallelism.default", p), 0);
	assert_int_equal(sl_set(e, "sluice.poll.format", "text"), 0);
	char script[1024];
	snprintf(script, sizeof(script), "CREATE TABLE p (k STRING, v INT, ts TIMESTAMP(3),"
	         " WATERMARK FOR ts AS ts) WITH ('connector' = 'push'); %s", sql);
	if (sl_exec(e, script))
		fail_msg("%s", sl_errmsg(e));
	if (par > 1)
		assert_string_equal(sl_warnings(e), "");
	char text[50 * 96];
	for (int push = 0; push <= 20; push++) {
		if (push < 20) {
			size_t len = 0;
			for (int i = 0; i < 50; i++) {
				int r = push * 50 + i;
				len += (size_t)snprintf(text + len, sizeof(text) - len,
				                        "{\"k\": \"k%d\", \"v\": %d, \"ts\": "
				                        "\"2024-01-01 00:%02d:%02d\"}\n", r * 7 % 13, r % 11,
				                        r / 60 % 60, r % 60);
			}
			if (sl_push_json_lines(e, "p", text, len))
				fail_msg("push %d: %s", push, sl_errmsg(e));
		} else if (sl_push_end(e, "p"))
			fail_msg("end: %s", sl_errmsg(e));
		rows step = {0};
		assert_true(sl_poll(e, on_row, &step) >= 0);
		qsort(step.v, (size_t)step.n, sizeof(char *), cmp);
		for (int i = 0; i < step.n; i++)
			rows_push(out, step.v[i], strlen(step.v[i]));
		rows_push(out, "#", 1);
		rows_free(&step);
	}
	sl_engine_close(e);
}

static void same_pushed_at_1_and_3(const char *sql, int min_rows)
{
	rows a = {0}, b = {0};
	run_push(sql, 1, &a);
	assert_true(a.n >= min_rows + 21);
	for (int round = 0; round < 3; round++) { /* thread timing varies */
		run_push(sql, 3, &b);
		assert_int_equal(a.n, b.n);
		for (int i = 0; i < a.n; i++)
			assert_string_equal(a.v[i], b.v[i]);
		rows_free(&b);
	}
	rows_free(&a);
}

/* A keyed aggregate and a global one read back by the chain of the push
 * scan (GROUPING SETS: the task feeding the exchange also receives from
 * it): each poll holds exactly the changes of the rows just pushed. */
static void test_push_drain(void **state)
{
	(void)state;
	same_pushed_at_1_and_3("SELECT k, COUNT(*) AS c, SUM(v) AS s FROM p "
	                       "GROUP BY GROUPING SETS ((k), ())", 1000);
}

/* Windows fire as pushed watermarks pass them, and the rest at
 * sl_push_end (+infinity): the poll after it sees them all. */
static void test_push_windows_and_end(void **state)
{
	(void)state;
	same_pushed_at_1_and_3("SELECT k, window_start, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE p, "
	                       "DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, "
	                       "window_end", 100);
}

/* At the default parallelism (not set) a push-table job runs at 1 (an
 * embedding that did not ask gets no threads); set explicitly, it runs in
 * parallel.  Either way sl_snapshot works (at 3 every instance parks for
 * it) and sl_restore takes the snapshot into a new job at 1 or 3 (a
 * rescale when not the same): the count goes on from where it was. */
static void test_push_default_runs_at_one(void **state)
{
	(void)state;
	static const char *const job = "CREATE TABLE p (k STRING, v INT) WITH ('connector' = "
	                               "'push'); SELECT k, COUNT(*) FROM p GROUP BY k";
	const char *row = "{\"k\": \"a\", \"v\": 1}";
	for (int explicit_ = 0; explicit_ < 2; explicit_++) {
		sl_engine *e;
		assert_int_equal(sl_engine_open(&e), 0);
		if (explicit_)
			assert_int_equal(sl_set(e, "parallelism.default", "3"), 0);
		if (sl_exec(e, job))
			fail_msg("%s", sl_errmsg(e));
		assert_int_equal(sl_push_json(e, "p", row, strlen(row)), 0);
		assert_int_equal(sl_push_json(e, "p", row, strlen(row)), 0);
		void *buf = NULL;
		size_t len = 0;
		if (sl_snapshot(e, &buf, &len))
			fail_msg("snapshot: %s", sl_errmsg(e));
		assert_int_equal(sl_push_json(e, "p", row, strlen(row)), 0); /* still runs */
		sl_engine_close(e);
		for (int q = 1; q <= 3; q += 2) {
			sl_engine *f;
			assert_int_equal(sl_engine_open(&f), 0);
			assert_int_equal(sl_set(f, "parallelism.default", q == 1 ? "1" : "3"), 0);
			assert_int_equal(sl_set(f, "sluice.poll.format", "text"), 0);
			if (sl_exec(f, job))
				fail_msg("%s", sl_errmsg(f));
			if (sl_restore(f, buf, len))
				fail_msg("restore at %d of a snapshot at %d: %s", q, explicit_ ? 3 : 1,
				         sl_errmsg(f));
			assert_int_equal(sl_push_json(f, "p", row, strlen(row)), 0);
			rows got = {0};
			assert_true(sl_poll(f, on_row, &got) >= 0);
			assert_int_equal(got.n, 2);
			assert_non_null(strstr(got.v[0], "a, 2"));
			assert_non_null(strstr(got.v[1], "a, 3"));
			rows_free(&got);
			sl_engine_close(f);
		}
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_by),
		cmocka_unit_test(test_tumble_by_key),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_global_aggregate),
		cmocka_unit_test(test_union_rebalance),
		cmocka_unit_test(test_slot_sharing_stages),
		cmocka_unit_test(test_thread_default),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_error_in_worker),
		cmocka_unit_test(test_error_after_exchange),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_checkpointing_parallelism),
		cmocka_unit_test(test_push_drain),
		cmocka_unit_test(test_push_windows_and_end),
		cmocka_unit_test(test_push_default_runs_at_one),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
