/*
 * op_join.c - the regular join: INNER, LEFT, RIGHT and FULL OUTER on
 * equality keys (or none) plus a residual predicate, over append-only or updating
 * inputs (Flink's StreamingJoinOperator).
 *
 * INTERFACE ROUTINES
 *   open       opens the state table of each side and the output builder
 *   process    a row of input 0 (left) or 1 (right): matches it against
 *              the other side's rows of its key, emits the changes, and
 *              adds it to (or retracts it from) its own side's state
 *   watermark  none: forwarded unchanged (the output has no time
 *              attribute: the planner drops the inputs' rowtimes)
 *
 * Changes (docs/joins.md).  An accumulating row (+I/+U) emits +I of each
 * joined row; a retracting row (-U/-D) emits -D of each.  A row of an
 * outer side without a match emits +I (-D when retracted) of itself padded
 * with NULLs.  When a row of the other side gives an outer row its first
 * match, -D of the padded row comes before the +I of the joined one; when
 * its last match goes away, +I of the padded row follows the -D of the
 * joined one.  A row whose key has a NULL matches nothing (and is not
 * stored).  A retraction of a row that is not in the state is ignored.
 *
 * A scalar subquery's join (p.single_right: LEFT, no keys) refuses a
 * second right row at run time, naming the subquery (Flink's SINGLE_VALUE
 * aggregate raises the same error in front of its join).
 *
 * Without equi-keys (a cross or theta join: nkeys 0) every row has the
 * empty join key (b.key_empty), so it meets every row of the other side;
 * the planner runs such a join as one instance (a singleton exchange on
 * both inputs, as Flink): the empty key is the singleton's key group.
 *
 * State (version 2: a map per join key, as Flink's MapState<row, count>).
 * Tables "left_map" and "right_map", namespace 0, are map tables
 * (state.h, sl_state_table_set_prefix): the key of an entry is the
 * encoded join key followed by a distinct row's bytes (data/rowcodec.h's
 * row form), its value 16 bytes, u32 count (duplicates), u32 aux (for
 * outer sides the number of rows of the other side it matches, to know
 * when the padded row must be retracted or re-emitted; 0 on an inner
 * side), i64 seq (its
 * creation number: a probe visits the rows of a key in creation order,
 * whatever order the backend scans them in, so the output is the same on
 * every backend and as with the lists of version 1; the next number is the
 * operator's snapshot scalar).  The join key
 * is the prefix: the partitioning key of key groups and what a probe
 * visits (sl_state_prefix_scan).  So adding or retracting a row is one
 * lookup and one write whatever the key's number of rows, and a probe
 * costs the rows of the other side under the key.  An entry goes when its
 * count falls to zero; otherwise state lives as long as the job, unless a
 * state TTL (per side: 'table.exec.state.ttl', the STATE_TTL hint)
 * expires a row ttl after its last write (a new duplicate, its match count
 * changing; docs/state.md, "State TTL").  Version 1 kept one list value
 * per key in tables "left" and "right" (each row cost O(rows of its key));
 * a snapshot holding them is refused, naming the operator (vt.retired).
 *
 * Built on the join base (join_base.h): key encoding, the chunked matching
 * (over the probed rows copied into a record list) and the padded output
 * are the base's; what is this operator's own is the changelog rules and
 * its map state above.  An INNER join (neither side outer) does not use
 * the base's matching: its candidates, from every row of an input batch,
 * are its output (join_row_inner, sl__joiner_cand_emit).
 */
#include "join_base.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct join_op {
	sl_join_base b;         /* first (join_base.h): tables "left_map", "right_map" */
	sl_buf mk;              /* map key of the current row: join key ++ row bytes */
	sl_buf wk;              /* map key of a probed row written back */
	sl_buf other;           /* the probed rows of the other side, as records */
	sl_state_pkey_cols_ctx pkc[2]; /* the join key: the first nkeys columns */
	sl_type *ktypes;        /* their types, per side (pkc) */
	int64_t seq;            /* the next entry's creation number */
	struct { int64_t seq; size_t off; } *ord; /* probe_sort's index */
	size_t ordcap;
	sl_buf tmp;             /* probe_sort's copy */
} join_op;

