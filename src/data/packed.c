/*
 * packed.c - ARRAY and MAP values as packed byte strings (packed.h): the
 * builder, the element reader, map lookup and the removal of repeated map
 * keys with the entries' HashMap order.  Elements use the row codec's value layout (rowcodec.c), so this
 * file only adds the count in front and the walk over elements.
 *
 * Called per value by the collection kernels (fn_collection.c), the JSON
 * format and the text form of values (valtext.c); it allocates only in the
 * caller's buffers and arenas.  Stateless; any thread.
 */
#include "packed.h"
#include "javahash.h"
#include "rowcodec.h"
#include "sluice.h"

#include <string.h>

int sl_pack_begin(sl_buf *out)
{
	uint32_t z = 0;
	sl_buf_clear(out);
	return sl_buf_append(out, &z, 4) ? SL_ENOMEM : 0;
}

int sl_pack_value(sl_buf *out, const sl_col *c, int row)
{
	return sl_rowcodec_value(c, row, out);
}

void sl_pack_end(sl_buf *out, uint32_t n)
{
	memcpy(out->p, &n, 4);
}

int sl_unpack_open(sl_unpack *u, const char *p, int64_t len)
{
	if (len < 4)
		return SL_ESTATE;
	memcpy(&u->n, p, 4);
	u->p = p + 4;
	u->end = p + len;
	return 0;
}

int sl_unpack_skip(sl_unpack *u, sl_type t)
{
	return sl_rowcodec_skip(t, &u->p, u->end);
}

int sl_unpack_next(sl_unpack *u, sl_arena *a, sl_col *c, int row)
{
	return sl_rowcodec_get(&u->p, u->end, a, c, row);
}

int sl_unpack_map_get(const char *p, int64_t len, sl_type map, const sl_col *key, int krow,
                      sl_buf *kbuf, sl_arena *a, sl_col *out, int row)
{
	sl_unpack u;
	sl_type kt = sl_type_map_key(map), vt = sl_type_map_value(map);
	if (sl_unpack_open(&u, p, len))
		return SL_ESTATE;
	sl_buf_clear(kbuf);
	if (sl_rowcodec_value(key, krow, kbuf))
		return SL_ENOMEM;
	for (uint32_t i = 0; i < u.n; i++) {
		const char *k0 = u.p;
		if (sl_unpack_skip(&u, kt))
			return SL_ESTATE;
		if ((size_t)(u.p - k0) == kbuf->len && memcmp(k0, kbuf->p, kbuf->len) == 0)
			return sl_unpack_next(&u, a, out, row) ? SL_ESTATE : 1;
		if (sl_unpack_skip(&u, vt))
			return SL_ESTATE;
	}
	return 0;
}

/* The byte spans of entry i: key [k, k + kl), value [v, v + vl). */
typedef struct span {
	const char *k, *v;
	uint32_t kl, vl;
} span;

/* The Java hashCode of the encoded key at k (type kt) into *h (with
 * flink_strings a string's is BinaryStringData's): 0, 1 when its type has
 * none (javahash.h), or SL_ESTATE. */
static int key_hash(const char *k, uint32_t kl, sl_type kt, int flink_strings, uint32_t *h)
{
	union {
		int64_t i;
		double f;
		sl_i128 d;
		sl_str s;
	} cell;
	uint8_t nul = 0;
	sl_col c = {.type = kt, .null = &nul};
	c.v.data = &cell;
	sl_unpack u = {.p = k, .end = k + kl, .n = 1};
	if (kt.id == SL_T_ROW || kt.id == SL_T_ARRAY || kt.id == SL_T_MAP ||
	    sl_type_is_binary(kt))
		return 1;
	if (sl_unpack_next(&u, NULL, &c, 0))
		return SL_ESTATE;
	if (flink_strings && !nul && (kt.id == SL_T_CHAR || kt.id == SL_T_VARCHAR)) {
		*h = sl_flink_string_hash(cell.s.ptr, cell.s.len);
		return 0;
	}
	return sl_java_hash(&c, 0, h);
}

