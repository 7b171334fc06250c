/*
 * test_pgcdc_proto.c - the postgres-cdc source's decoders
 * (src/connector/conn_pgcdc_proto.c) on messages built by hand as
 * PostgreSQL 15's pgoutput writes them: Begin, Commit, Relation, Insert,
 * Update with an old row ('O') and with an old key ('K') and an unchanged
 * TOASTed value ('u'), Delete, Truncate, a logical Message; every
 * truncation of each message refused without reading past it; COPY text
 * lines with escapes and \N; text values of each type, and those that do
 * not fit; intervals; array literals (nested up to 6 levels, NULL
 * elements, quoting, bounds) and the malformed ones, read back as the
 * sink writes them; LSNs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "connector/conn_pgcdc.h"
#include "connector/conn_pg.h"
#include "base/timeutil.h"

static sl_pgo_arrays A;
static char emsg[256];

typedef struct mb {
	uint8_t b[512];
	size_t n;
} mb;

static void put8(mb *m, uint8_t v) { m->b[m->n++] = v; }
static void put16(mb *m, uint16_t v) { put8(m, (uint8_t)(v >> 8)); put8(m, (uint8_t)v); }
static void put32(mb *m, uint32_t v) { put16(m, (uint16_t)(v >> 16)); put16(m, (uint16_t)v); }
static void put64(mb *m, int64_t v) { sl__pgo_put64(m->b + m->n, v); m->n += 8; }
static void puts0(mb *m, const char *s) { memcpy(m->b + m->n, s, strlen(s) + 1); m->n += strlen(s) + 1; }
static void putt(mb *m, const char *s)
{
	if (!s) {
		put8(m, 'n');
	} else if (!strcmp(s, "<u>")) {
		put8(m, 'u');
	} else {
		put8(m, 't');
		put32(m, (uint32_t)strlen(s));
		memcpy(m->b + m->n, s, strlen(s));
		m->n += strlen(s);
	}
}

static int parse(const mb *m, sl_pgo_msg *out)
{
	return sl__pgo_parse(m->b, m->n, out, &A, emsg, sizeof emsg);
}

/* Every proper prefix of m fails (and reads nothing past it: ASan). */
static void prefixes_fail(const mb *m)
{
	for (size_t n = 0; n < m->n; n++) {
		uint8_t *c = malloc(n ? n : 1);
		memcpy(c, m->b, n);
		sl_pgo_msg out;
		assert_int_equal(sl__pgo_parse(c, n, &out, &A, emsg, sizeof emsg), -1);
		free(c);
	}
}

