/*
 * sluice.h - the one public header of libsluice, a streaming SQL engine.
 *
 * An engine (sl_engine) holds a catalog of tables and views, session
 * options (SET) and the jobs started from INSERT INTO / SELECT statements.
 * The CLI (`sluice run`), the test runner and embedding programs are all
 * clients of this API:
 *
 *     sl_engine *e;
 *     sl_engine_open(&e);
 *     sl_exec(e, "CREATE TABLE t (...) WITH ('connector' = 'push'); ...");
 *     sl_push_json(e, "t", "{\"a\": 1}", 8);   // rows into a push table
 *     sl_poll(e, callback, ctx);                // results of a push sink
 *     sl_engine_close(e);
 *
 * Handles are opaque and owned by the caller who opened them.  Fallible
 * functions return 0 on success or a negative SL_E* code; the message of the
 * last failure is sl_errmsg(engine), valid until the next call on it.
 * An engine is not thread-safe: one thread at a time (except
 * sl_metrics_get, below).
 *
 * include/sluice_udf.h is the C ABI of user-defined functions (CREATE
 * FUNCTION ... LANGUAGE C USING JAR 'lib.so'; docs/udf.md).
 */
#ifndef SLUICE_H
#define SLUICE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SL_API __attribute__((visibility("default")))
#else
#define SL_API
#endif

/* Return codes: 0 is success, errors are negative. */
#define SL_OK 0
#define SL_ENOMEM (-1)   /* out of memory */
#define SL_ESYNTAX (-2)  /* SQL syntax error */
#define SL_EPLAN (-3)    /* planning error: names, types, semantics */
#define SL_EINPUT (-4)   /* bad input data (parse error, NULL rowtime, ...) */
#define SL_EIO (-5)      /* file or network I/O */
#define SL_ERUNTIME (-6) /* evaluation error (overflow, bad cast, ...) */
#define SL_EINVAL (-7)   /* bad argument to an API call or bad option */
#define SL_ENOTSUP (-8)  /* feature not supported */
/* (-9) is reserved: an internal code (src/base/err.h), never returned */
#define SL_ESTATE (-10)  /* checkpoint/state damaged or incompatible */

typedef struct sl_engine sl_engine;

/* Change kinds of a changelog row (Flink's RowKind). */
typedef enum sl_rowkind {
	SL_INSERT = 0,        /* +I */
	SL_UPDATE_BEFORE = 1, /* -U */
	SL_UPDATE_AFTER = 2,  /* +U */
	SL_DELETE = 3         /* -D */
} sl_rowkind;

/* Opens an engine with default options.  *out is set on success; close it
 * with sl_engine_close.  Returns 0 or SL_ENOMEM. */
SL_API int sl_engine_open(sl_engine **out);

/* Frees the engine, stopping its jobs without a final watermark.  Safe on
 * NULL. */
SL_API void sl_engine_close(sl_engine *e);

/* Message of the last failed call (never NULL; "" when none). */
SL_API const char *sl_errmsg(const sl_engine *e);

/*
 * Where the last failed call's error is in SQL text, when it has such a
 * place: sets *line and *column (1-based; a column counts characters) and
 * returns 1; otherwise sets both to 0 and returns 0 (I/O, options, bad
 * input rows, ...).  The text is the script given to sl_exec (sl_explain)
 * that holds the failing construct: for a syntax or planning error the
 * failing call's own script; for a run-time error of an expression (a bad
 * CAST, an overflow; reported by sl_run, sl_push_* or sl_advance) the
 * script that started the job.  The message (sl_errmsg) starts with
 * "line L, column C: " for the same place unless context was prepended
 * to it.  line or column may be NULL.
 */
SL_API int sl_errpos(const sl_engine *e, int *line, int *column);

/*
 * Where the last failed call's error is in the input, when it concerns
 * one input row (a record that does not decode, a NULL rowtime, a run-time
 * error of an expression over the row): sets *file to the row's file (the
 * filesystem source's path, or "dir/name" for a directory; "stdin" for
 * standard input; "" for rows pushed with sl_push_json_lines, whose lines
 * are counted from the start of that call's text) and *line to its 1-based
 * line, and returns 1.  Otherwise sets *file to NULL and *line to 0 and
 * returns 0 (generated rows, errors without an input row).  *file is
 * valid until the next call on e.  file or line may be NULL.
 */
SL_API int sl_errinput(const sl_engine *e, const char **file, long long *line);

/*
 * Executes a script of ';'-separated statements.  DDL and SET take effect
 * at once.  INSERT INTO / SELECT statements build a job; a script's
 * statements that write are started together as one job (sharing their
 * sources) when sl_exec returns, and run as the caller drives them:
 * sl_run() runs jobs whose sources are all bounded or external until they
 * end; push sources are driven by sl_push_* and sl_advance.
 */
