/*
 * pending_rows.h - the rows an event-time operator holds back until its
 * watermark passes their rowtime, and their collection, in arrival order,
 * when that rowtime fires: written once for the OVER aggregate
 * (op_over_agg.c, the temporal sort included) and MATCH_RECOGNIZE
 * (op_match.c), which see the rows of a partition in (rowtime, arrival)
 * order whatever order they came in.
 *
 * State table "pend" (the operator's, so it is in every checkpoint):
 *   namespace = the row's rowtime.  The operator adds the table to its
 *           namespace timers (timers.h), which fire a rowtime once W
 *           passes it and then drop it.
 *   key     = the row's arrival number, 8 bytes big-endian, followed by
 *           the partition key when the operator asks for it (MATCH_RECOGNIZE:
 *           the key stays unique when a rescale merges instances whose
 *           numbers overlap; OVER refuses such a rescale, graph.c).
 *   value   = [u32 klen][partition key][row], in the key and row forms of
 *           data/rowcodec.h.  The entry's key group is the partition key's
 *           (sl_pend_open sets the table's partitioning-key function,
 *           docs/state.md "Key groups").
 *
 * Firing rowtime ts: sl_pend_collect copies the namespace's entries (a
 * scan must not write, state.h) and orders them by the operator's
 * comparison of two rows when it has one (OVER's further sort keys,
 * `ORDER BY rowtime, k`), ties and everything else by arrival number.
 * The sort is needed: the backends scan a namespace in different orders
 * (the memory backend in the order of creation, RocksDB in the order of
 * its stored keys, which are byte-reversed, so arrival numbers that
 * differ in more than their last byte come out of order;
 * tests/slt/over_ties.slt).  Entries already in arrival order with no
 * comparison (the memory backend) are left as they are.  The operator
 * then reads entry i's partition key and row (sl_pend_key, sl_pend_row),
 * valid until the next sl_pend_collect.
 *
 * One thread (the operator's); no allocation per row: the buffers are
 * reused and grow to the largest rowtime seen.
 */
#ifndef SL_PENDING_ROWS_H
#define SL_PENDING_ROWS_H

#include "../base/buf.h"
#include "op.h"

/*
 * The operator's order of two pending rows (row forms, rowcodec.h):
 * negative, 0 or positive as a goes before, ties with or goes after b.
 * Ties are broken by arrival number.
 */
typedef int (*sl_pend_cmp)(const char *a, const char *b, void *ctx);

/* One collected entry (internal to the accessors below). */
typedef struct sl_pend_ent {
	uint64_t seq;          /* arrival number (the key's first 8 bytes) */
	size_t off;            /* the value's offset in vals */
	uint32_t klen, rlen;   /* its partition key's and row's lengths */
} sl_pend_ent;

typedef struct sl_pend {
	sl_state_table *t;     /* "pend" (the backend owns it) */
	const char *what;      /* the operator's name in messages */
	int key_suffix;        /* the partition key follows the arrival number */
	int64_t seq;           /* the next arrival number; the operator
	                        * snapshots and restores it */
	sl_buf enc, key;       /* sl_pend_put's value and key */
	sl_buf vals;           /* the collected values, back to back */
	sl_buf idx;            /* an sl_pend_ent per entry, in firing order */
	sl_pend_cmp cmp;       /* the order of the sort in progress */
	void *cmp_ctx;
} sl_pend;

/*
 * Opens operator op's table "pend" (no TTL) and sets its partitioning-key
 * function.  p may be zero-filled before; what names the operator in
 * error messages ("OVER aggregate") and must outlive p; key_suffix: the
 * keys carry the partition key after the arrival number (see above).
 * Returns 0 or a negative code with err set.
 */
int sl_pend_open(sl_pend *p, sl_op *op, const char *what, int key_suffix, sl_err *err);

/* Frees p's buffers (the table belongs to the backend).  Safe on a
 * zero-filled sl_pend. */
void sl_pend_deinit(sl_pend *p);

/*
 * Stores row `row` of in, whose partition key is the columns key_cols[0..
 * nkeys) of in, as pending at rowtime ts with the next arrival number
 * (p->seq, incremented).  Returns 0, or SL_ENOMEM or the backend's write
 * error with err set.
 */
int sl_pend_put(sl_pend *p, int64_t ts, const sl_batch *in, const int *key_cols, int nkeys,
                int row, sl_err *err);

/*
 * Collects the entries pending at rowtime ts in firing order: by cmp(ctx)
 * of their rows when cmp is not NULL, ties (and all of them when cmp is
 * NULL) by arrival number.  Changes nothing in the table.  Returns 0,
 * SL_ENOMEM, SL_ESTATE for a malformed value (err set), or the scan's
 * error.
 */
int sl_pend_collect(sl_pend *p, int64_t ts, sl_pend_cmp cmp, void *ctx, sl_err *err);

/* The number of entries the last sl_pend_collect collected. */
static inline size_t sl_pend_count(const sl_pend *p)
{
	return p->idx.len / sizeof(sl_pend_ent);
}

/* Entry i's partition key (key form) and its length in *klen; i <
 * sl_pend_count(p). */
static inline const char *sl_pend_key(const sl_pend *p, size_t i, uint32_t *klen)
{
	const sl_pend_ent *e = (const sl_pend_ent *)(const void *)p->idx.p + i;
	*klen = e->klen;
	return p->vals.p + e->off + 4;
}

/* Entry i's row (row form) and its length in *rlen; i < sl_pend_count(p). */
static inline const char *sl_pend_row(const sl_pend *p, size_t i, uint32_t *rlen)
{
	const sl_pend_ent *e = (const sl_pend_ent *)(const void *)p->idx.p + i;
	*rlen = e->rlen;
	return p->vals.p + e->off + 4 + e->klen;
}

#endif
