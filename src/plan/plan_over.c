/*
 * plan_over.c - plans window functions: the ROW_NUMBER patterns
 * (deduplication, Top-N, window Top-N) and OVER aggregates.
 *
 * ROW_NUMBER (Flink's FlinkLogicalRank / Deduplicate rules).  A query
 *   SELECT .. FROM (SELECT .., ROW_NUMBER() OVER (PARTITION BY k ORDER BY x)
 *                   AS rn FROM t [WHERE ..]) [alias] WHERE rn <= N [AND ..]
 * (also rn < N, rn = K, rn BETWEEN L AND N, rn > L AND rn <= N, N >= rn:
 * a rank range from L to N, Flink's rankStart/rankEnd) becomes one rank
 * operator.  The inner SELECT is planned with its ROW_NUMBER item replaced
 * by a placeholder and with hidden leading columns: the ORDER BY and
 * PARTITION BY expressions (and window_time for a window Top-N), so that
 * keys may be any expression and the first ORDER BY column's time
 * attribute is visible.  Then:
 *   - PARTITION BY window_start, window_end, ..: window Top-N, fired when
 *     the window closes (the input must carry window_time);
 *   - N = 1 and ORDER BY a single time attribute: deduplication (proctime:
 *     by arrival; rowtime: by event time), ASC keeps the first row, DESC the
 *     last;
 *   - otherwise Top-N, over an append-only input or an updating one (a
 *     GROUP BY's -U/+U) with Flink's strategy (sl__rank_strategy: update-
 *     fast when the input's upsert key holds the partition key and every
 *     ORDER BY column only moves towards the top, retract otherwise);
 *     deduplication and window Top-N need append-only input, and upsert
 *     streams (no -U) are refused.
 * A Calc after the operator drops the hidden columns and puts rn where the
 * ROW_NUMBER item was, or leaves it out when the enclosing query never
 * reads it (Flink's rank without row number: +I/-D only).  A ROW_NUMBER
 * whose enclosing query does not bound it is an OVER aggregate (a COUNT(*)
 * over ROWS UNBOUNDED PRECEDING, Flink's RowNumberAggFunction); RANK /
 * DENSE_RANK without a bound and rank ranges without an end are planning
 * errors.  LEAD, NTILE, CUME_DIST and PERCENT_RANK are refused with Flink's
 * stream-mode messages.
 * RANK() and DENSE_RANK() in the same patterns are a sluice extension
 * (Flink 1.20 refuses them on streams): Top-N and window Top-N with peers
 * ranked alike; deduplication stays ROW_NUMBER only.
 *
 * OVER aggregates: see sl__plan_over_aggs below.
 */
#include "plan_int.h"
#include "../exec/op_over.h"
#include "../exec/op_rank.h"
#include "sluice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- AST helpers ------------------------------------------------------------ */

/* The window of an OVER call, resolving OVER w against sel's WINDOW list. */
static const sl_ast_window *resolve_window(planner *p, const sl_ast_select *sel,
                                           const sl_ast_window *w, int line, int col)
{
	if (!w->ref)
		return w;
	for (int i = 0; i < sel->nwindows; i++)
		if (!strcasecmp(sel->window_names[i].name, w->ref->name))
			return sel->windows[i];
	return sl__plan_error(p, line, col, SL_EPLAN, "window '%s' is not defined", w->ref->name);
}

/* 1 when expression e (not inside an OVER call's own arguments) mentions a
 * column named `name`, or is `*`. */
static int mentions(const sl_ast_expr *e, const char *name)
{
	if (!e)
		return 0;
	switch (e->kind) {
	case SL_AX_COLUMN:
		return !strcasecmp(e->u.name.parts[e->u.name.n - 1].name, name) ||
		       (e->u.name.n >= 2 && !strcasecmp(e->u.name.parts[1].name, name));
	case SL_AX_STAR: return 1;
	case SL_AX_UNARY:
	case SL_AX_BINARY: return mentions(e->u.op.a, name) || mentions(e->u.op.b, name);
	case SL_AX_IS: return mentions(e->u.is.a, name) || mentions(e->u.is.b, name);
	case SL_AX_BETWEEN:
		return mentions(e->u.between.a, name) || mentions(e->u.between.lo, name) ||
		       mentions(e->u.between.hi, name);
	case SL_AX_IN_LIST:
		for (int i = 0; i < e->u.in.nlist; i++)
			if (mentions(e->u.in.list[i], name))
				return 1;
		return mentions(e->u.in.a, name);
	case SL_AX_LIKE: return mentions(e->u.like.a, name) || mentions(e->u.like.pattern, name);
	case SL_AX_CASE:
		for (int i = 0; i < e->u.case_.nwhen; i++)
			if (mentions(e->u.case_.when[i], name) || mentions(e->u.case_.then[i], name))
				return 1;
		return mentions(e->u.case_.operand, name) || mentions(e->u.case_.else_, name);
	case SL_AX_CAST: return mentions(e->u.cast.a, name);
	case SL_AX_FIELD: return mentions(e->u.field.a, name);
	case SL_AX_CALL:
		for (int i = 0; i < e->u.call.nargs; i++)
			if (mentions(e->u.call.args[i], name))
				return 1;
		return mentions(e->u.call.filter, name);
	default: return 0;
	}
}

static int is_rank_fn(const sl_ast_expr *e)
{
	return e && e->kind == SL_AX_CALL && e->u.call.over &&
	       (!strcmp(e->u.call.fname, "ROW_NUMBER") || !strcmp(e->u.call.fname, "RANK") ||
	        !strcmp(e->u.call.fname, "DENSE_RANK"));
}

/* The index of the ROW_NUMBER item of inner SELECT s, or -1. */
static int rank_item(const sl_ast_select *s)
{
	for (int i = 0; i < s->nitems; i++)
		if (is_rank_fn(s->items[i].expr))
			return i;
	return -1;
}

static int rn_bounded(const sl_ast_expr *w, const char *rn);

int sl__is_rank_query(const sl_ast_select *sel)
{
	const sl_ast_from *f = sel->from;
	if (!f || f->kind != SL_AF_SUBQUERY || f->u.sub.query->kind != SL_AQ_SELECT)
		return 0;
	const sl_ast_select *in = f->u.sub.query->select;
	int i = rank_item(in);
	if (i < 0)
		return 0;
	/* ROW_NUMBER without a filter on it in the enclosing query is an OVER
	 * aggregate (Flink's OverAggregateITCase.testRowNumberOnOver), planned
	 * with the inner SELECT like any other; RANK / DENSE_RANK stay here to
	 * be refused with the Top-N message */
	const sl_ast_select_item *it = &in->items[i];
	if (!strcmp(it->expr->u.call.fname, "ROW_NUMBER") &&
	    (!it->alias || !rn_bounded(sel->where, it->alias->name)))
		return 0;
	return 1;
}

static int int_lit(const sl_ast_expr *e, int64_t *v)
{
	if (!e || e->kind != SL_AX_LITERAL || e->u.lit.kind != SL_AL_INTEGER)
		return 0;
	*v = strtoll(e->u.lit.text, NULL, 10);
	return 1;
}

