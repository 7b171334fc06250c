/*
 * op_observe.c - what an operator publishes for the live metrics besides
 * its counters (docs/observability.md, "Why is there no output yet?"):
 * what it holds (the oldest open window or pending row and its entries,
 * its state's size) and the rows it dropped as late in the last minute.
 *
 * An operator's state may be read only by the thread that runs it, so that
 * thread publishes: sl_graph_publish, called by the run loops (runtime/
 * run.c at parallelism 1, each task's loop in runtime/prun.c above) once
 * per step, does nothing until a quarter of a second passed since the
 * graph's last publication, unless the caller is about to sleep (idle):
 * then it publishes at once, so what a stalled job holds is always
 * published.  For each operator whose rows in or watermark changed since
 * it last published: the smallest namespace above its watermark over the
 * tables whose namespaces are times (a window's end, a pending row's
 * time, a timer's; registered by timers.c while the operator opens, see
 * sl__op_opening), the entries of that namespace, how many such
 * namespaces there are (up to 1000), and the size of its state
 * (sl_state_op_size); every figure stored with SL_CTR_SET (base/counter.h)
 * into op->pub, read by the snapshot (api/metrics.c) with SL_CTR_GET.  A
 * scan also copies its splits' watermarks, idleness and ends
 * (sl_op_scan_publish).  Nothing here runs per row.
 *
 * Late rows: sl_op_late_dropped, called where an operator drops a row as
 * late, counts it (stats.late_dropped) and notes it in the operator's
 * ring: a count per second for the last 60 seconds and the newest
 * SL_LATE_KEEP rows as text (Flink's print form, "+I[o1, 10.50, ...]")
 * with their W_before and when they were dropped.  The ring is allocated
 * at the first late row and guarded by its own mutex, which the reader
 * (sl_op_late_read) takes too: the path of rows that are not late does not
 * change.
 */
#include "op_observe.h"
#include "graph.h"
#include "ops.h"
#include "../data/valtext.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

__thread sl_op *sl__op_opening;

#define PUB_EVERY_US 250000
#define OPEN_CAP 1000

