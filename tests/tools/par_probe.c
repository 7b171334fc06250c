/*
 * par_probe.c - whether the engine honours 'parallelism.default', for the
 * harnesses that run every slt file and property test at parallelism N > 1
 * as well as at 1 (issue 10, "Tests").
 *
 * sl_set accepts any key, so setting the option proves nothing: before the
 * parallel runtime exists, a run "at parallelism 3" is silently a run at 1.
 * The probe asks the planner instead: it plans, on a fresh engine with
 * 'parallelism.default' = n (and 'sluice.explain.exchanges' = 'true'),
 *
 *     SELECT k, COUNT(*) FROM probe GROUP BY k      (probe: a datagen table)
 *
 * and requires the EXPLAIN text to show the parallelism n: the word
 * "parallelism" followed, after any of ' ', '=', ':', '[', '"', by the
 * number n (`parallelism=3`, `parallelism=[3]`, `"parallelism" : 3`);
 * failing that, it runs the job and looks for the same in sl_job_stats(e,
 * 1).  (Not a push table: the runtime runs jobs reading push tables at 1
 * until pushing into a parallel job is built, and says so in a warning,
 * which the harnesses read per job: pp_job_serial.)  A
 * GROUP BY with a key is the operator that must run as n instances (a
 * keyless one may run at 1); sluice explain shows each operator's
 * parallelism (issue 10).  When the text does not, the harness says so
 * loudly and counts the runs at n as skipped, never as passed.
 *
 * SLUICE_TEST_ASSUME_PARALLEL=1 makes the probe answer yes without asking:
 * a self-test of the harnesses, whose comparisons at N must accept the
 * engine's results at parallelism 1 (they are the reference).
 *
 * Uses include/sluice.h only.  The answer is cached per process (for the
 * last n asked); not thread-safe.
 */
#include "par_probe.h"

#include "sluice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 when text shows "parallelism" followed by the number n. */
static int shows_parallelism(const char *text, int n)
{
	for (const char *p = text; (p = strstr(p, "parallelism")); ) {
		p += strlen("parallelism");
		while (*p == ' ' || *p == '=' || *p == ':' || *p == '[' || *p == '"')
			p++;
		char *end;
		long v = strtol(p, &end, 10);
		if (end != p && v == n && !(*end >= '0' && *end <= '9'))
			return 1;
	}
	return 0;
}

static int probe(int n, char *why, size_t cap)
{
	sl_engine *e;
	char num[16];
	const char *text = "";
	snprintf(num, sizeof(num), "%d", n);
	if (sl_engine_open(&e)) {
		snprintf(why, cap, "cannot open an engine");
		return -1;
	}
	int rc = sl_set(e, PP_OPTION, num);
	if (!rc)
		rc = sl_set(e, "sluice.explain.exchanges", "true");
	if (!rc)
		rc = sl_exec(e, "CREATE TABLE probe (k STRING, v INT) WITH ('connector' = 'datagen', "
		             "'number-of-rows' = '100')");
	if (!rc)
		rc = sl_explain(e, "SELECT k, COUNT(*) FROM probe GROUP BY k", &text);
	int ok = rc ? -1 : shows_parallelism(text, n);
	if (ok == 0) { /* or the running job's verbose stats */
		rc = sl_exec(e, "SELECT k, COUNT(*) FROM probe GROUP BY k");
		if (!rc)
			rc = sl_run(e);
		ok = rc ? -1 : shows_parallelism(sl_job_stats(e, 1), n);
	}
	if (ok < 0)
		snprintf(why, cap, "the probe job failed: %s", sl_errmsg(e));
	else if (ok == 0)
		snprintf(why, cap, "'%s' = '%s' is not honoured by this engine: neither EXPLAIN of a "
		         "GROUP BY nor its running job's stats show parallelism %d", PP_OPTION, num, n);
	sl_engine_close(e);
	return ok;
}

int pp_parallelism_effective(int n, char *why, size_t cap)
{
	static int cached_n, cached_ok;
	static char cached_why[256];
	if (cap)
		*why = 0;
	if (n <= 1)
		return 1;
	const char *assume = getenv("SLUICE_TEST_ASSUME_PARALLEL");
	if (assume && !strcmp(assume, "1"))
		return 1; /* the harness's self-test: compare as at n over whatever runs */
	if (cached_n != n) {
		cached_ok = probe(n, cached_why, sizeof(cached_why));
		cached_n = n;
	}
	if (cap)
		snprintf(why, cap, "%s", cached_why);
	return cached_ok;
}

const char *pp_job_serial(sl_engine *e)
{
	const char *w = sl_warnings(e);
	const char *p = w ? strstr(w, PP_OPTION) : NULL;
	if (!p)
		return NULL;
	while (p > w && p[-1] != '\n')
		p--;
	return p;
}

int pp_env_parallelism(int dflt)
{
	const char *s = getenv("SLUICE_TEST_PARALLELISM");
	if (!s || !*s)
		return dflt;
	char *end;
	long v = strtol(s, &end, 10);
	return *end || v < 1 || v > 1024 ? -1 : (int)v;
}