static int is_col(const sl_ast_expr *e, const char *name)
{
	return e && e->kind == SL_AX_COLUMN &&
	       !strcasecmp(e->u.name.parts[e->u.name.n - 1].name, name);
}

/* If conjunct c bounds rn (rn <= N, rn < N, rn = K, rn BETWEEN L AND N,
 * rn >= L, rn > L, and the mirrored forms N >= rn ...): 1, with *hi
 * lowered to an upper bound and *lo raised to a lower bound it gives.
 * 0 otherwise (the conjunct stays a filter). */
static int rn_bound(const sl_ast_expr *c, const char *rn, int64_t *lo, int64_t *hi)
{
	int64_t v, l;
	if (c->kind == SL_AX_BETWEEN && !c->u.between.negated && !c->u.between.symmetric &&
	    is_col(c->u.between.a, rn) && int_lit(c->u.between.lo, &l) &&
	    int_lit(c->u.between.hi, &v)) {
		*lo = l > *lo ? l : *lo;
		*hi = v < *hi ? v : *hi;
		return 1;
	}
	if (c->kind != SL_AX_BINARY)
		return 0;
	sl_ast_op op = c->u.op.op;
	const sl_ast_expr *a = c->u.op.a, *b = c->u.op.b;
	if (is_col(b, rn) && int_lit(a, &v)) { /* N >= rn: mirror */
		const sl_ast_expr *t = a;
		a = b;
		b = t;
		op = op == SL_AOP_GE ? SL_AOP_LE : op == SL_AOP_GT ? SL_AOP_LT
		   : op == SL_AOP_LE ? SL_AOP_GE : op == SL_AOP_LT ? SL_AOP_GT : op;
	}
	if (!is_col(a, rn) || !int_lit(b, &v))
		return 0;
	switch (op) {
	case SL_AOP_LE: *hi = v < *hi ? v : *hi; return 1;
	case SL_AOP_LT: *hi = v - 1 < *hi ? v - 1 : *hi; return 1;
	case SL_AOP_GE: *lo = v > *lo ? v : *lo; return 1;
	case SL_AOP_GT: *lo = v + 1 > *lo ? v + 1 : *lo; return 1;
	case SL_AOP_EQ:
		*hi = v < *hi ? v : *hi;
		*lo = v > *lo ? v : *lo;
		return 1;
	default: return 0;
	}
}

/* 1 when an AND term of WHERE w bounds rn (rn_bound). */
static int rn_bounded(const sl_ast_expr *w, const char *rn)
{
	if (!w)
		return 0;
	if (w->kind == SL_AX_BINARY && w->u.op.op == SL_AOP_AND)
		return rn_bounded(w->u.op.a, rn) || rn_bounded(w->u.op.b, rn);
	int64_t lo = 1, hi = INT64_MAX;
	return rn_bound(w, rn, &lo, &hi);
}

/* Splits the AND tree e into conjuncts (arena array). */
static int conjuncts(planner *p, const sl_ast_expr *e, const sl_ast_expr **out, int n, int cap)
{
	if (!e)
		return n;
	if (e->kind == SL_AX_BINARY && e->u.op.op == SL_AOP_AND) {
		n = conjuncts(p, e->u.op.a, out, n, cap);
		return conjuncts(p, e->u.op.b, out, n, cap);
	}
	if (n < cap)
		out[n] = e;
	return n + 1;
}

static sl_ast_expr *ast_and(planner *p, sl_ast_expr *a, const sl_ast_expr *b)
{
	if (!a)
		return (sl_ast_expr *)b;
	sl_ast_expr *e = sl_arena_calloc(p->a, sizeof(*e));
	e->kind = SL_AX_BINARY;
	e->line = a->line;
	e->col = a->col;
	e->u.op.op = SL_AOP_AND;
	e->u.op.a = a;
	e->u.op.b = (sl_ast_expr *)b;
	return e;
}

static sl_ast_expr *ast_col(planner *p, const char *name, int line, int col)
{
	sl_ast_expr *e = sl_arena_calloc(p->a, sizeof(*e));
	e->kind = SL_AX_COLUMN;
	e->line = line;
	e->col = col;
	e->u.name.n = 1;
	e->u.name.parts = sl_arena_calloc(p->a, sizeof(sl_ast_ident));
	e->u.name.parts[0].name = name;
	e->u.name.parts[0].line = line;
	e->u.name.parts[0].col = col;
	return e;
}

/* ---- ROW_NUMBER ----------------------------------------------------------------- */

#define RN_PLACEHOLDER "$rn"

typedef struct rank_shape {
	const sl_ast_select *inner;
	const sl_ast_select_item *item; /* the ROW_NUMBER item */
	const sl_ast_window *w;
	const char *rn;                 /* its alias */
	int64_t n;                      /* rank range end */
	int64_t lo;                     /* rank range start (1 = from the first) */
	sl_rank_fn fn;                  /* ROW_NUMBER, RANK or DENSE_RANK */
	int windowed;                   /* PARTITION BY window_start, window_end */
	int nhidden;                    /* hidden leading columns */
	int hk, ho;                     /* first hidden key / order column */
} rank_shape;

