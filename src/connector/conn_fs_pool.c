/*
 * conn_fs_pool.c - the pool of a cut file's ranges that the instances of
 * one filesystem source share in a parallel run (docs/parallel.md §4.1,
 * like Flink's FileSource handing splits out on request).
 *
 * A pool is per file (found by its name and the size it is cut at) and
 * lives in the run's share slot of the source's table (sl_conn_share,
 * conn.h): the first instance that reads makes it from its view of the
 * file's ranges (every range not finished, in split order: all of them
 * on a fresh start, the ranges no snapshot finished after a restore,
 * which every instance restored alike), the others find it.  After that
 * the list is read-only and the only thing that moves is `front`, the
 * count of ranges taken, advanced by compare-and-swap: an instance takes
 * a run of contiguous list entries from the front, at a range boundary
 * only (no lock, no allocation on the row path), and learns which ranges
 * the others took by loading front (conn_filesystem.c's pool_sync).
 */
#include "conn_fs_int.h"
#include "sluice.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* One file's pool. */
struct sl__fs_pool_file {
	char *name;         /* the file (as the instances list it) */
	int64_t cut;        /* the size its ranges are cut at */
	int64_t nranges;    /* ranges of the file */
	int32_t *order;     /* the ranges in the pool, in the order they are taken */
	int n;
	_Atomic int front;  /* order[0 .. front) are taken */
};

/* Every pool of one source table in one run (the share slot's p).  Each
 * pool is allocated on its own: instances keep pointers to them while
 * another instance adds pools (the array of pointers may move). */
typedef struct fs_pools {
	struct sl__fs_pool_file **f;
	int n, cap;
} fs_pools;

static void pools_free(void *p)
{
	fs_pools *ps = p;
	for (int i = 0; i < ps->n; i++) {
		free(ps->f[i]->name);
		free(ps->f[i]->order);
		free(ps->f[i]);
	}
	free(ps->f);
	free(ps);
}

sl__fs_pool_file *sl__fs_pool_get(sl_conn_share *sh, const char *name, int64_t cut,
                                  int64_t nranges, const uint8_t *done, sl_err *err)
{
	sl__fs_pool_file *pf = NULL;
	pthread_mutex_lock(&sh->mu);
	fs_pools *ps = sh->p;
	if (!ps) {
		if (!(ps = calloc(1, sizeof *ps)))
			goto nomem;
		sh->p = ps;
		sh->free_p = pools_free;
	}
	for (int i = 0; i < ps->n; i++)
		if (ps->f[i]->cut == cut && !strcmp(ps->f[i]->name, name)) {
			pf = ps->f[i];
			break;
		}
	if (pf) {
		pthread_mutex_unlock(&sh->mu);
		if (pf->nranges == nranges)
			return pf;
		sl_err_set(err, SL_ESTATE, "file '%s' changed while the job started (%lld ranges "
		           "for one instance, %lld for another)", name, (long long)pf->nranges,
		           (long long)nranges);
		return NULL;
	}
	if (ps->n == ps->cap) {
		int cap = ps->cap ? ps->cap * 2 : 4;
		struct sl__fs_pool_file **nf = realloc(ps->f, (size_t)cap * sizeof *nf);
		if (!nf)
			goto nomem;
		ps->f = nf;
		ps->cap = cap;
	}
	if (!(pf = calloc(1, sizeof *pf)))
		goto nomem;
	pf->cut = cut;
	pf->nranges = nranges;
	pf->name = strdup(name);
	pf->order = malloc((size_t)(nranges ? nranges : 1) * sizeof *pf->order);
	if (!pf->name || !pf->order) {
		free(pf->name);
		free(pf->order);
		free(pf);
		goto nomem;
	}
	for (int64_t j = 0; j < nranges; j++)
		if (!done[j])
			pf->order[pf->n++] = (int32_t)j;
	atomic_init(&pf->front, 0);
	ps->f[ps->n++] = pf;
	pthread_mutex_unlock(&sh->mu);
	return pf;
nomem:
	pthread_mutex_unlock(&sh->mu);
	sl_err_set(err, SL_ENOMEM, "out of memory");
	return NULL;
}

int sl__fs_pool_take(sl__fs_pool_file *pf, int nsub, int *n)
{
	int at = atomic_load(&pf->front), k;
	do {
		int rem = pf->n - at;
		if (rem <= 0) {
			*n = 0;
			return at;
		}
		int fair = (rem + 2 * nsub - 1) / (2 * nsub); /* ceil(rem / 2p) */
		k = fair < 1 ? 1 : fair > SL__FS_RUN ? SL__FS_RUN : fair;
	} while (!atomic_compare_exchange_weak(&pf->front, &at, at + k));
	*n = k;
	return at;
}

int sl__fs_pool_front(sl__fs_pool_file *pf)
{
	return atomic_load_explicit(&pf->front, memory_order_acquire);
}

int32_t sl__fs_pool_range(const sl__fs_pool_file *pf, int i)
{
	return pf->order[i];
}
