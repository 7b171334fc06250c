/*
 * ltab.c - the local stage's partial accumulators (ltab.h): windows kept
 * in ascending end order, each an append-only set of (key, slot) entries
 * with an open-addressing index, recycled when flushed.
 *
 * Invariants: win[0..nwin) ascending by end, distinct; every window in
 * win or pool is owned by the table; a pooled window is empty (n == 0,
 * len == 0, index all zero) and keeps its capacity, at most SL_LTAB_POOL
 * of them; count is the sum of the open windows' n; hv[0..n) are a
 * window's entries' hashes in insertion order.
 */
#include "ltab.h"
#include "../base/copy.h"

#include <stdlib.h>
#include <string.h>

void sl_ltab_init(sl_ltab *t, uint32_t slot_size)
{
	memset(t, 0, sizeof(*t));
	t->slot_size = slot_size;
}

static void lwin_free(sl_lwin *w)
{
	if (!w)
		return;
	free(w->idx);
	free(w->ent);
	free(w->hv);
	free(w);
}

void sl_ltab_deinit(sl_ltab *t)
{
	for (int i = 0; i < t->nwin; i++)
		lwin_free(t->win[i]);
	for (int i = 0; i < t->npool; i++)
		lwin_free(t->pool[i]);
	free(t->win);
	free(t->pool);
	memset(t, 0, sizeof(*t));
}

/* A window for `end`, from the pool or new, inserted in order. */
static sl_lwin *open_win(sl_ltab *t, int64_t end)
{
	if (t->nwin == t->capwin) {
		int cap = t->capwin ? t->capwin * 2 : 8;
		sl_lwin **nw = realloc(t->win, sizeof(*nw) * (size_t)cap);
		sl_lwin **np = realloc(t->pool, sizeof(*np) * (size_t)cap);
		if (nw)
			t->win = nw;
		if (np)
			t->pool = np;
		if (!nw || !np)
			return NULL;
		t->capwin = cap;
	}
	sl_lwin *w = t->npool ? t->pool[--t->npool] : calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	if (!w->idx) {
		w->mask = 1023;
		w->idx = calloc(w->mask + 1, sizeof(uint64_t));
		if (!w->idx) {
			free(w);
			return NULL;
		}
	}
	w->end = end;
	int at = t->nwin;
	while (at > 0 && t->win[at - 1]->end > end)
		at--;
	memmove(&t->win[at + 1], &t->win[at], sizeof(*t->win) * (size_t)(t->nwin - at));
	t->win[at] = w;
	t->nwin++;
	return w;
}

/* Doubles w's index and re-inserts every entry by its stored hash. */
static int grow_index(sl_lwin *w)
{
	uint32_t mask = w->mask * 2 + 1;
	uint64_t *idx = calloc((size_t)mask + 1, sizeof(uint64_t));
	if (!idx)
		return -1;
	for (uint32_t j = 0; j <= w->mask; j++) {
		uint64_t v = w->idx[j];
		if (!v)
			continue;
		uint32_t i = (uint32_t)(v >> 32) & mask;
		while (idx[i])
			i = (i + 1) & mask;
		idx[i] = v;
	}
	free(w->idx);
	w->idx = idx;
	w->mask = mask;
	return 0;
}

/* The bytes of an entry with a klen-byte key: [u32 klen][key], padded to
 * 16, then the slot (sl_ltab_head, ltab.h). */
static inline size_t ent_head(uint32_t klen)
{
	return sl_ltab_head(klen);
}

void *sl_ltab_upsert(sl_ltab *t, int64_t end, const void *key, uint32_t klen, uint32_t h)
{
	sl_lwin *w = t->last;
	if (!w || w->end != end) {
		w = NULL;
		for (int i = 0; i < t->nwin && !w; i++)
			if (t->win[i]->end == end)
				w = t->win[i];
		if (!w && !(w = open_win(t, end)))
			return NULL;
		t->last = w;
	}
	w->touched = t->clock;
	size_t head = ent_head(klen);
	uint32_t i = h & w->mask;
	for (uint64_t v; (v = w->idx[i]); i = (i + 1) & w->mask) {
		if ((uint32_t)(v >> 32) != h)
			continue;
		char *e = w->ent + ((size_t)(uint32_t)v - 1) * 16;
		uint32_t el;
		memcpy(&el, e, 4);
		if (el == klen && sl_ltab_key_eq(e + 4, key, klen))
			return e + head;
	}
	size_t size = head + t->slot_size;
	if (w->len + size > w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64 * 1024;
		while (cap < w->len + size)
			cap *= 2;
		char *ne = realloc(w->ent, cap); /* 16-aligned (malloc) */
		if (!ne)
			return NULL;
		w->ent = ne;
		w->cap = cap;
	}
	if (w->n == w->hcap) {
		uint32_t hcap = w->hcap ? w->hcap * 2 : 1024;
		uint32_t *nh = realloc(w->hv, sizeof(uint32_t) * (size_t)hcap);
		if (!nh)
			return NULL;
		w->hv = nh;
		w->hcap = hcap;
	}
	w->hv[w->n] = h;
	char *e = w->ent + w->len;
	/* inline copies (copy.h): the libc calls were ~35 instructions an
	 * insert (callgrind) */
	memset(e + head - 16, 0, 16); /* the padding: the record leaves whole */
	memcpy(e, &klen, 4);
	sl_copy_short(e + 4, key, klen);
	sl_zero16n(e + head, t->slot_size);
	w->idx[i] = (uint64_t)h << 32 | (uint32_t)(w->len / 16 + 1);
	w->len += size;
	w->n++;
	t->count++;
	if (w->n * 2 > w->mask + 1 && grow_index(w)) {
		w->idx[i] = 0; /* undo: the index has no room for it */
		w->len -= size;
		w->n--;
		t->count--;
		return NULL;
	}
	return e + head;
}

int sl_ltab_scan(sl_ltab *t, int i, sl_ltab_cb cb, void *ctx)
{
	sl_lwin *w = t->win[i];
	sl_lent le;
	size_t off = 0;
	for (uint32_t j = 0; j < w->n; j++) {
		char *e = w->ent + off;
		memcpy(&le.klen, e, 4);
		uint32_t head = sl_ltab_head(le.klen);
		le.rec = e;
		le.len = head + t->slot_size;
		le.key = e + 4;
		le.slot = e + head;
		le.hash = w->hv[j];
		int rc = cb(ctx, w->end, &le);
		if (rc)
			return rc;
		off += le.len;
	}
	return 0;
}

void sl_ltab_drop(sl_ltab *t, int i)
{
	sl_lwin *w = t->win[i];
	t->count -= w->n;
	memmove(&t->win[i], &t->win[i + 1], sizeof(*t->win) * (size_t)(t->nwin - i - 1));
	t->nwin--;
	if (t->last == w)
		t->last = NULL;
	if (t->npool >= SL_LTAB_POOL) {
		lwin_free(w);
		return;
	}
	memset(w->idx, 0, sizeof(uint64_t) * ((size_t)w->mask + 1));
	w->n = 0;
	w->len = 0;
	t->pool[t->npool++] = w;
}
