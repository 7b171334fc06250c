/*
 * op_interval_join.c - the event-time interval join: rows match when their
 * keys are equal, L.ts - R.ts lies in [lo, hi] and the residual holds
 * (Flink's time-windowed join, e.g. L.ts BETWEEN R.ts - INTERVAL '5'
 * SECOND AND R.ts + INTERVAL '10' SECOND: lo = -5 s, hi = 10 s).  INNER,
 * LEFT, RIGHT and FULL; append-only inputs, append-only output.  Without
 * equi-keys (nkeys 0) every row has the empty join key (b.key_empty), its
 * partitioning key too (sl__join_pkey): one instance, planned singleton.
 *
 * INTERFACE ROUTINES
 *   open       opens the row and timer tables of each side
 *   process    drops a row late by its own W_before (ts < W_before),
 *              joins any other row with the other side's stored rows of
 *              its key, emits +I of each match, and stores the row while
 *              a future row of the other side can still match it
 *   watermark  expires rows the watermark ends (emitting an outer row
 *              that never matched, padded with NULLs, and dropping the
 *              buckets it passed), then forwards the watermark held back
 *              by the bound (below)
 *
 * Time (docs/joins.md, docs/parallel.md §4).  A row r is late when ts <
 * W_before(r), its own partition's watermark (Flink: ts below the
 * operator's watermark): it is dropped and counted (--stats shows the
 * count once it is not zero), outer or not, whatever
 * the other input's watermark.  Stored rows expire only at the operator's
 * watermark W (the minimum over both inputs, the watermark method), never
 * at a row's W_before.  Every non-late row has ts >= W_before(r) >= W.  A
 * left row l can still match a future right row r only if r <= l - lo, so
 * it expires once W > l - lo; a right row r once W > r + hi.  So a
 * non-late row finds every partner it can match (a partner p expires at W
 * > E(p) >= ts), and which rows match depends on the data only.  A
 * non-late row already past its own bound (lo > 0: E < W) joins with the
 * rows stored now and is not stored; if it is an outer row without a match
 * it is emitted padded at once.  The output keeps the left rowtime (INNER,
 * LEFT) or the right one (RIGHT): later matches have left ts >= W + lo
 * and right ts >= W - hi, so the watermark sent downstream is min(W,
 * W + lo), resp. min(W, W - hi) (FULL: the smaller of both), and windows
 * can follow the join.  Rule 6: a match or padded row made for input row
 * r carries that shift of W_before(r); an outer row padded at expiry
 * carries the shift of its bound E (the watermark passed E + 1).
 *
 * State (version 3).  Tables "lbuckets"/"rbuckets" are map tables
 * (state.h, sl_state_table_set_prefix) whose prefix is the encoded join
 * key: each stored row is its own entry, key = join key ++ an 8-byte
 * big-endian row number (the operator's, snapshotted), value = one record
 * (join.h) with the row's time in `time` and its match count in `aux`.
 * The namespace is the row's expiry bucket: the last instant of the
 * bucket of width bw = max(1, (hi - lo) / 4) holding its expiry instant E
 * (bucket_of).  When the watermark W passes a bucket (ns < W) every row in
 * it has expired and the whole namespace is dropped, with no work per row.
 * A row expired but not yet dropped (E < W <= ns) can match no future row:
 * a non-late row of the other side has ts >= W > E, outside the bounds,
 * which the probe's time pre-filter checks anyway.  A probe by a row at ts
 * visits the other side's buckets that can hold a partner, those holding E
 * in [ts, ts + (hi - lo)] (at most five, see bucket_of), and the key's
 * entries in each, merged in row number order (so the output is the same
 * on every backend and as before).  Only an outer side sets timers:
 * "lexpiry"/"rexpiry" (keyed timers, timers.h): namespace = E, key = the
 * row's entry key; firing one emits the row padded when it never matched
 * (the row stays in its bucket until the bucket goes).  All four tables are
 * partitioned by the join key (key groups).  So storing a row costs one
 * insert (and a timer on an outer side), expiring it nothing per row (a
 * timer on an outer side), however many rows its key holds.
 * Version 2 (s9-nex) kept every row in namespace 0 with a timer each, which
 * at expiry looked the row up and deleted it: Nexmark q7 stores every bid
 * (all 1.8 M of a 2 M-event run are in one window), and the timers, the
 * lookups and the deletions were 40% of its time (docs/nexmark.md, section
 * 15).  Version 1 kept one list value per join key ("left"/"right",
 * timers "ltimers"/"rtimers"), read and rewritten whole for each row
 * stored or expired (23% of q7's instructions in copies).  A snapshot
 * holding version 1's or 2's row tables is refused, naming the operator
 * (vt.retired).
 * Built on the join base (join_base.h: keys, record lists, chunked
 * matching with the time bounds as the pre-filter, padded output).
 */
