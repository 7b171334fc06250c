/*
 * ast.c - AST printer (see ast.h): a compact, deterministic, parenthesised
 * rendering of statements, queries, expressions and types, used by the
 * parser tests and debug output.  Expressions print in prefix form:
 * `(+ a 1)`, `(SUM amount)`, `(COUNT DISTINCT x)`, literals as SQL
 * (`'abc'`, `INTERVAL '5' SECOND`), names dotted, quoted parts in backticks.
 * Output errors (out of memory) are sticky in the buffer writer and
 * reported once at the end.
 */
#include "ast.h"
#include "../base/buf.h"
#include "sluice.h"

#include <stdio.h>

typedef struct pr {
	sl_buf *b;
	int rc;
} pr;

static void put(pr *w, const char *s)
{
	if (!w->rc && sl_buf_puts(w->b, s))
		w->rc = SL_ENOMEM;
}

static void putf(pr *w, const char *fmt, const char *s)
{
	if (!w->rc && sl_buf_printf(w->b, fmt, s))
		w->rc = SL_ENOMEM;
}

const char *sl_ast_op_name(sl_ast_op op)
{
	static const char *const n[] = {
		"?", "OR", "AND", "NOT", "=", "<>", "<", "<=", ">", ">=",
		"+", "-", "*", "/", "%", "||", "NEG"
	};
	return (unsigned)op < sizeof(n) / sizeof(n[0]) ? n[op] : "?";
}

static void ident(pr *w, const sl_ast_ident *id)
{
	putf(w, id->quoted ? "`%s`" : "%s", id->name);
}

static void name(pr *w, const sl_ast_name *n)
{
	for (int k = 0; k < n->n; k++) {
		if (k)
			put(w, ".");
		ident(w, &n->parts[k]);
	}
}

static void expr(pr *w, const sl_ast_expr *e);
static void query(pr *w, const sl_ast_query *q);

static void type(pr *w, const sl_ast_type *t)
{
	char tb[256];
	switch (t->kind) {
	case SL_ATY_SQL:
		sl_type_format(t->sql, tb, sizeof(tb));
		put(w, tb);
		break;
	case SL_ATY_ARRAY:
	case SL_ATY_MULTISET:
		put(w, t->kind == SL_ATY_ARRAY ? "ARRAY<" : "MULTISET<");
		type(w, t->elem);
		put(w, ">");
		break;
	case SL_ATY_MAP:
		put(w, "MAP<");
		type(w, t->elem);
		put(w, ", ");
		type(w, t->value);
		put(w, ">");
		break;
	case SL_ATY_ROW:
		put(w, "ROW<");
		for (int k = 0; k < t->nfields; k++) {
			if (k)
				put(w, ", ");
			ident(w, &t->field_names[k]);
			put(w, " ");
			type(w, t->field_types[k]);
		}
		put(w, ">");
		break;
	}
	if (t->notnull && t->kind != SL_ATY_SQL) /* sl_type_format prints it for SQL types */
		put(w, " NOT NULL");
}

static void literal(pr *w, const sl_ast_lit *l)
{
	static const char *const prefix[] = {
		[SL_AL_DATE] = "DATE ", [SL_AL_TIME] = "TIME ", [SL_AL_TIMESTAMP] = "TIMESTAMP ",
		[SL_AL_TIMESTAMP_LTZ] = "TIMESTAMP_LTZ ", [SL_AL_BINARY] = "X",
	};
	switch (l->kind) {
	case SL_AL_STRING:
	case SL_AL_BINARY:
	case SL_AL_DATE:
	case SL_AL_TIME:
	case SL_AL_TIMESTAMP:
	case SL_AL_TIMESTAMP_LTZ:
		if (l->kind != SL_AL_STRING)
			put(w, prefix[l->kind]);
		putf(w, "'%s'", l->text);
		break;
	case SL_AL_INTERVAL:
		putf(w, "INTERVAL '%s' ", l->text);
		put(w, sl_ast_unit_name(l->unit));
		if (l->unit2) {
			put(w, " TO ");
			put(w, sl_ast_unit_name(l->unit2));
		}
		break;
	default:
		put(w, l->text);
	}
}

