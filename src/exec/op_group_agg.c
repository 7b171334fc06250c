/*
 * op_group_agg.c - GROUP BY without a window: an updating aggregate.
 *
 * INTERFACE ROUTINES
 *   process    folds each row into its group's accumulator and emits the
 *              change of the group's result: +I for a new group, -U old /
 *              +U new for a changed one, -D when the group's row count
 *              falls to zero (its state is then freed)
 *   watermark  forwarded (the output carries no time attribute); the
 *              +infinity one after the pending mini-batch bundle
 *   proctime, pre_barrier, finish
 *              emit the pending mini-batch bundle (its latency passed, a
 *              checkpoint barrier, end of input)
 *
 * A run-time error downstream (a HAVING condition) in an output row comes
 * back as the input row whose change produced it (err.h), so the scan
 * upstream names its source position (with mini-batch, the rows of a
 * flush answer no single input row and are not named).
 *
 * Input may itself be updating: +I/+U add, -U/-D retract (COUNT, SUM and
 * AVG in their accumulators, MIN and MAX through the group's values kept
 * in table "values", COUNT(DISTINCT) through table "distinct"; the
 * planner refuses FIRST_VALUE and LAST_VALUE).  Like Flink's
 * GroupAggFunction, an update whose new result equals the old one emits
 * nothing.  Every input row's effect is emitted (no folding) unless
 * mini-batch is on, in which case each key emits at most one change per
 * bundle (-U of the result before the bundle, +U after).
 *
 * Mini-batch.  A bundle is the rows folded since the last emission; the
 * keys it touched and their results before it are kept outside the state
 * (`pre`, `touched`), so it is emitted before every checkpoint barrier
 * (pre_barrier; at parallelism 1 through sl_graph_pre_barrier) and never
 * snapshotted.  Without 'table.exec.mini-batch.allow-latency' a bundle is
 * an input batch; with it (Flink's MiniBatch, per instance) it spans
 * input batches until it holds 'table.exec.mini-batch.size' rows or the
 * latency has passed on the job's processing-time clock.  `pre` holding
 * SL_BATCH_ROWS keys also ends a bundle, possibly in the middle of an
 * input batch; the emission reuses o->key, so the next row's key is
 * encoded again (tests/slt/group_agg.slt has the case where it was not).
 *
 * State: table "acc", namespace 0, key = encoded GROUP BY key, value =
 * [row count, emitted flag][accumulators]; table "distinct" for DISTINCT
 * aggregates: the DISTINCT aggregates over one argument column share
 * their entries (as Flink's DistinctInfo: one MapView per distinct field,
 * a count per filter), key = group key + the index of the first
 * aggregate over that argument + value -> per aggregate over that
 * argument (in aggregate order) the count of the rows with that value
 * that pass its FILTER, the value size 8 x the most aggregates sharing an
 * argument; one lookup per argument and row instead of one per aggregate
 * (Nexmark q15/q16: 8 DISTINCT counts over 2 columns).  With no argument
 * shared this is the layout of before (an entry per aggregate: key byte
 * = its index, one count), so older snapshots restore; one of an operator
 * that shares an argument held 8-byte values and is refused by the
 * state's value-size check (state.h), never read wrongly.  Table "values" for MIN/MAX
 * over updating input: key = group key + aggregate index -> the sorted
 * values with their counts (agg.h, sl_agg_vals_add).
 *
 * Runs.  Consecutive rows of an input batch with the same key values (a
 * hot key: Nexmark q15 has one group per day) make a run: the key is
 * encoded and its group looked up once per run, not per row (the slot
 * pointer stays valid while no other call reaches "acc", state.h), and
 * the -U row of a change is a copy of the group's previous result row
 * when that row is still in the output batch (no result computed twice).
 * Output rows are appended without clearing and every column set (the
 * aggregates' I64/F64 columns zeroed inline before their result).  Why:
 * with these, Nexmark q15's instructions over 200 000 events fell from
 * 950 M to the figure in docs/nexmark.md section 20 (callgrind).
 */
#include "emit.h"
#include "graph.h"
#include "ops.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct slot_hdr {
	int64_t rows;
	int32_t emitted;
	int32_t batch_seen; /* mini-batch: the key's pre-batch result is in `pre` */
} slot_hdr;

