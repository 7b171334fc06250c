/*
 * op_temporal_join.c - the event-time temporal join (Flink's
 * `JOIN versioned FOR SYSTEM_TIME AS OF o.rowtime`, its
 * TemporalRowTimeJoinOperator): each row of the left (probe) input joins
 * the version of the right (versioned) table that was valid at the probe's
 * rowtime.  INNER and LEFT; the probe input is append-only, the versioned
 * input append-only (every row a new version of its key) or a full
 * retract stream (a changelog source after ChangelogNormalize); the
 * output is append-only and keeps the left rowtime.
 *
 * INTERFACE ROUTINES
 *   open       opens the probe, version and timer tables
 *   process    buffers a probe row under its time and key, or records a
 *              version; a row late by its own W_before is dropped
 *   watermark  fires the probes and frees the versions a new merged
 *              watermark allows (below), then forwards it
 *   snapshot   the merged watermark applied so far (judges late probes)
 *   restore
 *
 * Time (docs/semantics.md §1: W means no more rows with ts < W).  A probe row at
 * time t waits until W > t: only then can no version with time <= t still
 * arrive.  It then joins the version of its key whose time is the latest
 * <= t: a +I/+U row (a version) joins, a -D (the key deleted at that time)
 * or no version at all joins nothing (LEFT: the probe is emitted padded
 * with NULLs).  The residual ON conditions are evaluated over the joined
 * row; a LEFT probe whose version fails them is padded too.  A -U is
 * ignored: the +U that follows it starts the next version (Flink asks the
 * versioned input for updates without their -U).  A version replaces one
 * of the same key at the same time.  Probes fire at the operator's
 * watermark W only (the minimum over both inputs), never at a row's
 * W_before (docs/parallel.md §4).  A probe late by its own W_before (t <
 * W_before(r)), or whose time has fired (t < W: idle inputs), is dropped
 * and counted (stats.late_dropped), like every late row in sluice: its
 * version may be freed.  Versions are never dropped (a delete after
 * ChangelogNormalize carries the deleted version's own, old, time); a
 * version with t < W_before(r) takes effect at W_before(r) instead of t:
 * probes before W_before(r) may have fired already or not, depending on
 * how far the probe input has got, so none of them sees it, and all later
 * ones do.  That is also what Flink with per-row watermarks gives: its
 * probes below the versioned input's watermark have fired before the row
 * arrives.  A version with t >= W_before reaches no probe that has fired
 * (W <= W_before).  So which version a probe joins depends on the data
 * only.
 * Emitted rows carry W_before = t for a probe at t (rule 6: it fired when W
 * reached t + 1 us, and t is the largest watermark at which it was not yet
 * due), or the probe's own
 * W_before when it is emitted at once (a NULL key or time), and the
 * watermark is forwarded unchanged: the probes still buffered have t >= W.  A probe whose key or time is NULL
 * matches nothing: dropped (INNER) or emitted padded at once (LEFT).
 *
 * Freeing.  A future probe has t >= W, so of the versions of a key with
 * time <= W only the newest can still be joined: the older ones are
 * deleted, and that newest one too when it is a -D.  Each version
 * registers a keyed timer at its time (timers.h); when W reaches it, its
 * key is cleaned.  The probes wait on namespace timers (the namespaces of
 * "probes" are their times): W fires every time t < W, oldest first, and
 * drops it once its probes have been joined.
 *
 * State.  "probes": namespace = probe time (the probes' event-time timers,
 * sl_ns_timers), key = the encoded join key
 * (data/rowcodec.h), value = list of records (join.h), one per probe row, in
 * arrival order.  "versions": namespace 0, key = the join key (the
 * versioned table's PRIMARY KEY), value = records sorted by time with
 * aux = 1 for a version, 0 for a -D.  "timers" (keyed timers, timers.h):
 * namespace = a version's time, key = its join key (8-byte slot, unused).
 * Built on the join base (join_base.h: "probes" and "versions" are its
 * left and right row tables; keys, record lists, the joiner).  No malloc
 * per row: keys and lists go through re-used buffers.  One thread, the
 * job's.
 */
#include "join_base.h"
#include "timers.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

