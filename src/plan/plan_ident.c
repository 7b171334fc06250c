/*
 * plan_ident.c - operator identity: the stable id (sl_pnode.uid, which the
 * runtime copies into sl_op.uid) under which an operator keeps its state
 * and is found again in a checkpoint.  Computed on the plan nodes as
 * planned (op below is a node), before the rewrite pass (rewrite.c), so no
 * rewrite rule changes an id, but for one case: column pruning
 * (plan_prune.c) gives new ids to a stateful node whose stored layout it
 * narrows (a join), so that a savepoint of the unpruned plan is refused
 * by name instead of read with the wrong layout.
 *
 * An id is unique within a job by construction, stable across runs of the
 * same job and stable under harmless rewrites of its query
 * (docs/semantics.md §3):
 *
 *   base(op)  = hash(sident(op), uid of each input in input order)
 *   sink      = hash("sink:<table>#<n-th write of that table>")
 *   UID hint  = hash("uid:<name>")       (two operators with one hint: error)
 *   uid(op)   = base(op) unless another operator of the job is an equal
 *               sibling (the same sident over the same inputs, no sink or
 *               hint), else
 *               hash("feeds:<the sinks it feeds, sorted>[#<k>]", base(op)),
 *               k >= 1 counting the siblings before it (in planning order)
 *               that feed the same sinks;
 *   then, against a 64-bit collision with an earlier operator's id,
 *               hash("occurrence:<k>", that) for the next free k.
 *
 * sident(op) is the node's structural identity (sl_pnode.sident): the
 * canonical, versioned text of its kind and of the parameters its state
 * depends on (exec/op_ident.c, version "v2"), never display text, so that
 * `WHERE v > 1` and `WHERE 1 < v`, an alias or a reordered projection keep
 * every id.  sl__node_new sets it for every node, through
 * sl__node_struct below, from the node's parameters and input types; a
 * node without one is an internal error here.
 *
 * The ids of version 1 (sl_pnode.uid_v1), under which snapshots written
 * before structural ids (tests/fixtures/ckpt-v1, users' savepoints) hold
 * their state, are computed too, by version 1's rules: the same sink and
 * hint rules, base = hash(ident(op), uid_v1 of each input, producers in
 * plan order as the graph's edges were walked) over the label-hash
 * identity text (sl_pnode.ident, sl__op_ident: "<label>
 * [<changelog kind>, rowtime=<col>]" as labels read when ids were
 * introduced, frozen apart from the EXPLAIN label), and the k-th operator
 * (k = 1, 2, ...) with an earlier one's base gets hash("occurrence:<k>",
 * base).  A restore of such a snapshot matches operators by them and the
 * job's next snapshot is written with structural ids (exec/graph.c).
 * tests/unit/test_op_ident.c pins them.
 *
 * The sibling rule exists because two identical stateful operators over
 * the same input (two INSERTs with the same aggregate, or one query reading
 * two copies of it, as Nexmark q5) had the same id and shared their state
 * (graph.c refuses a checkpoint in which one id held the state of two
 * operators).  Siblings are told apart by the sinks they feed before their
 * order: with structural identities, siblings differ in expressions
 * (`WHERE v > 1` in one statement, `WHERE v <= 1` in the next), and ids by
 * order alone would hand each the other's state, silently, when the
 * statements are reordered (tests/unit/test_op_ident.c).  The price: an
 * operator that gains or loses its only sibling (a statement of the same
 * shape over the same table added or removed) changes id, and the restore
 * refuses its state by name; a UID hint pins it.
 *
 * Planning runs on the caller's thread; nothing here is shared.
 */
#include "plan_int.h"
#include "sluice.h"
#include "../base/hash.h"
#include "../exec/op_ident.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


const char *sl__op_ident(planner *p, const char *label, const rel *r)
{
	if (r->ncols == 0)
		return label;
	/* frozen: this text is what ids of existing checkpoints are hashes of */
	int rt = r->rowtime >= 0 && r->rowtime < r->ncols;
	const char *kind = !r->updating ? "append-only"
	                 : r->upsert_key ? sl_arena_printf(p->a, "upsert, key=[%s]", r->upsert_key)
	                 : "updating";
	return sl_arena_printf(p->a, "%s [%s%s%s]", label, kind, rt ? ", rowtime=" : "",
	                       rt ? r->cols[r->rowtime].name : "");
}

