/*
 * op_rank.c - Top-N: ROW_NUMBER() OVER (PARTITION BY k ORDER BY x) with
 * WHERE rn <= N (or a rank range lo .. N, Flink's rank start), over an
 * append-only or a retracting input; also ORDER BY .. LIMIT (one
 * partition) and LIMIT alone (no ORDER BY: every row ties, so rows keep
 * arrival order); and the sorted-list helpers and the output set-up the
 * rank operators share (op_rank.h).
 *
 * RANK() / DENSE_RANK() (rank_row_peers): peers share a rank, so the
 * output is recomputed from the partition's list before and after the row
 * and the difference emitted: -D for each (row, rank) that left, then +I
 * for each that entered.  Over an append-only input the list keeps the
 * rows whose rank is <= N (peers of the last rank included; a row that
 * falls below can never come back), over an updating one every row.
 *
 * Rank ranges: the list keeps ranks 1 .. N as always, but only ranks lo ..
 * N are output: with rn, the -U/+U/+I/-D below start at rank lo; without
 * it, a row inserted above lo brings the row pushed down to rank lo into
 * the output (+I), and a retraction above lo takes the row moving up out
 * of rank lo out of it (-D).
 *
 * INTERFACE ROUTINES
 *   process    inserts each row into its partition's sorted top-N list and
 *              emits the change (Flink's AppendOnlyTopNFunction):
 *              without the rn column, +I for the row that entered and -D
 *              (before it) for the row it pushed out of the top N, except
 *              for a Top-1 (rank range 1 .. 1), keyed by the partition key
 *              as Flink's FastTop1Function: -U old / +U new; with the
 *              rn column, for every rank from the new row's down to the
 *              last, -U [old row, r] / +U [new row, r], or +I [row, r] for
 *              a rank that was empty.  A row that does not enter the top N
 *              emits nothing (over an append-only input ROW_NUMBER knows it
 *              from the row's sort key and the N-th entry, before the row
 *              is encoded or the list copied).  Over an updating input (Flink's
 *              RetractableTopNFunction) a -U/-D row removes an equal row
 *              of its partition; if it was in the top N: without rn, -D of
 *              it and +I of the row that moves up into the top N; with rn,
 *              -U/+U for every rank from its own down, -D for a rank that
 *              empties.  A Top-1's rn is the constant 1 and its changes
 *              are those without rn (Flink's RankNumberColumnRemoveRule).  When the planner finds Flink's update-fast
 *              strategy (p->update_fast: the input's upsert key holds the
 *              partition key and the sort key only moves towards the top,
 *              e.g. COUNT DESC over a GROUP BY) it follows Flink's
 *              FastTop1Function / UpdatableTopNFunction instead
 *              (rank_row_uf: -U old / +U new for a row that moves).
 *   watermark  forwarded unchanged (the output is updating and has no time
 *              attribute)
 *
 * State: table "topn", namespace 0, key = encoded PARTITION BY key, value =
 * the partition's sorted list (op_rank.h): at most N entries, best first,
 * ties in arrival order.  Over an append-only input rows that fall out
 * are forgotten (they can never come back); over an updating input every
 * row of the partition is kept (a retraction may bring one back into the
 * top N; cost: the partition's size per row) and the key is deleted when
 * its last row is retracted; with the update-fast strategy only the top N
 * rows are kept (a row never falls back).  Otherwise the state of a partition is never
 * freed (no state TTL yet), as in Flink without TTL.
 *
 * Output rows carry the input row's W_before; a run-time error downstream
 * in one of them comes back as that input row (err.h), which the scan
 * upstream names.  One thread; no malloc per row (the list is rebuilt in a
 * reused buffer).
 */
#include "op_rank.h"
#include "emit.h"
#include "graph.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

/* ---- shared helpers ------------------------------------------------------ */

int sl__rank_plan_copy(sl_rank_plan *dst, const sl_rank_plan *src)
{
	*dst = *src;
	int *kc = calloc((size_t)src->nkeys + 1, sizeof(int));
	int *uc = calloc((size_t)src->nukey + 1, sizeof(int));
	int *oc = calloc((size_t)src->norder + 1, sizeof(int));
	uint8_t *d = calloc((size_t)src->norder + 1, 1), *nf = calloc((size_t)src->norder + 1, 1);
	if (!kc || !uc || !oc || !d || !nf) {
		free(kc);
		free(uc);
		free(oc);
		free(d);
		free(nf);
		memset(dst, 0, sizeof(*dst));
		return SL_ENOMEM;
	}
	if (src->nkeys)
		memcpy(kc, src->key_cols, sizeof(int) * (size_t)src->nkeys);
	if (src->norder) {
		memcpy(oc, src->order_cols, sizeof(int) * (size_t)src->norder);
		memcpy(d, src->desc, (size_t)src->norder);
		memcpy(nf, src->nulls_first, (size_t)src->norder);
	}
	if (src->nukey)
		memcpy(uc, src->ukey_cols, sizeof(int) * (size_t)src->nukey);
	dst->key_cols = kc;
	dst->ukey_cols = uc;
	dst->order_cols = oc;
	dst->desc = d;
	dst->nulls_first = nf;
	return 0;
}

void sl__rank_plan_free(sl_rank_plan *p)
{
	free((void *)p->key_cols);
	free((void *)p->ukey_cols);
	free((void *)p->order_cols);
	free((void *)p->desc);
	free((void *)p->nulls_first);
	memset(p, 0, sizeof(*p));
}

