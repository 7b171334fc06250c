/*
 * state_rocksdb.c - the RocksDB state backend behind state.h
 * ('state.backend.type' = 'rocksdb').
 *
 * One RocksDB instance per job, in a fresh directory under
 * 'state.backend.rocksdb.localdir' (default: the job's state directory or
 * $TMPDIR or /tmp), removed at close; directories left by killed processes
 * are removed by the next open under the same parent.  The local database
 * is a working copy, never the durable state: checkpoints serialize it
 * (sl_state_snapshot) and a restart restores from the checkpoint, so the
 * write-ahead log is off.
 *
 * Layout: every table's entries under a 12-byte prefix,
 *
 *     [table id u32 BE][namespace i64 BE with the sign bit flipped][key reversed]
 *
 * so byte order is (table, namespace numeric, key) order: a namespace is a
 * contiguous key range (scan = prefix iteration, drop = DeleteRange) and
 * the smallest namespace is the first key of the table.  A map table's key
 * is [length of its prefix][prefix reversed][rest] instead (rocksdb_int.h,
 * rdb_dec_key), so the map of one prefix is a key range too.  Table ids are
 * assigned at open in this process (the database never outlives it).
 *
 * Fixed-size slots (read-modify-write): each table keeps a write-back
 * cache of the entries it touched (its share of a quarter of the budget);
 * upsert/get return a pointer into it, changes are noticed at the next
 * call, and dirty entries go to RocksDB as write batches when the cache is
 * full (then emptied), at sl_state_flush and snapshots, and before scans
 * and drops.  A Bloom filter of the keys written in this run lets a new
 * key be created without a RocksDB lookup.  Variable-length values are
 * read and written directly (the filter spares lookups of absent keys).
 *
 * Counts: each table keeps an ordered index of (namespace, entries) (a
 * B+tree, nsidx.h); it gives sl_state_count, ns_first/ns_next without an
 * iterator, and what a drop removes.  Keeping it exact costs a point lookup before put_var/delete.
 * It is rebuilt from the records at restore.
 *
 * Memory: 'state.backend.rocksdb.memory.fixed-per-slot' (default 256 mb)
 * is split in eighths: 3 for memtables (db_write_buffer_size), 3 for one
 * LRU block cache that also holds index and filter blocks, 2 for the
 * write-back caches.  (The 7.8 C API has no write buffer manager to charge
 * memtables to the cache, so the parts are bounded separately.)  The Bloom
 * filters of written keys come on top: ~1.3 bytes per key.
 *
 * Threads: RocksDB runs background flush/compaction threads, so a forked
 * child must not use the database (sl_state_backend_can_fork is 0): the
 * checkpoint coordinator takes a two-step snapshot instead (begin at the
 * barrier, write on its writer thread; rocksdb_snap.c, which also has the
 * restore).  The job's one thread makes every other call.  The structures
 * both files use are in rocksdb_int.h.
 */
#include "rocksdb_int.h"
#include "state_backends.h"
#include "sluice.h"
#include "../base/opts.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEF_BUDGET (256ll << 20)    /* memory.fixed-per-slot default */
#define DIR_PREFIX "sluice-rocksdb-"

/* ---- keys ------------------------------------------------------------------ */

/* The smallest prefix after every key starting with p[0..PFX). */
static void prefix_after(char *p)
{
	for (int i = PFX - 1; i >= 0; i--)
		if (++p[i] != 0)
			return;
}

/* Encodes (ns, key) into t->kbuf; returns its length or 0 when out of memory. */
size_t sl__rdb_enc(sl_state_table *t, int64_t ns, const void *key, uint32_t klen)
{
	size_t n = PFX + (size_t)klen + (t->prefix ? 4 : 0);
	if (n > t->kcap) {
		size_t cap = n < 64 ? 64 : n * 2;
		char *p = realloc(t->kbuf, cap);
		if (!p)
			return 0;
		t->kbuf = p;
		t->kcap = cap;
	}
	put_prefix(t->kbuf, t->id, ns);
	if (!t->prefix) {
		rev_copy(t->kbuf + PFX, key, klen);
		return n;
	}
	const void *pk;
	uint32_t pl = t->pk.fn(t->pk.ctx, key, klen, NULL, 0, &pk);
	if (pl > klen)
		pl = klen;
	char *d = t->kbuf + PFX;
	d[0] = (char)(pl >> 24);
	d[1] = (char)(pl >> 16);
	d[2] = (char)(pl >> 8);
	d[3] = (char)pl;
	rev_copy(d + 4, key, pl);
	memcpy(d + 4 + pl, (const char *)key + pl, klen - pl);
	return n;
}

/* The caller's key of a stored key k[0..kl) (prefix included), in t->ubuf
 * (*n its length); NULL when out of memory. */
static const char *dec_key(sl_state_table *t, const char *k, size_t kl, size_t *n)
{
	if (kl > t->ucap) {
		char *p = realloc(t->ubuf, kl * 2);
		if (!p)
			return NULL;
		t->ubuf = p;
		t->ucap = kl * 2;
	}
	*n = rdb_dec_key(t->prefix, t->ubuf, k, kl);
	return t->ubuf;
}

void sl__rdb_set_err(sl_state_backend *be, const char *what, char *rerr)
{
	if (!be->errmsg[0])
		snprintf(be->errmsg, sizeof(be->errmsg), "rocksdb %s: %s", what, rerr ? rerr : "?");
	free(rerr);
}

/* ---- per-namespace counts ------------------------------------------------------ */

/* Why a B+tree and not the sorted array of (ns, count) this was: the
 * memory backend's reason (state_mem.c, ns_get_slow), and a drop of the
 * oldest namespace moved every other one. */
_Static_assert(sizeof(uintptr_t) >= sizeof(uint64_t), "counts are kept in pointers");

/* Entries of namespace ns (0 when absent). */
static uint64_t nsc_get(const sl_state_table *t, int64_t ns)
{
	/* a lookup changes nothing but the index's work counter */
	void **p = sl__nsidx_get((sl_nsidx *)&t->nss, ns);
	return p ? (uint64_t)(uintptr_t)*p : 0;
}