int sl__node_struct(planner *p, sl_pnode *n)
{
	/* what op_ident.h asks of each kind: the parameters (the scan's plan
	 * struct, none for the kinds identified by their output types), the
	 * first input's column types for the kinds identified by them */
	const void *plan = n->params;
	const sl_type *in = NULL;
	int nin = 0;
	switch (n->kind) {
	case SL_OPK_SCAN:
		plan = &((const sl_scan_params *)n->params)->scan;
		break;
	case SL_OPK_VALUES: case SL_OPK_CALC: case SL_OPK_UNION: case SL_OPK_CONSTRAINT:
	case SL_OPK_SINK: case SL_OPK_CORRELATE:
		plan = NULL;
		break;
	case SL_OPK_GROUP_AGG: case SL_OPK_WINDOW_AGG: case SL_OPK_SESSION_AGG: case SL_OPK_OVER_AGG:
	case SL_OPK_RANK: case SL_OPK_DEDUP: case SL_OPK_WINDOW_RANK: case SL_OPK_SET_OP:
	case SL_OPK_SESSION_ASSIGN: case SL_OPK_CHANGELOG_NORMALIZE: case SL_OPK_MATCH:
		if (n->nin && n->in[0]) {
			in = n->in[0]->out_types;
			nin = n->in[0]->nout;
		}
		break;
	default:
		break;
	}
	/* the session TVF is identified before its output exists (as it was) */
	int no_out = n->kind == SL_OPK_SESSION_ASSIGN;
	sl_buf b;
	sl_buf_init(&b);
	int rc = sl_op_struct_ident(&b, n->kind, plan, in, nin, no_out ? NULL : n->out_types,
	                            no_out ? 0 : n->nout, p->err);
	if (!rc && !(n->sident = sl_arena_strdup(p->a, b.p)))
		rc = sl_err_set(p->err, SL_ENOMEM, "out of memory");
	sl_buf_deinit(&b);
	return rc;
}

/* The two schemes: structural ids (uid) and the label-hash ids of
 * snapshots written before them (uid_v1). */
typedef enum id_scheme { SCHEME_STRUCT, SCHEME_LABEL } id_scheme;

/* What the id rules read of the graph, computed once. */
typedef struct id_ctx {
	sl_pnode *const *ops; /* the plan's nodes */
	int nops;
	uint64_t *base;      /* per operator: its id before the occurrence rules */
	int **prod;          /* prod[i][s]: graph index of the producer of ops[i]'s
	                      * input s, -1 when none */
	const char **sink;   /* per sink operator: "sink:<table>#<n-th>", else NULL */
	const char **feeds;  /* structural scheme: per operator with an equal
	                      * sibling, the sinks it feeds (once computed) */
} id_ctx;

static char *uid_of(sl_pnode *op, id_scheme s)
{
	return s == SCHEME_STRUCT ? op->uid : op->uid_v1;
}

/* Hashes the ids of ops[i]'s inputs into h: by input index under the
 * structural scheme, in graph order of the producers under the label one
 * (as version 1 did). */
static uint64_t hash_inputs(const id_ctx *c, int i, id_scheme s, uint64_t h)
{
	sl_pnode *const *ops = c->ops;
	const sl_pnode *op = ops[i];
	if (s == SCHEME_LABEL) {
		/* producers in plan order, each once per input it feeds (as the
		 * graph's edges were walked) */
		for (int k = 0; k < i; k++)
			for (int e = 0; e < op->nin; e++)
				if (op->in[e] == ops[k])
					h = sl_hash_bytes(ops[k]->uid_v1, strlen(ops[k]->uid_v1), h);
		return h;
	}
	for (int in = 0; in < op->nin; in++) {
		int k = c->prod[i][in];
		if (k >= 0)
			h = sl_hash_bytes(ops[k]->uid, strlen(ops[k]->uid), h);
	}
	return h;
}

/* The id of ops[i] under scheme s before the occurrence rules. */
static uint64_t base_id(const id_ctx *c, int i, id_scheme s)
{
	const sl_pnode *op = c->ops[i];
	const char *ident = s == SCHEME_STRUCT ? op->sident : op->ident ? op->ident : op->label;
	uint64_t h = hash_inputs(c, i, s, sl_hash_bytes(ident, strlen(ident), 0x5eed));
	if (c->sink[i]) {
		/* a sink is identified by its table (and which write of that
		 * table it is), not by the query feeding it: its staged output
		 * must survive edits upstream */
		h = sl_hash_bytes(c->sink[i], strnlen(c->sink[i], 299), 0x5eed); /* as v1 */
	}
	if (op->uid_hint) {
		/* sluice extension: the UID('name') query hint pins the aggregate's id so
		 * that its state survives any edit of the query around it */
		char key[300];
		snprintf(key, sizeof(key), "uid:%s", op->uid_hint);
		h = sl_hash_bytes(key, strlen(key), 0x5eed);
	}
	return h;
}

