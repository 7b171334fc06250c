/*
 * state_mem.c - the in-memory ("hashmap") state backend behind state.h.
 *
 * Layout.  A table is an ordered index of namespaces (a B+tree, nsidx.h;
 * it was a sorted array, quadratic for timers set out of order); each
 * namespace is a flat open-addressing hash table (linear probing,
 * backward-shift deletion) whose slots hold a 32-bit hash and a pointer
 * to an entry.  Entries live
 * in 64 KiB chunks owned by the namespace, so dropping a namespace (a
 * fired window) frees its memory in a few free() calls, and scanning a
 * namespace walks its chunks in creation order (deterministic).  Entry:
 *
 *     fixed-size table:  [klen u32 | DEAD bit][key, padded to 16 with klen][value]
 *     variable-length:   [klen u32 | DEAD bit][key, padded ...][vlen u32][vcap u32][8][value]
 *
 * An entry's size follows from klen and the table's value size (or vcap),
 * so scans can walk a chunk.  Why a 4-byte header (it was 16: klen, vlen,
 * vcap, size): with 1 M keys of 9 bytes and a 48-byte accumulator an entry
 * is 64 bytes instead of 96, which is what brought the 1 M-keys benchmark
 * under 100 MB (docs/performance.md).
 *
 * Map tables (sl_state_table_set_prefix) put 16 bytes of links between an
 * entry's key and its value and keep, per namespace, an index of groups:
 * the entries of one key prefix, linked in creation order (see "map
 * tables" below), which prefix scans walk and snapshots keep in order.
 *
 * Values are 16-byte aligned (they may hold __int128 accumulators) and are
 * updated in place: a slot pointer stays valid until the next call on the
 * table that may insert or delete.  Deleted entries go to a free list per
 * size class of their namespace and are reused by later inserts.
 *
 * Cost: 12 bytes of index per slot at <= 75% load, plus the entry: 4 bytes
 * of header and the key rounded up to 16, then the value rounded to 16
 * (64 bytes for a 9-byte key and a 48-byte accumulator).
 *
 * These functions are the "hashmap" implementation of state.h's method
 * table (mem_vt, at the end); sl__state_mem_open is the only entry point.
 */
#include "nsidx.h"
#include "state_backends.h"
#include "sluice.h"
#include "../base/copy.h"
#include "../base/hash.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CHUNK_BYTES (64 * 1024)
#define DEAD 0x80000000u
#define NFREE 64 /* free lists for entry sizes 16..1024 in steps of 16 */
/*
 * Larger entries (variable-length values over ~1 KB) have power-of-two
 * sizes and free lists per power.  Why: a value that grows by appending
 * (a join key's list of rows) was reallocated at its exact size each time
 * and the old entry, over 1 KB, was never reused: a regular join of 5 M
 * rows over 100 K keys (lists of ~50 rows) peaked at 7.3 GB RSS.
 */
#define NBIG 24
#define FIRST_CHUNK 512 /* bytes of a namespace's first chunk (see ent_alloc) */
/*
 * Small namespaces (16 index slots, at most one first chunk) are recycled:
 * up to SPARE_MAX freed ones are kept whole for the next new namespace.
 * Why: one namespace per timer instant made 4 mallocs and 4 frees per input
 * row of an interval join (malloc and free were 30% of it, perf).
 */
#define SPARE_CAP 16
#define SPARE_MAX 256

typedef struct entry {
	uint32_t klen; /* key bytes follow; DEAD bit when deleted */
} entry;

typedef struct vhdr { /* variable-length tables: before the value */
	uint32_t vlen, vcap;
	uint64_t pad;
} vhdr;

typedef struct chunk {
	struct chunk *next;
	size_t used, cap;
	char *data; /* 16-aligned start inside the allocation */
	int slab;   /* carved from a huge-page slab: never free()d */
} chunk;

typedef struct glink { /* map tables: an entry's place in its prefix's group */
	struct entry *next; /* NULL at the tail */
	struct entry *prev; /* the head's: the tail */
} glink;

typedef struct nsmap {
	int64_t ns;
	uint32_t *h32;    /* 0 = empty slot */
	entry **slot;
	uint32_t mask;    /* capacity - 1 */
	uint32_t count;
	uint32_t lk;      /* bytes of links after the key: sizeof(glink) in a map table */
	uint32_t gmask, gcount; /* map tables: the index of groups (prefix -> head) */
	uint32_t *gh32;   /* hash of a group's prefix, 0 = empty */
	entry **ghead;
	chunk *first, *last;
	entry *freel[NFREE];
	entry *freeb[NBIG]; /* free entries of 2^(11+i) bytes (variable-length tables) */
	uint64_t bytes;   /* chunk + index bytes */
	uint32_t val_size; /* the table's: 0 = variable-length */
} nsmap;

struct sl_state_table {
	const sl_state_vt *vt; /* first: state.h dispatches through it */
	char *name;
	uint32_t val_size; /* 0 = variable-length */
	sl_nsidx nss;      /* namespace -> nsmap, ordered (nsidx.h) */
	nsmap *last;       /* lookup cache */
	uint64_t count;
	uint32_t cap_hint;  /* index capacity for a new namespace (see ns_new) */
	sl_state_pkey pk;   /* the partitioning key of its entries */
	int prefix;         /* a map table: pk is a prefix of the key (set_prefix) */
	sl_state_table *next;
	struct sl_state_backend *be;
};

struct sl_state_backend {
	const sl_state_vt *vt; /* first */
	sl_state_kgs kgs;      /* second (state_backends.h) */
	sl_state_table *tables;
	uint64_t bytes;
	chunk *pool;    /* freed CHUNK_BYTES chunks kept for reuse */
	struct nsmap *spare; /* freed small namespaces kept for reuse (ns_free) */
	int nspare;
	int npool;
	struct slab *slabs; /* huge-page regions chunks are carved from */
	char *slab_next, *slab_end;
};

/*
 * Huge pages for state memory.  Checkpoints fork a child that writes the
 * copy-on-write image of the process (docs/checkpoints.md); fork copies the
 * page tables of every mapped page.  Measured here on 1 GB of touched
 * memory: fork 80 ms and 5.3 s of page faults afterwards in the parent with
 * 4 KB pages, 2.3 ms and 20 ms with transparent huge pages (MADV_HUGEPAGE;
 * THP is in madvise mode on Debian).  So namespace chunks come from 2 MB
 * slabs and large index arrays from their own madvise'd mappings.
 */
#define SLAB_BYTES (2u << 20)
#define BIG_BYTES (2u << 20) /* index arrays at least this big are mmap'd */

