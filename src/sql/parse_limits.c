/*
 * parse_limits.c - the parser's size limits, which keep every recursive
 * pass over a statement (parse, bind, type, compile, format/EXPLAIN, AST
 * copies) within a bounded stack whatever the SQL text.
 *
 * Three limits (docs/sql.md, "Limits"):
 *   - SL_PARSE_MAX_DEPTH (parser.h): nesting of the grammar itself
 *     (parentheses, NOT, unary minus, subqueries), checked by
 *     sl__p_enter (parser.c);
 *   - SL_PARSE_MAX_HEIGHT: the height of an expression tree, counting
 *     the operators of left-deep chains (a + b + c is 3 levels) and the
 *     expressions of subqueries inside it.  Every expression node gets its
 *     height here (sl__p_fix) when the parser finishes it, from its direct
 *     children, so checking costs O(1) per node.  AND and OR chains do not
 *     count against it: the parser builds long ones balanced
 *     (parse_expr.c), so a WHERE clause of 100 000 ORed comparisons is a
 *     tree of height 17;
 *   - SL_PARSE_MAX_LINKS: JOINs and set operations (UNION, INTERSECT,
 *     EXCEPT) in one statement: the FROM and set-operation trees are
 *     left-deep and the planner recurses over them.
 * Each limit is an error with the line and column of the node that
 * crosses it, never a crash.
 */
#include "parse_int.h"
#include "sluice.h"

_Static_assert(SL_PARSE_MAX_LINKS == 1000, "the message of sl__p_link says 1000");

static int h_of(const sl_ast_expr *e)
{
	return e ? e->height : 0;
}

static int h_list(sl_ast_expr *const *xs, int n, int h)
{
	for (int i = 0; i < n; i++)
		if (xs[i] && xs[i]->height > h)
			h = xs[i]->height;
	return h;
}

static int h_window(const sl_ast_window *w, int h)
{
	if (!w)
		return h;
	h = h_list(w->partition, w->npartition, h);
	for (int i = 0; i < w->norder; i++)
		if (h_of(w->order[i].expr) > h)
			h = h_of(w->order[i].expr);
	if (h_of(w->start.expr) > h)
		h = h_of(w->start.expr);
	if (h_of(w->end.expr) > h)
		h = h_of(w->end.expr);
	return h;
}

#define MAX2(a, b) ((a) > (b) ? (a) : (b))

/* The largest height among e's direct children (subqueries: their own
 * recorded height, set by sl__p_subquery). */
static int child_height(const sl_ast_expr *e)
{
	const sl_ast_expr *const *xs;
	switch (e->kind) {
	case SL_AX_UNARY: case SL_AX_BINARY:
		return MAX2(h_of(e->u.op.a), h_of(e->u.op.b));
	case SL_AX_IS:
		return MAX2(h_of(e->u.is.a), h_of(e->u.is.b));
	case SL_AX_BETWEEN:
		return MAX2(h_of(e->u.between.a), MAX2(h_of(e->u.between.lo), h_of(e->u.between.hi)));
	case SL_AX_IN_LIST:
		xs = (const sl_ast_expr *const *)e->u.in.list;
		return h_list((sl_ast_expr *const *)xs, e->u.in.nlist, h_of(e->u.in.a));
	case SL_AX_IN_QUERY:
		return MAX2(h_of(e->u.in.a), e->height);
	case SL_AX_LIKE:
		return MAX2(h_of(e->u.like.a), MAX2(h_of(e->u.like.pattern), h_of(e->u.like.escape)));
	case SL_AX_CASE: {
		int h = MAX2(h_of(e->u.case_.operand), h_of(e->u.case_.else_));
		h = h_list(e->u.case_.when, e->u.case_.nwhen, h);
		return h_list(e->u.case_.then, e->u.case_.nwhen, h);
	}
	case SL_AX_CAST:
		return h_of(e->u.cast.a);
	case SL_AX_CALL: {
		int h = h_list(e->u.call.args, e->u.call.nargs, h_of(e->u.call.filter));
		return h_window(e->u.call.over, h);
	}
	case SL_AX_EXISTS: case SL_AX_SUBQUERY:
		return e->height; /* the subquery's, recorded before */
	case SL_AX_FIELD:
		return h_of(e->u.field.a);
	case SL_AX_TABLE_ARG:
		return h_list(e->u.table_arg.partition, e->u.table_arg.npartition, 0);
	default:
		return 0;
	}
}

sl_ast_expr *sl__p_fix(sl_parser *p, sl_ast_expr *e)
{
	if (!e)
		return NULL;
	e->height = child_height(e) + 1;
	if (e->height > p->maxh)
		p->maxh = e->height;
	if (e->height > SL_PARSE_MAX_HEIGHT) {
		sl_err_set_at(p->err, SL_ESYNTAX, e->line, e->col,
		              "line %d, column %d: expression too deeply nested (more than %d levels "
		              "of operators, function calls and subqueries; AND and OR chains "
		              "are not limited)", e->line, e->col, SL_PARSE_MAX_HEIGHT);
		return NULL;
	}
	return e;
}

sl_ast_query *sl__p_subquery(sl_parser *p, int *height)
{
	int saved = p->maxh;
	p->maxh = 0;
	sl_ast_query *q = sl__p_query(p);
	*height = p->maxh + 1;
	p->maxh = saved > *height ? saved : *height;
	return q;
}

int sl__p_link(sl_parser *p, const sl_token *t)
{
	if (++p->links <= SL_PARSE_MAX_LINKS)
		return 0;
	return sl__p_error_at(p, t, SL_ESYNTAX,
	                      "too many JOINs and set operations (UNION, INTERSECT, EXCEPT) in "
	                      "one statement (limit 1000)");
}
