/*
 * state_backends.h - the open functions of the state backends, called by
 * the registry in state.c (sl_state_backend_open2) and by nothing else.
 * Each returns a backend whose first member is its method table; opts and
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

#endif
