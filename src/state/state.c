/*
 * state.c - the backend registry and the backend-level dispatch of state.h.
 *
 * A backend is chosen by type name when a job starts ('state.backend.type',
 * Flink's key): "hashmap" (state_mem.c, alias "memory") or "rocksdb"
 * (state_rocksdb.c).  Each backend's open function returns a struct whose
 * first member is its method table; the per-table calls of state.h are
 * inline indirect calls through it, the backend-level ones are here, with
 * the key-group helpers every backend shares (docs/state.md "Key groups").
 */
#include "state_backends.h"
#include "sluice.h"

#include <stdint.h>
#include <string.h>

#include "../base/opts.h"
#include "../data/keygroup.h"

int sl_state_backend_open2(const char *type, const struct sl_opts *opts, const char *job_dir,
                           sl_state_backend **out, sl_err *err)
{
	*out = NULL;
	int64_t maxp = SL_KG_DEFAULT_MAXP;
	if (opts && sl_opts_int(opts, "pipeline.max-parallelism", SL_KG_DEFAULT_MAXP, &maxp, err))
		return SL_EINVAL;
	if (maxp < 1 || maxp > SL_KG_MAX_MAXP)
		return sl_err_set(err, SL_EINVAL, "'pipeline.max-parallelism' must be between 1 and "
		                  "%d, not %lld", SL_KG_MAX_MAXP, (long long)maxp);
	int rc;
	if (!type || !strcmp(type, "hashmap") || !strcmp(type, "memory"))
		rc = sl__state_mem_open(opts, job_dir, out, err);
	else if (!strcmp(type, "rocksdb"))
		rc = sl__state_rocksdb_open(opts, job_dir, out, err);
	else
		return sl_err_set(err, SL_EINVAL,
		                  "unknown state backend '%s' (supported: 'hashmap', 'rocksdb')", type);
	/* every group of 'pipeline.max-parallelism': the one instance of p = 1
	 * (the parallel runtime narrows each instance's range) */
	if (!rc)
		rc = sl_state_set_key_groups(*out, (int)maxp, 0, (int)maxp - 1, err);
	return rc;
}

int sl_state_backend_open(const char *type, sl_state_backend **out, sl_err *err)
{
	return sl_state_backend_open2(type, NULL, NULL, out, err);
}

void sl_state_backend_close(sl_state_backend *be)
{
	if (be)
		sl__be_vt(be)->close(be);
}

const char *sl_state_backend_type(const sl_state_backend *be)
{
	return sl__be_vt(be)->name;
}

int sl_state_backend_can_fork(const sl_state_backend *be)
{
	return sl__be_vt(be)->can_fork;
}

uint64_t sl_state_backend_mem(const sl_state_backend *be)
{
	return sl__be_vt(be)->mem(be);
}

static int count_cb(void *ctx, const void *key, uint32_t klen, void *val, uint32_t vlen,
                    sl_err *err)
{
	uint64_t *c = ctx; /* counted, cap */
	return ++c[0] >= c[1];
}

uint64_t sl_state_ns_count(sl_state_table *t, int64_t ns, uint64_t cap)
{
	const sl_state_vt *vt = sl__tab_vt(t);
	if (vt->ns_count)
		return vt->ns_count(t, ns);
	uint64_t c[2] = {0, cap ? cap : 1};
	sl_err e;
	sl_err_clear(&e);
	vt->ns_scan(t, ns, count_cb, c, &e);
	return c[0];
}

uint64_t sl_state_op_size(const sl_state_backend *be, const char *op_uid, uint64_t *entries)
{
	*entries = 0;
	const sl_state_vt *vt = sl__be_vt(be);
	return vt->op_size ? vt->op_size(be, op_uid, entries) : 0;
}

int sl_state_flush(sl_state_backend *be, sl_err *err)
{
	return sl__be_vt(be)->flush(be, err);
}

int sl_state_snapshot(sl_state_backend *be, const char *op_uid, sl_snap_writer *w, sl_err *err)
{
	return sl__be_vt(be)->snapshot(be, op_uid, w, err);
}

int sl_state_restore(sl_state_backend *be, sl_snap_reader *r, sl_err *err)
{
	return sl__be_vt(be)->restore(be, r, 0, err);
}

int sl_state_restore_merge(sl_state_backend *be, sl_snap_reader *r, sl_err *err)
{
	return sl__be_vt(be)->restore(be, r, 1, err);
}

/* ---- key groups ---------------------------------------------------------- */

/* Every backend's struct starts with its method table, then its groups. */
typedef struct be_head {
	const sl_state_vt *vt;
	sl_state_kgs kgs;
} be_head;

