/*
 * conn_fs_lookup.c - lookups by key into a 'filesystem' table, for lookup
 * joins (`JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.k = d.k`,
 * op_lookup_join.c).  The filesystem source's lookup method (conn.h).
 *
 * A file cannot be read by key, so the table is read whole, with the
 * filesystem source itself (the same 'path', 'format' and format options),
 * into an index: every row's key (the key form of data/rowcodec.h over the
 * lookup fields) and row (its row form) appended to two buffers, an
 * array of entries sorted by (key, file order), and an open-addressing
 * hash table of each key's first entry (a lookup is one hash probe; the
 * bisection it replaced was 14% of Nexmark q13's instructions).  A key
 * with one row answers with that row's bytes in place, uncopied.
 * Rows whose key has a NULL are left out (they never match).  The first
 * lookup reads the table ("a bounded file read when first needed"); when
 * it is read again follows Flink's lookup cache options:
 *
 *   'lookup.cache' = 'NONE' (Flink's default): no cached answers: the
 *       table is read again whenever a file of it changed (size or
 *       modification time, checked once per processing-time instant the
 *       join passes, i.e. once per probe batch), so every lookup sees the
 *       file as it is;
 *   'lookup.cache' = 'FULL': read once, and again per
 *       'lookup.full-cache.reload-strategy' = 'PERIODIC' (the default)
 *       every 'lookup.full-cache.periodic-reload.interval' (none: never)
 *       with 'lookup.full-cache.periodic-reload.schedule-mode' =
 *       'FIXED_DELAY' (from the end of the last read, the default) or
 *       'FIXED_RATE' (from its start), checked at each lookup batch.
 *
 * Refused with a clear error: 'PARTIAL' (it caches answers per key, which
 * a file read whole does not need) and every 'lookup.partial-cache.*'
 * option, 'TIMED' reloads, 'lookup.full-cache.*' options without 'FULL',
 * and changelog formats (a lookup table is a plain set of rows).
 *
 * Not checkpointed: a lookup join is not deterministic across restarts
 * when the file changes (as in Flink).  Planning only configures (the
 * options, the format); the job's start checks that the path exists
 * (open), and the first lookup reads it.  The file also holds
 * sl_lookup_new/sl_lookup_open/sl_lookup_free (conn.h), the constructor
 * every lookup method table goes through.  One thread uses a lookup at a
 * time.  Parallel instances of a lookup join (docs/parallel.md §2: each
 * looks up by itself) each open their own lookup, which reads the whole
 * table (its source as the one instance of one, whatever
 * sl_conn_args.subtask says) into its own index: nothing is shared between
 * instances but the files, read-only; the memory is the table's once per
 * instance.
 */
#include "conn_fs_int.h"
#include "sluice.h"
#include "data/rowcodec.h"
#include "base/hash.h"
#include "format/format.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

enum { CACHE_NONE, CACHE_FULL };

typedef struct fs_ent {
	uint32_t koff, klen; /* key bytes in keys */
	uint32_t roff, rlen; /* u32 n + row bytes in rows */
	uint32_t seq;        /* file order */
} fs_ent;

typedef struct fs_lookup {
	sl_lookup base;      /* must be first */
	sl_conn_args args;   /* the table's (fields and options live as long as the plan) */
	const char *path;
	int *keys;
	int nkeys;
	int mode;            /* CACHE_NONE, CACHE_FULL */
	int64_t interval_us; /* FULL: reload period, 0 = never */
	int fixed_rate;
	int loaded;
	int64_t load_start, load_end, checked_at;
	uint64_t sig;        /* NONE: signature of the files at the last read */
	sl_batch *batch;     /* read buffer */
	sl_buf kbuf, rbuf, result;
	fs_ent *ents;
	uint32_t nents, cap;
	uint32_t *slots;     /* hash of keys: index of the key's first entry + 1, 0 = empty */
	uint32_t nslots;     /* a power of two, >= 2 x the distinct keys; 0 = none yet */
} fs_lookup;

