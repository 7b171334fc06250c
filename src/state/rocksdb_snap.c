/*
 * rocksdb_snap.c - snapshots and restores of the RocksDB state backend
 * (state_rocksdb.c has the rest of it; rocksdb_int.h what they share).
 *
 * A snapshot is written in the backend-independent record format of
 * state.h (snap.c's writers, each table grouped by key group), in two
 * steps so that a checkpoint blocks the job only for the first (below); a
 * restore reads that format from any backend, only the groups the backend
 * holds, and loads large tables as SST files.  Threading: begin, restore
 * and the synchronous snapshot run on the job thread; write and free may
 * run on the checkpoint writer thread and touch only the database handle
 * and the snapshot's own copies.
 */
#include "rocksdb_int.h"
#include "state_backends.h"
#include "sluice.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- snapshot / restore ---------------------------------------------------------- */

/*
 * Snapshots in two steps, so that the job thread is blocked only for the
 * first (sl_state_snap_begin) and the second runs on the checkpoint writer
 * thread while the job goes on:
 *
 *   begin (job thread)  notices pending slot writes, copies each table's
 *                       dirty cache entries (the changes not yet in
 *                       RocksDB: puts and deletes, at most the write-back
 *                       budget) into an overlay, records each table's name,
 *                       id, value size and count, and takes a RocksDB
 *                       snapshot (a sequence number: no copy);
 *   write (any thread)  sorts each overlay by key and merges it with an
 *                       iterator over the RocksDB snapshot: the barrier's
 *                       state, whatever the job thread writes meanwhile.
 *
 * Why not write the dirty entries back at the barrier: a full write-back
 * cache (64 MB at the default budget) took ~0.5 s of memtable inserts;
 * copying it is a memcpy.  The write step touches only the database handle
 * (thread-safe) and the snapshot's own copies, never a table's buffers.
 */
typedef struct snap_tab {
	char *name;
	uint32_t id, val_size;
	uint64_t count;
	sl_state_pkey pk;  /* the table's partitioning key (pure: see state.h) */
	int prefix;        /* a map table (rdb_dec_key) */
	char *ov;          /* overlay records: u8 live, u32 klen, key, value */
	size_t ovlen;
	uint32_t *ovoff;   /* offsets of the records (sorted by write) */
	size_t nov;
} snap_tab;

struct sl_state_snap {
	sl_state_backend *be;  /* first (state.c dispatches through it) */
	const rocksdb_snapshot_t *snap;
	int maxp;              /* key groups (be->kgs at the barrier) */
	snap_tab *tabs;
	int ntabs;
};

void sl__rdb_snap_free(sl_state_snap *s)
{
	if (!s)
		return;
	if (s->snap)
		rocksdb_release_snapshot(s->be->db, s->snap);
	for (int i = 0; i < s->ntabs; i++) {
		free(s->tabs[i].name);
		free(s->tabs[i].ov);
		free(s->tabs[i].ovoff);
	}
	free(s->tabs);
	free(s);
}

/* Copies t's dirty cache entries into st's overlay.  Returns 0 or SL_ENOMEM. */
static int copy_dirty(sl_state_table *t, snap_tab *st)
{
	size_t bytes = 0, n = 0, esz = 0;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			st->ov = malloc(bytes ? bytes : 1);
			st->ovoff = malloc(sizeof(uint32_t) * (n ? n : 1));
			if (!st->ov || !st->ovoff || bytes > UINT32_MAX)
				return SL_ENOMEM;
		}
		for (chunk *c = t->chunks; c; c = c == t->cur ? NULL : c->next) {
			for (size_t off = 0; off < c->used; off += esz) {
				cent *e = (cent *)((char *)(c + 1) + off);
				esz = ce_size(t, e->klen);
				if (!(e->flags & CE_DIRTY))
					continue;
				size_t rl = 5 + (size_t)e->klen + t->val_size;
				if (pass == 0) {
					bytes += rl;
					n++;
					continue;
				}
				char *r = st->ov + st->ovlen;
				r[0] = (char)((e->flags & CE_LIVE) != 0);
				memcpy(r + 1, &e->klen, 4);
				memcpy(r + 5, ce_key(e), e->klen);
				memcpy(r + 5 + e->klen, ce_val(e), t->val_size);
				st->ovoff[st->nov++] = (uint32_t)st->ovlen;
				st->ovlen += rl;
			}
		}
	}
	return 0;
}

