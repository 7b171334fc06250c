/*
 * plan_ident.c - operator identity: the stable id (sl_pnode.uid, which the
 * runtime copies into sl_op.uid) under which an operator keeps its state
 * and is found again in a checkpoint.  Computed on the plan nodes as
 * planned, before the rewrite pass (rewrite.c), so no rewrite changes one.
 *
 * An id is unique within a job by construction and stable across runs of
 * the same job text (docs/semantics.md §3):
 *
 *   base(op)  = hash(ident(op), uid of each input, producers in plan order)
 *   sink      = hash("sink:<table>#<n-th write of that table>")
 *   UID hint  = hash("uid:<name>")       (two operators with one hint: error)
 *   uid(op)   = base(op) for the first operator with that base, else
 *               hash("occurrence:<k>", base(op)) for the k-th (k = 1, 2, ...)
 *               operator of the job, in planning order, with that base.
 *
 * ident(op) is the node's identity text (sl_pnode.ident), kept apart from
 * its EXPLAIN label (sl_pnode.label): today it is the text of the label as it
 * was when ids were introduced ("<label> [<changelog kind>, rowtime=<col>]",
 * sl__op_ident), frozen so that checkpoints written by earlier versions
 * (tests/fixtures/ckpt-v1) keep restoring while EXPLAIN may show other
 * decoration.  The occurrence rule exists because two identical stateful
 * operators over the same input (two INSERTs with the same aggregate, or one
 * query reading two copies of it, as Nexmark q5) had the same id and shared
 * their state; the first occurrence keeps the id earlier versions gave it,
 * and graph.c refuses a checkpoint in which one id held the state of two
 * operators.  A structural identity (kind and parameters rather than label
 * text, stable under harmless rewrites) is issue 9's work.
 *
 * Planning runs on the caller's thread; nothing here is shared.
 */
#include "plan_int.h"
#include "sluice.h"
#include "../base/hash.h"

#include <stdio.h>
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

/* The table a SINK node writes, NULL for any other node. */
static const char *sink_table(const sl_pnode *n)
{
	return n->kind == SL_OPK_SINK ? ((const sl_sink_params *)n->params)->table : NULL;
}

/* The id of nodes[i] before the occurrence rule. */
static uint64_t base_id(sl_pnode *const *nodes, int i)
{
	const sl_pnode *op = nodes[i];
	const char *ident = op->ident ? op->ident : op->label;
	uint64_t h = sl_hash_bytes(ident, strlen(ident), 0x5eed);
	/* the inputs' ids, in the order of the producers in the plan, a
	 * producer once per input it feeds (as the graph's edges were walked
	 * when ids were computed on operators: the hashes stay the same) */
	for (int k = 0; k < i; k++)
		for (int e = 0; e < op->nin; e++)
			if (op->in[e] == nodes[k])
				h = sl_hash_bytes(nodes[k]->uid, strlen(nodes[k]->uid), h);
	const char *table = sink_table(op);
	if (table) {
		/* a sink is identified by its table (and which write of that
		 * table it is), not by the query feeding it: its staged output
		 * must survive edits upstream */
		int nth = 0;
		for (int j = 0; j < i; j++) {
			const char *o = sink_table(nodes[j]);
			nth += o && !strcmp(o, table);
		}
		char key[300];
		snprintf(key, sizeof(key), "sink:%s#%d", table, nth);
		h = sl_hash_bytes(key, strlen(key), 0x5eed);
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

static int uid_taken(sl_pnode *const *nodes, int i, const char *uid)
{
	for (int j = 0; j < i; j++)
		if (!strcmp(nodes[j]->uid, uid))
			return 1;
	return 0;
}

int sl__plan_idents(planner *p)
{
	sl_pnode *const *nodes = p->plan.nodes;
	int nn = p->plan.n;
	uint64_t *base = sl_arena_alloc(p->a, sizeof(uint64_t) * (size_t)(nn + 1));
	if (!base)
		return sl_err_set(p->err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < nn; i++) {
		sl_pnode *op = nodes[i];
		for (int j = 0; op->uid_hint && j < i; j++)
			if (nodes[j]->uid_hint && !strcmp(nodes[j]->uid_hint, op->uid_hint))
				return sl_err_set(p->err, SL_EPLAN,
				                  "the UID hint '%s' is given to two operators of the job "
				                  "(#%d %s and #%d %s, e.g. a view holding the hint read "
				                  "twice): a UID names one operator's state, give each its own",
				                  op->uid_hint, j, sl_op_kind_name(nodes[j]->kind), i,
				                  sl_op_kind_name(op->kind));
		base[i] = base_id(nodes, i);
		int occ = 0;
		for (int j = 0; j < i; j++)
			occ += base[j] == base[i];
		uint64_t h = base[i];
		/* k-th occurrence; then, against a (64-bit) collision with any
		 * other operator's id, the next k: unique by construction */
		for (int k = occ;; k++) {
			if (k > 0) {
				char key[32];
				snprintf(key, sizeof(key), "occurrence:%d", k);
				h = sl_hash_bytes(key, strlen(key), base[i]);
			}
			snprintf(op->uid, sizeof(op->uid), "%016llx", (unsigned long long)h);
			if (!uid_taken(nodes, i, op->uid))
				break;
		}
	}
	return 0;
}