#include "join_base.h"
#include "op_observe.h"
#include "timers.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

/* A probed entry: its row number, its bucket, its record's offset in
 * `list`, the match count it had. */
typedef struct probed {
	uint64_t seq;
	int64_t ns;
	size_t off;
	int64_t aux;
} probed;

/*
 * Prefetching.  An inner side stores nearly every row it gets (q7: every
 * bid), and an insert's cost is cache misses: the entry's index slot, its
 * key's group slot and the group's head entry (a map table, state.h),
 * random places in indexes of tens of MB, and the row's strings (q7's
 * `extra`, slices of the generator's pool at random places).  The rows
 * PF_DIST ahead get their slots and strings prefetched, those PF_DIST / 2
 * ahead their group's first entry, from hashes computed once into a ring
 * (pf_hint).  (Prefetching the group's last entry too, whose links an
 * insert rewrites, measured no better.)  Measured on q7 in
 * the commit that added it (docs/nexmark.md, section 15).
 */
#define PF_DIST 8

typedef struct pf_hint {
	int64_t ns;      /* the bucket the row would go to; INT64_MIN: none */
	uint32_t hk, hp; /* hashes of its entry key and of its join key */
} pf_hint;

typedef struct ijoin_op {
	sl_join_base b;            /* first (join_base.h): tables "lbuckets", "rbuckets" */
	int time_col[2];
	sl_timers tm[2];           /* "lexpiry", "rexpiry" (timers.h) */
	sl_buf list, tmp, mk, rec;
	probed *pr;                /* the probed entries, in list order */
	size_t npr, prcap, tmpn;
	sl_type *ktypes;           /* join key types of each side (nkeys each) */
	sl_state_pkey_cols_ctx pkc[2];
	uint64_t seq;              /* the next row number */
	int64_t fired;             /* rows with E < fired have expired */
	int64_t span;              /* hi - lo (saturated) */
	int64_t bw;                /* bucket width: max(1, span / 4) */
	int64_t scan_ns;           /* the bucket probe_cb is scanning */
	pf_hint pf[PF_DIST];       /* prefetching (above): ring by batch position */
	sl_buf pfk;                /* a prefetched row's entry key */
} ijoin_op;

static int64_t sat_add(int64_t a, int64_t b)
{
	if (a == SL_WM_MIN || a == SL_WM_MAX)
		return a;
	if (b > 0 && a > SL_WM_MAX - b)
		return SL_WM_MAX - 1;
	if (b < 0 && a < SL_WM_MIN + 1 - b)
		return SL_WM_MIN + 1;
	return a + b;
}

/* The output watermark for merged watermark w. */
static int64_t out_wm(const ijoin_op *o, int64_t w)
{
	const sl_join_plan *p = &o->b.p;
	int64_t a = sat_add(w, p->lo < 0 ? p->lo : 0), b = sat_add(w, p->hi > 0 ? -p->hi : 0);
	if (p->time_side == 0)
		return a;
	if (p->time_side == 1)
		return b;
	return a < b ? a : b;
}

