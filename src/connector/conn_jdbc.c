/*
 * conn_jdbc.c - the sink of Flink's 'jdbc' connector, into PostgreSQL
 * through libpq (docs/postgres.md).  Configured while the job is planned
 * (options and the URL checked, no connection: EXPLAIN touches no server)
 * and opened when it starts: open connects, checks the table against the
 * sink's columns (conn_pg.c: a missing table, a missing column or a type
 * that cannot hold the values fails the job before any row, naming the
 * column) and prepares the statements.
 *
 * Rows are encoded once, as tuples of COPY's binary format in the binary
 * form of each column's database type (conn_pg.c: the server parses no
 * text; about a quarter to a half less of its CPU, docs/postgres.md; an
 * ARRAY, nested up to 6 levels, as array_send's form), into a buffer of
 * changes (conn_jdbc_changes.c); COPY's text format is still read back
 * from a pre-commit record of an older version.  Without a PRIMARY KEY the table is
 * appended to: the entries go by COPY straight into it (COPY beat
 * multi-row INSERT by far, docs/postgres.md has the figures).  With one, every row is an
 * upsert (+I, +U) or a delete by key (-D; op_sink.c turns -U into either
 * nothing or a -D), reduced per key in the buffer; a flush COPYs the lines
 * with their kind into a temporary table and runs, in one transaction,
 * INSERT ... SELECT ... ON CONFLICT (key) DO UPDATE for the upserts and
 * DELETE ... USING for the deletes (each key appears once, so neither
 * statement touches a row twice: SQLSTATE 21000); a batch of new keys
 * goes by COPY straight into the table first (send_direct).
 *
 * Pipelining (at-least-once, send_batch): a flush sends its batch as one
 * query string the server runs to its end alone, and returns while the
 * server writes; the reply is read before anything else is sent
 * (settle).  A pipelined batch that fails is applied again synchronously
 * (apply), as before pipelining.  Exactly-once keeps no transaction open
 * across a wait (docs/postgres.md: a postgres-cdc source creating its
 * slot on the same server waits for every open transaction, and the
 * checkpoint that would end ours waits for that source).
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
 *       reduced per key, in the checkpoint itself (the pre-commit record,
 *       jd_pre_commit: the entries as they go to COPY) and
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

#define JD_SNAP_VERSION 3 /* 2: COPY text only; 1: also before the writer's instance */
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
	char *direct_sql;      /* keyed: COPY <target> (...) FROM STDIN */
	char *stage_sql;       /* keyed: CREATE TEMP TABLE ... (per connection) */
	char *apply_sql;       /* keyed: upsert from the stage */
	char *delete_sql;      /* keyed: delete from the stage */
	char *progress_tab;    /* EO: "schema".sluice_sink_progress */
	sl_jd_changes cur;     /* changes since the last flush / checkpoint */
	sl_jd_changes pend;    /* EO: pre-committed, not yet committed */
	sl_jd_changes fly;     /* ALO: sent by flush, its result not read yet */
	int fly_on;            /* ALO: fly is in flight (send_batch): its result unread */
	int fly_direct;        /* ALO: fly went by the direct path */
	int64_t pend_id;       /* its checkpoint, -1 = none */
	int64_t fence;         /* EO: this run's fence (recover) */
	int fence_known;       /* EO: fence was taken on this instance's own row */
	int64_t last_flush_us; /* processing time of the last flush */
	int fenced;            /* the last failure was the fence: do not retry */
	int direct_skip;       /* keyed: flushes left to send through the stage */
	int direct_backoff;    /* keyed: what the next conflict sets direct_skip to */
	int bin;               /* rows are encoded in COPY's binary format, not text */
	sl_buf line, key, sql, out; /* scratch */
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
	sl_buf_init(&k->out);
	sl__jd_changes_init(&k->cur, a->npk > 0);
	sl__jd_changes_init(&k->pend, a->npk > 0);
	sl__jd_changes_init(&k->fly, a->npk > 0);
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
		sl_buf_printf(b, "COPY %s (", k->tab.qname);
		put_cols(k, b, "");
		sl_buf_puts(b, ") FROM STDIN");
		k->direct_sql = buf_take(b);
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
	if (!k->copy_sql || (k->npk && (!k->stage_sql || !k->direct_sql || !k->apply_sql || !k->delete_sql)) ||
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
	/* binary COPY unless a column has no binary form here, or the tests
	 * ask for the text form (tests/pg/sink.sh compares the two) */
	const char *txt = getenv("SLUICE_JDBC_COPY_TEXT");
	k->bin = !(txt && !strcmp(txt, "1"));
	for (int i = 0; i < k->nfields; i++)
		k->bin &= k->tab.kinds[i] != SL_PGK_NONE;
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

/*
 * The entries of a buffer of changes: lines of COPY's text format, or
 * tuples of its binary format (a 16-bit field count, then each field's
 * 32-bit length, -1 for NULL, and bytes).  A keyed sink's entries start
 * with their kind, a field of their own: "1<tab>" or "2<tab>" in text,
 * the 8 bytes of an int2 field of 1 or 2 (a tuple of the stage table,
 * whose first column it is) in binary.  entry_len is the length of the
 * entry at p, entry_is_delete whether it is a keyed delete.
 */
static size_t entry_len(int bin, const char *p, const char *end)
{
	if (!bin) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		return nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
	}
	const unsigned char *q = (const unsigned char *)p;
	size_t avail = (size_t)(end - p), off = 2;
	int nf = avail >= 2 ? q[0] << 8 | q[1] : 0;
	for (int i = 0; i < nf && off + 4 <= avail; i++) {
		int32_t n = (int32_t)((uint32_t)q[off] << 24 | (uint32_t)q[off + 1] << 16 |
		                      (uint32_t)q[off + 2] << 8 | q[off + 3]);
		off += 4 + (n > 0 ? (size_t)n : 0);
	}
	return off < avail ? off : avail;
}

