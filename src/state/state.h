/*
 * state.h - the one interface to operator state.
 *
 * Every piece of state an operator keeps across batches (window
 * accumulators, group aggregates, late counters, pending rows) lives in
 * state tables obtained here, so that one snapshot of the backend captures
 * the whole job and no operator knows which backend it runs on.
 *
 * Model (Flink's keyed state with namespaces):
 *   A table maps (namespace, key) -> value.  The namespace is an int64 the
 *   operator chooses (a window's end for window state, 0 otherwise); the key
 *   is an opaque byte string (an encoded group key); the value is either a
 *   fixed-size slot (val_size > 0, zero-filled when created) or a variable-
 *   length byte string (val_size == 0).  Namespaces are ordered, so an
 *   operator can find the smallest one (the next window to fire), scan it,
 *   and drop it whole.
 *
 * Pointer validity: a slot pointer returned by sl_state_upsert/get stays
 * valid until the next call on the same table; writes through it persist
 * (the memory backend updates in place; a read-modify-write backend writes
 * the slot back at the next call or at sl_state_flush).
 *
 * Snapshots: sl_state_snapshot writes every table of the backend through an
 * sl_snap_writer in a backend-independent format (table name, namespace,
 * key, value records, grouped by key group) and sl_state_restore reads it
 * back into any backend, only the key groups the backend holds.
 *
 * Key groups (docs/state.md "Key groups"): every entry belongs to the key
 * group of its operator's partitioning key, by default the whole key;
 * sl_state_table_set_pkey names another part (a key prefix, a key kept in
 * the value).  Groups are computed only when state is snapshotted or
 * restored, never on the per-row calls.
 *
 * Backends: the functions below dispatch through the backend's method
 * table (struct sl_state_vt); the per-table ones are inline one-line
 * indirect calls (state.c has the rest and the registry of type names).
 *
 * Not thread-safe: one thread (the job's) uses a backend.
 */
#ifndef SL_STATE_H
#define SL_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "../base/err.h"
#include "../base/hash.h"

/* ---- snapshot streams ----------------------------------------------------- */

/* An append-only byte buffer that snapshots are written into. */
typedef struct sl_snap_writer {
	uint8_t *buf;
	size_t len, cap;
	int failed; /* set when an allocation or a write failed; later puts are no-ops */
	/* Streaming (sl_snap_writer_stream): bytes past 1 MiB go to fd, with a
	 * running CRC32C; buf holds only the unflushed tail. */
	int fd;
	uint32_t crc;
	uint64_t flushed;
} sl_snap_writer;

/* Makes w write through to fd (streaming a large snapshot to a file without
 * holding it in memory).  sl_snap_writer_flush writes the tail; afterwards
 * flushed is the total size and crc its CRC32C. */
void sl_snap_writer_stream(sl_snap_writer *w, int fd);
int sl_snap_writer_flush(sl_snap_writer *w);

void sl_snap_writer_init(sl_snap_writer *w);
void sl_snap_writer_deinit(sl_snap_writer *w);
void sl_snap_put_u8(sl_snap_writer *w, uint8_t v);
void sl_snap_put_u32(sl_snap_writer *w, uint32_t v);
void sl_snap_put_i64(sl_snap_writer *w, int64_t v);
void sl_snap_put_bytes(sl_snap_writer *w, const void *p, size_t n); /* length-prefixed */
void sl_snap_put_raw(sl_snap_writer *w, const void *p, size_t n);   /* no prefix */

/* Reads what a writer wrote.  Every get checks bounds: reading past the
 * end or a bad length sets `failed` and returns zeros, so a damaged
 * snapshot is detected (sl_snap_reader_ok) rather than crashing. */
typedef struct sl_snap_reader {
	const uint8_t *buf;
	size_t len, pos;
	int failed;
	/* Optional (NULL after sl_snap_reader_init; kept by copies of the
	 * reader): rewrites each state table name sl_snap_get_table reads, in
	 * place (NUL-terminated, at most 255 bytes).  A restore of a snapshot
	 * whose operator ids are of an older scheme maps them to the job's
	 * (exec/graph.c), so every backend restores under the new names. */
	void (*rename)(void *ctx, char name[256]);
	void *rename_ctx;
	/* Optional, likewise: a table (after rename) for which keep returns 0
	 * is skipped whole by sl_snap_get_tab / sl_snap_get_table, as if the
	 * snapshot did not hold it.  A rescaled parallel job restores each old
	 * instance's snapshot into every new instance holding one of its
	 * operators, each taking only its operators' tables (exec/graph.c). */
	int (*keep)(void *ctx, const char *name);
	void *keep_ctx;
} sl_snap_reader;

