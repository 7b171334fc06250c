/*
 * slt_runner.c - the sqllogictest-style runner of the SQL behaviour suite
 * (tests/slt/NAME.slt), a thin client of include/sluice.h only.
 *
 *     build/tools/slt_runner FILE.slt [FILE.slt ...]
 *
 * A file is a sequence of records separated by blank lines; lines starting
 * with '#' are comments (except in an explain record's expected plan).  The first line of a record is its directive, the
 * rest its body (SQL text, JSON rows or expected result lines).  The
 * directives (documented with examples in docs/testing.md):
 *
 *   statement ok | statement error <substring>    sl_exec of the body
 *   set <key> = <value>                           sl_set
 *   job                                           sl_exec starting a job
 *   run                                           sl_run: the job's bounded
 *                                                 sources (files) to their end
 *   feed <table> [one-by-one] [error <substring>] push JSON rows
 *   end <table>                                   sl_push_end
 *   expect [ordered]                              compare polled rows
 *   stats                                         substrings of job stats
 *   explain [ids]                                 SQL, "----", the expected
 *                                                 EXPLAIN text (with ids: and
 *                                                 each operator's state id)
 *   snapshot / restore                            sl_snapshot / sl_restore
 *   reset                                         a fresh engine
 *   proctime <YYYY-MM-DD HH:MM:SS> | + <n> <unit> | wall
 *                                                 the engine's processing-
 *                                                 time clock (manual, UTC;
 *                                                 kept across restore)
 *   setenv <NAME> = <value>                       a test-only environment
 *                                                 variable (docs/testing.md;
 *                                                 empty value: unset; unset
 *                                                 again by reset)
 *   skipif <reason>                               skip the next record, or
 *                                                 alone: the case up to reset
 *
 * One engine per file (or per `reset`).  Output rows are polled as Flink
 * text ("sluice.poll.format" = "text") and kept in the runner's pending
 * list until an `expect` consumes them, so rows survive a `restore`.
 *
 * Counting: a record with an assertion (statement, expect, stats, explain,
 * feed ... error) passes or fails; an action (job, feed, end, snapshot,
 * restore) that fails unexpectedly is reported and counted as a failure.
 * The last line printed is "N passed, N failed" (", N skipped" when some
 * records were skipped); the exit status is 1 when anything failed.
 *
 * Single-threaded; everything is freed at exit only in the sense that the
 * process ends (records and rows are small).
 */
#include "sluice.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small growable string lists ---------------------------------------- */

typedef struct strlist {
	char **v;
	int n, cap;
} strlist;

static void die_oom(void)
{
	fprintf(stderr, "slt_runner: out of memory\n");
	exit(2);
}

static char *xstrndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);
	if (!p)
		die_oom();
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

static void list_push(strlist *l, char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->v = realloc(l->v, sizeof(char *) * (size_t)l->cap);
		if (!l->v)
			die_oom();
	}
	l->v[l->n++] = s;
}

