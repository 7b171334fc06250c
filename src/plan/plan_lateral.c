/*
 * plan_lateral.c - plans a LATERAL subquery that is a plain correlated
 * SELECT (no aggregate, GROUP BY, DISTINCT, ORDER BY, LIMIT), decorrelated
 * as Flink (Calcite) does:
 *
 *   FROM o, LATERAL (SELECT c.city FROM c WHERE c.name = o.cust) AS x
 *   FROM o LEFT JOIN LATERAL (SELECT c.city FROM c WHERE c.name = o.cust) AS x ON TRUE
 *   FROM t, LATERAL (SELECT t.a + 1 AS b, UPPER(t.s) AS u)
 *   FROM t CROSS JOIN LATERAL (SELECT t.a + 1 AS b)           -- also JOIN .. ON cond
 *
 * With FROM: the subquery's FROM and the WHERE conjuncts that bind
 * against it are planned on their own (plan_comma.c with keep_unbound, as
 * a semi join's subquery), a Calc computes its SELECT items (which must
 * read only its own columns) followed by its columns, and the outer rows
 * JOIN (comma, CROSS, JOIN ... ON) or LEFT JOIN (... ON TRUE) it on the
 * correlated conjuncts, bound over outer ++ that: a regular join, keyed
 * by their equalities, without keys when there is none.  A Calc after it
 * keeps the outer columns and the items.  The items are computed before
 * the join, so a LEFT join's padded row has NULL items whatever they
 * compute (as Flink's).
 *
 * Without FROM (a sluice extension: Flink 1.20 plans it and then fails,
 * "unexpected correlate variable $cor0 in the plan", and its parser takes
 * no WHERE without FROM): each outer row gives the subquery exactly one
 * row (none when its WHERE fails), so the "join" is a Calc over the left
 * relation: its columns, kept with their qualifiers, time attributes and
 * changelog, then the subquery's items bound against them (named by their
 * alias, their column or EXPR$i; qualified by the LATERAL item's alias,
 * renamed by its column list).  Its WHERE filters the rows (an inner join), or, in a LEFT JOIN
 * ... ON TRUE, leaves them and makes the items NULL where it fails (the
 * padded row).  An inner join's ON condition other than TRUE filters
 * after; a LEFT JOIN takes only ON TRUE, as for UNNEST (Flink's rule for
 * correlated joins).  Stateless: nothing is kept, an updating input stays
 * updating (each change projected).
 *
 * A comma item reads the item just before it (as UNNEST does), a JOIN's
 * right side the whole left side.  A LATERAL subquery that is not a plain
 * SELECT with FROM (aggregates, UNION, ...) is a plain subquery
 * (plan_query.c), which may not read the items before it
 * (sl__lateral_hint says so); those forms without FROM are refused by
 * name.
 */
#include "plan_int.h"
#include "plan_join.h"
#include "sluice.h"

#include <stdio.h>
#include <string.h>

/* What makes the LATERAL SELECT of f no plain one (NULL: it is one). */
static const char *not_plain(planner *p, const sl_ast_from *f)
{
	const sl_ast_query *q = f->u.sub.query;
	const sl_ast_select *s = q->select;
	const char *what = q->nwith ? "WITH" : q->norder ? "ORDER BY" : q->limit || q->offset
	                 ? "LIMIT / OFFSET" : s->ngroup ? "GROUP BY" : s->having ? "HAVING"
	                 : s->distinct ? "DISTINCT" : sl__has_agg(p, s) ? "an aggregate" : NULL;
	for (int i = 0; !what && i < s->nitems; i++)
		if (s->items[i].expr->kind == SL_AX_STAR)
			what = "SELECT *";
	if (!what && sl__ast_has_subquery(s->where))
		what = "a subquery";
	for (int i = 0; !what && i < s->nitems; i++)
		if (sl__ast_has_subquery(s->items[i].expr))
			what = "a subquery";
	return what;
}

int sl__is_lateral(planner *p, const sl_ast_from *f)
{
	if (!f || f->kind != SL_AF_SUBQUERY || !f->u.sub.lateral ||
	    f->u.sub.query->kind != SL_AQ_SELECT)
		return 0;
	return !f->u.sub.query->select->from || !not_plain(p, f);
}

/* The name of select item i (its alias, its column's name, or EXPR$i). */
static const char *lateral_name(planner *p, const sl_ast_select_item *it, int i)
{
	if (it->alias)
		return it->alias->name;
	if (it->expr->kind == SL_AX_COLUMN)
		return it->expr->u.name.parts[it->expr->u.name.n - 1].name;
	return sl_arena_printf(p->a, "EXPR$%d", i);
}

