/*
 * plan_grouping.c - GROUPING SETS, ROLLUP and CUBE, and the functions
 * GROUPING, GROUPING_ID and GROUP_ID, for GROUP BY aggregates and window
 * TVF aggregates (Flink: group-agg.md and window-agg.md, "GROUPING SETS").
 *
 * The GROUP BY list (parse_group.c) expands to grouping sets: a plain
 * expression is one set of one key, "(a, b)" one set of two, () the empty
 * set, ROLLUP(x1..xn) its n + 1 prefixes (longest first), CUBE(x1..xn) its
 * 2^n subsets (Calcite's order: x1 varies slowest, present before absent),
 * GROUPING SETS(e1..en) the sets of its elements in turn, and a list of
 * elements the cross product of their sets (GROUP BY window_start,
 * window_end, ROLLUP(a) = (window_start, window_end, a), (window_start,
 * window_end)).  K is the list of distinct grouping expressions of all
 * sets, in order of appearance.
 *
 * Each set is planned as an ordinary aggregate (sl__plan_aggregate of a
 * copy of the SELECT grouped by that set), then a Calc brings its output
 * to one layout: K (a key absent from the set is a NULL of the key's
 * type), the aggregate results and window columns, then one constant
 * column per GROUPING / GROUPING_ID / GROUP_ID call of the query; a Union
 * merges the sets (Flink expands each row once per set and aggregates
 * them in one operator; separate aggregates give the same rows, each set's
 * groups with their own changes).  HAVING is applied after the Union, and
 * the SELECT list is bound over it as over any aggregate (agg_map).
 *
 * GROUPING(e1..en) and GROUPING_ID(e1..en) are the bit vector of the
 * arguments that are absent from the row's set (e1 the most significant
 * bit); GROUP_ID() numbers repeated sets 0, 1, ... in set order.  All are
 * BIGINT NOT NULL.
 *
 * Late rows (sluice's late-data clauses): every set's window aggregate
 * judges a row against the same windows and watermark, so ALLOWED LATENESS
 * applies to each set, and ON LATE INSERT INTO is left to the first set
 * (the others drop the row and count it as dropped in their stats).
 *
 * Refused (not supported): legacy group windows (TUMBLE(...) in GROUP BY)
 * and SESSION window TVFs with grouping sets, the UID hint (it names one
 * aggregate), more than 64 sets.
 */
#include "plan_int.h"
#include "sluice.h"

#include <stdio.h>
#include <string.h>

#define MAX_SETS 64
#define MAX_KEYS 64

/* Grouping sets: sets[i] is a bit mask over the key list K. */
typedef struct gsets {
	int nkeys;
	const sl_ast_expr *keys[MAX_KEYS];
	const char *texts[MAX_KEYS];
	int nsets;
	uint64_t sets[MAX_SETS];
} gsets;

static int is_construct(const sl_ast_expr *e, const char *name)
{
	return e->kind == SL_AX_CALL && !strcmp(e->u.call.fname, name);
}

static int is_group_fn(const sl_ast_expr *e)
{
	return e->kind == SL_AX_CALL && (!strcmp(e->u.call.fname, "GROUPING") ||
	                                 !strcmp(e->u.call.fname, "GROUPING_ID") ||
	                                 !strcmp(e->u.call.fname, "GROUP_ID"));
}

/* The key index of expression e (added to K when new), or -1 on error. */
static int key_of(planner *p, gsets *g, const sl_ast_expr *e)
{
	const char *t = sl__ast_text(p, e);
	for (int i = 0; i < g->nkeys; i++)
		if (!strcmp(g->texts[i], t))
			return i;
	if (g->nkeys == MAX_KEYS) {
		sl__plan_error(p, e->line, e->col, SL_ENOTSUP,
		               "more than %d grouping expressions are not supported", MAX_KEYS);
		return -1;
	}
	g->keys[g->nkeys] = e;
	g->texts[g->nkeys] = t;
	return g->nkeys++;
}

