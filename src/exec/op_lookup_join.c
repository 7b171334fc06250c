/*
 * op_lookup_join.c - the lookup join (Flink's `JOIN dim FOR SYSTEM_TIME AS
 * OF o.proc_time AS d ON o.k = d.k`, its LookupJoinRunner): each row of the
 * one input (the probe side, append-only) is joined, as it arrives, with
 * the rows a connector's lookup method (conn.h: sl_lookup) returns for its
 * key at that processing time.  INNER and LEFT.
 *
 * INTERFACE ROUTINES
 *   open       opens the lookup (conn.h: its table must exist now; the
 *              planner only configured it), builds the joiner (output and
 *              candidate batches, residual)
 *   process    per probe row: encodes the key (the probe's equi-key
 *              columns, data/rowcodec.h), asks the lookup for the rows of that key
 *              at the batch's processing time, evaluates the residual over
 *              the joined candidates and emits each match with the probe's
 *              kind and W_before; a LEFT probe without a match (a miss, a
 *              NULL key, the residual false for every row) is emitted
 *              padded with NULLs
 *   watermark  none: the runtime forwards watermarks unchanged (rows are
 *              emitted at once, keeping the probe's rowtime)
 *
 * The processing time is the job's clock (graph->ectx.proctime: the wall
 * clock, or the manual clock of sl_set_processing_time in tests), read once
 * per batch, so the lookup's cache decisions (conn_fs_lookup.c) are made
 * per batch and follow the manual clock.
 *
 * State: none.  What a lookup returns depends on when it runs and on the
 * looked-up table at that moment, which no checkpoint captures: after a
 * restart, replayed probe rows join the table as it is then, so a lookup
 * join is not deterministic across restarts when the table changes (as in
 * Flink).  No malloc per row: keys and candidates go through re-used
 * buffers and batches.  One thread, the job's.
 */
#include "join.h"
#include "graph.h"
#include "../data/rowcodec.h"
#include "sluice.h"
#include "connector/conn.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct ljoin_op {
	sl_op base;
	sl_join_plan p;
	int *lkeys;
	int outer;
	sl_lookup *lk;
	sl_joiner j;
	sl_buf key;
} ljoin_op;

/* Joins probe row `row` of `in` with the looked-up rows rows[0..len). */
static int join_row(ljoin_op *o, const sl_batch *in, int row, const char *rows, uint32_t len,
                    sl_err *err)
{
	uint8_t op = in->op[row];
	int64_t wm = in->wm[row];
	int matched = 0, rc;
	const char *p = rows, *end = rows + len;
	while (p < end) {
		sl__joiner_cand_reset(&o->j);
		int n = 0;
		while (p < end && n < o->j.cand->cap) {
			uint32_t rl;
			if (end - p < 4)
				return sl_err_set(err, SL_ESTATE, "lookup join: malformed lookup rows");
			memcpy(&rl, p, 4);
			if ((uint32_t)(end - p - 4) < rl)
				return sl_err_set(err, SL_ESTATE, "lookup join: malformed lookup rows");
			if ((rc = sl__joiner_cand_add(&o->j, in, row, NULL, 0, NULL, -1, p + 4, rl, err)) < 0)
				return rc;
			p += 4 + rl;
			n++;
		}
		if ((rc = sl__joiner_cand_eval(&o->j, err)))
			return rc;
		for (int i = 0; i < n; i++)
			if (o->j.ok[i]) {
				matched++;
				if ((rc = sl__joiner_emit_cand(&o->j, i, op, wm, err)))
					return rc;
			}
	}
	if (!matched && o->outer)
		return sl__joiner_emit(&o->j, in, row, NULL, 0, NULL, -1, NULL, 0, op, wm, err);
	return 0;
}

static int ljoin_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	ljoin_op *o = (ljoin_op *)op;
	int64_t now = o->base.graph->ectx.proctime;
	SL_BATCH_FOREACH(in, k, row) {
		int rc;
		if (sl_rowcodec_key_null(in, o->lkeys, o->p.nkeys, row)) {
			if (o->outer && (rc = sl__joiner_emit(&o->j, in, row, NULL, 0, NULL, -1, NULL, 0,
			                                      in->op[row], in->wm[row], err)))
				return rc;
			continue;
		}
		sl_buf_clear(&o->key);
		if (sl_rowcodec_key(in, o->lkeys, o->p.nkeys, row, &o->key))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		const void *rows;
		uint32_t len;
		if ((rc = o->lk->vt->lookup(o->lk, o->key.p, (uint32_t)o->key.len, now, &rows, &len,
		                            err)) ||
		    (rc = join_row(o, in, row, rows, len, err)))
			return rc;
	}
	return sl__joiner_flush(&o->j, err);
}

static int ljoin_open(sl_op *op, sl_err *err)
{
	ljoin_op *o = (ljoin_op *)op;
	int rc = sl_lookup_open(o->lk, err); /* planning only configured it (conn.h) */
	return rc ? rc : sl__joiner_init(&o->j, op, &o->p, err);
}

static void ljoin_close(sl_op *op)
{
	ljoin_op *o = (ljoin_op *)op;
	sl__joiner_deinit(&o->j);
	sl_buf_deinit(&o->key);
	sl_lookup_free(o->lk);
	free(o->lkeys);
}

static const sl_op_vtab ljoin_vtab = {
	.name = "LookupJoin",
	.kind = SL_OPK_LOOKUP_JOIN,
	.open = ljoin_open,
	.process = ljoin_process,
	.close = ljoin_close,
};

sl_op *sl_op_lookup_join_new(const sl_join_plan *p, sl_lookup *lk, sl_err *err)
{
	ljoin_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_lookup_free(lk);
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &ljoin_vtab;
	o->p = *p;
	o->lk = lk;
	o->lkeys = malloc(sizeof(int) * (size_t)(p->nkeys + 1));
	if (!o->lkeys || !lk || p->nkeys < 1 ||
	    (p->kind != SL_JOIN_INNER && p->kind != SL_JOIN_LEFT)) {
		if (!o->lkeys)
			sl_err_set(err, SL_ENOMEM, "out of memory");
		else
			sl_err_set(err, SL_EPLAN, "a lookup join needs a lookup, an equality key and "
			                          "INNER or LEFT");
		sl_op_free(&o->base); /* calls its close */
		return NULL;
	}
	memcpy(o->lkeys, p->lkeys, sizeof(int) * (size_t)p->nkeys);
	o->p.lkeys = o->lkeys;
	o->p.rkeys = NULL;
	o->outer = p->kind == SL_JOIN_LEFT;
	return &o->base;
}
