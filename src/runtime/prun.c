/*
 * prun.c - the parallel run loop (see prun.h): chains, tasks, their
 * threads, and the job's end, failure and stop.
 *
 * Building (caller's thread).  Chains are the connected components of the
 * plan's chained edges and side links.  For every exchanged edge (from a
 * producer node at np instances into input k of a consumer at nc) there
 * is a channel from producer instance a to consumer instance b for every
 * pair (only a = b for FORWARD), made with b's task's wake, and a return
 * channel beside it whose consumer is a's thread.  Each task's graph
 * gets, in this order: its receivers (one per exchanged input of its
 * chain's nodes, over the channels of every producer instance), the
 * chain's operators, and its senders; then it is opened.
 *
 * Threads (docs/parallel.md §1).  Every task has a thread of its own
 * (the default, as Flink runs each subtask), or, with 'sluice.slot-sharing'
 * true and an acyclic chain graph, instance i of every chain runs on
 * thread i ("Slot sharing").  A thread gives each of
 * its tasks a turn in turn (task_turn: control messages, marker, one
 * step: the task's processing-time timers and one pump of each source);
 * when none moved it flushes their senders and sleeps on its wake, which
 * every channel of its tasks wakes from both sides, until one has a
 * message (no polling), or 1 ms when one has a scan that may produce
 * later or a processing-time operator.  A sender that finds a channel
 * full (or its pool empty) calls sl__prun_help: the thread runs its tasks
 * deeper than the blocked one in the chain DAG and sleeps only when none
 * of them can move.  Markers are completed per thread (thr_marker).  A
 * task finishes when its graph ended (every source ended, so every
 * sender sent END); the thread ends when all its tasks did.
 *
 * Failure.  The first task to fail records its error (message with its
 * where and what, as the single-threaded loop reports it) and cancels
 * every channel, which wakes every blocked thread; the others end without
 * reporting the cancellation; the caller joins them all and fails the
 * job with that first error.
 *
 * Drain (docs/parallel.md §6, §10).  sl_prun_drain, on the API's thread,
 * records a request (the manual clock; a push: scan, text, mode) and asks
 * for marker n (an atomic store); it returns when every task
 * acknowledged n or ended.  Each task handles the request between two
 * steps (task_marker): at once its clock, timers, VALUES rows and, in the
 * task owning the scan, the push; then each sender forwards n once the
 * receivers upstream of it in the task are aligned on n (every channel
 * delivered n or ended; a receiver takes nothing more from a channel that
 * delivered n until released), and when all are and the thread's other
 * tasks are too, the thread releases their receivers and acknowledges
 * (thr_marker).  So every row the request caused has reached the sinks
 * when the caller returns.  The request wakes every thread.
 *
 * Checkpoints (docs/parallel.md §5, "As built").  With a coordinator
 * attached, the caller's thread in sl_prun_run is the coordinator
 * (ckpt_coord.c, through sl_coord_rt): a barrier is a marker flagged
 * mk_barrier; a task handling it does no request, keeps its scans, VALUES
 * and timers still until it acknowledged, then parks (its whole thread,
 * with its other tasks, thr_marker) on park_cv until the coordinator
 * releases the barrier (co_park, co_release); a task that ended counts as
 * parked.  Phase 2 goes to each task's control channel (ctl, made with
 * its thread's wake) and runs between two steps (task_control);
 * the coordinator runs it itself for ended tasks and while all are
 * parked (co_phase2).  The final checkpoint follows the end of every
 * task; savepoints and the API's snapshots park the tasks
 * (sl_prun_savepoint, sl_prun_snapshot).
 *
 * The threads' loops, turns, help and per-thread markers are in
 * prun_task.c; prun_int.h holds the structures both files use.
 *
 * Stop.  sl_prun_stop sets a flag (from a signal handler): tasks stop
 * pumping their scans and VALUES and keep serving their channels;
 * sl_prun_run returns 0.  sl_prun_finish_stop then drains (every source
 * ends in its own task and the job runs to its end) or cancels.
 */
#include "prun_int.h"
#include "instantiate.h"
#include "cpus.h"
#include "sluice.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../data/keygroup.h"
#include "../exec/ops.h"
#include "../state/state.h"

