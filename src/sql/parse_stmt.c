/*
 * parse_stmt.c - recursive-descent parser, part 2: statements and the
 * sl_parse / sl_parse_expr entry points.
 *
 * Data flow:  sl_sql_tokenize -> tokens -> sl_parse (here) -> sl_ast_script.
 * A script is a list of statements separated by ';'.  Each statement
 * records its source span (from its first token to the end of its last
 * token) and an arena copy of that text.  CREATE TABLE / VIEW, DROP, INSERT,
 * statement sets, SET / RESET, EXPLAIN and queries are parsed here (SHOW,
 * DESCRIBE and CREATE / DROP FUNCTION in parse_show.c); types
 * and helpers are in parser.c, queries in parse_query.c, expressions in
 * parse_expr.c.
 */
#include "parse_int.h"
#include "sluice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sl_ast_stmt *statement(sl_parser *p);

/* A physical, computed or metadata column definition. */
static int column_def(sl_parser *p, sl_ast_column *c)
{
	const sl_token *t = sl__p_tok(p, 0);
	c->line = t->line;
	c->col = t->col;
	if (sl__p_ident(p, &c->name, "column name"))
		return -1;
	if (sl__p_accept_kw(p, "AS")) {
		c->kind = SL_ACOL_COMPUTED;
		if (!(c->expr = sl__p_expr(p)))
			return -1;
	} else {
		c->kind = SL_ACOL_PHYSICAL;
		if (!(c->type = sl__p_type(p)))
			return -1;
		if (sl__p_accept_kw(p, "METADATA")) {
			c->kind = SL_ACOL_METADATA;
			if (sl__p_accept_kw(p, "FROM") && sl__p_string(p, &c->metadata_key, "metadata key string"))
				return -1;
			c->is_virtual = (uint8_t)sl__p_accept_kw(p, "VIRTUAL");
		}
	}
	if (sl__p_accept_kw(p, "PRIMARY")) {
		if (sl__p_expect_kw(p, "KEY") || sl__p_expect_kw(p, "NOT") || sl__p_expect_kw(p, "ENFORCED"))
			return -1;
		c->primary_key = 1;
	}
	if (sl__p_accept_kw(p, "COMMENT") && sl__p_string(p, &c->comment, "comment string"))
		return -1;
	return 0;
}

/* PRIMARY KEY (a, b) NOT ENFORCED, after an optional CONSTRAINT name. */
static int primary_key(sl_parser *p, sl_ast_create_table *ct, const char *cname)
{
	const sl_token *t = sl__p_tok(p, 0);
	if (ct->npk)
		return sl__p_error_at(p, t, SL_ESYNTAX, "duplicate PRIMARY KEY");
	ct->pk_line = t->line;
	ct->pk_col = t->col;
	ct->pk_constraint = cname;
	if (sl__p_expect_kw(p, "PRIMARY") || sl__p_expect_kw(p, "KEY") ||
	    sl__p_ident_list(p, &ct->pk, &ct->npk))
		return -1;
	ct->pk_enforced = 1;
	if (sl__p_accept_kw(p, "NOT")) {
		if (sl__p_expect_kw(p, "ENFORCED"))
			return -1;
		ct->pk_enforced = 0;
	}
	return 0;
}

/* One element inside CREATE TABLE ( ... ) (also ALTER TABLE ADD / MODIFY,
 * parse_alter.c). */
int sl__p_table_element(sl_parser *p, sl_ast_create_table *ct, int *ccap, int *wcap)
{
	const sl_token *t = sl__p_tok(p, 0);
	if (sl__p_is_kw(p, 0, "WATERMARK") && sl__p_is_kw(p, 1, "FOR")) {
		sl_ast_watermark *w = sl__p_push(p, &ct->watermarks, &ct->nwatermarks, wcap, sizeof(*w));
		if (!w)
			return -1;
		w->line = t->line;
		w->col = t->col;
		p->i += 2;
		if (sl__p_name(p, &w->column, "rowtime column name") || sl__p_expect_kw(p, "AS") ||
		    !(w->expr = sl__p_expr(p)))
			return -1;
		return 0;
	}
	if (sl__p_is_kw(p, 0, "CONSTRAINT")) {
		sl_ast_ident cn;
		p->i++;
		if (sl__p_ident(p, &cn, "constraint name"))
			return -1;
		return primary_key(p, ct, cn.name);
	}
	if (sl__p_is_kw(p, 0, "PRIMARY") && sl__p_is_kw(p, 1, "KEY"))
		return primary_key(p, ct, NULL);
	sl_ast_column *c = sl__p_push(p, &ct->cols, &ct->ncols, ccap, sizeof(*c));
	return c ? column_def(p, c) : -1;
}

