/*
 * conn_kafka_source_opts.c - configure of the 'kafka' and 'upsert-kafka'
 * sources (conn_kafka.c has the rest; conn_kafka_source.h the shared
 * structures): Flink 1.20's options read into a ks_source at planning, with
 * no I/O: 'topic' (one or a ';' list) or 'topic-pattern', 'properties.*',
 * 'scan.startup.mode' with its timestamp and specific offsets,
 * 'scan.bounded.mode' with its timestamp and specific offsets,
 * 'scan.partitions' (the scale-out's children), the idle timeout, partition
 * discovery, the key and value formats (conn_kafka_common.c) and the
 * METADATA columns.  Each error names the table and the option.
 */
#include "conn_kafka_source.h"
#include "sluice.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const sl__ks_meta_keys[] = {"topic", "partition", "offset", "timestamp",
                                           "timestamp-type", "headers", NULL};

/* ---- configure ------------------------------------------------------------ */

/* 'partition:0,offset:42;partition:1,offset:300' (option key) into
 * *np pairs ((*part)[i], (*offs)[i]). */
static int parse_specific(ks_source *k, const char *s, const char *key, int *np,
                          int32_t **part, int64_t **offs, sl_err *err)
{
	int cap = 1;
	for (const char *c = s; *c; c++)
		cap += *c == ';';
	*part = calloc((size_t)cap, sizeof(int32_t));
	*offs = calloc((size_t)cap, sizeof(int64_t));
	if (!*part || !*offs)
		return nomem(k, err);
	const char *c = s;
	while (*c) {
		int p, used = 0;
		long long off;
		while (*c == ' ' || *c == ';')
			c++;
		if (!*c)
			break;
		if (sscanf(c, "partition:%d,offset:%lld%n", &p, &off, &used) != 2 || p < 0 || off < 0)
			return sl_err_set(err, SL_EINVAL, "source '%s': Invalid properties for option "
			                  "'%s': '%s'. The format is "
			                  "'partition:0,offset:42;partition:1,offset:300'.",
			                  k->base.table, key, s);
		(*part)[*np] = p;
		(*offs)[(*np)++] = off;
		c += used;
		while (*c == ' ')
			c++;
		if (*c && *c != ';')
			return sl_err_set(err, SL_EINVAL, "source '%s': Invalid properties for option "
			                  "'%s': '%s'. The format is "
			                  "'partition:0,offset:42;partition:1,offset:300'.",
			                  k->base.table, key, s);
	}
	return 0;
}

static int ts_option(ks_source *k, const sl_opts *o, const char *key, const char *mode,
                     int64_t *out, sl_err *err)
{
	const char *v = sl_opts_get(o, key);
	if (!v)
		return sl_err_set(err, SL_EINVAL, "source '%s': '%s' is required in '%s' %s mode "
		                  "but missing.", k->base.table, key, "timestamp", mode);
	char *end;
	long long t = strtoll(v, &end, 10);
	if (end == v || *end || t < 0)
		return sl_err_set(err, SL_EINVAL, "source '%s': option '%s' must be milliseconds "
		                  "since the epoch, not '%s'", k->base.table, key, v);
	*out = t;
	return 0;
}

/* The metadata columns: known keys and Flink's types. */
/* 'scan.partitions' (sluice extension): a ',' list of partition numbers
 * of the topic; only those are read (the scale-out's children,
 * docs/kafka.md "Several processes, one job"). */
