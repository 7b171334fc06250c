/*
 * test_metrics.c - the live metrics snapshot (sl_metrics_get,
 * src/api/metrics.c; docs/observability.md): taken from a second thread
 * while the job runs at parallelism 1 and 3, its counters never go
 * backwards and its watermarks never decrease; once the job finished, it
 * agrees with the final --stats text (rows read, rows written, late rows)
 * and with the input (rows read = lines in the file, late rows = the
 * late rows written into it) and the bytes read equal the file's size;
 * the source's watermark is +infinity; the
 * edges name their exchanges and every exchange carried messages; a
 * checkpointing job counts its checkpoints; the pending text
 * (sl_metrics_pending, EXPLAIN PENDING) names the input that holds a
 * window back, and SHOW WATERMARKS lists every instance's watermarks.  `make tsan` runs it under
 * ThreadSanitizer: the reader and the job's threads share no lock on the
 * per-row path, and TSan must report no race.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sluice.h"
#include "harness.h"

#define NROWS 30000
#define LATE_EVERY 97 /* every 97th row is 20 s behind: late (watermark 1 s behind) */

static char dir[256], input[300];
static int nlate;

static int setup(void **state)
{
	assert_int_equal(th_tmpdir(dir, sizeof(dir), "test_metrics"), 0);
	snprintf(input, sizeof(input), "%s/in.jsonl", dir);
	FILE *f = fopen(input, "w");
	assert_non_null(f);
	for (int i = 0; i < NROWS; i++) {
		long ms = 100L * i;
		if (i > 300 && i % LATE_EVERY == 0) {
			ms -= 20000;
			nlate++;
		}
		fprintf(f, "{\"k\":\"u%d\",\"ts\":\"2026-08-01 %02ld:%02ld:%02ld.%03ld\",\"v\":%d}\n",
		        i % 13, ms / 3600000, ms / 60000 % 60, ms / 1000 % 60, ms % 1000, i);
	}
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	th_rmtree(dir);
	return 0;
}

typedef struct reader {
	sl_engine *e;
	atomic_int stop;
	int snapshots, bad;
	char why[256];
} reader;

/* Takes snapshots until told to stop, at least one (on a loaded machine
 * the job may end before this thread first runs: make test failed on
 * r.snapshots > 0 at a load average of 18); checks monotonicity. */
static void *read_loop(void *arg)
{
	reader *r = arg;
	int64_t *prev_in = NULL, *prev_out = NULL, *prev_wm = NULL;
	int n = 0;
	do {
		sl_metrics *m;
		if (sl_metrics_get(r->e, &m)) {
			snprintf(r->why, sizeof(r->why), "sl_metrics_get failed");
			r->bad++;
			break;
		}
		if (m->nops && !prev_in) {
			n = m->nops;
			prev_in = calloc((size_t)n, sizeof(int64_t));
			prev_out = calloc((size_t)n, sizeof(int64_t));
			prev_wm = calloc((size_t)n, sizeof(int64_t));
			for (int i = 0; i < n; i++)
				prev_wm[i] = SL_WM_NONE;
		}
		if (m->nops && m->nops != n) {
			snprintf(r->why, sizeof(r->why), "operators %d then %d", n, m->nops);
			r->bad++;
		}
		for (int i = 0; i < m->nops && i < n; i++) {
			const sl_metric_op *o = &m->ops[i];
			if (o->rows_in < prev_in[i] || o->rows_out < prev_out[i] || o->out_wm < prev_wm[i]) {
				snprintf(r->why, sizeof(r->why), "#%d[%d] went backwards", o->node,
				         o->instance);
				r->bad++;
			}
			prev_in[i] = o->rows_in;
			prev_out[i] = o->rows_out;
			prev_wm[i] = o->out_wm;
		}
		r->snapshots++;
		sl_metrics_free(m);
		usleep(200);
	} while (!atomic_load(&r->stop));
	free(prev_in);
	free(prev_out);
	free(prev_wm);
	return NULL;
}

