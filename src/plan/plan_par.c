/*
 * plan_par.c - each plan node's parallelism and the exchange on each of
 * its input edges (issue 10 step 4, docs/parallel.md sections 1-2),
 * decided after the distributions (plan_dist.c) from the job's
 * parallelism P ('parallelism.default', chosen by the engine) alone.
 *
 * Parallelism, node by node in topological order:
 *   - a job that reads no table (VALUES alone) runs at 1: the API emits
 *     its rows before the first poll without running the job (op_values.c);
 *     a job reading a push table runs in parallel when 'parallelism.default'
 *     was set, each API call draining it (runtime/prun.h), and at 1 at the
 *     default (an embedding that did not ask for threads gets none);
 *   - at P = 1 every node runs at 1 and every edge is chained: the job is
 *     the single-threaded graph of today (docs/parallel.md §8);
 *   - a scan runs at P, except a source that cannot split (its vtab's
 *     single_instance: stdin) and a push table, which run at 1; VALUES at 1;
 *   - a node with a SINGLETON input (a keyed operator without a key) at 1;
 *     a ChangelogNormalize right after a single-instance scan whose
 *     updates may leave columns out (postgres-cdc's unchanged TOASTed
 *     values: the vtab's omits_unchanged) at 1, chained to it: the +U of a
 *     key change takes such a column from the row the -U of the old key
 *     retracts, and a hash exchange would send the two apart;
 *     a sink whose vtab says single_instance (iceberg: one committer) at 1;
 *     a node with a HASH input at P;
 *   - a forward node (Calc, Union, ConstraintEnforcer, the window table
 *     function, a lookup join, a sink) at the largest parallelism of its
 *     inputs, with two adjustments: the first forward node after a
 *     single-instance scan of an append-only stream (not a sink) runs at P
 *     behind a rebalance, so decoding happens once and the rest in
 *     parallel, when no keyed operator is downstream of it and the scan is
 *     not a push table's (a push is drained whole anyway, and a run-time
 *     error in its chain names the pushed line, as at parallelism 1, which
 *     a row copied over a channel cannot) (a rebalance
 *     sends one split's rows of a key through different instances, and a
 *     hash exchange after them would mix their order: a group aggregate's
 *     changes would differ, docs/parallel.md §4); and a forward node with
 *     an updating input at 1 and another at P runs at 1 (rebalancing an
 *     updating stream would reorder a key's changes);
 *   - the ON LATE sink of a window aggregate (its `side`, fed directly, no
 *     edge) runs with the aggregate, in its chain.
 * Exchanges: an input at the node's parallelism with a FORWARD requirement
 * is chained (same instance, same thread, no channel); a HASH requirement
 * is a hash exchange whenever P > 1 (a producer's instances do not own key
 * groups, so no producer is "already partitioned"); into a node at 1 from
 * a producer at P a gather; from a producer at 1 into a forward node at P
 * a rebalance.  The runtime (src/runtime/prun.c) forms chains from the
 * chained edges and side links.
 */
#include "plan_int.h"

#include <string.h>

static int is_single_scan(const sl_pnode *n)
{
	if (n->kind != SL_OPK_SCAN)
		return 0;
	const sl_scan_params *s = n->params;
	return !s->source || s->source->single_instance;
}

/* A ChangelogNormalize right after a single-instance scan whose updates
 * may leave columns out (omits_unchanged: postgres-cdc): the +U of a key
 * change takes them from the row its -U (the old key) retracts, so both
 * must reach one instance, which a hash exchange by key does not ensure. */
static int is_norm_of_omitting_scan(const sl_pnode *n)
{
	if (n->kind != SL_OPK_CHANGELOG_NORMALIZE || n->nin != 1 || !n->in[0] ||
	    !is_single_scan(n->in[0]))
		return 0;
	const sl_scan_params *s = n->in[0]->params;
	return s->source && s->source->omits_unchanged;
}

/* The parallelism of node n (its inputs are decided); keyed_down: a
 * keyed operator (a HASH or SINGLETON input) is downstream of n. */
static int node_par(const sl_pnode *n, int P, int keyed_down)
{
	if (P <= 1 || n->kind == SL_OPK_VALUES)
		return 1;
	if (n->kind == SL_OPK_SCAN)
		return is_single_scan(n) ? 1 : P;
	if (n->kind == SL_OPK_SINK && ((const sl_sink_params *)n->params)->sink->single_instance)
		return 1; /* one committer (the iceberg sink): its input gathered */
	if (is_norm_of_omitting_scan(n))
		return 1; /* chained to its postgres-cdc scan */
	int hash = 0, maxin = 0, upd1 = 0, rebal = 0;
	for (int i = 0; i < n->nin; i++) {
		if (n->dist[i].kind == SL_DIST_SINGLETON)
			return 1;
		hash |= n->dist[i].kind == SL_DIST_HASH;
		const sl_pnode *in = n->in[i];
		if (!in)
			continue;
		if (in->par > maxin)
			maxin = in->par;
		if (in->par == 1 && in->changelog != SL_CHANGELOG_APPEND)
			upd1 = 1;
		if (in->par == 1 && in->changelog == SL_CHANGELOG_APPEND && is_single_scan(in) &&
		    ((const sl_scan_params *)in->params)->source)
			rebal = 1; /* not after a push table: its chain stays whole (below) */
	}
	if (hash)
		return P;
	if (upd1)
		return 1;
	if (maxin == 0) /* fed by side outputs only: set by its producer */
		return 1;
	if (maxin == 1 && rebal && n->kind != SL_OPK_SINK && !keyed_down)
		return P;
	return maxin;
}