static void list(pr *w, sl_ast_expr *const *xs, int n)
{
	for (int k = 0; k < n; k++) {
		put(w, " ");
		expr(w, xs[k]);
	}
}

static void order(pr *w, const sl_ast_order *o, int n)
{
	for (int k = 0; k < n; k++) {
		put(w, " ");
		expr(w, o[k].expr);
		if (o[k].desc)
			put(w, " DESC");
		if (o[k].nulls_first >= 0)
			put(w, o[k].nulls_first ? " NULLS FIRST" : " NULLS LAST");
	}
}

static void bound(pr *w, const sl_ast_bound *b)
{
	static const char *const n[] = {
		"", "UNBOUNDED PRECEDING", " PRECEDING", "CURRENT ROW", " FOLLOWING", "UNBOUNDED FOLLOWING"
	};
	if (b->expr)
		expr(w, b->expr);
	put(w, n[b->kind]);
}

static void window(pr *w, const sl_ast_window *win)
{
	put(w, " (OVER");
	if (win->ref) {
		put(w, " ");
		ident(w, win->ref);
	}
	if (win->npartition) {
		put(w, " (PARTITION");
		list(w, win->partition, win->npartition);
		put(w, ")");
	}
	if (win->norder) {
		put(w, " (ORDER");
		order(w, win->order, win->norder);
		put(w, ")");
	}
	if (win->frame) {
		put(w, win->frame == 'R' ? " (ROWS " : " (RANGE ");
		bound(w, &win->start);
		if (win->end.kind) {
			put(w, " AND ");
			bound(w, &win->end);
		}
		put(w, ")");
	}
	put(w, ")");
}

static void call(pr *w, const sl_ast_expr *e)
{
	put(w, "(");
	put(w, e->u.call.fname);
	if (e->u.call.distinct)
		put(w, " DISTINCT");
	if (e->u.call.star)
		put(w, " *");
	for (int k = 0; k < e->u.call.nargs; k++) {
		put(w, " ");
		if (e->u.call.argnames && e->u.call.argnames[k])
			putf(w, "%s => ", e->u.call.argnames[k]);
		expr(w, e->u.call.args[k]);
	}
	if (e->u.call.filter) {
		put(w, " (FILTER ");
		expr(w, e->u.call.filter);
		put(w, ")");
	}
	if (e->u.call.over)
		window(w, e->u.call.over);
	put(w, ")");
}

static void predicate(pr *w, const sl_ast_expr *e)
{
	static const char *const is[] = {"", "NULL", "TRUE", "FALSE", "UNKNOWN", "DISTINCT", "JSON"};
	switch (e->kind) {
	case SL_AX_IS:
		put(w, e->u.is.negated ? "(IS NOT " : "(IS ");
		put(w, is[e->u.is.what]);
		put(w, " ");
		expr(w, e->u.is.a);
		if (e->u.is.b) {
			put(w, " ");
			expr(w, e->u.is.b);
		}
		break;
	case SL_AX_BETWEEN:
		put(w, e->u.between.negated ? "(NOT BETWEEN" : "(BETWEEN");
		if (e->u.between.symmetric)
			put(w, " SYMMETRIC");
		put(w, " ");
		expr(w, e->u.between.a);
		put(w, " ");
		expr(w, e->u.between.lo);
		put(w, " ");
		expr(w, e->u.between.hi);
		break;
	case SL_AX_IN_LIST:
	case SL_AX_IN_QUERY:
		put(w, e->u.in.negated ? "(NOT IN " : "(IN ");
		expr(w, e->u.in.a);
		if (e->kind == SL_AX_IN_LIST) {
			list(w, e->u.in.list, e->u.in.nlist);
		} else {
			put(w, " ");
			query(w, e->u.in.query);
		}
		break;
	default: /* LIKE */
		put(w, e->u.like.negated ? "(NOT " : "(");
		put(w, e->u.like.similar ? "SIMILAR " : "LIKE ");
		expr(w, e->u.like.a);
		put(w, " ");
		expr(w, e->u.like.pattern);
		if (e->u.like.escape) {
			put(w, " ESCAPE ");
			expr(w, e->u.like.escape);
		}
	}
	put(w, ")");
}

