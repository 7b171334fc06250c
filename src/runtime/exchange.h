/*
 * exchange.h - the two ends of an exchange between chain instances of a
 * parallel job (docs/parallel.md §2): a sender operator at the end of the
 * producer's chain and a receiver operator as a source of the consumer's.
 *
 * Both are operators of their task's graph (exec/graph.h), so the chain's
 * synchronous push, watermark merging and end of input work across them
 * unchanged.  The sender copies the rows it is given (strings included)
 * into one batch per output channel and pushes full batches; a watermark
 * or END follows every row that preceded it on every channel (a
 * watermark may wait a little for partial batches to fill: exchange.c).  Batches come back from the receiver
 * through a return channel per data channel and are reused: no malloc per
 * batch in steady state.  The receiver keeps a watermark per channel (+inf
 * once it ended), emits the minimum when it grows, forwards each batch as
 * it is (rows keep their W_before) and ends when every channel ended.
 * Drain markers (SL_CHAN_MARKER) travel behind every row that preceded
 * them and are aligned at the receiver (sl_xrecv_aligned below).
 */
#ifndef SL_EXCHANGE_H
#define SL_EXCHANGE_H

#include <stdint.h>

#include "../base/err.h"
#include "../exec/op.h"
#include "../exec/pnode.h"
#include "channel.h"

/*
 * A sender over channels ch[0..n) with return channels ret[0..n) (ret[i]
 * brings back the batches sent on ch[i]; its capacity is at least
 * `pool`), distributing as `kind`: HASH by the key group of the key form
 * of columns cols[0..ncols) (maxp groups, target = the instance owning the
 * group among n), GATHER and FORWARD to ch[0], REBALANCE a batch to each
 * channel in turn, BROADCAST to all.  At most `pool` batches per channel
 * are in flight, of batch_rows rows each (0: SL_BATCH_ROWS).  Add it to
 * the graph with one input and the producer's output schema.  NULL when out of memory (err set).
 */
sl_op *sl_xsend_new(sl_xchg_kind kind, const int *cols, int ncols, int maxp, sl_chan **ch,
                    sl_chan **ret, int n, int pool, int batch_rows, sl_err *err);

/*
 * How the sender waits when a channel is full or its pool is empty:
 * fn(ctx, c, room) returns when c may have room (room = SL_XWAIT_ROOM:
 * the data channel) or a message (SL_XWAIT_MSG: the return channel), or
 * when its consumer took every message (SL_XWAIT_DRAINED: a lent batch,
 * below): 0, and the sender checks again; or -1 when the job is
 * cancelled (the sender fails with "cancelled").  Without one (the
 * default) the sender sleeps in the channel.  prun.c's is the thread's
 * help loop (docs/parallel.md §1).
 */
enum { SL_XWAIT_MSG = 0, SL_XWAIT_ROOM = 1, SL_XWAIT_DRAINED = 2 };
typedef int (*sl_xwait_fn)(void *ctx, sl_chan *c, int room);
void sl_xsend_set_wait(sl_op *op, sl_xwait_fn fn, void *ctx);

/*
 * Channel i's consumer runs on the sender's thread and is deeper than the
 * sender's task, so fn (sl_xsend_set_wait, required) can run it to the
 * end of the channel.  The sender then lends its input batch on channel i
 * instead of copying rows into a batch of its own: a view of the input
 * (the same columns, a selection of the rows for i), after which it waits
 * (SL_XWAIT_DRAINED) until the consumer has taken it, so the view is
 * processed before the sender's process() returns, within the lifetime
 * op.h gives the input (docs/parallel.md §2, "Lent batches").
 */
void sl_xsend_set_local(sl_op *op, int i);

/* Nanoseconds the sender spent waiting for a batch to come back (the
 * consumers were behind: backpressure, as a full channel). */
uint64_t sl_xsend_wait_ns(const sl_op *op);

/* Pushes every partial batch and the pending watermark (the sender keeps
 * a watermark back behind partial batches for a few input messages,
 * exchange.c), and gives the consumers the wake-ups they are owed
 * (sl_xsend_kick): called by its task before it sleeps.  0 or an error. */
int sl_xsend_flush(sl_op *op, sl_err *err);

/* Gives each channel the consumer wake-up it is owed, when its wake-ups
 * are deferred (channel.h, sl_chan_set_lazy; docs/parallel.md §12):
 * called by its task at the end of every turn.  sl_xsend_flush does it
 * too, and the sender itself before it waits for a consumer. */
void sl_xsend_kick(sl_op *op);

/* Reports the sender's idleness change to its channels (the graph set
 * op->idle: every input of the sender idle): a message each.  0 or an
 * error (cancelled). */
int sl_xsend_idle(sl_op *op, sl_err *err);

/* Pushes every partial batch and the pending watermark, then MARKER(id)
 * on every channel (a drain marker or a checkpoint barrier:
 * docs/parallel.md §5-§6).  0 or an error (cancelled). */
int sl_xsend_marker(sl_op *op, int64_t id, sl_err *err);

/*
 * A receiver of channels ch[0..n) (made with its task's wake), handing
 * each batch back on ret[i] after its consumers processed it.  A source
 * operator: its pump takes what is queued without blocking (the task
 * waits on the wake when no operator made progress) and returns SL_EEOF
 * when every channel ended.  NULL when out of memory (err set).
 */
sl_op *sl_xrecv_new(sl_chan **ch, sl_chan **ret, int n, sl_err *err);

/*
 * Marker alignment at a receiver.  A channel that delivered MARKER(n)
 * while the receiver's released marker is below n is blocked: the pump
 * takes nothing more from it.  sl_xrecv_aligned: 1 when every channel
 * delivered marker n or ended.  sl_xrecv_release: the task forwarded
 * marker n; the blocked channels flow again.  sl_xrecv_waitable: stores
 * the channels that are neither blocked nor ended into out (room for all)
 * and returns how many (what the task may sleep on).
 */
int sl_xrecv_aligned(const sl_op *op, int64_t n);
void sl_xrecv_release(sl_op *op, int64_t n);
int sl_xrecv_waitable(const sl_op *op, sl_chan **out);

/* 1 when op is a receiver or a sender (not a plan node's operator). */
int sl_xchg_is_recv(const sl_op *op);
int sl_xchg_is_send(const sl_op *op);

#endif
