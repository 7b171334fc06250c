/*
 * conn_jdbc.c - the sink of Flink's 'jdbc' connector, into PostgreSQL
 * through libpq (docs/postgres.md).  Configured while the job is planned
 * (options and the URL checked, no connection: EXPLAIN touches no server)
 * and opened when it starts: open connects, checks the table against the
 * sink's columns (conn_pg.c: a missing table, a missing column or a type
 * that cannot hold the values fails the job before any row, naming the
 * column) and prepares the statements.
 *
 * Rows are encoded as lines of COPY's text format into a buffer of changes
 * (conn_jdbc_changes.c).  Without a PRIMARY KEY the table is appended to:
 * the lines go by COPY straight into it (COPY beat multi-row INSERT by
 * far, docs/postgres.md has the figures).  With one, every row is an
 * upsert (+I, +U) or a delete by key (-D; op_sink.c turns -U into either
 * nothing or a -D), reduced per key in the buffer; a flush COPYs the lines
 * with their kind into a temporary table and runs, in one transaction,
 * INSERT ... SELECT ... ON CONFLICT (key) DO UPDATE for the upserts and
 * DELETE ... USING for the deletes (each key appears once, so neither
 * statement touches a row twice: SQLSTATE 21000).
 *
 * Delivery ('sink.delivery-guarantee'):
 *   at-least-once (the default; also 'none')  the buffer is flushed when it
 *       holds 'sink.buffer-flush.max-rows' rows, when a batch arrives
 *       'sink.buffer-flush.interval' after the last flush, at each
 *       checkpoint's pre-commit (so a checkpoint covers every row before
 *       it) and at the end.  A restart replays from the checkpoint: rows
 *       flushed after it are written again (upserts make that harmless for
 *       keyed tables).
 *   exactly-once (needs checkpointing)  nothing is written between
 *       checkpoints.  pre_commit(id) stages the checkpoint's changes,
 *       reduced per key, in the checkpoint itself (the pre-commit record:
 *       u8 version, u8 keyed, i64 id, i64 lines, bytes COPY text) and
 *       keeps them; commit(id) applies them in one transaction that first
 *       locks this sink's row of the table sluice_sink_progress (job,
 *       sink, checkpoint_id, fence), skips them when checkpoint_id >= id
 *       (applied already), fails when the fence is not this run's (another
 *       run of the job took over), and records id; recover bumps the
 *       fence, so an older run still alive can commit nothing, and applies
 *       the restored checkpoint's changes unless the progress row says
 *       they are in.  A progress row newer than the restored checkpoint
 *       refuses the start (its rows would be applied twice).  A record
 *       of another instance or parallelism (a rescale) is recovered
 *       against its writer's row, whose fence it bumps; an instance that
 *       got no record takes its own row's fence before its first commit
 *       (docs/postgres.md "Rescaling").  abort(id)
 *       keeps the changes for the next checkpoint.  The staged batch is
 *       bounded by the checkpoint interval: one line per changed key for
 *       an upsert sink, every row for an append sink.
 * Failed statements are retried 'sink.max-retries' times (default 3) on a
 * new connection after 1 s, 2 s, ... (Flink's back-off) when the failure
 * may pass (the connection, a serialization failure: sl__pg_retryable), not
 * for a value the table refuses; the exactly-once transaction is safe to
 * retry, its progress check makes it idempotent.
 * Single-threaded, like every connector; the checkpoint child (fork) never
 * touches the connection.
 */
#include "conn_builtin.h"
#include "conn_jdbc.h"
#include "conn_pg.h"
#include "sluice.h"
#include "base/fault.h"
#include "data/rowcodec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define JD_SNAP_VERSION 2 /* 1: before the writer's instance (parallelism 1) */
#define JD_DEFAULT_MAX_ROWS 100               /* Flink's defaults */
#define JD_DEFAULT_INTERVAL (1000000LL)       /* 1 s */
#define JD_DEFAULT_RETRIES 3
#define JD_COPY_CHUNK (1u << 20)
#define JD_OP_UPSERT '1'
#define JD_OP_DELETE '2'

enum { JD_ALO = 0, JD_EO = 1 };

typedef struct jd_sink {
	sl_sink base;          /* must be first */
	char what[300];        /* "sink 'table'" for messages */
	sl_pg_params params;
	char *table_name;      /* 'table-name' */
	const sl_field *fields;
	int nfields;
	int *pk;               /* key columns (indexes into fields), or NULL */
	int npk;
	int64_t max_rows, interval_us;
	int64_t retries;
	int mode;              /* JD_ALO / JD_EO */
	int ckpt;              /* checkpointing is on */
	int overwrite;         /* --overwrite-output: a fresh start resets progress */
	char *job;             /* EO: the job name */
	char sink_id[300];     /* EO: this sink's key in sluice_sink_progress */
	int subtask, nsubtasks; /* this instance, of how many */
	PGconn *conn;
	sl_pg_table tab;
	char *copy_sql;        /* COPY <target or stage> (...) FROM STDIN */
	char *stage_sql;       /* keyed: CREATE TEMP TABLE ... (per connection) */
	char *apply_sql;       /* keyed: upsert from the stage */
	char *delete_sql;      /* keyed: delete from the stage */
	char *progress_tab;    /* EO: "schema".sluice_sink_progress */
	sl_jd_changes cur;     /* changes since the last flush / checkpoint */
	sl_jd_changes pend;    /* EO: pre-committed, not yet committed */
	int64_t pend_id;       /* its checkpoint, -1 = none */
	int64_t fence;         /* EO: this run's fence (recover) */
	int fence_known;       /* EO: fence was taken on this instance's own row */
	int64_t last_flush_us; /* processing time of the last flush */
	int fenced;            /* the last failure was the fence: do not retry */
	sl_buf line, key, sql; /* scratch */
} jd_sink;