/* Checks the ROW_NUMBER item and the enclosing WHERE; fills s and rest. */
static int rank_shape_of(planner *p, const sl_ast_select *sel, rank_shape *s,
                         sl_ast_select *rest)
{
	const sl_ast_select *in = sel->from->u.sub.query->select;
	memset(s, 0, sizeof(*s));
	s->inner = in;
	s->item = &in->items[rank_item(in)];
	const sl_ast_expr *call = s->item->expr;
	const char *fname = call->u.call.fname;
	/* RANK and DENSE_RANK: a sluice extension (Flink 1.20 refuses them on
	 * streams: "RANK() on streaming table is not supported currently") */
	s->fn = !strcmp(fname, "RANK") ? SL_RANKFN_RANK
	      : !strcmp(fname, "DENSE_RANK") ? SL_RANKFN_DENSE_RANK : SL_RANKFN_ROW_NUMBER;
	if (call->u.call.nargs) {
		sl__plan_error(p, call->line, call->col, SL_EPLAN, "%s takes no arguments", fname);
		return SL_EPLAN;
	}
	if (!(s->w = resolve_window(p, in, call->u.call.over, call->line, call->col)))
		return SL_EPLAN;
	if (!s->w->norder) {
		sl__plan_error(p, call->line, call->col, SL_EPLAN,
		               "%s requires an ORDER BY in its OVER clause", fname);
		return SL_EPLAN;
	}
	if (in->distinct) {
		sl__plan_error(p, in->line, in->col, SL_ENOTSUP,
		               "SELECT DISTINCT together with ROW_NUMBER() is not supported yet");
		return SL_EPLAN;
	}
	if (!s->item->alias) {
		sl__plan_error(p, call->line, call->col, SL_EPLAN,
		               "ROW_NUMBER() OVER (...) needs an alias (AS rn) for the enclosing "
		               "query's filter on it");
		return SL_EPLAN;
	}
	s->rn = s->item->alias->name;
	*rest = *sel;
	rest->where = NULL;
	const sl_ast_expr *cs[64];
	int nc = conjuncts(p, sel->where, cs, 0, 64), found = 0;
	if (nc > 64) {
		sl__plan_error(p, sel->line, sel->col, SL_ENOTSUP, "too many AND terms in WHERE");
		return SL_EPLAN;
	}
	int64_t lo = 1, hi = INT64_MAX;
	for (int i = 0; i < nc; i++) {
		if (rn_bound(cs[i], s->rn, &lo, &hi)) {
			found++;
			continue;
		}
		rest->where = ast_and(p, rest->where, cs[i]);
	}
	s->n = hi;
	s->lo = lo;
	if (found && hi == INT64_MAX) {
		sl__plan_error(p, sel->where->line, sel->where->col, SL_ENOTSUP,
		               "Rank end is not specified. Currently rank only support TopN, which "
		               "means the rank end must be specified (%s <= N)", s->rn);
		return SL_EPLAN;
	}
	if (!found) {
		sl__plan_error(p, call->line, call->col, SL_ENOTSUP,
		               "ROW_NUMBER() is only supported with a filter on it in the enclosing "
		               "query: WHERE %s <= N (Top-N) or WHERE %s = 1 (deduplication)",
		               s->rn, s->rn);
		return SL_EPLAN;
	}
	if (s->n < 1 || s->lo > s->n) {
		sl__plan_error(p, sel->where->line, sel->where->col, SL_EPLAN,
		               "the filter on %s keeps no row (N must be at least 1)", s->rn);
		return SL_EPLAN;
	}
	int ws = 0, we = 0;
	for (int i = 0; i < s->w->npartition; i++) {
		ws |= is_col(s->w->partition[i], "window_start");
		we |= is_col(s->w->partition[i], "window_end");
	}
	s->windowed = ws && we;
	return 0;
}

/*
 * Window Top-N directly over a window aggregate that does not select
 * window_time (Flink's window-topn.md example): a copy of that FROM
 * subquery with window_time appended as the hidden item "$window_time"
 * ('*' does not expand '$' names), or NULL when f is not such a subquery.
 */
static sl_ast_from *expose_window_time(planner *p, const sl_ast_from *f)
{
	if (!f || f->kind != SL_AF_SUBQUERY || f->u.sub.query->kind != SL_AQ_SELECT)
		return NULL;
	const sl_ast_query *q = f->u.sub.query;
	const sl_ast_select *in = q->select;
	int ws = 0, we = 0;
	for (int i = 0; i < in->ngroup; i++) {
		ws |= is_col(in->group[i], "window_start");
		we |= is_col(in->group[i], "window_end");
	}
	if (!ws || !we || q->norder || q->limit)
		return NULL;
	for (int i = 0; i < in->nitems; i++) {
		const sl_ast_select_item *it = &in->items[i];
		if (it->expr->kind == SL_AX_STAR)
			return NULL;
		const char *name = it->alias ? it->alias->name
		                 : it->expr->kind == SL_AX_COLUMN
		                 ? it->expr->u.name.parts[it->expr->u.name.n - 1].name : NULL;
		if (name && !strcasecmp(name, "window_time"))
			return NULL;
	}
	sl_ast_select_item *items = sl_arena_calloc(p->a, sizeof(*items) * (size_t)(in->nitems + 1));
	memcpy(items, in->items, sizeof(*items) * (size_t)in->nitems);
	static const sl_ast_ident alias = {"$window_time", 1, 0, 0};
	items[in->nitems].expr = ast_col(p, "window_time", in->line, in->col);
	items[in->nitems].alias = &alias;
	items[in->nitems].line = in->line;
	items[in->nitems].col = in->col;
	sl_ast_select *s2 = sl_arena_alloc(p->a, sizeof(*s2));
	*s2 = *in;
	s2->items = items;
	s2->nitems = in->nitems + 1;
	sl_ast_query *q2 = sl_arena_alloc(p->a, sizeof(*q2));
	*q2 = *q;
	q2->select = s2;
	sl_ast_from *f2 = sl_arena_alloc(p->a, sizeof(*f2));
	*f2 = *f;
	f2->u.sub.query = q2;
	return f2;
}

/*
 * Plans the inner SELECT with hidden leading columns: [window_time],
 * ORDER BY expressions, PARTITION BY expressions (window_start/_end left
 * out for a window Top-N), then the items with ROW_NUMBER replaced by a
 * placeholder column named RN_PLACEHOLDER.
 */
static rel *plan_inner(planner *p, const sl_ast_query *q, rank_shape *s)
{
	const sl_ast_select *in = s->inner;
	const sl_ast_window *w = s->w;
	int cap = in->nitems + w->norder + w->npartition + 2;
	sl_ast_select_item *items = sl_arena_calloc(p->a, sizeof(*items) * (size_t)cap);
	int n = 0;
	sl_ast_from *wt_from = s->windowed ? expose_window_time(p, in->from) : NULL;
	if (s->windowed)
		items[n++].expr = ast_col(p, wt_from ? "$window_time" : "window_time", w->line, w->col);
	s->ho = n;
	for (int i = 0; i < w->norder; i++)
		items[n++].expr = w->order[i].expr;
	s->hk = n;
	for (int i = 0; i < w->npartition; i++) {
		const sl_ast_expr *e = w->partition[i];
		if (s->windowed && (is_col(e, "window_start") || is_col(e, "window_end")))
			continue;
		items[n++].expr = (sl_ast_expr *)e;
	}
	s->nhidden = n;
	for (int i = 0; i < in->nitems; i++) {
		items[n] = in->items[i];
		if (&in->items[i] == s->item) {
			static const sl_ast_ident ph = {RN_PLACEHOLDER, 1, 0, 0};
			sl_ast_expr *zero = sl_arena_calloc(p->a, sizeof(*zero));
			zero->kind = SL_AX_LITERAL;
			zero->u.lit.kind = SL_AL_INTEGER;
			zero->u.lit.text = "0";
			items[n].expr = zero;
			items[n].alias = &ph;
		}
		n++;
	}
	for (int i = 0; i < n; i++)
		if (!items[i].line) {
			items[i].line = items[i].expr->line;
			items[i].col = items[i].expr->col;
		}
	sl_ast_select *sel2 = sl_arena_alloc(p->a, sizeof(*sel2));
	*sel2 = *in;
	sel2->items = items;
	sel2->nitems = n;
	if (wt_from)
		sel2->from = wt_from;
	sl_ast_query *q2 = sl_arena_alloc(p->a, sizeof(*q2));
	*q2 = *q;
	q2->select = sel2;
	rel *r = sl__plan_query(p, q2);
	if (!r && s->windowed && strstr(p->err->msg, "'window_time' not found")) {
		sl_err_clear(p->err);
		return sl__plan_error(p, w->line, w->col, SL_ENOTSUP,
		                      "window Top-N needs the window_time column in its input (select "
		                      "window_time in the window aggregate)");
	}
	return r;
}

