/*
 * conn_jdbc_lookup.c - reading a 'jdbc' (PostgreSQL) table: lookup joins
 * (`JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.k = d.k`,
 * op_lookup_join.c) and a bounded scan, with Flink's JDBC connector
 * options ('url', 'table-name', 'username', 'password', the 'lookup.*'
 * options).  docs/postgres.md describes its use; conn_jdbc.c is the sink.
 *
 * Lookups: the join hands over the keys of each probe batch first
 * (sl_lookup_vtab.prefetch); the keys not answered by the cache are asked
 * for in one execution of one prepared statement,
 *     SELECT cols FROM t JOIN unnest($1::text[], ...) AS k(k0, ...)
 *       ON t.key0 = k.k0::type0 AND ...
 * (one text array per key column), and the rows are grouped by key into
 * the cache; the lookups of the batch then answer from it.  Caches, as
 * Flink's ('lookup.cache'):
 *   NONE (the default)  the answers of one batch only: every batch asks the
 *       server for its keys again;
 *   PARTIAL  answers kept per key: 'lookup.partial-cache.max-rows' (keys
 *       kept, the least recently used go first; no limit by default; the
 *       answers of the batch being joined all stay until it is done, so
 *       the cache holds more keys while a batch has more distinct keys),
 *       'lookup.partial-cache.expire-after-write' and
 *       '...expire-after-access' (durations; none by default),
 *       'lookup.partial-cache.cache-missing-key' (default true: a key
 *       without rows is kept as such);
 *   FULL  the whole table read with COPY on the first lookup and again per
 *       'lookup.full-cache.periodic-reload.interval' (PERIODIC, FIXED_DELAY
 *       or FIXED_RATE as the filesystem lookup reads them); a key not in
 *       it has no rows.
 * A failed query is retried 'lookup.max-retries' times (default 3) on a
 * new connection when the failure may pass (sl__pg_retryable).
 *
 * Scan: the table read once with COPY (SELECT cols FROM t) TO STDOUT, its
 * text parsed as the postgres-cdc source parses it (conn_pgcdc_proto.c);
 * bounded.  Checkpoints record whether it is read whole: a restore after
 * the end reads nothing, one in the middle is refused (the table's order
 * is not stable across runs).
 *
 * One thread uses a lookup or scan at a time; each parallel instance of a
 * lookup join has its own connection and cache.
 */
#include "conn_builtin.h"
#include "conn_pg.h"
#include "conn_pgcdc.h"
#include "sluice.h"
#include "data/rowcodec.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

enum { JL_NONE, JL_PARTIAL, JL_FULL };

typedef struct jl_ent {
	int32_t next;          /* bucket chain, -1 = end */
	int32_t lru_prev, lru_next;
	uint32_t hash;
	int used;
	int transient;         /* a missing key kept for one batch only */
	char *key;
	uint32_t klen;
	sl_buf rows;           /* u32 n + row bytes per row */
	int64_t written, accessed;
} jl_ent;

typedef struct jl_conf {
	char what[300];
	sl_pg_params params;
	char *table_name;
	int mode;
	int64_t max_rows, expire_write, expire_access, reload_us;
	int cache_missing, fixed_rate;
	int64_t retries;
} jl_conf;

typedef struct jl_lookup {
	sl_lookup base;        /* must be first */
	jl_conf c;
	const sl_field *fields;
	int nfields;
	int *keys, nkeys;
	PGconn *conn;
	sl_pg_table t;
	char **ktype;          /* the key columns' types in the database */
	int prepared;
	/* the cache */
	jl_ent *ents;
	int32_t nents, cap, free_head, lru_head, lru_tail, count;
	int32_t *buckets;
	uint32_t nbuckets;
	int32_t *trans;        /* transient entries */
	int ntrans, captrans;
	int64_t load_start, load_end;
	int loaded;
	/* scratch */
	sl_batch *kb, *rb;     /* a decoded key, result rows */
	sl_col **kcols;
	sl_buf kbuf, rbuf, txt;
	sl_buf *arr;           /* per key column: the array literal */
	sl_buf scratch;
	sl_pgo_val *cv;
	char emsg[256];
} jl_lookup;

/* ---- options ------------------------------------------------------------- */

static int has_prefix(const sl_opts *o, const char *prefix, const char **key)
{
	for (int i = 0; i < o->n; i++)
		if (strncmp(o->v[i].key, prefix, strlen(prefix)) == 0) {
			*key = o->v[i].key;
			return 1;
		}
	return 0;
}

