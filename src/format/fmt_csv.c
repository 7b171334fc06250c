/*
 * fmt_csv.c - the `csv` format: one RFC-4180 line per record, as Flink's
 * csv format reads and writes it.
 *
 * Decoding splits the line at the field delimiter (',' by default), honours
 * the quote character ('"'; a doubled quote inside a quoted field is one
 * quote) and converts each field by its column type through fmt_json_read.c's
 * text converter, so CSV and JSON agree on what "12.5", "2026-08-01
 * 09:00:05" or "true" mean.  An empty unquoted field is NULL for
 * non-string types and '' for strings; a field equal to 'csv.null-literal'
 * is NULL.  ROW columns hold their fields separated by
 * 'csv.array-element-delimiter' (';').  Records are single lines: a
 * quoted field never spans lines.  Unquoted fields and quoted fields
 * without doubled quotes are referenced in place (record bytes outlive the
 * batch's use, see format.h); others are copied into the batch arena.
 *
 * Encoding writes fields in schema order, quoting a field only when it
 * holds the delimiter, the quote character, a CR/LF, or leading/trailing
 * blanks; NULL is written as the null literal ('' by default).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/decimal.h"
#include "base/timeutil.h"
#include "data/valtext.h"
#include "fmt_builtin.h"
#include "fmt_json.h"
#include "sluice.h"

typedef struct csv_opts {
	char delim, quote, elem; /* quote 0 = disabled */
	int allow_comments;
	const char *null_lit;    /* NULL = none */
	size_t null_len;
} csv_opts;

typedef struct csv_dec {
	sl_decoder base;
	csv_opts o;
	sl_jopts jo;
} csv_dec;

typedef struct csv_enc {
	sl_encoder base;
	csv_opts o;
	/* 1 for the bytes that make a field quoted (delimiter, quote, CR, LF):
	 * one load per byte instead of four compares */
	unsigned char special[256];
	char spec[4];   /* the same bytes, distinct */
	int nspec;
} csv_enc;

/* One option that must be a single character ("\t" accepted for tab). */
static int opt_char(const sl_opts *opts, const char *key, char def, char *out, sl_err *err)
{
	const char *v = opts ? sl_opts_get(opts, key) : NULL;
	*out = def;
	if (!v)
		return 0;
	if (strcmp(v, "\\t") == 0 || strcmp(v, "\t") == 0)
		*out = '\t';
	else if (strlen(v) == 1)
		*out = v[0];
	else
		return sl_err_set(err, SL_EINVAL, "option '%s': '%s' is not a single character", key, v);
	return 0;
}

static int csv_opts_read(const sl_opts *opts, csv_opts *o, int *ignore, sl_err *err)
{
	int v = 0;
	memset(o, 0, sizeof(*o));
	if (opt_char(opts, "csv.field-delimiter", ',', &o->delim, err) ||
	    opt_char(opts, "csv.quote-character", '"', &o->quote, err) ||
	    opt_char(opts, "csv.array-element-delimiter", ';', &o->elem, err) ||
	    sl_opts_bool(opts, "csv.allow-comments", 0, &o->allow_comments, err) ||
	    sl_opts_bool(opts, "csv.disable-quote-character", 0, &v, err))
		return SL_EINVAL;
	if (v)
		o->quote = 0;
	if (ignore && sl_opts_bool(opts, "csv.ignore-parse-errors", 0, ignore, err))
		return SL_EINVAL;
	o->null_lit = opts ? sl_opts_get(opts, "csv.null-literal") : NULL;
	o->null_len = o->null_lit ? strlen(o->null_lit) : 0;
	if (o->delim == o->quote)
		return sl_err_set(err, SL_EINVAL, "csv: field delimiter and quote character are equal");
	return 0;
}

/* Converts one field's text into (col, row). */
static int csv_set(sl_jcur *c, const csv_opts *o, sl_col *col, int row, const char *v,
                   size_t n, int quoted)
{
	sl_type_id id = (sl_type_id)col->type.id;
	int is_str = id == SL_T_CHAR || id == SL_T_VARCHAR;
	if (!quoted && o->null_lit && n == o->null_len && memcmp(v, o->null_lit, n) == 0)
		return 0; /* already NULL */
	if (n == 0 && !is_str)
		return 0;
	if (id != SL_T_ROW)
		return sl__json_set_text(c, col, row, v, n);
	/* ROW: children separated by the element delimiter */
	const char *p = v, *e = v + n;
	for (int i = 0; i < col->nchild; i++) {
		const char *q = memchr(p, o->elem, (size_t)(e - p));
		if (!q)
			q = e;
		if ((q == e) != (i == col->nchild - 1))
			return sl_err_set(c->err, SL_EINPUT, "field '%s': '%.*s' does not have %d elements",
			                  c->path[0], (int)(n > 64 ? 64 : n), v, col->nchild);
		if (csv_set(c, o, &col->child[i], row, p, (size_t)(q - p), 0))
			return SL_EINPUT;
		p = q + 1;
	}
	col->null[row] = 0;
	return 0;
}