/* Expiry instant of a row of side s with time ts. */
static int64_t expiry(const ijoin_op *o, int s, int64_t ts)
{
	return s == 0 ? sat_add(ts, -o->b.p.lo) : sat_add(ts, o->b.p.hi);
}

/*
 * The namespace of a row expiring at e: the last instant of e's bucket
 * [k bw, (k + 1) bw) (at most SL_WM_MAX - 1, the largest E, so the end of
 * input drops every bucket).  Why buckets of a quarter of the interval:
 * a probe's partners expire within hi - lo of each other, so it visits at
 * most 5 buckets, and a row outlives its bound by less than a quarter of
 * the interval (memory); one namespace per row or per instant would make a
 * probe visit every instant of the interval.
 */
static int64_t bucket_of(const ijoin_op *o, int64_t e)
{
	int64_t r = e % o->bw;
	if (r < 0)
		r += o->bw;
	int64_t start = e - r;
	return start >= SL_WM_MAX - o->bw ? SL_WM_MAX - 1 : start + (o->bw - 1);
}

typedef struct expire_ctx {
	ijoin_op *o;
	int side;
	int64_t w;
} expire_ctx;

/* A due timer of an outer side (timers.h): its key is a stored row's
 * entry key, in the bucket of its time ts = E; the row is emitted padded
 * when it never matched (it stays in its bucket until the bucket goes). */
static int expire_cb(void *ctx, int64_t ts, const void *key, uint32_t klen, sl_err *err)
{
	expire_ctx *x = ctx;
	ijoin_op *o = x->o;
	int s = x->side;
	const void *v;
	uint32_t vlen;
	if (!sl_state_get_var(o->b.st[s], bucket_of(o, ts), key, klen, &v, &vlen))
		return 0; /* never for timers this operator set */
	sl_jrec r;
	const char *q = v;
	if (sl__jrec_read(&q, (const char *)v + vlen, &r))
		return sl_err_set(err, SL_ESTATE, "interval join state: malformed record");
	if (r.aux != 0)
		return 0;
	/* the emitter copies the row: the state's bytes may move after */
	return sl__joiner_emit_stored(&o->b.j, s, r.row, r.len, SL_INSERT,
	                              out_wm(o, expiry(o, s, r.time)), err);
}

/* Expires every stored row whose bound the merged watermark w passed:
 * the outer sides' timers with E < w, i.e. E <= w - 1, left then right,
 * then every bucket whose last instant is below w. */
static int expire(ijoin_op *o, int64_t w, sl_err *err)
{
	if (w <= o->fired)
		return 0;
	o->fired = w;
	for (int s = 0; s < 2; s++) {
		expire_ctx x = {o, s, w};
		int rc = sl_timers_fire(&o->tm[s], w - 1, expire_cb, &x, err);
		if (rc)
			return rc;
	}
	for (int s = 0; s < 2; s++) {
		int64_t ns;
		while (sl_state_ns_first(o->b.st[s], &ns) && ns <= w - 1)
			sl_state_ns_drop(o->b.st[s], ns);
	}
	return 0;
}

typedef struct match_ctx {
	ijoin_op *o;
	int s;
	int64_t ts, wm;
	int64_t nm;   /* matches */
	int changed;  /* a record's match count was raised */
} match_ctx;

/* Pre-filter: the stored row's time is within the bounds (L.ts - R.ts in
 * [lo, hi]). */
static int in_bounds(void *ctx, const sl_jrec *r)
{
	match_ctx *m = ctx;
	int64_t d = m->s == 0 ? m->ts - r->time : r->time - m->ts;
	return d >= m->o->b.p.lo && d <= m->o->b.p.hi;
}

static int on_match(void *ctx, char *rec, const sl_jrec *r, int cand, sl_err *err)
{
	match_ctx *m = ctx;
	ijoin_op *o = m->o;
	m->nm++;
	int rc = sl__joiner_emit_cand(&o->b.j, cand, SL_INSERT, m->wm, err);
	if (rc)
		return rc;
	if (o->b.outer[1 - m->s]) {
		sl__jrec_set(rec, r->count, r->aux + 1);
		m->changed = 1;
	}
	return 0;
}

