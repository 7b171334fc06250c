/*
 * conn_iceberg_rewrite.c - `sluice iceberg rewrite-data-files`
 * (docs/iceberg.md "Table maintenance"): compaction of a table sluice
 * wrote.  The live rows of the current snapshot (every data file's rows
 * without those its delete files delete, by the spec's rules: a position
 * delete applies to a data file of the same partition and a data sequence
 * number at or below its own, an equality delete to those strictly below)
 * are written again into data files of the target size, one set per
 * partition, and committed as one "replace" snapshot that lists only the
 * new files and marks every old data and delete file DELETED (with their
 * sequence numbers), published by link() as a commit is.
 *
 * The table is opened as the iceberg sink opens it (its schema and
 * partition spec rebuilt from the metadata, checked as a job's DDL is), so
 * the new files are the sink's own: Parquet with field ids, partition
 * records, value and NULL counts and bounds.  When another writer commits
 * between the reading and the link, the replace is refused ("changed") and
 * the rewrite starts over from the new snapshot, its files deleted: a
 * job's equality deletes committed meanwhile are never lost.  New files
 * get the replace's sequence number, above every delete they survived.
 */
#include "conn_iceberg_int.h"
#include "iceberg.h"
#include "data/rowcodec.h"
#include "format/format.h"
#include "sluice.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ICE_REWRITE_TRIES 5

/* A sluice type for an Iceberg primitive type name; 0 when none. */
static int type_of(const char *s, sl_type *t)
{
	static const struct { const char *name; int id; } names[] = {
		{"boolean", SL_T_BOOLEAN}, {"int", SL_T_INT}, {"long", SL_T_BIGINT},
		{"float", SL_T_FLOAT}, {"double", SL_T_DOUBLE}, {"date", SL_T_DATE},
		{"time", SL_T_TIME}, {"timestamp", SL_T_TIMESTAMP},
		{"timestamptz", SL_T_TIMESTAMP_LTZ}, {"string", SL_T_VARCHAR},
		{"binary", SL_T_VARBINARY},
	};
	int p, sc;
	memset(t, 0, sizeof *t);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(s, names[i].name)) {
			t->id = (uint8_t)names[i].id;
			if (t->id == SL_T_VARCHAR || t->id == SL_T_VARBINARY)
				t->length = SL_STRING_LEN;
			if (t->id == SL_T_TIME || t->id == SL_T_TIMESTAMP || t->id == SL_T_TIMESTAMP_LTZ)
				t->precision = 6; /* as the sink writes them */
			return 1;
		}
	if (sscanf(s, "decimal(%d, %d)", &p, &sc) == 2 && p >= 1 && p <= 38 && sc >= 0 && sc <= p) {
		t->id = SL_T_DECIMAL;
		t->precision = (uint8_t)p;
		t->scale = (uint8_t)sc;
		return 1;
	}
	return 0;
}

/* What one rewrite works with. */
typedef struct rw {
	const char *dir;
	ice_desc d;
	sl_field fields[ICE_MAX_COLS], efields[ICE_MAX_COLS];
	int pk[ICE_MAX_COLS], part[ICE_MAX_COLS], npart;
	sl_arena arena;
	sl_opts opts, dopts;
	sl_sink *sink;
	const ice_table *t;
	ice_gone *live;
	int nlive;
	ice_rowmap pos, eq;    /* deleted keys -> the highest delete sequence number */
	sl_buf key;
} rw;

