/*
 * plan_query.c - plans a query: FROM items, WHERE, SELECT lists, DISTINCT,
 * UNION / INTERSECT / EXCEPT and WITH.  Comma joins (plan_comma.c) take their conditions
 * from the WHERE; scalar subqueries and then IN / EXISTS subqueries of the
 * WHERE (plan_subquery.c) are joined to the FROM relation before the rest
 * of the query.  GROUP BY, its windows and aggregates are planned by
 * plan_agg.c (sl__plan_aggregate); this file keeps FROM items (tables,
 * views, window TVFs), WHERE, the SELECT list, DISTINCT and the set
 * operations, and exports the small helpers plan_agg.c shares (window
 * arguments, the time column, filters).
 */
#include "plan_int.h"
#include "plan_join.h"
#include "sluice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

rel *sl__rel_new(planner *p, int ncols)
{
	rel *r = sl_arena_calloc(p->a, sizeof(*r));
	if (!r)
		return NULL;
	r->ncols = ncols;
	r->cols = sl_arena_calloc(p->a, sizeof(rcol) * (size_t)(ncols + 1));
	r->rowtime = r->proctime = -1;
	return r;
}

static rel *rel_alias(planner *p, const rel *in, const char *qual)
{
	rel *r = sl__rel_new(p, in->ncols);
	const rcol *keep = r->cols;
	*r = *in;
	r->cols = (rcol *)keep;
	for (int i = 0; i < in->ncols; i++) {
		r->cols[i] = in->cols[i];
		r->cols[i].qual = qual;
	}
	return r;
}

/* EXPLAIN text of a Calc: where=[...], select=[...] over in's column names. */
static const char *calc_label(planner *p, const rel *in, const sl_expr *filter,
                              sl_expr *const *proj, int n, const char **names)
{
	const char **cn = sl_arena_alloc(p->a, sizeof(char *) * (size_t)(in->ncols + 1));
	for (int i = 0; i < in->ncols; i++)
		cn[i] = in->cols[i].name;
	sl_buf s;
	sl_buf_init(&s);
	char buf[1024];
	sl_buf_puts(&s, "Calc(");
	if (filter)
		sl_buf_printf(&s, "where=[%s], ", sl_expr_format(filter, cn, buf, sizeof(buf)));
	sl_buf_puts(&s, "select=[");
	for (int i = 0; i < n; i++) {
		sl_expr_format(proj[i], cn, buf, sizeof(buf));
		sl_buf_printf(&s, "%s%s", i ? ", " : "", buf);
		if (proj[i]->kind != SL_EX_COL || strcmp(cn[proj[i]->col], names[i]))
			sl_buf_printf(&s, " AS %s", names[i]);
	}
	sl_buf_puts(&s, "])");
	const char *r = sl_arena_strndup(p->a, s.p, s.len);
	sl_buf_deinit(&s);
	return r;
}

/* Top-N's strategy metadata (plan_int.h) through a projection: a column
 * or a CAST of one keeps its monotonicity, a column its upsert-key member;
 * the key survives when every member is projected (Flink's metadata on a
 * Calc without a condition). */
static void keep_mono(planner *p, const rel *in, sl_expr *const *proj, int n, rel *r)
{
	int8_t *mono = sl_arena_calloc(p->a, (size_t)n + 1);
	int8_t *ukey = sl_arena_calloc(p->a, (size_t)n + 1);
	uint8_t *seen = sl_arena_calloc(p->a, (size_t)in->nukey + 1);
	if (!mono || !ukey || !seen)
		return; /* no metadata: Top-N falls back to its retract strategy */
	int nseen = 0;
	for (int i = 0; i < n; i++) {
		const sl_expr *x = proj[i];
		ukey[i] = -1;
		if (x->kind == SL_EX_COL && in->ukey && in->ukey[x->col] >= 0) {
			ukey[i] = in->ukey[x->col];
			nseen += !seen[ukey[i]];
			seen[ukey[i]] = 1;
		}
		if (x->kind == SL_EX_CALL && x->fn == SL_FN_CAST)
			x = x->args[0];
		mono[i] = x->kind == SL_EX_COL ? in->mono[x->col] : SL_MONO_NOT;
	}
	r->mono = mono;
	if (in->ukey && nseen == in->nukey) {
		r->ukey = ukey;
		r->nukey = in->nukey;
	}
}

/* Calc over `in`: optional filter, projection exprs -> new rel. */
static rel *add_calc(planner *p, rel *in, sl_expr *filter, sl_expr **proj, int n,
                     const char **names, const char *label)
{
	if (!label)
		label = calc_label(p, in, filter, proj, n, names);
	rel *r = sl__rel_new(p, n);
	for (int i = 0; i < n; i++) {
		r->cols[i].name = names[i];
		r->cols[i].type = proj[i]->type;
		if (proj[i]->kind == SL_EX_COL) {
			r->cols[i].qual = in->cols[proj[i]->col].qual;
			if (proj[i]->col == in->rowtime && r->rowtime < 0)
				r->rowtime = i;
			if (proj[i]->col == in->proctime && r->proctime < 0)
				r->proctime = i;
		} else if (proj[i]->kind == SL_EX_CALL && proj[i]->fn == SL_FN_PROCTIME &&
		           r->proctime < 0) {
			r->proctime = i; /* PROCTIME() in a view or subquery (Flink) */
		}
	}
	r->updating = in->updating;
	r->upd_op = in->upd_op;
	if (in->mono && !filter)
		keep_mono(p, in, proj, n, r);
	int ws = -1, we = -1; /* window columns kept: window joins */
	for (int i = 0; in->win && i < n; i++) {
		if (proj[i]->kind == SL_EX_COL && proj[i]->col == in->win_start && ws < 0)
			ws = i;
		if (proj[i]->kind == SL_EX_COL && proj[i]->col == in->win_end && we < 0)
			we = i;
	}
	if (ws >= 0 && we >= 0) {
		r->win = in->win;
		r->win_start = ws;
		r->win_end = we;
	}
	for (int i = 0; !in->updating && i < n && !r->wend_time1; i++)
		if (proj[i]->kind == SL_EX_COL &&
		    ((in->win && !in->win->tz && !in->win->proc && proj[i]->col == in->win_end) ||
		     (in->wend_time1 && proj[i]->col == in->wend_time1 - 1)))
			r->wend_time1 = i + 1;
	for (int i = 0; in->tvf_time1 && i < n && !r->tvf_time1; i++)
		if (proj[i]->kind == SL_EX_COL && proj[i]->col == in->tvf_time1 - 1)
			r->tvf_time1 = i + 1;
	sl_calc_params cp = {filter, proj, n};
	if (!sl__node_new(p, SL_OPK_CALC, &cp, sizeof(cp), &in->node, 1, NULL, r, label))
		return NULL;
	return r;
}

