/*
 * fault.c - named fault points (see fault.h).
 */
#include "fault.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pid_t main_pid;

void sl_fault_set_main(void)
{
	main_pid = getpid();
}

/* SLUICE_FAULT is "point" (any checkpoint) or "point@N" (during the N-th
 * checkpoint of this process: the coordinator ticks before each one, in
 * the main process, so forked writers see the right number) or "point@N+"
 * (the N-th or a later one), optionally followed by ":term" (stop instead
 * of crash). */
static int ticks;

void sl_fault_tick(void)
{
	ticks++;
}

void sl_fault(const char *point)
{
	const char *f = getenv("SLUICE_FAULT");
	if (!f)
		return;
	size_t pl = strlen(point);
	if (strncmp(f, point, pl) || (f[pl] && f[pl] != '@' && f[pl] != ':'))
		return;
	if (f[pl] == '@') {
		int n = atoi(f + pl + 1);
		const char *q = f + pl + 1;
		while (*q >= '0' && *q <= '9')
			q++;
		if (*q == '+' ? ticks < n : ticks != n)
			return;
	}
	if (strstr(f + pl, ":term")) {
		/* a stop asked for at a known moment (tests of savepoints on
		 * stop): the job's signal handler takes it as a user's SIGTERM;
		 * once only, so later checkpoints of the stopping job go on */
		static int sent;
		if (!sent) {
			sent = 1;
			fprintf(stderr, "sluice: fault point '%s': stopping\n", point);
			kill(main_pid ? main_pid : getpid(), SIGTERM);
		}
		return;
	}
	fprintf(stderr, "sluice: fault point '%s': crashing\n", point);
	fflush(stderr);
	if (main_pid && main_pid != getpid())
		kill(main_pid, SIGKILL);
	kill(getpid(), SIGKILL);
}
