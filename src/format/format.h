/*
 * format.h - row codecs: the method table every format implements.
 *
 * A format turns one encoded record (a JSON line, a CSV line, a Debezium
 * envelope) into rows of a batch, and rows back into text.  Decoding is
 * schema-directed: the decoder knows the target fields up front and writes
 * straight into the batch's typed column vectors (no intermediate tree, no
 * per-row malloc; strings are copied into the batch arena, or referenced
 * in place when no unescaping is needed and the caller guarantees the
 * record bytes outlive the batch's use).
 *
 * Formats are registered by name in fmt_registry.c; a new format is one new
 * file plus one registry line.  Like every method table here, the concrete
 * decoder/encoder struct embeds the base struct as its first member and
 * vt->decoder_size / encoder_size say how much to allocate.
 */
#ifndef SL_FORMAT_H
#define SL_FORMAT_H

#include "../base/buf.h"
#include "../base/err.h"
#include "../base/opts.h"
#include "../data/types.h"
#include "../data/batch.h"

typedef struct sl_format_vtab sl_format_vtab;

/* Base of every decoder. */
typedef struct sl_decoder {
	const sl_format_vtab *vt;
	const sl_field *fields; /* target schema: batch column i <- field i */
	int nfields;
	int ignore_errors;      /* '<format>.ignore-parse-errors' */
	/* Changelog formats: set by the caller after sl_decoder_new when the
	 * table has a PRIMARY KEY.  An update whose old image is missing (a
	 * PostgreSQL table without REPLICA IDENTITY FULL) then yields only +U
	 * and a delete's image may hold only the key: a ChangelogNormalize
	 * operator keyed by the PRIMARY KEY restores the full -U/-D rows.
	 * Without it such a record is an error. */
	int keyed;
	int64_t events_skipped; /* change events that carry no row (truncate,
	                         * message, tombstone), counted for stats */
	/* Column pruning (src/plan/plan_prune.c): skip[i] = 1 when no part of
	 * the query reads field i, set by the scan operator before the first
	 * read (NULL = every field is read).  A format may leave such a field
	 * NULL instead of decoding it; the Parquet reader does (it loads no
	 * column chunk of it), the line formats decode every field. */
	const uint8_t *skip;
} sl_decoder;

/* Base of every encoder. */
typedef struct sl_encoder {
	const sl_format_vtab *vt;
	const sl_field *fields;
	int nfields;
} sl_encoder;

struct sl_format_vtab {
	const char *name;       /* "json", "csv", "debezium-json", "canal-json", ... */
	size_t decoder_size;    /* sizeof the concrete decoder, 0 = cannot decode */
	size_t encoder_size;    /* sizeof the concrete encoder, 0 = cannot encode */
	int changelog;          /* decodes/encodes -U/+U/-D (else insert-only) */

	/*
	 * Prepares a decoder (its base already filled by sl_decoder_new).  Reads
	 * the format's options from opts ('json.ignore-parse-errors',
	 * 'csv.field-delimiter', ...).  Returns 0 or SL_EINVAL with err set.
	 */
	int (*decoder_init)(sl_decoder *d, const sl_opts *opts, sl_err *err);

	/*
	 * Decodes one record rec[0..len) (no trailing newline) into new rows
	 * of `out` (columns = the decoder's fields, in order), each with op as
	 * decoded (+I for plain formats) and W_before = wm.  Returns the number
	 * of rows appended (0 for a record that yields none, e.g. a Debezium
	 * tombstone), or SL_EINPUT with err naming the field and the reason
	 * ("field 'amount': 'abc' is not a DECIMAL(10, 2)"); on error no row is
	 * left appended.  `out` has room for at least 2 rows.  A record may
	 * hold more rows (canal-json's "data" array): when they do not fit in
	 * the room left, decode appends nothing and returns SL_EFULL if out
	 * already has rows (the caller emits the batch and decodes the record
	 * again into an empty one), or SL_EINPUT naming the count if it has
	 * none.
	 */
	int (*decode)(sl_decoder *d, const char *rec, size_t len, sl_batch *out, int64_t wm,
	              sl_err *err);