/* 1 when some option key starts with prefix (its name in *key). */
static int has_prefix(const sl_opts *o, const char *prefix, const char **key)
{
	for (int i = 0; i < o->n; i++)
		if (strncmp(o->v[i].key, prefix, strlen(prefix)) == 0) {
			*key = o->v[i].key;
			return 1;
		}
	return 0;
}

static int read_options(fs_lookup *f, const sl_opts *o, sl_err *err)
{
	const char *t = f->base.table, *k, *v = sl_opts_get(o, "lookup.cache");
	if (has_prefix(o, "lookup.partial-cache.", &k) || (v && !strcasecmp(v, "PARTIAL")))
		return sl_err_set(err, SL_EINVAL, "table '%s': %s '%s' is not supported by the "
		                  "filesystem connector (it reads the table whole): use 'lookup.cache' "
		                  "= 'NONE' (re-read when the file changes) or 'FULL'", t,
		                  v && !strcasecmp(v, "PARTIAL") ? "'lookup.cache' =" : "option",
		                  v && !strcasecmp(v, "PARTIAL") ? v : k);
	if (!v || !strcasecmp(v, "NONE")) {
		f->mode = CACHE_NONE;
		if (has_prefix(o, "lookup.full-cache.", &k))
			return sl_err_set(err, SL_EINVAL, "table '%s': option '%s' needs 'lookup.cache' = "
			                  "'FULL'", t, k);
		return 0;
	}
	if (strcasecmp(v, "FULL"))
		return sl_err_set(err, SL_EINVAL, "table '%s': 'lookup.cache' must be 'NONE', "
		                  "'PARTIAL' or 'FULL', not '%s'", t, v);
	f->mode = CACHE_FULL;
	v = sl_opts_get(o, "lookup.full-cache.reload-strategy");
	if (v && strcasecmp(v, "PERIODIC"))
		return sl_err_set(err, SL_EINVAL, "table '%s': 'lookup.full-cache.reload-strategy' = "
		                  "'%s' is not supported (PERIODIC is)", t, v);
	int rc = sl_opts_duration(o, "lookup.full-cache.periodic-reload.interval", 0,
	                          &f->interval_us, err);
	if (rc)
		return rc;
	if (f->interval_us < 0)
		return sl_err_set(err, SL_EINVAL, "table '%s': "
		                  "'lookup.full-cache.periodic-reload.interval' must be positive", t);
	v = sl_opts_get(o, "lookup.full-cache.periodic-reload.schedule-mode");
	if (v && strcasecmp(v, "FIXED_DELAY") && strcasecmp(v, "FIXED_RATE"))
		return sl_err_set(err, SL_EINVAL, "table '%s': "
		                  "'lookup.full-cache.periodic-reload.schedule-mode' must be "
		                  "'FIXED_DELAY' or 'FIXED_RATE', not '%s'", t, v);
	f->fixed_rate = v && !strcasecmp(v, "FIXED_RATE");
	return 0;
}

/*
 * Reads and checks the 'lookup.*' options of filesystem table a (as a
 * lookup would), so that they count as read when the table is scanned:
 * the filesystem source calls it from its open.  Returns 0 or SL_EINVAL
 * with err set for a value a lookup would refuse.
 */
int sl__fs_lookup_options(const sl_conn_args *a, sl_err *err)
{
	fs_lookup f;
	memset(&f, 0, sizeof(f));
	f.base.table = a->table;
	return read_options(&f, a->opts, err);
}

/* Reads the 'lookup.*' options and, through a filesystem source configured
 * and freed at once, 'path', 'format' and its options; no I/O. */
