/*
 * plan_match.c - MATCH_RECOGNIZE (Flink's subset of SQL row pattern
 * recognition) as one MatchRecognize node (exec/op_match.h), hashed by
 * its PARTITION BY columns.  The mechanism: docs/match_recognize.md.
 *
 * DEFINE conditions and MEASURES are rewritten before binding: every
 * pattern navigation in them becomes a reference to a column "$mrK" of a
 * virtual relation, the nav list (op_match.h), and they are bound over
 * that relation alone:
 *   A.x            LAST(A.x, 0)   (the current row in A's own DEFINE)
 *   x              LAST(x, 0)     (every row: the current / last row)
 *   LAST(A.e, n)   FIRST(A.e, n)  PREV(A.e, n)
 *   agg(A.e)       COUNT, SUM, AVG, MIN, MAX ... over A's rows (COUNT(*):
 *                  every row)
 *   MATCH_ROWTIME() the rowtime of the match's last row
 * A navigation argument e reads one pattern variable at most; it is bound
 * over the input with the qualifier removed, and when it is more than a
 * column it becomes a derived column the operator evaluates per row.
 *
 * Refused here, by name: ALL ROWS PER MATCH, ORDER BY other than an
 * ascending event-time attribute first (processing time included: not
 * yet), further ORDER BY keys, PARTITION BY expressions, an updating
 * input, patterns that may match no row, a greedy quantifier on the last
 * term and the reluctant optional ?? (as Flink), CLASSIFIER(),
 * MATCH_PROCTIME(), NEXT(), DISTINCT / FILTER / user-defined aggregates,
 * string MIN / MAX, navigation nested in a navigation argument, and
 * subqueries.
 */
#include "plan_int.h"
#include "sluice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct mctx {
	planner *p;
	const sl_ast_match *m;
	rel *in;
	int nvars;
	const char **vars;
	int nnav, navcap;
	sl_match_nav *navs;
	int nder, dercap;
	sl_expr **der;
	const char **derkeys;
	int strip;          /* rewriting a navigation argument (qualifiers off) */
	int argvar;         /* its variable: -2 none yet, -1 none, else the var */
} mctx;

static void *grow(mctx *x, void *arr, int n, int *cap, size_t sz)
{
	if (n < *cap)
		return arr;
	int nc = *cap ? *cap * 2 : 8;
	void *na = sl_arena_alloc(x->p->a, sz * (size_t)nc);
	if (!na)
		return NULL;
	if (n)
		memcpy(na, arr, sz * (size_t)n);
	*cap = nc;
	return na;
}

/* Index of name in names[0..n): exact, else case-insensitive; -1. */
static int find_name(const char *const *names, int n, const char *name)
{
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++)
			if (pass ? !strcasecmp(names[i], name) : !strcmp(names[i], name))
				return i;
	return -1;
}

static int find_col(const rel *in, const char *name)
{
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < in->ncols; i++)
			if (pass ? !strcasecmp(in->cols[i].name, name) : !strcmp(in->cols[i].name, name))
				return i;
	return -1;
}

static void *merr(mctx *x, const sl_ast_expr *e, int code, const char *msg)
{
	return sl__plan_error(x->p, e->line, e->col, code, "%s", msg);
}

/* An AST reference to nav k. */
static sl_ast_expr *nav_ref(mctx *x, int k, const sl_ast_expr *at)
{
	sl_ast_expr *c = sl_arena_calloc(x->p->a, sizeof(*c));
	sl_ast_ident *id = sl_arena_calloc(x->p->a, sizeof(*id));
	if (!c || !id)
		return NULL;
	c->kind = SL_AX_COLUMN;
	c->line = at->line;
	c->col = at->col;
	c->height = 1;
	id->name = sl_arena_printf(x->p->a, "$mr%d", k);
	id->line = at->line;
	id->col = at->col;
	c->u.name.n = 1;
	c->u.name.parts = id;
	return id->name ? c : NULL;
}