static void list_clear(strlist *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	l->n = 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- the runner's state -------------------------------------------------- */

/* A record replayed on `restore`: a set (key, value) or SQL to sl_exec. */
typedef struct replay {
	int is_set;
	char *a, *b;
} replay;

typedef struct runner {
	const char *file;
	sl_engine *e;
	strlist pending; /* polled rows not yet consumed by an expect */
	replay *rp;
	int nrp, caprp;
	void *snap;
	size_t snap_len;
	int passed, failed, skipped;
	const char *skip_case; /* a standalone skipif: skip up to the next reset */
	int64_t proc;          /* manual processing time (micros), -1 = wall clock */
	char *env[8];          /* names set by setenv, unset by reset */
	int nenv;
} runner;

/* One record: directive line, body lines, line number of the directive. */
typedef struct record {
	int line;
	const char *head;
	const char **body;
	int nbody;
	const char *skip; /* reason of a skipif line, or NULL */
} record;

static void fail(runner *r, int line, const char *fmt, ...)
{
	va_list ap;
	printf("FAIL %s:%d: ", r->file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	r->failed++;
}

static void on_row(void *ctx, const char *table, sl_rowkind kind, const char *text, size_t len)
{
	runner *r = ctx;
	static const char *kinds[4] = {"+I", "-U", "+U", "-D"};
	size_t tl = strcmp(table, "select") ? strlen(table) + 1 : 0;
	char *s = malloc(tl + 2 + len + 1);
	if (!s)
		die_oom();
	if (tl) {
		memcpy(s, table, tl - 1);
		s[tl - 1] = ' ';
	}
	memcpy(s + tl, kinds[kind & 3], 2);
	memcpy(s + tl + 2, text, len);
	s[tl + 2 + len] = 0;
	list_push(&r->pending, s);
}

static void poll_rows(runner *r)
{
	if (r->e)
		sl_poll(r->e, on_row, r);
}

static int engine_new(runner *r)
{
	if (sl_engine_open(&r->e)) {
		fprintf(stderr, "slt_runner: cannot open an engine\n");
		return -1;
	}
	if (r->proc >= 0)
		sl_set_processing_time(r->e, r->proc);
	return sl_set(r->e, "sluice.poll.format", "text");
}

static void engine_reset(runner *r)
{
	sl_engine_close(r->e);
	r->e = NULL;
	list_clear(&r->pending);
	for (int i = 0; i < r->nrp; i++) {
		free(r->rp[i].a);
		free(r->rp[i].b);
	}
	r->nrp = 0;
	free(r->snap);
	r->snap = NULL;
	r->proc = -1;
	for (int i = 0; i < r->nenv; i++) {
		unsetenv(r->env[i]);
		free(r->env[i]);
	}
	r->nenv = 0;
	engine_new(r);
}

static void replay_add(runner *r, int is_set, const char *a, const char *b)
{
	if (r->nrp == r->caprp) {
		r->caprp = r->caprp ? r->caprp * 2 : 16;
		r->rp = realloc(r->rp, sizeof(replay) * (size_t)r->caprp);
		if (!r->rp)
			die_oom();
	}
	r->rp[r->nrp].is_set = is_set;
	r->rp[r->nrp].a = xstrndup(a, strlen(a));
	r->rp[r->nrp].b = b ? xstrndup(b, strlen(b)) : NULL;
	r->nrp++;
}

/* Body lines joined with '\n' (malloc'd). */
static char *body_text(const record *rec)
{
	size_t n = 1;
	for (int i = 0; i < rec->nbody; i++)
		n += strlen(rec->body[i]) + 1;
	char *s = malloc(n), *p = s;
	if (!s)
		die_oom();
	for (int i = 0; i < rec->nbody; i++) {
		size_t l = strlen(rec->body[i]);
		memcpy(p, rec->body[i], l);
		p += l;
		*p++ = '\n';
	}
	*p = 0;
	return s;
}

/* "word rest": returns rest after the directive word (skipping blanks). */
static const char *after_word(const char *s, const char *word)
{
	size_t n = strlen(word);
	if (strncmp(s, word, n) || (s[n] && s[n] != ' ' && s[n] != '\t'))
		return NULL;
	s += n;
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* ---- directives ------------------------------------------------------------ */

/* Checks an API result against an optional expected error substring. */
static void check_result(runner *r, int line, int rc, const char *want_err, const char *what)
{
	const char *msg = sl_errmsg(r->e);
	if (!want_err) {
		if (rc < 0)
			fail(r, line, "%s failed (%d): %s", what, rc, msg);
		else
			r->passed++;
	} else if (rc >= 0) {
		fail(r, line, "%s succeeded, expected an error containing \"%s\"", what, want_err);
	} else if (!strstr(msg, want_err)) {
		fail(r, line, "%s: error message does not contain \"%s\"\n  actual: %s", what, want_err,
		     msg);
	} else {
		r->passed++;
	}
}

static void do_statement(runner *r, const record *rec, const char *arg)
{
	const char *want = after_word(arg, "error");
	if (!want && strcmp(arg, "ok")) {
		fail(r, rec->line, "statement: expected 'ok' or 'error <message>'");
		return;
	}
	char *sql = body_text(rec);
	int rc = sl_exec(r->e, sql);
	check_result(r, rec->line, rc, want, "statement");
	if (!want && rc >= 0)
		replay_add(r, 0, sql, NULL);
	free(sql);
}

static void do_set(runner *r, const record *rec, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq) {
		fail(r, rec->line, "set: expected 'set <key> = <value>'");
		return;
	}
	const char *k = arg, *ke = eq, *v = eq + 1;
	while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
		ke--;
	while (*v == ' ' || *v == '\t')
		v++;
	char *key = xstrndup(k, (size_t)(ke - k));
	size_t vl = strlen(v);
	while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
		vl--;
	char *val = xstrndup(v, vl);
	if (sl_set(r->e, key, val) < 0)
		fail(r, rec->line, "set %s: %s", key, sl_errmsg(r->e));
	else
		replay_add(r, 1, key, val);
	free(key);
	free(val);
}

static void do_job(runner *r, const record *rec)
{
	char *sql = body_text(rec);
	int rc = sl_exec(r->e, sql);
	if (rc < 0)
		fail(r, rec->line, "job failed to start (%d): %s", rc, sl_errmsg(r->e));
	else
		replay_add(r, 0, sql, NULL);
	free(sql);
}

/* feed <table> [one-by-one] [error <substring>] */
static void do_feed(runner *r, const record *rec, const char *arg)
{
	const char *sp = arg;
	while (*sp && *sp != ' ' && *sp != '\t')
		sp++;
	char *table = xstrndup(arg, (size_t)(sp - arg));
	const char *rest = sp;
	while (*rest == ' ' || *rest == '\t')
		rest++;
	int one = 0;
	const char *x = after_word(rest, "one-by-one");
	if (x) {
		one = 1;
		rest = x;
	}
	const char *want = after_word(rest, "error");
	if (!want && *rest) {
		fail(r, rec->line, "feed: unexpected '%s'", rest);
		free(table);
		return;
	}
	int rc = 0;
	if (one) {
		for (int i = 0; i < rec->nbody && rc >= 0; i++)
			rc = sl_push_json(r->e, table, rec->body[i], strlen(rec->body[i]));
	} else {
		char *text = body_text(rec);
		rc = sl_push_json_lines(r->e, table, text, strlen(text));
		free(text);
	}
	poll_rows(r);
	if (want)
		check_result(r, rec->line, rc, want, "feed");
	else if (rc < 0)
		fail(r, rec->line, "feed %s failed (%d): %s", table, rc, sl_errmsg(r->e));
	free(table);
}

static void do_end(runner *r, const record *rec, const char *arg)
{
	int rc = sl_push_end(r->e, arg);
	poll_rows(r);
	if (rc < 0)
		fail(r, rec->line, "end %s failed (%d): %s", arg, rc, sl_errmsg(r->e));
}

/* Prints a diff of two sorted (or ordered) lists. */
static void print_diff(const strlist *want, const strlist *got, int ordered)
{
	printf("  expected (%d rows):\n", want->n);
	for (int i = 0; i < want->n; i++)
		printf("    %s\n", want->v[i]);
	printf("  actual (%d rows):\n", got->n);
	for (int i = 0; i < got->n; i++)
		printf("    %s\n", got->v[i]);
	printf("  diff (- expected only, + actual only%s):\n", ordered ? ", in order" : "");
	int i = 0, j = 0;
	while (i < want->n || j < got->n) {
		int c = i == want->n ? 1 : j == got->n ? -1 : strcmp(want->v[i], got->v[j]);
		if (ordered && i < want->n && j < got->n && c)
			c = -1; /* report both sides at the first difference */
		if (c == 0) {
			i++;
			j++;
		} else if (c < 0) {
			printf("  - %s\n", want->v[i++]);
			if (ordered && j < got->n)
				printf("  + %s\n", got->v[j++]);
		} else {
			printf("  + %s\n", got->v[j++]);
		}
	}
}

static void do_expect(runner *r, const record *rec, const char *arg)
{
	int ordered = !strcmp(arg, "ordered");
	if (*arg && !ordered) {
		fail(r, rec->line, "expect: unknown mode '%s'", arg);
		return;
	}
	poll_rows(r);
	strlist want = {0};
	for (int i = 0; i < rec->nbody; i++) {
		size_t l = strlen(rec->body[i]);
		while (l && (rec->body[i][l - 1] == ' ' || rec->body[i][l - 1] == '\t'))
			l--;
		list_push(&want, xstrndup(rec->body[i], l));
	}
	strlist *got = &r->pending;
	if (!ordered && want.n > 1)
		qsort(want.v, (size_t)want.n, sizeof(char *), cmp_str);
	if (!ordered && got->n > 1)
		qsort(got->v, (size_t)got->n, sizeof(char *), cmp_str);
	int same = want.n == got->n;
	for (int i = 0; same && i < want.n; i++)
		same = !strcmp(want.v[i], got->v[i]);
	if (same) {
		r->passed++;
	} else {
		fail(r, rec->line, "expect%s: results differ", ordered ? " ordered" : "");
		print_diff(&want, got, ordered);
	}
	list_clear(&want);
	free(want.v);
	list_clear(got);
}

static void do_stats(runner *r, const record *rec)
{
	const char *s = sl_job_stats(r->e, 0);
	for (int i = 0; i < rec->nbody; i++) {
		if (!strstr(s, rec->body[i])) {
			fail(r, rec->line, "stats: \"%s\" not found in:\n%s", rec->body[i], s);
			return;
		}
	}
	r->passed++;
}

/* The length of s without trailing blanks. */
static size_t trimmed_len(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n;
}

/* explain [ids]: the body is SQL, a line "----", then the expected EXPLAIN
 * text (sl_explain), line for line; with ids, the lines end with each
 * operator's state id ('sluice.explain.ids').  The SQL's DDL is applied,
 * its job only planned: no job may be running. */
static void do_explain(runner *r, const record *rec, const char *arg)
{
	int ids = !strcmp(arg, "ids");
	if (!ids && *arg) {
		fail(r, rec->line, "explain: expected 'explain' or 'explain ids', got '%s'", arg);
		return;
	}
	int sep = 0;
	while (sep < rec->nbody && strcmp(rec->body[sep], "----"))
		sep++;
	if (sep == rec->nbody) {
		fail(r, rec->line, "explain: no '----' line between the SQL and the expected plan");
		return;
	}
	record q = *rec;
	q.nbody = sep;
	char *sql = body_text(&q);
	const char *text = "";
	int rc = sl_set(r->e, "sluice.explain.ids", ids ? "true" : "false");
	if (rc >= 0)
		rc = sl_explain(r->e, sql, &text);
	free(sql);
	if (rc < 0) {
		fail(r, rec->line, "explain failed (%d): %s", rc, sl_errmsg(r->e));
		return;
	}
	/* compare line by line, trailing blanks ignored */
	const char *p = text;
	int i = sep + 1, same = 1;
	while (same && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *want = i < rec->nbody ? rec->body[i] : NULL;
		same = want && trimmed_len(p, n) == trimmed_len(want, strlen(want)) &&
		       !strncmp(p, want, trimmed_len(p, n));
		p += n + (nl != NULL);
		i++;
	}
	if (same && i == rec->nbody) {
		r->passed++;
		return;
	}
	fail(r, rec->line, "explain%s: the plan differs", ids ? " ids" : "");
	printf("  expected:\n");
	for (int k = sep + 1; k < rec->nbody; k++)
		printf("    %s\n", rec->body[k]);
	printf("  actual:\n");
	for (p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		printf("    %.*s\n", (int)n, p);
		p += n + (nl != NULL);
	}
}

static void do_snapshot(runner *r, const record *rec)
{
	free(r->snap);
	r->snap = NULL;
	if (sl_snapshot(r->e, &r->snap, &r->snap_len) < 0) {
		r->snap = NULL;
		fail(r, rec->line, "snapshot failed: %s", sl_errmsg(r->e));
	}
}

/* Closes the engine, replays the file's set/statement/job records into a
 * fresh one and restores the last snapshot into its job. */
static void do_restore(runner *r, const record *rec)
{
	if (!r->snap) {
		fail(r, rec->line, "restore without a snapshot");
		return;
	}
	poll_rows(r); /* rows emitted before the crash stay pending */
	sl_engine_close(r->e);
	r->e = NULL;
	if (engine_new(r) < 0) {
		fail(r, rec->line, "restore: cannot open an engine");
		return;
	}
	for (int i = 0; i < r->nrp; i++) {
		const replay *p = &r->rp[i];
		int rc = p->is_set ? sl_set(r->e, p->a, p->b) : sl_exec(r->e, p->a);
		if (rc < 0) {
			fail(r, rec->line, "restore: replaying '%s' failed: %s", p->a, sl_errmsg(r->e));
			return;
		}
	}
	if (sl_restore(r->e, r->snap, r->snap_len) < 0)
		fail(r, rec->line, "restore failed: %s", sl_errmsg(r->e));
	poll_rows(r);
}

/* setenv NAME = value: sets (empty value: unsets) a test-only environment
 * variable the engine reads when a job starts (SLUICE_TEST_SPLIT_BYTES). */
static void do_setenv(runner *r, const record *rec, const char *a)
{
	char name[128];
	const char *eq = strchr(a, '=');
	size_t n = eq ? (size_t)(eq - a) : 0;
	while (n > 0 && (a[n - 1] == ' ' || a[n - 1] == '\t'))
		n--;
	if (!eq || n == 0 || n >= sizeof name || r->nenv == 8) {
		fail(r, rec->line, "setenv: expected 'NAME = value'");
		return;
	}
	memcpy(name, a, n);
	name[n] = 0;
	const char *v = eq + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	if (*v ? setenv(name, v, 1) : unsetenv(name)) {
		fail(r, rec->line, "setenv: cannot set '%s'", name);
		return;
	}
	char *copy = strdup(name);
	if (!copy)
		die_oom();
	r->env[r->nenv++] = copy;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* "<n> <unit>" (d, h, min, s, ms) to micros; -1 when malformed. */
static int64_t parse_span(const char *s)
{
	char unit[8] = "";
	double n;
	if (sscanf(s, " %lf %7s", &n, unit) < 1 || n < 0)
		return -1;
	static const struct { const char *u; double us; } units[] = {
		{"d", 86400e6}, {"h", 3600e6}, {"min", 60e6}, {"s", 1e6}, {"ms", 1e3}};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].u))
			return (int64_t)(n * units[i].us + 0.5);
	return -1;
}

