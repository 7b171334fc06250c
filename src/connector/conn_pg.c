/*
 * conn_pg.c - PostgreSQL through libpq for the jdbc connector: connection
 * parameters, connecting, checking a table against a sink's columns, and
 * values in COPY's text format (the interface and its contracts:
 * conn_pg.h).
 *
 * URLs.  Flink's jdbc connector takes 'jdbc:postgresql://host:port/db';
 * sluice also takes what libpq takes (a 'postgresql://' URI or a
 * 'host=... dbname=...' conninfo).  A JDBC URL is rewritten into libpq
 * keyword/value pairs (host, port, dbname and the driver parameters libpq
 * has an equivalent for); 'username' and 'password' come last, so they
 * win over a user or password inside the URL, as with the JDBC driver's
 * properties.  Without a connect_timeout sluice sets 10 s, so a server
 * that does not answer fails the job instead of hanging it.
 *
 * Types (docs/postgres.md has the table).  A sink column may be written
 * into a PostgreSQL column whose type holds every value of the sluice type
 * exactly: BOOLEAN -> boolean; TINYINT and SMALLINT -> smallint, integer,
 * bigint or numeric (PostgreSQL has no one-byte integer); INT -> integer,
 * bigint, numeric; BIGINT -> bigint, numeric; FLOAT -> real, double
 * precision; DOUBLE -> double precision; DECIMAL(p, s) -> numeric without
 * a typmod or numeric(P, S) with S >= s and P - S >= p - s; CHAR, VARCHAR,
 * STRING -> text, varchar, char; BINARY, VARBINARY, BYTES -> bytea; DATE
 * -> date; TIME -> time; TIMESTAMP(p) -> timestamp of precision >= min(p,
 * 6); TIMESTAMP_LTZ(p) -> timestamptz likewise; INTERVALs -> interval;
 * ARRAY<T> of a scalar T -> an array of T's column type (integer[],
 * text[], ...), written as an array literal; an ARRAY of ARRAY (up to 6
 * levels, PostgreSQL's MAXDIM) -> the same array type, multi-dimensional.
 * ROW, MAP and arrays of rows or maps have no column type to go to and are
 * refused when the sink is configured.  sluice keeps microseconds, PostgreSQL's precision too, so
 * no timestamp loses digits.
 *
 * libpq is loaded at run time (conn_pg_dl.h) by sl__pg_params_init, which
 * every user calls first.  Stateless apart from the per-thread message
 * buffer; connections are the callers'.
 */
#include "conn_pg.h"
#include "conn_pgcdc.h"
#include "data/packed.h"
#include "sluice.h"
#include "base/timeutil.h"
#include "data/decimal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PG_DEFAULT_CONNECT_TIMEOUT "10"

static _Thread_local char msgbuf[SL_ERR_MAX];
static _Thread_local char last_state[6]; /* SQLSTATE of the last error read */

/* ---- connection parameters ------------------------------------------------- */

static int add_param(sl_pg_params *p, const char *kw, const char *v, size_t n)
{
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->kw[i], kw)) { /* later wins */
			char *d = strndup(v, n);
			if (!d)
				return SL_ENOMEM;
			free(p->val[i]);
			p->val[i] = d;
			return 0;
		}
	if (p->n >= SL_PG_MAX_PARAMS)
		return SL_EINVAL;
	if (!(p->val[p->n] = strndup(v, n)))
		return SL_ENOMEM;
	p->kw[p->n++] = kw;
	p->kw[p->n] = NULL;
	p->val[p->n] = NULL;
	return 0;
}

/* Percent-decodes s[0..n) into a new string. */
static char *pct_decode(const char *s, size_t n)
{
	char *d = malloc(n + 1), *o = d;
	if (!d)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && isxdigit((unsigned char)s[i + 1]) &&
		    isxdigit((unsigned char)s[i + 2])) {
			char h[3] = {s[i + 1], s[i + 2], 0};
			*o++ = (char)strtol(h, NULL, 16);
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = 0;
	return d;
}

/* The JDBC driver's parameter k = v as libpq pairs; 0, or SL_EINVAL with
 * err for one libpq has no equivalent of. */
static int jdbc_param(sl_pg_params *p, const char *k, const char *v, const char *what,
                      sl_err *err)
{
	static const struct { const char *jdbc, *pq; } same[] = {
		{"user", "user"}, {"password", "password"}, {"sslmode", "sslmode"},
		{"connectTimeout", "connect_timeout"}, {"loginTimeout", "connect_timeout"},
		{"ApplicationName", "application_name"}, {"applicationName", "application_name"},
		{"sslcert", "sslcert"}, {"sslkey", "sslkey"}, {"sslrootcert", "sslrootcert"},
		{"options", "options"},
	};
	for (size_t i = 0; i < sizeof same / sizeof *same; i++)
		if (!strcmp(k, same[i].jdbc))
			return add_param(p, same[i].pq, v, strlen(v));
	if (!strcmp(k, "ssl")) {
		const char *mode = !strcmp(v, "true") ? "require" : "disable";
		return add_param(p, "sslmode", mode, strlen(mode));
	}
	if (!strcmp(k, "currentSchema")) {
		char opt[512];
		int n = snprintf(opt, sizeof opt, "-csearch_path=%s", v);
		return add_param(p, "options", opt, (size_t)n);
	}
	return sl_err_set(err, SL_EINVAL, "%s: the JDBC URL parameter '%s' has no libpq "
	                  "equivalent (sluice reads user, password, ssl, sslmode, connectTimeout, "
	                  "loginTimeout, ApplicationName, currentSchema, options)", what, k);
}

