/*
 * conn.h - sources and sinks: the method tables every connector implements.
 *
 * A source produces batches of rows in its table's physical schema (the
 * declared columns that are not computed), with op set (+I unless the
 * format is a changelog) and wm = SL_WM_MIN: watermarks and computed
 * columns are added after the source by the scan operator (op_scan.c),
 * which keeps a watermark per split of the source (sl_source.nsplits).  A
 * sink consumes batches in its
 * table's schema.
 *
 * Connectors are registered by name ('connector' = 'filesystem', 'stdin',
 * 'stdout', 'print', 'blackhole', 'datagen', 'nexmark', 'jdbc', 'postgres-cdc', 'iceberg', 'push') in conn_registry.c: a new connector is
 * one new file plus one registry line.  The concrete struct embeds
 * sl_source / sl_sink as its first member; vt->size says how much to
 * allocate.
 *
 * Two steps, as SQLite's xCreate/xConnect split what is declared from
 * what is attached:
 *   configure  (sl_source_new / sl_sink_new / sl_lookup_new, called by the
 *              planner, so also by EXPLAIN) reads and validates every
 *              option, the format's included, and computes what depends
 *              on the schema (decoders, encoders, generators).  It does no
 *              I/O: no files or directories are looked at or created, no
 *              file descriptors, sockets or threads, no clock read whose
 *              value is kept.  Options left unread after configure are
 *              reported by the caller (sl_opts_unused) as Flink does.
 *   open       (sl_source_open / sl_sink_open / sl_lookup_open, called by
 *              the runtime when the job starts: the scan, sink and lookup
 *              join operators' open, before any restore or read) does the
 *              I/O: opens or lists files, creates directories, reads the
 *              clock.  NULL when there is nothing to do.  Its errors name
 *              the table and the file.
 * close is safe after configure alone, after a failed configure or open.
 *
 * Exactly-once hooks (a source's snapshot/restore/commit, a sink's
 * pre_commit/commit/abort/recover) are reached through the operator that
 * holds the connector (op_scan.c, op_sink.c: the hooks of sl_op_vtab,
 * src/exec/op.h); the checkpoint coordinator (src/runtime/ckpt_coord.c)
 * drives them.
 *
 * Threads: a connector object is used by one thread at a time.  A parallel
 * job opens one object per instance of a table's scan or sink
 * (sl_conn_args.subtask / nsubtasks); instances share only the read-only
 * arguments (configure may run on several threads at once over one
 * table's options, base/opts.h), the files and the run's share slot
 * (sl_conn_share: the filesystem source's pool of ranges), and keep their
 * output and their splits apart as each connector's file says.
 */
#ifndef SL_CONN_H
#define SL_CONN_H

#include "../base/arena.h"
#include "../base/counter.h"
#include "../base/err.h"
#include "../base/opts.h"
#include "../data/types.h"
#include "../data/batch.h"
#include "../state/state.h"

#include <pthread.h>

struct sl_engine;