void sl_snap_reader_init(sl_snap_reader *r, const void *buf, size_t len);
uint8_t sl_snap_get_u8(sl_snap_reader *r);
uint32_t sl_snap_get_u32(sl_snap_reader *r);
int64_t sl_snap_get_i64(sl_snap_reader *r);
/* Returns a pointer into the buffer and sets *n; NULL on failure. */
const void *sl_snap_get_bytes(sl_snap_reader *r, size_t *n);
const void *sl_snap_get_raw(sl_snap_reader *r, size_t n);
static inline int sl_snap_reader_ok(const sl_snap_reader *r) { return !r->failed; }

/* ---- backends and tables ------------------------------------------------- */

typedef struct sl_state_backend sl_state_backend;
typedef struct sl_state_table sl_state_table;
typedef struct sl_state_vt sl_state_vt;
struct sl_opts;

/*
 * Callback of sl_state_ns_scan / sl_state_scan: one entry.  val may be
 * modified in place (the change persists).  Returns 0 to continue, or
 * non-zero to stop, which the scan returns: a negative SL_E* code with
 * the message in err (the error sink the scan was given, so callbacks
 * need no error pointer of their own), or a positive value to stop early
 * without an error.
 */
typedef int (*sl_state_scan_cb)(void *ctx, const void *key, uint32_t klen, void *val,
                                uint32_t vlen, sl_err *err);

typedef uint32_t (*sl_state_pkey_fn)(const void *ctx, const void *key, uint32_t klen,
                                     const void *val, uint32_t vlen, const void **pk);

/*
 * Callback of sl_state_update_var: val holds the entry's value (vlen
 * bytes; zeroed, present 0, when there is no entry) and may be changed.
 * Returns 1 to store val, 0 to remove the entry (or not create it), or a
 * negative SL_E* code, which the update returns with nothing changed.
 */
typedef int (*sl_state_update_cb)(void *ctx, void *val, uint32_t vlen, int present);

/* The largest value sl_state_update_var takes. */
#define SL_STATE_UPDATE_MAX 64

/*
 * The method table of a backend (state_mem.c: "hashmap", state_rocksdb.c:
 * "rocksdb").  Every backend's struct sl_state_backend and struct
 * sl_state_table start with `const sl_state_vt *vt`, so the functions below
 * dispatch without knowing the backend.  Each method has the contract of
 * the sl_state_* function of the same name.
 */