static int find(int *up, int i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

static void unite(int *up, int a, int b)
{
	a = find(up, a);
	b = find(up, b);
	if (a != b)
		up[a > b ? a : b] = a < b ? a : b;
}

/* Chains: chain_of[node], numbered in plan order; first_task per chain. */
static int make_chains(sl_prun *j, sl_err *err)
{
	const sl_pplan *p = j->plan;
	int n = p->n;
	int *up = malloc(sizeof(int) * (size_t)(n ? n : 1));
	j->chain_of = malloc(sizeof(int) * (size_t)(n ? n : 1));
	j->first_task = malloc(sizeof(int) * (size_t)(n + 1));
	if (!up || !j->chain_of || !j->first_task) {
		free(up);
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	for (int i = 0; i < n; i++)
		up[i] = i;
	for (int i = 0; i < n; i++) {
		const sl_pnode *nd = p->nodes[i];
		for (int k = 0; k < nd->nin; k++)
			if (nd->in[k] && nd->xchg[k] == SL_XCHG_CHAIN)
				unite(up, i, nd->in[k]->id);
		if (nd->side)
			unite(up, i, nd->side->id);
	}
	int nchains = 0;
	for (int i = 0; i < n; i++)
		j->chain_of[i] = -1;
	for (int i = 0; i < n; i++) {
		int r = find(up, i);
		if (j->chain_of[r] < 0) {
			j->chain_of[r] = nchains;
			j->first_task[nchains] = j->ntasks;
			j->ntasks += p->nodes[r]->par;
			nchains++;
			j->nchains = nchains;
		}
		j->chain_of[i] = j->chain_of[r];
		if (p->nodes[i]->par != p->nodes[r]->par) {
			free(up);
			return sl_err_set(err, SL_ERUNTIME, "internal error: plan nodes #%d and #%d are "
			                  "chained at parallelisms %d and %d", r, i, p->nodes[r]->par,
			                  p->nodes[i]->par);
		}
	}
	free(up);
	return 0;
}

static task *task_of(sl_prun *j, int node, int inst)
{
	return &j->tasks[j->first_task[j->chain_of[node]] + inst];
}

/* The exchanged edges and their channels. */
static int make_edges(sl_prun *j, sl_err *err)
{
	const sl_pplan *p = j->plan;
	for (int i = 0; i < p->n; i++)
		for (int k = 0; k < p->nodes[i]->nin; k++)
			j->nedges += p->nodes[i]->in[k] && p->nodes[i]->xchg[k] != SL_XCHG_CHAIN;
	j->edges = calloc((size_t)(j->nedges ? j->nedges : 1), sizeof(*j->edges));
	if (!j->edges)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	int e = 0;
	for (int i = 0; i < p->n; i++) {
		const sl_pnode *nd = p->nodes[i];
		for (int k = 0; k < nd->nin; k++) {
			if (!nd->in[k] || nd->xchg[k] == SL_XCHG_CHAIN)
				continue;
			xedge *x = &j->edges[e++];
			x->from = nd->in[k];
			x->to = nd;
			x->input = k;
			x->kind = nd->xchg[k];
			x->np = x->from->par;
			x->nc = nd->par;
			size_t nn = (size_t)x->np * (size_t)x->nc;
			x->ch = calloc(nn, sizeof(sl_chan *));
			x->ret = calloc(nn, sizeof(sl_chan *));
			x->sch = calloc(nn, sizeof(sl_chan *));
			x->sret = calloc(nn, sizeof(sl_chan *));
			x->rch = calloc(nn, sizeof(sl_chan *));
			x->rret = calloc(nn, sizeof(sl_chan *));
			x->send = calloc((size_t)x->np, sizeof(sl_op *));
			if (!x->ch || !x->ret || !x->sch || !x->sret || !x->rch || !x->rret || !x->send)
				return sl_err_set(err, SL_ENOMEM, "out of memory");
			for (int a = 0; a < x->np; a++)
				for (int b = 0; b < x->nc; b++) {
					if (x->kind == SL_XCHG_FORWARD && a != b)
						continue;
					task *t = task_of(j, nd->id, b), *f = task_of(j, x->from->id, a);
					/* both sides sleep on their thread's wake; the batches
					 * come back to the producer's thread, whose receiver side
					 * (sl_chan_try_push) never waits */
					x->ch[a * x->nc + b] = sl_chan_new2(CHAN_CAP, &t->th->wake, &f->th->wake);
					x->ret[a * x->nc + b] = sl_chan_new2(POOL, &f->th->wake, NULL);
					if (!x->ch[a * x->nc + b] || !x->ret[a * x->nc + b])
						return sl_err_set(err, SL_ENOMEM, "out of memory");
				}
		}
	}
	return 0;
}

/* Adds op to t's graph with the schema of plan node `schema`. */
static int add_op(task *t, sl_op *op, int nin, const sl_pnode *schema, sl_err *err)
{
	if (!op)
		return err->code ? err->code : SL_ENOMEM;
	if (sl_graph_add(&t->g, op, nin, schema->nout, schema->out_types, schema->out_names)) {
		sl_op_free(op);
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	return 0;
}

/*
 * Threads (docs/parallel.md §1, "Slot sharing").  Each chain's depth is
 * the longest path of exchanged edges from a chain without exchanged
 * inputs.  When the chain graph has no cycle (a chain at parallelism 1
 * that feeds keyed instances and reads their results back has one) and
 * 'sluice.slot-sharing' is on (off by default: a thread per task kept the
 * cores busier in every job measured, docs/performance.md, s10-par),
 * instance i of every chain runs on thread i (instances of a chain at a
 * lower parallelism on the first threads), so the job has as many threads
 * as its largest parallelism; else every task has its own thread.  A chain reading a
 * single-instance source (stdin, whose read blocks on its pipe, postgres-
 * cdc, a jdbc scan) keeps a thread of its own in any case: a source that
 * blocks would stall every task sharing its thread (at parallelism 2 a
 * GROUP BY over stdin held open showed its results only at EOF).  A
 * thread's tasks are kept shallowest first.
 */
static int own_thread(const sl_prun *j, int chain)
{
	for (int i = 0; i < j->plan->n; i++) {
		const sl_pnode *nd = j->plan->nodes[i];
		if (j->chain_of[i] == chain && nd->kind == SL_OPK_SCAN) {
			const sl_scan_params *sp = nd->params;
			if (sp->source && sp->source->single_instance)
				return 1;
		}
	}
	return 0;
}

static int assign_threads(sl_prun *j, const sl_opts *session, sl_err *err)
{
	const sl_pplan *p = j->plan;
	int share = 0;
	int rc = sl_opts_bool(session, "sluice.slot-sharing", 0, &share, err);
	if (rc)
		return rc;
	int nch = j->nchains, *depth = calloc((size_t)(nch ? nch : 1), sizeof(int));
	if (!depth)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	int cyclic = 0;
	for (int it = 0;; it++) {
		int changed = 0;
		for (int i = 0; i < p->n; i++)
			for (int k = 0; k < p->nodes[i]->nin; k++) {
				const sl_pnode *in = p->nodes[i]->in[k];
				if (!in || p->nodes[i]->xchg[k] == SL_XCHG_CHAIN)
					continue;
				int a = j->chain_of[in->id], b = j->chain_of[i];
				if (a == b)
					cyclic = 1;
				else if (depth[b] < depth[a] + 1) {
					depth[b] = depth[a] + 1;
					changed = 1;
				}
			}
		if (!changed || cyclic)
			break;
		if (it >= nch) { /* a longest path has fewer than nch edges */
			cyclic = 1;
			break;
		}
	}
	share = share && !cyclic;
	int nshared = 0;
	for (int i = 0; i < j->ntasks; i++) {
		task *t = &j->tasks[i];
		t->depth = cyclic ? 0 : depth[t->chain];
		t->own = !share || (t->par == 1 && own_thread(j, t->chain));
		if (!t->own && t->par > nshared)
			nshared = t->par;
	}
	free(depth);
	int nown = 0;
	for (int i = 0; i < j->ntasks; i++)
		nown += j->tasks[i].own;
	j->nthr = nshared + nown;
	j->thr = calloc((size_t)(j->nthr ? j->nthr : 1), sizeof(thr));
	if (!j->thr)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int h = 0; h < j->nthr; h++) {
		j->thr[h].job = j;
		sl_wake_init(&j->thr[h].wake);
		if (!(j->thr[h].tasks = calloc((size_t)(j->ntasks ? j->ntasks : 1), sizeof(task *))))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	int next = nshared;
	for (int d = 0; d <= j->nchains; d++) /* shallowest first */
		for (int i = 0; i < j->ntasks; i++) {
			task *t = &j->tasks[i];
			if (t->depth != d)
				continue;
			t->th = t->own ? &j->thr[next++] : &j->thr[t->inst];
			t->th->tasks[t->th->ntasks++] = t;
		}
	return 0;
}

/* Builds task t (instance t->inst of chain t->chain) and opens it. */
static int build_task(sl_prun *j, task *t, const char *backend, const sl_opts *session, int maxp,
                      sl_err *err)
{
	const sl_pplan *p = j->plan;
	int rc = sl_state_backend_open2(backend, session, NULL, &t->state, err);
	if (rc)
		return rc;
	int first, last;
	sl_keygroup_range(t->inst, t->par, maxp, &first, &last);
	if ((rc = sl_state_set_key_groups(t->state, maxp, first, last, err)))
		return rc;
	sl_graph_init(&t->g, t->state);
	sl_op **op_of = &j->op_of[(size_t)(t - j->tasks) * (size_t)p->n];
	/* receivers */
	int nw = 0;
	for (int e = 0; e < j->nedges; e++)
		if (j->chain_of[j->edges[e].to->id] == t->chain)
			nw += j->edges[e].np;
	t->wait = calloc((size_t)(nw ? nw : 1), sizeof(sl_chan *));
	if (!t->wait)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	int nrecv = 0;
	for (int e = 0; e < j->nedges; e++) {
		xedge *x = &j->edges[e];
		if (j->chain_of[x->to->id] != t->chain)
			continue;
		sl_chan **rc_ = &x->rch[t->inst * x->np], **rr = &x->rret[t->inst * x->np];
		int n = 0;
		for (int a = 0; a < x->np; a++)
			if (x->ch[a * x->nc + t->inst]) {
				rc_[n] = x->ch[a * x->nc + t->inst];
				rr[n] = x->ret[a * x->nc + t->inst];
				t->wait[t->nwait++] = rc_[n];
				n++;
			}
		if ((rc = add_op(t, sl_xrecv_new(rc_, rr, n, err), 0, x->from, err)))
			return rc;
		t->g.ops[t->g.nops - 1]->uid[0] = 0; /* no plan operator: no id (snapshots) */
		nrecv++;
	}
	/* the chain */
	uint8_t *member = calloc((size_t)(p->n ? p->n : 1), 1);
	if (!member)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < p->n; i++)
		member[i] = j->chain_of[i] == t->chain;
	rc = sl_instantiate_part(p, member, t->inst, t->par, j->share, &t->g, op_of, err);
	free(member);
	if (rc)
		return rc;
	/* connect the receivers, in the order they were added */
	for (int e = 0, r = 0; e < j->nedges; e++) {
		xedge *x = &j->edges[e];
		if (j->chain_of[x->to->id] != t->chain)
			continue;
		if (sl_graph_connect(&t->g, t->g.ops[r++], op_of[x->to->id], x->input))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	t->recvs = calloc((size_t)(nrecv ? nrecv : 1), sizeof(sl_op *));
	t->wait_now = calloc((size_t)nw + 1, sizeof(sl_chan *)); /* and the control channel */
	if (!t->recvs || !t->wait_now)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int r = 0; r < nrecv; r++)
		t->recvs[t->nrecvs++] = t->g.ops[r];
	/* senders */
	int64_t batch_rows = 0;
	if ((rc = sl_opts_int(session, "sluice.batch-size", 0, &batch_rows, err)))
		return rc;
	int lend = 1; /* 'sluice.exchange-lend' false: always copy (for measurements) */
	if ((rc = sl_opts_bool(session, "sluice.exchange-lend", 1, &lend, err)))
		return rc;
	/* a sleeping consumer is woken by every wake_every-th message, or when
	 * the sender's turn ends, it flushes or it waits (docs/parallel.md
	 * §12); 'sluice.exchange-wake-every' = 1: by every message (for
	 * measurements) */
	int64_t wake_every = CHAN_CAP / 2;
	if ((rc = sl_opts_int(session, "sluice.exchange-wake-every", CHAN_CAP / 2, &wake_every,
	                      err)))
		return rc;
	if (wake_every < 1 || wake_every > CHAN_CAP)
		return sl_err_set(err, SL_EINVAL, "'sluice.exchange-wake-every' must be 1 to %d",
		                  CHAN_CAP);
	for (int e = 0; e < j->nedges; e++)
		t->nsends += j->chain_of[j->edges[e].from->id] == t->chain;
	t->sends = calloc((size_t)(t->nsends ? t->nsends : 1), sizeof(sl_op *));
	if (!t->sends)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int e = 0, s = 0; e < j->nedges; e++) {
		xedge *x = &j->edges[e];
		if (j->chain_of[x->from->id] != t->chain)
			continue;
		sl_chan **sc = &x->sch[t->inst * x->nc], **sr = &x->sret[t->inst * x->nc];
		int n = 0, local = -1;
		for (int b = 0; b < x->nc; b++)
			if (x->ch[t->inst * x->nc + b]) {
				/* a consumer on this thread (slot sharing): the sender lends
				 * it its input instead of copying (exchange.h) */
				if (task_of(j, x->to->id, b)->th == t->th)
					local = n;
				sc[n] = x->ch[t->inst * x->nc + b];
				sr[n] = x->ret[t->inst * x->nc + b];
				n++;
			}
		const sl_dist *d = &x->to->dist[x->input];
		sl_op *op = sl_xsend_new(x->kind, d->cols, d->ncols, maxp, sc, sr, n, POOL,
		                         (int)batch_rows, err);
		if ((rc = add_op(t, op, 1, x->from, err)))
			return rc;
		op->uid[0] = 0;
		if (sl_graph_connect(&t->g, op_of[x->from->id], op, 0))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		x->send[t->inst] = op;
		sl_xsend_set_wait(op, sl__prun_help, t);
		for (int b = 0; b < n; b++) /* safe: every wait of op kicks first (§12) */
			sl_chan_set_lazy(sc[b], (int)wake_every);
		if (local >= 0 && lend)
			sl_xsend_set_local(op, local);
		t->sends[s++] = op;
	}
	/* which receivers feed which sender (the marker's alignment) */
	t->sent_mk = calloc((size_t)(t->nsends ? t->nsends : 1), sizeof(int64_t));
	t->send_up = calloc((size_t)(t->nsends ? t->nsends : 1), sizeof(uint64_t));
	uint8_t *reach = malloc((size_t)(t->g.nops ? t->g.nops : 1));
	if (!t->sent_mk || !t->send_up || !reach) {
		free(reach);
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	/* the operators to flush before a barrier passes them (pre_barrier) */
	for (int i = 0; i < t->g.nops; i++)
		t->npb += t->g.ops[i]->vt->pre_barrier != NULL;
	t->pb_ops = calloc((size_t)(t->npb ? t->npb : 1), sizeof(sl_op *));
	t->pb_up = calloc((size_t)(t->npb ? t->npb : 1), sizeof(uint64_t));
	t->pb_mk = calloc((size_t)(t->npb ? t->npb : 1), sizeof(int64_t));
	if (!t->pb_ops || !t->pb_up || !t->pb_mk) {
		free(reach);
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	for (int i = 0, k = 0; i < t->g.nops; i++)
		if (t->g.ops[i]->vt->pre_barrier)
			t->pb_ops[k++] = t->g.ops[i];
	for (int r = 0; r < t->nrecvs; r++) {
		memset(reach, 0, (size_t)t->g.nops);
		reach[t->recvs[r]->id] = 1;
		for (int i = 0; i < t->g.nops; i++) /* ids are topological */
			if (reach[i])
				for (int k = 0; k < t->g.ops[i]->nedges; k++)
					reach[t->g.ops[i]->edges[k].to->id] = 1;
		for (int s = 0; s < t->nsends; s++)
			if (reach[t->sends[s]->id])
				t->send_up[s] |= 1ull << (r & 63);
		for (int b = 0; b < t->npb; b++)
			if (reach[t->pb_ops[b]->id])
				t->pb_up[b] |= 1ull << (r & 63);
	}
	free(reach);
	for (int i = 0; i < t->g.nops; i++) {
		sl_op *op = t->g.ops[i];
		t->has_scan |= op->nin == 0 && !sl_xchg_is_recv(op);
		/* only an operator that fires on the clock (a processing-time
		 * window or session) needs the thread to wake without input:
		 * an event-time window's proctime does nothing, and polling the
		 * clock every 1 ms cost each window thread ~1 000 wake-ups a
		 * second (s12-par) */
		t->has_timers |= op->vt->proctime != NULL && op->state_proctime;
	}
	return sl_graph_open(&t->g, err);
}

sl_prun *sl_prun_new(const sl_pplan *plan, const char *backend, const sl_opts *session, int maxp,
                     int64_t proc_manual, const char *tz, sl_err *err)
{
	sl_prun *j = calloc(1, sizeof(*j));
	if (!j) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	j->plan = plan;
	j->clock = proc_manual;
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cv, NULL);
	pthread_cond_init(&j->park_cv, NULL);
	int rc = make_chains(j, err);
	if (!rc) {
		j->tasks = calloc((size_t)(j->ntasks ? j->ntasks : 1), sizeof(*j->tasks));
		j->op_of = calloc((size_t)j->ntasks * (size_t)(plan->n ? plan->n : 1), sizeof(sl_op *));
		j->share = calloc((size_t)(plan->n ? plan->n : 1), sizeof(*j->share));
		if (!j->tasks || !j->op_of || !j->share)
			rc = sl_err_set(err, SL_ENOMEM, "out of memory");
		for (int i = 0; j->share && i < plan->n; i++)
			pthread_mutex_init(&j->share[i].mu, NULL);
	}
	if (!rc) {
		/* each task knows its chain, instance and thread before channels
		 * name its thread's wake */
		for (int i = 0; i < plan->n; i++) {
			int c = j->chain_of[i];
			for (int k = 0; k < plan->nodes[i]->par; k++) {
				task *t = &j->tasks[j->first_task[c] + k];
				t->job = j;
				t->chain = c;
				t->inst = k;
				t->par = plan->nodes[i]->par;
			}
		}
		rc = assign_threads(j, session, err);
		for (int i = 0; !rc && i < j->ntasks; i++)
			if (!(j->tasks[i].ctl = sl_chan_new(4, &j->tasks[i].th->wake)))
				rc = sl_err_set(err, SL_ENOMEM, "out of memory");
		if (!rc)
			rc = make_edges(j, err);
	}
	for (int i = 0; !rc && i < j->ntasks; i++) {
		task *t = &j->tasks[i];
		rc = build_task(j, t, backend, session, maxp, err);
		t->g.proc_manual = proc_manual;
		t->g.ectx.tz = tz;
		sl_graph_tick(&t->g);
	}
	if (rc) {
		sl_prun_free(j);
		return NULL;
	}
	return j;
}

/* Cancels every channel: every blocked thread wakes and fails. */
void sl__prun_cancel_all(sl_prun *j)
{
	atomic_store(&j->cancelled, 1);
	pthread_mutex_lock(&j->mu); /* parked instances wake and end */
	pthread_cond_broadcast(&j->park_cv);
	pthread_mutex_unlock(&j->mu);
	for (int i = 0; j->tasks && i < j->ntasks; i++)
		if (j->tasks[i].ctl)
			sl_chan_cancel(j->tasks[i].ctl);
	for (int e = 0; e < j->nedges; e++) {
		xedge *x = &j->edges[e];
		for (int i = 0; i < x->np * x->nc; i++) {
			if (x->ch[i])
				sl_chan_cancel(x->ch[i]);
			if (x->ret[i])
				sl_chan_cancel(x->ret[i]);
		}
	}
}

void sl__prun_failed(sl_prun *j, const sl_err *err)
{
	pthread_mutex_lock(&j->mu);
	int first = !j->failed && !atomic_load(&j->cancelled);
	if (first) {
		j->failed = 1;
		j->err = *err;
	}
	pthread_mutex_unlock(&j->mu);
	if (first)
		sl__prun_cancel_all(j);
}

static void join_all(sl_prun *j)
{
	if (!j->started || j->joined)
		return;
	for (int i = 0; i < j->nthr; i++)
		pthread_join(j->thr[i].th, NULL);
	j->joined = 1;
}

int sl_prun_start(sl_prun *j, sl_err *err)
{
	if (j->started)
		return 0;
	for (int i = 0; i < j->nthr; i++)
		if (pthread_create(&j->thr[i].th, NULL, sl__prun_thread, &j->thr[i])) {
			sl__prun_cancel_all(j);
			for (int k = 0; k < i; k++)
				pthread_join(j->thr[k].th, NULL);
			j->joined = j->started = 1;
			j->failed = 1;
			sl_err_set(&j->err, SL_ERUNTIME, "cannot start thread %d", i);
			return sl_err_set(err, SL_ERUNTIME, "cannot start thread %d", i);
		}
	j->started = 1;
	return 0;
}

/* The job failed outside the tasks (a checkpoint): err becomes its
 * error, every channel is cancelled and every thread joined. */
static int fail_from_coord(sl_prun *j, sl_err *err)
{
	pthread_mutex_lock(&j->mu);
	if (!j->failed) {
		j->failed = 1;
		j->err = *err;
	}
	pthread_mutex_unlock(&j->mu);
	sl__prun_cancel_all(j);
	join_all(j);
	*err = j->err;
	return err->code ? err->code : SL_ERUNTIME;
}

int sl_prun_run(sl_prun *j, sl_err *err)
{
	if (j->joined)
		return j->failed ? sl_err_set(err, j->err.code, "%s", j->err.msg) : 1;
	int rc = sl_prun_start(j, err);
	if (rc)
		return rc;
	int ck = j->ck && j->ck->on;
	pthread_mutex_lock(&j->mu);
	/* the stop flag is set by a signal handler, which cannot signal the
	 * condition: look at it every 20 ms (this thread runs no operator);
	 * with checkpointing this thread is the coordinator (every 5 ms) */
	while (j->ndone < j->ntasks && !j->failed &&
	       !(atomic_load(&j->stop) && !atomic_load(&j->drain))) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += ck ? 5000000 : 20000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&j->cv, &j->mu, &ts);
		if (ck && !atomic_load(&j->stop) && j->ndone < j->ntasks && !j->failed) {
			pthread_mutex_unlock(&j->mu);
			rc = sl_coord_maybe(j->ck);
			if (rc < 0)
				return fail_from_coord(j, err);
			pthread_mutex_lock(&j->mu);
		}
	}
	int failed = j->failed, done = j->ndone == j->ntasks;
	pthread_mutex_unlock(&j->mu);
	if (!failed && !done)
		return 0; /* stopped */
	join_all(j);
	if (j->failed) {
		*err = j->err;
		return err->code ? err->code : SL_ERUNTIME;
	}
	/* end of all inputs: the final checkpoint commits the output (not
	 * after a drained stop, which takes a savepoint instead) */
	if (ck && !atomic_load(&j->drain) && (rc = sl_coord_take(j->ck, 0, 1, NULL, 0)))
		return rc;
	return 1;
}