/* What a connector is opened with. */
typedef struct sl_conn_args {
	const char *table;      /* table name, for messages */
	const sl_field *fields; /* physical columns (batch column i = field i) */
	int nfields;
	const int *pk;          /* PRIMARY KEY column indexes into fields, or NULL */
	int npk;
	const sl_opts *opts;    /* the WITH options (plus hints) */
	struct sl_engine *engine; /* for push connectors and engine services */
	const char *tz;         /* session time zone */
	/* Checkpointing (docs/semantics.md §3), filled by the planner; zero = off. */
	int checkpointing;      /* 1: checkpoints drive pre_commit/commit; finish
	                         * then only flushes (the final checkpoint publishes) */
	const char *job;        /* job name, stable across restarts (sink file names) */
	int attempt;            /* run attempt, >= 0, increasing per restart */
	int overwrite_output;   /* --fresh --overwrite-output: a start without a
	                         * checkpoint deletes this job's published output */
	/* PARTITIONED BY columns (indexes into fields), for the vtabs'
	 * `partitioned` variants; NULL / 0 otherwise. */
	const int *part;
	int npart;
	/*
	 * Parallel instances (issue 10, docs/parallel.md §6): this connector
	 * is instance `subtask` (0-based, Flink's subtask index) of
	 * `nsubtasks` (>= 1) instances of its table's scan or sink.  A source
	 * reads only the splits the static assignment gives it (split k goes
	 * to instance k % nsubtasks, in split order; a cut file's ranges come
	 * from the pool in `share` instead, when there is one) and ends at
	 * once without any; a sink keeps its output apart from the other instances' (the
	 * filesystem sink's part-file names).  Zero-initialized args mean one
	 * instance: nsubtasks 0 is read as 1; a subtask outside [0,
	 * nsubtasks) is refused by configure.  Lookups ignore both (every
	 * instance of a lookup join reads the whole table).
	 */
	int subtask;
	int nsubtasks;
	/* METADATA columns (a source or sink whose vtab lists metadata_keys):
	 * meta[i] is field i's metadata key ('partition', 'headers', ...): the
	 * source fills that column, the sink writes it as that metadata;
	 * NULL for a physical column.  NULL = none. */
	const char *const *meta;
	/* The checkpoint interval ('execution.checkpointing.interval', micros)
	 * when checkpointing is on, for a sink whose transactions span one
	 * (the Kafka exactly-once sink checks its 'transaction.timeout.ms'
	 * against it at planning); 0 = off or not known. */
	int64_t ckpt_interval_us;
	/* Sinks: 1 when the planner feeds this sink an updating stream (-U/+U/
	 * -D), for a sink whose writing depends on it (the iceberg sink writes
	 * delete files then); 0 = insert-only or not known. */
	int updating;
	/* What the instances of this table's scan in one parallel run share
	 * (sl_conn_share, below), or NULL (one instance; a graph made by
	 * sl_instantiate).  The filesystem source keeps the pool of a cut
	 * file's ranges there (docs/parallel.md §4.1).  Last, so that the
	 * planners' positional initializers need not name it. */
	struct sl_conn_share *share;
} sl_conn_args;

/*
 * A slot the instances of one table's scan share in one parallel run
 * (sl_conn_args.share): made by the runtime (prun.c) before the instances
 * are, one per plan node, and freed after every instance was closed, by
 * calling free_p(p) when p is set.  The connector owns p: the first
 * instance that needs it makes it under mu (instances open and restore on
 * one thread, but read on their own threads), and says how it is freed.
 */
typedef struct sl_conn_share {
	pthread_mutex_t mu;
	void *p;
	void (*free_p)(void *p);
} sl_conn_share;

typedef struct sl_source_vtab sl_source_vtab;
typedef struct sl_sink_vtab sl_sink_vtab;

/* Base of every source. */
typedef struct sl_source {
	const sl_source_vtab *vt;
	const char *table;
	int64_t rows_read;     /* rows produced */
	int64_t rows_skipped;  /* bad rows skipped (ignore-parse-errors; SL_CTR_ADD:
	                        * read live by the metrics, base/counter.h) */
	int64_t bytes_read;    /* a bounded source's progress, written with
	                        * SL_CTR_ADD / SL_CTR_SET (read live by the
	                        * metrics): files, bytes of its splits read so far
	                        * (may pass bytes_total by a block at a range's
	                        * end; Parquet: a file's bytes times its rows read
	                        * over its rows); a bounded Kafka source, offsets
	                        * consumed towards the end offsets */
	int64_t bytes_total;   /* and their total (0: unknown or unbounded); set in
	                        * open, and again by a restore (SL_CTR_SET) */
	struct sl_decoder *dec; /* its format's decoder, or NULL (stats) */
	/*
	 * Splits (docs/parallel.md §4): a source whose input is cut into
	 * splits by its data sets these in open (or restore); nsplits = 0 is
	 * one split (stdin, datagen, ...).  Every read returns rows of one
	 * split only, `split`; split_done[i] is 1 once split i can produce no
	 * more rows.  split_wm[i] is split i's watermark: the scan operator
	 * keeps it (op_scan.c), the source saves and restores it with the
	 * split's position, so a checkpoint holds both under the split's id.
	 * Arrays owned by the source.  A source may add splits while it runs
	 * (Kafka's partition discovery): it grows the arrays, moves these
	 * pointers and raises nsplits, in its read, on the scan's thread.
	 * split_wm set with nsplits = 0 is a source with no split yet (reads
	 * return 0 until one comes): the scan is idle meanwhile.
	 */
	int nsplits;
	int split;
	const uint8_t *split_done;
	int64_t *split_wm;
	/*
	 * Seeds (docs/watermarks.md "Splits"): when a read sets seed, its rows
	 * are not data but give splits their initial watermarks: the scan
	 * evaluates the table's computed columns and watermark expression on
	 * each row and sets split_wm[seed_split[row]] to the value (-infinity
	 * when NULL or when it fails), later rows of a split deciding; nothing
	 * is emitted or counted.  Only before the split starts.
	 */
	int seed;
	const int32_t *seed_split;
	/*
	 * Idle splits ('scan.watermark.idle-timeout' per split, as Flink's
	 * per-partition idleness): split_idle[i] = 1 while split i has had no
	 * data for the timeout; the scan then leaves it out of the source's
	 * watermark until it has data again.  NULL = no split is ever idle.
	 */
	const uint8_t *split_idle;
	/* Splits another instance of the run reads (split_elsewhere[i] = 1:
	 * a range of a pooled file another instance took, docs/parallel.md
	 * §4.1): done for this instance and left out of its live metrics'
	 * list of splits.  NULL = none. */
	const uint8_t *split_elsewhere;
	/* The changelog the source produces when its format's decoder does not
	 * say (dec->vt->changelog), e.g. "upsert-kafka": +I upserts and -D by
	 * key, normalized after the scan by the PRIMARY KEY.  NULL = none. */
	const char *changelog;
} sl_source;