/* proctime 2026-08-01 10:00:00[.fff] | proctime + 1 h | proctime wall */
static void do_proctime(runner *r, const record *rec, const char *a)
{
	int y, mo, d, h, mi;
	double sec;
	int64_t t = -1;
	if (!strcmp(a, "wall")) {
		r->proc = -1;
		sl_set_processing_time(r->e, -1);
		return;
	}
	if (*a == '+') {
		int64_t span = parse_span(a + 1);
		if (span >= 0 && r->proc >= 0)
			t = r->proc + span;
	} else if (sscanf(a, "%d-%d-%d %d:%d:%lf", &y, &mo, &d, &h, &mi, &sec) == 6) {
		t = (days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60) * 1000000 +
		    (int64_t)(sec * 1e6 + 0.5);
	}
	if (t < 0) {
		fail(r, rec->line, "proctime: expected 'YYYY-MM-DD HH:MM:SS', '+ <n> <d|h|min|s|ms>' "
		     "(after a time was set) or 'wall', got '%s'", a);
		return;
	}
	r->proc = t;
	/* processing-time windows that the new time closes fire now */
	if (sl_set_processing_time(r->e, t))
		fail(r, rec->line, "proctime: %s", sl_errmsg(r->e));
	poll_rows(r);
}

/* ---- file reading and dispatch ------------------------------------------- */

