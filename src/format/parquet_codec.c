/*
 * parquet_codec.c - the byte-level encodings of Parquet pages
 * (parquet-format's Encodings.md) and their compression, shared by the
 * writer (parquet_write.c) and the reader (parquet_read.c):
 *
 *   RLE/bit-packed hybrid   definition levels and dictionary indices: runs
 *                           of <header varint> where an even header h is
 *                           a run of h/2 copies of one value (ceil(bw/8)
 *                           bytes, little-endian) and an odd one h/2
 *                           groups of 8 values bit-packed LSB first.
 *   DELTA_BINARY_PACKED     (read only) blocks of miniblocks of deltas
 *                           from a minimum, each miniblock at its width.
 *   compression             UNCOMPRESSED, SNAPPY (libsnappy), ZSTD
 *                           (libzstd), GZIP (zlib), both ways.
 *
 * Decoders check every length against the bytes they were given and every
 * value against the maximum the caller allows, so damaged or hostile input
 * is an error, never an out-of-bounds access (the reader's fuzz target).
 */
#include "parquet.h"
#include "sluice.h"

#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

int pq_bit_width(uint64_t max)
{
	int bw = 0;
	while (max) {
		bw++;
		max >>= 1;
	}
	return bw;
}

/* ---- RLE/bit-packed hybrid ------------------------------------------------ */

static int put_uvarint(sl_buf *out, uint64_t v)
{
	uint8_t tmp[10];
	int n = 0;
	while (v >= 0x80) {
		tmp[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (uint8_t)v;
	return sl_buf_append(out, tmp, (size_t)n) ? SL_ENOMEM : 0;
}

/* Length of the run of equal values starting at v[i]. */
static int64_t run_len(const uint32_t *v, int64_t i, int64_t n)
{
	int64_t j = i + 1;
	while (j < n && v[j] == v[i])
		j++;
	return j - i;
}

static int put_rle_run(sl_buf *out, uint32_t val, int64_t count, int bw)
{
	uint8_t b[4];
	int nb = (bw + 7) / 8;
	for (int k = 0; k < nb; k++)
		b[k] = (uint8_t)(val >> (8 * k));
	if (put_uvarint(out, (uint64_t)count << 1))
		return SL_ENOMEM;
	return sl_buf_append(out, b, (size_t)nb) ? SL_ENOMEM : 0;
}

/* Bit-packs v[i..end) padded with zeros to `count` values (a multiple of 8). */
static int put_packed_run(sl_buf *out, const uint32_t *v, int64_t i, int64_t end,
                          int64_t count, int bw)
{
	if (put_uvarint(out, (uint64_t)(count / 8) << 1 | 1))
		return SL_ENOMEM;
	size_t nbytes = (size_t)(count / 8 * bw);
	if (sl_buf_reserve(out, nbytes))
		return SL_ENOMEM;
	uint8_t *p = (uint8_t *)out->p + out->len;
	memset(p, 0, nbytes);
	uint64_t bit = 0;
	for (int64_t k = i; k < end; k++, bit += (uint64_t)bw) {
		uint64_t x = (uint64_t)v[k] << (bit & 7);
		for (size_t byte = bit >> 3; x; byte++, x >>= 8)
			p[byte] |= (uint8_t)x;
	}
	out->len += nbytes;
	return 0;
}

int pq_rle_encode(sl_buf *out, const uint32_t *v, int64_t n, int bw)
{
	int64_t i = 0;
	while (i < n) {
		int64_t r = run_len(v, i, n);
		if (r >= 8 || bw == 0) {
			if (put_rle_run(out, v[i], r, bw))
				return SL_ENOMEM;
			i += r;
			continue;
		}
		/* groups of 8 until a run of 8 or more starts at a group boundary */
		int64_t j = i;
		do
			j += 8;
		while (j < n && run_len(v, j, n) < 8);
		int64_t end = j < n ? j : n;
		if (put_packed_run(out, v, i, end, j - i, bw))
			return SL_ENOMEM;
		i = end;
	}
	return 0;
}

/* Reads value k (bit width bw) of a bit-packed run at p. */
static inline uint32_t unpack_one(const uint8_t *p, int64_t k, int bw)
{
	uint64_t bit = (uint64_t)k * (uint64_t)bw;
	const uint8_t *q = p + (bit >> 3);
	uint64_t x = 0;
	int need = (int)((bit & 7) + (uint64_t)bw + 7) / 8;
	for (int b = 0; b < need; b++)
		x |= (uint64_t)q[b] << (8 * b);
	return (uint32_t)((x >> (bit & 7)) & (bw == 32 ? 0xffffffffu : ((1u << bw) - 1)));
}

static int get_uvarint(const uint8_t **pp, const uint8_t *e, uint64_t *v)
{
	const uint8_t *p = *pp;
	*v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (p >= e)
			return -1;
		uint8_t c = *p++;
		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*pp = p;
			return 0;
		}
	}
	return -1;
}

