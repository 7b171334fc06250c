/*
 * plan_order.c - ORDER BY, LIMIT, OFFSET and FETCH of a query on a stream,
 * where Flink 1.20 allows them:
 *
 *   ORDER BY x [DESC] [, ..] LIMIT n [OFFSET m]
 *       a global Top-N (Flink's SortLimit): the Rank operator (op_rank.c)
 *       with one partition and the rank range m+1 .. m+n, without a row
 *       number: +I for a row entering the first n, -D for one leaving;
 *       over an updating input too.  The output is updating.
 *   LIMIT n [OFFSET m] without ORDER BY
 *       Flink's Limit: the first rows by arrival (every row ties, ties keep
 *       arrival order), so over an append-only input the output is
 *       append-only (+I of rows m+1 .. m+n, then nothing).
 *   ORDER BY rowtime [ASC] [, k [DESC] ..] without LIMIT
 *       Flink's temporal sort: every row is emitted once the watermark
 *       passes its rowtime, in rowtime order (ties in the order of the
 *       further keys k, then in arrival order); late
 *       rows are dropped and counted.  It is an OVER aggregate without
 *       aggregates (op_over_agg.c), so it keeps the rowtime.
 *   ORDER BY a PROCTIME() column [ASC] without LIMIT
 *       rows already arrive in that order: planned as nothing.
 *
 * Refused with Flink's reasons: ORDER BY anything else without LIMIT
 * ("Sort on a non-time-attribute field is not supported."), OFFSET
 * without LIMIT/FETCH ("FETCH is missed ..."); and, as not supported,
 * further sort keys after a PROCTIME() attribute (Flink sorts by them
 * within each millisecond of arrival) or further keys after the rowtime
 * that are not columns.  ORDER BY items are output
 * columns (by name or by position, `ORDER BY 2`) or, in a SELECT (not
 * DISTINCT), any expression of its scope: plan_query.c plans those as
 * hidden trailing items of the SELECT, dropped after the sort; other
 * expressions are computed by a Calc in front.  LIMIT and OFFSET are
 * integer literals.
 */
#include "plan_int.h"
#include "../exec/op_over.h"
#include "../exec/op_rank.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

/* An integer literal argument of LIMIT / OFFSET; -1 with p->err set. */
static int64_t count_arg(planner *p, const sl_ast_expr *e, const char *what)
{
	if (!e || e->kind != SL_AX_LITERAL || e->u.lit.kind != SL_AL_INTEGER) {
		sl__plan_error(p, e ? e->line : 0, e ? e->col : 0, SL_ENOTSUP,
		               "%s must be an integer literal", what);
		return -1;
	}
	return strtoll(e->u.lit.text, NULL, 10);
}

/* The output column named by a bare column reference e among r's first
 * nvis columns (a qualifier must match too), or -1 (none or ambiguous). */
static int visible_col(const rel *r, int nvis, const sl_ast_expr *e)
{
	if (e->kind != SL_AX_COLUMN || e->u.name.n > 2)
		return -1;
	const char *name = e->u.name.parts[e->u.name.n - 1].name;
	const char *qual = e->u.name.n == 2 ? e->u.name.parts[0].name : NULL;
	int found = -1;
	for (int i = 0; i < nvis; i++) {
		if (strcmp(r->cols[i].name, name) ||
		    (qual && (!r->cols[i].qual || strcmp(r->cols[i].qual, qual))))
			continue;
		if (found >= 0)
			return -1;
		found = i;
	}
	return found;
}

/* Binds the ORDER BY items over r: an integer literal k is output column
 * k, a bare name of a visible output column that column, an item planned
 * as a hidden column (hidden[i] >= 0) that column, anything else an
 * expression over r's visible columns.  x[i] receives them. */
static int bind_order(planner *p, const sl_ast_query *q, rel *r, int nvis, const int *hidden,
                      sl_expr **x)
{
	rel vis = *r;
	vis.ncols = nvis;
	scope s = {&vis, NULL, NULL};
	for (int i = 0; i < q->norder; i++) {
		const sl_ast_expr *e = q->order[i].expr;
		int c = visible_col(r, nvis, e);
		if (e->kind == SL_AX_LITERAL && e->u.lit.kind == SL_AL_INTEGER) {
			int64_t k = strtoll(e->u.lit.text, NULL, 10);
			if (k < 1 || k > nvis) {
				sl__plan_error(p, e->line, e->col, SL_EPLAN,
				               "ORDER BY position %lld is not in the select list (1..%d)",
				               (long long)k, nvis);
				return SL_EPLAN;
			}
			x[i] = sl_expr_col(p->a, (int)k - 1, r->cols[k - 1].type);
		} else if (c >= 0 || (hidden && hidden[i] >= 0)) {
			c = c >= 0 ? c : hidden[i];
			x[i] = sl_expr_col(p->a, c, r->cols[c].type);
		} else if (!(x[i] = sl__bind_expr(p, &s, e))) {
			return SL_EPLAN;
		}
		if (sl_type_phys(x[i]->type) == SL_PHYS_ROW || sl_type_is_collection(x[i]->type)) {
			sl__plan_error(p, e->line, e->col, SL_ENOTSUP, "%s",
			               x[i]->type.id == SL_T_ROW
			                   ? "ORDER BY a ROW value is not supported"
			                   : "ORDER BY an ARRAY or MAP value is not supported");
			return SL_EPLAN;
		}
	}
	return 0;
}

