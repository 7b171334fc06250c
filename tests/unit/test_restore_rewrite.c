/*
 * test_restore_rewrite.c - savepoints survive harmless rewrites of the
 * query and refuse structural changes (structural operator identity,
 * src/exec/op_ident.c and src/plan/plan_ident.c; docs/semantics.md §3).
 *
 * The job of rewrite_job.h (a GROUP BY and a TUMBLE window aggregate, each
 * behind `WHERE v > 1`) runs part 1 of its input and is snapshotted; the
 * snapshot is restored into
 *   - the job rewritten harmlessly: `WHERE 1 < v`, aliases, the projection
 *     before the aggregate in another column order, other spacing and line
 *     breaks: each continues part 2 with exactly the output of an
 *     uninterrupted run of the job (every aggregate kept its state);
 *   - the job changed structurally: a GROUP BY key of another type,
 *     another aggregate function: refused, naming the operator
 *     (GroupAggregate) whose state the job no longer has;
 * on both state backends.  Before structural ids, each rewrite changed the
 * aggregates' ids (they were hashes of label text chained through the
 * Calc's `where=[(v > 1)]`) and was refused like a structural change.
 *
 * The savepoint of the same job written by the sluice before structural
 * ids (tests/fixtures/snap-v1/rewrite.snap, its operators named by their
 * label-hash ids) restores into the unchanged job with the uninterrupted
 * output; it cannot follow a rewrite at once (its ids are the label
 * hashes), but the job's next snapshot has structural ids and does.
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
#include "rewrite_job.h"

#define OUT_CAP 16384

/* Harmless rewrites of RW_JOB: every operator with state keeps its id. */
static const char *const REWRITES[] = {
	/* the filter's operands swapped */
	"EXECUTE STATEMENT SET BEGIN "
	"INSERT INTO agg_out SELECT k, COUNT(*), SUM(v) FROM (SELECT k, v FROM t WHERE 1 < v) "
	"  GROUP BY k; "
	"INSERT INTO win_out SELECT k, window_start, COUNT(*), MAX(v) FROM TABLE(TUMBLE(TABLE t, "
	"  DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE 1 < v GROUP BY k, window_start, window_end; "
	"END",
	/* aliases, before and after the aggregates */
	"EXECUTE STATEMENT SET BEGIN "
	"INSERT INTO agg_out SELECT kk AS key_col, COUNT(*) AS cnt, SUM(vv) AS total "
	"  FROM (SELECT k AS kk, v AS vv FROM t WHERE v > 1) AS sub GROUP BY kk; "
	"INSERT INTO win_out SELECT k AS key_col, window_start AS ws, COUNT(*) AS n, MAX(v) AS mx "
	"  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) AS w WHERE v > 1 "
	"  GROUP BY k, window_start, window_end; "
	"END",
	/* the projection before the GROUP BY in another column order */
	"EXECUTE STATEMENT SET BEGIN "
	"INSERT INTO agg_out SELECT k, COUNT(*), SUM(v) FROM (SELECT v, k FROM t WHERE v > 1) "
	"  GROUP BY k; "
	"INSERT INTO win_out SELECT k, window_start, COUNT(*), MAX(v) FROM TABLE(TUMBLE(TABLE t, "
	"  DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE v > 1 GROUP BY k, window_start, window_end; "
	"END",
	/* other spacing, line breaks and keyword case */
	"execute   statement set\nbegin\n"
	"insert into agg_out\n  select k ,count( * ) ,sum( v )\n  from ( select k,v from t where v>1 )\n"
	"  group by k;\n"
	"insert into win_out\n  select k, window_start, count(*), max(v)\n"
	"  from table( tumble( table t, descriptor(ts), interval '10' second ) )\n"
	"  where v >   1\n  group by k, window_start, window_end;\nend",
};