/* Nav k for (kind, var, col, off, agg), added when new. */
static int nav_add(mctx *x, sl_match_nav_kind kind, int var, int col, int off,
                   const sl_agg *agg, sl_type type)
{
	for (int k = 0; k < x->nnav; k++) {
		const sl_match_nav *n = &x->navs[k];
		if (n->kind == kind && n->var == var && n->col == col && n->off == off &&
		    (kind != SL_MNAV_AGG || n->agg.vt == agg->vt))
			return k;
	}
	if (!(x->navs = grow(x, x->navs, x->nnav, &x->navcap, sizeof(*x->navs))))
		return -1;
	sl_match_nav *n = &x->navs[x->nnav];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->var = var;
	n->col = col;
	n->off = off;
	if (agg)
		n->agg = *agg;
	n->type = type;
	if (kind != SL_MNAV_AGG)
		n->type.notnull = 0;
	return x->nnav++;
}

static sl_ast_expr *rw(mctx *x, const sl_ast_expr *e);

/* The row column navigation argument a reads (*col; -1 with an error),
 * and its variable (*var, -1 for none). */
static int nav_arg(mctx *x, const sl_ast_expr *a, int *var, int *col)
{
	x->strip = 1;
	x->argvar = -2;
	sl_ast_expr *s = rw(x, a);
	x->strip = 0;
	*var = x->argvar < 0 ? -1 : x->argvar;
	if (!s)
		return -1;
	scope sc = {.r = x->in};
	sl_expr *b = sl__bind_expr(x->p, &sc, s);
	if (!b)
		return -1;
	if (b->kind == SL_EX_COL) {
		*col = b->col;
		return 0;
	}
	const char *key = sl__ast_text(x->p, s);
	for (int i = 0; i < x->nder; i++)
		if (key && x->derkeys[i] && !strcmp(key, x->derkeys[i])) {
			*col = x->in->ncols + i;
			return 0;
		}
	int c1 = x->dercap, c2 = x->dercap;
	if (!(x->der = grow(x, x->der, x->nder, &c1, sizeof(*x->der))) ||
	    !(x->derkeys = grow(x, x->derkeys, x->nder, &c2, sizeof(*x->derkeys))))
		return -1;
	x->dercap = c1;
	x->der[x->nder] = b;
	x->derkeys[x->nder] = key;
	*col = x->in->ncols + x->nder++;
	return 0;
}

/* The row type of row column c. */
static sl_type row_type(mctx *x, int c)
{
	return c < x->in->ncols ? x->in->cols[c].type : x->der[c - x->in->ncols]->type;
}

/* The integer literal offset argument a (>= 0) into *out. */
static int offset_arg(mctx *x, const sl_ast_expr *f, const sl_ast_expr *a, int *out)
{
	if (a->kind != SL_AX_LITERAL || a->u.lit.kind != SL_AL_INTEGER || strlen(a->u.lit.text) > 9) {
		merr(x, a, SL_EPLAN, sl_arena_printf(x->p->a, "the offset of %s must be a "
		                                     "non-negative integer literal",
		                                     f->u.call.fname));
		return -1;
	}
	*out = atoi(a->u.lit.text);
	return 0;
}

/* FIRST / LAST / PREV calls. */
static sl_ast_expr *rw_offset(mctx *x, const sl_ast_expr *e, sl_match_nav_kind kind)
{
	const char *f = e->u.call.fname;
	int n = e->u.call.nargs, var, col, off = kind == SL_MNAV_PREV ? 1 : 0;
	if (n < 1 || n > 2)
		return merr(x, e, SL_EPLAN, sl_arena_printf(x->p->a, "%s takes one or two arguments",
		                                            f));
	if (n == 2 && offset_arg(x, e, e->u.call.args[1], &off))
		return NULL;
	if (nav_arg(x, e->u.call.args[0], &var, &col))
		return NULL;
	int k = nav_add(x, kind, var, col, off, NULL, row_type(x, col));
	return k < 0 ? NULL : nav_ref(x, k, e);
}

