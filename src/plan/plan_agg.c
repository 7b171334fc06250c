/*
 * plan_agg.c - plans a GROUP BY (with or without a window) and its
 * aggregates: finds the aggregate calls of the SELECT list and HAVING,
 * binds them, computes keys and arguments that are not plain columns in a
 * Calc in front of the aggregate, builds the window or group aggregate
 * operator (and the late-data side output of a window aggregate), applies
 * HAVING and returns the map from the query's aggregate expressions to the
 * aggregate's output columns (agg_map), which plan_query.c's projection
 * reads.
 *
 * Windows.  A GROUP BY holding a legacy group window call (TUMBLE(ts,
 * size), HOP(ts, slide, size), SESSION(ts, gap)) or grouping a window TVF's
 * window_start and window_end becomes one window aggregate operator fed by
 * the window's input (the TVF itself is virtual: its window columns exist
 * only as the aggregate's output).  The rowtime must be the input's event
 * time attribute.  The window aggregate's window_time stays a time
 * attribute, so windows cascade.  Its output is append-only, or updating
 * under a lateness (ALLOWED LATENESS, 'table.exec.emit.allow-lateness'):
 * late rows correct closed windows with -U/+U/-D.
 *
 * Aggregates.  Keys and aggregate arguments that are not plain columns are
 * computed by a Calc in front of the aggregate, appended after the input's
 * own columns, so that a late row sent to ON LATE INSERT INTO keeps the
 * input relation's columns (docs/semantics.md §1).  A user-defined
 * aggregate (CREATE FUNCTION, bind_udf.c) gets one column per argument
 * (sl_agg.arg_cols); it is refused over an updating input without a
 * retract callback and in a SESSION window without merge.
 */
#include "plan_int.h"
#include "sluice.h"
#include "sluice_udf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef void (*walk_cb)(planner *p, const sl_ast_expr *e, void *ctx);

static void walk(planner *p, const sl_ast_expr *e, walk_cb cb, void *ctx)
{
	if (!e)
		return;
	cb(p, e, ctx);
	switch (e->kind) {
	case SL_AX_UNARY:
	case SL_AX_BINARY: walk(p, e->u.op.a, cb, ctx); walk(p, e->u.op.b, cb, ctx); break;
	case SL_AX_IS: walk(p, e->u.is.a, cb, ctx); walk(p, e->u.is.b, cb, ctx); break;
	case SL_AX_BETWEEN:
		walk(p, e->u.between.a, cb, ctx);
		walk(p, e->u.between.lo, cb, ctx);
		walk(p, e->u.between.hi, cb, ctx);
		break;
	case SL_AX_IN_LIST:
		walk(p, e->u.in.a, cb, ctx);
		for (int i = 0; i < e->u.in.nlist; i++)
			walk(p, e->u.in.list[i], cb, ctx);
		break;
	case SL_AX_LIKE: walk(p, e->u.like.a, cb, ctx); walk(p, e->u.like.pattern, cb, ctx); break;
	case SL_AX_CASE:
		walk(p, e->u.case_.operand, cb, ctx);
		for (int i = 0; i < e->u.case_.nwhen; i++) {
			walk(p, e->u.case_.when[i], cb, ctx);
			walk(p, e->u.case_.then[i], cb, ctx);
		}
		walk(p, e->u.case_.else_, cb, ctx);
		break;
	case SL_AX_CAST: walk(p, e->u.cast.a, cb, ctx); break;
	case SL_AX_FIELD: walk(p, e->u.field.a, cb, ctx); break;
	case SL_AX_CALL:
		if (sl__is_agg_call(p, e))
			break; /* aggregate arguments are not walked */
		for (int i = 0; i < e->u.call.nargs; i++)
			walk(p, e->u.call.args[i], cb, ctx);
		break;
	default: break;
	}
}

typedef struct agg_collect {
	int n, cap;
	const sl_ast_expr **calls;
	const char **texts;
	int naux;
	const sl_ast_expr *aux[32]; /* TUMBLE_START(...) etc. */
} agg_collect;

static void collect_cb(planner *p, const sl_ast_expr *e, void *ctx)
{
	agg_collect *c = ctx;
	if (e->kind != SL_AX_CALL)
		return;
	const char *f = e->u.call.fname;
	if (sl__is_agg_call(p, e)) {
		const char *t = sl__ast_text(p, e);
		for (int i = 0; i < c->n; i++)
			if (!strcmp(c->texts[i], t))
				return;
		if (c->n == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 8;
			const sl_ast_expr **nc = sl_arena_alloc(p->a, sizeof(*nc) * (size_t)c->cap);
			const char **nt = sl_arena_alloc(p->a, sizeof(*nt) * (size_t)c->cap);
			if (c->n) {
				memcpy(nc, c->calls, sizeof(*nc) * (size_t)c->n);
				memcpy(nt, c->texts, sizeof(*nt) * (size_t)c->n);
			}
			c->calls = nc;
			c->texts = nt;
		}
		c->calls[c->n] = e;
		c->texts[c->n++] = t;
	} else if (c->naux < 32 && (strstr(f, "_START") || strstr(f, "_END") || strstr(f, "_ROWTIME") ||
	                            strstr(f, "_PROCTIME")) &&
	           (!strncmp(f, "TUMBLE_", 7) || !strncmp(f, "HOP_", 4) || !strncmp(f, "SESSION_", 8))) {
		c->aux[c->naux++] = e;
	}
}

