/*
 * fmt_parquet.c - the 'parquet' format (docs/parquet.md): its method
 * table, and how a sluice schema is laid out as a Parquet schema, shared by
 * the writer (parquet_write.c) and the reader (parquet_read.c).
 *
 * Parquet is a file format, not a line format: a file has a header, row
 * groups of column chunks and a footer, so the format implements the
 * file_* hooks of format.h (the filesystem connector drives them per part
 * file and per input file) and its per-record decode refuses to run.
 *
 * The layout of each sluice type (Flink's mapping where Flink has one, the
 * specification's LogicalTypes.md for the annotations):
 *
 *   BOOLEAN                  BOOLEAN
 *   TINYINT, SMALLINT        INT32, INTEGER(8|16, signed), INT_8|INT_16
 *   INT / BIGINT             INT32 / INT64
 *   FLOAT / DOUBLE           FLOAT / DOUBLE
 *   DECIMAL(p,s)             INT32 (p <= 9), INT64 (p <= 18), else
 *                            FIXED_LEN_BYTE_ARRAY of the fewest bytes for p
 *                            (big-endian two's complement); DECIMAL(p,s)
 *   CHAR, VARCHAR, STRING    BYTE_ARRAY, STRING / UTF8
 *   BINARY, VARBINARY, BYTES BYTE_ARRAY
 *   DATE                     INT32, DATE
 *   TIME(p)                  INT32 TIME(MILLIS) for p <= 3, else INT64
 *                            TIME(MICROS); isAdjustedToUTC = false
 *   TIMESTAMP(p)             INT64 TIMESTAMP(MILLIS for p <= 3, else
 *                            MICROS), isAdjustedToUTC = false
 *   TIMESTAMP_LTZ(p)         the same with isAdjustedToUTC = true (and the
 *                            TIMESTAMP_MILLIS|MICROS converted type)
 *   ROW<...>                 a group of its fields
 *
 * A column is OPTIONAL unless declared NOT NULL (REQUIRED).  INTERVAL
 * types have no Parquet form here and are refused naming the column.
 */
#include "fmt_builtin.h"
#include "parquet.h"

#include <stdlib.h>
#include <string.h>

#include "sluice.h"

int pq_decimal_bytes(int p)
{
	unsigned __int128 lim = 1;
	for (int i = 0; i < p; i++)
		lim *= 10;
	for (int n = 1; n < 16; n++)
		if (lim <= (unsigned __int128)1 << (8 * n - 1))
			return n;
	return 16;
}

/* The physical type and unit of a non-ROW type; -1 when it has none. */
static int leaf_phys(sl_type t, int *type_len, int *unit)
{
	*type_len = 0;
	*unit = 0;
	switch ((sl_type_id)t.id) {
	case SL_T_BOOLEAN:
		return PQ_BOOLEAN;
	case SL_T_TINYINT: case SL_T_SMALLINT: case SL_T_INT: case SL_T_DATE:
		return PQ_INT32;
	case SL_T_BIGINT:
		return PQ_INT64;
	case SL_T_FLOAT:
		return PQ_FLOAT;
	case SL_T_DOUBLE:
		return PQ_DOUBLE;
	case SL_T_DECIMAL:
		if (t.precision <= 9)
			return PQ_INT32;
		if (t.precision <= 18)
			return PQ_INT64;
		*type_len = pq_decimal_bytes(t.precision);
		return PQ_FIXED;
	case SL_T_CHAR: case SL_T_VARCHAR: case SL_T_BINARY: case SL_T_VARBINARY:
		return PQ_BYTE_ARRAY;
	case SL_T_TIME:
		*unit = t.precision <= 3 ? PQ_UNIT_MILLIS : PQ_UNIT_MICROS;
		return *unit == PQ_UNIT_MILLIS ? PQ_INT32 : PQ_INT64;
	case SL_T_TIMESTAMP: case SL_T_TIMESTAMP_LTZ:
		*unit = t.precision <= 3 ? PQ_UNIT_MILLIS : PQ_UNIT_MICROS;
		return PQ_INT64;
	default:
		return -1;
	}
}

typedef struct leaf_walk {
	pq_leaf *v;
	int n, cap;
	const char *path[8];
	uint8_t opt[8];
	int idx[8];
	sl_err *err;
} leaf_walk;