/* The mask of a ROLLUP/CUBE item: an expression or a "$SET" list. */
static int item_mask(planner *p, gsets *g, const sl_ast_expr *e, uint64_t *m)
{
	*m = 0;
	int n = is_construct(e, "$SET") ? e->u.call.nargs : 1;
	for (int i = 0; i < n; i++) {
		const sl_ast_expr *x = is_construct(e, "$SET") ? e->u.call.args[i] : e;
		if (x->kind == SL_AX_CALL && (is_construct(x, "GROUPING SETS") ||
		                              is_construct(x, "ROLLUP") || is_construct(x, "CUBE"))) {
			sl__plan_error(p, x->line, x->col, SL_ENOTSUP,
			               "%s nested in a column list is not supported", x->u.call.fname);
			return -1;
		}
		int k = key_of(p, g, x);
		if (k < 0)
			return -1;
		*m |= UINT64_C(1) << k;
	}
	return 0;
}

static int add_set(planner *p, const sl_ast_expr *at, uint64_t *out, int *n, uint64_t m)
{
	if (*n == MAX_SETS) {
		sl__plan_error(p, at->line, at->col, SL_ENOTSUP,
		               "more than %d grouping sets are not supported", MAX_SETS);
		return -1;
	}
	out[(*n)++] = m;
	return 0;
}

/* The sets of one GROUP BY element into out[0..*n). */
static int element_sets(planner *p, gsets *g, const sl_ast_expr *e, uint64_t *out, int *n)
{
	*n = 0;
	if (is_construct(e, "GROUPING SETS")) {
		for (int i = 0; i < e->u.call.nargs; i++) {
			uint64_t sub[MAX_SETS];
			int ns;
			if (element_sets(p, g, e->u.call.args[i], sub, &ns))
				return -1;
			for (int k = 0; k < ns; k++)
				if (add_set(p, e, out, n, sub[k]))
					return -1;
		}
		return 0;
	}
	int rollup = is_construct(e, "ROLLUP"), cube = is_construct(e, "CUBE");
	if (!rollup && !cube) {
		uint64_t m;
		return item_mask(p, g, e, &m) ? -1 : add_set(p, e, out, n, m);
	}
	int ni = e->u.call.nargs;
	uint64_t im[MAX_KEYS];
	if (ni > (cube ? 6 : MAX_SETS - 1)) {
		sl__plan_error(p, e->line, e->col, SL_ENOTSUP, "%s of %d items is not supported "
		               "(at most %d grouping sets)", e->u.call.fname, ni, MAX_SETS);
		return -1;
	}
	for (int i = 0; i < ni; i++)
		if (item_mask(p, g, e->u.call.args[i], &im[i]))
			return -1;
	if (rollup) {
		for (int len = ni; len >= 0; len--) {
			uint64_t m = 0;
			for (int i = 0; i < len; i++)
				m |= im[i];
			if (add_set(p, e, out, n, m))
				return -1;
		}
		return 0;
	}
	for (int bits = (1 << ni) - 1; bits >= 0; bits--) {
		uint64_t m = 0;
		for (int i = 0; i < ni; i++)
			if (bits & (1 << (ni - 1 - i)))
				m |= im[i];
		if (add_set(p, e, out, n, m))
			return -1;
	}
	return 0;
}

/* All sets of the GROUP BY list: the cross product of its elements'. */
static int expand(planner *p, const sl_ast_select *sel, gsets *g)
{
	memset(g, 0, sizeof(*g));
	g->nsets = 1; /* the product's unit: one empty set */
	for (int i = 0; i < sel->ngroup; i++) {
		uint64_t es[MAX_SETS], prod[MAX_SETS];
		int ne, np = 0;
		if (element_sets(p, g, sel->group[i], es, &ne))
			return -1;
		for (int a = 0; a < g->nsets; a++)
			for (int b = 0; b < ne; b++)
				if (add_set(p, sel->group[i], prod, &np, g->sets[a] | es[b]))
					return -1;
		memcpy(g->sets, prod, sizeof(uint64_t) * (size_t)np);
		g->nsets = np;
	}
	return 0;
}

/* ---- GROUPING / GROUPING_ID / GROUP_ID calls ----------------------------- */

