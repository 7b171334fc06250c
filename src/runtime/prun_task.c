/*
 * prun_task.c - the threads of a parallel job (docs/parallel.md §1, "Slot
 * sharing"; §5 and §10): each thread gives its tasks turns (control
 * messages, the drain marker or checkpoint barrier, one step), completes
 * markers for all its tasks at once and parks them at a barrier, helps
 * while a sender of one of its tasks waits for a full channel, and
 * sleeps on its wake when none of its tasks can move.  Consumer wake-ups
 * its senders deferred are given at the end of every task's turn and
 * before the thread sleeps, in either loop (docs/parallel.md §12).
 * prun.c builds the job, its tasks, channels and threads (prun_int.h: the
 * structures).
 */
#include "prun_int.h"
#include "sluice.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../base/fault.h"
#include "../exec/op_observe.h"
#include "../exec/ops.h"

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

/* The monotonic clock in microseconds. */
int64_t sl__prun_mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* 1 when op is one of t's operators. */
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
 * delivered n until it is released; at a checkpoint barrier, an operator
 * with a pre_barrier hook (op.h: the two-phase window aggregate's local
 * stage) is first told to emit what it holds, once its own upstream
 * receivers are aligned, so those rows precede n); a sender fed by the task's sources
 * only forwards at once, so a task that both feeds an exchange and reads
 * its results back (a chain at parallelism 1 around keyed instances)
 * never waits on itself.  When every receiver is aligned and every sender
 * forwarded, the task is ready (mk_ready), and thr_marker releases its
 * receivers and acknowledges n once every task of its thread is.  Returns
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
	/* at a barrier, operators holding rows outside their state emit them
	 * (pre_barrier) once nothing more can reach them before it: every
	 * receiver upstream aligned (the scans are stopped); a sender
	 * downstream of one is aligned no earlier, so it forwards the barrier
	 * behind those rows (docs/parallel.md §11) */
	for (int b = 0; t->mk_barrier && b < t->npb; b++) {
		if (t->pb_mk[b] >= n || (t->pb_up[b] & aligned) != t->pb_up[b])
			continue;
		sl_op *op = t->pb_ops[b];
		if (op->in_ended < op->nin && (rc = op->vt->pre_barrier(op, err)))
			return rc;
		t->pb_mk[b] = n;
		moved = 1;
	}
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
	t->mk_ready = all; /* the thread completes n when all its tasks are (thr_marker) */
	return moved;
}

/*
 * Completes marker n on thread h once every task of h that has not
 * finished is ready (aligned and forwarded): releases their receivers and
 * acknowledges n for each; at a checkpoint barrier they park together
 * (docs/parallel.md §5): the thread waits, between two messages, outside
 * every operator call, holding no lock, until the coordinator has taken
 * the checkpoint; nothing follows the barrier in their channels.  Why per
 * thread and not per task: until every task of a thread is through n,
 * none of them takes an input message that follows n or pushes an output
 * message behind it, so no task of the thread ever waits on a channel
 * that a consumer holds for alignment (the deadlock-freedom argument of
 * docs/parallel.md §1).  Called at the top of the thread's loop only (no
 * task on its stack).  1 when it completed n, else 0.
 */
