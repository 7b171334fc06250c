/*
 * hash.h - a fast 64-bit hash for byte strings (encoded keys).
 *
 * Not cryptographic; used by the state tables and operators' hash maps.
 * Reads 8 bytes at a time with unaligned loads (memcpy) and mixes with
 * 64x64->128 multiplies, in the spirit of wyhash.  Deterministic across
 * runs and machines of the same endianness (state snapshots do not store
 * hashes, so endianness never matters for correctness).
 */
#ifndef SL_HASH_H
#define SL_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t sl_hash_mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t sl_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const uint8_t *s = p;
	const uint64_t k0 = 0xa0761d6478bd642fULL, k1 = 0xe7037ed1a0b428dbULL;
	uint64_t h = seed ^ k0 ^ (uint64_t)n;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = sl_hash_mix(h ^ w, k1);
		s += 8;
		n -= 8;
	}
	uint64_t w = 0;
	switch (n) {
	case 7: w |= (uint64_t)s[6] << 48; /* fall through */
	case 6: w |= (uint64_t)s[5] << 40; /* fall through */
	case 5: w |= (uint64_t)s[4] << 32; /* fall through */
	case 4: w |= (uint64_t)s[3] << 24; /* fall through */
	case 3: w |= (uint64_t)s[2] << 16; /* fall through */
	case 2: w |= (uint64_t)s[1] << 8;  /* fall through */
	case 1: w |= (uint64_t)s[0];
		h = sl_hash_mix(h ^ w, k1 ^ 0x8ebc6af09c88c6e3ULL);
	}
	return sl_hash_mix(h, k0 ^ 0x589965cc75374cc3ULL);
}

static inline uint64_t sl_hash_u64(uint64_t v)
{
	return sl_hash_mix(v ^ 0xa0761d6478bd642fULL, 0xe7037ed1a0b428dbULL);
}

#endif
