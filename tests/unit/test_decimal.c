/*
 * test_decimal.c - unit tests of src/data/decimal.c and the number text
 * forms of src/data/valtext.c (DOUBLE/FLOAT as Java prints them, DECIMAL
 * with its scale, intervals).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "data/decimal.h"
#include "data/valtext.h"

static sl_i128 P(const char *s, int p, int sc)
{
	sl_i128 v = 0;
	int rc = sl_dec_parse(s, strlen(s), p, sc, &v);
	assert_int_equal(rc, 0);
	return v;
}

static int PR(const char *s, int p, int sc)
{
	sl_i128 v;
	return sl_dec_parse(s, strlen(s), p, sc, &v);
}

static void test_parse_basic(void **st)
{
	assert_true(P("12.5", 10, 2) == 1250);
	assert_true(P("-0.01", 10, 2) == -1);
	assert_true(P(".5", 10, 1) == 5);
	assert_true(P("1e3", 10, 2) == 100000);
	assert_true(P("1.5E-2", 10, 3) == 15);
	assert_true(P("  7 ", 10, 0) == 7);
	assert_true(P("+3", 5, 0) == 3);
	assert_true(P("5.", 5, 0) == 5);
	assert_true(P("0000000000000000000000000000000000000000012.50", 10, 2) == 1250);
	assert_true(P("0", 1, 0) == 0);
}

static void test_parse_rounding(void **st)
{
	assert_true(P("1.005", 10, 2) == 101);   /* HALF_UP */
	assert_true(P("1.0049", 10, 2) == 100);
	assert_true(P("-1.005", 10, 2) == -101); /* away from zero */
	assert_true(P("-1.004", 10, 2) == -100);
	assert_true(P("0.5", 5, 0) == 1);
	assert_true(P("0.49999", 5, 0) == 0);
	assert_true(P("5e-1", 5, 0) == 1);
	assert_true(P("5e-3", 5, 2) == 1);
	assert_true(P("4e-3", 5, 2) == 0);
	assert_true(P("1e-30", 5, 2) == 0);
	assert_true(P("9.995", 4, 2) == 1000 - 0 + 0); /* 10.00 */
}

static void test_parse_overflow_and_errors(void **st)
{
	assert_int_equal(PR("9.995", 3, 2), -2); /* rounds to 10.00 > DECIMAL(3,2) */
	assert_int_equal(PR("1000", 3, 0), -2);
	assert_int_equal(PR("999", 3, 0), 0);
	assert_int_equal(PR("-1000", 3, 0), -2);
	assert_int_equal(PR("1e38", 38, 0), -2);
	assert_int_equal(PR("99999999999999999999999999999999999999", 38, 0), 0);
	assert_int_equal(PR("999999999999999999999999999999999999999", 38, 0), -2);
	assert_int_equal(PR("1e99999999999", 38, 0), -2);
	assert_int_equal(PR("abc", 10, 2), -1);
	assert_int_equal(PR("", 10, 2), -1);
	assert_int_equal(PR("-", 10, 2), -1);
	assert_int_equal(PR(".", 10, 2), -1);
	assert_int_equal(PR("1e", 10, 2), -1);
	assert_int_equal(PR("1.2.3", 10, 2), -1);
	assert_int_equal(PR("1 2", 10, 2), -1);
	assert_int_equal(PR("0x10", 10, 2), -1);
}

static void check_fmt(sl_i128 v, int sc, const char *want)
{
	char b[48];
	int n = sl_dec_format(v, sc, b);
	assert_string_equal(b, want);
	assert_int_equal(n, (int)strlen(want));
}

/* Regression, found by fuzz_json and fuzz_csv (10-minute runs): the
 * int64 fast path multiplied a 19th digit before checking the digit count
 * (signed overflow, UB).  Long digit strings must take the exact path. */
static void test_parse_fuzz_long_digits(void **st)
{
	sl_i128 v;
	const char *s = "99999991999999999999999999999999992.5";
	assert_int_equal(sl_dec_parse(s, strlen(s), 38, 2, &v), 0);
	char buf[64];
	sl_dec_format(v, 2, buf);
	assert_string_equal(buf, "99999991999999999999999999999999992.50");
	s = "9999999999999999999";
	assert_int_equal(sl_dec_parse(s, strlen(s), 19, 0, &v), 0);
	assert_true(v == (sl_i128)9999999999999999999ULL);
	s = "-1000000000000000000.5";
	assert_int_equal(sl_dec_parse(s, strlen(s), 20, 0, &v), 0);
	assert_true(v == -(sl_i128)1000000000000000001LL);
}

static void test_format(void **st)
{
	check_fmt(500, 2, "5.00");
	check_fmt(1250, 2, "12.50");
	check_fmt(-1, 2, "-0.01");
	check_fmt(0, 2, "0.00");
	check_fmt(0, 0, "0");
	check_fmt(-42, 0, "-42");
	check_fmt(3001, 2, "30.01");
	sl_i128 big = P("-99999999999999999999999999999999999999", 38, 0);
	check_fmt(big, 10, "-9999999999999999999999999999.9999999999");
	check_fmt(5, 38, "0.00000000000000000000000000000000000005");
}

