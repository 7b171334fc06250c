/*
 * conn_pg.h - PostgreSQL through libpq, the part the jdbc connector
 * (conn_jdbc.c) shares with later PostgreSQL connectors (postgres-cdc,
 * lookups): connection parameters from a JDBC URL, a libpq URI or a
 * conninfo string; connecting with messages that name the server; the
 * check of a table against a sink's columns; values in COPY's text form.
 * Internal to src/connector (sl__ prefix); implemented in conn_pg.c.
 */
#ifndef SL_CONN_PG_H
#define SL_CONN_PG_H

#include "conn.h"
#include "base/buf.h"

#include <libpq-fe.h>

#include "conn_pg_dl.h" /* libpq's functions, loaded at run time */

#define SL_PG_MAX_PARAMS 24

/* What libpq is given: keyword/value pairs (NULL-terminated arrays for
 * PQconnectdbParams, expand_dbname 1: a "dbname" holding a URI or a
 * conninfo is expanded, later pairs override it), and a short description
 * of the server for messages ("127.0.0.1:5432/postgres"). */
typedef struct sl_pg_params {
	const char *kw[SL_PG_MAX_PARAMS + 1];
	char *val[SL_PG_MAX_PARAMS + 1];
	int n;
	char *where;
} sl_pg_params;

/*
 * Reads a connection URL: 'jdbc:postgresql://host[:port][/db][?k=v&...]'
 * (the JDBC driver's parameters user, password, ssl, sslmode,
 * connectTimeout, loginTimeout, ApplicationName and currentSchema are
 * translated to libpq's; another is refused by name), a libpq URI
 * ('postgresql://...', 'postgres://...') or a conninfo string
 * ('host=... port=...'), then `user` and `password` (the 'username' and
 * 'password' options; NULL = not given).  No I/O: a URI or conninfo is
 * checked with PQconninfoParse.  Loads libpq first (conn_pg_dl.h): every
 * other function here needs a successful call of this one before.  Fills p (free with sl__pg_params_free);
 * returns 0 or SL_EINVAL with err naming `what` (e.g. "sink 't'").
 */
int sl__pg_params_init(sl_pg_params *p, const char *url, const char *user,
                       const char *password, const char *what, sl_err *err);
void sl__pg_params_free(sl_pg_params *p);

/* What every session runs first (sl__pg_connect): the text forms sluice
 * writes and parses (conn_pgcdc_proto.c) fixed, so that no server, role or
 * database default (a TimeZone other than UTC, DateStyle 'SQL, DMY',
 * IntervalStyle sql_standard, bytea_output escape, fewer float digits)
 * changes what a value read as text means. */
#define SL_PG_SESSION_SQL \
	"SET DateStyle = ISO; SET TimeZone = UTC; SET IntervalStyle = postgres; " \
	"SET bytea_output = hex; SET extra_float_digits = 3"

/* Connects (blocking) and fixes the session's text forms
 * (SL_PG_SESSION_SQL).  NULL with err ("<what>: cannot connect to
 * PostgreSQL at <where>: <libpq's reason>") on failure. */
PGconn *sl__pg_connect(const sl_pg_params *p, const char *what, sl_err *err);

/* Whether the last failure on c is worth retrying on a new connection: the
 * connection is gone, or the last error read (sl__pg_result_error) has no
 * SQLSTATE or one of classes 08 (connection), 40 (transaction rollback:
 * serialization failure, deadlock), 53 (insufficient resources), 57
 * (operator intervention) or 58 (system error).  A data error (22, 23,
 * 42...) is not: repeating the statement would fail the same way. */
int sl__pg_retryable(const PGconn *c);

/* libpq's last message for c, without its trailing newline, in a static
 * per-thread buffer. */
const char *sl__pg_error(const PGconn *c);
/* The message of result r (its primary message, SQLSTATE and context: a
 * COPY's line and column), likewise; remembers the SQLSTATE for
 * sl__pg_retryable. */
const char *sl__pg_result_error(const PGresult *r);

/* Runs sql (one or more statements) and checks that the last result is
 * of status `expect` (PGRES_COMMAND_OK, PGRES_TUPLES_OK).  Returns the
 * result (the caller PQclear's it) or NULL with err "<what>: <doing>
 * failed: <reason>". */
PGresult *sl__pg_exec(PGconn *c, const char *sql, ExecStatusType expect, const char *what,
                      const char *doing, sl_err *err);

/* How a column's values are written in COPY's binary format: by the
 * database's column type (a sluice INT into a bigint column is sent as 8
 * bytes; an array as array_send's form, with its element's), SL_PGK_NONE
 * for a type the sink does not write. */