rel *sl__add_calc(planner *p, rel *in, sl_expr *filter, sl_expr **x, int n, const char **names)
{
	return add_calc(p, in, filter, x, n, names, NULL);
}

/* Identity projection of every column of in, with a filter. */
rel *sl__add_filter_text(planner *p, rel *in, sl_expr *filter, const char *text)
{
	sl_expr **proj = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(in->ncols + 1));
	const char **names = sl_arena_alloc(p->a, sizeof(char *) * (size_t)(in->ncols + 1));
	for (int i = 0; i < in->ncols; i++) {
		proj[i] = sl_expr_col(p->a, i, in->cols[i].type);
		names[i] = in->cols[i].name;
	}
	rel *r = add_calc(p, in, filter, proj, in->ncols, names, NULL);
	if (r) {
		for (int i = 0; i < in->ncols; i++)
			r->cols[i].qual = in->cols[i].qual;
		r->rowtime = in->rowtime;
		r->proctime = in->proctime;
	}
	return r;
}

rel *sl__add_filter(planner *p, rel *in, sl_expr *filter)
{
	return sl__add_filter_text(p, in, filter, NULL);
}

static rel *materialize_tvf(planner *p, rel *v);

/* ---- FROM ----------------------------------------------------------------- */

static rel *plan_from(planner *p, const sl_ast_from *f);
static rel *plan_item(planner *p, const sl_ast_from *f);

static const sl_ast_expr *tvf_arg(const sl_ast_expr *c, int pos, const char *name)
{
	if (c->u.call.argnames)
		for (int i = 0; i < c->u.call.nargs; i++)
			if (c->u.call.argnames[i] && strcasecmp(c->u.call.argnames[i], name) == 0)
				return c->u.call.args[i];
	if (pos < c->u.call.nargs && (!c->u.call.argnames || !c->u.call.argnames[pos]))
		return c->u.call.args[pos];
	return NULL;
}

static rel *plan_table_name(planner *p, const sl_ast_name *n, int line, int col,
                            const sl_ast_hint *hints, int nhints);

int sl__interval_arg(planner *p, const sl_ast_expr *c, const sl_ast_expr *a, const char *what,
                        int64_t *out)
{
	if (!a) {
		sl__plan_error(p, c->line, c->col, SL_EPLAN, "%s: missing %s argument",
		               c->u.call.fname, what);
		return SL_EPLAN;
	}
	if (sl__bind_interval(p, a, out))
		return SL_EPLAN;
	if (*out <= 0 && strcmp(what, "OFFSET")) {
		sl__plan_error(p, a->line, a->col, SL_EPLAN, "%s: %s must be positive",
		               c->u.call.fname, what);
		return SL_EPLAN;
	}
	return 0;
}

/* The zone windows over column type t align in: the session zone for a
 * TIMESTAMP_LTZ rowtime (NULL when it is UTC), NULL for TIMESTAMP. */
const char *sl__window_tz(planner *p, sl_type t)
{
	const char *tz = p->tz;
	if (t.id != SL_T_TIMESTAMP_LTZ || !tz || !strcasecmp(tz, "UTC") || !strcasecmp(tz, "Z") ||
	    !strcasecmp(tz, "GMT") || !strcmp(tz, "+00:00") || !strcasecmp(tz, "Etc/UTC"))
		return NULL;
	return tz;
}

/* Checks the window's size rules (Flink's). */
int sl__check_window(planner *p, const sl_ast_expr *at, const sl_window_spec *w)
{
	if (w->kind == SL_WIN_HOP && w->size % w->slide != 0) {
		sl__plan_error(p, at->line, at->col, SL_EPLAN,
		               "HOP window requires size to be an integral multiple of slide");
		return SL_EPLAN;
	}
	if (w->kind == SL_WIN_CUMULATE && w->size % w->slide != 0) {
		sl__plan_error(p, at->line, at->col, SL_EPLAN,
		               "CUMULATE window requires max_size to be an integral multiple of step");
		return SL_EPLAN;
	}
	if ((w->kind == SL_WIN_HOP || w->kind == SL_WIN_CUMULATE) && w->size / w->slide > 1024) {
		sl__plan_error(p, at->line, at->col, SL_ENOTSUP,
		               "at most 1024 windows per row are supported (size / slide)");
		return SL_EPLAN;
	}
	return 0;
}

/* The time attribute of rel r named by a DESCRIPTOR or a column ref: its
 * rowtime, or its PROCTIME() column (*proc = 1: a processing-time window). */
