/*
 * plan_twophase.c - local-global (two-phase) window aggregation: Flink's
 * TwoStageOptimizedWindowAggregateRule (docs/parallel.md §11).
 *
 * Runs after plan_par.c, on the final node list: for each window aggregate
 * (TUMBLE, HOP, CUMULATE, also over another window aggregate's windows)
 * whose input crosses an exchange (HASH by its key, or GLOBAL into its one
 * instance when it has no key), it inserts a LocalWindowAggregate node
 * between the producer and the aggregate: chained to the producer (same
 * parallelism, no channel), it folds the rows of its source instance into
 * per-(window, key) partial accumulators, and the exchange then carries
 * partials, (keys, window end, accumulator record, key hash) rows,
 * instead of every row.
 * The aggregate becomes the GlobalWindowAggregate: hashed by the partials'
 * leading key columns, it merges them into its state.  The aggregate node
 * keeps its uid, kind, state tables and output, so a savepoint of the
 * one-phase job restores into the two-phase one and back, at any
 * parallelism; the local node has no uid (uid[0] == 0, as an exchange's
 * ends): it keeps nothing in a snapshot (its partials leave before every
 * barrier: op.h's pre_barrier).
 *
 * When (Flink's conditions, and sluice's own):
 *   - 'table.optimizer.agg-phase-strategy' is AUTO (the default) or
 *     TWO_PHASE; ONE_PHASE keeps every aggregate whole;
 *   - the aggregate's input crosses an exchange: at parallelism 1 there is
 *     none, and the plan is the one-phase plan (Flink splits whenever its
 *     plan has an exchange, which it has at parallelism 1 too; sluice's
 *     runtime chains everything there, so a split would only cost);
 *   - event time (Flink: processing time must be materialized in one
 *     place);
 *   - every aggregate merges with a fixed accumulator
 *     (sl_window_aggs_mergeable: not DISTINCT, not over strings, not
 *     FIRST_VALUE / LAST_VALUE, no user-defined aggregate without merge);
 *   - no ALLOWED LATENESS (sluice's extension: its corrections are made
 *     with the late row itself, in the aggregate's state).
 * Session windows have their own operator and stay whole (Flink's session
 * window aggregate is not split either).  The ON LATE table of an
 * aggregate moves to the local node, which is where rows are judged.
 *
 * The rewrite keeps the plan's invariants (rewrite.c): nodes topological
 * with node k at nodes[k]; the local node takes the aggregate's place in
 * its producer's consumer order.
 */
#include "plan_int.h"
#include "sluice.h"

#include <string.h>
#include <strings.h>

/* 'table.optimizer.agg-phase-strategy': 0 ONE_PHASE, 1 TWO_PHASE or AUTO. */
static int strategy(planner *p, int *two)
{
	const char *v = sl_opts_get(p->session, "table.optimizer.agg-phase-strategy");
	*two = 1;
	if (!v || !strcasecmp(v, "AUTO") || !strcasecmp(v, "TWO_PHASE"))
		return 0;
	if (!strcasecmp(v, "ONE_PHASE")) {
		*two = 0;
		return 0;
	}
	return sl_err_set(p->err, SL_EPLAN, "Could not parse value '%s' for key "
	                  "'table.optimizer.agg-phase-strategy' (one of AUTO, ONE_PHASE, TWO_PHASE)",
	                  v);
}

static int splittable(const sl_pnode *n)
{
	if (n->kind != SL_OPK_WINDOW_AGG || n->nin != 1 || !n->in[0])
		return 0;
	if (n->xchg[0] != SL_XCHG_HASH && n->xchg[0] != SL_XCHG_GATHER)
		return 0;
	const sl_window_agg_plan *w = n->params;
	return w->phase == SL_WINPHASE_ONE && !w->win.proc && w->lateness == 0 &&
	       sl_window_aggs_mergeable(w);
}

/* Room for one more node in the plan's array (arena, doubled when full). */
static int plan_reserve(planner *p)
{
	sl_pplan *pl = &p->plan;
	if (pl->n < pl->cap)
		return 0;
	int cap = pl->cap ? pl->cap * 2 : 32;
	sl_pnode **nn = sl_arena_alloc(p->a, sizeof(*nn) * (size_t)cap);
	if (!nn)
		return SL_ENOMEM;
	if (pl->n)
		memcpy(nn, pl->nodes, sizeof(*nn) * (size_t)pl->n);
	pl->nodes = nn;
	pl->cap = cap;
	return 0;
}

/* "Local" / "Global" + the aggregate's label; the local one without the
 * aggregate's changelog decoration (its output is partials). */