typedef struct slab {
	struct slab *next;
	void *base;
	size_t len;
} slab;

static void *huge_map(size_t len)
{
	/* over-map by 2 MB to align the region to a huge page */
	size_t map = len + SLAB_BYTES;
	char *p = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	char *a = (char *)(((uintptr_t)p + SLAB_BYTES - 1) & ~(uintptr_t)(SLAB_BYTES - 1));
	if (a > p)
		munmap(p, (size_t)(a - p));
	size_t tail = (size_t)(p + map - (a + len));
	if (tail)
		munmap(a + len, tail);
	madvise(a, len, MADV_HUGEPAGE);
	/*
	 * Why the writes: an index array's first access is a read (probing
	 * for a free slot), which maps the shared huge zero page; the write
	 * after it then splits the mapping into 4 KB pages.  Writing first
	 * gets real huge pages.  Measured: the 192 MB index of 12 M keys had
	 * no huge page at all, and fork at 1 GB took 13.6 ms.
	 */
	for (size_t off = 0; off < len; off += SLAB_BYTES)
		((volatile char *)a)[off] = 0;
	return a;
}

/* Zeroed index array of n bytes (calloc below BIG_BYTES). */
static void *idx_alloc(size_t n)
{
	if (n < BIG_BYTES)
		return calloc(1, n);
	return huge_map((n + SLAB_BYTES - 1) & ~(size_t)(SLAB_BYTES - 1));
}

static void idx_free(void *p, size_t n)
{
	if (!p)
		return;
	if (n < BIG_BYTES)
		free(p);
	else
		munmap(p, (n + SLAB_BYTES - 1) & ~(size_t)(SLAB_BYTES - 1));
}

/* A CHUNK_BYTES chunk carved from the backend's current slab. */
static chunk *slab_chunk(struct sl_state_backend *be)
{
	size_t unit = (sizeof(chunk) + CHUNK_BYTES + 16 + 63) & ~(size_t)63;
	if (!be->slab_next || be->slab_next + unit > be->slab_end) {
		slab *sb = malloc(sizeof(*sb));
		void *base = sb ? huge_map(SLAB_BYTES) : NULL;
		if (!base) {
			free(sb);
			return NULL;
		}
		sb->base = base;
		sb->len = SLAB_BYTES;
		sb->next = be->slabs;
		be->slabs = sb;
		be->slab_next = base;
		be->slab_end = (char *)base + SLAB_BYTES;
	}
	chunk *c = (chunk *)be->slab_next;
	be->slab_next += unit;
	c->slab = 1;
	return c;
}

/*
 * Why a chunk pool: every fired window frees its namespace's chunks and the
 * next window allocates as many again; glibc trims the freed heap top, so
 * each window re-faulted its pages (kernel page-fault time was ~5% of the
 * datagen window benchmark, perf).  Up to POOL_MAX chunks (4 MiB) stay
 * allocated for the next namespace.
 */
#define POOL_MAX 64

static inline size_t round16(size_t n) { return (n + 15) & ~(size_t)15; }
static inline uint32_t ent_klen(const entry *e) { return e->klen & ~DEAD; }
static inline char *ent_key(entry *e) { return (char *)e + 4; }
static inline size_t ent_koff(uint32_t klen) { return round16(4 + (size_t)klen); }
/* Map tables keep an entry's group links between its key and its value. */
static inline glink *ent_link(entry *e) { return (glink *)((char *)e + ent_koff(ent_klen(e))); }
static inline size_t ent_voff(const nsmap *m, entry *e) { return ent_koff(ent_klen(e)) + m->lk; }
static inline vhdr *ent_vhdr(const nsmap *m, entry *e)
{
	return (vhdr *)((char *)e + ent_voff(m, e));
}
static inline char *ent_val(const nsmap *m, entry *e)
{
	char *v = (char *)e + ent_voff(m, e);
	return m->val_size ? v : v + sizeof(vhdr);
}
static inline uint32_t ent_vlen(const nsmap *m, entry *e)
{
	return m->val_size ? m->val_size : ent_vhdr(m, e)->vlen;
}
static inline size_t ent_vcap(const nsmap *m, entry *e)
{
	return m->val_size ? round16(m->val_size) : ent_vhdr(m, e)->vcap;
}
static inline size_t ent_size(const nsmap *m, entry *e)
{
	size_t k = ent_voff(m, e);
	return m->val_size ? k + round16(m->val_size) : k + sizeof(vhdr) + ent_vhdr(m, e)->vcap;
}

/* ---- namespaces -------------------------------------------------------- */

/*
 * A new namespace starts with index capacity cap (a power of two >= 16).
 * Why: windows of one table hold about as many keys as the last one
 * dropped; starting at that size skips the 10 rehashes from 16 to 16 K
 * slots each window paid (datagen window benchmark, 10 000 keys/window).
 */
static nsmap *ns_new(sl_state_backend *be, int64_t ns, uint32_t cap, uint32_t val_size)
{
	if (cap == SPARE_CAP && be->spare) {
		nsmap *m = be->spare;
		be->spare = *(nsmap **)m;
		be->nspare--;
		chunk *c = m->first; /* kept: one FIRST_CHUNK chunk or none */
		uint32_t *h32 = m->h32;
		entry **slot = m->slot;
		memset(m, 0, sizeof(*m));
		m->ns = ns;
		m->val_size = val_size;
		m->mask = cap - 1;
		m->h32 = h32;
		m->slot = slot;
		m->first = m->last = c;
		m->bytes = (uint64_t)cap * 12 + sizeof(*m) + (c ? c->cap : 0);
		be->bytes += m->bytes;
		return m;
	}
	nsmap *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->ns = ns;
	m->val_size = val_size;
	m->mask = cap - 1;
	m->h32 = idx_alloc((size_t)cap * sizeof(uint32_t));
	m->slot = idx_alloc((size_t)cap * sizeof(entry *));
	if (!m->h32 || !m->slot) {
		idx_free(m->h32, (size_t)cap * sizeof(uint32_t));
		idx_free(m->slot, (size_t)cap * sizeof(entry *));
		free(m);
		return NULL;
	}
	m->bytes = (uint64_t)cap * 12 + sizeof(*m);
	be->bytes += m->bytes;
	return m;
}

