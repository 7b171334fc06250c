/*
 * conn_kafka.c - the source of Flink's 'kafka' and 'upsert-kafka'
 * connectors, through librdkafka (docs/kafka.md).
 *
 * Configure (conn_kafka_source_opts.c; planning, no I/O) reads Flink 1.20's options: 'topic' (one
 * or a ';' list) or 'topic-pattern' (a PCRE2 regular expression matched
 * against the whole name), 'properties.*' (handed to librdkafka, checked
 * there), 'scan.startup.mode' with its timestamp and specific offsets,
 * 'scan.bounded.mode' with its timestamp, the key and value formats
 * (conn_kafka_common.c) and the METADATA columns ('topic', 'partition',
 * 'offset', 'timestamp', 'timestamp-type', and 'headers': a
 * MAP<STRING, BYTES> packed per message, data/packed.h).
 *
 * Open creates a consumer (group.id from 'properties.group.id', if any; no
 * subscription: partitions are assigned explicitly), lists the topics'
 * partitions from the cluster's metadata and makes each (topic, partition)
 * a split, sorted by topic name then partition; a split belongs to the
 * instance owner() names (Flink's getSplitOwner: it depends on the
 * partition alone, sl_conn_args.subtask); with
 * 'scan.partitions' (a sluice extension: the scale-out's children, see
 * docs/kafka.md "Several processes, one job") only the listed partitions
 * are in that list.  It resolves
 * every split's start offset (earliest, latest, the group's committed
 * offset, the first offset at a timestamp, a specific offset) and, with a
 * bounded mode, its end offset, to numbers, so a restart never depends on
 * when it queried.  A restore (after open) replaces them with the
 * checkpoint's, whatever the group's committed offsets say.
 *
 * Reading: at the first read the splits not finished are assigned at
 * their positions, each with its own queue (rd_kafka_queue_get_partition,
 * not forwarded), so every batch holds messages of one partition
 * (sl_source.split) and the scan keeps a watermark per partition.  The
 * splits are read in turns, a batch each, without waiting (0 ms polls:
 * the run loop sleeps when nothing came).  A message is decoded into the
 * caller's batch through each side's view of its columns (the key first,
 * then the value, which wins for a column in both), the metadata columns
 * are filled from the message; the messages of a batch stay alive until
 * the next read (strings may point into them).  A null value is skipped,
 * or, for 'upsert-kafka', a delete (-D) of its key; values become +I, and
 * the planner normalizes the upserts by the PRIMARY KEY.  A message that
 * does not decode stops the job naming the topic, partition and offset,
 * or is skipped and counted with the format's 'ignore-parse-errors'.
 * Partition discovery ('scan.topic-partition-discovery.interval', 5 min
 * by default, off when bounded): every interval the read lists the topics
 * again and adds the partitions this instance owns and lacks as splits
 * read from their earliest offsets (discover()); an instance without
 * splits waits for one instead of ending.  After a restore, a split no
 * snapshot held starts at its earliest offset too.
 * A split is done at its end offset (bounded modes), or when the
 * consumer's position passed it with no message left (offsets without a
 * message: transaction markers, compaction; check_positions); the source
 * ends when every split is.  A partition without data for
 * 'scan.watermark.idle-timeout' is idle (sl_source.split_idle) until data
 * comes.
 *
 * Checkpoints: the snapshot holds, per split, (topic, partition), the
 * next offset, the end offset, done and the watermark; pre_commit (at the
 * barrier, in this process) remembers the positions and commit (the
 * checkpoint is complete) commits them to the group, asynchronously, so
 * Kafka tools show the lag: exactly-once never depends on it.  In a
 * scale-out's child ('scan.commit-fd') they go to the member instead,
 * which commits them as the group member holding the partition.  librdkafka's threads and the forked checkpoint writer:
 * docs/checkpoints.md "Kafka".  Every call into librdkafka is on the job
 * thread; its logs and errors are served there.
 */
#include "conn_kafka_source.h"
#include "data/packed.h"
#include "sluice.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static int64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Whether partition part is to be read ('scan.partitions'). */
static int only_wanted(const ks_source *k, int32_t part)
{
	if (!k->only)
		return 1;
	for (int i = 0; i < k->nonly; i++)
		if (k->only[i] == part)
			return 1;
	return 0;
}


static int ks_configure(sl_source *s, const sl_conn_args *a, sl_err *err)
{
	return sl__ks_configure_any(s, a, 0, err);
}

static int uks_configure(sl_source *s, const sl_conn_args *a, sl_err *err)
{
	return sl__ks_configure_any(s, a, 1, err);
}

/* ---- open ----------------------------------------------------------------- */

static void error_cb(rd_kafka_t *rk, int e, const char *reason, void *opaque)
{
	ks_source *k = opaque;
	if (e == RD_KAFKA_RESP_ERR__FATAL) {
		char buf[256];
		rd_kafka_fatal_error(rk, buf, sizeof buf);
		snprintf(k->fatal, sizeof k->fatal, "%s", buf);
		return;
	}
	fprintf(stderr, "sluice: source '%s': kafka: %s\n", k->base.table, reason);
}

static int cmp_split(const void *x, const void *y)
{
	const ks_split *a = x, *b = y;
	int c = strcmp(a->topic, b->topic);
	return c ? c : (a->part > b->part) - (a->part < b->part);
}

static int wanted(ks_source *k, const char *name)
{
	if (k->pattern) {
		pcre2_match_data *md = pcre2_match_data_create_from_pattern(k->pattern, NULL);
		int rc = md ? pcre2_match(k->pattern, (PCRE2_SPTR)name, PCRE2_ZERO_TERMINATED, 0, 0,
		                          md, NULL) : -1;
		pcre2_match_data_free(md);
		return rc >= 0;
	}
	for (int i = 0; i < k->ntopics; i++)
		if (!strcmp(k->topics[i], name))
			return 1;
	return 0;
}

/*
 * The instance that reads (topic, part) of nsub: Flink's
 * KafkaSourceEnumerator.getSplitOwner, ((topic.hashCode() * 31) &
 * 0x7FFFFFFF) % nsub + part, mod nsub, with Java's String.hashCode (topic
 * names are ASCII).  It depends on nothing but the partition, so every
 * instance agrees on the owner of a partition it discovers while running
 * without asking the others.
 */
static int owner(const char *topic, int32_t part, int nsub)
{
	uint32_t h = 0;
	for (const unsigned char *c = (const unsigned char *)topic; *c; c++)
		h = 31 * h + *c;
	uint32_t start = ((h * 31) & 0x7FFFFFFFu) % (uint32_t)nsub;
	return (int)((start + (uint32_t)part) % (uint32_t)nsub);
}

