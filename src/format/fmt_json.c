/*
 * fmt_json.c - the `json` format: one JSON object per record, decoded
 * straight into batch columns and encoded back from them.
 *
 * Data flow: a source hands each record (a line of a file, a Kafka message,
 * an sl_push_json text) to decode(), which appends one +I row to the
 * source's batch.  A flat path (read_flat) takes the usual record whole:
 * exactly the schema's fields, in order, no blanks, and the same for the
 * fields of each nested ROW (or null for it); any other record is read
 * again from its start by the shared schema-directed reader
 * (fmt_json_read.c), so both give the same row or the same error.  The
 * flat path compiles the reader's hot-path pieces (key match, string
 * scan, integer and DECIMAL conversion) inline from fmt_json_read.h.  The encoder
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

typedef struct jflev jflev;

typedef struct json_dec {
	sl_decoder base;
	sl_jopts o;
	sl_arena arena; /* lookup tables */
	sl_jschema *schema;
	sl_ts_cache tsc; /* last timestamp's date (timeutil.h) */
	jflev *fl;       /* the flat path's view of the record; NULL: none */
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
 * most of its ~850 instructions a record (callgrind, bench 4).  read_level
 * expects that form only: key i of an object is field i's quoted name
 * (jkey), then ':', the value, then ',' (or '}' after the last field, and
 * the record's end after the top object's).  STRING, integer, DECIMAL
 * and TIMESTAMP values in their usual forms are parsed inline (a string
 * with an escape through the reader's unescaper); a ROW field's value is
 * either null (the ROW and every field below it marked NULL, flat_null)
 * or an object of the same form, read by the same loop one level down;
 * anything else in a value (null, a quoted number, an ARRAY or MAP) goes
 * through read_value, which is exactly what the general reader would call
 * there.  Every field is set (value or NULL), so the row needs no
 * clearing.  Any other shape (a
 * blank, another key order, a missing or unknown key, an error) fails,
 * and json_decode reads the record again from its start with the general
 * reader, which gives the same row or the same error as before: the flat
 * path changes how fast, never what.
 *
 * Why nested ROWs too: Flink's JSON of a wide table with ROW columns
 * (Nexmark's person, auction and bid, two of the three null in every
 * event) went to the general reader whole, ~3 800 instructions an event
 * with the new row's 26 columns cleared first (callgrind, q1 over the
 * file bench/nexmark/flink_side.sh reads).
 */
enum { FK_GEN, FK_STR, FK_DEC, FK_TS, FK_INT, FK_ROW };

/* The ROW nesting the flat path takes; a deeper schema is read by the
 * general reader only (whose limits, SL_JSON_MAX_DEPTH and the 31 path
 * names, then decide alone). */
#define FLAT_MAX_DEPTH 16

/* A field as the flat path reads it: its key with the ':' (kc, matched as
 * one; kc.ql = 0 for a name of 14 bytes, which has room for the quoted
 * name only: then key, then ':'), how its value is parsed, and a ROW's
 * level (sub) or the reader's level for read_value (child). */
typedef struct jflat {
	jkey kc;
	const jkey *key;
	uint8_t kind;
	const char *name;
	const jflev *sub;         /* FK_ROW: the ROW's fields */
	const sl_jschema *child;  /* the reader's level of a ROW, ARRAY or MAP */
} jflat;

/* One object level: its fields, and the names from the record's top to
 * it (for read_value's messages: c->path as the general reader has it). */
struct jflev {
	int n, depth;             /* depth: 1 for the record's top object */
	jflat *f;
	const char *path[FLAT_MAX_DEPTH];
	uint16_t *rowf;           /* the indexes of its ROW fields (flat_null) */
	int nrowf;
};

/* The flat view of level s at depth `depth` (path: the names above it);
 * *out = NULL when it has no flat form (a field whose key has no
 * in-place match, an empty or unknown ROW type, nesting deeper than
 * FLAT_MAX_DEPTH).  0 or SL_ENOMEM. */