int sl__rank_out_types(const sl_rank_plan *p, const sl_type *in_types, int nin, sl_type *t)
{
	memcpy(t, in_types, sizeof(sl_type) * (size_t)nin);
	if (!p->out_rn)
		return nin;
	t[nin] = sl_type_make(SL_T_BIGINT);
	t[nin].notnull = 1;
	return nin + 1;
}

int sl__rank_entry_key(const sl_rank_plan *p, const sl_batch *in, int row, sl_buf *out)
{
	sl_buf_clear(out);
	uint32_t z = 0;
	if (sl_buf_append(out, &z, 4) || sl_buf_append(out, &z, 4) ||
	    sl_rowcodec_key(in, p->order_cols, p->norder, row, out))
		return SL_ENOMEM;
	uint32_t klen = (uint32_t)out->len - 8;
	memcpy(out->p, &klen, 4);
	return 0;
}

int sl__rank_entry_row(const sl_batch *in, int row, sl_buf *out)
{
	uint32_t klen;
	memcpy(&klen, out->p, 4);
	out->len = 8 + (size_t)klen;
	if (sl_rowcodec_row(in, row, out)) /* the row form: output as given, -0.0 too */
		return SL_ENOMEM;
	uint32_t rlen = (uint32_t)out->len - 8 - klen;
	memcpy(out->p + 4, &rlen, 4);
	return 0;
}

int sl__rank_entry(const sl_rank_plan *p, const sl_batch *in, int row, sl_buf *out)
{
	return sl__rank_entry_key(p, in, row, out) || sl__rank_entry_row(in, row, out) ? SL_ENOMEM
	                                                                               : 0;
}

/* Compares two non-NULL encoded values of physical kind `phys`; advances
 * both cursors past them. */
int sl__rank_cmp_value(int phys, const uint8_t **pa, const uint8_t **pb)
{
	const uint8_t *a = *pa, *b = *pb;
	int r = 0;
	switch (phys) {
	case SL_PHYS_I64: {
		int64_t x, y;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		r = (x > y) - (x < y);
		a += 8, b += 8;
		break;
	}
	case SL_PHYS_F64: {
		double x, y;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		r = (x > y) - (x < y);
		a += 8, b += 8;
		break;
	}
	case SL_PHYS_I128: {
		sl_i128 x, y;
		memcpy(&x, a, 16);
		memcpy(&y, b, 16);
		r = (x > y) - (x < y);
		a += 16, b += 16;
		break;
	}
	default: { /* strings: bytewise, a prefix first */
		uint32_t la, lb;
		memcpy(&la, a, 4);
		memcpy(&lb, b, 4);
		int c = memcmp(a + 4, b + 4, la < lb ? la : lb);
		r = c ? (c > 0) - (c < 0) : (la > lb) - (la < lb);
		a += 4 + la, b += 4 + lb;
		break;
	}
	}
	*pa = a;
	*pb = b;
	return r;
}

/* Skips one non-NULL encoded value. */
const uint8_t *sl__rank_skip_value(int phys, const uint8_t *a)
{
	if (phys == SL_PHYS_STR) {
		uint32_t l;
		memcpy(&l, a, 4);
		return a + 4 + l;
	}
	return a + (phys == SL_PHYS_I128 ? 16 : 8);
}

int sl__rank_cmp(const sl_rank_plan *p, const sl_type *in_types, const uint8_t *a,
                 const uint8_t *b)
{
	a += 8, b += 8; /* entry headers */
	for (int i = 0; i < p->norder; i++) {
		int phys = sl_type_phys(in_types[p->order_cols[i]]);
		int na = *a++, nb = *b++, r;
		if (na || nb) {
			if (!na)
				a = sl__rank_skip_value(phys, a);
			if (!nb)
				b = sl__rank_skip_value(phys, b);
			if (na && nb)
				continue;
			r = na ? -1 : 1; /* NULL first */
			if (!p->nulls_first[i])
				r = -r;
			return r;
		}
		r = sl__rank_cmp_value(phys, &a, &b);
		if (r)
			return p->desc[i] ? -r : r;
	}
	return 0;
}

int sl__rank_list_count(const void *list, uint32_t len)
{
	uint32_t n = 0;
	if (list && len >= 4)
		memcpy(&n, list, 4);
	return (int)n;
}

const uint8_t *sl__rank_list_at(const void *list, int i)
{
	const uint8_t *e = (const uint8_t *)list + 4;
	while (i-- > 0)
		e += sl__rank_entry_size(e);
	return e;
}

