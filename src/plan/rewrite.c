/*
 * rewrite.c - the place for rewrite rules: a pass over the physical plan
 * (src/exec/pnode.h) between planning and instantiation.
 *
 * sl_plan_job runs it once the statements are planned and every node has
 * its id (plan_ident.c), before the EXPLAIN text is printed; the runtime
 * instantiates what it leaves.  Each rule of `rules` below is applied in
 * order, the list repeated until no rule changes anything (at most
 * MAX_ROUNDS rounds), and after every change the plan is checked (check
 * below): a rule that breaks it fails the job with an internal error
 * naming the rule, never a wrong plan silently.
 *
 * The contract of a rule (a function over the planner and its plan):
 *   - it may replace, insert or drop stateless nodes (state SL_STATE_NONE,
 *     not a scan, a sink or Values) and change their parameters, and
 *     point a node's inputs at other nodes; it keeps the plan's order
 *     (nodes topological, node k at nodes[k] with id k), each node's
 *     output schema, changelog mode and rowtime as its consumers read
 *     them, and a producer's consumers in their order (the order rows
 *     reach them: the runtime connects them in node order);
 *   - it does not change a stateful node's parameters or what reaches it,
 *     nor any node's uid: ids were computed on the plan as planned, so no
 *     rewrite makes a savepoint unrestorable; a node it inserts gets a uid
 *     of its own that no other node has (stateless nodes keep no state
 *     under it).  join-filters changes what reaches a join (fewer rows)
 *     and nothing else: the conditions it evaluates below the join stay
 *     where they were, so state restored from a plan without it answers
 *     the same (plan_join_filter.c).  The one exception is prune-columns: it rewrites column
 *     positions in stateful nodes' parameters (the same keys, arguments
 *     and results), and a node whose stored layout it changes (a join's
 *     rows) gets new ids, so that an older savepoint is refused by name
 *     rather than read with the wrong layout;
 *   - it changes EXPLAIN (which prints the rewritten plan), so a rule
 *     lands together with the golden plans it changes (tests/slt/
 *     explain.slt and every `explain` case) and a note of why;
 *   - it allocates from the plan arena only, does no I/O and builds no
 *     operator.
 *
 * The rules:
 *   join-filters      evaluates a regular, interval or window join's
 *                     conditions over one input's columns (its ON and
 *                     WHERE conjuncts that may move) in a Calc in front of
 *                     that input too, as Flink's FilterJoinRule, so rows
 *                     that cannot be in the result are neither stored nor
 *                     probed (plan_join_filter.c, docs/joins.md "Filters
 *                     below a join"); 'sluice.plan.join-filters' = 'false'
 *                     turns it off.  First, so prune-columns narrows the
 *                     Calcs it inserts.
 *   prune-columns     narrows every node's output to the columns its
 *                     consumers read: a scan emits only those (EXPLAIN's
 *                     `project=[...]`), a Calc drops unread projections, a
 *                     join stores narrower rows (plan_prune.c, its header
 *                     and docs/architecture.md "Column pruning").
 *   calc-passthrough  drops a Calc that forwards its input unchanged (no
 *                     filter; every input column in order, with its name
 *                     and type; the same changelog mode and rowtime) when
 *                     it is its input's only consumer, so its consumers
 *                     read that input directly and every batch reaches the
 *                     same operators in the same order, one copy fewer.
 *                     The planner leaves such Calcs behind a GROUP BY of a
 *                     grouping set whose layout is the aggregate's own
 *                     (plan_grouping.c) and where a SELECT list repeats
 *                     the aggregate's columns, and prune-columns leaves
 *                     them where a projection only dropped unread
 *                     columns.  A Calc that also renames a column is
 *                     kept: it appears in the golden plans of most tests
 *                     (`Calc(select=[k, EXPR$0 AS c])` after a GROUP BY),
 *                     which issue 9 keeps unchanged.
 *
 * Planning runs on the caller's thread; nothing here is shared.
 */
#include "plan_int.h"
#include "sluice.h"

#include <string.h>

/* A rule: 1 when it changed the plan, 0 when not, or a negative SL_E* code
 * with p->err set. */
typedef int (*rewrite_fn)(planner *p);

