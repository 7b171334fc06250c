/*
 * bind.c - binds AST expressions to typed sl_expr trees (expr.h).
 *
 * Names resolve against the scope's columns: `c`, `t.c`, `c.f` (a ROW
 * field), `t.c.f`; exact spelling first, then a unique case-insensitive
 * match.  In an aggregate scope, an expression that is textually a GROUP BY
 * key, an aggregate call or a window property (TUMBLE_START, window_start)
 * becomes a reference to the aggregate's output column; any other column
 * reference there is an error, as in Flink.
 *
 * Errors carry the node's line and column ("line 3, column 8: Column
 * 'amout' not found in any table").
 */
#include "plan_int.h"
#include "sluice.h"
#include "../data/decimal.h"
#include "../base/timeutil.h"
#include "../sql/parser.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void *sl__plan_error(planner *p, int line, int col, int code, const char *fmt, ...)
{
	char msg[SL_ERR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		sl_err_set_at(p->err, code, line, col, "line %d, column %d: %s", line, col, msg);
	else
		sl_err_set(p->err, code, "%s", msg);
	return NULL;
}

const char *sl__ast_text(planner *p, const sl_ast_expr *e)
{
	sl_buf b;
	sl_buf_init(&b);
	sl_ast_print_expr(&b, e);
	const char *s = sl_arena_strndup(p->a, b.p ? b.p : "", b.len);
	sl_buf_deinit(&b);
	return s;
}

static const char *const agg_names[] = {"COUNT", "SUM", "AVG", "MIN", "MAX", "FIRST_VALUE",
                                        "LAST_VALUE", "STDDEV_POP", "STDDEV_SAMP",
                                        "VAR_POP", "VAR_SAMP", "VARIANCE", "LISTAGG",
                                        "ARRAY_AGG", "STDDEV", NULL};

int sl__is_agg_call(planner *p, const sl_ast_expr *e)
{
	if (e->kind != SL_AX_CALL || e->u.call.over)
		return 0;
	for (int i = 0; agg_names[i]; i++)
		if (strcmp(e->u.call.fname, agg_names[i]) == 0)
			return 1;
	return sl__udaf(p, e) != NULL;
}

/* ---- literals ------------------------------------------------------------ */

static sl_expr *bind_number(planner *p, const sl_ast_expr *e)
{
	const sl_ast_lit *l = &e->u.lit;
	if (l->kind == SL_AL_APPROX) {
		sl_value v = {0};
		v.v.f64 = strtod(l->text, NULL);
		return sl_expr_lit(p->a, sl_type_make(SL_T_DOUBLE), v);
	}
	if (l->kind == SL_AL_INTEGER) {
		errno = 0;
		char *end;
		long long x = strtoll(l->text, &end, 10);
		if (!errno && !*end) {
			sl_type t = sl_type_make(x >= INT32_MIN && x <= INT32_MAX ? SL_T_INT : SL_T_BIGINT);
			return sl_expr_lit_i64(p->a, t, x);
		}
	}
	/* exact decimal: precision = significant digits, scale = digits after '.' */
	const char *dot = strchr(l->text, '.');
	int scale = dot ? (int)strlen(dot + 1) : 0;
	int digits = 0;
	for (const char *c = l->text; *c; c++)
		digits += (*c >= '0' && *c <= '9');
	if (digits < 1)
		digits = 1;
	if (digits > 38 || scale > 38)
		return sl__plan_error(p, e->line, e->col, SL_EPLAN, "numeric literal '%s' out of range",
		                      l->text);
	if (digits < scale)
		digits = scale;
	sl_value v = {0};
	if (sl_dec_parse(l->text, strlen(l->text), digits, scale, &v.v.i128))
		return sl__plan_error(p, e->line, e->col, SL_EPLAN, "bad numeric literal '%s'", l->text);
	return sl_expr_lit(p->a, sl_type_decimal(digits, scale), v);
}

/* Micros (or months for YEAR/MONTH units) of an interval literal. */
static int interval_value(const sl_ast_lit *l, int64_t *out, int *months)
{
	const char *s = l->text;
	int neg = 0;
	while (*s == ' ')
		s++;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	sl_ast_unit u = l->unit, u2 = l->unit2 ? l->unit2 : l->unit;
	*months = (u == SL_AU_YEAR || u == SL_AU_MONTH || u == SL_AU_QUARTER);
	double f[4] = {0};
	int nf = 0;
	char *end;
	while (nf < 4) {
		f[nf++] = strtod(s, &end);
		if (end == s)
			return -1;
		s = end;
		if (*s == ':' || *s == ' ' || *s == '-')
			s++;
		else
			break;
	}
	if (*s)
		return -1;
	/* map fields onto units from u to u2 */
	static const int64_t us[] = {0, 0, 0, 0, 7 * SL_US_PER_DAY, SL_US_PER_DAY, 3600000000LL,
	                             60000000LL, 1000000LL, 1000LL, 1LL, 0};
	double total = 0;
	if (*months) {
		if (u == SL_AU_YEAR)
			total = f[0] * 12 + (nf > 1 ? f[1] : 0);
		else if (u == SL_AU_QUARTER)
			total = f[0] * 3;
		else
			total = f[0];
	} else {
		int unit = u;
		for (int i = 0; i < nf; i++, unit++) {
			if (unit > SL_AU_MICROSECOND || unit > (int)u2)
				return -1;
			total += f[i] * (double)us[unit];
		}
	}
	*out = (int64_t)(total + (total >= 0 ? 0.5 : -0.5));
	if (neg)
		*out = -*out;
	return 0;
}

int sl__bind_interval(planner *p, const sl_ast_expr *e, int64_t *us)
{
	int months;
	if (e->kind == SL_AX_LITERAL && e->u.lit.kind == SL_AL_INTERVAL) {
		if (interval_value(&e->u.lit, us, &months))
			goto bad;
		if (months)
			goto bad;
		return 0;
	}
bad:
	sl__plan_error(p, e->line, e->col, SL_EPLAN,
	               "expected a day-time INTERVAL literal such as INTERVAL '5' SECOND");
	return SL_EPLAN;
}

static sl_expr *bind_literal(planner *p, const sl_ast_expr *e)
{
	const sl_ast_lit *l = &e->u.lit;
	sl_value v = {0};
	switch (l->kind) {
	case SL_AL_NULL:
		return sl_expr_lit_null(p->a, sl_type_make(SL_T_NULL));
	case SL_AL_BOOL:
		return sl_expr_lit_i64(p->a, sl_type_make(SL_T_BOOLEAN), l->bval);
	case SL_AL_INTEGER:
	case SL_AL_DECIMAL:
	case SL_AL_APPROX:
		return bind_number(p, e);
	case SL_AL_STRING:
		return sl_expr_lit_str(p->a, l->text, (int64_t)strlen(l->text));
	case SL_AL_BINARY: {
		size_t n = strlen(l->text) / 2;
		char *b = sl_arena_alloc(p->a, n + 1);
		for (size_t i = 0; i < n; i++) {
			unsigned x;
			sscanf(l->text + 2 * i, "%2x", &x);
			b[i] = (char)x;
		}
		v.v.str.ptr = b;
		v.v.str.len = (int64_t)n;
		sl_type t = sl_type_make(SL_T_BINARY);
		t.length = n ? (int32_t)n : 1;
		return sl_expr_lit(p->a, t, v);
	}
	case SL_AL_DATE:
		if (sl_date_parse(l->text, strlen(l->text), &v.v.i64))
			break;
		return sl_expr_lit(p->a, sl_type_make(SL_T_DATE), v);
	case SL_AL_TIME: {
		if (sl_time_parse(l->text, strlen(l->text), &v.v.i64))
			break;
		/* TIME '10:11:12.345' is TIME(0), as every TIME in Flink 1.20.3, but
		 * its value keeps the milliseconds (Flink's TIME is milliseconds of
		 * the day): it prints 10:11:12.345 and compares greater than TIME
		 * '10:11:12'; CAST to STRING writes 10:11:12 (docs/sql.md, Types) */
		v.v.i64 -= v.v.i64 % 1000;
		sl_type t = sl_type_make(SL_T_TIME);
		return sl_expr_lit(p->a, t, v);
	}
	case SL_AL_TIMESTAMP:
	case SL_AL_TIMESTAMP_LTZ: {
		if (sl_ts_parse(l->text, strlen(l->text), &v.v.i64))
			break;
		const char *dot = strchr(l->text, '.');
		int prec = dot ? (int)strspn(dot + 1, "0123456789") : 0;
		if (prec > 6)
			prec = 6;
		sl_type_id id = l->kind == SL_AL_TIMESTAMP ? SL_T_TIMESTAMP : SL_T_TIMESTAMP_LTZ;
		return sl_expr_lit(p->a, sl_type_timestamp(id, prec), v);
	}
	case SL_AL_INTERVAL: {
		int months;
		if (interval_value(l, &v.v.i64, &months))
			break;
		return sl_expr_lit(p->a, sl_type_make(months ? SL_T_INTERVAL_YM : SL_T_INTERVAL_DT), v);
	}
	}
	return sl__plan_error(p, e->line, e->col, SL_EPLAN, "bad literal '%s'", l->text);
}

/* ---- names --------------------------------------------------------------- */

/* Column index of `name` (qualified by qual when non-NULL), or -1 / -2 ambiguous. */
static int find_col(const rel *r, const char *qual, const char *name)
{
	int found = -1;
	for (int pass = 0; pass < 2 && found < 0; pass++) {
		for (int i = 0; i < r->ncols; i++) {
			const rcol *c = &r->cols[i];
			int nm = pass ? strcasecmp(c->name, name) == 0 : strcmp(c->name, name) == 0;
			if (!nm)
				continue;
			if (qual && (!c->qual || (pass ? strcasecmp(c->qual, qual) : strcmp(c->qual, qual))))
				continue;
			if (found >= 0)
				return -2;
			found = i;
		}
	}
	return found;
}

static sl_expr *field_access(planner *p, sl_expr *x, const sl_ast_ident *f)
{
	if (x->type.id != SL_T_ROW || !x->type.row)
		return sl__plan_error(p, f->line, f->col, SL_EPLAN,
		                      "'%s': field access on a value that is not a ROW", f->name);
	for (int i = 0; i < x->type.row->nfields; i++)
		if (strcmp(x->type.row->fields[i].name, f->name) == 0)
			return sl_expr_call(p->a, SL_FN_FIELD, &x, 1, NULL, i, p->err);
	return sl__plan_error(p, f->line, f->col, SL_EPLAN, "ROW has no field '%s'", f->name);
}

static sl_expr *bind_column(planner *p, const scope *s, const sl_ast_expr *e)
{
	const sl_ast_name *n = &e->u.name;
	const rel *r = s->r;
	int idx = -1, used = 1;
	if (n->n >= 2) {
		idx = find_col(r, n->parts[0].name, n->parts[1].name);
		used = 2;
	}
	if (idx < 0) {
		idx = find_col(r, NULL, n->parts[0].name);
		used = 1;
	}
	if (idx == -2)
		return sl__plan_error(p, e->line, e->col, SL_EPLAN, "Column '%s' is ambiguous",
		                      n->parts[0].name);
	if (idx < 0) {
		if (s->agg && !s->agg->over)
			return sl__plan_error(p, e->line, e->col, SL_EPLAN,
			                      "Expression '%s' is not being grouped", sl__ast_text(p, e));
		return sl__plan_error(p, e->line, e->col, SL_EPLAN, "Column '%s' not found in any table",
		                      n->n >= 2 && find_col(r, NULL, n->parts[n->n - 1].name) < 0
		                          ? sl__ast_text(p, e) : n->parts[0].name);
	}
	sl_expr *x = sl_expr_col(p->a, idx, r->cols[idx].type);
	for (int i = used; x && i < n->n; i++)
		x = field_access(p, x, &n->parts[i]);
	return x;
}

/* ---- operators ------------------------------------------------------------ */

sl_expr *sl__bind_call(planner *p, const sl_ast_expr *at, sl_fn fn, sl_expr **args, int n,
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

/* sl__bind_call whose result names its SQL position in run-time errors
 * (expr_eval.c). */
static sl_expr *call(planner *p, const sl_ast_expr *at, sl_fn fn, sl_expr **args, int n)
{
	sl_expr *x = sl__bind_call(p, at, fn, args, n, NULL);
	if (x) {
		x->line = at->line;
		x->pos = at->col;
	}
	return x;
}

static sl_expr *bind_binary(planner *p, const scope *s, const sl_ast_expr *e)
{
	static const struct { sl_ast_op op; sl_fn fn; } map[] = {
		{SL_AOP_OR, SL_FN_OR}, {SL_AOP_AND, SL_FN_AND}, {SL_AOP_EQ, SL_FN_EQ},
		{SL_AOP_NE, SL_FN_NE}, {SL_AOP_LT, SL_FN_LT}, {SL_AOP_LE, SL_FN_LE},
		{SL_AOP_GT, SL_FN_GT}, {SL_AOP_GE, SL_FN_GE}, {SL_AOP_ADD, SL_FN_ADD},
		{SL_AOP_SUB, SL_FN_SUB}, {SL_AOP_MUL, SL_FN_MUL}, {SL_AOP_DIV, SL_FN_DIV},
		{SL_AOP_MOD, SL_FN_MOD}, {SL_AOP_CONCAT, SL_FN_CONCAT},
	};
	sl_expr *args[2];
	int done;
	sl_expr *inl = sl__bind_inlist(p, s, e, &done); /* long c = 1 OR c = 2 .. chains */
	if (done)
		return inl;
	if (!(args[0] = sl__bind_expr(p, s, e->u.op.a)) || !(args[1] = sl__bind_expr(p, s, e->u.op.b)))
		return NULL;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].op == e->u.op.op)
			return call(p, e, map[i].fn, args, 2);
	return sl__plan_error(p, e->line, e->col, SL_EPLAN, "unsupported operator");
}

