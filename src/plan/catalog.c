/*
 * catalog.c - table and view definitions (see catalog.h).
 */
#include "catalog.h"
#include "sluice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sl_catalog_init(sl_catalog *c)
{
	memset(c, 0, sizeof(*c));
	sl_arena_init(&c->arena, 16 * 1024);
}

void sl_catalog_deinit(sl_catalog *c)
{
	free(c->tables);
	free(c->views);
	sl_catalog_close_functions(c);
	free(c->functions);
	free(c->jars);
	free(c->jar_dls);
	sl_arena_deinit(&c->arena);
	memset(c, 0, sizeof(*c));
}

int sl__ast_has_pk(const sl_ast_create_table *t)
{
	if (t->npk)
		return 1;
	for (int i = 0; i < t->ncols; i++)
		if (t->cols[i].primary_key)
			return 1;
	return 0;
}

const char *sl_ast_name_last(const sl_ast_name *n)
{
	return n->n ? n->parts[n->n - 1].name : "";
}

sl_table_def *sl_catalog_table(const sl_catalog *c, const char *name)
{
	for (int i = 0; i < c->ntables; i++)
		if (strcmp(c->tables[i]->name, name) == 0)
			return c->tables[i];
	return NULL;
}

sl_view_def *sl_catalog_view(const sl_catalog *c, const char *name)
{
	for (int i = 0; i < c->nviews; i++)
		if (strcmp(c->views[i]->name, name) == 0)
			return c->views[i];
	return NULL;
}

static int col_index(const sl_table_def *t, const char *name)
{
	for (int i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i].name, name) == 0)
			return i;
	return -1;
}

static int fill_columns(sl_catalog *c, sl_table_def *d, const sl_ast_create_table *t,
                        sl_err *err)
{
	d->cols = sl_arena_calloc(&c->arena, sizeof(sl_table_col) * (size_t)(t->ncols + 1));
	if (!d->cols)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < t->ncols; i++) {
		const sl_ast_column *ac = &t->cols[i];
		sl_table_col *col = &d->cols[i];
		if (col_index(d, ac->name.name) >= 0)
			return sl_err_set_at(err, SL_EPLAN, ac->line, ac->col,
			                     "line %d, column %d: duplicate column '%s' in table '%s'",
			                     ac->line, ac->col, ac->name.name, d->name);
		col->name = ac->name.name;
		if (ac->kind == SL_ACOL_COMPUTED) {
			col->computed = ac->expr;
		} else {
			if (ac->type->kind != SL_ATY_SQL)
				return sl_err_set_at(err, SL_ENOTSUP, ac->line, ac->col,
				                     "line %d, column %d: column '%s': MULTISET types "
				                     "(and ARRAY or MAP of them) are not supported yet",
				                     ac->line, ac->col, ac->name.name);
			col->type = ac->type->sql;
			col->metadata = ac->kind == SL_ACOL_METADATA;
			if (col->metadata) /* METADATA FROM 'key', else the column's name */
				col->metadata_key = ac->metadata_key ? ac->metadata_key : ac->name.name;
			col->is_virtual = ac->is_virtual;
		}
		d->ncols = i + 1;
	}
	return 0;
}

