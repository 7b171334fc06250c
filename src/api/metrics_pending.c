/*
 * metrics_pending.c - "why is there no output yet?": sl_metrics_pending
 * (include/sluice.h; docs/observability.md, "Pending"), EXPLAIN PENDING
 * and SHOW WATERMARKS as text, computed from one metrics snapshot.
 *
 * A window, join or OVER operator emits when its input watermark (the
 * minimum over its inputs that are not idle) passes what it holds: the
 * end of its oldest open window, a row's time plus the join's bound.  So
 * the question is which input holds that watermark back.  For each such
 * operator this walks back from its slowest instance: the instance with
 * the smallest input watermark, in it the input (not idle) with the
 * smallest watermark, then the operator that feeds that input: over a
 * chained edge the same instance, over an exchange the producer instance
 * with the smallest output watermark (every producer instance feeds the
 * consumer over HASH, REBALANCE and GATHER; FORWARD is the same
 * instance), until a source instance, which is named with its watermark,
 * its rows read and whether it is idle.  A source instance without a
 * watermark that read no rows is the classic case (an empty partition or
 * split, an idle topic partition): the text says so and names
 * 'scan.watermark.idle-timeout'.  In the source instance it names the
 * split (file, range of a file, Kafka partition) with the smallest
 * watermark among those neither idle nor ended, with its watermark, rows
 * and the rowtime and wall-clock time of its last row, and lists the idle
 * splits.
 *
 * What each operator waits for comes from what its own thread published
 * (exec/op_observe.c): the oldest open window's end (or pending row's
 * time, or timer) above its watermark, over all its instances, and the
 * entries it holds.  Then the late rows of the last minute per operator
 * instance with the newest one's values.
 *
 * SHOW WATERMARKS (sl__metrics_watermarks) is the same snapshot as a
 * table: every operator instance with its input and output watermarks,
 * and under a source instance with several splits each split's.
 */
#include "engine_int.h"
#include "../base/buf.h"
#include "../base/timeutil.h"
#include "../plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void wm_text(int64_t wm, char *buf)
{
	if (wm == SL_WM_NONE)
		strcpy(buf, "-infinity (none yet)");
	else if (wm == SL_WM_END)
		strcpy(buf, "+infinity (ended)");
	else
		sl_ts_format(wm, 3, 0, 0, buf);
}

static int waits(const sl_metric_op *o)
{
	static const char *const kinds[] = {"Window", "Join", "Session", "Over", "Deduplicate",
	                                    "Rank"};
	if (o->role != SL_ROLE_OPERATOR)
		return 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strstr(o->name, kinds[i]))
			return 1;
	return 0;
}

static const sl_metric_op *find(const sl_metrics *m, int node, int inst)
{
	for (int i = 0; i < m->nops; i++)
		if (m->ops[i].node == node && m->ops[i].instance == inst)
			return &m->ops[i];
	return NULL;
}

static const sl_metric_edge *edge_into(const sl_metrics *m, int node, int input)
{
	for (int i = 0; i < m->nedges; i++)
		if (m->edges[i].to == node && m->edges[i].input == input)
			return &m->edges[i];
	return NULL;
}

/* The instance of node with the smallest output watermark. */
static const sl_metric_op *slowest_out(const sl_metrics *m, int node)
{
	const sl_metric_op *best = NULL;
	for (int i = 0; i < m->nops; i++)
		if (m->ops[i].node == node && (!best || m->ops[i].out_wm < best->out_wm))
			best = &m->ops[i];
	return best;
}

/* The input of o holding its watermark: not idle, smallest; -1: none. */
static int slowest_input(const sl_metric_op *o)
{
	int k = -1;
	for (int i = 0; i < o->nin && i < 4; i++)
		if (!(o->input_idle & (1 << i)) && (k < 0 || o->input_wm[i] < o->input_wm[k]))
			k = i;
	return k;
}

/* How long before now t (wall clock micros) was, as "1.2 s ago". */
static void ago(sl_buf *b, int64_t now, int64_t t)
{
	if (!t)
		sl_buf_puts(b, "never");
	else
		sl_buf_printf(b, "%.1f s ago", (double)(now - t) / 1e6);
}

/* The split of source instance o that holds its watermark back: the
 * smallest watermark among those neither idle nor ended; NULL: none. */