int sl__rank_list_insert(const sl_rank_plan *p, const sl_type *in_types, const void *list,
                         uint32_t len, const uint8_t *e, sl_buf *out, int *pos,
                         const uint8_t **evicted)
{
	int n = sl__rank_list_count(list, len);
	const uint8_t *cur = n ? (const uint8_t *)list + 4 : NULL;
	int at = n;
	const uint8_t *c = cur;
	for (int i = 0; i < n; i++, c += sl__rank_entry_size(c)) {
		int cmp = sl__rank_cmp(p, in_types, e, c);
		if (cmp < 0 || (cmp == 0 && p->ties_last)) {
			at = i;
			break;
		}
	}
	*evicted = NULL;
	sl_buf_clear(out);
	if (at >= p->n) {
		*pos = -1;
		uint32_t z = 0;
		return n ? sl_buf_append(out, list, len) : sl_buf_append(out, &z, 4);
	}
	*pos = at;
	uint32_t nn = (uint32_t)(n < p->n ? n + 1 : n);
	if (sl_buf_append(out, &nn, 4))
		return SL_ENOMEM;
	c = cur;
	for (int i = 0; i < n; i++, c += sl__rank_entry_size(c)) {
		if (i == at && sl_buf_append(out, e, sl__rank_entry_size(e)))
			return SL_ENOMEM;
		if (i + (i >= at) >= p->n) {
			*evicted = c;
			break;
		}
		if (sl_buf_append(out, c, sl__rank_entry_size(c)))
			return SL_ENOMEM;
	}
	if (at == n && sl_buf_append(out, e, sl__rank_entry_size(e)))
		return SL_ENOMEM;
	return 0;
}

int64_t sl__rank_value(const sl_rank_plan *p, const sl_type *in_types, const uint8_t *prev,
                       const uint8_t *cur, int i, int64_t last)
{
	if (!prev)
		return 1;
	if (p->fn == SL_RANKFN_ROW_NUMBER)
		return i + 1;
	if (sl__rank_cmp(p, in_types, prev, cur) == 0)
		return last; /* a peer */
	return p->fn == SL_RANKFN_RANK ? i + 1 : last + 1;
}

uint32_t sl__rank_prune(const sl_rank_plan *p, const sl_type *in_types, void *list, uint32_t len)
{
	int n = sl__rank_list_count(list, len);
	const uint8_t *prev = NULL, *e = n ? sl__rank_list_at(list, 0) : NULL;
	int64_t r = 0;
	for (int i = 0; i < n; i++) {
		r = sl__rank_value(p, in_types, prev, e, i, r);
		if (r > p->n) {
			uint32_t keep = (uint32_t)i;
			memcpy(list, &keep, 4);
			return (uint32_t)(e - (const uint8_t *)list);
		}
		prev = e;
		e += sl__rank_entry_size(e);
	}
	return len;
}

int sl__rank_decode_row(const uint8_t *e, sl_batch *b, sl_col *const *cols, int nin, int row)
{
	uint32_t k, r;
	memcpy(&k, e, 4);
	memcpy(&r, e + 4, 4);
	return sl_rowcodec_decode(e + 8 + k, r, b, cols, nin, row) < 0 ? SL_ESTATE : 0;
}

int sl__rank_open_out(sl_op *op, struct sl_emitter *out, int track_src, sl_col ***cols, int nin,
                      sl_buf *key, sl_err *err)
{
	if (sl_emitter_init(out, op, 0, err))
		return err->code;
	if (!(*cols = calloc((size_t)nin + 1, sizeof(sl_col *))) ||
	    (track_src && sl_emitter_track_src(out, err)))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < nin; i++)
		(*cols)[i] = &out->b->cols[i];
	/* an empty PARTITION BY encodes to 0 bytes: keep key->p non-NULL (the
	 * backends memcmp/memcpy it) */
	if (sl_buf_reserve(key, 64))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

/* ---- the Top-N operator ---------------------------------------------------- */

typedef struct rank_op {
	sl_op base;
	sl_rank_plan p;
	int nin;
	sl_type *in_types;
	sl_state_table *topn;
	sl_emitter out;     /* emit.h */
	sl_col **cols;      /* output columns 0..nin) for decoding */
	sl_buf key, entry, list, old;
	sl_buf pairs;       /* RANK / DENSE_RANK: the output rows before and after */
	sl_buf ukey, ukey2; /* update-fast: upsert keys of the input row, an entry */
	sl_type *ukey_types;  /* their column types */
	int canon_row;      /* rows' two forms can differ (rowcodec.h): entries that are
	                     * not byte-equal may still be equal rows */
	int canon_ukey;     /* the same for the upsert key's columns */
	int cur_row;        /* the input row being processed (emitter sources) */
} rank_op;

/* Emits o->out; a run-time error downstream in one of its rows comes back
 * as the input row whose change produced it (err.h), named by the scan
 * upstream. */
static int flush(rank_op *o, sl_err *err)
{
	return sl_emitter_flush(&o->out, err);
}

/* 1 when the changes carry the row number (-U/+U per rank that changes).
 * A Top-1's row number (rank range 1 .. 1) is the constant 1: Flink drops
 * the column and emits the changes of a Top-N without it (its
 * RankNumberColumnRemoveRule; over a retracting input -D old / +I new). */
static int rn_changes(const sl_rank_plan *p)
{
	return p->out_rn && !(p->n == 1 && p->lo <= 1);
}

/* Appends entry e with kind `kind` and rank r to the output (r = 0 from
 * the changes without the row number: a Top-1's rank 1). */
static int put_row(rank_op *o, const uint8_t *e, uint8_t kind, int64_t r, int64_t wm, sl_err *err)
{
	int row = sl_emitter_row(&o->out, kind, wm, err);
	if (row < 0)
		return row;
	sl_emitter_set_src(&o->out, row, o->cur_row);
	if (sl__rank_decode_row(e, o->out.b, o->cols, o->nin, row))
		return sl_err_set(err, SL_ESTATE, "Top-N state: malformed row");
	if (o->p.out_rn)
		sl_col_set_i64(&o->out.b->cols[o->nin], row, r > 0 ? r : 1);
	return 0;
}

