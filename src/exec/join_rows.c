/*
 * join_rows.c - the row-level helpers of the join operators (join.h),
 * under the join base (join_base.c): the records of whole rows kept per
 * join key in state values, and the builder of joined output rows with
 * the residual predicate.
 *
 * Records: a state value is a list of records (join.h: sl_jrec), each a
 * 24-byte header and the row's bytes in the row form of data/rowcodec.h
 * (values exact, ROW values included), unaligned.
 *
 * Joined rows are assembled in a candidate batch (left columns then right
 * columns), filtered by the residual program in one call per chunk, and
 * copied to the output through an emitter (emit.h); nothing here
 * allocates per row (batches and buffers are reused).  A run-time error of
 * the residual comes back as the row of the input batch the failing
 * candidate was built from (err->row, err.h), which the scan upstream
 * names; a candidate made of two stored rows (window and temporal joins,
 * fired by the watermark) has none.  One thread, the job's.
 */
#include "join.h"
#include "../data/rowcodec.h"
#include "graph.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

/* ---- records ---------------------------------------------------------------- */

int sl__jrec_append(sl_buf *out, const sl_batch *in, int row, uint32_t count, int64_t aux,
                    int64_t time)
{
	size_t at = out->len;
	char hdr[SL_JREC_HDR] = {0};
	if (sl_buf_append(out, hdr, sizeof(hdr)) || sl_rowcodec_row(in, row, out))
		return SL_ENOMEM;
	uint32_t len = (uint32_t)(out->len - at - SL_JREC_HDR);
	memcpy(out->p + at, &len, 4);
	memcpy(out->p + at + 4, &count, 4);
	memcpy(out->p + at + 8, &aux, 8);
	memcpy(out->p + at + 16, &time, 8);
	return 0;
}

void sl__jrec_set(char *rec, uint32_t count, int64_t aux)
{
	memcpy(rec + 4, &count, 4);
	memcpy(rec + 8, &aux, 8);
}

/* ---- joined rows ------------------------------------------------------------- */

