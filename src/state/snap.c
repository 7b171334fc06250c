/*
 * snap.c - snapshot byte streams (sl_snap_writer / sl_snap_reader, state.h)
 * and the state records written into them: tables grouped by key group
 * (sl_snap_grouper, the index, sl_snap_get_tab / sl_snap_tab_next that
 * read only the groups a restore wants) and the ungrouped tables of
 * earlier versions.
 *
 * Integers are written little-endian with fixed widths; byte strings are
 * prefixed with a u32 length.  The reader checks every access against the
 * buffer end and latches a failure flag instead of crashing, so a truncated
 * or damaged snapshot is reported as such (fuzzed by the checkpoint issue);
 * a grouped table's index is checked whole before any block is read.
 * The grouper runs wherever a snapshot is written (the forked child, the
 * RocksDB writer thread): it touches only its own buffers and file.
 */
#include "state.h"
#include "sluice.h"
#include "../base/crc32c.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STREAM_CHUNK (1 << 20)

void sl_snap_writer_init(sl_snap_writer *w)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
}

void sl_snap_writer_stream(sl_snap_writer *w, int fd)
{
	w->fd = fd;
	w->crc = 0;
	w->flushed = 0;
}

int sl_snap_writer_flush(sl_snap_writer *w)
{
	if (w->fd < 0 || w->failed)
		return w->failed ? -1 : 0;
	size_t off = 0;
	while (off < w->len) {
		ssize_t n = write(w->fd, w->buf + off, w->len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->failed = 1;
			return -1;
		}
		off += (size_t)n;
	}
	w->crc = sl_crc32c(w->crc, w->buf, w->len);
	w->flushed += w->len;
	w->len = 0;
	return 0;
}

