/*
 * plan_prune.c - column pruning: the rewrite rule "prune-columns"
 * (rewrite.c) that narrows every node's output to the columns some
 * consumer reads, as Calcite/Flink's projection push-down into scans and
 * ProjectJoinTransposeRule do (docs/architecture.md, "Column pruning").
 *
 * Two passes over the plan (nodes topological, src/exec/pnode.h):
 *
 *   1. need, last node to first: keep[x] = the output columns of x that
 *      its consumers read (need[x]) plus what x's output must carry (the
 *      columns of its upsert key) when x can narrow, else all of them (a
 *      rowtime column nobody reads goes too: the watermark is the scan's,
 *      and no operator reads a rowtime it is not told of); then what x
 *      reads of each input given keep[x] is added to that input's need.
 *      Only some kinds read a subset of their input and can be told new
 *      column positions (remappable: Calc, GroupAggregate,
 *      WindowAggregate, the window TVF WindowTableFunction, the joins
 *      Join, IntervalJoin, WindowJoin and SemiJoin, and LookupJoin over
 *      its one probe input: the looked-up rows come whole, so its
 *      table's columns all stay); every other kind
 *      reads every input column, so its producers keep them all.
 *   2. narrow, first node to last: each node's column references are
 *      remapped to its inputs' new positions (fresh copies: parameters
 *      may be shared), then its own output narrows: a scan emits only
 *      keep[x] (sl_scan_plan.proj; it still reads and checks every column
 *      its watermark, computed columns and NOT NULL constraints need), a
 *      Calc drops the projections nobody reads, a join's output is its
 *      narrowed inputs side by side (so its state, which stores input
 *      rows, holds only the columns read above the join).
 *
 * What may narrow: a scan of an append-only table (a changelog scan
 * feeds ChangelogNormalize or carries its key: kept whole), a Calc, a
 * window TVF (through its input), a lookup join (its probe columns;
 * stateless, so its ids stay), and a join whose inputs are
 * append-only or full retract streams (not upsert ones) and which has no
 * UID hint (a hint pins the state id, whose layout must not change under
 * it).  A node whose inputs moved but which cannot take new positions
 * would be a bug of the need pass: the rule then fails the job with an
 * internal error, never a wrong plan.
 *
 * State and ids (docs/semantics.md §3).  Ids were computed on the plan as
 * planned (plan_ident.c), so every operator whose state does not change
 * keeps its id.  A stateful node whose structural identity changes here
 * (a join storing narrower rows) gets new ids, uid and uid_v1 both
 * (hash("pruned:" + its new identity, old id)): a savepoint of the
 * unpruned job then holds state that no operator claims, and the restore
 * refuses it naming the operator (or drops it with
 * --allow-non-restored-state); it is never read with the wrong layout.
 * Aggregates keep their identity (it names the types of their keys and
 * arguments, not their positions).
 *
 * 'sluice.plan.prune' = 'false' (session) turns the rule off; tests use
 * it to take a savepoint of the unpruned plan.
 *
 * Planning runs on the caller's thread; nothing here is shared.
 */
#include "plan_int.h"
#include "sluice.h"
#include "../base/hash.h"

#include <stdio.h>
#include <string.h>

/* Per node: which output columns are read (need), kept (keep), and the
 * map of old output positions to new ones (map, -1 = dropped; NULL = the
 * identity). */
typedef struct pnode_cols {
	uint8_t *need;
	uint8_t *keep;
	int *map;
} pnode_cols;

typedef struct prune {
	planner *p;
	pnode_cols *c;   /* by node id */
} prune;

static void expr_cols(const sl_expr *e, uint8_t *use, int lo, int hi)
{
	if (!e)
		return;
	if (e->kind == SL_EX_COL && e->col >= lo && e->col < hi)
		use[e->col - lo] = 1;
	for (int i = 0; i < e->nargs; i++)
		expr_cols(e->args[i], use, lo, hi);
}

