/*
 * conn_kafka_sink.c - the sink of Flink's 'kafka' and 'upsert-kafka'
 * connectors, through a librdkafka producer (docs/kafka.md).
 *
 * Configure (planning, no I/O) reads 'topic' (one topic), 'properties.*'
 * (checked by librdkafka), the key and value formats (conn_kafka_common.c:
 * the key from 'key.fields', or the PRIMARY KEY for 'upsert-kafka'),
 * 'sink.partitioner' and 'sink.delivery-guarantee'.  Open creates the
 * producer and reads the topic's partition count.
 *
 * Each live row becomes one message: the key encoded with the key format
 * (none without one), the value with the value format, each without the
 * newline the encoders append.  'kafka' writes what its value format
 * encodes (a changelog format such as debezium-json takes updates);
 * 'upsert-kafka' takes an updating stream as upserts by its PRIMARY KEY
 * (op_sink.c drops -U): +I/+U are
 * written as key and value, -D as the key with a null value (a
 * tombstone).  Partitions: 'default' leaves them to librdkafka's
 * murmur2_random partitioner (Kafka's Java client's: a key goes where a
 * Java producer would put it; keyless messages spread), 'fixed' writes
 * every message of sink instance k to partition k % partitions (Flink's
 * FlinkFixedPartitioner), 'round-robin' cycles over the partitions.
 *
 * Delivery: messages are handed to librdkafka (copied) and sent by its
 * threads; delivery reports are served on the job thread (rd_kafka_poll
 * after each batch), and a failed delivery fails the job.  'none' never
 * waits; 'at-least-once' (the default) flushes at each checkpoint's
 * pre-commit and at the end, so a completed checkpoint's output is
 * acknowledged by the brokers (replays after a restore may repeat
 * messages).  'exactly-once' is refused at planning: librdkafka cannot
 * resume a transaction after a crash, and the design that does not need
 * it (docs/kafka.md "Exactly-once sink") waits for the real broker, the
 * only peer that hides aborted transactions.
 */
#include "conn_kafka_int.h"
#include "sluice.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KK_TIMEOUT_MS 30000 /* metadata at open */

enum { PART_DEFAULT, PART_FIXED, PART_RR };
enum { GUAR_NONE, GUAR_ALO };

typedef struct kk_sink {
	sl_sink base;         /* must be first */
	int upsert;           /* upsert mode: -D becomes a tombstone */
	sl_kafka_props props;
	char *topic;
	int partitioner, guarantee;
	int subtask;
	sl_kafka_fmt fmt;
	rd_kafka_t *rk;
	rd_kafka_topic_t *rkt;
	int nparts;
	int64_t rr;           /* round-robin: messages written */
	sl_buf kbuf, vbuf;
	int64_t failed;       /* deliveries failed */
	char first_fail[512]; /* the first failure's reason */
} kk_sink;

