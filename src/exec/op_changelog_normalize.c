/*
 * op_changelog_normalize.c - turns a keyed changelog into a full retract
 * stream by keeping the last row of each PRIMARY KEY (Flink's
 * ChangelogNormalize).
 *
 * It sits right after the scan of a table with a changelog format
 * (debezium-json, canal-json, maxwell-json) and a PRIMARY KEY.  Such a
 * source may not carry the old row of a change: Debezium's PostgreSQL
 * connector sends an update without 'before' and a delete whose 'before'
 * holds only the key when the table lacks REPLICA IDENTITY FULL.  The
 * decoder then yields +U(new) alone and -D(key); this operator restores
 * what the rest of the plan needs (every -U/-D carrying the full row that
 * was emitted before).
 *
 * INTERFACE ROUTINES
 *   process    per row, by its key: +I/+U -> +I(new) when the key is new,
 *              else -U(stored) +U(new), nothing when new equals stored
 *              (a duplicate event); -U -> ignored when the next row is the
 *              +U of the same key (it carries the change), else (an update
 *              that changed the key) handled as -D; -D -> -D(stored) and
 *              the key is forgotten, nothing for an unknown key
 *              A +I/+U whose columns are marked SL_NULL_UNCHANGED
 *              (connector/conn.h: PostgreSQL's unchanged TOASTed values,
 *              conn_pgcdc.c) takes those columns from the stored row, or,
 *              right after a -U of another key (the key was updated), from
 *              the row that -U retracted; the job fails when there is
 *              none (the value is unknown), except for the mark
 *              SL_NULL_UNCHANGED_REPLAY (a change replayed over a newer
 *              table copy: the row is removed later), then NULL.
 *   watermark  forwarded unchanged (rows keep their W_before)
 *
 * State: table "rows", namespace 0, key = the PRIMARY KEY columns in the
 * key form of data/rowcodec.h, value = every column of the row in the row
 * form (values exact, ROW values included), so a -U/-D gives back the row
 * as it came, -0.0 included.  A duplicate event is a row equal to the
 * stored one as the key form defines equality (sl_rowcodec_equal: -0.0
 * equals 0.0, NaN equals NaN), as before.  Values written by versions
 * that stored the key form (-0.0 written as 0.0, the same layout) read
 * back the same way.  It is snapshotted and restored by the state backend
 * (hashmap or rocksdb) like every table; the operator has no private
 * scalars.
 *
 * No malloc per row: keys and rows are encoded into re-used buffers; the
 * output batch is re-used.  One thread (the job's).
 */
#include "emit.h"
#include "ops.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct norm_op {
	sl_op base;
	int *key_cols;   /* PRIMARY KEY columns */
	int nkeys;
	int *all_cols;   /* 0..nout-1 */
	sl_state_table *rows;
	sl_emitter out;  /* emit.h */
	sl_col **ocols;  /* &out.b->cols[i] for decoding */
	int canon_cmp;   /* the row's two forms can differ: compare with sl_rowcodec_equal */
	sl_buf key, val;
	/* a +U with unchanged columns (SL_NULL_UNCHANGED) completed from the
	 * stored row: the stored row decoded, the completed row */
	sl_batch *stored, *fix;
	sl_col **scols;
	/* the stored row of the key a -U just retracted when the +U after it
	 * has another key (an update of the key): its unchanged columns come
	 * from there */
	sl_buf moved;
	int have_moved;
} norm_op;

/* The first column of row `row` marked unchanged, or -1. */
static int first_unchanged(const sl_batch *in, int row)
{
	for (int c = 0; c < in->ncols; c++)
		if (in->cols[c].null[row] == SL_NULL_UNCHANGED ||
		    in->cols[c].null[row] == SL_NULL_UNCHANGED_REPLAY)
			return c;
	return -1;
}

/* Completes row `row` of `in` (kind op) with the stored row's values of its
 * unchanged columns into o->fix, row 0. */
