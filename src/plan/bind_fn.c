/*
 * bind_fn.c - binds the built-in function calls whose SQL form is not a
 * plain `name(args)` mapping (bind.c handles those through
 * sl_fn_from_name):
 *
 *   IF(c, a, b)          -> CASE WHEN c THEN a ELSE b END
 *   IFNULL(a, b)         -> COALESCE(a, b) (exactly two arguments)
 *   JSON_VALUE / JSON_QUERY / JSON_EXISTS / JSON_OBJECT / JSON_ARRAY:
 *                           their KEYWORD clause arguments (normalized by
 *                           src/sql/parse_fn.c) become INT literals
 *                           (SL_JSON_* in expr.h), RETURNING the node type
 *   x IS [NOT] JSON kind -> IS JSON(x, kind) [negated]
 *   CURRENT_DATABASE()   -> 'default_database' (STRING NOT NULL; sluice has
 *                           one database, named as Flink's default)
 *
 * (Flink functions sluice lacks are refused by name in plan_unsup.c.)
 */
#include "plan_int.h"
#include "sluice.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* sl_expr_call with the SQL position of `at` on a type error. */
static sl_expr *fcall(planner *p, const sl_ast_expr *at, sl_fn fn, sl_expr **args, int n,
                      const sl_type *target)
{
	sl_expr *x = sl_expr_call(p->a, fn, args, n, target, 0, p->err);
	if (x && fn == SL_FN_CASE && x->type.id == SL_T_ROW) /* expr_compile.c cannot */
		return sl__plan_error(p, at->line, at->col, SL_ENOTSUP,
		                      "CASE returning a ROW is not supported");
	if (!x && p->err->code && !p->err->line) {
		char msg[SL_ERR_MAX];
		snprintf(msg, sizeof(msg), "%s", p->err->msg);
		int code = p->err->code;
		sl_err_clear(p->err);
		sl__plan_error(p, at->line, at->col, code, "%s", msg);
	}
	return x;
}

static sl_expr *int_lit(planner *p, int v)
{
	return sl_expr_lit_i64(p->a, sl_type_make(SL_T_INT), v);
}

/* The INT code of KEYWORD argument k among words[] (index = code). */
static sl_expr *kw_code(planner *p, const sl_ast_expr *kw, const char *const *words, int n)
{
	if (kw->kind == SL_AX_KEYWORD)
		for (int i = 0; i < n; i++)
			if (words[i] && !strcmp(kw->u.kw.word, words[i]))
				return int_lit(p, i);
	return sl__plan_error(p, kw->line, kw->col, SL_EPLAN, "unexpected JSON function clause");
}

static const char *const VALUE_BEH[] = {"NULL", "ERROR", "DEFAULT"};
static const char *const QUERY_BEH[] = {"NULL", "ERROR", NULL, "EMPTY_ARRAY", "EMPTY_OBJECT"};
static const char *const EXISTS_BEH[] = {NULL, "ERROR", NULL, NULL, NULL, "TRUE", "FALSE",
                                         "UNKNOWN"};
static const char *const WRAPPERS[] = {"WITHOUT", "CONDITIONAL", "UNCONDITIONAL"};
static const char *const ON_NULL[] = {"NULL", "ABSENT"};

/* The RETURNING type carried by the CAST(NULL AS t) argument. */
static int returning_type(planner *p, const sl_ast_expr *c, const char *fn, sl_type *t)
{
	if (c->kind != SL_AX_CAST || c->u.cast.type->kind != SL_ATY_SQL) {
		sl__plan_error(p, c->line, c->col, SL_ENOTSUP,
		               "%s ... RETURNING ARRAY, MAP or ROW is not supported", fn);
		return -1;
	}
	*t = c->u.cast.type->sql;
	t->notnull = 0;
	return 0;
}