/* Legacy group window in GROUP BY: index into sel->group, or -1. */
static int find_group_window(const sl_ast_select *sel)
{
	for (int i = 0; i < sel->ngroup; i++) {
		const sl_ast_expr *g = sel->group[i];
		if (g->kind == SL_AX_CALL && (!strcmp(g->u.call.fname, "TUMBLE") ||
		                              !strcmp(g->u.call.fname, "HOP") ||
		                              !strcmp(g->u.call.fname, "SESSION")))
			return i;
	}
	return -1;
}

static int legacy_window(planner *p, const rel *in, const sl_ast_expr *g, sl_window_spec *w)
{
	const char *f = g->u.call.fname;
	int n = g->u.call.nargs;
	memset(w, 0, sizeof(*w));
	const sl_ast_expr *ts = n > 0 ? g->u.call.args[0] : NULL;
	if (!ts || ts->kind != SL_AX_COLUMN) {
		sl__plan_error(p, g->line, g->col, SL_EPLAN, "%s: the first argument must be the time "
		               "attribute column", f);
		return SL_EPLAN;
	}
	if ((w->time_col = sl__time_col(p, in, sl_ast_name_last(&ts->u.name), ts->line, ts->col,
	                            &w->proc)) < 0)
		return SL_EPLAN;
	w->tz = sl__window_tz(p, in->cols[w->time_col].type);
	if (!strcmp(f, "TUMBLE") && (n == 2 || n == 3)) {
		w->kind = SL_WIN_TUMBLE;
		if (sl__interval_arg(p, g, g->u.call.args[1], "size", &w->size) ||
		    (n == 3 && sl__interval_arg(p, g, g->u.call.args[2], "OFFSET", &w->offset)))
			return SL_EPLAN;
	} else if (!strcmp(f, "HOP") && (n == 3 || n == 4)) {
		w->kind = SL_WIN_HOP;
		if (sl__interval_arg(p, g, g->u.call.args[1], "slide", &w->slide) ||
		    sl__interval_arg(p, g, g->u.call.args[2], "size", &w->size) ||
		    (n == 4 && sl__interval_arg(p, g, g->u.call.args[3], "OFFSET", &w->offset)))
			return SL_EPLAN;
	} else if (!strcmp(f, "SESSION") && n == 2) {
		w->kind = SL_WIN_SESSION;
		if (sl__interval_arg(p, g, g->u.call.args[1], "gap", &w->size))
			return SL_EPLAN;

	} else {
		sl__plan_error(p, g->line, g->col, SL_EPLAN, "%s: wrong number of arguments", f);
		return SL_EPLAN;
	}
	return sl__check_window(p, g, w);
}

/* Maps legacy auxiliary calls (TUMBLE_START(ts, size), ...) to ws/we/wt. */
static int map_aux(planner *p, const agg_collect *c, const sl_ast_expr *g, int base, agg_map *m,
                   int proc)
{
	const char *kind = g->u.call.fname;
	for (int i = 0; i < c->naux; i++) {
		const sl_ast_expr *e = c->aux[i];
		const char *f = e->u.call.fname;
		size_t kl = strlen(kind);
		if (strncmp(f, kind, kl) || f[kl] != '_')
			return sl__plan_error(p, e->line, e->col, SL_EPLAN,
			                      "%s does not match the GROUP BY window %s", f, kind) ? 0
			                                                                           : SL_EPLAN;
		const char *suffix = f + kl + 1;
		int col = !strcmp(suffix, "START") ? base : !strcmp(suffix, "END") ? base + 1
		        : !strcmp(suffix, proc ? "PROCTIME" : "ROWTIME") ? base + 2 : -1;
		if (col < 0 && (!strcmp(suffix, "ROWTIME") || !strcmp(suffix, "PROCTIME"))) {
			sl__plan_error(p, e->line, e->col, SL_EPLAN, "%s needs a window over %s", f,
			               proc ? "an event-time attribute (a column with a WATERMARK)"
			                    : "a processing-time attribute (a PROCTIME() column)");
			return SL_EPLAN;
		}
		if (col < 0) {
			sl__plan_error(p, e->line, e->col, SL_ENOTSUP, "%s is not supported", f);
			return SL_EPLAN;
		}
		m->text[m->n] = sl__ast_text(p, e);
		m->col[m->n++] = col;
	}
	return 0;
}

/* Everything needed to build one aggregate. */
typedef struct agg_build {
	rel *in;              /* input relation (after WHERE) */
	int ngroup;           /* GROUP BY entries that are keys */
	const sl_ast_expr **keys;
	sl_expr **key_x;      /* bound keys over `in` */
	sl_agg *aggs;
	sl_expr **arg_x;      /* bound aggregate arguments (NULL for COUNT(*)) */
	sl_expr **filt_x;     /* bound FILTER conditions */
	sl_expr ***udaf_x;    /* a user-defined aggregate's arguments (aggs[i].nargs), else NULL */
	agg_collect calls;
} agg_build;