/* 1 when list entry c holds the same row as entry e (o->entry) as the key
 * form defines equality: equal bytes, or (DOUBLE columns) equal sort keys
 * and rows equal by sl_rowcodec_equal (-0.0 = 0.0; an entry written by a
 * version that stored rows in the key form matches the row form). */
static int same_entry(const rank_op *o, const uint8_t *c, const uint8_t *e, uint32_t esz)
{
	if (sl__rank_entry_size(c) != esz)
		return 0;
	if (!memcmp(c, e, esz))
		return 1;
	if (!o->canon_row)
		return 0;
	uint32_t ck, cr, ek, er;
	memcpy(&ck, c, 4), memcpy(&cr, c + 4, 4);
	memcpy(&ek, e, 4), memcpy(&er, e + 4, 4);
	return ck == ek && !memcmp(c + 8, e + 8, ck) &&
	       sl_rowcodec_equal(o->in_types, o->nin, c + 8 + ck, cr, e + 8 + ek, er);
}

/* o->list := the list in o->old without its first entry equal to
 * o->entry (same_entry).  *at: that entry's index in o->old, -1 when none
 * is equal (o->list is then unchanged); *hole: its bytes in o->old.
 * Returns 0 or SL_ENOMEM. */
static int list_remove(rank_op *o, int *at, const uint8_t **hole)
{
	int oldn = sl__rank_list_count(o->old.p, (uint32_t)o->old.len);
	const uint8_t *e = (const uint8_t *)o->entry.p;
	uint32_t esz = sl__rank_entry_size(e);
	const uint8_t *c = oldn ? sl__rank_list_at(o->old.p, 0) : NULL;
	*at = -1;
	for (int i = 0; i < oldn; i++, c += sl__rank_entry_size(c))
		if (same_entry(o, c, e, esz)) {
			*at = i;
			break;
		}
	if (*at < 0)
		return 0;
	*hole = c;
	uint32_t nn = (uint32_t)oldn - 1;
	const uint8_t *base = sl__rank_list_at(o->old.p, 0);
	const uint8_t *end = (const uint8_t *)o->old.p + o->old.len;
	sl_buf_clear(&o->list);
	if (sl_buf_append(&o->list, &nn, 4) || sl_buf_append(&o->list, base, (size_t)(c - base)) ||
	    sl_buf_append(&o->list, c + esz, (size_t)(end - c - esz)))
		return SL_ENOMEM;
	return 0;
}

/* Retracting input: removes the row equal to o->entry from the list in
 * o->old and emits the change. */
static int rank_retract(rank_op *o, int64_t wm, sl_err *err)
{
	int oldn = sl__rank_list_count(o->old.p, (uint32_t)o->old.len), at, rc;
	const uint8_t *hole;
	if (list_remove(o, &at, &hole))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (at < 0)
		return 0; /* retraction of a row never seen (as Flink: ignored) */
	uint32_t nn = (uint32_t)oldn - 1; /* o->list: every entry but `at` */
	if (nn == 0)
		sl_state_delete(o->topn, 0, o->key.p, (uint32_t)o->key.len);
	else if ((rc = sl_state_put_var(o->topn, 0, o->key.p, (uint32_t)o->key.len, o->list.p,
	                                (uint32_t)o->list.len)))
		return sl_err_set(err, rc, "Top-N: state write failed");
	if (at >= o->p.n)
		return 0;
	int lo = o->p.lo > 1 ? (int)o->p.lo - 1 : 0; /* first output rank, 0-based */
	if (!rn_changes(&o->p)) {
		/* the range loses the removed row, or (removed above it) the row
		 * that moves up out of it, and gains the row moving up into it */
		const uint8_t *gone = at >= lo ? hole : oldn > lo ? sl__rank_list_at(o->old.p, lo) : NULL;
		if (gone && (rc = put_row(o, gone, SL_DELETE, 0, wm, err)))
			return rc;
		return oldn > o->p.n ? put_row(o, sl__rank_list_at(o->list.p, (int)o->p.n - 1),
		                               SL_INSERT, 0, wm, err) : 0;
	}
	int from = at > lo ? at : lo;
	if (from >= oldn)
		return 0;
	const uint8_t *oe = sl__rank_list_at(o->old.p, from);
	const uint8_t *ne = nn > (uint32_t)from ? sl__rank_list_at(o->list.p, from) : NULL;
	for (int r = from; r < oldn && r < o->p.n; r++) {
		if (r < (int)nn) {
			if ((rc = put_row(o, oe, SL_UPDATE_BEFORE, r + 1, wm, err)) ||
			    (rc = put_row(o, ne, SL_UPDATE_AFTER, r + 1, wm, err)))
				return rc;
			ne += sl__rank_entry_size(ne);
		} else if ((rc = put_row(o, oe, SL_DELETE, r + 1, wm, err))) {
			return rc;
		}
		oe += sl__rank_entry_size(oe);
	}
	return 0;
}

/* ---- RANK and DENSE_RANK ---------------------------------------------------- */

typedef struct out_pair {
	const uint8_t *e; /* entry in o->old or o->list */
	int64_t rank;
	int matched;
} out_pair;

/* Appends the (entry, rank) pairs of list that are output (rank in lo..n)
 * to o->pairs; returns how many. */
