/*
 * parse_expr.c - recursive-descent parser, part 4: expressions.
 *
 * Precedence, lowest first (one function per level):
 *   OR < AND < NOT < comparison / IS / BETWEEN / IN / LIKE / OVERLAPS
 *      < + - || < * / % < unary - + < postfix ([i], .field) < primary
 * Special syntaxes (EXTRACT, TRIM, SUBSTRING FROM, FLOOR TO, POSITION IN,
 * TIMESTAMPADD units, CURRENT_TIMESTAMP ...) become generic CALL nodes; the
 * normalizations are listed in ast.h.  Recursion goes through sl__p_enter
 * at every level that can nest (parentheses, NOT, unary minus), so depth is
 * bounded.  Every finished node gets its tree height (sl__p_fix,
 * parse_limits.c), bounded too; long AND / OR chains are built balanced.
 */
#include "parse_int.h"
#include "sluice.h"

#include <string.h>
#include <strings.h>

static sl_ast_expr *add_expr(sl_parser *p);
static sl_ast_expr *unary(sl_parser *p);
static sl_ast_expr *and_expr(sl_parser *p);

static sl_ast_expr *node(sl_parser *p, sl_ast_expr_kind kind, const sl_token *t)
{
	sl_ast_expr *e = sl__p_alloc(p, sizeof(*e));
	if (!e)
		return NULL;
	e->kind = kind;
	e->line = t->line;
	e->col = t->col;
	return e;
}

static sl_ast_expr *binary(sl_parser *p, const sl_token *t, sl_ast_op op, sl_ast_expr *a, sl_ast_expr *b)
{
	sl_ast_expr *e = node(p, op == SL_AOP_NOT || op == SL_AOP_NEG ? SL_AX_UNARY : SL_AX_BINARY, t);
	if (!e)
		return NULL;
	e->line = a && op != SL_AOP_NOT && op != SL_AOP_NEG ? a->line : t->line;
	e->col = a && op != SL_AOP_NOT && op != SL_AOP_NEG ? a->col : t->col;
	e->u.op.op = op;
	e->u.op.a = a;
	e->u.op.b = b;
	return sl__p_fix(p, e);
}

/* A CALL node named fname with room for args added by add_arg. */
static sl_ast_expr *call_node(sl_parser *p, const sl_token *t, const char *fname)
{
	sl_ast_expr *e = node(p, SL_AX_CALL, t);
	if (!e || !(e->u.call.name.parts = sl__p_alloc(p, sizeof(sl_ast_ident))))
		return NULL;
	e->u.call.name.n = 1;
	e->u.call.name.parts[0].name = fname;
	e->u.call.name.parts[0].line = t->line;
	e->u.call.name.parts[0].col = t->col;
	e->u.call.fname = fname;
	return e;
}

static int add_arg(sl_parser *p, sl_ast_expr *call, sl_ast_expr *arg, int *cap)
{
	sl_ast_expr **slot;
	if (!arg)
		return -1;
	slot = sl__p_push(p, &call->u.call.args, &call->u.call.nargs, cap, sizeof(*slot));
	if (!slot)
		return -1;
	*slot = arg;
	return 0;
}

static const struct { const char *w; sl_ast_unit u; } units[] = {
	{"YEAR", SL_AU_YEAR}, {"YEARS", SL_AU_YEAR}, {"QUARTER", SL_AU_QUARTER},
	{"QUARTERS", SL_AU_QUARTER}, {"MONTH", SL_AU_MONTH}, {"MONTHS", SL_AU_MONTH},
	{"WEEK", SL_AU_WEEK}, {"WEEKS", SL_AU_WEEK}, {"DAY", SL_AU_DAY}, {"DAYS", SL_AU_DAY},
	{"HOUR", SL_AU_HOUR}, {"HOURS", SL_AU_HOUR}, {"MINUTE", SL_AU_MINUTE},
	{"MINUTES", SL_AU_MINUTE}, {"SECOND", SL_AU_SECOND}, {"SECONDS", SL_AU_SECOND},
	{"MILLISECOND", SL_AU_MILLISECOND}, {"MILLISECONDS", SL_AU_MILLISECOND},
	{"MICROSECOND", SL_AU_MICROSECOND}, {"MICROSECONDS", SL_AU_MICROSECOND},
	{"NANOSECOND", SL_AU_NANOSECOND}, {"NANOSECONDS", SL_AU_NANOSECOND},
	{"DOW", SL_AU_DOW}, {"DOY", SL_AU_DOY}, {"ISODOW", SL_AU_ISODOW},
	{"ISOYEAR", SL_AU_ISOYEAR}, {"EPOCH", SL_AU_EPOCH}, {"DECADE", SL_AU_DECADE},
	{"CENTURY", SL_AU_CENTURY}, {"MILLENNIUM", SL_AU_MILLENNIUM},
};

sl_ast_unit sl__p_unit_word(sl_parser *p, int k)
{
	for (size_t j = 0; j < sizeof(units) / sizeof(units[0]); j++)
		if (sl__p_is_kw(p, k, units[j].w))
			return units[j].u;
	return SL_AU_NONE;
}

const char *sl_ast_unit_name(sl_ast_unit u)
{
	for (size_t j = 0; j < sizeof(units) / sizeof(units[0]); j++)
		if (units[j].u == u)
			return units[j].w;
	return "";
}

/* A time-unit keyword argument (EXTRACT, FLOOR TO, TIMESTAMPADD). */
static sl_ast_expr *unit_arg(sl_parser *p)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_unit u = sl__p_unit_word(p, 0);
	sl_ast_expr *e;
	if (u == SL_AU_NONE) {
		sl__p_error(p, "time unit (YEAR, MONTH, DAY, HOUR, MINUTE, SECOND, ...)");
		return NULL;
	}
	if (!(e = node(p, SL_AX_KEYWORD, t)))
		return NULL;
	e->u.kw.unit = u;
	e->u.kw.word = sl_ast_unit_name(u);
	p->i++;
	return e;
}

