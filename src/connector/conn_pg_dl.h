/*
 * conn_pg_dl.h - libpq, loaded at run time by the PostgreSQL connectors
 * only (conn_pg.c, conn_pgcdc.c; the pattern of src/state/rocksdb_dl.h).
 *
 * Linked into every sluice process, libpq brought 26 shared libraries
 * with it (OpenSSL, Kerberos, LDAP, GnuTLS, p11-kit...), loaded at every
 * start of every job, and p11-kit's exit handler made helgrind report an
 * error in test_sql_threads (tests/integration/threads_helgrind.sh).  So
 * the connectors call libpq through this table of function pointers,
 * filled by dlopen/dlsym the first time a job configures a jdbc table.
 * libpq stays a required Debian dependency (libpq-dev in
 * scripts/install-deps.sh).
 *
 * Include after <libpq-fe.h>: the macros at the end route each call
 * through the table, with the header's own prototypes.
 */
#ifndef SL_CONN_PG_DL_H
#define SL_CONN_PG_DL_H

#include <libpq-fe.h>

#include "base/err.h"

#define SL_PQ_FUNCS(X) \
	X(PQclear) \
	X(PQconsumeInput) \
	X(PQconnectdbParams) \
	X(PQconninfoFree) \
	X(PQconninfoParse) \
	X(PQerrorMessage) \
	X(PQexec) \
	X(PQexecParams) \
	X(PQexecPrepared) \
	X(PQfinish) \
	X(PQflush) \
	X(PQfreemem) \
	X(PQgetCopyData) \
	X(PQgetisnull) \
	X(PQgetResult) \
	X(PQgetvalue) \
	X(PQnfields) \
	X(PQntuples) \
	X(PQprepare) \
	X(PQputCopyData) \
	X(PQputCopyEnd) \
	X(PQresStatus) \
	X(PQresultErrorField) \
	X(PQresultErrorMessage) \
	X(PQresultStatus) \
	X(PQsendQuery) \
	X(PQsetNoticeProcessor) \
	X(PQsetnonblocking) \
	X(PQsocket) \
	X(PQstatus) \
	X(PQtransactionStatus) \

struct sl_pq_api {
#define SL_PQ_MEMBER(f) __typeof__(f) *f;
	SL_PQ_FUNCS(SL_PQ_MEMBER)
#undef SL_PQ_MEMBER
};

extern struct sl_pq_api sl__pq;

/* Loads libpq once per process (thread-safe; a failure is kept and
 * reported again to later callers).  Returns 0, or SL_ENOTSUP with err
 * naming the library or symbol that is missing. */
int sl__pq_load(sl_err *err);

#ifndef SL_PQ_NO_MACROS
#define PQclear (sl__pq.PQclear)
#define PQconsumeInput (sl__pq.PQconsumeInput)
#define PQconnectdbParams (sl__pq.PQconnectdbParams)
#define PQconninfoFree (sl__pq.PQconninfoFree)
#define PQconninfoParse (sl__pq.PQconninfoParse)
#define PQerrorMessage (sl__pq.PQerrorMessage)
#define PQexec (sl__pq.PQexec)
#define PQexecParams (sl__pq.PQexecParams)
#define PQexecPrepared (sl__pq.PQexecPrepared)
#define PQfinish (sl__pq.PQfinish)
#define PQflush (sl__pq.PQflush)
#define PQfreemem (sl__pq.PQfreemem)
#define PQgetCopyData (sl__pq.PQgetCopyData)
#define PQgetisnull (sl__pq.PQgetisnull)
#define PQgetResult (sl__pq.PQgetResult)
#define PQgetvalue (sl__pq.PQgetvalue)
#define PQnfields (sl__pq.PQnfields)
#define PQntuples (sl__pq.PQntuples)
#define PQprepare (sl__pq.PQprepare)
#define PQputCopyData (sl__pq.PQputCopyData)
#define PQputCopyEnd (sl__pq.PQputCopyEnd)
#define PQresStatus (sl__pq.PQresStatus)
#define PQresultErrorField (sl__pq.PQresultErrorField)
#define PQresultErrorMessage (sl__pq.PQresultErrorMessage)
#define PQresultStatus (sl__pq.PQresultStatus)
#define PQsendQuery (sl__pq.PQsendQuery)
#define PQsetNoticeProcessor (sl__pq.PQsetNoticeProcessor)
#define PQsetnonblocking (sl__pq.PQsetnonblocking)
#define PQsocket (sl__pq.PQsocket)
#define PQstatus (sl__pq.PQstatus)
#define PQtransactionStatus (sl__pq.PQtransactionStatus)
#endif

#endif
