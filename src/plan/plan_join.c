/*
 * plan_join.c - plans JOIN ... ON: regular, interval, window, temporal and
 * lookup joins.
 *
 * The ON condition is bound against the concatenation of both sides'
 * columns (left then right, each keeping its qualifier, so L.x and R.x
 * resolve), or comes bound (the WHERE of a comma join, plan_comma.c; a
 * subquery's condition, plan_subquery.c), and is split into its conjuncts:
 *   - L.a = R.b (plain columns of opposite sides): an equi-key;
 *   - f(L..) = g(R..) (each side an expression of its own columns): an
 *     expression key, computed by a Calc in front of the join that appends
 *     it to the side's columns; a Calc after the join projects the output
 *     back to L ++ R (lookup and temporal joins: the left side only);
 *   - L.ts [+/- interval] <op> R.ts [+/- interval] with both ts the sides'
 *     rowtimes and <op> one of < <= > >= (BETWEEN binds to two of them):
 *     a bound on L.ts - R.ts;
 *   - L.window_start = R.window_start and L.window_end = R.window_end, when
 *     both sides are the same window TVF (rel.win): the window of a window
 *     join (the two stay equi-keys as well);
 *   - anything else: the residual predicate, evaluated over joined rows.
 * Time bounds on both sides (a lower and an upper one) make an interval
 * join; the two window equalities a window join; otherwise it is a
 * regular join, whose output loses the inputs'
 * time attributes (as in Flink: a window over them is then a planning
 * error) and keeps their one-sided time bounds as residual conditions.  A
 * condition without an equality between the sides (a theta join, CROSS
 * JOIN and NATURAL JOIN without a common column: ON TRUE, whose literal is
 * dropped) gives a join without keys, which plan_dist.c runs singleton, as
 * Flink does; temporal and lookup joins still need one.  JOIN ... USING (c, ...) is the condition
 * L.c = R.c AND ..., and its output has each USING column once, first
 * (COALESCE of both sides for FULL joins), as in SQL.
 *
 * Changelog kinds: a regular join is append-only only when it is an inner
 * join of two append-only inputs; interval and window joins need
 * append-only inputs and produce append-only output.
 *
 * Semi and anti joins (sl__plan_semi_join, for IN / EXISTS / NOT IN / NOT
 * EXISTS): the same split, no key required, no interval join; the window
 * equalities of two same window TVFs make a window semi / anti join
 * (op_window_join.c), anything else the semi join operator
 * (op_semi_join.c).  Scalar subqueries (sl__plan_scalar_join): a LEFT
 * regular join ON TRUE (no keys) with the subquery, checking at run time
 * that it holds at most one row unless it is a global aggregate.
 *
 * JOIN t FOR SYSTEM_TIME AS OF x (sl__plan_as_of_join, called by
 * plan_query.c before the right side is planned): x is the left side's
 * rowtime -> an event-time temporal join against t, a table with a PRIMARY
 * KEY and a WATERMARK or a deduplicating ROW_NUMBER view (its PARTITION BY
 * columns are the key), whose key columns must all be in ON equalities;
 * x is the left side's PROCTIME() column -> a lookup join against t, a
 * table whose connector has a lookup method (conn.h), by the ON
 * equalities.  Both INNER or LEFT over an append-only left side, with
 * append-only output keeping the left time attributes.
 */
#include "plan_join.h"
#include "../exec/join.h"
#include "../connector/conn.h"
#include "sluice.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The split ON condition. */
typedef struct join_cond {
	int nkeys;
	int *lkeys, *rkeys;       /* equi-keys (side-local column indexes) */
	int nres;
	sl_expr **res;            /* residual conjuncts */
	int nbound;               /* time-bound conjuncts (kept for the residual) */
	sl_expr **bound;
	int has_lo, has_hi;
	int64_t lo, hi;           /* L.ts - R.ts in [lo, hi] */
	int wstart, wend;         /* window_start / window_end equalities seen */
	int window, interval;     /* the join's kind (neither: regular) */
	sl_expr *residual;        /* AND of res, NULL = none */
	/* Expression keys (ON MOD(l.x, 10) = r.k): computed by a Calc in front
	 * of the join, appended to the side's columns; lkeys[i] >= l->ncols
	 * (rkeys[i] >= r->ncols) names them.  Both over the joined row. */
	int nlx, nrx;
	sl_expr **lx, **rx;
	int as_of;                /* SPLIT_AS_OF / SPLIT_SEMI flags */
} join_cond;

/* split_on modes */
#define SPLIT_AS_OF 1 /* temporal / lookup join: right keys are columns */
#define SPLIT_SEMI 2  /* semi / anti join: no key needed, no time classes */

static const char *kind_name(sl_join_kind k)
{
	static const char *n[] = {"InnerJoin", "LeftOuterJoin", "RightOuterJoin", "FullOuterJoin",
	                          "LeftSemiJoin", "LeftAntiJoin"};
	return n[k];
}

/* Flattens AND into conjuncts. */
static void conjuncts(sl_expr *e, sl_expr **out, int *n, int cap)
{
	if (e->kind == SL_EX_CALL && e->fn == SL_FN_AND) {
		for (int i = 0; i < e->nargs; i++)
			conjuncts(e->args[i], out, n, cap);
		return;
	}
	if (*n < cap)
		out[(*n)++] = e;
}

sl_expr *sl__lit_true(planner *p)
{
	sl_value t;
	memset(&t, 0, sizeof(t));
	t.v.i64 = 1;
	sl_expr *e = sl_expr_lit(p->a, sl_type_make(SL_T_BOOLEAN), t);
	if (!e)
		sl_err_set(p->err, SL_ENOMEM, "out of memory");
	return e;
}

/* 1 when e is the literal TRUE (ON TRUE, a CROSS JOIN): no condition. */
static int lit_true(const sl_expr *e)
{
	return e->kind == SL_EX_LIT && e->type.id == SL_T_BOOLEAN && !e->lit.is_null &&
	       e->lit.v.i64 != 0;
}

/* e is col or col +/- day-time interval literal: sets *col and *off. */
static int linear(const sl_expr *e, int *col, int64_t *off)
{
	if (e->kind == SL_EX_COL) {
		*col = e->col;
		*off = 0;
		return 1;
	}
	if (e->kind != SL_EX_CALL || e->nargs != 2 || (e->fn != SL_FN_ADD && e->fn != SL_FN_SUB))
		return 0;
	const sl_expr *a = e->args[0], *b = e->args[1];
	if (e->fn == SL_FN_ADD && a->kind == SL_EX_LIT && b->kind == SL_EX_COL) {
		const sl_expr *t = a;
		a = b;
		b = t;
	}
	if (a->kind != SL_EX_COL || b->kind != SL_EX_LIT || b->type.id != SL_T_INTERVAL_DT ||
	    b->lit.is_null)
		return 0;
	*col = a->col;
	*off = e->fn == SL_FN_ADD ? b->lit.v.i64 : -b->lit.v.i64;
	return 1;
}

/* A time bound L.ts - R.ts <op> c: updates lo/hi and returns 1, else 0. */
static int time_bound(join_cond *c, const sl_expr *e, int lt, int rt)
{
	if (e->kind != SL_EX_CALL || e->nargs != 2 || lt < 0 || rt < 0)
		return 0;
	sl_fn fn = e->fn;
	if (fn != SL_FN_LT && fn != SL_FN_LE && fn != SL_FN_GT && fn != SL_FN_GE)
		return 0;
	int ca, cb;
	int64_t oa, ob;
	if (!linear(e->args[0], &ca, &oa) || !linear(e->args[1], &cb, &ob))
		return 0;
	int64_t k;
	if (ca == lt && cb == rt) {
		k = ob - oa; /* L + oa op R + ob  =>  L - R op ob - oa */
	} else if (ca == rt && cb == lt) {
		k = oa - ob; /* R + oa op L + ob  =>  L - R op' oa - ob */
		fn = fn == SL_FN_LT ? SL_FN_GT : fn == SL_FN_LE ? SL_FN_GE
		   : fn == SL_FN_GT ? SL_FN_LT : SL_FN_LE;
	} else {
		return 0;
	}
	if (fn == SL_FN_GT || fn == SL_FN_GE) {
		int64_t lo = fn == SL_FN_GT ? k + 1 : k; /* micros are integers */
		if (!c->has_lo || lo > c->lo)
			c->lo = lo;
		c->has_lo = 1;
	} else {
		int64_t hi = fn == SL_FN_LT ? k - 1 : k;
		if (!c->has_hi || hi < c->hi)
			c->hi = hi;
		c->has_hi = 1;
	}
	return 1;
}