/* Adds d (+1 or -1, or a restore's +1s) to namespace ns's count. */
int sl__rdb_nsc_add(sl_state_table *t, int64_t ns, int64_t d)
{
	void **p = sl__nsidx_get(&t->nss, ns);
	if (!p) {
		if (d <= 0)
			return 0;
		if (sl__nsidx_put(&t->nss, ns, (void *)(uintptr_t)d))
			return SL_ENOMEM;
		t->count += (uint64_t)d;
		return 0;
	}
	uint64_t n = (uint64_t)(uintptr_t)*p + (uint64_t)d;
	t->count += (uint64_t)d;
	if (n == 0)
		sl__nsidx_del(&t->nss, ns, NULL);
	else
		*p = (void *)(uintptr_t)n;
	return 0;
}

uint64_t sl__state_rdb_ns_work(const sl_state_table *t)
{
	return t->nss.work;
}

/* ---- the write-back cache of fixed-size slots ------------------------------------ */

/*
 * Each fixed-size table keeps the entries it touched in an arena of 1 MiB
 * chunks, indexed by an open-addressing table of pointers (linear probing,
 * at most half full, no removal: a deleted entry stays as a non-live one,
 * which also remembers that the key is absent).  An entry is
 *
 *     [cent][encoded key][pad to 16][value, val_size rounded to 16]
 *
 * Flags: CE_LIVE (the entry exists), CE_INDB (RocksDB holds the key as of
 * the last write-back), CE_DIRTY (RocksDB must be told: a put when live, a
 * delete when not).  Writes through a returned slot pointer are noticed at
 * the table's next call by comparing the slot with the copy taken when it
 * was returned (t->last, t->lorig).  When the table's bytes exceed its
 * share of the cache budget, every dirty entry goes to RocksDB in write
 * batches and the cache is emptied (evict).
 */
static void *arena_alloc(sl_state_table *t, size_t sz)
{
	chunk *c = t->cur;
	while (c && c->used + sz > c->cap) {
		c = c->next;
		if (c)
			c->used = 0;
	}
	if (!c) {
		size_t cap = sz > CHUNK ? sz : CHUNK;
		if (!(c = malloc(sizeof(chunk) + cap)))
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = NULL;
		if (t->cur) { /* after cur: chunks before it are full, after it unused */
			c->next = t->cur->next;
			t->cur->next = c;
		} else {
			c->next = t->chunks;
			t->chunks = c;
		}
	}
	t->cur = c;
	void *p = (char *)(c + 1) + c->used;
	c->used += sz;
	t->cbytes += sz;
	return p;
}

static int index_grow(sl_state_table *t)
{
	uint32_t nc = t->icap ? t->icap * 2 : 1024;
	islot *ni = calloc(nc, sizeof(*ni));
	if (!ni)
		return SL_ENOMEM;
	for (uint32_t i = 0; i < t->icap; i++) {
		if (!t->idx[i].e)
			continue;
		uint32_t j = (uint32_t)t->idx[i].h & (nc - 1);
		while (ni[j].e)
			j = (j + 1) & (nc - 1);
		ni[j] = t->idx[i];
	}
	free(t->idx);
	t->cbytes += (size_t)(nc - t->icap) * sizeof(*ni);
	t->idx = ni;
	t->icap = nc;
	return 0;
}

/* The cached entry of the encoded key t->kbuf[0..n) with hash h, or NULL.
 * The entry handed out last is checked first: operators read a key right
 * after upserting it (a second probe was 13% of the 2 M-key job). */
static cent *cache_find(sl_state_table *t, uint64_t h, size_t n)
{
	cent *hot = t->hot;
	if (hot && hot->h == h && hot->klen == n && !memcmp(ce_key(hot), t->kbuf, n))
		return hot;
	if (!t->icap)
		return NULL;
	uint32_t m = t->icap - 1;
	for (uint32_t i = (uint32_t)h & m; t->idx[i].e; i = (i + 1) & m) {
		cent *e = t->idx[i].e;
		if (t->idx[i].h == h && e->klen == n && !memcmp(ce_key(e), t->kbuf, n))
			return e;
	}
	return NULL;
}

/* Adds an entry for t->kbuf[0..n) (not yet present); its value is not set. */
static cent *cache_add(sl_state_table *t, uint64_t h, int64_t ns, size_t n, uint8_t flags)
{
	if ((t->icount + 1) * 2 > t->icap && index_grow(t))
		return NULL;
	cent *e = arena_alloc(t, ce_size(t, n));
	if (!e)
		return NULL;
	e->h = h;
	e->ns = ns;
	e->klen = (uint32_t)n;
	e->voff = (uint32_t)round16(sizeof(cent) + n);
	e->flags = flags;
	memcpy(ce_key(e), t->kbuf, n);
	uint32_t m = t->icap - 1, i = (uint32_t)h & m;
	while (t->idx[i].e)
		i = (i + 1) & m;
	t->idx[i].h = h;
	t->idx[i].e = e;
	t->icount++;
	return e;
}

/* Returns e's slot to the caller, remembering it for note_last. */
static void *hand_out(sl_state_table *t, cent *e)
{
	t->hot = e;
	if (!(e->flags & CE_DIRTY)) {
		memcpy(t->lorig, ce_val(e), t->val_size);
		t->last = e;
	}
	return ce_val(e);
}

/* Writes wb to the database and clears it. */
static int batch_write(sl_state_backend *be, rocksdb_writebatch_t *wb)
{
	if (!rocksdb_writebatch_count(wb))
		return 0;
	char *rerr = NULL;
	be->wgen++;
	rocksdb_write(be->db, be->wo, wb, &rerr);
	rocksdb_writebatch_clear(wb);
	if (rerr) {
		sl__rdb_set_err(be, "write", rerr);
		return SL_EIO;
	}
	return 0;
}

/* Writes every dirty entry back (puts and deletes, in batches); the
 * entries stay cached, clean. */
