/*
 * conn_filesystem.c - Flink's 'filesystem' connector: a source that reads
 * newline-delimited records from a file or a directory, and a sink that
 * writes part files into a directory (conn_fs_sink.c).
 *
 * 'path' may be a local path or a file:// URI.  PARTITIONED BY tables
 * (a->part): the source lists the partition directories through
 * conn_fs_partition.c and decodes the data columns into a view of the
 * batch, the partition columns filled from the directory names
 * (conn_fs_fill.c, which also fills the METADATA columns); the sink
 * is conn_fs_partition.c's, which runs one sink of this file per partition
 * directory.
 *
 * Both sides are configured while the job is planned ('path', the format
 * and every option checked, nothing on disk looked at: EXPLAIN touches no
 * file) and opened when it starts (conn.h).
 *
 * Source.  'path' is a file or a directory (looked at by open: a missing
 * path is an error naming it); a directory's regular files are listed in
 * byte-wise name order, skipping names that start with '.' or '_' (hidden
 * and in-progress files).  The input is cut into splits by its data
 * (docs/parallel.md §4, docs/watermarks.md "Splits"): each file is a split,
 * and a file of a line-oriented format (not a changelog format, no PRIMARY
 * KEY) larger than FS_SPLIT_BYTES is cut into ranges of that size, a range
 * owning the lines that start in it.  The splits are read in turns (one
 * aligned MiB of a file each; fss_read), only the first unfinished range
 * of each file taking turns (a file's ranges are read in order), every
 * batch holding rows of one split (sl_source.split), so the scan keeps a
 * watermark per split (sl_source.split_wm, saved here with the
 * positions).  Before the first row, a seed batch gives each range k > 0
 * its initial watermark: the last line before the range, decoded, whose
 * watermark expression the scan computes (read_seeds, conn.h).  A file
 * format (Parquet: a format with file hooks, format.h) is read by
 * read_file_rows instead: a split is a whole file, the splits take turns
 * of one row group, and a split's position is the count of rows read from
 * it.
 *
 * Parallel instances (sl_conn_args.subtask of nsubtasks, docs/parallel.md
 * §4 rule 5): the splits are enumerated in the order above, which depends
 * on the data only; whole files go to the instances in turn.  A cut
 * file's ranges, in a parallel run (a share slot, sl_conn_args.share),
 * come from a pool the instances share (conn_fs_pool.c, docs/parallel.md
 * §4.1): every instance lists and seeds all of them, counts those still
 * in the pool in its watermark, takes runs of contiguous ranges from the
 * pool's front as it reads (pool_take, claim, next_range_goes_on) and
 * treats a range another instance took as done (pool_sync).  Without a
 * share slot (a source made outside the parallel runtime) they go in runs
 * of FS_RUN contiguous ranges, the last round cut so that every instance
 * gets as many ranges as the others within one (make_splits,
 * range_owner), and the instance keeps only its own.  An instance reads
 * its ranges of a file in order, each seeded as above, and an instance
 * without a split ends at once (SL_EEOF).  Its snapshot (version 5, with
 * the instance, the count and the split size) names its splits and every
 * range of a pooled file (fss_snapshot); a restore takes the snapshots of
 * every instance of the run that took the checkpoint, one call each
 * (fss_restore), cuts the files at the snapshot's size when it is not
 * this build's (FS_SPLIT_BYTES was 64 MiB for versions 1-3), and keeps
 * the furthest record of each split it lists.
 *
 * METADATA columns (file.path, file.name, file.size,
 * file.modification-time, as Flink's) are filled like partition columns
 * (conn_fs_fill.c): the decoder reads a view of the batch without them
 * (decode_view), and each batch holds rows of one file.
 *
 * Records of the line formats come from
 * the shared line reader (conn_lines.c, 1 MiB read(2) blocks, records in
 * place) and are decoded by the 'format' into the caller's batch; the
 * format's own options pass through.  For each row of the current batch
 * the source remembers split, line and byte offset (for `where` and error
 * messages, which name the line in the whole file).  Invariant: a split's
 * position is always just after the last record consumed from it, so a
 * snapshot (per split: id, state, offset, line, watermark; and whose turn
 * it is) restores exactly at the next record of every split.
 *
 * The sink is conn_fs_sink.c.  One thread uses an instance at a time, like
 * every connector; instances share nothing but the files they read and
 * the pools of their cut files.
 */
#include "conn_fs_int.h"
#include "conn_lines.h"
#include "sluice.h"
#include "format/format.h"

#include <dirent.h>
#include <math.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define FS_SPLIT_BYTES (16LL * 1024 * 1024)     /* ranges of a large file (source) */
#define FS_SPLIT_BYTES_V3 (64LL * 1024 * 1024)  /* ... in snapshots of versions 1-3 */
#define FS_RUN SL__FS_RUN                       /* ranges of a file an instance gets in
                                                 * a row (range_owner, the pool) */
#define FS_SRC_SNAP_VERSION 2                   /* the source's snapshot (per split) */
#define FS_SRC_SNAP_PARALLEL 3                  /* ... of one of several instances */
#define FS_SRC_SNAP_CUT 4                       /* ... with its split size */
#define FS_SRC_SNAP_POOL 5                      /* ... naming pooled ranges it did not
                                                 * take too (written) */
#define FS_TURN_BYTES (1LL << 20)               /* a split's turn: records starting in
                                                 * one aligned MiB of its file */

/* ---- source ---------------------------------------------------------------- */

/* Split states. */
enum { FS_WAITING = 0, FS_STARTED = 1, FS_DONE = 2 };

/*
 * A split: a file, or a byte range [start, end) of a large line-oriented
 * file owning the lines that start in it.  Its id is (file name, start).
 * Lines are counted from an origin: `first` (the split's first line
 * start) normally, the start of the file after a restore of a version-1
 * snapshot; `base` is the number of lines before the origin, -1 until an
 * error message needs it (counted then).
 */
typedef struct fs_split {
	int file;           /* index into files */
	int64_t start;      /* byte where the split starts (its id) */
	int64_t end;        /* byte where it ends, -1 = the end of the file */
	int state;          /* FS_WAITING, FS_STARTED, FS_DONE */
	int64_t first;      /* started: the first line start >= start */
	int64_t off;        /* started: offset of the next record */
	int64_t line;       /* started: lines consumed since the origin */
	int64_t base;       /* lines before the origin, -1 = not counted yet */
	int seeded;         /* its initial watermark was looked for (in memory) */
	int64_t size;       /* its bytes (progress: base.bytes_total) */
	int64_t rows;       /* filefmt: the file's rows once opened (0: not yet, -1:
	                     * the format cannot say) */
	int pfile;          /* a range of pooled file pf[pfile], -1 = assigned
	                     * statically (docs/parallel.md §4.1) */
	int mine;           /* pooled: this instance took it from the pool */
	int bstate;         /* pooled: its state when the pool was made (this
	                     * run's start; its position fields keep that too
	                     * while it is not mine: fss_snapshot) */
} fs_split;

/*
 * A cut file whose ranges come from the pool the instances share
 * (conn_fs_pool.c, docs/parallel.md §4.1): every instance lists all its
 * ranges, splits[first .. first + nranges), seeds them all and counts
 * every one it may still read (its own unfinished ones, and those still
 * in the pool as far as it knows) in its watermark; a range another
 * instance took is done for this one.  `seen`: the list entries (taken
 * ranges, in the pool's order) this instance has looked at.
 */
typedef struct fs_pfile {
	int first;
	int64_t nranges;
	sl__fs_pool_file *pool; /* NULL until the first read (pool_attach) */
	int seen;
} fs_pfile;