/* A Calc keeping r's first nkeep columns (r itself when that is all). */
static rel *keep_cols(planner *p, rel *r, int nkeep)
{
	if (!r || nkeep == r->ncols)
		return r;
	sl_expr **x = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(nkeep + 1));
	const char **names = sl_arena_alloc(p->a, sizeof(char *) * (size_t)(nkeep + 1));
	for (int i = 0; i < nkeep; i++) {
		x[i] = sl_expr_col(p->a, i, r->cols[i].type);
		names[i] = r->cols[i].name;
	}
	rel *kept = sl__add_calc(p, r, NULL, x, nkeep, names);
	for (int i = 0; kept && i < nkeep; i++)
		kept->cols[i].qual = r->cols[i].qual;
	return kept;
}

/* Temporal sort: ORDER BY the rowtime ascending, then the further keys
 * x[1..q->norder) (columns of r), no LIMIT. */
static rel *temporal_sort(planner *p, const sl_ast_query *q, rel *r, sl_expr **x)
{
	sl_over_plan op = {0};
	op.time_col = r->rowtime;
	op.rows = 1;
	op.preceding = -1;
	int ns = q->norder - 1;
	int *sc = sl_arena_calloc(p->a, sizeof(int) * (size_t)(ns + 1));
	uint8_t *sd = sl_arena_calloc(p->a, (size_t)ns + 1);
	uint8_t *nf = sl_arena_calloc(p->a, (size_t)ns + 1);
	const char *keys = "";
	for (int i = 0; i < ns; i++) {
		const sl_ast_order *oi = &q->order[i + 1];
		sc[i] = x[i + 1]->col;
		sd[i] = oi->desc;
		/* Flink's default: NULLs are the smallest values */
		nf[i] = oi->nulls_first >= 0 ? (uint8_t)oi->nulls_first : !sd[i];
		keys = sl_arena_printf(p->a, "%s, %s %s", keys, r->cols[sc[i]].name,
		                       sd[i] ? "DESC" : "ASC");
	}
	op.nsort = ns;
	op.sort_cols = sc;
	op.sort_desc = sd;
	op.sort_nulls_first = nf;
	rel *out = sl__rel_new(p, r->ncols);
	for (int i = 0; i < r->ncols; i++)
		out->cols[i] = r->cols[i];
	out->rowtime = r->rowtime;
	const char *label = sl_arena_printf(p->a, "TemporalSort(orderBy=[%s ASC%s])",
	                                    r->cols[r->rowtime].name, keys);
	if (!sl__node_new(p, SL_OPK_OVER_AGG, &op, sizeof(op), &r->node, 1, NULL, out, label))
		return NULL;
	return out;
}

/* Top-N over r (ORDER BY columns ord[0..norder) of r, maybe none) keeping
 * ranks lo .. hi; then a Calc keeping r's first nkeep columns. */
static rel *sort_limit(planner *p, const sl_ast_query *q, rel *r, const int *ord, int nkeep,
                       int64_t lo, int64_t hi)
{
	uint8_t *desc = sl_arena_calloc(p->a, (size_t)q->norder + 1);
	uint8_t *nf = sl_arena_calloc(p->a, (size_t)q->norder + 1);
	for (int i = 0; i < q->norder; i++) {
		desc[i] = q->order[i].desc;
		/* Flink's default: NULLs are the smallest values */
		nf[i] = q->order[i].nulls_first >= 0 ? (uint8_t)q->order[i].nulls_first : !desc[i];
	}
	sl_rank_plan rp = {0};
	rp.mode = SL_RANK_TOPN;
	rp.norder = q->norder;
	rp.order_cols = ord;
	rp.desc = desc;
	rp.nulls_first = nf;
	rp.n = hi;
	rp.lo = lo;
	rp.retract = r->updating;
	if (sl__rank_strategy(p, r, &rp))
		return NULL;
	if (r->upsert_key)
		return sl__plan_error(p, q->line, q->col, SL_ENOTSUP,
		                      "ORDER BY / LIMIT over an upsert stream (%s, no -U before +U) is "
		                      "not supported yet", r->upd_op ? r->upd_op : "an operator");
	rel *out = sl__rel_new(p, r->ncols);
	for (int i = 0; i < r->ncols; i++)
		out->cols[i] = r->cols[i];
	/* LIMIT alone over an append-only input only ever adds rows */
	out->updating = q->norder > 0 || r->updating;
	const char *label = q->norder
	                  ? sl_arena_printf(p->a, "SortLimit(offset=[%lld], fetch=[%lld])",
	                                    (long long)(lo - 1), (long long)(hi - lo + 1))
	                  : sl_arena_printf(p->a, "Limit(offset=[%lld], fetch=[%lld])",
	                                    (long long)(lo - 1), (long long)(hi - lo + 1));
	out->upd_op = !out->updating ? NULL : r->updating ? r->upd_op : label;
	if (!sl__node_new(p, SL_OPK_RANK, &rp, sizeof(rp), &r->node, 1, NULL, out, label))
		return NULL;
	return keep_cols(p, out, nkeep);
}

