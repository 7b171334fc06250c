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
 *   TYPEOF(x [, force])  -> x's type as a STRING literal (Flink's summary
 *                           or serializable form)
 *
 * (Flink functions sluice lacks are refused by name in plan_unsup.c.)
 */
#include "plan_int.h"
#include "sluice.h"
#include "base/buf.h"

#include <string.h>
#include <strings.h>

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
		return sl__bind_call(p, e, SL_FN_JSON_VALUE, x, 6, &t);
	}
	if (!strcmp(f, "JSON_QUERY")) {
		/* j, path, CAST(NULL AS t), KW wrapper, KW, KW */
		if (n != 6 || returning_type(p, a[2], f, &t))
			return n != 6 ? sl__plan_error(p, e->line, e->col, SL_EPLAN, "bad JSON_QUERY call") : NULL;
		/* STRING, or ARRAY<STRING> (Flink 1.20, FLINK-35216) */
		if (t.id != SL_T_VARCHAR && t.id != SL_T_CHAR &&
		    !(t.id == SL_T_ARRAY && t.row && sl_type_is_string(sl_type_elem(t))))
			return sl__plan_error(p, a[2]->line, a[2]->col, SL_ENOTSUP,
			                      "JSON_QUERY ... RETURNING a type other than STRING or "
			                      "ARRAY<STRING> is not supported");
		if (!(x[0] = sl__bind_expr(p, s, a[0])) || !(x[1] = sl__bind_expr(p, s, a[1])) ||
		    !(x[2] = kw_code(p, a[3], WRAPPERS, 3)) || !(x[3] = kw_code(p, a[4], QUERY_BEH, 5)) ||
		    !(x[4] = kw_code(p, a[5], QUERY_BEH, 5)))
			return NULL;
		return sl__bind_call(p, e, SL_FN_JSON_QUERY, x, 5, t.id == SL_T_ARRAY ? &t : NULL);
	}
	if (!strcmp(f, "JSON_EXISTS")) {
		if (n != 3)
			return sl__plan_error(p, e->line, e->col, SL_EPLAN, "bad JSON_EXISTS call");
		if (!(x[0] = sl__bind_expr(p, s, a[0])) || !(x[1] = sl__bind_expr(p, s, a[1])) ||
		    !(x[2] = kw_code(p, a[2], EXISTS_BEH, 8)))
			return NULL;
		return sl__bind_call(p, e, SL_FN_JSON_EXISTS, x, 3, NULL);
	}
	/* JSON_OBJECT / JSON_ARRAY: KW on-null, values... */
	if (n < 1 || !(x[0] = kw_code(p, a[0], ON_NULL, 2)))
		return n < 1 ? sl__plan_error(p, e->line, e->col, SL_EPLAN, "bad %s call", f) : NULL;
	for (int i = 1; i < n; i++)
		if (!(x[i] = sl__bind_expr(p, s, a[i])))
			return NULL;
	return sl__bind_call(p, e, f[5] == 'O' ? SL_FN_JSON_OBJECT : SL_FN_JSON_ARRAY, x, n, NULL);
}

/* Flink's serializable form of t (LogicalType.asSerializableString): the
 * summary form (sl_type_format) except STRING, BYTES and TIMESTAMP_LTZ,
 * which are spelled out, also inside ROW / ARRAY / MAP. */