int sl__time_col(planner *p, const rel *r, const char *name, int line, int col, int *proc)
{
	int idx = -1;
	for (int i = 0; i < r->ncols; i++)
		if (strcmp(r->cols[i].name, name) == 0)
			idx = i;
	if (idx < 0) {
		sl__plan_error(p, line, col, SL_EPLAN, "Column '%s' not found in any table", name);
		return -1;
	}
	*proc = idx == r->proctime;
	if (*proc)
		return idx;
	if (idx != r->rowtime) {
		sl__plan_error(p, line, col, SL_EPLAN,
		               "the window's time column '%s' is not a time attribute: declare "
		               "WATERMARK FOR %s AS ... on its table", name, name);
		return -1;
	}
	return idx;
}

static rel *plan_tvf(planner *p, const sl_ast_from *f)
{
	const sl_ast_expr *c = f->u.fn.call;
	const char *fn = c->u.call.fname;
	sl_window_spec w = {0};
	const sl_ast_expr *data = tvf_arg(c, 0, "DATA"), *tc = tvf_arg(c, 1, "TIMECOL");
	if (!strcmp(fn, "TUMBLE")) {
		w.kind = SL_WIN_TUMBLE;
		if (sl__interval_arg(p, c, tvf_arg(c, 2, "SIZE"), "SIZE", &w.size))
			return NULL;
		if (tvf_arg(c, 3, "OFFSET") && sl__interval_arg(p, c, tvf_arg(c, 3, "OFFSET"), "OFFSET", &w.offset))
			return NULL;
	} else if (!strcmp(fn, "HOP") || !strcmp(fn, "CUMULATE")) {
		int hop = fn[0] == 'H';
		w.kind = hop ? SL_WIN_HOP : SL_WIN_CUMULATE;
		if (sl__interval_arg(p, c, tvf_arg(c, 2, hop ? "SLIDE" : "STEP"), hop ? "SLIDE" : "STEP", &w.slide) ||
		    sl__interval_arg(p, c, tvf_arg(c, 3, "SIZE"), "SIZE", &w.size))
			return NULL;
		if (tvf_arg(c, 4, "OFFSET") && sl__interval_arg(p, c, tvf_arg(c, 4, "OFFSET"), "OFFSET", &w.offset))
			return NULL;
	} else if (!strcmp(fn, "SESSION")) {
		w.kind = SL_WIN_SESSION;
		if (sl__interval_arg(p, c, tvf_arg(c, 2, "GAP"), "GAP", &w.size))
			return NULL;
	} else {
		return sl__plan_error(p, c->line, c->col, SL_ENOTSUP,
		                      "table function %s is not supported", fn);
	}
	if (!data || data->kind != SL_AX_TABLE_ARG)
		return sl__plan_error(p, c->line, c->col, SL_EPLAN,
		                      "%s: the first argument must be TABLE <name>", fn);
	if (!tc || tc->kind != SL_AX_DESCRIPTOR || tc->u.descriptor.ncols != 1)
		return sl__plan_error(p, c->line, c->col, SL_EPLAN,
		                      "%s: the time column must be given as DESCRIPTOR(column)", fn);
	if (sl__check_window(p, c, &w))
		return NULL;
	rel *in = plan_table_name(p, &data->u.table_arg.table, data->line, data->col, NULL, 0);
	if (!in)
		return NULL;
	const sl_ast_ident *d = &tc->u.descriptor.cols[0];
	if ((w.time_col = sl__time_col(p, in, d->name, d->line, d->col, &w.proc)) < 0)
		return NULL;
	w.tz = sl__window_tz(p, in->cols[w.time_col].type);
	rel *r = sl__rel_new(p, in->ncols + 3);
	for (int i = 0; i < in->ncols; i++)
		r->cols[i] = in->cols[i];
	static const char *wn[3] = {"window_start", "window_end", "window_time"};
	for (int i = 0; i < 3; i++) {
		r->cols[in->ncols + i].name = wn[i];
		r->cols[in->ncols + i].type = i < 2 ? sl_type_timestamp(SL_T_TIMESTAMP, 3)
		                                    : in->cols[w.time_col].type;
	}
	/* window_time: a time attribute of the window's kind (Flink) */
	if (w.proc)
		r->proctime = in->ncols + 2;
	else
		r->rowtime = in->ncols + 2;
	r->tvf_in = in;
	r->tvf_win = w;
	r->tvf_call = c;
	r->tvf_part = w.kind == SL_WIN_SESSION ? data : NULL;
	return r;
}

static rel *plan_table_name(planner *p, const sl_ast_name *n, int line, int col,
                            const sl_ast_hint *hints, int nhints)
{
	const char *name = sl_ast_name_last(n);
	for (int i = p->nctes - 1; i >= 0; i--) {
		if (strcmp(p->ctes[i].name, name))
			continue;
		if (!p->ctes[i].planned)
			p->ctes[i].planned = sl__plan_query(p, p->ctes[i].cte->query);
		return p->ctes[i].planned;
	}
	const sl_view_def *v = sl_catalog_view(p->cat, name);
	if (v) {
		if (p->view_depth >= SL_PLAN_MAX_VIEW_DEPTH)
			return sl__plan_error(p, line, col, SL_EPLAN,
			                      "views nested too deeply at view '%s' (more than %d views "
			                      "expanded inside one another)", name, SL_PLAN_MAX_VIEW_DEPTH);
		p->view_depth++;
		rel *r = sl__plan_query(p, v->query);
		p->view_depth--;
		if (r && v->ncols) {
			if (v->ncols != r->ncols)
				return sl__plan_error(p, line, col, SL_EPLAN,
				                      "view '%s' lists %d columns but its query has %d", name,
				                      v->ncols, r->ncols);
			r = rel_alias(p, r, NULL);
			for (int i = 0; i < v->ncols; i++)
				r->cols[i].name = v->cols[i].name;
		}
		return r;
	}
	const sl_table_def *t = sl_catalog_table(p->cat, name);
	if (!t)
		return sl__plan_error(p, line, col, SL_EPLAN, "Object '%s' not found", name);
	const sl_opts *extra = NULL;
	for (int i = 0; i < nhints; i++) {
		if (strcmp(hints[i].name, "OPTIONS"))
			return sl__plan_error(p, hints[i].line, hints[i].col, SL_ENOTSUP,
			                      "table hint %s is not supported (OPTIONS is)", hints[i].name);
		sl_opts *o = sl_arena_calloc(p->a, sizeof(*o));
		sl_opts_init(o, p->a);
		if (extra)
			sl_opts_merge(o, extra);
		for (int k = 0; k < hints[i].nargs; k++) {
			if (!hints[i].args[k].key)
				return sl__plan_error(p, hints[i].line, hints[i].col, SL_EPLAN,
				                      "OPTIONS hint arguments are 'key' = 'value' pairs");
			sl_opts_set(o, hints[i].args[k].key, hints[i].args[k].value);
		}
		extra = o;
	}
	return sl__plan_scan(p, t, extra, line, col);
}