/* Structural changes of the GROUP BY statement: its state is refused. */
static const char *const CHANGES[] = {
	/* the GROUP BY key of another type (BIGINT instead of INT) */
	"EXECUTE STATEMENT SET BEGIN "
	"INSERT INTO agg_out SELECT CAST(k AS INT), COUNT(*), SUM(v) FROM "
	"  (SELECT CAST(k AS BIGINT) AS k, v FROM t WHERE v > 1) GROUP BY k; "
	"INSERT INTO win_out SELECT k, window_start, COUNT(*), MAX(v) FROM TABLE(TUMBLE(TABLE t, "
	"  DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE v > 1 GROUP BY k, window_start, window_end; "
	"END",
	/* another aggregate function (MAX instead of SUM) */
	"EXECUTE STATEMENT SET BEGIN "
	"INSERT INTO agg_out SELECT k, COUNT(*), MAX(v) FROM (SELECT k, v FROM t WHERE v > 1) "
	"  GROUP BY k; "
	"INSERT INTO win_out SELECT k, window_start, COUNT(*), MAX(v) FROM TABLE(TUMBLE(TABLE t, "
	"  DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE v > 1 GROUP BY k, window_start, window_end; "
	"END",
};

#define NREWRITES ((int)(sizeof(REWRITES) / sizeof(REWRITES[0])))
#define NCHANGES ((int)(sizeof(CHANGES) / sizeof(CHANGES[0])))

static const char *g_backend = "hashmap";

/* Appends "<table> <kind> <json>\n" to the OUT_CAP buffer ctx. */
static void collect(void *ctx, const char *table, sl_rowkind kind, const char *json,
                    size_t len)
{
	static const char *const kinds[] = {"+I", "-U", "+U", "-D"};
	char *out = ctx;
	size_t n = strlen(out);
	int w = snprintf(out + n, OUT_CAP - n, "%s %s %.*s\n", table, kinds[kind], (int)len, json);
	assert_true(w > 0 && n + (size_t)w < OUT_CAP);
}

static sl_engine *start(const char *job)
{
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_set(e, "state.backend.type", g_backend), 0);
	assert_int_equal(sl_exec(e, RW_DDL), 0);
	int rc = sl_exec(e, job);
	if (rc)
		print_error("%s\n", sl_errmsg(e));
	assert_int_equal(rc, 0);
	return e;
}

/* Pushes rows into t and appends what the job emits to out. */
static void feed(sl_engine *e, const char *rows, char *out)
{
	int rc = sl_push_json_lines(e, "t", rows, strlen(rows));
	if (rc)
		print_error("%s\n", sl_errmsg(e));
	assert_int_equal(rc, 0);
	assert_true(sl_poll(e, collect, out) >= 0); /* rows polled */
}

/* The uninterrupted run: its output of part 1 (out1) and of part 2 (out2). */
static void reference(char *out1, char *out2)
{
	sl_engine *e = start(RW_JOB);
	out1[0] = out2[0] = 0;
	feed(e, RW_PART1, out1);
	feed(e, RW_PART2, out2);
	sl_engine_close(e);
}

/* A snapshot of RW_JOB after part 1 (free it). */
static void *snapshot_part1(size_t *len)
{
	sl_engine *e = start(RW_JOB);
	char *out = calloc(1, OUT_CAP);
	feed(e, RW_PART1, out);
	void *snap;
	assert_int_equal(sl_snapshot(e, &snap, len), 0);
	sl_engine_close(e);
	free(out);
	return snap;
}

/* Restores snap into `job` and runs part 2 into out (the error message
 * when the restore fails); returns sl_restore's code. */
static int resume(const char *job, const void *snap, size_t len, char *out)
{
	sl_engine *e = start(job);
	out[0] = 0;
	int rc = sl_restore(e, snap, len);
	if (rc)
		snprintf(out, OUT_CAP, "%s", sl_errmsg(e));
	else
		feed(e, RW_PART2, out);
	sl_engine_close(e);
	return rc;
}

/* Restores snap into job: the same output as the uninterrupted run. */
static void expect_continues(const char *what, const char *job, const void *snap, size_t len,
                             const char *want)
{
	char *out = calloc(1, OUT_CAP);
	int rc = resume(job, snap, len, out);
	if (rc || strcmp(out, want))
		print_error("%s (%s): %s\n  got:\n%s  want:\n%s", what, g_backend,
		            rc ? "refused" : "other output", out, want);
	assert_int_equal(rc, 0);
	assert_string_equal(out, want);
	free(out);
}