static int bind_aggs(planner *p, agg_build *b, scope *s)
{
	int n = b->calls.n;
	b->aggs = sl_arena_calloc(p->a, sizeof(sl_agg) * (size_t)(n + 1));
	b->arg_x = sl_arena_calloc(p->a, sizeof(sl_expr *) * (size_t)(n + 1));
	b->filt_x = sl_arena_calloc(p->a, sizeof(sl_expr *) * (size_t)(n + 1));
	b->udaf_x = sl_arena_calloc(p->a, sizeof(sl_expr **) * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		const sl_ast_expr *e = b->calls.calls[i];
		sl_agg *a = &b->aggs[i];
		const sl_func_def *u = sl__udaf(p, e);
		if (u) { /* CREATE FUNCTION of an aggregate (bind_udf.c) */
			if (!(b->udaf_x[i] = sl__bind_udaf_call(p, s, e, u, a)) ||
			    (e->u.call.filter && !(b->filt_x[i] = sl__bind_expr(p, s, e->u.call.filter))))
				return SL_EPLAN;
			continue;
		}
		a->vt = sl_agg_find(e->u.call.fname);
		a->line = e->line; /* its run-time errors name it */
		a->col = e->col;
		int star = e->u.call.star || e->u.call.nargs == 0;
		if (!star && e->u.call.nargs == 2 && !strcmp(a->vt->name, "LISTAGG")) {
			/* LISTAGG(expr, 'separator'): the separator is a string literal */
			const sl_ast_expr *sx = e->u.call.args[1];
			if (sx->kind != SL_AX_LITERAL || sx->u.lit.kind != SL_AL_STRING) {
				sl__plan_error(p, sx->line, sx->col, SL_EPLAN,
				               "LISTAGG's separator must be a string literal");
				return SL_EPLAN;
			}
			a->sep = sx->u.lit.text;
			a->seplen = (uint32_t)strlen(sx->u.lit.text);
		} else if (!star && e->u.call.nargs != 1) {
			sl__plan_error(p, e->line, e->col, SL_EPLAN, "%s takes one argument", e->u.call.fname);
			return SL_EPLAN;
		}
		if (star && strcmp(a->vt->name, "COUNT")) {
			sl__plan_error(p, e->line, e->col, SL_EPLAN, "%s needs an argument", e->u.call.fname);
			return SL_EPLAN;
		}
		if (!star && !(b->arg_x[i] = sl__bind_expr(p, s, e->u.call.args[0])))
			return SL_EPLAN;
		a->arg_type = star ? sl_type_make(SL_T_BIGINT) : b->arg_x[i]->type;
		if (!star && !strcmp(a->vt->name, "ARRAY_AGG")) { /* ARRAY<arg> in the plan arena */
			sl_row_type *rt = sl_arena_calloc(p->a, sizeof(*rt));
			if (!rt || !(rt->fields = sl_arena_calloc(p->a, sizeof(sl_field) * 2)))
				return sl_err_set(p->err, SL_ENOMEM, "out of memory");
			rt->fields[0].type = a->arg_type;
			rt->fields[0].type.notnull = 0;
			a->out_type = sl_type_collection(SL_T_ARRAY, rt);
		} else if (a->vt->result_type(a->arg_type, star, &a->out_type, p->err)) {
			char msg[SL_ERR_MAX];
			snprintf(msg, sizeof(msg), "%s", p->err->msg);
			int code = p->err->code;
			sl_err_clear(p->err);
			sl__plan_error(p, e->line, e->col, code, "%s", msg);
			return code;
		}
		a->distinct = e->u.call.distinct;
		a->arg_col = a->filter_col = -1;
		if (e->u.call.filter && !(b->filt_x[i] = sl__bind_expr(p, s, e->u.call.filter)))
			return SL_EPLAN;
	}
	return 0;
}

/*
 * Places keys, arguments and filters as columns of the aggregate's input:
 * plain column references use the input column, other expressions are
 * appended by a Calc.  Returns the (possibly new) input rel.
 */
static rel *pre_project(planner *p, agg_build *b, int **key_cols)
{
	rel *in = b->in;
	int extra = 0, n = in->ncols;
	int nx = b->ngroup + (2 + SL_AGG_MAX_ARGS) * b->calls.n;
	sl_expr **x = sl_arena_calloc(p->a, sizeof(sl_expr *) * (size_t)(n + nx + 1));
	const char **names = sl_arena_calloc(p->a, sizeof(char *) * (size_t)(n + nx + 1));
	for (int i = 0; i < n; i++) {
		x[i] = sl_expr_col(p->a, i, in->cols[i].type);
		names[i] = in->cols[i].name;
	}
	*key_cols = sl_arena_calloc(p->a, sizeof(int) * (size_t)(b->ngroup + 1));
	for (int i = 0; i < b->ngroup; i++) {
		if (b->key_x[i]->kind == SL_EX_COL) {
			(*key_cols)[i] = b->key_x[i]->col;
			continue;
		}
		(*key_cols)[i] = n + extra;
		names[n + extra] = sl_arena_printf(p->a, "$k%d", i);
		x[n + extra++] = b->key_x[i];
	}
	for (int i = 0; i < b->calls.n; i++) {
		sl_agg *a = &b->aggs[i];
		for (int j = 0; b->udaf_x && b->udaf_x[i] && j < a->nargs; j++) {
			sl_expr *ux = b->udaf_x[i][j];
			if (ux->kind == SL_EX_COL) {
				a->arg_cols[j] = ux->col;
				continue;
			}
			a->arg_cols[j] = n + extra;
			names[n + extra] = sl_arena_printf(p->a, "$a%d_%d", i, j);
			x[n + extra++] = ux;
		}
		if (b->udaf_x && b->udaf_x[i])
			a->arg_col = a->nargs ? a->arg_cols[0] : -1;
		sl_expr *ax = b->arg_x[i];
		if (ax && ax->kind == SL_EX_COL) {
			b->aggs[i].arg_col = ax->col;
		} else if (ax) {
			b->aggs[i].arg_col = n + extra;
			names[n + extra] = sl_arena_printf(p->a, "$a%d", i);
			x[n + extra++] = ax;
		}
		if (b->filt_x[i]) {
			b->aggs[i].filter_col = n + extra;
			names[n + extra] = sl_arena_printf(p->a, "$f%d", i);
			x[n + extra++] = b->filt_x[i];
		}
	}
	if (!extra)
		return in;
	rel *r = sl__add_calc(p, in, NULL, x, n + extra, names);
	if (r) {
		r->rowtime = in->rowtime;
		for (int i = 0; i < n; i++)
			r->cols[i].qual = in->cols[i].qual;
	}
	return r;
}

