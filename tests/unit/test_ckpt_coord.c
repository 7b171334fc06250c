/*
 * test_ckpt_coord.c - the checkpoint coordinator (src/runtime/ckpt_coord.c)
 * and the run loop (src/runtime/run.c) driving the checkpoint hooks of the
 * operator method table (src/exec/op.h), with operators made up here: a
 * source with a commit hook, an operator without hooks, and two "stagers"
 * that log every hook call.  Checks the order of the two phases, that
 * commit comes after the manifest, abort on a failed pre-commit, that
 * recover gets back what pre_commit wrote (and NULL on a fresh start), the
 * final checkpoint of the run loop, a scan's commit hook reaching its
 * source connector, and sl_op_free on operators that never reached a
 * graph.  Each test runs in its own scratch directory (harness.h; the
 * coordinator writes ./sluice-state/<job>).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sluice.h"
#include "harness.h"
#include "exec/graph.h"
#include "exec/join.h"
#include "exec/ops.h"
#include "runtime/ckpt_coord.h"
#include "runtime/run.h"
#include "state/checkpoint.h"

/* ---- made-up operators ---------------------------------------------------- */

static sl_buf calls;       /* "name.hook(args) " per call */
static int fail_pre_commit; /* the stager named "b" fails its pre_commit */
static char ckdir[256];    /* the checkpoints directory of the test */

typedef struct test_op {
	sl_op base;
	const char *name;
	int pumps_left;        /* source: batches before SL_EEOF */
} test_op;

static const char *name_of(sl_op *op)
{
	return ((test_op *)op)->name;
}

static int src_pump(sl_op *op, sl_err *err)
{
	test_op *t = (test_op *)op;
	return t->pumps_left-- > 0 ? 1 : SL_EEOF;
}

static int src_commit(sl_op *op, int64_t id, sl_err *err)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/chk-%" PRId64, ckdir, id);
	sl_buf_printf(&calls, "%s.commit(%" PRId64 ",manifest=%d) ", name_of(op), id,
	              sl_ckpt_has_manifest(path));
	return 0;
}

static int nop_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	return 0;
}

static int stage_pre_commit(sl_op *op, int64_t id, sl_snap_writer *w, sl_err *err)
{
	sl_buf_printf(&calls, "%s.pre_commit(%" PRId64 ") ", name_of(op), id);
	if (fail_pre_commit && !strcmp(name_of(op), "b"))
		return sl_err_set(err, SL_EIO, "b cannot stage");
	char blob[64];
	snprintf(blob, sizeof(blob), "%s-staged-%" PRId64, name_of(op), id);
	sl_snap_put_bytes(w, blob, strlen(blob));
	return 0;
}

static int stage_commit(sl_op *op, int64_t id, sl_err *err)
{
	sl_buf_printf(&calls, "%s.commit(%" PRId64 ") ", name_of(op), id);
	return 0;
}

static int stage_abort(sl_op *op, int64_t id, sl_err *err)
{
	sl_buf_printf(&calls, "%s.abort(%" PRId64 ") ", name_of(op), id);
	return 0;
}

static int stage_recover(sl_op *op, sl_snap_reader *r, sl_err *err)
{
	if (!r) {
		sl_buf_printf(&calls, "%s.recover(NULL) ", name_of(op));
		return 0;
	}
	size_t n;
	const char *b = sl_snap_get_bytes(r, &n);
	sl_buf_printf(&calls, "%s.recover(%.*s) ", name_of(op), (int)n, b ? b : "");
	return 0;
}

static const sl_op_vtab src_vtab = {.name = "TestSource", .pump = src_pump,
                                    .commit = src_commit};
static const sl_op_vtab plain_vtab = {.name = "Plain", .process = nop_process};
static const sl_op_vtab stage_vtab = {.name = "Stager", .process = nop_process,
                                      .pre_commit = stage_pre_commit, .commit = stage_commit,
                                      .abort = stage_abort, .recover = stage_recover};

/* ---- harness --------------------------------------------------------------- */

typedef struct job {
	sl_arena arena;
	sl_opts opts;
	sl_state_backend *be;
	sl_graph g;
	sl_coord c;
	sl_err err;
	test_op *src;
} job;

