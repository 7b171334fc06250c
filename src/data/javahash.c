/*
 * javahash.c - Java's hashCode of a SQL value and java.util.HashMap's
 * iteration order, for the MAP values Flink prints (javahash.h).
 *
 * Flink 1.20.3 prints a MAP (its print connector, TableResult.collect(),
 * a MAP inside a ROW or ARRAY) through the external Java object: a
 * java.util.HashMap filled in the value's internal order, whose toString
 * walks the table bucket by bucket.  So `MAP['b', 1, 'a', 2]` prints as
 * {a=2, b=1}.  That order is a function of the keys' hashCode (String,
 * Integer, Long, Boolean, Double, BigDecimal, LocalDate, LocalTime,
 * LocalDateTime, Instant: all defined by the JDK), the table's capacity
 * (16, doubled while the entries exceed three quarters of it) and, within
 * one bucket, the insertion order; sluice reproduces it here.  Keys whose
 * Java hashCode is the object's identity (byte[] for BYTES, Row, arrays,
 * maps) have no reproducible order: those maps keep their own order.
 * Buckets that Java turns into trees (8 colliding keys in a table of 64 or
 * more) are not modelled.
 *
 * A map Flink builds itself in a HashMap keyed by its internal string
 * type (the json format's reader) is in the order of BinaryStringData's
 * hashCode, MurmurHashUtil over the UTF-8 bytes (sl_flink_string_hash).
 *
 * Stateless; any thread.
 */
#include "javahash.h"

#include <string.h>

#include "../base/timeutil.h"

/* sl_java_string_hash: see javahash.h. */
uint32_t sl_java_string_hash(const char *s, int64_t len)
{
	uint32_t h = 0;
	const unsigned char *p = (const unsigned char *)s, *e = p + len;
	while (p < e) {
		uint32_t c = *p;
		int l = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
		if (c >= 0x80) {
			if (c < 0xC0 || p + l > e) {
				c = 0xFFFD;
				l = 1;
			} else {
				c = l == 2 ? c & 0x1F : l == 3 ? c & 0x0F : c & 0x07;
				for (int i = 1; i < l; i++)
					c = (c << 6) | (p[i] & 0x3F);
			}
		}
		p += l;
		if (c >= 0x10000) {
			c -= 0x10000;
			h = 31 * h + (0xD800 + (c >> 10));
			h = 31 * h + (0xDC00 + (c & 0x3FF));
		} else {
			h = 31 * h + c;
		}
	}
	return h;
}

/* MurmurHashUtil's steps (Murmur3_32, seed 42) */
static uint32_t rotl(uint32_t x, int r)
{
	return (x << r) | (x >> (32 - r));
}

static uint32_t mix_k1(uint32_t k)
{
	return rotl(k * 0xcc9e2d51u, 15) * 0x1b873593u;
}

static uint32_t mix_h1(uint32_t h, uint32_t k)
{
	return rotl(h ^ k, 13) * 5 + 0xe6546b64u;
}