/* sl_state_prefix_scan callback: appends a probed entry's record to
 * o->list and its number to o->pr. */
static int probe_cb(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                    sl_err *err)
{
	ijoin_op *o = ctx;
	sl_jrec r;
	const char *q = val;
	if (klen < 8 || sl__jrec_read(&q, (const char *)val + vlen, &r) ||
	    q != (const char *)val + vlen)
		return sl_err_set(err, SL_ESTATE, "interval join state: malformed entry");
	if (o->npr == o->prcap) {
		size_t cap = o->prcap ? o->prcap * 2 : 64;
		void *p = realloc(o->pr, cap * sizeof(*o->pr));
		if (!p)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		o->pr = p;
		o->prcap = cap;
	}
	const uint8_t *k = (const uint8_t *)key + klen - 8;
	uint64_t seq = 0;
	for (int i = 0; i < 8; i++)
		seq = seq << 8 | k[i];
	o->pr[o->npr++] = (probed){seq, o->scan_ns, o->list.len, r.aux};
	if (sl_buf_append(&o->list, val, vlen))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

static int probed_cmp(const void *a, const void *b)
{
	uint64_t x = ((const probed *)a)->seq, y = ((const probed *)b)->seq;
	return (x > y) - (x < y);
}

/* Puts o->list (and o->pr) in row number order when the backend scanned
 * the entries in another order. */
static int probe_sort(ijoin_op *o, sl_err *err)
{
	int sorted = 1;
	for (size_t i = 1; i < o->npr && sorted; i++)
		sorted = o->pr[i - 1].seq < o->pr[i].seq;
	if (sorted)
		return 0;
	qsort(o->pr, o->npr, sizeof(*o->pr), probed_cmp);
	sl_buf_clear(&o->tmp);
	for (size_t i = 0; i < o->npr; i++) {
		const char *q = o->list.p + o->pr[i].off;
		sl_jrec r;
		if (sl__jrec_read(&q, o->list.p + o->list.len, &r))
			return sl_err_set(err, SL_ESTATE, "interval join state: malformed record");
		size_t off = o->tmp.len;
		if (sl_buf_append(&o->tmp, o->list.p + o->pr[i].off, SL_JREC_HDR + r.len))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		o->pr[i].off = off;
	}
	sl_buf t = o->list;
	o->list = o->tmp;
	o->tmp = t;
	return 0;
}

/* The entry key of row number seq under the current join key, in o->mk. */
static int entry_key(ijoin_op *o, uint64_t seq)
{
	uint8_t be[8];
	for (int i = 0; i < 8; i++)
		be[i] = (uint8_t)(seq >> (56 - 8 * i));
	sl_buf_clear(&o->mk);
	return sl_buf_append(&o->mk, o->b.key.p, o->b.key.len) || sl_buf_append(&o->mk, be, 8);
}

/* Writes back the probed records of side os whose match count changed. */
static int write_back(ijoin_op *o, int os, sl_err *err)
{
	for (size_t i = 0; i < o->npr; i++) {
		const char *q = o->list.p + o->pr[i].off;
		sl_jrec r;
		if (sl__jrec_read(&q, o->list.p + o->list.len, &r))
			return sl_err_set(err, SL_ESTATE, "interval join state: malformed record");
		if (r.aux == o->pr[i].aux)
			continue;
		if (entry_key(o, o->pr[i].seq))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		int rc = sl_state_put_var(o->b.st[os], o->pr[i].ns, o->mk.p, (uint32_t)o->mk.len,
		                          o->list.p + o->pr[i].off, SL_JREC_HDR + r.len);
		if (rc)
			return sl_err_set(err, rc, "interval join state: write failed");
	}
	return 0;
}

/* Joins input row (s, in, row, ts) with the other side; *nm = matches. */
static int match_other(ijoin_op *o, int s, const sl_batch *in, int row, int64_t ts, int64_t wm,
                       int64_t *nm, sl_err *err)
{
	int os = 1 - s, rc;
	const sl_buf *key = &o->b.key;
	match_ctx m = {o, s, ts, wm, 0, 0};
	*nm = 0;
	sl_buf_clear(&o->list);
	o->npr = 0;
	/* the buckets that can hold a partner: E in [ts, ts + (hi - lo)] */
	int64_t first = bucket_of(o, ts), last = bucket_of(o, sat_add(ts, o->span)), ns;
	sl_state_table *t = o->b.st[os];
	int have = first == INT64_MIN ? sl_state_ns_first(t, &ns) : sl_state_ns_next(t, first - 1, &ns);
	for (; have && ns <= last; have = sl_state_ns_next(t, ns, &ns)) {
		o->scan_ns = ns;
		if ((rc = sl_state_prefix_scan(t, ns, key->p, (uint32_t)key->len, probe_cb, o, err)))
			return rc < 0 ? rc
			              : sl_err_set(err, SL_ESTATE, "interval join state: scan stopped");
	}
	if (!o->npr)
		return 0;
	if ((rc = probe_sort(o, err)) ||
	    (rc = sl__join_match(&o->b, s, in, row, &o->list, in_bounds, on_match, &m, err)))
		return rc;
	*nm = m.nm;
	return m.changed ? write_back(o, os, err) : 0;
}

/* Joins and stores row `row` of input s (not late); w: the watermark the
 * stored rows expired at (o->fired). */
static int ijoin_row(ijoin_op *o, int s, const sl_batch *in, int row, int64_t w, sl_err *err)
{
	int64_t wm = out_wm(o, in->wm[row]); /* rule 6 */
	const sl_col *tc = &in->cols[o->time_col[s]];
	int rc = tc->null[row] ? 1 : sl__join_key(&o->b, s, in, row, err);
	if (rc < 0)
		return rc;
	if (rc == 1) /* NULL time or key: matches nothing */
		return o->b.outer[s] ? sl__joiner_emit_in(&o->b.j, s, in, row, NULL, 0, SL_INSERT, wm,
		                                          err)
		                     : 0;
	const sl_buf *key = &o->b.key;
	int64_t ts = tc->v.i64[row], nm;
	if ((rc = match_other(o, s, in, row, ts, wm, &nm, err)))
		return rc;
	int64_t e = expiry(o, s, ts);
	if (e < w) { /* no future row can match it */
		if (nm == 0 && o->b.outer[s])
			return sl__joiner_emit_in(&o->b.j, s, in, row, NULL, 0, SL_INSERT, wm, err);
		return 0;
	}
	(void)key;
	sl_buf_clear(&o->rec);
	if (entry_key(o, o->seq++) || sl__jrec_append(&o->rec, in, row, 1, nm, ts))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if ((rc = sl_state_put_var(o->b.st[s], bucket_of(o, e), o->mk.p, (uint32_t)o->mk.len,
	                           o->rec.p, (uint32_t)o->rec.len)))
		return sl_err_set(err, rc, "interval join state: write failed");
	/* an inner row needs no timer: its bucket's drop removes it */
	return o->b.outer[s] ? sl_timers_set(&o->tm[s], e, o->mk.p, (uint32_t)o->mk.len, err) : 0;
}

/* Computes the hints of the row at position k of `in` (side s), which
 * would be stored as row number seq, and prefetches its index and group
 * slots (stages 0 and 2). */
static void pf_row(ijoin_op *o, int s, const sl_batch *in, int k, uint64_t seq)
{
	pf_hint *h = &o->pf[k % PF_DIST];
	int row = in->sel ? (int)in->sel[k] : k;
	const sl_col *tc = &in->cols[o->time_col[s]];
	h->ns = INT64_MIN;
	if (tc->null[row] || sl_rowcodec_key_null(in, o->b.keys[s], o->b.p.nkeys, row))
		return;
	sl_buf_clear(&o->pfk);
	if (sl_rowcodec_key(in, o->b.keys[s], o->b.p.nkeys, row, &o->pfk))
		return;
	h->hp = sl_state_hash(o->pfk.p, (uint32_t)o->pfk.len);
	uint8_t be[8];
	for (int i = 0; i < 8; i++)
		be[i] = (uint8_t)(seq >> (56 - 8 * i));
	if (sl_buf_append(&o->pfk, be, 8))
		return;
	h->hk = sl_state_hash(o->pfk.p, (uint32_t)o->pfk.len);
	h->ns = bucket_of(o, expiry(o, s, tc->v.i64[row]));
	sl_state_prefetch(o->b.st[s], h->ns, h->hk, 0);
	sl_state_prefetch(o->b.st[s], h->ns, h->hp, 2);
	/* the string bytes the stored row copies (q7's `extra`: slices of the
	 * generator's 1 MiB pool, at random places) */
	for (int c = 0; c < in->ncols; c++) {
		const sl_col *col = &in->cols[c];
		if (sl_type_phys(col->type) != SL_PHYS_STR || col->null[row])
			continue;
		const sl_str *v = &col->v.str[row];
		for (int64_t at = 0; at < v->len && at < 256; at += 64)
			__builtin_prefetch(v->ptr + at);
	}
}

static int ijoin_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	ijoin_op *o = (ijoin_op *)op;
	const sl_col *tc = &in->cols[o->time_col[input]];
	int n = sl_batch_live(in);
	for (int k = 0; k < PF_DIST && k < n; k++)
		pf_row(o, input, in, k, o->seq + (uint64_t)k);
	for (int k = 0; k < n; k++) {
		int row = in->sel ? (int)in->sel[k] : k;
		if (k + PF_DIST / 2 < n) { /* the group's head, its slot loaded by now */
			const pf_hint *h = &o->pf[(k + PF_DIST / 2) % PF_DIST];
			if (h->ns != INT64_MIN)
				sl_state_prefetch(o->b.st[input], h->ns, h->hp, 3);
		}
		if (!tc->null[row] && tc->v.i64[row] < in->wm[row]) { /* late by its own W_before */
			sl_op_late_dropped(op, in, row); /* counted, kept for the metrics */
		} else {
			int rc = ijoin_row(o, input, in, row, o->fired, err);
			if (rc)
				return rc;
		}
		if (k + PF_DIST < n) /* into row k's place in the ring */
			pf_row(o, input, in, k + PF_DIST, o->seq + PF_DIST - 1);
	}
	return sl__joiner_flush(&o->b.j, err);
}