/* The splits of this instance: the listed topics' partitions it owns
 * (owner()), sorted by topic then partition. */
static int list_splits(ks_source *k, sl_err *err)
{
	const struct rd_kafka_metadata *md = NULL;
	rd_kafka_resp_err_t e = rd_kafka_metadata(k->rk, 1, NULL, &md, KS_TIMEOUT_MS);
	if (e)
		return sl_err_set(err, SL_EIO, "source '%s': cannot read the topics' metadata from "
		                  "'%s': %s", k->base.table, sl__kafka_prop(&k->props,
		                  "bootstrap.servers"), SL_KERR(e));
	int n = 0, rc = 0;
	for (int i = 0; i < md->topic_cnt; i++)
		if (wanted(k, md->topics[i].topic))
			n += md->topics[i].partition_cnt;
	for (int i = 0; i < k->ntopics && !rc; i++) {
		int found = 0;
		for (int j = 0; j < md->topic_cnt; j++)
			found |= !strcmp(md->topics[j].topic, k->topics[i]) && !md->topics[j].err;
		if (!found)
			rc = sl_err_set(err, SL_EIO, "source '%s': topic '%s' does not exist",
			                k->base.table, k->topics[i]);
	}
	ks_split *all = calloc((size_t)n + 1, sizeof *all);
	if (!all && !rc)
		rc = nomem(k, err);
	int m = 0;
	for (int i = 0; i < md->topic_cnt && !rc; i++) {
		const struct rd_kafka_metadata_topic *t = &md->topics[i];
		if (!wanted(k, t->topic))
			continue;
		for (int j = 0; j < t->partition_cnt; j++) {
			if (!only_wanted(k, t->partitions[j].id))
				continue;
			all[m].topic = (char *)t->topic;
			all[m++].part = t->partitions[j].id;
		}
	}
	for (int i = 0; i < k->nonly && !rc; i++) {
		int found = 0;
		for (int j = 0; j < m; j++)
			found |= all[j].part == k->only[i];
		if (!found)
			rc = sl_err_set(err, SL_EIO, "source '%s': 'scan.partitions' lists partition %d, "
			                "which the topic does not have", k->base.table, (int)k->only[i]);
	}
	if (!rc) {
		qsort(all, (size_t)m, sizeof *all, cmp_split);
		k->splits = calloc((size_t)m + 1, sizeof *k->splits);
		if (!k->splits)
			rc = nomem(k, err);
		for (int i = 0; i < m && !rc; i++) {
			if (owner(all[i].topic, all[i].part, k->nsub) != k->subtask)
				continue;
			ks_split *sp = &k->splits[k->nsplits];
			if (!(sp->topic = strdup(all[i].topic))) {
				rc = nomem(k, err);
				break;
			}
			sp->part = all[i].part;
			sp->end = KS_NO_END;
			k->nsplits++;
		}
	}
	free(all);
	rd_kafka_metadata_destroy(md);
	return rc;
}

/* A list of every split's (topic, partition), offsets set to off. */
static rd_kafka_topic_partition_list_t *split_list(ks_source *k, int64_t off)
{
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(k->nsplits + 1);
	for (int i = 0; i < k->nsplits; i++)
		rd_kafka_topic_partition_list_add(l, k->splits[i].topic, k->splits[i].part)->offset =
			off;
	return l;
}

static int query_wm(ks_source *k, int i, int64_t *lo, int64_t *hi, sl_err *err)
{
	ks_split *sp = &k->splits[i];
	rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(k->rk, sp->topic, sp->part, lo,
	                                                         hi, KS_TIMEOUT_MS);
	if (e)
		return sl_err_set(err, SL_EIO, "source '%s': topic '%s', partition %d: cannot read "
		                  "its offsets: %s", k->base.table, sp->topic, sp->part, SL_KERR(e));
	return 0;
}

/* out[i] = the group's committed offset of split i, -1 when none. */
static int committed(ks_source *k, int64_t *out, sl_err *err)
{
	rd_kafka_topic_partition_list_t *l = split_list(k, RD_KAFKA_OFFSET_INVALID);
	rd_kafka_resp_err_t e = rd_kafka_committed(k->rk, l, KS_TIMEOUT_MS);
	for (int i = 0; i < k->nsplits && !e; i++)
		out[i] = l->elems[i].offset >= 0 ? l->elems[i].offset : -1;
	rd_kafka_topic_partition_list_destroy(l);
	if (e)
		return sl_err_set(err, SL_EIO, "source '%s': cannot read group '%s''s committed "
		                  "offsets: %s", k->base.table, sl__kafka_prop(&k->props, "group.id"),
		                  SL_KERR(e));
	return 0;
}

/* out[i] = the first offset of split i whose timestamp is >= ts_ms, -1
 * when none (the end). */
static int at_time(ks_source *k, int64_t ts_ms, int64_t *out, sl_err *err)
{
	rd_kafka_topic_partition_list_t *l = split_list(k, ts_ms);
	rd_kafka_resp_err_t e = rd_kafka_offsets_for_times(k->rk, l, KS_TIMEOUT_MS);
	for (int i = 0; i < k->nsplits && !e; i++)
		out[i] = l->elems[i].err ? -1 : l->elems[i].offset;
	rd_kafka_topic_partition_list_destroy(l);
	if (e)
		return sl_err_set(err, SL_EIO, "source '%s': cannot look offsets up by timestamp: %s",
		                  k->base.table, SL_KERR(e));
	return 0;
}