static int64_t clock_us(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void sl_op_pending_register(sl_op *op, sl_state_table *t)
{
	if (!op)
		op = sl__op_opening;
	if (!op || !t || op->npend >= 2)
		return;
	for (int i = 0; i < op->npend; i++)
		if (op->pend_tab[i] == t)
			return;
	op->pend_tab[op->npend++] = t;
}

/* The oldest time namespace above op's watermark and its entries. */
static void publish_pending(sl_op *op)
{
	int64_t wm = op->wm, best = SL_WM_MIN, open = 0;
	uint64_t n = 0;
	if (wm != SL_WM_MAX) {
		/* a window ending at the watermark has fired; a row at it has not
		 * (at SL_WM_MIN nothing has: the scan starts at the first, and
		 * wm - 1 would overflow) */
		int64_t after = wm == SL_WM_MIN || strstr(op->vt->name, "Window") ? wm : wm - 1;
		for (int k = 0; k < op->npend; k++) {
			sl_state_table *t = op->pend_tab[k];
			int64_t ns, first;
			int ok = wm == SL_WM_MIN ? sl_state_ns_first(t, &ns) : sl_state_ns_next(t, after, &ns);
			if (!ok || (best != SL_WM_MIN && ns >= best))
				continue;
			best = first = ns;
			n = sl_state_ns_count(t, ns, 1000000);
			open = 1;
			while (open < OPEN_CAP && sl_state_ns_next(t, first, &first))
				open++;
		}
	}
	SL_CTR_SET(op->pub.pend_ts, best);
	SL_CTR_SET(op->pub.pend_n, (int64_t)n);
	SL_CTR_SET(op->pub.pend_open, open);
}

void sl_graph_publish(sl_graph *g, int idle)
{
	int64_t now = clock_us(CLOCK_MONOTONIC_COARSE);
	if (!idle && now < g->pub_due)
		return;
	g->pub_due = now + PUB_EVERY_US;
	int64_t wall = 0;
	for (int i = 0; i < g->nops; i++) {
		sl_op *op = g->ops[i];
		if (op->nin == 0 && op->vt->kind == SL_OPK_SCAN)
			sl_op_scan_publish(op);
		if (op->pub.at_us && op->stats.rows_in == op->pub.seen_rows &&
		    op->wm == op->pub.seen_wm)
			continue;
		op->pub.seen_rows = op->stats.rows_in;
		op->pub.seen_wm = op->wm;
		if (op->npend)
			publish_pending(op);
		if (op->state && op->nin) {
			uint64_t entries;
			uint64_t bytes = sl_state_op_size(op->state, op->uid, &entries);
			SL_CTR_SET(op->pub.state_bytes, (int64_t)bytes);
			SL_CTR_SET(op->pub.state_entries, (int64_t)entries);
		}
		if (!wall)
			wall = clock_us(CLOCK_REALTIME);
		SL_CTR_SET(op->pub.at_us, wall);
	}
}

/* ---- late rows ------------------------------------------------------------- */

struct sl_late_ring {
	pthread_mutex_t mu;
	struct {
		int64_t sec, n;
	} per_s[60];
	struct {
		int64_t at_us, wm;
		char row[SL_LATE_ROW];
	} ex[SL_LATE_KEEP];
	int nex, next;
	sl_buf text; /* scratch for the row's text (kept: no malloc per late row) */
};

void sl_op_late_dropped(sl_op *op, const sl_batch *in, int row)
{
	SL_CTR_ADD(op->stats.late_dropped, 1);
	struct sl_late_ring *r = op->late;
	if (!r) {
		if (!(r = calloc(1, sizeof(*r))))
			return; /* counted; the example is lost */
		pthread_mutex_init(&r->mu, NULL);
		sl_buf_init(&r->text);
		__atomic_store_n(&op->late, r, __ATOMIC_RELEASE);
	}
	int64_t now = clock_us(CLOCK_REALTIME);
	const char *tz = op->graph ? op->graph->ectx.tz : NULL;
	r->text.len = 0;
	sl_buf_puts(&r->text, "+I[");
	for (int c = 0; c < in->ncols; c++) {
		if (c)
			sl_buf_puts(&r->text, ", ");
		sl_value_text(&in->cols[c], row, "NULL", tz, &r->text);
		if (r->text.len >= SL_LATE_ROW)
			break;
	}
	sl_buf_puts(&r->text, "]");
	pthread_mutex_lock(&r->mu);
	int64_t sec = now / 1000000;
	int s = (int)(sec % 60);
	if (r->per_s[s].sec != sec) {
		r->per_s[s].sec = sec;
		r->per_s[s].n = 0;
	}
	r->per_s[s].n++;
	int k = r->next;
	r->next = (k + 1) % SL_LATE_KEEP;
	if (r->nex < SL_LATE_KEEP)
		r->nex++;
	r->ex[k].at_us = now;
	r->ex[k].wm = in->wm[row];
	size_t len = r->text.len < SL_LATE_ROW - 1 ? r->text.len : SL_LATE_ROW - 1;
	memcpy(r->ex[k].row, r->text.p ? r->text.p : "", len);
	if (len == SL_LATE_ROW - 1 && len >= 4)
		memcpy(r->ex[k].row + len - 4, "...]", 4);
	r->ex[k].row[len] = 0;
	pthread_mutex_unlock(&r->mu);
}

int64_t sl_op_late_read(sl_op *op, int64_t now_us, char *row, size_t cap, int64_t *at_us,
                        int64_t *wm)
{
	struct sl_late_ring *r = __atomic_load_n(&op->late, __ATOMIC_ACQUIRE);
	if (cap)
		row[0] = 0;
	*at_us = 0;
	*wm = SL_WM_MIN;
	if (!r)
		return 0;
	int64_t n = 0, sec = now_us / 1000000;
	pthread_mutex_lock(&r->mu);
	for (int s = 0; s < 60; s++)
		if (r->per_s[s].sec > sec - 60 && r->per_s[s].sec <= sec)
			n += r->per_s[s].n;
	if (r->nex) {
		int k = (r->next + SL_LATE_KEEP - 1) % SL_LATE_KEEP; /* the newest */
		if (r->ex[k].at_us > now_us - 60000000) {
			snprintf(row, cap, "%s", r->ex[k].row);
			*at_us = r->ex[k].at_us;
			*wm = r->ex[k].wm;
		}
	}
	pthread_mutex_unlock(&r->mu);
	return n;
}

void sl_op_observe_free(sl_op *op)
{
	struct sl_late_ring *r = op->late;
	if (!r)
		return;
	pthread_mutex_destroy(&r->mu);
	sl_buf_deinit(&r->text);
	free(r);
	op->late = NULL;
}
