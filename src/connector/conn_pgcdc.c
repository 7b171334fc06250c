/*
 * conn_pgcdc.c - the 'postgres-cdc' source: PostgreSQL tables' rows, then
 * their changes, read from the write-ahead log through logical
 * replication (libpq, the pgoutput plugin, protocol version 1), with
 * Flink CDC's option names.  docs/postgres.md describes its use; the
 * bytes are decoded by conn_pgcdc_proto.c.  'schema-name' and
 * 'table-name' name one table, or are regular expressions (holding one of
 * ^$*+?()[]{}|\.) matching whole names, as in Flink CDC: every matching
 * table (found at open, ordered by schema and name; each checked against
 * the DDL's columns) is copied in the one snapshot and streamed through
 * the one slot, and the schema_name / table_name metadata columns tell
 * their rows apart; their keys must not collide.  A restore keeps the
 * tables its checkpoint read: one created since is not read (Flink CDC's
 * default; 'scan.newly-added-table.enabled' = 'true' is refused).
 *
 * Output: the table's changelog.  An insert is +I; an update is -U(old)
 * +U(new) when the server sends the old row (REPLICA IDENTITY FULL), -U of
 * the old key then +U when the key changed, +U alone otherwise; a delete
 * is -D of the old row (FULL) or of its key.  s->changelog is set, so the
 * planner puts a ChangelogNormalize after the scan (a PRIMARY KEY is
 * required), which turns this into a full retract stream: it fills in
 * the old rows the server did not send.  A column left out of an update
 * because its value is TOASTed and unchanged ('u') is taken from the old
 * row when the server sent one, else it is marked SL_NULL_UNCHANGED
 * (conn.h) and the normaliser takes the value it stored for the key.
 *
 * Start (at the first read, once restore has or has not been called):
 *   fresh, 'initial', no slot: on the replication connection, BEGIN
 *       REPEATABLE READ; CREATE_REPLICATION_SLOT ... LOGICAL pgoutput
 *       (SNAPSHOT 'use'); COPY (SELECT cols FROM table) TO STDOUT; COMMIT;
 *       the copied rows are +I; then START_REPLICATION from the slot's
 *       consistent point, so no change is missed or doubled between the
 *       two.
 *   fresh, 'latest-offset': the slot is created if missing (SNAPSHOT
 *       'nothing'), streaming starts at its confirmed position.
 *   fresh, 'initial', the slot exists (a run killed before its first
 *       checkpoint), or restored during the snapshot: the snapshot is read
 *       again in a REPEATABLE READ transaction of its own and streaming
 *       starts at the slot's confirmed position (at or before the
 *       snapshot): changes between the two are read twice and the
 *       normaliser drops those it already has; keys end as in the table.
 *       A replayed update of a row the copy lacks (it is removed later in
 *       the replay) may leave a TOASTed value unsent: such changes, up to
 *       the WAL position read in the copy's transaction (overlap_end),
 *       mark it SL_NULL_UNCHANGED_REPLAY, NULL for that short while.
 *   restored in streaming: the slot must exist and must not have confirmed
 *       a position beyond the checkpoint's (PostgreSQL would silently
 *       start at its own position, skipping changes): refused, saying how
 *       many bytes of WAL would be skipped.
 *
 * Transactions: messages from Begin to Commit are kept (raw) until the
 * Commit, then decoded into rows; a transaction larger than a batch spans
 * reads.  The position is (end LSN of the last transaction read whole,
 * rows of the next one read): a restore starts streaming at the LSN and
 * drops that many rows of the first transaction, so a checkpoint that
 * falls inside a transaction neither loses nor doubles a row.  When no
 * transaction is open a keepalive moves the position to the server's WAL
 * end, so an idle table does not pin WAL.
 *
 * Confirmation: pre_commit remembers the position of checkpoint N; commit
 * (N) sends it to the server as the confirmed flush position, so WAL is
 * kept until a checkpoint holds everything before it.  Status updates go
 * every 10 s and whenever a keepalive asks for one.  The fault points
 * pgcdc-before-confirm and pgcdc-after-confirm (base/fault.h) sit either
 * side of telling the server, for tests/pg/cdc_crash.sh.
 *
 * Snapshot record, version 2: u8 2, u8 phase (1 snapshot, 2 streaming),
 * i64 LSN (phase 1: where streaming will start; 2: the position), i64
 * rows (phase 1: snapshot rows read; 2: rows of the next transaction
 * read), bytes slot name, i64 overlap_end (above; 0 = none), u32 number
 * of tables read, then bytes schema and bytes name of each.  Version 1
 * (no table list: every table matching at open is read) is still read.
 * A checkpoint taken before the first read restores as a fresh start.
 *
 * One instance (single_instance): one replication slot is one stream.
 * One thread, like every connector; the connections are never used by the
 * checkpoint child.
 */
#include "conn_builtin.h"
#include "conn_pg.h"
#include "conn_pgcdc.h"
#include "sluice.h"
#include "base/fault.h"

#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define PC_SNAP_VERSION 2
#define PC_STATUS_US (10 * 1000000LL)
#define PC_READ_US 10000 /* one read: at most 10 ms of socket reading */
#define PC_PG_EPOCH_US 946684800000000LL /* 2000-01-01 in Unix micros */
#define PC_RING 16

enum { PC_IDLE = 0, PC_SNAPSHOT = 1, PC_STREAM = 2 };
enum { META_OP_TS, META_DB, META_SCHEMA, META_TABLE };

static const char *const pc_meta_keys[] = {"op_ts", "database_name", "schema_name",
                                           "table_name", NULL};

/* One table the source reads ('schema-name' / 'table-name' may be
 * regular expressions matching several, of one schema: their rows go into
 * one changelog, told apart by the table_name metadata column). */
typedef struct pc_table {
	uint32_t oid;          /* pgoutput's relation id */
	char *schema, *tname;  /* as in the catalog */
	char *qname;           /* "schema"."table" */
	int have_rel;          /* a Relation message was read */
	char replident;
	int *relmap;           /* per field: column of the relation, or -1 */
} pc_table;

typedef struct pc_source {
	sl_source base;        /* must be first */
	char what[300];        /* "source 't'" */
	char *db, *schema, *tname, *slot, *pub;
	int latest;            /* 'scan.startup.mode' = 'latest-offset' */
	int nfields;
	char **names;          /* DDL column names */
	sl_type *types;        /* and types */
	int *meta;             /* per field: META_* or -1 */
	int nmeta;             /* fields that are metadata columns */
	int *pk, npk;
	sl_pg_params qp, rp;   /* query and replication connection parameters */
	PGconn *rc;            /* the replication connection */
	pc_table *tabs;        /* the tables read, ordered by schema and name */
	int ntabs;
	pc_table *cur;         /* the table of the row being made */
	int snap_tab;          /* the table the snapshot is copying */
	/* phase and position */
	int phase;
	int restored, rest_phase;
	int64_t rest_lsn, rest_rows;
	int64_t start_lsn;     /* where streaming starts */
	int64_t snap_rows;     /* snapshot rows read */
	int64_t pos_lsn;       /* end of the last transaction read whole */
	int64_t done_rows;     /* rows of the next transaction read (or dropped) */
	int64_t overlap_end;   /* WAL position of a copy taken after the stream's
	                        * start: changes up to it replay over the copy */
	/* the transaction being received / decoded */
	sl_buf txn;            /* messages: u32 length + bytes */
	int in_txn, ready;
	int64_t txn_end, txn_ts;
	int skip_truncate;     /* 'debezium.skipped.operations' holds 't' */
	size_t rd;             /* next message of a ready transaction */
	int64_t cur_row;       /* rows of the ready transaction produced so far */
	/* confirmation */
	int64_t confirmed, received;
	int64_t ring_id[PC_RING], ring_lsn[PC_RING];
	int nring;
	int64_t last_status;
	/* decoding */
	sl_pgo_arrays arr;
	sl_pgo_val *cv;
	sl_buf scratch;
	char emsg[256];
} pc_source;

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t wall_pg_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 - PC_PG_EPOCH_US;
}