static int ijoin_watermark(sl_op *op, int64_t wm, sl_err *err)
{
	ijoin_op *o = (ijoin_op *)op;
	int rc = expire(o, wm, err);
	if (!rc)
		rc = sl__joiner_flush(&o->b.j, err);
	return rc ? rc : sl_op_emit_watermark(op, out_wm(o, wm), err);
}

/* The next row number, when rows are stored (as the regular join's). */
static int ijoin_snapshot(sl_op *op, sl_snap_writer *w, sl_err *err)
{
	ijoin_op *o = (ijoin_op *)op;
	if (sl_state_count(o->b.st[0]) + sl_state_count(o->b.st[1]) > 0)
		sl_snap_put_i64(w, (int64_t)o->seq);
	return 0;
}

/* At another parallelism every old instance's number comes (graph.c):
 * the largest is above every restored entry's. */
static int ijoin_restore(sl_op *op, sl_snap_reader *r, sl_err *err)
{
	ijoin_op *o = (ijoin_op *)op;
	if (r->len == 0) /* no row stored */
		return 0;
	int64_t seq = sl_snap_get_i64(r);
	if (!sl_snap_reader_ok(r) || seq < 0)
		return sl_err_set(err, SL_ESTATE, "interval join: damaged snapshot");
	if ((uint64_t)seq > o->seq)
		o->seq = (uint64_t)seq;
	return 0;
}