static int fill_keys(sl_catalog *c, sl_table_def *d, const sl_ast_create_table *t, sl_err *err)
{
	d->rowtime = -1;
	if (t->nwatermarks > 1)
		return sl_err_set_at(err, SL_EPLAN, t->watermarks[1].line, t->watermarks[1].col,
		                     "line %d, column %d: a table has at most one WATERMARK",
		                     t->watermarks[1].line, t->watermarks[1].col);
	if (t->nwatermarks == 1) {
		const sl_ast_watermark *w = &t->watermarks[0];
		const char *cn = sl_ast_name_last(&w->column);
		int i = col_index(d, cn);
		if (i < 0)
			return sl_err_set_at(err, SL_EPLAN, w->line, w->col,
			                     "line %d, column %d: WATERMARK FOR unknown column '%s'",
			                     w->line, w->col, cn);
		if (!d->cols[i].computed && !sl_type_is_timestamp(d->cols[i].type)) {
			char buf[64];
			return sl_err_set_at(err, SL_EPLAN, w->line, w->col,
			                     "line %d, column %d: the rowtime column '%s' must be "
			                     "TIMESTAMP(3) or TIMESTAMP_LTZ(3), not %s", w->line,
			                     w->col, cn, sl_type_format(d->cols[i].type, buf, sizeof(buf)));
		}
		d->rowtime = i;
		d->watermark = w->expr;
	}
	int npk = t->npk;
	for (int i = 0; i < t->ncols; i++)
		npk += t->cols[i].primary_key;
	d->pk = sl_arena_calloc(&c->arena, sizeof(int) * (size_t)(npk + 1));
	for (int i = 0; i < t->npk; i++) {
		int k = col_index(d, t->pk[i].name);
		if (k < 0)
			return sl_err_set_at(err, SL_EPLAN, t->pk[i].line, t->pk[i].col,
			                     "line %d, column %d: PRIMARY KEY column '%s' does not exist",
			                     t->pk[i].line, t->pk[i].col, t->pk[i].name);
		d->pk[d->npk++] = k;
	}
	for (int i = 0; i < t->ncols; i++)
		if (t->cols[i].primary_key)
			d->pk[d->npk++] = i;
	return 0;
}

/* Flink's legacy (pre-1.11 'connector.type' style) option keys and their
 * new spellings; "" = no longer an option. */
static const struct { const char *old, *neu; } legacy_keys[] = {
	{"connector.type", "connector"},
	{"connector.path", "path"},
	{"connector.topic", "topic"},
	{"connector.properties.bootstrap.servers", "properties.bootstrap.servers"},
	{"connector.properties.group.id", "properties.group.id"},
	{"connector.startup-mode", "scan.startup.mode"},
	{"connector.url", "url"},
	{"connector.table", "table-name"},
	{"connector.username", "username"},
	{"connector.password", "password"},
	{"connector.rows-per-second", "rows-per-second"},
	{"connector.version", ""},
	{"format.type", "format"},
	{"format.field-delimiter", "csv.field-delimiter"},
	{"format.derive-schema", ""},
	{"update-mode", ""},
};

/* The legacy CSV file source Flink 1.20 still ships (CsvTableSource, the
 * factory of 'connector.type' = 'filesystem' with 'format.type' = 'csv';
 * Nexmark's q13 declares its side input so): its keys and their new
 * spellings; "" = dropped (no effect on what is read). */
static const struct { const char *old, *neu; } legacy_csv_keys[] = {
	{"connector.type", "connector"},
	{"connector.path", "path"},
	{"connector.property-version", ""},
	{"format.type", "format"},
	{"format.property-version", ""},
	{"format.field-delimiter", "csv.field-delimiter"},
	{"format.ignore-parse-errors", "csv.ignore-parse-errors"},
	{"format.derive-schema", ""},
	{"update-mode", ""},
};

/* The value of option key in t, or NULL. */
static const char *ast_option(const sl_ast_create_table *t, const char *key)
{
	for (int i = 0; i < t->noptions; i++)
		if (!strcmp(t->options[i].key, key))
			return t->options[i].value;
	return NULL;
}

/* 1 when t is declared with the legacy CSV file source's keys
 * ('connector.type' = 'filesystem', 'format.type' = 'csv'): those keys are
 * then read in their new spelling (legacy_csv_keys). */
static int legacy_csv(const sl_ast_create_table *t)
{
	const char *ct = ast_option(t, "connector.type"), *ft = ast_option(t, "format.type");
	return ct && ft && !strcmp(ct, "filesystem") && !strcmp(ft, "csv");
}

/* The new spelling of key in a legacy CSV table: key itself when it is not
 * a legacy key, "" when it is dropped, NULL when the legacy source has no
 * such key. */
static const char *legacy_csv_key(const char *k)
{
	for (size_t j = 0; j < sizeof(legacy_csv_keys) / sizeof(legacy_csv_keys[0]); j++)
		if (!strcmp(k, legacy_csv_keys[j].old))
			return legacy_csv_keys[j].neu;
	int legacy = !strncmp(k, "connector.", 10) || !strncmp(k, "format.", 7);
	return legacy ? NULL : k;
}

