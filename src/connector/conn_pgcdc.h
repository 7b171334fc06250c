/*
 * conn_pgcdc.h - the parts of the postgres-cdc source (conn_pgcdc.c) that
 * read bytes from the server and need no connection: the messages of
 * PostgreSQL's logical replication output plugin pgoutput (protocol
 * version 1), the lines of COPY's text format, and a column value in
 * PostgreSQL's text output turned into a sluice value.  Pure functions over
 * caller-owned memory, so tests/fuzz/fuzz_pgoutput.c can feed them any
 * bytes.  Internal to src/connector (sl__ prefix); implemented in
 * conn_pgcdc_proto.c.
 */
#ifndef SL_CONN_PGCDC_H
#define SL_CONN_PGCDC_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "data/batch.h"

/* The most columns a PostgreSQL table can have (MaxHeapAttributeNumber). */
#define SL_PGO_MAX_COLS 1600

/* One column of a tuple: kind 'n' (NULL), 'u' (an unchanged TOASTed
 * value, not sent), 't' (text: p[0..len)). */
typedef struct sl_pgo_val {
	char kind;
	int32_t len;
	const char *p;
} sl_pgo_val;

/* One column of a Relation message. */
typedef struct sl_pgo_relcol {
	uint8_t flags;      /* 1: part of the replica identity key */
	const char *name;   /* NUL-terminated, inside the message */
	uint32_t typoid;
	int32_t typmod;
} sl_pgo_relcol;

/*
 * A decoded message.  Pointers point into the message's bytes.  Which
 * fields are set depends on type:
 *   'B' Begin     lsn = final LSN of the transaction, ts, xid
 *   'C' Commit    lsn = the commit record's LSN, end_lsn, ts
 *   'R' Relation  relid, nsp, name, replident, ncols, rel[]
 *   'I' Insert    relid, new[] (nnew)
 *   'U' Update    relid, old_kind 0 / 'K' (key) / 'O' (whole old row) with
 *                 old[] (nold), new[] (nnew)
 *   'D' Delete    relid, old_kind 'K' / 'O', old[] (nold)
 *   'T' Truncate  ntrunc, trunc_rel[] (up to SL_PGO_MAX_COLS relids), flags
 *   'Y' Type, 'O' Origin, 'M' Message: nothing beyond the type (skipped)
 */
typedef struct sl_pgo_msg {
	char type;
	int64_t lsn, end_lsn;
	int64_t ts;        /* micros since 2000-01-01 (PostgreSQL's epoch) */
	uint32_t xid;
	uint32_t relid;
	uint8_t flags;
	const char *nsp, *name;
	char replident;
	char old_kind;
	int ncols, nold, nnew, ntrunc;
} sl_pgo_msg;

/* Caller-owned arrays the parser fills (each SL_PGO_MAX_COLS long). */
typedef struct sl_pgo_arrays {
	sl_pgo_relcol *rel;
	sl_pgo_val *old, *new_;
	uint32_t *trunc_rel;
} sl_pgo_arrays;

/*
 * Parses one pgoutput message buf[0..len) (the payload of an XLogData
 * message, after its 25-byte header) into m and the arrays of a.
 * Returns 0, or -1 with a reason in emsg[0..cap) for a malformed or
 * unknown message (truncated, a count past the bytes, an unknown tuple
 * kind, more than SL_PGO_MAX_COLS columns).  Never reads past len.
 */
int sl__pgo_parse(const uint8_t *buf, size_t len, sl_pgo_msg *m, const sl_pgo_arrays *a,
                  char *emsg, size_t cap);

/* Big-endian integers, as the replication protocol sends them. */
int64_t sl__pgo_get64(const uint8_t *p);
void sl__pgo_put64(uint8_t *p, int64_t v);

/*
 * Splits one line of COPY's text format (line[0..len), without or with its
 * trailing newline) into at most cap fields: field i is unescaped into
 * `scratch` (growable; the fields point into it, valid until its next use)
 * and vals[i] gets kind 'n' for \N, else 't'.  Returns the number of
 * fields, or -1 (out of memory, more than cap fields).
 */
int sl__pgo_copy_line(const char *line, size_t len, sl_pgo_val *vals, int cap,
                      sl_buf *scratch);

/*
 * Sets row `row` of column c (sluice type c->type) from the text of a
 * PostgreSQL value as the server prints it with DateStyle ISO, TimeZone
 * UTC, bytea_output hex and extra_float_digits 3: 't'/'f', integers,
 * floats (NaN, Infinity), numeric, text, '\x..' bytea, dates, times and
 * timestamps ('+00' for timestamptz), intervals (IntervalStyle postgres)
 * and arrays (sl__pg_array_parse).  Strings are copied into b's arena.
 * Returns 0, or -1 with a reason in emsg (the text does not fit the type:
 * out of range, malformed, 'infinity' for a date).
 */
int sl__pgo_set_value(sl_batch *b, sl_col *c, int row, const char *p, size_t n, char *emsg,
                      size_t cap);

/* The most dimensions a PostgreSQL array has (MAXDIM): an ARRAY nested
 * deeper has no column type. */
#define SL_PG_MAXDIM 6

/*
 * Sets row `row` of ARRAY column c from a PostgreSQL array literal
 * p[0..n) as the server prints it ('{1,NULL,3}', '{{"a","b"},{"c","d"}}',
 * '[0:1]={7,8}'), one ARRAY level per dimension, each element parsed by
 * sl__pgo_set_value (conn_pg_array.c).  0, or -1 with a reason in emsg.
 */
int sl__pg_array_parse(sl_batch *b, sl_col *c, int row, const char *p, size_t n, char *emsg,
                       size_t cap);
/* The number of ARRAY levels of t (0 for a type that is not an ARRAY). */
int sl__pg_array_dims(sl_type t);

/* Parses an LSN in PostgreSQL's text form "16/B374D848".  0 or -1. */
int sl__pgo_lsn_parse(const char *s, int64_t *out);
/* Formats an LSN as "16/B374D848"; buf >= 24 bytes. */
void sl__pgo_lsn_format(int64_t lsn, char *buf);

#endif