static int nomem(pc_source *k, sl_err *err)
{
	return sl_err_set(err, SL_ENOMEM, "%s: out of memory", k->what);
}

/* ---- configure ----------------------------------------------------------- */

static char *dup_opt(const sl_opts *o, const char *key, const char *def)
{
	const char *v = sl_opts_get(o, key);
	return strdup(v ? v : def);
}

/* Appends key='value' to a conninfo string (value quoted as libpq reads it). */
static void conninfo_add(sl_buf *b, const char *key, const char *v)
{
	sl_buf_printf(b, "%s%s='", b->len ? " " : "", key);
	for (const char *p = v; *p; p++) {
		if (*p == '\'' || *p == '\\')
			sl_buf_putc(b, '\\');
		sl_buf_putc(b, *p);
	}
	sl_buf_putc(b, '\'');
}

static int check_meta(pc_source *k, const sl_conn_args *a, sl_err *err)
{
	for (int i = 0; i < a->nfields; i++) {
		k->meta[i] = -1;
		const char *m = a->meta ? a->meta[i] : NULL;
		if (!m)
			continue;
		int j = 0;
		while (pc_meta_keys[j] && strcmp(pc_meta_keys[j], m))
			j++;
		if (!pc_meta_keys[j])
			return sl_err_set(err, SL_EINVAL, "%s: Invalid metadata key '%s' in column '%s'. "
			                  "The connector supports the following metadata keys for "
			                  "reading: op_ts, database_name, schema_name, table_name",
			                  k->what, m, a->fields[i].name);
		sl_type t = a->fields[i].type;
		int ok = j == META_OP_TS ? t.id == SL_T_TIMESTAMP_LTZ
		                         : t.id == SL_T_VARCHAR || t.id == SL_T_CHAR;
		if (!ok) {
			char tb[64];
			return sl_err_set(err, SL_EINVAL, "%s: metadata column '%s' (key '%s') must be "
			                  "%s, not %s", k->what, a->fields[i].name, m,
			                  j == META_OP_TS ? "TIMESTAMP_LTZ(3)" : "STRING",
			                  sl_type_format(t, tb, sizeof tb));
		}
		k->meta[i] = j;
		k->nmeta++;
	}
	return 0;
}

/*
 * What a TRUNCATE of the table does.  Flink CDC reads PostgreSQL through
 * Debezium, which skips TRUNCATE by default (Debezium 1.9's
 * 'truncate.handling.mode' = 'skip', 2.x's 'skipped.operations' = 't'):
 * the job's results keep the rows the table lost, silently.  sluice fails
 * the job instead, naming the table and the LSN, unless those options ask
 * for the skip: 'debezium.skipped.operations' = 't' (a list of c, u, d,
 * t or 'none'; only t can be skipped) or 'debezium.truncate.handling.mode'
 * = 'skip' ('include' = fail, as no delete per row can be made).
 */
static int truncate_option(pc_source *k, const sl_opts *o, sl_err *err)
{
	const char *ops = sl_opts_get(o, "debezium.skipped.operations");
	const char *mode = sl_opts_get(o, "debezium.truncate.handling.mode");
	if (mode && strcmp(mode, "skip") && strcmp(mode, "include"))
		return sl_err_set(err, SL_EINVAL, "%s: 'debezium.truncate.handling.mode' = '%s': "
		                  "expected 'skip' or 'include'", k->what, mode);
	k->skip_truncate = mode && !strcmp(mode, "skip");
	if (!ops || !strcmp(ops, "none"))
		return 0;
	for (const char *c = ops; *c; c++) {
		if (*c == 't')
			k->skip_truncate = 1;
		else if (*c != ',' && *c != ' ')
			return sl_err_set(err, SL_ENOTSUP, "%s: 'debezium.skipped.operations' = '%s': "
			                  "only 't' (TRUNCATE) can be skipped, or 'none'", k->what, ops);
	}
	return 0;
}

static int pc_configure(sl_source *s, const sl_conn_args *a, sl_err *err)
{
	pc_source *k = (pc_source *)s;
	const sl_opts *o = a->opts;
	snprintf(k->what, sizeof k->what, "source '%s'", a->table);
	static const char *const req[] = {"hostname", "username", "password", "database-name",
	                                  "table-name", "slot.name"};
	for (size_t i = 0; i < sizeof req / sizeof *req; i++)
		if (!sl_opts_get(o, req[i]))
			return sl_err_set(err, SL_EINVAL, "%s: option '%s' is required for the "
			                  "postgres-cdc connector", k->what, req[i]);
	const char *plug = sl_opts_get(o, "decoding.plugin.name");
	if (plug && strcmp(plug, "pgoutput"))
		return sl_err_set(err, SL_ENOTSUP, "%s: 'decoding.plugin.name' = '%s': only "
		                  "'pgoutput' (PostgreSQL's built-in plugin) is supported", k->what,
		                  plug);
	const char *mode = sl_opts_get(o, "scan.startup.mode");
	if (mode && strcmp(mode, "initial") && strcmp(mode, "latest-offset"))
		return sl_err_set(err, SL_EINVAL, "%s: 'scan.startup.mode' = '%s': expected "
		                  "'initial' or 'latest-offset'", k->what, mode);
	k->latest = mode && !strcmp(mode, "latest-offset");
	const char *cm = sl_opts_get(o, "changelog-mode");
	if (cm && strcmp(cm, "all") && strcmp(cm, "upsert"))
		return sl_err_set(err, SL_EINVAL, "%s: 'changelog-mode' = '%s': expected 'all' or "
		                  "'upsert'", k->what, cm);
	/* Flink CDC's incremental (chunked, parallel) snapshot: accepted, the
	 * table is read in one pass whatever it says */
	int incr;
	if (sl_opts_bool(o, "scan.incremental.snapshot.enabled", 0, &incr, err))
		return err->code;
	(void)sl_opts_get(o, "scan.incremental.snapshot.chunk.size");
	/* tables created after the first start are not read (Flink CDC's
	 * default); reading them on restore is not done */
	int newly;
	if (sl_opts_bool(o, "scan.newly-added-table.enabled", 0, &newly, err))
		return err->code;
	if (newly)
		return sl_err_set(err, SL_ENOTSUP, "%s: 'scan.newly-added-table.enabled' = 'true' is "
		                  "not supported: the tables read are those matching at the job's "
		                  "first start (restart with --fresh to read tables created since)",
		                  k->what);
	if (truncate_option(k, o, err))
		return err->code;
	int64_t port;
	if (sl_opts_int(o, "port", 5432, &port, err))
		return err->code;
	if (port < 1 || port > 65535)
		return sl_err_set(err, SL_EINVAL, "%s: 'port' = %" PRId64 " is not a TCP port",
		                  k->what, port);
	if (!a->npk)
		return sl_err_set(err, SL_EINVAL, "%s: a postgres-cdc table needs a PRIMARY KEY "
		                  "(... PRIMARY KEY (id) NOT ENFORCED): updates and deletes are "
		                  "matched to rows by it", k->what);
	k->db = dup_opt(o, "database-name", "");
	k->schema = dup_opt(o, "schema-name", "public");
	k->tname = dup_opt(o, "table-name", "");
	k->slot = dup_opt(o, "slot.name", "");
	k->pub = dup_opt(o, "debezium.publication.name", "dbz_publication");
	k->nfields = a->nfields;
	k->names = calloc((size_t)a->nfields + 1, sizeof(char *));
	k->meta = calloc((size_t)a->nfields + 1, sizeof(int));
	k->types = calloc((size_t)a->nfields + 1, sizeof(sl_type));
	k->pk = calloc((size_t)a->npk + 1, sizeof(int));
	k->arr.rel = calloc(SL_PGO_MAX_COLS, sizeof(sl_pgo_relcol));
	k->arr.old = calloc(SL_PGO_MAX_COLS, sizeof(sl_pgo_val));
	k->arr.new_ = calloc(SL_PGO_MAX_COLS, sizeof(sl_pgo_val));
	k->arr.trunc_rel = calloc(SL_PGO_MAX_COLS, sizeof(uint32_t));
	k->cv = calloc((size_t)a->nfields + 1, sizeof(sl_pgo_val));
	if (!k->db || !k->schema || !k->tname || !k->slot || !k->pub || !k->names || !k->types || !k->meta ||
	    !k->pk || !k->arr.rel || !k->arr.old || !k->arr.new_ ||
	    !k->arr.trunc_rel || !k->cv)
		return nomem(k, err);
	for (int i = 0; i < a->nfields; i++) {
		if (!(k->names[i] = strdup(a->fields[i].name)))
			return nomem(k, err);
		k->types[i] = a->fields[i].type;
	}
	memcpy(k->pk, a->pk, sizeof(int) * (size_t)a->npk);
	k->npk = a->npk;
	int rc = check_meta(k, a, err);
	if (rc)
		return rc;
	for (int i = 0; i < a->nfields; i++) {
		if (k->meta[i] >= 0)
			continue;
		sl_type t = a->fields[i].type;
		char pb[64];
		if (!sl__pg_type_for(t, pb, sizeof pb)) { /* ROW, MAP, ARRAY of those */
			char tb[64];
			return sl_err_set(err, SL_ENOTSUP, "%s: column '%s': %s cannot be read from "
			                  "PostgreSQL by the postgres-cdc source", k->what,
			                  a->fields[i].name, sl_type_format(t, tb, sizeof tb));
		}
	}
	for (int i = 0; i < a->npk; i++)
		if (k->meta[a->pk[i]] >= 0)
			return sl_err_set(err, SL_EINVAL, "%s: the PRIMARY KEY cannot hold a metadata "
			                  "column ('%s')", k->what, a->fields[a->pk[i]].name);
	/* the connections: a plain one for catalog queries, a replication
	 * one (replication=database) for the slot, the snapshot and the
	 * stream; values print as conn_pgcdc_proto.c reads them */
	char pb[16];
	snprintf(pb, sizeof pb, "%" PRId64, port);
	sl_buf ci;
	sl_buf_init(&ci);
	conninfo_add(&ci, "host", sl_opts_get(o, "hostname"));
	conninfo_add(&ci, "port", pb);
	conninfo_add(&ci, "dbname", k->db);
	conninfo_add(&ci, "options", "-c DateStyle=ISO -c TimeZone=UTC -c extra_float_digits=3 "
	             "-c bytea_output=hex -c IntervalStyle=postgres");
	conninfo_add(&ci, "application_name", "sluice postgres-cdc");
	sl_buf_putc(&ci, 0);
	if (!ci.p)
		return nomem(k, err);
	rc = sl__pg_params_init(&k->qp, (const char *)ci.p, sl_opts_get(o, "username"),
	                        sl_opts_get(o, "password"), k->what, err);
	if (!rc) {
		ci.len--;
		conninfo_add(&ci, "replication", "database");
		sl_buf_putc(&ci, 0);
		rc = sl__pg_params_init(&k->rp, (const char *)ci.p, sl_opts_get(o, "username"),
		                        sl_opts_get(o, "password"), k->what, err);
	}
	sl_buf_deinit(&ci);
	if (rc)
		return rc;
	s->changelog = "postgres-cdc";
	return 0;
}

