/*
 * par_probe.h - does the engine honour 'parallelism.default'?  Asked by the
 * test harnesses that run jobs at parallelism N > 1 (the slt runner, the
 * property tests) before they count a run at N as one (tests/tools/
 * par_probe.c; docs/testing.md, "Parallelism").
 */
#ifndef SLUICE_PAR_PROBE_H
#define SLUICE_PAR_PROBE_H

#include <stddef.h>

/* The option every harness sets on every engine it opens. */
#define PP_OPTION "parallelism.default"

/*
 * 1 when a job planned with 'parallelism.default' = n runs its keyed
 * operators as n instances, as EXPLAIN shows it; 0 when not (why receives
 * the reason, NUL-terminated, cap bytes); -1 when the probe itself failed
 * (why says how).  n <= 1 is always honoured; with the environment
 * variable SLUICE_TEST_ASSUME_PARALLEL=1 every n is (a self-test of the
 * harness: the comparisons at n run over the engine as it is).  Opens and closes its own
 * engine; the answer is computed once per n and process and cached.
 */
int pp_parallelism_effective(int n, char *why, size_t cap);

/* NULL when the job just started on e runs at the parallelism asked for;
 * else the warning line (up to its end, valid until the engine's next
 * call) by which the engine says it runs the job at 1 (it names the
 * option: a job reading a push table, checkpointing on).  Declared with
 * sl_engine from sluice.h. */
struct sl_engine;
const char *pp_job_serial(struct sl_engine *e);

/* The parallelism asked for by the environment variable
 * SLUICE_TEST_PARALLELISM (a positive integer), or dflt when it is unset
 * or empty; -1 when it is set to anything else. */
int pp_env_parallelism(int dflt);

#endif
