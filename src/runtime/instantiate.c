/*
 * instantiate.c - turns a physical plan (src/exec/pnode.h) into a running
 * graph: one constructor per operator kind in one table, then the edges.
 *
 * Node k becomes operator g->ops[k] (sl_instantiate: the whole plan, one
 * instance); the parallel runtime instantiates one chain instance at a
 * time (sl_instantiate_part: the chain's nodes, its connectors told which
 * instance they are, only chained edges connected; prun.c adds the
 * exchanges).  A node's inputs are earlier nodes, so
 * their operators exist and the edges are connected in the order the
 * planner created the nodes (a producer's consumers in creation order,
 * each consumer's inputs in order), which is the order in which an
 * operator's output reaches its consumers.  The operator takes the node's
 * label, identity text, uid, UID hint and state TTL; the graph takes its
 * output schema.  A window aggregate's ON LATE sink (node->side) is handed
 * to it as sl_window_agg_plan.late_op.
 *
 * Each constructor copies the node's parameters where it keeps them; the
 * plan structs stay in the plan arena, which lives as long as the job.
 * Scans, sinks and lookup joins configure their connector here from the
 * node's vtab and arguments (pnode.h; the planner configured one already,
 * so a failure here is unexpected), and the operator owns it.  Nothing in
 * a node is used up, so a plan may be instantiated again.
 */
#include "instantiate.h"
#include "sluice.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "../connector/conn.h"
#include "../connector/conn_lines.h"
#include "../format/format.h"

/* Where nodes are instantiated: the graph, each node's operator so far
 * (op_of[node id], NULL for nodes of other instances' graphs) and which
 * instance of its node's parallelism the graph runs. */
typedef struct inst_ctx {
	sl_graph *g;
	sl_op **op_of;
	int subtask, nsubtasks;
	sl_conn_share *share; /* per node id: the run's share slots, or NULL */
} inst_ctx;

/* A constructor: n's operator. */
typedef sl_op *(*ctor_fn)(const sl_pnode *n, inst_ctx *x, sl_err *err);

/* The connector arguments of node n for this instance. */
static sl_conn_args inst_args(const sl_conn_args *a, const sl_pnode *n, const inst_ctx *x)
{
	sl_conn_args r = *a;
	r.subtask = x->subtask;
	r.nsubtasks = x->nsubtasks;
	r.share = x->share ? &x->share[n->id] : NULL;
	return r;
}

/* The first input's column types and count (one-input constructors). */
#define IN_TYPES(n) ((n)->in[0]->out_types)
#define IN_N(n) ((n)->in[0]->nout)

static sl_op *new_scan(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	const sl_scan_params *s = n->params;
	sl_scan_plan sp = s->scan;
	sl_conn_args args = inst_args(&s->args, n, x);
	if (s->source)
		sp.source = sl_source_new(s->source, &args, err);
	else /* a push table decodes its records with its 'format' */
		sp.push_dec = sl__conn_decoder(&args, "json", err);
	if (!sp.source && !sp.push_dec) {
		sl_err_prefix(err, "table '%s'", s->args.table);
		return NULL;
	}
	sl_op *op = sl_op_scan_new(&sp, err); /* owns them from now on */
	if (!op) {
		sl_source_free(sp.source);
		sl_decoder_free(sp.push_dec);
	}
	return op;
}

static sl_op *new_values(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	const sl_values_params *v = n->params;
	return sl_op_values_new(v->nrows, v->ncols, v->vals, err);
}

static sl_op *new_calc(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	const sl_calc_params *c = n->params;
	return sl_op_calc_new(c->filter, c->proj, c->nproj, IN_TYPES(n), IN_N(n), err);
}

static sl_op *new_union(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	return sl_op_union_new(err);
}

static sl_op *new_constraint(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	const sl_constraint_params *c = n->params;
	return sl_op_constraint_new(c->cols, c->names, c->ncols, c->drop, err);
}

static sl_op *new_sink(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	const sl_sink_params *s = n->params;
	sl_conn_args args = inst_args(&s->args, n, x);
	sl_sink *k = sl_sink_new(s->sink, &args, err);
	if (!k) {
		sl_err_prefix(err, "table '%s'", s->table);
		return NULL;
	}
	sl_op *op = sl_op_sink_new(k, err); /* owns k from now on */
	if (!op) {
		sl_sink_free(k);
		return NULL;
	}
	if (s->npk && sl_op_sink_set_upsert(op, s->pk, s->npk, err)) {
		sl_op_free(op); /* frees the sink too */
		return NULL;
	}
	return op;
}

