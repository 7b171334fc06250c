/*
 * fn_time.c - temporal function kernels: EXTRACT, FLOOR/CEIL(ts TO unit),
 * DATE_TRUNC, DATE_FORMAT, TO_TIMESTAMP, TO_TIMESTAMP_LTZ, TO_DATE,
 * UNIX_TIMESTAMP, CURRENT_WATERMARK, PROCTIME, CURRENT_TIMESTAMP,
 * TIMESTAMPADD, TIMESTAMPDIFF, CONVERT_TZ and FROM_UNIXTIME.  (YEAR ...
 * SECOND, OVERLAPS, LOCALTIMESTAMP, CURRENT_DATE and CURRENT_TIME are
 * rewritten onto these by the binder, src/plan/bind_time.c.)
 *
 * Values are integers (types.h).  Calendar work happens on the "wall
 * clock": a TIMESTAMP is one already, a DATE is its midnight, and a
 * TIMESTAMP_LTZ instant is shifted into the session zone (ctx->tz,
 * 'table.local-time-zone') first and shifted back afterwards, so
 * FLOOR(ltz TO DAY) is local midnight.  Unit arguments are INT literals
 * holding an sl_time_unit (DATE_TRUNC takes PostgreSQL's unit names as a
 * string literal).  Java date patterns (DATE_FORMAT, TO_TIMESTAMP, ...)
 * are compiled once at bind time when literal, otherwise per distinct
 * pattern (cached in the step), in the letters of the Java class Flink
 * uses for the function (bind_pattern's callers: DateTimeFormatter for
 * DATE_FORMAT of a TIMESTAMP and TO_TIMESTAMP, SimpleDateFormat for the
 * rest; base/timeutil.h).  EXTRACT's MILLISECOND, MICROSECOND and
 * NANOSECOND are the part within the second, and TIMESTAMPDIFF counts
 * months as Calcite's subtractMonths, both as Flink 1.20.  Text that does not parse gives NULL, as
 * in Flink (UNIX_TIMESTAMP: Long.MIN_VALUE, as in Flink).
 */
#include "expr_int.h"
#include "base/timeutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Offset of the session zone at a UTC instant (0 for UTC or an unknown zone). */
int64_t sl__tz_off(const sl_xctx *x, int64_t utc_us)
{
	const char *tz = x->ctx ? x->ctx->tz : NULL;
	int64_t off = 0;
	if (!tz || !*tz || !strcmp(tz, "UTC"))
		return 0;
	if (sl_tz_offset(tz, utc_us, &off))
		return 0;
	return off;
}

static int64_t to_wall(const sl_xctx *x, int id, int64_t v)
{
	switch (id) {
	case SL_T_DATE: return v * SL_US_PER_DAY;
	case SL_T_TIMESTAMP_LTZ: return v + sl__tz_off(x, v);
	default: return v;
	}
}

static int64_t from_wall(const sl_xctx *x, int id, int64_t w)
{
	switch (id) {
	case SL_T_DATE: return sl_floordiv(w, SL_US_PER_DAY);
	case SL_T_TIMESTAMP_LTZ: {
		int64_t off = sl__tz_off(x, w);
		return w - sl__tz_off(x, w - off);
	}
	default: return w;
	}
}

static const int64_t US_OF[] = {
	[SL_TU_MICROSECOND] = 1, [SL_TU_MILLISECOND] = 1000, [SL_TU_SECOND] = SL_US_PER_SEC,
	[SL_TU_MINUTE] = 60 * SL_US_PER_SEC, [SL_TU_HOUR] = 3600 * SL_US_PER_SEC,
	[SL_TU_DAY] = SL_US_PER_DAY, [SL_TU_WEEK] = 7 * SL_US_PER_DAY,
};

/* Months in a calendar unit, 0 for fixed-length units. */
static int unit_months(int u)
{
	switch (u) {
	case SL_TU_MONTH: return 1;
	case SL_TU_QUARTER: return 3;
	case SL_TU_YEAR: return 12;
	case SL_TU_DECADE: return 120;
	case SL_TU_CENTURY: return 1200;
	case SL_TU_MILLENNIUM: return 12000;
	default: return 0;
	}
}

/* Floors wall-clock micros to a unit; weeks start on Sunday (Flink) or
 * Monday (monday = 1, DATE_TRUNC as PostgreSQL). */