/* LIKE source_table [( { INCLUDING | EXCLUDING | OVERWRITING } feature ... )],
 * with Flink's checks (SqlTableLike.validate): a feature once, and no
 * OVERWRITING of ALL, CONSTRAINTS or PARTITIONS. */
static int like_clause(sl_parser *p, sl_ast_create_table *ct)
{
	static const char *const strategies[] = { NULL, "INCLUDING", "EXCLUDING", "OVERWRITING" };
	static const char *const features[] = { "ALL", "CONSTRAINTS", "GENERATED", "METADATA",
	                                        "OPTIONS", "PARTITIONS", "WATERMARKS" };
	const sl_token *lt = sl__p_tok(p, -1);
	ct->like_line = lt->line;
	ct->like_col = lt->col;
	if (sl__p_name(p, &ct->like, "source table name"))
		return -1;
	if (!sl__p_accept_op(p, "("))
		return 0;
	do {
		const sl_token *t = sl__p_tok(p, 0);
		int st = 0, ft = -1;
		for (int k = 1; k < 4 && !st; k++)
			if (sl__p_accept_kw(p, strategies[k]))
				st = k;
		if (!st)
			return sl__p_error(p, "INCLUDING, EXCLUDING or OVERWRITING");
		for (int k = 0; k < SL_LIKE_NFEATURES && ft < 0; k++)
			if (sl__p_accept_kw(p, features[k]))
				ft = k;
		if (ft < 0)
			return sl__p_error(p, "ALL, CONSTRAINTS, GENERATED, METADATA, OPTIONS, "
			                      "PARTITIONS or WATERMARKS");
		if (ct->like_opt[ft])
			return sl__p_error_at(p, t, SL_ESYNTAX,
			                      "Each like option feature can be declared only once.");
		if (st == SL_LIKE_OVERWRITING && (ft == SL_LIKE_ALL || ft == SL_LIKE_CONSTRAINTS ||
		                                  ft == SL_LIKE_PARTITIONS)) {
			char msg[96];
			snprintf(msg, sizeof(msg), "Illegal merging strategy 'OVERWRITING' for '%s' option.",
			         features[ft]);
			return sl__p_error_at(p, t, SL_ESYNTAX, msg);
		}
		ct->like_opt[ft] = (uint8_t)st;
	} while (!sl__p_is_op(p, 0, ")"));
	return sl__p_expect_op(p, ")");
}

static int create_table(sl_parser *p, sl_ast_stmt *s)
{
	sl_ast_create_table *ct = &s->u.create_table;
	int ccap = 0, wcap = 0;
	s->kind = SL_AS_CREATE_TABLE;
	if (sl__p_accept_kw(p, "IF") &&
	    (sl__p_expect_kw(p, "NOT") || sl__p_expect_kw(p, "EXISTS") || !(ct->if_not_exists = 1)))
		return -1;
	if (sl__p_name(p, &ct->name, "table name"))
		return -1;
	if (sl__p_accept_op(p, "(")) {
		do {
			if (sl__p_table_element(p, ct, &ccap, &wcap))
				return -1;
		} while (sl__p_accept_op(p, ","));
		if (sl__p_expect_op(p, ")"))
			return -1;
	}
	if (sl__p_accept_kw(p, "COMMENT") && sl__p_string(p, &ct->comment, "comment string"))
		return -1;
	if (sl__p_accept_kw(p, "PARTITIONED") &&
	    (sl__p_expect_kw(p, "BY") || sl__p_ident_list(p, &ct->partition, &ct->npartition)))
		return -1;
	if (sl__p_accept_kw(p, "WITH") && sl__p_options(p, &ct->options, &ct->noptions))
		return -1;
	if (sl__p_accept_kw(p, "LIKE") && like_clause(p, ct))
		return -1;
	if (!ct->like.n && sl__p_accept_kw(p, "AS") && !(ct->as_query = sl__p_query(p)))
		return -1;
	if (!ct->ncols && !ct->as_query && !ct->like.n)
		return sl__p_error(p, "'(' with column definitions, LIKE or AS query");
	return 0;
}

