/*
 * metrics.c - the live metrics snapshot of the embedding API
 * (sl_metrics_get, include/sluice.h; docs/observability.md).
 *
 * A snapshot copies, for every instance of every operator of the job, its
 * counters and watermarks, for every edge its exchange's figures, and the
 * checkpoint coordinator's counters.  It is taken from any thread while
 * the job runs: on the engine's thread at parallelism 1 (sl_run), on the
 * task threads above (src/runtime/prun.c).  Nothing on the per-row path
 * takes a lock for it: each figure is written by the one thread that runs
 * its operator with SL_CTR_ADD / SL_CTR_SET and read here with
 * SL_CTR_GET (base/counter.h), so a snapshot sees each figure whole, and
 * figures of different instances as their threads last stored them.
 *
 * What the snapshot does lock is the job's existence: the engine's
 * job_mu is held here while the graph (or the parallel job's tasks) is
 * walked, and by the engine while it publishes a newly opened job
 * (sl__metrics_job_open) or before it tears one down
 * (sl__metrics_job_close), so a snapshot never walks freed operators.
 *
 * Rates (numRecordsInPerSecond, ...): the engine keeps two earlier
 * samples of the counters, the newer replaced (and the older dropped) by
 * a snapshot once it is a second old; a snapshot's rates are the growth
 * since the older one over the time since it: one to two seconds when
 * snapshots come often (the status line, four a second), the time since
 * the previous scrape but one otherwise (Prometheus, every 15 s), since
 * the job opened in its first second.
 */
#include "engine_int.h"
#include "../exec/ops.h"
#include "../exec/op_observe.h"
#include "../runtime/prun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Two earlier samples for rates (under job_mu): base, and mid, the
 * newer one, which becomes base when it is a second old. */
struct sl_rates {
	int n;
	int64_t base_us, mid_us; /* when they were taken */
	int64_t *in, *out;       /* base's counters, per entry of sl_metrics.ops */
	int64_t *min, *mout;     /* mid's */
};

static int64_t wall_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void rates_free(struct sl_rates *r)
{
	if (!r)
		return;
	free(r->in);
	free(r->out);
	free(r->min);
	free(r->mout);
	free(r);
}

void sl__metrics_job_open(sl_engine *e)
{
	const char *jn = sl_opts_get(&e->session, "pipeline.name");
	if (!jn)
		jn = sl_opts_get(&e->session, "sluice.script-name");
	pthread_mutex_lock(&e->job_mu);
	snprintf(e->job_name, sizeof(e->job_name), "%s", jn && *jn ? jn : "job");
	e->start_us = wall_us();
	SL_CTR_SET(e->status, SL_JOB_CREATED);
	e->job_live = 1;
	pthread_mutex_unlock(&e->job_mu);
}

void sl__metrics_job_close(sl_engine *e)
{
	pthread_mutex_lock(&e->job_mu);
	e->job_live = 0;
	SL_CTR_SET(e->status, SL_JOB_NONE);
	rates_free(e->rates);
	e->rates = NULL;
	pthread_mutex_unlock(&e->job_mu);
}

void sl__metrics_status(sl_engine *e, int status)
{
	SL_CTR_SET(e->status, status);
}