/* ---- open: the table, its columns and the publication -------------------- */

static int query_ok(PGresult *r)
{
	return r && (PQresultStatus(r) == PGRES_TUPLES_OK || PQresultStatus(r) == PGRES_COMMAND_OK);
}

/* Whether an option's name is a regular expression (Flink CDC reads
 * 'schema-name' and 'table-name' as such); a plain name is matched
 * exactly, so a name with no such character never needs escaping. */
static int is_regex(const char *s)
{
	return strpbrk(s, "^$*+?()[]{}|\\.") != NULL;
}

/* Finds the tables of 'schema-name' / 'table-name' into k->tabs. */
static int find_tables(pc_source *k, PGconn *c, sl_err *err)
{
	const char *tv[4] = {k->schema, k->tname, is_regex(k->schema) ? "t" : "f",
	                     is_regex(k->tname) ? "t" : "f"};
	PGresult *r = PQexecParams(c, "SELECT c.oid, c.relkind, n.nspname, c.relname FROM pg_class c "
	                           "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE "
	                           "(n.nspname = $1 OR ($3::boolean AND n.nspname ~ ('^(?:' || $1 "
	                           "|| ')$'))) AND (c.relname = $2 OR ($4::boolean AND c.relname ~ "
	                           "('^(?:' || $2 || ')$'))) AND (c.relkind IN ('r', 'p') OR "
	                           "(n.nspname = $1 AND c.relname = $2)) ORDER BY 3, 4",
	                           4, NULL, tv, NULL, NULL, 0);
	int rc = 0;
	if (!query_ok(r)) {
		rc = sl_err_set(err, SL_EIO, "%s: looking up table '%s.%s' failed: %s", k->what,
		                k->schema, k->tname, sl__pg_result_error(r));
		goto done;
	}
	int n = PQntuples(r);
	if (n == 0) {
		rc = sl_err_set(err, SL_EINVAL, "%s: table '%s.%s' does not exist in database '%s' "
		                "at %s", k->what, k->schema, k->tname, k->db, k->qp.where);
		goto done;
	}
	if (!(k->tabs = calloc((size_t)n, sizeof *k->tabs))) {
		rc = nomem(k, err);
		goto done;
	}
	for (int i = 0; i < n; i++) {
		pc_table *t = &k->tabs[k->ntabs++];
		if (strcmp(PQgetvalue(r, i, 1), "r") && strcmp(PQgetvalue(r, i, 1), "p")) {
			rc = sl_err_set(err, SL_EINVAL, "%s: '%s.%s' is not a table (relkind '%s')",
			                k->what, PQgetvalue(r, i, 2), PQgetvalue(r, i, 3),
			                PQgetvalue(r, i, 1));
			goto done;
		}
		t->oid = (uint32_t)strtoul(PQgetvalue(r, i, 0), NULL, 10);
		t->schema = strdup(PQgetvalue(r, i, 2));
		t->tname = strdup(PQgetvalue(r, i, 3));
		t->relmap = calloc((size_t)k->nfields + 1, sizeof(int));
		sl_buf qn;
		sl_buf_init(&qn);
		sl__pg_quote_ident(&qn, PQgetvalue(r, i, 2));
		sl_buf_putc(&qn, '.');
		sl__pg_quote_ident(&qn, PQgetvalue(r, i, 3));
		sl_buf_putc(&qn, 0);
		t->qname = (char *)qn.p;
		if (!t->schema || !t->tname || !t->relmap || !t->qname) {
			rc = nomem(k, err);
			goto done;
		}
	}
	k->cur = &k->tabs[0];
done:
	PQclear(r);
	return rc;
}

/* The DDL's columns must be table t's (by name as written, else folded to
 * lower case), of types holding the same values. */
