/*
 * engine.c - the engine handle behind include/sluice.h.
 *
 * sl_exec parses a script and applies it statement by statement: DDL
 * (tables, views, CREATE / DROP FUNCTION) and SET at once, SHOW / DESCRIBE
 * and EXPLAIN into the statement output (sl_explain_text); the statements
 * that write (INSERT INTO, bare SELECT,
 * statement sets) are collected and planned together as one job when the
 * script ends, so they share their sources.  The job is opened at once
 * (every planning error comes before any input is read) and then driven
 * by sl_run (sources that end or run forever: the run loop and the
 * checkpoint coordinator of src/runtime/) or by sl_push_* (push tables).
 * One job per engine.  This file is the public API's glue: the runtime
 * lives in src/runtime/ and src/exec/.
 *
 * With 'sluice.scale-out' = 'kafka-group' a process without
 * 'sluice.scale-out.partition' is the scale-out's member: start_job plans
 * and checks the job like EXPLAIN and opens nothing (scaleout.c runs it);
 * a child sets up its partition's job before opening it (scaleout.c).
 *
 * After a fatal error, sinks still publish what was written before it
 * (docs/semantics.md §3), and so they do at a clean stop without
 * checkpointing (sl_stop_complete); the error message is the first line of
 * sl_errmsg.
 */
#include "engine_int.h"
#include "../exec/ops.h"
#include "../plan/plan.h"
#include "../data/keygroup.h"
#include "../runtime/cpus.h"
#include "../runtime/instantiate.h"
#include "../runtime/prun.h"
#include "../runtime/run.h"
#include "../sql/parser.h"
#include "../base/timeutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *sl_version(void)
{
	return "0.1.0";
}

int sl_engine_open(sl_engine **out)
{
	sl_engine *e = calloc(1, sizeof(*e));
	if (!e)
		return SL_ENOMEM;
	sl_catalog_init(&e->cat);
	sl_arena_init(&e->opt_arena, 4096);
	sl_opts_init(&e->session, &e->opt_arena);
	sl_arena_init(&e->job_arena, 64 * 1024);
	sl_coord_init(&e->ck);
	pthread_mutex_init(&e->queue_mu, NULL);
	pthread_mutex_init(&e->job_mu, NULL);
	e->proc_manual = -1;
	*out = e;
	return 0;
}

static void job_close(sl_engine *e)
{
	sl__metrics_job_close(e); /* no snapshot walks it from here on */
	sl_coord_close(&e->ck);
	if (!e->job)
		return;
	sl_prun_free(e->prun); /* joins its threads first */
	e->prun = NULL;
	sl_graph_deinit(&e->graph);
	sl_state_backend_close(e->state);
	e->state = NULL;
	sl_arena_reset(&e->job_arena);
	e->job = 0;
	e->finished = 0;
	e->failed = 0;
}

void sl_engine_close(sl_engine *e)
{
	if (!e)
		return;
	job_close(e);
	for (int i = 0; i < e->nscripts; i++) {
		sl_arena_deinit(e->scripts[i]);
		free(e->scripts[i]);
	}
	free(e->scripts);
	sl_catalog_deinit(&e->cat);
	sl_arena_deinit(&e->opt_arena);
	sl_arena_deinit(&e->job_arena);
	sl_buf_deinit(&e->explain);
	sl_buf_deinit(&e->explain_out);
	sl_buf_deinit(&e->stats);
	sl_buf_deinit(&e->warnings);
	sl_buf_deinit(&e->queue);
	sl_buf_deinit(&e->queue_spare);
	pthread_mutex_destroy(&e->queue_mu);
	pthread_mutex_destroy(&e->job_mu);
	free(e);
}

const char *sl_errmsg(const sl_engine *e)
{
	return e ? e->err.msg : "no engine";
}

int sl_errinput(const sl_engine *e, const char **file, long long *line)
{
	int has = e && e->err.code && e->err.in_line > 0;
	if (file)
		*file = has ? e->err.in_file : NULL;
	if (line)
		*line = has ? (long long)e->err.in_line : 0;
	return has;
}

int sl_errpos(const sl_engine *e, int *line, int *column)
{
	int has = e && e->err.code && e->err.line > 0;
	if (line)
		*line = has ? e->err.line : 0;
	if (column)
		*column = has ? e->err.col : 0;
	return has;
}

int sl_set(sl_engine *e, const char *key, const char *value)
{
	sl_err_clear(&e->err);
	if (!strcmp(key, "sluice.poll.format"))
		e->queue_text = !strcmp(value, "text");
	if (!strcmp(key, "sluice.select.sink"))
		e->select_to_print = !strcmp(value, "print");
	if (sl_opts_set(&e->session, key, value))
		return sl_err_set(&e->err, SL_ENOMEM, "out of memory");
	return 0;
}

