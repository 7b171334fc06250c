/*
 * ltab.h - the partial accumulators of a two-phase window aggregate's
 * local stage (op_window_agg.c, docs/parallel.md §11): per open window
 * (its end), one fixed-size accumulator slot per encoded GROUP BY key, in
 * memory only, emptied window by window.
 *
 * Why not a state table (state.h): the local stage's entries live from a
 * window's first row to its flush (a watermark, a barrier), are never
 * snapshotted, never need key groups, and are all replaced every window.
 * The memory backend's table grew a new namespace map per window (its
 * index rehashed as it grew to the window's keys) and spent about 140
 * instructions an insert (callgrind, the datagen window benchmark at
 * parallelism 2); here a window's arrays are kept when it is flushed and
 * reused by the next window, so steady state allocates nothing and an
 * insert is an append.
 *
 * A window appends its entries (key length, key, slot; 16-byte aligned,
 * slot_size a multiple of 16) to one buffer, and indexes them with an
 * open-addressing table (load at most 1/2, linear probing) of 8-byte
 * slots holding the key's hash beside the entry's offset, so a probe
 * reads one index line and, on a hash match, the entry's own lines (key
 * and slot together), which the fold then writes.  Entries are visited
 * in insertion order.  One thread; a slot pointer is valid until the next
 * upsert.
 */
#ifndef SL_LTAB_H
#define SL_LTAB_H

#include <stdint.h>
#include <string.h>

#include "../base/buf.h"

typedef struct sl_lwin {
	int64_t end;         /* the window's end (UTC instant) */
	uint32_t n;          /* entries */
	uint32_t mask;       /* index slots - 1 */
	uint64_t *idx;       /* per index slot: hash << 32 | (entry offset / 16
	                      * + 1); 0 = free */
	char *ent;           /* the entries, appended: [u32 klen][key][pad to
	                      * 16][slot], each 16-byte aligned (the record,
	                      * below) */
	uint32_t *hv;        /* per entry, in insertion order: its key's hash */
	uint32_t hcap;       /* entries hv has room for */
	size_t len, cap;     /* bytes of ent used, allocated */
	uint64_t touched;    /* sl_ltab.clock at its last upsert */
} sl_lwin;

typedef struct sl_ltab {
	uint32_t slot_size;  /* a multiple of 16 */
	sl_lwin **win;       /* open windows, ascending end */
	int nwin, capwin;
	sl_lwin **pool;      /* emptied windows, for reuse */
	int npool;
	sl_lwin *last;       /* the window of the last upsert */
	uint64_t count;      /* entries over all windows */
	uint64_t clock;      /* advanced by the caller (sl_ltab_tick) */
} sl_ltab;

/* The most emptied windows kept for reuse (the rest are freed). */
#define SL_LTAB_POOL 8

/* Initializes an empty table of slot_size-byte slots. */
void sl_ltab_init(sl_ltab *t, uint32_t slot_size);

/* Frees everything.  Safe on a zero-filled table and twice. */
void sl_ltab_deinit(sl_ltab *t);

/* The slot of (end, key[0..klen)), whose hash is h (sl_state_hash):
 * zeroed when new.  NULL when out of memory. */
void *sl_ltab_upsert(sl_ltab *t, int64_t end, const void *key, uint32_t klen, uint32_t h);

/*
 * A hint that (end, a key of hash h) will be upserted soon: stage 0 loads
 * its index slot, stage 1 (some rows later) the entry the slot names
 * (its key and accumulator).  Only for the window of the last upsert
 * (rows come mostly in time order).  Why: a window of 10 000 keys spans
 * about 700 KB; without it sl_ltab_upsert was 40% of the cycles of the
 * datagen benchmark's local stage (perf), at 66 instructions a row.
 */
/* A prefetch the compiler keeps.  Why not __builtin_prefetch alone: GCC 12
 * at -O2 deleted every one of them here (inlined, the address computed by
 * loads with no other use: the assembly of local_process had none). */
static inline void sl_ltab_pf(const void *p)
{
#if defined(__x86_64__)
	__asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p);
#endif
}

