/*
 * parse_query.c - recursive-descent parser, part 3: queries.
 *
 * Grammar (precedence: INTERSECT binds tighter than UNION / EXCEPT):
 *   query      := [WITH cte, ..] setexpr [ORDER BY ..] [LIMIT n] [OFFSET n]
 *                 [FETCH FIRST n ROWS ONLY]
 *   setexpr    := term { (UNION | EXCEPT) [ALL|DISTINCT] term }
 *   term       := primary { INTERSECT [ALL|DISTINCT] primary }
 *   primary    := SELECT .. | VALUES .. | ( query )
 *   select     := SELECT [hints] [DISTINCT|ALL] items [FROM from] [WHERE e]
 *                 [GROUP BY ..] [HAVING e] [WINDOW ..] [late clauses]
 *   late       := ALLOWED LATENESS e | ON LATE DROP | ON LATE INSERT INTO t
 *   from       := join-chain of table refs, subqueries, TABLE(fn(..)),
 *                 LATERAL TABLE(fn(..)), UNNEST(..); a table or subquery
 *                 may be followed by MATCH_RECOGNIZE (..) (parse_match.c)
 *
 * Data flow: tokens -> sl_ast_query (ast.h).  Every function returns NULL
 * or -1 after recording the first error (see parse_int.h).
 */
#include "parse_int.h"
#include "sluice.h"

#include <string.h>

static sl_ast_from *from_list(sl_parser *p);

int sl__p_order_list(sl_parser *p, sl_ast_order **out, int *n)
{
	int cap = 0;
	do {
		const sl_token *t = sl__p_tok(p, 0);
		sl_ast_order *o = sl__p_push(p, out, n, &cap, sizeof(*o));
		if (!o || !(o->expr = sl__p_expr(p)))
			return -1;
		o->line = t->line;
		o->col = t->col;
		o->nulls_first = -1;
		if (sl__p_accept_kw(p, "DESC"))
			o->desc = 1;
		else
			sl__p_accept_kw(p, "ASC");
		if (sl__p_accept_kw(p, "NULLS")) {
			if (sl__p_accept_kw(p, "FIRST"))
				o->nulls_first = 1;
			else if (sl__p_accept_kw(p, "LAST"))
				o->nulls_first = 0;
			else
				return sl__p_error(p, "FIRST or LAST");
		}
	} while (sl__p_accept_op(p, ","));
	return 0;
}

/* An expression list separated by commas. */
static int expr_list(sl_parser *p, sl_ast_expr ***out, int *n)
{
	int cap = 0;
	do {
		sl_ast_expr **e = sl__p_push(p, out, n, &cap, sizeof(*e));
		if (!e || !(*e = sl__p_expr(p)))
			return -1;
	} while (sl__p_accept_op(p, ","));
	return 0;
}

/* 1 if the current token may start an implicit alias. */
static int alias_follows(sl_parser *p)
{
	if (!sl__p_is_ident(p, 0))
		return 0;
	if (sl__p_is_kw(p, 0, "ALLOWED") && sl__p_is_kw(p, 1, "LATENESS"))
		return 0;
	return 1;
}

/* [AS] alias [(c1, c2)] */
static int from_alias(sl_parser *p, sl_ast_from *f)
{
	sl_ast_ident *id;
	int as = sl__p_accept_kw(p, "AS");
	if (!as && !alias_follows(p))
		return 0;
	if (!(id = sl__p_alloc(p, sizeof(*id))) || sl__p_ident(p, id, "alias"))
		return -1;
	f->alias = id;
	if (sl__p_is_op(p, 0, "(") && sl__p_ident_list(p, &f->col_aliases, &f->ncol_aliases))
		return -1;
	return 0;
}

