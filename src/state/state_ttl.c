/*
 * state_ttl.c - state time-to-live: a state table whose entries expire a
 * fixed processing time after their last write (Flink's StateTtlConfig with
 * UpdateType.OnCreateAndWrite, StateVisibility.NeverReturnExpired, processing
 * time), for 'table.exec.state.ttl' and the STATE_TTL hint.
 *
 * It sits between the operators and the backends: sl_state_table_open_ttl
 * opens the backend table `name~ttl` and wraps it in a table of its own
 * method table (ttl_vt), so operators use it through the ordinary inline
 * calls of state.h and no backend knows about TTL.  Every value is stored
 * behind a header holding the processing time of its last write (an i64;
 * 16 bytes for fixed-size slots, so slots keep their 16-byte alignment, 8
 * for variable-length values).  The header is part of the value in the
 * backend-independent snapshot records, so the clocks of the entries
 * survive a restore, into either backend.  The suffix keeps the layout from
 * being confused with a table of the same name without TTL.
 *
 * Semantics, per (namespace, key):
 *   - upsert and put_var write: the clock restarts; an upsert of an expired
 *     entry returns a zeroed slot with *created = 1 (the key starts again);
 *   - get and get_var read and do not restart it (SL_STATE_TTL_READ_REFRESH
 *     makes them restart it: for tables whose entries must live as long as
 *     a sibling table's entry that is written when they are read);
 *   - an expired entry is never returned: get/get_var treat it as absent
 *     (and delete it), scans skip it; its expiry emits nothing;
 *   - expired entries are removed physically by a sweep: at the first write
 *     after the clock passed the next sweep time, every namespace of the
 *     table is scanned, expired keys collected, then deleted; the next sweep
 *     is due ttl/2 later.  So a table holds at most the keys written in the
 *     last 1.5 x ttl, and a sweep visits at most three times the keys
 *     written between two sweeps (amortized O(1) per write; the pause of
 *     one sweep is O(table)).  sl_state_count counts expired entries not
 *     yet swept; ns_first/ns_next may return a namespace whose entries have
 *     all expired.
 *
 * The clock is a pointer to an i64 of microseconds (the job's processing
 * time, graph.h); an entry is expired when now - written >= ttl.
 *
 * One thread, the job's, like the backends.  No allocation per row: the
 * scratch and sweep buffers are reused and only grow.
 */
#include "state.h"
#include "sluice.h"
#include "../base/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXED_HDR 16 /* fixed slots: i64 time + 8 bytes keeping 16-byte alignment */
#define VAR_HDR 8

typedef struct ttl_table {
	const sl_state_vt *vt; /* &ttl_vt: first, as in every table */
	sl_state_table *in;    /* the backend's table `name~ttl` */
	uint32_t val_size;     /* the caller's slot size, 0 = variable-length */
	uint32_t hdr;          /* FIXED_HDR or VAR_HDR */
	int64_t ttl;           /* microseconds, > 0 */
	const int64_t *now;    /* the processing-time clock */
	int flags;
	int64_t next_sweep;    /* processing time from which a write sweeps */
	uint64_t swept;        /* expired entries removed by sweeps */
	uint64_t read_expired; /* expired entries removed when a get found them */
	sl_buf scratch;        /* put_var copies, refreshed get_var values */
	sl_buf dead;           /* (ns, klen, key) of expired entries found by a sweep */
	struct ttl_table *next;/* the owner's chain */
	sl_state_pkey pk;      /* the caller's partitioning key (values without header) */
	char name[128];        /* the caller's table name (without ~ttl) */
} ttl_table;

static int64_t stamp(const void *v)
{
	int64_t t;
	memcpy(&t, v, 8);
	return t;
}

static void set_stamp(void *v, int64_t t)
{
	memcpy(v, &t, 8);
}

static int expired(const ttl_table *t, int64_t written)
{
	return *t->now - written >= t->ttl;
}

/* ---- sweep ---------------------------------------------------------------- */

typedef struct sweep_ctx {
	ttl_table *t;
	int64_t ns;
	int oom;
} sweep_ctx;

