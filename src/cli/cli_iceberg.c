/*
 * cli_iceberg.c - `sluice iceberg <action> ...`: Iceberg table maintenance
 * from the command line, a thin client of include/sluice.h
 * (sl_iceberg_expire_snapshots; docs/iceberg.md "Table maintenance").
 *
 *   sluice iceberg expire-snapshots TABLE-DIR [--older-than T] [--retain-last N]
 *   sluice iceberg rewrite-data-files TABLE-DIR [--target-file-size BYTES]
 *   (sl_iceberg_rewrite_data_files)
 */
#include "cli_iceberg.h"
#include "help.h"
#include "sluice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sluice iceberg rewrite-data-files TABLE-DIR [--target-file-size BYTES] */
static int rewrite(int argc, char **argv)
{
	const char *table = NULL;
	long long target = 0;
	char msg[1024];
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			sl_cli_help("iceberg", stdout);
			return SL_EXIT_OK;
		} else if (!strcmp(argv[i], "--target-file-size") && i + 1 < argc) {
			char *end;
			target = strtoll(argv[++i], &end, 10);
			if (*end || target < 1) {
				fprintf(stderr, "sluice iceberg: --target-file-size '%s' is not a byte count "
				        ">= 1\n", argv[i]);
				return SL_EXIT_USAGE;
			}
		} else if (argv[i][0] != '-' && !table) {
			table = argv[i];
		} else {
			fprintf(stderr, "sluice iceberg: unexpected argument '%s'\n", argv[i]);
			return SL_EXIT_USAGE;
		}
	}
	if (!table) {
		fprintf(stderr, "sluice iceberg: rewrite-data-files needs the table's directory\n");
		return SL_EXIT_USAGE;
	}
	if (sl_iceberg_rewrite_data_files(table, target, msg, sizeof msg)) {
		fprintf(stderr, "sluice iceberg: %s\n", msg);
		return SL_EXIT_FAILED;
	}
	printf("%s\n", msg);
	return SL_EXIT_OK;
}

int sl_cli_iceberg(int argc, char **argv)
{
	const char *table = NULL, *older = NULL;
	int retain = 1;
	char msg[1024];
	if (argc >= 1 && !strcmp(argv[0], "rewrite-data-files"))
		return rewrite(argc, argv);
	if (argc < 1 || strcmp(argv[0], "expire-snapshots")) {
		sl_cli_help("iceberg", stderr);
		return SL_EXIT_USAGE;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			sl_cli_help("iceberg", stdout);
			return SL_EXIT_OK;
		} else if (!strcmp(argv[i], "--older-than") && i + 1 < argc) {
			older = argv[++i];
		} else if (!strcmp(argv[i], "--retain-last") && i + 1 < argc) {
			char *end;
			long v = strtol(argv[++i], &end, 10);
			if (*end || v < 1 || v > 1000000000) {
				fprintf(stderr, "sluice iceberg: --retain-last '%s' is not a count >= 1\n",
				        argv[i]);
				return SL_EXIT_USAGE;
			}
			retain = (int)v;
		} else if (argv[i][0] != '-' && !table) {
			table = argv[i];
		} else {
			fprintf(stderr, "sluice iceberg: unexpected argument '%s'\n", argv[i]);
			return SL_EXIT_USAGE;
		}
	}
	if (!table) {
		fprintf(stderr, "sluice iceberg: expire-snapshots needs the table's directory\n");
		return SL_EXIT_USAGE;
	}
	if (sl_iceberg_expire_snapshots(table, older, retain, msg, sizeof msg)) {
		fprintf(stderr, "sluice iceberg: %s\n", msg);
		return SL_EXIT_FAILED;
	}
	printf("%s\n", msg);
	return SL_EXIT_OK;
}
