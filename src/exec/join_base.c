/*
 * join_base.c - the join base (join_base.h): construction, opening and
 * closing of a join operator's shared parts, and the search and counting
 * of a row in the record lists kept per join key in state values.  The
 * per-row helpers (key encoding, list load/store, the chunked matching of
 * an input row against a list of the other side) are inline in
 * join_base.h, for the reason given there.
 *
 * It sits between the join operators (op_*join.c) and the row helpers of
 * join_rows.c (records, the joiner).  It writes no bytes of its own: keys
 * are rowcodec.h's key form and records join_rows.c's, so an operator
 * moved onto the base writes the same state as before.  No allocation
 * per row (reused buffers); one thread, the job's.
 */
#include "join_base.h"
#include "graph.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

sl_join_base *sl__join_base_new(size_t size, const sl_op_vtab *vt, const sl_join_plan *p,
                                const char *what, sl_err *err)
{
	sl_join_base *b = calloc(1, size);
	if (!b) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	b->op.vt = vt;
	b->what = what;
	if (sl__join_plan_own(&b->p, b->keys, p, err))
		goto fail;
	b->types = malloc(sizeof(sl_type) * (size_t)(p->nl + p->nr + 1));
	if (!b->types) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		goto fail;
	}
	memset(b->types, 0, sizeof(sl_type) * (size_t)(p->nl + p->nr + 1));
	if (p->nl && p->ltypes) /* a plan the operator refuses may have none */
		memcpy(b->types, p->ltypes, sizeof(sl_type) * (size_t)p->nl);
	if (p->nr && p->rtypes)
		memcpy(b->types + p->nl, p->rtypes, sizeof(sl_type) * (size_t)p->nr);
	b->p.ltypes = b->types; /* the planner's arrays may go */
	b->p.rtypes = b->types + p->nl;
	b->outer[0] = p->kind == SL_JOIN_LEFT || p->kind == SL_JOIN_FULL;
	b->outer[1] = p->kind == SL_JOIN_RIGHT || p->kind == SL_JOIN_FULL;
	return b;
fail:
	free(b->keys[0]);
	free(b->keys[1]);
	free(b);
	return NULL;
}

int sl__join_base_table(sl_join_base *b, int s, const char *name, sl_err *err)
{
	sl_op *op = &b->op;
	b->st[s] = op->vt->flags & SL_OPF_TTL_PER_SIDE
	         ? sl_op_table_open(op, name, 0, s, 0, err)
	         : sl_state_table_open(op->state, op->uid, name, 0, err);
	return b->st[s] ? 0 : err->code;
}

int sl__join_base_open(sl_join_base *b, const char *const names[2], sl_err *err)
{
	for (int s = 0; s < 2; s++) {
		int rc = names[s] ? sl__join_base_table(b, s, names[s], err) : 0;
		if (rc)
			return rc;
	}
	return sl__joiner_init(&b->j, &b->op, &b->p, err);
}

void sl__join_base_close(sl_join_base *b)
{
	sl__joiner_deinit(&b->j);
	sl_buf_deinit(&b->key);
	free(b->keys[0]);
	free(b->keys[1]);
	free(b->types);
	b->keys[0] = b->keys[1] = NULL;
	b->types = NULL;
}


uint32_t sl__join_pkey(const void *ctx, const void *key, uint32_t klen, const void *val,
                       uint32_t vlen, const void **pk)
{
	const sl_state_pkey_cols_ctx *c = ctx;
	if (c->n > 0)
		return sl_state_pkey_cols(ctx, key, klen, val, vlen, pk);
	*pk = key; /* no equi-keys: one key, the empty one */
	return 0;
}

/* ---- record lists ------------------------------------------------------------ */


long sl__jlist_find(const sl_join_base *b, const sl_buf *list, const char *row, size_t len,
                    sl_err *err)
{
	const char *p = list->p, *end = p + list->len;
	while (p < end) {
		const char *at = p;
		sl_jrec r;
		if (sl__jrec_read(&p, end, &r)) {
			sl_err_set(err, SL_ESTATE, "%s state: malformed record", b->what);
			return -2;
		}
		if (r.len == len && memcmp(r.row, row, len) == 0)
			return at - list->p;
	}
	return -1;
}

int sl__jlist_count(sl_buf *list, const sl_batch *in, int row, int acc, long at, int64_t nm,
                    sl_err *err)
{
	if (at < 0)
		return sl__jrec_append(list, in, row, 1, nm, 0)
		     ? sl_err_set(err, SL_ENOMEM, "out of memory") : 0;
	const char *p = list->p + at;
	sl_jrec r;
	if (sl__jrec_read(&p, list->p + list->len, &r)) /* at came from sl__jlist_find */
		return sl_err_set(err, SL_ESTATE, "join state: malformed record");
	uint32_t count = acc ? r.count + 1 : r.count - 1;
	if (count == 0) {
		size_t sz = SL_JREC_HDR + r.len;
		memmove(list->p + at, list->p + at + sz, list->len - (size_t)at - sz);
		list->len -= sz;
	} else {
		sl__jrec_set(list->p + at, count, nm);
	}
	return 0;
}