/* A copy of e with every column reference c replaced by m[c] (>= 0). */
static sl_expr *expr_remap(sl_arena *a, const sl_expr *e, const int *m)
{
	if (!e)
		return NULL;
	sl_expr *x = sl_arena_alloc(a, sizeof(*x));
	if (!x)
		return NULL;
	*x = *e;
	if (e->kind == SL_EX_COL)
		x->col = m[e->col];
	if (e->nargs) {
		x->args = sl_arena_alloc(a, sizeof(sl_expr *) * (size_t)e->nargs);
		if (!x->args)
			return NULL;
		for (int i = 0; i < e->nargs; i++)
			if (!(x->args[i] = expr_remap(a, e->args[i], m)))
				return NULL;
	}
	return x;
}

static int is_join(sl_op_kind k)
{
	return k == SL_OPK_JOIN || k == SL_OPK_INTERVAL_JOIN || k == SL_OPK_WINDOW_JOIN ||
	       k == SL_OPK_SEMI_JOIN;
}

/* The join plan of a join node. */
static const sl_join_plan *jplan(const sl_pnode *x)
{
	if (x->kind == SL_OPK_SEMI_JOIN)
		return &((const sl_semi_join_params *)x->params)->join;
	return x->params;
}

/* A join that outputs only its left columns (semi / anti joins). */
static int left_only(const sl_pnode *x)
{
	const sl_join_plan *jp = jplan(x);
	return x->kind == SL_OPK_SEMI_JOIN || jp->kind == SL_JOIN_SEMI || jp->kind == SL_JOIN_ANTI;
}

/* Whether node x reads a subset of its inputs and takes new positions. */
static int remappable(const sl_pnode *x)
{
	switch (x->kind) {
	case SL_OPK_CALC:
	case SL_OPK_GROUP_AGG:
	case SL_OPK_WINDOW_AGG:
	case SL_OPK_WINDOW_ASSIGN:
		return 1;
	case SL_OPK_LOOKUP_JOIN: /* stateless: one input, the looked-up rows whole */
		return x->nin == 1 && x->in[0] && !x->uid_hint;
	case SL_OPK_JOIN:
	case SL_OPK_INTERVAL_JOIN:
	case SL_OPK_WINDOW_JOIN:
	case SL_OPK_SEMI_JOIN:
		if (x->uid_hint || x->nin != 2 || !x->in[0] || !x->in[1])
			return 0;
		for (int k = 0; k < 2; k++)
			if (x->in[k]->changelog == SL_CHANGELOG_UPSERT)
				return 0;
		return 1;
	default:
		return 0;
	}
}

/* Whether node x's own output may lose columns. */
static int narrowable(const sl_pnode *x)
{
	if (x->kind == SL_OPK_SCAN)
		return x->changelog == SL_CHANGELOG_APPEND && x->nout > 0;
	if (x->kind == SL_OPK_CALC || x->kind == SL_OPK_WINDOW_ASSIGN)
		return 1;
	if (is_join(x->kind) || x->kind == SL_OPK_LOOKUP_JOIN)
		return remappable(x);
	return 0;
}

/* Marks the columns of node x's upsert key ("a, b") in keep. */
static void keep_upsert_key(const sl_pnode *x, uint8_t *keep)
{
	const char *s = x->upsert_key;
	while (s && *s) {
		while (*s == ' ' || *s == ',')
			s++;
		size_t n = strcspn(s, ",");
		while (n && s[n - 1] == ' ')
			n--;
		for (int i = 0; n && i < x->nout; i++)
			if (strlen(x->out_names[i]) == n && !strncmp(x->out_names[i], s, n))
				keep[i] = 1;
		s += n;
		while (*s && *s != ',')
			s++;
	}
}

/* use[0..nin_cols) |= the columns node x reads of its input k, given that
 * it keeps its output columns keep[]. */