static int parse_only(ks_source *k, const char *v, sl_err *err)
{
	int n = 1;
	for (const char *c = v; *c; c++)
		n += *c == ',';
	if (!(k->only = calloc((size_t)n, sizeof *k->only)))
		return nomem(k, err);
	const char *c = v;
	for (int i = 0; i < n; i++) {
		char *end;
		long x = strtol(c, &end, 10);
		while (*end == ' ')
			end++;
		if (end == c || x < 0 || x > INT32_MAX || (*end && *end != ','))
			return sl_err_set(err, SL_EINVAL, "source '%s': option 'scan.partitions' = "
			                  "'%s': expected partition numbers separated by ','",
			                  k->base.table, v);
		k->only[k->nonly++] = (int32_t)x;
		c = end + (*end == ',');
	}
	return 0;
}
static int check_meta(ks_source *k, const sl_conn_args *a, sl_err *err)
{
	k->meta = malloc(((size_t)a->nfields + 1) * sizeof(int));
	if (!k->meta)
		return nomem(k, err);
	for (int i = 0; i < a->nfields; i++) {
		k->meta[i] = -1;
		const char *m = a->meta ? a->meta[i] : NULL;
		if (!m)
			continue;
		int j = 0;
		while (sl__ks_meta_keys[j] && strcmp(sl__ks_meta_keys[j], m))
			j++;
		if (!sl__ks_meta_keys[j])
			return sl_err_set(err, SL_EINVAL, "source '%s': Invalid metadata key '%s' in "
			                  "column '%s'. The connector supports the following metadata "
			                  "keys for reading: topic, partition, offset, timestamp, "
			                  "timestamp-type, headers", a->table, m, a->fields[i].name);
		sl_type t = a->fields[i].type;
		int ok = j == META_PARTITION ? t.id == SL_T_INT
		       : j == META_OFFSET ? t.id == SL_T_BIGINT
		       : j == META_TIMESTAMP ? t.id == SL_T_TIMESTAMP_LTZ
		       : j == META_HEADERS ? t.id == SL_T_MAP && t.row &&
		                                 sl_type_is_string(sl_type_map_key(t)) &&
		                                 sl_type_is_binary(sl_type_map_value(t))
		       : t.id == SL_T_VARCHAR || t.id == SL_T_CHAR;
		static const char *const want[] = {"STRING", "INT", "BIGINT", "TIMESTAMP_LTZ(3)",
		                                   "STRING", "MAP<STRING, BYTES>"};
		if (!ok) {
			char tb[64];
			return sl_err_set(err, SL_EINVAL, "source '%s': metadata column '%s' (key '%s') "
			                  "must be %s, not %s", a->table, a->fields[i].name, m, want[j],
			                  sl_type_format(t, tb, sizeof tb));
		}
		k->meta[i] = j;
	}
	return 0;
}

