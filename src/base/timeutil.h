/*
 * timeutil.h - calendar arithmetic and the text forms of DATE, TIME and
 * TIMESTAMP values.
 *
 * Values are integers (types.h): DATE = days since 1970-01-01, TIME =
 * micros of the day, TIMESTAMP = micros since the epoch (proleptic
 * Gregorian, no leap seconds).  TIMESTAMP_LTZ values are instants; they are
 * shown in the session time zone ('table.local-time-zone', UTC by default;
 * fixed offsets like "+08:00" and "UTC" are supported, named zones through
 * the system tz database).
 *
 * Text forms follow Flink: "2026-08-01 09:00:05.123" (fraction without
 * trailing zeros, none when zero), "2026-08-01", "09:00:05".  Parsing
 * accepts Flink's SQL form and ISO-8601 ("2026-08-01T09:00:05.123Z",
 * "+02:00" offsets converted to UTC).
 */
#ifndef SL_TIMEUTIL_H
#define SL_TIMEUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SL_US_PER_SEC 1000000LL
#define SL_US_PER_DAY 86400000000LL

/* Civil date <-> days since epoch. */
int64_t sl_days_from_civil(int64_t y, unsigned m, unsigned d);
void sl_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);
/* Days in month m (1..12) of year y; 0 for a bad month. */
int sl_days_in_month(int64_t y, unsigned m);

/* floor division / modulo for negative values. */
static inline int64_t sl_floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t sl_floormod(int64_t a, int64_t b) { return a - sl_floordiv(a, b) * b; }

/*
 * Parses a timestamp in SQL form ("2026-08-01 09:00:05.123", date only,
 * fraction 0-9 digits) or ISO-8601 ("2026-08-01T09:00:05Z", "+hh:mm"
 * offset).  Returns 0 and micros, -1 when malformed.
 */
int sl_ts_parse(const char *s, size_t len, int64_t *out_us);

/* The date and time of the last "YYYY-MM-DD HH:MM:SS[.f]" texts that
 * sl_ts_parse_cached parsed: the date's day number, and the micros of the
 * whole second.  Zeroed: empty.  One per reader (a decoder), never shared
 * between threads. */
typedef struct sl_ts_cache {
	uint64_t w0;   /* bytes 0..8 of the text */
	uint16_t w1;   /* bytes 8..10 */
	int valid;
	int64_t days;
	uint64_t t0;   /* bytes 11..19 ("HH:MM:SS") of a text with date w0, w1 */
	int tvalid;
	int64_t sec_us; /* that text's micros without the fraction */
} sl_ts_cache;

/* sl_ts_parse, the same results, but a text whose date part (or date and
 * time up to the second) equals the previous one's in c skips their
 * parsing and validation (records of a stream mostly share their date and
 * come many to a second).  c may be NULL. */
int sl__ts_parse_cached(const char *s, size_t len, int64_t *out_us, sl_ts_cache *c);

/* sl__ts_parse_cached with the cache hits of "YYYY-MM-DD HH:MM:SS" and
 * "... .fff" inline: the date of c (validated when stored), then the
 * second of c or a valid "HH:MM:SS" (':' at 2 and 5, digits elsewhere, in
 * range), then no fraction or three digits.  Why: a JSON source parses
 * one per row, and the call was ~25 instructions of each (callgrind,
 * bench 4).  Anything else goes to sl__ts_parse_cached, same results. */
