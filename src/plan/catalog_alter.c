/*
 * catalog_alter.c - ALTER TABLE and ALTER VIEW (Flink 1.20's alter.md):
 * a table's CREATE TABLE node copied, changed as the statement says, and
 * checked as a CREATE of it would be; the new definition takes the old
 * one's place in the catalog only when every check passes, so a failed
 * ALTER changes nothing.  The old definition stays in the catalog's arena:
 * a job planned with it keeps reading it.  SHOW CREATE TABLE and DESCRIBE
 * print the new node.
 *
 * The operations and their checks (Flink's messages, SchemaConverter's):
 *   ADD      columns (placed FIRST, AFTER c or last), a PRIMARY KEY, a
 *            WATERMARK; none may exist already;
 *   MODIFY   the same, each must exist; a column keeps its place unless
 *            FIRST / AFTER moves it;
 *   DROP     columns (not one the key, a watermark, a partition or a
 *            computed column or watermark expression uses), PRIMARY KEY,
 *            CONSTRAINT name (the key's name), WATERMARK;
 *   RENAME   a column (not one an expression uses; the key, the
 *            watermark's column and PARTITIONED BY follow), or the table;
 *   SET      options added or replaced; RESET options removed ('connector'
 *            cannot be reset).
 * ALTER VIEW renames a view or replaces its query (its columns are those of
 * the new query the next time a job reads it).
 */
#include "catalog.h"
#include "../base/buf.h"
#include "sluice.h"

#include <stdio.h>
#include <string.h>

/* 1 when expression e reads a column named name (the last part of a
 * column reference; subqueries are not looked into: computed columns and
 * watermarks have none). */
static int refers(const sl_ast_expr *e, const char *name)
{
	if (!e)
		return 0;
	switch (e->kind) {
	case SL_AX_COLUMN:
		return e->u.name.n && !strcmp(e->u.name.parts[0].name, name);
	case SL_AX_UNARY:
	case SL_AX_BINARY: return refers(e->u.op.a, name) || refers(e->u.op.b, name);
	case SL_AX_IS: return refers(e->u.is.a, name) || refers(e->u.is.b, name);
	case SL_AX_BETWEEN:
		return refers(e->u.between.a, name) || refers(e->u.between.lo, name) ||
		       refers(e->u.between.hi, name);
	case SL_AX_IN_LIST:
		for (int i = 0; i < e->u.in.nlist; i++)
			if (refers(e->u.in.list[i], name))
				return 1;
		return refers(e->u.in.a, name);
	case SL_AX_LIKE:
		return refers(e->u.like.a, name) || refers(e->u.like.pattern, name) ||
		       refers(e->u.like.escape, name);
	case SL_AX_CASE:
		for (int i = 0; i < e->u.case_.nwhen; i++)
			if (refers(e->u.case_.when[i], name) || refers(e->u.case_.then[i], name))
				return 1;
		return refers(e->u.case_.operand, name) || refers(e->u.case_.else_, name);
	case SL_AX_CAST: return refers(e->u.cast.a, name);
	case SL_AX_CALL:
		for (int i = 0; i < e->u.call.nargs; i++)
			if (refers(e->u.call.args[i], name))
				return 1;
		return 0;
	case SL_AX_FIELD: return refers(e->u.field.a, name);
	default: return 0;
	}
}

typedef struct alter_ctx {
	sl_catalog *c;
	sl_ast_create_table *m;  /* the new node */
	int ccap;                /* capacity of m->cols */
	int line, col;           /* the operation's position */
	sl_err *err;
} alter_ctx;

static int fail(alter_ctx *x, const char *fmt, const char *a, const char *b)
{
	char msg[400];
	snprintf(msg, sizeof msg, fmt, a, b ? b : "");
	return sl_err_set_at(x->err, SL_EPLAN, x->line, x->col, "line %d, column %d: %s", x->line,
	                     x->col, msg);
}

static int find_col(const sl_ast_create_table *m, const char *name)
{
	for (int i = 0; i < m->ncols; i++)
		if (!strcmp(m->cols[i].name.name, name))
			return i;
	return -1;
}

/* Removes the key, declared either way. */
static void drop_pk(sl_ast_create_table *m)
{
	m->npk = 0;
	m->pk = NULL;
	m->pk_constraint = NULL;
	for (int i = 0; i < m->ncols; i++)
		m->cols[i].primary_key = 0;
}

/* Puts column c at the place its FIRST / AFTER says, else at `at` (the
 * end for ADD, its old place for MODIFY); the column is not in m. */