/* Aggregate calls over pattern variables. */
static sl_ast_expr *rw_agg(mctx *x, const sl_ast_expr *e)
{
	const char *f = e->u.call.fname;
	if (sl__udaf(x->p, e))
		return merr(x, e, SL_ENOTSUP, "user-defined aggregate functions in MATCH_RECOGNIZE "
		                              "are not supported yet");
	if (e->u.call.distinct)
		return merr(x, e, SL_ENOTSUP, "DISTINCT aggregates in MATCH_RECOGNIZE are not "
		                              "supported (nor in Flink)");
	if (e->u.call.filter)
		return merr(x, e, SL_ENOTSUP, "FILTER in MATCH_RECOGNIZE aggregates is not "
		                              "supported yet");
	sl_agg a;
	memset(&a, 0, sizeof(a));
	a.vt = sl_agg_find(f);
	int star = e->u.call.star || e->u.call.nargs == 0, var = -1, col = -1;
	if (!a.vt || (star && strcmp(a.vt->name, "COUNT")) || (!star && e->u.call.nargs != 1))
		return merr(x, e, SL_ENOTSUP, sl_arena_printf(x->p->a, "aggregate %s with these "
		                                              "arguments is not supported in "
		                                              "MATCH_RECOGNIZE", f));
	if (!star && nav_arg(x, e->u.call.args[0], &var, &col))
		return NULL;
	a.arg_type = star ? sl_type_make(SL_T_BIGINT) : row_type(x, col);
	a.arg_col = col;
	a.filter_col = -1;
	a.line = e->line;
	a.col = e->col;
	if (a.vt->result_type(a.arg_type, star, &a.out_type, x->p->err)) {
		char msg[SL_ERR_MAX];
		snprintf(msg, sizeof(msg), "%s", x->p->err->msg);
		int code = x->p->err->code;
		sl_err_clear(x->p->err);
		return merr(x, e, code, msg);
	}
	if (sl_agg_is_str(&a) || !strcmp(a.vt->name, "ARRAY_AGG"))
		return merr(x, e, SL_ENOTSUP, sl_arena_printf(x->p->a, "%s over this argument type "
		                                              "is not supported in MATCH_RECOGNIZE "
		                                              "yet", f));
	int k = nav_add(x, SL_MNAV_AGG, var, col, 0, &a, a.out_type);
	return k < 0 ? NULL : nav_ref(x, k, e);
}

/* A column reference: a navigation, or (in an argument) the input column. */
static sl_ast_expr *rw_column(mctx *x, const sl_ast_expr *e)
{
	const sl_ast_name *nm = &e->u.name;
	int var = -1;
	if (nm->n > 2)
		return merr(x, e, SL_ENOTSUP, "nested field access is not supported in "
		                              "MATCH_RECOGNIZE");
	if (nm->n == 2 && (var = find_name(x->vars, x->nvars, nm->parts[0].name)) < 0)
		return merr(x, e, SL_EPLAN, sl_arena_printf(x->p->a, "unknown pattern variable %s "
		                                            "(the PATTERN's variables qualify "
		                                            "columns here)", nm->parts[0].name));
	const char *cn = nm->parts[nm->n - 1].name;
	int col = find_col(x->in, cn);
	if (col < 0)
		return merr(x, e, SL_EPLAN, sl_arena_printf(x->p->a, "column %s not found in the "
		                                            "input of MATCH_RECOGNIZE", cn));
	if (x->strip) {
		if (x->argvar >= -1 && var >= 0 && x->argvar >= 0 && x->argvar != var)
			return merr(x, e, SL_EPLAN, "a navigation or aggregate argument must reference "
			                            "one pattern variable");
		if (var >= 0)
			x->argvar = var;
		sl_ast_expr *c = sl_arena_alloc(x->p->a, sizeof(*c));
		if (!c)
			return NULL;
		*c = *e;
		c->u.name.n = 1;
		c->u.name.parts = &nm->parts[nm->n - 1];
		return c;
	}
	int k = nav_add(x, SL_MNAV_LAST, var, col, 0, NULL, x->in->cols[col].type);
	return k < 0 ? NULL : nav_ref(x, k, e);
}

