/*
 * test_conn_jdbc.c - the jdbc connector's parts that need no server: the
 * buffer of changes reduced per key (conn_jdbc_changes.c), URLs into libpq
 * parameters, COPY text and binary values of every type and the type
 * mapping (conn_pg.c).
 * The sink against a real server: tests/pg/.
 */
#include "harness.h"
#include "connector/conn_jdbc.h"
#include "connector/conn_pg.h"
#include "data/batch.h"
#include "data/packed.h"

#include <stdio.h>
#include <string.h>

static void add(sl_jd_changes *c, const char *key, const char *line, int only_if_absent)
{
	assert_int_equal(sl__jd_changes_add(c, key, strlen(key), line, strlen(line),
	                                    only_if_absent), 0);
}

static const char *lines(sl_jd_changes *c)
{
	static char buf[4096];
	sl__jd_changes_compact(c);
	snprintf(buf, sizeof buf, "%.*s", (int)c->lines.len, (const char *)c->lines.p);
	return buf;
}

/* one live line per key, the newest; compaction keeps arrival order of
 * the survivors */
static void test_reduce_per_key(void **st)
{
	(void)st;
	sl_jd_changes c;
	sl__jd_changes_init(&c, 1);
	add(&c, "k1", "1\ta\n", 0);
	add(&c, "k2", "1\tb\n", 0);
	add(&c, "k1", "2\ta\n", 0);
	assert_int_equal(c.live, 2);
	assert_string_equal(lines(&c), "1\tb\n2\ta\n");
	add(&c, "k2", "1\tc\n", 0); /* after a compaction too */
	assert_string_equal(lines(&c), "2\ta\n1\tc\n");
	sl__jd_changes_clear(&c);
	assert_int_equal(c.live, 0);
	assert_string_equal(lines(&c), "");
	sl__jd_changes_deinit(&c);
}

/* an aborted or uncommitted checkpoint's changes go under the newer ones */
static void test_merge_older(void **st)
{
	(void)st;
	sl_jd_changes cur, old;
	sl__jd_changes_init(&cur, 1);
	sl__jd_changes_init(&old, 1);
	add(&old, "k1", "1\told1\n", 0);
	add(&old, "k3", "2\told3\n", 0);
	sl__jd_changes_note_delete(&old);
	add(&cur, "k1", "1\tnew1\n", 0);
	assert_int_equal(sl__jd_changes_merge_older(&cur, &old), 0);
	assert_int_equal(cur.live, 2);
	assert_int_equal(cur.ndel, 1);
	assert_string_equal(lines(&cur), "1\tnew1\n2\told3\n");
	sl__jd_changes_move(&old, &cur); /* pre-commit keeps it, cur starts empty */
	assert_int_equal(cur.live, 0);
	assert_int_equal(old.live, 2);
	add(&cur, "k3", "1\tnewer3\n", 0);
	assert_int_equal(cur.live, 1);
	sl__jd_changes_deinit(&cur);
	sl__jd_changes_deinit(&old);
}

/* many keys updated many times: the table grows, dead lines are compacted */
static void test_many_keys(void **st)
{
	(void)st;
	sl_jd_changes c;
	char k[32], l[64];
	sl__jd_changes_init(&c, 1);
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 5000; i++) {
			snprintf(k, sizeof k, "key%d", i);
			snprintf(l, sizeof l, "1\t%d\t%d\n", i, round);
			add(&c, k, l, 0);
		}
		if (sl__jd_changes_bloated(&c))
			sl__jd_changes_compact(&c);
	}
	assert_int_equal(c.live, 5000);
	sl__jd_changes_compact(&c);
	assert_int_equal(c.nents, 5000);
	/* every key once, from the last round */
	const char *p = (const char *)c.lines.p, *end = p + c.lines.len;
	int n = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		assert_non_null(nl);
		assert_memory_equal(nl - 3, "\t19", 3);
		p = nl + 1;
		n++;
	}
	assert_int_equal(n, 5000);
	sl__jd_changes_deinit(&c);
}

static void test_append_only(void **st)
{
	(void)st;
	sl_jd_changes c;
	sl__jd_changes_init(&c, 0);
	add(&c, "", "a\n", 0);
	add(&c, "", "a\n", 0);
	assert_int_equal(c.live, 2);
	assert_string_equal(lines(&c), "a\na\n");
	sl__jd_changes_deinit(&c);
}

static const char *param(const sl_pg_params *p, const char *kw)
{
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->kw[i], kw))
			return p->val[i];
	return NULL;
}