static sl_op *new_window_assign(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	const sl_assign_params *a = n->params;
	return sl_op_window_assign_new(&a->win, IN_N(n), err);
}

static sl_op *new_session_assign(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	const sl_assign_params *a = n->params;
	return sl_op_session_assign_new(&a->win, IN_N(n), a->key_cols, a->nkeys, err);
}

static sl_op *new_lookup_join(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	const sl_lookup_join_params *l = n->params;
	sl_conn_args args = inst_args(&l->args, n, x);
	sl_lookup *lk = sl_lookup_new(l->lookup, &args, l->keys, l->nkeys, err);
	if (!lk)
		return NULL;
	/* the constructor owns lk, even when it fails */
	return sl_op_lookup_join_new(&l->join, lk, err);
}

static sl_op *new_group_agg(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	return sl_op_group_agg_new(n->params, IN_TYPES(n), IN_N(n), err);
}

/* The plan with late_op set to the ON LATE sink's operator. */
static sl_window_agg_plan window_plan(const sl_pnode *n, inst_ctx *x)
{
	sl_window_agg_plan wp = *(const sl_window_agg_plan *)n->params;
	wp.late_op = n->side ? x->op_of[n->side->id] : NULL;
	return wp;
}

static sl_op *new_window_agg(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	sl_window_agg_plan wp = window_plan(n, x);
	return sl_op_window_agg_new(&wp, IN_TYPES(n), IN_N(n), err);
}

static sl_op *new_local_window_agg(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	sl_window_agg_plan wp = window_plan(n, x);
	return sl_op_window_local_new(&wp, IN_TYPES(n), IN_N(n), err);
}

static sl_op *new_session_agg(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	sl_window_agg_plan wp = window_plan(n, x);
	return sl_op_session_agg_new(&wp, IN_TYPES(n), IN_N(n), err);
}

static sl_op *new_over_agg(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	return sl_op_over_agg_new(n->params, IN_TYPES(n), IN_N(n), err);
}

static sl_op *new_join(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	return sl_op_join_new(n->params, err);
}

static sl_op *new_semi_join(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	const sl_semi_join_params *s = n->params;
	return sl_op_semi_join_new(&s->join, s->anti, err);
}

static sl_op *new_interval_join(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	return sl_op_interval_join_new(n->params, err);
}

static sl_op *new_window_join(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	return sl_op_window_join_new(n->params, err);
}

static sl_op *new_temporal_join(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	return sl_op_temporal_join_new(n->params, err);
}

static sl_op *new_rank(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	return sl_op_rank_new(n->params, IN_TYPES(n), IN_N(n), err);
}

static sl_op *new_dedup(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	return sl_op_dedup_new(n->params, IN_TYPES(n), IN_N(n), err);
}

static sl_op *new_window_rank(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	return sl_op_window_rank_new(n->params, IN_TYPES(n), IN_N(n), err);
}

static sl_op *new_set_op(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	const sl_set_op_params *s = n->params;
	return sl_op_set_op_new(s->kind, s->all, err);
}

static sl_op *new_normalize(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	const sl_normalize_params *c = n->params;
	return sl_op_changelog_normalize_new(c->key_cols, c->nkeys, err);
}

static sl_op *new_correlate(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	return sl_op_correlate_new(n->params, IN_TYPES(n), IN_N(n), n->out_types, n->nout, err);
}

static sl_op *new_match(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	return sl_op_match_new(n->params, IN_TYPES(n), IN_N(n), err);
}