SL_API int sl_exec(sl_engine *e, const char *sql);

/* Sets an option as SET 'key' = 'value' would. */
SL_API int sl_set(sl_engine *e, const char *key, const char *value);

/* The value of option `key` as set by SET, sl_set or --set (the last one
 * wins), or NULL when it was not set.  Valid until the next call on e. */
SL_API const char *sl_option(sl_engine *e, const char *key);

/* Runs the started jobs until every source has ended (or forever for
 * unbounded sources).  Returns 0 when all finished cleanly. */
SL_API int sl_run(sl_engine *e);

/*
 * Pushes one JSON object (a row in the table's schema) into table `table`
 * declared WITH ('connector' = 'push').  The row is processed before the
 * call returns.  Returns SL_EINPUT for a row that does not decode (message
 * says which field and why).
 */
SL_API int sl_push_json(sl_engine *e, const char *table, const char *json, size_t len);

/* Pushes newline-separated JSON rows as batches (up to the option
 * 'sluice.batch-size' rows each, default 1024): the same rows as pushing
 * them one by one, in fewer, larger batches. */
SL_API int sl_push_json_lines(sl_engine *e, const char *table, const char *text, size_t len);

/* Ends the input of push table `table` (a final watermark of +infinity
 * once every input of the job has ended). */
SL_API int sl_push_end(sl_engine *e, const char *table);

/*
 * Result rows of tables declared WITH ('connector' = 'push') used as sinks,
 * and of bare SELECTs, are queued.  sl_poll calls cb for each queued row
 * in order, with the sink's table name, the row kind and the row as JSON
 * text (valid during the call), then empties the queue.  Returns the
 * number of rows delivered, or a negative error code.
 */
typedef void (*sl_row_cb)(void *ctx, const char *table, sl_rowkind kind,
                          const char *json, size_t len);
SL_API int sl_poll(sl_engine *e, sl_row_cb cb, void *ctx);

/* Plans the writing statements of `sql` (after applying its DDL) without
 * running them; *text receives the EXPLAIN text (operators, their inputs,
 * changelog kinds, watermarks), valid until the next call. */
SL_API int sl_explain(sl_engine *e, const char *sql, const char **text);

/* The statement output of the last sl_exec ("" if none): the plans of its
 * EXPLAIN statements and the tables of its SHOW / DESCRIBE statements (in
 * Flink's SQL client tableau format), in statement order. */
SL_API const char *sl_explain_text(sl_engine *e);

/* Warnings from planning the last job (one per line, "" when none), e.g.
 * a stdin source under checkpointing being at-least-once. */
SL_API const char *sl_warnings(sl_engine *e);

/* Asks a running sl_run to return at the next batch boundary (callable
 * from a signal handler or from another thread: one atomic store). */
SL_API void sl_stop(sl_engine *e);

/* Snapshot of the running job's state and positions (malloc'd; free it),
 * and restore of such a snapshot into a freshly started, identical job
 * before it processed anything. */
SL_API int sl_snapshot(sl_engine *e, void **buf, size_t *len);
SL_API int sl_restore(sl_engine *e, const void *buf, size_t len);

/* Per source, sink and window operator: rows read/written, skipped, late
 * rows dropped/diverted, final watermark; with verbose, every operator's
 * counts.  Valid until the next call. */
SL_API const char *sl_job_stats(sl_engine *e, int verbose);

/*
 * Stops the job with a savepoint (checkpointing must be on): with drain, a
 * final +infinity watermark first closes every window.  The savepoint's
 * directory is written into path (cap bytes).  The job can then be closed;
 * a restart of the same job resumes from it.
 */
SL_API int sl_savepoint(sl_engine *e, int drain, char *path, size_t cap);

/*
 * Completes a clean stop (after sl_run returned on sl_stop: Ctrl-C,
 * SIGTERM) so that no row already written is lost.  With checkpointing it
 * is sl_savepoint (path receives the savepoint's directory).  Without,
 * every sink publishes what it wrote, as at the end of input (the
 * filesystem sink renames its in-progress part into place; path receives
 * ""); with drain a final +infinity watermark first closes every window.
 * Returns 0, or an error (SL_EINVAL: no job, or it failed; its sinks then
 * published what came before the error).
 */
SL_API int sl_stop_complete(sl_engine *e, int drain, char *path, size_t cap);