static int64_t floor_wall(int64_t w, int u, int monday)
{
	if (u == SL_TU_WEEK) {
		int64_t days = sl_floordiv(w, SL_US_PER_DAY);
		days -= sl_floormod(days + (monday ? 3 : 4), 7);
		return days * SL_US_PER_DAY;
	}
	if (u <= SL_TU_DAY)
		return sl_floordiv(w, US_OF[u]) * US_OF[u];
	int64_t y;
	unsigned m, d;
	sl_civil_from_days(sl_floordiv(w, SL_US_PER_DAY), &y, &m, &d);
	int64_t mm = y * 12 + (m - 1), um = unit_months(u);
	if (u == SL_TU_CENTURY || u == SL_TU_MILLENNIUM) /* the 21st century starts in 2001 */
		mm = sl_floordiv(mm - 12, um) * um + 12;
	else
		mm = sl_floordiv(mm, um) * um;
	return sl_days_from_civil(sl_floordiv(mm, 12), (unsigned)sl_floormod(mm, 12) + 1, 1) *
	       SL_US_PER_DAY;
}

static int64_t ceil_wall(int64_t w, int u, int monday)
{
	int64_t f = floor_wall(w, u, monday);
	if (f == w)
		return w;
	if (u <= SL_TU_WEEK)
		return f + US_OF[u];
	return sl__add_months_us(f, unit_months(u));
}

static int unit_ok_for_floor(int64_t u)
{
	return u >= SL_TU_MICROSECOND && u <= SL_TU_MILLENNIUM && u != SL_TU_DOW &&
	       u != SL_TU_DOY && u != SL_TU_EPOCH;
}

/* FLOOR/CEIL(x TO unit), DATE_TRUNC: unit in st->op, monday in st->k1. */
static int k_floor_time(sl_xctx *x, const sl_step *st)
{
	int xi = st->fn == SL_FN_DATE_TRUNC ? 1 : 0;
	const sl_col *a = SL_X_ARG(x, st, xi);
	sl_col *o = SL_X_OUT(x, st);
	int id = st->type.id, u = st->op, mon = (int)st->k1, ceil_ = st->fn == SL_FN_CEIL_TIME;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = a->null[i];
		if (o->null[i])
			continue;
		int64_t w = to_wall(x, id, a->v.i64[i]);
		w = ceil_ ? ceil_wall(w, u, mon) : floor_wall(w, u, mon);
		o->v.i64[i] = from_wall(x, id, w);
	});
	return 0;
}

static int64_t extract_interval(int id, int u, int64_t v)
{
	if (id == SL_T_INTERVAL_YM)
		return u == SL_TU_YEAR ? v / 12 : u == SL_TU_MONTH ? v % 12
		     : u == SL_TU_QUARTER ? ((v % 12) - 1) / 3 + 1 : 0; /* Flink's ExtractCallGen */
	switch (u) {
	case SL_TU_DAY: return v / SL_US_PER_DAY;
	case SL_TU_HOUR: return v / US_OF[SL_TU_HOUR] % 24;
	case SL_TU_MINUTE: return v / US_OF[SL_TU_MINUTE] % 60;
	case SL_TU_SECOND: return v / SL_US_PER_SEC % 60;
	case SL_TU_MILLISECOND: return v / 1000 % 1000; /* within the second, as Flink */
	case SL_TU_MICROSECOND: return v % 1000000;
	case SL_TU_NANOSECOND: return v % 1000000 * 1000;
	case SL_TU_EPOCH: return v / SL_US_PER_SEC;
	default: return 0;
	}
}

