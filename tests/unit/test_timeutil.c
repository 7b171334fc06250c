/*
 * test_timeutil.c - unit tests of src/base/timeutil.c (civil dates,
 * timestamp text, Java date patterns, time zones) and of the temporal and
 * composite text forms of src/data/valtext.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/timeutil.h"
#include "data/valtext.h"
#include "data/batch.h"

static int64_t TS(const char *s)
{
	int64_t v = 0;
	assert_int_equal(sl_ts_parse(s, strlen(s), &v), 0);
	return v;
}

static int TSBAD(const char *s)
{
	int64_t v;
	return sl_ts_parse(s, strlen(s), &v);
}

static void test_civil(void **st)
{
	assert_int_equal(sl_days_from_civil(1970, 1, 1), 0);
	assert_int_equal(sl_days_from_civil(2000, 3, 1), 11017);
	assert_int_equal(sl_days_from_civil(1969, 12, 31), -1);
	assert_int_equal(sl_days_from_civil(1900, 1, 1), -25567);
	assert_int_equal(sl_days_from_civil(2026, 8, 1), 20666);
	for (int64_t d = -800000; d < 800000; d += 7) {
		int64_t y;
		unsigned m, dd;
		sl_civil_from_days(d, &y, &m, &dd);
		assert_int_equal(sl_days_from_civil(y, m, dd), d);
	}
	assert_int_equal(sl_days_in_month(2024, 2), 29);
	assert_int_equal(sl_days_in_month(1900, 2), 28);
	assert_int_equal(sl_days_in_month(2000, 2), 29);
	assert_int_equal(sl_days_in_month(2023, 2), 28);
	assert_int_equal(sl_days_in_month(2023, 13), 0);
}

static void test_ts_parse(void **st)
{
	int64_t base = 20666LL * SL_US_PER_DAY + 9 * 3600 * SL_US_PER_SEC;
	assert_true(TS("2026-08-01 09:00:00") == base);
	assert_true(TS("2026-08-01 09:00:05.12") == base + 5120000);
	assert_true(TS("2026-08-01 09:00:05.123456789") == base + 5123456);
	assert_true(TS("2026-08-01T09:00:05.123Z") == base + 5123000);
	assert_true(TS("2026-08-01T11:00:05+02:00") == base + 5000000);
	assert_true(TS("2026-08-01T04:00:05-0500") == base + 5000000);
	assert_true(TS("2026-08-01T10:00:05+01") == base + 5000000);
	assert_true(TS(" 2026-08-01 09:00 ") == base);
	assert_true(TS("2026-08-01") == base - 9 * 3600 * SL_US_PER_SEC);
	assert_true(TS("1969-12-31 23:59:59.999") == -1000);
	assert_true(TS("2024-02-29 00:00:00") == 19782LL * SL_US_PER_DAY);
	assert_true(TS("2026-8-1 9:00:00") == base);
	assert_int_equal(TSBAD("2023-02-29 00:00:00"), -1);
	assert_int_equal(TSBAD("2026-08-01 24:00:00"), -1);
	assert_int_equal(TSBAD("2026-08-01 09:60:00"), -1);
	assert_int_equal(TSBAD("2026-08-01 09:00:00."), -1);
	assert_int_equal(TSBAD("2026-08-01 09:00:00.1234567890"), -1);
	assert_int_equal(TSBAD("2026-13-01"), -1);
	assert_int_equal(TSBAD("abc"), -1);
	assert_int_equal(TSBAD(""), -1);
	assert_int_equal(TSBAD("2026-08-01 09:00:00x"), -1);
	int64_t d, t;
	assert_int_equal(sl_date_parse("1900-03-01", 10, &d), 0);
	assert_int_equal(d, -25508);
	assert_int_equal(sl_date_parse("1900-02-29", 10, &d), -1);
	assert_int_equal(sl_time_parse("09:00:05.5", 10, &t), 0);
	assert_int_equal(t, (9 * 3600 + 5) * SL_US_PER_SEC + 500000);
	assert_int_equal(sl_time_parse("9", 1, &t), -1);
}

/* sl_ts_parse_cached gives sl_ts_parse's result for every text, whatever
 * date and second its cache holds: the same date or second, another, an
 * invalid one after a valid one, the millisecond form, the other fraction
 * lengths and malformed fractions after a cached second. */