/*
 * A changelog source's mark for a column whose value an update left out
 * because it did not change (PostgreSQL's unchanged TOASTed values,
 * conn_pgcdc.c): col->null[row] = SL_NULL_UNCHANGED (the value reads as
 * NULL to anything else).  Only in +U rows of a source whose `changelog`
 * is set with a PRIMARY KEY: the ChangelogNormalize right after the scan
 * (op_changelog_normalize.c) replaces it with the value it stored for the
 * key, and fails the job when it has none.
 */
#define SL_NULL_UNCHANGED 2
/* The same, for a change the source replays over a table copy taken after
 * it (conn_pgcdc.c): a key the normaliser has no row for does not exist
 * in the copy, so a later replayed change removes it; the column is NULL
 * meanwhile instead of failing the job. */
#define SL_NULL_UNCHANGED_REPLAY 3

typedef struct sl_lookup_vtab sl_lookup_vtab;

struct sl_source_vtab {
	const char *name;
	size_t size;
	/* Lookup joins (FOR SYSTEM_TIME AS OF a PROCTIME() column) against the
	 * table, or NULL when the connector cannot answer lookups. */
	const sl_lookup_vtab *lookup;
	/* Reads and validates its options (no I/O; see the header).  What
	 * open needs later is copied into the source: a is the planner's.
	 * Returns 0 or a negative code with err. */
	int (*configure)(sl_source *s, const sl_conn_args *a, sl_err *err);
	/* The I/O of starting (files looked up and listed, the clock read),
	 * once, after configure and before restore or read.  NULL = none.
	 * Returns 0 or a negative code with err naming table and file. */
	int (*open)(sl_source *s, sl_err *err);
	/*
	 * Appends up to out->cap - out->nrows rows to out (reset by the caller).
	 * Returns the number of rows appended (> 0), 0 when nothing is
	 * available now (an idle unbounded source), SL_EEOF at the end of a
	 * bounded input, or a negative error with err saying where (file, line,
	 * field) and what.  Rows decoded before an error stay in out.
	 */
	int (*read)(sl_source *s, sl_batch *out, sl_err *err);
	/*
	 * Describes where row `row` of the last batch came from ("file
	 * 'x.jsonl', line 12"), for errors found after decoding (a NULL
	 * rowtime).  May be NULL.
	 */
	void (*where)(sl_source *s, int row, char *buf, size_t cap);
	/*
	 * The input file and 1-based line of row `row` of the last batch, for
	 * the error's input place (sl_err_input, sl_errinput): returns 1 and
	 * sets *file (valid until the next read or close; "stdin" for
	 * standard input) and *line, or 0 when unknown.  May be NULL (a
	 * source without lines, such as datagen).
	 */
	int (*row_input)(sl_source *s, int row, const char **file, int64_t *line);
	/*
	 * Position for checkpoints (file offset and line, generator state):
	 * a source with splits saves its own splits' positions and
	 * watermarks under the splits' ids.  restore, before the first read,
	 * is called once per snapshot of the instances of the run that took
	 * the checkpoint (all of them, in any order; one call after a run of
	 * one instance): each instance keeps the splits it owns now and skips
	 * the others, so a restore at another parallelism, or after a
	 * directory gained a file that moved later splits to other
	 * instances, resumes every split where it was.  The filesystem source
	 * and datagen refuse (SL_ESTATE) at the first read when a snapshot
	 * of that run is missing, rather than read a split twice.
	 */
	int (*snapshot)(sl_source *s, sl_snap_writer *w, sl_err *err);
	int (*restore)(sl_source *s, sl_snap_reader *r, sl_err *err);
	/*
	 * Checkpoint ckpt_id is complete (its manifest is durable, phase 2 of
	 * the protocol, src/exec/op.h): the positions its snapshot recorded
	 * are consumed, and a source that tells the outside world (a Kafka
	 * consumer group's offsets) does so here.  Exactly-once does not
	 * depend on it: a restore reads the positions from the checkpoint.
	 * Called on the job thread between batches; returns 0 or a negative
	 * code with err (the job fails).  NULL = nothing to do (files, stdin,
	 * generators).
	 */
	int (*commit)(sl_source *s, int64_t ckpt_id, sl_err *err);
	/*
	 * At checkpoint ckpt_id's barrier, in the job's own process (the
	 * snapshot itself may be taken in a forked child, whose memory the
	 * parent never sees): remembers the positions commit will tell the
	 * outside world.  Writes nothing into the checkpoint.  Only sources
	 * with a commit hook; NULL = nothing to remember.
	 */
	int (*pre_commit)(sl_source *s, int64_t ckpt_id, sl_err *err);
	/* Frees resources; safe after configure alone and after a failed
	 * configure or open. */
	void (*close)(sl_source *s);
	/* The source to use for a PARTITIONED BY table (a->part), or NULL when
	 * the connector cannot read partitioned tables. */
	const sl_source_vtab *partitioned;
	/* 1: the source cannot share its input among instances (stdin, push
	 * tables): it runs as one instance and the runtime rebalances after
	 * it (docs/parallel.md §2).  0: it honours sl_conn_args.subtask. */
	int single_instance;
	/* 1: an update may leave columns out (SL_NULL_UNCHANGED, postgres-cdc's
	 * unchanged TOASTed values), to be taken from the key's stored row,
	 * or after a change of the key from the old key's row: the
	 * ChangelogNormalize after such a single-instance scan runs chained to
	 * it, at 1, where the -U of the old key and the +U of the new one meet
	 * (a hash exchange would send them to different instances). */
	int omits_unchanged;
	/* The METADATA keys the source can fill (NULL-terminated; NULL = no
	 * METADATA column can be read from this connector): the planner
	 * refuses other keys, the source's configure checks the types. */
	const char *const *metadata_keys;
	/* Names split i of the instance ("topic 'orders' partition 3", "file
	 * 'a.json'") into buf for the live metrics ("which split holds the
	 * watermark back"); called once per split after open, on the
	 * source's thread.  NULL = "split i". */
	void (*split_name)(sl_source *s, int i, char *buf, size_t cap);
};