static void uses(const sl_pnode *x, int k, const uint8_t *keep, uint8_t *use, int ncols)
{
	switch (x->kind) {
	case SL_OPK_CALC: {
		const sl_calc_params *cp = x->params;
		expr_cols(cp->filter, use, 0, ncols);
		for (int i = 0; i < cp->nproj; i++)
			if (keep[i])
				expr_cols(cp->proj[i], use, 0, ncols);
		return;
	}
	case SL_OPK_GROUP_AGG:
	case SL_OPK_WINDOW_AGG: {
		int nkeys, naggs;
		const int *kc;
		const sl_agg *ag;
		if (x->kind == SL_OPK_GROUP_AGG) {
			const sl_group_agg_plan *gp = x->params;
			nkeys = gp->nkeys, kc = gp->key_cols, naggs = gp->naggs, ag = gp->aggs;
		} else {
			const sl_window_agg_plan *wp = x->params;
			nkeys = wp->nkeys, kc = wp->key_cols, naggs = wp->naggs, ag = wp->aggs;
			if (wp->win.time_col >= 0 && wp->win.time_col < ncols)
				use[wp->win.time_col] = 1;
			for (int i = 0; wp->late_policy == SL_LATEPOL_SIDE && i < wp->late_ncols &&
			                i < ncols; i++)
				use[i] = 1; /* the late row's columns, leading */
		}
		for (int i = 0; i < nkeys; i++)
			use[kc[i]] = 1;
		for (int i = 0; i < naggs; i++) {
			if (ag[i].arg_col >= 0)
				use[ag[i].arg_col] = 1;
			if (ag[i].filter_col >= 0)
				use[ag[i].filter_col] = 1;
			for (int j = 0; ag[i].vt->udf && j < ag[i].nargs && j < SL_AGG_MAX_ARGS; j++)
				if (ag[i].arg_cols[j] >= 0)
					use[ag[i].arg_cols[j]] = 1;
		}
		return;
	}
	case SL_OPK_JOIN:
	case SL_OPK_INTERVAL_JOIN:
	case SL_OPK_WINDOW_JOIN:
	case SL_OPK_SEMI_JOIN: {
		const sl_join_plan *jp = jplan(x);
		int lo = k ? jp->nl : 0;
		for (int i = 0; i < ncols; i++)
			if (lo + i < x->nout && keep[lo + i] && !(k && left_only(x)))
				use[i] = 1;
		expr_cols(jp->residual, use, lo, lo + ncols);
		for (int i = 0; i < jp->nkeys; i++)
			use[k ? jp->rkeys[i] : jp->lkeys[i]] = 1;
		int t = k ? jp->rtime : jp->ltime, w = k ? jp->rwend : jp->lwend;
		if ((x->kind == SL_OPK_INTERVAL_JOIN || x->kind == SL_OPK_WINDOW_JOIN) && t >= 0 &&
		    t < ncols)
			use[t] = 1;
		if (x->kind == SL_OPK_WINDOW_JOIN && w >= 0 && w < ncols)
			use[w] = 1;
		return;
	}
	case SL_OPK_LOOKUP_JOIN: { /* probe columns, then the looked-up table's */
		const sl_join_plan *jp = x->params; /* sl_lookup_join_params starts with it */
		for (int i = 0; i < ncols && i < jp->nl; i++)
			if (keep[i])
				use[i] = 1;
		expr_cols(jp->residual, use, 0, ncols);
		for (int i = 0; i < jp->nkeys; i++)
			use[jp->lkeys[i]] = 1;
		return;
	}
	case SL_OPK_WINDOW_ASSIGN: { /* input columns, then window_start/end/time */
		const sl_assign_params *ap = x->params;
		for (int i = 0; i < ncols; i++)
			if (keep[i])
				use[i] = 1;
		if (ap->win.time_col >= 0 && ap->win.time_col < ncols)
			use[ap->win.time_col] = 1;
		return;
	}
	default:
		for (int i = 0; i < ncols; i++)
			use[i] = 1;
		return;
	}
}

/* Pass 1 (top of file). */
static int need_pass(prune *q)
{
	sl_pplan *pl = &q->p->plan;
	sl_arena *a = q->p->a;
	for (int i = 0; i < pl->n; i++) {
		sl_pnode *x = pl->nodes[i];
		q->c[i].need = sl_arena_calloc(a, (size_t)x->nout + 1);
		q->c[i].keep = sl_arena_calloc(a, (size_t)x->nout + 1);
		if (!q->c[i].need || !q->c[i].keep)
			return SL_ENOMEM;
	}
	for (int i = pl->n - 1; i >= 0; i--) {
		sl_pnode *x = pl->nodes[i];
		pnode_cols *c = &q->c[i];
		int narrow = narrowable(x);
		for (int j = 0; j < x->nout; j++)
			c->keep[j] = !narrow || c->need[j];
		if (narrow)
			keep_upsert_key(x, c->keep);
		if (x->side) /* the ON LATE sink reads the window aggregate's input rows */
			for (int k = 0; k < x->nin; k++)
				if (x->in[k])
					memset(q->c[x->in[k]->id].need, 1, (size_t)x->in[k]->nout);
		for (int k = 0; k < x->nin; k++) {
			sl_pnode *in = x->in[k];
			if (!in)
				continue;
			if (remappable(x))
				uses(x, k, c->keep, q->c[in->id].need, in->nout);
			else
				memset(q->c[in->id].need, 1, (size_t)in->nout);
		}
	}
	return 0;
}

