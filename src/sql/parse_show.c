/*
 * parse_show.c - recursive-descent parser, part 4: the catalog statements
 * SHOW ..., DESCRIBE / DESC, CREATE FUNCTION and DROP FUNCTION.
 *
 * Data flow:  parse_stmt.c dispatches here after the leading keyword(s);
 * the results are SL_AS_SHOW, SL_AS_CREATE_FUNCTION and
 * SL_AS_DROP_FUNCTION nodes (ast.h).  What Flink has and sluice does not
 * (SHOW PARTITIONS, SHOW JOBS, SHOW MODULES, SHOW PROCEDURES,
 * DESCRIBE CATALOG, ...) is refused here as "not supported" with its name
 * and position, never as a syntax error.
 */
#include "parse_int.h"
#include "sluice.h"

#include <stdio.h>
#include <string.h>

/* [NOT] LIKE|ILIKE 'pattern' at the end of a SHOW. */
static int like_clause(sl_parser *p, sl_ast_show *sh)
{
	if (sl__p_is_kw(p, 0, "NOT") && (sl__p_is_kw(p, 1, "LIKE") || sl__p_is_kw(p, 1, "ILIKE"))) {
		p->i++;
		sh->not_like = 1;
	}
	if (sl__p_accept_kw(p, "ILIKE"))
		sh->ilike = 1;
	else if (!sl__p_accept_kw(p, "LIKE"))
		return sh->not_like ? sl__p_error(p, "LIKE") : 0;
	return sl__p_string(p, &sh->like, "LIKE pattern string");
}

/* FROM|IN [catalog.]database before a LIKE: sluice has one database. */
static int from_database(sl_parser *p)
{
	if (!sl__p_is_kw(p, 0, "FROM") && !sl__p_is_kw(p, 0, "IN"))
		return 0;
	return sl__p_error_at(p, sl__p_tok(p, 0), SL_ENOTSUP,
	                      "SHOW ... FROM|IN a database is not supported: sluice has one "
	                      "catalog and database (default_catalog.default_database)");
}

static int not_supported(sl_parser *p, const sl_token *t, const char *what)
{
	char msg[160];
	snprintf(msg, sizeof msg, "%s is not supported by sluice", what);
	return sl__p_error_at(p, t, SL_ENOTSUP, msg);
}

/* After SHOW. */
int sl__p_show(sl_parser *p, sl_ast_stmt *s)
{
	sl_ast_show *sh = &s->u.show;
	const sl_token *t = sl__p_tok(p, 0);
	s->kind = SL_AS_SHOW;
	if (sl__p_accept_kw(p, "TABLES")) {
		sh->what = SL_SHOW_TABLES;
		return from_database(p) ? -1 : like_clause(p, sh);
	}
	if (sl__p_accept_kw(p, "VIEWS")) {
		sh->what = SL_SHOW_VIEWS;
		return from_database(p) ? -1 : like_clause(p, sh);
	}
	if (sl__p_is_kw(p, 0, "USER") && sl__p_is_kw(p, 1, "FUNCTIONS")) {
		p->i++;
		sh->user = 1;
	}
	if (sl__p_accept_kw(p, "FUNCTIONS")) {
		sh->what = SL_SHOW_FUNCTIONS;
		return from_database(p) ? -1 : like_clause(p, sh);
	}
	if (sl__p_accept_kw(p, "CREATE")) {
		if (sl__p_accept_kw(p, "TABLE"))
			sh->what = SL_SHOW_CREATE_TABLE;
		else if (sl__p_accept_kw(p, "VIEW"))
			sh->what = SL_SHOW_CREATE_VIEW;
		else if (sl__p_is_kw(p, 0, "CATALOG") || sl__p_is_kw(p, 0, "MATERIALIZED"))
			return not_supported(p, t, "SHOW CREATE CATALOG / MATERIALIZED TABLE");
		else
			return sl__p_error(p, "TABLE or VIEW");
		return sl__p_name(p, &sh->name, "table name");
	}
	if (sl__p_accept_kw(p, "COLUMNS")) {
		sh->what = SL_SHOW_COLUMNS;
		if (!sl__p_accept_kw(p, "FROM") && sl__p_expect_kw(p, "IN"))
			return -1;
		if (sl__p_name(p, &sh->name, "table name"))
			return -1;
		return like_clause(p, sh);
	}
	if (sl__p_accept_kw(p, "CATALOGS")) {
		sh->what = SL_SHOW_CATALOGS;
		return 0;
	}
	if (sl__p_accept_kw(p, "DATABASES")) {
		sh->what = SL_SHOW_DATABASES;
		return 0;
	}
	if (sl__p_accept_kw(p, "WATERMARKS")) { /* sluice: the running job's */
		sh->what = SL_SHOW_WATERMARKS;
		return 0;
	}
	if (sl__p_is_kw(p, 0, "CURRENT") &&
	    (sl__p_is_kw(p, 1, "CATALOG") || sl__p_is_kw(p, 1, "DATABASE"))) {
		sh->what = sl__p_is_kw(p, 1, "CATALOG") ? SL_SHOW_CURRENT_CATALOG
		                                        : SL_SHOW_CURRENT_DATABASE;
		p->i += 2;
		return 0;
	}
	if (sl__p_accept_kw(p, "JARS")) {
		sh->what = SL_SHOW_JARS;
		return 0;
	}
	static const char *const other[] = {"PARTITIONS", "PROCEDURES", "MODULES", "FULL",
	                                    "JOBS", "MATERIALIZED", "MODELS", NULL};
	for (int i = 0; other[i]; i++)
		if (sl__p_is_kw(p, 0, other[i])) {
			char what[64];
			snprintf(what, sizeof what, "SHOW %s", other[i]);
			return not_supported(p, t, what);
		}
	return sl__p_error(p, "TABLES, VIEWS, FUNCTIONS, CREATE TABLE, CREATE VIEW, COLUMNS, "
	                   "CATALOGS, DATABASES or WATERMARKS after SHOW");
}