/* Base of every sink. */
typedef struct sl_sink {
	const sl_sink_vtab *vt;
	const char *table;
	int64_t rows_written;
	/* Set by the runtime before write, finish and pre_commit: the job's
	 * processing time (micros) and the sink's input watermark. */
	int64_t proc_now;
	int64_t wm;
	/* Set by configure when the guarantee depends on the options (the
	 * jdbc sink's 'sink.delivery-guarantee'): what EXPLAIN shows instead
	 * of vt->guarantee.  NULL = vt->guarantee. */
	const char *guarantee;
} sl_sink;

struct sl_sink_vtab {
	const char *name;
	size_t size;
	int accepts_updates; /* 1: can take -U/+U/-D (given the format/PK); see can_update */
	/* Whether this sink, as configured, takes updating streams (a PRIMARY
	 * KEY or a changelog format).  NULL = accepts_updates. */
	int (*can_update)(const sl_conn_args *a);
	const char *guarantee; /* "exactly-once", "at-least-once" (for EXPLAIN) */
	/* The METADATA keys the sink writes (NULL-terminated; NULL = none):
	 * a table's METADATA column that is not VIRTUAL and has one of these
	 * keys is one of the sink's columns (sl_conn_args.meta names its key),
	 * as Flink's writable metadata ('headers' of kafka).  Other METADATA
	 * columns are not written. */
	const char *const *metadata_keys;
	/* 1: with a PRIMARY KEY the sink takes an updating stream as upserts by
	 * key (Flink's upsert semantics): it never sees -U (op_sink.c drops it
	 * or turns it into -D of its key); +I/+U upsert, -D deletes by key. */
	int upsert;
	/* Reads and validates its options, as the source's configure (no
	 * I/O: an output directory is not created here). */
	int (*configure)(sl_sink *k, const sl_conn_args *a, sl_err *err);
	/* The I/O of starting (creates the output directory, reads the
	 * clock), once, after configure and before recover or write.  NULL =
	 * none. */
	int (*open)(sl_sink *k, sl_err *err);
	/* Writes the live rows of b (with their ops). */
	int (*write)(sl_sink *k, const sl_batch *b, sl_err *err);
	/*
	 * End of input or clean stop (also after a fatal error, for the rows
	 * before it): flush and publish everything written.  With
	 * args.checkpointing only flush: the final checkpoint publishes.
	 */
	int (*finish)(sl_sink *k, sl_err *err);
	/*
	 * Checkpoint protocol (docs/semantics.md §3; the operator hooks of the same
	 * names in src/exec/op.h forward to these); NULL = nothing to stage
	 * (print, blackhole).  Called between batches, in one thread:
	 * pre_commit at a barrier makes the output since the previous
	 * checkpoint durable but invisible and writes into w what publishing
	 * it needs; commit after the manifest is durable publishes it
	 * (idempotent); abort discards it; recover, before any write, gets the
	 * bytes pre_commit wrote for the restored checkpoint, publishes them if
	 * not yet published and discards every other staged output (SL_ESTATE
	 * when output of a newer checkpoint is already published).  The
	 * connector's file documents its exact contract.  Several instances:
	 * each pre-commits its own output; a restore gives every record of the
	 * checkpoint (one per old instance) to some new instance, at any new
	 * parallelism, one recover call per record before the first write
	 * (conn_fs_sink.c: a record may go to several; recover discards only
	 * the unlisted output of the instance that wrote it), and a fresh
	 * start calls recover(NULL) on every instance.
	 */
	int (*pre_commit)(sl_sink *k, int64_t ckpt_id, sl_snap_writer *w, sl_err *err);
	int (*commit)(sl_sink *k, int64_t ckpt_id, sl_err *err);
	int (*abort)(sl_sink *k, int64_t ckpt_id, sl_err *err);
	int (*recover)(sl_sink *k, sl_snap_reader *r, sl_err *err);
	/* Frees resources without publishing; safe after configure alone and
	 * after a failed configure or open. */
	void (*close)(sl_sink *k);
	/* The sink to use for a PARTITIONED BY table (a->part), or NULL when
	 * the connector cannot write partitioned tables. */
	const sl_sink_vtab *partitioned;
	/* 1: the sink runs as one instance at any parallelism, its input
	 * gathered into it (plan_par.c): one committer for a table (the
	 * iceberg sink).  0: one instance per instance of its input. */
	int single_instance;
};