static void test_urls(void **st)
{
	(void)st;
	sl_pg_params p;
	sl_err err;
	sl_err_clear(&err);
	assert_int_equal(sl__pg_params_init(&p, "jdbc:postgresql://db.example:5433/my%20db?user=u"
	                                    "&currentSchema=app&ssl=true", "etl", "pw",
	                                    "sink 't'", &err), 0);
	assert_string_equal(param(&p, "host"), "db.example");
	assert_string_equal(param(&p, "port"), "5433");
	assert_string_equal(param(&p, "dbname"), "my db");
	assert_string_equal(param(&p, "user"), "etl"); /* 'username' wins */
	assert_string_equal(param(&p, "password"), "pw");
	assert_string_equal(param(&p, "options"), "-csearch_path=app");
	assert_string_equal(param(&p, "sslmode"), "require");
	assert_string_equal(param(&p, "connect_timeout"), "10");
	assert_string_equal(p.where, "db.example:5433/my db as user 'etl'");
	sl__pg_params_free(&p);
	assert_int_equal(sl__pg_params_init(&p, "jdbc:postgresql://h1:1,[::1]:2/d", NULL, NULL,
	                                    "sink 't'", &err), 0);
	assert_string_equal(param(&p, "host"), "h1,::1");
	assert_string_equal(param(&p, "port"), "1,2");
	sl__pg_params_free(&p);
	assert_int_equal(sl__pg_params_init(&p, "postgresql://u@h:7/d?connect_timeout=3", NULL,
	                                    NULL, "sink 't'", &err), 0);
	assert_null(param(&p, "connect_timeout")); /* the URI has one */
	assert_string_equal(p.where, "h:7/d as user 'u'");
	sl__pg_params_free(&p);
	assert_int_equal(sl__pg_params_init(&p, "host=h port=9 dbname=d", NULL, NULL, "sink 't'",
	                                    &err), 0);
	sl__pg_params_free(&p);
	assert_int_equal(sl__pg_params_init(&p, "jdbc:postgresql://h/d?prepareThreshold=5", NULL,
	                                    NULL, "sink 't'", &err), SL_EINVAL);
	assert_non_null(strstr(err.msg, "'prepareThreshold' has no libpq equivalent"));
	sl_err_clear(&err);
	assert_int_equal(sl__pg_params_init(&p, "jdbc:mysql://h/d", NULL, NULL, "sink 't'", &err),
	                 SL_EINVAL);
	assert_non_null(strstr(err.msg, "only PostgreSQL"));
	sl_err_clear(&err);
	assert_int_equal(sl__pg_params_init(&p, "nonsense here", NULL, NULL, "sink 't'", &err),
	                 SL_EINVAL);
}

static void test_copy_text(void **st)
{
	(void)st;
	sl_type types[] = {sl_type_varchar(SL_STRING_LEN), sl_type_make(SL_T_VARBINARY),
	                   sl_type_make(SL_T_DOUBLE), sl_type_timestamp(SL_T_TIMESTAMP_LTZ, 3),
	                   sl_type_make(SL_T_INTERVAL_DT), sl_type_decimal(10, 2),
	                   sl_type_make(SL_T_FLOAT)};
	sl_batch *b = sl_batch_new(7, types, 4);
	int r = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
	sl_col_set_str_ref(&b->cols[0], r, "a\tb\\c\nd\re", 9);
	sl_col_set_str_ref(&b->cols[1], r, "\x00\xff", 2);
	sl_col_set_f64(&b->cols[2], r, 0.1);
	sl_col_set_i64(&b->cols[3], r, 1785574805123000LL); /* 2026-08-01 09:00:05.123 UTC */
	sl_col_set_i64(&b->cols[4], r, -(86400000000LL + 1500000)); /* -(1 day 1.5 s) */
	sl_col_set_i128(&b->cols[5], r, -1234);
	sl_col_set_f64(&b->cols[6], r, (double)1.1f);
	int r2 = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN); /* all NULL */
	const char *want[] = {"a\\tb\\\\c\\nd\\re", "\\\\x00ff", "0.10000000000000001",
	                      "2026-08-01 09:00:05.123+00", "-1 days -1.500000 seconds", "-12.34",
	                      "1.10000002"};
	sl_buf out;
	sl_buf_init(&out);
	for (int c = 0; c < 7; c++) {
		sl_buf_clear(&out);
		assert_int_equal(sl__pg_copy_value(&b->cols[c], r, &out), 0);
		assert_string_equal(sl_buf_cstr(&out), want[c]);
		sl_buf_clear(&out);
		assert_int_equal(sl__pg_copy_value(&b->cols[c], r2, &out), 0);
		assert_string_equal(sl_buf_cstr(&out), "\\N");
	}
	sl_buf_deinit(&out);
	sl_batch_free(b);
}