typedef struct group_op {
	sl_op base;
	sl_group_agg_plan p;
	int *key_cols;
	sl_agg *aggs;
	uint32_t slot_size;
	sl_state_table *acc, *dist;
	/* DISTINCT aggregates grouped by argument column (the "distinct"
	 * entries): group g has dg_n[g] members, the aggregates
	 * dg_mem[g][0..dg_n[g]) in aggregate order */
	int ndg, dg_max;
	int *dg_col, *dg_n, **dg_mem;
	uint8_t *dg_i64;        /* per group: its argument's physical kind is I64 */
	uint8_t *dfirst;        /* per aggregate, per row: fold it (a value new
	                         * to it, or its last row gone) */
	sl_state_table *strs;   /* string MIN/MAX/FIRST/LAST values (agg.h) */
	sl_state_table *vals;   /* MIN/MAX over updating input (agg.h) */
	int has_str, has_retract;
	uint8_t *is_str;        /* per aggregate: sl_agg_is_str (asked once: it
	                         * was 5% of Nexmark q16 asked per row) */
	sl_buf vbuf;            /* work buffer of sl_agg_vals_add */
	sl_buf skey;
	sl_emitter out;         /* emit.h; sources tracked (sl_emitter_track_src) */
	int cur_row;            /* the input row being folded (-1: mini-batch flush) */
	sl_buf key, dkey;
	uint8_t *isd;           /* per aggregate: DISTINCT over an argument */
	uint8_t *iscount;       /* per aggregate: COUNT, folded and read inline
	                         * (sl_agg_is_count) */
	uint8_t *ophys;         /* per output column: its sl_phys */
	uint8_t kphys[64];      /* per key column of the input: its sl_phys, F64
	                         * as I64 (key_eq compares bit for bit) */
	uint8_t *fixed;         /* per aggregate: its output column is I64/F64
	                         * (cleared inline by build_row) */
	/* The run of rows with one key (see "Runs" in the header): the previous
	 * row of the input batch (-1: none), the slot of its group in "acc"
	 * when no call on "acc" came since (NULL: look it up), and the row of
	 * out.b holding the group's current result (-1: none there). */
	int run_prev;
	void *run_slot;
	int run_out;
	/* the partitioning key of "distinct", "strings", "values" (keys: the
	 * GROUP BY key, then more; docs/state.md "Key groups") */
	sl_state_pkey_cols_ctx pkc;
	/* mini-batch bookkeeping: keys touched in the current batch */
	sl_batch *pre;       /* their results before the batch (-U candidates) */
	sl_buf touched;      /* concatenated (u32 len, key) of touched keys */
	int64_t mb_rows;     /* rows folded into the pending bundle */
	int64_t mb_t0;       /* processing time of its first row */
	int64_t mb_wm;       /* W_before of its last row */
} group_op;

/* Copies the key columns of row `from` of b to row `to` (the same
 * group's -U row to its +U row: no decoding); 0 when a key column is of a
 * nested type (the caller decodes). */
static int copy_key(group_op *o, sl_batch *b, int from, int to)
{
	for (int i = 0; i < o->p.nkeys; i++) {
		sl_col *c = &b->cols[i];
		c->null[to] = c->null[from];
		switch ((sl_phys)o->ophys[i]) {
		case SL_PHYS_I64:
		case SL_PHYS_F64: c->v.i64[to] = c->v.i64[from]; break;
		case SL_PHYS_I128: c->v.i128[to] = c->v.i128[from]; break;
		case SL_PHYS_STR: c->v.str[to] = c->v.str[from]; break; /* bytes in b's arena */
		default: return 0;
		}
	}
	return 1;
}

/* Appends a copy of row `from` of b (the group's previous result) with
 * kind op: strings share the bytes in b's arena.  The row or SL_ENOMEM. */
static int copy_out_row(const group_op *o, sl_batch *b, int from, uint8_t op, int64_t wm)
{
	int to = sl_batch_add_row_nc(b, op, wm);
	for (int i = 0; i < b->ncols; i++) {
		sl_col *c = &b->cols[i];
		c->null[to] = c->null[from];
		switch ((sl_phys)o->ophys[i]) {
		case SL_PHYS_I64:
		case SL_PHYS_F64: c->v.i64[to] = c->v.i64[from]; break;
		case SL_PHYS_I128: c->v.i128[to] = c->v.i128[from]; break;
		case SL_PHYS_STR: c->v.str[to] = c->v.str[from]; break;
		default:
			sl_col_clear(c, to);
			if (sl_col_copy_value(b, c, to, c, from))
				return SL_ENOMEM;
		}
	}
	return to;
}

