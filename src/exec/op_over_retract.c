/*
 * op_over_retract.c - ROWS OVER aggregates over an updating input:
 *   agg(x) OVER (PARTITION BY k ORDER BY t
 *                ROWS BETWEEN n PRECEDING AND CURRENT ROW)
 * where the input is a changelog (+I, -U, +U, -D), e.g. a Top-1 per key
 * (Nexmark q6).  Flink refuses this (FLINK-19059); the answer defined here
 * is the batch one: at any moment the output holds, for each row currently
 * in the input, that row's columns and the aggregates over it and the n
 * rows before it in its partition, ordered by t (rows of one t in the
 * order they arrived).  Its final state after a bounded input is what a
 * batch engine (sqlite3's window functions) answers over the input's final
 * state, up to the order of rows of equal t.
 *
 * INTERFACE ROUTINES
 *   process    each input row changes one partition at once (no waiting
 *              for a watermark: an update can move an old row, so order by
 *              t is kept in state rather than established by time):
 *              +I / +U  inserts the row at its place (after the rows of a
 *                       smaller or equal t), emits it (+I / +U) with its
 *                       aggregates, then -U/+U for each of the n rows after
 *                       it whose frame changed;
 *              -U / -D  removes the first equal row of equal t, emits it
 *                       with its old aggregates as -U / -D, then -U/+U for
 *                       each of the n rows after it whose frame changed.
 *              A -U/-D of a row that is not in the partition is an error
 *              (the input's changelog is wrong; never silently ignored).
 *   watermark  forwarded (the output rows carry their input row's W_before;
 *              nothing here waits for time).
 *   snapshot   the arrival counter (the rows are in state).
 *
 * A following row's frame "changed" when its accumulator over the new
 * frame differs byte for byte from the one over the old frame; equal
 * accumulators give equal results, so no -U/+U pair is emitted for a row
 * whose aggregates cannot have changed (different bytes with an equal
 * result, e.g. AVG over other values of the same mean, still emit a pair:
 * redundant, never wrong).
 *
 * Cost: a change reads and rewrites its partition's state value (O(rows in
 * the partition)) and computes 2n + 1 frames: each of n + 1 folds (O(n^2),
 * 231 for q6's n = 10), or, when every aggregate is exact under
 * retraction (COUNT, SUM and AVG over integers or DECIMAL: `slide`), the
 * first so and the others from the previous one, one row out and one in
 * (O(n); floating-point sums are recomputed, so that a row's result never
 * depends on the path that computed it; q6_sluice, 200 000 events: 3,672 M
 * -> 3,517 M instructions, the point being larger n).  Fine for q6's partitions (one
 * seller's auctions), quadratic in a partition's size for huge ones.  A
 * partition's state is freed when its last row is retracted.
 *
 * State "part": namespace 0, key = encoded partition key, value = [u32 n]
 * then n entries in (t, arrival) order: [u8 t is NULL][i64 t][i64 arrival]
 * [u32 len][the row form of the whole input row].  NULL t sorts first.
 * One thread; no malloc per row (reused buffers and batches).
 */
#include "op_over.h"
#include "emit.h"
#include "graph.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

#define ENT_HDR 21 /* u8 null, i64 t, i64 arrival, u32 len */

typedef struct orx_op {
	sl_op base;
	sl_over_plan p;
	int nin;
	int *key_cols;
	sl_agg *aggs;          /* over the input columns */
	uint32_t slot_size;
	char *slots;           /* 2 * (n + 1) aligned accumulators (old, new) */
	int cap;               /* rows of the window batch: 2n + 2 */
	int slide;             /* every aggregate retracts exactly (COUNT, SUM and
	                        * AVG over integers or DECIMAL): a row's frame is
	                        * the previous row's, one row out and one in */
	sl_state_table *part;
	sl_emitter out;
	sl_batch *win;         /* decoded rows of the affected range */
	sl_col **out_cols, **win_cols;
	sl_type *types;        /* the input's column types */
	sl_buf key, enc, st, offs;
	int64_t seq;           /* arrival counter */
} orx_op;

/* ---- the partition's entries ------------------------------------------------- */

/* Fills o->offs with the offsets of the n entries of o->st; 0 or
 * SL_ESTATE. */
