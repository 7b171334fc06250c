/*
 * avro.h - a small Apache Avro binary encoder and object-container writer,
 * and the matching reader of the primitives and container framing
 * (docs/iceberg.md "Avro").  sluice writes Iceberg manifests and manifest
 * lists with it: Debian 12's avro-c cannot write the file-header metadata
 * Iceberg requires, so this is sluice's own, written from the Avro 1.11
 * specification ("Binary Encoding", "Object Container Files").
 *
 * The encoder is schema-less: a caller writes a record as its fields in
 * schema order with the primitive writers below (a union is its branch
 * index as a long, then the value; an array or a map is a block count,
 * the items, and a zero count).  The container writer frames those
 * records: the header ("Obj" 1, the metadata map with avro.schema,
 * avro.codec = null and the caller's keys, a 16-byte sync marker), then
 * blocks of records, each followed by the marker.
 *
 * The reader decodes the same primitives from a byte range and walks a
 * container's header and blocks; it never reads past its range (a cut or
 * damaged input sets `bad`), so it is safe on any bytes.
 */
#ifndef SL_AVRO_H
#define SL_AVRO_H

#include <stddef.h>
#include <stdint.h>

#include "../base/buf.h"

/* ---- encoding (avro_write.c); each returns 0 or -1 when out of memory -- */

/* long and int: zigzag, then a little-endian base-128 varint. */
int sl_avro_long(sl_buf *b, int64_t v);
/* boolean: one byte 0 or 1. */
int sl_avro_bool(sl_buf *b, int v);
/* float / double: IEEE 754, little-endian. */
int sl_avro_float(sl_buf *b, float v);
int sl_avro_double(sl_buf *b, double v);
/* bytes: the length as a long, then the bytes. */
int sl_avro_bytes(sl_buf *b, const void *p, size_t n);
/* string: as bytes, UTF-8 (not checked). */
int sl_avro_string(sl_buf *b, const char *s);

/*
 * An object container file being written into `out` (the whole file stays
 * in memory: manifests are small).  Records are appended to `block` by the
 * caller with the primitives above, each followed by sl_avro_file_record.
 */
typedef struct sl_avro_file {
	sl_buf out;          /* the file so far */
	sl_buf block;        /* records of the open block */
	int64_t nrec;        /* records in the open block */
	int64_t total;       /* records in the file */
	uint8_t sync[16];
} sl_avro_file;

/*
 * Starts a file: writes the header with avro.schema = schema (JSON text),
 * avro.codec = "null" and the nmeta pairs meta[2i] (key) = meta[2i+1]
 * (value, a string stored as bytes).  The sync marker is random.  Free
 * with sl_avro_file_deinit.  0 or -1 (out of memory).
 */
int sl_avro_file_begin(sl_avro_file *f, const char *schema, const char *const *meta,
                       int nmeta);
/* Ends the record just appended to f->block; closes the block at ~64 KiB. */
int sl_avro_file_record(sl_avro_file *f);
/* Writes the open block, if any: f->out then holds the whole file. */
int sl_avro_file_end(sl_avro_file *f);
void sl_avro_file_deinit(sl_avro_file *f);

/* ---- decoding (avro_read.c) ------------------------------------------------ */

/* A cursor over bytes; bad is set (and stays set) on a cut or invalid
 * value, after which every read returns 0 / NULL. */
typedef struct sl_avro_rd {
	const uint8_t *p, *end;
	int bad;
} sl_avro_rd;

int64_t sl_avro_get_long(sl_avro_rd *r);
int sl_avro_get_bool(sl_avro_rd *r);
double sl_avro_get_double(sl_avro_rd *r);
/* bytes / string: points into the input, *n its length; NULL when bad. */
const uint8_t *sl_avro_get_bytes(sl_avro_rd *r, size_t *n);

/*
 * An object container file in memory, p[0..n).  sl_avro_open checks the
 * magic, reads the metadata map (sl_avro_meta finds a key's value) and
 * the sync marker; sl_avro_next_block then gives each block's records as
 * a cursor (*count records in *blk).  Only the "null" codec is read.
 */
typedef struct sl_avro_in {
	sl_avro_rd r;        /* after the header: the blocks */
	const uint8_t *meta; /* the metadata map's bytes */
	size_t meta_len;
	uint8_t sync[16];
} sl_avro_in;

/* 0, or -1 with *why set (not Avro, damaged header, a codec other than null). */
int sl_avro_open(sl_avro_in *in, const void *p, size_t n, const char **why);
/* The metadata value of key (not NUL-terminated: *n bytes), or NULL. */
const uint8_t *sl_avro_meta(const sl_avro_in *in, const char *key, size_t *n);
/* 1 and the next block's records, 0 at the end, -1 when damaged. */
int sl_avro_next_block(sl_avro_in *in, sl_avro_rd *blk, int64_t *count);

#endif