static const char *agg_label(planner *p, const char *kind, agg_build *b, const sl_window_spec *w)
{
	sl_buf s;
	sl_buf_init(&s);
	sl_buf_printf(&s, "%s(", kind);
	if (w) {
		static const char *wk[] = {"TUMBLE", "HOP", "CUMULATE", "SESSION"};
		sl_buf_printf(&s, "window=[%s(%s%ssize=%lld ms, slide=%lld ms, offset=%lld ms)], ",
		              wk[w->kind], w->proc ? "proctime, " : "",
		              w->attached ? "attached, " : "", (long long)(w->size / 1000),
		              (long long)(w->slide / 1000), (long long)(w->offset / 1000));
	}
	sl_buf_puts(&s, "groupBy=[");
	for (int i = 0; i < b->ngroup; i++)
		sl_buf_printf(&s, "%s%s", i ? ", " : "", sl__ast_text(p, b->keys[i]));
	sl_buf_puts(&s, "], select=[");
	for (int i = 0; i < b->calls.n; i++)
		sl_buf_printf(&s, "%s%s", i ? ", " : "", b->calls.texts[i]);
	sl_buf_puts(&s, "])");
	const char *r = sl_arena_strndup(p->a, s.p, s.len);
	sl_buf_deinit(&s);
	return r;
}

/* Output rel of an aggregate: keys, [ws, we, wt], aggs; and its agg_map. */
static rel *agg_output(planner *p, agg_build *b, int windowed, const rel *in, agg_map *m,
                       sl_type time_type)
{
	int nw = windowed ? 3 : 0;
	rel *r = sl__rel_new(p, b->ngroup + nw + b->calls.n);
	int n = 0;
	for (int i = 0; i < b->ngroup; i++) {
		r->cols[n].type = b->key_x[i]->type;
		r->cols[n].name = b->keys[i]->kind == SL_AX_COLUMN ? sl_ast_name_last(&b->keys[i]->u.name)
		                                                   : sl__ast_text(p, b->keys[i]);
		m->text[m->n] = sl__ast_text(p, b->keys[i]);
		m->col[m->n++] = n++;
	}
	if (windowed) {
		static const char *wn[3] = {"window_start", "window_end", "window_time"};
		for (int i = 0; i < 3; i++) {
			r->cols[n].name = wn[i];
			r->cols[n++].type = i < 2 ? sl_type_timestamp(SL_T_TIMESTAMP, 3) : time_type;
		}
		r->rowtime = b->ngroup + 2;
	}
	for (int i = 0; i < b->calls.n; i++) {
		r->cols[n].type = b->aggs[i].out_type;
		r->cols[n].name = sl_arena_printf(p->a, "EXPR$%d", i);
		m->text[m->n] = b->calls.texts[i];
		m->col[m->n++] = n++;
	}
	return r;
}

typedef struct late_spec {
	int64_t lateness;
	int policy;
	const sl_table_def *side;
	int line, col;
} late_spec;

static int late_clauses(planner *p, const sl_ast_select *sel, late_spec *ls)
{
	memset(ls, 0, sizeof(*ls));
	ls->lateness = p->default_lateness;
	if (sel->allowed_lateness && sl__bind_interval(p, sel->allowed_lateness, &ls->lateness))
		return SL_EPLAN;
	if (ls->lateness < 0) {
		sl__plan_error(p, sel->lateness_line, sel->lateness_col, SL_EPLAN,
		               "ALLOWED LATENESS must not be negative");
		return SL_EPLAN;
	}
	if (sel->on_late == SL_LATE_INSERT) {
		const char *t = sl_ast_name_last(&sel->late_table);
		ls->side = sl_catalog_table(p->cat, t);
		ls->policy = SL_LATEPOL_SIDE;
		if (!ls->side) {
			sl__plan_error(p, sel->on_late_line, sel->on_late_col, SL_EPLAN,
			               "ON LATE INSERT INTO: table '%s' not found", t);
			return SL_EPLAN;
		}
	}
	return 0;
}

