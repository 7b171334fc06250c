/*
 * fmt_raw.c - Flink's `raw` format: the whole record is the value of the
 * table's one physical column, read and written as bytes.
 *
 * The column must be a string (CHAR, VARCHAR, STRING) or binary (BINARY,
 * VARBINARY, BYTES) type; 'raw.charset' must be UTF-8 (the default; sluice
 * strings are UTF-8 bytes) and 'raw.endianness' ('big-endian' or
 * 'little-endian') is accepted and only matters for numeric columns, which
 * this format does not take (Flink's raw also reads numbers as fixed-width
 * binary: refused here with a message).  Decoding references the record's
 * bytes in place (the caller keeps them alive for the batch: format.h);
 * a record is never malformed.  Encoding writes the value's bytes and the
 * newline every encoder appends; a NULL value writes nothing before it.
 * The Kafka connectors use it for keys and values ('key.format' = 'raw').
 */
#include "fmt_builtin.h"
#include "sluice.h"

#include <string.h>
#include <strings.h>

static int raw_check(const sl_field *fields, int nfields, const sl_opts *opts, const char *what,
                     sl_err *err)
{
	if (nfields != 1)
		return sl_err_set(err, SL_EINVAL, "The 'raw' format only supports single physical "
		                  "column. However the defined schema contains multiple physical "
		                  "columns (%d)", nfields);
	sl_type t = fields[0].type;
	if (!sl_type_is_string(t) && !sl_type_is_binary(t)) {
		char tb[64];
		return sl_err_set(err, SL_ENOTSUP, "format 'raw': column '%s' of type %s is not "
		                  "supported (a string or binary column is)", fields[0].name,
		                  sl_type_format(t, tb, sizeof tb));
	}
	const char *cs = sl_opts_get(opts, "raw.charset");
	if (cs && strcasecmp(cs, "UTF-8") && strcasecmp(cs, "UTF8"))
		return sl_err_set(err, SL_ENOTSUP, "format 'raw': 'raw.charset' '%s' is not supported "
		                  "(UTF-8 is)", cs);
	const char *en = sl_opts_get(opts, "raw.endianness");
	if (en && strcmp(en, "big-endian") && strcmp(en, "little-endian"))
		return sl_err_set(err, SL_EINVAL, "format 'raw': Unsupported endianness name: %s", en);
	(void)what;
	return 0;
}

static int raw_decoder_init(sl_decoder *d, const sl_opts *opts, sl_err *err)
{
	return raw_check(d->fields, d->nfields, opts, "decoder", err);
}

static int raw_decode(sl_decoder *d, const char *rec, size_t len, sl_batch *out, int64_t wm,
                      sl_err *err)
{
	int row = sl_batch_add_row(out, SL_INSERT, wm);
	sl_col_set_str_ref(&out->cols[0], row, len ? rec : "", (int64_t)len);
	return 1;
}

static void raw_decoder_deinit(sl_decoder *d)
{
}

static int raw_encoder_init(sl_encoder *e, const sl_opts *opts, sl_err *err)
{
	return raw_check(e->fields, e->nfields, opts, "encoder", err);
}

static int raw_encode(sl_encoder *e, const sl_batch *b, int row, sl_buf *out, sl_err *err)
{
	const sl_col *c = &b->cols[0];
	if (!c->null[row] && sl_buf_append(out, c->v.str[row].ptr, (size_t)c->v.str[row].len))
		return SL_ENOMEM;
	return sl_buf_putc(out, '\n') ? SL_ENOMEM : 0;
}

static void raw_encoder_deinit(sl_encoder *e)
{
}

const sl_format_vtab sl__fmt_raw = {
	.name = "raw",
	.decoder_size = sizeof(sl_decoder),
	.encoder_size = sizeof(sl_encoder),
	.changelog = 0,
	.decoder_init = raw_decoder_init,
	.decode = raw_decode,
	.decoder_deinit = raw_decoder_deinit,
	.encoder_init = raw_encoder_init,
	.encode = raw_encode,
	.encoder_deinit = raw_encoder_deinit,
};