/* 'jdbc:postgresql://host[:port][/db][?query]' into p. */
static int parse_jdbc(sl_pg_params *p, const char *url, const char *what, sl_err *err)
{
	const char *s = url + strlen("jdbc:postgresql:");
	int rc;
	if (strncmp(s, "//", 2))
		return sl_err_set(err, SL_EINVAL, "%s: 'url' = '%s': expected "
		                  "'jdbc:postgresql://host:port/database'", what, url);
	s += 2;
	size_t hl = strcspn(s, "/?");
	const char *hp = s, *colon = NULL;
	/* host list "h1:p1,h2:p2": libpq takes host and port lists */
	char hosts[1024] = "", ports[256] = "";
	const char *h = hp;
	while (h < hp + hl) {
		size_t one = strcspn(h, ",");
		if (h + one > hp + hl)
			one = (size_t)(hp + hl - h);
		colon = NULL;
		for (const char *q = h; q < h + one; q++)
			if (*q == ':' && (h[0] != '[' || (q > h && q[-1] == ']')))
				colon = q;
		size_t hlen = colon ? (size_t)(colon - h) : one;
		const char *hs = h;
		if (hlen >= 2 && hs[0] == '[' && hs[hlen - 1] == ']') { /* [IPv6] */
			hs++;
			hlen -= 2;
		}
		snprintf(hosts + strlen(hosts), sizeof hosts - strlen(hosts), "%s%.*s",
		         hosts[0] ? "," : "", (int)hlen, hs);
		snprintf(ports + strlen(ports), sizeof ports - strlen(ports), "%s%.*s",
		         h == hp ? "" : ",", colon ? (int)(h + one - colon - 1) : 4,
		         colon ? colon + 1 : "5432");
		h += one + (h + one < hp + hl);
	}
	if (!hosts[0])
		snprintf(hosts, sizeof hosts, "localhost");
	if (!ports[0])
		snprintf(ports, sizeof ports, "5432");
	if ((rc = add_param(p, "host", hosts, strlen(hosts))) ||
	    (rc = add_param(p, "port", ports, strlen(ports))))
		goto fail;
	s += hl;
	if (*s == '/') {
		size_t dl = strcspn(++s, "?");
		char *db = pct_decode(s, dl);
		if (!db || (rc = add_param(p, "dbname", db, strlen(db)))) {
			free(db);
			rc = SL_ENOMEM;
			goto fail;
		}
		free(db);
		s += dl;
	}
	if (*s == '?')
		s++;
	while (*s) {
		size_t pl = strcspn(s, "&");
		const char *eq = memchr(s, '=', pl);
		char *k = pct_decode(s, eq ? (size_t)(eq - s) : pl);
		char *v = eq ? pct_decode(eq + 1, pl - (size_t)(eq - s) - 1) : strdup("");
		rc = k && v ? (k[0] ? jdbc_param(p, k, v, what, err) : 0) : SL_ENOMEM;
		free(k);
		free(v);
		if (rc)
			return rc;
		s += pl + (s[pl] == '&');
	}
	return 0;
fail:
	return sl_err_set(err, rc, "%s: 'url' = '%s': %s", what, url,
	                  rc == SL_ENOMEM ? "out of memory" : "too many parameters");
}

/* A short description of the server for messages. */
static char *describe(const sl_pg_params *p)
{
	PQconninfoOption *o = NULL;
	const char *host = NULL, *port = NULL, *db = NULL, *user = NULL;
	char buf[1024];
	for (int i = 0; i < p->n; i++) {
		if (!strcmp(p->kw[i], "dbname") && i == 0 &&
		    (o = PQconninfoParse(p->val[i], NULL))) {
			for (PQconninfoOption *q = o; q->keyword; q++) {
				if (!q->val)
					continue;
				if (!strcmp(q->keyword, "host") || !strcmp(q->keyword, "hostaddr"))
					host = q->val;
				else if (!strcmp(q->keyword, "port"))
					port = q->val;
				else if (!strcmp(q->keyword, "dbname"))
					db = q->val;
				else if (!strcmp(q->keyword, "user"))
					user = q->val;
			}
			continue;
		}
		if (!strcmp(p->kw[i], "host"))
			host = p->val[i];
		else if (!strcmp(p->kw[i], "port"))
			port = p->val[i];
		else if (!strcmp(p->kw[i], "dbname"))
			db = p->val[i];
		else if (!strcmp(p->kw[i], "user"))
			user = p->val[i];
	}
	snprintf(buf, sizeof buf, "%s:%s/%s as user '%s'", host ? host : "(default host)",
	         port ? port : "5432", db ? db : "(default database)",
	         user ? user : "(default user)");
	if (o)
		PQconninfoFree(o);
	return strdup(buf);
}

int sl__pg_params_init(sl_pg_params *p, const char *url, const char *user,
                       const char *password, const char *what, sl_err *err)
{
	int rc = 0;
	memset(p, 0, sizeof *p);
	if ((rc = sl__pq_load(err))) {
		sl_err_prefix(err, "%s", what);
		return rc;
	}
	if (!strncmp(url, "jdbc:", 5)) {
		if (strncmp(url, "jdbc:postgresql:", 16))
			return sl_err_set(err, SL_EINVAL, "%s: 'url' = '%s': only PostgreSQL "
			                  "('jdbc:postgresql://...') is supported", what, url);
		if ((rc = parse_jdbc(p, url, what, err)))
			return rc;
	} else {
		char *emsg = NULL;
		PQconninfoOption *o = PQconninfoParse(url, &emsg);
		if (!o) {
			rc = sl_err_set(err, SL_EINVAL, "%s: 'url' = '%s' is neither a JDBC URL nor a "
			                "libpq URI or conninfo: %s", what, url,
			                emsg ? emsg : "out of memory");
			PQfreemem(emsg);
			return rc;
		}
		PQconninfoFree(o);
		if ((rc = add_param(p, "dbname", url, strlen(url))))
			goto fail;
	}
	if ((user && (rc = add_param(p, "user", user, strlen(user)))) ||
	    (password && (rc = add_param(p, "password", password, strlen(password)))))
		goto fail;
	int has_to = 0;
	for (int i = 0; i < p->n; i++)
		has_to |= !strcmp(p->kw[i], "connect_timeout");
	if (!has_to && strstr(url, "connect_timeout"))
		has_to = 1;
	if (!has_to && (rc = add_param(p, "connect_timeout", PG_DEFAULT_CONNECT_TIMEOUT, 2)))
		goto fail;
	if (!(p->where = describe(p))) {
		rc = SL_ENOMEM;
		goto fail;
	}
	return 0;
fail:
	sl__pg_params_free(p);
	return sl_err_set(err, rc, "%s: 'url': %s", what,
	                  rc == SL_ENOMEM ? "out of memory" : "too many parameters");
}

void sl__pg_params_free(sl_pg_params *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->val[i]);
	free(p->where);
	memset(p, 0, sizeof *p);
}

/* ---- connections and statements -------------------------------------------- */

static const char *trim_msg(const char *m)
{
	snprintf(msgbuf, sizeof msgbuf, "%s", m ? m : "(no message)");
	size_t n = strlen(msgbuf);
	while (n > 0 && (msgbuf[n - 1] == '\n' || msgbuf[n - 1] == ' '))
		msgbuf[--n] = 0;
	for (char *q = msgbuf; *q; q++) /* one line */
		if (*q == '\n')
			*q = ' ';
	return msgbuf;
}

const char *sl__pg_error(const PGconn *c)
{
	return trim_msg(c ? PQerrorMessage(c) : "out of memory");
}

