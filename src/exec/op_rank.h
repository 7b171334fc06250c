/*
 * op_rank.h - plans and constructors of the ROW_NUMBER operators:
 * deduplication (op_rank_dedup.c), Top-N (op_rank.c) and window Top-N
 * (op_window_rank.c), plus the sorted-list helpers and the output set-up
 * they share.
 *
 * The planner (plan_over.c) recognises Flink's patterns
 *   SELECT ... FROM (SELECT ..., ROW_NUMBER() OVER (PARTITION BY k ORDER BY
 *   x) AS rn FROM t) WHERE rn <= N
 * and fills an sl_rank_plan (also for RANK() / DENSE_RANK(), a sluice
 * extension, and for ORDER BY .. LIMIT).  Every operator's output is its
 * input columns, then (out_rn) the rank as a BIGINT NOT NULL column.
 *
 * Sorted lists.  Top-N keeps, per partition key, its current top rows in
 * one variable-length state value: u32 count, then count entries, each
 * [u32 klen][u32 rlen][sort key (klen bytes)][row (rlen bytes)], best
 * first.  The sort key is the key form (data/rowcodec.h) of the ORDER BY
 * columns (never ROW: the planner refuses ORDER BY a ROW value), the row
 * the row form of every input column, ROW values included, so rows are
 * output as they came (-0.0 keeps its sign).  A retraction finds its entry
 * by comparing bytes, or with sl_rowcodec_equal when the row has DOUBLE
 * columns (SQL-equal doubles, -0.0 and 0.0, match); entries written by
 * earlier versions hold the row in the key form, the same layout, and
 * match the same way.  A new row goes after every entry that is not worse
 * (ties keep arrival order), or with ties_last before the entries it ties
 * with.
 */
#ifndef SL_OP_RANK_H
#define SL_OP_RANK_H

#include <stdint.h>

#include "../base/buf.h"
#include "op.h"

typedef enum sl_rank_mode {
	SL_RANK_TOPN = 0,          /* Top-N over an append-only input */
	SL_RANK_DEDUP_PROC_FIRST,  /* ORDER BY proctime ASC, rn = 1: first row by arrival */
	SL_RANK_DEDUP_PROC_LAST,   /* ORDER BY proctime DESC: last row by arrival */
	SL_RANK_DEDUP_ROW_FIRST,   /* ORDER BY rowtime ASC: smallest ts, after the watermark */
	SL_RANK_DEDUP_ROW_LAST,    /* ORDER BY rowtime DESC: largest ts (ties: last arrival) */
	SL_RANK_WINDOW             /* window Top-N, fired when the window closes */
} sl_rank_mode;

/* The ranking function (Top-N and window Top-N; deduplication is
 * ROW_NUMBER only).  RANK and DENSE_RANK give peers (rows equal on every
 * ORDER BY column) one rank: RANK 1, 2, 2, 4; DENSE_RANK 1, 2, 2, 3. */
typedef enum sl_rank_fn {
	SL_RANKFN_ROW_NUMBER = 0,
	SL_RANKFN_RANK,
	SL_RANKFN_DENSE_RANK
} sl_rank_fn;

typedef struct sl_rank_plan {
	sl_rank_mode mode;
	sl_rank_fn fn;             /* ROW_NUMBER, RANK or DENSE_RANK */
	int nkeys;                 /* PARTITION BY columns (window columns excluded
	                            * for SL_RANK_WINDOW: the window is the namespace) */
	const int *key_cols;
	int norder;                /* ORDER BY columns (Top-N and window Top-N) */
	const int *order_cols;
	const uint8_t *desc;       /* per ORDER BY column: DESC */
	const uint8_t *nulls_first;/* per ORDER BY column: NULLs sort before values */
	int64_t n;                 /* keep rows with rn <= n (n >= 1) */
	int64_t lo;                /* TOPN, WINDOW: output rows with rn >= lo
	                            * (0 or 1: from the first; Flink's rank start) */
	int out_rn;                /* append the row number column */
	int time_col;              /* DEDUP_ROW_*: the rowtime; WINDOW: window_time */
	int retract;               /* TOPN: the input is updating (-U/-D retract a
	                            * row): every row of a partition is kept */
	int update_fast;           /* TOPN, ROW_NUMBER, with retract: Flink's
	                            * update-fast strategy (op_rank.c): the input's
	                            * upsert key holds the partition key and every
	                            * ORDER BY column only moves towards the top */
	int nukey;                 /* update_fast: the input's upsert key columns */
	const int *ukey_cols;
	int ties_last;             /* a new row goes before the entries it ties
	                            * with (WINDOW: Flink's window deduplication
	                            * keeping the last row, whose ties go to the
	                            * last arrival); 0: after them */
} sl_rank_plan;

/* Top-N (op_rank.c): +I / -U / +U / -D as rows enter and leave the top n
 * of their partition.  The input is append-only unless p->retract; with
 * p->update_fast it is an upsert stream by p->ukey_cols whose -U rows are
 * ignored and that has no -D. */
sl_op *sl_op_rank_new(const sl_rank_plan *p, const sl_type *in_types, int nin, sl_err *err);