typedef struct gcalls {
	int n;
	const sl_ast_expr *calls[MAX_KEYS];
	const char *texts[MAX_KEYS];
	int args[MAX_KEYS][MAX_KEYS]; /* call i's argument a: its key index */
	planner *p;
	gsets *g;      /* NULL: only count the calls */
	int failed;
} gcalls;

static void find_calls(gcalls *c, const sl_ast_expr *e);

static void find_in(gcalls *c, const sl_ast_expr *e)
{
	if (e)
		find_calls(c, e);
}

/* Walks e for grouping function calls (not inside aggregate calls). */
static void find_calls(gcalls *c, const sl_ast_expr *e)
{
	if (c->failed)
		return;
	planner *p = c->p;
	switch (e->kind) {
	case SL_AX_UNARY:
	case SL_AX_BINARY: find_in(c, e->u.op.a); find_in(c, e->u.op.b); return;
	case SL_AX_IS: find_in(c, e->u.is.a); find_in(c, e->u.is.b); return;
	case SL_AX_BETWEEN:
		find_in(c, e->u.between.a);
		find_in(c, e->u.between.lo);
		find_in(c, e->u.between.hi);
		return;
	case SL_AX_IN_LIST:
		find_in(c, e->u.in.a);
		for (int i = 0; i < e->u.in.nlist; i++)
			find_in(c, e->u.in.list[i]);
		return;
	case SL_AX_LIKE: find_in(c, e->u.like.a); find_in(c, e->u.like.pattern); return;
	case SL_AX_CASE:
		find_in(c, e->u.case_.operand);
		for (int i = 0; i < e->u.case_.nwhen; i++) {
			find_in(c, e->u.case_.when[i]);
			find_in(c, e->u.case_.then[i]);
		}
		find_in(c, e->u.case_.else_);
		return;
	case SL_AX_CAST: find_in(c, e->u.cast.a); return;
	case SL_AX_FIELD: find_in(c, e->u.field.a); return;
	case SL_AX_CALL: break;
	default: return;
	}
	if (sl__is_agg_call(c->p, e))
		return;
	if (!is_group_fn(e)) {
		for (int i = 0; i < e->u.call.nargs; i++)
			find_in(c, e->u.call.args[i]);
		return;
	}
	if (!c->g) { /* only counting (sl__select_has_grouping) */
		c->n++;
		return;
	}
	const char *t = sl__ast_text(p, e);
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->texts[i], t))
			return;
	int gid = !strcmp(e->u.call.fname, "GROUP_ID");
	int na = e->u.call.nargs;
	if (gid ? na != 0 : na < 1 || na > 63 || e->u.call.star || e->u.call.distinct) {
		sl__plan_error(p, e->line, e->col, SL_EPLAN, gid ? "GROUP_ID takes no argument"
		               : "%s takes one or more grouping expressions", e->u.call.fname);
		c->failed = 1;
		return;
	}
	if (c->n == MAX_KEYS) {
		sl__plan_error(p, e->line, e->col, SL_ENOTSUP, "too many grouping function calls");
		c->failed = 1;
		return;
	}
	for (int i = 0; i < na; i++) {
		const sl_ast_expr *a = e->u.call.args[i];
		const char *at = sl__ast_text(p, a);
		int k = -1;
		for (int j = 0; j < c->g->nkeys && k < 0; j++)
			if (!strcmp(c->g->texts[j], at))
				k = j;
		if (k < 0) {
			sl__plan_error(p, a->line, a->col, SL_EPLAN, "argument '%s' of %s must be a "
			               "grouping expression of the GROUP BY clause", at, e->u.call.fname);
			c->failed = 1;
			return;
		}
		c->args[c->n][i] = k;
	}
	c->calls[c->n] = e;
	c->texts[c->n++] = t;
}

