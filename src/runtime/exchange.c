/*
 * exchange.c - the sender and receiver operators of an exchange between
 * chain instances (see exchange.h; docs/parallel.md §2-§3).
 *
 * Sender.  One output batch per channel, of 'sluice.batch-size' rows (a
 * mini-batch aggregate after the exchange folds no more than at
 * parallelism 1, where that is the scans' batch), taken from the
 * channel's pool:
 * a batch that came back on the return channel, else a new one while
 * fewer than `pool` exist, else the sender waits for one to come back
 * (that wait is backpressure and is counted).  Rows are copied column by
 * column (sl_batch_append_rows: one type dispatch per column and run of
 * rows, a column's strings in one arena allocation), strings into the
 * batch's arena, since a producer's strings may point into a source's
 * read buffer.  A run of rows whose first W_before is below the last row
 * of its target batch flushes that batch first, and a run ends where
 * W_before falls, so W_before stays non-decreasing along every batch
 * (batch.h) although a sender mixes the rows of several splits.  HASH:
 * the key group of the row codec's key form of the input's sl_dist
 * columns, in order (docs/parallel.md §2, "The rule that makes a hash
 * exchange correct"), and the instance owning it (sl_keygroup_instance),
 * for every row of the input batch first (a key of one 8-byte integer
 * column hashed from the value, of one string column hashed from its
 * bytes where they lie, another key of one column formed on the stack,
 * sl_rowcodec_key1, and hashed inline), then each channel's rows,
 * in input order, appended as runs.  REBALANCE: all rows of an
 * input batch to one channel, the next batch to the next channel.
 * Lending: the one channel whose consumer runs on the sender's own thread
 * (slot sharing, sl_xsend_set_local) gets no copy: the sender pushes a
 * view of its input batch (a selection vector of that channel's rows)
 * and has the thread run the consumer until the channel is drained
 * (send_view), so the view is read within the sender's process() call,
 * as op.h allows; rows whose W_before falls along the view are copied.
 * A channel found full, or a pool found empty, is waited for by the
 * task's wait function when it has one (sl_xsend_set_wait: its thread
 * runs other tasks meanwhile, prun.c), else by sleeping in the channel.
 * Its channels' wake-ups are deferred (channel.h, sl_chan_set_lazy: a
 * sleeping consumer is woken by every few messages, docs/parallel.md §12):
 * the sender gives the owed ones (kick_all) before it waits for a batch
 * or room, in sl_xsend_flush, and when its task's turn ends
 * (sl_xsend_kick).
 * A watermark goes to every channel, behind every row that preceded it,
 * but not at once: flushing every partial batch at every watermark (a
 * scan sends one per batch) would halve the batches and double the
 * messages and wake-ups.  The sender keeps it pending and pushes it, on
 * every channel behind that channel's partial batch, after WM_DELAY more
 * input messages, when its task has nothing more to do (sl_xsend_flush,
 * before the task sleeps), before a marker or an idleness change, at
 * +infinity and at the end of input (finish, followed by END).  Why 64
 * and not behind every full batch (until s12-par: a watermark message per
 * batch and channel, and WM_DELAY 8): each watermark message costs the
 * consumer a minimum over its channels and a pass of every operator's
 * watermark path down the chain (the global window stage's timers), for
 * windows that close once a minute of event time; 64 input messages are
 * a few hundred thousand rows of a scan at most.  A later watermark is still a
 * correct one (it only bounds what is still to come), and lateness is
 * decided by each row's own W_before, which travels with the row, so the
 * delay changes when results come out, never which.  Idleness ('scan.watermark.idle-
 * timeout') travels as a watermark message with the XF_IDLE flag.
 *
 * Receiver.  Pops round-robin over its channels without blocking: a batch
 * is emitted as it is and handed back on the channel's return channel
 * (never full: its capacity is the pool's), a lent view is not handed
 * back (its sender waits for the channel to drain); a watermark sets the channel's
 * watermark; END sets it to +infinity.  The minimum over the channels that
 * are not idle (all of them when all are idle) is emitted when it grows,
 * so a channel that carries no rows still moves the consumer.  When every
 * channel ended the pump returns SL_EEOF and the graph ends the receiver
 * (+infinity watermark, finish of the chain downstream).  A cancelled
 * channel (the job failed or stopped) is an error; the task loop tells
 * cancellation from a failure of its own.  A run-time error whose failing
 * row is a row of a batch the receiver emitted (err.h's row / row_batch,
 * mapped back by the operators after it) gets that row's values appended
 * (name_row): the scan that could name its file and line is in another
 * thread, and its read buffer has moved on.
 *
 * Markers.  MARKER(n) on channel i records n for i, and the pump takes
 * nothing more from i until the task released n (sl_xrecv_release), which
 * it does after every channel of every receiver of the task delivered n
 * or ended (sl_xrecv_aligned) and the task forwarded n on its senders
 * (sl_xsend_marker: partial batches and the pending watermark first).
 * Markers do not move the watermark.  At most one marker is in flight in
 * a job (the coordinator waits for its acknowledgements, prun.c), so a
 * channel never holds two.  A checkpoint barrier is such a marker (the
 * task parks after it: docs/parallel.md §5), so nothing here tells them
 * apart.
 */
