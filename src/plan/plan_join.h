/*
 * plan_join.h - planning of JOIN in FROM (plan_join.c), called by
 * plan_query.c once both sides are planned.
 */
#ifndef SL_PLAN_JOIN_H
#define SL_PLAN_JOIN_H

#include "plan_int.h"

/*
 * Plans join f (an SL_AF_JOIN item) over its planned sides l and r (real
 * rels, not virtual window TVFs): splits the ON condition (or USING) into
 * equi-keys, interval bounds on the rowtimes, window bounds and a residual
 * predicate, and adds a regular, interval or window join operator.  The
 * result's columns are l's then r's, with their qualifiers (USING: each
 * USING column once, first).  Returns NULL with p->err set (line and
 * column of the offending part) on error.
 */
rel *sl__plan_join(planner *p, const sl_ast_from *f, rel *l, rel *r);

/*
 * Plans the inner join of l and r on cond, already bound over l's columns
 * followed by r's (the WHERE conditions of a comma join, plan_comma.c),
 * exactly as JOIN ... ON cond (regular, interval or window join); pos is
 * where messages point.  Returns NULL with p->err set.
 */
rel *sl__plan_join_cond(planner *p, const sl_ast_expr *pos, sl_expr *cond, rel *l, rel *r);

/* sl__plan_join_cond as a LEFT join (left = 1) or an inner one (0): a
 * decorrelated LATERAL subquery (plan_lateral.c). */
rel *sl__plan_join_cond_kind(planner *p, const sl_ast_expr *pos, int left, sl_expr *cond, rel *l,
                             rel *r);

/* The literal TRUE (arena): the condition of a cross join (CROSS JOIN, a
 * comma item with no condition), which the join split drops, leaving a
 * join without keys.  NULL with p->err set (out of memory). */
sl_expr *sl__lit_true(planner *p);

/*
 * Plans a semi (anti = 0) or anti (anti = 1) join of l with r on cond,
 * bound over l's columns followed by r's (the subquery planner,
 * plan_subquery.c): equalities between the sides (columns or expressions)
 * are its keys, none needed; the rest is its residual.  The result has
 * l's columns without time attributes; it is updating when an input is or
 * for an anti join.  pos is where messages point.  NULL with p->err set.
 */
rel *sl__plan_semi_join(planner *p, const sl_ast_expr *pos, sl_expr *cond, rel *l, rel *r,
                        int anti);

/*
 * Plans a scalar subquery's join: l LEFT JOIN sub ON TRUE, a join without
 * keys (singleton, as Flink's), so every row of l gets sub's columns
 * (NULLs while sub has no row).  single: sub may return several rows (not
 * a global aggregate), so the join fails at run time on a second one,
 * naming pos (Flink's SINGLE_VALUE).  The result has l's columns then
 * sub's, updating.  NULL with p->err set.
 */
rel *sl__plan_scalar_join(planner *p, const sl_ast_expr *pos, rel *l, rel *sub, int single);


/*
 * Plans join f whose right side is `table FOR SYSTEM_TIME AS OF expr`,
 * over its planned left side l: AS OF l's rowtime makes an event-time
 * temporal join (the right table, planned with plan_right, must have a
 * PRIMARY KEY and a WATERMARK), AS OF l's PROCTIME() column a lookup join.
 * INNER and LEFT only.  Returns NULL with p->err set (line and column).
 */
rel *sl__plan_as_of_join(planner *p, const sl_ast_from *f, rel *l, sl_plan_side_fn plan_right);

#endif