/* TABLE ( call ) after TABLE / LATERAL TABLE; also UNNEST ( .. ). */
static int table_fn(sl_parser *p, sl_ast_from *f)
{
	f->kind = SL_AF_TABLE_FN;
	if (sl__p_is_kw(p, 0, "UNNEST")) {
		f->u.fn.unnest = 1;
		if (!(f->u.fn.call = sl__p_expr(p)))
			return -1;
		if (sl__p_is_kw(p, 0, "WITH") && sl__p_is_kw(p, 1, "ORDINALITY")) {
			p->i += 2;
			f->u.fn.ordinality = 1;
		}
		return 0;
	}
	if (sl__p_expect_op(p, "("))
		return -1;
	if (!(f->u.fn.call = sl__p_expr(p)))
		return -1;
	if (f->u.fn.call->kind != SL_AX_CALL)
		return sl__p_error_at(p, sl__p_tok(p, -1), SL_ESYNTAX,
		                      "expected a function call inside TABLE(...)");
	return sl__p_expect_op(p, ")");
}

/* A named table with hints and FOR SYSTEM_TIME AS OF. */
static int table_ref(sl_parser *p, sl_ast_from *f)
{
	f->kind = SL_AF_TABLE;
	if (sl__p_name(p, &f->u.table.name, "table name") ||
	    sl__p_hints(p, &f->u.table.hints, &f->u.table.nhints))
		return -1;
	if (sl__p_is_kw(p, 0, "FOR") && sl__p_is_kw(p, 1, "SYSTEM_TIME")) {
		p->i += 2;
		if (sl__p_expect_kw(p, "AS") || sl__p_expect_kw(p, "OF") ||
		    !(f->u.table.as_of = sl__p_expr(p)))
			return -1;
	}
	return 0;
}

/* One FROM item without joins. */
static sl_ast_from *from_primary(sl_parser *p)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_from *f = NULL;
	int lateral, rc;
	if (sl__p_enter(p))
		return NULL;
	if (!(f = sl__p_alloc(p, sizeof(*f))))
		goto fail;
	f->line = t->line;
	f->col = t->col;
	lateral = sl__p_accept_kw(p, "LATERAL");
	if (sl__p_accept_kw(p, "TABLE")) {
		rc = table_fn(p, f);
		f->u.fn.lateral = (uint8_t)lateral;
	} else if (sl__p_is_kw(p, 0, "UNNEST") && sl__p_is_op(p, 1, "(")) {
		rc = table_fn(p, f);
	} else if (sl__p_is_op(p, 0, "(") && (sl__p_is_kw(p, 1, "SELECT") || sl__p_is_kw(p, 1, "WITH") ||
	                                      sl__p_is_kw(p, 1, "VALUES") || sl__p_is_op(p, 1, "("))) {
		f->kind = SL_AF_SUBQUERY;
		f->u.sub.lateral = (uint8_t)lateral;
		p->i++;
		int outer = p->lateral;
		p->lateral = lateral;
		f->u.sub.query = sl__p_query(p);
		p->lateral = outer;
		rc = f->u.sub.query && !sl__p_expect_op(p, ")") ? 0 : -1;
	} else if (lateral) {
		rc = sl__p_error(p, "TABLE or '(' after LATERAL");
	} else if (sl__p_is_ident(p, 0)) {
		rc = table_ref(p, f);
	} else {
		rc = sl__p_error(p, "table name, subquery or TABLE(...)");
	}
	if (!rc && sl__p_is_kw(p, 0, "MATCH_RECOGNIZE") && !(f = sl__p_match_recognize(p, f)))
		goto fail;
	if (rc || from_alias(p, f))
		goto fail;
	sl__p_leave(p);
	return f;
fail:
	sl__p_leave(p);
	return NULL;
}

