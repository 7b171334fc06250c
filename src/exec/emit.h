/*
 * emit.h - the output emitter: the rows an operator builds, collected in one
 * batch and pushed downstream whenever the batch is full.
 *
 * Almost every operator that builds new rows (aggregates, joins, Top-N,
 * session and window table functions) does the same thing: append a row
 * to its output batch, push the batch to its consumers (sl_op_emit) when
 * it has no room left, and push what remains at the end of each input
 * batch and of each watermark (before the watermark is forwarded, so rows
 * precede the watermark that follows them).  sl_emitter is that building
 * block, written once.
 *
 * Contract.
 *   - The emitter owns one batch with the operator's output types
 *     (op->nout, op->out_types), allocated by sl_emitter_init (in open).
 *   - Rows are appended with sl_emitter_row (a fresh row slot, all columns
 *     NULL, to be filled with the sl_col_set_* setters) or
 *     sl_emitter_copy_row.  Both first flush the batch when it is full, so
 *     a batch is emitted only once a further row needs room (or at an
 *     explicit flush): the same batches as "append, then flush when full".
 *   - sl_emitter_reserve(e, n) flushes unless n more rows fit: operators
 *     that emit a pair that belongs together (-U/+U) reserve 2 first, so
 *     the pair never straddles two batches.
 *   - sl_emitter_flush emits the rows collected so far (nothing when
 *     empty) and empties the batch.  The operator calls it at the end of
 *     process, before it forwards a watermark, and in finish.
 *   - An optional `before` hook runs on a non-empty batch just before it is
 *     emitted (a window aggregate filters HAVING there, setting the
 *     selection vector, and marks the results it makes visible).  When the
 *     hook or a consumer fails the batch is emptied all the same and the
 *     error returned.
 *
 * Ownership: the batch belongs to the emitter; consumers read it during
 * sl_op_emit only (op.h).  No allocation after init.  Threading: the
 * operator's thread only.
 */
#ifndef SL_EMIT_H
#define SL_EMIT_H

#include "op.h"

typedef struct sl_emitter sl_emitter;

/* Runs on the batch about to be emitted; returns 0 or an error (err set). */
typedef int (*sl_emit_hook)(void *ctx, sl_batch *b, sl_err *err);

struct sl_emitter {
	sl_op *op;            /* the operator whose output this is */
	sl_batch *b;          /* the rows being built (owned) */
	sl_emit_hook before;  /* optional, see above (NULL: none) */
	void *ctx;            /* its context */
	/* Optional source rows (sl_emitter_track_src): per row of b, the row
	 * of src_in it answers, or -1 (NULL: not tracked). */
	int *src;
	const sl_batch *src_in;
};

/*
 * Prepares e for operator op (after sl_graph_add set op's output types,
 * i.e. in open): allocates a batch of op->nout columns of op->out_types
 * with room for cap rows (0 = SL_BATCH_ROWS).  Returns 0 or SL_ENOMEM
 * with err set.  e may be zero-filled before; sl_emitter_deinit frees it
 * even after a failed init.
 */
int sl_emitter_init(sl_emitter *e, sl_op *op, int cap, sl_err *err);

/* Frees the batch.  Safe on a zero-filled emitter and twice. */
void sl_emitter_deinit(sl_emitter *e);

/*
 * Source rows, for run-time errors downstream (err.h): after this, when a
 * consumer fails on row r of a batch the emitter sent (err->row_batch ==
 * e->b), the flush rewrites the error to name row src[r] of e->src_in (the
 * input batch being processed, set by the operator), or no row when src[r]
 * is -1, so the scan upstream can name the input row.  The operator sets
 * each row's source with sl_emitter_set_src.  Returns 0 or SL_ENOMEM (err
 * set).  Call after sl_emitter_init.
 */
int sl_emitter_track_src(sl_emitter *e, sl_err *err);

/* Row `row` of the batch answers input row src (-1: none). */
static inline void sl_emitter_set_src(sl_emitter *e, int row, int src)
{
	if (e->src)
		e->src[row] = src;
}

/* Sets the hook run before each emit (NULL: none). */
static inline void sl_emitter_set_hook(sl_emitter *e, sl_emit_hook before, void *ctx)
{
	e->before = before;
	e->ctx = ctx;
}

/*
 * Emits the collected rows downstream (the hook first), if there are any,
 * and empties the batch.  Returns 0 or the first error of the hook or a
 * consumer.
 */
int sl_emitter_flush(sl_emitter *e, sl_err *err);

/* Flushes unless n more rows fit in the batch (n <= its capacity). */
static inline int sl_emitter_reserve(sl_emitter *e, int n, sl_err *err)
{
	return e->b->nrows + n <= e->b->cap ? 0 : sl_emitter_flush(e, err);
}

/*
 * Appends a row slot with change kind op and W_before wm (columns NULL,
 * sl_batch_add_row), flushing first when the batch is full.  Returns the
 * row's index in e->b, or a negative error of the flush.
 */
static inline int sl_emitter_row(sl_emitter *e, uint8_t op, int64_t wm, sl_err *err)
{
	int rc = sl_emitter_reserve(e, 1, err);
	return rc ? rc : sl_batch_add_row(e->b, op, wm);
}

/*
 * Appends a copy of row src_row of src (same column types; strings copied
 * into the batch) with kind op and W_before wm, flushing first when the
 * batch is full.  Returns the row's index, or a negative error (SL_ENOMEM
 * with err set, or the flush's).
 */
int sl_emitter_copy_row(sl_emitter *e, const sl_batch *src, int src_row, uint8_t op, int64_t wm,
                        sl_err *err);

#endif