/* Values in COPY's binary format: a field's 32-bit length, then the bytes
 * of the column's database type (numeric: ndigits, weight, sign, dscale,
 * base-10000 digits; timestamps from 2000-01-01; an INT into bigint as 8
 * bytes); NULL as length -1; and back to text for messages. */
static void want_field(const sl_col *c, int row, sl_pg_kind kind, const char *hex)
{
	sl_buf out, h;
	sl_buf_init(&out);
	sl_buf_init(&h);
	assert_int_equal(sl__pg_bin_value(c, row, kind, &out), 0);
	for (size_t i = 0; i < out.len; i++)
		sl_buf_printf(&h, "%02x", (unsigned char)out.p[i]);
	assert_string_equal(sl_buf_cstr(&h), hex);
	sl_buf_deinit(&out);
	sl_buf_deinit(&h);
}

static void test_copy_binary(void **st)
{
	(void)st;
	sl_type types[] = {sl_type_decimal(38, 4), sl_type_make(SL_T_INT),
	                   sl_type_timestamp(SL_T_TIMESTAMP, 3), sl_type_make(SL_T_DATE),
	                   sl_type_make(SL_T_INTERVAL_DT), sl_type_varchar(SL_STRING_LEN)};
	sl_batch *b = sl_batch_new(6, types, 8);
	int r[6];
	for (int i = 0; i < 6; i++)
		r[i] = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
	sl_col_set_i128(&b->cols[0], r[0], -123400);  /* -12.34 */
	sl_col_set_i128(&b->cols[0], r[1], 1);        /* 0.0001 */
	sl_col_set_i128(&b->cols[0], r[2], 100000000); /* 10000 */
	sl_col_set_i128(&b->cols[0], r[3], 0);
	sl_col_set_i128(&b->cols[0], r[4], 123456789); /* 12345.6789 */
	sl_col_set_i64(&b->cols[1], r[0], -2);
	sl_col_set_i64(&b->cols[2], r[0], 946684800000000LL - 1); /* 1999-12-31 23:59:59.999999 */
	sl_col_set_i64(&b->cols[3], r[0], 10956);               /* 1999-12-31 */
	sl_col_set_i64(&b->cols[4], r[0], -(86400000000LL + 1500000));
	sl_col_set_str_ref(&b->cols[5], r[0], "a\tb", 3);
	/* r[5]: all NULL */
	want_field(&b->cols[0], r[0], SL_PGK_NUMERIC, "0000000c" "0002" "0000" "4000" "0004" "000c" "0d48");
	want_field(&b->cols[0], r[1], SL_PGK_NUMERIC, "0000000a" "0001" "ffff" "0000" "0004" "0001");
	want_field(&b->cols[0], r[2], SL_PGK_NUMERIC, "0000000a" "0001" "0001" "0000" "0004" "0001");
	want_field(&b->cols[0], r[3], SL_PGK_NUMERIC, "00000008" "0000" "0000" "0000" "0004");
	want_field(&b->cols[0], r[4], SL_PGK_NUMERIC, "0000000e" "0003" "0001" "0000" "0004" "0001" "0929" "1a85");
	want_field(&b->cols[1], r[0], SL_PGK_INT4, "00000004" "fffffffe");
	want_field(&b->cols[1], r[0], SL_PGK_INT8, "00000008" "fffffffffffffffe");
	want_field(&b->cols[1], r[0], SL_PGK_NUMERIC, "0000000a" "0001" "0000" "4000" "0000" "0002");
	want_field(&b->cols[2], r[0], SL_PGK_TIMESTAMP, "00000008" "ffffffffffffffff");
	want_field(&b->cols[3], r[0], SL_PGK_DATE, "00000004" "ffffffff");
	want_field(&b->cols[4], r[0], SL_PGK_INTERVAL, "00000010" "ffffffffffe91ca0" "ffffffff" "00000000");
	want_field(&b->cols[5], r[0], SL_PGK_TEXT, "00000003" "610962");
	for (int c = 0; c < 6; c++)
		want_field(&b->cols[c], r[5], SL_PGK_TEXT, "ffffffff");
	sl_buf t;
	sl_buf_init(&t);
	assert_int_equal(sl__pg_bin_text((const unsigned char *)"\xff\xfe", 2, SL_PGK_INT2, &t), 0);
	assert_string_equal(sl_buf_cstr(&t), "-2");
	sl_buf_clear(&t);
	assert_int_equal(sl__pg_bin_text((const unsigned char *)"ab", 2, SL_PGK_TEXT, &t), 0);
	assert_string_equal(sl_buf_cstr(&t), "ab");
	assert_int_equal(sl__pg_bin_text((const unsigned char *)"ab", 2, SL_PGK_NUMERIC, &t), -1);
	assert_int_equal(sl__pg_kind("varchar"), SL_PGK_TEXT);
	assert_int_equal(sl__pg_kind("timestamptz"), SL_PGK_TIMESTAMP);
	assert_true(sl__pg_kind("_int4") >= SL_PGK_ARRAY); /* array_send's form */
	assert_true(sl__pg_kind("_text") >= SL_PGK_ARRAY && sl__pg_kind("_text") != sl__pg_kind("_int4"));
	assert_int_equal(sl__pg_kind("_point"), SL_PGK_NONE);
	assert_int_equal(sl__pg_kind("point"), SL_PGK_NONE);
	sl_buf_deinit(&t);
	sl_batch_free(b);
}

