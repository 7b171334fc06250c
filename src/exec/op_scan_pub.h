/*
 * op_scan_pub.h - a scan's splits as the live metrics see them
 * (op_scan_pub.c).
 */
#ifndef SL_OP_SCAN_PUB_H
#define SL_OP_SCAN_PUB_H

#include "../base/counter.h"
#include "../connector/conn.h"
#include "sluice.h"

typedef struct sl_scan_pub {
	int n; /* entries: the source's splits at open, or 1 */
	struct sl_scan_pub_split {
		char name[96];           /* set at open, then read only ("": the
		                          * source has no splits) */
		int64_t wm, rows, last_ts, last_us;
		int idle, done;
		int elsewhere;           /* another instance reads it: not listed */
	} *s;
} sl_scan_pub;

/* One entry per split of src (NULL: a push table's scan), named by the
 * source.  At open, on the scan's thread.  NULL when out of memory (the
 * splits are then not shown). */
sl_scan_pub *sl__scan_pub_new(sl_source *src);

/* A batch of nrows rows of split `split` (-1: no splits) whose last row's
 * rowtime is last_ts (SL_WM_MIN: none).  The scan's thread.  p may be NULL. */
void sl__scan_pub_batch(sl_scan_pub *p, int split, int nrows, int64_t last_ts);

/* Copies the splits' watermarks, idleness and ends from src (the scan's
 * own watermark and end when it has no splits).  The scan's thread. */
void sl__scan_pub_sync(sl_scan_pub *p, const sl_source *src, int64_t scan_wm, int ended);

/* Copies up to cap entries into out (node and instance left to the
 * caller); returns how many.  Any thread. */
int sl__scan_pub_read(const sl_scan_pub *p, sl_metric_split *out, int cap);

void sl__scan_pub_free(sl_scan_pub *p);

#endif
