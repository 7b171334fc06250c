/*
 * slt_runner.c - the sqllogictest-style runner of the SQL behaviour suite
 * (tests/slt/NAME.slt), a thin client of include/sluice.h only.
 *
 *     build/tools/slt_runner [--parallelism N] FILE.slt [FILE.slt ...]
 *
 * Every engine it opens gets 'parallelism.default' = N (default 1, or
 * SLUICE_TEST_PARALLELISM).  At N > 1 a file runs twice: at 1, silently,
 * keeping each expect record's rows as the reference, then at N, where an
 * expect compares as the contract says (slt_compare.h: the multiset with
 * the file's lines, each key's order with the reference, retractions never
 * ahead of their rows; after `parallel result <reason>`, what the tables
 * hold), and `skipif parallel <reason>` skips.  Before that,
 * the probe of par_probe.h must find that the engine honours the option;
 * if not, every file is reported as skipped, loudly.
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
 *   key <table> = <position>, ... | ()            the key whose order holds at
 *                                                 parallelism N (docs/testing.md)
 *   parallel result <reason>                      at N, up to the next reset:
 *                                                 compare what the tables hold,
 *                                                 not the changes
 *   skipif [parallel] <reason>                    skip the next record, or
 *                                                 alone: the case up to reset
 *                                                 (parallel: only at N > 1)
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
#include "par_probe.h"
#include "slt_compare.h"

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
	FILE *out;             /* where FAIL / SKIP lines go (the reference run: nowhere) */
	int par;               /* 'parallelism.default' of every engine */
	struct refrun *ref;    /* par > 1: the file's rows at parallelism 1, per expect;
	                          recording: where the reference run keeps them */
	int recording;         /* this is the reference run (parallelism 1) */
	sc_keys keys;          /* par > 1: each sink table's key (DESCRIBE) */
	sc_ledger got_l, ref_l; /* par > 1: what the tables hold, both runs */
	const char *result_only; /* `parallel result <reason>`: up to the next reset */
	int scramble;          /* --assume-parallel: reorder rows as a parallel run may */
	char *serial;          /* par > 1: why the case's job runs at 1 (the engine's
	                          warning), up to the next reset */
} runner;

/* The changes each expect record consumed in the run at parallelism 1, by
 * the record's line (a parallel run compares each key's order with them). */
typedef struct refrun {
	struct refrec {
		int line;
		strlist rows;
	} *v;
	int n, cap;
} refrun;

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
	fprintf(r->out, "FAIL %s:%d: ", r->file, line);
	va_start(ap, fmt);
	vfprintf(r->out, fmt, ap);
	va_end(ap);
	fprintf(r->out, "\n");
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
	char par[16];
	snprintf(par, sizeof(par), "%d", r->par);
	if (sl_set(r->e, PP_OPTION, par) < 0)
		return -1;
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
	sc_keys_clear(&r->keys);
	r->result_only = NULL;
	free(r->serial);
	r->serial = NULL;
	sc_ledger_clear(&r->got_l);
	sc_ledger_clear(&r->ref_l);
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
	const char *w = rc >= 0 && r->par > 1 && !r->serial ? pp_job_serial(r->e) : NULL;
	if (w) /* the engine runs this job at 1: its expects are not passes at N */
		r->serial = xstrndup(w, strcspn(w, "\n"));
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

/* The rows the reference run kept for the expect record at line, or NULL. */
static strlist *ref_rows(runner *r, int line)
{
	for (int i = 0; r->ref && i < r->ref->n; i++)
		if (r->ref->v[i].line == line)
			return &r->ref->v[i].rows;
	return NULL;
}

/* The reference run keeps a copy of the rows an expect record consumes. */
static void ref_record(runner *r, int line, const strlist *rows)
{
	refrun *f = r->ref;
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		if (!(f->v = realloc(f->v, sizeof(*f->v) * (size_t)f->cap)))
			die_oom();
	}
	struct refrec *rr = &f->v[f->n++];
	rr->line = line;
	memset(&rr->rows, 0, sizeof(rr->rows));
	for (int i = 0; i < rows->n; i++)
		list_push(&rr->rows, xstrndup(rows->v[i], strlen(rows->v[i])));
}

/* Learns the key of every table the lines name and the runner does not
 * know yet: a push sink's PRIMARY KEY (DESCRIBE <table>), none for the bare
 * SELECT's sink. */