static int sweep_cb(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                    sl_err *err)
{
	(void)err;
	sweep_ctx *s = ctx;
	if (vlen < s->t->hdr || !expired(s->t, stamp(val)))
		return 0;
	if (sl_buf_append(&s->t->dead, &s->ns, 8) || sl_buf_append(&s->t->dead, &klen, 4) ||
	    sl_buf_append(&s->t->dead, key, klen))
		s->oom = 1;
	return s->oom;
}

/* Removes the expired entries of t (see the header).  Out of memory while
 * collecting: removes what was collected, the rest at the next sweep. */
static void sweep(ttl_table *t)
{
	sweep_ctx s = {t, 0, 0};
	sl_err ignored = {0}; /* a failed sweep leaves entries for the next one */
	sl_buf_clear(&t->dead);
	int64_t ns;
	int have = sl_state_ns_first(t->in, &ns);
	while (have && !s.oom) {
		s.ns = ns;
		sl_state_ns_scan(t->in, ns, sweep_cb, &s, &ignored);
		have = sl_state_ns_next(t->in, ns, &ns);
	}
	for (size_t off = 0; off + 12 <= t->dead.len;) {
		int64_t dns;
		uint32_t klen;
		memcpy(&dns, t->dead.p + off, 8);
		memcpy(&klen, t->dead.p + off + 8, 4);
		sl_state_delete(t->in, dns, t->dead.p + off + 12, klen);
		off += 12 + klen;
		t->swept++;
	}
	/* a big sweep's buffer is not kept for the whole job */
	if (t->dead.cap > (1u << 20))
		sl_buf_deinit(&t->dead);
	sl_buf_clear(&t->dead);
	int64_t step = t->ttl / 2 > 0 ? t->ttl / 2 : 1;
	t->next_sweep = *t->now + step;
}

static void maybe_sweep(ttl_table *t)
{
	if (*t->now >= t->next_sweep)
		sweep(t);
}

/* ---- the method table ------------------------------------------------------ */

static void *ttl_upsert_h(sl_state_table *tab, int64_t ns, const void *key, uint32_t klen,
                          uint32_t hash, int *created)
{
	ttl_table *t = (ttl_table *)tab;
	maybe_sweep(t);
	int c = 0;
	char *p = sl_state_upsert_h(t->in, ns, key, klen, hash, &c);
	if (!p)
		return NULL;
	if (!c && expired(t, stamp(p))) {
		memset(p + FIXED_HDR, 0, t->val_size);
		c = 1;
	}
	set_stamp(p, *t->now);
	if (created)
		*created = c;
	return p + FIXED_HDR;
}

static void ttl_prefetch(sl_state_table *tab, int64_t ns, uint32_t hash, int stage)
{
	sl_state_prefetch(((ttl_table *)tab)->in, ns, hash, stage);
}

static void *ttl_get(sl_state_table *tab, int64_t ns, const void *key, uint32_t klen)
{
	ttl_table *t = (ttl_table *)tab;
	char *p = sl_state_get(t->in, ns, key, klen);
	if (!p)
		return NULL;
	if (expired(t, stamp(p))) {
		sl_state_delete(t->in, ns, key, klen);
		t->read_expired++;
		return NULL;
	}
	if (t->flags & SL_STATE_TTL_READ_REFRESH)
		set_stamp(p, *t->now);
	return p + FIXED_HDR;
}

static int ttl_get_var(sl_state_table *tab, int64_t ns, const void *key, uint32_t klen,
                       const void **val, uint32_t *vlen)
{
	ttl_table *t = (ttl_table *)tab;
	const void *v;
	uint32_t n;
	if (!sl_state_get_var(t->in, ns, key, klen, &v, &n))
		return 0;
	if (n < VAR_HDR || expired(t, stamp(v))) {
		sl_state_delete(t->in, ns, key, klen);
		t->read_expired++;
		return 0;
	}
	if ((t->flags & SL_STATE_TTL_READ_REFRESH) && stamp(v) != *t->now) {
		/* rewrite it with the new time; the copy in scratch is what the
		 * caller reads until its next call */
		sl_buf_clear(&t->scratch);
		if (!sl_buf_append(&t->scratch, v, n)) {
			set_stamp(t->scratch.p, *t->now);
			sl_state_put_var(t->in, ns, key, klen, t->scratch.p, n);
			v = t->scratch.p;
		}
	}
	*val = (const char *)v + VAR_HDR;
	*vlen = n - VAR_HDR;
	return 1;
}

