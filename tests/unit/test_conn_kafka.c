/*
 * test_conn_kafka.c - the Kafka source's splits against librdkafka's mock
 * cluster, started inside this process (rd_kafka_mock_cluster_new; the
 * source reaches it over loopback TCP like any broker): each partition is a
 * split, instance k of n reads the partitions Flink's getSplitOwner gives
 * it (sl_conn_args.subtask / nsubtasks), every batch holds one
 * partition's rows, and a snapshot taken mid-way restores into a new source
 * that reads exactly the rest; the 'headers' METADATA column reads each
 * message's headers as a MAP<STRING, BYTES>, and the sink writes such a
 * column as the messages' headers.  docs/kafka.md.
 */
#include "harness.h"
#include "connector/conn.h"
#include "data/valtext.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PARTS 4
#define PER_PART 3

static rd_kafka_t *mock_rk;
static rd_kafka_mock_cluster_t *mock;
static char bootstrap[256];

/* A mock cluster with topic "t" of PARTS partitions, PER_PART messages
 * {"n": p * 100 + i} in partition p. */
static int setup(void **state)
{
	char es[256];
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	rd_kafka_conf_set(conf, "log_level", "3", es, sizeof es);
	mock_rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, es, sizeof es);
	assert_non_null(mock_rk);
	mock = rd_kafka_mock_cluster_new(mock_rk, 1);
	assert_non_null(mock);
	assert_int_equal(rd_kafka_mock_topic_create(mock, "t", PARTS, 1), 0);
	snprintf(bootstrap, sizeof bootstrap, "%s", rd_kafka_mock_cluster_bootstraps(mock));
	conf = rd_kafka_conf_new();
	rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, es, sizeof es);
	rd_kafka_t *p = rd_kafka_new(RD_KAFKA_PRODUCER, conf, es, sizeof es);
	assert_non_null(p);
	for (int part = 0; part < PARTS; part++)
		for (int i = 0; i < PER_PART; i++) {
			char v[64];
			int n = snprintf(v, sizeof v, "{\"n\":%d}", part * 100 + i);
			assert_int_equal(rd_kafka_producev(p, RD_KAFKA_V_TOPIC("t"),
			                                   RD_KAFKA_V_PARTITION(part),
			                                   RD_KAFKA_V_VALUE(v, (size_t)n),
			                                   RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
			                                   RD_KAFKA_V_END), 0);
		}
	assert_int_equal(rd_kafka_flush(p, 10000), 0);
	rd_kafka_destroy(p);
	return 0;
}

static int teardown(void **state)
{
	rd_kafka_mock_cluster_destroy(mock);
	rd_kafka_destroy(mock_rk);
	return 0;
}

typedef struct fx {
	sl_arena arena;
	sl_opts opts;
	sl_type types[2];
	sl_field fields[2];
	const char *meta[2];
} fx;

static sl_source *open_source(fx *f, int subtask, int nsub, sl_err *err)
{
	memset(f, 0, sizeof *f);
	sl_arena_init(&f->arena, 0);
	sl_opts_init(&f->opts, &f->arena);
	sl_opts_set(&f->opts, "connector", "kafka");
	sl_opts_set(&f->opts, "topic", "t");
	sl_opts_set(&f->opts, "properties.bootstrap.servers", bootstrap);
	sl_opts_set(&f->opts, "scan.startup.mode", "earliest-offset");
	sl_opts_set(&f->opts, "scan.bounded.mode", "latest-offset");
	sl_opts_set(&f->opts, "format", "json");
	f->types[0] = sl_type_make(SL_T_INT);
	f->types[1] = sl_type_make(SL_T_INT);
	f->fields[0] = (sl_field){"n", f->types[0]};
	f->fields[1] = (sl_field){"p", f->types[1]};
	f->meta[1] = "partition";
	sl_conn_args a = {.table = "k", .fields = f->fields, .nfields = 2, .opts = &f->opts,
	                  .tz = "UTC", .subtask = subtask, .nsubtasks = nsub, .meta = f->meta};
	sl_err_clear(err);
	sl_source *s = sl_source_new_open(sl_source_find(sl_opts_get(&f->opts, "connector")), &a, err);
	if (!s)
		fprintf(stderr, "%s\n", err->msg);
	assert_non_null(s);
	assert_null(sl_opts_unused(&f->opts));
	return s;
}

/* Reads batches until the end (or `stop` batches with rows), adding each
 * row's n to seen[] and checking that n's partition is the metadata column
 * and the batch's split.  Returns the rows read. */
