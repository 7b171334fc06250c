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
 * key, value records) and sl_state_restore reads it back into any backend.
 *
 * Not thread-safe: one thread (the job's) uses a backend.
 */
#ifndef SL_STATE_H
#define SL_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "../base/err.h"

/* ---- snapshot streams ----------------------------------------------------- */

/* An append-only byte buffer that snapshots are written into. */
typedef struct sl_snap_writer {
	uint8_t *buf;
	size_t len, cap;
	int failed; /* set when an allocation failed; later puts are no-ops */
} sl_snap_writer;

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

/* Opens a backend by type name ("hashmap" = memory).  Returns 0 and sets
 * *out, or SL_EINVAL for an unknown type (message in err). */
int sl_state_backend_open(const char *type, sl_state_backend **out, sl_err *err);

/* Frees the backend and all its tables.  Safe on NULL. */
void sl_state_backend_close(sl_state_backend *be);

/*
 * Opens (or returns the already open) table `name` of operator `op_uid`.
 * val_size > 0: fixed-size slots; 0: variable-length values.  The table
 * belongs to the backend (no close).  Returns NULL with err set on failure
 * or when an open table of that name has a different val_size.
 */
sl_state_table *sl_state_table_open(sl_state_backend *be, const char *op_uid, const char *name,
                                    uint32_t val_size, sl_err *err);

/* Fixed-size tables: returns the slot for (ns, key), creating a zeroed one
 * when absent (*created = 1).  NULL only when out of memory. */
void *sl_state_upsert(sl_state_table *t, int64_t ns, const void *key, uint32_t klen, int *created);

/* The same with the key's hash precomputed by sl_state_hash (hashing once
 * per row when the caller also prefetches). */
void *sl_state_upsert_h(sl_state_table *t, int64_t ns, const void *key, uint32_t klen,
                        uint32_t hash, int *created);

/* Hash of a key as the state tables compute it (never 0). */
uint32_t sl_state_hash(const void *key, uint32_t klen);

/* A hint that (ns, key with this hash) will be looked up soon: stage 0
 * loads its index slot into cache, a later stage 1 call the entry.  No
 * effect on contents; a no-op when ns does not exist. */
void sl_state_prefetch(sl_state_table *t, int64_t ns, uint32_t hash, int stage);

/* Fixed-size tables: the slot for (ns, key) or NULL when absent. */
void *sl_state_get(sl_state_table *t, int64_t ns, const void *key, uint32_t klen);

/* Variable-length tables: sets (*val, *vlen) and returns 1 when present,
 * 0 when absent.  The bytes stay valid until the next call on t. */
int sl_state_get_var(sl_state_table *t, int64_t ns, const void *key, uint32_t klen,
                     const void **val, uint32_t *vlen);

/* Variable-length tables: stores a copy of val.  Returns 0 or SL_ENOMEM. */
int sl_state_put_var(sl_state_table *t, int64_t ns, const void *key, uint32_t klen,
                     const void *val, uint32_t vlen);

/* Removes (ns, key) if present (either kind of table). */
void sl_state_delete(sl_state_table *t, int64_t ns, const void *key, uint32_t klen);

/* Smallest namespace holding at least one entry: returns 1 and sets *ns,
 * or 0 when the table is empty. */
int sl_state_ns_first(sl_state_table *t, int64_t *ns);

/* Next namespace strictly greater than `after`: 1 and *ns, or 0. */
int sl_state_ns_next(sl_state_table *t, int64_t after, int64_t *ns);

/*
 * Calls cb for every entry of namespace ns, in an unspecified but
 * deterministic order (the order entries were created).  cb must not call
 * into t; it returns 0 to continue or non-zero to stop (returned by scan).
 */
typedef int (*sl_state_scan_cb)(void *ctx, const void *key, uint32_t klen, void *val,
                                uint32_t vlen);
int sl_state_ns_scan(sl_state_table *t, int64_t ns, sl_state_scan_cb cb, void *ctx);

/* Like ns_scan over every namespace in ascending order. */
int sl_state_scan(sl_state_table *t, sl_state_scan_cb cb, void *ctx);

/* Removes every entry of namespace ns. */
void sl_state_ns_drop(sl_state_table *t, int64_t ns);

/* Number of entries in the table. */
uint64_t sl_state_count(const sl_state_table *t);

/* Bytes of memory the backend holds (for stats and tests). */
uint64_t sl_state_backend_mem(const sl_state_backend *be);

/* Persists pending slot write-backs (no-op for the memory backend). */
int sl_state_flush(sl_state_backend *be, sl_err *err);

/* Writes every table of the backend (or, with op_uid non-NULL, only that
 * operator's tables) into w in the backend-independent format. */
int sl_state_snapshot(sl_state_backend *be, const char *op_uid, sl_snap_writer *w, sl_err *err);

/* Clears the tables it names and loads a snapshot written by
 * sl_state_snapshot.  Returns 0 or SL_ESTATE with err set when damaged. */
int sl_state_restore(sl_state_backend *be, sl_snap_reader *r, sl_err *err);

#endif
