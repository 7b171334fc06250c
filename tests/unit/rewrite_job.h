/*
 * rewrite_job.h - the job, its input and its rewrites shared by
 * tests/unit/test_restore_rewrite.c and the program that wrote the
 * savepoint of the sluice before structural ids,
 * tests/fixtures/snap-v1/make_snap.c.  Change neither the job nor the
 * rows: the fixture is a snapshot of this job after RW_PART1.
 *
 * Two statements over a push table: a GROUP BY behind a filter, and a
 * TUMBLE window aggregate behind the same filter (its first window fires
 * in part 1, the next two are open or fire in part 2).
 */
#ifndef SLUICE_TEST_REWRITE_JOB_H
#define SLUICE_TEST_REWRITE_JOB_H

#define RW_DDL                                                                              \
	"CREATE TABLE t (k INT, v INT, ts TIMESTAMP(3), "                                   \
	"  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'push');"     \
	"CREATE TABLE agg_out (k INT, n BIGINT, s INT, PRIMARY KEY (k) NOT ENFORCED) "      \
	"  WITH ('connector' = 'push');"                                                    \
	"CREATE TABLE win_out (k INT, ws TIMESTAMP(3), n BIGINT, mx INT) "                  \
	"  WITH ('connector' = 'push');"

/* The job as the savepoint was taken of it. */
#define RW_JOB                                                                              \
	"EXECUTE STATEMENT SET BEGIN "                                                      \
	"INSERT INTO agg_out SELECT k, COUNT(*), SUM(v) FROM (SELECT k, v FROM t WHERE v > 1) " \
	"  GROUP BY k; "                                                                    \
	"INSERT INTO win_out SELECT k, window_start, COUNT(*), MAX(v) FROM TABLE(TUMBLE(TABLE t, " \
	"  DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE v > 1 GROUP BY k, window_start, window_end; " \
	"END"

#define RW_ROW(k, v, s) "{\"k\": " #k ", \"v\": " #v ", \"ts\": \"2026-01-01 10:00:" #s "\"}\n"

#define RW_PART1                                                                            \
	RW_ROW(1, 5, 01) RW_ROW(2, 1, 02) RW_ROW(1, 3, 04) RW_ROW(3, 7, 09) RW_ROW(2, 4, 12)

#define RW_PART2                                                                            \
	RW_ROW(1, 2, 13) RW_ROW(3, 9, 15) RW_ROW(2, 1, 16) RW_ROW(1, 8, 18) RW_ROW(2, 6, 25) \
	RW_ROW(3, 4, 31)

#endif