static sl_expr *negate(planner *p, const sl_ast_expr *e, sl_expr *x, int neg)
{
	return (x && neg) ? call(p, e, SL_FN_NOT, &x, 1) : x;
}

static sl_expr *bind_is(planner *p, const scope *s, const sl_ast_expr *e)
{
	sl_expr *args[2];
	if (!(args[0] = sl__bind_expr(p, s, e->u.is.a)))
		return NULL;
	int neg = e->u.is.negated;
	switch (e->u.is.what) {
	case SL_AIS_NULL:
	case SL_AIS_UNKNOWN:
		return call(p, e, neg ? SL_FN_IS_NOT_NULL : SL_FN_IS_NULL, args, 1);
	case SL_AIS_TRUE:
		return call(p, e, neg ? SL_FN_IS_NOT_TRUE : SL_FN_IS_TRUE, args, 1);
	case SL_AIS_FALSE:
		return call(p, e, neg ? SL_FN_IS_NOT_FALSE : SL_FN_IS_FALSE, args, 1);
	case SL_AIS_DISTINCT:
		if (!(args[1] = sl__bind_expr(p, s, e->u.is.b)))
			return NULL;
		return call(p, e, neg ? SL_FN_IS_NOT_DISTINCT : SL_FN_IS_DISTINCT, args, 2);
	case SL_AIS_JSON:
		return negate(p, e, sl__bind_is_json(p, e, args[0]), neg);
	}
	return NULL;
}

