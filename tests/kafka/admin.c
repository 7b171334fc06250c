/*
 * admin.c - creates topics on a real Kafka broker through librdkafka's
 * Admin API, for the Kafka tests' real-broker peer (tests/kafka/lib.sh,
 * KAFKA_PEER=broker; docs/kafka.md "Tests"), which shares one broker
 * between several test scripts.
 *
 *   kafka_admin BOOTSTRAP TOPIC PARTITIONS
 *   kafka_admin BOOTSTRAP TOPIC PARTITIONS add
 *
 * Makes TOPIC exist with PARTITIONS partitions (replication factor 1) and
 * no messages: a topic of that name left by an earlier script on the same
 * broker is deleted first, and the create is retried while the broker
 * still marks the old one for deletion (up to 30 s).  Exits 0 when the
 * topic is created and its partitions have leaders in the metadata, else
 * prints the broker's reason on stderr and exits 1.  With "add", TOPIC
 * keeps its messages and grows to PARTITIONS partitions (CreatePartitions:
 * partition discovery's test, tests/integration/kafka_discovery.sh).
 */
#include <librdkafka/rdkafka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void pause_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* the topic's partition count in the metadata, 0 when absent, -1 when a
 * partition has no leader yet */
static int partitions(rd_kafka_t *rk, const char *name)
{
	rd_kafka_topic_t *t = rd_kafka_topic_new(rk, name, NULL);
	const struct rd_kafka_metadata *md = NULL;
	int n = 0;
	if (rd_kafka_metadata(rk, 0, t, &md, 5000) == RD_KAFKA_RESP_ERR_NO_ERROR && md->topic_cnt == 1) {
		const rd_kafka_metadata_topic_t *mt = &md->topics[0];
		if (mt->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
			n = mt->partition_cnt;
			for (int i = 0; i < mt->partition_cnt; i++)
				if (mt->partitions[i].leader < 0)
					n = -1;
		}
	}
	if (md)
		rd_kafka_metadata_destroy(md);
	rd_kafka_topic_destroy(t);
	return n;
}

/* one admin request's first topic result: its error code and string */
static rd_kafka_resp_err_t await_result(rd_kafka_queue_t *q, int create, char *msg, size_t cap)
{
	rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 35000);
	if (!ev) {
		snprintf(msg, cap, "no answer from the broker");
		return RD_KAFKA_RESP_ERR__TIMED_OUT;
	}
	rd_kafka_resp_err_t err = rd_kafka_event_error(ev);
	snprintf(msg, cap, "%s", err ? rd_kafka_event_error_string(ev) : "");
	if (!err) {
		const rd_kafka_topic_result_t **res;
		size_t n = 0;
		if (create)
			res = rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
		else if (rd_kafka_event_type(ev) == RD_KAFKA_EVENT_CREATEPARTITIONS_RESULT)
			res = rd_kafka_CreatePartitions_result_topics(
				rd_kafka_event_CreatePartitions_result(ev), &n);
		else
			res = rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(ev), &n);
		if (n > 0) {
			err = rd_kafka_topic_result_error(res[0]);
			const char *s = rd_kafka_topic_result_error_string(res[0]);
			snprintf(msg, cap, "%s", s ? s : rd_kafka_err2str(err));
		}
	}
	rd_kafka_event_destroy(ev);
	return err;
}

int main(int argc, char **argv)
{
	int add = argc == 5 && !strcmp(argv[4], "add");
	if (argc != 4 && !add) {
		fprintf(stderr, "usage: kafka_admin BOOTSTRAP TOPIC PARTITIONS [add]\n");
		return 2;
	}
	const char *name = argv[2];
	int parts = atoi(argv[3]);
	char errstr[512];
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	/* a consumer handle that never asks the broker to create a topic its
	 * metadata requests name (the broker's auto.create.topics.enable is on) */
	if (rd_kafka_conf_set(conf, "bootstrap.servers", argv[1], errstr, sizeof errstr) ||
	    rd_kafka_conf_set(conf, "allow.auto.create.topics", "false", errstr, sizeof errstr) ||
	    rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof errstr)) {
		fprintf(stderr, "kafka_admin: %s\n", errstr);
		return 1;
	}
	rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr);
	if (!rk) {
		fprintf(stderr, "kafka_admin: %s\n", errstr);
		return 1;
	}
	rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
	char msg[512];
	int rc = 1;
	if (add) {
		rd_kafka_NewPartitions_t *np = rd_kafka_NewPartitions_new(name, (size_t)parts, errstr,
		                                                          sizeof errstr);
		if (!np) {
			fprintf(stderr, "kafka_admin: %s\n", errstr);
			goto out;
		}
		rd_kafka_CreatePartitions(rk, &np, 1, NULL, q);
		rd_kafka_NewPartitions_destroy(np);
		if (await_result(q, 0, msg, sizeof msg)) {
			fprintf(stderr, "kafka_admin: cannot grow topic '%s' to %d partitions: %s\n",
			        name, parts, msg);
			goto out;
		}
		goto wait;
	}
	if (partitions(rk, name) != 0) {
		rd_kafka_DeleteTopic_t *d = rd_kafka_DeleteTopic_new(name);
		rd_kafka_DeleteTopics(rk, &d, 1, NULL, q);
		rd_kafka_DeleteTopic_destroy(d);
		rd_kafka_resp_err_t err = await_result(q, 0, msg, sizeof msg);
		if (err && err != RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
			fprintf(stderr, "kafka_admin: cannot delete the old topic '%s': %s\n", name, msg);
			goto out;
		}
	}
	for (int tries = 0;; tries++) {
		rd_kafka_NewTopic_t *t = rd_kafka_NewTopic_new(name, parts, 1, errstr, sizeof errstr);
		if (!t) {
			fprintf(stderr, "kafka_admin: %s\n", errstr);
			goto out;
		}
		rd_kafka_CreateTopics(rk, &t, 1, NULL, q);
		rd_kafka_NewTopic_destroy(t);
		rd_kafka_resp_err_t err = await_result(q, 1, msg, sizeof msg);
		if (!err)
			break;
		/* the old topic is still being deleted */
		if ((err == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS || err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) &&
		    tries < 300) {
			pause_ms(100);
			continue;
		}
		fprintf(stderr, "kafka_admin: cannot create topic '%s': %s\n", name, msg);
		goto out;
	}
wait:
	for (int tries = 0; tries < 300; tries++) {
		if (partitions(rk, name) == parts) {
			rc = 0;
			goto out;
		}
		pause_ms(100);
	}
	fprintf(stderr, "kafka_admin: topic '%s' has no leaders after 30 s\n", name);
out:
	rd_kafka_queue_destroy(q);
	rd_kafka_destroy(rk);
	return rc;
}