/* The sink over the table, as a job's DDL would declare it. */
static int open_sink(rw *x, sl_err *err)
{
	char wh[4096], db[256], tb[256], tr[64];
	const char *p = x->dir;
	size_t n = strlen(p);
	while (n > 1 && p[n - 1] == '/')
		n--;
	const char *e = p + n, *s2 = e, *s1;
	while (s2 > p && s2[-1] != '/')
		s2--;
	s1 = s2 > p ? s2 - 1 : p;
	while (s1 > p && s1[-1] != '/')
		s1--;
	if (s2 == p || s1 == p || s2 - s1 - 1 <= 0 || (size_t)(e - s2) >= sizeof tb ||
	    (size_t)(s2 - s1 - 1) >= sizeof db || (size_t)(s1 - p) >= sizeof wh)
		return sl_err_set(err, SL_EINVAL, "iceberg: '%s' is not <warehouse>/<database>/<table>",
		                  x->dir);
	snprintf(tb, sizeof tb, "%.*s", (int)(e - s2), s2);
	snprintf(db, sizeof db, "%.*s", (int)(s2 - s1 - 1), s1);
	snprintf(wh, sizeof wh, "%.*s", (int)(s1 - p), p);
	sl_buf spec;
	sl_buf_init(&spec);
	int all_identity = 1;
	for (int i = 0; i < x->d.npf; i++)
		all_identity &= !strcmp(x->d.pf[i].transform, "identity");
	x->npart = 0;
	for (int i = 0; i < x->d.npf; i++) {
		const ice_dpart *f = &x->d.pf[i];
		int c = -1, w;
		for (int j = 0; j < x->d.ncols; j++)
			if (x->d.cols[j].id == f->source)
				c = j;
		if (c < 0)
			return sl_err_set(err, SL_ESTATE, "iceberg: partition field '%s' has no column",
			                  f->name);
		const char *cn = x->d.cols[c].name;
		if (all_identity)
			x->part[x->npart++] = c;
		else if (!strcmp(f->transform, "identity"))
			sl_buf_printf(&spec, "%s%s", i ? ", " : "", cn);
		else if (sscanf(f->transform, "bucket[%d]", &w) == 1)
			sl_buf_printf(&spec, "%sbucket(%s, %d)", i ? ", " : "", cn, w);
		else if (sscanf(f->transform, "truncate[%d]", &w) == 1)
			sl_buf_printf(&spec, "%struncate(%s, %d)", i ? ", " : "", cn, w);
		else if (snprintf(tr, sizeof tr, "%s", f->transform) < (int)sizeof tr)
			sl_buf_printf(&spec, "%s%s(%s)", i ? ", " : "", tr, cn);
	}
	sl_opts_init(&x->opts, &x->arena);
	int rc = sl_opts_set(&x->opts, "warehouse", wh) || sl_opts_set(&x->opts, "catalog-database", db) ||
	         sl_opts_set(&x->opts, "catalog-table", tb) ||
	         (spec.len && (!sl_buf_cstr(&spec) ||
	                       sl_opts_set(&x->opts, "partitioning", spec.p)));
	sl_buf_deinit(&spec);
	if (rc)
		return sl_err_set(err, SL_ENOMEM, "iceberg: out of memory");
	return 0;
}

static int set_target(rw *x, int64_t target, sl_err *err)
{
	char v[32];
	snprintf(v, sizeof v, "%lld", (long long)target);
	if (target > 0 && sl_opts_set(&x->opts, "write.target-file-size-bytes",
	                              sl_arena_strdup(&x->arena, v)))
		return sl_err_set(err, SL_ENOMEM, "iceberg: out of memory");
	return 0;
}

/* The columns: the table's types as the sink writes them. */
static int columns(rw *x, sl_err *err)
{
	sl_buf nm;
	sl_buf_init(&nm);
	for (int i = 0; i < x->d.ncols; i++) {
		const ice_dcol *c = &x->d.cols[i];
		sl_type t;
		if (c->id != i + 1 || !type_of(c->type, &t)) {
			sl_buf_deinit(&nm);
			return sl_err_set(err, SL_ENOTSUP, "iceberg: column '%s' (id %d, %s): sluice "
			                  "rewrites tables whose columns it could have written", c->name,
			                  c->id, c->type);
		}
		t.notnull = (uint8_t)c->required;
		x->fields[i] = (sl_field){c->name, t};
		sl_buf_clear(&nm);
		if (sl__ice_avro_name(&nm, c->name) || !sl_buf_cstr(&nm) ||
		    !(x->efields[i].name = sl_arena_strdup(&x->arena, nm.p))) {
			sl_buf_deinit(&nm);
			return sl_err_set(err, SL_ENOMEM, "iceberg: out of memory");
		}
		x->efields[i].type = t;
		x->efields[i].type.notnull = 0;
	}
	sl_buf_deinit(&nm);
	for (int i = 0; i < x->d.npk; i++)
		x->pk[i] = x->d.pk_ids[i] - 1;
	return 0;
}

/* Reads the Parquet file path with the decoder's fields, calling fn per
 * batch.  0 or a code with err. */
typedef int (*batch_fn)(rw *x, const ice_gone *g, sl_batch *b, int64_t first, sl_err *err);