int sl__rank_strategy(planner *p, const rel *r, sl_rank_plan *rp)
{
	rp->update_fast = 0;
	if (!r->updating || !r->mono || !r->ukey || rp->fn != SL_RANKFN_ROW_NUMBER ||
	    rp->norder == 0)
		return 0;
	for (int i = 0; i < rp->nkeys; i++)
		if (r->ukey[rp->key_cols[i]] < 0)
			return 0; /* the upsert key does not hold the partition key */
	for (int i = 0; i < rp->norder; i++) {
		int m = r->mono[rp->order_cols[i]];
		if (m != SL_MONO_CONST && m != (rp->desc[i] ? SL_MONO_INC : SL_MONO_DEC))
			return 0;
	}
	int *uc = sl_arena_calloc(p->a, sizeof(int) * (size_t)(r->nukey + 1));
	if (!uc)
		return sl_err_set(p->err, SL_ENOMEM, "out of memory");
	for (int m = 0; m < r->nukey; m++)
		for (int i = 0; i < r->ncols; i++)
			if (r->ukey[i] == m) {
				uc[m] = i;
				break;
			}
	rp->nukey = r->nukey;
	rp->ukey_cols = uc;
	rp->update_fast = 1;
	return 0;
}

/* The operator kind for the shape over the planned inner rel r (fills
 * rp); SL_OPK_NONE with p->err set. */
static sl_op_kind rank_op(planner *p, const rank_shape *s, rel *r, sl_rank_plan *rp,
                      const char **kind)
{
	const sl_ast_window *w = s->w;
	const sl_ast_expr *call = s->item->expr;
	int *keys = sl_arena_calloc(p->a, sizeof(int) * (size_t)(w->npartition + 1));
	int *ord = sl_arena_calloc(p->a, sizeof(int) * (size_t)(w->norder + 1));
	uint8_t *desc = sl_arena_calloc(p->a, (size_t)w->norder + 1);
	uint8_t *nf = sl_arena_calloc(p->a, (size_t)w->norder + 1);
	rp->nkeys = s->nhidden - s->hk;
	for (int i = 0; i < rp->nkeys; i++)
		keys[i] = s->hk + i;
	for (int i = 0; i < w->norder; i++) {
		ord[i] = s->ho + i;
		desc[i] = w->order[i].desc;
		/* Flink's default: NULLs are the smallest values */
		nf[i] = w->order[i].nulls_first >= 0 ? (uint8_t)w->order[i].nulls_first : !desc[i];
	}
	rp->key_cols = keys;
	rp->norder = w->norder;
	rp->order_cols = ord;
	rp->desc = desc;
	rp->nulls_first = nf;
	rp->n = s->n;
	rp->lo = s->lo;
	rp->fn = s->fn;
	for (int i = 0; i < w->norder; i++)
		if (sl_type_phys(r->cols[ord[i]].type) == SL_PHYS_ROW ||
		    sl_type_is_collection(r->cols[ord[i]].type)) {
			sl__plan_error(p, w->order[i].expr->line, w->order[i].expr->col, SL_ENOTSUP,
			               sl_type_is_collection(r->cols[ord[i]].type)
			                   ? "ORDER BY an ARRAY or MAP value is not supported"
			                   : "ORDER BY a ROW value is not supported");
			return SL_OPK_NONE;
		}
	if (r->upsert_key) {
		sl__plan_error(p, call->line, call->col, SL_ENOTSUP,
		               "ROW_NUMBER over an upsert stream (%s, no -U before +U) is not "
		               "supported yet", r->upd_op ? r->upd_op : "an operator");
		return SL_OPK_NONE;
	}
	int tattr = w->norder == 1 && (r->rowtime == s->ho || r->proctime == s->ho);
	int dedup = tattr && s->n == 1 && s->lo <= 1 && s->fn == SL_RANKFN_ROW_NUMBER;
	if (r->updating && (s->windowed || dedup)) {
		sl__plan_error(p, call->line, call->col, SL_ENOTSUP,
		               "%s over an updating input (made by %s) is not supported yet",
		               s->windowed ? "window Top-N" : "deduplication",
		               r->upd_op ? r->upd_op : "an operator");
		return SL_OPK_NONE;
	}
	if (s->windowed) {
		if (r->win && r->win->proc) {
			sl__plan_error(p, call->line, call->col, SL_ENOTSUP,
			               "window Top-N over a processing-time window is not supported");
			return SL_OPK_NONE;
		}
		if (r->rowtime != 0) {
			sl__plan_error(p, call->line, call->col, SL_EPLAN,
			               "window Top-N: window_time of the input must be its time "
			               "attribute (a window TVF or window aggregate)");
			return SL_OPK_NONE;
		}
		rp->mode = SL_RANK_WINDOW;
		rp->time_col = 0;
		/* Flink's window deduplication (ROW_NUMBER, rn = 1, ORDER BY a time
		 * attribute DESC: window_time or the TVF's event-time column) keeps
		 * the last of rows with equal times; its window Top-N the first */
		rp->ties_last = w->norder == 1 && desc[0] && s->n == 1 && s->lo <= 1 &&
		                s->fn == SL_RANKFN_ROW_NUMBER &&
		                (r->tvf_time1 == s->ho + 1 || is_col(w->order[0].expr, "window_time"));
		*kind = "WindowRank";
		return SL_OPK_WINDOW_RANK;
	}
	if (dedup) {
		int row = r->rowtime == s->ho;
		rp->mode = row ? (desc[0] ? SL_RANK_DEDUP_ROW_LAST : SL_RANK_DEDUP_ROW_FIRST)
		               : (desc[0] ? SL_RANK_DEDUP_PROC_LAST : SL_RANK_DEDUP_PROC_FIRST);
		rp->time_col = s->ho;
		*kind = desc[0] ? "Deduplicate(keep=[LastRow])" : "Deduplicate(keep=[FirstRow])";
		return SL_OPK_DEDUP;
	}
	rp->mode = SL_RANK_TOPN;
	rp->retract = r->updating;
	if (sl__rank_strategy(p, r, rp))
		return SL_OPK_NONE;
	*kind = rp->update_fast ? "UpdateFastRank" : r->updating ? "RetractRank" : "Rank";
	return SL_OPK_RANK;
}

/*
 * Plans the FROM subquery of `sel` holding ROW_NUMBER and the rank
 * operator; returns the relation the enclosing query reads (the inner
 * SELECT's items, rn included when the enclosing query mentions it) and
 * fills *rest with sel minus the rn filter.  NULL with p->err set.
 */
