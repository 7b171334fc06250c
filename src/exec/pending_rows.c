/*
 * pending_rows.c - rows held back until the watermark passes their
 * rowtime, in state table "pend", and their collection in arrival order
 * when that rowtime fires (the format, the order and why it is sorted:
 * pending_rows.h).  Used by the OVER aggregate and MATCH_RECOGNIZE.
 *
 * sl_pend_put is called once per input row and sl_pend_collect once per
 * rowtime: no allocation per row (reused buffers), one state write per
 * row, one namespace scan and at most one sort per rowtime.  One thread.
 */
#include "pending_rows.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

/* The arrival number's 8 big-endian bytes at b, and back.  Why the byte
 * swap: gcc 12 kept the byte loops, which were 2% of an OVER job's
 * instructions (callgrind, 40 000 rows: 58 a row to encode, 77 to
 * decode); one instruction each on a little-endian machine. */
static inline void seq_put(uint8_t *b, uint64_t s)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	s = __builtin_bswap64(s);
	memcpy(b, &s, 8);
#else
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(s >> (56 - 8 * i));
#endif
}

static inline uint64_t seq_get(const uint8_t *b)
{
	uint64_t s;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&s, b, 8);
	s = __builtin_bswap64(s);
#else
	s = 0;
	for (int i = 0; i < 8; i++)
		s = s << 8 | b[i];
#endif
	return s;
}

/* The partitioning key of a "pend" entry: in front of the row in the
 * value (docs/state.md "Key groups"). */
static uint32_t pend_pkey(const void *ctx, const void *key, uint32_t klen, const void *val,
                          uint32_t vlen, const void **pk)
{
	(void)ctx;
	uint32_t pl = 0;
	if (vlen >= 4)
		memcpy(&pl, val, 4);
	if (vlen < 4 || pl > vlen - 4) { /* never for entries sl_pend_put wrote */
		*pk = key;
		return klen;
	}
	*pk = (const char *)val + 4;
	return pl;
}

int sl_pend_open(sl_pend *p, sl_op *op, const char *what, int key_suffix, sl_err *err)
{
	p->what = what;
	p->key_suffix = key_suffix;
	if (!(p->t = sl_state_table_open(op->state, op->uid, "pend", 0, err)))
		return err->code;
	sl_state_table_set_pkey(p->t, pend_pkey, NULL);
	return 0;
}

void sl_pend_deinit(sl_pend *p)
{
	sl_buf_deinit(&p->enc);
	sl_buf_deinit(&p->key);
	sl_buf_deinit(&p->vals);
	sl_buf_deinit(&p->idx);
}

int sl_pend_put(sl_pend *p, int64_t ts, const sl_batch *in, const int *key_cols, int nkeys,
                int row, sl_err *err)
{
	uint32_t klen = 0;
	sl_buf_clear(&p->enc);
	if (sl_buf_append(&p->enc, &klen, 4) || sl_rowcodec_key(in, key_cols, nkeys, row, &p->enc))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	klen = (uint32_t)p->enc.len - 4;
	memcpy(p->enc.p, &klen, 4);
	if (sl_rowcodec_row(in, row, &p->enc))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	uint8_t seq[8];
	seq_put(seq, (uint64_t)p->seq++);
	const void *key = seq;
	uint32_t keylen = 8;
	if (p->key_suffix) {
		sl_buf_clear(&p->key);
		if (sl_buf_append(&p->key, seq, 8) || sl_buf_append(&p->key, p->enc.p + 4, klen))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		key = p->key.p;
		keylen = (uint32_t)p->key.len;
	}
	int rc = sl_state_put_var(p->t, ts, key, keylen, p->enc.p, (uint32_t)p->enc.len);
	return rc ? sl_err_set(err, rc, "%s: state write failed", p->what) : 0;
}

/* Scan callback: appends one entry to p->vals and p->idx (the scan must
 * not write to the table). */
static int collect_one(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                       sl_err *err)
{
	sl_pend *p = ctx;
	sl_pend_ent e = {0, p->vals.len, 0, 0};
	if (vlen >= 4)
		memcpy(&e.klen, val, 4);
	if (klen < 8 || vlen < 4 || e.klen > vlen - 4)
		return sl_err_set(err, SL_ESTATE, "%s state: malformed row", p->what);
	e.seq = seq_get(key);
	e.rlen = vlen - 4 - e.klen;
	if (sl_buf_append(&p->idx, &e, sizeof(e)) || sl_buf_append(&p->vals, val, vlen))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

/* qsort_r order of two sl_pend_ents: p->cmp of their rows, then arrival. */
static int ent_cmp(const void *pa, const void *pb, void *ctx)
{
	const sl_pend *p = ctx;
	const sl_pend_ent *a = pa, *b = pb;
	if (p->cmp) {
		int r = p->cmp(p->vals.p + a->off + 4 + a->klen, p->vals.p + b->off + 4 + b->klen,
		               p->cmp_ctx);
		if (r)
			return r;
	}
	return (a->seq > b->seq) - (a->seq < b->seq);
}

int sl_pend_collect(sl_pend *p, int64_t ts, sl_pend_cmp cmp, void *ctx, sl_err *err)
{
	sl_buf_clear(&p->vals);
	sl_buf_clear(&p->idx);
	int rc = sl_state_ns_scan(p->t, ts, collect_one, p, err);
	if (rc)
		return rc;
	size_t n = sl_pend_count(p);
	const sl_pend_ent *e = (const sl_pend_ent *)(const void *)p->idx.p;
	if (n < 2) /* qsort_r takes no NULL base */
		return 0;
	if (!cmp) { /* the memory backend: already in arrival order */
		size_t i = 1;
		while (i < n && e[i - 1].seq < e[i].seq)
			i++;
		if (i >= n)
			return 0;
	}
	p->cmp = cmp;
	p->cmp_ctx = ctx;
	qsort_r(p->idx.p, n, sizeof(sl_pend_ent), ent_cmp, p);
	return 0;
}