const char *sl__pg_result_error(const PGresult *r)
{
	const char *m = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	const char *st = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	const char *ctx = r ? PQresultErrorField(r, PG_DIAG_CONTEXT) : NULL;
	snprintf(last_state, sizeof last_state, "%s", st ? st : "");
	if (!m)
		return trim_msg(r ? PQresultErrorMessage(r) : "no result (connection lost?)");
	char tmp[SL_ERR_MAX];
	snprintf(tmp, sizeof tmp, "%s%s%s%s%s%.300s", m, st ? " (SQLSTATE " : "", st ? st : "",
	         st ? ")" : "", ctx ? "; " : "", ctx ? ctx : "");
	return trim_msg(tmp);
}

int sl__pg_retryable(const PGconn *c)
{
	static const char *const classes[] = {"08", "40", "53", "57", "58"};
	if (!c || PQstatus(c) != CONNECTION_OK || !last_state[0])
		return 1;
	for (size_t i = 0; i < sizeof classes / sizeof *classes; i++)
		if (!strncmp(last_state, classes[i], 2))
			return 1;
	return 0;
}

PGconn *sl__pg_connect(const sl_pg_params *p, const char *what, sl_err *err)
{
	last_state[0] = 0;
	PGconn *c = PQconnectdbParams(p->kw, (const char *const *)p->val, 1);
	if (c && PQstatus(c) == CONNECTION_OK) {
		PQsetNoticeProcessor(c, NULL, NULL);
		/* values are read and written as text in sluice's own forms,
		 * whatever the server's or the role's defaults say */
		PGresult *r = PQexec(c, SL_PG_SESSION_SQL);
		int ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
		if (ok) {
			PQclear(r);
			return c;
		}
		sl_err_set(err, SL_EIO, "%s: setting the session's DateStyle, TimeZone, "
		           "IntervalStyle and bytea_output at %s failed: %s", what, p->where,
		           r ? sl__pg_result_error(r) : sl__pg_error(c));
		PQclear(r);
		PQfinish(c);
		return NULL;
	}
	sl_err_set(err, SL_EIO, "%s: cannot connect to PostgreSQL at %s: %s", what, p->where,
	           sl__pg_error(c));
	PQfinish(c);
	return NULL;
}

PGresult *sl__pg_exec(PGconn *c, const char *sql, ExecStatusType expect, const char *what,
                      const char *doing, sl_err *err)
{
	last_state[0] = 0;
	PGresult *r = PQexec(c, sql);
	if (r && PQresultStatus(r) == expect)
		return r;
	if (r && PQresultStatus(r) != PGRES_FATAL_ERROR && PQresultStatus(r) != expect)
		sl_err_set(err, SL_EIO, "%s: %s: unexpected result %s", what, doing,
		           PQresStatus(PQresultStatus(r)));
	else
		sl_err_set(err, SL_EIO, "%s: %s failed: %s", what, doing,
		           r && PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY)
		               ? sl__pg_result_error(r) : sl__pg_error(c));
	PQclear(r);
	return NULL;
}

int sl__pg_quote_ident(sl_buf *out, const char *s)
{
	int rc = sl_buf_putc(out, '"');
	for (; !rc && *s; s++)
		rc = *s == '"' ? sl_buf_puts(out, "\"\"") : sl_buf_putc(out, *s);
	return rc ? rc : sl_buf_putc(out, '"');
}

int sl__pg_quote_literal(sl_buf *out, const char *s)
{
	int rc = sl_buf_putc(out, '\'');
	for (; !rc && *s; s++)
		rc = *s == '\'' ? sl_buf_puts(out, "''") : sl_buf_putc(out, *s);
	return rc ? rc : sl_buf_putc(out, '\'');
}

/* ---- types --------------------------------------------------------------------- */

/* An ARRAY's element type that maps to a PostgreSQL array's: a scalar, or
 * an ARRAY of one (an ARRAY of ARRAY of T is a multi-dimensional T[], at
 * most SL_PG_MAXDIM levels; of ROW or MAP: not mapped). */
static int pg_array_elem_ok(sl_type e)
{
	int d = 1;
	while (e.id == SL_T_ARRAY && e.row) {
		if (++d > SL_PG_MAXDIM)
			return 0;
		e = sl_type_elem(e);
	}
	return e.id != SL_T_ROW && !sl_type_is_collection(e);
}

/* The scalar inside an ARRAY of ARRAY ... of it. */
static sl_type pg_array_base(sl_type t)
{
	while (t.id == SL_T_ARRAY && t.row)
		t = sl_type_elem(t);
	return t;
}

int sl__pg_type_accepts(sl_type t, const char *ty, int typmod)
{
#define IS(x) (!strcmp(ty, x))
	int tp = typmod; /* timestamp/time precision, -1 = 6 */
	switch ((sl_type_id)t.id) {
	case SL_T_BOOLEAN:
		return IS("bool");
	case SL_T_TINYINT:
	case SL_T_SMALLINT:
		return IS("int2") || IS("int4") || IS("int8") || (IS("numeric") && typmod < 0);
	case SL_T_INT:
		return IS("int4") || IS("int8") || (IS("numeric") && typmod < 0);
	case SL_T_BIGINT:
		return IS("int8") || (IS("numeric") && typmod < 0);
	case SL_T_FLOAT:
		return IS("float4") || IS("float8");
	case SL_T_DOUBLE:
		return IS("float8");
	case SL_T_DECIMAL: {
		if (!IS("numeric"))
			return 0;
		if (typmod < 0)
			return 1;
		int P = ((typmod - 4) >> 16) & 0xffff, S = (int16_t)((typmod - 4) & 0xffff);
		return S >= t.scale && P - S >= t.precision - t.scale;
	}
	case SL_T_CHAR:
	case SL_T_VARCHAR:
		return IS("text") || IS("varchar") || IS("bpchar");
	case SL_T_BINARY:
	case SL_T_VARBINARY:
		return IS("bytea");
	case SL_T_DATE:
		return IS("date");
	case SL_T_TIME:
		return IS("time") && (tp < 0 || tp >= (t.precision < 6 ? t.precision : 6));
	case SL_T_TIMESTAMP:
		return IS("timestamp") && (tp < 0 || tp >= (t.precision < 6 ? t.precision : 6));
	case SL_T_TIMESTAMP_LTZ:
		return IS("timestamptz") && (tp < 0 || tp >= (t.precision < 6 ? t.precision : 6));
	case SL_T_INTERVAL_DT:
	case SL_T_INTERVAL_YM:
		return IS("interval");
	case SL_T_ARRAY: /* PostgreSQL names an array type '_' + its element's */
		return ty[0] == '_' && t.row && pg_array_elem_ok(sl_type_elem(t)) &&
		       sl__pg_type_accepts(pg_array_base(t), ty + 1, typmod);
	default:
		return 0;
	}
#undef IS
}