/* ---- configure ------------------------------------------------------------- */

static int read_options(jd_sink *k, const sl_conn_args *a, sl_err *err)
{
	const char *url = sl_opts_get(a->opts, "url");
	const char *tn = sl_opts_get(a->opts, "table-name");
	const char *user = sl_opts_get(a->opts, "username");
	const char *pw = sl_opts_get(a->opts, "password");
	const char *drv = sl_opts_get(a->opts, "driver");
	const char *dg = sl_opts_get(a->opts, "sink.delivery-guarantee");
	int64_t par, maxto;
	if (!url || !tn)
		return sl_err_set(err, SL_EINVAL, "%s: options 'url' and 'table-name' are required",
		                  k->what);
	if (drv && strcmp(drv, "org.postgresql.Driver"))
		return sl_err_set(err, SL_EINVAL, "%s: 'driver' = '%s': sluice writes to PostgreSQL "
		                  "only (org.postgresql.Driver)", k->what, drv);
	if (sl_opts_int(a->opts, "sink.buffer-flush.max-rows", JD_DEFAULT_MAX_ROWS, &k->max_rows,
	                err) ||
	    sl_opts_duration(a->opts, "sink.buffer-flush.interval", JD_DEFAULT_INTERVAL,
	                     &k->interval_us, err) ||
	    sl_opts_int(a->opts, "sink.max-retries", JD_DEFAULT_RETRIES, &k->retries, err) ||
	    sl_opts_int(a->opts, "sink.parallelism", 1, &par, err) ||
	    sl_opts_duration(a->opts, "connection.max-retry-timeout", 60000000LL, &maxto, err)) {
		sl_err_prefix(err, "%s", k->what);
		return SL_EINVAL;
	}
	if (k->max_rows < 0 || k->retries < 0 || k->interval_us < 0)
		return sl_err_set(err, SL_EINVAL, "%s: 'sink.buffer-flush.max-rows', "
		                  "'sink.buffer-flush.interval' and 'sink.max-retries' must not be "
		                  "negative", k->what);
	if (!dg || !strcmp(dg, "at-least-once") || !strcmp(dg, "none"))
		k->mode = JD_ALO;
	else if (!strcmp(dg, "exactly-once"))
		k->mode = JD_EO;
	else
		return sl_err_set(err, SL_EINVAL, "%s: 'sink.delivery-guarantee' = '%s': expected "
		                  "'exactly-once', 'at-least-once' or 'none'", k->what, dg);
	if (k->mode == JD_EO && !a->checkpointing)
		return sl_err_set(err, SL_EINVAL, "%s: 'sink.delivery-guarantee' = 'exactly-once' "
		                  "needs checkpointing (SET 'execution.checkpointing.interval'): "
		                  "without it the jdbc sink is at-least-once", k->what);
	if (!(k->table_name = strdup(tn)))
		return sl_err_set(err, SL_ENOMEM, "%s: out of memory", k->what);
	return sl__pg_params_init(&k->params, url, user, pw, k->what, err);
}

static int jd_configure(sl_sink *s, const sl_conn_args *a, sl_err *err)
{
	jd_sink *k = (jd_sink *)s;
	int rc;
	snprintf(k->what, sizeof k->what, "sink '%s'", a->table);
	k->pend_id = -1;
	sl_buf_init(&k->line);
	sl_buf_init(&k->key);
	sl_buf_init(&k->sql);
	sl__jd_changes_init(&k->cur, a->npk > 0);
	sl__jd_changes_init(&k->pend, a->npk > 0);
	for (int i = 0; i < a->nfields; i++) {
		char tb[64];
		if (!sl__pg_type_for(a->fields[i].type, tb, sizeof tb))
			return sl_err_set(err, SL_ENOTSUP, "%s: column '%s' is %s, which the jdbc sink "
			                  "cannot write (no PostgreSQL column type holds it)", k->what,
			                  a->fields[i].name,
			                  sl_type_format(a->fields[i].type, tb, sizeof tb));
	}
	if ((rc = read_options(k, a, err)))
		return rc;
	k->fields = a->fields;
	k->nfields = a->nfields;
	if (a->npk > 0) {
		if (!(k->pk = malloc(sizeof(int) * (size_t)a->npk)))
			return sl_err_set(err, SL_ENOMEM, "%s: out of memory", k->what);
		for (int i = 0; i < a->npk; i++) {
			if (a->pk[i] < 0 || a->pk[i] >= a->nfields)
				return sl_err_set(err, SL_EINVAL, "%s: bad PRIMARY KEY column", k->what);
			k->pk[i] = a->pk[i];
		}
		k->npk = a->npk;
	}
	k->ckpt = a->checkpointing;
	k->overwrite = a->overwrite_output;
	if (k->mode == JD_EO) {
		if (!a->job || !a->job[0])
			return sl_err_set(err, SL_EINVAL, "%s: exactly-once needs a job name "
			                  "('pipeline.name')", k->what);
		if (!(k->job = strdup(a->job)))
			return sl_err_set(err, SL_ENOMEM, "%s: out of memory", k->what);
		snprintf(k->sink_id, sizeof k->sink_id, "%s/%d", a->table, a->subtask);
	}
	k->subtask = a->subtask;
	k->nsubtasks = a->nsubtasks > 0 ? a->nsubtasks : 1;
	s->guarantee = k->mode == JD_EO ? "exactly-once" : "at-least-once";
	return 0;
}