/* The forms of a LATERAL SELECT without FROM this file does not plan:
 * 0, or SL_ENOTSUP with p->err set. */
static int refuse(planner *p, const sl_ast_from *f)
{
	const char *what = not_plain(p, f);
	if (!what)
		return 0;
	sl__plan_error(p, f->line, f->col, SL_ENOTSUP, "a LATERAL subquery with %s is not "
	               "supported (a plain correlated SELECT is)", what);
	return SL_ENOTSUP;
}

/* The LATERAL SELECT with FROM of f, decorrelated (above). */
static rel *lateral_from(planner *p, const sl_ast_from *f, rel *left, int left_join,
                         sl_plan_item_fn plan_item)
{
	const sl_ast_select *s = f->u.sub.query->select;
	const sl_ast_expr *corr = NULL;
	rel *in = sl__plan_comma(p, s->from, s->where, &corr, 1, plan_item, NULL);
	if (!in)
		return NULL;
	int ni = s->nitems, nc = in->ncols, nl = left->ncols;
	if (f->ncol_aliases > ni)
		return sl__plan_error(p, f->line, f->col, SL_EPLAN, "the LATERAL subquery has %d "
		                      "columns, its alias names %d", ni, f->ncol_aliases);
	sl_expr **proj = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(ni + nc + 1));
	const char **names = sl_arena_alloc(p->a, sizeof(char *) * (size_t)(ni + nc + 1));
	if (!proj || !names)
		return sl__plan_error(p, f->line, f->col, SL_ENOMEM, "out of memory");
	/* its items (over its own columns), then its columns for the join */
	scope si = {in, NULL, NULL};
	for (int i = 0; i < ni; i++) {
		if (!(proj[i] = sl__bind_expr(p, &si, s->items[i].expr))) {
			if (p->err->code == SL_EPLAN && strstr(p->err->msg, "not found in any table")) {
				char msg[SL_ERR_MAX];
				int line = p->err->line, col = p->err->col;
				snprintf(msg, sizeof(msg), "%s", p->err->msg);
				sl_err_clear(p->err);
				sl_err_set_at(p->err, SL_ENOTSUP, line, col, "%s (a LATERAL subquery's "
				              "SELECT items may read only its FROM; its WHERE may read the "
				              "items before it)", msg);
			}
			return NULL;
		}
		names[i] = i < f->ncol_aliases ? f->col_aliases[i].name
		                               : lateral_name(p, &s->items[i], i);
	}
	for (int i = 0; i < nc; i++) {
		proj[ni + i] = sl_expr_col(p->a, i, in->cols[i].type);
		names[ni + i] = in->cols[i].name;
	}
	rel *r = sl__add_calc(p, in, NULL, proj, ni + nc, names);
	if (!r)
		return NULL;
	const char *qual = f->alias ? f->alias->name : NULL;
	for (int i = 0; i < ni + nc; i++)
		r->cols[i].qual = i < ni ? qual : in->cols[i - ni].qual;
	/* the correlated conjuncts, over left ++ r: the join's condition */
	rel *both = sl__rel_new(p, nl + ni + nc);
	if (!both)
		return NULL;
	memcpy(both->cols, left->cols, sizeof(rcol) * (size_t)nl);
	memcpy(both->cols + nl, r->cols, sizeof(rcol) * (size_t)(ni + nc));
	scope sb = {both, NULL, NULL};
	sl_expr *cond = corr ? sl__bind_expr(p, &sb, corr) : sl__lit_true(p);
	if (!cond || (corr && !sl__is_condition(p, corr, cond)))
		return NULL;
	sl_ast_expr pos; /* where the join's messages point: the LATERAL item */
	memset(&pos, 0, sizeof(pos));
	pos.line = f->line;
	pos.col = f->col;
	rel *j = sl__plan_join_cond_kind(p, &pos, left_join, cond, left, r);
	if (!j)
		return NULL;
	/* the outer columns and the items (new arrays: the Calc keeps them) */
	proj = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(nl + ni + 1));
	names = sl_arena_alloc(p->a, sizeof(char *) * (size_t)(nl + ni + 1));
	if (!proj || !names)
		return sl__plan_error(p, f->line, f->col, SL_ENOMEM, "out of memory");
	for (int i = 0; i < nl + ni; i++) {
		proj[i] = sl_expr_col(p->a, i, j->cols[i].type);
		names[i] = j->cols[i].name;
	}
	rel *out = sl__add_calc(p, j, NULL, proj, nl + ni, names);
	for (int i = 0; out && i < nl + ni; i++)
		out->cols[i].qual = j->cols[i].qual;
	return out;
}

