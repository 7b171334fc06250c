/*
 * timeutil.c - civil calendar math, SQL/ISO timestamp text, time zones.
 *
 * Everything the engine knows about dates and clocks lives here: the
 * conversion between days since 1970-01-01 and (year, month, day) in the
 * proleptic Gregorian calendar (Howard Hinnant's days_from_civil /
 * civil_from_days algorithms, reimplemented), parsing and printing of the
 * text forms used by SQL literals, CAST and the JSON/CSV formats, and the
 * offsets of time zones for TIMESTAMP_LTZ.  Java-style date patterns
 * (sl_datefmt_*: DateTimeFormatter's and SimpleDateFormat's letters) are
 * the last section.
 *
 * Hot path: sl_ts_parse has a fast path for the exact shape
 * "YYYY-MM-DD HH:MM:SS[.fff...]" that JSON sources carry on every record
 * (sl_ts_parse_cached adds the caller's one-entry cache of the last date
 * and second, so a stream's records mostly parse only their fraction),
 * and the formatters write digits by hand (no snprintf).  Named zones are
 * read from the TZif files in /usr/share/zoneinfo once per name and cached
 * for the life of the process (never freed; the cache is guarded by a
 * mutex, with a per-thread last-hit pointer so steady-state lookups take
 * no lock).  Nothing here touches TZ or localtime_r.
 */
#include "timeutil.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sl_days_from_civil: days since 1970-01-01 of y-m-d (proleptic Gregorian). */
int64_t sl_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* sl_civil_from_days: the inverse of sl_days_from_civil. */
void sl_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t yy = (int64_t)yoe + era * 400;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = yy + (*m <= 2);
}

static int is_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Days in month m of year y. */
int sl_days_in_month(int64_t y, unsigned m)
{
	static const unsigned char dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (m < 1 || m > 12)
		return 0;
	return m == 2 && is_leap(y) ? 29 : dm[m - 1];
}

/* ---- parsing ---------------------------------------------------------- */

/* Years beyond this would overflow micros in an int64 (±292,277 years). */
#define SL_MAX_YEAR 99999

static inline int dig(char c)
{
	return (unsigned)(c - '0') < 10;
}

/* Reads 1..max digits at *p (bounded by e); returns the count, 0 if none. */
static int read_num(const char **p, const char *e, int max, int64_t *out)
{
	int n = 0;
	int64_t v = 0;
	while (*p < e && n < max && dig(**p)) {
		v = v * 10 + (**p - '0');
		(*p)++;
		n++;
	}
	*out = v;
	return n;
}

/* Parses "Y-M-D" at *p; 0 or -1. */
static int parse_ymd(const char **p, const char *e, int64_t *days)
{
	int64_t y, m, d;
	int neg = 0;
	if (*p < e && **p == '-') {
		neg = 1;
		(*p)++;
	}
	if (read_num(p, e, 9, &y) < 1 || *p >= e || **p != '-')
		return -1;
	(*p)++;
	if (read_num(p, e, 2, &m) < 1 || *p >= e || **p != '-')
		return -1;
	(*p)++;
	if (read_num(p, e, 2, &d) < 1)
		return -1;
	if (neg)
		y = -y;
	if (y > SL_MAX_YEAR || y < -SL_MAX_YEAR)
		return -1;
	if (m < 1 || m > 12 || d < 1 || d > sl_days_in_month(y, (unsigned)m))
		return -1;
	*days = sl_days_from_civil(y, (unsigned)m, (unsigned)d);
	return 0;
}

/* Parses "H:M[:S[.f{1,9}]]" at *p into micros of day; 0 or -1. */
static int parse_hms(const char **p, const char *e, int64_t *us)
{
	int64_t h, mi, s = 0, frac = 0;
	if (read_num(p, e, 2, &h) < 1 || *p >= e || **p != ':')
		return -1;
	(*p)++;
	if (read_num(p, e, 2, &mi) < 1)
		return -1;
	if (*p < e && **p == ':') {
		(*p)++;
		if (read_num(p, e, 2, &s) < 1)
			return -1;
		if (*p < e && **p == '.') {
			(*p)++;
			int n = 0;
			while (*p < e && dig(**p)) {
				if (n < 6)
					frac = frac * 10 + (**p - '0');
				n++;
				(*p)++;
			}
			if (n < 1 || n > 9)
				return -1;
			for (int k = n; k < 6; k++)
				frac *= 10;
		}
	}
	if (h > 23 || mi > 59 || s > 59)
		return -1;
	*us = ((h * 60 + mi) * 60 + s) * SL_US_PER_SEC + frac;
	return 0;
}

/* Parses a zone suffix "Z", "+hh", "+hh:mm", "+hhmm" at *p into micros east
 * of UTC; 0 (also when absent: *off = 0) or -1. */
static int parse_offset(const char **p, const char *e, int64_t *off)
{
	*off = 0;
	if (*p >= e)
		return 0;
	if (**p == 'Z' || **p == 'z') {
		(*p)++;
		return 0;
	}
	if (**p != '+' && **p != '-')
		return 0;
	int neg = **p == '-';
	(*p)++;
	int64_t h, m = 0;
	if (read_num(p, e, 2, &h) < 1)
		return -1;
	if (*p < e && **p == ':')
		(*p)++;
	if (*p < e && dig(**p) && read_num(p, e, 2, &m) != 2)
		return -1;
	if (h > 18 || m > 59)
		return -1;
	*off = (h * 3600 + m * 60) * SL_US_PER_SEC * (neg ? -1 : 1);
	return 0;
}

static void trim(const char **s, const char **e)
{
	while (*s < *e && (**s == ' ' || **s == '\t'))
		(*s)++;
	while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
		(*e)--;
}

