/*
 * iceberg.h - Iceberg table maintenance for the layers above the
 * connectors (the API's sl_iceberg_expire_snapshots, `sluice iceberg
 * expire-snapshots`): implemented by the iceberg sink's catalog code,
 * conn_iceberg_meta.c (docs/iceberg.md "Table maintenance").
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

#endif
