/*
 * keygroup.h - key groups: the unit in which keyed state is partitioned
 * over the parallel instances of an operator and moved when a job is
 * rescaled (keygroup.c; docs/state.md "Key groups").
 *
 * Flink's KeyGroupRangeAssignment, with our key bytes for Java's
 * hashCode():
 *
 *   group of a key        murmur(hash(key bytes)) % maxp
 *   instance of a group   group * p / maxp
 *   groups of instance i  [ceil(i * maxp / p), ceil((i + 1) * maxp / p) - 1]
 *                         = [(i * maxp + p - 1) / p, ((i + 1) * maxp - 1) / p]
 *
 * maxp is 'pipeline.max-parallelism' (1..32768, default 128), p the
 * operator's parallelism (1..maxp).  The key bytes are the partitioning
 * key in the key form of data/rowcodec.h (doubles canonical), so SQL-equal
 * keys fall in one group whatever the operator; an empty key (an operator
 * without a key: a global aggregate) is group 0 by definition.  hash() is
 * a 32-bit MurmurHash3 (x86_32, seed 0) of the bytes, written here and
 * pinned by tests/unit/test_keygroup.c: groups are stored in snapshots,
 * so these functions never change (unlike base/hash.h's, which only
 * in-memory tables use).
 */
#ifndef SL_KEYGROUP_H
#define SL_KEYGROUP_H

#include <stdint.h>
#include <string.h>

#include "types.h"

#define SL_KG_DEFAULT_MAXP 128   /* Flink's default lower bound */
#define SL_KG_MAX_MAXP 32768     /* Flink's UPPER_BOUND_MAX_PARALLELISM */

/* The functions below, inline for callers that hash every row (a hash
 * exchange); the out-of-line sl_keygroup_hash/_murmur/_of are the same
 * code.  Internal helpers first. */
static inline uint32_t sl_kg_rotl32(uint32_t x, int r)
{
	return (x << r) | (x >> (32 - r));
}

static inline uint32_t sl_kg_fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static inline uint32_t sl_keygroup_hash_inline(const void *p, uint32_t n)
{
	const uint8_t *s = p;
	const uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
	uint32_t h = 0;
	uint32_t nblocks = n / 4;
	for (uint32_t i = 0; i < nblocks; i++) {
		/* little-endian blocks whatever the machine: the value is stored.
		 * Why a memcpy load on a little-endian machine: gcc 12 did not
		 * merge the four byte loads (11 instructions a block instead of 1;
		 * a hash exchange hashes every row's key) */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		uint32_t k;
		memcpy(&k, s + 4 * i, 4);
#else
		uint32_t k = (uint32_t)s[4 * i] | (uint32_t)s[4 * i + 1] << 8 |
		             (uint32_t)s[4 * i + 2] << 16 | (uint32_t)s[4 * i + 3] << 24;
#endif
		k *= c1;
		k = sl_kg_rotl32(k, 15);
		k *= c2;
		h ^= k;
		h = sl_kg_rotl32(h, 13);
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
		k = sl_kg_rotl32(k, 15);
		k *= c2;
		h ^= k;
	}
	h ^= n;
	return sl_kg_fmix32(h);
}

/*
 * sl_keygroup_hash_inline of the key form of one non-NULL string of len
 * bytes at s (data/rowcodec.h: the null byte 0, len as 4 little-endian
 * bytes, the bytes), read from the string where it lies instead of from a
 * copy of the form.  Only on a little-endian machine (SL_KG_HASH_STR is
 * defined then) and for len >= 3; callers form the key otherwise.  Why:
 * the hash sender formed each row's key on the stack (sl_rowcodec_key1)
 * and hashed it at once; the first 4-byte load of the form spans the
 * stores of the null byte, the length and the bytes, which the CPU cannot
 * forward (a store-forwarding stall), and in perf of bench job 1 at
 * parallelism 2 (10 M orders, cpu-clock) 13% of the sender's samples sat
 * on that load.  Byte j >= 5 of the form is s[j - 5], so block i >= 2 is
 * the 4 bytes at s + 4i - 5.  test_keygroup checks it against the form
 * for lengths 3 to 100 at every alignment.
 */
