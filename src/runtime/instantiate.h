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

#include "../base/err.h"
#include "../exec/graph.h"
#include "../exec/pnode.h"

/*
 * Instantiates every node of plan into g (empty, not yet opened), in
 * order: node k becomes g->ops[k].  Each node is instantiated once (its
 * single-use connector objects move into the operator: pnode.h).  Returns
 * 0, or a negative SL_E* code with err set; the operators added so far
 * stay in g (sl_graph_deinit frees them) and sl_pplan_release frees what
 * the other nodes hold.
 */
int sl_instantiate(sl_pplan *plan, sl_graph *g, sl_err *err);

/*
 * Frees the single-use objects (configured sources, sinks, decoders,
 * lookup connectors) of the plan's nodes that were not instantiated: after
 * EXPLAIN, after a planning error, after a failed sl_instantiate.  The
 * nodes themselves live in the plan arena.
 */
void sl_pplan_release(sl_pplan *plan);

#endif
