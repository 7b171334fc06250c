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
 * FLOAT/DOUBLE is DOUBLE.  STDDEV_POP/STDDEV_SAMP/VAR_POP/VAR_SAMP/VARIANCE
 * keep count, sum and sum of squares (agg.c has Flink's formula and types).
 * A DECIMAL result that overflows 38 digits is an
 * error, never NULL (docs/semantics.md §2).
 *
 * Retraction (-U/-D input) is supported by COUNT, SUM, AVG and the
 * STDDEV/VAR family in their
 * accumulators.  MIN and MAX need the values they may have to take back:
 * over an updating input the planner sets sl_agg.retract and the operator
 * keeps each group's values with their counts in a variable-length state
 * table ("values"), updated by sl_agg_vals_add, which also keeps the
 * ordinary accumulator (or string value) equal to the current extreme, so
 * results are read as usual.  COUNT(DISTINCT) retracts through the
 * operator's per-value counts.  FIRST_VALUE and LAST_VALUE over updating
 * input are refused by the planner.
 *
 * LISTAGG(s [, 'sep']) is a string aggregate (below): it appends sep and
 * each non-NULL value in arrival order to the kept string.  Over updating
 * input it keeps the group's values in arrival order in "values"
 * (sl_agg_vals_add): a retraction removes the first equal value and the
 * string is rebuilt.
 *
 * MIN, MAX, FIRST_VALUE and LAST_VALUE over strings keep their value in a
 * variable-length state table of the operator ("strings"), keyed by the
 * accumulator's namespace and (group key, aggregate index): the fixed slot
 * cannot hold a string.  The operator calls sl_agg_str_add /
 * sl_agg_str_result for them instead of the vtab (sl_agg_is_str).
 *
 * User-defined aggregates (CREATE FUNCTION of a library's aggregate,
 * include/sluice_udf.h) get a vtab of their own, built by
 * sl_agg_udf_vtab (agg_udf.c): their accumulator is a slice of the slot
 * like any other, their arguments are the columns arg_cols[0..nargs), and
 * sl_agg_add_one calls the vtab's add_row with the whole input row.
 */
#ifndef SL_AGG_H
#define SL_AGG_H

#include <stdint.h>

#include "../base/err.h"
#include "../data/types.h"
#include "../base/buf.h"
#include "../state/state.h"
#include "../data/batch.h"

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
	int retract_values;        /* retractable through sl_agg_vals_add (MIN, MAX, LISTAGG) */
	/* User-defined aggregates only (agg_udf.c; NULL for built-ins): folds
	 * row `row` of `in` (arguments a->arg_cols[0..a->nargs)) into acc with
	 * sign; sl_agg_add_one calls it instead of add.  (Their merge fails
	 * when the library has none: the planner checks udf->merge first.)
	 * Returns 0 or SL_ERUNTIME. */
	int (*add_row)(const sl_agg *a, void *acc, const sl_batch *in, int row, int sign,
	               sl_err *err);
	const struct sluice_udf *udf; /* the library's registration */
} sl_agg_vtab;

/* The most arguments of a user-defined aggregate. */
#define SL_AGG_MAX_ARGS 16

/* One aggregate call of a query. */
struct sl_agg {
	const sl_agg_vtab *vt;
	sl_type arg_type;  /* argument type (COUNT(*): unused) */
	sl_type out_type;  /* result type */
	int arg_col;       /* input column of the argument, -1 for COUNT(*) */
	int filter_col;    /* input BOOLEAN column of FILTER (WHERE), -1 = none */
	int distinct;      /* aggregate over distinct argument values */
	int retract;       /* MIN/MAX over updating input: sl_agg_vals_add */
	uint32_t offset;   /* of its accumulator in the slot */
	int line, col;     /* SQL position of the call (overflow messages), 0 = none */
	const char *sep;   /* LISTAGG's separator (NULL = ","), seplen bytes */
	uint32_t seplen;
	int nargs;         /* user-defined aggregates: argument columns (arg_col = */
	int arg_cols[SL_AGG_MAX_ARGS]; /* arg_cols[0], -1 without arguments); LAG:
	                   * the value and (nargs 2) the default (op_over.h) */
	int lag_offset;    /* LAG(x, offset): rows back, >= 0 (op_over_agg.c) */
};

/*
 * Accumulator layouts of COUNT (sl_acc_count) and of SUM, AVG, MIN, MAX,
 * FIRST_VALUE, LAST_VALUE (sl_acc_num), public for sl_agg_fold_row.
 */
typedef struct sl_acc_count {
	int64_t n;
} sl_acc_count;

typedef struct sl_acc_num {
	int64_t n; /* non-NULL values seen (net of retractions) */
	int64_t pad;
	union {
		int64_t i;
		double d;
		sl_i128 dec;
	} v;
} sl_acc_num;

/* Inline kinds of sl_agg_fold_row (sl_agg_fast_kind). */
enum {
	SL_AGGK_GENERIC, /* through the vtab (sl_agg_add_one) */
	SL_AGGK_COUNT,   /* COUNT(*) or COUNT(x), no FILTER */
	SL_AGGK_SUM_I64, /* SUM/AVG over an integer type, no FILTER */
	SL_AGGK_SUM_F64, /* ... over FLOAT/DOUBLE */
	SL_AGGK_SUM_DEC  /* ... over DECIMAL */
};

