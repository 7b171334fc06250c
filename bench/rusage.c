/*
 * rusage.c - runs a command and reports the CPU time and peak RSS it used.
 *
 * Usage: rusage OUTFILE CMD [ARGS...]
 *
 * Forks, execs CMD with stdout passed through, waits with wait4(2) and
 * writes "user_s sys_s maxrss_kb wall_s" (the child's getrusage figures,
 * then the elapsed time from fork to reaping, CLOCK_MONOTONIC) to
 * OUTFILE.  Exits with the child's status (128 + signal when killed).
 * This is the measurement behind every "rows per CPU-second" figure of
 * bench/run.sh: rows / (user + sys), independent of wall-clock noise; the
 * wall time is for the parallelism figures (throughput at 2 against 1),
 * which only a machine with idle cores makes meaningful.
 */
#include <stdio.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: rusage OUTFILE CMD [ARGS...]\n");
		return 2;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("wait4");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	FILE *f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	fprintf(f, "%ld.%06ld %ld.%06ld %ld %.6f\n", (long)ru.ru_utime.tv_sec,
	        (long)ru.ru_utime.tv_usec, (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec,
	        ru.ru_maxrss, wall);
	fclose(f);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