/* The number after `key` in text (the --stats line), or -1. */
static long long stat_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	return p ? atoll(p + strlen(key)) : -1;
}

/* Runs the windowed job at parallelism par with a reader thread; checks
 * the final snapshot against --stats and the input. */
static void run_at(int par, int ckpt)
{
	char sql[2048], pipeline[64];
	snprintf(pipeline, sizeof(pipeline), "metrics-p%d-c%d", par, ckpt);
	snprintf(sql, sizeof(sql),
	         "SET 'parallelism.default' = '%d';\n"
	         "SET 'pipeline.name' = '%s';\n"
	         "%s"
	         "CREATE TABLE src (k STRING, ts TIMESTAMP(3), v BIGINT,\n"
	         "  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)\n"
	         "  WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');\n"
	         "CREATE TABLE out (k STRING, n BIGINT) WITH ('connector' = 'blackhole');\n"
	         "INSERT INTO out SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts),\n"
	         "  INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end;\n",
	         par, pipeline,
	         ckpt ? "SET 'execution.checkpointing.interval' = '20 ms';\n" : "", input);
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	sl_metrics *m;
	assert_int_equal(sl_metrics_get(e, &m), 0); /* no job yet */
	assert_int_equal(m->status, SL_JOB_NONE);
	assert_int_equal(m->nops, 0);
	sl_metrics_free(m);
	if (sl_exec(e, sql))
		fail_msg("%s", sl_errmsg(e));
	reader r = {.e = e};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, read_loop, &r), 0);
	if (sl_run(e))
		fail_msg("%s", sl_errmsg(e));
	atomic_store(&r.stop, 1);
	pthread_join(th, NULL);
	if (r.bad)
		fail_msg("%s", r.why);
	assert_true(r.snapshots > 0);

	assert_int_equal(sl_metrics_get(e, &m), 0);
	assert_int_equal(m->status, SL_JOB_FINISHED);
	assert_string_equal(m->job, pipeline);
	int64_t read = 0, written = 0, late = 0, in_of_sink = 0;
	int sources = 0, sinks = 0, reading = 0;
	int64_t bytes = 0, bytes_total = 0;
	for (int i = 0; i < m->nops; i++) {
		const sl_metric_op *o = &m->ops[i];
		assert_true(o->instance < o->parallelism);
		if (o->role == SL_ROLE_SOURCE) {
			assert_string_equal(o->table, "src");
			assert_true(o->out_wm == SL_WM_END);
			read += o->rows_out;
			reading += o->rows_out > 0;
			bytes += o->bytes_read;
			bytes_total += o->bytes_total;
			sources++;
		} else if (o->role == SL_ROLE_SINK) {
			assert_string_equal(o->table, "out");
			written += o->rows_in;
			in_of_sink += o->rows_in;
			sinks++;
		}
		late += o->late_dropped;
	}
	(void)in_of_sink;
	assert_true(sources >= 1 && sinks >= 1);
	assert_int_equal(read, NROWS);
	/* progress: every byte of the file, over the instances' splits */
	struct stat st;
	assert_int_equal(stat(input, &st), 0);
	assert_int_equal(bytes_total, st.st_size);
	assert_int_equal(bytes, st.st_size);
	assert_int_equal(late, nlate);
	const char *stats = sl_job_stats(e, 0);
	assert_int_equal(stat_after(stats, "source src: "), read);
	assert_int_equal(stat_after(stats, "sink out: "), written);
	assert_int_equal(m->parallelism, par);
	/* SLUICE_TEST_SPLIT_BYTES cuts the file at 3: its ranges come from a
	 * pool the instances share (docs/parallel.md §4.1), so how many
	 * instances read rows depends on timing */
	assert_true(reading >= 1 && reading <= par);
	/* the edges: at 1 every edge is chained; at 3 an exchange hashes
	 * into the window aggregate and carried messages */
	int hashed = 0;
	assert_true(m->nedges >= 2);
	for (int i = 0; i < m->nedges; i++) {
		const sl_metric_edge *ed = &m->edges[i];
		if (par == 1)
			assert_string_equal(ed->ship, "CHAIN");
		if (!strcmp(ed->ship, "HASH")) {
			hashed++;
			assert_true(ed->channels > 0);
			assert_true(ed->messages > 0);
			assert_true(ed->blocked_ns >= 0);
		}
	}
	if (par > 1)
		assert_true(hashed >= 1);
	/* SHOW WATERMARKS lists a source instance's splits under it when it has
	 * several (SLUICE_TEST_SPLIT_BYTES cuts the file at 3) */
	if (par > 1) {
		if (sl_exec(e, "SHOW WATERMARKS;"))
			fail_msg("%s", sl_errmsg(e));
		const char *sw = sl_explain_text(e);
		if (!strstr(sw, "   file '") || !strstr(sw, " ended |") || strstr(sw, "none yet"))
			fail_msg("SHOW WATERMARKS without splits:\n%s", sw);
	}
	if (ckpt) {
		assert_true(m->checkpointing);
		assert_true(m->ckpt_completed >= 1); /* at least the final one */
		assert_true(m->ckpt_last_id >= 1);
		assert_true(m->ckpt_last_size > 0);
		assert_int_equal(m->ckpt_failed, 0);
		/* the history: the newest checkpoints, oldest first, the last one
		 * the counters' */
		assert_true(m->nckpts >= 1 && m->nckpts <= SL_CKPT_HISTORY);
		assert_true(m->nckpts == SL_CKPT_HISTORY || m->nckpts == m->ckpt_completed);
		const sl_metric_ckpt *last = &m->ckpts[m->nckpts - 1];
		assert_int_equal(last->id, m->ckpt_last_id);
		assert_int_equal(last->status, 1);
		assert_int_equal(last->size, m->ckpt_last_size);
		assert_int_equal(last->duration_us, m->ckpt_last_duration_us);
		assert_true(last->trigger_us >= m->start_us && last->trigger_us <= m->now_us);
		for (int i = 1; i < m->nckpts; i++)
			assert_true(m->ckpts[i].id > m->ckpts[i - 1].id);
	} else {
		assert_false(m->checkpointing);
		assert_int_equal(m->ckpt_completed, 0);
	}
	assert_true(m->start_us > 0 && m->now_us >= m->start_us);
	sl_metrics_free(m);
	sl_engine_close(e);
}