int pq_rle_decode(const uint8_t *p, size_t len, int bw, uint32_t *v, int64_t n, uint32_t max)
{
	const uint8_t *e = p + len;
	int64_t got = 0;
	if (bw < 0 || bw > 32)
		return -1;
	while (got < n) {
		uint64_t h;
		if (get_uvarint(&p, e, &h))
			return -1;
		if (h & 1) {
			uint64_t groups = h >> 1;
			if (groups == 0 || groups > (uint64_t)(e - p) + 1)
				return -1;
			uint64_t count = groups * 8, bytes = groups * (uint64_t)bw;
			if (bytes > (uint64_t)(e - p)) { /* a last run may be cut short */
				bytes = (uint64_t)(e - p);
				count = bw ? bytes * 8 / (uint64_t)bw : count;
			}
			for (uint64_t k = 0; k < count && got < n; k++) {
				uint32_t x = unpack_one(p, (int64_t)k, bw);
				if (x > max)
					return -1;
				v[got++] = x;
			}
			p += bytes;
		} else {
			uint64_t count = h >> 1;
			int nb = (bw + 7) / 8;
			if (nb > e - p || count == 0)
				return -1;
			uint32_t x = 0;
			for (int b = 0; b < nb; b++)
				x |= (uint32_t)p[b] << (8 * b);
			p += nb;
			if (x > max)
				return -1;
			for (uint64_t k = 0; k < count && got < n; k++)
				v[got++] = x;
		}
	}
	return 0;
}

/* ---- DELTA_BINARY_PACKED --------------------------------------------------- */

int pq_delta_decode(const uint8_t *p, size_t len, int64_t *v, int64_t n, size_t *used)
{
	const uint8_t *s = p, *e = p + len;
	uint64_t block, nmini, total, first;
	if (get_uvarint(&p, e, &block) || get_uvarint(&p, e, &nmini) ||
	    get_uvarint(&p, e, &total) || get_uvarint(&p, e, &first))
		return -1;
	if (block == 0 || block % 128 || nmini == 0 || block % nmini || (block / nmini) % 32 ||
	    block > (1u << 20) || total != (uint64_t)n)
		return -1;
	uint64_t per = block / nmini;
	uint64_t cur = (first >> 1) ^ -(first & 1);
	int64_t got = 0;
	if (n > 0)
		v[got++] = (int64_t)cur;
	while (got < n) {
		uint64_t md;
		if (get_uvarint(&p, e, &md) || (uint64_t)(e - p) < nmini)
			return -1;
		uint64_t min_delta = (md >> 1) ^ -(md & 1);
		const uint8_t *widths = p;
		p += nmini;
		for (uint64_t m = 0; m < nmini && got < n; m++) {
			int bw = widths[m];
			if (bw > 64)
				return -1;
			uint64_t bytes = per * (uint64_t)bw / 8;
			if (bytes > (uint64_t)(e - p))
				return -1;
			for (uint64_t k = 0; k < per && got < n; k++) {
				uint64_t bit = k * (uint64_t)bw, x = 0;
				for (int b = 0; b < bw; b++, bit++)
					x |= (uint64_t)((p[bit >> 3] >> (bit & 7)) & 1) << b;
				cur += min_delta + x;
				v[got++] = (int64_t)cur;
			}
			p += bytes;
		}
	}
	*used = (size_t)(p - s);
	return 0;
}