static void test_messages(void **st)
{
	sl_pgo_msg m;
	mb b = {{0}, 0};
	put8(&b, 'B'); put64(&b, 0x16B374D848LL); put64(&b, 820000000000000LL); put32(&b, 742);
	assert_int_equal(parse(&b, &m), 0);
	assert_int_equal(m.type, 'B');
	assert_true(m.lsn == 0x16B374D848LL && m.ts == 820000000000000LL && m.xid == 742);
	prefixes_fail(&b);

	mb c = {{0}, 0};
	put8(&c, 'C'); put8(&c, 0); put64(&c, 100); put64(&c, 148); put64(&c, 5);
	assert_int_equal(parse(&c, &m), 0);
	assert_true(m.type == 'C' && m.lsn == 100 && m.end_lsn == 148 && m.ts == 5);
	prefixes_fail(&c);

	mb r = {{0}, 0};
	put8(&r, 'R'); put32(&r, 16384); puts0(&r, "public"); puts0(&r, "orders"); put8(&r, 'd');
	put16(&r, 2);
	put8(&r, 1); puts0(&r, "id"); put32(&r, 23); put32(&r, 0xffffffff);
	put8(&r, 0); puts0(&r, "note"); put32(&r, 25); put32(&r, 0xffffffff);
	assert_int_equal(parse(&r, &m), 0);
	assert_true(m.relid == 16384 && !strcmp(m.nsp, "public") && !strcmp(m.name, "orders"));
	assert_true(m.replident == 'd' && m.ncols == 2);
	assert_true(A.rel[0].flags == 1 && !strcmp(A.rel[0].name, "id") && A.rel[0].typoid == 23);
	assert_true(A.rel[1].flags == 0 && !strcmp(A.rel[1].name, "note") && A.rel[1].typmod == -1);
	prefixes_fail(&r);

	mb i = {{0}, 0};
	put8(&i, 'I'); put32(&i, 16384); put8(&i, 'N'); put16(&i, 2); putt(&i, "42"); putt(&i, NULL);
	assert_int_equal(parse(&i, &m), 0);
	assert_true(m.type == 'I' && m.nnew == 2 && A.new_[0].kind == 't' && A.new_[0].len == 2 &&
	            !memcmp(A.new_[0].p, "42", 2) && A.new_[1].kind == 'n');
	prefixes_fail(&i);

	mb u = {{0}, 0};
	put8(&u, 'U'); put32(&u, 16384); put8(&u, 'O'); put16(&u, 2); putt(&u, "41"); putt(&u, "old");
	put8(&u, 'N'); put16(&u, 2); putt(&u, "42"); putt(&u, "<u>");
	assert_int_equal(parse(&u, &m), 0);
	assert_true(m.type == 'U' && m.old_kind == 'O' && m.nold == 2 && m.nnew == 2);
	assert_true(A.old[1].kind == 't' && A.old[1].len == 3 && A.new_[1].kind == 'u');
	prefixes_fail(&u);

	mb k = {{0}, 0};
	put8(&k, 'U'); put32(&k, 16384); put8(&k, 'K'); put16(&k, 2); putt(&k, "41"); putt(&k, NULL);
	put8(&k, 'N'); put16(&k, 2); putt(&k, "43"); putt(&k, "x");
	assert_int_equal(parse(&k, &m), 0);
	assert_true(m.old_kind == 'K' && A.old[1].kind == 'n' && A.new_[0].len == 2);

	mb n = {{0}, 0}; /* no old row: straight to the new one */
	put8(&n, 'U'); put32(&n, 16384); put8(&n, 'N'); put16(&n, 1); putt(&n, "7");
	assert_int_equal(parse(&n, &m), 0);
	assert_true(m.old_kind == 0 && m.nold == 0 && m.nnew == 1);

	mb d = {{0}, 0};
	put8(&d, 'D'); put32(&d, 16384); put8(&d, 'K'); put16(&d, 2); putt(&d, "42"); putt(&d, NULL);
	assert_int_equal(parse(&d, &m), 0);
	assert_true(m.type == 'D' && m.old_kind == 'K' && m.nold == 2);
	prefixes_fail(&d);

	mb t = {{0}, 0};
	put8(&t, 'T'); put32(&t, 2); put8(&t, 1); put32(&t, 16384); put32(&t, 99);
	assert_int_equal(parse(&t, &m), 0);
	assert_true(m.ntrunc == 2 && A.trunc_rel[0] == 16384 && A.trunc_rel[1] == 99);
	prefixes_fail(&t);

	mb g = {{0}, 0};
	put8(&g, 'M'); put8(&g, 1); put64(&g, 5); puts0(&g, "pfx"); put32(&g, 3);
	memcpy(g.b + g.n, "abc", 3); g.n += 3;
	assert_int_equal(parse(&g, &m), 0);
	prefixes_fail(&g);

	/* refused: unknown types and kinds, a length past the end, a binary value */
	mb x = {{'Z'}, 1};
	assert_int_equal(parse(&x, &m), -1);
	assert_non_null(strstr(emsg, "unknown pgoutput message type"));
	mb y = {{0}, 0};
	put8(&y, 'I'); put32(&y, 1); put8(&y, 'N'); put16(&y, 1); put8(&y, 'q');
	assert_int_equal(parse(&y, &m), -1);
	assert_non_null(strstr(emsg, "unknown tuple value kind"));
	mb z = {{0}, 0};
	put8(&z, 'I'); put32(&z, 1); put8(&z, 'N'); put16(&z, 1); put8(&z, 't'); put32(&z, 1000);
	assert_int_equal(parse(&z, &m), -1);
	mb w = {{0}, 0};
	put8(&w, 'I'); put32(&w, 1); put8(&w, 'N'); put16(&w, 1); put8(&w, 'b'); put32(&w, 1); put8(&w, 0);
	assert_int_equal(parse(&w, &m), -1);
	assert_non_null(strstr(emsg, "binary"));
	mb v = {{0}, 0};
	put8(&v, 'I'); put32(&v, 1); put8(&v, 'N'); put16(&v, 2000);
	assert_int_equal(parse(&v, &m), -1);
}

