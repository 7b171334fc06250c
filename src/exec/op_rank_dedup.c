/*
 * op_rank_dedup.c - deduplication: ROW_NUMBER() OVER (PARTITION BY k ORDER
 * BY <time attribute> ASC|DESC) with WHERE rn = 1 (Flink's Deduplicate).
 *
 * INTERFACE ROUTINES
 *   process    per row, by mode:
 *     PROC_FIRST  the first row of a key by arrival: +I; later rows dropped.
 *                 Append-only.
 *     PROC_LAST   every row replaces its key's row: +I the first time, then
 *                 -U old / +U new.  An upsert stream.
 *     ROW_FIRST   a key's candidate is its row with the smallest rowtime
 *                 (ties: the first to arrive); it is emitted (+I) once the
 *                 watermark passes its rowtime (W > ts), and the key is then
 *                 closed: later rows are dropped.  A row with ts < W_before
 *                 (its own) is late: dropped and counted.  Candidates are
 *                 emitted at the operator's watermark only, never at a
 *                 row's W_before (docs/parallel.md §4), with W_before = ts
 *                 (rule 6: the watermark reached ts + 1 us).  Append-only.
 *     ROW_LAST    a row whose rowtime is >= its key's current row's (ties:
 *                 the last to arrive wins) replaces it at once: +I, then
 *                 -U old / +U new; an older row is dropped (as Flink's
 *                 RowTimeDeduplicateFunction: no watermark involved).
 *   watermark  ROW_FIRST: emits the candidates with ts < W in rowtime order
 *              (within one rowtime, in the state's scan order), then
 *              forwards W.  Other modes forward W unchanged.
 *   snapshot   ROW_FIRST: the watermark up to which candidates were emitted.
 *
 * State (namespace 0 unless said otherwise; key = encoded PARTITION BY key):
 *   "seen"  PROC_FIRST: 8-byte slot, present = the key's row was emitted;
 *           ROW_FIRST: 16-byte slot [i64 status][i64 ts], status 1 = a
 *           candidate with rowtime ts is pending, 2 = emitted (key closed);
 *   "last"  PROC_LAST / ROW_LAST: the key's current row ([i64 ts][row],
 *           the row in rowcodec.h's row form: values exact, ROW too);
 *   "pend"  ROW_FIRST: namespace = candidate's rowtime, value = its row;
 *           the namespaces are event-time timers (sl_ns_timers,
 *           timers.h): one fires once W passes it, then is dropped.
 * Output rows go through an emitter (emit.h).
 * No key's state is freed (no state TTL yet), as in Flink without TTL.
 *
 * With out_rn the output has a trailing rn column, always 1.
 *
 * A run-time error downstream (a condition on the deduplicated rows) in an
 * output row comes back as the input row that produced it (err.h), which
 * the scan upstream names; rows fired by the watermark (ROW_FIRST) answer
 * no input row.
 */
#include "op_rank.h"
#include "emit.h"
#include "graph.h"
#include "timers.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct first_slot {
	int64_t status; /* 0 none, 1 pending, 2 emitted */
	int64_t ts;
} first_slot;

typedef struct dedup_op {
	sl_op base;
	sl_rank_plan p;
	int nin;
	sl_state_table *seen, *last, *pend;
	sl_emitter out;         /* emit.h; sources tracked (sl_emitter_track_src) */
	int cur_row;            /* the current input row (-1: rows fired by the watermark) */
	sl_col **cols;
	sl_buf key, row, old;
	int64_t fired_wm;   /* ROW_FIRST: candidates with ts < fired_wm were emitted */
	int64_t firing;     /* ROW_FIRST: rowtime of the candidates being emitted */
	sl_ns_timers tm;    /* ROW_FIRST: the namespaces of "pend" (timers.h) */
} dedup_op;

/* Emits o->out; a run-time error downstream in one of its rows comes back
 * as the input row that produced it (err.h), named by the scan upstream. */
static int flush(dedup_op *o, sl_err *err)
{
	return sl_emitter_flush(&o->out, err);
}

/* Appends the encoded row r[0..len) with kind `kind`. */
static int put_row(dedup_op *o, const void *r, uint32_t len, uint8_t kind, int64_t wm,
                   sl_err *err)
{
	int row = sl_emitter_row(&o->out, kind, wm, err);
	if (row < 0)
		return row;
	sl_emitter_set_src(&o->out, row, o->cur_row);
	if (sl_rowcodec_decode(r, len, o->out.b, o->cols, o->nin, row) < 0)
		return sl_err_set(err, SL_ESTATE, "deduplicate state: malformed row");
	if (o->p.out_rn)
		sl_col_set_i64(&o->out.b->cols[o->nin], row, 1);
	return 0;
}