struct sl_state_vt {
	const char *name;  /* the type name it is opened by */
	int can_fork;      /* 1 when a forked child may read the backend */
	void (*close)(sl_state_backend *be);
	sl_state_table *(*table_open)(sl_state_backend *be, const char *op_uid, const char *name,
	                              uint32_t val_size, sl_err *err);
	void *(*upsert_h)(sl_state_table *t, int64_t ns, const void *key, uint32_t klen,
	                  uint32_t hash, int *created);
	void (*prefetch)(sl_state_table *t, int64_t ns, uint32_t hash, int stage); /* may be NULL */
	void *(*get)(sl_state_table *t, int64_t ns, const void *key, uint32_t klen);
	int (*get_var)(sl_state_table *t, int64_t ns, const void *key, uint32_t klen,
	               const void **val, uint32_t *vlen);
	int (*put_var)(sl_state_table *t, int64_t ns, const void *key, uint32_t klen,
	               const void *val, uint32_t vlen);
	/* may be NULL: sl_state_update_var then reads with get_var and
	 * writes with put_var / del */
	int (*update_var)(sl_state_table *t, int64_t ns, const void *key, uint32_t klen,
	                  uint32_t vlen, sl_state_update_cb cb, void *ctx);
	void (*del)(sl_state_table *t, int64_t ns, const void *key, uint32_t klen);
	int (*ns_first)(sl_state_table *t, int64_t *ns);
	int (*ns_next)(sl_state_table *t, int64_t after, int64_t *ns);
	int (*ns_scan)(sl_state_table *t, int64_t ns, sl_state_scan_cb cb, void *ctx, sl_err *err);
	int (*scan)(sl_state_table *t, sl_state_scan_cb cb, void *ctx, sl_err *err);
	void (*ns_drop)(sl_state_table *t, int64_t ns);
	uint64_t (*count)(const sl_state_table *t);
	uint64_t (*mem)(const sl_state_backend *be);
	int (*flush)(sl_state_backend *be, sl_err *err);
	int (*snapshot)(sl_state_backend *be, const char *op_uid, sl_snap_writer *w, sl_err *err);
	int (*restore)(sl_state_backend *be, sl_snap_reader *r, int merge, sl_err *err);
	void (*set_pkey)(sl_state_table *t, sl_state_pkey_fn fn, const void *ctx);
	/* Two-step snapshots (may be NULL: the backend has only `snapshot`);
	 * see sl_state_snap_begin. */
	struct sl_state_snap *(*snap_begin)(sl_state_backend *be, const char *op_uid, sl_err *err);
	int (*snap_write)(struct sl_state_snap *s, sl_snap_writer *w, sl_err *err);
	void (*snap_free)(struct sl_state_snap *s);
	/* The backend's huge-page memory regions, one cb call each (may be
	 * NULL: none).  See sl_state_regions. */
	void (*regions)(sl_state_backend *be, void (*cb)(void *ctx, void *base, size_t len),
	                void *ctx);
	/* Entries of namespace ns (may be NULL: see sl_state_ns_count). */
	uint64_t (*ns_count)(const sl_state_table *t, int64_t ns);
	/* Size of one operator's tables (may be NULL: see sl_state_op_size). */
	uint64_t (*op_size)(const sl_state_backend *be, const char *op_uid, uint64_t *entries);
	/* Map tables (see sl_state_table_set_prefix; every backend and the
	 * TTL wrapper have them). */
	void (*set_prefix)(sl_state_table *t, sl_state_pkey_fn fn, const void *ctx);
	int (*prefix_scan)(sl_state_table *t, int64_t ns, const void *prefix, uint32_t plen,
	                   sl_state_scan_cb cb, void *ctx, sl_err *err);
};

/* The first member of every backend's backend and table structs. */
static inline const sl_state_vt *sl__be_vt(const sl_state_backend *be)
{
	return *(const sl_state_vt *const *)be;
}
static inline const sl_state_vt *sl__tab_vt(const sl_state_table *t)
{
	return *(const sl_state_vt *const *)t;
}

/* Opens a backend by type name: "hashmap" (alias "memory") or "rocksdb";
 * NULL means "hashmap".  Returns 0 and sets *out, or SL_EINVAL for an
 * unknown type (message in err). */
int sl_state_backend_open(const char *type, sl_state_backend **out, sl_err *err);

/*
 * The same with the session's options (may be NULL) for the backend's
 * settings ('state.backend.rocksdb.localdir', '...memory.fixed-per-slot';
 * docs/state.md), the number of key groups ('pipeline.max-parallelism',
 * 1..32768, default 128; the backend holds all of them) and the job's
 * state directory (may be NULL) for the default local directory.  Returns 0, SL_EINVAL (bad type or option) or
 * SL_EIO (the backend could not be created), with err set.
 */
int sl_state_backend_open2(const char *type, const struct sl_opts *opts, const char *job_dir,
                           sl_state_backend **out, sl_err *err);

/* Frees the backend and all its tables (and its local files).  Safe on NULL. */
void sl_state_backend_close(sl_state_backend *be);

/* The backend's type name ("hashmap", "rocksdb"). */
const char *sl_state_backend_type(const sl_state_backend *be);

/* 1 when a forked child may snapshot the backend (memory: its copy-on-
 * write image is the barrier's state), 0 when not (RocksDB runs background
 * threads; fork() of a multi-threaded process is unsafe). */
int sl_state_backend_can_fork(const sl_state_backend *be);

/*
 * Opens (or returns the already open) table `name` of operator `op_uid`.
 * val_size > 0: fixed-size slots; 0: variable-length values.  The table
 * belongs to the backend (no close).  Returns NULL with err set on failure
 * or when an open table of that name has a different val_size.
 */
static inline sl_state_table *sl_state_table_open(sl_state_backend *be, const char *op_uid,
                                                  const char *name, uint32_t val_size,
                                                  sl_err *err)
{
	return sl__be_vt(be)->table_open(be, op_uid, name, val_size, err);
}

/* Hash of a key as the state tables compute it (never 0). */
static inline uint32_t sl_state_hash(const void *key, uint32_t klen)
{
	uint32_t h = (uint32_t)sl_hash_bytes(key, klen, 0);
	return h ? h : 1;
}