static int64_t extract_wall(int u, int64_t w)
{
	int64_t days = sl_floordiv(w, SL_US_PER_DAY), tod = sl_floormod(w, SL_US_PER_DAY);
	int64_t y;
	unsigned m, d;
	sl_civil_from_days(days, &y, &m, &d);
	switch (u) {
	/* within the second, as Flink 1.20 (DateTimeUtils.convertExtract: the
	 * factor of MILLISECOND, MICROSECOND and NANOSECOND is one second) */
	case SL_TU_NANOSECOND: return tod % 1000000 * 1000;
	case SL_TU_MICROSECOND: return tod % 1000000;
	case SL_TU_MILLISECOND: return tod / 1000 % 1000;
	case SL_TU_SECOND: return tod / SL_US_PER_SEC % 60;
	case SL_TU_MINUTE: return tod / US_OF[SL_TU_MINUTE] % 60;
	case SL_TU_HOUR: return tod / US_OF[SL_TU_HOUR];
	case SL_TU_DAY: return d;
	case SL_TU_MONTH: return m;
	case SL_TU_QUARTER: return (m - 1) / 3 + 1;
	case SL_TU_YEAR: return y;
	case SL_TU_DOW: return sl_floormod(days + 4, 7) + 1; /* Sunday = 1 */
	case SL_TU_DOY: return days - sl_days_from_civil(y, 1, 1) + 1;
	case SL_TU_EPOCH: return sl_floordiv(w, SL_US_PER_SEC);
	case SL_TU_DECADE: return sl_floordiv(y, 10);
	case SL_TU_CENTURY: return y > 0 ? (y + 99) / 100 : -((99 - y) / 100);
	case SL_TU_MILLENNIUM: return y > 0 ? (y + 999) / 1000 : -((999 - y) / 1000);
	case SL_TU_ISODOW: return sl_floormod(days + 3, 7) + 1; /* Monday = 1 */
	case SL_TU_WEEK: case SL_TU_ISOYEAR: { /* ISO-8601 week number, its year */
		int64_t wd = sl_floormod(days + 3, 7);        /* Monday = 0 */
		int64_t thu = days - wd + 3;                  /* Thursday of this week */
		int64_t ty;
		unsigned tm, td;
		sl_civil_from_days(thu, &ty, &tm, &td);
		if (u == SL_TU_ISOYEAR)
			return ty;
		return (thu - sl_days_from_civil(ty, 1, 1)) / 7 + 1;
	}
	default: return 0;
	}
}

static int k_extract(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 1);
	sl_col *o = SL_X_OUT(x, st);
	int id = x->p->regs[st->args[1]].type.id, u = st->op;
	int iv = id == SL_T_INTERVAL_DT || id == SL_T_INTERVAL_YM;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = a->null[i];
		if (o->null[i])
			continue;
		int64_t v = a->v.i64[i];
		if (iv)
			o->v.i64[i] = extract_interval(id, u, v);
		else if (u == SL_TU_EPOCH && id == SL_T_TIMESTAMP_LTZ)
			o->v.i64[i] = sl_floordiv(v, SL_US_PER_SEC);
		else
			o->v.i64[i] = extract_wall(u, to_wall(x, id, v));
	});
	return 0;
}

/* ---- patterns ----------------------------------------------------------- */

typedef struct dfmt {
	sl_datefmt *f;
	sl_datefmt *in; /* DATE_FORMAT of a string: SimpleDateFormat's reader */
	int flags;      /* sl_datefmt_compile_as's: which Java class, which way */
	char *last;
	size_t last_len;
} dfmt;

static void dfmt_free(void *ptr)
{
	dfmt *d = ptr;
	if (!d)
		return;
	sl_datefmt_free(d->f);
	sl_datefmt_free(d->in);
	free(d->last);
	free(d);
}

static int dfmt_set(dfmt *d, const char *p, size_t n, char *msg, size_t cap)
{
	if (d->f && d->last && n == d->last_len && !memcmp(d->last, p, n))
		return 0;
	char *pz = malloc(n + 1);
	if (!pz)
		return SL_ENOMEM;
	memcpy(pz, p, n);
	pz[n] = 0;
	sl_datefmt *f = sl_datefmt_compile_as(pz, d->flags, msg, cap);
	if (!f) {
		free(pz);
		return SL_EPLAN;
	}
	sl_datefmt_free(d->f);
	free(d->last);
	d->f = f;
	d->last = pz;
	d->last_len = n;
	return 0;
}

/* The pattern for row i: argument j when present, else the default. */
static int row_fmt(sl_xctx *x, const sl_step *st, int j, int i)
{
	dfmt *d = st->aux;
	if (j >= st->nargs || sl__step_const(x->p, st, j))
		return 0;
	const sl_col *pc = SL_X_ARG(x, st, j);
	char msg[200];
	int rc = dfmt_set(d, pc->v.str[i].ptr, (size_t)pc->v.str[i].len, msg, sizeof(msg));
	if (rc == SL_ENOMEM)
		return sl_err_set(x->err, rc, "out of memory");
	if (rc)
		return sl_err_set(x->err, SL_ERUNTIME, "%s: %s", sl_fn_name(st->fn), msg);
	return 0;
}

static int any_null(const sl_xctx *x, const sl_step *st, int i)
{
	for (int j = 0; j < st->nargs; j++)
		if (SL_X_ARG(x, st, j)->null[i])
			return 1;
	return 0;
}

