/*
 * fmt_debezium_json.c - the `debezium-json` format: changelog rows in
 * Debezium's JSON envelope, read and written as Flink does.
 *
 * Decoding: a record is {"before": {...}|null, "after": {...}|null,
 * "op": "c"|"r"|"u"|"d"|"t"|"m", ...} or the same wrapped as {"schema":
 * ..., "payload": {...}} (detected automatically, whatever
 * 'debezium-json.schema-include' says).  c and r yield +I(after), u yields
 * -U(before) then +U(after), d yields -D(before); a tombstone (empty
 * record or the text null), a truncate (t) and a logical-decoding message
 * (m) yield no row and are counted in events_skipped.  A keyed decoder
 * (format.h: the table has a PRIMARY KEY) accepts an update without
 * 'before' (PostgreSQL without REPLICA IDENTITY FULL) and yields +U(after)
 * alone, and reads a key-only 'before' of a delete as a row whose other
 * fields are NULL: the ChangelogNormalize operator after the scan turns
 * both into the full -U/-D by key.  Unkeyed, a missing 'before' is an
 * error that says to declare the PRIMARY KEY.  The envelope is walked
 * once to find the two images and "op" whatever the key order; the images
 * are then decoded with fmt_json_read.c's schema-directed reader, in row order.
 * Encoding (docs/semantics.md §2): +I/+U as
 * {"before":null,"after":{...},"op":"c"} and -U/-D as
 * {"before":{...},"after":null,"op":"d"}; the literals are a table for
 * fmt_json_envelope.c's shared encoder.
 *
 * Invariants as fmt_json.c: no per-row malloc, on error no row is left
 * appended, messages give the byte offset or the field.
 */
#include "fmt_builtin.h"
#include "fmt_json_envelope.h"

#include <string.h>

#include "sluice.h"

typedef struct dbz_dec {
	sl_decoder base;
	sl_jopts o;
	sl_arena arena;
	sl_jschema *schema;
} dbz_dec;

/* Where the parts of an envelope are: byte offsets of the images (-1 when
 * absent or null) and the op letter. */
typedef struct envelope {
	const char *before, *after;
	char op;
} envelope;

static int key_is(const sl_str *k, const char *name)
{
	size_t n = strlen(name);
	return (size_t)k->len == n && memcmp(k->ptr, name, n) == 0;
}

/* Records the image at c->p (object or null) into *img and skips it. */
static int take_image(sl_jcur *c, const char **img)
{
	int ch = sl__json_ws(c);
	if (ch == '{')
		*img = c->p;
	else if (ch == 'n')
		*img = NULL;
	else
		return sl__json_syntax(c, "expected an object or null for 'before'/'after'");
	return sl__json_skip_value(c);
}