/* Optional "(n)" precision after an interval unit. */
static int skip_precision(sl_parser *p)
{
	if (!sl__p_accept_op(p, "("))
		return 0;
	if (sl__p_tok(p, 0)->type != SL_TK_INTEGER)
		return sl__p_error(p, "precision");
	p->i++;
	if (sl__p_accept_op(p, ","))
		if (sl__p_tok(p, 0)->type != SL_TK_INTEGER || (p->i++, 0))
			return sl__p_error(p, "precision");
	return sl__p_expect_op(p, ")");
}

/* INTERVAL literal, at the INTERVAL keyword. */
static sl_ast_expr *p_interval(sl_parser *p)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_expr *e = node(p, SL_AX_LITERAL, t);
	int neg = 0;
	if (!e || sl__p_expect_kw(p, "INTERVAL"))
		return NULL;
	e->u.lit.kind = SL_AL_INTERVAL;
	if (sl__p_accept_op(p, "-"))
		neg = 1;
	else
		sl__p_accept_op(p, "+");
	const sl_token *v = sl__p_tok(p, 0);
	if (v->type == SL_TK_STRING)
		e->u.lit.text = sl__p_unquote(p, v);
	else if (v->type == SL_TK_INTEGER || v->type == SL_TK_DECIMAL)
		e->u.lit.text = sl__p_text(p, v);
	else
		return sl__p_error(p, "interval string such as '5'"), NULL;
	if (!e->u.lit.text)
		return NULL;
	p->i++;
	if (neg && !(e->u.lit.text = sl_arena_printf(p->a, "-%s", e->u.lit.text)))
		return sl_err_set(p->err, SL_ENOMEM, "parser: out of memory"), NULL;
	if ((e->u.lit.unit = sl__p_unit_word(p, 0)) == SL_AU_NONE)
		return sl__p_error(p, "interval unit (SECOND, MINUTE, HOUR, DAY, MONTH, YEAR)"), NULL;
	p->i++;
	if (skip_precision(p))
		return NULL;
	if (sl__p_accept_kw(p, "TO")) {
		if ((e->u.lit.unit2 = sl__p_unit_word(p, 0)) == SL_AU_NONE)
			return sl__p_error(p, "interval unit after TO"), NULL;
		p->i++;
		if (skip_precision(p))
			return NULL;
	}
	return e;
}

/* DATE '..', TIME '..', TIMESTAMP '..', TIMESTAMP WITH LOCAL TIME ZONE '..';
 * NULL without error when the keyword is not followed by a string. */
static sl_ast_expr *typed_literal(sl_parser *p, int *matched)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_lit_kind kind;
	int skip = 1;
	*matched = 1;
	if (sl__p_is_kw(p, 0, "DATE"))
		kind = SL_AL_DATE;
	else if (sl__p_is_kw(p, 0, "TIME"))
		kind = SL_AL_TIME;
	else if (sl__p_is_kw(p, 0, "TIMESTAMP") && sl__p_is_kw(p, 1, "WITH") &&
	         sl__p_is_kw(p, 2, "LOCAL"))
		kind = SL_AL_TIMESTAMP_LTZ, skip = 5;
	else if (sl__p_is_kw(p, 0, "TIMESTAMP_LTZ"))
		kind = SL_AL_TIMESTAMP_LTZ;
	else
		kind = SL_AL_TIMESTAMP;
	if (sl__p_tok(p, skip)->type != SL_TK_STRING) {
		*matched = 0;
		return NULL;
	}
	if (skip == 5 && (!sl__p_is_kw(p, 3, "TIME") || !sl__p_is_kw(p, 4, "ZONE"))) {
		*matched = 0;
		return NULL;
	}
	sl_ast_expr *e = node(p, SL_AX_LITERAL, t);
	if (!e)
		return NULL;
	p->i += skip;
	e->u.lit.kind = kind;
	if (!(e->u.lit.text = sl__p_unquote(p, sl__p_tok(p, 0))))
		return NULL;
	p->i++;
	return e;
}

static sl_ast_expr *literal(sl_parser *p, sl_ast_lit_kind kind)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_expr *e = node(p, SL_AX_LITERAL, t);
	if (!e)
		return NULL;
	e->u.lit.kind = kind;
	if (kind == SL_AL_STRING || kind == SL_AL_BINARY)
		e->u.lit.text = sl__p_unquote(p, t);
	else if (kind == SL_AL_NULL)
		e->u.lit.text = "NULL";
	else if (kind == SL_AL_BOOL)
		e->u.lit.text = (e->u.lit.bval = (uint8_t)sl__p_is_kw(p, 0, "TRUE")) ? "TRUE" : "FALSE";
	else
		e->u.lit.text = sl__p_text(p, t);
	if (!e->u.lit.text)
		return NULL;
	p->i++;
	/* adjacent string literals concatenate: 'a' 'b' */
	while (kind == SL_AL_STRING && sl__p_tok(p, 0)->type == SL_TK_STRING) {
		char *more = sl__p_unquote(p, sl__p_tok(p, 0));
		if (!more || !(e->u.lit.text = sl_arena_printf(p->a, "%s%s", e->u.lit.text, more)))
			return sl_err_set(p->err, SL_ENOMEM, "parser: out of memory"), NULL;
		p->i++;
	}
	return e;
}