/* Refuses Flink's legacy option keys, naming the new spelling (but those
 * of the legacy CSV file source, legacy_csv). */
static int check_legacy(const sl_ast_create_table *t, const char *name, sl_err *err)
{
	int csv = legacy_csv(t);
	for (int i = 0; i < t->noptions; i++) {
		const sl_ast_option *o = &t->options[i];
		const char *k = o->key;
		int legacy = !strncmp(k, "connector.", 10) || !strncmp(k, "format.", 7) ||
		             !strcmp(k, "update-mode");
		if (!legacy || (csv && legacy_csv_key(k)))
			continue;
		if (csv)
			return sl_err_set_at(err, SL_ENOTSUP, o->line, o->col,
			                     "line %d, column %d: table '%s': '%s' is not supported for "
			                     "Flink's legacy CSV file source ('connector.type' = "
			                     "'filesystem'; supported: 'connector.path', "
			                     "'format.field-delimiter', 'format.ignore-parse-errors', "
			                     "'format.derive-schema', 'update-mode'): write the table "
			                     "with 'connector' = 'filesystem' and 'format' = 'csv'",
			                     o->line, o->col, name, k);
		const char *neu = NULL;
		for (size_t j = 0; j < sizeof(legacy_keys) / sizeof(legacy_keys[0]); j++)
			if (!strcmp(k, legacy_keys[j].old))
				neu = legacy_keys[j].neu;
		char hint[300];
		if (neu && !*neu)
			snprintf(hint, sizeof hint, "drop it: the new options have no such key%s",
			         !strcmp(k, "update-mode") ? " (the changelog mode follows the "
			         "'format' and the PRIMARY KEY)" : "");
		else if (neu)
			snprintf(hint, sizeof hint, "write '%s' = '%s'", neu, o->value ? o->value : "");
		else if (!strncmp(k, "format.", 7))
			snprintf(hint, sizeof hint, "write '<format>.%s' (e.g. 'json.%s', 'csv.%s')",
			         k + 7, k + 7, k + 7);
		else
			snprintf(hint, sizeof hint, "write '%s' without the 'connector.' prefix "
			         "(see the connector's options in docs/sql.md)", k + 10);
		return sl_err_set_at(err, SL_ENOTSUP, o->line, o->col,
		                     "line %d, column %d: table '%s': '%s' is one of Flink's legacy "
		                     "option keys (deprecated since Flink 1.11, FLIP-122), not supported: %s",
		                     o->line, o->col, name, k, hint);
	}
	return 0;
}

/* PARTITIONED BY (a, b): physical columns of the table. */
static int fill_partition(sl_catalog *c, sl_table_def *d, const sl_ast_create_table *t,
                          sl_err *err)
{
	d->part = sl_arena_calloc(&c->arena, sizeof(int) * (size_t)(t->npartition + 1));
	if (!d->part)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < t->npartition; i++) {
		const sl_ast_ident *id = &t->partition[i];
		int k = col_index(d, id->name);
		if (k < 0 || d->cols[k].computed || d->cols[k].metadata)
			return sl_err_set_at(err, SL_EPLAN, id->line, id->col,
			                     "line %d, column %d: partition column '%s' is not a "
			                     "physical column of table '%s'", id->line, id->col,
			                     id->name, d->name);
		for (int j = 0; j < d->npart; j++)
			if (d->part[j] == k)
				return sl_err_set_at(err, SL_EPLAN, id->line, id->col,
				                     "line %d, column %d: partition column '%s' is listed "
				                     "twice", id->line, id->col, id->name);
		d->part[d->npart++] = k;
	}
	return 0;
}