static int thr_marker(thr *h)
{
	sl_prun *j = h->job;
	int64_t n = -1;
	int barrier = 0;
	for (int i = 0; i < h->ntasks; i++) {
		task *t = h->tasks[i];
		if (t->finished)
			continue;
		if (t->mk_handled != t->mk_done + 1 || !t->mk_ready)
			return 0;
		n = t->mk_handled;
		barrier = t->mk_barrier;
	}
	if (n < 0)
		return 0;
	for (int i = 0; i < h->ntasks; i++) {
		task *t = h->tasks[i];
		if (t->finished)
			continue;
		for (int r = 0; r < t->nrecvs; r++)
			sl_xrecv_release(t->recvs[r], n);
		t->mk_done = n;
		t->mk_ready = 0;
	}
	pthread_mutex_lock(&j->mu);
	if (barrier && j->bmode) {
		/* the no-park barrier (co_barrier): each task's own part of the
		 * checkpoint, here, between two messages, then on */
		for (int i = 0; i < h->ntasks; i++) {
			task *t = h->tasks[i];
			if (t->finished)
				continue;
			int (*work)(void *, int, sl_err *) = j->bwork;
			void *arg = j->barg;
			t->in_work = work != NULL;
			pthread_mutex_unlock(&j->mu);
			int64_t w0 = sl__prun_mono_us(), w1 = w0;
			sl_err e;
			sl_err_clear(&e);
			int r = work ? work(arg, (int)(t - j->tasks), &e) : 0;
			if (work)
				w1 = sl__prun_mono_us();
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
		}
		pthread_mutex_unlock(&j->mu);
		return 1;
	}
	for (int i = 0; i < h->ntasks; i++) {
		task *t = h->tasks[i];
		if (t->finished)
			continue;
		t->acked = n;
		if (barrier) {
			t->parked = n;
			if (j->nparked++ == 0)
				j->first_park_us = sl__prun_mono_us();
		}
	}
	pthread_cond_broadcast(&j->cv);
	while (barrier && j->released < n && !atomic_load(&j->cancelled))
		pthread_cond_wait(&j->park_cv, &j->mu);
	pthread_mutex_unlock(&j->mu);
	return 1;
}

/* Phase 2 of checkpoint id in t's operators: every commit hook (abort:
 * every abort hook; after a failed commit, the rest abort).  The fault
 * point "mid-sink-publish" follows each commit hook, as at parallelism 1
 * (ckpt_coord.c): the first instance to commit crashes there, with some
 * of its sinks and the other instances' not yet published. */
int sl__prun_phase2(task *t, int64_t id, int abort, sl_err *err)
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

/* The control messages the coordinator sent t (phase 2, run here on the
 * instance's own thread between two messages).  0 or an error. */