static int place(alter_ctx *x, const sl_ast_column *c, int at)
{
	sl_ast_create_table *m = x->m;
	if (c->pos_first)
		at = 0;
	if (c->pos_after.name) {
		int a = find_col(m, c->pos_after.name);
		if (a < 0)
			return fail(x, "Referenced column `%s` by 'AFTER' does not exist in the table.",
			            c->pos_after.name, NULL);
		at = a + 1;
	}
	if (m->ncols == x->ccap)
		return sl_err_set(x->err, SL_ENOMEM, "out of memory");
	memmove(&m->cols[at + 1], &m->cols[at], sizeof(*m->cols) * (size_t)(m->ncols - at));
	m->cols[at] = *c;
	m->cols[at].pos_first = 0;
	m->cols[at].pos_after.name = NULL;
	m->ncols++;
	return 0;
}

static void remove_col(sl_ast_create_table *m, int i)
{
	memmove(&m->cols[i], &m->cols[i + 1], sizeof(*m->cols) * (size_t)(m->ncols - i - 1));
	m->ncols--;
}

/* ADD (modify 0) or MODIFY (1) the elements of el. */
static int add_modify(alter_ctx *x, const sl_ast_create_table *el, int modify)
{
	sl_ast_create_table *m = x->m;
	for (int k = 0; k < el->ncols; k++) {
		const sl_ast_column *c = &el->cols[k];
		int i = find_col(m, c->name.name);
		if (!modify && i >= 0)
			return fail(x, "Try to add a column `%s` which already exists in the table.",
			            c->name.name, NULL);
		if (modify && i < 0)
			return fail(x, "Try to modify a column `%s` which does not exist in the table.",
			            c->name.name, NULL);
		if (modify)
			remove_col(m, i);
		int rc = place(x, c, modify ? i : m->ncols);
		if (rc)
			return rc;
	}
	if (sl__ast_has_pk(el)) {
		if (!modify && sl__ast_has_pk(m))
			return fail(x, "The base table has already defined the primary key constraint. "
			            "You might want to drop it before adding a new one.", NULL, NULL);
		if (modify && !sl__ast_has_pk(m))
			return fail(x, "The base table does not define any primary key constraint. You "
			            "might want to add a new one.", NULL, NULL);
		if (modify) { /* the old key goes, the new one's columns keep their flags */
			m->npk = 0;
			m->pk = NULL;
			for (int i = 0; i < m->ncols; i++)
				if (find_col(el, m->cols[i].name.name) < 0)
					m->cols[i].primary_key = 0;
		}
		if (el->npk) {
			m->npk = el->npk;
			m->pk = el->pk;
			m->pk_constraint = el->pk_constraint;
			m->pk_enforced = el->pk_enforced;
			m->pk_line = el->pk_line;
			m->pk_col = el->pk_col;
		}
	}
	for (int k = 0; k < el->nwatermarks; k++) {
		if (!modify && m->nwatermarks)
			return fail(x, "The base table has already defined the watermark strategy "
			            "for `%s`. You might want to drop it before adding a new one.",
			            sl_ast_name_last(&m->watermarks[0].column), NULL);
		if (modify && !m->nwatermarks)
			return fail(x, "The base table does not define any watermark. You might want to "
			            "add a new one.", NULL, NULL);
		m->watermarks = (sl_ast_watermark *)&el->watermarks[k];
		m->nwatermarks = 1;
	}
	return 0;
}

/* What uses column name (for DROP and RENAME): 0, or the refusal. */
static int col_in_use(alter_ctx *x, const char *name, int drop)
{
	const sl_ast_create_table *m = x->m;
	int i = find_col(m, name);
	for (int k = 0; drop && k < m->npk; k++)
		if (!strcmp(m->pk[k].name, name))
			return fail(x, "The column `%s` is used as the primary key.", name, NULL);
	if (drop && i >= 0 && m->cols[i].primary_key)
		return fail(x, "The column `%s` is used as the primary key.", name, NULL);
	for (int k = 0; drop && k < m->npartition; k++)
		if (!strcmp(m->partition[k].name, name))
			return fail(x, "The column `%s` is used as the partition keys.", name, NULL);
	for (int k = 0; k < m->nwatermarks; k++) {
		if (drop && !strcmp(sl_ast_name_last(&m->watermarks[k].column), name))
			return fail(x, "The column `%s` is referenced by watermark expression.", name, NULL);
		if (refers(m->watermarks[k].expr, name))
			return fail(x, "The column `%s` is referenced by watermark expression.", name, NULL);
	}
	for (int k = 0; k < m->ncols; k++)
		if (m->cols[k].kind == SL_ACOL_COMPUTED && refers(m->cols[k].expr, name))
			return fail(x, "The column `%s` is referenced by computed column `%s`.", name,
			            m->cols[k].name.name);
	return 0;
}