/* The column an interval join bounds on: the rowtime, else a window end
 * that stands for it (rel.wend_time1: a window's results, whose rows are
 * never late for their window's end); -1 when none. */
static int time_col(const rel *r)
{
	return r->rowtime >= 0 ? r->rowtime : r->wend_time1 ? r->wend_time1 - 1 : -1;
}

/* Key columns must encode alike (data/rowcodec.h): integers together, strings
 * together, DECIMALs of one scale, otherwise the same type. */
static int key_compatible(sl_type a, sl_type b)
{
	if (sl_type_is_integer(a) && sl_type_is_integer(b))
		return 1;
	if ((sl_type_is_string(a) && sl_type_is_string(b)) ||
	    (sl_type_is_binary(a) && sl_type_is_binary(b)))
		return 1;
	if (a.id == SL_T_DECIMAL && b.id == SL_T_DECIMAL)
		return a.scale == b.scale;
	return a.id == b.id && a.id != SL_T_ROW && a.id != SL_T_DECIMAL;
}

/* The column under implicit casts (the binder widens one side of '='). */
static const sl_expr *key_col(const sl_expr *e)
{
	while (e->kind == SL_EX_CALL && e->fn == SL_FN_CAST && e->nargs == 1)
		e = e->args[0];
	return e->kind == SL_EX_COL ? e : NULL;
}

/* Which sides expression e reads (over the joined row, nl left columns):
 * bit 0 the left, bit 1 the right. */
static int sides_of(const sl_expr *e, int nl)
{
	if (e->kind == SL_EX_COL)
		return e->col < nl ? 1 : 2;
	int m = 0;
	for (int i = 0; e->kind == SL_EX_CALL && i < e->nargs; i++)
		m |= sides_of(e->args[i], nl);
	return m;
}

static int key_type_error(planner *p, const sl_ast_expr *on, const char *a, sl_type ta,
                          const char *b, sl_type tb)
{
	char sa[64], sb[64];
	sl__plan_error(p, on->line, on->col, SL_ENOTSUP,
	               "join key %s (%s) and %s (%s) have types that do not compare as equal "
	               "keys; CAST one side to the other's type", a,
	               sl_type_format(ta, sa, sizeof(sa)), b, sl_type_format(tb, sb, sizeof(sb)));
	return SL_EPLAN;
}

static const char *col_text(planner *p, const rcol *c)
{
	return sl_arena_printf(p->a, "%s.%s", c->qual ? c->qual : "", c->name);
}

/* An equality between an expression of the left side and one of the right
 * side that is not a plain column pair: an expression key.  Returns 1
 * (added), 0 (not one: residual) or SL_EPLAN. */
static int expr_key(planner *p, const sl_ast_expr *on, join_cond *c, const sl_expr *e,
                    const rel *l, const rel *r)
{
	int nl = l->ncols;
	sl_expr *a = e->args[0], *b = e->args[1];
	int sa = sides_of(a, nl), sb = sides_of(b, nl);
	if (sa == 2 && sb == 1) {
		sl_expr *t = a;
		a = b;
		b = t;
		sa = 1;
		sb = 2;
	}
	if (sa != 1 || sb != 2)
		return 0;
	const sl_expr *ca = key_col(a), *cb = key_col(b);
	if ((c->as_of & SPLIT_AS_OF) && !cb)
		return 0; /* the right side of a lookup / temporal key is a column */
	sl_type ta = ca ? l->cols[ca->col].type : a->type;
	sl_type tb = cb ? r->cols[cb->col - nl].type : b->type;
	if (!key_compatible(ta, tb))
		return key_type_error(p, on, ca ? col_text(p, &l->cols[ca->col]) : "expression",
		                      ta, cb ? col_text(p, &r->cols[cb->col - nl]) : "expression", tb);
	if (ca) {
		c->lkeys[c->nkeys] = ca->col;
	} else {
		c->lkeys[c->nkeys] = nl + c->nlx;
		c->lx[c->nlx++] = a;
	}
	if (cb) {
		c->rkeys[c->nkeys] = cb->col - nl;
	} else {
		c->rkeys[c->nkeys] = r->ncols + c->nrx;
		c->rx[c->nrx++] = b;
	}
	c->nkeys++;
	return 1;
}

/* Classifies one conjunct.  Returns 0 or SL_EPLAN (error set). */
static int classify(planner *p, const sl_ast_expr *on, join_cond *c, sl_expr *e, const rel *l,
                    const rel *r, int window)
{
	int nl = l->ncols;
	const sl_expr *ka = NULL, *kb = NULL;
	if (e->kind == SL_EX_CALL && e->fn == SL_FN_EQ && (ka = key_col(e->args[0])) &&
	    (kb = key_col(e->args[1]))) {
		int a = ka->col, b = kb->col;
		if (a >= nl && b < nl) {
			int t = a;
			a = b;
			b = t;
		}
		if (a < nl && b >= nl) {
			b -= nl;
			if (window && a == l->win_end && b == r->win_end)
				c->wend = 1;
			if (window && a == l->win_start && b == r->win_start)
				c->wstart = 1;
			if (!key_compatible(l->cols[a].type, r->cols[b].type))
				return key_type_error(p, on, col_text(p, &l->cols[a]), l->cols[a].type,
				                      col_text(p, &r->cols[b]), r->cols[b].type);
			c->lkeys[c->nkeys] = a;
			c->rkeys[c->nkeys++] = b;
			return 0;
		}
	}
	if (e->kind == SL_EX_CALL && e->fn == SL_FN_EQ && e->nargs == 2) {
		int k = expr_key(p, on, c, e, l, r);
		if (k)
			return k < 0 ? k : 0;
	}
	join_cond probe;
	memset(&probe, 0, sizeof(probe));
	if (time_bound(&probe, e, l->proctime, r->proctime >= 0 ? nl + r->proctime : -1)) {
		sl__plan_error(p, on->line, on->col, SL_ENOTSUP,
		               "processing-time interval joins are not supported (bounds between "
		               "PROCTIME() attributes)");
		return SL_EPLAN;
	}
	int rtc = time_col(r);
	if (time_bound(c, e, time_col(l), rtc >= 0 ? nl + rtc : -1)) {
		c->bound[c->nbound++] = e;
		return 0;
	}
	c->res[c->nres++] = e;
	return 0;
}

static sl_expr *and_all(planner *p, sl_expr **x, int n)
{
	if (n == 0)
		return NULL;
	sl_expr *acc = x[0]; /* AND is binary */
	for (int i = 1; acc && i < n; i++) {
		sl_expr *two[2] = {acc, x[i]};
		acc = sl_expr_call(p->a, SL_FN_AND, two, 2, NULL, 0, p->err);
	}
	return acc;
}

/* The joined rel: l's columns then r's; the side an outer join pads with
 * NULLs is nullable whatever its own types say. */
static rel *joined_rel(planner *p, const rel *l, const rel *r, sl_join_kind kind)
{
	rel *j = sl__rel_new(p, l->ncols + r->ncols);
	if (!j)
		return NULL;
	for (int i = 0; i < l->ncols; i++) {
		j->cols[i] = l->cols[i];
		if (kind == SL_JOIN_RIGHT || kind == SL_JOIN_FULL)
			j->cols[i].type.notnull = 0;
	}
	for (int i = 0; i < r->ncols; i++) {
		j->cols[l->ncols + i] = r->cols[i];
		if (kind == SL_JOIN_LEFT || kind == SL_JOIN_FULL)
			j->cols[l->ncols + i].type.notnull = 0;
	}
	return j;
}