/* CASE [operand] WHEN a THEN b ... [ELSE c] END */
static sl_ast_expr *case_expr(sl_parser *p)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_expr *e = node(p, SL_AX_CASE, t);
	int cap = 0, cap2 = 0, n2 = 0;
	if (!e)
		return NULL;
	p->i++;
	if (!sl__p_is_kw(p, 0, "WHEN") && !(e->u.case_.operand = sl__p_expr(p)))
		return NULL;
	if (!sl__p_is_kw(p, 0, "WHEN"))
		return sl__p_error(p, "WHEN"), NULL;
	while (sl__p_accept_kw(p, "WHEN")) {
		sl_ast_expr **w = sl__p_push(p, &e->u.case_.when, &e->u.case_.nwhen, &cap, sizeof(*w));
		sl_ast_expr **th = sl__p_push(p, &e->u.case_.then, &n2, &cap2, sizeof(*th));
		if (!w || !th || !(*w = sl__p_expr(p)) || sl__p_expect_kw(p, "THEN") || !(*th = sl__p_expr(p)))
			return NULL;
	}
	if (sl__p_accept_kw(p, "ELSE") && !(e->u.case_.else_ = sl__p_expr(p)))
		return NULL;
	return sl__p_expect_kw(p, "END") ? NULL : e;
}

/* CAST / TRY_CAST ( x AS type ) */
static sl_ast_expr *cast_expr(sl_parser *p)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_expr *e = node(p, SL_AX_CAST, t);
	if (!e)
		return NULL;
	e->u.cast.try_ = (uint8_t)sl__p_is_kw(p, 0, "TRY_CAST");
	p->i++;
	if (sl__p_expect_op(p, "(") || !(e->u.cast.a = sl__p_expr(p)) || sl__p_expect_kw(p, "AS") ||
	    !(e->u.cast.type = sl__p_type(p)) || sl__p_expect_op(p, ")"))
		return NULL;
	return e;
}

/* A string literal ' ' (TRIM's default characters). */
static sl_ast_expr *space_literal(sl_parser *p, const sl_token *t)
{
	sl_ast_expr *e = node(p, SL_AX_LITERAL, t);
	if (e) {
		e->u.lit.kind = SL_AL_STRING;
		e->u.lit.text = " ";
	}
	return e;
}

/* TRIM([BOTH|LEADING|TRAILING] [chars] FROM s) / TRIM(s) -> TRIM(side, chars, s) */
static int trim_args(sl_parser *p, sl_ast_expr *c, const sl_token *t, int *cap)
{
	sl_ast_expr *side = node(p, SL_AX_KEYWORD, t), *chars = NULL, *s;
	if (!side)
		return -1;
	side->u.kw.word = "BOTH";
	if (sl__p_accept_kw(p, "BOTH"))
		;
	else if (sl__p_accept_kw(p, "LEADING"))
		side->u.kw.word = "LEADING";
	else if (sl__p_accept_kw(p, "TRAILING"))
		side->u.kw.word = "TRAILING";
	if (!sl__p_is_kw(p, 0, "FROM") && !(chars = sl__p_expr(p)))
		return -1;
	if (sl__p_accept_kw(p, "FROM")) {
		if (!(s = sl__p_expr(p)))
			return -1;
	} else if (chars && !strcmp(side->u.kw.word, "BOTH") && sl__p_is_op(p, 0, ")")) {
		s = chars; /* TRIM(s) */
		chars = NULL;
	} else {
		return sl__p_error(p, "FROM");
	}
	if (!chars && !(chars = space_literal(p, t)))
		return -1;
	return add_arg(p, c, side, cap) || add_arg(p, c, chars, cap) || add_arg(p, c, s, cap) ? -1 : 0;
}

/* Arguments of the special-syntax functions; 1 handled, 0 generic. */
static int special_args(sl_parser *p, sl_ast_expr *c, const sl_token *t, int *cap)
{
	const char *f = c->u.call.fname;
	int r = sl__p_fn_args(p, c, t, cap);
	if (r)
		return r;
	if (!strcmp(f, "EXTRACT")) {
		if (add_arg(p, c, unit_arg(p), cap) || sl__p_expect_kw(p, "FROM") || add_arg(p, c, sl__p_expr(p), cap))
			return -1;
		return 1;
	}
	if (!strcmp(f, "TIMESTAMPADD") || !strcmp(f, "TIMESTAMPDIFF")) {
		if (add_arg(p, c, unit_arg(p), cap))
			return -1;
		while (sl__p_accept_op(p, ","))
			if (add_arg(p, c, sl__p_expr(p), cap))
				return -1;
		return 1;
	}
	if (!strcmp(f, "TRIM"))
		return trim_args(p, c, t, cap) ? -1 : 1;
	if (!strcmp(f, "FLOOR") || !strcmp(f, "CEIL")) {
		if (add_arg(p, c, sl__p_expr(p), cap))
			return -1;
		if (sl__p_accept_kw(p, "TO") && add_arg(p, c, unit_arg(p), cap))
			return -1;
		return 1;
	}
	if (!strcmp(f, "POSITION")) {
		if (add_arg(p, c, add_expr(p), cap))
			return -1;
		if (!sl__p_accept_kw(p, "IN") && sl__p_expect_op(p, ","))
			return -1;
		return add_arg(p, c, sl__p_expr(p), cap) ? -1 : 1;
	}
	if (!strcmp(f, "SUBSTRING")) {
		if (add_arg(p, c, sl__p_expr(p), cap))
			return -1;
		if (sl__p_accept_kw(p, "FROM")) {
			if (add_arg(p, c, sl__p_expr(p), cap))
				return -1;
			if (sl__p_accept_kw(p, "FOR") && add_arg(p, c, sl__p_expr(p), cap))
				return -1;
			return 1;
		}
		while (sl__p_accept_op(p, ","))
			if (add_arg(p, c, sl__p_expr(p), cap))
				return -1;
		return 1;
	}
	return 0;
}