static const sl_metric_split *slowest_split(const sl_metrics *m, const sl_metric_op *o)
{
	const sl_metric_split *best = NULL;
	for (int i = o->first_split; i < o->first_split + o->nsplits && i < m->nsplits; i++) {
		const sl_metric_split *s = &m->splits[i];
		if (!s->idle && !s->done && (!best || s->wm < best->wm))
			best = s;
	}
	return best;
}

static void split_line(sl_buf *b, const sl_metrics *m, const sl_metric_split *s)
{
	char w[48], t[48];
	wm_text(s->wm, w);
	if (s->name[0])
		sl_buf_printf(b, "%s: ", s->name);
	sl_buf_printf(b, "watermark %s, %lld rows read", w, (long long)s->rows);
	if (s->rows && s->last_event_ts != SL_WM_NONE) {
		wm_text(s->last_event_ts, t);
		sl_buf_printf(b, ", last event time %s", t);
	}
	sl_buf_puts(b, ", last row ");
	ago(b, m->now_us, s->last_row_us);
	if (s->idle)
		sl_buf_puts(b, ", idle");
	if (s->done)
		sl_buf_puts(b, ", ended");
}

/* The splits of the source instance that holds a watermark back. */
static void held_splits(sl_buf *b, const sl_metrics *m, const sl_metric_op *o)
{
	const sl_metric_split *s = slowest_split(m, o);
	if (s && o->nsplits > 1) {
		sl_buf_puts(b, "  in it, held back by ");
		split_line(b, m, s);
		sl_buf_puts(b, "\n");
	} else if (s && s->rows) {
		sl_buf_puts(b, "  its input: ");
		split_line(b, m, s);
		sl_buf_puts(b, "\n");
	}
	for (int i = o->first_split; i < o->first_split + o->nsplits && i < m->nsplits; i++)
		if (m->splits[i].idle) {
			sl_buf_puts(b, "  idle, left out of its watermark: ");
			split_line(b, m, &m->splits[i]);
			sl_buf_puts(b, "\n");
		}
}

static void name_op(sl_buf *b, const sl_metric_op *o)
{
	if (o->table[0])
		sl_buf_printf(b, "%s %s", o->role == SL_ROLE_SINK ? "sink" : "source", o->table);
	else
		sl_buf_printf(b, "#%d %s", o->node, o->name);
	if (o->parallelism > 1)
		sl_buf_printf(b, " (instance %d of %d)", o->instance, o->parallelism);
}

/* Follows the watermark of o back to a source; appends the path. */
static void trace(sl_buf *b, const sl_metrics *m, const sl_metric_op *o)
{
	char w[48];
	for (int depth = 0; depth < 64; depth++) {
		int k = slowest_input(o);
		if (k < 0) {
			sl_buf_puts(b, "  every input is idle: it follows no watermark until one "
			            "becomes active\n");
			return;
		}
		for (int i = 0; i < o->nin && i < 4; i++)
			if (o->input_idle & (1 << i)) {
				sl_buf_printf(b, "  input %d of ", i);
				name_op(b, o);
				sl_buf_puts(b, " is idle: left out of its watermark\n");
			}
		const sl_metric_edge *e = edge_into(m, o->node, k);
		if (!e)
			return;
		const sl_metric_op *up = !strcmp(e->ship, "CHAIN") || !strcmp(e->ship, "FORWARD")
		                             ? find(m, e->from, o->instance)
		                             : slowest_out(m, e->from);
		if (!up)
			return;
		wm_text(o->input_wm[k], w);
		sl_buf_printf(b, "  input %d at %s comes from ", k, w);
		name_op(b, up);
		if (strcmp(e->ship, "CHAIN"))
			sl_buf_printf(b, " over a %s exchange", e->ship);
		sl_buf_puts(b, "\n");
		if (up->role == SL_ROLE_SOURCE) {
			wm_text(up->out_wm, w);
			sl_buf_puts(b, "  held back by ");
			name_op(b, up);
			sl_buf_printf(b, ": watermark %s, %lld rows read%s\n", w, (long long)up->rows_out,
			              up->idle ? ", idle" : "");
			held_splits(b, m, up);
			const sl_metric_split *sp = slowest_split(m, up);
			if ((up->out_wm == SL_WM_NONE && up->rows_out == 0 && !up->idle) ||
			    (sp && sp->wm == SL_WM_NONE && sp->rows == 0))
				sl_buf_puts(b, "  it has read no row: an empty or idle partition or "
				            "split holds every window back; 'scan.watermark.idle-timeout' "
				            "lets the others go on without it\n");
			return;
		}
		o = up;
	}
}

