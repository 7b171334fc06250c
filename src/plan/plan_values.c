/*
 * plan_values.c - plans VALUES (..), (..) and SELECT without FROM.
 *
 * VALUES is a bounded source of constant rows (op_values.c): every value
 * is bound without columns in scope, cast to its column's common type (the
 * type UNION would give the column over all rows, Flink's rule) and folded
 * to a constant here, at planning time.  Its columns are named EXPR$0,
 * EXPR$1, ... (Flink's names) unless the query renames them (`AS t(a, b)`
 * in FROM, a view's column list, an INSERT's target).  The output is
 * append-only and has no time attribute.
 *
 * SELECT without FROM reads a one-row VALUES whose single column has a
 * name no SQL identifier can spell, so only the SELECT list's expressions
 * are visible; its projection is an ordinary Calc, evaluated when the job
 * runs (so `SELECT CURRENT_TIMESTAMP` is the time of the run).
 */
#include "plan_int.h"
#include "sluice.h"

#include <stdio.h>
#include <string.h>

/* Re-states the error in p->err (from a constructor, without a place) at
 * the node's position with a prefix; returns NULL. */
static void *restate(planner *p, const sl_ast_expr *e, const char *prefix)
{
	char m[SL_ERR_MAX];
	snprintf(m, sizeof(m), "%s", p->err->msg);
	int code = p->err->code ? p->err->code : SL_EPLAN;
	sl_err_clear(p->err); /* the first error would win */
	return sl__plan_error(p, e->line, e->col, code, "%s%s", prefix, m);
}

/* The common type of two column types (as UNION), or 0 with p->err set. */
static int common_type(planner *p, sl_type a, sl_type b, sl_type *out)
{
	sl_expr *x[2] = {sl_expr_col(p->a, 0, a), sl_expr_col(p->a, 1, b)};
	sl_expr *c = sl_expr_call(p->a, SL_FN_COALESCE, x, 2, NULL, 0, p->err);
	if (!c)
		return 0;
	*out = c->type;
	return 1;
}

/* Adds the Values operator of nrows x ncols constants as a rel. */
static rel *values_rel(planner *p, int nrows, int ncols, sl_value *vals, const sl_type *types,
                       const char **names, const char *label)
{
	rel *r = sl__rel_new(p, ncols);
	if (!r)
		return NULL;
	for (int c = 0; c < ncols; c++) {
		r->cols[c].name = names[c];
		r->cols[c].type = types[c];
	}
	sl_values_params vp = {nrows, ncols, vals};
	if (!sl__node_new(p, SL_OPK_VALUES, &vp, sizeof(vp), NULL, 0, NULL, r, label))
		return NULL;
	return r;
}

rel *sl__plan_values(planner *p, const sl_ast_query *q)
{
	int nr = q->nrows, nc = q->nvalues;
	if (nc <= 0)
		return sl__plan_error(p, q->line, q->col, SL_EPLAN, "VALUES: a row needs a value");
	rel *none = sl__rel_new(p, 0);
	scope s = {none, NULL, NULL};
	sl_expr **x = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)nr * (size_t)nc);
	sl_type *types = sl_arena_alloc(p->a, sizeof(sl_type) * (size_t)nc);
	const char **names = sl_arena_alloc(p->a, sizeof(char *) * (size_t)nc);
	sl_value *vals = sl_arena_alloc(p->a, sizeof(sl_value) * (size_t)nr * (size_t)nc);
	if (!none || !x || !types || !names || !vals)
		return sl__plan_error(p, q->line, q->col, SL_ENOMEM, "out of memory");
	for (int r = 0; r < nr; r++)
		for (int c = 0; c < nc; c++) {
			const sl_ast_expr *e = q->rows[r][c];
			sl_expr *b = sl__bind_expr(p, &s, e);
			if (!b)
				return NULL;
			x[(size_t)r * (size_t)nc + (size_t)c] = b;
			if (r == 0)
				types[c] = b->type;
			else if (!common_type(p, types[c], b->type, &types[c]))
				return restate(p, e, sl_arena_printf(p->a, "VALUES: column %d: ", c + 1));
		}
	for (int c = 0; c < nc; c++) {
		names[c] = sl_arena_printf(p->a, "EXPR$%d", c);
		sl_phys ph = sl_type_phys(types[c]);
		if (ph != SL_PHYS_I64 && ph != SL_PHYS_F64 && ph != SL_PHYS_I128 && ph != SL_PHYS_STR)
			return sl__plan_error(p, q->line, q->col, SL_ENOTSUP,
			                      "VALUES: column %d: values of this type are not supported",
			                      c + 1);
	}
	sl_buf lb;
	sl_buf_init(&lb);
	sl_buf_puts(&lb, "Values(tuples=[");
	char buf[256];
	for (int r = 0; r < nr; r++) {
		if (lb.len < 2000)
			sl_buf_puts(&lb, r ? ", [" : "[");
		for (int c = 0; c < nc; c++) {
			size_t i = (size_t)r * (size_t)nc + (size_t)c;
			const sl_ast_expr *e = q->rows[r][c];
			sl_expr *v = sl_expr_cast(p->a, x[i], types[c], p->err);
			if (!v) {
				sl_buf_deinit(&lb);
				return restate(p, e, "VALUES: ");
			}
			if (!sl_expr_is_const(v)) {
				sl_buf_deinit(&lb);
				return sl__plan_error(p, e->line, e->col, SL_ENOTSUP,
				                      "VALUES: only constant values are supported (use SELECT "
				                      "without FROM for other expressions)");
			}
			if (sl_expr_eval_const(v, p->a, &vals[i], p->err)) {
				sl_buf_deinit(&lb);
				return restate(p, e, "VALUES: ");
			}
			if (lb.len < 2000)
				sl_buf_printf(&lb, "%s%s", c ? ", " : "",
				              sl_expr_format(sl_expr_lit(p->a, types[c], vals[i]), NULL, buf,
				                             sizeof(buf)));
		}
		if (lb.len < 2000)
			sl_buf_putc(&lb, ']');
		else if (r == nr - 1)
			sl_buf_printf(&lb, ", ... %d rows", nr);
	}
	sl_buf_puts(&lb, "])");
	const char *label = sl_arena_strndup(p->a, lb.p, lb.len);
	sl_buf_deinit(&lb);
	return values_rel(p, nr, nc, vals, types, names, label);
}

rel *sl__plan_one_row(planner *p)
{
	static const char *names[1] = {"$values$"};
	sl_type t = sl_type_make(SL_T_INT);
	sl_value *v = sl_arena_calloc(p->a, sizeof(sl_value));
	if (!v)
		return sl__plan_error(p, 0, 0, SL_ENOMEM, "out of memory");
	return values_rel(p, 1, 1, v, &t, names, "Values(tuples=[[0]])");
}