static void test_metrics_p1(void **state)
{
	run_at(1, 0);
}

static void test_metrics_p3(void **state)
{
	setenv("SLUICE_TEST_SPLIT_BYTES", "65536", 1); /* every source instance reads */
	run_at(3, 0);
	unsetenv("SLUICE_TEST_SPLIT_BYTES");
}

static void test_metrics_checkpoints(void **state)
{
	char cwd[1024];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0); /* ./sluice-state goes there */
	run_at(1, 1);
	assert_int_equal(chdir(cwd), 0);
}

/* Rates: a snapshot a second after the previous sample has rates over
 * that second; the source's rows out rate times the window is its rows. */
static void test_metrics_rates(void **state)
{
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	char sql[1024];
	snprintf(sql, sizeof(sql),
	         "CREATE TABLE src (k STRING, ts TIMESTAMP(3), v BIGINT)\n"
	         "  WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');\n"
	         "CREATE TABLE out (k STRING, v BIGINT) WITH ('connector' = 'blackhole');\n"
	         "INSERT INTO out SELECT k, v FROM src;\n", input);
	if (sl_exec(e, sql))
		fail_msg("%s", sl_errmsg(e));
	sl_metrics *m;
	assert_int_equal(sl_metrics_get(e, &m), 0);
	assert_int_equal(m->status, SL_JOB_CREATED);
	for (int i = 0; i < m->nops; i++)
		assert_int_equal(m->ops[i].rows_out, 0);
	sl_metrics_free(m);
	if (sl_run(e))
		fail_msg("%s", sl_errmsg(e));
	usleep(1100 * 1000);
	assert_int_equal(sl_metrics_get(e, &m), 0);
	assert_true(m->rate_window_us >= 1000000);
	double rows = 0; /* over the source's instances (one may have read nothing) */
	for (int i = 0; i < m->nops; i++)
		if (m->ops[i].role == SL_ROLE_SOURCE)
			rows += m->ops[i].rows_out_per_s * (double)m->rate_window_us / 1e6;
	if (!(rows > NROWS - 1 && rows < NROWS + 1))
		fail_msg("%f rows over %lld us", rows, (long long)m->rate_window_us);
	sl_metrics_free(m);
	sl_engine_close(e);
}