/* Calls: navigations, aggregates, refused functions, or plain calls. */
static sl_ast_expr *rw_call(mctx *x, const sl_ast_expr *e)
{
	const char *f = e->u.call.fname;
	int nav = !strcmp(f, "FIRST") || !strcmp(f, "LAST") || !strcmp(f, "PREV") ||
	          !strcmp(f, "MATCH_ROWTIME") || sl__is_agg_call(x->p, e);
	if (e->u.call.over)
		return merr(x, e, SL_ENOTSUP, "OVER windows are not supported in MATCH_RECOGNIZE");
	if (!strcmp(f, "NEXT"))
		return merr(x, e, SL_ENOTSUP, "NEXT is not supported in MATCH_RECOGNIZE (nor in "
		                              "Flink)");
	if (!strcmp(f, "CLASSIFIER") || !strcmp(f, "MATCH_PROCTIME") || !strcmp(f, "MATCH_NUMBER"))
		return merr(x, e, SL_ENOTSUP, sl_arena_printf(x->p->a, "%s() is not supported in "
		                                              "MATCH_RECOGNIZE yet", f));
	if (nav && x->strip)
		return merr(x, e, SL_ENOTSUP, sl_arena_printf(x->p->a, "%s inside a navigation or "
		                                              "aggregate argument is not supported "
		                                              "in MATCH_RECOGNIZE", f));
	if (!strcmp(f, "FIRST"))
		return rw_offset(x, e, SL_MNAV_FIRST);
	if (!strcmp(f, "LAST"))
		return rw_offset(x, e, SL_MNAV_LAST);
	if (!strcmp(f, "PREV"))
		return rw_offset(x, e, SL_MNAV_PREV);
	if (!strcmp(f, "MATCH_ROWTIME")) {
		int t = x->in->rowtime;
		if (e->u.call.nargs > 1)
			return merr(x, e, SL_EPLAN, "MATCH_ROWTIME takes at most one argument");
		if (e->u.call.nargs == 1) {
			const sl_ast_expr *a = e->u.call.args[0];
			if (a->kind != SL_AX_COLUMN ||
			    find_col(x->in, a->u.name.parts[a->u.name.n - 1].name) != t)
				return merr(x, a, SL_EPLAN, "the argument of MATCH_ROWTIME must be the "
				                            "rowtime attribute");
		}
		int k = nav_add(x, SL_MNAV_LAST, -1, t, 0, NULL, x->in->cols[t].type);
		return k < 0 ? NULL : nav_ref(x, k, e);
	}
	if (sl__is_agg_call(x->p, e))
		return rw_agg(x, e);
	sl_ast_expr *c = sl_arena_alloc(x->p->a, sizeof(*c));
	sl_ast_expr **args = sl_arena_alloc(x->p->a, sizeof(*args) * (size_t)(e->u.call.nargs + 1));
	if (!c || !args)
		return NULL;
	*c = *e;
	c->u.call.args = args;
	for (int i = 0; i < e->u.call.nargs; i++)
		if (!(args[i] = rw(x, e->u.call.args[i])))
			return NULL;
	return c;
}

/* Rewrites child *slot in place (NULL stays NULL); 0 or -1. */
static int rw_slot(mctx *x, sl_ast_expr **slot)
{
	if (!*slot)
		return 0;
	return (*slot = rw(x, *slot)) ? 0 : -1;
}

static int rw_list(mctx *x, sl_ast_expr ***list, int n)
{
	sl_ast_expr **l = sl_arena_alloc(x->p->a, sizeof(*l) * (size_t)(n + 1));
	if (!l)
		return -1;
	for (int i = 0; i < n; i++)
		if (!(l[i] = rw(x, (*list)[i])))
			return -1;
	*list = l;
	return 0;
}

/* A copy of e with its navigations replaced (see the header); NULL with
 * p->err set. */
