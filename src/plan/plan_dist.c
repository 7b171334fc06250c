/*
 * plan_dist.c - the distribution each plan node requires of its inputs
 * (issue 10 step 2, docs/parallel.md sections 1, 2 and 9): forward, hash
 * by which input columns, singleton or broadcast (sl_dist, pnode.h),
 * decided by the node's kind and parameters alone, one function per kind
 * family, after the rewrite pass.  Nothing runs in parallel yet: the
 * runtime reads no distribution, every node runs at parallelism 1, and
 * EXPLAIN prints the distributions only with the session option
 * 'sluice.explain.exchanges' (plan_job.c).
 *
 * The rule every HASH here keeps: the columns are exactly those whose key
 * form the operator's state tables take as their partitioning key
 * (docs/state.md "Key groups"), in the same order, so the instance a hash
 * exchange sends a row to owns the key groups of every state entry that
 * row creates or reads.  tests/unit/test_plan_dist.c checks it on real
 * jobs for every keyed kind on both backends.  By kind:
 *
 *   Calc, ConstraintEnforcer, Union, the TUMBLE/HOP/CUMULATE table
 *   function, a lookup join (each instance looks up by itself) and a sink
 *   (each instance writes its own part; an upsert sink's key is the key
 *   of its input's keyed operator, so forward keeps its per-key order):
 *   forward.
 *   Group aggregate, window and session aggregate, the SESSION table
 *   function, OVER, Top-N, deduplication, window Top-N, ChangelogNormalize:
 *   hash by their key (GROUP BY / PARTITION BY / primary key, window
 *   columns excluded: the window is the state's namespace); singleton
 *   without one (a global aggregate, ORDER BY ... LIMIT, an OVER without
 *   PARTITION BY or a temporal sort, a window Top-N partitioned by the
 *   window only).
 *   Regular, interval, window and temporal joins: each side hashed by its
 *   equi-keys (lkeys / rkeys, in key order); a join without equi-keys
 *   (cross, theta, semi / anti, a scalar subquery's) is singleton on both
 *   sides: its state is one key (docs/joins.md, "Joins without keys").  A window join's equi-keys hold
 *   the window bounds when the query joins on them (window_start and
 *   window_end are equi-keys), and its state's partitioning key is the
 *   whole encoded equi-key after the flag byte (op_window_join.c
 *   side_pkey), so its exchange hashes the window bounds too: the rows of
 *   one join key in different windows may go to different instances,
 *   which is correct (a window's pairs are all made in that window).
 *   INTERSECT / EXCEPT: both inputs hashed by every column (the whole row
 *   is the state key).
 */
#include "plan_int.h"

#include <string.h>

static void set(sl_dist *d, sl_dist_kind k, const int *cols, int ncols)
{
	d->kind = ncols > 0 || k != SL_DIST_HASH ? k : SL_DIST_SINGLETON;
	d->cols = d->kind == SL_DIST_HASH ? cols : NULL;
	d->ncols = d->kind == SL_DIST_HASH ? ncols : 0;
}

/* Every column 0..n-1 of an input (arena), for the set operations. */
static const int *all_cols(planner *p, int n)
{
	int *c = sl_arena_calloc(p->a, sizeof(int) * (size_t)(n ? n : 1));
	if (c)
		for (int i = 0; i < n; i++)
			c[i] = i;
	return c;
}

/* A join's sides: hashed by their equi-keys, singleton without any. */
static void join_dist(sl_pnode *n, const sl_join_plan *j)
{
	set(&n->dist[0], SL_DIST_HASH, j->lkeys, j->nkeys);
	set(&n->dist[1], SL_DIST_HASH, j->rkeys, j->nkeys);
}

/* One input keyed by cols[0..ncols): hash, or singleton without a key. */
static void keyed(sl_pnode *n, const int *cols, int ncols)
{
	set(&n->dist[0], SL_DIST_HASH, cols, ncols);
}