static int index_entries(orx_op *o, uint32_t *n_out)
{
	uint32_t n;
	sl_buf_clear(&o->offs);
	if (o->st.len < 4)
		return SL_ESTATE;
	memcpy(&n, o->st.p, 4);
	size_t off = 4;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t len;
		if (off + ENT_HDR > o->st.len)
			return SL_ESTATE;
		memcpy(&len, o->st.p + off + 17, 4);
		if (sl_buf_append(&o->offs, &off, sizeof(off)))
			return SL_ENOMEM;
		off += ENT_HDR + (size_t)len;
	}
	*n_out = n;
	return off == o->st.len ? 0 : SL_ESTATE;
}

static size_t ent_off(const orx_op *o, uint32_t i)
{
	size_t off;
	memcpy(&off, o->offs.p + (size_t)i * sizeof(off), sizeof(off));
	return off;
}

/* Order of t values (NULL first). */
static int t_cmp(int anull, int64_t a, int bnull, int64_t b)
{
	if (anull || bnull)
		return bnull - anull;
	return (a > b) - (a < b);
}

/* Decodes entries [lo, hi) of o->st (indexed) into o->win rows 0.. */
static int decode_range(orx_op *o, uint32_t lo, uint32_t hi, sl_err *err)
{
	sl_batch_reset(o->win);
	for (uint32_t i = lo; i < hi; i++) {
		const char *e = o->st.p + ent_off(o, i);
		uint32_t len;
		memcpy(&len, e + 17, 4);
		int r = sl_batch_add_row(o->win, SL_INSERT, SL_WM_MIN);
		if (sl_rowcodec_decode(e + ENT_HDR, len, o->win, o->win_cols, o->nin, r) < 0)
			return sl_err_set(err, SL_ESTATE, "OVER aggregate state: malformed row");
	}
	return 0;
}

/*
 * Computes into slot the aggregates of the frame of window row j (rows
 * max(first, j - n) .. j of o->win, where `first` is the window row of the
 * partition's first entry or 0).
 */
static int frame_acc(orx_op *o, int first, int j, void *slot, sl_err *err)
{
	memset(slot, 0, o->slot_size);
	int lo = j - (int)o->p.preceding;
	if (lo < first)
		lo = first;
	for (int k = lo; k <= j; k++)
		for (int i = 0; i < o->p.naggs; i++) {
			int rc = sl_agg_add_one(&o->aggs[i], slot, o->win, k, 1, err);
			if (rc)
				return rc;
		}
	return 0;
}

/* The frame of window row j from the frame of row j - 1 (in prev): row
 * `out` (-1: none) leaves, row j enters.  Only for o->slide, whose
 * aggregates are exact (integers, DECIMAL, counts), so the accumulator is
 * the one frame_acc computes, byte for byte: a -U always repeats the +U it
 * takes back. */
static int slide(orx_op *o, const void *prev, void *slot, int j, int out, sl_err *err)
{
	memcpy(slot, prev, o->slot_size);
	for (int i = 0; i < o->p.naggs; i++) {
		int rc = out >= 0 ? sl_agg_add_one(&o->aggs[i], slot, o->win, out, -1, err) : 0;
		if (rc || (rc = sl_agg_add_one(&o->aggs[i], slot, o->win, j, 1, err)))
			return rc;
	}
	return 0;
}

static void *slot_at(orx_op *o, int which, int i)
{
	return o->slots + ((size_t)which * (size_t)(o->p.preceding + 1) + (size_t)i) * o->slot_size;
}