static int conf_read(jl_conf *c, const sl_conn_args *a, sl_err *err)
{
	const sl_opts *o = a->opts;
	snprintf(c->what, sizeof c->what, "table '%s'", a->table);
	const char *url = sl_opts_get(o, "url"), *tn = sl_opts_get(o, "table-name");
	const char *drv = sl_opts_get(o, "driver"), *k, *v;
	if (!url || !tn)
		return sl_err_set(err, SL_EINVAL, "%s: options 'url' and 'table-name' are required "
		                  "for the jdbc connector", c->what);
	if (drv && strcmp(drv, "org.postgresql.Driver"))
		return sl_err_set(err, SL_ENOTSUP, "%s: 'driver' = '%s': sluice speaks to PostgreSQL "
		                  "only (org.postgresql.Driver)", c->what, drv);
	/* the sink's options are read by the sink; a table used both ways
	 * has them */
	static const char *const sink_opts[] = {"sink.buffer-flush.max-rows",
	                                        "sink.buffer-flush.interval", "sink.max-retries",
	                                        "sink.delivery-guarantee", "sink.parallelism",
	                                        "connection.max-retry-timeout"};
	for (size_t i = 0; i < sizeof sink_opts / sizeof *sink_opts; i++)
		(void)sl_opts_get(o, sink_opts[i]);
	v = sl_opts_get(o, "lookup.cache");
	c->mode = !v || !strcasecmp(v, "NONE") ? JL_NONE : !strcasecmp(v, "PARTIAL") ? JL_PARTIAL
	        : !strcasecmp(v, "FULL") ? JL_FULL : -1;
	if (c->mode < 0)
		return sl_err_set(err, SL_EINVAL, "%s: 'lookup.cache' must be 'NONE', 'PARTIAL' or "
		                  "'FULL', not '%s'", c->what, v);
	if (c->mode != JL_PARTIAL && has_prefix(o, "lookup.partial-cache.", &k))
		return sl_err_set(err, SL_EINVAL, "%s: option '%s' needs 'lookup.cache' = 'PARTIAL'",
		                  c->what, k);
	if (c->mode != JL_FULL && has_prefix(o, "lookup.full-cache.", &k))
		return sl_err_set(err, SL_EINVAL, "%s: option '%s' needs 'lookup.cache' = 'FULL'",
		                  c->what, k);
	int rc;
	if ((rc = sl_opts_int(o, "lookup.partial-cache.max-rows", 0, &c->max_rows, err)) ||
	    (rc = sl_opts_duration(o, "lookup.partial-cache.expire-after-write", 0,
	                           &c->expire_write, err)) ||
	    (rc = sl_opts_duration(o, "lookup.partial-cache.expire-after-access", 0,
	                           &c->expire_access, err)) ||
	    (rc = sl_opts_bool(o, "lookup.partial-cache.cache-missing-key", 1, &c->cache_missing,
	                       err)) ||
	    (rc = sl_opts_duration(o, "lookup.full-cache.periodic-reload.interval", 0,
	                           &c->reload_us, err)) ||
	    (rc = sl_opts_int(o, "lookup.max-retries", 3, &c->retries, err)))
		return rc;
	if (c->max_rows < 0 || c->expire_write < 0 || c->expire_access < 0 || c->reload_us < 0 ||
	    c->retries < 0)
		return sl_err_set(err, SL_EINVAL, "%s: a 'lookup.*' size or duration is negative",
		                  c->what);
	v = sl_opts_get(o, "lookup.full-cache.reload-strategy");
	if (v && strcasecmp(v, "PERIODIC"))
		return sl_err_set(err, SL_EINVAL, "%s: 'lookup.full-cache.reload-strategy' = '%s' is "
		                  "not supported (PERIODIC is)", c->what, v);
	v = sl_opts_get(o, "lookup.full-cache.periodic-reload.schedule-mode");
	if (v && strcasecmp(v, "FIXED_DELAY") && strcasecmp(v, "FIXED_RATE"))
		return sl_err_set(err, SL_EINVAL, "%s: 'lookup.full-cache.periodic-reload.schedule-"
		                  "mode' must be 'FIXED_DELAY' or 'FIXED_RATE', not '%s'", c->what, v);
	c->fixed_rate = v && !strcasecmp(v, "FIXED_RATE");
	for (int i = 0; i < a->nfields; i++) {
		char tb[64];
		if (!sl__pg_type_for(a->fields[i].type, tb, sizeof tb))
			return sl_err_set(err, SL_ENOTSUP, "%s: column '%s': its type cannot be read from "
			                  "PostgreSQL by the jdbc connector", c->what, a->fields[i].name);
	}
	if (!(c->table_name = strdup(tn)))
		return sl_err_set(err, SL_ENOMEM, "%s: out of memory", c->what);
	return sl__pg_params_init(&c->params, url, sl_opts_get(o, "username"),
	                          sl_opts_get(o, "password"), c->what, err);
}

static void conf_free(jl_conf *c)
{
	if (c->params.where || c->params.n)
		sl__pg_params_free(&c->params);
	free(c->table_name);
}

/* ---- the cache ------------------------------------------------------------- */

