/*
 * mockcluster.c - librdkafka's mock Kafka cluster as a standalone process,
 * the fast Kafka peer of the tests (tests/kafka/lib.sh starts and stops it;
 * docs/kafka.md "Tests").
 *
 *   kafka_mock BROKERS [TOPIC:PARTITIONS ...]
 *
 * Starts a cluster of BROKERS mock brokers on loopback (random ports, the
 * only kind librdkafka 2.0.2's mock offers), creates the given topics,
 * prints the bootstrap servers as the first line on stdout, then reads
 * commands on stdin, one a line, answering each on stdout:
 *   create TOPIC PARTITIONS   -> "created TOPIC" (or "error ...")
 * and exits on end of stdin, SIGINT or SIGTERM.  The cluster lives in this
 * process; it keeps at most 5 MiB per partition and nothing on disk
 * (../shared notes: the mock's limits are in docs/kafka.md).
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int create(rd_kafka_mock_cluster_t *mc, const char *name, int parts, int say)
{
	rd_kafka_resp_err_t e = rd_kafka_mock_topic_create(mc, name, parts, 1);
	if (e) {
		printf("error %s: %s\n", name, rd_kafka_err2str(e));
		return -1;
	}
	if (say)
		printf("created %s\n", name);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: kafka_mock BROKERS [TOPIC:PARTITIONS ...]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	char errstr[512];
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof errstr);
	rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
	if (!rk) {
		fprintf(stderr, "kafka_mock: %s\n", errstr);
		return 1;
	}
	rd_kafka_mock_cluster_t *mc = rd_kafka_mock_cluster_new(rk, atoi(argv[1]));
	if (!mc) {
		fprintf(stderr, "kafka_mock: cannot start the mock cluster\n");
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		char *colon = strrchr(argv[i], ':');
		if (!colon) {
			fprintf(stderr, "kafka_mock: '%s' is not TOPIC:PARTITIONS\n", argv[i]);
			return 2;
		}
		*colon = 0;
		if (create(mc, argv[i], atoi(colon + 1), 0))
			return 1;
	}
	printf("%s\n", rd_kafka_mock_cluster_bootstraps(mc));
	/* signals end the read below; the default action would skip cleanup,
	 * which does not matter: nothing is on disk */
	char line[512];
	while (fgets(line, sizeof line, stdin)) {
		char name[256];
		int parts;
		if (sscanf(line, "create %255s %d", name, &parts) == 2)
			create(mc, name, parts, 1);
		else
			printf("error unknown command\n");
	}
	rd_kafka_mock_cluster_destroy(mc);
	rd_kafka_destroy(rk);
	return 0;
}
