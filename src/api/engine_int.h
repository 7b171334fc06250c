/*
 * engine_int.h - the engine behind include/sluice.h, for the files of
 * src/api only.
 *
 * An engine owns: the catalog (with the arenas of every script that
 * declared something), the session options, at most one job (its plan
 * arena, graph and state backend), the EXPLAIN text of the last plan and
 * the queue of result rows for sl_poll.
 */
#ifndef SL_ENGINE_INT_H
#define SL_ENGINE_INT_H

#include "sluice.h"
#include "../base/buf.h"
#include "../base/err.h"
#include "../base/opts.h"
#include "../exec/graph.h"
#include "../plan/catalog.h"
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
	sl_graph graph;
	sl_state_backend *state;
	int finished;            /* all sources ended */
	int failed;              /* the job stopped on an error (docs/semantics.md §4) */
	char fail_msg[SL_ERR_MAX]; /* that error */
	sl_buf explain;
	sl_buf explain_out;      /* EXPLAIN statements' plans of the last sl_exec */
	sl_buf stats;
	sl_buf warnings;         /* planning warnings of the last job */
	int64_t proc_manual;     /* sl_set_processing_time: micros, -1 = wall clock */
	/* checkpointing (engine_ckpt.c) */
	struct {
		int on;                  /* execution.checkpointing.interval set */
		int64_t interval_us, min_pause_us;
		int64_t retained;
		char job[128];
		char jobdir[2048];       /* ./sluice-state/<job> */
		char dir[2048];          /* checkpoints */
		char sp_dir[2048];       /* savepoints */
		int lock_fd;
		int64_t next_id;
		int64_t attempt;
		int64_t last_end_us;     /* monotonic end of the last checkpoint */
		int64_t restored_id;     /* 0 = fresh start */
		char restored_path[2048];
		sl_buf log;              /* per-checkpoint stats for --stats */
		/* the checkpoint being written by a child process (async mode) */
		int pending_pid;         /* 0 = none */
		struct ck_writer *pending_thr; /* writer thread (RocksDB), or NULL */
		struct sl_collapser *collapser; /* re-maps state in huge pages (hugepage.h) */
		int64_t pending_id;
		int64_t pending_t0, pending_blocked;
	} ck;
	/* result queue: records [u32 table len][table][u8 kind][u32 len][text] */
	sl_buf queue;
	int queue_text;          /* 1: rows as Flink text, 0: JSON */
	int select_to_print;     /* bare SELECT -> print sink (CLI) */
};

/* Checkpointing (engine_ckpt.c).  prepare (before planning) reads the
 * options, takes the job lock and counts the run attempt; restore (after
 * the graph is open) restores the newest complete checkpoint or savepoint
 * and lets the sinks recover; maybe takes a checkpoint when the interval
 * passed; take writes one now. */
int sl__ckpt_prepare(struct sl_engine *e);
int sl__ckpt_restore(struct sl_engine *e);
int sl__ckpt_maybe(struct sl_engine *e);
int sl__ckpt_take(struct sl_engine *e, int savepoint, int finished, char *path, size_t cap);
void sl__ckpt_close(struct sl_engine *e);

/* The 'push' sink (conn_push.c): rows queued in the engine for sl_poll.
 * Handed to the planner (sl_plan_args.push_sink), as the connector
 * registry, a lower layer, cannot name it. */
struct sl_sink_vtab;
extern const struct sl_sink_vtab sl_push_sink_vtab;

/* Appends a result row to the queue (used by the push sink). */
int sl__engine_enqueue(struct sl_engine *e, const char *table, int kind, const char *text,
                       size_t len);

#endif