static int ttl_put_var(sl_state_table *tab, int64_t ns, const void *key, uint32_t klen,
                       const void *val, uint32_t vlen)
{
	ttl_table *t = (ttl_table *)tab;
	maybe_sweep(t);
	int64_t now = *t->now;
	sl_buf_clear(&t->scratch);
	if (sl_buf_append(&t->scratch, &now, 8) || sl_buf_append(&t->scratch, val, vlen))
		return SL_ENOMEM;
	return sl_state_put_var(t->in, ns, key, klen, t->scratch.p, vlen + VAR_HDR);
}

static void ttl_del(sl_state_table *tab, int64_t ns, const void *key, uint32_t klen)
{
	sl_state_delete(((ttl_table *)tab)->in, ns, key, klen);
}

static int ttl_ns_first(sl_state_table *tab, int64_t *ns)
{
	return sl_state_ns_first(((ttl_table *)tab)->in, ns);
}

static int ttl_ns_next(sl_state_table *tab, int64_t after, int64_t *ns)
{
	return sl_state_ns_next(((ttl_table *)tab)->in, after, ns);
}

/* Scans hand the caller's value (after the header) of live entries only. */
typedef struct scan_ctx {
	const ttl_table *t;
	sl_state_scan_cb cb;
	void *ctx;
} scan_ctx;

static int scan_cb(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                   sl_err *err)
{
	scan_ctx *s = ctx;
	if (vlen < s->t->hdr || expired(s->t, stamp(val)))
		return 0;
	return s->cb(s->ctx, key, klen, (char *)val + s->t->hdr, vlen - s->t->hdr, err);
}

static int ttl_ns_scan(sl_state_table *tab, int64_t ns, sl_state_scan_cb cb, void *ctx,
                       sl_err *err)
{
	ttl_table *t = (ttl_table *)tab;
	scan_ctx s = {t, cb, ctx};
	return sl_state_ns_scan(t->in, ns, scan_cb, &s, err);
}

static int ttl_scan(sl_state_table *tab, sl_state_scan_cb cb, void *ctx, sl_err *err)
{
	ttl_table *t = (ttl_table *)tab;
	scan_ctx s = {t, cb, ctx};
	return sl_state_scan(t->in, scan_cb, &s, err);
}

static int ttl_prefix_scan(sl_state_table *tab, int64_t ns, const void *prefix, uint32_t plen,
                           sl_state_scan_cb cb, void *ctx, sl_err *err)
{
	ttl_table *t = (ttl_table *)tab;
	scan_ctx s = {t, cb, ctx};
	return sl_state_prefix_scan(t->in, ns, prefix, plen, scan_cb, &s, err);
}

static void ttl_ns_drop(sl_state_table *tab, int64_t ns)
{
	sl_state_ns_drop(((ttl_table *)tab)->in, ns);
}

static uint64_t ttl_count(const sl_state_table *tab)
{
	return sl_state_count(((const ttl_table *)tab)->in);
}

/* Only the per-table methods are used on a wrapper: backend-level calls
 * take the backend, never a table. */
/* The partitioning key of a backend entry: the caller's function sees the
 * value without the write-time header, as it wrote it. */
static uint32_t ttl_pkey(const void *ctx, const void *key, uint32_t klen, const void *val,
                         uint32_t vlen, const void **pk)
{
	const ttl_table *t = ctx;
	uint32_t h = vlen >= t->hdr ? t->hdr : vlen;
	return t->pk.fn(t->pk.ctx, key, klen, (const char *)val + h, vlen - h, pk);
}

