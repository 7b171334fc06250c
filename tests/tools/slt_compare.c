/*
 * slt_compare.c - the comparison of a job's changes with what is expected,
 * for the slt runner (tests/tools/slt_runner.c) at parallelism N > 1, and
 * the difference listing it prints for every failed expect.
 *
 * What is compared, and why it is exactly the contract (DESIGN.md §4:
 * "Results are the same multiset, with the same per-key order, at every
 * N"; docs/parallel.md §4 lists what stays dependent on arrival order):
 *
 *   multiset    the changes (kind and row) equal the file's lines as a
 *               multiset, at every N;
 *   key order   for a sink whose key the runner knows (its PRIMARY KEY, or
 *               the key the slt file declares with `key`: the producing
 *               operator's, possibly empty for a keyless operator whose
 *               whole output is one sequence), each key's changes come in
 *               the order of the run at parallelism 1 (the reference);
 *   retraction  for a table without a known key (the bare SELECT, a push
 *               sink without a PRIMARY KEY) the key that orders its changes
 *               is the producing operator's, which the rows need not show
 *               (SELECT cnt FROM (... GROUP BY k)): two keys may emit the
 *               same row, so neither the order across rows nor the order
 *               of one row value's changes is fixed at N > 1.  What every
 *               key's order implies is that a retraction comes after the
 *               row it retracts: so a -U/-D that found its row already
 *               emitted by the table in the reference must find it here.
 *               (A retraction that found nothing in the reference, e.g. a
 *               changelog input deleting a row it never inserted, is
 *               allowed to find nothing here.)
 *
 * The order across keys, which `expect ordered` pins at parallelism 1, is
 * not compared at N > 1; nothing stronger than the contract is.
 *
 * Memory: the ledger is an open-addressing hash table of malloc'd row
 * texts; per-key comparisons sort malloc'd key arrays per record.  Tests
 * are small; nothing here is on a hot path.  Single-threaded.
 */
#include "slt_compare.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tables and their keys ------------------------------------------------ */

int sc_keys_add(sc_keys *k, const char *table, int ncols, const int *cols, int nkey, int upsert)
{
	if (nkey < SC_NO_KEY || nkey > SC_MAX_KEY || ncols < 0)
		return -1;
	for (int i = 0; i < nkey; i++)
		if (cols[i] < 0 || (ncols && cols[i] >= ncols))
			return -1;
	sc_table_key *old = (sc_table_key *)sc_keys_find(k, table, strlen(table));
	if (old) { /* replaced */
		old->ncols = ncols;
		old->nkey = nkey;
		old->upsert = upsert && nkey > 0;
		for (int i = 0; i < nkey; i++)
			old->cols[i] = cols[i];
		return 0;
	}
	if (k->n == k->cap) {
		int cap = k->cap ? k->cap * 2 : 8;
		sc_table_key *v = realloc(k->v, sizeof(*v) * (size_t)cap);
		if (!v)
			return -1;
		k->v = v;
		k->cap = cap;
	}
	sc_table_key *t = &k->v[k->n];
	memset(t, 0, sizeof(*t));
	if (!(t->table = strdup(table)))
		return -1;
	t->ncols = ncols;
	t->nkey = nkey;
	t->upsert = upsert && nkey > 0;
	for (int i = 0; i < nkey; i++)
		t->cols[i] = cols[i];
	k->n++;
	return 0;
}

const sc_table_key *sc_keys_find(const sc_keys *k, const char *table, size_t len)
{
	for (int i = 0; k && i < k->n; i++)
		if (strlen(k->v[i].table) == len && !memcmp(k->v[i].table, table, len))
			return &k->v[i];
	return NULL;
}

void sc_keys_clear(sc_keys *k)
{
	for (int i = 0; i < k->n; i++)
		free(k->v[i].table);
	k->n = 0;
}

void sc_keys_free(sc_keys *k)
{
	sc_keys_clear(k);
	free(k->v);
	k->v = NULL;
	k->cap = 0;
}

/* ---- lines -------------------------------------------------------------- */