/* Emits window row j with the aggregates of slot, as change kind op. */
static int emit_row(orx_op *o, int j, const void *slot, uint8_t op, int64_t wm, sl_err *err)
{
	int r = sl_emitter_row(&o->out, op, wm, err);
	if (r < 0)
		return r;
	for (int i = 0; i < o->nin; i++)
		if (sl_col_copy_value(o->out.b, o->out_cols[i], r, o->win_cols[i], j))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < o->p.naggs; i++) {
		const sl_agg *a = &o->aggs[i];
		int rc = a->vt->result(a, (const char *)slot + a->offset, o->out_cols[o->nin + i], r,
		                       err);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * The accumulators of the entries at [from, from + cnt) of the (indexed)
 * partition into slots `which`; with emit, also emits each of those rows
 * whose accumulator differs from slots `other` at the same index as -U
 * (other's) and +U (this one's).  Window rows: entries from - n on.
 */
static int frames(orx_op *o, uint32_t n, uint32_t from, uint32_t cnt, int which, int emit,
                  int64_t wm, sl_err *err)
{
	uint32_t pre = (uint32_t)o->p.preceding;
	uint32_t lo = from > pre ? from - pre : 0, hi = from + cnt;
	if (hi > n)
		hi = n;
	if (hi <= from)
		return 0;
	int rc = decode_range(o, lo, hi, err);
	for (uint32_t i = from; !rc && i < hi; i++) {
		void *s = slot_at(o, which, (int)(i - from));
		if (i > from && o->slide)
			rc = slide(o, slot_at(o, which, (int)(i - from - 1)), s, (int)(i - lo),
			           i > pre ? (int)(i - 1 - pre - lo) : -1, err);
		else
			rc = frame_acc(o, 0, (int)(i - lo), s, err);
		if (rc || !emit)
			continue;
		const void *old = slot_at(o, !which, (int)(i - from));
		if (!memcmp(s, old, o->slot_size))
			continue;
		if (!(rc = emit_row(o, (int)(i - lo), old, SL_UPDATE_BEFORE, wm, err)))
			rc = emit_row(o, (int)(i - lo), s, SL_UPDATE_AFTER, wm, err);
	}
	return rc;
}

/* ---- one change ----------------------------------------------------------------- */

/* Inserts row `row` of in (t given) into the indexed partition o->st. */
static int insert_row(orx_op *o, const sl_batch *in, int row, int tnull, int64_t t,
                      uint32_t n, sl_err *err)
{
	uint32_t pre = (uint32_t)o->p.preceding, pos = n;
	for (uint32_t i = 0; i < n; i++) { /* the first entry of a larger t */
		const char *e = o->st.p + ent_off(o, i);
		int64_t et;
		memcpy(&et, e + 1, 8);
		if (t_cmp((uint8_t)e[0], et, tnull, t) > 0) {
			pos = i;
			break;
		}
	}
	/* the n rows from pos on, before: their accumulators (slots 0) */
	int rc = frames(o, n, pos, pre, 0, 0, 0, err);
	if (rc)
		return rc;
	sl_buf_clear(&o->enc);
	uint8_t hdr[ENT_HDR];
	int64_t s = o->seq++;
	hdr[0] = (uint8_t)tnull;
	memcpy(hdr + 1, &t, 8);
	memcpy(hdr + 9, &s, 8);
	if (sl_buf_append(&o->enc, hdr, ENT_HDR) || sl_rowcodec_row(in, row, &o->enc))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	uint32_t len = (uint32_t)(o->enc.len - ENT_HDR);
	memcpy(o->enc.p + 17, &len, 4);
	size_t at = pos < n ? ent_off(o, pos) : o->st.len;
	if (sl_buf_reserve(&o->st, o->st.len + o->enc.len))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	memmove(o->st.p + at + o->enc.len, o->st.p + at, o->st.len - at);
	memcpy(o->st.p + at, o->enc.p, o->enc.len);
	o->st.len += o->enc.len;
	n++;
	memcpy(o->st.p, &n, 4);
	if ((rc = index_entries(o, &n)))
		return sl_err_set(err, rc, "OVER aggregate state: malformed partition");
	/* the new row, then the n after it: accumulators in slots 1 */
	int64_t wm = in->wm[row];
	if ((rc = frames(o, n, pos, 1, 1, 0, 0, err)))
		return rc;
	uint32_t lo = pos > pre ? pos - pre : 0;
	if ((rc = emit_row(o, (int)(pos - lo), slot_at(o, 1, 0), in->op[row], wm, err)))
		return rc;
	return frames(o, n, pos + 1, pre, 1, 1, wm, err);
}

/* Removes the entry equal to row `row` of in from the indexed partition. */
static int retract_row(orx_op *o, const sl_batch *in, int row, int tnull, int64_t t,
                       uint32_t n, sl_err *err)
{
	sl_buf_clear(&o->enc);
	if (sl_rowcodec_row(in, row, &o->enc))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	uint32_t pos = n;
	for (uint32_t i = 0; i < n && pos == n; i++) {
		const char *e = o->st.p + ent_off(o, i);
		int64_t et;
		uint32_t len;
		memcpy(&et, e + 1, 8);
		memcpy(&len, e + 17, 4);
		if (!t_cmp((uint8_t)e[0], et, tnull, t) &&
		    sl_rowcodec_equal(o->types, o->nin, e + ENT_HDR, len, o->enc.p,
		                      (uint32_t)o->enc.len))
			pos = i;
	}
	if (pos == n)
		return sl_err_set(err, SL_EINPUT, "OVER aggregate: the input retracts a row it never "
		                  "inserted (a wrong changelog upstream)");
	uint32_t pre = (uint32_t)o->p.preceding;
	int64_t wm = in->wm[row];
	/* the removed row and the n after it, before (slots 0 at 0..n) */
	int rc = frames(o, n, pos, pre + 1, 0, 0, 0, err);
	if (rc)
		return rc;
	uint32_t lo = pos > pre ? pos - pre : 0;
	if ((rc = emit_row(o, (int)(pos - lo), slot_at(o, 0, 0), in->op[row], wm, err)))
		return rc;
	/* the following rows' old accumulators move down one slot, so that
	 * slot i of both sets is the same row after the removal */
	memmove(slot_at(o, 0, 0), slot_at(o, 0, 1), (size_t)pre * o->slot_size);
	size_t at = ent_off(o, pos), end = pos + 1 < n ? ent_off(o, pos + 1) : o->st.len;
	memmove(o->st.p + at, o->st.p + end, o->st.len - end);
	o->st.len -= end - at;
	n--;
	memcpy(o->st.p, &n, 4);
	if ((rc = index_entries(o, &n)))
		return sl_err_set(err, rc, "OVER aggregate state: malformed partition");
	return frames(o, n, pos, pre, 1, 1, wm, err);
}

/* Applies row `row` of in to its partition. */
static int change(orx_op *o, const sl_batch *in, int row, sl_err *err)
{
	const sl_col *tc = &in->cols[o->p.time_col];
	int tnull = tc->null[row] != 0;
	int64_t t = tnull ? 0 : tc->v.i64[row];
	sl_buf_clear(&o->key);
	if (sl_rowcodec_key(in, o->key_cols, o->p.nkeys, row, &o->key))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	const void *v;
	uint32_t vlen, n = 0, z = 0;
	sl_buf_clear(&o->st);
	int rc = sl_state_get_var(o->part, 0, o->key.p, (uint32_t)o->key.len, &v, &vlen)
	             ? sl_buf_append(&o->st, v, vlen)
	             : sl_buf_append(&o->st, &z, 4);
	if (rc)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if ((rc = index_entries(o, &n)))
		return sl_err_set(err, rc, "OVER aggregate state: malformed partition");
	uint8_t k = in->op[row];
	rc = k == SL_INSERT || k == SL_UPDATE_AFTER ? insert_row(o, in, row, tnull, t, n, err)
	                                            : retract_row(o, in, row, tnull, t, n, err);
	if (rc)
		return rc;
	memcpy(&n, o->st.p, 4);
	if (!n) {
		sl_state_delete(o->part, 0, o->key.p, (uint32_t)o->key.len);
		return 0;
	}
	if ((rc = sl_state_put_var(o->part, 0, o->key.p, (uint32_t)o->key.len, o->st.p,
	                           (uint32_t)o->st.len)))
		return sl_err_set(err, rc, "OVER aggregate: state write failed");
	return 0;
}

/* ---- method table -------------------------------------------------------------- */

static int orx_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	orx_op *o = (orx_op *)op;
	SL_BATCH_FOREACH(in, k, row) {
		int rc = change(o, in, row, err);
		if (rc)
			return rc;
	}
	return sl_emitter_flush(&o->out, err);
}

