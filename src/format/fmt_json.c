/*
 * fmt_json.c - the `json` format: one JSON object per record, decoded
 * straight into batch columns and encoded back from them.
 *
 * Data flow: a source hands each record (a line of a file, a Kafka message,
 * an sl_push_json text) to decode(), which appends one +I row to the
 * source's batch.  A flat path (read_flat) takes the usual record whole:
 * exactly the schema's fields, in order, no blanks, no nested ROW; any
 * other record is read again from its start by the shared schema-directed
 * reader (fmt_json_read.c), so both give the same row or the same error.
 * The flat path compiles the reader's hot-path pieces (key match, string
 * scan, DECIMAL conversion) inline from fmt_json_read.h.  The encoder
 * writes each +I row through the shared writer (fmt_json_write.c), its
 * fields in schema order, one line per row.
 *
 * Invariants: nothing is allocated per row except unescaped string bytes
 * in the batch arena; on any error the row appended for the record is
 * removed again (format.h's contract).  A decoder is used by one thread
 * at a time; its lookup tables are built once, in decoder_init.
 */
#include "fmt_builtin.h"
#include "fmt_json_read.h"

#include <string.h>

#include "sluice.h"

typedef struct json_dec {
	sl_decoder base;
	sl_jopts o;
	sl_arena arena; /* lookup tables */
	sl_jschema *schema;
	sl_ts_cache tsc; /* last timestamp's date (timeutil.h) */
	struct jflat *fl; /* the flat path's view of each field; NULL: none */
} json_dec;

typedef struct json_enc {
	sl_encoder base;
	sl_jopts o;
} json_enc;

/*
 * The flat path.  Why: records of one table almost always hold exactly
 * its fields, in schema order, written without blanks ({"id":"o1",...}),
 * and the general reader's per-key bookkeeping (hint, path, seen, the
 * type dispatch of read_value, a new row's columns cleared first) was
 * most of its ~850 instructions a record (callgrind, bench 4).  read_flat
 * expects that form only: key i of the record is field i's quoted name
 * (jkey), then ':', the value, then ',' (or '}' and the record's end
 * after the last field).  STRING, DECIMAL and TIMESTAMP values in their
 * usual forms are parsed inline; anything else in the value (null, a
 * quoted number, an escape) goes through read_value, which is exactly
 * what the general reader would call there.  Every field is set (value or
 * NULL), so the row needs no clearing.  Any other shape (a blank, another
 * key order, a missing or unknown key, a nested ROW field, an error)
 * returns 0, and json_decode reads the record again from its start with
 * the general reader, which gives the same row or the same error as
 * before: the flat path changes how fast, never what.
 */
enum { FK_GEN, FK_STR, FK_DEC, FK_TS };

/* A field as the flat path reads it: its key with the ':' (kc, matched as
 * one; kc.ql = 0 for a name of 14 bytes, which has room for the quoted
 * name only: then key, then ':'), and how its value is parsed. */
typedef struct jflat {
	jkey kc;
	const jkey *key;
	uint8_t kind;
} jflat;

static int flat_build(json_dec *j)
{
	const sl_jschema *s = j->schema;
	if (s->n == 0)
		return 0;
	for (int i = 0; i < s->n; i++)
		if (!s->key[i].ql || s->fields[i].type.id == SL_T_ROW ||
		    sl_type_is_collection(s->fields[i].type))
			return 0; /* no in-place match, or nested: general path only */
	j->fl = sl_arena_calloc(&j->arena, sizeof(jflat) * (size_t)s->n);
	if (!j->fl)
		return SL_ENOMEM;
	for (int i = 0; i < s->n; i++) {
		sl_type t = s->fields[i].type;
		jflat *f = &j->fl[i];
		sl__json_jkey_build(&f->kc, s->fields[i].name, (size_t)s->namelen[i], 1);
		f->key = &s->key[i];
		f->kind = t.id == SL_T_CHAR || t.id == SL_T_VARCHAR ? FK_STR
		        : t.id == SL_T_DECIMAL                       ? FK_DEC
		        : t.id == SL_T_TIMESTAMP || t.id == SL_T_TIMESTAMP_LTZ ? FK_TS
		                                                     : FK_GEN;
	}
	return 0;
}

/* Whether key k (its quoted name) and a ':' are at p, in [p, e). */
static inline int flat_key(const jkey *k, const char *p, const char *e)
{
	if (e - p > 16)
		return jkey_at(k, p) && p[k->ql] == ':';
	if (e - p <= (ptrdiff_t)k->ql)
		return 0;
	uint64_t w = 0;
	memcpy(&w, p, k->ql < 8 ? k->ql : 8);
	if ((w & k->m0) != k->w0)
		return 0;
	if (k->ql > 8) {
		memcpy(&w, p + k->ql - 8, 8);
		if (w != k->w1)
			return 0;
	}
	return p[k->ql] == ':';
}

/* Reads the record at c->p ('{') into row `row` of cols by the flat path
 * (above): 1 when it did, 0 when the general reader must. */