/* "[append-only, rowtime=x]"-style decoration of x's label (sl__node_new). */
static const char *decoration(planner *p, const sl_pnode *x)
{
	if (x->nout == 0)
		return "";
	const char *kind = x->changelog == SL_CHANGELOG_APPEND ? "append-only"
	                 : x->changelog == SL_CHANGELOG_UPSERT
	                 ? sl_arena_printf(p->a, "upsert, key=[%s]", x->upsert_key)
	                 : "updating";
	int rt = x->rowtime >= 0;
	return sl_arena_printf(p->a, " [%s%s%s]", kind, rt ? ", rowtime=" : "",
	                       rt ? x->out_names[x->rowtime] : "");
}

/* x's label without its decoration (the text before it), or NULL when the
 * label does not end with it. */
static char *label_base(planner *p, const sl_pnode *x)
{
	const char *d = decoration(p, x);
	size_t n = strlen(x->label), dn = strlen(d);
	if (!d || n < dn || strcmp(x->label + n - dn, d))
		return NULL;
	return sl_arena_strndup(p->a, x->label, n - dn);
}

/* Narrows x's output to the columns m maps (m[j] >= 0, in order), from the
 * old types and names; sets the rowtime. */
static int set_output(planner *p, sl_pnode *x, const int *m, int oldn)
{
	int n = 0;
	for (int j = 0; j < oldn; j++)
		n += m[j] >= 0;
	sl_type *t = sl_arena_calloc(p->a, sizeof(sl_type) * (size_t)(n + 1));
	const char **names = sl_arena_calloc(p->a, sizeof(char *) * (size_t)(n + 1));
	if (!t || !names)
		return SL_ENOMEM;
	for (int j = 0; j < oldn; j++)
		if (m[j] >= 0) {
			t[m[j]] = x->out_types[j];
			names[m[j]] = x->out_names[j];
		}
	x->rowtime = x->rowtime >= 0 ? m[x->rowtime] : -1;
	x->nout = n;
	x->out_types = t;
	x->out_names = names;
	return 0;
}

/* The map that keeps keep[0..n) in order; NULL when it keeps every column. */
static int *keep_map(planner *p, const uint8_t *keep, int n, int *err)
{
	int all = 1;
	for (int j = 0; j < n; j++)
		all &= keep[j];
	if (all)
		return NULL;
	int *m = sl_arena_alloc(p->a, sizeof(int) * (size_t)(n + 1));
	if (!m) {
		*err = SL_ENOMEM;
		return NULL;
	}
	for (int j = 0, k = 0; j < n; j++)
		m[j] = keep[j] ? k++ : -1;
	return m;
}

static int *remap_cols(planner *p, const int *cols, int n, const int *m)
{
	int *r = sl_arena_alloc(p->a, sizeof(int) * (size_t)(n + 1));
	if (r)
		for (int i = 0; i < n; i++)
			r[i] = m[cols[i]];
	return r;
}

static sl_agg *remap_aggs(planner *p, const sl_agg *ag, int n, const int *m)
{
	sl_agg *r = sl_arena_alloc(p->a, sizeof(sl_agg) * (size_t)(n + 1));
	if (!r)
		return NULL;
	for (int i = 0; i < n; i++) {
		r[i] = ag[i];
		if (r[i].arg_col >= 0)
			r[i].arg_col = m[r[i].arg_col];
		if (r[i].filter_col >= 0)
			r[i].filter_col = m[r[i].filter_col];
		for (int j = 0; j < r[i].nargs && j < SL_AGG_MAX_ARGS; j++)
			if (r[i].arg_cols[j] >= 0)
				r[i].arg_cols[j] = m[r[i].arg_cols[j]];
	}
	return r;
}

/* A scan narrowed to keep[]: its plan emits those output columns
 * (sl_scan_plan.proj), its label shows them as Flink's does. */