/* Fixed-size tables: the slot for (ns, key) with the key's hash
 * precomputed by sl_state_hash (hashing once per row when the caller also
 * prefetches), creating a zeroed one when absent (*created = 1, created may
 * be NULL).  NULL only when out of memory (or an I/O error). */
static inline void *sl_state_upsert_h(sl_state_table *t, int64_t ns, const void *key,
                                      uint32_t klen, uint32_t hash, int *created)
{
	return sl__tab_vt(t)->upsert_h(t, ns, key, klen, hash, created);
}

/* The same, hashing the key. */
static inline void *sl_state_upsert(sl_state_table *t, int64_t ns, const void *key,
                                    uint32_t klen, int *created)
{
	return sl_state_upsert_h(t, ns, key, klen, sl_state_hash(key, klen), created);
}

/* A hint that (ns, key with this hash) will be looked up soon: stage 0
 * loads its index slot into cache, a later stage 1 call the entry.  For a
 * map table (sl_state_table_set_prefix), stages 2 and 3 do the same for
 * the group of a key prefix with this hash (sl_state_hash of the prefix),
 * which an insert of a new key of that prefix looks up.  No effect on
 * contents; a no-op when ns does not exist. */
static inline void sl_state_prefetch(sl_state_table *t, int64_t ns, uint32_t hash, int stage)
{
	const sl_state_vt *vt = sl__tab_vt(t);
	if (vt->prefetch)
		vt->prefetch(t, ns, hash, stage);
}

/* Fixed-size tables: the slot for (ns, key) or NULL when absent. */
static inline void *sl_state_get(sl_state_table *t, int64_t ns, const void *key, uint32_t klen)
{
	return sl__tab_vt(t)->get(t, ns, key, klen);
}

/* Variable-length tables: sets (*val, *vlen) and returns 1 when present,
 * 0 when absent.  The bytes stay valid until the next call on t. */
static inline int sl_state_get_var(sl_state_table *t, int64_t ns, const void *key,
                                   uint32_t klen, const void **val, uint32_t *vlen)
{
	return sl__tab_vt(t)->get_var(t, ns, key, klen, val, vlen);
}

/* Variable-length tables: stores a copy of val.  Returns 0 or SL_ENOMEM
 * (SL_EIO for a backend write error). */
static inline int sl_state_put_var(sl_state_table *t, int64_t ns, const void *key,
                                   uint32_t klen, const void *val, uint32_t vlen)
{
	return sl__tab_vt(t)->put_var(t, ns, key, klen, val, vlen);
}

/* sl_state_update_var without the backend's method: get_var, then
 * put_var or delete (state.c). */
int sl__state_update_var_rmw(sl_state_table *t, int64_t ns, const void *key, uint32_t klen,
                             uint32_t vlen, sl_state_update_cb cb, void *ctx);

/* Variable-length tables: reads, changes and writes back the value of
 * (ns, key), of vlen bytes (1..SL_STATE_UPDATE_MAX), in one call: cb sees
 * the value (or zeroes when absent) and decides whether it stays
 * (sl_state_update_cb).  The hashmap backend finds the entry once and
 * changes it in place (a get_var and a put_var hash and look the key up
 * twice: Nexmark q20 stores every bid so); other backends read and write.
 * Returns 0, the callback's negative code, SL_ESTATE when the stored value
 * is not vlen bytes long, or SL_ENOMEM / SL_EIO. */
static inline int sl_state_update_var(sl_state_table *t, int64_t ns, const void *key,
                                      uint32_t klen, uint32_t vlen, sl_state_update_cb cb,
                                      void *ctx)
{
	const sl_state_vt *vt = sl__tab_vt(t);
	if (vt->update_var)
		return vt->update_var(t, ns, key, klen, vlen, cb, ctx);
	return sl__state_update_var_rmw(t, ns, key, klen, vlen, cb, ctx);
}

/* Removes (ns, key) if present (either kind of table). */
static inline void sl_state_delete(sl_state_table *t, int64_t ns, const void *key, uint32_t klen)
{
	sl__tab_vt(t)->del(t, ns, key, klen);
}

/* Smallest namespace holding at least one entry: returns 1 and sets *ns,
 * or 0 when the table is empty. */
static inline int sl_state_ns_first(sl_state_table *t, int64_t *ns)
{
	return sl__tab_vt(t)->ns_first(t, ns);
}