static int flat_build(sl_arena *a, const sl_jschema *s, int depth, const char *const *path,
                      jflev **out)
{
	*out = NULL;
	if (s->n == 0 || depth > FLAT_MAX_DEPTH)
		return 0;
	for (int i = 0; i < s->n; i++)
		if (!s->key[i].ql)
			return 0; /* no in-place match: general path only */
	jflev *l = sl_arena_calloc(a, sizeof(*l));
	jflat *fl = l ? sl_arena_calloc(a, sizeof(jflat) * (size_t)s->n) : NULL;
	if (!fl)
		return SL_ENOMEM;
	l->n = s->n;
	l->depth = depth;
	l->f = fl;
	for (int k = 0; k < depth - 1; k++)
		l->path[k] = path[k];
	for (int i = 0; i < s->n; i++) {
		sl_type t = s->fields[i].type;
		jflat *f = &fl[i];
		sl__json_jkey_build(&f->kc, s->fields[i].name, (size_t)s->namelen[i], 1);
		f->key = &s->key[i];
		f->name = s->fields[i].name;
		f->child = s->child[i];
		f->kind = t.id == SL_T_CHAR || t.id == SL_T_VARCHAR ? FK_STR
		        : t.id == SL_T_DECIMAL                       ? FK_DEC
		        : t.id == SL_T_TIMESTAMP || t.id == SL_T_TIMESTAMP_LTZ ? FK_TS
		        : sl_type_is_integer(t)                      ? FK_INT
		                                                     : FK_GEN;
		if (t.id == SL_T_ROW) {
			jflev *sub;
			l->path[depth - 1] = s->fields[i].name;
			if (!s->child[i])
				return 0; /* a ROW type without its fields */
			if (flat_build(a, s->child[i], depth + 1, l->path, &sub))
				return SL_ENOMEM;
			if (!sub)
				return 0; /* the ROW has no flat form: neither has this */
			f->kind = FK_ROW;
			f->sub = sub;
		}
	}
	l->rowf = sl_arena_calloc(a, sizeof(uint16_t) * (size_t)s->n);
	if (!l->rowf)
		return SL_ENOMEM;
	for (int i = 0; i < s->n; i++)
		if (fl[i].kind == FK_ROW)
			l->rowf[l->nrowf++] = (uint16_t)i;
	*out = l;
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

/* Marks the fields of level l in row `row` of cols NULL, a ROW's fields
 * too.  Only the flags: a NULL cell's value is never read (the Nexmark
 * generator's null ROWs, conn_nexmark.c, and a null scalar here leave it
 * as it was too).  Why not sl_col_clear: a null ROW's fields (two ROWs of
 * 8 and 10 in every Nexmark event) cleared value and flag through the
 * type's switch cost ~610 instructions an event (callgrind), more than
 * the rest of the record; these flags ~140 (callgrind). */
static void flat_null(const jflev *l, sl_col *cols, int row)
{
	const int n = l->n, nr = l->nrowf;
	for (int k = 0; k < n; k++) {
		uint8_t *nl = cols[k].null; /* loaded before the store: a byte store may alias it */
		nl[row] = 1;
	}
	for (int k = 0; k < nr; k++) {
		int i = l->rowf[k];
		flat_null(l->f[i].sub, cols[i].child, row);
	}
}

static const char *read_nested(sl_jcur *c, const jflev *l, sl_col *cols, int row,
                               const char *p);

/* A value at p of field f of level l the flat path does not parse inline,
 * read as the general reader reads it there: read_value at the same depth
 * and path (its messages are not kept: the general reader reads the
 * record again and gives its own).  The position after it, or NULL.  Out
 * of line: the hot loop keeps its registers. */
static __attribute__((noinline)) const char *flat_value(sl_jcur *c, const jflev *l,
                                                        const jflat *f, sl_col *col, int row,
                                                        const char *p)
{
	c->p = p;
	c->depth = l->depth;
	memcpy(c->path, l->path, sizeof(l->path[0]) * (size_t)(l->depth - 1));
	c->path[l->depth - 1] = f->name;
	c->npath = l->depth;
	if (sl__json_read_value(c, f->child, col, row))
		return NULL;
	return c->p;
}

/* Reads the object at p (its '{') of level l into row `row` of cols by the
 * flat path (above): the position after its '}', or NULL when the general
 * reader must read the record.  Inlined into read_flat for the record's
 * top level, and called as read_nested for a ROW's: why, the call and its
 * saved registers were ~35 instructions a record of bench 4 (callgrind,
 * +2% over the loop inlined). */
static inline __attribute__((always_inline)) const char *
read_level(sl_jcur *c, const jflev *l, sl_col *cols, int row, const char *p)
{
	const char *e = c->e;
	int n = l->n;
	p++; /* '{' */
	for (int i = 0;; i++) {
		const jflat *f = &l->f[i];
		if (f->kc.ql && e - p > 16) { /* the key and ':' at once */
			if (!jkey_at(&f->kc, p))
				return NULL;
			p += f->kc.ql;
		} else {
			if (!flat_key(f->key, p, e))
				return NULL;
			p += f->key->ql + 1;
		}
		sl_col *col = &cols[i];
		const char *q;
		int done = 0;
		/* Why tests in a chain rather than a switch: the switch's jump
		 * table was ~3 instructions a field more (callgrind, bench 4) */
		const int kind = f->kind;
		if (kind == FK_STR) {
			if (p < e && *p == '"' && (q = quote_or_bs(p + 1, e)) != e) {
				sl_str v;
				if (*q == '"') {
					sl_col_set_str_ref(col, row, p + 1, q - p - 1);
					p = q + 1;
				} else { /* an escape: as read_value would, without its dispatch */
					c->p = p;
					if (sl__json_read_escaped(c, p + 1, q, &v))
						return NULL;
					sl_col_set_str_ref(col, row, v.ptr, v.len);
					p = c->p;
				}
				done = 1;
			}
		} else if (kind == FK_INT) {
			int64_t v;
			size_t len;
			if (int_fast(p, e, &v, &len) == 0 && int_fits((sl_type_id)col->type.id, v)) {
				sl_col_set_i64(col, row, v);
				p += len;
				done = 1;
			}
		} else if (kind == FK_DEC) {
			int64_t v;
			size_t len;
			if (dec_fast(p, e, col->type, &v, &len) == 0) {
				sl_col_set_i128(col, row, (sl_i128)v);
				p += len;
				done = 1;
			}
		} else if (kind == FK_TS) {
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
		} else if (kind == FK_ROW) {
			if (p < e && *p == '{') {
				if (!(p = read_nested(c, f->sub, col->child, row, p)))
					return NULL;
				col->null[row] = 0;
				done = 1;
			} else if (e - p >= 4 && memcmp(p, "null", 4) == 0) {
				col->null[row] = 1;
				flat_null(f->sub, col->child, row);
				p += 4;
				done = 1;
			} else {
				return NULL; /* not a ROW's value: the general reader's error */
			}
		}
		if (!done && !(p = flat_value(c, l, f, col, row, p)))
			return NULL;
		if (p >= e)
			return NULL;
		if (i + 1 < n) {
			if (*p != ',')
				return NULL;
			p++;
			continue;
		}
		if (*p != '}')
			return NULL;
		return p + 1;
	}
}

/* read_level out of line, for a nested ROW's object. */
static const char *read_nested(sl_jcur *c, const jflev *l, sl_col *cols, int row,
                               const char *p)
{
	return read_level(c, l, cols, row, p);
}

/* Reads the record at c->p ('{') into row `row` of cols by the flat path:
 * 1 when it did, 0 when the general reader must. */
static int read_flat(sl_jcur *c, const json_dec *j, sl_col *cols, int row)
{
	const char *p = read_level(c, j->fl, cols, row, c->p);
	if (p != c->e) /* NULL too */
		return 0;
	c->p = p;
	return 1;
}

static int json_decoder_init(sl_decoder *d, const sl_opts *opts, sl_err *err)
{
	json_dec *j = (json_dec *)d;
	sl_arena_init(&j->arena, 4096);
	if (sl__jopts_read("json", opts, &j->o, &d->ignore_errors, err))
		return SL_EINVAL;
	if (sl__jschema_build(&j->arena, d->fields, d->nfields, &j->schema))
		return sl_err_set(err, SL_ENOMEM, "json: out of memory");
	if (flat_build(&j->arena, j->schema, 1, NULL, &j->fl))
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