static void test_ts_parse_cached(void **st)
{
	static const char *const texts[] = {
		"2026-08-01 09:00:00.123", "2026-08-01 09:00:00.124", "2026-08-01 23:59:59.999",
		"2026-08-02 00:00:00.000", "2026-08-01 09:00:05", "2026-08-01 09:00:05.1",
		"2026-08-01 09:00:05.123456789", "2026-08-01 09:00:05.12a", "2026-08-01 24:00:00.000",
		"2026-08-01 09:00:00.1234567890", "2026-08-01T09:00:05.123Z", "2023-02-28 10:00:00.000",
		"2023-02-29 10:00:00.000", "2023-02-28 10:00:00.00x", "2023-02-28 10:60:00.000",
		"2026-08-01", "1969-12-31 23:59:59.999", "2024-02-29 00:00:00.500", "2026-08-01 9:00:00",
		"2026-08-01 09:00:05.", "2026-08-01 09:00:05x", "2026-08-01 09:00:05.1234567890",
		"2026-08-01 09:00:05.999", "2026-08-01T09:00:05.999", "2026-08-01 09:00:06.000",
		"2026-08-02 09:00:05.500",
		/* a cached date, a bad time (the date-hit path checks the time alone) */
		"2026-08-01 09:0a:05.000", "2026-08-01 09:00:5/.000", "2026-08-01 09-00:05.000",
		"2026-08-01 09:00 05.000", "2026-08-01 :9:00:05.000", "2026-08-01 19:59:59.000",
		"2026-08-01 \xb9:00:05.000",
	};
	int n = (int)(sizeof(texts) / sizeof(texts[0]));
	sl_ts_cache c;
	memset(&c, 0, sizeof(c));
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < n; i++) {
			for (int j = 0; j < n; j++) { /* cache holding texts[j]'s date (if valid) */
				int64_t a = 0, b = 0, x;
				sl_ts_parse_cached(texts[j], strlen(texts[j]), &x, &c);
				int ra = sl_ts_parse(texts[i], strlen(texts[i]), &a);
				int rb = sl_ts_parse_cached(texts[i], strlen(texts[i]), &b, &c);
				assert_int_equal(ra, rb);
				if (ra == 0)
					assert_true(a == b);
			}
		}
	/* a new date whose time is invalid must not leave the old second
	 * cached under the new date */
	int64_t v;
	memset(&c, 0, sizeof(c));
	assert_int_equal(sl_ts_parse_cached("2026-08-01 09:00:05.000", 23, &v, &c), 0);
	assert_int_equal(sl_ts_parse_cached("2026-08-02 24:00:05.000", 23, &v, &c), -1);
	assert_int_equal(sl_ts_parse_cached("2026-08-02 09:00:05.500", 23, &v, &c), 0);
	assert_true(v == TS("2026-08-02 09:00:05.500"));
	assert_int_equal(sl_ts_parse_cached("2026-08-02 09:00:05.250", 23, &v, &c), 0);
	assert_true(v == TS("2026-08-02 09:00:05.250"));
	assert_int_equal(sl_ts_parse_cached("2026-08-01 09:00:00.123", 23, &v, NULL), 0);
	assert_true(v == TS("2026-08-01 09:00:00.123"));
}

static void check_ts(int64_t us, int p, int iso, int ltz, const char *want)
{
	char b[48];
	int n = sl_ts_format(us, p, iso, ltz, b);
	assert_string_equal(b, want);
	assert_int_equal(n, (int)strlen(want));
}

