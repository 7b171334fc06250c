/*
 * test_fmt_json.c - unit tests of the json and debezium-json formats
 * (src/format/fmt_json.c with the shared reader and writer
 * fmt_json_read.c and fmt_json_write.c, fmt_debezium_json.c): decoding
 * every type into batch columns, escapes and surrogate pairs, nested ROWs,
 * the flat path against the general reader, missing and unknown fields,
 * exact error messages, options, and the encoders.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "base/timeutil.h"
#include "data/decimal.h"
#include "data/valtext.h"
#include "format/format.h"
#include "harness.h"
#include "sluice.h"

static sl_field inner_f[] = {
	{"x", {.id = SL_T_INT}},
	{"s", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
};
static sl_row_type inner_t = {2, inner_f};

static sl_field F[] = {
	{"id", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},  /* 0 */
	{"n", {.id = SL_T_INT}},                                 /* 1 */
	{"big", {.id = SL_T_BIGINT}},                            /* 2 */
	{"amount", {.id = SL_T_DECIMAL, .precision = 10, .scale = 2}}, /* 3 */
	{"d", {.id = SL_T_DOUBLE}},                              /* 4 */
	{"ok", {.id = SL_T_BOOLEAN}},                            /* 5 */
	{"ts", {.id = SL_T_TIMESTAMP, .precision = 3}},          /* 6 */
	{"ltz", {.id = SL_T_TIMESTAMP_LTZ, .precision = 3}},     /* 7 */
	{"day", {.id = SL_T_DATE}},                              /* 8 */
	{"r", {.id = SL_T_ROW, .row = &inner_t}},                /* 9 */
	{"b", {.id = SL_T_VARBINARY, .length = SL_STRING_LEN}},  /* 10 */
	{"t", {.id = SL_T_TINYINT}},                             /* 11 */
};
#define NF ((int)(sizeof(F) / sizeof(F[0])))

typedef th_codec fx; /* harness.h */