static void case_(pr *w, const sl_ast_expr *e)
{
	put(w, "(CASE");
	if (e->u.case_.operand) {
		put(w, " ");
		expr(w, e->u.case_.operand);
	}
	for (int k = 0; k < e->u.case_.nwhen; k++) {
		put(w, " (WHEN ");
		expr(w, e->u.case_.when[k]);
		put(w, " ");
		expr(w, e->u.case_.then[k]);
		put(w, ")");
	}
	if (e->u.case_.else_) {
		put(w, " (ELSE ");
		expr(w, e->u.case_.else_);
		put(w, ")");
	}
	put(w, ")");
}

static void expr(pr *w, const sl_ast_expr *e)
{
	switch (e->kind) {
	case SL_AX_LITERAL: literal(w, &e->u.lit); break;
	case SL_AX_COLUMN: name(w, &e->u.name); break;
	case SL_AX_STAR:
		name(w, &e->u.name);
		put(w, e->u.name.n ? ".*" : "*");
		break;
	case SL_AX_UNARY:
	case SL_AX_BINARY:
		put(w, "(");
		put(w, sl_ast_op_name(e->u.op.op));
		put(w, " ");
		expr(w, e->u.op.a);
		if (e->u.op.b) {
			put(w, " ");
			expr(w, e->u.op.b);
		}
		put(w, ")");
		break;
	case SL_AX_IS: case SL_AX_BETWEEN: case SL_AX_IN_LIST: case SL_AX_IN_QUERY: case SL_AX_LIKE:
		predicate(w, e);
		break;
	case SL_AX_CASE: case_(w, e); break;
	case SL_AX_CAST:
		put(w, e->u.cast.try_ ? "(TRY_CAST " : "(CAST ");
		expr(w, e->u.cast.a);
		put(w, " ");
		type(w, e->u.cast.type);
		put(w, ")");
		break;
	case SL_AX_CALL: call(w, e); break;
	case SL_AX_EXISTS:
	case SL_AX_SUBQUERY:
		put(w, e->kind == SL_AX_EXISTS ? "(EXISTS " : "(SUBQUERY ");
		query(w, e->u.query);
		put(w, ")");
		break;
	case SL_AX_KEYWORD: put(w, e->u.kw.word); break;
	case SL_AX_FIELD:
		put(w, "(FIELD ");
		expr(w, e->u.field.a);
		put(w, " ");
		ident(w, &e->u.field.field);
		put(w, ")");
		break;
	case SL_AX_TABLE_ARG:
		put(w, "(TABLE ");
		name(w, &e->u.table_arg.table);
		if (e->u.table_arg.npartition) {
			put(w, " PARTITION BY");
			list(w, e->u.table_arg.partition, e->u.table_arg.npartition);
		}
		put(w, ")");
		break;
	case SL_AX_DESCRIPTOR:
		put(w, "(DESCRIPTOR");
		for (int k = 0; k < e->u.descriptor.ncols; k++) {
			put(w, " ");
			ident(w, &e->u.descriptor.cols[k]);
		}
		put(w, ")");
		break;
	}
}

static void hints(pr *w, const sl_ast_hint *h, int n)
{
	for (int k = 0; k < n; k++) {
		putf(w, " (HINT %s", h[k].name);
		for (int j = 0; j < h[k].nargs; j++) {
			if (h[k].args[j].key)
				putf(w, " '%s'=", h[k].args[j].key);
			else
				put(w, " ");
			putf(w, "'%s'", h[k].args[j].value);
		}
		put(w, ")");
	}
}

