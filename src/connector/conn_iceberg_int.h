/*
 * conn_iceberg_int.h - what the files of the Iceberg sink share
 * (docs/iceberg.md): conn_iceberg.c (the sink: data files, the checkpoint
 * hooks), conn_iceberg_delta.c (key positions and position deletes for
 * upserts), conn_iceberg_stats.c (column bounds), conn_iceberg_meta.c (the Hadoop catalog: table metadata JSON,
 * creating the table, reading the current version, committing a snapshot
 * atomically), conn_iceberg_avro.c (manifests and manifest lists in
 * Avro) and conn_iceberg_part.c (the partition spec and its transforms).
 * Internal to src/connector.
 */
#ifndef SL_CONN_ICEBERG_INT_H
#define SL_CONN_ICEBERG_INT_H

#include "conn.h"
#include "base/arena.h"
#include "base/buf.h"

/* A column of the table: its Iceberg id (position + 1) and type. */
typedef struct ice_col {
	const char *name;
	sl_type type;
	int id;
} ice_col;

/* Partition transforms (conn_iceberg_part.c). */
enum { ICE_T_IDENTITY, ICE_T_YEAR, ICE_T_MONTH, ICE_T_DAY, ICE_T_HOUR, ICE_T_BUCKET,
       ICE_T_TRUNCATE };

/* A field of the partition spec: the source column, the partition field
 * id (1000 + position), the transform and its parameter, the name. */
typedef struct ice_pfield {
	int col;       /* index into the table's columns */
	int field_id;
	int transform; /* ICE_T_* */
	int param;     /* bucket count, truncate width */
	char *name;    /* malloc'd */
} ice_pfield;

/* The table as the sink sees it: its columns, partition spec and place. */
typedef struct ice_table {
	const char *name;      /* the sink's table, for messages */
	char *dir;             /* the table directory (local path) */
	char *loc;             /* its location in metadata ("/abs/path" or "file:/abs/path") */
	ice_col *cols;
	int ncols;
	ice_pfield *pf;
	int npf;
	const int *pk;         /* identifier fields (PRIMARY KEY columns) */
	int npk;
} ice_table;

/* Content of a file in a manifest (the spec's data_file.content). */
enum { ICE_DATA = 0, ICE_POS_DELETES = 1, ICE_EQ_DELETES = 2 };

/* A data or delete file written and closed, waiting for a snapshot. */
typedef struct ice_file {
	char *path;            /* absolute path as listed in the manifest */
	int content;           /* ICE_DATA, ICE_POS_DELETES, ICE_EQ_DELETES */
	int64_t rows, bytes;   /* rows: records (delete files: deletes) */
	sl_buf part;           /* the Avro encoding of its partition record */
	int64_t *nulls;        /* per column: NULL values */
	int ncols;
	sl_buf bounds;         /* data files: the Avro encoding of its lower_bounds
	                        * and upper_bounds (conn_iceberg_stats.c); empty = none */
} ice_file;

/* One snapshot to commit: data and delete files and the checkpoint they
 * end.  Delete files get the snapshot's sequence number like its data
 * files: equality deletes apply to data files of earlier snapshots only,
 * position deletes to any file at or below it (the spec's "Scan
 * Planning"). */
typedef struct ice_commit {
	const ice_file *files;
	int nfiles;
	const char *job;       /* flink.job-id in the summary; NULL: none */
	int64_t ckpt;          /* flink.max-committed-checkpoint-id; <= 0: none */
	/* A replace (rewrite-data-files): the snapshot lists files only and
	 * marks gone[] DELETED, instead of carrying the parent's manifests;
	 * it is committed only on top of snapshot base (else SL_ESTATE with
	 * "changed" in the message: the caller starts over). */
	int replace;
	int64_t base;
	const struct ice_gone *gone;
	int ngone;
} ice_commit;

