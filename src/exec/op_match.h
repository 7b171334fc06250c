/*
 * op_match.h - plan and constructor of MATCH_RECOGNIZE (op_match.c,
 * planned by plan/plan_match.c; the mechanism: docs/match_recognize.md).
 *
 * The planner turns every pattern navigation of DEFINE and MEASURES
 * (A.price, LAST(A.price, 1), FIRST(price), PREV(A.price), SUM(A.price),
 * MATCH_ROWTIME()) into a "nav": one column of a one-row batch that the
 * operator fills for the partial match being tested, and binds the
 * conditions and measures over those columns only.  Navigation arguments
 * that are expressions (LAST(A.price * A.tax)) become derived columns: the
 * operator evaluates them once per buffered row, after the input columns.
 * The output is append-only: the PARTITION BY columns, then the measures.
 */
#ifndef SL_OP_MATCH_H
#define SL_OP_MATCH_H

#include <stdint.h>

#include "../expr/expr.h"
#include "agg.h"
#include "op.h"

typedef enum sl_match_nav_kind {
	SL_MNAV_LAST = 0, /* LAST(v.x, off): x of the off-th last row mapped to v */
	SL_MNAV_FIRST,    /* FIRST(v.x, off): x of the off-th first row mapped to v */
	SL_MNAV_PREV,     /* PREV(v.x, off): x of the row off rows before LAST(v.x),
	                   * NULL before the match's first row */
	SL_MNAV_AGG       /* agg(v.x): over the rows mapped to v */
} sl_match_nav_kind;

typedef struct sl_match_nav {
	sl_match_nav_kind kind;
	int var;        /* pattern variable, -1: every row (no qualifier) */
	int col;        /* row column (input, then derived); -1: COUNT(*) */
	int off;        /* LAST / FIRST / PREV offset, >= 0 */
	sl_agg agg;     /* SL_MNAV_AGG: arg_col = col, filter_col -1, offset 0 */
	sl_type type;   /* the nav column's type */
} sl_match_nav;

/* One PATTERN term: variable var, min..max rows (max -1: unbounded). */
typedef struct sl_match_term {
	int var;
	int min, max;
	uint8_t greedy;
} sl_match_term;

enum { SL_MSKIP_PAST_LAST = 0, SL_MSKIP_NEXT_ROW, SL_MSKIP_TO_FIRST, SL_MSKIP_TO_LAST };

#define SL_MATCH_MAX_TERMS 250

typedef struct sl_match_plan {
	int nkeys;                  /* PARTITION BY columns (0: one partition) */
	const int *key_cols;
	int time_col;               /* the rowtime ORDER BY names */
	int nderived;               /* row columns nin .. nin + nderived - 1 */
	sl_expr *const *derived;    /* over the input columns */
	int nvars;
	const char *const *var_names;
	sl_expr *const *conds;      /* per variable, over the navs; NULL: TRUE */
	int nterms;                 /* 1 .. SL_MATCH_MAX_TERMS */
	const sl_match_term *terms;
	int skip;                   /* SL_MSKIP_* */
	int skip_var;               /* TO FIRST / TO LAST: the variable */
	int64_t within;             /* micros, -1: no WITHIN */
	int nnav;
	const sl_match_nav *navs;
	int nmeasures;
	sl_expr *const *measures;   /* over the navs */
	const char *text;           /* canonical text of the clause (identity) */
} sl_match_plan;

/*
 * The MATCH_RECOGNIZE operator over an input of nin columns in_types:
 * output columns = the key columns, then the measures (their types).
 * The plan is copied; its expressions are compiled here.  NULL with err
 * set.
 */
sl_op *sl_op_match_new(const sl_match_plan *p, const sl_type *in_types, int nin, sl_err *err);

#endif