/* Copies one instance's figures into m (now: the snapshot's wall clock). */
static void op_figures(sl_metric_op *m, sl_op *op, int node, int inst, int par, int64_t now)
{
	memset(m, 0, sizeof(*m));
	m->node = node;
	m->instance = inst;
	m->parallelism = par;
	snprintf(m->name, sizeof(m->name), "%s", op->vt->name);
	sl_sink *k = sl_op_sink_get(op);
	if (op->nin == 0) {
		m->role = SL_ROLE_SOURCE;
		if (op->vt->kind == SL_OPK_SCAN) {
			snprintf(m->table, sizeof(m->table), "%s", sl_op_scan_table(op));
			m->rows_skipped = sl_op_scan_skipped(op);
			sl_op_scan_progress(op, &m->bytes_read, &m->bytes_total);
		}
	} else if (k) {
		m->role = SL_ROLE_SINK;
		snprintf(m->table, sizeof(m->table), "%s", k->table);
	} else {
		m->role = SL_ROLE_OPERATOR;
	}
	m->rows_in = SL_CTR_GET(op->stats.rows_in);
	m->rows_out = SL_CTR_GET(op->stats.rows_out);
	m->late_dropped = SL_CTR_GET(op->stats.late_dropped);
	m->late_diverted = SL_CTR_GET(op->stats.late_diverted);
	m->late_corrected = SL_CTR_GET(op->stats.late_corrected);
	m->out_wm = SL_CTR_GET(op->out_wm);
	m->in_wm = op->nin ? SL_CTR_GET(op->wm) : m->out_wm;
	m->nin = op->nin;
	for (int in = 0; in < op->nin && in < 4; in++) {
		m->input_wm[in] = SL_CTR_GET(op->in_wm[in]);
		if (SL_CTR_GET(op->in_idle[in]))
			m->input_idle |= 1 << in;
	}
	m->idle = SL_CTR_GET(op->idle);
	/* what its thread published (exec/op_observe.c) */
	m->pub_us = SL_CTR_GET(op->pub.at_us);
	m->pend_ts = m->pub_us && op->npend ? SL_CTR_GET(op->pub.pend_ts) : SL_WM_NONE;
	m->pend_rows = SL_CTR_GET(op->pub.pend_n);
	m->pend_open = SL_CTR_GET(op->pub.pend_open);
	m->state_bytes = SL_CTR_GET(op->pub.state_bytes);
	m->state_entries = SL_CTR_GET(op->pub.state_entries);
	m->late_last_minute = sl_op_late_read(op, now, m->late_example, sizeof(m->late_example),
	                                      &m->late_example_us, &m->late_example_wm);
}

/* Appends the splits of source instance m (op) to out. */
static int op_splits(sl_metrics *out, int *cap, sl_metric_op *m, const sl_op *op)
{
	int n = sl_op_scan_nsplits(op);
	m->first_split = out->nsplits;
	if (n <= 0)
		return 0;
	if (out->nsplits + n > *cap) {
		int nc = (out->nsplits + n) * 2;
		sl_metric_split *ns = realloc(out->splits, sizeof(*ns) * (size_t)nc);
		if (!ns)
			return SL_ENOMEM;
		out->splits = ns;
		*cap = nc;
	}
	sl_metric_split *s = out->splits + out->nsplits;
	memset(s, 0, sizeof(*s) * (size_t)n);
	n = sl_op_scan_splits(op, s, n);
	for (int i = 0; i < n; i++) {
		s[i].node = m->node;
		s[i].instance = m->instance;
	}
	m->nsplits = n;
	out->nsplits += n;
	return 0;
}

/* The checkpoint history, oldest first: entries being written are left out. */
static void ckpt_history(const sl_coord_metrics *c, sl_metrics *m)
{
	int64_t n = SL_CTR_GET(c->nhist);
	for (int64_t k = n > SL_COORD_HIST ? n - SL_COORD_HIST : 0; k < n; k++) {
		const sl_coord_hist *h = &c->hist[k % SL_COORD_HIST];
		int64_t s1 = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);
		sl_metric_ckpt e = {
			.id = SL_CTR_GET(h->id),
			.status = (int)SL_CTR_GET(h->status),
			.savepoint = (int)SL_CTR_GET(h->savepoint),
			.trigger_us = SL_CTR_GET(h->trigger_us),
			.duration_us = SL_CTR_GET(h->duration_us),
			.size = SL_CTR_GET(h->size),
			.blocked_us = SL_CTR_GET(h->blocked_us),
		};
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if ((s1 & 1) || __atomic_load_n(&h->seq, __ATOMIC_RELAXED) != s1 ||
		    m->nckpts >= SL_CKPT_HISTORY)
			continue;
		m->ckpts[m->nckpts++] = e;
	}
}