static sl_expr *between(planner *p, const sl_ast_expr *e, sl_expr *a, sl_expr *lo, sl_expr *hi)
{
	sl_expr *x[2] = {a, lo}, *y[2] = {a, hi}, *both[2];
	if (!(both[0] = call(p, e, SL_FN_GE, x, 2)) || !(both[1] = call(p, e, SL_FN_LE, y, 2)))
		return NULL;
	return call(p, e, SL_FN_AND, both, 2);
}

static sl_expr *bind_between(planner *p, const scope *s, const sl_ast_expr *e)
{
	sl_expr *a, *lo, *hi, *r;
	if (!(a = sl__bind_expr(p, s, e->u.between.a)) || !(lo = sl__bind_expr(p, s, e->u.between.lo)) ||
	    !(hi = sl__bind_expr(p, s, e->u.between.hi)))
		return NULL;
	if (!(r = between(p, e, a, lo, hi)))
		return NULL;
	if (e->u.between.symmetric) {
		sl_expr *o[2] = {r, between(p, e, a, hi, lo)};
		if (!o[1] || !(r = call(p, e, SL_FN_OR, o, 2)))
			return NULL;
	}
	return negate(p, e, r, e->u.between.negated);
}

static sl_expr *bind_in(planner *p, const scope *s, const sl_ast_expr *e)
{
	int n = e->u.in.nlist + 1;
	sl_expr **args = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)n);
	if (!(args[0] = sl__bind_expr(p, s, e->u.in.a)))
		return NULL;
	for (int i = 1; i < n; i++)
		if (!(args[i] = sl__bind_expr(p, s, e->u.in.list[i - 1])))
			return NULL;
	return negate(p, e, call(p, e, SL_FN_IN, args, n), e->u.in.negated);
}