static int read_flat(sl_jcur *c, const json_dec *j, sl_col *cols, int row)
{
	const sl_jschema *s = j->schema;
	const char *p = c->p + 1, *e = c->e;
	int n = s->n;
	c->depth = 1;
	for (int i = 0;; i++) {
		const jflat *f = &j->fl[i];
		if (f->kc.ql && e - p > 16) { /* the key and ':' at once */
			if (!jkey_at(&f->kc, p))
				return 0;
			p += f->kc.ql;
		} else {
			if (!flat_key(f->key, p, e))
				return 0;
			p += f->key->ql + 1;
		}
		sl_col *col = &cols[i];
		const char *q;
		int done = 0;
		switch (f->kind) {
		case FK_STR:
			if (p < e && *p == '"' && (q = quote_or_bs(p + 1, e)) != e && *q == '"') {
				sl_col_set_str_ref(col, row, p + 1, q - p - 1);
				p = q + 1;
				done = 1;
			}
			break;
		case FK_DEC: {
			int64_t v;
			size_t len;
			if (dec_fast(p, e, col->type, &v, &len) == 0) {
				sl_col_set_i128(col, row, (sl_i128)v);
				p += len;
				done = 1;
			}
			break;
		}
		case FK_TS: {
			int64_t us;
			/* "YYYY-MM-DD HH:MM:SS.fff" first, without scanning for the
			 * closing quote: a text that parses holds no '"' or '\\' */
			if (e - p > 24 && *p == '"' && p[24] == '"' &&
			    sl_ts_parse_cached(p + 1, 23, &us, c->tsc) == 0) {
				sl_col_set_i64(col, row, trunc_prec(us, col->type.precision));
				p += 25;
				done = 1;
			} else if (p < e && *p == '"' && (q = quote_or_bs(p + 1, e)) != e && *q == '"' &&
			    sl_ts_parse_cached(p + 1, (size_t)(q - p - 1), &us, c->tsc) == 0) {
				sl_col_set_i64(col, row, trunc_prec(us, col->type.precision));
				p = q + 1;
				done = 1;
			}
			break;
		}
		}
		if (!done) {
			c->p = p;
			c->path[0] = s->fields[i].name;
			c->npath = 1;
			if (sl__json_read_value(c, NULL, col, row))
				return 0;
			p = c->p;
		}
		if (p >= e)
			return 0;
		if (i + 1 < n) {
			if (*p != ',')
				return 0;
			p++;
			continue;
		}
		if (*p != '}' || p + 1 != e)
			return 0;
		c->p = p + 1;
		return 1;
	}
}

static int json_decoder_init(sl_decoder *d, const sl_opts *opts, sl_err *err)
{
	json_dec *j = (json_dec *)d;
	sl_arena_init(&j->arena, 4096);
	if (sl__jopts_read("json", opts, &j->o, &d->ignore_errors, err))
		return SL_EINVAL;
	if (sl__jschema_build(&j->arena, d->fields, d->nfields, &j->schema))
		return sl_err_set(err, SL_ENOMEM, "json: out of memory");
	if (flat_build(j))
		return sl_err_set(err, SL_ENOMEM, "json: out of memory");
	return 0;
}

static void json_decoder_deinit(sl_decoder *d)
{
	sl__jschema_free(((json_dec *)d)->schema);
	sl_arena_deinit(&((json_dec *)d)->arena);
}

static int json_decode(sl_decoder *d, const char *rec, size_t len, sl_batch *out, int64_t wm,
                       sl_err *err)
{
	json_dec *j = (json_dec *)d;
	/* Why field by field: an initializer zeroes path[] too (256 bytes, ~50
	 * instructions a record, callgrind); only path[0..npath) is ever read */
	sl_jcur c;
	c.s = c.p = rec;
	c.e = rec + len;
	c.b = out;
	c.err = err;
	c.o = &j->o;
	c.tsc = &j->tsc;
	c.depth = 0;
	c.npath = 0;
	int ch = sl__json_ws(&c);
	if (ch < 0)
		return 0; /* blank record: nothing */
	if (ch != '{')
		return sl__json_syntax(&c, "expected '{'");
	if (j->fl && out->ncols == d->nfields && read_flat(&c, j, out->cols, out->nrows)) {
		int row = out->nrows++;
		out->op[row] = SL_INSERT;
		out->wm[row] = wm;
		return 1;
	}
	c.p = rec; /* the general path, from the start (the flat path set no state) */
	c.depth = 0;
	c.npath = 0;
	sl__json_ws(&c);
	int row = sl_batch_add_row(out, SL_INSERT, wm);
	int rc = sl__json_read_object(&c, j->schema, out->cols, row);
	if (rc == 0 && sl__json_ws(&c) >= 0)
		rc = sl__json_syntax(&c, "unexpected data after the object");
	if (rc) {
		out->nrows--;
		return rc == SL_ENOMEM ? rc : SL_EINPUT;
	}
	return 1;
}

static int json_encoder_init(sl_encoder *e, const sl_opts *opts, sl_err *err)
{
	return sl__jopts_read("json", opts, &((json_enc *)e)->o, NULL, err);
}

static int json_encode(sl_encoder *e, const sl_batch *b, int row, sl_buf *out, sl_err *err)
{
	static const char *const kind[] = {"+I", "-U", "+U", "-D"};
	if (b->op[row] != SL_INSERT)
		return sl_err_set(err, SL_EINVAL, "json format cannot encode %s rows (only +I)",
		                  kind[b->op[row] & 3]);
	if (sl__json_write_object(e->fields, e->nfields, b->cols, row, &((json_enc *)e)->o, out) ||
	    sl_buf_putc(out, '\n'))
		return sl_err_set(err, SL_ENOMEM, "json: out of memory");
	return 0;
}

static void json_encoder_deinit(sl_encoder *e)
{
}

const sl_format_vtab sl__fmt_json = {
	.name = "json",
	.decoder_size = sizeof(json_dec),
	.encoder_size = sizeof(json_enc),
	.changelog = 0,
	.decoder_init = json_decoder_init,
	.decode = json_decode,
	.decoder_deinit = json_decoder_deinit,
	.encoder_init = json_encoder_init,
	.encode = json_encode,
	.encoder_deinit = json_encoder_deinit,
};
