/*
 * parquet_write.c - the Parquet writer: the encoder half of the 'parquet'
 * format (docs/parquet.md), driven by the filesystem sink once per part
 * file (format.h's file hooks).
 *
 * Rows are buffered column by column (one pq_wcol per leaf of the schema,
 * fmt_parquet.c): a definition level per row and the non-NULL values in
 * their PLAIN byte form, with the chunk's statistics (min, max, null count)
 * kept as rows arrive.  When the buffered bytes reach 'parquet.block.size'
 * (and at file_end) the buffer becomes one row group appended to the
 * sink's buffer: per column chunk an optional dictionary page (when
 * 'parquet.enable.dictionary' and the distinct values' PLAIN bytes fit in
 * 'parquet.dictionary.page.size') and data pages of about
 * 'parquet.page.size' bytes (at most PQ_PAGE_ROWS rows), version 1 or 2
 * ('parquet.writer.version'), each compressed with 'parquet.compression'.
 * Definition levels are RLE/bit-packed (parquet_codec.c), dictionary
 * indices RLE_DICTIONARY, other values PLAIN.  file_end writes the footer:
 * FileMetaData in the Thrift compact protocol (parquet_thrift.c), its
 * length and the magic.  The writer tracks the file offset of everything it
 * appended (the sink writes all of it, in order), which the footer's
 * offsets need.  Buffers are reused from one row group to the next; nothing
 * is allocated per row once they reached their working size.
 */
#include "parquet.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sluice.h"

#define PQ_PAGE_ROWS 20000                   /* rows per page at most (parquet-mr's default) */
#define PQ_DEF_BLOCK (128LL * 1024 * 1024)   /* 'parquet.block.size' */
#define PQ_DEF_PAGE (1024 * 1024)            /* 'parquet.page.size' */
#define PQ_DEF_DICT (1024 * 1024)            /* 'parquet.dictionary.page.size' */

/* What the footer needs of one column chunk written. */
typedef struct pq_chunk {
	int64_t start;        /* offset of its first page */
	int64_t data_off;     /* offset of its first data page */
	int64_t dict_off;     /* offset of its dictionary page, -1 = none */
	int64_t uncomp, comp; /* bytes, page headers included */
	int64_t num_values;   /* levels (rows) */
	int64_t nulls;
	int has_minmax;
	size_t min_off, max_off; /* into the writer's stats buffer */
	uint32_t min_len, max_len;
} pq_chunk;

/* A column being buffered. */
typedef struct pq_wcol {
	const pq_leaf *L;
	int width;          /* bytes of a fixed-width PLAIN value; 0 = BYTE_ARRAY */
	int64_t nrows;      /* levels buffered */
	uint8_t *def;
	int64_t def_cap;
	int64_t nvals;      /* values buffered */
	sl_buf vals;        /* PLAIN values (BOOLEAN: a byte each; BYTE_ARRAY: bytes only) */
	int64_t *off;       /* BYTE_ARRAY: off[k] = start of value k, off[nvals] = end */
	int64_t off_cap;
	int64_t nulls;
	int has_minmax;
	sl_buf min, max;    /* statistics, PLAIN form without length */
} pq_wcol;

typedef struct pq_writer {
	pq_leaf *leaves;
	int nleaves;
	pq_wcol *cols;
	int has_required;   /* some leaf or ancestor is NOT NULL: rows are checked first */
	/* options */
	int codec, level, v2, dict;
	int *field_ids;     /* 'parquet.field-ids': the top-level columns' ids, or NULL */
	int64_t block, page, dict_max;
	/* the file */
	int64_t pos;        /* bytes appended since file_begin */
	int64_t rows;       /* rows in the file */
	int64_t rg_rows;    /* rows buffered */
	int64_t buffered;   /* bytes buffered (estimate) */
	pq_chunk *chunks;   /* per row group written, nleaves each */
	int64_t *rg_rows_of; /* rows per row group written */
	int nrg, rg_cap;
	sl_buf stats;       /* min/max bytes of the chunks */
	/* scratch, reused */
	sl_buf foot, body, comp, hdr;
	uint32_t *u32;
	int64_t u32_cap;
	int32_t *slot;      /* dictionary hash table */
	int64_t slot_cap;
	uint32_t *dict_first; /* per dictionary entry: its first value's index */
	int64_t dict_cap;
	void *zctx;
} pq_writer;

static int nomem(sl_err *err)
{
	return sl_err_set(err, SL_ENOMEM, "parquet: out of memory");
}

