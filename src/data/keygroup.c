/*
 * keygroup.c - key groups of partitioning keys, the ranges of groups the
 * parallel instances of an operator own, and the partitioning-key prefix
 * of a state key (keygroup.h; docs/state.md "Key groups").
 *
 * The formulas are Flink's KeyGroupRangeAssignment and MathUtils.murmurHash
 * (re-implemented from their definitions); the hash of the key bytes that
 * stands in for Java's hashCode() is MurmurHash3 x86_32 with seed 0,
 * written in keygroup.h as inline functions (a hash exchange hashes every
 * row) that the functions here wrap.
 * Everything here is pure arithmetic on its arguments: any thread.  The
 * values are stored in snapshots (the group of every block of state), so
 * they are pinned by tests/unit/test_keygroup.c and never change.
 */
#include "keygroup.h"

#include <string.h>

uint32_t sl_keygroup_hash(const void *p, uint32_t n)
{
	return sl_keygroup_hash_inline(p, n);
}

int32_t sl_keygroup_murmur(int32_t code)
{
	return sl_keygroup_murmur_inline(code);
}

int sl_keygroup_of(const void *p, uint32_t n, int maxp)
{
	return sl_keygroup_of_inline(p, n, maxp);
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