typedef enum sl_pg_kind {
	SL_PGK_NONE = 0,
	SL_PGK_BOOL,
	SL_PGK_INT2,
	SL_PGK_INT4,
	SL_PGK_INT8,
	SL_PGK_FLOAT4,
	SL_PGK_FLOAT8,
	SL_PGK_NUMERIC,
	SL_PGK_TEXT,     /* text, varchar, bpchar */
	SL_PGK_BYTEA,
	SL_PGK_DATE,
	SL_PGK_TIME,
	SL_PGK_TIMESTAMP, /* timestamp and timestamptz (UTC) */
	SL_PGK_INTERVAL,
	/* an array of the type at index k - SL_PGK_ARRAY of conn_pg.c's
	 * table of types (its element's binary form and OID) */
	SL_PGK_ARRAY = 64
} sl_pg_kind;

/* A table as found in the database, for the sink's columns. */
typedef struct sl_pg_table {
	char *qname;     /* schema-qualified, quoted: "public"."orders" */
	char *schema;    /* its schema, quoted: "public" */
	char **cols;     /* per sink column: the database's column name, quoted */
	sl_pg_kind *kinds; /* per sink column: its binary form (sl__pg_kind) */
	int ncols;
} sl_pg_table;

/*
 * Finds table `name` (the 'table-name' option, an SQL name as PostgreSQL
 * reads it: unquoted parts fold to lower case, "schema.table" allowed) and
 * checks the sink's columns fields[0..nf) against it: each must exist
 * (its name as written, else folded to lower case) with a type that holds
 * every value of the sink's type (sl__pg_type_accepts); with a PRIMARY KEY
 * (pk[0..npk), indexes into fields) the table must have a unique index on
 * exactly those columns (what ON CONFLICT needs).  Fills t (free with
 * sl__pg_table_free); returns 0 or SL_EINVAL with err naming the table and
 * the column.
 */
int sl__pg_table_check(PGconn *c, const char *name, const sl_field *fields, int nf,
                       const int *pk, int npk, sl_pg_table *t, const char *what, sl_err *err);
void sl__pg_table_free(sl_pg_table *t);

/* Whether sluice type t can be written to a column of PostgreSQL type
 * `typname` (pg_type.typname) with typmod `typmod`: 1 or 0. */
int sl__pg_type_accepts(sl_type t, const char *typname, int typmod);
/* The PostgreSQL type a column of sluice type t maps to ("numeric(10,2)",
 * "timestamp(3) without time zone"...), for messages and docs; NULL when t
 * has no mapping (ROW, NULL). */
const char *sl__pg_type_for(sl_type t, char *buf, size_t cap);

/* Appends the value at row `row` of c in COPY's text format (NULL as \N,
 * tab, newline, carriage return and backslash escaped; bytea as \\x...;
 * TIMESTAMP_LTZ with "+00").  Returns 0, SL_ENOMEM, or SL_ERUNTIME for a
 * value PostgreSQL cannot hold (an INTERVAL YEAR TO MONTH beyond 32-bit
 * months: refused, never wrapped; sl__pg_value_error says why). */
int sl__pg_copy_value(const sl_col *c, int row, sl_buf *out);

/* The binary form of PostgreSQL type `typname` (pg_type.typname; '_' +
 * an element's name for its array type), or SL_PGK_NONE (types the sink
 * does not write). */
sl_pg_kind sl__pg_kind(const char *typname);

/* COPY's binary format: the file header (signature, flags, no extension)
 * and the trailer (a field count of -1). */
#define SL_PG_BIN_HEADER "PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0"
#define SL_PG_BIN_HEADER_LEN 19
#define SL_PG_BIN_TRAILER "\377\377"

/*
 * Appends the value at row `row` of c as one field of a tuple in COPY's
 * binary format (a 32-bit length, -1 for NULL, then the bytes), in the
 * binary form of the column's database type `kind` (!= SL_PGK_NONE),
 * which sl__pg_type_accepts accepted for c's type: the same value the
 * text of sl__pg_copy_value gives the server (a FLOAT into a double
 * precision column as the double nearest its 9 digits, as the text).
 * Returns 0, SL_ENOMEM or SL_ERUNTIME (as sl__pg_copy_value).
 */
int sl__pg_bin_value(const sl_col *c, int row, sl_pg_kind kind, sl_buf *out);

/* Why the last SL_ERUNTIME of sl__pg_copy_value or sl__pg_bin_value on
 * this thread: "INTERVAL YEAR TO MONTH of N months does not fit ...". */
const char *sl__pg_value_error(void);

/* A field of COPY's binary format (bytes p[0..n)) of type `kind` as text
 * for a message ("toolong", "42"); 0, or -1 for a kind not shown. */
int sl__pg_bin_text(const unsigned char *p, int32_t n, sl_pg_kind kind, sl_buf *out);

/* Appends s as a quoted SQL identifier / string literal ("a""b", 'it''s'). */
int sl__pg_quote_ident(sl_buf *out, const char *s);
int sl__pg_quote_literal(sl_buf *out, const char *s);

#endif
