/*
 * op_window_join.c - the window join: two inputs that are the same window
 * TVF (TUMBLE, HOP, CUMULATE), joined per window and key when the window
 * closes (Flink's WindowJoinOperator).  INNER, LEFT, RIGHT and FULL;
 * append-only inputs, append-only output.
 *
 * INTERFACE ROUTINES
 *   open       opens the row tables of both sides
 *   process    buffers the row under its window end and join key; a row
 *              late by its own W_before (W_before >= end) or for a window
 *              that already fired is dropped and counted as late
 *   watermark  fires every window with end <= W and forwards W (windows
 *              fire at the operator's watermark only, the minimum over
 *              both inputs, never at a row's W_before: docs/parallel.md §4)
 *
 * Firing a window (end <= W, docs/semantics.md §1): for each key, every pair
 * (left row, right row) that satisfies the residual emits +I; a row of an
 * outer side that matched nothing emits +I padded with NULLs.  A semi
 * join (SL_JOIN_SEMI) emits instead each left row that matched (once), an
 * anti join each left row that did not (rows with a NULL key included),
 * with the left columns only (Flink's window semi / anti joins).  Rows carry
 * W_before = end - 1 us (rule 6: the largest watermark at which the window
 * had not fired; their window_time, end - 1 ms, is inside windows ending at
 * or after end), so windows can follow.  Then the window's state is
 * dropped.
 *
 * State.  Tables "left"/"right": namespace = window end (UTC micros), key =
 * one flag byte + the encoded join key + (flag bit 2) an 8-byte row
 * number, value = list of records (join.h).  Flag bit 1: a key column is
 * NULL (such rows never match and are only kept on an outer side, to be
 * padded).  Each row is its own entry, numbered by the operator (flag bit
 * 2, value = one record), so storing a row costs the same however many
 * rows its key holds; until s8-nex the key had no number and its value
 * held all the key's rows, read and rewritten whole for each new row
 * (quadratic: Nexmark q5 joins every auction's count of a window under
 * one key, 76% of its time in those copies).  Entries of that older form
 * (flag bit 2 clear, from a checkpoint) are read as they are.  A number
 * already in use (a restored entry's) is skipped.  An entry's key group
 * is the join key's (side_pkey).  Firing collects a window's entries of
 * each side, sorts them by (join key, number) and joins the groups of
 * equal keys.  The namespaces of both tables are the operator's
 * event-time timers (sl_ns_timers, timers.h).
 * Built on the join base (join_base.h: tables, record lists, the joiner
 * and padded output); its key has the flag byte in front, and pairs are
 * made of two stored rows, so it pairs the lists itself.
 */
#include "join_base.h"
#include "ops.h"
#include "timers.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct wjoin_op {
	sl_join_base b;  /* first (join_base.h): tables "left", "right" */
	int wend[2];
	int semi;        /* 1 semi, 2 anti join: only left rows are emitted */
	sl_buf lst[2], lmatch, rmatch;
	sl_buf due[2];   /* a firing window's entries of each side: [u32 klen][key]
	                  * [u32 vlen][value]... */
	sl_buf idx[2];   /* offsets of the entries in due[s], sorted (ent_cmp) */
	uint64_t seq;    /* the next row number (flag bit 2 keys) */
	sl_ns_timers tm; /* the namespaces of both tables (timers.h); tm.fired:
	                  * windows with end <= tm.fired have fired */
	int64_t firing;  /* end of the window being fired */
} wjoin_op;

#define WJ_NULL 1 /* flag bit: a join key column is NULL */
#define WJ_SEQ 2  /* flag bit: the key ends with an 8-byte row number */