static const char *join_label(planner *p, const char *op, sl_join_kind k, const rel *j,
                              const join_cond *c, const sl_expr *res, const char *extra)
{
	const char **cn = sl_arena_alloc(p->a, sizeof(char *) * (size_t)(j->ncols + 1));
	for (int i = 0; i < j->ncols; i++)
		cn[i] = j->cols[i].name;
	sl_buf s;
	sl_buf_init(&s);
	sl_buf_printf(&s, "%s(joinType=[%s], leftKeys=[", op, kind_name(k));
	for (int i = 0; i < c->nkeys; i++)
		sl_buf_printf(&s, "%s%s", i ? ", " : "", cn[c->lkeys[i]]);
	sl_buf_puts(&s, "], rightKeys=[");
	for (int i = 0; i < c->nkeys; i++)
		sl_buf_printf(&s, "%s%s", i ? ", " : "", cn[c->rkeys[i]]);
	sl_buf_puts(&s, "]");
	if (extra)
		sl_buf_printf(&s, ", %s", extra);
	if (res) {
		char buf[1024];
		sl_buf_printf(&s, ", where=[%s]", sl_expr_format(res, cn, buf, sizeof(buf)));
	}
	sl_buf_puts(&s, ")");
	const char *out = sl_arena_strndup(p->a, s.p, s.len);
	sl_buf_deinit(&s);
	return out;
}

/* The column of rel x named `name` (unqualified, exact), -1 absent, -2 twice. */
static int side_col(const rel *x, const char *name)
{
	int found = -1;
	for (int i = 0; i < x->ncols; i++)
		if (strcmp(x->cols[i].name, name) == 0) {
			if (found >= 0)
				return -2;
			found = i;
		}
	return found;
}

/* NATURAL JOIN: *nf is f joining USING the columns whose names both sides
 * have, in the left side's order (SQL; Calcite expands it the same way).
 * A name twice on one side is ambiguous; no common name would be a cross
 * join, refused like CROSS JOIN.  0, or SL_EPLAN with p->err set. */
static int natural_using(planner *p, const sl_ast_from *f, const rel *l, const rel *r,
                         sl_ast_from *nf)
{
	*nf = *f;
	nf->u.join.natural = 0;
	nf->u.join.using_ = sl_arena_calloc(p->a, sizeof(sl_ast_ident) * (size_t)(l->ncols + 1));
	nf->u.join.nusing = 0;
	if (!nf->u.join.using_)
		return sl_err_set(p->err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < l->ncols; i++) {
		const char *name = l->cols[i].name;
		int rc = side_col(r, name), lc = side_col(l, name);
		if (rc == -1)
			continue;
		if (rc == -2 || lc == -2) {
			sl__plan_error(p, f->line, f->col, SL_EPLAN, "NATURAL JOIN: column '%s' is "
			               "ambiguous in the %s side", name, rc == -2 ? "right" : "left");
			return SL_EPLAN;
		}
		sl_ast_ident *u = &nf->u.join.using_[nf->u.join.nusing++];
		u->name = name;
		u->line = f->line;
		u->col = f->col;
	}
	return 0; /* no common column: a cross join (sl__plan_join) */
}

/* JOIN ... USING (c1, ...): the condition l.c1 = r.c1 AND ...; lcols and
 * rcols get the columns.  NULL with p->err set. */
static sl_expr *using_cond(planner *p, const sl_ast_from *f, const rel *l, const rel *r,
                           int *lcols, int *rcols)
{
	int n = f->u.join.nusing;
	sl_expr **eq = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)n);
	for (int i = 0; i < n; i++) {
		const sl_ast_ident *u = &f->u.join.using_[i];
		lcols[i] = side_col(l, u->name);
		rcols[i] = side_col(r, u->name);
		if (lcols[i] < 0 || rcols[i] < 0)
			return sl__plan_error(p, u->line, u->col, SL_EPLAN,
			                      "USING column '%s' %s the %s side of the join", u->name,
			                      (lcols[i] < 0 ? lcols[i] : rcols[i]) == -1 ? "is not in"
			                                                               : "is ambiguous in",
			                      lcols[i] < 0 ? "left" : "right");
		sl_expr *a[2] = {sl_expr_col(p->a, lcols[i], l->cols[lcols[i]].type),
		                 sl_expr_col(p->a, l->ncols + rcols[i], r->cols[rcols[i]].type)};
		if (!(eq[i] = sl_expr_call(p->a, SL_FN_EQ, a, 2, NULL, 0, p->err)))
			return sl__plan_error(p, u->line, u->col, SL_EPLAN, "USING column '%s': %s",
			                      u->name, p->err->msg);
	}
	sl_expr *c = and_all(p, eq, n);
	return c ? c : sl__plan_error(p, f->line, f->col, SL_EPLAN, "%s", p->err->msg);
}

/* The columns of a USING join, as in SQL: each USING column once (the left
 * one; the right one for RIGHT joins; COALESCE of both for FULL), then the
 * other columns of each side. */
static rel *using_project(planner *p, const sl_ast_from *f, rel *j, int nl, sl_join_kind kind,
                          const int *lcols, const int *rcols)
{
	int n = f->u.join.nusing, k = 0;
	sl_expr **x = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(j->ncols + 1));
	const char **names = sl_arena_alloc(p->a, sizeof(char *) * (size_t)(j->ncols + 1));
	uint8_t *skip = sl_arena_calloc(p->a, (size_t)j->ncols + 1);
	for (int i = 0; i < n; i++) {
		int a = lcols[i], b = nl + rcols[i];
		sl_expr *la = sl_expr_col(p->a, a, j->cols[a].type);
		sl_expr *rb = sl_expr_col(p->a, b, j->cols[b].type);
		sl_expr *both[2] = {la, rb};
		x[k] = kind == SL_JOIN_FULL ? sl_expr_call(p->a, SL_FN_COALESCE, both, 2, NULL, 0, p->err)
		     : kind == SL_JOIN_RIGHT ? rb : la;
		if (!x[k])
			return sl__plan_error(p, f->line, f->col, SL_EPLAN, "%s", p->err->msg);
		names[k++] = j->cols[a].name;
		skip[a] = skip[b] = 1;
	}
	for (int i = 0; i < j->ncols; i++)
		if (!skip[i]) {
			x[k] = sl_expr_col(p->a, i, j->cols[i].type);
			names[k++] = j->cols[i].name;
		}
	rel *out = sl__add_calc(p, j, NULL, x, k, names);
	for (int i = 0; out && i < n; i++) /* USING columns answer to the left name */
		out->cols[i].qual = j->cols[lcols[i]].qual;
	return out;
}

/* What an EXPLAIN label of the join shows. */
typedef struct join_lab {
	sl_join_kind kind;
	const rel *j;
	const join_cond *shown; /* right keys as joined-row columns */
} join_lab;

static const char *lab_text(planner *p, const join_lab *lb, const char *op, const char *extra)
{
	return join_label(p, op, lb->kind, lb->j, lb->shown, lb->shown->residual, extra);
}

static int same_window(const sl_window_spec *a, const sl_window_spec *b)
{
	return a->kind == b->kind && a->size == b->size && a->slide == b->slide &&
	       a->offset == b->offset &&
	       (a->tz == b->tz || (a->tz && b->tz && strcmp(a->tz, b->tz) == 0));
}

/* Binds the ON condition over j (l ++ r) (or takes cond, already bound,
 * with `on` only a position for messages) and splits it into c: keys, time
 * bounds, window equalities, residual; decides window / interval join.
 * Returns 0 or SL_EPLAN with p->err set. */