static int entry_is_delete(int bin, const char *p, size_t n)
{
	return bin ? n > 7 && p[7] == 2 : n > 0 && p[0] == JD_OP_DELETE;
}

/* Which lines of a keyed buffer put_lines sends (an append sink's: all). */
enum { JD_ALL, JD_UPSERTS_BARE, JD_DELETES };

/*
 * Sends the lines of `lines` that `which` selects as COPY data, in chunks:
 * JD_ALL every byte as it is; JD_UPSERTS_BARE the upserts without their
 * kind ("1<tab>"), the rows of the table itself; JD_DELETES the deletes
 * with their kind, for the stage.  *ndel counts the delete lines seen
 * (keyed selections only).  0, or 1 when libpq refused the data (the
 * result then tells why).
 */
static int put_lines(jd_sink *k, const sl_buf *lines, int bin, int which, int64_t *ndel)
{
	const char *p = (const char *)lines->p, *end = p + lines->len;
	if (which == JD_ALL) {
		for (size_t off = 0; off < lines->len; off += JD_COPY_CHUNK) {
			size_t n = lines->len - off < JD_COPY_CHUNK ? lines->len - off : JD_COPY_CHUNK;
			if (PQputCopyData(k->conn, p + off, (int)n) != 1)
				return 1;
		}
		return 0;
	}
	sl_buf *o = &k->out;
	sl_buf_clear(o);
	while (p < end) {
		size_t n = entry_len(bin, p, end);
		int del = entry_is_delete(bin, p, n);
		size_t skip = which == JD_DELETES ? 0 : bin ? 8 : 2; /* the kind */
		*ndel += del;
		if (n > skip && (which == JD_DELETES ? del : !del)) {
			unsigned char fc[2] = {(unsigned char)(k->nfields >> 8), (unsigned char)k->nfields};
			if ((bin && skip && sl_buf_append(o, fc, 2)) ||
			    sl_buf_append(o, p + skip, n - skip))
				return 1;
		}
		p += n;
		if (o->len >= JD_COPY_CHUNK || (p >= end && o->len)) {
			if (PQputCopyData(k->conn, (const char *)o->p, (int)o->len) != 1)
				return 1;
			sl_buf_clear(o);
		}
	}
	return 0;
}