static int collect_entry(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                         sl_err *err)
{
	sl_buf *b = ctx;
	if (sl_buf_append(b, &klen, 4) || sl_buf_append(b, key, klen) ||
	    sl_buf_append(b, &vlen, 4) || sl_buf_append(b, val, vlen))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

/* An entry of due[]: its flag, join key (without flag and number), row
 * number (0 for the older form) and value. */
typedef struct wj_ent {
	int flag;
	const char *jk;
	uint32_t jklen;
	uint64_t seq;
	const char *val;
	uint32_t vlen;
} wj_ent;

static void ent_at(const char *p, wj_ent *e)
{
	uint32_t klen;
	memcpy(&klen, p, 4);
	const char *key = p + 4;
	e->flag = klen ? (unsigned char)key[0] : 0;
	e->jk = key + (klen ? 1 : 0);
	e->jklen = klen ? klen - 1 : 0;
	e->seq = 0;
	if ((e->flag & WJ_SEQ) && e->jklen >= 8) {
		e->jklen -= 8;
		memcpy(&e->seq, e->jk + e->jklen, 8);
	}
	memcpy(&e->vlen, key + klen, 4);
	e->val = key + klen + 4;
}

/* 0 when a and b are the same join key (NULL flags included). */
static int key_cmp(const wj_ent *a, const wj_ent *b)
{
	if ((a->flag & WJ_NULL) != (b->flag & WJ_NULL))
		return (a->flag & WJ_NULL) - (b->flag & WJ_NULL);
	uint32_t n = a->jklen < b->jklen ? a->jklen : b->jklen;
	int c = memcmp(a->jk, b->jk, n);
	if (c)
		return c;
	return a->jklen < b->jklen ? -1 : a->jklen > b->jklen;
}

/* qsort_r's comparison of two offsets into the buffer `base` (due[s].p) */
static int ent_cmp(const void *x, const void *y, void *base)
{
	const char *sort_base = base;
	uint32_t ox, oy;
	memcpy(&ox, x, 4);
	memcpy(&oy, y, 4);
	wj_ent a, b;
	ent_at(sort_base + ox, &a);
	ent_at(sort_base + oy, &b);
	int c = key_cmp(&a, &b);
	if (c)
		return c;
	if (a.seq != b.seq)
		return a.seq < b.seq ? -1 : 1;
	return ox < oy ? -1 : ox > oy;
}

/* Collects window `end`'s entries of side s into due[s] and their offsets,
 * sorted by (join key, row number), into idx[s]; returns the count or -1
 * with err set. */
static long collect_side(wjoin_op *o, int s, int64_t end, sl_err *err)
{
	sl_buf_clear(&o->due[s]);
	sl_buf_clear(&o->idx[s]);
	if (sl_state_ns_scan(o->b.st[s], end, collect_entry, &o->due[s], err))
		return -1;
	const char *p = o->due[s].p, *pend = p + o->due[s].len;
	long n = 0;
	while (p < pend) {
		uint32_t off = (uint32_t)(p - o->due[s].p), klen, vlen;
		if (sl_buf_append(&o->idx[s], &off, 4))
			return sl_err_set(err, SL_ENOMEM, "out of memory"), -1;
		memcpy(&klen, p, 4);
		memcpy(&vlen, p + 4 + klen, 4);
		p += 8 + klen + vlen;
		n++;
	}
	if (n > 1) /* an empty side has no buffer (qsort_r's base must not be NULL) */
		qsort_r(o->idx[s].p, (size_t)n, 4, ent_cmp, o->due[s].p);
	return n;
}

/* Concatenates the values of entries [from, to) of side s into lst[s]. */
static int group_list(wjoin_op *o, int s, long from, long to, sl_err *err)
{
	sl_buf_clear(&o->lst[s]);
	for (long i = from; i < to; i++) {
		uint32_t off;
		memcpy(&off, o->idx[s].p + 4 * i, 4);
		wj_ent e;
		ent_at(o->due[s].p + off, &e);
		if (sl_buf_append(&o->lst[s], e.val, e.vlen))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	return 0;
}

/* The end of the group of equal join keys that starts at entry i. */
static long group_end(wjoin_op *o, int s, long i, long n, wj_ent *first)
{
	uint32_t off;
	memcpy(&off, o->idx[s].p + 4 * i, 4);
	ent_at(o->due[s].p + off, first);
	long j = i + 1;
	for (; j < n; j++) {
		wj_ent e;
		memcpy(&off, o->idx[s].p + 4 * j, 4);
		ent_at(o->due[s].p + off, &e);
		if (key_cmp(first, &e))
			break;
	}
	return j;
}

static int emit_padded(wjoin_op *o, int side, const sl_jrec *r, sl_err *err)
{
	int64_t wm = o->firing - 1;
	if (o->semi) /* the left row alone */
		return sl__joiner_emit_left(&o->b.j, r->row, r->len, SL_INSERT, wm, err);
	return sl__joiner_emit_stored(&o->b.j, side, r->row, r->len, SL_INSERT, wm, err);
}

/* Pads every record of list b (side s) whose flag in `matched` is 0
 * (matched NULL: all of them). */
static int pad_unmatched(wjoin_op *o, int s, const sl_buf *b, const sl_buf *matched, sl_err *err)
{
	const char *p = b->p, *end = p + b->len;
	for (int i = 0; p < end; i++) {
		sl_jrec r;
		if (sl__jrec_read(&p, end, &r))
			return sl_err_set(err, SL_ESTATE, "window join state: malformed record");
		int rc;
		if ((!matched || !matched->p[i]) && (rc = emit_padded(o, s, &r, err)))
			return rc;
	}
	return 0;
}

static int count_recs(const sl_buf *b, sl_buf *flags, sl_err *err)
{
	const char *p = b->p, *end = p + b->len;
	sl_buf_clear(flags);
	while (p < end) {
		sl_jrec r;
		if (sl__jrec_read(&p, end, &r))
			return sl_err_set(err, SL_ESTATE, "window join state: malformed record");
		if (sl_buf_putc(flags, 0))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	return 0;
}

/* Joins the left list lst[0] with the right list lst[1] (one key). */
static int join_lists(wjoin_op *o, sl_err *err)
{
	int rc;
	if ((rc = count_recs(&o->lst[0], &o->lmatch, err)) ||
	    (rc = count_recs(&o->lst[1], &o->rmatch, err)))
		return rc;
	const char *lp = o->lst[0].p, *lend = lp + o->lst[0].len;
	for (int li = 0; lp < lend; li++) {
		sl_jrec l;
		if (sl__jrec_read(&lp, lend, &l))
			return sl_err_set(err, SL_ESTATE, "window join state: malformed record");
		const char *rp = o->lst[1].p, *rend = rp + o->lst[1].len;
		int ri = 0;
		while (rp < rend) {
			sl__joiner_cand_reset(&o->b.j);
			int n = 0, first = ri;
			while (rp < rend && n < o->b.j.cand->cap) {
				sl_jrec r;
				if (sl__jrec_read(&rp, rend, &r))
					return sl_err_set(err, SL_ESTATE, "window join state: malformed record");
				if ((rc = sl__joiner_cand_add(&o->b.j, NULL, -1, l.row, l.len, NULL, -1, r.row,
				                              r.len, err)) < 0)
					return rc;
				n++;
				ri++;
			}
			if ((rc = sl__joiner_cand_eval(&o->b.j, err)))
				return rc;
			for (int i = 0; i < n; i++) {
				if (!o->b.j.ok[i])
					continue;
				o->lmatch.p[li] = 1;
				o->rmatch.p[first + i] = 1;
				if (!o->semi &&
				    (rc = sl__joiner_emit_cand(&o->b.j, i, SL_INSERT, o->firing - 1, err)))
					return rc;
			}
		}
	}
	if (o->semi == 1) { /* the matched left rows: flip the flags */
		for (size_t i = 0; i < o->lmatch.len; i++)
			o->lmatch.p[i] = !o->lmatch.p[i];
		return pad_unmatched(o, 0, &o->lst[0], &o->lmatch, err);
	}
	if (o->b.outer[0] && (rc = pad_unmatched(o, 0, &o->lst[0], &o->lmatch, err)))
		return rc;
	if (o->b.outer[1] && (rc = pad_unmatched(o, 1, &o->lst[1], &o->rmatch, err)))
		return rc;
	return 0;
}

/* Fires window `end` (a namespace timer, timers.h, which drops the
 * window's state after): both sides' entries sorted by join key, merged;
 * a key of both sides is joined, a left-only key goes through join_lists
 * with no right rows (outer and anti joins pad it), a right-only key is
 * padded on an outer right side, a key with a NULL is padded if its side
 * is outer. */
static int fire_window(void *ctx, int64_t end, sl_err *err)
{
	wjoin_op *o = ctx;
	int rc = 0;
	o->firing = end;
	long n[2];
	if ((n[0] = collect_side(o, 0, end, err)) < 0 || (n[1] = collect_side(o, 1, end, err)) < 0)
		return err->code ? err->code : SL_ENOMEM;
	long i = 0, j = 0;
	while (!rc && (i < n[0] || j < n[1])) {
		wj_ent a, b;
		long ie = i < n[0] ? group_end(o, 0, i, n[0], &a) : i;
		long je = j < n[1] ? group_end(o, 1, j, n[1], &b) : j;
		int c = i >= n[0] ? 1 : j >= n[1] ? -1 : key_cmp(&a, &b);
		if (c <= 0 && (rc = group_list(o, 0, i, ie, err)))
			return rc;
		if (c < 0 || (c == 0 && (a.flag & WJ_NULL))) {
			/* left key without right rows (or NULL: never matches) */
			sl_buf_clear(&o->lst[1]);
			rc = (a.flag & WJ_NULL) ? pad_unmatched(o, 0, &o->lst[0], NULL, err)
			                        : join_lists(o, err);
			i = ie;
			if (c == 0) /* NULL keys of the right side: padded below */
				c = 1, ie = i;
			else
				continue;
		}
		if (rc)
			break;
		if (c > 0) {
			if (o->b.outer[1]) {
				if ((rc = group_list(o, 1, j, je, err)))
					return rc;
				rc = pad_unmatched(o, 1, &o->lst[1], NULL, err);
			}
			j = je;
			continue;
		}
		if ((rc = group_list(o, 1, j, je, err)))
			return rc;
		rc = join_lists(o, err);
		i = ie;
		j = je;
	}
	return rc;
}

/* Fires every window with end <= w, oldest first. */
static int fire(wjoin_op *o, int64_t w, sl_err *err)
{
	return sl_ns_timers_fire(&o->tm, w, fire_window, o, err);
}

static int wjoin_row(wjoin_op *o, int s, const sl_batch *in, int row, sl_err *err)
{
	const sl_col *ec = &in->cols[o->wend[s]];
	int nullkey = sl_rowcodec_key_null(in, o->b.keys[s], o->b.p.nkeys, row);
	if (ec->null[row] || (nullkey && !o->b.outer[s]))
		return 0;
	int64_t end = sl_win_to_utc(o->b.p.tz, ec->v.i64[row]);
	if (end <= in->wm[row] || end <= o->tm.fired) { /* rule 3 */
		sl_op_late_dropped(&o->b.op, in, row); /* counted, kept for the metrics */
		return 0;
	}
	sl_buf *key = &o->b.key;
	sl_buf_clear(key);
	if (sl_buf_putc(key, (char)((nullkey ? WJ_NULL : 0) | WJ_SEQ)) ||
	    sl_rowcodec_key(in, o->b.keys[s], o->b.p.nkeys, row, key) ||
	    sl_buf_append(key, &o->seq, 8))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	const void *v;
	uint32_t vl;
	char *num = key->p + key->len - 8;
	/* a number a restored entry holds already: take the next one */
	while (sl_state_get_var(o->b.st[s], end, key->p, (uint32_t)key->len, &v, &vl)) {
		o->seq++;
		memcpy(num, &o->seq, 8);
	}
	o->seq++;
	sl_buf *rec = &o->lst[s];
	sl_buf_clear(rec);
	if (sl__jrec_append(rec, in, row, 1, 0, 0))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return sl__jlist_store(&o->b, o->b.st[s], end, key->p, (uint32_t)key->len, rec, err);
}

static int wjoin_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	wjoin_op *o = (wjoin_op *)op;
	SL_BATCH_FOREACH(in, k, row) {
		int rc = wjoin_row(o, input, in, row, err);
		if (rc)
			return rc;
	}
	return sl__joiner_flush(&o->b.j, err);
}

static int wjoin_watermark(sl_op *op, int64_t wm, sl_err *err)
{
	wjoin_op *o = (wjoin_op *)op;
	int rc = fire(o, wm, err);
	if (!rc)
		rc = sl__joiner_flush(&o->b.j, err);
	return rc ? rc : sl_op_emit_watermark(op, wm, err);
}

/* The partitioning key of a side's entry: the join key after the flag
 * byte, without the row number (docs/state.md "Key groups"). */
static uint32_t side_pkey(const void *ctx, const void *key, uint32_t klen, const void *val,
                          uint32_t vlen, const void **pk)
{
	(void)ctx;
	*pk = klen ? (const char *)key + 1 : key;
	if (klen && (((const unsigned char *)key)[0] & WJ_SEQ) && klen >= 9)
		return klen - 9;
	return klen ? klen - 1 : 0;
}

static int wjoin_open(sl_op *op, sl_err *err)
{
	wjoin_op *o = (wjoin_op *)op;
	static const char *const names[2] = {"left", "right"};
	int rc = sl__join_base_open(&o->b, names, err);
	for (int s = 0; !rc && s < 2; s++)
		sl_state_table_set_pkey(o->b.st[s], side_pkey, NULL);
	sl_ns_timers_add(&o->tm, o->b.st[0]);
	sl_ns_timers_add(&o->tm, o->b.st[1]);
	return rc;
}

/* The watermark up to which windows have fired is the operator's merged
 * watermark (restored by the graph); kept here to judge late rows. */
static int wjoin_snapshot(sl_op *op, sl_snap_writer *w, sl_err *err)
{
	sl_snap_put_i64(w, ((wjoin_op *)op)->tm.fired);
	return 0;
}

static int wjoin_restore(sl_op *op, sl_snap_reader *r, sl_err *err)
{
	((wjoin_op *)op)->tm.fired = sl_snap_get_i64(r);
	return sl_snap_reader_ok(r) ? 0 : sl_err_set(err, SL_ESTATE, "window join: damaged snapshot");
}

static void wjoin_close(sl_op *op)
{
	wjoin_op *o = (wjoin_op *)op;
	sl__join_base_close(&o->b);
	sl_buf_deinit(&o->lst[0]);
	sl_buf_deinit(&o->lst[1]);
	for (int s = 0; s < 2; s++) {
		sl_buf_deinit(&o->due[s]);
		sl_buf_deinit(&o->idx[s]);
	}
	sl_buf_deinit(&o->lmatch);
	sl_buf_deinit(&o->rmatch);
}

static const sl_op_vtab wjoin_vtab = {
	.name = "WindowJoin",
	.kind = SL_OPK_WINDOW_JOIN,
	.flags = SL_OPF_STATE_WM,
	.open = wjoin_open,
	.process = wjoin_process,
	.watermark = wjoin_watermark,
	.snapshot = wjoin_snapshot,
	.restore = wjoin_restore,
	.close = wjoin_close,
};

sl_op *sl_op_window_join_new(const sl_join_plan *p, sl_err *err)
{
	sl_join_base *b = sl__join_base_new(sizeof(wjoin_op), &wjoin_vtab, p, "window join", err);
	if (!b)
		return NULL;
	wjoin_op *o = (wjoin_op *)b;
	sl_ns_timers_init(&o->tm, 0);
	if (p->lwend < 0 || p->rwend < 0) {
		sl_err_set(err, SL_EPLAN, "a window join needs window_end on both sides");
		sl_op_free(&b->op); /* calls its close */
		return NULL;
	}
	o->wend[0] = p->lwend;
	o->wend[1] = p->rwend;
	o->semi = p->kind == SL_JOIN_SEMI ? 1 : p->kind == SL_JOIN_ANTI ? 2 : 0;
	/* an anti join keeps left rows with a NULL key, to emit them */
	b->outer[0] = p->kind == SL_JOIN_LEFT || p->kind == SL_JOIN_FULL || p->kind == SL_JOIN_ANTI;
	return &b->op;
}