static sl_op *add(job *j, const sl_op_vtab *vt, const char *name, const char *uid, int nin)
{
	test_op *t = calloc(1, sizeof(*t));
	assert_non_null(t);
	t->base.vt = vt;
	t->name = name;
	snprintf(t->base.uid, sizeof(t->base.uid), "%s", uid);
	sl_type ty = sl_type_make(SL_T_BIGINT);
	const char *cn = "x";
	assert_int_equal(sl_graph_add(&j->g, &t->base, nin, 1, &ty, &cn), 0);
	return &t->base;
}

/* src -> plain -> a, plain -> b; a and b stage, src commits. */
static void job_open(job *j, int pumps)
{
	memset(j, 0, sizeof(*j));
	sl_arena_init(&j->arena, 4096);
	sl_opts_init(&j->opts, &j->arena);
	sl_opts_set(&j->opts, "execution.checkpointing.interval", "1 h");
	sl_opts_set(&j->opts, "pipeline.name", "coord-test");
	assert_int_equal(sl_state_backend_open("hashmap", &j->be, &j->err), 0);
	sl_graph_init(&j->g, j->be);
	sl_op *s = add(j, &src_vtab, "src", "u-src", 0);
	sl_op *p = add(j, &plain_vtab, "plain", "u-plain", 1);
	sl_op *a = add(j, &stage_vtab, "a", "u-a", 1);
	sl_op *b = add(j, &stage_vtab, "b", "u-b", 1);
	assert_int_equal(sl_graph_connect(&j->g, s, p, 0), 0);
	assert_int_equal(sl_graph_connect(&j->g, p, a, 0), 0);
	assert_int_equal(sl_graph_connect(&j->g, p, b, 0), 0);
	j->src = (test_op *)s;
	j->src->pumps_left = pumps;
	sl_coord_init(&j->c);
	assert_int_equal(sl_coord_prepare(&j->c, &j->opts, &j->g, j->be, &j->err), 0);
	assert_int_equal(j->c.on, 1);
	snprintf(ckdir, sizeof(ckdir), "%s", j->c.dir);
	assert_int_equal(sl_graph_open(&j->g, &j->err), 0);
}

static void job_close(job *j)
{
	sl_coord_close(&j->c);
	sl_graph_deinit(&j->g);
	sl_state_backend_close(j->be);
	sl_arena_deinit(&j->arena);
}

static char tmpdir[4096], olddir[4096];

static int setup(void **state)
{
	assert_non_null(getcwd(olddir, sizeof(olddir)));
	assert_int_equal(th_tmpdir(tmpdir, sizeof(tmpdir), "sl_coord"), 0);
	assert_int_equal(chdir(tmpdir), 0);
	sl_buf_init(&calls);
	fail_pre_commit = 0;
	return 0;
}

static int teardown(void **state)
{
	assert_int_equal(chdir(olddir), 0);
	if (th_rmtree(tmpdir))
		return -1;
	sl_buf_deinit(&calls);
	return 0;
}

/* ---- tests ----------------------------------------------------------------- */

/* Phase 1 on every operator with pre_commit, then the manifest, then phase
 * 2 on every operator with commit (the source after the manifest is
 * durable), in graph order; the operator without hooks is skipped. */
static void test_two_phases(void **state)
{
	job j;
	job_open(&j, 5);
	int fin = -1;
	assert_int_equal(sl_coord_restore(&j.c, &fin), 0);
	assert_int_equal(fin, 0);
	assert_string_equal(sl_buf_cstr(&calls), "a.recover(NULL) b.recover(NULL) ");
	sl_buf_clear(&calls);
	assert_int_equal(sl_coord_take(&j.c, 0, 0, NULL, 0), 0);
	assert_string_equal(sl_buf_cstr(&calls), "a.pre_commit(1) b.pre_commit(1) "
	                                         "src.commit(1,manifest=1) a.commit(1) b.commit(1) ");
	job_close(&j);
}

/* A failed pre-commit aborts the checkpoint: no manifest, every abort hook
 * runs, no commit, and the error comes back. */