static int complete_row(norm_op *o, const sl_batch *in, int row, uint8_t op, const void *cur,
                        uint32_t clen, sl_err *err)
{
	sl_batch_reset(o->fix);
	sl_batch_reset(o->stored);
	if (sl_batch_copy_row(o->fix, in, row, op, in->wm[row]) < 0 ||
	    sl_batch_add_row(o->stored, op, in->wm[row]) < 0)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (sl_rowcodec_decode(cur, clen, o->stored, o->scols, o->base.nout, 0) < 0)
		return sl_err_set(err, SL_ESTATE, "ChangelogNormalize: malformed stored row");
	for (int c = 0; c < in->ncols; c++)
		if ((in->cols[c].null[row] == SL_NULL_UNCHANGED ||
		     in->cols[c].null[row] == SL_NULL_UNCHANGED_REPLAY) &&
		    sl_col_copy_value(o->fix, &o->fix->cols[c], 0, &o->stored->cols[c], 0) < 0)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

/* Appends the stored row (bytes v[0..n)) to the output with kind op. */
static int emit_stored(norm_op *o, const void *v, uint32_t n, uint8_t op, int64_t wm,
                       sl_err *err)
{
	int r = sl_batch_add_row(o->out.b, op, wm);
	if (sl_rowcodec_decode(v, n, o->out.b, o->ocols, o->base.nout, r) < 0)
		return sl_err_set(err, SL_ESTATE, "ChangelogNormalize: malformed stored row");
	return 0;
}

/* Row `row` of `in`; `next` is the next live row or -1. */
static int norm_row(norm_op *o, const sl_batch *in, int row, int next, sl_err *err)
{
	/* room for a -U/+U pair, so it never straddles two batches */
	int rc = sl_emitter_reserve(&o->out, 2, err);
	if (rc)
		return rc;
	uint8_t op = in->op[row];
	sl_buf_clear(&o->key);
	if (sl_rowcodec_key(in, o->key_cols, o->nkeys, row, &o->key))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (op == SL_UPDATE_BEFORE) {
		if (next >= 0 && in->op[next] == SL_UPDATE_AFTER) {
			sl_buf_clear(&o->val);
			if (sl_rowcodec_key(in, o->key_cols, o->nkeys, next, &o->val))
				return sl_err_set(err, SL_ENOMEM, "out of memory");
			if (o->val.len == o->key.len && !memcmp(o->val.p, o->key.p, o->key.len))
				return 0;
		}
		op = SL_DELETE; /* the key changed: the old key's row goes */
	}
	const void *cur;
	uint32_t clen;
	int have = sl_state_get_var(o->rows, 0, o->key.p, (uint32_t)o->key.len, &cur, &clen);
	int64_t wm = in->wm[row];
	int moved = o->have_moved;
	o->have_moved = 0;
	if (op == SL_DELETE) {
		if (!have)
			return 0;
		if (in->op[row] == SL_UPDATE_BEFORE) { /* the key changes: keep the old row */
			sl_buf_clear(&o->moved);
			if (sl_buf_append(&o->moved, cur, clen))
				return sl_err_set(err, SL_ENOMEM, "out of memory");
			o->have_moved = 1;
		}
		if ((rc = emit_stored(o, cur, clen, SL_DELETE, wm, err)))
			return rc;
		sl_state_delete(o->rows, 0, o->key.p, (uint32_t)o->key.len);
		return 0;
	}
	int uc = first_unchanged(in, row);
	if (uc >= 0) {
		/* a new key right after a -U of another: from the row it retracted */
		const void *from = have ? cur : moved ? o->moved.p : NULL;
		uint32_t flen = have ? clen : (uint32_t)o->moved.len;
		if (!from && in->cols[uc].null[row] == SL_NULL_UNCHANGED_REPLAY) {
			/* a replayed change of a row the copy does not hold: NULL
			 * until the replay removes it */
			sl_batch_reset(o->fix);
			if (sl_batch_copy_row(o->fix, in, row, op, in->wm[row]) < 0)
				return sl_err_set(err, SL_ENOMEM, "out of memory");
			for (int c = 0; c < in->ncols; c++)
				if (o->fix->cols[c].null[0] > 1)
					o->fix->cols[c].null[0] = 1;
			in = o->fix;
			row = 0;
		} else if (!from)
			return sl_err_set(err, SL_EINPUT, "ChangelogNormalize: an update leaves column %d "
			                  "unchanged without sending it (a TOASTed PostgreSQL value) and "
			                  "no earlier row of its key was read: set REPLICA IDENTITY FULL "
			                  "on the table, or read it from 'scan.startup.mode' = 'initial'",
			                  uc + 1);
		else {
			if ((rc = complete_row(o, in, row, op, from, flen, err)))
				return rc;
			in = o->fix;
			row = 0;
		}
	}
	sl_buf_clear(&o->val);
	if (sl_rowcodec_cols(in, o->all_cols, o->base.nout, row, &o->val))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (have && clen == o->val.len &&
	    (memcmp(cur, o->val.p, clen) == 0 ||
	     (o->canon_cmp && sl_rowcodec_equal(o->base.out_types, o->base.nout, cur, clen,
	                                        o->val.p, (uint32_t)o->val.len))))
		return 0; /* a duplicate event: nothing changed */
	if (have && (rc = emit_stored(o, cur, clen, SL_UPDATE_BEFORE, wm, err)))
		return rc;
	if (sl_batch_copy_row(o->out.b, in, row, have ? SL_UPDATE_AFTER : SL_INSERT, wm) < 0)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (sl_state_put_var(o->rows, 0, o->key.p, (uint32_t)o->key.len, o->val.p,
	                     (uint32_t)o->val.len))
		return sl_err_set(err, SL_ENOMEM, "ChangelogNormalize: cannot store the row");
	return 0;
}

static int norm_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	norm_op *o = (norm_op *)op;
	int rc;
	int live = sl_batch_live(in);
	SL_BATCH_FOREACH(in, k, row) {
		int next = k + 1 < live ? (in->sel ? (int)in->sel[k + 1] : k + 1) : -1;
		if ((rc = norm_row(o, in, row, next, err)))
			return rc;
	}
	return sl_emitter_flush(&o->out, err);
}

