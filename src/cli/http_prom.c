/*
 * http_prom.c - /metrics: a metrics snapshot (sl_metrics) in the
 * Prometheus text exposition format, version 0.0.4
 * (docs/observability.md, "Prometheus").
 *
 * Names.  Each metric is Flink's metric of that meaning (numRecordsIn,
 * currentOutputWatermark, lastCheckpointDuration, ...) written the way
 * Prometheus names metrics, because `promtool check metrics` rejects
 * camelCase: "sluice_" + Flink's name in snake_case, base units (seconds,
 * bytes) with their suffix, and "_total" on counters.  The HELP line
 * names Flink's metric.  Labels are those of Flink's Prometheus reporter:
 * job_name, operator_id, operator_name, subtask_index (and table, for
 * sources and sinks); an edge's figures carry the ids of its two
 * operators and its ship strategy.  Watermarks are seconds since the
 * epoch (-Inf before the first, +Inf once the input ended).
 *
 * Every family is written once, HELP and TYPE first, then one sample per
 * operator instance or edge; label values are escaped as the format says
 * (backslash, double quote, newline).  The output passes `promtool check
 * metrics` (tests/integration/http.sh).
 */
#include "http.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { F_COUNTER, F_GAUGE };
enum { ON_ALL, ON_SOURCE, ON_SINK, ON_WINDOWED, ON_OPERATOR };

/* One family of per-operator samples. */
typedef struct fam {
	const char *name, *flink, *help;
	int type, on;
	int field; /* which figure: see op_value */
} fam;

enum { V_IN, V_OUT, V_IN_RATE, V_OUT_RATE, V_IN_WM, V_OUT_WM, V_LATE, V_DIVERTED, V_CORRECTED,
       V_SKIPPED, V_STATE_BYTES, V_STATE_ENTRIES, V_LATE_MINUTE };

static const fam op_fams[] = {
	{"sluice_num_records_in_total", "numRecordsIn", "rows received", F_COUNTER, ON_ALL, V_IN},
	{"sluice_num_records_out_total", "numRecordsOut", "rows emitted", F_COUNTER, ON_ALL, V_OUT},
	{"sluice_num_records_in_per_second", "numRecordsInPerSecond",
	 "rows received per second over the last 1-2 s", F_GAUGE, ON_ALL, V_IN_RATE},
	{"sluice_num_records_out_per_second", "numRecordsOutPerSecond",
	 "rows emitted per second over the last 1-2 s", F_GAUGE, ON_ALL, V_OUT_RATE},
	{"sluice_current_input_watermark_seconds", "currentInputWatermark",
	 "the minimum watermark of the operator's inputs, seconds since the epoch", F_GAUGE,
	 ON_ALL, V_IN_WM},
	{"sluice_current_output_watermark_seconds", "currentOutputWatermark",
	 "the last watermark the operator emitted, seconds since the epoch", F_GAUGE, ON_ALL,
	 V_OUT_WM},
	{"sluice_num_late_records_dropped_total", "numLateRecordsDropped",
	 "rows dropped as late (once per row)", F_COUNTER, ON_WINDOWED, V_LATE},
	{"sluice_num_late_records_diverted_total", "(sluice) ON LATE INSERT INTO",
	 "late rows written to the ON LATE INSERT INTO table", F_COUNTER, ON_WINDOWED, V_DIVERTED},
	{"sluice_num_late_records_corrected_total", "(sluice) ALLOWED LATENESS",
	 "late rows that corrected an emitted window", F_COUNTER, ON_WINDOWED, V_CORRECTED},
	{"sluice_num_records_skipped_total", "(sluice) ignore-parse-errors",
	 "bad input rows skipped", F_COUNTER, ON_SOURCE, V_SKIPPED},
	{"sluice_num_late_records_dropped_last_minute", "(sluice) late rows of the last minute",
	 "rows dropped as late in the last minute", F_GAUGE, ON_WINDOWED, V_LATE_MINUTE},
	{"sluice_state_size_bytes", "stateSize (RocksDB: rocksdb.estimate-live-data-size)",
	 "the operator instance's state: memory backend, bytes of its tables; RocksDB, the "
	 "SST bytes of its key ranges plus its write-back cache (published by its thread, "
	 "at most 0.25 s old)", F_GAUGE, ON_OPERATOR, V_STATE_BYTES},
	{"sluice_state_entries", "rocksdb.estimate-num-keys",
	 "entries of the operator instance's state tables", F_GAUGE, ON_OPERATOR,
	 V_STATE_ENTRIES},
};

