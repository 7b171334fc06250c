/*
 * conn_iceberg_delta.c - what the Iceberg sink needs for row-level deletes
 * (docs/iceberg.md "Upserts"): the map from a key to the position of the
 * row of that key written since the last checkpoint (the data file and
 * the row's ordinal in it), and the position deletes waiting to be
 * written, sorted as the spec requires (by file_path, then pos).
 *
 * Why positions: an equality delete applies only to data files of an
 * earlier sequence number (the table spec's "Scan Planning"), and every
 * file of one checkpoint shares its snapshot's sequence number; so a row
 * written and then deleted or replaced within one checkpoint must be
 * deleted by its position (a position delete applies to data files at or
 * below its own sequence number), as Iceberg's own equality delta writers
 * do.  The map is emptied at every checkpoint, when its files are closed.
 *
 * The map is open addressing over 64-bit hashes of the key form of the
 * identifier columns (data/rowcodec.h); the key bytes live in an arena
 * reset with the map.  A key whose row was deleted keeps its slot, marked
 * dead (file -1), as does a key deleted by equality: its rows of earlier
 * checkpoints are deleted once per checkpoint, and a later row of the key
 * reuses the slot.
 */
#include "conn_iceberg_int.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

void sl__ice_rowmap_init(ice_rowmap *m)
{
	memset(m, 0, sizeof *m);
	sl_arena_init(&m->keys, 1 << 16);
}

void sl__ice_rowmap_clear(ice_rowmap *m)
{
	if (m->n)
		memset(m->slots, 0, (size_t)m->cap * sizeof *m->slots);
	m->n = 0;
	sl_arena_reset(&m->keys);
}

void sl__ice_rowmap_free(ice_rowmap *m)
{
	free(m->slots);
	sl_arena_deinit(&m->keys);
	memset(m, 0, sizeof *m);
}

/* The slot of key (found, or the empty one it would go to). */
static ice_rowslot *find(ice_rowmap *m, const void *key, size_t n, uint64_t h)
{
	size_t mask = (size_t)m->cap - 1, i = (size_t)h & mask;
	for (;;) {
		ice_rowslot *s = &m->slots[i];
		if (!s->key || (s->hash == h && s->len == n && !memcmp(s->key, key, n)))
			return s;
		i = (i + 1) & mask;
	}
}

static int grow(ice_rowmap *m)
{
	int64_t cap = m->cap ? m->cap * 2 : 1024;
	ice_rowslot *old = m->slots, *ns = calloc((size_t)cap, sizeof *ns);
	if (!ns)
		return -1;
	int64_t ocap = m->cap;
	m->slots = ns;
	m->cap = cap;
	for (int64_t i = 0; i < ocap; i++)
		if (old[i].key)
			*find(m, old[i].key, old[i].len, old[i].hash) = old[i];
	free(old);
	return 0;
}

int sl__ice_rowmap_take(ice_rowmap *m, const void *key, size_t n, int32_t *file,
                        int64_t *pos)
{
	if (!m->cap)
		return 0;
	ice_rowslot *s = find(m, key, n, sl_hash_bytes(key, n, 0));
	if (!s->key)
		return 0;
	if (s->file < 0)
		return 2;
	*file = s->file;
	*pos = s->pos;
	s->file = -1;
	return 1;
}

int sl__ice_rowmap_get(ice_rowmap *m, const void *key, size_t n, int32_t *file, int64_t *pos)
{
	if (!m->cap)
		return 0;
	ice_rowslot *s = find(m, key, n, sl_hash_bytes(key, n, 0));
	if (!s->key)
		return 0;
	*file = s->file;
	*pos = s->pos;
	return 1;
}

int sl__ice_rowmap_put(ice_rowmap *m, const void *key, size_t n, int32_t file, int64_t pos,
                       int32_t *pfile, int64_t *ppos)
{
	if ((m->n + 1) * 4 > m->cap * 3 && grow(m))
		return -1;
	uint64_t h = sl_hash_bytes(key, n, 0);
	ice_rowslot *s = find(m, key, n, h);
	int had = 0;
	if (s->key) {
		if (s->file >= 0) {
			*pfile = s->file;
			*ppos = s->pos;
			had = 1;
		}
	} else {
		void *kp = sl_arena_memdup(&m->keys, key, n ? n : 1);
		if (!kp)
			return -1;
		s->key = kp;
		s->len = n;
		s->hash = h;
		m->n++;
	}
	s->file = file;
	s->pos = pos;
	return had;
}

/* ---- position deletes ------------------------------------------------------ */

int sl__ice_posdel_add(ice_posgrp *g, int32_t file, int64_t pos)
{
	if (g->n == g->cap) {
		int64_t cap = g->cap ? g->cap * 2 : 256;
		ice_posdel *nd = realloc(g->d, (size_t)cap * sizeof *nd);
		if (!nd)
			return -1;
		g->d = nd;
		g->cap = cap;
	}
	g->d[g->n++] = (ice_posdel){file, pos};
	return 0;
}

static int by_path(const void *a, const void *b, void *paths)
{
	const ice_posdel *x = a, *y = b;
	char *const *p = paths;
	int c = x->file == y->file ? 0 : strcmp(p[x->file], p[y->file]);
	if (c)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

void sl__ice_posdel_sort(ice_posgrp *g, char *const *paths)
{
	qsort_r(g->d, (size_t)g->n, sizeof *g->d, by_path, (void *)paths);
}

void sl__ice_posgrp_free(ice_posgrp *g)
{
	free(g->d);
	free(g->dir);
	sl_buf_deinit(&g->part);
	memset(g, 0, sizeof *g);
}
