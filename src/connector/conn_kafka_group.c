/*
 * conn_kafka_group.c - a consumer group member that reads nothing
 * (conn_kafka_group.h): the scale-out's member process
 * (src/api/scaleout.c, docs/kafka.md "Several processes, one job") holds
 * the topic's partitions the group gives it while its children read them.
 *
 * A librdkafka consumer subscribed to the one topic with
 * 'partition.assignment.strategy' = cooperative-sticky (incremental
 * rebalances: a member keeps its partitions while others join or leave,
 * and a partition moves only after its old owner revoked it),
 * 'enable.auto.commit' off (the children's checkpoints hold the offsets;
 * sl_kgroup_commit commits a child's completed checkpoint's offset for the
 * Kafka tools' lag, as the member holding the partition).  The rebalance callback calls
 * rd_kafka_incremental_assign with every offset at the end and pauses the
 * partitions at once, so nothing is fetched, then tells the caller
 * (cb.assigned); on a revoke it tells the caller first (cb.revoked, which
 * returns once the partition's child has stopped) and then unassigns.  A
 * message that still arrives is dropped.  Logs and errors go through the
 * queue that sl_kgroup_poll serves (sl__kafka_conf), on the caller's thread.
 */
#include "conn_kafka_group.h"
#include "conn_kafka_int.h"
#include "sluice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KG_TIMEOUT_MS 10000

struct sl_kgroup {
	rd_kafka_t *rk;
	char *topic;
	char table[256];
	sl_kgroup_cb cb;
	char fatal[512];
	int steady;          /* the last statistics said join_state "steady" */
	int in_cb;           /* inside the rebalance callback */
	int64_t cb_ms;       /* monotonic ms when the last rebalance callback ended */
	int lost_by_commit;  /* a commit of ours was refused for the generation */
};

static int64_t kg_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* librdkafka's statistics (every 100 ms, served by the polls): only the
 * group's join state is read, to commit only while it is steady. */
static int kg_stats_cb(rd_kafka_t *rk, char *json, size_t len, void *opaque)
{
	sl_kgroup *g = opaque;
	(void)rk;
	(void)len;
	g->steady = strstr(json, "\"join_state\":\"steady\"") != NULL;
	return 0;
}

static void kg_error_cb(rd_kafka_t *rk, int e, const char *reason, void *opaque)
{
	sl_kgroup *g = opaque;
	if (e == RD_KAFKA_RESP_ERR__FATAL) {
		char buf[256];
		rd_kafka_fatal_error(rk, buf, sizeof buf);
		snprintf(g->fatal, sizeof g->fatal, "%s", buf);
		return;
	}
	fprintf(stderr, "sluice: scale-out member of '%s': kafka: %s\n", g->table, reason);
}

static void kg_rebalance_cb(rd_kafka_t *rk, rd_kafka_resp_err_t e,
                            rd_kafka_topic_partition_list_t *parts, void *opaque)
{
	sl_kgroup *g = opaque;
	int coop = !strcmp(rd_kafka_rebalance_protocol(rk), "COOPERATIVE");
	g->in_cb = 1;
	g->steady = 0;
	if (e == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
		for (int i = 0; i < parts->cnt; i++)
			parts->elems[i].offset = RD_KAFKA_OFFSET_END;
		rd_kafka_error_t *er = NULL;
		if (coop)
			er = rd_kafka_incremental_assign(rk, parts);
		else
			rd_kafka_assign(rk, parts);
		if (er) {
			fprintf(stderr, "sluice: scale-out member of '%s': assign: %s\n", g->table,
			        rd_kafka_error_string(er));
			rd_kafka_error_destroy(er);
		}
		rd_kafka_pause_partitions(rk, parts);
		for (int i = 0; i < parts->cnt; i++)
			g->cb.assigned(g->cb.ctx, parts->elems[i].partition);
	} else {
		/* lost because our own commit met a newer generation: the group
		 * is rebalancing with this member in it, and the cooperative
		 * assignor gives no one a partition this member still owned in
		 * that generation, so the partitions are still ours until we
		 * rejoin without them: a revoke (stop with a savepoint), not a
		 * loss */
		int lost = rd_kafka_assignment_lost(rk) && !g->lost_by_commit;
		g->lost_by_commit = 0;
		for (int i = 0; i < parts->cnt; i++)
			g->cb.revoked(g->cb.ctx, parts->elems[i].partition, lost);
		if (coop) {
			rd_kafka_error_t *er = rd_kafka_incremental_unassign(rk, parts);
			if (er)
				rd_kafka_error_destroy(er);
		} else {
			rd_kafka_assign(rk, NULL);
		}
	}
	g->in_cb = 0;
	g->cb_ms = kg_ms();
}