static void learn_keys(runner *r, char *const *lines, int n)
{
	for (int i = 0; i < n; i++) {
		sc_change c;
		if (sc_parse(lines[i], &c) || sc_keys_find(&r->keys, c.table, c.tlen))
			continue;
		char *name = xstrndup(c.table, c.tlen);
		int ncols = 0, nkey = 0, cols[SC_MAX_KEY];
		if (strcmp(name, "select")) {
			char sql[300];
			snprintf(sql, sizeof(sql), "DESCRIBE `%s`", name);
			if (sl_exec(r->e, sql) >= 0)
				sc_parse_describe(sl_explain_text(r->e), &ncols, cols, &nkey);
		}
		if (!nkey || sc_keys_add(&r->keys, name, ncols, cols, nkey, 1))
			sc_keys_add(&r->keys, name, 0, NULL, SC_NO_KEY, 0);
		free(name);
	}
}

/* key <table> = <position>, ... | key <table> = (): the key whose changes
 * keep their order at parallelism N (1-based result columns; () the empty
 * key of a keyless operator: the table's whole output in order), declared
 * for a table the runner cannot know the key of (the bare SELECT: table
 * "select").  Inert at parallelism 1; forgotten at reset. */
static void do_key(runner *r, const record *rec, const char *a)
{
	const char *eq = strchr(a, '=');
	size_t tl = eq ? (size_t)(eq - a) : 0;
	while (tl && (a[tl - 1] == ' ' || a[tl - 1] == '\t'))
		tl--;
	int cols[SC_MAX_KEY], n = 0, ok = eq && tl;
	const char *p = eq ? eq + 1 : "";
	while (*p == ' ')
		p++;
	if (ok && !strcmp(p, "()")) {
		p += 2;
	} else {
		while (ok && *p) {
			char *end;
			long v = strtol(p, &end, 10);
			ok = end != p && v >= 1 && n < SC_MAX_KEY;
			if (ok)
				cols[n++] = (int)v - 1;
			p = end;
			while (ok && (*p == ' ' || *p == ','))
				p++;
		}
		ok = ok && n > 0;
	}
	char *table = ok ? xstrndup(a, tl) : NULL;
	if (!ok || sc_keys_add(&r->keys, table, 0, cols, n, 0))
		fail(r, rec->line, "key: expected 'key <table> = <position>[, ...]' or "
		     "'key <table> = ()'");
	free(table);
}

/* An expect record at parallelism > 1: the contract's comparison
 * (slt_compare.h) of the rows with the file's lines and with the rows of
 * the same record in the run at parallelism 1. */
static void expect_parallel(runner *r, const record *rec, const char *arg, strlist *want)
{
	strlist *ref = ref_rows(r, rec->line);
	strlist *got = &r->pending;
	char *const *rv = ref ? ref->v : want->v;
	int nr = ref ? ref->n : want->n;
	learn_keys(r, got->v, got->n);
	learn_keys(r, rv, nr);
	if (r->scramble && sc_scramble(&r->keys, got->v, got->n, (unsigned long long)rec->line))
		die_oom();
	char *msg = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&msg, &len);
	if (!m)
		die_oom();
	int bad = sc_compare_parallel(&r->keys, r->result_only != NULL, want->v, want->n, rv, nr,
	                              &r->ref_l, got->v, got->n, &r->got_l, m);
	fclose(m);
	if (bad < 0)
		die_oom();
	if (bad == 0) {
		r->passed++;
	} else {
		fail(r, rec->line, "expect%s%s at parallelism %d%s:", *arg ? " " : "", arg, r->par,
		     r->result_only ? " (parallel result)" : "");
		fputs(msg, r->out);
	}
	free(msg);
}

static void do_expect(runner *r, const record *rec, const char *arg)
{
	int ordered = !strcmp(arg, "ordered");
	if (*arg && !ordered) {
		fail(r, rec->line, "expect: unknown mode '%s'", arg);
		return;
	}
	poll_rows(r);
	if (r->recording)
		ref_record(r, rec->line, &r->pending);
	strlist want = {0};
	for (int i = 0; i < rec->nbody; i++) {
		size_t l = strlen(rec->body[i]);
		while (l && (rec->body[i][l - 1] == ' ' || rec->body[i][l - 1] == '\t'))
			l--;
		list_push(&want, xstrndup(rec->body[i], l));
	}
	strlist *got = &r->pending;
	if (r->par > 1) {
		expect_parallel(r, rec, arg, &want);
		goto done;
	}
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
		sc_print_diff(r->out, want.v, want.n, got->v, got->n, ordered);
	}
