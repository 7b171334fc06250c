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
 * Task loop (one thread per task).  A step fires the task's
 * processing-time timers and pumps each of its sources (scans, VALUES,
 * receivers) once; when no source made progress, the task sleeps on its
 * wake until a channel has a message (sl_chan_wait_any, no polling), or 1
 * ms when it has a scan that may produce later or a processing-time
 * operator.  After each step a sender whose input became idle tells its
 * channels.  The task ends when its graph finished (every source ended,
 * so every sender sent END).
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
 * delivered n until released), and when all are, the task releases its
 * receivers and acknowledges.  So every row the request caused has
 * reached the sinks when the caller returns.  A task without channels to
 * sleep on looks at the request every millisecond.
 *
 * Checkpoints (docs/parallel.md §5, "As built").  With a coordinator
 * attached, the caller's thread in sl_prun_run is the coordinator
 * (ckpt_coord.c, through sl_coord_rt): a barrier is a marker flagged
 * mk_barrier; a task handling it does no request, keeps its scans, VALUES
 * and timers still until it acknowledged, then parks on park_cv until the
 * coordinator releases the barrier (co_park, co_release); a task that
 * ended counts as parked.  Phase 2 goes to each task's control channel
 * (ctl, made with its wake) and runs between two steps (task_control);
 * the coordinator runs it itself for ended tasks and while all are
 * parked (co_phase2).  The final checkpoint follows the end of every
 * task; savepoints and the API's snapshots park the tasks
 * (sl_prun_savepoint, sl_prun_snapshot).
 *
 * Stop.  sl_prun_stop sets a flag (from a signal handler): tasks stop
 * pumping their scans and VALUES and keep serving their channels;
 * sl_prun_run returns 0.  sl_prun_finish_stop then drains (every source
 * ends in its own task and the job runs to its end) or cancels.
 */
#include "prun.h"
#include "ckpt_coord.h"
#include "exchange.h"
#include "instantiate.h"
#include "sluice.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/fault.h"
#include "../data/keygroup.h"
#include "../exec/ops.h"
#include "../state/state.h"

#define CHAN_CAP 8             /* messages per channel */
#define POOL (CHAN_CAP + 2)    /* batches per channel in flight */

/* One exchanged edge of the plan. */
typedef struct xedge {
	const sl_pnode *from, *to;
	int input;
	sl_xchg_kind kind;
	int np, nc;
	sl_chan **ch;   /* [a * nc + b], NULL where there is no channel */
	sl_chan **ret;  /* beside ch */
	sl_op **send;   /* per producer instance */
	sl_chan **sch;  /* the senders' channel lists: np runs of nc */
	sl_chan **sret;
	sl_chan **rch;  /* the receivers' lists: nc runs of np */
	sl_chan **rret;
} xedge;

typedef struct task {
	struct sl_prun *job;
	int chain, inst, par;
	sl_graph g;
	sl_state_backend *state;
	sl_wake wake;
	sl_chan **wait;  /* every data channel into the task */
	int nwait;
	sl_op **sends;
	int nsends;
	sl_op **recvs;   /* the task's receivers */
	int nrecvs;
	sl_chan **wait_now; /* scratch: the channels not blocked by a marker */
	int64_t mk_done; /* the last marker this task acknowledged */
	int64_t mk_handled; /* the last marker whose request it handled */
	int64_t *sent_mk;   /* per sender: the last marker it forwarded */
	uint64_t *send_up;  /* per sender: the receivers upstream of it (bit r % 64) */
	int64_t acked;   /* under job->mu: mk_done, for the coordinator */
	int done;        /* under job->mu: the thread ended */
	int mk_barrier;  /* the marker being handled is a checkpoint barrier */
	int64_t parked;  /* under job->mu: the barrier it is parked at */
	int64_t committed; /* under job->mu: the last phase 2 it ran */
	int in_work;     /* under job->mu: running the no-park barrier's work */
	sl_chan *ctl;    /* control channel: phase 2 from the coordinator */
	int has_scan, has_timers;
	pthread_t th;
	sl_err err;
} task;