int sl__joiner_init(sl_joiner *j, sl_op *op, const sl_join_plan *p, sl_err *err)
{
	memset(j, 0, sizeof(*j));
	j->op = op;
	j->nl = p->nl;
	j->nr = p->nr;
	int n = p->nl + p->nr;
	sl_type *ct = malloc(sizeof(sl_type) * (size_t)(n + 1));
	if (!ct)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	memcpy(ct, p->ltypes, sizeof(sl_type) * (size_t)p->nl);
	memcpy(ct + p->nl, p->rtypes, sizeof(sl_type) * (size_t)p->nr);
	if (sl_emitter_init(&j->out, op, 0, err)) {
		free(ct);
		return err->code;
	}
	j->cand = sl_batch_new(n, ct, 256);
	j->ok = calloc(256, 1);
	j->src_b = calloc(256, sizeof(*j->src_b));
	j->src_row = calloc(256, sizeof(int));
	if (!j->cand || !j->ok || !j->src_b || !j->src_row) {
		free(ct);
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	if (p->residual)
		j->residual = sl_prog_compile(&p->residual, 1, ct, n, err);
	free(ct);
	if (p->residual && !j->residual)
		return err->code;
	j->ectx = &op->graph->ectx;
	return 0;
}

void sl__joiner_deinit(sl_joiner *j)
{
	sl_emitter_deinit(&j->out);
	sl_batch_free(j->cand);
	sl_prog_free(j->residual);
	free(j->ok);
	free(j->src_b);
	free(j->src_row);
	memset(j, 0, sizeof(*j));
}

void sl__joiner_cand_reset(sl_joiner *j)
{
	sl_batch_reset(j->cand);
}

/* Fills one side (columns [off, off + n)) of row `row` of b. */
static int fill_side(sl_batch *b, int off, int n, int row, const sl_batch *src, int srow,
                     const char *bytes, uint32_t blen, sl_err *err)
{
	if (src) {
		for (int i = 0; i < n; i++)
			if (sl_col_copy_value(b, &b->cols[off + i], row, &src->cols[i], srow))
				return sl_err_set(err, SL_ENOMEM, "out of memory");
		return 0;
	}
	if (bytes && sl_rowcodec_decode_cols(bytes, blen, b, b->cols + off, n, row))
		return sl_err_set(err, SL_ESTATE, "join state: malformed row");
	return 0; /* padded: sl_batch_add_row left the columns NULL */
}

static int build(sl_joiner *j, sl_batch *b, const sl_batch *lb, int lrow, const char *lbytes,
                 uint32_t llen, const sl_batch *rb, int rrow, const char *rbytes, uint32_t rlen,
                 uint8_t op, int64_t wm, sl_err *err)
{
	/* both parts are set whole (fill_side): no clearing first */
	int row = (lb || lbytes) && (rb || rbytes) ? sl_batch_add_row_nc(b, op, wm)
	                                           : sl_batch_add_row(b, op, wm);
	int rc = fill_side(b, 0, j->nl, row, lb, lrow, lbytes, llen, err);
	if (!rc)
		rc = fill_side(b, j->nl, j->nr, row, rb, rrow, rbytes, rlen, err);
	return rc ? rc : row;
}

int sl__joiner_cand_add(sl_joiner *j, const sl_batch *lb, int lrow, const char *lbytes,
                        uint32_t llen, const sl_batch *rb, int rrow, const char *rbytes,
                        uint32_t rlen, sl_err *err)
{
	int row = build(j, j->cand, lb, lrow, lbytes, llen, rb, rrow, rbytes, rlen, SL_INSERT,
	                SL_WM_MIN, err);
	if (row >= 0) {
		j->src_b[row] = lb ? lb : rb;
		j->src_row[row] = lb ? lrow : rrow;
	}
	return row;
}

/* An error naming a candidate (err->row_batch == cand) names the input
 * row it was built from instead, or no row (err.h). */
static void cand_err_row(sl_joiner *j, sl_err *err)
{
	if (err->row > 0 && err->row_batch == j->cand) {
		int i = err->row - 1;
		err->row_batch = j->src_b[i];
		err->row = j->src_b[i] ? j->src_row[i] + 1 : 0;
	}
}

int sl__joiner_cand_eval(sl_joiner *j, sl_err *err)
{
	sl_batch *c = j->cand;
	if (!j->residual) {
		memset(j->ok, 1, (size_t)c->nrows);
		return 0;
	}
	memset(j->ok, 0, (size_t)c->nrows);
	int rc = sl_prog_filter(j->residual, c, j->ectx, err);
	if (rc) {
		cand_err_row(j, err);
		return rc;
	}
	SL_BATCH_FOREACH(c, k, row)
		j->ok[row] = 1;
	c->sel = NULL;
	c->nsel = 0;
	return 0;
}

/*
 * Why candidates may be the output: a join whose every match is emitted
 * once as it was built (the regular INNER join) would otherwise copy each
 * joined row a second time, from the candidate batch into the output
 * batch, and evaluate its residual once per input row.  Nexmark q9 (an
 * auction row of ~450 bytes joined with each bid): sl_batch_copy_row was
 * 12.5% of its instructions and the residual's per-row calls 5.6%.
 */
int sl__joiner_cand_emit(sl_joiner *j, sl_err *err)
{
	sl_batch *c = j->cand;
	if (c->nrows == 0)
		return 0;
	int rc = sl_emitter_flush(&j->out, err);
	if (!rc && j->residual && (rc = sl_prog_filter(j->residual, c, j->ectx, err)))
		cand_err_row(j, err);
	if (!rc && (rc = sl_op_emit(j->op, c, err)))
		cand_err_row(j, err);
	sl_batch_reset(c);
	return rc;
}

int sl__joiner_emit_left(sl_joiner *j, const char *lbytes, uint32_t llen, uint8_t op,
                         int64_t wm, sl_err *err)
{
	int row = sl_emitter_row(&j->out, op, wm, err);
	if (row < 0)
		return row;
	return fill_side(j->out.b, 0, j->nl, row, NULL, -1, lbytes, llen, err);
}

int sl__joiner_flush(sl_joiner *j, sl_err *err)
{
	return sl_emitter_flush(&j->out, err);
}

int sl__joiner_emit_cand(sl_joiner *j, int i, uint8_t op, int64_t wm, sl_err *err)
{
	int rc = sl_emitter_copy_row(&j->out, j->cand, i, op, wm, err);
	return rc < 0 ? rc : 0;
}

int sl__joiner_emit(sl_joiner *j, const sl_batch *lb, int lrow, const char *lbytes,
                    uint32_t llen, const sl_batch *rb, int rrow, const char *rbytes,
                    uint32_t rlen, uint8_t op, int64_t wm, sl_err *err)
{
	int rc = sl_emitter_reserve(&j->out, 1, err);
	if (rc)
		return rc;
	rc = build(j, j->out.b, lb, lrow, lbytes, llen, rb, rrow, rbytes, rlen, op, wm, err);
	return rc < 0 ? rc : 0;
}

int sl__join_plan_own(sl_join_plan *dst, int *keys[2], const sl_join_plan *p, sl_err *err)
{
	*dst = *p;
	size_t n = sizeof(int) * (size_t)(p->nkeys > 0 ? p->nkeys : 1);
	keys[0] = malloc(n);
	keys[1] = malloc(n);
	if (!keys[0] || !keys[1])
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (p->nkeys > 0 && p->lkeys)
		memcpy(keys[0], p->lkeys, sizeof(int) * (size_t)p->nkeys);
	if (p->nkeys > 0 && p->rkeys) /* a lookup join has no right key columns */
		memcpy(keys[1], p->rkeys, sizeof(int) * (size_t)p->nkeys);
	dst->lkeys = keys[0];
	dst->rkeys = keys[1];
	return 0;
}
