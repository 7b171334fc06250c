/*
 * plan_comma.c - plans a comma join, `FROM a, b [, c ...] WHERE ...`, as
 * the inner joins that JOIN ... ON would give (plan_join.c).
 *
 * The FROM items separated by commas (each may itself be a table, a
 * subquery, a window TVF or an explicit JOIN) are planned first, in order.
 * The WHERE condition is split into its conjuncts (AND), and each is bound
 * against all the items' columns (item 0's, then item 1's, ...; each keeps
 * its qualifier, so a.k and b.k resolve and an unqualified name present in
 * two items is ambiguous) and placed by the items it reads:
 *   - one item: a filter on that item, below the joins (for inner joins
 *     this keeps the result and shrinks the joins' state);
 *   - several items: the condition of the join that adds the last of
 *     them; the items are joined left-deep in FROM order (as Flink, which
 *     does not reorder joins by default), so the join adding item i gets
 *     every conjunct over items 0..i that reads item i;
 *   - none (constants), or a subquery (IN / EXISTS, plan_subquery.c): left
 *     in the WHERE, evaluated after the joins.
 * A join that gets no conjunct is a cross join (ON TRUE: a join without
 * keys, planned singleton as CROSS JOIN is).  Each join is classified like JOIN ... ON (equi-keys, expression
 * keys, interval bounds on the rowtimes, window equalities, residual), so
 * `FROM auction A, bid B WHERE A.id = B.auction AND B.dateTime BETWEEN
 * A.dateTime AND A.expires` is the same interval join as its JOIN form.
 *
 * The last item may be `t FOR SYSTEM_TIME AS OF x` (Flink accepts the
 * comma form of temporal and lookup joins): the conjuncts that do not bind
 * against the other items (they read t) are its ON condition, and it is
 * joined last (plan_join.c: sl__plan_as_of_join); a conjunct naming,
 * unqualified, a column that t has too is ambiguous.
 *
 * An UNNEST item after the first is a Correlate over the item just before
 * it (whose columns its argument reads: `FROM t, UNNEST(t.tags) AS u
 * (tag)`) and joins nothing (plan_unnest.c); a LATERAL SELECT reads that
 * item too, and is joined to it (`FROM o, LATERAL (SELECT c.city FROM c
 * WHERE c.name = o.cust)`) or computed over it without FROM, before the
 * comma joins (plan_lateral.c).
 *
 * With `keep_unbound`, a conjunct that does not bind against the items
 * (a correlated reference to an enclosing query) is left in the rest
 * instead of failing: the subquery planner decorrelates it.
 */
#include "plan_int.h"
#include "plan_join.h"
#include "sluice.h"

#include <string.h>
#include <strings.h>

#define MAX_ITEMS 64
#define MAX_CONJ 512

/* The items of a comma join, left to right. */
static int comma_items(const sl_ast_from *f, const sl_ast_from **out, int *n)
{
	if (f->kind == SL_AF_JOIN && f->u.join.type == SL_AJ_COMMA)
		return comma_items(f->u.join.left, out, n) || comma_items(f->u.join.right, out, n);
	if (*n == MAX_ITEMS)
		return -1;
	out[(*n)++] = f;
	return 0;
}

/* Conjuncts of an AST condition. */
static int ast_conjuncts(const sl_ast_expr *e, const sl_ast_expr **out, int *n)
{
	if (e->kind == SL_AX_BINARY && e->u.op.op == SL_AOP_AND)
		return ast_conjuncts(e->u.op.a, out, n) || ast_conjuncts(e->u.op.b, out, n);
	if (*n == MAX_CONJ)
		return -1;
	out[(*n)++] = e;
	return 0;
}

