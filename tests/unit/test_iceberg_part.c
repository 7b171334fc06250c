/*
 * test_iceberg_part.c - unit tests of the iceberg sink's partition
 * transforms (src/connector/conn_iceberg_part.c): murmur3 against the
 * Iceberg spec's bucket hash examples, the 'partitioning' option's
 * parser and its refusals, and year/month/day/hour/bucket/truncate
 * values (Avro-encoded, as manifests hold them) and directory names,
 * before 1970 too.  tests/integration/iceberg.sh checks a partitioned
 * table's values against pyiceberg's own transforms.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connector/conn_iceberg_int.h"
#include "format/avro.h"
#include "harness.h"
#include "sluice.h"

static void le8(int64_t v, uint8_t out[8])
{
	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t)((uint64_t)v >> (8 * i));
}

static void test_murmur_spec(void **st)
{
	(void)st;
	uint8_t b[8];
	/* format/spec.md, "Bucket Transform Details": int and long 34, date
	 * 2017-11-16, timestamp 2017-11-16T22:31:08, "iceberg", bytes 00 01 02 03 */
	le8(34, b);
	assert_int_equal((int32_t)sl__ice_murmur3(b, 8), 2017239379);
	le8(17486, b);
	assert_int_equal((int32_t)sl__ice_murmur3(b, 8), -653330422);
	le8(1510871468000000LL, b);
	assert_int_equal((int32_t)sl__ice_murmur3(b, 8), -2047944441);
	assert_int_equal((int32_t)sl__ice_murmur3("iceberg", 7), 1210000089);
	assert_int_equal((int32_t)sl__ice_murmur3("\0\1\2\3", 4), -188683207);
}

