/*
 * test_pckpt.c - checkpoints and savepoints of a job at parallelism > 1
 * (docs/parallel.md §5, src/runtime/prun.c, ckpt_coord.c), through the
 * public API on both state backends: a job over a file cut into many
 * splits (SLUICE_TEST_SPLIT_BYTES), two tumbling windows into json file
 * sinks (inserts only: a GROUP BY's changelog over several splits depends
 * on their interleaving, docs/parallel.md §4) and a regular join of o with
 * a small table into a third (an inner join of append-only inputs: inserts
 * only, its state a map per join key moved by key group), at parallelism 2 with
 * checkpoints, commits exactly the rows an uninterrupted run at
 * parallelism 1 commits; a restart of the finished job emits nothing; a
 * stop with a savepoint at 2 and a resume from it at 2 commit every row
 * once; savepoints rescaled along 3 -> 1 -> 3 -> 2 commit what an
 * uninterrupted run commits; another max parallelism is refused.  The crash test at parallelism 2 (tests/crash/crash.sh
 * ... 2) kills such jobs; `make tsan` runs a parallel checkpointing job.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sluice.h"

#define NROWS 60000

static char dir[64]; /* the test's directory: in.jsonl, out-*, state */

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The committed (published) lines of the sinks of run `tag`, sorted, in
 * one string; n: how many. */
static char *committed(const char *tag, int *n)
{
	char **v = NULL;
	int nv = 0, cap = 0;
	const char *sinks[] = {"agg", "win", "jn"};
	for (int s = 0; s < 3; s++) {
		char d[160];
		snprintf(d, sizeof(d), "%s/out-%s/%s", dir, tag, sinks[s]);
		DIR *dd = opendir(d);
		if (!dd)
			continue;
		struct dirent *de;
		while ((de = readdir(dd))) {
			if (strncmp(de->d_name, "part-", 5))
				continue; /* hidden staged and in-progress files are not output */
			char p[512];
			snprintf(p, sizeof(p), "%s/%s", d, de->d_name);
			FILE *f = fopen(p, "r");
			assert_non_null(f);
			char line[512];
			while (fgets(line, sizeof(line), f)) {
				if (nv == cap) {
					cap = cap ? cap * 2 : 1024;
					v = realloc(v, sizeof(char *) * (size_t)cap);
					assert_non_null(v);
				}
				char *t = malloc(strlen(line) + 8);
				sprintf(t, "%s %s", sinks[s], line);
				v[nv++] = t;
			}
			fclose(f);
		}
		closedir(dd);
	}
	qsort(v, (size_t)nv, sizeof(char *), cmp);
	size_t len = 1;
	for (int i = 0; i < nv; i++)
		len += strlen(v[i]);
	char *all = malloc(len);
	all[0] = 0;
	char *p = all;
	for (int i = 0; i < nv; i++) {
		size_t l = strlen(v[i]);
		memcpy(p, v[i], l + 1);
		p += l;
		free(v[i]);
	}
	free(v);
	*n = nv;
	return all;
}

static const char *maxp; /* 'pipeline.max-parallelism' of the next jobs, or NULL */

/* The job of run `tag` at parallelism par (0: not set) on backend be,
 * from savepoint `from` (NULL: the newest checkpoint); NULL when it fails
 * to start, its message in msg. */
static sl_engine *open_job_from(const char *tag, int par, const char *be, const char *from,
                                char *msg, size_t cap)
{
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	if (maxp)
		assert_int_equal(sl_set(e, "pipeline.max-parallelism", maxp), 0);
	char v[16], path[160];
	if (par) {
		snprintf(v, sizeof(v), "%d", par);
		assert_int_equal(sl_set(e, "parallelism.default", v), 0);
	}
	assert_int_equal(sl_set(e, "state.backend.type", be), 0);
	assert_int_equal(sl_set(e, "execution.checkpointing.interval", "20 ms"), 0);
	snprintf(path, sizeof(path), "pckpt-%s", tag);
	assert_int_equal(sl_set(e, "pipeline.name", path), 0);
	snprintf(path, sizeof(path), "%s/state-%s/ck", dir, tag);
	assert_int_equal(sl_set(e, "state.checkpoints.dir", path), 0);
	snprintf(path, sizeof(path), "%s/state-%s/sp", dir, tag);
	assert_int_equal(sl_set(e, "state.savepoints.dir", path), 0);
	if (from)
		assert_int_equal(sl_set(e, "execution.savepoint.path", from), 0);
	char sql[3072];
	snprintf(sql, sizeof(sql),
	         "CREATE TABLE o (k STRING, v INT, ts TIMESTAMP(3),"
	         " WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)"
	         " WITH ('connector' = 'filesystem', 'path' = '%s/in.jsonl', 'format' = 'json');"
	         "CREATE TABLE agg (k STRING, n BIGINT, s BIGINT) WITH ('connector' = 'filesystem',"
	         " 'path' = '%s/out-%s/agg', 'format' = 'json');"
	         "CREATE TABLE win (k STRING, ws TIMESTAMP(3), n BIGINT) WITH ("
	         " 'connector' = 'filesystem', 'path' = '%s/out-%s/win', 'format' = 'json');"
	         "CREATE TABLE d (k STRING, name STRING) WITH ('connector' = 'filesystem',"
	         " 'path' = '%s/dim.jsonl', 'format' = 'json');"
	         "CREATE TABLE jn (k STRING, v INT, ts TIMESTAMP(3), name STRING) WITH ("
	         " 'connector' = 'filesystem', 'path' = '%s/out-%s/jn', 'format' = 'json');"
	         "EXECUTE STATEMENT SET BEGIN "
	         "INSERT INTO agg SELECT k, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE o,"
	         " DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY k, window_start, window_end;"
	         "INSERT INTO win SELECT k, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE o,"
	         " DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;"
	         "INSERT INTO jn SELECT o.k, o.v, o.ts, d.name FROM o JOIN d ON o.k = d.k"
	         " AND o.v <> 5;"
	         "END;", dir, dir, tag, dir, tag, dir, dir, tag);
	if (sl_exec(e, sql)) {
		if (!msg)
			fail_msg("%s: %s", tag, sl_errmsg(e));
		snprintf(msg, cap, "%s", sl_errmsg(e));
		sl_engine_close(e);
		return NULL;
	}
	return e;
}