/* Visits the subquery nodes of e (not those inside them). */
static void visit_subq(const sl_ast_expr *e, int what, const sl_ast_expr **out, int cap, int *n)
{
	if (!e)
		return;
	switch (e->kind) {
	case SL_AX_IN_QUERY: case SL_AX_EXISTS: case SL_AX_SUBQUERY: {
		int scalar = e->kind == SL_AX_SUBQUERY;
		if (what == SL_SUBQ_ANY || (what == SL_SUBQ_SCALAR) == scalar) {
			if (*n < cap)
				out[*n] = e;
			(*n)++;
		}
		if (e->kind == SL_AX_IN_QUERY)
			visit_subq(e->u.in.a, what, out, cap, n);
		return;
	}
	case SL_AX_UNARY: case SL_AX_BINARY:
		visit_subq(e->u.op.a, what, out, cap, n);
		visit_subq(e->u.op.b, what, out, cap, n);
		return;
	case SL_AX_IS:
		visit_subq(e->u.is.a, what, out, cap, n);
		visit_subq(e->u.is.b, what, out, cap, n);
		return;
	case SL_AX_BETWEEN:
		visit_subq(e->u.between.a, what, out, cap, n);
		visit_subq(e->u.between.lo, what, out, cap, n);
		visit_subq(e->u.between.hi, what, out, cap, n);
		return;
	case SL_AX_IN_LIST:
		visit_subq(e->u.in.a, what, out, cap, n);
		for (int i = 0; i < e->u.in.nlist; i++)
			visit_subq(e->u.in.list[i], what, out, cap, n);
		return;
	case SL_AX_LIKE:
		visit_subq(e->u.like.a, what, out, cap, n);
		visit_subq(e->u.like.pattern, what, out, cap, n);
		visit_subq(e->u.like.escape, what, out, cap, n);
		return;
	case SL_AX_CASE:
		visit_subq(e->u.case_.operand, what, out, cap, n);
		for (int i = 0; i < e->u.case_.nwhen; i++) {
			visit_subq(e->u.case_.when[i], what, out, cap, n);
			visit_subq(e->u.case_.then[i], what, out, cap, n);
		}
		visit_subq(e->u.case_.else_, what, out, cap, n);
		return;
	case SL_AX_CAST:
		visit_subq(e->u.cast.a, what, out, cap, n);
		return;
	case SL_AX_CALL:
		for (int i = 0; i < e->u.call.nargs; i++)
			visit_subq(e->u.call.args[i], what, out, cap, n);
		visit_subq(e->u.call.filter, what, out, cap, n);
		return;
	case SL_AX_FIELD:
		visit_subq(e->u.field.a, what, out, cap, n);
		return;
	default:
		return;
	}
}

int sl__ast_subqueries(const sl_ast_expr *e, int what, const sl_ast_expr **out, int cap)
{
	int n = 0;
	visit_subq(e, what, out, cap, &n);
	return n;
}

int sl__ast_has_subquery(const sl_ast_expr *e)
{
	return sl__ast_subqueries(e, SL_SUBQ_ANY, NULL, 0) > 0;
}

const sl_ast_expr *sl__ast_and(planner *p, const sl_ast_expr **x, int n)
{
	if (n == 0)
		return NULL;
	const sl_ast_expr *acc = x[0];
	for (int i = 1; i < n; i++) {
		sl_ast_expr *a = sl_arena_calloc(p->a, sizeof(*a));
		if (!a)
			return NULL;
		a->kind = SL_AX_BINARY;
		a->line = x[i]->line;
		a->col = x[i]->col;
		a->u.op.op = SL_AOP_AND;
		a->u.op.a = (sl_ast_expr *)acc;
		a->u.op.b = (sl_ast_expr *)x[i];
		acc = a;
	}
	return acc;
}

/* Bit i set when e reads a column of item i (item i's columns start at
 * off[i]; off[n] = the total). */
static uint64_t items_of(const sl_expr *e, const int *off, int n)
{
	if (e->kind == SL_EX_COL) {
		for (int i = 0; i < n; i++)
			if (e->col >= off[i] && e->col < off[i + 1])
				return (uint64_t)1 << i;
		return 0;
	}
	uint64_t m = 0;
	for (int i = 0; e->kind == SL_EX_CALL && i < e->nargs; i++)
		m |= items_of(e->args[i], off, n);
	return m;
}

