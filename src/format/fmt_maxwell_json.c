/*
 * fmt_maxwell_json.c - the `maxwell-json` format: changelog rows in
 * Zendesk Maxwell's JSON, read and written as Flink's format of that name
 * does.
 *
 * Decoding: a record is {"database": "db", "table": "t", "type": "insert"
 * | "update" | "delete", "ts": ..., "xid": ..., "commit": true, "data":
 * {...}, "old": {...}}, keys in any order.
 *   insert  +I(data)
 *   update  -U(data with the fields of "old" put back: "old" holds only the
 *           changed fields' previous values), +U(data).  Without "old" the
 *           update is an error, unless the decoder is keyed (format.h):
 *           then +U alone, normalized by key downstream
 *   delete  -D(data)
 *   Maxwell's bootstrap records (sluice extension: Flink rejects them):
 *   "bootstrap-insert" -> +I(data); "bootstrap-start" and
 *   "bootstrap-complete" carry no row.  Those, empty records and the text
 *   null are counted in events_skipped; any other type is an error.
 *
 * Encoding (as Flink): +I/+U as {"data":{...},"type":"insert"}, -U/-D as
 * {"data":{...},"type":"delete"}; the literals are a table for
 * fmt_json_envelope.c's shared encoder.
 *
 * Invariants as fmt_json.c: no per-row malloc, on error no row is left
 * appended, messages give the byte offset or the field.
 */
#include "fmt_builtin.h"
#include "fmt_json_envelope.h"

#include <string.h>

#include "sluice.h"

typedef struct mw_dec {
	sl_decoder base;
	sl_jopts o, overlay; /* overlay: o without fail-on-missing ("old" is partial) */
	sl_arena arena;
	sl_jschema *schema;
} mw_dec;

typedef struct mw_msg {
	const char *data, *old; /* objects, NULL = absent or null */
	sl_str type;
	int has_type;
} mw_msg;

static int key_is(const sl_str *k, const char *name)
{
	size_t n = strlen(name);
	return (size_t)k->len == n && memcmp(k->ptr, name, n) == 0;
}

/* Records the object at c->p (or null) into *at and skips it. */
static int take_object(sl_jcur *c, const char **at, const char *what)
{
	int ch = sl__json_ws(c);
	if (ch == '{')
		*at = c->p;
	else if (ch == 'n')
		*at = NULL;
	else
		return sl__json_syntax(c, what);
	return sl__json_skip_value(c);
}

static int scan_msg(sl_jcur *c, mw_msg *m)
{
	c->p++; /* '{' */
	if (sl__json_ws(c) == '}') {
		c->p++;
		return 0;
	}
	for (;;) {
		sl_str k;
		int rc;
		if (sl__json_ws(c) != '"' || sl__json_read_string(c, &k))
			return sl__json_syntax(c, "expected a string key");
		if (sl__json_ws(c) != ':')
			return sl__json_syntax(c, "expected ':'");
		c->p++;
		int ch = sl__json_ws(c);
		if (key_is(&k, "data"))
			rc = take_object(c, &m->data, "expected an object or null for 'data'");
		else if (key_is(&k, "old"))
			rc = take_object(c, &m->old, "expected an object or null for 'old'");
		else if (key_is(&k, "type") && ch == '"') {
			m->has_type = 1;
			rc = sl__json_read_string(c, &m->type);
		} else
			rc = sl__json_skip_value(c);
		if (rc)
			return rc;
		ch = sl__json_ws(c);
		c->p++;
		if (ch == '}')
			return 0;
		if (ch != ',') {
			c->p--;
			return sl__json_syntax(c, "expected ',' or '}'");
		}
	}
}

/* Appends a row of kind op read from the object at obj, then, when over is
 * not NULL, the fields present in `over` on top of it. */
static int add_row(mw_dec *d, sl_jcur *c, uint8_t op, const char *obj, const char *over,
                   int64_t wm)
{
	int r = sl_batch_add_row(c->b, op, wm);
	c->p = obj;
	if (sl__json_read_object(c, d->schema, c->b->cols, r))
		return SL_EINPUT;
	if (!over)
		return 0;
	const sl_jopts *keep = c->o;
	c->o = &d->overlay;
	c->p = over;
	int rc = sl__json_read_object(c, d->schema, c->b->cols, r);
	c->o = keep;
	return rc ? SL_EINPUT : 0;
}