/* After DESCRIBE / DESC: { DESCRIBE | DESC } [EXTENDED] table. */
int sl__p_describe(sl_parser *p, sl_ast_stmt *s)
{
	sl_ast_show *sh = &s->u.show;
	const sl_token *t = sl__p_tok(p, 0);
	s->kind = SL_AS_SHOW;
	sh->what = SL_SHOW_COLUMNS;
	sh->describe = 1;
	if (sl__p_is_kw(p, 0, "CATALOG") || sl__p_is_kw(p, 0, "FUNCTION") ||
	    sl__p_is_kw(p, 0, "DATABASE") || sl__p_is_kw(p, 0, "MODEL"))
		return not_supported(p, t, "DESCRIBE CATALOG / DATABASE / FUNCTION / MODEL");
	if (sl__p_is_kw(p, 0, "EXTENDED") && sl__p_is_ident(p, 1))
		p->i++;
	if (sl__p_is_kw(p, 0, "TABLE") && sl__p_is_ident(p, 1))
		p->i++;
	return sl__p_name(p, &sh->name, "table name");
}

/*
 * After CREATE [TEMPORARY [SYSTEM]] FUNCTION:
 *   [IF NOT EXISTS] name AS 'symbol' [LANGUAGE word] [USING JAR 'path' [, JAR 'p2']]
 */
int sl__p_create_function(sl_parser *p, sl_ast_stmt *s, int temporary, int system)
{
	sl_ast_create_function *cf = &s->u.create_function;
	s->kind = SL_AS_CREATE_FUNCTION;
	cf->temporary = (uint8_t)temporary;
	cf->system = (uint8_t)system;
	if (sl__p_accept_kw(p, "IF") &&
	    (sl__p_expect_kw(p, "NOT") || sl__p_expect_kw(p, "EXISTS") || !(cf->if_not_exists = 1)))
		return -1;
	if (sl__p_name(p, &cf->name, "function name") || sl__p_expect_kw(p, "AS") ||
	    sl__p_string(p, &cf->symbol, "the function's identifier string ('symbol')"))
		return -1;
	if (sl__p_accept_kw(p, "LANGUAGE")) {
		const sl_token *t = sl__p_tok(p, 0);
		sl_ast_ident lang;
		if (sl__p_ident(p, &lang, "language (C, JAVA, SCALA, PYTHON)"))
			return -1;
		cf->language = sl__p_upper(p, lang.name);
		cf->lang_line = t->line;
		cf->lang_col = t->col;
	}
	if (sl__p_accept_kw(p, "USING")) {
		do {
			const sl_token *t = sl__p_tok(p, 0);
			const char *path;
			if (!sl__p_accept_kw(p, "JAR")) {
				if (sl__p_is_kw(p, 0, "FILE") || sl__p_is_kw(p, 0, "ARCHIVE"))
					return not_supported(p, t, "USING FILE / ARCHIVE");
				return sl__p_error(p, "JAR");
			}
			if (sl__p_string(p, &path, "library path string"))
				return -1;
			if (!cf->path)
				cf->path = path;
			cf->nusing++;
		} while (sl__p_accept_op(p, ","));
	}
	return 0;
}

/* After DROP [TEMPORARY [SYSTEM]] FUNCTION: [IF EXISTS] name. */
int sl__p_drop_function(sl_parser *p, sl_ast_stmt *s, int temporary, int system)
{
	sl_ast_drop_function *df = &s->u.drop_function;
	s->kind = SL_AS_DROP_FUNCTION;
	df->temporary = (uint8_t)temporary;
	df->system = (uint8_t)system;
	if (sl__p_accept_kw(p, "IF")) {
		if (sl__p_expect_kw(p, "EXISTS"))
			return -1;
		df->if_exists = 1;
	}
	return sl__p_name(p, &df->name, "function name");
}
