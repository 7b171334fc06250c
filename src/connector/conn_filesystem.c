/*
 * conn_filesystem.c - Flink's 'filesystem' connector: a source that reads
 * newline-delimited records from a file or a directory, and a sink that
 * writes part files into a directory.
 *
 * Source.  'path' is a file or a directory; a directory is one partition
 * whose regular files are read in byte-wise name order, skipping names that
 * start with '.' or '_' (hidden and in-progress files).  Records come from
 * the shared line reader (conn_lines.c, 1 MiB read(2) blocks, records in
 * place) and are decoded by the 'format' into the caller's batch; the
 * format's own options pass through.  For each row of the current batch
 * the source remembers file, line and byte offset (for `where` and error
 * messages).  Invariant: the reader's position is always just after the
 * last record consumed, so a snapshot (file index and name, offset, line)
 * restores exactly at the next record.
 *
 * Sink.  'path' is a directory (created if missing).  Rows are encoded by
 * the format into a buffer written with write(2) in 1 MiB chunks to a
 * hidden in-progress part `.part-<runid>-<n>.<ext>.inprogress`, rolling at
 * 'sink.rolling-policy.file-size' (default 128 MB).  finish() fsyncs and
 * renames every in-progress part to `part-<runid>-<n>.<ext>` and fsyncs
 * the directory; only whole rows ever reach a file.  close() without
 * finish leaves the parts hidden (the checkpoint protocol deals with them).
 * Single-threaded, like every connector.
 */
#include "conn.h"
#include "conn_lines.h"
#include "sluice.h"
#include "format/format.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define FS_WRITE_CHUNK (1u << 20)               /* sink write(2) size */
#define FS_DEFAULT_ROLL (128LL * 1024 * 1024)   /* 'sink.rolling-policy.file-size' */

/* ---- source ---------------------------------------------------------------- */

typedef struct fs_source {
	sl_source base;     /* must be first */
	char *path;         /* 'path' as given */
	int is_dir;         /* path is a directory */
	char **files;       /* file names (directory) or {path} (file), sorted */
	int nfiles;
	int cur;            /* index of the file being read; nfiles = done */
	sl_linereader lr;   /* reader of files[cur] */
	sl_decoder *dec;    /* the format's decoder */
	int prov_cap;       /* size of the provenance arrays */
	int prov_n;         /* rows of the last batch with provenance */
	int32_t *prov_file; /* per batch row: file index */
	int64_t *prov_line; /* per batch row: line (1-based) */
	int64_t *prov_off;  /* per batch row: byte offset of its record */
	char namebuf[4096]; /* display name scratch */
} fs_source;

/* Display name of file i: "dir/name" for a directory, else the path. */
static const char *file_name(fs_source *f, int i)
{
	if (!f->is_dir)
		return f->path;
	size_t n = strlen(f->path);
	const char *sep = n > 0 && f->path[n - 1] == '/' ? "" : "/";
	snprintf(f->namebuf, sizeof f->namebuf, "%s%s%s", f->path, sep, f->files[i]);
	return f->namebuf;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists the visible regular files of directory f->path, sorted. */
static int list_dir(fs_source *f, sl_err *err)
{
	int cap = 0, rc = SL_ENOMEM;
	DIR *d = opendir(f->path);
	if (!d)
		return sl_err_set(err, SL_EIO, "source '%s': cannot open directory '%s': %s",
		                  f->base.table, f->path, strerror(errno));
	struct dirent *e;
	while ((e = readdir(d))) {
		struct stat st;
		if (e->d_name[0] == '.' || e->d_name[0] == '_')
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, 0) || !S_ISREG(st.st_mode))
			continue;
		if (f->nfiles == cap) {
			cap = cap ? cap * 2 : 16;
			char **nf = realloc(f->files, (size_t)cap * sizeof(char *));
			if (!nf)
				goto fail;
			f->files = nf;
		}
		if (!(f->files[f->nfiles] = strdup(e->d_name)))
			goto fail;
		f->nfiles++;
	}
	closedir(d);
	if (f->nfiles > 1)
		qsort(f->files, (size_t)f->nfiles, sizeof(char *), cmp_names);
	return 0;
fail:
	closedir(d);
	return sl_err_set(err, rc, "source '%s': out of memory", f->base.table);
}

/* Finds the decoder or encoder format named by 'format'. */
static const sl_format_vtab *find_format(const sl_opts *o, const char *def, const char *what,
                                         const char *table, sl_err *err)
{
	const char *name = sl_opts_get(o, "format");
	if (!name)
		name = def;
	if (!name) {
		sl_err_set(err, SL_EINVAL, "%s '%s': option 'format' is required", what, table);
		return NULL;
	}
	const sl_format_vtab *vt = sl_format_find(name);
	if (!vt)
		sl_err_set(err, SL_EINVAL, "%s '%s': unknown format '%s'", what, table, name);
	return vt;
}