static fx *fx_new(const char *fmt, const char *k1, const char *v1)
{
	static fx f;
	const char *kv[] = {k1, v1, NULL};
	th_codec_init(&f, fmt, F, NF, 8, k1 ? kv : NULL, 0);
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

static void expect_err(fx *f, const char *rec, const char *msg)
{
	int n0 = f->b->nrows;
	assert_int_equal(dec(f, rec), SL_EINPUT);
	assert_string_equal(f->err.msg, msg);
	assert_int_equal(f->b->nrows, n0);
}

static int64_t TS(const char *s)
{
	int64_t v;
	assert_int_equal(sl_ts_parse(s, strlen(s), &v), 0);
	return v;
}

static void test_decode_all_types(void **st)
{
	fx *f = fx_new("json", NULL, NULL);
	const char *rec = "{\"id\":\"o1\",\"n\":-42,\"big\":9223372036854775807,\"amount\":31.01,"
	                  "\"d\":1.5e3,\"ok\":true,\"ts\":\"2026-08-01 00:00:00.001\","
	                  "\"ltz\":1785542400123,\"day\":\"1969-12-31\",\"r\":{\"s\":\"in\",\"x\":7},"
	                  "\"b\":\"AQID\",\"t\":-128}";
	assert_int_equal(dec(f, rec), 1);
	sl_batch *b = f->b;
	assert_int_equal(b->nrows, 1);
	assert_int_equal(b->op[0], SL_INSERT);
	assert_int_equal(b->cols[0].v.str[0].len, 2);
	assert_memory_equal(b->cols[0].v.str[0].ptr, "o1", 2);
	assert_true(b->cols[0].v.str[0].ptr > rec && b->cols[0].v.str[0].ptr < rec + strlen(rec));
	assert_int_equal(b->cols[1].v.i64[0], -42);
	assert_true(b->cols[2].v.i64[0] == INT64_MAX);
	assert_true(b->cols[3].v.i128[0] == 3101);
	assert_true(b->cols[4].v.f64[0] == 1500.0);
	assert_int_equal(b->cols[5].v.i64[0], 1);
	assert_true(b->cols[6].v.i64[0] == TS("2026-08-01 00:00:00.001"));
	assert_true(b->cols[7].v.i64[0] == 1785542400123000LL);
	assert_int_equal(b->cols[8].v.i64[0], -1);
	assert_int_equal(b->cols[9].null[0], 0);
	assert_int_equal(b->cols[9].child[0].v.i64[0], 7);
	assert_memory_equal(b->cols[9].child[1].v.str[0].ptr, "in", 2);
	assert_int_equal(b->cols[10].v.str[0].len, 3);
	assert_memory_equal(b->cols[10].v.str[0].ptr, "\1\2\3", 3);
	assert_int_equal(b->cols[11].v.i64[0], -128);
	for (int i = 0; i < NF; i++)
		assert_int_equal(b->cols[i].null[0], 0);
	fx_free(f);
}

static void test_missing_unknown_null(void **st)
{
	fx *f = fx_new("json", NULL, NULL);
	assert_int_equal(dec(f, " { \"zz\" : {\"a\":[1,{\"b\":[]},\"x\\\"}\"],\"c\":null}, "
	                        "\"n\" : null , \"u\":[true,false,-0.5e-3], \"amount\":\"12.5\","
	                        "\"r\":null, \"ts\":\"2026-08-01T09:00:05.123Z\" } "), 1);
	sl_batch *b = f->b;
	assert_int_equal(b->cols[1].null[0], 1);
	assert_int_equal(b->cols[0].null[0], 1);
	assert_int_equal(b->cols[9].null[0], 1);
	assert_true(b->cols[3].v.i128[0] == 1250);
	assert_true(b->cols[6].v.i64[0] == TS("2026-08-01 09:00:05.123"));
	assert_int_equal(dec(f, "{}"), 1);
	assert_int_equal(dec(f, "   "), 0);
	assert_int_equal(b->nrows, 2);
	fx_free(f);
}

static void test_strings_escapes(void **st)
{
	fx *f = fx_new("json", NULL, NULL);
	assert_int_equal(dec(f, "{\"id\":\"a\\\"b\\\\c\\/\\n\\t\\u00e9\\u20ac\\ud83d\\ude00\"}"), 1);
	sl_str s = f->b->cols[0].v.str[0];
	const char want[] = "a\"b\\c/\n\t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
	assert_int_equal(s.len, (int64_t)sizeof(want) - 1);
	assert_memory_equal(s.ptr, want, sizeof(want) - 1);
	/* non-string into a string column keeps its JSON text */
	assert_int_equal(dec(f, "{\"id\":12.50}"), 1);
	assert_int_equal(f->b->cols[0].v.str[1].len, 5);
	assert_memory_equal(f->b->cols[0].v.str[1].ptr, "12.50", 5);
	/* escapes and the closing quote past the first 16 bytes (the 16-byte
	 * scan), in the last 16 bytes of the record (the 8-byte and byte scans) */
	assert_int_equal(dec(f, "{\"id\":\"0123456789abcdefghij\\\"klmnopqrstuvwxyz\",\"n\":1}"), 1);
	s = f->b->cols[0].v.str[2];
	assert_int_equal(s.len, 37);
	assert_memory_equal(s.ptr, "0123456789abcdefghij\"klmnopqrstuvwxyz", 37);
	assert_int_equal(dec(f, "{\"n\":1,\"id\":\"0123456789abcdefghijkl\"}"), 1);
	assert_int_equal(f->b->cols[0].v.str[3].len, 22);
	expect_err(f, "{\"id\":\"0123456789abcdefghijklmnopqrstuvwxyz}",
	           "malformed JSON at byte 6: unterminated string");
	expect_err(f, "{\"id\":\"\\ud83d\"}", "malformed JSON at byte 13: invalid surrogate pair");
	expect_err(f, "{\"id\":\"\\x\"}", "malformed JSON at byte 8: invalid escape in string");
	expect_err(f, "{\"id\":\"abc}", "malformed JSON at byte 6: unterminated string");
	fx_free(f);
}

/* Keys matched in place (read_object's fast path: the quoted name of the
 * field after the previous match, compared 8 bytes at a time) against the
 * scanned path: names of every length class, keys that only start like a
 * field's name, escaped keys, blanks, out-of-order and repeated keys, and
 * records ending right after a key. */
static void test_keys_in_place(void **st)
{
	static sl_field K[] = {
		{"id", {.id = SL_T_INT}},                                /* ql 4 */
		{"amount", {.id = SL_T_INT}},                            /* ql 8 */
		{"user_id", {.id = SL_T_INT}},                           /* ql 9 */
		{"fourteen_chars", {.id = SL_T_INT}},                    /* ql 16 */
		{"fifteen_chars_x", {.id = SL_T_INT}},                   /* ql 17: scanned */
		{"q\"x", {.id = SL_T_INT}},                              /* a quote: scanned */
	};
	th_codec f;
	th_codec_init(&f, "json", K, 6, 16, NULL, 0);
	sl_batch *b = f.b;
	assert_int_equal(th_decode(&f, "{\"id\":1,\"amount\":2,\"user_id\":3,\"fourteen_chars\":4,"
	                                "\"fifteen_chars_x\":5,\"q\\\"x\":6}"), 1);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(b->cols[i].null[0], 0);
		assert_int_equal(b->cols[i].v.i64[0], i + 1);
	}
	/* keys that extend a field's name, an escaped name, blanks, reordering */
	assert_int_equal(th_decode(&f, "{\"idx\":9,\"amounts\":9,\"\\u0069d\":7,\"user_i\":9,"
	                                "\"fourteen_charsy\":9,\"user_id\" :8,\"amount\":10,"
	                                "\"fourteen_chars\":11,\"id\":12}"), 1);
	assert_int_equal(b->cols[0].v.i64[1], 12);
	assert_int_equal(b->cols[1].v.i64[1], 10);
	assert_int_equal(b->cols[2].v.i64[1], 8);
	assert_int_equal(b->cols[3].v.i64[1], 11);
	assert_int_equal(b->cols[4].null[1], 1);
	assert_int_equal(b->cols[5].null[1], 1);
	/* a record that ends within 16 bytes of a key, and one cut after it */
	assert_int_equal(th_decode(&f, "{\"id\":1,\"amount\":2}"), 1);
	assert_int_equal(b->cols[1].v.i64[2], 2);
	assert_int_equal(th_decode(&f, "{\"id\":1,\"amount\""), SL_EINPUT);
	assert_int_equal(th_decode(&f, "{\"id\":1,\"amount\":2,\"user_id\":3,\"fourteen_chars\""),
	                 SL_EINPUT);
	assert_int_equal(b->nrows, 3);
	th_codec_deinit(&f);
}

/* JSON numbers into a DECIMAL column (read_value's dec_fast and the general
 * path behind it): each gives what sl_dec_parse gives for its text, or the
 * same error, whichever path takes it. */