/* ---- compression ------------------------------------------------------------ */

const char *pq_codec_name(int codec)
{
	static const char *const names[] = {"uncompressed", "snappy", "gzip", "lzo", "brotli",
	                                    "lz4", "zstd", "lz4_raw"};
	return codec >= 0 && codec < 8 ? names[codec] : "unknown";
}

size_t pq_compress_bound(int codec, size_t n)
{
	switch (codec) {
	case PQ_SNAPPY:
		return snappy_max_compressed_length(n);
	case PQ_ZSTD:
		return ZSTD_compressBound(n);
	case PQ_GZIP:
		return (size_t)compressBound((uLong)n) + 32; /* + the gzip header and trailer */
	default:
		return n;
	}
}

int pq_compress(int codec, int level, void **ctx, const void *src, size_t n, void *dst,
                size_t *out_n)
{
	switch (codec) {
	case PQ_UNCOMPRESSED:
		memcpy(dst, src, n);
		*out_n = n;
		return 0;
	case PQ_SNAPPY: {
		size_t cap = snappy_max_compressed_length(n);
		if (snappy_compress(src, n, dst, &cap) != SNAPPY_OK)
			return SL_EIO;
		*out_n = cap;
		return 0;
	}
	case PQ_ZSTD: {
		if (!*ctx && !(*ctx = ZSTD_createCCtx()))
			return SL_ENOMEM;
		size_t r = ZSTD_compressCCtx(*ctx, dst, ZSTD_compressBound(n), src, n,
		                             level ? level : ZSTD_CLEVEL_DEFAULT);
		if (ZSTD_isError(r))
			return SL_EIO;
		*out_n = r;
		return 0;
	}
	case PQ_GZIP: {
		z_stream z;
		memset(&z, 0, sizeof z);
		if (deflateInit2(&z, level ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
		                 Z_DEFAULT_STRATEGY) != Z_OK)
			return SL_EIO;
		z.next_in = (Bytef *)src;
		z.avail_in = (uInt)n;
		z.next_out = dst;
		z.avail_out = (uInt)pq_compress_bound(PQ_GZIP, n);
		int rc = deflate(&z, Z_FINISH);
		*out_n = z.total_out;
		deflateEnd(&z);
		return rc == Z_STREAM_END ? 0 : SL_EIO;
	}
	default:
		return SL_EIO;
	}
}

void pq_codec_ctx_free(int codec, void *ctx)
{
	if (ctx && codec == PQ_ZSTD)
		ZSTD_freeCCtx(ctx);
}

int pq_decompress(int codec, const void *src, size_t n, void *dst, size_t want,
                  const char **why)
{
	*why = "damaged compressed data";
	switch (codec) {
	case PQ_UNCOMPRESSED:
		if (n != want) {
			*why = "page sizes disagree";
			return -1;
		}
		memcpy(dst, src, n);
		return 0;
	case PQ_SNAPPY: {
		size_t len;
		if (snappy_uncompressed_length(src, n, &len) != SNAPPY_OK || len != want)
			return -1;
		return snappy_uncompress(src, n, dst, &len) == SNAPPY_OK && len == want ? 0 : -1;
	}
	case PQ_ZSTD: {
		size_t r = ZSTD_decompress(dst, want, src, n);
		return !ZSTD_isError(r) && r == want ? 0 : -1;
	}
	case PQ_GZIP: {
		z_stream z;
		memset(&z, 0, sizeof z);
		if (inflateInit2(&z, 15 + 32) != Z_OK)
			return -1;
		z.next_in = (Bytef *)src;
		z.avail_in = (uInt)n;
		z.next_out = dst;
		z.avail_out = (uInt)want;
		int rc = inflate(&z, Z_FINISH);
		size_t got = z.total_out;
		inflateEnd(&z);
		return rc == Z_STREAM_END && got == want ? 0 : -1;
	}
	default:
		*why = "the codec is not supported (sluice reads uncompressed, snappy, gzip and zstd)";
		return -1;
	}
}