static void test_ts_format(void **st)
{
	int64_t base = TS("2026-08-01 09:00:05");
	check_ts(base + 120000, 3, 0, 0, "2026-08-01 09:00:05.12");
	check_ts(base, 3, 0, 0, "2026-08-01 09:00:05");
	check_ts(base + 123456, 3, 0, 0, "2026-08-01 09:00:05.123");
	check_ts(base + 123456, 6, 0, 0, "2026-08-01 09:00:05.123456");
	check_ts(base + 123456, 0, 0, 0, "2026-08-01 09:00:05");
	check_ts(base + 123000, 3, 1, 0, "2026-08-01T09:00:05.123");
	check_ts(base + 123000, 3, 1, 1, "2026-08-01T09:00:05.123Z");
	check_ts(-1000, 3, 0, 0, "1969-12-31 23:59:59.999");
	check_ts(TS("1600-02-29 00:00:00"), 3, 0, 0, "1600-02-29 00:00:00");
	/* the per-thread text of the last second (timeutil.c): the same
	 * second in the other form, the next second, back, before 1970 */
	check_ts(base + 7000, 3, 0, 0, "2026-08-01 09:00:05.007");
	check_ts(base + 8000, 3, 1, 1, "2026-08-01T09:00:05.008Z");
	check_ts(base + 9000, 3, 0, 0, "2026-08-01 09:00:05.009");
	check_ts(base + 9000, 3, 0, 0, "2026-08-01 09:00:05.009");
	check_ts(base + 1000000, 3, 0, 0, "2026-08-01 09:00:06");
	check_ts(base + 999999, 6, 0, 0, "2026-08-01 09:00:05.999999");
	check_ts(-999000, 3, 0, 0, "1969-12-31 23:59:59.001");
	check_ts(-1000000, 3, 0, 0, "1969-12-31 23:59:59");
	check_ts(-1000001, 6, 0, 0, "1969-12-31 23:59:58.999999");
	check_ts(base + 86400000000LL, 0, 0, 0, "2026-08-02 09:00:05");
	char b[48];
	sl_date_format(-1, b);
	assert_string_equal(b, "1969-12-31");
	sl_time_format((9 * 3600 + 5) * SL_US_PER_SEC + 500000, 3, b);
	assert_string_equal(b, "09:00:05.5");
	sl_time_format(0, 0, b);
	assert_string_equal(b, "00:00:00");
}

static void check_pat(const char *pat, int64_t us, const char *want)
{
	char err[128], b[128];
	sl_datefmt *f = sl_datefmt_compile(pat, err, sizeof(err));
	assert_non_null(f);
	sl_datefmt_format(f, us, b, sizeof(b));
	assert_string_equal(b, want);
	int64_t back;
	assert_int_equal(sl_datefmt_parse(f, want, strlen(want), &back), 0);
	sl_datefmt_free(f);
}