const char *sl_option(sl_engine *e, const char *key)
{
	return sl_opts_get(&e->session, key);
}

/* ---- planning ---------------------------------------------------------- */

/* The check of the state backend's name that opening it does
 * (sl_state_backend_open2), for EXPLAIN, which opens none. */
static int explain_backend(const char *type, sl_err *err)
{
	if (!type || !strcmp(type, "hashmap") || !strcmp(type, "memory") || !strcmp(type, "rocksdb"))
		return 0;
	return sl_err_set(err, SL_EINVAL,
	                  "unknown state backend '%s' (supported: 'hashmap', 'rocksdb')", type);
}

/*
 * The job's parallelism: 'parallelism.default' (explicit: set by the user),
 * by default the CPUs this process may use (cpus.h), at most
 * 'pipeline.max-parallelism', with checkpointing on or off (checkpoints,
 * restores and rescaling work at any parallelism: docs/parallel.md §5, §7).
 * A job reading a push table runs at 1 unless 'parallelism.default' is set
 * (plan_par.c).  0 or SL_EINVAL.
 */
static int job_parallelism(sl_engine *e, int explain_only, int *par, int *explicit_)
{
	int64_t v = 1, maxp = SL_KG_DEFAULT_MAXP;
	*explicit_ = sl_opts_get(&e->session, "parallelism.default") != NULL;
	int rc = sl_opts_int(&e->session, "parallelism.default", sl_cpus_available(), &v, &e->err);
	if (!rc)
		rc = sl_opts_int(&e->session, "pipeline.max-parallelism", SL_KG_DEFAULT_MAXP, &maxp,
		                 &e->err);
	if (rc)
		return rc;
	if (v < 1)
		return sl_err_set(&e->err, SL_EINVAL, "'parallelism.default' must be at least 1, not "
		                  "%lld", (long long)v);
	if (v > maxp && *explicit_)
		return sl_err_set(&e->err, SL_EINVAL, "'parallelism.default' = %lld exceeds "
		                  "'pipeline.max-parallelism' = %lld (the number of key groups)",
		                  (long long)v, (long long)maxp);
	if (v > maxp)
		v = maxp;
	*par = (int)v;
	return 0;
}

