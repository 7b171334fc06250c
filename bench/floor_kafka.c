/*
 * floor_kafka.c - the floor of the Kafka benchmark (bench/kafka.sh): a
 * plain librdkafka consumer that reads every partition of a topic from the
 * beginning to its end offset (as of the start) and counts the messages
 * and bytes, doing nothing else with them.  What sluice's kafka source ->
 * json -> window job does on top of this is sluice's own cost.
 *
 *   floor_kafka BOOTSTRAP TOPIC
 *
 * Prints "N messages, B bytes" on stdout; exits 1 on an error.
 */
#include <librdkafka/rdkafka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: floor_kafka BOOTSTRAP TOPIC\n");
		return 2;
	}
	char es[512];
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	if (rd_kafka_conf_set(conf, "bootstrap.servers", argv[1], es, sizeof es) ||
	    rd_kafka_conf_set(conf, "group.id", "sluice-bench-floor", es, sizeof es) ||
	    rd_kafka_conf_set(conf, "enable.auto.commit", "false", es, sizeof es) ||
	    rd_kafka_conf_set(conf, "enable.partition.eof", "false", es, sizeof es)) {
		fprintf(stderr, "floor_kafka: %s\n", es);
		return 1;
	}
	rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, es, sizeof es);
	if (!rk) {
		fprintf(stderr, "floor_kafka: %s\n", es);
		return 1;
	}
	rd_kafka_poll_set_consumer(rk);
	rd_kafka_topic_t *t = rd_kafka_topic_new(rk, argv[2], NULL);
	const struct rd_kafka_metadata *md;
	if (rd_kafka_metadata(rk, 0, t, &md, 10000) || md->topic_cnt != 1 || md->topics[0].err) {
		fprintf(stderr, "floor_kafka: no metadata for topic %s\n", argv[2]);
		return 1;
	}
	int n = md->topics[0].partition_cnt;
	rd_kafka_metadata_destroy(md);
	rd_kafka_topic_destroy(t);
	int64_t *end = calloc((size_t)n, sizeof(int64_t)), *pos = calloc((size_t)n, sizeof(int64_t));
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(n);
	int left = 0;
	for (int p = 0; p < n; p++) {
		int64_t lo, hi;
		if (rd_kafka_query_watermark_offsets(rk, argv[2], p, &lo, &hi, 10000)) {
			fprintf(stderr, "floor_kafka: no offsets for partition %d\n", p);
			return 1;
		}
		end[p] = hi;
		pos[p] = lo;
		if (lo < hi) {
			rd_kafka_topic_partition_list_add(l, argv[2], p)->offset = lo;
			left++;
		}
	}
	rd_kafka_assign(rk, l);
	rd_kafka_topic_partition_list_destroy(l);
	int64_t msgs = 0, bytes = 0;
	while (left > 0) {
		rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 1000);
		if (!m)
			continue;
		if (m->err) {
			fprintf(stderr, "floor_kafka: %s\n", rd_kafka_message_errstr(m));
			return 1;
		}
		msgs++;
		bytes += (int64_t)m->len;
		int p = m->partition;
		pos[p] = m->offset + 1;
		if (pos[p] == end[p])
			left--;
		rd_kafka_message_destroy(m);
	}
	printf("%" PRId64 " messages, %" PRId64 " bytes\n", msgs, bytes);
	rd_kafka_consumer_close(rk);
	rd_kafka_destroy(rk);
	free(end);
	free(pos);
	return 0;
}