/*
 * Lookups by key: a connector that can find the rows of its table whose
 * key columns equal a probe's, opened once per lookup join with the
 * columns it is looked up by.  This is the whole contract between a lookup
 * connector and the lookup join (exec/op_lookup_join.c, its one caller);
 * keys and rows travel in the encodings of data/rowcodec.h, the layer
 * below both.  Not checkpointed: what a lookup returns depends on when it
 * runs (Flink's lookup joins alike).
 */
typedef struct sl_lookup {
	const sl_lookup_vtab *vt;
	const char *table;
	int64_t loads;         /* times the table was (re)read (stats, tests) */
} sl_lookup;

struct sl_lookup_vtab {
	size_t size;
	/* Configures lookups by the fields keys[0..nkeys) (indexes into
	 * a->fields): reads its options ('lookup.cache' and the rest, refusing
	 * values it does not implement), without I/O.  Returns 0 or a code
	 * with err. */
	int (*configure)(sl_lookup *l, const sl_conn_args *a, const int *keys, int nkeys,
	                 sl_err *err);
	/* Checks at job start that the table can be read (its errors name the
	 * table and the file); NULL = nothing to check.  Returns 0 or a code
	 * with err. */
	int (*open)(sl_lookup *l, sl_err *err);
	/*
	 * The rows whose key fields, in the key form of data/rowcodec.h
	 * (sl_rowcodec_key over the fields of open's keys, in that order),
	 * are the bytes key[0..klen), at processing time now_us.  The caller
	 * never asks for a key with a NULL field (it matches nothing).  *rows
	 * points to *len bytes holding, per row, u32 n + n bytes of the row:
	 * the row form of every field of the table (sl_rowcodec_row), which
	 * the caller decodes with sl_rowcodec_decode_cols; valid until the
	 * next call.  Returns 0 (no rows: *len = 0) or a negative code with
	 * err (the table could not be read).
	 */
	int (*lookup)(sl_lookup *l, const void *key, uint32_t klen, int64_t now_us,
	              const void **rows, uint32_t *len, sl_err *err);
	/*
	 * Optional (NULL = none): the keys of one probe batch before its
	 * lookups, so a connector that queries a server asks for all the keys
	 * it lacks in one statement (the jdbc lookup, conn_jdbc_lookup.c).
	 * keys holds nkeys entries of u32 length + key bytes (the form of
	 * lookup's key; keys with a NULL field are left out; a key may
	 * repeat).  The lookups that follow, for these keys at this now_us,
	 * must answer from what this call fetched.  Returns 0 or a negative
	 * code with err.
	 */
	int (*prefetch)(sl_lookup *l, const void *keys, size_t len, int nkeys, int64_t now_us,
	                sl_err *err);
	/* Frees resources; safe after configure alone and after a failed
	 * configure or open. */
	void (*close)(sl_lookup *l);
};