/* The side-output sink of ON LATE INSERT INTO, checked against `in`. */
static sl_pnode *late_sink(planner *p, const sl_ast_select *sel, const late_spec *ls, const rel *in)
{
	const sl_table_def *t = ls->side;
	int nphys = 0;
	for (int i = 0; i < t->ncols; i++)
		nphys += !t->cols[i].computed && !t->cols[i].metadata;
	int ok = nphys == in->ncols;
	for (int i = 0, k = 0; ok && i < t->ncols; i++) {
		if (t->cols[i].computed || t->cols[i].metadata)
			continue;
		sl_type a = t->cols[i].type, b = in->cols[k++].type;
		a.notnull = b.notnull = 0;
		if (sl_type_is_string(a) && sl_type_is_string(b))
			continue;
		if (!sl_type_equal(a, b))
			ok = 0;
	}
	if (!ok) {
		sl_buf s;
		sl_buf_init(&s);
		for (int i = 0; i < in->ncols; i++) {
			char tb[64];
			sl_buf_printf(&s, "%s%s %s", i ? ", " : "", in->cols[i].name,
			              sl_type_format(in->cols[i].type, tb, sizeof(tb)));
		}
		sl__plan_error(p, sel->on_late_line, sel->on_late_col, SL_EPLAN,
		               "ON LATE INSERT INTO '%s': the table's columns must match the window's "
		               "input relation [%s]", t->name, sl_buf_cstr(&s));
		sl_buf_deinit(&s);
		return NULL;
	}
	return sl__plan_sink(p, t, in, sel->on_late_line, sel->on_late_col, 0);
}

/* What the SESSION window aggregate (op_session_agg.c) cannot hold,
 * refused while planning (its constructor refuses the same): 0, or
 * SL_ENOTSUP with p->err set at the aggregate call. */
static int session_limits(planner *p, const sl_ast_select *sel, const agg_build *b)
{
	uint32_t acc = 0;
	for (int i = 0; i < b->calls.n; i++) {
		const sl_ast_expr *c = b->calls.calls[i];
		if (sl_agg_is_str(&b->aggs[i])) {
			sl__plan_error(p, c->line, c->col, SL_ENOTSUP, "%s", !strcmp(b->aggs[i].vt->name,
			               "ARRAY_AGG") ? "ARRAY_AGG in SESSION windows is not supported yet"
			               : "MIN/MAX/FIRST_VALUE/LAST_VALUE over strings in SESSION windows "
			               "are not supported yet");
			return SL_ENOTSUP;
		}
		if (b->aggs[i].distinct) {
			sl__plan_error(p, c->line, c->col, SL_ENOTSUP,
			               "DISTINCT aggregates in SESSION windows are not supported yet");
			return SL_ENOTSUP;
		}
		acc += b->aggs[i].vt->acc_size;
	}
	if (acc > 4096 || b->ngroup > 64) {
		sl__plan_error(p, sel->line, sel->col, SL_ENOTSUP,
		               "too many aggregates or keys in one SESSION window");
		return SL_ENOTSUP;
	}
	return 0;
}

static rel *plan_window_agg(planner *p, const sl_ast_select *sel, agg_build *b,
                            const sl_window_spec *w, agg_map *m, const sl_ast_expr *gw)
{
	late_spec ls;
	if (w->proc && (sel->allowed_lateness || sel->on_late))
		return sl__plan_error(p, sel->allowed_lateness ? sel->lateness_line : sel->on_late_line,
		                      sel->allowed_lateness ? sel->lateness_col : sel->on_late_col,
		                      SL_EPLAN, "late-data clauses (ALLOWED LATENESS, ON LATE) do not "
		                      "apply to processing-time windows: no row is late for them");
	if (late_clauses(p, sel, &ls))
		return NULL;
	if (w->proc)
		ls.lateness = 0; /* 'table.exec.emit.allow-lateness' is about event time */
	int *key_cols;
	rel *in = pre_project(p, b, &key_cols);
	if (!in)
		return NULL;
	if (in->updating)
		return sl__plan_error(p, sel->line, sel->col, SL_EPLAN,
		                      "a window aggregate doesn't support consuming update and delete "
		                      "changes which is produced by node %s", in->upd_op);
	for (int i = 0; w->kind == SL_WIN_SESSION && i < b->calls.n; i++)
		if (b->aggs[i].vt->udf && !b->aggs[i].vt->udf->merge)
			return sl__plan_error(p, b->calls.calls[i]->line, b->calls.calls[i]->col, SL_EPLAN,
			                      "the user-defined aggregate function '%s' has no merge "
			                      "function, which SESSION windows require (sessions merge; "
			                      "docs/udf.md)", b->aggs[i].vt->name);
	if (w->kind == SL_WIN_SESSION && session_limits(p, sel, b))
		return NULL;
	if (b->ngroup > 64)
		return sl__plan_error(p, sel->line, sel->col, SL_EPLAN,
		                      "at most 64 GROUP BY keys are supported");
	sl_window_agg_plan wp = {0};
	wp.win = *w;
	wp.nkeys = b->ngroup;
	wp.key_cols = key_cols;
	wp.naggs = b->calls.n;
	wp.aggs = b->aggs;
	wp.lateness = ls.lateness;
	wp.late_policy = ls.policy;
	wp.late_ncols = b->in->ncols;
	wp.time_type = in->cols[w->time_col].type;
	if (w->attached && w->tz) /* window_end is local: window_time is the instant */
		wp.time_type.id = SL_T_TIMESTAMP_LTZ;
	wp.time_type.precision = 3;
	rel *out = agg_output(p, b, 1, in, m, wp.time_type);
	if (gw && map_aux(p, &b->calls, gw, b->ngroup, m, w->proc))
		return NULL;
	if (w->proc) { /* window_time is a processing-time attribute */
		out->proctime = out->rowtime;
		out->rowtime = -1;
	}
	scope os = {out, m, in};
	if (sel->having && (!(wp.having = sl__bind_expr(p, &os, sel->having)) ||
	                    !sl__is_condition(p, sel->having, wp.having)))
		return NULL;
	sl_pnode *late = NULL;
	if (ls.policy == SL_LATEPOL_SIDE && !(late = late_sink(p, sel, &ls, b->in)))
		return NULL;
	const char *label = agg_label(p, w->kind == SL_WIN_SESSION ? "SessionWindowAggregate"
	                                                            : "WindowAggregate", b, w);
	if (ls.lateness || ls.policy)
		label = sl_arena_printf(p->a, "%s, lateness=[%lld ms], onLate=[%s]", label,
		                        (long long)(ls.lateness / 1000),
		                        ls.policy ? ls.side->name : "DROP");
	/* With a lateness, late rows correct closed windows (-U/+U, -D/+I
	 * under HAVING): an updating stream, as a GroupAggregate's (each row
	 * is keyed by the group keys and the window, but -U comes with the
	 * full old row, so it is a retract stream, not an upsert one).  The
	 * identity text stays the append-only one it had before, so that ids
	 * and savepoints of existing jobs keep restoring (plan_ident.c). */
	const char *ident = sl__op_ident(p, label, out);
	if (ls.lateness > 0) {
		out->updating = 1;
		out->upd_op = label;
	}
	sl_pnode *n = sl__node_new(p, w->kind == SL_WIN_SESSION ? SL_OPK_SESSION_AGG
	                                                        : SL_OPK_WINDOW_AGG,
	                           &wp, sizeof(wp), &in->node, 1, late, out, label);
	if (!n)
		return NULL;
	n->ident = ident;
	return out;
}