/*
 * Opens a decoder for a source: the 'format' option (def when absent) with
 * its options.  Shared with the stdin source.  Returns NULL with err set.
 */
sl_decoder *sl__conn_decoder(const sl_conn_args *a, const char *def, sl_err *err)
{
	const sl_format_vtab *vt = find_format(a->opts, def, "source", a->table, err);
	if (!vt)
		return NULL;
	if (!vt->decoder_size) {
		sl_err_set(err, SL_EINVAL, "source '%s': format '%s' cannot be read", a->table,
		           vt->name);
		return NULL;
	}
	sl_decoder *d = sl_decoder_new(vt, a->fields, a->nfields, a->opts, err);
	if (!d)
		sl_err_prefix(err, "source '%s'", a->table);
	return d;
}

/*
 * Opens an encoder for a sink, like sl__conn_decoder.  Returns NULL with
 * err set.
 */
sl_encoder *sl__conn_encoder(const sl_conn_args *a, const char *def, sl_err *err)
{
	const sl_format_vtab *vt = find_format(a->opts, def, "sink", a->table, err);
	if (!vt)
		return NULL;
	if (!vt->encoder_size) {
		sl_err_set(err, SL_EINVAL, "sink '%s': format '%s' cannot be written", a->table,
		           vt->name);
		return NULL;
	}
	sl_encoder *e = sl_encoder_new(vt, a->fields, a->nfields, a->opts, err);
	if (!e)
		sl_err_prefix(err, "sink '%s'", a->table);
	return e;
}

static int fss_open(sl_source *s, const sl_conn_args *a, sl_err *err)
{
	fs_source *f = (fs_source *)s;
	struct stat st;
	sl__lines_init(&f->lr);
	const char *path = sl_opts_get(a->opts, "path");
	if (!path)
		return sl_err_set(err, SL_EINVAL, "source '%s': option 'path' is required", a->table);
	if (!(f->path = strdup(path)))
		return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", a->table);
	if (!(f->dec = sl__conn_decoder(a, NULL, err)))
		return err && err->code ? err->code : SL_EINVAL;
	if (stat(path, &st))
		return sl_err_set(err, SL_EIO, "source '%s': path '%s' does not exist", a->table,
		                  path);
	if (S_ISDIR(st.st_mode)) {
		f->is_dir = 1;
		return list_dir(f, err);
	}
	if (!S_ISREG(st.st_mode))
		return sl_err_set(err, SL_EIO, "source '%s': path '%s' is not a file or directory",
		                  a->table, path);
	f->files = malloc(sizeof(char *));
	if (!f->files || !(f->files[0] = strdup(path)))
		return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", a->table);
	f->nfiles = 1;
	return 0;
}

/* Opens files[cur] at byte off / line; checks that off is inside it. */
static int open_file(fs_source *f, int64_t off, int64_t line, sl_err *err)
{
	const char *name = file_name(f, f->cur);
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sl_err_set(err, SL_EIO, "source '%s': cannot open file '%s': %s",
		                  f->base.table, name, strerror(errno));
	if (off > 0) {
		struct stat st;
		if (fstat(fd, &st) || st.st_size < off || lseek(fd, off, SEEK_SET) != off) {
			close(fd);
			return sl_err_set(err, SL_ESTATE,
			                  "source '%s': file '%s' is shorter than the checkpointed "
			                  "offset %lld", f->base.table, name, (long long)off);
		}
	}
	if (sl__lines_start(&f->lr, fd, 1, off, line)) {
		close(fd);
		return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", f->base.table);
	}
	return 0;
}

static int ensure_prov(fs_source *f, int cap, sl_err *err)
{
	if (cap <= f->prov_cap)
		return 0;
	int32_t *pf = realloc(f->prov_file, (size_t)cap * sizeof *pf);
	if (pf)
		f->prov_file = pf;
	int64_t *pl = realloc(f->prov_line, (size_t)cap * sizeof *pl);
	if (pl)
		f->prov_line = pl;
	int64_t *po = realloc(f->prov_off, (size_t)cap * sizeof *po);
	if (po)
		f->prov_off = po;
	if (!pf || !pl || !po)
		return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", f->base.table);
	f->prov_cap = cap;
	return 0;
}

/* Decodes one record; records provenance of the rows it appended.  A bad
 * record is skipped and counted under ignore-parse-errors. */