static int ijoin_open(sl_op *op, sl_err *err)
{
	ijoin_op *o = (ijoin_op *)op;
	static const char *const names[2] = {"lbuckets", "rbuckets"};
	static const char *const tnames[2] = {"lexpiry", "rexpiry"};
	static const char *const none[2] = {NULL, NULL};
	int n = o->b.p.nkeys;
	o->ktypes = malloc(sizeof(sl_type) * (size_t)(2 * n + 1));
	if (!o->ktypes)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int s = 0; s < 2; s++) { /* rows of both sides, then timers: the snapshot's order */
		const sl_type *t = s == 0 ? o->b.p.ltypes : o->b.p.rtypes;
		for (int i = 0; i < n; i++)
			o->ktypes[s * n + i] = t[o->b.keys[s][i]];
		o->pkc[s].types = o->ktypes + s * n;
		o->pkc[s].n = n;
		if (sl__join_base_table(&o->b, s, names[s], err))
			return err->code;
		/* the join key, in front of every entry key, is the partitioning
		 * key of key groups (for the timers too) and what a probe visits */
		sl_state_table_set_prefix(o->b.st[s], sl__join_pkey, &o->pkc[s]);
		/* the live metrics' oldest pending time (two tables): an inner
		 * side's buckets, an outer side's timers (registered next) */
		if (!o->b.outer[s])
			sl_op_pending_register(op, o->b.st[s]);
	}
	for (int s = 0; s < 2; s++) {
		if (sl_timers_open(&o->tm[s], op, tnames[s], err))
			return err->code;
		sl_state_table_set_pkey(o->tm[s].t, sl__join_pkey, &o->pkc[s]);
	}
	return sl__join_base_open(&o->b, none, err);
}