const char *sl__pg_type_for(sl_type t, char *buf, size_t cap)
{
	int tp = t.precision < 6 ? t.precision : 6;
	switch ((sl_type_id)t.id) {
	case SL_T_BOOLEAN: snprintf(buf, cap, "boolean"); break;
	case SL_T_TINYINT:
	case SL_T_SMALLINT: snprintf(buf, cap, "smallint"); break;
	case SL_T_INT: snprintf(buf, cap, "integer"); break;
	case SL_T_BIGINT: snprintf(buf, cap, "bigint"); break;
	case SL_T_FLOAT: snprintf(buf, cap, "real"); break;
	case SL_T_DOUBLE: snprintf(buf, cap, "double precision"); break;
	case SL_T_DECIMAL: snprintf(buf, cap, "numeric(%d,%d)", t.precision, t.scale); break;
	case SL_T_CHAR:
	case SL_T_VARCHAR: snprintf(buf, cap, "text"); break;
	case SL_T_BINARY:
	case SL_T_VARBINARY: snprintf(buf, cap, "bytea"); break;
	case SL_T_DATE: snprintf(buf, cap, "date"); break;
	case SL_T_TIME: snprintf(buf, cap, "time(%d)", tp); break;
	case SL_T_TIMESTAMP: snprintf(buf, cap, "timestamp(%d)", tp); break;
	case SL_T_TIMESTAMP_LTZ: snprintf(buf, cap, "timestamptz(%d)", tp); break;
	case SL_T_INTERVAL_DT:
	case SL_T_INTERVAL_YM: snprintf(buf, cap, "interval"); break;
	case SL_T_ARRAY: {
		char eb[64];
		if (!t.row || !pg_array_elem_ok(sl_type_elem(t)) ||
		    !sl__pg_type_for(pg_array_base(t), eb, sizeof eb))
			return NULL;
		snprintf(buf, cap, "%s%.*s", eb, 2 * sl__pg_array_dims(t), "[][][][][][]");
		break;
	}
	default: return NULL;
	}
	return buf;
}

/* ---- the table --------------------------------------------------------------- */

void sl__pg_table_free(sl_pg_table *t)
{
	for (int i = 0; i < t->ncols; i++)
		free(t->cols[i]);
	free(t->cols);
	free(t->kinds);
	free(t->qname);
	free(t->schema);
	memset(t, 0, sizeof *t);
}

static char *quoted(const char *s)
{
	sl_buf b;
	sl_buf_init(&b);
	if (sl__pg_quote_ident(&b, s) || sl_buf_putc(&b, 0)) {
		sl_buf_deinit(&b);
		return NULL;
	}
	return (char *)b.p; /* owned by the caller */
}

static char *lower_dup(const char *s)
{
	char *d = strdup(s);
	for (char *q = d; q && *q; q++)
		*q = (char)tolower((unsigned char)*q);
	return d;
}

/* Row of r (attname, typname, typmod) for sink column f, by exact name then
 * folded to lower case; -1 when absent. */
static int find_col(const PGresult *r, const char *name)
{
	int n = PQntuples(r);
	for (int i = 0; i < n; i++)
		if (!strcmp(PQgetvalue(r, i, 0), name))
			return i;
	char *l = lower_dup(name);
	int found = -1;
	for (int i = 0; l && i < n && found < 0; i++)
		if (!strcmp(PQgetvalue(r, i, 0), l))
			found = i;
	free(l);
	return found;
}

/* Whether the table has a unique index (no predicate, no expression) on
 * exactly the columns rows[0..npk) of the column result. */
static int has_unique(PGconn *c, const char *oid, const PGresult *cols, const int *rows, int npk,
                      const char *what, sl_err *err)
{
	const char *sql = "SELECT i.indexrelid, a.attname FROM pg_index i, "
	                  "LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord) "
	                  "JOIN pg_attribute a ON a.attnum = k.attnum "
	                  "WHERE a.attrelid = i.indrelid AND i.indrelid = $1::oid AND i.indisunique "
	                  "AND i.indpred IS NULL AND i.indexprs IS NULL AND k.ord <= i.indnkeyatts "
	                  "ORDER BY 1, 2";
	const char *pv[1] = {oid};
	PGresult *r = PQexecParams(c, sql, 1, NULL, pv, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		sl_err_set(err, SL_EIO, "%s: reading the table's unique indexes failed: %s", what,
		           sl__pg_result_error(r));
		PQclear(r);
		return -1;
	}
	int n = PQntuples(r), found = 0;
	for (int i = 0; i < n && !found;) {
		int j = i, match = 0;
		while (j < n && !strcmp(PQgetvalue(r, j, 0), PQgetvalue(r, i, 0))) {
			for (int k = 0; k < npk; k++)
				match += !strcmp(PQgetvalue(r, j, 1), PQgetvalue(cols, rows[k], 0));
			j++;
		}
		found = j - i == npk && match == npk;
		i = j;
	}
	PQclear(r);
	return found;
}

