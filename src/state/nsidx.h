/*
 * nsidx.h - the ordered index of a state table's namespaces: a B+tree
 * from int64 namespace to one pointer-sized value, shared by the state
 * backends (state_mem.c: the namespace's hash table; state_rocksdb.c: its
 * entry count).  Internal to src/state.
 *
 * Why a tree and not a sorted array (what both backends had): a keyed
 * timer table has one namespace per timer instant, and a source that reads
 * splits far apart in event time in turn (a chunked datagen, several file
 * ranges) sets timers before a million later ones: every insert into the
 * array moved them all (bench/stateful.sh's interval join at 2 M rows:
 * over 100 CPU-seconds, 83% memmove; docs/performance.md).  Here insert,
 * lookup and removal cost O(B log_B n) wherever the namespace falls, and
 * the common cases stay about as cheap as the array's: a lookup or an
 * append at the newest end, a lookup or a removal at the oldest end and a
 * walk by next() touch only one leaf without a search (the tree is one
 * leaf, a sorted array, up to B namespaces).
 *
 * Iteration is in ascending namespace order (leaves are linked).  A
 * pointer returned by sl__nsidx_get stays valid until the next put or del.
 * `work` counts the elements moved or compared and the nodes visited, so
 * tests can bound the cost of an access pattern without timing it.  Not
 * thread-safe (one table, one thread).
 */
#ifndef SL_NSIDX_H
#define SL_NSIDX_H

#include <stdint.h>

#define SL_NSIDX_B 64 /* keys per leaf, children per inner node */

typedef struct sl_nsleaf {
	int n;
	struct sl_nsleaf *prev, *next;
	int64_t key[SL_NSIDX_B];
	void *val[SL_NSIDX_B];
} sl_nsleaf;

typedef struct sl_nsidx {
	void *root;              /* a sl_nsleaf when height is 0; NULL until the first put */
	int height;
	uint64_t n;              /* namespaces */
	sl_nsleaf *first, *last; /* the leftmost and rightmost leaves */
	void *spare;             /* freed nodes kept for the next splits (a list) */
	int nspare;
	uint64_t work;           /* elements moved or compared, nodes visited */
	const sl_nsleaf *hint;   /* where the last next() ended (NULL after a change) */
	int hint_i;
} sl_nsidx;

/* An empty index (no allocation until the first put). */
void sl__nsidx_init(sl_nsidx *x);

/* Frees the nodes (not what the values point at); x is then empty. */
void sl__nsidx_deinit(sl_nsidx *x);

/* The value slot of namespace k, or NULL when absent. */
void **sl__nsidx_get(sl_nsidx *x, int64_t k);

/* Adds namespace k (absent) with value v.  0, or SL_ENOMEM leaving x as
 * it was. */
int sl__nsidx_put(sl_nsidx *x, int64_t k, void *v);

/* Removes namespace k: 1 and its value in *v (v may be NULL), or 0 when
 * absent. */
int sl__nsidx_del(sl_nsidx *x, int64_t k, void **v);

/* The smallest namespace > after (sl__nsidx_first: the smallest): 1 with
 * *k and *v (v may be NULL), or 0 when there is none.  A walk by next()
 * from the namespace the previous next() returned costs no search. */
int sl__nsidx_first(const sl_nsidx *x, int64_t *k, void **v);
int sl__nsidx_next(sl_nsidx *x, int64_t after, int64_t *k, void **v);

/* Ascending iteration: for (sl__nsidx_begin(x, &it); sl__nsidx_it_next(&it,
 * &k, &v);) ...  The index must not change during it. */
typedef struct sl_nsidx_it {
	const sl_nsleaf *l;
	int i;
} sl_nsidx_it;

static inline void sl__nsidx_begin(const sl_nsidx *x, sl_nsidx_it *it)
{
	it->l = x->first;
	it->i = 0;
}

static inline int sl__nsidx_it_next(sl_nsidx_it *it, int64_t *k, void **v)
{
	while (it->l && it->i >= it->l->n) {
		it->l = it->l->next;
		it->i = 0;
	}
	if (!it->l)
		return 0;
	if (k)
		*k = it->l->key[it->i];
	if (v)
		*v = it->l->val[it->i];
	it->i++;
	return 1;
}

/* Checks the tree's invariants (order, separators, fill, links, count):
 * 0 when they hold, else a negative number naming the first that failed.
 * For tests. */
int sl__nsidx_check(const sl_nsidx *x);

#endif