static sl_field F[] = {
	{"ts", {.id = SL_T_TIMESTAMP, .precision = 3}},
	{"d", {.id = SL_T_DATE}},
	{"n", {.id = SL_T_BIGINT}},
	{"s", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
	{"x", {.id = SL_T_DECIMAL, .precision = 10, .scale = 2}},
};

static void test_parse(void **st)
{
	(void)st;
	ice_pfield *pf;
	int n;
	sl_err e;
	char tb[32];
	int part[] = {1};
	sl_err_clear(&e);
	assert_int_equal(sl__ice_partitioning(" hour(ts), bucket(s, 16) ,truncate( n , 10), s",
	                                      part, 1, F, 5, "t", &pf, &n, &e), 0);
	assert_int_equal(n, 5);
	const char *names[] = {"d", "ts_hour", "s_bucket", "n_trunc", "s"};
	const char *tr[] = {"identity", "hour", "bucket[16]", "truncate[10]", "identity"};
	for (int i = 0; i < 5; i++) {
		assert_string_equal(pf[i].name, names[i]);
		assert_string_equal(sl__ice_transform_name(&pf[i], tb, sizeof tb), tr[i]);
		assert_int_equal(pf[i].field_id, 1000 + i);
	}
	sl__ice_pfields_free(pf, n);
	static const char *const bad[][2] = {
		{"hour(d)", "hour does not apply to column 'd' of type DATE"},
		{"month(q)", "no column 'q'"},
		{"bucket(s)", "expected a comma-separated list"},
		{"x", "identity does not apply to column 'x' of type DECIMAL(10, 2)"},
		{"day(ts), day(ts)", "partition field 'ts_day' twice"},
		{"minute(ts)", "expected a comma-separated list"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		sl_err_clear(&e);
		assert_int_not_equal(sl__ice_partitioning(bad[i][0], NULL, 0, F, 5, "t", &pf, &n, &e), 0);
		if (!strstr(e.msg, bad[i][1]))
			fail_msg("'%s': %s", bad[i][0], e.msg);
		sl__ice_pfields_free(pf, n);
	}
}

/* The partition value of one row as (branch, long) and its directory. */
static int64_t value_of(const char *spec, int col, int64_t v, const char *s, char *dir)
{
	ice_pfield *pf;
	int n;
	sl_err e;
	sl_err_clear(&e);
	assert_int_equal(sl__ice_partitioning(spec, NULL, 0, F, 5, "t", &pf, &n, &e), 0);
	uint8_t isnull = 0;
	sl_str str = {s, s ? (int64_t)strlen(s) : 0};
	sl_col c = {.type = F[col].type, .null = &isnull};
	if (s)
		c.v.str = &str;
	else
		c.v.i64 = &v;
	sl_buf b, p;
	sl_buf_init(&b);
	sl_buf_init(&p);
	assert_int_equal(sl__ice_part_value(&pf[0], &c, 0, &b), 0);
	assert_int_equal(sl__ice_part_path(&pf[0], &c, 0, "UTC", &p), 0);
	snprintf(dir, 64, "%.*s", (int)p.len, p.p);
	sl_avro_rd r = {(const uint8_t *)b.p, (const uint8_t *)b.p + b.len, 0};
	assert_int_equal(sl_avro_get_long(&r), 1);
	int64_t out;
	if (s && !strncmp(spec, "truncate", 8)) {
		size_t len;
		const uint8_t *q = sl_avro_get_bytes(&r, &len);
		out = (int64_t)len;
		assert_memory_equal(q, s, len);
	} else {
		out = sl_avro_get_long(&r);
	}
	assert_true(r.p == r.end && !r.bad);
	sl_buf_deinit(&b);
	sl_buf_deinit(&p);
	sl__ice_pfields_free(pf, n);
	return out;
}

static void test_values(void **st)
{
	(void)st;
	char dir[64];
	const int64_t ts = 1785574800000000LL + 123; /* 2026-08-01 09:00:00.000123 */
	assert_int_equal(value_of("hour(ts)", 0, ts, NULL, dir), 1785574800 / 3600);
	assert_string_equal(dir, "ts_hour=2026-08-01-09/");
	assert_int_equal(value_of("day(ts)", 0, ts, NULL, dir), 20666);
	assert_string_equal(dir, "ts_day=2026-08-01/");
	assert_int_equal(value_of("month(ts)", 0, ts, NULL, dir), 56 * 12 + 7);
	assert_string_equal(dir, "ts_month=2026-08/");
	assert_int_equal(value_of("year(ts)", 0, ts, NULL, dir), 56);
	assert_string_equal(dir, "ts_year=2026/");
	/* before 1970: floor, not truncation towards zero */
	assert_int_equal(value_of("hour(ts)", 0, -1, NULL, dir), -1);
	assert_string_equal(dir, "ts_hour=1969-12-31-23/");
	assert_int_equal(value_of("day(ts)", 0, -1, NULL, dir), -1);
	assert_int_equal(value_of("month(ts)", 0, -1, NULL, dir), -1);
	assert_string_equal(dir, "ts_month=1969-12/");
	assert_int_equal(value_of("year(d)", 1, -1, NULL, dir), -1);
	assert_int_equal(value_of("day(d)", 1, 17486, NULL, dir), 17486);
	assert_string_equal(dir, "d_day=2017-11-16/");
	/* bucket: the spec's hashes, (h & INT_MAX) % n */
	assert_int_equal(value_of("bucket(n, 100)", 2, 34, NULL, dir), 2017239379 % 100);
	assert_string_equal(dir, "n_bucket=79/");
	assert_int_equal(value_of("bucket(s, 7)", 3, 0, "iceberg", dir), 1210000089 % 7);
	assert_int_equal(value_of("bucket(d, 10)", 1, 17486, NULL, dir),
	                 (int64_t)((uint32_t)-653330422 & 0x7fffffff) % 10);
	/* truncate: v - (v mod w), floor for negatives; code points of strings */
	assert_int_equal(value_of("truncate(n, 10)", 2, 1, NULL, dir), 0);
	assert_int_equal(value_of("truncate(n, 10)", 2, -1, NULL, dir), -10);
	assert_string_equal(dir, "n_trunc=-10/");
	assert_int_equal(value_of("truncate(s, 3)", 3, 0, "iceberg", dir), 3);
	assert_string_equal(dir, "s_trunc=ice/");
	assert_int_equal(value_of("truncate(s, 2)", 3, 0, "\xc3\xa9t\xc3\xa9", dir), 3); /* "ét" */
	assert_string_equal(dir, "s_trunc=%C3%A9t/");
	assert_int_equal(value_of("truncate(s, 9)", 3, 0, "ab", dir), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_murmur_spec),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_values),
	};
	return cmocka_run_group_tests_name("iceberg_part", tests, NULL, NULL);
}