static int mw_decode(sl_decoder *dd, const char *rec, size_t len, sl_batch *out, int64_t wm,
                     sl_err *err)
{
	mw_dec *d = (mw_dec *)dd;
	sl_jcur c = {.s = rec, .p = rec, .e = rec + len, .b = out, .err = err, .o = &d->o};
	mw_msg m = {0};
	int start = out->nrows, rc = 0;
	int ch = sl__json_ws(&c);
	if (ch < 0 || (ch == 'n' && c.e - c.p == 4 && memcmp(c.p, "null", 4) == 0)) {
		dd->events_skipped++;
		return 0; /* tombstone */
	}
	if (ch != '{')
		return sl__json_syntax(&c, "expected '{'");
	if ((rc = scan_msg(&c, &m)) != 0)
		goto fail;
	if (sl__json_ws(&c) >= 0) {
		rc = sl__json_syntax(&c, "unexpected data after the object");
		goto fail;
	}
	if (!m.has_type) {
		rc = sl_err_set(err, SL_EINPUT, "maxwell-json: record has no \"type\"");
		goto fail;
	}
	if (key_is(&m.type, "bootstrap-start") || key_is(&m.type, "bootstrap-complete")) {
		dd->events_skipped++;
		return 0;
	}
	int ins = key_is(&m.type, "insert") || key_is(&m.type, "bootstrap-insert");
	int upd = key_is(&m.type, "update"), del = key_is(&m.type, "delete");
	if (!ins && !upd && !del) {
		rc = sl_err_set(err, SL_EINPUT, "maxwell-json: unknown \"type\" value \"%.*s\"",
		                (int)m.type.len, m.type.ptr);
		goto fail;
	}
	if (!m.data) {
		rc = sl_err_set(err, SL_EINPUT, "maxwell-json: %.*s record without \"data\"",
		                (int)m.type.len, m.type.ptr);
		goto fail;
	}
	if (upd && !m.old && !dd->keyed) {
		rc = sl_err_set(err, SL_EINPUT,
		                "maxwell-json: update record without \"old\": declare the table's "
		                "PRIMARY KEY so that the source normalizes changes by key");
		goto fail;
	}
	if (upd && m.old)
		rc = add_row(d, &c, SL_UPDATE_BEFORE, m.data, m.old, wm);
	if (!rc)
		rc = add_row(d, &c, ins ? SL_INSERT : del ? SL_DELETE : SL_UPDATE_AFTER, m.data, NULL,
		             wm);
	if (rc)
		goto fail;
	return out->nrows - start;
fail:
	out->nrows = start;
	return rc == SL_ENOMEM ? rc : SL_EINPUT;
}

static int mw_decoder_init(sl_decoder *dd, const sl_opts *opts, sl_err *err)
{
	mw_dec *d = (mw_dec *)dd;
	sl_arena_init(&d->arena, 4096);
	if (sl__jopts_read("maxwell-json", opts, &d->o, &dd->ignore_errors, err))
		return SL_EINVAL;
	d->overlay = d->o;
	d->overlay.fail_on_missing = 0;
	if (sl__jschema_build(&d->arena, dd->fields, dd->nfields, &d->schema))
		return sl_err_set(err, SL_ENOMEM, "maxwell-json: out of memory");
	return 0;
}

static void mw_decoder_deinit(sl_decoder *dd)
{
	sl__jschema_free(((mw_dec *)dd)->schema);
	sl_arena_deinit(&((mw_dec *)dd)->arena);
}

/* The envelope written (docs/semantics.md §2; fmt_json_envelope.c). */
static const sl_jenvelope mw_envelope = {
	.format = "maxwell-json",
	.add_open = "{\"data\":",
	.add_close = ",\"type\":\"insert\"}\n",
	.del_open = "{\"data\":",
	.del_close = ",\"type\":\"delete\"}\n",
};

static int mw_encoder_init(sl_encoder *e, const sl_opts *opts, sl_err *err)
{
	return sl__jenv_encoder_init(e, &mw_envelope, opts, err);
}

const sl_format_vtab sl__fmt_maxwell_json = {
	.name = "maxwell-json",
	.decoder_size = sizeof(mw_dec),
	.encoder_size = sizeof(sl_jenv_encoder),
	.changelog = 1,
	.decoder_init = mw_decoder_init,
	.decode = mw_decode,
	.decoder_deinit = mw_decoder_deinit,
	.encoder_init = mw_encoder_init,
	.encode = sl__jenv_encode,
	.encoder_deinit = sl__jenv_encoder_deinit,
};