	void (*decoder_deinit)(sl_decoder *d);

	/* Prepares an encoder; reads e.g. 'json.timestamp-format.standard'. */
	int (*encoder_init)(sl_encoder *e, const sl_opts *opts, sl_err *err);

	/*
	 * Appends the encoding of row `row` of batch b (columns = the encoder's
	 * fields) to out, followed by a newline.  Plain formats refuse rows that
	 * are not +I with SL_EINVAL (the planner prevents it).  Returns 0 or a
	 * negative SL_E* code.
	 */
	int (*encode)(sl_encoder *e, const sl_batch *b, int row, sl_buf *out, sl_err *err);

	void (*encoder_deinit)(sl_encoder *e);

	/*
	 * File formats (Parquet, docs/parquet.md): a file is one encoded whole
	 * (a header, blocks, a footer), not a sequence of lines.  NULL for the
	 * line formats.  Writing, the filesystem sink calls file_begin when it
	 * opens a part file (the header goes to out), encode per row (the
	 * format buffers the row and may append a finished block, a Parquet
	 * row group, to out), file_buffered for the rolling policy (bytes held
	 * back, not yet in out), and file_end before it closes the part (the
	 * rows held back and the footer go to out).  The sink writes every byte
	 * appended to out to the part, in order.  0 or a negative SL_E* code.
	 */
	int (*file_begin)(sl_encoder *e, sl_buf *out, sl_err *err);
	int (*file_end)(sl_encoder *e, sl_buf *out, sl_err *err);
	int64_t (*file_buffered)(const sl_encoder *e);
	/*
	 * Reading, the filesystem source calls file_open on each file (fd
	 * stays the caller's and open until file_close; name is for
	 * messages), then file_read to append up to out->cap - out->nrows rows
	 * (+I, W_before SL_WM_MIN): the number appended, SL_EEOF after the
	 * last row, or SL_EINPUT with err naming the file and column.
	 * A file is cut into blocks (Parquet row groups): one file_read call
	 * returns rows of one block, and file_block_end says whether the last
	 * call reached its block's end (the source lets another file take its
	 * turn there).  file_skip passes over the next n rows (a restore's
	 * position; whole blocks are passed over without reading them), and
	 * file_close ends the file (safe after a failed open).  decode is not
	 * used.
	 */
	int (*file_open)(sl_decoder *d, int fd, const char *name, sl_err *err);
	int (*file_read)(sl_decoder *d, sl_batch *out, sl_err *err);
	int (*file_skip)(sl_decoder *d, int64_t n, sl_err *err);
	int (*file_block_end)(const sl_decoder *d);
	void (*file_close)(sl_decoder *d);
	/* The open file's rows (Parquet: the footer's num_rows), for the
	 * source's percent done (docs/observability.md); NULL or -1: unknown. */
	int64_t (*file_rows)(const sl_decoder *d);
};

/* decode: the record's rows do not fit in the batch's room (see above);
 * internal signalling between a decoder and its caller, never reported. */
#define SL_EFULL (-100)

/* Looks up a format by name; NULL when unknown. */
const sl_format_vtab *sl_format_find(const char *name);

/* Allocates and initializes a decoder/encoder of format vt for the given
 * fields (the array must outlive it).  NULL with err set on failure. */
sl_decoder *sl_decoder_new(const sl_format_vtab *vt, const sl_field *fields, int nfields,
                           const sl_opts *opts, sl_err *err);
void sl_decoder_free(sl_decoder *d);
sl_encoder *sl_encoder_new(const sl_format_vtab *vt, const sl_field *fields, int nfields,
                           const sl_opts *opts, sl_err *err);
void sl_encoder_free(sl_encoder *e);

#endif