/* Whether column c holds the same value in rows r1 and r2 (two NULLs
 * are the same), compared as physical kind ph says: F64 by value (-0.0
 * equals 0.0, NaN equals nothing; an F64 column passed as I64 compares
 * bit for bit); 0 for a nested kind. */
static inline int col_eq(const sl_col *c, sl_phys ph, int r1, int r2)
{
	if (c->null[r1] != c->null[r2])
		return 0;
	if (c->null[r1])
		return 1;
	switch (ph) {
	case SL_PHYS_I64: return c->v.i64[r1] == c->v.i64[r2];
	case SL_PHYS_F64: return c->v.f64[r1] == c->v.f64[r2];
	case SL_PHYS_I128: return c->v.i128[r1] == c->v.i128[r2];
	case SL_PHYS_STR:
		return c->v.str[r1].len == c->v.str[r2].len &&
		       !memcmp(c->v.str[r1].ptr, c->v.str[r2].ptr, (size_t)c->v.str[r1].len);
	default: return 0;
	}
}

/* Whether rows r1 and r2 of in have the same key values, bit for bit (so
 * the same encoded key: kphys holds F64 as I64); 0 for a key column of a
 * nested type. */
static int key_eq(const group_op *o, const sl_batch *in, int r1, int r2)
{
	for (int i = 0; i < o->p.nkeys; i++)
		if (!col_eq(&in->cols[o->key_cols[i]], (sl_phys)o->kphys[i], r1, r2))
			return 0;
	return 1;
}

/* Appends the result row of (key, slot) to b; its key columns copied from
 * row key_row of b when >= 0 (the -U row of the same key), else decoded. */
static int build_row(group_op *o, sl_batch *b, const void *slot, uint8_t op, int64_t wm,
                     int key_row, sl_err *err)
{
	/* every column is set below: the key whole, each aggregate's column
	 * cleared (NULL, zero) before its result is written */
	int row = sl_batch_add_row_nc(b, op, wm);
	if (b == o->out.b)
		sl_emitter_set_src(&o->out, row, o->cur_row);
	if (key_row < 0 || !copy_key(o, b, key_row, row)) {
		sl_col *kc[64];
		for (int i = 0; i < o->p.nkeys; i++)
			kc[i] = &b->cols[i];
		if (sl_rowcodec_decode(o->key.p, (uint32_t)o->key.len, b, kc, o->p.nkeys, row) < 0)
			return sl_err_set(err, SL_ESTATE, "group state: malformed key");
	}
	for (int i = 0; i < o->p.naggs; i++) {
		sl_col *c = &b->cols[o->p.nkeys + i];
		if (o->iscount[i]) {
			c->null[row] = 0;
			c->v.i64[row] = ((const sl_acc_count *)((const char *)slot + o->aggs[i].offset))->n;
			continue;
		}
		if (o->fixed[i]) {
			c->null[row] = 1;
			c->v.i64[row] = 0;
		} else {
			sl_col_clear(c, row);
		}
		int rc = o->is_str[i]
		       ? sl_agg_str_result(&o->aggs[i], i, o->strs, 0, o->key.p, o->key.len, &o->skey, b,
		                           &b->cols[o->p.nkeys + i], row)
		       : o->aggs[i].vt->result(&o->aggs[i], (const char *)slot + o->aggs[i].offset,
		                               &b->cols[o->p.nkeys + i], row, err);
		if (rc)
			return rc == SL_ENOMEM ? sl_err_set(err, rc, "out of memory") : rc;
	}
	return row;
}

/* Frees a group's string aggregate values (the group disappeared). */
static void drop_strs(group_op *o)
{
	for (int i = 0; o->has_str && i < o->p.naggs; i++)
		if (o->is_str[i])
			sl_agg_str_delete(i, o->strs, 0, o->key.p, o->key.len, &o->skey);
	for (int i = 0; o->has_retract && i < o->p.naggs; i++)
		if (o->aggs[i].retract)
			sl_agg_str_delete(i, o->vals, 0, o->key.p, o->key.len, &o->skey);
}

/* Whether rows r1 and r2 of b are equal in columns from.. (the key
 * columns are skipped when one row's key is a copy of the other's). */
static int rows_equal(const group_op *o, const sl_batch *b, int from, int r1, int r2)
{
	for (int i = from; i < b->ncols; i++)
		if (!col_eq(&b->cols[i], (sl_phys)o->ophys[i], r1, r2))
			return 0;
	return 1;
}