/* Each split's start and end offsets as numbers (see the file comment). */
static int resolve_offsets(ks_source *k, sl_err *err)
{
	int n = k->nsplits;
	if (n == 0) /* an instance without splits (more instances than partitions):
	             * librdkafka refuses an empty list with "Invalid argument" */
		return 0;
	int64_t *lo = calloc((size_t)n + 1, sizeof(int64_t)), *hi = calloc((size_t)n + 1, 8);
	int64_t *x = calloc((size_t)n + 1, sizeof(int64_t));
	int rc = !lo || !hi || !x ? nomem(k, err) : 0;
	for (int i = 0; i < n && !rc; i++)
		rc = query_wm(k, i, &lo[i], &hi[i], err);
	const char *reset = sl__kafka_prop(&k->props, "auto.offset.reset");
	if (!rc && (k->start_mode == START_GROUP || k->start_mode == START_SPECIFIC))
		rc = committed(k, x, err);
	if (!rc && k->start_mode == START_TIMESTAMP)
		rc = at_time(k, k->start_ts_ms, x, err);
	for (int i = 0; i < n && !rc; i++) {
		ks_split *sp = &k->splits[i];
		switch (k->start_mode) {
		case START_EARLIEST: sp->pos = lo[i]; break;
		case START_LATEST: sp->pos = hi[i]; break;
		case START_TIMESTAMP: sp->pos = x[i] >= 0 ? x[i] : hi[i]; break;
		case START_SPECIFIC:
			sp->pos = x[i] >= 0 ? x[i] : lo[i];
			for (int j = 0; j < k->nspec; j++)
				if (k->spec_part[j] == sp->part)
					sp->pos = k->spec_off[j];
			break;
		default: /* group offsets */
			if (x[i] >= 0)
				sp->pos = x[i];
			else if (reset && (!strcmp(reset, "earliest") || !strcmp(reset, "smallest") ||
			                   !strcmp(reset, "beginning")))
				sp->pos = lo[i];
			else if (reset && (!strcmp(reset, "latest") || !strcmp(reset, "largest") ||
			                   !strcmp(reset, "end")))
				sp->pos = hi[i];
			else
				rc = sl_err_set(err, SL_EINVAL, "source '%s': Undefined offset with no reset "
				                "policy for partitions: [%s-%d] (group '%s' has no committed "
				                "offset; set 'properties.auto.offset.reset')", k->base.table,
				                sp->topic, sp->part, sl__kafka_prop(&k->props, "group.id"));
		}
		if (sp->pos < lo[i])
			sp->pos = lo[i];
	}
	if (!rc && (k->bound_mode == BOUND_GROUP ||
	            (k->bound_mode == BOUND_SPECIFIC && sl__kafka_prop(&k->props, "group.id"))))
		rc = committed(k, x, err);
	else if (k->bound_mode == BOUND_SPECIFIC)
		for (int i = 0; i < n; i++)
			x[i] = -1;
	if (!rc && k->bound_mode == BOUND_TIMESTAMP)
		rc = at_time(k, k->bound_ts_ms, x, err);
	for (int i = 0; i < n && !rc; i++) {
		ks_split *sp = &k->splits[i];
		sp->end = k->bound_mode == BOUND_LATEST ? hi[i]
		        : k->bound_mode == BOUND_TIMESTAMP ? (x[i] >= 0 ? x[i] : hi[i])
		        : k->bound_mode == BOUND_GROUP ? (x[i] >= 0 ? x[i] : lo[i])
		        : KS_NO_END;
		if (k->bound_mode == BOUND_SPECIFIC) {
			/* unlisted: the group's offset, else the earliest (nothing) */
			sp->end = x[i] >= 0 ? x[i] : lo[i];
			for (int j = 0; j < k->nbspec; j++)
				if (k->bspec_part[j] == sp->part)
					sp->end = k->bspec_off[j];
		}
		/* percent done ('scan.bounded.mode'): offsets from the start to
		 * the end, in the source's progress (docs/observability.md) */
		sp->first = sp->pos;
		sp->lo = lo[i];
		if (sp->end != KS_NO_END && sp->end > sp->first)
			k->base.bytes_total += sp->end - sp->first;
	}
	free(lo);
	free(hi);
	free(x);
	return rc;
}

/* Split i is done once its position reached its end. */
static void check_done(ks_source *k, int i)
{
	if (!k->done[i] && k->splits[i].pos >= k->splits[i].end) {
		k->done[i] = 1;
		k->idle[i] = 0;
		k->ndone++;
	}
}

static int ks_open(sl_source *s, sl_err *err)
{
	ks_source *k = (ks_source *)s;
	rd_kafka_conf_t *conf = sl__kafka_conf(&k->props, "source", s->table, err);
	if (!conf)
		return err->code;
	char es[512];
	rd_kafka_conf_set(conf, "enable.auto.commit", "false", es, sizeof es);
	rd_kafka_conf_set(conf, "enable.auto.offset.store", "false", es, sizeof es);
	rd_kafka_conf_set(conf, "enable.partition.eof", "false", es, sizeof es);
	rd_kafka_conf_set_error_cb(conf, error_cb);
	if (!sl__kafka_prop(&k->props, "group.id")) {
		/* librdkafka assigns only with a group id; Flink names one too.
		 * Nothing is committed under it (commit_offsets is 0). */
		char g[300];
		snprintf(g, sizeof g, "sluice-%s", s->table);
		rd_kafka_conf_set(conf, "group.id", g, es, sizeof es);
	}
	rd_kafka_conf_set_opaque(conf, k);
	k->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, es, sizeof es);
	if (!k->rk) {
		rd_kafka_conf_destroy(conf);
		return sl_err_set(err, SL_EIO, "source '%s': cannot create the Kafka consumer: %s",
		                  s->table, es);
	}
	rd_kafka_set_log_queue(k->rk, NULL); /* logs: on the main queue, ... */
	rd_kafka_poll_set_consumer(k->rk);   /* ... forwarded to the one we poll */
	k->cq = rd_kafka_queue_get_consumer(k->rk);
	k->last_split = -1;
	int rc = list_splits(k, err);
	if (!rc)
		rc = resolve_offsets(k, err);
	if (rc)
		return rc;
	int n = k->nsplits;
	k->done = calloc((size_t)n + 1, 1);
	k->idle = calloc((size_t)n + 1, 1);
	k->wm = malloc(((size_t)n + 1) * sizeof(int64_t));
	k->snap_pos = calloc((size_t)n + 1, sizeof(int64_t));
	if (!k->done || !k->idle || !k->wm || !k->snap_pos)
		return nomem(k, err);
	int64_t now = mono_us();
	k->last_disc_us = now;
	for (int i = 0; i < n; i++) {
		k->wm[i] = SL_WM_MIN;
		k->splits[i].last_data_us = now;
		check_done(k, i);
	}
	s->nsplits = n;
	s->split_done = k->done;
	s->split_wm = k->wm;
	s->split_idle = k->idle;
	return 0;
}

/* ---- read ----------------------------------------------------------------- */

/* Assigns the unfinished splits at their positions; their messages come
 * on the consumer queue and are routed to the splits' buffers. */
static int assign(ks_source *k, sl_err *err)
{
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(k->nsplits + 1);
	for (int i = 0; i < k->nsplits; i++)
		if (!k->done[i])
			rd_kafka_topic_partition_list_add(l, k->splits[i].topic, k->splits[i].part)
				->offset = k->splits[i].pos;
	rd_kafka_resp_err_t e = rd_kafka_assign(k->rk, l);
	rd_kafka_topic_partition_list_destroy(l);
	if (e)
		return sl_err_set(err, SL_EIO, "source '%s': cannot assign its partitions: %s",
		                  k->base.table, SL_KERR(e));
	k->assigned = 1;
	return 0;
}