static void from(pr *w, const sl_ast_from *f)
{
	static const char *const jn[] = {"", "JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN", "COMMA"};
	switch (f->kind) {
	case SL_AF_TABLE:
		put(w, "(TABLE ");
		name(w, &f->u.table.name);
		hints(w, f->u.table.hints, f->u.table.nhints);
		if (f->u.table.as_of) {
			put(w, " (AS OF ");
			expr(w, f->u.table.as_of);
			put(w, ")");
		}
		break;
	case SL_AF_SUBQUERY:
		put(w, f->u.sub.lateral ? "(LATERAL " : "(SUB ");
		query(w, f->u.sub.query);
		break;
	case SL_AF_TABLE_FN:
		put(w, f->u.fn.lateral ? "(LATERAL TABLE_FN " : "(TABLE_FN ");
		expr(w, f->u.fn.call);
		if (f->u.fn.ordinality)
			put(w, " WITH ORDINALITY");
		break;
	case SL_AF_MATCH:
		put(w, "(MATCH_RECOGNIZE ");
		from(w, f->u.match->input);
		for (int i = 0; i < f->u.match->nterms; i++)
			putf(w, " %s", f->u.match->terms[i].var.name);
		break;
	case SL_AF_JOIN:
		putf(w, "(%s ", jn[f->u.join.type]);
		if (f->u.join.natural)
			put(w, "NATURAL ");
		from(w, f->u.join.left);
		put(w, " ");
		from(w, f->u.join.right);
		if (f->u.join.on) {
			put(w, " (ON ");
			expr(w, f->u.join.on);
			put(w, ")");
		}
		if (f->u.join.nusing) {
			put(w, " (USING");
			for (int k = 0; k < f->u.join.nusing; k++) {
				put(w, " ");
				ident(w, &f->u.join.using_[k]);
			}
			put(w, ")");
		}
		break;
	}
	if (f->alias) {
		put(w, " AS ");
		ident(w, f->alias);
	}
	put(w, ")");
}

static void select_(pr *w, const sl_ast_select *s)
{
	put(w, s->distinct ? "(SELECT DISTINCT" : "(SELECT");
	hints(w, s->hints, s->nhints);
	for (int k = 0; k < s->nitems; k++) {
		put(w, " ");
		expr(w, s->items[k].expr);
		if (s->items[k].alias) {
			put(w, " AS ");
			ident(w, s->items[k].alias);
		}
	}
	if (s->from) {
		put(w, " (FROM ");
		from(w, s->from);
		put(w, ")");
	}
	if (s->where) {
		put(w, " (WHERE ");
		expr(w, s->where);
		put(w, ")");
	}
	if (s->ngroup) {
		put(w, " (GROUP");
		list(w, s->group, s->ngroup);
		put(w, ")");
	}
	if (s->having) {
		put(w, " (HAVING ");
		expr(w, s->having);
		put(w, ")");
	}
	if (s->allowed_lateness) {
		put(w, " (ALLOWED LATENESS ");
		expr(w, s->allowed_lateness);
		put(w, ")");
	}
	if (s->on_late == SL_LATE_DROP)
		put(w, " (ON LATE DROP)");
	if (s->on_late == SL_LATE_INSERT) {
		put(w, " (ON LATE INSERT ");
		name(w, &s->late_table);
		put(w, ")");
	}
	put(w, ")");
}

static void query(pr *w, const sl_ast_query *q)
{
	static const char *const so[] = {"", "UNION", "INTERSECT", "EXCEPT"};
	int wrap = q->nwith || q->norder || q->limit || q->offset;
	if (wrap)
		put(w, "(QUERY");
	for (int k = 0; k < q->nwith; k++) {
		put(w, " (WITH ");
		ident(w, &q->with[k].name);
		put(w, " ");
		query(w, q->with[k].query);
		put(w, ")");
	}
	if (wrap)
		put(w, " ");
	if (q->kind == SL_AQ_SELECT) {
		select_(w, q->select);
	} else if (q->kind == SL_AQ_SETOP) {
		putf(w, "(%s", so[q->setop.op]);
		put(w, q->setop.all ? " ALL " : " ");
		query(w, q->setop.left);
		put(w, " ");
		query(w, q->setop.right);
		put(w, ")");
	} else {
		put(w, "(VALUES");
		for (int r = 0; r < q->nrows; r++) {
			put(w, " (");
			for (int k = 0; k < q->nvalues; k++) {
				if (k)
					put(w, " ");
				expr(w, q->rows[r][k]);
			}
			put(w, ")");
		}
		put(w, ")");
	}
	if (q->norder) {
		put(w, " (ORDER");
		order(w, q->order, q->norder);
		put(w, ")");
	}
	if (q->limit) {
		put(w, " (LIMIT ");
		expr(w, q->limit);
		put(w, ")");
	}
	if (q->offset) {
		put(w, " (OFFSET ");
		expr(w, q->offset);
		put(w, ")");
	}
	if (wrap)
		put(w, ")");
}