rel *sl__plan_order_limit(planner *p, const sl_ast_query *q, rel *r, int nvis,
                          const int *hidden)
{
	int64_t limit = -1, offset = 0;
	if (q->limit && (limit = count_arg(p, q->limit, "LIMIT / FETCH")) < 0)
		return NULL;
	if (q->offset && (offset = count_arg(p, q->offset, "OFFSET")) < 0)
		return NULL;
	if (q->offset && !q->limit)
		return sl__plan_error(p, q->offset->line, q->offset->col, SL_ENOTSUP,
		                      "FETCH is missed, which on streaming table is not supported "
		                      "currently (give OFFSET with a LIMIT)");
	if (q->limit && limit == 0)
		return sl__plan_error(p, q->limit->line, q->limit->col, SL_ENOTSUP,
		                      "LIMIT 0 is not supported (it keeps no row)");
	if (r->tvf_in)
		return sl__plan_error(p, q->line, q->col, SL_ENOTSUP,
		                      "ORDER BY / LIMIT directly over a window TVF is not supported; "
		                      "select from it in a subquery");
	sl_expr **x = sl_arena_calloc(p->a, sizeof(sl_expr *) * (size_t)(q->norder + 1));
	if (bind_order(p, q, r, nvis, hidden, x))
		return NULL;
	if (!q->limit) {
		const sl_ast_order *o0 = &q->order[0];
		int first = x[0]->kind == SL_EX_COL ? x[0]->col : -1;
		int time = first >= 0 && (first == r->rowtime || first == r->proctime);
		if (!time || o0->desc)
			return sl__plan_error(p, o0->line ? o0->line : o0->expr->line,
			                      o0->line ? o0->col : o0->expr->col, SL_ENOTSUP,
			                      "Sort on a non-time-attribute field is not supported. (ORDER "
			                      "BY on a stream needs a LIMIT, or a time attribute in "
			                      "ascending order first)");
		if (q->norder > 1 && first == r->proctime)
			return sl__plan_error(p, q->order[1].expr->line, q->order[1].expr->col,
			                      SL_ENOTSUP, "ORDER BY a PROCTIME() attribute followed by "
			                      "further sort keys is not supported");
		for (int i = 1; i < q->norder; i++)
			if (x[i]->kind != SL_EX_COL)
				return sl__plan_error(p, q->order[i].expr->line, q->order[i].expr->col,
				                      SL_ENOTSUP, "ORDER BY a time attribute followed by a "
				                      "sort key that is not a column is not supported "
				                      "(select it as a column)");
		if (r->updating)
			return sl__plan_error(p, o0->expr->line, o0->expr->col, SL_ENOTSUP,
			                      "ORDER BY a time attribute over an updating input (made by "
			                      "%s) is not supported", r->upd_op ? r->upd_op : "an operator");
		return keep_cols(p, first == r->proctime ? r : temporal_sort(p, q, r, x), nvis);
	}
	/* Top-N: ORDER BY expressions that are not plain columns are computed
	 * after r's columns, and dropped after the rank */
	int extra = 0;
	for (int i = 0; i < q->norder; i++)
		extra += x[i]->kind != SL_EX_COL;
	int *ord = sl_arena_calloc(p->a, sizeof(int) * (size_t)(q->norder + 1));
	rel *in = r;
	if (extra) {
		int n = r->ncols + extra, k = r->ncols;
		sl_expr **px = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)n);
		const char **names = sl_arena_alloc(p->a, sizeof(char *) * (size_t)n);
		for (int i = 0; i < r->ncols; i++) {
			px[i] = sl_expr_col(p->a, i, r->cols[i].type);
			names[i] = r->cols[i].name;
		}
		for (int i = 0; i < q->norder; i++)
			if (x[i]->kind != SL_EX_COL) {
				names[k] = sl_arena_printf(p->a, "$order%d", i);
				ord[i] = k;
				px[k++] = x[i];
			}
		if (!(in = sl__add_calc(p, r, NULL, px, n, names)))
			return NULL;
		for (int i = 0; i < r->ncols; i++)
			in->cols[i].qual = r->cols[i].qual;
	}
	for (int i = 0; i < q->norder; i++)
		if (x[i]->kind == SL_EX_COL)
			ord[i] = x[i]->col;
	return sort_limit(p, q, in, ord, nvis, offset + 1, offset + limit);
}