/* A map entry's value: seq numbers entries in creation order, so a probe
 * visits a key's rows in the order they came, on every backend (RocksDB
 * iterates in key order), as the list per key did. */
typedef struct jval {
	uint32_t count; /* duplicates */
	uint32_t aux;   /* matches of an outer row (jval_aux refuses more) */
	int64_t seq;
} jval;

/* A match count into a value: more than 2^32 - 1 matches for one row is
 * refused (its output alone would be that many rows), never wrapped. */
static int jval_aux(jval *v, int64_t aux, sl_err *err)
{
	if (aux < 0 || aux > (int64_t)UINT32_MAX)
		return sl_err_set(err, SL_ERUNTIME, "join: a row matches %lld rows of the other "
		                  "side, more than the %u a row's state counts", (long long)aux,
		                  UINT32_MAX);
	v->aux = (uint32_t)aux;
	return 0;
}

#define DIRTY 1 /* a probed record's time field is seq << 1 | DIRTY when its aux changed */

/* Emits n copies of a stored row of side `side`, the other side padded. */
static int emit_stored(join_op *o, int side, const char *bytes, uint32_t len, uint32_t n,
                       uint8_t op, int64_t wm, sl_err *err)
{
	for (uint32_t i = 0; i < n; i++) {
		int rc = sl__joiner_emit_stored(&o->b.j, side, bytes, len, op, wm, err);
		if (rc)
			return rc;
	}
	return 0;
}

static void mark_dirty(char *rec)
{
	int64_t t;
	memcpy(&t, rec + 16, 8);
	t |= DIRTY;
	memcpy(rec + 16, &t, 8);
}

typedef struct match_ctx {
	join_op *o;
	int s, acc;
	int64_t wm;
	int64_t nm;   /* matched rows of the other side (with duplicates) */
	int changed;  /* a record of `other` was rewritten */
} match_ctx;

/* A stored record of the other side matches the input row: emits the
 * joined rows (and the outer side's padded row changes) and counts it. */
static int on_match(void *ctx, char *rec, const sl_jrec *r, int cand, sl_err *err)
{
	match_ctx *m = ctx;
	join_op *o = m->o;
	int os = 1 - m->s, rc;
	m->nm += r->count;
	if (m->acc) {
		if (o->b.outer[os] && r->aux == 0 &&
		    (rc = emit_stored(o, os, r->row, r->len, r->count, SL_DELETE, m->wm, err)))
			return rc;
		for (uint32_t k = 0; k < r->count; k++)
			if ((rc = sl__joiner_emit_cand(&o->b.j, cand, SL_INSERT, m->wm, err)))
				return rc;
		if (o->b.outer[os]) {
			sl__jrec_set(rec, r->count, r->aux + 1);
			mark_dirty(rec);
			m->changed = 1;
		}
	} else {
		for (uint32_t k = 0; k < r->count; k++)
			if ((rc = sl__joiner_emit_cand(&o->b.j, cand, SL_DELETE, m->wm, err)))
				return rc;
		if (o->b.outer[os]) {
			if (r->aux == 1 &&
			    (rc = emit_stored(o, os, r->row, r->len, r->count, SL_INSERT, m->wm, err)))
				return rc;
			sl__jrec_set(rec, r->count, r->aux > 0 ? r->aux - 1 : 0);
			mark_dirty(rec);
			m->changed = 1;
		}
	}
	return 0;
}

/* sl_state_prefix_scan callback: appends a probed entry (map key: join
 * key of klen0 bytes ++ row bytes) to o->other as a record. */
typedef struct probe_ctx {
	join_op *o;
	uint32_t klen;
	int sorted;   /* the entries came in creation order */
	int64_t last; /* the last entry's seq */
} probe_ctx;

static int ord_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Puts the records of o->other in creation order (seq, in their time
 * field). */
