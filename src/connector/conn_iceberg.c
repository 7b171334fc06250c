/*
 * conn_iceberg.c - the sink of Flink's 'iceberg' connector (docs/iceberg.md):
 * rows appended to an Apache Iceberg table (format version 2) in a Hadoop
 * catalog, committed exactly once per checkpoint.
 *
 * Options (Flink's names): 'catalog-type' = 'hadoop' (the only catalog),
 * 'warehouse' (a local directory, "file:" URIs accepted), 'catalog-database'
 * (default "default"), 'catalog-table' (default the table's name),
 * 'catalog-name' (accepted, unused), 'format-version' (2),
 * 'write.format.default' (parquet), 'write.parquet.compression-codec'
 * (zstd, as Iceberg), 'write.target-file-size-bytes' (512 MB, as Iceberg),
 * 'write.upsert.enabled' (false),
 * 'partitioning' (a sluice extension: partition transforms).
 * The table `<warehouse>/<database>/<table>` is created at open when it has
 * no metadata (conn_iceberg_meta.c), else its schema and partition spec
 * must be the DDL's.
 *
 * Data files are Parquet, written by sluice's own writer (the 'parquet'
 * format's file hooks, with the columns' Iceberg field ids and names made
 * valid Avro names as Iceberg's writers do, timestamps in
 * microseconds and TINYINT/SMALLINT as INT, as Iceberg's types are) into
 * `data/` (under `<field>=<value>/` directories for partitioned tables:
 * identity fields from PARTITIONED BY or the transforms of the
 * 'partitioning' option, conn_iceberg_part.c; one open file per
 * partition), rolling at the target size.  Data files
 * are invisible until a snapshot lists them, so they need no hidden names:
 *   with checkpointing     data/[part/]<job>-a<attempt>-c<k>-<n>.parquet
 *   without                data/[part/]<runid>-<n>.parquet
 * where k is the checkpoint the file belongs to (the last pre-committed id
 * + 1 when it opened).
 *
 * Checkpoint protocol (conn.h): pre_commit(id) closes and fsyncs every
 * open file and writes the list of files not yet committed (this
 * checkpoint's and earlier ones never committed) into the checkpoint;
 * commit(id) makes them one snapshot whose summary carries flink.job-id =
 * the job and flink.max-committed-checkpoint-id = id (conn_iceberg_meta.c:
 * manifest, manifest list, new metadata version by link()), and skips a
 * checkpoint the table already holds; abort(id) deletes its files;
 * recover(r) commits the restored checkpoint's files unless the table
 * holds that checkpoint already, refuses (SL_ESTATE) when the table holds
 * a newer checkpoint of the job (falling back would repeat its rows) or,
 * on a fresh start, any checkpoint of it, and deletes the job's data files
 * of later checkpoints (k > the restored id: never committed).  Without
 * checkpointing, finish() commits everything as one snapshot at the end of
 * input.  close() never commits.
 *
 * Upserts (Flink's Iceberg sink): with a PRIMARY KEY (the identifier
 * fields) and 'write.upsert.enabled' = 'true' or an updating input, rows
 * are deleted by key with format v2 delete files (see ice_write): an
 * equality delete file per partition holding the key columns, for keys
 * whose rows were committed by earlier snapshots (an equality delete
 * applies to lower sequence numbers only), and position delete files for
 * rows written in the same checkpoint (conn_iceberg_delta.c keeps their
 * positions).  Each checkpoint is then committed as its own snapshot, in
 * order.  Partition source columns must be key columns (Flink's rule: a
 * key's rows stay in one partition); an updating input without a key is
 * refused at planning (can_update).  Files:
 *   ...-<n>-eq-delete.parquet, ...-<n>-pos-delete.parquet
 *
 * One instance: several instances would each need to hand their files to
 * one committer, which the runtime has no channel for yet, so the vtab
 * says single_instance and the planner gathers the sink's input into one
 * instance at any parallelism.
 */
#include "conn_builtin.h"
#include "conn_fs_int.h"
#include "conn_iceberg_int.h"
#include "sluice.h"
#include "data/rowcodec.h"
#include "data/valtext.h"
#include "format/format.h"
#include "state/checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define ICE_PATH 4096
#define ICE_WRITE_CHUNK (1u << 20)
#define ICE_DEFAULT_TARGET (512LL * 1024 * 1024) /* Iceberg's write.target-file-size-bytes */
#define ICE_SNAP_VERSION 3 /* 2: without bounds; 1: without content (all data) */

/* A data or equality delete file being written: one of each kind per
 * partition value (position delete files are written whole at a
 * checkpoint). */
typedef struct ice_writer {
	int kind;              /* ICE_DATA, ICE_EQ_DELETES, ICE_POS_DELETES */
	int32_t fidx;          /* data files: index into the sink's dpath */
	ice_stat *st;          /* data files: per column bounds */
	int fd;
	sl_encoder *enc;
	sl_buf out;            /* encoded bytes not yet written */
	ice_file f;            /* path, counts, partition record */
} ice_writer;

/* Closed data files of one checkpoint (k), not yet committed. */
typedef struct ice_pend {
	int64_t id;            /* checkpoint id; 0 = not pre-committed yet */
	ice_file f;
} ice_pend;

typedef struct ice_sink {
	sl_sink base;          /* must be first */
	ice_table t;
	sl_field *efields;     /* the encoder's fields (Iceberg's types) */
	sl_opts eopts;         /* the encoder's options */
	sl_arena arena;
	const char *warehouse, *db, *tbl;
	const char *tz;
	int64_t target;        /* 'write.target-file-size-bytes' */
	char *job;             /* with checkpointing: the job name; NULL = off */
	int attempt, overwrite;
	char runid[40];
	int64_t last_id;       /* highest checkpoint id pre-committed or recovered */
	int seq;               /* data files opened so far */
	ice_writer *w;         /* open writers */
	int nw, wcap;
	ice_pend *pend;        /* closed files, oldest first */
	int npend, pcap;
	sl_buf key, pathb;     /* scratch */
	int broken;
	/* row-level deletes (a PRIMARY KEY with 'write.upsert.enabled' or an
	 * updating input; see "Upserts" at the top) */
	int delta;             /* deletes by key are written */
	int upsert;            /* +I deletes its key first ('write.upsert.enabled') */
	sl_field *kfields;     /* equality delete files' columns: the key's */
	sl_opts kopts;         /* their encoder options (the key columns' ids) */
	sl_field pfields[2];   /* position delete files' columns: file_path, pos */
	sl_opts popts;
	ice_rowmap map;        /* key -> its row written in this checkpoint */
	char **dpath;          /* this checkpoint's data files (map positions name them) */
	int ndpath, dpcap;
	ice_posgrp *pg;        /* position deletes per partition */
	int npg, pgcap;
	uint8_t *insops;       /* SL_INSERT per row: the views the encoders get */
	int inscap;
	sl_col *kcols;         /* the key columns of the batch being written */
	sl_batch *pb;          /* rows of a position delete file */
	sl_buf rkey;           /* the key form of a row's key */
} ice_sink;