static void test_abort(void **state)
{
	job j;
	job_open(&j, 5);
	int fin;
	assert_int_equal(sl_coord_restore(&j.c, &fin), 0);
	sl_buf_clear(&calls);
	fail_pre_commit = 1;
	assert_int_equal(sl_coord_take(&j.c, 0, 0, NULL, 0), SL_EIO);
	assert_non_null(strstr(j.err.msg, "b cannot stage"));
	assert_string_equal(sl_buf_cstr(&calls), "a.pre_commit(1) b.pre_commit(1) "
	                                         "a.abort(1) b.abort(1) ");
	assert_int_equal(sl_ckpt_has_manifest("./sluice-state/coord-test/checkpoints/chk-1"), 0);
	job_close(&j);
}

/* recover gets back exactly what each operator's pre_commit wrote for the
 * restored checkpoint, matched by uid. */
static void test_recover(void **state)
{
	job j;
	job_open(&j, 5);
	int fin;
	assert_int_equal(sl_coord_restore(&j.c, &fin), 0);
	assert_int_equal(sl_coord_take(&j.c, 0, 0, NULL, 0), 0);
	assert_int_equal(sl_coord_take(&j.c, 0, 0, NULL, 0), 0);
	job_close(&j);

	sl_buf_clear(&calls);
	job_open(&j, 5);
	assert_int_equal(sl_coord_restore(&j.c, &fin), 0);
	assert_int_equal(fin, 0);
	assert_int_equal(j.c.restored_id, 2);
	assert_string_equal(sl_buf_cstr(&calls), "a.recover(a-staged-2) b.recover(b-staged-2) ");
	assert_int_equal(j.c.next_id, 3);
	job_close(&j);
}

/* The run loop: sources until they end, then the final checkpoint, whose
 * commit hooks run before sl_runtime_run returns; a restart of the finished
 * job knows it has finished. */
static void test_run_loop_final_checkpoint(void **state)
{
	job j;
	job_open(&j, 3);
	int fin;
	assert_int_equal(sl_coord_restore(&j.c, &fin), 0);
	sl_buf_clear(&calls);
	assert_int_equal(sl_runtime_run(&j.g, &j.c, &j.err), 1);
	assert_int_equal(j.src->pumps_left, -1); /* three batches, then SL_EEOF */
	assert_string_equal(sl_buf_cstr(&calls), "a.pre_commit(1) b.pre_commit(1) "
	                                         "src.commit(1,manifest=1) a.commit(1) b.commit(1) ");
	job_close(&j);
	job_open(&j, 3);
	assert_int_equal(sl_coord_restore(&j.c, &fin), 0);
	assert_int_equal(fin, 1);
	job_close(&j);
}

/* sl_op_free frees an operator that never reached a graph (constructed
 * only), and a sink operator owning its connector; ASan / valgrind see no
 * leak. */
static void test_op_free_unregistered(void **state)
{
	sl_err err;
	sl_err_clear(&err);
	sl_type t = sl_type_make(SL_T_BIGINT);
	sl_op *calc = sl_op_calc_new(NULL, NULL, 0, &t, 1, &err);
	assert_non_null(calc);
	sl_op_free(calc);
	sl_op_free(NULL);
	sl_opts o;
	sl_arena a;
	sl_arena_init(&a, 1024);
	sl_opts_init(&o, &a);
	sl_field f = {.name = "x", .type = t};
	sl_conn_args ca = {.table = "t", .fields = &f, .nfields = 1, .opts = &o};
	sl_sink *k = sl_sink_new(sl_sink_find("blackhole"), &ca, &err);
	assert_non_null(k);
	sl_op *sink = sl_op_sink_new(k, &err);
	assert_non_null(sink);
	sl_op_free(sink);
	sl_arena_deinit(&a);
	/* a constructor that fails after allocating (the interval join copies
	 * its plan, then refuses a plan without rowtimes) frees itself through
	 * sl_op_free */
	sl_join_plan jp = {.kind = SL_JOIN_INNER, .nl = 1, .nr = 1, .ltypes = &t, .rtypes = &t,
	                   .ltime = -1, .rtime = -1};
	assert_null(sl_op_interval_join_new(&jp, &err));
	assert_int_equal(err.code, SL_EPLAN);
}