/* Restores snap into job: refused, naming the GROUP BY operator. */
static void expect_refused(const char *what, const char *job, const void *snap, size_t len)
{
	char *out = calloc(1, OUT_CAP);
	int rc = resume(job, snap, len, out);
	if (!rc || !strstr(out, "no longer has") || !strstr(out, "GroupAggregate (") ||
	    strstr(out, "WindowAggregate"))
		print_error("%s (%s): %s\n", what, g_backend, rc ? out : "restored");
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(out, "no longer has"));
	assert_non_null(strstr(out, "GroupAggregate ("));
	assert_null(strstr(out, "WindowAggregate")); /* its state is kept */
	free(out);
}

static void rewrites(void)
{
	char *out1 = calloc(1, OUT_CAP), *out2 = calloc(1, OUT_CAP);
	reference(out1, out2);
	/* the part-2 output depends on the state (counts go on, the window
	 * of 10:00:10 of key 2 holds a row of part 1) */
	assert_non_null(strstr(out2, "agg_out +U {\"k\":1,\"n\":3,\"s\":10}"));
	assert_non_null(strstr(out2, "win_out +I {\"k\":2,\"ws\":\"2026-01-01 10:00:10\",\"n\":1"));
	size_t len;
	void *snap = snapshot_part1(&len);
	expect_continues("the unchanged job", RW_JOB, snap, len, out2);
	for (int i = 0; i < NREWRITES; i++) {
		char what[32];
		snprintf(what, sizeof(what), "rewrite %d", i);
		expect_continues(what, REWRITES[i], snap, len, out2);
	}
	for (int i = 0; i < NCHANGES; i++) {
		char what[32];
		snprintf(what, sizeof(what), "structural change %d", i);
		expect_refused(what, CHANGES[i], snap, len);
	}
	free(snap);
	free(out1);
	free(out2);
}

static void test_rewrites_hashmap(void **st)
{
	(void)st;
	g_backend = "hashmap";
	rewrites();
}

static void test_rewrites_rocksdb(void **st)
{
	(void)st;
	g_backend = "rocksdb";
	rewrites();
}

/* Reads the savepoint of the sluice before structural ids. */
static void *read_fixture(size_t *len)
{
	FILE *f = fopen("tests/fixtures/snap-v1/rewrite.snap", "rb");
	assert_non_null(f);
	char *buf = malloc(1 << 20);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	assert_true(*len > 4 && *len < (1 << 20));
	assert_memory_equal(buf, "2GLS", 4); /* "SLG2": operators by label-hash id */
	return buf;
}

static void label_fixture(void)
{
	char *out1 = calloc(1, OUT_CAP), *out2 = calloc(1, OUT_CAP);
	reference(out1, out2);
	size_t len;
	void *old = read_fixture(&len);
	/* the unchanged job resumes it by the label-hash ids */
	expect_continues("the savepoint before structural ids", RW_JOB, old, len, out2);
	/* a rewrite changes label-hash ids: refused as before */
	char *out = calloc(1, OUT_CAP);
	assert_int_not_equal(resume(REWRITES[0], old, len, out), 0);
	assert_non_null(strstr(out, "no longer has"));
	/* restored once, the job's next snapshot has structural ids: it
	 * follows every rewrite */
	sl_engine *e = start(RW_JOB);
	assert_int_equal(sl_restore(e, old, len), 0);
	void *snap;
	size_t slen;
	assert_int_equal(sl_snapshot(e, &snap, &slen), 0);
	sl_engine_close(e);
	assert_memory_equal(snap, "3GLS", 4);
	for (int i = 0; i < NREWRITES; i++) {
		char what[48];
		snprintf(what, sizeof(what), "rewrite %d after the upgrade", i);
		expect_continues(what, REWRITES[i], snap, slen, out2);
	}
	free(snap);
	free(old);
	free(out);
	free(out1);
	free(out2);
}

static void test_label_fixture(void **st)
{
	(void)st;
	g_backend = "hashmap";
	label_fixture();
	g_backend = "rocksdb";
	label_fixture();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rewrites_hashmap),
		cmocka_unit_test(test_rewrites_rocksdb),
		cmocka_unit_test(test_label_fixture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