static sl_ast_expr *rw(mctx *x, const sl_ast_expr *e)
{
	sl_ast_expr *c;
	switch (e->kind) {
	case SL_AX_LITERAL:
	case SL_AX_KEYWORD:
		return (sl_ast_expr *)e;
	case SL_AX_COLUMN:
		return rw_column(x, e);
	case SL_AX_CALL:
		return rw_call(x, e);
	case SL_AX_UNARY:
	case SL_AX_BINARY:
	case SL_AX_IS:
	case SL_AX_BETWEEN:
	case SL_AX_IN_LIST:
	case SL_AX_LIKE:
	case SL_AX_CASE:
	case SL_AX_CAST:
	case SL_AX_FIELD:
		break;
	default:
		return merr(x, e, SL_ENOTSUP, "this expression (a subquery, * or a table argument) "
		                              "is not supported in MATCH_RECOGNIZE");
	}
	if (!(c = sl_arena_alloc(x->p->a, sizeof(*c))))
		return NULL;
	*c = *e;
	int rc = 0;
	switch (e->kind) {
	case SL_AX_UNARY:
	case SL_AX_BINARY:
		rc = rw_slot(x, &c->u.op.a) || rw_slot(x, &c->u.op.b);
		break;
	case SL_AX_IS:
		rc = rw_slot(x, &c->u.is.a) || rw_slot(x, &c->u.is.b);
		break;
	case SL_AX_BETWEEN:
		rc = rw_slot(x, &c->u.between.a) || rw_slot(x, &c->u.between.lo) ||
		     rw_slot(x, &c->u.between.hi);
		break;
	case SL_AX_IN_LIST:
		rc = rw_slot(x, &c->u.in.a) || rw_list(x, &c->u.in.list, c->u.in.nlist);
		break;
	case SL_AX_LIKE:
		rc = rw_slot(x, &c->u.like.a) || rw_slot(x, &c->u.like.pattern) ||
		     rw_slot(x, &c->u.like.escape);
		break;
	case SL_AX_CASE:
		rc = rw_slot(x, &c->u.case_.operand) ||
		     rw_list(x, &c->u.case_.when, c->u.case_.nwhen) ||
		     rw_list(x, &c->u.case_.then, c->u.case_.nwhen) || rw_slot(x, &c->u.case_.else_);
		break;
	case SL_AX_CAST:
		rc = rw_slot(x, &c->u.cast.a);
		break;
	case SL_AX_FIELD:
		rc = rw_slot(x, &c->u.field.a);
		break;
	default:
		break;
	}
	return rc ? NULL : c;
}

/* ---- the clause ------------------------------------------------------------------ */

/* The pattern's variables (x->vars) and terms; checks Flink's rules. */
static sl_match_term *plan_pattern(mctx *x)
{
	const sl_ast_match *m = x->m;
	planner *p = x->p;
	if (m->nterms > SL_MATCH_MAX_TERMS)
		return sl__plan_error(p, m->line, m->col, SL_ENOTSUP, "a PATTERN of more than %d "
		                      "terms is not supported", SL_MATCH_MAX_TERMS);
	sl_match_term *t = sl_arena_calloc(p->a, sizeof(*t) * (size_t)(m->nterms + 1));
	x->vars = sl_arena_calloc(p->a, sizeof(char *) * (size_t)(m->nterms + 1));
	if (!t || !x->vars)
		return NULL;
	int all_optional = 1;
	for (int i = 0; i < m->nterms; i++) {
		const sl_ast_match_term *a = &m->terms[i];
		int v = find_name(x->vars, x->nvars, a->var.name);
		if (v < 0) {
			v = x->nvars;
			x->vars[x->nvars++] = a->var.name;
		}
		if ((a->max >= 0 && a->max < a->min) || a->max == 0)
			return sl__plan_error(p, a->line, a->col, SL_EPLAN, "invalid quantifier of %s: "
			                      "{%d,%d}", a->var.name, a->min, a->max);
		if (a->reluctant && a->min == 0 && a->max == 1)
			return sl__plan_error(p, a->line, a->col, SL_ENOTSUP, "the reluctant optional "
			                      "quantifier (%s?\?) is not supported (nor in Flink)",
			                      a->var.name);
		t[i].var = v;
		t[i].min = a->min;
		t[i].max = a->max;
		t[i].greedy = !a->reluctant;
		all_optional &= a->min == 0;
	}
	const sl_ast_match_term *last = &m->terms[m->nterms - 1];
	if (all_optional)
		return sl__plan_error(p, m->line, m->col, SL_ENOTSUP, "patterns that can produce an "
		                      "empty match are not supported (as in Flink)");
	if (!last->reluctant && last->min != last->max)
		return sl__plan_error(p, last->line, last->col, SL_ENOTSUP, "a greedy quantifier on "
		                      "the last variable of a PATTERN is not supported (as in Flink); "
		                      "end the pattern with a variable whose condition negates %s's",
		                      last->var.name);
	if (last->min == 0)
		return sl__plan_error(p, last->line, last->col, SL_ENOTSUP, "the last variable of a "
		                      "PATTERN must match at least one row");
	return t;
}