static sl_engine *open_job(const char *tag, int par, const char *be, const char *from)
{
	return open_job_from(tag, par, be, from, NULL, 0);
}

static sl_engine *open_job_rc(const char *tag, int par, const char *be, char *msg, size_t cap)
{
	return open_job_from(tag, par, be, NULL, msg, cap);
}

static void run_to_end(const char *tag, int par, const char *be)
{
	sl_engine *e = open_job(tag, par, be, NULL);
	if (sl_run(e))
		fail_msg("%s: %s", tag, sl_errmsg(e));
	assert_true(sl_job_finished(e));
	if (par > 1)
		assert_non_null(strstr(sl_checkpoint_log(e), ", aligned "));
	sl_engine_close(e);
}

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test_pckpt.XXXXXX");
	assert_non_null(mkdtemp(dir));
	/* the coordinator's ./sluice-state/<job> (its lock, the run attempt)
	 * goes there too: two runs of this test never share one */
	assert_int_equal(chdir(dir), 0);
	char p[128];
	snprintf(p, sizeof(p), "%s/in.jsonl", dir);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	for (int i = 0; i < NROWS; i++) { /* 10 rows per second, a few late ones */
		int64_t t = (int64_t)i * 100 - (i % 97 == 0 ? 3000 : 0);
		if (t < 0)
			t = 0;
		fprintf(f, "{\"k\": \"k%d\", \"v\": %d, \"ts\": \"2024-01-01 %02d:%02d:%02d.%03d\"}\n",
		        i * 7 % 101, i % 13, (int)(t / 3600000), (int)(t / 60000 % 60),
		        (int)(t / 1000 % 60), (int)(t % 1000));
	}
	fclose(f);
	/* the regular join's other side: keys k0..k100 (each with ~600 rows
	 * of o: a map per key with many entries), two rows for k7 */
	snprintf(p, sizeof(p), "%s/dim.jsonl", dir);
	f = fopen(p, "w");
	assert_non_null(f);
	for (int i = 0; i < 101; i++)
		fprintf(f, "{\"k\": \"k%d\", \"name\": \"n%d\"}\n", i, i);
	fprintf(f, "{\"k\": \"k7\", \"name\": \"seven\"}\n");
	fclose(f);
	setenv("SLUICE_TEST_SPLIT_BYTES", "65536", 1); /* about 60 splits */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (chdir("/"))
		return -1;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* Parallelism 2 with checkpoints commits what parallelism 1 commits; the
 * finished job restarts to nothing, at 2 and rescaled to 1 and 3; a
 * restore with another max parallelism is refused, naming the option. */
static void check_backend(const char *be)
{
	char ref[32], par[32];
	snprintf(ref, sizeof(ref), "ref-%s", be);
	snprintf(par, sizeof(par), "p2-%s", be);
	run_to_end(ref, 0, be);
	run_to_end(par, 2, be);
	int n1, n2;
	char *a = committed(ref, &n1), *b = committed(par, &n2);
	assert_true(n1 > 50000); /* the join's ~55 900 rows among them */
	assert_int_equal(n1, n2);
	assert_string_equal(a, b);
	free(b);
	/* the finished job restarts to nothing */
	sl_engine *e = open_job(par, 2, be, NULL);
	assert_int_equal(sl_run(e), 0);
	assert_true(sl_job_finished(e));
	sl_engine_close(e);
	b = committed(par, &n2);
	assert_string_equal(a, b);
	free(b);
	free(a);
	/* another parallelism (a rescale): the finished job still emits nothing */
	for (int p = 1; p <= 3; p += 2) {
		e = open_job(par, p, be, NULL);
		assert_int_equal(sl_run(e), 0);
		assert_true(sl_job_finished(e));
		sl_engine_close(e);
	}
	b = committed(par, &n2);
	assert_int_equal(n1, n2);
	free(b);
	/* another max parallelism: refused, naming it */
	maxp = "256";
	char sqlerr[512] = "";
	sl_engine *x = open_job_rc(par, 3, be, sqlerr, sizeof(sqlerr));
	maxp = NULL;
	assert_null(x);
	assert_non_null(strstr(sqlerr, "pipeline.max-parallelism"));
}