/* TABLE t [PARTITION BY k, ..] as a table-function argument. */
static sl_ast_expr *table_arg(sl_parser *p)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_expr *e = node(p, SL_AX_TABLE_ARG, t);
	int cap = 0;
	if (!e)
		return NULL;
	p->i++;
	if (sl__p_name(p, &e->u.table_arg.table, "table name"))
		return NULL;
	if (sl__p_is_kw(p, 0, "PARTITION")) {
		p->i++;
		if (sl__p_expect_kw(p, "BY"))
			return NULL;
		int paren = sl__p_accept_op(p, "(");
		do {
			sl_ast_expr **k = sl__p_push(p, &e->u.table_arg.partition, &e->u.table_arg.npartition,
			                             &cap, sizeof(*k));
			if (!k || !(*k = add_expr(p)))
				return NULL;
			/* without parentheses, ", name" continues the keys unless it starts
			 * the next argument (DESCRIPTOR(..), INTERVAL .., name => ..) */
		} while (sl__p_is_op(p, 0, ",") &&
		         (paren || (sl__p_is_ident(p, 1) && !sl__p_is_op(p, 2, "(") && !sl__p_is_op(p, 2, "=>"))) &&
		         (p->i++, 1));
		if (paren && sl__p_expect_op(p, ")"))
			return NULL;
	}
	return e;
}

/* DESCRIPTOR(c1, c2) */
static sl_ast_expr *descriptor(sl_parser *p)
{
	sl_ast_expr *e = node(p, SL_AX_DESCRIPTOR, sl__p_tok(p, 0));
	if (!e)
		return NULL;
	p->i++;
	return sl__p_ident_list(p, &e->u.descriptor.cols, &e->u.descriptor.ncols) ? NULL : e;
}

/* Argument names collected in parallel with a call's arguments. */
typedef struct argnames {
	const char **names;
	int n, cap, any;
} argnames;

/* One call argument, possibly named (name => value). */
static int call_arg(sl_parser *p, sl_ast_expr *c, int *cap, argnames *an)
{
	const char *argname = NULL, **slot;
	if (sl__p_is_ident(p, 0) && sl__p_is_op(p, 1, "=>")) {
		sl_ast_ident id;
		if (sl__p_ident(p, &id, "argument name"))
			return -1;
		p->i++;
		if (!(argname = sl__p_upper(p, id.name)))
			return -1;
		an->any = 1;
	}
	sl_ast_expr *a = sl__p_is_kw(p, 0, "TABLE") ? table_arg(p) : sl__p_expr(p);
	if (add_arg(p, c, a, cap) || !(slot = sl__p_push(p, &an->names, &an->n, &an->cap, sizeof(*slot))))
		return -1;
	*slot = argname;
	return 0;
}

/* FILTER (WHERE e) and OVER (...) / OVER w after a call. */
static int call_suffix(sl_parser *p, sl_ast_expr *c)
{
	if (sl__p_is_kw(p, 0, "FILTER") && sl__p_is_op(p, 1, "(")) {
		p->i += 2;
		if (sl__p_expect_kw(p, "WHERE") || !(c->u.call.filter = sl__p_expr(p)) || sl__p_expect_op(p, ")"))
			return -1;
	}
	if (sl__p_accept_kw(p, "OVER")) {
		if (sl__p_is_ident(p, 0)) {
			const sl_token *t = sl__p_tok(p, 0);
			sl_ast_window *w = sl__p_alloc(p, sizeof(*w));
			sl_ast_ident *id = sl__p_alloc(p, sizeof(*id));
			if (!w || !id || sl__p_ident(p, id, "window name"))
				return -1;
			w->ref = id;
			w->line = t->line;
			w->col = t->col;
			c->u.call.over = w;
		} else if (!(c->u.call.over = sl__p_window_spec(p))) {
			return -1;
		}
	}
	return 0;
}

/* name ( args ) with the current token at '('; name already set in c. */
static sl_ast_expr *call_rest(sl_parser *p, sl_ast_expr *c)
{
	const sl_token *t = sl__p_tok(p, 0);
	int cap = 0, r;
	argnames an = {NULL, 0, 0, 0};
	p->i++; /* ( */
	if ((r = special_args(p, c, t, &cap)) < 0)
		return NULL;
	if (r == 0 && !sl__p_is_op(p, 0, ")")) {
		if (sl__p_is_op(p, 0, "*") && sl__p_is_op(p, 1, ")")) {
			c->u.call.star = 1;
			p->i++;
		} else {
			if (sl__p_accept_kw(p, "DISTINCT"))
				c->u.call.distinct = 1;
			else
				sl__p_accept_kw(p, "ALL");
			do {
				if (call_arg(p, c, &cap, &an))
					return NULL;
			} while (sl__p_accept_op(p, ","));
			if (an.any)
				c->u.call.argnames = an.names;
		}
	}
	if (sl__p_expect_op(p, ")") || call_suffix(p, c))
		return NULL;
	return sl__p_json_agg(p, c, t);
}

/* A call whose name is the current token(s): name path then '('. */
static sl_ast_expr *call_from_name(sl_parser *p, sl_ast_name *name, const sl_token *t)
{
	sl_ast_expr *c = node(p, SL_AX_CALL, t);
	if (!c)
		return NULL;
	c->u.call.name = *name;
	if (!(c->u.call.fname = sl__p_upper(p, name->parts[name->n - 1].name)))
		return NULL;
	if (!strcmp(c->u.call.fname, "CEILING"))
		c->u.call.fname = "CEIL";
	return call_rest(p, c);
}