static int start_job(sl_engine *e, sl_ast_stmt **stmts, int n, int explain_only)
{
	if (e->job)
		return sl_err_set(&e->err, SL_EINVAL,
		                  "a job is already running in this engine (one job per engine)");
	/* the member of a scale-out plans the job and opens nothing, like
	 * EXPLAIN: its children (one per partition it is given) run it
	 * (scaleout.c) */
	const char *som = sl_opts_get(&e->session, "sluice.scale-out");
	int member = !explain_only && som && !strcmp(som, "kafka-group") &&
	             !sl_opts_get(&e->session, "sluice.scale-out.partition");
	if (member)
		explain_only = 1;
	int rc0 = explain_only ? 0 : sl__scale_out_child(e);
	if (rc0)
		return rc0;
	const char *backend = sl_opts_get2(&e->session, "state.backend.type", "state.backend");
	/* EXPLAIN opens nothing: no backend (RocksDB would create its
	 * directory), only its name is checked */
	int rc = explain_only ? explain_backend(backend, &e->err)
	                      : sl_state_backend_open2(backend, &e->session, NULL, &e->state, &e->err);
	if (rc)
		return rc;
	sl_graph_init(&e->graph, e->state);
	e->graph.proc_manual = e->proc_manual;
	sl_graph_tick(&e->graph);
	const char *allow = sl_opts_get2(&e->session, "execution.savepoint.ignore-unclaimed-state",
	                                 "execution.state-recovery.ignore-unclaimed-state");
	e->graph.allow_non_restored = allow && !strcmp(allow, "true");
	e->graph.ectx.tz = sl_opts_get(&e->session, "table.local-time-zone");
	sl_plan_args pa = {.cat = &e->cat, .session = &e->session, .engine = e,
	                   .push_sink = &sl_push_sink_vtab,
	                   .select_to_queue = !e->select_to_print, .arena = &e->job_arena};
	sl_buf_clear(&e->explain);
	e->job = 1;
	if (!explain_only &&
	    (rc = sl_coord_prepare(&e->ck, &e->session, &e->graph, e->state, &e->err))) {
		job_close(e);
		return rc;
	}
	pa.checkpointing = e->ck.on;
	pa.job = e->ck.job;
	if (explain_only) {
		/* nothing is prepared, but a sink's guarantee (EXPLAIN's
		 * guarantee=[...]) depends on whether checkpointing is on */
		const char *jn = sl_opts_get(&e->session, "pipeline.name");
		if (!jn)
			jn = sl_opts_get(&e->session, "sluice.script-name");
		pa.checkpointing = sl_opts_get(&e->session, "execution.checkpointing.interval") != NULL;
		pa.job = jn ? jn : "explain";
	}
	pa.attempt = e->ck.attempt;
	sl_buf_clear(&e->warnings);
	pa.warnings = &e->warnings;
	if ((rc = job_parallelism(e, explain_only, &pa.parallelism, &pa.parallelism_explicit))) {
		job_close(e);
		return rc;
	}
	sl_pplan *plan = &e->plan;
	sl_scale_out so = {0};
	pa.scale_out = &so;
	rc = sl_plan_job(&pa, stmts, n, plan, &e->explain, &e->err);
	if (!rc && member)
		rc = so.on ? sl__scale_out_member(e, &so)
		           : sl_err_set(&e->err, SL_ERUNTIME, "scale-out: the plan was not checked");
	if (!rc && !explain_only && plan->par > 1) {
		int64_t maxp = SL_KG_DEFAULT_MAXP;
		rc = sl_opts_int(&e->session, "pipeline.max-parallelism", SL_KG_DEFAULT_MAXP, &maxp,
		                 &e->err);
		if (!rc && !(e->prun = sl_prun_new(plan, backend, &e->session, (int)maxp,
		                                   e->proc_manual, e->graph.ectx.tz, &e->err)))
			rc = e->err.code ? e->err.code : SL_ERUNTIME;
		if (!rc) {
			e->prun_push = sl_prun_has_push(e->prun);
			e->prun_values = 0;
		}
		if (!rc && e->ck.on)
			rc = sl_prun_attach_coord(e->prun, &e->ck, &e->err);
	} else if (!rc && !explain_only) {
		rc = sl_instantiate(plan, &e->graph, &e->err);
		if (!rc)
			rc = sl_graph_open(&e->graph, &e->err);
	}
	if (!rc && !explain_only)
		rc = sl_coord_restore(&e->ck, &e->finished);
	if (rc || explain_only)
		job_close(e);
	else
		sl__metrics_job_open(e);
	if (!rc && !explain_only && e->finished)
		sl__metrics_status(e, SL_JOB_FINISHED);
	return rc;
}

/* EXPLAIN PENDING (pending) or SHOW WATERMARKS of the running job into the
 * statement output (docs/observability.md). */
static int running_text(sl_engine *e, const sl_ast_stmt *s, int pending)
{
	if (!e->job)
		return sl_err_set_at(&e->err, SL_EPLAN, s->line, s->col, "line %d, column %d: %s "
		                     "needs a running job (start one first; from a shell: sluice "
		                     "explain --pending ADDRESS:PORT of a job run with --http)",
		                     s->line, s->col, pending ? "EXPLAIN PENDING" : "SHOW WATERMARKS");
	sl_metrics *m;
	if (sl_metrics_get(e, &m))
		return sl_err_set(&e->err, SL_ENOMEM, "out of memory");
	int rc = 0;
	if (pending) {
		char *t = sl_metrics_pending(m);
		if (!t || sl_buf_puts(&e->explain_out, t))
			rc = sl_err_set(&e->err, SL_ENOMEM, "out of memory");
		free(t);
	} else if (sl__metrics_watermarks(m, &e->explain_out)) {
		rc = sl_err_set(&e->err, SL_ENOMEM, "out of memory");
	}
	sl_metrics_free(m);
	return rc;
}

/* Appends statement s to the job being collected. */
static int job_append(sl_engine *e, sl_ast_stmt *s, sl_ast_stmt ***job, int *njob)
{
	sl_ast_stmt **nj = realloc(*job, sizeof(*nj) * (size_t)(*njob + 1));
	if (!nj)
		return sl_err_set(&e->err, SL_ENOMEM, "out of memory");
	*job = nj;
	nj[(*njob)++] = s;
	return 0;
}

/* CREATE TABLE ... AS query: the table from the query's columns, and its
 * INSERT into the job (plan_ctas.c); the query is planned in a scratch
 * arena for its columns only. */
