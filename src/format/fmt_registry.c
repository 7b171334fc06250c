/*
 * fmt_registry.c - the table of formats by name, and the generic
 * constructors of decoders and encoders.
 *
 * A connector asks sl_format_find("json") for a method table, then
 * sl_decoder_new / sl_encoder_new allocate the concrete struct
 * (vt->decoder_size bytes, base first), fill the base (fields, vtab) and
 * call the format's init.  A new format is one file, its method table's
 * declaration in fmt_builtin.h and one line in `formats` below.  The table is constant; lookups are thread-safe.
 */
#include "fmt_builtin.h"

#include <stdlib.h>
#include <string.h>

#include "sluice.h"

static const sl_format_vtab *const formats[] = {
	&sl__fmt_json,
	&sl__fmt_csv,
	&sl__fmt_debezium_json,
	&sl__fmt_canal_json,
	&sl__fmt_maxwell_json,
	&sl__fmt_parquet,
	&sl__fmt_raw,
};

/* Options used when a caller passes none (formats never see NULL). */
static const sl_opts no_opts;

/* sl_format_find: the format named `name` or NULL. */
const sl_format_vtab *sl_format_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i]->name, name) == 0)
			return formats[i];
	return NULL;
}

/*
 * sl_decoder_new: allocates and initializes a decoder of vt for fields
 * (which must outlive it); opts may be NULL (no options).  Returns it (free with sl_decoder_free), or NULL
 * with err set (SL_ENOTSUP when the format cannot decode, SL_EINVAL for a
 * bad option, SL_ENOMEM).
 */
/* ARRAY and MAP columns: only the JSON formats (fmt_json_read.c's reader and
 * writer) know their packed values (data/packed.h); any other format would
 * read or write those bytes as a string, so it refuses them here.  Flink's
 * csv has ARRAY (not MAP) through 'csv.array-element-delimiter': not in
 * sluice yet (docs/sql.md).  0 or SL_ENOTSUP with err set. */
static int check_collections(const sl_format_vtab *vt, const sl_field *fields, int nfields,
                             sl_err *err)
{
	static const char *const ok[] = {"json", "debezium-json", "canal-json", "maxwell-json"};
	for (size_t k = 0; k < sizeof(ok) / sizeof(ok[0]); k++)
		if (!strcmp(vt->name, ok[k]))
			return 0;
	for (int i = 0; i < nfields; i++)
		if (sl_type_contains(fields[i].type, SL_T_ARRAY) ||
		    sl_type_contains(fields[i].type, SL_T_MAP)) {
			char tb[128];
			return sl_err_set(err, SL_ENOTSUP, "format '%s' does not support column '%s' of "
			                  "type %s (ARRAY and MAP columns need a JSON format)", vt->name,
			                  fields[i].name, sl_type_format(fields[i].type, tb, sizeof(tb)));
		}
	return 0;
}

sl_decoder *sl_decoder_new(const sl_format_vtab *vt, const sl_field *fields, int nfields,
                           const sl_opts *opts, sl_err *err)
{
	if (check_collections(vt, fields, nfields, err))
		return NULL;
	if (!vt->decoder_size) {
		sl_err_set(err, SL_ENOTSUP, "format '%s' cannot be used to read", vt->name);
		return NULL;
	}
	sl_decoder *d = calloc(1, vt->decoder_size);
	if (!d) {
		sl_err_set(err, SL_ENOMEM, "format '%s': out of memory", vt->name);
		return NULL;
	}
	d->vt = vt;
	d->fields = fields;
	d->nfields = nfields;
	if (vt->decoder_init(d, opts ? opts : &no_opts, err))
		goto fail;
	return d;
fail:
	sl_decoder_free(d);
	return NULL;
}

/* sl_decoder_free: deinitializes and frees d; safe on NULL. */
void sl_decoder_free(sl_decoder *d)
{
	if (!d)
		return;
	if (d->vt->decoder_deinit)
		d->vt->decoder_deinit(d);
	free(d);
}

/* sl_encoder_new: as sl_decoder_new, for writing. */
sl_encoder *sl_encoder_new(const sl_format_vtab *vt, const sl_field *fields, int nfields,
                           const sl_opts *opts, sl_err *err)
{
	if (check_collections(vt, fields, nfields, err))
		return NULL;
	if (!vt->encoder_size) {
		sl_err_set(err, SL_ENOTSUP, "format '%s' cannot be used to write", vt->name);
		return NULL;
	}
	sl_encoder *e = calloc(1, vt->encoder_size);
	if (!e) {
		sl_err_set(err, SL_ENOMEM, "format '%s': out of memory", vt->name);
		return NULL;
	}
	e->vt = vt;
	e->fields = fields;
	e->nfields = nfields;
	if (vt->encoder_init(e, opts ? opts : &no_opts, err))
		goto fail;
	return e;
fail:
	sl_encoder_free(e);
	return NULL;
}

/* sl_encoder_free: deinitializes and frees e; safe on NULL. */
void sl_encoder_free(sl_encoder *e)
{
	if (!e)
		return;
	if (e->vt->encoder_deinit)
		e->vt->encoder_deinit(e);
	free(e);
}
