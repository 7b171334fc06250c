/*
 * snap.c - snapshot byte streams (sl_snap_writer / sl_snap_reader, state.h).
 *
 * Integers are written little-endian with fixed widths; byte strings are
 * prefixed with a u32 length.  The reader checks every access against the
 * buffer end and latches a failure flag instead of crashing, so a truncated
 * or damaged snapshot is reported as such (fuzzed by the checkpoint issue).
 */
#include "state.h"
#include "sluice.h"
#include "../base/crc32c.h"

#include <errno.h>
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
	uint8_t tag = sl_snap_get_u8(r);
	if (!sl_snap_reader_ok(r))
		return sl_err_set(err, SL_ESTATE, "state snapshot truncated");
	if (tag == SL_SNAP_END)
		return 0;
	if (tag != SL_SNAP_TABLE)
		return sl_err_set(err, SL_ESTATE, "state snapshot damaged: bad record tag %u", tag);
	size_t nlen;
	const char *n = sl_snap_get_bytes(r, &nlen);
	*val_size = sl_snap_get_u32(r);
	*count = sl_snap_get_i64(r);
	if (!n || nlen == 0 || nlen > 255 || *count < 0 || !sl_snap_reader_ok(r))
		return sl_err_set(err, SL_ESTATE, "state snapshot damaged: bad table header");
	memcpy(name, n, nlen);
	name[nlen] = 0;
	if (r->rename)
		r->rename(r->rename_ctx, name);
	return 1;
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