static int narrow_scan(prune *q, sl_pnode *x, const int *m)
{
	planner *p = q->p;
	sl_scan_params *sp = sl_arena_alloc(p->a, sizeof(*sp));
	char *base = label_base(p, x);
	if (!sp || !base)
		return base ? SL_ENOMEM : SL_ERUNTIME;
	*sp = *(const sl_scan_params *)x->params;
	int n = 0, oldn = x->nout;
	int *proj = sl_arena_alloc(p->a, sizeof(int) * (size_t)(oldn + 1));
	if (!proj)
		return SL_ENOMEM;
	sl_buf b;
	sl_buf_init(&b);
	size_t bl = strlen(base);
	if (bl && base[bl - 1] == ')')
		base[--bl] = 0;
	sl_buf_printf(&b, "%s, project=[", base);
	for (int j = 0; j < oldn; j++)
		if (m[j] >= 0) {
			sl_buf_printf(&b, "%s%s", n ? ", " : "", x->out_names[j]);
			proj[n++] = sp->scan.proj ? sp->scan.proj[j] : j;
		}
	sl_buf_puts(&b, "])");
	if (!sp->scan.proj)
		sp->scan.names = x->out_names;
	sp->scan.proj = proj;
	sp->scan.nproj = n;
	x->params = sp;
	int rc = set_output(p, x, m, oldn);
	if (!rc)
		x->label = sl_arena_printf(p->a, "%.*s%s", (int)b.len, b.p, decoration(p, x));
	sl_buf_deinit(&b);
	return rc;
}

/* A Calc whose input moved (in_map, may be NULL) and whose output keeps
 * keep[] (out_map, may be NULL). */
static int narrow_calc(prune *q, sl_pnode *x, const int *in_map, const int *out_map)
{
	planner *p = q->p;
	const sl_calc_params *cp = x->params;
	sl_calc_params *np = sl_arena_alloc(p->a, sizeof(*np));
	sl_expr **proj = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(cp->nproj + 1));
	if (!np || !proj)
		return SL_ENOMEM;
	np->filter = cp->filter;
	if (in_map && cp->filter && !(np->filter = expr_remap(p->a, cp->filter, in_map)))
		return SL_ENOMEM;
	int n = 0;
	for (int j = 0; j < cp->nproj; j++) {
		if (out_map && out_map[j] < 0)
			continue;
		proj[n] = in_map ? expr_remap(p->a, cp->proj[j], in_map) : cp->proj[j];
		if (!proj[n++])
			return SL_ENOMEM;
	}
	np->proj = proj;
	np->nproj = n;
	x->params = np;
	if (!out_map)
		return 0;
	char *base = label_base(p, x);
	if (!base)
		return SL_ERUNTIME;
	int rc = set_output(p, x, out_map, cp->nproj);
	if (rc)
		return rc;
	/* the label, as plan_query.c's calc_label prints it */
	const sl_pnode *in = x->in[0];
	sl_buf s;
	sl_buf_init(&s);
	char buf[1024];
	sl_buf_puts(&s, "Calc(");
	if (np->filter)
		sl_buf_printf(&s, "where=[%s], ", sl_expr_format(np->filter, in->out_names, buf,
		                                                 sizeof(buf)));
	sl_buf_puts(&s, "select=[");
	for (int j = 0; j < n; j++) {
		sl_expr_format(proj[j], in->out_names, buf, sizeof(buf));
		sl_buf_printf(&s, "%s%s", j ? ", " : "", buf);
		if (proj[j]->kind != SL_EX_COL || strcmp(in->out_names[proj[j]->col], x->out_names[j]))
			sl_buf_printf(&s, " AS %s", x->out_names[j]);
	}
	sl_buf_printf(&s, "])%s", decoration(p, x));
	/* only a Calc whose label was calc_label's is relabelled; one with a
	 * text of its own (a cast in front of a sink) keeps it */
	if (!strncmp(base, "Calc(where=", 11) || !strncmp(base, "Calc(select=", 12))
		x->label = sl_arena_strndup(p->a, s.p, s.len);
	sl_buf_deinit(&s);
	return 0;
}

/* label with the number after the first `key` replaced by v (EXPLAIN
 * prints some column positions: an interval join's time indexes). */