static int kk_configure_any(sl_sink *s, const sl_conn_args *a, int upsert, sl_err *err)
{
	kk_sink *k = (kk_sink *)s;
	const sl_opts *o = a->opts;
	sl_buf_init(&k->kbuf);
	sl_buf_init(&k->vbuf);
	k->subtask = a->subtask;
	const char *topic = sl_opts_get(o, "topic");
	if (sl_opts_get(o, "topic-pattern"))
		return sl_err_set(err, SL_EINVAL, "sink '%s': Option 'topic-pattern' is only "
		                  "supported for sources, not sinks (use 'topic')", a->table);
	if (!topic)
		return sl_err_set(err, SL_EINVAL, "sink '%s': Missing required options are:\n\ntopic",
		                  a->table);
	char **names = NULL;
	int n = 0;
	if (sl__kafka_topics(topic, &names, &n, "sink", a->table, err))
		return err->code;
	if (n != 1) {
		sl__kafka_free_strv(names, n);
		return sl_err_set(err, SL_EINVAL, "sink '%s': Flink Kafka sink currently only supports "
		                  "single topic, but got topic: %s.", a->table, topic);
	}
	k->topic = names[0];
	free(names);
	static const char *const skip[] = {"transaction.timeout.ms.check", NULL};
	if (sl__kafka_props_read(&k->props, a, "sink", skip, err))
		return err->code;
	if (sl__kafka_prop(&k->props, "transactional.id"))
		return sl_err_set(err, SL_EINVAL, "sink '%s': 'properties.transactional.id' is not "
		                  "supported ('sink.transactional-id-prefix' names transactions)",
		                  a->table);
	const char *dg = sl_opts_get(o, "sink.delivery-guarantee");
	const char *sem = sl_opts_get(o, "sink.semantic"); /* Flink's older spelling */
	if (!dg && sem)
		dg = !strcmp(sem, "exactly-once") ? "exactly-once"
		   : !strcmp(sem, "at-least-once") ? "at-least-once"
		   : !strcmp(sem, "none") ? "none" : sem;
	(void)sl_opts_get(o, "sink.transactional-id-prefix");
	k->guarantee = GUAR_ALO;
	if (dg && !strcmp(dg, "none")) {
		k->guarantee = GUAR_NONE;
		s->guarantee = "none"; /* what EXPLAIN shows */
	} else if (dg && !strcmp(dg, "exactly-once"))
		return sl_err_set(err, SL_ENOTSUP, "sink '%s': 'sink.delivery-guarantee' = "
		                  "'exactly-once' is not supported yet (Kafka transactions: "
		                  "docs/kafka.md); use 'at-least-once', or a filesystem sink for "
		                  "exactly-once output", a->table);
	else if (dg && strcmp(dg, "at-least-once"))
		return sl_err_set(err, SL_EINVAL, "sink '%s': Invalid value for option "
		                  "'sink.delivery-guarantee'. Expected one of [exactly-once, "
		                  "at-least-once, none], but is '%s'.", a->table, dg);
	const char *pt = sl_opts_get(o, "sink.partitioner");
	k->partitioner = PART_DEFAULT;
	if (pt && !strcmp(pt, "fixed"))
		k->partitioner = PART_FIXED;
	else if (pt && !strcmp(pt, "round-robin"))
		k->partitioner = PART_RR;
	else if (pt && strcmp(pt, "default"))
		return sl_err_set(err, SL_EINVAL, "sink '%s': Unsupported sink partitioner '%s' "
		                  "(sluice has 'default', 'fixed' and 'round-robin'; custom "
		                  "partitioner classes are Java)", a->table, pt);
	(void)sl_opts_get(o, "sink.parallelism");
	(void)sl_opts_get(o, "sink.buffer-flush.max-rows");
	(void)sl_opts_get(o, "sink.buffer-flush.interval");
	k->upsert = upsert;
	return sl__kafka_fmt_init(&k->fmt, a, upsert, 1, err);
}

static int kk_configure(sl_sink *s, const sl_conn_args *a, sl_err *err)
{
	return kk_configure_any(s, a, 0, err);
}

static int ukk_configure(sl_sink *s, const sl_conn_args *a, sl_err *err)
{
	return kk_configure_any(s, a, 1, err);
}

/* 'kafka' takes updates with a changelog value format; 'upsert-kafka'
 * always (as upserts by its PRIMARY KEY). */
static int kk_can_update(const sl_conn_args *a)
{
	const char *f = sl_opts_get(a->opts, "format");
	if (!f)
		f = sl_opts_get(a->opts, "value.format");
	const sl_format_vtab *vt = f ? sl_format_find(f) : NULL;
	return vt && vt->changelog;
}

static int ukk_can_update(const sl_conn_args *a)
{
	return 1;
}

/* Delivery reports, on the job thread (rd_kafka_poll). */
static void dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	kk_sink *k = opaque;
	if (!m->err)
		return;
	if (!k->failed++)
		snprintf(k->first_fail, sizeof k->first_fail, "%s", rd_kafka_err2str(m->err));
}

static void error_cb(rd_kafka_t *rk, int e, const char *reason, void *opaque)
{
	kk_sink *k = opaque;
	if (e == RD_KAFKA_RESP_ERR__FATAL) {
		char buf[256];
		rd_kafka_fatal_error(rk, buf, sizeof buf);
		if (!k->failed++)
			snprintf(k->first_fail, sizeof k->first_fail, "fatal: %s", buf);
		return;
	}
	fprintf(stderr, "sluice: sink '%s': kafka: %s\n", k->base.table, reason);
}