/* PARTITION BY columns and the ORDER BY time attribute. */
static int plan_order(mctx *x, int **keys, int *time_col)
{
	const sl_ast_match *m = x->m;
	planner *p = x->p;
	scope sc = {.r = x->in};
	*keys = sl_arena_calloc(p->a, sizeof(int) * (size_t)(m->npartition + 1));
	if (!*keys)
		return SL_ENOMEM;
	for (int i = 0; i < m->npartition; i++) {
		sl_expr *k = sl__bind_expr(p, &sc, m->partition[i]);
		if (!k)
			return SL_EPLAN;
		if (k->kind != SL_EX_COL) {
			sl__plan_error(p, m->partition[i]->line, m->partition[i]->col, SL_ENOTSUP,
			               "PARTITION BY an expression is not supported in MATCH_RECOGNIZE; "
			               "compute it in a subquery first");
			return SL_EPLAN;
		}
		(*keys)[i] = k->col;
	}
	if (m->norder < 1) {
		sl__plan_error(p, m->line, m->col, SL_EPLAN, "MATCH_RECOGNIZE needs ORDER BY a time "
		               "attribute (ascending)");
		return SL_EPLAN;
	}
	const sl_ast_order *o = &m->order[0];
	sl_expr *t = sl__bind_expr(p, &sc, o->expr);
	if (!t)
		return SL_EPLAN;
	if (t->kind == SL_EX_COL && t->col == x->in->proctime && !o->desc) {
		sl__plan_error(p, o->line, o->col, SL_ENOTSUP, "MATCH_RECOGNIZE ordered by a "
		               "processing-time attribute is not supported yet; order by an "
		               "event-time attribute (WATERMARK FOR ..)");
		return SL_EPLAN;
	}
	if (t->kind != SL_EX_COL || t->col != x->in->rowtime || o->desc) {
		sl__plan_error(p, o->line, o->col, SL_EPLAN, "MATCH_RECOGNIZE must be ordered by a "
		               "time attribute first, ascending (the input's rowtime%s%s)",
		               x->in->rowtime >= 0 ? " " : ": it has none",
		               x->in->rowtime >= 0 ? x->in->cols[x->in->rowtime].name : "");
		return SL_EPLAN;
	}
	if (m->norder > 1) {
		sl__plan_error(p, m->order[1].line, m->order[1].col, SL_ENOTSUP, "ORDER BY keys "
		               "after the time attribute are not supported in MATCH_RECOGNIZE yet");
		return SL_EPLAN;
	}
	*time_col = t->col;
	return 0;
}

/* The variable a DEFINE / SKIP TO names, or -1 with the error. */
static int pattern_var(mctx *x, const sl_ast_ident *id, const char *where)
{
	int v = find_name(x->vars, x->nvars, id->name);
	if (v < 0)
		sl__plan_error(x->p, id->line, id->col, SL_EPLAN, "%s names %s, which is not a "
		               "variable of the PATTERN", where, id->name);
	return v;
}