sl_op *sl_prun_push_scan(const sl_prun *j, const char *table)
{
	for (int i = 0; i < j->ntasks; i++)
		for (int k = 0; k < j->tasks[i].g.nops; k++) {
			sl_op *op = j->tasks[i].g.ops[k];
			if (op->nin == 0 && !sl_xchg_is_recv(op) && sl_op_scan_is_push(op) &&
			    !strcmp(sl_op_scan_table(op), table))
				return op;
		}
	return NULL;
}

int sl_prun_has_push(const sl_prun *j)
{
	for (int i = 0; i < j->ntasks; i++)
		for (int k = 0; k < j->tasks[i].g.nops; k++) {
			const sl_op *op = j->tasks[i].g.ops[k];
			if (op->nin == 0 && !sl_xchg_is_recv(op) && sl_op_scan_is_push(op))
				return 1;
		}
	return 0;
}

int sl_prun_drain(sl_prun *j, const sl_op *scan, const char *text, size_t len, int mode,
                  int64_t clock, sl_err *err)
{
	int rc = sl_prun_start(j, err);
	if (rc)
		return rc;
	if (j->joined) /* ended (or failed): nothing runs any more */
		return j->failed ? sl_err_set(err, j->err.code, "%s", j->err.msg) : 0;
	int64_t n = atomic_load(&j->marker_req) + 1;
	atomic_store(&j->mk_barrier, 0);
	j->clock = clock;
	j->push_scan = scan;
	j->push_text = text;
	j->push_len = len;
	j->push_mode = mode;
	atomic_store(&j->marker_req, n);
	sl__prun_wake(j);
	pthread_mutex_lock(&j->mu);
	for (;;) {
		int pending = 0;
		for (int i = 0; i < j->ntasks && !pending; i++) {
			const task *t = &j->tasks[i];
			pending = !t->done && t->acked < n;
		}
		if (!pending || j->failed)
			break;
		pthread_cond_wait(&j->cv, &j->mu);
	}
	int failed = j->failed, done = j->ndone == j->ntasks;
	pthread_mutex_unlock(&j->mu);
	j->push_scan = NULL;
	if (failed || done)
		join_all(j);
	if (failed) {
		*err = j->err;
		return err->code ? err->code : SL_ERUNTIME;
	}
	return 0;
}