static void options(pr *w, const sl_ast_option *o, int n)
{
	for (int k = 0; k < n; k++) {
		putf(w, " '%s'", o[k].key);
		putf(w, "='%s'", o[k].value);
	}
}

static void create_table(pr *w, const sl_ast_create_table *ct)
{
	put(w, "(CREATE TABLE ");
	name(w, &ct->name);
	for (int k = 0; k < ct->ncols; k++) {
		const sl_ast_column *c = &ct->cols[k];
		put(w, " (");
		ident(w, &c->name);
		if (c->type) {
			put(w, " ");
			type(w, c->type);
		}
		if (c->expr) {
			put(w, " AS ");
			expr(w, c->expr);
		}
		if (c->kind == SL_ACOL_METADATA)
			put(w, c->is_virtual ? " METADATA VIRTUAL" : " METADATA");
		if (c->metadata_key)
			putf(w, " FROM '%s'", c->metadata_key);
		put(w, ")");
	}
	for (int k = 0; k < ct->nwatermarks; k++) {
		put(w, " (WATERMARK ");
		name(w, &ct->watermarks[k].column);
		put(w, " ");
		expr(w, ct->watermarks[k].expr);
		put(w, ")");
	}
	if (ct->npk) {
		put(w, " (PRIMARY KEY");
		for (int k = 0; k < ct->npk; k++) {
			put(w, " ");
			ident(w, &ct->pk[k]);
		}
		put(w, ct->pk_enforced ? ")" : " NOT ENFORCED)");
	}
	if (ct->noptions) {
		put(w, " (WITH");
		options(w, ct->options, ct->noptions);
		put(w, ")");
	}
	if (ct->as_query) {
		put(w, " (AS ");
		query(w, ct->as_query);
		put(w, ")");
	}
	if (ct->like.n) {
		static const char *const st[] = { "", "INCLUDING", "EXCLUDING", "OVERWRITING" };
		static const char *const ft[] = { "ALL", "CONSTRAINTS", "GENERATED", "METADATA",
		                                  "OPTIONS", "PARTITIONS", "WATERMARKS" };
		put(w, " (LIKE ");
		name(w, &ct->like);
		for (int k = 0; k < SL_LIKE_NFEATURES; k++)
			if (ct->like_opt[k]) {
				putf(w, " %s", st[ct->like_opt[k]]);
				putf(w, " %s", ft[k]);
			}
		put(w, ")");
	}
	put(w, ")");
}

/* ALTER TABLE / VIEW: the operation and its operands; ADD / MODIFY
 * elements as CREATE TABLE prints them (positions after a column). */
static void alter(pr *w, const sl_ast_alter *al, int view)
{
	static const char *const op[] = {"", "ADD", "MODIFY", "DROP", "RENAME COLUMN", "RENAME",
	                                 "SET", "RESET", "AS"};
	put(w, view ? "(ALTER VIEW " : "(ALTER TABLE ");
	if (al->if_exists)
		put(w, "IF EXISTS ");
	name(w, &al->name);
	putf(w, " %s", op[al->kind]);
	if (al->kind == SL_ALTER_ADD || al->kind == SL_ALTER_MODIFY) {
		put(w, " ");
		create_table(w, &al->elems);
		for (int k = 0; k < al->elems.ncols; k++) {
			const sl_ast_column *c = &al->elems.cols[k];
			if (c->pos_first)
				put(w, " FIRST");
			if (c->pos_after.name)
				putf(w, " AFTER %s", c->pos_after.name);
		}
	}
	for (int k = 0; k < al->ndrop; k++) {
		put(w, " ");
		ident(w, &al->drop[k]);
	}
	if (al->drop_pk)
		put(w, " PRIMARY KEY");
	if (al->drop_wm)
		put(w, " WATERMARK");
	if (al->drop_constraint)
		putf(w, " CONSTRAINT %s", al->drop_constraint);
	if (al->kind == SL_ALTER_RENAME_COL) {
		put(w, " ");
		ident(w, &al->old_col);
		put(w, " TO ");
		ident(w, &al->new_col);
	}
	if (al->kind == SL_ALTER_RENAME) {
		put(w, " TO ");
		name(w, &al->new_name);
	}
	for (int k = 0; k < al->noptions; k++) {
		putf(w, " '%s'", al->options[k].key);
		if (al->options[k].value)
			putf(w, "='%s'", al->options[k].value);
	}
	if (al->query) {
		put(w, " ");
		query(w, al->query);
	}
}