static int read_rows(sl_source *s, int *seen, int stop, sl_err *err)
{
	sl_batch *b = sl_batch_new(2, (sl_type[]){sl_type_make(SL_T_INT), sl_type_make(SL_T_INT)},
	                           0);
	int rows = 0, batches = 0;
	for (int spins = 0; spins < 20000; spins++) {
		sl_batch_reset(b);
		int rc = s->vt->read(s, b, err);
		if (rc == SL_EEOF)
			break;
		assert_true(rc >= 0);
		if (rc == 0) {
			usleep(500);
			continue;
		}
		for (int r = 0; r < b->nrows; r++) {
			int n = (int)b->cols[0].v.i64[r], p = (int)b->cols[1].v.i64[r];
			assert_int_equal(n / 100, p);
			assert_true(s->split >= 0 && s->split < s->nsplits);
			seen[n]++;
			rows++;
		}
		/* one partition per batch */
		for (int r = 1; r < b->nrows; r++)
			assert_int_equal(b->cols[1].v.i64[r], b->cols[1].v.i64[0]);
		if (++batches == stop)
			break;
	}
	sl_batch_free(b);
	return rows;
}

/* Instance k of 2 reads partitions k and k + 2, each message once. */
static void test_subtasks(void **state)
{
	for (int k = 0; k < 2; k++) {
		fx f;
		sl_err err;
		sl_source *s = open_source(&f, k, 2, &err);
		assert_int_equal(s->nsplits, PARTS / 2);
		int seen[PARTS * 100] = {0};
		assert_int_equal(read_rows(s, seen, -1, &err), PER_PART * PARTS / 2);
		for (int p = 0; p < PARTS; p++)
			for (int i = 0; i < PER_PART; i++)
				assert_int_equal(seen[p * 100 + i], p % 2 == k);
		sl_source_free(s);
		sl_arena_deinit(&f.arena);
	}
}

/* At parallelism 3 a partition goes where Flink's
 * KafkaSourceEnumerator.getSplitOwner puts it: ("t".hashCode() = 116;
 * (116 * 31 & 0x7FFFFFFF) % 3 = 2) + p, mod 3, so partitions 0..3 go to
 * instances 2, 0, 1, 2 (the sorted list's k % 3 would give 0, 1, 2, 0). */
static void test_owner_is_flinks(void **state)
{
	static const int owner[PARTS] = {2, 0, 1, 2};
	for (int k = 0; k < 3; k++) {
		fx f;
		sl_err err;
		sl_source *s = open_source(&f, k, 3, &err);
		int seen[PARTS * 100] = {0};
		read_rows(s, seen, -1, &err);
		for (int p = 0; p < PARTS; p++)
			for (int i = 0; i < PER_PART; i++)
				assert_int_equal(seen[p * 100 + i], owner[p] == k);
		sl_source_free(s);
		sl_arena_deinit(&f.arena);
	}
}

/* A snapshot after the first batch restores into a new source that reads
 * exactly the messages not read yet. */
static void test_snapshot_restore(void **state)
{
	fx f, g;
	sl_err err;
	sl_source *s = open_source(&f, 0, 1, &err);
	assert_int_equal(s->nsplits, PARTS);
	int seen[PARTS * 100] = {0};
	int first = read_rows(s, seen, 1, &err);
	assert_true(first > 0 && first < PARTS * PER_PART);
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	assert_int_equal(s->vt->snapshot(s, &w, &err), 0);
	sl_source_free(s);
	sl_source *t = open_source(&g, 0, 1, &err);
	sl_snap_reader r;
	sl_snap_reader_init(&r, w.buf, w.len);
	assert_int_equal(t->vt->restore(t, &r, &err), 0);
	int rest = read_rows(t, seen, -1, &err);
	assert_int_equal(first + rest, PARTS * PER_PART);
	for (int p = 0; p < PARTS; p++)
		for (int i = 0; i < PER_PART; i++)
			assert_int_equal(seen[p * 100 + i], 1);
	sl_source_free(t);
	sl_snap_writer_deinit(&w);
	sl_arena_deinit(&f.arena);
	sl_arena_deinit(&g.arena);
}

/* 'headers' METADATA: messages of topic "h" with no headers, two headers
 * (one with a NULL value), and a repeated name (its last value, at the
 * first position), read as MAP<STRING, BYTES> and printed as Flink casts
 * them; a column of another type is refused naming what it must be. */
