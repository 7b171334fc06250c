/*
 * parquet.h - internals of the 'parquet' format shared by its files
 * (docs/parquet.md): the enums of the Apache Parquet format specification
 * (parquet-format's parquet.thrift), the Thrift compact protocol used by
 * its footer and page headers (parquet_thrift.c), the level and value
 * encodings and page compression (parquet_codec.c), the column layout a
 * sluice schema maps to (fmt_parquet.c), the writer (parquet_write.c) and
 * the reader (parquet_read.c).  Internal to src/format.
 */
#ifndef SL_PARQUET_H
#define SL_PARQUET_H

#include <stddef.h>
#include <stdint.h>

#include "../base/buf.h"
#include "../base/err.h"
#include "../base/opts.h"
#include "../data/types.h"
#include "format.h"

/* ---- the specification's enums ------------------------------------------ */

enum { PQ_BOOLEAN = 0, PQ_INT32 = 1, PQ_INT64 = 2, PQ_INT96 = 3, PQ_FLOAT = 4, PQ_DOUBLE = 5,
       PQ_BYTE_ARRAY = 6, PQ_FIXED = 7 };                          /* Type */
enum { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 };          /* FieldRepetitionType */
enum { PQ_CT_UTF8 = 0, PQ_CT_LIST = 3, PQ_CT_ENUM = 4, PQ_CT_DECIMAL = 5, PQ_CT_DATE = 6,
       PQ_CT_TIME_MILLIS = 7, PQ_CT_TIME_MICROS = 8, PQ_CT_TIMESTAMP_MILLIS = 9,
       PQ_CT_TIMESTAMP_MICROS = 10, PQ_CT_UINT_8 = 11, PQ_CT_UINT_16 = 12,
       PQ_CT_UINT_32 = 13, PQ_CT_UINT_64 = 14, PQ_CT_INT_8 = 15, PQ_CT_INT_16 = 16,
       PQ_CT_INT_32 = 17, PQ_CT_INT_64 = 18, PQ_CT_JSON = 19 };    /* ConvertedType */
enum { PQ_LT_STRING = 1, PQ_LT_MAP = 2, PQ_LT_LIST = 3, PQ_LT_ENUM = 4, PQ_LT_DECIMAL = 5,
       PQ_LT_DATE = 6, PQ_LT_TIME = 7, PQ_LT_TIMESTAMP = 8, PQ_LT_INTEGER = 10,
       PQ_LT_UNKNOWN = 11, PQ_LT_JSON = 12 };                       /* LogicalType union */
enum { PQ_UNIT_MILLIS = 1, PQ_UNIT_MICROS = 2, PQ_UNIT_NANOS = 3 }; /* TimeUnit union */
enum { PQ_PLAIN = 0, PQ_PLAIN_DICTIONARY = 2, PQ_RLE = 3, PQ_BIT_PACKED = 4,
       PQ_DELTA_BINARY_PACKED = 5, PQ_DELTA_LENGTH_BYTE_ARRAY = 6, PQ_DELTA_BYTE_ARRAY = 7,
       PQ_RLE_DICTIONARY = 8, PQ_BYTE_STREAM_SPLIT = 9 };           /* Encoding */
enum { PQ_UNCOMPRESSED = 0, PQ_SNAPPY = 1, PQ_GZIP = 2, PQ_LZO = 3, PQ_BROTLI = 4,
       PQ_LZ4 = 5, PQ_ZSTD = 6, PQ_LZ4_RAW = 7 };                   /* CompressionCodec */
enum { PQ_DATA_PAGE = 0, PQ_INDEX_PAGE = 1, PQ_DICTIONARY_PAGE = 2,
       PQ_DATA_PAGE_V2 = 3 };                                       /* PageType */

/* ---- Thrift compact protocol (parquet_thrift.c) -------------------------- */

/* Compact protocol type ids (field headers and list headers). */
enum { TC_STOP = 0, TC_TRUE = 1, TC_FALSE = 2, TC_BYTE = 3, TC_I16 = 4, TC_I32 = 5,
       TC_I64 = 6, TC_DOUBLE = 7, TC_BINARY = 8, TC_LIST = 9, TC_SET = 10, TC_MAP = 11,
       TC_STRUCT = 12 };

