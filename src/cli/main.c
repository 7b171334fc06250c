/*
 * main.c - the sluice command: a thin client of include/sluice.h.
 *
 *   sluice run job.sql [--set k=v]... [--stats]   run a Flink SQL script
 *        [--fresh] [--from-savepoint PATH] [--drain]
 *   sluice run -e "SQL" ...                       run inline SQL
 *   sluice run - ...                              read the script from stdin
 *   sluice explain job.sql | -e "SQL"             print the physical plan
 *   sluice version
 *
 * Exit status 0 on success; otherwise the error message comes first on
 * stderr, followed by the offending SQL line and a caret when the error has
 * a position.  At the end of a run the job's summary (rows per source and
 * sink, late rows, final watermarks) goes to stderr.
 *
 * SIGINT or SIGTERM stops the job cleanly (sl_stop_complete): with
 * checkpointing with a savepoint (its path is printed), without it the
 * sinks publish what they wrote, as at the end of input; --drain first
 * closes every window.  A second signal aborts at once.
 */
#include "sluice.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sl_engine *running;

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: sluice run <job.sql | -e SQL | -> [--set key=value]... [--stats]\n"
	        "                  [--fresh] [--from-savepoint PATH] [--drain]\n"
	        "                  [--allow-non-restored-state] [--overwrite-output]\n"
	        "       sluice explain <job.sql | -e SQL | -> [--set key=value]...\n"
	        "       sluice version\n");
}

static char *read_all(FILE *f)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
	}
	if (buf)
		buf[len] = 0;
	return buf;
}

/* Prints the error and, for SQL errors, the line with a caret. */
static void report(sl_engine *e, const char *sql)
{
	const char *msg = sl_errmsg(e);
	fprintf(stderr, "sluice: %s\n", msg);
	int line = 0, col = 0;
	if (sscanf(msg, "line %d, column %d", &line, &col) != 2 || !sql)
		return;
	const char *p = sql;
	for (int l = 1; l < line && p; l++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p)
		return;
	const char *end = strchr(p, '\n');
	int len = end ? (int)(end - p) : (int)strlen(p);
	fprintf(stderr, "  %.*s\n  %*s^\n", len, p, col - 1, "");
}

static volatile sig_atomic_t signals;

static void on_signal(int sig)
{
	if (++signals > 1)
		_exit(130); /* second signal: abort without a savepoint */
	if (running)
		sl_stop(running);
}

/* The job name for checkpoints: the script's file name without .sql. */
static void set_script_name(sl_engine *e, const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	char name[256];
	snprintf(name, sizeof(name), "%s", b);
	char *dot = strrchr(name, '.');
	if (dot && !strcmp(dot, ".sql"))
		*dot = 0;
	sl_set(e, "sluice.script-name", name);
}

/* Loads the script named by argv[i] (-e SQL, -, or a file). */
static char *load_script(int argc, char **argv, int *i, const char **name)
{
	if (!strcmp(argv[*i], "-e") && *i + 1 < argc) {
		*name = "inline";
		return strdup(argv[++*i]);
	}
	if (!strcmp(argv[*i], "-")) {
		*name = "stdin";
		return read_all(stdin);
	}
	*name = argv[*i];
	FILE *f = fopen(argv[*i], "rb");
	if (!f) {
		fprintf(stderr, "sluice: cannot open '%s'\n", argv[*i]);
		return NULL;
	}
	char *s = read_all(f);
	fclose(f);
	return s;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "version")) {
		printf("sluice %s\n", sl_version());
		return 0;
	}
	int explain = !strcmp(argv[1], "explain");
	if (!explain && strcmp(argv[1], "run")) {
		usage(stderr);
		return 2;
	}
	sl_engine *e;
	if (sl_engine_open(&e)) {
		fprintf(stderr, "sluice: out of memory\n");
		return 1;
	}
	sl_set(e, "sluice.select.sink", "print");
	char *sql = NULL;
	const char *name = NULL;
	int stats = 0, rc = 0, drain = 0;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--stats")) {
			stats = 1;
		} else if (!strcmp(argv[i], "--drain")) {
			drain = 1;
		} else if (!strcmp(argv[i], "--allow-non-restored-state")) {
			sl_set(e, "execution.savepoint.ignore-unclaimed-state", "true");
		} else if (!strcmp(argv[i], "--overwrite-output")) {
			sl_set(e, "sluice.overwrite-output", "true");
		} else if (!strcmp(argv[i], "--fresh")) {
			sl_set(e, "sluice.fresh", "true");
		} else if (!strcmp(argv[i], "--from-savepoint") && i + 1 < argc) {
			sl_set(e, "execution.savepoint.path", argv[++i]);
		} else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			char *kv = argv[++i], *eq = strchr(kv, '=');
			if (!eq) {
				fprintf(stderr, "sluice: --set expects key=value, got '%s'\n", kv);
				rc = 2;
				goto out;
			}
			*eq = 0;
			sl_set(e, kv, eq + 1);
		} else if (!sql) {
			if (!(sql = load_script(argc, argv, &i, &name))) {
				rc = 2;
				goto out;
			}
			if (!strcmp(name, "stdin"))
				sl_set(e, "sluice.script-from-stdin", "true");
			else if (strcmp(name, "inline"))
				set_script_name(e, name);
		} else {
			usage(stderr);
			rc = 2;
			goto out;
		}
	}
	if (!sql) {
		usage(stderr);
		rc = 2;
		goto out;
	}
	if (explain) {
		const char *text;
		if ((rc = sl_explain(e, sql, &text))) {
			report(e, sql);
			goto out;
		}
		fputs(text, stdout);
		goto out;
	}
	if ((rc = sl_exec(e, sql))) {
		report(e, sql);
		goto out;
	}
	fputs(sl_explain_text(e), stdout);
	fputs(sl_warnings(e), stderr);
	running = e;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rc = sl_run(e);
	running = NULL;
	if (!rc && signals && !sl_job_finished(e)) {
		/* stopped by a signal: with checkpointing a savepoint, without
		 * the sinks publish what they wrote */
		char path[4096];
		if ((rc = sl_stop_complete(e, drain, path, sizeof(path))))
			fprintf(stderr, "sluice: stopped, but the stop did not complete:\n");
		else if (path[0])
			fprintf(stderr, "sluice: stopped with savepoint %s\n", path);
		else
			fprintf(stderr, "sluice: stopped; the sinks published their output "
			        "(no checkpointing)\n");
	}
	fflush(stdout);
	if (rc)
		report(e, NULL);
	fputs(sl_job_stats(e, stats), stderr);
	if (stats)
		fputs(sl_checkpoint_log(e), stderr);
out:
	free(sql);
	sl_engine_close(e);
	return rc ? 1 : 0;
}
