/*
 * parquet_read.c - the Parquet reader: the decoder half of the 'parquet'
 * format (docs/parquet.md), driven by the filesystem source once per
 * input file (format.h's file hooks).
 *
 * file_open reads the footer (the last 8 bytes: its length and the magic;
 * FileMetaData in the Thrift compact protocol, parquet_thrift.c), lays the
 * file's schema out as leaves with their definition levels, and matches
 * every leaf of the table's schema to the file's leaf with the same path
 * of names (exact, else ignoring case), checking that the file's physical
 * type and annotation can be read as the column's type.  A column the file
 * lacks reads as NULL (as Flink's reader does); a repeated column the
 * table reads (LIST, MAP) is refused naming it.  A column the query does
 * not read (the decoder's skip, set by the scan under column pruning) is
 * neither matched nor loaded: it reads as NULL, its chunks are never
 * read or decompressed, and a type it could not be read as is no error
 * (Flink's projected reader does the same).
 *
 * file_read goes through the row groups in order.  Each matched column
 * reads its chunk's bytes with one pread (never more than the file holds)
 * and decodes one page at a time: the dictionary page (kept for the
 * chunk), then data pages v1 or v2, decompressed (parquet_codec.c), their
 * definition levels (RLE/bit-packed) and values (PLAIN, PLAIN_DICTIONARY,
 * RLE_DICTIONARY, RLE for booleans, DELTA_BINARY_PACKED,
 * DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT) converted
 * to the column's sluice representation as they are decoded (timestamp
 * units to microseconds, INT96 timestamps, decimal scales, big-endian
 * decimals).  Rows are copied into the caller's batch, strings into the
 * batch's arena, so nothing in a batch points at the reader's buffers.
 *
 * Hostile input: every length and count is checked against the bytes that
 * hold it and against pq_read_value_cap values per page; errors name the
 * file, and the column where one is concerned.  The fuzz target
 * (tests/fuzz/fuzz_parquet.c) drives this file.
 */
#include "parquet.h"
#include "sluice.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Values per page (and dictionary entries) at most: bounds what a page
 * header can make the reader allocate. */
int64_t pq_read_value_cap = 1LL << 24;

#define PQ_MAX_FOOTER (64LL << 20)
#define PQ_MAX_PAGE (1LL << 30)

/* A schema element of the file, as far as the reader needs it. */
typedef struct pq_elem {
	const uint8_t *name;
	size_t name_len;
	int type, type_len, rep, nchild, ct, scale, precision;
	int lt, unit, utc, bits, is_signed, lt_scale, lt_prec;
} pq_elem;

/* A leaf of the file's schema. */
typedef struct pq_fleaf {
	int elem;            /* its schema element */
	int path_len;
	int path[8];         /* elements from the root's child down */
	int def_at[8];       /* definition level at which path element k is present */
	int max_def, max_rep;
} pq_fleaf;

/* How a file value becomes a sluice value. */
enum { CV_BOOL, CV_INT, CV_UINT, CV_FLOAT, CV_DEC, CV_DEC_BYTES, CV_STR, CV_TIME, CV_TS,
       CV_INT96 };

/* Column chunk metadata. */
typedef struct pq_cmeta {
	int type, codec;
	int64_t num_values, comp, data_off, dict_off;
	int npath;
	const uint8_t *path0; size_t path0_len; /* unused beyond checks */
} pq_cmeta;

typedef struct pq_rg {
	int64_t num_rows;
	pq_cmeta *cols;
	int ncols;
} pq_rg;

/* A column of the table being read. */
typedef struct pq_rcol {
	const pq_leaf *L;    /* the table's leaf */
	int fleaf;           /* the file's leaf, -1 = missing (NULL) */
	const pq_fleaf *F;
	int phys, type_len, conv;
	int64_t mul, div;    /* CV_INT bounds / CV_TIME, CV_TS, CV_DEC scaling */
	int64_t lo, hi;      /* CV_INT: the target's range */
	sl_i128 dlim;        /* CV_DEC*: 10^precision */
	int tphys;           /* the target's sl_phys */
	/* the chunk */
	uint8_t *chunk;
	size_t chunk_len, chunk_pos;
	int codec;
	int64_t left;        /* levels left in the chunk */
	/* dictionary */
	uint8_t *dict_buf;
	void *dict;
	int64_t ndict;
	/* the page */
	uint8_t *page_buf;
	size_t page_cap;
	uint8_t *strbuf;     /* DELTA_BYTE_ARRAY values */
	size_t strbuf_cap;
	uint8_t *def;
	uint32_t *u32;
	int64_t *i64s;
	void *vals;
	int64_t lev_cap, val_cap, nlev, lpos, nval, vpos;
} pq_rcol;

typedef struct pq_reader {
	int fd;
	int64_t size;
	char *name;
	uint8_t *footer;
	pq_elem *elems;
	int nelems;
	pq_fleaf *fleaves;
	int nfleaves;
	pq_rg *rgs;
	int nrg;
	int64_t num_rows;
	pq_leaf *leaves;
	int nleaves;
	pq_rcol *cols;
	const uint8_t *skip; /* the decoder's skip (format.h): fields not read */
	int rg;              /* the row group being read, -1 before the first */
	int64_t rg_left;     /* its rows not read yet */
	int open;
} pq_reader;

static int bad(pq_reader *r, sl_err *err, const char *what)
{
	return sl_err_set(err, SL_EINPUT, "parquet file '%s': %s", r->name, what);
}

static int col_bad(pq_reader *r, const pq_rcol *c, sl_err *err, const char *what)
{
	return sl_err_set(err, SL_EINPUT, "parquet file '%s': column '%s': %s", r->name,
	                  c->L->f->name, what);
}

/* ---- the footer ------------------------------------------------------------------ */

static void parse_unit(pq_tr *t, int *unit)
{
	int16_t last = 0;
	int ty, id;
	while ((id = pq_tr_field(t, &last, &ty))) {
		if (ty == TC_STRUCT && id >= 1 && id <= 3)
			*unit = id;
		pq_tr_skip(t, ty);
	}
}