/*
 * 1 when s[0..19) has digits at the 14 digit positions of
 * "YYYY-MM-DD HH:MM:SS" (the separators are checked by the caller).  Why
 * 8 bytes at a time: the loop over the positions was 40% of sl_ts_parse's
 * instructions, 4% of the file benchmark (callgrind).  A byte b is a digit
 * when b & 0xF0 == 0x30 and (b + 6) & 0xF0 == 0x30; 6 is added at digit
 * bytes only, and a byte that carries (b >= 0xFA) fails the first test.
 */
static inline int ts_digits(const char *s)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* digit bytes of s[0..8) "YYYY-MM-", s[8..16) "DD HH:MM", s[11..19) "HH:MM:SS" */
	static const uint64_t dm[3] = {0x00FFFF00FFFFFFFFULL, 0xFFFF00FFFF00FFFFULL,
	                               0xFFFF00FFFF00FFFFULL};
	const uint64_t hi = 0xF0F0F0F0F0F0F0F0ULL, three = 0x3030303030303030ULL,
	               six = 0x0606060606060606ULL;
	static const int at[3] = {0, 8, 11};
	uint64_t bad = 0;
	for (int i = 0; i < 3; i++) {
		uint64_t w;
		memcpy(&w, s + at[i], 8);
		bad |= ((w & hi) ^ three) & dm[i];
		bad |= (((w + (six & dm[i])) & hi) ^ three) & dm[i];
	}
	return bad == 0;
#else
	static const unsigned char pos[] = {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18};
	for (int i = 0; i < 14; i++)
		if (!dig(s[pos[i]]))
			return 0;
	return 1;
#endif
}

/* Fast path for exactly "YYYY-MM-DD HH:MM:SS" + optional ".f{1,9}"; c
 * (may be NULL) holds the last date and second seen: the same first 10
 * bytes give the same day number, the same first 19 the same second, both
 * validated when they were stored.  The fraction is always checked. */
static int ts_fast(const char *s, size_t len, int64_t *out, sl_ts_cache *c)
{
	if (len < 19)
		return -1;
	uint64_t w0, t0;
	uint16_t w1;
	memcpy(&w0, s, 8);
	memcpy(&w1, s + 8, 2);
	memcpy(&t0, s + 11, 8);
	int64_t sec_us;
	if (c && c->tvalid && c->w0 == w0 && c->w1 == w1 && s[10] == ' ' && c->t0 == t0) {
		sec_us = c->sec_us; /* bytes 0..19 are a text validated before */
		goto frac;
	}
	int64_t days;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (c && c->valid && c->w0 == w0 && c->w1 == w1 && s[10] == ' ') {
		/* the date was validated when it was stored: only "HH:MM:SS" is
		 * checked (':' at 2 and 5, digits elsewhere, as ts_digits does).
		 * Why: rows a few seconds out of order miss the second's cache
		 * but share the date; the full check was ~60 instructions of
		 * the ~117 such a timestamp cost (callgrind, bench 4). */
		const uint64_t dm = 0xFFFF00FFFF00FFFFULL, hi = 0xF0F0F0F0F0F0F0F0ULL,
		               three = 0x3030303030303030ULL, six = 0x0606060606060606ULL;
		uint64_t bad = ((t0 & hi) ^ three) & dm;
		bad |= (((t0 + (six & dm)) & hi) ^ three) & dm;
		if (bad || (t0 & ~dm) != 0x00003A00003A0000ULL)
			return -1;
		days = c->days;
		goto hms;
	}
#endif
	if (s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':')
		return -1;
	if (!ts_digits(s))
		return -1;
	if (c && c->valid && c->w0 == w0 && c->w1 == w1) {
		days = c->days;
	} else {
		int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
		unsigned mo = (unsigned)((s[5] - '0') * 10 + (s[6] - '0'));
		unsigned d = (unsigned)((s[8] - '0') * 10 + (s[9] - '0'));
		if (mo < 1 || mo > 12 || d < 1 || (int)d > sl_days_in_month(y, mo))
			return -1;
		days = sl_days_from_civil(y, mo, d);
		if (c)
			c->w0 = w0, c->w1 = w1, c->days = days, c->valid = 1, c->tvalid = 0;
	}
hms:;
	int h = (s[11] - '0') * 10 + (s[12] - '0');
	int mi = (s[14] - '0') * 10 + (s[15] - '0');
	int se = (s[17] - '0') * 10 + (s[18] - '0');
	if (h > 23 || mi > 59 || se > 59)
		return -1;
	sec_us = days * SL_US_PER_DAY + ((int64_t)(h * 60 + mi) * 60 + se) * SL_US_PER_SEC;
	if (c)
		c->t0 = t0, c->sec_us = sec_us, c->tvalid = 1; /* c->w0, w1 hold this date */
frac:;
	int64_t frac = 0;
	if (len == 23 && s[19] == '.' && dig(s[20]) && dig(s[21]) && dig(s[22])) {
		/* milliseconds, the common form */
		frac = ((s[20] - '0') * 100 + (s[21] - '0') * 10 + (s[22] - '0')) * 1000;
	} else if (len > 19) {
		if (s[19] != '.' || len == 20 || len > 29)
			return -1;
		size_t n = len - 20;
		for (size_t i = 0; i < n; i++) {
			if (!dig(s[20 + i]))
				return -1;
			if (i < 6)
				frac = frac * 10 + (s[20 + i] - '0');
		}
		for (size_t k = n; k < 6; k++)
			frac *= 10;
	}
	*out = sec_us + frac;
	return 0;
}

/* sl_ts_parse: SQL or ISO-8601 timestamp text to micros (UTC for offsets). */
int sl_ts_parse(const char *s, size_t len, int64_t *out_us)
{
	return sl__ts_parse_cached(s, len, out_us, NULL);
}