rel *sl__plan_lateral(planner *p, const sl_ast_from *f, rel *left, int left_join,
                      sl_plan_item_fn plan_item)
{
	if (f->u.sub.query->select->from)
		return lateral_from(p, f, left, left_join, plan_item);
	if (refuse(p, f))
		return NULL;
	const sl_ast_select *s = f->u.sub.query->select;
	int nl = left->ncols, n = nl + s->nitems;
	sl_expr **proj = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(n + 1));
	const char **names = sl_arena_alloc(p->a, sizeof(char *) * (size_t)(n + 1));
	if (!proj || !names)
		return sl__plan_error(p, f->line, f->col, SL_ENOMEM, "out of memory");
	scope sc = {left, NULL, NULL};
	sl_expr *where = NULL;
	if (s->where && (!(where = sl__bind_expr(p, &sc, s->where)) ||
	                 !sl__is_condition(p, s->where, where)))
		return NULL;
	for (int i = 0; i < nl; i++) {
		proj[i] = sl_expr_col(p->a, i, left->cols[i].type);
		names[i] = left->cols[i].name;
	}
	for (int i = 0; i < s->nitems; i++) {
		sl_expr *x = sl__bind_expr(p, &sc, s->items[i].expr);
		if (!x)
			return NULL;
		if (where && left_join) { /* CASE WHEN where THEN x END: NULL when it fails */
			sl_expr *args[2] = {where, x};
			if (!(x = sl_expr_call(p->a, SL_FN_CASE, args, 2, NULL, 0, p->err)))
				return NULL;
		}
		proj[nl + i] = x;
		names[nl + i] = i < f->ncol_aliases ? f->col_aliases[i].name
		                                    : lateral_name(p, &s->items[i], i);
	}
	if (f->ncol_aliases > s->nitems)
		return sl__plan_error(p, f->line, f->col, SL_EPLAN, "the LATERAL subquery has %d "
		                      "columns, its alias names %d", s->nitems, f->ncol_aliases);
	rel *r = sl__add_calc(p, left, left_join ? NULL : where, proj, n, names);
	if (!r)
		return NULL;
	const char *qual = f->alias ? f->alias->name : NULL;
	for (int i = 0; i < n; i++)
		r->cols[i].qual = i < nl ? left->cols[i].qual : qual;
	r->rowtime = left->rowtime;
	r->proctime = left->proctime;
	return r;
}

void sl__lateral_hint(planner *p)
{
	if (p->err->code != SL_EPLAN || !strstr(p->err->msg, "not found in any table"))
		return;
	char msg[SL_ERR_MAX];
	int line = p->err->line, col = p->err->col;
	snprintf(msg, sizeof(msg), "%s", p->err->msg);
	sl_err_clear(p->err); /* the first error set stays otherwise */
	sl_err_set_at(p->err, SL_EPLAN, line, col, "%s (a LATERAL subquery with FROM cannot read "
	              "the items before it: not supported; one without FROM can)", msg);
}

rel *sl__plan_lateral_join(planner *p, const sl_ast_from *j, rel *left, sl_plan_item_fn plan_item)
{
	int type = j->u.join.type;
	if (type != SL_AJ_CROSS && type != SL_AJ_INNER && type != SL_AJ_LEFT)
		return sl__plan_error(p, j->line, j->col, SL_ENOTSUP,
		                      "%s JOIN LATERAL is not supported (CROSS JOIN, JOIN or LEFT JOIN "
		                      "with ON TRUE)", type == SL_AJ_RIGHT ? "RIGHT" : "FULL");
	if (j->u.join.nusing || j->u.join.natural)
		return sl__plan_error(p, j->line, j->col, SL_EPLAN,
		                      "JOIN LATERAL takes ON, not USING or NATURAL");
	rel *r = sl__plan_lateral(p, j->u.join.right, left, type == SL_AJ_LEFT, plan_item);
	if (!r || !j->u.join.on)
		return r;
	scope s = {r, NULL, NULL};
	sl_expr *c = sl__bind_expr(p, &s, j->u.join.on);
	if (!c || !sl__is_condition(p, j->u.join.on, c))
		return NULL;
	if (c->kind == SL_EX_LIT && !c->lit.is_null && c->lit.v.i64)
		return r; /* ON TRUE */
	if (type == SL_AJ_LEFT)
		return sl__plan_error(p, j->u.join.on->line, j->u.join.on->col, SL_ENOTSUP,
		                      "LEFT JOIN LATERAL supports only ON TRUE (as Flink's correlated "
		                      "joins); filter in the subquery's WHERE");
	return sl__add_filter(p, r, c);
}