/* The value of grouping call i for set s (number si of the sets). */
static int64_t call_value(const gcalls *c, int i, const gsets *g, int si)
{
	const sl_ast_expr *e = c->calls[i];
	if (!strcmp(e->u.call.fname, "GROUP_ID")) {
		int64_t n = 0;
		for (int j = 0; j < si; j++)
			n += g->sets[j] == g->sets[si];
		return n;
	}
	int64_t v = 0;
	for (int a = 0; a < e->u.call.nargs; a++)
		v = (v << 1) | !(g->sets[si] >> c->args[i][a] & 1);
	return v;
}

/* ---- planning ---------------------------------------------------------------- */

int sl__select_has_grouping(planner *p, const sl_ast_select *sel)
{
	for (int i = 0; i < sel->ngroup; i++) {
		const sl_ast_expr *e = sel->group[i];
		if (is_construct(e, "GROUPING SETS") || is_construct(e, "ROLLUP") ||
		    is_construct(e, "CUBE") || is_construct(e, "$SET"))
			return 1;
	}
	/* GROUPING() over a plain GROUP BY: one set */
	gcalls *c = sl_arena_calloc(p->a, sizeof(*c));
	c->p = p;
	for (int i = 0; i < sel->nitems; i++)
		find_calls(c, sel->items[i].expr);
	if (sel->having)
		find_calls(c, sel->having);
	return c->n > 0;
}

/* Checks what grouping sets do not support; 0 or SL_ENOTSUP. */
static int check_supported(planner *p, const sl_ast_select *sel, const rel *from)
{
	for (int i = 0; i < sel->ngroup; i++) {
		const sl_ast_expr *e = sel->group[i];
		if (e->kind == SL_AX_CALL && (!strcmp(e->u.call.fname, "TUMBLE") ||
		                              !strcmp(e->u.call.fname, "HOP") ||
		                              !strcmp(e->u.call.fname, "SESSION"))) {
			sl__plan_error(p, e->line, e->col, SL_ENOTSUP, "GROUPING SETS, ROLLUP and CUBE "
			               "with a group window function (%s in GROUP BY) are not supported; "
			               "use a window TVF", e->u.call.fname);
			return SL_ENOTSUP;
		}
	}
	if (from->tvf_in && from->tvf_win.kind == SL_WIN_SESSION) {
		sl__plan_error(p, sel->line, sel->col, SL_ENOTSUP,
		               "GROUPING SETS, ROLLUP and CUBE over a SESSION window are not supported");
		return SL_ENOTSUP;
	}
	for (int i = 0; i < sel->nhints; i++)
		if (!strcmp(sel->hints[i].name, "UID")) {
			sl__plan_error(p, sel->line, sel->col, SL_ENOTSUP,
			               "the UID hint with GROUPING SETS, ROLLUP or CUBE is not supported "
			               "(each grouping set is an aggregate of its own)");
			return SL_ENOTSUP;
		}
	return 0;
}

/* The copy of sel that plans grouping set si: grouped by the set's keys,
 * HAVING moved into the SELECT list (its aggregate calls are computed;
 * it is applied after the Union). */
static sl_ast_select *branch_select(planner *p, const sl_ast_select *sel, const gsets *g, int si)
{
	sl_ast_select *c = sl_arena_alloc(p->a, sizeof(*c));
	*c = *sel;
	c->ngroup = 0;
	c->group = sl_arena_calloc(p->a, sizeof(sl_ast_expr *) * (size_t)(g->nkeys + 1));
	for (int k = 0; k < g->nkeys; k++)
		if (g->sets[si] >> k & 1)
			c->group[c->ngroup++] = (sl_ast_expr *)g->keys[k];
	c->having = NULL;
	/* a row is late for the same windows in every set: the first set
	 * writes it to ON LATE INSERT INTO's table, the others drop it */
	if (si > 0 && c->on_late == SL_LATE_INSERT)
		c->on_late = SL_LATE_DROP;
	if (sel->having) {
		c->items = sl_arena_calloc(p->a, sizeof(sl_ast_select_item) * (size_t)(sel->nitems + 1));
		memcpy(c->items, sel->items, sizeof(sl_ast_select_item) * (size_t)sel->nitems);
		c->items[c->nitems++].expr = sel->having;
	}
	return c;
}

