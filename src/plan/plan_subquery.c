/*
 * plan_subquery.c - plans the subqueries of a WHERE clause as semi and
 * anti joins (op_semi_join.c), as Flink does:
 *
 *   x IN (SELECT y ...)          semi join on x = y
 *   EXISTS (SELECT ...)          semi join on the correlation conditions
 *   x NOT IN (SELECT y ...)      anti join on x = y OR x IS NULL OR y IS NULL
 *   NOT EXISTS (SELECT ...)      anti join on the correlation conditions
 *
 * (NOT (x IN ...) and NOT (EXISTS ...) are the same.)  Such a condition
 * must be a conjunct of the WHERE (joined to the rest by AND); elsewhere
 * (under OR, in a CASE, in the SELECT list) a subquery is refused.
 *
 * Decorrelation.  A subquery that is a plain SELECT (no GROUP BY,
 * aggregates, DISTINCT, HAVING or OVER) has its FROM planned on its own,
 * with the conjuncts of its WHERE that bind against its own columns as
 * filters (plan_comma.c, which also joins a comma list); the conjuncts
 * that do not bind there read the enclosing query's columns (correlation)
 * and are bound against the enclosing columns followed by the subquery's,
 * like a join condition: their equalities between the two sides become
 * the semi join's keys (plan_join.c: sl__plan_semi_join), the rest its
 * residual.  A name is looked up in the subquery first (SQL's scoping);
 * a correlated condition naming, unqualified, a column that both sides
 * have is ambiguous (qualify it).  Any other subquery (aggregates, UNION,
 * ...) is planned whole and must not be correlated.
 *
 * NOT IN follows SQL's three-valued logic: a NULL x, or a NULL among the
 * subquery's values, makes `x NOT IN (...)` unknown (the row is dropped)
 * unless the subquery is empty; the condition x = y OR x IS NULL OR y IS
 * NULL, a match for the anti join, says exactly that.  It has no equality
 * key (every row meets every row of the subquery, as in Flink), unless
 * correlation equalities give one.
 *
 * The WHERE's other conjuncts filter the enclosing rows before the semi
 * and anti joins (smaller state).  The result has the enclosing columns,
 * without time attributes (as a regular join's output).
 *
 * Scalar subqueries (sl__plan_scalar_subqueries): an uncorrelated query
 * of one column, `(SELECT MAX(x) FROM t)`, `(SELECT v FROM t WHERE k =
 * 1)`, in WHERE or in the SELECT list of a query that does not aggregate.
 * Planned as Flink plans it: the outer rows LEFT JOIN the subquery ON
 * TRUE (plan_join.c: sl__plan_scalar_join, a join without keys, so one
 * instance), its column a hidden "$scalarN" that the binder reads the
 * subquery node from; NULL while the subquery has no row, and each change
 * of it retracts and re-emits the rows that read it.  A global aggregate
 * (one aggregate item, no GROUP BY) returns at most one row; any other
 * subquery may return several, so its join fails at run time on a second
 * row (Flink's SINGLE_VALUE aggregate).  Correlated ones are refused.
 */
#include "plan_int.h"
#include "plan_join.h"
#include "sluice.h"

#include <stdio.h>
#include <string.h>

#define MAX_CONJ 512

static int ast_conjuncts(const sl_ast_expr *e, const sl_ast_expr **out, int *n)
{
	if (e->kind == SL_AX_BINARY && e->u.op.op == SL_AOP_AND)
		return ast_conjuncts(e->u.op.a, out, n) || ast_conjuncts(e->u.op.b, out, n);
	if (*n == MAX_CONJ)
		return -1;
	out[(*n)++] = e;
	return 0;
}

/* 1 when e holds an aggregate call or an OVER call. */
static int has_agg_call(planner *p, const sl_ast_expr *e)
{
	if (!e)
		return 0;
	if (e->kind == SL_AX_CALL) {
		if (sl__is_agg_call(p, e) || e->u.call.over)
			return 1;
		for (int i = 0; i < e->u.call.nargs; i++)
			if (has_agg_call(p, e->u.call.args[i]))
				return 1;
		return 0;
	}
	switch (e->kind) {
	case SL_AX_UNARY: case SL_AX_BINARY:
		return has_agg_call(p, e->u.op.a) || has_agg_call(p, e->u.op.b);
	case SL_AX_CAST:
		return has_agg_call(p, e->u.cast.a);
	case SL_AX_CASE:
		for (int i = 0; i < e->u.case_.nwhen; i++)
			if (has_agg_call(p, e->u.case_.when[i]) || has_agg_call(p, e->u.case_.then[i]))
				return 1;
		return has_agg_call(p, e->u.case_.operand) || has_agg_call(p, e->u.case_.else_);
	default:
		return 0;
	}
}