static void test_headers(void **state)
{
	char es[256];
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	assert_int_equal(rd_kafka_mock_topic_create(mock, "h", 1, 1), 0);
	rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, es, sizeof es);
	rd_kafka_t *p = rd_kafka_new(RD_KAFKA_PRODUCER, conf, es, sizeof es);
	assert_non_null(p);
	assert_int_equal(rd_kafka_producev(p, RD_KAFKA_V_TOPIC("h"), RD_KAFKA_V_VALUE("{\"n\":1}", 7),
	                                   RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END), 0);
	assert_int_equal(rd_kafka_producev(p, RD_KAFKA_V_TOPIC("h"), RD_KAFKA_V_VALUE("{\"n\":2}", 7),
	                                   RD_KAFKA_V_HEADER("trace", "ab\x01", 3),
	                                   RD_KAFKA_V_HEADER("empty", NULL, 0),
	                                   RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END), 0);
	assert_int_equal(rd_kafka_producev(p, RD_KAFKA_V_TOPIC("h"), RD_KAFKA_V_VALUE("{\"n\":3}", 7),
	                                   RD_KAFKA_V_HEADER("k", "1", 1),
	                                   RD_KAFKA_V_HEADER("j", "2", 1),
	                                   RD_KAFKA_V_HEADER("k", "3", 1),
	                                   RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END), 0);
	assert_int_equal(rd_kafka_flush(p, 10000), 0);
	rd_kafka_destroy(p);

	sl_arena ar;
	sl_opts o;
	sl_err err;
	sl_arena_init(&ar, 0);
	sl_opts_init(&o, &ar);
	sl_opts_set(&o, "connector", "kafka");
	sl_opts_set(&o, "topic", "h");
	sl_opts_set(&o, "properties.bootstrap.servers", bootstrap);
	sl_opts_set(&o, "scan.startup.mode", "earliest-offset");
	sl_opts_set(&o, "scan.bounded.mode", "latest-offset");
	sl_opts_set(&o, "format", "json");
	sl_field kv[2] = {{"key", sl_type_make(SL_T_VARCHAR)}, {"value", sl_type_make(SL_T_VARBINARY)}};
	sl_row_type rt = {2, kv};
	sl_field fields[2] = {{"n", sl_type_make(SL_T_INT)}, {"h", sl_type_make(SL_T_MAP)}};
	fields[1].type.row = &rt;
	const char *meta[2] = {NULL, "headers"};
	sl_conn_args a = {.table = "k", .fields = fields, .nfields = 2, .opts = &o, .tz = "UTC",
	                  .meta = meta};
	sl_err_clear(&err);
	sl_source *s = sl_source_new_open(sl_source_find("kafka"), &a, &err);
	if (!s)
		fprintf(stderr, "%s\n", err.msg);
	assert_non_null(s);
	sl_type ty[2] = {fields[0].type, fields[1].type};
	sl_batch *b = sl_batch_new(2, ty, 0);
	sl_buf out;
	sl_buf_init(&out);
	int rows = 0;
	for (int spins = 0; spins < 20000; spins++) {
		int rc = s->vt->read(s, b, &err);
		if (rc == SL_EEOF)
			break;
		assert_true(rc >= 0);
		if (rc == 0)
			usleep(500);
		for (; rows < b->nrows; rows++) {
			sl_value_text(&b->cols[0], rows, "NULL", NULL, &out);
			sl_buf_putc(&out, ' ');
			sl_value_text(&b->cols[1], rows, "NULL", NULL, &out);
			sl_buf_putc(&out, ';');
		}
	}
	/* a map prints in java.util.HashMap's order, as Flink prints it
	 * (data/javahash.c): j before k */
	assert_string_equal(sl_buf_cstr(&out), "1 {};2 {trace=x'616201', empty=NULL};"
	                                       "3 {j=x'32', k=x'33'};");
	sl_source_free(s);
	sl_batch_free(b);
	/* another type: refused with the type it must have */
	fields[1].type = sl_type_make(SL_T_VARCHAR);
	sl_opts_init(&o, &ar);
	sl_opts_set(&o, "topic", "h");
	sl_opts_set(&o, "properties.bootstrap.servers", bootstrap);
	sl_opts_set(&o, "scan.startup.mode", "earliest-offset");
	sl_opts_set(&o, "format", "json");
	sl_err_clear(&err);
	assert_null(sl_source_new_open(sl_source_find("kafka"), &a, &err));
	assert_non_null(strstr(err.msg, "metadata column 'h' (key 'headers') must be "
	                                "MAP<STRING, BYTES>, not STRING"));
	sl_buf_deinit(&out);
	sl_arena_deinit(&ar);
}

/* The sink's 'headers' column: a packed MAP<STRING, BYTES> becomes the
 * message's headers (in order, a NULL value kept), a NULL map none; read
 * back by the source.  A column of another type is refused. */