static int probe_sort(join_op *o, sl_err *err)
{
	size_t n = 0;
	const char *p = o->other.p, *end = p + o->other.len;
	while (p < end) {
		const char *at = p;
		sl_jrec r;
		if (sl__jrec_read(&p, end, &r))
			return sl_err_set(err, SL_ESTATE, "join state: malformed record");
		if (n == o->ordcap) {
			size_t cap = o->ordcap ? o->ordcap * 2 : 64;
			void *q = realloc(o->ord, cap * sizeof(*o->ord));
			if (!q)
				return sl_err_set(err, SL_ENOMEM, "out of memory");
			o->ord = q;
			o->ordcap = cap;
		}
		o->ord[n].seq = r.time;
		o->ord[n++].off = (size_t)(at - o->other.p);
	}
	qsort(o->ord, n, sizeof(*o->ord), ord_cmp);
	sl_buf_clear(&o->tmp);
	for (size_t i = 0; i < n; i++) {
		const char *q = o->other.p + o->ord[i].off;
		sl_jrec r;
		if (sl__jrec_read(&q, end, &r) ||
		    sl_buf_append(&o->tmp, o->other.p + o->ord[i].off, SL_JREC_HDR + r.len))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	sl_buf t = o->other;
	o->other = o->tmp;
	o->tmp = t;
	return 0;
}

static int probe_cb(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                    sl_err *err)
{
	probe_ctx *p = ctx;
	jval v;
	if (klen < p->klen || vlen != sizeof(v))
		return sl_err_set(err, SL_ESTATE, "join state: malformed entry");
	memcpy(&v, val, sizeof(v));
	uint32_t len = klen - p->klen;
	int64_t time = v.seq << 1, aux = v.aux; /* time's low bit: DIRTY */
	p->sorted &= v.seq > p->last;
	p->last = v.seq;
	sl_buf *b = &p->o->other;
	if (sl_buf_append(b, &len, 4) || sl_buf_append(b, &v.count, 4) ||
	    sl_buf_append(b, &aux, 8) || sl_buf_append(b, &time, 8) ||
	    sl_buf_append(b, (const char *)key + p->klen, len))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

/* Writes the probed records whose match count changed back to side os. */
static int write_back(join_op *o, int os, sl_err *err)
{
	const sl_buf *key = &o->b.key;
	const char *p = o->other.p, *end = p + o->other.len;
	while (p < end) {
		sl_jrec r;
		if (sl__jrec_read(&p, end, &r))
			return sl_err_set(err, SL_ESTATE, "join state: malformed record");
		if (!(r.time & DIRTY))
			continue;
		jval v = {r.count, 0, r.time >> 1};
		int rc = jval_aux(&v, r.aux, err);
		if (rc)
			return rc;
		sl_buf_clear(&o->wk);
		if (sl_buf_append(&o->wk, key->p, key->len) || sl_buf_append(&o->wk, r.row, r.len))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		rc = sl_state_put_var(o->b.st[os], 0, o->wk.p, (uint32_t)o->wk.len, &v, sizeof(v));
		if (rc)
			return sl_err_set(err, rc, "join state: write failed");
	}
	return 0;
}

/* Matches input row (s, in, row) against the other side's rows of its
 * key, emitting joined rows; *nm = matched other rows (with duplicates). */
static int match_other(join_op *o, int s, const sl_batch *in, int row, int acc, int64_t wm,
                       int64_t *nm, sl_err *err)
{
	int os = 1 - s, rc;
	match_ctx m = {o, s, acc, wm, 0, 0};
	const sl_buf *key = &o->b.key;
	probe_ctx pc = {o, (uint32_t)key->len, 1, INT64_MIN};
	*nm = 0;
	sl_buf_clear(&o->other);
	if ((rc = sl_state_prefix_scan(o->b.st[os], 0, key->p, (uint32_t)key->len, probe_cb, &pc,
	                               err)))
		return rc < 0 ? rc : sl_err_set(err, SL_ESTATE, "join state: scan stopped");
	if (!pc.sorted && (rc = probe_sort(o, err)))
		return rc;
	if (o->other.len &&
	    (rc = sl__join_match(&o->b, s, in, row, &o->other, NULL, on_match, &m, err)))
		return rc;
	*nm = m.nm;
	return m.changed ? write_back(o, os, err) : 0;
}

/* Looks up row (in, row) of side s, whose join key is in o->b.key, in
 * its side's map: o->mk = its map key, *v its value (zero when absent).
 * Returns 1 when present, 0 when absent, or an error (< 0, err set). */
static int own_entry(join_op *o, int s, const sl_batch *in, int row, jval *v, sl_err *err)
{
	const sl_buf *key = &o->b.key;
	sl_buf_clear(&o->mk);
	if (sl_buf_append(&o->mk, key->p, key->len) || sl_rowcodec_row(in, row, &o->mk))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	const void *vp;
	uint32_t vl;
	*v = (jval){0, 0, 0};
	if (!sl_state_get_var(o->b.st[s], 0, o->mk.p, (uint32_t)o->mk.len, &vp, &vl))
		return 0;
	if (vl != sizeof(*v))
		return sl_err_set(err, SL_ESTATE, "join state: malformed entry");
	memcpy(v, vp, sizeof(*v)); /* a copy: the pointer lasts until the next call */
	return 1;
}

/* Counts the row of o->mk in side s's map: one more (acc) or one fewer
 * duplicate, match count nm; the entry goes at count 0. */
static int own_count(join_op *o, int s, jval v, int have, int acc, int64_t nm, sl_err *err)
{
	if (!have)
		v.seq = o->seq++;
	v.count = acc ? v.count + 1 : v.count - 1;
	int rc = jval_aux(&v, nm, err);
	if (rc)
		return rc;
	if (v.count == 0) {
		sl_state_delete(o->b.st[s], 0, o->mk.p, (uint32_t)o->mk.len);
		return 0;
	}
	rc = sl_state_put_var(o->b.st[s], 0, o->mk.p, (uint32_t)o->mk.len, &v, sizeof(v));
	return rc ? sl_err_set(err, rc, "join state: write failed") : 0;
}

/* sl_state_prefix_scan callback: stops at the first entry. */
static int any_cb(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                  sl_err *err)
{
	*(int *)ctx = 1;
	return 1;
}

/* A scalar subquery's join (p.single_right): a right row to be added while
 * the right side already holds one (a duplicate: have) is the subquery's
 * second row, an error as Flink's SINGLE_VALUE raises it.  0 or
 * SL_ERUNTIME with err set. */
static int single_check(join_op *o, int have, sl_err *err)
{
	int any = have;
	if (!any) {
		int rc = sl_state_prefix_scan(o->b.st[1], 0, o->b.key.p, (uint32_t)o->b.key.len, any_cb,
		                              &any, err);
		if (rc < 0)
			return rc;
	}
	if (!any)
		return 0;
	return sl_err_set(err, SL_ERUNTIME, "line %d, column %d: the scalar subquery returned more "
	                  "than one row (Flink: SingleValueAggFunction received more than one "
	                  "element.)", o->b.p.single_line, o->b.p.single_col);
}

static int join_row(join_op *o, int s, const sl_batch *in, int row, int64_t wm, sl_err *err)
{
	int acc = in->op[row] == SL_INSERT || in->op[row] == SL_UPDATE_AFTER;
	uint8_t kind = acc ? SL_INSERT : SL_DELETE;
	int rc = sl__join_key(&o->b, s, in, row, err);
	if (rc < 0)
		return rc;
	if (rc == 1) /* a NULL key matches nothing: only an outer row shows, padded */
		return o->b.outer[s] ? sl__joiner_emit_in(&o->b.j, s, in, row, NULL, 0, kind, wm, err)
		                     : 0;
	jval v;
	int have = own_entry(o, s, in, row, &v, err);
	if (have < 0)
		return have;
	if (!acc && !have)
		return 0; /* retraction of a row this join never saw */
	if (s == 1 && acc && o->b.p.single_right && (rc = single_check(o, have, err)))
		return rc;
	int64_t nm;
	if ((rc = match_other(o, s, in, row, acc, wm, &nm, err)))
		return rc;
	if (nm == 0 && o->b.outer[s] &&
	    (rc = sl__joiner_emit_in(&o->b.j, s, in, row, NULL, 0, kind, wm, err)))
		return rc;
	return own_count(o, s, v, have, acc, nm, err);
}

/* An inner side's entry counted for one row (sl_state_update_var's
 * callback): one more duplicate (acc; a new entry takes the next
 * creation number) or one fewer (the entry goes at 0, and a row that is
 * not there is not stored: have = 0). */
typedef struct own_upd {
	join_op *o;
	int acc;
	int have;
} own_upd;

static int own_update(void *ctx, void *val, uint32_t vlen, int present)
{
	own_upd *u = ctx;
	jval v;
	memcpy(&v, val, sizeof(v));
	u->have = present;
	if (!present) {
		if (!u->acc)
			return 0;
		v = (jval){0, 0, u->o->seq++};
	}
	v.count = u->acc ? v.count + 1 : v.count - 1;
	v.aux = 0; /* only outer rows count matches */
	if (v.count == 0)
		return 0;
	memcpy(val, &v, sizeof(v));
	return 1;
}

/*
 * An INNER join's row (neither side outer): the same changes as join_row,
 * but its candidates (the row with each stored row of the other side under
 * its key, once per duplicate, with the row's kind and W_before) stay in
 * the joiner's candidate batch, which is evaluated and emitted as the
 * output when full and at the end of the input batch
 * (sl__joiner_cand_emit): one residual call per batch of candidates and no
 * copy of the joined rows.  Deferring is exact: a batch comes from one
 * input, whose rows probe only the other side's map and write only their
 * own, and the output keeps the order of join_row's.  An inner side keeps
 * no match count (aux 0: only outer rows read it), so the row's own entry
 * is counted first, in one call (sl_state_update_var: one lookup, where
 * a get and a put looked the ~200-byte key of a Nexmark bid up twice):
 * the probe reads only the other side's map.
 */
static int join_row_inner(join_op *o, int s, const sl_batch *in, int row, sl_err *err)
{
	int acc = in->op[row] == SL_INSERT || in->op[row] == SL_UPDATE_AFTER;
	int rc = sl__join_key(&o->b, s, in, row, err);
	if (rc)
		return rc < 0 ? rc : 0; /* a NULL key matches nothing and is not stored */
	const sl_buf *key = &o->b.key;
	sl_buf_clear(&o->mk);
	if (sl_buf_append(&o->mk, key->p, key->len) || sl_rowcodec_row(in, row, &o->mk))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	own_upd u = {o, acc, 0};
	rc = sl_state_update_var(o->b.st[s], 0, o->mk.p, (uint32_t)o->mk.len, sizeof(jval),
	                         own_update, &u);
	if (rc)
		return sl_err_set(err, rc, rc == SL_ESTATE ? "join state: malformed entry"
		                                           : "join state: write failed");
	if (!acc && !u.have)
		return 0; /* retraction of a row this join never saw */
	probe_ctx pc = {o, (uint32_t)key->len, 1, INT64_MIN};
	sl_buf_clear(&o->other);
	if ((rc = sl_state_prefix_scan(o->b.st[1 - s], 0, key->p, (uint32_t)key->len, probe_cb, &pc,
	                               err)))
		return rc < 0 ? rc : sl_err_set(err, SL_ESTATE, "join state: scan stopped");
	if (!pc.sorted && (rc = probe_sort(o, err)))
		return rc;
	sl_joiner *j = &o->b.j;
	const char *p = o->other.p, *end = p + o->other.len;
	while (p < end) {
		sl_jrec r;
		if (sl__jrec_read(&p, end, &r))
			return sl_err_set(err, SL_ESTATE, "join state: malformed record");
		for (uint32_t k = 0; k < r.count; k++) {
			if (j->cand->nrows == j->cand->cap && (rc = sl__joiner_cand_emit(j, err)))
				return rc;
			int c = s == 0 ? sl__joiner_cand_add(j, in, row, NULL, 0, NULL, -1, r.row, r.len, err)
			               : sl__joiner_cand_add(j, NULL, -1, r.row, r.len, in, row, NULL, 0, err);
			if (c < 0)
				return c;
			j->cand->op[c] = acc ? SL_INSERT : SL_DELETE;
			j->cand->wm[c] = in->wm[row];
		}
	}
	return 0;
}

static int join_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	join_op *o = (join_op *)op;
	int inner = !o->b.outer[0] && !o->b.outer[1], rc;
	/* results carry the input row's W_before (docs/parallel.md §4, rule
	 * 6), never the other input's watermark (timing at parallelism N) */
	SL_BATCH_FOREACH(in, k, row) {
		rc = inner ? join_row_inner(o, input, in, row, err)
		           : join_row(o, input, in, row, in->wm[row], err);
		if (rc)
			return rc;
	}
	if (inner && (rc = sl__joiner_cand_emit(&o->b.j, err)))
		return rc;
	return sl__joiner_flush(&o->b.j, err);
}

/* The operator's scalar: the next creation number, written only while
 * the maps hold rows (an empty join keeps nothing, so a job without it
 * may restore the snapshot as Flink allows; numbers may start again at 0
 * when there is no row to come after). */
static int join_snapshot(sl_op *op, sl_snap_writer *w, sl_err *err)
{
	join_op *o = (join_op *)op;
	if (sl_state_count(o->b.st[0]) + sl_state_count(o->b.st[1]) > 0)
		sl_snap_put_i64(w, o->seq);
	return 0;
}

/* At another parallelism every old instance's number comes (graph.c):
 * the largest is above every restored entry's. */
static int join_restore(sl_op *op, sl_snap_reader *r, sl_err *err)
{
	join_op *o = (join_op *)op;
	if (r->len == 0) /* no row (or version 1, whose tables are refused: vt.retired) */
		return 0;
	int64_t seq = sl_snap_get_i64(r);
	if (!sl_snap_reader_ok(r) || seq < 0)
		return sl_err_set(err, SL_ESTATE, "join: damaged snapshot");
	if (seq > o->seq)
		o->seq = seq;
	return 0;
}

static int join_open(sl_op *op, sl_err *err)
{
	static const char *const names[2] = {"left_map", "right_map"};
	join_op *o = (join_op *)op;
	int n = o->b.p.nkeys, rc = sl__join_base_open(&o->b, names, err);
	if (rc)
		return rc;
	o->ktypes = malloc(sizeof(sl_type) * (size_t)(2 * n + 1));
	if (!o->ktypes)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int s = 0; s < 2; s++) {
		const sl_type *t = s == 0 ? o->b.p.ltypes : o->b.p.rtypes;
		for (int i = 0; i < n; i++)
			o->ktypes[s * n + i] = t[o->b.keys[s][i]];
		o->pkc[s].types = o->ktypes + s * n;
		o->pkc[s].n = n;
		/* the join key, a prefix of every map key, is the partitioning
		 * key of key groups and what a probe visits */
		sl_state_table_set_prefix(o->b.st[s], sl__join_pkey, &o->pkc[s]);
	}
	return 0;
}

static void join_close(sl_op *op)
{
	join_op *o = (join_op *)op;
	sl__join_base_close(&o->b);
	sl_buf_deinit(&o->mk);
	sl_buf_deinit(&o->wk);
	sl_buf_deinit(&o->other);
	sl_buf_deinit(&o->tmp);
	free(o->ktypes);
	free(o->ord);
	o->ktypes = NULL;
	o->ord = NULL;
}

/* The tables of state version 1 (one list value per key). */
static const char *const retired[] = {"left", "right", NULL};

static const sl_op_vtab join_vtab = {
	.name = "Join",
	.kind = SL_OPK_JOIN,
	.flags = SL_OPF_STATE_TTL | SL_OPF_TTL_PER_SIDE,
	.open = join_open,
	.process = join_process,
	.snapshot = join_snapshot,
	.restore = join_restore,
	.close = join_close,
	.retired = retired,
};

sl_op *sl_op_join_new(const sl_join_plan *p, sl_err *err)
{
	sl_join_base *b = sl__join_base_new(sizeof(join_op), &join_vtab, p, "join", err);
	if (b)
		b->key_empty = 1; /* without equi-keys: one empty key (sl__join_pkey) */
	return b ? &b->op : NULL;
}
