/*
 * bind_udf.c - binds calls of user-defined functions (CREATE FUNCTION,
 * udf.c): scalar ones to SL_FN_UDF expressions (src/expr/fn_udf.c),
 * aggregate ones to an sl_agg over their vtab (src/exec/agg_udf.c) whose
 * argument expressions the aggregate planners (plan_agg.c, plan_over.c)
 * place in input columns.
 *
 * The registration fixes the argument types.  An argument of another type
 * is cast when Flink would cast it implicitly for a function call: an
 * integer to a wider integer or to FLOAT / DOUBLE, a DECIMAL to FLOAT /
 * DOUBLE, FLOAT to DOUBLE, CHAR /
 * VARCHAR to STRING, BINARY / VARBINARY to BYTES, a TIMESTAMP(p) to
 * another precision of the same kind, NULL to anything.  Anything else
 * (a STRING for an INT, a DOUBLE for a BIGINT) is a planning error that
 * names the function and both signatures, as Flink's "Invalid function
 * call" does.  DISTINCT, FILTER and `*` are refused for scalar functions;
 * an aggregate takes FILTER, and DISTINCT when it has one argument (the
 * operators keep distinct values of one column).
 */
#include "plan_int.h"
#include "sluice.h"

#include <string.h>

static int int_rank(sl_type_id id)
{
	switch (id) {
	case SL_T_TINYINT: return 1;
	case SL_T_SMALLINT: return 2;
	case SL_T_INT: return 3;
	case SL_T_BIGINT: return 4;
	default: return 0;
	}
}

/* Whether a value of type from may be passed where `to` is declared. */
static int implicit_ok(sl_type from, sl_type to)
{
	sl_type_id f = (sl_type_id)from.id, t = (sl_type_id)to.id;
	if (f == SL_T_NULL || sl_type_equal(from, to))
		return 1;
	if (int_rank(f) && int_rank(t))
		return int_rank(f) <= int_rank(t);
	if ((int_rank(f) || f == SL_T_DECIMAL) && (t == SL_T_FLOAT || t == SL_T_DOUBLE))
		return 1;
	if (f == SL_T_FLOAT && t == SL_T_DOUBLE)
		return 1;
	if (sl_type_is_string(from) && t == SL_T_VARCHAR)
		return 1;
	if (sl_type_is_binary(from) && t == SL_T_VARBINARY)
		return 1;
	if (f == t && (f == SL_T_TIMESTAMP || f == SL_T_TIMESTAMP_LTZ))
		return 1;
	return f == t;
}

static const char *signature(planner *p, const char *name, const sl_type *t, int n,
                             sl_expr *const *args)
{
	const char *s = sl_arena_printf(p->a, "%s(", name);
	for (int i = 0; i < n; i++) {
		char tb[128];
		sl_type ty = args ? args[i]->type : t[i];
		ty.notnull = 0;
		s = sl_arena_printf(p->a, "%s%s%s", s, i ? ", " : "", sl_type_format(ty, tb, sizeof tb));
	}
	return sl_arena_printf(p->a, "%s)", s);
}

/* Binds the arguments of call e of u into args[0..n), cast to the
 * registration's types.  Returns 0 or SL_EPLAN (p->err set). */
static int bind_args(planner *p, const scope *s, const sl_ast_expr *e, const sl_func_def *u,
                     sl_expr **args)
{
	int n = e->u.call.nargs;
	for (int i = 0; i < n; i++)
		if (!(args[i] = sl__bind_expr(p, s, e->u.call.args[i])))
			return SL_EPLAN;
	int ok = n == u->nargs;
	for (int i = 0; ok && i < n; i++)
		ok = implicit_ok(args[i]->type, u->arg_types[i]);
	if (!ok) {
		sl__plan_error(p, e->line, e->col, SL_EPLAN,
		               "Invalid function call: %s; the user-defined function '%s' "
		               "(symbol '%s' in '%s') takes %s",
		               signature(p, u->name, NULL, n, args), u->name, u->symbol, u->path,
		               signature(p, u->name, u->arg_types, u->nargs, NULL));
		return SL_EPLAN;
	}
	for (int i = 0; i < n; i++) {
		sl_type t = u->arg_types[i];
		if (sl_type_equal(args[i]->type, t))
			continue;
		if (!(args[i] = sl_expr_cast(p->a, args[i], t, p->err))) {
			sl_err_prefix_at(p->err, e->line, e->col);
			return SL_EPLAN;
		}
	}
	return 0;
}

sl_expr *sl__bind_udf_call(planner *p, const scope *s, const sl_ast_expr *e, const sl_func_def *u)
{
	int n = e->u.call.nargs;
	if (e->u.call.distinct || e->u.call.filter || e->u.call.star)
		return sl__plan_error(p, e->line, e->col, SL_EPLAN,
		                      "'%s' is a user-defined scalar function: DISTINCT, FILTER and * "
		                      "are not allowed", u->name);
	sl_expr **args = sl_arena_calloc(p->a, sizeof(sl_expr *) * (size_t)(n + 1));
	if (!args)
		return sl__plan_error(p, e->line, e->col, SL_ENOMEM, "out of memory");
	if (bind_args(p, s, e, u, args))
		return NULL;
	sl_expr *x = sl_expr_udf(p->a, u->udf, u->name, u->result, args, n);
	if (!x)
		sl__plan_error(p, e->line, e->col, SL_ENOMEM, "out of memory");
	return x;
}

const sl_func_def *sl__udaf(planner *p, const sl_ast_expr *e)
{
	if (e->kind != SL_AX_CALL || !p->cat || sl_agg_find(e->u.call.fname))
		return NULL; /* a built-in aggregate's name is never a user's (udf.c) */
	const sl_func_def *u = sl_catalog_function(p->cat, e->u.call.fname);
	return u && u->agg_vt ? u : NULL;
}

sl_expr **sl__bind_udaf_call(planner *p, const scope *s, const sl_ast_expr *e,
                             const sl_func_def *u, sl_agg *a)
{
	int n = e->u.call.nargs;
	if (e->u.call.star)
		return sl__plan_error(p, e->line, e->col, SL_EPLAN, "'%s' is a user-defined "
		                      "aggregate function: * is not allowed", u->name);
	if (e->u.call.distinct && n != 1)
		return sl__plan_error(p, e->line, e->col, SL_ENOTSUP, "DISTINCT is supported for "
		                      "user-defined aggregate functions of one argument only ('%s' "
		                      "is called with %d)", u->name, n);
	sl_expr **args = sl_arena_calloc(p->a, sizeof(sl_expr *) * (size_t)(n + 1));
	if (!args)
		return sl__plan_error(p, e->line, e->col, SL_ENOMEM, "out of memory");
	if (bind_args(p, s, e, u, args))
		return NULL;
	memset(a, 0, sizeof(*a));
	a->vt = u->agg_vt;
	a->out_type = u->result;
	a->out_type.notnull = 0;
	a->arg_type = n ? args[0]->type : sl_type_make(SL_T_BIGINT);
	a->distinct = e->u.call.distinct;
	a->nargs = n;
	a->arg_col = a->filter_col = -1;
	for (int i = 0; i < SL_AGG_MAX_ARGS; i++)
		a->arg_cols[i] = -1;
	a->line = e->line;
	a->col = e->col;
	return args;
}