static void release_live(ks_source *k)
{
	for (int i = 0; i < k->nlive; i++)
		rd_kafka_message_destroy(k->live[i]);
	k->nlive = 0;
}

static int ensure_cap(ks_source *k, int rows)
{
	if (rows <= k->prov_cap)
		return 0;
	int32_t *ps = realloc(k->prov_split, (size_t)rows * sizeof *ps);
	if (ps)
		k->prov_split = ps;
	int64_t *po = realloc(k->prov_off, (size_t)rows * sizeof *po);
	if (po)
		k->prov_off = po;
	rd_kafka_message_t **lv = realloc(k->live, (size_t)rows * sizeof *lv);
	if (lv)
		k->live = lv;
	rd_kafka_message_t **pl = realloc(k->pull, (size_t)rows * sizeof *pl);
	if (pl)
		k->pull = pl;
	if (!ps || !po || !lv || !pl)
		return SL_ENOMEM;
	k->prov_cap = k->live_cap = rows;
	return 0;
}

/* The view of out over cols[0..n) (v's columns in view[]), nrows = at. */
static void view_of(sl_batch *v, const sl_batch *out, sl_col *view, const int *cols, int n,
                    int at)
{
	*v = *out;
	for (int j = 0; j < n; j++)
		view[j] = out->cols[cols[j]];
	v->cols = view;
	v->ncols = n;
	v->nrows = at;
}

static const char *tstype_name(rd_kafka_timestamp_type_t t)
{
	return t == RD_KAFKA_TIMESTAMP_CREATE_TIME ? "CreateTime"
	     : t == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? "LogAppendTime" : "NoTimestampType";
}

/* Packs message m's headers into k->hdrs as a MAP<STRING, BYTES> (Flink's
 * 'headers': every header, a NULL value kept as NULL, a repeated name
 * with its last value; no headers give an empty map).  0 or SL_ENOMEM. */
static int pack_headers(ks_source *k, const rd_kafka_message_t *m)
{
	rd_kafka_headers_t *h = NULL;
	uint8_t kn = 0, vn = 0;
	sl_str ks, vs;
	sl_col kc = {.null = &kn, .v.str = &ks}, vc = {.null = &vn, .v.str = &vs};
	const char *name;
	const void *val;
	size_t size;
	uint32_t n = 0;
	kc.type = sl_type_make(SL_T_VARCHAR);
	vc.type = sl_type_make(SL_T_VARBINARY);
	if (sl_pack_begin(&k->hdrs))
		return SL_ENOMEM;
	if (rd_kafka_message_headers(m, &h) == RD_KAFKA_RESP_ERR_NO_ERROR) {
		for (size_t i = 0; !rd_kafka_header_get_all(h, i, &name, &val, &size); i++, n++) {
			sl_col_set_str_ref(&kc, 0, name, (int64_t)strlen(name));
			if (val)
				sl_col_set_str_ref(&vc, 0, val, (int64_t)size);
			else
				sl_col_set_null(&vc, 0);
			if (sl_pack_value(&k->hdrs, &kc, 0) || sl_pack_value(&k->hdrs, &vc, 0))
				return SL_ENOMEM;
		}
	}
	sl_pack_end(&k->hdrs, n);
	if (n > 1) {
		sl_buf tmp;
		sl_buf_init(&tmp);
		int rc = sl_pack_map_dedup(&k->hdrs, kc.type, vc.type, &tmp);
		sl_buf_deinit(&tmp);
		if (rc < 0)
			return SL_ENOMEM;
	}
	return 0;
}

/* Fills the metadata columns of rows [first, last) from message m.
 * 0 or SL_ENOMEM. */
static int fill_meta(ks_source *k, const ks_split *sp, const rd_kafka_message_t *m,
                     sl_batch *out, int first, int last)
{
	rd_kafka_timestamp_type_t tt;
	int64_t ts = rd_kafka_message_timestamp(m, &tt);
	for (int i = 0; i < k->nfields; i++) {
		if (k->meta[i] < 0)
			continue;
		sl_col *c = &out->cols[i];
		for (int r = first; r < last; r++) {
			switch (k->meta[i]) {
			case META_TOPIC: sl_col_set_str_ref(c, r, sp->topic, (int64_t)strlen(sp->topic)); break;
			case META_PARTITION: sl_col_set_i64(c, r, sp->part); break;
			case META_OFFSET: sl_col_set_i64(c, r, m->offset); break;
			case META_TIMESTAMP:
				if (ts >= 0 && tt != RD_KAFKA_TIMESTAMP_NOT_AVAILABLE)
					sl_col_set_i64(c, r, ts * 1000);
				else
					sl_col_set_null(c, r);
				break;
			case META_HEADERS:
				if (r == first && (pack_headers(k, m) ||
				                   sl_col_set_str(out, c, r, k->hdrs.p, (int64_t)k->hdrs.len)))
					return SL_ENOMEM;
				if (r > first)
					sl_col_set_str_ref(c, r, c->v.str[first].ptr, c->v.str[first].len);
				break;
			default: {
				const char *n = tstype_name(tt);
				sl_col_set_str_ref(c, r, n, (int64_t)strlen(n));
			}
			}
		}
	}
	return 0;
}

/*
 * Decodes message m of split i into out: 0 (rows appended, or none for a
 * skipped message), SL_EFULL (no room: nothing appended), or an error
 * naming topic, partition and offset.
 */