static int drop(alter_ctx *x, const sl_ast_alter *al)
{
	sl_ast_create_table *m = x->m;
	if (al->drop_pk || al->drop_constraint) {
		if (!sl__ast_has_pk(m))
			return fail(x, "The base table does not define any primary key.", NULL, NULL);
		if (al->drop_constraint &&
		    (!m->pk_constraint || strcmp(m->pk_constraint, al->drop_constraint)))
			return fail(x, "The base table does not define a primary key constraint named "
			            "'%s'.", al->drop_constraint, NULL);
		drop_pk(m);
	}
	if (al->drop_wm) {
		if (!m->nwatermarks)
			return fail(x, "The base table does not define any watermark strategy.", NULL,
			            NULL);
		m->nwatermarks = 0;
	}
	/* each column must exist and be unused once the others are gone */
	for (int k = 0; k < al->ndrop; k++)
		if (find_col(m, al->drop[k].name) < 0)
			return fail(x, "The column `%s` does not exist in the base table.",
			            al->drop[k].name, NULL);
	for (int k = 0; k < al->ndrop; k++)
		remove_col(m, find_col(m, al->drop[k].name));
	for (int k = 0; k < al->ndrop; k++) {
		int rc = col_in_use(x, al->drop[k].name, 1);
		if (rc)
			return rc;
	}
	return 0;
}

/* A copy of names[0..n) in a with `old` renamed to *to (the key's and
 * PARTITIONED BY's column lists), or NULL when out of memory. */
static sl_ast_ident *renamed(sl_arena *a, const sl_ast_ident *names, int n, const char *old,
                             const sl_ast_ident *to)
{
	sl_ast_ident *c = sl_arena_memdup(a, names, sizeof(*c) * (size_t)n);
	for (int k = 0; c && k < n; k++)
		if (!strcmp(c[k].name, old))
			c[k] = *to;
	return c;
}

static int rename_col(alter_ctx *x, const sl_ast_alter *al)
{
	sl_ast_create_table *m = x->m;
	const char *old = al->old_col.name, *nw = al->new_col.name;
	int i = find_col(m, old);
	if (i < 0)
		return fail(x, "The column `%s` does not exist in the base table.", old, NULL);
	if (find_col(m, nw) >= 0)
		return fail(x, "The column `%s` already existed in table schema.", nw, NULL);
	int rc = col_in_use(x, old, 0);
	if (rc)
		return rc;
	m->cols[i].name = al->new_col;
	sl_arena *a = &x->c->arena;
	if ((m->npk && !(m->pk = renamed(a, m->pk, m->npk, old, &al->new_col))) ||
	    (m->npartition &&
	     !(m->partition = renamed(a, m->partition, m->npartition, old, &al->new_col))))
		return sl_err_set(x->err, SL_ENOMEM, "out of memory");
	for (int k = 0; k < m->nwatermarks; k++)
		if (!strcmp(sl_ast_name_last(&m->watermarks[k].column), old)) {
			sl_ast_watermark *w = sl_arena_memdup(a, &m->watermarks[k], sizeof(*w));
			sl_ast_ident *id = sl_arena_memdup(a, &al->new_col, sizeof(*id));
			if (!w || !id)
				return sl_err_set(x->err, SL_ENOMEM, "out of memory");
			w->column.n = 1;
			w->column.parts = id;
			m->watermarks = w;
		}
	return 0;
}

static int set_reset(alter_ctx *x, const sl_ast_alter *al)
{
	sl_ast_create_table *m = x->m;
	sl_ast_option *o = sl_arena_calloc(&x->c->arena,
	                                   sizeof(*o) * (size_t)(m->noptions + al->noptions + 1));
	if (!o)
		return sl_err_set(x->err, SL_ENOMEM, "out of memory");
	memcpy(o, m->options, sizeof(*o) * (size_t)m->noptions);
	m->options = o;
	for (int k = 0; k < al->noptions; k++) {
		const sl_ast_option *n = &al->options[k];
		int i = 0;
		while (i < m->noptions && strcmp(o[i].key, n->key))
			i++;
		if (al->kind == SL_ALTER_SET) {
			if (i == m->noptions)
				m->noptions++;
			o[i] = *n;
			continue;
		}
		if (!strcmp(n->key, "connector"))
			return fail(x, "ALTER TABLE RESET does not support changing '%s'", n->key, NULL);
		if (i < m->noptions) {
			memmove(&o[i], &o[i + 1], sizeof(*o) * (size_t)(m->noptions - i - 1));
			m->noptions--;
		}
	}
	return 0;
}