static void test_decimal_numbers(void **st)
{
	static const char *const ok[] = {
		"0", "-0", "5", "344.88", "-344.88", "0.5", "0.05", "12.5", "99999999.99", "-99999999.99",
		"1.234", "1.235", "-1.235", "0.999", "1e2", "1.5E1", "-2.5e-1", "12345678.5",
		"123456789012345678", "1234567.123456789012345", "0.000000000000000000001",
		"1234567.8", "12345678.9", "7.1234567", "0.1", "-9", "9999999.99", "1.0", "10.10",
	};
	static const char *const bad[] = {"00", "01.5", "-", "1.", ".5", "-.5", "+1", "1.2.3",
	                                  "100000000.00", "1e20", "true", "1.5e", "-01", "1.,",
	                                  "12.345.6"};
	fx *f = fx_new("json", NULL, NULL);
	char rec[128];
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		sl_i128 want;
		int rc = sl_dec_parse(ok[i], strlen(ok[i]), 10, 2, &want);
		snprintf(rec, sizeof(rec), "{\"amount\":%s}", ok[i]);
		int n0 = f->b->nrows;
		if (rc == 0) {
			assert_int_equal(dec(f, rec), 1);
			assert_true(f->b->cols[3].v.i128[n0] == want);
			snprintf(rec, sizeof(rec), "{\"amount\" : %s }", ok[i]);
			assert_int_equal(dec(f, rec), 1);
			assert_true(f->b->cols[3].v.i128[n0 + 1] == want);
			/* more than 18 bytes after the number: dec_fast's 8-byte path */
			snprintf(rec, sizeof(rec), "{\"amount\":%s,\"pad\":\"xxxxxxxxxxxxxxxxxx\"}", ok[i]);
			assert_int_equal(dec(f, rec), 1);
			assert_true(f->b->cols[3].v.i128[n0 + 2] == want);
		} else {
			assert_int_equal(dec(f, rec), SL_EINPUT);
			snprintf(rec, sizeof(rec), "{\"amount\":%s,\"pad\":\"xxxxxxxxxxxxxxxxxx\"}", ok[i]);
			assert_int_equal(dec(f, rec), SL_EINPUT);
		}
		if (f->b->nrows > 4)
			sl_batch_reset(f->b);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(rec, sizeof(rec), "{\"amount\":%s}", bad[i]);
		assert_int_equal(dec(f, rec), SL_EINPUT);
		snprintf(rec, sizeof(rec), "{\"amount\":%s,\"pad\":\"xxxxxxxxxxxxxxxxxx\"}", bad[i]);
		assert_int_equal(dec(f, rec), SL_EINPUT);
	}
	expect_err(f, "{\"amount\":100000000.00}",
	           "field 'amount': 100000000.00 is out of range for DECIMAL(10, 2)");
	expect_err(f, "{\"amount\":01}", "malformed JSON at byte 10: expected a value");
	fx_free(f);
}

static void test_errors(void **st)
{
	fx *f = fx_new("json", NULL, NULL);
	expect_err(f, "{\"amount\":\"abc\"}", "field 'amount': 'abc' is not a DECIMAL(10, 2)");
	expect_err(f, "{\"amount\":123456789.5}",
	           "field 'amount': 123456789.5 is out of range for DECIMAL(10, 2)");
	expect_err(f, "{\"n\":3000000000}", "field 'n': 3000000000 is out of range for INT");
	expect_err(f, "{\"t\":128}", "field 't': 128 is out of range for TINYINT");
	expect_err(f, "{\"big\":9223372036854775808}",
	           "field 'big': 9223372036854775808 is out of range for BIGINT");
	expect_err(f, "{\"r\":{\"x\":\"q\"}}", "field 'r.x': 'q' is not a INT");
	expect_err(f, "{\"r\":5}", "field 'r': '5' is not a ROW<`x` INT, `s` STRING>");
	expect_err(f, "{\"ok\":1}", "field 'ok': '1' is not a BOOLEAN");
	expect_err(f, "{\"ts\":\"2026-02-30 00:00:00\"}",
	           "field 'ts': '2026-02-30 00:00:00' is not a TIMESTAMP(3)");
	expect_err(f, "{\"id\" \"x\"}", "malformed JSON at byte 6: expected ':'");
	expect_err(f, "{\"id\":\"o1\",\"n\":1,\"amount\" 2}", "malformed JSON at byte 26: expected ':'");
	expect_err(f, "{\"id\":\"x\" \"n\":1}", "malformed JSON at byte 10: expected ',' or '}'");
	expect_err(f, "[1]", "malformed JSON at byte 0: expected '{'");
	expect_err(f, "{\"n\":1} x", "malformed JSON at byte 8: unexpected data after the object");
	expect_err(f, "{\"n\":01}", "malformed JSON at byte 5: expected a value");
	expect_err(f, "{\"n\":", "malformed JSON at byte 5: expected a value");
	expect_err(f, "{\"zz\":[1 2]}", "malformed JSON at byte 9: expected ',' or ']'");
	expect_err(f, "{\"n\":nul}", "malformed JSON at byte 5: expected a value");
	char deep[400] = "{\"zz\":";
	for (int i = 0; i < 100; i++)
		strcat(deep, "[");
	expect_err(f, deep, "malformed JSON at byte 69: nesting too deep");
	assert_int_equal(f->b->nrows, 0);
	assert_int_equal(f->d->ignore_errors, 0);
	fx_free(f);
}

static void test_options(void **st)
{
	fx *f = fx_new("json", "json.fail-on-missing-field", "true");
	expect_err(f, "{\"id\":\"x\"}", "field 'n' is missing");
	fx_free(f);
	f = fx_new("json", "json.ignore-parse-errors", "true");
	assert_int_equal(f->d->ignore_errors, 1);
	assert_int_equal(dec(f, "{\"n\":\"x\"}"), SL_EINPUT);
	fx_free(f);
	sl_err e;
	sl_arena a;
	sl_opts o;
	sl_err_clear(&e);
	sl_arena_init(&a, 0);
	sl_opts_init(&o, &a);
	sl_opts_set(&o, "json.timestamp-format.standard", "FOO");
	assert_null(sl_decoder_new(sl_format_find("json"), F, NF, &o, &e));
	assert_string_equal(e.msg, "option 'json.timestamp-format.standard': 'FOO' is not 'SQL' or 'ISO-8601'");
	sl_arena_deinit(&a);
	assert_null(sl_format_find("avro"));
}

