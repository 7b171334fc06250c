/*
 * plan_ttl.c - state TTL in the planner: how each plan node's state is
 * bounded (sl_pnode.state), which nodes 'table.exec.state.ttl' bounds, the
 * STATE_TTL query hint, and the EXPLAIN marker of every stateful node's
 * state bound.
 *
 * Flink's rules (docs/state.md "State TTL"): the option gives every
 * non-windowed stateful operator of the job (group aggregate, regular join,
 * deduplication, Top-N, ChangelogNormalize) a TTL; operators whose state the
 * watermark frees (window aggregates, interval and window joins, window
 * Top-N) ignore it, and so do OVER aggregates and event-time temporal joins
 * here.  A STATE_TTL('name' = '1h', ...) hint after SELECT overrides it for
 * the regular joins of that SELECT's FROM (per side: a key names the
 * table, view or alias of a join's input) and for its group aggregate (a
 * key names its one input); '0' means no TTL.  A key naming no input of
 * the SELECT's FROM is a planning error.
 *
 * Which operators are which is declared by kind, never read from names
 * or labels (op_kind.h; each kind's flags in src/exec/pnode.c, the same as
 * its method table's): SL_OPF_STATE_TTL (the TTL applies;
 * SL_OPF_TTL_PER_SIDE for a join's two sides), SL_OPF_STATE_WM (freed by
 * the watermark, or by processing time for a processing-time window
 * aggregate, read from its parameters as its constructor reads it for
 * sl_op.state_proctime), the kinds OVER and temporal join for their own
 * markers; the hint finds its join and group aggregate among the nodes by
 * kind and inputs.
 *
 * The TTL is stored in the node's state_ttl ([0] the state or a join's
 * left side, [1] a join's right side); the runtime copies it into
 * sl_op.state_ttl and the operators pass it when opening their tables
 * (sl_op_table_open).  The EXPLAIN marker is printed after an
 * operator's inputs and is not part of its label, so operator ids (hashes
 * of labels) do not change with the TTL and checkpoints keep restoring.
 *
 * Planning runs on the caller's thread; nothing here is shared.
 */
#include "plan_int.h"
#include "sluice.h"

#include <stdio.h>
#include <string.h>

void sl__plan_ttl_default(planner *p, sl_pnode *n)
{
	unsigned f = sl_op_kind_flags(n->kind);
	if (f & SL_OPF_STATE_TTL) {
		n->state = SL_STATE_TTL;
		n->state_ttl[0] = n->state_ttl[1] = p->state_ttl;
	} else if (f & SL_OPF_STATE_WM) {
		/* a processing-time window: the constructors set
		 * sl_op.state_proctime from the same field */
		int proc = (n->kind == SL_OPK_WINDOW_AGG || n->kind == SL_OPK_SESSION_AGG) &&
		           ((const sl_window_agg_plan *)n->params)->win.proc;
		n->state = proc ? SL_STATE_PROCTIME : SL_STATE_WATERMARK;
	} else if (n->kind == SL_OPK_OVER_AGG || n->kind == SL_OPK_TEMPORAL_JOIN ||
	           n->kind == SL_OPK_MATCH) {
		n->state = SL_STATE_UNBOUNDED;
	}
}

/* "1 h", "90 s", "1500 ms": the largest unit that divides the TTL. */
static const char *ttl_text(planner *p, int64_t us)
{
	static const struct { int64_t us; const char *u; } units[] = {
		{86400000000LL, "d"}, {3600000000LL, "h"}, {60000000LL, "min"},
		{1000000LL, "s"}, {1000LL, "ms"}, {1, "us"}};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (us % units[i].us == 0)
			return sl_arena_printf(p->a, "%lld %s", (long long)(us / units[i].us), units[i].u);
	return "";
}

static const char *bound_text(planner *p, int64_t us)
{
	return us > 0 ? sl_arena_printf(p->a, "bounded by TTL %s", ttl_text(p, us))
	              : "unbounded: no TTL";
}

const char *sl__plan_ttl_explain(planner *p, const sl_pnode *n)
{
	switch (n->state) {
	case SL_STATE_TTL:
		if ((sl_op_kind_flags(n->kind) & SL_OPF_TTL_PER_SIDE) && n->state_ttl[0] != n->state_ttl[1])
			return sl_arena_printf(p->a, "state=[left %s, right %s]",
			                       bound_text(p, n->state_ttl[0]),
			                       bound_text(p, n->state_ttl[1]));
		return sl_arena_printf(p->a, "state=[%s]", bound_text(p, n->state_ttl[0]));
	case SL_STATE_WATERMARK:
		return "state=[bounded by watermark]";
	case SL_STATE_PROCTIME:
		return "state=[bounded by processing time]";
	case SL_STATE_UNBOUNDED:
		if (n->kind == SL_OPK_TEMPORAL_JOIN)
			return "state=[probes bounded by watermark, versions unbounded: latest per key, "
			       "temporal joins ignore TTL]";
		if (n->kind == SL_OPK_MATCH)
			return ((const sl_match_plan *)n->params)->within >= 0
			               ? "state=[bounded by WITHIN and watermark: rows of waiting "
			                 "partial matches, MATCH_RECOGNIZE ignores TTL]"
			               : "state=[unbounded: rows of waiting partial matches, "
			                 "MATCH_RECOGNIZE ignores TTL]";
		return "state=[unbounded: per partition, OVER ignores TTL]";
	default:
		return NULL;
	}
}

