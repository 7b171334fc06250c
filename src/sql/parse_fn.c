/*
 * parse_fn.c - recursive-descent parser, part 5: the arguments of the
 * built-in functions with SQL-standard keyword syntax that Flink accepts,
 * and the JSON predicate.
 *
 * Each form becomes a generic CALL node whose clauses are KEYWORD
 * arguments (ast.h lists the normalizations):
 *   OVERLAY(s PLACING r FROM p [FOR n])      -> OVERLAY(s, r, p [, n])
 *   JSON_EXISTS(j, path [{TRUE|FALSE|UNKNOWN|ERROR} ON ERROR])
 *                                            -> JSON_EXISTS(j, path, KW)
 *   JSON_VALUE(j, path [RETURNING t] [{NULL|ERROR|DEFAULT e} ON EMPTY]
 *              [{NULL|ERROR|DEFAULT e} ON ERROR])
 *     -> JSON_VALUE(j, path, CAST(NULL AS t), KW, e|NULL, KW, e|NULL)
 *        (t defaults to STRING; a missing clause is NULL ON ...)
 *   JSON_QUERY(j, path [RETURNING t] [{WITHOUT|WITH [CONDITIONAL|
 *              UNCONDITIONAL]} [ARRAY] WRAPPER] [{NULL|EMPTY ARRAY|EMPTY
 *              OBJECT|ERROR} ON EMPTY] [... ON ERROR])
 *     -> JSON_QUERY(j, path, CAST(NULL AS t), KW wrapper, KW, KW)
 *        (keywords WITHOUT / CONDITIONAL / UNCONDITIONAL, NULL / ERROR /
 *        EMPTY_ARRAY / EMPTY_OBJECT)
 *   JSON_OBJECT([[KEY] k VALUE v, ...] [{NULL|ABSENT} ON NULL])
 *                                            -> JSON_OBJECT(KW, k1, v1, ...)
 *   JSON_ARRAY([v, ...] [{NULL|ABSENT} ON NULL]) -> JSON_ARRAY(KW, v1, ...)
 *   x IS [NOT] JSON [VALUE|SCALAR|ARRAY|OBJECT] -> IS node, what = JSON,
 *     b = KW kind (VALUE by default)
 *
 * The JSON aggregates are rewritten here onto LISTAGG, so that grouping,
 * windows, FILTER and retraction are LISTAGG's (sl__p_json_agg):
 *   JSON_ARRAYAGG(v [{NULL|ABSENT} ON NULL]) [FILTER (WHERE c)]
 *     -> $JSON_AGG(LISTAGG(JSON_ARRAY(KW, v), '\n') [FILTER (WHERE c)], 0)
 *   JSON_OBJECTAGG([KEY] k VALUE v [{NULL|ABSENT} ON NULL]) [FILTER ...]
 *     -> $JSON_AGG(LISTAGG(JSON_OBJECT(KW, k, v), '\n') [FILTER ...], 1)
 * (ABSENT ON NULL is JSON_ARRAYAGG's default, NULL ON NULL
 * JSON_OBJECTAGG's, as in Flink; $JSON_AGG joins the one-element items,
 * fn_json.c).  Over an OVER window they are refused, as Flink refuses them.
 */
#include "parse_int.h"
#include "sluice.h"

#include <string.h>

static sl_ast_expr *kw_node(sl_parser *p, const sl_token *t, const char *word)
{
	sl_ast_expr *e = sl__p_alloc(p, sizeof(*e));
	if (!e)
		return NULL;
	e->kind = SL_AX_KEYWORD;
	e->line = t->line;
	e->col = t->col;
	e->u.kw.word = word;
	return e;
}

static int add(sl_parser *p, sl_ast_expr *c, sl_ast_expr *arg, int *cap)
{
	sl_ast_expr **slot;
	if (!arg)
		return -1;
	if (!(slot = sl__p_push(p, &c->u.call.args, &c->u.call.nargs, cap, sizeof(*slot))))
		return -1;
	*slot = arg;
	return 0;
}

static sl_ast_expr *null_lit(sl_parser *p, const sl_token *t)
{
	sl_ast_expr *e = sl__p_alloc(p, sizeof(*e));
	if (!e)
		return NULL;
	e->kind = SL_AX_LITERAL;
	e->line = t->line;
	e->col = t->col;
	e->u.lit.kind = SL_AL_NULL;
	e->u.lit.text = "NULL";
	return e;
}