done:
	list_clear(&want);
	free(want.v);
	list_clear(got);
}

/* A skipped expect: its rows are dropped, so that the stream stays aligned,
 * after the ledgers of a parallel run (and the reference) have seen them. */
static void expect_skipped(runner *r, const record *rec)
{
	poll_rows(r);
	if (r->recording)
		ref_record(r, rec->line, &r->pending);
	if (r->par > 1) {
		strlist *ref = ref_rows(r, rec->line);
		learn_keys(r, r->pending.v, r->pending.n);
		if ((ref && sc_ledger_apply(&r->ref_l, &r->keys, ref->v, ref->n, NULL, NULL)) ||
		    sc_ledger_apply(&r->got_l, &r->keys, r->pending.v, r->pending.n, NULL, NULL))
			die_oom();
	}
	list_clear(&r->pending);
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
	fprintf(r->out, "  expected:\n");
	for (int k = sep + 1; k < rec->nbody; k++)
		fprintf(r->out, "    %s\n", rec->body[k]);
	fprintf(r->out, "  actual:\n");
	for (p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		fprintf(r->out, "    %.*s\n", (int)n, p);
		p += n + (nl != NULL);
	}
}

static void do_snapshot(runner *r, const record *rec)
{
	free(r->snap);
	r->snap = NULL;
	int rc = sl_snapshot(r->e, &r->snap, &r->snap_len);
	if (rc < 0) { /* at every parallelism (docs/parallel.md §10) */
		r->snap = NULL;
		fail(r, rec->line, "snapshot failed: %s", sl_errmsg(r->e));
	}
}

/* Closes the engine, replays the file's set/statement/job records into a
 * fresh one and restores the last snapshot into its job. */
