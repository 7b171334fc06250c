/*
 * state_backends.h - the open functions of the state backends, called by
 * the registry in state.c (sl_state_backend_open2) and by nothing else.
 * Each returns a backend whose first member is its method table and second
 * its key groups (sl_state_kgs kgs, initialised by sl__state_kgs_init);
 * opts and
 * job_dir are the job's options and local directory (the memory backend
 * ignores both).  0 or a negative SL_E* code with err.  Internal to
 * src/state.
 */
#ifndef SL_STATE_BACKENDS_H
#define SL_STATE_BACKENDS_H

#include "state.h"

int sl__state_mem_open(const struct sl_opts *opts, const char *job_dir, sl_state_backend **out,
                       sl_err *err);     /* state_mem.c */
int sl__state_rocksdb_open(const struct sl_opts *opts, const char *job_dir,
                           sl_state_backend **out, sl_err *err); /* state_rocksdb.c */

/* The work of table t's namespace index so far (nsidx.h: elements moved
 * or compared, nodes visited), of a table of the memory or the RocksDB
 * backend.  For tests that bound the cost of an access pattern without
 * timing it (tests/unit/test_state.c). */
uint64_t sl__state_mem_ns_work(const sl_state_table *t);  /* state_mem.c */
uint64_t sl__state_rdb_ns_work(const sl_state_table *t);  /* state_rocksdb.c */

/* The default groups of a new backend: 128, all held. */
static inline void sl__state_kgs_init(sl_state_kgs *k)
{
	k->maxp = 128;
	k->first = 0;
	k->last = 127;
}

/*
 * A restore of table record t into a backend holding groups k: sets the
 * group range to load [*first, *last] and *compute = 1 when the record is
 * ungrouped and only some groups are held (the caller then computes each
 * entry's group with the table's sl_state_pkey).  Returns 0, or SL_ESTATE
 * (err set, naming 'pipeline.max-parallelism' and both values) when t is
 * grouped with another maxp than k, whatever groups k holds.  state.c.
 */
int sl__state_kg_check(const sl_state_kgs *k, const sl_snap_tab *t, int *first, int *last,
                       int *compute, sl_err *err);

#endif