static void type_serializable(sl_type t, sl_buf *b)
{
	const char *nn = t.notnull ? " NOT NULL" : "";
	char tmp[512];
	if (t.id == SL_T_VARCHAR && t.length == SL_STRING_LEN)
		sl_buf_printf(b, "VARCHAR(%d)%s", SL_STRING_LEN, nn);
	else if (t.id == SL_T_VARBINARY && t.length == SL_STRING_LEN)
		sl_buf_printf(b, "VARBINARY(%d)%s", SL_STRING_LEN, nn);
	else if (t.id == SL_T_TIMESTAMP_LTZ)
		sl_buf_printf(b, "TIMESTAMP(%d) WITH LOCAL TIME ZONE%s", t.precision, nn);
	else if (t.id == SL_T_ROW && t.row) {
		sl_buf_puts(b, "ROW<");
		for (int i = 0; i < t.row->nfields; i++) {
			sl_buf_printf(b, "%s`%s` ", i ? ", " : "", t.row->fields[i].name);
			type_serializable(t.row->fields[i].type, b);
		}
		sl_buf_printf(b, ">%s", nn);
	} else if (sl_type_is_collection(t) && t.row) {
		sl_buf_puts(b, t.id == SL_T_ARRAY ? "ARRAY<" : "MAP<");
		type_serializable(t.row->fields[0].type, b);
		if (t.id == SL_T_MAP) {
			sl_buf_puts(b, ", ");
			type_serializable(t.row->fields[1].type, b);
		}
		sl_buf_printf(b, ">%s", nn);
	} else
		sl_buf_puts(b, sl_type_format(t, tmp, sizeof(tmp)));
}

/* TYPEOF(x [, force_serializable]) (Flink's TypeOfFunction): x's type as a
 * STRING constant, Flink's summary form (LogicalType.asSummaryString:
 * "INT NOT NULL", "STRING", "CHAR(3) NOT NULL", "DECIMAL(10, 2)") or, when
 * the BOOLEAN literal force_serializable is TRUE, the serializable one
 * ("VARCHAR(2147483647)").  x is bound (and type-checked) but never
 * evaluated, as in Flink, whose result depends on the type only. */
static sl_expr *bind_typeof(planner *p, const scope *s, const sl_ast_expr *e)
{
	int n = e->u.call.nargs;
	if (n < 1 || n > 2 || e->u.call.star)
		return sl__plan_error(p, e->line, e->col, SL_EPLAN,
		                      "TYPEOF takes one or two arguments: TYPEOF(x [, force_serializable])");
	sl_expr *x = sl__bind_expr(p, s, e->u.call.args[0]), *f = NULL;
	if (!x || (n == 2 && !(f = sl__bind_expr(p, s, e->u.call.args[1]))))
		return NULL;
	if (f && (f->kind != SL_EX_LIT || f->type.id != SL_T_BOOLEAN))
		return sl__plan_error(p, e->u.call.args[1]->line, e->u.call.args[1]->col, SL_EPLAN,
		                      "TYPEOF's force_serializable must be a BOOLEAN literal");
	sl_buf b;
	sl_buf_init(&b);
	char tmp[512];
	if (f && !f->lit.is_null && f->lit.v.i64)
		type_serializable(x->type, &b);
	else
		sl_buf_puts(&b, sl_type_format(x->type, tmp, sizeof(tmp)));
	sl_expr *r = b.p ? sl_expr_lit_str(p->a, b.p, (int64_t)b.len) : NULL;
	sl_buf_deinit(&b);
	if (!r)
		return sl__plan_error(p, e->line, e->col, SL_ENOMEM, "out of memory");
	r->type = sl_type_varchar(SL_STRING_LEN);
	return r;
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
		*out = sl__bind_call(p, e, want == 3 ? SL_FN_CASE : SL_FN_COALESCE, x, n, NULL);
		return 1;
	}
	if (!strcmp(f, "CURRENT_DATABASE")) { /* one database: Flink's default's name */
		if (n)
			sl__plan_error(p, e->line, e->col, SL_EPLAN, "'CURRENT_DATABASE' takes no arguments");
		else if ((*out = sl_expr_lit_str(p->a, "default_database", 16)))
			(*out)->type = sl_type_varchar(SL_STRING_LEN), (*out)->type.notnull = 1;
		return 1;
	}
	if (!strcmp(f, "TYPEOF")) {
		*out = bind_typeof(p, s, e);
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
	return sl__bind_call(p, e, SL_FN_IS_JSON, x, 2, NULL);
}