static int create_table_as(sl_engine *e, sl_ast_stmt *s, sl_ast_stmt ***job, int *njob)
{
	sl_arena scratch;
	sl_arena_init(&scratch, 16 * 1024);
	sl_plan_args pa = {.cat = &e->cat, .session = &e->session, .engine = e,
	                   .push_sink = &sl_push_sink_vtab, .arena = &scratch, .job = "ctas"};
	sl_ast_stmt *ins = NULL;
	int rc = sl_plan_ctas(&pa, &e->cat, s, &ins, &e->err);
	sl_arena_deinit(&scratch);
	return rc ? rc : job_append(e, ins, job, njob);
}

static int apply_stmt(sl_engine *e, sl_ast_stmt *s, sl_ast_stmt ***job, int *njob, int *kept)
{
	switch (s->kind) {
	case SL_AS_CREATE_TABLE:
		*kept = 1;
		if (s->u.create_table.as_query)
			return create_table_as(e, s, job, njob);
		return sl_catalog_add_table(&e->cat, &s->u.create_table, s->line, s->col, &e->err);
	case SL_AS_CREATE_VIEW: {
		*kept = 1;
		int rc = sl_catalog_add_view(&e->cat, &s->u.create_view, s->line, s->col, &e->err);
		sl_view_def *v = sl_catalog_view(&e->cat, sl_ast_name_last(&s->u.create_view.name));
		if (!rc && v && !v->text)
			v->text = s->text;
		return rc;
	}
	case SL_AS_SHOW: {
		if (s->u.show.what == SL_SHOW_WATERMARKS)
			return running_text(e, s, 0);
		sl_arena scratch;
		sl_arena_init(&scratch, 4096);
		int rc = sl_plan_show(&e->cat, &e->session, &scratch, s, &e->explain_out, &e->err);
		sl_arena_deinit(&scratch);
		return rc;
	}
	case SL_AS_CREATE_FUNCTION:
		*kept = 1;
		return sl_catalog_add_function(&e->cat, &s->u.create_function, s->line, s->col,
		                               &e->err);
	case SL_AS_ADD_JAR:
		*kept = 1;
		return sl_catalog_add_jar(&e->cat, s->u.jar_path, s->line, s->col, &e->err);
	case SL_AS_REMOVE_JAR:
		return sl_catalog_remove_jar(&e->cat, s->u.jar_path, s->line, s->col, &e->err);
	case SL_AS_DROP_FUNCTION:
		return sl_catalog_drop_function(&e->cat, &s->u.drop_function, s->line, s->col,
		                                &e->err);
	case SL_AS_ALTER_TABLE:
	case SL_AS_ALTER_VIEW:
		*kept = 1; /* the new definition points into this script */
		return sl_catalog_alter(&e->cat, &s->u.alter, s->kind == SL_AS_ALTER_VIEW, s->line,
		                        s->col, &e->err);
	case SL_AS_DROP_TABLE:
	case SL_AS_DROP_VIEW:
		return sl_catalog_drop(&e->cat, &s->u.drop, s->kind == SL_AS_DROP_VIEW, s->line, s->col,
		                       &e->err);
	case SL_AS_SET:
		if (!s->u.set.option)
			return 0;
		return sl_set(e, s->u.set.option->key, s->u.set.option->value);
	case SL_AS_RESET:
		if (!s->u.set.option) {
			sl_opts_init(&e->session, &e->opt_arena);
			e->queue_text = e->select_to_print = 0;
			return 0;
		}
		for (int i = 0; i < e->session.n; i++)
			if (!strcmp(e->session.v[i].key, s->u.set.option->key ? s->u.set.option->key
			                                                      : s->u.set.option->value)) {
				e->session.v[i] = e->session.v[--e->session.n];
				break;
			}
		return 0;
	case SL_AS_EXPLAIN: {
		if (s->u.explain.pending)
			return running_text(e, s, 1);
		sl_ast_stmt *inner = s->u.explain.stmt;
		int rc = start_job(e, &inner, 1, 1);
		if (!rc)
			sl_buf_append(&e->explain_out, e->explain.p, e->explain.len);
		return rc;
	}
	case SL_AS_INSERT:
	case SL_AS_QUERY:
	case SL_AS_STATEMENT_SET:
		*kept = 1;
		return job_append(e, s, job, njob);
	}
	return 0;
}