/* The number of (node, input) pairs that node x feeds. */
static int consumers(const sl_pplan *pl, const sl_pnode *x)
{
	int n = 0;
	for (int j = x->id + 1; j < pl->n; j++)
		for (int k = 0; k < pl->nodes[j]->nin; k++)
			n += pl->nodes[j]->in[k] == x;
	return n;
}

/* 1 when Calc node c forwards its input unchanged. */
static int passthrough(const sl_pnode *c)
{
	const sl_calc_params *cp = c->params;
	const sl_pnode *in = c->in[0];
	if (cp->filter || cp->nproj != in->nout || c->nout != in->nout ||
	    c->changelog != in->changelog || c->rowtime != in->rowtime ||
	    (c->upsert_key != in->upsert_key &&
	     (!c->upsert_key || !in->upsert_key || strcmp(c->upsert_key, in->upsert_key))))
		return 0;
	for (int i = 0; i < cp->nproj; i++) {
		const sl_expr *x = cp->proj[i];
		if (x->kind != SL_EX_COL || x->col != i || !sl_type_equal(x->type, in->out_types[i]) ||
		    !sl_type_equal(c->out_types[i], in->out_types[i]) ||
		    strcmp(c->out_names[i], in->out_names[i]))
			return 0;
	}
	return 1;
}

/* calc-passthrough (the top of this file). */
static int drop_passthrough_calc(planner *p)
{
	sl_pplan *pl = &p->plan;
	int changed = 0;
	for (int i = 0; i < pl->n; i++) {
		sl_pnode *c = pl->nodes[i];
		if (c->kind != SL_OPK_CALC || c->nin != 1 || !c->in[0] || !passthrough(c) ||
		    consumers(pl, c->in[0]) != 1)
			continue;
		for (int j = i + 1; j < pl->n; j++)
			for (int k = 0; k < pl->nodes[j]->nin; k++)
				if (pl->nodes[j]->in[k] == c)
					pl->nodes[j]->in[k] = c->in[0];
		memmove(&pl->nodes[i], &pl->nodes[i + 1], sizeof(*pl->nodes) * (size_t)(pl->n - i - 1));
		pl->n--;
		for (int j = i; j < pl->n; j++)
			pl->nodes[j]->id = j;
		i--;
		changed = 1;
	}
	return changed;
}

static const struct {
	const char *name;
	rewrite_fn fn;
} rules[] = {
	{"join-filters", sl__plan_join_filters},
	{"prune-columns", sl__plan_prune},
	{"calc-passthrough", drop_passthrough_calc},
	{NULL, NULL},
};

enum { MAX_ROUNDS = 16 };

/* 0 when the plan holds the invariants of pnode.h, else SL_ERUNTIME with
 * p->err naming `who` and the node. */
static int check(planner *p, const char *who)
{
	const sl_pplan *pl = &p->plan;
	for (int i = 0; i < pl->n; i++) {
		const sl_pnode *n = pl->nodes[i];
		const char *bad = NULL;
		if (n->id != i)
			bad = "its id is not its position";
		else if (n->kind <= SL_OPK_NONE || n->kind >= SL_OPK__COUNT)
			bad = "it has no operator kind";
		else if (n->side && n->side->id >= i)
			bad = "its ON LATE sink comes after it";
		for (int k = 0; !bad && k < n->nin; k++)
			if (n->in[k] && (n->in[k]->id >= i || pl->nodes[n->in[k]->id] != n->in[k]))
				bad = "an input is not an earlier node of the plan";
		if (bad)
			return sl_err_set(p->err, SL_ERUNTIME, "internal error: %s: plan node #%d (%s): %s",
			                  who, i, n->label, bad);
	}
	return 0;
}

int sl__plan_rewrite(planner *p)
{
	int rc = check(p, "planner");
	for (int round = 0; !rc && round < MAX_ROUNDS; round++) {
		int changed = 0;
		for (int r = 0; !rc && rules[r].fn; r++) {
			int c = rules[r].fn(p);
			if (c < 0)
				return c;
			if (c > 0) {
				changed = 1;
				rc = check(p, rules[r].name);
			}
		}
		if (!changed)
			break;
	}
	return rc;
}