/* A subquery whose FROM and WHERE can be taken apart (decorrelated). */
static int plain_select(planner *p, const sl_ast_query *q)
{
	if (q->kind != SL_AQ_SELECT || q->nwith || q->norder || q->limit || q->offset)
		return 0;
	const sl_ast_select *s = q->select;
	if (!s->from || s->ngroup || s->having || s->distinct || s->allowed_lateness ||
	    s->on_late || sl__is_rank_query(s))
		return 0;
	for (int i = 0; i < s->nitems; i++)
		if (has_agg_call(p, s->items[i].expr))
			return 0;
	return 1;
}

/* The columns of l followed by r's, for binding (no operator). */
static rel *concat(planner *p, const rel *l, const rel *r)
{
	rel *j = sl__rel_new(p, l->ncols + r->ncols);
	if (!j)
		return NULL;
	memcpy(j->cols, l->cols, sizeof(rcol) * (size_t)l->ncols);
	memcpy(j->cols + l->ncols, r->cols, sizeof(rcol) * (size_t)r->ncols);
	return j;
}

/* A copy of e with every column shifted by `by` (arena). */
static sl_expr *shift(planner *p, const sl_expr *e, int by)
{
	sl_expr *x = sl_arena_alloc(p->a, sizeof(*x));
	if (!x)
		return NULL;
	*x = *e;
	if (e->kind == SL_EX_COL)
		x->col += by;
	if (e->kind != SL_EX_CALL || e->nargs == 0)
		return x;
	x->args = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)e->nargs);
	for (int i = 0; x->args && i < e->nargs; i++)
		if (!(x->args[i] = shift(p, e->args[i], by)))
			return NULL;
	return x->args ? x : NULL;
}

static sl_expr *call(planner *p, const sl_ast_expr *at, sl_fn fn, sl_expr *a, sl_expr *b)
{
	sl_expr *x[2] = {a, b};
	sl_expr *e = sl_expr_call(p->a, fn, x, b ? 2 : 1, NULL, 0, p->err);
	if (!e && !p->err->line) { /* a type error: give it the position */
		char msg[SL_ERR_MAX];
		snprintf(msg, sizeof(msg), "%s", p->err->msg);
		sl_err_clear(p->err);
		return sl__plan_error(p, at->line, at->col, SL_EPLAN, "%s", msg);
	}
	return e;
}

/* A subquery planned whole failed; when on a name it may be a column of
 * the enclosing query: say that correlation is not supported there.
 * Returns SL_EPLAN. */
static int correlated_hint(planner *p, const char *what)
{
	if (p->err->code == SL_EPLAN && (strstr(p->err->msg, "not found in any table") ||
	                                 strstr(p->err->msg, "is not being grouped"))) {
		char msg[SL_ERR_MAX];
		int line = p->err->line, col = p->err->col;
		snprintf(msg, sizeof(msg), "%s", p->err->msg);
		sl_err_clear(p->err); /* the first error set stays otherwise */
		sl_err_set_at(p->err, SL_EPLAN, line, col,
		              "%s (%s cannot read the enclosing query's columns: correlated, it is "
		              "not supported)", msg, what);
	}
	return SL_EPLAN;
}

/* The subquery of an IN / EXISTS conjunct planned: *inner, its value
 * column for IN (*y, over inner), and the correlated conjuncts (AST). */
static int plan_inner(planner *p, const sl_ast_expr *at, const sl_ast_query *q, int in,
                      sl_plan_item_fn plan_item, rel **inner, sl_expr **y,
                      const sl_ast_expr **corr)
{
	*corr = NULL;
	*y = NULL;
	if (!plain_select(p, q)) {
		if (!(*inner = sl__plan_query(p, q)))
			return correlated_hint(p, "a subquery with GROUP BY, aggregates, DISTINCT or "
			                       "set operations");
		if (in && (*inner)->ncols != 1) {
			sl__plan_error(p, at->line, at->col, SL_EPLAN,
			               "the subquery of IN must return one column, not %d",
			               (*inner)->ncols);
			return SL_EPLAN;
		}
		if (in)
			*y = sl_expr_col(p->a, 0, (*inner)->cols[0].type);
		return 0;
	}
	const sl_ast_select *s = q->select;
	if (!(*inner = sl__plan_comma(p, s->from, s->where, corr, 1, plan_item, NULL)))
		return SL_EPLAN;
	if (!in)
		return 0;
	if (s->nitems != 1 || s->items[0].expr->kind == SL_AX_STAR) {
		sl__plan_error(p, at->line, at->col, SL_EPLAN,
		               "the subquery of IN must return one column");
		return SL_EPLAN;
	}
	scope sc = {*inner, NULL, NULL};
	return (*y = sl__bind_expr(p, &sc, s->items[0].expr)) ? 0 : SL_EPLAN;
}