/* The largest |SUM(DECIMAL)| accumulator: 10^38 - 1 (38 digits). */
#define SL_AGG_DEC38_MAX ((sl_i128)10000000000000000000ULL * 10000000000000000000ULL - 1)

/* The kind sl_agg_fold_row uses for a (not DISTINCT, not string) aggregate. */
int sl_agg_fast_kind(const sl_agg *a);

/* Whether a is COUNT (of any FILTER or DISTINCT): its accumulator is an
 * sl_acc_count whose n is the result (a BIGINT, never NULL), and a row
 * that passes FILTER with a non-NULL argument (or COUNT(*)) adds sign to
 * n; an operator may do both inline. */
int sl_agg_is_count(const sl_agg *a);

/* Sets err to SUM's "does not fit" overflow message, with the call's SQL
 * position and (row >= 0) the input row that overflowed it (err->row; the
 * graph fills err->row_batch, graph.c); returns SL_ERUNTIME. */
int sl_agg_sum_overflow(const sl_agg *a, int row, sl_err *err);

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

/*
 * Folds row `row` of `in` with sign +1 into slot for aggs[0..n), whose
 * kinds[] come from sl_agg_fast_kind (none DISTINCT or string).  Same
 * results as sl_agg_add_one for each.  Why inline: an indirect vtab call
 * per aggregate and row plus non-inlined decimal.c checks (sl_i128_add,
 * sl_dec_fits) were ~17% of the datagen window benchmark (perf); the
 * overflow check here is one checked add and two compares.
 */
static inline int sl_agg_fold_row(const sl_agg *aggs, const uint8_t *kinds, int n, void *slot,
                                  const sl_batch *in, int row, sl_err *err)
{
	for (int i = 0; i < n; i++) {
		const sl_agg *a = &aggs[i];
		if (kinds[i] == SL_AGGK_GENERIC) {
			int rc = sl_agg_add_one(a, slot, in, row, 1, err);
			if (rc)
				return rc;
			continue;
		}
		const sl_col *c = a->arg_col >= 0 ? &in->cols[a->arg_col] : NULL;
		if (c && c->null[row])
			continue;
		sl_acc_num *acc = (sl_acc_num *)((char *)slot + a->offset);
		acc->n++;
		switch (kinds[i]) {
		case SL_AGGK_SUM_I64: acc->v.i += c->v.i64[row]; break;
		case SL_AGGK_SUM_F64: acc->v.d += c->v.f64[row]; break;
		case SL_AGGK_SUM_DEC: {
			sl_i128 r;
			if (__builtin_add_overflow(acc->v.dec, c->v.i128[row], &r) ||
			    r > SL_AGG_DEC38_MAX || r < -SL_AGG_DEC38_MAX)
				return sl_agg_sum_overflow(a, row, err);
			acc->v.dec = r;
			break;
		}
		default: break; /* COUNT: n only */
		}
	}
	return 0;
}

/* 1 when a is a string MIN/MAX/FIRST_VALUE/LAST_VALUE or LISTAGG (above). */
int sl_agg_is_str(const sl_agg *a);

/* 1 when a takes NULL argument values as values (ARRAY_AGG: its array
 * holds them, and ARRAY_AGG(DISTINCT x) keeps one NULL, as Flink 1.20.3's
 * does); the DISTINCT filters of the aggregate operators skip NULLs
 * otherwise. */
int sl_agg_keeps_nulls(const sl_agg *a);

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

/*
 * MIN/MAX with retraction (a->retract): folds row `row` of `in` with sign
 * +1 or -1 into the multiset of values of aggregate number idx of the
 * group key[0..klen) in namespace ns of table vals (variable-length
 * values: entries [u32 len][value bytes][i64 count] sorted by value), then
 * sets the aggregate's result to the multiset's smallest (MIN) or largest
 * (MAX) value: in the accumulator at slot + a->offset for numbers, in
 * table strs (as sl_agg_str_add keeps it) for strings; no value = NULL.
 * Honours FILTER and skips NULLs; retracting a value the group does not
 * hold changes nothing.  scratch and work are re-used buffers (no malloc
 * per row in steady state).  Cost: O(distinct values of the group) per
 * row.  Returns 0 or SL_ENOMEM (err set).
 */
int sl_agg_vals_add(const sl_agg *a, int idx, sl_state_table *vals, sl_state_table *strs,
                    int64_t ns, const void *key, size_t klen, void *slot, const sl_batch *in,
                    int row, int sign, sl_buf *scratch, sl_buf *work, sl_err *err);

/*
 * Fills vt as the vtab of user-defined aggregate u (a registration of
 * kind SLUICE_UDF_AGGREGATE that udf.c has checked) named `name` (kept,
 * not copied: it must outlive vt).  vt->acc_size is u->acc_size rounded
 * up to 16 plus a 16-byte header that marks the accumulator initialised
 * (slots start as zero bytes; init is called at the first row).
 * retractable follows the library's retract; merge is always set and
 * fails at run time when the library has none (the planner refuses
 * SESSION windows over such a function first).
 */
void sl_agg_udf_vtab(sl_agg_vtab *vt, const struct sluice_udf *u, const char *name);

/* Removes the group's string values (its group disappeared). */
void sl_agg_str_delete(int idx, sl_state_table *t, int64_t ns, const void *key, size_t klen,
                       sl_buf *scratch);

#endif
