/*
 * op_scan_pub.c - what a scan publishes about its source's splits for the
 * live metrics ("why no output?": which file split or Kafka partition
 * holds the watermark back; docs/observability.md).
 *
 * At open the scan gets one entry per split its instance owns (one for a
 * source without splits: stdin, push tables), named once by the source
 * (sl_source_vtab.split_name: "topic 'orders' partition 3", "file
 * 'a.json'"), so no other thread ever reads the source.  Per batch the
 * scan's thread adds the split's rows and stores the rowtime of its last
 * row and the wall clock (two relaxed stores and an add: base/counter.h);
 * sl_graph_publish (op_observe.c) copies the splits' watermarks,
 * idleness and ends from the source's arrays every quarter of a second
 * and before the thread sleeps; a split another instance reads (a
 * pooled range, conn.h's split_elsewhere) is left out of the list.  The
 * snapshot reads the entries with
 * SL_CTR_GET (sl__scan_pub_read).
 */
#include "op_scan_pub.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

sl_scan_pub *sl__scan_pub_new(sl_source *src)
{
	int n = src && src->nsplits > 0 && src->split_wm ? src->nsplits : 1;
	sl_scan_pub *p = calloc(1, sizeof(*p));
	if (!p || !(p->s = calloc((size_t)n, sizeof(*p->s)))) {
		free(p);
		return NULL;
	}
	p->n = n;
	for (int i = 0; i < n; i++) {
		p->s[i].wm = p->s[i].last_ts = SL_WM_MIN;
		if (!src || src->nsplits <= 0)
			p->s[i].name[0] = 0; /* its whole input */
		else if (src->vt->split_name)
			src->vt->split_name(src, i, p->s[i].name, sizeof(p->s[i].name));
		else
			snprintf(p->s[i].name, sizeof(p->s[i].name), "split %d", i);
	}
	return p;
}

void sl__scan_pub_batch(sl_scan_pub *p, int split, int nrows, int64_t last_ts)
{
	if (!p || split >= p->n)
		return;
	if (split < 0)
		split = 0;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	SL_CTR_ADD(p->s[split].rows, nrows);
	if (last_ts != SL_WM_MIN)
		SL_CTR_SET(p->s[split].last_ts, last_ts);
	SL_CTR_SET(p->s[split].last_us, (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

void sl__scan_pub_sync(sl_scan_pub *p, const sl_source *src, int64_t scan_wm, int ended)
{
	if (!p)
		return;
	if (!src || src->nsplits <= 0 || !src->split_wm) {
		SL_CTR_SET(p->s[0].wm, scan_wm);
		SL_CTR_SET(p->s[0].done, ended);
		return;
	}
	for (int i = 0; i < p->n && i < src->nsplits; i++) {
		SL_CTR_SET(p->s[i].wm, src->split_wm[i]);
		SL_CTR_SET(p->s[i].idle, src->split_idle ? (int)src->split_idle[i] : 0);
		SL_CTR_SET(p->s[i].done, src->split_done ? (int)src->split_done[i] : 0);
		SL_CTR_SET(p->s[i].elsewhere,
		           src->split_elsewhere ? (int)src->split_elsewhere[i] : 0);
	}
}

int sl__scan_pub_read(const sl_scan_pub *p, sl_metric_split *out, int cap)
{
	int n = 0;
	for (int i = 0; p && i < p->n && n < cap; i++) {
		if (SL_CTR_GET(p->s[i].elsewhere))
			continue; /* another instance's (a pooled range it took) */
		sl_metric_split *o = &out[n++];
		o->index = i;
		snprintf(o->name, sizeof(o->name), "%s", p->s[i].name);
		o->wm = SL_CTR_GET(p->s[i].wm);
		o->rows = SL_CTR_GET(p->s[i].rows);
		o->last_event_ts = SL_CTR_GET(p->s[i].last_ts);
		o->last_row_us = SL_CTR_GET(p->s[i].last_us);
		o->idle = SL_CTR_GET(p->s[i].idle);
		o->done = SL_CTR_GET(p->s[i].done);
	}
	return n;
}

void sl__scan_pub_free(sl_scan_pub *p)
{
	if (!p)
		return;
	free(p->s);
	free(p);
}