void sl_prun_stop(sl_prun *j)
{
	atomic_store(&j->stop, 1);
}

static int publish(sl_prun *j, sl_err *err)
{
	int rc = 0;
	for (int i = 0; i < j->ntasks; i++)
		for (int k = 0; k < j->tasks[i].g.nops; k++) {
			int r = sl_op_sink_finish(j->tasks[i].g.ops[k], err);
			if (r && !rc)
				rc = r;
		}
	return rc;
}

int sl_prun_finish_stop(sl_prun *j, int drain, sl_err *err)
{
	if (!j->started || j->joined)
		return j->failed ? 0 : publish(j, err);
	if (drain) {
		atomic_store(&j->drain, 1);
		int rc = sl_prun_run(j, err);
		return rc < 0 ? rc : 0;
	}
	sl__prun_cancel_all(j);
	join_all(j);
	return publish(j, err);
}

void sl_prun_publish_on_error(sl_prun *j)
{
	sl_err ignore;
	sl_err_clear(&ignore);
	sl__prun_cancel_all(j);
	join_all(j);
	if (!(j->ck && j->ck->on)) /* with checkpointing the restart replays */
		publish(j, &ignore);
}

/* ---- checkpoints (docs/parallel.md §5; the coordinator's sl_coord_rt) ---- */