/* Keyword-named calls without parentheses (CURRENT_TIMESTAMP ...). */
static int is_niladic(sl_parser *p)
{
	static const char *const w[] = {
		"CURRENT_TIMESTAMP", "LOCALTIMESTAMP", "CURRENT_DATE", "CURRENT_TIME",
		"LOCALTIME", "CURRENT_ROW_TIMESTAMP"
	};
	for (size_t k = 0; k < sizeof(w) / sizeof(w[0]); k++)
		if (sl__p_is_kw(p, 0, w[k]))
			return 1;
	return 0;
}

/* ARRAY[..] / MAP[..] constructors -> call ARRAY / MAP. */
static sl_ast_expr *bracket_ctor(sl_parser *p)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_expr *c = call_node(p, t, sl__p_is_kw(p, 0, "ARRAY") ? "ARRAY" : "MAP");
	int cap = 0;
	if (!c)
		return NULL;
	p->i += 2;
	if (!sl__p_is_op(p, 0, "]")) {
		do {
			if (add_arg(p, c, sl__p_expr(p), &cap))
				return NULL;
		} while (sl__p_accept_op(p, ","));
	}
	return sl__p_expect_op(p, "]") ? NULL : c;
}

/* ( expr ), ( query ), ( a, b ) row. */
static sl_ast_expr *paren_expr(sl_parser *p)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_expr *e;
	if (sl__p_is_kw(p, 1, "SELECT") || sl__p_is_kw(p, 1, "WITH") || sl__p_is_kw(p, 1, "VALUES")) {
		if (!(e = node(p, SL_AX_SUBQUERY, t)))
			return NULL;
		p->i++;
		if (!(e->u.query = sl__p_subquery(p, &e->height)) || sl__p_expect_op(p, ")"))
			return NULL;
		return e;
	}
	p->i++;
	if (!(e = sl__p_expr(p)))
		return NULL;
	if (sl__p_is_op(p, 0, ",")) {
		int cap = 0;
		sl_ast_expr *row = call_node(p, t, "ROW");
		if (!row || add_arg(p, row, e, &cap))
			return NULL;
		while (sl__p_accept_op(p, ","))
			if (add_arg(p, row, sl__p_expr(p), &cap))
				return NULL;
		e = row;
	}
	return sl__p_expect_op(p, ")") ? NULL : e;
}

/* Keyword-introduced primaries; *done = 0 when none matched. */
static sl_ast_expr *keyword_primary(sl_parser *p, int *done)
{
	const sl_token *t = sl__p_tok(p, 0);
	int m;
	*done = 1;
	if (sl__p_is_kw(p, 0, "NULL"))
		return literal(p, SL_AL_NULL);
	if (sl__p_is_kw(p, 0, "TRUE") || sl__p_is_kw(p, 0, "FALSE"))
		return literal(p, SL_AL_BOOL);
	if (sl__p_is_kw(p, 0, "INTERVAL"))
		return p_interval(p);
	if (sl__p_is_kw(p, 0, "CASE"))
		return case_expr(p);
	if ((sl__p_is_kw(p, 0, "CAST") || sl__p_is_kw(p, 0, "TRY_CAST")) && sl__p_is_op(p, 1, "("))
		return cast_expr(p);
	if (sl__p_is_kw(p, 0, "EXISTS") && sl__p_is_op(p, 1, "(")) {
		sl_ast_expr *e = node(p, SL_AX_EXISTS, t);
		p->i += 2;
		if (!e || !(e->u.query = sl__p_subquery(p, &e->height)) || sl__p_expect_op(p, ")"))
			return NULL;
		return e;
	}
	if (sl__p_is_kw(p, 0, "DATE") || sl__p_is_kw(p, 0, "TIME") || sl__p_is_kw(p, 0, "TIMESTAMP") ||
	    sl__p_is_kw(p, 0, "TIMESTAMP_LTZ")) {
		sl_ast_expr *e = typed_literal(p, &m);
		if (m)
			return e;
	}
	if ((sl__p_is_kw(p, 0, "ARRAY") || sl__p_is_kw(p, 0, "MAP")) && sl__p_is_op(p, 1, "["))
		return bracket_ctor(p);
	if (sl__p_is_kw(p, 0, "DESCRIPTOR") && sl__p_is_op(p, 1, "("))
		return descriptor(p);
	if (is_niladic(p) && !sl__p_is_op(p, 1, "(")) {
		sl_ast_expr *c = call_node(p, t, sl__p_upper(p, sl__p_text(p, t)));
		if (c)
			c->u.call.noparen = 1;
		p->i++;
		return c;
	}
	*done = 0;
	return NULL;
}

/* Column ref, t.*, or call by name. */
static sl_ast_expr *name_primary(sl_parser *p)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_name name;
	int cap = 0;
	name.n = 0;
	name.parts = NULL;
	for (;;) {
		sl_ast_ident *id = sl__p_push(p, &name.parts, &name.n, &cap, sizeof(*id));
		const sl_token *it = sl__p_tok(p, 0);
		if (!id)
			return NULL;
		/* a reserved word is allowed as a name only right before '(' or after '.' */
		if (it->type == SL_TK_IDENT && (name.n > 1 || sl__p_is_op(p, 1, "("))) {
			id->name = sl__p_text(p, it);
			id->line = it->line;
			id->col = it->col;
			p->i++;
			if (!id->name)
				return NULL;
		} else if (sl__p_ident(p, id, "expression")) {
			return NULL;
		}
		if (!sl__p_is_op(p, 0, ".") || !(p->i++, 1))
			break;
		if (sl__p_is_op(p, 0, "*")) {
			sl_ast_expr *s = node(p, SL_AX_STAR, t);
			if (!s)
				return NULL;
			p->i++;
			s->u.name = name;
			return s;
		}
	}
	if (sl__p_is_op(p, 0, "("))
		return call_from_name(p, &name, t);
	sl_ast_expr *e = node(p, SL_AX_COLUMN, t);
	if (e)
		e->u.name = name;
	return e;
}