#include "exchange.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/buf.h"
#include "../data/keygroup.h"
#include "../data/rowcodec.h"
#include "../data/valtext.h"

#define XF_IDLE 4u /* watermark message flag: value is the idle status */
#define XF_VIEW 8u /* batch message flag: a lent view of the sender's input */
#define WM_DELAY 64 /* input messages a watermark may wait (see the top) */

/* ---- sender ----------------------------------------------------------- */

typedef struct xsend {
	sl_op op;
	sl_xchg_kind kind;
	const int *cols;
	int ncols, maxp, n, pool, rr;
	sl_chan **ch, **ret;
	sl_batch **cur;     /* per channel: the batch being filled, or NULL */
	int *made;          /* per channel: batches allocated */
	sl_batch **mine;    /* every batch allocated, to free (n * pool) */
	int nmine;
	int sent_idle;
	int64_t pending_wm; /* the last watermark received */
	int64_t *sent_wm;   /* per channel: the last watermark pushed */
	int since;          /* input messages since pending_wm was not on every channel */
	int ended;          /* END was sent */
	int bcap;           /* rows per batch ('sluice.batch-size'; 0: the default) */
	uint64_t wait_ns;
	sl_xwait_fn wait;   /* a full channel or an empty pool: see sl_xsend_set_wait */
	void *wait_ctx;
	sl_buf key;
	/* HASH scratch, grown to the largest input batch (no malloc per batch
	 * in steady state): each live row's target, then the rows grouped by
	 * target (a counting sort, input order kept within a target) */
	uint32_t *tgt, *rows;
	int scap;
	int local;          /* the channel whose consumer runs on this thread, or -1 */
	sl_batch view;      /* the view lent on it (send_view) */
	uint32_t kg_mask;   /* maxp - 1 when maxp is a power of two, else 0 */
	uint16_t *inst_of;  /* per key group: the channel of its owner (maxp) */
	int *cnt;           /* per channel, n + 1 */
} xsend;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cancelled(sl_err *err)
{
	return sl_err_set(err, SL_ERUNTIME, "the job was cancelled");
}

/* Gives every channel the consumer wake-up it is owed (channel.h,
 * sl_chan_set_lazy): before the sender waits for a consumer, and at the
 * end of its task's turn (sl_xsend_kick). */
static void kick_all(xsend *x)
{
	for (int t = 0; t < x->n; t++)
		sl_chan_kick(x->ch[t]);
}

void sl_xsend_kick(sl_op *op)
{
	kick_all((xsend *)op);
}

/* A batch for channel t: recycled, new, or waited for. */
static int take_batch(xsend *x, int t, sl_err *err)
{
	sl_chan_msg m;
	int r = sl_chan_try_pop(x->ret[t], &m);
	if (r < 0)
		return cancelled(err);
	if (r == 0 && x->made[t] < x->pool) {
		sl_batch *b = sl_batch_new(x->op.nout, x->op.out_types, x->bcap);
		if (!b)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		x->mine[x->nmine++] = b;
		x->made[t]++;
		x->cur[t] = b;
		return 0;
	}
	if (r == 0)
		kick_all(x); /* the consumers hold the batches: they must run */
	if (r == 0 && x->wait) {
		uint64_t t0 = now_ns();
		while ((r = sl_chan_try_pop(x->ret[t], &m)) == 0)
			if (x->wait(x->wait_ctx, x->ret[t], SL_XWAIT_MSG))
				return cancelled(err);
		SL_CTR_ADD(x->wait_ns, now_ns() - t0);
		if (r < 0)
			return cancelled(err);
	} else if (r == 0) {
		uint64_t t0 = now_ns();
		r = sl_chan_pop(x->ret[t], &m);
		SL_CTR_ADD(x->wait_ns, now_ns() - t0);
		if (!r)
			return cancelled(err);
	}
	sl_batch_reset(m.batch);
	x->cur[t] = m.batch;
	return 0;
}