/* ---- statements --------------------------------------------------------------- */

static char *buf_take(sl_buf *b)
{
	if (sl_buf_putc(b, 0))
		return NULL;
	char *s = strdup((const char *)b->p);
	sl_buf_clear(b);
	return s;
}

static int is_pk(const jd_sink *k, int col)
{
	for (int i = 0; i < k->npk; i++)
		if (k->pk[i] == col)
			return 1;
	return 0;
}

static void put_cols(jd_sink *k, sl_buf *b, const char *prefix)
{
	for (int i = 0; i < k->nfields; i++)
		sl_buf_printf(b, "%s%s%s", i ? ", " : "", prefix, k->tab.cols[i]);
}

/* Builds the COPY, stage and apply statements from the checked table. */
static int build_sql(jd_sink *k, sl_err *err)
{
	sl_buf *b = &k->sql;
	sl_buf_clear(b);
	if (!k->npk) {
		sl_buf_printf(b, "COPY %s (", k->tab.qname);
		put_cols(k, b, "");
		sl_buf_puts(b, ") FROM STDIN");
		k->copy_sql = buf_take(b);
	} else {
		sl_buf_puts(b, "CREATE TEMP TABLE IF NOT EXISTS sluice_stage ON COMMIT DELETE ROWS AS "
		            "SELECT 0::int2 AS \"sluice$op\", ");
		put_cols(k, b, "");
		sl_buf_printf(b, " FROM %s WITH NO DATA", k->tab.qname);
		k->stage_sql = buf_take(b);
		sl_buf_puts(b, "COPY pg_temp.sluice_stage (\"sluice$op\", ");
		put_cols(k, b, "");
		sl_buf_puts(b, ") FROM STDIN");
		k->copy_sql = buf_take(b);
		sl_buf_printf(b, "INSERT INTO %s (", k->tab.qname);
		put_cols(k, b, "");
		sl_buf_puts(b, ") SELECT ");
		put_cols(k, b, "");
		sl_buf_puts(b, " FROM pg_temp.sluice_stage WHERE \"sluice$op\" = 1 ON CONFLICT (");
		for (int i = 0; i < k->npk; i++)
			sl_buf_printf(b, "%s%s", i ? ", " : "", k->tab.cols[k->pk[i]]);
		int set = 0;
		for (int i = 0; i < k->nfields; i++)
			if (!is_pk(k, i))
				sl_buf_printf(b, "%s%s = EXCLUDED.%s", set++ ? ", " : ") DO UPDATE SET ",
				              k->tab.cols[i], k->tab.cols[i]);
		if (!set)
			sl_buf_puts(b, ") DO NOTHING");
		k->apply_sql = buf_take(b);
		sl_buf_printf(b, "DELETE FROM %s AS t USING pg_temp.sluice_stage AS s "
		              "WHERE s.\"sluice$op\" = 2", k->tab.qname);
		for (int i = 0; i < k->npk; i++)
			sl_buf_printf(b, " AND t.%s = s.%s", k->tab.cols[k->pk[i]],
			              k->tab.cols[k->pk[i]]);
		k->delete_sql = buf_take(b);
	}
	if (k->mode == JD_EO) {
		sl_buf_printf(b, "%s.sluice_sink_progress", k->tab.schema);
		k->progress_tab = buf_take(b);
	}
	if (!k->copy_sql || (k->npk && (!k->stage_sql || !k->apply_sql || !k->delete_sql)) ||
	    (k->mode == JD_EO && !k->progress_tab))
		return sl_err_set(err, SL_ENOMEM, "%s: out of memory", k->what);
	return 0;
}

/* Prepares a new session: the stage table of a keyed sink. */
static int prepare_session(jd_sink *k, sl_err *err)
{
	if (k->stage_sql) {
		PGresult *r = sl__pg_exec(k->conn, k->stage_sql, PGRES_COMMAND_OK, k->what,
		                          "creating the temporary stage table", err);
		if (!r)
			return SL_EIO;
		PQclear(r);
	}
	return 0;
}

