/*
 * conn_iceberg_avro.c - the Iceberg sink's Avro files (docs/iceberg.md):
 * manifests (one manifest_entry per data file a snapshot adds) and
 * manifest lists (one manifest_file record per manifest of a snapshot),
 * with the Avro schemas, field ids and header metadata of the Iceberg
 * table spec, format version 2 ("Manifests", "Manifest Lists"), encoded
 * with sluice's own Avro writer (format/avro.h).
 *
 * A new snapshot's manifest list holds its new manifest and every
 * manifest of its parent (a fast append), so the sink reads back the
 * parent's manifest list: only one written by sluice (the same schema,
 * compared byte for byte with the file's avro.schema), whose records it
 * walks to find their ends and copies unchanged; another writer's list is
 * refused naming the file.  Data files and delete files (format v2
 * row-level deletes: position deletes, and equality deletes by the
 * table's identifier fields) go into separate manifests (content "data"
 * and "deletes").  Optional statistics written for data files: value and
 * null counts and lower and upper bounds (conn_iceberg_stats.c) per
 * column; column sizes, NaN counts and partition summaries are left null
 * (the spec allows it).
 *
 * For rewrite-data-files (conn_iceberg_rewrite.c) the manifests a snapshot
 * lists are read back too (sl__ice_live_entries: only manifests with the
 * schema sluice writes for the table), and a replace's manifests of
 * DELETED entries written (sl__ice_manifest_gone: each entry's data_file
 * record copied, its sequence numbers made explicit).
 */
#include "conn_iceberg_int.h"
#include "format/avro.h"
#include "sluice.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OPT(name, type, id) \
	"{\"name\":\"" name "\",\"type\":[\"null\"," type "],\"default\":null,\"field-id\":" #id "}"