static int read_file(rw *x, const ice_gone *g, const sl_field *f, int n, batch_fn fn,
                     sl_err *err)
{
	sl_type types[ICE_MAX_COLS];
	for (int i = 0; i < n; i++)
		types[i] = f[i].type;
	int fd = open(g->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sl_err_set(err, SL_EIO, "iceberg: cannot open '%s': %s", g->path,
		                  strerror(errno));
	sl_decoder *d = sl_decoder_new(sl_format_find("parquet"), f, n, &x->dopts, err);
	sl_batch *b = sl_batch_new(n, types, 0);
	int rc = !d ? (err->code ? err->code : SL_EINVAL) : !b ? SL_ENOMEM : 0;
	if (!rc)
		rc = d->vt->file_open(d, fd, g->path, err);
	int64_t first = 0;
	while (!rc) {
		sl_batch_reset(b);
		int got = d->vt->file_read(d, b, err);
		if (got == SL_EEOF)
			break;
		if (got < 0) {
			rc = got;
			break;
		}
		rc = fn(x, g, b, first, err);
		first += b->nrows;
	}
	if (d) {
		d->vt->file_close(d);
		sl_decoder_free(d);
	}
	sl_batch_free(b);
	close(fd);
	if (rc == SL_ENOMEM)
		rc = sl_err_set(err, SL_ENOMEM, "iceberg: out of memory");
	return rc;
}

/* Keeps the higher sequence number of key in m. */
static int note(ice_rowmap *m, const sl_buf *key, int64_t seq)
{
	int32_t pf;
	int64_t ps;
	int r = sl__ice_rowmap_put(m, key->p, key->len, 0, seq, &pf, &ps);
	if (r == 1 && ps > seq)
		r = sl__ice_rowmap_put(m, key->p, key->len, 0, ps, &pf, &ps);
	return r < 0 ? SL_ENOMEM : 0;
}

/* The sequence number of key's delete in m, or -1. */
static int64_t deleted_at(ice_rowmap *m, const sl_buf *key)
{
	int32_t pf;
	int64_t ps;
	return sl__ice_rowmap_get(m, key->p, key->len, &pf, &ps) ? ps : -1;
}

/* Position delete rows: partition, path, pos. */
static int pos_rows(rw *x, const ice_gone *g, sl_batch *b, int64_t first, sl_err *err)
{
	(void)first;
	(void)err;
	for (int r = 0; r < b->nrows; r++) {
		const sl_str *p = &b->cols[0].v.str[r];
		int64_t pos = b->cols[1].v.i64[r];
		sl_buf_clear(&x->key);
		if (sl_buf_append(&x->key, g->part.p, g->part.len) || sl_buf_putc(&x->key, 0) ||
		    sl_buf_append(&x->key, p->ptr, (size_t)p->len) || sl_buf_putc(&x->key, 0) ||
		    sl_buf_append(&x->key, &pos, sizeof pos) || note(&x->pos, &x->key, g->seq))
			return SL_ENOMEM;
	}
	return 0;
}

/* Equality delete rows: partition, the key form of the key columns. */
static int eq_rows(rw *x, const ice_gone *g, sl_batch *b, int64_t first, sl_err *err)
{
	int cols[ICE_MAX_COLS];
	(void)first;
	(void)err;
	for (int i = 0; i < x->d.npk; i++)
		cols[i] = i;
	for (int r = 0; r < b->nrows; r++) {
		sl_buf_clear(&x->key);
		if (sl_buf_append(&x->key, g->part.p, g->part.len) ||
		    sl_rowcodec_key(b, cols, x->d.npk, r, &x->key) || note(&x->eq, &x->key, g->seq))
			return SL_ENOMEM;
	}
	return 0;
}

/* A data file's rows: the live ones go to the sink. */
static int data_rows(rw *x, const ice_gone *g, sl_batch *b, int64_t first, sl_err *err)
{
	uint32_t *sel = sl_arena_alloc(&b->arena, sizeof *sel * (size_t)(b->nrows + 1));
	int n = 0;
	if (!sel)
		return SL_ENOMEM;
	for (int r = 0; r < b->nrows; r++) {
		int64_t pos = first + r, s;
		sl_buf_clear(&x->key);
		if (sl_buf_append(&x->key, g->part.p, g->part.len) || sl_buf_putc(&x->key, 0) ||
		    sl_buf_append(&x->key, g->path, strlen(g->path)) || sl_buf_putc(&x->key, 0) ||
		    sl_buf_append(&x->key, &pos, sizeof pos))
			return SL_ENOMEM;
		if ((s = deleted_at(&x->pos, &x->key)) >= g->seq)
			continue;
		if (x->eq.n) {
			sl_buf_clear(&x->key);
			if (sl_buf_append(&x->key, g->part.p, g->part.len) ||
			    sl_rowcodec_key(b, x->pk, x->d.npk, r, &x->key))
				return SL_ENOMEM;
			if (deleted_at(&x->eq, &x->key) > g->seq)
				continue;
		}
		sel[n++] = (uint32_t)r;
	}
	b->sel = sel;
	b->nsel = n;
	return n ? x->sink->vt->write(x->sink, b, err) : 0;
}

/* One attempt: 0 done (or nothing to do), or a code with err. */
static int rewrite_once(rw *x, int64_t target, sl_iceberg_rewritten *st, sl_err *err)
{
	int rc;
	if ((rc = sl__ice_describe(x->dir, &x->d, err)))
		return rc;
	if (x->d.snap <= 0)
		return 0; /* no snapshot: nothing to rewrite */
	sl_conn_args a = {.table = "rewrite-data-files", .fields = x->fields,
	                  .nfields = x->d.ncols, .pk = x->pk, .npk = x->d.npk, .tz = "UTC"};
	if ((rc = columns(x, err)) || (rc = open_sink(x, err)) || (rc = set_target(x, target, err)))
		return rc;
	a.opts = &x->opts;
	a.part = x->npart ? x->part : NULL;
	a.npart = x->npart;
	if (!(x->sink = sl_sink_new_open(sl_sink_find("iceberg"), &a, err)))
		return err->code ? err->code : SL_EINVAL;
	x->t = sl__ice_sink_table(x->sink);
	if ((rc = sl__ice_live_entries(x->t, x->d.mlist, &x->live, &x->nlive, err)))
		return rc;
	int ndata = 0, ndel = 0, need = 0;
	for (int i = 0; i < x->nlive; i++) {
		ndata += x->live[i].content == ICE_DATA;
		ndel += x->live[i].content != ICE_DATA;
		for (int j = 0; j < i && !need; j++) /* two data files in one partition */
			need = x->live[i].content == ICE_DATA && x->live[j].content == ICE_DATA &&
			       x->live[i].part.len == x->live[j].part.len &&
			       !memcmp(x->live[i].part.p, x->live[j].part.p, x->live[i].part.len);
	}
	st->data_before = ndata;
	st->deletes_before = ndel;
	if (!need && !ndel)
		return 0; /* one data file per partition and no deletes: nothing to gain */
	sl_field pf[2] = {{"file_path", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
	                  {"pos", {.id = SL_T_BIGINT}}};
	sl_field kf[ICE_MAX_COLS];
	for (int i = 0; i < x->d.npk; i++)
		kf[i] = x->efields[x->pk[i]];
	for (int i = 0; !rc && i < x->nlive; i++) {
		const ice_gone *g = &x->live[i];
		if (g->content == ICE_POS_DELETES)
			rc = read_file(x, g, pf, 2, pos_rows, err);
		else if (g->content == ICE_EQ_DELETES && x->d.npk == 0)
			rc = sl_err_set(err, SL_ENOTSUP, "iceberg: equality delete file '%s' in a table "
			                "without identifier fields", g->path);
		else if (g->content == ICE_EQ_DELETES)
			rc = read_file(x, g, kf, x->d.npk, eq_rows, err);
	}
	for (int i = 0; !rc && i < x->nlive; i++)
		if (x->live[i].content == ICE_DATA)
			rc = read_file(x, &x->live[i], x->efields, x->d.ncols, data_rows, err);
	if (rc)
		return rc;
	return sl__ice_sink_replace(x->sink, x->d.snap, x->live, x->nlive, &st->data_after,
	                            &st->rows, err);
}

static void rw_reset(rw *x)
{
	if (x->sink)
		sl_sink_free(x->sink);
	x->sink = NULL;
	sl__ice_gone_free(x->live, x->nlive);
	x->live = NULL;
	x->nlive = 0;
	sl__ice_desc_free(&x->d);
	sl__ice_rowmap_clear(&x->pos);
	sl__ice_rowmap_clear(&x->eq);
	sl_arena_reset(&x->arena);
	sl_opts_init(&x->dopts, &x->arena);
}

int sl_iceberg_rewrite(const char *dir, int64_t target, sl_iceberg_rewritten *st, sl_err *err)
{
	rw *x = calloc(1, sizeof *x);
	int rc = 0;
	memset(st, 0, sizeof *st);
	if (!x)
		return sl_err_set(err, SL_ENOMEM, "iceberg: out of memory");
	x->dir = dir;
	sl_arena_init(&x->arena, 4096);
	sl_opts_init(&x->dopts, &x->arena);
	sl__ice_rowmap_init(&x->pos);
	sl__ice_rowmap_init(&x->eq);
	sl_buf_init(&x->key);
	for (int attempt = 0; attempt < ICE_REWRITE_TRIES; attempt++) {
		memset(st, 0, sizeof *st);
		sl_err_clear(err);
		rc = rewrite_once(x, target, st, err);
		rw_reset(x);
		if (!(rc == SL_ESTATE && strstr(err->msg, "changed")))
			break; /* a concurrent commit: start over from the new snapshot */
	}
	sl__ice_rowmap_free(&x->pos);
	sl__ice_rowmap_free(&x->eq);
	sl_buf_deinit(&x->key);
	sl_arena_deinit(&x->arena);
	free(x);
	return rc;
}