int sl_state_set_key_groups(sl_state_backend *be, int maxp, int first, int last, sl_err *err)
{
	if (maxp < 1 || maxp > SL_KG_MAX_MAXP || first < 0 || last < first || last >= maxp)
		return sl_err_set(err, SL_EINVAL, "bad key groups %d..%d of %d", first, last, maxp);
	sl_state_kgs *k = &((be_head *)be)->kgs;
	k->maxp = maxp;
	k->first = first;
	k->last = last;
	return 0;
}

void sl_state_get_key_groups(const sl_state_backend *be, sl_state_kgs *out)
{
	*out = ((const be_head *)be)->kgs;
}

int sl_state_pkey_group(const sl_state_pkey *pk, const void *key, uint32_t klen, const void *val,
                        uint32_t vlen, int maxp)
{
	if (!pk->fn)
		return sl_keygroup_of(key, klen, maxp);
	const void *p = NULL;
	uint32_t n = pk->fn(pk->ctx, key, klen, val, vlen, &p);
	return sl_keygroup_of(p, n, maxp);
}

uint32_t sl_state_pkey_cols(const void *ctx, const void *key, uint32_t klen, const void *val,
                            uint32_t vlen, const void **pk)
{
	const sl_state_pkey_cols_ctx *c = ctx;
	int64_t n = sl_keygroup_key_prefix(key, klen, c->types, c->n);
	*pk = key;
	return n < 0 ? klen : (uint32_t)n;
}

int sl__state_kg_check(const sl_state_kgs *k, const sl_snap_tab *t, int *first, int *last,
                       int *compute, sl_err *err)
{
	*compute = 0;
	/* A grouped record fixes the number of key groups for the life of the
	 * job's state: every key's group depends on it, so a snapshot taken
	 * with another 'pipeline.max-parallelism' is refused, whatever the
	 * parallelism (docs/parallel.md section 7; Flink refuses to change the
	 * max parallelism of a savepoint).  An ungrouped record (written before
	 * key groups, tests/fixtures/ckpt-v1) has no groups to disagree with:
	 * the group of each entry is computed. */
	if (t->maxp && (int)t->maxp != k->maxp)
		return sl_err_set(err, SL_ESTATE, "state table '%s' was written with "
		                  "'pipeline.max-parallelism' = %u and the job has %d: the max "
		                  "parallelism of a job's state cannot change; restore with "
		                  "'pipeline.max-parallelism' = '%u' or start without the "
		                  "checkpoint", t->name, t->maxp, k->maxp, t->maxp);
	if (k->first == 0 && k->last == k->maxp - 1) { /* every group */
		*first = 0;
		*last = INT32_MAX;
		return 0;
	}
	*first = k->first;
	*last = k->last;
	*compute = !t->maxp; /* an ungrouped record: the group of each entry */
	return 0;
}

void sl_state_regions(sl_state_backend *be, void (*cb)(void *ctx, void *base, size_t len),
                      void *ctx)
{
	if (sl__be_vt(be)->regions)
		sl__be_vt(be)->regions(be, cb, ctx);
}

/* Every backend's struct sl_state_snap starts with its backend. */
static sl_state_backend *snap_be(const sl_state_snap *s)
{
	return *(sl_state_backend *const *)s;
}

int sl_state_snap_begin(sl_state_backend *be, const char *op_uid, sl_state_snap **out,
                        sl_err *err)
{
	const sl_state_vt *vt = sl__be_vt(be);
	*out = NULL;
	if (!vt->snap_begin)
		return SL_ENOTSUP;
	*out = vt->snap_begin(be, op_uid, err);
	return *out ? 0 : SL_ENOMEM;
}

int sl_state_snap_write(sl_state_snap *s, sl_snap_writer *w, sl_err *err)
{
	return sl__be_vt(snap_be(s))->snap_write(s, w, err);
}

void sl_state_snap_free(sl_state_snap *s)
{
	if (s)
		sl__be_vt(snap_be(s))->snap_free(s);
}

int sl__state_update_var_rmw(sl_state_table *t, int64_t ns, const void *key, uint32_t klen,
                             uint32_t vlen, sl_state_update_cb cb, void *ctx)
{
	char buf[SL_STATE_UPDATE_MAX];
	const void *v;
	uint32_t vl;
	if (vlen == 0 || vlen > sizeof(buf))
		return SL_EINVAL;
	int present = sl_state_get_var(t, ns, key, klen, &v, &vl);
	if (present && vl != vlen)
		return SL_ESTATE;
	if (present)
		memcpy(buf, v, vlen); /* v lasts until the next call on t */
	else
		memset(buf, 0, vlen);
	int rc = cb(ctx, buf, vlen, present);
	if (rc < 0)
		return rc;
	if (rc)
		return sl_state_put_var(t, ns, key, klen, buf, vlen);
	if (present)
		sl_state_delete(t, ns, key, klen);
	return 0;
}