static const char *relabel_int(planner *p, const char *label, const char *key, int v)
{
	const char *at = strstr(label, key);
	if (!at)
		return label;
	const char *end = at + strlen(key);
	while (*end == '-' || (*end >= '0' && *end <= '9'))
		end++;
	return sl_arena_printf(p->a, "%.*s%s%d%s", (int)(at - label), label, key, v, end);
}

/* A join over inputs whose columns moved (lm, rm: NULL = identity): its plan over the new inputs, its output their
 * columns side by side; *out_map the old output -> new. */
static int narrow_join(prune *q, sl_pnode *x, const int *lm, const int *rm, int **out_map)
{
	planner *p = q->p;
	const sl_join_plan *jp = jplan(x);
	sl_join_plan *np;
	void *params;
	if (x->kind == SL_OPK_SEMI_JOIN) {
		sl_semi_join_params *sp = sl_arena_alloc(p->a, sizeof(*sp));
		if (sp)
			*sp = *(const sl_semi_join_params *)x->params;
		params = sp;
		np = sp ? &sp->join : NULL;
	} else {
		params = np = sl_arena_alloc(p->a, sizeof(*np));
		if (np)
			*np = *jp;
	}
	int nl0 = jp->nl, nr0 = jp->nr, oldn = x->nout;
	int *m = sl_arena_alloc(p->a, sizeof(int) * (size_t)(nl0 + nr0 + 1));
	if (!np || !m)
		return SL_ENOMEM;
	np->nl = x->in[0]->nout;
	np->nr = x->in[1]->nout;
	np->ltypes = x->in[0]->out_types;
	np->rtypes = x->in[1]->out_types;
	for (int j = 0; j < nl0; j++)
		m[j] = lm ? lm[j] : j;
	for (int j = 0; j < nr0; j++)
		m[nl0 + j] = (rm ? rm[j] : j) < 0 ? -1 : np->nl + (rm ? rm[j] : j);
	if ((lm && !(np->lkeys = remap_cols(p, jp->lkeys, jp->nkeys, lm))) ||
	    (rm && !(np->rkeys = remap_cols(p, jp->rkeys, jp->nkeys, rm))))
		return SL_ENOMEM;
	if (jp->residual && !(np->residual = expr_remap(p->a, jp->residual, m)))
		return SL_ENOMEM;
	/* regular and semi joins have no time columns */
	int timed = x->kind == SL_OPK_INTERVAL_JOIN || x->kind == SL_OPK_WINDOW_JOIN;
	if (timed && lm && jp->ltime >= 0)
		np->ltime = lm[jp->ltime];
	if (timed && rm && jp->rtime >= 0)
		np->rtime = rm[jp->rtime];
	if (lm && jp->lwend >= 0 && x->kind == SL_OPK_WINDOW_JOIN)
		np->lwend = lm[jp->lwend];
	if (rm && jp->rwend >= 0 && x->kind == SL_OPK_WINDOW_JOIN)
		np->rwend = rm[jp->rwend];
	x->params = params;
	int same = 1; /* a semi join's output when only its right side moved */
	for (int j = 0; j < oldn; j++)
		same &= m[j] == j;
	if (same && (left_only(x) ? np->nl == nl0 : np->nl + np->nr == oldn)) {
		*out_map = NULL;
		return 0;
	}
	*out_map = m;
	if (x->kind == SL_OPK_INTERVAL_JOIN && lm && jp->ltime >= 0)
		x->label = relabel_int(p, x->label, "leftTimeIndex=", np->ltime);
	if (x->kind == SL_OPK_INTERVAL_JOIN && rm && jp->rtime >= 0)
		x->label = relabel_int(p, x->label, "rightTimeIndex=", np->rtime);
	return set_output(p, x, m, oldn);
}

/* A lookup join over a probe input whose columns moved (lm): its plan
 * over the new input; its output the probe's columns then the looked-up
 * table's (all of them: the lookup returns whole rows); *out_map old ->
 * new. */