/* sl__ts_parse_cached: see timeutil.h. */
int sl__ts_parse_cached(const char *s, size_t len, int64_t *out_us, sl_ts_cache *c)
{
	if (ts_fast(s, len, out_us, c) == 0)
		return 0;
	const char *p = s, *e = s + len;
	trim(&p, &e);
	int64_t days, tod = 0, off = 0;
	if (parse_ymd(&p, e, &days))
		return -1;
	if (p < e && (*p == ' ' || *p == 'T' || *p == 't')) {
		p++;
		if (parse_hms(&p, e, &tod))
			return -1;
		if (parse_offset(&p, e, &off))
			return -1;
	}
	if (p != e)
		return -1;
	*out_us = days * SL_US_PER_DAY + tod - off;
	return 0;
}

/* sl_date_parse: "YYYY-MM-DD" (surrounding blanks allowed) to days. */
int sl_date_parse(const char *s, size_t len, int64_t *out_days)
{
	const char *p = s, *e = s + len;
	trim(&p, &e);
	if (parse_ymd(&p, e, out_days) || p != e)
		return -1;
	return 0;
}

/* sl_time_parse: "HH:MM[:SS[.f]]" to micros of day. */
int sl_time_parse(const char *s, size_t len, int64_t *out_us)
{
	const char *p = s, *e = s + len;
	trim(&p, &e);
	if (parse_hms(&p, e, out_us) || p != e)
		return -1;
	return 0;
}

/* ---- formatting ------------------------------------------------------- */

static inline char *put2(char *b, unsigned v)
{
	b[0] = (char)('0' + v / 10);
	b[1] = (char)('0' + v % 10);
	return b + 2;
}

/* Writes the year (at least 4 digits, '-' for years before 1). */
static char *put_year(char *b, int64_t y)
{
	if (y >= 0 && y <= 9999) {
		b = put2(b, (unsigned)(y / 100));
		return put2(b, (unsigned)(y % 100));
	}
	return b + sprintf(b, "%s%04lld", y < 0 ? "-" : "", (long long)(y < 0 ? -y : y));
}

static char *put_date(char *b, int64_t days)
{
	int64_t y;
	unsigned m, d;
	sl_civil_from_days(days, &y, &m, &d);
	b = put_year(b, y);
	*b++ = '-';
	b = put2(b, m);
	*b++ = '-';
	return put2(b, d);
}

/* Up to `precision` fraction digits of us (< 1 s) with their '.', trailing
 * zeros dropped (nothing when they are all zero). */
static char *put_frac(char *b, int64_t us, int precision)
{
	if (precision > 6)
		precision = 6;
	if (precision <= 0 || us == 0)
		return b;
	char f[6];
	for (int i = 5; i >= 0; i--, us /= 10)
		f[i] = (char)('0' + us % 10);
	int n = precision;
	while (n > 0 && f[n - 1] == '0')
		n--;
	if (n == 0)
		return b;
	*b++ = '.';
	memcpy(b, f, (size_t)n);
	return b + n;
}

/* HH:MM:SS plus up to `precision` fraction digits, trailing zeros dropped. */
static char *put_time(char *b, int64_t tod, int precision)
{
	int64_t secs = tod / SL_US_PER_SEC;
	b = put2(b, (unsigned)(secs / 3600));
	*b++ = ':';
	b = put2(b, (unsigned)(secs / 60 % 60));
	*b++ = ':';
	b = put2(b, (unsigned)(secs % 60));
	return put_frac(b, tod % SL_US_PER_SEC, precision);
}

/* The text up to the seconds of the last second sl_ts_format wrote, per
 * thread: timestamps of a stream come in runs of one second, and the
 * civil date and the digits were 10% of a CSV file sink's instructions. */
static __thread int64_t ts_last_sec = INT64_MIN;
static __thread int ts_last_iso;
static __thread int ts_last_len;
static __thread char ts_last_txt[40];

/* sl_ts_format: Flink's text of a timestamp (see timeutil.h). */
int sl_ts_format(int64_t us, int precision, int iso, int ltz, char *buf)
{
	int64_t sec = sl_floordiv(us, SL_US_PER_SEC);
	char *b;
	if (sec == ts_last_sec && iso == ts_last_iso) {
		memcpy(buf, ts_last_txt, (size_t)ts_last_len);
		b = buf + ts_last_len;
	} else {
		int64_t days = sl_floordiv(us, SL_US_PER_DAY);
		int64_t tod = us - days * SL_US_PER_DAY;
		b = put_date(buf, days);
		*b++ = iso ? 'T' : ' ';
		b = put_time(b, tod - tod % SL_US_PER_SEC, 0);
		int len = (int)(b - buf);
		if (len <= (int)sizeof(ts_last_txt)) {
			memcpy(ts_last_txt, buf, (size_t)len);
			ts_last_len = len;
			ts_last_sec = sec;
			ts_last_iso = iso;
		}
	}
	b = put_frac(b, us - sec * SL_US_PER_SEC, precision);
	if (iso && ltz)
		*b++ = 'Z';
	*b = 0;
	return (int)(b - buf);
}

/* sl_date_format: "YYYY-MM-DD". */
int sl_date_format(int64_t days, char *buf)
{
	char *b = put_date(buf, days);
	*b = 0;
	return (int)(b - buf);
}

/* sl_time_format: "HH:MM:SS[.f]" (fraction as sl_ts_format). */
int sl_time_format(int64_t us, int precision, char *buf)
{
	char *b = put_time(buf, sl_floormod(us, SL_US_PER_DAY), precision);
	*b = 0;
	return (int)(b - buf);
}

/* ---- time zones ------------------------------------------------------- */

/* A named zone loaded from TZif data: transition instants (seconds) and the
 * UT offset in force from each one. */
typedef struct tzone {
	struct tzone *next;
	char *name;
	int n;            /* transitions */
	int64_t *at;      /* seconds since epoch, ascending */
	int32_t *off_at;  /* offset (seconds) from at[i] on */
	int32_t off0;     /* offset before the first transition */
} tzone;

static pthread_mutex_t tz_lock = PTHREAD_MUTEX_INITIALIZER;
static tzone *tz_cache;
static __thread const tzone *tz_last;

static int64_t be(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	if (n == 4)
		return (int32_t)(uint32_t)v;
	return (int64_t)v;
}