static sl_ast_expr *primary(sl_parser *p)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_expr *e;
	int done;
	switch (t->type) {
	case SL_TK_INTEGER: return literal(p, SL_AL_INTEGER);
	case SL_TK_DECIMAL: return literal(p, SL_AL_DECIMAL);
	case SL_TK_APPROX: return literal(p, SL_AL_APPROX);
	case SL_TK_STRING: return literal(p, SL_AL_STRING);
	case SL_TK_BINARY: return literal(p, SL_AL_BINARY);
	case SL_TK_QIDENT: return name_primary(p);
	case SL_TK_IDENT:
		e = keyword_primary(p, &done);
		return done ? e : name_primary(p);
	default:
		break;
	}
	if (sl__p_is_op(p, 0, "("))
		return paren_expr(p);
	if (sl__p_is_op(p, 0, "*")) {
		p->i++;
		return node(p, SL_AX_STAR, t);
	}
	sl__p_error(p, "expression");
	return NULL;
}

/* primary { [ index ] | . field } */
static sl_ast_expr *postfix(sl_parser *p)
{
	sl_ast_expr *e = sl__p_fix(p, primary(p));
	while (e) {
		const sl_token *t = sl__p_tok(p, 0);
		if (sl__p_accept_op(p, "[")) {
			int cap = 0;
			sl_ast_expr *c = call_node(p, t, "ITEM");
			if (!c || add_arg(p, c, e, &cap) || add_arg(p, c, sl__p_expr(p), &cap) ||
			    sl__p_expect_op(p, "]"))
				return NULL;
			c->line = e->line;
			c->col = e->col;
			e = sl__p_fix(p, c);
		} else if (sl__p_is_op(p, 0, ".") && sl__p_is_ident(p, 1)) {
			sl_ast_expr *f = node(p, SL_AX_FIELD, t);
			p->i++;
			if (!f || sl__p_ident(p, &f->u.field.field, "field name"))
				return NULL;
			f->u.field.a = e;
			f->line = e->line;
			f->col = e->col;
			e = sl__p_fix(p, f);
		} else {
			break;
		}
	}
	return e;
}

static sl_ast_expr *unary(sl_parser *p)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_expr *e = NULL;
	if (sl__p_enter(p))
		return NULL;
	if (sl__p_accept_op(p, "-")) {
		sl_ast_expr *a = unary(p);
		e = a ? binary(p, t, SL_AOP_NEG, a, NULL) : NULL;
	} else if (sl__p_accept_op(p, "+")) {
		e = unary(p);
	} else {
		e = postfix(p);
	}
	sl__p_leave(p);
	return e;
}

static sl_ast_expr *mul_expr(sl_parser *p)
{
	sl_ast_expr *e = unary(p);
	while (e) {
		const sl_token *t = sl__p_tok(p, 0);
		sl_ast_op op = sl__p_is_op(p, 0, "*") ? SL_AOP_MUL : sl__p_is_op(p, 0, "/") ? SL_AOP_DIV :
		               sl__p_is_op(p, 0, "%") ? SL_AOP_MOD : SL_AOP_NONE;
		if (op == SL_AOP_NONE)
			break;
		p->i++;
		sl_ast_expr *b = unary(p);
		e = b ? binary(p, t, op, e, b) : NULL;
	}
	return e;
}

static sl_ast_expr *add_expr(sl_parser *p)
{
	sl_ast_expr *e = mul_expr(p);
	while (e) {
		const sl_token *t = sl__p_tok(p, 0);
		sl_ast_op op = sl__p_is_op(p, 0, "+") ? SL_AOP_ADD : sl__p_is_op(p, 0, "-") ? SL_AOP_SUB :
		               sl__p_is_op(p, 0, "||") ? SL_AOP_CONCAT : SL_AOP_NONE;
		if (op == SL_AOP_NONE)
			break;
		p->i++;
		sl_ast_expr *b = mul_expr(p);
		e = b ? binary(p, t, op, e, b) : NULL;
	}
	return e;
}

static sl_ast_op cmp_op(sl_parser *p)
{
	static const struct { const char *s; sl_ast_op op; } ops[] = {
		{"=", SL_AOP_EQ}, {"<>", SL_AOP_NE}, {"!=", SL_AOP_NE}, {"<", SL_AOP_LT},
		{"<=", SL_AOP_LE}, {">", SL_AOP_GT}, {">=", SL_AOP_GE},
	};
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (sl__p_is_op(p, 0, ops[k].s))
			return ops[k].op;
	return SL_AOP_NONE;
}

/* a IS [NOT] NULL | TRUE | FALSE | UNKNOWN | DISTINCT FROM b */
static sl_ast_expr *is_pred(sl_parser *p, sl_ast_expr *a, const sl_token *t)
{
	sl_ast_expr *e = node(p, SL_AX_IS, t);
	if (!e)
		return NULL;
	e->line = a->line;
	e->col = a->col;
	e->u.is.a = a;
	e->u.is.negated = (uint8_t)sl__p_accept_kw(p, "NOT");
	if (sl__p_accept_kw(p, "NULL"))
		e->u.is.what = SL_AIS_NULL;
	else if (sl__p_accept_kw(p, "TRUE"))
		e->u.is.what = SL_AIS_TRUE;
	else if (sl__p_accept_kw(p, "FALSE"))
		e->u.is.what = SL_AIS_FALSE;
	else if (sl__p_accept_kw(p, "UNKNOWN"))
		e->u.is.what = SL_AIS_UNKNOWN;
	else if (sl__p_accept_kw(p, "DISTINCT")) {
		e->u.is.what = SL_AIS_DISTINCT;
		if (sl__p_expect_kw(p, "FROM") || !(e->u.is.b = add_expr(p)))
			return NULL;
	} else if (sl__p_accept_kw(p, "JSON")) {
		e->u.is.what = SL_AIS_JSON;
		if (!(e->u.is.b = sl__p_json_kind(p)))
			return NULL;
	} else {
		return sl__p_error(p, "NULL, TRUE, FALSE, UNKNOWN, JSON or DISTINCT FROM after IS"), NULL;
	}
	return e;
}

