/*
 * test_keygroup.c - unit tests of src/data/keygroup.c: the pinned hash of
 * key bytes (MurmurHash3 x86_32 reference vectors) and of Flink's
 * MathUtils.murmurHash (values computed by an independent Python
 * re-implementation of both, with Java's int semantics), the groups of
 * keys in the key form, the ranges of instances and the instance of a
 * group under Flink's formulas (maxp not divisible by p, p = maxp, p = 1,
 * the bounds), the partitioning-key prefix of composite state keys, and
 * the hash of a string's key form read from the string itself
 * (sl_keygroup_hash_str_inline, the hash exchange's) against the hash of
 * the form, for lengths 3 to 100 at every alignment, and the branchless
 * end of Flink's murmurHash.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "data/keygroup.h"
#include "data/rowcodec.h"
#include "sluice.h"

static void test_pinned_hashes(void **state)
{
	(void)state;
	const char *fox = "The quick brown fox jumps over the lazy dog";
	assert_int_equal(sl_keygroup_hash("", 0), 0);
	assert_int_equal(sl_keygroup_hash("hello", 5), 0x248bfa47u);
	assert_int_equal(sl_keygroup_hash(fox, (uint32_t)strlen(fox)), 0x2e4ff723u);
	/* Flink's murmurHash of Integer hash codes */
	assert_int_equal(sl_keygroup_murmur(0), 593689054);
	assert_int_equal(sl_keygroup_murmur(1), 68075478);
	assert_int_equal(sl_keygroup_murmur(-1), 1982413648);
	assert_int_equal(sl_keygroup_murmur(42), 1134849565);
	assert_int_equal(sl_keygroup_murmur(INT32_MAX), 1653689534);
	assert_int_equal(sl_keygroup_murmur(INT32_MIN), 1718298732);
	/* key-form bytes: BIGINT 7, a NULL, STRING 'alice' (the groups are in
	 * snapshots: these must never change) */
	const uint8_t big7[9] = {0, 7, 0, 0, 0, 0, 0, 0, 0};
	const uint8_t null1[1] = {1};
	const uint8_t alice[10] = {0, 5, 0, 0, 0, 'a', 'l', 'i', 'c', 'e'};
	assert_int_equal(sl_keygroup_hash(big7, 9), 0xe2b4b4c0u);
	assert_int_equal(sl_keygroup_of(big7, 9, 128), 52);
	assert_int_equal(sl_keygroup_of(null1, 1, 128), 72);
	assert_int_equal(sl_keygroup_of(alice, 10, 128), 109);
	/* no key: group 0 */
	assert_int_equal(sl_keygroup_of("", 0, 128), 0);
	assert_int_equal(sl_keygroup_of(big7, 9, 1), 0);
}

/* The groups of SQL-equal keys are equal: -0.0 and 0.0 as DOUBLE keys. */
static void test_equal_keys_one_group(void **state)
{
	(void)state;
	sl_type t = sl_type_make(SL_T_DOUBLE);
	sl_batch *b = sl_batch_new(1, &t, 2);
	assert_non_null(b);
	b->cols[0].v.f64[0] = 0.0;
	b->cols[0].v.f64[1] = -0.0;
	b->cols[0].null[0] = b->cols[0].null[1] = 0;
	b->nrows = 2;
	sl_buf k0, k1;
	sl_buf_init(&k0);
	sl_buf_init(&k1);
	int col = 0;
	assert_int_equal(sl_rowcodec_key(b, &col, 1, 0, &k0), 0);
	assert_int_equal(sl_rowcodec_key(b, &col, 1, 1, &k1), 0);
	assert_int_equal(sl_keygroup_of(k0.p, (uint32_t)k0.len, 128),
	                 sl_keygroup_of(k1.p, (uint32_t)k1.len, 128));
	sl_buf_deinit(&k0);
	sl_buf_deinit(&k1);
	sl_batch_free(b);
}