static int k_date_format(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	sl_arena *ar = sl__x_arena(x, st);
	int id = x->p->regs[st->args[0]].type.id;
	dfmt *d = st->aux;
	/* With a constant pattern without fractions, rows of the same second
	 * share the previous row's string (batch-local: the arena's strings
	 * live as long as the output).  Why: formatting was 10% of Nexmark
	 * q15/q16 (callgrind), whose rows arrive in time order. */
	int reuse = sl__step_const(x->p, st, 1) && !sl_datefmt_has_fraction(d->f);
	int64_t last_sec = 0;
	const char *last = NULL;
	int last_n = 0;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = 1;
		if (any_null(x, st, i))
			continue;
		int rc = row_fmt(x, st, 1, i);
		if (rc)
			return rc;
		int64_t w, off = 0;
		if (d->in) { /* Flink: SimpleDateFormat 'yyyy-MM-dd HH:mm:ss' in UTC, whatever
			              * the session zone (DateTimeUtils.formatTimestampString) */
			if (sl_datefmt_parse_ex(d->in, a->v.str[i].ptr, (size_t)a->v.str[i].len, 1, &w,
			                        NULL))
				continue;
		} else {
			w = to_wall(x, id, a->v.i64[i]);
		}
		int64_t sec = sl_floordiv(w, SL_US_PER_SEC);
		if (reuse && last && sec == last_sec) {
			o->null[i] = 0;
			o->v.str[i].ptr = last;
			o->v.str[i].len = last_n;
			continue;
		}
		char buf[256];
		int n = sl_datefmt_format_at(d->f, w, off, buf, sizeof(buf));
		if (n < 0)
			continue;
		char *s = sl_arena_memdup(ar, buf, (size_t)n + 1);
		if (!s)
			return sl_err_set(x->err, SL_ENOMEM, "out of memory in DATE_FORMAT");
		s[n] = 0;
		o->null[i] = 0;
		o->v.str[i].ptr = s;
		o->v.str[i].len = n;
		last = s;
		last_n = n;
		last_sec = sec;
	});
	return 0;
}

/* TO_TIMESTAMP, TO_DATE. */
static int k_parse_time(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	dfmt *d = st->aux;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = 1;
		if (any_null(x, st, i))
			continue;
		int rc = row_fmt(x, st, 1, i);
		if (rc)
			return rc;
		int64_t w;
		const char *s = a->v.str[i].ptr;
		size_t n = (size_t)a->v.str[i].len;
		/* TO_DATE's SimpleDateFormat.parse ignores text after the pattern */
		if (d->f ? sl_datefmt_parse_ex(d->f, s, n, st->fn == SL_FN_TO_DATE, &w, NULL)
		         : (st->fn == SL_FN_TO_DATE ? sl_date_parse(s, n, &w) ||
		                                          ((w *= SL_US_PER_DAY), 0)
		                                    : sl_ts_parse(s, n, &w)))
			continue;
		o->null[i] = 0;
		if (st->fn == SL_FN_TO_DATE)
			o->v.i64[i] = sl_floordiv(w, SL_US_PER_DAY);
		else
			o->v.i64[i] = sl_floordiv(w, 1000) * 1000;
	});
	return 0;
}

/*
 * UNIX_TIMESTAMP(string [, pattern]) as Flink (Java's SimpleDateFormat):
 * text after the pattern is ignored, the wall clock is read in the session
 * zone unless the pattern reads an offset (X), and text that does not
 * parse gives Long.MIN_VALUE, not NULL (sql_functions.yml's examples).
 */
static int k_unix_ts(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	dfmt *d = st->aux;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = 1;
		if (any_null(x, st, i))
			continue;
		int rc = row_fmt(x, st, 1, i);
		if (rc)
			return rc;
		int64_t w;
		int off = 0;
		o->null[i] = 0;
		if (!d->f || sl_datefmt_parse_ex(d->f, a->v.str[i].ptr, (size_t)a->v.str[i].len, 1, &w,
		                                 &off)) {
			o->v.i64[i] = INT64_MIN;
			continue;
		}
		o->v.i64[i] = sl_floordiv(off ? w : from_wall(x, SL_T_TIMESTAMP_LTZ, w), SL_US_PER_SEC);
	});
	return 0;
}

static int ltz_precision_err(sl_xctx *x, int64_t prec)
{
	return sl_err_set(x->err, SL_ERUNTIME, "TO_TIMESTAMP_LTZ precision must be 0 or 3, got %lld",
	                  (long long)prec);
}

