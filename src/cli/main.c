/*
 * main.c - the sluice command: a thin client of include/sluice.h.
 *
 *   sluice run job.sql [--set k=v]... [--stats]   run a Flink SQL script
 *        [--fresh] [--from-savepoint PATH] [--drain] [--quiet]
 *        [--http ADDR:PORT [--http-allow-remote]]
 *   sluice run -e "SQL" ...                       run inline SQL
 *   sluice run - ...                              read the script from stdin
 *   sluice explain job.sql | -e "SQL"             print the physical plan
 *   sluice explain --pending ADDR:PORT            ask a running job (--http)
 *                                                 why there is no output yet
 *   sluice iceberg expire-snapshots|rewrite-data-files ...  Iceberg table maintenance
 *                                                 (cli_iceberg.c)
 *   sluice version | --version                   print the version
 *   sluice help [COMMAND] | --help                print help
 *
 * The help texts and the exit statuses are in help.c (`sluice --help`,
 * `sluice help run`, docs/sluice.1).  On an error the message comes first
 * on stderr, followed by the offending SQL line and a caret when the
 * error has a position.  While the job runs, a status line is redrawn on
 * stderr when it is a terminal (status.c; off with --quiet); at the end of
 * a run, the line erased, the job's summary (rows per source and sink,
 * late rows, final watermarks) goes to stderr.  With --http (or 'rest.port'
 * in the script) the job's metrics are served over HTTP while it runs
 * (http.c).
 *
 * SIGINT or SIGTERM stops the job cleanly (sl_stop_complete): with
 * checkpointing with a savepoint (its path is printed), without it the
 * sinks publish what they wrote, as at the end of input; --drain first
 * closes every window.  A second signal aborts at once.
 */
#include "sluice.h"
#include "help.h"
#include "cli_iceberg.h"
#include "http.h"
#include "status.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sl_engine *running;

/* A wrong command line: the message, a pointer to the help, status 2. */
static int usage_error(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "sluice: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'sluice help%s%s' for more information.\n", cmd ? " " : "",
	        cmd ? cmd : "");
	return SL_EXIT_USAGE;
}

/* The exit status of an error code from sl_exec / sl_explain: the SQL
 * was rejected (3) or starting the job failed (1). */
static int exec_status(int code)
{
	switch (code) {
	case SL_ESYNTAX:
	case SL_EPLAN:
	case SL_ENOTSUP:
	case SL_EINVAL:
		return SL_EXIT_SQL;
	default:
		return SL_EXIT_FAILED;
	}
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
	int line, col;
	if (!sl_errpos(e, &line, &col) || !sql)
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
	if (++signals > 1) {
		sl_status_abandon(); /* the terminal's whole screen back */
		_exit(SL_EXIT_ABORT); /* second signal: abort without a savepoint */
	}
	if (running)
		sl_stop(running);
}

/* The member process of a scale-out ('sluice.scale-out' = 'kafka-group',
 * docs/kafka.md): runs this same command line, minus the options that
 * belong to this process (--http) or cannot apply to a partition's child
 * (--fresh, --overwrite-output, --from-savepoint: refused), once per
 * partition the group gives it. */
static int run_member(sl_engine *e, int argc, char **argv)
{
	char **av = calloc((size_t)argc + 2, sizeof *av);
	if (!av) {
		fprintf(stderr, "sluice: out of memory\n");
		return SL_EXIT_FAILED;
	}
	int n = 0;
	av[n++] = "/proc/self/exe";
	av[n++] = "run";
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--fresh") || !strcmp(a, "--overwrite-output") ||
		    !strcmp(a, "--from-savepoint") || !strcmp(a, "-")) {
			free(av);
			return usage_error("run", "'%s' cannot be used with 'sluice.scale-out' (each "
			                   "partition restores its own checkpoints; the script must be a "
			                   "file or -e)", a);
		}
		if (!strcmp(a, "--http")) {
			i++;
			continue;
		}
		if (!strcmp(a, "--http-allow-remote"))
			continue;
		av[n++] = argv[i];
		if (!strcmp(a, "--set") && i + 1 < argc) {
			char *kv = argv[++i]; /* main cut it at its '=' */
			kv[strlen(kv)] = '=';
			av[n++] = kv;
		} else if (!strcmp(a, "-e") && i + 1 < argc) {
			av[n++] = argv[++i];
		}
	}
	av[n] = NULL;
	int rc = sl_run_scale_out(e, av);
	free(av);
	if (rc) {
		report(e, NULL);
		return SL_EXIT_FAILED;
	}
	return SL_EXIT_OK;
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