static int decode_msg(ks_source *k, int i, rd_kafka_message_t *m, sl_batch *out, sl_err *err)
{
	ks_split *sp = &k->splits[i];
	sl_kafka_fmt *f = &k->fmt;
	int first = out->nrows, rc = 0;
	sl_err derr;
	sl_err_clear(&derr);
	sl_batch v;
	if (!m->payload && !k->upsert)
		return 0; /* a null value carries no row (Flink's formats alike) */
	if (out->cap - first < 2)
		return SL_EFULL;
	if (f->kdec) {
		view_of(&v, out, f->kview, f->kcol, f->nkey, first);
		if (m->key) {
			rc = f->kdec->vt->decode(f->kdec, m->key, m->key_len, &v, SL_WM_MIN, &derr);
		} else { /* no key: the key columns are NULL (Flink alike) */
			sl_batch_add_row(&v, SL_INSERT, SL_WM_MIN);
			rc = 1;
		}
		out->arena = v.arena;
		if (rc >= 0 && v.nrows != first + 1)
			rc = sl_err_set(&derr, SL_EINPUT, "the key gives %d rows, not 1",
			                v.nrows - first);
	}
	int nrows = 1;
	if (rc >= 0 && !m->payload) {
		/* upsert-kafka: a tombstone deletes its key */
		for (int j = 0; j < f->nval; j++) {
			int in_key = 0;
			for (int q = 0; q < f->nkey; q++)
				in_key |= f->kcol[q] == f->vcol[j];
			if (!in_key)
				sl_col_set_null(&out->cols[f->vcol[j]], first);
		}
		out->op[first] = SL_DELETE;
		out->wm[first] = SL_WM_MIN;
	} else if (rc >= 0) {
		view_of(&v, out, f->vview, f->vcol, f->nval, first);
		rc = f->vdec->vt->decode(f->vdec, m->payload, m->len, &v, SL_WM_MIN, &derr);
		out->arena = v.arena;
		nrows = v.nrows - first;
		if (rc == SL_EFULL)
			return rc;
		/* key columns not in the value: the first row's, for every row */
		for (int q = 0; q < f->nkey && rc >= 0; q++) {
			int kc = f->kcol[q], in_val = 0;
			for (int j = 0; j < f->nval; j++)
				in_val |= f->vcol[j] == kc;
			for (int r = first + 1; !in_val && r < first + nrows; r++)
				if (sl_col_copy_value(out, &out->cols[kc], r, &out->cols[kc], first))
					rc = SL_ENOMEM;
		}
	}
	if (rc < 0) {
		out->nrows = first;
		sl_decoder *d = f->vdec;
		if (rc == SL_EINPUT && (d->ignore_errors || (f->kdec && f->kdec->ignore_errors))) {
			SL_CTR_ADD(k->base.rows_skipped, 1);
			return 0;
		}
		return sl_err_set(err, rc == SL_ENOMEM ? rc : SL_EINPUT, "source '%s': topic '%s', "
		                  "partition %d, offset %" PRId64 ": %s", k->base.table, sp->topic,
		                  sp->part, (int64_t)m->offset, derr.code ? derr.msg
		                                                          : sl_err_name(rc));
	}
	out->nrows = first + nrows;
	if (fill_meta(k, sp, m, out, first, out->nrows)) {
		out->nrows = first;
		return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", k->base.table);
	}
	for (int r = first; r < out->nrows; r++) {
		k->prov_split[r] = i;
		k->prov_off[r] = m->offset;
	}
	return 0;
}

/* The split of (topic, partition), -1 when not ours. */
static int split_of(ks_source *k, const char *topic, int32_t part)
{
	int c = k->last_split;
	if (c >= 0 && c < k->nsplits && k->splits[c].part == part &&
	    !strcmp(k->splits[c].topic, topic))
		return c;
	for (int i = 0; i < k->nsplits; i++)
		if (k->splits[i].part == part && !strcmp(k->splits[i].topic, topic))
			return k->last_split = i;
	return -1;
}

/*
 * Takes what the consumer queue holds (up to room messages, without
 * waiting): messages go to their split's buffer, errors of a partition
 * stop the job, other errors are reported; a fatal client error stops the
 * job.  Logs are printed by log_cb on this (the job's) thread.
 */
static int pull(ks_source *k, int room, sl_err *err)
{
	int rc = 0;
	if (room > k->prov_cap)
		room = k->prov_cap; /* k->pull's size */
	ssize_t got = room > 0 ? rd_kafka_consume_batch_queue(k->cq, 0, k->pull, (size_t)room) : 0;
	for (ssize_t j = 0; j < got; j++) {
		rd_kafka_message_t *m = k->pull[j];
		int i = m->rkt ? split_of(k, rd_kafka_topic_name(m->rkt), m->partition) : -1;
		if (m->err) {
			if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
				/* nothing to say */
			} else if (i >= 0 && !rc && m->err != RD_KAFKA_RESP_ERR__TRANSPORT &&
			           m->err != RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN) {
				rc = sl_err_set(err, SL_EIO, "source '%s': topic '%s', partition %d: %s",
				                k->base.table, k->splits[i].topic, k->splits[i].part,
				                rd_kafka_message_errstr(m));
			} else {
				fprintf(stderr, "sluice: source '%s': kafka: %s\n", k->base.table,
				        rd_kafka_message_errstr(m));
			}
			rd_kafka_message_destroy(m);
			continue;
		}
		if (i < 0 || k->done[i] || m->offset < k->splits[i].pos) {
			rd_kafka_message_destroy(m); /* not ours, or before the position */
			continue;
		}
		ks_split *sp = &k->splits[i];
		if (sp->head > 0 && sp->n == sp->cap) {
			memmove(sp->buf, sp->buf + sp->head, (size_t)(sp->n - sp->head) * sizeof *sp->buf);
			sp->n -= sp->head;
			sp->head = 0;
		}
		if (sp->n == sp->cap) {
			int cap = sp->cap ? sp->cap * 2 : 64;
			rd_kafka_message_t **nb = realloc(sp->buf, (size_t)cap * sizeof *nb);
			if (!nb) {
				rd_kafka_message_destroy(m);
				if (!rc)
					rc = nomem(k, err);
				continue;
			}
			sp->buf = nb;
			sp->cap = cap;
		}
		sp->buf[sp->n++] = m;
		k->buffered++;
		sp->last_data_us = mono_us();
		k->idle[i] = 0;
	}
	if (!rc && k->fatal[0])
		rc = sl_err_set(err, SL_EIO, "source '%s': kafka: fatal error: %s", k->base.table,
		                k->fatal);
	return rc;
}

/* Drops split i's buffered messages (it is done). */
static void drop_buffer(ks_source *k, int i)
{
	ks_split *sp = &k->splits[i];
	for (int j = sp->head; j < sp->n; j++)
		rd_kafka_message_destroy(sp->buf[j]);
	k->buffered -= sp->n - sp->head;
	sp->head = sp->n = 0;
}

/* Marks idle the splits without data for the idle timeout. */
static void update_idle(ks_source *k)
{
	if (!k->idle_us)
		return;
	int64_t now = mono_us();
	for (int i = 0; i < k->nsplits; i++)
		if (!k->done[i] && k->splits[i].head == k->splits[i].n &&
		    now - k->splits[i].last_data_us >= k->idle_us)
			k->idle[i] = 1;
}

/* The progress of a bounded source (base.bytes_read, read live by the
 * metrics): offsets consumed from each bounded split's start offset. */
static void set_progress(ks_source *k)
{
	if (!k->base.bytes_total)
		return;
	int64_t done = 0;
	for (int i = 0; i < k->nsplits; i++) {
		const ks_split *sp = &k->splits[i];
		if (sp->end != KS_NO_END && sp->pos > sp->first)
			done += (sp->pos < sp->end ? sp->pos : sp->end) - sp->first;
	}
	SL_CTR_SET(k->base.bytes_read, done);
}

/* Decodes split i's buffered messages into out (one split per batch). */
static int read_split2(ks_source *k, int i, sl_batch *out, sl_err *err);