static int create_view(sl_parser *p, sl_ast_stmt *s, int temporary)
{
	sl_ast_create_view *cv = &s->u.create_view;
	s->kind = SL_AS_CREATE_VIEW;
	cv->temporary = (uint8_t)temporary;
	if (sl__p_accept_kw(p, "IF") &&
	    (sl__p_expect_kw(p, "NOT") || sl__p_expect_kw(p, "EXISTS") || !(cv->if_not_exists = 1)))
		return -1;
	if (sl__p_name(p, &cv->name, "view name"))
		return -1;
	if (sl__p_is_op(p, 0, "(") && sl__p_ident_list(p, &cv->cols, &cv->ncols))
		return -1;
	if (sl__p_accept_kw(p, "COMMENT") && sl__p_string(p, &cv->comment, "comment string"))
		return -1;
	if (sl__p_expect_kw(p, "AS"))
		return -1;
	return (cv->query = sl__p_query_text(p, &cv->query_text)) ? 0 : -1;
}

sl_ast_query *sl__p_query_text(sl_parser *p, const char **text)
{
	const sl_token *q = sl__p_tok(p, 0);
	sl_ast_query *query = sl__p_query(p);
	if (!query)
		return NULL;
	const sl_token *end = sl__p_tok(p, 0);
	*text = sl_arena_strndup(p->a, p->sql + q->off, end->off - q->off);
	return *text ? query : NULL;
}

static int create(sl_parser *p, sl_ast_stmt *s)
{
	int temporary = 0, system = 0;
	if (sl__p_accept_kw(p, "TEMPORARY"))
		temporary = 1;
	if (temporary && sl__p_is_kw(p, 0, "SYSTEM") && sl__p_is_kw(p, 1, "FUNCTION")) {
		p->i++;
		system = 1;
	}
	if (sl__p_accept_kw(p, "FUNCTION"))
		return sl__p_create_function(p, s, temporary, system);
	if (sl__p_accept_kw(p, "TABLE")) {
		s->u.create_table.temporary = (uint8_t)temporary;
		return create_table(p, s);
	}
	if (sl__p_accept_kw(p, "VIEW"))
		return create_view(p, s, temporary);
	return sl__p_error(p, temporary ? "TABLE, VIEW or FUNCTION"
	                                : "TABLE, VIEW, FUNCTION or TEMPORARY");
}

static int drop(sl_parser *p, sl_ast_stmt *s)
{
	sl_ast_drop *d = &s->u.drop;
	d->temporary = (uint8_t)sl__p_accept_kw(p, "TEMPORARY");
	int system = d->temporary && sl__p_is_kw(p, 0, "SYSTEM") && sl__p_is_kw(p, 1, "FUNCTION");
	p->i += system;
	if (sl__p_accept_kw(p, "FUNCTION"))
		return sl__p_drop_function(p, s, d->temporary, system);
	if (sl__p_accept_kw(p, "TABLE"))
		s->kind = SL_AS_DROP_TABLE;
	else if (sl__p_accept_kw(p, "VIEW"))
		s->kind = SL_AS_DROP_VIEW;
	else
		return sl__p_error(p, "TABLE, VIEW or FUNCTION");
	if (sl__p_accept_kw(p, "IF")) {
		if (sl__p_expect_kw(p, "EXISTS"))
			return -1;
		d->if_exists = 1;
	}
	return sl__p_name(p, &d->name, s->kind == SL_AS_DROP_TABLE ? "table name" : "view name");
}