static sl_expr *bind_like(planner *p, const scope *s, const sl_ast_expr *e)
{
	sl_expr *args[3];
	int n = 2;
	if (!(args[0] = sl__bind_expr(p, s, e->u.like.a)) ||
	    !(args[1] = sl__bind_expr(p, s, e->u.like.pattern)))
		return NULL;
	if (e->u.like.escape && !(args[n++] = sl__bind_expr(p, s, e->u.like.escape)))
		return NULL;
	sl_fn fn = e->u.like.similar ? SL_FN_SIMILAR : SL_FN_LIKE;
	return negate(p, e, call(p, e, fn, args, n), e->u.like.negated);
}

static sl_expr *bind_case(planner *p, const scope *s, const sl_ast_expr *e)
{
	int nw = e->u.case_.nwhen;
	int n = nw * 2 + (e->u.case_.else_ ? 1 : 0);
	sl_expr **args = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(n + 1));
	sl_expr *operand = NULL;
	if (e->u.case_.operand && !(operand = sl__bind_expr(p, s, e->u.case_.operand)))
		return NULL;
	for (int i = 0; i < nw; i++) {
		sl_expr *w = sl__bind_expr(p, s, e->u.case_.when[i]);
		if (!w)
			return NULL;
		if (operand) {
			sl_expr *eq[2] = {operand, w};
			if (!(w = call(p, e->u.case_.when[i], SL_FN_EQ, eq, 2)))
				return NULL;
		}
		args[2 * i] = w;
		if (!(args[2 * i + 1] = sl__bind_expr(p, s, e->u.case_.then[i])))
			return NULL;
	}
	if (e->u.case_.else_ && !(args[n - 1] = sl__bind_expr(p, s, e->u.case_.else_)))
		return NULL;
	return call(p, e, SL_FN_CASE, args, n);
}