/*
 * What operator ops[i] (its first instance) holds, over its instances as
 * their threads published it: "oldest open window ends at T, holding N
 * groups", with the watermark it waits for.
 */
static void holds(sl_buf *b, const sl_metrics *m, int i)
{
	const sl_metric_op *o = &m->ops[i], *best = NULL;
	int published = 1;
	int64_t open = 0;
	for (int k = i; k < m->nops && m->ops[k].node == o->node; k++) {
		const sl_metric_op *x = &m->ops[k];
		if (!x->pub_us)
			published = 0;
		open += x->pend_open;
		if (x->pend_ts != SL_WM_NONE && (!best || x->pend_ts < best->pend_ts))
			best = x;
	}
	char w[48];
	if (!best) {
		sl_buf_puts(b, published ? ", to reach the end of a window or a pending row: it holds "
		                           "none now\n"
		                         : ", to reach the end of its oldest open window or pending "
		                           "row (what it holds is not published yet)\n");
		return;
	}
	wm_text(best->pend_ts, w);
	int window = strstr(o->name, "Window") != NULL;
	int timer = strstr(o->name, "Session") || strstr(o->name, "IntervalJoin");
	sl_buf_printf(b, ", to reach %s\n", w);
	sl_buf_printf(b, "  %s at %s", window ? "its oldest open window ends"
	                                : timer ? "its oldest timer is"
	                                        : "its oldest pending row is", w);
	if (o->parallelism > 1)
		sl_buf_printf(b, " (instance %d)", best->instance);
	sl_buf_printf(b, ", holding %lld %s%s; %lld %s%s open in all, published ",
	              (long long)best->pend_rows,
	              !strcmp(o->name, "WindowAggregate") ? "group"
	              : window || timer                   ? "key"
	                                                  : "row",
	              best->pend_rows == 1 ? "" : "s", (long long)open, window ? "window" : "time",
	              open == 1 ? "" : "s");
	ago(b, m->now_us, best->pub_us);
	sl_buf_puts(b, "\n");
}

char *sl_metrics_pending(const sl_metrics *m)
{
	static const char *const st[] = {"no job", "created", "running", "finished", "failed",
	                                 "canceled"};
	sl_buf b;
	sl_buf_init(&b);
	char w[48], w2[48];
	int n = 0;
	sl_buf_printf(&b, "job %s: %s\n", m->job[0] ? m->job : "-",
	              m->status >= 0 && m->status <= SL_JOB_CANCELED ? st[m->status] : "?");
	for (int i = 0; i < m->nops; i++) {
		const sl_metric_op *o = &m->ops[i];
		if (!waits(o) || (i > 0 && m->ops[i - 1].node == o->node))
			continue;
		/* its slowest instance */
		const sl_metric_op *s = o;
		for (int k = i; k < m->nops && m->ops[k].node == o->node; k++)
			if (m->ops[k].in_wm < s->in_wm)
				s = &m->ops[k];
		n++;
		wm_text(s->in_wm, w);
		sl_buf_printf(&b, "#%d %s waits for its input watermark, now %s", o->node, o->name, w);
		if (o->parallelism > 1)
			sl_buf_printf(&b, " (instance %d, the slowest of %d)", s->instance,
			              o->parallelism);
		holds(&b, m, i);
		if (s->in_wm == SL_WM_END)
			sl_buf_puts(&b, "  its inputs ended: nothing is pending\n");
		else
			trace(&b, m, s);
	}
	int nl = 0;
	for (int i = 0; i < m->nops; i++) {
		const sl_metric_op *o = &m->ops[i];
		if (!o->late_last_minute)
			continue;
		if (!nl++)
			sl_buf_puts(&b, "late rows dropped in the last minute:\n");
		sl_buf_puts(&b, "  ");
		name_op(&b, o);
		sl_buf_printf(&b, ": %lld", (long long)o->late_last_minute);
		if (o->late_example[0]) {
			wm_text(o->late_example_wm, w);
			sl_buf_printf(&b, "; the newest, %s, was late for watermark %s, dropped ",
			              o->late_example, w);
			ago(&b, m->now_us, o->late_example_us);
		}
		sl_buf_puts(&b, "\n");
	}
	if (!n)
		sl_buf_puts(&b, "no window, join or OVER operator: rows are not held back by a "
		            "watermark\n");
	sl_buf_puts(&b, "watermarks:\n");
	for (int i = 0; i < m->nops; i++) {
		const sl_metric_op *o = &m->ops[i];
		sl_buf_puts(&b, "  ");
		name_op(&b, o);
		wm_text(o->out_wm, w);
		if (o->role == SL_ROLE_SOURCE) {
			sl_buf_printf(&b, ": %s, %lld rows read%s\n", w, (long long)o->rows_out,
			              o->idle ? ", idle" : "");
			for (int k = o->first_split; o->nsplits > 1 && k < o->first_split + o->nsplits &&
			                             k < m->nsplits; k++) {
				sl_buf_puts(&b, "    ");
				split_line(&b, m, &m->splits[k]);
				sl_buf_puts(&b, "\n");
			}
		} else {
			wm_text(o->in_wm, w2);
			sl_buf_printf(&b, ": input %s, output %s", w2, w);
			if (o->late_dropped || o->late_diverted)
				sl_buf_printf(&b, ", %lld late rows dropped, %lld diverted",
				              (long long)o->late_dropped, (long long)o->late_diverted);
			sl_buf_puts(&b, "\n");
		}
	}
	if (sl_buf_putc(&b, 0)) {
		sl_buf_deinit(&b);
		return NULL;
	}
	return b.p; /* the buffer's malloc'd bytes, NUL-terminated */
}