static int uid_taken(sl_pnode *const *ops, int i, const char *uid, id_scheme s)
{
	for (int j = 0; j < i; j++)
		if (!strcmp(uid_of(ops[j], s), uid))
			return 1;
	return 0;
}

/* Sets ops[i]'s id under scheme s to `h`, or, against a (64-bit) collision
 * with an earlier operator's id, to hash("occurrence:<k>", h) for the
 * next free k: unique by construction. */
static void set_unique(sl_pnode *const *ops, int i, uint64_t h0, int k0, id_scheme s)
{
	char *uid = uid_of(ops[i], s);
	uint64_t h = h0;
	for (int k = k0;; k++) {
		if (k > 0) {
			char key[32];
			snprintf(key, sizeof(key), "occurrence:%d", k);
			h = sl_hash_bytes(key, strlen(key), h0);
		}
		snprintf(uid, sizeof(ops[i]->uid), "%016llx", (unsigned long long)h);
		if (!uid_taken(ops, i, uid, s))
			return;
	}
}

/* The label-hash ids of version 1: the k-th operator of the job (k = 1,
 * 2, ...) with the base of an earlier one gets hash("occurrence:<k>"). */
static void set_label_ids(id_ctx *c)
{
	for (int i = 0; i < c->nops; i++) {
		c->base[i] = base_id(c, i, SCHEME_LABEL);
		int occ = 0;
		for (int j = 0; j < i; j++)
			occ += c->base[j] == c->base[i];
		set_unique(c->ops, i, c->base[i], occ, SCHEME_LABEL);
	}
}

/* 1 when ops[i] and ops[j] are equal siblings: the same structural
 * identity over the same inputs, ids not pinned by a sink or a UID hint. */