sl_state_snap *sl__rdb_snap_begin(sl_state_backend *be, const char *op_uid, sl_err *err)
{
	sl_state_snap *s = calloc(1, sizeof(*s));
	int n = 0;
	for (sl_state_table *t = be->tables; t; t = t->next)
		n++;
	if (!s || !(s->tabs = calloc((size_t)(n ? n : 1), sizeof(snap_tab))))
		goto nomem;
	s->be = be;
	s->maxp = be->kgs.maxp;
	size_t plen = op_uid ? strlen(op_uid) : 0;
	for (sl_state_table *t = be->tables; t; t = t->next) {
		if (op_uid && (strncmp(t->name, op_uid, plen) != 0 || t->name[plen] != '/'))
			continue;
		note_last(t);
		snap_tab *st = &s->tabs[s->ntabs++];
		st->id = t->id;
		st->val_size = t->val_size;
		st->count = t->count;
		st->pk = t->pk;
		st->prefix = t->prefix;
		if (!(st->name = strdup(t->name)) || (t->val_size && copy_dirty(t, st)))
			goto nomem;
	}
	s->snap = rocksdb_create_snapshot(be->db);
	return s;
nomem:
	sl__rdb_snap_free(s);
	sl_err_set(err, SL_ENOMEM, "out of memory taking a state snapshot");
	return NULL;
}

static const char *ov_rec_key(const snap_tab *st, uint32_t off, uint32_t *klen)
{
	memcpy(klen, st->ov + off + 1, 4);
	return st->ov + off + 5;
}

static int key_cmp(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);
	return c ? c : (an > bn) - (an < bn);
}

static int ov_cmp(const void *a, const void *b, void *ctx)
{
	uint32_t ka, kb;
	const char *pa = ov_rec_key(ctx, *(const uint32_t *)a, &ka);
	const char *pb = ov_rec_key(ctx, *(const uint32_t *)b, &kb);
	return key_cmp(pa, ka, pb, kb);
}

/* Adds one entry (stored key k[0..kl), prefix included) to its group. */
static int put_stored(sl_snap_grouper *gr, const snap_tab *st, const char *k, size_t kl,
                      const void *v, size_t vl, char **ubuf, size_t *ucap, sl_err *err)
{
	if (kl > *ucap) {
		char *p = realloc(*ubuf, kl * 2);
		if (!p)
			return sl_err_set(err, SL_ENOMEM, "out of memory writing a state snapshot");
		*ubuf = p;
		*ucap = kl * 2;
	}
	size_t ukl = rdb_dec_key(st->prefix, *ubuf, k, kl);
	int kg = sl_state_pkey_group(&st->pk, *ubuf, (uint32_t)ukl, v, (uint32_t)vl, gr->maxp);
	return sl_snap_grouper_add(gr, kg, get_ns(k), *ubuf, ukl, v, vl, err);
}

/* Writes one table: the RocksDB snapshot's entries merged with the
 * overlay, grouped by key group (docs/state.md "Key groups"). */