int sc_parse(const char *line, sc_change *c)
{
	const char *k = line;
	c->table = "select";
	c->tlen = 6;
	if (*k != '+' && *k != '-') {
		const char *sp = strchr(line, ' ');
		if (!sp)
			return -1;
		c->table = line;
		c->tlen = (size_t)(sp - line);
		k = sp + 1;
	}
	if (!strncmp(k, "+I[", 3))
		c->kind = 'I';
	else if (!strncmp(k, "+U[", 3))
		c->kind = 'U';
	else if (!strncmp(k, "-U[", 3))
		c->kind = 'B';
	else if (!strncmp(k, "-D[", 3))
		c->kind = 'D';
	else
		return -1;
	c->vals = k + 3;
	c->vlen = strlen(c->vals);
	if (!c->vlen || c->vals[c->vlen - 1] != ']')
		return -1;
	c->vlen--;
	return 0;
}

/* Splits values at the ", " outside (), [] and {} into up to max fields;
 * returns the number of fields, or max + 1 when there are more. */
static int split_fields(const char *s, size_t n, const char **start, size_t *len, int max)
{
	int nf = 0, depth = 0;
	size_t from = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && (s[i] == '(' || s[i] == '[' || s[i] == '{'))
			depth++;
		else if (i < n && (s[i] == ')' || s[i] == ']' || s[i] == '}'))
			depth--;
		if (i == n || (depth == 0 && s[i] == ',' && i + 1 < n && s[i + 1] == ' ')) {
			if (nf == max)
				return max + 1;
			start[nf] = s + from;
			len[nf++] = i - from;
			from = i + 2;
		}
	}
	return nf;
}

size_t sc_key_text(const sc_keys *keys, const char *line, char *buf, size_t cap)
{
	sc_change c;
	if (sc_parse(line, &c)) {
		snprintf(buf, cap, "?|%s", line);
		return strlen(buf);
	}
	const sc_table_key *t = sc_keys_find(keys, c.table, c.tlen);
	const char *f[256];
	size_t fl[256];
	int max = t && t->ncols ? t->ncols : 256, split = t && t->nkey > 0 && max <= 256;
	int nf = split ? split_fields(c.vals, c.vlen, f, fl, max) : -1;
	for (int i = 0; split && i < t->nkey; i++)
		split = split && t->cols[i] < nf && nf <= max && (!t->ncols || nf == t->ncols);
	size_t w = (size_t)snprintf(buf, cap, "%.*s|", (int)c.tlen, c.table);
	if (t && t->nkey == 0) /* the empty key: one sequence */
		return strlen(buf);
	if (!split) { /* no key, or values that do not split */
		snprintf(buf + (w < cap ? w : cap - 1), w < cap ? cap - w : 1, "%.*s", (int)c.vlen,
		         c.vals);
		return strlen(buf);
	}
	for (int i = 0; i < t->nkey && w < cap; i++) {
		int col = t->cols[i];
		w += (size_t)snprintf(buf + w, cap - w, "%s%.*s", i ? "\x1f" : "", (int)fl[col], f[col]);
	}
	return strlen(buf);
}

void sc_parse_describe(const char *text, int *ncols, int *cols, int *nkey)
{
	int keycol = -1, row = -1;
	*ncols = *nkey = 0;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (*p == '|') {
			int field = 0;
			const char *f = p + 1, *end = p + n;
			while (f < end) {
				const char *bar = memchr(f, '|', (size_t)(end - f));
				if (!bar)
					break;
				const char *a = f, *b = bar;
				while (a < b && *a == ' ')
					a++;
				while (b > a && b[-1] == ' ')
					b--;
				if (row < 0 && b - a == 3 && !memcmp(a, "key", 3))
					keycol = field;
				else if (row >= 0 && field == keycol && b > a && *nkey < SC_MAX_KEY)
					cols[(*nkey)++] = row;
				field++;
				f = bar + 1;
			}
			row++;
		}
		p += n + (nl != NULL);
	}
	*ncols = row > 0 ? row : 0;
	if (keycol < 0)
		*nkey = 0;
}

/* ---- the ledger: what each table holds ------------------------------------ */

typedef struct sc_ledger_ent {
	char *id;  /* "R|<table>|<values>" (a row of a retract stream) or
	              "K|<key text>" (a key of an upsert sink); NULL: empty slot */
	long count; /* R: how many times the table holds the row */
	char *val;  /* K: the key's row values, NULL when deleted */
} sc_ledger_ent;

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