static void ns_free(sl_state_backend *be, nsmap *m)
{
	be->bytes -= m->bytes;
	if (m->gh32) { /* a map table's namespace: never kept spare */
		idx_free(m->gh32, (size_t)(m->gmask + 1) * sizeof(uint32_t));
		idx_free(m->ghead, (size_t)(m->gmask + 1) * sizeof(entry *));
		m->gh32 = NULL;
		m->ghead = NULL;
	}
	if (m->mask + 1 == SPARE_CAP && !m->lk && be->nspare < SPARE_MAX &&
	    (!m->first || (m->first == m->last && m->first->cap == FIRST_CHUNK))) {
		memset(m->h32, 0, SPARE_CAP * sizeof(uint32_t));
		memset(m->slot, 0, SPARE_CAP * sizeof(entry *));
		if (m->first)
			m->first->used = 0;
		*(nsmap **)m = be->spare; /* the first field (ns) is dead now */
		be->spare = m;
		be->nspare++;
		return;
	}
	chunk *c = m->first;
	while (c) {
		chunk *n = c->next;
		if (c->slab || (c->cap == CHUNK_BYTES && be->npool < POOL_MAX)) {
			c->next = be->pool; /* slab chunks always return to the pool */
			be->pool = c;
			be->npool += !c->slab;
		} else {
			free(c);
		}
		c = n;
	}
	idx_free(m->h32, (size_t)(m->mask + 1) * sizeof(uint32_t));
	idx_free(m->slot, (size_t)(m->mask + 1) * sizeof(entry *));
	free(m);
}

static nsmap *ns_get_slow(sl_state_table *t, int64_t ns, int create);

/* Namespace ns of t (created when `create`), or NULL.  Why the cached
 * case inline: rows of a window mostly hit t->last, and the call was ~24
 * instructions a row of the window benchmarks (callgrind). */
static inline nsmap *ns_get(sl_state_table *t, int64_t ns, int create)
{
	if (t->last && t->last->ns == ns)
		return t->last;
	return ns_get_slow(t, ns, create);
}

/*
 * The namespaces are a B+tree (nsidx.h), not the sorted array they were.
 * Why: a timer table has a namespace per timer instant, and an interval
 * join over splits far apart in event time set each timer of one split
 * before the ~1 M namespaces of the other: the array's insert moved them
 * all (bench/stateful.sh's interval join at 2 M rows: over 100 CPU-s, 83%
 * memmove; docs/performance.md).
 */
static nsmap *ns_get_slow(sl_state_table *t, int64_t ns, int create)
{
	void **p = sl__nsidx_get(&t->nss, ns);
	if (p)
		return t->last = *p;
	if (!create)
		return NULL;
	nsmap *m = ns_new(t->be, ns, t->cap_hint ? t->cap_hint : 16, t->val_size);
	if (!m)
		return NULL;
	if (t->prefix) { /* a map table: links in every entry, an index of groups */
		m->gh32 = idx_alloc(16 * sizeof(uint32_t));
		m->ghead = idx_alloc(16 * sizeof(entry *));
		if (!m->gh32 || !m->ghead) {
			ns_free(t->be, m);
			return NULL;
		}
		m->gmask = 15;
		m->lk = sizeof(glink);
		m->bytes += 16 * 12;
		t->be->bytes += 16 * 12;
	}
	if (sl__nsidx_put(&t->nss, ns, m)) {
		ns_free(t->be, m);
		return NULL;
	}
	return t->last = m;
}

static void ns_remove(sl_state_table *t, nsmap *m)
{
	int found = sl__nsidx_del(&t->nss, m->ns, NULL);
	assert(found); /* m is one of t's namespaces */
	if (!found)
		return;
	if (t->last == m)
		t->last = NULL;
	t->count -= m->count;
	ns_free(t->be, m);
}

/* ---- entries ----------------------------------------------------------- */

static entry *ent_alloc(sl_state_backend *be, nsmap *m, uint32_t klen, uint32_t vcap)
{
	size_t vround = round16(vcap ? vcap : 1);
	size_t size = ent_koff(klen) + m->lk +
	              (m->val_size ? round16(m->val_size) : sizeof(vhdr) + vround);
	size_t cls = size / 16 - 1;
	int big = -1;
	if (!m->val_size && cls >= NFREE) {
		big = 0;
		while (((size_t)2048 << big) < size)
			big++;
		if (big >= NBIG)
			return NULL;
		size = (size_t)2048 << big;
		vround = size - ent_koff(klen) - m->lk - sizeof(vhdr);
	}
	entry *e;
	if (big < 0 && cls < NFREE && m->freel[cls]) {
		e = m->freel[cls];
		memcpy(&m->freel[cls], (char *)e + 8, sizeof(entry *));
	} else if (big >= 0 && m->freeb[big]) {
		e = m->freeb[big];
		memcpy(&m->freeb[big], (char *)e + 8, sizeof(entry *));
	} else {
		chunk *c = m->last;
		if (!c || c->used + size > c->cap) {
			/*
			 * A namespace's chunks start small and double up to
			 * CHUNK_BYTES.  Why: operators with one namespace per
			 * timer instant (the interval join's expiry timers:
			 * thousands live, one entry each) held a 64 KB chunk
			 * each: 248 MB peak RSS for 1 M rows, 36% of the time in
			 * the kernel zeroing pages.
			 */
			size_t want = c ? (c->cap * 2 < CHUNK_BYTES ? c->cap * 2 : CHUNK_BYTES)
			                : FIRST_CHUNK;
			size_t cap = size > want ? size : want;
			if (cap < CHUNK_BYTES && m->bytes >= CHUNK_BYTES)
				cap = CHUNK_BYTES; /* a big namespace (restored, or hinted) */
			if (cap == CHUNK_BYTES && be->pool) {
				c = be->pool;
				be->pool = c->next;
				be->npool -= !c->slab;
			} else if (cap == CHUNK_BYTES) {
				if (!(c = slab_chunk(be)))
					return NULL;
			} else if (!(c = malloc(sizeof(chunk) + cap + 16))) {
				return NULL;
			} else {
				c->slab = 0;
			}
			c->next = NULL;
			c->used = 0;
			c->cap = cap;
			c->data = (char *)round16((size_t)((char *)(c + 1)));
			if (m->last)
				m->last->next = c;
			else
				m->first = c;
			m->last = c;
			m->bytes += cap;
			be->bytes += cap;
		}
		e = (entry *)(c->data + c->used);
		c->used += size;
	}
	e->klen = klen;
	if (!m->val_size) {
		ent_vhdr(m, e)->vlen = vcap;
		ent_vhdr(m, e)->vcap = (uint32_t)vround;
	}
	return e;
}