static int cache_writeback(sl_state_table *t)
{
	note_last(t);
	rocksdb_writebatch_t *wb = rocksdb_writebatch_create();
	size_t pending = 0, esz = 0;
	int rc = 0;
	for (chunk *c = t->chunks; c && !rc; c = c == t->cur ? NULL : c->next) {
		for (size_t off = 0; off < c->used; off += esz) {
			cent *e = (cent *)((char *)(c + 1) + off);
			esz = ce_size(t, e->klen);
			if (!(e->flags & CE_DIRTY))
				continue;
			if (e->flags & CE_LIVE) {
				rocksdb_writebatch_put(wb, ce_key(e), e->klen, ce_val(e), t->val_size);
				e->flags |= CE_INDB;
			} else {
				rocksdb_writebatch_delete(wb, ce_key(e), e->klen);
				e->flags &= (uint8_t)~CE_INDB;
			}
			e->flags &= (uint8_t)~CE_DIRTY;
			pending += e->klen + t->val_size;
			if (pending >= BATCH_BYTES) {
				rc = batch_write(t->be, wb);
				pending = 0;
				if (rc)
					break;
			}
		}
	}
	if (!rc)
		rc = batch_write(t->be, wb);
	rocksdb_writebatch_destroy(wb);
	return rc;
}

/* Forgets every cached entry (after a write-back, or when the table is cleared). */
static void cache_reset(sl_state_table *t)
{
	t->last = t->hot = NULL;
	t->cur = t->chunks;
	if (t->cur)
		t->cur->used = 0;
	if (t->icap)
		memset(t->idx, 0, sizeof(*t->idx) * t->icap);
	t->icount = 0;
	t->cbytes = (size_t)t->icap * sizeof(*t->idx);
}

/* Write-back, then forget (before reading or changing the database directly). */
static int evict(sl_state_table *t)
{
	int rc = cache_writeback(t);
	cache_reset(t);
	return rc;
}

/* ---- keys written in this run: a growing set of blocked Bloom filters ---------- */

/*
 * A key whose hash no filter holds was never written in this process, so
 * an upsert creates it without asking RocksDB (a lookup of an absent key
 * cost a memtable and SST filter walk: 40% of the 2 M-key GROUP BY).
 * Filter i holds up to (4 M << i) keys in 10 bits each (512-bit blocks,
 * 6 probes: ~1-2% false positives per full filter); deleted keys stay in,
 * which only costs a lookup.  Rebuilt from the records at restore.
 */
#define BLOOM_FIRST (4u << 20)
#define BLOOM_BITS 10

void sl__rdb_bloom_add(sl_state_table *t, uint64_t h)
{
	bloomf *f = t->nbl ? &t->bl[t->nbl - 1] : NULL;
	if (!f || f->n >= f->cap) {
		if (t->nbl == (int)(sizeof(t->bl) / sizeof(t->bl[0])))
			return; /* cannot happen below 2^40 keys; filters then stay conservative */
		uint64_t cap = f ? f->cap * 2 : BLOOM_FIRST;
		uint64_t nb = cap * BLOOM_BITS / 512;
		uint64_t *bits = calloc(nb, 64); /* lazily zero pages: small tables cost little */
		if (!bits) {
			t->bloom_broken = 1;
			return;
		}
		f = &t->bl[t->nbl++];
		f->bits = bits;
		f->nblocks = nb;
		f->cap = cap;
		f->n = 0;
	}
	uint64_t *b = f->bits + 8 * (((h >> 32) * f->nblocks) >> 32);
	uint64_t g = sl_hash_mix(h, 0x9e3779b97f4a7c15ull);
	for (int j = 0; j < 6; j++, g >>= 9)
		b[(g >> 6) & 7] |= 1ull << (g & 63);
	f->n++;
}

/* 0 when the key with hash h was certainly never added, else 1. */
static int bloom_maybe(const sl_state_table *t, uint64_t h)
{
	if (t->bloom_broken)
		return 1;
	uint64_t g0 = sl_hash_mix(h, 0x9e3779b97f4a7c15ull);
	for (int i = 0; i < t->nbl; i++) {
		const bloomf *f = &t->bl[i];
		const uint64_t *b = f->bits + 8 * (((h >> 32) * f->nblocks) >> 32);
		uint64_t g = g0;
		int j;
		for (j = 0; j < 6; j++, g >>= 9)
			if (!(b[(g >> 6) & 7] & (1ull << (g & 63))))
				break;
		if (j == 6)
			return 1;
	}
	return 0;
}

static void bloom_reset(sl_state_table *t)
{
	for (int i = 0; i < t->nbl; i++)
		free(t->bl[i].bits);
	t->nbl = 0;
	t->bloom_broken = 0;
}

/* ---- fixed-size and variable-length access ------------------------------------- */

/* Evicts t when it holds more than its share of the write-back budget. */
static int cache_room(sl_state_table *t)
{
	sl_state_backend *be = t->be;
	if (t->cbytes <= be->wb_budget / (be->nfixed ? be->nfixed : 1))
		return 0;
	return evict(t);
}

/*
 * Reads of existing keys often come in key order (a second pass over
 * sequential ids; keys are stored reversed, see rev_copy): a cursor left
 * where the last read ended finds the next key in a few Next calls instead
 * of a point lookup through every memtable and level (point lookups were
 * 34% of the 2 M-key job after the write-back cache).  For random reads a
 * seek costs more than a point lookup (1 M random window keys: 18.5 s ->
 * 20.5 s with seeks), so reads use point lookups until one in 32 seeks and
 * the following reads find their keys by stepping.  The cursor is
 * dropped at every write to the database (its view would be stale).
 * Sets *val (NULL when absent); returns 0 or SL_EIO.
 */
#define CURSOR_STEPS 16

static int cursor_cmp(rocksdb_iterator_t *it, const char *k, size_t n)
{
	size_t kl;
	const char *ik = rocksdb_iter_key(it, &kl);
	int c = memcmp(ik, k, kl < n ? kl : n);
	return c ? c : (kl > n) - (kl < n);
}