/* Next namespace strictly greater than `after`: 1 and *ns, or 0. */
static inline int sl_state_ns_next(sl_state_table *t, int64_t after, int64_t *ns)
{
	return sl__tab_vt(t)->ns_next(t, after, ns);
}

/*
 * Calls cb for every entry of namespace ns, in an unspecified but
 * deterministic order (memory: the order entries were created; RocksDB:
 * key order), passing err on to it.  cb must not call into t.  Returns 0,
 * the non-zero value cb stopped with, or a negative code of the backend
 * (SL_ENOMEM, SL_EIO) with err set.
 */
static inline int sl_state_ns_scan(sl_state_table *t, int64_t ns, sl_state_scan_cb cb, void *ctx,
                                   sl_err *err)
{
	return sl__tab_vt(t)->ns_scan(t, ns, cb, ctx, err);
}

/* Like ns_scan over every namespace in ascending order. */
static inline int sl_state_scan(sl_state_table *t, sl_state_scan_cb cb, void *ctx, sl_err *err)
{
	return sl__tab_vt(t)->scan(t, cb, ctx, err);
}

/* Removes every entry of namespace ns. */
static inline void sl_state_ns_drop(sl_state_table *t, int64_t ns)
{
	sl__tab_vt(t)->ns_drop(t, ns);
}

/* Number of entries in the table. */
static inline uint64_t sl_state_count(const sl_state_table *t)
{
	return sl__tab_vt(t)->count(t);
}

/* Bytes of memory the backend holds (for stats and tests). */
uint64_t sl_state_backend_mem(const sl_state_backend *be);

/*
 * Entries in namespace ns of t, counted up to `cap` (a backend that keeps
 * per-namespace counts answers exactly whatever cap; others are scanned and
 * stop at cap).  For the live metrics (exec/op_observe.c), on the thread
 * that uses t.
 */
uint64_t sl_state_ns_count(sl_state_table *t, int64_t ns, uint64_t cap);

/*
 * The state of operator op_uid (all its tables "op_uid/..."): returns its
 * size in bytes and sets *entries.  Memory backend: the bytes of its
 * tables' namespaces (entries, chunks and indexes); RocksDB: the SST bytes
 * of its tables' key ranges (GetApproximateSizes) plus their write-back
 * caches.  0 and 0 entries when the backend cannot say.  On the thread that
 * uses the backend (the live metrics publish it from there).
 */
uint64_t sl_state_op_size(const sl_state_backend *be, const char *op_uid, uint64_t *entries);

/*
 * Two-step snapshots, for backends that cannot be forked (RocksDB):
 * sl_state_snap_begin, on the job thread at the barrier, fixes the state
 * to be written (cheaply: a database snapshot plus a copy of unwritten
 * changes) and returns a handle; sl_state_snap_write then writes exactly
 * what sl_state_snapshot would have written at the barrier, and may run on
 * another thread while the job thread goes on using the backend;
 * sl_state_snap_free releases the handle (any thread, after write).
 * sl_state_snap_begin returns SL_ENOTSUP when the backend has no two-step
 * snapshot (the memory backend: it is forked instead), 0 and *out, or
 * SL_ENOMEM.  The backend must outlive the handle.
 */
typedef struct sl_state_snap sl_state_snap;
/* 1 when the backend has two-step snapshots (sl_state_snap_begin works). */
static inline int sl_state_snap_supported(const sl_state_backend *be)
{
	return sl__be_vt(be)->snap_begin != NULL;
}
int sl_state_snap_begin(sl_state_backend *be, const char *op_uid, sl_state_snap **out,
                        sl_err *err);
int sl_state_snap_write(sl_state_snap *s, sl_snap_writer *w, sl_err *err);
void sl_state_snap_free(sl_state_snap *s);

/*
 * Calls cb(ctx, base, len) for each memory region of the backend that is
 * meant to be backed by transparent huge pages (2 MB aligned, len a
 * multiple of 2 MB).  The checkpoint coordinator re-collapses them after a
 * forked writer exits (docs/checkpoints.md, "Huge pages and fork").  A
 * backend without such regions calls nothing.
 */
void sl_state_regions(sl_state_backend *be, void (*cb)(void *ctx, void *base, size_t len),
                      void *ctx);

/* Persists pending slot write-backs (no-op for the memory backend). */
int sl_state_flush(sl_state_backend *be, sl_err *err);