rel *sl__plan_rank(planner *p, const sl_ast_select *sel, sl_ast_select *rest)
{
	rank_shape s;
	if (rank_shape_of(p, sel, &s, rest))
		return NULL;
	const sl_ast_query *q = sel->from->u.sub.query;
	if (q->norder || q->limit || q->offset)
		return sl__plan_error(p, q->line, q->col, SL_ENOTSUP,
		                      "ORDER BY / LIMIT in the subquery that holds ROW_NUMBER() is not "
		                      "supported yet (put them in the enclosing query)");
	rel *r = plan_inner(p, q, &s);
	if (!r)
		return NULL;
	int out_rn = mentions(rest->where, s.rn);
	for (int i = 0; i < rest->nitems; i++)
		out_rn |= mentions(rest->items[i].expr, s.rn);
	sl_rank_plan rp = {0};
	rp.out_rn = out_rn;
	const char *kind = NULL;
	sl_op_kind k = rank_op(p, &s, r, &rp, &kind);
	if (k == SL_OPK_NONE)
		return NULL;
	int nr = r->ncols + (out_rn ? 1 : 0);
	rel *rr = sl__rel_new(p, nr);
	for (int i = 0; i < r->ncols; i++)
		rr->cols[i] = r->cols[i];
	if (out_rn) {
		rr->cols[r->ncols].name = s.rn;
		rr->cols[r->ncols].type = sl_type_make(SL_T_BIGINT);
		rr->cols[r->ncols].type.notnull = 1;
	}
	int upd = rp.mode == SL_RANK_TOPN || rp.mode == SL_RANK_DEDUP_PROC_LAST ||
	          rp.mode == SL_RANK_DEDUP_ROW_LAST;
	rr->updating = upd;
	if (s.fn != SL_RANKFN_ROW_NUMBER)
		kind = sl_arena_printf(p->a, "%s(rankType=[%s])", kind,
		                       s.fn == SL_RANKFN_RANK ? "RANK" : "DENSE_RANK");
	const char *label = s.lo > 1
	                  ? sl_arena_printf(p->a, "%s(rankStart=%lld, rankEnd=%lld, rowNumber=%s)",
	                                    kind, (long long)s.lo, (long long)s.n,
	                                    out_rn ? "true" : "false")
	                  : sl_arena_printf(p->a, "%s(rankEnd=%lld, rowNumber=%s)", kind,
	                                    (long long)s.n, out_rn ? "true" : "false");
	rr->upd_op = upd ? label : NULL;
	if (!sl__node_new(p, k, &rp, sizeof(rp), &r->node, 1, NULL, rr, label))
		return NULL;
	/* drop the hidden columns, rn (or nothing) where ROW_NUMBER was */
	sl_expr **x = sl_arena_calloc(p->a, sizeof(sl_expr *) * (size_t)(nr + 1));
	const char **names = sl_arena_calloc(p->a, sizeof(char *) * (size_t)(nr + 1));
	int n = 0;
	for (int i = s.nhidden; i < r->ncols; i++) {
		int c = i;
		if (!strcmp(r->cols[i].name, RN_PLACEHOLDER)) {
			if (!out_rn)
				continue;
			c = r->ncols;
		}
		x[n] = sl_expr_col(p->a, c, rr->cols[c].type);
		names[n++] = rr->cols[c].name;
	}
	rel *out = sl__add_calc(p, rr, NULL, x, n, names);
	if (!out)
		return NULL;
	const char *alias = sel->from->alias ? sel->from->alias->name : NULL;
	for (int i = 0; i < out->ncols; i++)
		out->cols[i].qual = alias;
	for (int i = 0; i < sel->from->ncol_aliases && i < out->ncols; i++)
		out->cols[i].name = sel->from->col_aliases[i].name;
	out->rowtime = out->proctime = -1;
	return out;
}

/* ---- OVER aggregates ----------------------------------------------------------- */

/*
 * agg(x) OVER w in a SELECT list (no GROUP BY) becomes one OverAggregate
 * operator over the FROM relation (after WHERE), whose output is that
 * relation's columns plus one column per distinct OVER call; the SELECT
 * list is then bound against it with the calls mapped to their columns
 * (agg_map.over).  Every call must use the same window (as Flink), ordered
 * by the input's event-time attribute ascending, with a frame ending at the
 * current row: ROWS n | UNBOUNDED PRECEDING, RANGE interval | UNBOUNDED
 * PRECEDING (the default when no frame is given).  Processing-time ORDER BY,
 * FOLLOWING bounds, DISTINCT and string MIN/MAX/FIRST_VALUE/LAST_VALUE are
 * refused.
 */

typedef struct over_calls {
	int n;
	const sl_ast_expr *call[64];
	const char *text[64];
} over_calls;

static void find_over(planner *p, const sl_ast_expr *e, over_calls *c)
{
	if (!e)
		return;
	switch (e->kind) {
	case SL_AX_UNARY:
	case SL_AX_BINARY: find_over(p, e->u.op.a, c); find_over(p, e->u.op.b, c); break;
	case SL_AX_IS: find_over(p, e->u.is.a, c); find_over(p, e->u.is.b, c); break;
	case SL_AX_BETWEEN:
		find_over(p, e->u.between.a, c);
		find_over(p, e->u.between.lo, c);
		find_over(p, e->u.between.hi, c);
		break;
	case SL_AX_IN_LIST:
		find_over(p, e->u.in.a, c);
		for (int i = 0; i < e->u.in.nlist; i++)
			find_over(p, e->u.in.list[i], c);
		break;
	case SL_AX_LIKE: find_over(p, e->u.like.a, c); find_over(p, e->u.like.pattern, c); break;
	case SL_AX_CASE:
		find_over(p, e->u.case_.operand, c);
		for (int i = 0; i < e->u.case_.nwhen; i++) {
			find_over(p, e->u.case_.when[i], c);
			find_over(p, e->u.case_.then[i], c);
		}
		find_over(p, e->u.case_.else_, c);
		break;
	case SL_AX_CAST: find_over(p, e->u.cast.a, c); break;
	case SL_AX_FIELD: find_over(p, e->u.field.a, c); break;
	case SL_AX_CALL: {
		if (!e->u.call.over) {
			for (int i = 0; i < e->u.call.nargs; i++)
				find_over(p, e->u.call.args[i], c);
			break;
		}
		const char *t = sl__ast_text(p, e);
		for (int i = 0; i < c->n; i++)
			if (!strcmp(c->text[i], t))
				return;
		if (c->n < 64) {
			c->call[c->n] = e;
			c->text[c->n] = t;
		}
		c->n++;
		break;
	}
	default: break;
	}
}

int sl__select_has_over(planner *p, const sl_ast_select *sel)
{
	over_calls c;
	c.n = 0;
	for (int i = 0; i < sel->nitems; i++)
		find_over(p, sel->items[i].expr, &c);
	return c.n;
}

/* Printed form of a resolved window (for "same window" checks). */
static const char *window_text(planner *p, const sl_ast_window *w)
{
	sl_ast_expr e;
	memset(&e, 0, sizeof(e));
	e.kind = SL_AX_CALL;
	e.u.call.fname = "W";
	e.u.call.name.n = 1;
	sl_ast_ident id = {"W", 0, 0, 0};
	e.u.call.name.parts = &id;
	e.u.call.over = (sl_ast_window *)w;
	return sl__ast_text(p, &e);
}