static sl_expr *bind_cast(planner *p, const scope *s, const sl_ast_expr *e)
{
	sl_expr *x = sl__bind_expr(p, s, e->u.cast.a);
	if (!x)
		return NULL;
	if (e->u.cast.type->kind != SL_ATY_SQL)
		return sl__plan_error(p, e->line, e->col, SL_ENOTSUP,
		                      "CAST to ARRAY, MAP or MULTISET is not supported");
	sl_type t = e->u.cast.type->sql;
	t.notnull = 0;
	sl_expr *r = sl_expr_call(p->a, e->u.cast.try_ ? SL_FN_TRY_CAST : SL_FN_CAST, &x, 1, &t, 0,
	                          p->err);
	if (r) {
		r->line = e->line;
		r->pos = e->col;
	}
	if (!r && !p->err->line) {
		char msg[SL_ERR_MAX];
		snprintf(msg, sizeof(msg), "%s", p->err->msg);
		int code = p->err->code;
		sl_err_clear(p->err);
		sl__plan_error(p, e->line, e->col, code, "%s", msg);
	}
	return r;
}

/* ---- calls --------------------------------------------------------------- */

static sl_expr *unit_lit(planner *p, const sl_ast_expr *kw)
{
	if (kw->kind != SL_AX_KEYWORD)
		return sl__plan_error(p, kw->line, kw->col, SL_EPLAN, "expected a time unit");
	int u = sl_time_unit_from_name(kw->u.kw.word);
	if (u < 0)
		return sl__plan_error(p, kw->line, kw->col, SL_EPLAN, "unknown time unit '%s'",
		                      kw->u.kw.word);
	return sl_expr_lit_i64(p->a, sl_type_make(SL_T_INT), u);
}

