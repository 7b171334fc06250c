/*
 * agg.h - aggregate functions: the method table and the accumulator layout.
 *
 * Aggregating operators (op_window_agg.c, op_group_agg.c) keep one
 * fixed-size accumulator slot per (window, group) in a state table; each
 * aggregate call owns a slice of it at `offset`.  Functions are registered
 * by name (sl_agg_find); a new aggregate is one vtab here.
 *
 * Semantics follow Flink: NULL arguments are skipped; COUNT(*) counts rows;
 * COUNT returns BIGINT NOT NULL; SUM/MIN/MAX/FIRST_VALUE/LAST_VALUE return
 * NULL over no non-NULL input; SUM keeps the argument type except
 * DECIMAL(p,s) -> DECIMAL(38,s); AVG of an integer type is that type
 * (integer division), of DECIMAL(p,s) is DECIMAL(38, max(s,6)), of
 * FLOAT/DOUBLE is DOUBLE.  A DECIMAL result that overflows 38 digits is an
 * error, never NULL (DESIGN.md §3).
 *
 * Retraction (-U/-D input) is supported by COUNT, SUM and AVG; MIN, MAX,
 * FIRST_VALUE and LAST_VALUE over updating input need the values they may
 * have to take back and are refused by the planner until that lands.
 *
 * MIN, MAX, FIRST_VALUE and LAST_VALUE over strings keep their value in a
 * variable-length state table of the operator ("strings"), keyed by the
 * accumulator's namespace and (group key, aggregate index): the fixed slot
 * cannot hold a string.  The operator calls sl_agg_str_add /
 * sl_agg_str_result for them instead of the vtab (sl_agg_is_str).
 */
#ifndef SL_AGG_H
#define SL_AGG_H

#include <stdint.h>

#include "../base/err.h"
#include "../base/types.h"
#include "../base/buf.h"
#include "../state/state.h"
#include "batch.h"

typedef struct sl_agg sl_agg;

typedef struct sl_agg_vtab {
	const char *name;          /* upper case SQL name */
	int retractable;           /* add(…, sign = -1) is valid */
	/* Result type for argument type `arg` (unused for COUNT(*)); returns 0
	 * or SL_EPLAN with err set when the argument type is not supported. */
	int (*result_type)(sl_type arg, int star, sl_type *out, sl_err *err);
	uint32_t acc_size;         /* bytes of accumulator (16-byte multiple) */
	/* Folds row `row` of column c (NULL for COUNT(*)) into acc with sign +1
	 * (insert) or -1 (retract).  Returns 0 or SL_ERUNTIME (overflow). */
	int (*add)(const sl_agg *a, void *acc, const sl_col *c, int row, int sign, sl_err *err);
	/* Writes the result into (out, orow).  Returns 0 or SL_ERUNTIME. */
	int (*result)(const sl_agg *a, const void *acc, sl_col *out, int orow, sl_err *err);
	/* Merges accumulator src into dst (session windows merging); dst holds
	 * the earlier rows.  Returns 0 or SL_ERUNTIME (overflow). */
	int (*merge)(const sl_agg *a, void *dst, const void *src, sl_err *err);
} sl_agg_vtab;

/* One aggregate call of a query. */
struct sl_agg {
	const sl_agg_vtab *vt;
	sl_type arg_type;  /* argument type (COUNT(*): unused) */
	sl_type out_type;  /* result type */
	int arg_col;       /* input column of the argument, -1 for COUNT(*) */
	int filter_col;    /* input BOOLEAN column of FILTER (WHERE), -1 = none */
	int distinct;      /* aggregate over distinct argument values */
	uint32_t offset;   /* of its accumulator in the slot */
};

/* Looks up an aggregate by SQL name (case-insensitive); NULL if unknown. */
const sl_agg_vtab *sl_agg_find(const char *name);

/*
 * Folds row `row` of input batch `in` into the accumulator slot `slot` for
 * each of the n aggregates (skipping rows whose FILTER column is not TRUE,
 * and NULL arguments), with sign +1 or -1.  Distinct aggregates are handled
 * by the caller (it calls sl_agg_add_one only for a value's first
 * occurrence).  Returns 0 or SL_ERUNTIME.
 */
int sl_agg_add_one(const sl_agg *a, void *slot, const sl_batch *in, int row, int sign,
                   sl_err *err);

/* 1 when a is a string MIN/MAX/FIRST_VALUE/LAST_VALUE (see above). */
int sl_agg_is_str(const sl_agg *a);

/*
 * Folds row `row` of `in` into string aggregate number idx of the group
 * whose encoded key is key[0..klen), in namespace ns of table t (variable-
 * length values).  Honours FILTER and skips NULLs.  scratch is a work
 * buffer.  Returns 0 or SL_ENOMEM.
 */
int sl_agg_str_add(const sl_agg *a, int idx, sl_state_table *t, int64_t ns, const void *key,
                   size_t klen, const sl_batch *in, int row, sl_buf *scratch, sl_err *err);

/* Writes the string aggregate's result (NULL when it saw no value) into
 * (out, orow), copying the bytes into ob's arena.  Returns 0 or SL_ENOMEM. */
int sl_agg_str_result(const sl_agg *a, int idx, sl_state_table *t, int64_t ns, const void *key,
                      size_t klen, sl_buf *scratch, sl_batch *ob, sl_col *out, int orow);

/* Removes the group's string values (its group disappeared). */
void sl_agg_str_delete(int idx, sl_state_table *t, int64_t ns, const void *key, size_t klen,
                       sl_buf *scratch);

#endif
