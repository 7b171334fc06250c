/*
 * fn_rand.c - RAND([seed]), RAND_INTEGER([seed,] bound) and UUID(), the
 * non-deterministic functions of Flink 1.20.
 *
 * Flink draws them from a java.util.Random per generated function, that is
 * per operator instance: RAND(seed) / RAND_INTEGER(seed, bound) with a
 * literal seed give, row after row, the sequence Java's Random(seed) gives
 * (nextDouble / nextInt(bound)), so a job reading the same rows in the
 * same order gets the same numbers, as in Flink; without a seed the
 * generator is seeded from the operating system.  This file implements
 * Java's 48-bit linear congruential generator exactly (the constants and
 * bit slicing of java.util.Random's documentation).  UUID() is a random
 * RFC 4122 version 4 UUID in lowercase text.  The generator lives in the
 * step's state (one per compiled program, so per operator instance) and is
 * not part of checkpoints: after a restore the sequence starts again, as
 * Flink's does.  The expression layer never folds these calls.
 */
#include "expr_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>

typedef struct jrand {
	uint64_t seed; /* 48 bits */
} jrand;

static const uint64_t MULT = 0x5DEECE66DULL, ADD = 0xBULL, MASK = (1ULL << 48) - 1;

static void jr_seed(jrand *r, int64_t seed)
{
	r->seed = ((uint64_t)seed ^ MULT) & MASK;
}

static int32_t jr_next(jrand *r, int bits)
{
	r->seed = (r->seed * MULT + ADD) & MASK;
	return (int32_t)(uint32_t)(r->seed >> (48 - bits)); /* Java's (int) wraps */
}

static double jr_double(jrand *r)
{
	return (double)(((int64_t)jr_next(r, 26) << 27) + jr_next(r, 27)) * 0x1.0p-53;
}

static int32_t jr_int(jrand *r, int32_t bound)
{
	if ((bound & -bound) == bound)
		return (int32_t)(((int64_t)bound * (int64_t)jr_next(r, 31)) >> 31);
	int32_t bits, val;
	do { /* Java's int overflow test, in unsigned arithmetic */
		bits = jr_next(r, 31);
		val = bits % bound;
	} while ((int32_t)((uint32_t)bits - (uint32_t)val + (uint32_t)(bound - 1)) < 0);
	return val;
}

static int64_t os_seed(void)
{
	int64_t s;
	if (getrandom(&s, sizeof(s), 0) != (ssize_t)sizeof(s))
		s = (int64_t)time(NULL) ^ (int64_t)(intptr_t)&s;
	return s;
}

/* The step's generator, seeded at the first row: from the literal seed
 * argument when there is one (st->op = 1), else from the OS. */
typedef struct rstate {
	jrand r;
	int seeded;
} rstate;

static void seed_once(sl_xctx *x, const sl_step *st, rstate *rs, int i)
{
	if (rs->seeded)
		return;
	const sl_col *sc = st->op ? SL_X_ARG(x, st, 0) : NULL;
	jr_seed(&rs->r, sc && !sc->null[i] ? sc->v.i64[i] : os_seed());
	rs->seeded = 1;
}

static int k_rand(sl_xctx *x, const sl_step *st)
{
	rstate *rs = st->aux;
	sl_col *o = SL_X_OUT(x, st);
	int has_bound = st->fn == SL_FN_RAND_INTEGER;
	const sl_col *bc = has_bound ? SL_X_ARG(x, st, st->nargs - 1) : NULL;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		seed_once(x, st, rs, i);
		o->null[i] = bc && bc->null[i];
		if (o->null[i])
			continue;
		if (!bc) {
			o->v.f64[i] = jr_double(&rs->r);
			continue;
		}
		int64_t b = bc->v.i64[i];
		if (b <= 0 || b > INT32_MAX)
			return sl_err_set(x->err, SL_ERUNTIME, "RAND_INTEGER: bound must be positive, got %lld",
			                  (long long)b);
		o->v.i64[i] = jr_int(&rs->r, (int32_t)b);
	});
	return 0;
}

static int k_uuid(sl_xctx *x, const sl_step *st)
{
	rstate *rs = st->aux;
	sl_col *o = SL_X_OUT(x, st);
	sl_arena *ar = sl__x_arena(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		seed_once(x, st, rs, i);
		uint64_t hi = ((uint64_t)(uint32_t)jr_next(&rs->r, 32) << 32) | (uint32_t)jr_next(&rs->r, 32);
		uint64_t lo = ((uint64_t)(uint32_t)jr_next(&rs->r, 32) << 32) | (uint32_t)jr_next(&rs->r, 32);
		hi = (hi & ~0xF000ULL) | 0x4000ULL;                 /* version 4 */
		lo = (lo & ~(3ULL << 62)) | (2ULL << 62);           /* IETF variant */
		char *d = sl_arena_alloc(ar, 37);
		if (!d)
			return sl_err_set(x->err, SL_ENOMEM, "out of memory in UUID");
		snprintf(d, 37, "%08x-%04x-%04x-%04x-%012llx", (unsigned)(hi >> 32),
		         (unsigned)((hi >> 16) & 0xFFFF), (unsigned)(hi & 0xFFFF),
		         (unsigned)(lo >> 48), (unsigned long long)(lo & 0xFFFFFFFFFFFFULL));
		o->null[i] = 0;
		o->v.str[i].ptr = d;
		o->v.str[i].len = 36;
	});
	return 0;
}

/* Picks the RAND / RAND_INTEGER / UUID kernels and gives the step its
 * generator (seeded from the literal seed argument, when there is one). */
int sl__bind_rand(sl_prog *p, sl_step *st, sl_err *err)
{
	if (st->fn != SL_FN_RAND && st->fn != SL_FN_RAND_INTEGER && st->fn != SL_FN_UUID)
		return SL_ENOTSUP;
	rstate *rs = calloc(1, sizeof(*rs));
	if (!rs || sl__prog_on_free(p, free, rs))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	st->aux = rs;
	st->op = (st->fn == SL_FN_RAND && st->nargs == 1) || (st->fn == SL_FN_RAND_INTEGER && st->nargs == 2);
	st->k = st->fn == SL_FN_UUID ? k_uuid : k_rand;
	return 0;
}