/* The first of words[] at the current token (consumed), or NULL. */
static const char *accept_one(sl_parser *p, const char *const *words)
{
	for (int k = 0; words[k]; k++)
		if (sl__p_accept_kw(p, words[k]))
			return words[k];
	return NULL;
}

/* OVERLAY(s PLACING r FROM p [FOR n]) */
static int overlay_args(sl_parser *p, sl_ast_expr *c, int *cap)
{
	if (add(p, c, sl__p_expr(p), cap))
		return -1;
	if (!sl__p_accept_kw(p, "PLACING")) { /* OVERLAY(s, r, p [, n]) */
		while (sl__p_accept_op(p, ","))
			if (add(p, c, sl__p_expr(p), cap))
				return -1;
		return 0;
	}
	if (add(p, c, sl__p_expr(p), cap) || sl__p_expect_kw(p, "FROM") || add(p, c, sl__p_expr(p), cap))
		return -1;
	if (sl__p_accept_kw(p, "FOR") && add(p, c, sl__p_expr(p), cap))
		return -1;
	return 0;
}

/* [RETURNING type] -> CAST(NULL AS type) (STRING when absent). */
static int returning(sl_parser *p, sl_ast_expr *c, const sl_token *t, int *cap)
{
	sl_ast_expr *e = sl__p_alloc(p, sizeof(*e));
	if (!e)
		return -1;
	e->kind = SL_AX_CAST;
	e->line = t->line;
	e->col = t->col;
	if (!(e->u.cast.a = null_lit(p, t)))
		return -1;
	if (sl__p_accept_kw(p, "RETURNING")) {
		if (!(e->u.cast.type = sl__p_type(p)))
			return -1;
		/* `RETURNING INT NULL ON EMPTY`: the NULL the type took is the clause's */
		if (sl__p_is_kw(p, 0, "ON") && p->i > 0 && p->t[p->i - 1].type == SL_TK_IDENT &&
		    sl__p_is_kw(p, -1, "NULL"))
			p->i--;
	} else {
		if (!(e->u.cast.type = sl__p_alloc(p, sizeof(sl_ast_type))))
			return -1;
		e->u.cast.type->sql = sl_type_varchar(SL_STRING_LEN);
	}
	return add(p, c, e, cap);
}

/* One `behaviour ON EMPTY|ERROR` clause of JSON_VALUE / JSON_QUERY.
 * beh[0] / beh[1]: ON EMPTY / ON ERROR behaviour nodes, dflt[] their
 * DEFAULT expressions.  Returns 1 parsed, 0 none here, -1 error. */
static int on_clause(sl_parser *p, int query, sl_ast_expr **beh, sl_ast_expr **dflt)
{
	static const char *const vwords[] = {"NULL", "ERROR", "DEFAULT", NULL};
	static const char *const qwords[] = {"NULL", "ERROR", "EMPTY", NULL};
	const sl_token *t = sl__p_tok(p, 0);
	const char *w = accept_one(p, query ? qwords : vwords);
	sl_ast_expr *d = NULL;
	if (!w)
		return 0;
	if (!strcmp(w, "DEFAULT") && !(d = sl__p_expr(p)))
		return -1;
	if (!strcmp(w, "EMPTY")) {
		if (sl__p_accept_kw(p, "ARRAY"))
			w = "EMPTY_ARRAY";
		else if (sl__p_accept_kw(p, "OBJECT"))
			w = "EMPTY_OBJECT";
		else
			return sl__p_error(p, "ARRAY or OBJECT after EMPTY");
	}
	if (sl__p_expect_kw(p, "ON"))
		return -1;
	int k = sl__p_accept_kw(p, "EMPTY") ? 0 : sl__p_accept_kw(p, "ERROR") ? 1 : -1;
	if (k < 0)
		return sl__p_error(p, "EMPTY or ERROR after ON");
	if (!(beh[k] = kw_node(p, t, w)))
		return -1;
	dflt[k] = d;
	return 1;
}