#define PQ_TDEPTH 32 /* nesting limit of structs, for writing and reading */

/* A writer appending to a buffer; structs nest up to PQ_TDEPTH. */
typedef struct pq_tw {
	sl_buf *b;
	int depth;
	int16_t last[PQ_TDEPTH]; /* last field id per open struct */
	int failed;              /* out of memory or too deep: the bytes are void */
} pq_tw;

void pq_tw_init(pq_tw *w, sl_buf *b);          /* the outermost struct is open */
void pq_tw_i32(pq_tw *w, int id, int32_t v);   /* field of type i32 (also i8, i16) */
void pq_tw_i8(pq_tw *w, int id, int v);        /* field of type byte */
void pq_tw_i64(pq_tw *w, int id, int64_t v);
void pq_tw_bool(pq_tw *w, int id, int v);
void pq_tw_bin(pq_tw *w, int id, const void *p, size_t n);
void pq_tw_struct(pq_tw *w, int id);           /* opens a struct field */
void pq_tw_end(pq_tw *w);                      /* closes the innermost struct (STOP) */
void pq_tw_list(pq_tw *w, int id, int etype, int64_t n); /* list field header */
void pq_tw_elem_struct(pq_tw *w);              /* opens a struct element of a list */
void pq_tw_elem_i32(pq_tw *w, int32_t v);      /* an i32 element of a list */
void pq_tw_elem_bin(pq_tw *w, const void *p, size_t n); /* a binary element */

/* A reader over bytes [p, e); err is set once and sticks. */
typedef struct pq_tr {
	const uint8_t *p, *e;
	int err;
	int depth;
} pq_tr;

/* The next field of the struct being read: returns its id and sets *type
 * (TC_TRUE/TC_FALSE carry a bool's value), 0 at the struct's end (STOP)
 * or on error.  *last is the struct's last field id (start at 0). */
int pq_tr_field(pq_tr *r, int16_t *last, int *type);
int64_t pq_tr_int(pq_tr *r);        /* zigzag varint (i16, i32, i64) */
int pq_tr_byte(pq_tr *r);           /* a byte field's value */
/* Binary: points into the input; NULL (and err) when it does not fit. */
const uint8_t *pq_tr_bin(pq_tr *r, size_t *n);
/* List header: returns the element count and sets *etype; -1 on error. */
int64_t pq_tr_list(pq_tr *r, int *etype);
/* Skips a value of the given type (structs and lists recursively). */
void pq_tr_skip(pq_tr *r, int type);
/* An int field value of any int type, checked to lie in [lo, hi]; sets err
 * and returns lo otherwise. */
int64_t pq_tr_int_in(pq_tr *r, int type, int64_t lo, int64_t hi);

/* ---- encodings and compression (parquet_codec.c) ------------------------- */

/* Bits needed for values up to max (0 for max 0). */
int pq_bit_width(uint64_t max);
/*
 * Appends the RLE/bit-packed hybrid encoding (without length prefix) of
 * v[0..n) at bit width bw to out.  Returns 0 or SL_ENOMEM.
 */
int pq_rle_encode(sl_buf *out, const uint32_t *v, int64_t n, int bw);
/*
 * Decodes n values of the hybrid encoding at bit width bw from [p, p+len)
 * into v; values > max are an error.  Returns 0, or -1 when the input is
 * too short or malformed.
 */
int pq_rle_decode(const uint8_t *p, size_t len, int bw, uint32_t *v, int64_t n,
                  uint32_t max);
/*
 * DELTA_BINARY_PACKED: decodes n values from [p, p+len) into v (64-bit;
 * 32-bit columns wrap as the spec says).  Sets *used to the bytes read.
 * Returns 0 or -1 when malformed or short.
 */
int pq_delta_decode(const uint8_t *p, size_t len, int64_t *v, int64_t n, size_t *used);
/* Worst-case compressed size of n bytes under codec. */
size_t pq_compress_bound(int codec, size_t n);
/*
 * Compresses src[0..n) with codec (PQ_UNCOMPRESSED, PQ_SNAPPY, PQ_ZSTD,
 * PQ_GZIP) at level (zstd, gzip; 0 = the library's default) into dst
 * (room: pq_compress_bound); sets *out_n.  *ctx is the caller's slot for
 * a reusable compression context (NULL at first; free it with
 * pq_codec_ctx_free).  Returns 0 or SL_EIO.
 */