/*
 * TO_TIMESTAMP_LTZ(BIGINT epoch [, precision]): epoch * 1000 or 10^6 is
 * already whole milliseconds, so the general kernel's round-down is only
 * needed when the product wraps.  Why a loop of its own: per row the
 * general one called any_null and chose among three argument kinds; it was
 * 5-6% of the datagen window benchmark (ts AS TO_TIMESTAMP_LTZ(seq, 3)).
 */
static int ltz_i64(sl_xctx *x, const sl_step *st, const sl_col *a, const sl_col *pc, sl_col *o)
{
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = (uint8_t)(a->null[i] | (pc ? pc->null[i] : 0));
		if (o->null[i])
			continue;
		int64_t prec = pc ? pc->v.i64[i] : 3;
		if (prec != 0 && prec != 3)
			return ltz_precision_err(x, prec);
		int64_t mul = prec == 0 ? SL_US_PER_SEC : 1000, us;
		if (__builtin_mul_overflow(a->v.i64[i], mul, &us))
			us = sl_floordiv((int64_t)((uint64_t)a->v.i64[i] * (uint64_t)mul), 1000) * 1000;
		o->v.i64[i] = us;
	});
	return 0;
}

static int k_to_ltz(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	const sl_col *pc = st->nargs > 1 ? SL_X_ARG(x, st, 1) : NULL;
	sl_col *o = SL_X_OUT(x, st);
	sl_phys ph = sl_type_phys(x->p->regs[st->args[0]].type);
	int sc = x->p->regs[st->args[0]].type.scale;
	if (ph == SL_PHYS_I64)
		return ltz_i64(x, st, a, pc, o);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = any_null(x, st, i);
		if (o->null[i])
			continue;
		int64_t prec = pc ? pc->v.i64[i] : 3;
		if (prec != 0 && prec != 3)
			return ltz_precision_err(x, prec);
		int64_t mul = prec == 0 ? SL_US_PER_SEC : 1000;
		double dv = ph == SL_PHYS_F64 ? a->v.f64[i]
		          : ph == SL_PHYS_I128 ? (double)a->v.i128[i] / (double)sl_pow10_i128(sc) : 0;
		int64_t us = ph == SL_PHYS_I64 ? a->v.i64[i] * mul : (int64_t)(dv * (double)mul);
		o->v.i64[i] = sl_floordiv(us, 1000) * 1000;
	});
	return 0;
}

static int k_now(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	int64_t now = x->ctx->proctime;
	int64_t v = st->fn == SL_FN_UNIX_TIMESTAMP ? sl_floordiv(now, SL_US_PER_SEC)
	                                           : sl_floordiv(now, 1000) * 1000;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = 0;
		o->v.i64[i] = v;
	});
	return 0;
}

static int k_current_watermark(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	const int64_t *wm = x->in->wm;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = wm[i] == SL_WM_MIN;
		o->v.i64[i] = o->null[i] ? 0 : wm[i];
	});
	return 0;
}

/* TIMESTAMPADD(unit, n, x): unit in st->op. */
static int k_tsadd(sl_xctx *x, const sl_step *st)
{
	const sl_col *n = SL_X_ARG(x, st, 1), *a = SL_X_ARG(x, st, 2);
	sl_col *o = SL_X_OUT(x, st);
	int id = st->type.id, u = st->op, um = unit_months(u);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = n->null[i] | a->null[i];
		if (o->null[i])
			continue;
		int64_t w = to_wall(x, id, a->v.i64[i]);
		w = um ? sl__add_months_us(w, n->v.i64[i] * um) : w + n->v.i64[i] * US_OF[u];
		o->v.i64[i] = from_wall(x, id, w);
	});
	return 0;
}

/* Whole months from day d1 to day d0, where adding months keeps the day
 * or clamps it to the month's end (Calcite's subtractMonths(int, int)). */
static int64_t sub_months_days(int64_t d0, int64_t d1)
{
	if (d0 < d1)
		return -sub_months_days(d1, d0);
	int64_t m = (d0 - d1) / 31; /* no month is longer: m is not too big */
	for (;;) {
		if (sl__add_months_us(d1 * SL_US_PER_DAY, m) >= d0 * SL_US_PER_DAY ||
		    sl__add_months_us(d1 * SL_US_PER_DAY, m + 1) > d0 * SL_US_PER_DAY)
			return m;
		m++;
	}
}