/* The snapshot records (every backend writes and reads these):
 *   SL_SNAP_GTABLE, bytes name ("op_uid/table"), u32 val_size, i64 count,
 *     u32 maxp, u32 nblocks, nblocks x (u32 group, i64 entries, u64 bytes),
 *     u8 ordered, if ordered count x u16 group (the group of each entry in
 *     the backend's order, which a restore of every group reproduces),
 *     then the blocks' entries, block after block in the index's order
 *     (groups ascending, each once): count x (i64 ns, bytes key, bytes value)
 *   ... SL_SNAP_END
 * and, written by earlier versions and still read, ungrouped tables:
 *   SL_SNAP_TABLE, bytes name, u32 val_size, i64 count, count x entry
 * (docs/state.md "Key groups" and "Snapshots"). */
#define SL_SNAP_TABLE 'T'
#define SL_SNAP_GTABLE 'G'
#define SL_SNAP_END 'E'

/* Writers and readers of those records, shared by every backend (snap.c).
 * sl_snap_get_table returns 1 with the next table's header (either kind:
 * a grouped table's index is checked and skipped, so its count entries
 * follow as in an ungrouped one), 0 at SL_SNAP_END, or SL_ESTATE (err
 * set) when the stream is damaged; sl_snap_get_entry returns 0 or
 * SL_ESTATE naming the table. */
void sl_snap_put_table(sl_snap_writer *w, const char *name, uint32_t val_size, int64_t count);
void sl_snap_put_entry(sl_snap_writer *w, int64_t ns, const void *key, size_t klen,
                       const void *val, size_t vlen);
void sl_snap_put_end(sl_snap_writer *w);
int sl_snap_get_table(sl_snap_reader *r, char name[256], uint32_t *val_size, int64_t *count,
                      sl_err *err);
int sl_snap_get_entry(sl_snap_reader *r, const char *table, uint32_t val_size, int64_t *ns,
                      const void **key, size_t *klen, const void **val, size_t *vlen,
                      sl_err *err);
/* Reads past the next count entries of the table (each checked as by
 * sl_snap_get_entry): 0 or SL_ESTATE naming the table. */
int sl_snap_skip_entries(sl_snap_reader *r, const char *table, uint32_t val_size, int64_t count,
                         sl_err *err);

/* ---- key groups (docs/state.md "Key groups") -------------------------------- */

/*
 * sl_state_pkey_fn (declared above the method table): the partitioning
 * key of a table's entry: returns its length and points
 * *pk at its bytes, inside key[0..klen) or val[0..vlen).  Must be a pure
 * function of its arguments and ctx (it runs in a forked child or on the
 * checkpoint writer thread while the job goes on).
 */
/* A table's partitioning key: fn == NULL means the whole key. */
typedef struct sl_state_pkey {
	sl_state_pkey_fn fn;
	const void *ctx;
} sl_state_pkey;

/* The key group (0..maxp-1) of an entry under pk. */
int sl_state_pkey_group(const sl_state_pkey *pk, const void *key, uint32_t klen, const void *val,
                        uint32_t vlen, int maxp);

/* The key groups a backend holds: maxp groups in all, first..last its own. */
typedef struct sl_state_kgs {
	int maxp, first, last;
} sl_state_kgs;

/* ctx of sl_state_pkey_cols: the first n columns of the key form. */
typedef struct sl_state_pkey_cols_ctx {
	const struct sl_type *types; /* n types, owned by the caller, outliving the table */
	int n;
} sl_state_pkey_cols_ctx;

/* A sl_state_pkey_fn: the first ctx->n columns of the key (the whole key
 * if its bytes are shorter than those columns: never for keys the
 * operator wrote). */
uint32_t sl_state_pkey_cols(const void *ctx, const void *key, uint32_t klen, const void *val,
                            uint32_t vlen, const void **pk);

/*
 * Grouping a table's entries for its SL_SNAP_GTABLE record: entries are
 * added in any order with their group, kept in one buffer per group and
 * spilled to an unlinked temporary file in `dir` when more than
 * SL_SNAP_GROUP_MEM bytes are held; finish writes the record (header,
 * index, blocks; each group's entries in the order they were added).
 * With ordered = 1 the record also keeps the order of all adds (2 bytes
 * per entry), so that a restore of every group gives the backend the
 * entries in that order (the memory backend's scans follow it).
 * init returns 0 or SL_ENOMEM; add and finish return 0, SL_ENOMEM or
 * SL_EIO with err set; deinit frees everything (safe after a failure).
 */