static int decode_one(fs_source *f, const char *rec, size_t len, int64_t line, int64_t off,
                      sl_batch *out, sl_err *err)
{
	sl_err derr;
	sl_err_clear(&derr);
	int first = out->nrows;
	int rc = f->dec->vt->decode(f->dec, rec, len, out, SL_WM_MIN, &derr);
	if (rc == SL_EINPUT && f->dec->ignore_errors) {
		out->nrows = first; /* no row of a bad record stays */
		f->base.rows_skipped++;
		return 0;
	}
	if (rc < 0)
		return sl_err_set(err, rc, "source '%s': file '%s', line %lld: %s", f->base.table,
		                  file_name(f, f->cur), (long long)line,
		                  derr.code ? derr.msg : sl_err_name(rc));
	for (int r = first; r < out->nrows; r++) {
		f->prov_file[r] = f->cur;
		f->prov_line[r] = line;
		f->prov_off[r] = off;
	}
	return rc;
}

static int fss_read(sl_source *s, sl_batch *out, sl_err *err)
{
	fs_source *f = (fs_source *)s;
	int rows0 = out->nrows, rc = 0;
	if (ensure_prov(f, out->cap, err))
		return SL_ENOMEM;
	f->prov_n = 0;
	while (out->cap - out->nrows >= 2 && f->cur < f->nfiles) {
		int may_move = out->nrows == rows0; /* no row of ours points at the buffer */
		if (f->lr.fd < 0) {
			if (!may_move)
				break; /* a new file would overwrite the buffer */
			if ((rc = open_file(f, 0, 0, err)))
				goto fail;
		}
		const char *rec;
		size_t len;
		int64_t line, off;
		rc = sl__lines_next(&f->lr, may_move, &rec, &len, &line, &off);
		if (rc == 0)
			break;
		if (rc == SL_EEOF) {
			sl__lines_stop(&f->lr);
			f->cur++;
			continue;
		}
		if (rc < 0) {
			sl_err_set(err, rc, "source '%s': file '%s': read failed: %s", s->table,
			           file_name(f, f->cur), rc == SL_ENOMEM ? "out of memory"
			                                                 : strerror(errno));
			goto fail;
		}
		if ((rc = decode_one(f, rec, len, line, off, out, err)) < 0)
			goto fail;
	}
	f->prov_n = out->nrows;
	s->rows_read += out->nrows - rows0;
	if (out->nrows > rows0)
		return out->nrows - rows0;
	return f->cur >= f->nfiles ? SL_EEOF : 0;
fail:
	f->prov_n = out->nrows;
	s->rows_read += out->nrows - rows0;
	return rc;
}

static void fss_where(sl_source *s, int row, char *buf, size_t cap)
{
	fs_source *f = (fs_source *)s;
	if (row < 0 || row >= f->prov_n || row >= f->prov_cap || !f->prov_file) {
		snprintf(buf, cap, "path '%s'", f->path);
		return;
	}
	snprintf(buf, cap, "file '%s', line %lld", file_name(f, f->prov_file[row]),
	         (long long)f->prov_line[row]);
}

/* Snapshot: u8 version, file index, file name ("" when done), offset and
 * line of the next record. */
static int fss_snapshot(sl_source *s, sl_snap_writer *w, sl_err *err)
{
	fs_source *f = (fs_source *)s;
	int open = f->lr.fd >= 0;
	const char *name = f->cur < f->nfiles ? f->files[f->cur] : "";
	sl_snap_put_u8(w, 1);
	sl_snap_put_u32(w, (uint32_t)f->cur);
	sl_snap_put_bytes(w, name, strlen(name));
	sl_snap_put_i64(w, open ? f->lr.off : 0);
	sl_snap_put_i64(w, open ? f->lr.line : 0);
	if (w->failed)
		return sl_err_set(err, SL_ENOMEM, "source '%s': snapshot: out of memory", s->table);
	return 0;
}

/* Index of the first file whose name is >= name (nfiles when none). */
static int find_file(const fs_source *f, const char *name, size_t n, int *exact)
{
	for (int i = 0; i < f->nfiles; i++) {
		size_t fl = strlen(f->files[i]);
		int c = memcmp(f->files[i], name, fl < n ? fl : n);
		if (c == 0)
			c = fl < n ? -1 : fl > n ? 1 : 0;
		if (c >= 0) {
			*exact = c == 0;
			return i;
		}
	}
	*exact = 0;
	return f->nfiles;
}

