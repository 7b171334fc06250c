/*
 * op_ident.h - the structural identity of an operator (op_ident.c): a
 * canonical, versioned text of its kind and of the parameters its state
 * layout and meaning depend on, from which the planner derives the
 * operator's state id (src/plan/plan_ident.c, docs/semantics.md §3).
 *
 * What each kind passes as `plan` (the plan structs of ops.h, join.h,
 * op_over.h, op_rank.h; loose constructor parameters gathered in the small
 * structs below):
 *
 *   SL_OPK_SCAN                const sl_scan_plan *
 *   SL_OPK_VALUES, SL_OPK_CALC, SL_OPK_UNION, SL_OPK_CONSTRAINT, SL_OPK_SINK,
 *   SL_OPK_CORRELATE           NULL (identified by kind and output types)
 *   SL_OPK_WINDOW_ASSIGN       const sl_window_spec * (or a struct that
 *                              starts with one, as sl_assign_ident)
 *   SL_OPK_SESSION_ASSIGN      const sl_assign_ident *
 *   SL_OPK_JOIN, SL_OPK_INTERVAL_JOIN, SL_OPK_WINDOW_JOIN,
 *   SL_OPK_TEMPORAL_JOIN       const sl_join_plan *
 *   SL_OPK_LOOKUP_JOIN         const sl_join_plan * (or a struct that starts
 *                              with one: the lookup connector is not read)
 *   SL_OPK_SEMI_JOIN           const sl_join_plan * whose kind is SL_JOIN_SEMI
 *                              or SL_JOIN_ANTI (the constructor's `anti`; or
 *                              a struct that starts with such a plan)
 *   SL_OPK_GROUP_AGG           const sl_group_agg_plan *
 *   SL_OPK_WINDOW_AGG, SL_OPK_SESSION_AGG
 *                              const sl_window_agg_plan *
 *   SL_OPK_OVER_AGG            const sl_over_plan *
 *   SL_OPK_MATCH               const sl_match_plan *
 *   SL_OPK_RANK, SL_OPK_DEDUP, SL_OPK_WINDOW_RANK
 *                              const sl_rank_plan *
 *   SL_OPK_SET_OP              const sl_set_op_ident *
 *   SL_OPK_CHANGELOG_NORMALIZE const sl_keys_ident *
 *
 * The small structs have the layout of the plan nodes' parameter structs
 * of the same kinds (issue 9: sl_set_op_params, sl_normalize_params,
 * sl_assign_params), so a node's parameters can be passed as they are.
 *
 * in_types are the types of the operator's input columns (of input 0; the
 * joins read both sides' types from their plan), out_types its output
 * columns' types (needed by the kinds identified by them: Values, Calc,
 * Union; may be NULL for the others).
 */
#ifndef SL_OP_IDENT_H
#define SL_OP_IDENT_H

#include "../base/buf.h"
#include "../base/err.h"
#include "../data/types.h"
#include "op_kind.h"
#include "ops.h"

/* The version every structural identity text starts with.  A change of
 * what any kind's text holds is a new version: texts of one version never
 * change (they are what the ids of checkpoints are hashes of). */
#define SL_OP_IDENT_VERSION "v2"

/* SL_OPK_SET_OP's parameters (sl_op_set_op_new's). */
typedef struct sl_set_op_ident {
	sl_setop_kind kind;
	int all;
} sl_set_op_ident;

/* Key columns (input positions) of SL_OPK_CHANGELOG_NORMALIZE. */
typedef struct sl_keys_ident {
	const int *key_cols;
	int nkeys;
} sl_keys_ident;

/* SL_OPK_SESSION_ASSIGN's parameters (sl_op_session_assign_new's): the
 * window and the PARTITION BY columns. */
typedef struct sl_assign_ident {
	sl_window_spec win;
	const int *key_cols;
	int nkeys;
} sl_assign_ident;

/*
 * Appends to out the structural identity text of an operator of `kind`
 * with parameters `plan` (above), input column types in_types[0..nin) and
 * output column types out_types[0..nout): SL_OP_IDENT_VERSION, the kind's
 * frozen name (not its display name) and what its state layout and meaning
 * depend on, never the text of an expression that does not change its
 * state.  The rules per kind are in op_ident.c's header.  The text is the
 * same for equal structures on every platform and run.  Returns 0,
 * SL_ENOMEM, or SL_EINVAL (err set) for a kind without a structural
 * identity (SL_OPK_NONE) or missing parameters.
 */
int sl_op_struct_ident(sl_buf *out, sl_op_kind kind, const void *plan, const sl_type *in_types,
                       int nin, const sl_type *out_types, int nout, sl_err *err);

#endif