int sl__pg_table_check(PGconn *c, const char *name, const sl_field *fields, int nf,
                       const int *pk, int npk, sl_pg_table *t, const char *what, sl_err *err)
{
	int rc = SL_EINVAL, *rows = NULL;
	PGresult *rel = NULL, *cols = NULL;
	const char *pv[1] = {name};
	memset(t, 0, sizeof *t);
	rel = PQexecParams(c, "SELECT c.oid, n.nspname, c.relname, c.relkind FROM pg_class c "
	                   "JOIN pg_namespace n ON n.oid = c.relnamespace "
	                   "WHERE c.oid = to_regclass($1)", 1, NULL, pv, NULL, NULL, 0);
	if (PQresultStatus(rel) != PGRES_TUPLES_OK) {
		rc = sl_err_set(err, SL_EINVAL, "%s: 'table-name' = '%s': %s", what, name,
		                sl__pg_result_error(rel));
		goto done;
	}
	if (PQntuples(rel) != 1) {
		rc = sl_err_set(err, SL_EINVAL, "%s: table '%s' does not exist in the database "
		                "(the jdbc sink writes into an existing table; create it first)",
		                what, name);
		goto done;
	}
	const char *kind = PQgetvalue(rel, 0, 3);
	if (strcmp(kind, "r") && strcmp(kind, "p")) {
		rc = sl_err_set(err, SL_EINVAL, "%s: '%s' is not a table (relkind '%s')", what, name,
		                kind);
		goto done;
	}
	const char *oid = PQgetvalue(rel, 0, 0);
	const char *ov[1] = {oid};
	cols = PQexecParams(c, "SELECT a.attname, t.typname, a.atttypmod, "
	                    "format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
	                    "JOIN pg_type t ON t.oid = a.atttypid WHERE a.attrelid = $1::oid "
	                    "AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
	                    1, NULL, ov, NULL, NULL, 0);
	if (PQresultStatus(cols) != PGRES_TUPLES_OK) {
		rc = sl_err_set(err, SL_EIO, "%s: reading the columns of '%s' failed: %s", what, name,
		                sl__pg_result_error(cols));
		goto done;
	}
	sl_buf q;
	sl_buf_init(&q);
	sl__pg_quote_ident(&q, PQgetvalue(rel, 0, 1));
	sl_buf_putc(&q, '.');
	sl__pg_quote_ident(&q, PQgetvalue(rel, 0, 2));
	sl_buf_putc(&q, 0);
	t->qname = (char *)q.p;
	t->schema = quoted(PQgetvalue(rel, 0, 1));
	t->cols = calloc((size_t)nf + 1, sizeof(char *));
	t->kinds = calloc((size_t)nf + 1, sizeof *t->kinds);
	rows = calloc((size_t)nf + 1, sizeof(int));
	if (!t->qname || !t->schema || !t->cols || !t->kinds || !rows) {
		rc = sl_err_set(err, SL_ENOMEM, "%s: out of memory", what);
		goto done;
	}
	t->ncols = nf;
	for (int i = 0; i < nf; i++) {
		char want[64], tb[64];
		int row = find_col(cols, fields[i].name);
		if (row < 0) {
			rc = sl_err_set(err, SL_EINVAL, "%s: column '%s' does not exist in table '%s'",
			                what, fields[i].name, name);
			goto done;
		}
		if (!sl__pg_type_accepts(fields[i].type, PQgetvalue(cols, row, 1),
		                         atoi(PQgetvalue(cols, row, 2)))) {
			rc = sl_err_set(err, SL_EINVAL, "%s: column '%s' of table '%s' is %s in the "
			                "database, which cannot hold %s values (expected %s)", what,
			                fields[i].name, name, PQgetvalue(cols, row, 3),
			                sl_type_format(fields[i].type, tb, sizeof tb),
			                sl__pg_type_for(fields[i].type, want, sizeof want)
			                    ? want : "no PostgreSQL type");
			goto done;
		}
		for (int j = 0; j < i; j++)
			if (rows[j] == row) {
				rc = sl_err_set(err, SL_EINVAL, "%s: columns '%s' and '%s' are both column "
				                "'%s' of table '%s'", what, fields[j].name, fields[i].name,
				                PQgetvalue(cols, row, 0), name);
				goto done;
			}
		rows[i] = row;
		t->kinds[i] = sl__pg_kind(PQgetvalue(cols, row, 1));
		if (!(t->cols[i] = quoted(PQgetvalue(cols, row, 0)))) {
			rc = sl_err_set(err, SL_ENOMEM, "%s: out of memory", what);
			goto done;
		}
	}
	if (npk > 0) {
		int pkrows[64];
		for (int k = 0; k < npk && k < 64; k++)
			pkrows[k] = rows[pk[k]];
		int u = has_unique(c, oid, cols, pkrows, npk < 64 ? npk : 64, what, err);
		if (u < 0) {
			rc = SL_EIO;
			goto done;
		}
		if (!u) {
			sl_buf kb;
			sl_buf_init(&kb);
			for (int k = 0; k < npk; k++)
				sl_buf_printf(&kb, "%s%s", k ? ", " : "", fields[pk[k]].name);
			rc = sl_err_set(err, SL_EINVAL, "%s: table '%s' has no PRIMARY KEY or UNIQUE "
			                "constraint on exactly (%s), the sink's PRIMARY KEY: upserts "
			                "(INSERT ... ON CONFLICT) need one", what, name, sl_buf_cstr(&kb));
			sl_buf_deinit(&kb);
			goto done;
		}
	}
	rc = 0;
done:
	if (rc)
		sl__pg_table_free(t);
	free(rows);
	PQclear(rel);
	PQclear(cols);
	return rc;
}

/* ---- values in COPY text --------------------------------------------------- */

static int put_escaped(sl_buf *out, const char *p, int64_t n)
{
	if (sl_buf_reserve(out, (size_t)n + 16))
		return SL_ENOMEM;
	for (int64_t i = 0; i < n; i++) {
		char ch = p[i];
		const char *e = ch == '\\' ? "\\\\" : ch == '\t' ? "\\t" : ch == '\n' ? "\\n"
		              : ch == '\r' ? "\\r" : NULL;
		if (e ? sl_buf_append(out, e, 2) : sl_buf_putc(out, ch))
			return SL_ENOMEM;
	}
	return 0;
}

static int put_double(sl_buf *out, double d, int is_float)
{
	char b[48];
	if (isnan(d))
		return sl_buf_puts(out, "NaN");
	if (isinf(d))
		return sl_buf_puts(out, d < 0 ? "-Infinity" : "Infinity");
	int n = is_float ? snprintf(b, sizeof b, "%.9g", (double)(float)d)
	                 : snprintf(b, sizeof b, "%.17g", d);
	return sl_buf_append(out, b, (size_t)n);
}

static int pg_array_text(const sl_col *c, int row, sl_buf *out);

static _Thread_local char value_error[160];

const char *sl__pg_value_error(void)
{
	return value_error;
}

/* An INTERVAL YEAR TO MONTH's months as PostgreSQL's 32-bit field; 0, or
 * SL_ERUNTIME (sl__pg_value_error says why) when they do not fit: never
 * wrapped. */
static int ym_months(int64_t v, int32_t *out)
{
	if (v < INT32_MIN || v > INT32_MAX) {
		snprintf(value_error, sizeof value_error, "INTERVAL YEAR TO MONTH of %lld months does "
		         "not fit PostgreSQL's interval (its months are 32-bit: at most %d)",
		         (long long)v, INT32_MAX);
		return SL_ERUNTIME;
	}
	*out = (int32_t)v;
	return 0;
}