static void stmt(pr *w, const sl_ast_stmt *s)
{
	switch (s->kind) {
	case SL_AS_CREATE_TABLE: create_table(w, &s->u.create_table); return;
	case SL_AS_CREATE_VIEW:
		put(w, "(CREATE VIEW ");
		name(w, &s->u.create_view.name);
		put(w, " ");
		query(w, s->u.create_view.query);
		break;
	case SL_AS_DROP_TABLE:
	case SL_AS_DROP_VIEW:
		put(w, s->kind == SL_AS_DROP_TABLE ? "(DROP TABLE " : "(DROP VIEW ");
		if (s->u.drop.if_exists)
			put(w, "IF EXISTS ");
		name(w, &s->u.drop.name);
		break;
	case SL_AS_INSERT:
		put(w, "(INSERT ");
		name(w, &s->u.insert.table);
		hints(w, s->u.insert.hints, s->u.insert.nhints);
		for (int k = 0; k < s->u.insert.ncols; k++) {
			put(w, k ? " " : " (");
			ident(w, &s->u.insert.cols[k]);
			put(w, k + 1 == s->u.insert.ncols ? ")" : "");
		}
		put(w, " ");
		query(w, s->u.insert.query);
		break;
	case SL_AS_STATEMENT_SET:
		put(w, "(STATEMENT SET");
		for (int k = 0; k < s->u.set_block.nstmts; k++) {
			put(w, " ");
			stmt(w, s->u.set_block.stmts[k]);
		}
		break;
	case SL_AS_SET:
	case SL_AS_RESET:
		put(w, s->kind == SL_AS_SET ? "(SET" : "(RESET");
		if (s->u.set.option) {
			putf(w, " '%s'", s->u.set.option->key);
			if (s->u.set.option->value)
				putf(w, "='%s'", s->u.set.option->value);
		}
		break;
	case SL_AS_EXPLAIN:
		put(w, "(EXPLAIN ");
		stmt(w, s->u.explain.stmt);
		break;
	case SL_AS_QUERY:
		query(w, s->u.query);
		return;
	case SL_AS_SHOW:
		{
			char num[16];
			snprintf(num, sizeof num, "%d", (int)s->u.show.what);
			putf(w, "(SHOW %s", num);
		}
		if (s->u.show.user)
			put(w, " USER");
		if (s->u.show.name.n) {
			put(w, " ");
			name(w, &s->u.show.name);
		}
		if (s->u.show.like)
		{
			put(w, s->u.show.not_like ? " NOT LIKE" : " LIKE");
			putf(w, " '%s'", s->u.show.like);
		}
		break;
	case SL_AS_CREATE_FUNCTION:
		put(w, "(CREATE FUNCTION ");
		name(w, &s->u.create_function.name);
		putf(w, " '%s'", s->u.create_function.symbol);
		if (s->u.create_function.language)
			putf(w, " LANGUAGE %s", s->u.create_function.language);
		if (s->u.create_function.path)
			putf(w, " USING '%s'", s->u.create_function.path);
		break;
	case SL_AS_DROP_FUNCTION:
		put(w, "(DROP FUNCTION ");
		name(w, &s->u.drop_function.name);
		break;
	case SL_AS_ADD_JAR:
	case SL_AS_REMOVE_JAR:
		put(w, s->kind == SL_AS_ADD_JAR ? "(ADD JAR" : "(REMOVE JAR");
		putf(w, " '%s'", s->u.jar_path);
		break;
	case SL_AS_ALTER_TABLE:
	case SL_AS_ALTER_VIEW:
		alter(w, &s->u.alter, s->kind == SL_AS_ALTER_VIEW);
		break;
	}
	put(w, ")");
}

int sl_ast_print_stmt(sl_buf *b, const sl_ast_stmt *s)
{
	pr w = {b, 0};
	stmt(&w, s);
	return w.rc;
}

int sl_ast_print_expr(sl_buf *b, const sl_ast_expr *e)
{
	pr w = {b, 0};
	expr(&w, e);
	return w.rc;
}