static int collect_pairs(rank_op *o, const void *list, uint32_t len)
{
	int n = sl__rank_list_count(list, len), k = 0;
	const uint8_t *prev = NULL, *e = n ? sl__rank_list_at(list, 0) : NULL;
	int64_t r = 0;
	for (int i = 0; i < n; i++, prev = e, e += sl__rank_entry_size(e)) {
		r = sl__rank_value(&o->p, o->in_types, prev, e, i, r);
		if (r > o->p.n)
			break;
		if (r < o->p.lo)
			continue;
		out_pair op = {e, r, 0};
		if (sl_buf_append(&o->pairs, &op, sizeof(op)))
			return -1;
		k++;
	}
	return k;
}

/* Emits the change between the output of the list in o->old and of the
 * one in o->list: -D for every (row, rank) that left it, then +I for every
 * one that entered (rows equal as multisets; with the rank column, a row
 * whose rank changed leaves and enters). */
static int emit_rank_diff(rank_op *o, int64_t wm, sl_err *err)
{
	sl_buf_clear(&o->pairs);
	int na = collect_pairs(o, o->old.p, (uint32_t)o->old.len);
	int nb = na < 0 ? -1 : collect_pairs(o, o->list.p, (uint32_t)o->list.len);
	if (nb < 0)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	out_pair *a = (out_pair *)o->pairs.p, *b = a + na;
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++) {
			if (b[j].matched || (o->p.out_rn && a[i].rank != b[j].rank))
				continue;
			uint32_t sz = sl__rank_entry_size(a[i].e);
			if (sz == sl__rank_entry_size(b[j].e) && !memcmp(a[i].e, b[j].e, sz)) {
				a[i].matched = b[j].matched = 1;
				break;
			}
		}
	int rc;
	for (int i = 0; i < na; i++)
		if (!a[i].matched && (rc = put_row(o, a[i].e, SL_DELETE, a[i].rank, wm, err)))
			return rc;
	for (int j = 0; j < nb; j++)
		if (!b[j].matched && (rc = put_row(o, b[j].e, SL_INSERT, b[j].rank, wm, err)))
			return rc;
	return 0;
}

/* RANK / DENSE_RANK: the new list (the row added or, retracting, removed;
 * over an append-only input pruned to the rows that can still rank), then
 * the difference of the output. */
static int rank_row_peers(rank_op *o, const sl_batch *in, int row, int add, sl_err *err)
{
	int rc;
	if (add) {
		sl_rank_plan all = o->p;
		all.n = INT64_MAX;
		int pos;
		const uint8_t *ev;
		if (sl__rank_list_insert(&all, o->in_types, o->old.p, (uint32_t)o->old.len,
		                         (const uint8_t *)o->entry.p, &o->list, &pos, &ev))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		if (!o->p.retract)
			o->list.len = sl__rank_prune(&o->p, o->in_types, o->list.p, (uint32_t)o->list.len);
	} else {
		int at;
		const uint8_t *hole;
		if (list_remove(o, &at, &hole))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		if (at < 0)
			return 0; /* retraction of a row never seen (as Flink: ignored) */
	}
	if (sl__rank_list_count(o->list.p, (uint32_t)o->list.len) == 0)
		sl_state_delete(o->topn, 0, o->key.p, (uint32_t)o->key.len);
	else if ((rc = sl_state_put_var(o->topn, 0, o->key.p, (uint32_t)o->key.len, o->list.p,
	                                (uint32_t)o->list.len)))
		return sl_err_set(err, rc, "Top-N: state write failed");
	return emit_rank_diff(o, in->wm[row], err);
}

/* ---- the update-fast strategy ------------------------------------------------ */

/* Skips one encoded column of type t (null byte, then the value; a ROW's
 * fields each encoded the same way, rowcodec.h). */
static const uint8_t *skip_col(sl_type t, const uint8_t *c)
{
	if (*c++)
		return c; /* NULL */
	if (sl_type_phys(t) != SL_PHYS_ROW)
		return sl__rank_skip_value(sl_type_phys(t), c);
	for (int f = 0; t.row && f < t.row->nfields; f++)
		c = skip_col(t.row->fields[f].type, c);
	return c;
}

/* Appends the upsert key of list entry e (the encodings of the key columns,
 * as the entry holds them: the row form, or the key form in entries of
 * earlier versions) to out. */
static int entry_ukey(rank_op *o, const uint8_t *e, sl_buf *out)
{
	uint32_t k;
	memcpy(&k, e, 4);
	const uint8_t *row = e + 8 + k;
	for (int m = 0; m < o->p.nukey; m++) {
		const uint8_t *c = row;
		for (int i = 0; i < o->p.ukey_cols[m]; i++)
			c = skip_col(o->in_types[i], c);
		const uint8_t *end = skip_col(o->in_types[o->p.ukey_cols[m]], c);
		if (sl_buf_append(out, c, (size_t)(end - c)))
			return SL_ENOMEM;
	}
	return 0;
}

/* Index of the entry of list (n entries) with the upsert key of input row
 * `row`, or -1; *rc = SL_ENOMEM on failure. */