#define SL_SNAP_GROUP_MEM (64u << 20)
typedef struct sl_snap_group_buf sl_snap_group_buf;
typedef struct sl_snap_grouper {
	int maxp;
	sl_snap_group_buf *g;  /* maxp buffers */
	size_t held;           /* bytes in the buffers */
	int fd;                /* spill file, -1 until the first spill */
	uint64_t flen;
	uint64_t *seg;         /* per spill: maxp x (offset, length) in the file */
	int nspills;
	const char *dir;
	int64_t count;
	int ordered;
	size_t limit;          /* bytes held before a spill (SL_SNAP_GROUP_MEM) */
	uint16_t *order;       /* ordered: the group of each add */
	size_t ocap;
} sl_snap_grouper;

int sl_snap_grouper_init(sl_snap_grouper *gr, int maxp, const char *dir, int ordered,
                         sl_err *err);
int sl_snap_grouper_add(sl_snap_grouper *gr, int kg, int64_t ns, const void *key, size_t klen,
                        const void *val, size_t vlen, sl_err *err);
int sl_snap_grouper_finish(sl_snap_grouper *gr, sl_snap_writer *w, const char *name,
                           uint32_t val_size, sl_err *err);
void sl_snap_grouper_deinit(sl_snap_grouper *gr);

/*
 * Reading a table record for a restore into a range of groups:
 * sl_snap_get_tab reads the next record's header (1; 0 at SL_SNAP_END;
 * SL_ESTATE), sl_snap_tab_next the next entry of a group in
 * [first, last] (grouped records: the other groups' blocks are skipped
 * whole; ungrouped ones: every entry, *kg = -1 for the caller to decide)
 * and returns 1, or 0 after the record's last entry (the reader is then
 * after the record), or SL_ESTATE.  When the range holds every group of an
 * ordered record, the entries come in the recorded order.
 * sl_snap_tab_count_in is the number of entries of those groups
 * (ungrouped: all).  sl_snap_tab_deinit frees what reading allocated.
 */
typedef struct sl_snap_tab {
	char name[256];
	uint32_t val_size;
	int64_t count;
	uint32_t maxp;      /* 0: an ungrouped record */
	uint32_t nblocks, blk;
	size_t index;       /* reader offset of the index */
	size_t next_data;   /* reader offset of block blk's entries */
	size_t end;         /* reader offset after the record (grouped) */
	size_t blk_end;
	int64_t left;       /* entries left in the current block (ungrouped: record) */
	int kg;
	size_t order;       /* reader offset of the order (0: none) */
	int64_t done;       /* ordered reading: entries read */
	size_t *cur;        /* ordered reading: per block, offset of its next entry */
	int32_t *blk_of;    /* ordered reading: per group, its block or -1 */
} sl_snap_tab;

int sl_snap_get_tab(sl_snap_reader *r, sl_snap_tab *t, sl_err *err);
int sl_snap_tab_next(sl_snap_reader *r, sl_snap_tab *t, int first, int last, int *kg,
                     int64_t *ns, const void **key, size_t *klen, const void **val,
                     size_t *vlen, sl_err *err);
int64_t sl_snap_tab_count_in(const sl_snap_reader *r, const sl_snap_tab *t, int first, int last);
void sl_snap_tab_deinit(sl_snap_tab *t);

/* Block i (< t->nblocks) of a grouped record from its index: its group,
 * entries and bytes (blocks follow each other from t->next_data, as read
 * by sl_snap_get_tab). */
void sl_snap_tab_block(const sl_snap_reader *r, const sl_snap_tab *t, uint32_t i, int *kg,
                       int64_t *n, uint64_t *bytes);

/*
 * Tells the backend which key groups it holds (default: 128 groups, all
 * of them).  Snapshots record maxp; restores load only entries of groups
 * first..last.  maxp 1..32768, 0 <= first <= last < maxp.  Returns 0 or
 * SL_EINVAL.
 */
int sl_state_set_key_groups(sl_state_backend *be, int maxp, int first, int last, sl_err *err);
void sl_state_get_key_groups(const sl_state_backend *be, sl_state_kgs *out);

/* Sets how table t finds the partitioning key of its entries (default:
 * the whole key).  ctx must outlive the table's use in snapshots. */
static inline void sl_state_table_set_pkey(sl_state_table *t, sl_state_pkey_fn fn,
                                           const void *ctx)
{
	sl__tab_vt(t)->set_pkey(t, fn, ctx);
}