/* a [NOT] IN ( list | query ) */
static sl_ast_expr *in_pred(sl_parser *p, sl_ast_expr *a, int neg)
{
	sl_ast_expr *e = node(p, SL_AX_IN_LIST, sl__p_tok(p, 0));
	int cap = 0;
	if (!e || sl__p_expect_op(p, "("))
		return NULL;
	e->line = a->line;
	e->col = a->col;
	e->u.in.a = a;
	e->u.in.negated = (uint8_t)neg;
	if (sl__p_is_kw(p, 0, "SELECT") || sl__p_is_kw(p, 0, "WITH") || sl__p_is_kw(p, 0, "VALUES")) {
		e->kind = SL_AX_IN_QUERY;
		if (!(e->u.in.query = sl__p_subquery(p, &e->height)))
			return NULL;
	} else {
		do {
			sl_ast_expr **x = sl__p_push(p, &e->u.in.list, &e->u.in.nlist, &cap, sizeof(*x));
			if (!x || !(*x = sl__p_expr(p)))
				return NULL;
		} while (sl__p_accept_op(p, ","));
	}
	return sl__p_expect_op(p, ")") ? NULL : e;
}

/* [NOT] BETWEEN / IN / LIKE / SIMILAR TO after a; NULL+no error if none. */
static sl_ast_expr *neg_pred(sl_parser *p, sl_ast_expr *a, int *matched)
{
	int neg = sl__p_is_kw(p, 0, "NOT");
	sl_ast_expr *e;
	*matched = 1;
	if (sl__p_is_kw(p, neg, "BETWEEN")) {
		p->i += neg + 1;
		if (!(e = node(p, SL_AX_BETWEEN, sl__p_tok(p, 0))))
			return NULL;
		e->line = a->line, e->col = a->col;
		e->u.between.a = a;
		e->u.between.negated = (uint8_t)neg;
		if (sl__p_accept_kw(p, "SYMMETRIC"))
			e->u.between.symmetric = 1;
		else
			sl__p_accept_kw(p, "ASYMMETRIC");
		if (!(e->u.between.lo = add_expr(p)) || sl__p_expect_kw(p, "AND") || !(e->u.between.hi = add_expr(p)))
			return NULL;
		return e;
	}
	if (sl__p_is_kw(p, neg, "IN")) {
		p->i += neg + 1;
		return in_pred(p, a, neg);
	}
	if (sl__p_is_kw(p, neg, "LIKE") || (sl__p_is_kw(p, neg, "SIMILAR") && sl__p_is_kw(p, neg + 1, "TO"))) {
		int similar = sl__p_is_kw(p, neg, "SIMILAR");
		p->i += neg + 1 + similar;
		if (!(e = node(p, SL_AX_LIKE, sl__p_tok(p, 0))))
			return NULL;
		e->line = a->line, e->col = a->col;
		e->u.like.a = a;
		e->u.like.negated = (uint8_t)neg;
		e->u.like.similar = (uint8_t)similar;
		if (!(e->u.like.pattern = add_expr(p)))
			return NULL;
		if (sl__p_accept_kw(p, "ESCAPE") && !(e->u.like.escape = add_expr(p)))
			return NULL;
		return e;
	}
	*matched = 0;
	return NULL;
}

static sl_ast_expr *predicate(sl_parser *p)
{
	sl_ast_expr *e = add_expr(p);
	while (e) {
		const sl_token *t = sl__p_tok(p, 0);
		sl_ast_op op = cmp_op(p);
		int m;
		if (op != SL_AOP_NONE) {
			p->i++;
			sl_ast_expr *b = add_expr(p);
			e = b ? binary(p, t, op, e, b) : NULL;
		} else if (sl__p_accept_kw(p, "IS")) {
			e = sl__p_fix(p, is_pred(p, e, t));
		} else if (sl__p_accept_kw(p, "OVERLAPS")) {
			/* (t1, t2) OVERLAPS (t3, t4) -> call OVERLAPS(row, row) */
			int cap = 0;
			sl_ast_expr *c = call_node(p, t, "OVERLAPS"), *b = c ? add_expr(p) : NULL;
			if (!b || add_arg(p, c, e, &cap) || add_arg(p, c, b, &cap))
				return NULL;
			c->line = e->line, c->col = e->col;
			e = sl__p_fix(p, c);
		} else {
			sl_ast_expr *n = neg_pred(p, e, &m);
			if (!m)
				break;
			e = sl__p_fix(p, n);
		}
	}
	return e;
}

static sl_ast_expr *not_expr(sl_parser *p)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_expr *e;
	if (!sl__p_is_kw(p, 0, "NOT"))
		return predicate(p);
	if (sl__p_enter(p))
		return NULL;
	p->i++;
	e = not_expr(p);
	e = e ? binary(p, t, SL_AOP_NOT, e, NULL) : NULL;
	sl__p_leave(p);
	return e;
}

