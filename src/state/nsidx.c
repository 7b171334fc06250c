/*
 * nsidx.c - the B+tree of a state table's namespaces (nsidx.h): int64
 * namespace -> one pointer, for the memory and RocksDB backends.
 *
 * Layout.  Leaves hold up to B sorted (namespace, value) pairs and are
 * linked in order both ways; inner nodes hold up to B children and the
 * B - 1 separators between them: key[i] is a lower bound of every
 * namespace under child[i + 1] and greater than every one under child[i].
 * Every leaf is at the same depth; every node but the root holds at least
 * MIN_FILL entries.  The leftmost leaf is created with the root and never
 * freed (a merge always frees the right node), so `first` never moves;
 * `last` follows splits and merges.
 *
 * Splits: a full node splits in halves, except when the new entry goes at
 * its end, where the new right node takes only MIN_FILL entries besides
 * it.  Why: namespaces mostly arrive in order (window ends, timers),
 * either at the newest end or, for a split read behind another one, at
 * the end of one leaf in the middle; halves would leave every such leaf
 * half empty, this leaves them three quarters full.
 *
 * Removal: a node that falls below MIN_FILL merges with a sibling when
 * both fit in one node, otherwise the two share their entries evenly (so
 * dropping the oldest namespace one at a time rebalances once every few
 * dozen drops, not at each).
 *
 * A put never fails half-way: the nodes a split at every level and a new
 * root may need are reserved first (kept on a small spare list, which
 * also takes freed nodes).
 */
#include "nsidx.h"
#include "sluice.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define B SL_NSIDX_B
#define MIN_FILL (B / 4)
#define SPARE_MAX 16

typedef struct inner {
	int n;              /* children; first, as sl_nsleaf's n */
	int64_t key[B - 1]; /* key[i]: lower bound of child[i + 1] */
	void *child[B];
} inner;

typedef union node {
	sl_nsleaf l;
	inner in;
} node;

/* Entries of a node of either kind (both start with int n). */
static inline int nsize(const void *p)
{
	return *(const int *)p;
}

static void *node_new(sl_nsidx *x)
{
	if (x->spare) {
		void *p = x->spare;
		x->spare = *(void **)p;
		x->nspare--;
		return p;
	}
	return malloc(sizeof(node));
}

static void node_free(sl_nsidx *x, void *p)
{
	if (x->nspare < SPARE_MAX) {
		*(void **)p = x->spare;
		x->spare = p;
		x->nspare++;
	} else {
		free(p);
	}
}

/* Nodes for a put: a split at every level and a new root. */
static int reserve(sl_nsidx *x)
{
	while (x->nspare < x->height + 2) {
		void *p = malloc(sizeof(node));
		if (!p)
			return SL_ENOMEM;
		*(void **)p = x->spare;
		x->spare = p;
		x->nspare++;
	}
	return 0;
}

/* The first i in key[0..n) with key[i] >= k (n when none).  (The work
 * is counted outside the loop: x->work may alias key for the compiler.) */