static int check_columns(pc_source *k, PGconn *c, const pc_table *t, sl_err *err)
{
	char ob[16];
	snprintf(ob, sizeof ob, "%u", t->oid);
	const char *ov[1] = {ob};
	PGresult *r = PQexecParams(c, "SELECT a.attname, t.typname, a.atttypmod, "
	                           "format_type(a.atttypid, a.atttypmod) FROM pg_attribute a JOIN "
	                           "pg_type t ON t.oid = a.atttypid WHERE a.attrelid = $1::oid AND "
	                           "a.attnum > 0 AND NOT a.attisdropped", 1, NULL, ov, NULL, NULL, 0);
	int rc = 0;
	if (!query_ok(r)) {
		rc = sl_err_set(err, SL_EIO, "%s: reading the columns of '%s.%s' failed: %s", k->what,
		                t->schema, t->tname, sl__pg_result_error(r));
		goto done;
	}
	for (int i = 0; i < k->nfields && !rc; i++) {
		if (k->meta[i] >= 0)
			continue;
		int j = -1;
		for (int pass = 0; pass < 2 && j < 0; pass++)
			for (int q = 0; q < PQntuples(r) && j < 0; q++)
				if (pass ? !strcasecmp(PQgetvalue(r, q, 0), k->names[i])
				         : !strcmp(PQgetvalue(r, q, 0), k->names[i]))
					j = q;
		if (j < 0) {
			rc = sl_err_set(err, SL_EINVAL, "%s: column '%s' does not exist in table '%s.%s'",
			                k->what, k->names[i], t->schema, t->tname);
		} else if (!sl__pg_type_accepts(k->types[i], PQgetvalue(r, j, 1),
		                                atoi(PQgetvalue(r, j, 2)))) {
			char tb[64];
			rc = sl_err_set(err, SL_EINVAL, "%s: column '%s' of table '%s.%s' is %s in the "
			                "database, which does not match %s", k->what, k->names[i],
			                t->schema, t->tname, PQgetvalue(r, j, 3),
			                sl_type_format(k->types[i], tb, sizeof tb));
		}
	}
done:
	PQclear(r);
	return rc;
}

/* The publication: created for the tables when missing, a table it lacks
 * added to it (Debezium's 'filtered' mode). */
static int publication(pc_source *k, PGconn *c, sl_err *err)
{
	const char *pv[1] = {k->pub};
	PGresult *r = PQexecParams(c, "SELECT puballtables FROM pg_publication WHERE pubname = $1",
	                           1, NULL, pv, NULL, NULL, 0);
	if (!query_ok(r)) {
		int rc = sl_err_set(err, SL_EIO, "%s: reading publication '%s' failed: %s", k->what,
		                    k->pub, sl__pg_result_error(r));
		PQclear(r);
		return rc;
	}
	int exists = PQntuples(r) > 0;
	PQclear(r);
	sl_buf q;
	sl_buf_init(&q);
	int rc = 0;
	if (!exists) {
		sl_buf_puts(&q, "CREATE PUBLICATION ");
		sl__pg_quote_ident(&q, k->pub);
		for (int i = 0; i < k->ntabs; i++)
			sl_buf_printf(&q, "%s%s", i ? ", " : " FOR TABLE ", k->tabs[i].qname);
		sl_buf_putc(&q, 0);
		r = q.p ? sl__pg_exec(c, (const char *)q.p, PGRES_COMMAND_OK, k->what,
		                      "creating the publication", err) : NULL;
		rc = r ? 0 : err->code ? err->code : nomem(k, err);
		PQclear(r);
	}
	for (int i = 0; exists && i < k->ntabs && !rc; i++) {
		const char *pv3[3] = {k->pub, k->tabs[i].schema, k->tabs[i].tname};
		r = PQexecParams(c, "SELECT 1 FROM pg_publication_tables WHERE pubname = $1 AND "
		                 "schemaname = $2 AND tablename = $3", 3, NULL, pv3, NULL, NULL, 0);
		if (!query_ok(r)) {
			rc = sl_err_set(err, SL_EIO, "%s: reading publication '%s' failed: %s",
			                k->what, k->pub, sl__pg_result_error(r));
		} else if (PQntuples(r) == 0) {
			PQclear(r);
			sl_buf_clear(&q);
			sl_buf_puts(&q, "ALTER PUBLICATION ");
			sl__pg_quote_ident(&q, k->pub);
			sl_buf_printf(&q, " ADD TABLE %s", k->tabs[i].qname);
			sl_buf_putc(&q, 0);
			r = q.p ? sl__pg_exec(c, (const char *)q.p, PGRES_COMMAND_OK, k->what,
			                      "adding the table to the publication", err) : NULL;
			rc = r ? 0 : err->code ? err->code : nomem(k, err);
		}
		PQclear(r);
	}
	sl_buf_deinit(&q);
	return rc;
}

static int pc_open(sl_source *s, sl_err *err)
{
	pc_source *k = (pc_source *)s;
	PGconn *c = sl__pg_connect(&k->qp, k->what, err);
	if (!c)
		return err->code;
	int rc = find_tables(k, c, err);
	for (int i = 0; i < k->ntabs && !rc; i++)
		rc = check_columns(k, c, &k->tabs[i], err);
	if (!rc)
		rc = publication(k, c, err);
	PQfinish(c);
	return rc;
}

/* ---- the replication connection -------------------------------------------- */

/* The slot's confirmed position: 1 (found, *lsn), 0 (no such slot), or a
 * negative code with err. */
static int slot_position(pc_source *k, int64_t *lsn, sl_err *err)
{
	PGconn *c = sl__pg_connect(&k->qp, k->what, err);
	if (!c)
		return err->code;
	const char *pv[1] = {k->slot};
	PGresult *r = PQexecParams(c, "SELECT confirmed_flush_lsn::text, plugin, "
	                           "database FROM pg_replication_slots WHERE slot_name = $1",
	                           1, NULL, pv, NULL, NULL, 0);
	int rc;
	if (!query_ok(r)) {
		rc = sl_err_set(err, SL_EIO, "%s: reading replication slot '%s' failed: %s",
		                k->what, k->slot, sl__pg_result_error(r));
	} else if (PQntuples(r) == 0) {
		rc = 0;
	} else if (PQgetisnull(r, 0, 1) || strcmp(PQgetvalue(r, 0, 1), "pgoutput") ||
	           strcmp(PQgetvalue(r, 0, 2), k->db)) {
		rc = sl_err_set(err, SL_EINVAL, "%s: replication slot '%s' exists but is not a "
		                "pgoutput slot of database '%s' (plugin '%s', database '%s')",
		                k->what, k->slot, k->db, PQgetvalue(r, 0, 1), PQgetvalue(r, 0, 2));
	} else if (PQgetisnull(r, 0, 0) || sl__pgo_lsn_parse(PQgetvalue(r, 0, 0), lsn)) {
		*lsn = 0;
		rc = 1;
	} else {
		rc = 1;
	}
	PQclear(r);
	PQfinish(c);
	return rc;
}

static int rexec(pc_source *k, const char *sql, ExecStatusType want, const char *doing,
                 PGresult **out, sl_err *err)
{
	PGresult *r = sl__pg_exec(k->rc, sql, want, k->what, doing, err);
	if (!r)
		return err->code ? err->code : SL_EIO;
	if (out)
		*out = r;
	else
		PQclear(r);
	return 0;
}

/* Starts COPY of the table's columns (the DDL's physical ones) inside the
 * transaction open on the replication connection. */
static int start_copy(pc_source *k, sl_err *err)
{
	sl_buf q;
	sl_buf_init(&q);
	sl_buf_puts(&q, "COPY (SELECT ");
	int n = 0;
	for (int i = 0; i < k->nfields; i++) {
		if (k->meta[i] >= 0)
			continue;
		if (n++)
			sl_buf_puts(&q, ", ");
		sl__pg_quote_ident(&q, k->names[i]);
	}
	k->cur = &k->tabs[k->snap_tab];
	sl_buf_printf(&q, " FROM %s) TO STDOUT", k->cur->qname);
	sl_buf_putc(&q, 0);
	if (!q.p)
		return nomem(k, err);
	int rc = rexec(k, (const char *)q.p, PGRES_COPY_OUT, "reading the table (COPY)", NULL, err);
	sl_buf_deinit(&q);
	k->phase = PC_SNAPSHOT;
	return rc;
}