int sl__pg_copy_value(const sl_col *c, int row, sl_buf *out)
{
	static const char hex[] = "0123456789abcdef";
	char b[64];
	int n;
	if (c->null[row])
		return sl_buf_append(out, "\\N", 2);
	if (c->type.id == SL_T_ARRAY)
		return pg_array_text(c, row, out);
	int64_t v = c->v.i64[row];
	switch ((sl_type_id)c->type.id) {
	case SL_T_BOOLEAN:
		return sl_buf_putc(out, v ? 't' : 'f');
	case SL_T_FLOAT:
	case SL_T_DOUBLE:
		return put_double(out, c->v.f64[row], c->type.id == SL_T_FLOAT);
	case SL_T_DECIMAL:
		n = sl_dec_format(c->v.i128[row], c->type.scale, b);
		return sl_buf_append(out, b, (size_t)n);
	case SL_T_CHAR:
	case SL_T_VARCHAR:
		return put_escaped(out, c->v.str[row].ptr, c->v.str[row].len);
	case SL_T_BINARY:
	case SL_T_VARBINARY: {
		const unsigned char *p = (const unsigned char *)c->v.str[row].ptr;
		int64_t len = c->v.str[row].len;
		if (sl_buf_reserve(out, (size_t)(2 * len + 4)) || sl_buf_append(out, "\\\\x", 3))
			return SL_ENOMEM;
		for (int64_t i = 0; i < len; i++) {
			char h[2] = {hex[p[i] >> 4], hex[p[i] & 15]};
			sl_buf_append(out, h, 2);
		}
		return 0;
	}
	case SL_T_DATE:
		n = sl_date_format(v, b);
		return sl_buf_append(out, b, (size_t)n);
	case SL_T_TIME:
		n = sl_time_format(v, 6, b);
		return sl_buf_append(out, b, (size_t)n);
	case SL_T_TIMESTAMP:
		n = sl_ts_format(v, 6, 0, 0, b);
		return sl_buf_append(out, b, (size_t)n);
	case SL_T_TIMESTAMP_LTZ:
		n = sl_ts_format(v, 6, 0, 0, b);
		memcpy(b + n, "+00", 3);
		return sl_buf_append(out, b, (size_t)n + 3);
	case SL_T_INTERVAL_DT: {
		/* days and seconds, so 1 day 02:03:04.5 reads back as such (not
		 * as 26:03:04.5: PostgreSQL keeps days apart from hours) */
		uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
		uint64_t day = 86400000000ULL, rest = u % day;
		const char *sg = v < 0 ? "-" : "";
		n = snprintf(b, sizeof b, "%s%llu days %s%llu.%06llu seconds", sg,
		             (unsigned long long)(u / day), sg, (unsigned long long)(rest / 1000000),
		             (unsigned long long)(rest % 1000000));
		return sl_buf_append(out, b, (size_t)n);
	}
	case SL_T_INTERVAL_YM: {
		int32_t mo;
		if (ym_months(v, &mo))
			return SL_ERUNTIME;
		n = snprintf(b, sizeof b, "%d months", (int)mo);
		return sl_buf_append(out, b, (size_t)n);
	}
	default: /* integers */
		n = snprintf(b, sizeof b, "%lld", (long long)v);
		return sl_buf_append(out, b, (size_t)n);
	}
}

/*
 * An ARRAY value (data/packed.h) as a PostgreSQL array literal in COPY's
 * text format: {"1","2",NULL}, every element quoted with its '"' and '\'
 * escaped (PostgreSQL reads a quoted element of any type), a bytea element
 * as "\\x0a0b", the text of the others as sl__pg_copy_value writes them;
 * an ARRAY of ARRAY as a multi-dimensional literal {{"1","2"},{"3","4"}}
 * (a NULL or ragged inner array is left for the server to refuse: its
 * message names the line, column and value); then the literal escaped for
 * COPY like a string.  0, SL_ENOMEM or SL_ESTATE.
 */
static int array_lit(sl_buf *lit, sl_buf *el, const char *p, int64_t len, sl_type at)
{
	static const char hex[] = "0123456789abcdef";
	sl_type et = sl_type_elem(at);
	sl_col ec;
	sl_unpack u;
	int rc = SL_ENOMEM;
	if (sl_unpack_open(&u, p, len))
		return SL_ESTATE;
	if (sl_col_new(&ec, et, 1))
		return SL_ENOMEM;
	if (sl_buf_putc(lit, '{'))
		goto done;
	for (uint32_t i = 0; i < u.n; i++) {
		if ((i && sl_buf_putc(lit, ',')) || (rc = sl_unpack_next(&u, NULL, &ec, 0)))
			goto done;
		rc = SL_ENOMEM;
		if (ec.null[0]) {
			if (sl_buf_puts(lit, "NULL"))
				goto done;
			continue;
		}
		const sl_str *v = &ec.v.str[0];
		if (et.id == SL_T_ARRAY) {
			if ((rc = array_lit(lit, el, v->ptr, v->len, et)))
				goto done;
			rc = SL_ENOMEM;
			continue;
		}
		sl_buf_clear(el);
		if (sl_type_is_string(et)) {
			if (sl_buf_append(el, v->ptr, (size_t)v->len))
				goto done;
		} else if (sl_type_is_binary(et)) {
			if (sl_buf_append(el, "\\x", 2))
				goto done;
			for (int64_t k = 0; k < v->len; k++) {
				unsigned char ch = (unsigned char)v->ptr[k];
				char h[2] = {hex[ch >> 4], hex[ch & 15]};
				if (sl_buf_append(el, h, 2))
					goto done;
			}
		} else if ((rc = sl__pg_copy_value(&ec, 0, el))) {
			goto done;
		}
		rc = SL_ENOMEM;
		if (sl_buf_putc(lit, '"'))
			goto done;
		for (size_t k = 0; k < el->len; k++)
			if (((el->p[k] == '"' || el->p[k] == '\\') && sl_buf_putc(lit, '\\')) ||
			    sl_buf_putc(lit, el->p[k]))
				goto done;
		if (sl_buf_putc(lit, '"'))
			goto done;
	}
	rc = sl_buf_putc(lit, '}') ? SL_ENOMEM : 0;
done:
	sl_col_free(&ec);
	return rc;
}

static int pg_array_text(const sl_col *c, int row, sl_buf *out)
{
	sl_buf lit, el;
	sl_buf_init(&lit);
	sl_buf_init(&el);
	int rc = array_lit(&lit, &el, c->v.str[row].ptr, c->v.str[row].len, c->type);
	if (!rc)
		rc = put_escaped(out, lit.p, (int64_t)lit.len);
	sl_buf_deinit(&lit);
	sl_buf_deinit(&el);
	return rc;
}

/* ---- values in COPY's binary format ---------------------------------------- */

#define PG_EPOCH_DAYS 10957                  /* 2000-01-01 - 1970-01-01 */
#define PG_EPOCH_US (10957LL * 86400000000LL)

/* The types the sink writes: name, binary form, OID (fixed for built-in
 * types: an array's binary form names its element type's OID, which
 * array_recv checks against the column's). */
static const struct { const char *name; sl_pg_kind kind; uint32_t oid; } pg_types[] = {
	{"bool", SL_PGK_BOOL, 16},         {"int2", SL_PGK_INT2, 21},
	{"int4", SL_PGK_INT4, 23},         {"int8", SL_PGK_INT8, 20},
	{"float4", SL_PGK_FLOAT4, 700},    {"float8", SL_PGK_FLOAT8, 701},
	{"numeric", SL_PGK_NUMERIC, 1700}, {"text", SL_PGK_TEXT, 25},
	{"varchar", SL_PGK_TEXT, 1043},    {"bpchar", SL_PGK_TEXT, 1042},
	{"bytea", SL_PGK_BYTEA, 17},       {"date", SL_PGK_DATE, 1082},
	{"time", SL_PGK_TIME, 1083},       {"timestamp", SL_PGK_TIMESTAMP, 1114},
	{"timestamptz", SL_PGK_TIMESTAMP, 1184}, {"interval", SL_PGK_INTERVAL, 1186},
};
#define PG_NTYPES ((int)(sizeof pg_types / sizeof *pg_types))