/* 1 when the operator of o had a late counter move, or is of a kind that
 * judges lateness: reported for every instance of such an operator. */
static int windowed(const sl_metrics *m, int node)
{
	for (int i = 0; i < m->nops; i++)
		if (m->ops[i].node == node &&
		    (m->ops[i].late_dropped || m->ops[i].late_diverted || m->ops[i].late_corrected ||
		     strstr(m->ops[i].name, "Window") || strstr(m->ops[i].name, "Over") ||
		     strstr(m->ops[i].name, "Session") || strstr(m->ops[i].name, "IntervalJoin") ||
		     strstr(m->ops[i].name, "TemporalJoin")))
			return 1;
	return 0;
}

static void label_value(sl_buf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			sl_buf_puts(out, "\\\\");
		else if (*s == '"')
			sl_buf_puts(out, "\\\"");
		else if (*s == '\n')
			sl_buf_puts(out, "\\n");
		else
			sl_buf_putc(out, *s);
	}
}

static void float_value(sl_buf *out, double v)
{
	if (isinf(v))
		sl_buf_puts(out, v > 0 ? "+Inf" : "-Inf");
	else if (isnan(v))
		sl_buf_puts(out, "NaN");
	else if (v == floor(v) && fabs(v) < 1e15)
		sl_buf_printf(out, "%.0f", v);
	else
		sl_buf_printf(out, "%.15g", v); /* a watermark to the millisecond */
}

static double wm_seconds(int64_t wm)
{
	if (wm == SL_WM_NONE)
		return -INFINITY;
	if (wm == SL_WM_END)
		return INFINITY;
	return (double)wm / 1e6;
}

static double op_value(const sl_metric_op *o, int field)
{
	switch (field) {
	case V_IN: return (double)o->rows_in;
	case V_OUT: return (double)o->rows_out;
	case V_IN_RATE: return o->rows_in_per_s;
	case V_OUT_RATE: return o->rows_out_per_s;
	case V_IN_WM: return wm_seconds(o->in_wm);
	case V_OUT_WM: return wm_seconds(o->out_wm);
	case V_LATE: return (double)o->late_dropped;
	case V_DIVERTED: return (double)o->late_diverted;
	case V_CORRECTED: return (double)o->late_corrected;
	case V_STATE_BYTES: return (double)o->state_bytes;
	case V_STATE_ENTRIES: return (double)o->state_entries;
	case V_LATE_MINUTE: return (double)o->late_last_minute;
	default: return (double)o->rows_skipped;
	}
}

static void head(sl_buf *out, const char *name, const char *flink, const char *help, int type)
{
	sl_buf_printf(out, "# HELP %s %s (Flink: %s)\n# TYPE %s %s\n", name, help, flink, name,
	              type == F_COUNTER ? "counter" : "gauge");
}

static void job_labels(sl_buf *out, const sl_metrics *m)
{
	sl_buf_puts(out, "job_name=\"");
	label_value(out, m->job);
	sl_buf_putc(out, '"');
}

/* A job-level sample. */
static void job_sample(sl_buf *out, const sl_metrics *m, const char *name, const char *flink,
                       const char *help, int type, double v)
{
	head(out, name, flink, help, type);
	sl_buf_printf(out, "%s{", name);
	job_labels(out, m);
	sl_buf_puts(out, "} ");
	float_value(out, v);
	sl_buf_putc(out, '\n');
}