static void ttl_set_pkey(sl_state_table *tab, sl_state_pkey_fn fn, const void *ctx)
{
	ttl_table *t = (ttl_table *)tab;
	t->pk.fn = fn;
	t->pk.ctx = ctx;
	sl_state_table_set_pkey(t->in, fn ? ttl_pkey : NULL, fn ? t : NULL);
}

/* A map table: the prefix is in the key, which the header does not touch. */
static void ttl_set_prefix(sl_state_table *tab, sl_state_pkey_fn fn, const void *ctx)
{
	ttl_table *t = (ttl_table *)tab;
	t->pk.fn = fn;
	t->pk.ctx = ctx;
	sl_state_table_set_prefix(t->in, fn ? ttl_pkey : NULL, fn ? t : NULL);
}

static const sl_state_vt ttl_vt = {
	.name = "ttl",
	.upsert_h = ttl_upsert_h,
	.prefetch = ttl_prefetch,
	.get = ttl_get,
	.get_var = ttl_get_var,
	.put_var = ttl_put_var,
	.del = ttl_del,
	.ns_first = ttl_ns_first,
	.ns_next = ttl_ns_next,
	.ns_scan = ttl_ns_scan,
	.scan = ttl_scan,
	.ns_drop = ttl_ns_drop,
	.count = ttl_count,
	.set_pkey = ttl_set_pkey,
	.set_prefix = ttl_set_prefix,
	.prefix_scan = ttl_prefix_scan,
};

/* ---- opening --------------------------------------------------------------- */

sl_state_table *sl_state_table_open_ttl(sl_state_backend *be, const char *op_uid,
                                        const char *name, uint32_t val_size, int64_t ttl_us,
                                        const int64_t *clock, int flags,
                                        sl_state_table **chain, sl_err *err)
{
	if (ttl_us <= 0)
		return sl_state_table_open(be, op_uid, name, val_size, err);
	char full[200];
	snprintf(full, sizeof(full), "%s~ttl", name);
	uint32_t hdr = val_size ? FIXED_HDR : VAR_HDR;
	sl_state_table *in = sl_state_table_open(be, op_uid, full, val_size ? val_size + hdr : 0, err);
	if (!in)
		return NULL;
	/* reopening: the chain already wraps this table */
	for (ttl_table *w = (ttl_table *)*chain; w; w = w->next)
		if (w->in == in)
			return (sl_state_table *)w;
	ttl_table *t = calloc(1, sizeof(*t));
	if (!t) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	t->vt = &ttl_vt;
	t->in = in;
	t->val_size = val_size;
	t->hdr = hdr;
	t->ttl = ttl_us;
	t->now = clock;
	t->flags = flags;
	snprintf(t->name, sizeof(t->name), "%s", name);
	sl_buf_init(&t->scratch);
	sl_buf_init(&t->dead);
	t->next = (ttl_table *)*chain;
	*chain = (sl_state_table *)t;
	return (sl_state_table *)t;
}

uint64_t sl_state_ttl_swept(const sl_state_table *tab)
{
	if (sl__tab_vt(tab) != &ttl_vt)
		return 0;
	return ((const ttl_table *)tab)->swept;
}

uint64_t sl_state_ttl_chain_removed(const sl_state_table *chain)
{
	uint64_t n = 0;
	for (const ttl_table *t = (const ttl_table *)chain; t; t = t->next)
		n += t->swept + t->read_expired;
	return n;
}

int sl_state_ttl_chain_has(const sl_state_table *chain, const char *name, size_t len)
{
	for (const ttl_table *t = (const ttl_table *)chain; t; t = t->next)
		if (strlen(t->name) == len && !memcmp(t->name, name, len))
			return 1;
	return 0;
}

void sl_state_ttl_free_chain(sl_state_table *chain)
{
	ttl_table *t = (ttl_table *)chain;
	while (t) {
		ttl_table *next = t->next;
		sl_buf_deinit(&t->scratch);
		sl_buf_deinit(&t->dead);
		free(t);
		t = next;
	}
}