static int bind_args(planner *p, const scope *s, const sl_ast_expr *e, int from, sl_expr **out)
{
	for (int i = from; i < e->u.call.nargs; i++)
		if (!(out[i] = sl__bind_expr(p, s, e->u.call.args[i])))
			return -1;
	return 0;
}

static sl_expr *bind_call(planner *p, const scope *s, const sl_ast_expr *e)
{
	const char *f = e->u.call.fname;
	int n = e->u.call.nargs;
	/* grouping functions are bound through the aggregate's map
	 * (plan_grouping.c); here they are misplaced */
	if (!strcmp(f, "GROUPING") || !strcmp(f, "GROUPING_ID") || !strcmp(f, "GROUP_ID"))
		return sl__plan_error(p, e->line, e->col, SL_EPLAN, "%s is only allowed in the "
		                      "SELECT list and HAVING of a query with GROUP BY", f);
	sl_expr **args = sl_arena_calloc(p->a, sizeof(sl_expr *) * (size_t)(n + 2));
	if (e->u.call.over)
		return sl__plan_error(p, e->line, e->col, SL_ENOTSUP,
		                      "OVER windows are not supported yet ('%s')", f);
	if (sl__is_agg_call(p, e))
		return sl__plan_error(p, e->line, e->col, SL_EPLAN,
		                      "aggregate function %s is not allowed here", f);
	if (!strcmp(f, "EXTRACT") && n == 2) {
		if (!(args[0] = unit_lit(p, e->u.call.args[0])) || bind_args(p, s, e, 1, args))
			return NULL;
		return call(p, e, SL_FN_EXTRACT, args, 2);
	}
	if ((!strcmp(f, "FLOOR") || !strcmp(f, "CEIL")) && n == 2 &&
	    e->u.call.args[1]->kind == SL_AX_KEYWORD) {
		if (!(args[0] = sl__bind_expr(p, s, e->u.call.args[0])) ||
		    !(args[1] = unit_lit(p, e->u.call.args[1])))
			return NULL;
		return call(p, e, f[0] == 'F' ? SL_FN_FLOOR_TIME : SL_FN_CEIL_TIME, args, 2);
	}
	if (!strcmp(f, "TRIM") && n == 3 && e->u.call.args[0]->kind == SL_AX_KEYWORD) {
		const char *side = e->u.call.args[0]->u.kw.word;
		sl_fn fn = !strcmp(side, "LEADING") ? SL_FN_TRIM_LEADING
		         : !strcmp(side, "TRAILING") ? SL_FN_TRIM_TRAILING : SL_FN_TRIM_BOTH;
		sl_expr *t[2];
		if (!(t[0] = sl__bind_expr(p, s, e->u.call.args[2])) ||
		    !(t[1] = sl__bind_expr(p, s, e->u.call.args[1])))
			return NULL;
		return call(p, e, fn, t, 2);
	}
	if ((!strcmp(f, "TIMESTAMPADD") || !strcmp(f, "TIMESTAMPDIFF")) && n == 3) {
		if (!(args[0] = unit_lit(p, e->u.call.args[0])) || bind_args(p, s, e, 1, args))
			return NULL;
		return call(p, e, f[9] == 'A' ? SL_FN_TIMESTAMPADD : SL_FN_TIMESTAMPDIFF, args, 3);
	}
	if (!strcmp(f, "CURRENT_WATERMARK")) {
		if (n != 1 || bind_args(p, s, e, 0, args))
			return n != 1 ? sl__plan_error(p, e->line, e->col, SL_EPLAN,
			                               "CURRENT_WATERMARK takes one argument") : NULL;
		if (args[0]->kind != SL_EX_COL || args[0]->col != s->r->rowtime)
			return sl__plan_error(p, e->line, e->col, SL_EPLAN,
			                      "CURRENT_WATERMARK's argument must be the rowtime attribute "
			                      "of the table (a column with a WATERMARK)");
		return call(p, e, SL_FN_CURRENT_WATERMARK, args, 1);
	}
	if (!strncmp(f, "TUMBLE", 6) || !strncmp(f, "HOP", 3) || !strncmp(f, "SESSION", 7) ||
	    !strncmp(f, "CUMULATE", 8))
		return sl__plan_error(p, e->line, e->col, SL_EPLAN,
		                      "%s is only allowed with a GROUP BY window of the same kind", f);
	int handled;
	sl_expr *tx = sl__bind_time_call(p, s, e, &handled); /* bind_time.c */
	if (handled)
		return tx;
	sl_expr *sx;
	if (sl__bind_fn_call(p, s, e, &sx))
		return sx;
	const sl_func_def *udf = p->cat ? sl_catalog_function(p->cat, f) : NULL;
	if (udf)
		return sl__bind_udf_call(p, s, e, udf);
	int fn = sl_fn_from_name(f);
	const char *missing = fn < 0 ? sl__flink_missing_fn(f) : NULL;
	if (missing)
		return sl__plan_error(p, e->line, e->col, SL_ENOTSUP, missing, f);
	if (fn < 0)
		return sl__plan_error(p, e->line, e->col, SL_EPLAN,
		                      "No match found for function signature %s (unknown function)", f);
	if (bind_args(p, s, e, 0, args))
		return NULL;
	if ((fn == SL_FN_FLOOR || fn == SL_FN_CEIL) && n == 1 && sl_type_is_timestamp(args[0]->type))
		return sl__plan_error(p, e->line, e->col, SL_EPLAN, "use FLOOR(ts TO unit)");
	return call(p, e, (sl_fn)fn, args, n);
}