/* A live file of a snapshot, as its manifest entry says (rewrite). */
typedef struct ice_gone {
	int content;           /* ICE_DATA, ICE_POS_DELETES, ICE_EQ_DELETES */
	int64_t seq, fseq;     /* data and file sequence numbers (inherited resolved) */
	int64_t rows, bytes;
	char *path;            /* local path */
	sl_buf part;           /* the partition record */
	sl_buf df;             /* the whole data_file record */
} ice_gone;

/* ---- conn_iceberg.c: the sink, for rewrite-data-files -------------------- */

/* The table of an iceberg sink (after open). */
const ice_table *sl__ice_sink_table(const sl_sink *s);
/*
 * Closes the sink's files (written without checkpointing) and commits them
 * as a replace of snapshot base removing gone[0..ngone) (ice_commit);
 * their count and rows into *files, *rows.  On failure the files are
 * deleted.  0 or a code with err.
 */
int sl__ice_sink_replace(sl_sink *s, int64_t base, const struct ice_gone *gone, int ngone,
                         int64_t *files, int64_t *rows, sl_err *err);

/* ---- conn_iceberg_delta.c ----------------------------------------------- */

/* A key's row written since the last checkpoint: data file (an index
 * into the sink's list of the checkpoint's data files; -1 = deleted) and
 * the row's ordinal in it. */
typedef struct ice_rowslot {
	const void *key;       /* NULL = empty slot */
	size_t len;
	uint64_t hash;
	int32_t file;
	int64_t pos;
} ice_rowslot;

typedef struct ice_rowmap {
	ice_rowslot *slots;
	int64_t cap, n;        /* cap a power of 2 */
	sl_arena keys;
} ice_rowmap;

void sl__ice_rowmap_init(ice_rowmap *m);
/* Forgets every key (a checkpoint closed their files). */
void sl__ice_rowmap_clear(ice_rowmap *m);
void sl__ice_rowmap_free(ice_rowmap *m);
/* 1 and the position of key's live row (then marked deleted); 2 when the
 * key is known dead in this checkpoint (its row deleted, or it was
 * deleted by equality); 0 when the key is not in the map. */
int sl__ice_rowmap_take(ice_rowmap *m, const void *key, size_t n, int32_t *file,
                        int64_t *pos);
/* 1 and key's (file, pos), live or dead, or 0 when it is not in the map. */
int sl__ice_rowmap_get(ice_rowmap *m, const void *key, size_t n, int32_t *file,
                       int64_t *pos);
/* Records key's row at (file, pos) (file -1: the key is dead): 1 with the
 * position of the live row it replaces in *pfile, *ppos, 0 when none, -1
 * when out of memory. */
int sl__ice_rowmap_put(ice_rowmap *m, const void *key, size_t n, int32_t file, int64_t pos,
                       int32_t *pfile, int64_t *ppos);

/* Position deletes of one partition, waiting for the checkpoint. */
typedef struct ice_posdel {
	int32_t file;          /* index into the checkpoint's data file paths */
	int64_t pos;
} ice_posdel;

typedef struct ice_posgrp {
	sl_buf part;           /* the partition record (Avro) */
	char *dir;             /* the partition's directory ("a=1/", "" unpartitioned) */
	ice_posdel *d;
	int64_t n, cap;
} ice_posgrp;

/* 0 or -1 (out of memory). */
int sl__ice_posdel_add(ice_posgrp *g, int32_t file, int64_t pos);
/* Sorts g's deletes by file path (paths[file]), then position. */
void sl__ice_posdel_sort(ice_posgrp *g, char *const *paths);
void sl__ice_posgrp_free(ice_posgrp *g);

/* ---- conn_iceberg_stats.c ----------------------------------------------- */

/* The smallest and largest non-null value of a column in a data file. */
typedef struct ice_stat {
	int has;               /* a value was seen */
	int64_t ilo, ihi;      /* integers, dates, times, timestamps, booleans */
	double dlo, dhi;       /* FLOAT, DOUBLE (NaN skipped) */
	sl_i128 qlo, qhi;      /* DECIMAL unscaled */
	sl_buf slo, shi;       /* strings, binary (whole values) */
} ice_stat;

/* Folds row `row` of b (the table's columns) into st[0..t->ncols).  0 or
 * -1 (out of memory). */
