/*
 * expr_type_row.c - the type rules of ROW values (Flink 1.20.3's): the
 * ROW(v1, ...) and (v1, v2, ...) constructors, and =, <>, IS [NOT]
 * DISTINCT FROM and IN between ROW values, which are rewritten into the
 * same comparisons of their fields (so no kernel compares whole rows).
 * The field access of a ROW value (FIELD) and CAST between ROW types are
 * expr_type.c's; the constructor's kernel is fn_row.c.
 */
#include "expr_int.h"

#include <stdio.h>

/* ROW(v1, ...): ROW<EXPR$0 t1, EXPR$1 t2, ...> NOT NULL, the fields typed
 * (and nullable or not) as their values, named as Calcite names them; a
 * NULL literal field is a nullable NULL-typed field, which nothing can
 * store: refused (CAST it). */
sl_expr *sl__type_row(sl_arena *a, sl_expr **args, int nargs, sl_err *err)
{
	sl_row_type *rt = sl_arena_calloc(a, sizeof(*rt));
	if (!rt || !(rt->fields = sl_arena_calloc(a, sizeof(sl_field) * (size_t)nargs)))
		return NULL;
	rt->nfields = nargs;
	for (int i = 0; i < nargs; i++) {
		if (args[i]->type.id == SL_T_NULL)
			return sl_err_set(err, SL_EPLAN, "ROW field %d is an untyped NULL: write "
			                  "CAST(NULL AS type)", i + 1), NULL;
		rt->fields[i].name = sl_arena_printf(a, "EXPR$%d", i);
		rt->fields[i].type = args[i]->type;
		if (!rt->fields[i].name)
			return NULL;
	}
	sl_type t = sl_type_make(SL_T_ROW);
	t.row = rt;
	t.notnull = 1;
	return sl__expr_mk_call(a, SL_FN_ROW, args, nargs, t);
}

static int is_row_ctor(const sl_expr *x)
{
	return x->kind == SL_EX_CALL && x->fn == SL_FN_ROW;
}

/* Field i of ROW value x: a ROW(...) constructor's argument, else FIELD. */
static sl_expr *row_field(sl_arena *a, sl_expr *x, int i, sl_err *err)
{
	return is_row_ctor(x) ? x->args[i] : sl_expr_call(a, SL_FN_FIELD, &x, 1, NULL, i, err);
}

/* f(x, y), or f(x) when y is NULL (IS NULL, NOT); NULL with err set, or
 * when x (or y of a binary f) is NULL already (a failed inner call). */
static sl_expr *call2(sl_arena *a, sl_fn f, sl_expr *x, sl_expr *y, sl_err *err)
{
	sl_expr *two[2] = {x, y};
	return x && (y || f == SL_FN_IS_NULL || f == SL_FN_NOT)
	           ? sl_expr_call(a, f, two, y ? 2 : 1, NULL, 0, err) : NULL;
}

/* acc join c (AND / OR), or c alone when acc is the first term; NULL
 * when c is (its call failed, err set) or the join fails. */
static sl_expr *fold(sl_arena *a, sl_fn join, sl_expr *acc, sl_expr *c, sl_err *err)
{
	return acc && c ? call2(a, join, acc, c, err) : c;
}

/*
 * x = y, x <> y, x IS [NOT] DISTINCT FROM y of two ROW values (the same
 * number of fields), field by field, as Flink 1.20.3 answers them:
 *   - = of two ROW(...) constructors: the AND of the fields' = (Calcite
 *     expands it: a NULL field makes it NULL unless another field differs);
 *   - = otherwise, and <> always: the rows compared as values, a NULL field
 *     equal to a NULL field (NULL when a row itself is NULL), <> its NOT
 *     (Flink: ROW(NULL, 1) = ROW(NULL, 1) over a column is TRUE and
 *     (k, v) <> ('a', 1) with k NULL TRUE);
 *   - IS [NOT] DISTINCT: the fields' IS [NOT] DISTINCT, AND / OR.
 * NULL with err set.
 */
sl_expr *sl__type_row_compare(sl_arena *a, sl_fn fn, sl_expr *x, sl_expr *y, sl_err *err)
{
	if (fn == SL_FN_NE || (fn == SL_FN_EQ && !(is_row_ctor(x) && is_row_ctor(y)))) {
		sl_expr *eq = sl__type_row_compare(a, SL_FN_IS_NOT_DISTINCT, x, y, err);
		if (eq && fn == SL_FN_NE)
			eq = call2(a, SL_FN_NOT, eq, NULL, err);
		if (!eq || (x->type.notnull && y->type.notnull))
			return eq;
		sl_expr *cond = call2(a, SL_FN_OR, call2(a, SL_FN_IS_NULL, x, NULL, err),
		                      call2(a, SL_FN_IS_NULL, y, NULL, err), err);
		sl_expr *null = sl_expr_lit_null(a, sl_type_make(SL_T_BOOLEAN));
		sl_expr *c3[3] = {cond, null, eq};
		return cond && null ? sl_expr_call(a, SL_FN_CASE, c3, 3, NULL, 0, err) : NULL;
	}
	int n = x->type.row ? x->type.row->nfields : 0;
	if (!y->type.row || y->type.row->nfields != n || n == 0) {
		char b1[128], b2[128];
		return sl_err_set(err, SL_EPLAN, "cannot compare %s and %s: rows of different "
		                  "lengths", sl__type_str(x->type, b1, sizeof(b1)),
		                  sl__type_str(y->type, b2, sizeof(b2))), NULL;
	}
	sl_fn join = fn == SL_FN_EQ || fn == SL_FN_IS_NOT_DISTINCT ? SL_FN_AND : SL_FN_OR;
	sl_expr *acc = NULL;
	for (int i = 0; i < n; i++) {
		sl_expr *pair[2] = {row_field(a, x, i, err), row_field(a, y, i, err)};
		if (!pair[0] || !pair[1])
			return NULL;
		if (!(acc = fold(a, join, acc, sl_expr_call(a, fn, pair, 2, NULL, 0, err), err)))
			return NULL;
	}
	return acc;
}

/* x IN (r1, ...) of ROW values: the OR of x = r_j (sl__type_row_compare). */
sl_expr *sl__type_row_in(sl_arena *a, sl_expr **args, int nargs, sl_err *err)
{
	sl_expr *acc = NULL;
	for (int j = 1; j < nargs; j++) {
		if (args[j]->type.id != SL_T_ROW) {
			char b[128];
			return sl_err_set(err, SL_EPLAN, "IN: a ROW value cannot equal %s",
			                  sl__type_str(args[j]->type, b, sizeof(b))), NULL;
		}
		if (!(acc = fold(a, SL_FN_OR, acc, sl__type_row_compare(a, SL_FN_EQ, args[0], args[j], err), err)))
			return NULL;
	}
	return acc;
}