/* Parses TZif data (uses the 64-bit v2+ block when present). */
static int tzif_parse(const unsigned char *d, size_t len, tzone *z)
{
	if (len < 44 || memcmp(d, "TZif", 4) != 0)
		return -1;
	int tsz = 4;
	const unsigned char *h = d;
	size_t cnt[6];
	for (int pass = 0; pass < 2; pass++) {
		if ((size_t)(h - d) + 44 > len || memcmp(h, "TZif", 4) != 0)
			return -1;
		for (int i = 0; i < 6; i++)
			cnt[i] = (size_t)be(h + 20 + 4 * i, 4);
		/* isutc, isstd, leap, time, type, char */
		size_t body = cnt[3] * tsz + cnt[3] + cnt[4] * 6 + cnt[5] + cnt[2] * (tsz + 4) +
		              cnt[1] + cnt[0];
		if ((size_t)(h - d) + 44 + body > len)
			return -1;
		if (pass == 0 && h[4] >= '2') {
			h += 44 + body;
			tsz = 8;
			continue;
		}
		break;
	}
	size_t nt = cnt[3], ntype = cnt[4];
	const unsigned char *tt = h + 44, *idx = tt + nt * tsz, *types = idx + nt;
	if (ntype == 0)
		return -1;
	z->n = (int)nt;
	z->at = malloc((nt ? nt : 1) * sizeof(int64_t));
	z->off_at = malloc((nt ? nt : 1) * sizeof(int32_t));
	if (!z->at || !z->off_at)
		return -1;
	for (size_t i = 0; i < nt; i++) {
		size_t ti = idx[i] < ntype ? idx[i] : 0;
		z->at[i] = be(tt + i * tsz, tsz);
		z->off_at[i] = (int32_t)be(types + 6 * ti, 4);
	}
	z->off0 = (int32_t)be(types, 4);
	return 0;
}

static tzone *tz_load(const char *name)
{
	if (strstr(name, "..") || name[0] == '/' || strlen(name) > 200)
		return NULL;
	char path[256];
	snprintf(path, sizeof(path), "/usr/share/zoneinfo/%s", name);
	FILE *f = fopen(path, "rb");
	unsigned char *d = NULL;
	tzone *z = calloc(1, sizeof(*z));
	if (!f || !z)
		goto fail;
	d = malloc(1 << 20);
	size_t len = d ? fread(d, 1, 1 << 20, f) : 0;
	if (!d || tzif_parse(d, len, z) || !(z->name = strdup(name)))
		goto fail;
	free(d);
	fclose(f);
	return z;
fail:
	if (f)
		fclose(f);
	free(d);
	if (z) {
		free(z->at);
		free(z->off_at);
		free(z);
	}
	return NULL;
}

static const tzone *tz_get(const char *name)
{
	const tzone *z = tz_last;
	if (z && strcmp(z->name, name) == 0)
		return z;
	pthread_mutex_lock(&tz_lock);
	tzone *c = tz_cache;
	while (c && strcmp(c->name, name) != 0)
		c = c->next;
	if (!c && (c = tz_load(name)) != NULL) {
		c->next = tz_cache;
		tz_cache = c;
	}
	pthread_mutex_unlock(&tz_lock);
	if (c)
		tz_last = c;
	return c;
}

static int64_t tz_lookup(const tzone *z, int64_t utc_us)
{
	int64_t s = sl_floordiv(utc_us, SL_US_PER_SEC);
	if (z->n == 0 || s < z->at[0])
		return (int64_t)z->off0 * SL_US_PER_SEC;
	int lo = 0, hi = z->n - 1; /* last i with at[i] <= s */
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (z->at[mid] <= s)
			lo = mid;
		else
			hi = mid - 1;
	}
	return (int64_t)z->off_at[lo] * SL_US_PER_SEC;
}

/* Fixed offsets: "UTC", "GMT", "Z", "UT", "+08:00", "-0530", "GMT+8",
 * "UTC-05:30".  Returns 0 and the offset, or -1 when not of that shape. */
static int tz_fixed(const char *tz, int64_t *off)
{
	const char *p = tz;
	if (!strncmp(p, "UTC", 3) || !strncmp(p, "GMT", 3))
		p += 3;
	else if (!strncmp(p, "UT", 2))
		p += 2;
	else if (*p == 'Z' && p[1] == 0)
		p++;
	if (*p == 0) {
		*off = 0;
		return 0;
	}
	if (*p != '+' && *p != '-')
		return -1;
	const char *e = p + strlen(p);
	if (parse_offset(&p, e, off) || p != e)
		return -1;
	return 0;
}

/* sl_tz_offset: offset of zone tz at instant utc_us; 0 or -1 unknown. */
int sl_tz_offset(const char *tz, int64_t utc_us, int64_t *off_us)
{
	if (!tz || !*tz) {
		*off_us = 0;
		return 0;
	}
	if (tz_fixed(tz, off_us) == 0)
		return 0;
	const tzone *z = tz_get(tz);
	if (!z)
		return -1;
	*off_us = tz_lookup(z, utc_us);
	return 0;
}

/* ---- Java-style date patterns ------------------------------------------ */

/*
 * Flink formats and parses with two Java classes whose pattern letters
 * differ (Flink 1.20's DateTimeUtils): java.time's DateTimeFormatter for
 * DATE_FORMAT of a TIMESTAMP and TO_TIMESTAMP (kind SL_DATEFMT_JAVA_TIME),
 * java.text's SimpleDateFormat for DATE_FORMAT of a string, TO_DATE,
 * UNIX_TIMESTAMP and FROM_UNIXTIME (SL_DATEFMT_SIMPLE).  Where they differ:
 * 'u' is the year in the first and the day number of the week (Monday = 1)
 * in the second; 'F' is Java 8-17's ALIGNED_DAY_OF_WEEK_IN_MONTH in the
 * first, the day-of-week-in-month ordinal in the second; 'S' is a fraction
 * of a second in the first, milliseconds as a number in the second; Q, q,
 * e, c, n, N and A exist in the first only.  Locale-dependent letters
 * (w, W, Y, e, names) follow the en/US locale: weeks start on Sunday and
 * week 1 is the one holding January 1.  Java's SimpleDateFormat switches to
 * the Julian calendar before 1582-10-15; here the calendar is proleptic
 * Gregorian throughout.
 */