static int insert(sl_parser *p, sl_ast_stmt *s)
{
	sl_ast_insert *in = &s->u.insert;
	s->kind = SL_AS_INSERT;
	if (sl__p_is_kw(p, 0, "OVERWRITE"))
		return sl__p_error_at(p, sl__p_tok(p, 0), SL_ENOTSUP,
		                      "INSERT OVERWRITE is not supported in streaming mode (as in Flink; sluice "
		                      "runs every job in streaming mode): use INSERT INTO");
	if (sl__p_expect_kw(p, "INTO") || sl__p_name(p, &in->table, "table name"))
		return -1;
	if (sl__p_hints(p, &in->hints, &in->nhints))
		return -1;
	if (sl__p_is_kw(p, 0, "PARTITION"))
		return sl__p_error_at(p, sl__p_tok(p, 0), SL_ENOTSUP,
		                      "INSERT ... PARTITION is not supported by sluice");
	/* "(" starts a column list unless it starts the query itself */
	if (sl__p_is_op(p, 0, "(") && sl__p_is_ident(p, 1) &&
	    (sl__p_is_op(p, 2, ",") || sl__p_is_op(p, 2, ")")) &&
	    sl__p_ident_list(p, &in->cols, &in->ncols))
		return -1;
	return (in->query = sl__p_query(p)) ? 0 : -1;
}

/* Statements of a statement set up to END. */
static int statement_set_body(sl_parser *p, sl_ast_stmt *s)
{
	int cap = 0;
	s->kind = SL_AS_STATEMENT_SET;
	for (;;) {
		while (sl__p_accept_op(p, ";"))
			;
		if (sl__p_accept_kw(p, "END"))
			return 0;
		if (!sl__p_is_kw(p, 0, "INSERT"))
			return sl__p_error(p, "INSERT or END in statement set");
		sl_ast_stmt **slot = sl__p_push(p, &s->u.set_block.stmts, &s->u.set_block.nstmts,
		                                &cap, sizeof(*slot));
		if (!slot || !(*slot = statement(p)))
			return -1;
		if (!sl__p_is_op(p, 0, ";") && !sl__p_is_kw(p, 0, "END"))
			return sl__p_error(p, "';' or END");
	}
}

/* SET ['k' = 'v'] / SET k.x = v; RESET ['k']. */
static int set_reset(sl_parser *p, sl_ast_stmt *s, int is_set)
{
	sl_ast_option *o;
	const sl_token *t = sl__p_tok(p, 0);
	s->kind = is_set ? SL_AS_SET : SL_AS_RESET;
	if (t->type == SL_TK_EOF || sl__p_is_op(p, 0, ";"))
		return 0;
	if (!(o = sl__p_alloc(p, sizeof(*o))))
		return -1;
	o->line = t->line;
	o->col = t->col;
	s->u.set.option = o;
	if (t->type == SL_TK_STRING) {
		if (sl__p_string(p, &o->key, "option key"))
			return -1;
	} else {
		/* unquoted key: tokens up to '=' (e.g. table.exec.mini-batch.enabled) */
		size_t start = t->off, end = t->off;
		while (sl__p_tok(p, 0)->type != SL_TK_EOF && !sl__p_is_op(p, 0, "=") && !sl__p_is_op(p, 0, ";")) {
			end = sl__p_tok(p, 0)->off + sl__p_tok(p, 0)->len;
			p->i++;
		}
		if (!(o->key = sl_arena_strndup(p->a, p->sql + start, end - start)))
			return sl_err_set(p->err, SL_ENOMEM, "parser: out of memory"), -1;
	}
	if (!is_set)
		return 0;
	if (sl__p_expect_op(p, "="))
		return -1;
	t = sl__p_tok(p, 0);
	if (t->type == SL_TK_STRING)
		return sl__p_string(p, &o->value, "option value");
	if (t->type == SL_TK_EOF || sl__p_is_op(p, 0, ";"))
		return sl__p_error(p, "option value");
	size_t start = t->off, end = t->off;
	while (sl__p_tok(p, 0)->type != SL_TK_EOF && !sl__p_is_op(p, 0, ";")) {
		end = sl__p_tok(p, 0)->off + sl__p_tok(p, 0)->len;
		p->i++;
	}
	if (!(o->value = sl_arena_strndup(p->a, p->sql + start, end - start)))
		return sl_err_set(p->err, SL_ENOMEM, "parser: out of memory"), -1;
	return 0;
}