static void test_patterns(void **st)
{
	int64_t t = TS("2026-08-01 21:07:05.123456"); /* a Saturday, day 213 */
	check_pat("yyyy-MM-dd HH:mm:ss.SSS", t, "2026-08-01 21:07:05.123");
	check_pat("yyyy-MM-dd HH:mm:ss.SSSSSS", t, "2026-08-01 21:07:05.123456");
	check_pat("yy/M/d H:m:s", t, "26/8/1 21:7:5");
	check_pat("y MMM d", t, "2026 Aug 1");
	check_pat("dd MMMM yyyy", t, "01 August 2026");
	check_pat("hh:mm a", t, "09:07 PM");
	check_pat("h a", TS("2026-08-01 00:30:00"), "12 AM");
	check_pat("E, dd MMM yyyy", t, "Sat, 01 Aug 2026");
	check_pat("EEEE", t, "Saturday");
	check_pat("yyyy-DDD", t, "2026-213");
	check_pat("yyyyMMddHHmmss", t, "20260801210705");
	check_pat("yyyy-MM-dd'T'HH:mm:ss", t, "2026-08-01T21:07:05");
	check_pat("HH 'o''clock'", t, "21 o'clock");
	/* DateTimeFormatter's letters (the default kind): u is the year (java.time,
	 * Java 17: "AD 2026-Aug-01 2026 21 9 PM 1") */
	check_pat("G yyyy-LLL-dd u k K a F", t, "AD 2026-Aug-01 2026 21 9 PM 1");
	check_pat("k:mm K a", TS("2026-08-01 00:30:00"), "24:30 0 AM");
	/* digits written without printf (timeutil.c ob_num): padding, the
	 * fraction's 9 places, a year before 1 */
	check_pat("yyyyyy SSSSSSSSS", t, "002026 123456000");
	check_pat("yyyy-MM-dd S", TS("2026-08-01 00:00:00.05"), "2026-08-01 0");
	{
		char err[128], b[64];
		sl_datefmt *f = sl_datefmt_compile("yyyyy/yy uuuuu/uu G", err, sizeof(err));
		/* proleptic year -49 is 50 BC: y is the year of era, u the signed
		 * year (java.time, Java 17: "00050/50 -00049/49 BC") */
		int64_t us = (sl_days_from_civil(-49, 3, 1)) * SL_US_PER_DAY;
		sl_datefmt_format(f, us, b, sizeof(b));
		assert_string_equal(b, "00050/50 -00049/49 BC");
		sl_datefmt_free(f);
	}
	{
		char err[128];
		int64_t v;
		sl_datefmt *f = sl_datefmt_compile("yyyy-MM-dd K:mm a", err, sizeof(err));
		assert_int_equal(sl_datefmt_parse(f, "2026-08-01 0:30 PM", 18, &v), 0);
		assert_true(v == TS("2026-08-01 12:30:00"));
		assert_int_equal(sl_datefmt_parse(f, "2026-08-01 12:30 PM", 19, &v), -1);
		sl_datefmt_free(f);
		f = sl_datefmt_compile("yyyy-MM-dd k:mm", err, sizeof(err));
		assert_int_equal(sl_datefmt_parse(f, "2026-08-01 24:30", 16, &v), 0);
		assert_true(v == TS("2026-08-01 00:30:00"));
		sl_datefmt_free(f);
	}
	check_pat("''yyyy''", t, "'2026'");
	check_pat("yyyy-MM-dd'T'HH:mm:ssXXX", t, "2026-08-01T21:07:05Z");
	check_pat("S", t, "1");

	char err[128];
	int64_t v;
	sl_datefmt *f = sl_datefmt_compile("yyyy-MM-dd HH:mm:ss.SSS", err, sizeof(err));
	assert_int_equal(sl_datefmt_parse(f, "2026-08-01 21:07:05.123", 23, &v), 0);
	assert_true(v == TS("2026-08-01 21:07:05.123"));
	assert_int_equal(sl_datefmt_parse(f, "2026-02-30 21:07:05.123", 23, &v), -1);
	assert_int_equal(sl_datefmt_parse(f, "2026-08-01 21:07:05", 19, &v), -1);
	sl_datefmt_free(f);
	/* a DateTimeFormatter pattern reads the offset and ignores it (Flink's
	 * TO_TIMESTAMP takes the local fields: 2026-08-01 23:07:05); a
	 * SimpleDateFormat pattern applies it (UNIX_TIMESTAMP) */
	f = sl_datefmt_compile("yyyy-MM-dd'T'HH:mm:ssXXX", err, sizeof(err));
	assert_int_equal(sl_datefmt_parse(f, "2026-08-01T23:07:05+02:00", 25, &v), 0);
	assert_true(v == TS("2026-08-01 23:07:05"));
	sl_datefmt_free(f);
	f = sl_datefmt_compile_as("yyyy-MM-dd'T'HH:mm:ssXXX", SL_DATEFMT_SIMPLE, err, sizeof(err));
	assert_int_equal(sl_datefmt_parse(f, "2026-08-01T23:07:05+02:00", 25, &v), 0);
	assert_true(v == TS("2026-08-01 21:07:05"));
	/* prefix parsing (UNIX_TIMESTAMP) and whether an offset was read */
	int off = -1;
	const char *wo = "2026-08-01T23:07:05+02:00 tail";
	assert_int_equal(sl_datefmt_parse_ex(f, wo, strlen(wo), 0, &v, &off), -1);
	assert_int_equal(sl_datefmt_parse_ex(f, wo, strlen(wo), 1, &v, &off), 0);
	assert_int_equal(off, 1);
	assert_true(v == TS("2026-08-01 21:07:05"));
	assert_int_equal(sl_datefmt_parse_ex(f, "2026-08-01T23:07:05", 19, 1, &v, &off), -1);
	sl_datefmt_free(f);
	f = sl_datefmt_compile("yyyy-MM-dd HH:mm:ss", err, sizeof(err));
	wo = "2026-08-01 23:07:05.001 +0800";
	assert_int_equal(sl_datefmt_parse_ex(f, wo, strlen(wo), 1, &v, &off), 0);
	assert_int_equal(off, 0);
	assert_true(v == TS("2026-08-01 23:07:05"));
	sl_datefmt_free(f);
	f = sl_datefmt_compile("yyyyMMdd", err, sizeof(err));
	assert_int_equal(sl_datefmt_parse(f, "19691231", 8, &v), 0);
	assert_true(v == -SL_US_PER_DAY);
	sl_datefmt_free(f);
	f = sl_datefmt_compile("dd MMM yyyy", err, sizeof(err));
	assert_int_equal(sl_datefmt_parse(f, "01 aug 2026", 11, &v), 0);
	assert_int_equal(sl_datefmt_parse(f, "01 Foo 2026", 11, &v), -1);
	sl_datefmt_free(f);
	assert_null(sl_datefmt_compile("yyyy-bb", err, sizeof(err)));
	assert_non_null(strstr(err, "unknown pattern letter 'b'"));
	/* letters of one class only, counts Java refuses, letters that only format */
	assert_null(sl_datefmt_compile_as("yyyy QQ", SL_DATEFMT_SIMPLE, err, sizeof(err)));
	assert_non_null(strstr(err, "unknown pattern letter 'Q'"));
	assert_null(sl_datefmt_compile("yyyy FF", err, sizeof(err)));
	assert_non_null(strstr(err, "too many pattern letters 'F'"));
	assert_null(sl_datefmt_compile_as("yyyy ww", SL_DATEFMT_PARSE, err, sizeof(err)));
	assert_non_null(strstr(err, "not supported in parsing"));
	assert_null(sl_datefmt_compile_as("HH:mm X", SL_DATEFMT_FORMAT, err, sizeof(err)));
	assert_non_null(strstr(err, "no zone offset"));
	assert_null(sl_datefmt_compile("yyyy 'abc", err, sizeof(err)));
	assert_non_null(strstr(err, "unterminated quote"));
}