static int nomem(ice_sink *k, sl_err *err)
{
	return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", k->base.table);
}

static void file_free(ice_file *f)
{
	free(f->path);
	free(f->nulls);
	sl_buf_deinit(&f->part);
	sl_buf_deinit(&f->bounds);
	f->path = NULL;
	f->nulls = NULL;
}

/* The column's type as the Parquet encoder writes it for Iceberg. */
static sl_type enc_type(sl_type t)
{
	switch ((sl_type_id)t.id) {
	case SL_T_TINYINT: case SL_T_SMALLINT:
		t.id = SL_T_INT;
		break;
	case SL_T_TIMESTAMP: case SL_T_TIMESTAMP_LTZ: case SL_T_TIME:
		t.precision = 6;
		break;
	default:
		break;
	}
	return t;
}

static int read_options(ice_sink *k, const sl_conn_args *a, sl_err *err)
{
	const char *v;
	int64_t fv;
	(void)sl_opts_get(a->opts, "catalog-name");
	v = sl_opts_get(a->opts, "catalog-type");
	if (v && strcasecmp(v, "hadoop"))
		return sl_err_set(err, SL_ENOTSUP, "sink '%s': 'catalog-type' = '%s' is not supported: "
		                  "sluice has the 'hadoop' catalog (a warehouse directory) only",
		                  a->table, v);
	if (!(v = sl_opts_get(a->opts, "warehouse")))
		return sl_err_set(err, SL_EINVAL, "sink '%s': option 'warehouse' is required",
		                  a->table);
	if (!(k->warehouse = sl__fs_local_path(v, "sink", a->table, err)))
		return err->code;
	k->db = sl_opts_get(a->opts, "catalog-database");
	k->tbl = sl_opts_get(a->opts, "catalog-table");
	k->db = k->db ? k->db : "default";
	k->tbl = k->tbl ? k->tbl : a->table;
	if (!k->db[0] || !k->tbl[0] || strchr(k->db, '/') || strchr(k->tbl, '/') ||
	    k->db[0] == '.' || k->tbl[0] == '.')
		return sl_err_set(err, SL_EINVAL, "sink '%s': 'catalog-database' and 'catalog-table' "
		                  "must be names without '/' (got '%s', '%s')", a->table, k->db, k->tbl);
	if (sl_opts_int(a->opts, "format-version", 2, &fv, err) ||
	    sl_opts_size(a->opts, "write.target-file-size-bytes", ICE_DEFAULT_TARGET, &k->target,
	                 err) ||
	    sl_opts_bool(a->opts, "write.upsert.enabled", 0, &k->upsert, err)) {
		sl_err_prefix(err, "sink '%s'", a->table);
		return SL_EINVAL;
	}
	if (fv != 2)
		return sl_err_set(err, SL_ENOTSUP, "sink '%s': 'format-version' = '%lld': sluice "
		                  "writes Iceberg format version 2 tables", a->table, (long long)fv);
	if (k->upsert && a->npk == 0) /* Flink's refusal */
		return sl_err_set(err, SL_EINVAL, "sink '%s': 'write.upsert.enabled' = 'true' needs "
		                  "a PRIMARY KEY: equality field columns shouldn't be empty when "
		                  "configuring to use UPSERT data stream", a->table);
	if (k->target < 1)
		return sl_err_set(err, SL_EINVAL, "sink '%s': 'write.target-file-size-bytes' must be "
		                  "positive", a->table);
	v = sl_opts_get(a->opts, "write.format.default");
	if (v && strcasecmp(v, "parquet"))
		return sl_err_set(err, SL_ENOTSUP, "sink '%s': 'write.format.default' = '%s': sluice "
		                  "writes Parquet data files", a->table, v);
	v = sl_opts_get(a->opts, "write.parquet.compression-codec");
	sl_opts_init(&k->eopts, &k->arena);
	if (sl_opts_set(&k->eopts, "parquet.compression", v ? v : "zstd") ||
	    sl_opts_set(&k->eopts, "parquet.field-ids", "true"))
		return nomem(k, err);
	return 0;
}

/* The columns, their Iceberg types and ids, the partition spec, the key. */
static int read_schema(ice_sink *k, const sl_conn_args *a, sl_err *err)
{
	char tb[64];
	ice_table *t = &k->t;
	t->ncols = a->nfields;
	if (!(t->cols = calloc((size_t)a->nfields, sizeof *t->cols)) ||
	    !(k->efields = calloc((size_t)a->nfields, sizeof *k->efields)))
		return nomem(k, err);
	for (int i = 0; i < a->nfields; i++) {
		const sl_field *f = &a->fields[i];
		if (!sl__ice_type_name(f->type, tb, sizeof tb) ||
		    (f->type.id == SL_T_DECIMAL && f->type.precision > 38))
			return sl_err_set(err, SL_ENOTSUP, "sink '%s': column '%s' of type %s has no "
			                  "Iceberg type in sluice", a->table, f->name,
			                  sl_type_format(f->type, tb, sizeof tb));
		t->cols[i] = (ice_col){f->name, f->type, i + 1};
		/* Parquet column names as Iceberg's writers make them (icebird
		 * relies on it; readers by field id do not care) */
		sl_buf_clear(&k->key);
		if (sl__ice_avro_name(&k->key, f->name) || !sl_buf_cstr(&k->key))
			return nomem(k, err);
		k->efields[i] = (sl_field){sl_arena_strdup(&k->arena, k->key.p), enc_type(f->type)};
		if (!k->efields[i].name)
			return nomem(k, err);
	}
	const char *spec = sl_opts_get(a->opts, "partitioning");
	if (spec && a->npart)
		return sl_err_set(err, SL_EINVAL, "sink '%s': PARTITIONED BY and 'partitioning' "
		                  "together: use one", a->table);
	int rc = sl__ice_partitioning(spec, a->part, a->npart, a->fields, a->nfields, a->table,
	                              &t->pf, &t->npf, err);
	if (rc)
		return rc;
	t->pk = a->pk;
	t->npk = a->npk;
	for (int i = 0; i < a->npk; i++)
		t->cols[a->pk[i]].type.notnull = 1; /* identifier fields are required */
	return 0;
}