/* EXPLAIN PENDING: a window over the UNION ALL of two push tables, rows
 * pushed into one only: the text names the other, which read no row, and
 * once it has rows and the windows close, nothing holds them back. */
static void test_metrics_pending(void **state)
{
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, "SHOW WATERMARKS"), SL_EPLAN); /* no job yet */
	assert_non_null(strstr(sl_errmsg(e), "SHOW WATERMARKS needs a running job"));
	assert_int_equal(sl_exec(e, "EXPLAIN PENDING"), SL_EPLAN);
	if (sl_exec(e, "CREATE TABLE a (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)\n"
	               "  WITH ('connector' = 'push');\n"
	               "CREATE TABLE b (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)\n"
	               "  WITH ('connector' = 'push');\n"
	               "CREATE TABLE o (k STRING, n BIGINT) WITH ('connector' = 'push');\n"
	               "CREATE VIEW ab AS SELECT * FROM a UNION ALL SELECT * FROM b;\n"
	               "INSERT INTO o SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE ab,\n"
	               "  DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end;"))
		fail_msg("%s", sl_errmsg(e));
	for (int i = 0; i < 5; i++) {
		char row[128];
		snprintf(row, sizeof(row), "{\"k\":\"x\",\"ts\":\"2026-08-01 00:00:0%d\"}", i);
		assert_int_equal(sl_push_json(e, "a", row, strlen(row)), 0);
	}
	sl_metrics *m;
	assert_int_equal(sl_metrics_get(e, &m), 0);
	assert_int_equal(m->status, SL_JOB_RUNNING); /* since the first push */
	char *t = sl_metrics_pending(m);
	assert_non_null(t);
	if (!strstr(t, "WindowAggregate waits for its input watermark, now -infinity") ||
	    !strstr(t, "held back by source b: watermark -infinity (none yet), 0 rows read") ||
	    !strstr(t, "it has read no row") ||
	    !strstr(t, "  source a: 2026-08-01 00:00:04, 5 rows read") ||
	    /* what the window holds, as its thread published it after the push */
	    !strstr(t, "to reach 2026-08-01 00:00:01\n") ||
	    !strstr(t, "  its oldest open window ends at 2026-08-01 00:00:01, holding 1 group; "
	               "5 windows open in all, published "))
		fail_msg("pending text:\n%s", t);
	assert_int_equal(m->ops[0].nsplits, 1); /* a push table: one split, its whole input */
	free(t);
	sl_metrics_free(m);
	/* the same through SQL: EXPLAIN PENDING and SHOW WATERMARKS */
	if (sl_exec(e, "EXPLAIN PENDING; SHOW WATERMARKS;"))
		fail_msg("%s", sl_errmsg(e));
	const char *out = sl_explain_text(e);
	if (!strstr(out, "held back by source b: watermark -infinity (none yet), 0 rows read") ||
	    !strstr(out, " operator | instance | ") || !strstr(out, " input watermark |") ||
	    !strstr(out, " source a |") || !strstr(out, " 2026-08-01 00:00:04 |") ||
	    !strstr(out, " rows in set")) {
		fputs(out, stderr);
		fail_msg("EXPLAIN PENDING; SHOW WATERMARKS: see above");
	}
	/* b catches up: the watermark is a's again, held back by neither */
	const char *row = "{\"k\":\"y\",\"ts\":\"2026-08-01 00:00:09\"}";
	assert_int_equal(sl_push_json(e, "b", row, strlen(row)), 0);
	assert_int_equal(sl_metrics_get(e, &m), 0);
	t = sl_metrics_pending(m);
	assert_non_null(t);
	if (!strstr(t, "WindowAggregate waits for its input watermark, now 2026-08-01 00:00:04") ||
	    !strstr(t, "held back by source a: watermark 2026-08-01 00:00:04, 5 rows read") ||
	    !strstr(t, "its oldest open window ends at 2026-08-01 00:00:05, holding 1 group; "
	               "2 windows open in all"))
		fail_msg("pending text after b's row:\n%s", t);
	free(t);
	sl_metrics_free(m);
	/* a late row (by b's watermark, 00:00:09): counted, shown with its values */
	row = "{\"k\":\"late\",\"ts\":\"2026-08-01 00:00:02\"}";
	assert_int_equal(sl_push_json(e, "b", row, strlen(row)), 0);
	assert_int_equal(sl_metrics_get(e, &m), 0);
	t = sl_metrics_pending(m);
	assert_non_null(t);
	if (!strstr(t, "late rows dropped in the last minute:\n  #") ||
	    !strstr(t, "WindowAggregate: 1; the newest, +I[late, 2026-08-01 00:00:02], was late "
	               "for watermark 2026-08-01 00:00:09, dropped "))
		fail_msg("pending text after a late row:\n%s", t);
	int found = 0;
	for (int i = 0; i < m->nops; i++)
		if (m->ops[i].late_last_minute == 1 &&
		    !strcmp(m->ops[i].late_example, "+I[late, 2026-08-01 00:00:02]"))
			found = 1;
	assert_true(found);
	free(t);
	sl_metrics_free(m);
	sl_engine_close(e);
}