/* Runs a script; with explain_only, plans the job into e->explain only. */
static int exec_script(sl_engine *e, const char *sql, int explain_only)
{
	sl_err_clear(&e->err);
	sl_buf_clear(&e->explain_out);
	sl_arena *a = malloc(sizeof(*a));
	if (!a)
		return sl_err_set(&e->err, SL_ENOMEM, "out of memory");
	sl_arena_init(a, 16 * 1024);
	sl_ast_script *script;
	sl_ast_stmt **job = NULL;
	int njob = 0, kept = 0;
	int rc = sl_parse(a, sql, &script, &e->err);
	for (int i = 0; !rc && i < script->nstmts; i++)
		rc = apply_stmt(e, script->stmts[i], &job, &njob, &kept);
	if (!rc && njob)
		rc = start_job(e, job, njob, explain_only);
	free(job);
	if (kept) {
		sl_arena **ns = realloc(e->scripts, sizeof(*ns) * (size_t)(e->nscripts + 1));
		if (ns) {
			e->scripts = ns;
			ns[e->nscripts++] = a;
			return rc;
		}
	}
	sl_arena_deinit(a);
	free(a);
	return rc;
}

int sl_exec(sl_engine *e, const char *sql)
{
	return exec_script(e, sql, 0);
}

int sl_explain(sl_engine *e, const char *sql, const char **text)
{
	int rc = exec_script(e, sql, 1);
	*text = sl_buf_cstr(&e->explain);
	return rc;
}

const char *sl_warnings(sl_engine *e)
{
	return sl_buf_cstr(&e->warnings);
}

const char *sl_explain_text(sl_engine *e)
{
	return sl_buf_cstr(&e->explain_out);
}

/* ---- running ---------------------------------------------------------- */

static void fail_job(sl_engine *e);

int sl_run(sl_engine *e)
{
	sl_err_clear(&e->err);
	if (e->job && e->finished) /* restored from its final checkpoint */
		return sl__scale_out_finished(e);
	if (!e->job || e->finished)
		return 0;
	sl__metrics_status(e, SL_JOB_RUNNING);
	int rc = e->prun ? sl_prun_run(e->prun, &e->err) : sl_runtime_run(&e->graph, &e->ck, &e->err);
	if (rc == 1)
		e->finished = 1;
	int frc = rc == 1 ? sl__scale_out_finished(e) : 0;
	if (frc)
		return frc; /* finished, but its member cannot be told */
	if (rc >= 0) {
		sl__metrics_status(e, rc == 1 ? SL_JOB_FINISHED : SL_JOB_CANCELED);
		return 0;
	}
	fail_job(e);
	return e->err.code ? e->err.code : SL_ERUNTIME;
}

int sl_savepoint(sl_engine *e, int drain, char *path, size_t cap)
{
	sl_err_clear(&e->err);
	if (!e->job || !e->ck.on)
		return sl_err_set(&e->err, SL_EINVAL, "savepoints need checkpointing "
		                  "('execution.checkpointing.interval')");
	if (e->failed)
		return sl_err_set(&e->err, SL_EINVAL, "the job stopped after an error: %s", e->fail_msg);
	if (e->prun)
		return sl_prun_savepoint(e->prun, drain, path, cap, &e->err);
	return sl_runtime_savepoint(&e->graph, &e->ck, drain, path, cap, &e->err);
}

int sl_stop_complete(sl_engine *e, int drain, char *path, size_t cap)
{
	if (cap)
		path[0] = 0;
	if (e->job && e->ck.on)
		return sl_savepoint(e, drain, path, cap);
	sl_err_clear(&e->err);
	if (!e->job || e->failed)
		return sl_err_set(&e->err, SL_EINVAL, "%s%s", e->job ? "the job stopped after an "
		                  "error: " : "no job to stop", e->job ? e->fail_msg : "");
	int rc = e->prun ? sl_prun_finish_stop(e->prun, drain, &e->err)
	                 : sl_runtime_stop_publish(&e->graph, drain, &e->err);
	if (rc)
		fail_job(e);
	return rc;
}

int sl_set_processing_time(sl_engine *e, int64_t micros)
{
	sl_err_clear(&e->err);
	e->proc_manual = micros < 0 ? -1 : micros;
	if (e->job && e->prun) { /* every instance takes the clock at a drain's marker */
		if (e->failed)
			return 0;
		int rc = sl_prun_drain(e->prun, NULL, NULL, 0, SL_PRUN_PUSH_NONE, e->proc_manual,
		                       &e->err);
		if (rc)
			fail_job(e);
		return rc;
	}
	if (e->job) {
		e->graph.proc_manual = e->proc_manual;
		if (e->failed)
			return 0;
		int rc = sl_runtime_clock_moved(&e->graph, &e->err);
		if (rc)
			fail_job(e);
		return rc;
	}
	return 0;
}

int sl_job_finished(sl_engine *e)
{
	return e->finished;
}

const char *sl_checkpoint_log(sl_engine *e)
{
	return sl_buf_cstr(&e->ck.log);
}