static int split_on(planner *p, const sl_ast_expr *on, sl_expr *cond, rel *j, const rel *l,
                    const rel *r, join_cond *c, int mode)
{
	if (!cond) {
		j->rowtime = l->rowtime; /* CURRENT_WATERMARK in ON sees the left rowtime */
		scope s = {j, NULL, NULL};
		cond = sl__bind_expr(p, &s, on);
		j->rowtime = -1;
	}
	if (!cond)
		return SL_EPLAN;
	if (cond->type.id != SL_T_BOOLEAN) {
		char b[64];
		sl__plan_error(p, on->line, on->col, SL_EPLAN, "a join condition must be BOOLEAN, not %s",
		               sl_type_format(cond->type, b, sizeof(b)));
		return SL_EPLAN;
	}
	sl_expr *conj[128];
	int nconj = 0;
	conjuncts(cond, conj, &nconj, 128);
	if (nconj >= 128) {
		sl__plan_error(p, on->line, on->col, SL_ENOTSUP,
		               "a join condition with more than 127 conjuncts is not supported");
		return SL_EPLAN;
	}
	memset(c, 0, sizeof(*c));
	c->lkeys = sl_arena_alloc(p->a, sizeof(int) * (size_t)(nconj + 1));
	c->rkeys = sl_arena_alloc(p->a, sizeof(int) * (size_t)(nconj + 1));
	c->res = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(nconj + 1));
	c->bound = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(nconj + 1));
	c->lx = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(nconj + 1));
	c->rx = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(nconj + 1));
	c->as_of = mode;
	int window = l->win && r->win;
	for (int i = 0; i < nconj; i++)
		if (!lit_true(conj[i]) && classify(p, on, c, conj[i], l, r, window))
			return SL_EPLAN;
	if (c->nkeys == 0 && (mode & SPLIT_AS_OF)) {
		sl__plan_error(p, on->line, on->col, SL_ENOTSUP,
		               "a join FOR SYSTEM_TIME AS OF needs at least one equality between a "
		               "column of each side (e.g. ON a.k = b.k), as in Flink");
		return SL_EPLAN;
	}
	c->window = window && c->wstart && c->wend;
	if (c->window && (l->win->proc || r->win->proc)) {
		sl__plan_error(p, on->line, on->col, SL_ENOTSUP,
		               "a window join over processing-time windows is not supported");
		return SL_EPLAN;
	}
	if (c->window && !same_window(l->win, r->win)) {
		sl__plan_error(p, on->line, on->col, SL_ENOTSUP,
		               "a window join needs both sides to be the same window TVF "
		               "(kind, size, slide and offset)");
		return SL_EPLAN;
	}
	c->interval = !c->window && c->has_lo && c->has_hi && !(mode & SPLIT_SEMI);
	if (!c->interval)
		for (int i = 0; i < c->nbound; i++)
			c->res[c->nres++] = c->bound[i];
	c->residual = and_all(p, c->res, c->nres);
	if (c->nres && !c->residual) {
		sl__plan_error(p, on->line, on->col, p->err->code, "%s", p->err->msg);
		return SL_EPLAN;
	}
	return 0;
}

/* A copy of e with every column c replaced by map[c] (arena). */
static sl_expr *remap(planner *p, const sl_expr *e, const int *map)
{
	sl_expr *x = sl_arena_alloc(p->a, sizeof(*x));
	if (!x)
		return NULL;
	*x = *e;
	if (e->kind == SL_EX_COL) {
		x->col = map[e->col];
		return x;
	}
	if (e->kind != SL_EX_CALL || e->nargs == 0)
		return x;
	x->args = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)e->nargs);
	for (int i = 0; x->args && i < e->nargs; i++)
		if (!(x->args[i] = remap(p, e->args[i], map)))
			return NULL;
	return x->args ? x : NULL;
}

/* Side s (l or r, its columns at `base` in the joined row) extended by the
 * key expressions x[0..n) (over the joined row): a Calc keeping every
 * column (and the time attributes, window columns and qualifiers) and
 * appending the keys as $k0, $k1, ...  NULL with p->err set. */
static rel *extend_side(planner *p, const rel *s, int base, int njoined, sl_expr **x, int n)
{
	int nc = s->ncols;
	sl_expr **proj = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(nc + n));
	const char **names = sl_arena_alloc(p->a, sizeof(char *) * (size_t)(nc + n));
	int *map = sl_arena_alloc(p->a, sizeof(int) * (size_t)(njoined + 1));
	for (int i = 0; i < njoined; i++)
		map[i] = i - base;
	for (int i = 0; i < nc; i++) {
		proj[i] = sl_expr_col(p->a, i, s->cols[i].type);
		names[i] = s->cols[i].name;
	}
	for (int i = 0; i < n; i++) {
		if (!(proj[nc + i] = remap(p, x[i], map)))
			return NULL;
		names[nc + i] = sl_arena_printf(p->a, "$k%d", i);
	}
	rel *e = sl__add_calc(p, (rel *)s, NULL, proj, nc + n, names);
	if (e) {
		for (int i = 0; i < nc; i++)
			e->cols[i].qual = s->cols[i].qual;
		e->rowtime = s->rowtime;
		e->proctime = s->proctime;
	}
	return e;
}

/* Computes c's expression keys: *l and *r become sides extended by their
 * key columns, c's residual is remapped to the extended joined row, and
 * *j becomes that row (the caller projects the join's output back to the
 * original columns with restore_cols).  0 or SL_EPLAN. */
static int extend_sides(planner *p, join_cond *c, sl_join_kind kind, rel **l, rel **r, rel **j)
{
	int nl = (*l)->ncols, nr = (*r)->ncols;
	if (c->nlx && !(*l = extend_side(p, *l, 0, nl + nr, c->lx, c->nlx)))
		return SL_EPLAN;
	if (c->nrx && !(*r = extend_side(p, *r, nl, nl + nr, c->rx, c->nrx)))
		return SL_EPLAN;
	int *map = sl_arena_alloc(p->a, sizeof(int) * (size_t)(nl + nr + 1));
	for (int i = 0; i < nl + nr; i++)
		map[i] = i < nl ? i : i + c->nlx;
	if (c->residual && !(c->residual = remap(p, c->residual, map)))
		return SL_EPLAN;
	for (int i = 0; i < c->nres; i++)
		if (!(c->res[i] = remap(p, c->res[i], map)))
			return SL_EPLAN;
	*j = joined_rel(p, *l, *r, kind);
	return *j ? 0 : SL_EPLAN;
}

/* The join's output x (over sides extended by nlx / nrx key columns)
 * projected back to the original joined row `orig` (nl left columns). */
static rel *restore_cols(planner *p, rel *x, const rel *orig, int nl, int nlx)
{
	int n = orig->ncols;
	sl_expr **proj = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(n + 1));
	const char **names = sl_arena_alloc(p->a, sizeof(char *) * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		int from = i < nl ? i : i + nlx;
		proj[i] = sl_expr_col(p->a, from, x->cols[from].type);
		names[i] = orig->cols[i].name;
	}
	rel *out = sl__add_calc(p, x, NULL, proj, n, names);
	for (int i = 0; out && i < n; i++)
		out->cols[i].qual = orig->cols[i].qual;
	return out;
}

static void fill_plan(planner *p, sl_join_plan *jp, sl_join_kind kind, const join_cond *c,
                      const rel *l, const rel *r)
{
	sl_type *lt = sl_arena_alloc(p->a, sizeof(sl_type) * (size_t)(l->ncols + 1));
	sl_type *rt = sl_arena_alloc(p->a, sizeof(sl_type) * (size_t)(r->ncols + 1));
	for (int i = 0; i < l->ncols; i++)
		lt[i] = l->cols[i].type;
	for (int i = 0; i < r->ncols; i++)
		rt[i] = r->cols[i].type;
	memset(jp, 0, sizeof(*jp));
	jp->kind = kind;
	jp->nl = l->ncols;
	jp->nr = r->ncols;
	jp->ltypes = lt;
	jp->rtypes = rt;
	jp->nkeys = c->nkeys;
	jp->lkeys = c->lkeys;
	jp->rkeys = c->rkeys;
	jp->residual = c->residual;
	jp->ltime = c->interval ? time_col(l) : l->rowtime;
	jp->rtime = c->interval ? time_col(r) : r->rowtime;
	jp->lo = c->lo;
	jp->hi = c->hi;
	jp->time_side = kind == SL_JOIN_FULL ? -1 : kind == SL_JOIN_RIGHT ? 1 : 0;
	jp->lwend = c->window ? l->win_end : -1;
	jp->rwend = c->window ? r->win_end : -1;
	jp->tz = c->window ? l->win->tz : NULL;
}

/* Interval and window joins take append-only inputs. */
static int check_append_only(planner *p, const sl_ast_expr *on, const char *what, const rel *l,
                             const rel *r)
{
	if (!l->updating && !r->updating)
		return 0;
	sl__plan_error(p, on->line, on->col, SL_ENOTSUP,
	               "%s needs append-only inputs, but %s makes its %s input updating", what,
	               l->updating ? l->upd_op : r->upd_op, l->updating ? "left" : "right");
	return SL_EPLAN;
}

/* The window join's EXPLAIN label; sets j's rowtime.  SL_OPK_WINDOW_JOIN,
 * or SL_OPK_NONE with p->err set. */