static inline void sl_ltab_prefetch(const sl_ltab *t, int64_t end, uint32_t h, int stage)
{
	const sl_lwin *w = t->last;
	if (!w || w->end != end)
		return;
	uint32_t i = h & w->mask;
	if (stage == 0) {
		sl_ltab_pf(&w->idx[i]);
		return;
	}
	uint64_t v = w->idx[i];
	if (v && (uint32_t)(v >> 32) == h) {
		const char *e = w->ent + ((size_t)(uint32_t)v - 1) * 16;
		sl_ltab_pf(e);
		sl_ltab_pf(e + 64);
	}
}

/* The smallest open window end: 1 and *end, or 0 when empty. */
static inline int sl_ltab_first(const sl_ltab *t, int64_t *end)
{
	if (!t->nwin)
		return 0;
	*end = t->win[0]->end;
	return 1;
}

/*
 * The record of an entry: [u32 klen, native order][key][zero bytes
 * to a multiple of 16][slot], sl_ltab_head(klen) + slot_size bytes.  It is
 * also the partial's accumulator value that the local stage sends the
 * global stage (op_window_agg.c, docs/parallel.md §11), which reads the
 * key and the slot out of it with sl_ltab_head: the encoded key travels
 * with the accumulators, so the global stage does not encode it again.
 */
static inline uint32_t sl_ltab_head(uint32_t klen)
{
	return (4 + klen + 15) & ~(uint32_t)15;
}

/*
 * 1 when keys a and b of klen bytes are equal.  Why not memcmp alone: the
 * keys are mostly 9 bytes (a BIGINT key) or a short string's, and the
 * libc call was 15 instructions a row of the datagen benchmark's local
 * stage (callgrind); two overlapping 8-byte loads compare 8..16 bytes.
 */
static inline int sl_ltab_key_eq(const char *a, const char *b, uint32_t klen)
{
	if (klen >= 8 && klen <= 16) {
		uint64_t a0, b0, a1, b1;
		memcpy(&a0, a, 8);
		memcpy(&b0, b, 8);
		memcpy(&a1, a + klen - 8, 8);
		memcpy(&b1, b + klen - 8, 8);
		return a0 == b0 && a1 == b1;
	}
	return !memcmp(a, b, klen);
}

/*
 * sl_ltab_upsert, with its most common case inline: the key is already
 * in the window of the last upsert, in the index slot its hash names
 * first.  Why: the call and the window check were ~20 instructions of
 * each of the local stage's rows (callgrind, bench-par's file job), most
 * of whose rows fold into an entry that exists.
 */
static inline void *sl_ltab_upsert_inl(sl_ltab *t, int64_t end, const void *key, uint32_t klen,
                                       uint32_t h)
{
	sl_lwin *w = t->last;
	if (w && w->end == end) {
		uint64_t v = w->idx[h & w->mask];
		if (v && (uint32_t)(v >> 32) == h) {
			char *e = w->ent + ((size_t)(uint32_t)v - 1) * 16;
			uint32_t el;
			memcpy(&el, e, 4);
			if (el == klen && sl_ltab_key_eq(e + 4, key, klen)) {
				w->touched = t->clock;
				return e + sl_ltab_head(klen);
			}
		}
	}
	return sl_ltab_upsert(t, end, key, klen, h);
}

/* One entry as a scan visits it (valid until sl_ltab_drop). */
typedef struct sl_lent {
	const char *rec;     /* the record (above) */
	uint32_t len;        /* its bytes */
	uint32_t klen;
	const char *key;     /* rec + 4 */
	void *slot;          /* rec + sl_ltab_head(klen) */
	uint32_t hash;       /* the key's hash, as given to sl_ltab_upsert */
} sl_lent;

/* Called for each entry of a window, in insertion order.  Returns 0 or
 * an error. */
typedef int (*sl_ltab_cb)(void *ctx, int64_t end, const sl_lent *e);

/* Visits every entry of open window i (ascending end order, i < nwin). */
int sl_ltab_scan(sl_ltab *t, int i, sl_ltab_cb cb, void *ctx);

/* Empties open window i and keeps its arrays for reuse (up to
 * SL_LTAB_POOL windows; the others are freed). */
void sl_ltab_drop(sl_ltab *t, int i);

/* Advances the table's clock (the caller's batches); a window records
 * the clock at its last upsert (sl_lwin.touched). */
static inline void sl_ltab_tick(sl_ltab *t) { t->clock++; }

#endif