/* The source's figures in m (the first operator: the scan). */
static const sl_metric_op *source_of(const sl_metrics *m)
{
	for (int i = 0; i < m->nops; i++)
		if (m->ops[i].role == SL_ROLE_SOURCE)
			return &m->ops[i];
	fail_msg("no source");
	return NULL;
}

static void *stop_after(void *arg)
{
	sl_engine *e = arg;
	for (int i = 0; i < 20000; i++) {
		sl_metrics *m;
		if (sl_metrics_get(e, &m))
			break;
		int64_t n = m->nops ? source_of(m)->rows_out : 0;
		sl_metrics_free(m);
		if (n >= 2000)
			break;
		usleep(100);
	}
	sl_stop(e);
	return NULL;
}

/*
 * Percent done (bytes_read / bytes_total) where it was missing: a Parquet
 * source (its files' bytes, by rows read over each file's rows), and a
 * JSON source restored from a snapshot (it counts what the checkpoint had
 * read: before, it counted only from where it resumed).
 */
static void test_metrics_progress(void **state)
{
	char pq[300], sql[2048];
	snprintf(pq, sizeof(pq), "%s/pq", dir);
	/* a Parquet table written by sluice from the JSON input */
	snprintf(sql, sizeof(sql),
	         "SET 'parallelism.default' = '1';\n"
	         "CREATE TABLE src (k STRING, ts TIMESTAMP(3), v INT) WITH ('connector' = "
	         "'filesystem', 'path' = '%s', 'format' = 'json');\n"
	         "CREATE TABLE pq (k STRING, ts TIMESTAMP(3), v INT) WITH ('connector' = "
	         "'filesystem', 'path' = '%s', 'format' = 'parquet');\n"
	         "INSERT INTO pq SELECT * FROM src;", input, pq);
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	if (sl_exec(e, sql) || sl_run(e))
		fail_msg("%s", sl_errmsg(e));
	sl_engine_close(e);
	snprintf(sql, sizeof(sql),
	         "SET 'parallelism.default' = '1';\n"
	         "CREATE TABLE pq (k STRING, ts TIMESTAMP(3), v INT) WITH ('connector' = "
	         "'filesystem', 'path' = '%s', 'format' = 'parquet');\n"
	         "CREATE TABLE o (k STRING, v INT) WITH ('connector' = 'blackhole');\n"
	         "INSERT INTO o SELECT k, v FROM pq;", pq);
	assert_int_equal(sl_engine_open(&e), 0);
	if (sl_exec(e, sql) || sl_run(e))
		fail_msg("%s", sl_errmsg(e));
	sl_metrics *m;
	assert_int_equal(sl_metrics_get(e, &m), 0);
	const sl_metric_op *s = source_of(m);
	assert_int_equal(s->rows_out, NROWS);
	assert_true(s->bytes_total > 0);
	assert_int_equal(s->bytes_read, s->bytes_total);
	sl_metrics_free(m);
	sl_engine_close(e);

	/* JSON, stopped after some rows, snapshot, restored in a new engine */
	snprintf(sql, sizeof(sql),
	         "SET 'parallelism.default' = '1';\n"
	         "SET 'sluice.batch-size' = '64';\n"
	         "CREATE TABLE src (k STRING, ts TIMESTAMP(3), v INT) WITH ('connector' = "
	         "'filesystem', 'path' = '%s', 'format' = 'json');\n"
	         "CREATE TABLE o (k STRING, v INT) WITH ('connector' = 'blackhole');\n"
	         "INSERT INTO o SELECT k, v FROM src;", input);
	assert_int_equal(sl_engine_open(&e), 0);
	if (sl_exec(e, sql))
		fail_msg("%s", sl_errmsg(e));
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, stop_after, e), 0);
	int rc = sl_run(e);
	pthread_join(th, NULL);
	if (rc)
		fail_msg("%s", sl_errmsg(e));
	void *snap;
	size_t len;
	assert_int_equal(sl_snapshot(e, &snap, &len), 0);
	assert_int_equal(sl_metrics_get(e, &m), 0);
	int64_t first = source_of(m)->rows_out;
	int64_t at_stop = source_of(m)->bytes_read;
	sl_metrics_free(m);
	sl_engine_close(e);
	assert_int_equal(sl_engine_open(&e), 0);
	if (sl_exec(e, sql) || sl_restore(e, snap, len))
		fail_msg("%s", sl_errmsg(e));
	free(snap);
	/* before it runs, it shows what the snapshot had consumed */
	assert_int_equal(sl_metrics_get(e, &m), 0);
	s = source_of(m);
	assert_true(s->bytes_total > 0);
	if (first < NROWS)
		assert_true(s->bytes_read > 0 && s->bytes_read <= at_stop);
	else
		assert_int_equal(s->bytes_read, s->bytes_total);
	sl_metrics_free(m);
	if (sl_run(e))
		fail_msg("%s", sl_errmsg(e));
	assert_int_equal(sl_metrics_get(e, &m), 0);
	s = source_of(m);
	assert_int_equal(s->rows_out, NROWS); /* the counters are restored too */
	assert_true(s->bytes_read >= s->bytes_total); /* 100%, not the resumed part only */
	sl_metrics_free(m);
	sl_engine_close(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics_p1),
		cmocka_unit_test(test_metrics_p3),
		cmocka_unit_test(test_metrics_checkpoints),
		cmocka_unit_test(test_metrics_rates),
		cmocka_unit_test(test_metrics_pending),
		cmocka_unit_test(test_metrics_progress),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