static void test_copy_line(void **st)
{
	sl_pgo_val v[8];
	sl_buf s;
	sl_buf_init(&s);
	const char *l = "42\t\\N\ta\\tb\\nc\\\\d\\x41\\101\t\t\\N\n";
	int n = sl__pgo_copy_line(l, strlen(l), v, 8, &s);
	assert_int_equal(n, 5);
	assert_true(v[0].kind == 't' && v[0].len == 2 && !memcmp(v[0].p, "42", 2));
	assert_int_equal(v[1].kind, 'n');
	assert_true(v[2].kind == 't' && v[2].len == 9 && !memcmp(v[2].p, "a\tb\nc\\dAA", 9));
	assert_true(v[3].kind == 't' && v[3].len == 0);
	assert_int_equal(v[4].kind, 'n');
	/* "\N" inside a value is text, not NULL */
	n = sl__pgo_copy_line("\\Nx", 3, v, 8, &s);
	assert_true(n == 1 && v[0].kind == 't' && v[0].len == 2 && !memcmp(v[0].p, "Nx", 2));
	assert_int_equal(sl__pgo_copy_line("a\tb\tc", 5, v, 2, &s), -1);
	sl_buf_deinit(&s);
}

static int setv(sl_batch *b, int col, const char *text)
{
	return sl__pgo_set_value(b, &b->cols[col], 0, text, strlen(text), emsg, sizeof emsg);
}