/*
 * A binary COPY's error names the row and the column, "COPY t, line 60,
 * column v", but not the value, which a text COPY's does ("column v:
 * \"toolong\""): finds the field in what was sent (the line-th entry
 * `which` selects) and appends it to err the same way, for the kinds
 * sl__pg_bin_text shows.
 */
static void note_value(jd_sink *k, const sl_buf *lines, int which, const PGresult *r,
                       sl_err *err)
{
	const char *ctx = r ? PQresultErrorField(r, PG_DIAG_CONTEXT) : NULL;
	const char *l = ctx ? strstr(ctx, ", line ") : NULL;
	char *e;
	if (!l)
		return;
	unsigned long long line = strtoull(l + 7, &e, 10);
	if (strncmp(e, ", column ", 9) || !line)
		return;
	const char *col = e + 9;
	size_t clen = strcspn(col, "\n");
	int fi = -1, first = k->npk && which != JD_UPSERTS_BARE; /* the stage's kind */
	for (int i = 0; i < k->nfields && fi < 0; i++) {
		sl_buf_clear(&k->key); /* the quoted name ("a""b"), unquoted */
		for (const char *q = k->tab.cols[i] + 1; q[0] && q[1]; q++) {
			if (sl_buf_putc(&k->key, *q))
				return;
			if (q[0] == '"')
				q++;
		}
		if (k->key.len == clen && !memcmp(k->key.p, col, clen))
			fi = i;
	}
	if (fi < 0)
		return;
	const char *p = (const char *)lines->p, *end = p + lines->len;
	for (unsigned long long seen = 0; p < end;) {
		size_t n = entry_len(1, p, end);
		int del = entry_is_delete(1, p, n);
		if ((which == JD_ALL || (which == JD_DELETES ? del : !del)) && ++seen == line)
			break;
		p += n;
	}
	if (p >= end)
		return;
	const unsigned char *q = (const unsigned char *)p + 2, *qe = (const unsigned char *)end;
	for (int i = 0; i <= fi + first && q + 4 <= qe; i++) {
		int32_t n = (int32_t)((uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 |
		                      (uint32_t)q[2] << 8 | q[3]);
		if (i == fi + first) {
			sl_buf_clear(&k->key);
			if (n <= (int32_t)(qe - q - 4) &&
			    !sl__pg_bin_text(q + 4, n, k->tab.kinds[fi], &k->key))
				sl_err_append(err, ": \"%.*s\"", (int)k->key.len, (const char *)k->key.p);
			return;
		}
		q += 4 + (n > 0 ? n : 0);
	}
}

/* COPY with `sql` the lines of `lines` that `which` selects (put_lines).
 * 0, SL_EIO with err, or 1 (err untouched) when the COPY failed on a
 * unique violation (SQLSTATE 23505) and conflict_ok is set. */
static int copy_lines(jd_sink *k, const char *sql, const sl_buf *lines, int bin, int which,
                      int64_t *ndel, int conflict_ok, sl_err *err)
{
	PGresult *r;
	if (bin) {
		sl_buf_clear(&k->sql);
		sl_buf_printf(&k->sql, "%s (FORMAT binary)", sql);
		sql = sl_buf_cstr(&k->sql);
	}
	r = PQexec(k->conn, sql);
	if (PQresultStatus(r) != PGRES_COPY_IN) {
		sl_err_set(err, SL_EIO, "%s: COPY into '%s' failed: %s", k->what, k->table_name,
		           r && PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY)
		               ? sl__pg_result_error(r) : sl__pg_error(k->conn));
		PQclear(r);
		return SL_EIO;
	}
	PQclear(r);
	int failed = (bin && PQputCopyData(k->conn, SL_PG_BIN_HEADER, SL_PG_BIN_HEADER_LEN) != 1) ||
	             put_lines(k, lines, bin, which, ndel) ||
	             (bin && PQputCopyData(k->conn, SL_PG_BIN_TRAILER, 2) != 1);
	PQputCopyEnd(k->conn, failed ? "sluice: out of memory" : NULL);
	r = PQgetResult(k->conn);
	int ok = PQresultStatus(r) == PGRES_COMMAND_OK, rc = ok ? 0 : SL_EIO;
	const char *st = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	if (!ok && conflict_ok && !failed && st && !strcmp(st, "23505"))
		rc = 1;
	else if (!ok) {
		sl_err_set(err, SL_EIO, "%s: COPY into '%s' failed: %s", k->what, k->table_name,
		           r && PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY)
		               ? sl__pg_result_error(r) : sl__pg_error(k->conn));
		if (bin)
			note_value(k, lines, which, r, err);
	}
	PQclear(r);
	while ((r = PQgetResult(k->conn)))
		PQclear(r);
	return rc;
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
 * Keyed sinks, inside a transaction: the optimistic path.  Under a
 * savepoint, COPYs the upserts of `lines` straight into the table, as
 * rows, and the deletes (if any) into the stage; *ndel counts them.  A
 * COPY into a table with a key costs the server about half of INSERT ...
 * ON CONFLICT (multi-row heap inserts, no speculative insertion, no
 * stage to read back: docs/postgres.md has the figures), and holds
 * exactly when no upserted key is in the table yet, as with window
 * results.  When one is (SQLSTATE 23505), rolls back to the savepoint
 * and returns 1: the caller sends the batch through the stage, and the
 * next flushes skip this path (1, 2, 4 ... 64 of them) so that an
 * updating stream pays for a failed COPY rarely.  0, 1, or SL_EIO with
 * err.
 */