/* Join keyword(s) at the current position; 0 when none. */
static int join_kind(sl_parser *p)
{
	if (sl__p_accept_kw(p, "JOIN"))
		return SL_AJ_INNER;
	if (sl__p_is_kw(p, 0, "INNER") && sl__p_is_kw(p, 1, "JOIN"))
		return p->i += 2, SL_AJ_INNER;
	if (sl__p_is_kw(p, 0, "CROSS") && sl__p_is_kw(p, 1, "JOIN"))
		return p->i += 2, SL_AJ_CROSS;
	static const struct { const char *kw; int kind; } outer[] = {
		{"LEFT", SL_AJ_LEFT}, {"RIGHT", SL_AJ_RIGHT}, {"FULL", SL_AJ_FULL}
	};
	for (int k = 0; k < 3; k++) {
		if (!sl__p_is_kw(p, 0, outer[k].kw))
			continue;
		int skip = sl__p_is_kw(p, 1, "OUTER") ? 2 : 1;
		if (!sl__p_is_kw(p, skip, "JOIN"))
			return 0;
		p->i += skip + 1;
		return outer[k].kind;
	}
	return 0;
}

/* from_primary { [NATURAL] join from_primary [ON e | USING (..)] } */
static sl_ast_from *join_chain(sl_parser *p)
{
	sl_ast_from *left = from_primary(p);
	while (left) {
		const sl_token *t = sl__p_tok(p, 0);
		int natural = sl__p_is_kw(p, 0, "NATURAL");
		if (natural)
			p->i++;
		int at = p->i, kind = join_kind(p);
		if (natural && (!kind || kind == SL_AJ_CROSS)) {
			p->i = at;
			sl__p_error(p, "JOIN, INNER JOIN, LEFT, RIGHT or FULL [OUTER] JOIN after NATURAL");
			return NULL;
		}
		if (!kind)
			break;
		if (sl__p_link(p, t))
			return NULL;
		sl_ast_from *j = sl__p_alloc(p, sizeof(*j));
		if (!j)
			return NULL;
		j->kind = SL_AF_JOIN;
		j->line = t->line;
		j->col = t->col;
		j->u.join.type = (sl_ast_join_kind)kind;
		j->u.join.natural = (uint8_t)natural;
		j->u.join.left = left;
		if (!(j->u.join.right = from_primary(p)))
			return NULL;
		if (kind != SL_AJ_CROSS && !natural) {
			if (sl__p_accept_kw(p, "ON")) {
				if (!(j->u.join.on = sl__p_expr(p)))
					return NULL;
			} else if (sl__p_accept_kw(p, "USING")) {
				if (sl__p_ident_list(p, &j->u.join.using_, &j->u.join.nusing))
					return NULL;
			} else {
				sl__p_error(p, "ON or USING");
				return NULL;
			}
		}
		left = j;
	}
	return left;
}

/* join_chain { , join_chain } */
static sl_ast_from *from_list(sl_parser *p)
{
	sl_ast_from *left = join_chain(p);
	while (left && sl__p_is_op(p, 0, ",")) {
		const sl_token *t = sl__p_tok(p, 0);
		sl_ast_from *j = sl__p_alloc(p, sizeof(*j));
		p->i++;
		if (!j || sl__p_link(p, t))
			return NULL;
		j->kind = SL_AF_JOIN;
		j->line = t->line;
		j->col = t->col;
		j->u.join.type = SL_AJ_COMMA;
		j->u.join.left = left;
		if (!(j->u.join.right = join_chain(p)))
			return NULL;
		left = j;
	}
	return left;
}

/* One select item: expr [[AS] alias]. */
static int select_item(sl_parser *p, sl_ast_select_item *it)
{
	const sl_token *t = sl__p_tok(p, 0);
	it->line = t->line;
	it->col = t->col;
	if (!(it->expr = sl__p_expr(p)))
		return -1;
	int as = sl__p_accept_kw(p, "AS");
	if (as || (alias_follows(p) && !sl__p_is_kw(p, 0, "FROM"))) {
		sl_ast_ident *id = sl__p_alloc(p, sizeof(*id));
		if (!id)
			return -1;
		if (sl__p_tok(p, 0)->type == SL_TK_STRING) { /* AS 'alias' (Calcite allows) */
			if (sl__p_string(p, &id->name, "alias"))
				return -1;
			id->quoted = 1;
		} else if (sl__p_ident(p, id, "alias")) {
			return -1;
		}
		it->alias = id;
	}
	return 0;
}