static void ent_release(nsmap *m, entry *e)
{
	size_t size = ent_size(m, e);
	e->klen |= DEAD;
	size_t cls = size / 16 - 1;
	if (cls < NFREE) {
		/* at offset 8: inside the key's 16-byte block, never the vhdr */
		memcpy((char *)e + 8, &m->freel[cls], sizeof(entry *));
		m->freel[cls] = e;
	} else if (!m->val_size) { /* a power of two >= 2048 (ent_alloc) */
		int big = 0;
		while (((size_t)2048 << big) < size)
			big++;
		if (big < NBIG && ((size_t)2048 << big) == size) {
			memcpy((char *)e + 8, &m->freeb[big], sizeof(entry *));
			m->freeb[big] = e;
		}
	}
}

/* Doubles an open-addressing index of m (hashes *h, slots *s, mask
 * *mask: the entry index or the group index), moving every occupied
 * slot and charging the new bytes to m and be. */
static int index_grow(sl_state_backend *be, nsmap *m, uint32_t **h, entry ***s, uint32_t *mask)
{
	uint32_t ncap = (*mask + 1) * 2;
	uint32_t *nh = idx_alloc((size_t)ncap * sizeof(uint32_t));
	entry **ns = idx_alloc((size_t)ncap * sizeof(entry *));
	if (!nh || !ns) {
		idx_free(nh, (size_t)ncap * sizeof(uint32_t));
		idx_free(ns, (size_t)ncap * sizeof(entry *));
		return SL_ENOMEM;
	}
	uint32_t nmask = ncap - 1;
	for (uint32_t i = 0; i <= *mask; i++) {
		if (!(*h)[i])
			continue;
		uint32_t j = (*h)[i] & nmask;
		while (nh[j])
			j = (j + 1) & nmask;
		nh[j] = (*h)[i];
		ns[j] = (*s)[i];
	}
	uint64_t delta = (uint64_t)(ncap - (*mask + 1)) * 12;
	m->bytes += delta;
	be->bytes += delta;
	idx_free(*h, (size_t)(*mask + 1) * sizeof(uint32_t));
	idx_free(*s, (size_t)(*mask + 1) * sizeof(entry *));
	*h = nh;
	*s = ns;
	*mask = nmask;
	return 0;
}

static int grow(sl_state_backend *be, nsmap *m)
{
	return index_grow(be, m, &m->h32, &m->slot, &m->mask);
}

static inline uint32_t hash32(const void *key, uint32_t klen)
{
	return sl_state_hash(key, klen); /* operators pass the same hash to upsert_h */
}

/*
 * Key equality.  Why inline: group keys are short (9 bytes for a BIGINT,
 * 10 for "u7919"); the call to libc memcmp was 6-8% of the window
 * benchmarks (perf).  Keys up to 16 bytes compare as two overlapping
 * 8-byte loads.
 */
static inline int key_eq(const char *a, const char *b, uint32_t n)
{
	if (n >= 8 && n <= 16) {
		uint64_t a0, b0, a1, b1;
		memcpy(&a0, a, 8);
		memcpy(&b0, b, 8);
		memcpy(&a1, a + n - 8, 8);
		memcpy(&b1, b + n - 8, 8);
		return ((a0 ^ b0) | (a1 ^ b1)) == 0;
	}
	return n == 0 || memcmp(a, b, n) == 0; /* an empty key may come as NULL */
}

/* Slot index of key in m, or -1. */
static long lookup(const nsmap *m, const void *key, uint32_t klen, uint32_t h)
{
	uint32_t i = h & m->mask;
	for (;;) {
		uint32_t s = m->h32[i];
		if (!s)
			return -1;
		if (s == h) {
			entry *e = m->slot[i];
			if (e->klen == klen && key_eq(ent_key(e), key, klen))
				return (long)i;
		}
		i = (i + 1) & m->mask;
	}
}

/*
 * The key's bytes into a new entry, and its value cleared.  Why not
 * memcpy/memset: group keys are a few bytes and accumulators a few dozen,
 * and the two libc calls were ~45 instructions of each insert (callgrind,
 * bench 4: three rows in four create an entry).  The key's room is
 * rounded up to 16 after the 4-byte header (ent_koff), so a key of 8..12
 * bytes is two overlapping 8-byte copies that stay inside it; values are
 * 16-byte multiples.
 */
static inline void copy_key(char *d, const void *key, uint32_t klen)
{
	const char *k = key;
	if (klen >= 8 && klen <= 16) {
		uint64_t a, b;
		memcpy(&a, k, 8);
		memcpy(&b, k + klen - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + klen - 8, &b, 8);
	} else if (klen) { /* the empty key of a global aggregate may come as NULL */
		memcpy(d, k, klen);
	}
}

static inline void zero_val(char *v, size_t n)
{
	sl_zero16n(v, n); /* straight stores up to 64 bytes: a loop of 16-byte
	                   * stores was ~14 instructions an insert (callgrind) */
}

/* ---- map tables: groups of entries by key prefix ----------------------- */

/*
 * A map table (sl_state_table_set_prefix) links the entries of each key
 * prefix (a group: the map of one key) in a list, in creation order: the
 * head's prev is the tail, the tail's next NULL.  A second open-addressing
 * index per namespace finds a group's head by the prefix's hash; a
 * group's prefix is read from its head's key, so the index holds no key
 * bytes.  Adding or removing an entry is O(1) (a tail removal looks the
 * head up), and sl_state_prefix_scan walks only the group.
 */

/* The prefix of key (the table's pk function, from the key alone). */
static inline uint32_t key_prefix(const sl_state_table *t, const char *key, uint32_t klen,
                                  const void **p)
{
	uint32_t n = t->pk.fn(t->pk.ctx, key, klen, NULL, 0, p);
	return n <= klen ? n : klen;
}

/* Index of the group of prefix p[0..n) (hash h) in m, or -1. */
static long group_find(const sl_state_table *t, const nsmap *m, const void *p, uint32_t n,
                       uint32_t h)
{
	uint32_t i = h & m->gmask;
	for (;;) {
		uint32_t s = m->gh32[i];
		if (!s)
			return -1;
		if (s == h) {
			entry *e = m->ghead[i];
			const void *q;
			uint32_t qn = key_prefix(t, ent_key(e), ent_klen(e), &q);
			if (qn == n && key_eq(q, p, n))
				return (long)i;
		}
		i = (i + 1) & m->gmask;
	}
}

static int group_grow(sl_state_backend *be, nsmap *m)
{
	return index_grow(be, m, &m->gh32, &m->ghead, &m->gmask);
}

/* Adds new entry e at the tail of its group (a new group when none); the
 * group index has room for one more (insert grew it). */