static int value_query_args(sl_parser *p, sl_ast_expr *c, const sl_token *t, int query, int *cap)
{
	sl_ast_expr *beh[2] = {NULL, NULL}, *dflt[2] = {NULL, NULL}, *wrap = NULL;
	int r;
	if (add(p, c, sl__p_expr(p), cap) || sl__p_expect_op(p, ",") || add(p, c, sl__p_expr(p), cap) ||
	    returning(p, c, t, cap))
		return -1;
	if (query && (sl__p_is_kw(p, 0, "WITHOUT") || sl__p_is_kw(p, 0, "WITH"))) {
		const sl_token *wt = sl__p_tok(p, 0);
		const char *w = "WITHOUT";
		if (sl__p_accept_kw(p, "WITH"))
			w = sl__p_accept_kw(p, "CONDITIONAL") ? "CONDITIONAL"
			  : (sl__p_accept_kw(p, "UNCONDITIONAL"), "UNCONDITIONAL");
		else
			p->i++;
		sl__p_accept_kw(p, "ARRAY");
		if (sl__p_expect_kw(p, "WRAPPER") || !(wrap = kw_node(p, wt, w)))
			return -1;
	}
	while ((r = on_clause(p, query, beh, dflt)) > 0)
		;
	if (r < 0)
		return -1;
	if (query) {
		if (!wrap && !(wrap = kw_node(p, t, "WITHOUT")))
			return -1;
		if (add(p, c, wrap, cap))
			return -1;
	}
	for (int k = 0; k < 2; k++) {
		if (!beh[k] && !(beh[k] = kw_node(p, t, "NULL")))
			return -1;
		if (add(p, c, beh[k], cap))
			return -1;
		if (!query && add(p, c, dflt[k] ? dflt[k] : null_lit(p, t), cap))
			return -1;
	}
	return 0;
}

static int exists_args(sl_parser *p, sl_ast_expr *c, const sl_token *t, int *cap)
{
	static const char *const words[] = {"TRUE", "FALSE", "UNKNOWN", "ERROR", NULL};
	if (add(p, c, sl__p_expr(p), cap) || sl__p_expect_op(p, ",") || add(p, c, sl__p_expr(p), cap))
		return -1;
	const sl_token *wt = sl__p_tok(p, 0);
	const char *w = accept_one(p, words);
	if (w && (sl__p_expect_kw(p, "ON") || sl__p_expect_kw(p, "ERROR")))
		return -1;
	return add(p, c, kw_node(p, w ? wt : t, w ? w : "FALSE"), cap);
}

/* [{NULL|ABSENT} ON NULL] at the current token: 1 parsed, 0 not, -1 error. */
static int on_null(sl_parser *p, const char **w)
{
	if (!((sl__p_is_kw(p, 0, "NULL") || sl__p_is_kw(p, 0, "ABSENT")) && sl__p_is_kw(p, 1, "ON")))
		return 0;
	*w = sl__p_is_kw(p, 0, "NULL") ? "NULL" : "ABSENT";
	p->i += 2;
	return sl__p_expect_kw(p, "NULL") ? -1 : 1;
}

/* One entry of a JSON constructor or aggregate: "[KEY] k VALUE v" (k and v
 * added to c) when obj, else the value v alone. */
static int entry(sl_parser *p, sl_ast_expr *c, int obj, int *cap)
{
	if (obj) {
		if (sl__p_is_kw(p, 0, "KEY") && !sl__p_is_kw(p, 1, "VALUE"))
			p->i++;
		if (add(p, c, sl__p_expr(p), cap) || sl__p_expect_kw(p, "VALUE"))
			return -1;
	}
	return add(p, c, sl__p_expr(p), cap);
}

static int ctor_args(sl_parser *p, sl_ast_expr *c, const sl_token *t, int obj, int *cap)
{
	const char *w = obj ? "NULL" : "ABSENT";
	sl_ast_expr *mode = kw_node(p, t, w);
	int r;
	if (add(p, c, mode, cap))
		return -1;
	while (!sl__p_is_op(p, 0, ")")) {
		if ((r = on_null(p, &w)) < 0)
			return -1;
		if (r) {
			mode->u.kw.word = w;
			break;
		}
		if (c->u.call.nargs > 1 && sl__p_expect_op(p, ","))
			return -1;
		if (entry(p, c, obj, cap))
			return -1;
	}
	return 0;
}

/* JSON_ARRAYAGG(v [ON NULL]) / JSON_OBJECTAGG([KEY] k VALUE v [ON NULL]):
 * (KW on-null, [k,] v), as one entry of ctor_args. */
static int agg_args(sl_parser *p, sl_ast_expr *c, const sl_token *t, int obj, int *cap)
{
	const char *w = obj ? "NULL" : "ABSENT";
	sl_ast_expr *mode = kw_node(p, t, w);
	if (add(p, c, mode, cap))
		return -1;
	if (entry(p, c, obj, cap))
		return -1;
	int r = on_null(p, &w);
	if (r > 0)
		mode->u.kw.word = w;
	return r < 0 ? -1 : 0;
}