static int node_dist(planner *p, sl_pnode *n)
{
	for (int i = 0; i < n->nin; i++)
		set(&n->dist[i], SL_DIST_FORWARD, NULL, 0);
	switch (n->kind) {
	case SL_OPK_GROUP_AGG: {
		const sl_group_agg_plan *g = n->params;
		keyed(n, g->key_cols, g->nkeys);
		break;
	}
	case SL_OPK_WINDOW_AGG:
	case SL_OPK_SESSION_AGG: {
		const sl_window_agg_plan *w = n->params;
		keyed(n, w->key_cols, w->nkeys);
		break;
	}
	case SL_OPK_SESSION_ASSIGN: {
		const sl_assign_params *a = n->params;
		keyed(n, a->key_cols, a->nkeys);
		break;
	}
	case SL_OPK_OVER_AGG: {
		const sl_over_plan *o = n->params;
		keyed(n, o->key_cols, o->nkeys);
		break;
	}
	case SL_OPK_MATCH: {
		const sl_match_plan *m = n->params;
		keyed(n, m->key_cols, m->nkeys);
		break;
	}
	case SL_OPK_RANK:
	case SL_OPK_DEDUP:
	case SL_OPK_WINDOW_RANK: {
		const sl_rank_plan *r = n->params;
		keyed(n, r->key_cols, r->nkeys);
		break;
	}
	case SL_OPK_CHANGELOG_NORMALIZE: {
		const sl_normalize_params *c = n->params;
		keyed(n, c->key_cols, c->nkeys);
		break;
	}
	case SL_OPK_JOIN:
	case SL_OPK_INTERVAL_JOIN:
	case SL_OPK_WINDOW_JOIN:
	case SL_OPK_TEMPORAL_JOIN:
		join_dist(n, n->params);
		break;
	case SL_OPK_SEMI_JOIN:
		join_dist(n, &((const sl_semi_join_params *)n->params)->join);
		break;
	case SL_OPK_SET_OP:
		for (int i = 0; i < n->nin; i++) {
			int nc = n->in[i] ? n->in[i]->nout : n->nout;
			const int *c = all_cols(p, nc);
			if (!c)
				return SL_ENOMEM;
			set(&n->dist[i], SL_DIST_HASH, c, nc);
		}
		break;
	default: /* stateless, sources, sinks, lookup joins: forward */
		break;
	}
	return 0;
}

int sl__plan_dist(planner *p)
{
	for (int i = 0; i < p->plan.n; i++) {
		sl_pnode *n = p->plan.nodes[i];
		n->dist = sl_arena_calloc(p->a, sizeof(sl_dist) * (size_t)(n->nin ? n->nin : 1));
		if (!n->dist || node_dist(p, n))
			return sl_err_set(p->err, SL_ENOMEM, "out of memory");
	}
	return 0;
}

const char *sl__plan_dist_explain(planner *p, const sl_pnode *n)
{
	const char *s = "exchange=[";
	for (int i = 0; i < n->nin; i++) {
		const sl_dist *d = &n->dist[i];
		s = sl_arena_printf(p->a, "%s%s%s", s, i ? ", " : "", sl_dist_kind_name(d->kind));
		if (d->kind != SL_DIST_HASH)
			continue;
		const sl_pnode *in = n->in[i];
		s = sl_arena_printf(p->a, "%s[", s);
		for (int c = 0; c < d->ncols; c++) {
			const char *name = in && in->out_names && d->cols[c] < in->nout ?
			                   in->out_names[d->cols[c]] : NULL;
			s = name ? sl_arena_printf(p->a, "%s%s%s", s, c ? ", " : "", name)
			         : sl_arena_printf(p->a, "%s%s$%d", s, c ? ", " : "", d->cols[c]);
		}
		s = sl_arena_printf(p->a, "%s]", s);
	}
	return sl_arena_printf(p->a, "%s]", s);
}