static int snap_write_tab(sl_state_snap *s, snap_tab *st, sl_snap_writer *w, sl_err *err)
{
	if (st->nov) /* qsort_r takes no NULL base, even for 0 elements */
		qsort_r(st->ovoff, st->nov, sizeof(uint32_t), ov_cmp, st);
	sl_snap_grouper gr;
	/* not ordered: a restore gives RocksDB's key order back anyway */
	int rc = sl_snap_grouper_init(&gr, s->maxp, s->be->dir, 0, err);
	if (rc)
		return rc;
	char lo[PFX], hi[PFX];
	put_prefix(lo, st->id, INT64_MIN);
	put_prefix(hi, st->id + 1, INT64_MIN);
	rocksdb_readoptions_t *ro = rocksdb_readoptions_create();
	rocksdb_readoptions_set_snapshot(ro, s->snap);
	rocksdb_readoptions_set_iterate_upper_bound(ro, hi, PFX);
	rocksdb_readoptions_set_fill_cache(ro, 0);
	rocksdb_iterator_t *it = rocksdb_create_iterator(s->be->db, ro);
	char *ubuf = NULL;
	size_t ucap = 0, i = 0;
	uint64_t n = 0;
	rocksdb_iter_seek(it, lo, PFX);
	while (!rc) {
		int valid = rocksdb_iter_valid(it);
		size_t kl = 0, vl;
		const char *k = valid ? rocksdb_iter_key(it, &kl) : NULL;
		uint32_t okl = 0;
		const char *ok = i < st->nov ? ov_rec_key(st, st->ovoff[i], &okl) : NULL;
		if (!k && !ok)
			break;
		int c = !k ? 1 : !ok ? -1 : key_cmp(k, kl, ok, okl);
		if (c < 0) { /* only in the database */
			const char *v = rocksdb_iter_value(it, &vl);
			rc = put_stored(&gr, st, k, kl, v, vl, &ubuf, &ucap, err);
			n++;
		} else if (st->ov[st->ovoff[i]]) { /* the overlay's live value wins */
			rc = put_stored(&gr, st, ok, okl, ok + okl, st->val_size, &ubuf, &ucap, err);
			n++;
		}
		if (c <= 0)
			rocksdb_iter_next(it);
		if (c >= 0)
			i++;
	}
	free(ubuf);
	char *rerr = NULL;
	rocksdb_iter_get_error(it, &rerr);
	rocksdb_iter_destroy(it);
	rocksdb_readoptions_destroy(ro);
	if (!rc && rerr)
		rc = sl_err_set(err, SL_EIO, "state snapshot: iterate: %s", rerr);
	free(rerr);
	if (!rc && n != st->count)
		rc = sl_err_set(err, SL_ESTATE, "state snapshot: table '%s' holds %llu entries, "
		                "counted %llu", st->name, (unsigned long long)n,
		                (unsigned long long)st->count);
	if (!rc)
		rc = sl_snap_grouper_finish(&gr, w, st->name, st->val_size, err);
	sl_snap_grouper_deinit(&gr);
	return rc;
}

int sl__rdb_snap_write(sl_state_snap *s, sl_snap_writer *w, sl_err *err)
{
	for (int i = 0; i < s->ntabs; i++) {
		int rc = snap_write_tab(s, &s->tabs[i], w, err);
		if (rc)
			return rc;
	}
	sl_snap_put_end(w);
	if (w->failed)
		return sl_err_set(err, SL_ENOMEM, "out of memory writing a state snapshot");
	return 0;
}

int sl__rdb_snapshot(sl_state_backend *be, const char *op_uid, sl_snap_writer *w, sl_err *err)
{
	sl_state_snap *s = sl__rdb_snap_begin(be, op_uid, err);
	if (!s)
		return SL_ENOMEM;
	int rc = sl__rdb_snap_write(s, w, err);
	sl__rdb_snap_free(s);
	return rc;
}

/*
 * Restoring a large table writes its entries into an SST file and ingests
 * it, bypassing memtables, flushes and compactions.  Why: through write
 * batches 12 M entries (1 GB) took 64 s to restore, stalled behind level-0
 * flushes.  An SST file needs strictly increasing keys: a snapshot written
 * by this backend lists each table in key order (its iterator's), so the
 * whole table goes into one file; a snapshot of the memory backend is in
 * no particular order, so at the first key out of order the file written
 * so far is ingested and the rest goes through write batches.
 */
#define SST_MIN 65536 /* tables with fewer entries go through write batches */

typedef struct sst_load {
	rocksdb_sstfilewriter_t *w;
	rocksdb_envoptions_t *env;
	char path[4200];
	char *last;          /* the last key written */
	size_t lastlen, lastcap;
} sst_load;

/* Finishes and ingests the file (if one was started). */
static int sst_ingest(sl_state_table *t, sst_load *l)
{
	if (!l->w)
		return 0;
	char *rerr = NULL;
	rocksdb_sstfilewriter_finish(l->w, &rerr);
	rocksdb_sstfilewriter_destroy(l->w);
	l->w = NULL;
	if (!rerr) {
		rocksdb_ingestexternalfileoptions_t *io = rocksdb_ingestexternalfileoptions_create();
		rocksdb_ingestexternalfileoptions_set_move_files(io, 1);
		const char *files[1] = {l->path};
		t->be->wgen++;
		rocksdb_ingest_external_file(t->be->db, files, 1, io, &rerr);
		rocksdb_ingestexternalfileoptions_destroy(io);
	}
	unlink(l->path);
	if (rerr) {
		sl__rdb_set_err(t->be, "ingest", rerr);
		return SL_EIO;
	}
	return 0;
}

