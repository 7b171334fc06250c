/*
 * help.c - the sluice command's help texts: `sluice --help`, `sluice help
 * COMMAND`, `sluice COMMAND --help`.
 *
 * The texts say what each command does, its options, and the exit codes
 * (main.c returns them; docs/sluice.1, the man page, repeats them: keep
 * the three in step).  Help asked for goes to stdout with exit status 0;
 * usage printed because of a wrong command line goes to stderr (status 2).
 */
#include "help.h"

#include <string.h>

static const char general[] =
	"usage: sluice <command> [arguments]\n"
	"\n"
	"Runs Flink SQL jobs over event streams: CREATE TABLE ... WITH ('connector' = ...)\n"
	"and INSERT INTO ... SELECT, with event time, changelogs and exactly-once output.\n"
	"\n"
	"commands:\n"
	"  run       run a SQL script until its input ends or it is stopped\n"
	"  explain   print the physical plan of a script without running it\n"
	"  iceberg   Iceberg table maintenance: sluice iceberg expire-snapshots|rewrite-data-files DIR\n"
	"  version   print the version (also: sluice --version)\n"
	"  help      print help for a command: sluice help run\n"
	"\n"
	"exit status:\n"
	"  0    the job finished, or was stopped cleanly by SIGINT/SIGTERM\n"
	"  1    the job failed while running (bad input, I/O, evaluation, restore)\n"
	"  2    the command line was wrong (unknown command or option, no script)\n"
	"  3    the SQL was rejected before anything ran (syntax, planning, options)\n"
	"  130  a second SIGINT/SIGTERM aborted the stop\n"
	"\n"
	"See `man sluice` and README.md.\n";

static const char run[] =
	"usage: sluice run <job.sql | -e SQL | -> [options]\n"
	"\n"
	"Runs the script's statements: SET, CREATE TABLE/VIEW/FUNCTION, and one or more\n"
	"INSERT INTO (or a SELECT, printed to stdout).  The script is a file, inline SQL\n"
	"after -e, or standard input after a lone -.  The plan goes to stdout first, the\n"
	"job's statistics to stderr at the end.  SIGINT or SIGTERM stops the job cleanly:\n"
	"with checkpointing it takes a savepoint and prints its path; without, the sinks\n"
	"publish what they wrote.  A second signal aborts.\n"
	"\n"
	"options:\n"
	"  --set KEY=VALUE              set a configuration option, as SET 'KEY' = 'VALUE'\n"
	"                               (e.g. execution.checkpointing.interval=10s)\n"
	"  --stats                      print per-operator statistics and the checkpoint\n"
	"                               log at the end\n"
	"  -q, --quiet                  no live status line (drawn on stderr when it is a\n"
	"                               terminal: rows and rates, watermark and lag, late\n"
	"                               rows, last checkpoint)\n"
	"  --http ADDR:PORT             serve the job's metrics while it runs: /metrics\n"
	"                               (Prometheus), /jobs (Flink-style REST JSON) and a\n"
	"                               live page at /; e.g. 127.0.0.1:8081 (port 0: any);\n"
	"                               also SET 'rest.port' / 'rest.bind-address'\n"
	"  --http-allow-remote          allow --http on an address other than loopback\n"
	"  --fresh                      ignore existing checkpoints: start from scratch\n"
	"  --from-savepoint PATH        restore the job from a savepoint or checkpoint\n"
	"  --allow-non-restored-state   restore even when the savepoint holds state of\n"
	"                               operators the job no longer has (it is dropped)\n"
	"  --drain                      on SIGINT/SIGTERM, end the input first so every\n"
	"                               open window fires before the savepoint\n"
	"  --overwrite-output           with --fresh, delete the job's earlier output\n"
	"  -h, --help                   print this help\n"
	"\n"
	"exit status: 0 finished or stopped cleanly, 1 failed while running, 2 wrong\n"
	"command line, 3 SQL rejected, 130 aborted by a second signal.\n";

static const char explain[] =
	"usage: sluice explain <job.sql | -e SQL | -> [--set KEY=VALUE]...\n"
	"       sluice explain --pending ADDRESS:PORT\n"
	"\n"
	"With --pending, asks the job running with --http ADDRESS:PORT why there is no\n"
	"output yet: for each window, join and OVER operator, the watermark it waits on\n"
	"and the input holding it back, down to the source instance; then every\n"
	"watermark.  Otherwise:\n"
	"\n"
	"Plans the script and prints the physical plan of its job, one operator per\n"
	"line, without opening any input, output or state.  Errors are reported as by\n"
	"`sluice run`, with the SQL line and a caret.\n"
	"\n"
	"options:\n"
	"  --set KEY=VALUE   set a configuration option, as SET 'KEY' = 'VALUE'\n"
	"  -h, --help        print this help\n"
	"\n"
	"exit status: 0 planned, 2 wrong command line, 3 SQL rejected.\n";

static const char version[] =
	"usage: sluice version\n"
	"       sluice --version\n"
	"\n"
	"Prints `sluice` and the version of the engine, and exits with status 0.\n";

static const char iceberg[] =
	"usage: sluice iceberg expire-snapshots TABLE-DIR [--older-than T] [--retain-last N]\n"
	"       sluice iceberg rewrite-data-files TABLE-DIR [--target-file-size BYTES]\n"
	"\n"
	"Expires the snapshots of the Iceberg table in TABLE-DIR (a Hadoop-catalog table:\n"
	"TABLE-DIR/metadata/vN.metadata.json) committed before T, a UTC timestamp\n"
	"('2026-12-01 00:00:00') or a duration back from now ('1 h', '0 s'; default 5 d),\n"
	"keeping the current snapshot and the N most recent ones (default 1).  Their\n"
	"manifest lists and unreferenced manifests are deleted; data files are not.\n"
	"\n"
	"rewrite-data-files compacts the table: its live rows (delete files applied) are\n"
	"written into data files of at most BYTES (default 512 MB) per partition and\n"
	"committed as one replace snapshot without the old data and delete files.\n"
	"See docs/iceberg.md.\n";

static const char help[] =
	"usage: sluice help [COMMAND]\n"
	"\n"
	"Prints help for COMMAND (run, explain, iceberg, version, help), or the list of\n"
	"commands.\n";

void sl_cli_usage(FILE *f)
{
	fputs(general, f);
}

int sl_cli_help(const char *cmd, FILE *f)
{
	static const struct {
		const char *name, *text;
	} cmds[] = {
		{"run", run}, {"explain", explain}, {"version", version}, {"help", help},
		{"iceberg", iceberg},
	};
	if (!cmd) {
		fputs(general, f);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmd, cmds[i].name)) {
			fputs(cmds[i].text, f);
			return 0;
		}
	return -1;
}