/* In an aggregate scope: the output column an expression maps to, or -1. */
static int agg_lookup(planner *p, const scope *s, const sl_ast_expr *e)
{
	if (!s->agg || e->kind == SL_AX_LITERAL)
		return -1;
	const char *t = sl__ast_text(p, e);
	for (int i = 0; i < s->agg->n; i++)
		if (strcmp(s->agg->text[i], t) == 0)
			return s->agg->col[i];
	return -1;
}

sl_expr *sl__bind_expr(planner *p, const scope *s, const sl_ast_expr *e)
{
	int ac = agg_lookup(p, s, e);
	if (ac >= 0)
		return sl_expr_col(p->a, ac, s->r->cols[ac].type);
	switch (e->kind) {
	case SL_AX_LITERAL: return bind_literal(p, e);
	case SL_AX_COLUMN: return bind_column(p, s, e);
	case SL_AX_UNARY: {
		sl_expr *x = sl__bind_expr(p, s, e->u.op.a);
		if (!x)
			return NULL;
		return call(p, e, e->u.op.op == SL_AOP_NOT ? SL_FN_NOT : SL_FN_NEG, &x, 1);
	}
	case SL_AX_BINARY: return bind_binary(p, s, e);
	case SL_AX_IS: return bind_is(p, s, e);
	case SL_AX_BETWEEN: return bind_between(p, s, e);
	case SL_AX_IN_LIST: return bind_in(p, s, e);
	case SL_AX_LIKE: return bind_like(p, s, e);
	case SL_AX_CASE: return bind_case(p, s, e);
	case SL_AX_CAST: return bind_cast(p, s, e);
	case SL_AX_CALL: return bind_call(p, s, e);
	case SL_AX_FIELD: {
		sl_expr *x = sl__bind_expr(p, s, e->u.field.a);
		return x ? field_access(p, x, &e->u.field.field) : NULL;
	}
	case SL_AX_STAR:
		return sl__plan_error(p, e->line, e->col, SL_EPLAN, "'*' is not allowed here");
	case SL_AX_SUBQUERY:
		for (int i = p->nscalar - 1; i >= 0; i--) /* planned by plan_subquery.c */
			if (p->scalar_at[i] == e)
				for (int c = 0; c < s->r->ncols; c++)
					if (!strcmp(s->r->cols[c].name, p->scalar_col[i]))
						return sl_expr_col(p->a, c, s->r->cols[c].type);
		return sl__plan_error(p, e->line, e->col, SL_ENOTSUP,
		                      "a scalar subquery here is not supported (it is in WHERE and in "
		                      "the SELECT list of a query without aggregates)");
	case SL_AX_IN_QUERY:
	case SL_AX_EXISTS:
		return sl__plan_error(p, e->line, e->col, SL_ENOTSUP,
		                      "IN and EXISTS subqueries are only supported as conditions of "
		                      "WHERE joined by AND");
	default:
		return sl__plan_error(p, e->line, e->col, SL_EPLAN, "unexpected expression");
	}
}