/* ALLOWED LATENESS / ON LATE clauses, each at most once. */
static int late_clauses(sl_parser *p, sl_ast_select *s)
{
	for (;;) {
		const sl_token *t = sl__p_tok(p, 0);
		if (sl__p_is_kw(p, 0, "ALLOWED") && sl__p_is_kw(p, 1, "LATENESS")) {
			if (s->allowed_lateness)
				return sl__p_error_at(p, t, SL_ESYNTAX, "ALLOWED LATENESS given twice");
			p->i += 2;
			s->lateness_line = t->line;
			s->lateness_col = t->col;
			if (!(s->allowed_lateness = sl__p_expr(p)))
				return -1;
		} else if (sl__p_is_kw(p, 0, "ON") && sl__p_is_kw(p, 1, "LATE")) {
			if (s->on_late)
				return sl__p_error_at(p, t, SL_ESYNTAX, "ON LATE given twice");
			p->i += 2;
			s->on_late_line = t->line;
			s->on_late_col = t->col;
			if (sl__p_accept_kw(p, "DROP")) {
				s->on_late = SL_LATE_DROP;
			} else if (sl__p_accept_kw(p, "INSERT")) {
				s->on_late = SL_LATE_INSERT;
				if (sl__p_expect_kw(p, "INTO") || sl__p_name(p, &s->late_table, "table name"))
					return -1;
			} else {
				return sl__p_error(p, "DROP or INSERT INTO after ON LATE");
			}
		} else {
			return 0;
		}
	}
}

/* WINDOW w AS (spec), ... */
static int window_clause(sl_parser *p, sl_ast_select *s)
{
	int cap = 0, cap2 = 0, n2 = 0;
	do {
		sl_ast_ident *id = sl__p_push(p, &s->window_names, &s->nwindows, &cap, sizeof(*id));
		sl_ast_window **w = sl__p_push(p, &s->windows, &n2, &cap2, sizeof(*w));
		if (!id || !w || sl__p_ident(p, id, "window name") || sl__p_expect_kw(p, "AS"))
			return -1;
		/* reuse the OVER parser by parsing "OVER (spec)" semantics */
		if (!sl__p_is_op(p, 0, "("))
			return sl__p_error(p, "'('");
		if (!(*w = sl__p_window_spec(p)))
			return -1;
	} while (sl__p_accept_op(p, ","));
	return 0;
}

static int select_tail(sl_parser *p, sl_ast_select *s)
{
	if (sl__p_accept_kw(p, "FROM") && !(s->from = from_list(p)))
		return -1;
	/* WHERE, GROUP BY, HAVING and WINDOW need a FROM, as in Flink's grammar
	 * (SELECT 1 WHERE ..: "Incorrect syntax near the keyword 'WHERE'");
	 * ORDER BY, LIMIT and set operators do not; a LATERAL subquery's WHERE
	 * without FROM is sluice's extension (docs/sql.md) */
	if (!s->from && !(p->lateral && sl__p_is_kw(p, 0, "WHERE")) &&
	    (sl__p_is_kw(p, 0, "WHERE") || sl__p_is_kw(p, 0, "GROUP") ||
	                 sl__p_is_kw(p, 0, "HAVING") || sl__p_is_kw(p, 0, "WINDOW")))
		return sl__p_error(p, "FROM");
	if (sl__p_accept_kw(p, "WHERE") && !(s->where = sl__p_expr(p)))
		return -1;
	if (sl__p_is_kw(p, 0, "GROUP")) {
		p->i++;
		if (sl__p_expect_kw(p, "BY") || sl__p_group_by(p, &s->group, &s->ngroup))
			return -1;
	}
	if (sl__p_accept_kw(p, "HAVING") && !(s->having = sl__p_expr(p)))
		return -1;
	if (sl__p_accept_kw(p, "WINDOW") && window_clause(p, s))
		return -1;
	return late_clauses(p, s);
}