/* The EXPLAIN label, also the node's identity text. */
static const char *match_label(mctx *x, const int *keys, int time_col)
{
	const sl_ast_match *m = x->m;
	planner *p = x->p;
	static const char *const skips[] = {"SKIP PAST LAST ROW", "SKIP TO NEXT ROW",
	                                    "SKIP TO FIRST ", "SKIP TO LAST "};
	sl_buf b;
	sl_buf_init(&b);
	sl_buf_puts(&b, "MatchRecognize(partitionBy=[");
	for (int i = 0; i < m->npartition; i++)
		sl_buf_printf(&b, "%s%s", i ? ", " : "", x->in->cols[keys[i]].name);
	sl_buf_printf(&b, "], orderBy=[%s ASC], measures=[", x->in->cols[time_col].name);
	for (int i = 0; i < m->nmeasures; i++)
		sl_buf_printf(&b, "%s%s AS %s", i ? ", " : "", sl__ast_text(p, m->measures[i]),
		              m->measure_names[i].name);
	sl_buf_printf(&b, "], rowsPerMatch=[ONE ROW PER MATCH], after=[%s%s], pattern=[",
	              skips[m->skip], m->skip >= SL_AMS_TO_FIRST ? m->skip_var.name : "");
	for (int i = 0; i < m->nterms; i++) {
		const sl_ast_match_term *t = &m->terms[i];
		sl_buf_printf(&b, "%s%s", i ? " " : "", t->var.name);
		if (t->min == 1 && t->max == 1)
			continue;
		if (t->min == 0 && t->max < 0)
			sl_buf_puts(&b, "*");
		else if (t->min == 1 && t->max < 0)
			sl_buf_puts(&b, "+");
		else if (t->min == 0 && t->max == 1)
			sl_buf_puts(&b, "?");
		else if (t->max < 0)
			sl_buf_printf(&b, "{%d,}", t->min);
		else if (t->min == t->max)
			sl_buf_printf(&b, "{%d}", t->min);
		else
			sl_buf_printf(&b, "{%d,%d}", t->min, t->max);
		if (t->reluctant)
			sl_buf_puts(&b, "?");
	}
	sl_buf_puts(&b, "]");
	if (m->within)
		sl_buf_printf(&b, ", within=[%s]", sl__ast_text(p, m->within));
	sl_buf_puts(&b, ", define=[");
	for (int i = 0; i < m->ndefines; i++)
		sl_buf_printf(&b, "%s%s AS %s", i ? ", " : "", m->define_vars[i].name,
		              sl__ast_text(p, m->defines[i]));
	sl_buf_puts(&b, "])");
	const char *s = b.p ? sl_arena_printf(p->a, "%.*s", (int)b.len, b.p) : NULL;
	sl_buf_deinit(&b);
	return s;
}

/*
 * Plans MATCH item f over its planned input `in`: the MatchRecognize node
 * and its output relation (key columns, then measures; append-only, no
 * time attribute).  NULL with p->err set.
 */