static int push(xsend *x, int t, uint32_t kind, uint32_t flags, int64_t value, sl_batch *b,
                sl_err *err)
{
	sl_chan_msg m = {kind, flags, value, b};
	if (!x->wait)
		return sl_chan_push(x->ch[t], &m) ? cancelled(err) : 0;
	int r = sl_chan_try_push(x->ch[t], &m);
	if (r == 0) { /* full: the task's thread helps or sleeps (prun.c) */
		uint64_t t0 = now_ns();
		while ((r = sl_chan_try_push(x->ch[t], &m)) == 0)
			if (x->wait(x->wait_ctx, x->ch[t], SL_XWAIT_ROOM))
				return cancelled(err);
		sl_chan_note_block(x->ch[t], now_ns() - t0);
	}
	return r < 0 ? cancelled(err) : 0;
}

static int flush(xsend *x, int t, sl_err *err)
{
	sl_batch *b = x->cur[t];
	if (!b || b->nrows == 0)
		return 0;
	x->cur[t] = NULL;
	SL_CTR_ADD(x->op.stats.rows_out, b->nrows);
	return push(x, t, SL_CHAN_BATCH, 0, 0, b, err);
}

/* Every batch out, then the pending watermark on every channel. */
static int flush_wm(xsend *x, sl_err *err)
{
	x->since = 0;
	for (int t = 0; t < x->n; t++) {
		int rc = flush(x, t, err);
		if (!rc && x->pending_wm > x->sent_wm[t]) {
			x->sent_wm[t] = x->pending_wm;
			rc = push(x, t, SL_CHAN_WATERMARK, 0, x->pending_wm, NULL, err);
		}
		if (rc)
			return rc;
	}
	return 0;
}

int sl_xsend_flush(sl_op *op, sl_err *err)
{
	xsend *x = (xsend *)op;
	int rc = 0;
	for (int t = 0; t < x->n; t++)
		if (x->pending_wm > x->sent_wm[t] || (x->cur[t] && x->cur[t]->nrows)) {
			rc = flush_wm(x, err);
			break;
		}
	kick_all(x);
	return rc;
}

/*
 * Appends rows rows[0..n) of `in` (physical indexes in input order; rows
 * NULL: the rows first..first+n-1) to channel t's batches, column by
 * column (sl_batch_append_rows), in runs that fit the batch and along
 * which W_before does not decrease.  A run whose first row's W_before is
 * below the batch's last row flushes the batch first, so W_before stays
 * non-decreasing along every batch; a full batch is pushed at once.
 */