static void test_rescale(void **st)
{
	sl_i128 r;
	assert_int_equal(sl_dec_rescale(1255, 2, 1, 10, &r), 0);
	assert_true(r == 126);
	assert_int_equal(sl_dec_rescale(-1255, 2, 1, 10, &r), 0);
	assert_true(r == -126);
	assert_int_equal(sl_dec_rescale(1254, 2, 0, 10, &r), 0);
	assert_true(r == 13);
	assert_int_equal(sl_dec_rescale(5, 0, 2, 10, &r), 0);
	assert_true(r == 500);
	assert_int_equal(sl_dec_rescale(5, 0, 2, 2, &r), -2);
	assert_int_equal(sl_dec_rescale(1, 0, 40, 38, &r), -2);
	assert_int_equal(sl_dec_rescale(0, 0, 40, 38, &r), 0);
	assert_true(sl_dec_fits(999, 3));
	assert_false(sl_dec_fits(-1000, 3));
}

static void test_i128_checked(void **st)
{
	sl_i128 max = (sl_i128)(((unsigned __int128)1 << 127) - 1), r;
	assert_int_equal(sl_i128_add(max, 1, &r), -2);
	assert_int_equal(sl_i128_add(-max - 1, -1, &r), -2);
	assert_int_equal(sl_i128_add(max, -1, &r), 0);
	assert_int_equal(sl_i128_mul(max, 2, &r), -2);
	assert_int_equal(sl_i128_mul((sl_i128)1 << 126, -2, &r), 0);
	assert_true(r == -max - 1);
	assert_int_equal(sl_i128_mul((sl_i128)1 << 126, 2, &r), -2);
	assert_int_equal(sl_i128_mul(-7, 6, &r), 0);
	assert_true(r == -42);
}

static void test_double_conv(void **st)
{
	sl_i128 r;
	assert_true(sl_dec_to_double(1250, 2) == 12.5);
	assert_true(sl_dec_to_double(-1, 2) == -0.01);
	assert_int_equal(sl_dec_from_double(0.1, 10, 2, &r), 0);
	assert_true(r == 10);
	assert_int_equal(sl_dec_from_double(1.005, 10, 2, &r), 0); /* Java: 1.01 */
	assert_true(r == 101);
	assert_int_equal(sl_dec_from_double(-2.5, 10, 0, &r), 0);
	assert_true(r == -3);
	assert_int_equal(sl_dec_from_double(1e20, 10, 0, &r), -2);
	assert_int_equal(sl_dec_from_double(0.0 / 0.0, 10, 0, &r), -1);
}

static void check_dbl(double d, int f, const char *want)
{
	char b[40];
	int n = sl_double_text(d, f, b);
	assert_string_equal(b, want);
	assert_int_equal(n, (int)strlen(want));
}

static void test_double_text(void **st)
{
	check_dbl(5.0, 0, "5.0");
	check_dbl(0.1, 0, "0.1");
	check_dbl(-0.0, 0, "-0.0");
	check_dbl(0.0, 0, "0.0");
	check_dbl(1e10, 0, "1.0E10");
	check_dbl(1.0E7, 0, "1.0E7");
	check_dbl(9999999.0, 0, "9999999.0");
	check_dbl(0.001, 0, "0.001");
	check_dbl(0.0001, 0, "1.0E-4");
	check_dbl(123.456, 0, "123.456");
	check_dbl(1.0 / 3, 0, "0.3333333333333333");
	check_dbl(-1.5e-10, 0, "-1.5E-10");
	check_dbl(1e300 * 1e10, 0, "Infinity");
	check_dbl(31.01, 0, "31.01");
	check_dbl((float)0.1, 1, "0.1");
	check_dbl((float)(1.0 / 3), 1, "0.33333334");
	check_dbl(100.0, 0, "100.0");
	check_dbl(1234567.0, 0, "1234567.0");
}

static void test_interval_text(void **st)
{
	char b[48];
	sl_interval_dt_text(5000000, b);
	assert_string_equal(b, "+0 00:00:05.000");
	sl_interval_dt_text(-(86400000000LL * 2 + 3723004000LL), b);
	assert_string_equal(b, "-2 01:02:03.004");
	sl_interval_ym_text(14, b);
	assert_string_equal(b, "+1-02");
	sl_interval_ym_text(-3, b);
	assert_string_equal(b, "-0-03");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_basic),
		cmocka_unit_test(test_parse_rounding),
		cmocka_unit_test(test_parse_overflow_and_errors),
		cmocka_unit_test(test_parse_fuzz_long_digits),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_rescale),
		cmocka_unit_test(test_i128_checked),
		cmocka_unit_test(test_double_conv),
		cmocka_unit_test(test_double_text),
		cmocka_unit_test(test_interval_text),
	};
	return cmocka_run_group_tests_name("decimal", tests, NULL, NULL);
}