static int narrow_lookup_join(prune *q, sl_pnode *x, const int *lm, int **out_map)
{
	planner *p = q->p;
	sl_lookup_join_params *lp = sl_arena_alloc(p->a, sizeof(*lp));
	const sl_join_plan *jp = x->params;
	int nl0 = jp->nl, nr = jp->nr, oldn = x->nout;
	int *m = sl_arena_alloc(p->a, sizeof(int) * (size_t)(nl0 + nr + 1));
	if (!lp || !m)
		return SL_ENOMEM;
	*lp = *(const sl_lookup_join_params *)x->params;
	sl_join_plan *np = &lp->join;
	np->nl = x->in[0]->nout;
	np->ltypes = x->in[0]->out_types;
	for (int j = 0; j < nl0; j++)
		m[j] = lm[j];
	for (int j = 0; j < nr; j++)
		m[nl0 + j] = np->nl + j;
	if (!(np->lkeys = remap_cols(p, jp->lkeys, jp->nkeys, lm)))
		return SL_ENOMEM;
	if (jp->residual && !(np->residual = expr_remap(p->a, jp->residual, m)))
		return SL_ENOMEM;
	if (jp->ltime >= 0)
		np->ltime = lm[jp->ltime];
	char *base = label_base(p, x); /* the decoration names the rowtime */
	x->params = lp;
	*out_map = m;
	int rc = set_output(p, x, m, oldn);
	if (!rc && base)
		x->label = sl_arena_printf(p->a, "%s%s", base, decoration(p, x));
	return rc;
}

static int remap_agg(prune *q, sl_pnode *x, const int *m)
{
	planner *p = q->p;
	if (x->kind == SL_OPK_GROUP_AGG) {
		sl_group_agg_plan *gp = sl_arena_alloc(p->a, sizeof(*gp));
		if (!gp)
			return SL_ENOMEM;
		*gp = *(const sl_group_agg_plan *)x->params;
		if (!(gp->key_cols = remap_cols(p, gp->key_cols, gp->nkeys, m)) ||
		    !(gp->aggs = remap_aggs(p, gp->aggs, gp->naggs, m)))
			return SL_ENOMEM;
		x->params = gp;
		return 0;
	}
	sl_window_agg_plan *wp = sl_arena_alloc(p->a, sizeof(*wp));
	if (!wp)
		return SL_ENOMEM;
	*wp = *(const sl_window_agg_plan *)x->params;
	for (int i = 0; wp->late_policy == SL_LATEPOL_SIDE && i < wp->late_ncols; i++)
		if (m[i] != i)
			return SL_ERUNTIME; /* the late row's leading columns move */
	if (!(wp->key_cols = remap_cols(p, wp->key_cols, wp->nkeys, m)) ||
	    !(wp->aggs = remap_aggs(p, wp->aggs, wp->naggs, m)))
		return SL_ENOMEM;
	if (wp->win.time_col >= 0)
		wp->win.time_col = m[wp->win.time_col];
	if (wp->late_ncols > x->in[0]->nout) /* unused without ON LATE INSERT INTO */
		wp->late_ncols = x->in[0]->nout;
	x->params = wp;
	return 0;
}

/* A window TVF over an input whose columns moved (m): the same window
 * over the new time column; its output is the input's columns then
 * window_start, window_end, window_time (*out_map old -> new). */
static int narrow_assign(prune *q, sl_pnode *x, const int *m, int **out_map)
{
	planner *p = q->p;
	sl_assign_params *ap = sl_arena_alloc(p->a, sizeof(*ap));
	int oldn = x->nout, nin0 = oldn - 3, nin = x->in[0]->nout;
	int *om = sl_arena_alloc(p->a, sizeof(int) * (size_t)(oldn + 1));
	if (!ap || !om || nin0 < 0)
		return ap && om ? SL_ERUNTIME : SL_ENOMEM;
	*ap = *(const sl_assign_params *)x->params;
	if (ap->win.time_col >= 0)
		ap->win.time_col = m[ap->win.time_col];
	if (ap->nkeys && !(ap->key_cols = remap_cols(p, ap->key_cols, ap->nkeys, m)))
		return SL_ENOMEM;
	for (int j = 0; j < oldn; j++)
		om[j] = j < nin0 ? m[j] : nin + (j - nin0);
	x->params = ap;
	*out_map = om;
	return set_output(p, x, om, oldn);
}

/* A stateful node whose structural identity changed stores another
 * layout: new ids (top of file). */