/* A GROUP BY over an append-only input: its upsert key is the group key
 * and each column's monotonicity is Flink's (FlinkRelMdModifiedMonotonicity
 * on an aggregate): keys constant, COUNT and MAX increasing, MIN
 * decreasing, the rest (SUM too: Flink finds it monotonic only where a
 * filter bounds its argument's sign) not monotonic.  Top-N reads them to
 * choose its strategy (plan_over.c).  Returns 0 or SL_ENOMEM. */
static int group_agg_mono(planner *p, const agg_build *b, rel *out)
{
	int8_t *mono = sl_arena_calloc(p->a, (size_t)out->ncols + 1);
	int8_t *ukey = sl_arena_calloc(p->a, (size_t)out->ncols + 1);
	if (!mono || !ukey)
		return sl_err_set(p->err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < out->ncols; i++) {
		int a = i - b->ngroup;
		const char *fn = a >= 0 ? b->aggs[a].vt->name : NULL;
		mono[i] = a < 0 ? SL_MONO_CONST
		        : !strcmp(fn, "COUNT") || !strcmp(fn, "MAX") ? SL_MONO_INC
		        : !strcmp(fn, "MIN") ? SL_MONO_DEC : SL_MONO_NOT;
		ukey[i] = (int8_t)(a < 0 && i < 127 ? i : -1);
	}
	if (b->ngroup >= 127)
		return 0;
	out->mono = mono;
	out->ukey = ukey;
	out->nukey = b->ngroup;
	return 0;
}

static rel *plan_group_agg(planner *p, const sl_ast_select *sel, agg_build *b, agg_map *m)
{
	int *key_cols;
	rel *in = pre_project(p, b, &key_cols);
	if (!in)
		return NULL;
	for (int i = 0; i < b->calls.n; i++) {
		if (in->updating && b->aggs[i].vt->udf && !b->aggs[i].vt->retractable)
			return sl__plan_error(p, b->calls.calls[i]->line, b->calls.calls[i]->col, SL_EPLAN,
			                      "the user-defined aggregate function '%s' has no retract "
			                      "function, which is required to consume the update and "
			                      "delete changes produced by node %s (docs/udf.md)",
			                      b->aggs[i].vt->name, in->upd_op);
		if (in->updating && !b->aggs[i].vt->retractable && !b->aggs[i].vt->retract_values)
			return sl__plan_error(p, b->calls.calls[i]->line, b->calls.calls[i]->col, SL_ENOTSUP,
			                      "%s over an updating input is not supported yet",
			                      b->aggs[i].vt->name);
		/* MIN/MAX keep the values they may have to take back (agg.h) */
		b->aggs[i].retract = in->updating && b->aggs[i].vt->retract_values;
	}
	if (b->ngroup > 64) /* the operator's limit (op_group_agg.c) */
		return sl__plan_error(p, sel->line, sel->col, SL_EPLAN,
		                      "at most 64 GROUP BY keys are supported");
	/* Flink's SplitAggregateRule is not implemented: say so rather than
	 * accept the option silently (the results are the same) */
	int dist = 0;
	for (int i = 0; i < b->calls.n; i++)
		dist |= b->aggs[i].distinct;
	int split = 0;
	if (dist && sl_opts_bool(p->session, "table.optimizer.distinct-agg.split.enabled", 0, &split,
	                         p->err))
		return NULL;
	if (split && !p->warned_split && p->warnings) {
		sl_buf_printf(p->warnings, "warning: 'table.optimizer.distinct-agg.split.enabled' is "
		              "not implemented: DISTINCT aggregates of a GROUP BY run in one "
		              "operator (the same results)\n");
		p->warned_split = 1;
	}
	sl_group_agg_plan gp = {b->ngroup, key_cols, b->calls.n, b->aggs, p->mini_batch,
	                        p->mini_batch ? p->mb_latency : 0, p->mini_batch ? p->mb_size : 0};
	rel *out = agg_output(p, b, 0, in, m, sl_type_make(SL_T_NULL));
	out->updating = 1;
	if (!in->updating && group_agg_mono(p, b, out))
		return NULL;
	out->upd_op = agg_label(p, "GroupAggregate", b, NULL);
	if (!sl__node_new(p, SL_OPK_GROUP_AGG, &gp, sizeof(gp), &in->node, 1, NULL, out, out->upd_op))
		return NULL;
	if (sel->having) {
		scope os = {out, m, in};
		sl_expr *h = sl__bind_expr(p, &os, sel->having);
		if (!h || !sl__is_condition(p, sel->having, h))
			return NULL;
		/* after filtering, the map still points at the same columns */
		out = sl__add_filter_text(p, out, h, sl__ast_text(p, sel->having));
	}
	return out;
}