/* The definition of CREATE TABLE node t, checked (catalog.h); not added. */
int sl__catalog_build_table(sl_catalog *c, const sl_ast_create_table *t, int line, int col,
                            sl_table_def **out, sl_err *err)
{
	const char *name = sl_ast_name_last(&t->name);
	sl_table_def *d = sl_arena_calloc(&c->arena, sizeof(*d));
	if (!d)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	d->name = sl_arena_strdup(&c->arena, name);
	d->line = line;
	d->col = col;
	d->ast = t;
	int rc = check_legacy(t, name, err);
	if (!rc)
		rc = fill_columns(c, d, t, err);
	if (!rc)
		rc = fill_keys(c, d, t, err);
	if (!rc)
		rc = fill_partition(c, d, t, err);
	if (rc)
		return rc;
	sl_opts_init(&d->opts, &c->arena);
	int csv = legacy_csv(t);
	for (int i = 0; i < t->noptions; i++) {
		const char *k = csv ? legacy_csv_key(t->options[i].key) : t->options[i].key;
		if (*k && sl_opts_set(&d->opts, k, t->options[i].value))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	if (!sl_opts_get(&d->opts, "connector"))
		return sl_err_set_at(err, SL_EPLAN, line, col,
		                     "line %d, column %d: table '%s' has no 'connector' option",
		                     line, col, name);
	d->opts.v[0].used = 0;
	for (int i = 0; i < d->opts.n; i++)
		d->opts.v[i].used = 0;
	*out = d;
	return 0;
}

int sl_catalog_add_table(sl_catalog *c, const sl_ast_create_table *t, int line, int col,
                         sl_err *err)
{
	const char *name = sl_ast_name_last(&t->name);
	if (sl_catalog_table(c, name) || sl_catalog_view(c, name)) {
		if (t->if_not_exists)
			return 0;
		return sl_err_set_at(err, SL_EPLAN, line, col,
		                     "line %d, column %d: table or view '%s' already exists", line,
		                     col, name);
	}
	if (t->as_query)
		return sl_err_set_at(err, SL_ENOTSUP, line, col,
		                     "line %d, column %d: CREATE TABLE ... AS is not supported yet",
		                     line, col);
	if (t->like.n) {
		int rc = sl_catalog_merge_like(c, t, &t, line, col, err);
		if (rc)
			return rc;
	}
	sl_table_def *d;
	int rc = sl__catalog_build_table(c, t, line, col, &d, err);
	if (rc)
		return rc;
	sl_table_def **nt = realloc(c->tables, sizeof(*nt) * (size_t)(c->ntables + 1));
	if (!nt)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	c->tables = nt;
	c->tables[c->ntables++] = d;
	return 0;
}

int sl_catalog_add_view(sl_catalog *c, const sl_ast_create_view *v, int line, int col,
                        sl_err *err)
{
	const char *name = sl_ast_name_last(&v->name);
	if (sl_catalog_table(c, name) || sl_catalog_view(c, name)) {
		if (v->if_not_exists)
			return 0;
		return sl_err_set_at(err, SL_EPLAN, line, col,
		                     "line %d, column %d: table or view '%s' already exists", line,
		                     col, name);
	}
	sl_view_def *d = sl_arena_calloc(&c->arena, sizeof(*d));
	if (!d)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	d->name = sl_arena_strdup(&c->arena, name);
	d->query = v->query;
	d->ncols = v->ncols;
	d->cols = v->cols;
	d->query_text = v->query_text;
	sl_view_def **nv = realloc(c->views, sizeof(*nv) * (size_t)(c->nviews + 1));
	if (!nv)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	c->views = nv;
	c->views[c->nviews++] = d;
	return 0;
}

int sl_catalog_drop(sl_catalog *c, const sl_ast_drop *d, int view, int line, int col,
                    sl_err *err)
{
	const char *name = sl_ast_name_last(&d->name);
	if (view) {
		for (int i = 0; i < c->nviews; i++)
			if (strcmp(c->views[i]->name, name) == 0) {
				c->views[i] = c->views[--c->nviews];
				return 0;
			}
	} else {
		for (int i = 0; i < c->ntables; i++)
			if (strcmp(c->tables[i]->name, name) == 0) {
				c->tables[i] = c->tables[--c->ntables];
				return 0;
			}
	}
	if (d->if_exists)
		return 0;
	return sl_err_set_at(err, SL_EPLAN, line, col, "line %d, column %d: %s '%s' does not exist",
	                     line, col, view ? "view" : "table", name);
}