static void run_record(runner *r, const record *rec)
{
	const char *h = rec->head, *a;
	if (r->skip_case && after_word(h, "reset"))
		r->skip_case = NULL;
	const char *skip = rec->skip ? rec->skip : r->skip_case;
	if (skip) {
		int counted = after_word(h, "expect") || after_word(h, "stats") ||
		              after_word(h, "statement") || after_word(h, "explain");
		if (counted) {
			printf("SKIP %s:%d: %s (%s)\n", r->file, rec->line, h, skip);
			r->skipped++;
		}
		if (after_word(h, "expect")) { /* keep the stream aligned */
			poll_rows(r);
			list_clear(&r->pending);
		}
		return;
	}
	if ((a = after_word(h, "statement")))
		do_statement(r, rec, a);
	else if ((a = after_word(h, "setenv")))
		do_setenv(r, rec, a);
	else if ((a = after_word(h, "set")))
		do_set(r, rec, a);
	else if (after_word(h, "job"))
		do_job(r, rec);
	else if (after_word(h, "run")) {
		if (!r->e || sl_run(r->e) < 0)
			fail(r, rec->line, "run failed: %s", r->e ? sl_errmsg(r->e) : "no engine");
		poll_rows(r);
	}
	else if ((a = after_word(h, "feed")))
		do_feed(r, rec, a);
	else if ((a = after_word(h, "end")))
		do_end(r, rec, a);
	else if ((a = after_word(h, "expect")))
		do_expect(r, rec, a);
	else if (after_word(h, "stats"))
		do_stats(r, rec);
	else if ((a = after_word(h, "explain")))
		do_explain(r, rec, a);
	else if (after_word(h, "snapshot"))
		do_snapshot(r, rec);
	else if (after_word(h, "restore"))
		do_restore(r, rec);
	else if (after_word(h, "reset"))
		engine_reset(r);
	else if ((a = after_word(h, "proctime")))
		do_proctime(r, rec, a);
	else
		fail(r, rec->line, "unknown directive '%s'", h);
}

