/*
 * instantiate.h - from a physical plan to a running graph: the one table
 * of operator constructors, indexed by kind (src/exec/pnode.h).
 *
 * The planner builds plan nodes without I/O and without operators; the
 * caller (src/api/engine.c) hands the finished plan to sl_instantiate,
 * which builds each node's operator through its kind's constructor,
 * registers it in the graph with the node's schema, label, identity and
 * state TTL, and wires its inputs in order, as the planner created them.
 * Opening the graph (sl_graph_open) opens the connectors afterwards.
 */
#ifndef SL_INSTANTIATE_H
#define SL_INSTANTIATE_H

#include <stdint.h>

#include "../base/err.h"
#include "../exec/graph.h"
#include "../exec/pnode.h"

/*
 * Instantiates every node of plan into g (empty, not yet opened), in
 * order: node k becomes g->ops[k], its connector (scans, sinks, lookup
 * joins) configured for it.  The plan is not changed: it may be
 * instantiated again, into another graph.  Returns 0, or a negative SL_E*
 * code with err set; the operators added so far stay in g
 * (sl_graph_deinit frees them).
 */
int sl_instantiate(const sl_pplan *plan, sl_graph *g, sl_err *err);

/*
 * One instance's part of a plan (the parallel runtime, prun.c): the nodes
 * i with member[i] (all when member is NULL), in plan order, each as
 * instance `subtask` of `nsubtasks` (its connectors' sl_conn_args; share,
 * NULL or one slot per plan node, gives node i's connectors &share[i]), into
 * g, which may already hold other operators (the exchanges' receivers).
 * op_of[0..plan->n) must be NULL on entry for the member nodes; node i's
 * operator is stored in op_of[i].  Inputs are connected where the producer
 * is in g and the edge is chained (sl_pnode.xchg); the others are left
 * for the caller's exchanges.  Returns 0 or a negative code with err set
 * (the operators added so far stay in g).
 */
int sl_instantiate_part(const sl_pplan *plan, const uint8_t *member, int subtask, int nsubtasks,
                        sl_conn_share *share, sl_graph *g, sl_op **op_of, sl_err *err);

#endif