/*
 * Row-level deletes: the delete files' columns and encoder options, and
 * Flink's rule that a partition field's source column is a key column
 * (a key's rows, and so its deletes, then stay in one partition).
 */
static int delta_setup(ice_sink *k, const sl_conn_args *a, sl_err *err)
{
	ice_table *t = &k->t;
	k->delta = t->npk > 0 && (k->upsert || a->updating);
	if (!k->delta)
		return 0;
	for (int i = 0; i < t->npf; i++) {
		int in = 0;
		for (int j = 0; j < t->npk; j++)
			in |= t->pk[j] == t->pf[i].col;
		if (!in)
			return sl_err_set(err, SL_EPLAN, "sink '%s': in upsert mode the source column "
			                  "'%s' of partition field '%s' should be included in the "
			                  "PRIMARY KEY (the equality fields)", a->table,
			                  t->cols[t->pf[i].col].name, t->pf[i].name);
	}
	sl_buf ids;
	sl_buf_init(&ids);
	if (!(k->kfields = calloc((size_t)t->npk, sizeof *k->kfields)) ||
	    !(k->kcols = calloc((size_t)t->npk, sizeof *k->kcols)))
		return nomem(k, err);
	for (int i = 0; i < t->npk; i++) {
		k->kfields[i] = k->efields[t->pk[i]];
		sl_buf_printf(&ids, "%s%d", i ? "," : "", t->cols[t->pk[i]].id);
	}
	sl_opts_init(&k->kopts, &k->arena);
	sl_opts_init(&k->popts, &k->arena);
	const char *codec = sl_opts_get(&k->eopts, "parquet.compression");
	/* the spec's reserved ids of position delete files' columns */
	int rc = !sl_buf_cstr(&ids) || sl_opts_set(&k->kopts, "parquet.compression", codec) ||
	         sl_opts_set(&k->kopts, "parquet.field-ids", ids.p) ||
	         sl_opts_set(&k->popts, "parquet.compression", codec) ||
	         sl_opts_set(&k->popts, "parquet.field-ids", "2147483546,2147483545");
	sl_buf_deinit(&ids);
	if (rc)
		return nomem(k, err);
	sl_type ts = {.id = SL_T_VARCHAR, .notnull = 1, .length = SL_STRING_LEN};
	sl_type tl = {.id = SL_T_BIGINT, .notnull = 1};
	k->pfields[0] = (sl_field){"file_path", ts};
	k->pfields[1] = (sl_field){"pos", tl};
	sl_type types[2] = {ts, tl};
	if (!(k->pb = sl_batch_new(2, types, 1024)))
		return nomem(k, err);
	sl__ice_rowmap_init(&k->map);
	return 0;
}

static int ice_configure(sl_sink *s, const sl_conn_args *a, sl_err *err)
{
	ice_sink *k = (ice_sink *)s;
	int rc;
	sl_arena_init(&k->arena, 4096);
	sl_buf_init(&k->key);
	sl_buf_init(&k->rkey);
	sl_buf_init(&k->pathb);
	k->t.name = a->table;
	k->tz = a->tz;
	if (a->nsubtasks > 1)
		return sl_err_set(err, SL_ENOTSUP, "sink '%s': the iceberg sink runs as one instance "
		                  "(instance %d of %d asked)", a->table, a->subtask, a->nsubtasks);
	if ((rc = read_options(k, a, err)) || (rc = read_schema(k, a, err)) ||
	    (rc = delta_setup(k, a, err)))
		return rc;
	if (a->checkpointing) {
		if (!a->job || !a->job[0] || strlen(a->job) > 128 || strchr(a->job, '/') ||
		    a->attempt < 0)
			return sl_err_set(err, SL_EINVAL, "sink '%s': checkpointing needs a job name of "
			                  "1-128 bytes without '/' (job '%s')", a->table,
			                  a->job ? a->job : "(none)");
		if (!(k->job = strdup(a->job)))
			return nomem(k, err);
		k->attempt = a->attempt;
		k->overwrite = a->overwrite_output;
	}
	/* the encoder is made per file; check the options and types once here */
	sl_encoder *e = sl_encoder_new(sl_format_find("parquet"), k->efields, k->t.ncols,
	                               &k->eopts, err);
	if (!e) {
		sl_err_prefix(err, "sink '%s'", a->table);
		return err->code ? err->code : SL_EINVAL;
	}
	sl_encoder_free(e);
	return 0;
}

static int ice_open(sl_sink *s, sl_err *err)
{
	ice_sink *k = (ice_sink *)s;
	char cwd[ICE_PATH], path[ICE_PATH];
	struct timeval tv;
	if (k->warehouse[0] != '/') {
		if (!getcwd(cwd, sizeof cwd))
			return sl_err_set(err, SL_EIO, "sink '%s': getcwd: %s", s->table, strerror(errno));
		snprintf(path, sizeof path, "%s/%s/%s/%s", cwd, k->warehouse, k->db, k->tbl);
	} else {
		snprintf(path, sizeof path, "%s/%s/%s", k->warehouse, k->db, k->tbl);
	}
	if (!(k->t.dir = strdup(path)) || !(k->t.loc = strdup(path)))
		return nomem(k, err);
	gettimeofday(&tv, NULL);
	snprintf(k->runid, sizeof k->runid, "%llx%05x",
	         (unsigned long long)tv.tv_sec * 1000000ULL + (unsigned long long)tv.tv_usec,
	         (unsigned)getpid() & 0xfffff);
	return sl__ice_table_open(&k->t, err);
}

/* Appends the partition directory of row `row` ("a=1/b_hour=.../"). */
static int part_dir(ice_sink *k, const sl_batch *b, int row, sl_buf *out)
{
	int rc = 0;
	for (int i = 0; i < k->t.npf; i++)
		rc |= sl__ice_part_path(&k->t.pf[i], &b->cols[k->t.pf[i].col], row, k->tz, out);
	return rc;
}

/*
 * Opens a file of kind (ICE_DATA, ICE_EQ_DELETES, ICE_POS_DELETES) for the
 * partition whose record is part[0..plen) and directory dir (under
 * data/), as k->w[k->nw - 1].  Data files are also listed in k->dpath.
 */