const sl_source_vtab *sl_source_find(const char *connector);
const sl_sink_vtab *sl_sink_find(const char *connector);

/*
 * Allocate + configure (no I/O): what the planner calls.  NULL with err set
 * on failure (the half-configured connector is closed and freed).  The
 * caller owns the result; free with sl_source_free / sl_sink_free /
 * sl_lookup_free, which close it (opened or not).
 */
sl_source *sl_source_new(const sl_source_vtab *vt, const sl_conn_args *a, sl_err *err);
sl_sink *sl_sink_new(const sl_sink_vtab *vt, const sl_conn_args *a, sl_err *err);
/* ... a lookup of vt by the fields keys[0..nkeys). */
sl_lookup *sl_lookup_new(const sl_lookup_vtab *vt, const sl_conn_args *a, const int *keys,
                         int nkeys, sl_err *err);
/*
 * Open a configured connector (its vtab's open, if any): what the runtime
 * calls when the job starts, once.  0 or a negative code with err set
 * (naming the table when the connector's message does not); the connector
 * stays owned by the caller and is freed as usual.
 */
int sl_source_open(sl_source *s, sl_err *err);
int sl_sink_open(sl_sink *k, sl_err *err);
int sl_lookup_open(sl_lookup *l, sl_err *err);
/* sl_source_new then sl_source_open (the same for sinks): a connector
 * ready to read or write, for connectors that start others at run time
 * (a lookup's table reads, a partition's sink) and for tests. */
sl_source *sl_source_new_open(const sl_source_vtab *vt, const sl_conn_args *a, sl_err *err);
sl_sink *sl_sink_new_open(const sl_sink_vtab *vt, const sl_conn_args *a, sl_err *err);
/* Close + free.  Safe on NULL. */
void sl_source_free(sl_source *s);
void sl_sink_free(sl_sink *k);
void sl_lookup_free(sl_lookup *l);

#endif