/* Reads a quoted field starting at *pp (on the quote).  Sets the value
 * (in place, or unescaped into the arena) and moves *pp past the quote. */
static int quoted_field(sl_jcur *c, char quote, const char **pp, sl_str *out)
{
	const char *p = *pp + 1, *e = c->e;
	const char *start = p;
	int doubled = 0;
	for (;;) {
		const char *q = memchr(p, quote, (size_t)(e - p));
		if (!q) {
			c->p = *pp;
			return sl_err_set(c->err, SL_EINPUT, "csv: unterminated quoted field at byte %ld",
			                  (long)(*pp - c->s));
		}
		if (q + 1 < e && q[1] == quote) {
			doubled = 1;
			p = q + 2;
			continue;
		}
		out->ptr = start;
		out->len = q - start;
		*pp = q + 1;
		break;
	}
	if (!doubled)
		return 0;
	char *buf = sl_arena_alloc(&c->b->arena, (size_t)out->len + 1);
	if (!buf)
		return sl_err_set(c->err, SL_ENOMEM, "out of memory");
	int64_t n = 0;
	for (int64_t i = 0; i < out->len; i++) {
		buf[n++] = out->ptr[i];
		if (out->ptr[i] == quote)
			i++;
	}
	out->ptr = buf;
	out->len = n;
	return 0;
}

static int csv_decode(sl_decoder *dd, const char *rec, size_t len, sl_batch *out, int64_t wm,
                      sl_err *err)
{
	csv_dec *d = (csv_dec *)dd;
	const csv_opts *o = &d->o;
	while (len > 0 && (rec[len - 1] == '\r' || rec[len - 1] == '\n'))
		len--;
	if (len == 0 || (o->allow_comments && rec[0] == '#'))
		return 0;
	sl_jcur c = {.s = rec, .p = rec, .e = rec + len, .b = out, .err = err, .o = &d->jo};
	int row = sl_batch_add_row(out, SL_INSERT, wm);
	const char *p = rec, *e = rec + len;
	int nf = 0, rc = 0;
	for (;;) {
		sl_str v = {NULL, 0};
		int quoted = o->quote && p < e && *p == o->quote;
		if (quoted) {
			if ((rc = quoted_field(&c, o->quote, &p, &v)) != 0)
				goto fail;
			if (p < e && *p != o->delim) {
				rc = sl_err_set(err, SL_EINPUT,
				                "csv: expected '%c' after a quoted field at byte %ld",
				                o->delim, (long)(p - rec));
				goto fail;
			}
		} else {
			const char *q = memchr(p, o->delim, (size_t)(e - p));
			v.ptr = p;
			v.len = (q ? q : e) - p;
			p = q ? q : e;
		}
		if (nf < dd->nfields) {
			c.path[0] = dd->fields[nf].name;
			c.npath = 1;
			if ((rc = csv_set(&c, o, &out->cols[nf], row, v.ptr, (size_t)v.len, quoted)))
				goto fail;
		}
		nf++;
		if (p >= e)
			break;
		p++; /* delimiter */
	}
	if (nf != dd->nfields) {
		rc = sl_err_set(err, SL_EINPUT, "csv: expected %d fields, found %d", dd->nfields, nf);
		goto fail;
	}
	return 1;
fail:
	out->nrows = row;
	return rc == SL_ENOMEM ? rc : SL_EINPUT;
}

static int csv_decoder_init(sl_decoder *dd, const sl_opts *opts, sl_err *err)
{
	csv_dec *d = (csv_dec *)dd;
	memset(&d->jo, 0, sizeof(d->jo));
	return csv_opts_read(opts, &d->o, &dd->ignore_errors, err);
}

static void csv_decoder_deinit(sl_decoder *d)
{
}

/* ---- encoder ----------------------------------------------------------- */

static int b64(const sl_str *s, sl_buf *out)
{
	static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = (const unsigned char *)s->ptr;
	for (int64_t i = 0; i < s->len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < s->len)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < s->len)
			v |= p[i + 2];
		char q[4] = {al[v >> 18], al[v >> 12 & 63], i + 1 < s->len ? al[v >> 6 & 63] : '=',
		             i + 2 < s->len ? al[v & 63] : '='};
		if (sl_buf_append(out, q, 4))
			return SL_ENOMEM;
	}
	return 0;
}