/* Brings every instance to a checkpoint barrier and parks it: a marker
 * with mk_barrier set, through the channels, aligned at every receiver;
 * each instance parks once it acknowledged it.  1 when every instance is
 * parked or ended, 0 when the job failed or was cancelled first. */
static int co_park(void *ctx, int64_t id, int64_t *aligned, sl_err *err)
{
	(void)id;
	(void)err;
	sl_prun *j = ctx;
	pthread_mutex_lock(&j->mu);
	j->nparked = 0;
	pthread_mutex_unlock(&j->mu);
	int64_t n = atomic_load(&j->marker_req) + 1;
	atomic_store(&j->mk_barrier, 1);
	atomic_store(&j->marker_req, n);
	sl__prun_wake(j);
	pthread_mutex_lock(&j->mu);
	for (;;) {
		int waiting = 0;
		for (int i = 0; i < j->ntasks && !waiting; i++)
			waiting = !j->tasks[i].done && j->tasks[i].parked < n;
		if (!waiting || j->failed || atomic_load(&j->cancelled))
			break;
		pthread_cond_wait(&j->cv, &j->mu);
	}
	int ok = !j->failed && !atomic_load(&j->cancelled);
	*aligned = ok && j->nparked ? sl__prun_mono_us() - j->first_park_us : 0;
	j->parked_now = ok;
	pthread_mutex_unlock(&j->mu);
	return ok;
}