/* ARRAY columns as PostgreSQL array literals in COPY text: every element
 * quoted, '"' and '\' escaped inside the literal, then the literal
 * escaped for COPY; NULL elements; bytea elements; an empty array. */
static void test_copy_array(void **st)
{
	(void)st;
	sl_field sf[1] = {{"element", sl_type_varchar(SL_STRING_LEN)}};
	sl_field bf[1] = {{"element", sl_type_make(SL_T_VARBINARY)}};
	sl_field nf[1] = {{"element", sl_type_decimal(10, 2)}};
	sl_row_type st1 = {1, sf}, bt = {1, bf}, nt = {1, nf};
	sl_type types[3] = {sl_type_collection(SL_T_ARRAY, &st1), sl_type_collection(SL_T_ARRAY, &bt),
	                    sl_type_collection(SL_T_ARRAY, &nt)};
	sl_batch *b = sl_batch_new(3, types, 4);
	sl_col e[3];
	sl_buf pk;
	sl_buf_init(&pk);
	for (int c = 0; c < 3; c++)
		assert_int_equal(sl_col_new(&e[c], types[c].row->fields[0].type, 3), 0);
	sl_col_set_str_ref(&e[0], 0, "a\"b\\c\td", 7);
	sl_col_set_null(&e[0], 1);
	sl_col_set_str_ref(&e[0], 2, "", 0);
	sl_col_set_str_ref(&e[1], 0, "\x01\xfe", 2);
	sl_col_set_null(&e[1], 1);
	sl_col_set_i128(&e[2], 0, -1234);
	int r = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
	const char *want[3] = {"{\"a\\\\\"b\\\\\\\\c\\td\",NULL,\"\"}",
	                       "{\"\\\\\\\\x01fe\",NULL}", "{\"-12.34\"}"};
	int nel[3] = {3, 2, 1};
	for (int c = 0; c < 3; c++) {
		assert_int_equal(sl_pack_begin(&pk), 0);
		for (int i = 0; i < nel[c]; i++)
			assert_int_equal(sl_pack_value(&pk, &e[c], i), 0);
		sl_pack_end(&pk, (uint32_t)nel[c]);
		assert_int_equal(sl_col_set_str(b, &b->cols[c], r, pk.p, (int64_t)pk.len), 0);
	}
	int r2 = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
	assert_int_equal(sl_pack_begin(&pk), 0);
	sl_pack_end(&pk, 0);
	assert_int_equal(sl_col_set_str(b, &b->cols[0], r2, pk.p, (int64_t)pk.len), 0);
	sl_buf out;
	sl_buf_init(&out);
	for (int c = 0; c < 3; c++) {
		sl_buf_clear(&out);
		assert_int_equal(sl__pg_copy_value(&b->cols[c], r, &out), 0);
		assert_string_equal(sl_buf_cstr(&out), want[c]);
	}
	sl_buf_clear(&out);
	assert_int_equal(sl__pg_copy_value(&b->cols[0], r2, &out), 0);
	assert_string_equal(sl_buf_cstr(&out), "{}");
	char buf[64];
	assert_string_equal(sl__pg_type_for(types[0], buf, sizeof buf), "text[]");
	assert_string_equal(sl__pg_type_for(types[2], buf, sizeof buf), "numeric(10,2)[]");
	assert_true(sl__pg_type_accepts(types[0], "_text", -1));
	assert_false(sl__pg_type_accepts(types[0], "text", -1));
	assert_true(sl__pg_type_accepts(types[2], "_numeric", ((10 << 16) | 2) + 4));
	assert_false(sl__pg_type_accepts(types[2], "_int4", -1));
	sl_field af[1] = {{"element", types[0]}};
	sl_row_type at = {1, af};
	/* an ARRAY of ARRAY is a multi-dimensional PostgreSQL array; 7 levels
	 * are more than PostgreSQL's 6 dimensions */
	assert_string_equal(sl__pg_type_for(sl_type_collection(SL_T_ARRAY, &at), buf, sizeof buf),
	                    "text[][]");
	sl_field lf[6];
	sl_row_type lt[6];
	sl_type deep = types[0];
	for (int i = 0; i < 6; i++) {
		lf[i] = (sl_field){"element", deep};
		lt[i] = (sl_row_type){1, &lf[i]};
		deep = sl_type_collection(SL_T_ARRAY, &lt[i]);
	}
	assert_null(sl__pg_type_for(deep, buf, sizeof buf));
	assert_false(sl__pg_type_accepts(deep, "_text", -1));
	assert_string_equal(sl__pg_type_for(lf[5].type, buf, sizeof buf), "text[][][][][][]");
	sl_field rf1[1] = {{"x", sl_type_make(SL_T_INT)}};
	sl_row_type rrt = {1, rf1};
	sl_type rowt = sl_type_make(SL_T_ROW);
	rowt.row = &rrt;
	sl_field arf[1] = {{"element", rowt}};
	sl_row_type art = {1, arf};
	assert_null(sl__pg_type_for(sl_type_collection(SL_T_ARRAY, &art), buf, sizeof buf));
	sl_field mf[2] = {{"key", sl_type_varchar(SL_STRING_LEN)}, {"value", sl_type_make(SL_T_INT)}};
	sl_row_type mt = {2, mf};
	assert_null(sl__pg_type_for(sl_type_collection(SL_T_MAP, &mt), buf, sizeof buf));
	for (int c = 0; c < 3; c++)
		sl_col_free(&e[c]);
	sl_buf_deinit(&pk);
	sl_buf_deinit(&out);
	sl_batch_free(b);
}