static void test_encode(void **st)
{
	fx *f = fx_new("json", NULL, NULL);
	assert_int_equal(dec(f, "{\"id\":\"q\\\"\\n\",\"n\":5,\"amount\":30,\"d\":5,\"ok\":false,"
	                        "\"ts\":\"2026-08-01 09:00:05.12\",\"ltz\":0,\"day\":\"2026-08-01\","
	                        "\"r\":{\"x\":1},\"b\":\"AQID\"}"), 1);
	sl_err e;
	sl_err_clear(&e);
	sl_encoder *en = sl_encoder_new(sl_format_find("json"), F, NF, NULL, &e);
	assert_non_null(en);
	sl_buf out;
	sl_buf_init(&out);
	assert_int_equal(en->vt->encode(en, f->b, 0, &out, &e), 0);
	assert_string_equal(sl_buf_cstr(&out),
	                    "{\"id\":\"q\\\"\\n\",\"n\":5,\"big\":null,\"amount\":30.00,\"d\":5.0,"
	                    "\"ok\":false,\"ts\":\"2026-08-01 09:00:05.12\","
	                    "\"ltz\":\"1970-01-01 00:00:00Z\",\"day\":\"2026-08-01\","
	                    "\"r\":{\"x\":1,\"s\":null},\"b\":\"AQID\",\"t\":null}\n");
	f->b->op[0] = SL_DELETE;
	assert_int_equal(en->vt->encode(en, f->b, 0, &out, &e), SL_EINVAL);
	sl_encoder_free(en);

	/* ISO-8601 and debezium envelopes */
	sl_arena a;
	sl_opts o;
	sl_arena_init(&a, 0);
	sl_opts_init(&o, &a);
	sl_opts_set(&o, "debezium-json.timestamp-format.standard", "ISO-8601");
	en = sl_encoder_new(sl_format_find("debezium-json"), F + 6, 2, &o, &e);
	assert_non_null(en);
	sl_batch *b2;
	sl_type ty[2] = {F[6].type, F[7].type};
	b2 = sl_batch_new(2, ty, 4);
	int r = sl_batch_add_row(b2, SL_UPDATE_AFTER, 0);
	sl_col_set_i64(&b2->cols[0], r, TS("2026-08-01 09:00:05.123"));
	r = sl_batch_add_row(b2, SL_UPDATE_BEFORE, 0);
	sl_buf_clear(&out);
	assert_int_equal(en->vt->encode(en, b2, 0, &out, &e), 0);
	assert_int_equal(en->vt->encode(en, b2, 1, &out, &e), 0);
	assert_string_equal(sl_buf_cstr(&out),
	                    "{\"before\":null,\"after\":{\"ts\":\"2026-08-01T09:00:05.123\","
	                    "\"ltz\":null},\"op\":\"c\"}\n"
	                    "{\"before\":{\"ts\":null,\"ltz\":null},\"after\":null,\"op\":\"d\"}\n");
	sl_encoder_free(en);
	sl_batch_free(b2);
	sl_arena_deinit(&a);
	sl_buf_deinit(&out);
	fx_free(f);
}

static void test_debezium_decode(void **st)
{
	fx *f = fx_new("debezium-json", NULL, NULL);
	sl_batch *b = f->b;
	assert_int_equal(dec(f, "{\"op\":\"u\",\"after\":{\"n\":2},\"before\":{\"n\":1},\"source\":{}}"), 2);
	assert_int_equal(b->op[0], SL_UPDATE_BEFORE);
	assert_int_equal(b->cols[1].v.i64[0], 1);
	assert_int_equal(b->op[1], SL_UPDATE_AFTER);
	assert_int_equal(b->cols[1].v.i64[1], 2);
	assert_int_equal(dec(f, "{\"schema\":{\"type\":\"struct\"},\"payload\":{\"before\":null,"
	                        "\"after\":{\"n\":3},\"op\":\"c\"}}"), 1);
	assert_int_equal(b->op[2], SL_INSERT);
	assert_int_equal(b->cols[1].v.i64[2], 3);
	assert_int_equal(dec(f, "{\"before\":{\"n\":4},\"after\":null,\"op\":\"d\"}"), 1);
	assert_int_equal(b->op[3], SL_DELETE);
	assert_int_equal(dec(f, "{\"before\":null,\"after\":{\"n\":5},\"op\":\"r\"}"), 1);
	assert_int_equal(dec(f, ""), 0);
	assert_int_equal(dec(f, "null"), 0);
	assert_int_equal(b->nrows, 5);
	expect_err(f, "{\"before\":null,\"after\":{\"n\":5},\"op\":\"x\"}", "debezium-json: unknown op 'x'");
	expect_err(f, "{\"before\":null,\"after\":{\"n\":5}}", "debezium-json: record has no \"op\"");
	expect_err(f, "{\"before\":{\"n\":1},\"after\":{\"n\":\"x\"},\"op\":\"u\"}",
	           "field 'n': 'x' is not a INT");
	expect_err(f, "{\"before\":null,\"after\":null,\"op\":\"d\"}",
	           "debezium-json: op needs a non-null 'before' image (a delete without one: set "
	           "REPLICA IDENTITY FULL on the PostgreSQL table)");
	fx_free(f);
}

/* Regressions found by fuzz_json. */
/* The flat path (fmt_json.c, read_flat) against the general reader: each
 * record is decoded as written and again with a blank after its '{',
 * which the flat path never takes; both must give the same rows (values
 * and NULLs) or the same result code and, for field errors, the same
 * message.  Records that leave the flat path late (an unknown key after
 * the last field, a missing one, trailing text) must not keep what it had
 * set. */