/* o->dkey = the "distinct" key of DISTINCT group g for row `row` (its
 * argument column c): the group's key, the index of the group's first
 * aggregate (as before sharing: see the header), the value encoded as
 * sl_rowcodec_key does.  A non-NULL 64-bit integer is written inline
 * ([0][8 bytes], rowcodec.c's enc_col): the call and the buffer's checks
 * were ~90 instructions of each of Nexmark q15's two DISTINCT columns a
 * row (callgrind).  0 or SL_ENOMEM. */
static int dkey_build(group_op *o, int g, const sl_col *c, const sl_batch *in, int row)
{
	size_t kl = o->key.len;
	o->dkey.len = 0;
	if (sl_buf_reserve(&o->dkey, kl + 10))
		return SL_ENOMEM;
	char *d = o->dkey.p;
	memcpy(d, o->key.p, kl);
	d[kl] = (char)o->dg_mem[g][0];
	if (o->dg_i64[g] && !c->null[row]) {
		d[kl + 1] = 0;
		memcpy(d + kl + 2, &c->v.i64[row], 8);
		o->dkey.len = kl + 10;
		return 0;
	}
	o->dkey.len = kl + 1;
	return sl_rowcodec_key(in, &o->dg_col[g], 1, row, &o->dkey);
}

/* The DISTINCT counts of row `row` (sign: +1 add, -1 retract): sets
 * o->dfirst[i] for every DISTINCT aggregate i to whether the row's value
 * is new to it (its first row that passes its FILTER) or gone from it
 * (its last such row retracted), i.e. whether i folds the row. */
static int fold_distinct(group_op *o, const sl_batch *in, int row, int sign, sl_err *err)
{
	for (int g = 0; g < o->ndg; g++) {
		const int *mem = o->dg_mem[g];
		int n = o->dg_n[g], pass = 0;
		const sl_col *c = &in->cols[o->dg_col[g]];
		for (int m = 0; m < n; m++) {
			const sl_agg *a = &o->aggs[mem[m]];
			/* a row that fails FILTER must not count the value as seen:
			 * its next row that passes would be taken for a repeat */
			int ok = !c->null[row] || sl_agg_keeps_nulls(a); /* ARRAY_AGG keeps NULL */
			if (ok && a->filter_col >= 0) {
				const sl_col *f = &in->cols[a->filter_col];
				ok = !f->null[row] && f->v.i64[row];
			}
			o->dfirst[mem[m]] = (uint8_t)ok; /* passes; "first" decided below */
			pass |= ok;
		}
		if (!pass)
			continue;
		if (dkey_build(o, g, c, in, row))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		int64_t *cnt = sl_state_upsert(o->dist, 0, o->dkey.p, (uint32_t)o->dkey.len, NULL);
		if (!cnt)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		int live = 0;
		for (int m = 0; m < n; m++) {
			if (o->dfirst[mem[m]]) {
				cnt[m] += sign;
				o->dfirst[mem[m]] = sign > 0 ? cnt[m] == 1 : cnt[m] == 0;
				if (cnt[m] < 0) /* a retraction of a value never counted */
					cnt[m] = 0;
			}
			live |= cnt[m] > 0;
		}
		if (!live)
			sl_state_delete(o->dist, 0, o->dkey.p, (uint32_t)o->dkey.len);
	}
	return 0;
}

