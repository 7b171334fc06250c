/*
 * bind_inlist.c - long chains of equalities bound as IN lists.
 *
 * Generated SQL writes set membership as `c = 1 OR c = 2 OR ... OR c = N`
 * (and `c <> 1 AND c <> 2 ...` for its negation).  Bound as written, every
 * comparison, constant and OR is a node of the compiled program with its
 * own batch-sized vector (about 9 KB each at 1024 rows): 50 000 ORs took
 * 1.4 GB.  The binder (bind.c, bind_binary) asks here first: an OR (AND)
 * node whose OR (AND) leaves number at least INLIST_MIN and are all
 * `c = literal` (`c <> literal`), either way round, over the same column c,
 * with literals of one kind (all integers, all decimals, all strings ...;
 * never NULL), is bound as `c IN (literals)` (`NOT (c IN (...))`), which
 * fn_arith.c evaluates as a sorted set.  The result is the same in
 * three-valued logic: TRUE when some literal equals c, NULL when c is NULL,
 * FALSE otherwise (no literal is NULL).  Anything else is left to the
 * ordinary binding.  The leaves are collected with an explicit stack, so
 * the shape of the tree (left-deep or balanced, parse_expr.c) does not
 * matter.
 */
#include "plan_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INLIST_MIN 16

/* The literal kind of `x` (a literal, or a negated numeric literal), 0 if
 * x is not one or is NULL. */
static int lit_kind(const sl_ast_expr *x)
{
	if (x->kind == SL_AX_UNARY && x->u.op.op == SL_AOP_NEG && x->u.op.a->kind == SL_AX_LITERAL) {
		int k = x->u.op.a->u.lit.kind;
		return k == SL_AL_INTEGER || k == SL_AL_DECIMAL ? k : 0;
	}
	if (x->kind != SL_AX_LITERAL || x->u.lit.kind == SL_AL_NULL)
		return 0;
	return x->u.lit.kind;
}

/* 1 when a and b name the same column the same way (a.b.c parts). */
static int same_col(const sl_ast_expr *a, const sl_ast_expr *b)
{
	if (a->kind != SL_AX_COLUMN || b->kind != SL_AX_COLUMN || a->u.name.n != b->u.name.n)
		return 0;
	for (int i = 0; i < a->u.name.n; i++)
		if (strcmp(a->u.name.parts[i].name, b->u.name.parts[i].name) ||
		    a->u.name.parts[i].quoted != b->u.name.parts[i].quoted)
			return 0;
	return 1;
}

/*
 * Collects the leaves of e's chain of `chain` operators into *lits (the
 * literal side of each `col cmp literal` leaf) and returns their count, or
 * 0 when some leaf does not have the form.  *col: the column (first leaf).
 */
static int collect(planner *p, const sl_ast_expr *e, sl_ast_op chain, sl_ast_op cmp,
                   const sl_ast_expr **col, const sl_ast_expr ***lits)
{
	int cap = 64, n = 0, sp = 0, scap = 64, kind = 0;
	const sl_ast_expr **out = malloc(sizeof(*out) * (size_t)cap);
	const sl_ast_expr **stack = malloc(sizeof(*stack) * (size_t)scap);
	*col = NULL;
	if (!out || !stack)
		goto no;
	stack[sp++] = e;
	while (sp > 0) {
		const sl_ast_expr *x = stack[--sp];
		if (x->kind == SL_AX_BINARY && x->u.op.op == chain) {
			if (sp + 2 > scap) {
				const sl_ast_expr **ns = realloc(stack, sizeof(*ns) * (size_t)(scap *= 2));
				if (!ns)
					goto no;
				stack = ns;
			}
			stack[sp++] = x->u.op.b; /* popped after a: leaves keep their order */
			stack[sp++] = x->u.op.a;
			continue;
		}
		if (x->kind != SL_AX_BINARY || x->u.op.op != cmp)
			goto no;
		const sl_ast_expr *c = x->u.op.a, *l = x->u.op.b;
		if (c->kind != SL_AX_COLUMN) {
			c = x->u.op.b;
			l = x->u.op.a;
		}
		int k = lit_kind(l);
		if (!k || (kind && k != kind) || (*col ? !same_col(*col, c) : c->kind != SL_AX_COLUMN))
			goto no;
		kind = k;
		*col = c;
		if (n == cap) {
			const sl_ast_expr **grown = realloc(out, sizeof(*grown) * (size_t)(cap *= 2));
			if (!grown)
				goto no;
			out = grown;
		}
		out[n++] = l;
	}
	free(stack);
	if (n < INLIST_MIN)
		goto none;
	*lits = sl_arena_alloc(p->a, sizeof(**lits) * (size_t)n);
	if (!*lits)
		goto none;
	memcpy(*lits, out, sizeof(**lits) * (size_t)n);
	free(out);
	return n;
no:
	free(stack);
none:
	free(out);
	return 0;
}

sl_expr *sl__bind_inlist(planner *p, const scope *s, const sl_ast_expr *e, int *done)
{
	*done = 0;
	if (e->kind != SL_AX_BINARY || (e->u.op.op != SL_AOP_OR && e->u.op.op != SL_AOP_AND))
		return NULL;
	int neg = e->u.op.op == SL_AOP_AND;
	const sl_ast_expr *col, **lits;
	int n = collect(p, e, e->u.op.op, neg ? SL_AOP_NE : SL_AOP_EQ, &col, &lits);
	if (n == 0)
		return NULL;
	*done = 1;
	sl_expr **args = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(n + 1));
	if (!args || !(args[0] = sl__bind_expr(p, s, col)))
		return NULL;
	for (int i = 0; i < n; i++)
		if (!(args[i + 1] = sl__bind_expr(p, s, lits[i])))
			return NULL;
	sl_expr *x = sl_expr_call(p->a, SL_FN_IN, args, n + 1, NULL, 0, p->err);
	if (x && neg)
		x = sl_expr_call(p->a, SL_FN_NOT, &x, 1, NULL, 0, p->err);
	if (!x && p->err->code && !p->err->line) { /* a type error: name the chain */
		char msg[SL_ERR_MAX];
		int code = p->err->code;
		snprintf(msg, sizeof(msg), "%s", p->err->msg);
		sl_err_clear(p->err);
		return sl__plan_error(p, e->line, e->col, code, "%s", msg);
	}
	if (!x)
		return NULL;
	x->line = e->line;
	x->pos = e->col;
	return x;
}