/*
 * The HTTP endpoint's address: --http ADDR:PORT (IPv6 as [::1]:PORT), else
 * 'rest.bind-address' or 'rest.address' (default 127.0.0.1) and
 * 'rest.port' (default 8081) when one of them was set.  Returns 1 with
 * addr and *port set, 0 when there is no endpoint, -1 on a bad value
 * (message printed).
 */
static int http_address(sl_engine *e, const char *flag, char *addr, size_t cap, int *port)
{
	const char *a = NULL, *p = NULL;
	char buf[128];
	if (flag) {
		snprintf(buf, sizeof(buf), "%s", flag);
		char *colon = strrchr(buf, ':');
		if (!colon || colon == buf || (strchr(buf, ':') != colon && buf[0] != '[')) {
			fprintf(stderr, "sluice: --http expects ADDRESS:PORT (e.g. 127.0.0.1:8081), got "
			        "'%s'\n", flag);
			return -1;
		}
		*colon = 0;
		a = buf;
		p = colon + 1;
	} else {
		const char *ba = sl_option(e, "rest.bind-address"), *ra = sl_option(e, "rest.address");
		p = sl_option(e, "rest.port");
		if (!ba && !ra && !p)
			return 0;
		a = ba ? ba : ra ? ra : "127.0.0.1";
		if (!p)
			p = "8081";
	}
	char *end;
	long n = strtol(p, &end, 10);
	if (!*p || *end || n < 0 || n > 65535) {
		fprintf(stderr, "sluice: bad HTTP port '%s' (0-65535; 0: any free port)\n", p);
		return -1;
	}
	snprintf(addr, cap, "%s", a);
	*port = (int)n;
	return 1;
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
	if (argc < 2) {
		sl_cli_usage(stderr);
		return SL_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		sl_cli_usage(stdout);
		return SL_EXIT_OK;
	}
	if (!strcmp(cmd, "help")) {
		if (argc > 3)
			return usage_error("help", "help takes one command, got '%s'", argv[3]);
		if (sl_cli_help(argc > 2 ? argv[2] : NULL, stdout))
			return usage_error(NULL, "no such command: '%s'", argv[2]);
		return SL_EXIT_OK;
	}
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		if (argc > 2 && (!strcmp(argv[2], "-h") || !strcmp(argv[2], "--help"))) {
			sl_cli_help("version", stdout);
			return SL_EXIT_OK;
		}
		if (argc > 2)
			return usage_error("version", "version takes no arguments, got '%s'", argv[2]);
		printf("sluice %s\n", sl_version());
		return SL_EXIT_OK;
	}
	if (!strcmp(cmd, "iceberg")) /* table maintenance: cli_iceberg.c */
		return sl_cli_iceberg(argc - 2, argv + 2);
	int explain = !strcmp(cmd, "explain");
	if (explain && argc > 2 && !strcmp(argv[2], "--pending")) {
		if (argc != 4)
			return usage_error("explain", "%s", "--pending takes the ADDRESS:PORT of a "
			                   "running job's --http endpoint");
		sl_buf body;
		sl_buf_init(&body);
		char msg[512];
		if (sl_http_get(argv[3], "/pending", &body, msg, sizeof(msg))) {
			fprintf(stderr, "sluice: %s\n", msg);
			return SL_EXIT_FAILED;
		}
		fwrite(body.p ? body.p : "", 1, body.len, stdout);
		sl_buf_deinit(&body);
		return SL_EXIT_OK;
	}
	if (!explain && strcmp(cmd, "run")) {
		if (cmd[0] == '-')
			return usage_error(NULL, "unknown option '%s' (options follow the command: "
			                   "sluice run job.sql --stats)", cmd);
		return usage_error(NULL, "unknown command '%s'", cmd);
	}
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			sl_cli_help(cmd, stdout);
			return SL_EXIT_OK;
		} else if (!strcmp(argv[i], "-e") || !strcmp(argv[i], "--set") ||
		           !strcmp(argv[i], "--from-savepoint") || !strcmp(argv[i], "--http")) {
			i++; /* skip the argument: `-e --help` is SQL */
		}
	sl_engine *e;
	if (sl_engine_open(&e)) {
		fprintf(stderr, "sluice: out of memory\n");
		return SL_EXIT_FAILED;
	}
	sl_set(e, "sluice.select.sink", "print");
	char *sql = NULL;
	const char *name = NULL;
	int stats = 0, rc = 0, status = SL_EXIT_OK, drain = 0, quiet = 0, remote = 0;
	const char *http_flag = NULL;
	sl_http *http = NULL;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		int run_only = !strcmp(a, "--stats") || !strcmp(a, "--drain") || !strcmp(a, "--quiet") ||
		               !strcmp(a, "-q") || !strcmp(a, "--http") ||
		               !strcmp(a, "--http-allow-remote") ||
		               !strcmp(a, "--allow-non-restored-state") ||
		               !strcmp(a, "--overwrite-output") || !strcmp(a, "--fresh") ||
		               !strcmp(a, "--from-savepoint");
		if (run_only && explain) {
			status = usage_error(cmd, "'%s' is an option of 'sluice run', not of 'explain'", a);
			goto out;
		}
		if ((!strcmp(a, "--from-savepoint") || !strcmp(a, "--set") || !strcmp(a, "-e") ||
		     !strcmp(a, "--http")) && i + 1 >= argc) {
			status = usage_error(cmd, "'%s' needs an argument", a);
			goto out;
		}
		if (!strcmp(a, "--stats")) {
			stats = 1;
		} else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
			quiet = 1;
		} else if (!strcmp(a, "--http")) {
			http_flag = argv[++i];
		} else if (!strcmp(a, "--http-allow-remote")) {
			remote = 1;
		} else if (!strcmp(a, "--drain")) {
			drain = 1;
		} else if (!strcmp(a, "--allow-non-restored-state")) {
			sl_set(e, "execution.savepoint.ignore-unclaimed-state", "true");
		} else if (!strcmp(a, "--overwrite-output")) {
			sl_set(e, "sluice.overwrite-output", "true");
		} else if (!strcmp(a, "--fresh")) {
			sl_set(e, "sluice.fresh", "true");
		} else if (!strcmp(a, "--from-savepoint")) {
			sl_set(e, "execution.savepoint.path", argv[++i]);
		} else if (!strcmp(a, "--set")) {
			char *kv = argv[++i], *eq = strchr(kv, '=');
			if (!eq) {
				status = usage_error(cmd, "--set expects key=value, got '%s'", kv);
				goto out;
			}
			*eq = 0;
			sl_set(e, kv, eq + 1);
		} else if (a[0] == '-' && a[1] && strcmp(a, "-e")) {
			status = usage_error(cmd, "unknown option '%s'", a);
			goto out;
		} else if (!sql) {
			if (!(sql = load_script(argc, argv, &i, &name))) {
				status = SL_EXIT_USAGE;
				goto out;
			}
			if (!strcmp(name, "stdin"))
				sl_set(e, "sluice.script-from-stdin", "true");
			else if (strcmp(name, "inline"))
				set_script_name(e, name);
		} else {
			status = usage_error(cmd, "one script per job, got a second: '%s'", a);
			goto out;
		}
	}
	if (!sql) {
		status = usage_error(cmd, "%s", "no script: give a file, -e SQL, or - for stdin");
		goto out;
	}
	if (explain) {
		const char *text;
		if ((rc = sl_explain(e, sql, &text))) {
			report(e, sql);
			status = exec_status(rc);
			goto out;
		}
		fputs(text, stdout);
		goto out;
	}
	if ((rc = sl_exec(e, sql))) {
		report(e, sql);
		status = exec_status(rc);
		goto out;
	}
	fputs(sl_explain_text(e), stdout);
	fputs(sl_warnings(e), stderr);
	char haddr[128];
	int hport, hrc = http_address(e, http_flag, haddr, sizeof(haddr), &hport);
	if (hrc < 0) {
		status = SL_EXIT_USAGE;
		goto out;
	}
	if (hrc > 0) {
		char msg[512];
		int bound;
		if (!(http = sl_http_start(e, haddr, hport, remote, &bound, msg, sizeof(msg)))) {
			fprintf(stderr, "sluice: %s\n", msg);
			status = SL_EXIT_USAGE;
			goto out;
		}
		fprintf(stderr, "sluice: serving http://%s%s%s:%d/ (/metrics, /jobs)\n",
		        strchr(haddr, ':') && haddr[0] != '[' ? "[" : "", haddr,
		        strchr(haddr, ':') && haddr[0] != '[' ? "]" : "", bound);
	}
	running = e;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (sl_scale_out_member(e)) {
		status = run_member(e, argc, argv);
		running = NULL;
		goto out;
	}
	sl_status *line = quiet ? NULL : sl_status_start(e);
	rc = sl_run(e);
	sl_status_stop(line); /* erased: what follows starts on its own line */
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
	if (rc) {
		report(e, NULL);
		status = SL_EXIT_FAILED;
	}
	fputs(sl_job_stats(e, stats), stderr);
	if (stats)
		fputs(sl_checkpoint_log(e), stderr);
out:
	sl_http_stop(http); /* before the engine it reads */
	free(sql);
	sl_engine_close(e);
	return status;
}