static inline uint32_t sl_kg_block(uint32_t h, uint32_t k)
{
	k *= 0xcc9e2d51u;
	k = sl_kg_rotl32(k, 15);
	k *= 0x1b873593u;
	h ^= k;
	h = sl_kg_rotl32(h, 13);
	return h * 5 + 0xe6546b64u;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SL_KG_HASH_STR 1
static inline uint32_t sl_keygroup_hash_str_inline(const char *p, uint32_t len)
{
	const uint8_t *s = (const uint8_t *)p;
	uint32_t n = len + 5, nblocks = n / 4, k;
	uint32_t h = sl_kg_block(0, len << 8); /* 0, len's low 3 bytes */
	if (len >= 4) {
		memcpy(&k, s, 4);
		k <<= 8;
	} else {
		k = (uint32_t)s[0] << 8 | (uint32_t)s[1] << 16 | (uint32_t)s[2] << 24;
	}
	h = sl_kg_block(h, k | len >> 24); /* len's top byte, s[0..3) */
	for (uint32_t i = 2; i < nblocks; i++) {
		memcpy(&k, s + 4 * i - 5, 4);
		h = sl_kg_block(h, k);
	}
	const uint8_t *tail = s + 4 * nblocks - 5;
	k = 0;
	switch (n & 3) {
	case 3: k ^= (uint32_t)tail[2] << 16; /* fall through */
	case 2: k ^= (uint32_t)tail[1] << 8;  /* fall through */
	case 1:
		k ^= tail[0];
		k *= 0xcc9e2d51u;
		k = sl_kg_rotl32(k, 15);
		k *= 0x1b873593u;
		h ^= k;
	}
	h ^= n;
	return sl_kg_fmix32(h);
}
#endif

/* Flink's end of MathUtils.murmurHash: v when v >= 0, -v when v < 0 but
 * not INT32_MIN, 0 for INT32_MIN; without a branch (|v|, then the top bit
 * cleared, which only INT32_MIN's |v| has).  Why: the sign is random, and
 * the branch was mispredicted for half the rows of a hash exchange (perf
 * of bench job 1 at parallelism 2: 13% of the sender's samples on it). */
static inline int32_t sl_kg_abs31(int32_t v)
{
	uint32_t s = (uint32_t)(v >> 31); /* all ones when negative */
	return (int32_t)((((uint32_t)v ^ s) - s) & 0x7fffffffu);
}

static inline int32_t sl_keygroup_murmur_inline(int32_t code)
{
	uint32_t c = (uint32_t)code;
	c *= 0xcc9e2d51u;
	c = sl_kg_rotl32(c, 15);
	c *= 0x1b873593u;
	c = sl_kg_rotl32(c, 13);
	c = c * 5 + 0xe6546b64u;
	c ^= 4;
	return sl_kg_abs31((int32_t)sl_kg_fmix32(c));
}

static inline int sl_keygroup_of_inline(const void *p, uint32_t n, int maxp)
{
	if (n == 0)
		return 0;
	return sl_keygroup_murmur_inline((int32_t)sl_keygroup_hash_inline(p, n)) % maxp;
}

/* MurmurHash3 x86_32 with seed 0 of p[0..n): the "hashCode" of a key. */
uint32_t sl_keygroup_hash(const void *p, uint32_t n);

/* Flink's MathUtils.murmurHash of a 32-bit code: non-negative. */
int32_t sl_keygroup_murmur(int32_t code);

/* The key group (0..maxp-1) of the partitioning key p[0..n); 0 when n is
 * 0.  maxp must be 1..SL_KG_MAX_MAXP. */
int sl_keygroup_of(const void *p, uint32_t n, int maxp);

/* The instance (0..par-1) owning group kg at parallelism par (1..maxp). */
static inline int sl_keygroup_instance(int kg, int par, int maxp)
{
	return (int)((int64_t)kg * par / maxp);
}

/* The first and last group (inclusive) owned by instance i (0..par-1) at
 * parallelism par (1..maxp).  Every instance owns at least one group. */
static inline void sl_keygroup_range(int i, int par, int maxp, int *first, int *last)
{
	*first = (int)(((int64_t)i * maxp + par - 1) / par);
	*last = (int)((((int64_t)i + 1) * maxp - 1) / par);
}

/*
 * The length of the key-form encoding of n columns of types types[0..n)
 * at the start of key[0..klen) (data/rowcodec.h's layout): how a table
 * whose keys are "partitioning key, then more" finds the partitioning
 * key.  Returns the length, or -1 when the bytes are shorter than the
 * columns (malformed).
 */
int64_t sl_keygroup_key_prefix(const void *key, uint32_t klen, const sl_type *types, int n);

#endif