static void parse_logical(pq_tr *t, pq_elem *e)
{
	int16_t last = 0, l2;
	int ty, id, ty2, id2;
	while ((id = pq_tr_field(t, &last, &ty))) {
		if (ty != TC_STRUCT) {
			pq_tr_skip(t, ty);
			continue;
		}
		e->lt = id;
		l2 = 0;
		while ((id2 = pq_tr_field(t, &l2, &ty2))) {
			if ((id == PQ_LT_TIME || id == PQ_LT_TIMESTAMP) && id2 == 1 &&
			    (ty2 == TC_TRUE || ty2 == TC_FALSE))
				e->utc = ty2 == TC_TRUE;
			else if ((id == PQ_LT_TIME || id == PQ_LT_TIMESTAMP) && id2 == 2 && ty2 == TC_STRUCT)
				parse_unit(t, &e->unit);
			else if (id == PQ_LT_DECIMAL && id2 == 1)
				e->lt_scale = (int)pq_tr_int_in(t, ty2, 0, 76);
			else if (id == PQ_LT_DECIMAL && id2 == 2)
				e->lt_prec = (int)pq_tr_int_in(t, ty2, 0, 76);
			else if (id == PQ_LT_INTEGER && id2 == 1)
				e->bits = (int)pq_tr_int_in(t, ty2, 0, 64);
			else if (id == PQ_LT_INTEGER && id2 == 2 && (ty2 == TC_TRUE || ty2 == TC_FALSE))
				e->is_signed = ty2 == TC_TRUE;
			else
				pq_tr_skip(t, ty2);
		}
	}
}

static void parse_elem(pq_tr *t, pq_elem *e)
{
	int16_t last = 0;
	int ty, id;
	memset(e, 0, sizeof *e);
	e->type = e->ct = e->rep = -1;
	while ((id = pq_tr_field(t, &last, &ty))) {
		switch (id) {
		case 1: e->type = (int)pq_tr_int_in(t, ty, 0, 7); break;
		case 2: e->type_len = (int)pq_tr_int_in(t, ty, 0, 1 << 20); break;
		case 3: e->rep = (int)pq_tr_int_in(t, ty, 0, 3); break;
		case 4:
			if (ty != TC_BINARY)
				t->err = 1;
			else
				e->name = pq_tr_bin(t, &e->name_len);
			break;
		case 5: e->nchild = (int)pq_tr_int_in(t, ty, 0, 1 << 20); break;
		case 6: e->ct = (int)pq_tr_int_in(t, ty, 0, 100); break;
		case 7: e->scale = (int)pq_tr_int_in(t, ty, 0, 76); break;
		case 8: e->precision = (int)pq_tr_int_in(t, ty, 0, 76); break;
		case 10:
			if (ty != TC_STRUCT)
				t->err = 1;
			else
				parse_logical(t, e);
			break;
		default: pq_tr_skip(t, ty);
		}
	}
}

static void parse_cmeta(pq_tr *t, pq_cmeta *m)
{
	int16_t last = 0;
	int ty, id;
	while ((id = pq_tr_field(t, &last, &ty))) {
		switch (id) {
		case 1: m->type = (int)pq_tr_int_in(t, ty, 0, 7); break;
		case 4: m->codec = (int)pq_tr_int_in(t, ty, 0, 100); break;
		case 5: m->num_values = pq_tr_int_in(t, ty, 0, INT64_MAX); break;
		case 7: m->comp = pq_tr_int_in(t, ty, 0, INT64_MAX); break;
		case 9: m->data_off = pq_tr_int_in(t, ty, 0, INT64_MAX); break;
		case 11: m->dict_off = pq_tr_int_in(t, ty, 0, INT64_MAX); break;
		default: pq_tr_skip(t, ty);
		}
	}
}

static int parse_rg(pq_tr *t, pq_rg *g)
{
	int16_t last = 0;
	int ty, id, et;
	while ((id = pq_tr_field(t, &last, &ty))) {
		if (id == 1 && ty == TC_LIST && !g->cols) {
			int64_t n = pq_tr_list(t, &et);
			if (n < 0 || et != TC_STRUCT || n > (t->e - t->p))
				return -1;
			g->cols = calloc((size_t)n + 1, sizeof *g->cols);
			if (!g->cols)
				return -2;
			g->ncols = (int)n;
			for (int64_t i = 0; i < n && !t->err; i++) {
				int16_t l2 = 0;
				int ty2, id2;
				g->cols[i].dict_off = -1;
				g->cols[i].data_off = -1;
				while ((id2 = pq_tr_field(t, &l2, &ty2))) {
					if (id2 == 3 && ty2 == TC_STRUCT)
						parse_cmeta(t, &g->cols[i]);
					else if (id2 == 1 && ty2 == TC_BINARY) {
						size_t fl;
						(void)pq_tr_bin(t, &fl);
						if (fl)
							return -3; /* columns in another file */
					} else
						pq_tr_skip(t, ty2);
				}
			}
		} else if (id == 3) {
			g->num_rows = pq_tr_int_in(t, ty, 0, INT64_MAX);
		} else {
			pq_tr_skip(t, ty);
		}
	}
	return t->err ? -1 : 0;
}

static int parse_footer(pq_reader *r, const uint8_t *p, size_t n, sl_err *err)
{
	pq_tr t = {p, p + n, 0, 0};
	int16_t last = 0;
	int ty, id, et;
	int have_schema = 0;
	while ((id = pq_tr_field(&t, &last, &ty))) {
		if (id == 2 && ty == TC_LIST && !have_schema) {
			int64_t cnt = pq_tr_list(&t, &et);
			if (cnt <= 0 || et != TC_STRUCT || cnt > (int64_t)n)
				return bad(r, err, "damaged footer (schema)");
			if (!(r->elems = calloc((size_t)cnt, sizeof *r->elems)))
				return sl_err_set(err, SL_ENOMEM, "parquet: out of memory");
			r->nelems = (int)cnt;
			for (int64_t i = 0; i < cnt && !t.err; i++)
				parse_elem(&t, &r->elems[i]);
			have_schema = 1;
		} else if (id == 3) {
			r->num_rows = pq_tr_int_in(&t, ty, 0, INT64_MAX);
		} else if (id == 4 && ty == TC_LIST && !r->rgs) {
			int64_t cnt = pq_tr_list(&t, &et);
			if (cnt < 0 || et != TC_STRUCT || cnt > (int64_t)n)
				return bad(r, err, "damaged footer (row groups)");
			if (!(r->rgs = calloc((size_t)cnt + 1, sizeof *r->rgs)))
				return sl_err_set(err, SL_ENOMEM, "parquet: out of memory");
			r->nrg = (int)cnt;
			for (int64_t i = 0; i < cnt && !t.err; i++) {
				int rc = parse_rg(&t, &r->rgs[i]);
				if (rc == -2)
					return sl_err_set(err, SL_ENOMEM, "parquet: out of memory");
				if (rc == -3)
					return bad(r, err, "column chunks in other files are not supported");
			}
		} else {
			pq_tr_skip(&t, ty);
		}
	}
	if (t.err || !have_schema)
		return bad(r, err, "damaged footer (FileMetaData)");
	return 0;
}