/* Connects (if not connected) and prepares the session. */
static int ensure_conn(jd_sink *k, sl_err *err)
{
	if (k->conn && PQstatus(k->conn) == CONNECTION_OK)
		return 0;
	if (k->conn)
		PQfinish(k->conn);
	if (!(k->conn = sl__pg_connect(&k->params, k->what, err)))
		return SL_EIO;
	return prepare_session(k, err);
}

static int jd_open(sl_sink *s, sl_err *err)
{
	jd_sink *k = (jd_sink *)s;
	int rc;
	if (!(k->conn = sl__pg_connect(&k->params, k->what, err)))
		return SL_EIO;
	if ((rc = sl__pg_table_check(k->conn, k->table_name, k->fields, k->nfields, k->pk, k->npk,
	                             &k->tab, k->what, err)) ||
	    (rc = build_sql(k, err)))
		return rc;
	k->last_flush_us = s->proc_now;
	return prepare_session(k, err);
}

/* ---- applying a batch of changes --------------------------------------------- */

static int exec_ok(jd_sink *k, const char *sql, const char *doing, sl_err *err)
{
	PGresult *r = sl__pg_exec(k->conn, sql, PGRES_COMMAND_OK, k->what, doing, err);
	PQclear(r);
	return r ? 0 : SL_EIO;
}

/* COPY the lines of ch with k->copy_sql. */
static int copy_lines(jd_sink *k, const sl_buf *lines, sl_err *err)
{
	PGresult *r = PQexec(k->conn, k->copy_sql);
	if (PQresultStatus(r) != PGRES_COPY_IN) {
		sl_err_set(err, SL_EIO, "%s: COPY into '%s' failed: %s", k->what, k->table_name,
		           r && PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY)
		               ? sl__pg_result_error(r) : sl__pg_error(k->conn));
		PQclear(r);
		return SL_EIO;
	}
	PQclear(r);
	for (size_t off = 0; off < lines->len; off += JD_COPY_CHUNK) {
		size_t n = lines->len - off < JD_COPY_CHUNK ? lines->len - off : JD_COPY_CHUNK;
		if (PQputCopyData(k->conn, (const char *)lines->p + off, (int)n) != 1)
			break;
	}
	PQputCopyEnd(k->conn, NULL);
	r = PQgetResult(k->conn);
	int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
	if (!ok)
		sl_err_set(err, SL_EIO, "%s: COPY into '%s' failed: %s", k->what, k->table_name,
		           r && PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY)
		               ? sl__pg_result_error(r) : sl__pg_error(k->conn));
	PQclear(r);
	while ((r = PQgetResult(k->conn)))
		PQclear(r);
	return ok ? 0 : SL_EIO;
}

static int progress_where(jd_sink *k, sl_buf *b)
{
	sl_buf_puts(b, " WHERE job = ");
	sl__pg_quote_literal(b, k->job);
	sl_buf_puts(b, " AND sink = ");
	return sl__pg_quote_literal(b, k->sink_id);
}

/* EO: begins a transaction (with begin = 1), locks this sink's progress
 * row and reads it, in one round trip. */
static int lock_progress(jd_sink *k, int begin, int64_t *ckpt, int64_t *fence, sl_err *err)
{
	sl_buf_clear(&k->sql);
	sl_buf_printf(&k->sql, "%sSELECT checkpoint_id, fence FROM %s", begin ? "BEGIN; " : "",
	              k->progress_tab);
	progress_where(k, &k->sql);
	sl_buf_puts(&k->sql, " FOR UPDATE");
	PGresult *r = sl__pg_exec(k->conn, sl_buf_cstr(&k->sql), PGRES_TUPLES_OK, k->what,
	                          "locking the row of sluice_sink_progress", err);
	if (!r)
		return SL_EIO;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return sl_err_set(err, SL_ESTATE, "%s: job '%s' has no row '%s' in %s any more",
		                  k->what, k->job, k->sink_id, k->progress_tab);
	}
	*ckpt = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	*fence = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
	PQclear(r);
	return 0;
}

/* Appends "UPDATE <progress> SET <set>, updated_at = now() WHERE ...; ". */
static void put_set_progress(jd_sink *k, sl_buf *b, const char *set)
{
	sl_buf_printf(b, "UPDATE %s SET %s, updated_at = now()", k->progress_tab, set);
	progress_where(k, b);
	sl_buf_puts(b, "; ");
}

/*
 * Inside a transaction: COPYs the lines, then runs in one round trip the
 * upserts and (when `deletes`) the deletes from the stage (keyed sinks),
 * the progress update `set` (EO; NULL = none) and COMMIT.  A failed
 * statement skips the rest: the caller rolls back.  The DELETE is left
 * out without deletes: joining the stage (no statistics) with the table
 * it may scan the whole table, which made upserts 4 times slower.
 */
static int send_and_commit(jd_sink *k, const sl_buf *lines, int deletes, const char *set,
                           sl_err *err)
{
	int rc = lines->len ? copy_lines(k, lines, err) : 0;
	if (rc)
		return rc;
	sl_buf_clear(&k->sql);
	if (k->npk && lines->len)
		sl_buf_printf(&k->sql, "%s; ", k->apply_sql);
	if (k->npk && lines->len && deletes)
		sl_buf_printf(&k->sql, "%s; ", k->delete_sql);
	if (set)
		put_set_progress(k, &k->sql, set);
	sl_buf_puts(&k->sql, "COMMIT");
	if (set)
		sl_fault("jdbc-before-commit");
	return exec_ok(k, sl_buf_cstr(&k->sql), "applying the changes", err);
}