/* Encodes every column of the row into o->row (after `prefix` bytes). */
static int encode_row(dedup_op *o, const sl_batch *in, int row, const void *prefix, size_t plen)
{
	sl_buf_clear(&o->row);
	if (plen && sl_buf_append(&o->row, prefix, plen))
		return SL_ENOMEM;
	return sl_rowcodec_row(in, row, &o->row) ? SL_ENOMEM : 0;
}

/* ROW_FIRST: emits the pending candidates of one rowtime. */
static int fire_entry(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                      sl_err *err)
{
	dedup_op *o = ctx;
	int rc = put_row(o, val, vlen, SL_INSERT, o->firing, err);
	if (rc)
		return rc;
	/* remember the key: its "seen" slot is marked after the scan, as a
	 * read-modify-write backend must not be written during a scan */
	if (sl_buf_append(&o->old, &klen, 4) || sl_buf_append(&o->old, key, klen))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

/* ROW_FIRST: fires rowtime ts (a namespace timer, timers.h, which drops
 * it after): emits its candidates and closes their keys. */
static int fire_time(void *ctx, int64_t ts, sl_err *err)
{
	dedup_op *o = ctx;
	sl_buf_clear(&o->old);
	o->firing = ts;
	int rc = sl_state_ns_scan(o->pend, ts, fire_entry, o, err);
	if (rc)
		return rc;
	for (size_t off = 0; off < o->old.len;) {
		uint32_t kl;
		memcpy(&kl, o->old.p + off, 4);
		first_slot *s = sl_state_upsert(o->seen, 0, o->old.p + off + 4, kl, NULL);
		if (!s)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		s->status = 2;
		off += 4 + kl;
	}
	return 0;
}

/* ROW_FIRST: emits every candidate with ts < wm (the timers up to wm - 1;
 * wm > SL_WM_MIN, as every watermark that moves). */
static int advance(dedup_op *o, int64_t wm, sl_err *err)
{
	int rc = sl_ns_timers_fire(&o->tm, wm - 1, fire_time, o, err);
	if (rc)
		return rc;
	if (wm > o->fired_wm)
		o->fired_wm = wm;
	return flush(o, err);
}

static int row_first(dedup_op *o, const sl_batch *in, int row, sl_err *err)
{
	const sl_col *tc = &in->cols[o->p.time_col];
	if (tc->null[row])
		return sl_err_set(err, SL_EINPUT, "deduplicate: NULL rowtime");
	int64_t ts = tc->v.i64[row];
	if (ts < in->wm[row] || ts < o->fired_wm) {
		sl_op_late_dropped(&o->base, in, row); /* counted, kept for the metrics */
		return 0;
	}
	/* under TTL a dropped row only reads: reads do not restart the key's clock */
	first_slot *s = o->base.state_ttl[0] > 0 ? sl_state_get(o->seen, 0, o->key.p,
	                                                        (uint32_t)o->key.len) : NULL;
	if (s && (s->status == 2 || (s->status == 1 && ts >= s->ts)))
		return 0;
	s = sl_state_upsert(o->seen, 0, o->key.p, (uint32_t)o->key.len, NULL);
	if (!s)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (s->status == 2 || (s->status == 1 && ts >= s->ts))
		return 0;
	int64_t old_ts = s->ts, had = s->status == 1;
	s->status = 1;
	s->ts = ts;
	if (had)
		sl_state_delete(o->pend, old_ts, o->key.p, (uint32_t)o->key.len);
	if (encode_row(o, in, row, NULL, 0))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	int rc = sl_state_put_var(o->pend, ts, o->key.p, (uint32_t)o->key.len, o->row.p,
	                          (uint32_t)o->row.len);
	return rc ? sl_err_set(err, rc, "deduplicate: state write failed") : 0;
}

/* PROC_LAST and ROW_LAST: replace the key's row, emit the change. */
static int keep_last(dedup_op *o, const sl_batch *in, int row, sl_err *err)
{
	int64_t ts = 0;
	if (o->p.mode == SL_RANK_DEDUP_ROW_LAST) {
		const sl_col *tc = &in->cols[o->p.time_col];
		if (tc->null[row])
			return sl_err_set(err, SL_EINPUT, "deduplicate: NULL rowtime");
		ts = tc->v.i64[row];
	}
	const void *v;
	uint32_t vlen;
	int had = sl_state_get_var(o->last, 0, o->key.p, (uint32_t)o->key.len, &v, &vlen);
	if (had) {
		int64_t old_ts;
		memcpy(&old_ts, v, 8);
		if (ts < old_ts)
			return 0; /* an older row than the key's current one */
		sl_buf_clear(&o->old);
		if (sl_buf_append(&o->old, v, vlen))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	if (encode_row(o, in, row, &ts, 8))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	int rc = sl_state_put_var(o->last, 0, o->key.p, (uint32_t)o->key.len, o->row.p,
	                          (uint32_t)o->row.len);
	if (rc)
		return sl_err_set(err, rc, "deduplicate: state write failed");
	int64_t wm = in->wm[row];
	if (had && (rc = put_row(o, o->old.p + 8, (uint32_t)o->old.len - 8, SL_UPDATE_BEFORE, wm,
	                         err)))
		return rc;
	return put_row(o, o->row.p + 8, (uint32_t)o->row.len - 8,
	               had ? SL_UPDATE_AFTER : SL_INSERT, wm, err);
}

static int dedup_row(dedup_op *o, const sl_batch *in, int row, sl_err *err)
{
	if (in->op[row] != SL_INSERT)
		return sl_err_set(err, SL_EINPUT, "deduplicate: the input must be append-only");
	sl_buf_clear(&o->key);
	if (sl_rowcodec_key(in, o->p.key_cols, o->p.nkeys, row, &o->key))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	switch (o->p.mode) {
	case SL_RANK_DEDUP_PROC_FIRST: {
		int created;
		/* under TTL a dropped row only reads: the key expires ttl after its
		 * first row (Flink's OnCreateAndWrite) */
		if (o->base.state_ttl[0] > 0 && sl_state_get(o->seen, 0, o->key.p, (uint32_t)o->key.len))
			return 0;
		if (!sl_state_upsert(o->seen, 0, o->key.p, (uint32_t)o->key.len, &created))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		if (!created)
			return 0;
		if (encode_row(o, in, row, NULL, 0))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		return put_row(o, o->row.p, (uint32_t)o->row.len, SL_INSERT, in->wm[row], err);
	}
	case SL_RANK_DEDUP_ROW_FIRST:
		return row_first(o, in, row, err);
	default:
		return keep_last(o, in, row, err);
	}
}

static int dedup_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	dedup_op *o = (dedup_op *)op;
	o->out.src_in = in;
	SL_BATCH_FOREACH(in, k, row) {
		o->cur_row = o->p.mode == SL_RANK_DEDUP_ROW_FIRST ? -1 : row;
		int rc = dedup_row(o, in, row, err);
		if (rc)
			return rc;
	}
	return flush(o, err);
}

static int dedup_watermark(sl_op *op, int64_t wm, sl_err *err)
{
	dedup_op *o = (dedup_op *)op;
	o->cur_row = -1;
	int rc = o->pend ? advance(o, wm, err) : 0;
	return rc ? rc : sl_op_emit_watermark(op, wm, err);
}

static int dedup_snapshot(sl_op *op, sl_snap_writer *w, sl_err *err)
{
	sl_snap_put_i64(w, ((dedup_op *)op)->fired_wm);
	return 0;
}

static int dedup_restore(sl_op *op, sl_snap_reader *r, sl_err *err)
{
	((dedup_op *)op)->fired_wm = sl_snap_get_i64(r);
	return sl_snap_reader_ok(r) ? 0 : sl_err_set(err, SL_ESTATE, "deduplicate state damaged");
}

static int dedup_open(sl_op *op, sl_err *err)
{
	dedup_op *o = (dedup_op *)op;
	switch (o->p.mode) {
	case SL_RANK_DEDUP_PROC_FIRST:
		o->seen = sl_op_table_open(op, "seen", 8, 0, 0, err);
		break;
	case SL_RANK_DEDUP_ROW_FIRST:
		o->seen = sl_op_table_open(op, "seen", sizeof(first_slot), 0, 0, err);
		o->pend = o->seen ? sl_state_table_open(op->state, op->uid, "pend", 0, err) : NULL;
		if (!o->pend)
			return err->code;
		sl_ns_timers_add(&o->tm, o->pend);
		break;
	default:
		o->last = sl_op_table_open(op, "last", 0, 0, 0, err);
		break;
	}
	if (!o->seen && !o->last)
		return err->code;
	return sl__rank_open_out(op, &o->out, 1, &o->cols, o->nin, &o->key, err);
}

static void dedup_close(sl_op *op)
{
	dedup_op *o = (dedup_op *)op;
	sl_emitter_deinit(&o->out);
	free(o->cols);
	sl_buf_deinit(&o->key);
	sl_buf_deinit(&o->row);
	sl_buf_deinit(&o->old);
	sl__rank_plan_free(&o->p);
}

static const sl_op_vtab dedup_vtab = {
	.name = "Deduplicate",
	.kind = SL_OPK_DEDUP,
	.flags = SL_OPF_STATE_TTL,
	.open = dedup_open,
	.process = dedup_process,
	.watermark = dedup_watermark,
	.snapshot = dedup_snapshot,
	.restore = dedup_restore,
	.close = dedup_close,
};

sl_op *sl_op_dedup_new(const sl_rank_plan *p, const sl_type *in_types, int nin, sl_err *err)
{
	dedup_op *o = calloc(1, sizeof(*o));
	if (!o || sl__rank_plan_copy(&o->p, p)) {
		free(o);
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &dedup_vtab;
	o->nin = nin;
	o->fired_wm = SL_WM_MIN;
	sl_ns_timers_init(&o->tm, 0);
	return &o->base;
}