/* The right side of a join FOR SYSTEM_TIME AS OF (a table name), its alias
 * applied (plan_join.c plans the join). */
static rel *plan_as_of_side(planner *p, const sl_ast_from *f)
{
	rel *r = plan_table_name(p, &f->u.table.name, f->line, f->col, f->u.table.hints,
	                         f->u.table.nhints);
	if (!r)
		return NULL;
	r = rel_alias(p, r, f->alias ? f->alias->name : sl_ast_name_last(&f->u.table.name));
	for (int i = 0; r && i < f->ncol_aliases && i < r->ncols; i++)
		r->cols[i].name = f->col_aliases[i].name;
	return r;
}

static rel *plan_from(planner *p, const sl_ast_from *f)
{
	rel *r = NULL;
	const char *alias = f->alias ? f->alias->name : NULL;
	switch (f->kind) {
	case SL_AF_TABLE:
		if (f->u.table.as_of)
			return sl__plan_error(p, f->line, f->col, SL_ENOTSUP,
			                      "FOR SYSTEM_TIME AS OF is only supported on the right side "
			                      "of a JOIN (temporal and lookup joins)");
		r = plan_table_name(p, &f->u.table.name, f->line, f->col, f->u.table.hints,
		                    f->u.table.nhints);
		if (r && !alias)
			alias = sl_ast_name_last(&f->u.table.name);
		break;
	case SL_AF_SUBQUERY:
		r = sl__plan_query(p, f->u.sub.query);
		if (!r && f->u.sub.lateral) /* with FROM: uncorrelated only */
			sl__lateral_hint(p);
		break;
	case SL_AF_TABLE_FN:
		if (f->u.fn.unnest) /* its alias names its columns (plan_unnest.c) */
			return sl__plan_unnest_alone(p, f);
		if (f->u.fn.lateral)
			return sl__plan_error(p, f->line, f->col, SL_ENOTSUP,
			                      "LATERAL TABLE (table functions) is not supported yet");
		if (!(r = plan_tvf(p, f)) || !alias)
			return r;
		break;
	case SL_AF_MATCH: {
		rel *in = plan_from(p, f->u.match->input);
		if (in && in->tvf_in)
			in = materialize_tvf(p, in);
		if (!in || !(r = sl__plan_match(p, f, in)))
			return NULL;
		break;
	}
	case SL_AF_JOIN: {
		const sl_ast_from *rf = f->u.join.right;
		if (rf->kind == SL_AF_TABLE && rf->u.table.as_of) { /* temporal / lookup join */
			rel *l = plan_from(p, f->u.join.left);
			if (l && l->tvf_in)
				l = materialize_tvf(p, l);
			if (!l || !(r = sl__plan_as_of_join(p, f, l, plan_as_of_side)) || !alias)
				return r;
			break;
		}
		if (sl__is_unnest(rf)) { /* correlated: a Correlate over the left side */
			rel *l = plan_from(p, f->u.join.left);
			if (l && l->tvf_in)
				l = materialize_tvf(p, l);
			if (!l || !(r = sl__plan_unnest_join(p, f, l)) || !alias)
				return r;
			break;
		}
		if (sl__is_lateral(p, rf)) { /* correlated: decorrelated over the left side */
			rel *l = plan_from(p, f->u.join.left);
			if (l && l->tvf_in)
				l = materialize_tvf(p, l);
			if (!l || !(r = sl__plan_lateral_join(p, f, l, plan_item)) || !alias)
				return r;
			break;
		}
		rel *l = plan_from(p, f->u.join.left), *rr = l ? plan_from(p, f->u.join.right) : NULL;
		if (rr && l->tvf_in)
			l = materialize_tvf(p, l);
		if (rr && l && rr->tvf_in)
			rr = materialize_tvf(p, rr);
		if (!l || !rr || !(r = sl__plan_join(p, f, l, rr)))
			return r;
		sl__plan_join_ttl(p, f, l, rr);
		if (!alias)
			return r;
		break;
	}
	}
	if (!r)
		return NULL;
	r = rel_alias(p, r, alias);
	for (int i = 0; i < f->ncol_aliases && i < r->ncols; i++)
		r->cols[i].name = f->col_aliases[i].name;
	return r;
}

/* A comma join's item: planned, a window TVF materialized (plan_comma.c). */
static rel *plan_item(planner *p, const sl_ast_from *f)
{
	rel *r = plan_from(p, f);
	return r && r->tvf_in ? materialize_tvf(p, r) : r;
}


/* ---- SELECT ------------------------------------------------------------------ */

static const char *item_name(planner *p, const sl_ast_select_item *it, int i)
{
	if (it->alias)
		return it->alias->name;
	if (it->expr->kind == SL_AX_COLUMN)
		return it->expr->u.name.parts[it->expr->u.name.n - 1].name;
	return sl_arena_printf(p->a, "EXPR$%d", i);
}