static void test_tz(void **st)
{
	int64_t off;
	int64_t t = TS("2026-08-01 00:00:00");
	assert_int_equal(sl_tz_offset(NULL, t, &off), 0);
	assert_true(off == 0);
	assert_int_equal(sl_tz_offset("UTC", t, &off), 0);
	assert_true(off == 0);
	assert_int_equal(sl_tz_offset("GMT", t, &off), 0);
	assert_int_equal(sl_tz_offset("Z", t, &off), 0);
	assert_int_equal(sl_tz_offset("+08:00", t, &off), 0);
	assert_true(off == 8 * 3600 * SL_US_PER_SEC);
	assert_int_equal(sl_tz_offset("GMT+8", t, &off), 0);
	assert_true(off == 8 * 3600 * SL_US_PER_SEC);
	assert_int_equal(sl_tz_offset("-0530", t, &off), 0);
	assert_true(off == -(5 * 3600 + 1800) * SL_US_PER_SEC);
	assert_int_equal(sl_tz_offset("UTC-05:30", t, &off), 0);
	assert_true(off == -(5 * 3600 + 1800) * SL_US_PER_SEC);
	assert_int_equal(sl_tz_offset("Asia/Shanghai", t, &off), 0);
	assert_true(off == 8 * 3600 * SL_US_PER_SEC);
	/* Berlin: CEST in summer, CET in winter, and the switch instant */
	assert_int_equal(sl_tz_offset("Europe/Berlin", t, &off), 0);
	assert_true(off == 2 * 3600 * SL_US_PER_SEC);
	assert_int_equal(sl_tz_offset("Europe/Berlin", TS("2026-01-15 12:00:00"), &off), 0);
	assert_true(off == 3600 * SL_US_PER_SEC);
	assert_int_equal(sl_tz_offset("Europe/Berlin", TS("2026-03-29 00:59:59"), &off), 0);
	assert_true(off == 3600 * SL_US_PER_SEC);
	assert_int_equal(sl_tz_offset("Europe/Berlin", TS("2026-03-29 01:00:00"), &off), 0);
	assert_true(off == 2 * 3600 * SL_US_PER_SEC);
	assert_int_equal(sl_tz_offset("America/New_York", TS("1960-01-01 12:00:00"), &off), 0);
	assert_true(off == -5 * 3600 * SL_US_PER_SEC);
	assert_int_equal(sl_tz_offset("Mars/Olympus", t, &off), -1);
	assert_int_equal(sl_tz_offset("../../etc/passwd", t, &off), -1);
	assert_int_equal(sl_tz_offset("+25:00", t, &off), -1);
}

