/*
 * fn_hash.c - MD5(string): the 32-character lowercase hex digest of the
 * string's UTF-8 bytes, as Flink's MD5 returns it.
 *
 * The digest is RFC 1321 MD5, written from the RFC's description: 64-byte
 * blocks, four rounds of sixteen operations, the additive constants
 * floor(|sin(i + 1)| * 2^32) computed once, little-endian words.  The
 * kernel keeps no state between rows; the hex text goes into the step's
 * arena (32 bytes per row).
 */
#include "expr_int.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

static uint32_t K[64];
static pthread_once_t k_once = PTHREAD_ONCE_INIT;

static const uint8_t R[64] = {
	7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
	5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
	4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
	6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
};

static void init_k(void)
{
	for (int i = 0; i < 64; i++)
		K[i] = (uint32_t)(fabs(sin((double)i + 1)) * 4294967296.0);
}

static uint32_t rotl(uint32_t v, int s)
{
	return (v << s) | (v >> (32 - s));
}

static void md5_block(uint32_t h[4], const unsigned char *blk)
{
	uint32_t w[16];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)blk[4 * i] | (uint32_t)blk[4 * i + 1] << 8 |
		       (uint32_t)blk[4 * i + 2] << 16 | (uint32_t)blk[4 * i + 3] << 24;
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
	for (int i = 0; i < 64; i++) {
		uint32_t f;
		int g;
		if (i < 16) {
			f = (b & c) | (~b & d);
			g = i;
		} else if (i < 32) {
			f = (d & b) | (~d & c);
			g = (5 * i + 1) % 16;
		} else if (i < 48) {
			f = b ^ c ^ d;
			g = (3 * i + 5) % 16;
		} else {
			f = c ^ (b | ~d);
			g = (7 * i) % 16;
		}
		uint32_t t = d;
		d = c;
		c = b;
		b = b + rotl(a + f + K[i] + w[g], R[i]);
		a = t;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
}

/* Writes the hex MD5 of (s, n) into out (32 chars, no NUL). */
static void md5_hex(const char *s, int64_t n, char *out)
{
	uint32_t h[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
	const unsigned char *p = (const unsigned char *)s;
	int64_t off = 0;
	for (; off + 64 <= n; off += 64)
		md5_block(h, p + off);
	unsigned char tail[128];
	int64_t rest = n - off;
	memcpy(tail, p + off, (size_t)rest);
	tail[rest] = 0x80;
	int tl = rest < 56 ? 64 : 128;
	memset(tail + rest + 1, 0, (size_t)(tl - rest - 1));
	uint64_t bits = (uint64_t)n * 8;
	for (int i = 0; i < 8; i++)
		tail[tl - 8 + i] = (unsigned char)(bits >> (8 * i));
	md5_block(h, tail);
	if (tl == 128)
		md5_block(h, tail + 64);
	static const char hx[] = "0123456789abcdef";
	for (int i = 0; i < 16; i++) {
		unsigned char byte = (unsigned char)(h[i / 4] >> (8 * (i % 4)));
		out[2 * i] = hx[byte >> 4];
		out[2 * i + 1] = hx[byte & 15];
	}
}

static int k_md5(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	sl_arena *ar = sl__x_arena(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = a->null[i];
		if (o->null[i])
			continue;
		char *d = sl_arena_alloc(ar, 33);
		if (!d)
			return sl_err_set(x->err, SL_ENOMEM, "out of memory in MD5");
		md5_hex(a->v.str[i].ptr, a->v.str[i].len, d);
		d[32] = 0;
		o->v.str[i].ptr = d;
		o->v.str[i].len = 32;
	});
	return 0;
}

/* Picks the MD5 kernel. */
int sl__bind_hash(sl_prog *p, sl_step *st, sl_err *err)
{
	if (st->fn != SL_FN_MD5)
		return SL_ENOTSUP;
	pthread_once(&k_once, init_k);
	st->k = k_md5;
	return 0;
}