static rel *plan_projection(planner *p, const sl_ast_select *sel, rel *r, const agg_map *m,
                            sl_expr *filter)
{
	int cap = 0;
	for (int i = 0; i < sel->nitems; i++)
		cap += sel->items[i].expr->kind == SL_AX_STAR ? r->ncols : 1;
	sl_expr **x = sl_arena_calloc(p->a, sizeof(sl_expr *) * (size_t)(cap + 1));
	const char **names = sl_arena_calloc(p->a, sizeof(char *) * (size_t)(cap + 1));
	int n = 0, identity = 1;
	scope s = {r, m, NULL};
	for (int i = 0; i < sel->nitems; i++) {
		const sl_ast_select_item *it = &sel->items[i];
		if (it->expr->kind == SL_AX_STAR) {
			if (m && !m->over)
				return sl__plan_error(p, it->line, it->col, SL_EPLAN,
				                      "'*' is not allowed in an aggregate query");
			const char *q = it->expr->u.name.n ? it->expr->u.name.parts[0].name : NULL;
			for (int k = 0; k < (m && m->over ? m->nstar : r->ncols); k++) {
				if (q && (!r->cols[k].qual || strcmp(r->cols[k].qual, q)))
					continue;
				if (r->cols[k].name[0] == '$')
					continue; /* hidden columns the planner added ($window_time,
					           * a scalar subquery's $scalar value: plan_subquery.c) */
				names[n] = r->cols[k].name;
				x[n++] = sl_expr_col(p->a, k, r->cols[k].type);
			}
			continue;
		}
		if (!(x[n] = sl__bind_expr(p, &s, it->expr)))
			return NULL;
		names[n] = item_name(p, it, n);
		n++;
	}
	if (n != r->ncols)
		identity = 0;
	for (int i = 0; identity && i < n; i++)
		if (x[i]->kind != SL_EX_COL || x[i]->col != i || strcmp(names[i], r->cols[i].name))
			identity = 0;
	if (identity && !filter)
		return r;
	rel *out = add_calc(p, r, filter, x, n, names, NULL);
	if (out && identity) {
		out->rowtime = r->rowtime;
		out->proctime = r->proctime;
	}
	return out;
}

/* WHERE / HAVING must be BOOLEAN (Flink refuses anything else). */
int sl__is_condition(planner *p, const sl_ast_expr *at, const sl_expr *x)
{
	if (x->type.id == SL_T_BOOLEAN || x->type.id == SL_T_NULL)
		return 1;
	char b[64];
	sl__plan_error(p, at->line, at->col, SL_EPLAN, "a condition must be BOOLEAN, not %s",
	               sl_type_format(x->type, b, sizeof(b)));
	return 0;
}

/* The SESSION TVF read as a table (op_session_assign.c): its PARTITION BY
 * keys must be columns of its input; they go to a.  0, or SL_EPLAN /
 * SL_ENOTSUP with p->err set. */
static int session_assign(planner *p, rel *v, sl_assign_params *a)
{
	const sl_ast_expr *ta = v->tvf_part;
	int np = ta ? ta->u.table_arg.npartition : 0;
	int *keys = sl_arena_calloc(p->a, sizeof(int) * (size_t)(np + 1));
	scope s = {v->tvf_in, NULL, NULL};
	for (int i = 0; i < np; i++) {
		const sl_ast_expr *pk = ta->u.table_arg.partition[i];
		sl_expr *x = sl__bind_expr(p, &s, pk);
		if (!x)
			return p->err->code ? p->err->code : SL_EPLAN;
		if (x->kind != SL_EX_COL) {
			sl__plan_error(p, pk->line, pk->col, SL_ENOTSUP,
			               "SESSION: PARTITION BY keys must be columns");
			return SL_ENOTSUP;
		}
		keys[i] = x->col;
	}
	a->key_cols = keys;
	a->nkeys = np;
	return 0;
}

/* A window TVF used as a table: the window assignment operator. */

static rel *materialize_tvf(planner *p, rel *v)
{
	if (v->tvf_in->updating)
		return sl__plan_error(p, v->tvf_call->line, v->tvf_call->col, SL_ENOTSUP,
		                      "a window TVF read as a table over an updating input (made by %s) "
		                      "is not supported", v->tvf_in->upd_op);
	sl_assign_params ap = {v->tvf_win, NULL, 0};
	int session = v->tvf_win.kind == SL_WIN_SESSION;
	if (session && session_assign(p, v, &ap))
		return NULL;
	rel *r = sl__rel_new(p, v->ncols);
	for (int i = 0; i < v->ncols; i++)
		r->cols[i] = v->cols[i];
	if (v->tvf_win.proc)
		r->proctime = v->ncols - 1; /* window_time */
	else
		r->rowtime = v->ncols - 1;
	r->win = &v->tvf_win;
	if (!v->tvf_win.proc)
		r->tvf_time1 = v->tvf_win.time_col + 1;
	r->win_start = v->ncols - 3;
	r->win_end = v->ncols - 2;
	static const char *wk[] = {"TUMBLE", "HOP", "CUMULATE", "SESSION"};
	const char *label = v->tvf_win.kind == SL_WIN_SESSION
	                  ? sl_arena_printf(p->a, "WindowTableFunction(SESSION(gap=%lld ms, "
	                                    "partition=[%s]))", (long long)(v->tvf_win.size / 1000),
	                                    v->tvf_part ? sl__ast_text(p, v->tvf_part) : "")
	                  : sl_arena_printf(p->a, "WindowTableFunction(%s(size=%lld ms, slide=%lld ms, "
	                                    "offset=%lld ms))", wk[v->tvf_win.kind],
	                                    (long long)(v->tvf_win.size / 1000),
	                                    (long long)(v->tvf_win.slide / 1000),
	                                    (long long)(v->tvf_win.offset / 1000));
	if (!sl__node_new(p, session ? SL_OPK_SESSION_ASSIGN : SL_OPK_WINDOW_ASSIGN, &ap, sizeof(ap),
	                  &v->tvf_in->node, 1, NULL, r, label)) {
		if (p->err->code != SL_ENOMEM)
			sl__plan_error(p, v->tvf_call->line, v->tvf_call->col, p->err->code, "%s",
			               p->err->msg);
		return NULL;
	}
	return r;
}