/*
 * Processing time (PROCTIME(), state TTL: 'table.exec.state.ttl') is the
 * wall clock by default.  With micros >= 0 the engine's clock stands still
 * at that instant (microseconds since the epoch) until the next call, for
 * deterministic tests; a negative value returns to the wall clock.  Applies
 * to the running job and to jobs started later.  Processing-time windows
 * of the running job whose end the new time reaches fire during the call
 * (their rows are then ready for sl_poll).  Returns 0, or the error of
 * the job that failed while firing them.
 */
SL_API int sl_set_processing_time(sl_engine *e, int64_t micros);

/* 1 when the job has finished (all inputs ended, or restored finished). */
SL_API int sl_job_finished(sl_engine *e);

/*
 * Several processes sharing a Kafka topic ('sluice.scale-out' =
 * 'kafka-group', docs/kafka.md "Several processes, one job").
 * sl_scale_out_member: 1 when sl_exec made e such a job's member process:
 * the job was planned and checked, nothing opened, and sl_run does
 * nothing.  sl_run_scale_out then runs the member: it joins the consumer
 * group and, for each partition the group gives it, runs the command argv
 * (NULL-terminated: the program and the arguments that run this same job,
 * such as {"/proc/self/exe", "run", "job.sql", NULL}) with the partition's
 * settings added ('--set' pairs and '-q'), stopping that child with SIGTERM
 * (a savepoint) when the group takes the partition back.  It returns
 * when every partition's input has ended (bounded sources), after
 * sl_stop (every child stopped with a savepoint), or when a child failed.
 * 0 or a negative SL_E* code (sl_errmsg).
 */
SL_API int sl_scale_out_member(sl_engine *e);
SL_API int sl_run_scale_out(sl_engine *e, char *const *argv);

/* One line per checkpoint taken: id, duration, size, time processing was
 * blocked. */
SL_API const char *sl_checkpoint_log(sl_engine *e);

/* ---- live metrics (docs/observability.md) ----------------------------
 *
 * A snapshot of the running job's figures, per operator instance and per
 * edge, with the checkpoint counters.  Unlike every other call,
 * sl_metrics_get may be called from another thread while the engine's
 * own thread is inside sl_run, sl_push_*, sl_poll or
 * sl_set_processing_time (that is what the status line and the HTTP
 * endpoint do); not concurrently with sl_exec, sl_restore or
 * sl_engine_close.  It takes no lock the job's threads take per row: the
 * counters are read as each instance's thread last stored them, so two
 * figures of one snapshot may be a batch apart.
 */

/* Watermarks: microseconds since the epoch, or one of these. */
#define SL_WM_NONE INT64_MIN /* -infinity: no watermark yet */
#define SL_WM_END INT64_MAX  /* +infinity: the input ended */

/* Job status (Flink's names: CREATED, RUNNING, FINISHED, FAILED, CANCELED). */
typedef enum sl_job_status {
	SL_JOB_NONE = 0,     /* no job */
	SL_JOB_CREATED = 1,  /* planned and opened, not yet running */
	SL_JOB_RUNNING = 2,
	SL_JOB_FINISHED = 3, /* every input ended */
	SL_JOB_FAILED = 4,
	SL_JOB_CANCELED = 5  /* stopped (sl_stop) */
} sl_job_status;

typedef enum sl_metric_role {
	SL_ROLE_SOURCE = 0,  /* a scan of a table, or VALUES */
	SL_ROLE_OPERATOR = 1,
	SL_ROLE_SINK = 2
} sl_metric_role;

/* One instance of one operator. */
typedef struct sl_metric_op {
	int node;                /* the operator's id: #node in EXPLAIN and --stats */
	int instance;            /* 0 .. parallelism - 1 (Flink's subtask index) */
	int parallelism;         /* instances of this operator */
	int role;                /* sl_metric_role */
	char name[48];           /* its kind: "TableSourceScan", "WindowAggregate", ... */
	char table[128];         /* the source's or sink's table, else "" */
	int64_t rows_in;         /* numRecordsIn */
	int64_t rows_out;        /* numRecordsOut */
	double rows_in_per_s;    /* numRecordsInPerSecond (see sl_metrics.rate_window_us) */
	double rows_out_per_s;   /* numRecordsOutPerSecond */
	int64_t rows_skipped;    /* sources: bad rows skipped (ignore-parse-errors) */
	int64_t bytes_read;      /* file sources: bytes of this instance's splits read */
	int64_t bytes_total;     /* and their size (0: unknown: other sources, file
	                          * formats such as parquet) */
	int64_t late_dropped;    /* numLateRecordsDropped */
	int64_t late_diverted;   /* late rows written to an ON LATE INSERT INTO table */
	int64_t late_corrected;  /* late rows that corrected a window (ALLOWED LATENESS) */
	int64_t in_wm;           /* currentInputWatermark (the minimum of its inputs) */
	int64_t out_wm;          /* currentOutputWatermark */
	int nin;                 /* its inputs (0: a source) */
	int64_t input_wm[4];     /* the watermark of each of its first 4 inputs */
	int input_idle;          /* bit k: input k is idle (left out of in_wm) */
	int idle;                /* its output is idle ('scan.watermark.idle-timeout') */
} sl_metric_op;