/* The frame of w into op: rows / preceding (-1 = unbounded). */
static int over_frame(planner *p, const sl_ast_window *w, sl_over_plan *op)
{
	op->rows = w->frame == 'R';
	op->preceding = -1; /* no frame: RANGE UNBOUNDED PRECEDING (Flink's default) */
	if (!w->frame)
		return 0;
	const sl_ast_bound *b = &w->start;
	if (w->end.kind != SL_AB_NONE && w->end.kind != SL_AB_CURRENT_ROW) {
		sl__plan_error(p, w->line, w->col, SL_ENOTSUP,
		               "OVER frames must end at CURRENT ROW (FOLLOWING is not supported)");
		return SL_EPLAN;
	}
	if (b->kind == SL_AB_CURRENT_ROW) {
		op->preceding = 0;
		return 0;
	}
	if (b->kind == SL_AB_UNBOUNDED_PRECEDING)
		return 0;
	if (b->kind != SL_AB_PRECEDING) {
		sl__plan_error(p, w->line, w->col, SL_ENOTSUP,
		               "OVER frames must start at n PRECEDING, UNBOUNDED PRECEDING or "
		               "CURRENT ROW");
		return SL_EPLAN;
	}
	if (op->rows) {
		if (!int_lit(b->expr, &op->preceding) || op->preceding < 0) {
			sl__plan_error(p, b->expr->line, b->expr->col, SL_EPLAN,
			               "ROWS n PRECEDING needs a non-negative integer literal n");
			return SL_EPLAN;
		}
		return 0;
	}
	if (b->expr->kind != SL_AX_LITERAL || b->expr->u.lit.kind != SL_AL_INTERVAL) {
		sl__plan_error(p, b->expr->line, b->expr->col, SL_ENOTSUP,
		               "RANGE frames need an INTERVAL ... PRECEDING bound over the time "
		               "attribute");
		return SL_EPLAN;
	}
	if (sl__bind_interval(p, b->expr, &op->preceding))
		return SL_EPLAN;
	if (op->preceding < 0) {
		sl__plan_error(p, b->expr->line, b->expr->col, SL_EPLAN,
		               "the RANGE interval must not be negative");
		return SL_EPLAN;
	}
	return 0;
}

/* Column of expression x in the pre-projection: a plain column stays,
 * anything else is appended to x[]/names[] (count in *n). */
static int pre_col(planner *p, sl_expr *e, sl_expr **x, const char **names, int *n,
                   const char *prefix, int i)
{
	if (e->kind == SL_EX_COL)
		return e->col;
	names[*n] = sl_arena_printf(p->a, "$%s%d", prefix, i);
	x[*n] = e;
	return (*n)++;
}

/* LAG(x [, offset [, default]]) (op_over.h): offset a non-negative integer
 * literal (Flink's argument is an INT; a column is refused here), default
 * of x's type (cast when it is another numeric type, as Flink's implicit
 * cast of a literal) into the pre-projection with x. */
static int over_lag(planner *p, const scope *s, const sl_ast_expr *e, int i, sl_agg *a,
                    sl_expr **x, const char **names, int *n)
{
	int na = e->u.call.nargs;
	if (e->u.call.star || na < 1 || na > 3) {
		sl__plan_error(p, e->line, e->col, SL_EPLAN,
		               "LAG takes one to three arguments: LAG(value [, offset [, default]])");
		return SL_EPLAN;
	}
	if (e->u.call.distinct || e->u.call.filter) {
		sl__plan_error(p, e->line, e->col, SL_ENOTSUP, "LAG takes no DISTINCT or FILTER");
		return SL_EPLAN;
	}
	a->vt = &sl_over_lag_vtab;
	a->line = e->line;
	a->col = e->col;
	a->filter_col = -1;
	int64_t off = 1;
	if (na > 1) {
		const sl_ast_expr *oe = e->u.call.args[1];
		if (!int_lit(oe, &off) || off < 0 || off > 1000000) {
			sl__plan_error(p, oe->line, oe->col, SL_ENOTSUP,
			               "LAG's offset must be an integer literal from 0 to 1000000");
			return SL_EPLAN;
		}
	}
	a->lag_offset = (int)off;
	sl_expr *v = sl__bind_expr(p, s, e->u.call.args[0]), *d = NULL;
	if (!v || (na > 2 && !(d = sl__bind_expr(p, s, e->u.call.args[2]))))
		return SL_EPLAN;
	a->arg_type = v->type;
	a->out_type = v->type;
	a->out_type.notnull = 0;
	if (d) {
		sl_type dt = d->type, vt = v->type;
		dt.notnull = vt.notnull = 0;
		/* a text default of a STRING value is cast to it, as Flink does
		 * (LAG(s, 1, 'none')); a CHAR(n) value would truncate it: refused */
		if (memcmp(&dt, &vt, sizeof(dt)) &&
		    !(sl_type_is_numeric(dt) && sl_type_is_numeric(vt)) && d->type.id != SL_T_NULL &&
		    !(sl_type_is_string(dt) && vt.id == SL_T_VARCHAR &&
		      vt.length == SL_STRING_LEN)) {
			char b1[64], b2[64];
			sl__plan_error(p, e->u.call.args[2]->line, e->u.call.args[2]->col, SL_EPLAN,
			               "LAG's default (%s) must have the type of its value (%s): cast it",
			               sl_type_format(d->type, b1, sizeof(b1)),
			               sl_type_format(v->type, b2, sizeof(b2)));
			return SL_EPLAN;
		}
		if (memcmp(&dt, &vt, sizeof(dt))) {
			sl_type t = v->type;
			t.notnull = 0;
			if (!(d = sl_expr_cast(p->a, d, t, p->err)))
				return SL_EPLAN;
		}
		if (v->type.notnull && d->type.notnull)
			a->out_type.notnull = 1;
	}
	a->nargs = d ? 2 : 1;
	a->arg_cols[0] = pre_col(p, v, x, names, n, "a", i);
	if (d)
		a->arg_cols[1] = pre_col(p, d, x, names, n, sl_arena_printf(p->a, "d%d_", i), 0);
	a->arg_col = a->arg_cols[0];
	return 0;
}

/* Binds one OVER call's aggregate; arguments and filters go into the pre-
 * projection.  Returns 0 or SL_EPLAN. */