static void test_hashmap(void **state)
{
	(void)state;
	check_backend("hashmap");
}

static void test_rocksdb(void **state)
{
	(void)state;
	check_backend("rocksdb");
}

static void *stopper(void *arg)
{
	struct timespec ts = {0, 30 * 1000000};
	nanosleep(&ts, NULL);
	sl_stop(arg);
	return NULL;
}

struct stop_arg {
	sl_engine *e;
	int ms;
};

static void *stopper_ms(void *arg)
{
	struct stop_arg *a = arg;
	struct timespec ts = {a->ms / 1000, (long)(a->ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
	sl_stop(a->e);
	return NULL;
}

/* Stop with a savepoint at 2, resume from it at 2: every row once. */
static void test_savepoint(void **state)
{
	(void)state;
	run_to_end("sref", 0, "hashmap");
	sl_engine *e = open_job("sp", 2, "hashmap", NULL);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, stopper, e), 0);
	int rc = sl_run(e);
	pthread_join(th, NULL);
	assert_int_equal(rc, 0);
	char path[512] = "";
	int finished = sl_job_finished(e);
	if (!finished && sl_stop_complete(e, 0, path, sizeof(path)))
		fail_msg("savepoint: %s", sl_errmsg(e));
	sl_engine_close(e);
	if (!finished) {
		assert_true(path[0] != 0);
		e = open_job("sp", 2, "hashmap", path);
		if (sl_run(e))
			fail_msg("resume: %s", sl_errmsg(e));
		assert_true(sl_job_finished(e));
		sl_engine_close(e);
	}
	int n1, n2;
	char *a = committed("sref", &n1), *b = committed("sp", &n2);
	assert_int_equal(n1, n2);
	assert_string_equal(a, b);
	free(a);
	free(b);
}

/*
 * Rescaling (docs/parallel.md §7): savepoints taken and restored along
 * parallelism 3 -> 1 -> 3 -> 2 (each stage stopped with a savepoint after
 * `ms` milliseconds, the last one run to its end) commit what an
 * uninterrupted run commits, every row once; on backend be.
 */
static void rescale_chain(const char *be, int ms)
{
	char ref[32], tag[32];
	snprintf(ref, sizeof(ref), "rref-%s", be);
	snprintf(tag, sizeof(tag), "rs-%s", be);
	run_to_end(ref, 0, be);
	static const int pars[] = {3, 1, 3, 2};
	char path[512] = "";
	int stopped = 0;
	for (int st = 0; st < 4; st++) {
		sl_engine *e = open_job(tag, pars[st], be, path[0] ? path : NULL);
		pthread_t th;
		struct stop_arg a = {e, ms};
		if (st < 3)
			assert_int_equal(pthread_create(&th, NULL, stopper_ms, &a), 0);
		int rc = sl_run(e);
		if (st < 3)
			pthread_join(th, NULL);
		if (rc)
			fail_msg("stage %d (parallelism %d): %s", st, pars[st], sl_errmsg(e));
		int finished = sl_job_finished(e);
		path[0] = 0;
		if (!finished) {
			if (sl_stop_complete(e, 0, path, sizeof(path)))
				fail_msg("savepoint at stage %d: %s", st, sl_errmsg(e));
			stopped++;
		}
		sl_engine_close(e);
		if (finished)
			break;
	}
	print_message("rescale on %s: %d of 3 stages stopped with a savepoint\n", be, stopped);
	assert_true(stopped >= 1);
	int n1, n2;
	char *a = committed(ref, &n1), *b = committed(tag, &n2);
	assert_int_equal(n1, n2);
	assert_string_equal(a, b);
	free(a);
	free(b);
}

static void test_rescale_hashmap(void **state)
{
	(void)state;
	rescale_chain("hashmap", 25);
}

static void test_rescale_rocksdb(void **state)
{
	(void)state;
	rescale_chain("rocksdb", 60);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hashmap),
		cmocka_unit_test(test_rocksdb),
		cmocka_unit_test(test_savepoint),
		cmocka_unit_test(test_rescale_hashmap),
		cmocka_unit_test(test_rescale_rocksdb),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