/* Lays out the file's leaves below element *at (depth first). */
static int walk_elems(pq_reader *r, int *at, int depth, pq_fleaf *parent, int pdef, int prep)
{
	int me = *at;
	if (me >= r->nelems || depth > 8)
		return -1;
	const pq_elem *e = &r->elems[me];
	(*at)++;
	pq_fleaf here = parent ? *parent : (pq_fleaf){0};
	int def = pdef, rep = prep;
	if (depth > 0) {
		if (!e->name)
			return -1;
		if (e->rep == PQ_OPTIONAL)
			def++;
		if (e->rep == PQ_REPEATED) {
			def++;
			rep++;
		}
		if (depth - 1 >= 8)
			return -1;
		here.path[depth - 1] = me;
		here.def_at[depth - 1] = def;
		here.path_len = depth;
	}
	if (e->nchild == 0 && depth > 0) {
		if (e->type < 0)
			return -1;
		here.elem = me;
		here.max_def = def;
		here.max_rep = rep;
		if (r->nfleaves >= r->nelems)
			return -1;
		r->fleaves[r->nfleaves++] = here;
		return 0;
	}
	for (int i = 0; i < e->nchild; i++)
		if (walk_elems(r, at, depth + 1, &here, def, rep))
			return -1;
	return 0;
}

/* ---- matching the table's columns ---------------------------------------------- */

static int name_eq(const pq_elem *e, const char *name, int icase)
{
	size_t n = strlen(name);
	return e->name_len == n &&
	       (icase ? !strncasecmp((const char *)e->name, name, n) : !memcmp(e->name, name, n));
}

static int find_fleaf(pq_reader *r, const pq_leaf *L)
{
	for (int icase = 0; icase < 2; icase++)
		for (int i = 0; i < r->nfleaves; i++) {
			const pq_fleaf *F = &r->fleaves[i];
			int k = 0;
			if (F->path_len != L->path_len)
				continue;
			while (k < L->path_len && name_eq(&r->elems[F->path[k]], L->path[k], icase))
				k++;
			if (k == L->path_len)
				return i;
		}
	return -1;
}

/* How the file's leaf is read as the column's type; -1 when it cannot be. */
static int plan_conv(pq_rcol *c, const pq_elem *e)
{
	sl_type t = c->L->f->type;
	int ph = e->type, unit = e->unit;
	int dec = e->lt == PQ_LT_DECIMAL || e->ct == PQ_CT_DECIMAL;
	int scale = e->lt == PQ_LT_DECIMAL ? e->lt_scale : e->scale;
	int is_time = e->lt == PQ_LT_TIME || e->ct == PQ_CT_TIME_MILLIS || e->ct == PQ_CT_TIME_MICROS;
	int is_ts = e->lt == PQ_LT_TIMESTAMP || e->ct == PQ_CT_TIMESTAMP_MILLIS ||
	            e->ct == PQ_CT_TIMESTAMP_MICROS;
	int is_date = e->lt == PQ_LT_DATE || e->ct == PQ_CT_DATE;
	if (!unit)
		unit = e->ct == PQ_CT_TIME_MILLIS || e->ct == PQ_CT_TIMESTAMP_MILLIS ? PQ_UNIT_MILLIS
		                                                                   : PQ_UNIT_MICROS;
	c->phys = ph;
	c->type_len = e->type_len;
	c->mul = c->div = 1;
	c->tphys = sl_type_phys(t);
	switch ((sl_type_id)t.id) {
	case SL_T_BOOLEAN:
		c->conv = CV_BOOL;
		return ph == PQ_BOOLEAN ? 0 : -1;
	case SL_T_TINYINT: case SL_T_SMALLINT: case SL_T_INT: case SL_T_BIGINT: {
		static const int64_t lim[] = {INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX};
		c->hi = lim[t.id - SL_T_TINYINT];
		c->lo = -c->hi - 1;
		int uns = (e->lt == PQ_LT_INTEGER && !e->is_signed) ||
		          (e->ct >= PQ_CT_UINT_8 && e->ct <= PQ_CT_UINT_64);
		c->conv = uns ? CV_UINT : CV_INT;
		return (ph == PQ_INT32 || ph == PQ_INT64) && !dec && !is_time && !is_ts && !is_date
		       ? 0 : -1;
	}
	case SL_T_FLOAT: case SL_T_DOUBLE:
		c->conv = CV_FLOAT;
		return ph == PQ_FLOAT || ph == PQ_DOUBLE ? 0 : -1;
	case SL_T_DECIMAL:
		if (!dec && !(ph == PQ_INT32 || ph == PQ_INT64))
			return -1;
		if (!dec)
			scale = 0;
		if (scale > t.scale || is_time || is_ts || is_date)
			return -1;
		c->dlim = sl_pow10_i128(t.precision);
		c->mul = 1;
		c->conv = ph == PQ_INT32 || ph == PQ_INT64 ? CV_DEC : CV_DEC_BYTES;
		c->div = t.scale - scale; /* digits to add */
		return ph == PQ_INT32 || ph == PQ_INT64 || ph == PQ_FIXED || ph == PQ_BYTE_ARRAY ? 0 : -1;
	case SL_T_CHAR: case SL_T_VARCHAR: case SL_T_BINARY: case SL_T_VARBINARY:
		c->conv = CV_STR;
		return (ph == PQ_BYTE_ARRAY || ph == PQ_FIXED) && !dec ? 0 : -1;
	case SL_T_DATE:
		c->conv = CV_INT;
		c->lo = INT32_MIN;
		c->hi = INT32_MAX;
		return ph == PQ_INT32 && is_date ? 0 : -1;
	case SL_T_TIME:
		c->conv = CV_TIME;
		if (unit == PQ_UNIT_MILLIS)
			c->mul = 1000;
		else if (unit == PQ_UNIT_NANOS)
			c->div = 1000;
		return (ph == PQ_INT32 || ph == PQ_INT64) && is_time ? 0 : -1;
	case SL_T_TIMESTAMP: case SL_T_TIMESTAMP_LTZ:
		if (ph == PQ_INT96) {
			c->conv = CV_INT96;
			return 0;
		}
		c->conv = CV_TS;
		if (unit == PQ_UNIT_MILLIS)
			c->mul = 1000;
		else if (unit == PQ_UNIT_NANOS)
			c->div = 1000;
		return ph == PQ_INT64 && is_ts ? 0 : -1;
	default:
		return -1;
	}
}