int sl__ks_configure_any(sl_source *s, const sl_conn_args *a, int upsert, sl_err *err)
{
	ks_source *k = (ks_source *)s;
	const sl_opts *o = a->opts;
	const char *what = upsert ? "upsert-kafka" : "kafka";
	k->upsert = upsert;
	k->cur = 0;
	k->subtask = a->subtask;
	k->commit_fd = -1;
	k->nsub = a->nsubtasks > 0 ? a->nsubtasks : 1;
	k->nfields = a->nfields;
	const char *topic = sl_opts_get(o, "topic");
	const char *pat = upsert ? NULL : sl_opts_get(o, "topic-pattern");
	if (topic && pat)
		return sl_err_set(err, SL_EINVAL, "source '%s': Option 'topic' and 'topic-pattern' "
		                  "shouldn't be set together.", a->table);
	if (!topic && !pat)
		return sl_err_set(err, SL_EINVAL, upsert ? "source '%s': Missing required options "
		                  "are:\n\ntopic" : "source '%s': Either 'topic' or 'topic-pattern' "
		                  "must be set.", a->table);
	if (topic && sl__kafka_topics(topic, &k->topics, &k->ntopics, "source", a->table, err))
		return err->code;
	if (pat) {
		int ec;
		PCRE2_SIZE eo;
		k->pattern = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_ANCHORED |
		                           PCRE2_ENDANCHORED, &ec, &eo, NULL);
		if (!k->pattern) {
			char m[256];
			pcre2_get_error_message(ec, (PCRE2_UCHAR *)m, sizeof m);
			return sl_err_set(err, SL_EINVAL, "source '%s': option 'topic-pattern' '%s': %s "
			                  "at offset %zu", a->table, pat, m, (size_t)eo);
		}
	}
	static const char *const skip[] = {"commit.offsets.on.checkpoint",
	                                   "partition.discovery.interval.ms", NULL};
	if (sl__kafka_props_read(&k->props, a, "source", skip, err))
		return err->code;
	int commit = 1;
	if (sl_opts_bool(o, "properties.commit.offsets.on.checkpoint", 1, &commit, err))
		return err->code;
	k->commit_offsets = commit && sl__kafka_prop(&k->props, "group.id");
	const char *sm = upsert ? NULL : sl_opts_get(o, "scan.startup.mode");
	k->start_mode = upsert ? START_EARLIEST : START_GROUP;
	if (sm) {
		static const char *const names[] = {"earliest-offset", "latest-offset",
		                                    "group-offsets", "timestamp", "specific-offsets"};
		int m = 0;
		while (m < 5 && strcmp(sm, names[m]))
			m++;
		if (m == 5)
			return sl_err_set(err, SL_EINVAL, "source '%s': Invalid value for option "
			                  "'scan.startup.mode'. Expected one of [earliest-offset, "
			                  "latest-offset, group-offsets, timestamp, specific-offsets], "
			                  "but is '%s'.", a->table, sm);
		k->start_mode = m;
	}
	if (k->start_mode == START_GROUP && !sl__kafka_prop(&k->props, "group.id"))
		return sl_err_set(err, SL_EINVAL, "source '%s': 'properties.group.id' is required "
		                  "with 'scan.startup.mode' = 'group-offsets'%s", a->table,
		                  sm ? "" : " (the default mode)");
	if (k->start_mode == START_TIMESTAMP &&
	    ts_option(k, o, "scan.startup.timestamp-millis", "startup", &k->start_ts_ms, err))
		return err->code;
	if (k->start_mode == START_SPECIFIC) {
		const char *so = sl_opts_get(o, "scan.startup.specific-offsets");
		if (!so)
			return sl_err_set(err, SL_EINVAL, "source '%s': 'scan.startup.specific-offsets' "
			                  "is required in 'specific-offsets' startup mode but missing.",
			                  a->table);
		if (k->ntopics != 1)
			return sl_err_set(err, SL_EINVAL, "source '%s': 'specific-offsets' startup mode "
			                  "needs exactly one 'topic'", a->table);
		if (parse_specific(k, so, "scan.startup.specific-offsets", &k->nspec, &k->spec_part,
		                   &k->spec_off, err))
			return err->code;
	}
	const char *bm = sl_opts_get(o, "scan.bounded.mode");
	k->bound_mode = BOUND_NONE;
	if (bm) {
		static const char *const names[] = {"unbounded", "latest-offset", "timestamp",
		                                    "group-offsets", "specific-offsets"};
		int m = 0;
		while (m < 5 && strcmp(bm, names[m]))
			m++;
		if (m == 5)
			return sl_err_set(err, SL_EINVAL, "source '%s': Invalid value for option "
			                  "'scan.bounded.mode'. Expected one of [latest-offset, "
			                  "group-offsets, timestamp, specific-offsets, unbounded], but "
			                  "is '%s'.", a->table, bm);
		k->bound_mode = m;
		if (m == BOUND_GROUP && !sl__kafka_prop(&k->props, "group.id"))
			return sl_err_set(err, SL_EINVAL, "source '%s': 'properties.group.id' is "
			                  "required with 'scan.bounded.mode' = 'group-offsets'", a->table);
	}
	if (k->bound_mode == BOUND_TIMESTAMP &&
	    ts_option(k, o, "scan.bounded.timestamp-millis", "bounded", &k->bound_ts_ms, err))
		return err->code;
	if (k->bound_mode == BOUND_SPECIFIC) {
		const char *so = sl_opts_get(o, "scan.bounded.specific-offsets");
		if (!so)
			return sl_err_set(err, SL_EINVAL, "source '%s': 'scan.bounded.specific-offsets' "
			                  "is required in 'specific-offsets' bounded mode but missing.",
			                  a->table);
		if (k->ntopics != 1)
			return sl_err_set(err, SL_EINVAL, "source '%s': 'specific-offsets' bounded mode "
			                  "needs exactly one 'topic'", a->table);
		if (parse_specific(k, so, "scan.bounded.specific-offsets", &k->nbspec,
		                   &k->bspec_part, &k->bspec_off, err))
			return err->code;
	}
	if (sl_opts_duration(o, "scan.watermark.idle-timeout", 0, &k->idle_us, err))
		return err->code;
	/* partition discovery (Flink 1.20's Kafka connector, FLIP-288): every
	 * 5 minutes by default, off with '0' or a negative interval, and off
	 * in the bounded modes and with 'scan.partitions' (a scale-out child:
	 * its member's consumer group sees new partitions) */
	const char *disc = sl_opts_get(o, "scan.topic-partition-discovery.interval");
	k->disc_us = 300 * INT64_C(1000000);
	if (disc && disc[0] == '-')
		k->disc_us = 0;
	else if (disc && sl_parse_duration(disc, &k->disc_us))
		return sl_err_set(err, SL_EINVAL, "source '%s': option "
		                  "'scan.topic-partition-discovery.interval' = '%s' is not a "
		                  "duration", a->table, disc);
	const char *parts = sl_opts_get(o, "scan.partitions");
	if (parts && parse_only(k, parts, err))
		return err->code;
	/* 'scan.commit-fd' (sluice internal, set by plan_job.c in a scale-out
	 * child): a checkpoint's offsets go to this pipe, its member commits
	 * them to the group (docs/kafka.md "Several processes, one job") */
	const char *cfd = sl_opts_get(o, "scan.commit-fd");
	k->commit_fd = cfd ? atoi(cfd) : -1;
	if (k->bound_mode != BOUND_NONE || k->only)
		k->disc_us = 0;
	if (check_meta(k, a, err))
		return err->code;
	int rc = sl__kafka_fmt_init(&k->fmt, a, upsert, 0, err);
	if (rc)
		return rc;
	s->dec = k->fmt.vdec;
	if (upsert)
		s->changelog = "upsert-kafka";
	(void)what;
	return 0;
}