static int fsl_configure(sl_lookup *l, const sl_conn_args *a, const int *keys, int nkeys,
                         sl_err *err)
{
	fs_lookup *f = (fs_lookup *)l;
	f->args = *a;
	/* every instance of a lookup join reads the whole table, not a share
	 * of a scan's splits */
	f->args.subtask = 0;
	f->args.nsubtasks = 1;
	a = &f->args;
	f->path = sl_opts_get(a->opts, "path");
	int rc = read_options(f, a->opts, err);
	if (rc)
		return rc;
	sl_source *s = sl_source_new(&sl_filesystem_source_vtab, a, err);
	if (!s)
		return err->code ? err->code : SL_EINVAL;
	int changelog = s->dec && s->dec->vt->changelog;
	sl_source_free(s);
	if (changelog)
		return sl_err_set(err, SL_EINVAL, "table '%s': a lookup table must be append-only, "
		                  "but its format is a changelog", a->table);
	f->keys = malloc(sizeof(int) * (size_t)(nkeys + 1));
	sl_type *types = malloc(sizeof(sl_type) * (size_t)(a->nfields + 1));
	if (f->keys && types) {
		for (int i = 0; i < a->nfields; i++)
			types[i] = a->fields[i].type;
		f->batch = sl_batch_new(a->nfields, types, 0);
	}
	free(types);
	if (!f->keys || !f->batch)
		return sl_err_set(err, SL_ENOMEM, "table '%s': out of memory", a->table);
	memcpy(f->keys, keys, sizeof(int) * (size_t)nkeys);
	f->nkeys = nkeys;
	return 0;
}

/* At job start: the table's path must exist (a source opened and closed at
 * once, so the message is the scan's); it is read at the first lookup. */
static int fsl_open(sl_lookup *l, sl_err *err)
{
	fs_lookup *f = (fs_lookup *)l;
	sl_source *s = sl_source_new_open(&sl_filesystem_source_vtab, &f->args, err);
	if (!s)
		return err->code ? err->code : SL_EIO;
	sl_source_free(s);
	return 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

/* A signature of the table's files: names, sizes, modification times. */
static uint64_t files_sig(const char *path)
{
	struct stat st;
	if (stat(path, &st))
		return 1;
	uint64_t h = mix(0, (uint64_t)st.st_size);
	h = mix(h, (uint64_t)st.st_mtim.tv_sec * 1000000000ULL + (uint64_t)st.st_mtim.tv_nsec);
	if (!S_ISDIR(st.st_mode))
		return h;
	DIR *d = opendir(path);
	if (!d)
		return h;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || e->d_name[0] == '_' ||
		    fstatat(dirfd(d), e->d_name, &st, 0))
			continue;
		uint64_t n = sl_hash_bytes(e->d_name, strlen(e->d_name), 0);
		n = mix(n, (uint64_t)st.st_size);
		n = mix(n, (uint64_t)st.st_mtim.tv_sec * 1000000000ULL + (uint64_t)st.st_mtim.tv_nsec);
		h += n; /* order-independent: readdir order is unspecified */
	}
	closedir(d);
	return h;
}

/* qsort_r comparator of entries (key bytes, then arrival); ctx is the
 * fs_lookup whose keys they index. */