static int grow(void **p, int64_t *cap, int64_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	int64_t n = *cap ? *cap : 1024;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, (size_t)n * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

static int read_codec(const sl_opts *opts, int *codec, sl_err *err)
{
	const char *v = sl_opts_get(opts, "parquet.compression");
	*codec = PQ_SNAPPY; /* Flink's default */
	if (!v)
		return 0;
	static const struct { const char *name; int codec; } names[] = {
		{"uncompressed", PQ_UNCOMPRESSED}, {"none", PQ_UNCOMPRESSED},
		{"snappy", PQ_SNAPPY}, {"gzip", PQ_GZIP}, {"zstd", PQ_ZSTD},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcasecmp(v, names[i].name)) {
			*codec = names[i].codec;
			return 0;
		}
	return sl_err_set(err, SL_EINVAL, "option 'parquet.compression': '%s' is not supported "
	                  "(use UNCOMPRESSED, SNAPPY, GZIP or ZSTD)", v);
}

/*
 * 'parquet.field-ids': "false" (none), "true" (top-level column i carries
 * id i + 1) or a comma-separated list of one positive id per top-level
 * column (the Iceberg sink's delete files: key columns keep their table
 * ids, position deletes carry the spec's reserved ids).
 */
static int read_field_ids(pq_writer *w, const sl_opts *opts, int nfields, sl_err *err)
{
	const char *v = sl_opts_get(opts, "parquet.field-ids");
	int on = 0;
	if (!v || !strchr(v, ',')) {
		if (!v || !(v[0] >= '0' && v[0] <= '9')) {
			if (sl_opts_bool(opts, "parquet.field-ids", 0, &on, err))
				return SL_EINVAL;
			v = NULL;
		}
	}
	if ((!on && !v) || nfields < 0) /* nfields < 0: only checked */
		return 0;
	if (!(w->field_ids = calloc((size_t)nfields + 1, sizeof *w->field_ids)))
		return nomem(err);
	for (int i = 0; i < nfields; i++) {
		char *end;
		long x = i + 1;
		if (v) {
			x = strtol(v, &end, 10);
			if (end == v || x < 1 || x > INT32_MAX || (*end != ',' && *end != 0) ||
			    (*end == 0) != (i == nfields - 1))
				return sl_err_set(err, SL_EINVAL, "option 'parquet.field-ids': '%s' is not "
				                  "true, false or %d positive ids", sl_opts_get(opts,
				                  "parquet.field-ids"), nfields);
			v = end + (*end == ',');
		}
		w->field_ids[i] = (int)x;
	}
	return 0;
}

static int read_options(pq_writer *w, const sl_opts *opts, int nfields, sl_err *err)
{
	int64_t level = 0;
	const char *ver = sl_opts_get(opts, "parquet.writer.version");
	if (read_codec(opts, &w->codec, err) ||
	    sl_opts_size(opts, "parquet.block.size", PQ_DEF_BLOCK, &w->block, err) ||
	    sl_opts_size(opts, "parquet.page.size", PQ_DEF_PAGE, &w->page, err) ||
	    sl_opts_size(opts, "parquet.dictionary.page.size", PQ_DEF_DICT, &w->dict_max, err) ||
	    sl_opts_bool(opts, "parquet.enable.dictionary", 1, &w->dict, err) ||
	    sl_opts_int(opts, "parquet.compression.codec.zstd.level", 3, &level, err))
		return SL_EINVAL;
	if (read_field_ids(w, opts, nfields, err))
		return SL_EINVAL;
	if (ver && !strcasecmp(ver, "PARQUET_2_0"))
		w->v2 = 1;
	else if (ver && strcasecmp(ver, "PARQUET_1_0"))
		return sl_err_set(err, SL_EINVAL, "option 'parquet.writer.version': '%s' is not "
		                  "PARQUET_1_0 or PARQUET_2_0", ver);
	if (w->block < 1 || w->page < 1)
		return sl_err_set(err, SL_EINVAL, "options 'parquet.block.size' and "
		                  "'parquet.page.size' must be positive");
	if (level < 1 || level > 22)
		return sl_err_set(err, SL_EINVAL, "option 'parquet.compression.codec.zstd.level': "
		                  "%lld is not in 1..22", (long long)level);
	w->level = w->codec == PQ_ZSTD ? (int)level : 0;
	return 0;
}

/* pq_write_options_check: validates (and marks read) the writer's
 * options, for a source whose table also names them. */
int pq_write_options_check(const sl_opts *opts, sl_err *err)
{
	pq_writer w;
	memset(&w, 0, sizeof w);
	return read_options(&w, opts, -1, err);
}

/* encoder_init: reads the options and lays the schema out. */
int pq_encoder_init(sl_encoder *e, const sl_opts *opts, sl_err *err)
{
	pq_enc *pe = (pq_enc *)e;
	pq_writer *w = calloc(1, sizeof *w);
	if (!(pe->w = w))
		return nomem(err);
	int rc = read_options(w, opts, e->nfields, err);
	if (!rc)
		rc = pq_leaves_make(e->fields, e->nfields, &w->leaves, &w->nleaves, err);
	if (rc)
		return rc;
	if (!(w->cols = calloc((size_t)w->nleaves + 1, sizeof *w->cols)))
		return nomem(err);
	for (int i = 0; i < w->nleaves; i++) {
		pq_wcol *c = &w->cols[i];
		const pq_leaf *L = &w->leaves[i];
		c->L = L;
		c->width = L->phys == PQ_BOOLEAN ? 1 : L->phys == PQ_INT32 || L->phys == PQ_FLOAT ? 4
		         : L->phys == PQ_INT64 || L->phys == PQ_DOUBLE ? 8
		         : L->phys == PQ_FIXED ? L->type_len : 0;
		for (int k = 0; k < L->path_len; k++)
			w->has_required |= !L->opt[k];
	}
	return 0;
}

void pq_encoder_deinit(sl_encoder *e)
{
	pq_writer *w = ((pq_enc *)e)->w;
	if (!w)
		return;
	for (int i = 0; i < w->nleaves; i++) {
		pq_wcol *c = &w->cols[i];
		free(c->def);
		free(c->off);
		sl_buf_deinit(&c->vals);
		sl_buf_deinit(&c->min);
		sl_buf_deinit(&c->max);
	}
	free(w->cols);
	free(w->field_ids);
	pq_leaves_free(w->leaves, w->nleaves);
	free(w->chunks);
	free(w->rg_rows_of);
	sl_buf_deinit(&w->stats);
	sl_buf_deinit(&w->foot);
	sl_buf_deinit(&w->body);
	sl_buf_deinit(&w->comp);
	sl_buf_deinit(&w->hdr);
	free(w->u32);
	free(w->slot);
	free(w->dict_first);
	pq_codec_ctx_free(w->codec, w->zctx);
	free(w);
	((pq_enc *)e)->w = NULL;
}

/* ---- buffering rows ---------------------------------------------------------- */

/* The column holding leaf L's value in row `row` of b, or NULL when the
 * value or an enclosing ROW is NULL; *def is its definition level. */
static const sl_col *leaf_col(const sl_batch *b, const pq_leaf *L, int row, int *def)
{
	const sl_col *c = NULL;
	*def = 0;
	for (int k = 0; k < L->path_len; k++) {
		c = k == 0 ? &b->cols[L->idx[0]] : &c->child[L->idx[k]];
		if (c->null[row])
			return NULL;
		*def += L->opt[k];
	}
	return c;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* The value's PLAIN bytes (fixed widths) into tmp; returns its length. */
static int fixed_bytes(const pq_wcol *c, const sl_col *col, int row, uint8_t *tmp)
{
	const pq_leaf *L = c->L;
	sl_type_id id = (sl_type_id)L->f->type.id;
	int64_t x;
	switch (L->phys) {
	case PQ_BOOLEAN:
		tmp[0] = col->v.i64[row] != 0;
		return 1;
	case PQ_FLOAT: {
		float f = (float)col->v.f64[row];
		memcpy(tmp, &f, 4);
		return 4;
	}
	case PQ_DOUBLE:
		memcpy(tmp, &col->v.f64[row], 8);
		return 8;
	case PQ_FIXED: {
		sl_i128 v = col->v.i128[row];
		for (int k = c->width - 1; k >= 0; k--, v >>= 8)
			tmp[k] = (uint8_t)v;
		return c->width;
	}
	default:
		break;
	}
	if (id == SL_T_DECIMAL)
		x = (int64_t)col->v.i128[row];
	else if ((id == SL_T_TIME || sl_type_is_timestamp(L->f->type)) && L->unit == PQ_UNIT_MILLIS)
		x = floor_div(col->v.i64[row], 1000);
	else
		x = col->v.i64[row];
	if (L->phys == PQ_INT32) {
		int32_t y = (int32_t)x;
		memcpy(tmp, &y, 4);
		return 4;
	}
	memcpy(tmp, &x, 8);
	return 8;
}

/* Signed comparison of two PLAIN values of column c (fixed width or bytes). */
static int cmp_value(const pq_wcol *c, const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	switch (c->L->phys) {
	case PQ_BOOLEAN:
		return (int)a[0] - (int)b[0];
	case PQ_INT32: {
		int32_t x, y;
		memcpy(&x, a, 4);
		memcpy(&y, b, 4);
		return x < y ? -1 : x > y;
	}
	case PQ_INT64: {
		int64_t x, y;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		return x < y ? -1 : x > y;
	}
	case PQ_FLOAT: {
		float x, y;
		memcpy(&x, a, 4);
		memcpy(&y, b, 4);
		return x < y ? -1 : x > y;
	}
	case PQ_DOUBLE: {
		double x, y;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		return x < y ? -1 : x > y;
	}
	case PQ_FIXED: /* big-endian two's complement: the sign byte first */
		if ((a[0] ^ b[0]) & 0x80)
			return (a[0] & 0x80) ? -1 : 1;
		return memcmp(a, b, an);
	default: { /* unsigned byte-wise, shorter first on a tie */
		int r = memcmp(a, b, an < bn ? an : bn);
		return r ? r : an < bn ? -1 : an > bn;
	}
	}
}

static int is_nan(const pq_wcol *c, const uint8_t *v)
{
	if (c->L->phys == PQ_FLOAT) {
		float f;
		memcpy(&f, v, 4);
		return isnan(f);
	}
	if (c->L->phys == PQ_DOUBLE) {
		double d;
		memcpy(&d, v, 8);
		return isnan(d);
	}
	return 0;
}

static int set_buf(sl_buf *b, const void *p, size_t n)
{
	sl_buf_clear(b);
	return n && sl_buf_append(b, p, n) ? -1 : 0;
}

static int update_stats(pq_wcol *c, const uint8_t *v, size_t n)
{
	if (is_nan(c, v))
		return 0; /* NaN is left out of min/max (the specification's rule) */
	if (!c->has_minmax) {
		c->has_minmax = 1;
		return set_buf(&c->min, v, n) || set_buf(&c->max, v, n) ? -1 : 0;
	}
	if (cmp_value(c, v, n, (uint8_t *)c->min.p, c->min.len) < 0 && set_buf(&c->min, v, n))
		return -1;
	if (cmp_value(c, v, n, (uint8_t *)c->max.p, c->max.len) > 0 && set_buf(&c->max, v, n))
		return -1;
	return 0;
}

/* Appends one row's level and value of column c. */
static int add_value(pq_writer *w, pq_wcol *c, const sl_batch *b, int row)
{
	int def;
	const sl_col *col = leaf_col(b, c->L, row, &def);
	if (grow((void **)&c->def, &c->def_cap, c->nrows + 1, 1))
		return -1;
	c->def[c->nrows++] = (uint8_t)def;
	if (!col) {
		c->nulls++;
		w->buffered += 1;
		return 0;
	}
	if (c->width) {
		uint8_t tmp[16];
		int n = fixed_bytes(c, col, row, tmp);
		if (sl_buf_append(&c->vals, tmp, (size_t)n) || update_stats(c, tmp, (size_t)n))
			return -1;
		w->buffered += n;
	} else {
		const sl_str *s = &col->v.str[row];
		if (grow((void **)&c->off, &c->off_cap, c->nvals + 2, sizeof(int64_t)))
			return -1;
		if (c->nvals == 0)
			c->off[0] = 0;
		if (sl_buf_append(&c->vals, s->ptr, (size_t)s->len) ||
		    update_stats(c, (const uint8_t *)s->ptr, (size_t)s->len))
			return -1;
		c->off[c->nvals + 1] = (int64_t)c->vals.len;
		w->buffered += 4 + s->len;
	}
	c->nvals++;
	return 0;
}

/* A NULL in a NOT NULL column (or ROW): refused before any column took
 * the row. */
static int check_required(pq_writer *w, const sl_batch *b, int row, sl_err *err)
{
	for (int i = 0; i < w->nleaves; i++) {
		const pq_leaf *L = &w->leaves[i];
		const sl_col *c = NULL;
		for (int k = 0; k < L->path_len; k++) {
			c = k == 0 ? &b->cols[L->idx[0]] : &c->child[L->idx[k]];
			if (!c->null[row])
				continue;
			if (!L->opt[k])
				return sl_err_set(err, SL_EINVAL, "parquet: NULL in NOT NULL column '%s'",
				                  L->path[k]);
			break;
		}
	}
	return 0;
}

static int write_row_group(pq_writer *w, sl_buf *out, sl_err *err);

/* encode: buffers row `row` of b; a full row group goes to out. */
int pq_encode(sl_encoder *e, const sl_batch *b, int row, sl_buf *out, sl_err *err)
{
	pq_writer *w = ((pq_enc *)e)->w;
	if (b->op[row] != SL_INSERT)
		return sl_err_set(err, SL_EINVAL, "format 'parquet' writes only inserts (+I), got "
		                  "an update or delete");
	if (w->has_required && check_required(w, b, row, err))
		return SL_EINVAL;
	for (int i = 0; i < w->nleaves; i++)
		if (add_value(w, &w->cols[i], b, row))
			return nomem(err); /* the writer is unusable: the sink fails the part */
	w->rg_rows++;
	if (w->buffered >= w->block)
		return write_row_group(w, out, err);
	return 0;
}

int64_t pq_file_buffered(const sl_encoder *e)
{
	return ((const pq_enc *)e)->w->buffered;
}

/* ---- pages ------------------------------------------------------------------- */

/* Appends bytes to out and counts them in the file position. */
static int emit(pq_writer *w, sl_buf *out, const void *p, size_t n)
{
	if (sl_buf_append(out, p, n))
		return -1;
	w->pos += (int64_t)n;
	return 0;
}

/* The PLAIN encoding of values [v0, v1) of c (or of the dictionary
 * entries, when first != NULL: values first[v0..v1)) into buf. */
static int plain_values(const pq_wcol *c, sl_buf *buf, int64_t v0, int64_t v1,
                        const uint32_t *first)
{
	if (c->L->phys == PQ_BOOLEAN) {
		size_t nb = (size_t)((v1 - v0 + 7) / 8);
		if (sl_buf_reserve(buf, nb))
			return -1;
		uint8_t *p = (uint8_t *)buf->p + buf->len;
		memset(p, 0, nb);
		for (int64_t k = v0; k < v1; k++) {
			int64_t src = first ? first[k] : k;
			if (c->vals.p[src])
				p[(k - v0) >> 3] |= (uint8_t)(1u << ((k - v0) & 7));
		}
		buf->len += nb;
		return 0;
	}
	if (c->width) {
		if (!first)
			return sl_buf_append(buf, c->vals.p + v0 * c->width, (size_t)((v1 - v0) * c->width));
		for (int64_t k = v0; k < v1; k++)
			if (sl_buf_append(buf, c->vals.p + (int64_t)first[k] * c->width, (size_t)c->width))
				return -1;
		return 0;
	}
	for (int64_t k = v0; k < v1; k++) {
		int64_t src = first ? first[k] : k;
		uint32_t len = (uint32_t)(c->off[src + 1] - c->off[src]);
		if (sl_buf_append(buf, &len, 4) || sl_buf_append(buf, c->vals.p + c->off[src], len))
			return -1;
	}
	return 0;
}

/*
 * Writes one page: body[0..n) compressed from byte `plain_from` on (v2
 * leaves its levels uncompressed), preceded by its header.  kind is the
 * PageType; nvals/nrows/nnulls/enc/deflen describe a data page; for a
 * dictionary page nvals is its entry count.
 */
static int put_page(pq_writer *w, sl_buf *out, pq_chunk *ch, int kind, const sl_buf *body,
                    size_t plain_from, int64_t nvals, int64_t nnulls, int enc, int64_t deflen)
{
	size_t n = body->len - plain_from;
	sl_buf_clear(&w->comp);
	if (sl_buf_reserve(&w->comp, pq_compress_bound(w->codec, n) + plain_from))
		return -1;
	memcpy(w->comp.p, body->p, plain_from);
	size_t cn = 0;
	if (pq_compress(w->codec, w->level, &w->zctx, body->p + plain_from, n,
	                w->comp.p + plain_from, &cn))
		return -1;
	w->comp.len = plain_from + cn;
	pq_tw t;
	sl_buf_clear(&w->hdr);
	pq_tw_init(&t, &w->hdr);
	pq_tw_i32(&t, 1, kind);
	pq_tw_i32(&t, 2, (int32_t)body->len);
	pq_tw_i32(&t, 3, (int32_t)w->comp.len);
	if (kind == PQ_DICTIONARY_PAGE) {
		pq_tw_struct(&t, 7);
		pq_tw_i32(&t, 1, (int32_t)nvals);
		pq_tw_i32(&t, 2, PQ_PLAIN);
		pq_tw_end(&t);
	} else if (kind == PQ_DATA_PAGE) {
		pq_tw_struct(&t, 5);
		pq_tw_i32(&t, 1, (int32_t)nvals);
		pq_tw_i32(&t, 2, enc);
		pq_tw_i32(&t, 3, PQ_RLE);
		pq_tw_i32(&t, 4, PQ_RLE);
		pq_tw_end(&t);
	} else {
		pq_tw_struct(&t, 8);
		pq_tw_i32(&t, 1, (int32_t)nvals);
		pq_tw_i32(&t, 2, (int32_t)nnulls);
		pq_tw_i32(&t, 3, (int32_t)nvals);
		pq_tw_i32(&t, 4, enc);
		pq_tw_i32(&t, 5, (int32_t)deflen);
		pq_tw_i32(&t, 6, 0);
		pq_tw_bool(&t, 7, w->codec != PQ_UNCOMPRESSED);
		pq_tw_end(&t);
	}
	pq_tw_end(&t);
	if (t.failed || body->len > INT32_MAX || w->comp.len > INT32_MAX)
		return -1;
	if (emit(w, out, w->hdr.p, w->hdr.len) || emit(w, out, w->comp.p, w->comp.len))
		return -1;
	ch->uncomp += (int64_t)(w->hdr.len + body->len);
	ch->comp += (int64_t)(w->hdr.len + w->comp.len);
	return 0;
}

static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
	while (n >= 8) {
		uint64_t x;
		memcpy(&x, p, 8);
		h = (h ^ x) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
		p += 8;
		n -= 8;
	}
	uint64_t x = 0;
	memcpy(&x, p, n);
	h = (h ^ x) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

/* Equality of n bytes; why the widths 4 and 8 apart: memcmp calls were
 * 13% of writing 2 M rows of mostly 8-byte columns (perf, bench/parquet.sh). */
static inline int same_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
	if (n == 8) {
		uint64_t x, y;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		return x == y;
	}
	if (n == 4) {
		uint32_t x, y;
		memcpy(&x, a, 4);
		memcpy(&y, b, 4);
		return x == y;
	}
	return !memcmp(a, b, n);
}

static const uint8_t *value_at(const pq_wcol *c, int64_t k, size_t *n)
{
	if (c->width) {
		*n = (size_t)c->width;
		return (const uint8_t *)c->vals.p + k * c->width;
	}
	*n = (size_t)(c->off[k + 1] - c->off[k]);
	return (const uint8_t *)c->vals.p + c->off[k];
}

/*
 * Builds c's dictionary: w->u32[k] = the entry of value k, w->dict_first
 * = each entry's first value.  Returns the entry count, 0 when the
 * dictionary's PLAIN bytes would pass the limit (PLAIN is used), -1 when
 * out of memory.
 */
static int64_t build_dict(pq_writer *w, const pq_wcol *c)
{
	/* no more entries than fit in dict_max bytes: the table stays small
	 * for a large row group of distinct values */
	int64_t most = w->dict_max / (c->width ? c->width : 4) + 1, size = 16;
	while (size < c->nvals * 2 && size < most * 2)
		size *= 2;
	if (grow((void **)&w->slot, &w->slot_cap, size, sizeof(int32_t)) ||
	    grow((void **)&w->u32, &w->u32_cap, c->nvals + 1, sizeof(uint32_t)))
		return -1;
	memset(w->slot, 0xff, (size_t)size * sizeof(int32_t));
	int64_t nd = 0, bytes = 0;
	for (int64_t k = 0; k < c->nvals; k++) {
		size_t n;
		const uint8_t *v = value_at(c, k, &n);
		uint64_t h = hash_bytes(v, n) & (uint64_t)(size - 1);
		for (;;) {
			int32_t s = w->slot[h];
			if (s < 0) {
				bytes += (int64_t)n + (c->width ? 0 : 4);
				if (bytes > w->dict_max)
					return 0;
				if (grow((void **)&w->dict_first, &w->dict_cap, nd + 1, sizeof(uint32_t)))
					return -1;
				w->dict_first[nd] = (uint32_t)k;
				w->slot[h] = (int32_t)nd;
				w->u32[k] = (uint32_t)nd++;
				break;
			}
			size_t m;
			const uint8_t *u = value_at(c, w->dict_first[s], &m);
			if (m == n && same_bytes(u, v, n)) {
				w->u32[k] = (uint32_t)s;
				break;
			}
			h = (h + 1) & (uint64_t)(size - 1);
		}
	}
	return nd;
}

/* Definition levels of rows [r0, r1) of c, RLE/bit-packed, into buf. */
static int put_levels(pq_writer *w, const pq_wcol *c, sl_buf *buf, int64_t r0, int64_t r1)
{
	int64_t n = r1 - r0;
	uint32_t *lv = malloc((size_t)(n ? n : 1) * sizeof *lv);
	if (!lv)
		return -1;
	for (int64_t k = 0; k < n; k++)
		lv[k] = c->def[r0 + k];
	int rc = pq_rle_encode(buf, lv, n, pq_bit_width((uint64_t)c->L->max_def));
	free(lv);
	return rc;
}

/* The specification's rule for zeros in floating-point statistics: a
 * zero min is written -0.0 and a zero max +0.0, whichever zero was seen
 * first, so readers that prune by them never skip a zero of either sign. */
static void signed_zeros(pq_wcol *c)
{
	if (c->L->phys == PQ_FLOAT) {
		float mn, mx;
		memcpy(&mn, c->min.p, 4);
		memcpy(&mx, c->max.p, 4);
		if (mn == 0.0f)
			mn = -0.0f;
		if (mx == 0.0f)
			mx = 0.0f;
		memcpy(c->min.p, &mn, 4);
		memcpy(c->max.p, &mx, 4);
	} else if (c->L->phys == PQ_DOUBLE) {
		double mn, mx;
		memcpy(&mn, c->min.p, 8);
		memcpy(&mx, c->max.p, 8);
		if (mn == 0.0)
			mn = -0.0;
		if (mx == 0.0)
			mx = 0.0;
		memcpy(c->min.p, &mn, 8);
		memcpy(c->max.p, &mx, 8);
	}
}

/* Writes column c's chunk of the buffered row group. */
static int write_chunk(pq_writer *w, pq_wcol *c, pq_chunk *ch, sl_buf *out)
{
	int64_t nd = 0;
	memset(ch, 0, sizeof *ch);
	ch->start = w->pos;
	ch->dict_off = -1;
	ch->num_values = c->nrows;
	ch->nulls = c->nulls;
	if (w->dict && c->L->phys != PQ_BOOLEAN && c->nvals > 0 && (nd = build_dict(w, c)) < 0)
		return -1;
	if (nd > 0) {
		sl_buf_clear(&w->body);
		if (plain_values(c, &w->body, 0, nd, w->dict_first) ||
		    put_page(w, out, ch, PQ_DICTIONARY_PAGE, &w->body, 0, nd, 0, PQ_PLAIN, 0))
			return -1;
		ch->dict_off = ch->start;
	}
	ch->data_off = w->pos;
	int bw = pq_bit_width(nd > 0 ? (uint64_t)(nd - 1) : 0);
	int64_t vsize = nd > 0 ? (bw + 7) / 8 + 1 : c->width ? c->width : 0;
	int64_t r = 0, v = 0;
	while (r < c->nrows || (r == 0 && c->nrows == 0)) {
		/* the page: rows [r, r1), values [v, v1) */
		int64_t r1 = r, v1 = v, bytes = 0;
		while (r1 < c->nrows && r1 - r < PQ_PAGE_ROWS && bytes < w->page) {
			if (c->def[r1] == c->L->max_def) {
				bytes += vsize ? vsize : 4 + (c->off[v1 + 1] - c->off[v1]);
				v1++;
			}
			r1++;
		}
		sl_buf_clear(&w->body);
		size_t deflen = 0;
		if (c->L->max_def > 0) {
			size_t at = w->body.len;
			if (!w->v2 && sl_buf_append(&w->body, "\0\0\0\0", 4))
				return -1;
			if (put_levels(w, c, &w->body, r, r1))
				return -1;
			deflen = w->body.len - at - (w->v2 ? 0 : 4);
			if (!w->v2) {
				uint32_t l32 = (uint32_t)deflen;
				memcpy(w->body.p + at, &l32, 4);
			}
		}
		int enc = PQ_PLAIN;
		if (nd > 0) {
			uint8_t b = (uint8_t)bw;
			enc = PQ_RLE_DICTIONARY;
			if (sl_buf_append(&w->body, &b, 1) ||
			    pq_rle_encode(&w->body, w->u32 + v, v1 - v, bw))
				return -1;
		} else if (plain_values(c, &w->body, v, v1, NULL)) {
			return -1;
		}
		if (put_page(w, out, ch, w->v2 ? PQ_DATA_PAGE_V2 : PQ_DATA_PAGE, &w->body,
		             w->v2 ? deflen : 0, r1 - r, (r1 - r) - (v1 - v), enc, (int64_t)deflen))
			return -1;
		r = r1;
		v = v1;
		if (c->nrows == 0)
			break;
	}
	if ((ch->has_minmax = c->has_minmax))
		signed_zeros(c);
	if (ch->has_minmax) {
		ch->min_off = w->stats.len;
		ch->min_len = (uint32_t)c->min.len;
		if (sl_buf_append(&w->stats, c->min.p, c->min.len))
			return -1;
		ch->max_off = w->stats.len;
		ch->max_len = (uint32_t)c->max.len;
		if (sl_buf_append(&w->stats, c->max.p, c->max.len))
			return -1;
	}
	return 0;
}

/* Appends the buffered rows as one row group and empties the buffer. */
static int write_row_group(pq_writer *w, sl_buf *out, sl_err *err)
{
	if (w->rg_rows == 0)
		return 0;
	if (w->nrg == w->rg_cap) {
		int cap = w->rg_cap ? w->rg_cap * 2 : 4;
		pq_chunk *nc = realloc(w->chunks, (size_t)cap * (size_t)w->nleaves * sizeof *nc);
		if (nc)
			w->chunks = nc;
		int64_t *nr = realloc(w->rg_rows_of, (size_t)cap * sizeof *nr);
		if (nr)
			w->rg_rows_of = nr;
		if (!nc || !nr)
			return nomem(err);
		w->rg_cap = cap;
	}
	for (int i = 0; i < w->nleaves; i++) {
		pq_wcol *c = &w->cols[i];
		if (write_chunk(w, c, &w->chunks[(size_t)w->nrg * (size_t)w->nleaves + (size_t)i], out))
			return sl_err_set(err, SL_ENOMEM, "parquet: cannot encode column '%s' (out of "
			                  "memory or a compression error)", c->L->f->name);
		c->nrows = c->nvals = c->nulls = 0;
		c->has_minmax = 0;
		sl_buf_clear(&c->vals);
	}
	w->rg_rows_of[w->nrg++] = w->rg_rows;
	w->rows += w->rg_rows;
	w->rg_rows = 0;
	w->buffered = 0;
	return 0;
}

/* ---- the file ------------------------------------------------------------------ */

int pq_file_begin(sl_encoder *e, sl_buf *out, sl_err *err)
{
	pq_writer *w = ((pq_enc *)e)->w;
	w->pos = 0;
	w->rows = 0;
	w->nrg = 0;
	sl_buf_clear(&w->stats);
	if (emit(w, out, "PAR1", 4))
		return nomem(err);
	return 0;
}

static void write_column_meta(pq_writer *w, pq_tw *t, const pq_leaf *L, const pq_chunk *ch)
{
	pq_tw_i32(t, 1, L->phys);
	int dict = ch->dict_off >= 0;
	pq_tw_list(t, 2, TC_I32, dict ? 3 : 2);
	pq_tw_elem_i32(t, PQ_PLAIN);
	pq_tw_elem_i32(t, PQ_RLE);
	if (dict)
		pq_tw_elem_i32(t, PQ_RLE_DICTIONARY);
	pq_tw_list(t, 3, TC_BINARY, L->path_len);
	for (int k = 0; k < L->path_len; k++)
		pq_tw_elem_bin(t, L->path[k], strlen(L->path[k]));
	pq_tw_i32(t, 4, w->codec);
	pq_tw_i64(t, 5, ch->num_values);
	pq_tw_i64(t, 6, ch->uncomp);
	pq_tw_i64(t, 7, ch->comp);
	pq_tw_i64(t, 9, ch->data_off);
	if (dict)
		pq_tw_i64(t, 11, ch->dict_off);
	pq_tw_struct(t, 12); /* statistics */
	pq_tw_i64(t, 3, ch->nulls);
	if (ch->has_minmax) {
		pq_tw_bin(t, 5, w->stats.p + ch->max_off, ch->max_len);
		pq_tw_bin(t, 6, w->stats.p + ch->min_off, ch->min_len);
	}
	pq_tw_end(t);
}

/* file_end: the last row group, then the footer, its length and the magic. */
int pq_file_end(sl_encoder *e, sl_buf *out, sl_err *err)
{
	pq_writer *w = ((pq_enc *)e)->w;
	int rc = write_row_group(w, out, err);
	if (rc)
		return rc;
	sl_buf *f = &w->foot;
	pq_tw t;
	sl_buf_clear(f);
	pq_tw_init(&t, f);
	pq_tw_i32(&t, 1, w->v2 ? 2 : 1);
	pq_write_schema(&t, 2, e->fields, e->nfields, w->field_ids);
	pq_tw_i64(&t, 3, w->rows);
	pq_tw_list(&t, 4, TC_STRUCT, w->nrg);
	for (int g = 0; g < w->nrg; g++) {
		const pq_chunk *chs = &w->chunks[(size_t)g * (size_t)w->nleaves];
		int64_t total = 0, comp = 0;
		pq_tw_elem_struct(&t);
		pq_tw_list(&t, 1, TC_STRUCT, w->nleaves);
		for (int i = 0; i < w->nleaves; i++) {
			pq_tw_elem_struct(&t);
			pq_tw_i64(&t, 2, chs[i].start);
			pq_tw_struct(&t, 3);
			write_column_meta(w, &t, &w->leaves[i], &chs[i]);
			pq_tw_end(&t);
			pq_tw_end(&t);
			total += chs[i].uncomp;
			comp += chs[i].comp;
		}
		pq_tw_i64(&t, 2, total);
		pq_tw_i64(&t, 3, w->rg_rows_of[g]);
		pq_tw_i64(&t, 5, w->nleaves ? chs[0].start : 4);
		pq_tw_i64(&t, 6, comp);
		pq_tw_i32(&t, 7, g);
		pq_tw_end(&t);
	}
	/* created_by: the application only (sl_version lives in src/api, above
	 * this layer); readers key their workarounds on other writers' names */
	pq_tw_bin(&t, 6, "sluice", 6);
	pq_tw_list(&t, 7, TC_STRUCT, w->nleaves); /* column_orders: TYPE_ORDER each */
	for (int i = 0; i < w->nleaves; i++) {
		pq_tw_elem_struct(&t);
		pq_tw_struct(&t, 1);
		pq_tw_end(&t);
		pq_tw_end(&t);
	}
	pq_tw_end(&t);
	uint32_t len = (uint32_t)f->len;
	if (t.failed || emit(w, out, f->p, f->len) || emit(w, out, &len, 4) ||
	    emit(w, out, "PAR1", 4))
		return nomem(err);
	return 0;
}
