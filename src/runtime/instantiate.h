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
 * order: node k becomes g->ops[k], its connector (scans, sinks, lookup
 * joins) configured for it.  The plan is not changed: it may be
 * instantiated again, into another graph.  Returns 0, or a negative SL_E*
 * code with err set; the operators added so far stay in g
 * (sl_graph_deinit frees them).
 */
int sl_instantiate(const sl_pplan *plan, sl_graph *g, sl_err *err);

#endif