static void group_add(sl_state_table *t, nsmap *m, entry *e)
{
	const void *p;
	uint32_t n = key_prefix(t, ent_key(e), ent_klen(e), &p);
	uint32_t h = sl_state_hash(p, n);
	glink *l = ent_link(e);
	l->next = NULL;
	long i = group_find(t, m, p, n, h);
	if (i >= 0) {
		entry *head = m->ghead[i];
		glink *hl = ent_link(head);
		ent_link(hl->prev)->next = e;
		l->prev = hl->prev;
		hl->prev = e;
		return;
	}
	uint32_t j = h & m->gmask;
	while (m->gh32[j])
		j = (j + 1) & m->gmask;
	m->gh32[j] = h;
	m->ghead[j] = e;
	m->gcount++;
	l->prev = e;
}

/* 1 when e heads its group. */
static inline int group_is_head(entry *e)
{
	return ent_link(ent_link(e)->prev)->next != e;
}

/* Unlinks entry e (about to be released) from its group. */
static void group_del(sl_state_table *t, nsmap *m, entry *e)
{
	glink *l = ent_link(e);
	const void *p;
	uint32_t n;
	long i;
	if (!group_is_head(e)) {
		entry *prev = l->prev;
		ent_link(prev)->next = l->next;
		if (l->next) {
			ent_link(l->next)->prev = prev;
			return;
		}
		/* e was the tail: the head's prev moves back */
		n = key_prefix(t, ent_key(e), ent_klen(e), &p);
		i = group_find(t, m, p, n, sl_state_hash(p, n));
		assert(i >= 0);
		if (i >= 0)
			ent_link(m->ghead[i])->prev = prev;
		return;
	}
	n = key_prefix(t, ent_key(e), ent_klen(e), &p);
	i = group_find(t, m, p, n, sl_state_hash(p, n));
	assert(i >= 0 && m->ghead[i] == e);
	if (i < 0)
		return;
	if (l->next) { /* the next entry heads the group */
		ent_link(l->next)->prev = l->prev;
		m->ghead[i] = l->next;
		return;
	}
	/* the group's last entry: backward-shift deletion of slot i */
	m->gcount--;
	uint32_t a = (uint32_t)i, b = a;
	for (;;) {
		b = (b + 1) & m->gmask;
		if (!m->gh32[b])
			break;
		uint32_t home = m->gh32[b] & m->gmask;
		int in_range = (a <= b) ? (home > a && home <= b) : (home > a || home <= b);
		if (in_range)
			continue;
		m->gh32[a] = m->gh32[b];
		m->ghead[a] = m->ghead[b];
		a = b;
	}
	m->gh32[a] = 0;
	m->ghead[a] = NULL;
}

static entry *insert(sl_state_table *t, nsmap *m, const void *key, uint32_t klen, uint32_t h,
                     uint32_t vlen)
{
	assert(klen < DEAD); /* the header's top bit marks deleted entries */
	if ((m->count + 1) * 4 > (m->mask + 1) * 3 && grow(t->be, m))
		return NULL;
	if (m->lk && (m->gcount + 1) * 4 > (m->gmask + 1) * 3 && group_grow(t->be, m))
		return NULL;
	entry *e = ent_alloc(t->be, m, klen, vlen);
	if (!e)
		return NULL;
	copy_key(ent_key(e), key, klen);
	zero_val(ent_val(m, e), ent_vcap(m, e));
	uint32_t i = h & m->mask;
	while (m->h32[i])
		i = (i + 1) & m->mask;
	m->h32[i] = h;
	m->slot[i] = e;
	m->count++;
	t->count++;
	if (m->lk)
		group_add(t, m, e);
	return e;
}

/* Backward-shift deletion of slot i. */
static void remove_slot(sl_state_table *t, nsmap *m, uint32_t i)
{
	if (m->lk)
		group_del(t, m, m->slot[i]);
	ent_release(m, m->slot[i]);
	m->count--;
	t->count--;
	uint32_t j = i;
	for (;;) {
		j = (j + 1) & m->mask;
		if (!m->h32[j])
			break;
		uint32_t home = m->h32[j] & m->mask;
		/* can the entry at j move to i? yes if home is not in (i, j] cyclically */
		int in_range = (i <= j) ? (home > i && home <= j) : (home > i || home <= j);
		if (in_range)
			continue;
		m->h32[i] = m->h32[j];
		m->slot[i] = m->slot[j];
		i = j;
	}
	m->h32[i] = 0;
	m->slot[i] = NULL;
}

/* ---- the method table's functions -------------------------------------- */


static void table_clear(sl_state_table *t)
{
	sl_nsidx_it it;
	void *m;
	for (sl__nsidx_begin(&t->nss, &it); sl__nsidx_it_next(&it, NULL, &m);)
		ns_free(t->be, m);
	sl__nsidx_deinit(&t->nss);
	t->count = 0;
	t->last = NULL;
}

static void mem_close(sl_state_backend *be)
{
	if (!be)
		return;
	sl_state_table *t = be->tables;
	while (t) {
		sl_state_table *n = t->next;
		table_clear(t);
		free(t->name);
		free(t);
		t = n;
	}
	while (be->spare) {
		nsmap *m = be->spare;
		be->spare = *(nsmap **)m;
		m->mask = 0;  /* not SPARE_CAP: ns_free frees it */
		m->bytes = 0; /* subtracted when it became spare */
		ns_free(be, m);
	}
	while (be->pool) {
		chunk *c = be->pool;
		be->pool = c->next;
		if (!c->slab)
			free(c);
	}
	while (be->slabs) {
		slab *sb = be->slabs;
		be->slabs = sb->next;
		munmap(sb->base, sb->len);
		free(sb);
	}
	free(be);
}

static sl_state_table *table_find(sl_state_backend *be, const char *full)
{
	for (sl_state_table *t = be->tables; t; t = t->next)
		if (strcmp(t->name, full) == 0)
			return t;
	return NULL;
}

static sl_state_table *table_create(sl_state_backend *be, const char *full, uint32_t val_size)
{
	sl_state_table *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->name = strdup(full);
	if (!t->name) {
		free(t);
		return NULL;
	}
	t->vt = be->vt;
	t->val_size = val_size;
	t->be = be;
	/* append, so snapshots list tables in creation order */
	sl_state_table **pp = &be->tables;
	while (*pp)
		pp = &(*pp)->next;
	*pp = t;
	return t;
}

static sl_state_table *mem_table_open(sl_state_backend *be, const char *op_uid,
                                      const char *name, uint32_t val_size, sl_err *err)
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