static void test_type_mapping(void **st)
{
	(void)st;
	sl_type d = sl_type_decimal(10, 2);
	/* numeric typmod: ((P << 16) | S) + 4 */
#define NUM(P, S) ((((P) << 16) | (S)) + 4)
	assert_true(sl__pg_type_accepts(d, "numeric", -1));
	assert_true(sl__pg_type_accepts(d, "numeric", NUM(10, 2)));
	assert_true(sl__pg_type_accepts(d, "numeric", NUM(11, 3)));
	assert_false(sl__pg_type_accepts(d, "numeric", NUM(10, 3)));
	assert_false(sl__pg_type_accepts(d, "numeric", NUM(10, 1)));
	assert_false(sl__pg_type_accepts(d, "int4", -1));
	assert_true(sl__pg_type_accepts(sl_type_make(SL_T_INT), "int8", -1));
	assert_false(sl__pg_type_accepts(sl_type_make(SL_T_BIGINT), "int4", -1));
	assert_true(sl__pg_type_accepts(sl_type_timestamp(SL_T_TIMESTAMP, 3), "timestamp", 3));
	assert_false(sl__pg_type_accepts(sl_type_timestamp(SL_T_TIMESTAMP, 3), "timestamp", 0));
	assert_false(sl__pg_type_accepts(sl_type_timestamp(SL_T_TIMESTAMP, 3), "timestamptz", -1));
	assert_true(sl__pg_type_accepts(sl_type_timestamp(SL_T_TIMESTAMP, 9), "timestamp", 6));
	assert_true(sl__pg_type_accepts(sl_type_varchar(SL_STRING_LEN), "varchar", 14));
	char buf[64];
	assert_string_equal(sl__pg_type_for(d, buf, sizeof buf), "numeric(10,2)");
	assert_null(sl__pg_type_for(sl_type_make(SL_T_ROW), buf, sizeof buf));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reduce_per_key),
		cmocka_unit_test(test_merge_older),
		cmocka_unit_test(test_many_keys),
		cmocka_unit_test(test_append_only),
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_copy_text),
		cmocka_unit_test(test_copy_binary),
		cmocka_unit_test(test_copy_array),
		cmocka_unit_test(test_type_mapping),
	};
	return cmocka_run_group_tests_name("conn_jdbc", tests, NULL, NULL);
}
