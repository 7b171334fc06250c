/*
 * plan_show.c - the catalog statements that print: SHOW TABLES / VIEWS /
 * FUNCTIONS / CATALOGS / DATABASES, SHOW CREATE TABLE / VIEW, SHOW COLUMNS
 * and DESCRIBE.
 *
 * Data flow:  SL_AS_SHOW node (parse_show.c) + the engine's catalog
 * --(sl_plan_show)--> text appended to the engine's statement output
 * (sl_explain_text, printed by `sluice run`).
 *
 * Output follows Flink 1.20's SQL client in tableau mode: a boxed table,
 * values right-aligned, then "N rows in set" ("1 row in set", "Empty set");
 * SHOW CREATE TABLE prints the DDL as Flink's ShowCreateUtil does
 * (identifiers back-quoted and qualified by default_catalog.default_database,
 * expressions re-printed, e.g. `ts` - INTERVAL '1' SECOND).  Types of
 * computed columns are found by binding their expressions against the
 * table's physical columns, as a scan would.  Nothing here touches a job.
 */
#include "plan_int.h"
#include "sluice.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHOW_CATALOG "default_catalog"
#define SHOW_DATABASE "default_database"

/* ---- tableau ---------------------------------------------------------------- */

/* Display width of UTF-8 text: code points. */
static int text_width(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void rule(sl_buf *out, const int *w, int ncols)
{
	for (int c = 0; c < ncols; c++) {
		sl_buf_putc(out, '+');
		for (int i = 0; i < w[c] + 2; i++)
			sl_buf_putc(out, '-');
	}
	sl_buf_printf(out, "+\n");
}

static void cells(sl_buf *out, const int *w, int ncols, const char *const *v)
{
	for (int c = 0; c < ncols; c++)
		sl_buf_printf(out, "| %*s%s ", w[c] - text_width(v[c]), "", v[c]);
	sl_buf_printf(out, "|\n");
}

/* Prints a table of nrows rows of ncols cells (row-major) with headers. */
static void tableau(sl_buf *out, int ncols, const char *const *head, int nrows,
                    const char *const *v)
{
	int w[16];
	if (nrows == 0) {
		sl_buf_printf(out, "Empty set\n");
		return;
	}
	for (int c = 0; c < ncols; c++) {
		w[c] = text_width(head[c]);
		for (int r = 0; r < nrows; r++)
			if (text_width(v[r * ncols + c]) > w[c])
				w[c] = text_width(v[r * ncols + c]);
	}
	rule(out, w, ncols);
	cells(out, w, ncols, head);
	rule(out, w, ncols);
	for (int r = 0; r < nrows; r++)
		cells(out, w, ncols, v + r * ncols);
	rule(out, w, ncols);
	sl_buf_printf(out, "%d row%s in set\n", nrows, nrows == 1 ? "" : "s");
}

void sl_plan_tableau(sl_buf *out, int ncols, const char *const *head, int nrows,
                     const char *const *v)
{
	tableau(out, ncols, head, nrows, v);
}

/* ---- LIKE patterns (MySQL style: % _ and backslash escapes) ---------------- */

static int like_match(const char *s, const char *p, int ci)
{
	for (; *p; p++, s++) {
		if (*p == '%') {
			while (p[1] == '%')
				p++;
			if (!p[1])
				return 1;
			for (; *s; s++)
				if (like_match(s, p + 1, ci))
					return 1;
			return 0;
		}
		if (!*s)
			return 0;
		if (*p == '_')
			continue;
		if (*p == '\\' && p[1])
			p++;
		if (ci ? tolower((unsigned char)*p) != tolower((unsigned char)*s) : *p != *s)
			return 0;
	}
	return !*s;
}

static int like_ok(const sl_ast_show *sh, const char *name)
{
	if (!sh->like)
		return 1;
	return like_match(name, sh->like, sh->ilike) != sh->not_like;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One-column listing of names (sorted, filtered by LIKE). */
static void list_names(sl_buf *out, const sl_ast_show *sh, const char *head, const char **names,
                       int n)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		if (like_ok(sh, names[i]))
			names[k++] = names[i];
	qsort(names, (size_t)k, sizeof(char *), cmp_str);
	tableau(out, 1, &head, k, names);
}

/* ---- expressions as Flink prints them ---------------------------------------- */

static void ident_q(sl_buf *b, const char *s)
{
	sl_buf_putc(b, '`');
	for (; *s; s++) {
		if (*s == '`')
			sl_buf_putc(b, '`');
		sl_buf_putc(b, *s);
	}
	sl_buf_putc(b, '`');
}

static void string_q(sl_buf *b, const char *s)
{
	sl_buf_putc(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sl_buf_putc(b, '\'');
		sl_buf_putc(b, *s);
	}
	sl_buf_putc(b, '\'');
}

static int op_prec(sl_ast_op op)
{
	switch (op) {
	case SL_AOP_OR: return 1;
	case SL_AOP_AND: return 2;
	case SL_AOP_EQ: case SL_AOP_NE: case SL_AOP_LT: case SL_AOP_LE: case SL_AOP_GT:
	case SL_AOP_GE: return 4;
	case SL_AOP_ADD: case SL_AOP_SUB: case SL_AOP_CONCAT: return 5;
	case SL_AOP_MUL: case SL_AOP_DIV: case SL_AOP_MOD: return 6;
	default: return 7;
	}
}

static void flink_expr(sl_buf *b, const sl_ast_expr *e);

static void operand(sl_buf *b, const sl_ast_expr *e, int prec)
{
	int paren = e->kind == SL_AX_BINARY && op_prec(e->u.op.op) < prec;
	if (paren)
		sl_buf_putc(b, '(');
	flink_expr(b, e);
	if (paren)
		sl_buf_putc(b, ')');
}

static void flink_lit(sl_buf *b, const sl_ast_lit *l)
{
	switch (l->kind) {
	case SL_AL_NULL: sl_buf_printf(b, "NULL"); return;
	case SL_AL_BOOL: sl_buf_printf(b, "%s", l->bval ? "TRUE" : "FALSE"); return;
	case SL_AL_STRING: string_q(b, l->text); return;
	case SL_AL_BINARY: sl_buf_printf(b, "X'%s'", l->text); return;
	case SL_AL_DATE: sl_buf_printf(b, "DATE "); string_q(b, l->text); return;
	case SL_AL_TIME: sl_buf_printf(b, "TIME "); string_q(b, l->text); return;
	case SL_AL_TIMESTAMP: sl_buf_printf(b, "TIMESTAMP "); string_q(b, l->text); return;
	case SL_AL_TIMESTAMP_LTZ:
		sl_buf_printf(b, "TIMESTAMP WITH LOCAL TIME ZONE ");
		string_q(b, l->text);
		return;
	case SL_AL_INTERVAL:
		sl_buf_printf(b, "INTERVAL ");
		string_q(b, l->text);
		sl_buf_printf(b, " %s", sl_ast_unit_name(l->unit));
		if (l->unit2 != SL_AU_NONE)
			sl_buf_printf(b, " TO %s", sl_ast_unit_name(l->unit2));
		return;
	default: sl_buf_printf(b, "%s", l->text); return;
	}
}

static void flink_call(sl_buf *b, const sl_ast_expr *e)
{
	sl_buf_printf(b, "%s", e->u.call.fname);
	if (e->u.call.noparen)
		return;
	sl_buf_putc(b, '(');
	if (e->u.call.distinct)
		sl_buf_printf(b, "DISTINCT ");
	if (e->u.call.star)
		sl_buf_putc(b, '*');
	for (int i = 0; i < e->u.call.nargs; i++) {
		if (i)
			sl_buf_printf(b, ", ");
		flink_expr(b, e->u.call.args[i]);
	}
	sl_buf_putc(b, ')');
}

/* Re-prints an expression the way Flink's SHOW CREATE TABLE does for the
 * common forms; other forms use the AST printer. */
static void flink_expr(sl_buf *b, const sl_ast_expr *e)
{
	switch (e->kind) {
	case SL_AX_LITERAL: flink_lit(b, &e->u.lit); return;
	case SL_AX_COLUMN:
		for (int i = 0; i < e->u.name.n; i++) {
			if (i)
				sl_buf_putc(b, '.');
			ident_q(b, e->u.name.parts[i].name);
		}
		return;
	case SL_AX_UNARY:
		sl_buf_printf(b, "%s", e->u.op.op == SL_AOP_NOT ? "NOT " : "-");
		operand(b, e->u.op.a, 7);
		return;
	case SL_AX_BINARY: {
		int pr = op_prec(e->u.op.op);
		operand(b, e->u.op.a, pr);
		sl_buf_printf(b, " %s ", sl_ast_op_name(e->u.op.op));
		operand(b, e->u.op.b, pr + 1);
		return;
	}
	case SL_AX_CALL: flink_call(b, e); return;
	case SL_AX_CAST:
		if (e->u.cast.type->kind == SL_ATY_SQL) {
			char tb[256];
			sl_buf_printf(b, "%s(", e->u.cast.try_ ? "TRY_CAST" : "CAST");
			flink_expr(b, e->u.cast.a);
			sl_buf_printf(b, " AS %s)", sl_type_format(e->u.cast.type->sql, tb, sizeof tb));
			return;
		}
		break;
	default:
		break;
	}
	sl_ast_print_expr(b, e);
}

static const char *expr_text(planner *p, const sl_ast_expr *e)
{
	sl_buf b;
	sl_buf_init(&b);
	flink_expr(&b, e);
	const char *s = sl_arena_strndup(p->a, b.p ? b.p : "", b.len);
	sl_buf_deinit(&b);
	return s;
}

/* ---- tables ------------------------------------------------------------------ */

/* The declared or bound type of each column of t (computed columns bound
 * against the physical ones); *proc[i] = 1 for a PROCTIME() column. */
static int column_types(planner *p, const sl_table_def *t, sl_type *types, int *proc)
{
	rel *pr = sl__rel_new(p, t->ncols);
	int n = 0;
	for (int i = 0; i < t->ncols; i++)
		if (!t->cols[i].computed) {
			pr->cols[n].name = t->cols[i].name;
			pr->cols[n++].type = t->cols[i].type;
		}
	pr->ncols = n;
	scope s = {pr, NULL, NULL};
	for (int i = 0; i < t->ncols; i++) {
		proc[i] = 0;
		types[i] = t->cols[i].type;
		if (!t->cols[i].computed)
			continue;
		sl_expr *x = sl__bind_expr(p, &s, t->cols[i].computed);
		if (!x)
			return p->err->code ? p->err->code : SL_EPLAN;
		types[i] = x->type;
		proc[i] = x->kind == SL_EX_CALL && x->fn == SL_FN_PROCTIME;
	}
	return 0;
}

static int is_pk(const sl_table_def *t, int c)
{
	for (int i = 0; i < t->npk; i++)
		if (t->pk[i] == c)
			return 1;
	return 0;
}

static const sl_ast_column *ast_col(const sl_table_def *t, int c)
{
	return t->ast && c < t->ast->ncols ? &t->ast->cols[c] : NULL;
}

/* DESCRIBE t / SHOW COLUMNS FROM t. */
static int describe(planner *p, const sl_table_def *t, const sl_ast_show *sh, sl_buf *out)
{
	static const char *const head[] = {"name", "type", "null", "key", "extras", "watermark",
	                                   "comment"};
	sl_type *types = sl_arena_calloc(p->a, sizeof(sl_type) * (size_t)(t->ncols + 1));
	int *proc = sl_arena_calloc(p->a, sizeof(int) * (size_t)(t->ncols + 1));
	const char **v = sl_arena_calloc(p->a, sizeof(char *) * 7 * (size_t)(t->ncols + 1));
	int rc = column_types(p, t, types, proc), n = 0;
	if (rc)
		return rc;
	const char *pri = "PRI(";
	for (int i = 0; i < t->npk; i++)
		pri = sl_arena_printf(p->a, "%s%s%s", pri, i ? ", " : "", t->cols[t->pk[i]].name);
	pri = sl_arena_printf(p->a, "%s)", pri);
	for (int c = 0; c < t->ncols; c++) {
		if (!like_ok(sh, t->cols[c].name))
			continue;
		const sl_ast_column *ac = ast_col(t, c);
		const char **r = v + 7 * n++;
		sl_type ty = types[c];
		int notnull = ty.notnull || is_pk(t, c);
		char tb[256];
		ty.notnull = 0;
		r[0] = t->cols[c].name;
		r[1] = sl_arena_printf(p->a, "%s%s", sl_type_format(ty, tb, sizeof tb),
		                       c == t->rowtime ? " *ROWTIME*" : proc[c] ? " *PROCTIME*" : "");
		r[2] = notnull ? "FALSE" : "TRUE";
		r[3] = is_pk(t, c) ? pri : "";
		r[4] = "";
		if (t->cols[c].computed)
			r[4] = sl_arena_printf(p->a, "AS %s", expr_text(p, t->cols[c].computed));
		else if (ac && ac->kind == SL_ACOL_METADATA)
			r[4] = sl_arena_printf(p->a, "METADATA%s%s%s%s", ac->metadata_key ? " FROM '" : "",
			                       ac->metadata_key ? ac->metadata_key : "",
			                       ac->metadata_key ? "'" : "", ac->is_virtual ? " VIRTUAL" : "");
		r[5] = c == t->rowtime ? expr_text(p, t->watermark) : "";
		r[6] = ac && ac->comment ? ac->comment : "";
	}
	tableau(out, 7, head, n, v);
	return 0;
}

/* DESCRIBE v / SHOW COLUMNS FROM v of a view: its query's columns (the
 * query planned for them, nothing kept), as Flink prints a view's: no key,
 * extras or watermark; a time attribute marked in its type. */
static int describe_view(planner *p, const sl_view_def *v, const sl_ast_show *sh, sl_buf *out)
{
	static const char *const head[] = {"name", "type", "null", "key", "extras", "watermark",
	                                   "comment"};
	rel *r = sl__plan_query(p, v->query);
	if (!r)
		return p->err->code ? p->err->code : SL_EPLAN;
	if (v->ncols && v->ncols != r->ncols)
		return sl_err_set(p->err, SL_EPLAN, "view '%s' lists %d columns but its query has %d",
		                  v->name, v->ncols, r->ncols);
	const char **cells = sl_arena_calloc(p->a, sizeof(char *) * 7 * (size_t)(r->ncols + 1));
	if (!cells)
		return sl_err_set(p->err, SL_ENOMEM, "out of memory");
	int n = 0;
	for (int c = 0; c < r->ncols; c++) {
		const char *name = v->ncols ? v->cols[c].name : r->cols[c].name;
		if (!like_ok(sh, name))
			continue;
		const char **row = cells + 7 * n++;
		sl_type ty = r->cols[c].type;
		char tb[256];
		int notnull = ty.notnull;
		ty.notnull = 0;
		row[0] = name;
		row[1] = sl_arena_printf(p->a, "%s%s", sl_type_format(ty, tb, sizeof tb),
		                         c == r->rowtime ? " *ROWTIME*" :
		                         c == r->proctime ? " *PROCTIME*" : "");
		row[2] = notnull ? "FALSE" : "TRUE";
		row[3] = row[4] = row[5] = row[6] = "";
	}
	tableau(out, 7, head, n, cells);
	return 0;
}

/* SHOW CREATE TABLE t, in Flink's layout. */
static void show_create_table(planner *p, const sl_table_def *t, sl_buf *out)
{
	const sl_ast_create_table *ct = t->ast;
	char tb[256];
	sl_buf_printf(out, "CREATE %sTABLE `%s`.`%s`.", ct && ct->temporary ? "TEMPORARY " : "",
	              SHOW_CATALOG, SHOW_DATABASE);
	ident_q(out, t->name);
	sl_buf_printf(out, " (\n");
	for (int c = 0; c < t->ncols; c++) {
		const sl_ast_column *ac = ast_col(t, c);
		sl_buf_printf(out, "%s  ", c ? ",\n" : "");
		ident_q(out, t->cols[c].name);
		if (t->cols[c].computed) {
			sl_buf_printf(out, " AS %s", expr_text(p, t->cols[c].computed));
		} else {
			sl_type ty = t->cols[c].type;
			ty.notnull = ty.notnull || is_pk(t, c);
			sl_buf_printf(out, " %s", sl_type_format(ty, tb, sizeof tb));
			if (ac && ac->kind == SL_ACOL_METADATA) {
				sl_buf_printf(out, " METADATA");
				if (ac->metadata_key) {
					sl_buf_printf(out, " FROM ");
					string_q(out, ac->metadata_key);
				}
				if (ac->is_virtual)
					sl_buf_printf(out, " VIRTUAL");
			}
		}
		if (ac && ac->comment) {
			sl_buf_printf(out, " COMMENT ");
			string_q(out, ac->comment);
		}
	}
	if (t->watermark) {
		sl_buf_printf(out, ",\n  WATERMARK FOR ");
		ident_q(out, t->cols[t->rowtime].name);
		sl_buf_printf(out, " AS %s", expr_text(p, t->watermark));
	}
	if (t->npk) {
		const char *cname = ct && ct->pk_constraint ? ct->pk_constraint : NULL;
		if (!cname) {
			cname = "PK";
			for (int i = 0; i < t->npk; i++)
				cname = sl_arena_printf(p->a, "%s_%s", cname, t->cols[t->pk[i]].name);
		}
		sl_buf_printf(out, ",\n  CONSTRAINT ");
		ident_q(out, cname);
		sl_buf_printf(out, " PRIMARY KEY (");
		for (int i = 0; i < t->npk; i++) {
			sl_buf_printf(out, "%s", i ? ", " : "");
			ident_q(out, t->cols[t->pk[i]].name);
		}
		sl_buf_printf(out, ") NOT ENFORCED");
	}
	sl_buf_printf(out, "\n) ");
	if (ct && ct->comment) {
		sl_buf_printf(out, "COMMENT ");
		string_q(out, ct->comment);
		sl_buf_putc(out, '\n');
	}
	if (t->npart) {
		sl_buf_printf(out, "PARTITIONED BY (");
		for (int i = 0; i < t->npart; i++) {
			sl_buf_printf(out, "%s", i ? ", " : "");
			ident_q(out, t->cols[t->part[i]].name);
		}
		sl_buf_printf(out, ")\n");
	}
	sl_buf_printf(out, "WITH (\n");
	for (int i = 0; i < t->opts.n; i++) {
		sl_buf_printf(out, "%s  ", i ? ",\n" : "");
		string_q(out, t->opts.v[i].key);
		sl_buf_printf(out, " = ");
		string_q(out, t->opts.v[i].value);
	}
	sl_buf_printf(out, "\n)\n");
}

/* ---- entry point ---------------------------------------------------------- */

static const sl_table_def *find_table(planner *p, const sl_ast_show *sh, int line, int col)
{
	const char *name = sl_ast_name_last(&sh->name);
	const sl_table_def *t = sl_catalog_table(p->cat, name);
	if (!t)
		sl__plan_error(p, line, col, SL_EPLAN,
		               sl_catalog_view(p->cat, name)
		                   ? "'%s' is a view: SHOW CREATE TABLE of a view is not supported "
		                     "(SHOW CREATE VIEW is)"
		                   : "Table or view '%s' not found (SHOW TABLES lists them)", name);
	return t;
}

static int show_names(planner *p, const sl_ast_show *sh, sl_buf *out)
{
	const sl_catalog *c = p->cat;
	int cap = c->ntables + c->nviews + c->nfunctions + c->njars + 1, n = 0;
	const char **names = sl_arena_calloc(p->a, sizeof(char *) * (size_t)cap);
	const char *head = "table name";
	switch (sh->what) {
	case SL_SHOW_TABLES:
		/* as Flink: the tables and the views of the current database */
		for (int i = 0; i < c->ntables; i++)
			names[n++] = c->tables[i]->name;
		for (int i = 0; i < c->nviews; i++)
			names[n++] = c->views[i]->name;
		break;
	case SL_SHOW_VIEWS:
		head = "view name";
		for (int i = 0; i < c->nviews; i++)
			names[n++] = c->views[i]->name;
		break;
	case SL_SHOW_FUNCTIONS:
		head = "function name";
		for (int i = 0; i < c->nfunctions; i++)
			names[n++] = c->functions[i]->name;
		break;
	case SL_SHOW_JARS:
		head = "jars";
		for (int i = 0; i < c->njars; i++)
			names[n++] = c->jars[i];
		break;
	default:
		break;
	}
	list_names(out, sh, head, names, n);
	return 0;
}

int sl_plan_show(const sl_catalog *cat, const sl_opts *session, sl_arena *arena,
                 const sl_ast_stmt *s, sl_buf *out, sl_err *err)
{
	planner pl;
	memset(&pl, 0, sizeof pl);
	pl.a = arena;
	pl.cat = cat;
	pl.session = session;
	pl.err = err;
	pl.tz = sl_opts_get(session, "table.local-time-zone");
	const sl_ast_show *sh = &s->u.show;
	const sl_table_def *t;
	const char *one = NULL, *head = NULL;
	switch (sh->what) {
	case SL_SHOW_TABLES:
	case SL_SHOW_VIEWS:
	case SL_SHOW_FUNCTIONS:
	case SL_SHOW_JARS:
		if (sh->what == SL_SHOW_FUNCTIONS && !sh->user)
			return sl_err_set_at(err, SL_ENOTSUP, s->line, s->col,
			                     "line %d, column %d: SHOW FUNCTIONS (with the built-in "
			                     "functions) is not supported: SHOW USER FUNCTIONS lists the "
			                     "functions created with CREATE FUNCTION; docs/sql.md lists "
			                     "the built-in ones", s->line, s->col);
		return show_names(&pl, sh, out);
	case SL_SHOW_COLUMNS: {
		const sl_view_def *v = sl_catalog_view(cat, sl_ast_name_last(&sh->name));
		if (v)
			return describe_view(&pl, v, sh, out);
		if (!(t = find_table(&pl, sh, s->line, s->col)))
			return err->code;
		return describe(&pl, t, sh, out);
	}
	case SL_SHOW_CREATE_TABLE:
		if (!(t = find_table(&pl, sh, s->line, s->col)))
			return err->code;
		show_create_table(&pl, t, out);
		return 0;
	case SL_SHOW_CREATE_VIEW: {
		const sl_view_def *v = sl_catalog_view(cat, sl_ast_name_last(&sh->name));
		if (!v)
			return sl_err_set_at(err, SL_EPLAN, s->line, s->col,
			                     "line %d, column %d: View '%s' not found (SHOW VIEWS lists "
			                     "them)", s->line, s->col, sl_ast_name_last(&sh->name));
		/* the statement as written (Flink prints its expanded query) */
		sl_buf_printf(out, "%s\n", v->text ? v->text : "");
		return 0;
	}
	case SL_SHOW_CATALOGS: head = "catalog name"; one = SHOW_CATALOG; break;
	case SL_SHOW_CURRENT_CATALOG: head = "current catalog name"; one = SHOW_CATALOG; break;
	case SL_SHOW_DATABASES: head = "database name"; one = SHOW_DATABASE; break;
	case SL_SHOW_CURRENT_DATABASE: head = "current database name"; one = SHOW_DATABASE; break;
	case SL_SHOW_WATERMARKS: /* the engine answers it from the running job */
		return sl_err_set(err, SL_EPLAN, "SHOW WATERMARKS needs a running job");
	}
	if (one)
		tableau(out, 1, &head, 1, &one);
	return 0;
}