static void test_flat_path(void **st)
{
	static sl_field FL[] = {
		{"id", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
		{"n", {.id = SL_T_INT}},
		{"amount", {.id = SL_T_DECIMAL, .precision = 10, .scale = 2}},
		{"ts", {.id = SL_T_TIMESTAMP, .precision = 3}},
		{"d", {.id = SL_T_DOUBLE}},
		{"ok", {.id = SL_T_BOOLEAN}},
	};
	static const char *recs[] = {
		"{\"id\":\"o1\",\"n\":1,\"amount\":344.88,\"ts\":\"2026-08-01 00:00:01.287\",\"d\":1.5,\"ok\":true}",
		"{\"id\":\"o2\",\"n\":-7,\"amount\":-0.5,\"ts\":\"2026-08-01 00:00:01.2\",\"d\":-2e3,\"ok\":false}",
		"{\"id\":null,\"n\":null,\"amount\":null,\"ts\":null,\"d\":null,\"ok\":null}",
		"{\"id\":\"a\\\"b\",\"n\":\"5\",\"amount\":\"12.345\",\"ts\":\"2026-08-01T00:00:01Z\",\"d\":\"NaN\",\"ok\":\"TRUE\"}",
		"{\"id\":7,\"n\":1,\"amount\":1e2,\"ts\":\"2026-08-01 00:00:01.123456\",\"d\":1,\"ok\":true}",
		"{\"id\":{\"x\":[1,2]},\"n\":1,\"amount\":12345678.99,\"ts\":\"2026-02-29 00:00:00\",\"d\":1,\"ok\":true}",
		"{\"id\":\"o3\",\"n\":1,\"amount\":1,\"ts\":\"2026-08-01 00:00:01.287\",\"d\":1,\"ok\":true,\"x\":{}}",
		"{\"id\":\"o4\",\"n\":2,\"amount\":2}",
		"{\"id\":\"o5\",\"n\":3,\"amount\":3,\"ts\":\"2026-08-01 00:00:02\",\"d\":3,\"ok\":true} ",
		"{\"id\":\"o6\",\"n\":3,\"amount\":3,\"ts\":\"2026-08-01 00:00:02\",\"d\":3,\"ok\":true}x",
		"{\"id\":\"o7\",\"amount\":3,\"n\":3,\"ts\":\"2026-08-01 00:00:02\",\"d\":3,\"ok\":true}",
		"{\"id\":\"o8\",\"n\":3,\"n\":4,\"amount\":3,\"ts\":\"2026-08-01 00:00:02\",\"d\":3,\"ok\":true}",
		"{\"id\":\"o9\",\"n\" : 3,\"amount\": 3 ,\"ts\":\"2026-08-01 00:00:02\",\"d\":3,\"ok\":true}",
		"{\"id\":\"o10\",\"n\":99999999999,\"amount\":3,\"ts\":\"2026-08-01 00:00:02\",\"d\":3,\"ok\":true}",
		"{\"id\":\"o11\",\"n\":1,\"amount\":123456789.5,\"ts\":\"2026-08-01 00:00:02\",\"d\":3,\"ok\":true}",
		"{\"id\":\"o12\",\"n\":1,\"amount\":1,\"ts\":\"2026-13-01 00:00:02\",\"d\":3,\"ok\":true}",
		"{\"id\":\"o13\",\"n\":1,\"amount\":1,\"ts\":\"2026-08-01 00:00:02\",\"d\":3,\"ok\":tru}",
		"{\"id\":\"o14\",\"n\":1,\"amount\":01,\"ts\":\"2026-08-01 00:00:02\",\"d\":3,\"ok\":true}",
		"{\"id\":\"o15\",\"n\":1,\"amount\":1,\"ts\":\"2026-08-01 00:00:02\",\"d\":3,\"ok\":true",
		"{\"id\":\"o16\",\"n\":1,\"amount\":1,\"ts\":\"2026-08-01 00:00:02\",\"d\":3,\"ok",
		"{\"id\":\"o17",
		"{\"id\":\"\",\"n\":0,\"amount\":0,\"ts\":\"2026-08-01 00:00:02\",\"d\":0,\"ok\":false}",
		"{}",
	};
	int nf = (int)(sizeof(FL) / sizeof(FL[0]));
	th_codec a, g;
	th_codec_init(&a, "json", FL, nf, 64, NULL, 0);
	th_codec_init(&g, "json", FL, nf, 64, NULL, 0);
	char buf[512];
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		snprintf(buf, sizeof(buf), "{ %s", recs[i] + 1);
		int ra = th_decode(&a, recs[i]), rg = th_decode(&g, buf);
		assert_int_equal(ra, rg);
		assert_int_equal(a.b->nrows, g.b->nrows);
		if (ra < 0) {
			if (strncmp(g.err.msg, "field", 5) == 0)
				assert_string_equal(a.err.msg, g.err.msg);
			continue;
		}
		int r = a.b->nrows - 1;
		for (int c = 0; c < nf; c++) {
			const sl_col *x = &a.b->cols[c], *y = &g.b->cols[c];
			assert_int_equal(x->null[r], y->null[r]);
			if (x->null[r])
				continue;
			if (c == 0) {
				assert_int_equal(x->v.str[r].len, y->v.str[r].len);
				assert_memory_equal(x->v.str[r].ptr, y->v.str[r].ptr, (size_t)x->v.str[r].len);
			} else if (c == 2) {
				assert_true(x->v.i128[r] == y->v.i128[r]);
			} else {
				assert_int_equal(x->v.i64[r], y->v.i64[r]);
			}
		}
	}
	/* names of 13 and 14 bytes (the key and ':' fit 16 bytes, or not),
	 * near the record's end or not, a near miss in the ':' */
	static sl_field LN[] = {
		{"thirteen_char", {.id = SL_T_INT}},
		{"fourteen_chars", {.id = SL_T_INT}},
		{"x", {.id = SL_T_INT}},
	};
	static const char *lrecs[] = {
		"{\"thirteen_char\":1,\"fourteen_chars\":2,\"x\":3}",
		"{\"thirteen_char\":1,\"fourteen_chars\":2}",
		"{\"thirteen_char\":1,\"fourteen_chars\";2,\"x\":3}",
		"{\"thirteen_char\";1,\"fourteen_chars\":2,\"x\":3}",
		"{\"thirteen_chars\":1,\"fourteen_chars\":2,\"x\":3}",
		"{\"x\":3,\"thirteen_char\":1,\"fourteen_chars\":2}",
		"{\"thirteen_char\":1,\"fourteen_chars\":2,\"x\":3,\"fourteen_chars\":4}",
	};
	th_codec la, lg;
	th_codec_init(&la, "json", LN, 3, 16, NULL, 0);
	th_codec_init(&lg, "json", LN, 3, 16, NULL, 0);
	for (size_t i = 0; i < sizeof(lrecs) / sizeof(lrecs[0]); i++) {
		snprintf(buf, sizeof(buf), "{ %s", lrecs[i] + 1);
		int ra = th_decode(&la, lrecs[i]), rg = th_decode(&lg, buf);
		assert_int_equal(ra, rg);
		if (ra < 0)
			continue;
		int r = la.b->nrows - 1;
		for (int c = 0; c < 3; c++) {
			assert_int_equal(la.b->cols[c].null[r], lg.b->cols[c].null[r]);
			assert_int_equal(la.b->cols[c].v.i64[r], lg.b->cols[c].v.i64[r]);
		}
	}
	th_codec_deinit(&la);
	th_codec_deinit(&lg);
	/* what the flat path had set before leaving it is not kept */
	assert_int_equal(th_decode(&a, "{\"id\":\"k\",\"n\":5,\"amount\":1.25}"), 1);
	int r = a.b->nrows - 1;
	assert_int_equal(a.b->cols[1].v.i64[r], 5);
	assert_true(a.b->cols[2].v.i128[r] == 125);
	assert_int_equal(a.b->cols[3].null[r], 1);
	assert_int_equal(a.b->cols[4].null[r], 1);
	assert_int_equal(a.b->cols[5].null[r], 1);
	th_codec_deinit(&a);
	th_codec_deinit(&g);
}