static int start_stream(pc_source *k, sl_err *err)
{
	char lsn[24];
	sl__pgo_lsn_format(k->start_lsn, lsn);
	sl_buf q;
	sl_buf_init(&q);
	sl_buf_puts(&q, "START_REPLICATION SLOT ");
	sl__pg_quote_ident(&q, k->slot);
	sl_buf_printf(&q, " LOGICAL %s (proto_version '1', publication_names ", lsn);
	sl_buf pn;
	sl_buf_init(&pn);
	sl__pg_quote_ident(&pn, k->pub);
	sl_buf_putc(&pn, 0);
	if (pn.p)
		sl__pg_quote_literal(&q, (const char *)pn.p);
	sl_buf_deinit(&pn);
	sl_buf_puts(&q, ")");
	sl_buf_putc(&q, 0);
	if (!q.p)
		return nomem(k, err);
	int rc = rexec(k, (const char *)q.p, PGRES_COPY_BOTH, "starting replication", NULL, err);
	sl_buf_deinit(&q);
	if (rc)
		return rc;
	k->phase = PC_STREAM;
	k->pos_lsn = k->pos_lsn > k->start_lsn ? k->pos_lsn : k->start_lsn;
	k->last_status = 0;
	return 0;
}

/* The first read: the slot, the snapshot and the stream as the header
 * says. */
static int start(pc_source *k, sl_err *err)
{
	/* a checkpoint taken before the first read: a fresh start */
	if (k->restored && k->rest_phase == PC_SNAPSHOT && k->rest_lsn == 0)
		k->restored = 0;
	int64_t slot_lsn = 0;
	int have = slot_position(k, &slot_lsn, err);
	if (have < 0)
		return have;
	char a[24], b[24];
	if (k->restored) {
		if (!have)
			return sl_err_set(err, SL_ESTATE, "%s: replication slot '%s' does not exist: "
			                  "the changes after the checkpoint are gone (restart with "
			                  "--fresh to read the table again)", k->what, k->slot);
		if (slot_lsn > k->rest_lsn) {
			sl__pgo_lsn_format(slot_lsn, a);
			sl__pgo_lsn_format(k->rest_lsn, b);
			return sl_err_set(err, SL_ESTATE, "%s: replication slot '%s' has confirmed "
			                  "position %s, ahead of the checkpoint's %s: starting would skip "
			                  "%" PRId64 " bytes of WAL the job has not read (the slot was "
			                  "used by another job or advanced by hand; restart with --fresh "
			                  "to read the table again)", k->what, k->slot, a, b,
			                  slot_lsn - k->rest_lsn);
		}
	}
	if (!(k->rc = sl__pg_connect(&k->rp, k->what, err)))
		return err->code;
	if (k->restored && k->rest_phase == PC_STREAM) {
		k->start_lsn = k->rest_lsn;
		k->pos_lsn = k->rest_lsn;
		k->done_rows = k->rest_rows;
		return start_stream(k, err);
	}
	if (k->restored || (have && !k->latest)) {
		/* the snapshot again, streaming from the slot's position */
		k->start_lsn = k->restored ? k->rest_lsn : slot_lsn;
		if (!k->restored)
			fprintf(stderr, "sluice: %s: replication slot '%s' exists: the table is read "
			        "again and the changes since the slot's position replayed over it\n",
			        k->what, k->slot);
		int rc = rexec(k, "BEGIN READ ONLY ISOLATION LEVEL REPEATABLE READ", PGRES_COMMAND_OK,
		               "starting the snapshot", NULL, err);
		/* the copy's snapshot is taken by this first statement: every
		 * transaction it sees ends before the position read */
		PGresult *r = NULL;
		if (!rc)
			rc = rexec(k, "SELECT pg_current_wal_lsn()::text", PGRES_TUPLES_OK,
			           "reading the WAL position", &r, err);
		if (!rc) {
			if (PQntuples(r) != 1 || sl__pgo_lsn_parse(PQgetvalue(r, 0, 0), &k->overlap_end))
				rc = sl_err_set(err, SL_EIO, "%s: unreadable WAL position", k->what);
			PQclear(r);
		}
		return rc ? rc : start_copy(k, err);
	}
	if (have) { /* latest-offset, the slot exists */
		k->start_lsn = slot_lsn;
		return start_stream(k, err);
	}
	int rc = 0;
	if (!k->latest)
		rc = rexec(k, "BEGIN READ ONLY ISOLATION LEVEL REPEATABLE READ", PGRES_COMMAND_OK,
		           "starting the snapshot", NULL, err);
	sl_buf q;
	sl_buf_init(&q);
	sl_buf_puts(&q, "CREATE_REPLICATION_SLOT ");
	sl__pg_quote_ident(&q, k->slot);
	sl_buf_printf(&q, " LOGICAL pgoutput (SNAPSHOT '%s')", k->latest ? "nothing" : "use");
	sl_buf_putc(&q, 0);
	PGresult *r = NULL;
	if (!rc)
		rc = q.p ? rexec(k, (const char *)q.p, PGRES_TUPLES_OK, "creating the replication slot",
		                 &r, err) : nomem(k, err);
	sl_buf_deinit(&q);
	if (rc)
		return rc;
	if (PQntuples(r) != 1 || PQnfields(r) < 2 ||
	    sl__pgo_lsn_parse(PQgetvalue(r, 0, 1), &k->start_lsn)) {
		PQclear(r);
		return sl_err_set(err, SL_EIO, "%s: CREATE_REPLICATION_SLOT gave no consistent "
		                  "point", k->what);
	}
	PQclear(r);
	return k->latest ? start_stream(k, err) : start_copy(k, err);
}

/* ---- rows ------------------------------------------------------------------ */

static void fill_meta(pc_source *k, sl_batch *out, int row, int64_t ts_us)
{
	for (int i = 0; i < k->nfields && k->nmeta; i++) {
		sl_col *c = &out->cols[i];
		switch (k->meta[i]) {
		case META_OP_TS: sl_col_set_i64(c, row, ts_us); break;
		case META_DB: sl_col_set_str_ref(c, row, k->db, (int64_t)strlen(k->db)); break;
		case META_SCHEMA:
			sl_col_set_str_ref(c, row, k->cur->schema, (int64_t)strlen(k->cur->schema));
			break;
		case META_TABLE:
			sl_col_set_str_ref(c, row, k->cur->tname, (int64_t)strlen(k->cur->tname));
			break;
		default: break;
		}
	}
}

static int value_error(pc_source *k, int field, const char *where, sl_err *err)
{
	return sl_err_set(err, SL_EINPUT, "%s: column '%s' %s: %s", k->what, k->names[field],
	                  where, k->emsg);
}

/* Reads one COPY line into a new +I row. */
static int snapshot_row(pc_source *k, const char *line, size_t len, sl_batch *out, sl_err *err)
{
	int nphys = k->nfields - k->nmeta;
	int n = sl__pgo_copy_line(line, len, k->cv, nphys, &k->scratch);
	if (n != nphys)
		return sl_err_set(err, SL_EINPUT, "%s: a COPY line of the snapshot has %d fields, not "
		                  "%d", k->what, n, nphys);
	int row = sl_batch_add_row(out, SL_INSERT, SL_WM_MIN);
	if (row < 0)
		return nomem(k, err);
	int j = 0;
	for (int i = 0; i < k->nfields; i++) {
		if (k->meta[i] >= 0)
			continue;
		const sl_pgo_val *v = &k->cv[j++];
		if (v->kind == 'n')
			sl_col_set_null(&out->cols[i], row);
		else if (sl__pgo_set_value(out, &out->cols[i], row, v->p, (size_t)v->len, k->emsg,
		                           sizeof k->emsg))
			return value_error(k, i, "in the snapshot", err);
	}
	fill_meta(k, out, row, 0);
	return 0;
}

/* Appends a row of kind op from tuple t (n columns); fill (may be NULL)
 * gives values for 'u' columns.  key_only: only the key's columns are
 * meaningful (the others become NULL). */