static rel *plan_select_body(planner *p, const sl_ast_select *sel);

/* 1 when sel's SELECT list has a scalar subquery. */
static int sel_has_scalar(const sl_ast_select *sel)
{
	for (int i = 0; i < sel->nitems; i++)
		if (sl__ast_subqueries(sel->items[i].expr, SL_SUBQ_SCALAR, NULL, 0))
			return 1;
	return 0;
}

/* Plans sel with its STATE_TTL hint current for the joins and the
 * aggregate it plans (plan_ttl.c). */
static rel *plan_select(planner *p, const sl_ast_select *sel)
{
	const sl_ast_select *outer = p->ttl_sel;
	int nscalar = p->nscalar; /* its scalar subqueries are its own */
	p->ttl_sel = sel;
	rel *r = sl__plan_ttl_check(p, sel) ? NULL : plan_select_body(p, sel);
	p->ttl_sel = outer;
	p->nscalar = nscalar;
	return r;
}

/* sel is FROM l [INNER] JOIN r ON c WHERE w, with neither side a temporal
 * or lookup join's table, no USING, no subquery in w and no hint: w can be
 * part of the join's condition.  So is FROM l CROSS JOIN r WHERE w (r not
 * UNNEST): it is l JOIN r ON w, as Flink's FlinkFilterJoinRule makes it. */
static int inner_join_where(const sl_ast_select *sel)
{
	const sl_ast_from *f = sel->from;
	if (!sel->where || f->kind != SL_AF_JOIN || f->alias)
		return 0;
	if (f->u.join.type == SL_AJ_CROSS) /* CROSS JOIN ... WHERE w: ON w */
		return !sl__is_unnest(f->u.join.right) &&
		       !(f->u.join.right->kind == SL_AF_SUBQUERY && f->u.join.right->u.sub.lateral) &&
		       !sl__ast_has_subquery(sel->where);
	if (f->u.join.type != SL_AJ_INNER || !f->u.join.on || f->u.join.nusing)
		return 0;
	const sl_ast_from *rf = f->u.join.right;
	if (rf->kind == SL_AF_TABLE && rf->u.table.as_of)
		return 0;
	return !sl__ast_has_subquery(sel->where);
}