static void sink_headers(const char *topic, int eos)
{
	assert_int_equal(rd_kafka_mock_topic_create(mock, topic, 1, 1), 0);
	sl_arena ar;
	sl_opts o;
	sl_err err;
	sl_arena_init(&ar, 0);
	sl_opts_init(&o, &ar);
	sl_opts_set(&o, "topic", topic);
	sl_opts_set(&o, "properties.bootstrap.servers", bootstrap);
	sl_opts_set(&o, "format", "json");
	if (eos) {
		sl_opts_set(&o, "sink.delivery-guarantee", "exactly-once");
		sl_opts_set(&o, "sink.transactional-id-prefix", topic);
	}
	sl_field kv[2] = {{"key", sl_type_make(SL_T_VARCHAR)}, {"value", sl_type_make(SL_T_VARBINARY)}};
	sl_row_type rt = {2, kv};
	sl_field fields[2] = {{"n", sl_type_make(SL_T_INT)}, {"h", sl_type_make(SL_T_MAP)}};
	fields[1].type.row = &rt;
	const char *meta[2] = {NULL, "headers"};
	sl_conn_args a = {.table = "out", .fields = fields, .nfields = 2, .opts = &o, .tz = "UTC",
	                  .meta = meta, .checkpointing = eos};
	sl_err_clear(&err);
	sl_sink *k = sl_sink_new(sl_sink_find("kafka"), &a, &err);
	if (!k)
		fprintf(stderr, "%s\n", err.msg);
	assert_non_null(k);
	assert_int_equal(k->vt->open(k, &err), 0);
	sl_type ty[2] = {fields[0].type, fields[1].type};
	sl_batch *b = sl_batch_new(2, ty, 0);
	/* a packed map: u32 count, then (null byte, u32 len, bytes) per key and value */
	static const char map2[] = "\2\0\0\0"
	                           "\0\1\0\0\0a" "\0\2\0\0\0xy"
	                           "\0\1\0\0\0b" "\1";
	int r = sl_batch_add_row(b, SL_INSERT, 0);
	sl_col_set_i64(&b->cols[0], r, 1);
	sl_col_set_str_ref(&b->cols[1], r, map2, (int64_t)sizeof(map2) - 1);
	r = sl_batch_add_row(b, SL_INSERT, 0);
	sl_col_set_i64(&b->cols[0], r, 2);
	assert_int_equal(k->vt->write(k, b, &err), 0);
	if (eos) { /* the messages go through the transaction record (msg_add) */
		sl_snap_writer w;
		sl_snap_writer_init(&w);
		assert_int_equal(k->vt->pre_commit(k, 1, &w, &err), 0);
		assert_int_equal(k->vt->commit(k, 1, &err), 0);
		sl_snap_writer_deinit(&w);
	}
	assert_int_equal(k->vt->finish(k, &err), 0);
	sl_sink_free(k);

	sl_opts_init(&o, &ar);
	sl_opts_set(&o, "topic", topic);
	sl_opts_set(&o, "properties.bootstrap.servers", bootstrap);
	sl_opts_set(&o, "scan.startup.mode", "earliest-offset");
	sl_opts_set(&o, "scan.bounded.mode", "latest-offset");
	sl_opts_set(&o, "format", "json");
	a.table = "in";
	a.checkpointing = 0;
	sl_source *s = sl_source_new_open(sl_source_find("kafka"), &a, &err);
	assert_non_null(s);
	sl_batch_reset(b);
	sl_buf out;
	sl_buf_init(&out);
	int rows = 0;
	for (int spins = 0; spins < 20000; spins++) {
		int rc = s->vt->read(s, b, &err);
		if (rc == SL_EEOF)
			break;
		assert_true(rc >= 0);
		if (rc == 0)
			usleep(500);
		for (; rows < b->nrows; rows++) {
			sl_value_text(&b->cols[0], rows, "NULL", NULL, &out);
			sl_buf_putc(&out, ' ');
			sl_value_text(&b->cols[1], rows, "NULL", NULL, &out);
			sl_buf_putc(&out, ';');
		}
	}
	assert_string_equal(sl_buf_cstr(&out), "1 {a=x'7879', b=NULL};2 {};");
	sl_source_free(s);
	sl_batch_free(b);
	/* a 'headers' column of another type */
	fields[1].type = sl_type_make(SL_T_VARCHAR);
	sl_opts_init(&o, &ar);
	sl_opts_set(&o, "topic", topic);
	sl_opts_set(&o, "properties.bootstrap.servers", bootstrap);
	sl_opts_set(&o, "format", "json");
	assert_null(sl_sink_new(sl_sink_find("kafka"), &a, &err));
	assert_non_null(strstr(err.msg, "metadata column 'h' (key 'headers') must be "
	                                "MAP<STRING, BYTES>, not STRING"));
	sl_buf_deinit(&out);
	sl_arena_deinit(&ar);
}

static void test_sink_headers(void **state)
{
	sink_headers("hs", 0);
}

/* exactly-once: the headers travel in the transaction record (the mock
 * cluster runs the transactional calls; it does not filter aborted
 * messages, which this test does not need) */
static void test_sink_headers_eos(void **state)
{
	sink_headers("he", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subtasks),
		cmocka_unit_test(test_owner_is_flinks),
		cmocka_unit_test(test_snapshot_restore),
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_sink_headers),
		cmocka_unit_test(test_sink_headers_eos),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
