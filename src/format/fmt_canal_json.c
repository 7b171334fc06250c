/*
 * fmt_canal_json.c - the `canal-json` format: changelog rows in Alibaba
 * Canal's flat-message JSON, read and written as Flink's format of that
 * name does.
 *
 * Decoding: a record is {"data": [{...}, ...], "old": [{...}, ...] | null,
 * "type": "INSERT" | "UPDATE" | "DELETE" | "CREATE" | ..., "database": "db",
 * "table": "t", "isDdl": false, "pkNames": [...], "es": ..., "ts": ...,
 * "mysqlType": {...}, "sqlType": {...}}, keys in any order.  Values in
 * "data" are usually JSON strings ("id": "111"); the schema-directed reader
 * converts them by column type as for JSON numbers.
 *   INSERT  each element of "data" -> +I
 *   UPDATE  element i -> -U(data[i] with the fields of old[i] put back),
 *           +U(data[i]): "old" holds only the changed fields' previous
 *           values.  Without "old" the update is an error, unless the
 *           decoder is keyed (format.h): then +U alone, normalized by key
 *   DELETE  each element -> -D
 *   CREATE and any record with "isDdl": true (schema changes), empty
 *   records and the text null yield no row and are counted in
 *   events_skipped; other types are errors.
 * 'canal-json.database.include' / 'canal-json.table.include' are regular
 * expressions (PCRE2, matched against the whole name as Java's
 * Pattern.matches does): records of other databases / tables are skipped
 * (not counted: they are someone else's rows, not events without rows).
 * A record of n rows needs n (2n for UPDATE) rows of room in the batch
 * (SL_EFULL, format.h).
 *
 * Encoding (as Flink: UPDATE_BEFORE/UPDATE_AFTER are not merged): +I/+U as
 * {"data":[{...}],"type":"INSERT"}, -U/-D as {"data":[{...}],"type":"DELETE"};
 * the literals are a table for fmt_json_envelope.c's shared encoder.
 *
 * Invariants as fmt_json.c: no per-row malloc, on error no row is left
 * appended, messages give the byte offset or the field.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "fmt_builtin.h"
#include "fmt_json_envelope.h"

#include <stdio.h>
#include <string.h>

#include "sluice.h"

typedef struct canal_dec {
	sl_decoder base;
	sl_jopts o, overlay;  /* overlay: o without fail-on-missing ("old" is partial) */
	sl_arena arena;
	sl_jschema *schema;
	pcre2_code *db_re, *tbl_re;
	pcre2_match_data *md;
} canal_dec;

/* The parts of a message: where "data" and "old" start (NULL = absent or
 * null), the number of elements of "data", and the scalars. */
typedef struct canal_msg {
	const char *data, *old;
	int ndata;
	sl_str type, db, table;
	int has_db, has_table, is_ddl;
} canal_msg;

static int key_is(const sl_str *k, const char *name)
{
	size_t n = strlen(name);
	return (size_t)k->len == n && memcmp(k->ptr, name, n) == 0;
}

static int str_is(const sl_str *s, const char *v)
{
	return key_is(s, v);
}

/* Records the array at c->p (or null) into *at, counting its elements. */
static int take_array(sl_jcur *c, const char **at, int *count, const char *what)
{
	int ch = sl__json_ws(c);
	if (ch == 'n') {
		*at = NULL;
		return sl__json_skip_value(c);
	}
	if (ch != '[')
		return sl__json_syntax(c, what);
	*at = c->p;
	c->p++;
	int n = 0;
	if (sl__json_ws(c) == ']') {
		c->p++;
		if (count)
			*count = 0;
		return 0;
	}
	for (;;) {
		if (sl__json_ws(c) != '{')
			return sl__json_syntax(c, "expected an object in the array");
		if (sl__json_skip_value(c))
			return SL_EINPUT;
		n++;
		ch = sl__json_ws(c);
		c->p++;
		if (ch == ']')
			break;
		if (ch != ',') {
			c->p--;
			return sl__json_syntax(c, "expected ',' or ']'");
		}
	}
	if (count)
		*count = n;
	return 0;
}

/* Reads a string or null value into *s (*has = 1 for a string). */
static int take_string(sl_jcur *c, sl_str *s, int *has)
{
	if (sl__json_ws(c) == '"') {
		*has = 1;
		return sl__json_read_string(c, s);
	}
	return sl__json_skip_value(c);
}