static int map_find(const agg_map *m, const char *t)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->text[i], t))
			return m->col[i];
	return -1;
}

static int is_key_text(const gsets *g, const char *t)
{
	for (int k = 0; k < g->nkeys; k++)
		if (!strcmp(g->texts[k], t))
			return 1;
	return 0;
}

/* The layout every set's Calc produces, fixed by the first set. */
typedef struct layout {
	int ncols;
	sl_type *types;
	const char **names;
	int nrest;
	const char **rest_texts;  /* one text per rest column (more map to it) */
	agg_map m;                /* the final map */
} layout;

static int plan_layout(planner *p, const gsets *g, const gcalls *c, const rel *a0,
                       const agg_map *m0, const sl_type *key_types, layout *L)
{
	int cap = g->nkeys + m0->n + c->n + 1;
	L->types = sl_arena_calloc(p->a, sizeof(sl_type) * (size_t)cap);
	L->names = sl_arena_calloc(p->a, sizeof(char *) * (size_t)cap);
	L->rest_texts = sl_arena_calloc(p->a, sizeof(char *) * (size_t)cap);
	L->m.text = sl_arena_calloc(p->a, sizeof(char *) * (size_t)cap);
	L->m.col = sl_arena_calloc(p->a, sizeof(int) * (size_t)cap);
	int n = 0;
	for (int k = 0; k < g->nkeys; k++) {
		L->types[n] = key_types[k];
		L->types[n].notnull = 0;
		const sl_ast_expr *e = g->keys[k];
		L->names[n] = e->kind == SL_AX_COLUMN ? sl_ast_name_last(&e->u.name) : g->texts[k];
		L->m.text[L->m.n] = g->texts[k];
		L->m.col[L->m.n++] = n++;
	}
	int *seen = sl_arena_calloc(p->a, sizeof(int) * (size_t)(a0->ncols + 1));
	for (int i = 0; i < m0->n; i++) {
		if (is_key_text(g, m0->text[i]))
			continue;
		int col = m0->col[i];
		if (!seen[col]) {
			seen[col] = n + 1;
			L->types[n] = a0->cols[col].type;
			L->names[n] = a0->cols[col].name;
			L->rest_texts[L->nrest++] = m0->text[i];
			n++;
		}
		L->m.text[L->m.n] = m0->text[i];
		L->m.col[L->m.n++] = seen[col] - 1;
	}
	for (int i = 0; i < c->n; i++) {
		L->types[n] = sl_type_make(SL_T_BIGINT);
		L->types[n].notnull = 1;
		L->names[n] = sl_arena_printf(p->a, "$g%d", i);
		L->m.text[L->m.n] = c->texts[i];
		L->m.col[L->m.n++] = n++;
	}
	L->ncols = n;
	return 0;
}

/* The Calc bringing set si's aggregate output `a` (map m) to layout L. */
static rel *to_layout(planner *p, const gsets *g, const gcalls *c, int si, rel *a,
                      const agg_map *m, const layout *L)
{
	sl_expr **x = sl_arena_calloc(p->a, sizeof(sl_expr *) * (size_t)(L->ncols + 1));
	int n = 0;
	for (int k = 0; k < g->nkeys; k++) {
		int col = g->sets[si] >> k & 1 ? map_find(m, g->texts[k]) : -1;
		x[n] = col >= 0 ? sl_expr_col(p->a, col, a->cols[col].type)
		                : sl_expr_lit_null(p->a, L->types[n]);
		n++;
	}
	for (int i = 0; i < L->nrest; i++) {
		int col = map_find(m, L->rest_texts[i]);
		if (col < 0)
			return sl__plan_error(p, 0, 0, SL_EPLAN, "grouping set %d lacks '%s'", si,
			                      L->rest_texts[i]);
		x[n++] = sl_expr_col(p->a, col, a->cols[col].type);
	}
	for (int i = 0; i < c->n; i++)
		x[n++] = sl_expr_lit_i64(p->a, sl_type_make(SL_T_BIGINT), call_value(c, i, g, si));
	for (int i = 0; i < n; i++)
		if (!x[i])
			return sl__plan_error(p, 0, 0, SL_ENOMEM, "out of memory");
	return sl__add_calc(p, a, NULL, x, n, L->names);
}

