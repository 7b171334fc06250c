/*
 * fn_sha.c - SHA1, SHA224, SHA256, SHA384, SHA512 and SHA2(s, bits): the
 * lowercase hex digest of the string's UTF-8 bytes, as Flink returns them
 * (SHA2 takes 224, 256, 384 or 512; another length is an error, at
 * planning when it is a literal, as Flink's "SHA-n" digest lookup fails).
 *
 * The digests are FIPS 180-4, written from the standard's description.
 * The round constants and initial values are derived once, at first use,
 * from their definition (the first 64 bits of the fractional parts of the
 * square and cube roots of the first primes), computed exactly with a
 * small fixed-width integer root search, so no table is typed by hand:
 * SHA-512 takes the cube roots of the first 80 primes, SHA-256 their top
 * 32 bits; the IVs are square roots of primes 1-8 (SHA-256, SHA-512) and
 * 9-16 (SHA-224: low 32 bits, SHA-384).  SHA-1's five words and four
 * constants are the standard's.  Kernels keep no state between rows; the
 * hex text goes into the step's arena.
 */
#include "expr_int.h"

#include <pthread.h>
#include <string.h>

typedef unsigned __int128 u128;

static uint64_t K512[80], IV512[8], IV384[8];
static uint32_t K256[64], IV256[8], IV224[8];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* ---- exact roots: floor(p^(1/k) * 2^64), low 64 bits ---------------------- */

enum { LIMBS = 6 };

static void big_mul(const uint64_t *a, const uint64_t *b, uint64_t *r)
{
	memset(r, 0, sizeof(uint64_t) * LIMBS);
	for (int i = 0; i < LIMBS; i++) {
		u128 carry = 0;
		for (int j = 0; i + j < LIMBS; j++) {
			u128 t = (u128)a[i] * b[j] + r[i + j] + carry;
			r[i + j] = (uint64_t)t;
			carry = t >> 64;
		}
	}
}