/* The no-park barrier (sl_coord_rt.barrier; docs/parallel.md §5,
 * "Without parking"): a marker with mk_barrier set, aligned as co_park's,
 * after which each instance runs work for its own part and goes on
 * (task_marker); instances that ended have it run here (their threads no
 * longer touch their graphs).  On failure or cancellation it waits until
 * no instance is inside work and lets none start it. */
static int co_barrier(void *ctx, int64_t id, int (*work)(void *arg, int k, sl_err *err),
                      void *arg, int *work_rc, int64_t *aligned, int64_t *blocked, sl_err *err)
{
	(void)id;
	sl_prun *j = ctx;
	pthread_mutex_lock(&j->mu);
	j->nparked = 0;
	j->bmode = 1;
	j->bwork = work;
	j->barg = arg;
	j->bwork_rc = 0;
	sl_err_clear(&j->berr);
	j->bfirst_us = j->blast_us = j->bmax_us = 0;
	pthread_mutex_unlock(&j->mu);
	int64_t n = atomic_load(&j->marker_req) + 1;
	atomic_store(&j->mk_barrier, 1);
	atomic_store(&j->marker_req, n);
	sl__prun_wake(j);
	pthread_mutex_lock(&j->mu);
	for (;;) {
		/* worked: the lock was let go for a task's work, so what this
		 * pass saw of the tasks before it may be stale (one finishing
		 * then broadcast to nobody): look again before sleeping.  Without
		 * it test_pckpt's rocksdb jobs hung now and then, every task done
		 * and this thread asleep (s9-exch, gdb) */
		int waiting = 0, worked = 0;
		for (int i = 0; i < j->ntasks; i++) {
			task *t = &j->tasks[i];
			if (t->done && t->parked < n && !j->failed && !atomic_load(&j->cancelled)) {
				t->parked = n; /* ended before the barrier: its part is ours */
				worked = 1;
				pthread_mutex_unlock(&j->mu);
				sl_err e;
				sl_err_clear(&e);
				int64_t w0 = sl__prun_mono_us();
				int r = work(arg, i, &e);
				int64_t w1 = sl__prun_mono_us();
				pthread_mutex_lock(&j->mu);
				if (r && !j->bwork_rc) {
					j->bwork_rc = r;
					j->berr = e;
				}
				if (j->nparked++ == 0)
					j->bfirst_us = w1;
				j->blast_us = w1;
				if (w1 - w0 > j->bmax_us)
					j->bmax_us = w1 - w0;
			}
			waiting |= !t->done && t->parked < n;
		}
		if (!waiting || j->failed || atomic_load(&j->cancelled))
			break;
		if (!worked)
			pthread_cond_wait(&j->cv, &j->mu);
	}
	int ok = !j->failed && !atomic_load(&j->cancelled);
	j->bwork = NULL; /* none starts it any more */
	for (;;) {
		int busy = 0;
		for (int i = 0; i < j->ntasks; i++)
			busy |= j->tasks[i].in_work;
		if (!busy)
			break;
		pthread_cond_wait(&j->cv, &j->mu);
	}
	j->bmode = 0;
	*work_rc = j->bwork_rc;
	if (j->bwork_rc)
		sl_err_set(err, j->bwork_rc, "%s", j->berr.msg);
	*aligned = j->nparked ? j->blast_us - j->bfirst_us : 0;
	*blocked = j->bmax_us;
	pthread_mutex_unlock(&j->mu);
	return ok;
}

