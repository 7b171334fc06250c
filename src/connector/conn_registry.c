/*
 * conn_registry.c - the table of connectors by name, and the generic
 * constructor/destructor of sources and sinks.
 *
 * The planner looks a connector up by its WITH ('connector' = ...) name
 * (sl_source_find / sl_sink_find) and configures it with sl_source_new /
 * sl_sink_new, which allocate vt->size zeroed bytes (the concrete struct,
 * whose first member is the sl_source / sl_sink base), fill the base and
 * call the connector's configure (no I/O, conn.h); the runtime opens it
 * with sl_source_open / sl_sink_open when the job starts.  A new connector
 * is one new file, its method table's declaration in conn_builtin.h and
 * one line in each table below.  The tables are
 * read-only; no locking is needed.  Not listed: the 'push' connector of the
 * C API (src/api/conn_push.c), which lives in the engine: a push table read
 * by a job has no source object (its scan is fed by sl_push_json), and the
 * planner gets its sink from the engine (sl_plan_args.push_sink).
 */
#include "conn_builtin.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

static const sl_source_vtab *const source_table[] = {
	&sl_filesystem_source_vtab,
	&sl_stdin_source_vtab,
	&sl_datagen_source_vtab,
	&sl_nexmark_source_vtab,
	&sl_kafka_source_vtab,
	&sl_upsert_kafka_source_vtab,
	&sl_pgcdc_source_vtab,
	&sl_jdbc_source_vtab,
	NULL
};

static const sl_sink_vtab *const sink_table[] = {
	&sl_filesystem_sink_vtab,
	&sl_stdout_sink_vtab,
	&sl_print_sink_vtab,
	&sl_blackhole_sink_vtab,
	&sl_kafka_sink_vtab,
	&sl_upsert_kafka_sink_vtab,
	&sl_jdbc_sink_vtab,
	&sl_iceberg_sink_vtab,
	NULL
};

/*
 * Returns the source method table registered as `connector`, or NULL when
 * no source has that name (or connector is NULL).
 */
const sl_source_vtab *sl_source_find(const char *connector)
{
	if (!connector)
		return NULL;
	for (int i = 0; source_table[i]; i++)
		if (strcmp(source_table[i]->name, connector) == 0)
			return source_table[i];
	return NULL;
}

/*
 * Returns the sink method table registered as `connector`, or NULL when
 * no sink has that name (or connector is NULL).
 */
const sl_sink_vtab *sl_sink_find(const char *connector)
{
	if (!connector)
		return NULL;
	for (int i = 0; sink_table[i]; i++)
		if (strcmp(sink_table[i]->name, connector) == 0)
			return sink_table[i];
	return NULL;
}

/*
 * Allocates a source of type vt (vt->size bytes, zeroed), fills its base
 * and configures it with a (no I/O).  The caller owns the result (free with
 * sl_source_free).  On failure the half-configured source is closed and
 * freed, err holds the message and NULL is returned.
 */
sl_source *sl_source_new(const sl_source_vtab *vt, const sl_conn_args *a, sl_err *err)
{
	size_t size = vt->size < sizeof(sl_source) ? sizeof(sl_source) : vt->size;
	sl_source *s = calloc(1, size);
	if (!s) {
		sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", a->table);
		return NULL;
	}
	s->vt = vt;
	s->table = a->table;
	int rc = vt->configure(s, a, err);
	if (rc < 0) {
		if (err && !err->code)
			sl_err_set(err, rc, "source '%s': cannot open", a->table);
		sl_source_free(s);
		return NULL;
	}
	return s;
}

/*
 * Opens a configured source (vt->open, if any).  Returns 0 or a negative
 * code with err set; the source stays the caller's either way.
 */
int sl_source_open(sl_source *s, sl_err *err)
{
	int rc = s->vt->open ? s->vt->open(s, err) : 0;
	if (rc < 0 && err && !err->code)
		sl_err_set(err, rc, "source '%s': cannot open", s->table);
	return rc < 0 ? rc : 0;
}

/* sl_source_new, then sl_source_open; NULL (nothing left over) with err on
 * failure of either. */
sl_source *sl_source_new_open(const sl_source_vtab *vt, const sl_conn_args *a, sl_err *err)
{
	sl_source *s = sl_source_new(vt, a, err);
	if (s && sl_source_open(s, err)) {
		sl_source_free(s);
		return NULL;
	}
	return s;
}

/* Closes and frees a source (opened or only configured).  Safe on NULL. */
void sl_source_free(sl_source *s)
{
	if (!s)
		return;
	if (s->vt->close)
		s->vt->close(s);
	free(s);
}

/*
 * Allocates a sink of type vt, fills its base and configures it with a (no
 * I/O).  Same contract as sl_source_new.
 */
sl_sink *sl_sink_new(const sl_sink_vtab *vt, const sl_conn_args *a, sl_err *err)
{
	size_t size = vt->size < sizeof(sl_sink) ? sizeof(sl_sink) : vt->size;
	sl_sink *k = calloc(1, size);
	if (!k) {
		sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", a->table);
		return NULL;
	}
	k->vt = vt;
	k->table = a->table;
	int rc = vt->configure(k, a, err);
	if (rc < 0) {
		if (err && !err->code)
			sl_err_set(err, rc, "sink '%s': cannot open", a->table);
		sl_sink_free(k);
		return NULL;
	}
	return k;
}

/* Opens a configured sink (vt->open, if any).  Same contract as
 * sl_source_open. */
int sl_sink_open(sl_sink *k, sl_err *err)
{
	int rc = k->vt->open ? k->vt->open(k, err) : 0;
	if (rc < 0 && err && !err->code)
		sl_err_set(err, rc, "sink '%s': cannot open", k->table);
	return rc < 0 ? rc : 0;
}

/* sl_sink_new, then sl_sink_open; NULL (nothing left over) with err on
 * failure of either. */
sl_sink *sl_sink_new_open(const sl_sink_vtab *vt, const sl_conn_args *a, sl_err *err)
{
	sl_sink *k = sl_sink_new(vt, a, err);
	if (k && sl_sink_open(k, err)) {
		sl_sink_free(k);
		return NULL;
	}
	return k;
}

/* Closes (without publishing) and frees a sink, opened or only
 * configured.  Safe on NULL. */
void sl_sink_free(sl_sink *k)
{
	if (!k)
		return;
	if (k->vt->close)
		k->vt->close(k);
	free(k);
}