/*
 * TIMESTAMPDIFF's months from w1 to w2, as Flink 1.20 (DateTimeUtils.
 * subtractMonths(long, long), after Calcite's) on milliseconds: the months
 * between the days, one less when adding them lands on w2's day at a later
 * time.  2024-02-29 to 2025-02-28 is 12 months (2024-02-29 + 12 months is
 * 2025-02-28).
 */
static int64_t months_between(int64_t w1, int64_t w2)
{
	int64_t t0 = sl_floordiv(w2, 1000), t1 = sl_floordiv(w1, 1000);
	int64_t ms0 = sl_floormod(t0, 86400000), ms1 = sl_floormod(t1, 86400000);
	int64_t d0 = (t0 - ms0) / 86400000, d1 = (t1 - ms1) / 86400000;
	int64_t x = sub_months_days(d0, d1);
	if (sl__add_months_us(d1 * SL_US_PER_DAY, x) == d0 * SL_US_PER_DAY && ms0 < ms1)
		x--;
	return x;
}

static int k_tsdiff(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 1), *b = SL_X_ARG(x, st, 2);
	sl_col *o = SL_X_OUT(x, st);
	int ia = x->p->regs[st->args[1]].type.id, ib = x->p->regs[st->args[2]].type.id;
	int u = st->op, um = unit_months(u);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = a->null[i] | b->null[i];
		if (o->null[i])
			continue;
		int64_t wa = to_wall(x, ia, a->v.i64[i]), wb = to_wall(x, ib, b->v.i64[i]);
		int64_t r = um ? months_between(wa, wb) / um : (wb - wa) / US_OF[u];
		o->v.i64[i] = (int32_t)r;
	});
	return 0;
}

/* ---- CONVERT_TZ, FROM_UNIXTIME ------------------------------------------ */

/* Java's three-letter zone IDs (java.time.ZoneId.SHORT_IDS, which
 * java.util.TimeZone also knows), as CONVERT_TZ accepts them ("PST"). */
static const char *const SHORT_IDS[][2] = {
	{"ACT", "Australia/Darwin"}, {"AET", "Australia/Sydney"},
	{"AGT", "America/Argentina/Buenos_Aires"}, {"ART", "Africa/Cairo"},
	{"AST", "America/Anchorage"}, {"BET", "America/Sao_Paulo"}, {"BST", "Asia/Dhaka"},
	{"CAT", "Africa/Harare"}, {"CNT", "America/St_Johns"}, {"CST", "America/Chicago"},
	{"CTT", "Asia/Shanghai"}, {"EAT", "Africa/Addis_Ababa"}, {"ECT", "Europe/Paris"},
	{"IET", "America/Indiana/Indianapolis"}, {"IST", "Asia/Kolkata"}, {"JST", "Asia/Tokyo"},
	{"MIT", "Pacific/Apia"}, {"NET", "Asia/Yerevan"}, {"NST", "Pacific/Auckland"},
	{"PLT", "Asia/Karachi"}, {"PNT", "America/Phoenix"}, {"PRT", "America/Puerto_Rico"},
	{"PST", "America/Los_Angeles"}, {"SST", "Pacific/Guadalcanal"},
	{"VST", "Asia/Ho_Chi_Minh"}, {"EST", "-05:00"}, {"MST", "-07:00"}, {"HST", "-10:00"},
};

/* Offset of the zone named (p, n) at UTC instant utc; an unknown zone is
 * GMT, as Java's TimeZone.getTimeZone gives it to Flink. */
static int64_t zone_off(const char *p, int64_t n, int64_t utc)
{
	char name[128];
	int64_t off = 0;
	if (n <= 0 || n >= (int64_t)sizeof(name))
		return 0;
	memcpy(name, p, (size_t)n);
	name[n] = 0;
	const char *z = name;
	for (size_t k = 0; k < sizeof(SHORT_IDS) / sizeof(SHORT_IDS[0]); k++)
		if (!strcmp(name, SHORT_IDS[k][0]))
			z = SHORT_IDS[k][1];
	if (sl_tz_offset(z, utc, &off))
		return 0;
	return off;
}

/* Writes the wall clock w as 'yyyy-MM-dd HH:mm:ss' or per d's pattern into
 * the step's arena as row i's result. */
