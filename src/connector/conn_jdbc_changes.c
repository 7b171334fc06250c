/*
 * conn_jdbc_changes.c - the jdbc sink's buffer of changes, reduced per key
 * (interface: conn_jdbc.h).
 *
 * A buffer holds rows already encoded as lines of COPY's text format, the
 * bytes that go to the server unchanged.  Without a key (append-only
 * sinks) it is just those lines.  With a key (upsert sinks) each line has
 * the key's bytes (the key form of data/rowcodec.h) and a hash table keeps
 * one live line per key: adding a key again kills the older line, so what
 * reaches PostgreSQL touches each key once.  That is not an optimisation:
 * INSERT ... ON CONFLICT DO UPDATE fails with SQLSTATE 21000 ("command
 * cannot affect row a second time") when one statement touches a key
 * twice, which is why Flink reduces per key too.
 *
 * Killed lines stay in the byte buffers until the buffer is compacted
 * (sl__jd_changes_compact, which the sink calls before sending and when
 * dead bytes outweigh live ones), so a hot key updated a million times
 * between two flushes costs the bytes of its live line plus a bounded
 * amount of garbage.  No allocation per row in steady state: the buffers
 * and the entry array grow by doubling and are reused after a clear.
 * Single-threaded.
 */
#include "conn_jdbc.h"
#include "sluice.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

#define SEED 0x6a646263ULL

void sl__jd_changes_init(sl_jd_changes *c, int keyed)
{
	memset(c, 0, sizeof *c);
	c->keyed = keyed;
	sl_buf_init(&c->lines);
	sl_buf_init(&c->keys);
}

void sl__jd_changes_deinit(sl_jd_changes *c)
{
	sl_buf_deinit(&c->lines);
	sl_buf_deinit(&c->keys);
	free(c->ents);
	free(c->slots);
	memset(c, 0, sizeof *c);
}

void sl__jd_changes_clear(sl_jd_changes *c)
{
	sl_buf_clear(&c->lines);
	sl_buf_clear(&c->keys);
	c->nents = 0;
	c->live = 0;
	c->live_bytes = 0;
	c->ndel = 0;
	if (c->slots)
		memset(c->slots, 0, sizeof(uint32_t) * ((size_t)c->mask + 1));
}

/* Moves everything of src into dst (which must be empty or cleared) and
 * leaves src empty, without copying bytes. */
void sl__jd_changes_move(sl_jd_changes *dst, sl_jd_changes *src)
{
	sl_jd_changes t = *dst;
	*dst = *src;
	*src = t;
	sl__jd_changes_clear(src);
}

static int grow_slots(sl_jd_changes *c)
{
	uint32_t nm = c->mask ? c->mask * 2 + 1 : 1023;
	uint32_t *s = calloc((size_t)nm + 1, sizeof *s);
	if (!s)
		return SL_ENOMEM;
	for (int i = 0; i < c->nents; i++) {
		if (!c->ents[i].live)
			continue;
		uint32_t h = (uint32_t)c->ents[i].hash & nm;
		while (s[h])
			h = (h + 1) & nm;
		s[h] = (uint32_t)i + 1;
	}
	free(c->slots);
	c->slots = s;
	c->mask = nm;
	return 0;
}

/* The slot of key (its entry, or the empty slot where it goes). */
static uint32_t *find_slot(sl_jd_changes *c, const void *key, size_t klen, uint64_t h)
{
	uint32_t i = (uint32_t)h & c->mask;
	for (;; i = (i + 1) & c->mask) {
		uint32_t e = c->slots[i];
		if (!e)
			return &c->slots[i];
		const sl_jd_ent *x = &c->ents[e - 1];
		if (x->hash == h && x->klen == klen && !memcmp(c->keys.p + x->koff, key, klen))
			return &c->slots[i];
	}
}

int sl__jd_changes_add(sl_jd_changes *c, const void *key, size_t klen, const char *line,
                       size_t len, int only_if_absent)
{
	if (!c->keyed) {
		if (sl_buf_append(&c->lines, line, len))
			return SL_ENOMEM;
		c->live++;
		c->live_bytes += len;
		return 0;
	}
	/* the table holds live entries only; keep it at most half full of them
	 * plus the dead ones it was built with (rebuilt on growth) */
	if ((size_t)(c->nents + 1) * 2 > (size_t)c->mask + 1 && grow_slots(c))
		return SL_ENOMEM;
	uint64_t h = sl_hash_bytes(key, klen, SEED);
	uint32_t *slot = find_slot(c, key, klen, h);
	if (*slot && only_if_absent)
		return 0;
	if (c->nents == c->cap) {
		int cap = c->cap ? c->cap * 2 : 1024;
		sl_jd_ent *e = realloc(c->ents, sizeof *e * (size_t)cap);
		if (!e)
			return SL_ENOMEM;
		c->ents = e;
		c->cap = cap;
	}
	size_t loff = c->lines.len, koff = c->keys.len;
	if (sl_buf_append(&c->lines, line, len) || sl_buf_append(&c->keys, key, klen))
		return SL_ENOMEM;
	if (*slot) {
		sl_jd_ent *old = &c->ents[*slot - 1];
		old->live = 0;
		c->live--;
		c->live_bytes -= old->len;
	}
	c->ents[c->nents] = (sl_jd_ent){loff, len, koff, klen, h, 1};
	*slot = (uint32_t)c->nents + 1;
	c->nents++;
	c->live++;
	c->live_bytes += len;
	return 0;
}

int sl__jd_changes_merge_older(sl_jd_changes *c, const sl_jd_changes *older)
{
	c->ndel += older->ndel;
	if (!c->keyed)
		return sl_buf_append(&c->lines, older->lines.p, older->lines.len) ? SL_ENOMEM
		       : (c->live += older->live, c->live_bytes += older->live_bytes, 0);
	for (int i = 0; i < older->nents; i++) {
		const sl_jd_ent *e = &older->ents[i];
		if (e->live && sl__jd_changes_add(c, older->keys.p + e->koff, e->klen,
		                                  (const char *)older->lines.p + e->off, e->len, 1))
			return SL_ENOMEM;
	}
	return 0;
}

int sl__jd_changes_compact(sl_jd_changes *c)
{
	if (!c->keyed || c->live == c->nents)
		return 0;
	size_t lo = 0, ko = 0;
	int n = 0;
	for (int i = 0; i < c->nents; i++) {
		sl_jd_ent e = c->ents[i];
		if (!e.live)
			continue;
		memmove(c->lines.p + lo, c->lines.p + e.off, e.len);
		memmove(c->keys.p + ko, c->keys.p + e.koff, e.klen);
		e.off = lo;
		e.koff = ko;
		lo += e.len;
		ko += e.klen;
		c->ents[n++] = e;
	}
	c->lines.len = lo;
	c->keys.len = ko;
	c->nents = n;
	memset(c->slots, 0, sizeof(uint32_t) * ((size_t)c->mask + 1));
	for (int i = 0; i < n; i++) {
		uint32_t h = (uint32_t)c->ents[i].hash & c->mask;
		while (c->slots[h])
			h = (h + 1) & c->mask;
		c->slots[h] = (uint32_t)i + 1;
	}
	return 0;
}

int sl__jd_changes_bloated(const sl_jd_changes *c)
{
	return c->keyed && c->lines.len > (1u << 20) && c->lines.len > 2 * c->live_bytes;
}