void sl_stop(sl_engine *e)
{
	if (e && e->so_member)
		__atomic_store_n(&e->so_stop, 1, __ATOMIC_RELAXED); /* scaleout.c's loop */
	if (e && e->job && e->prun)
		sl_prun_stop(e->prun); /* an atomic store: called from signal handlers */
	else if (e && e->job)
		__atomic_store_n(&e->graph.stop, 1, __ATOMIC_RELAXED); /* another thread or a handler */
}

/* A job that hit an error stops: its sinks publish what came before the
 * error and later pushes are refused (docs/semantics.md §4). */
static void fail_job(sl_engine *e)
{
	e->failed = 1;
	sl__metrics_status(e, SL_JOB_FAILED);
	snprintf(e->fail_msg, sizeof(e->fail_msg), "%s", e->err.msg);
	if (e->prun)
		sl_prun_publish_on_error(e->prun);
	else
		sl_runtime_publish_on_error(&e->graph, &e->ck);
}

static sl_op *push_scan(sl_engine *e, const char *table)
{
	if (e->failed) {
		sl_err_set(&e->err, SL_EINVAL, "the job stopped after an error: %s", e->fail_msg);
		return NULL;
	}
	if (e->job && SL_CTR_GET(e->status) == SL_JOB_CREATED)
		sl__metrics_status(e, SL_JOB_RUNNING); /* a job driven by pushes runs from the first */
	if (e->job && e->prun)
		return sl_prun_push_scan(e->prun, table);
	for (int i = 0; e->job && i < e->graph.nops; i++) {
		sl_op *op = e->graph.ops[i];
		if (op->nin == 0 && sl_op_scan_is_push(op) && !strcmp(sl_op_scan_table(op), table))
			return op;
	}
	return NULL;
}

/* Emits the rows of the job's VALUES sources before a poll
 * (sl_runtime_start_values).  Returns 0 or the error (the job then fails). */
static int start_values(sl_engine *e)
{
	if (!e->job || e->failed)
		return 0;
	int rc;
	if (e->prun) { /* a job fed by pushes: a first drain emits the VALUES rows */
		if (e->prun_values || !e->prun_push)
			return 0;
		e->prun_values = 1;
		rc = sl_prun_drain(e->prun, NULL, NULL, 0, SL_PRUN_PUSH_NONE, e->proc_manual,
		                   &e->err);
	} else
		rc = sl_runtime_start_values(&e->graph, &e->err);
	if (rc)
		fail_job(e);
	return rc;
}

int sl_push_json(sl_engine *e, const char *table, const char *json, size_t len)
{
	sl_err_clear(&e->err);
	sl_op *op = push_scan(e, table);
	if (!op)
		return sl_err_set(&e->err, SL_EINVAL,
		                  "no running job reads push table '%s' (declare it WITH "
		                  "('connector' = 'push') and start a job that reads it)", table);
	int rc = e->prun ? sl_prun_drain(e->prun, op, json, len, SL_PRUN_PUSH_JSON, e->proc_manual, &e->err)
	                 : sl_runtime_push(&e->graph, op, json, len, 0, &e->err);
	if (rc)
		fail_job(e);
	return rc;
}

int sl_push_json_lines(sl_engine *e, const char *table, const char *text, size_t len)
{
	sl_err_clear(&e->err);
	sl_op *op = push_scan(e, table);
	if (!op)
		return sl_err_set(&e->err, SL_EINVAL, "no running job reads push table '%s'", table);
	int rc = e->prun ? sl_prun_drain(e->prun, op, text, len, SL_PRUN_PUSH_LINES, e->proc_manual, &e->err)
	                 : sl_runtime_push(&e->graph, op, text, len, 1, &e->err);
	if (rc)
		fail_job(e);
	return rc;
}

int sl_push_end(sl_engine *e, const char *table)
{
	sl_err_clear(&e->err);
	sl_op *op = push_scan(e, table);
	if (!op)
		return sl_err_set(&e->err, SL_EINVAL, "no running job reads push table '%s'", table);
	int rc = e->prun ? sl_prun_drain(e->prun, op, NULL, 0, SL_PRUN_PUSH_END, e->proc_manual,
	                               &e->err)
	                 : sl_runtime_push_end(&e->graph, op, &e->err);
	if (rc)
		fail_job(e);
	return rc;
}

/* ---- result queue ------------------------------------------------------ */