static int read_split(ks_source *k, int i, sl_batch *out, sl_err *err)
{
	int rc = read_split2(k, i, out, err);
	set_progress(k);
	return rc;
}

static int read_split2(ks_source *k, int i, sl_batch *out, sl_err *err)
{
	ks_split *sp = &k->splits[i];
	int rc = 0;
	k->base.split = i;
	while (sp->head < sp->n && !k->done[i]) {
		rd_kafka_message_t *m = sp->buf[sp->head];
		if (m->offset >= sp->end) {
			sp->pos = sp->end;
			break;
		}
		if (m->offset < sp->pos) {
			rd_kafka_message_destroy(m);
		} else {
			if ((rc = decode_msg(k, i, m, out, err)) == SL_EFULL)
				return 0;
			k->live[k->nlive++] = m; /* rows may point into it */
			if (!rc)
				sp->pos = m->offset + 1;
		}
		sp->head++;
		k->buffered--;
		if (rc)
			return rc;
		if (k->nlive == k->live_cap)
			break;
		check_done(k, i);
	}
	check_done(k, i);
	if (k->done[i])
		drop_buffer(k, i);
	return 0;
}

/*
 * Bounded splits whose last offsets before the end hold no message (a
 * transaction's commit marker, a compacted log): every 100 ms, a split
 * with nothing buffered is done once the consumer's position for it (past
 * such offsets) reached its end.
 */
static void check_positions(ks_source *k)
{
	int64_t now = mono_us();
	if (k->bound_mode == BOUND_NONE || now - k->last_pos_check_us < 100000)
		return;
	k->last_pos_check_us = now;
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(k->nsplits + 1);
	for (int i = 0; i < k->nsplits; i++)
		if (!k->done[i] && k->splits[i].head == k->splits[i].n)
			rd_kafka_topic_partition_list_add(l, k->splits[i].topic, k->splits[i].part);
	if (l->cnt && !rd_kafka_position(k->rk, l))
		for (int j = 0; j < l->cnt; j++) {
			int i = split_of(k, l->elems[j].topic, l->elems[j].partition);
			ks_split *sp = i >= 0 ? &k->splits[i] : NULL;
			if (sp && !l->elems[j].err && l->elems[j].offset >= sp->end &&
			    sp->pos < sp->end) {
				sp->pos = sp->end;
				check_done(k, i);
				set_progress(k);
			}
		}
	rd_kafka_topic_partition_list_destroy(l);
}

/* Adds split (topic, part) at offset pos, unbounded, with the per-split
 * arrays grown and the source's view of them (sl_source.split_*) moved. */
static int add_split(ks_source *k, const char *topic, int32_t part, int64_t pos, sl_err *err)
{
	int n = k->nsplits;
	ks_split *sp = realloc(k->splits, ((size_t)n + 2) * sizeof *sp);
	if (sp)
		k->splits = sp;
	uint8_t *dn = realloc(k->done, (size_t)n + 2);
	if (dn)
		k->done = dn;
	uint8_t *id = realloc(k->idle, (size_t)n + 2);
	if (id)
		k->idle = id;
	int64_t *wm = realloc(k->wm, ((size_t)n + 2) * sizeof *wm);
	if (wm)
		k->wm = wm;
	int64_t *sn = realloc(k->snap_pos, ((size_t)n + 2) * sizeof *sn);
	if (sn)
		k->snap_pos = sn;
	k->base.split_done = k->done;
	k->base.split_wm = k->wm;
	k->base.split_idle = k->idle;
	if (!sp || !dn || !id || !wm || !sn)
		return nomem(k, err);
	sp = &k->splits[n];
	memset(sp, 0, sizeof *sp);
	if (!(sp->topic = strdup(topic)))
		return nomem(k, err);
	sp->part = part;
	sp->pos = sp->first = sp->lo = pos;
	sp->end = KS_NO_END;
	sp->last_data_us = mono_us();
	k->done[n] = k->idle[n] = 0;
	k->wm[n] = SL_WM_MIN;
	k->snap_pos[n] = -1; /* not in the last barrier's positions */
	k->nsplits = k->base.nsplits = n + 1;
	return 0;
}

/*
 * Partition discovery ('scan.topic-partition-discovery.interval'): lists
 * the cluster's topics again; every partition of a wanted topic (the
 * pattern's matches, the listed names) that this instance owns (owner())
 * and does not read yet becomes a split read from its earliest offset, as
 * Flink reads partitions discovered after its first listing (FLIP-288:
 * nothing written there is lost).  Its watermark starts at -infinity and
 * joins the source's minimum; it is in the next checkpoint.  A failed
 * listing is reported and tried again at the next interval.  Blocks the
 * job thread for the metadata round trip (and one offsets query per new
 * partition).
 */
static int discover(ks_source *k, sl_err *err)
{
	const struct rd_kafka_metadata *md = NULL;
	rd_kafka_resp_err_t e = rd_kafka_metadata(k->rk, 1, NULL, &md, KS_TIMEOUT_MS);
	if (e) {
		fprintf(stderr, "sluice: source '%s': partition discovery: cannot read the topics' "
		        "metadata: %s\n", k->base.table, SL_KERR(e));
		return 0;
	}
	int n0 = k->nsplits, rc = 0;
	for (int i = 0; i < md->topic_cnt && !rc; i++) {
		const struct rd_kafka_metadata_topic *t = &md->topics[i];
		if (t->err || !wanted(k, t->topic))
			continue;
		for (int j = 0; j < t->partition_cnt && !rc; j++) {
			int32_t part = t->partitions[j].id;
			if (owner(t->topic, part, k->nsub) != k->subtask || !only_wanted(k, part) ||
			    split_of(k, t->topic, part) >= 0)
				continue;
			int64_t lo = 0, hi = 0;
			e = rd_kafka_query_watermark_offsets(k->rk, t->topic, part, &lo, &hi,
			                                     KS_TIMEOUT_MS);
			if (e) { /* the next listing tries again */
				fprintf(stderr, "sluice: source '%s': partition discovery: topic '%s', "
				        "partition %d: cannot read its offsets: %s\n", k->base.table,
				        t->topic, (int)part, SL_KERR(e));
				continue;
			}
			rc = add_split(k, t->topic, part, lo, err);
		}
	}
	rd_kafka_metadata_destroy(md);
	if (rc || k->nsplits == n0)
		return rc;
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(k->nsplits - n0);
	for (int i = n0; i < k->nsplits; i++) {
		fprintf(stderr, "sluice: source '%s': discovered topic '%s' partition %d, read from "
		        "offset %" PRId64 "\n", k->base.table, k->splits[i].topic,
		        (int)k->splits[i].part, k->splits[i].pos);
		rd_kafka_topic_partition_list_add(l, k->splits[i].topic, k->splits[i].part)->offset =
			k->splits[i].pos;
	}
	rd_kafka_error_t *ae = k->assigned ? rd_kafka_incremental_assign(k->rk, l) : NULL;
	rd_kafka_topic_partition_list_destroy(l);
	if (ae) {
		rc = sl_err_set(err, SL_EIO, "source '%s': cannot assign the discovered partitions: "
		                "%s", k->base.table, rd_kafka_error_string(ae));
		rd_kafka_error_destroy(ae);
	}
	return rc;
}