/* Plans one IN / EXISTS conjunct e over r. */
static rel *plan_one(planner *p, rel *r, const sl_ast_expr *e, int neg, sl_plan_item_fn plan_item)
{
	int in = e->kind == SL_AX_IN_QUERY;
	int anti = neg ^ (in && e->u.in.negated);
	const sl_ast_query *q = in ? e->u.in.query : e->u.query;
	if (in && e->u.in.a->kind == SL_AX_CALL && !strcmp(e->u.in.a->u.call.fname, "ROW"))
		return sl__plan_error(p, e->line, e->col, SL_ENOTSUP,
		                      "IN with a row of several columns before a subquery is not "
		                      "supported");
	rel *inner;
	sl_expr *y;
	const sl_ast_expr *corr;
	if (plan_inner(p, e, q, in, plan_item, &inner, &y, &corr))
		return NULL;
	rel *j = concat(p, r, inner);
	if (!j)
		return NULL;
	sl_expr *cond = NULL;
	if (in) {
		scope so = {r, NULL, NULL};
		sl_expr *x = sl__bind_expr(p, &so, e->u.in.a);
		if (!x || !(y = shift(p, y, r->ncols)) || !(cond = call(p, e, SL_FN_EQ, x, y)))
			return NULL;
		if (anti) { /* NOT IN: a NULL on either side is unknown, i.e. a match */
			sl_expr *xn = call(p, e, SL_FN_IS_NULL, x, NULL);
			sl_expr *yn = xn ? call(p, e, SL_FN_IS_NULL, y, NULL) : NULL;
			if (!yn || !(cond = call(p, e, SL_FN_OR, cond, xn)) ||
			    !(cond = call(p, e, SL_FN_OR, cond, yn)))
				return NULL;
		}
	}
	if (corr) {
		scope sj = {j, NULL, NULL};
		sl_expr *c = sl__bind_expr(p, &sj, corr);
		if (!c)
			return NULL;
		if (c->type.id != SL_T_BOOLEAN && c->type.id != SL_T_NULL) {
			char b[64];
			return sl__plan_error(p, corr->line, corr->col, SL_EPLAN,
			                      "a condition must be BOOLEAN, not %s",
			                      sl_type_format(c->type, b, sizeof(b)));
		}
		if (!(cond = cond ? call(p, corr, SL_FN_AND, cond, c) : c))
			return NULL;
	}
	if (!cond) /* uncorrelated EXISTS: any row of the subquery */
		cond = sl_expr_lit_i64(p->a, sl_type_make(SL_T_BOOLEAN), 1);
	return sl__plan_semi_join(p, e, cond, r, inner, anti);
}