static int explain(sl_parser *p, sl_ast_stmt *s)
{
	static const char *const details[] = {
		"ESTIMATED_COST", "CHANGELOG_MODE", "JSON_EXECUTION_PLAN", "PLAN_ADVICE"
	};
	int cap = 0;
	s->kind = SL_AS_EXPLAIN;
	if (sl__p_accept_kw(p, "PENDING")) { /* sluice: why the running job has no output */
		s->u.explain.pending = 1;
		return 0;
	}
	if (sl__p_accept_kw(p, "PLAN") && sl__p_expect_kw(p, "FOR"))
		return -1;
	for (int more = 1; more;) {
		more = 0;
		for (size_t k = 0; k < sizeof(details) / sizeof(details[0]); k++) {
			if (!sl__p_accept_kw(p, details[k]))
				continue;
			const char **d = sl__p_push(p, &s->u.explain.details, &s->u.explain.ndetails,
			                            &cap, sizeof(*d));
			if (!d)
				return -1;
			*d = details[k];
			more = sl__p_accept_op(p, ",");
		}
	}
	if (sl__p_is_kw(p, 0, "EXPLAIN"))
		return sl__p_error(p, "statement to explain");
	return (s->u.explain.stmt = statement(p)) ? 0 : -1;
}

/* Dispatches on the first keyword. */
static int statement_body(sl_parser *p, sl_ast_stmt *s)
{
	if (sl__p_accept_kw(p, "CREATE"))
		return create(p, s);
	if (sl__p_accept_kw(p, "DROP"))
		return drop(p, s);
	if (sl__p_is_kw(p, 0, "ALTER") && (sl__p_is_kw(p, 1, "TABLE") || sl__p_is_kw(p, 1, "VIEW")))
		return sl__p_alter(p, s);
	if (sl__p_accept_kw(p, "INSERT"))
		return insert(p, s);
	if (sl__p_is_kw(p, 0, "EXECUTE") && sl__p_is_kw(p, 1, "STATEMENT")) {
		p->i += 2;
		if (sl__p_expect_kw(p, "SET") || sl__p_expect_kw(p, "BEGIN"))
			return -1;
		return statement_set_body(p, s);
	}
	if (sl__p_is_kw(p, 0, "BEGIN") && sl__p_is_kw(p, 1, "STATEMENT")) {
		p->i += 2;
		if (sl__p_expect_kw(p, "SET") || sl__p_expect_op(p, ";"))
			return -1;
		return statement_set_body(p, s);
	}
	if (sl__p_accept_kw(p, "SET"))
		return set_reset(p, s, 1);
	if (sl__p_accept_kw(p, "RESET"))
		return set_reset(p, s, 0);
	if (sl__p_accept_kw(p, "EXPLAIN"))
		return explain(p, s);
	if (sl__p_accept_kw(p, "SHOW"))
		return sl__p_show(p, s);
	if ((sl__p_is_kw(p, 0, "ADD") || sl__p_is_kw(p, 0, "REMOVE")) && sl__p_is_kw(p, 1, "JAR")) {
		s->kind = sl__p_is_kw(p, 0, "ADD") ? SL_AS_ADD_JAR : SL_AS_REMOVE_JAR;
		p->i += 2;
		return sl__p_string(p, &s->u.jar_path, "library path string");
	}
	if (sl__p_accept_kw(p, "DESCRIBE") || sl__p_accept_kw(p, "DESC"))
		return sl__p_describe(p, s);
	if (sl__p_is_kw(p, 0, "SELECT") || sl__p_is_kw(p, 0, "WITH") || sl__p_is_kw(p, 0, "VALUES") ||
	    sl__p_is_op(p, 0, "(")) {
		s->kind = SL_AS_QUERY;
		return (s->u.query = sl__p_query(p)) ? 0 : -1;
	}
	return sl__p_error(p, "statement (CREATE, DROP, ALTER, INSERT, SELECT, SET, RESET, "
	                   "EXPLAIN, EXECUTE, SHOW, DESCRIBE)");
}

