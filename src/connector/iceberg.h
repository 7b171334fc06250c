/*
 * iceberg.h - Iceberg table maintenance for the layers above the
 * connectors (the API's sl_iceberg_expire_snapshots and
 * sl_iceberg_rewrite_data_files, `sluice iceberg expire-snapshots` and
 * `rewrite-data-files`): implemented by the iceberg sink's catalog code,
 * conn_iceberg_meta.c, and conn_iceberg_rewrite.c (docs/iceberg.md "Table
 * maintenance").
 */
#ifndef SL_ICEBERG_H
#define SL_ICEBERG_H

#include <stdint.h>

#include "../base/err.h"

/* What sl_iceberg_expire did. */
typedef struct sl_iceberg_expired {
	int expired, kept;      /* snapshots */
	int files_deleted;      /* manifest lists and manifests */
	int64_t version;        /* the table's current version after it */
} sl_iceberg_expired;

/*
 * Expires the snapshots of the table in directory dir (a Hadoop-catalog
 * table: dir/metadata/vN.metadata.json) committed before older_ms
 * (milliseconds since the epoch), keeping the current snapshot and the
 * `retain` most recent ones (>= 1): a new metadata version without them,
 * published by link() like a commit (retried when a concurrent writer
 * wins), then their manifest lists and the manifests no kept snapshot
 * lists are deleted; data files are not (in the append-only tables sluice
 * writes, the current snapshot lists every one).  Refuses a table whose
 * manifest lists sluice did not write.  Nothing to expire: no new version.
 * 0 or a code with err.
 */
int sl_iceberg_expire(const char *dir, int64_t older_ms, int retain, sl_iceberg_expired *st,
                      sl_err *err);

/* What sl_iceberg_rewrite did. */
typedef struct sl_iceberg_rewritten {
	int data_before, deletes_before; /* live data and delete files before */
	int64_t data_after, rows;        /* data files written and their rows; 0 = nothing done */
} sl_iceberg_rewritten;

/*
 * rewrite-data-files: the live rows of the table in directory dir (its
 * deletes applied) written again into data files of at most target bytes
 * each (<= 0: the table's default, 512 MB) per partition, committed as
 * one replace snapshot that removes every old data and delete file; done
 * only when a partition has two data files or there are delete files.
 * Starts over when another writer commits meanwhile.  Only tables sluice
 * wrote (their manifests' schema).  0 or a code with err.
 */
int sl_iceberg_rewrite(const char *dir, int64_t target, sl_iceberg_rewritten *st, sl_err *err);

#endif