static void ijoin_close(sl_op *op)
{
	ijoin_op *o = (ijoin_op *)op;
	sl__join_base_close(&o->b);
	sl_buf_deinit(&o->list);
	sl_buf_deinit(&o->tmp);
	sl_buf_deinit(&o->mk);
	sl_buf_deinit(&o->rec);
	sl_buf_deinit(&o->pfk);
	free(o->pr);
	free(o->ktypes);
	o->pr = NULL;
	o->ktypes = NULL;
	sl_timers_deinit(&o->tm[0]);
	sl_timers_deinit(&o->tm[1]);
}

/* The tables of state version 1 (one list value per join key) and the row
 * tables of version 2 (every row in namespace 0, a timer each). */
static const char *const retired[] = {"left", "right", "ltimers", "rtimers", "left_rows",
                                      "right_rows", NULL};

static const sl_op_vtab ijoin_vtab = {
	.name = "IntervalJoin",
	.kind = SL_OPK_INTERVAL_JOIN,
	.flags = SL_OPF_STATE_WM,
	.open = ijoin_open,
	.process = ijoin_process,
	.watermark = ijoin_watermark,
	.snapshot = ijoin_snapshot,
	.restore = ijoin_restore,
	.close = ijoin_close,
	.retired = retired,
};

sl_op *sl_op_interval_join_new(const sl_join_plan *p, sl_err *err)
{
	sl_join_base *b = sl__join_base_new(sizeof(ijoin_op), &ijoin_vtab, p, "interval join", err);
	if (!b)
		return NULL;
	if (p->ltime < 0 || p->rtime < 0 || p->lo > p->hi) {
		sl_err_set(err, SL_EPLAN, "an interval join needs both rowtimes and bounds lo <= hi");
		sl_op_free(&b->op); /* calls its close */
		return NULL;
	}
	ijoin_op *o = (ijoin_op *)b;
	b->key_empty = 1; /* without equi-keys: one empty key (sl__join_pkey) */
	o->fired = SL_WM_MIN;
	o->span = p->lo < 0 && p->hi > INT64_MAX + p->lo ? INT64_MAX : p->hi - p->lo;
	o->bw = o->span / 4 > 0 ? o->span / 4 : 1;
	o->time_col[0] = p->ltime;
	o->time_col[1] = p->rtime;
	return &b->op;
}