static sl_xchg_kind edge_kind(const sl_pnode *n, int i)
{
	const sl_pnode *in = n->in[i];
	if (!in)
		return SL_XCHG_CHAIN;
	if (n->dist[i].kind == SL_DIST_HASH && n->par > 1)
		return SL_XCHG_HASH;
	if (in->par == n->par)
		return SL_XCHG_CHAIN;
	if (n->par == 1)
		return SL_XCHG_GATHER;
	return SL_XCHG_REBALANCE; /* from 1 into P */
}

/* 1 when the job reads a push table. */
static int reads_push_table(const planner *p)
{
	for (int i = 0; i < p->plan.n; i++) {
		const sl_pnode *n = p->plan.nodes[i];
		if (n->kind == SL_OPK_SCAN && !((const sl_scan_params *)n->params)->source)
			return 1;
	}
	return 0;
}

/* 1 when the job reads a table (a scan), not VALUES alone. */
static int has_scan(const planner *p)
{
	for (int i = 0; i < p->plan.n; i++)
		if (p->plan.nodes[i]->kind == SL_OPK_SCAN)
			return 1;
	return 0;
}

int sl__plan_par(planner *p)
{
	if (!has_scan(p))
		p->parallelism = 1; /* VALUES alone: emitted before a poll (op_values.c) */
	/* A push table at the default parallelism runs at 1: an embedding that
	 * never asked for parallelism gets no threads (its calls stay on its
	 * own thread).  Asked for explicitly, it runs in parallel, every API
	 * call draining the job (runtime/prun.h). */
	if (p->parallelism > 1 && !p->parallelism_explicit && reads_push_table(p))
		p->parallelism = 1;
	int P = p->parallelism > 1 ? p->parallelism : 1;
	/* which nodes have a keyed operator downstream: consumers come after
	 * their inputs, so one pass backwards */
	uint8_t *keyed = sl_arena_calloc(p->a, (size_t)(p->plan.n ? p->plan.n : 1));
	if (!keyed)
		return sl_err_set(p->err, SL_ENOMEM, "out of memory");
	for (int i = p->plan.n - 1; i >= 0; i--) {
		const sl_pnode *n = p->plan.nodes[i];
		for (int k = 0; k < n->nin; k++)
			if (n->in[k] && (keyed[i] || n->dist[k].kind == SL_DIST_HASH ||
			                 n->dist[k].kind == SL_DIST_SINGLETON))
				keyed[n->in[k]->id] = 1;
	}
	for (int i = 0; i < p->plan.n; i++) {
		sl_pnode *n = p->plan.nodes[i];
		n->xchg = sl_arena_calloc(p->a, sizeof(sl_xchg_kind) * (size_t)(n->nin ? n->nin : 1));
		if (!n->xchg)
			return sl_err_set(p->err, SL_ENOMEM, "out of memory");
		n->par = node_par(n, P, keyed[i]);
	}
	/* a side-output sink runs in its producer's chain (planned before it) */
	for (int i = 0; i < p->plan.n; i++) {
		sl_pnode *n = p->plan.nodes[i];
		if (n->side)
			n->side->par = n->par;
	}
	for (int i = 0; i < p->plan.n; i++) {
		sl_pnode *n = p->plan.nodes[i];
		for (int k = 0; k < n->nin; k++)
			n->xchg[k] = edge_kind(n, k);
		if (n->par > p->plan.par)
			p->plan.par = n->par;
	}
	return 0;
}

const char *sl__plan_par_explain(planner *p, const sl_pnode *n)
{
	const char *s = sl_arena_printf(p->a, "parallelism=%d", n->par);
	if (!n->nin)
		return s;
	s = sl_arena_printf(p->a, "%s ship=[", s);
	for (int i = 0, k = 0; i < n->nin; i++) {
		const sl_pnode *in = n->in[i];
		if (!in)
			continue;
		s = sl_arena_printf(p->a, "%s%s%s", s, k++ ? ", " : "", sl_xchg_kind_name(n->xchg[i]));
		if (n->xchg[i] != SL_XCHG_HASH)
			continue;
		const sl_dist *d = &n->dist[i];
		s = sl_arena_printf(p->a, "%s[", s);
		for (int c = 0; c < d->ncols; c++) {
			const char *name = in->out_names && d->cols[c] < in->nout ? in->out_names[d->cols[c]]
			                                                           : NULL;
			s = name ? sl_arena_printf(p->a, "%s%s%s", s, c ? ", " : "", name)
			         : sl_arena_printf(p->a, "%s%s$%d", s, c ? ", " : "", d->cols[c]);
		}
		s = sl_arena_printf(p->a, "%s]", s);
	}
	return sl_arena_printf(p->a, "%s]", s);
}
