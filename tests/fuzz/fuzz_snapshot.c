/*
 * fuzz_snapshot.c - libFuzzer target for the job snapshot reader
 * (sl_restore: graph header, per-operator records, operator restore hooks,
 * the state backend's tables), through the public API only.
 *
 * Each input: a fresh engine with a push table, a TUMBLE window aggregate
 * (SUM over DECIMAL, COUNT, MAX) and a non-window GROUP BY into push
 * sinks, then sl_restore(e, data, n).  Whatever restore returns, the job
 * then gets a few rows, end of input and a poll, so that state accepted
 * by the reader is also used (fired, encoded, freed).  Any crash,
 * sanitizer report or leak is a bug; SL_ESTATE and other errors are the
 * expected answer to damaged bytes.
 *
 * The seed corpus (tests/fuzz/corpus/snapshot/) holds real snapshots of
 * this job taken at a few points, in both state formats: job_after_* with
 * ungrouped tables (checkpoint format version 1), job_v2_after_* with
 * tables grouped by key group (version 2, docs/state.md); regenerate the
 * current format's with
 *   build-fuzz/fuzz_snapshot -runs=0 with FUZZ_SNAPSHOT_SEED=dir set
 * (see write_seeds below).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static const char *DDL =
	"CREATE TABLE t (k STRING, v BIGINT, amt DECIMAL(10, 2), ts TIMESTAMP(3),"
	"  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'push');"
	"CREATE TABLE o1 (k STRING, ws TIMESTAMP(3), s DECIMAL(38, 2), c BIGINT, m BIGINT)"
	"  WITH ('connector' = 'push');"
	"CREATE TABLE o2 (k STRING, c BIGINT, s BIGINT) WITH ('connector' = 'push');";

static const char *JOB =
	"INSERT INTO o1 SELECT k, window_start, SUM(amt), COUNT(*), MAX(v)"
	"  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))"
	"  GROUP BY k, window_start, window_end ALLOWED LATENESS INTERVAL '3' SECOND;"
	"INSERT INTO o2 SELECT k, COUNT(*), SUM(v) FROM t GROUP BY k;";

static const char ROWS[] =
	"{\"k\": \"a\", \"v\": 1, \"amt\": 1.50, \"ts\": \"2026-01-01 00:00:01\"}\n"
	"{\"k\": \"b\", \"v\": null, \"amt\": 2.25, \"ts\": \"2026-01-01 00:00:04\"}\n"
	"{\"k\": \"a\", \"v\": 7, \"amt\": null, \"ts\": \"2026-01-01 00:00:09\"}\n"
	"{\"k\": \"c\", \"v\": -3, \"amt\": 0.01, \"ts\": \"2026-01-01 00:00:02\"}\n";

static void drop_row(void *ctx, const char *table, sl_rowkind kind, const char *json, size_t len)
{
	(void)ctx, (void)table, (void)kind, (void)json, (void)len;
}

static sl_engine *open_job(void)
{
	sl_engine *e;
	if (sl_engine_open(&e))
		return NULL;
	if (sl_exec(e, DDL) || sl_exec(e, JOB)) {
		fprintf(stderr, "fuzz_snapshot: setup failed: %s\n", sl_errmsg(e));
		abort();
	}
	return e;
}

/* With FUZZ_SNAPSHOT_SEED=dir: writes snapshots of the job after 0, 2 and 4
 * rows into dir (the seed corpus), once, at start-up. */
static void write_seeds(const char *dir)
{
	for (int upto = 0; upto <= 4; upto += 2) {
		sl_engine *e = open_job();
		const char *p = ROWS;
		for (int i = 0; i < upto; i++)
			p = strchr(p, '\n') + 1;
		sl_push_json_lines(e, "t", ROWS, (size_t)(p - ROWS));
		void *buf;
		size_t len;
		if (sl_snapshot(e, &buf, &len) == 0) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/job_after_%d_rows.snap", dir, upto);
			FILE *f = fopen(path, "wb");
			if (f) {
				fwrite(buf, 1, len, f);
				fclose(f);
			}
			free(buf);
		}
		sl_engine_close(e);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	const char *dir = getenv("FUZZ_SNAPSHOT_SEED");
	if (dir)
		write_seeds(dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	sl_engine *e = open_job();
	if (!e)
		return 0;
	if (sl_restore(e, d, n) == 0) {
		sl_push_json_lines(e, "t", ROWS, sizeof(ROWS) - 1);
		sl_push_end(e, "t");
		sl_poll(e, drop_row, NULL);
		sl_job_stats(e, 1);
	}
	sl_engine_close(e);
	return 0;
}