static int find_ukey(rank_op *o, const sl_batch *in, int row, const void *list, int n, int *rc)
{
	sl_buf_clear(&o->ukey);
	*rc = sl_rowcodec_key(in, o->p.ukey_cols, o->p.nukey, row, &o->ukey) ? SL_ENOMEM : 0;
	const uint8_t *c = n ? sl__rank_list_at(list, 0) : NULL;
	for (int i = 0; i < n && !*rc; i++, c += sl__rank_entry_size(c)) {
		sl_buf_clear(&o->ukey2);
		if ((*rc = entry_ukey(o, c, &o->ukey2)))
			break;
		if (o->ukey2.len == o->ukey.len &&
		    (!memcmp(o->ukey2.p, o->ukey.p, o->ukey.len) ||
		     (o->canon_ukey && sl_rowcodec_equal(o->ukey_types, o->p.nukey, o->ukey2.p,
		                                         (uint32_t)o->ukey2.len, o->ukey.p,
		                                         (uint32_t)o->ukey.len))))
			return i;
	}
	return -1;
}

/* Emits rank r (0-based) of the old list (-U) and of the new one (+U) for
 * r in first .. last (both within both lists), ranks below lo left out;
 * `at` is the old rank of the updated row, retracted with the first rank
 * (Flink's UpdatableTopNFunction order). */
static int uf_emit_ranks(rank_op *o, int first, int last, int at, int64_t wm, sl_err *err)
{
	int lo = o->p.lo > 1 ? (int)o->p.lo - 1 : 0, rc;
	for (int r = first > lo ? first : lo; r <= last; r++) {
		if (r != at && (rc = put_row(o, sl__rank_list_at(o->old.p, r), SL_UPDATE_BEFORE, r + 1,
		                             wm, err)))
			return rc;
		if (r == (first > lo ? first : lo) && at >= lo &&
		    (rc = put_row(o, sl__rank_list_at(o->old.p, at), SL_UPDATE_BEFORE, at + 1, wm, err)))
			return rc;
		if ((rc = put_row(o, sl__rank_list_at(o->list.p, r), SL_UPDATE_AFTER, r + 1, wm, err)))
			return rc;
	}
	return 0;
}

/*
 * Flink's update-fast strategy: the input is an upsert stream keyed by the
 * upsert key (Flink's aggregate sends no -U to it; sluice's does and they
 * are skipped here) in which a row's sort key only moves towards the top.
 * The list keeps the top N rows only.
 *   Top-1 (FastTop1Function): +I for a partition's first row, then -U old
 *   / +U new when a row sorts strictly before the top row (an update of
 *   the top row to an equal sort key emits nothing).
 *   Top-N without rn and from rank 1 (UpdatableTopNFunction): a row whose
 *   upsert key is in the top N moves and emits -U old / +U new; another
 *   row entering the top N emits -D for the row it pushes out, then +I.
 *   With rn or a rank range from lo > 1: a row of the top N updated in
 *   place (same sort key) emits -U / +U at its rank; one that moves up
 *   emits -U / +U for every rank from its new one to its old one; a new
 *   row emits -U / +U for every rank from its own down (+I for a rank that
 *   was empty); only ranks lo .. N are output.
 */