/* One compiled pattern element: a letter run ("yyyy" = 'y' x 4) or a
 * literal (kind 0, text in the struct's own copy of the pattern). */
typedef struct dtok {
	char kind;
	uint8_t count;
	uint16_t litoff, litlen;
} dtok;

struct sl_datefmt {
	int n;
	int simple; /* SimpleDateFormat letters (else DateTimeFormatter's) */
	dtok tok[64];
	char lit[256];
};

static const char *const mon_short[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
static const char *const mon_long[] = {"January", "February", "March",     "April",
                                       "May",     "June",     "July",      "August",
                                       "September", "October", "November", "December"};
static const char *const dow_short[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
static const char *const dow_long[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                       "Thursday", "Friday", "Saturday"};
static const char *const quarter_long[] = {"1st quarter", "2nd quarter", "3rd quarter",
                                           "4th quarter"};

/*
 * The letters of each kind with the most letters Java takes in one run
 * (DateTimeFormatterBuilder's "Too many pattern letters"; 0 = any count);
 * `parse` = the letter can be read back (the rest only format).
 */
typedef struct letter_rule {
	char c;
	uint8_t java_max; /* 255: not a DateTimeFormatter letter */
	uint8_t simple;   /* a SimpleDateFormat letter */
	uint8_t parse;
} letter_rule;

static const letter_rule LETTERS[] = {
	{'G', 5, 1, 1}, {'y', 0, 1, 1}, {'u', 0, 1, 1},   {'Y', 0, 1, 0},   {'Q', 5, 0, 0},
	{'q', 2, 0, 0}, {'M', 5, 1, 1}, {'L', 5, 1, 1},   {'w', 2, 1, 0},   {'W', 1, 1, 0},
	{'d', 2, 1, 1}, {'D', 3, 1, 1}, {'F', 1, 1, 1},   {'E', 5, 1, 1},   {'e', 5, 0, 0},
	{'c', 4, 0, 0}, {'a', 1, 1, 1}, {'H', 2, 1, 1},   {'k', 2, 1, 1},   {'K', 2, 1, 1},
	{'h', 2, 1, 1}, {'m', 2, 1, 1}, {'s', 2, 1, 1},   {'S', 9, 1, 1},   {'n', 0, 0, 0},
	{'N', 0, 0, 0}, {'A', 0, 0, 0}, {'X', 5, 1, 1},   {'x', 5, 0, 1},   {'Z', 5, 1, 1},
};

static const letter_rule *letter_of(char c)
{
	for (size_t i = 0; i < sizeof(LETTERS) / sizeof(LETTERS[0]); i++)
		if (LETTERS[i].c == c)
			return &LETTERS[i];
	return NULL;
}

/* Checks a letter run against the kind and the directions it will be used
 * in; 0, or -1 with a message. */
static int check_run(const letter_rule *r, char c, int count, int flags, const char *pat,
                     char *errbuf, size_t errcap)
{
	int simple = flags & SL_DATEFMT_SIMPLE;
	if (!r || (simple ? !r->simple : r->java_max == 255)) {
		snprintf(errbuf, errcap, "unknown pattern letter '%c' in '%s'", c, pat);
		return -1;
	}
	if (!simple && r->java_max && count > r->java_max) {
		snprintf(errbuf, errcap, "too many pattern letters '%c' in '%s' (Java's "
		         "DateTimeFormatter takes at most %d)", c, pat, r->java_max);
		return -1;
	}
	if (!simple && c == 'c' && count == 2) {
		snprintf(errbuf, errcap, "invalid pattern \"cc\" in '%s'", pat);
		return -1;
	}
	if ((flags & SL_DATEFMT_PARSE) && !r->parse) {
		snprintf(errbuf, errcap, "pattern letter '%c' is not supported in parsing ('%s')", c,
		         pat);
		return -1;
	}
	if (!simple && (flags & SL_DATEFMT_FORMAT) && (c == 'X' || c == 'x' || c == 'Z')) {
		/* Flink formats a LocalDateTime: Java fails with "Unsupported field:
		 * OffsetSeconds" on every row */
		snprintf(errbuf, errcap, "pattern letter '%c' in '%s': a TIMESTAMP has no zone "
		         "offset to format (Flink fails with \"Unsupported field: OffsetSeconds\")",
		         c, pat);
		return -1;
	}
	return 0;
}

/*
 * sl_datefmt_compile_as: compiles a pattern of the given kind (flags: one
 * of SL_DATEFMT_JAVA_TIME / SL_DATEFMT_SIMPLE, with SL_DATEFMT_PARSE and /
 * or SL_DATEFMT_FORMAT to refuse letters that cannot be used that way);
 * letters as the comment above says, 'quoted text' and '' for a quote;
 * other non-letters are literals.  Returns a pattern to free with
 * sl_datefmt_free, or NULL with a message in errbuf.
 */
sl_datefmt *sl_datefmt_compile_as(const char *pat, int flags, char *errbuf, size_t errcap)
{
	sl_datefmt *f = calloc(1, sizeof(*f));
	size_t nlit = 0;
	if (!f) {
		snprintf(errbuf, errcap, "out of memory");
		return NULL;
	}
	f->simple = (flags & SL_DATEFMT_SIMPLE) != 0;
	for (const char *p = pat; *p;) {
		if (f->n >= 64)
			goto toolong;
		dtok *t = &f->tok[f->n];
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) {
			const char *q = p;
			while (*q == *p && q - p < 255)
				q++;
			if (check_run(letter_of(*p), *p, (int)(q - p), flags, pat, errbuf, errcap))
				goto fail;
			t->kind = *p;
			t->count = (uint8_t)(q - p);
			p = q;
		} else {
			t->kind = 0;
			t->litoff = (uint16_t)nlit;
			if (*p == '\'' && p[1] == '\'') { /* '' is a quote */
				p += 2;
				if (nlit >= sizeof(f->lit))
					goto toolong;
				f->lit[nlit++] = '\'';
			} else if (*p == '\'') {
				for (p++; *p && !(*p == '\'' && p[1] != '\''); p++) {
					if (*p == '\'')
						p++;
					if (nlit >= sizeof(f->lit))
						goto toolong;
					f->lit[nlit++] = *p;
				}
				if (!*p) {
					snprintf(errbuf, errcap, "unterminated quote in '%s'", pat);
					goto fail;
				}
				p++;
			} else {
				if (nlit >= sizeof(f->lit))
					goto toolong;
				f->lit[nlit++] = *p++;
			}
			t->litlen = (uint16_t)(nlit - t->litoff);
		}
		f->n++;
	}
	return f;
toolong:
	snprintf(errbuf, errcap, "date pattern too long: '%s'", pat);
fail:
	free(f);
	return NULL;
}

/* sl_datefmt_compile: sl_datefmt_compile_as(pat, SL_DATEFMT_JAVA_TIME). */
sl_datefmt *sl_datefmt_compile(const char *pat, char *errbuf, size_t errcap)
{
	return sl_datefmt_compile_as(pat, SL_DATEFMT_JAVA_TIME, errbuf, errcap);
}

/* sl_datefmt_free: frees a compiled pattern; safe on NULL. */
void sl_datefmt_free(sl_datefmt *f)
{
	free(f);
}

typedef struct outbuf {
	char *p;
	size_t n, cap;
} outbuf;

static void ob_put(outbuf *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++, o->n++)
		if (o->n + 1 < o->cap)
			o->p[o->n] = s[i];
}