/* Adds the encoded key t->kbuf[0..n) to the file: 1 when added, 0 when it
 * is not after the last key (the caller switches to write batches), or a
 * negative code. */
static int sst_add(sl_state_table *t, sst_load *l, size_t n, const void *val, size_t vlen)
{
	char *rerr = NULL;
	if (!l->w) {
		if (!l->env && !(l->env = rocksdb_envoptions_create()))
			return SL_ENOMEM;
		snprintf(l->path, sizeof(l->path), "%s/restore-%u.sst", t->be->dir, t->id);
		l->w = rocksdb_sstfilewriter_create(l->env, t->be->opts);
		rocksdb_sstfilewriter_open(l->w, l->path, &rerr);
		l->lastlen = 0;
	} else {
		if (key_cmp(t->kbuf, n, l->last, l->lastlen) <= 0)
			return 0;
	}
	if (!rerr)
		rocksdb_sstfilewriter_put(l->w, t->kbuf, n, val, vlen, &rerr);
	if (rerr) {
		sl__rdb_set_err(t->be, "write a restore file", rerr);
		return SL_EIO;
	}
	if (n > l->lastcap) {
		char *p = realloc(l->last, n * 2);
		if (!p)
			return SL_ENOMEM;
		l->last = p;
		l->lastcap = n * 2;
	}
	memcpy(l->last, t->kbuf, n);
	l->lastlen = n;
	return 1;
}

/*
 * The entries of a restore come from an entry source: the record read in
 * order (sl_snap_tab_next), or, for a large grouped record with several
 * blocks to load, a merge of the blocks by encoded key (a cursor per
 * block, a binary heap).  Why the merge: each block written by this
 * backend is in key order, but the groups interleave over the whole key
 * range, so reading block after block put the second block's first key
 * before the first block's last and sent all but one block through write
 * batches instead of one SST file.  Blocks not in key order (from the
 * memory backend) merge into a sequence that is not either, and
 * restore_records falls back to write batches at the first key out of
 * order as before.
 */
typedef struct mcur {
	sl_snap_reader r;   /* over its block */
	int64_t left;       /* entries after the current one */
	int64_t ns;
	const void *key, *val;
	size_t klen, vlen;
	char *ek;           /* the current entry's encoded key */
	size_t ekl, ekcap;
	uint64_t o1, o2;    /* its bytes 4..12 and 12..20 big-endian, zero-padded */
} mcur;

typedef struct esrc {
	sl_snap_reader *r;
	sl_snap_tab *st;
	int first, last;
	mcur *c;            /* merge: a cursor per block to load */
	int *heap, nheap, nc;
} esrc;

/* Reads cursor c's next entry and encodes its key.  0 or SL_E*. */
static int mcur_load(sl_state_table *t, esrc *s, mcur *c, sl_err *err)
{
	if (sl_snap_get_entry(&c->r, s->st->name, s->st->val_size, &c->ns, &c->key, &c->klen,
	                      &c->val, &c->vlen, err))
		return SL_ESTATE;
	size_t n = sl__rdb_enc(t, c->ns, c->key, (uint32_t)c->klen);
	if (!n)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (n > c->ekcap) {
		char *p = realloc(c->ek, n * 2);
		if (!p)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		c->ek = p;
		c->ekcap = n * 2;
	}
	memcpy(c->ek, t->kbuf, n);
	c->ekl = n;
	c->o1 = c->o2 = 0;
	for (size_t i = 4; i < 20; i++) {
		uint64_t byte = i < n ? (uint8_t)c->ek[i] : 0;
		if (i < 12)
			c->o1 = c->o1 << 8 | byte;
		else
			c->o2 = c->o2 << 8 | byte;
	}
	return 0;
}