/* The operators (by id, then instance) and edges of the job. */
static int collect(sl_engine *e, sl_metrics *m)
{
	int cap = 16, ecap = 16, scap = 0;
	m->ops = malloc(sizeof(*m->ops) * (size_t)cap);
	m->edges = malloc(sizeof(*m->edges) * (size_t)ecap);
	if (!m->ops || !m->edges)
		return SL_ENOMEM;
	int nnodes = e->prun ? e->plan.n : e->graph.nops;
	for (int i = 0; i < nnodes; i++) {
		int n = e->prun ? sl_prun_ninst(e->prun, i) : 1;
		sl_op *first = e->prun ? (n ? sl_prun_op(e->prun, i, 0) : NULL) : e->graph.ops[i];
		if (!first)
			continue;
		int node = e->prun ? i : first->id;
		for (int k = 0; k < n; k++) {
			sl_op *op = e->prun ? sl_prun_op(e->prun, i, k) : first;
			if (!op)
				continue;
			if (m->nops == cap) {
				sl_metric_op *no = realloc(m->ops, sizeof(*no) * (size_t)(cap *= 2));
				if (!no)
					return SL_ENOMEM;
				m->ops = no;
			}
			sl_metric_op *mo = &m->ops[m->nops++];
			op_figures(mo, op, node, k, n, m->now_us);
			if (op->nin == 0 && op->vt->kind == SL_OPK_SCAN &&
			    op_splits(m, &scap, mo, op))
				return SL_ENOMEM;
		}
		if (n > m->parallelism)
			m->parallelism = n;
		/* its input edges */
		const sl_pnode *pn = e->prun ? e->plan.nodes[i] : NULL;
		int nin = pn ? pn->nin : 0;
		if (!pn) { /* parallelism 1: the graph's edges into it */
			for (int a = 0; a < e->graph.nops; a++)
				for (int x = 0; x < e->graph.ops[a]->nedges; x++)
					if (e->graph.ops[a]->edges[x].to == first) {
						if (m->nedges == ecap) {
							sl_metric_edge *ne = realloc(m->edges, sizeof(*ne) *
							                             (size_t)(ecap *= 2));
							if (!ne)
								return SL_ENOMEM;
							m->edges = ne;
						}
						sl_metric_edge *ed = &m->edges[m->nedges++];
						memset(ed, 0, sizeof(*ed));
						ed->from = e->graph.ops[a]->id;
						ed->to = node;
						ed->input = e->graph.ops[a]->edges[x].input;
						snprintf(ed->ship, sizeof(ed->ship), "CHAIN");
					}
			continue;
		}
		for (int k = 0; k < nin; k++) {
			if (!pn->in[k])
				continue;
			if (m->nedges == ecap) {
				sl_metric_edge *ne = realloc(m->edges, sizeof(*ne) * (size_t)(ecap *= 2));
				if (!ne)
					return SL_ENOMEM;
				m->edges = ne;
			}
			sl_metric_edge *ed = &m->edges[m->nedges++];
			memset(ed, 0, sizeof(*ed));
			ed->from = pn->in[k]->id;
			ed->to = i;
			ed->input = k;
			uint64_t msgs, ns;
			if (sl_prun_edge_get(e->prun, i, k, &ed->channels, &msgs, &ns)) {
				static const char *const ship[] = {"CHAIN", "FORWARD", "HASH", "REBALANCE",
				                                   "GATHER", "BROADCAST"};
				int kind = pn->xchg[k];
				snprintf(ed->ship, sizeof(ed->ship), "%s",
				         kind >= 0 && kind <= SL_XCHG_BROADCAST ? ship[kind] : "?");
				ed->messages = (int64_t)msgs;
				ed->blocked_ns = (int64_t)ns;
			} else {
				snprintf(ed->ship, sizeof(ed->ship), "CHAIN");
			}
		}
	}
	return 0;
}