/* Checks that the ranges of par instances partition 0..maxp-1 in order,
 * each non-empty, and that every group's instance owns it. */
static void check_ranges(int par, int maxp)
{
	int next = 0;
	for (int i = 0; i < par; i++) {
		int lo, hi;
		sl_keygroup_range(i, par, maxp, &lo, &hi);
		assert_int_equal(lo, next);
		assert_true(hi >= lo);
		for (int kg = lo; kg <= hi; kg++)
			assert_int_equal(sl_keygroup_instance(kg, par, maxp), i);
		next = hi + 1;
	}
	assert_int_equal(next, maxp);
}

static void test_ranges(void **state)
{
	(void)state;
	int lo, hi;
	/* 128 over 3: 43 + 43 + 42 groups, as Flink assigns them */
	sl_keygroup_range(0, 3, 128, &lo, &hi);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 42);
	sl_keygroup_range(1, 3, 128, &lo, &hi);
	assert_int_equal(lo, 43);
	assert_int_equal(hi, 85);
	sl_keygroup_range(2, 3, 128, &lo, &hi);
	assert_int_equal(lo, 86);
	assert_int_equal(hi, 127);
	assert_int_equal(sl_keygroup_instance(42, 3, 128), 0);
	assert_int_equal(sl_keygroup_instance(43, 3, 128), 1);
	assert_int_equal(sl_keygroup_instance(127, 3, 128), 2);
	/* p = 1: everything */
	sl_keygroup_range(0, 1, 128, &lo, &hi);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 127);
	/* p = maxp: one group each */
	for (int i = 0; i < 128; i++) {
		sl_keygroup_range(i, 128, 128, &lo, &hi);
		assert_int_equal(lo, i);
		assert_int_equal(hi, i);
	}
	/* 10 over 4: [0,2] [3,4] [5,7] [8,9] */
	sl_keygroup_range(1, 4, 10, &lo, &hi);
	assert_int_equal(lo, 3);
	assert_int_equal(hi, 4);
	sl_keygroup_range(2, 4, 10, &lo, &hi);
	assert_int_equal(lo, 5);
	assert_int_equal(hi, 7);
	const int maxps[] = {1, 2, 3, 7, 100, 128, 129, 1000};
	for (size_t m = 0; m < sizeof(maxps) / sizeof(maxps[0]); m++)
		for (int par = 1; par <= maxps[m] && par <= 130; par++)
			check_ranges(par, maxps[m]);
	/* the upper bound: no overflow */
	check_ranges(1, SL_KG_MAX_MAXP);
	check_ranges(3, SL_KG_MAX_MAXP);
	check_ranges(SL_KG_MAX_MAXP - 1, SL_KG_MAX_MAXP);
	check_ranges(SL_KG_MAX_MAXP, SL_KG_MAX_MAXP);
}

/* Keys spread over all groups (1 M integer keys over 128 groups: each
 * group within 10% of the mean). */
static void test_spread(void **state)
{
	(void)state;
	static int cnt[128];
	uint8_t k[9] = {0};
	for (int64_t v = 0; v < 1000000; v++) {
		memcpy(k + 1, &v, 8);
		cnt[sl_keygroup_of(k, 9, 128)]++;
	}
	for (int g = 0; g < 128; g++)
		assert_true(cnt[g] > 7031 && cnt[g] < 8594);
}