static sl_op_kind window_join(planner *p, const sl_ast_expr *on, const sl_join_plan *jp, rel *j,
                          const rel *l, const rel *r, const join_lab *lb, const char **text)
{
	if (check_append_only(p, on, "a window join", l, r))
		return SL_OPK_NONE;
	if (l->win->kind == SL_WIN_SESSION) {
		sl__plan_error(p, on->line, on->col, SL_ENOTSUP,
		               "a window join over SESSION windows is not supported");
		return SL_OPK_NONE;
	}
	static const char *wk[] = {"TUMBLE", "HOP", "CUMULATE", "SESSION"};
	*text = lab_text(p, lb, "WindowJoin",
	              sl_arena_printf(p->a, "window=[%s(size=%lld ms, slide=%lld ms, offset=%lld ms)]",
	                              wk[l->win->kind], (long long)(l->win->size / 1000),
	                              (long long)(l->win->slide / 1000),
	                              (long long)(l->win->offset / 1000)));
	if (jp->time_side == 0 && l->rowtime >= 0)
		j->rowtime = l->rowtime;
	else if (jp->time_side == 1 && r->rowtime >= 0)
		j->rowtime = l->ncols + r->rowtime;
	return SL_OPK_WINDOW_JOIN;
}

/* The interval join's EXPLAIN label; sets j's rowtime.  SL_OPK_INTERVAL_JOIN,
 * or SL_OPK_NONE with p->err set. */
static sl_op_kind interval_join(planner *p, const sl_ast_expr *on, const sl_join_plan *jp, rel *j,
                            const rel *l, const rel *r, const join_lab *lb, const char **text)
{
	if (check_append_only(p, on, "an interval join", l, r))
		return SL_OPK_NONE;
	const rcol *lc = &l->cols[jp->ltime], *rc = &r->cols[jp->rtime];
	if (jp->lo > jp->hi) {
		sl__plan_error(p, on->line, on->col, SL_EPLAN,
		               "the interval join's time bounds are empty: %s.%s - %s.%s must "
		               "be >= %lld ms and <= %lld ms", lc->qual ? lc->qual : "",
		               lc->name, rc->qual ? rc->qual : "", rc->name,
		               (long long)(jp->lo / 1000), (long long)(jp->hi / 1000));
		return SL_OPK_NONE;
	}
	*text = lab_text(p, lb, "IntervalJoin",
	              sl_arena_printf(p->a, "windowBounds=[isRowTime=true, leftLowerBound=%lld, "
	                              "leftUpperBound=%lld, leftTimeIndex=%d, rightTimeIndex=%d]",
	                              (long long)(jp->lo / 1000), (long long)(jp->hi / 1000),
	                              jp->ltime, jp->rtime));
	/* the output's time attribute is the kept side's rowtime (none when
	 * that side bounded on a window end) */
	if (jp->time_side == 0)
		j->rowtime = l->rowtime;
	else if (jp->time_side == 1)
		j->rowtime = r->rowtime >= 0 ? l->ncols + r->rowtime : -1;
	return SL_OPK_INTERVAL_JOIN;
}

/* A join node of kind k (parameters params, size bytes) over l (input 0)
 * and r (input 1; NULL: one input) with output j; an error of the node's
 * operator is reported at pos.  j, or NULL with p->err set. */
static rel *add_join(planner *p, sl_op_kind k, const void *params, size_t size, rel *j,
                     const rel *l, const rel *r, const char *label, int line, int col)
{
	sl_pnode *in[2] = {l->node, r ? r->node : NULL};
	if (sl__node_new(p, k, params, size, in, r ? 2 : 1, NULL, j, label))
		return j;
	if (p->err->code != SL_ENOMEM)
		sl__plan_error(p, line, col, p->err->code, "%s", p->err->msg);
	return NULL;
}

/* The join of l and r of kind `kind` on condition `on` (AST, bound here)
 * or `cond` (bound over l ++ r; `on` then only a position): a regular,
 * interval or window join, with Calcs for expression keys.  The result
 * has l's columns then r's.  NULL with p->err set. */
static rel *join_rels(planner *p, sl_join_kind kind, const sl_ast_expr *on, sl_expr *cond,
                      rel *l, rel *r)
{
	rel *j = joined_rel(p, l, r, kind), *orig = j;
	int nl = l->ncols;
	join_cond c;
	if (!j || split_on(p, on, cond, j, l, r, &c, 0))
		return NULL;
	int nlx = c.nlx, extended = c.nlx || c.nrx;
	if (extended && extend_sides(p, &c, kind, &l, &r, &j))
		return NULL;
	sl_join_plan jp;
	fill_plan(p, &jp, kind, &c, l, r);
	/* EXPLAIN shows the right keys as joined-row columns */
	join_cond shown = c;
	shown.rkeys = sl_arena_alloc(p->a, sizeof(int) * (size_t)(c.nkeys + 1));
	for (int i = 0; i < c.nkeys; i++)
		shown.rkeys[i] = c.rkeys[i] + l->ncols;
	join_lab lb = {kind, j, &shown};
	const char *label = NULL;
	sl_op_kind k;
	if (c.window) {
		k = window_join(p, on, &jp, j, l, r, &lb, &label);
	} else if (c.interval) {
		k = interval_join(p, on, &jp, j, l, r, &lb, &label);
	} else {
		label = lab_text(p, &lb, "Join", NULL);
		k = SL_OPK_JOIN;
		j->updating = l->updating || r->updating || kind != SL_JOIN_INNER;
		j->upd_op = l->updating ? l->upd_op : r->updating ? r->upd_op : label;
	}
	if (k == SL_OPK_NONE)
		return NULL; /* refused above, p->err set */
	if (!add_join(p, k, &jp, sizeof(jp), j, l, r, label, on->line, on->col))
		return NULL;
	return extended ? restore_cols(p, j, orig, nl, nlx) : j;
}

rel *sl__plan_join(planner *p, const sl_ast_from *f, rel *l, rel *r)
{
	sl_join_kind kind;
	switch (f->u.join.type) {
	case SL_AJ_INNER: kind = SL_JOIN_INNER; break;
	case SL_AJ_LEFT: kind = SL_JOIN_LEFT; break;
	case SL_AJ_RIGHT: kind = SL_JOIN_RIGHT; break;
	case SL_AJ_FULL: kind = SL_JOIN_FULL; break;
	case SL_AJ_CROSS: kind = SL_JOIN_INNER; break; /* ON TRUE */
	default:
		return sl__plan_error(p, f->line, f->col, SL_EPLAN, "unexpected join type");
	}
	sl_ast_from nf;
	int natural = f->u.join.natural;
	if (natural) {
		if (natural_using(p, f, l, r, &nf))
			return NULL;
		f = &nf;
	}
	int nusing = f->u.join.nusing;
	/* CROSS JOIN and a NATURAL JOIN without a common column: ON TRUE, a
	 * join without keys (singleton, plan_dist.c), as in Flink */
	int cross = f->u.join.type == SL_AJ_CROSS || (natural && !nusing);
	if (!f->u.join.on && !nusing && !cross)
		return sl__plan_error(p, f->line, f->col, SL_EPLAN, "JOIN needs an ON condition");
	sl_ast_expr using_pos; /* where messages about a USING or CROSS join point */
	memset(&using_pos, 0, sizeof(using_pos));
	using_pos.line = nusing ? f->u.join.using_[0].line : f->line;
	using_pos.col = nusing ? f->u.join.using_[0].col : f->col;
	const sl_ast_expr *on = nusing || cross ? &using_pos : f->u.join.on;
	sl_expr *ucond = cross ? sl__lit_true(p) : NULL;
	if (cross && !ucond)
		return NULL;
	if (l->upsert_key || r->upsert_key)
		return sl__plan_error(p, f->line, f->col, SL_ENOTSUP,
		                      "a join over an upsert stream (%s: deletes may hold only the "
		                      "key) is not supported", l->upsert_key ? l->upd_op : r->upd_op);
	int *lcols = sl_arena_alloc(p->a, sizeof(int) * (size_t)(nusing + 1));
	int *rcols = sl_arena_alloc(p->a, sizeof(int) * (size_t)(nusing + 1));
	if (nusing && !(ucond = using_cond(p, f, l, r, lcols, rcols)))
		return NULL;
	rel *j = join_rels(p, kind, on, ucond, l, r);
	if (!j)
		return NULL;
	return nusing ? using_project(p, f, j, l->ncols, kind, lcols, rcols) : j;
}

rel *sl__plan_join_cond(planner *p, const sl_ast_expr *pos, sl_expr *cond, rel *l, rel *r)
{
	return sl__plan_join_cond_kind(p, pos, 0, cond, l, r);
}