static void test_values(void **st)
{
	sl_type t[] = {
		{.id = SL_T_BOOLEAN}, {.id = SL_T_TINYINT}, {.id = SL_T_INT}, {.id = SL_T_BIGINT},
		{.id = SL_T_DOUBLE}, {.id = SL_T_DECIMAL, .precision = 10, .scale = 2},
		{.id = SL_T_VARCHAR, .length = SL_STRING_LEN}, {.id = SL_T_VARBINARY, .length = SL_STRING_LEN},
		{.id = SL_T_DATE}, {.id = SL_T_TIME, .precision = 3}, {.id = SL_T_TIMESTAMP, .precision = 3},
		{.id = SL_T_TIMESTAMP_LTZ, .precision = 3}, {.id = SL_T_FLOAT},
	};
	sl_batch *b = sl_batch_new(13, t, 1);
	sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
	assert_int_equal(setv(b, 0, "t"), 0);
	assert_int_equal(b->cols[0].v.i64[0], 1);
	assert_int_equal(setv(b, 0, "true"), -1);
	assert_int_equal(setv(b, 1, "-128"), 0);
	assert_int_equal(setv(b, 1, "128"), -1);
	assert_non_null(strstr(emsg, "does not fit TINYINT"));
	assert_int_equal(setv(b, 2, "2147483648"), -1);
	assert_int_equal(setv(b, 3, "-9223372036854775808"), 0);
	assert_true(b->cols[3].v.i64[0] == INT64_MIN);
	/* integers: the digit loop (up to 18 digits) and strtoll beyond */
	assert_int_equal(setv(b, 3, "9223372036854775807"), 0);
	assert_true(b->cols[3].v.i64[0] == INT64_MAX);
	assert_int_equal(setv(b, 3, "9223372036854775808"), -1);
	assert_int_equal(setv(b, 3, "-999999999999999999"), 0);
	assert_true(b->cols[3].v.i64[0] == -999999999999999999LL);
	assert_int_equal(setv(b, 2, "-2147483648"), 0);
	assert_true(b->cols[2].v.i64[0] == INT32_MIN);
	assert_int_equal(setv(b, 2, "-2147483649"), -1);
	assert_int_equal(setv(b, 2, "-0"), 0);
	assert_true(b->cols[2].v.i64[0] == 0);
	assert_int_equal(setv(b, 2, "-"), -1);
	assert_int_equal(setv(b, 2, ""), -1);
	assert_int_equal(setv(b, 2, "12a"), -1);
	assert_int_equal(setv(b, 2, "1 2"), -1);
	assert_int_equal(setv(b, 2, "--1"), -1);
	assert_int_equal(setv(b, 4, "0.30000000000000004"), 0);
	assert_true(b->cols[4].v.f64[0] == 0.1 + 0.2);
	assert_int_equal(setv(b, 4, "-Infinity"), 0);
	assert_true(isinf(b->cols[4].v.f64[0]) && b->cols[4].v.f64[0] < 0);
	assert_int_equal(setv(b, 4, "NaN"), 0);
	assert_true(isnan(b->cols[4].v.f64[0]));
	assert_int_equal(setv(b, 12, "1.5"), 0);
	assert_int_equal(setv(b, 5, "-12.34"), 0);
	assert_true(b->cols[5].v.i128[0] == -1234);
	assert_int_equal(setv(b, 5, "123456789.5"), -1);
	assert_int_equal(setv(b, 5, "NaN"), -1);
	assert_int_equal(setv(b, 6, "h\xc3\xa9"), 0);
	assert_true(b->cols[6].v.str[0].len == 3 && !b->cols[6].null[0]);
	assert_int_equal(setv(b, 7, "\\x00ff10"), 0);
	assert_true(b->cols[7].v.str[0].len == 3 && (uint8_t)b->cols[7].v.str[0].ptr[1] == 0xff);
	assert_int_equal(setv(b, 7, "\\x0g"), -1);
	assert_int_equal(setv(b, 7, "abc"), -1);
	assert_int_equal(setv(b, 8, "2026-08-01"), 0);
	assert_true(b->cols[8].v.i64[0] == sl_days_from_civil(2026, 8, 1));
	assert_int_equal(setv(b, 8, "infinity"), -1);
	assert_int_equal(setv(b, 9, "09:00:05.123"), 0);
	assert_true(b->cols[9].v.i64[0] == (9 * 3600 + 5) * 1000000LL + 123000);
	assert_int_equal(setv(b, 10, "2026-08-01 09:00:05.123"), 0);
	assert_true(b->cols[10].v.i64[0] ==
	            sl_days_from_civil(2026, 8, 1) * 86400000000LL + (9 * 3600 + 5) * 1000000LL + 123000);
	assert_int_equal(setv(b, 11, "2026-08-01 09:00:05.123+00"), 0);
	assert_true(b->cols[11].v.i64[0] == b->cols[10].v.i64[0]);
	assert_int_equal(setv(b, 11, "2026-08-01 09:00:05.123+02"), -1);
	sl_batch_free(b);
}

/* Parses `lit` into ARRAY column col, writes it back in COPY's text form. */
static const char *arr_rt(sl_batch *b, int col, const char *lit)
{
	static sl_buf out;
	if (setv(b, col, lit))
		return NULL;
	sl_buf_clear(&out);
	if (sl__pg_copy_value(&b->cols[col], 0, &out) || sl_buf_putc(&out, 0))
		return "(write failed)";
	return (const char *)out.p;
}