static int tuple_row(pc_source *k, uint8_t op, const sl_pgo_val *t, int n, const sl_pgo_val *fill,
                     int nfill, int64_t ts_us, sl_batch *out, sl_err *err)
{
	int row = sl_batch_add_row(out, op, SL_WM_MIN);
	if (row < 0)
		return nomem(k, err);
	for (int i = 0; i < k->nfields; i++) {
		if (k->meta[i] >= 0)
			continue;
		sl_col *c = &out->cols[i];
		int j = k->cur->relmap[i];
		const sl_pgo_val *v = j < n ? &t[j] : NULL;
		if (v && v->kind == 'u' && fill && j < nfill && fill[j].kind != 'u')
			v = &fill[j];
		if (!v || v->kind == 'n') {
			sl_col_set_null(c, row);
		} else if (v->kind == 'u') {
			sl_col_set_null(c, row);
			c->null[row] = k->txn_end <= k->overlap_end ? SL_NULL_UNCHANGED_REPLAY
			                                            : SL_NULL_UNCHANGED;
		} else if (sl__pgo_set_value(out, c, row, v->p, (size_t)v->len, k->emsg,
		                             sizeof k->emsg)) {
			return value_error(k, i, "in a change", err);
		}
	}
	fill_meta(k, out, row, ts_us);
	return 0;
}

/* The table of relation id relid, or NULL when the source does not read it. */
static pc_table *table_of(pc_source *k, uint32_t relid)
{
	for (int i = 0; i < k->ntabs; i++)
		if (k->tabs[i].oid == relid)
			return &k->tabs[i];
	return NULL;
}

/* A Relation message: maps the DDL's columns to the table's. */
static int relation(pc_source *k, const sl_pgo_msg *m, sl_err *err)
{
	pc_table *t = table_of(k, m->relid);
	if (!t)
		return 0;
	t->replident = m->replident;
	for (int i = 0; i < k->nfields; i++) {
		t->relmap[i] = -1;
		if (k->meta[i] >= 0)
			continue;
		for (int pass = 0; pass < 2 && t->relmap[i] < 0; pass++)
			for (int j = 0; j < m->ncols; j++) {
				const char *a = k->arr.rel[j].name, *b = k->names[i];
				if (pass ? !strcasecmp(a, b) : !strcmp(a, b)) {
					t->relmap[i] = j;
					break;
				}
			}
		if (t->relmap[i] < 0)
			return sl_err_set(err, SL_EINVAL, "%s: column '%s' is not among the published "
			                  "columns of table '%s.%s'", k->what, k->names[i], t->schema,
			                  t->tname);
	}
	for (int i = 0; i < k->npk && m->replident != 'f'; i++) {
		int j = t->relmap[k->pk[i]];
		if (!(k->arr.rel[j].flags & 1))
			return sl_err_set(err, SL_EINVAL, "%s: PRIMARY KEY column '%s' is not in the "
			                  "replica identity of table '%s.%s' (REPLICA IDENTITY %s): "
			                  "deletes would not say which row goes; declare the table's own "
			                  "key, or ALTER TABLE ... REPLICA IDENTITY FULL", k->what,
			                  k->names[k->pk[i]], t->schema, t->tname,
			                  m->replident == 'd' ? "DEFAULT" : m->replident == 'n'
			                  ? "NOTHING" : "USING INDEX");
	}
	t->have_rel = 1;
	return 0;
}

/* Decodes one message of a ready transaction into rows; *need: rows it
 * produces (checked against the room first when out is non-NULL). */
static int decode_change(pc_source *k, const uint8_t *p, size_t n, sl_batch *out, sl_err *err)
{
	sl_pgo_msg m;
	if (sl__pgo_parse(p, n, &m, &k->arr, k->emsg, sizeof k->emsg))
		return sl_err_set(err, SL_EINPUT, "%s: malformed replication message: %s", k->what,
		                  k->emsg);
	if (m.type == 'R')
		return relation(k, &m, err);
	if (m.type == 'T') {
		pc_table *t = NULL;
		for (int i = 0; i < m.ntrunc && !k->skip_truncate && !t; i++)
			t = table_of(k, k->arr.trunc_rel[i]);
		if (t)
				return sl_err_set(err, SL_ENOTSUP, "%s: table '%s.%s' was truncated in the "
				                  "transaction that ends at LSN %X/%X; a TRUNCATE is not "
				                  "turned into deletes: restart with --fresh to read the table "
				                  "again, or skip TRUNCATEs as Flink CDC does by default (the "
				                  "results keep the rows the table lost) with "
				                  "'debezium.skipped.operations' = 't' and restart from the "
				                  "checkpoint", k->what, t->schema, t->tname,
				                  (unsigned)((uint64_t)k->txn_end >> 32), (unsigned)k->txn_end);
		return 0;
	}
	if (m.type != 'I' && m.type != 'U' && m.type != 'D')
		return 0;
	if (!(k->cur = table_of(k, m.relid)))
		return 0;
	if (!k->cur->have_rel)
		return sl_err_set(err, SL_EINPUT, "%s: a change before the table's Relation message",
		                  k->what);
	int64_t ts = k->txn_ts + PC_PG_EPOCH_US;
	/* rows of this message, in order; those already read before a
	 * restore are dropped */
	uint8_t ops[2];
	int nr = 0;
	if (m.type == 'I')
		ops[nr++] = SL_INSERT;
	else if (m.type == 'D')
		ops[nr++] = SL_DELETE;
	else {
		if (m.old_kind)
			ops[nr++] = SL_UPDATE_BEFORE;
		ops[nr++] = SL_UPDATE_AFTER;
	}
	for (int i = 0; i < nr; i++) {
		int64_t idx = k->cur_row++;
		if (idx < k->done_rows)
			continue;
		int rc;
		if (ops[i] == SL_INSERT)
			rc = tuple_row(k, SL_INSERT, k->arr.new_, m.nnew, NULL, 0, ts, out, err);
		else if (ops[i] == SL_DELETE || ops[i] == SL_UPDATE_BEFORE)
			rc = tuple_row(k, ops[i], k->arr.old, m.nold, NULL, 0, ts, out, err);
		else
			rc = tuple_row(k, SL_UPDATE_AFTER, k->arr.new_, m.nnew,
			               m.old_kind == 'O' ? k->arr.old : NULL, m.nold, ts, out, err);
		if (rc)
			return rc;
		k->done_rows = idx + 1;
	}
	return 0;
}

/* Decodes the ready transaction into out while there is room (2 rows per
 * message at most). */