/* At the first read after a restore: a split no restored snapshot held
 * (its partition appeared after that checkpoint) starts at its earliest
 * offset, as a discovered one; Flink's enumerator reads partitions it did
 * not know at the checkpoint from the earliest offset too. */
static void unrestored_from_earliest(ks_source *k)
{
	for (int i = 0; k->restored && i < k->nsplits; i++) {
		ks_split *sp = &k->splits[i];
		if (sp->restored || sp->pos == sp->lo)
			continue;
		fprintf(stderr, "sluice: source '%s': topic '%s' partition %d is not in the restored "
		        "checkpoint: read from its earliest offset %" PRId64 "\n", k->base.table,
		        sp->topic, (int)sp->part, sp->lo);
		sp->pos = sp->first = sp->lo;
		if (k->done[i] && sp->pos < sp->end) {
			k->done[i] = 0;
			k->ndone--;
		}
	}
}

static int ks_read(sl_source *s, sl_batch *out, sl_err *err)
{
	ks_source *k = (ks_source *)s;
	int rows0 = out->nrows, rc = 0;
	k->prov_n = 0;
	release_live(k); /* the previous batch's rows are no longer referenced */
	if (ensure_cap(k, out->cap))
		return nomem(k, err);
	if (!k->started) {
		k->started = 1;
		unrestored_from_earliest(k);
	}
	if (k->disc_us > 0 && mono_us() - k->last_disc_us >= k->disc_us) {
		k->last_disc_us = mono_us();
		if ((rc = discover(k, err)))
			return rc;
	}
	if (k->ndone >= k->nsplits && !(k->disc_us > 0 && k->nsplits == 0))
		return SL_EEOF;
	if (k->nsplits == 0)
		return 0; /* no partition yet: one may be discovered (the scan is idle) */
	if (!k->assigned && (rc = assign(k, err)))
		return rc;
	/* keep at most about two batches' messages buffered */
	if ((rc = pull(k, 2 * out->cap - k->buffered, err)))
		return rc;
	for (int t = 0; t < k->nsplits && out->nrows == rows0; t++) {
		int i = (k->cur + t) % k->nsplits;
		if (k->done[i] || k->splits[i].head == k->splits[i].n)
			continue;
		rc = read_split(k, i, out, err);
		/* the next batch is the next split's turn, unless this one is
		 * left with rows that did not fit */
		k->cur = k->splits[i].head < k->splits[i].n && !rc ? i : (i + 1) % k->nsplits;
		if (rc || out->nrows > rows0)
			break;
	}
	k->prov_n = out->nrows;
	s->rows_read += out->nrows - rows0;
	if (rc)
		return rc;
	if (out->nrows == rows0)
		check_positions(k);
	update_idle(k);
	if (out->nrows > rows0)
		return out->nrows - rows0;
	return k->ndone >= k->nsplits ? SL_EEOF : 0;
}

static void ks_where(sl_source *s, int row, char *buf, size_t cap)
{
	ks_source *k = (ks_source *)s;
	if (row < 0 || row >= k->prov_n) {
		snprintf(buf, cap, "kafka source '%s'", s->table);
		return;
	}
	const ks_split *sp = &k->splits[k->prov_split[row]];
	snprintf(buf, cap, "topic '%s', partition %d, offset %" PRId64, sp->topic, sp->part,
	         k->prov_off[row]);
}

/* ---- checkpoints ---------------------------------------------------------- */

/*
 * Snapshot, version 1: u8 1, u32 splits, then per split: topic (bytes),
 * u32 partition, i64 next offset, i64 end offset (KS_NO_END = unbounded),
 * u8 done, i64 watermark (base.split_wm, kept by the scan).
 */
static int ks_snapshot(sl_source *s, sl_snap_writer *w, sl_err *err)
{
	ks_source *k = (ks_source *)s;
	sl_snap_put_u8(w, KS_SNAP_VERSION);
	sl_snap_put_u32(w, (uint32_t)k->nsplits);
	for (int i = 0; i < k->nsplits; i++) {
		const ks_split *sp = &k->splits[i];
		sl_snap_put_bytes(w, sp->topic, strlen(sp->topic));
		sl_snap_put_u32(w, (uint32_t)sp->part);
		sl_snap_put_i64(w, sp->pos);
		sl_snap_put_i64(w, sp->end);
		sl_snap_put_u8(w, k->done[i]);
		sl_snap_put_i64(w, k->wm[i]);
	}
	if (w->failed)
		return sl_err_set(err, SL_ENOMEM, "source '%s': snapshot: out of memory", s->table);
	return 0;
}

/* Each saved split's position goes to the split with the same (topic,
 * partition); partitions not in the snapshot keep their start offsets. */
static int ks_restore(sl_source *s, sl_snap_reader *r, sl_err *err)
{
	ks_source *k = (ks_source *)s;
	uint8_t ver = sl_snap_get_u8(r);
	if (sl_snap_reader_ok(r) && ver != KS_SNAP_VERSION)
		return sl_err_set(err, SL_ESTATE, "source '%s': kafka snapshot version %d is not "
		                  "supported (this build reads %d)", s->table, ver, KS_SNAP_VERSION);
	uint32_t n = sl_snap_get_u32(r);
	for (uint32_t j = 0; j < n && sl_snap_reader_ok(r); j++) {
		size_t len = 0;
		const char *topic = sl_snap_get_bytes(r, &len);
		int32_t part = (int32_t)sl_snap_get_u32(r);
		int64_t pos = sl_snap_get_i64(r), end = sl_snap_get_i64(r);
		uint8_t done = sl_snap_get_u8(r);
		int64_t wm = sl_snap_get_i64(r);
		if (!sl_snap_reader_ok(r))
			break;
		for (int i = 0; i < k->nsplits; i++) {
			ks_split *sp = &k->splits[i];
			if (sp->part != part || strlen(sp->topic) != len || memcmp(sp->topic, topic, len))
				continue;
			sp->pos = pos;
			sp->end = end;
			sp->restored = 1;
			k->wm[i] = wm;
			if (k->done[i] && !done) {
				k->done[i] = 0;
				k->ndone--;
			}
			if (done && !k->done[i]) {
				k->done[i] = 1;
				k->ndone++;
			}
			check_done(k, i);
		}
	}
	if (!sl_snap_reader_ok(r))
		return sl_err_set(err, SL_ESTATE, "source '%s': damaged kafka snapshot", s->table);
	k->restored = 1;
	/* percent done resumes where the checkpoint was, to the ends it kept */
	int64_t total = 0;
	for (int i = 0; i < k->nsplits; i++)
		if (k->splits[i].end != KS_NO_END && k->splits[i].end > k->splits[i].first)
			total += k->splits[i].end - k->splits[i].first;
	SL_CTR_SET(k->base.bytes_total, total);
	set_progress(k);
	return 0;
}