/* One edge between two operators (all instances of it). */
typedef struct sl_metric_edge {
	int from, to;            /* operator ids */
	int input;               /* which input of `to` */
	char ship[16];           /* "CHAIN" (same thread), "HASH", "REBALANCE", "GATHER",
	                          * "FORWARD", "BROADCAST" */
	int channels;            /* 0 for CHAIN */
	int64_t messages;        /* batches and control messages sent over them */
	int64_t blocked_ns;      /* time the producers spent blocked on them
	                          * (backpressure: full channels, batches not back) */
} sl_metric_edge;

typedef struct sl_metrics {
	int status;              /* sl_job_status */
	char job[128];           /* 'pipeline.name', the script's name, or "job" */
	int64_t now_us;          /* when taken (wall clock, micros since the epoch) */
	int64_t start_us;        /* when the job was opened (wall clock) */
	int64_t rate_window_us;  /* the *_per_s rates: over this interval before now
	                          * (1 to 2 s when snapshots come at least every
	                          * second; since the job opened in its first) */
	int parallelism;         /* the largest of the operators' */
	int nops;                /* ops[]: by operator id, then instance */
	sl_metric_op *ops;
	int nedges;
	sl_metric_edge *edges;
	/* checkpoints and savepoints (numberOfCompletedCheckpoints, ...) */
	int checkpointing;       /* 'execution.checkpointing.interval' set */
	int64_t ckpt_completed, ckpt_failed;
	int64_t ckpt_last_id;    /* 0: none yet */
	int64_t ckpt_last_duration_us; /* lastCheckpointDuration */
	int64_t ckpt_last_size;  /* lastCheckpointSize (bytes) */
	int64_t ckpt_last_blocked_us;
	int64_t ckpt_last_end_us; /* when it completed (wall clock) */
} sl_metrics;

/* Takes a snapshot of the job's metrics (see above) into *out (caller
 * frees it with sl_metrics_free); with no job, status SL_JOB_NONE and no
 * operators.  Returns 0 or SL_ENOMEM. */
SL_API int sl_metrics_get(sl_engine *e, sl_metrics **out);

/* Frees a snapshot; safe on NULL. */
SL_API void sl_metrics_free(sl_metrics *m);

/*
 * "Why is there no output yet?" (EXPLAIN PENDING, docs/observability.md):
 * text, from snapshot m, that names for each window, join and OVER
 * operator the watermark it waits on and the input that holds it back,
 * followed back through the graph to the source instance (its watermark,
 * rows read, whether it is idle), then the watermark of every source
 * instance and every operator (SHOW WATERMARKS).  Returns a malloc'd
 * string (free it with free), or NULL when out of memory.
 */
SL_API char *sl_metrics_pending(const sl_metrics *m);

/* Library version string, "major.minor.patch". */
SL_API const char *sl_version(void);

/*
 * Iceberg table maintenance (docs/iceberg.md "Table maintenance"): expires
 * the snapshots of the Hadoop-catalog table in directory `table` committed
 * before `older_than` (a UTC timestamp 'YYYY-MM-DD HH:MM:SS[.fff]', or a
 * duration back from now such as '5 d' or '0 s'; NULL = 5 days, Iceberg's
 * default), keeping the current snapshot and the retain_last (>= 1) most
 * recent ones; their manifest lists and unreferenced manifests are
 * deleted.  A one-line report, or the error, is written into msg (cap
 * bytes).  Returns 0 or a negative SL_E* code.
 */
SL_API int sl_iceberg_expire_snapshots(const char *table, const char *older_than,
                                       int retain_last, char *msg, size_t cap);

/*
 * Iceberg compaction (docs/iceberg.md "Table maintenance"): the live rows
 * of the table in directory `table` (its delete files applied) written
 * again into data files of at most target_bytes (<= 0: 512 MB) per
 * partition, committed as one replace snapshot that removes every old
 * data and delete file (published by link() like a commit; started over
 * when a job commits meanwhile).  Nothing is done when each partition has
 * one data file and there is no delete file.  Only tables sluice wrote.
 * A one-line report, or the error, goes into msg (cap bytes).  Returns 0
 * or a negative SL_E* code.
 */
SL_API int sl_iceberg_rewrite_data_files(const char *table, int64_t target_bytes, char *msg,
                                        size_t cap);

#ifdef __cplusplus
}
#endif
#endif