int sl__ice_stats_add(ice_stat *st, const ice_table *t, const sl_batch *b, int row);
/* Appends the lower_bounds and upper_bounds of st as the manifest entry's
 * two ["null", map<int, bytes>] fields.  0 or -1. */
int sl__ice_stats_encode(const ice_stat *st, const ice_table *t, sl_buf *out);
void sl__ice_stats_free(ice_stat *st, int n);

/* ---- conn_iceberg_meta.c ------------------------------------------------ */

/* Reads the whole file at path into b (cleared first).  0, or -1 with
 * errno set. */
int sl__ice_read_file(const char *path, sl_buf *b);

/*
 * Creates the table when it has no metadata yet (metadata/v1.metadata.json
 * published with link(), so a concurrent creator fails cleanly and this one
 * uses the winner's table), else checks that the current metadata's schema
 * and partition spec are the DDL's.  0 or a code with err.
 */
int sl__ice_table_open(ice_table *t, sl_err *err);
/*
 * The highest flink.max-committed-checkpoint-id of job among the table's
 * snapshots (0 when none) into *max.  0 or a code with err.
 */
int sl__ice_committed(ice_table *t, const char *job, int64_t *max, sl_err *err);
/*
 * Commits c as one append snapshot: writes the manifest and the manifest
 * list (the parent's manifests carried forward), then v<N+1>.metadata.json
 * by link() (never overwriting: a concurrent writer that got there first
 * makes it re-read and retry), then version-hint.text.  When c->ckpt > 0
 * and the table already holds a snapshot of c->job with that checkpoint id
 * or a later one, commits nothing (idempotent).  0 or a code with err.
 */
int sl__ice_commit(ice_table *t, const ice_commit *c, sl_err *err);

/* A table as its current metadata describes it (rewrite-data-files). */
#define ICE_MAX_COLS 1024
typedef struct ice_dcol { char *name, *type; int id, required; } ice_dcol;
typedef struct ice_dpart { char *name, *transform; int source; } ice_dpart;
typedef struct ice_desc {
	ice_dcol cols[ICE_MAX_COLS];
	int ncols;
	int pk_ids[ICE_MAX_COLS];
	int npk;
	ice_dpart pf[ICE_MAX_COLS];
	int npf;
	int64_t snap;           /* current snapshot, <= 0 none */
	char mlist[4096];       /* its manifest list (local path) */
} ice_desc;
/* Reads dir's current schema (primitive types only), identifier fields,
 * default partition spec and current snapshot.  0 or a code with err. */
int sl__ice_describe(const char *dir, ice_desc *d, sl_err *err);
void sl__ice_desc_free(ice_desc *d);

/* ---- conn_iceberg_avro.c ------------------------------------------------ */

/* Appends name as a valid Avro name, as Iceberg's
 * AvroSchemaUtil.makeCompatibleName makes it: a leading digit d becomes
 * "_d", a character other than [A-Za-z0-9_] "_x" and its code in hex.
 * Partition fields in manifests and data file columns are named so
 * (readers find them by field id).  0 or -1 (out of memory). */
int sl__ice_avro_name(sl_buf *out, const char *name);
/* The Avro schema (JSON) of the manifest entries for t's partition spec. */
int sl__ice_manifest_schema(const ice_table *t, sl_buf *out);
/* ---- conn_iceberg_part.c ------------------------------------------------ */

/*
 * The partition spec: identity fields for the PARTITIONED BY columns
 * part[0..npart), then the fields of the 'partitioning' option spec (NULL
 * = none), checked against the columns' types.  *pf malloc'd (free with
 * sl__ice_pfields_free).  0 or a code with err naming the table.
 */
int sl__ice_partitioning(const char *spec, const int *part, int npart, const sl_field *fields,
                         int nfields, const char *table, ice_pfield **pf, int *npf,
                         sl_err *err);