/*
 * A SESSION TVF forms sessions per PARTITION BY key; sluice's session
 * operator forms them per GROUP BY key, so the two must be the same set of
 * columns (a finer GROUP BY inside sessions is not supported yet).
 */
static int check_session_keys(planner *p, const agg_build *b, const rel *from)
{
	const sl_ast_expr *ta = from->tvf_part;
	int np = ta ? ta->u.table_arg.npartition : 0;
	int ok = np == b->ngroup;
	for (int i = 0; ok && i < np; i++) {
		const sl_ast_expr *pk = ta->u.table_arg.partition[i];
		int found = 0;
		for (int k = 0; k < b->ngroup; k++)
			if (!strcmp(sl__ast_text(p, pk), sl__ast_text(p, b->keys[k])))
				found = 1;
		ok = found;
	}
	if (ok)
		return 0;
	sl__plan_error(p, from->tvf_call->line, from->tvf_call->col, SL_ENOTSUP,
	               "SESSION window TVF: the GROUP BY keys (besides window_start and window_end) "
	               "must be exactly the PARTITION BY keys");
	return SL_EPLAN;
}

/* Plans GROUP BY / aggregates; returns the aggregate rel and fills m. */
rel *sl__plan_aggregate(planner *p, const sl_ast_select *sel, rel *from, agg_map *m)
{
	agg_build b;
	memset(&b, 0, sizeof(b));
	for (int i = 0; i < sel->nitems; i++)
		walk(p, sel->items[i].expr, collect_cb, &b.calls);
	walk(p, sel->having, collect_cb, &b.calls);
	int cap = sel->ngroup + b.calls.n + b.calls.naux + 8;
	m->text = sl_arena_calloc(p->a, sizeof(char *) * (size_t)cap);
	m->col = sl_arena_calloc(p->a, sizeof(int) * (size_t)cap);
	b.keys = sl_arena_calloc(p->a, sizeof(sl_ast_expr *) * (size_t)(sel->ngroup + 1));
	b.key_x = sl_arena_calloc(p->a, sizeof(sl_expr *) * (size_t)(sel->ngroup + 1));
	sl_window_spec w;
	int gwi = find_group_window(sel);
	int tvf_ws = -1, tvf_we = -1;
	rel *in = from->tvf_in ? from->tvf_in : from;
	if (gwi >= 0 && legacy_window(p, in, sel->group[gwi], &w))
		return NULL;
	if (from->tvf_in)
		w = from->tvf_win;
	scope s = {from, NULL, NULL};
	for (int i = 0; i < sel->ngroup; i++) {
		if (i == gwi)
			continue;
		sl_expr *x = sl__bind_expr(p, &s, sel->group[i]);
		if (!x)
			return NULL;
		if (from->tvf_in && x->kind == SL_EX_COL && x->col >= in->ncols) {
			int k = x->col - in->ncols;
			if (k == 0)
				tvf_ws = i;
			else if (k == 1)
				tvf_we = i;
			/* window_time is grouped implicitly */
			m->text[m->n] = sl__ast_text(p, sel->group[i]);
			m->col[m->n++] = -100 - k; /* patched below */
			continue;
		}
		b.keys[b.ngroup] = sel->group[i];
		b.key_x[b.ngroup++] = x;
	}
	/* Rows that carry their window (another window aggregate's results, or
	 * a materialized window TVF: rel.win) grouped by both their
	 * window_start and window_end columns: a window aggregate over those
	 * windows, each row in the one window it names (Flink's window-attached
	 * strategy, as Flink plans Nexmark q5's maximum per window), instead of
	 * a GroupAggregate keeping every window's groups forever. */
	int attached = 0;
	if (gwi < 0 && !from->tvf_in && from->win && !from->updating && !from->win->proc &&
	    from->win->kind != SL_WIN_SESSION) {
		int ws = -1, we = -1;
		for (int i = 0; i < b.ngroup; i++)
			if (b.key_x[i]->kind == SL_EX_COL && b.key_x[i]->col == from->win_start)
				ws = i;
			else if (b.key_x[i]->kind == SL_EX_COL && b.key_x[i]->col == from->win_end)
				we = i;
		if (ws >= 0 && we >= 0) {
			attached = 1;
			w = *from->win;
			w.attached = 1;
			w.time_col = from->win_end;
			int k = 0;
			for (int i = 0; i < b.ngroup; i++) {
				if (i == ws || i == we) {
					m->text[m->n] = sl__ast_text(p, b.keys[i]);
					m->col[m->n++] = i == ws ? -100 : -101; /* patched below */
					continue;
				}
				b.keys[k] = b.keys[i];
				b.key_x[k++] = b.key_x[i];
			}
			b.ngroup = k;
		}
	}
	if (from->tvf_in && (tvf_ws < 0 || tvf_we < 0))
		return sl__plan_error(p, sel->line, sel->col, SL_EPLAN,
		                      "a window TVF aggregation must GROUP BY window_start and "
		                      "window_end");
	/* keys over a TVF were bound against `from`, whose leading columns are
	 * the TVF input's, so their column indexes hold for `in` too */
	if (from->tvf_in && w.kind == SL_WIN_SESSION && check_session_keys(p, &b, from))
		return NULL;
	b.in = in;
	scope is = {in, NULL, NULL};
	if (bind_aggs(p, &b, from->tvf_in ? &s : &is))
		return NULL;
	for (int i = 0; i < b.calls.n; i++) {
		int win = b.arg_x[i] && b.arg_x[i]->kind == SL_EX_COL && b.arg_x[i]->col >= in->ncols;
		for (int j = 0; b.udaf_x[i] && j < b.aggs[i].nargs; j++)
			win |= b.udaf_x[i][j]->kind == SL_EX_COL && b.udaf_x[i][j]->col >= in->ncols;
		if (win)
			return sl__plan_error(p, b.calls.calls[i]->line, b.calls.calls[i]->col, SL_ENOTSUP,
			                      "aggregating window columns is not supported");
	}
	if (gwi < 0 && !from->tvf_in && !attached) {
		if (sel->allowed_lateness || sel->on_late)
			return sl__plan_error(p, sel->allowed_lateness ? sel->lateness_line : sel->on_late_line,
			                      sel->allowed_lateness ? sel->lateness_col : sel->on_late_col,
			                      SL_EPLAN, "late-data clauses (ALLOWED LATENESS, ON LATE) are "
			                      "only allowed on a window aggregate");
		return plan_group_agg(p, sel, &b, m);
	}
	/* the window entries, copied: plan_window_agg refills m's arrays */
	int nfixed = m->n;
	agg_map tmp = *m;
	tmp.text = sl_arena_alloc(p->a, sizeof(char *) * (size_t)(nfixed + 1));
	tmp.col = sl_arena_alloc(p->a, sizeof(int) * (size_t)(nfixed + 1));
	memcpy(tmp.text, m->text, sizeof(char *) * (size_t)nfixed);
	memcpy(tmp.col, m->col, sizeof(int) * (size_t)nfixed);
	m->n = 0;
	rel *out = plan_window_agg(p, sel, &b, &w, m, gwi >= 0 ? sel->group[gwi] : NULL);
	if (!out)
		return NULL;
	/* A window TVF aggregate's output keeps its window (Flink's window
	 * properties survive the aggregate): window_start and window_end stay
	 * the window's columns, so a join of two such outputs on both is a
	 * window join (plan_join.c), as Flink plans Nexmark's q8.  Not for
	 * SESSION or processing-time windows, which window joins refuse, nor
	 * for an updating output (ALLOWED LATENESS corrections): those stay
	 * regular joins. */
	sl_window_spec *keep = (from->tvf_in || attached) && w.kind != SL_WIN_SESSION && !w.proc && !out->updating
	                     ? sl_arena_alloc(p->a, sizeof(*keep)) : NULL;
	if (keep) {
		*keep = w;
		keep->attached = 0; /* a window spec, not this aggregate's input layout */
		keep->time_col = -1;
		out->win = keep;
		out->win_start = b.ngroup;
		out->win_end = b.ngroup + 1;
	}
	for (int i = 0; i < nfixed; i++) /* window_start/_end/_time group entries */
		if (tmp.col[i] <= -100) {
			m->text[m->n] = tmp.text[i];
			m->col[m->n++] = b.ngroup + (-100 - tmp.col[i]);
		}
	return out;
}