static int scan_msg(sl_jcur *c, canal_msg *m)
{
	c->p++; /* '{' */
	if (sl__json_ws(c) == '}') {
		c->p++;
		return 0;
	}
	for (;;) {
		sl_str k;
		int has = 0, rc;
		if (sl__json_ws(c) != '"' || sl__json_read_string(c, &k))
			return sl__json_syntax(c, "expected a string key");
		if (sl__json_ws(c) != ':')
			return sl__json_syntax(c, "expected ':'");
		c->p++;
		int ch = sl__json_ws(c);
		if (key_is(&k, "data"))
			rc = take_array(c, &m->data, &m->ndata, "expected an array or null for 'data'");
		else if (key_is(&k, "old"))
			rc = take_array(c, &m->old, NULL, "expected an array or null for 'old'");
		else if (key_is(&k, "type"))
			rc = take_string(c, &m->type, &has);
		else if (key_is(&k, "database"))
			rc = take_string(c, &m->db, &m->has_db);
		else if (key_is(&k, "table"))
			rc = take_string(c, &m->table, &m->has_table);
		else if (key_is(&k, "isDdl") && ch == 't') {
			m->is_ddl = 1;
			rc = sl__json_skip_value(c);
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

/* 1 when name matches re as a whole (no pattern: everything matches). */
static int included(canal_dec *d, pcre2_code *re, const sl_str *name, int has)
{
	if (!re)
		return 1;
	if (!has)
		return 0;
	return pcre2_match(re, (PCRE2_SPTR)name->ptr, (PCRE2_SIZE)name->len, 0, 0, d->md, NULL) >= 0;
}

/* Moves c from the element just read (or the '[' at the start) to the
 * next element of its array. */
static void next_elem(sl_jcur *c)
{
	if (sl__json_ws(c) == '[' || *c->p == ',')
		c->p++;
	sl__json_ws(c);
}

/* Counts the elements of the array at arr (validated by take_array). */
static int count_elems(sl_jcur *c, const char *arr)
{
	int n = 0;
	c->p = arr + 1;
	if (sl__json_ws(c) == ']')
		return 0;
	for (;;) {
		if (sl__json_skip_value(c))
			return -1;
		n++;
		int ch = sl__json_ws(c);
		c->p++;
		if (ch != ',')
			return n;
		sl__json_ws(c);
	}
}

/* Appends the rows of the message: op per element of "data", preceded by
 * -U(data[i] overlaid with old[i]) when before is set. */
static int add_rows(canal_dec *d, sl_jcur *c, const canal_msg *m, uint8_t op, int before,
                    int64_t wm)
{
	const char *pd = m->data, *po = m->old;
	for (int i = 0; i < m->ndata; i++) {
		c->p = pd;
		next_elem(c);
		const char *elem = c->p;
		if (before) {
			int r = sl_batch_add_row(c->b, SL_UPDATE_BEFORE, wm);
			if (sl__json_read_object(c, d->schema, c->b->cols, r))
				return SL_EINPUT;
			const sl_jopts *keep = c->o;
			c->o = &d->overlay;
			c->p = po;
			next_elem(c);
			int rc = sl__json_read_object(c, d->schema, c->b->cols, r);
			po = c->p;
			c->o = keep;
			if (rc)
				return SL_EINPUT;
			c->p = elem;
		}
		int r = sl_batch_add_row(c->b, op, wm);
		if (sl__json_read_object(c, d->schema, c->b->cols, r))
			return SL_EINPUT;
		pd = c->p;
	}
	return 0;
}

static int canal_decode(sl_decoder *dd, const char *rec, size_t len, sl_batch *out, int64_t wm,
                        sl_err *err)
{
	canal_dec *d = (canal_dec *)dd;
	sl_jcur c = {.s = rec, .p = rec, .e = rec + len, .b = out, .err = err, .o = &d->o};
	canal_msg m = {0};
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
	if (!included(d, d->db_re, &m.db, m.has_db) || !included(d, d->tbl_re, &m.table, m.has_table))
		return 0;
	if (m.is_ddl || str_is(&m.type, "CREATE")) {
		dd->events_skipped++;
		return 0;
	}
	int upd = str_is(&m.type, "UPDATE");
	if (!upd && !str_is(&m.type, "INSERT") && !str_is(&m.type, "DELETE")) {
		rc = m.type.ptr ? sl_err_set(err, SL_EINPUT, "canal-json: unknown \"type\" value \"%.*s\"",
		                             (int)m.type.len, m.type.ptr)
		                : sl_err_set(err, SL_EINPUT, "canal-json: record has no \"type\"");
		goto fail;
	}
	if (!m.data) {
		rc = sl_err_set(err, SL_EINPUT, "canal-json: %.*s record without \"data\"",
		                (int)m.type.len, m.type.ptr);
		goto fail;
	}
	int before = upd && m.old;
	if (upd && !m.old && !dd->keyed) {
		rc = sl_err_set(err, SL_EINPUT,
		                "canal-json: UPDATE record without \"old\": declare the table's "
		                "PRIMARY KEY so that the source normalizes changes by key");
		goto fail;
	}
	if (before && count_elems(&c, m.old) != m.ndata) {
		rc = sl_err_set(err, SL_EINPUT, "canal-json: \"old\" and \"data\" differ in length");
		goto fail;
	}
	int need = m.ndata * (before ? 2 : 1);
	if (need > out->cap - out->nrows) {
		if (out->nrows)
			return SL_EFULL;
		return sl_err_set(err, SL_EINPUT, "canal-json: the record holds %d rows, more than a "
		                  "batch holds (%d, 'sluice.batch-size')", need, out->cap);
	}
	uint8_t op = upd ? SL_UPDATE_AFTER : str_is(&m.type, "INSERT") ? SL_INSERT : SL_DELETE;
	if ((rc = add_rows(d, &c, &m, op, before, wm)) != 0)
		goto fail;
	return out->nrows - start;
fail:
	out->nrows = start;
	return rc == SL_ENOMEM ? rc : SL_EINPUT;
}

static int compile_include(const sl_opts *opts, const char *key, pcre2_code **re, sl_err *err)
{
	const char *p = sl_opts_get(opts, key);
	if (!p)
		return 0;
	int ec;
	PCRE2_SIZE eo;
	*re = pcre2_compile((PCRE2_SPTR)p, PCRE2_ZERO_TERMINATED,
	                    PCRE2_UTF | PCRE2_ANCHORED | PCRE2_ENDANCHORED, &ec, &eo, NULL);
	if (!*re) {
		PCRE2_UCHAR eb[128];
		pcre2_get_error_message(ec, eb, sizeof(eb));
		return sl_err_set(err, SL_EINVAL, "option '%s': invalid regular expression '%s': %s "
		                  "at offset %d", key, p, (const char *)eb, (int)eo);
	}
	return 0;
}

static int canal_decoder_init(sl_decoder *dd, const sl_opts *opts, sl_err *err)
{
	canal_dec *d = (canal_dec *)dd;
	sl_arena_init(&d->arena, 4096);
	if (sl__jopts_read("canal-json", opts, &d->o, &dd->ignore_errors, err))
		return SL_EINVAL;
	d->overlay = d->o;
	d->overlay.fail_on_missing = 0;
	if (compile_include(opts, "canal-json.database.include", &d->db_re, err) ||
	    compile_include(opts, "canal-json.table.include", &d->tbl_re, err))
		return SL_EINVAL;
	if ((d->db_re || d->tbl_re) &&
	    !(d->md = pcre2_match_data_create(4, NULL)))
		return sl_err_set(err, SL_ENOMEM, "canal-json: out of memory");
	if (sl__jschema_build(&d->arena, dd->fields, dd->nfields, &d->schema))
		return sl_err_set(err, SL_ENOMEM, "canal-json: out of memory");
	return 0;
}

static void canal_decoder_deinit(sl_decoder *dd)
{
	canal_dec *d = (canal_dec *)dd;
	pcre2_code_free(d->db_re);
	pcre2_code_free(d->tbl_re);
	pcre2_match_data_free(d->md);
	sl__jschema_free(d->schema);
	sl_arena_deinit(&d->arena);
}

/* The envelope written (docs/semantics.md §2; fmt_json_envelope.c). */
static const sl_jenvelope canal_envelope = {
	.format = "canal-json",
	.add_open = "{\"data\":[",
	.add_close = "],\"type\":\"INSERT\"}\n",
	.del_open = "{\"data\":[",
	.del_close = "],\"type\":\"DELETE\"}\n",
};

static int canal_encoder_init(sl_encoder *e, const sl_opts *opts, sl_err *err)
{
	return sl__jenv_encoder_init(e, &canal_envelope, opts, err);
}

const sl_format_vtab sl__fmt_canal_json = {
	.name = "canal-json",
	.decoder_size = sizeof(canal_dec),
	.encoder_size = sizeof(sl_jenv_encoder),
	.changelog = 1,
	.decoder_init = canal_decoder_init,
	.decode = canal_decode,
	.decoder_deinit = canal_decoder_deinit,
	.encoder_init = canal_encoder_init,
	.encode = sl__jenv_encode,
	.encoder_deinit = sl__jenv_encoder_deinit,
};