int pq_compress(int codec, int level, void **ctx, const void *src, size_t n, void *dst,
                size_t *out_n);
void pq_codec_ctx_free(int codec, void *ctx);
/*
 * Decompresses src[0..n) into dst, which must receive exactly want bytes.
 * Returns 0, or -1 (with a reason in *why) when the codec is not built in
 * or the data is damaged.
 */
int pq_decompress(int codec, const void *src, size_t n, void *dst, size_t want,
                  const char **why);
/* The codec's name as in 'parquet.compression' ("snappy"). */
const char *pq_codec_name(int codec);

/* ---- how a sluice column is laid out (fmt_parquet.c) --------------------- */

/* A leaf column of the schema: the sluice field it stores and how. */
typedef struct pq_leaf {
	const sl_field *f;  /* the field (for a ROW's child: the child field) */
	int phys;           /* PQ_* Type */
	int type_len;       /* FIXED_LEN_BYTE_ARRAY length */
	int unit;           /* TIME/TIMESTAMP: PQ_UNIT_* */
	int max_def;        /* definition level of a present value */
	int path_len;       /* names from the root's child down to the leaf */
	const char *path[8];
	uint8_t opt[8];     /* per path element: 1 when OPTIONAL */
	int idx[8];         /* per path element: the top-level column, then child indexes */
	int top;            /* index of the top-level field */
} pq_leaf;

/*
 * Maps the fields to Parquet leaves (ROW fields become groups, their
 * children leaves in order).  Types with no Parquet form (INTERVAL) are
 * refused with SL_ENOTSUP naming the column.  *leaves is malloc'd (free
 * with pq_leaves_free).  0 or an error with err.
 */
int pq_leaves_make(const sl_field *fields, int nfields, pq_leaf **leaves, int *nleaves,
                   sl_err *err);
void pq_leaves_free(pq_leaf *leaves, int n);
/*
 * Writes the schema of the fields (a root element and, depth first, one
 * element per field and ROW child) as the list field `id` of w.  With
 * field_ids (NULL = none), top-level field i carries field_id field_ids[i]
 * (the Iceberg sink's column ids, 'parquet.field-ids'; ROW children carry
 * none).
 */
void pq_write_schema(pq_tw *w, int id, const sl_field *fields, int nfields,
                     const int *field_ids);
/* Bytes of the FIXED_LEN_BYTE_ARRAY holding a DECIMAL of precision p. */
int pq_decimal_bytes(int p);

/* The row-group/rows cap of the reader (fuzz targets lower it). */
extern int64_t pq_read_value_cap;

/* The format's encoder and decoder: the base and the writer's or
 * reader's state (parquet_write.c, parquet_read.c). */
typedef struct pq_enc {
	sl_encoder base;
	struct pq_writer *w;
} pq_enc;
typedef struct pq_dec {
	sl_decoder base;
	struct pq_reader *r;
} pq_dec;

/* parquet_write.c / parquet_read.c: the format's halves (format.h's
 * contracts). */
int pq_encoder_init(sl_encoder *e, const sl_opts *opts, sl_err *err);
int pq_encode(sl_encoder *e, const sl_batch *b, int row, sl_buf *out, sl_err *err);
void pq_encoder_deinit(sl_encoder *e);
int pq_file_begin(sl_encoder *e, sl_buf *out, sl_err *err);
int pq_file_end(sl_encoder *e, sl_buf *out, sl_err *err);
int64_t pq_file_buffered(const sl_encoder *e);

int pq_write_options_check(const sl_opts *opts, sl_err *err);
int pq_decoder_init(sl_decoder *d, const sl_opts *opts, sl_err *err);
void pq_decoder_deinit(sl_decoder *d);
int pq_file_open(sl_decoder *d, int fd, const char *name, sl_err *err);
int pq_file_read(sl_decoder *d, sl_batch *out, sl_err *err);
int pq_file_skip(sl_decoder *d, int64_t rows, sl_err *err);
int pq_file_block_end(const sl_decoder *d);
void pq_file_close(sl_decoder *d);

#endif