/*
 * Map tables (Flink's MapState: a map per key).  Makes t's partitioning
 * key fn/ctx (as sl_state_table_set_pkey) a prefix of every key: fn must
 * find it from the key alone (val may be NULL) and point *pk at the key's
 * first byte, and two different prefixes must never be one another's
 * prefix (the key form of a fixed column list, sl_state_pkey_cols, is
 * self-delimiting).  The entries of one prefix (the map of that key) can
 * then be visited with sl_state_prefix_scan, at a cost proportional to
 * their number.  Call it when the table is opened, before it holds
 * entries (before a restore fills it).  Every backend of state.c has it.
 */
static inline void sl_state_table_set_prefix(sl_state_table *t, sl_state_pkey_fn fn,
                                             const void *ctx)
{
	sl__tab_vt(t)->set_prefix(t, fn, ctx);
}

/*
 * Calls cb for every entry of namespace ns of a map table whose prefix
 * (sl_state_table_set_prefix) is prefix[0..plen), with ns_scan's contract
 * (cb must not call into t; val may be changed in place; return values).
 * Order: the memory backend's is the order the entries were created in
 * (kept by its snapshots; a put_var that outgrows the room of an entry's
 * value re-creates it, last), RocksDB's key order.
 */
static inline int sl_state_prefix_scan(sl_state_table *t, int64_t ns, const void *prefix,
                                       uint32_t plen, sl_state_scan_cb cb, void *ctx,
                                       sl_err *err)
{
	return sl__tab_vt(t)->prefix_scan(t, ns, prefix, plen, cb, ctx, err);
}

/* Writes every table of the backend (or, with op_uid non-NULL, only that
 * operator's tables) into w in the backend-independent format. */
int sl_state_snapshot(sl_state_backend *be, const char *op_uid, sl_snap_writer *w, sl_err *err);

/* Clears the tables it names and loads the entries of the backend's key
 * groups (sl_state_set_key_groups) from a snapshot written by
 * sl_state_snapshot, of this version or an earlier one.  Returns 0, or
 * SL_ESTATE with err set when damaged or written with another maxp (into
 * a backend that does not hold every group). */
int sl_state_restore(sl_state_backend *be, sl_snap_reader *r, sl_err *err);

/* The same without clearing the tables first: combines the snapshots of
 * several instances (their entries are in disjoint groups). */
int sl_state_restore_merge(sl_state_backend *be, sl_snap_reader *r, sl_err *err);

/* ---- state TTL (state_ttl.c, docs/state.md "State TTL") --------------------- */

/* Flags of sl_state_table_open_ttl. */
#define SL_STATE_TTL_READ_REFRESH 1 /* get/get_var restart the entry's clock too */

/*
 * Opens table `name` of operator op_uid like sl_state_table_open, with
 * entries that expire ttl_us microseconds of processing time (*clock,
 * read at every call) after their last write (upsert, put_var): an expired
 * entry is never returned (get/get_var: absent; upsert: a zeroed slot with
 * *created = 1; scans skip it) and is removed by a periodic sweep.
 * ttl_us <= 0: the plain table, no TTL.  Otherwise the backend table is
 * `name~ttl` (values behind a write-time header, kept by snapshots) and
 * the returned table is a wrapper allocated here and pushed on *chain
 * (initially NULL), which the caller frees with sl_state_ttl_free_chain
 * after its last use of the tables; *clock must outlive them.  Reopening
 * the same table with the same chain returns the same wrapper.  Returns
 * NULL with err set on failure.
 */
sl_state_table *sl_state_table_open_ttl(sl_state_backend *be, const char *op_uid,
                                        const char *name, uint32_t val_size, int64_t ttl_us,
                                        const int64_t *clock, int flags,
                                        sl_state_table **chain, sl_err *err);

/* Expired entries the chain's tables removed so far (sweeps and reads;
 * upserts that restart an expired entry reuse it and are not counted). */
uint64_t sl_state_ttl_chain_removed(const sl_state_table *chain);

/* 1 when the chain wraps table `name` (len bytes, without "~ttl"), else 0. */
int sl_state_ttl_chain_has(const sl_state_table *chain, const char *name, size_t len);

/* Frees the TTL wrappers of a chain (not the backend tables).  Safe on NULL. */
void sl_state_ttl_free_chain(sl_state_table *chain);

/* Entries a TTL table's sweeps removed so far (0 for a table without TTL). */
uint64_t sl_state_ttl_swept(const sl_state_table *t);

#endif