/*
 * One attempt at applying lines.  id < 0: at-least-once (one COPY for an
 * append sink, one transaction for a keyed one).  id >= 0: the exactly-
 * once transaction of checkpoint id (see the header).
 */
static int apply_once(jd_sink *k, const sl_buf *lines, int deletes, int64_t id, sl_err *err)
{
	int rc;
	int64_t done, fence;
	char set[64];
	if ((rc = ensure_conn(k, err)))
		return rc;
	if (id < 0 && !k->npk)
		return lines->len ? copy_lines(k, lines, err) : 0; /* one COPY, atomic */
	if (id < 0 && (rc = exec_ok(k, "BEGIN", "BEGIN", err)))
		return rc;
	if (id >= 0) {
		if ((rc = lock_progress(k, 1, &done, &fence, err)))
			goto rollback;
		if (fence != k->fence) {
			k->fenced = 1;
			rc = sl_err_set(err, SL_ESTATE, "%s: another run of job '%s' took over table "
			                "'%s' (fence %lld, this run's %lld): this run stops",
			                k->what, k->job, k->table_name, (long long)fence,
			                (long long)k->fence);
			goto rollback;
		}
		if (done >= id)
			return exec_ok(k, "ROLLBACK", "ROLLBACK", err);
	}
	snprintf(set, sizeof set, "checkpoint_id = %lld", (long long)id);
	if ((rc = send_and_commit(k, lines, deletes, id >= 0 ? set : NULL, err)))
		goto rollback;
	if (id >= 0)
		sl_fault("jdbc-after-commit");
	return 0;
rollback:
	if (PQstatus(k->conn) == CONNECTION_OK) {
		PGresult *r = PQexec(k->conn, "ROLLBACK");
		PQclear(r);
	}
	return rc;
}

/*
 * After attempt `attempt` (from 0) of an idempotent statement ended with rc:
 * 1 when it is to be tried again ('sink.max-retries', a failure that may
 * pass: sl__pg_retryable, not a fence), after closing a broken connection
 * and waiting attempt + 1 seconds (Flink's back-off); else 0.
 */
static int retry_later(jd_sink *k, int rc, int64_t attempt)
{
	if (!rc || k->fenced || attempt >= k->retries || !sl__pg_retryable(k->conn))
		return 0;
	if (k->conn && PQstatus(k->conn) != CONNECTION_OK) {
		PQfinish(k->conn);
		k->conn = NULL;
	}
	sleep((unsigned)(attempt + 1));
	return 1;
}

/* apply_once, retried 'sink.max-retries' times on a new connection. */
static int apply(jd_sink *k, const sl_buf *lines, int deletes, int64_t id, sl_err *err)
{
	int rc = 0;
	for (int64_t attempt = 0;; attempt++) {
		k->fenced = 0;
		sl_err_clear(err);
		rc = apply_once(k, lines, deletes, id, err);
		if (!retry_later(k, rc, attempt))
			return rc;
	}
}

/* At-least-once: sends the buffered changes now. */
static int flush(jd_sink *k, sl_err *err)
{
	k->last_flush_us = k->base.proc_now;
	if (k->cur.live == 0)
		return 0;
	sl__jd_changes_compact(&k->cur);
	int rc = apply(k, &k->cur.lines, k->cur.ndel > 0, -1, err);
	if (!rc)
		sl__jd_changes_clear(&k->cur);
	return rc;
}

/* ---- writing ------------------------------------------------------------------ */

/* The sink operator prefixes write and finish errors with "sink '<table>'"
 * (op_sink.c): drops this file's own prefix from err's message. */
static int unprefixed(jd_sink *k, int rc, sl_err *err)
{
	size_t n = strlen(k->what);
	if (rc && err && !strncmp(err->msg, k->what, n) && err->msg[n] == ':' &&
	    err->msg[n + 1] == ' ')
		memmove(err->msg, err->msg + n + 2, strlen(err->msg + n + 2) + 1);
	return rc;
}

/* Encodes row `row` of b as one COPY line into k->line. */
static int encode_row(jd_sink *k, const sl_batch *b, int row, int op)
{
	sl_buf *l = &k->line;
	sl_buf_clear(l);
	if (k->npk && (sl_buf_putc(l, (char)op) || sl_buf_putc(l, '\t')))
		return SL_ENOMEM;
	for (int c = 0; c < k->nfields; c++)
		if ((c && sl_buf_putc(l, '\t')) || sl__pg_copy_value(&b->cols[c], row, l))
			return SL_ENOMEM;
	return sl_buf_putc(l, '\n');
}

