/*
 * http_json.c - the REST answers under /jobs, shaped like Flink's REST
 * API (docs/observability.md, "REST"), from one metrics snapshot.
 *
 *   /jobs                                {"jobs": [{"id", "status"}]}
 *   /jobs/overview                       {"jobs": [{"jid", "name", "state",
 *                                         "start-time", "end-time", "duration"}]}
 *   /jobs/<jid>                          the job: "vertices" (one per operator:
 *                                         id, name, parallelism, metrics, and,
 *                                         a sluice addition, "subtasks" with
 *                                         each instance's figures), "plan"
 *                                         (nodes with their inputs and ship
 *                                         strategies) and, a sluice addition,
 *                                         "edges" with their backpressure
 *   /jobs/<jid>/checkpoints              counts and the latest completed one
 *   /jobs/<jid>/vertices/<v>/watermarks  [{"id": "<i>.currentInputWatermark",
 *                                         "value": "<ms>"}] per instance
 *
 * <jid> is the job id (sl_http_job_id) or the job's name.  Flink's
 * vertices are chains of operators; sluice's are operators (an operator
 * id is EXPLAIN's and --stats' #N).  Times are milliseconds since the
 * epoch, watermarks too, with Flink's values for none (Long.MIN_VALUE)
 * and for the end of input (Long.MAX_VALUE).  Checkpoint history holds
 * the newest SL_CKPT_HISTORY checkpoints and savepoints, completed and
 * failed, newest first as in Flink.
 */
#include "http.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *state_name(int st)
{
	static const char *const n[] = {"NONE", "CREATED", "RUNNING", "FINISHED", "FAILED",
	                                "CANCELED"};
	return st >= 0 && st <= SL_JOB_CANCELED ? n[st] : "UNKNOWN";
}

void sl_http_json_str(sl_buf *out, const char *s)
{
	sl_buf_putc(out, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			sl_buf_printf(out, "\\%c", *p);
		else if (*p < 0x20)
			sl_buf_printf(out, "\\u%04x", *p);
		else
			sl_buf_putc(out, (char)*p);
	}
	sl_buf_putc(out, '"');
}

void sl_http_job_id(const sl_metrics *m, char out[33])
{
	uint64_t h1 = 1469598103934665603ull, h2 = (uint64_t)m->start_us * 0x9E3779B97F4A7C15ull;
	for (const unsigned char *p = (const unsigned char *)m->job; *p; p++) {
		h1 = (h1 ^ *p) * 1099511628211ull;
		h2 = (h2 ^ *p) * 0xff51afd7ed558ccdull;
	}
	h1 ^= (uint64_t)m->start_us;
	snprintf(out, 33, "%016" PRIx64 "%016" PRIx64, h1, h2);
}

static long long wm_ms(int64_t wm)
{
	if (wm == SL_WM_NONE)
		return INT64_MIN;
	if (wm == SL_WM_END)
		return INT64_MAX;
	return (long long)(wm / 1000);
}

static const char *role_name(int role)
{
	return role == SL_ROLE_SOURCE ? "source" : role == SL_ROLE_SINK ? "sink" : "operator";
}

/* The end of operator node's instances in m starting at i. */
static int node_end(const sl_metrics *m, int i)
{
	int k = i;
	while (k < m->nops && m->ops[k].node == m->ops[i].node)
		k++;
	return k;
}