static int send_rows(xsend *x, int t, const sl_batch *in, const uint32_t *rows, int first, int n,
                     sl_err *err)
{
	for (int i = 0; i < n; ) {
		const int64_t *wm = in->wm;
		int r0 = rows ? (int)rows[i] : first + i;
		sl_batch *b = x->cur[t];
		if (b && b->nrows && wm[r0] < b->wm[b->nrows - 1]) {
			int rc = flush(x, t, err); /* keep W_before non-decreasing */
			if (rc)
				return rc;
			b = NULL;
		}
		if (!b) {
			int rc = take_batch(x, t, err);
			if (rc)
				return rc;
			b = x->cur[t];
		}
		int room = b->cap - b->nrows, m = 1;
		int64_t last = wm[r0];
		if (rows)
			for (; m < room && i + m < n && wm[rows[i + m]] >= last; m++)
				last = wm[rows[i + m]];
		else
			for (; m < room && i + m < n && wm[first + i + m] >= last; m++)
				last = wm[first + i + m];
		if (sl_batch_append_rows(b, in, rows ? rows + i : NULL, first + i, m))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		i += m;
		if (b->nrows == b->cap) {
			int rc = flush(x, t, err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/*
 * Lends rows[0..n) of `in` (physical indexes in input order; rows NULL:
 * all of in's rows) to channel t, whose consumer runs on this thread
 * (sl_xsend_set_local): the channel's partial batch and pending watermark
 * go first (flush), then a view of `in` selecting those rows, then the
 * pending watermark; then the thread runs the consumer (x->wait, which
 * runs the tasks deeper than the sender's) until it has taken every
 * message of t, so the view is read before this process() call returns,
 * while `in` and the memory its strings point into are valid (op.h).  A
 * view keeps W_before non-decreasing along the batch as send_rows does:
 * when it falls among the rows, nothing is lent and the caller copies.
 * Returns 1 when lent, 0 when not, or an error.  Why: the column copy
 * (col_append and its callers) was a third of what parallelism 2 added
 * to bench job 1 (perf, docs/performance.md, s9-exch), and half of a
 * hash exchange's rows stay on their thread at parallelism 2.
 */
static int send_view(xsend *x, int t, const sl_batch *in, const uint32_t *rows, int n,
                     sl_err *err)
{
	const int64_t *wm = in->wm;
	if (!rows && n != in->nrows)
		return 0;
	for (int i = 1; i < n; i++)
		if (rows ? wm[rows[i]] < wm[rows[i - 1]] : wm[i] < wm[i - 1])
			return 0;
	int rc = flush(x, t, err);
	if (rc)
		return rc;
	sl_batch *v = &x->view;
	*v = *in;
	v->ncols = x->op.nout;
	v->sel = (uint32_t *)rows; /* read only: a consumer never modifies its input */
	v->nsel = rows ? n : 0;
	SL_CTR_ADD(x->op.stats.rows_out, n);
	rc = push(x, t, SL_CHAN_BATCH, XF_VIEW, 0, v, err);
	if (!rc && x->pending_wm > x->sent_wm[t]) { /* as flush: the watermark behind its rows */
		x->sent_wm[t] = x->pending_wm;
		rc = push(x, t, SL_CHAN_WATERMARK, 0, x->pending_wm, NULL, err);
	}
	while (!rc && !sl_chan_drained(x->ch[t]))
		if (x->wait(x->wait_ctx, x->ch[t], SL_XWAIT_DRAINED))
			rc = cancelled(err);
	return rc ? rc : 1;
}

/* Every live row of `in` to channel t (lent when t is local). */
static int send_all(xsend *x, int t, const sl_batch *in, sl_err *err)
{
	int live = sl_batch_live(in);
	int rc = t == x->local && live ? send_view(x, t, in, in->sel, live, err) : 0;
	if (rc)
		return rc < 0 ? rc : 0;
	if (in->sel)
		return send_rows(x, t, in, in->sel, 0, in->nsel, err);
	return send_rows(x, t, in, NULL, 0, in->nrows, err);
}


/* Room for n live rows in the HASH scratch. */
static int grow_scratch(xsend *x, int n, sl_err *err)
{
	if (n <= x->scap)
		return 0;
	uint32_t *t = realloc(x->tgt, sizeof(uint32_t) * (size_t)n);
	if (t)
		x->tgt = t;
	uint32_t *r = t ? realloc(x->rows, sizeof(uint32_t) * (size_t)n) : NULL;
	if (!r)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	x->rows = r;
	x->scap = n;
	return 0;
}

/* The key group of a non-NULL 8-byte integer key, whose key form is the
 * null byte 0 and the value's 8 bytes in native order: MurmurHash3 of
 * those 9 bytes (sl_keygroup_hash) with the blocks taken from the value,
 * on a little-endian machine, where byte i of the value is v >> 8i.  Why:
 * forming and hashing the 9 bytes in memory was 75 instructions a row of
 * the datagen benchmark's sender (callgrind, 300 K rows at parallelism 2);
 * test_exchange checks it against the generic path. */
static inline int32_t i64_key_murmur(uint64_t v)
{
	const uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
	uint32_t blk[2] = {(uint32_t)(v << 8), (uint32_t)(v >> 24)}, h = 0;
	for (int i = 0; i < 2; i++) {
		uint32_t k = blk[i] * c1;
		k = sl_kg_rotl32(k, 15) * c2;
		h = sl_kg_rotl32(h ^ k, 13) * 5 + 0xe6546b64u;
	}
	uint32_t k = (uint32_t)(v >> 56) * c1;
	h ^= sl_kg_rotl32(k, 15) * c2;
	h = sl_kg_fmix32(h ^ 9u);
	return sl_keygroup_murmur_inline((int32_t)h);
}

/* The channel of the row whose key's murmur value (non-negative) is m:
 * its key group m % maxp (a mask when maxp is a power of two, as the
 * default 128 is) and the group's owner from a table.  Why: the two
 * integer divisions (sl_keygroup_of_inline, sl_keygroup_instance) were a
 * fifth of the sender's samples in perf of bench job 1 at parallelism 2
 * (an idiv costs tens of cycles; callgrind counts it as one). */
static inline uint32_t target_of(const uint16_t *inst_of, uint32_t kg_mask, int maxp, int32_t m)
{
	return inst_of[kg_mask ? (uint32_t)m & kg_mask : (uint32_t)(m % maxp)];
}

/* The target channel of every live row: the instance owning the key group
 * of the row codec's key form of the key columns (docs/parallel.md §2,
 * "The rule that makes a hash exchange correct").  A key of one 8-byte
 * integer column is hashed from the value (i64_key_murmur), a key of one
 * string column from its bytes (sl_keygroup_hash_str_inline; strings
 * shorter than 3 bytes are formed), a key of one other column that is
 * not a ROW is formed on the stack
 * (sl_rowcodec_key1, the same bytes), other keys in x->key by
 * sl_rowcodec_key. */
static int hash_targets(xsend *x, const sl_batch *in, sl_err *err)
{
	char kb[128];
	const sl_col *c1 = x->ncols == 1 ? &in->cols[x->cols[0]] : NULL;
	/* in locals: with -fno-strict-aliasing every store to tgt[] would
	 * reload them from x */
	const uint16_t *inst = x->inst_of;
	uint32_t mask = x->kg_mask, *tgt = x->tgt;
	int maxp = x->maxp, live = sl_batch_live(in);
	const uint32_t *sel = in->sel;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (c1 && sl_type_phys(c1->type) == SL_PHYS_I64) {
		const uint8_t *nul = c1->null;
		const int64_t *v = c1->v.i64;
		uint32_t null_t = inst[sl_keygroup_of_inline("\1", 1, maxp)];
		for (int k = 0; k < live; k++) {
			int row = sel ? (int)sel[k] : k;
			tgt[k] = nul[row] ? null_t : target_of(inst, mask, maxp, i64_key_murmur((uint64_t)v[row]));
		}
		return 0;
	}
#endif
#ifdef SL_KG_HASH_STR
	if (c1 && sl_type_phys(c1->type) == SL_PHYS_STR) {
		/* a string key hashed where it lies (sl_keygroup_hash_str_inline:
		 * forming it on the stack stalled the hash's first load) */
		const uint8_t *nul = c1->null;
		const sl_str *v = c1->v.str;
		uint32_t null_t = inst[sl_keygroup_of_inline("\1", 1, maxp)];
		for (int k = 0; k < live; k++) {
			int row = sel ? (int)sel[k] : k;
			int64_t len = v[row].len;
			if (nul[row])
				tgt[k] = null_t;
			else if (len >= 3 && len <= INT32_MAX)
				tgt[k] = target_of(inst, mask, maxp, sl_keygroup_murmur_inline((int32_t)
				                   sl_keygroup_hash_str_inline(v[row].ptr, (uint32_t)len)));
			else { /* short: the form */
				x->key.len = 0;
				if (sl_rowcodec_key(in, x->cols, 1, row, &x->key))
					return sl_err_set(err, SL_ENOMEM, "out of memory");
				tgt[k] = target_of(inst, mask, maxp, sl_keygroup_murmur_inline((int32_t)
				                   sl_keygroup_hash_inline(x->key.p, (uint32_t)x->key.len)));
			}
		}
		return 0;
	}
#endif
	SL_BATCH_FOREACH(in, k, row) {
		int len = c1 ? sl_rowcodec_key1(c1, row, kb, (int)sizeof(kb)) : -1;
		const void *key = kb;
		if (len < 0) {
			x->key.len = 0;
			if (sl_rowcodec_key(in, x->cols, x->ncols, row, &x->key))
				return sl_err_set(err, SL_ENOMEM, "out of memory");
			key = x->key.p;
			len = (int)x->key.len;
		}
		tgt[k] = len ? target_of(inst, mask, maxp, sl_keygroup_murmur_inline((int32_t)
		                            sl_keygroup_hash_inline(key, (uint32_t)len)))
		                : x->inst_of[0]; /* sl_keygroup_of: group 0 */
	}
	return 0;
}

/* HASH: the targets of all rows first, then each channel's rows, grouped
 * by a counting sort, copied column by column.  Why not row by row (each
 * row's values copied with a type dispatch per value, strings allocated
 * one by one, the key built in a growing buffer): that was 735
 * instructions a row of the sender for bench job 1's rows (callgrind, 200
 * K rows at parallelism 2), a third of what parallelism 1 spends a row. */
static int send_hash(xsend *x, const sl_batch *in, sl_err *err)
{
	int live = sl_batch_live(in);
	int rc = grow_scratch(x, live, err);
	if (!rc)
		rc = hash_targets(x, in, err);
	if (rc)
		return rc;
	int *cnt = x->cnt;
	const uint32_t *tgt = x->tgt, *sel = in->sel; /* locals: see hash_targets */
	uint32_t *rows = x->rows;
	memset(cnt, 0, sizeof(int) * (size_t)(x->n + 1));
	for (int k = 0; k < live; k++)
		cnt[tgt[k] + 1]++;
	for (int t = 0; t < x->n; t++)
		cnt[t + 1] += cnt[t]; /* cnt[t]: where channel t's rows start */
	for (int k = 0; k < live; k++)
		rows[cnt[tgt[k]]++] = sel ? sel[k] : (uint32_t)k;
	/* cnt[t] is now where channel t's rows end */
	for (int t = 0, from = 0; t < x->n; from = cnt[t], t++) {
		if (cnt[t] == from)
			continue;
		rc = t == x->local ? send_view(x, t, in, x->rows + from, cnt[t] - from, err) : 0;
		if (rc == 0)
			rc = send_rows(x, t, in, x->rows + from, 0, cnt[t] - from, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int sl_xsend_idle(sl_op *op, sl_err *err)
{
	xsend *x = (xsend *)op;
	if (op->idle == x->sent_idle)
		return 0;
	x->sent_idle = op->idle;
	int rc = flush_wm(x, err);
	for (int t = 0; !rc && t < x->n; t++)
		rc = push(x, t, SL_CHAN_WATERMARK, XF_IDLE, op->idle, NULL, err);
	return rc;
}

static int xsend_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	xsend *x = (xsend *)op;
	int rc = sl_xsend_idle(op, err); /* active again before these rows */
	if (!rc && x->since && ++x->since > WM_DELAY)
		rc = flush_wm(x, err);
	if (rc)
		return rc;
	switch (x->kind) {
	case SL_XCHG_HASH:
		return send_hash(x, in, err);
	case SL_XCHG_REBALANCE: {
		int t = x->rr;
		x->rr = (x->rr + 1) % x->n;
		rc = send_all(x, t, in, err);
		return rc ? rc : flush(x, t, err);
	}
	case SL_XCHG_BROADCAST:
		for (int t = 0; t < x->n; t++)
			if ((rc = send_all(x, t, in, err)))
				return rc;
		return 0;
	default: /* GATHER, FORWARD: the one channel */
		return send_all(x, 0, in, err);
	}
}

static int xsend_watermark(sl_op *op, int64_t wm, sl_err *err)
{
	xsend *x = (xsend *)op;
	x->pending_wm = wm;
	SL_CTR_SET(op->out_wm, wm);
	if (wm == SL_WM_MAX || ++x->since > WM_DELAY)
		return flush_wm(x, err);
	return 0;
}

static int xsend_finish(sl_op *op, sl_err *err)
{
	xsend *x = (xsend *)op;
	int rc = flush_wm(x, err);
	for (int t = 0; !rc && t < x->n; t++)
		rc = push(x, t, SL_CHAN_END, 0, 0, NULL, err);
	x->ended = 1;
	return rc;
}

static void xsend_close(sl_op *op)
{
	xsend *x = (xsend *)op;
	for (int i = 0; i < x->nmine; i++)
		sl_batch_free(x->mine[i]);
	free(x->mine);
	free(x->cur);
	free(x->made);
	free(x->sent_wm);
	free(x->tgt);
	free(x->rows);
	free(x->cnt);
	free(x->inst_of);
	sl_buf_deinit(&x->key);
}

int sl_xsend_marker(sl_op *op, int64_t id, sl_err *err)
{
	xsend *x = (xsend *)op;
	if (x->ended) /* its channels ended: the consumers count them as aligned */
		return 0;
	int rc = flush_wm(x, err);
	for (int t = 0; !rc && t < x->n; t++)
		rc = push(x, t, SL_CHAN_MARKER, 0, id, NULL, err);
	return rc;
}

static const sl_op_vtab xsend_vt = {
	.name = "ExchangeSend",
	.kind = SL_OPK_NONE,
	.process = xsend_process,
	.watermark = xsend_watermark,
	.finish = xsend_finish,
	.close = xsend_close,
};

sl_op *sl_xsend_new(sl_xchg_kind kind, const int *cols, int ncols, int maxp, sl_chan **ch,
                    sl_chan **ret, int n, int pool, int batch_rows, sl_err *err)
{
	xsend *x = calloc(1, sizeof(*x));
	if (!x) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	x->op.vt = &xsend_vt;
	x->kind = kind;
	x->cols = cols;
	x->ncols = ncols;
	x->maxp = maxp;
	x->ch = ch;
	x->ret = ret;
	x->n = n;
	x->pool = pool;
	x->bcap = batch_rows > 0 ? batch_rows : 0;
	sl_buf_init(&x->key);
	x->cur = calloc((size_t)n, sizeof(*x->cur));
	x->made = calloc((size_t)n, sizeof(*x->made));
	x->mine = calloc((size_t)n * (size_t)pool, sizeof(*x->mine));
	x->sent_wm = malloc(sizeof(int64_t) * (size_t)n);
	x->cnt = calloc((size_t)n + 1, sizeof(int));
	x->inst_of = malloc(sizeof(uint16_t) * (size_t)(maxp > 0 ? maxp : 1));
	x->local = -1;
	x->kg_mask = maxp > 1 && !(maxp & (maxp - 1)) ? (uint32_t)maxp - 1 : 0;
	for (int g = 0; x->inst_of && g < maxp; g++) /* HASH: n is the consumers' parallelism */
		x->inst_of[g] = (uint16_t)sl_keygroup_instance(g, n, maxp);
	x->pending_wm = SL_WM_MIN;
	for (int t = 0; x->sent_wm && t < n; t++)
		x->sent_wm[t] = SL_WM_MIN;
	if (!x->cur || !x->made || !x->mine || !x->sent_wm || !x->cnt || !x->inst_of) {
		sl_op_free(&x->op);
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	return &x->op;
}

void sl_xsend_set_wait(sl_op *op, sl_xwait_fn fn, void *ctx)
{
	xsend *x = (xsend *)op;
	x->wait = fn;
	x->wait_ctx = ctx;
}

void sl_xsend_set_local(sl_op *op, int i)
{
	xsend *x = (xsend *)op;
	x->local = x->wait && i >= 0 && i < x->n ? i : -1;
}

uint64_t sl_xsend_wait_ns(const sl_op *op)
{
	return SL_CTR_GET(((const xsend *)op)->wait_ns);
}

/* ---- receiver --------------------------------------------------------- */

typedef struct xrecv {
	sl_op op;
	int n, next, nended;
	sl_chan **ch, **ret;
	int64_t *wm;     /* per channel; SL_WM_MAX once ended */
	uint8_t *idle;   /* per channel */
	uint8_t *ended;  /* per channel */
	int64_t *mk;     /* per channel: the last marker it delivered */
	int64_t released; /* the last marker the task forwarded */
	int all_idle;
} xrecv;

/* The minimum watermark over the channels (idle ones left out unless all
 * are idle), and the idleness of the whole receiver. */
static int recv_wm(xrecv *x, sl_err *err)
{
	int64_t min = SL_WM_MAX;
	int active = 0;
	for (int i = 0; i < x->n; i++) {
		if (x->idle[i] && x->wm[i] != SL_WM_MAX)
			continue;
		active++;
		if (x->wm[i] < min)
			min = x->wm[i];
	}
	int all_idle = active == 0;
	int rc = 0;
	if (all_idle != x->all_idle) {
		x->all_idle = all_idle;
		rc = sl_op_emit_idle(&x->op, all_idle, err);
	}
	if (!rc && !all_idle && min > x->op.out_wm)
		rc = sl_op_emit_watermark(&x->op, min, err);
	return rc;
}

/* A run-time error whose failing row is row err->row - 1 of batch b, the
 * batch this receiver emitted: appends the row's values, as its producer's
 * schema names them (the row was copied out of the scan's batch in another
 * thread, so its file and line are not known here; docs/parallel.md §10).
 * Long values are cut.  Returns rc. */
static int name_row(xrecv *x, const sl_batch *b, int rc, sl_err *err)
{
	if (!rc || err->row <= 0 || err->row_batch != b || err->row > b->nrows)
		return rc;
	int row = err->row - 1;
	err->row_batch = NULL; /* named */
	sl_buf t;
	sl_buf_init(&t);
	int ok = sl_buf_puts(&t, " (row after an exchange: ") == 0;
	for (int c = 0; ok && c < b->ncols && c < x->op.nout; c++) {
		const sl_col *col = &b->cols[c];
		size_t at = t.len;
		if (c)
			ok = sl_buf_append(&t, ", ", 2) == 0;
		const char *name = x->op.out_names ? x->op.out_names[c] : NULL;
		if (ok && name)
			ok = sl_buf_puts(&t, name) == 0 &&
			     sl_buf_append(&t, "=", 1) == 0;
		int str = col->type.id == SL_T_CHAR || col->type.id == SL_T_VARCHAR;
		int null = col->null[row] != 0;
		size_t v = t.len;
		if (ok && str && !null)
			ok = sl_buf_append(&t, "'", 1) == 0;
		if (ok)
			ok = sl_value_text(col, row, "NULL", NULL, &t) == 0;
		if (ok && t.len - v > 60) {
			t.len = v + 57;
			ok = sl_buf_append(&t, "...", 3) == 0;
		} else if (ok && str && !null)
			ok = sl_buf_append(&t, "'", 1) == 0;
		if (ok && t.len > 600) { /* leave room in the message */
			t.len = at;
			ok = sl_buf_append(&t, ", ...", 5) == 0;
			break;
		}
	}
	if (ok && sl_buf_append(&t, ")", 1) == 0)
		sl_err_append(err, "%.*s", (int)t.len, t.p);
	sl_buf_deinit(&t);
	return rc;
}

static int xrecv_pump(sl_op *op, sl_err *err)
{
	xrecv *x = (xrecv *)op;
	int rows = 0, empty = 0;
	for (int k = 0; k < 64 && empty < x->n && x->nended < x->n; ) {
		int i = x->next;
		x->next = (x->next + 1) % x->n;
		if (x->ended[i] || x->mk[i] > x->released) { /* ended, or waiting for alignment */
			empty++;
			continue;
		}
		sl_chan_msg m;
		int r = sl_chan_try_pop(x->ch[i], &m);
		if (r < 0)
			return cancelled(err);
		if (r == 0) {
			empty++;
			continue;
		}
		empty = 0;
		k++;
		int rc = 0;
		switch (m.kind) {
		case SL_CHAN_BATCH: {
			rows += sl_batch_live(m.batch);
			rc = name_row(x, m.batch, sl_op_emit(op, m.batch, err), err);
			if (m.flags & XF_VIEW) /* lent: its sender waits until it is taken */
				break;
			sl_chan_msg back = {SL_CHAN_BATCH, 0, 0, m.batch};
			if (sl_chan_try_push(x->ret[i], &back) != 1 && !rc)
				rc = cancelled(err);
			break;
		}
		case SL_CHAN_WATERMARK:
			if (m.flags & XF_IDLE)
				x->idle[i] = (uint8_t)m.value;
			else if (m.value > x->wm[i])
				x->wm[i] = m.value;
			rc = recv_wm(x, err);
			break;
		case SL_CHAN_MARKER:
			x->mk[i] = m.value; /* blocked until the task releases it */
			break;
		case SL_CHAN_END:
			x->ended[i] = 1;
			x->wm[i] = SL_WM_MAX;
			x->idle[i] = 0;
			x->nended++;
			if (x->nended < x->n)
				rc = recv_wm(x, err);
			break;
		default: /* checkpoint barriers travel as markers (prun.c) */
			rc = sl_err_set(err, SL_ERUNTIME, "internal error: unexpected message %u on an "
			                "exchange", m.kind);
		}
		if (rc)
			return rc;
	}
	if (x->nended == x->n)
		return SL_EEOF;
	return rows;
}

static void xrecv_close(sl_op *op)
{
	xrecv *x = (xrecv *)op;
	free(x->wm);
	free(x->idle);
	free(x->ended);
	free(x->mk);
}

static const sl_op_vtab xrecv_vt = {
	.name = "ExchangeReceive",
	.kind = SL_OPK_NONE,
	.pump = xrecv_pump,
	.close = xrecv_close,
};

sl_op *sl_xrecv_new(sl_chan **ch, sl_chan **ret, int n, sl_err *err)
{
	xrecv *x = calloc(1, sizeof(*x));
	if (!x) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	x->op.vt = &xrecv_vt;
	x->n = n;
	x->ch = ch;
	x->ret = ret;
	x->wm = malloc(sizeof(int64_t) * (size_t)n);
	x->idle = calloc((size_t)n, 1);
	x->ended = calloc((size_t)n, 1);
	x->mk = calloc((size_t)n, sizeof(int64_t));
	if (!x->wm || !x->idle || !x->ended || !x->mk) {
		sl_op_free(&x->op);
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	for (int i = 0; i < n; i++)
		x->wm[i] = SL_WM_MIN;
	return &x->op;
}

int sl_xrecv_aligned(const sl_op *op, int64_t n)
{
	const xrecv *x = (const xrecv *)op;
	for (int i = 0; i < x->n; i++)
		if (!x->ended[i] && x->mk[i] < n)
			return 0;
	return 1;
}

void sl_xrecv_release(sl_op *op, int64_t n)
{
	((xrecv *)op)->released = n;
}

int sl_xrecv_waitable(const sl_op *op, sl_chan **out)
{
	const xrecv *x = (const xrecv *)op;
	int k = 0;
	for (int i = 0; i < x->n; i++)
		if (!x->ended[i] && x->mk[i] <= x->released)
			out[k++] = x->ch[i];
	return k;
}

int sl_xchg_is_recv(const sl_op *op)
{
	return op->vt == &xrecv_vt;
}

int sl_xchg_is_send(const sl_op *op)
{
	return op->vt == &xsend_vt;
}
