/*
 * state.c - the backend registry and the backend-level dispatch of state.h.
 *
 * A backend is chosen by type name when a job starts ('state.backend.type',
 * Flink's key): "hashmap" (state_mem.c, alias "memory") or "rocksdb"
 * (state_rocksdb.c).  Each backend's open function returns a struct whose
 * first member is its method table; the per-table calls of state.h are
 * inline indirect calls through it, the backend-level ones are here.
 */
#include "state_backends.h"
#include "sluice.h"

#include <string.h>

int sl_state_backend_open2(const char *type, const struct sl_opts *opts, const char *job_dir,
                           sl_state_backend **out, sl_err *err)
{
	*out = NULL;
	if (!type || !strcmp(type, "hashmap") || !strcmp(type, "memory"))
		return sl__state_mem_open(opts, job_dir, out, err);
	if (!strcmp(type, "rocksdb"))
		return sl__state_rocksdb_open(opts, job_dir, out, err);
	return sl_err_set(err, SL_EINVAL,
	                  "unknown state backend '%s' (supported: 'hashmap', 'rocksdb')", type);
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
	return sl__be_vt(be)->restore(be, r, err);
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