static void co_release(void *ctx)
{
	sl_prun *j = ctx;
	pthread_mutex_lock(&j->mu);
	j->released = atomic_load(&j->marker_req);
	j->parked_now = 0;
	pthread_cond_broadcast(&j->park_cv);
	pthread_mutex_unlock(&j->mu);
}

/* Phase 2 on every instance's thread (its control channel), or here for
 * the instances that ended, or all of them while parked or not running. */
static int co_phase2(void *ctx, int64_t id, int abort, sl_err *err)
{
	sl_prun *j = ctx;
	int rc = 0;
	if (j->parked_now || !j->started || j->joined) {
		for (int i = 0; i < j->ntasks; i++) {
			int r2 = sl__prun_phase2(&j->tasks[i], id, abort || rc, err);
			if (r2 && !rc)
				rc = r2;
		}
		return rc;
	}
	sl_chan_msg m = {SL_CHAN_BARRIER, abort ? CTL_ABORT : 0, id, NULL};
	for (int i = 0; i < j->ntasks; i++)
		sl_chan_try_push(j->tasks[i].ctl, &m); /* one at a time: never full */
	uint8_t *mine = calloc((size_t)j->ntasks, 1);
	if (!mine)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	pthread_mutex_lock(&j->mu);
	for (;;) {
		int waiting = 0;
		for (int i = 0; i < j->ntasks && !waiting; i++)
			waiting = !j->tasks[i].done && j->tasks[i].committed < id;
		if (!waiting || j->failed || atomic_load(&j->cancelled))
			break;
		pthread_cond_wait(&j->cv, &j->mu);
	}
	int failed = j->failed || atomic_load(&j->cancelled);
	for (int i = 0; i < j->ntasks; i++)
		mine[i] = j->tasks[i].done && j->tasks[i].committed < id;
	if (j->failed)
		*err = j->err;
	pthread_mutex_unlock(&j->mu);
	if (failed) {
		free(mine);
		return err->code ? err->code : SL_ERUNTIME;
	}
	for (int i = 0; i < j->ntasks; i++) /* ended: their graphs are ours now */
		if (mine[i]) {
			int r2 = sl__prun_phase2(&j->tasks[i], id, abort || rc, err);
			if (r2 && !rc)
				rc = r2;
		}
	free(mine);
	return rc;
}

static sl_coord_part *task_parts(sl_prun *j, sl_err *err);

int sl_prun_attach_coord(sl_prun *j, sl_coord *c, sl_err *err)
{
	sl_coord_part *parts = task_parts(j, err);
	if (!parts)
		return err->code;
	sl_coord_rt rt = {j, co_park, co_release, co_phase2, co_barrier};
	int rc = sl_coord_set_parts(c, parts, j->ntasks, &rt);
	free(parts);
	if (!rc)
		j->ck = c;
	return rc;
}

/* Every task's graph and backend, as the coordinator's parts (free it). */
static sl_coord_part *task_parts(sl_prun *j, sl_err *err)
{
	sl_coord_part *parts = malloc(sizeof(*parts) * (size_t)(j->ntasks ? j->ntasks : 1));
	if (!parts) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	for (int i = 0; i < j->ntasks; i++)
		parts[i] = (sl_coord_part){&j->tasks[i].g, j->tasks[i].state, j->tasks[i].par,
		                           j->tasks[i].inst};
	return parts;
}

int sl_prun_snapshot(sl_prun *j, sl_snap_writer *w, sl_err *err)
{
	if (j->failed)
		return sl_err_set(err, j->err.code ? j->err.code : SL_ERUNTIME, "%s", j->err.msg);
	sl_coord_part *parts = task_parts(j, err);
	if (!parts)
		return err->code;
	int running = j->started && !j->joined, rc = 0;
	int64_t aligned;
	if (running && !co_park(j, 0, &aligned, err)) {
		pthread_mutex_lock(&j->mu);
		sl_err e = j->err;
		pthread_mutex_unlock(&j->mu);
		rc = sl_err_set(err, e.code ? e.code : SL_ERUNTIME, "%s",
		                e.code ? e.msg : "the job was cancelled");
		running = 0;
	}
	if (!rc)
		rc = sl_coord_snapshot_parts(parts, j->ntasks, w, err);
	if (running)
		co_release(j);
	free(parts);
	return rc;
}

int sl_prun_restore(sl_prun *j, const void *buf, size_t len, sl_err *err)
{
	if (j->started)
		return sl_err_set(err, SL_EINVAL, "restore a job at parallelism above 1 before its "
		                  "first push or poll");
	sl_coord_part *parts = task_parts(j, err);
	if (!parts)
		return err->code;
	int rc = sl_coord_restore_parts(parts, j->ntasks, 1, buf, len, err);
	free(parts);
	return rc;
}

int sl_prun_savepoint(sl_prun *j, int drain, char *path, size_t cap, sl_err *err)
{
	if (!j->started || j->joined) /* nothing runs */
		return sl_coord_take(j->ck, 1, 0, path, cap);
	if (drain) { /* every source ends, the job runs to its end */
		atomic_store(&j->drain, 1);
		int rc = sl_prun_run(j, err);
		if (rc < 0)
			return rc;
		return sl_coord_take(j->ck, 1, 0, path, cap);
	}
	int64_t aligned;
	if (!co_park(j, 0, &aligned, err)) {
		pthread_mutex_lock(&j->mu);
		sl_err e = j->err;
		pthread_mutex_unlock(&j->mu);
		return sl_err_set(err, e.code ? e.code : SL_ERUNTIME, "%s", e.code ? e.msg :
		                  "the job was cancelled");
	}
	int rc = sl_coord_take(j->ck, 1, 0, path, cap);
	co_release(j);
	return rc;
}