static void vertex(const sl_metrics *m, int i, int end, sl_buf *out)
{
	const sl_metric_op *o = &m->ops[i];
	long long in = 0, outr = 0, late = 0, bread = 0, btotal = 0, state = 0;
	double rin = 0, rout = 0;
	int64_t in_wm = SL_WM_END, out_wm = SL_WM_END;
	for (int k = i; k < end; k++) {
		in += m->ops[k].rows_in;
		outr += m->ops[k].rows_out;
		late += m->ops[k].late_dropped;
		bread += m->ops[k].bytes_read;
		state += m->ops[k].state_bytes;
		btotal += m->ops[k].bytes_total;
		rin += m->ops[k].rows_in_per_s;
		rout += m->ops[k].rows_out_per_s;
		if (m->ops[k].in_wm < in_wm)
			in_wm = m->ops[k].in_wm;
		if (m->ops[k].out_wm < out_wm)
			out_wm = m->ops[k].out_wm;
	}
	char name[200];
	if (o->table[0])
		snprintf(name, sizeof(name), "%s: %s", o->role == SL_ROLE_SINK ? "Sink" : "Source",
		         o->table);
	else
		snprintf(name, sizeof(name), "%s", o->name);
	sl_buf_printf(out, "{\"id\":\"%d\",\"name\":", o->node);
	sl_http_json_str(out, name);
	sl_buf_printf(out, ",\"operator\":");
	sl_http_json_str(out, o->name);
	sl_buf_printf(out, ",\"role\":\"%s\",\"table\":", role_name(o->role));
	sl_http_json_str(out, o->table);
	sl_buf_printf(out, ",\"parallelism\":%d,\"status\":\"%s\",\"start-time\":%lld,"
	              "\"metrics\":{\"read-records\":%lld,\"write-records\":%lld,"
	              "\"read-records-complete\":true,\"write-records-complete\":true,"
	              "\"numRecordsInPerSecond\":%.3f,\"numRecordsOutPerSecond\":%.3f,"
	              "\"numLateRecordsDropped\":%lld,\"currentInputWatermark\":%lld,"
	              "\"currentOutputWatermark\":%lld,\"sourceBytesRead\":%lld,"
	              "\"sourceBytesTotal\":%lld,\"state-size\":%lld},\"subtasks\":[",
	              o->parallelism, state_name(m->status), (long long)(m->start_us / 1000), in,
	              outr, rin, rout, late, wm_ms(in_wm), wm_ms(out_wm), bread, btotal, state);
	for (int k = i; k < end; k++) {
		const sl_metric_op *s = &m->ops[k];
		sl_buf_printf(out, "%s{\"subtask\":%d,\"numRecordsIn\":%lld,\"numRecordsOut\":%lld,"
		              "\"numRecordsInPerSecond\":%.3f,\"numRecordsOutPerSecond\":%.3f,"
		              "\"numLateRecordsDropped\":%lld,\"numLateRecordsDiverted\":%lld,"
		              "\"numLateRecordsCorrected\":%lld,\"numRecordsSkipped\":%lld,"
		              "\"currentInputWatermark\":%lld,\"currentOutputWatermark\":%lld,"
		              "\"stateSize\":%lld,\"stateEntries\":%lld,"
		              "\"numLateRecordsDroppedLastMinute\":%lld}",
		              k > i ? "," : "", s->instance, (long long)s->rows_in,
		              (long long)s->rows_out, s->rows_in_per_s, s->rows_out_per_s,
		              (long long)s->late_dropped, (long long)s->late_diverted,
		              (long long)s->late_corrected, (long long)s->rows_skipped,
		              wm_ms(s->in_wm), wm_ms(s->out_wm), (long long)s->state_bytes,
		              (long long)s->state_entries, (long long)s->late_last_minute);
	}
	sl_buf_puts(out, "]}");
}