static int orx_watermark(sl_op *op, int64_t wm, sl_err *err)
{
	return sl_op_emit_watermark(op, wm, err);
}

static int orx_snapshot(sl_op *op, sl_snap_writer *w, sl_err *err)
{
	sl_snap_put_i64(w, ((orx_op *)op)->seq);
	return 0;
}

static int orx_restore(sl_op *op, sl_snap_reader *r, sl_err *err)
{
	((orx_op *)op)->seq = sl_snap_get_i64(r);
	return sl_snap_reader_ok(r) ? 0 : sl_err_set(err, SL_ESTATE, "OVER aggregate state damaged");
}

static int orx_open(sl_op *op, sl_err *err)
{
	orx_op *o = (orx_op *)op;
	if (!(o->part = sl_state_table_open(op->state, op->uid, "part", 0, err)))
		return err->code;
	if (sl_emitter_init(&o->out, op, 0, err))
		return err->code;
	o->win = sl_batch_new(o->nin, op->out_types, o->cap);
	o->slots = aligned_alloc(16, (size_t)o->slot_size * 2 * (size_t)(o->p.preceding + 1));
	o->out_cols = calloc((size_t)op->nout + 1, sizeof(sl_col *));
	o->win_cols = calloc((size_t)o->nin + 1, sizeof(sl_col *));
	o->types = calloc((size_t)o->nin + 1, sizeof(sl_type));
	if (!o->win || !o->slots || !o->out_cols || !o->win_cols || !o->types)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	memset(o->slots, 0, (size_t)o->slot_size * 2 * (size_t)(o->p.preceding + 1));
	for (int i = 0; i < op->nout; i++)
		o->out_cols[i] = &o->out.b->cols[i];
	for (int i = 0; i < o->nin; i++) {
		o->win_cols[i] = &o->win->cols[i];
		o->types[i] = op->out_types[i];
	}
	/* an empty PARTITION BY encodes to 0 bytes: keep key.p non-NULL */
	if (sl_buf_reserve(&o->key, 64))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

static void orx_close(sl_op *op)
{
	orx_op *o = (orx_op *)op;
	sl_emitter_deinit(&o->out);
	sl_batch_free(o->win);
	free(o->slots);
	free(o->out_cols);
	free(o->win_cols);
	free(o->types);
	free(o->key_cols);
	free(o->aggs);
	sl_buf_deinit(&o->key);
	sl_buf_deinit(&o->enc);
	sl_buf_deinit(&o->st);
	sl_buf_deinit(&o->offs);
}

static const sl_op_vtab orx_vtab = {
	.name = "OverAggregate",
	.kind = SL_OPK_OVER_AGG,
	.open = orx_open,
	.process = orx_process,
	.watermark = orx_watermark,
	.snapshot = orx_snapshot,
	.restore = orx_restore,
	.close = orx_close,
};

sl_op *sl__op_over_retract_new(const sl_over_plan *p, const sl_type *in_types, int nin,
                               sl_err *err)
{
	if (!p->rows || p->preceding < 0 || p->preceding > SL_OVER_RETRACT_MAX_PRECEDING) {
		sl_err_set(err, SL_EPLAN, "OVER over an updating input: only ROWS BETWEEN n "
		           "PRECEDING AND CURRENT ROW frames");
		return NULL;
	}
	orx_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &orx_vtab;
	o->p = *p;
	o->nin = nin;
	o->key_cols = calloc((size_t)p->nkeys + 1, sizeof(int));
	o->aggs = calloc((size_t)p->naggs + 1, sizeof(sl_agg));
	if (!o->key_cols || !o->aggs) {
		sl_op_free(&o->base); /* calls its close */
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	if (p->nkeys)
		memcpy(o->key_cols, p->key_cols, sizeof(int) * (size_t)p->nkeys);
	o->p.key_cols = o->key_cols;
	uint32_t off = 0;
	for (int i = 0; i < p->naggs; i++) {
		o->aggs[i] = p->aggs[i];
		o->aggs[i].offset = off;
		off += o->aggs[i].vt->acc_size;
	}
	o->slide = 1;
	for (int i = 0; i < p->naggs; i++) {
		const sl_agg *a = &o->aggs[i];
		int k = sl_agg_fast_kind(a);
		o->slide &= !a->distinct && !a->retract && !a->vt->add_row &&
		            (!strcmp(a->vt->name, "COUNT") ||
		             ((!strcmp(a->vt->name, "SUM") || !strcmp(a->vt->name, "AVG")) &&
		              sl_type_phys(a->arg_type) != SL_PHYS_F64)) &&
		            k != SL_AGGK_SUM_F64;
	}
	o->p.aggs = o->aggs;
	o->slot_size = off ? (off + 15) / 16 * 16 : 16;
	o->cap = 2 * (int)p->preceding + 2;
	(void)in_types;
	return &o->base;
}