/*
 * Fills the rates of m's operators: the counters' growth since the base
 * sample over the time since it.  The newer sample (mid) becomes the base
 * once it is a second old and m the newer one, so the interval is one to
 * two seconds long (shorter only in the job's first second, when the base
 * is the job's opening, counters 0).
 */
static int rates(sl_engine *e, sl_metrics *m)
{
	struct sl_rates *r = e->rates;
	if (r && r->n != m->nops) { /* cannot happen within one job; start over */
		rates_free(r);
		r = e->rates = NULL;
	}
	if (!r) {
		r = e->rates = calloc(1, sizeof(*r));
		if (!r)
			return SL_ENOMEM;
		r->n = m->nops;
		size_t n = (size_t)(m->nops ? m->nops : 1);
		r->in = calloc(n, sizeof(int64_t));
		r->out = calloc(n, sizeof(int64_t));
		r->min = calloc(n, sizeof(int64_t));
		r->mout = calloc(n, sizeof(int64_t));
		if (!r->in || !r->out || !r->min || !r->mout) {
			rates_free(r);
			e->rates = NULL;
			return SL_ENOMEM;
		}
		r->base_us = r->mid_us = e->start_us; /* counters were 0 when the job opened */
	}
	if (m->now_us - r->mid_us >= 1000000) {
		int64_t *t;
		t = r->in, r->in = r->min, r->min = t;
		t = r->out, r->out = r->mout, r->mout = t;
		r->base_us = r->mid_us;
		r->mid_us = m->now_us;
		for (int i = 0; i < m->nops; i++) {
			r->min[i] = m->ops[i].rows_in;
			r->mout[i] = m->ops[i].rows_out;
		}
	}
	int64_t dt = m->now_us - r->base_us;
	double per_s = dt > 0 ? 1e6 / (double)dt : 0;
	for (int i = 0; i < m->nops; i++) {
		m->ops[i].rows_in_per_s = (double)(m->ops[i].rows_in - r->in[i]) * per_s;
		m->ops[i].rows_out_per_s = (double)(m->ops[i].rows_out - r->out[i]) * per_s;
	}
	m->rate_window_us = dt;
	return 0;
}

int sl_metrics_get(sl_engine *e, sl_metrics **out)
{
	*out = NULL;
	sl_metrics *m = calloc(1, sizeof(*m));
	if (!m)
		return SL_ENOMEM;
	int rc = 0;
	pthread_mutex_lock(&e->job_mu);
	m->now_us = wall_us();
	if (e->job_live) {
		m->status = SL_CTR_GET(e->status);
		snprintf(m->job, sizeof(m->job), "%s", e->job_name);
		m->start_us = e->start_us;
		rc = collect(e, m);
		if (!rc)
			rc = rates(e, m);
		const sl_coord_metrics *c = &e->ck.m;
		m->checkpointing = e->ck.on;
		m->ckpt_completed = SL_CTR_GET(c->completed);
		m->ckpt_failed = SL_CTR_GET(c->failed);
		m->ckpt_last_id = SL_CTR_GET(c->last_id);
		m->ckpt_last_duration_us = SL_CTR_GET(c->last_duration_us);
		m->ckpt_last_size = SL_CTR_GET(c->last_size);
		m->ckpt_last_blocked_us = SL_CTR_GET(c->last_blocked_us);
		m->ckpt_last_end_us = SL_CTR_GET(c->last_end_wall_us);
		ckpt_history(c, m);
	}
	pthread_mutex_unlock(&e->job_mu);
	if (rc) {
		sl_metrics_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

void sl_metrics_free(sl_metrics *m)
{
	if (!m)
		return;
	free(m->ops);
	free(m->edges);
	free(m->splits);
	free(m);
}
