/*
 * conn_kafka_group.h - membership of a Kafka consumer group without
 * reading: the member process of a scale-out ('sluice.scale-out' =
 * 'kafka-group', docs/kafka.md "Several processes, one job") learns which
 * partitions of one topic the group gives it, and when it must give them
 * back, through Kafka's cooperative-sticky assignment.
 */
#ifndef SL_CONN_KAFKA_GROUP_H
#define SL_CONN_KAFKA_GROUP_H

#include <stdint.h>

#include "conn.h"

typedef struct sl_kgroup sl_kgroup;

/* What the member does with its partitions.  Called on the thread that
 * calls sl_kgroup_poll / sl_kgroup_close, inside librdkafka's rebalance
 * callback: revoked returns once the partition's work has stopped (the
 * group gives the partition to another member only after that).  lost:
 * the group took the partition away without a revoke (the member was
 * cut off past its session timeout): another member may own it already. */
typedef struct sl_kgroup_cb {
	void *ctx;
	void (*assigned)(void *ctx, int32_t part);
	void (*revoked)(void *ctx, int32_t part, int lost);
} sl_kgroup_cb;

/*
 * A consumer of group 'properties.group.id' of table a->table (a->opts:
 * every 'properties.*' goes to librdkafka, as for the source) for topic,
 * with 'partition.assignment.strategy' cooperative-sticky and no automatic
 * offset commits (sl_kgroup_commit); assigned partitions are paused at
 * once: it reads no message.  It joins the group only at
 * sl_kgroup_subscribe (the join itself happens in later polls): a member
 * that refuses to start closes before subscribing (librdkafka 2.0.2 aborts
 * in its sticky assignor when a consumer that subscribed closes before its
 * first assignment).  NULL with err.
 */
sl_kgroup *sl_kgroup_open(const sl_conn_args *a, const char *topic, const sl_kgroup_cb *cb,
                          sl_err *err);
/* Subscribes g to its topic.  0, or SL_EIO with err. */
int sl_kgroup_subscribe(sl_kgroup *g, sl_err *err);

/* The partition count of topic (NULL: the group's) from the cluster's
 * metadata; 0 with err. */
int sl_kgroup_partitions(sl_kgroup *g, const char *topic, sl_err *err);

/* Serves the group (callbacks, logs, errors) for up to ms milliseconds.
 * 0, or SL_EIO with err on a fatal client error. */
int sl_kgroup_poll(sl_kgroup *g, int ms, sl_err *err);

/* Commits offset off of partition part to the group, as the member that
 * holds it (the scale-out's children are not members: the broker refuses
 * their commits while the group has members); sync waits for the
 * broker's answer, else it is served by a later poll.  Only inside the
 * rebalance callback or while the group is steady (librdkafka's
 * statistics) and no rebalance callback ran in the last second: a commit
 * that meets a newer generation makes librdkafka 2.0.2 drop the whole
 * assignment as lost (then reported as a revoke, the partitions being
 * still this member's).  0, 1 when not now (try later), or an error (also
 * printed) that leaves the job running: offsets in the group are for
 * Kafka tools' lag, a restore never reads them. */
int sl_kgroup_commit(sl_kgroup *g, int32_t part, int64_t off, int sync, sl_err *err);

/* Leaves the group (every partition revoked through cb first) and frees
 * g.  NULL is a no-op. */
void sl_kgroup_close(sl_kgroup *g);

#endif