/* ---- the STATE_TTL hint ------------------------------------------------------ */

/* The name a hint key matches for a FROM item: its alias, else a table's
 * (or view's) name; NULL for an unnamed item (a join, an unaliased
 * subquery). */
static const char *from_name(const sl_ast_from *f)
{
	if (f->alias)
		return f->alias->name;
	if (f->kind == SL_AF_TABLE)
		return sl_ast_name_last(&f->u.table.name);
	return NULL;
}

static int names_input(const sl_ast_from *f, const char *key)
{
	const char *n = from_name(f);
	if (n && !strcmp(n, key))
		return 1;
	if (f->kind == SL_AF_JOIN && !f->alias)
		return names_input(f->u.join.left, key) || names_input(f->u.join.right, key);
	return 0;
}

/* The TTL the current SELECT's hint gives input f: 1 and *us when a key
 * names it, 0 when none does. */
static int hint_ttl(planner *p, const sl_ast_from *f, int64_t *us)
{
	const sl_ast_select *sel = p->ttl_sel;
	const char *n = from_name(f);
	if (!sel || !n)
		return 0;
	for (int i = 0; i < sel->nhints; i++) {
		const sl_ast_hint *h = &sel->hints[i];
		if (strcmp(h->name, "STATE_TTL"))
			continue;
		for (int k = 0; k < h->nargs; k++)
			if (h->args[k].key && !strcmp(h->args[k].key, n) &&
			    !sl_parse_duration(h->args[k].value, us))
				return 1;
	}
	return 0;
}

int sl__plan_ttl_check(planner *p, const sl_ast_select *sel)
{
	for (int i = 0; i < sel->nhints; i++) {
		const sl_ast_hint *h = &sel->hints[i];
		if (strcmp(h->name, "STATE_TTL"))
			continue;
		if (!h->nargs) {
			sl__plan_error(p, h->line, h->col, SL_EPLAN,
			               "STATE_TTL hint needs 'input' = 'ttl' arguments");
			return SL_EPLAN;
		}
		for (int k = 0; k < h->nargs; k++) {
			const sl_ast_option *a = &h->args[k];
			int64_t us;
			if (!a->key) {
				sl__plan_error(p, a->line, a->col, SL_EPLAN,
				               "STATE_TTL hint arguments are 'input' = 'ttl' pairs");
				return SL_EPLAN;
			}
			if (sl_parse_duration(a->value, &us)) {
				sl__plan_error(p, a->line, a->col, SL_EPLAN,
				               "STATE_TTL hint: '%s' is not a duration (e.g. '1h', '30 min', "
				               "'0' for no TTL)", a->value);
				return SL_EPLAN;
			}
			if (!sel->from || !names_input(sel->from, a->key)) {
				sl__plan_error(p, a->line, a->col, SL_EPLAN,
				               "STATE_TTL hint: '%s' names no input table, view or alias of "
				               "this SELECT's FROM", a->key);
				return SL_EPLAN;
			}
		}
	}
	return 0;
}

/* 1 when `from` feeds input `input` of `to` directly or through the Calc
 * that computes expression join keys (plan_join.c). */
static int feeds(const sl_pnode *from, const sl_pnode *to, int input)
{
	const sl_pnode *x = input < to->nin ? to->in[input] : NULL;
	return from && x && (x == from || (x->kind == SL_OPK_CALC && x->in[0] == from));
}

/* The first regular-join node fed by l (input 0) and r (input 1), or NULL. */
static sl_pnode *join_of(planner *p, const rel *l, const rel *r)
{
	for (int i = 0; l->node && i < p->plan.n; i++) {
		sl_pnode *n = p->plan.nodes[i];
		if (n->kind == SL_OPK_JOIN && feeds(l->node, n, 0) && feeds(r->node, n, 1))
			return n;
	}
	return NULL;
}

/* Sets the TTL of node n's side (0 left, 1 right; 2 both). */
static void set_ttl(planner *p, sl_pnode *n, int side, int64_t us)
{
	for (int s = 0; s < 2; s++)
		if (side == 2 || side == s)
			n->state_ttl[s] = us;
}

void sl__plan_join_ttl(planner *p, const sl_ast_from *f, const rel *l, const rel *r)
{
	sl__plan_join_ttl_items(p, f->u.join.left, f->u.join.right, l, r);
}

void sl__plan_join_ttl_items(planner *p, const sl_ast_from *lf, const sl_ast_from *rf,
                             const rel *l, const rel *r)
{
	sl_pnode *n = join_of(p, l, r);
	int64_t us;
	if (!n)
		return;
	if (lf && hint_ttl(p, lf, &us))
		set_ttl(p, n, 0, us);
	if (rf && hint_ttl(p, rf, &us))
		set_ttl(p, n, 1, us);
}

void sl__plan_agg_ttl(planner *p, const sl_ast_select *sel, rel *r)
{
	int64_t us;
	if (r->node && r->node->kind == SL_OPK_GROUP_AGG && sel->from &&
	    hint_ttl(p, sel->from, &us))
		set_ttl(p, r->node, 2, us);
}