void sl_snap_writer_deinit(sl_snap_writer *w)
{
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

static int reserve(sl_snap_writer *w, size_t n)
{
	if (w->failed)
		return -1;
	if (w->fd >= 0 && w->len + n > STREAM_CHUNK && w->len && sl_snap_writer_flush(w))
		return -1;
	if (w->len + n <= w->cap)
		return 0;
	size_t nc = w->cap ? w->cap : 4096;
	while (nc < w->len + n)
		nc *= 2;
	uint8_t *p = realloc(w->buf, nc);
	if (!p) {
		w->failed = 1;
		return -1;
	}
	w->buf = p;
	w->cap = nc;
	return 0;
}

void sl_snap_put_raw(sl_snap_writer *w, const void *p, size_t n)
{
	if (reserve(w, n))
		return;
	if (n)
		memcpy(w->buf + w->len, p, n);
	w->len += n;
}

void sl_snap_put_u8(sl_snap_writer *w, uint8_t v)
{
	sl_snap_put_raw(w, &v, 1);
}

void sl_snap_put_u32(sl_snap_writer *w, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	sl_snap_put_raw(w, b, 4);
}

void sl_snap_put_i64(sl_snap_writer *w, int64_t v)
{
	uint64_t u = (uint64_t)v;
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(u >> (8 * i));
	sl_snap_put_raw(w, b, 8);
}

void sl_snap_put_bytes(sl_snap_writer *w, const void *p, size_t n)
{
	sl_snap_put_u32(w, (uint32_t)n);
	sl_snap_put_raw(w, p, n);
}

void sl_snap_reader_init(sl_snap_reader *r, const void *buf, size_t len)
{
	r->buf = buf;
	r->len = len;
	r->pos = 0;
	r->failed = 0;
	r->rename = NULL;
	r->rename_ctx = NULL;
	r->keep = NULL;
	r->keep_ctx = NULL;
}

const void *sl_snap_get_raw(sl_snap_reader *r, size_t n)
{
	if (r->failed || n > r->len - r->pos) {
		r->failed = 1;
		return NULL;
	}
	const void *p = r->buf + r->pos;
	r->pos += n;
	return p;
}

uint8_t sl_snap_get_u8(sl_snap_reader *r)
{
	const uint8_t *p = sl_snap_get_raw(r, 1);
	return p ? p[0] : 0;
}

uint32_t sl_snap_get_u32(sl_snap_reader *r)
{
	const uint8_t *p = sl_snap_get_raw(r, 4);
	if (!p)
		return 0;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int64_t sl_snap_get_i64(sl_snap_reader *r)
{
	const uint8_t *p = sl_snap_get_raw(r, 8);
	if (!p)
		return 0;
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u |= (uint64_t)p[i] << (8 * i);
	return (int64_t)u;
}

const void *sl_snap_get_bytes(sl_snap_reader *r, size_t *n)
{
	uint32_t len = sl_snap_get_u32(r);
	const void *p = sl_snap_get_raw(r, len);
	*n = p ? len : 0;
	return p;
}

/* ---- state snapshot records (format in state.h) --------------------------- */

void sl_snap_put_table(sl_snap_writer *w, const char *name, uint32_t val_size, int64_t count)
{
	sl_snap_put_u8(w, SL_SNAP_TABLE);
	sl_snap_put_bytes(w, name, strlen(name));
	sl_snap_put_u32(w, val_size);
	sl_snap_put_i64(w, count);
}

void sl_snap_put_entry(sl_snap_writer *w, int64_t ns, const void *key, size_t klen,
                       const void *val, size_t vlen)
{
	sl_snap_put_i64(w, ns);
	sl_snap_put_bytes(w, key, klen);
	sl_snap_put_bytes(w, val, vlen);
}

void sl_snap_put_end(sl_snap_writer *w)
{
	sl_snap_put_u8(w, SL_SNAP_END);
}

int sl_snap_get_table(sl_snap_reader *r, char name[256], uint32_t *val_size, int64_t *count,
                      sl_err *err)
{
	sl_snap_tab t;
	int rc = sl_snap_get_tab(r, &t, err);
	if (rc != 1)
		return rc;
	sl_snap_tab_deinit(&t);
	memcpy(name, t.name, sizeof(t.name));
	*val_size = t.val_size;
	*count = t.count;
	return 1; /* a grouped record's blocks follow its index back to back */
}

int sl_snap_get_entry(sl_snap_reader *r, const char *table, uint32_t val_size, int64_t *ns,
                      const void **key, size_t *klen, const void **val, size_t *vlen,
                      sl_err *err)
{
	*ns = sl_snap_get_i64(r);
	*key = sl_snap_get_bytes(r, klen);
	*val = sl_snap_get_bytes(r, vlen);
	if (!sl_snap_reader_ok(r) || (val_size && *vlen != val_size))
		return sl_err_set(err, SL_ESTATE, "state snapshot damaged in table '%s'", table);
	return 0;
}

int sl_snap_skip_entries(sl_snap_reader *r, const char *table, uint32_t val_size, int64_t count,
                         sl_err *err)
{
	for (int64_t i = 0; i < count; i++) {
		int64_t ns;
		const void *k, *v;
		size_t kl, vl;
		if (sl_snap_get_entry(r, table, val_size, &ns, &k, &kl, &v, &vl, err))
			return SL_ESTATE;
	}
	return 0;
}

/* ---- grouped table records (state.h; docs/state.md "Key groups") --------- */

struct sl_snap_group_buf {
	uint8_t *p;
	size_t len, cap;
	int64_t n;        /* entries of the group, spilled ones included */
	uint64_t bytes;   /* their encoded bytes, spilled ones included */
};

int sl_snap_grouper_init(sl_snap_grouper *gr, int maxp, const char *dir, int ordered,
                         sl_err *err)
{
	memset(gr, 0, sizeof(*gr));
	gr->fd = -1;
	gr->maxp = maxp;
	gr->ordered = ordered;
	gr->limit = SL_SNAP_GROUP_MEM;
	gr->dir = dir && dir[0] ? dir : NULL;
	if (!(gr->g = calloc((size_t)maxp, sizeof(*gr->g))))
		return sl_err_set(err, SL_ENOMEM, "out of memory writing a state snapshot");
	return 0;
}

void sl_snap_grouper_deinit(sl_snap_grouper *gr)
{
	for (int i = 0; gr->g && i < gr->maxp; i++)
		free(gr->g[i].p);
	free(gr->g);
	free(gr->seg);
	free(gr->order);
	if (gr->fd >= 0)
		close(gr->fd);
	memset(gr, 0, sizeof(*gr));
	gr->fd = -1;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *s = p;
	while (n) {
		ssize_t k = write(fd, s, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		s += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Moves every buffer's bytes to the spill file (created at the first
 * spill, unlinked at once) and records their segments. */
static int spill(sl_snap_grouper *gr, sl_err *err)
{
	if (gr->fd < 0) {
		const char *dir = gr->dir ? gr->dir : getenv("TMPDIR");
		char path[4200];
		snprintf(path, sizeof(path), "%s/sluice-snapgroup-XXXXXX", dir && dir[0] ? dir : "/tmp");
		gr->fd = mkstemp(path);
		if (gr->fd < 0)
			return sl_err_set(err, SL_EIO, "cannot create a temporary file for a state "
			                  "snapshot in '%s': %s", dir && dir[0] ? dir : "/tmp",
			                  strerror(errno));
		unlink(path);
	}
	size_t per = (size_t)gr->maxp * 2;
	uint64_t *ns = realloc(gr->seg, sizeof(uint64_t) * per * (size_t)(gr->nspills + 1));
	if (!ns)
		return sl_err_set(err, SL_ENOMEM, "out of memory writing a state snapshot");
	gr->seg = ns;
	uint64_t *seg = gr->seg + per * (size_t)gr->nspills;
	for (int i = 0; i < gr->maxp; i++) {
		sl_snap_group_buf *b = &gr->g[i];
		seg[2 * i] = gr->flen;
		seg[2 * i + 1] = b->len;
		if (b->len && write_all(gr->fd, b->p, b->len))
			return sl_err_set(err, SL_EIO, "cannot write a temporary file for a state "
			                  "snapshot: %s", strerror(errno));
		gr->flen += b->len;
		b->len = 0;
	}
	gr->nspills++;
	gr->held = 0;
	return 0;
}

int sl_snap_grouper_add(sl_snap_grouper *gr, int kg, int64_t ns, const void *key, size_t klen,
                        const void *val, size_t vlen, sl_err *err)
{
	sl_snap_group_buf *b = &gr->g[kg];
	size_t need = 16 + klen + vlen;
	if (gr->ordered && (size_t)gr->count == gr->ocap) {
		size_t nc = gr->ocap ? gr->ocap * 2 : 1024;
		uint16_t *o = realloc(gr->order, nc * sizeof(uint16_t));
		if (!o)
			return sl_err_set(err, SL_ENOMEM, "out of memory writing a state snapshot");
		gr->order = o;
		gr->ocap = nc;
	}
	if (gr->ordered)
		gr->order[gr->count] = (uint16_t)kg;
	if (b->len + need > b->cap) {
		size_t nc = b->cap ? b->cap : 256;
		while (nc < b->len + need)
			nc *= 2;
		uint8_t *p = realloc(b->p, nc);
		if (!p)
			return sl_err_set(err, SL_ENOMEM, "out of memory writing a state snapshot");
		b->p = p;
		b->cap = nc;
	}
	uint8_t *d = b->p + b->len;
	uint64_t u = (uint64_t)ns;
	for (int i = 0; i < 8; i++)
		d[i] = (uint8_t)(u >> (8 * i));
	uint32_t kl = (uint32_t)klen, vl = (uint32_t)vlen;
	for (int i = 0; i < 4; i++)
		d[8 + i] = (uint8_t)(kl >> (8 * i));
	if (klen)
		memcpy(d + 12, key, klen);
	for (int i = 0; i < 4; i++)
		d[12 + klen + i] = (uint8_t)(vl >> (8 * i));
	if (vlen)
		memcpy(d + 16 + klen, val, vlen);
	b->len += need;
	b->n++;
	b->bytes += need;
	gr->count++;
	gr->held += need;
	return gr->held > gr->limit ? spill(gr, err) : 0;
}

int sl_snap_grouper_finish(sl_snap_grouper *gr, sl_snap_writer *w, const char *name,
                           uint32_t val_size, sl_err *err)
{
	uint32_t nblocks = 0;
	for (int i = 0; i < gr->maxp; i++)
		nblocks += gr->g[i].n > 0;
	sl_snap_put_u8(w, SL_SNAP_GTABLE);
	sl_snap_put_bytes(w, name, strlen(name));
	sl_snap_put_u32(w, val_size);
	sl_snap_put_i64(w, gr->count);
	sl_snap_put_u32(w, (uint32_t)gr->maxp);
	sl_snap_put_u32(w, nblocks);
	for (int i = 0; i < gr->maxp; i++) {
		if (!gr->g[i].n)
			continue;
		sl_snap_put_u32(w, (uint32_t)i);
		sl_snap_put_i64(w, gr->g[i].n);
		sl_snap_put_i64(w, (int64_t)gr->g[i].bytes);
	}
	sl_snap_put_u8(w, (uint8_t)(gr->ordered != 0));
	for (int64_t i = 0; gr->ordered && i < gr->count; i++) {
		uint8_t b2[2] = {(uint8_t)gr->order[i], (uint8_t)(gr->order[i] >> 8)};
		sl_snap_put_raw(w, b2, 2);
	}
	char *tmp = gr->nspills ? malloc(1 << 20) : NULL;
	if (gr->nspills && !tmp)
		return sl_err_set(err, SL_ENOMEM, "out of memory writing a state snapshot");
	size_t per = (size_t)gr->maxp * 2;
	for (int i = 0; i < gr->maxp && !w->failed; i++) {
		for (int s = 0; s < gr->nspills; s++) {
			uint64_t off = gr->seg[per * (size_t)s + 2 * (size_t)i];
			uint64_t len = gr->seg[per * (size_t)s + 2 * (size_t)i + 1];
			while (len) {
				size_t n = len > (1 << 20) ? (1 << 20) : (size_t)len;
				ssize_t k = pread(gr->fd, tmp, n, (off_t)off);
				if (k < 0 && errno == EINTR)
					continue;
				if (k <= 0) {
					free(tmp);
					return sl_err_set(err, SL_EIO, "cannot read a temporary file of a "
					                  "state snapshot: %s", k ? strerror(errno) : "short");
				}
				sl_snap_put_raw(w, tmp, (size_t)k);
				off += (uint64_t)k;
				len -= (uint64_t)k;
			}
		}
		sl_snap_put_raw(w, gr->g[i].p, gr->g[i].len);
	}
	free(tmp);
	if (w->failed)
		return sl_err_set(err, SL_ENOMEM, "out of memory writing a state snapshot");
	return 0;
}

/* ---- reading table records ----------------------------------------------- */

#define IDX_REC 20 /* u32 group, i64 entries, u64 bytes */

static void idx_get(const sl_snap_reader *r, const sl_snap_tab *t, uint32_t i, uint32_t *kg,
                    int64_t *n, uint64_t *bytes)
{
	sl_snap_reader x;
	sl_snap_reader_init(&x, r->buf + t->index + (size_t)i * IDX_REC, IDX_REC);
	*kg = sl_snap_get_u32(&x);
	*n = sl_snap_get_i64(&x);
	*bytes = (uint64_t)sl_snap_get_i64(&x);
}

static int get_tab1(sl_snap_reader *r, sl_snap_tab *t, sl_err *err);

int sl_snap_get_tab(sl_snap_reader *r, sl_snap_tab *t, sl_err *err)
{
	for (;;) {
		int rc = get_tab1(r, t, err);
		if (rc != 1 || !r->keep || r->keep(r->keep_ctx, t->name))
			return rc;
		/* not wanted: past its entries to the next record */
		if (t->maxp)
			r->pos = t->end;
		else if (sl_snap_skip_entries(r, t->name, t->val_size, t->count, err))
			return SL_ESTATE;
		sl_snap_tab_deinit(t);
	}
}

static int get_tab1(sl_snap_reader *r, sl_snap_tab *t, sl_err *err)
{
	memset(t, 0, sizeof(*t));
	uint8_t tag = sl_snap_get_u8(r);
	if (!sl_snap_reader_ok(r))
		return sl_err_set(err, SL_ESTATE, "state snapshot truncated");
	if (tag == SL_SNAP_END)
		return 0;
	if (tag != SL_SNAP_TABLE && tag != SL_SNAP_GTABLE)
		return sl_err_set(err, SL_ESTATE, "state snapshot damaged: bad record tag %u", tag);
	size_t nlen;
	const char *n = sl_snap_get_bytes(r, &nlen);
	t->val_size = sl_snap_get_u32(r);
	t->count = sl_snap_get_i64(r);
	if (!n || nlen == 0 || nlen > 255 || t->count < 0 || !sl_snap_reader_ok(r))
		return sl_err_set(err, SL_ESTATE, "state snapshot damaged: bad table header");
	memcpy(t->name, n, nlen);
	t->name[nlen] = 0;
	if (r->rename) /* the job's ids for an older scheme's (state.h) */
		r->rename(r->rename_ctx, t->name);
	t->kg = -1;
	if (tag == SL_SNAP_TABLE) {
		t->left = t->count;
		return 1;
	}
	t->maxp = sl_snap_get_u32(r);
	t->nblocks = sl_snap_get_u32(r);
	t->index = r->pos;
	if (!sl_snap_reader_ok(r) || t->maxp < 1 || t->maxp > 32768 || t->nblocks > t->maxp ||
	    !sl_snap_get_raw(r, (size_t)t->nblocks * IDX_REC))
		return sl_err_set(err, SL_ESTATE, "state snapshot damaged: bad index of table '%s'",
		                  t->name);
	/* check the index once: groups ascending, entries and bytes adding up */
	int64_t total = 0;
	uint64_t bytes = 0;
	for (uint32_t i = 0; i < t->nblocks; i++) {
		uint32_t kg;
		int64_t bn;
		uint64_t bb;
		idx_get(r, t, i, &kg, &bn, &bb);
		if (kg >= t->maxp || (i && kg <= t->kg) || bn <= 0 || bn > t->count - total ||
		    bb < (uint64_t)bn * 16 || bb > r->len - r->pos - bytes)
			return sl_err_set(err, SL_ESTATE, "state snapshot damaged: bad index of table "
			                  "'%s'", t->name);
		t->kg = (int)kg;
		total += bn;
		bytes += bb;
	}
	if (total != t->count)
		return sl_err_set(err, SL_ESTATE, "state snapshot damaged: bad index of table '%s'",
		                  t->name);
	t->kg = -1;
	uint8_t ordered = sl_snap_get_u8(r);
	if (ordered) {
		t->order = r->pos;
		if (!sl_snap_get_raw(r, (size_t)t->count * 2))
			ordered = 2;
	}
	if (!sl_snap_reader_ok(r) || ordered > 1 || bytes > r->len - r->pos)
		return sl_err_set(err, SL_ESTATE, "state snapshot damaged: bad order of table '%s'",
		                  t->name);
	t->next_data = r->pos;
	t->end = r->pos + bytes;
	return 1;
}

void sl_snap_tab_block(const sl_snap_reader *r, const sl_snap_tab *t, uint32_t i, int *kg,
                       int64_t *n, uint64_t *bytes)
{
	uint32_t g;
	idx_get(r, t, i, &g, n, bytes);
	*kg = (int)g;
}

void sl_snap_tab_deinit(sl_snap_tab *t)
{
	free(t->cur);
	free(t->blk_of);
	t->cur = NULL;
	t->blk_of = NULL;
}

/* Every group of an ordered record: the entries in the recorded order,
 * each taken from its group's block.  t->cur holds a cursor per block,
 * then the blocks' starts and the record's end: block i ends at
 * t->cur[nblocks + 1 + i + 1]. */
static int next_ordered(sl_snap_reader *r, sl_snap_tab *t, int *kg, int64_t *ns,
                        const void **key, size_t *klen, const void **val, size_t *vlen,
                        sl_err *err)
{
	uint32_t nb = t->nblocks;
	if (!t->cur) {
		t->cur = malloc(sizeof(size_t) * (2 * (size_t)nb + 2));
		t->blk_of = malloc(sizeof(int32_t) * t->maxp);
		if (!t->cur || !t->blk_of)
			return sl_err_set(err, SL_ENOMEM, "out of memory restoring state");
		for (uint32_t g = 0; g < t->maxp; g++)
			t->blk_of[g] = -1;
		size_t off = t->next_data;
		for (uint32_t i = 0; i < nb; i++) {
			uint32_t g;
			int64_t bn;
			uint64_t bb;
			idx_get(r, t, i, &g, &bn, &bb);
			t->blk_of[g] = (int32_t)i;
			t->cur[i] = t->cur[nb + 1 + i] = off;
			off += (size_t)bb;
		}
		t->cur[nb + 1 + nb] = off; /* == t->end */
	}
	const size_t *ends = t->cur + nb + 2;
	if (t->done == t->count) {
		for (uint32_t i = 0; i < nb; i++) /* every block read exactly to its end */
			if (t->cur[i] != ends[i])
				return sl_err_set(err, SL_ESTATE, "state snapshot damaged in table '%s'",
				                  t->name);
		r->pos = t->end;
		return 0;
	}
	const uint8_t *o = r->buf + t->order + (size_t)t->done * 2;
	uint32_t g = (uint32_t)o[0] | (uint32_t)o[1] << 8;
	int32_t b = g < t->maxp ? t->blk_of[g] : -1;
	if (b < 0 || t->cur[b] >= ends[b])
		return sl_err_set(err, SL_ESTATE, "state snapshot damaged: bad order of table '%s'",
		                  t->name);
	r->pos = t->cur[b];
	if (sl_snap_get_entry(r, t->name, t->val_size, ns, key, klen, val, vlen, err) ||
	    r->pos > ends[b])
		return sl_err_set(err, SL_ESTATE, "state snapshot damaged in table '%s' (group %u)",
		                  t->name, g);
	t->cur[b] = r->pos;
	t->done++;
	*kg = (int)g;
	return 1;
}

int sl_snap_tab_next(sl_snap_reader *r, sl_snap_tab *t, int first, int last, int *kg,
                     int64_t *ns, const void **key, size_t *klen, const void **val,
                     size_t *vlen, sl_err *err)
{
	if (!t->maxp) { /* ungrouped: every entry */
		if (!t->left)
			return 0;
		t->left--;
		*kg = -1;
		return sl_snap_get_entry(r, t->name, t->val_size, ns, key, klen, val, vlen, err) ? SL_ESTATE
		                                                                               : 1;
	}
	if (t->order && first <= 0 && last >= (int)t->maxp - 1)
		return next_ordered(r, t, kg, ns, key, klen, val, vlen, err);
	while (!t->left) {
		if (t->blk >= t->nblocks) {
			r->pos = t->end;
			return 0;
		}
		uint32_t g;
		int64_t bn;
		uint64_t bb;
		idx_get(r, t, t->blk++, &g, &bn, &bb);
		size_t start = t->next_data;
		t->next_data += (size_t)bb;
		if ((int)g < first || (int)g > last)
			continue;
		r->pos = start;
		t->left = bn;
		t->kg = (int)g;
		t->blk_end = start + (size_t)bb;
	}
	t->left--;
	*kg = t->kg;
	if (sl_snap_get_entry(r, t->name, t->val_size, ns, key, klen, val, vlen, err) ||
	    r->pos > t->blk_end || (!t->left && r->pos != t->blk_end))
		return sl_err_set(err, SL_ESTATE, "state snapshot damaged in table '%s' (group %d)",
		                  t->name, t->kg);
	return 1;
}

int64_t sl_snap_tab_count_in(const sl_snap_reader *r, const sl_snap_tab *t, int first, int last)
{
	if (!t->maxp)
		return t->count;
	int64_t n = 0;
	for (uint32_t i = 0; i < t->nblocks; i++) {
		uint32_t g;
		int64_t bn;
		uint64_t bb;
		idx_get(r, t, i, &g, &bn, &bb);
		if ((int)g >= first && (int)g <= last)
			n += bn;
	}
	return n;
}