static int drain_ready(pc_source *k, sl_batch *out, sl_err *err)
{
	while (k->ready && out->cap - out->nrows >= 2) {
		if (k->rd >= k->txn.len) { /* the transaction is read whole */
			k->ready = 0;
			k->pos_lsn = k->txn_end;
			k->done_rows = 0;
			k->cur_row = 0;
			sl_buf_clear(&k->txn);
			break;
		}
		uint32_t n;
		memcpy(&n, k->txn.p + k->rd, 4);
		const uint8_t *p = (const uint8_t *)k->txn.p + k->rd + 4;
		k->rd += 4 + (size_t)n;
		int rc = decode_change(k, p, n, out, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- the stream --------------------------------------------------------------- */

static int send_status(pc_source *k, int reply, sl_err *err)
{
	uint8_t m[34];
	m[0] = 'r';
	int64_t w = k->received > k->confirmed ? k->received : k->confirmed;
	sl__pgo_put64(m + 1, w);
	sl__pgo_put64(m + 9, k->confirmed);
	sl__pgo_put64(m + 17, k->confirmed);
	sl__pgo_put64(m + 25, wall_pg_us());
	m[33] = (uint8_t)reply;
	if (PQputCopyData(k->rc, (const char *)m, sizeof m) != 1 || PQflush(k->rc))
		return sl_err_set(err, SL_EIO, "%s: sending the replication status to %s failed: %s",
		                  k->what, k->rp.where, sl__pg_error(k->rc));
	k->last_status = now_us();
	return 0;
}

/* One CopyData message of the stream. */
static int stream_msg(pc_source *k, const uint8_t *p, size_t n, sl_err *err)
{
	if (n >= 1 && p[0] == 'k') {
		if (n < 18)
			return sl_err_set(err, SL_EINPUT, "%s: a truncated keepalive", k->what);
		int64_t end = sl__pgo_get64(p + 1);
		if (end > k->received)
			k->received = end;
		/* nothing open: everything before the WAL end is read */
		if (!k->in_txn && !k->ready && k->done_rows == 0 && end > k->pos_lsn)
			k->pos_lsn = end;
		return p[17] ? send_status(k, 0, err) : 0;
	}
	if (n < 25 || p[0] != 'w')
		return sl_err_set(err, SL_EINPUT, "%s: unexpected replication message (%zu bytes, "
		                  "type 0x%02x)", k->what, n, n ? p[0] : 0);
	const uint8_t *d = p + 25;
	size_t dn = n - 25;
	if (dn == 0)
		return sl_err_set(err, SL_EINPUT, "%s: an empty XLogData message", k->what);
	sl_pgo_msg m;
	if (d[0] == 'B') {
		if (sl__pgo_parse(d, dn, &m, &k->arr, k->emsg, sizeof k->emsg))
			return sl_err_set(err, SL_EINPUT, "%s: malformed Begin: %s", k->what, k->emsg);
		if (k->in_txn || k->ready)
			return sl_err_set(err, SL_EINPUT, "%s: Begin inside a transaction", k->what);
		k->in_txn = 1;
		k->txn_ts = m.ts;
		sl_buf_clear(&k->txn);
		return 0;
	}
	if (d[0] == 'C') {
		if (sl__pgo_parse(d, dn, &m, &k->arr, k->emsg, sizeof k->emsg))
			return sl_err_set(err, SL_EINPUT, "%s: malformed Commit: %s", k->what, k->emsg);
		if (!k->in_txn)
			return sl_err_set(err, SL_EINPUT, "%s: Commit outside a transaction", k->what);
		k->in_txn = 0;
		k->ready = 1;
		k->rd = 0;
		k->cur_row = 0;
		k->txn_end = m.end_lsn;
		k->txn_ts = m.ts;
		if (m.end_lsn > k->received)
			k->received = m.end_lsn;
		return 0;
	}
	if (!k->in_txn) {
		if (d[0] == 'R') { /* outside a transaction: at once */
			if (sl__pgo_parse(d, dn, &m, &k->arr, k->emsg, sizeof k->emsg))
				return sl_err_set(err, SL_EINPUT, "%s: malformed Relation: %s", k->what,
				                  k->emsg);
			return relation(k, &m, err);
		}
		return 0;
	}
	uint32_t len = (uint32_t)dn;
	if (sl_buf_append(&k->txn, &len, 4) || sl_buf_append(&k->txn, d, dn))
		return nomem(k, err);
	return 0;
}

/* Whether the replication socket has bytes to read now (or an error to
 * report: libpq's next read says which). */
static int socket_readable(pc_source *k)
{
	struct pollfd p = {.fd = PQsocket(k->rc), .events = POLLIN};
	return p.fd < 0 || poll(&p, 1, 0) != 0;
}

/*
 * Reads messages while the socket has them, until the batch is full or
 * PC_READ_US passed.  Returning 0 rows makes the runtime sleep 1 ms, so
 * the socket is read until it is empty, not once per call: a transaction
 * produces no row until its Commit, and reading one libpq buffer (16 KiB)
 * per call slept 1 ms per 16 KiB of a large transaction (docs/postgres.md,
 * "Throughput").
 */
static int pc_read_stream(pc_source *k, sl_batch *out, sl_err *err)
{
	int rc = drain_ready(k, out, err);
	int consumed = 0;
	int64_t t0 = now_us();
	while (!rc && !k->ready && out->cap - out->nrows >= 2) {
		char *buf = NULL;
		int n = PQgetCopyData(k->rc, &buf, 1);
		if (n == 0) {
			/* no whole message buffered: read more while there is more */
			if (consumed && (!socket_readable(k) || now_us() - t0 >= PC_READ_US))
				break;
			if (!PQconsumeInput(k->rc))
				return sl_err_set(err, SL_EIO, "%s: the replication connection to %s failed: "
				                  "%s", k->what, k->rp.where, sl__pg_error(k->rc));
			consumed = 1;
			continue;
		}
		if (n < 0) {
			PGresult *r = PQgetResult(k->rc);
			rc = sl_err_set(err, SL_EIO, "%s: the replication stream from %s ended: %s",
			                k->what, k->rp.where,
			                r && PQresultStatus(r) == PGRES_FATAL_ERROR
			                    ? sl__pg_result_error(r) : sl__pg_error(k->rc));
			PQclear(r);
			return rc;
		}
		rc = stream_msg(k, (const uint8_t *)buf, (size_t)n, err);
		PQfreemem(buf);
		if (!rc)
			rc = drain_ready(k, out, err);
	}
	if (!rc && now_us() - k->last_status >= PC_STATUS_US)
		rc = send_status(k, 0, err);
	return rc;
}

static int pc_read_snapshot(pc_source *k, sl_batch *out, sl_err *err)
{
	while (out->nrows < out->cap) {
		char *buf = NULL;
		int n = PQgetCopyData(k->rc, &buf, 0);
		if (n == -1) { /* the snapshot is read: commit, then stream */
			PGresult *r = PQgetResult(k->rc);
			int ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
			int rc = ok ? 0 : sl_err_set(err, SL_EIO, "%s: reading the table failed: %s",
			                             k->what, r ? sl__pg_result_error(r)
			                                        : sl__pg_error(k->rc));
			PQclear(r);
			while ((r = PQgetResult(k->rc)))
				PQclear(r);
			if (!rc && ++k->snap_tab < k->ntabs) { /* the next table, same snapshot */
				if ((rc = start_copy(k, err)))
					return rc;
				continue;
			}
			if (!rc)
				rc = rexec(k, "COMMIT", PGRES_COMMAND_OK, "ending the snapshot", NULL, err);
			return rc ? rc : start_stream(k, err);
		}
		if (n < 0)
			return sl_err_set(err, SL_EIO, "%s: reading the table from %s failed: %s",
			                  k->what, k->rp.where, sl__pg_error(k->rc));
		int rc = snapshot_row(k, buf, (size_t)n, out, err);
		PQfreemem(buf);
		if (rc)
			return rc;
		k->snap_rows++;
	}
	return 0;
}

static int pc_read(sl_source *s, sl_batch *out, sl_err *err)
{
	pc_source *k = (pc_source *)s;
	int rc = 0;
	if (k->phase == PC_IDLE && (rc = start(k, err)))
		return rc;
	int before = out->nrows;
	if (k->phase == PC_SNAPSHOT)
		rc = pc_read_snapshot(k, out, err);
	if (!rc && k->phase == PC_STREAM && out->nrows == before)
		rc = pc_read_stream(k, out, err);
	if (rc)
		return rc;
	s->rows_read += out->nrows - before;
	return out->nrows - before;
}

/* ---- checkpoints ---------------------------------------------------------- */

static int pc_snapshot(sl_source *s, sl_snap_writer *w, sl_err *err)
{
	pc_source *k = (pc_source *)s;
	int phase = k->phase;
	int64_t lsn, rows;
	if (phase == PC_IDLE && k->restored) { /* restored, not started: as restored */
		phase = k->rest_phase;
		lsn = k->rest_lsn;
		rows = k->rest_rows;
	} else if (phase == PC_STREAM) {
		lsn = k->pos_lsn;
		rows = k->done_rows;
	} else {
		/* not started: the snapshot is read from the beginning */
		phase = PC_SNAPSHOT;
		lsn = k->start_lsn;
		rows = k->snap_rows;
	}
	sl_snap_put_u8(w, PC_SNAP_VERSION);
	sl_snap_put_u8(w, (uint8_t)phase);
	sl_snap_put_i64(w, lsn);
	sl_snap_put_i64(w, rows);
	sl_snap_put_bytes(w, k->slot, strlen(k->slot));
	sl_snap_put_i64(w, k->overlap_end);
	sl_snap_put_u32(w, (uint32_t)k->ntabs); /* version 2: the tables read */
	for (int i = 0; i < k->ntabs; i++) {
		sl_snap_put_bytes(w, k->tabs[i].schema, strlen(k->tabs[i].schema));
		sl_snap_put_bytes(w, k->tabs[i].tname, strlen(k->tabs[i].tname));
	}
	if (w->failed)
		return sl_err_set(err, SL_ENOMEM, "%s: snapshot: out of memory", k->what);
	return 0;
}

/* Restore, snapshot version 2: keeps of the tables found at open (the
 * pattern's matches now) those the checkpoint's run read, in their order;
 * a table created since that matches is left out, as Flink CDC does
 * without 'scan.newly-added-table.enabled': read from the restored
 * position on, it would miss its rows before that (and those before open
 * added it to the publication).  A table read before and gone now is no
 * longer read (PostgreSQL's DROP TABLE sends no change). */
static int keep_tables(pc_source *k, sl_snap_reader *r, sl_err *err)
{
	uint32_t n = sl_snap_get_u32(r);
	if (!sl_snap_reader_ok(r) || n > 1000000)
		return sl_err_set(err, SL_ESTATE, "%s: damaged postgres-cdc snapshot", k->what);
	char *keep = calloc((size_t)k->ntabs + 1, 1);
	if (!keep)
		return nomem(k, err);
	for (uint32_t i = 0; i < n; i++) {
		size_t sn = 0, tn = 0;
		const char *sc = sl_snap_get_bytes(r, &sn);
		const char *tb = sl_snap_get_bytes(r, &tn);
		if (!sl_snap_reader_ok(r)) {
			free(keep);
			return sl_err_set(err, SL_ESTATE, "%s: damaged postgres-cdc snapshot", k->what);
		}
		for (int j = 0; j < k->ntabs; j++)
			if (strlen(k->tabs[j].schema) == sn && !memcmp(k->tabs[j].schema, sc, sn) &&
			    strlen(k->tabs[j].tname) == tn && !memcmp(k->tabs[j].tname, tb, tn))
				keep[j] = 1;
	}
	int m = 0;
	for (int j = 0; j < k->ntabs; j++) {
		if (keep[j]) {
			k->tabs[m++] = k->tabs[j];
			continue;
		}
		fprintf(stderr, "sluice: %s: table '%s.%s' matches but was not read before the "
		        "checkpoint (created since the job's first start): it is not read, as in "
		        "Flink CDC without 'scan.newly-added-table.enabled'; restart with --fresh to "
		        "read it\n", k->what, k->tabs[j].schema, k->tabs[j].tname);
		free(k->tabs[j].schema);
		free(k->tabs[j].tname);
		free(k->tabs[j].qname);
		free(k->tabs[j].relmap);
	}
	free(keep);
	k->ntabs = m;
	k->cur = &k->tabs[0];
	if (m == 0)
		return sl_err_set(err, SL_ESTATE, "%s: none of the tables the checkpoint read exists "
		                  "any more (restart with --fresh to read '%s.%s' anew)", k->what,
		                  k->schema, k->tname);
	return 0;
}

static int pc_restore(sl_source *s, sl_snap_reader *r, sl_err *err)
{
	pc_source *k = (pc_source *)s;
	uint8_t ver = sl_snap_get_u8(r);
	if (sl_snap_reader_ok(r) && ver != 1 && ver != PC_SNAP_VERSION)
		return sl_err_set(err, SL_ESTATE, "%s: postgres-cdc snapshot version %d is not "
		                  "supported (this build reads 1 to %d)", k->what, ver,
		                  PC_SNAP_VERSION);
	uint8_t phase = sl_snap_get_u8(r);
	int64_t lsn = sl_snap_get_i64(r), rows = sl_snap_get_i64(r);
	size_t n = 0;
	const char *slot = sl_snap_get_bytes(r, &n);
	int64_t overlap = sl_snap_get_i64(r);
	if (!sl_snap_reader_ok(r) || (phase != PC_SNAPSHOT && phase != PC_STREAM))
		return sl_err_set(err, SL_ESTATE, "%s: damaged postgres-cdc snapshot", k->what);
	if (n != strlen(k->slot) || memcmp(slot, k->slot, n))
		return sl_err_set(err, SL_ESTATE, "%s: the checkpoint read replication slot '%.*s', "
		                  "this job names '%s' ('slot.name'): its position does not apply",
		                  k->what, (int)n, slot, k->slot);
	if (ver >= 2 && keep_tables(k, r, err))
		return err->code;
	k->restored = 1;
	k->rest_phase = phase;
	k->rest_lsn = lsn;
	k->rest_rows = rows;
	k->overlap_end = phase == PC_STREAM ? overlap : 0; /* a new copy sets its own */
	return 0;
}

/* At the barrier: the position checkpoint ckpt_id holds, confirmed to the
 * server by commit.  Nothing during the snapshot (the slot stays at its
 * consistent point). */
static int pc_pre_commit(sl_source *s, int64_t ckpt_id, sl_err *err)
{
	pc_source *k = (pc_source *)s;
	int64_t lsn = k->phase == PC_STREAM ? k->pos_lsn : 0;
	if (k->nring == PC_RING) {
		memmove(k->ring_id, k->ring_id + 1, sizeof(int64_t) * (PC_RING - 1));
		memmove(k->ring_lsn, k->ring_lsn + 1, sizeof(int64_t) * (PC_RING - 1));
		k->nring--;
	}
	k->ring_id[k->nring] = ckpt_id;
	k->ring_lsn[k->nring++] = lsn;
	return 0;
}

static int pc_commit(sl_source *s, int64_t ckpt_id, sl_err *err)
{
	pc_source *k = (pc_source *)s;
	int64_t lsn = -1;
	int i = 0;
	for (; i < k->nring; i++)
		if (k->ring_id[i] == ckpt_id) {
			lsn = k->ring_lsn[i];
			break;
		}
	if (lsn < 0)
		return 0;
	memmove(k->ring_id, k->ring_id + i + 1, sizeof(int64_t) * (size_t)(k->nring - i - 1));
	memmove(k->ring_lsn, k->ring_lsn + i + 1, sizeof(int64_t) * (size_t)(k->nring - i - 1));
	k->nring -= i + 1;
	if (lsn <= k->confirmed)
		return 0;
	sl_fault("pgcdc-before-confirm"); /* checkpoint complete, the slot not told */
	k->confirmed = lsn;
	int rc = k->phase == PC_STREAM && k->rc ? send_status(k, 0, err) : 0;
	if (!rc)
		sl_fault("pgcdc-after-confirm"); /* the slot told, the job not on */
	return rc;
}

static void pc_close(sl_source *s)
{
	pc_source *k = (pc_source *)s;
	if (k->rc)
		PQfinish(k->rc);
	k->rc = NULL;
	if (k->qp.where || k->qp.n)
		sl__pg_params_free(&k->qp);
	if (k->rp.where || k->rp.n)
		sl__pg_params_free(&k->rp);
	for (int i = 0; k->names && i < k->nfields; i++)
		free(k->names[i]);
	free(k->names);
	free(k->types);
	free(k->meta);
	for (int i = 0; i < k->ntabs; i++) {
		free(k->tabs[i].relmap);
		free(k->tabs[i].schema);
		free(k->tabs[i].tname);
		free(k->tabs[i].qname);
	}
	free(k->tabs);
	k->tabs = NULL;
	k->ntabs = 0;
	free(k->pk);
	free(k->arr.rel);
	free(k->arr.old);
	free(k->arr.new_);
	free(k->arr.trunc_rel);
	free(k->cv);
	free(k->db);
	free(k->schema);
	free(k->tname);
	free(k->slot);
	free(k->pub);
	sl_buf_deinit(&k->txn);
	sl_buf_deinit(&k->scratch);
}

const sl_source_vtab sl_pgcdc_source_vtab = {
	.name = "postgres-cdc",
	.size = sizeof(pc_source),
	.configure = pc_configure,
	.open = pc_open,
	.read = pc_read,
	.snapshot = pc_snapshot,
	.restore = pc_restore,
	.commit = pc_commit,
	.pre_commit = pc_pre_commit,
	.close = pc_close,
	.single_instance = 1,
	.omits_unchanged = 1,
	.metadata_keys = pc_meta_keys,
};