sl_pg_kind sl__pg_kind(const char *ty)
{
	int arr = ty[0] == '_'; /* an array type: '_' + its element's name */
	for (int i = 0; i < PG_NTYPES; i++)
		if (!strcmp(ty + arr, pg_types[i].name))
			return arr ? (sl_pg_kind)(SL_PGK_ARRAY + i) : pg_types[i].kind;
	return SL_PGK_NONE;
}

static void be16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

static void be32(unsigned char *p, uint32_t v)
{
	be16(p, (uint16_t)(v >> 16));
	be16(p + 2, (uint16_t)v);
}

static void be64(unsigned char *p, uint64_t v)
{
	be32(p, (uint32_t)(v >> 32));
	be32(p + 4, (uint32_t)v);
}

/* Appends a field of n bytes: its length, then room for them; returns
 * where the bytes go (NULL: out of memory). */
static unsigned char *field(sl_buf *out, uint32_t n)
{
	if (sl_buf_reserve(out, (size_t)n + 4))
		return NULL;
	unsigned char *p = (unsigned char *)out->p + out->len;
	be32(p, n);
	out->len += (size_t)n + 4;
	return p + 4;
}

/*
 * A number written as decimal text s[0..n) ("-123.4500", "42") as a
 * PostgreSQL numeric: ndigits, weight, sign, dscale (the digits after the
 * point), then the digits in base 10000, grouped from the point and
 * stripped of leading and trailing zero groups.
 */
static int put_numeric(sl_buf *out, const char *s, int n)
{
	uint16_t d[24];
	int neg = n > 0 && s[0] == '-', i = neg, nd = 0;
	const char *dot = memchr(s, '.', (size_t)n);
	int ie = dot ? (int)(dot - s) : n; /* integer digits s[i..ie) */
	int fs = dot ? ie + 1 : n, nf = n - fs;
	while (i < ie && s[i] == '0')
		i++;
	int ni = ie - i, gi = (ni + 3) / 4, weight = gi - 1;
	for (int g = 0; g < gi && nd < 24; g++) { /* the first group may be short */
		int from = ie - (gi - g) * 4, v = 0;
		for (int k = from; k < from + 4; k++)
			v = v * 10 + (k >= i ? s[k] - '0' : 0);
		d[nd++] = (uint16_t)v;
	}
	for (int g = 0; g < (nf + 3) / 4 && nd < 24; g++) {
		int v = 0;
		for (int k = fs + 4 * g; k < fs + 4 * g + 4; k++)
			v = v * 10 + (k < n ? s[k] - '0' : 0);
		d[nd++] = (uint16_t)v;
	}
	int first = 0;
	while (first < nd && !d[first]) {
		first++;
		weight--;
	}
	while (nd > first && !d[nd - 1])
		nd--;
	int cnt = nd - first;
	if (!cnt)
		weight = 0;
	unsigned char *p = field(out, (uint32_t)(8 + 2 * cnt));
	if (!p)
		return SL_ENOMEM;
	be16(p, (uint16_t)cnt);
	be16(p + 2, (uint16_t)(int16_t)weight);
	be16(p + 4, cnt && neg ? 0x4000 : 0);
	be16(p + 6, (uint16_t)nf);
	for (int k = 0; k < cnt; k++)
		be16(p + 8 + 2 * k, d[first + k]);
	return 0;
}

static int pg_array_bin(const sl_col *c, int row, sl_pg_kind kind, sl_buf *out);

int sl__pg_bin_value(const sl_col *c, int row, sl_pg_kind kind, sl_buf *out)
{
	unsigned char *p;
	char b[64];
	int n;
	if (c->null[row]) {
		if (!(p = field(out, 0)))
			return SL_ENOMEM;
		be32(p - 4, 0xffffffffu);
		return 0;
	}
	if (kind >= SL_PGK_ARRAY)
		return pg_array_bin(c, row, kind, out);
	int64_t v = c->v.i64[row];
	switch (kind) {
	case SL_PGK_BOOL:
		if (!(p = field(out, 1)))
			return SL_ENOMEM;
		p[0] = v != 0;
		return 0;
	case SL_PGK_INT2:
		if (!(p = field(out, 2)))
			return SL_ENOMEM;
		be16(p, (uint16_t)v);
		return 0;
	case SL_PGK_INT4:
		if (!(p = field(out, 4)))
			return SL_ENOMEM;
		be32(p, (uint32_t)v);
		return 0;
	case SL_PGK_INT8:
	case SL_PGK_TIME:
		if (!(p = field(out, 8)))
			return SL_ENOMEM;
		be64(p, (uint64_t)v);
		return 0;
	case SL_PGK_FLOAT4: {
		float f = (float)c->v.f64[row];
		uint32_t u;
		memcpy(&u, &f, 4);
		if (!(p = field(out, 4)))
			return SL_ENOMEM;
		be32(p, u);
		return 0;
	}
	case SL_PGK_FLOAT8: {
		double d = c->v.f64[row];
		uint64_t u;
		if (c->type.id == SL_T_FLOAT && isfinite(d)) { /* as its text: 9 digits */
			snprintf(b, sizeof b, "%.9g", (double)(float)d);
			d = strtod(b, NULL);
		}
		memcpy(&u, &d, 8);
		if (!(p = field(out, 8)))
			return SL_ENOMEM;
		be64(p, u);
		return 0;
	}
	case SL_PGK_NUMERIC:
		if (c->type.id == SL_T_DECIMAL)
			n = sl_dec_format(c->v.i128[row], c->type.scale, b);
		else
			n = snprintf(b, sizeof b, "%lld", (long long)v);
		return put_numeric(out, b, n);
	case SL_PGK_TEXT:
	case SL_PGK_BYTEA: {
		const sl_str *s = &c->v.str[row];
		if (!(p = field(out, (uint32_t)s->len)))
			return SL_ENOMEM;
		memcpy(p, s->ptr, (size_t)s->len);
		return 0;
	}
	case SL_PGK_DATE: {
		int64_t d = v - PG_EPOCH_DAYS; /* out of range: the server refuses it */
		d = d < INT32_MIN + 1 ? INT32_MIN + 1 : d > INT32_MAX - 1 ? INT32_MAX - 1 : d;
		if (!(p = field(out, 4)))
			return SL_ENOMEM;
		be32(p, (uint32_t)(int32_t)d);
		return 0;
	}
	case SL_PGK_TIMESTAMP: {
		int64_t t = v < INT64_MIN + PG_EPOCH_US + 1 ? INT64_MIN + 1 : v - PG_EPOCH_US;
		if (!(p = field(out, 8)))
			return SL_ENOMEM;
		be64(p, (uint64_t)t);
		return 0;
	}
	case SL_PGK_INTERVAL: { /* microseconds, days, months */
		int64_t us = 0, days = 0;
		int32_t months = 0;
		if (c->type.id == SL_T_INTERVAL_YM) {
			if (ym_months(v, &months))
				return SL_ERUNTIME;
		} else {
			days = v / 86400000000LL; /* days apart, as the text writes them */
			us = v % 86400000000LL;
		}
		if (!(p = field(out, 16)))
			return SL_ENOMEM;
		be64(p, (uint64_t)us);
		be32(p + 8, (uint32_t)(int32_t)days);
		be32(p + 12, (uint32_t)months);
		return 0;
	}
	default:
		return SL_ESTATE;
	}
}

