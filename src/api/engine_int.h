/*
 * engine_int.h - the engine behind include/sluice.h, for the files of
 * src/api only.
 *
 * An engine owns: the catalog (with the arenas of every script that
 * declared something), the session options, at most one job (its plan
 * arena, graph, state backend and checkpoint coordinator: the runtime of
 * src/runtime/ drives them), the EXPLAIN text of the last plan and the
 * queue of result rows for sl_poll.
 */
#ifndef SL_ENGINE_INT_H
#define SL_ENGINE_INT_H

#include <pthread.h>

#include "sluice.h"
#include "../base/buf.h"
#include "../base/err.h"
#include "../base/opts.h"
#include "../exec/graph.h"
#include "../exec/pnode.h"
#include "../plan/catalog.h"
#include "../runtime/ckpt_coord.h"
#include "../state/state.h"

struct sl_engine {
	sl_err err;
	sl_catalog cat;
	sl_arena opt_arena;
	sl_opts session;
	int nscripts;
	sl_arena **scripts;      /* kept: the catalog points into their ASTs */
	/* the job */
	int job;                 /* a job has been planned and opened */
	sl_arena job_arena;
	sl_graph graph;          /* the job at parallelism 1 (empty above) */
	struct sl_prun *prun;    /* the job above parallelism 1, or NULL */
	int prun_push;           /* prun reads a push table (drained by the API calls) */
	int prun_values;         /* prun: the first drain (VALUES rows before a poll) ran */
	sl_pplan plan;           /* the job's plan (job_arena) */
	sl_state_backend *state;
	int finished;            /* all sources ended */
	int failed;              /* the job stopped on an error (docs/semantics.md §4) */
	char fail_msg[SL_ERR_MAX]; /* that error */
	sl_buf explain;
	sl_buf explain_out;      /* EXPLAIN statements' plans of the last sl_exec */
	sl_buf stats;
	sl_buf warnings;         /* planning warnings of the last job */
	int64_t proc_manual;     /* sl_set_processing_time: micros, -1 = wall clock */
	sl_coord ck;             /* the job's checkpoint coordinator */
	/* result queue: records [u32 table len][table][u8 kind][u32 len][text] */
	sl_buf queue;
	sl_buf queue_spare;      /* sl_poll swaps it with queue (keeps both capacities) */
	pthread_mutex_t queue_mu; /* several sink instances append (prun.h) */
	int queue_text;          /* 1: rows as Flink text, 0: JSON */
	int select_to_print;     /* bare SELECT -> print sink (CLI) */
	/* live metrics (metrics.c): sl_metrics_get runs on other threads */
	pthread_mutex_t job_mu;  /* held by a snapshot, and while a job is published or torn down */
	int job_live;            /* under job_mu: the job's operators may be walked */
	int status;              /* sl_job_status (SL_CTR_SET / SL_CTR_GET) */
	char job_name[128];      /* under job_mu */
	int64_t start_us;        /* under job_mu: when the job opened (wall clock) */
	struct sl_rates *rates;  /* under job_mu: the previous sample for rates */
	/* 'sluice.scale-out' = 'kafka-group' (scaleout.c): this engine is the
	 * member process; the job was planned, not opened */
	int so_member;
	int so_stop;             /* sl_stop: leave the group (atomic) */
	sl_opts so_opts;         /* the Kafka table's options (opt_arena) */
	char so_table[256], so_topic[256], so_job[128], so_base[2048];
	char so_co[8][256];   /* a co-partitioned join's other topics */
	int so_nco;
};

/* scaleout.c: after planning, makes e the scale-out's member for plan
 * result so (copies what it needs); 0 or SL_ENOMEM. */
struct sl_scale_out;
int sl__scale_out_member(struct sl_engine *e, const struct sl_scale_out *so);
/* scaleout.c: in a scale-out's child ('sluice.scale-out.partition' set),
 * at the start of its job (after the script's SETs): its own job name,
 * checkpoint and savepoint directories under the job's, parallelism 1.
 * 0 otherwise; SL_E* with e->err. */
int sl__scale_out_child(struct sl_engine *e);
/* scaleout.c: a scale-out child's job finished (all input, final
 * checkpoint): writes its 'sluice.scale-out.finished-file'.  0 or SL_EIO. */
int sl__scale_out_finished(struct sl_engine *e);

/* metrics.c: a job was opened (it may now be walked by snapshots), is
 * about to be torn down, or changed status (sl_job_status). */
void sl__metrics_job_open(struct sl_engine *e);
void sl__metrics_job_close(struct sl_engine *e);
void sl__metrics_status(struct sl_engine *e, int status);

/* SHOW WATERMARKS: appends m's operators' watermarks to out as a table
 * (metrics_pending.c).  0 or SL_ENOMEM. */
int sl__metrics_watermarks(const sl_metrics *m, sl_buf *out);

/* The 'push' sink (conn_push.c): rows queued in the engine for sl_poll.
 * Handed to the planner (sl_plan_args.push_sink), as the connector
 * registry, a lower layer, cannot name it. */
struct sl_sink_vtab;
extern const struct sl_sink_vtab sl_push_sink_vtab;

/* Appends a result row to the queue (used by the push sink). */
int sl__engine_enqueue(struct sl_engine *e, const char *table, int kind, const char *text,
                       size_t len);

/* Appends a result row to rec in the queue's record format, and rec's
 * records to the queue, under its lock (one lock per batch: the push
 * sink's instances run on several threads at parallelism > 1). */
int sl__engine_record(sl_buf *rec, const char *table, int kind, const char *text, size_t len);
int sl__engine_enqueue_records(struct sl_engine *e, const sl_buf *rec);

#endif
