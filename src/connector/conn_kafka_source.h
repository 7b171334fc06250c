/*
 * conn_kafka_source.h - the Kafka source's private structures, shared by
 * its two files: conn_kafka.c (open, read, checkpoints) and
 * conn_kafka_source_opts.c (configure: Flink's options into a ks_source).
 * Nothing outside these two files includes it.
 */
#ifndef SL_CONN_KAFKA_SOURCE_H
#define SL_CONN_KAFKA_SOURCE_H

#include "conn_kafka_int.h"
#include "sluice.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#define KS_SNAP_VERSION 1
#define KS_TIMEOUT_MS 10000     /* metadata and offset queries at open */
#define KS_NO_END INT64_MAX     /* unbounded split */

enum { START_EARLIEST, START_LATEST, START_GROUP, START_TIMESTAMP, START_SPECIFIC };
enum { BOUND_NONE, BOUND_LATEST, BOUND_TIMESTAMP, BOUND_GROUP, BOUND_SPECIFIC };
enum { META_TOPIC, META_PARTITION, META_OFFSET, META_TIMESTAMP, META_TSTYPE, META_HEADERS };


typedef struct ks_split {
	char *topic;
	int32_t part;
	int64_t pos;          /* offset of the next message to read */
	int64_t end;          /* bounded: the split ends here; KS_NO_END */
	int64_t first;        /* the start offset the startup mode gave it (progress) */
	int64_t lo;           /* its earliest offset when listed (a split no restored
	                       * snapshot holds starts there, as a discovered one) */
	int restored;         /* a restored snapshot held it */
	int64_t last_data_us; /* monotonic time of its last message (idleness) */
	rd_kafka_message_t **buf; /* messages received, not decoded: buf[head..n) */
	int head, n, cap;
} ks_split;

typedef struct ks_source {
	sl_source base;       /* must be first */
	int upsert;
	sl_kafka_props props;
	char **topics;        /* 'topic' */
	int ntopics;
	pcre2_code *pattern;  /* 'topic-pattern' */
	int start_mode, bound_mode;
	int64_t start_ts_ms, bound_ts_ms;
	int nspec;            /* 'scan.startup.specific-offsets' */
	int32_t *spec_part;
	int64_t *spec_off;
	int nbspec;           /* 'scan.bounded.specific-offsets' */
	int32_t *bspec_part;
	int64_t *bspec_off;
	int64_t idle_us;      /* 'scan.watermark.idle-timeout', 0 = never */
	int subtask, nsub;
	int32_t *only;        /* 'scan.partitions': read only these, or NULL */
	int nonly;
	int commit_offsets;   /* group.id set and 'properties.commit.offsets.on.checkpoint' */
	int commit_fd;        /* 'scan.commit-fd' (a scale-out child): the pipe to its
	                       * member, which commits the offsets; -1 = none */
	int64_t disc_us;      /* 'scan.topic-partition-discovery.interval', 0 = off */
	int64_t last_disc_us; /* monotonic time of the last listing */
	int restored;         /* a snapshot was restored (ks_restore) */
	int started;          /* the first read happened */
	sl_kafka_fmt fmt;
	int nfields;
	int *meta;            /* per field: META_* or -1 */
	sl_buf hdrs;          /* a message's headers as a packed MAP (data/packed.h) */
	rd_kafka_t *rk;
	ks_split *splits;
	int nsplits;
	uint8_t *done, *idle;
	int64_t *wm;
	int ndone;
	int assigned;
	int cur;              /* split whose turn it is */
	rd_kafka_queue_t *cq; /* the consumer queue: messages, errors, logs */
	rd_kafka_message_t **live; /* the last batch's messages (alive until the next read) */
	int nlive, live_cap;
	rd_kafka_message_t **pull; /* scratch for rd_kafka_consume_batch_queue */
	int buffered;         /* messages in the splits' buffers */
	int last_split;       /* the split of the last message routed (cache) */
	int64_t last_pos_check_us; /* check_positions */
	int32_t *prov_split;  /* per row of the last batch: split, offset */
	int64_t *prov_off;
	int prov_cap, prov_n;
	int64_t *snap_pos;    /* the positions at the last barrier (commit) */
	int have_snap;
	char fatal[512];      /* a fatal client error seen by error_cb */
} ks_source;

static inline int nomem(ks_source *k, sl_err *err)
{
	return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", k->base.table);
}

/* The METADATA keys the source offers, NULL-terminated, in META_* order. */
extern const char *const sl__ks_meta_keys[];

/* Configure (conn_kafka_source_opts.c): reads a 'kafka' (upsert 0) or
 * 'upsert-kafka' (1) table's options into s, a ks_source; planning only,
 * no I/O.  0 or an error naming the option. */
int sl__ks_configure_any(sl_source *s, const sl_conn_args *a, int upsert, sl_err *err);

#endif