static int cursor_get(sl_state_table *t, size_t n, const char **val, size_t *vlen)
{
	sl_state_backend *be = t->be;
	char *rerr = NULL;
	if (t->ps) {
		rocksdb_pinnableslice_destroy(t->ps);
		t->ps = NULL;
	}
	if (t->cur_it && t->cur_gen != be->wgen) {
		rocksdb_iter_destroy(t->cur_it);
		t->cur_it = NULL;
	}
	/* from a cursor before the key, step: the first key >= it decides
	 * (equal: found, greater: absent) */
	int c = -1, steps = 0, try_cursor = t->seq > 0 || t->probed;
	t->probed = 0;
	if (try_cursor && t->cur_it && rocksdb_iter_valid(t->cur_it) &&
	    cursor_cmp(t->cur_it, t->kbuf, n) < 0) {
		do {
			rocksdb_iter_next(t->cur_it);
			if (!rocksdb_iter_valid(t->cur_it)) {
				c = -1;
				break;
			}
		} while ((c = cursor_cmp(t->cur_it, t->kbuf, n)) < 0 && ++steps < CURSOR_STEPS);
	}
	if (c >= 0 && t->seq < 8)
		t->seq++;
	else if (c < 0 && try_cursor && t->seq > 0)
		t->seq--;
	if (c < 0 && t->seq == 0 && (++t->probe & 31)) {
		/* random reads: a point lookup is cheaper than a seek */
		t->ps = rocksdb_get_pinned(be->db, be->ro, t->kbuf, n, &rerr);
		if (rerr) {
			sl__rdb_set_err(be, "get", rerr);
			return SL_EIO;
		}
		*val = t->ps ? rocksdb_pinnableslice_value(t->ps, vlen) : NULL;
		return 0;
	}
	if (c < 0) { /* no cursor, at or after the key, too far behind, or a probe: seek */
		if (!t->cur_it) {
			t->cur_it = rocksdb_create_iterator(be->db, be->ro);
			t->cur_gen = be->wgen;
		}
		rocksdb_iter_seek(t->cur_it, t->kbuf, n);
		c = rocksdb_iter_valid(t->cur_it) ? cursor_cmp(t->cur_it, t->kbuf, n) : 1;
		t->probed = t->seq == 0;
	}
	rocksdb_iter_get_error(t->cur_it, &rerr);
	if (rerr) {
		sl__rdb_set_err(be, "iterate", rerr);
		rocksdb_iter_destroy(t->cur_it);
		t->cur_it = NULL;
		return SL_EIO;
	}
	*val = c == 0 ? rocksdb_iter_value(t->cur_it, vlen) : NULL;
	return 0;
}

/* Reads the encoded key t->kbuf[0..n) into a new cache entry: the entry
 * (live when found), or NULL with *rc set on error. */
static cent *cache_load(sl_state_table *t, uint64_t h, int64_t ns, size_t n, int *rc)
{
	*rc = 0;
	if (cache_room(t)) {
		*rc = SL_EIO;
		return NULL;
	}
	const char *v = NULL;
	size_t vl = 0;
	if (bloom_maybe(t, h) && (*rc = cursor_get(t, n, &v, &vl)))
		return NULL;
	cent *e = cache_add(t, h, ns, n, 0);
	if (!e) {
		*rc = SL_ENOMEM;
	} else if (v && vl == t->val_size) {
		memcpy(ce_val(e), v, vl);
		e->flags = CE_LIVE | CE_INDB;
	}
	return e;
}

static void *rdb_upsert_h(sl_state_table *t, int64_t ns, const void *key, uint32_t klen,
                          uint32_t hash, int *created)
{
	assert(t->val_size); /* a fixed-size table */
	(void)hash; /* the cache hashes the encoded key (table and namespace too) */
	note_last(t);
	size_t n = sl__rdb_enc(t, ns, key, klen);
	if (!n)
		return NULL;
	uint64_t h = sl_hash_bytes(t->kbuf, n, 0);
	cent *e = cache_find(t, h, n);
	int rc;
	if (!e && !(e = cache_load(t, h, ns, n, &rc)))
		return NULL;
	int make = !(e->flags & CE_LIVE);
	if (make) {
		if (sl__rdb_nsc_add(t, ns, 1))
			return NULL;
		if (!(e->flags & CE_INDB))
			sl__rdb_bloom_add(t, h);
		memset(ce_val(e), 0, t->val_size);
		e->flags |= CE_LIVE | CE_DIRTY;
	}
	if (created)
		*created = make;
	return hand_out(t, e);
}

static void *rdb_get(sl_state_table *t, int64_t ns, const void *key, uint32_t klen)
{
	assert(t->val_size); /* a fixed-size table */
	note_last(t);
	size_t n = sl__rdb_enc(t, ns, key, klen);
	if (!n)
		return NULL;
	uint64_t h = sl_hash_bytes(t->kbuf, n, 0);
	cent *e = cache_find(t, h, n);
	int rc;
	if (!e) {
		if (!bloom_maybe(t, h))
			return NULL; /* absent: not worth an entry */
		if (!(e = cache_load(t, h, ns, n, &rc)))
			return NULL;
	}
	return e->flags & CE_LIVE ? hand_out(t, e) : NULL;
}

/* 1 when the encoded key t->kbuf[0..n) (hash h) is present, 0 absent, <0 error. */
static int exists(sl_state_table *t, uint64_t h, size_t n)
{
	if (!bloom_maybe(t, h))
		return 0;
	char *rerr = NULL;
	rocksdb_pinnableslice_t *ps = rocksdb_get_pinned(t->be->db, t->be->ro, t->kbuf, n, &rerr);
	if (rerr) {
		sl__rdb_set_err(t->be, "get", rerr);
		return SL_EIO;
	}
	if (!ps)
		return 0;
	rocksdb_pinnableslice_destroy(ps);
	return 1;
}

static int rdb_get_var(sl_state_table *t, int64_t ns, const void *key, uint32_t klen,
                       const void **val, uint32_t *vlen)
{
	assert(!t->val_size); /* a variable-length table */
	size_t n = sl__rdb_enc(t, ns, key, klen);
	if (!n)
		return 0;
	free(t->vbuf);
	t->vbuf = NULL;
	if (!bloom_maybe(t, sl_hash_bytes(t->kbuf, n, 0)))
		return 0;
	size_t vl = 0;
	char *rerr = NULL;
	t->vbuf = rocksdb_get(t->be->db, t->be->ro, t->kbuf, n, &vl, &rerr);
	if (rerr) {
		sl__rdb_set_err(t->be, "get", rerr);
		return 0;
	}
	if (!t->vbuf)
		return 0;
	*val = t->vbuf;
	*vlen = (uint32_t)vl;
	return 1;
}