static void test_arrays(void **st)
{
	sl_row_type rt[10];
	sl_field rf[10];
	for (int i = 0; i < 10; i++)
		rt[i].fields = &rf[i];
	sl_type ai = sl_type_collection(SL_T_ARRAY, &rt[0]);
	rf[0].type = (sl_type){.id = SL_T_INT};
	sl_type as = sl_type_collection(SL_T_ARRAY, &rt[1]);
	rf[1].type = (sl_type){.id = SL_T_VARCHAR, .length = SL_STRING_LEN};
	sl_type a2 = sl_type_collection(SL_T_ARRAY, &rt[2]);
	rf[2].type = ai;
	sl_type a6 = ai; /* ARRAY^6<INT> */
	for (int i = 3; i < 8; i++) {
		rf[i].type = a6;
		a6 = sl_type_collection(SL_T_ARRAY, &rt[i]);
	}
	sl_type ab = sl_type_collection(SL_T_ARRAY, &rt[8]);
	rf[8].type = (sl_type){.id = SL_T_VARBINARY, .length = SL_STRING_LEN};
	sl_type av = sl_type_collection(SL_T_ARRAY, &rt[9]);
	rf[9].type = (sl_type){.id = SL_T_INTERVAL_DT};
	sl_type t[] = {ai, as, a2, a6, ab, av};
	sl_batch *b = sl_batch_new(6, t, 1);
	sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
	char tb[64];
	assert_string_equal(sl__pg_type_for(a6, tb, sizeof tb), "integer[][][][][][]");
	assert_true(sl__pg_type_accepts(a2, "_int4", -1));
	assert_false(sl__pg_type_accepts(a2, "_text", -1));
	assert_string_equal(arr_rt(b, 0, "{1,NULL,-3}"), "{\"1\",NULL,\"-3\"}");
	assert_string_equal(arr_rt(b, 0, "{}"), "{}");
	assert_string_equal(arr_rt(b, 0, " { 1 , 2 } "), "{\"1\",\"2\"}");
	assert_string_equal(arr_rt(b, 0, "[0:1]={7,8}"), "{\"7\",\"8\"}");
	assert_string_equal(arr_rt(b, 0, "{\"4\",null}"), "{\"4\",NULL}");
	assert_string_equal(arr_rt(b, 1, "{\"a b\",\"say \\\"hi\\\"\",plain,\"NULL\",\"x\\\\y\",a\\,b}"),
	                    "{\"a b\",\"say \\\\\"hi\\\\\"\",\"plain\",\"NULL\",\"x\\\\\\\\y\",\"a,b\"}");
	assert_string_equal(arr_rt(b, 2, "{{1,2},{3,NULL}}"), "{{\"1\",\"2\"},{\"3\",NULL}}");
	assert_string_equal(arr_rt(b, 2, "{}"), "{}");
	assert_string_equal(arr_rt(b, 3, "{{{{{{1,2}}}},{{{{3,4}}}}}}"),
	                    "{{{{{{\"1\",\"2\"}}}},{{{{\"3\",\"4\"}}}}}}");
	assert_string_equal(arr_rt(b, 4, "{\"\\\\x00ff\",NULL,\"\\\\x\"}"),
	                    "{\"\\\\\\\\x00ff\",NULL,\"\\\\\\\\x\"}");
	assert_string_equal(arr_rt(b, 5, "{\"1 day 02:00:00\",\"-00:00:00.5\"}"),
	                    "{\"1 days 7200.000000 seconds\",\"-0 days -0.500000 seconds\"}");
	/* malformed: each refused with a reason, none read past the text */
	static const char *const bad[] = {
		"{,}", "{1,}", "{,1}", "{", "{1", "{1,2", "{\"a", "{\"a\\", "{1}}", "{1} x", "1",
		"", "{x}", "{1\"2\"}", "{{1}}", "[0:1]{1}", "{1\\", "{\"1\" 2}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		assert_null(arr_rt(b, 0, bad[i]));
		assert_non_null(strstr(emsg, "array '"));
	}
	assert_null(arr_rt(b, 2, "{1,2}"));
	assert_non_null(strstr(emsg, "fewer dimensions"));
	assert_null(arr_rt(b, 2, "{{1},2}"));
	assert_null(arr_rt(b, 2, "{{,}}"));
	assert_null(arr_rt(b, 0, "{{1}}"));
	assert_non_null(strstr(emsg, "more dimensions"));
	assert_null(arr_rt(b, 0, "{1,x}"));
	assert_non_null(strstr(emsg, "element 2: 'x' does not fit INT"));
	sl_batch_free(b);
}