/* One statement with its source span. */
static sl_ast_stmt *statement(sl_parser *p)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_stmt *s = NULL;
	if (sl__p_enter(p))
		return NULL;
	if (p->depth == 1)
		p->links = 0; /* per top-level statement (parse_limits.c) */
	if (!(s = sl__p_alloc(p, sizeof(*s))))
		goto fail;
	s->line = t->line;
	s->col = t->col;
	s->offset = t->off;
	if (statement_body(p, s))
		goto fail;
	const sl_token *last = sl__p_tok(p, -1);
	s->len = last->off + last->len - s->offset;
	if (!(s->text = sl_arena_strndup(p->a, p->sql + s->offset, s->len))) {
		sl_err_set(p->err, SL_ENOMEM, "parser: out of memory");
		goto fail;
	}
	sl__p_leave(p);
	return s;
fail:
	sl__p_leave(p);
	return NULL;
}

static int script(sl_parser *p, sl_ast_script *sc)
{
	int cap = 0;
	for (;;) {
		while (sl__p_accept_op(p, ";"))
			;
		if (sl__p_tok(p, 0)->type == SL_TK_EOF)
			return 0;
		sl_ast_stmt **slot = sl__p_push(p, &sc->stmts, &sc->nstmts, &cap, sizeof(*slot));
		if (!slot || !(*slot = statement(p)))
			return -1;
		if (sl__p_tok(p, 0)->type != SL_TK_EOF && !sl__p_is_op(p, 0, ";"))
			return sl__p_error(p, "';' or end of input");
	}
}

/* Tokenizes sql into p; 0 or error code. */
static int parser_init(sl_parser *p, sl_arena *a, const char *sql, sl_err *err)
{
	sl_token *toks;
	int n, rc;
	memset(p, 0, sizeof(*p));
	p->a = a;
	p->sql = sql;
	p->err = err;
	if ((rc = sl_sql_tokenize(sql, &toks, &n, err)))
		return rc;
	p->t = toks;
	p->n = n;
	return 0;
}

static int parse_fail_code(sl_parser *p)
{
	return p->err->code ? p->err->code : SL_ESYNTAX;
}

int sl_parse(sl_arena *a, const char *sql, sl_ast_script **out, sl_err *err)
{
	sl_parser p;
	sl_ast_script *sc;
	sl_err local;
	int rc;
	if (!err) {
		sl_err_clear(&local);
		err = &local;
	}
	*out = NULL;
	if ((rc = parser_init(&p, a, sql, err)))
		return rc;
	if (!(sc = sl__p_alloc(&p, sizeof(*sc))) || script(&p, sc)) {
		rc = parse_fail_code(&p);
		goto fail;
	}
	free((void *)p.t);
	*out = sc;
	return 0;
fail:
	free((void *)p.t);
	return rc;
}

int sl_parse_expr(sl_arena *a, const char *sql, sl_ast_expr **out, sl_err *err)
{
	sl_parser p;
	sl_ast_expr *e;
	sl_err local;
	int rc;
	if (!err) {
		sl_err_clear(&local);
		err = &local;
	}
	*out = NULL;
	if ((rc = parser_init(&p, a, sql, err)))
		return rc;
	if (!(e = sl__p_expr(&p)) ||
	    (sl__p_tok(&p, 0)->type != SL_TK_EOF && sl__p_error(&p, "end of expression"))) {
		rc = parse_fail_code(&p);
		goto fail;
	}
	free((void *)p.t);
	*out = e;
	return 0;
fail:
	free((void *)p.t);
	return rc;
}
