/*
 * test_fmt_changelog.c - unit tests of the changelog formats
 * (src/format/fmt_debezium_json.c, fmt_canal_json.c, fmt_maxwell_json.c)
 * with messages shaped as the tools write them: Debezium's PostgreSQL
 * connector (snapshot reads, creates, updates, deletes, tombstones,
 * truncates, messages; with and without the schema envelope; the key-only
 * or missing 'before' of a table without REPLICA IDENTITY FULL), Canal's
 * flat messages (string values, multi-row data, partial "old", DDL) and
 * Maxwell's (partial "old").  Each checks the decoded change kinds and
 * values, the events counted as skipped, errors, the batch-room signal
 * (SL_EFULL) and the three encoders byte for byte.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "format/format.h"
#include "harness.h"
#include "sluice.h"

/* The products table of Debezium's, Canal's and Maxwell's tutorials. */
static sl_field F[] = {
	{"id", {.id = SL_T_INT}},
	{"name", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
	{"description", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
	{"weight", {.id = SL_T_DOUBLE}},
};
#define NF 4

typedef th_codec fx; /* harness.h */

static fx *fx_new(const char *fmt, int cap, const char *k1, const char *v1)
{
	static fx f;
	const char *kv[] = {k1, v1, NULL};
	th_codec_init(&f, fmt, F, NF, cap, k1 ? kv : NULL, 0);
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
	assert_int_equal(f->b->nrows, n0);
	if (!strstr(f->err.msg, msg))
		fail_msg("error '%s' lacks '%s'", f->err.msg, msg);
}

/* Row r has kind op, id and weight (NaN = NULL weight), name (NULL = NULL). */
static void row_is(fx *f, int r, int op, int id, const char *name, double weight)
{
	sl_batch *b = f->b;
	assert_true(r < b->nrows);
	if (b->op[r] != op)
		fail_msg("row %d: kind %d, expected %d", r, b->op[r], op);
	assert_false(b->cols[0].null[r]);
	assert_int_equal(b->cols[0].v.i64[r], id);
	if (!name) {
		assert_true(b->cols[1].null[r]);
	} else {
		assert_false(b->cols[1].null[r]);
		assert_int_equal(b->cols[1].v.str[r].len, strlen(name));
		assert_memory_equal(b->cols[1].v.str[r].ptr, name, strlen(name));
	}
	if (weight != weight) {
		assert_true(b->cols[3].null[r]);
	} else {
		assert_false(b->cols[3].null[r]);
		assert_true(b->cols[3].v.f64[r] == weight);
	}
}

#define SRC "\"source\":{\"version\":\"1.2.1.Final\",\"connector\":\"postgresql\",\"name\":\"fullfillment\",\"ts_ms\":1596001099434,\"snapshot\":\"false\",\"db\":\"postgres\",\"schema\":\"inventory\",\"table\":\"products\",\"txId\":601,\"lsn\":34078720,\"xmin\":null}"

/* Debezium PostgreSQL connector, JSON converter without schemas. */
static void test_debezium_schema_exclude(void **st)
{
	fx *f = fx_new("debezium-json", 16, NULL, NULL);
	assert_int_equal(dec(f, "{\"before\":null,\"after\":{\"id\":101,\"name\":\"scooter\",\"description\":\"Small 2-wheel scooter\",\"weight\":3.14}," SRC ",\"op\":\"r\",\"ts_ms\":1596001099434,\"transaction\":null}"), 1);
	assert_int_equal(dec(f, "{\"before\":null,\"after\":{\"id\":110,\"name\":\"jacket\",\"description\":\"water resistent white wind breaker\",\"weight\":0.2}," SRC ",\"op\":\"c\",\"ts_ms\":1596010946870,\"transaction\":null}"), 1);
	assert_int_equal(dec(f, "{\"before\":{\"id\":110,\"name\":\"jacket\",\"description\":\"water resistent white wind breaker\",\"weight\":0.2},\"after\":{\"id\":110,\"name\":\"jacket\",\"description\":\"new water resistent white wind breaker\",\"weight\":0.5}," SRC ",\"op\":\"u\",\"ts_ms\":1596010982481,\"transaction\":null}"), 2);
	assert_int_equal(dec(f, "{\"before\":{\"id\":110,\"name\":\"jacket\",\"description\":\"new water resistent white wind breaker\",\"weight\":0.5},\"after\":null," SRC ",\"op\":\"d\",\"ts_ms\":1596010988596,\"transaction\":null}"), 1);
	row_is(f, 0, SL_INSERT, 101, "scooter", 3.14);
	row_is(f, 1, SL_INSERT, 110, "jacket", 0.2);
	row_is(f, 2, SL_UPDATE_BEFORE, 110, "jacket", 0.2);
	row_is(f, 3, SL_UPDATE_AFTER, 110, "jacket", 0.5);
	row_is(f, 4, SL_DELETE, 110, "jacket", 0.5);
	/* tombstone (Kafka's null value after a delete), truncate, message */
	assert_int_equal(dec(f, ""), 0);
	assert_int_equal(dec(f, "null"), 0);
	assert_int_equal(dec(f, "{\"source\":{\"connector\":\"postgresql\",\"table\":\"products\"},\"op\":\"t\",\"ts_ms\":1596010990000,\"transaction\":null}"), 0);
	assert_int_equal(dec(f, "{\"op\":\"m\",\"ts_ms\":1596010990100,\"source\":{\"connector\":\"postgresql\"},\"message\":{\"prefix\":\"foo\",\"content\":\"Ymxh\"}}"), 0);
	assert_int_equal(f->d->events_skipped, 4);
	assert_int_equal(f->b->nrows, 5);
	fx_free(f);
}

/* The same with the JSON converter's schema/payload envelope. */
static void test_debezium_schema_include(void **st)
{
	static const char schema[] =
		"\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":["
		"{\"type\":\"int32\",\"optional\":false,\"field\":\"id\"},"
		"{\"type\":\"string\",\"optional\":false,\"field\":\"name\"},"
		"{\"type\":\"string\",\"optional\":true,\"field\":\"description\"},"
		"{\"type\":\"double\",\"optional\":true,\"field\":\"weight\"}],\"optional\":true,"
		"\"name\":\"fullfillment.inventory.products.Value\",\"field\":\"before\"},"
		"{\"type\":\"struct\",\"fields\":[],\"optional\":true,"
		"\"name\":\"fullfillment.inventory.products.Value\",\"field\":\"after\"},"
		"{\"type\":\"string\",\"optional\":false,\"field\":\"op\"}],\"optional\":false,"
		"\"name\":\"fullfillment.inventory.products.Envelope\"}";
	/* one buffer per record: decoded strings may point into the record */
	static char recs[4][4096];
	char *rec;
	fx *f = fx_new("debezium-json", 16, "debezium-json.schema-include", "true");
	rec = recs[0];
	snprintf(rec, 4096, "{%s,\"payload\":{\"before\":null,\"after\":{\"id\":101,\"name\":\"scooter\",\"description\":\"Small 2-wheel scooter\",\"weight\":3.14}," SRC ",\"op\":\"r\",\"ts_ms\":1596001099434,\"transaction\":null}}", schema);
	assert_int_equal(dec(f, rec), 1);
	rec = recs[1];
	snprintf(rec, 4096, "{%s,\"payload\":{\"before\":{\"id\":101,\"name\":\"scooter\",\"description\":\"Small 2-wheel scooter\",\"weight\":3.14},\"after\":{\"id\":101,\"name\":\"scooter\",\"description\":\"Small 2-wheel scooter\",\"weight\":5.1}," SRC ",\"op\":\"u\",\"ts_ms\":1596001099500,\"transaction\":null}}", schema);
	assert_int_equal(dec(f, rec), 2);
	/* payload first, schema after: the order of keys does not matter */
	rec = recs[2];
	snprintf(rec, 4096, "{\"payload\":{\"op\":\"d\",\"after\":null,\"before\":{\"id\":101,\"name\":\"scooter\",\"description\":\"Small 2-wheel scooter\",\"weight\":5.1}},%s}", schema);
	assert_int_equal(dec(f, rec), 1);
	row_is(f, 0, SL_INSERT, 101, "scooter", 3.14);
	row_is(f, 1, SL_UPDATE_BEFORE, 101, "scooter", 3.14);
	row_is(f, 2, SL_UPDATE_AFTER, 101, "scooter", 5.1);
	row_is(f, 3, SL_DELETE, 101, "scooter", 5.1);
	/* a tombstone with the envelope: payload null */
	rec = recs[3];
	snprintf(rec, 4096, "{\"schema\":null,\"payload\":null}");
	expect_err(f, rec, "record has no \"op\"");
	fx_free(f);
	/* the option is a boolean */
	sl_err err = {0};
	sl_arena a;
	sl_opts o;
	sl_arena_init(&a, 0);
	sl_opts_init(&o, &a);
	sl_opts_set(&o, "debezium-json.schema-include", "maybe");
	assert_null(sl_decoder_new(sl_format_find("debezium-json"), F, NF, &o, &err));
	assert_non_null(strstr(err.msg, "debezium-json.schema-include"));
	sl_arena_deinit(&a);
}

/* A table without REPLICA IDENTITY FULL: updates without 'before',
 * deletes with only the key (or nothing at all). */
static void test_debezium_key_only_before(void **st)
{
	fx *f = fx_new("debezium-json", 16, NULL, NULL);
	expect_err(f, "{\"before\":null,\"after\":{\"id\":106,\"name\":\"hammer\",\"description\":\"18oz carpenter hammer\",\"weight\":1.0}," SRC ",\"op\":\"u\",\"ts_ms\":1596010890411,\"transaction\":null}",
	           "declare the table's PRIMARY KEY");
	expect_err(f, "{\"before\":null,\"after\":null," SRC ",\"op\":\"d\",\"ts_ms\":1596010988596,\"transaction\":null}",
	           "set REPLICA IDENTITY FULL");
	fx_free(f);

	f = fx_new("debezium-json", 16, NULL, NULL);
	f->d->keyed = 1; /* the table has a PRIMARY KEY */
	assert_int_equal(dec(f, "{\"before\":null,\"after\":{\"id\":106,\"name\":\"hammer\",\"description\":\"18oz carpenter hammer\",\"weight\":1.0}," SRC ",\"op\":\"u\",\"ts_ms\":1596010890411,\"transaction\":null}"), 1);
	assert_int_equal(dec(f, "{\"before\":{\"id\":107},\"after\":null," SRC ",\"op\":\"d\",\"ts_ms\":1596010988596,\"transaction\":null}"), 1);
	assert_int_equal(dec(f, "{\"before\":{\"id\":108,\"name\":null,\"description\":null,\"weight\":null},\"after\":null," SRC ",\"op\":\"d\",\"ts_ms\":1596010988597,\"transaction\":null}"), 1);
	row_is(f, 0, SL_UPDATE_AFTER, 106, "hammer", 1.0);
	row_is(f, 1, SL_DELETE, 107, NULL, 0.0 / 0.0);
	row_is(f, 2, SL_DELETE, 108, NULL, 0.0 / 0.0);
	/* no key at all: still an error */
	expect_err(f, "{\"before\":null,\"after\":null,\"op\":\"d\"}", "set REPLICA IDENTITY FULL");
	fx_free(f);
}

#define CANAL_META "\"database\":\"inventory\",\"es\":1589373546000,\"id\":4,\"isDdl\":false,\"mysqlType\":{\"id\":\"INTEGER\",\"name\":\"VARCHAR(255)\",\"description\":\"VARCHAR(512)\",\"weight\":\"FLOAT\"},\"pkNames\":[\"id\"],\"sql\":\"\",\"sqlType\":{\"id\":4,\"name\":12,\"description\":12,\"weight\":7},\"table\":\"products2\",\"ts\":1589373546301"

static void test_canal(void **st)
{
	fx *f = fx_new("canal-json", 16, NULL, NULL);
	assert_int_equal(dec(f, "{\"data\":[{\"id\":\"101\",\"name\":\"scooter\",\"description\":\"Small 2-wheel scooter\",\"weight\":\"3.14\"},{\"id\":\"102\",\"name\":\"car battery\",\"description\":\"12V car battery\",\"weight\":\"8.1\"}]," CANAL_META ",\"old\":null,\"type\":\"INSERT\"}"), 2);
	/* "old" holds only the changed fields */
	assert_int_equal(dec(f, "{\"data\":[{\"id\":\"101\",\"name\":\"scooter\",\"description\":\"Small 2-wheel scooter\",\"weight\":\"5.17\"},{\"id\":\"102\",\"name\":\"car battery\",\"description\":\"12V car battery\",\"weight\":\"5.17\"}]," CANAL_META ",\"old\":[{\"weight\":\"3.14\"},{\"weight\":\"8.1\"}],\"type\":\"UPDATE\"}"), 4);
	assert_int_equal(dec(f, "{\"data\":[{\"id\":\"102\",\"name\":\"car battery\",\"description\":\"12V car battery\",\"weight\":\"5.17\"}]," CANAL_META ",\"old\":null,\"type\":\"DELETE\"}"), 1);
	row_is(f, 0, SL_INSERT, 101, "scooter", 3.14);
	row_is(f, 1, SL_INSERT, 102, "car battery", 8.1);
	row_is(f, 2, SL_UPDATE_BEFORE, 101, "scooter", 3.14);
	row_is(f, 3, SL_UPDATE_AFTER, 101, "scooter", 5.17);
	row_is(f, 4, SL_UPDATE_BEFORE, 102, "car battery", 8.1);
	row_is(f, 5, SL_UPDATE_AFTER, 102, "car battery", 5.17);
	row_is(f, 6, SL_DELETE, 102, "car battery", 5.17);
	/* a field that was NULL before the update */
	assert_int_equal(dec(f, "{\"data\":[{\"id\":\"103\",\"name\":\"drill\",\"description\":null,\"weight\":\"0.8\"}],\"old\":[{\"name\":null}],\"type\":\"UPDATE\"}"), 2);
	row_is(f, 7, SL_UPDATE_BEFORE, 103, NULL, 0.8);
	row_is(f, 8, SL_UPDATE_AFTER, 103, "drill", 0.8);
	/* DDL: skipped and counted */
	assert_int_equal(dec(f, "{\"data\":null,\"database\":\"inventory\",\"es\":1589373566000,\"id\":13,\"isDdl\":true,\"mysqlType\":null,\"old\":null,\"pkNames\":null,\"sql\":\"CREATE TABLE `xj_`.`user02` (`uid` int(0) NOT NULL)\",\"sqlType\":null,\"table\":\"user02\",\"ts\":1589373566000,\"type\":\"CREATE\"}"), 0);
	assert_int_equal(f->d->events_skipped, 1);
	expect_err(f, "{\"data\":[{\"id\":\"1\"}],\"type\":\"UPSERT\"}", "canal-json: unknown \"type\" value \"UPSERT\"");
	expect_err(f, "{\"data\":[{\"id\":\"1\"}],\"type\":\"UPDATE\"}", "declare the table's PRIMARY KEY");
	expect_err(f, "{\"data\":[{\"id\":\"1\"},{\"id\":\"2\"}],\"old\":[{}],\"type\":\"UPDATE\"}", "differ in length");
	expect_err(f, "{\"data\":[{\"id\":\"x1\"}],\"type\":\"INSERT\"}", "field 'id'");
	expect_err(f, "{\"data\":null,\"type\":\"INSERT\"}", "without \"data\"");
	/* room: 9 rows used of 16; an UPDATE of 4 rows needs 8 */
	assert_int_equal(f->b->nrows, 9);
	const char *big = "{\"data\":[{\"id\":\"1\"},{\"id\":\"2\"},{\"id\":\"3\"},{\"id\":\"4\"}],\"old\":[{},{},{},{}],\"type\":\"UPDATE\"}";
	assert_int_equal(dec(f, big), SL_EFULL);
	assert_int_equal(f->b->nrows, 9);
	sl_batch_reset(f->b);
	assert_int_equal(dec(f, big), 8);
	fx_free(f);
	/* more rows than an empty batch holds */
	f = fx_new("canal-json", 4, NULL, NULL);
	expect_err(f, big, "the record holds 8 rows, more than a batch holds (4");
	fx_free(f);
}

static void test_canal_filters(void **st)
{
	fx *f = fx_new("canal-json", 16, "canal-json.table.include", "products\\d*");
	assert_int_equal(dec(f, "{\"data\":[{\"id\":\"1\"}],\"database\":\"inventory\",\"table\":\"products2\",\"type\":\"INSERT\"}"), 1);
	assert_int_equal(dec(f, "{\"data\":[{\"id\":\"2\"}],\"database\":\"inventory\",\"table\":\"orders\",\"type\":\"INSERT\"}"), 0);
	/* the whole name must match */
	assert_int_equal(dec(f, "{\"data\":[{\"id\":\"3\"}],\"database\":\"inventory\",\"table\":\"products2_old\",\"type\":\"INSERT\"}"), 0);
	assert_int_equal(f->d->events_skipped, 0);
	fx_free(f);
	f = fx_new("canal-json", 16, "canal-json.database.include", "inv.*");
	assert_int_equal(dec(f, "{\"data\":[{\"id\":\"1\"}],\"database\":\"inventory\",\"table\":\"t\",\"type\":\"INSERT\"}"), 1);
	assert_int_equal(dec(f, "{\"data\":[{\"id\":\"1\"}],\"database\":\"sales\",\"table\":\"t\",\"type\":\"INSERT\"}"), 0);
	fx_free(f);
	sl_err err = {0};
	sl_arena a;
	sl_opts o;
	sl_arena_init(&a, 0);
	sl_opts_init(&o, &a);
	sl_opts_set(&o, "canal-json.table.include", "(unclosed");
	assert_null(sl_decoder_new(sl_format_find("canal-json"), F, NF, &o, &err));
	assert_non_null(strstr(err.msg, "invalid regular expression"));
	sl_arena_deinit(&a);
}

static void test_maxwell(void **st)
{
	fx *f = fx_new("maxwell-json", 16, NULL, NULL);
	assert_int_equal(dec(f, "{\"database\":\"test\",\"table\":\"product\",\"type\":\"insert\",\"ts\":1596684883,\"xid\":7125,\"xoffset\":0,\"data\":{\"id\":101,\"name\":\"scooter\",\"description\":\"Small 2-wheel scooter\",\"weight\":3.14},\"primary_key_columns\": [\"id\"]}"), 1);
	assert_int_equal(dec(f, "{\"database\":\"test\",\"table\":\"product\",\"type\":\"update\",\"ts\":1596684928,\"xid\":7291,\"xoffset\":0,\"data\":{\"id\":101,\"name\":\"scooter\",\"description\":\"Small 2-wheel scooter\",\"weight\":5.17},\"old\":{\"weight\":3.14},\"primary_key_columns\": [\"id\"]}"), 2);
	assert_int_equal(dec(f, "{\"database\":\"test\",\"table\":\"product\",\"type\":\"delete\",\"ts\":1596684938,\"xid\":7322,\"commit\":true,\"data\":{\"id\":101,\"name\":\"scooter\",\"description\":\"Small 2-wheel scooter\",\"weight\":5.17},\"primary_key_columns\": [\"id\"]}"), 1);
	row_is(f, 0, SL_INSERT, 101, "scooter", 3.14);
	row_is(f, 1, SL_UPDATE_BEFORE, 101, "scooter", 3.14);
	row_is(f, 2, SL_UPDATE_AFTER, 101, "scooter", 5.17);
	row_is(f, 3, SL_DELETE, 101, "scooter", 5.17);
	/* bootstrap (sluice extension) */
	assert_int_equal(dec(f, "{\"database\":\"test\",\"table\":\"product\",\"type\":\"bootstrap-start\",\"ts\":1,\"data\":{}}"), 0);
	assert_int_equal(dec(f, "{\"database\":\"test\",\"table\":\"product\",\"type\":\"bootstrap-insert\",\"ts\":1,\"data\":{\"id\":7,\"name\":\"x\",\"weight\":1.5}}"), 1);
	assert_int_equal(dec(f, "{\"database\":\"test\",\"table\":\"product\",\"type\":\"bootstrap-complete\",\"ts\":1,\"data\":{}}"), 0);
	row_is(f, 4, SL_INSERT, 7, "x", 1.5);
	assert_int_equal(f->d->events_skipped, 2);
	expect_err(f, "{\"type\":\"table-create\",\"data\":{}}", "maxwell-json: unknown \"type\" value \"table-create\"");
	expect_err(f, "{\"type\":\"update\",\"data\":{\"id\":1}}", "declare the table's PRIMARY KEY");
	expect_err(f, "{\"type\":\"insert\"}", "without \"data\"");
	expect_err(f, "{\"data\":{\"id\":1}}", "record has no \"type\"");
	fx_free(f);
}

static void test_encoders(void **st)
{
	sl_type types[NF];
	for (int i = 0; i < NF; i++)
		types[i] = F[i].type;
	sl_batch *b = sl_batch_new(NF, types, 4);
	sl_err err = {0};
	int ops[] = {SL_INSERT, SL_UPDATE_BEFORE, SL_UPDATE_AFTER, SL_DELETE};
	for (int i = 0; i < 4; i++) {
		int r = sl_batch_add_row(b, (uint8_t)ops[i], 0);
		sl_col_set_i64(&b->cols[0], r, 101);
		sl_col_set_str_ref(&b->cols[1], r, "scooter", 7);
		sl_col_set_f64(&b->cols[3], r, 3.5);
	}
	static const char *want[][4] = {
		{"debezium-json",
		 "{\"before\":null,\"after\":{\"id\":101,\"name\":\"scooter\",\"description\":null,\"weight\":3.5},\"op\":\"c\"}\n",
		 "{\"before\":{\"id\":101,\"name\":\"scooter\",\"description\":null,\"weight\":3.5},\"after\":null,\"op\":\"d\"}\n"},
		{"canal-json",
		 "{\"data\":[{\"id\":101,\"name\":\"scooter\",\"description\":null,\"weight\":3.5}],\"type\":\"INSERT\"}\n",
		 "{\"data\":[{\"id\":101,\"name\":\"scooter\",\"description\":null,\"weight\":3.5}],\"type\":\"DELETE\"}\n"},
		{"maxwell-json",
		 "{\"data\":{\"id\":101,\"name\":\"scooter\",\"description\":null,\"weight\":3.5},\"type\":\"insert\"}\n",
		 "{\"data\":{\"id\":101,\"name\":\"scooter\",\"description\":null,\"weight\":3.5},\"type\":\"delete\"}\n"},
	};
	for (int k = 0; k < 3; k++) {
		sl_encoder *e = sl_encoder_new(sl_format_find(want[k][0]), F, NF, NULL, &err);
		assert_non_null(e);
		for (int r = 0; r < 4; r++) {
			sl_buf out;
			sl_buf_init(&out);
			assert_int_equal(e->vt->encode(e, b, r, &out, &err), 0);
			const char *w = ops[r] == SL_INSERT || ops[r] == SL_UPDATE_AFTER ? want[k][1]
			                                                                 : want[k][2];
			assert_int_equal(out.len, strlen(w));
			assert_memory_equal(out.p, w, out.len);
			sl_buf_deinit(&out);
		}
		sl_encoder_free(e);
	}
	sl_batch_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debezium_schema_exclude),
		cmocka_unit_test(test_debezium_schema_include),
		cmocka_unit_test(test_debezium_key_only_before),
		cmocka_unit_test(test_canal),
		cmocka_unit_test(test_canal_filters),
		cmocka_unit_test(test_maxwell),
		cmocka_unit_test(test_encoders),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