static void test_intervals(void **st)
{
	sl_type t[] = {{.id = SL_T_INTERVAL_DT}, {.id = SL_T_INTERVAL_YM}};
	sl_batch *b = sl_batch_new(2, t, 1);
	sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
	assert_int_equal(setv(b, 0, "1 day 02:03:04.5"), 0);
	assert_true(b->cols[0].v.i64[0] == 93784500000LL);
	assert_int_equal(setv(b, 0, "-1 days +02:00:00"), 0);
	assert_true(b->cols[0].v.i64[0] == -79200000000LL);
	assert_int_equal(setv(b, 0, "-00:00:00.5"), 0);
	assert_true(b->cols[0].v.i64[0] == -500000);
	assert_int_equal(setv(b, 0, "00:00:00"), 0);
	assert_true(b->cols[0].v.i64[0] == 0);
	assert_int_equal(setv(b, 0, "2562047788:00:54.775807"), 0);
	assert_true(b->cols[0].v.i64[0] == INT64_MAX);
	assert_int_equal(setv(b, 0, "2562047788:00:54.775808"), -1);
	assert_non_null(strstr(emsg, "range"));
	assert_int_equal(setv(b, 0, "106751992 days"), -1); /* * 86400e6 overflows */
	assert_non_null(strstr(emsg, "INTERVAL DAY TO SECOND's range"));
	assert_int_equal(setv(b, 0, "1 mon"), -1);
	assert_non_null(strstr(emsg, "months"));
	assert_int_equal(setv(b, 1, "1 year 2 mons"), 0);
	assert_true(b->cols[1].v.i64[0] == 14);
	assert_int_equal(setv(b, 1, "-178956970 years -8 mons"), 0);
	assert_true(b->cols[1].v.i64[0] == INT32_MIN);
	assert_int_equal(setv(b, 1, "1 year 1 day"), -1);
	assert_non_null(strstr(emsg, "YEAR TO MONTH"));
	static const char *const bad[] = {"", " ", "1", "1 week", "1 day x", "1:2:3", "01:60:00",
	                                  "01:00:00.", "day", "- 1 day", "99999999999999999999 days"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_int_equal(setv(b, 0, bad[i]), -1);
	sl_batch_free(b);
}

/* The sink's binary form of ARRAY values (array_send's): arrays built by
 * the reader from literals, then written for an int4[] column. */
static void test_array_binary(void **st)
{
	sl_row_type rt[3];
	sl_field rf[3];
	for (int i = 0; i < 3; i++)
		rt[i].fields = &rf[i];
	rf[0].type = (sl_type){.id = SL_T_INT};
	sl_type ai = sl_type_collection(SL_T_ARRAY, &rt[0]);
	rf[1].type = ai;
	sl_type a2 = sl_type_collection(SL_T_ARRAY, &rt[1]);
	sl_type t[] = {ai, a2};
	sl_batch *b = sl_batch_new(2, t, 1);
	sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
	sl_pg_kind k = sl__pg_kind("_int4");
	assert_true(k >= SL_PGK_ARRAY);
	assert_int_equal(sl__pg_kind("int4"), SL_PGK_INT4);
	assert_int_equal(sl__pg_kind("_point"), SL_PGK_NONE);
	sl_buf out;
	sl_buf_init(&out);
	static const unsigned char one_null[] = {
		0, 0, 0, 32,  0, 0, 0, 1,  0, 0, 0, 1,  0, 0, 0, 23,  /* len, ndim, has NULL, int4 */
		0, 0, 0, 2,  0, 0, 0, 1,                              /* 2 elements from 1 */
		0, 0, 0, 4,  0, 0, 0, 1,  0xff, 0xff, 0xff, 0xff};
	assert_int_equal(setv(b, 0, "{1,NULL}"), 0);
	assert_int_equal(sl__pg_bin_value(&b->cols[0], 0, k, &out), 0);
	assert_int_equal(out.len, sizeof one_null);
	assert_memory_equal(out.p, one_null, sizeof one_null);
	static const unsigned char empty[] = {0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 23};
	sl_buf_clear(&out);
	assert_int_equal(setv(b, 0, "{}"), 0);
	assert_int_equal(sl__pg_bin_value(&b->cols[0], 0, k, &out), 0);
	assert_int_equal(out.len, sizeof empty);
	assert_memory_equal(out.p, empty, sizeof empty);
	static const unsigned char two[] = {
		0, 0, 0, 44,  0, 0, 0, 2,  0, 0, 0, 0,  0, 0, 0, 23,
		0, 0, 0, 2,  0, 0, 0, 1,  0, 0, 0, 1,  0, 0, 0, 1,   /* 2 x 1 */
		0, 0, 0, 4,  0, 0, 0, 7,  0, 0, 0, 4,  0xff, 0xff, 0xff, 0xf8};
	sl_buf_clear(&out);
	assert_int_equal(setv(b, 1, "{{7},{-8}}"), 0);
	assert_int_equal(sl__pg_bin_value(&b->cols[1], 0, k, &out), 0);
	assert_int_equal(out.len, sizeof two);
	assert_memory_equal(out.p, two, sizeof two);
	/* {{},{}}: no elements, the empty array */
	sl_buf_clear(&out);
	assert_int_equal(setv(b, 1, "{{},{}}"), 0);
	assert_int_equal(sl__pg_bin_value(&b->cols[1], 0, k, &out), 0);
	assert_int_equal(out.len, sizeof empty);
	assert_memory_equal(out.p, empty, sizeof empty);
	/* ragged, a NULL inner array: no PostgreSQL form */
	sl_buf_clear(&out);
	assert_int_equal(setv(b, 1, "{{1},{2,3}}"), 0);
	assert_int_equal(sl__pg_bin_value(&b->cols[1], 0, k, &out), SL_ERUNTIME);
	assert_non_null(strstr(sl__pg_value_error(), "differ in length"));
	assert_int_equal(setv(b, 1, "{{1},NULL}"), 0);
	assert_int_equal(sl__pg_bin_value(&b->cols[1], 0, k, &out), SL_ERUNTIME);
	assert_non_null(strstr(sl__pg_value_error(), "NULL inner array"));
	sl_buf_deinit(&out);
	sl_batch_free(b);
}

static void test_lsn(void **st)
{
	int64_t l;
	char buf[24];
	assert_int_equal(sl__pgo_lsn_parse("16/B374D848", &l), 0);
	assert_true(l == 0x16B374D848LL);
	sl__pgo_lsn_format(l, buf);
	assert_string_equal(buf, "16/B374D848");
	assert_int_equal(sl__pgo_lsn_parse("16/B374D848x", &l), -1);
	assert_int_equal(sl__pgo_lsn_parse("", &l), -1);
}

int main(void)
{
	A.rel = calloc(SL_PGO_MAX_COLS, sizeof(sl_pgo_relcol));
	A.old = calloc(SL_PGO_MAX_COLS, sizeof(sl_pgo_val));
	A.new_ = calloc(SL_PGO_MAX_COLS, sizeof(sl_pgo_val));
	A.trunc_rel = calloc(SL_PGO_MAX_COLS, sizeof(uint32_t));
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_copy_line),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_arrays),
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_array_binary),
		cmocka_unit_test(test_lsn),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	free(A.rel);
	free(A.old);
	free(A.new_);
	free(A.trunc_rel);
	return rc;
}
