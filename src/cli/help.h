/*
 * help.h - the sluice command's help texts (help.c).
 */
#ifndef SL_CLI_HELP_H
#define SL_CLI_HELP_H

#include <stdio.h>

/* Exit statuses of the sluice command (help.c lists them for the user). */
enum {
	SL_EXIT_OK = 0,      /* finished, or stopped cleanly */
	SL_EXIT_FAILED = 1,  /* the job failed while running */
	SL_EXIT_USAGE = 2,   /* wrong command line */
	SL_EXIT_SQL = 3,     /* the SQL was rejected before anything ran */
	SL_EXIT_ABORT = 130  /* a second signal aborted the stop */
};

/* Prints the list of commands and the exit statuses to f. */
void sl_cli_usage(FILE *f);

/* Prints the help of command cmd (NULL: the general usage) to f.  Returns
 * 0, or -1 when there is no such command (nothing printed). */
int sl_cli_help(const char *cmd, FILE *f);

#endif