/* Key order of two cursors' entries.  Why the integers: with 128 blocks a
 * pop compares ~14 keys; memcmp of whole keys made the merge cost a third
 * of a 2 M-entry restore.  Bytes 0..4 are the table id, equal here; equal
 * integers (or zero padding) fall back to the whole keys. */
static int mless(const esrc *s, int a, int b)
{
	const mcur *x = &s->c[a], *y = &s->c[b];
	if (x->o1 != y->o1)
		return x->o1 < y->o1;
	if (x->o2 != y->o2)
		return x->o2 < y->o2;
	return key_cmp(x->ek, x->ekl, y->ek, y->ekl) < 0;
}

static void sift_down(esrc *s, int i)
{
	for (;;) {
		int l = 2 * i + 1, m = i;
		if (l < s->nheap && mless(s, s->heap[l], s->heap[m]))
			m = l;
		if (l + 1 < s->nheap && mless(s, s->heap[l + 1], s->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		int tmp = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = tmp;
		i = m;
	}
}

/* Sets up a merge when worth it (see above).  0 or SL_E*. */
static int esrc_init(sl_state_table *t, esrc *s, int merge, sl_err *err)
{
	const sl_snap_tab *st = s->st;
	int nb = 0;
	for (uint32_t i = 0; merge && st->maxp && i < st->nblocks; i++) {
		int kg;
		int64_t n;
		uint64_t bytes;
		sl_snap_tab_block(s->r, st, i, &kg, &n, &bytes);
		nb += kg >= s->first && kg <= s->last;
	}
	if (nb < 2)
		return 0;
	s->c = calloc((size_t)nb, sizeof(mcur));
	s->heap = malloc(sizeof(int) * (size_t)nb);
	if (!s->c || !s->heap)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	size_t start = st->next_data;
	for (uint32_t i = 0; i < st->nblocks; i++) {
		int kg;
		int64_t n;
		uint64_t bytes;
		sl_snap_tab_block(s->r, st, i, &kg, &n, &bytes);
		size_t at = start;
		start += (size_t)bytes;
		if (kg < s->first || kg > s->last)
			continue;
		mcur *c = &s->c[s->nc];
		sl_snap_reader_init(&c->r, s->r->buf, at + (size_t)bytes);
		c->r.pos = at;
		c->left = n - 1;
		int rc = mcur_load(t, s, c, err);
		if (rc)
			return rc;
		s->heap[s->nheap++] = s->nc++;
	}
	for (int i = s->nheap / 2 - 1; i >= 0; i--)
		sift_down(s, i);
	s->r->pos = st->end; /* the record is read through the cursors */
	return 0;
}

/* The next entry: 1, 0 at the end, or SL_ESTATE. */
static int esrc_next(sl_state_table *t, esrc *s, int *kg, int64_t *ns, const void **key,
                     size_t *klen, const void **val, size_t *vlen, sl_err *err)
{
	if (!s->c)
		return sl_snap_tab_next(s->r, s->st, s->first, s->last, kg, ns, key, klen, val, vlen,
		                        err);
	static const char none;
	if (!s->nheap)
		return 0;
	mcur *c = &s->c[s->heap[0]];
	/* hand out copies' pointers: the cursor moves on below */
	*kg = -1;
	*ns = c->ns;
	*key = c->key ? c->key : &none;
	*klen = c->klen;
	*val = c->val;
	*vlen = c->vlen;
	if (c->left > 0) {
		c->left--;
		int rc = mcur_load(t, s, c, err);
		if (rc)
			return rc;
	} else {
		if (c->r.pos != c->r.len)
			return sl_err_set(err, SL_ESTATE, "state snapshot damaged in table '%s'",
			                  s->st->name);
		s->heap[0] = s->heap[--s->nheap];
	}
	sift_down(s, 0);
	return 1;
}

static void esrc_deinit(esrc *s)
{
	for (int i = 0; i < s->nc; i++)
		free(s->c[i].ek);
	free(s->c);
	free(s->heap);
}

/* Reads the entries of groups [first, last] of record st into t (compute:
 * an ungrouped record, each entry's group computed): an SST file for a
 * large table in key order, otherwise write batches written every 4 MB. */
static int restore_records(sl_state_table *t, sl_snap_tab *st, sl_snap_reader *r, int first,
                           int last, int compute, sl_err *err)
{
	rocksdb_writebatch_t *wb = rocksdb_writebatch_create();
	sst_load l = {0};
	int64_t count = sl_snap_tab_count_in(r, st, first, last);
	int rc = 0, use_sst = count >= SST_MIN && t->be->dir[0];
	size_t pending = 0;
	char *rerr = NULL;
	esrc src = {r, st, first, last, NULL, NULL, 0, 0};
	rc = esrc_init(t, &src, use_sst, err);
	while (!rc) {
		int64_t ns;
		size_t klen, vlen, n;
		const void *key, *val;
		int kg;
		rc = esrc_next(t, &src, &kg, &ns, &key, &klen, &val, &vlen, err);
		if (rc <= 0)
			break;
		rc = 0;
		if (compute) {
			kg = sl_state_pkey_group(&t->pk, key, (uint32_t)klen, val, (uint32_t)vlen,
			                         t->be->kgs.maxp);
			if (kg < first || kg > last)
				continue;
		}
		if (!(n = sl__rdb_enc(t, ns, key, (uint32_t)klen)) || sl__rdb_nsc_add(t, ns, 1)) {
			rc = sl_err_set(err, SL_ENOMEM, "out of memory");
			break;
		}
		sl__rdb_bloom_add(t, sl_hash_bytes(t->kbuf, n, 0));
		if (use_sst) {
			int added = sst_add(t, &l, n, val, vlen);
			if (added < 0) {
				rc = sl_err_set(err, added, "restoring state: %s", t->be->errmsg);
				break;
			}
			if (added)
				continue;
			use_sst = 0; /* out of key order: the rest through write batches */
			if (sst_ingest(t, &l)) {
				rc = sl_err_set(err, SL_EIO, "restoring state: %s", t->be->errmsg);
				break;
			}
		}
		rocksdb_writebatch_put(wb, t->kbuf, n, val, vlen);
		pending += n + vlen;
		if (pending >= (4 << 20)) {
			t->be->wgen++;
			rocksdb_write(t->be->db, t->be->wo, wb, &rerr);
			rocksdb_writebatch_clear(wb);
			pending = 0;
		}
		if (rerr) {
			sl__rdb_set_err(t->be, "write", rerr);
			rc = sl_err_set(err, SL_EIO, "restoring state: %s", t->be->errmsg);
		}
	}
	if (!rc && pending) {
		t->be->wgen++;
		rocksdb_write(t->be->db, t->be->wo, wb, &rerr);
		if (rerr) {
			sl__rdb_set_err(t->be, "write", rerr);
			rc = sl_err_set(err, SL_EIO, "restoring state: %s", t->be->errmsg);
		}
	}
	if (!rc && sst_ingest(t, &l))
		rc = sl_err_set(err, SL_EIO, "restoring state: %s", t->be->errmsg);
	if (l.w) { /* after an error: drop the unfinished file */
		rocksdb_sstfilewriter_destroy(l.w);
		unlink(l.path);
	}
	if (l.env)
		rocksdb_envoptions_destroy(l.env);
	free(l.last);
	rocksdb_writebatch_destroy(wb);
	esrc_deinit(&src);
	return rc;
}

static int restore_table(sl_state_backend *be, sl_snap_tab *st, sl_snap_reader *r, int merge,
                         sl_err *err)
{
	int first, last, compute;
	int rc = sl__state_kg_check(&be->kgs, st, &first, &last, &compute, err);
	if (rc)
		return rc;
	sl_state_table *t = sl__rdb_table_find(be, st->name);
	if (t && t->val_size != st->val_size)
		return sl_err_set(err, SL_ESTATE, "state table '%s': value size %u in snapshot, %u now",
		                  st->name, st->val_size, t->val_size);
	if (!t && !(t = sl__rdb_table_create(be, st->name, st->val_size)))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (!merge && sl__rdb_table_clear(t))
		return sl_err_set(err, SL_EIO, "restoring state: %s", be->errmsg);
	return restore_records(t, st, r, first, last, compute, err);
}

int sl__rdb_restore(sl_state_backend *be, sl_snap_reader *r, int merge, sl_err *err)
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
