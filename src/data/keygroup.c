/*
 * keygroup.c - key groups of partitioning keys, the ranges of groups the
 * parallel instances of an operator own, and the partitioning-key prefix
 * of a state key (keygroup.h; docs/state.md "Key groups").
 *
 * The formulas are Flink's KeyGroupRangeAssignment and MathUtils.murmurHash
 * (re-implemented from their definitions); the hash of the key bytes that
 * stands in for Java's hashCode() is MurmurHash3 x86_32 with seed 0.
 * Everything here is pure arithmetic on its arguments: any thread.  The
 * values are stored in snapshots (the group of every block of state), so
 * they are pinned by tests/unit/test_keygroup.c and never change.
 */
#include "keygroup.h"

#include <string.h>

static inline uint32_t rotl32(uint32_t x, int r)
{
	return (x << r) | (x >> (32 - r));
}

static inline uint32_t fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

uint32_t sl_keygroup_hash(const void *p, uint32_t n)
{
	const uint8_t *s = p;
	const uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
	uint32_t h = 0;
	uint32_t nblocks = n / 4;
	for (uint32_t i = 0; i < nblocks; i++) {
		/* little-endian blocks whatever the machine: the value is stored */
		uint32_t k = (uint32_t)s[4 * i] | (uint32_t)s[4 * i + 1] << 8 |
		             (uint32_t)s[4 * i + 2] << 16 | (uint32_t)s[4 * i + 3] << 24;
		k *= c1;
		k = rotl32(k, 15);
		k *= c2;
		h ^= k;
		h = rotl32(h, 13);
		h = h * 5 + 0xe6546b64u;
	}
	const uint8_t *tail = s + nblocks * 4;
	uint32_t k = 0;
	switch (n & 3) {
	case 3: k ^= (uint32_t)tail[2] << 16; /* fall through */
	case 2: k ^= (uint32_t)tail[1] << 8;  /* fall through */
	case 1:
		k ^= tail[0];
		k *= c1;
		k = rotl32(k, 15);
		k *= c2;
		h ^= k;
	}
	h ^= n;
	return fmix32(h);
}

int32_t sl_keygroup_murmur(int32_t code)
{
	uint32_t c = (uint32_t)code;
	c *= 0xcc9e2d51u;
	c = rotl32(c, 15);
	c *= 0x1b873593u;
	c = rotl32(c, 13);
	c = c * 5 + 0xe6546b64u;
	c ^= 4;
	c = fmix32(c);
	int32_t v = (int32_t)c;
	if (v >= 0)
		return v;
	return v != INT32_MIN ? -v : 0;
}

int sl_keygroup_of(const void *p, uint32_t n, int maxp)
{
	if (n == 0)
		return 0;
	return sl_keygroup_murmur((int32_t)sl_keygroup_hash(p, n)) % maxp;
}

/* Bytes of one encoded column of type t at s[0..len), or -1. */
static int64_t col_len(const uint8_t *s, uint64_t len, sl_type t)
{
	if (len < 1)
		return -1;
	if (s[0])
		return 1; /* NULL: the null byte alone (a NULL ROW too) */
	uint64_t need;
	switch (sl_type_phys(t)) {
	case SL_PHYS_I64:
	case SL_PHYS_F64: need = 8; break;
	case SL_PHYS_I128: need = 16; break;
	case SL_PHYS_STR: {
		uint32_t sl;
		if (len < 5)
			return -1;
		memcpy(&sl, s + 1, 4); /* native order, as rowcodec.c writes it */
		need = 4 + (uint64_t)sl;
		break;
	}
	case SL_PHYS_ROW: {
		uint64_t off = 1;
		int nf = t.row ? t.row->nfields : 0;
		for (int i = 0; i < nf; i++) {
			int64_t c = col_len(s + off, len - off, t.row->fields[i].type);
			if (c < 0)
				return -1;
			off += (uint64_t)c;
		}
		return (int64_t)off;
	}
	default: return -1;
	}
	return 1 + need <= len ? (int64_t)(1 + need) : -1;
}

int64_t sl_keygroup_key_prefix(const void *key, uint32_t klen, const sl_type *types, int n)
{
	const uint8_t *s = key;
	uint64_t off = 0;
	for (int i = 0; i < n; i++) {
		int64_t c = col_len(s + off, klen - off, types[i]);
		if (c < 0)
			return -1;
		off += (uint64_t)c;
	}
	return (int64_t)off;
}