static sl_ast_expr *call_node(sl_parser *p, const sl_ast_expr *at, const char *name,
                              sl_ast_expr **args, int n)
{
	sl_ast_expr *e = sl__p_alloc(p, sizeof(*e));
	sl_ast_expr **a = sl__p_alloc(p, sizeof(*a) * (size_t)n);
	if (!e || !a)
		return NULL;
	e->kind = SL_AX_CALL;
	e->line = at->line;
	e->col = at->col;
	e->u.call.fname = name;
	e->u.call.name.n = 1;
	e->u.call.name.parts = sl__p_alloc(p, sizeof(*e->u.call.name.parts));
	if (!e->u.call.name.parts)
		return NULL;
	e->u.call.name.parts[0].name = name;
	memcpy(a, args, sizeof(*a) * (size_t)n);
	e->u.call.args = a;
	e->u.call.nargs = n;
	return e;
}

static sl_ast_expr *lit_node(sl_parser *p, const sl_ast_expr *at, int kind, const char *text)
{
	sl_ast_expr *e = sl__p_alloc(p, sizeof(*e));
	if (!e)
		return NULL;
	e->kind = SL_AX_LITERAL;
	e->line = at->line;
	e->col = at->col;
	e->u.lit.kind = kind;
	e->u.lit.text = text;
	return e;
}

/* c, or the rewrite of a JSON_ARRAYAGG / JSON_OBJECTAGG call (the header);
 * NULL on error. */
sl_ast_expr *sl__p_json_agg(sl_parser *p, sl_ast_expr *c, const sl_token *t)
{
	const char *f = c->u.call.fname;
	int obj = !strcmp(f, "JSON_OBJECTAGG");
	if (!obj && strcmp(f, "JSON_ARRAYAGG"))
		return c;
	if (c->u.call.over) {
		sl__p_error_at(p, t, SL_ENOTSUP, obj ? "JSON_OBJECTAGG is not supported in OVER windows "
		               "(as in Flink)" : "JSON_ARRAYAGG is not supported in OVER windows (as in Flink)");
		return NULL;
	}
	sl_ast_expr *item = call_node(p, c, obj ? "JSON_OBJECT" : "JSON_ARRAY", c->u.call.args,
	                              c->u.call.nargs);
	sl_ast_expr *la[2] = {item, lit_node(p, c, SL_AL_STRING, "\n")};
	if (!item || !la[1])
		return NULL;
	sl_ast_expr *agg = call_node(p, c, "LISTAGG", la, 2);
	if (!agg)
		return NULL;
	agg->u.call.filter = c->u.call.filter;
	sl_ast_expr *ra[2] = {agg, lit_node(p, c, SL_AL_INTEGER, obj ? "1" : "0")};
	return ra[1] ? call_node(p, c, "$JSON_AGG", ra, 2) : NULL;
}

int sl__p_fn_args(sl_parser *p, sl_ast_expr *c, const sl_token *t, int *cap)
{
	const char *f = c->u.call.fname;
	int r;
	if (!strcmp(f, "OVERLAY"))
		r = overlay_args(p, c, cap);
	else if (!strcmp(f, "JSON_VALUE") || !strcmp(f, "JSON_QUERY"))
		r = value_query_args(p, c, t, f[5] == 'Q', cap);
	else if (!strcmp(f, "JSON_EXISTS"))
		r = exists_args(p, c, t, cap);
	else if (!strcmp(f, "JSON_OBJECT") || !strcmp(f, "JSON_ARRAY"))
		r = ctor_args(p, c, t, f[5] == 'O', cap);
	else if (!strcmp(f, "JSON_OBJECTAGG") || !strcmp(f, "JSON_ARRAYAGG"))
		r = agg_args(p, c, t, f[5] == 'O', cap);
	else
		return 0;
	return r < 0 ? -1 : 1;
}

sl_ast_expr *sl__p_json_kind(sl_parser *p)
{
	static const char *const words[] = {"VALUE", "SCALAR", "ARRAY", "OBJECT", NULL};
	const sl_token *t = sl__p_tok(p, 0);
	const char *w = accept_one(p, words);
	return kw_node(p, t, w ? w : "VALUE");
}