static const sl_field row_fields[] = {
	{"a", {.id = SL_T_INT}},
	{"b", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
};
static const sl_row_type row_t = {2, (sl_field *)row_fields};

static void test_value_text(void **st)
{
	sl_type types[] = {
		{.id = SL_T_BOOLEAN},
		{.id = SL_T_TIMESTAMP, .precision = 3},
		{.id = SL_T_TIMESTAMP_LTZ, .precision = 3},
		{.id = SL_T_DECIMAL, .precision = 10, .scale = 2},
		{.id = SL_T_VARBINARY, .length = SL_STRING_LEN},
		{.id = SL_T_ROW, .row = &row_t},
		{.id = SL_T_DATE},
		{.id = SL_T_DOUBLE},
	};
	sl_batch *b = sl_batch_new(8, types, 4);
	assert_non_null(b);
	int r = sl_batch_add_row(b, 0, SL_WM_MIN);
	sl_col_set_i64(&b->cols[0], r, 1);
	int64_t t = TS("2026-08-01 09:00:05.12");
	sl_col_set_i64(&b->cols[1], r, t);
	sl_col_set_i64(&b->cols[2], r, t);
	sl_col_set_i128(&b->cols[3], r, 3000);
	sl_col_set_str_ref(&b->cols[4], r, "\x0a\x0b\xff", 3);
	sl_col_set_i64(&b->cols[5].child[0], r, 7);
	b->cols[5].null[r] = 0;
	sl_col_set_i64(&b->cols[6], r, 20666);
	sl_col_set_f64(&b->cols[7], r, 5.0);
	const char *want[] = {"TRUE", "2026-08-01 09:00:05.12", "2026-08-01 17:00:05.12",
	                      "30.00", "x'0a0bff'", "(7, null)", "2026-08-01", "5.0"};
	sl_buf out;
	sl_buf_init(&out);
	for (int i = 0; i < 8; i++) {
		sl_buf_clear(&out);
		assert_int_equal(sl_value_text(&b->cols[i], r, "null", "Asia/Shanghai", &out), 0);
		assert_string_equal(sl_buf_cstr(&out), want[i]);
	}
	r = sl_batch_add_row(b, 0, SL_WM_MIN);
	sl_buf_clear(&out);
	sl_value_text(&b->cols[3], r, NULL, NULL, &out);
	assert_string_equal(sl_buf_cstr(&out), "NULL");
	sl_buf_deinit(&out);
	sl_batch_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_civil),
		cmocka_unit_test(test_ts_parse),
		cmocka_unit_test(test_ts_parse_cached),
		cmocka_unit_test(test_ts_format),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_tz),
		cmocka_unit_test(test_value_text),
	};
	return cmocka_run_group_tests_name("timeutil", tests, NULL, NULL);
}
