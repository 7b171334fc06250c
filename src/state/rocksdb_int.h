/*
 * rocksdb_int.h - what the RocksDB state backend's two files share:
 * state_rocksdb.c (tables, the write-back cache, access, namespaces, the
 * local directory) and rocksdb_snap.c (snapshots in two steps and
 * restores).  The layout of keys and of the write-back cache is described
 * in state_rocksdb.c's file comment.  Internal: nothing outside these two
 * files includes it.
 */
#ifndef SL_ROCKSDB_INT_H
#define SL_ROCKSDB_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rocksdb/c.h>

#include "nsidx.h"
#include "state.h"
#include "rocksdb_dl.h"

#define PFX 12                      /* table id + namespace */

typedef struct bloomf {
	uint64_t *bits;    /* nblocks x 512 bits */
	uint64_t nblocks, n, cap;
} bloomf;

struct sl_state_table {
	const sl_state_vt *vt; /* first: state.h dispatches through it */
	struct sl_state_backend *be;
	sl_state_table *next;
	char *name;
	uint32_t id, val_size;
	uint64_t count;
	sl_nsidx nss;          /* ns -> its entries (> 0) as a uintptr_t (nsidx.h) */
	/* scratch for the encoded key */
	char *kbuf;
	size_t kcap;
	/* the write-back cache (fixed-size tables; see below) */
	struct chunk *chunks, *cur;
	struct islot *idx;
	uint32_t icap, icount;
	size_t cbytes;         /* arena bytes in use plus the index */
	struct cent *last;     /* slot handed out by the previous call, if clean */
	struct cent *hot;      /* slot handed out last (cache_find) */
	void *lorig;           /* its value then (16-aligned) */
	/* keys written in this run */
	bloomf bl[24];
	int nbl, bloom_broken;
	rocksdb_iterator_t *cur_it; /* read cursor (cursor_get), valid while */
	uint64_t cur_gen;      /* be->wgen is this */
	int seq;               /* 0..8: recent reads were found by stepping */
	int probed;            /* the last read seeked to test for order */
	uint32_t probe;        /* point lookups since (every 32nd seeks) */
	rocksdb_pinnableslice_t *ps; /* the last point lookup's value */
	char *ubuf;            /* a decoded key (dec_key) */
	size_t ucap;
	sl_state_pkey pk;      /* the partitioning key of its entries */
	int prefix;            /* a map table (set_prefix): keys as rdb_dec_key says */
	/* the last get_var value */
	char *vbuf;
};

struct sl_state_backend {
	const sl_state_vt *vt; /* first */
	sl_state_kgs kgs;      /* second (state_backends.h) */
	rocksdb_t *db;
	rocksdb_options_t *opts;
	rocksdb_block_based_table_options_t *bbto;
	rocksdb_cache_t *cache;
	rocksdb_writeoptions_t *wo;
	rocksdb_readoptions_t *ro;
	sl_state_table *tables;
	uint32_t next_id;
	int nfixed;            /* fixed-size tables: they share wb_budget */
	uint64_t wgen;         /* counts writes to the database (cursor_get) */
	size_t wb_budget;      /* bytes of write-back cache */
	char dir[4096];
	char errmsg[256];      /* the first write error, reported by flush */
};

/* ---- keys (see state_rocksdb.c) --------------------------------------------- */

static inline void put_prefix(char *p, uint32_t id, int64_t ns)
{
	uint64_t u = (uint64_t)ns ^ 0x8000000000000000ull;
	for (int i = 0; i < 4; i++)
		p[i] = (char)(id >> (24 - 8 * i));
	for (int i = 0; i < 8; i++)
		p[4 + i] = (char)(u >> (56 - 8 * i));
}

static inline int64_t get_ns(const char *p)
{
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u = u << 8 | (uint8_t)p[4 + i];
	return (int64_t)(u ^ 0x8000000000000000ull);
}

/*
 * Keys are stored byte-reversed.  Group keys encode integers little-endian
 * (data/rowcodec.c), so in RocksDB's byte order consecutive ids (sequences,
 * timestamps) were scattered over the whole key space: every read of an
 * existing key missed the block cache and decompressed a block (perf, 2 M
 * keys x 2 rows: 36% of the job in reads).  Reversed, they are adjacent:
 * reads hit the block just loaded, memtable inserts are nearly ordered and
 * flushed files barely overlap (cheap compaction).
 */
static inline void rev_copy(char *dst, const void *src, size_t n)
{
	const char *s = src;
	for (size_t i = 0; i < n; i++)
		dst[i] = s[n - 1 - i];
}

