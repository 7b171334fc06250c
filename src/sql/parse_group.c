/*
 * parse_group.c - the GROUP BY list: expressions, GROUPING SETS, ROLLUP,
 * CUBE, the empty set () and parenthesized column lists (a, b).
 *
 *   group_by  := element {',' element}
 *   element   := GROUPING SETS '(' element {',' element} ')'
 *              | ROLLUP '(' item {',' item} ')' | CUBE '(' item {',' item} ')'
 *              | '(' ')' | '(' expr ',' expr {',' expr} ')' | expr
 *   item      := '(' expr {',' expr} ')' | expr
 *
 * The constructs become SL_AX_CALL nodes the planner expands
 * (plan_grouping.c): "GROUPING SETS" (its elements as arguments),
 * "ROLLUP", "CUBE" (their items) and "$SET" (a parenthesized list of
 * expressions, empty for "()").  A parenthesized single expression "(a)"
 * is the expression itself ("(a) + 1" stays an expression).  A plain
 * GROUP BY list parses to plain expressions as before.
 */
#include "parse_int.h"

#include <string.h>

static sl_ast_expr *group_call(sl_parser *p, const sl_token *t, const char *fname)
{
	sl_ast_expr *e = sl__p_alloc(p, sizeof(*e));
	if (!e || !(e->u.call.name.parts = sl__p_alloc(p, sizeof(sl_ast_ident))))
		return NULL;
	e->kind = SL_AX_CALL;
	e->line = t->line;
	e->col = t->col;
	e->u.call.name.n = 1;
	e->u.call.name.parts[0].name = fname;
	e->u.call.name.parts[0].line = t->line;
	e->u.call.name.parts[0].col = t->col;
	e->u.call.fname = fname;
	return e;
}

static int push_arg(sl_parser *p, sl_ast_expr *call, sl_ast_expr *arg, int *cap)
{
	sl_ast_expr **slot;
	if (!arg || !(slot = sl__p_push(p, &call->u.call.args, &call->u.call.nargs, cap, sizeof(*slot))))
		return -1;
	*slot = arg;
	return 0;
}

/* At '(': 1 when the parenthesis holds "()" or a top-level ',' (a column
 * list), 0 when it is an expression's parenthesis. */
static int is_list(sl_parser *p)
{
	if (sl__p_is_op(p, 1, ")"))
		return 1;
	int depth = 0;
	for (int k = 0;; k++) {
		const sl_token *t = sl__p_tok(p, k);
		if (t->type == SL_TK_EOF)
			return 0;
		if (sl__p_is_op(p, k, "("))
			depth++;
		else if (sl__p_is_op(p, k, ")") && --depth == 0)
			return 0;
		else if (depth == 1 && sl__p_is_op(p, k, ","))
			return 1;
	}
}

/* '(' [expr {',' expr}] ')' as a "$SET" call. */
static sl_ast_expr *column_list(sl_parser *p)
{
	sl_ast_expr *s = group_call(p, sl__p_tok(p, 0), "$SET");
	int cap = 0;
	if (!s || sl__p_expect_op(p, "("))
		return NULL;
	if (sl__p_accept_op(p, ")"))
		return s;
	do {
		if (push_arg(p, s, sl__p_expr(p), &cap))
			return NULL;
	} while (sl__p_accept_op(p, ","));
	return sl__p_expect_op(p, ")") ? NULL : s;
}

static sl_ast_expr *element(sl_parser *p);

/* ROLLUP / CUBE / GROUPING SETS: name, then '(' elements ')'. */
static sl_ast_expr *construct(sl_parser *p, const char *fname, int nwords)
{
	sl_ast_expr *c = group_call(p, sl__p_tok(p, 0), fname);
	int cap = 0;
	if (!c)
		return NULL;
	p->i += nwords;
	if (sl__p_expect_op(p, "("))
		return NULL;
	int sets = nwords == 2;
	do {
		sl_ast_expr *e = sets ? element(p)
		               : sl__p_is_op(p, 0, "(") && is_list(p) ? column_list(p) : sl__p_expr(p);
		if (push_arg(p, c, e, &cap))
			return NULL;
	} while (sl__p_accept_op(p, ","));
	return sl__p_expect_op(p, ")") ? NULL : c;
}

static sl_ast_expr *element(sl_parser *p)
{
	if (sl__p_enter(p))
		return NULL;
	sl_ast_expr *e;
	if (sl__p_is_kw(p, 0, "GROUPING") && sl__p_is_kw(p, 1, "SETS"))
		e = construct(p, "GROUPING SETS", 2);
	else if ((sl__p_is_kw(p, 0, "ROLLUP") || sl__p_is_kw(p, 0, "CUBE")) && sl__p_is_op(p, 1, "("))
		e = construct(p, sl__p_is_kw(p, 0, "ROLLUP") ? "ROLLUP" : "CUBE", 1);
	else if (sl__p_is_op(p, 0, "(") && is_list(p))
		e = column_list(p);
	else
		e = sl__p_expr(p);
	sl__p_leave(p);
	return e;
}

int sl__p_group_by(sl_parser *p, sl_ast_expr ***out, int *n)
{
	int cap = 0;
	do {
		sl_ast_expr **e = sl__p_push(p, out, n, &cap, sizeof(*e));
		if (!e || !(*e = element(p)))
			return -1;
	} while (sl__p_accept_op(p, ","));
	return 0;
}