typedef struct tjoin_op {
	sl_join_base b;       /* first (join_base.h): st[0] "probes", st[1] "versions" */
	sl_timers timers;     /* timers.h: table "timers" (versions to clean) */
	sl_ns_timers ptm;     /* timers.h: the namespaces of "probes" */
	sl_buf list, due, vers;
	size_t poff[256];     /* candidate i: its probe record in `due` */
	uint32_t plen[256];
	int64_t fired;        /* merged watermark applied: probes with t < fired emitted */
	int64_t firing;       /* time of the probes being fired */
} tjoin_op;

#define PROBES(o) ((o)->b.st[0])
#define VERSIONS(o) ((o)->b.st[1])

/* Scan callback: appends (u32 klen, key, u32 vlen, value) to a buffer. */
static int collect(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                   sl_err *err)
{
	sl_buf *b = ctx;
	if (sl_buf_append(b, &klen, 4) || sl_buf_append(b, key, klen) ||
	    sl_buf_append(b, &vlen, 4) || sl_buf_append(b, val, vlen))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

/* The version record (in o->vers) of the latest time <= t, or 0. */
static int find_version(tjoin_op *o, int64_t t, sl_jrec *out, sl_err *err)
{
	const char *p = o->vers.p, *end = p + o->vers.len;
	int found = 0;
	while (p < end) {
		sl_jrec r;
		if (sl__jrec_read(&p, end, &r))
			return sl_err_set(err, SL_ESTATE, "temporal join state: malformed version");
		if (r.time > t)
			break;
		*out = r;
		found = 1;
	}
	return found;
}

static int emit_padded(tjoin_op *o, const char *row, uint32_t len, sl_err *err)
{
	return sl__joiner_emit_stored(&o->b.j, 0, row, len, SL_INSERT, o->firing, err);
}

/* Evaluates the pending candidates: emits the matches, pads the rest (LEFT). */
static int flush_cands(tjoin_op *o, int n, sl_err *err)
{
	if (n == 0)
		return 0;
	int rc = sl__joiner_cand_eval(&o->b.j, err);
	for (int i = 0; !rc && i < n; i++) {
		if (o->b.j.ok[i])
			rc = sl__joiner_emit_cand(&o->b.j, i, SL_INSERT, o->firing, err);
		else if (o->b.outer[0])
			rc = emit_padded(o, o->due.p + o->poff[i], o->plen[i], err);
	}
	sl__joiner_cand_reset(&o->b.j);
	return rc;
}

/* Joins the probe records list[0..llen) (inside o->due) of key with its
 * versions. */
static int join_probes(tjoin_op *o, const char *key, uint32_t klen, const char *list,
                       uint32_t llen, sl_err *err)
{
	int rc = sl__jlist_load(VERSIONS(o), 0, key, klen, &o->vers, err), n = 0;
	if (rc)
		return rc;
	const char *p = list, *end = list + llen;
	sl__joiner_cand_reset(&o->b.j);
	while (p < end) {
		sl_jrec pr, v = {0};
		if (sl__jrec_read(&p, end, &pr))
			return sl_err_set(err, SL_ESTATE, "temporal join state: malformed probe");
		int f = find_version(o, pr.time, &v, err);
		if (f < 0)
			return f;
		if (!f || v.aux == 0) { /* no version, or the key deleted */
			if (o->b.outer[0] && (rc = emit_padded(o, pr.row, pr.len, err)))
				return rc;
			continue;
		}
		if (n == o->b.j.cand->cap) {
			if ((rc = flush_cands(o, n, err)))
				return rc;
			n = 0;
		}
		o->poff[n] = (size_t)(pr.row - o->due.p);
		o->plen[n] = pr.len;
		if ((rc = sl__joiner_cand_add(&o->b.j, NULL, -1, pr.row, pr.len, NULL, -1, v.row, v.len,
		                              err)) < 0)
			return rc;
		n++;
	}
	return flush_cands(o, n, err);
}

/* Deletes the versions of key that no probe at or after w can join. */
static int clean_key(tjoin_op *o, const char *key, uint32_t klen, int64_t w, sl_err *err)
{
	int rc = sl__jlist_load(VERSIONS(o), 0, key, klen, &o->list, err);
	if (rc)
		return rc;
	const char *p = o->list.p, *end = p + o->list.len, *base = NULL;
	sl_jrec r, br = {0};
	while (p < end) {
		const char *at = p;
		if (sl__jrec_read(&p, end, &r))
			return sl_err_set(err, SL_ESTATE, "temporal join state: malformed version");
		if (r.time > w)
			break;
		base = at;
		br = r;
	}
	if (!base || (base == o->list.p && br.aux))
		return 0;
	const char *from = br.aux ? base : base + SL_JREC_HDR + br.len;
	size_t keep = (size_t)(end - from);
	memmove(o->list.p, from, keep);
	o->list.len = keep;
	return sl__jlist_store(&o->b, VERSIONS(o), 0, key, klen, &o->list, err);
}

typedef struct clean_ctx {
	tjoin_op *o;
	int64_t w;
} clean_ctx;

/* A due version timer (timers.h): cleans its key at W. */
static int clean_cb(void *ctx, int64_t ts, const void *key, uint32_t klen, sl_err *err)
{
	clean_ctx *c = ctx;
	(void)ts;
	return clean_key(c->o, key, klen, c->w, err);
}

/* Fires the probes of time t (a namespace timer of "probes", timers.h,
 * which drops the namespace after this returns): collects them first (a
 * scan callback must not call into its table), then joins key by key. */
static int fire_probes(void *ctx, int64_t t, sl_err *err)
{
	tjoin_op *o = ctx;
	sl_buf_clear(&o->due);
	o->firing = t;
	int rc = sl_state_ns_scan(PROBES(o), t, collect, &o->due, err);
	for (const char *p = o->due.p, *end = p + o->due.len; !rc && p < end;) {
		uint32_t kl, vl;
		memcpy(&kl, p, 4);
		memcpy(&vl, p + 4 + kl, 4);
		rc = join_probes(o, p + 4, kl, p + 8 + kl, vl, err);
		p += 8 + kl + vl;
	}
	return rc;
}

/* Applies merged watermark w: fires the probes with t < w (namespace
 * timers up to w - 1), then frees the versions w makes unreachable (keyed
 * timers up to w). */
static int advance(tjoin_op *o, int64_t w, sl_err *err)
{
	if (w <= o->fired)
		return 0;
	o->fired = w;
	int rc = sl_ns_timers_fire(&o->ptm, w - 1, fire_probes, o, err);
	if (rc)
		return rc;
	clean_ctx c = {o, w};
	return sl_timers_fire(&o->timers, w, clean_cb, &c, err);
}

/* A probe row: buffered under (t, key); dropped and counted when late. */
static int probe_row(tjoin_op *o, const sl_batch *in, int row, sl_err *err)
{
	const sl_col *tc = &in->cols[o->b.p.ltime];
	int rc = tc->null[row] ? 1 : sl__join_key(&o->b, 0, in, row, err);
	if (rc < 0)
		return rc;
	if (rc == 1) /* NULL time or key: matches nothing */
		return o->b.outer[0] ? sl__joiner_emit_in(&o->b.j, 0, in, row, NULL, 0, SL_INSERT,
		                                          in->wm[row], err)
		                     : 0;
	int64_t t = tc->v.i64[row];
	if (t < in->wm[row] || t < o->fired) { /* late (rule 3), or its time has fired */
		sl_op_late_dropped(&o->b.op, in, row); /* counted, kept for the metrics */
		return 0;
	}
	rc = sl__jlist_load(PROBES(o), t, o->b.key.p, (uint32_t)o->b.key.len, &o->list, err);
	if (rc)
		return rc;
	if (sl__jrec_append(&o->list, in, row, 1, 0, t))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return sl__jlist_store(&o->b, PROBES(o), t, o->b.key.p, (uint32_t)o->b.key.len, &o->list, err);
}

/* A row of the versioned input: a version (+I/+U) or the key's deletion
 * (-D) at the row's time, replacing an entry of the same time. */
static int version_row(tjoin_op *o, const sl_batch *in, int row, sl_err *err)
{
	uint8_t op = in->op[row];
	const sl_col *tc = &in->cols[o->b.p.rtime];
	if (op == SL_UPDATE_BEFORE || tc->null[row])
		return 0;
	int rc = sl__join_key(&o->b, 1, in, row, err);
	if (rc)
		return rc < 0 ? rc : 0; /* a NULL key: no version of anything */
	int64_t t = tc->v.i64[row];
	if (t < in->wm[row]) /* takes effect at its own W_before (see the top) */
		t = in->wm[row];
	if ((rc = sl__jlist_load(VERSIONS(o), 0, o->b.key.p, (uint32_t)o->b.key.len, &o->vers, err)))
		return rc;
	sl_buf_clear(&o->list);
	const char *p = o->vers.p, *end = p + o->vers.len;
	int added = 0;
	while (p < end) {
		const char *at = p;
		sl_jrec r;
		if (sl__jrec_read(&p, end, &r))
			return sl_err_set(err, SL_ESTATE, "temporal join state: malformed version");
		if (!added && r.time >= t) {
			if (sl__jrec_append(&o->list, in, row, 1, op != SL_DELETE, t))
				return sl_err_set(err, SL_ENOMEM, "out of memory");
			added = 1;
		}
		if (r.time != t && sl_buf_append(&o->list, at, (size_t)(p - at)))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	if (!added && sl__jrec_append(&o->list, in, row, 1, op != SL_DELETE, t))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	const sl_buf *key = &o->b.key;
	if ((rc = sl__jlist_store(&o->b, VERSIONS(o), 0, key->p, (uint32_t)key->len, &o->list, err)) ||
	    (rc = sl_timers_set(&o->timers, t, key->p, (uint32_t)key->len, err)))
		return rc;
	/* a version at or below the applied watermark: clean its key now */
	return t <= o->fired ? clean_key(o, key->p, (uint32_t)key->len, o->fired, err) : 0;
}

static int tjoin_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	tjoin_op *o = (tjoin_op *)op;
	SL_BATCH_FOREACH(in, k, row) {
		int rc = input == 0 ? probe_row(o, in, row, err) : version_row(o, in, row, err);
		if (rc)
			return rc;
	}
	return sl__joiner_flush(&o->b.j, err);
}

static int tjoin_watermark(sl_op *op, int64_t wm, sl_err *err)
{
	tjoin_op *o = (tjoin_op *)op;
	int rc = advance(o, wm, err);
	if (!rc)
		rc = sl__joiner_flush(&o->b.j, err);
	return rc ? rc : sl_op_emit_watermark(op, wm, err);
}

static int tjoin_snapshot(sl_op *op, sl_snap_writer *w, sl_err *err)
{
	sl_snap_put_i64(w, ((tjoin_op *)op)->fired);
	return 0;
}

static int tjoin_restore(sl_op *op, sl_snap_reader *r, sl_err *err)
{
	((tjoin_op *)op)->fired = sl_snap_get_i64(r);
	return sl_snap_reader_ok(r) ? 0 : sl_err_set(err, SL_ESTATE, "temporal join: damaged snapshot");
}

static int tjoin_open(sl_op *op, sl_err *err)
{
	tjoin_op *o = (tjoin_op *)op;
	static const char *const names[2] = {"probes", "versions"};
	if (sl__join_base_open(&o->b, names, err) || sl_timers_open(&o->timers, op, "timers", err))
		return err->code;
	sl_ns_timers_add(&o->ptm, PROBES(o));
	return 0;
}

static void tjoin_close(sl_op *op)
{
	tjoin_op *o = (tjoin_op *)op;
	sl__join_base_close(&o->b);
	sl_buf_deinit(&o->list);
	sl_buf_deinit(&o->due);
	sl_buf_deinit(&o->vers);
	sl_timers_deinit(&o->timers);
}

static const sl_op_vtab tjoin_vtab = {
	.name = "TemporalJoin",
	.kind = SL_OPK_TEMPORAL_JOIN,
	.open = tjoin_open,
	.process = tjoin_process,
	.watermark = tjoin_watermark,
	.snapshot = tjoin_snapshot,
	.restore = tjoin_restore,
	.close = tjoin_close,
};

sl_op *sl_op_temporal_join_new(const sl_join_plan *p, sl_err *err)
{
	sl_join_base *b = sl__join_base_new(sizeof(tjoin_op), &tjoin_vtab, p, "temporal join", err);
	if (!b)
		return NULL;
	tjoin_op *o = (tjoin_op *)b;
	o->fired = SL_WM_MIN;
	sl_ns_timers_init(&o->ptm, 0);
	if (p->nkeys < 1 || p->ltime < 0 || p->rtime < 0 ||
	    (p->kind != SL_JOIN_INNER && p->kind != SL_JOIN_LEFT)) {
		sl_err_set(err, SL_EPLAN, "a temporal join needs an equality key, both "
		                          "rowtimes and INNER or LEFT");
		sl_op_free(&b->op); /* calls its close */
		return NULL;
	}
	return &b->op;
}