static sl_ast_select *select_core(sl_parser *p)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_select *s = sl__p_alloc(p, sizeof(*s));
	int cap = 0;
	if (!s || sl__p_expect_kw(p, "SELECT"))
		return NULL;
	s->line = t->line;
	s->col = t->col;
	if (sl__p_hints(p, &s->hints, &s->nhints))
		return NULL;
	if (sl__p_accept_kw(p, "DISTINCT"))
		s->distinct = 1;
	else
		sl__p_accept_kw(p, "ALL");
	do {
		sl_ast_select_item *it = sl__p_push(p, &s->items, &s->nitems, &cap, sizeof(*it));
		if (!it || select_item(p, it))
			return NULL;
	} while (sl__p_accept_op(p, ","));
	return select_tail(p, s) ? NULL : s;
}

/* VALUES (a, b), (c, d) */
static int values_rows(sl_parser *p, sl_ast_query *q)
{
	int cap = 0;
	do {
		sl_ast_expr ***row = sl__p_push(p, &q->rows, &q->nrows, &cap, sizeof(*row));
		int n = 0;
		if (!row || sl__p_expect_op(p, "(") || expr_list(p, row, &n) || sl__p_expect_op(p, ")"))
			return -1;
		if (q->nrows == 1)
			q->nvalues = n;
		else if (n != q->nvalues)
			return sl__p_error_at(p, sl__p_tok(p, -1), SL_ESYNTAX,
			                      "VALUES rows must all have the same number of values");
	} while (sl__p_accept_op(p, ","));
	return 0;
}

static sl_ast_query *query_primary(sl_parser *p)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_query *q;
	if (sl__p_accept_op(p, "(")) {
		if (!(q = sl__p_query(p)) || sl__p_expect_op(p, ")"))
			return NULL;
		return q;
	}
	if (!(q = sl__p_alloc(p, sizeof(*q))))
		return NULL;
	q->line = t->line;
	q->col = t->col;
	if (sl__p_accept_kw(p, "VALUES")) {
		q->kind = SL_AQ_VALUES;
		return values_rows(p, q) ? NULL : q;
	}
	if (!sl__p_is_kw(p, 0, "SELECT")) {
		sl__p_error(p, "SELECT, VALUES or '('");
		return NULL;
	}
	q->kind = SL_AQ_SELECT;
	return (q->select = select_core(p)) ? q : NULL;
}

static sl_ast_query *setop_node(sl_parser *p, const sl_token *t, sl_ast_setop op,
                                sl_ast_query *left, sl_ast_query *right)
{
	sl_ast_query *q = sl__p_alloc(p, sizeof(*q));
	if (!q || sl__p_link(p, t))
		return NULL;
	q->kind = SL_AQ_SETOP;
	q->line = left->line;
	q->col = left->col;
	q->setop.op = op;
	q->setop.left = left;
	q->setop.right = right;
	return q;
}

/* Reads [ALL | DISTINCT] after a set operator; returns the ALL flag. */
static int setop_quant(sl_parser *p)
{
	if (sl__p_accept_kw(p, "ALL"))
		return 1;
	sl__p_accept_kw(p, "DISTINCT");
	return 0;
}

static sl_ast_query *intersect_term(sl_parser *p)
{
	sl_ast_query *left = query_primary(p);
	while (left && sl__p_is_kw(p, 0, "INTERSECT")) {
		const sl_token *t = sl__p_tok(p, 0);
		p->i++;
		int all = setop_quant(p);
		sl_ast_query *right = query_primary(p);
		if (!right || !(left = setop_node(p, t, SL_SET_INTERSECT, left, right)))
			return NULL;
		left->setop.all = (uint8_t)all;
	}
	return left;
}