static uint32_t hash_bytes(const void *p, uint32_t n)
{
	const uint8_t *b = p;
	uint32_t h = 2166136261u;
	for (uint32_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

static void lru_unlink(jl_lookup *l, int32_t i)
{
	jl_ent *e = &l->ents[i];
	if (e->lru_prev >= 0)
		l->ents[e->lru_prev].lru_next = e->lru_next;
	else
		l->lru_head = e->lru_next;
	if (e->lru_next >= 0)
		l->ents[e->lru_next].lru_prev = e->lru_prev;
	else
		l->lru_tail = e->lru_prev;
	e->lru_prev = e->lru_next = -1;
}

static void lru_front(jl_lookup *l, int32_t i)
{
	jl_ent *e = &l->ents[i];
	e->lru_prev = -1;
	e->lru_next = l->lru_head;
	if (l->lru_head >= 0)
		l->ents[l->lru_head].lru_prev = i;
	l->lru_head = i;
	if (l->lru_tail < 0)
		l->lru_tail = i;
}

static int32_t find(jl_lookup *l, const void *key, uint32_t klen)
{
	if (!l->nbuckets)
		return -1;
	uint32_t h = hash_bytes(key, klen);
	for (int32_t i = l->buckets[h & (l->nbuckets - 1)]; i >= 0; i = l->ents[i].next)
		if (l->ents[i].hash == h && l->ents[i].klen == klen && !memcmp(l->ents[i].key, key, klen))
			return i;
	return -1;
}

static void remove_ent(jl_lookup *l, int32_t i)
{
	jl_ent *e = &l->ents[i];
	int32_t *pp = &l->buckets[e->hash & (l->nbuckets - 1)];
	while (*pp != i)
		pp = &l->ents[*pp].next;
	*pp = e->next;
	lru_unlink(l, i);
	free(e->key);
	e->key = NULL;
	sl_buf_clear(&e->rows);
	e->used = 0;
	e->next = l->free_head;
	l->free_head = i;
	l->count--;
}

static void clear_cache(jl_lookup *l)
{
	for (int32_t i = 0; i < l->nents; i++)
		if (l->ents[i].used)
			remove_ent(l, i);
	l->ntrans = 0;
}

static int rehash(jl_lookup *l, uint32_t nb)
{
	int32_t *b = malloc(sizeof(int32_t) * nb);
	if (!b)
		return SL_ENOMEM;
	for (uint32_t i = 0; i < nb; i++)
		b[i] = -1;
	for (int32_t i = 0; i < l->nents; i++)
		if (l->ents[i].used) {
			uint32_t s = l->ents[i].hash & (nb - 1);
			l->ents[i].next = b[s];
			b[s] = i;
		}
	free(l->buckets);
	l->buckets = b;
	l->nbuckets = nb;
	return 0;
}

/* PARTIAL: the least recently used keys go until max-rows are left. */
static void trim(jl_lookup *l)
{
	while (l->c.mode == JL_PARTIAL && l->c.max_rows > 0 && l->count > l->c.max_rows &&
	       l->lru_tail >= 0)
		remove_ent(l, l->lru_tail);
}

/* A new entry for key (not in the cache), most recently used.  No
 * eviction here: the answers of one batch all stay until its lookups are
 * done (trim runs before the next batch).  Its index or -1 (out of
 * memory). */
static int32_t insert(jl_lookup *l, const void *key, uint32_t klen, int64_t now)
{
	if ((uint32_t)l->count + 1 > l->nbuckets / 2 &&
	    rehash(l, l->nbuckets ? l->nbuckets * 2 : 64))
		return -1;
	int32_t i = l->free_head;
	if (i >= 0) {
		l->free_head = l->ents[i].next;
	} else {
		if (l->nents == l->cap) {
			int32_t nc = l->cap ? l->cap * 2 : 64;
			jl_ent *ne = realloc(l->ents, sizeof(jl_ent) * (size_t)nc);
			if (!ne)
				return -1;
			l->ents = ne;
			l->cap = nc;
		}
		i = l->nents++;
		sl_buf_init(&l->ents[i].rows);
	}
	jl_ent *e = &l->ents[i];
	if (!(e->key = malloc(klen ? klen : 1)))
		return -1;
	memcpy(e->key, key, klen);
	e->klen = klen;
	e->hash = hash_bytes(key, klen);
	e->used = 1;
	e->transient = 0;
	e->written = e->accessed = now;
	sl_buf_clear(&e->rows);
	uint32_t s = e->hash & (l->nbuckets - 1);
	e->next = l->buckets[s];
	l->buckets[s] = i;
	e->lru_prev = e->lru_next = -1;
	lru_front(l, i);
	l->count++;
	return i;
}

/* ---- the server ------------------------------------------------------------ */

static void disconnect(jl_lookup *l)
{
	if (l->conn)
		PQfinish(l->conn);
	l->conn = NULL;
	l->prepared = 0;
}

/* Unquotes a quoted identifier ("a""b" -> a"b) into a new string. */
static char *unquote(const char *q)
{
	size_t n = strlen(q);
	char *s = malloc(n + 1), *o = s;
	if (!s)
		return NULL;
	for (size_t i = 1; i + 1 < n; i++) {
		*o++ = q[i];
		if (q[i] == '"' && q[i + 1] == '"')
			i++;
	}
	*o = 0;
	return s;
}

static int connect_check(jl_lookup *l, sl_err *err)
{
	if (l->conn)
		return 0;
	if (!(l->conn = sl__pg_connect(&l->c.params, l->c.what, err)))
		return err->code;
	if (!l->t.qname) {
		int rc = sl__pg_table_check(l->conn, l->c.table_name, l->fields, l->nfields, NULL, 0,
		                            &l->t, l->c.what, err);
		if (rc) {
			disconnect(l);
			return rc;
		}
		/* the key columns' types, for the casts of the statement */
		for (int i = 0; i < l->nkeys; i++) {
			char *name = unquote(l->t.cols[l->keys[i]]);
			const char *pv[2] = {l->t.qname, name};
			PGresult *r = name ? PQexecParams(l->conn, "SELECT format_type(atttypid, "
			                                  "atttypmod) FROM pg_attribute WHERE attrelid = "
			                                  "$1::regclass AND attname = $2", 2, NULL, pv,
			                                  NULL, NULL, 0) : NULL;
			free(name);
			if (!r || PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
				rc = sl_err_set(err, SL_EIO, "%s: reading the type of column %s failed: %s",
				                l->c.what, l->t.cols[l->keys[i]], sl__pg_result_error(r));
				PQclear(r);
				disconnect(l);
				return rc;
			}
			l->ktype[i] = strdup(PQgetvalue(r, 0, 0));
			PQclear(r);
			if (!l->ktype[i])
				return sl_err_set(err, SL_ENOMEM, "%s: out of memory", l->c.what);
		}
	}
	return 0;
}

static int prepare(jl_lookup *l, sl_err *err)
{
	if (l->prepared)
		return 0;
	sl_buf q;
	sl_buf_init(&q);
	sl_buf_puts(&q, "SELECT ");
	for (int i = 0; i < l->nfields; i++)
		sl_buf_printf(&q, "%st.%s", i ? ", " : "", l->t.cols[i]);
	sl_buf_printf(&q, " FROM %s t JOIN unnest(", l->t.qname);
	for (int i = 0; i < l->nkeys; i++)
		sl_buf_printf(&q, "%s$%d::text[]", i ? ", " : "", i + 1);
	sl_buf_puts(&q, ") AS k(");
	for (int i = 0; i < l->nkeys; i++)
		sl_buf_printf(&q, "%sk%d", i ? ", " : "", i);
	sl_buf_puts(&q, ") ON ");
	for (int i = 0; i < l->nkeys; i++)
		sl_buf_printf(&q, "%st.%s = k.k%d::%s", i ? " AND " : "", l->t.cols[l->keys[i]], i,
		              l->ktype[i]);
	sl_buf_putc(&q, 0);
	if (!q.p)
		return sl_err_set(err, SL_ENOMEM, "%s: out of memory", l->c.what);
	PGresult *r = PQprepare(l->conn, "sluice_lookup", (const char *)q.p, l->nkeys, NULL);
	sl_buf_deinit(&q);
	int rc = 0;
	if (!r || PQresultStatus(r) != PGRES_COMMAND_OK)
		rc = sl_err_set(err, SL_EIO, "%s: preparing the lookup statement failed: %s",
		                l->c.what, r ? sl__pg_result_error(r) : sl__pg_error(l->conn));
	PQclear(r);
	l->prepared = !rc;
	return rc;
}

/* Appends the text of a key value as an element of an array literal.
 * 0, SL_ENOMEM, or SL_ERUNTIME for a value PostgreSQL cannot hold. */
static int array_elem(jl_lookup *l, sl_buf *a, const sl_col *c)
{
	sl_buf_clear(&l->txt);
	int id = c->type.id;
	if (id == SL_T_CHAR || id == SL_T_VARCHAR) {
		sl_buf_append(&l->txt, c->v.str[0].ptr, (size_t)c->v.str[0].len);
	} else if (id == SL_T_BINARY || id == SL_T_VARBINARY) {
		sl_buf_puts(&l->txt, "\\x");
		for (int64_t i = 0; i < c->v.str[0].len; i++)
			sl_buf_printf(&l->txt, "%02x", (uint8_t)c->v.str[0].ptr[i]);
	} else {
		int rc = sl__pg_copy_value(c, 0, &l->txt);
		if (rc)
			return rc;
	}
	if (a->len > 1)
		sl_buf_putc(a, ',');
	sl_buf_putc(a, '"');
	for (size_t i = 0; i < l->txt.len; i++) {
		char ch = (char)l->txt.p[i];
		if (ch == '"' || ch == '\\')
			sl_buf_putc(a, '\\');
		sl_buf_putc(a, ch);
	}
	return sl_buf_putc(a, '"');
}

/* Row br of l->rb goes to its key's entry (created when missing). */
static int add_row(jl_lookup *l, int br, int64_t now, sl_err *err)
{
	sl_buf_clear(&l->kbuf);
	sl_buf_clear(&l->rbuf);
	if (sl_rowcodec_key(l->rb, l->keys, l->nkeys, br, &l->kbuf) ||
	    sl_rowcodec_row(l->rb, br, &l->rbuf))
		return sl_err_set(err, SL_ENOMEM, "%s: out of memory", l->c.what);
	int32_t e = find(l, l->kbuf.p, (uint32_t)l->kbuf.len);
	if (e < 0 && (e = insert(l, l->kbuf.p, (uint32_t)l->kbuf.len, now)) < 0)
		return sl_err_set(err, SL_ENOMEM, "%s: out of memory", l->c.what);
	uint32_t n = (uint32_t)l->rbuf.len;
	jl_ent *en = &l->ents[e];
	en->transient = 0;
	if (sl_buf_append(&en->rows, &n, 4) || sl_buf_append(&en->rows, l->rbuf.p, n))
		return sl_err_set(err, SL_ENOMEM, "%s: out of memory", l->c.what);
	return 0;
}

/* Reads result r's rows into the cache entries of their keys (created
 * when missing), and stamps them now. */
static int take_rows(jl_lookup *l, PGresult *r, int64_t now, sl_err *err)
{
	int n = PQntuples(r);
	for (int row = 0; row < n; row++) {
		sl_batch_reset(l->rb);
		int br = sl_batch_add_row(l->rb, SL_INSERT, SL_WM_MIN);
		for (int i = 0; i < l->nfields; i++) {
			sl_col *c = &l->rb->cols[i];
			if (PQgetisnull(r, row, i))
				sl_col_set_null(c, br);
			else {
				const char *v = PQgetvalue(r, row, i);
				if (sl__pgo_set_value(l->rb, c, br, v, strlen(v), l->emsg, sizeof l->emsg))
					return sl_err_set(err, SL_EINPUT, "%s: column '%s': %s", l->c.what,
					                  l->fields[i].name, l->emsg);
			}
		}
		if (sl_rowcodec_key_null(l->rb, l->keys, l->nkeys, br))
			continue;
		if (add_row(l, br, now, err))
			return err->code;
	}
	return 0;
}

/*
 * Asks the server for the keys keys[0..n) (u32 length + key bytes each,
 * their entries already made, empty): one execution of the prepared
 * statement, retried on a new connection when the failure may pass.
 */
static int fetch(jl_lookup *l, const uint8_t *keys, size_t len, int64_t now, sl_err *err)
{
	for (int i = 0; i < l->nkeys; i++) {
		sl_buf_clear(&l->arr[i]);
		sl_buf_putc(&l->arr[i], '{');
	}
	for (size_t off = 0; off + 4 <= len;) {
		uint32_t kl;
		memcpy(&kl, keys + off, 4);
		sl_batch_reset(l->kb);
		sl_batch_add_row(l->kb, SL_INSERT, SL_WM_MIN);
		if (sl_rowcodec_decode(keys + off + 4, kl, l->kb, l->kcols, l->nkeys, 0) < 0)
			return sl_err_set(err, SL_ESTATE, "%s: malformed lookup key", l->c.what);
		for (int i = 0; i < l->nkeys; i++) {
			int rc = array_elem(l, &l->arr[i], &l->kb->cols[i]);
			if (rc == SL_ERUNTIME) /* a key PostgreSQL's column type cannot hold */
				return sl_err_set(err, SL_ERUNTIME, "%s: lookup key '%s': %s", l->c.what,
				                  l->fields[l->keys[i]].name, sl__pg_value_error());
			if (rc)
				return sl_err_set(err, SL_ENOMEM, "%s: out of memory", l->c.what);
		}
		off += 4 + kl;
	}
	const char *pv[SL_PG_MAX_PARAMS];
	for (int i = 0; i < l->nkeys; i++) {
		sl_buf_putc(&l->arr[i], '}');
		sl_buf_putc(&l->arr[i], 0);
		pv[i] = (const char *)l->arr[i].p;
	}
	for (int64_t attempt = 0;; attempt++) {
		int rc = connect_check(l, err);
		if (!rc)
			rc = prepare(l, err);
		PGresult *r = NULL;
		if (!rc) {
			r = PQexecPrepared(l->conn, "sluice_lookup", l->nkeys, pv, NULL, NULL, 0);
			if (!r || PQresultStatus(r) != PGRES_TUPLES_OK)
				rc = sl_err_set(err, SL_EIO, "%s: the lookup query failed: %s", l->c.what,
				                r ? sl__pg_result_error(r) : sl__pg_error(l->conn));
		}
		if (!rc) {
			l->base.loads++;
			rc = take_rows(l, r, now, err);
			PQclear(r);
			return rc;
		}
		PQclear(r);
		if (attempt >= l->c.retries || (l->conn && !sl__pg_retryable(l->conn)))
			return rc;
		disconnect(l);
		sleep((unsigned)(attempt + 1));
	}
}

/* FULL: the whole table into the cache. */
static int load_all(jl_lookup *l, int64_t now, sl_err *err)
{
	int rc = connect_check(l, err);
	if (rc)
		return rc;
	clear_cache(l);
	sl_buf q;
	sl_buf_init(&q);
	sl_buf_puts(&q, "COPY (SELECT ");
	for (int i = 0; i < l->nfields; i++)
		sl_buf_printf(&q, "%s%s", i ? ", " : "", l->t.cols[i]);
	sl_buf_printf(&q, " FROM %s) TO STDOUT", l->t.qname);
	sl_buf_putc(&q, 0);
	PGresult *r = q.p ? sl__pg_exec(l->conn, (const char *)q.p, PGRES_COPY_OUT, l->c.what,
	                                "reading the table (COPY)", err) : NULL;
	sl_buf_deinit(&q);
	if (!r) {
		disconnect(l);
		return err->code ? err->code : SL_ENOMEM;
	}
	PQclear(r);
	for (;;) {
		char *buf = NULL;
		int n = PQgetCopyData(l->conn, &buf, 0);
		if (n == -1)
			break;
		if (n < 0) {
			rc = sl_err_set(err, SL_EIO, "%s: reading the table failed: %s", l->c.what,
			                sl__pg_error(l->conn));
			disconnect(l);
			return rc;
		}
		int nf = sl__pgo_copy_line(buf, (size_t)n, l->cv, l->nfields, &l->scratch);
		sl_batch_reset(l->rb);
		int br = sl_batch_add_row(l->rb, SL_INSERT, SL_WM_MIN);
		rc = nf == l->nfields ? 0 : sl_err_set(err, SL_EINPUT, "%s: a COPY line has %d fields, "
		                                        "not %d", l->c.what, nf, l->nfields);
		for (int i = 0; !rc && i < l->nfields; i++) {
			if (l->cv[i].kind == 'n')
				sl_col_set_null(&l->rb->cols[i], br);
			else if (sl__pgo_set_value(l->rb, &l->rb->cols[i], br, l->cv[i].p,
			                           (size_t)l->cv[i].len, l->emsg, sizeof l->emsg))
				rc = sl_err_set(err, SL_EINPUT, "%s: column '%s': %s", l->c.what,
				                l->fields[i].name, l->emsg);
		}
		PQfreemem(buf);
		if (!rc && !sl_rowcodec_key_null(l->rb, l->keys, l->nkeys, br))
			rc = add_row(l, br, now, err);
		if (rc) {
			disconnect(l);
			return rc;
		}
	}
	while ((r = PQgetResult(l->conn)))
		PQclear(r);
	l->base.loads++;
	l->loaded = 1;
	return 0;
}

static int full_check(jl_lookup *l, int64_t now, sl_err *err)
{
	int64_t from = l->c.fixed_rate ? l->load_start : l->load_end;
	if (l->loaded && (!l->c.reload_us || now - from < l->c.reload_us))
		return 0;
	l->load_start = now;
	int rc = load_all(l, now, err);
	l->load_end = now;
	return rc;
}

/* ---- the lookup method ------------------------------------------------------ */

static int jl_prefetch(sl_lookup *lk, const void *keys, size_t len, int nkeys, int64_t now,
                       sl_err *err)
{
	jl_lookup *l = (jl_lookup *)lk;
	if (l->c.mode == JL_FULL)
		return full_check(l, now, err);
	if (l->c.mode == JL_NONE)
		clear_cache(l);
	trim(l);
	for (int i = 0; i < l->ntrans; i++)
		if (l->ents[l->trans[i]].used && l->ents[l->trans[i]].transient)
			remove_ent(l, l->trans[i]);
	l->ntrans = 0;
	/* the keys to ask for: not cached, or expired */
	const uint8_t *p = keys;
	sl_buf ask;
	sl_buf_init(&ask);
	int nask = 0, rc = 0;
	for (size_t off = 0; off + 4 <= len && !rc;) {
		uint32_t kl;
		memcpy(&kl, p + off, 4);
		const uint8_t *k = p + off + 4;
		off += 4 + kl;
		int32_t e = find(l, k, kl);
		if (e >= 0 && l->c.mode == JL_PARTIAL && l->ents[e].written != now &&
		    ((l->c.expire_write && now - l->ents[e].written >= l->c.expire_write) ||
		     (l->c.expire_access && now - l->ents[e].accessed >= l->c.expire_access))) {
			remove_ent(l, e);
			e = -1;
		}
		if (e >= 0)
			continue;
		if ((e = insert(l, k, kl, now)) < 0 || sl_buf_append(&ask, &kl, 4) ||
		    sl_buf_append(&ask, k, kl)) {
			rc = sl_err_set(err, SL_ENOMEM, "%s: out of memory", l->c.what);
			break;
		}
		if (l->c.mode == JL_PARTIAL && !l->c.cache_missing) {
			l->ents[e].transient = 1;
			if (l->ntrans == l->captrans) {
				int nc = l->captrans ? l->captrans * 2 : 64;
				int32_t *nt = realloc(l->trans, sizeof(int32_t) * (size_t)nc);
				if (!nt) {
					rc = sl_err_set(err, SL_ENOMEM, "%s: out of memory", l->c.what);
					break;
				}
				l->trans = nt;
				l->captrans = nc;
			}
			l->trans[l->ntrans++] = e;
		}
		nask++;
	}
	if (!rc && nask)
		rc = fetch(l, (const uint8_t *)ask.p, ask.len, now, err);
	sl_buf_deinit(&ask);
	(void)nkeys;
	return rc;
}

static int jl_lookup_key(sl_lookup *lk, const void *key, uint32_t klen, int64_t now,
                         const void **rows, uint32_t *len, sl_err *err)
{
	jl_lookup *l = (jl_lookup *)lk;
	int rc;
	if (l->c.mode == JL_FULL && (rc = full_check(l, now, err)))
		return rc;
	int32_t e = find(l, key, klen);
	if (e < 0 && l->c.mode != JL_FULL) {
		/* not prefetched (evicted by max-rows within its batch): ask alone */
		uint8_t *one = malloc(4 + (size_t)klen);
		if (!one)
			return sl_err_set(err, SL_ENOMEM, "%s: out of memory", l->c.what);
		memcpy(one, &klen, 4);
		memcpy(one + 4, key, klen);
		e = insert(l, key, klen, now);
		rc = e < 0 ? sl_err_set(err, SL_ENOMEM, "%s: out of memory", l->c.what)
		           : fetch(l, one, 4 + (size_t)klen, now, err);
		free(one);
		if (rc)
			return rc;
		e = find(l, key, klen);
	}
	if (e < 0) {
		*rows = NULL;
		*len = 0;
		return 0;
	}
	jl_ent *en = &l->ents[e];
	en->accessed = now;
	if (l->c.mode == JL_PARTIAL) {
		lru_unlink(l, e);
		lru_front(l, e);
	}
	*rows = en->rows.p;
	*len = (uint32_t)en->rows.len;
	return 0;
}

static int jl_configure(sl_lookup *lk, const sl_conn_args *a, const int *keys, int nkeys,
                        sl_err *err)
{
	jl_lookup *l = (jl_lookup *)lk;
	l->lru_head = l->lru_tail = l->free_head = -1;
	int rc = conf_read(&l->c, a, err);
	if (rc)
		return rc;
	if (nkeys > SL_PG_MAX_PARAMS)
		return sl_err_set(err, SL_ENOTSUP, "%s: a lookup by more than %d columns",
		                  l->c.what, SL_PG_MAX_PARAMS);
	l->fields = a->fields;
	l->nfields = a->nfields;
	l->nkeys = nkeys;
	l->keys = malloc(sizeof(int) * (size_t)(nkeys + 1));
	l->ktype = calloc((size_t)nkeys + 1, sizeof(char *));
	l->kcols = calloc((size_t)nkeys + 1, sizeof(sl_col *));
	l->arr = calloc((size_t)nkeys + 1, sizeof(sl_buf));
	l->cv = calloc((size_t)a->nfields + 1, sizeof(sl_pgo_val));
	sl_type *kt = calloc((size_t)nkeys + 1, sizeof(sl_type));
	sl_type *rt = calloc((size_t)a->nfields + 1, sizeof(sl_type));
	if (!l->keys || !l->ktype || !l->kcols || !l->arr || !l->cv || !kt || !rt) {
		free(kt);
		free(rt);
		return sl_err_set(err, SL_ENOMEM, "%s: out of memory", l->c.what);
	}
	memcpy(l->keys, keys, sizeof(int) * (size_t)nkeys);
	for (int i = 0; i < nkeys; i++) {
		kt[i] = a->fields[keys[i]].type;
		if (kt[i].id == SL_T_ARRAY) {
			free(kt);
			free(rt);
			return sl_err_set(err, SL_ENOTSUP, "%s: column '%s': an ARRAY cannot be a lookup "
			                  "key of a jdbc table (the keys are sent as one text array per "
			                  "column)", l->c.what, a->fields[keys[i]].name);
		}
	}
	for (int i = 0; i < a->nfields; i++)
		rt[i] = a->fields[i].type;
	l->kb = sl_batch_new(nkeys, kt, 1);
	l->rb = sl_batch_new(a->nfields, rt, 1);
	free(kt);
	free(rt);
	if (!l->kb || !l->rb)
		return sl_err_set(err, SL_ENOMEM, "%s: out of memory", l->c.what);
	for (int i = 0; i < nkeys; i++)
		l->kcols[i] = &l->kb->cols[i];
	return 0;
}

static int jl_open(sl_lookup *lk, sl_err *err)
{
	jl_lookup *l = (jl_lookup *)lk;
	int rc = connect_check(l, err);
	return rc ? rc : prepare(l, err);
}

static void jl_close(sl_lookup *lk)
{
	jl_lookup *l = (jl_lookup *)lk;
	disconnect(l);
	for (int32_t i = 0; i < l->nents; i++) {
		free(l->ents[i].key);
		sl_buf_deinit(&l->ents[i].rows);
	}
	free(l->ents);
	free(l->buckets);
	free(l->trans);
	for (int i = 0; l->ktype && i < l->nkeys; i++)
		free(l->ktype[i]);
	free(l->ktype);
	for (int i = 0; l->arr && i < l->nkeys; i++)
		sl_buf_deinit(&l->arr[i]);
	free(l->arr);
	free(l->keys);
	free(l->kcols);
	free(l->cv);
	sl_batch_free(l->kb);
	sl_batch_free(l->rb);
	sl_buf_deinit(&l->kbuf);
	sl_buf_deinit(&l->rbuf);
	sl_buf_deinit(&l->txt);
	sl_buf_deinit(&l->scratch);
	if (l->t.qname)
		sl__pg_table_free(&l->t);
	conf_free(&l->c);
}

static const sl_lookup_vtab jl_lookup_vtab = {
	.size = sizeof(jl_lookup),
	.configure = jl_configure,
	.open = jl_open,
	.lookup = jl_lookup_key,
	.prefetch = jl_prefetch,
	.close = jl_close,
};

/* ---- the scan ----------------------------------------------------------------- */

typedef struct js_source {
	sl_source base;        /* must be first */
	jl_conf c;
	const sl_field *fields;
	int nfields;
	PGconn *conn;
	sl_pg_table t;
	int copying, done, restored_done;
	int64_t rows;
	sl_buf scratch;
	sl_pgo_val *cv;
	char emsg[256];
} js_source;

static int js_configure(sl_source *s, const sl_conn_args *a, sl_err *err)
{
	js_source *k = (js_source *)s;
	int rc = conf_read(&k->c, a, err);
	if (rc)
		return rc;
	k->fields = a->fields;
	k->nfields = a->nfields;
	if (!(k->cv = calloc((size_t)a->nfields + 1, sizeof(sl_pgo_val))))
		return sl_err_set(err, SL_ENOMEM, "%s: out of memory", k->c.what);
	return 0;
}

static int js_open(sl_source *s, sl_err *err)
{
	js_source *k = (js_source *)s;
	if (!(k->conn = sl__pg_connect(&k->c.params, k->c.what, err)))
		return err->code;
	return sl__pg_table_check(k->conn, k->c.table_name, k->fields, k->nfields, NULL, 0, &k->t,
	                          k->c.what, err);
}

static int js_read(sl_source *s, sl_batch *out, sl_err *err)
{
	js_source *k = (js_source *)s;
	if (k->done || k->restored_done)
		return SL_EEOF;
	if (!k->copying) {
		if (k->rows)
			return sl_err_set(err, SL_ESTATE, "%s: a jdbc scan cannot resume in the middle of "
			                  "the table (its order is not stable): restart with --fresh",
			                  k->c.what);
		sl_buf q;
		sl_buf_init(&q);
		sl_buf_puts(&q, "COPY (SELECT ");
		for (int i = 0; i < k->nfields; i++)
			sl_buf_printf(&q, "%s%s", i ? ", " : "", k->t.cols[i]);
		sl_buf_printf(&q, " FROM %s) TO STDOUT", k->t.qname);
		sl_buf_putc(&q, 0);
		PGresult *r = q.p ? sl__pg_exec(k->conn, (const char *)q.p, PGRES_COPY_OUT, k->c.what,
		                                "reading the table (COPY)", err) : NULL;
		sl_buf_deinit(&q);
		if (!r)
			return err->code ? err->code : SL_ENOMEM;
		PQclear(r);
		k->copying = 1;
	}
	int n0 = out->nrows;
	while (out->nrows < out->cap) {
		char *buf = NULL;
		int n = PQgetCopyData(k->conn, &buf, 0);
		if (n == -1) {
			PGresult *r;
			while ((r = PQgetResult(k->conn)))
				PQclear(r);
			k->done = 1;
			break;
		}
		if (n < 0)
			return sl_err_set(err, SL_EIO, "%s: reading the table failed: %s", k->c.what,
			                  sl__pg_error(k->conn));
		int nf = sl__pgo_copy_line(buf, (size_t)n, k->cv, k->nfields, &k->scratch);
		int rc = nf == k->nfields ? 0 : sl_err_set(err, SL_EINPUT, "%s: a COPY line has %d "
		                                           "fields, not %d", k->c.what, nf, k->nfields);
		int row = rc ? -1 : sl_batch_add_row(out, SL_INSERT, SL_WM_MIN);
		for (int i = 0; !rc && i < k->nfields; i++) {
			if (k->cv[i].kind == 'n')
				sl_col_set_null(&out->cols[i], row);
			else if (sl__pgo_set_value(out, &out->cols[i], row, k->cv[i].p,
			                           (size_t)k->cv[i].len, k->emsg, sizeof k->emsg))
				rc = sl_err_set(err, SL_EINPUT, "%s: column '%s': %s", k->c.what,
				                k->fields[i].name, k->emsg);
		}
		PQfreemem(buf);
		if (rc)
			return rc;
		k->rows++;
	}
	int got = out->nrows - n0;
	s->rows_read += got;
	return got ? got : k->done ? SL_EEOF : 0;
}

/* Snapshot, version 1: u8 1, u8 done, i64 rows read. */
static int js_snapshot(sl_source *s, sl_snap_writer *w, sl_err *err)
{
	js_source *k = (js_source *)s;
	sl_snap_put_u8(w, 1);
	sl_snap_put_u8(w, (uint8_t)(k->done || k->restored_done));
	sl_snap_put_i64(w, k->rows);
	return w->failed ? sl_err_set(err, SL_ENOMEM, "%s: snapshot: out of memory", k->c.what) : 0;
}

static int js_restore(sl_source *s, sl_snap_reader *r, sl_err *err)
{
	js_source *k = (js_source *)s;
	uint8_t ver = sl_snap_get_u8(r), done = sl_snap_get_u8(r);
	int64_t rows = sl_snap_get_i64(r);
	if (!sl_snap_reader_ok(r) || ver != 1)
		return sl_err_set(err, SL_ESTATE, "%s: damaged jdbc scan snapshot", k->c.what);
	k->restored_done = done;
	k->rows = rows;
	return 0;
}

static void js_close(sl_source *s)
{
	js_source *k = (js_source *)s;
	if (k->conn)
		PQfinish(k->conn);
	k->conn = NULL;
	if (k->t.qname)
		sl__pg_table_free(&k->t);
	sl_buf_deinit(&k->scratch);
	free(k->cv);
	conf_free(&k->c);
}

const sl_source_vtab sl_jdbc_source_vtab = {
	.name = "jdbc",
	.size = sizeof(js_source),
	.lookup = &jl_lookup_vtab,
	.configure = js_configure,
	.open = js_open,
	.read = js_read,
	.snapshot = js_snapshot,
	.restore = js_restore,
	.close = js_close,
	.single_instance = 1,
};