/* Appends v in decimal, its digits zero-padded to width (at most 20), a
 * minus sign before them, as Java's formatters do.  Why not snprintf:
 * DATE_FORMAT called it once per field, 29% of Nexmark q16's instructions
 * (callgrind, 200 000 events). */
static void ob_num(outbuf *o, int64_t v, int width)
{
	char t[48], d[20];
	int n = 0, nd = 0;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	do {
		d[nd++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (width > 20)
		width = 20;
	if (v < 0)
		t[n++] = '-';
	for (int z = nd; z < width; z++)
		t[n++] = '0';
	while (nd)
		t[n++] = d[--nd];
	ob_put(o, t, (size_t)n);
}

static void ob_str(outbuf *o, const char *s)
{
	ob_put(o, s, strlen(s));
}

/* A name in full (count 4), narrow (its first letter; count 5 of a
 * DateTimeFormatter pattern) or short. */
static void ob_name(outbuf *o, int c, int simple, const char *lng, const char *shrt)
{
	if (c == 5 && !simple)
		ob_put(o, lng, 1);
	else
		ob_str(o, c >= 4 ? lng : shrt);
}

/* Calendar fields of an instant, for formatting. */
typedef struct dfields {
	int64_t y, days, off; /* off: the zone offset in micros (SimpleDateFormat's X, Z) */
	unsigned mo, d;
	int h, mi, s, us;
} dfields;

/* Day of the week, Sunday = 0. */
static int dow_sun0(int64_t days)
{
	return (int)sl_floormod(days + 4, 7);
}

/* en/US week fields: weeks start on Sunday, week 1 holds January 1.  Sets
 * the week-based year and the week of it. */
static void us_week(const dfields *v, int64_t *wyear, int64_t *week)
{
	int64_t ws = v->days - dow_sun0(v->days); /* this week's Sunday */
	int64_t next = sl_days_from_civil(v->y + 1, 1, 1);
	if (ws + 6 >= next) {
		*wyear = v->y + 1;
		*week = 1;
		return;
	}
	int64_t jan1 = sl_days_from_civil(v->y, 1, 1);
	*wyear = v->y;
	*week = (ws - (jan1 - dow_sun0(jan1))) / 7 + 1;
}

static void ob_year(outbuf *o, int64_t y, int c)
{
	ob_num(o, c == 2 ? (y < 0 ? -y : y) % 100 : y, c); /* Java's reduced value */
}

static void ob_offset(outbuf *o, const dtok *t, int64_t off)
{
	int64_t m = (off < 0 ? -off : off) / (60 * SL_US_PER_SEC);
	char sign[2] = {off < 0 ? '-' : '+', 0};
	if (t->kind == 'X' && off == 0) {
		ob_put(o, "Z", 1);
		return;
	}
	ob_str(o, sign);
	ob_num(o, m / 60, 2);
	if (t->kind == 'X' && t->count == 1)
		return;
	if (t->kind == 'X' && t->count >= 3)
		ob_put(o, ":", 1);
	ob_num(o, m % 60, 2);
}

static void fmt_tok(outbuf *o, const sl_datefmt *f, const dtok *t, const dfields *v)
{
	int c = t->count, sim = f->simple;
	int64_t wy, wk;
	switch (t->kind) {
	case 0: ob_put(o, f->lit + t->litoff, t->litlen); break;
	case 'G':
		if (c == 4 && !sim)
			ob_str(o, v->y > 0 ? "Anno Domini" : "Before Christ");
		else if (c == 5 && !sim)
			ob_str(o, v->y > 0 ? "A" : "B");
		else
			ob_str(o, v->y > 0 ? "AD" : "BC");
		break;
	case 'y': ob_year(o, v->y > 0 ? v->y : 1 - v->y, c); break; /* year of era */
	case 'u':
		if (sim)
			ob_num(o, sl_floormod(v->days + 3, 7) + 1, c); /* Monday = 1 */
		else
			ob_year(o, v->y, c); /* proleptic year */
		break;
	case 'Y': us_week(v, &wy, &wk); ob_year(o, wy, c); break;
	case 'w': us_week(v, &wy, &wk); ob_num(o, wk, c); break;
	case 'W': {
		int64_t first = v->days - (v->d - 1);
		ob_num(o, (v->d - 1 + dow_sun0(first)) / 7 + 1, c);
		break;
	}
	case 'Q':
	case 'q': {
		int q = (int)(v->mo - 1) / 3 + 1;
		if (c == 3) {
			ob_put(o, "Q", 1);
			ob_num(o, q, 1);
		} else if (c == 4) {
			ob_str(o, quarter_long[q - 1]);
		} else {
			ob_num(o, q, c == 5 ? 1 : c);
		}
		break;
	}
	case 'M':
	case 'L':
		if (c >= 3)
			ob_name(o, c, sim, mon_long[v->mo - 1], mon_short[v->mo - 1]);
		else
			ob_num(o, v->mo, c);
		break;
	case 'd': ob_num(o, v->d, c); break;
	case 'H': ob_num(o, v->h, c); break;
	case 'h': ob_num(o, v->h % 12 == 0 ? 12 : v->h % 12, c); break;
	case 'k': ob_num(o, v->h == 0 ? 24 : v->h, c); break;
	case 'K': ob_num(o, v->h % 12, c); break;
	case 'F': /* Java 8-17's DateTimeFormatter: ALIGNED_DAY_OF_WEEK_IN_MONTH */
		ob_num(o, sim ? (v->d - 1) / 7 + 1 : (v->d - 1) % 7 + 1, c);
		break;
	case 'a': ob_put(o, v->h < 12 ? "AM" : "PM", 2); break;
	case 'm': ob_num(o, v->mi, c); break;
	case 's': ob_num(o, v->s, c); break;
	case 'S':
		if (sim) {
			ob_num(o, v->us / 1000, c); /* milliseconds */
		} else {
			char fr[9];
			for (int i = 5, u = v->us; i >= 0; i--, u /= 10)
				fr[i] = (char)('0' + u % 10);
			memset(fr + 6, '0', 3);
			ob_put(o, fr, (size_t)(c > 9 ? 9 : c));
		}
		break;
	case 'n': ob_num(o, (int64_t)v->us * 1000, c); break;
	case 'A':
	case 'N': {
		int64_t us = ((int64_t)(v->h * 60 + v->mi) * 60 + v->s) * SL_US_PER_SEC + v->us;
		ob_num(o, t->kind == 'A' ? us / 1000 : us * 1000, c);
		break;
	}
	case 'E':
	case 'e':
	case 'c': {
		int w = dow_sun0(v->days);
		if (t->kind != 'E' && c <= 2)
			ob_num(o, w + 1, c); /* en/US: Sunday = 1 */
		else
			ob_name(o, c, sim, dow_long[w], dow_short[w]);
		break;
	}
	case 'D': ob_num(o, v->days - sl_days_from_civil(v->y, 1, 1) + 1, c); break;
	case 'X':
	case 'Z': ob_offset(o, t, v->off); break;
	case 'x': ob_put(o, c >= 3 ? "+00:00" : "+00", c >= 3 ? 6 : 3); break;
	}
}

/* sl_datefmt_has_fraction: see timeutil.h. */
int sl_datefmt_has_fraction(const sl_datefmt *f)
{
	for (int i = 0; i < f->n; i++)
		if (strchr("SnNA", f->tok[i].kind) && f->tok[i].kind)
			return 1;
	return 0;
}

/* sl_datefmt_format_at: writes the wall clock us, whose zone is off_us
 * east of UTC, per the pattern into buf (NUL-terminated, truncated to
 * cap); returns the untruncated length. */
int sl_datefmt_format_at(const sl_datefmt *f, int64_t us, int64_t off_us, char *buf, size_t cap)
{
	dfields v;
	v.off = off_us;
	v.days = sl_floordiv(us, SL_US_PER_DAY);
	int64_t tod = us - v.days * SL_US_PER_DAY;
	sl_civil_from_days(v.days, &v.y, &v.mo, &v.d);
	v.h = (int)(tod / 3600000000LL);
	v.mi = (int)(tod / 60000000 % 60);
	v.s = (int)(tod / 1000000 % 60);
	v.us = (int)(tod % 1000000);
	outbuf o = {buf, 0, cap};
	for (int i = 0; i < f->n; i++)
		fmt_tok(&o, f, &f->tok[i], &v);
	if (cap)
		buf[o.n < cap ? o.n : cap - 1] = 0;
	return (int)o.n;
}

/* sl_datefmt_format: sl_datefmt_format_at in UTC. */
int sl_datefmt_format(const sl_datefmt *f, int64_t us, char *buf, size_t cap)
{
	return sl_datefmt_format_at(f, us, 0, buf, cap);
}

/* Matches one of `n` names case-insensitively at *p; index or -1. */
static int match_name(const char **p, const char *e, const char *const *names, int n)
{
	for (int i = 0; i < n; i++) {
		size_t l = strlen(names[i]);
		if ((size_t)(e - *p) >= l && strncasecmp(*p, names[i], l) == 0) {
			*p += l;
			return i;
		}
	}
	return -1;
}

/* Parsed calendar fields. */
typedef struct pfields {
	int64_t y, mo, d, h, mi, s, us, off, doy;
	int pm; /* -1 none, 0 AM, 1 PM */
	int k0; /* the hour came from 'K' (0-11) */
} pfields;

static int parse_year(int c, const char **p, const char *e, int max, int64_t *y)
{
	int64_t x;
	if (c == 2) {
		if (read_num(p, e, 2, &x) != 2)
			return -1;
		*y = 2000 + x;
		return 0;
	}
	return read_num(p, e, max, y) >= 1 ? 0 : -1;
}

static int parse_tok(const sl_datefmt *f, int i, const char **p, const char *e, pfields *v)
{
	const dtok *t = &f->tok[i];
	int next_num = i + 1 < f->n && strchr("yMdHhmsSDLkKuF", f->tok[i + 1].kind) &&
	               f->tok[i + 1].kind;
	int max = next_num ? t->count : 9, c = t->count;
	int64_t x;
	switch (t->kind) {
	case 0:
		if ((size_t)(e - *p) < t->litlen || memcmp(*p, f->lit + t->litoff, t->litlen))
			return -1;
		*p += t->litlen;
		return 0;
	case 'y': return parse_year(c, p, e, max, &v->y);
	case 'M':
	case 'L':
		if (c >= 3) {
			int k = match_name(p, e, mon_long, 12);
			if (k < 0)
				k = match_name(p, e, mon_short, 12);
			v->mo = k + 1;
			return k < 0 ? -1 : 0;
		}
		return read_num(p, e, max > 2 ? 2 : max, &v->mo) >= 1 ? 0 : -1;
	case 'd': return read_num(p, e, max > 2 ? 2 : max, &v->d) >= 1 ? 0 : -1;
	case 'H':
	case 'h': return read_num(p, e, max > 2 ? 2 : max, &v->h) >= 1 ? 0 : -1;
	case 'K': /* 0-11 */
		v->k0 = 1;
		return read_num(p, e, max > 2 ? 2 : max, &v->h) >= 1 && v->h <= 11 ? 0 : -1;
	case 'k':
		if (read_num(p, e, max > 2 ? 2 : max, &v->h) < 1 || v->h < 1 || v->h > 24)
			return -1;
		v->h %= 24;
		return 0;
	case 'u': /* SimpleDateFormat's day of week is read, not used, as 'F' */
		if (!f->simple)
			return parse_year(c, p, e, max, &v->y);
		return read_num(p, e, max > 2 ? 2 : max, &x) >= 1 ? 0 : -1;
	case 'F': /* read, not used: the date fields decide */
		return read_num(p, e, max > 2 ? 2 : max, &x) >= 1 ? 0 : -1;
	case 'G':
		return match_name(p, e, (const char *const[]){"AD"}, 1) < 0 ? -1 : 0;
	case 'm': return read_num(p, e, max > 2 ? 2 : max, &v->mi) >= 1 ? 0 : -1;
	case 's': return read_num(p, e, max > 2 ? 2 : max, &v->s) >= 1 ? 0 : -1;
	case 'D': return read_num(p, e, max > 3 ? 3 : max, &v->doy) >= 1 ? 0 : -1;
	case 'S': {
		int n = read_num(p, e, max, &x);
		if (n < 1)
			return -1;
		if (f->simple) { /* milliseconds, as a number */
			v->us = x * 1000;
			return x > 999 ? -1 : 0;
		}
		for (; n < 6; n++)
			x *= 10;
		for (; n > 6; n--)
			x /= 10;
		v->us = x;
		return 0;
	}
	case 'a':
		v->pm = match_name(p, e, (const char *const[]){"AM", "PM"}, 2);
		return v->pm < 0 ? -1 : 0;
	case 'E':
		if (match_name(p, e, dow_long, 7) < 0 && match_name(p, e, dow_short, 7) < 0)
			return -1;
		return 0;
	case 'X':
	case 'x':
	case 'Z': /* "Z", "+hh", "+hhmm", "+hh:mm" */
		if (*p < e && (**p == 'Z' || **p == '+' || **p == '-'))
			return parse_offset(p, e, &v->off);
		return -1;
	default: /* letters that only format (refused by SL_DATEFMT_PARSE) */
		return -1;
	}
}

/* sl_datefmt_parse: parses s per the pattern into micros (UTC when the text
 * carries an offset, else the wall clock).  0 or -1. */
int sl_datefmt_parse(const sl_datefmt *f, const char *s, size_t len, int64_t *out_us)
{
	return sl_datefmt_parse_ex(f, s, len, 0, out_us, NULL);
}

/* sl_datefmt_parse_ex: sl_datefmt_parse, text after the pattern ignored
 * when `prefix`; *has_offset (if non-NULL) = 1 when an offset was read and
 * applied (SimpleDateFormat; a DateTimeFormatter pattern's offset is read
 * and ignored, as Flink's TO_TIMESTAMP takes the local fields). */
int sl_datefmt_parse_ex(const sl_datefmt *f, const char *s, size_t len, int prefix,
                        int64_t *out_us, int *has_offset)
{
	pfields v = {1970, 1, 1, 0, 0, 0, 0, 0, -1, -1, 0};
	const char *p = s, *e = s + len;
	int off = 0;
	for (int i = 0; i < f->n; i++) {
		if (parse_tok(f, i, &p, e, &v))
			return -1;
		off |= f->tok[i].kind == 'X' || f->tok[i].kind == 'x' || f->tok[i].kind == 'Z';
	}
	if (p != e && !prefix)
		return -1;
	if (!f->simple) {
		off = 0;
		v.off = 0;
	}
	if (has_offset)
		*has_offset = off;
	if (v.pm >= 0) {
		if (v.k0 ? v.h > 11 : v.h < 1 || v.h > 12)
			return -1;
		v.h = v.h % 12 + (v.pm ? 12 : 0);
	}
	if (v.y > SL_MAX_YEAR || v.y < -SL_MAX_YEAR || v.mo < 1 || v.mo > 12 || v.d < 1 || v.d > sl_days_in_month(v.y, (unsigned)v.mo) ||
	    v.h > 23 || v.mi > 59 || v.s > 59)
		return -1;
	int64_t days = sl_days_from_civil(v.y, (unsigned)v.mo, (unsigned)v.d);
	if (v.doy >= 1) {
		if (v.doy > 365 + is_leap(v.y))
			return -1;
		days = sl_days_from_civil(v.y, 1, 1) + v.doy - 1;
	}
	*out_us = days * SL_US_PER_DAY + ((v.h * 60 + v.mi) * 60 + v.s) * SL_US_PER_SEC + v.us -
	          v.off;
	return 0;
}