static inline int lower(sl_nsidx *x, const int64_t *key, int n, int64_t k)
{
	int lo = 0, hi = n, steps = 0;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		steps++;
		if (key[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	x->work += (uint64_t)steps;
	return lo;
}

/* The first i in key[0..n) with key[i] > k (n when none): the child of an
 * inner node with n + 1 children that k belongs under. */
static inline int upper(sl_nsidx *x, const int64_t *key, int n, int64_t k)
{
	int lo = 0, hi = n, steps = 0;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		steps++;
		if (key[mid] <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	x->work += (uint64_t)steps;
	return lo;
}

/* The leaf whose range holds k. */
static sl_nsleaf *descend(sl_nsidx *x, int64_t k)
{
	void *p = x->root;
	for (int h = x->height; h > 0; h--) {
		inner *in = p;
		x->work++;
		p = in->child[upper(x, in->key, in->n - 1, k)];
	}
	return p;
}

/* The leaf to look for k in: the last or the first one when k falls in
 * it (the newest and the oldest namespaces: most accesses), else by
 * descent.  x is not empty. */
static sl_nsleaf *leaf_of(sl_nsidx *x, int64_t k)
{
	sl_nsleaf *l = x->last;
	if (k >= l->key[0])
		return l;
	l = x->first;
	if (k <= l->key[l->n - 1])
		return l;
	return descend(x, k);
}

void sl__nsidx_init(sl_nsidx *x)
{
	memset(x, 0, sizeof(*x));
}

static void free_tree(void *p, int h)
{
	if (h > 0) {
		inner *in = p;
		for (int i = 0; i < in->n; i++)
			free_tree(in->child[i], h - 1);
	}
	free(p);
}

void sl__nsidx_deinit(sl_nsidx *x)
{
	if (x->root)
		free_tree(x->root, x->height);
	while (x->spare) {
		void *p = x->spare;
		x->spare = *(void **)p;
		free(p);
	}
	sl__nsidx_init(x);
}

void **sl__nsidx_get(sl_nsidx *x, int64_t k)
{
	if (!x->n)
		return NULL;
	/* the newest and the oldest namespace, and beyond them, without a
	 * search (a new timer or window is beyond the newest) */
	sl_nsleaf *l = x->last, *f = x->first;
	x->work++;
	if (l->key[l->n - 1] <= k)
		return l->key[l->n - 1] == k ? &l->val[l->n - 1] : NULL;
	if (f->key[0] >= k)
		return f->key[0] == k ? &f->val[0] : NULL;
	l = leaf_of(x, k);
	int i = lower(x, l->key, l->n, k);
	return i < l->n && l->key[i] == k ? &l->val[i] : NULL;
}

int sl__nsidx_first(const sl_nsidx *x, int64_t *k, void **v)
{
	if (!x->n)
		return 0;
	*k = x->first->key[0];
	if (v)
		*v = x->first->val[0];
	return 1;
}

int sl__nsidx_next(sl_nsidx *x, int64_t after, int64_t *k, void **v)
{
	if (!x->n)
		return 0;
	/* from where the last next() ended (a walk), after the oldest (the
	 * one being fired) or before it: no search */
	const sl_nsleaf *l = x->first;
	int i = after < l->key[0] ? 0 : after == l->key[0] && l->n > 1 ? 1 : -1;
	x->work++;
	if (i < 0 && x->hint && x->hint->key[x->hint_i] == after) {
		l = x->hint;
		i = x->hint_i + 1;
	} else if (i < 0) {
		l = leaf_of(x, after);
		i = upper(x, l->key, l->n, after);
	}
	if (i == l->n) { /* the next leaf's keys are all above `after` */
		l = l->next;
		i = 0;
		if (!l)
			return 0;
	}
	*k = l->key[i];
	if (v)
		*v = l->val[i];
	x->hint = l;
	x->hint_i = i;
	return 1;
}

/* ---- insertion ------------------------------------------------------------- */

static void leaf_put_at(sl_nsidx *x, sl_nsleaf *l, int i, int64_t k, void *v)
{
	int m = l->n - i;
	memmove(l->key + i + 1, l->key + i, sizeof(*l->key) * (size_t)m);
	memmove(l->val + i + 1, l->val + i, sizeof(*l->val) * (size_t)m);
	l->key[i] = k;
	l->val[i] = v;
	l->n++;
	x->work += (uint64_t)m + 1;
}

/* Inserts (k, v) into leaf l: 0, or 1 when l split (its new right
 * sibling in *right, that one's smallest key in *sep). */
static int leaf_ins(sl_nsidx *x, sl_nsleaf *l, int64_t k, void *v, int64_t *sep, void **right)
{
	int i = lower(x, l->key, l->n, k);
	assert(i == l->n || l->key[i] != k); /* absent (sl__nsidx_put's contract) */
	if (l->n < B) {
		leaf_put_at(x, l, i, k, v);
		return 0;
	}
	sl_nsleaf *r = node_new(x); /* reserved: never NULL */
	int keep = i == B ? B - MIN_FILL : B / 2;
	r->n = B - keep;
	memcpy(r->key, l->key + keep, sizeof(*r->key) * (size_t)r->n);
	memcpy(r->val, l->val + keep, sizeof(*r->val) * (size_t)r->n);
	x->work += (uint64_t)r->n;
	l->n = keep;
	r->prev = l;
	r->next = l->next;
	if (l->next)
		l->next->prev = r;
	else
		x->last = r;
	l->next = r;
	if (i <= keep)
		leaf_put_at(x, l, i, k, v);
	else
		leaf_put_at(x, r, i - keep, k, v);
	*sep = r->key[0];
	*right = r;
	return 1;
}

/* Puts separator s and child r after child ci of in: 0, or 1 when in
 * split (as leaf_ins). */
static int inner_ins(sl_nsidx *x, inner *in, int ci, int64_t s, void *r, int64_t *sep,
                     void **right)
{
	int n = in->n;
	if (n < B) {
		memmove(in->key + ci + 1, in->key + ci, sizeof(*in->key) * (size_t)(n - 1 - ci));
		memmove(in->child + ci + 2, in->child + ci + 1, sizeof(*in->child) * (size_t)(n - 1 - ci));
		in->key[ci] = s;
		in->child[ci + 1] = r;
		in->n++;
		x->work += (uint64_t)(n - ci);
		return 0;
	}
	int64_t tk[B];
	void *tc[B + 1];
	memcpy(tk, in->key, sizeof(*tk) * (size_t)ci);
	tk[ci] = s;
	memcpy(tk + ci + 1, in->key + ci, sizeof(*tk) * (size_t)(B - 1 - ci));
	memcpy(tc, in->child, sizeof(*tc) * (size_t)(ci + 1));
	tc[ci + 1] = r;
	memcpy(tc + ci + 2, in->child + ci + 1, sizeof(*tc) * (size_t)(B - 1 - ci));
	int keep = ci == B - 1 ? B + 1 - MIN_FILL : B / 2; /* children the left node keeps */
	inner *nr = node_new(x);            /* reserved: never NULL */
	in->n = keep;
	memcpy(in->child, tc, sizeof(*tc) * (size_t)keep);
	memcpy(in->key, tk, sizeof(*tk) * (size_t)(keep - 1));
	*sep = tk[keep - 1];
	nr->n = B + 1 - keep;
	memcpy(nr->child, tc + keep, sizeof(*tc) * (size_t)nr->n);
	memcpy(nr->key, tk + keep, sizeof(*tk) * (size_t)(nr->n - 1));
	x->work += 2 * (uint64_t)B;
	*right = nr;
	return 1;
}

static int ins(sl_nsidx *x, void *p, int h, int64_t k, void *v, int64_t *sep, void **right)
{
	x->work++;
	if (h == 0)
		return leaf_ins(x, p, k, v, sep, right);
	inner *in = p;
	int ci = upper(x, in->key, in->n - 1, k);
	int64_t s;
	void *r;
	if (!ins(x, in->child[ci], h - 1, k, v, &s, &r))
		return 0;
	return inner_ins(x, in, ci, s, r, sep, right);
}

int sl__nsidx_put(sl_nsidx *x, int64_t k, void *v)
{
	x->hint = NULL;
	if (!x->root) {
		sl_nsleaf *l = node_new(x);
		if (!l)
			return SL_ENOMEM;
		memset(l, 0, sizeof(*l));
		x->root = x->first = x->last = l;
		x->height = 0;
	}
	sl_nsleaf *l = x->last;
	if (l->n < B && (l->n == 0 || k > l->key[l->n - 1])) { /* the newest, with room */
		l->key[l->n] = k;
		l->val[l->n] = v;
		l->n++;
		x->n++;
		x->work++;
		return 0;
	}
	if (reserve(x))
		return SL_ENOMEM;
	int64_t sep;
	void *right;
	if (ins(x, x->root, x->height, k, v, &sep, &right)) {
		inner *r = node_new(x); /* reserved */
		r->n = 2;
		r->key[0] = sep;
		r->child[0] = x->root;
		r->child[1] = right;
		x->root = r;
		x->height++;
	}
	x->n++;
	return 0;
}

/* ---- removal --------------------------------------------------------------- */

/* Removes separator key[i] and child[i + 1] of in (merged away). */
static void inner_cut(sl_nsidx *x, inner *in, int i)
{
	int n = in->n;
	memmove(in->key + i, in->key + i + 1, sizeof(*in->key) * (size_t)(n - 2 - i));
	memmove(in->child + i + 1, in->child + i + 2, sizeof(*in->child) * (size_t)(n - 2 - i));
	in->n--;
	x->work += (uint64_t)(n - i);
}

/* Children left and right (of height h) of in, around separator key[si]:
 * one fell below MIN_FILL.  Merges them, or shares their entries evenly. */
static void fix(sl_nsidx *x, inner *in, int si, int h)
{
	void *lp = in->child[si], *rp = in->child[si + 1];
	int ln = nsize(lp), rn = nsize(rp);
	x->work += (uint64_t)(ln + rn);
	if (h == 0) {
		sl_nsleaf *l = lp, *r = rp;
		if (ln + rn <= B) {
			memcpy(l->key + ln, r->key, sizeof(*l->key) * (size_t)rn);
			memcpy(l->val + ln, r->val, sizeof(*l->val) * (size_t)rn);
			l->n = ln + rn;
			l->next = r->next;
			if (r->next)
				r->next->prev = l;
			else
				x->last = l;
			node_free(x, r);
			inner_cut(x, in, si);
			return;
		}
		int t = (ln + rn) / 2;
		if (ln < t) { /* right's first t - ln to left's end */
			int m = t - ln;
			memcpy(l->key + ln, r->key, sizeof(*l->key) * (size_t)m);
			memcpy(l->val + ln, r->val, sizeof(*l->val) * (size_t)m);
			memmove(r->key, r->key + m, sizeof(*r->key) * (size_t)(rn - m));
			memmove(r->val, r->val + m, sizeof(*r->val) * (size_t)(rn - m));
			l->n = t;
			r->n = rn - m;
		} else { /* left's last ln - t to right's front */
			int m = ln - t;
			memmove(r->key + m, r->key, sizeof(*r->key) * (size_t)rn);
			memmove(r->val + m, r->val, sizeof(*r->val) * (size_t)rn);
			memcpy(r->key, l->key + t, sizeof(*r->key) * (size_t)m);
			memcpy(r->val, l->val + t, sizeof(*r->val) * (size_t)m);
			l->n = t;
			r->n = rn + m;
		}
		in->key[si] = r->key[0];
		return;
	}
	inner *l = lp, *r = rp;
	if (ln + rn <= B) {
		l->key[ln - 1] = in->key[si];
		memcpy(l->key + ln, r->key, sizeof(*l->key) * (size_t)(rn - 1));
		memcpy(l->child + ln, r->child, sizeof(*l->child) * (size_t)rn);
		l->n = ln + rn;
		node_free(x, r);
		inner_cut(x, in, si);
		return;
	}
	int t = (ln + rn) / 2;
	if (ln < t) { /* right's first m children to left, through the separator */
		int m = t - ln;
		l->key[ln - 1] = in->key[si];
		memcpy(l->key + ln, r->key, sizeof(*l->key) * (size_t)(m - 1));
		memcpy(l->child + ln, r->child, sizeof(*l->child) * (size_t)m);
		in->key[si] = r->key[m - 1];
		memmove(r->key, r->key + m, sizeof(*r->key) * (size_t)(rn - 1 - m));
		memmove(r->child, r->child + m, sizeof(*r->child) * (size_t)(rn - m));
		l->n = t;
		r->n = rn - m;
	} else { /* left's last m children to right */
		int m = ln - t;
		memmove(r->key + m, r->key, sizeof(*r->key) * (size_t)(rn - 1));
		memmove(r->child + m, r->child, sizeof(*r->child) * (size_t)rn);
		r->key[m - 1] = in->key[si];
		memcpy(r->key, l->key + t, sizeof(*r->key) * (size_t)(m - 1));
		memcpy(r->child, l->child + t, sizeof(*r->child) * (size_t)m);
		in->key[si] = l->key[t - 1];
		l->n = t;
		r->n = rn + m;
	}
}

static int del(sl_nsidx *x, void *p, int h, int64_t k, void **v)
{
	x->work++;
	if (h == 0) {
		sl_nsleaf *l = p;
		int i = lower(x, l->key, l->n, k);
		if (i >= l->n || l->key[i] != k)
			return 0;
		*v = l->val[i];
		int m = l->n - i - 1;
		memmove(l->key + i, l->key + i + 1, sizeof(*l->key) * (size_t)m);
		memmove(l->val + i, l->val + i + 1, sizeof(*l->val) * (size_t)m);
		l->n--;
		x->work += (uint64_t)m;
		return 1;
	}
	inner *in = p;
	int ci = upper(x, in->key, in->n - 1, k);
	if (!del(x, in->child[ci], h - 1, k, v))
		return 0;
	if (nsize(in->child[ci]) < MIN_FILL)
		fix(x, in, ci + 1 < in->n ? ci : ci - 1, h - 1);
	return 1;
}

int sl__nsidx_del(sl_nsidx *x, int64_t k, void **v)
{
	void *val;
	sl_nsleaf *f = x->first;
	x->hint = NULL;
	if (x->n && f->key[0] == k && (x->height == 0 || f->n > MIN_FILL)) {
		/* the oldest (timers and windows firing), leaving the leaf full
		 * enough: no descent */
		val = f->val[0];
		int m = f->n - 1;
		memmove(f->key, f->key + 1, sizeof(*f->key) * (size_t)m);
		memmove(f->val, f->val + 1, sizeof(*f->val) * (size_t)m);
		f->n = m;
		x->n--;
		x->work += (uint64_t)m + 1;
		if (v)
			*v = val;
		return 1;
	}
	if (!x->n || !del(x, x->root, x->height, k, &val))
		return 0;
	x->n--;
	while (x->height > 0 && nsize(x->root) == 1) { /* the root's one child is the root */
		void *c = ((inner *)x->root)->child[0];
		node_free(x, x->root);
		x->root = c;
		x->height--;
	}
	if (v)
		*v = val;
	return 1;
}

/* ---- invariants (tests) ----------------------------------------------------- */

typedef struct chk {
	const sl_nsidx *x;
	const sl_nsleaf *prev; /* the leaf before the next one visited */
	uint64_t n;
} chk;

/* Checks the subtree p of height h whose keys lie in [lo, hi] (bounds
 * used only when has_lo / has_hi). */
static int chk_node(chk *c, const void *p, int h, int root, int has_lo, int64_t lo, int has_hi,
                    int64_t hi)
{
	int n = nsize(p);
	if (n > B || (!root && n < MIN_FILL) || (h > 0 && n < 2))
		return -2; /* fill */
	if (h == 0) {
		const sl_nsleaf *l = p;
		for (int i = 0; i < n; i++) {
			if ((i && l->key[i - 1] >= l->key[i]) || (has_lo && l->key[i] < lo) ||
			    (has_hi && l->key[i] >= hi))
				return -3; /* order, separators */
		}
		if (l->prev != c->prev || (c->prev ? c->prev->next != l : c->x->first != l))
			return -4; /* links */
		c->prev = l;
		c->n += (uint64_t)n;
		return 0;
	}
	const inner *in = p;
	for (int i = 0; i + 1 < n - 1; i++)
		if (in->key[i] >= in->key[i + 1])
			return -3;
	for (int i = 0; i < n; i++) {
		int rc = chk_node(c, in->child[i], h - 1, 0, i ? 1 : has_lo, i ? in->key[i - 1] : lo,
		                  i < n - 1 ? 1 : has_hi, i < n - 1 ? in->key[i] : hi);
		if (rc)
			return rc;
	}
	return 0;
}

int sl__nsidx_check(const sl_nsidx *x)
{
	if (!x->root)
		return x->n ? -1 : 0;
	chk c = {x, NULL, 0};
	int rc = chk_node(&c, x->root, x->height, 1, 0, 0, 0, 0);
	if (rc)
		return rc;
	if (c.prev != x->last || x->last->next)
		return -4;
	return c.n == x->n ? 0 : -1; /* count */
}