static int jd_write(sl_sink *s, const sl_batch *b, sl_err *err)
{
	jd_sink *k = (jd_sink *)s;
	int rc;
	SL_BATCH_FOREACH(b, i, row) {
		int op = b->op[row] == SL_DELETE ? JD_OP_DELETE : JD_OP_UPSERT;
		if (!k->npk && b->op[row] != SL_INSERT)
			return sl_err_set(err, SL_EINVAL, "an update or delete reached an append-only "
			                  "jdbc sink (no PRIMARY KEY)");
		if (b->op[row] == SL_UPDATE_BEFORE)
			continue; /* op_sink.c never sends it to an upsert sink; be safe */
		sl_buf_clear(&k->key);
		if (op == JD_OP_DELETE)
			sl__jd_changes_note_delete(&k->cur);
		if (encode_row(k, b, row, op) ||
		    (k->npk && sl_rowcodec_key(b, k->pk, k->npk, row, &k->key)) ||
		    sl__jd_changes_add(&k->cur, k->key.p, k->key.len, (const char *)k->line.p,
		                       k->line.len, 0))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		s->rows_written++;
		if (k->mode == JD_ALO && k->max_rows > 0 && k->cur.live >= k->max_rows &&
		    (rc = flush(k, err)))
			return unprefixed(k, rc, err);
	}
	if (k->mode == JD_ALO && k->interval_us > 0 && k->cur.live > 0 &&
	    s->proc_now - k->last_flush_us >= k->interval_us && (rc = flush(k, err)))
		return unprefixed(k, rc, err);
	if (sl__jd_changes_bloated(&k->cur))
		sl__jd_changes_compact(&k->cur);
	return 0;
}

/* End of input: at-least-once flushes; exactly-once leaves the rows to the
 * final checkpoint. */
static int jd_finish(sl_sink *s, sl_err *err)
{
	jd_sink *k = (jd_sink *)s;
	return k->mode == JD_ALO ? unprefixed(k, flush(k, err), err) : 0;
}

/* ---- the checkpoint protocol -------------------------------------------------- */

/*
 * pre_commit: at-least-once flushes and writes u8 version, u8 0 (nothing
 * staged).  Exactly-once stages: the changes since the last checkpoint
 * (with those of an earlier checkpoint never committed, older first),
 * reduced per key, kept for commit and written into w: u8 version, u32
 * instance, u32 instances, u8 1, u8 keyed, i64 id, i64 lines, bytes (the
 * COPY text).  (Version 1, of parallelism 1, had no instance fields.)
 */
static int jd_pre_commit(sl_sink *s, int64_t id, sl_snap_writer *w, sl_err *err)
{
	jd_sink *k = (jd_sink *)s;
	int rc;
	sl_snap_put_u8(w, JD_SNAP_VERSION);
	sl_snap_put_u32(w, (uint32_t)k->subtask);
	sl_snap_put_u32(w, (uint32_t)k->nsubtasks);
	if (k->mode == JD_ALO) {
		if ((rc = flush(k, err)))
			return rc;
		sl_snap_put_u8(w, 0);
	} else {
		if (k->pend_id >= 0) {
			if (sl__jd_changes_merge_older(&k->cur, &k->pend))
				return sl_err_set(err, SL_ENOMEM, "%s: out of memory", k->what);
			sl__jd_changes_clear(&k->pend);
		}
		sl__jd_changes_compact(&k->cur);
		sl_snap_put_u8(w, 1);
		sl_snap_put_u8(w, (uint8_t)(k->npk > 0));
		sl_snap_put_i64(w, id);
		sl_snap_put_i64(w, k->cur.live);
		sl_snap_put_bytes(w, k->cur.lines.p, k->cur.lines.len);
		sl__jd_changes_move(&k->pend, &k->cur);
		k->pend_id = id;
	}
	if (w->failed)
		return sl_err_set(err, SL_ENOMEM, "%s: pre_commit: out of memory", k->what);
	return 0;
}

static int claim_row(jd_sink *k, int64_t id, sl_err *err);

/* commit: exactly-once applies the staged changes of checkpoint id (and
 * records id); a no-op when they are in already or nothing is staged. */
static int jd_commit(sl_sink *s, int64_t id, sl_err *err)
{
	jd_sink *k = (jd_sink *)s;
	if (k->mode == JD_ALO || k->pend_id < 0 || k->pend_id > id)
		return 0;
	if (!k->fence_known) { /* a rescale gave this instance no record */
		int r0 = claim_row(k, k->pend_id, err);
		if (r0)
			return r0;
	}
	int rc = apply(k, &k->pend.lines, k->pend.ndel > 0, k->pend_id, err);
	if (!rc) {
		sl__jd_changes_clear(&k->pend);
		k->pend_id = -1;
	}
	return rc;
}

/* abort: the staged changes go back into the buffer (older than what came
 * since), so the next checkpoint carries them. */
static int jd_abort(sl_sink *s, int64_t id, sl_err *err)
{
	jd_sink *k = (jd_sink *)s;
	if (k->mode == JD_ALO || k->pend_id != id)
		return 0;
	if (sl__jd_changes_merge_older(&k->cur, &k->pend))
		return sl_err_set(err, SL_ENOMEM, "%s: out of memory", k->what);
	sl__jd_changes_clear(&k->pend);
	k->pend_id = -1;
	return 0;
}