static int rdb_put_var(sl_state_table *t, int64_t ns, const void *key, uint32_t klen,
                       const void *val, uint32_t vlen)
{
	assert(!t->val_size); /* a variable-length table */
	size_t n = sl__rdb_enc(t, ns, key, klen);
	if (!n)
		return SL_ENOMEM;
	uint64_t h = sl_hash_bytes(t->kbuf, n, 0);
	int had = exists(t, h, n);
	if (had < 0)
		return had;
	char *rerr = NULL;
	t->be->wgen++;
	rocksdb_put(t->be->db, t->be->wo, t->kbuf, n, val ? val : "", vlen, &rerr);
	if (rerr) {
		sl__rdb_set_err(t->be, "put", rerr);
		return SL_EIO;
	}
	if (had)
		return 0;
	sl__rdb_bloom_add(t, h);
	return sl__rdb_nsc_add(t, ns, 1);
}

static void rdb_delete(sl_state_table *t, int64_t ns, const void *key, uint32_t klen)
{
	note_last(t);
	size_t n = sl__rdb_enc(t, ns, key, klen);
	if (!n)
		return;
	uint64_t h = sl_hash_bytes(t->kbuf, n, 0);
	cent *e = t->val_size ? cache_find(t, h, n) : NULL;
	if (e) {
		if (e->flags & CE_LIVE) {
			e->flags = e->flags & CE_INDB ? CE_INDB | CE_DIRTY : 0;
			sl__rdb_nsc_add(t, ns, -1);
		}
		return;
	}
	if (exists(t, h, n) != 1)
		return;
	char *rerr = NULL;
	t->be->wgen++;
	rocksdb_delete(t->be->db, t->be->wo, t->kbuf, n, &rerr);
	if (rerr) {
		sl__rdb_set_err(t->be, "delete", rerr);
		return;
	}
	sl__rdb_nsc_add(t, ns, -1);
}

/* ---- namespaces ---------------------------------------------------------------- */

static int rdb_ns_first(sl_state_table *t, int64_t *ns)
{
	return sl__nsidx_first(&t->nss, ns, NULL);
}

static int rdb_ns_next(sl_state_table *t, int64_t after, int64_t *ns)
{
	return sl__nsidx_next(&t->nss, after, ns, NULL);
}

/*
 * Calls cb for every entry with lo <= key < hi (encoded), in key order.
 * Values are copied to a 16-aligned buffer (accumulators may hold
 * __int128) and written back when cb changed them.  Its own failures
 * (SL_EIO, SL_ENOMEM) set err; cb's errors are cb's (err.h: first wins).
 */
static int iter_range(sl_state_table *t, const char *lo, size_t lol, const char *hi, size_t hil,
                      sl_state_scan_cb cb, void *ctx, sl_err *err)
{
	/* cb's changes go straight to the database (a variable-length table
	 * has nothing cached) */
	if (t->val_size && evict(t))
		return sl_err_set(err, SL_EIO, "state: %s", t->be->errmsg);
	rocksdb_readoptions_t *ro = rocksdb_readoptions_create();
	rocksdb_readoptions_set_iterate_upper_bound(ro, hi, hil);
	rocksdb_iterator_t *it = rocksdb_create_iterator(t->be->db, ro);
	rocksdb_writebatch_t *wb = rocksdb_writebatch_create();
	void *buf = NULL;
	size_t bcap = 0;
	int rc = 0;
	for (rocksdb_iter_seek(it, lo, lol); rocksdb_iter_valid(it); rocksdb_iter_next(it)) {
		size_t kl, vl, ukl = 0;
		const char *k = rocksdb_iter_key(it, &kl);
		const char *v = rocksdb_iter_value(it, &vl);
		if (vl + 1 > bcap) {
			free(buf);
			bcap = (vl + 1) * 2 < 256 ? 256 : (vl + 1) * 2;
			if (posix_memalign(&buf, 16, bcap)) {
				buf = NULL;
				rc = SL_ENOMEM;
				break;
			}
		}
		memcpy(buf, v, vl);
		const char *uk = dec_key(t, k, kl, &ukl);
		if (!uk) {
			rc = SL_ENOMEM;
			break;
		}
		rc = cb(ctx, uk, (uint32_t)ukl, buf, (uint32_t)vl, err);
		if (memcmp(buf, v, vl))
			rocksdb_writebatch_put(wb, k, kl, buf, vl);
		if (rc)
			break;
	}
	char *rerr = NULL;
	rocksdb_iter_get_error(it, &rerr);
	if (rerr) {
		sl__rdb_set_err(t->be, "iterate", rerr);
		rc = SL_EIO;
	}
	rocksdb_iter_destroy(it);
	rocksdb_readoptions_destroy(ro);
	if (rocksdb_writebatch_count(wb)) {
		t->be->wgen++;
		rocksdb_write(t->be->db, t->be->wo, wb, &rerr);
		if (rerr) {
			sl__rdb_set_err(t->be, "write", rerr);
			rc = SL_EIO;
		}
	}
	rocksdb_writebatch_destroy(wb);
	free(buf);
	if (rc < 0) /* ignored when cb set err already */
		sl_err_set(err, rc, "state: %s", rc == SL_EIO ? t->be->errmsg : "out of memory");
	return rc;
}

static int rdb_ns_scan(sl_state_table *t, int64_t ns, sl_state_scan_cb cb, void *ctx,
                       sl_err *err)
{
	char lo[PFX], hi[PFX];
	put_prefix(lo, t->id, ns);
	memcpy(hi, lo, PFX);
	prefix_after(hi);
	return iter_range(t, lo, PFX, hi, PFX, cb, ctx, err);
}

/* The entries of one prefix of a map table: the key range of
 * [table, ns, length, prefix reversed] (rdb_dec_key). */