void sl_prun_free(sl_prun *j)
{
	if (!j)
		return;
	if (j->started && !j->joined) {
		sl__prun_cancel_all(j);
		join_all(j);
	}
	for (int i = 0; j->tasks && i < j->ntasks; i++) {
		task *t = &j->tasks[i];
		if (t->g.ops)
			sl_graph_deinit(&t->g);
		sl_state_backend_close(t->state);
		free(t->wait);
		free(t->sends);
		free(t->recvs);
		free(t->wait_now);
		free(t->sent_mk);
		free(t->send_up);
		free(t->pb_ops);
		free(t->pb_up);
		free(t->pb_mk);
		sl_chan_free(t->ctl);
	}
	for (int e = 0; j->edges && e < j->nedges; e++) {
		xedge *x = &j->edges[e];
		for (int i = 0; x->ch && i < x->np * x->nc; i++) {
			sl_chan_free(x->ch[i]);
			if (x->ret)
				sl_chan_free(x->ret[i]);
		}
		free(x->ch);
		free(x->ret);
		free(x->sch);
		free(x->sret);
		free(x->rch);
		free(x->rret);
		free(x->send);
	}
	free(j->edges);
	for (int h = 0; j->thr && h < j->nthr; h++)
		free(j->thr[h].tasks);
	free(j->thr);
	free(j->tasks);
	free(j->op_of);
	for (int i = 0; j->share && i < j->plan->n; i++) { /* every connector is closed */
		if (j->share[i].p && j->share[i].free_p)
			j->share[i].free_p(j->share[i].p);
		pthread_mutex_destroy(&j->share[i].mu);
	}
	free(j->share);
	free(j->chain_of);
	free(j->first_task);
	pthread_mutex_destroy(&j->mu);
	pthread_cond_destroy(&j->cv);
	pthread_cond_destroy(&j->park_cv);
	free(j);
}

int sl_prun_ninst(const sl_prun *j, int node)
{
	return node >= 0 && node < j->plan->n ? j->plan->nodes[node]->par : 0;
}

sl_op *sl_prun_op(const sl_prun *j, int node, int i)
{
	const task *t = &j->tasks[j->first_task[j->chain_of[node]] + i];
	return j->op_of[(size_t)(t - j->tasks) * (size_t)j->plan->n + (size_t)node];
}

void sl_prun_edge_stats(const sl_prun *j, sl_buf *out)
{
	for (int e = 0; e < j->nedges; e++) {
		const xedge *x = &j->edges[e];
		uint64_t pushed = 0, blocks = 0, ns = 0, wait = 0;
		int nch = 0;
		for (int i = 0; i < x->np * x->nc; i++) {
			if (!x->ch[i])
				continue;
			sl_chan_stats s;
			sl_chan_stats_get(x->ch[i], &s);
			pushed += s.pushed;
			blocks += s.blocks;
			ns += s.blocked_ns;
			nch++;
		}
		for (int a = 0; a < x->np; a++)
			if (x->send[a])
				wait += sl_xsend_wait_ns(x->send[a]);
		sl_buf_printf(out, "exchange #%d -> #%d %s (%d x %d, %d channels): %llu messages, "
		              "producers blocked %.1f ms (%llu full-channel waits %.1f ms, batch-pool "
		              "waits %.1f ms)\n", x->from->id, x->to->id, sl_xchg_kind_name(x->kind),
		              x->np, x->nc, nch, (unsigned long long)pushed, (ns + wait) / 1e6,
		              (unsigned long long)blocks, ns / 1e6, wait / 1e6);
	}
}

void sl_prun_thread_stats(const sl_prun *j, sl_buf *out)
{
	int64_t run = 0, maxlife = 0;
	int par = 1;
	for (int i = 0; i < j->ntasks; i++)
		if (j->tasks[i].par > par)
			par = j->tasks[i].par;
	int cpus = sl_cpus_available();
	if (cpus > 0 && par > cpus)
		par = cpus; /* the cores the job can use at most */
	for (int h = 0; h < j->nthr; h++) {
		const thr *t = &j->thr[h];
		int64_t other = t->life_ns - t->run_ns - t->queue_ns - t->idle_ns - t->blocked_ns;
		sl_buf_printf(out, "thread %d (%d tasks): %.1f ms: on a core %.1f, waiting for a core %.1f, "
		              "asleep idle %.1f (%lld), asleep on a blocked sender %.1f (%lld), "
		              "other %.1f\n", h, t->ntasks, t->life_ns / 1e6, t->run_ns / 1e6,
		              t->queue_ns / 1e6, t->idle_ns / 1e6, (long long)t->nidle,
		              t->blocked_ns / 1e6, (long long)t->nblocked, other / 1e6);
		run += t->run_ns;
		if (t->life_ns > maxlife)
			maxlife = t->life_ns;
	}
	if (j->nthr && maxlife > 0)
		sl_buf_printf(out, "threads: %.1f ms on a core over %.1f ms, parallel efficiency %.0f%% "
		              "(on a core / (%d cores x the longest life))\n", run / 1e6,
		              maxlife / 1e6, 100.0 * (double)run / ((double)par * (double)maxlife), par);
}

int sl_prun_edge_get(const sl_prun *j, int node, int input, int *channels, uint64_t *messages,
                     uint64_t *blocked_ns)
{
	*channels = 0;
	*messages = *blocked_ns = 0;
	for (int e = 0; e < j->nedges; e++) {
		const xedge *x = &j->edges[e];
		if (x->to->id != node || x->input != input)
			continue;
		for (int i = 0; i < x->np * x->nc; i++) {
			if (!x->ch[i])
				continue;
			sl_chan_stats s;
			sl_chan_stats_get(x->ch[i], &s); /* relaxed atomics (channel.c) */
			*messages += s.pushed;
			*blocked_ns += s.blocked_ns;
			(*channels)++;
		}
		for (int a = 0; a < x->np; a++)
			if (x->send[a])
				*blocked_ns += sl_xsend_wait_ns(x->send[a]);
		return 1;
	}
	return 0;
}