static int rank_row_uf(rank_op *o, const sl_batch *in, int row, sl_err *err)
{
	if (in->op[row] == SL_UPDATE_BEFORE)
		return 0;
	if (in->op[row] == SL_DELETE)
		return sl_err_set(err, SL_EINPUT, "Top-N (update-fast strategy): the input deleted a "
		                  "row, which its planning excluded");
	int64_t wm = in->wm[row];
	int n = (int)(o->p.n < INT32_MAX ? o->p.n : INT32_MAX);
	int oldn = sl__rank_list_count(o->old.p, (uint32_t)o->old.len), rc;
	if (oldn > n) { /* a list of the retract strategy (an older plan): its top N */
		memcpy(o->old.p, &n, 4);
		o->old.len = (size_t)(sl__rank_list_at(o->old.p, n) - (const uint8_t *)o->old.p);
		oldn = n;
	}
	const uint8_t *e = (const uint8_t *)o->entry.p;
	int rn = o->p.out_rn || o->p.lo > 1;
	if (n == 1) { /* FastTop1Function */
		const uint8_t *top = oldn ? sl__rank_list_at(o->old.p, 0) : NULL;
		if (top && sl__rank_cmp(&o->p, o->in_types, e, top) >= 0)
			return 0;
		uint32_t one = 1;
		sl_buf_clear(&o->list);
		if (sl_buf_append(&o->list, &one, 4) || sl_buf_append(&o->list, e, sl__rank_entry_size(e)))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		if ((rc = sl_state_put_var(o->topn, 0, o->key.p, (uint32_t)o->key.len, o->list.p,
		                           (uint32_t)o->list.len)))
			return sl_err_set(err, rc, "Top-N: state write failed");
		if (!top)
			return put_row(o, e, SL_INSERT, 1, wm, err);
		return (rc = put_row(o, top, SL_UPDATE_BEFORE, 1, wm, err)) ? rc
		     : put_row(o, e, SL_UPDATE_AFTER, 1, wm, err);
	}
	int at = find_ukey(o, in, row, o->old.p, oldn, &rc), pos;
	if (rc)
		return sl_err_set(err, rc, "out of memory");
	const uint8_t *ev = NULL;
	if (at >= 0) {
		const uint8_t *oe = sl__rank_list_at(o->old.p, at);
		uint32_t osz = sl__rank_entry_size(oe);
		const uint8_t *base = sl__rank_list_at(o->old.p, 0);
		const uint8_t *end = (const uint8_t *)o->old.p + o->old.len;
		int same = sl__rank_cmp(&o->p, o->in_types, e, oe) == 0;
		/* the list without the row, then the new row (in its place when
		 * the sort key is the same) */
		uint32_t nn = (uint32_t)oldn - (same ? 0 : 1);
		sl_buf_clear(&o->list);
		if (sl_buf_append(&o->list, &nn, 4) || sl_buf_append(&o->list, base, (size_t)(oe - base)) ||
		    (same && sl_buf_append(&o->list, e, sl__rank_entry_size(e))) ||
		    sl_buf_append(&o->list, oe + osz, (size_t)(end - oe - osz)))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		pos = at;
		if (!same) {
			sl_buf tmp = o->list;
			o->list = o->pairs; /* pairs is free scratch here */
			o->pairs = tmp;
			if (sl__rank_list_insert(&o->p, o->in_types, o->pairs.p, (uint32_t)o->pairs.len, e,
			                         &o->list, &pos, &ev))
				return sl_err_set(err, SL_ENOMEM, "out of memory");
		}
	} else {
		if (sl__rank_list_insert(&o->p, o->in_types, o->old.p, (uint32_t)o->old.len, e, &o->list,
		                         &pos, &ev))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		if (pos < 0)
			return 0;
	}
	if ((rc = sl_state_put_var(o->topn, 0, o->key.p, (uint32_t)o->key.len, o->list.p,
	                           (uint32_t)o->list.len)))
		return sl_err_set(err, rc, "Top-N: state write failed");
	if (!rn) {
		if (at >= 0)
			return (rc = put_row(o, sl__rank_list_at(o->old.p, at), SL_UPDATE_BEFORE, 0, wm,
			                     err)) ? rc : put_row(o, e, SL_UPDATE_AFTER, 0, wm, err);
		if (ev && (rc = put_row(o, ev, SL_DELETE, 0, wm, err)))
			return rc;
		return put_row(o, e, SL_INSERT, 0, wm, err);
	}
	if (at >= 0) /* ranks between the old and the new place change */
		return uf_emit_ranks(o, pos < at ? pos : at, pos < at ? at : pos, at, wm, err);
	int newn = sl__rank_list_count(o->list.p, (uint32_t)o->list.len);
	int lo = o->p.lo > 1 ? (int)o->p.lo - 1 : 0;
	for (int r = pos > lo ? pos : lo; r < newn; r++) {
		const uint8_t *ne = sl__rank_list_at(o->list.p, r);
		if (r < oldn) {
			if ((rc = put_row(o, sl__rank_list_at(o->old.p, r), SL_UPDATE_BEFORE, r + 1, wm,
			                  err)) ||
			    (rc = put_row(o, ne, SL_UPDATE_AFTER, r + 1, wm, err)))
				return rc;
		} else if ((rc = put_row(o, ne, SL_INSERT, r + 1, wm, err))) {
			return rc;
		}
	}
	return 0;
}

/*
 * 1 when the sort key in o->entry (its key part: sl__rank_entry_key) does
 * not rank before the N-th entry of the partition's list (v, vlen): a
 * ROW_NUMBER row of an append-only input then cannot enter the top N (ties
 * keep arrival order, so it would come after that entry), and the row
 * need not be encoded nor the list copied.  Why: in Nexmark q9 (Top-1 bid
 * per auction) most rows are not a new maximum, and encoding each whole
 * joined row (sl_rowcodec_row) before looking was 9.5% of the query's
 * instructions.
 */
static int below_top_n(const rank_op *o, const void *v, uint32_t vlen)
{
	int n = sl__rank_list_count(v, vlen);
	if (n < o->p.n)
		return 0;
	const uint8_t *last = sl__rank_list_at(v, (int)o->p.n - 1);
	return sl__rank_cmp(&o->p, o->in_types, (const uint8_t *)o->entry.p, last) >= 0;
}