static int rdb_prefix_scan(sl_state_table *t, int64_t ns, const void *prefix, uint32_t plen,
                           sl_state_scan_cb cb, void *ctx, sl_err *err)
{
	if (!t->prefix) /* not a map table: state.h's contract was not kept */
		return sl_err_set(err, SL_ESTATE, "state table '%s' is not a map table", t->name);
	size_t n = PFX + 4 + (size_t)plen;
	char sbuf[2][128], *lo = sbuf[0], *hi = sbuf[1];
	if (n > sizeof(sbuf[0])) {
		lo = malloc(2 * n);
		if (!lo)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		hi = lo + n;
	}
	put_prefix(lo, t->id, ns);
	lo[PFX] = (char)(plen >> 24);
	lo[PFX + 1] = (char)(plen >> 16);
	lo[PFX + 2] = (char)(plen >> 8);
	lo[PFX + 3] = (char)plen;
	rev_copy(lo + PFX + 4, prefix, plen);
	memcpy(hi, lo, n);
	for (size_t i = n; i-- > 0;) /* the smallest key after the range */
		if (++hi[i] != 0)
			break;
	int rc = iter_range(t, lo, n, hi, n, cb, ctx, err);
	if (lo != sbuf[0])
		free(lo);
	return rc;
}

static int rdb_scan(sl_state_table *t, sl_state_scan_cb cb, void *ctx, sl_err *err)
{
	char lo[PFX], hi[PFX];
	put_prefix(lo, t->id, INT64_MIN);
	put_prefix(hi, t->id + 1, INT64_MIN);
	return iter_range(t, lo, PFX, hi, PFX, cb, ctx, err);
}

/*
 * Why small namespaces are deleted key by key: every DeleteRange leaves a
 * range tombstone that each later iterator over the memtable must fragment
 * and skip.  Operators that drop one small namespace per timer instant (the
 * interval join's timers) left thousands: 100 K rows through an interval
 * join took 109 s on RocksDB, iterator creation dominating.  Point deletes
 * cost nothing to iterators outside their keys.
 */
#define SMALL_NS 64

/* Deletes every key of the encoded range [lo, hi) with point deletes. */
static int delete_keys(sl_state_backend *be, const char *lo, const char *hi)
{
	rocksdb_readoptions_t *ro = rocksdb_readoptions_create();
	rocksdb_readoptions_set_iterate_upper_bound(ro, hi, PFX);
	rocksdb_iterator_t *it = rocksdb_create_iterator(be->db, ro);
	rocksdb_writebatch_t *wb = rocksdb_writebatch_create();
	for (rocksdb_iter_seek(it, lo, PFX); rocksdb_iter_valid(it); rocksdb_iter_next(it)) {
		size_t kl;
		const char *k = rocksdb_iter_key(it, &kl);
		rocksdb_writebatch_delete(wb, k, kl);
	}
	char *rerr = NULL;
	rocksdb_iter_get_error(it, &rerr);
	rocksdb_iter_destroy(it);
	rocksdb_readoptions_destroy(ro);
	if (!rerr) {
		be->wgen++;
		rocksdb_write(be->db, be->wo, wb, &rerr);
	}
	rocksdb_writebatch_destroy(wb);
	if (rerr) {
		sl__rdb_set_err(be, "delete", rerr);
		return SL_EIO;
	}
	return 0;
}

/* Deletes the encoded range [lo, hi). */
static int delete_range(sl_state_backend *be, const char *lo, const char *hi)
{
	char *rerr = NULL;
	rocksdb_writebatch_t *wb = rocksdb_writebatch_create();
	rocksdb_writebatch_delete_range(wb, lo, PFX, hi, PFX);
	be->wgen++;
	rocksdb_write(be->db, be->wo, wb, &rerr);
	rocksdb_writebatch_destroy(wb);
	if (rerr) {
		sl__rdb_set_err(be, "delete range", rerr);
		return SL_EIO;
	}
	return 0;
}

static void rdb_ns_drop(sl_state_table *t, int64_t ns)
{
	note_last(t);
	/* live cached entries of ns are not written back: the range delete
	 * removes the ones in the database (pending deletes still go out) */
	for (chunk *c = t->chunks; c; c = c == t->cur ? NULL : c->next) {
		size_t esz = 0;
		for (size_t off = 0; off < c->used; off += esz) {
			cent *e = (cent *)((char *)(c + 1) + off);
			esz = ce_size(t, e->klen);
			if (e->ns == ns && (e->flags & CE_LIVE))
				e->flags = 0;
		}
	}
	if (evict(t))
		return;
	uint64_t cnt = nsc_get(t, ns);
	if (!cnt)
		return;
	char lo[PFX], hi[PFX];
	put_prefix(lo, t->id, ns);
	memcpy(hi, lo, PFX);
	prefix_after(hi);
	if (cnt <= SMALL_NS ? delete_keys(t->be, lo, hi) : delete_range(t->be, lo, hi))
		return;
	sl__rdb_nsc_add(t, ns, -(int64_t)cnt);
}

static uint64_t rdb_count(const sl_state_table *t)
{
	return t->count;
}

static uint64_t rdb_ns_count(const sl_state_table *t, int64_t ns)
{
	return nsc_get(t, ns);
}

/* The SST bytes of the key ranges of op_uid's tables (RocksDB's estimate,
 * files only: what the memtable holds is not counted) plus their
 * write-back caches. */
static uint64_t rdb_op_size(const sl_state_backend *be, const char *op_uid, uint64_t *entries)
{
	size_t n = strlen(op_uid);
	uint64_t bytes = 0;
	for (const sl_state_table *t = be->tables; t; t = t->next) {
		if (strncmp(t->name, op_uid, n) || t->name[n] != '/')
			continue;
		*entries += t->count;
		char lo[PFX], hi[PFX];
		put_prefix(lo, t->id, INT64_MIN);
		put_prefix(hi, t->id + 1, INT64_MIN);
		const char *st[1] = {lo}, *li[1] = {hi};
		size_t sl[1] = {PFX}, ll[1] = {PFX};
		uint64_t sz[1] = {0};
		char *e = NULL;
		rocksdb_approximate_sizes(be->db, 1, st, sl, li, ll, sz, &e);
		if (e)
			free(e);
		else
			bytes += sz[0];
		bytes += t->cbytes;
	}
	return bytes;
}