static int open_writer(ice_sink *k, int kind, const char *part, size_t plen, const char *dir,
                       sl_err *err)
{
	char path[ICE_PATH];
	static const char *const suffix[] = {".parquet", "-pos-delete.parquet",
	                                     "-eq-delete.parquet"};
	int rc;
	if (k->nw == k->wcap) {
		int cap = k->wcap ? k->wcap * 2 : 4;
		ice_writer *nw = realloc(k->w, (size_t)cap * sizeof *nw);
		if (!nw)
			return nomem(k, err);
		k->w = nw;
		k->wcap = cap;
	}
	if (kind == ICE_DATA && k->ndpath == k->dpcap) {
		int cap = k->dpcap ? k->dpcap * 2 : 16;
		char **np = realloc(k->dpath, (size_t)cap * sizeof *np);
		if (!np)
			return nomem(k, err);
		k->dpath = np;
		k->dpcap = cap;
	}
	ice_writer *w = &k->w[k->nw];
	memset(w, 0, sizeof *w);
	w->fd = -1;
	w->kind = kind;
	w->fidx = -1;
	sl_buf_init(&w->out);
	sl_buf_init(&w->f.part);
	sl_buf_init(&w->f.bounds);
	w->f.content = kind;
	sl_buf_clear(&k->pathb);
	if (sl_buf_printf(&k->pathb, "%s/data/%s", k->t.dir, dir) || !sl_buf_cstr(&k->pathb))
		return nomem(k, err);
	if ((rc = sl_mkdirs(k->pathb.p, err))) {
		sl_err_prefix(err, "sink '%s'", k->base.table);
		return rc;
	}
	if (k->job)
		snprintf(path, sizeof path, "%s%s-a%d-c%lld-%d%s", k->pathb.p, k->job,
		         k->attempt, (long long)k->last_id + 1, k->seq, suffix[kind]);
	else
		snprintf(path, sizeof path, "%s%s-%d%s", k->pathb.p, k->runid, k->seq, suffix[kind]);
	k->seq++;
	if (!(w->f.path = strdup(path)) ||
	    !(w->f.nulls = calloc((size_t)k->t.ncols, sizeof *w->f.nulls)) ||
	    sl_buf_append(&w->f.part, part, plen))
		goto nomem;
	if (kind == ICE_DATA) {
		if (!(w->st = calloc((size_t)k->t.ncols, sizeof *w->st)))
			goto nomem;
		if (!(k->dpath[k->ndpath] = strdup(path))) {
			free(w->st);
			goto nomem;
		}
		w->fidx = k->ndpath++;
	}
	w->f.ncols = k->t.ncols;
	k->nw++; /* from here close_writers frees it */
	if ((w->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0)
		return sl_err_set(err, SL_EIO, "sink '%s': cannot create '%s': %s", k->base.table,
		                  path, strerror(errno));
	const sl_field *fields = kind == ICE_DATA ? k->efields : kind == ICE_EQ_DELETES ? k->kfields
	                                                                              : k->pfields;
	int nf = kind == ICE_DATA ? k->t.ncols : kind == ICE_EQ_DELETES ? k->t.npk : 2;
	const sl_opts *o = kind == ICE_DATA ? &k->eopts : kind == ICE_EQ_DELETES ? &k->kopts
	                                                                         : &k->popts;
	if (!(w->enc = sl_encoder_new(sl_format_find("parquet"), fields, nf, o, err)))
		return err->code ? err->code : SL_EINVAL;
	size_t before = w->out.len;
	rc = w->enc->vt->file_begin(w->enc, &w->out, err);
	w->f.bytes += (int64_t)(w->out.len - before);
	return rc;
nomem:
	file_free(&w->f);
	sl_buf_deinit(&w->out);
	return nomem(k, err);
}

static int flush_writer(ice_sink *k, ice_writer *w, sl_err *err)
{
	size_t done = 0;
	while (done < w->out.len) {
		size_t n = w->out.len - done;
		ssize_t r = write(w->fd, w->out.p + done, n > ICE_WRITE_CHUNK ? ICE_WRITE_CHUNK : n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			k->broken = 1;
			return sl_err_set(err, SL_EIO, "sink '%s': cannot write '%s': %s", k->base.table,
			                  w->f.path, strerror(errno));
		}
		done += (size_t)r;
	}
	sl_buf_clear(&w->out);
	return 0;
}

/* Ends writer i's file (footer, fsync, close) and queues it as pending. */
static int close_writer(ice_sink *k, int i, sl_err *err)
{
	ice_writer *w = &k->w[i];
	int rc = 0;
	size_t before = w->out.len;
	if (w->enc && !k->broken)
		rc = w->enc->vt->file_end(w->enc, &w->out, err);
	w->f.bytes += (int64_t)(w->out.len - before);
	if (!rc && !k->broken)
		rc = flush_writer(k, w, err);
	if (!rc && !k->broken && w->fd >= 0 && fsync(w->fd))
		rc = sl_err_set(err, SL_EIO, "sink '%s': cannot fsync '%s': %s", k->base.table,
		                w->f.path, strerror(errno));
	if (w->fd >= 0)
		close(w->fd);
	if (w->enc)
		sl_encoder_free(w->enc);
	sl_buf_deinit(&w->out);
	if (!rc && w->st && sl__ice_stats_encode(w->st, &k->t, &w->f.bounds))
		rc = nomem(k, err);
	sl__ice_stats_free(w->st, k->t.ncols);
	w->st = NULL;
	if (rc || k->broken || w->f.rows == 0) {
		if (w->f.path)
			unlink(w->f.path);
		file_free(&w->f);
		k->broken |= rc != 0;
	} else {
		char *slash = strrchr(w->f.path, '/');
		*slash = 0;
		int dfd = open(w->f.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		*slash = '/';
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
		if (k->npend == k->pcap) {
			int cap = k->pcap ? k->pcap * 2 : 8;
			ice_pend *np = realloc(k->pend, (size_t)cap * sizeof *np);
			if (!np) {
				file_free(&w->f);
				rc = nomem(k, err);
				goto out;
			}
			k->pend = np;
			k->pcap = cap;
		}
		k->pend[k->npend++] = (ice_pend){0, w->f};
	}
out:
	k->w[i] = k->w[--k->nw];
	return rc;
}

static int close_writers(ice_sink *k, sl_err *err)
{
	int rc = 0;
	while (k->nw > 0) {
		int r = close_writer(k, k->nw - 1, err);
		rc = rc ? rc : r;
	}
	return rc;
}

/* The open writer of kind for the partition whose record is in k->key,
 * opened for row `row` of b when there is none: its index, or -1 with err
 * set. */
static int writer_for(ice_sink *k, int kind, const sl_batch *b, int row, sl_err *err)
{
	for (int wi = 0; wi < k->nw; wi++)
		if (k->w[wi].kind == kind && k->w[wi].f.part.len == k->key.len &&
		    !memcmp(k->w[wi].f.part.p, k->key.p, k->key.len))
			return wi;
	sl_buf dir;
	sl_buf_init(&dir);
	int rc = part_dir(k, b, row, &dir) || sl_buf_putc(&dir, 0) ? nomem(k, err)
	         : open_writer(k, kind, k->key.p, k->key.len, dir.p, err);
	sl_buf_deinit(&dir);
	if (rc) {
		k->broken = 1;
		return -1;
	}
	return k->nw - 1;
}

/* Encodes row `row` of b into writer wi, whose file may close at the
 * target size.  0 or a code with err. */
static int put_row(ice_sink *k, int wi, const sl_batch *b, int row, sl_err *err)
{
	ice_writer *w = &k->w[wi];
	size_t before = w->out.len;
	int rc;
	if ((rc = w->enc->vt->encode(w->enc, b, row, &w->out, err))) {
		sl_err_prefix(err, "sink '%s'", k->base.table);
		k->broken = 1;
		return rc;
	}
	w->f.bytes += (int64_t)(w->out.len - before);
	w->f.rows++;
	if (w->kind == ICE_DATA) {
		for (int c = 0; c < k->t.ncols; c++)
			w->f.nulls[c] += b->cols[c].null[row];
		if (sl__ice_stats_add(w->st, &k->t, b, row))
			return nomem(k, err);
	}
	if (w->out.len >= ICE_WRITE_CHUNK && (rc = flush_writer(k, w, err)))
		return rc;
	if (w->f.bytes + w->enc->vt->file_buffered(w->enc) >= k->target &&
	    (rc = close_writer(k, wi, err)))
		return rc;
	return 0;
}

/* A position delete of (file, pos) in the partition of k->key (row `row`
 * of b: its directory). */
static int add_posdel(ice_sink *k, const sl_batch *b, int row, int32_t file, int64_t pos,
                      sl_err *err)
{
	int gi;
	for (gi = 0; gi < k->npg; gi++)
		if (k->pg[gi].part.len == k->key.len && !memcmp(k->pg[gi].part.p, k->key.p,
		                                                k->key.len))
			break;
	if (gi == k->npg) {
		if (k->npg == k->pgcap) {
			int cap = k->pgcap ? k->pgcap * 2 : 4;
			ice_posgrp *ng = realloc(k->pg, (size_t)cap * sizeof *ng);
			if (!ng)
				return nomem(k, err);
			k->pg = ng;
			k->pgcap = cap;
		}
		ice_posgrp *g = &k->pg[k->npg];
		memset(g, 0, sizeof *g);
		sl_buf_init(&g->part);
		sl_buf dir;
		sl_buf_init(&dir);
		int bad = sl_buf_append(&g->part, k->key.p, k->key.len) || part_dir(k, b, row, &dir) ||
		          !sl_buf_cstr(&dir) || !(g->dir = strdup(dir.p));
		sl_buf_deinit(&dir);
		k->npg++;
		if (bad)
			return nomem(k, err);
	}
	return sl__ice_posdel_add(&k->pg[gi], file, pos) ? nomem(k, err) : 0;
}

/*
 * Deletes key rkey (row `row` of b): by position when its row was written
 * in this checkpoint; nothing when the key was deleted already in this
 * checkpoint (its rows of earlier checkpoints are gone or never were:
 * the key's first appearance in the checkpoint deleted them or was an
 * insert); else by equality (a row of kv), which deletes its rows of
 * earlier checkpoints.
 */
static int delete_key(ice_sink *k, const sl_batch *b, const sl_batch *kv, int row,
                      sl_err *err)
{
	int32_t file;
	int64_t pos;
	int r = sl__ice_rowmap_take(&k->map, k->rkey.p, k->rkey.len, &file, &pos);
	if (r == 1)
		return add_posdel(k, b, row, file, pos, err);
	if (r == 2)
		return 0;
	int wi = writer_for(k, ICE_EQ_DELETES, b, row, err), rc;
	if (wi < 0)
		return err->code;
	if ((rc = put_row(k, wi, kv, row, err)))
		return rc;
	return sl__ice_rowmap_put(&k->map, k->rkey.p, k->rkey.len, -1, 0, &file, &pos) < 0
	       ? nomem(k, err) : 0;
}

/*
 * Writes the live rows of b.  Appending (no key, or a key with an
 * insert-only input and no 'write.upsert.enabled'): every row is an
 * insert.  With row-level deletes: -D (and a -U, which op_sink.c's upsert
 * view never passes) deletes its key; +U deletes its key and writes the
 * row; +I writes the row, deleting its key first with
 * 'write.upsert.enabled'.  A row replacing a row of its key written in
 * this checkpoint deletes that one by position in either case.
 */
static int ice_write(sl_sink *s, const sl_batch *b, sl_err *err)
{
	ice_sink *k = (ice_sink *)s;
	int n = sl_batch_live(b), rc;
	sl_batch dv, kv;
	if (k->broken)
		return sl_err_set(err, SL_EIO, "sink '%s': an earlier write failed", s->table);
	if (k->delta) {
		if (b->nrows > k->inscap) {
			uint8_t *ops = realloc(k->insops, (size_t)b->nrows);
			if (!ops)
				return nomem(k, err);
			memset(ops, SL_INSERT, (size_t)b->nrows);
			k->insops = ops;
			k->inscap = b->nrows;
		}
		dv = *b;
		dv.op = k->insops; /* the encoders write inserts */
		kv = dv;
		kv.ncols = k->t.npk;
		kv.cols = k->kcols;
		for (int i = 0; i < k->t.npk; i++)
			k->kcols[i] = b->cols[k->t.pk[i]];
	}
	for (int j = 0; j < n; j++) {
		int row = b->sel ? (int)b->sel[j] : j, wi, op = b->op[row];
		if (!k->delta && op != SL_INSERT)
			return sl_err_set(err, SL_EINVAL, "sink '%s': the iceberg sink appends: it cannot "
			                  "take an update or delete", s->table);
		sl_buf_clear(&k->key);
		for (int i = 0; i < k->t.npf; i++)
			if (sl__ice_part_value(&k->t.pf[i], &b->cols[k->t.pf[i].col], row, &k->key))
				return nomem(k, err);
		s->rows_written++;
		if (!k->delta) {
			if ((wi = writer_for(k, ICE_DATA, b, row, err)) < 0)
				return err->code;
			if ((rc = put_row(k, wi, b, row, err)))
				return rc;
			continue;
		}
		sl_buf_clear(&k->rkey);
		if (sl_rowcodec_key(b, k->t.pk, k->t.npk, row, &k->rkey))
			return nomem(k, err);
		if ((op != SL_INSERT || k->upsert) && (rc = delete_key(k, b, &kv, row, err)))
			return rc;
		if (op != SL_INSERT && op != SL_UPDATE_AFTER)
			continue;
		if ((wi = writer_for(k, ICE_DATA, b, row, err)) < 0)
			return err->code;
		int32_t pfile, fidx = k->w[wi].fidx;
		int64_t ppos, pos = k->w[wi].f.rows;
		int had = sl__ice_rowmap_put(&k->map, k->rkey.p, k->rkey.len, fidx, pos, &pfile, &ppos);
		if (had < 0)
			return nomem(k, err);
		if ((rc = put_row(k, wi, &dv, row, err)) ||
		    (had && (rc = add_posdel(k, b, row, pfile, ppos, err))))
			return rc;
	}
	return 0;
}

/*
 * Writes the position deletes collected since the last checkpoint, one
 * file per partition sorted by file_path then pos (the spec's order), and
 * forgets the checkpoint's row positions: its data files are closed.
 * After close_writers.
 */
static int flush_deletes(ice_sink *k, sl_err *err)
{
	int rc = 0;
	for (int gi = 0; gi < k->npg && !rc; gi++) {
		ice_posgrp *g = &k->pg[gi];
		if (g->n == 0)
			continue;
		sl__ice_posdel_sort(g, k->dpath);
		if ((rc = open_writer(k, ICE_POS_DELETES, g->part.p, g->part.len, g->dir, err))) {
			k->broken = 1;
			break;
		}
		int wi = k->nw - 1;
		for (int64_t i = 0; i < g->n && !rc; i++) {
			ice_writer *w = &k->w[wi];
			if (k->pb->nrows == k->pb->cap)
				sl_batch_reset(k->pb);
			int r = sl_batch_add_row(k->pb, SL_INSERT, 0);
			const char *p = k->dpath[g->d[i].file];
			sl_col_set_str_ref(&k->pb->cols[0], r, p, (int64_t)strlen(p));
			sl_col_set_i64(&k->pb->cols[1], r, g->d[i].pos);
			size_t before = w->out.len;
			if ((rc = w->enc->vt->encode(w->enc, k->pb, r, &w->out, err))) {
				k->broken = 1;
				break;
			}
			w->f.bytes += (int64_t)(w->out.len - before);
			w->f.rows++;
			if (w->out.len >= ICE_WRITE_CHUNK)
				rc = flush_writer(k, w, err);
		}
		sl_batch_reset(k->pb);
		int r = close_writer(k, wi, err);
		rc = rc ? rc : r;
	}
	for (int gi = 0; gi < k->npg; gi++)
		sl__ice_posgrp_free(&k->pg[gi]);
	k->npg = 0;
	for (int i = 0; i < k->ndpath; i++)
		free(k->dpath[i]);
	k->ndpath = 0;
	if (k->delta)
		sl__ice_rowmap_clear(&k->map);
	return rc;
}

/*
 * Commits the pending files of checkpoints <= upto (all when upto < 0):
 * each checkpoint's files as a snapshot of their own, oldest first, ending
 * that checkpoint (ckpt when no checkpointing: 0).  One snapshot per
 * checkpoint keeps the order of deletes: an equality delete of checkpoint
 * c must apply to the rows of checkpoint c - 1, which it does only when
 * their sequence number is lower, as Flink's committer does.
 */
static int commit_pending(ice_sink *k, int64_t upto, int64_t ckpt, sl_err *err)
{
	int rc = 0;
	while (k->npend > 0 && (upto < 0 || (k->pend[0].id > 0 && k->pend[0].id <= upto))) {
		int64_t id = k->pend[0].id;
		int n = 0;
		while (n < k->npend && k->pend[n].id == id)
			n++;
		ice_file *files = malloc((size_t)n * sizeof *files);
		if (!files)
			return nomem(k, err);
		for (int i = 0; i < n; i++)
			files[i] = k->pend[i].f;
		ice_commit c = {files, n, k->job ? k->job : k->runid, k->job ? id : ckpt, 0, 0, NULL, 0};
		rc = sl__ice_commit(&k->t, &c, err);
		free(files);
		if (rc)
			return rc;
		for (int i = 0; i < n; i++)
			file_free(&k->pend[i].f);
		memmove(k->pend, k->pend + n, (size_t)(k->npend - n) * sizeof *k->pend);
		k->npend -= n;
	}
	return 0;
}

/* Without checkpointing: everything as one snapshot.  With: close only. */
static int ice_finish(sl_sink *s, sl_err *err)
{
	ice_sink *k = (ice_sink *)s;
	int rc = close_writers(k, err);
	if (!rc && !k->broken)
		rc = flush_deletes(k, err);
	if (rc || k->job)
		return rc;
	if (k->broken)
		return sl_err_set(err, SL_EIO, "sink '%s': an earlier write failed: nothing is "
		                  "committed", s->table);
	return commit_pending(k, -1, 0, err);
}

static int need_ckpt(ice_sink *k, const char *what, sl_err *err)
{
	if (!k->job)
		return sl_err_set(err, SL_EINVAL, "sink '%s': %s without checkpointing",
		                  k->base.table, what);
	return 0;
}

/*
 * pre_commit: closes every open file, writes the position deletes, and
 * writes (version 3): u8 3, bytes job, i64 id, u32 count, then per file
 * not yet committed: i64 its checkpoint, u8 content (ICE_DATA, ...;
 * version 1 has no such byte: data), bytes path, i64 rows, i64 bytes,
 * bytes partition record, u32 columns, i64 NULL count per column, bytes
 * bounds (the manifest's encoding; not in versions 1 and 2: none).
 */
static int ice_pre_commit(sl_sink *s, int64_t id, sl_snap_writer *w, sl_err *err)
{
	ice_sink *k = (ice_sink *)s;
	int rc;
	if ((rc = need_ckpt(k, "pre_commit", err)))
		return rc;
	if (id <= k->last_id)
		return sl_err_set(err, SL_EINVAL, "sink '%s': checkpoint %lld after checkpoint "
		                  "%lld: ids must increase", s->table, (long long)id,
		                  (long long)k->last_id);
	if ((rc = close_writers(k, err)) || (!k->broken && (rc = flush_deletes(k, err))))
		return rc;
	if (k->broken)
		return sl_err_set(err, SL_EIO, "sink '%s': an earlier write failed", s->table);
	for (int i = 0; i < k->npend; i++)
		if (k->pend[i].id == 0)
			k->pend[i].id = id;
	k->last_id = id;
	sl_snap_put_u8(w, ICE_SNAP_VERSION);
	sl_snap_put_bytes(w, k->job, strlen(k->job));
	sl_snap_put_i64(w, id);
	sl_snap_put_u32(w, (uint32_t)k->npend);
	for (int i = 0; i < k->npend; i++) {
		const ice_file *f = &k->pend[i].f;
		sl_snap_put_i64(w, k->pend[i].id);
		sl_snap_put_u8(w, (uint8_t)f->content);
		sl_snap_put_bytes(w, f->path, strlen(f->path));
		sl_snap_put_i64(w, f->rows);
		sl_snap_put_i64(w, f->bytes);
		sl_snap_put_bytes(w, f->part.p, f->part.len);
		sl_snap_put_u32(w, (uint32_t)f->ncols);
		for (int c = 0; c < f->ncols; c++)
			sl_snap_put_i64(w, f->nulls[c]);
		sl_snap_put_bytes(w, f->bounds.p ? f->bounds.p : "", f->bounds.len);
	}
	if (w->failed)
		return nomem(k, err);
	return 0;
}

/* commit: one snapshot of the files of checkpoints <= id (idempotent). */
static int ice_commit_hook(sl_sink *s, int64_t id, sl_err *err)
{
	ice_sink *k = (ice_sink *)s;
	int rc = need_ckpt(k, "commit", err);
	return rc ? rc : commit_pending(k, id, id, err);
}

/* abort: deletes checkpoint id's files (as the filesystem sink does). */
static int ice_abort(sl_sink *s, int64_t id, sl_err *err)
{
	ice_sink *k = (ice_sink *)s;
	int rc = need_ckpt(k, "abort", err), n = 0;
	if (rc)
		return rc;
	for (int i = 0; i < k->npend; i++) {
		if (k->pend[i].id == id) {
			unlink(k->pend[i].f.path);
			file_free(&k->pend[i].f);
		} else {
			k->pend[n++] = k->pend[i];
		}
	}
	k->npend = n;
	return 0;
}

/* Reads recover's bytes into k->pend. */
static int read_restored(ice_sink *k, sl_snap_reader *r, int64_t *id, sl_err *err)
{
	size_t n;
	uint8_t ver = sl_snap_get_u8(r);
	const char *job = sl_snap_get_bytes(r, &n);
	*id = sl_snap_get_i64(r);
	uint32_t cnt = sl_snap_get_u32(r);
	if (!sl_snap_reader_ok(r) || ver < 1 || ver > ICE_SNAP_VERSION || !job ||
	    n != strlen(k->job) ||
	    memcmp(job, k->job, n) || cnt > r->len)
		goto damaged;
	for (uint32_t i = 0; i < cnt; i++) {
		ice_pend p;
		memset(&p, 0, sizeof p);
		sl_buf_init(&p.f.part);
		sl_buf_init(&p.f.bounds);
		p.id = sl_snap_get_i64(r);
		p.f.content = ver >= 2 ? sl_snap_get_u8(r) : ICE_DATA;
		if (p.f.content > ICE_EQ_DELETES || (p.f.content != ICE_DATA && !k->delta))
			goto damaged;
		const char *path = sl_snap_get_bytes(r, &n);
		if (!path || n == 0 || n >= ICE_PATH || memchr(path, 0, n))
			goto damaged;
		p.f.path = strndup(path, n);
		p.f.rows = sl_snap_get_i64(r);
		p.f.bytes = sl_snap_get_i64(r);
		const char *part = sl_snap_get_bytes(r, &n);
		uint32_t nc = sl_snap_get_u32(r);
		if (!p.f.path || !sl_snap_reader_ok(r) || (int)nc != k->t.ncols ||
		    (n && sl_buf_append(&p.f.part, part, n)) ||
		    !(p.f.nulls = calloc(nc, sizeof *p.f.nulls))) {
			file_free(&p.f);
			goto damaged;
		}
		p.f.ncols = (int)nc;
		for (uint32_t c = 0; c < nc; c++)
			p.f.nulls[c] = sl_snap_get_i64(r);
		if (ver >= 3) {
			const char *bd = sl_snap_get_bytes(r, &n);
			if (!sl_snap_reader_ok(r) || (n && sl_buf_append(&p.f.bounds, bd, n))) {
				file_free(&p.f);
				goto damaged;
			}
		}
		if (k->npend == k->pcap) {
			int cap = k->pcap ? k->pcap * 2 : 8;
			ice_pend *np = realloc(k->pend, (size_t)cap * sizeof *np);
			if (!np) {
				file_free(&p.f);
				return nomem(k, err);
			}
			k->pend = np;
			k->pcap = cap;
		}
		k->pend[k->npend++] = p;
	}
	if (!sl_snap_reader_ok(r) || r->pos != r->len)
		goto damaged;
	return 0;
damaged:
	return sl_err_set(err, SL_ESTATE, "sink '%s': damaged iceberg sink checkpoint data",
	                  k->base.table);
}

/* Whether name is a data file of job of a checkpoint > after. */
static const char *g_job;
static int64_t g_after;
static int g_gone;

static int later_file(const char *name)
{
	size_t jl = strlen(g_job);
	const char *p;
	char *end;
	if (strncmp(name, g_job, jl) || strncmp(name + jl, "-a", 2))
		return 0;
	p = name + jl + 2;
	strtoll(p, &end, 10);
	if (end == p || strncmp(end, "-c", 2))
		return 0;
	p = end + 2;
	long long c = strtoll(p, &end, 10);
	if (end == p || *end != '-')
		return 0;
	p = end + 1;
	strtoll(p, &end, 10);
	return end != p && c > g_after && (!strcmp(end, ".parquet") ||
	       !strcmp(end, "-pos-delete.parquet") || !strcmp(end, "-eq-delete.parquet"));
}

static int drop_later(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	if (type == FTW_F && later_file(path + ftw->base) && unlink(path) == 0)
		g_gone++;
	return 0;
}

/*
 * recover: r = the restored checkpoint's pre-commit data, NULL on a fresh
 * start.  Commits its files as checkpoint R's snapshot unless the table
 * holds R already; refuses when it holds a newer checkpoint of the job
 * (or, fresh, any); deletes the job's data files of checkpoints > R.
 */
static int ice_recover(sl_sink *s, sl_snap_reader *r, sl_err *err)
{
	ice_sink *k = (ice_sink *)s;
	int64_t id = 0, max = 0;
	int rc;
	char dir[ICE_PATH];
	if ((rc = need_ckpt(k, "recover", err)))
		return rc;
	if (k->nw > 0 || k->npend > 0)
		return sl_err_set(err, SL_EINVAL, "sink '%s': recover after output was written",
		                  s->table);
	if ((r && (rc = read_restored(k, r, &id, err))) ||
	    (rc = sl__ice_committed(&k->t, k->job, &max, err)))
		return rc;
	if (max > id) {
		if (id == 0)
			return sl_err_set(err, SL_ESTATE, "sink '%s': table '%s' holds checkpoint %lld "
			                  "of job '%s', and the job starts without a checkpoint: its rows "
			                  "would be written twice; use another table or rename the job",
			                  s->table, k->t.dir, (long long)max, k->job);
		return sl_err_set(err, SL_ESTATE, "sink '%s': table '%s' holds checkpoint %lld of job "
		                  "'%s', newer than the restored checkpoint %lld: falling back would "
		                  "repeat its rows", s->table, k->t.dir, (long long)max, k->job,
		                  (long long)id);
	}
	for (int i = 0; i < k->npend; i++) {
		struct stat sb;
		if (stat(k->pend[i].f.path, &sb))
			return sl_err_set(err, SL_ESTATE, "sink '%s': data file '%s' of checkpoint %lld "
			                  "is missing", s->table, k->pend[i].f.path, (long long)id);
	}
	/* files of checkpoints the table holds (a commit that landed after the
	 * list was written) are not committed again */
	int keep = 0;
	for (int i = 0; i < k->npend; i++)
		if (k->pend[i].id <= max)
			file_free(&k->pend[i].f);
		else
			k->pend[keep++] = k->pend[i];
	k->npend = keep;
	if (max < id && (rc = commit_pending(k, id, id, err)))
		return rc;
	for (int i = 0; i < k->npend; i++) /* the table had them (max == id) */
		file_free(&k->pend[i].f);
	k->npend = 0;
	g_job = k->job;
	g_after = id;
	g_gone = 0;
	snprintf(dir, sizeof dir, "%s/data", k->t.dir);
	nftw(dir, drop_later, 16, FTW_PHYS);
	if (id > k->last_id)
		k->last_id = id;
	return 0;
}

static void ice_close(sl_sink *s)
{
	ice_sink *k = (ice_sink *)s;
	for (int i = 0; i < k->nw; i++) {
		ice_writer *w = &k->w[i];
		if (w->fd >= 0)
			close(w->fd);
		if (w->enc)
			sl_encoder_free(w->enc);
		sl_buf_deinit(&w->out);
		sl__ice_stats_free(w->st, k->t.ncols);
		file_free(&w->f);
	}
	for (int i = 0; i < k->npend; i++)
		file_free(&k->pend[i].f);
	free(k->w);
	free(k->pend);
	free(k->t.cols);
	sl__ice_pfields_free(k->t.pf, k->t.npf);
	free(k->t.dir);
	free(k->t.loc);
	free(k->efields);
	free(k->kfields);
	free(k->kcols);
	free(k->insops);
	for (int i = 0; i < k->npg; i++)
		sl__ice_posgrp_free(&k->pg[i]);
	free(k->pg);
	for (int i = 0; i < k->ndpath; i++)
		free(k->dpath[i]);
	free(k->dpath);
	sl_batch_free(k->pb);
	sl__ice_rowmap_free(&k->map);
	free(k->job);
	sl_buf_deinit(&k->rkey);
	sl_buf_deinit(&k->key);
	sl_buf_deinit(&k->pathb);
	sl_arena_deinit(&k->arena);
	k->w = NULL;
	k->pend = NULL;
	k->pg = NULL;
	k->dpath = NULL;
	k->pb = NULL;
	k->kfields = NULL;
	k->kcols = NULL;
	k->insops = NULL;
	k->nw = k->npend = k->npg = k->ndpath = 0;
}

const ice_table *sl__ice_sink_table(const sl_sink *s)
{
	return &((const ice_sink *)s)->t;
}

int sl__ice_sink_replace(sl_sink *s, int64_t base, const ice_gone *gone, int ngone,
                         int64_t *files, int64_t *rows, sl_err *err)
{
	ice_sink *k = (ice_sink *)s;
	int rc = close_writers(k, err);
	ice_file *fs = k->npend ? malloc((size_t)k->npend * sizeof *fs) : NULL;
	if (!rc && k->npend && !fs)
		rc = nomem(k, err);
	*files = *rows = 0;
	for (int i = 0; !rc && i < k->npend; i++) {
		fs[i] = k->pend[i].f;
		(*files)++;
		*rows += fs[i].rows;
	}
	if (!rc) {
		ice_commit c = {fs, k->npend, NULL, 0, 1, base, gone, ngone};
		rc = sl__ice_commit(&k->t, &c, err);
	}
	free(fs);
	for (int i = 0; i < k->npend; i++) {
		if (rc)
			unlink(k->pend[i].f.path); /* never listed by a snapshot */
		file_free(&k->pend[i].f);
	}
	k->npend = 0;
	return rc;
}

/* An updating input needs a PRIMARY KEY: its deletes are by key. */
static int ice_can_update(const sl_conn_args *a)
{
	return a->npk > 0;
}

/* The 'iceberg' sink method table. */
const sl_sink_vtab sl_iceberg_sink_vtab = {
	.name = "iceberg",
	.size = sizeof(ice_sink),
	.accepts_updates = 1,
	.can_update = ice_can_update,
	.upsert = 1,
	.guarantee = "exactly-once",
	.configure = ice_configure,
	.open = ice_open,
	.write = ice_write,
	.finish = ice_finish,
	.pre_commit = ice_pre_commit,
	.commit = ice_commit_hook,
	.abort = ice_abort,
	.recover = ice_recover,
	.close = ice_close,
	.partitioned = &sl_iceberg_sink_vtab,
	.single_instance = 1,
};