static sl_ast_query *set_expr(sl_parser *p)
{
	sl_ast_query *left = intersect_term(p);
	while (left && (sl__p_is_kw(p, 0, "UNION") || sl__p_is_kw(p, 0, "EXCEPT") ||
	                sl__p_is_kw(p, 0, "MINUS"))) {
		const sl_token *t = sl__p_tok(p, 0);
		sl_ast_setop op = sl__p_is_kw(p, 0, "UNION") ? SL_SET_UNION : SL_SET_EXCEPT;
		p->i++;
		int all = setop_quant(p);
		sl_ast_query *right = intersect_term(p);
		if (!right || !(left = setop_node(p, t, op, left, right)))
			return NULL;
		left->setop.all = (uint8_t)all;
	}
	return left;
}

/* WITH name [(cols)] AS (query), ... */
static int with_clause(sl_parser *p, sl_ast_cte **out, int *n)
{
	int cap = 0;
	do {
		sl_ast_cte *c = sl__p_push(p, out, n, &cap, sizeof(*c));
		if (!c || sl__p_ident(p, &c->name, "CTE name"))
			return -1;
		if (sl__p_is_op(p, 0, "(") && sl__p_ident_list(p, &c->cols, &c->ncols))
			return -1;
		if (sl__p_expect_kw(p, "AS") || sl__p_expect_op(p, "(") || !(c->query = sl__p_query(p)) ||
		    sl__p_expect_op(p, ")"))
			return -1;
	} while (sl__p_accept_op(p, ","));
	return 0;
}

/* ORDER BY / LIMIT / OFFSET / FETCH after a set expression. */
static int query_tail(sl_parser *p, sl_ast_query *q)
{
	if (sl__p_is_kw(p, 0, "ORDER")) {
		p->i++;
		if (sl__p_expect_kw(p, "BY") || sl__p_order_list(p, &q->order, &q->norder))
			return -1;
	}
	if (sl__p_accept_kw(p, "LIMIT") && !(q->limit = sl__p_expr(p)))
		return -1;
	if (sl__p_accept_kw(p, "OFFSET")) {
		if (!(q->offset = sl__p_expr(p)))
			return -1;
		if (!sl__p_accept_kw(p, "ROWS"))
			sl__p_accept_kw(p, "ROW");
	}
	if (sl__p_accept_kw(p, "FETCH")) {
		if (!sl__p_accept_kw(p, "FIRST") && sl__p_expect_kw(p, "NEXT"))
			return -1;
		if (!(q->limit = sl__p_expr(p)))
			return -1;
		if (!sl__p_accept_kw(p, "ROWS") && sl__p_expect_kw(p, "ROW"))
			return -1;
		if (sl__p_expect_kw(p, "ONLY"))
			return -1;
	}
	return 0;
}

sl_ast_query *sl__p_query(sl_parser *p)
{
	sl_ast_cte *with = NULL;
	sl_ast_query *q = NULL;
	int nwith = 0;
	if (sl__p_enter(p))
		return NULL;
	if (sl__p_accept_kw(p, "WITH") && with_clause(p, &with, &nwith))
		goto fail;
	if (!(q = set_expr(p)))
		goto fail;
	if ((q->norder || q->limit || q->offset) &&
	    (sl__p_is_kw(p, 0, "ORDER") || sl__p_is_kw(p, 0, "LIMIT") || sl__p_is_kw(p, 0, "OFFSET") ||
	     sl__p_is_kw(p, 0, "FETCH"))) {
		sl__p_error_at(p, sl__p_tok(p, 0), SL_ESYNTAX,
		               "ORDER BY / LIMIT given twice for one query; wrap it in a subquery");
		goto fail;
	}
	if (query_tail(p, q))
		goto fail;
	if (nwith) {
		if (q->nwith) {
			sl__p_error_at(p, sl__p_tok(p, 0), SL_ESYNTAX,
			               "nested WITH in a parenthesised query; merge the WITH clauses");
			goto fail;
		}
		q->with = with;
		q->nwith = nwith;
	}
	sl__p_leave(p);
	return q;
fail:
	sl__p_leave(p);
	return NULL;
}