/* Deduplication (op_rank_dedup.c), modes SL_RANK_DEDUP_*. */
sl_op *sl_op_dedup_new(const sl_rank_plan *p, const sl_type *in_types, int nin, sl_err *err);

/* Window Top-N (op_window_rank.c): final +I rows when the window closes. */
sl_op *sl_op_window_rank_new(const sl_rank_plan *p, const sl_type *in_types, int nin,
                             sl_err *err);

/* ---- shared by the three (op_rank.c) ---- */

/* A copy of p whose arrays are owned by the operator (free with
 * sl__rank_plan_free).  Returns 0 or SL_ENOMEM. */
int sl__rank_plan_copy(sl_rank_plan *dst, const sl_rank_plan *src);
void sl__rank_plan_free(sl_rank_plan *p);

/* Output types of a rank operator (input types, then rn); t has room for
 * nin + 1.  Returns the count. */
int sl__rank_out_types(const sl_rank_plan *p, const sl_type *in_types, int nin, sl_type *t);

/* Encodes row `row` of `in` as a list entry into out (cleared first):
 * [u32 klen][u32 rlen][sort key][row].  Returns 0 or SL_ENOMEM. */
int sl__rank_entry(const sl_rank_plan *p, const sl_batch *in, int row, sl_buf *out);

/* The same in two steps: sl__rank_entry_key writes the header and the sort
 * key (rlen 0: enough for sl__rank_cmp), sl__rank_entry_row then appends
 * the row to that entry in out.  Each returns 0 or SL_ENOMEM. */
int sl__rank_entry_key(const sl_rank_plan *p, const sl_batch *in, int row, sl_buf *out);
int sl__rank_entry_row(const sl_batch *in, int row, sl_buf *out);

/* Compares the sort keys of two entries under p's ORDER BY: < 0 when a
 * ranks before b, 0 when they tie. */
int sl__rank_cmp(const sl_rank_plan *p, const sl_type *in_types, const uint8_t *a,
                 const uint8_t *b);

/* Compares two non-NULL values of physical kind phys encoded as
 * sl_rowcodec_key writes them (strings bytewise, a prefix first): < 0, 0
 * or > 0; advances both cursors past them.  sl__rank_skip_value advances
 * one cursor past such a value.  Also used by the temporal sort
 * (op_over_agg.c). */
int sl__rank_cmp_value(int phys, const uint8_t **pa, const uint8_t **pb);
const uint8_t *sl__rank_skip_value(int phys, const uint8_t *a);

/* Size in bytes of the entry at e. */
static inline uint32_t sl__rank_entry_size(const uint8_t *e)
{
	uint32_t k, r;
	__builtin_memcpy(&k, e, 4);
	__builtin_memcpy(&r, e + 4, 4);
	return 8 + k + r;
}

/*
 * Inserts entry `e` into the sorted list list[0..len) (NULL/0 = empty),
 * keeping at most n entries, and writes the new list to out (cleared
 * first).  *pos is the new entry's 0-based position, or -1 when it does not
 * enter the top n (out then holds the old list).  *evicted points at the
 * entry that fell out (inside `list`), or NULL.  Returns 0 or SL_ENOMEM.
 */
int sl__rank_list_insert(const sl_rank_plan *p, const sl_type *in_types, const void *list,
                         uint32_t len, const uint8_t *e, sl_buf *out, int *pos,
                         const uint8_t **evicted);

/* The rank value under p->fn of entry cur at index i of a sorted list,
 * given the entry before it (prev, NULL at i = 0) and that entry's rank
 * value `last`. */
int64_t sl__rank_value(const sl_rank_plan *p, const sl_type *in_types, const uint8_t *prev,
                       const uint8_t *cur, int i, int64_t last);

/* Truncates the sorted list (count-prefixed, in place) after the last
 * entry whose rank value under p->fn is <= p->n; returns the new length.
 * (ROW_NUMBER keeps n entries; RANK and DENSE_RANK keep the peers of the
 * last rank too.) */
uint32_t sl__rank_prune(const sl_rank_plan *p, const sl_type *in_types, void *list, uint32_t len);

/* The entry at index i of a list (bounds are the caller's). */
const uint8_t *sl__rank_list_at(const void *list, int i);

/* Number of entries of a list (0 for an empty or NULL list). */
int sl__rank_list_count(const void *list, uint32_t len);

/* Decodes the row of entry e into row `row` of the output batch b (its
 * first nin columns); strings are copied into b's arena.  Returns 0 or
 * SL_ESTATE for a malformed entry. */
int sl__rank_decode_row(const uint8_t *e, sl_batch *b, sl_col *const *cols, int nin, int row);

/* What each of the three operators opens for its output: out (emit.h;
 * with track_src its rows' sources are tracked, sl_emitter_track_src),
 * *cols = the output batch's first nin columns (for
 * sl__rank_decode_row; the caller frees it), and room in key (an empty
 * PARTITION BY encodes to 0 bytes, and the backends memcmp/memcpy key->p).
 * Returns 0 or a negative code with err set. */
struct sl_emitter;
int sl__rank_open_out(sl_op *op, struct sl_emitter *out, int track_src, sl_col ***cols, int nin,
                      sl_buf *key, sl_err *err);

#endif