static int put_wall(sl_xctx *x, const sl_step *st, const sl_datefmt *f, int64_t w, int64_t off,
                    sl_col *o, int i)
{
	char buf[256];
	int n = f ? sl_datefmt_format_at(f, w, off, buf, sizeof(buf)) : sl_ts_format(w, 0, 0, 0, buf);
	if (n < 0 || n >= (int)sizeof(buf)) {
		o->null[i] = 1;
		return 0;
	}
	char *s = sl_arena_memdup(sl__x_arena(x, st), buf, (size_t)n + 1);
	if (!s)
		return sl_err_set(x->err, SL_ENOMEM, "out of memory in %s", sl_fn_name(st->fn));
	o->null[i] = 0;
	o->v.str[i].ptr = s;
	o->v.str[i].len = n;
	return 0;
}

/* CONVERT_TZ(string, from, to): the wall clock in zone `from` as the wall
 * clock in zone `to` (Flink: 'yyyy-MM-dd HH:mm:ss' in and out). */
static int k_convert_tz(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0), *zf = SL_X_ARG(x, st, 1), *zt = SL_X_ARG(x, st, 2);
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = 1;
		int64_t w;
		if (any_null(x, st, i) || sl_ts_parse(a->v.str[i].ptr, (size_t)a->v.str[i].len, &w))
			continue;
		const char *fp = zf->v.str[i].ptr, *tp = zt->v.str[i].ptr;
		int64_t fl = zf->v.str[i].len, tl = zt->v.str[i].len;
		int64_t utc = w - zone_off(fp, fl, w - zone_off(fp, fl, w));
		int rc = put_wall(x, st, NULL, sl_floordiv(utc + zone_off(tp, tl, utc), SL_US_PER_SEC) *
		                                     SL_US_PER_SEC, 0, o, i);
		if (rc)
			return rc;
	});
	return 0;
}

/* FROM_UNIXTIME(seconds [, pattern]): the instant in the session zone,
 * as 'yyyy-MM-dd HH:mm:ss' or per the pattern. */
static int k_from_unixtime(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	sl_type at = x->p->regs[st->args[0]].type;
	sl_phys ph = sl_type_phys(at);
	dfmt *d = st->aux;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = 1;
		if (any_null(x, st, i))
			continue;
		int rc = row_fmt(x, st, 1, i);
		if (rc)
			return rc;
		int64_t sec = ph == SL_PHYS_I64 ? a->v.i64[i]
		            : ph == SL_PHYS_F64 ? (int64_t)a->v.f64[i]
		            : (int64_t)(a->v.i128[i] / sl_pow10_i128(at.scale));
		int64_t us;
		if (__builtin_mul_overflow(sec, SL_US_PER_SEC, &us))
			continue;
		int64_t off = sl__tz_off(x, us);
		if ((rc = put_wall(x, st, d->f, us + off, off, o, i)))
			return rc;
	});
	return 0;
}

/* ---- binding ------------------------------------------------------------ */

static int const_unit(sl_prog *p, sl_step *st, int j, sl_err *err)
{
	const sl_value *v = sl__step_const(p, st, j);
	if (!v || v->is_null || v->v.i64 < 0 || v->v.i64 > SL_TU_NANOSECOND)
		return sl_err_set(err, SL_EPLAN, "%s needs a time unit literal", sl_fn_name(st->fn));
	st->op = (int)v->v.i64;
	return 0;
}

/* Compiles argument j's pattern (or dflt without one) when it is a literal,
 * as a pattern of `flags` (sl_datefmt_compile_as); a pattern read from a
 * column is compiled per distinct value (row_fmt). */