rel *sl__plan_join_cond_kind(planner *p, const sl_ast_expr *pos, int left, sl_expr *cond, rel *l,
                             rel *r)
{
	if (l->upsert_key || r->upsert_key)
		return sl__plan_error(p, pos->line, pos->col, SL_ENOTSUP,
		                      "a join over an upsert stream (%s: deletes may hold only the "
		                      "key) is not supported", l->upsert_key ? l->upd_op : r->upd_op);
	return join_rels(p, left ? SL_JOIN_LEFT : SL_JOIN_INNER, pos, cond, l, r);
}

/* The left columns of the semi / anti join output x over l (extended by
 * nlx key columns): x itself, or a projection dropping the keys. */
static rel *semi_output(planner *p, rel *x, const rel *l, int nl, int nlx)
{
	if (!nlx)
		return x;
	rel *orig = sl__rel_new(p, nl);
	if (!orig)
		return NULL;
	memcpy(orig->cols, l->cols, sizeof(rcol) * (size_t)nl);
	return restore_cols(p, x, orig, nl, 0);
}

/* A window semi / anti join (both sides the same window TVF, the window
 * equalities in the condition): the left rows of each window with / without
 * a match, emitted when the window closes; append-only, keeping the left
 * side's window columns and window_time. */
static rel *window_semi_join(planner *p, const sl_ast_expr *pos, const sl_join_plan *jp,
                             const rel *l, const rel *r, const join_lab *lb, int nl, int nlx)
{
	rel *j = sl__rel_new(p, l->ncols);
	if (!j)
		return NULL;
	const char *label = NULL;
	if (window_join(p, pos, jp, j, l, r, lb, &label) == SL_OPK_NONE)
		return NULL;
	memcpy(j->cols, l->cols, sizeof(rcol) * (size_t)l->ncols);
	j->rowtime = l->rowtime;
	j->win = l->win;
	j->win_start = l->win_start;
	j->win_end = l->win_end;
	if (!add_join(p, SL_OPK_WINDOW_JOIN, jp, sizeof(*jp), j, l, r, label, pos->line, pos->col))
		return NULL;
	return semi_output(p, j, l, nl, nlx);
}

rel *sl__plan_semi_join(planner *p, const sl_ast_expr *pos, sl_expr *cond, rel *l, rel *r,
                        int anti)
{
	if (l->upsert_key || r->upsert_key)
		return sl__plan_error(p, pos->line, pos->col, SL_ENOTSUP,
		                      "a subquery over an upsert stream (%s: deletes may hold only the "
		                      "key) is not supported", l->upsert_key ? l->upd_op : r->upd_op);
	rel *j = joined_rel(p, l, r, SL_JOIN_INNER); /* only l's columns are output */
	int nl = l->ncols;
	join_cond c;
	if (!j || split_on(p, pos, cond, j, l, r, &c, SPLIT_SEMI))
		return NULL;
	int nlx = c.nlx;
	if ((c.nlx || c.nrx) && extend_sides(p, &c, SL_JOIN_INNER, &l, &r, &j))
		return NULL;
	sl_join_kind kind = anti ? SL_JOIN_ANTI : SL_JOIN_SEMI;
	sl_join_plan jp;
	fill_plan(p, &jp, kind, &c, l, r);
	join_cond shown = c;
	shown.rkeys = sl_arena_alloc(p->a, sizeof(int) * (size_t)(c.nkeys + 1));
	for (int i = 0; i < c.nkeys; i++)
		shown.rkeys[i] = c.rkeys[i] + l->ncols;
	join_lab lb = {kind, j, &shown};
	const char *label = NULL;
	if (c.window)
		return window_semi_join(p, pos, &jp, l, r, &lb, nl, nlx);
	label = lab_text(p, &lb, "Join", NULL);
	rel *out = sl__rel_new(p, l->ncols);
	if (!out)
		return NULL;
	memcpy(out->cols, l->cols, sizeof(rcol) * (size_t)l->ncols);
	out->updating = l->updating || r->updating || anti;
	out->upd_op = l->updating ? l->upd_op : r->updating ? r->upd_op : label;
	sl_semi_join_params sp = {jp, anti};
	if (!add_join(p, SL_OPK_SEMI_JOIN, &sp, sizeof(sp), out, l, r, label, pos->line, pos->col))
		return NULL;
	return semi_output(p, out, l, nl, nlx);
}

rel *sl__plan_scalar_join(planner *p, const sl_ast_expr *pos, rel *l, rel *sub, int single)
{
	rel *j = joined_rel(p, l, sub, SL_JOIN_LEFT);
	if (!j)
		return NULL;
	join_cond c;
	memset(&c, 0, sizeof(c)); /* ON TRUE: no keys, no residual */
	sl_join_plan jp;
	fill_plan(p, &jp, SL_JOIN_LEFT, &c, l, sub);
	jp.single_right = single;
	jp.single_line = pos->line;
	jp.single_col = pos->col;
	join_lab lb = {SL_JOIN_LEFT, j, &c};
	const char *label = lab_text(p, &lb, "Join", single ? "singleRow=[true]" : NULL);
	j->updating = 1;
	j->upd_op = l->updating ? l->upd_op : sub->updating ? sub->upd_op : label;
	return add_join(p, SL_OPK_JOIN, &jp, sizeof(jp), j, l, sub, label, pos->line, pos->col);
}

/* ---- FOR SYSTEM_TIME AS OF: temporal and lookup joins ----------------------- */

/* 1 when `name` is a WITH query or a view (not a catalog table). */
static int is_query_name(planner *p, const char *name)
{
	for (int i = 0; i < p->nctes; i++)
		if (strcmp(p->ctes[i].name, name) == 0)
			return 1;
	return sl_catalog_view(p->cat, name) != NULL;
}

/* The kind of a temporal or lookup join: INNER or LEFT; NULL when refused. */
static int as_of_kind(planner *p, const sl_ast_from *f, sl_join_kind *kind)
{
	if (f->u.join.type == SL_AJ_INNER || f->u.join.type == SL_AJ_LEFT) {
		*kind = f->u.join.type == SL_AJ_INNER ? SL_JOIN_INNER : SL_JOIN_LEFT;
		if (f->u.join.on && !f->u.join.nusing)
			return 0;
		sl__plan_error(p, f->line, f->col, SL_ENOTSUP,
		               "a join FOR SYSTEM_TIME AS OF needs an ON condition (USING is not "
		               "supported for it)");
		return SL_EPLAN;
	}
	sl__plan_error(p, f->line, f->col, SL_ENOTSUP,
	               "a join FOR SYSTEM_TIME AS OF supports INNER and LEFT joins only (as Flink)");
	return SL_EPLAN;
}

/* The ON condition of a temporal or lookup join split into c: equi-keys and
 * a residual (time bounds, if any, stay in the residual). */
static int as_of_cond(planner *p, const sl_ast_from *f, rel *j, const rel *l, const rel *r,
                      join_cond *c)
{
	if (split_on(p, f->u.join.on, NULL, j, l, r, c, SPLIT_AS_OF))
		return SL_EPLAN;
	if (c->interval) {
		for (int i = 0; i < c->nbound; i++)
			c->res[c->nres++] = c->bound[i];
		c->interval = 0;
		c->residual = and_all(p, c->res, c->nres);
		if (!c->residual) {
			sl__plan_error(p, f->u.join.on->line, f->u.join.on->col, p->err->code, "%s",
			               p->err->msg);
			return SL_EPLAN;
		}
	}
	return 0;
}

/* Restricts c's keys to the right-side columns pk[0..npk) (in that order);
 * the other equalities join the residual.  Returns 0 or SL_EPLAN when a
 * PRIMARY KEY column has no equality. */