rel *sl__plan_match(planner *p, const sl_ast_from *f, rel *in)
{
	const sl_ast_match *m = f->u.match;
	mctx x = {.p = p, .m = m, .in = in};
	sl_match_plan mp = {0};
	int *keys = NULL, time_col = -1;
	if (m->all_rows)
		return sl__plan_error(p, m->all_rows_line, m->all_rows_col, SL_ENOTSUP,
		                      "ALL ROWS PER MATCH is not supported (nor in Flink); use ONE "
		                      "ROW PER MATCH");
	if (in->updating)
		return sl__plan_error(p, m->line, m->col, SL_EPLAN, "MATCH_RECOGNIZE needs an "
		                      "append-only input, but %s makes it updating",
		                      in->upd_op ? in->upd_op : "its input");
	sl_match_term *terms = plan_pattern(&x);
	if (!terms || plan_order(&x, &keys, &time_col))
		return NULL;
	mp.nkeys = m->npartition;
	mp.key_cols = keys;
	mp.time_col = time_col;
	mp.nterms = m->nterms;
	mp.terms = terms;
	mp.nvars = x.nvars;
	mp.var_names = x.vars;
	mp.within = -1;
	mp.skip = (int)m->skip;
	if (m->skip == SL_AMS_TO_FIRST || m->skip == SL_AMS_TO_LAST) {
		if ((mp.skip_var = pattern_var(&x, &m->skip_var, "AFTER MATCH SKIP")) < 0)
			return NULL;
	}
	if (m->within) {
		if (sl__bind_interval(p, m->within, &mp.within))
			return NULL;
		if (mp.within <= 0)
			return sl__plan_error(p, m->within->line, m->within->col, SL_EPLAN,
			                      "WITHIN needs a positive interval");
	}
	/* rewrite first (the navs and derived columns grow), bind after */
	sl_ast_expr **defs = sl_arena_calloc(p->a, sizeof(*defs) * (size_t)(x.nvars + 1));
	sl_ast_expr **meas = sl_arena_calloc(p->a, sizeof(*meas) * (size_t)(m->nmeasures + 1));
	if (!defs || !meas)
		return NULL;
	for (int i = 0; i < m->ndefines; i++) {
		int v = pattern_var(&x, &m->define_vars[i], "DEFINE");
		if (v < 0)
			return NULL;
		if (defs[v])
			return sl__plan_error(p, m->define_vars[i].line, m->define_vars[i].col,
			                      SL_EPLAN, "%s is defined twice", m->define_vars[i].name);
		if (!(defs[v] = rw(&x, m->defines[i])))
			return NULL;
	}
	for (int i = 0; i < m->nmeasures; i++)
		if (!(meas[i] = rw(&x, m->measures[i])))
			return NULL;
	rel *nav = sl__rel_new(p, x.nnav);
	sl_expr **conds = sl_arena_calloc(p->a, sizeof(*conds) * (size_t)(x.nvars + 1));
	sl_expr **mx = sl_arena_calloc(p->a, sizeof(*mx) * (size_t)(m->nmeasures + 1));
	rel *out = sl__rel_new(p, m->npartition + m->nmeasures);
	if (!nav || !conds || !mx || !out)
		return NULL;
	for (int k = 0; k < x.nnav; k++) {
		nav->cols[k].name = sl_arena_printf(p->a, "$mr%d", k);
		nav->cols[k].type = x.navs[k].type;
	}
	scope ns = {.r = nav};
	for (int v = 0; v < x.nvars; v++) {
		if (!defs[v])
			continue;
		if (!(conds[v] = sl__bind_expr(p, &ns, defs[v])))
			return NULL;
		if (conds[v]->type.id != SL_T_BOOLEAN)
			return sl__plan_error(p, defs[v]->line, defs[v]->col, SL_EPLAN, "the DEFINE "
			                      "condition of %s must be BOOLEAN", x.vars[v]);
	}
	for (int i = 0; i < m->nmeasures; i++)
		if (!(mx[i] = sl__bind_expr(p, &ns, meas[i])))
			return NULL;
	mp.conds = conds;
	mp.nderived = x.nder;
	mp.derived = x.der;
	mp.nnav = x.nnav;
	mp.navs = x.navs;
	mp.nmeasures = m->nmeasures;
	mp.measures = mx;
	for (int i = 0; i < m->npartition; i++)
		out->cols[i] = (rcol){NULL, in->cols[keys[i]].name, in->cols[keys[i]].type};
	for (int i = 0; i < m->nmeasures; i++)
		out->cols[m->npartition + i] = (rcol){NULL, m->measure_names[i].name, mx[i]->type};
	const char *label = match_label(&x, keys, time_col);
	if (!label)
		return NULL;
	mp.text = label;
	if (!sl__node_new(p, SL_OPK_MATCH, &mp, sizeof(mp), &in->node, 1, NULL, out, label))
		return NULL;
	return out;
}