static const char *phys_name(int ph)
{
	static const char *const n[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE",
	                                "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
	return ph >= 0 && ph < 8 ? n[ph] : "?";
}

static int match_columns(pq_reader *r, sl_err *err)
{
	for (int i = 0; i < r->nleaves; i++) {
		pq_rcol *c = &r->cols[i];
		c->L = &r->leaves[i];
		/* a field the query does not read (column pruning) is not
		 * loaded at all: it reads as NULL, which nobody sees */
		c->fleaf = r->skip && r->skip[c->L->top] ? -1 : find_fleaf(r, c->L);
		if (c->fleaf < 0)
			continue; /* reads as NULL */
		c->F = &r->fleaves[c->fleaf];
		const pq_elem *e = &r->elems[c->F->elem];
		char tb[64];
		if (c->F->max_rep > 0)
			return sl_err_set(err, SL_ENOTSUP, "parquet file '%s': column '%s' is repeated "
			                  "(a LIST or MAP) in the file, which sluice does not read",
			                  r->name, c->L->f->name);
		if (plan_conv(c, e))
			return sl_err_set(err, SL_EINPUT, "parquet file '%s': column '%s' is %s%s in the "
			                  "file and cannot be read as %s", r->name, c->L->f->name,
			                  phys_name(e->type),
			                  e->lt == PQ_LT_DECIMAL || e->ct == PQ_CT_DECIMAL ? " DECIMAL"
			                  : e->lt == PQ_LT_TIMESTAMP ? " TIMESTAMP"
			                  : e->lt == PQ_LT_TIME ? " TIME"
			                  : e->lt == PQ_LT_DATE || e->ct == PQ_CT_DATE ? " DATE" : "",
			                  sl_type_format(c->L->f->type, tb, sizeof tb));
		if (c->phys == PQ_FIXED && (c->type_len <= 0 || (c->conv == CV_DEC_BYTES &&
		                                                 c->type_len > 16)))
			return col_bad(r, c, err, "bad FIXED_LEN_BYTE_ARRAY length");
	}
	return 0;
}

/* ---- open / close ------------------------------------------------------------------ */

static int pread_all(int fd, void *buf, size_t n, int64_t off)
{
	size_t done = 0;
	while (done < n) {
		ssize_t got = pread(fd, (char *)buf + done, n - done, (off_t)(off + (int64_t)done));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		done += (size_t)got;
	}
	return 0;
}

int pq_decoder_init(sl_decoder *d, const sl_opts *opts, sl_err *err)
{
	pq_dec *pd = (pq_dec *)d;
	pq_reader *r = calloc(1, sizeof *r);
	if (!(pd->r = r))
		return sl_err_set(err, SL_ENOMEM, "parquet: out of memory");
	r->fd = -1;
	int rc = pq_write_options_check(opts, err); /* a table may name both sides' options */
	if (!rc)
		rc = pq_leaves_make(d->fields, d->nfields, &r->leaves, &r->nleaves, err);
	if (rc)
		return rc;
	if (!(r->cols = calloc((size_t)r->nleaves + 1, sizeof *r->cols)))
		return sl_err_set(err, SL_ENOMEM, "parquet: out of memory");
	return 0;
}

static void free_chunk(pq_rcol *c)
{
	free(c->chunk);
	free(c->dict_buf);
	free(c->dict);
	c->chunk = c->dict_buf = NULL;
	c->dict = NULL;
	c->ndict = 0;
	c->chunk_len = c->chunk_pos = 0;
	c->nlev = c->lpos = c->nval = c->vpos = 0;
	c->left = 0;
}

void pq_file_close(sl_decoder *d)
{
	pq_reader *r = ((pq_dec *)d)->r;
	if (!r)
		return;
	for (int i = 0; i < r->nleaves; i++) {
		pq_rcol *c = &r->cols[i];
		free_chunk(c);
		free(c->page_buf);
		free(c->strbuf);
		free(c->def);
		free(c->u32);
		free(c->i64s);
		free(c->vals);
		const pq_leaf *L = c->L;
		memset(c, 0, sizeof *c);
		c->L = L;
	}
	for (int g = 0; g < r->nrg; g++)
		free(r->rgs[g].cols);
	free(r->rgs);
	free(r->elems);
	free(r->fleaves);
	free(r->footer);
	free(r->name);
	r->rgs = NULL;
	r->elems = NULL;
	r->fleaves = NULL;
	r->footer = NULL;
	r->name = NULL;
	r->nrg = r->nelems = r->nfleaves = 0;
	r->fd = -1;
	r->open = 0;
}

void pq_decoder_deinit(sl_decoder *d)
{
	pq_reader *r = ((pq_dec *)d)->r;
	if (!r)
		return;
	pq_file_close(d);
	free(r->cols);
	pq_leaves_free(r->leaves, r->nleaves);
	free(r);
	((pq_dec *)d)->r = NULL;
}

int pq_file_open(sl_decoder *d, int fd, const char *name, sl_err *err)
{
	pq_reader *r = ((pq_dec *)d)->r;
	struct stat st;
	uint8_t tail[8], head[4];
	pq_file_close(d);
	r->fd = fd;
	if (!(r->name = strdup(name ? name : "?")))
		return sl_err_set(err, SL_ENOMEM, "parquet: out of memory");
	if (fstat(fd, &st))
		return sl_err_set(err, SL_EIO, "parquet file '%s': %s", r->name, strerror(errno));
	r->size = (int64_t)st.st_size;
	if (r->size < 12 || pread_all(fd, head, 4, 0) || pread_all(fd, tail, 8, r->size - 8) ||
	    memcmp(head, "PAR1", 4) || memcmp(tail + 4, "PAR1", 4))
		return bad(r, err, "not a Parquet file (no PAR1 magic at both ends)");
	uint32_t flen;
	memcpy(&flen, tail, 4);
	if ((int64_t)flen > r->size - 12 || flen > PQ_MAX_FOOTER)
		return bad(r, err, "the footer length is larger than the file");
	if (!(r->footer = malloc(flen ? flen : 1)))
		return sl_err_set(err, SL_ENOMEM, "parquet: out of memory");
	if (pread_all(fd, r->footer, flen, r->size - 8 - flen))
		return sl_err_set(err, SL_EIO, "parquet file '%s': read failed", r->name);
	int rc = parse_footer(r, r->footer, flen, err);
	if (rc)
		return rc;
	if (!(r->fleaves = calloc((size_t)r->nelems, sizeof *r->fleaves)))
		return sl_err_set(err, SL_ENOMEM, "parquet: out of memory");
	int at = 0;
	if (walk_elems(r, &at, 0, NULL, 0, 0) || at != r->nelems)
		return bad(r, err, "damaged schema");
	for (int g = 0; g < r->nrg; g++)
		if (r->rgs[g].ncols != r->nfleaves)
			return bad(r, err, "a row group's column count differs from the schema's");
	r->skip = d->skip;
	if ((rc = match_columns(r, err)))
		return rc;
	r->rg = -1;
	r->rg_left = 0;
	r->open = 1;
	return 0;
}

/* ---- pages ---------------------------------------------------------------------------- */

/* Makes room for n levels and n values (typed by the target) in c. */
static int page_room(pq_rcol *c, int64_t n)
{
	if (n <= c->lev_cap)
		return 0;
	size_t vs = c->tphys == SL_PHYS_I128 ? sizeof(sl_i128) : c->tphys == SL_PHYS_STR
	          ? sizeof(sl_str) : 8;
	free(c->def);
	free(c->u32);
	free(c->i64s);
	free(c->vals);
	c->def = malloc((size_t)n);
	c->u32 = malloc((size_t)n * sizeof(uint32_t));
	c->i64s = malloc((size_t)n * sizeof(int64_t));
	c->vals = malloc((size_t)n * vs);
	if (!c->def || !c->u32 || !c->i64s || !c->vals) {
		c->lev_cap = 0;
		return -1;
	}
	c->lev_cap = n;
	return 0;
}

/* Converts one integer of the file into value slot k of the target array. */
static int put_int(pq_rcol *c, void *dst, int64_t k, int64_t x)
{
	switch (c->conv) {
	case CV_UINT:
		if (c->phys == PQ_INT32)
			x = (int64_t)(uint32_t)x;
		else if (x < 0)
			return -1;
		/* fall through */
	case CV_INT:
		if (x < c->lo || x > c->hi)
			return -1;
		((int64_t *)dst)[k] = x;
		return 0;
	case CV_TIME: case CV_TS: {
		int64_t y;
		if (c->div > 1) {
			y = x / c->div - (x % c->div < 0);
		} else if (__builtin_mul_overflow(x, c->mul, &y)) {
			return -1;
		}
		((int64_t *)dst)[k] = y;
		return 0;
	}
	case CV_DEC: {
		sl_i128 v = (sl_i128)x * sl_pow10_i128((int)c->div);
		if (v >= c->dlim || v <= -c->dlim)
			return -1;
		((sl_i128 *)dst)[k] = v;
		return 0;
	}
	case CV_FLOAT:
		((double *)dst)[k] = (double)x;
		return 0;
	default:
		return -1;
	}
}

/* A big-endian two's complement decimal of n bytes. */
static int put_dec_bytes(pq_rcol *c, void *dst, int64_t k, const uint8_t *p, size_t n)
{
	if (n > 16 || n == 0)
		return n == 0 ? (((sl_i128 *)dst)[k] = 0, 0) : -1;
	unsigned __int128 u = (p[0] & 0x80) ? ~(unsigned __int128)0 : 0;
	for (size_t i = 0; i < n; i++)
		u = u << 8 | p[i];
	sl_i128 v = (sl_i128)u;
	if (c->div > 0)
		v *= sl_pow10_i128((int)c->div);
	if (v >= c->dlim || v <= -c->dlim)
		return -1;
	((sl_i128 *)dst)[k] = v;
	return 0;
}

/* Converts one byte-array value (pointing into buffers that outlive the
 * page's use). */
static int put_bytes(pq_rcol *c, void *dst, int64_t k, const uint8_t *p, size_t n)
{
	if (c->conv == CV_DEC_BYTES)
		return put_dec_bytes(c, dst, k, p, n);
	((sl_str *)dst)[k].ptr = (const char *)p;
	((sl_str *)dst)[k].len = (int64_t)n;
	return 0;
}

/*
 * PLAIN: n values from [p, p+len) into dst[0..n) (the target's
 * representation).  Byte arrays point into p.  0, or -1 when short or a
 * value does not fit the column's type.
 */
static int decode_plain(pq_rcol *c, const uint8_t *p, size_t len, int64_t n, void *dst)
{
	const uint8_t *e = p + len;
	switch (c->phys) {
	case PQ_BOOLEAN:
		if ((uint64_t)n > (uint64_t)len * 8)
			return -1;
		for (int64_t k = 0; k < n; k++)
			((int64_t *)dst)[k] = (p[k >> 3] >> (k & 7)) & 1;
		return 0;
	case PQ_INT32: case PQ_INT64: {
		int w = c->phys == PQ_INT32 ? 4 : 8;
		if ((uint64_t)n * (uint64_t)w > len)
			return -1;
		for (int64_t k = 0; k < n; k++, p += w) {
			int64_t x;
			if (w == 4) {
				int32_t y;
				memcpy(&y, p, 4);
				x = y;
			} else {
				memcpy(&x, p, 8);
			}
			if (put_int(c, dst, k, x))
				return -1;
		}
		return 0;
	}
	case PQ_FLOAT: case PQ_DOUBLE: {
		int w = c->phys == PQ_FLOAT ? 4 : 8;
		if ((uint64_t)n * (uint64_t)w > len)
			return -1;
		for (int64_t k = 0; k < n; k++, p += w) {
			if (w == 4) {
				float f;
				memcpy(&f, p, 4);
				((double *)dst)[k] = f;
			} else {
				memcpy(&((double *)dst)[k], p, 8);
			}
		}
		return 0;
	}
	case PQ_INT96:
		if ((uint64_t)n * 12 > len)
			return -1;
		for (int64_t k = 0; k < n; k++, p += 12) {
			int64_t nanos;
			int32_t jd;
			memcpy(&nanos, p, 8);
			memcpy(&jd, p + 8, 4);
			((int64_t *)dst)[k] = ((int64_t)jd - 2440588) * 86400000000LL + nanos / 1000;
		}
		return 0;
	case PQ_FIXED:
		if (c->type_len <= 0 || (uint64_t)n * (uint64_t)c->type_len > len)
			return -1;
		for (int64_t k = 0; k < n; k++, p += c->type_len)
			if (put_bytes(c, dst, k, p, (size_t)c->type_len))
				return -1;
		return 0;
	case PQ_BYTE_ARRAY:
		for (int64_t k = 0; k < n; k++) {
			uint32_t l;
			if (e - p < 4)
				return -1;
			memcpy(&l, p, 4);
			p += 4;
			if (l > (uint64_t)(e - p) || put_bytes(c, dst, k, p, l))
				return -1;
			p += l;
		}
		return 0;
	default:
		return -1;
	}
}

static size_t value_size(int tphys)
{
	return tphys == SL_PHYS_I128 ? sizeof(sl_i128) : tphys == SL_PHYS_STR ? sizeof(sl_str) : 8;
}

/* Makes c->strbuf at least n bytes. */
static int strbuf_room(pq_rcol *c, size_t n)
{
	if (n <= c->strbuf_cap)
		return 0;
	uint8_t *p = realloc(c->strbuf, n);
	if (!p)
		return -1;
	c->strbuf = p;
	c->strbuf_cap = n;
	return 0;
}

/* The non-dictionary encodings beyond PLAIN, into dst[0..n). */
static int decode_other(pq_rcol *c, int enc, const uint8_t *p, size_t len, int64_t n,
                        void *dst)
{
	size_t used = 0;
	if (enc == PQ_RLE && c->phys == PQ_BOOLEAN) {
		uint32_t l;
		if (len < 4)
			return -1;
		memcpy(&l, p, 4);
		if (l > len - 4 || pq_rle_decode(p + 4, l, 1, c->u32, n, 1))
			return -1;
		for (int64_t k = 0; k < n; k++)
			((int64_t *)dst)[k] = c->u32[k];
		return 0;
	}
	if (enc == PQ_DELTA_BINARY_PACKED && (c->phys == PQ_INT32 || c->phys == PQ_INT64)) {
		if (pq_delta_decode(p, len, c->i64s, n, &used))
			return -1;
		for (int64_t k = 0; k < n; k++) {
			int64_t x = c->phys == PQ_INT32 ? (int64_t)(int32_t)c->i64s[k] : c->i64s[k];
			if (put_int(c, dst, k, x))
				return -1;
		}
		return 0;
	}
	if (enc == PQ_DELTA_LENGTH_BYTE_ARRAY && c->phys == PQ_BYTE_ARRAY) {
		if (pq_delta_decode(p, len, c->i64s, n, &used))
			return -1;
		const uint8_t *q = p + used, *e = p + len;
		for (int64_t k = 0; k < n; k++) {
			int64_t l = c->i64s[k];
			if (l < 0 || l > e - q || put_bytes(c, dst, k, q, (size_t)l))
				return -1;
			q += l;
		}
		return 0;
	}
	if (enc == PQ_DELTA_BYTE_ARRAY && (c->phys == PQ_BYTE_ARRAY || c->phys == PQ_FIXED)) {
		size_t u2 = 0;
		int64_t *pre = c->i64s;
		/* prefixes into i64s, suffix lengths into a second pass over u32's room */
		if (pq_delta_decode(p, len, pre, n, &used))
			return -1;
		int64_t *suf = malloc((size_t)(n ? n : 1) * sizeof *suf);
		if (!suf)
			return -1;
		int rc = -1;
		if (pq_delta_decode(p + used, len - used, suf, n, &u2))
			goto out;
		const uint8_t *q = p + used + u2, *e = p + len;
		size_t total = 0, prev_len = 0;
		for (int64_t k = 0; k < n; k++) {
			if (pre[k] < 0 || suf[k] < 0 || (size_t)pre[k] > prev_len || suf[k] > e - q)
				goto out;
			prev_len = (size_t)(pre[k] + suf[k]);
			total += prev_len;
			q += suf[k];
		}
		if (strbuf_room(c, total + 1))
			goto out;
		q = p + used + u2;
		uint8_t *o = c->strbuf, *prev = NULL;
		for (int64_t k = 0; k < n; k++) {
			if (pre[k])
				memcpy(o, prev, (size_t)pre[k]);
			memcpy(o + pre[k], q, (size_t)suf[k]);
			q += suf[k];
			size_t l = (size_t)(pre[k] + suf[k]);
			if (put_bytes(c, dst, k, o, l))
				goto out;
			prev = o;
			o += l;
		}
		rc = 0;
out:
		free(suf);
		return rc;
	}
	if (enc == PQ_BYTE_STREAM_SPLIT) {
		int w = c->phys == PQ_FLOAT || c->phys == PQ_INT32 ? 4
		      : c->phys == PQ_DOUBLE || c->phys == PQ_INT64 ? 8
		      : c->phys == PQ_FIXED ? c->type_len : 0;
		if (w <= 0 || (uint64_t)n * (uint64_t)w > len || strbuf_room(c, (size_t)(n * w) + 1))
			return -1;
		for (int64_t k = 0; k < n; k++)
			for (int b = 0; b < w; b++)
				c->strbuf[k * w + b] = p[(int64_t)b * n + k];
		return decode_plain(c, c->strbuf, (size_t)(n * w), n, dst);
	}
	return -1;
}

/* Reads the dictionary page's entries into c->dict; takes buf over, also
 * on failure. */
static int load_dict(pq_reader *r, pq_rcol *c, uint8_t *buf, size_t len, int64_t n,
                     sl_err *err)
{
	if (n < 0 || n > pq_read_value_cap) {
		free(buf); /* not taken over (fuzz_parquet found the leak) */
		return col_bad(r, c, err, "damaged dictionary page");
	}
	free(c->dict_buf);
	free(c->dict);
	c->dict_buf = buf;
	c->dict = malloc((size_t)(n ? n : 1) * value_size(c->tphys));
	if (!c->dict)
		return sl_err_set(err, SL_ENOMEM, "parquet: out of memory");
	c->ndict = n;
	if (decode_plain(c, buf, len, n, c->dict))
		return col_bad(r, c, err, "damaged dictionary page or a value out of the column's "
		               "range");
	return 0;
}

/* The data page's values (after its levels): nval values of encoding enc. */
static int page_values(pq_reader *r, pq_rcol *c, int enc, const uint8_t *p, size_t len,
                       sl_err *err)
{
	int64_t n = c->nval;
	if (enc == PQ_PLAIN_DICTIONARY || enc == PQ_RLE_DICTIONARY) {
		if (!c->dict)
			return col_bad(r, c, err, "a dictionary-encoded page without a dictionary");
		if (n > 0 && (len < 1 || pq_rle_decode(p + 1, len - 1, p[0], c->u32, n,
		                                      c->ndict ? (uint32_t)(c->ndict - 1) : 0) ||
		              c->ndict == 0))
			return col_bad(r, c, err, "damaged dictionary indices");
		size_t vs = value_size(c->tphys);
		for (int64_t k = 0; k < n; k++)
			memcpy((char *)c->vals + k * (int64_t)vs, (char *)c->dict + (int64_t)c->u32[k] * (int64_t)vs, vs);
		return 0;
	}
	int rc = enc == PQ_PLAIN ? decode_plain(c, p, len, n, c->vals)
	                         : decode_other(c, enc, p, len, n, c->vals);
	if (rc)
		return col_bad(r, c, err, enc == PQ_PLAIN || enc == PQ_RLE ||
		               enc == PQ_DELTA_BINARY_PACKED || enc == PQ_DELTA_LENGTH_BYTE_ARRAY ||
		               enc == PQ_DELTA_BYTE_ARRAY || enc == PQ_BYTE_STREAM_SPLIT
		               ? "damaged page or a value out of the column's range"
		               : "a page in an encoding sluice does not read");
	return 0;
}

/* The page header at the chunk's position. */
typedef struct pq_ph {
	int type;
	int64_t usize, csize, nvals, nnulls, dlen, rlen;
	int enc, compressed;
} pq_ph;

static int parse_page_header(pq_tr *t, pq_ph *h)
{
	int16_t last = 0, l2;
	int ty, id, ty2, id2;
	memset(h, 0, sizeof *h);
	h->type = -1;
	h->compressed = 1;
	while ((id = pq_tr_field(t, &last, &ty))) {
		if (id == 1)
			h->type = (int)pq_tr_int_in(t, ty, 0, 10);
		else if (id == 2)
			h->usize = pq_tr_int_in(t, ty, 0, PQ_MAX_PAGE);
		else if (id == 3)
			h->csize = pq_tr_int_in(t, ty, 0, PQ_MAX_PAGE);
		else if ((id == 5 || id == 7 || id == 8) && ty == TC_STRUCT) {
			l2 = 0;
			while ((id2 = pq_tr_field(t, &l2, &ty2))) {
				if (id2 == 1)
					h->nvals = pq_tr_int_in(t, ty2, 0, INT32_MAX);
				else if (id == 8 && id2 == 2)
					h->nnulls = pq_tr_int_in(t, ty2, 0, INT32_MAX);
				else if ((id != 8 && id2 == 2) || (id == 8 && id2 == 4))
					h->enc = (int)pq_tr_int_in(t, ty2, 0, 100);
				else if (id == 8 && id2 == 5)
					h->dlen = pq_tr_int_in(t, ty2, 0, PQ_MAX_PAGE);
				else if (id == 8 && id2 == 6)
					h->rlen = pq_tr_int_in(t, ty2, 0, PQ_MAX_PAGE);
				else if (id == 8 && id2 == 7 && (ty2 == TC_TRUE || ty2 == TC_FALSE))
					h->compressed = ty2 == TC_TRUE;
				else
					pq_tr_skip(t, ty2);
			}
		} else
			pq_tr_skip(t, ty);
	}
	return t->err || h->type < 0 ? -1 : 0;
}

/* Decompresses `csize` bytes at p into a new buffer of `usize` bytes. */
static uint8_t *inflate_page(pq_reader *r, pq_rcol *c, int codec, const uint8_t *p,
                             int64_t csize, int64_t usize, sl_err *err)
{
	const char *why;
	uint8_t *buf = malloc((size_t)(usize ? usize : 1));
	if (!buf) {
		sl_err_set(err, SL_ENOMEM, "parquet: out of memory");
		return NULL;
	}
	if (pq_decompress(codec, p, (size_t)csize, buf, (size_t)usize, &why)) {
		free(buf);
		char m[160];
		snprintf(m, sizeof m, "%s page: %s", pq_codec_name(codec), why);
		col_bad(r, c, err, m);
		return NULL;
	}
	return buf;
}

/* Decodes the next data page of c's chunk (dictionary pages on the way
 * are loaded).  0, or an error. */
static int next_page(pq_reader *r, pq_rcol *c, sl_err *err)
{
	for (;;) {
		if (c->chunk_pos >= c->chunk_len)
			return col_bad(r, c, err, "the column chunk ends before the row group's rows");
		pq_tr t = {c->chunk + c->chunk_pos, c->chunk + c->chunk_len, 0, 0};
		pq_ph h;
		if (parse_page_header(&t, &h))
			return col_bad(r, c, err, "damaged page header");
		const uint8_t *p = t.p;
		if (h.csize > c->chunk + c->chunk_len - p)
			return col_bad(r, c, err, "a page is larger than its column chunk");
		c->chunk_pos = (size_t)(p + h.csize - c->chunk);
		if (h.type == PQ_DICTIONARY_PAGE) {
			uint8_t *buf = inflate_page(r, c, c->codec, p, h.csize, h.usize, err);
			if (!buf)
				return SL_EINPUT;
			if (load_dict(r, c, buf, (size_t)h.usize, h.nvals, err))
				return SL_EINPUT;
			continue;
		}
		if (h.type != PQ_DATA_PAGE && h.type != PQ_DATA_PAGE_V2)
			continue; /* index pages */
		int64_t n = h.nvals;
		if (n <= 0 || n > pq_read_value_cap || n > c->left)
			return col_bad(r, c, err, "a data page's value count is out of range");
		if (page_room(c, n))
			return sl_err_set(err, SL_ENOMEM, "parquet: out of memory");
		const uint8_t *lv, *vp;
		size_t llen, vlen;
		free(c->page_buf);
		c->page_buf = NULL;
		if (h.type == PQ_DATA_PAGE) {
			if (!(c->page_buf = inflate_page(r, c, c->codec, p, h.csize, h.usize, err)))
				return SL_EINPUT;
			lv = c->page_buf;
			llen = (size_t)h.usize;
			if (c->F->max_def > 0) {
				uint32_t l;
				if (llen < 4 || (memcpy(&l, lv, 4), l > llen - 4))
					return col_bad(r, c, err, "damaged definition levels");
				vp = lv + 4 + l;
				vlen = llen - 4 - l;
				lv += 4;
				llen = l;
			} else {
				vp = lv;
				vlen = llen;
			}
		} else {
			if (h.rlen + h.dlen > h.csize || h.rlen + h.dlen > h.usize || h.rlen != 0)
				return col_bad(r, c, err, "damaged data page v2 levels");
			lv = p + h.rlen;
			llen = (size_t)h.dlen;
			const uint8_t *cv = p + h.rlen + h.dlen;
			int64_t cs = h.csize - h.rlen - h.dlen, us = h.usize - h.rlen - h.dlen;
			if (!(c->page_buf = inflate_page(r, c, h.compressed ? c->codec : PQ_UNCOMPRESSED,
			                                 cv, cs, us, err)))
				return SL_EINPUT;
			vp = c->page_buf;
			vlen = (size_t)us;
		}
		int64_t present = n;
		if (c->F->max_def > 0) {
			int bw = pq_bit_width((uint64_t)c->F->max_def);
			if (pq_rle_decode(lv, llen, bw, c->u32, n, (uint32_t)c->F->max_def))
				return col_bad(r, c, err, "damaged definition levels");
			present = 0;
			for (int64_t k = 0; k < n; k++) {
				c->def[k] = (uint8_t)c->u32[k];
				present += c->def[k] == c->F->max_def;
			}
		} else {
			memset(c->def, 0, (size_t)n);
		}
		c->nlev = n;
		c->lpos = 0;
		c->nval = present;
		c->vpos = 0;
		c->left -= n;
		return page_values(r, c, h.enc, vp, vlen, err);
	}
}

/* Reads column c's chunk of row group g. */
static int load_chunk(pq_reader *r, pq_rcol *c, int g, sl_err *err)
{
	const pq_cmeta *m = &r->rgs[g].cols[c->fleaf];
	free_chunk(c);
	int64_t start = m->dict_off > 0 && m->dict_off < m->data_off ? m->dict_off : m->data_off;
	if (m->type != c->phys)
		return col_bad(r, c, err, "the column chunk's type differs from the schema's");
	if (start < 4 || m->comp <= 0 || m->comp > r->size - 8 - start)
		return col_bad(r, c, err, "the column chunk lies outside the file");
	if (!(c->chunk = malloc((size_t)m->comp)))
		return sl_err_set(err, SL_ENOMEM, "parquet: out of memory");
	if (pread_all(r->fd, c->chunk, (size_t)m->comp, start))
		return sl_err_set(err, SL_EIO, "parquet file '%s': read failed", r->name);
	c->chunk_len = (size_t)m->comp;
	c->codec = m->codec;
	c->left = r->rgs[g].num_rows;
	return 0;
}

static int next_row_group(pq_reader *r, sl_err *err)
{
	while (r->rg + 1 < r->nrg) {
		r->rg++;
		r->rg_left = r->rgs[r->rg].num_rows;
		if (r->rg_left == 0)
			continue;
		for (int i = 0; i < r->nleaves; i++)
			if (r->cols[i].fleaf >= 0 && load_chunk(r, &r->cols[i], r->rg, err))
				return SL_EINPUT;
		return 0;
	}
	return SL_EEOF;
}

/* ---- rows ------------------------------------------------------------------------------ */

/* Fills rows [first, first + n) of out from column c (out NULL: skips). */
static int fill(pq_reader *r, pq_rcol *c, sl_batch *out, int first, int64_t n, sl_err *err)
{
	const pq_leaf *L = c->L;
	for (int64_t i = 0; i < n; i++) {
		if (c->lpos == c->nlev) {
			int rc = next_page(r, c, err);
			if (rc)
				return rc;
		}
		int d = c->def[c->lpos++];
		int present = d == c->F->max_def;
		int64_t v = present ? c->vpos++ : -1;
		if (!out)
			continue;
		int row = first + (int)i;
		sl_col *col = NULL;
		for (int k = 0; k < L->path_len; k++) {
			col = k == 0 ? &out->cols[L->idx[0]] : &col->child[L->idx[k]];
			if (d < c->F->def_at[k]) {
				col = NULL;
				break;
			}
			col->null[row] = 0;
		}
		if (!col)
			continue;
		if (!present) { /* the leaf itself is NULL */
			col->null[row] = 1;
			continue;
		}
		switch (c->tphys) {
		case SL_PHYS_F64:
			col->v.f64[row] = ((double *)c->vals)[v];
			if (L->f->type.id == SL_T_FLOAT)
				col->v.f64[row] = (float)col->v.f64[row];
			break;
		case SL_PHYS_I128:
			col->v.i128[row] = ((sl_i128 *)c->vals)[v];
			break;
		case SL_PHYS_STR: {
			const sl_str *s = &((sl_str *)c->vals)[v];
			if (sl_col_set_str(out, col, row, s->ptr, s->len))
				return sl_err_set(err, SL_ENOMEM, "parquet: out of memory");
			break;
		}
		default:
			col->v.i64[row] = ((int64_t *)c->vals)[v];
			break;
		}
	}
	return 0;
}

int pq_file_read(sl_decoder *d, sl_batch *out, sl_err *err)
{
	pq_reader *r = ((pq_dec *)d)->r;
	if (!r->open)
		return sl_err_set(err, SL_EINVAL, "parquet: no file is open");
	while (r->rg_left == 0) {
		int rc = next_row_group(r, err);
		if (rc)
			return rc;
	}
	int64_t n = out->cap - out->nrows;
	if (n > r->rg_left)
		n = r->rg_left;
	if (n <= 0)
		return 0;
	int first = out->nrows;
	for (int64_t i = 0; i < n; i++)
		(void)sl_batch_add_row(out, SL_INSERT, SL_WM_MIN);
	for (int i = 0; i < r->nleaves; i++) {
		if (r->cols[i].fleaf < 0)
			continue;
		int rc = fill(r, &r->cols[i], out, first, n, err);
		if (rc) {
			out->nrows = first;
			return rc;
		}
	}
	r->rg_left -= n;
	return (int)n;
}

/* file_block_end: the last read ended its row group. */
int pq_file_block_end(const sl_decoder *d)
{
	const pq_reader *r = ((const pq_dec *)d)->r;
	return r->open && r->rg_left == 0;
}

int64_t pq_file_rows(const sl_decoder *d)
{
	const pq_reader *r = ((const pq_dec *)d)->r;
	return r->open ? r->num_rows : -1;
}

int pq_file_skip(sl_decoder *d, int64_t n, sl_err *err)
{
	pq_reader *r = ((pq_dec *)d)->r;
	while (n > 0) {
		if (r->rg_left == 0) {
			/* whole row groups are passed over without reading them */
			while (r->rg + 1 < r->nrg && r->rgs[r->rg + 1].num_rows <= n) {
				r->rg++;
				n -= r->rgs[r->rg].num_rows;
			}
			if (n == 0)
				return 0;
			int rc = next_row_group(r, err);
			if (rc == SL_EEOF)
				return bad(r, err, "the file has fewer rows than the checkpointed position");
			if (rc)
				return rc;
		}
		int64_t k = n < r->rg_left ? n : r->rg_left;
		for (int i = 0; i < r->nleaves; i++) {
			if (r->cols[i].fleaf < 0)
				continue;
			int rc = fill(r, &r->cols[i], NULL, 0, k, err);
			if (rc)
				return rc;
		}
		r->rg_left -= k;
		n -= k;
	}
	return 0;
}