/* At the barrier (in this process, while the snapshot may be written by a
 * forked child): the positions the checkpoint holds, for commit. */
static int ks_pre_commit(sl_source *s, int64_t ckpt_id, sl_err *err)
{
	ks_source *k = (ks_source *)s;
	for (int i = 0; i < k->nsplits; i++)
		k->snap_pos[i] = k->splits[i].pos;
	k->have_snap = k->nsplits > 0;
	return 0;
}

/*
 * A scale-out child's checkpointed offsets go to its member through the
 * pipe 'scan.commit-fd': one line "TOPIC PARTITION OFFSET\n" per split, written
 * whole (a pipe write of at most PIPE_BUF bytes is atomic) and without
 * waiting: the pipe is non-blocking, and a line the member has not made
 * room for is dropped (the next checkpoint's supersedes it).
 */
static void offsets_to_member(ks_source *k)
{
	for (int i = 0; i < k->nsplits && k->have_snap; i++) {
		char line[320];
		int n = snprintf(line, sizeof line, "%s %d %" PRId64 "\n", k->splits[i].topic,
		                 (int)k->splits[i].part, k->snap_pos[i]);
		if (k->snap_pos[i] >= 0 && write(k->commit_fd, line, (size_t)n) < 0)
			break;
	}
}

/* The offsets of the last barrier go to the group (asynchronously). */
static int ks_commit(sl_source *s, int64_t ckpt_id, sl_err *err)
{
	ks_source *k = (ks_source *)s;
	if (k->commit_fd >= 0)
		offsets_to_member(k);
	if (!k->commit_offsets || !k->have_snap || !k->rk || !k->nsplits)
		return 0;
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(k->nsplits);
	for (int i = 0; i < k->nsplits; i++)
		if (k->snap_pos[i] >= 0) /* -1: discovered after the barrier */
			rd_kafka_topic_partition_list_add(l, k->splits[i].topic, k->splits[i].part)
				->offset = k->snap_pos[i];
	rd_kafka_resp_err_t e = l->cnt ? rd_kafka_commit(k->rk, l, 1) : 0;
	rd_kafka_topic_partition_list_destroy(l);
	if (e)
		fprintf(stderr, "sluice: source '%s': cannot commit the offsets of checkpoint %" PRId64
		        " to the group: %s\n", s->table, ckpt_id, SL_KERR(e));
	return pull(k, 0, err);
}

static void ks_close(sl_source *s)
{
	ks_source *k = (ks_source *)s;
	release_live(k);
	free(k->live);
	free(k->pull);
	for (int i = 0; i < k->nsplits; i++) {
		drop_buffer(k, i);
		free(k->splits[i].buf);
	}
	/* (the pipe stays open: it is the process's, and a source planned
	 * but never opened is closed too) */
	if (k->commit_fd >= 0 && k->rk)
		offsets_to_member(k);
	if (k->rk) {
		/* a bounded job's last commit: synchronous, so the group has it */
		if (k->commit_offsets && k->have_snap && k->nsplits) {
			rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(k->nsplits);
			for (int i = 0; i < k->nsplits; i++)
				if (k->snap_pos[i] >= 0)
					rd_kafka_topic_partition_list_add(l, k->splits[i].topic,
					                                  k->splits[i].part)->offset =
						k->snap_pos[i];
			if (l->cnt)
				rd_kafka_commit(k->rk, l, 0);
			rd_kafka_topic_partition_list_destroy(l);
		}
		if (k->cq)
			rd_kafka_queue_destroy(k->cq);
		rd_kafka_consumer_close(k->rk);
		rd_kafka_destroy(k->rk);
		k->rk = NULL;
	}
	for (int i = 0; i < k->nsplits; i++)
		free(k->splits[i].topic);
	free(k->splits);
	k->splits = NULL;
	k->nsplits = 0;
	s->nsplits = 0;
	s->split_done = NULL;
	s->split_wm = NULL;
	s->split_idle = NULL;
	free(k->done);
	free(k->idle);
	free(k->wm);
	free(k->snap_pos);
	free(k->prov_split);
	free(k->prov_off);
	free(k->meta);
	sl_buf_deinit(&k->hdrs);
	free(k->spec_part);
	free(k->only);
	free(k->spec_off);
	free(k->bspec_part);
	free(k->bspec_off);
	if (k->pattern)
		pcre2_code_free(k->pattern);
	sl__kafka_free_strv(k->topics, k->ntopics);
	sl__kafka_props_free(&k->props);
	sl__kafka_fmt_deinit(&k->fmt);
	s->dec = NULL;
}

/* The live metrics' name of split i (docs/observability.md). */
static void ks_split_name(sl_source *s, int i, char *buf, size_t cap)
{
	ks_source *k = (ks_source *)s;
	snprintf(buf, cap, "topic '%s' partition %d", k->splits[i].topic, (int)k->splits[i].part);
}

const sl_source_vtab sl_kafka_source_vtab = {
	.name = "kafka",
	.size = sizeof(ks_source),
	.configure = ks_configure,
	.open = ks_open,
	.read = ks_read,
	.where = ks_where,
	.snapshot = ks_snapshot,
	.restore = ks_restore,
	.commit = ks_commit,
	.pre_commit = ks_pre_commit,
	.close = ks_close,
	.metadata_keys = sl__ks_meta_keys,
	.split_name = ks_split_name,
};

const sl_source_vtab sl_upsert_kafka_source_vtab = {
	.name = "upsert-kafka",
	.size = sizeof(ks_source),
	.configure = uks_configure,
	.open = ks_open,
	.read = ks_read,
	.where = ks_where,
	.snapshot = ks_snapshot,
	.restore = ks_restore,
	.commit = ks_commit,
	.pre_commit = ks_pre_commit,
	.close = ks_close,
	.metadata_keys = sl__ks_meta_keys,
	.split_name = ks_split_name,
};