/* The constructor table: one entry per kind (op_kind.h). */
static const ctor_fn ctors[SL_OPK__COUNT] = {
	[SL_OPK_SCAN] = new_scan,
	[SL_OPK_VALUES] = new_values,
	[SL_OPK_CALC] = new_calc,
	[SL_OPK_UNION] = new_union,
	[SL_OPK_CONSTRAINT] = new_constraint,
	[SL_OPK_SINK] = new_sink,
	[SL_OPK_WINDOW_ASSIGN] = new_window_assign,
	[SL_OPK_SESSION_ASSIGN] = new_session_assign,
	[SL_OPK_LOOKUP_JOIN] = new_lookup_join,
	[SL_OPK_GROUP_AGG] = new_group_agg,
	[SL_OPK_WINDOW_AGG] = new_window_agg,
	[SL_OPK_SESSION_AGG] = new_session_agg,
	[SL_OPK_OVER_AGG] = new_over_agg,
	[SL_OPK_JOIN] = new_join,
	[SL_OPK_SEMI_JOIN] = new_semi_join,
	[SL_OPK_INTERVAL_JOIN] = new_interval_join,
	[SL_OPK_WINDOW_JOIN] = new_window_join,
	[SL_OPK_TEMPORAL_JOIN] = new_temporal_join,
	[SL_OPK_RANK] = new_rank,
	[SL_OPK_DEDUP] = new_dedup,
	[SL_OPK_WINDOW_RANK] = new_window_rank,
	[SL_OPK_SET_OP] = new_set_op,
	[SL_OPK_CHANGELOG_NORMALIZE] = new_normalize,
	[SL_OPK_LOCAL_WINDOW_AGG] = new_local_window_agg,
	[SL_OPK_CORRELATE] = new_correlate,
	[SL_OPK_MATCH] = new_match,
};

/* Instantiates node n into x->g as x->op_of[n->id] and connects its
 * inputs whose producers are in the graph (x->op_of set) over chained
 * edges.  0, or a negative code with err set. */
static int instantiate_node(const sl_pnode *n, inst_ctx *x, sl_err *err)
{
	sl_graph *g = x->g;
	if (n->kind <= SL_OPK_NONE || n->kind >= SL_OPK__COUNT || !ctors[n->kind])
		return sl_err_set(err, SL_ERUNTIME, "internal error: plan node #%d: no constructor for "
		                  "kind %d", n->id, (int)n->kind);
	sl_op *op = ctors[n->kind](n, x, err);
	if (!op)
		return err->code ? err->code : SL_ENOMEM;
	if (op->vt->kind != n->kind || op->vt->flags != sl_op_kind_flags(n->kind)) {
		/* pnode.c's table and the method table disagree */
		sl_op_free(op);
		return sl_err_set(err, SL_ERUNTIME, "internal error: plan node #%d: operator %s does "
		                  "not match its kind (src/exec/pnode.c)", n->id,
		                  sl_op_kind_name(n->kind));
	}
	op->label = n->label;
	op->ident = n->ident;
	op->sident = n->sident;
	op->uid_hint = n->uid_hint;
	memcpy(op->uid, n->uid, sizeof(op->uid));
	memcpy(op->uid_v1, n->uid_v1, sizeof(op->uid_v1));
	op->state_ttl[0] = n->state_ttl[0];
	op->state_ttl[1] = n->state_ttl[1];
	if (sl_graph_add(g, op, n->nin, n->nout, n->out_types, n->out_names)) {
		sl_op_free(op); /* not in the graph: still ours */
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	if (!n->uid[0]) /* no state of its own in any snapshot (a two-phase
	                 * aggregate's local stage): no id, as an exchange's
	                 * ends, rather than the graph's positional "op<k>" */
		op->uid[0] = 0;
	x->op_of[n->id] = op;
	for (int i = 0; i < n->nin; i++) {
		const sl_pnode *in = n->in[i];
		if (in && x->op_of[in->id] && (!n->xchg || n->xchg[i] == SL_XCHG_CHAIN) &&
		    sl_graph_connect(g, x->op_of[in->id], op, i))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	return 0;
}

int sl_instantiate_part(const sl_pplan *plan, const uint8_t *member, int subtask, int nsubtasks,
                        sl_conn_share *share, sl_graph *g, sl_op **op_of, sl_err *err)
{
	inst_ctx x = {g, op_of, subtask, nsubtasks, share};
	for (int i = 0; i < plan->n; i++) {
		const sl_pnode *n = plan->nodes[i];
		if (n->id != i)
			return sl_err_set(err, SL_ERUNTIME, "internal error: plan node #%d out of order",
			                  n->id);
		if (!member || member[i]) {
			int rc = instantiate_node(n, &x, err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

int sl_instantiate(const sl_pplan *plan, sl_graph *g, sl_err *err)
{
	assert(g->nops == 0);
	sl_op **op_of = calloc((size_t)(plan->n ? plan->n : 1), sizeof(*op_of));
	if (!op_of)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	int rc = sl_instantiate_part(plan, NULL, 0, 1, NULL, g, op_of, err);
	free(op_of);
	return rc;
}