/*
 * Why: with 10 000 keys per window the index slot and the entry of a
 * random key are cache misses; lookup() was 34% of the datagen window
 * benchmark (perf, 5 M rows), nearly all of it waiting on e->klen.  The
 * window operator announces the keys of rows a few positions ahead, so
 * their index slots and entries are in cache when it reaches them.
 * Stage 0 touches the index slot; stage 1 (called later for the same key)
 * reads the now-cached slot and touches the entry it points at.
 */
static void mem_prefetch(sl_state_table *t, int64_t ns, uint32_t hash, int stage)
{
	nsmap *m = t->last && t->last->ns == ns ? t->last : ns_get(t, ns, 0);
	if (!m)
		return;
	if (stage >= 2) { /* a map table's group of a prefix with this hash */
		if (!m->lk)
			return;
		uint32_t g = hash & m->gmask;
		if (stage == 2) {
			__builtin_prefetch(&m->gh32[g]);
			__builtin_prefetch(&m->ghead[g]);
		} else if (m->gh32[g]) {
			__builtin_prefetch(m->ghead[g]);
		}
		return;
	}
	uint32_t i = hash & m->mask;
	if (stage == 0) {
		__builtin_prefetch(&m->h32[i]);
		__builtin_prefetch(&m->slot[i]);
	} else if (m->h32[i]) {
		__builtin_prefetch(m->slot[i]);
	}
}

static void *mem_upsert_h(sl_state_table *t, int64_t ns, const void *key, uint32_t klen,
                          uint32_t h, int *created)
{
	assert(t->val_size); /* a fixed-size table */
	nsmap *m = ns_get(t, ns, 1);
	if (!m)
		return NULL;
	long i = lookup(m, key, klen, h);
	if (i >= 0) {
		if (created)
			*created = 0;
		return ent_val(m, m->slot[i]);
	}
	entry *e = insert(t, m, key, klen, h, t->val_size);
	if (!e)
		return NULL;
	if (created)
		*created = 1;
	return ent_val(m, e);
}

static void *mem_get(sl_state_table *t, int64_t ns, const void *key, uint32_t klen)
{
	assert(t->val_size); /* a fixed-size table */
	nsmap *m = ns_get(t, ns, 0);
	if (!m)
		return NULL;
	long i = lookup(m, key, klen, hash32(key, klen));
	return i >= 0 ? ent_val(m, m->slot[i]) : NULL;
}

static int mem_get_var(sl_state_table *t, int64_t ns, const void *key, uint32_t klen,
                       const void **val, uint32_t *vlen)
{
	assert(!t->val_size); /* a variable-length table */
	nsmap *m = ns_get(t, ns, 0);
	if (!m)
		return 0;
	long i = lookup(m, key, klen, hash32(key, klen));
	if (i < 0)
		return 0;
	*val = ent_val(m, m->slot[i]);
	*vlen = ent_vlen(m, m->slot[i]);
	return 1;
}

static int mem_put_var(sl_state_table *t, int64_t ns, const void *key, uint32_t klen,
                       const void *val, uint32_t vlen)
{
	assert(!t->val_size); /* a variable-length table */
	nsmap *m = ns_get(t, ns, 1);
	if (!m)
		return SL_ENOMEM;
	uint32_t h = hash32(key, klen);
	long i = lookup(m, key, klen, h);
	entry *e;
	if (i >= 0 && ent_vcap(m, m->slot[i]) >= vlen) {
		e = m->slot[i];
	} else {
		if (i >= 0)
			remove_slot(t, m, (uint32_t)i);
		e = insert(t, m, key, klen, h, vlen);
		if (!e)
			return SL_ENOMEM;
	}
	if (!m->val_size)
		ent_vhdr(m, e)->vlen = vlen;
	if (vlen)
		memcpy(ent_val(m, e), val, vlen);
	return 0;
}

/* Copies n bytes rounded up to 16 (values' room is 16-byte multiples).
 * Why not memcpy: n is not a constant, and the libc calls that copied a
 * join's 16-byte count in and out cost Nexmark q20 25 M instructions
 * (callgrind, 200 000 events: 647.7 M with memcpy/memset, 622.7 M with
 * these). */
static inline void copy16(char *d, const char *s, uint32_t n)
{
	for (uint32_t i = 0; i < n; i += 16)
		memcpy(d + i, s + i, 16);
}

/* One lookup (sl_state_update_var): the callback changes a copy of the
 * value, written back in place; a new entry is inserted with the hash
 * computed once. */
static int mem_update_var(sl_state_table *t, int64_t ns, const void *key, uint32_t klen,
                          uint32_t vlen, sl_state_update_cb cb, void *ctx)
{
	assert(!t->val_size); /* a variable-length table */
	if (vlen == 0 || vlen > SL_STATE_UPDATE_MAX)
		return SL_EINVAL;
	nsmap *m = ns_get(t, ns, 0);
	uint32_t h = hash32(key, klen);
	long i = m ? lookup(m, key, klen, h) : -1;
	int rc;
	char buf[SL_STATE_UPDATE_MAX] __attribute__((aligned(16))); /* a failing callback changes nothing */
	if (i >= 0) {
		entry *e = m->slot[i];
		if (ent_vlen(m, e) != vlen)
			return SL_ESTATE;
		copy16(buf, ent_val(m, e), vlen);
		if ((rc = cb(ctx, buf, vlen, 1)) < 0)
			return rc;
		if (rc)
			copy16(ent_val(m, e), buf, vlen);
		else
			remove_slot(t, m, (uint32_t)i);
		return 0;
	}
	zero_val(buf, vlen);
	if ((rc = cb(ctx, buf, vlen, 0)) <= 0)
		return rc;
	if (!m && !(m = ns_get(t, ns, 1)))
		return SL_ENOMEM;
	entry *e = insert(t, m, key, klen, h, vlen);
	if (!e)
		return SL_ENOMEM;
	if (!m->val_size)
		ent_vhdr(m, e)->vlen = vlen;
	copy16(ent_val(m, e), buf, vlen);
	return 0;
}

static void mem_delete(sl_state_table *t, int64_t ns, const void *key, uint32_t klen)
{
	nsmap *m = ns_get(t, ns, 0);
	if (!m)
		return;
	long i = lookup(m, key, klen, hash32(key, klen));
	if (i < 0)
		return;
	remove_slot(t, m, (uint32_t)i);
	if (m->count == 0)
		ns_remove(t, m);
}

static int mem_ns_first(sl_state_table *t, int64_t *ns)
{
	return sl__nsidx_first(&t->nss, ns, NULL);
}

static int mem_ns_next(sl_state_table *t, int64_t after, int64_t *ns)
{
	return sl__nsidx_next(&t->nss, after, ns, NULL);
}

