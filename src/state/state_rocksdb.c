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
 *     [table id u32 BE][namespace i64 BE with the sign bit flipped][key]
 *
 * so byte order is (table, namespace numeric, key) order: a namespace is a
 * contiguous key range (scan = prefix iteration, drop = DeleteRange) and
 * the smallest namespace is the first key of the table.  Table ids are
 * assigned at open in this process (the database never outlives it).
 *
 * Fixed-size slots (read-modify-write): upsert/get copy the value into the
 * table's one cached slot and return a pointer to it; the slot is written
 * back (if it changed, or was created) at the next call on that table or
 * at sl_state_flush.  Repeated calls for the same (ns, key) return the same
 * slot without touching RocksDB.  Variable-length values are read and
 * written directly.
 *
 * Counts: each table keeps a sorted array of (namespace, entries); it gives
 * sl_state_count, ns_first/ns_next without an iterator, and what a drop
 * removes.  Keeping it exact costs a point lookup before put_var/delete.
 * It is rebuilt from the records at restore.
 *
 * Memory: 'state.backend.rocksdb.memory.fixed-per-slot' (default 256 mb)
 * is split in half: memtables (db_write_buffer_size) and one LRU block
 * cache that also holds index and filter blocks.
 * (The 7.8 C API has no write buffer manager to charge memtables to the
 * cache, so the two halves are bounded separately.)
 *
 * Threads: RocksDB runs background flush/compaction threads, so a forked
 * child must not use the database (sl_state_backend_can_fork is 0): the
 * checkpoint coordinator snapshots this backend synchronously.  The job's
 * one thread makes every call.
 */
#include "state.h"
#include "sluice.h"
#include "../base/opts.h"

#include <rocksdb/c.h>

#include "rocksdb_dl.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PFX 12                      /* table id + namespace */
#define DEF_BUDGET (256ll << 20)    /* memory.fixed-per-slot default */
#define DIR_PREFIX "sluice-rocksdb-"

typedef struct nscount {
	int64_t ns;
	uint64_t n;
} nscount;

struct sl_state_table {
	const sl_state_vt *vt; /* first: state.h dispatches through it */
	struct sl_state_backend *be;
	sl_state_table *next;
	char *name;
	uint32_t id, val_size;
	uint64_t count;
	nscount *nss;          /* sorted by ns, entries > 0 */
	int nns, capns;
	/* scratch for the encoded key */
	char *kbuf;
	size_t kcap;
	/* the cached slot (fixed-size tables) */
	int have;              /* slot holds (slot_ns, key in skey) */
	int dirty_new;         /* created: written back even if all zero */
	int64_t slot_ns;
	char *skey;            /* encoded key of the slot */
	size_t sklen, skcap;
	void *slot, *orig;     /* 16-aligned value and its last written copy */
	/* the last get_var value */
	char *vbuf;
};

struct sl_state_backend {
	const sl_state_vt *vt; /* first */
	rocksdb_t *db;
	rocksdb_options_t *opts;
	rocksdb_block_based_table_options_t *bbto;
	rocksdb_cache_t *cache;
	rocksdb_writeoptions_t *wo;
	rocksdb_readoptions_t *ro;
	sl_state_table *tables;
	uint32_t next_id;
	char dir[4096];
	char errmsg[256];      /* the first write error, reported by flush */
};

/* ---- keys ------------------------------------------------------------------ */

static void put_prefix(char *p, uint32_t id, int64_t ns)
{
	uint64_t u = (uint64_t)ns ^ 0x8000000000000000ull;
	for (int i = 0; i < 4; i++)
		p[i] = (char)(id >> (24 - 8 * i));
	for (int i = 0; i < 8; i++)
		p[4 + i] = (char)(u >> (56 - 8 * i));
}

static int64_t get_ns(const char *p)
{
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u = u << 8 | (uint8_t)p[4 + i];
	return (int64_t)(u ^ 0x8000000000000000ull);
}

/* The smallest prefix after every key starting with p[0..PFX). */
static void prefix_after(char *p)
{
	for (int i = PFX - 1; i >= 0; i--)
		if (++p[i] != 0)
			return;
}