int sl__metrics_watermarks(const sl_metrics *m, sl_buf *out)
{
	static const char *const head[] = {"operator", "instance", "input watermark",
	                                   "output watermark", "rows", "idle"};
	enum { NC = 6, W = 64 };
	/* a row per operator instance, then one per split of a source instance
	 * that has several (a file's ranges, a topic's partitions) */
	int rows = m->nops;
	for (int i = 0; i < m->nops; i++)
		if (m->ops[i].nsplits > 1)
			rows += m->ops[i].nsplits;
	char *cells = malloc((size_t)(rows ? rows : 1) * NC * W);
	const char **v = malloc(sizeof(char *) * (size_t)(rows ? rows : 1) * NC);
	if (!cells || !v) {
		free(cells);
		free(v);
		return SL_ENOMEM;
	}
	int r = 0;
	for (int i = 0; i < m->nops; i++) {
		const sl_metric_op *o = &m->ops[i];
		char *c = cells + (size_t)r * NC * W;
		if (o->table[0])
			snprintf(c, W, "%s %s", o->role == SL_ROLE_SINK ? "sink" : "source", o->table);
		else
			snprintf(c, W, "#%d %s", o->node, o->name);
		snprintf(c + W, W, "%d", o->instance);
		wm_text(o->in_wm, c + 2 * W);
		wm_text(o->out_wm, c + 3 * W);
		snprintf(c + 4 * W, W, "%lld", (long long)(o->role == SL_ROLE_SOURCE ? o->rows_out
		                                                                      : o->rows_in));
		snprintf(c + 5 * W, W, "%s", o->idle ? "idle" : "");
		for (int k = 0; k < NC; k++)
			v[r * NC + k] = c + k * W;
		r++;
		for (int s = o->first_split; o->nsplits > 1 && s < o->first_split + o->nsplits &&
		                             s < m->nsplits; s++) {
			const sl_metric_split *sp = &m->splits[s];
			c = cells + (size_t)r * NC * W;
			snprintf(c, W, "  %s", sp->name);
			snprintf(c + W, W, "%d", o->instance);
			snprintf(c + 2 * W, W, "%s", "");
			wm_text(sp->wm, c + 3 * W);
			snprintf(c + 4 * W, W, "%lld", (long long)sp->rows);
			snprintf(c + 5 * W, W, "%s", sp->idle ? "idle" : sp->done ? "ended" : "");
			for (int k = 0; k < NC; k++)
				v[r * NC + k] = c + k * W;
			r++;
		}
	}
	sl_plan_tableau(out, NC, head, r, v);
	free(cells);
	free(v);
	return 0;
}