static int fss_restore(sl_source *s, sl_snap_reader *r, sl_err *err)
{
	fs_source *f = (fs_source *)s;
	size_t n = 0;
	int exact;
	uint8_t ver = sl_snap_get_u8(r);
	(void)sl_snap_get_u32(r); /* the index is informative: names decide */
	const char *name = sl_snap_get_bytes(r, &n);
	int64_t off = sl_snap_get_i64(r), line = sl_snap_get_i64(r);
	if (!sl_snap_reader_ok(r) || ver != 1 || off < 0 || line < 0)
		return sl_err_set(err, SL_ESTATE, "source '%s': damaged filesystem snapshot",
		                  s->table);
	sl__lines_stop(&f->lr);
	if (n == 0) { /* finished */
		f->cur = f->nfiles;
		return 0;
	}
	f->cur = find_file(f, name, n, &exact);
	if (f->cur >= f->nfiles || !exact)
		return 0; /* the file is gone: continue with the next name */
	return open_file(f, off, line, err);
}

static void fss_close(sl_source *s)
{
	fs_source *f = (fs_source *)s;
	sl__lines_deinit(&f->lr);
	if (f->dec)
		sl_decoder_free(f->dec);
	for (int i = 0; i < f->nfiles; i++)
		free(f->files[i]);
	free(f->files);
	free(f->path);
	free(f->prov_file);
	free(f->prov_line);
	free(f->prov_off);
	f->dec = NULL;
	f->files = NULL;
	f->nfiles = 0;
}

/* The 'filesystem' source method table. */
const sl_source_vtab sl_filesystem_source_vtab = {
	.name = "filesystem",
	.size = sizeof(fs_source),
	.open = fss_open,
	.read = fss_read,
	.where = fss_where,
	.snapshot = fss_snapshot,
	.restore = fss_restore,
	.close = fss_close,
};

/* ---- sink -------------------------------------------------------------------- */

typedef struct fs_sink {
	sl_sink base;         /* must be first */
	char *dir;            /* 'path': the output directory */
	const char *ext;      /* part file extension, from the format */
	sl_encoder *enc;      /* the format's encoder */
	char runid[40];       /* hex of time, pid and instance: unique per run */
	int64_t roll_size;    /* 'sink.rolling-policy.file-size' */
	int fd;               /* the open in-progress part, -1 = none */
	int part;             /* number of the open (or next) part */
	int pub_from;         /* parts pub_from..part-1 (+ the open one) are unpublished */
	int64_t part_bytes;   /* bytes of the open part, written + buffered */
	sl_buf out;           /* encoded whole rows not yet written */
	char pathbuf[4096];   /* path scratch */
} fs_sink;

static const char *part_path(fs_sink *k, int n, int hidden)
{
	snprintf(k->pathbuf, sizeof k->pathbuf, "%s/%spart-%s-%d.%s%s", k->dir,
	         hidden ? "." : "", k->runid, n, k->ext, hidden ? ".inprogress" : "");
	return k->pathbuf;
}

