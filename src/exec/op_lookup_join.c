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
 *   process    when the lookup has a prefetch method, first hands it the
 *              keys of the whole batch (one query for them all); then
 *              per probe row: encodes the key (the probe's equi-key
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
 * Flink).  Built on the join base (join_base.h: keys, the joiner, padded
 * output; no tables); the looked-up rows come as (u32 length, row bytes)
 * from the lookup, not as records, so it pairs them itself.  Without a
 * residual every looked-up row matches, so the output row is built in
 * the output batch directly (no candidate batch).  No malloc per row:
 * keys and candidates go through re-used buffers and batches.  One
 * thread, the job's.
 */
#include "join_base.h"
#include "graph.h"
#include "sluice.h"
#include "connector/conn.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct ljoin_op {
	sl_join_base b;  /* first (join_base.h): no tables */
	sl_lookup *lk;
	sl_buf keys;     /* a batch's keys for the lookup's prefetch */
} ljoin_op;

/* The keys of the batch's rows (u32 length + bytes each, NULL keys left
 * out) handed to the lookup's prefetch before the rows are looked up. */
static int prefetch(ljoin_op *o, const sl_batch *in, int64_t now, sl_err *err)
{
	int n = 0, rc;
	sl_buf_clear(&o->keys);
	SL_BATCH_FOREACH(in, k, row) {
		if ((rc = sl__join_key(&o->b, 0, in, row, err)) < 0)
			return rc;
		if (rc == 1)
			continue;
		uint32_t len = (uint32_t)o->b.key.len;
		if (sl_buf_append(&o->keys, &len, 4) || sl_buf_append(&o->keys, o->b.key.p, len))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		n++;
	}
	return n ? o->lk->vt->prefetch(o->lk, o->keys.p, o->keys.len, n, now, err) : 0;
}

/* The length of the looked-up row at p ([u32 len][row], before end), or
 * SL_ESTATE when the rows are cut short. */
static int row_len(const char *p, const char *end, uint32_t *rl, sl_err *err)
{
	if (end - p < 4)
		return sl_err_set(err, SL_ESTATE, "lookup join: malformed lookup rows");
	memcpy(rl, p, 4);
	if ((uint32_t)(end - p - 4) < *rl)
		return sl_err_set(err, SL_ESTATE, "lookup join: malformed lookup rows");
	return 0;
}

/* Joins probe row `row` of `in` with the looked-up rows rows[0..len). */
static int join_row(ljoin_op *o, const sl_batch *in, int row, const char *rows, uint32_t len,
                    sl_err *err)
{
	uint8_t op = in->op[row];
	int64_t wm = in->wm[row];
	int matched = 0, rc;
	const char *p = rows, *end = rows + len;
	if (!o->b.j.residual) {
		/* every looked-up row matches: build the output row in place,
		 * not in the candidate batch and then copied (the copy was 18% of
		 * Nexmark q13's instructions) */
		while (p < end) {
			uint32_t rl = 0;
			if ((rc = row_len(p, end, &rl, err)))
				return rc;
			if ((rc = sl__joiner_emit(&o->b.j, in, row, NULL, 0, NULL, -1, p + 4, rl, op, wm,
			                          err)))
				return rc;
			p += 4 + rl;
			matched++;
		}
	}
	while (p < end) {
		sl__joiner_cand_reset(&o->b.j);
		int n = 0;
		while (p < end && n < o->b.j.cand->cap) {
			uint32_t rl = 0;
			if ((rc = row_len(p, end, &rl, err)))
				return rc;
			if ((rc = sl__joiner_cand_add(&o->b.j, in, row, NULL, 0, NULL, -1, p + 4, rl, err)) < 0)
				return rc;
			p += 4 + rl;
			n++;
		}
		if ((rc = sl__joiner_cand_eval(&o->b.j, err)))
			return rc;
		for (int i = 0; i < n; i++)
			if (o->b.j.ok[i]) {
				matched++;
				if ((rc = sl__joiner_emit_cand(&o->b.j, i, op, wm, err)))
					return rc;
			}
	}
	if (!matched && o->b.outer[0])
		return sl__joiner_emit_in(&o->b.j, 0, in, row, NULL, 0, op, wm, err);
	return 0;
}

static int ljoin_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	ljoin_op *o = (ljoin_op *)op;
	int64_t now = op->graph->ectx.proctime;
	if (o->lk->vt->prefetch) {
		int rc = prefetch(o, in, now, err);
		if (rc)
			return rc;
	}
	SL_BATCH_FOREACH(in, k, row) {
		int rc = sl__join_key(&o->b, 0, in, row, err);
		if (rc < 0)
			return rc;
		if (rc == 1) { /* a NULL key matches nothing */
			if (o->b.outer[0] && (rc = sl__joiner_emit_in(&o->b.j, 0, in, row, NULL, 0,
			                                              in->op[row], in->wm[row], err)))
				return rc;
			continue;
		}
		const void *rows;
		uint32_t len;
		if ((rc = o->lk->vt->lookup(o->lk, o->b.key.p, (uint32_t)o->b.key.len, now, &rows, &len,
		                            err)) ||
		    (rc = join_row(o, in, row, rows, len, err)))
			return rc;
	}
	return sl__joiner_flush(&o->b.j, err);
}

static int ljoin_open(sl_op *op, sl_err *err)
{
	ljoin_op *o = (ljoin_op *)op;
	static const char *const none[2] = {NULL, NULL};
	int rc = sl_lookup_open(o->lk, err); /* planning only configured it (conn.h) */
	return rc ? rc : sl__join_base_open(&o->b, none, err);
}

static void ljoin_close(sl_op *op)
{
	ljoin_op *o = (ljoin_op *)op;
	sl__join_base_close(&o->b);
	sl_lookup_free(o->lk);
	sl_buf_deinit(&o->keys);
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
	sl_join_base *b = sl__join_base_new(sizeof(ljoin_op), &ljoin_vtab, p, "lookup join", err);
	if (!b) {
		sl_lookup_free(lk);
		return NULL;
	}
	ljoin_op *o = (ljoin_op *)b;
	o->lk = lk;
	b->p.rkeys = NULL; /* the looked-up table is keyed by the lookup itself */
	if (!lk || p->nkeys < 1 || (p->kind != SL_JOIN_INNER && p->kind != SL_JOIN_LEFT)) {
		sl_err_set(err, SL_EPLAN, "a lookup join needs a lookup, an equality key and "
		                          "INNER or LEFT");
		sl_op_free(&b->op); /* calls its close */
		return NULL;
	}
	return &b->op;
}