static int64_t source_committed;

static int fake_source_commit(sl_source *s, int64_t id, sl_err *err)
{
	source_committed = id;
	return 0;
}

static int64_t source_barrier;

static int fake_source_pre_commit(sl_source *s, int64_t id, sl_err *err)
{
	source_barrier = id;
	return 0;
}

static const sl_source_vtab committing_source = {.name = "fake", .size = sizeof(sl_source),
                                                  .commit = fake_source_commit,
                                                  .pre_commit = fake_source_pre_commit};

/* A scan has commit and pre_commit hooks exactly when its source connector
 * has a commit hook, and they reach the connector (pre_commit at the
 * barrier, in the job's process: the Kafka source remembers its offsets
 * there, since the snapshot may be written by a forked child); the
 * built-in file sources (datagen here) have none, so their scans leave the
 * hooks NULL. */
static void test_scan_commit_hook(void **state)
{
	sl_err err;
	sl_err_clear(&err);
	int map = 0;
	sl_source *src = calloc(1, sizeof(*src));
	assert_non_null(src);
	src->vt = &committing_source;
	src->table = "t";
	sl_scan_plan sp = {.source = src, .table = "t", .out_map = &map, .rowtime_col = -1};
	sl_op *scan = sl_op_scan_new(&sp, &err);
	assert_non_null(scan);
	assert_non_null(scan->vt->commit);
	assert_non_null(scan->vt->pre_commit);
	source_barrier = 0;
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	assert_int_equal(scan->vt->pre_commit(scan, 7, &w, &err), 0);
	assert_int_equal(source_barrier, 7);
	assert_int_equal(w.len, 0); /* an empty pre-commit record */
	sl_snap_writer_deinit(&w);
	source_committed = 0;
	assert_int_equal(scan->vt->commit(scan, 7, &err), 0);
	assert_int_equal(source_committed, 7);
	sl_op_free(scan); /* frees the source too */

	sl_arena a;
	sl_opts o;
	sl_arena_init(&a, 1024);
	sl_opts_init(&o, &a);
	sl_opts_set(&o, "number-of-rows", "1");
	sl_field f = {.name = "x", .type = sl_type_make(SL_T_BIGINT)};
	sl_conn_args ca = {.table = "g", .fields = &f, .nfields = 1, .opts = &o};
	sl_source *dg = sl_source_new(sl_source_find("datagen"), &ca, &err);
	assert_non_null(dg);
	sp.source = dg;
	sp.table = "g";
	scan = sl_op_scan_new(&sp, &err);
	assert_non_null(scan);
	assert_null(scan->vt->commit);
	assert_null(scan->vt->pre_commit);
	sl_op_free(scan);
	sl_arena_deinit(&a);
}

/* Closing an engine that never planned a job leaves file descriptor 0
 * alone (an idle coordinator used to hold lock_fd 0 and close it). */
static void test_engine_close_keeps_fd0(void **state)
{
	if (fcntl(0, F_GETFD) == -1) /* stdin closed: give fd 0 a file */
		assert_int_equal(open("/dev/null", O_RDONLY), 0);
	int fd = dup(0);
	assert_true(fd >= 0);
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	sl_engine_close(e);
	assert_true(fcntl(0, F_GETFD) != -1);
	/* and after an EXPLAIN, which plans without preparing checkpoints */
	assert_int_equal(sl_engine_open(&e), 0);
	const char *text;
	assert_int_equal(sl_explain(e, "CREATE TABLE s (x INT) WITH ('connector' = 'datagen', "
	                               "'number-of-rows' = '1'); CREATE TABLE k (x INT) WITH "
	                               "('connector' = 'blackhole'); INSERT INTO k SELECT x FROM s;",
	                            &text), 0);
	assert_true(fcntl(0, F_GETFD) != -1);
	sl_engine_close(e);
	assert_true(fcntl(0, F_GETFD) != -1);
	dup2(fd, 0);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_two_phases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recover, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_loop_final_checkpoint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_op_free_unregistered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan_commit_hook, setup, teardown),
		cmocka_unit_test_setup_teardown(test_engine_close_keeps_fd0, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
