/*
 * javahash.h - Java's hashCode of a SQL value and java.util.HashMap's
 * iteration order (javahash.c): the order in which Flink prints a MAP.
 */
#ifndef SL_JAVAHASH_H
#define SL_JAVAHASH_H

#include <stdint.h>

#include "batch.h"

/* Java's String.hashCode of UTF-8 text (over its UTF-16 code units; an
 * invalid byte counts as U+FFFD, as Java's decoder makes it). */
uint32_t sl_java_string_hash(const char *s, int64_t len);

/* Flink's BinaryStringData.hashCode of UTF-8 text: MurmurHashUtil.hashBytes
 * (Murmur3_32 with seed 42 over little-endian 4-byte words, the remaining
 * bytes one by one, sign-extended), the hash of a string key in the
 * HashMaps Flink's json reader builds. */
uint32_t sl_flink_string_hash(const char *s, int64_t len);

/* The hashCode of the Java object Flink converts value (c, row) to
 * (String, Integer, Long, Boolean, Double, BigDecimal, LocalDate,
 * LocalTime, LocalDateTime, Instant; 0 for NULL, as HashMap hashes a null
 * key) into *h: 0, or 1 for a type whose Java hashCode is the object's
 * identity (BYTES, ROW, ARRAY, MAP), which has no reproducible order. */
int sl_java_hash(const sl_col *c, int row, uint32_t *h);

/* The iteration order of a new java.util.HashMap<>() after n puts of keys
 * with hashCodes hash[0..n) (distinct keys, in that order): order[k] is
 * the index of the k-th entry a HashMap iterates. */
void sl_java_map_order(const uint32_t *hash, int n, int *order);

#endif