/* mkdir -p */
static int make_dirs(const char *path)
{
	char tmp[4096];
	size_t n = strlen(path);
	if (n == 0 || n >= sizeof tmp)
		return -1;
	memcpy(tmp, path, n + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0777) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(tmp, 0777) && errno != EEXIST)
		return -1;
	struct stat st;
	return stat(tmp, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

static const char *format_ext(const char *fmt)
{
	if (strcmp(fmt, "json") == 0 || strcmp(fmt, "debezium-json") == 0 ||
	    strcmp(fmt, "canal-json") == 0 || strcmp(fmt, "maxwell-json") == 0)
		return "json";
	return fmt;
}

static int fsk_open(sl_sink *s, const sl_conn_args *a, sl_err *err)
{
	static int instance;
	fs_sink *k = (fs_sink *)s;
	k->fd = -1;
	sl_buf_init(&k->out);
	const char *path = sl_opts_get(a->opts, "path");
	if (!path)
		return sl_err_set(err, SL_EINVAL, "sink '%s': option 'path' is required", a->table);
	if (sl_opts_size(a->opts, "sink.rolling-policy.file-size", FS_DEFAULT_ROLL,
	                 &k->roll_size, err)) {
		sl_err_prefix(err, "sink '%s'", a->table);
		return SL_EINVAL;
	}
	if (!(k->dir = strdup(path)))
		return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", a->table);
	if (!(k->enc = sl__conn_encoder(a, NULL, err)))
		return err && err->code ? err->code : SL_EINVAL;
	k->ext = format_ext(k->enc->vt->name);
	if (make_dirs(path))
		return sl_err_set(err, SL_EIO, "sink '%s': cannot create directory '%s': %s",
		                  a->table, path, strerror(errno));
	struct timeval tv;
	gettimeofday(&tv, NULL);
	snprintf(k->runid, sizeof k->runid, "%llx%05x%02x",
	         (unsigned long long)tv.tv_sec * 1000000ULL + (unsigned long long)tv.tv_usec,
	         (unsigned)getpid() & 0xfffff, (unsigned)(instance++) & 0xff);
	return 0;
}

/* Writes the buffered rows to the open part. */
static int flush_buf(fs_sink *k, sl_err *err)
{
	size_t done = 0;
	while (done < k->out.len) {
		size_t n = k->out.len - done;
		ssize_t w = write(k->fd, k->out.p + done, n > FS_WRITE_CHUNK ? FS_WRITE_CHUNK : n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return sl_err_set(err, SL_EIO, "sink '%s': cannot write '%s': %s",
			                  k->base.table, part_path(k, k->part, 1), strerror(errno));
		done += (size_t)w;
	}
	sl_buf_clear(&k->out);
	return 0;
}

/* Flushes, fsyncs and closes the open part (it stays in progress). */
static int close_part(fs_sink *k, sl_err *err)
{
	if (k->fd < 0)
		return 0;
	int rc = flush_buf(k, err);
	if (!rc && fsync(k->fd))
		rc = sl_err_set(err, SL_EIO, "sink '%s': cannot fsync '%s': %s", k->base.table,
		                part_path(k, k->part, 1), strerror(errno));
	close(k->fd);
	k->fd = -1;
	k->part++;
	k->part_bytes = 0;
	return rc;
}

static int open_part(fs_sink *k, sl_err *err)
{
	const char *p = part_path(k, k->part, 1);
	k->fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (k->fd < 0)
		return sl_err_set(err, SL_EIO, "sink '%s': cannot create '%s': %s", k->base.table, p,
		                  strerror(errno));
	k->part_bytes = 0;
	return 0;
}

static int fsk_write(sl_sink *s, const sl_batch *b, sl_err *err)
{
	fs_sink *k = (fs_sink *)s;
	SL_BATCH_FOREACH(b, i, row) {
		if (k->fd < 0 && open_part(k, err))
			return SL_EIO;
		size_t before = k->out.len;
		int rc = k->enc->vt->encode(k->enc, b, row, &k->out, err);
		if (rc < 0) {
			k->out.len = before; /* never half a row */
			sl_err_prefix(err, "sink '%s'", s->table);
			return rc;
		}
		k->part_bytes += (int64_t)(k->out.len - before);
		s->rows_written++;
		if (k->part_bytes >= k->roll_size) {
			if (close_part(k, err))
				return SL_EIO;
		} else if (k->out.len >= FS_WRITE_CHUNK && flush_buf(k, err)) {
			return SL_EIO;
		}
	}
	return 0;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

static int fsk_finish(sl_sink *s, sl_err *err)
{
	fs_sink *k = (fs_sink *)s;
	char from[4096];
	if (close_part(k, err))
		return SL_EIO;
	for (int n = k->pub_from; n < k->part; n++) {
		snprintf(from, sizeof from, "%s", part_path(k, n, 1));
		if (rename(from, part_path(k, n, 0)))
			return sl_err_set(err, SL_EIO, "sink '%s': cannot publish '%s': %s", s->table,
			                  from, strerror(errno));
	}
	if (k->pub_from < k->part && fsync_dir(k->dir))
		return sl_err_set(err, SL_EIO, "sink '%s': cannot fsync directory '%s': %s",
		                  s->table, k->dir, strerror(errno));
	k->pub_from = k->part;
	return 0;
}

static int fsk_can_update(const sl_conn_args *a)
{
	const char *name = sl_opts_get(a->opts, "format");
	const sl_format_vtab *vt = name ? sl_format_find(name) : NULL;
	return vt && vt->changelog;
}

static void fsk_close(sl_sink *s)
{
	fs_sink *k = (fs_sink *)s;
	if (k->fd >= 0)
		close(k->fd); /* unpublished: stays hidden */
	k->fd = -1;
	sl_buf_deinit(&k->out);
	if (k->enc)
		sl_encoder_free(k->enc);
	k->enc = NULL;
	free(k->dir);
	k->dir = NULL;
}

/* The 'filesystem' sink method table. */
const sl_sink_vtab sl_filesystem_sink_vtab = {
	.name = "filesystem",
	.size = sizeof(fs_sink),
	.accepts_updates = 1,
	.can_update = fsk_can_update,
	.guarantee = "exactly-once at end of input",
	.open = fsk_open,
	.write = fsk_write,
	.finish = fsk_finish,
	.close = fsk_close,
};