/* Encodes (ns, key) into t->kbuf; returns its length or 0 when out of memory. */
static size_t enc(sl_state_table *t, int64_t ns, const void *key, uint32_t klen)
{
	size_t n = PFX + (size_t)klen;
	if (n > t->kcap) {
		size_t cap = n < 64 ? 64 : n * 2;
		char *p = realloc(t->kbuf, cap);
		if (!p)
			return 0;
		t->kbuf = p;
		t->kcap = cap;
	}
	put_prefix(t->kbuf, t->id, ns);
	memcpy(t->kbuf + PFX, key, klen);
	return n;
}

static void set_err(sl_state_backend *be, const char *what, char *rerr)
{
	if (!be->errmsg[0])
		snprintf(be->errmsg, sizeof(be->errmsg), "rocksdb %s: %s", what, rerr ? rerr : "?");
	free(rerr);
}

/* ---- per-namespace counts ------------------------------------------------------ */

/* Index of ns in t->nss, or -(insertion point) - 1. */
static int nsc_find(const sl_state_table *t, int64_t ns)
{
	int lo = 0, hi = t->nns - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (t->nss[mid].ns == ns)
			return mid;
		if (t->nss[mid].ns < ns)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -lo - 1;
}

/* Adds d (+1 or -1, or a restore's +1s) to namespace ns's count. */
static int nsc_add(sl_state_table *t, int64_t ns, int64_t d)
{
	int i = nsc_find(t, ns);
	if (i < 0) {
		if (d <= 0)
			return 0;
		i = -i - 1;
		if (t->nns == t->capns) {
			int nc = t->capns ? t->capns * 2 : 8;
			nscount *nv = realloc(t->nss, sizeof(*nv) * (size_t)nc);
			if (!nv)
				return SL_ENOMEM;
			t->nss = nv;
			t->capns = nc;
		}
		memmove(t->nss + i + 1, t->nss + i, sizeof(*t->nss) * (size_t)(t->nns - i));
		t->nss[i].ns = ns;
		t->nss[i].n = 0;
		t->nns++;
	}
	t->nss[i].n += (uint64_t)d;
	t->count += (uint64_t)d;
	if (t->nss[i].n == 0) {
		memmove(t->nss + i, t->nss + i + 1, sizeof(*t->nss) * (size_t)(t->nns - i - 1));
		t->nns--;
	}
	return 0;
}

/* ---- the cached slot ------------------------------------------------------------ */

/* Writes the cached slot back if it changed; keeps it cached (clean). */
static int writeback(sl_state_table *t)
{
	if (!t->have || (!t->dirty_new && !memcmp(t->slot, t->orig, t->val_size)))
		return 0;
	char *rerr = NULL;
	rocksdb_put(t->be->db, t->be->wo, t->skey, t->sklen, t->slot, t->val_size, &rerr);
	if (rerr) {
		set_err(t->be, "put", rerr);
		return SL_EIO;
	}
	memcpy(t->orig, t->slot, t->val_size);
	t->dirty_new = 0;
	return 0;
}

/* Write-back, then forget the slot (before calls that may change its entry). */
static int release(sl_state_table *t)
{
	int rc = writeback(t);
	t->have = 0;
	return rc;
}

static int slot_is(const sl_state_table *t, int64_t ns, size_t n)
{
	return t->have && t->slot_ns == ns && t->sklen == n && !memcmp(t->skey, t->kbuf, n);
}

/* Makes (ns, t->kbuf[0..n)) the cached slot: loads it (1), or with create
 * zero-fills it (0, counted), or returns 2 when absent and !create; <0 on error. */
static int slot_load(sl_state_table *t, int64_t ns, size_t n, int create)
{
	if (release(t))
		return SL_EIO;
	if (n > t->skcap) {
		char *p = realloc(t->skey, n * 2);
		if (!p)
			return SL_ENOMEM;
		t->skey = p;
		t->skcap = n * 2;
	}
	char *rerr = NULL;
	rocksdb_pinnableslice_t *ps = rocksdb_get_pinned(t->be->db, t->be->ro, t->kbuf, n, &rerr);
	if (rerr) {
		set_err(t->be, "get", rerr);
		return SL_EIO;
	}
	int found = 0;
	if (ps) {
		size_t vl;
		const char *v = rocksdb_pinnableslice_value(ps, &vl);
		if (v && vl == t->val_size) {
			memcpy(t->slot, v, vl);
			found = 1;
		}
		rocksdb_pinnableslice_destroy(ps);
	}
	if (!found && !create)
		return 2;
	if (!found) {
		if (nsc_add(t, ns, 1))
			return SL_ENOMEM;
		memset(t->slot, 0, t->val_size);
		t->dirty_new = 1;
	}
	memcpy(t->orig, t->slot, t->val_size);
	memcpy(t->skey, t->kbuf, n);
	t->sklen = n;
	t->slot_ns = ns;
	t->have = 1;
	return found ? 1 : 0;
}