static int keys_on_pk(planner *p, const sl_ast_from *f, join_cond *c, const rel *l,
                      const rel *r, const int *pk, int npk)
{
	int *lk = sl_arena_alloc(p->a, sizeof(int) * (size_t)(npk + 1));
	int *rk = sl_arena_alloc(p->a, sizeof(int) * (size_t)(npk + 1));
	sl_expr **res = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(c->nres + c->nkeys + 1));
	int nres = c->nres;
	memcpy(res, c->res, sizeof(sl_expr *) * (size_t)c->nres);
	uint8_t *used = sl_arena_calloc(p->a, (size_t)c->nkeys + 1);
	for (int k = 0; k < npk; k++) {
		int i = 0;
		while (i < c->nkeys && (c->rkeys[i] != pk[k] || used[i]))
			i++;
		if (i == c->nkeys) {
			const sl_ast_expr *on = f->u.join.on;
			sl__plan_error(p, on->line, on->col, SL_EPLAN,
			               "the versioned table's PRIMARY KEY column '%s' must be in an "
			               "equality of the temporal join condition (e.g. ON l.x = %s.%s), "
			               "as Flink requires", r->cols[pk[k]].name,
			               r->cols[pk[k]].qual ? r->cols[pk[k]].qual : "r",
			               r->cols[pk[k]].name);
			return SL_EPLAN;
		}
		used[i] = 1;
		lk[k] = c->lkeys[i];
		rk[k] = c->rkeys[i];
	}
	for (int i = 0; i < c->nkeys; i++) {
		if (used[i])
			continue;
		int a = c->lkeys[i], b = l->ncols + c->rkeys[i];
		sl_expr *x[2] = {a >= l->ncols ? c->lx[a - l->ncols] : sl_expr_col(p->a, a, l->cols[a].type),
		                 sl_expr_col(p->a, b, r->cols[c->rkeys[i]].type)};
		if (!(res[nres++] = sl_expr_call(p->a, SL_FN_EQ, x, 2, NULL, 0, p->err)))
			return SL_EPLAN;
	}
	c->lkeys = lk;
	c->rkeys = rk;
	c->nkeys = npk;
	c->res = res;
	c->nres = nres;
	c->residual = and_all(p, res, nres);
	return nres && !c->residual ? SL_EPLAN : 0;
}

/* The joined rel's EXPLAIN label for keys c (right keys shown as joined
 * columns). */
static const char *as_of_label(planner *p, const char *op, sl_join_kind kind, const rel *j,
                               const join_cond *c, int nl, const char *extra)
{
	join_cond shown = *c;
	shown.rkeys = sl_arena_alloc(p->a, sizeof(int) * (size_t)(c->nkeys + 1));
	for (int i = 0; i < c->nkeys; i++)
		shown.rkeys[i] = c->rkeys[i] + nl;
	join_lab lb = {kind, j, &shown};
	return lab_text(p, &lb, op, extra);
}


/* The query of view or WITH query `name` (NULL when it has a column list). */
static const sl_ast_query *named_query(planner *p, const char *name)
{
	for (int i = p->nctes - 1; i >= 0; i--)
		if (strcmp(p->ctes[i].name, name) == 0)
			return p->ctes[i].cte->ncols ? NULL : p->ctes[i].cte->query;
	const sl_view_def *v = sl_catalog_view(p->cat, name);
	return v && !v->ncols ? v->query : NULL;
}

static const char *ast_col_name(const sl_ast_expr *e)
{
	return e && e->kind == SL_AX_COLUMN ? e->u.name.parts[e->u.name.n - 1].name : NULL;
}

/*
 * A deduplicating view as a versioned table (Flink's versioned view):
 *   SELECT ... FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k..
 *                    ORDER BY ts DESC) AS rn FROM t) WHERE rn = 1
 * with ts the rowtime of table t.  Sets the PARTITION BY column names and
 * the ORDER BY column's; 0 when q is not of that shape.
 */
static int dedup_view(planner *p, const sl_ast_query *q, const char ***keys, int *nkeys,
                      const char **tcol)
{
	if (!q || q->kind != SL_AQ_SELECT || !sl__is_rank_query(q->select))
		return 0;
	const sl_ast_select *outer = q->select, *in = outer->from->u.sub.query->select;
	const sl_ast_window *w = NULL;
	const char *rn = NULL;
	for (int i = 0; i < in->nitems; i++) {
		const sl_ast_expr *e = in->items[i].expr;
		if (e->kind == SL_AX_CALL && e->u.call.over && !strcmp(e->u.call.fname, "ROW_NUMBER")) {
			w = e->u.call.over;
			rn = in->items[i].alias ? in->items[i].alias->name : NULL;
		}
	}
	const sl_ast_expr *c = outer->where;
	if (!w || !rn || w->npartition < 1 || w->norder != 1 || !w->order[0].desc ||
	    !ast_col_name(w->order[0].expr) || !c || c->kind != SL_AX_BINARY ||
	    c->u.op.op != SL_AOP_EQ || !ast_col_name(c->u.op.a) ||
	    strcasecmp(ast_col_name(c->u.op.a), rn) || c->u.op.b->kind != SL_AX_LITERAL ||
	    c->u.op.b->u.lit.kind != SL_AL_INTEGER || strcmp(c->u.op.b->u.lit.text, "1") ||
	    !in->from || in->from->kind != SL_AF_TABLE || in->from->u.table.as_of)
		return 0;
	const sl_table_def *t = sl_catalog_table(p->cat, sl_ast_name_last(&in->from->u.table.name));
	*tcol = ast_col_name(w->order[0].expr);
	if (!t || !t->watermark || strcasecmp(t->cols[t->rowtime].name, *tcol))
		return 0;
	*keys = sl_arena_alloc(p->a, sizeof(char *) * (size_t)w->npartition);
	for (int i = 0; i < w->npartition; i++)
		if (!((*keys)[i] = ast_col_name(w->partition[i])))
			return 0;
	*nkeys = w->npartition;
	return 1;
}

/* The column of r named `name` (case-insensitive), or -1. */
static int col_named(const rel *r, const char *name)
{
	for (int i = 0; i < r->ncols; i++)
		if (!strcasecmp(r->cols[i].name, name))
			return i;
	return -1;
}

/* Plans the deduplicating view rf as a versioned table: r (a copy whose
 * rowtime is the ORDER BY column) and its key columns (*pk).  NULL with
 * p->err set. */
static rel *versioned_view(planner *p, const sl_ast_from *rf, sl_plan_side_fn plan_right,
                           int **pk, int *npk)
{
	const char *name = sl_ast_name_last(&rf->u.table.name), **keys, *tcol;
	int nkeys;
	if (!dedup_view(p, named_query(p, name), &keys, &nkeys, &tcol))
		return sl__plan_error(p, rf->line, rf->col, SL_ENOTSUP,
		                      "a temporal join over the view or query '%s' needs it to be a "
		                      "deduplicating view (SELECT ... FROM (SELECT *, ROW_NUMBER() OVER "
		                      "(PARTITION BY key ORDER BY rowtime DESC) AS rn FROM t) WHERE rn = "
		                      "1, without a column list); other views are not supported", name);
	rel *r = plan_right(p, rf);
	if (!r)
		return NULL;
	*pk = sl_arena_alloc(p->a, sizeof(int) * (size_t)nkeys);
	for (int i = 0; i < nkeys; i++)
		if (((*pk)[i] = col_named(r, keys[i])) < 0)
			return sl__plan_error(p, rf->line, rf->col, SL_EPLAN,
			                      "the deduplicating view '%s' must keep its PARTITION BY column "
			                      "'%s' (its key) in its SELECT list", name, keys[i]);
	int t = col_named(r, tcol);
	if (t < 0)
		return sl__plan_error(p, rf->line, rf->col, SL_EPLAN,
		                      "the deduplicating view '%s' must keep its ORDER BY column '%s' "
		                      "(its rowtime) in its SELECT list", name, tcol);
	rel *v = sl__rel_new(p, r->ncols);
	if (!v)
		return NULL;
	memcpy(v->cols, r->cols, sizeof(rcol) * (size_t)r->ncols);
	v->node = r->node;
	v->updating = r->updating;
	v->upd_op = r->upd_op;
	v->rowtime = t;
	*npk = nkeys;
	return v;
}

