/*
 * fault.h - named fault points for crash tests (docs/checkpoints.md).
 *
 * sl_fault("after-manifest-rename") kills the process with SIGKILL when the
 * environment variable SLUICE_FAULT names that point ("point", or "point@N"
 * during the N-th checkpoint of the process, or "point@N+" during the N-th
 * or any later one: the first time the point is reached from then on, for
 * points that a checkpoint may pass by without reaching, such as
 * pgcdc-after-confirm when the checkpoint has no new position), simulating
 * a power loss there.  Called from a forked checkpoint writer, it kills the job's
 * main process too (sl_fault_set_main records it), so the whole job dies
 * as it would in a real crash.  "point:term" (or "point@N:term") instead
 * sends the main process one SIGTERM there and goes on: a stop (savepoint)
 * asked for at a known moment of the job, for tests.  Costs one getenv per call; the points sit on
 * checkpoint paths only, never per row.
 */
#ifndef SL_FAULT_H
#define SL_FAULT_H

/* Records the main process (call once at job start). */
void sl_fault_set_main(void);

/* Counts a checkpoint (for "point@N"); called by the coordinator. */
void sl_fault_tick(void);

/* Crashes here if SLUICE_FAULT names this point (and checkpoint). */
void sl_fault(const char *point);

#endif