static void job(const sl_metrics *m, const char *jid, sl_buf *out)
{
	long long now = (long long)(m->now_us / 1000), start = (long long)(m->start_us / 1000);
	sl_buf_printf(out, "{\"jid\":\"%s\",\"name\":", jid);
	sl_http_json_str(out, m->job);
	sl_buf_printf(out, ",\"isStoppable\":false,\"state\":\"%s\",\"start-time\":%lld,"
	              "\"end-time\":-1,\"duration\":%lld,\"now\":%lld,\"maxParallelism\":-1,"
	              "\"parallelism\":%d,\"vertices\":[", state_name(m->status), start, now - start,
	              now, m->parallelism);
	for (int i = 0, first = 1; i < m->nops; first = 0) {
		int end = node_end(m, i);
		if (!first)
			sl_buf_putc(out, ',');
		vertex(m, i, end, out);
		i = end;
	}
	sl_buf_printf(out, "],\"plan\":{\"jid\":\"%s\",\"name\":", jid);
	sl_http_json_str(out, m->job);
	sl_buf_puts(out, ",\"nodes\":[");
	for (int i = 0, first = 1; i < m->nops; first = 0) {
		int end = node_end(m, i);
		const sl_metric_op *o = &m->ops[i];
		sl_buf_printf(out, "%s{\"id\":\"%d\",\"parallelism\":%d,\"operator\":", first ? "" : ",",
		              o->node, o->parallelism);
		sl_http_json_str(out, o->name);
		sl_buf_puts(out, ",\"description\":");
		char d[200];
		snprintf(d, sizeof(d), "%s%s%s", o->name, o->table[0] ? " " : "", o->table);
		sl_http_json_str(out, d);
		sl_buf_puts(out, ",\"inputs\":[");
		for (int e = 0, n = 0; e < m->nedges; e++)
			if (m->edges[e].to == o->node)
				sl_buf_printf(out, "%s{\"num\":%d,\"id\":\"%d\",\"ship_strategy\":\"%s\","
				              "\"exchange\":\"%s\"}", n++ ? "," : "", m->edges[e].input,
				              m->edges[e].from, m->edges[e].ship,
				              m->edges[e].channels ? "pipelined_bounded" : "chained");
		sl_buf_puts(out, "]}");
		i = end;
	}
	sl_buf_puts(out, "]},\"edges\":[");
	for (int e = 0; e < m->nedges; e++) {
		const sl_metric_edge *x = &m->edges[e];
		sl_buf_printf(out, "%s{\"from\":\"%d\",\"to\":\"%d\",\"input\":%d,\"ship_strategy\":"
		              "\"%s\",\"channels\":%d,\"messages\":%lld,\"backPressuredTimeMs\":%.3f}",
		              e ? "," : "", x->from, x->to, x->input, x->ship, x->channels,
		              (long long)x->messages, (double)x->blocked_ns / 1e6);
	}
	sl_buf_puts(out, "]}");
}

/* One checkpoint as in Flink's history (plus blocked_ms, sluice's). */
static void ckpt_entry(const sl_metric_ckpt *c, sl_buf *out)
{
	long long trig = (long long)(c->trigger_us / 1000),
	          end = (long long)((c->trigger_us + c->duration_us) / 1000);
	sl_buf_printf(out, "{\"className\":\"%s\",\"id\":%lld,\"status\":\"%s\","
	              "\"is_savepoint\":%s,\"checkpoint_type\":\"%s\",\"trigger_timestamp\":%lld,"
	              "\"latest_ack_timestamp\":%lld,\"end_to_end_duration\":%lld,"
	              "\"state_size\":%lld,\"checkpointed_size\":%lld,\"blocked_ms\":%.3f",
	              c->status == 1 ? "completed" : "failed", (long long)c->id,
	              c->status == 1 ? "COMPLETED" : "FAILED", c->savepoint ? "true" : "false",
	              c->savepoint ? "SAVEPOINT" : "CHECKPOINT", trig, c->status == 1 ? end : -1,
	              (long long)(c->duration_us / 1000), (long long)c->size, (long long)c->size,
	              (double)c->blocked_us / 1e3);
	if (c->status != 1)
		sl_buf_printf(out, ",\"failure_timestamp\":%lld", end);
	sl_buf_putc(out, '}');
}

/* The newest checkpoint of the history with this status and kind; NULL: none. */
static const sl_metric_ckpt *newest(const sl_metrics *m, int status, int savepoint)
{
	for (int i = m->nckpts - 1; i >= 0; i--)
		if (m->ckpts[i].status == status && (savepoint < 0 || m->ckpts[i].savepoint == savepoint))
			return &m->ckpts[i];
	return NULL;
}