/*
 * Map tables (sl_state_table_set_prefix) store a key whose prefix (the
 * map's key: a join key) is p as [u32 BE length of p][p reversed][the
 * rest as is], so the entries of one prefix are one key range (prefix
 * iteration) and no prefix's range holds another's (the length comes
 * first).  Writes the caller's key of stored key k[0..kl) (the 12-byte
 * prefix included) into dst (room for kl bytes) and returns its length.
 */
static inline size_t rdb_dec_key(int prefix, char *dst, const char *k, size_t kl)
{
	const char *p = k + PFX;
	size_t n = kl - PFX;
	if (!prefix || n < 4) {
		rev_copy(dst, p, n);
		return n;
	}
	uint32_t pl = (uint32_t)(uint8_t)p[0] << 24 | (uint32_t)(uint8_t)p[1] << 16 |
	              (uint32_t)(uint8_t)p[2] << 8 | (uint8_t)p[3];
	if (pl > n - 4)
		pl = (uint32_t)(n - 4);
	rev_copy(dst, p + 4, pl);
	memcpy(dst + pl, p + 4 + pl, n - 4 - pl);
	return n - 4;
}

/* ---- write-back cache entries (see state_rocksdb.c) ----------------------------- */

#define CE_LIVE 1
#define CE_INDB 2
#define CE_DIRTY 4
#define CHUNK (1u << 20)
#define BATCH_BYTES (4u << 20)

typedef struct cent {
	uint64_t h;      /* hash of the encoded key */
	int64_t ns;
	uint32_t klen;   /* encoded key length (with the prefix) */
	uint32_t voff;   /* offset of the value from the entry */
	uint8_t flags;
} cent;

/* An index slot: the hash beside the pointer, so that probing past other
 * keys touches no entry (with the pointers alone, probes for new keys
 * dereferenced ~2.5 entries each: cache_find was 13% of the 2 M-key job). */
typedef struct islot {
	uint64_t h;
	cent *e;
} islot;

typedef struct chunk {
	struct chunk *next;
	size_t cap, used;
	size_t pad;      /* keeps the data 16-aligned */
} chunk;

static inline char *ce_key(cent *e) { return (char *)(e + 1); }
static inline void *ce_val(cent *e) { return (char *)e + e->voff; }
static inline size_t round16(size_t n) { return (n + 15) & ~(size_t)15; }

/* Bytes of one entry with an encoded key of n bytes. */
static inline size_t ce_size(const sl_state_table *t, size_t n)
{
	return round16(sizeof(cent) + n) + round16(t->val_size ? t->val_size : 1);
}

/* Notices a write through the slot returned by the previous call. */
static inline void note_last(sl_state_table *t)
{
	cent *e = t->last;
	if (e && memcmp(ce_val(e), t->lorig, t->val_size))
		e->flags |= CE_DIRTY;
	t->last = NULL;
}

/* Encodes (ns, key) into t->kbuf; returns its length or 0 when out of memory. */
size_t sl__rdb_enc(sl_state_table *t, int64_t ns, const void *key, uint32_t klen);
/* Keeps the first RocksDB error (what failed and its message) in be->errmsg;
 * frees rerr. */
void sl__rdb_set_err(sl_state_backend *be, const char *what, char *rerr);
/* Adds d entries to namespace ns's count (and the table's).  0 or SL_ENOMEM. */
int sl__rdb_nsc_add(sl_state_table *t, int64_t ns, int64_t d);
/* Records that the key with hash h was written in this run. */
void sl__rdb_bloom_add(sl_state_table *t, uint64_t h);
/* The open table of that full name ("op_uid/name"), or NULL. */
sl_state_table *sl__rdb_table_find(sl_state_backend *be, const char *full);
/* A new, empty table; NULL when out of memory. */
sl_state_table *sl__rdb_table_create(sl_state_backend *be, const char *full, uint32_t val_size);
/* Empties the table (cache, counts, its key range).  0 or SL_EIO. */
int sl__rdb_table_clear(sl_state_table *t);

/* The snapshot methods of the backend's method table (rocksdb_snap.c); each
 * has the contract of the state.h function of the same name. */
sl_state_snap *sl__rdb_snap_begin(sl_state_backend *be, const char *op_uid, sl_err *err);
int sl__rdb_snap_write(sl_state_snap *s, sl_snap_writer *w, sl_err *err);
void sl__rdb_snap_free(sl_state_snap *s);
int sl__rdb_snapshot(sl_state_backend *be, const char *op_uid, sl_snap_writer *w, sl_err *err);
int sl__rdb_restore(sl_state_backend *be, sl_snap_reader *r, int merge, sl_err *err);

#endif
