/*
 * test_avro.c - unit tests of sluice's Avro encoder and container framing
 * (src/format/avro_write.c, avro_read.c): the specification's example
 * encodings of longs and strings byte for byte, round trips of every
 * primitive at its extremes, a container file with header metadata and
 * several blocks read back, and damaged containers refused.  The files the
 * Iceberg sink writes with it are read by npm avsc and pyiceberg in
 * tests/iceberg/.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "format/avro.h"
#include "harness.h"

static void test_spec_examples(void **st)
{
	(void)st;
	/* Avro 1.11 "Binary Encoding": 0 -> 00, -1 -> 01, 1 -> 02, -2 -> 03,
	 * 2 -> 04, -64 -> 7f, 64 -> 80 01; "foo" -> 06 66 6f 6f */
	static const struct { int64_t v; const char *hex; } ex[] = {
		{0, "00"}, {-1, "01"}, {1, "02"}, {-2, "03"}, {2, "04"}, {-64, "7f"}, {64, "8001"},
	};
	for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
		sl_buf b;
		char hex[32] = "";
		sl_buf_init(&b);
		assert_int_equal(sl_avro_long(&b, ex[i].v), 0);
		for (size_t k = 0; k < b.len; k++)
			snprintf(hex + 2 * k, 3, "%02x", (uint8_t)b.p[k]);
		assert_string_equal(hex, ex[i].hex);
		sl_buf_deinit(&b);
	}
	sl_buf b;
	sl_buf_init(&b);
	sl_avro_string(&b, "foo");
	assert_int_equal(b.len, 4);
	assert_memory_equal(b.p, "\x06" "foo", 4);
	sl_buf_deinit(&b);
}

static void test_roundtrip(void **st)
{
	(void)st;
	static const int64_t longs[] = {0, 1, -1, 63, -64, 64, 127, 128, 300, -300, INT32_MAX,
	                                INT32_MIN, INT64_MAX, INT64_MIN, 1234567890123LL};
	sl_buf b;
	sl_buf_init(&b);
	for (size_t i = 0; i < sizeof longs / sizeof longs[0]; i++)
		sl_avro_long(&b, longs[i]);
	sl_avro_bool(&b, 1);
	sl_avro_bool(&b, 0);
	sl_avro_double(&b, -2.5e300);
	sl_avro_bytes(&b, "\0\1\2", 3);
	sl_avro_string(&b, "");
	sl_avro_rd r = {(const uint8_t *)b.p, (const uint8_t *)b.p + b.len, 0};
	for (size_t i = 0; i < sizeof longs / sizeof longs[0]; i++)
		assert_true(sl_avro_get_long(&r) == longs[i]);
	assert_int_equal(sl_avro_get_bool(&r), 1);
	assert_int_equal(sl_avro_get_bool(&r), 0);
	assert_true(sl_avro_get_double(&r) == -2.5e300);
	size_t n;
	const uint8_t *p = sl_avro_get_bytes(&r, &n);
	assert_int_equal(n, 3);
	assert_memory_equal(p, "\0\1\2", 3);
	p = sl_avro_get_bytes(&r, &n);
	assert_non_null(p);
	assert_int_equal(n, 0);
	assert_int_equal(r.bad, 0);
	assert_true(r.p == r.end);
	(void)sl_avro_get_long(&r); /* past the end */
	assert_int_equal(r.bad, 1);
	/* a string whose length runs past the end */
	sl_buf_clear(&b);
	sl_avro_long(&b, 10);
	sl_buf_append(&b, "abc", 3);
	sl_avro_rd r2 = {(const uint8_t *)b.p, (const uint8_t *)b.p + b.len, 0};
	assert_null(sl_avro_get_bytes(&r2, &n));
	assert_int_equal(r2.bad, 1);
	sl_buf_deinit(&b);
}

static void test_container(void **st)
{
	(void)st;
	const char *schema = "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
	                     "{\"name\":\"id\",\"type\":\"long\"},"
	                     "{\"name\":\"s\",\"type\":[\"null\",\"string\"]}]}";
	const char *meta[] = {"format-version", "2", "content", "data"};
	sl_avro_file f;
	assert_int_equal(sl_avro_file_begin(&f, schema, meta, 2), 0);
	char s[32];
	const int N = 20000; /* several 64 KiB blocks */
	for (int i = 0; i < N; i++) {
		sl_avro_long(&f.block, i * 7 - 5);
		if (i % 3 == 0) {
			sl_avro_long(&f.block, 0); /* union branch null */
		} else {
			snprintf(s, sizeof s, "row-%d", i);
			sl_avro_long(&f.block, 1);
			sl_avro_string(&f.block, s);
		}
		assert_int_equal(sl_avro_file_record(&f), 0);
	}
	assert_int_equal(sl_avro_file_end(&f), 0);

	sl_avro_in in;
	const char *why = NULL;
	assert_int_equal(sl_avro_open(&in, f.out.p, f.out.len, &why), 0);
	size_t n;
	const uint8_t *v = sl_avro_meta(&in, "avro.schema", &n);
	assert_non_null(v);
	assert_int_equal(n, strlen(schema));
	assert_memory_equal(v, schema, n);
	v = sl_avro_meta(&in, "content", &n);
	assert_int_equal(n, 4);
	assert_memory_equal(v, "data", 4);
	assert_null(sl_avro_meta(&in, "missing", &n));
	sl_avro_rd blk;
	int64_t count, seen = 0;
	int blocks = 0, rc;
	while ((rc = sl_avro_next_block(&in, &blk, &count)) == 1) {
		blocks++;
		for (int64_t k = 0; k < count; k++, seen++) {
			assert_true(sl_avro_get_long(&blk) == seen * 7 - 5);
			int64_t br = sl_avro_get_long(&blk);
			assert_true(br == (seen % 3 == 0 ? 0 : 1));
			if (br) {
				const uint8_t *p = sl_avro_get_bytes(&blk, &n);
				snprintf(s, sizeof s, "row-%d", (int)seen);
				assert_int_equal(n, strlen(s));
				assert_memory_equal(p, s, n);
			}
		}
		assert_int_equal(blk.bad, 0);
		assert_true(blk.p == blk.end);
	}
	assert_int_equal(rc, 0);
	assert_true(seen == N);
	assert_true(blocks > 1);

	/* damaged: a flipped sync marker byte, a cut file, no magic */
	f.out.p[f.out.len - 1] ^= 1;
	assert_int_equal(sl_avro_open(&in, f.out.p, f.out.len, &why), 0);
	while ((rc = sl_avro_next_block(&in, &blk, &count)) == 1)
		;
	assert_int_equal(rc, -1);
	f.out.p[f.out.len - 1] ^= 1;
	assert_int_equal(sl_avro_open(&in, f.out.p, 40, &why), -1);
	assert_int_equal(sl_avro_open(&in, "Obj\x02", 4, &why), -1);
	assert_string_equal(why, "not an Avro object container file");
	sl_avro_file_deinit(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_examples),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_container),
	};
	return cmocka_run_group_tests_name("avro", tests, NULL, NULL);
}