int sl__engine_record(sl_buf *rec, const char *table, int kind, const char *text, size_t len)
{
	uint32_t tl = (uint32_t)strlen(table), l = (uint32_t)len;
	uint8_t k = (uint8_t)kind;
	if (sl_buf_append(rec, &tl, 4) || sl_buf_append(rec, table, tl) ||
	    sl_buf_append(rec, &k, 1) || sl_buf_append(rec, &l, 4) || sl_buf_append(rec, text, len))
		return SL_ENOMEM;
	return 0;
}

int sl__engine_enqueue_records(sl_engine *e, const sl_buf *rec)
{
	if (!rec->len)
		return 0;
	pthread_mutex_lock(&e->queue_mu);
	int rc = sl_buf_append(&e->queue, rec->p, rec->len) ? SL_ENOMEM : 0;
	pthread_mutex_unlock(&e->queue_mu);
	return rc;
}

int sl__engine_enqueue(sl_engine *e, const char *table, int kind, const char *text, size_t len)
{
	pthread_mutex_lock(&e->queue_mu);
	int rc = sl__engine_record(&e->queue, table, kind, text, len);
	pthread_mutex_unlock(&e->queue_mu);
	return rc;
}

int sl_poll(sl_engine *e, sl_row_cb cb, void *ctx)
{
	int rc = start_values(e);
	if (rc)
		return rc;
	/* take the queue: at parallelism > 1 sink instances may still append */
	pthread_mutex_lock(&e->queue_mu);
	sl_buf q = e->queue;
	e->queue = e->queue_spare;
	sl_buf_clear(&e->queue);
	sl_buf_init(&e->queue_spare);
	pthread_mutex_unlock(&e->queue_mu);
	/* no row queued yet: p is NULL, and NULL + 0 is undefined (fuzz_snapshot
	 * found it: corpus/snapshot/regress_poll_empty_queue.snap) */
	const char *p = q.p, *end = p ? p + q.len : p;
	int n = 0;
	char tname[256];
	while (p < end) {
		uint32_t tl, l;
		memcpy(&tl, p, 4);
		p += 4;
		snprintf(tname, sizeof(tname), "%.*s", (int)tl, p);
		p += tl;
		uint8_t k = (uint8_t)*p++;
		memcpy(&l, p, 4);
		p += 4;
		cb(ctx, tname, (sl_rowkind)k, p, l);
		p += l;
		n++;
	}
	sl_buf_clear(&q);
	pthread_mutex_lock(&e->queue_mu);
	if (!e->queue_spare.p)
		e->queue_spare = q;
	else
		sl_buf_deinit(&q);
	pthread_mutex_unlock(&e->queue_mu);
	return n;
}

/* ---- snapshots --------------------------------------------------------- */

int sl_snapshot(sl_engine *e, void **buf, size_t *len)
{
	sl_err_clear(&e->err);
	if (!e->job)
		return sl_err_set(&e->err, SL_EINVAL, "no job to snapshot");
	if (e->failed)
		return sl_err_set(&e->err, SL_EINVAL, "the job stopped after an error: %s", e->fail_msg);
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	/* at parallelism > 1 a job snapshot of every instance (ckpt_coord.h) */
	int rc = e->prun ? sl_prun_snapshot(e->prun, &w, &e->err)
	                 : sl_graph_pre_barrier(&e->graph, &e->err); /* graph.h */
	if (!rc && !e->prun)
		rc = sl_graph_snapshot(&e->graph, &w, &e->err);
	if (rc) {
		sl_snap_writer_deinit(&w);
		return rc;
	}
	*buf = w.buf;
	*len = w.len;
	return 0;
}

int sl_restore(sl_engine *e, const void *buf, size_t len)
{
	sl_err_clear(&e->err);
	if (!e->job)
		return sl_err_set(&e->err, SL_EINVAL, "no job to restore into");
	if (e->prun) /* any parallelism's snapshot (a rescale when not this one) */
		return sl_prun_restore(e->prun, buf, len, &e->err);
	if (sl_coord_is_job_snapshot(buf, len)) { /* taken at parallelism > 1 */
		sl_coord_part one = {&e->graph, e->state, 1, 0};
		return sl_coord_restore_parts(&one, 1, 0, buf, len, &e->err);
	}
	sl_snap_reader r;
	sl_snap_reader_init(&r, buf, len);
	pthread_mutex_lock(&e->job_mu); /* it rewrites counters a snapshot may read */
	int rc = sl_graph_restore(&e->graph, &r, &e->err);
	pthread_mutex_unlock(&e->job_mu);
	return rc;
}

/* ---- statistics -------------------------------------------------------- */

