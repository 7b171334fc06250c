/*
 * prun_int.h - what prun.c (building a parallel job, its API, its
 * checkpoints) and prun_task.c (the threads that run its tasks) share:
 * the job's, tasks' and threads' structures.  Not an interface: nothing
 * outside src/runtime/prun*.c includes it.
 */
#ifndef SL_PRUN_INT_H
#define SL_PRUN_INT_H

#include "prun.h"
#include "ckpt_coord.h"
#include "exchange.h"

#include <pthread.h>
#include <stdatomic.h>

#include "../state/state.h"
#include "../connector/conn.h"

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

struct thr;

typedef struct task {
	struct sl_prun *job;
	struct thr *th;  /* the thread that runs it */
	int chain, inst, par;
	int depth;       /* its chain's depth in the chain DAG (help goes deeper only) */
	int own;         /* it has a thread of its own (assign_threads) */
	sl_graph g;
	sl_state_backend *state;
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
	sl_op **pb_ops;     /* operators with a pre_barrier hook, graph order */
	uint64_t *pb_up;    /* per such operator: the receivers upstream of it */
	int64_t *pb_mk;     /* per such operator: the last barrier it flushed for */
	int npb;
	int64_t acked;   /* under job->mu: mk_done, for the coordinator */
	int done;        /* under job->mu: the thread ended */
	int mk_barrier;  /* the marker being handled is a checkpoint barrier */
	int mk_ready;    /* marker mk_done + 1 aligned and forwarded: the thread may complete it */
	int ended_src;   /* a drained stop ended its sources */
	int finished;    /* its thread's view of done: its graph ended or the job failed */
	int64_t parked;  /* under job->mu: the barrier it is parked at */
	int64_t committed; /* under job->mu: the last phase 2 it ran */
	int in_work;     /* under job->mu: running the no-park barrier's work */
	sl_chan *ctl;    /* control channel: phase 2 from the coordinator */
	int has_scan, has_timers;
	sl_err err;
} task;

/* A thread: runs its tasks cooperatively (docs/parallel.md §1). */
typedef struct thr {
	struct sl_prun *job;
	task **tasks;    /* by depth, shallowest first */
	int ntasks;
	sl_wake wake;    /* every channel of its tasks, both sides, and ctl */
	pthread_t th;
	/* where its time went (--stats, read after the join; docs/parallel.md
	 * §1 "Where a thread's time goes"): asleep at the top of its loop with
	 * nothing to do, asleep while helping (a sender waits for a consumer),
	 * and at its end its whole life, its time on a core and its time
	 * runnable but waiting for a core (the kernel's schedstat) */
	int64_t idle_ns, blocked_ns, life_ns, run_ns, queue_ns;
	int64_t nidle, nblocked;
} thr;

struct sl_prun {
	const sl_pplan *plan;
	int ntasks;
	task *tasks;
	int nthr;
	thr *thr;
	int nchains;
	int nedges;
	xedge *edges;
	int *chain_of;   /* per node: its chain */
	int *first_task; /* per chain: its instance 0's task */
	sl_op **op_of;   /* [task * plan->n + node] */
	sl_conn_share *share; /* per node: what its connectors' instances share
	                       * (conn.h; the filesystem source's pool) */
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

#define CTL_ABORT 1u /* control message flag: abort instead of commit */

/* prun.c: the job failed (err, the first failure wins) / cancel every
 * channel (every blocked thread wakes and fails). */
void sl__prun_failed(sl_prun *j, const sl_err *err);
void sl__prun_cancel_all(sl_prun *j);

/* prun_task.c */
int64_t sl__prun_mono_us(void);
/* Phase 2 of checkpoint id in t's operators (abort: the abort hooks). */
int sl__prun_phase2(task *t, int64_t id, int abort, sl_err *err);
/* The senders' wait (sl_xsend_set_wait): the thread helps (ctx: the task). */
int sl__prun_help(void *ctx, sl_chan *c, int room);
/* A thread's loop (arg: its thr). */
void *sl__prun_thread(void *arg);
/* Wakes every thread of j (a marker was asked for). */
void sl__prun_wake(sl_prun *j);

#endif