static int over_agg(planner *p, const scope *s, const sl_ast_expr *e, int i, sl_agg *a,
                    sl_expr **x, const char **names, int *n)
{
	const char *f = e->u.call.fname;
	/* Flink's streaming OVER has no LEAD, NTILE, CUME_DIST or PERCENT_RANK
	 * (AggFunctionFactory: "... Function is not supported in stream mode.") */
	if (!strcmp(f, "LEAD") || !strcmp(f, "NTILE") || !strcmp(f, "CUME_DIST") ||
	    !strcmp(f, "PERCENT_RANK")) {
		sl__plan_error(p, e->line, e->col, SL_ENOTSUP,
		               "%s Function is not supported in stream mode.", f);
		return SL_EPLAN;
	}
	if (!strcmp(f, "ROW_NUMBER")) {
		/* an OVER aggregate: the rows of the partition so far, the
		 * current one included, in a ROWS frame (Flink's
		 * RowNumberAggFunction; the frame is set by the caller) */
		if (e->u.call.nargs || e->u.call.star || e->u.call.distinct || e->u.call.filter) {
			sl__plan_error(p, e->line, e->col, SL_EPLAN, "ROW_NUMBER takes no arguments");
			return SL_EPLAN;
		}
		memset(a, 0, sizeof(*a));
		a->vt = sl_agg_find("COUNT");
		a->line = e->line;
		a->col = e->col;
		a->arg_type = sl_type_make(SL_T_BIGINT);
		if (a->vt->result_type(a->arg_type, 1, &a->out_type, p->err))
			return SL_EPLAN;
		a->arg_col = -1;
		a->filter_col = -1;
		return 0;
	}
	if (is_rank_fn(e)) {
		sl__plan_error(p, e->line, e->col, SL_ENOTSUP,
		               "%s() is only supported in a subquery whose enclosing query filters "
		               "on it (WHERE rn <= N or rn = 1)", f);
		return SL_EPLAN;
	}
	const sl_func_def *u = sl__udaf(p, e);
	if (u) { /* a user-defined aggregate (bind_udf.c): its arguments are columns too */
		if (e->u.call.distinct) {
			sl__plan_error(p, e->line, e->col, SL_ENOTSUP,
			               "DISTINCT in OVER aggregates is not supported yet");
			return SL_EPLAN;
		}
		sl_expr **ux = sl__bind_udaf_call(p, s, e, u, a);
		sl_expr *filt = NULL;
		if (!ux || (e->u.call.filter && !(filt = sl__bind_expr(p, s, e->u.call.filter))))
			return SL_EPLAN;
		for (int j = 0; j < a->nargs; j++)
			a->arg_cols[j] = pre_col(p, ux[j], x, names, n,
			                         sl_arena_printf(p->a, "a%d_", i), j);
		a->arg_col = a->nargs ? a->arg_cols[0] : -1;
		a->filter_col = filt ? pre_col(p, filt, x, names, n, "f", i) : -1;
		return 0;
	}
	memset(a, 0, sizeof(*a));
	if (!strcmp(f, "LAG"))
		return over_lag(p, s, e, i, a, x, names, n);
	a->vt = sl_agg_find(f);
	if (!a->vt) {
		sl__plan_error(p, e->line, e->col, SL_ENOTSUP, "window function %s is not supported", f);
		return SL_EPLAN;
	}
	int star = e->u.call.star || e->u.call.nargs == 0;
	if ((!star && e->u.call.nargs != 1) || (star && strcmp(a->vt->name, "COUNT"))) {
		sl__plan_error(p, e->line, e->col, SL_EPLAN, "%s takes one argument", f);
		return SL_EPLAN;
	}
	if (e->u.call.distinct && star) {
		sl__plan_error(p, e->line, e->col, SL_EPLAN, "COUNT(DISTINCT *) is not valid");
		return SL_EPLAN;
	}
	a->distinct = e->u.call.distinct;
	sl_expr *arg = NULL, *filt = NULL;
	if (!star && !(arg = sl__bind_expr(p, s, e->u.call.args[0])))
		return SL_EPLAN;
	if (e->u.call.filter && !(filt = sl__bind_expr(p, s, e->u.call.filter)))
		return SL_EPLAN;
	a->arg_type = star ? sl_type_make(SL_T_BIGINT) : arg->type;
	if (a->vt->result_type(a->arg_type, star, &a->out_type, p->err)) {
		char msg[SL_ERR_MAX];
		snprintf(msg, sizeof(msg), "%s", p->err->msg);
		int code = p->err->code;
		sl_err_clear(p->err);
		sl__plan_error(p, e->line, e->col, code, "%s", msg);
		return SL_EPLAN;
	}
	a->arg_col = arg ? pre_col(p, arg, x, names, n, "a", i) : -1;
	a->filter_col = filt ? pre_col(p, filt, x, names, n, "f", i) : -1;
	if (!strcmp(a->vt->name, "ARRAY_AGG")) {
		sl__plan_error(p, e->line, e->col, SL_ENOTSUP,
		               "%s in OVER aggregates is not supported yet", f);
		return SL_EPLAN;
	}
	return 0;
}

/*
 * Plans the OVER aggregates of sel's SELECT list over r (the FROM relation
 * after WHERE); returns the OverAggregate's relation and fills m with the
 * calls' columns.  NULL with p->err set.
 */