static void do_restore(runner *r, const record *rec)
{
	if (!r->snap) {
		if (!r->serial) /* else the job ran at 1 by the engine's choice */
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
	if (!skip && r->serial && after_word(h, "expect"))
		skip = r->serial;
	if (skip) {
		int counted = after_word(h, "expect") || after_word(h, "stats") ||
		              after_word(h, "statement") || after_word(h, "explain") ||
		              (after_word(h, "feed") && strstr(h, " error")); /* an assertion too */
		if (counted) {
			fprintf(r->out, "SKIP %s:%d: %s (%s)\n", r->file, rec->line, h, skip);
			r->skipped++;
		}
		if (after_word(h, "expect")) /* keep the stream aligned */
			expect_skipped(r, rec);
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
	else if ((a = after_word(h, "key")))
		do_key(r, rec, a);
	else if ((a = after_word(h, "parallel"))) {
		/* parallel result <reason>: at N, compare what the tables hold */
		if (!after_word(a, "result") || !*after_word(a, "result"))
			fail(r, rec->line, "parallel: expected 'parallel result <reason>'");
		else
			r->result_only = after_word(a, "result");
	}
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

/* How run_file runs a file. */
typedef struct run_opts {
	int par;       /* 'parallelism.default' */
	refrun *ref;   /* the reference rows (par > 1), or where to record them */
	int recording; /* this run records the reference (at parallelism 1) */
	FILE *out;     /* FAIL / SKIP lines */
	int scramble;  /* reorder each expect's rows as a parallel run may */
} run_opts;

/* Runs one file; adds its counts to *tp, *tf, *ts and returns 0 when
 * nothing failed. */
static int run_file(const char *path, const run_opts *o, int *tp, int *tf, int *ts)
{
	runner r = {0};
	r.file = path;
	r.proc = -1;
	r.out = o->out;
	r.par = o->par;
	r.ref = o->ref;
	r.recording = o->recording;
	r.scramble = o->scramble;
	char *text = read_all(path);
	if (!text) {
		fprintf(r.out, "FAIL %s: cannot read the file\n", path);
		*tf += 1;
		return 1;
	}
	if (engine_new(&r) < 0) {
		fprintf(r.out, "FAIL %s: cannot open an engine: %s\n", path, sl_errmsg(r.e));
		*tf += 1;
		sl_engine_close(r.e);
		free(text);
		return 1;
	}
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
			/* skipif parallel <reason>: only at parallelism > 1 */
			int inert = after_word(sk, "parallel") && r.par <= 1;
			while (++i < n && lines[i][0] == '#')
				;
			if (i == n || is_blank(lines[i])) { /* standalone: the whole case */
				if (!inert)
					r.skip_case = sk;
				continue;
			}
			rec.skip = inert ? NULL : sk;
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
	free(r.serial);
	sc_keys_free(&r.keys);
	sc_ledger_free(&r.got_l);
	sc_ledger_free(&r.ref_l);
	free(body);
	free(lines);
	free(text);
	return r.failed != 0;
}

static void refrun_free(refrun *f)
{
	for (int i = 0; i < f->n; i++) {
		list_clear(&f->v[i].rows);
		free(f->v[i].rows.v);
	}
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/* Runs a file at parallelism par > 1: first at 1, silently, to record the
 * reference rows of each expect record, then at par. */
static void run_parallel(const char *path, int par, int *tp, int *tf, int *ts)
{
	refrun ref = {0};
	FILE *null = fopen("/dev/null", "w");
	if (!null) {
		fprintf(stderr, "slt_runner: cannot open /dev/null\n");
		exit(2);
	}
	run_opts o = {1, &ref, 1, null, 0};
	int rp = 0, rf = 0, rs = 0;
	run_file(path, &o, &rp, &rf, &rs);
	fclose(null);
	if (rf)
		printf("NOTE %s: %d record(s) fail at parallelism 1 too (the reference of the run "
		       "at %d): run the file without --parallelism to see them\n", path, rf, par);
	const char *assume = getenv("SLUICE_TEST_ASSUME_PARALLEL");
	o = (run_opts){par, &ref, 0, stdout, assume && !strcmp(assume, "1")};
	run_file(path, &o, tp, tf, ts);
	refrun_free(&ref);
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [--assume-parallel] [--parallelism N] FILE.slt [FILE.slt ...]\n"
	        "  N also from SLUICE_TEST_PARALLELISM; default 1.  --assume-parallel (or\n"
	        "  SLUICE_TEST_ASSUME_PARALLEL=1): compare as at N even when the engine does not\n"
	        "  honour 'parallelism.default', each expect's rows reordered at random as a\n"
	        "  parallel run may (a self-test of the comparison: the run at 1 must pass it)\n",
	        argv0);
	return 2;
}

int main(int argc, char **argv)
{
	int par = pp_env_parallelism(1), first = 1;
	while (first < argc && !strcmp(argv[first], "--assume-parallel")) {
		/* the harness's self-test: see usage() */
		setenv("SLUICE_TEST_ASSUME_PARALLEL", "1", 1);
		first++;
	}
	while (first < argc && !strncmp(argv[first], "--parallelism", 13)) {
		const char *v = argv[first][13] == '=' ? argv[first] + 14
		                : !argv[first][13] && first + 1 < argc ? argv[++first] : NULL;
		char *end = NULL;
		par = v ? (int)strtol(v, &end, 10) : -1;
		if (!v || *end || par < 1)
			return usage(argv[0]);
		first++;
	}
	if (par < 1) {
		fprintf(stderr, "slt_runner: SLUICE_TEST_PARALLELISM must be a positive integer\n");
		return 2;
	}
	if (first >= argc)
		return usage(argv[0]);
	int passed = 0, failed = 0, skipped = 0;
	char why[256];
	int eff = pp_parallelism_effective(par, why, sizeof(why));
	if (eff != 1) {
		/* loudly: a run at 1 must not pass for a run at par */
		fprintf(stderr, "slt_runner: PARALLELISM %d NOT IN EFFECT: %s; nothing is run at "
		        "parallelism %d\n", par, why, par);
		for (int i = first; i < argc; i++)
			printf("SKIP %s: not run at parallelism %d: %s\n", argv[i], par, why);
		skipped = argc - first;
		failed = eff < 0 ? skipped : 0; /* the probe failing is an error */
		skipped = eff < 0 ? 0 : skipped;
	} else {
		run_opts o = {1, NULL, 0, stdout, 0};
		for (int i = first; i < argc; i++) {
			if (par > 1)
				run_parallel(argv[i], par, &passed, &failed, &skipped);
			else
				run_file(argv[i], &o, &passed, &failed, &skipped);
		}
	}
	if (skipped)
		printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	else
		printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
