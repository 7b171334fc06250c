/*
 * api_iceberg.c - the Iceberg maintenance entry points of include/sluice.h
 * (sl_iceberg_expire_snapshots, sl_iceberg_rewrite_data_files): argument parsing and the report around
 * the connector layer's table code (connector/iceberg.h,
 * conn_iceberg_meta.c).  No engine handle: maintenance works on a table
 * directory, not a job.  docs/iceberg.md "Table maintenance".
 */
#include "sluice.h"
#include "base/err.h"
#include "base/opts.h"
#include "base/timeutil.h"
#include "connector/iceberg.h"

#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#define DEFAULT_AGE_US (5LL * 86400 * 1000000) /* history.expire.max-snapshot-age-ms */

SL_API int sl_iceberg_rewrite_data_files(const char *table, int64_t target_bytes, char *msg,
                                        size_t cap)
{
	sl_err err;
	sl_iceberg_rewritten st;
	sl_err_clear(&err);
	int rc = sl_iceberg_rewrite(table, target_bytes, &st, &err);
	if (rc) {
		snprintf(msg, cap, "%s", err.msg);
		return rc;
	}
	if (st.data_after == 0 && st.rows == 0)
		snprintf(msg, cap, "nothing to rewrite: %d data files, one per partition, and no "
		         "delete files", st.data_before);
	else
		snprintf(msg, cap, "rewrote %d data files and %d delete files into %lld data files "
		         "of %lld rows", st.data_before, st.deletes_before, (long long)st.data_after,
		         (long long)st.rows);
	return 0;
}

SL_API int sl_iceberg_expire_snapshots(const char *table, const char *older_than,
                                       int retain_last, char *msg, size_t cap)
{
	struct timeval tv;
	int64_t now_us, cut_us, d;
	sl_err err;
	sl_iceberg_expired st;
	sl_err_clear(&err);
	gettimeofday(&tv, NULL);
	now_us = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
	if (!older_than)
		cut_us = now_us - DEFAULT_AGE_US;
	else if (sl_parse_duration(older_than, &d) == 0)
		cut_us = now_us - d;
	else if (sl_ts_parse(older_than, strlen(older_than), &cut_us) != 0) {
		snprintf(msg, cap, "--older-than '%s' is neither a timestamp "
		         "('2026-12-01 00:00:00') nor a duration ('5 d')", older_than);
		return SL_EINVAL;
	}
	int rc = sl_iceberg_expire(table, cut_us / 1000, retain_last, &st, &err);
	if (rc) {
		snprintf(msg, cap, "%s", err.msg);
		return rc;
	}
	if (st.expired == 0)
		snprintf(msg, cap, "nothing to expire: %d snapshots kept (version %lld)", st.kept,
		         (long long)st.version);
	else
		snprintf(msg, cap, "expired %d snapshots, kept %d, deleted %d manifest files; "
		         "version %lld", st.expired, st.kept, st.files_deleted, (long long)st.version);
	return 0;
}
