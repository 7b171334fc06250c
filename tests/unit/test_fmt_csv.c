/*
 * test_fmt_csv.c - unit tests of the csv format (src/format/fmt_csv.c):
 * splitting and RFC-4180 quoting, NULL rules, options, ROW fields, error
 * messages, and the encoder's quoting.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "format/format.h"
#include "harness.h"
#include "sluice.h"

static sl_field inner_f[] = {
	{"x", {.id = SL_T_INT}},
	{"y", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
};
static sl_row_type inner_t = {2, inner_f};

static sl_field F[] = {
	{"s", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
	{"n", {.id = SL_T_INT}},
	{"amount", {.id = SL_T_DECIMAL, .precision = 10, .scale = 2}},
	{"ok", {.id = SL_T_BOOLEAN}},
	{"ts", {.id = SL_T_TIMESTAMP, .precision = 3}},
	{"r", {.id = SL_T_ROW, .row = &inner_t}},
};
#define NF 6

typedef th_codec fx; /* harness.h */

static fx *fx_new(const char *k1, const char *v1, const char *k2, const char *v2)
{
	static fx f;
	const char *kv[] = {k1, v1, k2, v2, NULL};
	if (!k2)
		kv[2] = NULL;
	th_codec_init(&f, "csv", F, NF, 8, k1 ? kv : NULL, TH_CODEC_ENCODER);
	return &f;
}

static void fx_free(fx *f)
{
	th_codec_deinit(f);
}

static int dec(fx *f, const char *rec)
{
	return th_decode(f, rec);
}

static void roundtrip(fx *f, int row, const char *want)
{
	sl_buf out;
	sl_buf_init(&out);
	assert_int_equal(f->e->vt->encode(f->e, f->b, row, &out, &f->err), 0);
	assert_string_equal(sl_buf_cstr(&out), want);
	sl_buf_deinit(&out);
}

static void test_basic(void **st)
{
	fx *f = fx_new(NULL, NULL, NULL, NULL);
	sl_batch *b = f->b;
	assert_int_equal(dec(f, "abc,-7,12.345,true,2026-08-01 09:00:05.12,3;z\r\n"), 1);
	assert_memory_equal(b->cols[0].v.str[0].ptr, "abc", 3);
	assert_int_equal(b->cols[1].v.i64[0], -7);
	assert_true(b->cols[2].v.i128[0] == 1235);
	assert_int_equal(b->cols[3].v.i64[0], 1);
	assert_int_equal(b->cols[5].null[0], 0);
	assert_int_equal(b->cols[5].child[0].v.i64[0], 3);
	roundtrip(f, 0, "abc,-7,12.35,true,2026-08-01 09:00:05.12,3;z\n");

	assert_int_equal(dec(f, "\"a,\"\"b\"\"\",,,,,"), 1);
	assert_int_equal(b->cols[0].v.str[1].len, 5);
	assert_memory_equal(b->cols[0].v.str[1].ptr, "a,\"b\"", 5);
	for (int i = 1; i < NF; i++)
		assert_int_equal(b->cols[i].null[1], 1);
	roundtrip(f, 1, "\"a,\"\"b\"\"\",,,,,\n");

	assert_int_equal(dec(f, ",1,2,false,2026-08-01,"), 1);
	assert_int_equal(b->cols[0].null[2], 0); /* empty string, not NULL */
	assert_int_equal(b->cols[0].v.str[2].len, 0);
	roundtrip(f, 2, ",1,2.00,false,2026-08-01 00:00:00,\n");
	assert_int_equal(dec(f, ""), 0);
	fx_free(f);
}

static void test_errors(void **st)
{
	fx *f = fx_new(NULL, NULL, NULL, NULL);
	assert_int_equal(dec(f, "a,x,1,true,,"), SL_EINPUT);
	assert_string_equal(f->err.msg, "field 'n': 'x' is not a INT");
	assert_int_equal(dec(f, "a,1,1,true,"), SL_EINPUT);
	assert_string_equal(f->err.msg, "csv: expected 6 fields, found 5");
	assert_int_equal(dec(f, "a,1,1,true,,,"), SL_EINPUT);
	assert_string_equal(f->err.msg, "csv: expected 6 fields, found 7");
	assert_int_equal(dec(f, "\"abc,1,1,true,,"), SL_EINPUT);
	assert_string_equal(f->err.msg, "csv: unterminated quoted field at byte 0");
	assert_int_equal(dec(f, "\"a\"b,1,1,true,,"), SL_EINPUT);
	assert_string_equal(f->err.msg, "csv: expected ',' after a quoted field at byte 3");
	assert_int_equal(dec(f, "a,1,1e99,true,,"), SL_EINPUT);
	assert_string_equal(f->err.msg, "field 'amount': 1e99 is out of range for DECIMAL(10, 2)");
	assert_int_equal(dec(f, "a,1,1,true,,5"), SL_EINPUT);
	assert_string_equal(f->err.msg, "field 'r': '5' does not have 2 elements");
	assert_int_equal(f->b->nrows, 0);
	assert_int_equal(f->d->ignore_errors, 0);
	fx_free(f);
}

static void test_options(void **st)
{
	fx *f = fx_new("csv.field-delimiter", "|", "csv.null-literal", "\\N");
	assert_int_equal(dec(f, "\\N|1|\\N|\\N|\\N|\\N"), 1);
	assert_int_equal(f->b->cols[0].null[0], 1);
	assert_int_equal(f->b->cols[1].v.i64[0], 1);
	roundtrip(f, 0, "\\N|1|\\N|\\N|\\N|\\N\n");
	assert_int_equal(dec(f, "\"\\N\"|1|||x|"), SL_EINPUT); /* bad ts */
	assert_string_equal(f->err.msg, "field 'ts': 'x' is not a TIMESTAMP(3)");
	assert_int_equal(dec(f, "\"\\N\"|1||||"), 1);
	assert_int_equal(f->b->cols[0].null[1], 0); /* quoted literal is a string */
	fx_free(f);
	f = fx_new("csv.allow-comments", "true", "csv.ignore-parse-errors", "true");
	assert_int_equal(f->d->ignore_errors, 1);
	assert_int_equal(dec(f, "# a comment"), 0);
	fx_free(f);
	f = fx_new("csv.quote-character", "'", "csv.field-delimiter", "\t");
	assert_int_equal(dec(f, "'a\tb'\t1\t\t\t\t"), 1);
	assert_int_equal(f->b->cols[0].v.str[0].len, 3);
	roundtrip(f, 0, "'a\tb'\t1\t\t\t\t\n");
	fx_free(f);
	sl_err e;
	sl_arena a;
	sl_opts o;
	sl_err_clear(&e);
	sl_arena_init(&a, 0);
	sl_opts_init(&o, &a);
	sl_opts_set(&o, "csv.field-delimiter", "ab");
	assert_null(sl_decoder_new(sl_format_find("csv"), F, NF, &o, &e));
	assert_string_equal(e.msg, "option 'csv.field-delimiter': 'ab' is not a single character");
	sl_arena_deinit(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_options),
	};
	return cmocka_run_group_tests_name("fmt_csv", tests, NULL, NULL);
}