static void checkpoints(const sl_metrics *m, sl_buf *out)
{
	long long done = (long long)m->ckpt_completed, failed = (long long)m->ckpt_failed;
	sl_buf_printf(out, "{\"counts\":{\"restored\":0,\"total\":%lld,\"in_progress\":0,"
	              "\"completed\":%lld,\"failed\":%lld},\"latest\":{",
	              done + failed, done, failed);
	static const char *const key[] = {"completed", "savepoint", "failed"};
	for (int k = 0; k < 3; k++) {
		const sl_metric_ckpt *c = k == 0 ? newest(m, 1, 0) : k == 1 ? newest(m, 1, 1)
		                                                             : newest(m, 2, -1);
		sl_buf_printf(out, "\"%s\":", key[k]);
		if (c)
			ckpt_entry(c, out);
		else
			sl_buf_puts(out, "null");
		sl_buf_putc(out, ',');
	}
	sl_buf_puts(out, "\"restored\":null},\"history\":[");
	for (int i = m->nckpts - 1; i >= 0; i--) {
		if (i < m->nckpts - 1)
			sl_buf_putc(out, ',');
		ckpt_entry(&m->ckpts[i], out);
	}
	sl_buf_puts(out, "]}");
}

static void watermarks(const sl_metrics *m, int node, sl_buf *out)
{
	sl_buf_putc(out, '[');
	int n = 0;
	for (int i = 0; i < m->nops; i++) {
		const sl_metric_op *o = &m->ops[i];
		if (o->node != node)
			continue;
		sl_buf_printf(out, "%s{\"id\":\"%d.currentInputWatermark\",\"value\":\"%lld\"},"
		              "{\"id\":\"%d.currentOutputWatermark\",\"value\":\"%lld\"}",
		              n++ ? "," : "", o->instance, wm_ms(o->in_wm), o->instance,
		              wm_ms(o->out_wm));
	}
	sl_buf_putc(out, ']');
}

static int not_found(sl_buf *out, const char *what)
{
	sl_buf_puts(out, "{\"errors\":[");
	sl_http_json_str(out, what);
	sl_buf_puts(out, "]}");
	return 404;
}

/* 1 when seg (len n) names m's job: its id or its name. */
static int is_job(const sl_metrics *m, const char *jid, const char *seg, size_t n)
{
	return (n == strlen(jid) && !memcmp(seg, jid, n)) ||
	       (n == strlen(m->job) && !memcmp(seg, m->job, n));
}

int sl_http_json(const sl_metrics *m, const char *path, sl_buf *out)
{
	char jid[33];
	sl_http_job_id(m, jid);
	int has = m->status != SL_JOB_NONE;
	if (!strcmp(path, "/jobs") || !strcmp(path, "/jobs/")) {
		sl_buf_puts(out, "{\"jobs\":[");
		if (has)
			sl_buf_printf(out, "{\"id\":\"%s\",\"status\":\"%s\"}", jid,
			              state_name(m->status));
		sl_buf_puts(out, "]}");
		return 200;
	}
	if (!strcmp(path, "/jobs/overview")) {
		sl_buf_puts(out, "{\"jobs\":[");
		if (has) {
			long long start = (long long)(m->start_us / 1000);
			sl_buf_printf(out, "{\"jid\":\"%s\",\"name\":", jid);
			sl_http_json_str(out, m->job);
			sl_buf_printf(out, ",\"state\":\"%s\",\"start-time\":%lld,\"end-time\":-1,"
			              "\"duration\":%lld,\"last-modification\":%lld}",
			              state_name(m->status), start, (long long)(m->now_us / 1000) - start,
			              (long long)(m->now_us / 1000));
		}
		sl_buf_puts(out, "]}");
		return 200;
	}
	if (strncmp(path, "/jobs/", 6) || !has)
		return not_found(out, "Not found: no such job");
	const char *seg = path + 6, *slash = strchr(seg, '/');
	size_t n = slash ? (size_t)(slash - seg) : strlen(seg);
	if (!is_job(m, jid, seg, n))
		return not_found(out, "Not found: no such job");
	const char *rest = slash ? slash : "";
	if (!*rest || !strcmp(rest, "/")) {
		job(m, jid, out);
		return 200;
	}
	if (!strcmp(rest, "/checkpoints")) {
		checkpoints(m, out);
		return 200;
	}
	if (!strncmp(rest, "/vertices/", 10)) {
		char *end;
		long v = strtol(rest + 10, &end, 10);
		if (end != rest + 10 && !strcmp(end, "/watermarks"))
			for (int i = 0; i < m->nops; i++)
				if (m->ops[i].node == v) {
					watermarks(m, (int)v, out);
					return 200;
				}
	}
	return not_found(out, "Not found: no such resource");
}