static int norm_open(sl_op *op, sl_err *err)
{
	norm_op *o = (norm_op *)op;
	if (!(o->rows = sl_op_table_open(op, "rows", 0, 0, 0, err)))
		return err->code;
	if (sl_emitter_init(&o->out, op, 0, err))
		return err->code;
	o->ocols = calloc((size_t)op->nout + 1, sizeof(sl_col *));
	o->scols = calloc((size_t)op->nout + 1, sizeof(sl_col *));
	o->all_cols = calloc((size_t)op->nout + 1, sizeof(int));
	o->stored = sl_batch_new(op->nout, op->out_types, 1);
	o->fix = sl_batch_new(op->nout, op->out_types, 1);
	if (!o->ocols || !o->scols || !o->all_cols || !o->stored || !o->fix)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < op->nout; i++) {
		o->ocols[i] = &o->out.b->cols[i];
		o->scols[i] = &o->stored->cols[i];
		o->all_cols[i] = i;
	}
	o->canon_cmp = sl_rowcodec_forms_differ(op->out_types, op->nout);
	return 0;
}

static void norm_close(sl_op *op)
{
	norm_op *o = (norm_op *)op;
	sl_emitter_deinit(&o->out);
	free(o->ocols);
	free(o->scols);
	sl_batch_free(o->stored);
	sl_batch_free(o->fix);
	free(o->all_cols);
	free(o->key_cols);
	sl_buf_deinit(&o->key);
	sl_buf_deinit(&o->val);
	sl_buf_deinit(&o->moved);
}

static const sl_op_vtab norm_vtab = {
	.name = "ChangelogNormalize",
	.kind = SL_OPK_CHANGELOG_NORMALIZE,
	.flags = SL_OPF_STATE_TTL,
	.open = norm_open,
	.process = norm_process,
	.close = norm_close,
};

/*
 * sl_op_changelog_normalize_new: a ChangelogNormalize over rows keyed by
 * columns key_cols[0..nkeys) (copied).  Its output columns (set by
 * sl_graph_add) equal its input's.  Returns the operator (owned by the
 * graph once added) or NULL with err set (SL_ENOMEM).
 */
sl_op *sl_op_changelog_normalize_new(const int *key_cols, int nkeys, sl_err *err)
{
	norm_op *o = calloc(1, sizeof(*o));
	if (o)
		o->key_cols = malloc(sizeof(int) * (size_t)(nkeys + 1));
	if (!o || !o->key_cols) {
		free(o);
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &norm_vtab;
	memcpy(o->key_cols, key_cols, sizeof(int) * (size_t)nkeys);
	o->nkeys = nkeys;
	return &o->base;
}