/* ---- fixed-size and variable-length access ------------------------------------- */

static void *rdb_upsert_h(sl_state_table *t, int64_t ns, const void *key, uint32_t klen,
                          uint32_t hash, int *created)
{
	size_t n = enc(t, ns, key, klen);
	if (!n)
		return NULL;
	if (slot_is(t, ns, n)) {
		if (created)
			*created = 0;
		return t->slot;
	}
	int rc = slot_load(t, ns, n, 1);
	if (rc < 0)
		return NULL;
	if (created)
		*created = rc == 0;
	return t->slot;
}

static void *rdb_get(sl_state_table *t, int64_t ns, const void *key, uint32_t klen)
{
	size_t n = enc(t, ns, key, klen);
	if (!n)
		return NULL;
	if (slot_is(t, ns, n))
		return t->slot;
	return slot_load(t, ns, n, 0) == 1 ? t->slot : NULL;
}

/* 1 when the encoded key t->kbuf[0..n) is present, 0 absent, <0 error. */
static int exists(sl_state_table *t, size_t n)
{
	char *rerr = NULL;
	rocksdb_pinnableslice_t *ps = rocksdb_get_pinned(t->be->db, t->be->ro, t->kbuf, n, &rerr);
	if (rerr) {
		set_err(t->be, "get", rerr);
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
	size_t n = enc(t, ns, key, klen);
	if (!n)
		return 0;
	free(t->vbuf);
	t->vbuf = NULL;
	size_t vl = 0;
	char *rerr = NULL;
	t->vbuf = rocksdb_get(t->be->db, t->be->ro, t->kbuf, n, &vl, &rerr);
	if (rerr) {
		set_err(t->be, "get", rerr);
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
	if (release(t))
		return SL_EIO;
	size_t n = enc(t, ns, key, klen);
	if (!n)
		return SL_ENOMEM;
	int had = exists(t, n);
	if (had < 0)
		return had;
	char *rerr = NULL;
	rocksdb_put(t->be->db, t->be->wo, t->kbuf, n, val ? val : "", vlen, &rerr);
	if (rerr) {
		set_err(t->be, "put", rerr);
		return SL_EIO;
	}
	return had ? 0 : nsc_add(t, ns, 1);
}

static void rdb_delete(sl_state_table *t, int64_t ns, const void *key, uint32_t klen)
{
	size_t n = enc(t, ns, key, klen);
	if (!n)
		return;
	if (slot_is(t, ns, n)) {
		t->have = 0; /* the entry goes: no write-back */
		if (t->dirty_new) { /* created, never written */
			t->dirty_new = 0;
			nsc_add(t, ns, -1);
			return;
		}
	} else if (release(t)) {
		return;
	}
	if (exists(t, n) != 1)
		return;
	char *rerr = NULL;
	rocksdb_delete(t->be->db, t->be->wo, t->kbuf, n, &rerr);
	if (rerr) {
		set_err(t->be, "delete", rerr);
		return;
	}
	nsc_add(t, ns, -1);
}

/* ---- namespaces ---------------------------------------------------------------- */

static int rdb_ns_first(sl_state_table *t, int64_t *ns)
{
	if (!t->nns)
		return 0;
	*ns = t->nss[0].ns;
	return 1;
}

static int rdb_ns_next(sl_state_table *t, int64_t after, int64_t *ns)
{
	int i = nsc_find(t, after);
	i = i >= 0 ? i + 1 : -i - 1;
	if (i >= t->nns)
		return 0;
	*ns = t->nss[i].ns;
	return 1;
}

/*
 * Calls cb for every entry with lo <= key < hi (encoded), in key order.
 * Values are copied to a 16-aligned buffer (accumulators may hold
 * __int128) and written back when cb changed them.
 */
static int iter_range(sl_state_table *t, const char *lo, const char *hi, sl_state_scan_cb cb,
                      void *ctx)
{
	if (release(t))
		return SL_EIO;
	rocksdb_readoptions_t *ro = rocksdb_readoptions_create();
	rocksdb_readoptions_set_iterate_upper_bound(ro, hi, PFX);
	rocksdb_iterator_t *it = rocksdb_create_iterator(t->be->db, ro);
	rocksdb_writebatch_t *wb = rocksdb_writebatch_create();
	void *buf = NULL;
	size_t bcap = 0;
	int rc = 0;
	for (rocksdb_iter_seek(it, lo, PFX); rocksdb_iter_valid(it); rocksdb_iter_next(it)) {
		size_t kl, vl;
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
		rc = cb(ctx, k + PFX, (uint32_t)(kl - PFX), buf, (uint32_t)vl);
		if (memcmp(buf, v, vl))
			rocksdb_writebatch_put(wb, k, kl, buf, vl);
		if (rc)
			break;
	}
	char *rerr = NULL;
	rocksdb_iter_get_error(it, &rerr);
	if (rerr) {
		set_err(t->be, "iterate", rerr);
		rc = SL_EIO;
	}
	rocksdb_iter_destroy(it);
	rocksdb_readoptions_destroy(ro);
	if (rocksdb_writebatch_count(wb)) {
		rocksdb_write(t->be->db, t->be->wo, wb, &rerr);
		if (rerr) {
			set_err(t->be, "write", rerr);
			rc = SL_EIO;
		}
	}
	rocksdb_writebatch_destroy(wb);
	free(buf);
	return rc;
}

static int rdb_ns_scan(sl_state_table *t, int64_t ns, sl_state_scan_cb cb, void *ctx)
{
	char lo[PFX], hi[PFX];
	put_prefix(lo, t->id, ns);
	memcpy(hi, lo, PFX);
	prefix_after(hi);
	return iter_range(t, lo, hi, cb, ctx);
}

static int rdb_scan(sl_state_table *t, sl_state_scan_cb cb, void *ctx)
{
	char lo[PFX], hi[PFX];
	put_prefix(lo, t->id, INT64_MIN);
	put_prefix(hi, t->id + 1, INT64_MIN);
	return iter_range(t, lo, hi, cb, ctx);
}

/* Deletes the encoded range [lo, hi). */
static int delete_range(sl_state_backend *be, const char *lo, const char *hi)
{
	char *rerr = NULL;
	rocksdb_writebatch_t *wb = rocksdb_writebatch_create();
	rocksdb_writebatch_delete_range(wb, lo, PFX, hi, PFX);
	rocksdb_write(be->db, be->wo, wb, &rerr);
	rocksdb_writebatch_destroy(wb);
	if (rerr) {
		set_err(be, "delete range", rerr);
		return SL_EIO;
	}
	return 0;
}

static void rdb_ns_drop(sl_state_table *t, int64_t ns)
{
	if (t->have && t->slot_ns == ns)
		t->have = t->dirty_new = 0;
	else if (release(t))
		return;
	int i = nsc_find(t, ns);
	if (i < 0)
		return;
	char lo[PFX], hi[PFX];
	put_prefix(lo, t->id, ns);
	memcpy(hi, lo, PFX);
	prefix_after(hi);
	if (delete_range(t->be, lo, hi))
		return;
	nsc_add(t, ns, -(int64_t)t->nss[i].n);
}

static uint64_t rdb_count(const sl_state_table *t)
{
	return t->count;
}

/* ---- tables ------------------------------------------------------------------------ */

static sl_state_table *table_find(sl_state_backend *be, const char *full)
{
	for (sl_state_table *t = be->tables; t; t = t->next)
		if (strcmp(t->name, full) == 0)
			return t;
	return NULL;
}

static void table_free(sl_state_table *t)
{
	free(t->name);
	free(t->nss);
	free(t->kbuf);
	free(t->skey);
	free(t->slot);
	free(t->orig);
	free(t->vbuf);
	free(t);
}

static sl_state_table *table_create(sl_state_backend *be, const char *full, uint32_t val_size)
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
	if (!t->name || posix_memalign(&t->slot, 16, vs ? vs : 16) ||
	    posix_memalign(&t->orig, 16, vs ? vs : 16)) {
		table_free(t);
		return NULL;
	}
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
	sl_state_table *t = table_find(be, full);
	if (t) {
		if (t->val_size != val_size) {
			sl_err_set(err, SL_ESTATE, "state table '%s' has value size %u, expected %u",
			           full, t->val_size, val_size);
			return NULL;
		}
		return t;
	}
	t = table_create(be, full, val_size);
	if (!t)
		sl_err_set(err, SL_ENOMEM, "out of memory opening state table '%s'", full);
	return t;
}

/* Removes every entry of t. */
static int table_clear(sl_state_table *t)
{
	t->have = t->dirty_new = 0;
	char lo[PFX], hi[PFX];
	put_prefix(lo, t->id, INT64_MIN);
	put_prefix(hi, t->id + 1, INT64_MIN);
	t->nns = 0;
	t->count = 0;
	return delete_range(t->be, lo, hi);
}

static uint64_t rdb_mem(const sl_state_backend *be)
{
	uint64_t mt = 0;
	rocksdb_property_int(be->db, "rocksdb.cur-size-all-mem-tables", &mt);
	return mt + rocksdb_cache_get_usage(be->cache);
}

static int rdb_flush(sl_state_backend *be, sl_err *err)
{
	int rc = 0;
	for (sl_state_table *t = be->tables; t; t = t->next)
		if (writeback(t))
			rc = SL_EIO;
	if (rc || be->errmsg[0])
		return sl_err_set(err, SL_EIO, "state backend: %s", be->errmsg);
	return 0;
}

/* ---- snapshot / restore ---------------------------------------------------------- */

/* Writes table t's records from the database snapshot snap (taken right
 * after a flush, so t->count is exact: checked, since a writer that streams
 * to a file cannot patch the header afterwards). */
static int snap_table(sl_state_table *t, const rocksdb_snapshot_t *snap, sl_snap_writer *w)
{
	sl_snap_put_u8(w, SL_SNAP_TABLE);
	sl_snap_put_bytes(w, t->name, strlen(t->name));
	sl_snap_put_u32(w, t->val_size);
	sl_snap_put_i64(w, (int64_t)t->count);
	char lo[PFX], hi[PFX];
	put_prefix(lo, t->id, INT64_MIN);
	put_prefix(hi, t->id + 1, INT64_MIN);
	rocksdb_readoptions_t *ro = rocksdb_readoptions_create();
	rocksdb_readoptions_set_snapshot(ro, snap);
	rocksdb_readoptions_set_iterate_upper_bound(ro, hi, PFX);
	rocksdb_readoptions_set_fill_cache(ro, 0);
	rocksdb_iterator_t *it = rocksdb_create_iterator(t->be->db, ro);
	uint64_t n = 0;
	for (rocksdb_iter_seek(it, lo, PFX); rocksdb_iter_valid(it); rocksdb_iter_next(it)) {
		size_t kl, vl;
		const char *k = rocksdb_iter_key(it, &kl);
		const char *v = rocksdb_iter_value(it, &vl);
		sl_snap_put_i64(w, get_ns(k));
		sl_snap_put_bytes(w, k + PFX, kl - PFX);
		sl_snap_put_bytes(w, v, vl);
		n++;
	}
	char *rerr = NULL;
	rocksdb_iter_get_error(it, &rerr);
	rocksdb_iter_destroy(it);
	rocksdb_readoptions_destroy(ro);
	if (rerr) {
		set_err(t->be, "iterate", rerr);
		return SL_EIO;
	}
	if (n != t->count) {
		snprintf(t->be->errmsg, sizeof(t->be->errmsg), "table '%s' holds %llu entries, "
		         "counted %llu", t->name, (unsigned long long)n, (unsigned long long)t->count);
		return SL_ESTATE;
	}
	return 0;
}

static int rdb_snapshot(sl_state_backend *be, const char *op_uid, sl_snap_writer *w, sl_err *err)
{
	int rc = rdb_flush(be, err);
	if (rc)
		return rc;
	const rocksdb_snapshot_t *snap = rocksdb_create_snapshot(be->db);
	size_t plen = op_uid ? strlen(op_uid) : 0;
	for (sl_state_table *t = be->tables; t && !rc; t = t->next) {
		if (op_uid && (strncmp(t->name, op_uid, plen) != 0 || t->name[plen] != '/'))
			continue;
		rc = snap_table(t, snap, w);
	}
	rocksdb_release_snapshot(be->db, snap);
	if (rc)
		return sl_err_set(err, rc, "state snapshot: %s", be->errmsg);
	sl_snap_put_u8(w, SL_SNAP_END);
	if (w->failed)
		return sl_err_set(err, SL_ENOMEM, "out of memory writing a state snapshot");
	return 0;
}

/* Reads count records into t through a write batch written every 4 MB. */
static int restore_records(sl_state_table *t, sl_snap_reader *r, int64_t count, sl_err *err)
{
	rocksdb_writebatch_t *wb = rocksdb_writebatch_create();
	int rc = 0;
	size_t pending = 0;
	char *rerr = NULL;
	for (int64_t i = 0; i < count && !rc; i++) {
		int64_t ns = sl_snap_get_i64(r);
		size_t klen, vlen;
		const void *key = sl_snap_get_bytes(r, &klen);
		const void *val = sl_snap_get_bytes(r, &vlen);
		size_t n;
		if (!sl_snap_reader_ok(r) || (t->val_size && vlen != t->val_size)) {
			rc = sl_err_set(err, SL_ESTATE, "state snapshot damaged in table '%s'", t->name);
		} else if (!(n = enc(t, ns, key, (uint32_t)klen)) || nsc_add(t, ns, 1)) {
			rc = sl_err_set(err, SL_ENOMEM, "out of memory");
		} else {
			rocksdb_writebatch_put(wb, t->kbuf, n, val, vlen);
			pending += n + vlen;
			if (pending >= (4 << 20) || i + 1 == count) {
				rocksdb_write(t->be->db, t->be->wo, wb, &rerr);
				rocksdb_writebatch_clear(wb);
				pending = 0;
				if (rerr) {
					set_err(t->be, "write", rerr);
					rc = sl_err_set(err, SL_EIO, "restoring state: %s", t->be->errmsg);
				}
			}
		}
	}
	rocksdb_writebatch_destroy(wb);
	return rc;
}

static int restore_table(sl_state_backend *be, sl_snap_reader *r, sl_err *err)
{
	size_t nlen;
	const char *name = sl_snap_get_bytes(r, &nlen);
	uint32_t val_size = sl_snap_get_u32(r);
	int64_t count = sl_snap_get_i64(r);
	if (!name || nlen == 0 || nlen > 255 || count < 0)
		return sl_err_set(err, SL_ESTATE, "state snapshot damaged: bad table header");
	char full[256];
	memcpy(full, name, nlen);
	full[nlen] = 0;
	sl_state_table *t = table_find(be, full);
	if (t && t->val_size != val_size)
		return sl_err_set(err, SL_ESTATE, "state table '%s': value size %u in snapshot, %u now",
		                  full, val_size, t->val_size);
	if (!t && !(t = table_create(be, full, val_size)))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (table_clear(t))
		return sl_err_set(err, SL_EIO, "restoring state: %s", be->errmsg);
	return restore_records(t, r, count, err);
}

static int rdb_restore(sl_state_backend *be, sl_snap_reader *r, sl_err *err)
{
	for (;;) {
		uint8_t tag = sl_snap_get_u8(r);
		if (!sl_snap_reader_ok(r))
			return sl_err_set(err, SL_ESTATE, "state snapshot truncated");
		if (tag == SL_SNAP_END)
			return 0;
		if (tag != SL_SNAP_TABLE)
			return sl_err_set(err, SL_ESTATE, "state snapshot damaged: bad record tag %u", tag);
		int rc = restore_table(be, r, err);
		if (rc)
			return rc;
	}
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
	size_t half = (size_t)budget / 2;
	/* Not a strict limit: with one, reads fail ("cache full") once index
	 * and filter blocks fill it (5 M keys: the job died).  One shard: one
	 * thread reads, and with the default 64 shards a 2+ MB filter block
	 * exceeded a shard and was re-read from the file at every lookup (perf:
	 * 90% of a 2 M-key GROUP BY). */
	rocksdb_lru_cache_options_t *lo = rocksdb_lru_cache_options_create();
	rocksdb_lru_cache_options_set_capacity(lo, half);
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
	rocksdb_options_set_db_write_buffer_size(be->opts, half);
	rocksdb_options_set_write_buffer_size(be->opts, half / 4);
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
	.flush = rdb_flush,
	.snapshot = rdb_snapshot,
	.restore = rdb_restore,
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