static int fold(group_op *o, void *slot, const sl_batch *in, int row, int sign, sl_err *err)
{
	((slot_hdr *)slot)->rows += sign;
	int rc;
	if (o->ndg && (rc = fold_distinct(o, in, row, sign, err)))
		return rc;
	for (int i = 0; i < o->p.naggs; i++) {
		const sl_agg *a = &o->aggs[i];
		if (o->isd[i] && !o->dfirst[i])
			continue;
		if (o->iscount[i]) {
			if (a->filter_col >= 0) {
				const sl_col *f = &in->cols[a->filter_col];
				if (f->null[row] || !f->v.i64[row])
					continue;
			}
			if (a->arg_col < 0 || !in->cols[a->arg_col].null[row])
				((sl_acc_count *)((char *)slot + a->offset))->n += sign;
			continue;
		}
		rc = a->retract
		       ? sl_agg_vals_add(a, i, o->vals, o->strs, 0, o->key.p, o->key.len, slot, in, row,
		                         sign, &o->skey, &o->vbuf, err)
		       : o->is_str[i]
		       ? sl_agg_str_add(a, i, o->strs, 0, o->key.p, o->key.len, in, row, &o->skey, err)
		       : sl_agg_add_one(a, slot, in, row, sign, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Emits the change of one group for one input row (no mini-batch); the
 * group's key is in o->key, its slot in o->run_slot when still valid. */
static int update_group(group_op *o, const sl_batch *in, int row, sl_err *err)
{
	int sign = (in->op[row] == SL_INSERT || in->op[row] == SL_UPDATE_AFTER) ? 1 : -1;
	int64_t wm = in->wm[row];
	void *slot = o->run_slot;
	if (!slot && !(slot = sl_state_upsert(o->acc, 0, o->key.p, (uint32_t)o->key.len, NULL)))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	o->run_slot = slot;
	slot_hdr *h = slot;
	if (sign < 0 && h->rows <= 0) {
		/* retraction of a group that does not exist (e.g. after TTL): ignore */
		sl_state_delete(o->acc, 0, o->key.p, (uint32_t)o->key.len);
		o->run_slot = NULL;
		return 0;
	}
	/* room for the -U/+U pair, so it never straddles two batches */
	int rc = sl_emitter_reserve(&o->out, 2, err), old = -1;
	if (rc)
		return rc;
	sl_batch *b = o->out.b;
	if (o->run_out >= b->nrows) /* the batch went downstream */
		o->run_out = -1;
	if (h->emitted) {
		/* the result before this row: the group's last result row, or
		 * computed from the slot when that row is not in b */
		if (o->run_out >= 0) {
			if ((old = copy_out_row(o, b, o->run_out, SL_UPDATE_BEFORE, wm)) < 0)
				return sl_err_set(err, SL_ENOMEM, "out of memory");
			sl_emitter_set_src(&o->out, old, o->cur_row);
		} else if ((old = build_row(o, b, slot, SL_UPDATE_BEFORE, wm, -1, err)) < 0) {
			return old;
		}
	}
	/* fold touches the other tables only, so slot stays valid (state.h:
	 * until the next call on the same table) */
	if ((rc = fold(o, slot, in, row, sign, err)))
		return rc;
	if (h->rows <= 0) {
		if (old >= 0)
			b->op[old] = SL_DELETE;
		sl_state_delete(o->acc, 0, o->key.p, (uint32_t)o->key.len);
		drop_strs(o);
		o->run_slot = NULL;
		o->run_out = -1;
		return 0;
	}
	int nr = build_row(o, b, slot, old >= 0 ? SL_UPDATE_AFTER : SL_INSERT, wm, old, err);
	if (nr < 0)
		return nr;
	if (old >= 0 && rows_equal(o, b, o->p.nkeys, old, nr))
		b->nrows -= 2; /* unchanged result: emit nothing (run_out still holds it) */
	else
		o->run_out = nr;
	h->emitted = 1;
	return 0;
}

/* Mini-batch: the slot of the group of o->key, its result before the
 * bundle kept in `pre` at its first row of the bundle (the caller made
 * room there).  NULL: out of memory (err set). */
static void *mb_touch(group_op *o, int64_t wm, sl_err *err)
{
	void *slot = sl_state_upsert(o->acc, 0, o->key.p, (uint32_t)o->key.len, NULL);
	if (!slot) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	slot_hdr *h = slot;
	if (h->batch_seen)
		return slot;
	h->batch_seen = 1;
	uint32_t len = (uint32_t)o->key.len;
	sl_buf_append(&o->touched, &len, 4);
	sl_buf_append(&o->touched, o->key.p, len);
	int r = sl_batch_add_row(o->pre, SL_UPDATE_BEFORE, wm);
	if (h->emitted) {
		sl_col *kc[64];
		for (int i = 0; i < o->p.nkeys; i++)
			kc[i] = &o->pre->cols[i];
		sl_rowcodec_decode(o->key.p, len, o->pre, kc, o->p.nkeys, r);
		for (int i = 0; i < o->p.naggs; i++) {
			sl_col *oc = &o->pre->cols[o->p.nkeys + i];
			if (o->is_str[i])
				sl_agg_str_result(&o->aggs[i], i, o->strs, 0, o->key.p, len, &o->skey, o->pre,
				                  oc, r);
			else
				o->aggs[i].vt->result(&o->aggs[i], (const char *)slot + o->aggs[i].offset, oc,
				                      r, err);
		}
	} else {
		o->pre->op[r] = 0xff; /* nothing emitted before */
	}
	return slot;
}

/* The bundle must be emitted before another row joins it: `pre` is full
 * or the bundle holds 'table.exec.mini-batch.size' rows. */
static int mb_full(const group_op *o)
{
	return o->pre->nrows == o->pre->cap || (o->p.mb_size > 0 && o->mb_rows >= o->p.mb_size);
}

/* The job's processing-time clock (0 without a graph: unit tests). */
static int64_t mb_now(const group_op *o)
{
	return o->base.graph ? o->base.graph->ectx.proctime : 0;
}

/* 'table.exec.mini-batch.allow-latency' has passed since the bundle's
 * first row. */
static int mb_due(const group_op *o, int64_t now)
{
	return o->p.mb_latency > 0 && o->mb_rows > 0 && now - o->mb_t0 >= o->p.mb_latency;
}

/* Emits the bundle: per touched key -U of its result before the bundle
 * and +U after (+I for a new group, -D for one gone, nothing when
 * unchanged), with W_before that of the bundle's last row.  Uses o->key
 * (the caller encodes the next row's key again) and "acc" (a run's slot is
 * stale). */
static int mb_flush(group_op *o, sl_err *err)
{
	const char *p = o->touched.p, *end = p + o->touched.len;
	int64_t wm = o->mb_wm;
	int k = 0, rc;
	o->run_prev = -1;
	o->run_slot = NULL;
	while (p < end) {
		uint32_t len;
		memcpy(&len, p, 4);
		p += 4;
		sl_buf_clear(&o->key);
		sl_buf_append(&o->key, p, len);
		p += len;
		void *slot = sl_state_get(o->acc, 0, o->key.p, len);
		slot_hdr *h = slot;
		int had = o->pre->op[k] != 0xff;
		if ((rc = sl_emitter_reserve(&o->out, 2, err)))
			return rc;
		sl_batch *b = o->out.b;
		int old = -1;
		if (had) {
			old = sl_batch_copy_row(b, o->pre, k, SL_UPDATE_BEFORE, wm);
			if (old < 0)
				return sl_err_set(err, old, "out of memory");
			sl_emitter_set_src(&o->out, old, -1);
		}
		k++;
		if (!slot || h->rows <= 0) {
			if (old >= 0)
				b->op[old] = SL_DELETE;
			if (slot) {
				sl_state_delete(o->acc, 0, o->key.p, len);
				drop_strs(o);
			}
		} else {
			h->batch_seen = 0;
			int nr = build_row(o, b, slot, had ? SL_UPDATE_AFTER : SL_INSERT, wm, old, err);
			if (nr < 0)
				return nr;
			if (old >= 0 && rows_equal(o, b, o->p.nkeys, old, nr))
				b->nrows -= 2;
			h->emitted = 1;
		}
	}
	sl_buf_clear(&o->touched);
	sl_batch_reset(o->pre);
	o->mb_rows = 0;
	return 0;
}

/* Mini-batch: folds row `row` (key in o->key) into its group's slot. */
static int mb_fold(group_op *o, const sl_batch *in, int row, sl_err *err)
{
	void *slot = o->run_slot;
	if (!slot && !(slot = o->run_slot = mb_touch(o, in->wm[row], err)))
		return err->code;
	if (o->mb_rows++ == 0)
		o->mb_t0 = mb_now(o);
	o->mb_wm = in->wm[row];
	int sign = (in->op[row] == SL_INSERT || in->op[row] == SL_UPDATE_AFTER) ? 1 : -1;
	return fold(o, slot, in, row, sign, err);
}

static int group_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	group_op *o = (group_op *)op;
	int rc;
	o->out.src_in = in;
	o->run_prev = -1;
	o->run_slot = NULL;
	o->run_out = -1;
	SL_BATCH_FOREACH(in, k, row) {
		/* a bundle emitted in the middle of the batch: mb_flush used
		 * o->key, so this row's key is encoded again (it emitted another
		 * key's changes when it was not) */
		if (o->p.mini_batch && mb_full(o) && (rc = mb_flush(o, err)))
			return rc;
		o->cur_row = o->p.mini_batch ? -1 : row;
		if (o->run_prev < 0 || !key_eq(o, in, o->run_prev, row)) {
			/* a new run: encode its key; its slot and result row unknown */
			sl_buf_clear(&o->key);
			if (sl_rowcodec_key(in, o->key_cols, o->p.nkeys, row, &o->key))
				return sl_err_set(err, SL_ENOMEM, "out of memory");
			o->run_slot = NULL;
			o->run_out = -1;
		}
		o->run_prev = row;
		rc = o->p.mini_batch ? mb_fold(o, in, row, err) : update_group(o, in, row, err);
		if (rc)
			return rc;
	}
	o->cur_row = -1;
	/* a bundle per input batch, unless an allowed latency keeps it open */
	if (o->p.mini_batch && o->touched.len &&
	    (!o->p.mb_latency || mb_full(o) || mb_due(o, mb_now(o))) && (rc = mb_flush(o, err)))
		return rc;
	return sl_emitter_flush(&o->out, err);
}

/* Emits a pending bundle now (a checkpoint barrier, end of input). */
static int group_flush_bundle(sl_op *op, sl_err *err)
{
	group_op *o = (group_op *)op;
	int rc = 0;
	if (o->p.mini_batch && o->touched.len)
		rc = mb_flush(o, err);
	return rc ? rc : sl_emitter_flush(&o->out, err);
}

/* The processing-time clock moved: emit the bundle when its latency has
 * passed (as Flink's mini-batch timer), with no input needed. */
static int group_proctime(sl_op *op, int64_t now, sl_err *err)
{
	group_op *o = (group_op *)op;
	return mb_due(o, now) ? group_flush_bundle(op, err) : 0;
}

/* Forwards the watermark; the +infinity one (end of input) after the
 * pending bundle, so the last changes precede it. */
static int group_watermark(sl_op *op, int64_t wm, sl_err *err)
{
	int rc = wm == SL_WM_MAX ? group_flush_bundle(op, err) : 0;
	return rc ? rc : sl_op_emit_watermark(op, wm, err);
}

static int group_open(sl_op *op, sl_err *err)
{
	group_op *o = (group_op *)op;
	if (!(o->acc = sl_op_table_open(op, "acc", o->slot_size, 0, 0, err)))
		return err->code;
	if (o->ndg && !(o->dist = sl_op_table_open(op, "distinct", 8 * (uint32_t)o->dg_max, 0, 0,
	                                            err)))
		return err->code;
	/* under TTL, read with the group's result: they live as long as "acc" */
	if (o->has_str &&
	    !(o->strs = sl_op_table_open(op, "strings", 0, 0, SL_STATE_TTL_READ_REFRESH, err)))
		return err->code;
	if (o->has_retract &&
	    !(o->vals = sl_op_table_open(op, "values", 0, 0, SL_STATE_TTL_READ_REFRESH, err)))
		return err->code;
	if (!(o->ophys = calloc((size_t)op->nout + 1, 1)))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < op->nout; i++)
		o->ophys[i] = (uint8_t)sl_type_phys(op->out_types[i]);
	for (int i = 0; i < o->p.naggs; i++) {
		sl_phys ph = (sl_phys)o->ophys[o->p.nkeys + i];
		o->fixed[i] = (uint8_t)(ph == SL_PHYS_I64 || ph == SL_PHYS_F64);
	}
	o->pkc.types = op->out_types; /* the GROUP BY columns come first */
	o->pkc.n = o->p.nkeys;
	sl_state_table *more[3] = {o->dist, o->strs, o->vals};
	for (int i = 0; i < 3; i++)
		if (more[i])
			sl_state_table_set_pkey(more[i], sl_state_pkey_cols, &o->pkc);
	if (sl_emitter_init(&o->out, op, 0, err))
		return err->code;
	o->pre = sl_batch_new(op->nout, op->out_types, 0);
	if (!o->pre || sl_emitter_track_src(&o->out, err))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

static void group_close(sl_op *op)
{
	group_op *o = (group_op *)op;
	sl_emitter_deinit(&o->out);
	sl_batch_free(o->pre);
	sl_buf_deinit(&o->key);
	sl_buf_deinit(&o->dkey);
	sl_buf_deinit(&o->touched);
	sl_buf_deinit(&o->skey);
	sl_buf_deinit(&o->vbuf);
	free(o->key_cols);
	free(o->aggs);
	free(o->is_str);
	free(o->isd);
	free(o->iscount);
	free(o->ophys);
	free(o->fixed);
	for (int g = 0; g < o->ndg; g++)
		free(o->dg_mem[g]);
	free(o->dg_mem);
	free(o->dg_col);
	free(o->dg_n);
	free(o->dfirst);
	free(o->dg_i64);
}


static const sl_op_vtab group_vtab = {
	.name = "GroupAggregate",
	.kind = SL_OPK_GROUP_AGG,
	.flags = SL_OPF_STATE_TTL,
	.open = group_open,
	.process = group_process,
	.watermark = group_watermark,
	.finish = group_flush_bundle,
	.close = group_close,
	.proctime = group_proctime,
	.pre_barrier = group_flush_bundle,
};

sl_op *sl_op_group_agg_new(const sl_group_agg_plan *p, const sl_type *in_types, int nin,
                           sl_err *err)
{
	group_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &group_vtab;
	o->p = *p;
	if (p->nkeys > 64) {
		sl_err_set(err, SL_EPLAN, "at most 64 GROUP BY keys are supported");
		free(o);
		return NULL;
	}
	o->key_cols = calloc((size_t)p->nkeys + 1, sizeof(int));
	o->aggs = calloc((size_t)p->naggs + 1, sizeof(sl_agg));
	o->is_str = calloc((size_t)p->naggs + 1, 1);
	o->isd = calloc((size_t)p->naggs + 1, 1);
	o->iscount = calloc((size_t)p->naggs + 1, 1);
	o->fixed = calloc((size_t)p->naggs + 1, 1);
	if (!o->key_cols || !o->aggs || !o->is_str || !o->isd || !o->iscount || !o->fixed) {
		sl_op_free(&o->base); /* calls its close */
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	memcpy(o->key_cols, p->key_cols, sizeof(int) * (size_t)p->nkeys);
	for (int i = 0; i < p->nkeys; i++) {
		sl_phys ph = sl_type_phys(in_types[p->key_cols[i]]);
		o->kphys[i] = (uint8_t)(ph == SL_PHYS_F64 ? SL_PHYS_I64 : ph);
	}
	o->p.key_cols = o->key_cols;
	uint32_t off = sizeof(slot_hdr);
	for (int i = 0; i < p->naggs; i++) {
		o->aggs[i] = p->aggs[i];
		o->aggs[i].offset = off;
		off += o->aggs[i].vt->acc_size;
		o->is_str[i] = (uint8_t)sl_agg_is_str(&o->aggs[i]);
		o->has_str |= o->is_str[i];
		o->has_retract |= o->aggs[i].retract;
		o->isd[i] = (uint8_t)(o->aggs[i].distinct && o->aggs[i].arg_col >= 0);
		o->iscount[i] = (uint8_t)(sl_agg_is_count(&o->aggs[i]) && !o->is_str[i] &&
		                          !o->aggs[i].retract);
	}
	o->p.aggs = o->aggs;
	o->slot_size = off;
	/* the DISTINCT aggregates by argument column */
	o->dg_col = calloc((size_t)p->naggs + 1, sizeof(int));
	o->dg_n = calloc((size_t)p->naggs + 1, sizeof(int));
	o->dg_mem = calloc((size_t)p->naggs + 1, sizeof(int *));
	o->dfirst = calloc((size_t)p->naggs + 1, 1);
	o->dg_i64 = calloc((size_t)p->naggs + 1, 1);
	if (!o->dg_col || !o->dg_n || !o->dg_mem || !o->dfirst || !o->dg_i64)
		goto nomem;
	for (int i = 0; i < p->naggs; i++) {
		if (!o->aggs[i].distinct || o->aggs[i].arg_col < 0)
			continue;
		int g = 0;
		while (g < o->ndg && o->dg_col[g] != o->aggs[i].arg_col)
			g++;
		if (g == o->ndg) {
			if (!(o->dg_mem[g] = calloc((size_t)p->naggs, sizeof(int))))
				goto nomem;
			o->dg_col[g] = o->aggs[i].arg_col;
			o->dg_i64[g] = sl_type_phys(in_types[o->aggs[i].arg_col]) == SL_PHYS_I64;
			o->ndg++;
		}
		o->dg_mem[g][o->dg_n[g]++] = i;
		if (o->dg_n[g] > o->dg_max)
			o->dg_max = o->dg_n[g];
	}
	return &o->base;
nomem:
	sl_op_free(&o->base); /* calls its close */
	sl_err_set(err, SL_ENOMEM, "out of memory");
	return NULL;
}