static int walk_field(leaf_walk *w, const sl_field *f, int depth, int top)
{
	char tb[64];
	if (depth >= 8)
		return sl_err_set(w->err, SL_ENOTSUP, "parquet: column '%s' is nested more than 8 "
		                  "levels deep", f->name);
	w->path[depth] = f->name;
	w->opt[depth] = !f->type.notnull;
	if (f->type.id == SL_T_ROW) {
		const sl_row_type *rt = f->type.row;
		if (!rt || rt->nfields == 0)
			return sl_err_set(w->err, SL_ENOTSUP, "parquet: column '%s': an empty ROW has "
			                  "no Parquet form", f->name);
		for (int i = 0; i < rt->nfields; i++) {
			w->idx[depth + 1] = i;
			int rc = walk_field(w, &rt->fields[i], depth + 1, top);
			if (rc)
				return rc;
		}
		return 0;
	}
	pq_leaf L;
	memset(&L, 0, sizeof L);
	L.f = f;
	L.phys = leaf_phys(f->type, &L.type_len, &L.unit);
	if (L.phys < 0)
		return sl_err_set(w->err, SL_ENOTSUP, "parquet: column '%s' of type %s has no "
		                  "Parquet form in sluice (use BIGINT or STRING)", f->name,
		                  sl_type_format(f->type, tb, sizeof tb));
	L.path_len = depth + 1;
	L.top = top;
	for (int k = 0; k <= depth; k++) {
		L.path[k] = w->path[k];
		L.opt[k] = w->opt[k];
		L.idx[k] = w->idx[k];
		L.max_def += w->opt[k];
	}
	if (w->n == w->cap) {
		int cap = w->cap ? w->cap * 2 : 16;
		pq_leaf *nv = realloc(w->v, (size_t)cap * sizeof *nv);
		if (!nv)
			return sl_err_set(w->err, SL_ENOMEM, "parquet: out of memory");
		w->v = nv;
		w->cap = cap;
	}
	w->v[w->n++] = L;
	return 0;
}

int pq_leaves_make(const sl_field *fields, int nfields, pq_leaf **leaves, int *nleaves,
                   sl_err *err)
{
	leaf_walk w;
	memset(&w, 0, sizeof w);
	w.err = err;
	for (int i = 0; i < nfields; i++) {
		w.idx[0] = i;
		int rc = walk_field(&w, &fields[i], 0, i);
		if (rc) {
			free(w.v);
			return rc;
		}
	}
	*leaves = w.v;
	*nleaves = w.n;
	return 0;
}

void pq_leaves_free(pq_leaf *leaves, int n)
{
	(void)n;
	free(leaves);
}

/* The logical type annotation (a LogicalType union field `id`) and the
 * converted type of a leaf's type. */
static void write_annotation(pq_tw *w, sl_type t, int phys, int unit, int field_id)
{
	int ct = -1;
	switch ((sl_type_id)t.id) {
	case SL_T_TINYINT: case SL_T_SMALLINT:
		ct = t.id == SL_T_TINYINT ? PQ_CT_INT_8 : PQ_CT_INT_16;
		break;
	case SL_T_DECIMAL:
		ct = PQ_CT_DECIMAL;
		break;
	case SL_T_CHAR: case SL_T_VARCHAR:
		ct = PQ_CT_UTF8;
		break;
	case SL_T_DATE:
		ct = PQ_CT_DATE;
		break;
	case SL_T_TIMESTAMP_LTZ:
		ct = unit == PQ_UNIT_MILLIS ? PQ_CT_TIMESTAMP_MILLIS : PQ_CT_TIMESTAMP_MICROS;
		break;
	default:
		break;
	}
	if (ct >= 0)
		pq_tw_i32(w, 6, ct);
	if (t.id == SL_T_DECIMAL) {
		pq_tw_i32(w, 7, t.scale);
		pq_tw_i32(w, 8, t.precision);
	}
	if (field_id > 0)
		pq_tw_i32(w, 9, field_id);
	int lt = 0;
	switch ((sl_type_id)t.id) {
	case SL_T_TINYINT: case SL_T_SMALLINT: lt = PQ_LT_INTEGER; break;
	case SL_T_DECIMAL: lt = PQ_LT_DECIMAL; break;
	case SL_T_CHAR: case SL_T_VARCHAR: lt = PQ_LT_STRING; break;
	case SL_T_DATE: lt = PQ_LT_DATE; break;
	case SL_T_TIME: lt = PQ_LT_TIME; break;
	case SL_T_TIMESTAMP: case SL_T_TIMESTAMP_LTZ: lt = PQ_LT_TIMESTAMP; break;
	default: break;
	}
	if (!lt)
		return;
	pq_tw_struct(w, 10);      /* logicalType */
	pq_tw_struct(w, lt);      /* the union's member */
	if (lt == PQ_LT_INTEGER) {
		pq_tw_i8(w, 1, t.id == SL_T_TINYINT ? 8 : 16);
		pq_tw_bool(w, 2, 1);
	} else if (lt == PQ_LT_DECIMAL) {
		pq_tw_i32(w, 1, t.scale);
		pq_tw_i32(w, 2, t.precision);
	} else if (lt == PQ_LT_TIME || lt == PQ_LT_TIMESTAMP) {
		pq_tw_bool(w, 1, t.id == SL_T_TIMESTAMP_LTZ);
		pq_tw_struct(w, 2); /* unit: TimeUnit union */
		pq_tw_struct(w, unit);
		pq_tw_end(w);
		pq_tw_end(w);
	}
	pq_tw_end(w);
	pq_tw_end(w);
	(void)phys;
}