/* sl_flink_string_hash: see javahash.h. */
uint32_t sl_flink_string_hash(const char *s, int64_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	int64_t aligned = len - len % 4;
	uint32_t h = 42;
	for (int64_t i = 0; i < aligned; i += 4) /* MemorySegment.getInt: little-endian */
		h = mix_h1(h, mix_k1((uint32_t)p[i] | (uint32_t)p[i + 1] << 8 |
		                     (uint32_t)p[i + 2] << 16 | (uint32_t)p[i + 3] << 24));
	for (int64_t i = aligned; i < len; i++) /* the tail byte by byte, sign-extended */
		h = mix_h1(h, mix_k1((uint32_t)(int32_t)(signed char)p[i]));
	h ^= (uint32_t)len;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* Long.hashCode */
static uint32_t long_hash(int64_t v)
{
	uint64_t u = (uint64_t)v;
	return (uint32_t)(u ^ (u >> 32));
}

/* LocalDate.hashCode of days since the epoch */
static uint32_t date_hash(int64_t days)
{
	int64_t y;
	unsigned m, d;
	sl_civil_from_days(days, &y, &m, &d);
	uint32_t yv = (uint32_t)(int32_t)y;
	return (yv & 0xFFFFF800u) ^ ((yv << 11) + (m << 6) + d);
}

/* LocalTime.hashCode of microseconds of the day */
static uint32_t time_hash(int64_t us)
{
	return long_hash(us * 1000);
}

/* BigDecimal.hashCode of unscaled value v and scale s */
static uint32_t decimal_hash(sl_i128 v, int s)
{
	if (v >= INT64_MIN + 1 && v <= INT64_MAX) { /* intCompact */
		uint64_t a = v < 0 ? (uint64_t)-(int64_t)v : (uint64_t)(int64_t)v;
		uint32_t t = (uint32_t)((uint32_t)(a >> 32) * 31u + (uint32_t)a);
		return 31u * (v < 0 ? (uint32_t)-(int32_t)t : t) + (uint32_t)s;
	}
	/* BigInteger.hashCode: its magnitude's 32-bit words, most significant
	 * first, times the sign */
	unsigned __int128 a = v < 0 ? (unsigned __int128)0 - (unsigned __int128)v
	                            : (unsigned __int128)v;
	uint32_t w[4], h = 0;
	int n = 0;
	for (int i = 3; i >= 0; i--)
		w[i] = (uint32_t)(a >> (32 * i));
	int i = 3;
	while (i > 0 && !w[i])
		i--;
	for (; i >= 0; i--, n++)
		h = 31u * h + w[i];
	if (v < 0)
		h = (uint32_t)-(int32_t)h;
	return 31u * h + (uint32_t)s;
}

/* sl_java_hash: see javahash.h. */
int sl_java_hash(const sl_col *c, int row, uint32_t *h)
{
	if (c->null[row]) {
		*h = 0; /* HashMap.hash(null) */
		return 0;
	}
	switch ((sl_type_id)c->type.id) {
	case SL_T_CHAR:
	case SL_T_VARCHAR: *h = sl_java_string_hash(c->v.str[row].ptr, c->v.str[row].len); return 0;
	case SL_T_BOOLEAN: *h = c->v.i64[row] ? 1231 : 1237; return 0;
	case SL_T_TINYINT:
	case SL_T_SMALLINT:
	case SL_T_INT: *h = (uint32_t)(int32_t)c->v.i64[row]; return 0;
	case SL_T_BIGINT: *h = long_hash(c->v.i64[row]); return 0;
	case SL_T_FLOAT: {
		float f = (float)c->v.f64[row];
		uint32_t b;
		if (f != f)
			b = 0x7fc00000u; /* floatToIntBits: one NaN */
		else
			memcpy(&b, &f, sizeof(b));
		*h = b;
		return 0;
	}
	case SL_T_DOUBLE: {
		double d = c->v.f64[row];
		uint64_t b;
		if (d != d)
			b = 0x7ff8000000000000ull;
		else
			memcpy(&b, &d, sizeof(b));
		*h = (uint32_t)(b ^ (b >> 32));
		return 0;
	}
	case SL_T_DECIMAL: *h = decimal_hash(c->v.i128[row], c->type.scale); return 0;
	case SL_T_DATE: *h = date_hash(c->v.i64[row]); return 0;
	case SL_T_TIME: *h = time_hash(c->v.i64[row]); return 0;
	case SL_T_TIMESTAMP: {
		int64_t us = c->v.i64[row];
		int64_t days = sl_floordiv(us, SL_US_PER_DAY);
		*h = date_hash(days) ^ time_hash(us - days * SL_US_PER_DAY);
		return 0;
	}
	case SL_T_TIMESTAMP_LTZ: { /* Instant.hashCode */
		int64_t us = c->v.i64[row];
		int64_t sec = sl_floordiv(us, SL_US_PER_SEC);
		int32_t nanos = (int32_t)((us - sec * SL_US_PER_SEC) * 1000);
		*h = long_hash(sec) + 51u * (uint32_t)nanos;
		return 0;
	}
	default: return 1;
	}
}

/* sl_java_map_order: see javahash.h. */
void sl_java_map_order(const uint32_t *hash, int n, int *order)
{
	uint32_t cap = 16;
	while ((uint64_t)n > (uint64_t)cap * 3 / 4)
		cap <<= 1;
	/* stable insertion sort by bucket (maps printed are small) */
	for (int i = 0; i < n; i++) {
		uint32_t b = (hash[i] ^ (hash[i] >> 16)) & (cap - 1);
		int j = i;
		while (j > 0) {
			uint32_t hp = hash[order[j - 1]];
			if (((hp ^ (hp >> 16)) & (cap - 1)) <= b)
				break;
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
}