/* Creates the progress table if needed and this sink's row. */
static int progress_row(jd_sink *k, sl_err *err)
{
	sl_buf_clear(&k->sql);
	sl_buf_printf(&k->sql, "CREATE TABLE IF NOT EXISTS %s (job text NOT NULL, "
	              "sink text NOT NULL, checkpoint_id bigint NOT NULL, fence bigint NOT NULL, "
	              "updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (job, sink))",
	              k->progress_tab);
	int rc = exec_ok(k, sl_buf_cstr(&k->sql), "creating sluice_sink_progress", err);
	if (rc) {
		sl_err_append(err, " (the exactly-once jdbc sink keeps its progress in that table, "
		              "in the schema of '%s'; create it or grant CREATE there)",
		              k->table_name);
		return rc;
	}
	sl_buf_clear(&k->sql);
	sl_buf_printf(&k->sql, "INSERT INTO %s (job, sink, checkpoint_id, fence) VALUES (",
	              k->progress_tab);
	sl__pg_quote_literal(&k->sql, k->job);
	sl_buf_puts(&k->sql, ", ");
	sl__pg_quote_literal(&k->sql, k->sink_id);
	sl_buf_puts(&k->sql, ", 0, 0) ON CONFLICT DO NOTHING");
	return exec_ok(k, sl_buf_cstr(&k->sql), "inserting into sluice_sink_progress", err);
}

/*
 * One attempt at recovering (exactly-once): in one transaction, locks the
 * progress row, bumps the fence, and applies lines of checkpoint id (id
 * >= 1) unless done; id 0 = a start without a checkpoint.
 */
static int recover_once(jd_sink *k, const sl_buf *lines, int64_t id, sl_err *err)
{
	int64_t done, fence;
	char set[96];
	int rc;
	if ((rc = ensure_conn(k, err)) || (rc = progress_row(k, err)))
		return rc;
	if ((rc = lock_progress(k, 1, &done, &fence, err)))
		goto rollback;
	if (done > id && !(id == 0 && k->overwrite)) {
		k->fenced = 1; /* not worth retrying */
		if (id == 0)
			rc = sl_err_set(err, SL_ESTATE, "%s: table '%s' holds the output of checkpoint "
			                "%lld of job '%s' (%s) and the job starts without a checkpoint: "
			                "its changes would be applied twice; restore the checkpoint, "
			                "rename the job, or start with --fresh --overwrite-output (which "
			                "resets the progress row, not the table)", k->what, k->table_name,
			                (long long)done, k->job, k->progress_tab);
		else
			rc = sl_err_set(err, SL_ESTATE, "%s: table '%s' holds the output of checkpoint "
			                "%lld, newer than the restored checkpoint %lld (%s): falling "
			                "back would apply changes twice", k->what, k->table_name,
			                (long long)done, (long long)id, k->progress_tab);
		goto rollback;
	}
	snprintf(set, sizeof set, "fence = %lld, checkpoint_id = %lld", (long long)fence + 1,
	         (long long)(id > done || k->overwrite ? id : done));
	if ((rc = send_and_commit(k, id > done ? lines : &(sl_buf){0}, 1, set, err)))
		goto rollback;
	k->fence = fence + 1;
	k->fence_known = 1;
	return 0;
rollback:
	if (k->conn && PQstatus(k->conn) == CONNECTION_OK)
		PQclear(PQexec(k->conn, "ROLLBACK"));
	return rc;
}

/* Reads a pre-commit record; *lines points into r's buffer. */
static int read_record(jd_sink *k, sl_snap_reader *r, int *staged, int64_t *id, sl_buf *lines,
                       int *inst, int *ninst, sl_err *err)
{
	uint8_t ver = sl_snap_get_u8(r);
	*inst = 0;
	*ninst = 1;
	if (ver >= 2) {
		*inst = (int)sl_snap_get_u32(r);
		*ninst = (int)sl_snap_get_u32(r);
	}
	*staged = sl_snap_get_u8(r);
	*id = 0;
	if (*staged) {
		uint8_t keyed = sl_snap_get_u8(r);
		size_t n = 0;
		*id = sl_snap_get_i64(r);
		(void)sl_snap_get_i64(r);
		const void *p = sl_snap_get_bytes(r, &n);
		if (!p || keyed != (k->npk > 0))
			goto damaged;
		lines->p = (void *)p; /* borrowed: never freed or grown */
		lines->len = lines->cap = n;
	}
	if (!sl_snap_reader_ok(r) || ver < 1 || ver > JD_SNAP_VERSION || r->pos != r->len ||
	    *id < 0 || *ninst < 1 || *inst < 0 || *inst >= *ninst)
		goto damaged;
	return 0;
damaged:
	return sl_err_set(err, SL_ESTATE, "%s: damaged jdbc sink checkpoint data (or the "
	                  "table's PRIMARY KEY changed since the checkpoint)", k->what);
}

/* recover_once, retried 'sink.max-retries' times on a new connection. */
static int recover_retried(jd_sink *k, const sl_buf *lines, int64_t id, sl_err *err)
{
	for (int64_t attempt = 0;; attempt++) {
		k->fenced = 0;
		sl_err_clear(err);
		int rc = recover_once(k, lines, id, err);
		if (!retry_later(k, rc, attempt))
			return rc;
	}
}

