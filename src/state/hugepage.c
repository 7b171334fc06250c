/*
 * hugepage.c - the collapser: a background thread that maps the memory
 * backend's state with huge pages again after a forked checkpoint writer
 * (see hugepage.h for why, docs/checkpoints.md for the figures).
 *
 * The job thread hands over a list of regions (sl_collapser_run) and may
 * take the work back at any time (sl_collapser_pause, before each fork).
 * The thread works through the list 2 MB at a time, releasing the mutex
 * around each madvise call, so a pause waits for at most one call.
 */
#include "hugepage.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* Linux 6.1; older kernels fail the call (ignored) */
#endif

#define HUGE_BYTES ((size_t)2 << 20)

typedef struct region {
	char *base;
	size_t len;
} region;

struct sl_collapser {
	pthread_mutex_t mu;
	pthread_cond_t cv;   /* work arrived, quit, or busy cleared */
	pthread_t thread;
	int started, quit;
	int busy;            /* the thread is inside madvise */
	region *work;        /* owned; replaced by run, emptied by pause */
	int nwork, next;     /* regions; the one being worked on */
	size_t off;          /* offset inside work[next] */
	long done;           /* 2 MB units asked for so far */
	region *taken;       /* sl_collapser_take's list, for sl_collapser_go
	                      * (the caller's thread only) */
	int ntaken;
};

/* Takes the next 2 MB unit of the work list (mutex held); 0 when none. */
static int next_unit(sl_collapser *c, char **addr)
{
	while (c->next < c->nwork && c->off >= c->work[c->next].len) {
		c->next++;
		c->off = 0;
	}
	if (c->next >= c->nwork)
		return 0;
	*addr = c->work[c->next].base + c->off;
	c->off += HUGE_BYTES;
	return 1;
}

static void *collapse_main(void *arg)
{
	sl_collapser *c = arg;
	pthread_mutex_lock(&c->mu);
	for (;;) {
		char *addr;
		while (!c->quit && !next_unit(c, &addr))
			pthread_cond_wait(&c->cv, &c->mu);
		if (c->quit)
			break;
		c->busy = 1;
		pthread_mutex_unlock(&c->mu);
		madvise(addr, HUGE_BYTES, MADV_COLLAPSE); /* failures are harmless */
		pthread_mutex_lock(&c->mu);
		c->busy = 0;
		c->done++;
		pthread_cond_broadcast(&c->cv);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

sl_collapser *sl_collapser_new(void)
{
	sl_collapser *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	return c;
}

typedef struct list {
	region *r;
	int n, cap, failed;
} list;

static void add_region(void *ctx, void *base, size_t len)
{
	list *l = ctx;
	if (l->failed)
		return;
	if (l->n == l->cap) {
		int nc = l->cap ? l->cap * 2 : 64;
		region *nr = realloc(l->r, sizeof(*nr) * (size_t)nc);
		if (!nr) {
			l->failed = 1;
			return;
		}
		l->r = nr;
		l->cap = nc;
	}
	l->r[l->n].base = base;
	l->r[l->n].len = len;
	l->n++;
}

void sl_collapser_take(sl_collapser *c, sl_state_backend *const *bes, int n)
{
	if (!c)
		return;
	list l = {0};
	for (int i = 0; i < n; i++)
		sl_state_regions(bes[i], add_region, &l);
	free(c->taken);
	c->taken = NULL;
	c->ntaken = 0;
	if (l.failed || l.n == 0) {
		free(l.r);
		return;
	}
	c->taken = l.r;
	c->ntaken = l.n;
}

void sl_collapser_go(sl_collapser *c)
{
	if (!c || !c->taken)
		return;
	region *r = c->taken;
	int n = c->ntaken;
	c->taken = NULL;
	c->ntaken = 0;
	pthread_mutex_lock(&c->mu);
	if (!c->started) {
		if (pthread_create(&c->thread, NULL, collapse_main, c) != 0) {
			pthread_mutex_unlock(&c->mu);
			free(r);
			return;
		}
		c->started = 1;
	}
	region *old = c->work;
	c->work = r;
	c->nwork = n;
	c->next = 0;
	c->off = 0;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	free(old);
}

void sl_collapser_run(sl_collapser *c, sl_state_backend *be)
{
	sl_collapser_take(c, &be, 1);
	sl_collapser_go(c);
}

void sl_collapser_pause(sl_collapser *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	c->nwork = 0;
	c->next = 0;
	c->off = 0;
	while (c->busy)
		pthread_cond_wait(&c->cv, &c->mu);
	pthread_mutex_unlock(&c->mu);
}

void sl_collapser_free(sl_collapser *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	c->quit = 1;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	if (c->started)
		pthread_join(c->thread, NULL);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->cv);
	free(c->work);
	free(c->taken);
	free(c);
}