static int count_elements(const sl_field *f)
{
	if (f->type.id != SL_T_ROW)
		return 1;
	int n = 1;
	for (int i = 0; i < f->type.row->nfields; i++)
		n += count_elements(&f->type.row->fields[i]);
	return n;
}

/* field_id > 0: the element's field_id (written between precision and
 * logicalType, the Thrift field order). */
static void write_element(pq_tw *w, const sl_field *f, int field_id)
{
	int type_len, unit;
	pq_tw_elem_struct(w);
	if (f->type.id == SL_T_ROW) {
		pq_tw_i32(w, 3, f->type.notnull ? PQ_REQUIRED : PQ_OPTIONAL);
		pq_tw_bin(w, 4, f->name, strlen(f->name));
		pq_tw_i32(w, 5, f->type.row->nfields);
		if (field_id > 0)
			pq_tw_i32(w, 9, field_id);
		pq_tw_end(w);
		for (int i = 0; i < f->type.row->nfields; i++)
			write_element(w, &f->type.row->fields[i], 0);
		return;
	}
	int phys = leaf_phys(f->type, &type_len, &unit);
	pq_tw_i32(w, 1, phys);
	if (phys == PQ_FIXED)
		pq_tw_i32(w, 2, type_len);
	pq_tw_i32(w, 3, f->type.notnull ? PQ_REQUIRED : PQ_OPTIONAL);
	pq_tw_bin(w, 4, f->name, strlen(f->name));
	write_annotation(w, f->type, phys, unit, field_id);
	pq_tw_end(w);
}

void pq_write_schema(pq_tw *w, int id, const sl_field *fields, int nfields, const int *field_ids)
{
	int n = 1;
	for (int i = 0; i < nfields; i++)
		n += count_elements(&fields[i]);
	pq_tw_list(w, id, TC_STRUCT, n);
	pq_tw_elem_struct(w); /* the root */
	pq_tw_bin(w, 4, "schema", 6);
	pq_tw_i32(w, 5, nfields);
	pq_tw_end(w);
	for (int i = 0; i < nfields; i++)
		write_element(w, &fields[i], field_ids ? field_ids[i] : 0);
}

/* decode: a Parquet file is not a sequence of records. */
static int pq_decode(sl_decoder *d, const char *rec, size_t len, sl_batch *out, int64_t wm,
                     sl_err *err)
{
	return sl_err_set(err, SL_ENOTSUP, "format 'parquet' reads whole files: only the "
	                  "filesystem connector can read it");
}

const sl_format_vtab sl__fmt_parquet = {
	.name = "parquet",
	.decoder_size = sizeof(pq_dec),
	.encoder_size = sizeof(pq_enc),
	.changelog = 0,
	.decoder_init = pq_decoder_init,
	.decode = pq_decode,
	.decoder_deinit = pq_decoder_deinit,
	.encoder_init = pq_encoder_init,
	.encode = pq_encode,
	.encoder_deinit = pq_encoder_deinit,
	.file_begin = pq_file_begin,
	.file_end = pq_file_end,
	.file_buffered = pq_file_buffered,
	.file_open = pq_file_open,
	.file_read = pq_file_read,
	.file_skip = pq_file_skip,
	.file_block_end = pq_file_block_end,
	.file_close = pq_file_close,
};