static rel *plan_select_body(planner *p, const sl_ast_select *sel)
{
	sl_ast_select rest; /* ROW_NUMBER pattern: sel without its rn filter */
	rel *r;
	if (!sel->from) {
		for (int i = 0; i < sel->nitems; i++)
			if (sel->items[i].expr->kind == SL_AX_STAR)
				return sl__plan_error(p, sel->items[i].expr->line, sel->items[i].expr->col,
				                      SL_EPLAN, "SELECT * is not allowed without FROM");
		r = sl__plan_one_row(p);
	} else if (sl__is_rank_query(sel)) {
		r = sl__plan_rank(p, sel, &rest);
		sel = &rest;
	} else if (sel->from->kind == SL_AF_JOIN && sel->from->u.join.type == SL_AJ_COMMA) {
		rest = *sel; /* the WHERE conjuncts the joins did not take */
		r = sl__plan_comma(p, sel->from, sel->where, (const sl_ast_expr **)&rest.where, 0,
		                   plan_item, plan_as_of_side);
		sel = &rest;
	} else if (inner_join_where(sel)) {
		/* FROM a JOIN b ON c WHERE w, an inner join: w joins the ON
		 * condition (the same rows; Flink's FlinkFilterJoinRule), so a
		 * bound between the sides' times in w makes an interval join and
		 * keys in w are keys */
		sl_ast_from *f = sl_arena_alloc(p->a, sizeof(*f));
		sl_ast_expr *and = sl_arena_calloc(p->a, sizeof(*and));
		if (!f || !and)
			return sl__plan_error(p, sel->line, sel->col, SL_ENOMEM, "out of memory");
		*f = *sel->from;
		if (f->u.join.type == SL_AJ_CROSS) {
			f->u.join.type = SL_AJ_INNER;
			f->u.join.on = sel->where;
		}
		and->kind = SL_AX_BINARY;
		and->line = sel->where->line;
		and->col = sel->where->col;
		and->u.op.op = SL_AOP_AND;
		and->u.op.a = f->u.join.on;
		and->u.op.b = sel->where;
		and->height = 1 + (f->u.join.on->height > sel->where->height ? f->u.join.on->height
		                                                             : sel->where->height);
		if (f->u.join.on != sel->where)
			f->u.join.on = and;
		r = plan_from(p, f);
		rest = *sel;
		rest.where = NULL;
		sel = &rest;
	} else {
		r = plan_from(p, sel->from);
	}
	if (!r)
		return NULL;
	int agg0 = sel->ngroup > 0 || sl__has_agg(p, sel);
	if (r->tvf_in && (sl__ast_has_subquery(sel->where) || sel_has_scalar(sel)) &&
	    !(r = materialize_tvf(p, r)))
		return NULL;
	if (!(r = sl__plan_scalar_subqueries(p, sel, r, agg0))) /* plan_subquery.c */
		return NULL;
	if (sl__ast_subqueries(sel->where, SL_SUBQ_PRED, NULL, 0)) { /* IN, EXISTS */
		if (sel != &rest)
			rest = *sel;
		if (!(r = sl__plan_subqueries(p, r, sel->where, plan_item)))
			return NULL;
		rest.where = NULL;
		sel = &rest;
	}
	agg_map m = {0};
	int agg = sel->ngroup > 0 || sl__has_agg(p, sel);
	int over = sl__select_has_over(p, sel); /* OVER aggregates: plan_over.c */
	if (over && agg)
		return sl__plan_error(p, sel->line, sel->col, SL_ENOTSUP,
		                      "OVER aggregates together with GROUP BY or aggregates are not "
		                      "supported yet");
	sl_expr *fused = NULL; /* WHERE evaluated by the projection's Calc */
	if (sel->where && !agg && !over && !r->tvf_in) {
		scope s = {r, NULL, NULL};
		if (!(fused = sl__bind_expr(p, &s, sel->where)) || !sl__is_condition(p, sel->where, fused))
			return NULL;
	} else if (sel->where && (agg || over)) {
		rel *target = r->tvf_in ? r->tvf_in : r;
		scope s = {target, NULL, NULL};
		sl_expr *f = sl__bind_expr(p, &s, sel->where);
		if (!f || !sl__is_condition(p, sel->where, f))
			return NULL;
		rel *fr = sl__add_filter_text(p, target, f, sl__ast_text(p, sel->where));
		if (!fr)
			return NULL;
		if (r->tvf_in) {
			rel *v = rel_alias(p, r, NULL);
			for (int i = 0; i < r->ncols; i++)
				v->cols[i].qual = r->cols[i].qual;
			v->tvf_in = fr;
			r = v;
		} else {
			r = fr;
		}
	}
	if (agg) {
		if (!(r = sl__select_has_grouping(p, sel) ? sl__plan_grouping(p, sel, r, &m)
		                                          : sl__plan_aggregate(p, sel, r, &m)))
			return NULL;
		for (int i = 0; i < sel->nhints; i++)
			if (!strcmp(sel->hints[i].name, "UID") && sel->hints[i].nargs == 1)
				r->node->uid_hint = sel->hints[i].args[0].value;
		sl__plan_agg_ttl(p, sel, r);
	} else if (over && !(r = sl__plan_over_aggs(p, sel, r, &m))) {
		return NULL;
	} else if (sel->allowed_lateness || sel->on_late) {
		return sl__plan_error(p, sel->allowed_lateness ? sel->lateness_line : sel->on_late_line,
		                      sel->allowed_lateness ? sel->lateness_col : sel->on_late_col,
		                      SL_EPLAN, "late-data clauses (ALLOWED LATENESS, ON LATE) are only "
		                      "allowed on a window aggregate");
	} else if (r->tvf_in) {
		if (!(r = materialize_tvf(p, r)))
			return NULL;
		if (sel->where) {
			scope s = {r, NULL, NULL};
			if (!(fused = sl__bind_expr(p, &s, sel->where)) || !sl__is_condition(p, sel->where, fused))
				return NULL;
		}
	}
	if (!(r = plan_projection(p, sel, r, agg || over ? &m : NULL, fused)))
		return NULL;
	if (sel->distinct)
		r = sl__plan_distinct(p, r);
	return r;
}

/* INTERSECT / EXCEPT [ALL] over the two sides, already of the common
 * column types: one SetOp operator (op_set_op.c).  Its output is updating
 * unless it can only grow (INTERSECT of append-only inputs); it carries no
 * time attribute. */
static rel *plan_set_op(planner *p, const sl_ast_query *q, rel *const side[2],
                        const sl_type *common)
{
	int inter = q->setop.op == SL_SET_INTERSECT;
	sl_set_op_params sp = {inter ? SL_SETOP_INTERSECT : SL_SETOP_EXCEPT, q->setop.all};
	rel *out = sl__rel_new(p, side[0]->ncols);
	for (int i = 0; i < side[0]->ncols; i++) {
		out->cols[i].name = side[0]->cols[i].name;
		out->cols[i].type = common[i];
	}
	const char *label = sl_arena_printf(p->a, "%s(all=[%s])", inter ? "Intersect" : "Minus",
	                                    q->setop.all ? "true" : "false");
	out->updating = !inter || side[0]->updating || side[1]->updating;
	if (out->updating)
		out->upd_op = !inter ? label : side[0]->updating ? side[0]->upd_op : side[1]->upd_op;
	sl_pnode *in[2] = {side[0]->node, side[1]->node};
	if (!sl__node_new(p, SL_OPK_SET_OP, &sp, sizeof(sp), in, 2, NULL, out, label))
		return NULL;
	return out;
}

/* UNION, INTERSECT, EXCEPT: both sides cast to the common type of each
 * column, then a Union (and for UNION DISTINCT a GROUP BY every column)
 * or a SetOp. */
