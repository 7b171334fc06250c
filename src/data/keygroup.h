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

#include "types.h"

#define SL_KG_DEFAULT_MAXP 128   /* Flink's default lower bound */
#define SL_KG_MAX_MAXP 32768     /* Flink's UPPER_BOUND_MAX_PARALLELISM */

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