/*
 * An ARRAY value in array_send's binary form: ndim, a has-NULL flag, the
 * element type's OID, (size, lower bound 1) per dimension, then every
 * element in row-major order as a field of the element type's binary form
 * (sl__pg_bin_value).  One ARRAY level per dimension: the sizes are those
 * of the first value at each level, and every inner array must be
 * non-NULL with the same size (PostgreSQL's arrays are rectangular:
 * SL_ERUNTIME otherwise, sl__pg_value_error saying which); no elements at
 * all is the empty array (ndim 0).
 */
typedef struct pg_arr_w {
	sl_col ec[SL_PG_MAXDIM]; /* per level: one element, decoded */
	int32_t dims[SL_PG_MAXDIM];
	int ndim, set, hasnull;
	sl_pg_kind ekind;
	int64_t nelem;
} pg_arr_w;

static int arr_level(pg_arr_w *w, const char *p, int64_t len, int lv, sl_buf *out)
{
	sl_unpack u;
	if (sl_unpack_open(&u, p, len))
		return SL_ESTATE;
	if (lv < w->set) {
		if ((int64_t)u.n != w->dims[lv]) {
			snprintf(value_error, sizeof value_error, "an ARRAY whose inner arrays differ "
			         "in length (%u against %d at level %d) has no PostgreSQL form "
			         "(multi-dimensional arrays are rectangular)", u.n, (int)w->dims[lv],
			         lv + 1);
			return SL_ERUNTIME;
		}
	} else {
		if (u.n > INT32_MAX)
			return SL_ESTATE;
		w->dims[lv] = (int32_t)u.n;
		w->set = lv + 1;
	}
	sl_col *ec = &w->ec[lv];
	for (uint32_t i = 0; i < u.n; i++) {
		int rc = sl_unpack_next(&u, NULL, ec, 0);
		if (rc)
			return rc;
		if (lv + 1 < w->ndim) {
			if (ec->null[0]) {
				snprintf(value_error, sizeof value_error, "an ARRAY holding a NULL inner "
				         "array has no PostgreSQL form (only elements can be NULL)");
				return SL_ERUNTIME;
			}
			if ((rc = arr_level(w, ec->v.str[0].ptr, ec->v.str[0].len, lv + 1, out)))
				return rc;
			continue;
		}
		w->hasnull |= ec->null[0];
		w->nelem++;
		if ((rc = sl__pg_bin_value(ec, 0, w->ekind, out)))
			return rc;
	}
	return 0;
}

static int pg_array_bin(const sl_col *c, int row, sl_pg_kind kind, sl_buf *out)
{
	int ti = (int)kind - SL_PGK_ARRAY, rc = SL_ENOMEM;
	if (ti < 0 || ti >= PG_NTYPES)
		return SL_ESTATE;
	pg_arr_w w;
	memset(&w, 0, sizeof w);
	w.ndim = sl__pg_array_dims(c->type);
	w.ekind = pg_types[ti].kind;
	if (w.ndim < 1 || w.ndim > SL_PG_MAXDIM)
		return SL_ESTATE;
	sl_type t = c->type;
	for (int i = 0; i < w.ndim; i++) {
		t = sl_type_elem(t);
		if (sl_col_new(&w.ec[i], t, 1))
			goto done;
	}
	size_t at = out->len; /* the field's length, then the header */
	size_t hlen = 12 + 8 * (size_t)w.ndim;
	if (sl_buf_reserve(out, 4 + hlen))
		goto done;
	out->len += 4 + hlen;
	if ((rc = arr_level(&w, c->v.str[row].ptr, c->v.str[row].len, 0, out)))
		goto done;
	int nd = w.nelem ? w.ndim : 0; /* no elements: the empty array */
	if (!nd)
		out->len = at + 4 + 12;
	unsigned char *h = (unsigned char *)out->p + at;
	be32(h, (uint32_t)(out->len - at - 4));
	be32(h + 4, (uint32_t)nd);
	be32(h + 8, (uint32_t)w.hasnull);
	be32(h + 12, pg_types[ti].oid);
	for (int i = 0; i < nd; i++) {
		be32(h + 16 + 8 * i, (uint32_t)w.dims[i]);
		be32(h + 20 + 8 * i, 1);
	}
	rc = 0;
done:
	for (int i = 0; i < w.ndim; i++)
		if (w.ec[i].null)
			sl_col_free(&w.ec[i]);
	return rc;
}

int sl__pg_bin_text(const unsigned char *p, int32_t n, sl_pg_kind kind, sl_buf *out)
{
	static const char hex[] = "0123456789abcdef";
	int64_t v = 0;
	if (n < 0)
		return sl_buf_puts(out, "NULL") ? -1 : 0;
	switch (kind) {
	case SL_PGK_TEXT:
		return sl_buf_append(out, p, (size_t)(n > 200 ? 200 : n)) ? -1 : 0;
	case SL_PGK_BYTEA:
		if (sl_buf_puts(out, "\\x"))
			return -1;
		for (int32_t i = 0; i < n && i < 100; i++) {
			char h[2] = {hex[p[i] >> 4], hex[p[i] & 15]};
			if (sl_buf_append(out, h, 2))
				return -1;
		}
		return 0;
	case SL_PGK_INT2:
	case SL_PGK_INT4:
	case SL_PGK_INT8:
		if (n != 2 && n != 4 && n != 8)
			return -1;
		for (int32_t i = 0; i < n; i++)
			v = (int64_t)((uint64_t)v << 8 | p[i]);
		if (n < 8) /* sign-extend */
			v = (int64_t)((uint64_t)v << (64 - 8 * n)) >> (64 - 8 * n);
		return sl_buf_printf(out, "%lld", (long long)v) ? -1 : 0;
	default:
		return -1;
	}
}