void sl__ice_pfields_free(ice_pfield *pf, int n);
/* The transform as the spec names it ("identity", "hour", "bucket[16]"). */
const char *sl__ice_transform_name(const ice_pfield *pf, char *buf, size_t cap);
/* The Avro type (JSON) of partition field pf over a column of type ty. */
const char *sl__ice_part_avro_type(const ice_pfield *pf, sl_type ty);
/* Appends the Avro encoding of pf's value for row `row` of column c (a
 * ["null", type] union) to out.  0 or -1 (out of memory). */
int sl__ice_part_value(const ice_pfield *pf, const sl_col *c, int row, sl_buf *out);
/* Appends the directory "<name>=<value>/" of pf for row `row` of c. */
int sl__ice_part_path(const ice_pfield *pf, const sl_col *c, int row, const char *tz,
                      sl_buf *out);
/* Murmur3 x86 32-bit, seed 0: the hash of Iceberg's bucket transform. */
uint32_t sl__ice_murmur3(const void *data, size_t n);
/*
 * The manifest of the data files (deletes = 0) or the delete files
 * (deletes = 1) among files[0..n) added by snapshot snap_id into out (a
 * whole Avro file with the header metadata the spec requires: schema,
 * schema-id, partition-spec, partition-spec-id, format-version, content
 * "data" or "deletes"); equality delete files carry the identifier
 * fields as equality_ids.
 */
int sl__ice_manifest(const ice_table *t, const char *schema_json, const char *spec_json,
                     int64_t snap_id, const ice_file *files, int n, int deletes, sl_buf *out);
/* A manifest_file record of the manifest list, kept as its Avro bytes. */
typedef struct ice_mref {
	sl_buf rec;            /* the record's encoding */
	int content;           /* 0 data, 1 deletes */
	int64_t files, rows;   /* added + existing */
} ice_mref;
/* The manifest (deletes: of delete files) marking the gone[] entries of
 * that content DELETED by snapshot snap, with their sequence numbers. */
int sl__ice_manifest_gone(const ice_table *t, const char *schema_json, const char *spec_json,
                          int64_t snap, const ice_gone *gone, int n, int deletes, sl_buf *out);
/*
 * Reads the live entries of the manifests of manifest list `mlist` (one
 * sluice wrote) into *gone (n of them, malloc'd; free with
 * sl__ice_gone_free).  0 or a code with err.
 */
int sl__ice_live_entries(const ice_table *t, const char *mlist, ice_gone **gone, int *n,
                         sl_err *err);
void sl__ice_gone_free(ice_gone *g, int n);
/* Encodes the manifest_file record of a new manifest (added files only;
 * content 0 data, 1 deletes; rows: records or deletes; gone: a manifest
 * of DELETED entries, files and rows then its deleted counts). */
int sl__ice_mref_new(ice_mref *m, const char *path, int64_t len, int64_t seq, int64_t snap,
                     int content, int64_t files, int64_t rows);
int sl__ice_mref_gone(ice_mref *m, const char *path, int64_t len, int64_t seq, int64_t minseq,
                      int64_t snap, int content, int64_t files, int64_t rows);
/*
 * Reads a manifest list written by sluice (the same Avro schema; another
 * writer's is refused with a message naming the file) into *refs (n of
 * them, malloc'd; free with sl__ice_mrefs_free).  0 or a code with err.
 */
int sl__ice_mlist_read(const char *path, ice_mref **refs, int *n, sl_err *err);
/* The same over the file's bytes p[0..len) (path for messages); on
 * failure *refs may hold *n records to free. */
int sl__ice_mlist_parse(const void *p, size_t len, const char *path, ice_mref **refs, int *n,
                        sl_err *err);
void sl__ice_mrefs_free(ice_mref *refs, int n);
/* The manifest list of refs[0..n) for snapshot snap (parent, seq) into out. */
int sl__ice_mlist(const ice_mref *refs, int n, int64_t snap, int64_t parent, int64_t seq,
                  sl_buf *out);

/* Iceberg's name of a sluice type ("long", "decimal(10, 2)"), or NULL. */
const char *sl__ice_type_name(sl_type t, char *buf, size_t cap);

#endif