rel *sl__plan_subqueries(planner *p, rel *r, const sl_ast_expr *where, sl_plan_item_fn plan_item)
{
	const sl_ast_expr *conj[MAX_CONJ], *plain[MAX_CONJ];
	int nconj = 0, nplain = 0;
	if (ast_conjuncts(where, conj, &nconj))
		return sl__plan_error(p, where->line, where->col, SL_ENOTSUP,
		                      "a WHERE condition of more than %d conjuncts with subqueries is "
		                      "not supported", MAX_CONJ);
	for (int i = 0; i < nconj; i++) {
		const sl_ast_expr *e = conj[i];
		while (e->kind == SL_AX_UNARY && e->u.op.op == SL_AOP_NOT)
			e = e->u.op.a;
		if (e->kind == SL_AX_IN_QUERY || e->kind == SL_AX_EXISTS)
			continue;
		if (sl__ast_subqueries(conj[i], SL_SUBQ_PRED, NULL, 0))
			return sl__plan_error(p, conj[i]->line, conj[i]->col, SL_ENOTSUP,
			                      "this subquery is not supported: IN, NOT IN, EXISTS and NOT "
			                      "EXISTS subqueries are, as conditions of WHERE joined by AND "
			                      "(not under OR, in CASE or in a comparison)");
		plain[nplain++] = conj[i];
	}
	if (nplain) { /* the plain conditions first: less state in the joins */
		scope s = {r, NULL, NULL};
		const sl_ast_expr *w = sl__ast_and(p, plain, nplain);
		sl_expr *f = w ? sl__bind_expr(p, &s, w) : NULL;
		if (!f)
			return NULL;
		if (f->type.id != SL_T_BOOLEAN && f->type.id != SL_T_NULL) {
			char b[64];
			return sl__plan_error(p, w->line, w->col, SL_EPLAN,
			                      "a condition must be BOOLEAN, not %s",
			                      sl_type_format(f->type, b, sizeof(b)));
		}
		if (!(r = sl__add_filter(p, r, f)))
			return NULL;
	}
	for (int i = 0; i < nconj && r; i++) {
		const sl_ast_expr *e = conj[i];
		int neg = 0;
		while (e->kind == SL_AX_UNARY && e->u.op.op == SL_AOP_NOT) {
			neg ^= 1;
			e = e->u.op.a;
		}
		if (e->kind == SL_AX_IN_QUERY || e->kind == SL_AX_EXISTS)
			r = plan_one(p, r, e, neg, plan_item);
	}
	return r;
}

/* ---- scalar subqueries ------------------------------------------------------ */

/* A subquery that returns at most one row: a SELECT of aggregate items
 * without GROUP BY (HAVING may drop its row), whatever its LIMIT. */
static int one_row(planner *p, const sl_ast_query *q)
{
	if (q->kind != SL_AQ_SELECT || q->nwith || q->norder || q->offset)
		return 0;
	const sl_ast_select *s = q->select;
	if (!s->from || s->ngroup || s->distinct || sl__is_rank_query(s))
		return 0;
	for (int i = 0; i < s->nitems; i++)
		if (s->items[i].expr->kind == SL_AX_STAR || !has_agg_call(p, s->items[i].expr))
			return 0;
	return s->nitems > 0;
}

rel *sl__plan_scalar_subqueries(planner *p, const sl_ast_select *sel, rel *r, int agg)
{
	const sl_ast_expr *at[32];
	int n = sl__ast_subqueries(sel->where, SL_SUBQ_SCALAR, at, 32);
	for (int i = 0; i < sel->nitems; i++) {
		const sl_ast_expr *e = sel->items[i].expr;
		int k = sl__ast_subqueries(e, SL_SUBQ_SCALAR, n < 32 ? at + n : NULL, 32 - n);
		if (k && agg)
			return sl__plan_error(p, e->line, e->col, SL_ENOTSUP,
			                      "a scalar subquery in the SELECT list of an aggregating "
			                      "query is not supported (use it in WHERE, or in an outer "
			                      "query)");
		n += k;
	}
	const sl_ast_expr *h[1];
	if (sl__ast_subqueries(sel->having, SL_SUBQ_ANY, h, 1))
		return sl__plan_error(p, h[0]->line, h[0]->col, SL_ENOTSUP,
		                      "subqueries in HAVING are not supported");
	if (n > 32 || p->nscalar + n > 32)
		return sl__plan_error(p, sel->line, sel->col, SL_ENOTSUP,
		                      "more than 32 scalar subqueries are not supported");
	for (int i = 0; i < n && r; i++) {
		const sl_ast_query *q = at[i]->u.query;
		rel *sub = sl__plan_query(p, q);
		if (!sub)
			return correlated_hint(p, "a scalar subquery"), NULL;
		if (sub->ncols != 1)
			return sl__plan_error(p, at[i]->line, at[i]->col, SL_EPLAN,
			                      "a scalar subquery must return one column, not %d",
			                      sub->ncols);
		if (sub->upsert_key)
			return sl__plan_error(p, at[i]->line, at[i]->col, SL_ENOTSUP,
			                      "a scalar subquery over an upsert stream (%s: deletes may "
			                      "hold only the key) is not supported", sub->upd_op);
		if (!(r = sl__plan_scalar_join(p, at[i], r, sub, !one_row(p, q))))
			return NULL;
		const char *name = sl_arena_printf(p->a, "$scalar%d", p->nscalar);
		r->cols[r->ncols - 1].name = name;
		r->cols[r->ncols - 1].qual = NULL;
		p->scalar_at[p->nscalar] = at[i];
		p->scalar_col[p->nscalar++] = name;
	}
	return r;
}
