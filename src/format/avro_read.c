/*
 * avro_read.c - decoding of Avro primitive values and of an object
 * container's framing (avro.h): the inverse of avro_write.c.  The Iceberg
 * sink reads back its own manifest lists with it (a new snapshot carries
 * its parent's manifests forward) and the unit tests check the encoder.
 * Bounds-checked throughout: a cut or damaged input sets the cursor's bad
 * flag and never reads outside [p, end).
 */
#include "avro.h"

#include <string.h>

int64_t sl_avro_get_long(sl_avro_rd *r)
{
	uint64_t z = 0;
	for (int shift = 0; !r->bad; shift += 7) {
		if (r->p >= r->end || shift > 63) {
			r->bad = 1;
			break;
		}
		uint8_t c = *r->p++;
		z |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
	}
	return 0;
}

int sl_avro_get_bool(sl_avro_rd *r)
{
	if (r->bad || r->p >= r->end || *r->p > 1) {
		r->bad = 1;
		return 0;
	}
	return *r->p++;
}

double sl_avro_get_double(sl_avro_rd *r)
{
	uint64_t u = 0;
	double d;
	if (r->bad || r->end - r->p < 8) {
		r->bad = 1;
		return 0;
	}
	for (int i = 0; i < 8; i++)
		u |= (uint64_t)r->p[i] << (8 * i);
	r->p += 8;
	memcpy(&d, &u, 8);
	return d;
}

const uint8_t *sl_avro_get_bytes(sl_avro_rd *r, size_t *n)
{
	int64_t len = sl_avro_get_long(r);
	if (r->bad || len < 0 || len > r->end - r->p) {
		r->bad = 1;
		*n = 0;
		return NULL;
	}
	const uint8_t *p = r->p;
	r->p += len;
	*n = (size_t)len;
	return p;
}

/* Walks the metadata map's entries; with key, stops at it (value in *v). */
static int walk_meta(sl_avro_rd *r, const char *key, const uint8_t **v, size_t *vn)
{
	size_t kl = key ? strlen(key) : 0;
	for (;;) {
		int64_t count = sl_avro_get_long(r);
		if (r->bad)
			return -1;
		if (count == 0)
			return 0;
		if (count < 0) { /* a negative count is followed by the block's size */
			count = -count;
			(void)sl_avro_get_long(r);
		}
		for (int64_t i = 0; i < count && !r->bad; i++) {
			size_t n, m;
			const uint8_t *k = sl_avro_get_bytes(r, &n);
			const uint8_t *val = sl_avro_get_bytes(r, &m);
			if (key && !r->bad && n == kl && memcmp(k, key, kl) == 0) {
				*v = val;
				*vn = m;
				return 1;
			}
		}
	}
}

int sl_avro_open(sl_avro_in *in, const void *p, size_t n, const char **why)
{
	memset(in, 0, sizeof *in);
	in->r.p = p;
	in->r.end = (const uint8_t *)p + n;
	if (n < 4 || memcmp(p, "Obj\x01", 4)) {
		*why = "not an Avro object container file";
		return -1;
	}
	in->r.p += 4;
	in->meta = in->r.p;
	if (walk_meta(&in->r, NULL, NULL, NULL) < 0 || in->r.end - in->r.p < 16) {
		*why = "damaged Avro header";
		return -1;
	}
	in->meta_len = (size_t)(in->r.p - in->meta);
	memcpy(in->sync, in->r.p, 16);
	in->r.p += 16;
	size_t cn = 0;
	const uint8_t *codec = sl_avro_meta(in, "avro.codec", &cn);
	if (codec && !(cn == 4 && memcmp(codec, "null", 4) == 0)) {
		*why = "Avro codec other than null";
		return -1;
	}
	return 0;
}

const uint8_t *sl_avro_meta(const sl_avro_in *in, const char *key, size_t *n)
{
	sl_avro_rd r = {in->meta, in->meta + in->meta_len, 0};
	const uint8_t *v = NULL;
	*n = 0;
	return walk_meta(&r, key, &v, n) == 1 ? v : NULL;
}

int sl_avro_next_block(sl_avro_in *in, sl_avro_rd *blk, int64_t *count)
{
	if (in->r.p == in->r.end)
		return 0;
	*count = sl_avro_get_long(&in->r);
	int64_t size = sl_avro_get_long(&in->r);
	if (in->r.bad || *count < 0 || size < 0 || size > in->r.end - in->r.p ||
	    in->r.end - in->r.p - size < 16 || memcmp(in->r.p + size, in->sync, 16))
		return -1;
	blk->p = in->r.p;
	blk->end = in->r.p + size;
	blk->bad = 0;
	in->r.p += size + 16;
	return 1;
}