/* sl_pack_map_dedup, and with java_order 1 the HashMap order too (2:
 * string keys hashed as Flink's BinaryStringData) */
static int map_unique(sl_buf *buf, sl_type kt, sl_type vt, sl_buf *tmp, int java_order)
{
	sl_unpack u;
	if (sl_unpack_open(&u, buf->p, (int64_t)buf->len))
		return SL_ESTATE;
	uint32_t n = u.n, kept = 0;
	/* tmp: the spans, the keys' hashes, the HashMap order, the new bytes */
	size_t hat = (size_t)n * sizeof(span), oat = hat + (size_t)n * sizeof(uint32_t);
	size_t at = oat + (size_t)n * sizeof(int);
	sl_buf_clear(tmp);
	if (sl_buf_reserve(tmp, at))
		return SL_ENOMEM;
	span *s = (span *)tmp->p;
	for (uint32_t i = 0; i < n; i++) {
		span e;
		e.k = u.p;
		if (sl_unpack_skip(&u, kt))
			return SL_ESTATE;
		e.kl = (uint32_t)(u.p - e.k);
		e.v = u.p;
		if (sl_unpack_skip(&u, vt))
			return SL_ESTATE;
		e.vl = (uint32_t)(u.p - e.v);
		uint32_t j = 0;
		while (j < kept && !(s[j].kl == e.kl && memcmp(s[j].k, e.k, e.kl) == 0))
			j++;
		if (j < kept) /* a repeated key: its last value, at the first position */
			s[j].v = e.v, s[j].vl = e.vl;
		else
			s[kept++] = e;
	}
	uint32_t *hash = (uint32_t *)(tmp->p + hat);
	int *order = (int *)(tmp->p + oat), moved = 0;
	for (uint32_t j = 0; j < kept; j++)
		order[j] = (int)j;
	/* mode 2 (the json reader) orders string keys only: Flink's reads no
	 * other key type, so there is no order of its to follow */
	if (java_order == 2 && kt.id != SL_T_CHAR && kt.id != SL_T_VARCHAR)
		java_order = 0;
	if (java_order && kt.id != SL_T_NULL && kept > 1) {
		int rc = 0;
		for (uint32_t j = 0; j < kept && !rc; j++)
			rc = key_hash(s[j].k, s[j].kl, kt, java_order == 2, &hash[j]);
		if (rc < 0)
			return rc;
		if (!rc) {
			sl_java_map_order(hash, (int)kept, order);
			for (uint32_t j = 0; j < kept; j++)
				moved |= order[j] != (int)j;
		}
	}
	if (kept == n && !moved)
		return (int)n;
	/* rebuild after the spans, then move over the original */
	size_t len = 4;
	for (uint32_t j = 0; j < kept; j++)
		len += (size_t)s[j].kl + s[j].vl;
	if (sl_buf_reserve(tmp, at + len))
		return SL_ENOMEM;
	s = (span *)tmp->p;
	order = (int *)(tmp->p + oat);
	char *d = tmp->p + at;
	memcpy(d, &kept, 4);
	d += 4;
	for (uint32_t j = 0; j < kept; j++) {
		const span *e = &s[order[j]];
		memcpy(d, e->k, e->kl);
		d += e->kl;
		memcpy(d, e->v, e->vl);
		d += e->vl;
	}
	memcpy(buf->p, tmp->p + at, len);
	buf->len = len;
	return (int)kept;
}

int sl_pack_map_dedup(sl_buf *buf, sl_type kt, sl_type vt, sl_buf *tmp)
{
	return map_unique(buf, kt, vt, tmp, 0);
}

int sl_pack_map_hashmap(sl_buf *buf, sl_type kt, sl_type vt, sl_buf *tmp, int flink_strings)
{
	return map_unique(buf, kt, vt, tmp, flink_strings ? 2 : 1);
}