static sl_expr *bind_json(planner *p, const scope *s, const sl_ast_expr *e, const char *f)
{
	int n = e->u.call.nargs;
	const sl_ast_expr *const *a = (const sl_ast_expr *const *)e->u.call.args;
	sl_expr **x = sl_arena_calloc(p->a, sizeof(sl_expr *) * (size_t)(n + 2));
	sl_type t;
	if (!x)
		return NULL;
	if (!strcmp(f, "JSON_VALUE")) {
		/* j, path, CAST(NULL AS t), KW, dflt, KW, dflt */
		if (n != 7 || returning_type(p, a[2], f, &t))
			return n != 7 ? sl__plan_error(p, e->line, e->col, SL_EPLAN, "bad JSON_VALUE call") : NULL;
		if (!(x[0] = sl__bind_expr(p, s, a[0])) || !(x[1] = sl__bind_expr(p, s, a[1])) ||
		    !(x[2] = kw_code(p, a[3], VALUE_BEH, 3)) || !(x[3] = sl__bind_expr(p, s, a[4])) ||
		    !(x[4] = kw_code(p, a[5], VALUE_BEH, 3)) || !(x[5] = sl__bind_expr(p, s, a[6])))
			return NULL;
		return fcall(p, e, SL_FN_JSON_VALUE, x, 6, &t);
	}
	if (!strcmp(f, "JSON_QUERY")) {
		/* j, path, CAST(NULL AS t), KW wrapper, KW, KW */
		if (n != 6 || returning_type(p, a[2], f, &t))
			return n != 6 ? sl__plan_error(p, e->line, e->col, SL_EPLAN, "bad JSON_QUERY call") : NULL;
		if (t.id != SL_T_VARCHAR && t.id != SL_T_CHAR)
			return sl__plan_error(p, a[2]->line, a[2]->col, SL_ENOTSUP,
			                      "JSON_QUERY ... RETURNING a type other than STRING is not supported");
		if (!(x[0] = sl__bind_expr(p, s, a[0])) || !(x[1] = sl__bind_expr(p, s, a[1])) ||
		    !(x[2] = kw_code(p, a[3], WRAPPERS, 3)) || !(x[3] = kw_code(p, a[4], QUERY_BEH, 5)) ||
		    !(x[4] = kw_code(p, a[5], QUERY_BEH, 5)))
			return NULL;
		return fcall(p, e, SL_FN_JSON_QUERY, x, 5, NULL);
	}
	if (!strcmp(f, "JSON_EXISTS")) {
		if (n != 3)
			return sl__plan_error(p, e->line, e->col, SL_EPLAN, "bad JSON_EXISTS call");
		if (!(x[0] = sl__bind_expr(p, s, a[0])) || !(x[1] = sl__bind_expr(p, s, a[1])) ||
		    !(x[2] = kw_code(p, a[2], EXISTS_BEH, 8)))
			return NULL;
		return fcall(p, e, SL_FN_JSON_EXISTS, x, 3, NULL);
	}
	/* JSON_OBJECT / JSON_ARRAY: KW on-null, values... */
	if (n < 1 || !(x[0] = kw_code(p, a[0], ON_NULL, 2)))
		return n < 1 ? sl__plan_error(p, e->line, e->col, SL_EPLAN, "bad %s call", f) : NULL;
	for (int i = 1; i < n; i++)
		if (!(x[i] = sl__bind_expr(p, s, a[i])))
			return NULL;
	return fcall(p, e, f[5] == 'O' ? SL_FN_JSON_OBJECT : SL_FN_JSON_ARRAY, x, n, NULL);
}

int sl__bind_fn_call(planner *p, const scope *s, const sl_ast_expr *e, sl_expr **out)
{
	const char *f = e->u.call.fname;
	int n = e->u.call.nargs;
	sl_expr *x[3];
	*out = NULL;
	if (!strcmp(f, "IF") || !strcmp(f, "IFNULL")) {
		int want = f[2] ? 2 : 3;
		if (n != want) {
			sl__plan_error(p, e->line, e->col, SL_EPLAN, "'%s' takes %d arguments, got %d", f,
			               want, n);
			return 1;
		}
		for (int i = 0; i < n; i++)
			if (!(x[i] = sl__bind_expr(p, s, e->u.call.args[i])))
				return 1;
		*out = fcall(p, e, want == 3 ? SL_FN_CASE : SL_FN_COALESCE, x, n, NULL);
		return 1;
	}
	if (!strcmp(f, "CURRENT_DATABASE")) { /* one database: Flink's default's name */
		if (n)
			sl__plan_error(p, e->line, e->col, SL_EPLAN, "'CURRENT_DATABASE' takes no arguments");
		else if ((*out = sl_expr_lit_str(p->a, "default_database", 16)))
			(*out)->type = sl_type_varchar(SL_STRING_LEN), (*out)->type.notnull = 1;
		return 1;
	}
	if (!strcmp(f, "JSON_VALUE") || !strcmp(f, "JSON_QUERY") || !strcmp(f, "JSON_EXISTS") ||
	    !strcmp(f, "JSON_OBJECT") || !strcmp(f, "JSON_ARRAY")) {
		*out = bind_json(p, s, e, f);
		return 1;
	}
	return 0;
}

sl_expr *sl__bind_is_json(planner *p, const sl_ast_expr *e, sl_expr *arg)
{
	static const char *const kinds[] = {"VALUE", "SCALAR", "ARRAY", "OBJECT"};
	sl_expr *x[2] = {arg, kw_code(p, e->u.is.b, kinds, 4)};
	if (!x[1])
		return NULL;
	return fcall(p, e, SL_FN_IS_JSON, x, 2, NULL);
}