static int send_direct(jd_sink *k, const sl_buf *lines, int bin, int64_t *ndel, sl_err *err)
{
	int rc = exec_ok(k, "SAVEPOINT sluice_direct", "SAVEPOINT", err);
	if (!rc)
		rc = copy_lines(k, k->direct_sql, lines, bin, JD_UPSERTS_BARE, ndel, 1, err);
	if (rc == 1) {
		if (exec_ok(k, "ROLLBACK TO SAVEPOINT sluice_direct", "ROLLBACK TO SAVEPOINT", err))
			return SL_EIO;
		k->direct_backoff = !k->direct_backoff ? 1 : k->direct_backoff < 64
		                                                 ? 2 * k->direct_backoff : 64;
		k->direct_skip = k->direct_backoff;
		return 1;
	}
	k->direct_backoff = 0;
	if (!rc && *ndel) {
		int64_t n = 0;
		rc = copy_lines(k, k->copy_sql, lines, bin, JD_DELETES, &n, 0, err);
	}
	return rc;
}

/*
 * Inside a transaction: applies the lines (COPY for an append sink; for a
 * keyed one send_direct, or the stage: COPY of every line with its kind,
 * then the upsert and the delete from the stage), then runs in one round
 * trip what is left of the keyed statements, the progress update `set`
 * (EO; NULL = none) and COMMIT.  A failed statement skips the rest: the
 * caller rolls back.  The DELETE is left out without deletes: joining the
 * stage (no statistics) with the table it may scan the whole table, which
 * made upserts 4 times slower.  `deletes`: the lines may hold a delete
 * (the stage path only; send_direct counts them).
 */
