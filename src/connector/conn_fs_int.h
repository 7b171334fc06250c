/*
 * conn_fs_int.h - shared internals of the 'filesystem' connector's files:
 * conn_filesystem.c (source), conn_fs_sink.c (unpartitioned sink), conn_fs_partition.c
 * (PARTITIONED BY tables: the sink writing one directory per partition
 * and the source reading partition values from directory names),
 * conn_fs_fill.c (the source's columns its format does not read).
 * Internal to src/connector.
 */
#ifndef SL_CONN_FS_INT_H
#define SL_CONN_FS_INT_H

#include "conn_builtin.h"
#include "../base/buf.h"

extern const sl_sink_vtab sl__fs_partitioned_sink_vtab;

/* conn_format.c: sl__conn_decoder / sl__conn_encoder (conn_lines.h)
 * for the filesystem connector, which also takes the file formats
 * (Parquet, format.h's file hooks).  NULL with err. */
struct sl_decoder *sl__fs_decoder(const sl_conn_args *a, sl_err *err);
struct sl_encoder *sl__fs_encoder(const sl_conn_args *a, sl_err *err);

/*
 * conn_fs_pool.c: the pool of a cut file's ranges the instances of one
 * source share in a parallel run (docs/parallel.md §4.1).  A range is
 * named by its number in the file (0 .. nranges - 1).
 */
#define SL__FS_RUN 4 /* the longest run of ranges an instance takes at once */
typedef struct sl__fs_pool_file sl__fs_pool_file;
/* The pool of file `name` cut at `cut` bytes into nranges ranges, in the
 * share slot: found, or made holding the ranges j with !done[j] in order
 * (the caller's view, the same at every instance).  NULL with err when
 * out of memory or when it was made with another count of ranges. */
sl__fs_pool_file *sl__fs_pool_get(sl_conn_share *sh, const char *name, int64_t cut,
                                  int64_t nranges, const uint8_t *done, sl_err *err);
/* Takes a run from the front: min(SL__FS_RUN, max(1, ceil(left / (2 *
 * nsub)))) list entries, *n of them (0 when the pool is empty) from the
 * returned list position.  Lock-free; any thread. */
int sl__fs_pool_take(sl__fs_pool_file *pf, int nsub, int *n);
/* How many list entries were taken so far (by any instance). */
int sl__fs_pool_front(sl__fs_pool_file *pf);
/* List entry i: a range number. */
int32_t sl__fs_pool_range(const sl__fs_pool_file *pf, int i);

/* conn_fs_lookup.c: the lookup method of filesystem tables. */
extern const sl_lookup_vtab sl__fs_lookup_vtab;

/* conn_fs_lookup.c: validates (and marks read) the 'lookup.*' options of a
 * filesystem table, so a table declared for lookups can be scanned too.
 * 0 or SL_EINVAL with err. */
int sl__fs_lookup_options(const sl_conn_args *a, sl_err *err);

/*
 * The local path of a 'path' option: "file:///x" and "file:/x" become
 * "/x", a plain path stays; another scheme (hdfs://, s3://, ...) is
 * refused: NULL with err naming the table.  Returns a pointer into path.
 */
const char *sl__fs_local_path(const char *path, const char *what, const char *table,
                              sl_err *err);

/* 1 when an unpartitioned filesystem sink has nothing open, waiting,
 * staged or pending: it can be closed without losing output. */
int sl__fs_sink_idle(const sl_sink *s);

/* Validates (and marks read) the sink-side options of a filesystem table
 * (partition commit, rolling policy): the source and the unpartitioned
 * sink accept them as Flink does (the unpartitioned sink ignores the
 * partition-commit ones).  0 or SL_EINVAL / SL_ENOTSUP with err. */
int sl__fs_check_commit_options(const sl_conn_args *a, sl_err *err);

/* The source's list of files for a partitioned directory (depth = npart),
 * relative names sorted byte-wise, plus each file's partition values:
 * values[f * npart + k] (NULL = __DEFAULT_PARTITION__, i.e. SQL NULL).
 * malloc'd arrays owned by the caller.  0, or an error with err. */
int sl__fs_list_partitions(const char *root, int npart, const char *const *names,
                           const char *default_name, char ***files, char ***values,
                           int *nfiles, const char *table, sl_err *err);

/*
 * The columns of a filesystem source that its format does not read
 * (conn_fs_fill.c): PARTITIONED BY columns, from the file's directory
 * names, and METADATA columns (Flink's file.path, file.name, file.size,
 * file.modification-time), from the file itself.  The decoder fills a
 * view of the batch holding the other ("data") columns; these are then
 * set for the new rows from the current file's values, each batch
 * holding rows of one file.
 */
typedef struct sl__fs_fval { /* one value of the current file, typed as its column */
	int is_null;
	int64_t i64;
	double f64;
	sl_str str;
} sl__fs_fval;

typedef struct sl__fs_fill {
	int npart;            /* partition columns */
	int *pcol;            /* their batch column indexes */
	const char **pnames;  /* their names (fields' strings) */
	char *default_name;   /* 'partition.default-name' */
	char **values;        /* per file, npart values (NULL = SQL NULL), from
	                       * sl__fs_list_partitions */
	int nmeta;            /* METADATA columns */
	int *mcol;            /* their batch column indexes */
	int *mkey;            /* their keys (sl__fs_meta_keys indexes) */
	char **mpaths;        /* per file, its absolute path (file.path), lazily */
	int ndata;            /* the decoded columns */
	int *dcol;            /* their batch column indexes */
	sl_col *vcols;        /* scratch: the decoder's view of the batch */
	sl_field *dfields;    /* the decoder's fields (the decoder points at them) */
	const sl_field *fields; /* the table's columns */
	sl__fs_fval *val;     /* the current file's values: npart, then nmeta */
	int val_file;         /* the file val belongs to, -1 */
	int nfiles;           /* files of mpaths (set by the source's open) */
} sl__fs_fill;

/* The METADATA keys the filesystem source reads (NULL-terminated). */
extern const char *const sl__fs_meta_keys[];

/* 1 when the source of a has partition or METADATA columns. */
int sl__fs_fill_wanted(const sl_conn_args *a);
/* Sets up fl for a (its types checked) and *da to the decoder's args (the
 * data columns only).  0, or an error with err naming the column. */
int sl__fs_fill_configure(sl__fs_fill *fl, const sl_conn_args *a, sl_conn_args *da,
                          sl_err *err);
/* The values of file `file` (shown as `name` in messages) for the next
 * rows, when they are not loaded yet.  0, or SL_EINPUT / SL_EIO naming the
 * file and the column. */
int sl__fs_fill_load(sl__fs_fill *fl, int file, const char *name, const char *table,
                     sl_err *err);
/* v becomes a view of out holding the data columns (rows and arena stay
 * out's); after decoding into it, sl__fs_fill_rows sets the other
 * columns of rows [first, out->nrows) from the loaded file's values. */
void sl__fs_fill_view(sl__fs_fill *fl, sl_batch *out, sl_batch *v);
void sl__fs_fill_rows(const sl__fs_fill *fl, sl_batch *out, int first);
/* Frees what fl holds (values and mpaths of fl->nfiles files) and zeroes it. */
void sl__fs_fill_free(sl__fs_fill *fl);

#endif
