/*
 * conn_format.c - the format of a connector's table: the decoder of a
 * source and the encoder of a sink from the 'format' option (and the
 * format's own options), shared by the filesystem and stdin/stdout
 * connectors, push tables (runtime/instantiate.c) and the planner's
 * checks (plan/plan_job.c) (sl__conn_decoder / sl__conn_encoder,
 * conn_lines.h).  Only the filesystem connector takes file formats
 * (Parquet: format.h's file hooks; sl__fs_decoder / sl__fs_encoder,
 * conn_fs_int.h); the others refuse them naming the table.
 */
#include "conn_fs_int.h"
#include "conn_lines.h"
#include "sluice.h"
#include "format/format.h"

/* Finds the decoder or encoder format named by 'format'. */
static const sl_format_vtab *find_format(const sl_opts *o, const char *def, const char *what,
                                         const char *table, sl_err *err)
{
	const char *name = sl_opts_get(o, "format");
	if (!name)
		name = def;
	if (!name) {
		sl_err_set(err, SL_EINVAL, "%s '%s': option 'format' is required", what, table);
		return NULL;
	}
	const sl_format_vtab *vt = sl_format_find(name);
	if (!vt)
		sl_err_set(err, SL_EINVAL, "%s '%s': unknown format '%s'", what, table, name);
	return vt;
}

/* A file format (Parquet) where only records can be used: NULL with err. */
static const sl_format_vtab *no_file_format(const sl_format_vtab *vt, const char *what,
                                            const char *table, sl_err *err)
{
	if (!vt || !vt->file_begin)
		return vt;
	sl_err_set(err, SL_EINVAL, "%s '%s': format '%s' is a file format: only the "
	           "'filesystem' connector can %s it", what, table, vt->name,
	           what[1] == 'o' ? "read" : "write");
	return NULL;
}

/* sl__conn_decoder, allowing file formats when file is 1. */
static sl_decoder *conn_decoder(const sl_conn_args *a, const char *def, int file, sl_err *err)
{
	const sl_format_vtab *vt = find_format(a->opts, def, "source", a->table, err);
	if (!file)
		vt = no_file_format(vt, "source", a->table, err);
	if (!vt)
		return NULL;
	if (!vt->decoder_size) {
		sl_err_set(err, SL_EINVAL, "source '%s': format '%s' cannot be read", a->table,
		           vt->name);
		return NULL;
	}
	sl_decoder *d = sl_decoder_new(vt, a->fields, a->nfields, a->opts, err);
	if (!d)
		sl_err_prefix(err, "source '%s'", a->table);
	else
		d->keyed = a->npk > 0;
	return d;
}

/*
 * Opens a decoder for a source: the 'format' option (def when absent) with
 * its options, keyed (format.h) when the table has a PRIMARY KEY.  Shared
 * with the stdin source and push tables, which read records: a file format
 * (Parquet) is refused naming the table.  Returns NULL with err set.
 */
sl_decoder *sl__conn_decoder(const sl_conn_args *a, const char *def, sl_err *err)
{
	return conn_decoder(a, def, 0, err);
}

/* The filesystem connector's decoder: sl__conn_decoder, file formats too. */
sl_decoder *sl__fs_decoder(const sl_conn_args *a, sl_err *err)
{
	return conn_decoder(a, NULL, 1, err);
}

/* sl__conn_encoder, allowing file formats when file is 1. */
static sl_encoder *conn_encoder(const sl_conn_args *a, const char *def, int file, sl_err *err)
{
	const sl_format_vtab *vt = find_format(a->opts, def, "sink", a->table, err);
	if (!file)
		vt = no_file_format(vt, "sink", a->table, err);
	if (!vt)
		return NULL;
	if (!vt->encoder_size) {
		sl_err_set(err, SL_EINVAL, "sink '%s': format '%s' cannot be written", a->table,
		           vt->name);
		return NULL;
	}
	sl_encoder *e = sl_encoder_new(vt, a->fields, a->nfields, a->opts, err);
	if (!e)
		sl_err_prefix(err, "sink '%s'", a->table);
	return e;
}

/*
 * Opens an encoder for a sink, like sl__conn_decoder (a file format is
 * refused: a sink of records would never see its rows written).  Returns
 * NULL with err set.
 */
sl_encoder *sl__conn_encoder(const sl_conn_args *a, const char *def, sl_err *err)
{
	return conn_encoder(a, def, 0, err);
}

/* The filesystem sink's encoder: sl__conn_encoder, file formats too. */
sl_encoder *sl__fs_encoder(const sl_conn_args *a, sl_err *err)
{
	return conn_encoder(a, NULL, 1, err);
}