static int kk_open(sl_sink *s, sl_err *err)
{
	kk_sink *k = (kk_sink *)s;
	rd_kafka_conf_t *conf = sl__kafka_conf(&k->props, "sink", s->table, err);
	if (!conf)
		return err->code;
	char es[512];
	if (!sl__kafka_prop(&k->props, "partitioner"))
		rd_kafka_conf_set(conf, "partitioner", "murmur2_random", es, sizeof es);
	rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
	rd_kafka_conf_set_error_cb(conf, error_cb);
	rd_kafka_conf_set_opaque(conf, k);
	k->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, es, sizeof es);
	if (!k->rk) {
		rd_kafka_conf_destroy(conf);
		return sl_err_set(err, SL_EIO, "sink '%s': cannot create the Kafka producer: %s",
		                  s->table, es);
	}
	rd_kafka_set_log_queue(k->rk, NULL); /* logs: served by rd_kafka_poll */
	k->rkt = rd_kafka_topic_new(k->rk, k->topic, NULL);
	if (!k->rkt)
		return sl_err_set(err, SL_EIO, "sink '%s': topic '%s': %s", s->table, k->topic,
		                  SL_KERR(rd_kafka_last_error()));
	const struct rd_kafka_metadata *md = NULL;
	rd_kafka_resp_err_t e = rd_kafka_metadata(k->rk, 0, k->rkt, &md, KK_TIMEOUT_MS);
	if (e)
		return sl_err_set(err, SL_EIO, "sink '%s': cannot read topic '%s''s metadata from "
		                  "'%s': %s", s->table, k->topic,
		                  sl__kafka_prop(&k->props, "bootstrap.servers"), SL_KERR(e));
	if (md->topic_cnt == 1 && !md->topics[0].err)
		k->nparts = md->topics[0].partition_cnt;
	else
		e = md->topic_cnt == 1 ? md->topics[0].err : RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC;
	rd_kafka_metadata_destroy(md);
	if (e || k->nparts <= 0)
		return sl_err_set(err, SL_EIO, "sink '%s': topic '%s': %s", s->table, k->topic,
		                  e ? SL_KERR(e) : "no partitions");
	return 0;
}

/* A delivery failed: the job fails (rows would be lost). */
static int check_failed(kk_sink *k, sl_err *err)
{
	if (!k->failed)
		return 0;
	return sl_err_set(err, SL_EIO, "sink '%s': %" PRId64 " message(s) to topic '%s' could "
	                  "not be delivered: %s", k->base.table, k->failed, k->topic,
	                  k->first_fail);
}

/* Encodes row `row` of b with e into buf, without the trailing newline. */
static int encode(sl_encoder *e, const sl_batch *b, int row, sl_buf *buf, sl_err *err)
{
	buf->len = 0;
	int rc = e->vt->encode(e, b, row, buf, err);
	if (!rc && buf->len && buf->p[buf->len - 1] == '\n')
		buf->len--;
	return rc;
}

static int kk_write(sl_sink *s, const sl_batch *b, sl_err *err)
{
	kk_sink *k = (kk_sink *)s;
	sl_kafka_fmt *f = &k->fmt;
	sl_batch kv, vv;
	int rc;
	if (f->kenc) {
		kv = *b;
		for (int j = 0; j < f->nkey; j++)
			f->kview[j] = b->cols[f->kcol[j]];
		kv.cols = f->kview;
		kv.ncols = f->nkey;
	}
	vv = *b;
	for (int j = 0; j < f->nval; j++)
		f->vview[j] = b->cols[f->vcol[j]];
	vv.cols = f->vview;
	vv.ncols = f->nval;
	SL_BATCH_FOREACH(b, q, row) {
		uint8_t op = b->op[row];
		if (k->upsert && op == SL_UPDATE_BEFORE)
			continue;
		int tomb = k->upsert && op == SL_DELETE;
		/* upsert mode: key and value formats are insert-only, the row is
		 * encoded as +I (a delete's key too) */
		if (k->upsert)
			b->op[row] = SL_INSERT;
		rc = f->kenc ? encode(f->kenc, &kv, row, &k->kbuf, err) : 0;
		if (!rc && !tomb)
			rc = encode(f->venc, &vv, row, &k->vbuf, err);
		b->op[row] = op;
		if (rc) {
			sl_err_prefix(err, "sink '%s'", s->table);
			return rc;
		}
		int32_t part = k->partitioner == PART_FIXED ? k->subtask % k->nparts
		             : k->partitioner == PART_RR ? (int32_t)(k->rr % k->nparts)
		             : RD_KAFKA_PARTITION_UA;
		k->rr++;
		for (;;) {
			int e = rd_kafka_produce(k->rkt, part, RD_KAFKA_MSG_F_COPY,
			                         tomb ? NULL : k->vbuf.p, tomb ? 0 : k->vbuf.len,
			                         f->kenc ? k->kbuf.p : NULL, f->kenc ? k->kbuf.len : 0,
			                         NULL);
			if (!e)
				break;
			rd_kafka_resp_err_t le = rd_kafka_last_error();
			if (le != RD_KAFKA_RESP_ERR__QUEUE_FULL)
				return sl_err_set(err, SL_EIO, "sink '%s': cannot write to topic '%s': %s",
				                  s->table, k->topic, SL_KERR(le));
			rd_kafka_poll(k->rk, 10); /* the queue drains as the brokers acknowledge */
			if ((rc = check_failed(k, err)))
				return rc;
		}
		s->rows_written++;
	}
	rd_kafka_poll(k->rk, 0);
	return check_failed(k, err);
}

