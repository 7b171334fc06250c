/*
 * op_over.h - plan and constructor of the event-time OVER aggregate
 * (op_over_agg.c):
 *   agg(x) OVER (PARTITION BY k ORDER BY rowtime
 *                ROWS BETWEEN n PRECEDING AND CURRENT ROW |
 *                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW |
 *                RANGE BETWEEN INTERVAL 'd' PRECEDING AND CURRENT ROW |
 *                RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
 * The operator's output is its input columns followed by one column per
 * aggregate call; it is append-only.  Over an updating input (retract set)
 * op_over_retract.c does the work instead: ROWS n PRECEDING frames only,
 * ordered by any BIGINT/TIMESTAMP column, and its output is updating.
 */
#ifndef SL_OP_OVER_H
#define SL_OP_OVER_H

#include <stdint.h>

#include "agg.h"
#include "op.h"

typedef struct sl_over_plan {
	int nkeys;              /* PARTITION BY columns (0: one partition) */
	const int *key_cols;
	int time_col;           /* the rowtime the window is ordered by */
	int rows;               /* 1: ROWS frame, 0: RANGE frame */
	int64_t preceding;      /* ROWS: rows before the current one; RANGE:
	                         * micros; -1: UNBOUNDED PRECEDING */
	int naggs;
	const sl_agg *aggs;     /* arg_col / filter_col index the input; no
	                         * DISTINCT, no string MIN/MAX/FIRST/LAST */
	int nsort;              /* temporal sort only (naggs 0): further sort
	                         * keys ordering the rows of one rowtime */
	const int *sort_cols;
	const uint8_t *sort_desc;
	const uint8_t *sort_nulls_first;
	int retract;            /* the input is updating: op_over_retract.c
	                         * (time_col is then any i64 column) */
} sl_over_plan;

/* LAG(x [, offset [, default]]) OVER (... UNBOUNDED frame): the value of x
 * offset rows (default 1) before the current one in the partition, else
 * default (NULL).  An sl_agg of this vtab (arg_cols[0] = x, nargs 2:
 * arg_cols[1] = default; lag_offset) is computed by op_over_agg.c from the
 * last rows of the partition it keeps, as Flink's LagAggFunction: over a
 * RANGE frame the rows of one rowtime are all added first, so each gets
 * the value offset rows before the last of them.  Its accumulator is
 * empty; its add does nothing. */
extern const sl_agg_vtab sl_over_lag_vtab;

/* The largest n of ROWS n PRECEDING over an updating input (each change
 * costs O(n^2) aggregate folds, op_over_retract.c). */
#define SL_OVER_RETRACT_MAX_PRECEDING 1000

/* Output columns: the input's, then the aggregates (aggs[i].out_type). */
sl_op *sl_op_over_agg_new(const sl_over_plan *p, const sl_type *in_types, int nin, sl_err *err);

/* The operator of p->retract (op_over_retract.c; sl_op_over_agg_new calls
 * it): output columns as above, updating.  NULL with err set. */
sl_op *sl__op_over_retract_new(const sl_over_plan *p, const sl_type *in_types, int nin,
                               sl_err *err);

#endif