rel *sl__plan_over_aggs(planner *p, const sl_ast_select *sel, rel *r, agg_map *m)
{
	over_calls c;
	memset(&c, 0, sizeof(c));
	for (int i = 0; i < sel->nitems; i++)
		find_over(p, sel->items[i].expr, &c);
	if (c.n == 0 || c.n > 64)
		return sl__plan_error(p, sel->line, sel->col, SL_ENOTSUP, "at most 64 OVER calls");
	const sl_ast_expr *c0 = c.call[0];
	if (r->tvf_in)
		return sl__plan_error(p, c0->line, c0->col, SL_ENOTSUP,
		                      "OVER aggregates over a window TVF are not supported yet");
	const sl_ast_window *w = NULL;
	const char *wt = NULL;
	for (int i = 0; i < c.n; i++) {
		const sl_ast_expr *e = c.call[i];
		const sl_ast_window *wi = resolve_window(p, sel, e->u.call.over, e->line, e->col);
		if (!wi)
			return NULL;
		const char *ti = window_text(p, wi);
		if (w && strcmp(ti, wt))
			return sl__plan_error(p, e->line, e->col, SL_ENOTSUP,
			                      "all OVER aggregates of a SELECT must use the same window");
		w = wi;
		wt = ti;
	}
	int cap = r->ncols + w->npartition + (2 + SL_AGG_MAX_ARGS) * c.n + 1;
	sl_expr **x = sl_arena_calloc(p->a, sizeof(sl_expr *) * (size_t)cap);
	const char **names = sl_arena_calloc(p->a, sizeof(char *) * (size_t)cap);
	int n = r->ncols;
	for (int i = 0; i < r->ncols; i++) {
		x[i] = sl_expr_col(p->a, i, r->cols[i].type);
		names[i] = r->cols[i].name;
	}
	scope s = {r, NULL, NULL};
	sl_over_plan op = {0};
	/* ORDER BY: the event-time attribute, ascending */
	sl_expr *ox = w->norder == 1 ? sl__bind_expr(p, &s, w->order[0].expr) : NULL;
	if (w->norder == 1 && !ox)
		return NULL;
	if (ox && ox->kind == SL_EX_COL && ox->col == r->proctime && r->proctime >= 0)
		return sl__plan_error(p, w->order[0].line, w->order[0].col, SL_ENOTSUP,
		                      "processing-time OVER aggregates are not supported yet "
		                      "(ORDER BY the table's rowtime)");
	if (r->updating) {
		/* op_over_retract.c: ROWS n PRECEDING ordered by one BIGINT or
		 * TIMESTAMP column, kept in order in state (no watermark) */
		if (!ox || ox->kind != SL_EX_COL || sl_type_phys(ox->type) != SL_PHYS_I64 ||
		    w->order[0].desc)
			return sl__plan_error(p, w->line, w->col, SL_ENOTSUP,
			                      "OVER aggregates over an updating input (made by %s) must "
			                      "be ordered by one BIGINT or TIMESTAMP column, ascending",
			                      r->upd_op ? r->upd_op : "an operator");
		op.retract = 1;
	} else if (!ox || ox->kind != SL_EX_COL || ox->col != r->rowtime || r->rowtime < 0 ||
	           w->order[0].desc)
		return sl__plan_error(p, w->line, w->col, SL_ENOTSUP,
		                      "OVER aggregates must be ordered by the input's event-time "
		                      "attribute (a column with a WATERMARK), ascending");
	op.time_col = ox->col;
	if (over_frame(p, w, &op))
		return NULL;
	/* ROW_NUMBER takes no frame and counts in ROWS (Calcite gives it ROWS
	 * BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW): another call would have
	 * another window (Flink: "All aggregates must be computed on the same
	 * window") */
	for (int i = 0; i < c.n; i++) {
		const sl_ast_expr *e = c.call[i];
		if (strcmp(e->u.call.fname, "ROW_NUMBER"))
			continue;
		if (w->frame)
			return sl__plan_error(p, e->line, e->col, SL_EPLAN,
			                      "ROW/RANGE not allowed with RANK, DENSE_RANK or "
			                      "ROW_NUMBER functions");
		for (int j = 0; j < c.n; j++)
			if (strcmp(c.call[j]->u.call.fname, "ROW_NUMBER"))
				return sl__plan_error(p, c.call[j]->line, c.call[j]->col, SL_ENOTSUP,
				                      "all OVER aggregates of a SELECT must use the same "
				                      "window (ROW_NUMBER's is ROWS BETWEEN UNBOUNDED "
				                      "PRECEDING AND CURRENT ROW, %s's the window's frame)",
				                      c.call[j]->u.call.fname);
		op.rows = 1;
		op.preceding = -1;
	}
	if (op.retract && (!op.rows || op.preceding < 0 ||
	                   op.preceding > SL_OVER_RETRACT_MAX_PRECEDING))
		return sl__plan_error(p, w->line, w->col, SL_ENOTSUP,
		                      "OVER aggregates over an updating input (made by %s) need a "
		                      "ROWS BETWEEN n PRECEDING AND CURRENT ROW frame (n <= %d); "
		                      "RANGE and UNBOUNDED frames are not supported yet",
		                      r->upd_op ? r->upd_op : "an operator",
		                      SL_OVER_RETRACT_MAX_PRECEDING);
	int *keys = sl_arena_calloc(p->a, sizeof(int) * (size_t)(w->npartition + 1));
	for (int i = 0; i < w->npartition; i++) {
		sl_expr *k = sl__bind_expr(p, &s, w->partition[i]);
		if (!k)
			return NULL;
		keys[i] = pre_col(p, k, x, names, &n, "k", i);
	}
	sl_agg *aggs = sl_arena_calloc(p->a, sizeof(sl_agg) * (size_t)(c.n + 1));
	for (int i = 0; i < c.n; i++) {
		if (over_agg(p, &s, c.call[i], i, &aggs[i], x, names, &n))
			return NULL;
		if (sl_agg_is_str(&aggs[i]) && aggs[i].vt != &sl_over_lag_vtab && op.retract)
			return sl__plan_error(p, c.call[i]->line, c.call[i]->col, SL_ENOTSUP,
			                      "%s over strings in OVER aggregates over an updating input "
			                      "is not supported yet", c.call[i]->u.call.fname);
		/* Flink's LagAggFunction cannot retract: no bounded frame */
		if (aggs[i].vt == &sl_over_lag_vtab && (op.preceding >= 0 || op.retract))
			return sl__plan_error(p, c.call[i]->line, c.call[i]->col, SL_ENOTSUP,
			                      "LAG needs an OVER window with an UNBOUNDED PRECEDING "
			                      "frame over an append-only input (it cannot retract a "
			                      "row leaving a bounded frame, as in Flink)");
	}
	/* DISTINCT counts values in state as rows enter and leave the frame: an
	 * unbounded frame, or one whose aggregates all retract (otherwise the
	 * frame is recomputed for each row, where only MIN / MAX may be
	 * DISTINCT, which it does not change); not over an updating input */
	int all_retract = 1;
	for (int i = 0; i < c.n; i++)
		all_retract &= aggs[i].vt->retractable;
	for (int i = 0; i < c.n; i++) {
		if (!aggs[i].distinct)
			continue;
		const char *fn = aggs[i].vt->name;
		if (op.retract)
			return sl__plan_error(p, c.call[i]->line, c.call[i]->col, SL_ENOTSUP,
			                      "DISTINCT in OVER aggregates over an updating input is not "
			                      "supported yet");
		if (op.preceding >= 0 && !all_retract && strcmp(fn, "MIN") && strcmp(fn, "MAX"))
			return sl__plan_error(p, c.call[i]->line, c.call[i]->col, SL_ENOTSUP,
			                      "%s(DISTINCT ..) over a bounded frame beside an aggregate "
			                      "that cannot retract (MIN, MAX, FIRST_VALUE, ...) is not "
			                      "supported yet", fn);
	}
	rel *in = r;
	if (n > r->ncols && !(in = sl__add_calc(p, r, NULL, x, n, names)))
		return NULL;
	op.nkeys = w->npartition;
	op.key_cols = keys;
	op.naggs = c.n;
	op.aggs = aggs;
	rel *out = sl__rel_new(p, in->ncols + c.n);
	for (int i = 0; i < in->ncols; i++)
		out->cols[i] = in->cols[i];
	m->n = 0;
	m->text = sl_arena_calloc(p->a, sizeof(char *) * (size_t)(c.n + 1));
	m->col = sl_arena_calloc(p->a, sizeof(int) * (size_t)(c.n + 1));
	m->over = 1;
	m->nstar = r->ncols;
	for (int i = 0; i < c.n; i++) {
		out->cols[in->ncols + i].name = sl_arena_printf(p->a, "EXPR$%d", i);
		out->cols[in->ncols + i].type = aggs[i].out_type;
		m->text[m->n] = c.text[i];
		m->col[m->n++] = in->ncols + i;
	}
	out->rowtime = r->rowtime;
	out->proctime = r->proctime;
	if (op.retract) { /* a full retract stream, its rows' aggregates updated */
		out->updating = 1;
		out->upd_op = "OverAggregate";
	}
	sl_buf lb;
	sl_buf_init(&lb);
	sl_buf_printf(&lb, "OverAggregate(window=[%s], select=[", wt);
	for (int i = 0; i < c.n; i++)
		sl_buf_printf(&lb, "%s%s", i ? ", " : "", c.text[i]);
	sl_buf_puts(&lb, "])");
	const char *label = sl_arena_strndup(p->a, lb.p, lb.len);
	sl_buf_deinit(&lb);
	if (!sl__node_new(p, SL_OPK_OVER_AGG, &op, sizeof(op), &in->node, 1, NULL, out, label))
		return NULL;
	return out;
}