static void test_fuzz_regressions(void **st)
{
	fx *f = fx_new("debezium-json", NULL, NULL);
	/* crash-129d0329: an unterminated "op" string read an unset value */
	expect_err(f, "{\"op\":\"\x8b}}", "malformed JSON at byte 6: unterminated string");
	fx_free(f);
	f = fx_new("json", NULL, NULL);
	/* a 9-digit year overflowed the micros (UBSan) */
	expect_err(f, "{\"ts\":\"739271486-01-01 00:00:00\"}",
	           "field 'ts': '739271486-01-01 00:00:00' is not a TIMESTAMP(3)");
	fx_free(f);
}

/* ARRAY and MAP columns (data/packed.h): decoded, printed, written back;
 * a MAP of INT keys is written with the keys' text; repeated keys keep
 * their last value; a JSON value of another kind is an error. */
static sl_field ael_f[] = {{"element", {.id = SL_T_INT}}};
static sl_row_type ael_t = {1, ael_f};
static sl_field aael_f[] = {{"element", {.id = SL_T_ARRAY, .row = &ael_t}}};
static sl_row_type aael_t = {1, aael_f};
static sl_field mkv_f[] = {{"key", {.id = SL_T_INT}},
                           {"value", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}}};
static sl_row_type mkv_t = {2, mkv_f};
static sl_field arow_f[] = {{"element", {.id = SL_T_ROW, .row = &inner_t}}};
static sl_row_type arow_t = {1, arow_f};
static sl_field CF[] = {
	{"a", {.id = SL_T_ARRAY, .row = &ael_t}},
	{"aa", {.id = SL_T_ARRAY, .row = &aael_t}},
	{"m", {.id = SL_T_MAP, .row = &mkv_t}},
	{"rs", {.id = SL_T_ARRAY, .row = &arow_t}},
};

static void test_collections(void **st)
{
	static th_codec f;
	th_codec_init(&f, "json", CF, 4, 8, NULL, 0);
	assert_int_equal(th_decode(&f, "{\"a\": [1, null, -3], \"aa\": [[], [4, 5]],"
	                                " \"m\": {\"2\": \"x\\ny\", \"-1\": null, \"2\": \"z\"},"
	                                " \"rs\": [{\"s\": \"q\", \"x\": 7}, null]}"), 1);
	assert_int_equal(th_decode(&f, "{\"a\": [], \"m\": {}}"), 1);
	sl_err e;
	sl_err_clear(&e);
	sl_encoder *en = sl_encoder_new(sl_format_find("json"), CF, 4, NULL, &e);
	assert_non_null(en);
	sl_buf out;
	sl_buf_init(&out);
	assert_int_equal(en->vt->encode(en, f.b, 0, &out, &e), 0);
	assert_int_equal(en->vt->encode(en, f.b, 1, &out, &e), 0);
	assert_string_equal(sl_buf_cstr(&out),
	                    "{\"a\":[1,null,-3],\"aa\":[[],[4,5]],\"m\":{\"2\":\"z\",\"-1\":null},"
	                    "\"rs\":[{\"x\":7,\"s\":\"q\"},null]}\n"
	                    "{\"a\":[],\"aa\":null,\"m\":{},\"rs\":null}\n");
	/* the text form (valtext.c): the map in java.util.HashMap's order, as
	 * Flink prints it (-1 hashes to bucket 0, 2 to bucket 2) */
	sl_buf_clear(&out);
	for (int c = 0; c < 4; c++) {
		assert_int_equal(sl_value_text(&f.b->cols[c], 0, "NULL", NULL, &out), 0);
		sl_buf_putc(&out, '|');
	}
	assert_string_equal(sl_buf_cstr(&out), "[1, NULL, -3]|[[], [4, 5]]|{-1=NULL, 2=z}|"
	                                       "[(7, q), NULL]|");
	int n0 = f.b->nrows;
	assert_int_equal(th_decode(&f, "{\"a\": {\"x\": 1}}"), SL_EINPUT);
	assert_string_equal(f.err.msg, "field 'a': '{\"x\": 1}' is not a ARRAY<INT>");
	assert_int_equal(th_decode(&f, "{\"a\": [1, \"b\"]}"), SL_EINPUT);
	assert_string_equal(f.err.msg, "field 'a': 'b' is not a INT");
	assert_int_equal(th_decode(&f, "{\"a\": [1 2]}"), SL_EINPUT);
	assert_string_equal(f.err.msg, "malformed JSON at byte 9: expected ',' or ']'");
	assert_int_equal(f.b->nrows, n0);
	/* csv cannot carry them */
	assert_null(sl_encoder_new(sl_format_find("csv"), CF, 4, NULL, &e));
	assert_string_equal(e.msg, "format 'csv' does not support column 'a' of type ARRAY<INT> "
	                           "(ARRAY and MAP columns need a JSON format)");
	sl_encoder_free(en);
	sl_buf_deinit(&out);
	th_codec_deinit(&f);
}

/* Whether row r of x and y hold the same value: the NULL flags, and the
 * values where not NULL, a ROW's fields too (what a consumer reads). */
static void same_cell(const sl_col *x, const sl_col *y, int r)
{
	assert_int_equal(x->null[r], y->null[r]);
	if (x->type.id == SL_T_ROW) {
		for (int k = 0; k < x->nchild; k++)
			same_cell(&x->child[k], &y->child[k], r);
		return;
	}
	if (x->null[r])
		return;
	switch (sl_type_phys(x->type)) {
	case SL_PHYS_STR:
		assert_int_equal(x->v.str[r].len, y->v.str[r].len);
		assert_memory_equal(x->v.str[r].ptr, y->v.str[r].ptr, (size_t)x->v.str[r].len);
		break;
	case SL_PHYS_I128: assert_true(x->v.i128[r] == y->v.i128[r]); break;
	default: assert_int_equal(x->v.i64[r], y->v.i64[r]);
	}
}