/* The event-time temporal join of l with versioned table rf. */
static rel *temporal_join(planner *p, const sl_ast_from *f, sl_join_kind kind, rel *l,
                          sl_plan_side_fn plan_right)
{
	const sl_ast_from *rf = f->u.join.right;
	const char *name = sl_ast_name_last(&rf->u.table.name);
	if (l->updating)
		return sl__plan_error(p, f->line, f->col, SL_ENOTSUP,
		                      "a temporal join needs an append-only left (probe) input, but "
		                      "%s makes it updating", l->upd_op);
	int *pk = NULL, npk = 0;
	rel *r;
	if (is_query_name(p, name)) {
		if (!(r = versioned_view(p, rf, plan_right, &pk, &npk)))
			return NULL;
	} else {
		const sl_table_def *td = sl_catalog_table(p->cat, name);
		if (!(r = plan_right(p, rf)))
			return NULL;
		if (!td || td->npk == 0)
			return sl__plan_error(p, rf->line, rf->col, SL_EPLAN,
			                      "a temporal join needs a versioned table: '%s' has no "
			                      "PRIMARY KEY (declare PRIMARY KEY (...) NOT ENFORCED)", name);
		pk = td->pk;
		npk = td->npk;
	}
	if (r->rowtime < 0)
		return sl__plan_error(p, rf->line, rf->col, SL_EPLAN,
		                      "a temporal join needs a versioned table: '%s' has no rowtime "
		                      "(declare a WATERMARK FOR one of its columns)", name);
	if (r->upsert_key)
		return sl__plan_error(p, rf->line, rf->col, SL_ENOTSUP,
		                      "a temporal join over the upsert stream of '%s' is not supported",
		                      name);
	rel *j = joined_rel(p, l, r, kind);
	join_cond c;
	if (!j || as_of_cond(p, f, j, l, r, &c) || keys_on_pk(p, f, &c, l, r, pk, npk))
		return NULL;
	rel *orig = j;
	int nl = l->ncols, nlx = c.nlx;
	if (nlx && extend_sides(p, &c, kind, &l, &r, &j))
		return NULL;
	sl_join_plan jp;
	fill_plan(p, &jp, kind, &c, l, r);
	const char *label = as_of_label(p, "TemporalJoin", kind, j, &c, l->ncols,
	                                sl_arena_printf(p->a, "leftTimeAttribute=[%s], "
	                                                "rightTimeAttribute=[%s]",
	                                                l->cols[l->rowtime].name,
	                                                r->cols[r->rowtime].name));
	j->rowtime = l->rowtime;
	j->proctime = l->proctime;
	if (!add_join(p, SL_OPK_TEMPORAL_JOIN, &jp, sizeof(jp), j, l, r, label, f->line, f->col))
		return NULL;
	return nlx ? restore_cols(p, j, orig, nl, nlx) : j;
}

/* The lookup table's columns as a rel without operator (qualified by the
 * alias) and its fields; NULL with p->err set. */
static rel *lookup_rel(planner *p, const sl_ast_from *rf, const sl_table_def *td,
                       sl_field **fields)
{
	const char *qual = rf->alias ? rf->alias->name : td->name;
	rel *r = sl__rel_new(p, td->ncols);
	*fields = sl_arena_calloc(p->a, sizeof(sl_field) * (size_t)(td->ncols + 1));
	for (int i = 0; r && i < td->ncols; i++) {
		if (td->cols[i].computed || td->cols[i].metadata)
			return sl__plan_error(p, rf->line, rf->col, SL_ENOTSUP,
			                      "a lookup join over table '%s' with the computed or METADATA "
			                      "column '%s' is not supported", td->name, td->cols[i].name);
		r->cols[i].name = td->cols[i].name;
		r->cols[i].type = td->cols[i].type;
		r->cols[i].qual = qual;
		(*fields)[i].name = td->cols[i].name;
		(*fields)[i].type = td->cols[i].type;
	}
	for (int i = 0; r && i < rf->ncol_aliases && i < r->ncols; i++)
		r->cols[i].name = rf->col_aliases[i].name;
	return r;
}

/* The lookup join of l with table rf (a connector with a lookup method). */
static rel *lookup_join(planner *p, const sl_ast_from *f, sl_join_kind kind, rel *l)
{
	const sl_ast_from *rf = f->u.join.right;
	const char *name = sl_ast_name_last(&rf->u.table.name);
	if (l->updating)
		return sl__plan_error(p, f->line, f->col, SL_ENOTSUP,
		                      "a lookup join over an updating input is not supported (%s makes "
		                      "it updating)", l->upd_op);
	const sl_table_def *td = is_query_name(p, name) ? NULL : sl_catalog_table(p->cat, name);
	if (!td)
		return sl__plan_error(p, rf->line, rf->col, SL_EPLAN, "a lookup join needs a table "
		                      "whose connector supports lookups; '%s' is %s", name,
		                      is_query_name(p, name) ? "a view or query" : "not a table");
	if (rf->u.table.nhints)
		return sl__plan_error(p, rf->line, rf->col, SL_ENOTSUP,
		                      "table hints on a lookup table are not supported");
	sl_opts *o = sl_arena_calloc(p->a, sizeof(*o));
	sl_opts_init(o, p->a);
	sl_opts_merge(o, &td->opts);
	const char *conn = sl_opts_get(o, "connector");
	const sl_source_vtab *vt = conn ? sl_source_find(conn) : NULL;
	if (!vt || !vt->lookup)
		return sl__plan_error(p, rf->line, rf->col, SL_ENOTSUP,
		                      "connector '%s' of table '%s' does not support lookup joins "
		                      "(FOR SYSTEM_TIME AS OF a PROCTIME() column); 'filesystem' does",
		                      conn ? conn : "", name);
	for (int i = 0; i < o->n; i++)
		o->v[i].used = 0;
	sl_opts_get(o, "connector");
	sl_field *fields;
	rel *r = lookup_rel(p, rf, td, &fields), *j = r ? joined_rel(p, l, r, kind) : NULL;
	join_cond c;
	if (!j || as_of_cond(p, f, j, l, r, &c))
		return NULL;
	if (td->npart)
		return sl__plan_error(p, rf->line, rf->col, SL_ENOTSUP, "lookup joins against the "
		                      "partitioned table '%s' are not supported", name);
	rel *orig = j;
	int nl = l->ncols, nlx = c.nlx;
	if (nlx && extend_sides(p, &c, kind, &l, &r, &j))
		return NULL;
	sl_conn_args ca = {name, fields, td->ncols, td->pk, td->npk, o, p->engine, p->tz,
	                   0, p->job, (int)p->attempt, 0, NULL, 0, 0, 1, NULL, 0, 0, NULL};
	/* configured here to check the options, then freed: each instance of
	 * the join configures its own (pnode.h) */
	struct sl_lookup *lk = sl_lookup_new(vt->lookup, &ca, c.rkeys, c.nkeys, p->err);
	if (!lk)
		return sl__plan_error(p, rf->line, rf->col, p->err->code, "%s", p->err->msg);
	sl_lookup_free(lk);
	const char *unused = sl_opts_unused(o);
	if (unused) {
		return sl__plan_error(p, rf->line, rf->col, SL_EPLAN,
		                      "Unsupported options found for '%s' (table '%s'): '%s'", conn,
		                      name, unused);
	}
	sl_join_plan jp;
	fill_plan(p, &jp, kind, &c, l, r);
	const char *cache = sl_opts_get(o, "lookup.cache");
	const char *label = as_of_label(p, "LookupJoin", kind, j, &c, l->ncols,
	                                sl_arena_printf(p->a, "table=[%s], connector=[%s], "
	                                                "cache=[%s]", name, conn,
	                                                cache ? cache : "NONE"));
	j->rowtime = l->rowtime;
	j->proctime = l->proctime;
	sl_lookup_join_params lp = {jp, vt->lookup, ca, c.rkeys, c.nkeys};
	if (!add_join(p, SL_OPK_LOOKUP_JOIN, &lp, sizeof(lp), j, l, NULL, label, f->line, f->col))
		return NULL;
	return nlx ? restore_cols(p, j, orig, nl, nlx) : j;
}

rel *sl__plan_as_of_join(planner *p, const sl_ast_from *f, rel *l, sl_plan_side_fn plan_right)
{
	const sl_ast_from *rf = f->u.join.right;
	const sl_ast_expr *asof = rf->u.table.as_of;
	sl_join_kind kind;
	if (as_of_kind(p, f, &kind))
		return NULL;
	scope s = {l, NULL, NULL};
	sl_expr *t = sl__bind_expr(p, &s, asof);
	if (!t)
		return NULL;
	if (t->kind != SL_EX_COL || (t->col != l->rowtime && t->col != l->proctime))
		return sl__plan_error(p, asof->line, asof->col, SL_EPLAN,
		                      "FOR SYSTEM_TIME AS OF needs a time attribute of the left side: "
		                      "its rowtime (an event-time temporal join) or a PROCTIME() "
		                      "column (a lookup join), not '%s'", sl__ast_text(p, asof));
	if (t->col == l->rowtime)
		return temporal_join(p, f, kind, l, plan_right);
	return lookup_join(p, f, kind, l);
}