int sl_http_prometheus(const sl_metrics *m, sl_buf *out)
{
	static const char *const status[] = {"NONE", "CREATED", "RUNNING", "FINISHED", "FAILED",
	                                     "CANCELED"};
	if (m->status == SL_JOB_NONE)
		return 0; /* no job: no samples */
	head(out, "sluice_job_status", "jobStatus", "1 for the job's current status", F_GAUGE);
	for (int s = SL_JOB_CREATED; s <= SL_JOB_CANCELED; s++) {
		sl_buf_puts(out, "sluice_job_status{");
		job_labels(out, m);
		sl_buf_printf(out, ",status=\"%s\"} %d\n", status[s], m->status == s);
	}
	job_sample(out, m, "sluice_uptime_seconds", "uptime", "time since the job opened",
	           F_GAUGE, (double)(m->now_us - m->start_us) / 1e6);
	job_sample(out, m, "sluice_number_of_completed_checkpoints_total",
	           "numberOfCompletedCheckpoints", "checkpoints and savepoints completed",
	           F_COUNTER, (double)m->ckpt_completed);
	job_sample(out, m, "sluice_number_of_failed_checkpoints_total", "numberOfFailedCheckpoints",
	           "checkpoints that failed", F_COUNTER, (double)m->ckpt_failed);
	job_sample(out, m, "sluice_last_completed_checkpoint_id", "lastCompletedCheckpointId",
	           "id of the last completed checkpoint (0: none)", F_GAUGE,
	           (double)m->ckpt_last_id);
	job_sample(out, m, "sluice_last_checkpoint_duration_seconds", "lastCheckpointDuration",
	           "duration of the last completed checkpoint", F_GAUGE,
	           (double)m->ckpt_last_duration_us / 1e6);
	job_sample(out, m, "sluice_last_checkpoint_size_bytes", "lastCheckpointSize",
	           "state bytes of the last completed checkpoint", F_GAUGE,
	           (double)m->ckpt_last_size);
	for (size_t f = 0; f < sizeof(op_fams) / sizeof(op_fams[0]); f++) {
		const fam *F = &op_fams[f];
		int any = 0;
		for (int i = 0; i < m->nops; i++) {
			const sl_metric_op *o = &m->ops[i];
			if ((F->on == ON_SOURCE && o->role != SL_ROLE_SOURCE) ||
			    (F->on == ON_OPERATOR && o->role != SL_ROLE_OPERATOR) ||
			    (F->on == ON_WINDOWED && !windowed(m, o->node)))
				continue;
			if (!any++)
				head(out, F->name, F->flink, F->help, F->type);
			sl_buf_printf(out, "%s{", F->name);
			job_labels(out, m);
			sl_buf_printf(out, ",operator_id=\"%d\",operator_name=\"", o->node);
			label_value(out, o->name);
			sl_buf_printf(out, "\",subtask_index=\"%d\"", o->instance);
			if (o->table[0]) {
				sl_buf_puts(out, ",table=\"");
				label_value(out, o->table);
				sl_buf_putc(out, '"');
			}
			sl_buf_puts(out, "} ");
			float_value(out, op_value(o, F->field));
			sl_buf_putc(out, '\n');
		}
	}
	/* edges between instances: backpressure as the producers' blocked time */
	for (int pass = 0; pass < 2; pass++) {
		int any = 0;
		for (int i = 0; i < m->nedges; i++) {
			const sl_metric_edge *e = &m->edges[i];
			if (!e->channels)
				continue; /* chained: same thread, never blocked */
			if (!any++) {
				if (pass == 0)
					head(out, "sluice_accumulated_back_pressured_time_seconds_total",
					     "accumulatedBackPressuredTimeMs",
					     "time the producers of an exchange spent blocked on it "
					     "(full channels, batches not yet back)", F_COUNTER);
				else
					head(out, "sluice_exchange_messages_total", "(sluice) exchange",
					     "batches and control messages sent over an exchange", F_COUNTER);
			}
			sl_buf_printf(out, "%s{", pass == 0 ? "sluice_accumulated_back_pressured_time_"
			                                      "seconds_total"
			                                    : "sluice_exchange_messages_total");
			job_labels(out, m);
			sl_buf_printf(out, ",from_operator_id=\"%d\",to_operator_id=\"%d\",input=\"%d\","
			              "ship_strategy=\"%s\"} ", e->from, e->to, e->input, e->ship);
			float_value(out, pass == 0 ? (double)e->blocked_ns / 1e9 : (double)e->messages);
			sl_buf_putc(out, '\n');
		}
	}
	return 0;
}