/* Waits until every message handed to librdkafka is acknowledged (or
 * failed).  0 or an error. */
static int flush_all(kk_sink *k, sl_err *err)
{
	if (!k->rk)
		return 0;
	rd_kafka_resp_err_t e;
	while ((e = rd_kafka_flush(k->rk, 1000)) == RD_KAFKA_RESP_ERR__TIMED_OUT) {
		int rc = check_failed(k, err);
		if (rc)
			return rc;
	}
	if (e)
		return sl_err_set(err, SL_EIO, "sink '%s': flush: %s", k->base.table, SL_KERR(e));
	return check_failed(k, err);
}

static int kk_finish(sl_sink *s, sl_err *err)
{
	return flush_all((kk_sink *)s, err);
}

/* At a checkpoint's barrier: what was written before it is acknowledged
 * ('at-least-once'); 'none' does not wait. */
static int kk_pre_commit(sl_sink *s, int64_t ckpt_id, sl_snap_writer *w, sl_err *err)
{
	kk_sink *k = (kk_sink *)s;
	if (k->guarantee == GUAR_NONE) {
		rd_kafka_poll(k->rk, 0);
		return check_failed(k, err);
	}
	return flush_all(k, err);
}

static void kk_close(sl_sink *s)
{
	kk_sink *k = (kk_sink *)s;
	if (k->rk) {
		/* not publishing: messages already sent stay sent (at-least-once);
		 * queued ones get a short chance (a failed job's rows before the
		 * error, as the filesystem sink publishes them without checkpoints) */
		rd_kafka_flush(k->rk, 5000);
	}
	if (k->rkt)
		rd_kafka_topic_destroy(k->rkt);
	if (k->rk)
		rd_kafka_destroy(k->rk);
	k->rk = NULL;
	k->rkt = NULL;
	free(k->topic);
	k->topic = NULL;
	sl_buf_deinit(&k->kbuf);
	sl_buf_deinit(&k->vbuf);
	sl__kafka_props_free(&k->props);
	sl__kafka_fmt_deinit(&k->fmt);
}

const sl_sink_vtab sl_kafka_sink_vtab = {
	.name = "kafka",
	.size = sizeof(kk_sink),
	.accepts_updates = 1,
	.can_update = kk_can_update,
	.guarantee = "at-least-once",
	.configure = kk_configure,
	.open = kk_open,
	.write = kk_write,
	.finish = kk_finish,
	.pre_commit = kk_pre_commit,
	.close = kk_close,
};

const sl_sink_vtab sl_upsert_kafka_sink_vtab = {
	.name = "upsert-kafka",
	.size = sizeof(kk_sink),
	.accepts_updates = 1,
	.can_update = ukk_can_update,
	.guarantee = "at-least-once",
	.upsert = 1,
	.configure = ukk_configure,
	.open = kk_open,
	.write = kk_write,
	.finish = kk_finish,
	.pre_commit = kk_pre_commit,
	.close = kk_close,
};