static rel *plan_union(planner *p, const sl_ast_query *q)
{
	static const char *opname[] = {"", "UNION", "INTERSECT", "EXCEPT"};
	const char *what = opname[q->setop.op];
	rel *l = sl__plan_query(p, q->setop.left), *r = l ? sl__plan_query(p, q->setop.right) : NULL;
	if (!r)
		return NULL;
	if (l->ncols != r->ncols)
		return sl__plan_error(p, q->line, q->col, SL_EPLAN,
		                      "%s: the inputs have %d and %d columns", what, l->ncols, r->ncols);
	/* cast both sides to the common type of each column */
	rel *side[2] = {l, r};
	sl_type *common = sl_arena_alloc(p->a, sizeof(sl_type) * (size_t)(l->ncols + 1));
	for (int i = 0; i < l->ncols; i++) {
		sl_expr *a[2] = {sl_expr_col(p->a, 0, l->cols[i].type), sl_expr_col(p->a, 1, r->cols[i].type)};
		sl_expr *c = sl_expr_call(p->a, SL_FN_COALESCE, a, 2, NULL, 0, p->err);
		if (!c) {
			char m[SL_ERR_MAX];
			snprintf(m, sizeof(m), "%s", p->err->msg);
			sl_err_clear(p->err); /* the first error would win */
			return sl__plan_error(p, q->line, q->col, SL_EPLAN, "%s: column %d: %s", what,
			                      i + 1, m);
		}
		common[i] = c->type;
	}
	for (int s = 0; s < 2; s++) {
		int same = 1;
		for (int i = 0; i < l->ncols; i++)
			if (!sl_type_equal(side[s]->cols[i].type, common[i]))
				same = 0;
		if (same)
			continue;
		sl_expr **x = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)l->ncols);
		const char **names = sl_arena_alloc(p->a, sizeof(char *) * (size_t)l->ncols);
		for (int i = 0; i < l->ncols; i++) {
			x[i] = sl_expr_cast(p->a, sl_expr_col(p->a, i, side[s]->cols[i].type), common[i], p->err);
			if (!x[i])
				return NULL;
			names[i] = side[s]->cols[i].name;
		}
		int rt = side[s]->rowtime;
		if (!(side[s] = add_calc(p, side[s], NULL, x, l->ncols, names, NULL)))
			return NULL;
		side[s]->rowtime = rt;
	}
	if (q->setop.op != SL_SET_UNION)
		return plan_set_op(p, q, side, common);
	rel *out = sl__rel_new(p, l->ncols);
	for (int i = 0; i < l->ncols; i++) {
		out->cols[i].name = l->cols[i].name;
		out->cols[i].type = common[i];
	}
	if (side[0]->rowtime >= 0 && side[0]->rowtime == side[1]->rowtime)
		out->rowtime = side[0]->rowtime;
	out->updating = l->updating || r->updating;
	out->upd_op = l->updating ? l->upd_op : r->upd_op;
	sl_pnode *in[2] = {side[0]->node, side[1]->node};
	if (!sl__node_new(p, SL_OPK_UNION, NULL, 0, in, 2, NULL, out, "Union(all=[true])"))
		return NULL;
	if (!q->setop.all)
		out = sl__plan_distinct(p, out);
	return out;
}

/* 1 when ORDER BY item e is a bare name of one of sel's items (its alias,
 * or a column item of that name): it is resolved on the output. */
static int names_item(const sl_ast_select *sel, const sl_ast_expr *e)
{
	if (e->kind != SL_AX_COLUMN || e->u.name.n != 1)
		return 0;
	const char *n = e->u.name.parts[0].name;
	for (int i = 0; i < sel->nitems; i++) {
		const sl_ast_select_item *it = &sel->items[i];
		if (it->alias ? !strcmp(it->alias->name, n)
		              : it->expr->kind == SL_AX_COLUMN &&
		                    !strcmp(it->expr->u.name.parts[it->expr->u.name.n - 1].name, n))
			return 1;
	}
	return 0;
}

rel *sl__plan_query(planner *p, const sl_ast_query *q)
{
	int saved = p->nctes;
	for (int i = 0; i < q->nwith; i++) {
		if (p->nctes == 64)
			return sl__plan_error(p, q->line, q->col, SL_ENOTSUP, "too many WITH queries");
		cte_def *c = &p->ctes[p->nctes++];
		c->name = q->with[i].name.name;
		c->cte = &q->with[i];
		c->planned = NULL;
	}
	rel *r = NULL;
	int *hidden = NULL, nhidden = 0;
	if (q->kind == SL_AQ_SELECT && q->norder && !q->select->distinct) {
		/* ORDER BY items other than positions become hidden trailing
		 * SELECT items, so they may use the SELECT's whole scope */
		const sl_ast_select *sel = q->select;
		sl_ast_select *s2 = sl_arena_alloc(p->a, sizeof(*s2));
		sl_ast_select_item *items = sl_arena_calloc(p->a, sizeof(*items) *
		                                            (size_t)(sel->nitems + q->norder));
		hidden = sl_arena_alloc(p->a, sizeof(int) * (size_t)q->norder);
		*s2 = *sel;
		memcpy(items, sel->items, sizeof(*items) * (size_t)sel->nitems);
		for (int i = 0; i < q->norder; i++) {
			const sl_ast_expr *e = q->order[i].expr;
			hidden[i] = -1;
			if ((e->kind == SL_AX_LITERAL && e->u.lit.kind == SL_AL_INTEGER) ||
			    names_item(sel, e))
				continue;
			sl_ast_select_item *it = &items[sel->nitems + nhidden++];
			it->expr = (sl_ast_expr *)e;
			it->line = e->line;
			it->col = e->col;
			sl_ast_ident *al = sl_arena_calloc(p->a, sizeof(*al));
			al->name = sl_arena_printf(p->a, "$order%d", i);
			it->alias = al;
			hidden[i] = nhidden - 1; /* made absolute below */
		}
		s2->items = items;
		s2->nitems = sel->nitems + nhidden;
		r = plan_select(p, s2);
		for (int i = 0; r && i < q->norder; i++)
			if (hidden[i] >= 0)
				hidden[i] += r->ncols - nhidden;
	} else if (q->kind == SL_AQ_SELECT) {
		r = plan_select(p, q->select);
	} else if (q->kind == SL_AQ_SETOP) {
		r = plan_union(p, q);
	} else {
		r = sl__plan_values(p, q);
	}
	if (r && (q->norder || q->limit || q->offset))
		r = sl__plan_order_limit(p, q, r, r->ncols - nhidden, hidden); /* plan_order.c */
	p->nctes = saved;
	return r;
}