/* Splits text (modified in place) into lines. */
static char **split_lines(char *text, int *n)
{
	int cap = 64;
	char **v = malloc(sizeof(char *) * (size_t)cap);
	if (!v)
		die_oom();
	*n = 0;
	for (char *p = text; *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		size_t l = strlen(p);
		if (l && p[l - 1] == '\r')
			p[l - 1] = 0;
		if (*n == cap) {
			cap *= 2;
			if (!(v = realloc(v, sizeof(char *) * (size_t)cap)))
				die_oom();
		}
		v[(*n)++] = p;
		if (!nl)
			break;
		p = nl + 1;
	}
	return v;
}

static int is_blank(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return *s == 0;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 8192, n = 0;
	char *s = malloc(cap);
	size_t k;
	while (s && (k = fread(s + n, 1, cap - n - 1, f)) > 0) {
		n += k;
		if (n + 1 == cap && !(s = realloc(s, cap *= 2)))
			break;
	}
	fclose(f);
	if (s)
		s[n] = 0;
	return s;
}

/* Runs one file; returns 0 when nothing failed. */
static int run_file(const char *path, int *tp, int *tf, int *ts)
{
	runner r = {0};
	r.file = path;
	r.proc = -1;
	char *text = read_all(path);
	if (!text) {
		printf("FAIL %s: cannot read the file\n", path);
		*tf += 1;
		return 1;
	}
	if (engine_new(&r) < 0)
		return 1;
	int n;
	char **lines = split_lines(text, &n);
	const char **body = malloc(sizeof(char *) * (size_t)(n + 1));
	if (!body)
		die_oom();
	for (int i = 0; i < n;) {
		if (is_blank(lines[i]) || lines[i][0] == '#') {
			i++;
			continue;
		}
		record rec = {i + 1, lines[i], body, 0, NULL};
		const char *sk = after_word(lines[i], "skipif");
		if (sk) {
			while (++i < n && lines[i][0] == '#')
				;
			if (i == n || is_blank(lines[i])) { /* standalone: the whole case */
				r.skip_case = sk;
				continue;
			}
			rec.skip = sk;
			rec.line = i + 1;
			rec.head = lines[i];
		}
		/* an explain record's expected plan (after "----") is verbatim:
		 * its lines start with '#' */
		int is_explain = after_word(rec.head, "explain") != NULL, verbatim = 0;
		for (i++; i < n && !is_blank(lines[i]); i++) {
			if (verbatim || lines[i][0] != '#')
				body[rec.nbody++] = lines[i];
			if (is_explain && !strcmp(lines[i], "----"))
				verbatim = 1;
		}
		run_record(&r, &rec);
	}
	*tp += r.passed;
	*tf += r.failed;
	*ts += r.skipped;
	engine_reset(&r);
	sl_engine_close(r.e);
	free(r.rp);
	free(r.pending.v);
	free(body);
	free(lines);
	free(text);
	return r.failed != 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE.slt [FILE.slt ...]\n", argv[0]);
		return 2;
	}
	int passed = 0, failed = 0, skipped = 0;
	for (int i = 1; i < argc; i++)
		run_file(argv[i], &passed, &failed, &skipped);
	if (skipped)
		printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	else
		printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