#define INTMAP(name, id, k, v, vt) \
	OPT(name, "{\"type\":\"array\",\"logicalType\":\"map\",\"items\":{\"type\":\"record\"," \
	    "\"name\":\"k" #k "_v" #v "\",\"fields\":[{\"name\":\"key\",\"type\":\"int\"," \
	    "\"field-id\":" #k "},{\"name\":\"value\",\"type\":" vt ",\"field-id\":" #v "}]}}", id)

/* The manifest_entry schema, split around the partition record's fields. */
static const char entry_head[] =
	"{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":["
	"{\"name\":\"status\",\"type\":\"int\",\"field-id\":0},"
	OPT("snapshot_id", "\"long\"", 1) ","
	OPT("sequence_number", "\"long\"", 3) ","
	OPT("file_sequence_number", "\"long\"", 4) ","
	"{\"name\":\"data_file\",\"type\":{\"type\":\"record\",\"name\":\"r2\",\"fields\":["
	"{\"name\":\"content\",\"type\":\"int\",\"field-id\":134},"
	"{\"name\":\"file_path\",\"type\":\"string\",\"field-id\":100},"
	"{\"name\":\"file_format\",\"type\":\"string\",\"field-id\":101},"
	"{\"name\":\"partition\",\"type\":{\"type\":\"record\",\"name\":\"r102\",\"fields\":[";
static const char entry_tail[] =
	"]},\"field-id\":102},"
	"{\"name\":\"record_count\",\"type\":\"long\",\"field-id\":103},"
	"{\"name\":\"file_size_in_bytes\",\"type\":\"long\",\"field-id\":104},"
	INTMAP("column_sizes", 108, 117, 118, "\"long\"") ","
	INTMAP("value_counts", 109, 119, 120, "\"long\"") ","
	INTMAP("null_value_counts", 110, 121, 122, "\"long\"") ","
	INTMAP("nan_value_counts", 137, 138, 139, "\"long\"") ","
	INTMAP("lower_bounds", 125, 126, 127, "\"bytes\"") ","
	INTMAP("upper_bounds", 128, 129, 130, "\"bytes\"") ","
	OPT("key_metadata", "\"bytes\"", 131) ","
	OPT("split_offsets", "{\"type\":\"array\",\"items\":\"long\",\"element-id\":133}", 132) ","
	OPT("equality_ids", "{\"type\":\"array\",\"items\":\"int\",\"element-id\":136}", 135) ","
	OPT("sort_order_id", "\"int\"", 140)
	"]},\"field-id\":2}]}";

/* The manifest_file schema of manifest lists (v2). */
static const char mlist_schema[] =
	"{\"type\":\"record\",\"name\":\"manifest_file\",\"fields\":["
	"{\"name\":\"manifest_path\",\"type\":\"string\",\"field-id\":500},"
	"{\"name\":\"manifest_length\",\"type\":\"long\",\"field-id\":501},"
	"{\"name\":\"partition_spec_id\",\"type\":\"int\",\"field-id\":502},"
	"{\"name\":\"content\",\"type\":\"int\",\"field-id\":517},"
	"{\"name\":\"sequence_number\",\"type\":\"long\",\"field-id\":515},"
	"{\"name\":\"min_sequence_number\",\"type\":\"long\",\"field-id\":516},"
	"{\"name\":\"added_snapshot_id\",\"type\":\"long\",\"field-id\":503},"
	"{\"name\":\"added_files_count\",\"type\":\"int\",\"field-id\":504},"
	"{\"name\":\"existing_files_count\",\"type\":\"int\",\"field-id\":505},"
	"{\"name\":\"deleted_files_count\",\"type\":\"int\",\"field-id\":506},"
	"{\"name\":\"added_rows_count\",\"type\":\"long\",\"field-id\":512},"
	"{\"name\":\"existing_rows_count\",\"type\":\"long\",\"field-id\":513},"
	"{\"name\":\"deleted_rows_count\",\"type\":\"long\",\"field-id\":514},"
	OPT("partitions", "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"r508\","
	    "\"fields\":[{\"name\":\"contains_null\",\"type\":\"boolean\",\"field-id\":509},"
	    OPT("contains_nan", "\"boolean\"", 518) ","
	    OPT("lower_bound", "\"bytes\"", 510) ","
	    OPT("upper_bound", "\"bytes\"", 511) "]},\"element-id\":508}", 507) ","
	OPT("key_metadata", "\"bytes\"", 519)
	"]}";

int sl__ice_avro_name(sl_buf *out, const char *name)
{
	int rc = 0;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_' ||
		    (*p >= '0' && *p <= '9' && p != (const unsigned char *)name))
			rc |= sl_buf_putc(out, (char)*p);
		else if (*p >= '0' && *p <= '9') /* a leading digit */
			rc |= sl_buf_printf(out, "_%c", *p);
		else
			rc |= sl_buf_printf(out, "_x%X", *p);
	return rc;
}

int sl__ice_manifest_schema(const ice_table *t, sl_buf *out)
{
	int rc = sl_buf_puts(out, entry_head);
	for (int i = 0; i < t->npf; i++) {
		const ice_col *c = &t->cols[t->pf[i].col];
		rc |= sl_buf_puts(out, i ? ",{\"name\":\"" : "{\"name\":\"");
		rc |= sl__ice_avro_name(out, t->pf[i].name);
		rc |= sl_buf_printf(out, "\",\"type\":[\"null\",%s],\"default\":null,\"field-id\":%d}",
		                    sl__ice_part_avro_type(&t->pf[i], c->type), t->pf[i].field_id);
	}
	rc |= sl_buf_puts(out, entry_tail);
	return rc ? -1 : 0;
}

/* An int-keyed map (an array of key/value records) of column ids to v[]. */
static int put_counts(sl_buf *b, const ice_table *t, const int64_t *v, int64_t all)
{
	int rc = sl_avro_long(b, 1) | sl_avro_long(b, t->ncols);
	for (int i = 0; i < t->ncols; i++)
		rc |= sl_avro_long(b, t->cols[i].id) | sl_avro_long(b, v ? v[i] : all);
	return rc | sl_avro_long(b, 0);
}

/* Starts manifest f: the manifest_entry schema of table t and the
 * header metadata the spec requires (content data or deletes).  0 or -1. */
static int manifest_begin(sl_avro_file *f, const ice_table *t, const char *schema_json,
                          const char *spec_json, int deletes)
{
	sl_buf schema;
	sl_buf_init(&schema);
	if (sl__ice_manifest_schema(t, &schema) || !sl_buf_cstr(&schema)) {
		sl_buf_deinit(&schema);
		return -1;
	}
	const char *meta[] = {"schema", schema_json, "schema-id", "0", "partition-spec", spec_json,
	                      "partition-spec-id", "0", "format-version", "2",
	                      "content", deletes ? "deletes" : "data"};
	int rc = sl_avro_file_begin(f, schema.p, meta, 6);
	sl_buf_deinit(&schema);
	return rc;
}

int sl__ice_manifest(const ice_table *t, const char *schema_json, const char *spec_json,
                     int64_t snap_id, const ice_file *files, int n, int deletes, sl_buf *out)
{
	sl_avro_file f;
	int rc = manifest_begin(&f, t, schema_json, spec_json, deletes);
	for (int i = 0; !rc && i < n; i++) {
		const ice_file *d = &files[i];
		sl_buf *b = &f.block;
		if ((d->content != 0) != (deletes != 0))
			continue;
		rc |= sl_avro_long(b, 1);                              /* status: ADDED */
		rc |= sl_avro_long(b, 1) | sl_avro_long(b, snap_id);   /* snapshot_id */
		rc |= sl_avro_long(b, 0) | sl_avro_long(b, 0);         /* sequence numbers: inherited */
		rc |= sl_avro_long(b, d->content);                     /* 0 data, 1 pos, 2 eq deletes */
		rc |= sl_avro_string(b, d->path) | sl_avro_string(b, "PARQUET");
		rc |= sl_buf_append(b, d->part.p, d->part.len);        /* partition */
		rc |= sl_avro_long(b, d->rows) | sl_avro_long(b, d->bytes);
		rc |= sl_avro_long(b, 0);                              /* column_sizes */
		if (d->content == 0) {
			rc |= put_counts(b, t, NULL, d->rows);             /* value_counts */
			rc |= put_counts(b, t, d->nulls, 0);               /* null_value_counts */
		} else {
			rc |= sl_avro_long(b, 0) | sl_avro_long(b, 0);     /* (delete files: none) */
		}
		rc |= sl_avro_long(b, 0);                              /* nan_value_counts */
		if (d->bounds.len)                                     /* lower, upper bounds */
			rc |= sl_buf_append(b, d->bounds.p, d->bounds.len);
		else
			rc |= sl_avro_long(b, 0) | sl_avro_long(b, 0);
		rc |= sl_avro_long(b, 0) | sl_avro_long(b, 0);         /* key metadata, split offsets */
		if (d->content == 2) { /* equality_ids: the identifier fields */
			rc |= sl_avro_long(b, 1) | sl_avro_long(b, t->npk);
			for (int k = 0; k < t->npk; k++)
				rc |= sl_avro_long(b, t->cols[t->pk[k]].id);
			rc |= sl_avro_long(b, 0);
		} else {
			rc |= sl_avro_long(b, 0);
		}
		rc |= sl_avro_long(b, 0);                              /* sort_order_id */
		rc |= sl_avro_file_record(&f);
	}
	rc |= sl_avro_file_end(&f);
	if (!rc)
		rc = sl_buf_append(out, f.out.p, f.out.len);
	sl_avro_file_deinit(&f);
	return rc ? -1 : 0;
}

int sl__ice_mref_new(ice_mref *m, const char *path, int64_t len, int64_t seq, int64_t snap,
                     int content, int64_t files, int64_t rows)
{
	sl_buf *b = &m->rec;
	sl_buf_init(b);
	m->content = content;
	m->files = files;
	m->rows = rows;
	int rc = sl_avro_string(b, path) | sl_avro_long(b, len) | sl_avro_long(b, 0) |
	         sl_avro_long(b, content) | sl_avro_long(b, seq) | sl_avro_long(b, seq) |
	         sl_avro_long(b, snap) | sl_avro_long(b, files) | sl_avro_long(b, 0) |
	         sl_avro_long(b, 0) | sl_avro_long(b, rows) | sl_avro_long(b, 0) |
	         sl_avro_long(b, 0) | sl_avro_long(b, 0) | sl_avro_long(b, 0);
	return rc ? -1 : 0;
}

int sl__ice_mref_gone(ice_mref *m, const char *path, int64_t len, int64_t seq, int64_t minseq,
                      int64_t snap, int content, int64_t files, int64_t rows)
{
	sl_buf *b = &m->rec;
	sl_buf_init(b);
	m->content = content;
	m->files = 0;
	m->rows = 0;
	int rc = sl_avro_string(b, path) | sl_avro_long(b, len) | sl_avro_long(b, 0) |
	         sl_avro_long(b, content) | sl_avro_long(b, seq) | sl_avro_long(b, minseq) |
	         sl_avro_long(b, snap) | sl_avro_long(b, 0) | sl_avro_long(b, 0) |
	         sl_avro_long(b, files) | sl_avro_long(b, 0) | sl_avro_long(b, 0) |
	         sl_avro_long(b, rows) | sl_avro_long(b, 0) | sl_avro_long(b, 0);
	return rc ? -1 : 0;
}

int sl__ice_manifest_gone(const ice_table *t, const char *schema_json, const char *spec_json,
                          int64_t snap, const ice_gone *gone, int n, int deletes, sl_buf *out)
{
	sl_avro_file f;
	int rc = manifest_begin(&f, t, schema_json, spec_json, deletes);
	for (int i = 0; !rc && i < n; i++) {
		const ice_gone *g = &gone[i];
		sl_buf *b = &f.block;
		if ((g->content != 0) != (deletes != 0))
			continue;
		rc |= sl_avro_long(b, 2);                              /* status: DELETED */
		rc |= sl_avro_long(b, 1) | sl_avro_long(b, snap);      /* deleted by snap */
		rc |= sl_avro_long(b, 1) | sl_avro_long(b, g->seq);    /* explicit sequence numbers */
		rc |= sl_avro_long(b, 1) | sl_avro_long(b, g->fseq);
		rc |= sl_buf_append(b, g->df.p, g->df.len);
		rc |= sl_avro_file_record(&f);
	}
	rc |= sl_avro_file_end(&f);
	if (!rc)
		rc = sl_buf_append(out, f.out.p, f.out.len);
	sl_avro_file_deinit(&f);
	return rc ? -1 : 0;
}

/* Skips a ["null", "bytes"] (bytes = 1) or ["null", "boolean"] union. */
static void skip_opt(sl_avro_rd *r, int bytes)
{
	size_t n;
	int64_t br = sl_avro_get_long(r);
	if (br == 1 && bytes)
		(void)sl_avro_get_bytes(r, &n);
	else if (br == 1)
		(void)sl_avro_get_bool(r);
	else if (br != 0)
		r->bad = 1;
}

/* Reads one manifest_file record at r into m (its bytes copied). */
static int read_mref(sl_avro_rd *r, ice_mref *m)
{
	const uint8_t *start = r->p;
	size_t n;
	int64_t v[13]; /* v[1] manifest_length .. v[12] deleted_rows_count, schema order */
	(void)sl_avro_get_bytes(r, &n);
	for (int i = 1; i < 13; i++)
		v[i] = sl_avro_get_long(r);
	int64_t br = sl_avro_get_long(r); /* partitions */
	if (br == 1) {
		for (int64_t cnt; (cnt = sl_avro_get_long(r)) != 0 && !r->bad;) {
			if (cnt < 0) {
				cnt = -cnt;
				(void)sl_avro_get_long(r);
			}
			for (int64_t k = 0; k < cnt && !r->bad; k++) {
				(void)sl_avro_get_bool(r);
				skip_opt(r, 0);
				skip_opt(r, 1);
				skip_opt(r, 1);
			}
		}
	} else if (br != 0) {
		r->bad = 1;
	}
	skip_opt(r, 1); /* key_metadata */
	if (r->bad)
		return -1;
	sl_buf_init(&m->rec);
	m->content = (int)v[3];
	m->files = v[7] + v[8];  /* added + existing files */
	m->rows = v[10] + v[11]; /* added + existing rows */
	return sl_buf_append(&m->rec, start, (size_t)(r->p - start));
}

int sl__ice_mlist_parse(const void *p, size_t len, const char *path, ice_mref **refs, int *n,
                        sl_err *err)
{
	sl_avro_in in;
	sl_avro_rd blk;
	const char *why = "damaged manifest list";
	int64_t count;
	int got, cap = 0;
	*refs = NULL;
	*n = 0;
	if (sl_avro_open(&in, p, len, &why))
		goto bad;
	size_t sl;
	const uint8_t *s = sl_avro_meta(&in, "avro.schema", &sl);
	if (!s || sl != strlen(mlist_schema) || memcmp(s, mlist_schema, sl))
		return sl_err_set(err, SL_ENOTSUP, "iceberg: manifest list '%s' was not written by "
		                  "sluice: appending to a table another writer committed last is not "
		                  "supported yet", path);
	while ((got = sl_avro_next_block(&in, &blk, &count)) == 1)
		for (int64_t k = 0; k < count; k++) {
			if (*n == cap) {
				cap = cap ? cap * 2 : 8;
				ice_mref *nv = realloc(*refs, (size_t)cap * sizeof *nv);
				if (!nv)
					return sl_err_set(err, SL_ENOMEM, "iceberg: out of memory");
				*refs = nv;
			}
			if (read_mref(&blk, &(*refs)[*n]))
				goto bad;
			(*n)++;
		}
	if (got == 0)
		return 0;
bad:
	return sl_err_set(err, SL_ESTATE, "iceberg: manifest list '%s': %s", path, why);
}

int sl__ice_mlist_read(const char *path, ice_mref **refs, int *n, sl_err *err)
{
	sl_buf b;
	int rc;
	*refs = NULL;
	*n = 0;
	sl_buf_init(&b);
	if (sl__ice_read_file(path, &b))
		rc = sl_err_set(err, SL_EIO, "iceberg: cannot read manifest list '%s': %s", path,
		                strerror(errno));
	else
		rc = sl__ice_mlist_parse(b.p, b.len, path, refs, n, err);
	sl_buf_deinit(&b);
	return rc;
}

void sl__ice_mrefs_free(ice_mref *refs, int n)
{
	for (int i = 0; i < n; i++)
		sl_buf_deinit(&refs[i].rec);
	free(refs);
}

int sl__ice_mlist(const ice_mref *refs, int n, int64_t snap, int64_t parent, int64_t seq,
                  sl_buf *out)
{
	char s[24], p[24], q[24];
	sl_avro_file f;
	snprintf(s, sizeof s, "%lld", (long long)snap);
	snprintf(p, sizeof p, "%lld", (long long)parent);
	snprintf(q, sizeof q, "%lld", (long long)seq);
	const char *meta[] = {"snapshot-id", s, "parent-snapshot-id", parent > 0 ? p : "null",
	                      "sequence-number", q, "format-version", "2"};
	int rc = sl_avro_file_begin(&f, mlist_schema, meta, 4);
	for (int i = 0; !rc && i < n; i++)
		rc = sl_buf_append(&f.block, refs[i].rec.p, refs[i].rec.len) |
		     sl_avro_file_record(&f);
	rc |= sl_avro_file_end(&f);
	if (!rc)
		rc = sl_buf_append(out, f.out.p, f.out.len);
	sl_avro_file_deinit(&f);
	return rc ? -1 : 0;
}

/* ---- reading manifests (rewrite-data-files) ------------------------------- */

/* Skips an ["null", array<long>] (arr) or ["null", map<int, long|bytes>]
 * union (bytes: the map's values are bytes). */
static void skip_coll(sl_avro_rd *r, int arr, int bytes)
{
	size_t n;
	int64_t br = sl_avro_get_long(r);
	if (br == 0)
		return;
	if (br != 1) {
		r->bad = 1;
		return;
	}
	for (int64_t cnt; !r->bad && (cnt = sl_avro_get_long(r)) != 0;) {
		if (cnt < 0) {
			cnt = -cnt;
			(void)sl_avro_get_long(r); /* the block's size in bytes */
		}
		for (int64_t k = 0; k < cnt && !r->bad; k++) {
			if (arr) {
				(void)sl_avro_get_long(r);
				continue;
			}
			(void)sl_avro_get_long(r); /* key: a field id */
			if (bytes)
				(void)sl_avro_get_bytes(r, &n);
			else
				(void)sl_avro_get_long(r);
		}
	}
}

/* Skips a partition field's ["null", T] value. */
static void skip_part(sl_avro_rd *r, const char *type)
{
	size_t n;
	int64_t br = sl_avro_get_long(r);
	if (br == 0)
		return;
	if (br != 1)
		r->bad = 1;
	else if (strstr(type, "string") || strstr(type, "bytes"))
		(void)sl_avro_get_bytes(r, &n);
	else if (strstr(type, "boolean"))
		(void)sl_avro_get_bool(r);
	else if (strstr(type, "float") || strstr(type, "double")) {
		size_t w = strstr(type, "float") ? 4 : 8;
		if ((size_t)(r->end - r->p) < w)
			r->bad = 1;
		else
			r->p += w;
	} else
		(void)sl_avro_get_long(r);
}

/* Reads the live entries of one manifest (seq: its list record's
 * sequence number, inherited by ADDED entries without one). */
static int read_manifest(const ice_table *t, const char *path, int64_t seq, const char *schema,
                         ice_gone **gone, int *n, int *cap, sl_err *err)
{
	sl_buf b;
	sl_avro_in in;
	sl_avro_rd r;
	int64_t count;
	const char *why = "damaged";
	int got, rc = 0;
	sl_buf_init(&b);
	if (sl__ice_read_file(path, &b)) {
		rc = sl_err_set(err, SL_EIO, "iceberg: cannot read manifest '%s': %s", path,
		                strerror(errno));
		goto out;
	}
	size_t sl;
	const uint8_t *s;
	if (sl_avro_open(&in, b.p, b.len, &why) ||
	    !(s = sl_avro_meta(&in, "avro.schema", &sl)) || sl != strlen(schema) ||
	    memcmp(s, schema, sl)) {
		rc = sl_err_set(err, SL_ENOTSUP, "iceberg: manifest '%s' was not written by sluice for "
		                "this table (%s)", path, why);
		goto out;
	}
	while ((got = sl_avro_next_block(&in, &r, &count)) == 1) {
		for (int64_t k = 0; k < count && !r.bad; k++) {
			size_t len;
			int64_t status = sl_avro_get_long(&r), e_seq = -1, e_fseq = -1;
			if (sl_avro_get_long(&r) == 1)
				(void)sl_avro_get_long(&r);
			if (sl_avro_get_long(&r) == 1)
				e_seq = sl_avro_get_long(&r);
			if (sl_avro_get_long(&r) == 1)
				e_fseq = sl_avro_get_long(&r);
			const uint8_t *df = r.p;
			int64_t content = sl_avro_get_long(&r);
			const uint8_t *fp = sl_avro_get_bytes(&r, &len);
			size_t flen = len;
			(void)sl_avro_get_bytes(&r, &len);
			const uint8_t *part = r.p;
			for (int i = 0; i < t->npf; i++)
				skip_part(&r, sl__ice_part_avro_type(&t->pf[i], t->cols[t->pf[i].col].type));
			const uint8_t *part_end = r.p;
			int64_t rows = sl_avro_get_long(&r), bytes = sl_avro_get_long(&r);
			for (int m = 0; m < 6; m++)
				skip_coll(&r, 0, m >= 4);
			skip_opt(&r, 1);        /* key_metadata */
			skip_coll(&r, 1, 0);    /* split_offsets */
			skip_coll(&r, 1, 0);    /* equality_ids */
			if (sl_avro_get_long(&r) == 1)
				(void)sl_avro_get_long(&r);
			if (r.bad || !fp || content < 0 || content > 2)
				goto bad;
			if (status == 2)
				continue;
			if (e_seq < 0 && status != 1)
				goto bad; /* only ADDED entries inherit */
			if (*n == *cap) {
				int nc = *cap ? *cap * 2 : 64;
				ice_gone *ng = realloc(*gone, (size_t)nc * sizeof *ng);
				if (!ng)
					return sl_err_set(err, SL_ENOMEM, "iceberg: out of memory");
				*gone = ng;
				*cap = nc;
			}
			ice_gone *g = &(*gone)[*n];
			memset(g, 0, sizeof *g);
			sl_buf_init(&g->part);
			sl_buf_init(&g->df);
			(*n)++;
			g->content = (int)content;
			g->seq = e_seq >= 0 ? e_seq : seq;
			g->fseq = e_fseq >= 0 ? e_fseq : seq;
			g->rows = rows;
			g->bytes = bytes;
			if (!(g->path = strndup((const char *)fp, flen)) ||
			    sl_buf_append(&g->part, part, (size_t)(part_end - part)) ||
			    sl_buf_append(&g->df, df, (size_t)(r.p - df))) {
				rc = sl_err_set(err, SL_ENOMEM, "iceberg: out of memory");
				goto out;
			}
			char *lp = g->path; /* a local path */
			if (!strncmp(lp, "file://", 7))
				memmove(lp, lp + 7, strlen(lp + 7) + 1);
			else if (!strncmp(lp, "file:", 5))
				memmove(lp, lp + 5, strlen(lp + 5) + 1);
		}
		if (r.bad)
			goto bad;
	}
	if (got == 0)
		goto out;
bad:
	rc = sl_err_set(err, SL_ESTATE, "iceberg: damaged manifest '%s'", path);
out:
	sl_buf_deinit(&b);
	return rc;
}

int sl__ice_live_entries(const ice_table *t, const char *mlist, ice_gone **gone, int *n,
                         sl_err *err)
{
	ice_mref *refs = NULL;
	int nr = 0, cap = 0, rc;
	sl_buf schema;
	*gone = NULL;
	*n = 0;
	sl_buf_init(&schema);
	if (sl__ice_manifest_schema(t, &schema) || !sl_buf_cstr(&schema))
		return sl_err_set(err, SL_ENOMEM, "iceberg: out of memory");
	rc = sl__ice_mlist_read(mlist, &refs, &nr, err);
	for (int i = 0; !rc && i < nr; i++) {
		sl_avro_rd r = {(const uint8_t *)refs[i].rec.p,
		                (const uint8_t *)refs[i].rec.p + refs[i].rec.len, 0};
		size_t len;
		const uint8_t *p = sl_avro_get_bytes(&r, &len);
		int64_t v[5];
		for (int k = 1; k < 5; k++)
			v[k] = sl_avro_get_long(&r); /* length, spec id, content, sequence number */
		char path[4096];
		if (!p || r.bad || len >= sizeof path) {
			rc = sl_err_set(err, SL_ESTATE, "iceberg: damaged manifest list '%s'", mlist);
			break;
		}
		memcpy(path, p, len);
		path[len] = 0;
		const char *lp = !strncmp(path, "file://", 7) ? path + 7
		               : !strncmp(path, "file:", 5) ? path + 5 : path;
		rc = read_manifest(t, lp, v[4], schema.p, gone, n, &cap, err);
	}
	sl__ice_mrefs_free(refs, nr);
	sl_buf_deinit(&schema);
	return rc;
}

void sl__ice_gone_free(ice_gone *g, int n)
{
	for (int i = 0; i < n; i++) {
		free(g[i].path);
		sl_buf_deinit(&g[i].part);
		sl_buf_deinit(&g[i].df);
	}
	free(g);
}