/* Appends the unquoted text of (col, row) to out. */
static int field_text(const csv_opts *o, const sl_col *col, int row, sl_buf *out)
{
	char t[64];
	int n;
	if (col->null[row])
		return o->null_lit ? sl_buf_append(out, o->null_lit, o->null_len) : 0;
	switch ((sl_type_id)col->type.id) {
	case SL_T_BOOLEAN: return sl_buf_puts(out, col->v.i64[row] ? "true" : "false");
	case SL_T_BINARY:
	case SL_T_VARBINARY: return b64(&col->v.str[row], out);
	case SL_T_TIMESTAMP_LTZ:
		n = sl_ts_format(col->v.i64[row], col->type.precision, 0, 1, t);
		t[n++] = 'Z';
		return sl_buf_append(out, t, (size_t)n);
	case SL_T_ROW:
		for (int i = 0; i < col->nchild; i++)
			if ((i && sl_buf_putc(out, o->elem)) || field_text(o, &col->child[i], row, out))
				return SL_ENOMEM;
		return 0;
	default: return sl_value_text(col, row, "", NULL, out);
	}
}

static int needs_quote(const csv_enc *e, const char *s, size_t n)
{
	if (n == 0 || !e->o.quote)
		return 0;
	if (s[0] == ' ' || s[n - 1] == ' ')
		return 1;
	if (n < 32) {
		for (size_t i = 0; i < n; i++)
			if (e->special[(unsigned char)s[i]])
				return 1;
		return 0;
	}
	/* a long field: libc's vectorised memchr per special byte (the byte
	 * loop was 15% of a CSV file sink's instructions over Nexmark's
	 * 'extra' strings) */
	for (int k = 0; k < e->nspec; k++)
		if (memchr(s, e->spec[k], n))
			return 1;
	return 0;
}

static int csv_encode(sl_encoder *ee, const sl_batch *b, int row, sl_buf *out, sl_err *err)
{
	const csv_enc *e = (csv_enc *)ee;
	const csv_opts *o = &e->o;
	if (b->op[row] != SL_INSERT)
		return sl_err_set(err, SL_EINVAL, "csv format can only encode +I rows");
	if (sl_buf_reserve(out, 64)) /* never append into a NULL buffer */
		goto nomem;
	for (int i = 0; i < ee->nfields; i++) {
		if (i && sl_buf_putc(out, o->delim))
			goto nomem;
		size_t at = out->len;
		if (field_text(o, &b->cols[i], row, out))
			goto nomem;
		size_t n = out->len - at;
		if (!needs_quote(e, out->p + at, n))
			continue;
		size_t extra = 2;
		for (size_t k = 0; k < n; k++)
			extra += out->p[at + k] == o->quote;
		if (sl_buf_reserve(out, extra))
			goto nomem;
		/* rewrite in place from the back: closing quote, doubled quotes */
		char *s = out->p + at;
		size_t w = n + extra;
		s[--w] = o->quote;
		for (size_t k = n; k-- > 0;) {
			s[--w] = s[k];
			if (s[k] == o->quote)
				s[--w] = o->quote;
		}
		s[0] = o->quote;
		out->len += extra;
	}
	if (sl_buf_putc(out, '\n'))
		goto nomem;
	return 0;
nomem:
	return sl_err_set(err, SL_ENOMEM, "csv: out of memory");
}

static int csv_encoder_init(sl_encoder *e, const sl_opts *opts, sl_err *err)
{
	csv_enc *c = (csv_enc *)e;
	int rc = csv_opts_read(opts, &c->o, NULL, err);
	if (rc)
		return rc;
	memset(c->special, 0, sizeof(c->special));
	c->special[(unsigned char)c->o.delim] = 1;
	c->special[(unsigned char)c->o.quote] = 1; /* quote 0: needs_quote returns first */
	c->special['\n'] = 1;
	c->special['\r'] = 1;
	c->nspec = 0;
	for (int ch = 1; ch < 256; ch++)
		if (c->special[ch])
			c->spec[c->nspec++] = (char)ch;
	return 0;
}

static void csv_encoder_deinit(sl_encoder *e)
{
}

const sl_format_vtab sl__fmt_csv = {
	.name = "csv",
	.decoder_size = sizeof(csv_dec),
	.encoder_size = sizeof(csv_enc),
	.changelog = 0,
	.decoder_init = csv_decoder_init,
	.decode = csv_decode,
	.decoder_deinit = csv_decoder_deinit,
	.encoder_init = csv_encoder_init,
	.encode = csv_encode,
	.encoder_deinit = csv_encoder_deinit,
};