/* Operands xs[lo, hi) joined by op as a balanced tree; ts[i] is the
 * operator token before xs[i].  Recursion depth log2(hi - lo). */
static sl_ast_expr *balanced(sl_parser *p, sl_ast_op op, sl_ast_expr **xs, const sl_token **ts,
                             int lo, int hi)
{
	if (hi - lo == 1)
		return xs[lo];
	int mid = lo + (hi - lo) / 2;
	sl_ast_expr *a = balanced(p, op, xs, ts, lo, mid);
	sl_ast_expr *b = a ? balanced(p, op, xs, ts, mid, hi) : NULL;
	return b ? binary(p, ts[mid], op, a, b) : NULL;
}

/*
 * operand { op operand } for op AND (operands: not_expr) or OR (operands:
 * and_expr).  Up to CHAIN_LEFT_DEEP operands make the usual left-deep tree
 * (((a AND b) AND c) AND d); longer chains a balanced one, so that a
 * WHERE clause of 100 000 ORed comparisons is a tree of height 17 and no
 * recursive pass over it runs deep (parse_limits.c).  AND and OR are
 * associative in three-valued logic, so the shape changes no result.
 */
#define CHAIN_LEFT_DEEP 8
static sl_ast_expr *logic_chain(sl_parser *p, sl_ast_op op)
{
	const char *kw = op == SL_AOP_AND ? "AND" : "OR";
	sl_ast_expr *e = op == SL_AOP_AND ? not_expr(p) : and_expr(p);
	sl_ast_expr **xs = NULL;
	const sl_token **ts = NULL;
	int n = 0, nt = 0, cap = 0, capt = 0;
	if (!e || !sl__p_is_kw(p, 0, kw))
		return e;
	for (const sl_token *t = NULL; e;) {  /* ts[i]: the operator before xs[i] */
		sl_ast_expr **x = sl__p_push(p, &xs, &n, &cap, sizeof(*x));
		const sl_token **tp = sl__p_push(p, &ts, &nt, &capt, sizeof(*tp));
		if (!x || !tp)
			return NULL;
		*x = e;
		*tp = t;
		if (!sl__p_is_kw(p, 0, kw))
			break;
		t = sl__p_tok(p, 0);
		p->i++;
		if (!(e = op == SL_AOP_AND ? not_expr(p) : and_expr(p)))
			return NULL;
	}
	if (n <= CHAIN_LEFT_DEEP) {
		e = xs[0];
		for (int i = 1; e && i < n; i++)
			e = binary(p, ts[i], op, e, xs[i]);
		return e;
	}
	return balanced(p, op, xs, ts, 0, n);
}

static sl_ast_expr *and_expr(sl_parser *p)
{
	return logic_chain(p, SL_AOP_AND);
}

sl_ast_expr *sl__p_expr(sl_parser *p)
{
	sl_ast_expr *e;
	if (sl__p_enter(p))
		return NULL;
	e = logic_chain(p, SL_AOP_OR);
	sl__p_leave(p);
	return e;
}

/* UNBOUNDED PRECEDING | CURRENT ROW | expr PRECEDING | expr FOLLOWING ... */
static int frame_bound(sl_parser *p, sl_ast_bound *b)
{
	if (sl__p_accept_kw(p, "UNBOUNDED")) {
		if (sl__p_accept_kw(p, "PRECEDING"))
			b->kind = SL_AB_UNBOUNDED_PRECEDING;
		else if (sl__p_accept_kw(p, "FOLLOWING"))
			b->kind = SL_AB_UNBOUNDED_FOLLOWING;
		else
			return sl__p_error(p, "PRECEDING or FOLLOWING");
		return 0;
	}
	if (sl__p_accept_kw(p, "CURRENT")) {
		b->kind = SL_AB_CURRENT_ROW;
		return sl__p_expect_kw(p, "ROW");
	}
	if (!(b->expr = add_expr(p)))
		return -1;
	if (sl__p_accept_kw(p, "PRECEDING"))
		b->kind = SL_AB_PRECEDING;
	else if (sl__p_accept_kw(p, "FOLLOWING"))
		b->kind = SL_AB_FOLLOWING;
	else
		return sl__p_error(p, "PRECEDING or FOLLOWING");
	return 0;
}

sl_ast_window *sl__p_window_spec(sl_parser *p)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_window *w = sl__p_alloc(p, sizeof(*w));
	int cap = 0;
	if (!w || sl__p_expect_op(p, "("))
		return NULL;
	w->line = t->line;
	w->col = t->col;
	if (sl__p_is_kw(p, 0, "PARTITION")) {
		p->i++;
		if (sl__p_expect_kw(p, "BY"))
			return NULL;
		do {
			sl_ast_expr **x = sl__p_push(p, &w->partition, &w->npartition, &cap, sizeof(*x));
			if (!x || !(*x = sl__p_expr(p)))
				return NULL;
		} while (sl__p_accept_op(p, ","));
	}
	if (sl__p_is_kw(p, 0, "ORDER")) {
		p->i++;
		if (sl__p_expect_kw(p, "BY") || sl__p_order_list(p, &w->order, &w->norder))
			return NULL;
	}
	if (sl__p_is_kw(p, 0, "ROWS") || sl__p_is_kw(p, 0, "RANGE")) {
		w->frame = sl__p_is_kw(p, 0, "ROWS") ? 'R' : 'G';
		p->i++;
		if (sl__p_accept_kw(p, "BETWEEN")) {
			if (frame_bound(p, &w->start) || sl__p_expect_kw(p, "AND") || frame_bound(p, &w->end))
				return NULL;
		} else if (frame_bound(p, &w->start)) {
			return NULL;
		}
	}
	return sl__p_expect_op(p, ")") ? NULL : w;
}
