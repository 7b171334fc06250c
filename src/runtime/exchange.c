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
 * (that wait is backpressure and is counted).  Rows are copied with
 * sl_batch_copy_row, strings into the batch's arena, since a producer's
 * strings may point into a source's read buffer.  A row whose W_before is
 * below the last row of its target batch flushes that batch first, so
 * W_before stays non-decreasing along every batch (batch.h) although a
 * sender mixes the rows of several splits.  HASH: the key group of the
 * row codec's key form of the input's sl_dist columns, in order
 * (docs/parallel.md §2, "The rule that makes a hash exchange correct"),
 * and the instance owning it (sl_keygroup_instance).  REBALANCE: all rows
 * of an input batch to one channel, the next batch to the next channel.
 * A watermark goes to every channel, behind every row that preceded it,
 * but not at once: flushing every partial batch at every watermark (a
 * scan sends one per batch) would halve the batches and double the
 * messages and wake-ups.  The sender keeps it pending and pushes it on a
 * channel right after that channel's next full batch, on every channel
 * after WM_DELAY more input messages, when its task has nothing more to
 * do (sl_xsend_flush, before the task sleeps), at +infinity and at the
 * end of input (finish, followed by END).  A later watermark is still a
 * correct one (it only bounds what is still to come), and lateness is
 * decided by each row's own W_before, which travels with the row, so the
 * delay changes when results come out, never which.  Idleness ('scan.watermark.idle-
 * timeout') travels as a watermark message with the XF_IDLE flag.
 *
 * Receiver.  Pops round-robin over its channels without blocking: a batch
 * is emitted as it is and handed back on the channel's return channel
 * (never full: its capacity is the pool's); a watermark sets the channel's
 * watermark; END sets it to +infinity.  The minimum over the channels that
 * are not idle (all of them when all are idle) is emitted when it grows,
 * so a channel that carries no rows still moves the consumer.  When every
 * channel ended the pump returns SL_EEOF and the graph ends the receiver
 * (+infinity watermark, finish of the chain downstream).  A cancelled
 * channel (the job failed or stopped) is an error; the task loop tells
 * cancellation from a failure of its own.
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

#define XF_IDLE 4u /* watermark message flag: value is the idle status */
#define WM_DELAY 8 /* input messages a watermark may wait behind partial batches */

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
	sl_buf key;
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
	if (r == 0) {
		uint64_t t0 = now_ns();
		r = sl_chan_pop(x->ret[t], &m);
		x->wait_ns += now_ns() - t0;
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
	return sl_chan_push(x->ch[t], &m) ? cancelled(err) : 0;
}

static int flush(xsend *x, int t, sl_err *err)
{
	sl_batch *b = x->cur[t];
	if (!b || b->nrows == 0)
		return 0;
	x->cur[t] = NULL;
	x->op.stats.rows_out += b->nrows;
	int rc = push(x, t, SL_CHAN_BATCH, 0, 0, b, err);
	if (!rc && x->pending_wm > x->sent_wm[t]) { /* the watermark behind its rows */
		x->sent_wm[t] = x->pending_wm;
		rc = push(x, t, SL_CHAN_WATERMARK, 0, x->pending_wm, NULL, err);
	}
	return rc;
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
	for (int t = 0; t < x->n; t++)
		if (x->pending_wm > x->sent_wm[t] || (x->cur[t] && x->cur[t]->nrows))
			return flush_wm(x, err);
	return 0;
}

static int append(xsend *x, int t, const sl_batch *in, int row, sl_err *err)
{
	sl_batch *b = x->cur[t];
	if (b && b->nrows && in->wm[row] < b->wm[b->nrows - 1]) {
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
	if (sl_batch_copy_row(b, in, row, in->op[row], in->wm[row]) < 0)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return b->nrows == b->cap ? flush(x, t, err) : 0;
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
		SL_BATCH_FOREACH(in, k, row) {
			x->key.len = 0;
			if (sl_rowcodec_key(in, x->cols, x->ncols, row, &x->key))
				return sl_err_set(err, SL_ENOMEM, "out of memory");
			int kg = sl_keygroup_of(x->key.p, (uint32_t)x->key.len, x->maxp);
			if ((rc = append(x, sl_keygroup_instance(kg, x->n, x->maxp), in, row, err)))
				return rc;
		}
		return 0;
	case SL_XCHG_REBALANCE: {
		int t = x->rr;
		x->rr = (x->rr + 1) % x->n;
		SL_BATCH_FOREACH(in, k, row) {
			if ((rc = append(x, t, in, row, err)))
				return rc;
		}
		return flush(x, t, err);
	}
	case SL_XCHG_BROADCAST:
		for (int t = 0; t < x->n; t++)
			SL_BATCH_FOREACH(in, k, row) {
				if ((rc = append(x, t, in, row, err)))
					return rc;
			}
		return 0;
	default: /* GATHER, FORWARD: the one channel */
		SL_BATCH_FOREACH(in, k, row) {
			if ((rc = append(x, 0, in, row, err)))
				return rc;
		}
		return 0;
	}
}

static int xsend_watermark(sl_op *op, int64_t wm, sl_err *err)
{
	xsend *x = (xsend *)op;
	x->pending_wm = wm;
	op->out_wm = wm;
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
	x->pending_wm = SL_WM_MIN;
	for (int t = 0; x->sent_wm && t < n; t++)
		x->sent_wm[t] = SL_WM_MIN;
	if (!x->cur || !x->made || !x->mine || !x->sent_wm) {
		sl_op_free(&x->op);
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	return &x->op;
}

uint64_t sl_xsend_wait_ns(const sl_op *op)
{
	return ((const xsend *)op)->wait_ns;
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
			rc = sl_op_emit(op, m.batch, err);
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