static int send_and_commit(jd_sink *k, const sl_buf *lines, int bin, int deletes,
                           const char *set, sl_err *err)
{
	int rc = 0, staged = 0;
	int64_t ndel = 0;
	if (lines->len && k->npk) {
		if (k->direct_skip > 0) {
			k->direct_skip--;
			rc = 1;
		} else {
			rc = send_direct(k, lines, bin, &ndel, err);
		}
		if (rc == 1) {
			staged = 1;
			rc = copy_lines(k, k->copy_sql, lines, bin, JD_ALL, &ndel, 0, err);
		}
	} else if (lines->len) {
		rc = copy_lines(k, k->copy_sql, lines, bin, JD_ALL, &ndel, 0, err);
	}
	if (rc)
		return rc;
	sl_buf_clear(&k->sql);
	if (staged)
		sl_buf_printf(&k->sql, "%s; ", k->apply_sql);
	if ((staged && deletes) || (!staged && ndel))
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
static int apply_once(jd_sink *k, const sl_buf *lines, int bin, int deletes, int64_t id,
                      sl_err *err)
{
	int rc;
	int64_t done, fence;
	char set[64];
	if ((rc = ensure_conn(k, err)))
		return rc;
	if (id < 0 && !k->npk)
		return lines->len ? copy_lines(k, k->copy_sql, lines, bin, JD_ALL, &(int64_t){0}, 0, err)
		                  : 0; /* one COPY, atomic */
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
	if ((rc = send_and_commit(k, lines, bin, deletes, id >= 0 ? set : NULL, err)))
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
static int apply(jd_sink *k, const sl_buf *lines, int bin, int deletes, int64_t id, sl_err *err)
{
	int rc = 0;
	for (int64_t attempt = 0;; attempt++) {
		k->fenced = 0;
		sl_err_clear(err);
		rc = apply_once(k, lines, bin, deletes, id, err);
		if (!retry_later(k, rc, attempt))
			return rc;
	}
}

/*
 * At-least-once, pipelined: sends `lines` (ndel of them deletes) as one
 * query string that the server runs to its end by itself, with its
 * COPY's data and end, and returns without reading the result, so that
 * the server writes the batch while the sink reads and encodes the next
 * one (settle reads the result before anything else is sent).  The
 * connection is left in libpq's nonblocking mode, its output queued in
 * libpq and pushed by pump() as rows arrive and by settle.
 *
 * The string: an append sink's COPY; a keyed sink's COPY straight into
 * the table (the direct path, send_direct: in autocommit the COPY is its
 * own transaction, all or nothing, so it needs no savepoint); or, while
 * the direct path is skipped, the stage path in one transaction (BEGIN;
 * COPY into the stage; INSERT ... ON CONFLICT; DELETE when the batch has
 * deletes; COMMIT).  A keyed batch with deletes on the direct path takes
 * two COPYs and is not sent this way.  Each string needs nothing more
 * from the sink once sent, so no transaction stays open waiting for it.
 * 0 = in flight; 1 = not sent, the connection idle (the caller applies
 * the batch synchronously, as before pipelining; its first attempt
 * reports or retries whatever failed here).
 */
static int send_batch(jd_sink *k, const sl_buf *lines, int64_t ndel, sl_err *err)
{
	const char *copy = k->copy_sql;
	int which = JD_ALL, direct = 0, stage = 0;
	PGresult *r;
	if (ensure_conn(k, err))
		return 1;
	if (k->npk) {
		if (k->direct_skip > 0)
			stage = 1;
		else if (ndel > 0)
			return 1;
		else {
			direct = 1;
			copy = k->direct_sql;
			which = JD_UPSERTS_BARE;
		}
	}
	sl_buf *q = &k->sql;
	sl_buf_clear(q);
	if (stage)
		sl_buf_puts(q, "BEGIN; ");
	sl_buf_printf(q, "%s%s", copy, k->bin ? " (FORMAT binary)" : "");
	if (stage)
		sl_buf_printf(q, "; %s%s%s%s", k->apply_sql, ndel > 0 ? "; " : "",
		              ndel > 0 ? k->delete_sql : "", "; COMMIT");
	if (!PQsendQuery(k->conn, sl_buf_cstr(q)))
		return 1;
	int copying = 0;
	while (!copying && (r = PQgetResult(k->conn))) { /* BEGIN, then the COPY */
		ExecStatusType st = PQresultStatus(r);
		copying = st == PGRES_COPY_IN;
		PQclear(r);
		if (!copying && st != PGRES_COMMAND_OK)
			break;
	}
	if (!copying) {
		while ((r = PQgetResult(k->conn)))
			PQclear(r);
		if (PQstatus(k->conn) == CONNECTION_OK && PQtransactionStatus(k->conn) != PQTRANS_IDLE)
			PQclear(PQexec(k->conn, "ROLLBACK"));
		return 1;
	}
	if (stage)
		k->direct_skip--;
	PQsetnonblocking(k->conn, 1);
	int failed = (k->bin && PQputCopyData(k->conn, SL_PG_BIN_HEADER, SL_PG_BIN_HEADER_LEN) != 1) ||
	             put_lines(k, lines, k->bin, which, &(int64_t){0}) ||
	             (k->bin && PQputCopyData(k->conn, SL_PG_BIN_TRAILER, 2) != 1);
	PQputCopyEnd(k->conn, failed ? "sluice: out of memory" : NULL);
	k->fly_on = 1;
	k->fly_direct = direct;
	return 0;
}

/* Pushes what libpq holds of a batch in flight to the server, as far as
 * the socket takes it without waiting. */
static void pump(jd_sink *k)
{
	if (k->fly_on)
		PQflush(k->conn);
}

/*
 * Reads the results of the batch in flight (send_batch), in blocking mode
 * again: 0 when every statement succeeded; else 1, with the transaction
 * rolled back (the server then ran none of it) and, when the direct COPY
 * was refused on a key already in the table (SQLSTATE 23505), the
 * back-off of send_direct set so that the caller's synchronous apply and
 * the next flushes go through the stage.
 */
static int read_flight(jd_sink *k)
{
	PGresult *r;
	int ok = 1, conflict = 0;
	k->fly_on = 0;
	PQsetnonblocking(k->conn, 0);
	while ((r = PQgetResult(k->conn))) {
		ExecStatusType st = PQresultStatus(r);
		if (st == PGRES_COPY_IN) /* cannot happen: the COPY was ended */
			PQputCopyEnd(k->conn, "sluice: unexpected COPY");
		if (st != PGRES_COMMAND_OK && ok) {
			const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
			conflict = k->fly_direct && state && !strcmp(state, "23505");
			ok = 0;
		}
		PQclear(r);
	}
	if (ok) {
		if (k->fly_direct)
			k->direct_backoff = 0;
		return 0;
	}
	if (PQstatus(k->conn) == CONNECTION_OK && PQtransactionStatus(k->conn) != PQTRANS_IDLE)
		PQclear(PQexec(k->conn, "ROLLBACK"));
	if (conflict) { /* as send_direct; apply's own flush takes one skip */
		k->direct_backoff = !k->direct_backoff ? 1 : k->direct_backoff < 64
		                                                 ? 2 * k->direct_backoff : 64;
		k->direct_skip = k->direct_backoff + 1;
	}
	return 1;
}

/*
 * At-least-once: reads the result of the batch in flight (send_batch).
 * When a statement of it failed the server ran none of it, and the batch
 * is applied again synchronously with apply, which retries
 * ('sink.max-retries') or reports the failure as before pipelining.  0 or
 * an error.
 */
static int settle(jd_sink *k, sl_err *err)
{
	if (!k->fly_on || !read_flight(k)) {
		sl__jd_changes_clear(&k->fly);
		return 0;
	}
	int rc = apply(k, &k->fly.lines, k->bin, k->fly.ndel > 0, -1, err);
	if (!rc)
		sl__jd_changes_clear(&k->fly);
	return rc;
}

/* At-least-once: sends the buffered changes now, after reading the result
 * of the batch before (settle); the new batch stays in flight (send_batch)
 * unless it has to go synchronously. */
static int flush(jd_sink *k, sl_err *err)
{
	k->last_flush_us = k->base.proc_now;
	if (k->cur.live == 0)
		return 0;
	int rc = settle(k, err);
	if (rc)
		return rc;
	sl__jd_changes_compact(&k->cur);
	sl__jd_changes_move(&k->fly, &k->cur);
	if (!send_batch(k, &k->fly.lines, k->fly.ndel, err))
		return 0;
	rc = apply(k, &k->fly.lines, k->bin, k->fly.ndel > 0, -1, err);
	if (!rc)
		sl__jd_changes_clear(&k->fly);
	return rc;
}

/* At-least-once: flush, and wait until the server has applied it all. */
static int flush_wait(jd_sink *k, sl_err *err)
{
	int rc = flush(k, err);
	return rc ? rc : settle(k, err);
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

/* A value encode_row could not write: out of memory, or (SL_ERUNTIME) a
 * value PostgreSQL's column cannot hold, named by its column. */
static int encode_failed(jd_sink *k, int rc, int c, sl_err *err)
{
	if (rc != SL_ERUNTIME)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return sl_err_set(err, SL_ERUNTIME, "column '%s': %s", k->fields[c].name,
	                  sl__pg_value_error());
}

/* Encodes row `row` of b as one entry into k->line: a COPY line, or a
 * tuple of COPY's binary format (entry_len has the layout). */
static int encode_row(jd_sink *k, const sl_batch *b, int row, int op, sl_err *err)
{
	sl_buf *l = &k->line;
	int rc;
	sl_buf_clear(l);
	if (k->bin) {
		int nf = k->nfields + (k->npk > 0);
		unsigned char h[8] = {(unsigned char)(nf >> 8), (unsigned char)nf, 0, 0, 0, 2, 0,
		                      op == JD_OP_DELETE ? 2 : 1};
		if (sl_buf_append(l, h, k->npk ? 8 : 2))
			return encode_failed(k, SL_ENOMEM, 0, err);
		for (int c = 0; c < k->nfields; c++)
			if ((rc = sl__pg_bin_value(&b->cols[c], row, k->tab.kinds[c], l)))
				return encode_failed(k, rc, c, err);
		return 0;
	}
	if (k->npk && (sl_buf_putc(l, (char)op) || sl_buf_putc(l, '\t')))
		return encode_failed(k, SL_ENOMEM, 0, err);
	for (int c = 0; c < k->nfields; c++) {
		if (c && sl_buf_putc(l, '\t'))
			return encode_failed(k, SL_ENOMEM, 0, err);
		if ((rc = sl__pg_copy_value(&b->cols[c], row, l)))
			return encode_failed(k, rc, c, err);
	}
	return sl_buf_putc(l, '\n') ? encode_failed(k, SL_ENOMEM, 0, err) : 0;
}

static int jd_write(sl_sink *s, const sl_batch *b, sl_err *err)
{
	jd_sink *k = (jd_sink *)s;
	int rc;
	pump(k);
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
		if ((rc = encode_row(k, b, row, op, err)))
			return rc;
		if ((k->npk && sl_rowcodec_key(b, k->pk, k->npk, row, &k->key)) ||
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
	return k->mode == JD_ALO ? unprefixed(k, flush_wait(k, err), err) : 0;
}

/* ---- the checkpoint protocol -------------------------------------------------- */

/*
 * pre_commit: at-least-once flushes and writes u8 version, u8 0 (nothing
 * staged).  Exactly-once stages: the changes since the last checkpoint
 * (with those of an earlier checkpoint never committed, older first),
 * reduced per key, kept for commit and written into w: u8 version, u32
 * instance, u32 instances, u8 1, u8 keyed, u8 binary, i64 id, i64 lines,
 * bytes (the entries: COPY text lines, or binary tuples when binary is
 * 1).  (Version 2 had no binary byte, its entries being text; version 1,
 * of parallelism 1, no instance fields either.)
 */
static int jd_pre_commit(sl_sink *s, int64_t id, sl_snap_writer *w, sl_err *err)
{
	jd_sink *k = (jd_sink *)s;
	int rc;
	sl_snap_put_u8(w, JD_SNAP_VERSION);
	sl_snap_put_u32(w, (uint32_t)k->subtask);
	sl_snap_put_u32(w, (uint32_t)k->nsubtasks);
	if (k->mode == JD_ALO) {
		if ((rc = flush_wait(k, err)))
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
		sl_snap_put_u8(w, (uint8_t)k->bin);
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
	int rc = apply(k, &k->pend.lines, k->bin, k->pend.ndel > 0, k->pend_id, err);
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
static int recover_once(jd_sink *k, const sl_buf *lines, int bin, int64_t id, sl_err *err)
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
	if ((rc = send_and_commit(k, id > done ? lines : &(sl_buf){0}, bin, 1, set, err)))
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
                       int *bin, int *inst, int *ninst, sl_err *err)
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
		*bin = ver >= 3 ? sl_snap_get_u8(r) : 0;
		*id = sl_snap_get_i64(r);
		(void)sl_snap_get_i64(r);
		const void *p = sl_snap_get_bytes(r, &n);
		if (!p || keyed != (k->npk > 0) || *bin > 1)
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
static int recover_retried(jd_sink *k, const sl_buf *lines, int bin, int64_t id, sl_err *err)
{
	for (int64_t attempt = 0;; attempt++) {
		k->fenced = 0;
		sl_err_clear(err);
		int rc = recover_once(k, lines, bin, id, err);
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
static int recover_rescaled(jd_sink *k, const sl_buf *lines, int bin, int64_t id, int inst,
                            sl_err *err)
{
	char own[sizeof k->sink_id];
	memcpy(own, k->sink_id, sizeof own);
	int64_t fence = k->fence;
	int known = k->fence_known;
	char *slash = strrchr(own, '/');
	snprintf(k->sink_id, sizeof k->sink_id, "%.*s/%d", slash ? (int)(slash - own) : 0, own,
	         inst);
	int rc = recover_retried(k, lines, bin, id, err);
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
	return recover_retried(k, &(sl_buf){0}, k->bin, id - 1, err);
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
	int staged = 0, rc, inst = 0, ninst = 1, bin = k->bin;
	int64_t id = 0;
	if (r && (rc = read_record(k, r, &staged, &id, &lines, &bin, &inst, &ninst, err)))
		return rc;
	if (r && k->mode == JD_EO && (inst != k->subtask || ninst != k->nsubtasks))
		return recover_rescaled(k, &lines, bin, id, inst, err);
	if (k->mode == JD_ALO) {
		if (staged)
			return sl_err_set(err, SL_ESTATE, "%s: the restored checkpoint staged changes "
			                  "for 'sink.delivery-guarantee' = 'exactly-once'; restore it "
			                  "with that guarantee", k->what);
		return 0;
	}
	return recover_retried(k, &lines, bin, id, err);
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
	sl__jd_changes_deinit(&k->fly);
	sl_buf_deinit(&k->line);
	sl_buf_deinit(&k->key);
	sl_buf_deinit(&k->sql);
	sl_buf_deinit(&k->out);
	free(k->table_name);
	free(k->pk);
	free(k->job);
	free(k->copy_sql);
	free(k->direct_sql);
	free(k->stage_sql);
	free(k->apply_sql);
	free(k->delete_sql);
	free(k->progress_tab);
	k->table_name = k->job = k->copy_sql = k->direct_sql = k->stage_sql = k->apply_sql = k->delete_sql = NULL;
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