/* A copy of e with every column shifted by -by (arena). */
static sl_expr *shift(planner *p, const sl_expr *e, int by)
{
	sl_expr *x = sl_arena_alloc(p->a, sizeof(*x));
	if (!x)
		return NULL;
	*x = *e;
	if (e->kind == SL_EX_COL)
		x->col -= by;
	if (e->kind != SL_EX_CALL || e->nargs == 0)
		return x;
	x->args = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)e->nargs);
	for (int i = 0; x->args && i < e->nargs; i++)
		if (!(x->args[i] = shift(p, e->args[i], by)))
			return NULL;
	return x->args ? x : NULL;
}

static sl_expr *and_exprs(planner *p, sl_expr **x, int n)
{
	sl_expr *acc = x[0];
	for (int i = 1; acc && i < n; i++) {
		sl_expr *two[2] = {acc, x[i]};
		acc = sl_expr_call(p->a, SL_FN_AND, two, 2, NULL, 0, p->err);
	}
	return acc;
}

/* The display name of comma item f (its alias or table name). */
static const char *item_name(const sl_ast_from *f)
{
	if (f->alias)
		return f->alias->name;
	if (f->kind == SL_AF_TABLE)
		return sl_ast_name_last(&f->u.table.name);
	return f->kind == SL_AF_JOIN ? "a join" : "a subquery";
}

/* Unqualified column names of e that name a column of table td: the first
 * one, or NULL (an as-of item's columns are not bound with the others). */
static const sl_ast_expr *names_col_of(const sl_ast_expr *e, const sl_table_def *td,
                                       const sl_ast_from *f)
{
	if (!e)
		return NULL;
	if (e->kind == SL_AX_COLUMN && e->u.name.n == 1) {
		const char *n = e->u.name.parts[0].name;
		for (int i = 0; i < td->ncols; i++) {
			const char *c = i < f->ncol_aliases ? f->col_aliases[i].name : td->cols[i].name;
			if (!strcasecmp(c, n))
				return e;
		}
		return NULL;
	}
	const sl_ast_expr *r = NULL;
	switch (e->kind) {
	case SL_AX_UNARY: case SL_AX_BINARY:
		return (r = names_col_of(e->u.op.a, td, f)) ? r : names_col_of(e->u.op.b, td, f);
	case SL_AX_IS:
		return (r = names_col_of(e->u.is.a, td, f)) ? r : names_col_of(e->u.is.b, td, f);
	case SL_AX_BETWEEN:
		if ((r = names_col_of(e->u.between.a, td, f)) || (r = names_col_of(e->u.between.lo, td, f)))
			return r;
		return names_col_of(e->u.between.hi, td, f);
	case SL_AX_IN_LIST:
		for (int i = 0; i < e->u.in.nlist; i++)
			if ((r = names_col_of(e->u.in.list[i], td, f)))
				return r;
		return names_col_of(e->u.in.a, td, f);
	case SL_AX_LIKE:
		return (r = names_col_of(e->u.like.a, td, f)) ? r : names_col_of(e->u.like.pattern, td, f);
	case SL_AX_CASE:
		for (int i = 0; i < e->u.case_.nwhen; i++)
			if ((r = names_col_of(e->u.case_.when[i], td, f)) ||
			    (r = names_col_of(e->u.case_.then[i], td, f)))
				return r;
		return (r = names_col_of(e->u.case_.operand, td, f)) ? r
		     : names_col_of(e->u.case_.else_, td, f);
	case SL_AX_CAST:
		return names_col_of(e->u.cast.a, td, f);
	case SL_AX_CALL:
		for (int i = 0; i < e->u.call.nargs; i++)
			if ((r = names_col_of(e->u.call.args[i], td, f)))
				return r;
		return NULL;
	case SL_AX_FIELD:
		return names_col_of(e->u.field.a, td, f);
	default:
		return NULL;
	}
}

/* The join of acc with the as-of item f (the last comma item) on the
 * conjuncts on[0..n): JOIN f ON on[0] AND ... (plan_join.c). */