static int big_cmp(const uint64_t *a, const uint64_t *b)
{
	for (int i = LIMBS - 1; i >= 0; i--)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static uint64_t root_frac(uint64_t p, int k)
{
	uint64_t x[LIMBS] = {0}, target[LIMBS] = {0}, t1[LIMBS], t2[LIMBS];
	target[k] = p; /* p * 2^(64k) */
	for (int bit = 70; bit >= 0; bit--) {
		uint64_t save0 = x[0], save1 = x[1];
		if (bit >= 64)
			x[1] |= 1ULL << (bit - 64);
		else
			x[0] |= 1ULL << bit;
		big_mul(x, x, t1);
		if (k == 3) {
			big_mul(t1, x, t2);
			memcpy(t1, t2, sizeof(t1));
		}
		if (big_cmp(t1, target) > 0) {
			x[0] = save0;
			x[1] = save1;
		}
	}
	return x[0];
}

static void init_constants(void)
{
	uint64_t primes[80];
	int n = 0;
	for (uint64_t c = 2; n < 80; c++) {
		int prime = 1;
		for (int i = 0; i < n && primes[i] * primes[i] <= c; i++)
			if (c % primes[i] == 0)
				prime = 0;
		if (prime)
			primes[n++] = c;
	}
	for (int i = 0; i < 80; i++)
		K512[i] = root_frac(primes[i], 3);
	for (int i = 0; i < 64; i++)
		K256[i] = (uint32_t)(K512[i] >> 32);
	for (int i = 0; i < 8; i++) {
		IV512[i] = root_frac(primes[i], 2);
		IV256[i] = (uint32_t)(IV512[i] >> 32);
		IV384[i] = root_frac(primes[i + 8], 2);
		IV224[i] = (uint32_t)IV384[i];
	}
}

/* ---- the compression functions ------------------------------------------- */

static uint32_t ror32(uint32_t v, int s) { return (v >> s) | (v << (32 - s)); }
static uint32_t rol32(uint32_t v, int s) { return (v << s) | (v >> (32 - s)); }
static uint64_t ror64(uint64_t v, int s) { return (v >> s) | (v << (64 - s)); }

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static void sha1_block(uint32_t *h, const unsigned char *blk)
{
	uint32_t w[80];
	for (int i = 0; i < 16; i++)
		w[i] = be32(blk + 4 * i);
	for (int i = 16; i < 80; i++)
		w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
	for (int i = 0; i < 80; i++) {
		uint32_t f, k;
		if (i < 20) {
			f = (b & c) | (~b & d);
			k = 0x5A827999;
		} else if (i < 40) {
			f = b ^ c ^ d;
			k = 0x6ED9EBA1;
		} else if (i < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8F1BBCDC;
		} else {
			f = b ^ c ^ d;
			k = 0xCA62C1D6;
		}
		uint32_t t = rol32(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = rol32(b, 30);
		b = a;
		a = t;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
}

static void sha256_block(uint32_t *h, const unsigned char *blk)
{
	uint32_t w[64], v[8];
	for (int i = 0; i < 16; i++)
		w[i] = be32(blk + 4 * i);
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, h, sizeof(v));
	for (int i = 0; i < 64; i++) {
		uint32_t S1 = ror32(v[4], 6) ^ ror32(v[4], 11) ^ ror32(v[4], 25);
		uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
		uint32_t t1 = v[7] + S1 + ch + K256[i] + w[i];
		uint32_t S0 = ror32(v[0], 2) ^ ror32(v[0], 13) ^ ror32(v[0], 22);
		uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
		memmove(v + 1, v, sizeof(uint32_t) * 7);
		v[4] += t1;
		v[0] = t1 + S0 + maj;
	}
	for (int i = 0; i < 8; i++)
		h[i] += v[i];
}

static void sha512_block(uint64_t *h, const unsigned char *blk)
{
	uint64_t w[80], v[8];
	for (int i = 0; i < 16; i++)
		w[i] = be64(blk + 8 * i);
	for (int i = 16; i < 80; i++) {
		uint64_t s0 = ror64(w[i - 15], 1) ^ ror64(w[i - 15], 8) ^ (w[i - 15] >> 7);
		uint64_t s1 = ror64(w[i - 2], 19) ^ ror64(w[i - 2], 61) ^ (w[i - 2] >> 6);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, h, sizeof(v));
	for (int i = 0; i < 80; i++) {
		uint64_t S1 = ror64(v[4], 14) ^ ror64(v[4], 18) ^ ror64(v[4], 41);
		uint64_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
		uint64_t t1 = v[7] + S1 + ch + K512[i] + w[i];
		uint64_t S0 = ror64(v[0], 28) ^ ror64(v[0], 34) ^ ror64(v[0], 39);
		uint64_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
		memmove(v + 1, v, sizeof(uint64_t) * 7);
		v[4] += t1;
		v[0] = t1 + S0 + maj;
	}
	for (int i = 0; i < 8; i++)
		h[i] += v[i];
}

/* Runs the Merkle-Damgard padding over (s, n) with block size bs (64 or
 * 128) and a length field of lf bytes, calling blockfn(state, block). */
static void digest(const unsigned char *s, int64_t n, int bs, int lf, void *state,
                   void (*blockfn)(void *, const unsigned char *))
{
	int64_t off = 0;
	for (; off + bs <= n; off += bs)
		blockfn(state, s + off);
	unsigned char tail[256];
	int64_t rest = n - off;
	memcpy(tail, s + off, (size_t)rest);
	tail[rest] = 0x80;
	int tl = rest + 1 + lf <= bs ? bs : 2 * bs;
	memset(tail + rest + 1, 0, (size_t)(tl - rest - 1));
	uint64_t bits = (uint64_t)n * 8;
	for (int i = 0; i < 8; i++)
		tail[tl - 1 - i] = (unsigned char)(bits >> (8 * i));
	blockfn(state, tail);
	if (tl == 2 * bs)
		blockfn(state, tail + bs);
}

static void b1(void *h, const unsigned char *p) { sha1_block(h, p); }
static void b256(void *h, const unsigned char *p) { sha256_block(h, p); }
static void b512(void *h, const unsigned char *p) { sha512_block(h, p); }

/* Hex digest of (s, n) for bits = 160 (SHA-1), 224, 256, 384 or 512 into
 * out (bits / 4 characters). */
static void sha_hex(int bits, const char *s, int64_t n, char *out)
{
	static const char hx[] = "0123456789abcdef";
	unsigned char d[64];
	const unsigned char *p = (const unsigned char *)s;
	if (bits == 160) {
		uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
		digest(p, n, 64, 8, h, b1);
		for (int i = 0; i < 20; i++)
			d[i] = (unsigned char)(h[i / 4] >> (24 - 8 * (i % 4)));
	} else if (bits <= 256) {
		uint32_t h[8];
		memcpy(h, bits == 224 ? IV224 : IV256, sizeof(h));
		digest(p, n, 64, 8, h, b256);
		for (int i = 0; i < 32; i++)
			d[i] = (unsigned char)(h[i / 4] >> (24 - 8 * (i % 4)));
	} else {
		uint64_t h[8];
		memcpy(h, bits == 384 ? IV384 : IV512, sizeof(h));
		digest(p, n, 128, 16, h, b512);
		for (int i = 0; i < 64; i++)
			d[i] = (unsigned char)(h[i / 8] >> (56 - 8 * (i % 8)));
	}
	for (int i = 0; i < bits / 8; i++) {
		out[2 * i] = hx[d[i] >> 4];
		out[2 * i + 1] = hx[d[i] & 15];
	}
}

static int k_sha(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	const sl_col *bc = st->nargs > 1 ? SL_X_ARG(x, st, 1) : NULL;
	sl_col *o = SL_X_OUT(x, st);
	sl_arena *ar = sl__x_arena(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		int bits = (int)st->k1;
		o->null[i] = a->null[i] || (bc && bc->null[i]);
		if (o->null[i])
			continue;
		if (bc) {
			int64_t v = bc->v.i64[i];
			if (v != 224 && v != 256 && v != 384 && v != 512)
				return sl_err_set(x->err, SL_ERUNTIME,
				                  "SHA2: unsupported bit length %lld (224, 256, 384 or 512)",
				                  (long long)v);
			bits = (int)v;
		}
		char *d = sl_arena_alloc(ar, (size_t)bits / 4 + 1);
		if (!d)
			return sl_err_set(x->err, SL_ENOMEM, "out of memory in '%s'", sl_fn_name(st->fn));
		sha_hex(bits, a->v.str[i].ptr, a->v.str[i].len, d);
		d[bits / 4] = 0;
		o->v.str[i].ptr = d;
		o->v.str[i].len = bits / 4;
	});
	return 0;
}

/* Picks the SHA kernels (k1 = digest bits; SHA2 reads them per row). */
int sl__bind_sha(sl_prog *p, sl_step *st, sl_err *err)
{
	switch (st->fn) {
	case SL_FN_SHA1:
		st->k1 = 160;
		break;
	case SL_FN_SHA224: st->k1 = 224; break;
	case SL_FN_SHA256: st->k1 = 256; break;
	case SL_FN_SHA384: st->k1 = 384; break;
	case SL_FN_SHA512: st->k1 = 512; break;
	case SL_FN_SHA2: {
		const sl_value *v = sl__step_const(p, st, 1);
		if (v && !v->is_null && v->v.i64 != 224 && v->v.i64 != 256 && v->v.i64 != 384 &&
		    v->v.i64 != 512)
			return sl_err_set(err, SL_EPLAN,
			                  "SHA2: unsupported bit length %lld (224, 256, 384 or 512)",
			                  (long long)v->v.i64);
		st->k1 = 0;
		break;
	}
	default: return SL_ENOTSUP;
	}
	pthread_once(&once, init_constants);
	st->k = k_sha;
	return 0;
}