void sc_ledger_clear(sc_ledger *l)
{
	for (size_t i = 0; i < l->cap; i++) {
		free(l->v[i].id);
		free(l->v[i].val);
		memset(&l->v[i], 0, sizeof(l->v[i]));
	}
	l->n = 0;
}

void sc_ledger_free(sc_ledger *l)
{
	sc_ledger_clear(l);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* The slot of id, or NULL when absent. */
static sc_ledger_ent *ledger_find(const sc_ledger *l, const char *id)
{
	if (!l->cap)
		return NULL;
	size_t j = hash_str(id) & (l->cap - 1);
	while (l->v[j].id && strcmp(l->v[j].id, id))
		j = (j + 1) & (l->cap - 1);
	return l->v[j].id ? &l->v[j] : NULL;
}

/* The slot of id (inserted empty when absent), or NULL when out of
 * memory. */
static sc_ledger_ent *ledger_slot(sc_ledger *l, const char *id)
{
	if (2 * (l->n + 1) > l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		sc_ledger_ent *v = calloc(cap, sizeof(*v));
		if (!v)
			return NULL;
		for (size_t i = 0; i < l->cap; i++) {
			if (!l->v[i].id)
				continue;
			size_t j = hash_str(l->v[i].id) & (cap - 1);
			while (v[j].id)
				j = (j + 1) & (cap - 1);
			v[j] = l->v[i];
		}
		free(l->v);
		l->v = v;
		l->cap = cap;
	}
	size_t j = hash_str(id) & (l->cap - 1);
	while (l->v[j].id && strcmp(l->v[j].id, id))
		j = (j + 1) & (l->cap - 1);
	if (!l->v[j].id) {
		if (!(l->v[j].id = strdup(id)))
			return NULL;
		l->n++;
	}
	return &l->v[j];
}

/* Records an unmatched retraction (row text after "R|"). */
static int note_unmatched(const char *id, char ***unmatched, int *nunmatched)
{
	char **v = realloc(*unmatched, sizeof(char *) * (size_t)(*nunmatched + 1));
	if (!v)
		return -1;
	*unmatched = v;
	if (!(v[*nunmatched] = strdup(id + 2)))
		return -1;
	(*nunmatched)++;
	return 0;
}

int sc_ledger_apply(sc_ledger *l, const sc_keys *keys, char *const *rows, int n,
                    char ***unmatched, int *nunmatched)
{
	char buf[4096];
	for (int i = 0; i < n; i++) {
		sc_change c;
		if (sc_parse(rows[i], &c))
			continue;
		const sc_table_key *t = sc_keys_find(keys, c.table, c.tlen);
		int add = c.kind == 'I' || c.kind == 'U';
		if (t && t->upsert) { /* +I/+U set the key's row, -U/-D delete it */
			buf[0] = 'K';
			buf[1] = '|';
			sc_key_text(keys, rows[i], buf + 2, sizeof(buf) - 2);
			sc_ledger_ent *e = ledger_slot(l, buf);
			if (!e)
				return -1;
			free(e->val);
			e->val = add ? strndup(c.vals, c.vlen) : NULL;
			if (add && !e->val)
				return -1;
			continue;
		}
		snprintf(buf, sizeof(buf), "R|%.*s|%.*s", (int)c.tlen, c.table, (int)c.vlen, c.vals);
		sc_ledger_ent *e = ledger_slot(l, buf);
		if (!e)
			return -1;
		if (add)
			e->count++;
		else if (e->count > 0)
			e->count--;
		else if (unmatched && (!t || t->nkey == SC_NO_KEY) &&
		         note_unmatched(buf, unmatched, nunmatched))
			return -1;
	}
	return 0;
}

/* 1 when slot e of one ledger holds something. */
static int ent_holds(const sc_ledger_ent *e)
{
	return e && (e->id[0] == 'K' ? e->val != NULL : e->count > 0);
}

/* 1 when two slots (either may be NULL) hold the same. */
static int ent_same(const sc_ledger_ent *a, const sc_ledger_ent *b)
{
	if (!ent_holds(a) || !ent_holds(b))
		return ent_holds(a) == ent_holds(b);
	return a->id[0] == 'K' ? !strcmp(a->val, b->val) : a->count == b->count;
}

static void ent_print(FILE *out, const char *title, const sc_ledger_ent *e)
{
	if (!ent_holds(e))
		fprintf(out, "      %s: nothing\n", title);
	else if (e->id[0] == 'K')
		fprintf(out, "      %s: [%s]\n", title, e->val);
	else
		fprintf(out, "      %s: %ld time(s)\n", title, e->count);
}

int sc_ledger_same(const sc_ledger *a, const sc_ledger *b, FILE *out)
{
	int bad = 0;
	for (int pass = 0; pass < 2; pass++) {
		const sc_ledger *x = pass ? b : a, *y = pass ? a : b;
		for (size_t i = 0; i < x->cap; i++) {
			const sc_ledger_ent *e = &x->v[i], *f;
			if (!e->id || (pass && ent_holds(ledger_find(a, e->id))))
				continue; /* the second pass: only what a lacks */
			if (ent_same(e, f = ledger_find(y, e->id)))
				continue;
			if (bad++ == 0)
				fprintf(out, "  the tables hold other rows (the changes applied so far):\n");
			if (bad <= 10) {
				fprintf(out, "    %s %s\n", e->id[0] == 'K' ? "key" : "row", e->id + 2);
				ent_print(out, "parallelism 1", pass ? f : e);
				ent_print(out, "this run", pass ? e : f);
			}
		}
	}
	if (bad > 10)
		fprintf(out, "    ... %d in all\n", bad);
	return bad == 0;
}

/* ---- listings ------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A sorted copy of the pointers (the strings are shared), or NULL. */
static char **sorted_copy(char *const *v, int n)
{
	char **s = malloc(sizeof(char *) * (size_t)(n + 1));
	if (!s)
		return NULL;
	if (n)
		memcpy(s, v, sizeof(char *) * (size_t)n);
	qsort(s, (size_t)n, sizeof(char *), cmp_str);
	return s;
}

void sc_print_diff(FILE *out, char *const *want, int nwant, char *const *got, int ngot,
                   int ordered)
{
	char **w = ordered ? NULL : sorted_copy(want, nwant);
	char **g = ordered ? NULL : sorted_copy(got, ngot);
	if (!ordered && w && g) {
		want = w;
		got = g;
	}
	fprintf(out, "  expected (%d rows):\n", nwant);
	for (int i = 0; i < nwant; i++)
		fprintf(out, "    %s\n", want[i]);
	fprintf(out, "  actual (%d rows):\n", ngot);
	for (int i = 0; i < ngot; i++)
		fprintf(out, "    %s\n", got[i]);
	fprintf(out, "  diff (- expected only, + actual only%s):\n", ordered ? ", in order" : "");
	int i = 0, j = 0;
	while (i < nwant || j < ngot) {
		int c = i == nwant ? 1 : j == ngot ? -1 : strcmp(want[i], got[j]);
		if (ordered && i < nwant && j < ngot && c)
			c = -1; /* report both sides at the first difference */
		if (c == 0) {
			i++;
			j++;
		} else if (c < 0) {
			fprintf(out, "  - %s\n", want[i++]);
			if (ordered && j < ngot)
				fprintf(out, "  + %s\n", got[j++]);
		} else {
			fprintf(out, "  + %s\n", got[j++]);
		}
	}
	free(w);
	free(g);
}

/* ---- the comparison at N > 1 ------------------------------------------------ */

typedef struct keyed {
	char *key;
	int seq;
	const char *line;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : x->seq - y->seq;
}

static void keyed_free(keyed *v, int n)
{
	for (int i = 0; v && i < n; i++)
		free(v[i].key);
	free(v);
}

/* The changes of tables with a known key, sorted by (key, arrival); *n
 * receives their number.  NULL when out of memory. */
static keyed *by_key(const sc_keys *keys, char *const *rows, int nrows, int *n)
{
	keyed *v = calloc((size_t)nrows + 1, sizeof(keyed));
	char buf[4096];
	*n = 0;
	for (int i = 0; v && i < nrows; i++) {
		sc_change c;
		const sc_table_key *t = sc_parse(rows[i], &c) ? NULL : sc_keys_find(keys, c.table, c.tlen);
		if (!t || t->nkey == SC_NO_KEY)
			continue;
		sc_key_text(keys, rows[i], buf, sizeof(buf));
		if (!(v[*n].key = strdup(buf))) {
			keyed_free(v, *n);
			return NULL;
		}
		v[*n].seq = i;
		v[(*n)++].line = rows[i];
	}
	if (v)
		qsort(v, (size_t)*n, sizeof(keyed), cmp_keyed);
	return v;
}

/* Prints one key's changes in both runs. */
static void print_key(FILE *out, const keyed *v, int n, int from, const char *key,
                      const char *title)
{
	for (int j = from; j < n && !strcmp(v[j].key, key); j++)
		fprintf(out, "    %-16s #%d %s\n", title, v[j].seq + 1, v[j].line);
}

/* Each key's changes in the same order in ref and got; prints the first key
 * that differs.  Returns 1 when they agree, 0 when not, -1 out of memory. */
static int same_key_order(FILE *out, const sc_keys *keys, char *const *ref, int nref,
                          char *const *got, int ngot)
{
	int na, nb, ok = 1;
	keyed *a = by_key(keys, ref, nref, &na), *b = by_key(keys, got, ngot, &nb);
	if (!a || !b) {
		keyed_free(a, na);
		keyed_free(b, nb);
		return -1;
	}
	int i = 0, j = 0;
	while (ok && (i < na || j < nb)) {
		/* the next key of either side, in key order */
		const char *key = i == na ? b[j].key : j == nb ? a[i].key
		                  : strcmp(a[i].key, b[j].key) <= 0 ? a[i].key : b[j].key;
		int i0 = i, j0 = j;
		while (ok && (i < na && !strcmp(a[i].key, key)) && (j < nb && !strcmp(b[j].key, key))) {
			ok = !strcmp(a[i].line, b[j].line);
			i++;
			j++;
		}
		if (ok && ((i < na && !strcmp(a[i].key, key)) || (j < nb && !strcmp(b[j].key, key))))
			ok = 0;
		if (!ok) {
			fprintf(out, "  the changes of key %s come in another order (or are not the "
			        "same):\n", key);
			print_key(out, a, na, i0, key, "parallelism 1:");
			print_key(out, b, nb, j0, key, "this run:");
		}
		while (i < na && !strcmp(a[i].key, key))
			i++;
		while (j < nb && !strcmp(b[j].key, key))
			j++;
	}
	keyed_free(a, na);
	keyed_free(b, nb);
	return ok;
}

static void strs_free(char **v, int n)
{
	for (int i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* Every unmatched retraction of got is one of ref (as multisets); prints
 * those that are not.  Returns 1 when so, 0 when not. */
static int retractions_kept(FILE *out, char **ur, int nur, char **ug, int nug)
{
	qsort(ur, (size_t)nur, sizeof(char *), cmp_str);
	qsort(ug, (size_t)nug, sizeof(char *), cmp_str);
	int i = 0, ok = 1;
	for (int j = 0; j < nug; j++) {
		while (i < nur && strcmp(ur[i], ug[j]) < 0)
			i++;
		if (i < nur && !strcmp(ur[i], ug[j])) {
			i++;
			continue;
		}
		if (ok)
			fprintf(out, "  a retraction comes before the row it retracts (at parallelism 1 "
			        "the row came first):\n");
		ok = 0;
		fprintf(out, "    -U/-D of %s\n", ug[j]);
	}
	return ok;
}

/* 1 when a and b are the same multiset of lines (0 also when out of memory). */
static int same_multiset(char *const *a, int na, char *const *b, int nb)
{
	char **x = na == nb ? sorted_copy(a, na) : NULL, **y = x ? sorted_copy(b, nb) : NULL;
	int same = y != NULL;
	for (int i = 0; same && i < na; i++)
		same = !strcmp(x[i], y[i]);
	free(x);
	free(y);
	return same;
}

int sc_compare_parallel(const sc_keys *keys, int result_only, char *const *want, int nwant,
                        char *const *ref, int nref, sc_ledger *ref_l, char *const *got, int ngot,
                        sc_ledger *got_l, FILE *out)
{
	int failed = 0, rc = 0;
	char **w = sorted_copy(want, nwant), **g = sorted_copy(got, ngot);
	char **ur = NULL, **ug = NULL;
	int nur = 0, nug = 0;
	if (!w || !g)
		goto oom;
	if (result_only) {
		if (sc_ledger_apply(ref_l, keys, ref, nref, NULL, NULL) ||
		    sc_ledger_apply(got_l, keys, got, ngot, NULL, NULL))
			goto oom;
		rc = !sc_ledger_same(ref_l, got_l, out);
		goto done;
	}
	int same = nwant == ngot;
	for (int i = 0; same && i < nwant; i++)
		same = !strcmp(w[i], g[i]);
	if (!same) {
		failed++;
		fprintf(out, "  the changes differ from the expected ones as a multiset:\n");
		sc_print_diff(out, want, nwant, got, ngot, 0);
	}
	int ko = same_key_order(out, keys, ref, nref, got, ngot);
	if (ko < 0)
		goto oom;
	failed += !ko;
	if (sc_ledger_apply(ref_l, keys, ref, nref, &ur, &nur) ||
	    sc_ledger_apply(got_l, keys, got, ngot, &ug, &nug))
		goto oom;
	failed += !retractions_kept(out, ur, nur, ug, nug);
	if (failed && !same_multiset(ref, nref, got, ngot)) {
		/* other changes than at 1, the same tables: the by-design kind? */
		FILE *null = fopen("/dev/null", "w");
		if (null && sc_ledger_same(ref_l, got_l, null))
			fprintf(out, "  (the changes applied so far give the same tables as at parallelism "
			        "1: if this case's changes depend on arrival order by design, as an "
			        "updating stream re-keyed does (docs/parallel.md §4), mark the case "
			        "'parallel result <reason>')\n");
		if (null)
			fclose(null);
	}
	rc = failed;
	goto done;
oom:
	rc = -1;
done:
	free(w);
	free(g);
	strs_free(ur, nur);
	strs_free(ug, nug);
	return rc;
}

/* ---- a parallel run's reordering, simulated ----------------------------------- */

int sc_scramble(const sc_keys *keys, char **rows, int n, unsigned long long seed)
{
	/* each row's group: its key, or without one its row value (which keeps
	 * every retraction after the rows of the same value before it) */
	keyed *g = calloc((size_t)n + 1, sizeof(keyed));
	int *head = malloc(sizeof(int) * (size_t)(n + 1)), ngroups = 0, rc = -1;
	char **out = malloc(sizeof(char *) * (size_t)(n + 1));
	char buf[4096];
	if (!g || !out || !head)
		goto done;
	for (int i = 0; i < n; i++) {
		sc_change c;
		const sc_table_key *t = sc_parse(rows[i], &c) ? NULL : sc_keys_find(keys, c.table, c.tlen);
		if (t && t->nkey != SC_NO_KEY)
			sc_key_text(keys, rows[i], buf, sizeof(buf));
		else if (!sc_parse(rows[i], &c))
			snprintf(buf, sizeof(buf), "%.*s|%.*s", (int)c.tlen, c.table, (int)c.vlen, c.vals);
		else
			snprintf(buf, sizeof(buf), "%s", rows[i]);
		if (!(g[i].key = strdup(buf)))
			goto done;
		g[i].seq = i;
		g[i].line = rows[i];
	}
	qsort(g, (size_t)n, sizeof(keyed), cmp_keyed);
	for (int i = 0; i < n; i++) /* group k: g[head[k] .. head[k + 1]) */
		if (i == 0 || strcmp(g[i].key, g[i - 1].key))
			head[ngroups++] = i;
	head[ngroups] = n;
	/* draw a row at random among those left and take the first row left of
	 * its group: a random interleaving that keeps each group's order */
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
	for (int k = 0; k < n; k++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		int pick = (int)(x % (uint64_t)(n - k)), grp = 0, j = 0;
		for (;; grp++) {
			int left = 0;
			for (j = head[grp]; j < head[grp + 1]; j++)
				left += g[j].line != NULL;
			if (pick < left)
				break;
			pick -= left;
		}
		for (j = head[grp]; !g[j].line; j++)
			;
		out[k] = (char *)g[j].line;
		g[j].line = NULL;
	}
	if (n)
		memcpy(rows, out, sizeof(char *) * (size_t)n);
	rc = 0;
done:
	keyed_free(g, g ? n : 0);
	free(out);
	free(head);
	return rc;
}
