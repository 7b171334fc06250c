/*
 * plan_ctas.c - CREATE TABLE t WITH (...) AS query (Flink's "CREATE TABLE
 * AS SELECT", CTAS): the table takes the query's output columns, and the
 * job inserts the query into it.
 *
 * The query is planned once for its columns (sl_plan_query_columns: no
 * I/O, nothing kept but the names and types), t is added to the catalog as
 * if the user had written `CREATE TABLE t (c1 type1, ...) WITH (...)`
 * (a CREATE TABLE node built here, in the catalog's arena, so SHOW CREATE
 * TABLE prints it), and the statement becomes `INSERT INTO t query`, which
 * the job plans like any INSERT: a sink that cannot take the query's
 * changelog is refused there, with the usual message.  Flink 1.20's
 * restrictions are kept, with its messages: no column list, WATERMARK,
 * PRIMARY KEY, PARTITIONED BY, TEMPORARY or LIKE with AS.  Column types
 * keep the query's nullability; a time attribute becomes its plain
 * TIMESTAMP / TIMESTAMP_LTZ type (the new table has no watermark), as in
 * Flink.  With IF NOT EXISTS and t already declared, the query is
 * inserted into the existing t.
 */
#include "plan.h"
#include "sluice.h"

#include <string.h>

/* A deep copy of type t in arena a (ROW, ARRAY and MAP types point to
 * their fields, which the planning arena owns). */
static int copy_type(sl_arena *a, const sl_type *t, sl_type *out)
{
	*out = *t;
	if (!t->row)
		return 0;
	sl_row_type *r = sl_arena_calloc(a, sizeof(*r));
	if (!r)
		return SL_ENOMEM;
	r->nfields = t->row->nfields;
	r->fields = sl_arena_calloc(a, sizeof(*r->fields) * (size_t)(r->nfields + 1));
	if (!r->fields)
		return SL_ENOMEM;
	for (int i = 0; i < r->nfields; i++) {
		const sl_field *f = &t->row->fields[i];
		r->fields[i].name = f->name ? sl_arena_strdup(a, f->name) : NULL;
		if ((f->name && !r->fields[i].name) || copy_type(a, &f->type, &r->fields[i].type))
			return SL_ENOMEM;
	}
	out->row = r;
	return 0;
}

static int refuse(const sl_ast_stmt *s, const char *what, sl_err *err)
{
	return sl_err_set_at(err, SL_ENOTSUP, s->line, s->col,
	                     "line %d, column %d: CREATE TABLE AS SELECT syntax does not support %s "
	                     "yet.", s->line, s->col, what);
}

/* The CREATE TABLE node of the new table: s's name and options, the
 * columns names[0..n) of types[0..n), all in arena a. */
static sl_ast_create_table *table_node(sl_arena *a, const sl_ast_create_table *ct, int n,
                                       const char **names, const sl_type *types,
                                       const sl_ast_stmt *s)
{
	sl_ast_create_table *m = sl_arena_calloc(a, sizeof(*m));
	if (!m || !(m->cols = sl_arena_calloc(a, sizeof(*m->cols) * (size_t)(n + 1))))
		return NULL;
	m->name = ct->name;
	m->comment = ct->comment;
	m->noptions = ct->noptions;
	m->options = ct->options;
	m->ncols = n;
	for (int i = 0; i < n; i++) {
		sl_ast_column *c = &m->cols[i];
		sl_ast_type *ty = sl_arena_calloc(a, sizeof(*ty));
		if (!ty || !(c->name.name = sl_arena_strdup(a, names[i])) ||
		    copy_type(a, &types[i], &ty->sql))
			return NULL;
		ty->kind = SL_ATY_SQL;
		ty->notnull = types[i].notnull;
		ty->line = c->line = s->line;
		ty->col = c->col = s->col;
		c->kind = SL_ACOL_PHYSICAL;
		c->type = ty;
	}
	return m;
}

int sl_plan_ctas(const sl_plan_args *a, sl_catalog *cat, sl_ast_stmt *s, sl_ast_stmt **insert,
                 sl_err *err)
{
	const sl_ast_create_table *ct = &s->u.create_table;
	if (ct->ncols)
		return refuse(s, "to specify explicit columns", err);
	if (ct->nwatermarks)
		return refuse(s, "to specify explicit watermark", err);
	if (ct->npk)
		return refuse(s, "to specify primary key constraints", err);
	if (ct->npartition)
		return refuse(s, "to create partitioned table", err);
	if (ct->temporary)
		return refuse(s, "to create temporary table", err);
	if (ct->like.n)
		return refuse(s, "the LIKE clause", err);
	const char *name = sl_ast_name_last(&ct->name);
	int exists = sl_catalog_table(cat, name) || sl_catalog_view(cat, name);
	if (!exists || !ct->if_not_exists) {
		int n;
		const char **names;
		sl_type *types;
		int rc = sl_plan_query_columns(a, ct->as_query, &n, &names, &types, err);
		if (rc)
			return rc;
		const sl_ast_create_table *m = table_node(&cat->arena, ct, n, names, types, s);
		if (!m)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		if ((rc = sl_catalog_add_table(cat, m, s->line, s->col, err)))
			return rc;
	}
	sl_ast_stmt *ins = sl_arena_calloc(&cat->arena, sizeof(*ins));
	if (!ins)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	ins->kind = SL_AS_INSERT;
	ins->line = s->line;
	ins->col = s->col;
	ins->text = s->text;
	ins->offset = s->offset;
	ins->len = s->len;
	ins->u.insert.table = ct->name;
	ins->u.insert.query = ct->as_query;
	*insert = ins;
	return 0;
}
