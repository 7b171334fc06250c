/*
 * conn_fs_int.h - shared internals of the 'filesystem' connector's files:
 * conn_filesystem.c (source), conn_fs_sink.c (unpartitioned sink), conn_fs_partition.c
 * (PARTITIONED BY tables: the sink writing one directory per partition
 * and the source reading partition values from directory names).
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

#endif