sl_kgroup *sl_kgroup_open(const sl_conn_args *a, const char *topic, const sl_kgroup_cb *cb,
                          sl_err *err)
{
	sl_kgroup *g = calloc(1, sizeof *g);
	if (!g || !(g->topic = strdup(topic))) {
		free(g);
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	snprintf(g->table, sizeof g->table, "%s", a->table);
	g->cb = *cb;
	sl_kafka_props props = {0};
	static const char *const skip[] = {"commit.offsets.on.checkpoint",
	                                   "partition.discovery.interval.ms", NULL};
	rd_kafka_conf_t *conf = NULL;
	if (!sl__kafka_props_read(&props, a, "source", skip, err))
		conf = sl__kafka_conf(&props, "source", a->table, err);
	sl__kafka_props_free(&props);
	if (!conf) {
		free(g->topic);
		free(g);
		return NULL;
	}
	char es[512];
	rd_kafka_conf_set(conf, "enable.auto.commit", "false", es, sizeof es);
	rd_kafka_conf_set(conf, "enable.auto.offset.store", "false", es, sizeof es);
	if (rd_kafka_conf_set(conf, "partition.assignment.strategy", "cooperative-sticky", es,
	                      sizeof es) != RD_KAFKA_CONF_OK) {
		rd_kafka_conf_destroy(conf);
		free(g->topic);
		free(g);
		sl_err_set(err, SL_EINVAL, "source '%s': %s", a->table, es);
		return NULL;
	}
	rd_kafka_conf_set(conf, "statistics.interval.ms", "100", es, sizeof es);
	rd_kafka_conf_set_stats_cb(conf, kg_stats_cb);
	rd_kafka_conf_set_error_cb(conf, kg_error_cb);
	rd_kafka_conf_set_rebalance_cb(conf, kg_rebalance_cb);
	rd_kafka_conf_set_opaque(conf, g);
	if (!(g->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, es, sizeof es))) {
		rd_kafka_conf_destroy(conf);
		free(g->topic);
		free(g);
		sl_err_set(err, SL_EIO, "source '%s': cannot create the Kafka consumer: %s", a->table,
		           es);
		return NULL;
	}
	rd_kafka_set_log_queue(g->rk, NULL);
	rd_kafka_poll_set_consumer(g->rk);
	return g;
}

int sl_kgroup_subscribe(sl_kgroup *g, sl_err *err)
{
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(l, g->topic, RD_KAFKA_PARTITION_UA);
	rd_kafka_resp_err_t e = rd_kafka_subscribe(g->rk, l);
	rd_kafka_topic_partition_list_destroy(l);
	if (e)
		return sl_err_set(err, SL_EIO, "source '%s': cannot subscribe to topic '%s': %s",
		                  g->table, g->topic, rd_kafka_err2str(e));
	return 0;
}

int sl_kgroup_partitions(sl_kgroup *g, const char *topic, sl_err *err)
{
	if (!topic)
		topic = g->topic;
	rd_kafka_topic_t *t = rd_kafka_topic_new(g->rk, topic, NULL);
	const struct rd_kafka_metadata *md = NULL;
	rd_kafka_resp_err_t e = t ? rd_kafka_metadata(g->rk, 0, t, &md, KG_TIMEOUT_MS)
	                          : RD_KAFKA_RESP_ERR__INVALID_ARG;
	int n = 0;
	if (!e && md->topic_cnt == 1 && !md->topics[0].err)
		n = md->topics[0].partition_cnt;
	else if (!e)
		e = md->topic_cnt == 1 ? md->topics[0].err : RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC;
	if (md)
		rd_kafka_metadata_destroy(md);
	if (t)
		rd_kafka_topic_destroy(t);
	if (!n)
		sl_err_set(err, SL_EIO, "source '%s': cannot read topic '%s''s partitions: %s",
		           g->table, topic, rd_kafka_err2str(e));
	return n;
}

int sl_kgroup_poll(sl_kgroup *g, int ms, sl_err *err)
{
	rd_kafka_message_t *m = rd_kafka_consumer_poll(g->rk, ms);
	if (m) {
		if (m->err && m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF)
			fprintf(stderr, "sluice: scale-out member of '%s': kafka: %s\n", g->table,
			        rd_kafka_message_errstr(m));
		rd_kafka_message_destroy(m); /* paused: a message fetched before the pause */
	}
	if (g->fatal[0])
		return sl_err_set(err, SL_EIO, "source '%s': kafka: fatal error in the consumer "
		                  "group: %s", g->table, g->fatal);
	return 0;
}

int sl_kgroup_commit(sl_kgroup *g, int32_t part, int64_t off, int sync, sl_err *err)
{
	/* a commit sent while this member's JoinGroup is pending is answered
	 * with ILLEGAL_GENERATION, which librdkafka 2.0.2 takes as the
	 * assignment lost: commit only in the rebalance callback (its
	 * generation is current) or while the group is steady, not just
	 * after a callback (the cooperative protocol's second rebalance) */
	if (!g->in_cb && (!g->steady || kg_ms() - g->cb_ms < 1000))
		return 1;
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(l, g->topic, part)->offset = off;
	rd_kafka_resp_err_t e = rd_kafka_commit(g->rk, l, !sync);
	if (!e && sync && l->elems[0].err)
		e = l->elems[0].err;
	rd_kafka_topic_partition_list_destroy(l);
	if (!e)
		return 0;
	if (e == RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION)
		g->lost_by_commit = 1; /* (not UNKNOWN_MEMBER_ID: then it left the group) */
	fprintf(stderr, "sluice: scale-out member of '%s': cannot commit offset %lld of partition "
	        "%d to the group: %s\n", g->table, (long long)off, (int)part, rd_kafka_err2str(e));
	return sl_err_set(err, SL_EIO, "cannot commit offset %lld of partition %d: %s",
	                  (long long)off, (int)part, rd_kafka_err2str(e));
}

void sl_kgroup_close(sl_kgroup *g)
{
	if (!g)
		return;
	rd_kafka_consumer_close(g->rk); /* revokes through the callback, leaves */
	rd_kafka_destroy(g->rk);
	free(g->topic);
	free(g);
}