static void wm_text(int64_t wm, char *buf)
{
	if (wm == SL_WM_MIN)
		strcpy(buf, "-infinity");
	else if (wm == SL_WM_MAX)
		strcpy(buf, "+infinity");
	else
		sl_ts_format(wm, 3, 0, 0, buf);
}

/* The lines of one operator, whose instances are inst[0..n) (one at
 * parallelism 1): counters summed over the instances, the final watermark
 * their minimum. */
static void op_stats(sl_buf *b, int id, sl_op *const *inst, int n, int verbose)
{
	sl_op *op = inst[0];
	sl_op_stats sum = {0};
	int64_t skipped = 0, events = 0, out_wm = SL_WM_MAX;
	unsigned long long expired = 0;
	for (int k = 0; k < n; k++) {
		const sl_op_stats *s = &inst[k]->stats;
		sum.rows_in += s->rows_in;
		sum.rows_out += s->rows_out;
		sum.late_dropped += s->late_dropped;
		sum.late_diverted += s->late_diverted;
		sum.late_corrected += s->late_corrected;
		if (inst[k]->out_wm < out_wm)
			out_wm = inst[k]->out_wm;
		if (op->nin == 0 && op->vt->kind == SL_OPK_SCAN) {
			skipped += sl_op_scan_skipped(inst[k]);
			events += sl_op_scan_events_skipped(inst[k]);
		}
		if (inst[k]->ttl_chain)
			expired += sl_state_ttl_chain_removed(inst[k]->ttl_chain);
	}
	const sl_op_stats *s = &sum;
	char wm[48];
	wm_text(out_wm, wm);
	sl_sink *k = sl_op_sink_get(op);
	if (op->nin == 0 && op->vt->kind != SL_OPK_SCAN) {
		sl_buf_printf(b, "source #%d %s: %lld rows\n", id, op->vt->name,
		              (long long)s->rows_out); /* VALUES */
	} else if (op->nin == 0) {
		sl_buf_printf(b, "source %s: %lld rows read, %lld skipped, final watermark %s\n",
		              sl_op_scan_table(op), (long long)s->rows_out, (long long)skipped, wm);
		if (events)
			sl_buf_printf(b, "source %s: %lld change events without a row skipped "
			              "(tombstones, truncates, messages)\n", sl_op_scan_table(op),
			              (long long)events);
	} else if (k) {
		sl_buf_printf(b, "sink %s: %lld rows written\n", k->table, (long long)s->rows_in);
	} else if ((op->vt->flags & SL_OPF_LATE_STATS) || s->late_dropped || s->late_diverted) {
		sl_buf_printf(b, "#%d %s: %lld late rows dropped, %lld diverted, %lld corrections\n",
		              id, op->vt->name, (long long)s->late_dropped,
		              (long long)s->late_diverted, (long long)s->late_corrected);
	}
	if (op->ttl_chain)
		sl_buf_printf(b, "#%d %s: %llu expired state entries removed (state TTL, this "
		              "run)\n", id, op->vt->name, expired);
	if (verbose && n > 1)
		sl_buf_printf(b, "  #%d %s: in %lld, out %lld, watermark %s, %d instances\n", id,
		              op->vt->name, (long long)s->rows_in, (long long)s->rows_out, wm, n);
	else if (verbose)
		sl_buf_printf(b, "  #%d %s: in %lld, out %lld, watermark %s\n", id,
		              op->vt->name, (long long)s->rows_in, (long long)s->rows_out, wm);
}

/* At parallelism > 1 an operator is named by its plan node's id (the
 * graphs of its instances number their operators otherwise). */
const char *sl_job_stats(sl_engine *e, int verbose)
{
	sl_buf *b = &e->stats;
	sl_buf_clear(b);
	if (e->job && e->prun) {
		sl_op *inst[SL_KG_MAX_MAXP > 1024 ? 1024 : SL_KG_MAX_MAXP];
		for (int i = 0; i < e->plan.n; i++) {
			int n = sl_prun_ninst(e->prun, i);
			if (n > 1024)
				n = 1024;
			for (int k = 0; k < n; k++)
				inst[k] = sl_prun_op(e->prun, i, k);
			if (n < 1 || !inst[0])
				continue;
			op_stats(b, i, inst, n, verbose);
		}
		if (verbose) {
			sl_prun_edge_stats(e->prun, b);
			sl_prun_thread_stats(e->prun, b);
		}
		return sl_buf_cstr(b);
	}
	for (int i = 0; e->job && i < e->graph.nops; i++)
		op_stats(b, e->graph.ops[i]->id, &e->graph.ops[i], 1, verbose);
	return sl_buf_cstr(b);
}