static int task_control(task *t, sl_err *err)
{
	sl_chan_msg m;
	while (sl_chan_try_pop(t->ctl, &m) == 1) {
		int rc = sl__prun_phase2(t, m.value, (m.flags & CTL_ABORT) != 0, err);
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

/* How long t may sleep (microseconds, -1: until a channel wakes it):
 * with a scan that may produce later or a processing-time operator 1 ms
 * (10 ms for a scan of a stopped job), else no limit. */
static int64_t task_timeout(const task *t)
{
	const sl_prun *j = t->job;
	int stop = atomic_load(&j->stop), drain = atomic_load(&j->drain);
	return t->has_scan ? (stop && !drain ? 10000 : 1000) : t->has_timers ? 1000 : -1;
}

/* Marks t finished; under the job's lock, done (the coordinator and the
 * API count it as ended, and may run its phase 2 from now on). */
static void task_finish(task *t)
{
	sl_prun *j = t->job;
	t->finished = 1;
	sl_graph_publish(&t->g, 1); /* the live metrics' last figures */
	pthread_mutex_lock(&j->mu);
	j->ndone++;
	t->done = 1;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
}

/*
 * One turn of task t on its thread: a drained stop's end of its sources,
 * its control messages (phase 2), its marker (handled and forwarded; the
 * thread completes it), one step (no scans while stopped or while a
 * marker is half through the task, no timers while a marker is half
 * through: rows they made now would go behind a marker already forwarded,
 * docs/parallel.md §1), and the senders' idleness.  Returns > 0 when
 * something moved, 0 when nothing did, or an error (t->err).  Finishes t
 * when its graph ended.
 */
static int task_turn(task *t)
{
	sl_prun *j = t->job;
	int stop = atomic_load(&j->stop), drain = atomic_load(&j->drain), rc;
	if (drain && !t->ended_src) {
		t->ended_src = 1;
		if ((rc = end_sources(t, &t->err)))
			return rc;
	}
	if (j->ck && (rc = task_control(t, &t->err)))
		return rc;
	int mk = task_marker(t, &t->err);
	if (mk < 0)
		return mk;
	int draining = t->mk_handled > t->mk_done;
	int64_t progress;
	rc = task_step(t, (stop && !drain) || draining, draining, &progress, &t->err);
	if (rc < 0)
		return rc;
	if (rc == 0) { /* the graph ended */
		task_finish(t);
		return 1;
	}
	sl_graph_publish(&t->g, !(progress + mk)); /* the live metrics (exec/op_observe.h) */
	for (int s = 0; s < t->nsends; s++) {
		if ((rc = sl_xsend_idle(t->sends[s], &t->err)))
			return rc;
		sl_xsend_kick(t->sends[s]); /* the turn's deferred wake-ups (§12) */
	}
	return progress + mk > 0;
}

/* 1 when t has something to do: a message on a channel it may take
 * from, a control message, a marker to handle. */
static int task_ready(task *t)
{
	if (atomic_load(&t->job->marker_req) > t->mk_handled)
		return 1;
	int nw = task_waitable(t);
	for (int i = 0; i < nw; i++)
		if (sl_chan_readable(t->wait_now[i]))
			return 1;
	return 0;
}

/* Flushes t's senders (partial batches, pending watermarks) before its
 * thread sleeps.  0 or an error. */
static int task_flush(task *t)
{
	int rc = 0;
	for (int s = 0; s < t->nsends && !rc; s++)
		rc = sl_xsend_flush(t->sends[s], &t->err);
	return rc;
}

/* Task t failed (rc < 0): the first failure is the job's error. */
static void task_fail(task *t)
{
	if (!atomic_load(&t->job->cancelled))
		sl__prun_failed(t->job, &t->err);
}

/* The condition a sender waits for (exchange.h's SL_XWAIT_*). */
static int wait_done(sl_chan *c, int room)
{
	return room == SL_XWAIT_ROOM ? sl_chan_writable(c)
	     : room == SL_XWAIT_DRAINED ? sl_chan_drained(c) : sl_chan_readable(c);
}

/*
 * The sender of task t found channel c full (room = SL_XWAIT_ROOM) or its
 * pool empty (SL_XWAIT_MSG: waits for a batch on return channel c), or
 * lent a batch on c (SL_XWAIT_DRAINED: waits until c's consumer, a deeper
 * task of this thread, took it: exchange.h).  Instead of sleeping,
 * the thread runs its tasks that are deeper than t in the chain DAG
 * (docs/parallel.md §1: none of them is on the thread's stack, since
 * every frame below is shallower), and sleeps on its wake only when none
 * of them can move and c is still full (empty).  0 when c may have
 * changed, -1 when the job was cancelled or a task it ran failed.
 */
int sl__prun_help(void *ctx, sl_chan *c, int room)
{
	task *t = ctx;
	thr *h = t->th;
	sl_prun *j = t->job;
	for (;;) {
		if (wait_done(c, room))
			return atomic_load(&j->cancelled) ? -1 : 0;
		if (atomic_load(&j->cancelled))
			return -1;
		int moved = 0;
		for (int i = 0; i < h->ntasks; i++) {
			task *u = h->tasks[i];
			if (u->depth <= t->depth || u->finished)
				continue;
			int rc = task_turn(u);
			if (rc < 0) {
				task_fail(u);
				return -1;
			}
			moved += rc;
		}
		if (moved)
			continue;
		for (int i = 0; i < h->ntasks; i++) {
			task *u = h->tasks[i];
			if (u->depth > t->depth && !u->finished && task_flush(u)) {
				task_fail(u);
				return -1;
			}
		}
		/* every task of the thread, t and the frames below it included,
		 * gives its consumers the wake-ups it owes (§12) before the
		 * thread sleeps: one of them may be what c waits for */
		for (int i = 0; i < h->ntasks; i++)
			for (int s = 0; s < h->tasks[i]->nsends; s++)
				sl_xsend_kick(h->tasks[i]->sends[s]);
		uint32_t seq = sl_wake_arm(&h->wake);
		int ready = wait_done(c, room);
		for (int i = 0; i < h->ntasks && !ready; i++) {
			task *u = h->tasks[i];
			ready = u->depth > t->depth && !u->finished && task_ready(u);
		}
		/* no timeout: only a consumer taking from c ends the wait, and a
		 * timer or a scan of the tasks run here can wait for the frame to
		 * return (a drain's marker request wakes the thread) */
		if (ready) {
			sl_wake_disarm(&h->wake);
		} else {
			int64_t t0 = sl__prun_mono_us();
			sl_wake_sleep(&h->wake, seq, -1);
			h->blocked_ns += (sl__prun_mono_us() - t0) * 1000;
			h->nblocked++;
		}
	}
}

/* Records thread h's life since life0 (microseconds, monotonic) and, from
 * the kernel's /proc/thread-self/schedstat (Linux; zeros elsewhere), its
 * time on a core and its time runnable but waiting for one. */
static void thr_times(thr *h, int64_t life0)
{
	h->life_ns = (sl__prun_mono_us() - life0) * 1000;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	if (!f)
		return;
	long long run, queue;
	if (fscanf(f, "%lld %lld", &run, &queue) == 2) {
		h->run_ns = run;
		h->queue_ns = queue;
	}
	fclose(f);
}

/*
 * A thread's loop: a turn of each of its tasks in turn, then the marker
 * they are all through (thr_marker); when nothing moved, every sender's
 * partial batches go out and the thread sleeps on its wake until one of
 * its tasks has something to do (or the shortest of their timeouts).  It
 * ends when every task finished, or when one failed (the job is then
 * cancelled and the rest finish).
 */
void *sl__prun_thread(void *arg)
{
	thr *h = arg;
	sl_prun *j = h->job;
	int64_t life0 = sl__prun_mono_us();
	while (!atomic_load(&j->cancelled)) {
		int moved = 0, live = 0, rc = 0;
		for (int i = 0; i < h->ntasks && !rc; i++) {
			task *t = h->tasks[i];
			if (t->finished)
				continue;
			if ((rc = task_turn(t)) < 0)
				task_fail(t);
			else
				moved += rc;
		}
		if (rc < 0)
			break;
		for (int i = 0; i < h->ntasks; i++)
			live += !h->tasks[i]->finished;
		if (!live)
			break;
		moved += thr_marker(h);
		if (moved)
			continue;
		int64_t timeout = -1;
		for (int i = 0; i < h->ntasks && !rc; i++) {
			task *t = h->tasks[i];
			if (t->finished)
				continue;
			if ((rc = task_flush(t)) < 0) {
				task_fail(t);
				break;
			}
			int64_t to = task_timeout(t);
			int nw = task_waitable(t);
			if (to < 0 && nw == (j->ck != NULL))
				to = 1000; /* no data channel to wake it: look at drains */
			if (to >= 0 && (timeout < 0 || to < timeout))
				timeout = to;
		}
		if (rc < 0)
			break;
		uint32_t seq = sl_wake_arm(&h->wake);
		int ready = 0;
		for (int i = 0; i < h->ntasks && !ready; i++)
			ready = !h->tasks[i]->finished && task_ready(h->tasks[i]);
		if (ready) {
			sl_wake_disarm(&h->wake);
		} else {
			int64_t t0 = sl__prun_mono_us();
			sl_wake_sleep(&h->wake, seq, timeout);
			h->idle_ns += (sl__prun_mono_us() - t0) * 1000;
			h->nidle++;
		}
	}
	thr_times(h, life0);
	for (int i = 0; i < h->ntasks; i++)
		if (!h->tasks[i]->finished)
			task_finish(h->tasks[i]);
	return NULL;
}

/* Wakes every thread (a marker was asked for, a barrier released). */
void sl__prun_wake(sl_prun *j)
{
	for (int h = 0; h < j->nthr; h++)
		sl_wake_all(&j->thr[h].wake);
}