/* 1 when the SELECT list or HAVING of sel holds an aggregate call. */
int sl__has_agg(planner *p, const sl_ast_select *sel)
{
	agg_collect c;
	memset(&c, 0, sizeof(c));
	for (int i = 0; i < sel->nitems; i++)
		walk(p, sel->items[i].expr, collect_cb, &c);
	walk(p, sel->having, collect_cb, &c);
	return c.n > 0;
}

/* SELECT DISTINCT: a group aggregate keyed by every column of in, with no
 * aggregate calls. */
rel *sl__plan_distinct(planner *p, rel *in)
{
	agg_build b;
	memset(&b, 0, sizeof(b));
	b.in = in;
	b.ngroup = in->ncols;
	b.keys = sl_arena_calloc(p->a, sizeof(sl_ast_expr *) * (size_t)(in->ncols + 1));
	b.key_x = sl_arena_calloc(p->a, sizeof(sl_expr *) * (size_t)(in->ncols + 1));
	agg_map m = {0};
	m.text = sl_arena_calloc(p->a, sizeof(char *) * (size_t)(in->ncols + 1));
	m.col = sl_arena_calloc(p->a, sizeof(int) * (size_t)(in->ncols + 1));
	for (int i = 0; i < in->ncols; i++) {
		sl_ast_expr *e = sl_arena_calloc(p->a, sizeof(*e));
		e->kind = SL_AX_COLUMN;
		e->u.name.n = 1;
		e->u.name.parts = sl_arena_calloc(p->a, sizeof(sl_ast_ident));
		e->u.name.parts[0].name = in->cols[i].name;
		b.keys[i] = e;
		b.key_x[i] = sl_expr_col(p->a, i, in->cols[i].type);
	}
	sl_ast_select none;
	memset(&none, 0, sizeof(none));
	return plan_group_agg(p, &none, &b, &m);
}