/* ---- tables ------------------------------------------------------------------------ */

sl_state_table *sl__rdb_table_find(sl_state_backend *be, const char *full)
{
	for (sl_state_table *t = be->tables; t; t = t->next)
		if (strcmp(t->name, full) == 0)
			return t;
	return NULL;
}

static void table_free(sl_state_table *t)
{
	free(t->name);
	sl__nsidx_deinit(&t->nss);
	free(t->kbuf);
	if (t->cur_it)
		rocksdb_iter_destroy(t->cur_it);
	if (t->ps)
		rocksdb_pinnableslice_destroy(t->ps);
	free(t->ubuf);
	for (chunk *c = t->chunks, *nx; c; c = nx) {
		nx = c->next;
		free(c);
	}
	free(t->idx);
	free(t->lorig);
	bloom_reset(t);
	free(t->vbuf);
	free(t);
}

sl_state_table *sl__rdb_table_create(sl_state_backend *be, const char *full, uint32_t val_size)
{
	sl_state_table *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->vt = be->vt;
	t->be = be;
	t->id = be->next_id++;
	t->val_size = val_size;
	t->name = strdup(full);
	size_t vs = ((size_t)val_size + 15) & ~(size_t)15;
	if (!t->name || posix_memalign(&t->lorig, 16, vs ? vs : 16)) {
		table_free(t);
		return NULL;
	}
	if (val_size)
		be->nfixed++;
	sl_state_table **pp = &be->tables; /* creation order, as snapshots list them */
	while (*pp)
		pp = &(*pp)->next;
	*pp = t;
	return t;
}

static sl_state_table *rdb_table_open(sl_state_backend *be, const char *op_uid, const char *name,
                                      uint32_t val_size, sl_err *err)
{
	char full[256];
	snprintf(full, sizeof(full), "%s/%s", op_uid, name);
	sl_state_table *t = sl__rdb_table_find(be, full);
	if (t) {
		if (t->val_size != val_size) {
			sl_err_set(err, SL_ESTATE, "state table '%s' has value size %u, expected %u",
			           full, t->val_size, val_size);
			return NULL;
		}
		return t;
	}
	t = sl__rdb_table_create(be, full, val_size);
	if (!t)
		sl_err_set(err, SL_ENOMEM, "out of memory opening state table '%s'", full);
	return t;
}

/* Removes every entry of t. */
int sl__rdb_table_clear(sl_state_table *t)
{
	cache_reset(t);
	bloom_reset(t);
	char lo[PFX], hi[PFX];
	put_prefix(lo, t->id, INT64_MIN);
	put_prefix(hi, t->id + 1, INT64_MIN);
	sl__nsidx_deinit(&t->nss);
	t->count = 0;
	return delete_range(t->be, lo, hi);
}

static uint64_t rdb_mem(const sl_state_backend *be)
{
	uint64_t mt = 0;
	rocksdb_property_int(be->db, "rocksdb.cur-size-all-mem-tables", &mt);
	uint64_t wb = 0;
	for (const sl_state_table *t = be->tables; t; t = t->next) {
		wb += t->cbytes;
		for (int i = 0; i < t->nbl; i++)
			wb += t->bl[i].nblocks * 64;
	}
	return mt + rocksdb_cache_get_usage(be->cache) + wb;
}

static int rdb_flush(sl_state_backend *be, sl_err *err)
{
	int rc = 0;
	for (sl_state_table *t = be->tables; t; t = t->next)
		if (cache_writeback(t))
			rc = SL_EIO;
	if (rc || be->errmsg[0])
		return sl_err_set(err, SL_EIO, "state backend: %s", be->errmsg);
	return 0;
}

/* ---- the local directory ------------------------------------------------------------ */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

static void rm_tree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Removes DIR_PREFIX<pid>-* directories under base whose process is gone
 * (a killed job cannot remove its own). */
static void remove_stale(const char *base)
{
	DIR *d = opendir(base);
	if (!d)
		return;
	struct dirent *de;
	char path[4200];
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, DIR_PREFIX, strlen(DIR_PREFIX)))
			continue;
		long pid = strtol(de->d_name + strlen(DIR_PREFIX), NULL, 10);
		if (pid <= 0 || pid == getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", base, de->d_name);
		rm_tree(path);
	}
	closedir(d);
}

/* Creates the backend's fresh directory in be->dir. */
static int make_dir(sl_state_backend *be, const struct sl_opts *opts, const char *job_dir,
                    sl_err *err)
{
	const char *base = opts ? sl_opts_get2(opts, "state.backend.rocksdb.localdir",
	                                       "state.backend.rocksdb.local-directories") : NULL;
	if (!base)
		base = job_dir;
	if (!base)
		base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	if (mkdir(base, 0755) && errno != EEXIST)
		return sl_err_set(err, SL_EIO, "state.backend.rocksdb.localdir '%s': %s", base,
		                  strerror(errno));
	remove_stale(base);
	snprintf(be->dir, sizeof(be->dir), "%s/" DIR_PREFIX "%ld-XXXXXX", base, (long)getpid());
	if (!mkdtemp(be->dir)) {
		int e = errno;
		be->dir[0] = 0;
		return sl_err_set(err, SL_EIO, "cannot create a RocksDB directory under '%s': %s", base,
		                  strerror(e));
	}
	return 0;
}

/* ---- open / close ---------------------------------------------------------------------- */

static void rdb_close(sl_state_backend *be)
{
	sl_state_table *t = be->tables;
	while (t) {
		sl_state_table *n = t->next;
		table_free(t);
		t = n;
	}
	if (be->db)
		rocksdb_close(be->db);
	if (be->wo)
		rocksdb_writeoptions_destroy(be->wo);
	if (be->ro)
		rocksdb_readoptions_destroy(be->ro);
	if (be->opts)
		rocksdb_options_destroy(be->opts);
	if (be->bbto)
		rocksdb_block_based_options_destroy(be->bbto);
	if (be->cache)
		rocksdb_cache_destroy(be->cache);
	if (be->dir[0])
		rm_tree(be->dir);
	free(be);
}