struct sl_prun {
	const sl_pplan *plan;
	int ntasks;
	task *tasks;
	int nedges;
	xedge *edges;
	int *chain_of;   /* per node: its chain */
	int *first_task; /* per chain: its instance 0's task */
	sl_op **op_of;   /* [task * plan->n + node] */
	_Atomic int stop, drain, cancelled;
	/* drains (docs/parallel.md §6): the API thread writes push_* and
	 * clock, then stores marker_req; a task reads them after loading it */
	_Atomic int64_t marker_req;
	int64_t clock;             /* the manual processing-time clock for the marker */
	const sl_op *push_scan;    /* the push request of the marker, or NULL */
	const char *push_text;
	size_t push_len;
	int push_mode;             /* SL_PRUN_PUSH_* */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int ndone, failed, started, joined;
	sl_err err;
	/* checkpoints (docs/parallel.md §5): the coordinator runs on the
	 * caller's thread; a barrier is a marker with mk_barrier set */
	sl_coord *ck;
	_Atomic int mk_barrier;
	pthread_cond_t park_cv;
	int64_t released;   /* under mu: the last barrier released */
	int nparked;        /* under mu: instances parked at the current barrier */
	int64_t first_park_us;
	int parked_now;     /* every instance parked (the coordinator's view) */
	/* the no-park barrier (co_barrier; under mu): each instance runs
	 * bwork for its own part at its barrier and goes on */
	int bmode;
	int (*bwork)(void *arg, int k, sl_err *err);
	void *barg;
	int bwork_rc;       /* the first work's error */
	sl_err berr;
	int64_t bfirst_us, blast_us, bmax_us;
};

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
					task *t = task_of(j, nd->id, b);
					x->ch[a * x->nc + b] = sl_chan_new(CHAN_CAP, &t->wake);
					x->ret[a * x->nc + b] = sl_chan_new(POOL, NULL);
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
	rc = sl_instantiate_part(p, member, t->inst, t->par, &t->g, op_of, err);
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
		int n = 0;
		for (int b = 0; b < x->nc; b++)
			if (x->ch[t->inst * x->nc + b]) {
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
	}
	free(reach);
	for (int i = 0; i < t->g.nops; i++) {
		sl_op *op = t->g.ops[i];
		t->has_scan |= op->nin == 0 && !sl_xchg_is_recv(op);
		t->has_timers |= op->vt->proctime != NULL;
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
		if (!j->tasks || !j->op_of)
			rc = sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	if (!rc) {
		/* each task knows its chain and instance before channels name its wake */
		for (int i = 0; i < plan->n; i++) {
			int c = j->chain_of[i];
			for (int k = 0; k < plan->nodes[i]->par; k++) {
				task *t = &j->tasks[j->first_task[c] + k];
				t->job = j;
				t->chain = c;
				t->inst = k;
				t->par = plan->nodes[i]->par;
				if (!t->ctl) {
					sl_wake_init(&t->wake);
					if (!(t->ctl = sl_chan_new(4, &t->wake)))
						rc = sl_err_set(err, SL_ENOMEM, "out of memory");
				}
			}
		}
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
static void cancel_all(sl_prun *j)
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

static void task_failed(sl_prun *j, const sl_err *err)
{
	pthread_mutex_lock(&j->mu);
	int first = !j->failed && !atomic_load(&j->cancelled);
	if (first) {
		j->failed = 1;
		j->err = *err;
	}
	pthread_mutex_unlock(&j->mu);
	if (first)
		cancel_all(j);
}

/* One step of task t: timers (not while a checkpoint barrier is half
 * through: their rows would follow it), then each source once (scans and
 * VALUES not while paused).  1 while some source may produce, 0 when the
 * graph finished, or an error.  *progress: rows produced. */
static int task_step(task *t, int paused, int no_timers, int64_t *progress, sl_err *err)
{
	int live = 0;
	*progress = 0;
	int rc = no_timers ? 0 : sl_graph_fire_timers(&t->g, err);
	if (rc)
		return rc;
	for (int i = 0; i < t->g.nops; i++) {
		sl_op *op = t->g.ops[i];
		if (op->nin != 0 || !op->vt->pump || op->in_ended)
			continue;
		if (paused && !sl_xchg_is_recv(op)) {
			live = 1;
			continue;
		}
		rc = op->vt->pump(op, err);
		if (rc == SL_EEOF) {
			if ((rc = sl_graph_end_source(op, err)))
				return rc;
			continue;
		}
		if (rc < 0)
			return rc;
		*progress += rc;
		live = 1;
	}
	return live;
}

/* Ends t's scans and VALUES (a drained stop). */
static int end_sources(task *t, sl_err *err)
{
	for (int i = 0; i < t->g.nops; i++) {
		sl_op *op = t->g.ops[i];
		if (op->nin == 0 && !op->in_ended && !sl_xchg_is_recv(op)) {
			int rc = sl_graph_end_source(op, err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* 1 when op is one of t's operators. */
static int64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int owns(const task *t, const sl_op *op)
{
	for (int i = 0; i < t->g.nops; i++)
		if (t->g.ops[i] == op)
			return 1;
	return 0;
}

/*
 * The drain marker at task t (docs/parallel.md §6).  When the coordinator
 * asked for marker n = mk_done + 1, the task first handles the request at
 * once (the previous drain ended, so every row before it was processed
 * everywhere: this is the moment between two calls of parallelism 1): it
 * takes the request's clock, fires its timers, emits its VALUES rows and,
 * when it owns the push scan, decodes the pushed text into it (or ends
 * it).  Then each sender forwards n, behind its partial batches, once
 * every receiver upstream of it in the task's graph delivered n on every
 * channel (alignment: a receiver takes nothing more from a channel that
 * delivered n until it is released); a sender fed by the task's sources
 * only forwards at once, so a task that both feeds an exchange and reads
 * its results back (a chain at parallelism 1 around keyed instances)
 * never waits on itself.  When every receiver is aligned and every sender
 * forwarded, the task releases its receivers and acknowledges n.  Returns
 * 1 when something moved, 0 when nothing did, or an error.
 */
static int task_marker(task *t, sl_err *err)
{
	sl_prun *j = t->job;
	int64_t n = t->mk_done + 1;
	if (atomic_load(&j->marker_req) < n)
		return 0;
	int rc = 0, moved = 0;
	if (t->mk_handled < n) {
		t->mk_handled = n;
		moved = 1;
		/* a checkpoint barrier (docs/parallel.md §5) carries no request:
		 * the task's scans stop where they are (their positions are the
		 * snapshot's) until it parks */
		t->mk_barrier = atomic_load(&j->mk_barrier);
	}
	if (t->mk_handled == n && moved && !t->mk_barrier) {
		if (t->g.proc_manual != j->clock) {
			t->g.proc_manual = j->clock;
			sl_graph_tick(&t->g);
		}
		if ((rc = sl_graph_fire_timers(&t->g, err)))
			return rc;
		for (int i = 0; !rc && i < t->g.nops; i++)
			rc = sl_op_values_start(t->g.ops[i], err);
		if (rc)
			return rc;
		if (j->push_scan && owns(t, j->push_scan)) {
			sl_op *scan = (sl_op *)j->push_scan;
			if (j->push_mode == SL_PRUN_PUSH_END)
				rc = scan->in_ended ? 0 : sl_graph_end_source(scan, err);
			else if (j->push_mode == SL_PRUN_PUSH_LINES)
				rc = sl_op_scan_push_lines(scan, j->push_text, j->push_len, err);
			else
				rc = sl_op_scan_push(scan, j->push_text, j->push_len, err);
			if (rc)
				return rc;
		}
	}
	uint64_t aligned = 0;
	for (int r = 0; r < t->nrecvs; r++)
		if (sl_xrecv_aligned(t->recvs[r], n))
			aligned |= 1ull << (r & 63);
	int all = 1;
	for (int s = 0; s < t->nsends; s++) {
		if (t->sent_mk[s] >= n)
			continue;
		if ((t->send_up[s] & aligned) != t->send_up[s]) {
			all = 0;
			continue;
		}
		if ((rc = sl_xsend_marker(t->sends[s], n, err)))
			return rc;
		t->sent_mk[s] = n;
		moved = 1;
	}
	for (int r = 0; r < t->nrecvs && all; r++)
		all = sl_xrecv_aligned(t->recvs[r], n);
	if (!all)
		return moved;
	for (int r = 0; r < t->nrecvs; r++)
		sl_xrecv_release(t->recvs[r], n);
	t->mk_done = n;
	pthread_mutex_lock(&j->mu);
	if (t->mk_barrier && j->bmode) {
		/* the no-park barrier (co_barrier): this instance's own part of
		 * the checkpoint, here, between two messages, then on */
		int (*work)(void *, int, sl_err *) = j->bwork;
		void *arg = j->barg;
		t->in_work = work != NULL;
		pthread_mutex_unlock(&j->mu);
		int64_t w0 = mono_us(), w1 = w0;
		sl_err e;
		sl_err_clear(&e);
		int r = work ? work(arg, (int)(t - j->tasks), &e) : 0;
		if (work)
			w1 = mono_us();
		pthread_mutex_lock(&j->mu);
		t->in_work = 0;
		t->acked = n;
		t->parked = n;
		if (work) {
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
		pthread_cond_broadcast(&j->cv);
		pthread_mutex_unlock(&j->mu);
		return 1;
	}
	t->acked = n;
	if (t->mk_barrier) {
		/* parked (docs/parallel.md §5): between two messages, outside every
		 * operator call, holding no lock, until the coordinator has taken
		 * the checkpoint; nothing follows the barrier in its channels */
		t->parked = n;
		if (j->nparked++ == 0)
			j->first_park_us = mono_us();
		pthread_cond_broadcast(&j->cv);
		while (j->released < n && !atomic_load(&j->cancelled))
			pthread_cond_wait(&j->park_cv, &j->mu);
	} else {
		pthread_cond_broadcast(&j->cv);
	}
	pthread_mutex_unlock(&j->mu);
	return 1;
}

/* Phase 2 of checkpoint id in t's operators: every commit hook (abort:
 * every abort hook; after a failed commit, the rest abort).  The fault
 * point "mid-sink-publish" follows each commit hook, as at parallelism 1
 * (ckpt_coord.c): the first instance to commit crashes there, with some
 * of its sinks and the other instances' not yet published. */
static int run_phase2(task *t, int64_t id, int abort, sl_err *err)
{
	int rc = 0;
	for (int i = 0; i < t->g.nops; i++) {
		sl_op *op = t->g.ops[i];
		int (*hook)(sl_op *, int64_t, sl_err *) = abort || rc ? op->vt->abort : op->vt->commit;
		if (!hook)
			continue;
		int r2 = hook(op, id, err);
		if (r2 && !rc)
			rc = r2;
		if (!rc && !abort)
			sl_fault("mid-sink-publish"); /* some published, others not */
	}
	return rc;
}

#define CTL_ABORT 1u /* control message flag: abort instead of commit */

/* The control messages the coordinator sent t (phase 2, run here on the
 * instance's own thread between two messages).  0 or an error. */
static int task_control(task *t, sl_err *err)
{
	sl_chan_msg m;
	while (sl_chan_try_pop(t->ctl, &m) == 1) {
		int rc = run_phase2(t, m.value, (m.flags & CTL_ABORT) != 0, err);
		pthread_mutex_lock(&t->job->mu);
		t->committed = m.value;
		pthread_cond_broadcast(&t->job->cv);
		pthread_mutex_unlock(&t->job->mu);
		if (rc)
			return rc;
	}
	return 0;
}

/* The channels t may sleep on: not ended, not blocked by a marker. */
static int task_waitable(task *t)
{
	int n = 0;
	for (int r = 0; r < t->nrecvs; r++)
		n += sl_xrecv_waitable(t->recvs[r], t->wait_now + n);
	if (t->job->ck)
		t->wait_now[n++] = t->ctl;
	return n;
}

static void *task_main(void *arg)
{
	task *t = arg;
	sl_prun *j = t->job;
	int rc = 0, ended = 0;
	sl_err_clear(&t->err);
	while (!atomic_load(&j->cancelled)) {
		int stop = atomic_load(&j->stop), drain = atomic_load(&j->drain);
		if (drain && !ended) {
			ended = 1;
			if ((rc = end_sources(t, &t->err)))
				break;
		}
		int64_t progress;
		if (j->ck && (rc = task_control(t, &t->err)))
			break;
		int mk = task_marker(t, &t->err);
		if (mk < 0) {
			rc = mk;
			break;
		}
		/* while a marker is half through the task its scans wait: rows they
		 * read now would go behind the marker into a sender that already
		 * forwarded it, whose consumer may be holding that channel for
		 * alignment (and the drain is the moment between two API calls) */
		int draining = t->mk_handled > t->mk_done;
		rc = task_step(t, (stop && !drain) || draining, draining && t->mk_barrier, &progress,
		               &t->err);
		if (rc <= 0)
			break;
		progress += mk;
		rc = 0;
		for (int s = 0; s < t->nsends && !rc; s++)
			rc = sl_xsend_idle(t->sends[s], &t->err);
		if (rc)
			break;
		if (progress)
			continue;
		for (int s = 0; s < t->nsends && !rc; s++)
			rc = sl_xsend_flush(t->sends[s], &t->err);
		if (rc)
			break;
		int64_t timeout = t->has_scan ? (stop && !drain ? 10000 : 1000)
		                              : t->has_timers ? 1000 : -1;
		int nw = task_waitable(t);
		if (nw && timeout < 0 && nw == (j->ck != NULL))
			timeout = 1000; /* only the control channel: look at drains */
		if (nw)
			sl_chan_wait_any(t->wait_now, nw, timeout);
		else {
			if (timeout < 0)
				timeout = 1000;
			struct timespec ts = {0, (long)timeout * 1000};
			nanosleep(&ts, NULL);
		}
	}
	if (rc < 0 && !atomic_load(&j->cancelled))
		task_failed(j, &t->err);
	pthread_mutex_lock(&j->mu);
	j->ndone++;
	t->done = 1;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
	return NULL;
}

static void join_all(sl_prun *j)
{
	if (!j->started || j->joined)
		return;
	for (int i = 0; i < j->ntasks; i++)
		pthread_join(j->tasks[i].th, NULL);
	j->joined = 1;
}

int sl_prun_start(sl_prun *j, sl_err *err)
{
	if (j->started)
		return 0;
	for (int i = 0; i < j->ntasks; i++)
		if (pthread_create(&j->tasks[i].th, NULL, task_main, &j->tasks[i])) {
			cancel_all(j);
			for (int k = 0; k < i; k++)
				pthread_join(j->tasks[k].th, NULL);
			j->joined = j->started = 1;
			j->failed = 1;
			sl_err_set(&j->err, SL_ERUNTIME, "cannot start a thread for task %d", i);
			return sl_err_set(err, SL_ERUNTIME, "cannot start a thread for task %d", i);
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
	cancel_all(j);
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
	cancel_all(j);
	join_all(j);
	return publish(j, err);
}

void sl_prun_publish_on_error(sl_prun *j)
{
	sl_err ignore;
	sl_err_clear(&ignore);
	cancel_all(j);
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
	*aligned = ok && j->nparked ? mono_us() - j->first_park_us : 0;
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
	pthread_mutex_lock(&j->mu);
	for (;;) {
		int waiting = 0;
		for (int i = 0; i < j->ntasks; i++) {
			task *t = &j->tasks[i];
			if (t->done && t->parked < n && !j->failed && !atomic_load(&j->cancelled)) {
				t->parked = n; /* ended before the barrier: its part is ours */
				pthread_mutex_unlock(&j->mu);
				sl_err e;
				sl_err_clear(&e);
				int64_t w0 = mono_us();
				int r = work(arg, i, &e);
				int64_t w1 = mono_us();
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
			int r2 = run_phase2(&j->tasks[i], id, abort || rc, err);
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
			int r2 = run_phase2(&j->tasks[i], id, abort || rc, err);
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
		cancel_all(j);
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
	free(j->tasks);
	free(j->op_of);
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