typedef struct fs_source {
	sl_source base;     /* must be first */
	char *path;         /* 'path' as given */
	int is_dir;         /* path is a directory */
	char **files;       /* file names (directory) or {path} (file), sorted */
	int nfiles;
	fs_split *splits;   /* in file order, then start order */
	int nsplits;
	uint8_t *done;      /* per split: state == FS_DONE (base.split_done) */
	uint8_t *elsewhere; /* per split: another instance took it from the pool
	                     * (base.split_elsewhere) */
	int64_t *wm;        /* per split: the scan's watermark (base.split_wm) */
	int ndone;          /* splits done */
	int cur;            /* split whose turn it is */
	int lr_split;       /* split the reader is positioned in, -1 = none */
	int64_t turn_end;   /* the turn of split cur ends before this offset */
	int64_t turn_bytes; /* FS_TURN_BYTES, or half a test's small split size */
	int cutable;        /* the format is line-oriented: big files are cut */
	int64_t cut_bytes;  /* the size they are cut at (make_splits) */
	int filefmt;        /* a file format (Parquet): splits are whole files read
	                     * through the format's file hooks (read_file_rows) */
	int ffd;            /* filefmt: the open file of split lr_split, -1 = none */
	int seeding;        /* ranges' initial watermarks may be left to look for */
	sl_linereader lr;   /* reader of splits[lr_split] */
	sl_decoder *dec;    /* the format's decoder */
	int prov_cap;       /* size of the provenance arrays */
	int prov_n;         /* rows of the last batch with provenance */
	int32_t *prov_file; /* per batch row: split index */
	int64_t *prov_line; /* per batch row: line since the split's origin (1-based) */
	int64_t *prov_off;  /* per batch row: byte offset of its record */
	char namebuf[4096]; /* display name scratch */
	/* PARTITIONED BY and METADATA columns (conn_fs_fill.c); fill.vcols is
	 * NULL when the table has neither */
	sl__fs_fill fill;
	/* Parallel instances (docs/parallel.md §4 rule 5, conn.h): this is
	 * instance `subtask` of `nsub`; it keeps the splits k of the whole
	 * split order with k % nsub == subtask, and only those. */
	int subtask, nsub;
	/* The pooled files (their ranges are taken from the pool in `share`,
	 * the run's slot for this table, conn.h; NULL: every split is
	 * assigned statically), and whether the pools were found yet. */
	sl_conn_share *share;
	fs_pfile *pf;
	int npf;
	int pool_ready;
	/* SLUICE_TEST_SLOW_INSTANCE (docs/testing.md): this instance sleeps
	 * slow_us after every read that returned rows (tests only) */
	int slow_us;
	/* Restores (fss_restore may be called once per snapshot of the
	 * previous run's instances): how many so far, the previous run's
	 * instance count and which of its instances' snapshots came (checked
	 * complete before the first read), and the restored watermarks (the
	 * scan overwrites split_wm before each call). */
	int nrestored;
	int old_nsub;
	uint8_t *old_seen;
	int64_t *wm_keep;
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

/* Reads 'path', the format with its options and the sink-side and lookup
 * options a filesystem table may carry; the path is not looked at. */
static int fss_configure(sl_source *s, const sl_conn_args *a, sl_err *err)
{
	fs_source *f = (fs_source *)s;
	sl__lines_init(&f->lr);
	f->lr.bytes_read = &f->base.bytes_read; /* progress (docs/observability.md) */
	f->lr_split = -1;
	f->ffd = -1;
	f->turn_end = -1;
	f->nsub = a->nsubtasks > 0 ? a->nsubtasks : 1;
	f->subtask = a->subtask;
	f->share = f->nsub > 1 ? a->share : NULL;
	const char *slow = getenv("SLUICE_TEST_SLOW_INSTANCE"); /* "instance:micros" */
	if (slow && atoi(slow) == f->subtask && strchr(slow, ':'))
		f->slow_us = atoi(strchr(slow, ':') + 1);
	if (f->subtask < 0 || f->subtask >= f->nsub)
		return sl_err_set(err, SL_EINVAL, "source '%s': instance %d of %d does not exist",
		                  a->table, a->subtask, f->nsub);
	const char *path = sl_opts_get(a->opts, "path");
	if (!path)
		return sl_err_set(err, SL_EINVAL, "source '%s': option 'path' is required", a->table);
	if (!(path = sl__fs_local_path(path, "source", a->table, err)))
		return err->code;
	if (!(f->path = strdup(path)))
		return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", a->table);
	int rc = sl__fs_lookup_options(a, err); /* the table may also serve lookups */
	if (rc)
		return rc;
	sl_conn_args da = *a; /* the decoder's: without partition and METADATA columns */
	if (sl__fs_fill_wanted(a) && (rc = sl__fs_fill_configure(&f->fill, a, &da, err)))
		return rc;
	if (!(f->dec = sl__fs_decoder(&da, err)))
		return err && err->code ? err->code : SL_EINVAL;
	f->base.dec = f->dec;
	f->filefmt = f->dec->vt->file_open != NULL;
	f->cutable = !f->dec->vt->changelog && !f->dec->keyed && !f->filefmt;
	return sl__fs_check_commit_options(a, err);
}

/*
 * The size above which a line-oriented file is cut into ranges of that
 * size (docs/parallel.md §4): a constant; the environment variable
 * SLUICE_TEST_SPLIT_BYTES overrides it for tests only (docs/testing.md).
 * `dflt` is the constant of the build whose snapshot is restored
 * (FS_SPLIT_BYTES, or FS_SPLIT_BYTES_V3 for a snapshot of version 2 or 3).
 */
static int64_t split_bytes(int64_t dflt)
{
	const char *v = getenv("SLUICE_TEST_SPLIT_BYTES");
	long long n = v ? atoll(v) : 0;
	return n > 0 ? (int64_t)n : dflt;
}

/*
 * The instance, relative to the file's first (0 .. nsub - 1), that reads
 * range j of a file cut into R > 1 ranges (docs/parallel.md §4 rule 5):
 * runs of FS_RUN contiguous ranges go to the instances in turn, and the
 * ranges left over after the last whole round (fewer than FS_RUN x nsub)
 * are cut into nsub runs as equal as possible (the first ones a range
 * longer), so every instance gets the same number of ranges within one.
 * Why runs: an instance reads consecutive ranges of its run with one
 * reader (no re-open, no re-scan to a line boundary: fss_read), and its
 * local window stage sees whole windows across the ranges' boundaries.
 */
static int range_owner(int64_t j, int64_t R, int nsub)
{
	int64_t round = (int64_t)FS_RUN * nsub, full = R / round * round;
	if (j < full)
		return (int)(j / FS_RUN % nsub);
	int64_t t = j - full, rem = R - full, base = rem / nsub, extra = rem % nsub;
	if (t < extra * (base + 1))
		return (int)(t / (base + 1));
	return (int)(extra + (t - extra * (base + 1)) / base);
}

/* This instance's part of a pooled range's bytes in the progress
 * (base.bytes_total): each instance lists every range of a pooled file,
 * so each counts 1/nsub of it and the instances' sum is the file. */
static int64_t my_share(const fs_source *f, int64_t bytes)
{
	return bytes / f->nsub + (f->subtask < bytes % f->nsub);
}

/*
 * Cuts the listed files into splits (a file; ranges of `size` bytes of a
 * large file of a line-oriented format), keeps those of this instance and
 * publishes them in the base (conn.h).  The assignment (docs/parallel.md
 * §4 rule 5) depends on the data and the instance count only: whole files
 * go to the instances in turn, in name order; a cut file's ranges go in
 * runs (range_owner), starting at the instance whose turn it is, and the
 * turn then passes to the instance after the last that got a longer run.
 * An instance can hold no split (it ends at once) or some ranges of a
 * file without the ranges between them (it reads them in order, each from
 * its own seeded watermark, read_seeds).  With a share slot (a parallel
 * run, nsub > 1), a cut file's ranges are not assigned: the instance
 * keeps all of them, marked pooled (pf), and takes them from the pool as
 * it reads (pool_take, docs/parallel.md §4.1).
 */
static int make_splits(fs_source *f, int64_t size, sl_err *err)
{
	int64_t k = 0;
	int cap = f->nfiles + 1;
	free(f->pf);
	f->pf = NULL;
	f->npf = 0;
	f->pool_ready = 0;
	f->cut_bytes = size;
	f->fill.nfiles = f->nfiles;
	f->turn_bytes = size / 2 < FS_TURN_BYTES ? (size > 1 ? size / 2 : 1) : FS_TURN_BYTES;
	f->splits = calloc((size_t)cap, sizeof *f->splits);
	if (!f->splits)
		goto nomem;
	for (int i = 0; i < f->nfiles; i++) {
		struct stat st;
		int64_t len = 0, fsize = 0;
		if (!stat(file_name(f, i), &st))
			fsize = (int64_t)st.st_size; /* progress (docs/observability.md) */
		if (f->cutable)
			len = fsize;
		int64_t R = len > size ? (len + size - 1) / size : 1;
		int pooled = R > 1 && f->share;
		if (pooled) {
			fs_pfile *np = realloc(f->pf, (size_t)(f->npf + 1) * sizeof *np);
			if (!np)
				goto nomem;
			f->pf = np;
			f->pf[f->npf++] = (fs_pfile){f->nsplits, R, NULL, 0};
		}
		for (int64_t j = 0; j < R; j++) {
			int64_t start = j * size;
			int owner = R == 1 ? (int)(k % f->nsub)
			                   : (int)((k + range_owner(j, R, f->nsub)) % f->nsub);
			if (owner != f->subtask && !pooled)
				continue; /* another instance's */
			if (f->nsplits == cap) {
				cap *= 2;
				fs_split *ns = realloc(f->splits, (size_t)cap * sizeof *ns);
				if (!ns)
					goto nomem;
				f->splits = ns;
			}
			fs_split *sp = &f->splits[f->nsplits++];
			memset(sp, 0, sizeof *sp);
			sp->file = i;
			sp->start = start;
			sp->end = len > start + size ? start + size : -1;
			sp->base = start ? -1 : 0;
			sp->size = (sp->end < 0 ? fsize : sp->end) - start;
			sp->pfile = pooled ? f->npf - 1 : -1;
			f->base.bytes_total += pooled ? my_share(f, sp->size) : sp->size;
		}
		if (R == 1) {
			k++;
		} else {
			int64_t round = (int64_t)FS_RUN * f->nsub;
			k += R % round % f->nsub; /* the instances with a longer last run */
		}
	}
	f->done = calloc((size_t)f->nsplits + 1, 1);
	f->elsewhere = calloc((size_t)f->nsplits + 1, 1);
	f->wm = malloc(((size_t)f->nsplits + 1) * sizeof *f->wm);
	f->wm_keep = malloc(((size_t)f->nsplits + 1) * sizeof *f->wm_keep);
	if (!f->done || !f->elsewhere || !f->wm || !f->wm_keep)
		goto nomem;
	for (int i = 0; i < f->nsplits; i++)
		f->wm[i] = SL_WM_MIN;
	f->base.nsplits = f->nsplits;
	f->base.split_done = f->done;
	f->base.split_elsewhere = f->elsewhere;
	f->base.split_wm = f->wm;
	f->seeding = 1;
	return 0;
nomem:
	return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", f->base.table);
}

/*
 * Cuts the files again at `size` (a restore of a snapshot taken with
 * another split size: the splits' ids are their starts, so a snapshot
 * names the ranges of the size it was taken with).  Before any read and
 * before any split was restored; every split's watermark becomes wm (the
 * scan's, which it gave every split before the restore).
 */
static int recut(fs_source *f, int64_t size, sl_err *err)
{
	int64_t wm = f->nsplits ? f->wm[0] : SL_WM_MIN;
	free(f->splits);
	free(f->done);
	free(f->elsewhere);
	free(f->wm);
	free(f->wm_keep);
	f->splits = NULL;
	f->done = f->elsewhere = NULL;
	f->wm = f->wm_keep = NULL;
	f->nsplits = f->ndone = 0;
	f->base.bytes_total = 0;
	int rc = make_splits(f, size, err);
	if (rc)
		return rc;
	for (int i = 0; i < f->nsplits; i++)
		f->wm[i] = wm;
	f->cur = 0;
	f->turn_end = -1;
	return 0;
}

/* Lists what to read: the file, the directory's files, or the partition
 * directories' files; cuts them into splits. */
static int fss_open(sl_source *s, sl_err *err)
{
	fs_source *f = (fs_source *)s;
	const char *path = f->path, *table = s->table;
	struct stat st;
	if (stat(path, &st))
		return sl_err_set(err, SL_EIO, "source '%s': path '%s' does not exist", table, path);
	if (f->fill.npart) {
		if (!S_ISDIR(st.st_mode))
			return sl_err_set(err, SL_EINVAL, "source '%s': a partitioned table's path '%s' "
			                  "must be a directory", table, path);
		f->is_dir = 1;
		int rc = sl__fs_list_partitions(path, f->fill.npart, f->fill.pnames,
		                                f->fill.default_name, &f->files, &f->fill.values,
		                                &f->nfiles, table, err);
		if (rc) {
			sl_err_prefix(err, "source");
			return rc;
		}
		return make_splits(f, split_bytes(FS_SPLIT_BYTES), err);
	}
	if (S_ISDIR(st.st_mode)) {
		f->is_dir = 1;
		int rc = list_dir(f, err);
		return rc ? rc : make_splits(f, split_bytes(FS_SPLIT_BYTES), err);
	}
	if (!S_ISREG(st.st_mode))
		return sl_err_set(err, SL_EIO, "source '%s': path '%s' is not a file or directory",
		                  table, path);
	f->files = malloc(sizeof(char *));
	if (!f->files || !(f->files[0] = strdup(path)))
		return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", table);
	f->nfiles = 1;
	return make_splits(f, split_bytes(FS_SPLIT_BYTES), err);
}

/* The first line start at or after byte `start` of fd (start itself when
 * the byte before it is '\n'; the file's size when none). */
static int64_t line_start_from(int fd, int64_t start)
{
	char buf[65536];
	int64_t at = start - 1;
	for (;;) {
		ssize_t n = pread(fd, buf, sizeof buf, at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : at;
		char *nl = memchr(buf, '\n', (size_t)n);
		if (nl)
			return at + (nl - buf) + 1;
		at += n;
	}
}

/* Positions the reader in split k: at its first line when it has not
 * started, else at its next record; checks that the offset is inside the
 * file.  Marks it started. */
static int open_split(fs_source *f, int k, sl_err *err)
{
	fs_split *sp = &f->splits[k];
	const char *name = file_name(f, sp->file);
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sl_err_set(err, SL_EIO, "source '%s': cannot open file '%s': %s",
		                  f->base.table, name, strerror(errno));
	if (sp->state == FS_WAITING) {
		sp->first = sp->start ? line_start_from(fd, sp->start) : 0;
		if (sp->first < 0) {
			close(fd);
			return sl_err_set(err, SL_EIO, "source '%s': file '%s': read failed: %s",
			                  f->base.table, name, strerror(errno));
		}
		sp->off = sp->first;
		sp->line = 0;
		sp->state = FS_STARTED;
	}
	int64_t off = sp->off;
	if (off > 0) {
		struct stat st;
		if (fstat(fd, &st) || st.st_size < off || lseek(fd, off, SEEK_SET) != off) {
			close(fd);
			return sl_err_set(err, SL_ESTATE,
			                  "source '%s': file '%s' is shorter than the checkpointed "
			                  "offset %lld", f->base.table, name, (long long)off);
		}
	}
	if (sl__lines_start(&f->lr, fd, 1, off, sp->line)) {
		close(fd);
		return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", f->base.table);
	}
	f->lr_split = k;
	return 0;
}

/* The reader leaves its split: the split keeps the reader's position. */
static void leave_split(fs_source *f)
{
	if (f->lr_split < 0)
		return;
	if (f->filefmt) { /* the split's position is kept as rows are read */
		f->dec->vt->file_close(f->dec);
		if (f->ffd >= 0)
			close(f->ffd);
		f->ffd = -1;
		f->lr_split = -1;
		return;
	}
	fs_split *sp = &f->splits[f->lr_split];
	if (sp->state == FS_STARTED) {
		sp->off = f->lr.off;
		sp->line = f->lr.line;
	}
	sl__lines_stop(&f->lr);
	f->lr_split = -1;
}

static void finish_split(fs_source *f, int k)
{
	if (f->lr_split == k)
		leave_split(f);
	if (f->splits[k].state != FS_DONE) {
		f->splits[k].state = FS_DONE;
		f->done[k] = 1;
		f->ndone++;
	}
}

/*
 * Sets the progress (base.bytes_read, read live by the metrics) from the
 * splits' positions: a finished split counts its size, a started one what
 * was read of it (a line file: bytes to its offset; a file format: its
 * size times the rows consumed over the file's rows).  For a file format
 * after every read, for line files after a restore (the line reader
 * counts their bytes as it reads them, from where the restore put it:
 * fss_restore).
 */
static void set_progress(fs_source *f)
{
	int64_t done = 0;
	for (int i = 0; i < f->nsplits; i++) {
		const fs_split *sp = &f->splits[i];
		int64_t d = 0;
		if (sp->state == FS_DONE)
			d = sp->size;
		else if (sp->state == FS_STARTED && !f->filefmt)
			d = sp->off > sp->start ? sp->off - sp->start : 0;
		else if (sp->state == FS_STARTED && sp->rows > 0)
			d = (int64_t)((double)sp->size * (double)sp->line / (double)sp->rows);
		done += sp->pfile >= 0 ? my_share(f, d) : d; /* pooled: as bytes_total */
	}
	SL_CTR_SET(f->base.bytes_read, done);
}

/* The line in its file of the row at line `rel` since split k's origin:
 * counts the lines before the origin the first time it is needed (an
 * error message), -1 when the file cannot be read. */
static int64_t abs_line(fs_source *f, int k, int64_t rel)
{
	fs_split *sp = &f->splits[k];
	if (sp->base < 0) {
		int fd = open(file_name(f, sp->file), O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		char buf[65536];
		int64_t at = 0, n = 0;
		while (at < sp->first) {
			size_t want = sp->first - at < (int64_t)sizeof buf ? (size_t)(sp->first - at)
			                                                    : sizeof buf;
			ssize_t got = pread(fd, buf, want, at);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				break;
			for (ssize_t i = 0; i < got; i++)
				n += buf[i] == '\n';
			at += got;
		}
		close(fd);
		sp->base = n;
	}
	return sp->base + rel;
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

/* With partition or METADATA columns: decodes the data columns through a
 * view of out, then sets the others of the new rows from the file's
 * values (conn_fs_fill.c). */
static int decode_view(fs_source *f, int file, const char *rec, size_t len, sl_batch *out,
                       sl_err *derr, sl_err *err)
{
	if (sl__fs_fill_load(&f->fill, file, file_name(f, file), f->base.table, err))
		return SL_EINPUT - 1000; /* err is set: not a decoder error */
	sl_batch v;
	sl__fs_fill_view(&f->fill, out, &v);
	int first = out->nrows;
	int rc = f->dec->vt->decode(f->dec, rec, len, &v, SL_WM_MIN, derr);
	out->nrows = v.nrows;
	out->arena = v.arena;
	sl__fs_fill_rows(&f->fill, out, first);
	return rc;
}

/* Why inline, and derr's code alone cleared (sl_err_set fills the rest,
 * and only code and msg are read): the call and sl_err_clear were ~40
 * instructions a record (callgrind, bench 4). */
static inline __attribute__((always_inline)) int decode_one(fs_source *f, const char *rec,
                                                            size_t len, int64_t line,
                                                            int64_t off, sl_batch *out,
                                                            sl_err *err)
{
	sl_err derr;
	derr.code = 0;
	int first = out->nrows;
	int rc = f->fill.vcols
	       ? decode_view(f, f->splits[f->lr_split].file, rec, len, out, &derr, err)
	       : f->dec->vt->decode(f->dec, rec, len, out, SL_WM_MIN, &derr);
	if (rc == SL_EINPUT - 1000)
		return SL_EINPUT;
	if (rc == SL_EFULL)
		return rc; /* the caller ends the batch and reads the record again */
	if (rc == SL_EINPUT && f->dec->ignore_errors) {
		out->nrows = first; /* no row of a bad record stays */
		SL_CTR_ADD(f->base.rows_skipped, 1);
		return 0;
	}
	if (rc < 0) {
		int file = f->splits[f->lr_split].file;
		line = abs_line(f, f->lr_split, line);
		sl_err_set(err, rc, "source '%s': file '%s', line %lld: %s", f->base.table,
		           file_name(f, file), (long long)line, derr.code ? derr.msg : sl_err_name(rc));
		sl_err_input(err, file_name(f, file), line);
		return rc;
	}
	for (int r = first; r < out->nrows; r++) {
		f->prov_file[r] = f->lr_split;
		f->prov_line[r] = line;
		f->prov_off[r] = off;
	}
	return rc;
}

/* Split j may take turns: it is not done and it is the first range of
 * its file that is not (the ranges of one file are read in order). */
static int may_turn(const fs_source *f, int j)
{
	const fs_split *sp = &f->splits[j];
	if (sp->state == FS_DONE)
		return 0;
	if (sp->pfile >= 0) { /* every range of the file is listed, the ones done
	                       * by other instances too */
		int i = j - 1, first = f->pf[sp->pfile].first;
		while (i >= first && f->splits[i].state == FS_DONE)
			i--;
		return i < first;
	}
	return j == 0 || sp[-1].file != sp->file || sp[-1].state == FS_DONE;
}

/* The next split after split k that may take turns, round-robin (k
 * itself when it is the only one). */
static int next_split(const fs_source *f, int k)
{
	for (int i = 1; i <= f->nsplits; i++) {
		int j = (k + i) % f->nsplits;
		if (may_turn(f, j))
			return j;
	}
	return k;
}

/*
 * Pooled files (docs/parallel.md §4.1).  pool_attach, at the first read
 * (after any restore: every instance restored every snapshot, so all
 * views agree): finds or makes each pooled file's pool from this view.
 * 0 or an error.
 */
static int pool_attach(fs_source *f, sl_err *err)
{
	for (int i = 0; i < f->npf; i++) {
		fs_pfile *pf = &f->pf[i];
		const fs_split *sp = &f->splits[pf->first];
		pf->pool = sl__fs_pool_get(f->share, f->files[sp->file], f->cut_bytes, pf->nranges,
		                           f->done + pf->first, err);
		if (!pf->pool) {
			sl_err_prefix(err, "source '%s'", f->base.table);
			return err->code;
		}
		pf->seen = 0;
		for (int64_t j = 0; j < pf->nranges; j++)
			f->splits[pf->first + j].bstate = f->splits[pf->first + j].state;
	}
	f->pool_ready = 1;
	return 0;
}

/* Learns which ranges the other instances took since the last look: each
 * is done for this instance (it never reads it, so its watermark no longer
 * holds this one's back).  One atomic load per pooled file when nothing
 * was taken. */
static void pool_sync(fs_source *f)
{
	for (int i = 0; i < f->npf; i++) {
		fs_pfile *pf = &f->pf[i];
		int front = sl__fs_pool_front(pf->pool);
		for (; pf->seen < front; pf->seen++) {
			int k = pf->first + sl__fs_pool_range(pf->pool, pf->seen);
			if (!f->splits[k].mine) {
				finish_split(f, k);
				f->elsewhere[k] = 1;
			}
		}
	}
}

/* Takes a run of ranges of pooled file i (sl__fs_pool_take: its length
 * shrinks as the pool empties), then catches up with the others'.  Only
 * at a range boundary. */
static void pool_take(fs_source *f, int i)
{
	fs_pfile *pf = &f->pf[i];
	int n, at = sl__fs_pool_take(pf->pool, f->nsub, &n);
	for (int e = at; e < at + n; e++)
		f->splits[pf->first + sl__fs_pool_range(pf->pool, e)].mine = 1;
	pool_sync(f);
}

/*
 * Before the reader opens split cur: when it is a pooled range this
 * instance did not take (the first unfinished range of its file, standing
 * for the pool), takes a run from the pool; cur becomes the first range
 * of the run, or, when another instance took cur meanwhile or the pool is
 * empty, the next split that may take a turn.  Returns when cur may be
 * opened or every split is done.
 */
static void claim(fs_source *f)
{
	while (f->ndone < f->nsplits) {
		fs_split *sp = &f->splits[f->cur];
		if (sp->state != FS_DONE && (sp->pfile < 0 || sp->mine))
			return;
		if (sp->state != FS_DONE)
			pool_take(f, sp->pfile);
		if (sp->state != FS_DONE && sp->mine)
			return;
		f->cur = next_split(f, f->cur);
		f->turn_end = -1;
	}
}

/*
 * The last line that starts before byte `start` of fd, start > 0: the
 * line holding byte start - 1, without its '\n' (and '\r').  Sets *line
 * (malloc'd, *len bytes) and returns 0; returns -1 when it cannot be read.
 */
static int line_before(int fd, int64_t start, char **line, size_t *len)
{
	int64_t first = line_start_from(fd, start);
	if (first < 0)
		return -1;
	int64_t end = first; /* the line is [begin, end) */
	char c;
	if (end > 0 && pread(fd, &c, 1, end - 1) == 1 && c == '\n')
		end--;
	int64_t begin = end;
	char buf[4096];
	while (begin > 0) {
		int64_t at = begin > (int64_t)sizeof buf ? begin - (int64_t)sizeof buf : 0;
		ssize_t n = pread(fd, buf, (size_t)(begin - at), at);
		if (n != begin - at)
			return -1;
		char *nl = memrchr(buf, '\n', (size_t)n);
		if (nl) {
			begin = at + (nl - buf) + 1;
			break;
		}
		begin = at;
	}
	if (end > begin && pread(fd, &c, 1, end - 1) == 1 && c == '\r')
		end--;
	*len = (size_t)(end - begin);
	*line = malloc(*len + 1);
	if (!*line || pread(fd, *line, *len, begin) != (ssize_t)*len) {
		free(*line);
		return -1;
	}
	return 0;
}

/*
 * Seeds (docs/watermarks.md "Splits"): the rows whose watermark
 * expression gives the ranges k > 0 of a file their initial watermarks,
 * one per range not started, not looked for yet, and whose watermark is
 * still -infinity (so a restore recomputes nothing it restored: a range
 * waiting with a watermark found earlier keeps it, and one found NULL
 * finds NULL again).  The row is the last line that starts before the
 * range, decoded with the format; a line that does not decode gives no
 * row (the range stays at -infinity).  Appends the rows to out (a record
 * may give several: its last decides), sets prov_file[row] to the range
 * and returns how many (0 = none left).
 */
static int read_seeds(fs_source *f, sl_batch *out)
{
	int n = 0;
	for (int k = 0; k < f->nsplits && out->cap - out->nrows >= 2; k++) {
		fs_split *sp = &f->splits[k];
		if (!sp->start || sp->seeded || sp->state != FS_WAITING || f->wm[k] != SL_WM_MIN)
			continue;
		sp->seeded = 1;
		int fd = open(file_name(f, sp->file), O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* opening the range reports it */
		char *line = NULL;
		size_t len = 0;
		int got = line_before(fd, sp->start, &line, &len);
		close(fd);
		if (got)
			continue;
		sl_err derr, ferr;
		sl_err_clear(&derr);
		sl_err_clear(&ferr);
		int first = out->nrows;
		int rc = f->fill.vcols ? decode_view(f, sp->file, line, len, out, &derr, &ferr)
		                       : f->dec->vt->decode(f->dec, line, len, out, SL_WM_MIN, &derr);
		free(line);
		if (rc == SL_EFULL) {
			out->nrows = first;
			sp->seeded = 0; /* the next read looks again */
			break;
		}
		if (rc < 0 || out->nrows == first) {
			out->nrows = first;
			continue;
		}
		for (int r = first; r < out->nrows; r++)
			f->prov_file[r] = k; /* the record's last row decides */
		n += out->nrows - first;
	}
	return n;
}

/* File formats: opens split k's file through the format and, for a split
 * restored as started, passes over the rows it consumed (sp->off). */
static int open_file_split(fs_source *f, int k, sl_err *err)
{
	fs_split *sp = &f->splits[k];
	const char *name = file_name(f, sp->file);
	const sl_format_vtab *vt = f->dec->vt;
	f->ffd = open(name, O_RDONLY | O_CLOEXEC);
	if (f->ffd < 0)
		return sl_err_set(err, SL_EIO, "source '%s': cannot open file '%s': %s",
		                  f->base.table, name, strerror(errno));
	f->lr_split = k;
	int rc = vt->file_open(f->dec, f->ffd, name, err);
	if (!rc && sp->state == FS_STARTED && sp->off > 0)
		rc = vt->file_skip(f->dec, sp->off, err);
	if (rc) {
		sl_err_prefix(err, "source '%s'", f->base.table);
		leave_split(f);
		return rc;
	}
	if (sp->state == FS_WAITING) {
		sp->state = FS_STARTED;
		sp->first = sp->off = sp->line = 0;
	}
	return 0;
}

/*
 * File formats (Parquet, docs/parquet.md): each file is one split; the
 * splits take turns of one block (a Parquet row group) each, round-robin
 * in name order, so every file's watermark moves as the files are read
 * (docs/parallel.md §4); turns are set by the data's blocks and the
 * snapshot keeps whose turn it is, so a restored job reads in the same
 * order.  A turn reopens its file and passes over the rows consumed
 * (file_skip passes over whole blocks without reading them).  A read
 * returns the rows of one call of the format's file_read.  A split's position is the count of rows consumed (sp->off,
 * and sp->line: rows are numbered from 1 for messages), which a restore
 * passes over with file_skip.  A partitioned table's data columns are read
 * through a view of the batch, the partition columns filled from the
 * file's directory names.
 */
static int read_file_rows(fs_source *f, sl_batch *out, sl_err *err)
{
	const sl_format_vtab *vt = f->dec->vt;
	int rows0 = out->nrows;
	f->prov_n = 0;
	while (f->ndone < f->nsplits) {
		fs_split *sp = &f->splits[f->cur];
		int rc;
		if (sp->state == FS_DONE) {
			f->cur = next_split(f, f->cur);
			continue;
		}
		if (f->lr_split != f->cur) {
			leave_split(f);
			if ((rc = open_file_split(f, f->cur, err)))
				return rc;
		}
		f->base.split = f->cur;
		if (f->fill.vcols) {
			if (sl__fs_fill_load(&f->fill, sp->file, file_name(f, sp->file), f->base.table,
			                     err))
				return SL_EINPUT;
			sl_batch v;
			sl__fs_fill_view(&f->fill, out, &v);
			rc = vt->file_read(f->dec, &v, err);
			out->nrows = v.nrows;
			out->arena = v.arena;
			if (rc > 0)
				sl__fs_fill_rows(&f->fill, out, rows0);
		} else {
			rc = vt->file_read(f->dec, out, err);
		}
		if (rc == SL_EEOF) {
			finish_split(f, f->cur);
			set_progress(f);
			f->cur = next_split(f, f->cur);
			continue;
		}
		if (rc < 0) {
			sl_err_prefix(err, "source '%s'", f->base.table);
			return rc;
		}
		for (int r = rows0; r < out->nrows; r++) {
			f->prov_file[r] = f->cur;
			f->prov_line[r] = sp->line + 1 + (r - rows0);
			f->prov_off[r] = -1;
		}
		sp->off += rc;
		sp->line += rc;
		f->prov_n = out->nrows;
		f->base.rows_read += rc;
		if (!sp->rows)
			sp->rows = vt->file_rows ? vt->file_rows(f->dec) : -1;
		set_progress(f);
		if (vt->file_block_end(f->dec) && next_split(f, f->cur) != f->cur) {
			leave_split(f); /* the turn ends with the block */
			f->cur = next_split(f, f->cur);
		}
		return rc;
	}
	return SL_EEOF;
}

/*
 * Range k of a file ended at a record the reader holds (unread): k is
 * done.  When the split that takes the next turn (next_split) is the
 * range that starts where k ends, waiting, the reader goes on into it:
 * no re-open, no re-scan to a line boundary and no second read of the
 * block (ranges of one file come in runs on one instance, make_splits).
 * Its lines keep k's origin (first, base: the reader counts lines from
 * there), its turn starts at the record, as a turn starting there after a
 * re-open would (fss_read's turn_end).  A pooled range j this instance
 * has not taken is taken here when it is the pool's front (pool_take: the
 * run starts at j), so a run of the pool costs what a static run does.
 * Returns 1 when it went on (cur is the new range), 0 when k's turn must
 * end as usual (k not marked done).
 */
static int next_range_goes_on(fs_source *f, int k)
{
	fs_split *sk = &f->splits[k];
	int j = k + 1;
	if (j >= f->nsplits)
		return 0;
	fs_split *sj = &f->splits[j];
	if (sj->file != sk->file || sj->start != sk->end || sj->state != FS_WAITING)
		return 0;
	sk->state = FS_DONE; /* finish_split without leaving the reader */
	f->done[k] = 1;
	f->ndone++;
	if (next_split(f, k) == j && sj->pfile >= 0 && !sj->mine)
		pool_take(f, sj->pfile); /* j may be the pool's front: take the run from it */
	if (next_split(f, k) != j || (sj->pfile >= 0 && !sj->mine)) {
		/* another file takes the next turn, or another instance took j */
		sk->state = FS_STARTED;
		f->done[k] = 0;
		f->ndone--;
		return 0;
	}
	sj->state = FS_STARTED;
	sj->first = sk->first;
	sj->base = sk->base;
	sj->off = f->lr.off;
	sj->line = f->lr.line;
	f->lr_split = j;
	f->cur = j;
	f->turn_end = (f->lr.off / f->turn_bytes + 1) * f->turn_bytes;
	return 1;
}

/* Before the first read after a restore: the snapshots of every instance
 * that took the checkpoint came (fss_restore). */
static int check_restored(fs_source *f, sl_err *err)
{
	int got = 0;
	for (int i = 0; i < f->old_nsub; i++)
		got += f->old_seen[i];
	if (got < f->old_nsub)
		return sl_err_set(err, SL_ESTATE, "source '%s': restored from the snapshots of %d "
		                  "of the %d instances that took the checkpoint: the positions of "
		                  "the others' splits are missing", f->base.table, got, f->old_nsub);
	free(f->old_seen);
	f->old_seen = NULL;
	return 0;
}

/*
 * Reads rows of the split whose turn it is (every batch holds rows of one
 * split, base.split).  While several splits are left, a turn is the
 * records that start in one aligned MiB of the split's file (from the
 * turn's first record to the next multiple of FS_TURN_BYTES), a batch or
 * more (a test's small split size makes turns half as large); then the
 * next split that may take turns (may_turn: the first unfinished range of
 * its file) takes its turn, so the files are read interleaved and the
 * ranges of each in order (docs/parallel.md §4, rules 2 and 5) with one
 * reader, one buffer and one open file at a time; while no other split
 * may take a turn, the current one goes on.  The first reads return the
 * seed batches (read_seeds) before any row.  Turns are defined by file offsets,
 * not by batch sizes or reads, and a snapshot keeps the turn, so a
 * restored job reads the splits in the order the uninterrupted job does.
 * A range ends at the first record starting at or after its end.
 */
static int fss_read(sl_source *s, sl_batch *out, sl_err *err)
{
	fs_source *f = (fs_source *)s;
	int rows0 = out->nrows, rc = 0;
	s->seed = 0;
	if (ensure_prov(f, out->cap, err))
		return SL_ENOMEM;
	if (f->old_seen && (rc = check_restored(f, err)))
		return rc;
	if (f->npf && !f->pool_ready && (rc = pool_attach(f, err)))
		return rc;
	if (f->npf)
		pool_sync(f);
	f->prov_n = 0;
	if (f->seeding) {
		int n = out->nrows == rows0 ? read_seeds(f, out) : 0;
		if (n > 0) {
			s->seed = 1;
			s->seed_split = f->prov_file;
			return n;
		}
		f->seeding = 0;
	}
	if (f->filefmt)
		return read_file_rows(f, out, err);
	while (out->cap - out->nrows >= 2 && f->ndone < f->nsplits) {
		int may_move = out->nrows == rows0; /* no row of ours points at the buffer */
		fs_split *sp = &f->splits[f->cur];
		if (f->lr_split != f->cur) {
			if (!may_move)
				break; /* another split would overwrite the buffer */
			leave_split(f);
			if (f->npf) { /* a pooled range is taken before it is read */
				claim(f);
				if (f->ndone >= f->nsplits)
					break;
				sp = &f->splits[f->cur];
			}
			if ((rc = open_split(f, f->cur, err)))
				goto fail;
			if (f->turn_end < 0)
				f->turn_end = (sp->off / f->turn_bytes + 1) * f->turn_bytes;
		}
		s->split = f->cur;
		const char *rec;
		size_t len;
		int64_t line, off;
		rc = sl__lines_next(&f->lr, may_move, &rec, &len, &line, &off);
		int turn_over = 0;
		if (rc == 1 && sp->end >= 0 && off >= sp->end) {
			sl__lines_unread(&f->lr, rec, line, off);
			/* the record belongs to the next range */
			if (next_range_goes_on(f, f->cur)) {
				if (out->nrows > rows0)
					break; /* a batch holds one split's rows */
				continue;
			}
			rc = SL_EEOF;
		} else if (rc == 1 && off >= f->turn_end) {
			if (next_split(f, f->cur) != f->cur) {
				sl__lines_unread(&f->lr, rec, line, off);
				turn_over = 1;
			} else { /* no other split may take a turn: this one goes on */
				f->turn_end = (off / f->turn_bytes + 1) * f->turn_bytes;
			}
		}
		if (rc == SL_EEOF || turn_over) {
			if (rc == SL_EEOF)
				finish_split(f, f->cur);
			else
				leave_split(f);
			f->cur = next_split(f, f->cur);
			f->turn_end = -1; /* the next turn starts where its split is */
			if (out->nrows > rows0)
				break; /* a batch holds one split's rows */
			continue;
		}
		if (rc == 0)
			break;
		if (rc < 0) {
			sl_err_set(err, rc, "source '%s': file '%s': read failed: %s", s->table,
			           file_name(f, sp->file), rc == SL_ENOMEM ? "out of memory"
			                                                   : strerror(errno));
			goto fail;
		}
		if ((rc = decode_one(f, rec, len, line, off, out, err)) == SL_EFULL) {
			sl__lines_unread(&f->lr, rec, line, off);
			rc = 0;
			break;
		}
		if (rc < 0)
			goto fail;
	}
	f->prov_n = out->nrows;
	s->rows_read += out->nrows - rows0;
	if (out->nrows > rows0) {
		if (f->slow_us)
			usleep((useconds_t)f->slow_us); /* a test's slowed instance */
		return out->nrows - rows0;
	}
	return f->ndone >= f->nsplits ? SL_EEOF : 0;
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
	int k = f->prov_file[row];
	int64_t line = abs_line(f, k, f->prov_line[row]);
	snprintf(buf, cap, "file '%s', %s %lld", file_name(f, f->splits[k].file),
	         f->filefmt ? "row" : "line", (long long)line);
}

static int fss_row_input(sl_source *s, int row, const char **file, int64_t *line)
{
	fs_source *f = (fs_source *)s;
	if (row < 0 || row >= f->prov_n || row >= f->prov_cap || !f->prov_file)
		return 0;
	int k = f->prov_file[row];
	*line = abs_line(f, k, f->prov_line[row]);
	*file = file_name(f, f->splits[k].file);
	return 1;
}

/*
 * Snapshot, version 2 (one instance, nsub = 1): u8 2, the split whose turn
 * it is (u32 index into the list below) and where its turn ends (i64, -1 =
 * not begun), u32 splits, then per split its id (file name, start), u8
 * state, the first line start, the offset and line (since the origin) of
 * its next record, the lines before the origin (-1 = not counted) and its
 * watermark (base.split_wm, kept by the scan).  Version 3 (instance
 * `subtask` of nsub > 1): u8 3, u32 subtask, u32 nsub, then version 2's
 * fields after its first byte, listing this instance's splits only.
 * Version 4 (any nsub): u8 4, u32 subtask, u32 nsub, i64 the size the
 * files were cut at (make_splits), then version 2's fields; versions 1-3
 * were cut at FS_SPLIT_BYTES_V3 (or the test size).  Version 5, the one
 * written: version 4's layout, but the instances' snapshots may name one
 * range several times (a pooled file's ranges are in every instance's:
 * the one that took a range has it where it is, the others where it stood
 * when their run began, docs/parallel.md §4.1); a restore keeps the
 * furthest record of each range (restore_v2), which changes nothing for
 * the earlier versions, whose snapshots name each split once.  A build
 * that reads up to version 4 would keep the last record instead, so it
 * refuses version 5.
 * Version 1 (one stream over the files in name order, before splits):
 * u8 1, file index, file name ("" when done), offset and line of the next
 * record; fss_restore maps it onto the splits.
 */
static int fss_snapshot(sl_source *s, sl_snap_writer *w, sl_err *err)
{
	fs_source *f = (fs_source *)s;
	if (!f->filefmt && f->lr_split >= 0 && f->splits[f->lr_split].state == FS_STARTED) {
		f->splits[f->lr_split].off = f->lr.off;
		f->splits[f->lr_split].line = f->lr.line;
	}
	sl_snap_put_u8(w, FS_SRC_SNAP_POOL);
	sl_snap_put_u32(w, (uint32_t)f->subtask);
	sl_snap_put_u32(w, (uint32_t)f->nsub);
	sl_snap_put_i64(w, f->cut_bytes);
	sl_snap_put_u32(w, (uint32_t)f->cur);
	sl_snap_put_i64(w, f->turn_end);
	sl_snap_put_u32(w, (uint32_t)f->nsplits);
	for (int i = 0; i < f->nsplits; i++) {
		const fs_split *sp = &f->splits[i];
		const char *name = f->files[sp->file];
		/* a pooled range this instance did not take: where it stood when
		 * the pool was made (its taker's snapshot, if it took it before
		 * its barrier, has it further on: the restore keeps the furthest;
		 * docs/parallel.md §4.1) */
		int state = sp->pfile >= 0 && !sp->mine && f->pool_ready ? sp->bstate : sp->state;
		sl_snap_put_bytes(w, name, strlen(name));
		sl_snap_put_i64(w, sp->start);
		sl_snap_put_u8(w, (uint8_t)state);
		sl_snap_put_i64(w, sp->first);
		sl_snap_put_i64(w, sp->off);
		sl_snap_put_i64(w, sp->line);
		sl_snap_put_i64(w, sp->base);
		sl_snap_put_i64(w, f->wm[i]);
	}
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

/* Resets every split to not started, watermark -infinity. */
static void reset_splits(fs_source *f)
{
	for (int i = 0; i < f->nsplits; i++) {
		fs_split *sp = &f->splits[i];
		sp->state = FS_WAITING;
		sp->first = sp->off = sp->line = 0;
		sp->base = sp->start ? -1 : 0;
		sp->seeded = 0;
		sp->mine = 0;
		f->done[i] = 0;
		f->elsewhere[i] = 0;
		f->wm[i] = SL_WM_MIN;
	}
	f->ndone = 0;
	f->cur = 0;
	f->turn_end = -1;
}

/*
 * Version 1: the files were one stream.  Files before the named one are
 * done; in the named file (when it still exists) the splits ending at or
 * before the offset are done, the split holding it is started there with
 * the stream's watermark (the scan put it in base.split_wm before calling
 * restore) and lines counted from the start of the file; the rest start
 * afresh at -infinity (their own watermark, docs/parallel.md §4).
 */
static int restore_v1(fs_source *f, sl_snap_reader *r, sl_err *err)
{
	size_t n = 0;
	int exact;
	(void)sl_snap_get_u32(r); /* the index is informative: names decide */
	const char *name = sl_snap_get_bytes(r, &n);
	int64_t off = sl_snap_get_i64(r), line = sl_snap_get_i64(r);
	if (!sl_snap_reader_ok(r) || off < 0 || line < 0)
		return sl_err_set(err, SL_ESTATE, "source '%s': damaged filesystem snapshot",
		                  f->base.table);
	int64_t stream_wm = f->nsplits ? f->wm[0] : SL_WM_MIN;
	reset_splits(f); /* version 1 is one instance's: always the first restore */
	int file = n == 0 ? f->nfiles : find_file(f, name, n, &exact);
	int at = n != 0 && file < f->nfiles && exact; /* resume inside `file` */
	for (int i = 0; i < f->nsplits; i++) {
		fs_split *sp = &f->splits[i];
		if (sp->file < file || (at && sp->file == file && sp->end >= 0 && sp->end <= off)) {
			finish_split(f, i);
		} else if (at && sp->file == file && sp->start <= off) {
			sp->state = FS_STARTED;
			sp->first = 0; /* lines counted from the start of the file */
			sp->base = 0;
			sp->off = off;
			sp->line = line;
			f->wm[i] = stream_wm;
		}
	}
	f->cur = next_split(f, f->nsplits ? f->nsplits - 1 : 0);
	return 0;
}

/*
 * Versions 2 and 3: each saved split's state goes to the split with the
 * same id (file name, start) when this instance owns it; splits not in the
 * snapshot start afresh (new files, or splits another snapshot names:
 * see fss_restore), saved splits whose file is gone or that another
 * instance owns are skipped.  `from` is the instance that took it.
 */
static int restore_v2(fs_source *f, sl_snap_reader *r, int from, sl_err *err)
{
	uint32_t cur = sl_snap_get_u32(r);
	int64_t turn_end = sl_snap_get_i64(r);
	uint32_t n = sl_snap_get_u32(r);
	int cur_k = -1;
	if (!f->nrestored)
		reset_splits(f);
	for (uint32_t i = 0; i < n && sl_snap_reader_ok(r); i++) {
		size_t len = 0;
		int exact;
		const char *name = sl_snap_get_bytes(r, &len);
		int64_t start = sl_snap_get_i64(r);
		int state = sl_snap_get_u8(r);
		int64_t first = sl_snap_get_i64(r), off = sl_snap_get_i64(r);
		int64_t line = sl_snap_get_i64(r), base = sl_snap_get_i64(r), wm = sl_snap_get_i64(r);
		if (!sl_snap_reader_ok(r) || state > FS_DONE || off < 0 || line < 0)
			break;
		int file = find_file(f, name, len, &exact);
		if (file >= f->nfiles || !exact)
			continue; /* the file is gone, or it has no split of this instance */
		for (int k = 0; k < f->nsplits; k++) {
			fs_split *sp = &f->splits[k];
			if (sp->file != file || sp->start != start)
				continue;
			if (i == cur)
				cur_k = k;
			/* several snapshots may name a pooled range (its taker with its
			 * position, the others with where it stood when their run
			 * began, fss_snapshot): the furthest wins */
			if (state < sp->state ||
			    (state == sp->state && state == FS_STARTED && off < sp->off) ||
			    (state == sp->state && state != FS_STARTED && wm <= f->wm[k]))
				continue;
			f->wm[k] = wm;
			if (state == FS_DONE) {
				finish_split(f, k);
			} else if (state == FS_STARTED) {
				sp->state = FS_STARTED;
				sp->first = first;
				sp->off = off;
				sp->line = line;
				sp->base = base;
			}
		}
	}
	if (!sl_snap_reader_ok(r))
		return sl_err_set(err, SL_ESTATE, "source '%s': damaged filesystem snapshot",
		                  f->base.table);
	if (cur_k >= 0 && f->splits[cur_k].state != FS_DONE &&
	    (!f->nrestored || from == f->subtask)) {
		f->cur = cur_k; /* the turn goes on where it was */
		f->turn_end = turn_end;
	} else if (!f->nrestored) {
		f->cur = next_split(f, cur_k >= 0 ? cur_k : f->nsplits ? f->nsplits - 1 : 0);
	}
	if (f->nsplits && !may_turn(f, f->cur)) { /* a later snapshot started a range before it */
		f->cur = next_split(f, f->cur);
		f->turn_end = -1;
	}
	return 0;
}

/*
 * Which snapshots a restore got: the first call notes the instance count
 * of the run that took them (1 for versions 1 and 2); later calls must
 * come from other instances of the same run.  A later call gets back the
 * watermarks the earlier ones restored (the scan sets every split_wm
 * before each call, op_scan.c).
 */
static int note_restore(fs_source *f, uint32_t from, uint32_t nsub, sl_err *err)
{
	if (nsub < 1 || from >= nsub || nsub > 1u << 20)
		return sl_err_set(err, SL_ESTATE, "source '%s': damaged filesystem snapshot",
		                  f->base.table);
	if (!f->nrestored) {
		free(f->old_seen);
		if (!(f->old_seen = calloc(nsub, 1)))
			return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", f->base.table);
		f->old_nsub = (int)nsub;
	} else if (!f->old_seen || (int)nsub != f->old_nsub || f->old_seen[from]) {
		return sl_err_set(err, SL_ESTATE, "source '%s': restore: the snapshot of instance "
		                  "%u of %u does not belong with the %d restored before it",
		                  f->base.table, from, nsub, f->nrestored);
	} else {
		memcpy(f->wm, f->wm_keep, (size_t)f->nsplits * sizeof *f->wm);
	}
	f->old_seen[from] = 1;
	return 0;
}

/*
 * Restore.  Called once per snapshot of the instances of the run that
 * took the checkpoint (conn.h), in any order, before the first read: each
 * instance of this run picks the splits it owns from all of them, which is
 * what makes a restore at another parallelism, or after a directory gained
 * a file that moved later splits to other instances, resume every split
 * exactly where it was.  The first read refuses (SL_ESTATE) when the
 * snapshots of some instances of that run were not given.
 */
static int fss_restore(sl_source *s, sl_snap_reader *r, sl_err *err)
{
	fs_source *f = (fs_source *)s;
	uint8_t ver = sl_snap_get_u8(r);
	uint32_t from = 0, nsub = 1;
	int64_t cut = split_bytes(FS_SPLIT_BYTES_V3); /* versions 1-3: the old size */
	int rc;
	leave_split(f);
	f->seeding = 1;
	if (ver == FS_SRC_SNAP_PARALLEL || ver >= FS_SRC_SNAP_CUT) {
		from = sl_snap_get_u32(r);
		nsub = sl_snap_get_u32(r);
	}
	if (ver >= FS_SRC_SNAP_CUT)
		cut = sl_snap_get_i64(r);
	if (!sl_snap_reader_ok(r) || (ver == FS_SRC_SNAP_PARALLEL && nsub < 2) || cut < 1)
		return sl_err_set(err, SL_ESTATE, "source '%s': damaged filesystem snapshot",
		                  s->table);
	if (ver < 1 || ver > FS_SRC_SNAP_POOL)
		return sl_err_set(err, SL_ESTATE, "source '%s': filesystem snapshot version %d is "
		                  "not supported (this build reads 1 to %d)", s->table, ver,
		                  FS_SRC_SNAP_POOL);
	if ((rc = note_restore(f, from, nsub, err)))
		return rc;
	/* the splits are named by their starts: cut the files as the run that
	 * took the snapshot did (every instance of it cut at one size) */
	if (f->cutable && cut != f->cut_bytes) {
		if (f->nrestored)
			return sl_err_set(err, SL_ESTATE, "source '%s': restore: the snapshots of one "
			                  "checkpoint cut the files at different sizes", s->table);
		if ((rc = recut(f, cut, err)))
			return rc;
	}
	rc = ver == 1 ? restore_v1(f, r, err) : restore_v2(f, r, (int)from, err);
	if (rc)
		return rc;
	f->nrestored++;
	memcpy(f->wm_keep, f->wm, (size_t)f->nsplits * sizeof *f->wm);
	set_progress(f); /* percent done resumes from the positions restored */
	return 0;
}

static void fss_close(sl_source *s)
{
	fs_source *f = (fs_source *)s;
	if (f->filefmt)
		leave_split(f);
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
	free(f->splits);
	free(f->done);
	free(f->elsewhere);
	free(f->wm);
	free(f->wm_keep);
	free(f->old_seen);
	free(f->pf);
	f->pf = NULL;
	f->npf = 0;
	f->wm_keep = NULL;
	f->old_seen = NULL;
	f->splits = NULL;
	f->done = f->elsewhere = NULL;
	f->wm = NULL;
	f->nsplits = 0;
	s->nsplits = 0;
	s->split_done = NULL;
	s->split_elsewhere = NULL;
	s->split_wm = NULL;
	sl__fs_fill_free(&f->fill);
	f->dec = NULL;
	f->files = NULL;
	f->nfiles = 0;
}

/* The live metrics' name of split i: its file, and its byte range when
 * the file is cut into several. */
static void fss_split_name(sl_source *s, int i, char *buf, size_t cap)
{
	fs_source *f = (fs_source *)s;
	const fs_split *sp = &f->splits[i];
	if (sp->start == 0 && sp->end < 0)
		snprintf(buf, cap, "file '%s'", file_name(f, sp->file));
	else if (sp->end < 0)
		snprintf(buf, cap, "file '%s' from byte %lld", file_name(f, sp->file),
		         (long long)sp->start);
	else
		snprintf(buf, cap, "file '%s' bytes %lld-%lld", file_name(f, sp->file),
		         (long long)sp->start, (long long)sp->end);
}

/* The 'filesystem' source method table. */

const sl_source_vtab sl_filesystem_source_vtab = {
	.name = "filesystem",
	.size = sizeof(fs_source),
	.lookup = &sl__fs_lookup_vtab,
	.configure = fss_configure,
	.open = fss_open,
	.read = fss_read,
	.where = fss_where,
	.row_input = fss_row_input,
	.snapshot = fss_snapshot,
	.restore = fss_restore,
	.close = fss_close,
	.partitioned = &sl_filesystem_source_vtab, /* fss_configure reads a->part */
	.metadata_keys = sl__fs_meta_keys,
	.split_name = fss_split_name,
};
