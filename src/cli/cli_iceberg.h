/*
 * cli_iceberg.h - the `sluice iceberg` command (cli_iceberg.c).
 */
#ifndef SL_CLI_ICEBERG_H
#define SL_CLI_ICEBERG_H

/* Runs `sluice iceberg` with its arguments (argv[0] = the action);
 * returns the exit status (help.h). */
int sl_cli_iceberg(int argc, char **argv);

#endif