static void test_key_prefix(void **state)
{
	(void)state;
	static sl_field f[] = {
		{"x", {SL_T_INT, 0, 0, 0, 0, NULL}},
		{"s", {SL_T_VARCHAR, 0, 0, 0, SL_STRING_LEN, NULL}},
	};
	static sl_row_type rt = {2, f};
	sl_type types[4] = {sl_type_make(SL_T_BIGINT), sl_type_varchar(SL_STRING_LEN),
	                    sl_type_decimal(38, 2), sl_type_make(SL_T_ROW)};
	types[3].row = &rt;
	uint8_t key[128];
	size_t n = 0;
	int64_t v = 5;
	uint32_t sl = 3;
	key[n++] = 0; memcpy(key + n, &v, 8); n += 8;               /* BIGINT 5 */
	key[n++] = 0; memcpy(key + n, &sl, 4); n += 4;              /* 'abc' */
	memcpy(key + n, "abc", 3); n += 3;
	key[n++] = 1;                                               /* NULL DECIMAL */
	key[n++] = 0;                                               /* ROW(1, NULL) */
	key[n++] = 0; memcpy(key + n, &v, 8); n += 8;
	key[n++] = 1;
	size_t full = n;
	key[n++] = 7; key[n++] = 9;                                 /* a suffix */
	assert_int_equal(sl_keygroup_key_prefix(key, (uint32_t)n, types, 0), 0);
	assert_int_equal(sl_keygroup_key_prefix(key, (uint32_t)n, types, 1), 9);
	assert_int_equal(sl_keygroup_key_prefix(key, (uint32_t)n, types, 2), 17);
	assert_int_equal(sl_keygroup_key_prefix(key, (uint32_t)n, types, 3), 18);
	assert_int_equal(sl_keygroup_key_prefix(key, (uint32_t)n, types, 4), (int64_t)full);
	/* truncated: every shorter buffer is refused */
	for (size_t l = 0; l < full; l++)
		assert_int_equal(sl_keygroup_key_prefix(key, (uint32_t)l, types, 4), -1);
	/* a string length past the end */
	uint8_t bad[6] = {0, 0xff, 0xff, 0xff, 0x7f, 'a'};
	assert_int_equal(sl_keygroup_key_prefix(bad, 6, &types[1], 1), -1);
}

/* sl_kg_abs31 is Flink's branch (MathUtils.murmurHash's end). */
static void test_abs31(void **state)
{
	(void)state;
	int32_t edge[] = {0, 1, -1, 2, -2, INT32_MAX, INT32_MIN, INT32_MIN + 1, INT32_MAX - 1};
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		int32_t v = edge[i];
		assert_int_equal(sl_kg_abs31(v), v >= 0 ? v : v != INT32_MIN ? -v : 0);
	}
	uint32_t x = 12345;
	for (int i = 0; i < 1000000; i++) {
		x = x * 1664525u + 1013904223u;
		int32_t v = (int32_t)x;
		assert_int_equal(sl_kg_abs31(v), v >= 0 ? v : v != INT32_MIN ? -v : 0);
	}
}

/* sl_keygroup_hash_str_inline(s, len) == sl_keygroup_hash(form of s). */
static void test_hash_str_in_place(void **state)
{
	(void)state;
#ifdef SL_KG_HASH_STR
	char text[128], form[200];
	for (int i = 0; i < (int)sizeof(text); i++)
		text[i] = (char)(i * 131 + 7); /* every byte value class, 0x80+ too */
	for (uint32_t len = 3; len <= 100; len++)
		for (int at = 0; at < 8; at++) {
			const char *s = text + at;
			form[0] = 0;
			memcpy(form + 1, &len, 4); /* little-endian here */
			memcpy(form + 5, s, len);
			assert_int_equal(sl_keygroup_hash_str_inline(s, len),
			                 sl_keygroup_hash(form, len + 5));
		}
	/* a length whose top byte (the form's 5th byte) is not 0: 16 MB */
	uint32_t big = 0x01000003u;
	char *f = malloc((size_t)big + 5);
	assert_non_null(f);
	f[0] = 0;
	memcpy(f + 1, &big, 4);
	for (uint32_t i = 0; i < big; i++)
		f[5 + i] = (char)(i * 7 + (i >> 13));
	assert_int_equal(sl_keygroup_hash_str_inline(f + 5, big), sl_keygroup_hash(f, big + 5));
	free(f);
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pinned_hashes),
		cmocka_unit_test(test_equal_keys_one_group),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_key_prefix),
		cmocka_unit_test(test_hash_str_in_place),
		cmocka_unit_test(test_abs31),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