static int alter_view(sl_catalog *c, const sl_ast_alter *al, alter_ctx *x)
{
	const char *name = sl_ast_name_last(&al->name);
	sl_view_def *v = sl_catalog_view(c, name);
	if (!v)
		return fail(x, sl_catalog_table(c, name) ? "'%s' is a table, not a view: use ALTER "
		                                           "TABLE" : "View '%s' not found",
		            name, NULL);
	sl_view_def *nv = sl_arena_memdup(&c->arena, v, sizeof(*nv));
	if (!nv)
		return sl_err_set(x->err, SL_ENOMEM, "out of memory");
	if (al->kind == SL_ALTER_RENAME) {
		const char *to = sl_ast_name_last(&al->new_name);
		if (sl_catalog_table(c, to) || sl_catalog_view(c, to))
			return fail(x, "table or view '%s' already exists", to, NULL);
		nv->name = sl_arena_strdup(&c->arena, to);
		if (v->text && v->query_text) { /* SHOW CREATE VIEW: under its new name */
			sl_buf b;
			sl_buf_init(&b);
			sl_buf_printf(&b, "CREATE VIEW %s", to);
			for (int i = 0; i < v->ncols; i++)
				sl_buf_printf(&b, "%s%s", i ? ", " : " (", v->cols[i].name);
			sl_buf_printf(&b, "%sAS %s", v->ncols ? ") " : " ", v->query_text);
			nv->text = b.p ? sl_arena_strndup(&c->arena, b.p, b.len) : NULL;
			sl_buf_deinit(&b);
		}
	} else {
		nv->query = al->query;
		nv->ncols = 0; /* the new query's own names */
		nv->cols = NULL;
		nv->query_text = al->query_text;
		nv->text = sl_arena_printf(&c->arena, "CREATE VIEW %s AS %s", name, al->query_text);
	}
	if (!nv->name || (v->text && !nv->text))
		return sl_err_set(x->err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < c->nviews; i++)
		if (c->views[i] == v)
			c->views[i] = nv;
	return 0;
}

int sl_catalog_alter(sl_catalog *c, const sl_ast_alter *al, int view, int s_line, int s_col,
                     sl_err *err)
{
	alter_ctx x = {c, NULL, 0, al->line, al->col, err};
	if (view)
		return alter_view(c, al, &x);
	const char *name = sl_ast_name_last(&al->name);
	int slot = -1;
	for (int i = 0; i < c->ntables; i++)
		if (!strcmp(c->tables[i]->name, name))
			slot = i;
	if (slot < 0) {
		if (al->if_exists)
			return 0;
		x.line = s_line;
		x.col = s_col;
		return fail(&x, sl_catalog_view(c, name) ? "'%s' is a view, not a table: use ALTER "
		                                           "VIEW" : "Table '%s' does not exist",
		            name, NULL);
	}
	const sl_ast_create_table *base = c->tables[slot]->ast;
	sl_ast_create_table *m = sl_arena_memdup(&c->arena, base, sizeof(*m));
	x.ccap = base->ncols + al->elems.ncols + 1;
	if (!m || !(x.m = m) ||
	    !(m->cols = sl_arena_calloc(&c->arena, sizeof(*m->cols) * (size_t)x.ccap)))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	memcpy(m->cols, base->cols, sizeof(*m->cols) * (size_t)base->ncols);
	m->like.n = 0; /* base is already merged */
	int rc = 0;
	switch (al->kind) {
	case SL_ALTER_ADD: rc = add_modify(&x, &al->elems, 0); break;
	case SL_ALTER_MODIFY: rc = add_modify(&x, &al->elems, 1); break;
	case SL_ALTER_DROP: rc = drop(&x, al); break;
	case SL_ALTER_RENAME_COL: rc = rename_col(&x, al); break;
	case SL_ALTER_SET:
	case SL_ALTER_RESET: rc = set_reset(&x, al); break;
	case SL_ALTER_RENAME: {
		const char *to = sl_ast_name_last(&al->new_name);
		if (sl_catalog_table(c, to) || sl_catalog_view(c, to))
			return fail(&x, "table or view '%s' already exists", to, NULL);
		m->name = al->new_name;
		break;
	}
	default:
		return fail(&x, "ALTER TABLE ... AS is not supported", NULL, NULL);
	}
	if (rc)
		return rc;
	sl_table_def *d;
	if ((rc = sl__catalog_build_table(c, m, s_line, s_col, &d, err)))
		return rc;
	c->tables[slot] = d;
	return 0;
}