/* Options: memtables and block cache within budget bytes (file comment). */
static void set_options(sl_state_backend *be, int64_t budget)
{
	size_t eighth = (size_t)budget / 8;
	be->wb_budget = 2 * eighth;
	/* Not a strict limit: with one, reads fail ("cache full") once index
	 * and filter blocks fill it (5 M keys: the job died).  One shard: one
	 * thread reads, and with the default 64 shards a 2+ MB filter block
	 * exceeded a shard and was re-read from the file at every lookup (perf:
	 * 90% of a 2 M-key GROUP BY). */
	rocksdb_lru_cache_options_t *lo = rocksdb_lru_cache_options_create();
	rocksdb_lru_cache_options_set_capacity(lo, 3 * eighth);
	rocksdb_lru_cache_options_set_num_shard_bits(lo, 0);
	be->cache = rocksdb_cache_create_lru_opts(lo);
	rocksdb_lru_cache_options_destroy(lo);
	be->bbto = rocksdb_block_based_options_create();
	rocksdb_block_based_options_set_block_cache(be->bbto, be->cache);
	rocksdb_block_based_options_set_cache_index_and_filter_blocks(be->bbto, 1);
	rocksdb_block_based_options_set_filter_policy(be->bbto,
	                                              rocksdb_filterpolicy_create_bloom_full(10));
	rocksdb_block_based_options_set_format_version(be->bbto, 5);
	be->opts = rocksdb_options_create();
	rocksdb_options_set_create_if_missing(be->opts, 1);
	rocksdb_options_increase_parallelism(be->opts, 2);
	rocksdb_options_set_max_background_jobs(be->opts, 2);
	rocksdb_options_set_block_based_table_factory(be->opts, be->bbto);
	rocksdb_options_set_db_write_buffer_size(be->opts, 3 * eighth);
	rocksdb_options_set_write_buffer_size(be->opts, eighth);
	rocksdb_options_set_max_write_buffer_number(be->opts, 3);
	rocksdb_options_set_level_compaction_dynamic_level_bytes(be->opts, 1);
	rocksdb_options_set_max_open_files(be->opts, 256);
	/* a bloom filter over whole keys in each memtable: most lookups of a new
	 * key miss every memtable, and a skiplist miss costs ~20 cache misses */
	rocksdb_options_set_memtable_prefix_bloom_size_ratio(be->opts, 0.1);
	rocksdb_options_set_memtable_whole_key_filtering(be->opts, 1);
	be->wo = rocksdb_writeoptions_create();
	rocksdb_writeoptions_disable_WAL(be->wo, 1);
	be->ro = rocksdb_readoptions_create();
}

static void rdb_set_pkey(sl_state_table *t, sl_state_pkey_fn fn, const void *ctx)
{
	t->pk.fn = fn;
	t->pk.ctx = ctx;
}

/* Keys written from now on are a map table's (rdb_dec_key); called at
 * open, before the table holds entries (state.h). */
static void rdb_set_prefix(sl_state_table *t, sl_state_pkey_fn fn, const void *ctx)
{
	t->pk.fn = fn;
	t->pk.ctx = ctx;
	t->prefix = fn != NULL;
}

static const sl_state_vt rdb_vt = {
	.name = "rocksdb",
	.can_fork = 0,
	.close = rdb_close,
	.table_open = rdb_table_open,
	.upsert_h = rdb_upsert_h,
	.prefetch = NULL,
	.get = rdb_get,
	.get_var = rdb_get_var,
	.put_var = rdb_put_var,
	.del = rdb_delete,
	.ns_first = rdb_ns_first,
	.ns_next = rdb_ns_next,
	.ns_scan = rdb_ns_scan,
	.scan = rdb_scan,
	.ns_drop = rdb_ns_drop,
	.count = rdb_count,
	.mem = rdb_mem,
	.ns_count = rdb_ns_count,
	.op_size = rdb_op_size,
	.flush = rdb_flush,
	.snapshot = sl__rdb_snapshot,
	.restore = sl__rdb_restore,
	.set_pkey = rdb_set_pkey,
	.snap_begin = sl__rdb_snap_begin,
	.snap_write = sl__rdb_snap_write,
	.snap_free = sl__rdb_snap_free,
	.set_prefix = rdb_set_prefix,
	.prefix_scan = rdb_prefix_scan,
};

/*
 * Opens a RocksDB backend in a fresh directory (see the file comment for
 * the options read from opts, which may be NULL).  Returns 0, SL_EINVAL for
 * a bad option, SL_EIO when the directory or database cannot be created
 * (err set); on failure nothing is left behind.
 */
int sl__state_rocksdb_open(const struct sl_opts *opts, const char *job_dir,
                           sl_state_backend **out, sl_err *err)
{
	int64_t budget = DEF_BUDGET;
	int lrc = sl__rdb_load(err);
	if (lrc)
		return lrc;
	if (opts && sl_opts_size(opts, "state.backend.rocksdb.memory.fixed-per-slot", DEF_BUDGET,
	                         &budget, err))
		return SL_EINVAL;
	if (budget < (16 << 20))
		return sl_err_set(err, SL_EINVAL, "state.backend.rocksdb.memory.fixed-per-slot: "
		                  "at least 16 mb");
	sl_state_backend *be = calloc(1, sizeof(*be));
	if (!be)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	be->vt = &rdb_vt;
	sl__state_kgs_init(&be->kgs);
	be->next_id = 1;
	int rc = make_dir(be, opts, job_dir, err);
	if (rc) {
		rdb_close(be);
		return rc;
	}
	set_options(be, budget);
	char *rerr = NULL;
	be->db = rocksdb_open(be->opts, be->dir, &rerr);
	if (rerr) {
		rc = sl_err_set(err, SL_EIO, "cannot open RocksDB in '%s': %s", be->dir, rerr);
		free(rerr);
		rdb_close(be);
		return rc;
	}
	*out = be;
	return 0;
}