static int siblings(const id_ctx *c, int i, int j)
{
	const sl_pnode *a = c->ops[i], *b = c->ops[j];
	if (c->sink[i] || c->sink[j] || a->uid_hint || b->uid_hint || a->nin != b->nin ||
	    strcmp(a->sident, b->sident))
		return 0;
	for (int in = 0; in < a->nin; in++)
		if (c->prod[i][in] != c->prod[j][in])
			return 0;
	return 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "feeds:<sink>,<sink>...": the sinks reachable from ops[i], sorted
 * (arena).  NULL on ENOMEM. */
static const char *feeds_of(planner *p, const id_ctx *c, int i)
{
	int n = c->nops;
	int *stack = sl_arena_alloc(p->a, sizeof(int) * (size_t)(n + 1));
	char *seen = sl_arena_calloc(p->a, (size_t)n + 1);
	const char **keys = sl_arena_alloc(p->a, sizeof(char *) * (size_t)(n + 1));
	if (!stack || !seen || !keys)
		return NULL;
	int sp = 0, nk = 0;
	stack[sp++] = i;
	seen[i] = 1;
	while (sp > 0) {
		int k = stack[--sp];
		if (c->sink[k])
			keys[nk++] = c->sink[k];
		for (int t = k + 1; t < n; t++) /* k's consumers */
			for (int e = 0; e < c->ops[t]->nin; e++)
				if (c->ops[t]->in[e] == c->ops[k] && !seen[t]) {
					seen[t] = 1;
					stack[sp++] = t;
				}
	}
	qsort(keys, (size_t)nk, sizeof(char *), cmp_str);
	sl_buf b;
	sl_buf_init(&b);
	int bad = sl_buf_puts(&b, "feeds:");
	for (int k = 0; k < nk; k++)
		bad |= sl_buf_printf(&b, "%s%s", k ? "," : "", keys[k]);
	const char *r = bad ? NULL : sl_arena_strdup(p->a, sl_buf_cstr(&b));
	sl_buf_deinit(&b);
	return r;
}

/* c->feeds[i], computed once.  NULL on ENOMEM. */
static const char *feeds(planner *p, id_ctx *c, int i)
{
	if (!c->feeds[i])
		c->feeds[i] = feeds_of(p, c, i);
	return c->feeds[i];
}

/*
 * The structural ids.  An operator without an equal sibling keeps its
 * base.  Equal siblings (all of them, the first too) are told apart by the
 * sinks they feed and, among those feeding the same sinks, by their order:
 * hash("feeds:<sinks>[#<k>]", base).  So reordering the statements of a
 * statement set keeps every id: siblings that differ only in expressions
 * (`WHERE v > 1` in one statement, `WHERE v <= 1` in the next) never trade
 * ids, and state.
 */
static int set_struct_ids(planner *p, id_ctx *c)
{
	for (int i = 0; i < c->nops; i++) {
		c->base[i] = base_id(c, i, SCHEME_STRUCT);
		int sib = 0;
		for (int j = 0; j < c->nops && !sib; j++)
			sib = j != i && siblings(c, i, j);
		if (!sib) {
			set_unique(c->ops, i, c->base[i], 0, SCHEME_STRUCT);
			continue;
		}
		const char *f = feeds(p, c, i);
		if (!f)
			return sl_err_set(p->err, SL_ENOMEM, "out of memory");
		int occ = 0;
		for (int j = 0; j < i; j++) {
			if (!siblings(c, i, j))
				continue;
			const char *fj = feeds(p, c, j);
			if (!fj)
				return sl_err_set(p->err, SL_ENOMEM, "out of memory");
			occ += !strcmp(fj, f);
		}
		char occs[24] = "";
		if (occ)
			snprintf(occs, sizeof(occs), "#%d", occ);
		const char *key = sl_arena_printf(p->a, "%s%s", f, occs);
		if (!key)
			return sl_err_set(p->err, SL_ENOMEM, "out of memory");
		set_unique(c->ops, i, sl_hash_bytes(key, strlen(key), c->base[i]), 0, SCHEME_STRUCT);
	}
	return 0;
}

/* The table a SINK node writes, NULL for any other node. */
static const char *sink_table(const sl_pnode *n)
{
	return n->kind == SL_OPK_SINK ? ((const sl_sink_params *)n->params)->table : NULL;
}

/* Fills c's producers and sink keys. */
static int id_ctx_init(planner *p, id_ctx *c)
{
	sl_pnode *const *ops = p->plan.nodes;
	int nops = p->plan.n;
	size_t n = (size_t)nops + 1;
	c->ops = ops;
	c->nops = nops;
	c->base = sl_arena_alloc(p->a, sizeof(uint64_t) * n);
	c->prod = sl_arena_calloc(p->a, sizeof(int *) * n);
	c->sink = sl_arena_calloc(p->a, sizeof(char *) * n);
	c->feeds = sl_arena_calloc(p->a, sizeof(char *) * n);
	if (!c->base || !c->prod || !c->sink || !c->feeds)
		return sl_err_set(p->err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < nops; i++) {
		const sl_pnode *op = ops[i];
		if (!(c->prod[i] = sl_arena_alloc(p->a, sizeof(int) * (size_t)(op->nin + 1))))
			return sl_err_set(p->err, SL_ENOMEM, "out of memory");
		for (int in = 0; in < op->nin; in++) {
			assert(!op->in[in] || op->in[in]->id < i); /* topological */
			c->prod[i][in] = op->in[in] ? op->in[in]->id : -1;
		}
		const char *k = sink_table(op);
		if (k) {
			int nth = 0;
			for (int j = 0; j < i; j++) {
				const char *o = sink_table(ops[j]);
				nth += o && !strcmp(o, k);
			}
			if (!(c->sink[i] = sl_arena_printf(p->a, "sink:%s#%d", k, nth)))
				return sl_err_set(p->err, SL_ENOMEM, "out of memory");
		}
	}
	return 0;
}

int sl__plan_idents(planner *p)
{
	sl_pnode *const *ops = p->plan.nodes;
	for (int i = 0; i < p->plan.n; i++) {
		const sl_pnode *op = ops[i];
		if (!op->sident)
			return sl_err_set(p->err, SL_EPLAN, "internal error: plan node #%d %s has no "
			                  "structural identity (sl__node_struct)", i,
			                  sl_op_kind_name(op->kind));
		for (int j = 0; op->uid_hint && j < i; j++)
			if (ops[j]->uid_hint && !strcmp(ops[j]->uid_hint, op->uid_hint))
				return sl_err_set(p->err, SL_EPLAN,
				                  "the UID hint '%s' is given to two operators of the job "
				                  "(#%d %s and #%d %s, e.g. a view holding the hint read "
				                  "twice): a UID names one operator's state, give each its own",
				                  op->uid_hint, j, sl_op_kind_name(ops[j]->kind), i,
				                  sl_op_kind_name(op->kind));
	}
	id_ctx c;
	int rc = id_ctx_init(p, &c);
	if (rc)
		return rc;
	set_label_ids(&c);
	return set_struct_ids(p, &c);
}