static const char *stage_label(planner *p, const char *label, int local)
{
	if (!local)
		return sl_arena_printf(p->a, "Global%s", label);
	const char *deco = strstr(label, ") [");
	int len = deco ? (int)(deco - label) + 1 : (int)strlen(label);
	return sl_arena_printf(p->a, "Local%.*s [append-only]", len, label);
}

/* Splits aggregate node n (at nodes[n->id]) into a local node inserted
 * before it and n as the global stage. */
static int split(planner *p, sl_pnode *n)
{
	const sl_window_agg_plan *w = n->params;
	sl_pnode *in = n->in[0];
	int nk = w->nkeys, nout = nk + 3;
	sl_pnode *l = sl_arena_calloc(p->a, sizeof(*l));
	sl_window_agg_plan *lp = sl_arena_alloc(p->a, sizeof(*lp));
	sl_window_agg_plan *gp = sl_arena_alloc(p->a, sizeof(*gp));
	sl_type *t = sl_arena_calloc(p->a, sizeof(sl_type) * (size_t)nout);
	const char **names = sl_arena_calloc(p->a, sizeof(char *) * (size_t)nout);
	int *gkeys = sl_arena_calloc(p->a, sizeof(int) * (size_t)(nk + 1));
	l->in = sl_arena_calloc(p->a, sizeof(sl_pnode *));
	l->dist = sl_arena_calloc(p->a, sizeof(sl_dist));
	l->xchg = sl_arena_calloc(p->a, sizeof(sl_xchg_kind));
	if (!l || !lp || !gp || !t || !names || !gkeys || !l->in || !l->dist || !l->xchg ||
	    plan_reserve(p))
		return sl_err_set(p->err, SL_ENOMEM, "out of memory");
	*lp = *w;
	lp->phase = SL_WINPHASE_LOCAL;
	lp->having = NULL; /* HAVING holds over results: the global stage's */
	*gp = *w;
	gp->phase = SL_WINPHASE_GLOBAL;
	for (int i = 0; i < nk; i++) {
		gkeys[i] = i;
		names[i] = in->out_names ? in->out_names[w->key_cols[i]] : NULL;
	}
	names[nk] = "$slice_end";
	names[nk + 1] = "$acc";
	names[nk + 2] = "$hash";
	sl_window_local_out_types(w, in->out_types, t);
	gp->key_cols = gkeys;
	gp->win.time_col = nk; /* the partials' window end (not read as a time) */
	gp->win.attached = 0;
	gp->late_policy = SL_LATEPOL_DROP; /* judged by the local stage */
	gp->late_ncols = 0;
	l->kind = SL_OPK_LOCAL_WINDOW_AGG;
	l->params = lp;
	l->nin = 1;
	l->in[0] = in;
	l->dist[0].kind = SL_DIST_FORWARD;
	l->xchg[0] = SL_XCHG_CHAIN;
	l->par = in->par;
	l->side = n->side;
	if (l->side)
		l->side->par = l->par;
	n->side = NULL;
	l->nout = nout;
	l->out_types = t;
	l->out_names = names;
	l->changelog = SL_CHANGELOG_APPEND;
	l->rowtime = -1;
	l->state = SL_STATE_NONE;
	l->label = stage_label(p, n->label, 1);
	l->ident = l->label;
	l->sident = l->label;
	/* l->uid, l->uid_v1 empty: no snapshot record of its own (above) */
	n->params = gp;
	n->label = stage_label(p, n->label, 0);
	n->in[0] = l;
	if (nk > 0) {
		n->dist[0].kind = SL_DIST_HASH;
		n->dist[0].cols = gkeys;
		n->dist[0].ncols = nk;
	}
	/* l takes n's place; n and everything after move up one */
	sl_pplan *pl = &p->plan;
	int at = n->id;
	memmove(&pl->nodes[at + 1], &pl->nodes[at], sizeof(sl_pnode *) * (size_t)(pl->n - at));
	pl->nodes[at] = l;
	pl->n++;
	for (int i = at; i < pl->n; i++)
		pl->nodes[i]->id = i;
	return 0;
}

int sl__plan_two_phase(planner *p)
{
	int two, rc = strategy(p, &two);
	if (rc || !two || p->plan.par <= 1)
		return rc;
	for (int i = 0; i < p->plan.n; i++) {
		sl_pnode *n = p->plan.nodes[i];
		if (splittable(n)) {
			if ((rc = split(p, n)))
				return rc;
			i++; /* n moved to i + 1 */
		}
	}
	return 0;
}