static int reidentify(prune *q, sl_pnode *x)
{
	const char *old = x->sident;
	if (sl__node_struct(q->p, x))
		return q->p->err->code ? q->p->err->code : SL_ENOMEM;
	if (x->state == SL_STATE_NONE || !strcmp(old, x->sident))
		return 0;
	char key[64];
	uint64_t h = sl_hash_bytes(x->sident, strlen(x->sident), 0x5eed);
	snprintf(key, sizeof(key), "pruned:%016llx", (unsigned long long)h);
	h = sl_hash_bytes(key, strlen(key), sl_hash_bytes(x->uid, strlen(x->uid), 0));
	snprintf(x->uid, sizeof(x->uid), "%016llx", (unsigned long long)h);
	h = sl_hash_bytes(key, strlen(key), sl_hash_bytes(x->uid_v1, strlen(x->uid_v1), 0));
	snprintf(x->uid_v1, sizeof(x->uid_v1), "%016llx", (unsigned long long)h);
	x->ident = sl_arena_printf(q->p->a, "%s pruned", x->ident);
	return 0;
}

/* Pass 2 (top of file); *changed = 1 when some output narrowed. */
static int narrow_pass(prune *q, int *changed)
{
	planner *p = q->p;
	sl_pplan *pl = &p->plan;
	int rc = 0;
	for (int i = 0; !rc && i < pl->n; i++) {
		sl_pnode *x = pl->nodes[i];
		const int *im[2] = {NULL, NULL};
		int moved = 0;
		for (int k = 0; k < x->nin && k < 2; k++)
			if (x->in[k] && (im[k] = q->c[x->in[k]->id].map))
				moved = 1;
		for (int k = 2; k < x->nin; k++)
			if (x->in[k] && q->c[x->in[k]->id].map)
				return SL_ERUNTIME; /* only remappable kinds' inputs move */
		if (moved && !remappable(x))
			return SL_ERUNTIME;
		int *om = NULL;
		switch (x->kind) {
		case SL_OPK_SCAN:
			if ((om = keep_map(p, q->c[i].keep, x->nout, &rc)))
				rc = narrow_scan(q, x, om);
			break;
		case SL_OPK_CALC: {
			const sl_calc_params *cp = x->params;
			om = keep_map(p, q->c[i].keep, cp->nproj, &rc);
			if (!rc && (om || moved))
				rc = narrow_calc(q, x, im[0], om);
			break;
		}
		case SL_OPK_JOIN:
		case SL_OPK_INTERVAL_JOIN:
		case SL_OPK_WINDOW_JOIN:
		case SL_OPK_SEMI_JOIN:
			if (moved) {
				rc = narrow_join(q, x, im[0], im[1], &om);
				if (!rc)
					rc = reidentify(q, x);
			}
			break;
		case SL_OPK_LOOKUP_JOIN:
			if (moved && !(rc = narrow_lookup_join(q, x, im[0], &om)))
				rc = reidentify(q, x);
			break;
		case SL_OPK_GROUP_AGG:
		case SL_OPK_WINDOW_AGG:
			if (moved && !(rc = remap_agg(q, x, im[0])))
				rc = reidentify(q, x);
			break;
		case SL_OPK_WINDOW_ASSIGN:
			if (moved && !(rc = narrow_assign(q, x, im[0], &om)))
				rc = reidentify(q, x);
			break;
		default:
			break;
		}
		q->c[i].map = om;
		*changed |= om != NULL;
	}
	return rc;
}

/* The rule (rewrite.c): 1 when the plan changed, 0 when not, or a negative
 * SL_E* code with p->err set. */
int sl__plan_prune(planner *p)
{
	int on = 1;
	if (sl_opts_bool(p->session, "sluice.plan.prune", 1, &on, p->err))
		return p->err->code ? p->err->code : SL_EINVAL;
	if (!on || p->plan.n == 0)
		return 0;
	prune q = {p, sl_arena_calloc(p->a, sizeof(pnode_cols) * (size_t)p->plan.n)};
	int changed = 0;
	int rc = q.c ? need_pass(&q) : SL_ENOMEM;
	if (!rc)
		rc = narrow_pass(&q, &changed);
	if (rc == SL_ENOMEM)
		return sl_err_set(p->err, SL_ENOMEM, "out of memory");
	if (rc == SL_ERUNTIME)
		return sl_err_set(p->err, SL_ERUNTIME,
		                  "internal error: prune-columns: a node that cannot take new column "
		                  "positions lost input columns");
	return rc ? rc : changed;
}