static int bind_pattern(sl_prog *p, sl_step *st, int j, const char *dflt, int flags,
                        sl_err *err)
{
	dfmt *d = calloc(1, sizeof(*d));
	if (!d || sl__prog_on_free(p, dfmt_free, d))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	st->aux = d;
	d->flags = flags;
	if (st->fn == SL_FN_DATE_FORMAT && (flags & SL_DATEFMT_SIMPLE)) {
		char msg[200];
		d->in = sl_datefmt_compile_as("yyyy-MM-dd HH:mm:ss", SL_DATEFMT_SIMPLE, msg, sizeof(msg));
		if (!d->in)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	const sl_value *v = sl__step_const(p, st, j);
	const char *pat = dflt;
	size_t n = dflt ? strlen(dflt) : 0;
	if (j < st->nargs) {
		if (!v)
			return 0; /* per row */
		if (v->is_null)
			return 0;
		pat = v->v.str.ptr;
		n = (size_t)v->v.str.len;
	}
	if (!pat)
		return 0;
	char msg[200];
	int rc = dfmt_set(d, pat, n, msg, sizeof(msg));
	if (rc)
		return sl_err_set(err, rc, "%s: %s", sl_fn_name(st->fn),
		                  rc == SL_ENOMEM ? "out of memory" : msg);
	return 0;
}

static int bind_floor(sl_prog *p, sl_step *st, sl_err *err)
{
	if (st->fn == SL_FN_DATE_TRUNC) {
		const sl_value *v = sl__step_const(p, st, 0);
		char name[32];
		if (!v || v->is_null || v->v.str.len >= (int64_t)sizeof(name))
			return sl_err_set(err, SL_EPLAN, "DATE_TRUNC needs a unit string literal");
		memcpy(name, v->v.str.ptr, (size_t)v->v.str.len);
		name[v->v.str.len] = 0;
		int u = sl_time_unit_from_name(name);
		if (u < 0 || !unit_ok_for_floor(u))
			return sl_err_set(err, SL_EPLAN, "DATE_TRUNC: unknown unit '%s'", name);
		st->op = u;
		st->k1 = 1;
	} else {
		int rc = const_unit(p, st, 1, err);
		if (rc)
			return rc;
		if (!unit_ok_for_floor(st->op))
			return sl_err_set(err, SL_EPLAN, "%s: unsupported unit", sl_fn_name(st->fn));
	}
	st->k = k_floor_time;
	return 0;
}

/* Picks kernels for the temporal functions; compiles literal patterns. */
int sl__bind_time(sl_prog *p, sl_step *st, sl_err *err)
{
	int rc;
	switch (st->fn) {
	case SL_FN_EXTRACT:
		st->k = k_extract;
		return const_unit(p, st, 0, err);
	case SL_FN_FLOOR_TIME: case SL_FN_CEIL_TIME: case SL_FN_DATE_TRUNC:
		return bind_floor(p, st, err);
	case SL_FN_DATE_FORMAT: /* Flink: DateTimeFormatter for a TIMESTAMP, SimpleDateFormat
	                         * for a string (DateTimeUtils.formatTimestamp[String]) */
		st->k = k_date_format;
		return bind_pattern(p, st, 1, NULL,
		                    (sl__type_is_char(p->regs[st->args[0]].type) ? SL_DATEFMT_SIMPLE
		                                                                 : SL_DATEFMT_JAVA_TIME) |
		                        SL_DATEFMT_FORMAT,
		                    err);
	case SL_FN_TO_TIMESTAMP: case SL_FN_TO_DATE: /* DateTimeFormatter; SimpleDateFormat */
		st->k = k_parse_time;
		return bind_pattern(p, st, 1, NULL,
		                    (st->fn == SL_FN_TO_DATE ? SL_DATEFMT_SIMPLE : SL_DATEFMT_JAVA_TIME) |
		                        SL_DATEFMT_PARSE,
		                    err);
	case SL_FN_UNIX_TIMESTAMP:
		st->k = st->nargs == 0 ? k_now : k_unix_ts;
		return st->nargs == 0 ? 0 : bind_pattern(p, st, 1, "yyyy-MM-dd HH:mm:ss",
		                                         SL_DATEFMT_SIMPLE | SL_DATEFMT_PARSE, err);
	case SL_FN_TO_TIMESTAMP_LTZ: st->k = k_to_ltz; return 0;
	case SL_FN_CONVERT_TZ: st->k = k_convert_tz; return 0;
	case SL_FN_FROM_UNIXTIME:
		st->k = k_from_unixtime;
		return bind_pattern(p, st, 1, "yyyy-MM-dd HH:mm:ss", SL_DATEFMT_SIMPLE | SL_DATEFMT_FORMAT,
		                    err);
	case SL_FN_PROCTIME: case SL_FN_CURRENT_TIMESTAMP: st->k = k_now; return 0;
	case SL_FN_CURRENT_WATERMARK: st->k = k_current_watermark; return 0;
	case SL_FN_TIMESTAMPADD: case SL_FN_TIMESTAMPDIFF:
		if ((rc = const_unit(p, st, 0, err)))
			return rc;
		if (st->op > SL_TU_YEAR || st->op == SL_TU_DOW || st->op == SL_TU_DOY)
			return sl_err_set(err, SL_EPLAN, "%s: unsupported unit", sl_fn_name(st->fn));
		st->k = st->fn == SL_FN_TIMESTAMPADD ? k_tsadd : k_tsdiff;
		return 0;
	default:
		return SL_ENOTSUP;
	}
}