/*
 * A rescale (exactly-once): the record of old instance `inst` is
 * recovered against that instance's progress row ("<table>/<inst>"),
 * whichever new instance the runtime gave it to (old record j goes to new
 * instance j % p'): its changes are applied unless that row shows them
 * in, the row's fence is bumped (a run of the old instance still alive
 * commits nothing more), and a row newer than the restored checkpoint is
 * refused, exactly as at the same parallelism.  This instance takes the
 * fence as its own only from its own row (inst == its instance number).
 */
static int recover_rescaled(jd_sink *k, const sl_buf *lines, int64_t id, int inst, sl_err *err)
{
	char own[sizeof k->sink_id];
	memcpy(own, k->sink_id, sizeof own);
	int64_t fence = k->fence;
	int known = k->fence_known;
	char *slash = strrchr(own, '/');
	snprintf(k->sink_id, sizeof k->sink_id, "%.*s/%d", slash ? (int)(slash - own) : 0, own,
	         inst);
	int rc = recover_retried(k, lines, id, err);
	memcpy(k->sink_id, own, sizeof own);
	if (inst != k->subtask) { /* another instance's row: not this one's fence */
		k->fence = fence;
		k->fence_known = known;
	}
	if (rc)
		sl_err_append(err, " (rescaled: the record of old instance %d, progress row '%.*s/%d')",
		              inst, slash ? (int)(slash - own) : 0, own, inst);
	return rc;
}

/*
 * An instance a rescale gave no record (a new instance above the old
 * parallelism) takes its row's fence before its first commit of
 * checkpoint id: as a recovery of checkpoint id - 1 with nothing staged
 * (a row showing id or later refuses: those changes would be skipped).
 */
static int claim_row(jd_sink *k, int64_t id, sl_err *err)
{
	return recover_retried(k, &(sl_buf){0}, id - 1, err);
}

/*
 * recover: at-least-once has nothing staged (a record of the exactly-once
 * mode is refused: its changes would be lost).  Exactly-once: bumps the
 * fence and applies the restored checkpoint's changes unless the progress
 * row shows them applied; refuses (SL_ESTATE) a progress row newer than
 * the restored checkpoint.  r NULL = a start without a checkpoint.  A
 * record written by another instance or at another parallelism (a
 * rescale) is checked against its writer's row (recover_rescaled), so the
 * runtime may give the records to any new instances, each to one; an
 * instance that got none takes its own row's fence at its first commit
 * (claim_row).
 */
static int jd_recover(sl_sink *s, sl_snap_reader *r, sl_err *err)
{
	jd_sink *k = (jd_sink *)s;
	sl_buf lines = {0};
	int staged = 0, rc, inst = 0, ninst = 1;
	int64_t id = 0;
	if (r && (rc = read_record(k, r, &staged, &id, &lines, &inst, &ninst, err)))
		return rc;
	if (r && k->mode == JD_EO && (inst != k->subtask || ninst != k->nsubtasks))
		return recover_rescaled(k, &lines, id, inst, err);
	if (k->mode == JD_ALO) {
		if (staged)
			return sl_err_set(err, SL_ESTATE, "%s: the restored checkpoint staged changes "
			                  "for 'sink.delivery-guarantee' = 'exactly-once'; restore it "
			                  "with that guarantee", k->what);
		return 0;
	}
	return recover_retried(k, &lines, id, err);
}

static int jd_can_update(const sl_conn_args *a)
{
	return a->npk > 0;
}

/* Closes the connection; buffered and staged changes are dropped (the
 * checkpoint has the staged ones). */
static void jd_close(sl_sink *s)
{
	jd_sink *k = (jd_sink *)s;
	if (k->conn) /* libpq may not be loaded when configure failed early */
		PQfinish(k->conn);
	k->conn = NULL;
	sl__pg_table_free(&k->tab);
	sl__pg_params_free(&k->params);
	sl__jd_changes_deinit(&k->cur);
	sl__jd_changes_deinit(&k->pend);
	sl_buf_deinit(&k->line);
	sl_buf_deinit(&k->key);
	sl_buf_deinit(&k->sql);
	free(k->table_name);
	free(k->pk);
	free(k->job);
	free(k->copy_sql);
	free(k->stage_sql);
	free(k->apply_sql);
	free(k->delete_sql);
	free(k->progress_tab);
	k->table_name = k->job = k->copy_sql = k->stage_sql = k->apply_sql = k->delete_sql = NULL;
	k->progress_tab = NULL;
	k->pk = NULL;
}

/* The 'jdbc' sink method table. */
const sl_sink_vtab sl_jdbc_sink_vtab = {
	.name = "jdbc",
	.size = sizeof(jd_sink),
	.accepts_updates = 1,
	.can_update = jd_can_update,
	.guarantee = "at-least-once",
	.upsert = 1,
	.configure = jd_configure,
	.open = jd_open,
	.write = jd_write,
	.finish = jd_finish,
	.pre_commit = jd_pre_commit,
	.commit = jd_commit,
	.abort = jd_abort,
	.recover = jd_recover,
	.close = jd_close,
};
