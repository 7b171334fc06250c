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
 * messages).
 *
 * 'exactly-once' (docs/kafka.md "Exactly-once sink"; needs checkpointing
 * and 'sink.transactional-id-prefix' P): instance k writes through one
 * transactional producer, transactional.id "P-k", whose init_transactions
 * at open fences any other producer of that id (a zombie incarnation) and
 * aborts what an earlier incarnation left open.  The messages since the
 * last committed transaction are also kept in memory (`msgs`, encoded as
 * the checkpoint record below).  pre_commit(C) flushes the open
 * transaction, adds to it the offset C for the marker group "P-k" on the
 * topic's partition 0 (rd_kafka_send_offsets_to_transaction: committed
 * atomically with the messages) and writes the record: u8 version 1, u32
 * k, i64 C, i64 message count, bytes (each message: i32 partition, i32
 * key length or -1, key, i32 value length or -1, value, and when the
 * table has a 'headers' METADATA column, i32 length or -1 and its packed
 * MAP (data/packed.h)).  commit(C)
 * commits the transaction; messages written between pre_commit and commit
 * wait in `msgs` and open the next transaction at commit.  abort(C)
 * leaves the transaction open: its messages belong to the next checkpoint
 * too.  recover(record of instance j, checkpoint C) runs init_transactions
 * for "P-j" (aborting what is open), reads the marker group's committed
 * offset (read_committed) and, when it is below C (the job died between
 * the checkpoint's manifest and the commit), writes the record's messages
 * again in a new transaction with the marker and commits it: each
 * checkpoint's messages are committed once.  The planner checks
 * 'properties.transaction.timeout.ms' (librdkafka's default 60000) against
 * the checkpoint interval (conn_args.ckpt_interval_us): a transaction stays
 * open for about one interval.
 */
#include "conn_kafka_int.h"
#include "data/packed.h"
#include "sluice.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KK_TIMEOUT_MS 30000 /* metadata at open */

enum { PART_DEFAULT, PART_FIXED, PART_RR };
enum { GUAR_NONE, GUAR_ALO, GUAR_EOS };

typedef struct kk_sink {
	sl_sink base;         /* must be first */
	int upsert;           /* upsert mode: -D becomes a tombstone */
	sl_kafka_props props;
	char *topic;
	int partitioner, guarantee;
	int subtask, nsub;    /* this instance of nsub */
	sl_kafka_fmt fmt;
	int hcol;             /* the 'headers' METADATA column, -1 = none */
	rd_kafka_t *rk;
	rd_kafka_topic_t *rkt;
	int nparts;
	int64_t rr;           /* round-robin: messages written */
	sl_buf kbuf, vbuf;
	int64_t failed;       /* deliveries failed */
	char first_fail[512]; /* the first failure's reason */
	/* exactly-once (see the file comment) */
	char *txn_prefix;     /* 'sink.transactional-id-prefix' */
	int in_txn;           /* a transaction is open */
	int64_t pending;      /* checkpoint pre-committed, awaiting commit; 0 = none */
	sl_buf msgs;          /* messages since the last commit, record-encoded */
	int64_t nmsgs;        /* ... how many */
	size_t sent;          /* bytes of msgs produced into the open transaction */
	int64_t nsent;
	size_t staged;        /* bytes of msgs in the pre-committed transaction */
	int64_t nstaged;
} kk_sink;

#define KK_TXN_TIMEOUT_MS 60000 /* librdkafka's transaction.timeout.ms default */

static int check_failed(kk_sink *k, sl_err *err);

/* 'exactly-once': the prefix, checkpointing, and the transaction timeout
 * against the checkpoint interval (k->props read). */
static int eos_configure(kk_sink *k, const sl_conn_args *a, const char *prefix, sl_err *err)
{
	if (!prefix || !*prefix)
		return sl_err_set(err, SL_EINVAL, "sink '%s': 'sink.transactional-id-prefix' must be "
		                  "specified when using DeliveryGuarantee.EXACTLY_ONCE.", a->table);
	if (!a->checkpointing)
		return sl_err_set(err, SL_EINVAL, "sink '%s': 'sink.delivery-guarantee' = "
		                  "'exactly-once' commits a Kafka transaction per checkpoint: set "
		                  "'execution.checkpointing.interval'", a->table);
	int64_t tmo = KK_TXN_TIMEOUT_MS;
	const char *t = sl__kafka_prop(&k->props, "transaction.timeout.ms");
	if (t)
		tmo = strtoll(t, NULL, 10);
	if (a->ckpt_interval_us > 0 && tmo * 1000 <= a->ckpt_interval_us)
		return sl_err_set(err, SL_EINVAL, "sink '%s': the checkpoint interval (%" PRId64 " ms) "
		                  "must be shorter than the Kafka transaction timeout "
		                  "'properties.transaction.timeout.ms' (%" PRId64 " ms%s): each "
		                  "checkpoint's transaction stays open until the next checkpoint "
		                  "completes, and the broker aborts it after the timeout; raise "
		                  "'properties.transaction.timeout.ms' (up to the broker's "
		                  "transaction.max.timeout.ms, 15 min by default) or checkpoint more "
		                  "often", a->table, a->ckpt_interval_us / 1000, tmo,
		                  t ? "" : ", librdkafka's default");
	k->txn_prefix = strdup(prefix);
	if (!k->txn_prefix)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	k->guarantee = GUAR_EOS;
	k->base.guarantee = "exactly-once";
	return 0;
}

static int kk_configure_any(sl_sink *s, const sl_conn_args *a, int upsert, sl_err *err)
{
	kk_sink *k = (kk_sink *)s;
	const sl_opts *o = a->opts;
	sl_buf_init(&k->kbuf);
	sl_buf_init(&k->vbuf);
	sl_buf_init(&k->msgs);
	k->subtask = a->subtask;
	k->nsub = a->nsubtasks > 0 ? a->nsubtasks : 1;
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
	const char *prefix = sl_opts_get(o, "sink.transactional-id-prefix");
	k->guarantee = GUAR_ALO;
	if (dg && !strcmp(dg, "none")) {
		k->guarantee = GUAR_NONE;
		s->guarantee = "none"; /* what EXPLAIN shows */
	} else if (dg && !strcmp(dg, "exactly-once")) {
		if (eos_configure(k, a, prefix, err))
			return err->code;
	} else if (dg && strcmp(dg, "at-least-once"))
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
	k->hcol = -1;
	for (int i = 0; a->meta && i < a->nfields; i++) {
		if (!a->meta[i])
			continue;
		sl_type t = a->fields[i].type;
		if (strcmp(a->meta[i], "headers"))
			return sl_err_set(err, SL_EINVAL, "sink '%s': metadata key '%s' of column '%s' "
			                  "cannot be written (the sink writes 'headers')", a->table,
			                  a->meta[i], a->fields[i].name);
		if (!(t.id == SL_T_MAP && t.row && sl_type_is_string(sl_type_map_key(t)) &&
		      sl_type_is_binary(sl_type_map_value(t)))) {
			char tb[64];
			return sl_err_set(err, SL_EINVAL, "sink '%s': metadata column '%s' (key "
			                  "'headers') must be MAP<STRING, BYTES>, not %s", a->table,
			                  a->fields[i].name, sl_type_format(t, tb, sizeof tb));
		}
		k->hcol = i;
	}
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

/* ---- exactly-once: transactions (see the file comment) ---------------------- */

/* An rd_kafka_error_t of a transactional call: 0 without one, else the
 * job's error naming the step and the transactional id (consumes e). */
static int txn_check(kk_sink *k, rd_kafka_error_t *e, const char *step, int id, sl_err *err)
{
	if (!e)
		return 0;
	int fenced = rd_kafka_error_code(e) == RD_KAFKA_RESP_ERR__FENCED ||
	             rd_kafka_error_code(e) == RD_KAFKA_RESP_ERR_PRODUCER_FENCED ||
	             rd_kafka_error_code(e) == RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH;
	sl_err_set(err, SL_EIO, "sink '%s': Kafka transaction of transactional id '%s-%d': %s: "
	           "%s%s", k->base.table, k->txn_prefix, id, step, rd_kafka_error_string(e),
	           fenced ? " (fenced: a newer producer with this transactional id started, "
	                    "such as a newer incarnation of this job)" : "");
	rd_kafka_error_destroy(e);
	return err->code;
}

/* The Kafka headers of a packed MAP<STRING, BYTES> (hp, hlen), in its
 * order, a NULL value as a header without value; NULL when hlen < 0 (a
 * NULL 'headers' value: no headers) or the bytes are malformed (*bad). */
static rd_kafka_headers_t *headers_of(const void *hp, int32_t hlen, int *bad)
{
	sl_unpack u;
	uint8_t kn = 0, vn = 0;
	sl_str ks, vs;
	sl_col kc = {.null = &kn, .v.str = &ks}, vc = {.null = &vn, .v.str = &vs};
	kc.type = sl_type_make(SL_T_VARCHAR);
	vc.type = sl_type_make(SL_T_VARBINARY);
	*bad = 0;
	if (hlen < 0)
		return NULL;
	if (sl_unpack_open(&u, hp, hlen)) {
		*bad = 1;
		return NULL;
	}
	rd_kafka_headers_t *h = rd_kafka_headers_new(u.n);
	for (uint32_t i = 0; i < u.n; i++) {
		if (sl_unpack_next(&u, NULL, &kc, 0) || sl_unpack_next(&u, NULL, &vc, 0)) {
			*bad = 1;
			rd_kafka_headers_destroy(h);
			return NULL;
		}
		if (kn) /* a NULL name: Kafka has none; skipped */
			continue;
		rd_kafka_header_add(h, ks.ptr, (ssize_t)ks.len, vn ? NULL : vs.ptr,
		                    vn ? 0 : (ssize_t)vs.len);
	}
	return h;
}

/* Hands one message to producer rk (partition part, RD_KAFKA_PARTITION_UA
 * for the partitioner), with the headers of the packed MAP (hp, hlen) when
 * hlen >= 0; waits while librdkafka's queue is full. */
static int produce(kk_sink *k, rd_kafka_t *rk, int32_t part, const void *key, int32_t klen,
                   const void *val, int32_t vlen, const void *hp, int32_t hlen, sl_err *err)
{
	const void *kp = klen < 0 ? NULL : key;
	void *vp = vlen < 0 ? NULL : (void *)val;
	size_t kn = klen < 0 ? 0 : (size_t)klen, vn = vlen < 0 ? 0 : (size_t)vlen;
	for (;;) {
		int bad;
		rd_kafka_headers_t *h = headers_of(hp, hlen, &bad);
		if (bad)
			return sl_err_set(err, SL_ESTATE, "sink '%s': malformed 'headers' value",
			                  k->base.table);
		rd_kafka_resp_err_t e = h ? rd_kafka_producev(
			rk, RD_KAFKA_V_TOPIC(k->topic), RD_KAFKA_V_PARTITION(part),
			RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(kp, kn),
			RD_KAFKA_V_VALUE(vp, vn), RD_KAFKA_V_HEADERS(h), RD_KAFKA_V_END)
		                          : rd_kafka_producev(
			rk, RD_KAFKA_V_TOPIC(k->topic), RD_KAFKA_V_PARTITION(part),
			RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(kp, kn),
			RD_KAFKA_V_VALUE(vp, vn), RD_KAFKA_V_END);
		if (e && h) /* on success librdkafka owns them */
			rd_kafka_headers_destroy(h);
		if (!e)
			return 0;
		if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL)
			return sl_err_set(err, SL_EIO, "sink '%s': cannot write to topic '%s': %s",
			                  k->base.table, k->topic, SL_KERR(e));
		rd_kafka_poll(rk, 10);
		int rc = check_failed(k, err);
		if (rc)
			return rc;
	}
}

static void put_i32(sl_buf *b, int32_t v, int *oom)
{
	*oom |= sl_buf_append(b, &v, 4);
}

/* Appends one message to k->msgs (record encoding).  0 or SL_ENOMEM. */
static int msg_add(kk_sink *k, int32_t part, const sl_buf *key, const sl_buf *val,
                   const sl_str *hdrs, sl_err *err)
{
	int oom = 0;
	put_i32(&k->msgs, part, &oom);
	put_i32(&k->msgs, key ? (int32_t)key->len : -1, &oom);
	if (key)
		oom |= sl_buf_append(&k->msgs, key->p, key->len);
	put_i32(&k->msgs, val ? (int32_t)val->len : -1, &oom);
	if (val)
		oom |= sl_buf_append(&k->msgs, val->p, val->len);
	if (k->hcol >= 0) {
		put_i32(&k->msgs, hdrs ? (int32_t)hdrs->len : -1, &oom);
		if (hdrs)
			oom |= sl_buf_append(&k->msgs, hdrs->ptr, (size_t)hdrs->len);
	}
	if (oom)
		return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", k->base.table);
	k->nmsgs++;
	return 0;
}

/* Produces the record-encoded messages p[*pos, len) to rk; *pos and *n
 * advance.  SL_ESTATE for a damaged record. */
static int produce_from(kk_sink *k, rd_kafka_t *rk, const uint8_t *p, size_t len, size_t *pos,
                        int64_t *n, sl_err *err)
{
	while (*pos < len) {
		size_t q = *pos;
		int32_t part, kl, vl;
		if (len - q < 8)
			goto bad;
		memcpy(&part, p + q, 4);
		memcpy(&kl, p + q + 4, 4);
		q += 8;
		const uint8_t *key = p + q;
		if (kl > 0)
			q += (size_t)kl;
		if (q + 4 > len)
			goto bad;
		memcpy(&vl, p + q, 4);
		q += 4;
		const uint8_t *val = p + q;
		if (vl > 0)
			q += (size_t)vl;
		if (q > len)
			goto bad;
		int32_t hl = -1;
		const uint8_t *hp = NULL;
		if (k->hcol >= 0) {
			if (q + 4 > len)
				goto bad;
			memcpy(&hl, p + q, 4);
			q += 4;
			hp = p + q;
			if (hl > 0)
				q += (size_t)hl;
			if (q > len)
				goto bad;
		}
		int rc = produce(k, rk, part, key, kl, val, vl, hp, hl, err);
		if (rc)
			return rc;
		*pos = q;
		(*n)++;
	}
	return 0;
bad:
	return sl_err_set(err, SL_ESTATE, "sink '%s': damaged exactly-once record in the "
	                  "checkpoint", k->base.table);
}

/* Opens the instance's transaction if none is open and produces into it
 * the messages that wait in msgs. */
static int txn_catch_up(kk_sink *k, sl_err *err)
{
	if (k->sent == k->msgs.len)
		return 0;
	if (!k->in_txn) {
		int rc = txn_check(k, rd_kafka_begin_transaction(k->rk), "begin", k->subtask, err);
		if (rc)
			return rc;
		k->in_txn = 1;
	}
	return produce_from(k, k->rk, (const uint8_t *)k->msgs.p, k->msgs.len, &k->sent,
	                    &k->nsent, err);
}

/* Adds to rk's open transaction the offset ckpt for the marker group
 * "<prefix>-<id>" on the topic's partition 0 (committed with it). */
static int txn_marker(kk_sink *k, rd_kafka_t *rk, int id, int64_t ckpt, sl_err *err)
{
	char group[600];
	snprintf(group, sizeof group, "%s-%d", k->txn_prefix, id);
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(l, k->topic, 0)->offset = ckpt;
	rd_kafka_consumer_group_metadata_t *g = rd_kafka_consumer_group_metadata_new(group);
	rd_kafka_error_t *e = rd_kafka_send_offsets_to_transaction(rk, l, g, KK_TIMEOUT_MS);
	rd_kafka_consumer_group_metadata_destroy(g);
	rd_kafka_topic_partition_list_destroy(l);
	return txn_check(k, e, "marker offset", id, err);
}

/* The marker group "<prefix>-<id>"'s committed offset (read_committed),
 * -1 when none. */
static int marker_read(kk_sink *k, int id, int64_t *out, sl_err *err)
{
	char es[512], group[600];
	snprintf(group, sizeof group, "%s-%d", k->txn_prefix, id);
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	/* the connection's properties only (a consumer refuses none, but warns
	 * about producer properties) */
	for (int i = 0; i < k->props.n; i++) {
		const char *key = k->props.key[i];
		if (!strcmp(key, "bootstrap.servers") || !strncmp(key, "security.", 9) ||
		    !strncmp(key, "ssl.", 4) || !strncmp(key, "sasl.", 5) ||
		    !strcmp(key, "client.id"))
			rd_kafka_conf_set(conf, key, k->props.val[i], es, sizeof es);
	}
	rd_kafka_conf_set(conf, "group.id", group, es, sizeof es);
	rd_kafka_conf_set(conf, "isolation.level", "read_committed", es, sizeof es);
	rd_kafka_conf_set(conf, "log_level", "3", es, sizeof es);
	rd_kafka_t *c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, es, sizeof es);
	if (!c) {
		rd_kafka_conf_destroy(conf);
		return sl_err_set(err, SL_EIO, "sink '%s': cannot create a Kafka consumer: %s",
		                  k->base.table, es);
	}
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(l, k->topic, 0)->offset = RD_KAFKA_OFFSET_INVALID;
	rd_kafka_resp_err_t e = rd_kafka_committed(c, l, KK_TIMEOUT_MS);
	if (!e)
		e = l->elems[0].err;
	*out = l->elems[0].offset >= 0 ? l->elems[0].offset : -1;
	rd_kafka_topic_partition_list_destroy(l);
	rd_kafka_destroy(c);
	if (e)
		return sl_err_set(err, SL_EIO, "sink '%s': cannot read the exactly-once marker of "
		                  "group '%s': %s", k->base.table, group, SL_KERR(e));
	return 0;
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
	if (k->guarantee == GUAR_EOS) {
		char tid[600];
		snprintf(tid, sizeof tid, "%s-%d", k->txn_prefix, k->subtask);
		if (rd_kafka_conf_set(conf, "transactional.id", tid, es, sizeof es)) {
			rd_kafka_conf_destroy(conf);
			return sl_err_set(err, SL_EINVAL, "sink '%s': %s", s->table, es);
		}
	}
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
	if (k->guarantee == GUAR_EOS) /* fences zombies, aborts what is left open */
		return txn_check(k, rd_kafka_init_transactions(k->rk, KK_TIMEOUT_MS), "init", k->subtask,
		                 err);
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
		const sl_str *hdrs = k->hcol >= 0 && !b->cols[k->hcol].null[row]
		                         ? &b->cols[k->hcol].v.str[row] : NULL;
		if (k->guarantee == GUAR_EOS) {
			if ((rc = msg_add(k, part, f->kenc ? &k->kbuf : NULL, tomb ? NULL : &k->vbuf,
			                  hdrs, err)) ||
			    (!k->pending && (rc = txn_catch_up(k, err))))
				return rc;
			s->rows_written++;
			continue;
		}
		if (hdrs) { /* rd_kafka_produce takes no headers */
			if ((rc = produce(k, k->rk, part, f->kenc ? k->kbuf.p : NULL,
			                  f->kenc ? (int32_t)k->kbuf.len : -1, tomb ? NULL : k->vbuf.p,
			                  tomb ? -1 : (int32_t)k->vbuf.len, hdrs->ptr, (int32_t)hdrs->len,
			                  err)))
				return rc;
			s->rows_written++;
			continue;
		}
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

/* exactly-once pre_commit(C): the open transaction gets every message
 * since the last commit, is flushed and gets the marker C; the record
 * holds the messages (see the file comment). */
static int eos_pre_commit(kk_sink *k, int64_t ckpt, sl_snap_writer *w, sl_err *err)
{
	int rc;
	if (k->pending)
		return sl_err_set(err, SL_ESTATE, "sink '%s': checkpoint %" PRId64 " started before "
		                  "checkpoint %" PRId64 "'s transaction was committed", k->base.table,
		                  ckpt, k->pending);
	if ((rc = txn_catch_up(k, err)))
		return rc;
	if (!k->in_txn) { /* nothing written: the marker alone (it also checks the fence) */
		if ((rc = txn_check(k, rd_kafka_begin_transaction(k->rk), "begin", k->subtask, err)))
			return rc;
		k->in_txn = 1;
	}
	if ((rc = flush_all(k, err)) || (rc = txn_marker(k, k->rk, k->subtask, ckpt, err)))
		return rc;
	sl_snap_put_u8(w, 1);
	sl_snap_put_u32(w, (uint32_t)k->subtask);
	sl_snap_put_i64(w, ckpt);
	sl_snap_put_i64(w, k->nmsgs);
	sl_snap_put_bytes(w, k->msgs.p, k->msgs.len);
	k->pending = ckpt;
	k->staged = k->msgs.len;
	k->nstaged = k->nmsgs;
	return 0;
}

/* commit(C): commits the pre-committed transaction; the messages written
 * since open the next one. */
static int kk_commit(sl_sink *s, int64_t ckpt, sl_err *err)
{
	kk_sink *k = (kk_sink *)s;
	if (k->guarantee != GUAR_EOS || k->pending != ckpt)
		return 0;
	int rc = txn_check(k, rd_kafka_commit_transaction(k->rk, KK_TIMEOUT_MS), "commit",
	                   k->subtask, err);
	if (rc)
		return rc;
	k->in_txn = 0;
	k->pending = 0;
	memmove(k->msgs.p, k->msgs.p + k->staged, k->msgs.len - k->staged);
	k->msgs.len -= k->staged;
	k->nmsgs -= k->nstaged;
	k->sent = 0;
	k->nsent = 0;
	k->staged = 0;
	k->nstaged = 0;
	return txn_catch_up(k, err);
}

/* abort(C): the checkpoint failed; its transaction stays open and its
 * messages go into the next checkpoint's. */
static int kk_abort(sl_sink *s, int64_t ckpt, sl_err *err)
{
	kk_sink *k = (kk_sink *)s;
	if (k->guarantee != GUAR_EOS || k->pending != ckpt)
		return 0;
	k->pending = 0;
	k->staged = 0;
	k->nstaged = 0;
	return txn_catch_up(k, err);
}

/* A transactional producer of id "<prefix>-j", initialized: any
 * producer of that id before it is fenced and its open transaction
 * aborted.  0 with *out, or SL_EIO with err. */
static int id_producer(kk_sink *k, int j, rd_kafka_t **out, sl_err *err)
{
	char es[512], tid[600];
	snprintf(tid, sizeof tid, "%s-%d", k->txn_prefix, j);
	rd_kafka_conf_t *conf = sl__kafka_conf(&k->props, "sink", k->base.table, err);
	if (!conf)
		return err->code;
	rd_kafka_conf_set(conf, "transactional.id", tid, es, sizeof es);
	rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
	rd_kafka_conf_set_error_cb(conf, error_cb);
	rd_kafka_conf_set_opaque(conf, k);
	rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, es, sizeof es);
	if (!rk) {
		rd_kafka_conf_destroy(conf);
		return sl_err_set(err, SL_EIO, "sink '%s': cannot create the Kafka producer: %s",
		                  k->base.table, es);
	}
	rd_kafka_set_log_queue(rk, NULL);
	int rc = txn_check(k, rd_kafka_init_transactions(rk, KK_TIMEOUT_MS), "init", j, err);
	if (rc) {
		rd_kafka_destroy(rk);
		return rc;
	}
	*out = rk;
	return 0;
}

/* Sets the marker of "<prefix>-j" to 0 (below every checkpoint id) in a
 * transaction of its own on rk, producer of that id. */
static int marker_reset(kk_sink *k, rd_kafka_t *rk, int j, sl_err *err)
{
	int rc = txn_check(k, rd_kafka_begin_transaction(rk), "begin", j, err);
	if (!rc)
		rc = txn_marker(k, rk, j, 0, err);
	if (!rc)
		rc = txn_check(k, rd_kafka_commit_transaction(rk, KK_TIMEOUT_MS), "commit", j, err);
	return rc;
}

/*
 * An exactly-once sink's fresh start (no checkpoint restored).  Its own
 * id's open transaction was aborted at open; its marker, left by an
 * earlier run whose checkpoints are gone, may hold a checkpoint id above
 * the ones this run will take, so that a restore of this run's checkpoint
 * C would find "C committed" and skip committing it again: the marker is
 * reset to 0.  Instance 0 also looks for the ids of instances beyond this
 * parallelism ("<prefix>-j", j = nsub, nsub + 1, ..., while group
 * "<prefix>-j" has a marker: an earlier run at a higher parallelism),
 * aborts their open transactions (read_committed readers would otherwise
 * wait for 'transaction.timeout.ms') and resets their markers.  An id
 * that never completed a checkpoint has no marker and is not found.
 */
static int fresh_start(kk_sink *k, sl_err *err)
{
	int64_t m = -1;
	int rc = marker_read(k, k->subtask, &m, err);
	if (!rc && m > 0)
		rc = marker_reset(k, k->rk, k->subtask, err);
	for (int j = k->nsub; !rc && k->subtask == 0 && j < k->nsub + 4096; j++) {
		if ((rc = marker_read(k, j, &m, err)) || m < 0)
			break;
		rd_kafka_t *rk = NULL;
		if (!(rc = id_producer(k, j, &rk, err)))
			rc = marker_reset(k, rk, j, err);
		if (rk)
			rd_kafka_destroy(rk);
		if (!rc)
			fprintf(stderr, "sluice: sink '%s': fresh start at parallelism %d: aborted what "
			        "transactional id '%s-%d' of an earlier run left open\n", k->base.table,
			        k->nsub, k->txn_prefix, j);
	}
	return rc;
}

/*
 * recover: a fresh start of an exactly-once sink cleans up (fresh_start);
 * an empty record (at-least-once, none) has nothing to do; an exactly-once record of instance j and checkpoint C is
 * committed unless the marker of "<prefix>-j" shows it committed (see the
 * file comment).  A record with another guarantee is refused.
 */
static int kk_recover(sl_sink *s, sl_snap_reader *r, sl_err *err)
{
	kk_sink *k = (kk_sink *)s;
	if (!r && k->guarantee == GUAR_EOS)
		return fresh_start(k, err);
	if (!r || r->pos >= r->len)
		return 0;
	uint8_t ver = sl_snap_get_u8(r);
	int j = (int)sl_snap_get_u32(r);
	int64_t ckpt = sl_snap_get_i64(r), n = sl_snap_get_i64(r);
	size_t len = 0;
	const uint8_t *p = sl_snap_get_bytes(r, &len);
	if (!sl_snap_reader_ok(r) || ver != 1)
		return sl_err_set(err, SL_ESTATE, "sink '%s': unknown or damaged Kafka sink record "
		                  "in the checkpoint", s->table);
	if (k->guarantee != GUAR_EOS)
		return sl_err_set(err, SL_ESTATE, "sink '%s': the restored checkpoint holds an "
		                  "exactly-once Kafka transaction; restore it with "
		                  "'sink.delivery-guarantee' = 'exactly-once'", s->table);
	/* instance j's transactional id: ours was initialized at open; another
	 * one's gets a producer of its own (init_transactions aborts its open
	 * transaction before the marker is read) */
	rd_kafka_t *rk = k->rk;
	int rc = j != k->subtask ? id_producer(k, j, &rk, err) : 0;
	int64_t marker = -1;
	if (!rc)
		rc = marker_read(k, j, &marker, err);
	if (!rc && marker < ckpt) {
		/* died between the checkpoint's manifest and its commit: again */
		size_t pos = 0;
		int64_t done = 0;
		rc = txn_check(k, rd_kafka_begin_transaction(rk), "begin", j, err);
		if (!rc)
			rc = produce_from(k, rk, p, len, &pos, &done, err);
		if (!rc && done != n)
			rc = sl_err_set(err, SL_ESTATE, "sink '%s': damaged exactly-once record in the "
			                "checkpoint", s->table);
		while (!rc && rd_kafka_flush(rk, 1000) == RD_KAFKA_RESP_ERR__TIMED_OUT)
			rc = check_failed(k, err);
		if (!rc)
			rc = check_failed(k, err);
		if (!rc)
			rc = txn_marker(k, rk, j, ckpt, err);
		if (!rc)
			rc = txn_check(k, rd_kafka_commit_transaction(rk, KK_TIMEOUT_MS), "commit", j, err);
		if (!rc && getenv("SLUICE_KAFKA_TRACE"))
			fprintf(stderr, "sluice: sink '%s': recovered checkpoint %" PRId64 "'s transaction "
			        "of '%s-%d': %" PRId64 " message(s) committed again\n", s->table, ckpt,
			        k->txn_prefix, j, n);
	}
	if (rk != k->rk)
		rd_kafka_destroy(rk);
	return rc;
}

/* At a checkpoint's barrier: what was written before it is acknowledged
 * ('at-least-once'); 'none' does not wait. */
static int kk_pre_commit(sl_sink *s, int64_t ckpt_id, sl_snap_writer *w, sl_err *err)
{
	kk_sink *k = (kk_sink *)s;
	if (k->guarantee == GUAR_EOS)
		return eos_pre_commit(k, ckpt_id, w, err);
	if (k->guarantee == GUAR_NONE) {
		rd_kafka_poll(k->rk, 0);
		return check_failed(k, err);
	}
	return flush_all(k, err);
}

static void kk_close(sl_sink *s)
{
	kk_sink *k = (kk_sink *)s;
	if (k->rk && k->in_txn) {
		/* exactly-once: what is not committed is in the checkpoint (or is
		 * replayed): abort, so read_committed readers need not wait for the
		 * transaction's timeout */
		rd_kafka_error_t *e = rd_kafka_abort_transaction(k->rk, 5000);
		if (e)
			rd_kafka_error_destroy(e);
		k->in_txn = 0;
	} else if (k->rk) {
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
	sl_buf_deinit(&k->msgs);
	free(k->txn_prefix);
	k->txn_prefix = NULL;
	sl__kafka_props_free(&k->props);
	sl__kafka_fmt_deinit(&k->fmt);
}

static const char *const kk_meta_keys[] = {"headers", NULL};

const sl_sink_vtab sl_kafka_sink_vtab = {
	.name = "kafka",
	.size = sizeof(kk_sink),
	.metadata_keys = kk_meta_keys,
	.accepts_updates = 1,
	.can_update = kk_can_update,
	.guarantee = "at-least-once",
	.configure = kk_configure,
	.open = kk_open,
	.write = kk_write,
	.finish = kk_finish,
	.pre_commit = kk_pre_commit,
	.commit = kk_commit,
	.abort = kk_abort,
	.recover = kk_recover,
	.close = kk_close,
};

const sl_sink_vtab sl_upsert_kafka_sink_vtab = {
	.name = "upsert-kafka",
	.size = sizeof(kk_sink),
	.metadata_keys = kk_meta_keys,
	.accepts_updates = 1,
	.can_update = ukk_can_update,
	.guarantee = "at-least-once",
	.upsert = 1,
	.configure = ukk_configure,
	.open = kk_open,
	.write = kk_write,
	.finish = kk_finish,
	.pre_commit = kk_pre_commit,
	.commit = kk_commit,
	.abort = kk_abort,
	.recover = kk_recover,
	.close = kk_close,
};