static inline int sl_ts_parse_cached(const char *s, size_t len, int64_t *out_us, sl_ts_cache *c)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (c && c->valid && (len == 19 || len == 23) && s[10] == ' ') {
		uint64_t w0, t0;
		uint16_t w1;
		memcpy(&w0, s, 8);
		memcpy(&w1, s + 8, 2);
		memcpy(&t0, s + 11, 8);
		if (c->w0 == w0 && c->w1 == w1) {
			int64_t sec_us;
			if (c->tvalid && c->t0 == t0) {
				sec_us = c->sec_us;
			} else {
				const uint64_t dm = 0xFFFF00FFFF00FFFFULL, hi = 0xF0F0F0F0F0F0F0F0ULL,
				               three = 0x3030303030303030ULL,
				               six = 0x0606060606060606ULL;
				uint64_t bad = ((t0 & hi) ^ three) & dm;
				bad |= (((t0 + (six & dm)) & hi) ^ three) & dm;
				int h = (s[11] - '0') * 10 + (s[12] - '0');
				int mi = (s[14] - '0') * 10 + (s[15] - '0');
				int se = (s[17] - '0') * 10 + (s[18] - '0');
				if (bad || (t0 & ~dm) != 0x00003A00003A0000ULL || h > 23 || mi > 59 ||
				    se > 59)
					return sl__ts_parse_cached(s, len, out_us, c);
				sec_us = c->days * SL_US_PER_DAY +
				         ((int64_t)(h * 60 + mi) * 60 + se) * SL_US_PER_SEC;
				c->t0 = t0, c->sec_us = sec_us, c->tvalid = 1;
			}
			if (len == 19) {
				*out_us = sec_us;
				return 0;
			}
			unsigned d0 = (unsigned)(s[20] - '0'), d1 = (unsigned)(s[21] - '0'),
			         d2 = (unsigned)(s[22] - '0');
			if (s[19] == '.' && d0 < 10 && d1 < 10 && d2 < 10) {
				*out_us = sec_us + (int64_t)(d0 * 100 + d1 * 10 + d2) * 1000;
				return 0;
			}
		}
	}
#endif
	return sl__ts_parse_cached(s, len, out_us, c);
}
int sl_date_parse(const char *s, size_t len, int64_t *out_days);
int sl_time_parse(const char *s, size_t len, int64_t *out_us);

/* Formats micros as "YYYY-MM-DD HH:MM:SS[.fff]" with at most `precision`
 * fraction digits, trailing zeros dropped (Flink's cast-to-string).  iso=1
 * writes ISO-8601 ("T" separator, "Z" suffix when ltz).  buf >= 40 bytes.
 * Returns the length. */
int sl_ts_format(int64_t us, int precision, int iso, int ltz, char *buf);
int sl_date_format(int64_t days, char *buf);
int sl_time_format(int64_t us, int precision, char *buf);

/* Java date patterns ("yyyy-MM-dd HH:mm:ss.SSS"): compiled once, applied per
 * value.  Flink uses two Java classes whose letters differ (timeutil.c's
 * pattern section says how): */
enum {
	SL_DATEFMT_JAVA_TIME = 0, /* java.time's DateTimeFormatter: DATE_FORMAT of a
	                           * TIMESTAMP, TO_TIMESTAMP, partition times */
	SL_DATEFMT_SIMPLE = 1,    /* java.text's SimpleDateFormat: DATE_FORMAT of a
	                           * string, TO_DATE, UNIX_TIMESTAMP, FROM_UNIXTIME */
	SL_DATEFMT_PARSE = 2,     /* refuse letters that cannot be read back */
	SL_DATEFMT_FORMAT = 4,    /* refuse letters Java cannot write here */
};
typedef struct sl_datefmt sl_datefmt;
sl_datefmt *sl_datefmt_compile_as(const char *pattern, int flags, char *errbuf, size_t errcap);
sl_datefmt *sl_datefmt_compile(const char *pattern, char *errbuf, size_t errcap); /* JAVA_TIME */
void sl_datefmt_free(sl_datefmt *f);
int sl_datefmt_format(const sl_datefmt *f, int64_t us, char *buf, size_t cap); /* length */
/* The same for a wall clock whose zone is off_us east of UTC (what the
 * offset letters of a SimpleDateFormat pattern write). */
int sl_datefmt_format_at(const sl_datefmt *f, int64_t us, int64_t off_us, char *buf,
                         size_t cap);
/* 1 when f writes a fraction of a second ('S', 'n', 'N', 'A'); otherwise its
 * output is the same for every instant of one second (callers may reuse it). */
int sl_datefmt_has_fraction(const sl_datefmt *f);
int sl_datefmt_parse(const sl_datefmt *f, const char *s, size_t len, int64_t *out_us); /* 0/-1 */
/* The same; with prefix = 1 text after the pattern is ignored (Java's
 * SimpleDateFormat.parse, which UNIX_TIMESTAMP uses); *has_offset (when not
 * NULL) is set to 1 when the pattern read a zone offset (the result is then
 * UTC), else 0 (the result is the wall clock). */
int sl_datefmt_parse_ex(const sl_datefmt *f, const char *s, size_t len, int prefix,
                        int64_t *out_us, int *has_offset);

/* Time-zone offset in micros of zone `tz` at instant `utc_us` (0 for UTC or
 * NULL).  Returns 0, or -1 for an unknown zone. */
int sl_tz_offset(const char *tz, int64_t utc_us, int64_t *off_us);

#endif