static rel *as_of_item(planner *p, rel *acc, const sl_ast_from *first, const sl_ast_from *f,
                       const sl_ast_expr **on, int n, sl_plan_side_fn plan_side)
{
	if (!n)
		return sl__plan_error(p, f->line, f->col, SL_ENOTSUP,
		                      "the comma join of %s has no condition in WHERE relating it to "
		                      "the items before it (a cross join); a streaming join needs an "
		                      "equality between its sides (e.g. WHERE a.k = b.k), as in Flink",
		                      item_name(f));
	sl_ast_from *j = sl_arena_calloc(p->a, sizeof(*j));
	if (!j)
		return NULL;
	j->kind = SL_AF_JOIN;
	j->line = f->line;
	j->col = f->col;
	j->u.join.type = SL_AJ_INNER;
	j->u.join.left = (sl_ast_from *)first;
	j->u.join.right = (sl_ast_from *)f;
	j->u.join.on = (sl_ast_expr *)sl__ast_and(p, on, n);
	return j->u.join.on ? sl__plan_as_of_join(p, j, acc, plan_side) : NULL;
}

rel *sl__plan_comma(planner *p, const sl_ast_from *f, const sl_ast_expr *where,
                    const sl_ast_expr **rest, int keep_unbound, sl_plan_item_fn plan_item,
                    sl_plan_side_fn plan_side)
{
	const sl_ast_from *it[MAX_ITEMS];
	const sl_ast_expr *conj[MAX_CONJ], *left[MAX_CONJ], *on[MAX_CONJ];
	rel *ir[MAX_ITEMS];
	int n = 0, nconj = 0, nleft = 0, non = 0, off[MAX_ITEMS + 1];
	*rest = NULL;
	if (comma_items(f, it, &n))
		return sl__plan_error(p, f->line, f->col, SL_ENOTSUP,
		                      "a comma join of more than %d items is not supported", MAX_ITEMS);
	if (where && ast_conjuncts(where, conj, &nconj))
		return sl__plan_error(p, where->line, where->col, SL_ENOTSUP,
		                      "a WHERE condition of more than %d conjuncts over a comma join "
		                      "is not supported", MAX_CONJ);
	/* FOR SYSTEM_TIME AS OF: the last item, joined last on the conjuncts
	 * that do not bind against the items before it */
	const sl_ast_from *asof = NULL;
	for (int i = 1; i < n; i++)
		if (it[i]->kind == SL_AF_TABLE && it[i]->u.table.as_of) {
			if (i != n - 1 || !plan_side)
				return sl__plan_error(p, it[i]->line, it[i]->col, SL_ENOTSUP,
				                      "FOR SYSTEM_TIME AS OF in a comma join is only supported "
				                      "on its last item%s; write it as JOIN %s FOR SYSTEM_TIME "
				                      "AS OF ... ON ...", plan_side ? "" : " outside subqueries",
				                      item_name(it[i]));
			asof = it[n - 1];
		}
	const sl_table_def *asof_td = asof ? sl_catalog_table(p->cat,
	                                     sl_ast_name_last(&asof->u.table.name)) : NULL;
	if (asof)
		n--;
	/* an UNNEST item after the first reads the item before it: a
	 * Correlate over that item, which it then replaces (plan_unnest.c) */
	int nitems = 0;
	for (int i = 0; i < n; i++) {
		if (i > 0 && sl__is_unnest(it[i])) {
			if (!(ir[nitems - 1] = sl__plan_unnest(p, it[i], ir[nitems - 1], 0)))
				return NULL;
			continue;
		}
		if (i > 0 && sl__is_lateral(p, it[i])) { /* over it (plan_lateral.c) */
			if (!(ir[nitems - 1] = sl__plan_lateral(p, it[i], ir[nitems - 1], 0, plan_item)))
				return NULL;
			continue;
		}
		if (!(ir[nitems] = plan_item(p, it[i])))
			return NULL;
		it[nitems++] = it[i];
	}
	n = nitems;
	off[0] = 0;
	for (int i = 0; i < n; i++)
		off[i + 1] = off[i] + ir[i]->ncols;
	/* all items' columns, for binding (no operator) */
	rel *all = sl__rel_new(p, off[n]);
	if (!all)
		return NULL;
	for (int i = 0; i < n; i++)
		memcpy(all->cols + off[i], ir[i]->cols, sizeof(rcol) * (size_t)ir[i]->ncols);
	sl_expr **filt = sl_arena_calloc(p->a, sizeof(sl_expr *) * (size_t)(nconj + 1));
	int *fitem = sl_arena_calloc(p->a, sizeof(int) * (size_t)(nconj + 1));
	const sl_ast_expr **fast = sl_arena_calloc(p->a, sizeof(sl_ast_expr *) * (size_t)(nconj + 1));
	int nfilt = 0;
	scope s = {all, NULL, NULL};
	for (int k = 0; k < nconj; k++) {
		if (sl__ast_has_subquery(conj[k])) {
			left[nleft++] = conj[k];
			continue;
		}
		sl_expr *x = sl__bind_expr(p, &s, conj[k]);
		if (!x && asof && p->err->code == SL_EPLAN) { /* reads the as-of item */
			sl_err_clear(p->err);
			on[non++] = conj[k];
			continue;
		}
		const sl_ast_expr *amb = x && asof_td ? names_col_of(conj[k], asof_td, asof) : NULL;
		if (amb)
			return sl__plan_error(p, amb->line, amb->col, SL_EPLAN, "Column '%s' is ambiguous",
			                      amb->u.name.parts[0].name);
		if (!x && keep_unbound && p->err->code == SL_EPLAN) {
			sl_err_clear(p->err);
			left[nleft++] = conj[k];
			continue;
		}
		if (!x)
			return NULL;
		uint64_t m = items_of(x, off, n);
		if (!m) {
			left[nleft++] = conj[k];
			continue;
		}
		int last = 63 - __builtin_clzll(m);
		filt[nfilt] = x;
		fast[nfilt] = conj[k];
		fitem[nfilt++] = (m & (m - 1)) ? last : -1 - last; /* < 0: one item */
	}
	/* one-item conjuncts: filters below the joins */
	for (int i = 0; i < n; i++) {
		sl_expr *one[MAX_CONJ];
		int none = 0;
		for (int k = 0; k < nfilt; k++)
			if (fitem[k] == -1 - i && !(one[none++] = shift(p, filt[k], off[i])))
				return NULL;
		if (none) {
			sl_expr *c = and_exprs(p, one, none);
			if (!c || !(ir[i] = sl__add_filter(p, ir[i], c)))
				return c ? NULL : sl__plan_error(p, where->line, where->col, SL_EPLAN, "%s",
				                                 p->err->msg);
		}
	}
	rel *acc = ir[0];
	for (int i = 1; i < n; i++) {
		sl_expr *two[MAX_CONJ];
		const sl_ast_expr *pos = NULL;
		int ntwo = 0;
		for (int k = 0; k < nfilt; k++)
			if (fitem[k] == i) {
				if (!pos)
					pos = fast[k]; /* messages point at the first one */
				two[ntwo++] = filt[k];
			}
		if (!ntwo) { /* a cross join: ON TRUE, at the item */
			sl_ast_expr *at = sl_arena_calloc(p->a, sizeof(*at));
			if (!at || !(two[ntwo++] = sl__lit_true(p)))
				return sl__plan_error(p, it[i]->line, it[i]->col, SL_ENOMEM, "out of memory");
			at->line = it[i]->line;
			at->col = it[i]->col;
			pos = at;
		}
		sl_expr *c = and_exprs(p, two, ntwo);
		if (!c)
			return sl__plan_error(p, pos->line, pos->col, SL_EPLAN, "%s", p->err->msg);
		rel *l = acc;
		if (!(acc = sl__plan_join_cond(p, pos, c, l, ir[i])))
			return NULL;
		sl__plan_join_ttl_items(p, i == 1 ? it[0] : NULL, it[i], l, ir[i]);
	}
	if (asof && !(acc = as_of_item(p, acc, it[0], asof, on, non, plan_side)))
		return NULL;
	*rest = sl__ast_and(p, left, nleft);
	return acc;
}