static int cmp_ent(const void *a, const void *b, void *ctx)
{
	const fs_ent *x = a, *y = b;
	const fs_lookup *f = ctx;
	uint32_t n = x->klen < y->klen ? x->klen : y->klen;
	int c = memcmp(f->kbuf.p + x->koff, f->kbuf.p + y->koff, n);
	if (c)
		return c;
	if (x->klen != y->klen)
		return x->klen < y->klen ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Indexes the rows of the read batch. */
static int index_batch(fs_lookup *f, sl_err *err)
{
	sl_batch *b = f->batch;
	for (int row = 0; row < b->nrows; row++) {
		if (sl_rowcodec_key_null(b, f->keys, f->nkeys, row))
			continue;
		if (f->nents == f->cap) {
			uint32_t cap = f->cap ? f->cap * 2 : 1024;
			fs_ent *n = realloc(f->ents, sizeof(fs_ent) * cap);
			if (!n)
				return sl_err_set(err, SL_ENOMEM, "table '%s': out of memory", f->base.table);
			f->ents = n;
			f->cap = cap;
		}
		fs_ent *e = &f->ents[f->nents];
		e->koff = (uint32_t)f->kbuf.len;
		e->roff = (uint32_t)f->rbuf.len;
		e->seq = f->nents;
		uint32_t len = 0;
		if (sl_rowcodec_key(b, f->keys, f->nkeys, row, &f->kbuf) ||
		    sl_buf_append(&f->rbuf, &len, 4) || sl_rowcodec_row(b, row, &f->rbuf))
			return sl_err_set(err, SL_ENOMEM, "table '%s': out of memory", f->base.table);
		e->klen = (uint32_t)(f->kbuf.len - e->koff);
		len = (uint32_t)(f->rbuf.len - e->roff - 4);
		memcpy(f->rbuf.p + e->roff, &len, 4);
		e->rlen = 4 + len;
		f->nents++;
		if (f->kbuf.len > UINT32_MAX / 2 || f->rbuf.len > UINT32_MAX / 2)
			return sl_err_set(err, SL_ENOTSUP, "table '%s': a lookup table over 2 GB is not "
			                  "supported", f->base.table);
	}
	return 0;
}

#define KEY_SEED 0x6c6b7570u

static const char *ent_key(const fs_lookup *f, const fs_ent *e)
{
	return f->kbuf.p + e->koff;
}

/* The hash table of the sorted entries: each key's first entry. */
static int index_keys(fs_lookup *f, sl_err *err)
{
	uint32_t n = 16;
	while (n < 2 * (uint64_t)f->nents + 2 && n < (1u << 31))
		n *= 2;
	if (n != f->nslots) {
		uint32_t *ns = realloc(f->slots, sizeof(uint32_t) * n);
		if (!ns)
			return sl_err_set(err, SL_ENOMEM, "table '%s': out of memory", f->base.table);
		f->slots = ns;
		f->nslots = n;
	}
	memset(f->slots, 0, sizeof(uint32_t) * n);
	for (uint32_t i = 0; i < f->nents; i++) {
		const fs_ent *e = &f->ents[i];
		if (i && e->klen == e[-1].klen && !memcmp(ent_key(f, e), ent_key(f, e - 1), e->klen))
			continue; /* not the key's first entry */
		uint32_t h = (uint32_t)sl_hash_bytes(ent_key(f, e), e->klen, KEY_SEED) & (n - 1);
		while (f->slots[h])
			h = (h + 1) & (n - 1);
		f->slots[h] = i + 1;
	}
	return 0;
}

/* Reads the whole table into the index (replacing the previous one). */
static int64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int load(fs_lookup *f, int64_t now, sl_err *err)
{
	int64_t t0 = mono_us();
	f->load_start = now;
	f->sig = files_sig(f->path);
	sl_buf_clear(&f->kbuf);
	sl_buf_clear(&f->rbuf);
	f->nents = 0;
	if (f->nslots) /* a failed read must leave no entry behind */
		memset(f->slots, 0, sizeof(uint32_t) * f->nslots);
	sl_source *s = sl_source_new_open(&sl_filesystem_source_vtab, &f->args, err);
	if (!s)
		return err->code ? err->code : SL_EIO;
	int rc;
	for (;;) {
		sl_batch_reset(f->batch);
		rc = s->vt->read(s, f->batch, err);
		if (rc == SL_EEOF || rc == 0) {
			rc = 0;
			break;
		}
		if (rc < 0 || (rc = index_batch(f, err)))
			break;
	}
	sl_source_free(s);
	if (rc) {
		sl_err_prefix(err, "lookup join");
		return rc;
	}
	qsort_r(f->ents, f->nents, sizeof(fs_ent), cmp_ent, f);
	if ((rc = index_keys(f, err)))
		return rc;
	f->loaded = 1;
	f->load_end = now + (mono_us() - t0); /* the read's end, on the caller's clock */
	f->base.loads++;
	return 0;
}

/* Whether the table must be read (again) before answering at `now`. */
static int stale(fs_lookup *f, int64_t now)
{
	if (!f->loaded)
		return 1;
	if (f->mode == CACHE_NONE) {
		if (now == f->checked_at)
			return 0;
		f->checked_at = now;
		return files_sig(f->path) != f->sig;
	}
	if (!f->interval_us)
		return 0;
	return now - (f->fixed_rate ? f->load_start : f->load_end) >= f->interval_us;
}

static int fsl_lookup(sl_lookup *l, const void *key, uint32_t klen, int64_t now,
                      const void **rows, uint32_t *len, sl_err *err)
{
	fs_lookup *f = (fs_lookup *)l;
	int rc;
	if (stale(f, now) && (rc = load(f, now, err)))
		return rc;
	f->checked_at = now;
	sl_buf_clear(&f->result);
	*rows = NULL;
	*len = 0;
	uint32_t mask = f->nslots - 1, lo = UINT32_MAX;
	for (uint32_t h = (uint32_t)sl_hash_bytes(key, klen, KEY_SEED) & mask; f->slots[h];
	     h = (h + 1) & mask) {
		const fs_ent *e = &f->ents[f->slots[h] - 1];
		if (e->klen == klen && !memcmp(ent_key(f, e), key, klen)) {
			lo = f->slots[h] - 1;
			break;
		}
	}
	if (lo == UINT32_MAX)
		return 0; /* no row has the key */
	const fs_ent *first = &f->ents[lo];
	if (lo + 1 == f->nents || first[1].klen != klen || memcmp(ent_key(f, first + 1), key, klen)) {
		*rows = f->rbuf.p + first->roff; /* one row: its bytes in place */
		*len = first->rlen;
		return 0;
	}
	for (uint32_t i = lo; i < f->nents; i++) {
		const fs_ent *e = &f->ents[i];
		if (e->klen != klen || memcmp(f->kbuf.p + e->koff, key, klen))
			break;
		if (sl_buf_append(&f->result, f->rbuf.p + e->roff, e->rlen))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	*rows = f->result.p;
	*len = (uint32_t)f->result.len;
	return 0;
}

static void fsl_close(sl_lookup *l)
{
	fs_lookup *f = (fs_lookup *)l;
	sl_batch_free(f->batch);
	sl_buf_deinit(&f->kbuf);
	sl_buf_deinit(&f->rbuf);
	sl_buf_deinit(&f->result);
	free(f->ents);
	free(f->slots);
	free(f->keys);
}

/* The filesystem source's lookup method table (conn_filesystem.c points
 * its source vtab's `lookup` here). */
const sl_lookup_vtab sl__fs_lookup_vtab = {
	.size = sizeof(fs_lookup),
	.configure = fsl_configure,
	.open = fsl_open,
	.lookup = fsl_lookup,
	.close = fsl_close,
};

sl_lookup *sl_lookup_new(const sl_lookup_vtab *vt, const sl_conn_args *a, const int *keys,
                         int nkeys, sl_err *err)
{
	size_t size = vt->size < sizeof(sl_lookup) ? sizeof(sl_lookup) : vt->size;
	sl_lookup *l = calloc(1, size);
	if (!l) {
		sl_err_set(err, SL_ENOMEM, "table '%s': out of memory", a->table);
		return NULL;
	}
	l->vt = vt;
	l->table = a->table;
	int rc = vt->configure(l, a, keys, nkeys, err);
	if (rc < 0) {
		if (!err->code)
			sl_err_set(err, rc, "table '%s': cannot open for lookups", a->table);
		sl_lookup_free(l);
		return NULL;
	}
	return l;
}

int sl_lookup_open(sl_lookup *l, sl_err *err)
{
	int rc = l->vt->open ? l->vt->open(l, err) : 0;
	if (rc < 0 && !err->code)
		sl_err_set(err, rc, "table '%s': cannot open for lookups", l->table);
	return rc < 0 ? rc : 0;
}

void sl_lookup_free(sl_lookup *l)
{
	if (!l)
		return;
	if (l->vt->close)
		l->vt->close(l);
	free(l);
}
