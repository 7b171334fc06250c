/*
 * timers.c - event-time timers (timers.h): keyed timers in a table of their
 * own (namespace = time, key = the key due then) and namespace timers that
 * are the namespaces of an operator's state tables (window ends).  Both
 * fire in time order up to a watermark and drop what fired; both live in
 * state tables, so checkpoints and restores need nothing here.
 *
 * Keyed: the keys of the smallest due time are copied out (a scan callback
 * must not call into its table) and the namespace is dropped before the
 * callbacks run, so a callback may set timers again, at that time too.
 *
 * Namespace: the union of the tables' namespaces is walked with
 * sl_state_ns_first / sl_state_ns_next; the next namespace is looked up
 * after the callback (which may create one) and before the drop.
 */
#include "timers.h"
#include "op_observe.h"
#include "sluice.h"

#include <string.h>

/* ---- keyed timers --------------------------------------------------------- */

int sl_timers_open(sl_timers *tm, sl_op *op, const char *name, sl_err *err)
{
	tm->t = sl_state_table_open(op->state, op->uid, name, 8, err);
	sl_op_pending_register(op, tm->t); /* the live metrics' oldest timer */
	return tm->t ? 0 : err->code;
}

void sl_timers_deinit(sl_timers *tm)
{
	sl_buf_deinit(&tm->due);
}

int sl_timers_set(sl_timers *tm, int64_t ts, const void *key, uint32_t klen, sl_err *err)
{
	if (!sl_state_upsert(tm->t, ts, key, klen, NULL))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

static int collect_key(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                       sl_err *err)
{
	(void)val;
	(void)vlen;
	sl_buf *b = ctx;
	if (sl_buf_append(b, &klen, 4) || sl_buf_append(b, key, klen))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

int sl_timers_fire(sl_timers *tm, int64_t w, sl_timer_cb cb, void *ctx, sl_err *err)
{
	int64_t ns;
	while (sl_state_ns_first(tm->t, &ns) && ns <= w) {
		sl_buf_clear(&tm->due);
		int rc = sl_state_ns_scan(tm->t, ns, collect_key, &tm->due, err);
		if (rc)
			return rc;
		sl_state_ns_drop(tm->t, ns);
		const char *p = tm->due.p, *end = p + tm->due.len;
		while (p < end) {
			uint32_t klen;
			memcpy(&klen, p, 4);
			rc = cb(ctx, ns, p + 4, klen, err);
			if (rc)
				return rc;
			p += 4 + klen;
		}
	}
	return 0;
}

/* ---- namespace timers ------------------------------------------------------ */

void sl_ns_timers_init(sl_ns_timers *t, int64_t retain)
{
	memset(t, 0, sizeof(*t));
	t->retain = retain;
	t->fired = SL_WM_MIN;
	t->next = SL_WM_MIN;
}

void sl_ns_timers_add(sl_ns_timers *t, sl_state_table *tab)
{
	if (tab && t->ntabs < SL_NS_TIMERS_MAX)
		t->tabs[t->ntabs++] = tab;
	sl_op_pending_register(NULL, tab); /* of the operator opening (op_observe.h) */
}

/* The smallest namespace of the tables (after > `after` when first is 0):
 * 1 and *ns, or 0 when there is none. */
static int union_ns(const sl_ns_timers *t, int first, int64_t after, int64_t *ns)
{
	int have = 0;
	for (int i = 0; i < t->ntabs; i++) {
		int64_t v;
		if (!(first ? sl_state_ns_first(t->tabs[i], &v) : sl_state_ns_next(t->tabs[i], after, &v)))
			continue;
		if (!have || v < *ns)
			*ns = v;
		have = 1;
	}
	return have;
}

int sl_ns_timers_fire(sl_ns_timers *t, int64_t w, sl_ns_cb cb, void *ctx, sl_err *err)
{
	if (w <= t->fired)
		return 0;
	int64_t ns;
	int have = union_ns(t, 1, 0, &ns);
	while (have && ns <= w) {
		if (ns > t->fired) {
			int rc = cb(ctx, ns, err);
			if (rc)
				return rc;
		}
		int64_t cur = ns;
		have = union_ns(t, 0, cur, &ns);
		if (t->retain == 0 || cur <= w - t->retain)
			for (int i = 0; i < t->ntabs; i++)
				sl_state_ns_drop(t->tabs[i], cur);
	}
	t->next = have ? ns : INT64_MAX;
	t->fired = w;
	return 0;
}