/* Walks the object at c->p, filling env; descends into "payload". */
static int scan_envelope(sl_jcur *c, envelope *env, int level)
{
	c->p++; /* '{' */
	if (sl__json_ws(c) == '}') {
		c->p++;
		return 0;
	}
	for (;;) {
		sl_str k;
		if (sl__json_ws(c) != '"' || sl__json_read_string(c, &k))
			return sl__json_syntax(c, "expected a string key");
		if (sl__json_ws(c) != ':')
			return sl__json_syntax(c, "expected ':'");
		c->p++;
		int ch = sl__json_ws(c);
		int rc;
		if (key_is(&k, "before")) {
			rc = take_image(c, &env->before);
		} else if (key_is(&k, "after")) {
			rc = take_image(c, &env->after);
		} else if (key_is(&k, "op") && ch == '"') {
			sl_str v;
			rc = sl__json_read_string(c, &v);
			if (!rc)
				env->op = v.len == 1 ? v.ptr[0] : '?';
		} else if (key_is(&k, "payload") && ch == '{' && level == 0) {
			rc = scan_envelope(c, env, 1);
		} else {
			rc = sl__json_skip_value(c);
		}
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

/* Appends one row with kind `op` decoded from the image at img. */
static int add_image(dbz_dec *d, sl_jcur *c, const char *img, uint8_t op, int64_t wm)
{
	if (!img) {
		return sl_err_set(c->err, SL_EINPUT,
		                  "debezium-json: op needs a non-null '%s' image",
		                  op == SL_UPDATE_AFTER || op == SL_INSERT ? "after" : "before");
	}
	c->p = img;
	int row = sl_batch_add_row(c->b, op, wm);
	if (sl__json_read_object(c, d->schema, c->b->cols, row))
		return SL_EINPUT;
	return 0;
}

static int dbz_decode(sl_decoder *dd, const char *rec, size_t len, sl_batch *out, int64_t wm,
                      sl_err *err)
{
	dbz_dec *d = (dbz_dec *)dd;
	sl_jcur c = {.s = rec, .p = rec, .e = rec + len, .b = out, .err = err, .o = &d->o};
	envelope env = {NULL, NULL, 0};
	int start = out->nrows, rc = 0;
	int ch = sl__json_ws(&c);
	if (ch < 0) {
		dd->events_skipped++;
		return 0; /* tombstone */
	}
	if (ch == 'n' && c.e - c.p >= 4 && memcmp(c.p, "null", 4) == 0) {
		c.p += 4;
		if (sl__json_ws(&c) < 0) {
			dd->events_skipped++;
			return 0;
		}
		return sl__json_syntax(&c, "unexpected data after null");
	}
	if (ch != '{')
		return sl__json_syntax(&c, "expected '{'");
	if ((rc = scan_envelope(&c, &env, 0)) != 0)
		goto fail;
	if (sl__json_ws(&c) >= 0) {
		rc = sl__json_syntax(&c, "unexpected data after the object");
		goto fail;
	}
	switch (env.op) {
	case 'c':
	case 'r': rc = add_image(d, &c, env.after, SL_INSERT, wm); break;
	case 'u':
		if (!env.before && !dd->keyed) {
			rc = sl_err_set(err, SL_EINPUT,
			                "debezium-json: update event without a 'before' image (a "
			                "PostgreSQL table without REPLICA IDENTITY FULL?): declare the "
			                "table's PRIMARY KEY so that the source normalizes changes by key");
			break;
		}
		if (env.before)
			rc = add_image(d, &c, env.before, SL_UPDATE_BEFORE, wm);
		if (!rc)
			rc = add_image(d, &c, env.after, SL_UPDATE_AFTER, wm);
		break;
	case 't':
	case 'm':
		dd->events_skipped++;
		return 0;
	case 'd':
		if (!env.before) {
			/* Debezium's PostgreSQL connector without REPLICA IDENTITY
			 * FULL may send no 'before' at all: the key is only in the
			 * Kafka message key, which a value format cannot see */
			rc = sl_err_set(err, SL_EINPUT,
			                "debezium-json: op needs a non-null 'before' image (a delete "
			                "without one: set REPLICA IDENTITY FULL on the PostgreSQL table)");
			break;
		}
		rc = add_image(d, &c, env.before, SL_DELETE, wm);
		break;
	case 0:
		rc = sl_err_set(err, SL_EINPUT, "debezium-json: record has no \"op\"");
		break;
	default:
		rc = sl_err_set(err, SL_EINPUT, "debezium-json: unknown op '%c'", env.op);
		break;
	}
	if (rc)
		goto fail;
	return out->nrows - start;
fail:
	out->nrows = start;
	return rc == SL_ENOMEM ? rc : SL_EINPUT;
}

static int dbz_decoder_init(sl_decoder *dd, const sl_opts *opts, sl_err *err)
{
	dbz_dec *d = (dbz_dec *)dd;
	sl_arena_init(&d->arena, 4096);
	if (sl__jopts_read("debezium-json", opts, &d->o, &dd->ignore_errors, err))
		return SL_EINVAL;
	int schema_include;
	if (sl_opts_bool(opts, "debezium-json.schema-include", 0, &schema_include, err))
		return SL_EINVAL; /* validated; the envelope is detected anyway */
	if (sl__jschema_build(&d->arena, dd->fields, dd->nfields, &d->schema))
		return sl_err_set(err, SL_ENOMEM, "debezium-json: out of memory");
	return 0;
}

static void dbz_decoder_deinit(sl_decoder *dd)
{
	sl__jschema_free(((dbz_dec *)dd)->schema);
	sl_arena_deinit(&((dbz_dec *)dd)->arena);
}

/* The envelope written (docs/semantics.md §2; fmt_json_envelope.c). */
static const sl_jenvelope dbz_envelope = {
	.format = "debezium-json",
	.add_open = "{\"before\":null,\"after\":",
	.add_close = ",\"op\":\"c\"}\n",
	.del_open = "{\"before\":",
	.del_close = ",\"after\":null,\"op\":\"d\"}\n",
};

static int dbz_encoder_init(sl_encoder *e, const sl_opts *opts, sl_err *err)
{
	return sl__jenv_encoder_init(e, &dbz_envelope, opts, err);
}

const sl_format_vtab sl__fmt_debezium_json = {
	.name = "debezium-json",
	.decoder_size = sizeof(dbz_dec),
	.encoder_size = sizeof(sl_jenv_encoder),
	.changelog = 1,
	.decoder_init = dbz_decoder_init,
	.decode = dbz_decode,
	.decoder_deinit = dbz_decoder_deinit,
	.encoder_init = dbz_encoder_init,
	.encode = sl__jenv_encode,
	.encoder_deinit = sl__jenv_encoder_deinit,
};