rel *sl__plan_grouping(planner *p, const sl_ast_select *sel, rel *from, agg_map *m)
{
	gsets *g = sl_arena_calloc(p->a, sizeof(*g));
	gcalls *c = sl_arena_calloc(p->a, sizeof(*c));
	if (check_supported(p, sel, from) || expand(p, sel, g))
		return NULL;
	c->p = p;
	c->g = g;
	for (int i = 0; i < sel->nitems; i++)
		find_calls(c, sel->items[i].expr);
	if (sel->having)
		find_calls(c, sel->having);
	if (c->failed)
		return NULL;
	/* key types: bound over the aggregate's FROM relation */
	sl_type *kt = sl_arena_calloc(p->a, sizeof(sl_type) * (size_t)(g->nkeys + 1));
	scope s = {from, NULL, NULL};
	for (int k = 0; k < g->nkeys; k++) {
		sl_expr *x = sl__bind_expr(p, &s, g->keys[k]);
		if (!x)
			return NULL;
		kt[k] = x->type;
	}
	rel **parts = sl_arena_calloc(p->a, sizeof(rel *) * (size_t)(g->nsets + 1));
	layout L;
	memset(&L, 0, sizeof(L));
	for (int si = 0; si < g->nsets; si++) {
		agg_map bm = {0};
		rel *a = sl__plan_aggregate(p, branch_select(p, sel, g, si), from, &bm);
		if (!a)
			return NULL;
		sl__plan_agg_ttl(p, sel, a);
		if (si == 0 && plan_layout(p, g, c, a, &bm, kt, &L))
			return NULL;
		if (!(parts[si] = to_layout(p, g, c, si, a, &bm, &L)))
			return NULL;
	}
	rel *out = parts[0];
	if (g->nsets > 1) {
		out = sl__rel_new(p, L.ncols);
		for (int i = 0; i < L.ncols; i++) {
			out->cols[i].name = L.names[i];
			out->cols[i].type = L.types[i];
		}
		out->rowtime = parts[0]->rowtime;
		for (int si = 0; si < g->nsets; si++) {
			if (parts[si]->rowtime != out->rowtime)
				out->rowtime = -1;
			if (parts[si]->updating && !out->updating) {
				out->updating = 1;
				out->upd_op = parts[si]->upd_op;
			}
		}
		const char *label = sl_arena_printf(p->a, "Union(all=[true], groupingSets=[%d])",
		                                    g->nsets);
		sl_pnode **in = sl_arena_alloc(p->a, sizeof(*in) * (size_t)g->nsets);
		if (!in)
			return sl__plan_error(p, 0, 0, SL_ENOMEM, "out of memory");
		for (int si = 0; si < g->nsets; si++)
			in[si] = parts[si]->node;
		if (!sl__node_new(p, SL_OPK_UNION, NULL, 0, in, g->nsets, NULL, out, label))
			return NULL;
	}
	*m = L.m;
	if (!sel->having)
		return out;
	scope hs = {out, m, from};
	sl_expr *h = sl__bind_expr(p, &hs, sel->having);
	if (!h)
		return NULL;
	if (h->type.id != SL_T_BOOLEAN && h->type.id != SL_T_NULL) {
		char b[64];
		return sl__plan_error(p, sel->having->line, sel->having->col, SL_EPLAN,
		                      "a condition must be BOOLEAN, not %s",
		                      sl_type_format(h->type, b, sizeof(b)));
	}
	sl_expr **x = sl_arena_calloc(p->a, sizeof(sl_expr *) * (size_t)(out->ncols + 1));
	const char **names = sl_arena_calloc(p->a, sizeof(char *) * (size_t)(out->ncols + 1));
	for (int i = 0; i < out->ncols; i++) {
		x[i] = sl_expr_col(p->a, i, out->cols[i].type);
		names[i] = out->cols[i].name;
	}
	return sl__add_calc(p, out, h, x, out->ncols, names);
}