/* The flat path through nested ROWs (fmt_json.c's read_level): each
 * record read flat and, with a blank after its '{', by the general
 * reader gives the same row (every field below every ROW) or the same
 * error; a null ROW after a set one leaves its fields NULL; integers of
 * every width at their limits. */
static sl_field nq_f[] = {
	{"x", {.id = SL_T_INT}},
	{"ts", {.id = SL_T_TIMESTAMP, .precision = 3}},
};
static sl_row_type nq_t = {2, nq_f};
static sl_field np_f[] = {
	{"a", {.id = SL_T_BIGINT}},
	{"s", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
	{"q", {.id = SL_T_ROW, .row = &nq_t}},
	{"m", {.id = SL_T_DECIMAL, .precision = 10, .scale = 2}},
};
static sl_row_type np_t = {4, np_f};

static void test_flat_nested(void **st)
{
	static sl_field NF_[] = {
		{"id", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
		{"t", {.id = SL_T_TINYINT}},
		{"p", {.id = SL_T_ROW, .row = &np_t}},
		{"arr", {.id = SL_T_ARRAY, .row = &ael_t}},
		{"big", {.id = SL_T_BIGINT}},
		{"sm", {.id = SL_T_SMALLINT}},
	};
	static const char *recs[] = {
		"{\"id\":\"e1\",\"t\":1,\"p\":{\"a\":10,\"s\":\"x\",\"q\":{\"x\":3,\"ts\":\"2026-01-01 00:00:00.001\"},\"m\":1.5},\"arr\":[1,2],\"big\":5,\"sm\":7}",
		"{\"id\":\"e2\",\"t\":2,\"p\":null,\"arr\":null,\"big\":6,\"sm\":8}",
		"{\"id\":\"e3\",\"t\":3,\"p\":{\"a\":11,\"s\":null,\"q\":null,\"m\":null},\"arr\":[],\"big\":-0,\"sm\":-32768}",
		"{\"id\":\"e4\",\"t\":-128,\"p\":{\"a\":-9223372036854775808,\"s\":\"a\\\"b\",\"q\":{\"x\":-2147483648,\"ts\":\"2026-01-01 00:00:00\"},\"m\":-0.01},\"arr\":[3],\"big\":9223372036854775807,\"sm\":32767}",
		/* the general reader's own cases, inside a ROW */
		"{\"id\":\"e5\",\"t\":5,\"p\":{\"s\":\"x\",\"a\":10,\"q\":null,\"m\":1},\"arr\":null,\"big\":1,\"sm\":1}",
		"{\"id\":\"e6\",\"t\":6,\"p\":{\"a\":10,\"q\":null,\"m\":1},\"arr\":null,\"big\":1,\"sm\":1}",
		"{\"id\":\"e7\",\"t\":7,\"p\":{},\"arr\":null,\"big\":1,\"sm\":1}",
		"{\"id\":\"e8\",\"t\":8,\"p\":{\"a\":10,\"s\":\"x\",\"q\":{\"x\":1,\"ts\":null,\"z\":[1]},\"m\":1},\"arr\":null,\"big\":1,\"sm\":1}",
		"{\"id\":\"e9\",\"t\":9,\"p\":{\"a\": 10,\"s\":\"x\",\"q\":null,\"m\":1},\"arr\":null,\"big\":1,\"sm\":1}",
		"{\"id\":\"e10\",\"t\":10,\"p\":{\"a\":10,\"s\":\"x\",\"q\":null,\"m\":1,\"a\":12},\"arr\":null,\"big\":1,\"sm\":1}",
		"{\"id\":\"e11\",\"t\":11,\"p\":5,\"arr\":null,\"big\":1,\"sm\":1}",
		"{\"id\":\"e12\",\"t\":12,\"p\":\"x\",\"arr\":null,\"big\":1,\"sm\":1}",
		"{\"id\":\"e13\",\"t\":13,\"p\":nul,\"arr\":null,\"big\":1,\"sm\":1}",
		"{\"id\":\"e14\",\"t\":14,\"p\":{\"a\":10,\"s\":\"x\",\"q\":null,\"m\":1",
		"{\"id\":\"e15\",\"t\":15,\"p\":{\"a\":10,\"s\":\"x\",\"q\":null,\"m\":1}}",
		"{\"id\":\"e16\",\"t\":16,\"p\":{\"a\":10,\"s\":\"x\",\"q\":null,\"m\":1},\"arr\":[\"x\"],\"big\":1,\"sm\":1}",
		"{\"id\":\"e17\",\"t\":17,\"p\":{\"a\":\"10\",\"s\":7,\"q\":{\"x\":\"4\",\"ts\":\"2026-01-01T00:00:00Z\"},\"m\":\"2.5\"},\"arr\":null,\"big\":1,\"sm\":1}",
		/* integers: what int_fast leaves to the general path */
		"{\"id\":\"i1\",\"t\":128,\"p\":null,\"arr\":null,\"big\":1,\"sm\":1}",
		"{\"id\":\"i2\",\"t\":1,\"p\":null,\"arr\":null,\"big\":1,\"sm\":32768}",
		"{\"id\":\"i3\",\"t\":1,\"p\":null,\"arr\":null,\"big\":9223372036854775808,\"sm\":1}",
		"{\"id\":\"i4\",\"t\":1,\"p\":null,\"arr\":null,\"big\":1.9,\"sm\":1}",
		"{\"id\":\"i5\",\"t\":1,\"p\":null,\"arr\":null,\"big\":1e3,\"sm\":1}",
		"{\"id\":\"i6\",\"t\":1,\"p\":null,\"arr\":null,\"big\":007,\"sm\":1}",
		"{\"id\":\"i7\",\"t\":1,\"p\":null,\"arr\":null,\"big\":-,\"sm\":1}",
		"{\"id\":\"i8\",\"t\":1,\"p\":null,\"arr\":null,\"big\":12345678901234567,\"sm\":1}",
		"{\"id\":\"i9\",\"t\":1,\"p\":null,\"arr\":null,\"big\":123456789012345678,\"sm\":1}",
		"{\"id\":\"i10\",\"t\":1,\"p\":null,\"arr\":null,\"big\":1234567890123456789,\"sm\":1}",
		"{\"id\":\"i11\",\"t\":1,\"p\":null,\"arr\":null,\"big\":12345678,\"sm\":-0}",
		"{\"id\":\"i12\",\"t\":1,\"p\":null,\"arr\":null,\"big\":1,\"sm\":1x}",
		"{\"id\":\"i13\",\"t\":1,\"p\":null,\"arr\":null,\"big\":1,\"sm\":12}",
		"{\"id\":\"i14\",\"t\":1,\"p\":null,\"arr\":null,\"big\":1,\"sm\":-}",
	};
	int nf = (int)(sizeof(NF_) / sizeof(NF_[0]));
	th_codec a, g;
	th_codec_init(&a, "json", NF_, nf, 64, NULL, 0);
	th_codec_init(&g, "json", NF_, nf, 64, NULL, 0);
	char buf[512];
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		snprintf(buf, sizeof(buf), "{ %s", recs[i] + 1);
		int ra = th_decode(&a, recs[i]), rg = th_decode(&g, buf);
		assert_int_equal(ra, rg);
		assert_int_equal(a.b->nrows, g.b->nrows);
		if (ra < 0) {
			if (strncmp(g.err.msg, "field", 5) == 0)
				assert_string_equal(a.err.msg, g.err.msg);
			continue;
		}
		for (int c = 0; c < nf; c++)
			same_cell(&a.b->cols[c], &g.b->cols[c], a.b->nrows - 1);
	}
	/* the rows the flat path took: read as expected */
	sl_batch *b = a.b;
	assert_int_equal(b->cols[2].child[0].v.i64[0], 10);
	assert_int_equal(b->cols[2].child[2].child[0].v.i64[0], 3);
	assert_int_equal(b->cols[2].child[2].child[1].v.i64[0], TS("2026-01-01 00:00:00.001"));
	assert_true(b->cols[2].child[3].v.i128[0] == 150);
	assert_int_equal(b->cols[2].null[1], 1); /* p null after a set p */
	for (int k = 0; k < 4; k++)
		assert_int_equal(b->cols[2].child[k].null[1], 1);
	assert_int_equal(b->cols[2].child[2].child[0].null[1], 1);
	assert_int_equal(b->cols[2].child[2].child[1].null[1], 1);
	assert_int_equal(b->cols[2].null[2], 0);
	assert_int_equal(b->cols[2].child[2].null[2], 1); /* q null inside a set p */
	assert_int_equal(b->cols[2].child[2].child[0].null[2], 1);
	assert_int_equal(b->cols[5].v.i64[2], -32768);
	assert_int_equal(b->cols[2].child[0].v.i64[3], INT64_MIN);
	assert_int_equal(b->cols[4].v.i64[3], INT64_MAX);
	assert_int_equal(b->cols[2].child[1].v.str[3].len, 3);
	assert_memory_equal(b->cols[2].child[1].v.str[3].ptr, "a\"b", 3);
	th_codec_deinit(&a);
	th_codec_deinit(&g);
}

/* Strings with escapes (sl__json_read_escaped: 16 bytes at a time, up to
 * the string's end or the record's): every length 0..70 with escapes at
 * every few bytes, the string first or last in the record (its end in the
 * record's last 16 bytes), read back exactly. */
static void test_escapes_lengths(void **st)
{
	static const char *esc[] = {"\\\\", "\\\"", "\\n", "\\u00e9", "\\/"};
	static const char *raw[] = {"\\", "\"", "\n", "\xc3\xa9", "/"};
	fx *f = fx_new("json", NULL, NULL);
	char rec[512], text[256], want[256];
	for (int len = 0; len <= 70; len++)
		for (int every = 1; every <= 17; every += 4)
			for (int last = 0; last < 2; last++) {
				size_t tn = 0, wn = 0;
				for (int i = 0; i < len; i++) {
					if (i % every == every - 1) {
						int e = (i / every) % 5;
						tn += (size_t)sprintf(text + tn, "%s", esc[e]);
						wn += (size_t)sprintf(want + wn, "%s", raw[e]);
					} else {
						text[tn++] = want[wn++] = (char)('a' + i % 26);
					}
				}
				text[tn] = want[wn] = 0;
				if (last)
					snprintf(rec, sizeof(rec), "{\"n\":1,\"id\":\"%s\"}", text);
				else
					snprintf(rec, sizeof(rec), "{\"id\":\"%s\",\"n\":1}", text);
				sl_batch_reset(f->b);
				assert_int_equal(dec(f, rec), 1);
				sl_str s = f->b->cols[0].v.str[0];
				assert_int_equal(s.len, (int64_t)wn);
				assert_memory_equal(s.ptr, want, wn);
				if (tn != wn) /* unescaped: a NUL-terminated copy */
					assert_int_equal(s.ptr[wn], 0);
				assert_int_equal(f->b->cols[1].v.i64[0], 1);
			}
	/* an escape that is the record's last bytes, unterminated */
	expect_err(f, "{\"id\":\"abc\\\\", "malformed JSON at byte 6: unterminated string");
	expect_err(f, "{\"id\":\"abc\\", "malformed JSON at byte 6: unterminated string");
	expect_err(f, "{\"id\":\"abc\\\"}", "malformed JSON at byte 6: unterminated string");
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_all_types),
		cmocka_unit_test(test_missing_unknown_null),
		cmocka_unit_test(test_strings_escapes),
		cmocka_unit_test(test_keys_in_place),
		cmocka_unit_test(test_decimal_numbers),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_debezium_decode),
		cmocka_unit_test(test_flat_path),
		cmocka_unit_test(test_flat_nested),
		cmocka_unit_test(test_escapes_lengths),
		cmocka_unit_test(test_fuzz_regressions),
		cmocka_unit_test(test_collections),
	};
	return cmocka_run_group_tests_name("fmt_json", tests, NULL, NULL);
}