static int scan_map(nsmap *m, sl_state_scan_cb cb, void *ctx, sl_err *err)
{
	for (chunk *c = m->first; c; c = c->next) {
		size_t off = 0;
		while (off < c->used) {
			entry *e = (entry *)(c->data + off);
			off += ent_size(m, e);
			if (e->klen & DEAD)
				continue;
			int rc = cb(ctx, ent_key(e), e->klen, ent_val(m, e), ent_vlen(m, e), err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int mem_ns_scan(sl_state_table *t, int64_t ns, sl_state_scan_cb cb, void *ctx,
                       sl_err *err)
{
	nsmap *m = ns_get(t, ns, 0);
	return m ? scan_map(m, cb, ctx, err) : 0;
}

static int mem_scan(sl_state_table *t, sl_state_scan_cb cb, void *ctx, sl_err *err)
{
	sl_nsidx_it it;
	void *m;
	for (sl__nsidx_begin(&t->nss, &it); sl__nsidx_it_next(&it, NULL, &m);) {
		int rc = scan_map(m, cb, ctx, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* A map namespace made before the table became one (set_prefix on a
 * table holding entries) has no groups: its scan is filtered. */
typedef struct pfx_filter {
	const sl_state_table *t;
	const void *p;
	uint32_t n;
	sl_state_scan_cb cb;
	void *ctx;
} pfx_filter;

static int pfx_filter_cb(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                         sl_err *err)
{
	pfx_filter *f = ctx;
	const void *q;
	uint32_t n = key_prefix(f->t, key, klen, &q);
	if (n != f->n || !key_eq(q, f->p, n))
		return 0;
	return f->cb(f->ctx, key, klen, val, vlen, err);
}

static int mem_prefix_scan(sl_state_table *t, int64_t ns, const void *prefix, uint32_t plen,
                           sl_state_scan_cb cb, void *ctx, sl_err *err)
{
	nsmap *m = ns_get(t, ns, 0);
	if (!m)
		return 0;
	if (!m->lk) {
		pfx_filter f = {t, prefix, plen, cb, ctx};
		return t->pk.fn ? scan_map(m, pfx_filter_cb, &f, err) : 0;
	}
	long i = group_find(t, m, prefix, plen, sl_state_hash(prefix, plen));
	if (i < 0)
		return 0;
	for (entry *e = m->ghead[i]; e; e = ent_link(e)->next) {
		int rc = cb(ctx, ent_key(e), ent_klen(e), ent_val(m, e), ent_vlen(m, e), err);
		if (rc)
			return rc;
	}
	return 0;
}

static void mem_ns_drop(sl_state_table *t, int64_t ns)
{
	nsmap *m = ns_get(t, ns, 0);
	if (!m)
		return;
	/* the next namespace's index: room for this one's keys at <= 75% */
	uint32_t cap = 16;
	while (cap < (1u << 30) && (uint64_t)m->count * 4 > (uint64_t)cap * 3)
		cap *= 2;
	t->cap_hint = cap;
	ns_remove(t, m);
}

static uint64_t mem_count(const sl_state_table *t)
{
	return t->count;
}

static uint64_t mem_ns_count(const sl_state_table *t, int64_t ns)
{
	/* a lookup changes nothing but the index's work counter */
	void **p = sl__nsidx_get((sl_nsidx *)&t->nss, ns);
	return p ? ((nsmap *)*p)->count : 0;
}

static uint64_t mem_op_size(const sl_state_backend *be, const char *op_uid, uint64_t *entries)
{
	size_t n = strlen(op_uid);
	uint64_t bytes = 0;
	for (const sl_state_table *t = be->tables; t; t = t->next)
		if (!strncmp(t->name, op_uid, n) && t->name[n] == '/') {
			*entries += t->count;
			sl_nsidx_it it;
			void *m;
			for (sl__nsidx_begin(&t->nss, &it); sl__nsidx_it_next(&it, NULL, &m);)
				bytes += ((const nsmap *)m)->bytes;
		}
	return bytes;
}

static uint64_t mem_mem(const sl_state_backend *be)
{
	return be->bytes;
}

static int mem_flush(sl_state_backend *be, sl_err *err)
{
	return 0;
}

/* ---- snapshot / restore ------------------------------------------------ */

static void mem_set_pkey(sl_state_table *t, sl_state_pkey_fn fn, const void *ctx)
{
	t->pk.fn = fn;
	t->pk.ctx = ctx;
}

/* Namespaces made from now on are map namespaces (links and groups);
 * existing ones (none when called at open, as state.h asks) are scanned
 * with a filter by mem_prefix_scan. */
static void mem_set_prefix(sl_state_table *t, sl_state_pkey_fn fn, const void *ctx)
{
	t->pk.fn = fn;
	t->pk.ctx = ctx;
	t->prefix = fn != NULL;
}

/*
 * Snapshots group each table's entries by key group (docs/state.md "Key
 * groups"): the group of every entry is computed here, from its
 * partitioning key, and the grouper orders them.  Runs in the forked
 * child at a checkpoint, so the job thread does not pay for it.
 */
typedef struct snap_ctx {
	sl_snap_grouper *gr;
	const sl_state_table *t;
	int64_t ns;
} snap_ctx;

static int snap_entry(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                      sl_err *err)
{
	snap_ctx *s = ctx;
	int kg = sl_state_pkey_group(&s->t->pk, key, klen, val, vlen, s->gr->maxp);
	return sl_snap_grouper_add(s->gr, kg, s->ns, key, klen, val, vlen, err);
}

/*
 * A map namespace's entries group by group (heads in creation order, each
 * group in its order), so that a restore, which inserts in this order,
 * gives every group its order back and prefix scans visit the entries of
 * a key as the uninterrupted job did.
 */
static int scan_groups(nsmap *m, sl_state_scan_cb cb, void *ctx, sl_err *err)
{
	for (chunk *c = m->first; c; c = c->next) {
		size_t off = 0;
		while (off < c->used) {
			entry *h = (entry *)(c->data + off);
			off += ent_size(m, h);
			if ((h->klen & DEAD) || !group_is_head(h))
				continue;
			for (entry *e = h; e; e = ent_link(e)->next) {
				int rc = cb(ctx, ent_key(e), e->klen, ent_val(m, e), ent_vlen(m, e), err);
				if (rc)
					return rc;
			}
		}
	}
	return 0;
}

static int mem_snapshot(sl_state_backend *be, const char *op_uid, sl_snap_writer *w, sl_err *err)
{
	size_t plen = op_uid ? strlen(op_uid) : 0;
	for (sl_state_table *t = be->tables; t; t = t->next) {
		if (op_uid && (strncmp(t->name, op_uid, plen) != 0 || t->name[plen] != '/'))
			continue;
		sl_snap_grouper gr;
		/* ordered: a restore of every group gives back the scan order */
		int rc = sl_snap_grouper_init(&gr, be->kgs.maxp, NULL, 1, err);
		snap_ctx s = {&gr, t, 0};
		sl_nsidx_it it;
		void *p;
		for (sl__nsidx_begin(&t->nss, &it); !rc && sl__nsidx_it_next(&it, &s.ns, &p);) {
			nsmap *m = p;
			rc = m->lk ? scan_groups(m, snap_entry, &s, err) : scan_map(m, snap_entry, &s, err);
		}
		if (!rc)
			rc = sl_snap_grouper_finish(&gr, w, t->name, t->val_size, err);
		sl_snap_grouper_deinit(&gr);
		if (rc)
			return rc;
	}
	sl_snap_put_end(w);
	if (w->failed)
		return sl_err_set(err, SL_ENOMEM, "out of memory writing a state snapshot");
	return 0;
}

/* Loads the entries of the backend's groups of table record st. */
static int restore_table(sl_state_backend *be, sl_snap_tab *st, sl_snap_reader *r, int merge,
                         sl_err *err)
{
	const char *full = st->name;
	uint32_t val_size = st->val_size;
	int first, last, compute;
	int rc = sl__state_kg_check(&be->kgs, st, &first, &last, &compute, err);
	if (rc)
		return rc;
	sl_state_table *t = table_find(be, full);
	if (t && t->val_size != val_size)
		return sl_err_set(err, SL_ESTATE, "state table '%s': value size %u in snapshot, %u now",
		                  full, val_size, t->val_size);
	if (!t && !(t = table_create(be, full, val_size)))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (!merge)
		table_clear(t);
	int64_t count = sl_snap_tab_count_in(r, st, first, last), i = 0;
	for (;; i++) {
		int64_t ns;
		size_t klen, vlen;
		const void *key, *val;
		int kg;
		rc = sl_snap_tab_next(r, st, first, last, &kg, &ns, &key, &klen, &val, &vlen, err);
		if (rc <= 0)
			return rc;
		if (compute) {
			kg = sl_state_pkey_group(&t->pk, key, (uint32_t)klen, val, (uint32_t)vlen,
			                         be->kgs.maxp);
			if (kg < first || kg > last)
				continue;
		}
		nsmap *m = ns_get(t, ns, 1);
		/* namespace 0 (non-windowed state) gets its final index size at
		 * once instead of doubling ~20 times: restore of 12 M keys spent
		 * its time re-inserting on every growth */
		while (m && ns == 0 && i == 0 &&
		       (uint64_t)(m->mask + 1) * 3 / 4 < (uint64_t)(count + m->count) &&
		       m->mask < 0x7fffffffu && !grow(be, m))
			;
		uint32_t h = hash32(key, (uint32_t)klen);
		/* no duplicate probe: the checkpoint's CRC32C already vouches for
		 * the bytes, and a crafted duplicate only adds an unreachable entry
		 * (the probe was half of a 12 M-key restore's time); merged
		 * snapshots hold disjoint groups */
		if (!m)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		entry *e = insert(t, m, key, (uint32_t)klen, h, (uint32_t)vlen);
		if (!e)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		if (vlen)
			memcpy(ent_val(m, e), val, vlen);
	}
}

static int mem_restore(sl_state_backend *be, sl_snap_reader *r, int merge, sl_err *err)
{
	sl_snap_tab st;
	int rc;
	while ((rc = sl_snap_get_tab(r, &st, err)) == 1) {
		rc = restore_table(be, &st, r, merge, err);
		sl_snap_tab_deinit(&st);
		if (rc)
			return rc;
	}
	return rc;
}

/* Huge-page regions: every slab and every index array of BIG_BYTES or
 * more (both come from huge_map). */
static void mem_regions(sl_state_backend *be, void (*cb)(void *ctx, void *base, size_t len),
                        void *ctx)
{
	for (slab *sb = be->slabs; sb; sb = sb->next)
		cb(ctx, sb->base, sb->len);
	for (sl_state_table *t = be->tables; t; t = t->next) {
		sl_nsidx_it it;
		void *p;
		for (sl__nsidx_begin(&t->nss, &it); sl__nsidx_it_next(&it, NULL, &p);) {
			nsmap *m = p;
			size_t cap = (size_t)m->mask + 1, gcap = m->gh32 ? (size_t)m->gmask + 1 : 0;
			size_t bytes[4] = {cap * sizeof(uint32_t), cap * sizeof(entry *),
			                   gcap * sizeof(uint32_t), gcap * sizeof(entry *)};
			void *base[4] = {m->h32, m->slot, m->gh32, m->ghead};
			for (int j = 0; j < 4; j++)
				if (bytes[j] >= BIG_BYTES)
					cb(ctx, base[j],
					   (bytes[j] + SLAB_BYTES - 1) & ~(size_t)(SLAB_BYTES - 1));
		}
	}
}

static const sl_state_vt mem_vt = {
	.name = "hashmap",
	.can_fork = 1,
	.close = mem_close,
	.table_open = mem_table_open,
	.upsert_h = mem_upsert_h,
	.prefetch = mem_prefetch,
	.get = mem_get,
	.get_var = mem_get_var,
	.put_var = mem_put_var,
	.update_var = mem_update_var,
	.del = mem_delete,
	.ns_first = mem_ns_first,
	.ns_next = mem_ns_next,
	.ns_scan = mem_ns_scan,
	.scan = mem_scan,
	.ns_drop = mem_ns_drop,
	.count = mem_count,
	.mem = mem_mem,
	.ns_count = mem_ns_count,
	.op_size = mem_op_size,
	.flush = mem_flush,
	.snapshot = mem_snapshot,
	.restore = mem_restore,
	.set_pkey = mem_set_pkey,
	.regions = mem_regions,
	.set_prefix = mem_set_prefix,
	.prefix_scan = mem_prefix_scan,
};

/* Opens an empty memory backend (state.c's registry calls it; opts and
 * job_dir are unused).  Returns 0 or SL_ENOMEM. */
int sl__state_mem_open(const struct sl_opts *opts, const char *job_dir, sl_state_backend **out,
                       sl_err *err)
{
	sl_state_backend *be = calloc(1, sizeof(*be));
	if (!be)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	be->vt = &mem_vt;
	sl__state_kgs_init(&be->kgs);
	*out = be;
	return 0;
}

uint64_t sl__state_mem_ns_work(const sl_state_table *t)
{
	return t->nss.work;
}
