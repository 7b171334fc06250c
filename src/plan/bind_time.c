/*
 * bind_time.c - the binder's temporal calls that are rewrites onto other
 * expressions rather than functions of their own (Flink 1.20's temporal
 * function list, docs/data/sql_functions.yml):
 *
 *   YEAR(x) .. SECOND(x)       EXTRACT(unit FROM x): YEAR, QUARTER, MONTH,
 *                              WEEK, DAYOFYEAR (DOY), DAYOFMONTH (DAY),
 *                              DAYOFWEEK (DOW, Sunday = 1), HOUR, MINUTE,
 *                              SECOND
 *   LOCALTIMESTAMP             CAST(CURRENT_TIMESTAMP AS TIMESTAMP(3)): the
 *                              job's clock as a wall clock in the session
 *                              zone ('table.local-time-zone')
 *   CURRENT_DATE               CAST(LOCALTIMESTAMP AS DATE)
 *   CURRENT_TIME, LOCALTIME    CAST(LOCALTIMESTAMP AS TIME(0))
 *   CURRENT_ROW_TIMESTAMP()    CURRENT_TIMESTAMP (TIMESTAMP_LTZ(3))
 *   (s1, e1) OVERLAPS (s2, e2) e1' >= s2' AND e2' >= s1', each pair put in
 *                              order first (s' the smaller, e' the larger);
 *                              an INTERVAL as second element is s + interval
 *
 * Current-time values read the job's processing-time clock (the manual one
 * in tests), once per evaluated row, as Flink does in streaming mode.
 */
#include "plan_int.h"
#include "sluice.h"

#include <string.h>
#include <strings.h>

static sl_expr *cast_to(planner *p, const sl_ast_expr *at, sl_expr *x, sl_type t)
{
	return x ? sl__bind_call(p, at, SL_FN_CAST, &x, 1, &t) : NULL;
}

/* LOCALTIMESTAMP: the clock as a TIMESTAMP(3) wall clock. */
static sl_expr *localtimestamp(planner *p, const sl_ast_expr *at)
{
	sl_expr *now = sl__bind_call(p, at, SL_FN_CURRENT_TIMESTAMP, NULL, 0, NULL);
	return cast_to(p, at, now, sl_type_timestamp(SL_T_TIMESTAMP, 3));
}

static const struct {
	const char *name;
	sl_time_unit unit;
} EXTRACT_FNS[] = {
	{"YEAR", SL_TU_YEAR}, {"QUARTER", SL_TU_QUARTER}, {"MONTH", SL_TU_MONTH},
	{"WEEK", SL_TU_WEEK}, {"DAYOFYEAR", SL_TU_DOY}, {"DAYOFMONTH", SL_TU_DAY},
	{"DAYOFWEEK", SL_TU_DOW}, {"HOUR", SL_TU_HOUR}, {"MINUTE", SL_TU_MINUTE},
	{"SECOND", SL_TU_SECOND},
};

/* CASE WHEN c THEN a ELSE b END */
static sl_expr *pick(planner *p, const sl_ast_expr *at, sl_expr *c, sl_expr *a, sl_expr *b)
{
	sl_expr *args[3] = {c, a, b};
	return sl__bind_call(p, at, SL_FN_CASE, args, 3, NULL);
}

/* One side of OVERLAPS: a (start, end-or-interval) row, ordered. */
static int overlaps_pair(planner *p, const scope *s, const sl_ast_expr *row, sl_expr **lo,
                         sl_expr **hi)
{
	if (row->kind != SL_AX_CALL || strcmp(row->u.call.fname, "ROW") ||
	    row->u.call.nargs != 2) {
		sl__plan_error(p, row->line, row->col, SL_EPLAN,
		               "OVERLAPS takes two (start, end) pairs: (t1, t2) OVERLAPS (t3, t4)");
		return -1;
	}
	sl_expr *a = sl__bind_expr(p, s, row->u.call.args[0]);
	sl_expr *b = a ? sl__bind_expr(p, s, row->u.call.args[1]) : NULL;
	if (!b)
		return -1;
	if (b->type.id == SL_T_INTERVAL_DT || b->type.id == SL_T_INTERVAL_YM) {
		sl_expr *ab[2] = {a, b};
		if (!(b = sl__bind_call(p, row->u.call.args[1], SL_FN_ADD, ab, 2, NULL)))
			return -1;
	}
	sl_expr *ab[2] = {a, b};
	sl_expr *le = sl__bind_call(p, row, SL_FN_LE, ab, 2, NULL);
	if (!le || !(*lo = pick(p, row, le, a, b)) || !(*hi = pick(p, row, le, b, a)))
		return -1;
	return 0;
}

static sl_expr *overlaps(planner *p, const scope *s, const sl_ast_expr *e)
{
	sl_expr *s1, *e1, *s2, *e2;
	if (overlaps_pair(p, s, e->u.call.args[0], &s1, &e1) ||
	    overlaps_pair(p, s, e->u.call.args[1], &s2, &e2))
		return NULL;
	sl_expr *x[2] = {e1, s2}, *y[2] = {e2, s1};
	sl_expr *c[2] = {sl__bind_call(p, e, SL_FN_GE, x, 2, NULL), NULL};
	if (!c[0] || !(c[1] = sl__bind_call(p, e, SL_FN_GE, y, 2, NULL)))
		return NULL;
	return sl__bind_call(p, e, SL_FN_AND, c, 2, NULL);
}

sl_expr *sl__bind_time_call(planner *p, const scope *s, const sl_ast_expr *e, int *handled)
{
	const char *f = e->u.call.fname;
	int n = e->u.call.nargs;
	*handled = 1;
	for (size_t k = 0; k < sizeof(EXTRACT_FNS) / sizeof(EXTRACT_FNS[0]); k++) {
		if (n != 1 || strcasecmp(f, EXTRACT_FNS[k].name))
			continue;
		sl_expr *args[2] = {sl_expr_lit_i64(p->a, sl_type_make(SL_T_INT), EXTRACT_FNS[k].unit),
		                    sl__bind_expr(p, s, e->u.call.args[0])};
		return args[1] ? sl__bind_call(p, e, SL_FN_EXTRACT, args, 2, NULL) : NULL;
	}
	if (!strcasecmp(f, "OVERLAPS") && n == 2)
		return overlaps(p, s, e);
	if (n == 0 && !strcasecmp(f, "LOCALTIMESTAMP"))
		return localtimestamp(p, e);
	if (n == 0 && !strcasecmp(f, "CURRENT_DATE"))
		return cast_to(p, e, localtimestamp(p, e), sl_type_make(SL_T_DATE));
	if (n == 0 && (!strcasecmp(f, "CURRENT_TIME") || !strcasecmp(f, "LOCALTIME")))
		return cast_to(p, e, localtimestamp(p, e), sl_type_make(SL_T_TIME));
	if (n == 0 && !strcasecmp(f, "CURRENT_ROW_TIMESTAMP"))
		return sl__bind_call(p, e, SL_FN_CURRENT_TIMESTAMP, NULL, 0, NULL);
	*handled = 0;
	return NULL;
}