/* One input row: insert (or, retracting, remove) it and emit the change. */
static int rank_row(rank_op *o, const sl_batch *in, int row, sl_err *err)
{
	int add = in->op[row] == SL_INSERT || in->op[row] == SL_UPDATE_AFTER;
	if (!o->p.retract && in->op[row] != SL_INSERT)
		return sl_err_set(err, SL_EINPUT, "Top-N: the input must be append-only");
	sl_buf_clear(&o->key);
	if (sl_rowcodec_key(in, o->p.key_cols, o->p.nkeys, row, &o->key) ||
	    sl__rank_entry_key(&o->p, in, row, &o->entry))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	const void *v = NULL;
	uint32_t vlen = 0;
	sl_state_get_var(o->topn, 0, o->key.p, (uint32_t)o->key.len, &v, &vlen);
	if (!o->p.retract && !o->p.update_fast && o->p.fn == SL_RANKFN_ROW_NUMBER &&
	    below_top_n(o, v, vlen))
		return 0; /* append-only: a row that does not enter the top N changes nothing */
	if (sl__rank_entry_row(in, row, &o->entry))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	/* keep the old list: the value's bytes die with the next call on topn */
	sl_buf_clear(&o->old);
	if (v && sl_buf_append(&o->old, v, vlen))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (o->p.update_fast)
		return rank_row_uf(o, in, row, err);
	if (o->p.fn != SL_RANKFN_ROW_NUMBER)
		return rank_row_peers(o, in, row, add, err);
	if (!add)
		return rank_retract(o, in->wm[row], err);
	int pos;
	const uint8_t *ev;
	/* retracting: every row is kept, the top N is the list's head */
	sl_rank_plan all = o->p;
	if (o->p.retract)
		all.n = INT64_MAX;
	if (sl__rank_list_insert(&all, o->in_types, o->old.p, (uint32_t)o->old.len,
	                         (const uint8_t *)o->entry.p, &o->list, &pos, &ev))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (pos < 0 || pos >= o->p.n) {
		if (!o->p.retract)
			return 0;
		ev = NULL;
	} else if (o->p.retract && sl__rank_list_count(o->old.p, (uint32_t)o->old.len) >= o->p.n) {
		ev = sl__rank_list_at(o->old.p, (int)o->p.n - 1); /* pushed out of the top N */
	}
	int rc = sl_state_put_var(o->topn, 0, o->key.p, (uint32_t)o->key.len, o->list.p,
	                          (uint32_t)o->list.len);
	if (rc)
		return sl_err_set(err, rc, "Top-N: state write failed");
	if (pos >= o->p.n)
		return 0;
	int64_t wm = in->wm[row];
	int lo = o->p.lo > 1 ? (int)o->p.lo - 1 : 0; /* first output rank, 0-based */
	int oldn = sl__rank_list_count(o->old.p, (uint32_t)o->old.len);
	int newn = sl__rank_list_count(o->list.p, (uint32_t)o->list.len);
	if (!rn_changes(&o->p)) {
		/* the range gains the new row, or (inserted above it) the row
		 * pushed down into it, and loses the row pushed out of the top N */
		const uint8_t *in_e = pos >= lo ? (const uint8_t *)o->entry.p
		                    : newn > lo ? sl__rank_list_at(o->list.p, lo) : NULL;
		/* Top-1 over an append-only input: the partition key is a unique
		 * key of the output, so the change is -U old / +U new (as Flink's
		 * FastTop1Function) */
		int top1 = o->p.n == 1 && lo == 0 && !o->p.retract;
		if (ev && oldn > lo &&
		    (rc = put_row(o, ev, top1 ? SL_UPDATE_BEFORE : SL_DELETE, 0, wm, err)))
			return rc;
		return in_e ? put_row(o, in_e, top1 && ev ? SL_UPDATE_AFTER : SL_INSERT, 0, wm, err)
		            : 0;
	}
	int from = pos > lo ? pos : lo;
	if (from >= newn)
		return 0;
	const uint8_t *oe = oldn > from ? sl__rank_list_at(o->old.p, from) : NULL;
	const uint8_t *ne = sl__rank_list_at(o->list.p, from);
	for (int r = from; r < newn && r < o->p.n; r++) {
		if (oe && r < oldn) {
			if ((rc = put_row(o, oe, SL_UPDATE_BEFORE, r + 1, wm, err)) ||
			    (rc = put_row(o, ne, SL_UPDATE_AFTER, r + 1, wm, err)))
				return rc;
			oe += sl__rank_entry_size(oe);
		} else if ((rc = put_row(o, ne, SL_INSERT, r + 1, wm, err))) {
			return rc;
		}
		ne += sl__rank_entry_size(ne);
	}
	return 0;
}

static int rank_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	rank_op *o = (rank_op *)op;
	o->out.src_in = in;
	SL_BATCH_FOREACH(in, k, row) {
		o->cur_row = row;
		int rc = rank_row(o, in, row, err);
		if (rc)
			return rc;
	}
	return flush(o, err);
}

static int rank_open(sl_op *op, sl_err *err)
{
	rank_op *o = (rank_op *)op;
	if (!(o->topn = sl_op_table_open(op, "topn", 0, 0, 0, err)))
		return err->code;
	return sl__rank_open_out(op, &o->out, 1, &o->cols, o->nin, &o->key, err);
}

static void rank_close(sl_op *op)
{
	rank_op *o = (rank_op *)op;
	sl_emitter_deinit(&o->out);
	free(o->cols);
	free(o->in_types);
	free(o->ukey_types);
	sl_buf_deinit(&o->key);
	sl_buf_deinit(&o->entry);
	sl_buf_deinit(&o->list);
	sl_buf_deinit(&o->old);
	sl_buf_deinit(&o->pairs);
	sl_buf_deinit(&o->ukey);
	sl_buf_deinit(&o->ukey2);
	sl__rank_plan_free(&o->p);
}

static const sl_op_vtab rank_vtab = {
	.name = "Rank",
	.kind = SL_OPK_RANK,
	.flags = SL_OPF_STATE_TTL,
	.open = rank_open,
	.process = rank_process,
	.close = rank_close,
};

sl_op *sl_op_rank_new(const sl_rank_plan *p, const sl_type *in_types, int nin, sl_err *err)
{
	rank_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = &rank_vtab;
	o->nin = nin;
	o->in_types = calloc((size_t)nin + 1, sizeof(sl_type));
	o->ukey_types = calloc((size_t)p->nukey + 1, sizeof(sl_type));
	if (!o->in_types || !o->ukey_types || sl__rank_plan_copy(&o->p, p)) {
		sl_op_free(&o->base); /* calls its close */
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	memcpy(o->in_types, in_types, sizeof(sl_type) * (size_t)nin);
	for (int m = 0; m < p->nukey; m++)
		o->ukey_types[m] = in_types[p->ukey_cols[m]];
	o->canon_row = sl_rowcodec_forms_differ(o->in_types, nin);
	o->canon_ukey = sl_rowcodec_forms_differ(o->ukey_types, p->nukey);
	return &o->base;
}
