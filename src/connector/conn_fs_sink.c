/*
 * conn_fs_sink.c - the sink of Flink's 'filesystem' connector: part files
 * in a directory, published exactly once (the source is conn_filesystem.c;
 * PARTITIONED BY tables go through conn_fs_partition.c, which runs one sink
 * of this file per partition directory).  Configured while the job is
 * planned ('path', the format and every option checked, nothing on disk
 * looked at: EXPLAIN touches no file) and opened when it starts (conn.h).
 *
 * Sink.  'path' is a directory (created by open if missing).  Rows are
 * encoded by the format into a buffer written with write(2) in 1 MiB chunks to a
 * hidden in-progress part (a file format, Parquet, also writes its header
 * when the part opens and its held-back rows and footer when it closes,
 * format.h; its held-back bytes count towards the rolling size), rolling at 'sink.rolling-policy.file-size'
 * (default 128 MB) and, checked when a batch arrives, when the part has
 * been open for 'sink.rolling-policy.rollover-interval' of processing time
 * (default 30 min); a rolled part is fsynced, closed and waits, still
 * hidden.  Only whole rows ever reach a file, and a part is published by
 * one rename, so readers (which skip names starting with '.') never see a
 * partial row or a file twice.
 *
 * Without checkpointing, parts are `.part-<runid>-<n>.<ext>.inprogress`
 * and finish() fsyncs and renames each to `part-<runid>-<n>.<ext>`.
 *
 * With checkpointing (sl_conn_args.checkpointing, job, attempt;
 * docs/semantics.md §3) names carry the job, the attempt a and the checkpoint id:
 *   in progress  .part-<job>-<a>-<seq>.<ext>.inprogress
 *   staged       .part-<job>-<id>-<a>-<n>.<ext>.pending
 *   published    part-<job>-<id>-<a>-<n>.<ext>
 * (n numbers the parts of one checkpoint from 0).  pre_commit(id) closes
 * the open part and renames every waiting part to a staged name, fsyncs
 * the directory and writes the list of staged/final names into the
 * checkpoint; commit(id) renames them into place; abort(id) deletes them;
 * recover() publishes the restored checkpoint's list (idempotently) and
 * deletes every other hidden file of the job, refusing to start when a
 * newer checkpoint's output is already published.  finish() only closes
 * the open part: the final checkpoint publishes it.  Each kind of name has
 * a fixed count of numbers after the job, so jobs "j" and "j-5" sharing a
 * directory never touch each other's files.  close() never publishes.
 *
 * Parallel instances (sl_conn_args.subtask of nsubtasks > 1,
 * docs/parallel.md §6): every name carries the instance number i as
 * `-s<i>` before the part number (`part-<job>-<id>-<a>-s<i>-<n>.<ext>`,
 * `.part-<job>-<a>-s<i>-<seq>...`, `part-<runid>-s<i>-<n>.<ext>`; names
 * at one instance are unchanged), marked by its 's' so that the fixed
 * counts above still tell jobs apart.  The protocol runs per instance on
 * its own names; the pre-commit data adds the instance and the count
 * (version 2).  recover publishes a record's list whoever gets it, and
 * deletes only the leftovers of the instance that wrote the record
 * (hidden_mine), never this run's files: so at any new parallelism every
 * old instance's staged parts are published, provided every record is
 * given to some instance, and no instance deletes a file another still
 * has to publish.  One thread uses an instance at a time.
 */
#include "conn_fs_int.h"
#include "conn_lines.h"
#include "sluice.h"
#include "base/timeutil.h"
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
#define FS_DEFAULT_ROLLOVER (30LL * 60 * 1000000) /* '...rollover-interval': 30 min */
#define FS_DEFAULT_CHECK (60LL * 1000000)       /* '...check-interval': 1 min */

#define FS_NAME_MAX 512  /* name buffers (job names are limited to 128 bytes) */
#define FS_SNAP_VERSION 1       /* pre-commit data of a sink of one instance */
#define FS_SNAP_PARALLEL 2      /* ... of one of several instances */

/* Kinds of file names of a checkpointing sink (see the header). */
enum { FS_INPROG, FS_STAGED, FS_FINAL };

/* A checkpoint whose staged parts are not known to be published yet: its
 * parts are ckpt_name(k, id, i, ...) for i < nparts. */
typedef struct fs_pending {
	int64_t id;
	int nparts;
} fs_pending;

typedef struct fs_sink {
	sl_sink base;         /* must be first */
	char *dir;            /* 'path': the output directory */
	int dfd;              /* that directory, open (O_DIRECTORY); -1 = none */
	const char *ext;      /* part file extension, from the format */
	sl_encoder *enc;      /* the format's encoder */
	char runid[40];       /* without checkpointing: hex of time, pid, instance */
	char *job;            /* with checkpointing: the job name; NULL = off */
	int attempt;          /* with checkpointing: the run attempt */
	int subtask, nsub;    /* instance `subtask` of `nsub` (conn.h); names carry
	                       * "-s<subtask>" when nsub > 1 */
	char inst[16];        /* "-s<subtask>" when nsub > 1, else "" */
	int overwrite;        /* recover(NULL) deletes the job's published parts */
	int64_t roll_size;    /* 'sink.rolling-policy.file-size' */
	int64_t rollover_us;  /* 'sink.rolling-policy.rollover-interval' */
	int64_t opened_us;    /* processing time the open part was opened */
	int fd;               /* the open in-progress part, -1 = none */
	int part;             /* number of the open (or next) part */
	int pub_from;         /* parts pub_from..part-1 are closed, neither staged nor
	                       * published */
	int64_t part_bytes;   /* bytes of the open part, written + buffered */
	int broken;           /* a write, fsync or rename failed: refuse to publish */
	int64_t last_id;      /* highest checkpoint id pre-committed or recovered */
	fs_pending *pend;     /* pre-committed, not yet committed; ascending ids */
	int npend, pend_cap;
	sl_buf out;           /* encoded whole rows not yet written */
	char name[FS_NAME_MAX]; /* name scratch for messages */
} fs_sink;

/* Name of part n while in progress (written, or closed and waiting). */
static const char *inprog_name(fs_sink *k, int n, char *buf)
{
	if (k->job)
		snprintf(buf, FS_NAME_MAX, ".part-%s-%d%s-%d.%s.inprogress", k->job, k->attempt,
		         k->inst, n, k->ext);
	else
		snprintf(buf, FS_NAME_MAX, ".part-%s%s-%d.%s.inprogress", k->runid, k->inst, n,
		         k->ext);
	return buf;
}

/* Staged (hidden) or final name of part i of checkpoint id. */
static const char *ckpt_name(fs_sink *k, int64_t id, int i, int staged, char *buf)
{
	snprintf(buf, FS_NAME_MAX, "%spart-%s-%lld-%d%s-%d.%s%s", staged ? "." : "", k->job,
	         (long long)id, k->attempt, k->inst, i, k->ext, staged ? ".pending" : "");
	return buf;
}

/* Parses 1-18 decimal digits at *p into *v and advances *p. */
static int parse_num(const char **p, int64_t *v)
{
	int n = 0;
	*v = 0;
	while (**p >= '0' && **p <= '9' && n < 18) {
		*v = *v * 10 + (**p - '0');
		(*p)++;
		n++;
	}
	return n > 0 && !(**p >= '0' && **p <= '9');
}

/* What parse_name found in a name besides its kind. */
typedef struct fs_name {
	int64_t id;      /* checkpoint id, -1 for in progress */
	int64_t attempt;
	int64_t inst;    /* the instance number, 0 when the name has none */
} fs_name;

/*
 * Whether `name` is a file of `job` of the given kind: in progress
 * `.part-<job>-<a>[-s<i>]-<n>.<ext>.inprogress`, staged
 * `.part-<job>-<id>-<a>[-s<i>]-<n>.<ext>.pending` or final
 * `part-<job>-<id>-<a>[-s<i>]-<n>.<ext>`, any attempt, instance and
 * extension (`-s<i>`: instance i of several, conn.h).  Each kind has a
 * fixed count of plain numbers after the job, and the instance is marked
 * by its 's', so a job whose name extends another's ("j" and "j-5") never
 * matches the other's files at any parallelism.  Fills *nm when given.
 */
static int parse_name(const char *name, const char *job, int kind, fs_name *nm)
{
	static const char *const pre[] = {".part-", ".part-", "part-"};
	static const char *const suf[] = {".inprogress", ".pending", ""};
	int nums = kind == FS_INPROG ? 2 : 3;
	size_t pl = strlen(pre[kind]), jl = strlen(job);
	int64_t v[3], inst = 0;
	if (strncmp(name, pre[kind], pl) || strncmp(name + pl, job, jl) || name[pl + jl] != '-')
		return 0;
	const char *p = name + pl + jl + 1;
	for (int i = 0; i < nums; i++) {
		if (i > 0 && *p++ != '-')
			return 0;
		if (i == nums - 1 && p[0] == 's') { /* the instance, before the part number */
			p++;
			if (!parse_num(&p, &inst) || *p++ != '-')
				return 0;
		}
		if (!parse_num(&p, &v[i]))
			return 0;
	}
	if (*p++ != '.')
		return 0;
	size_t el = strcspn(p, "./");
	if (el == 0 || strcmp(p + el, suf[kind]))
		return 0;
	if (nm) {
		nm->id = kind == FS_INPROG ? -1 : v[0];
		nm->attempt = kind == FS_INPROG ? v[0] : v[1];
		nm->inst = inst;
	}
	return 1;
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

/* Takes the checkpointing arguments: a job name usable in file names. */
static int open_ckpt_args(fs_sink *k, const sl_conn_args *a, sl_err *err)
{
	if (!a->checkpointing)
		return 0;
	if (!a->job || !a->job[0] || strlen(a->job) > 128 || strchr(a->job, '/') ||
	    a->attempt < 0)
		return sl_err_set(err, SL_EINVAL, "sink '%s': checkpointing needs a job name of "
		                  "1-128 bytes without '/' and an attempt >= 0 (job '%s', attempt %d)",
		                  a->table, a->job ? a->job : "(none)", a->attempt);
	if (!(k->job = strdup(a->job)))
		return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", a->table);
	k->attempt = a->attempt;
	k->overwrite = a->overwrite_output;
	return 0;
}

/* A fresh start's share of the job's files (recover(NULL)): instance i of
 * n takes the files whose instance number is i modulo n, so each file of
 * any earlier run is one instance's to delete. */
static int my_share(const fs_sink *k, const fs_name *nm)
{
	return nm->inst % k->nsub == k->subtask;
}

/* --overwrite-output: deletes the published parts of this job (this
 * instance's share, my_share). */
static int delete_published(fs_sink *k, sl_err *err)
{
	DIR *d = opendir(k->dir);
	struct dirent *e;
	fs_name nm;
	char path[4096];
	if (!d)
		return sl_err_set(err, SL_EIO, "sink '%s': cannot open directory '%s': %s",
		                  k->base.table, k->dir, strerror(errno));
	while ((e = readdir(d)))
		if (parse_name(e->d_name, k->job, FS_FINAL, &nm) && my_share(k, &nm)) {
			snprintf(path, sizeof(path), "%s/%s", k->dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	return 0;
}

/* Reads 'path', the rolling policy, the partition-commit options, the
 * checkpointing arguments and the format; the directory is not touched. */
static int fsk_configure(sl_sink *s, const sl_conn_args *a, sl_err *err)
{
	fs_sink *k = (fs_sink *)s;
	int rc;
	k->fd = k->dfd = -1;
	sl_buf_init(&k->out);
	const char *path = sl_opts_get(a->opts, "path");
	int64_t check_us;
	if (!path)
		return sl_err_set(err, SL_EINVAL, "sink '%s': option 'path' is required", a->table);
	if (!(path = sl__fs_local_path(path, "sink", a->table, err)))
		return err->code;
	if (sl_opts_size(a->opts, "sink.rolling-policy.file-size", FS_DEFAULT_ROLL,
	                 &k->roll_size, err) ||
	    sl_opts_duration(a->opts, "sink.rolling-policy.rollover-interval", FS_DEFAULT_ROLLOVER,
	                     &k->rollover_us, err) ||
	    sl_opts_duration(a->opts, "sink.rolling-policy.check-interval", FS_DEFAULT_CHECK,
	                     &check_us, err)) {
		sl_err_prefix(err, "sink '%s'", a->table);
		return SL_EINVAL;
	}
	if ((rc = sl__fs_check_commit_options(a, err)))
		return rc;
	if ((rc = open_ckpt_args(k, a, err)))
		return rc;
	k->nsub = a->nsubtasks > 0 ? a->nsubtasks : 1;
	k->subtask = a->subtask;
	if (k->subtask < 0 || k->subtask >= k->nsub)
		return sl_err_set(err, SL_EINVAL, "sink '%s': instance %d of %d does not exist",
		                  a->table, a->subtask, k->nsub);
	if (k->nsub > 1)
		snprintf(k->inst, sizeof k->inst, "-s%d", k->subtask);
	if (!(k->dir = strdup(path)))
		return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", a->table);
	if (!(k->enc = sl__fs_encoder(a, err)))
		return err && err->code ? err->code : SL_EINVAL;
	k->ext = format_ext(k->enc->vt->name);
	return 0;
}

/* Creates the directory (mkdir -p) and opens it; names this run. */
static int fsk_open(sl_sink *s, sl_err *err)
{
	static _Atomic unsigned instance; /* distinguishes sinks opened in the same microsecond */
	fs_sink *k = (fs_sink *)s;
	if (make_dirs(k->dir) ||
	    (k->dfd = open(k->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return sl_err_set(err, SL_EIO, "sink '%s': cannot create directory '%s': %s",
		                  s->table, k->dir, strerror(errno));
	struct timeval tv;
	gettimeofday(&tv, NULL);
	snprintf(k->runid, sizeof k->runid, "%llx%05x%02x",
	         (unsigned long long)tv.tv_sec * 1000000ULL + (unsigned long long)tv.tv_usec,
	         (unsigned)getpid() & 0xfffff, (instance++) & 0xff);
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
		if (w < 0) {
			k->broken = 1; /* the part may end in part of a row now */
			return sl_err_set(err, SL_EIO, "sink '%s': cannot write '%s/%s': %s",
			                  k->base.table, k->dir, inprog_name(k, k->part, k->name),
			                  strerror(errno));
		}
		done += (size_t)w;
	}
	sl_buf_clear(&k->out);
	return 0;
}

/*
 * Flushes, fsyncs and closes the open part (it stays in progress and
 * joins the parts waiting for publication).  A part without a byte is
 * removed instead.
 */
static int close_part(fs_sink *k, sl_err *err)
{
	if (k->fd < 0)
		return 0;
	int rc = 0;
	if (k->enc->vt->file_end) { /* a file format: the rows held back, the footer */
		size_t before = k->out.len;
		if ((rc = k->enc->vt->file_end(k->enc, &k->out, err)) != 0) {
			k->broken = 1;
			sl_err_prefix(err, "sink '%s'", k->base.table);
		}
		k->part_bytes += (int64_t)(k->out.len - before);
	}
	if (!rc)
		rc = flush_buf(k, err);
	if (!rc && k->part_bytes > 0 && fsync(k->fd)) {
		k->broken = 1;
		rc = sl_err_set(err, SL_EIO, "sink '%s': cannot fsync '%s/%s': %s", k->base.table,
		                k->dir, inprog_name(k, k->part, k->name), strerror(errno));
	}
	close(k->fd);
	k->fd = -1;
	if (!rc && k->part_bytes == 0)
		unlinkat(k->dfd, inprog_name(k, k->part, k->name), 0);
	else
		k->part++;
	k->part_bytes = 0;
	return rc;
}

static int open_part(fs_sink *k, sl_err *err)
{
	const char *p = inprog_name(k, k->part, k->name);
	k->fd = openat(k->dfd, p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (k->fd < 0)
		return sl_err_set(err, SL_EIO, "sink '%s': cannot create '%s/%s': %s", k->base.table,
		                  k->dir, p, strerror(errno));
	k->part_bytes = 0;
	k->opened_us = k->base.proc_now;
	if (k->enc->vt->file_begin) { /* a file format: its header */
		size_t before = k->out.len;
		if (k->enc->vt->file_begin(k->enc, &k->out, err)) {
			k->broken = 1;
			return SL_EIO;
		}
		k->part_bytes += (int64_t)(k->out.len - before);
	}
	return 0;
}

static int fsk_write(sl_sink *s, const sl_batch *b, sl_err *err)
{
	fs_sink *k = (fs_sink *)s;
	/* 'sink.rolling-policy.rollover-interval': checked as batches arrive
	 * (and every checkpoint rolls anyway) */
	if (k->fd >= 0 && k->rollover_us > 0 && s->proc_now - k->opened_us >= k->rollover_us &&
	    close_part(k, err))
		return SL_EIO;
	SL_BATCH_FOREACH(b, i, row) {
		if (k->fd < 0 && open_part(k, err))
			return SL_EIO;
		size_t before = k->out.len;
		int rc = k->enc->vt->encode(k->enc, b, row, &k->out, err);
		if (rc < 0) {
			k->out.len = before; /* never half a row */
			if (k->enc->vt->file_end && rc != SL_EINVAL)
				k->broken = 1; /* the file format's buffers are not whole */
			sl_err_prefix(err, "sink '%s'", s->table);
			return rc;
		}
		k->part_bytes += (int64_t)(k->out.len - before);
		s->rows_written++;
		int64_t held = k->enc->vt->file_buffered ? k->enc->vt->file_buffered(k->enc) : 0;
		if (k->part_bytes + held >= k->roll_size) {
			if (close_part(k, err))
				return SL_EIO;
		} else if (k->out.len >= FS_WRITE_CHUNK && flush_buf(k, err)) {
			return SL_EIO;
		}
	}
	return 0;
}

static int fsync_dir(fs_sink *k, sl_err *err)
{
	if (fsync(k->dfd) == 0)
		return 0;
	return sl_err_set(err, SL_EIO, "sink '%s': cannot fsync directory '%s': %s",
	                  k->base.table, k->dir, strerror(errno));
}

/* Refuses to publish after a failed write, fsync or rename. */
static int check_sound(fs_sink *k, sl_err *err)
{
	if (!k->broken)
		return 0;
	return sl_err_set(err, SL_EIO, "sink '%s': an earlier write to directory '%s' failed; "
	                  "its unpublished output is not published", k->base.table, k->dir);
}

/* Without checkpointing: publishes every closed part under its final name. */
static int publish_now(fs_sink *k, sl_err *err)
{
	char from[FS_NAME_MAX], to[FS_NAME_MAX];
	for (int n = k->pub_from; n < k->part; n++) {
		inprog_name(k, n, from);
		snprintf(to, sizeof to, "part-%s%s-%d.%s", k->runid, k->inst, n, k->ext);
		if (renameat(k->dfd, from, k->dfd, to))
			return sl_err_set(err, SL_EIO, "sink '%s': cannot publish '%s/%s': %s",
			                  k->base.table, k->dir, from, strerror(errno));
	}
	if (k->pub_from < k->part && fsync_dir(k, err))
		return SL_EIO;
	k->pub_from = k->part;
	return 0;
}

/*
 * End of input.  Without checkpointing every part is published now; with
 * it the open part is only closed (fsynced, still in progress) and the
 * final checkpoint's pre_commit/commit publish it.
 */
static int fsk_finish(sl_sink *s, sl_err *err)
{
	fs_sink *k = (fs_sink *)s;
	int rc;
	if ((rc = check_sound(k, err)) || (rc = close_part(k, err)))
		return rc;
	return k->job ? 0 : publish_now(k, err);
}

/* ---- sink: the checkpoint protocol ---------------------------------------- */

static int need_ckpt(fs_sink *k, const char *what, sl_err *err)
{
	if (k->job)
		return 0;
	return sl_err_set(err, SL_EINVAL, "sink '%s': %s without checkpointing in the "
	                  "connector arguments", k->base.table, what);
}

/* Renames the closed parts to checkpoint id's staged names and records
 * them as pending. */
static int stage_parts(fs_sink *k, int64_t id, sl_err *err)
{
	char from[FS_NAME_MAX], to[FS_NAME_MAX];
	int n = k->part - k->pub_from;
	if (n == 0)
		return 0;
	if (k->npend == k->pend_cap) {
		int cap = k->pend_cap ? k->pend_cap * 2 : 4;
		fs_pending *p = realloc(k->pend, (size_t)cap * sizeof *p);
		if (!p)
			return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", k->base.table);
		k->pend = p;
		k->pend_cap = cap;
	}
	k->pend[k->npend++] = (fs_pending){id, n};
	for (int i = 0; i < n; i++) {
		inprog_name(k, k->pub_from + i, from);
		if (renameat(k->dfd, from, k->dfd, ckpt_name(k, id, i, 1, to))) {
			k->broken = 1;
			return sl_err_set(err, SL_EIO, "sink '%s': cannot stage '%s/%s' as '%s': %s",
			                  k->base.table, k->dir, from, to, strerror(errno));
		}
	}
	k->pub_from = k->part;
	if (fsync_dir(k, err)) {
		k->broken = 1;
		return SL_EIO;
	}
	return 0;
}

/*
 * pre_commit: closes the open part, stages every closed part under
 * checkpoint id and writes into w (version 1): u8 1, i64 id, bytes job,
 * u32 attempt, u32 count, then count pairs (bytes staged name, bytes
 * final name): every staged part not yet committed, this checkpoint's and
 * those of earlier checkpoints never committed nor aborted (restoring id
 * must publish them too: its source positions are past their rows).
 * Names are relative to the sink's directory.  ids must increase.
 * Version 2, of instance `subtask` of nsub > 1: u8 2, then version 1's
 * fields with u32 subtask and u32 nsub after the attempt.
 */
static int fsk_pre_commit(sl_sink *s, int64_t id, sl_snap_writer *w, sl_err *err)
{
	fs_sink *k = (fs_sink *)s;
	char st[FS_NAME_MAX], fi[FS_NAME_MAX];
	int rc, count = 0;
	if ((rc = need_ckpt(k, "pre_commit", err)) || (rc = check_sound(k, err)))
		return rc;
	if (id <= k->last_id)
		return sl_err_set(err, SL_EINVAL, "sink '%s': checkpoint %lld after checkpoint "
		                  "%lld: ids must increase", s->table, (long long)id,
		                  (long long)k->last_id);
	if ((rc = close_part(k, err)) || (rc = stage_parts(k, id, err)))
		return rc;
	k->last_id = id;
	for (int e = 0; e < k->npend; e++)
		count += k->pend[e].nparts;
	sl_snap_put_u8(w, k->nsub > 1 ? FS_SNAP_PARALLEL : FS_SNAP_VERSION);
	sl_snap_put_i64(w, id);
	sl_snap_put_bytes(w, k->job, strlen(k->job));
	sl_snap_put_u32(w, (uint32_t)k->attempt);
	if (k->nsub > 1) {
		sl_snap_put_u32(w, (uint32_t)k->subtask);
		sl_snap_put_u32(w, (uint32_t)k->nsub);
	}
	sl_snap_put_u32(w, (uint32_t)count);
	for (int e = 0; e < k->npend; e++)
		for (int i = 0; i < k->pend[e].nparts; i++) {
			ckpt_name(k, k->pend[e].id, i, 1, st);
			ckpt_name(k, k->pend[e].id, i, 0, fi);
			sl_snap_put_bytes(w, st, strlen(st));
			sl_snap_put_bytes(w, fi, strlen(fi));
		}
	if (w->failed)
		return sl_err_set(err, SL_ENOMEM, "sink '%s': pre_commit: out of memory", s->table);
	return 0;
}

/*
 * Renames staged to final.  A staged file that is gone while the final one
 * exists was published already; both gone is SL_ESTATE naming the file.
 */
static int publish_one(fs_sink *k, const char *staged, const char *final, sl_err *err)
{
	struct stat sb;
	if (renameat(k->dfd, staged, k->dfd, final) == 0)
		return 0;
	int e = errno;
	if (e == ENOENT && fstatat(k->dfd, final, &sb, 0) == 0)
		return 0;
	if (e == ENOENT)
		return sl_err_set(err, SL_ESTATE, "sink '%s': staged file '%s/%s' is missing and "
		                  "was not published as '%s'", k->base.table, k->dir, staged, final);
	return sl_err_set(err, SL_EIO, "sink '%s': cannot publish '%s/%s' as '%s': %s",
	                  k->base.table, k->dir, staged, final, strerror(e));
}

/*
 * commit: publishes the staged parts of checkpoint id and of every earlier
 * checkpoint still pending, then fsyncs the directory.  Idempotent: a
 * checkpoint committed before (or with nothing staged) is a no-op.  On
 * failure the pending list is kept, so commit may be retried.
 */
static int fsk_commit(sl_sink *s, int64_t id, sl_err *err)
{
	fs_sink *k = (fs_sink *)s;
	char st[FS_NAME_MAX], fi[FS_NAME_MAX];
	int rc, e = 0;
	if ((rc = need_ckpt(k, "commit", err)))
		return rc;
	for (; e < k->npend && k->pend[e].id <= id; e++)
		for (int i = 0; i < k->pend[e].nparts; i++) {
			ckpt_name(k, k->pend[e].id, i, 1, st);
			if ((rc = publish_one(k, st, ckpt_name(k, k->pend[e].id, i, 0, fi), err)))
				return rc;
		}
	if (e == 0)
		return 0;
	if ((rc = fsync_dir(k, err)))
		return rc;
	memmove(k->pend, k->pend + e, (size_t)(k->npend - e) * sizeof *k->pend);
	k->npend -= e;
	return 0;
}

/*
 * abort: deletes the staged parts of checkpoint id (their rows are lost
 * for this run: the coordinator must restart from an earlier checkpoint,
 * or not abort and let the next commit publish them).  Unknown id: no-op.
 */
static int fsk_abort(sl_sink *s, int64_t id, sl_err *err)
{
	fs_sink *k = (fs_sink *)s;
	char st[FS_NAME_MAX];
	int rc, e = 0;
	if ((rc = need_ckpt(k, "abort", err)))
		return rc;
	while (e < k->npend && k->pend[e].id != id)
		e++;
	if (e == k->npend)
		return 0;
	for (int i = 0; i < k->pend[e].nparts; i++)
		if (unlinkat(k->dfd, ckpt_name(k, id, i, 1, st), 0) && errno != ENOENT)
			return sl_err_set(err, SL_EIO, "sink '%s': cannot delete '%s/%s': %s",
			                  s->table, k->dir, st, strerror(errno));
	memmove(k->pend + e, k->pend + e + 1, (size_t)(k->npend - e - 1) * sizeof *k->pend);
	k->npend--;
	return 0;
}

/* What recover was given: the restored checkpoint's id, job and its
 * (staged, final) name pairs (names[2i], names[2i+1]). */
typedef struct fs_restored {
	int64_t id;
	int from, nsub;       /* the instance that wrote it, of how many; -1 = a
	                       * fresh start (no checkpoint) */
	char job[FS_NAME_MAX];
	int n;
	char **names;
} fs_restored;

static void restored_free(fs_restored *rs)
{
	for (int i = 0; i < 2 * rs->n; i++)
		free(rs->names[i]);
	free(rs->names);
	rs->names = NULL;
	rs->n = 0;
}

/* Copies a length-prefixed name of rs's job from r; NULL when damaged. */
static char *get_name(sl_snap_reader *r)
{
	size_t n = 0;
	const char *p = sl_snap_get_bytes(r, &n);
	if (!p || n == 0 || n >= FS_NAME_MAX || memchr(p, '/', n) || memchr(p, 0, n))
		return NULL;
	return strndup(p, n);
}

/* Whether staged is "." final ".pending" and final is a part of job with
 * an id <= max_id. */
static int pair_ok(const char *staged, const char *final, const char *job, int64_t max_id)
{
	size_t fl = strlen(final);
	fs_name nm;
	return strlen(staged) == fl + 9 && staged[0] == '.' && !strncmp(staged + 1, final, fl) &&
	       !strcmp(staged + 1 + fl, ".pending") && parse_name(final, job, FS_FINAL, &nm) &&
	       nm.id <= max_id;
}

/* Reads what pre_commit wrote (see fsk_pre_commit) into rs. */
static int read_restored(fs_sink *k, sl_snap_reader *r, fs_restored *rs, sl_err *err)
{
	size_t jl = 0;
	uint8_t ver = sl_snap_get_u8(r);
	rs->id = sl_snap_get_i64(r);
	const char *job = sl_snap_get_bytes(r, &jl);
	(void)sl_snap_get_u32(r); /* attempt: informative, the names are literal */
	uint32_t from = 0, nsub = 1;
	if (ver == FS_SNAP_PARALLEL) {
		from = sl_snap_get_u32(r);
		nsub = sl_snap_get_u32(r);
	}
	uint32_t n = sl_snap_get_u32(r);
	if (!sl_snap_reader_ok(r) || (ver != FS_SNAP_VERSION && ver != FS_SNAP_PARALLEL) ||
	    rs->id < 0 || !job || jl == 0 || jl > 128 || memchr(job, '/', jl) ||
	    memchr(job, 0, jl) || n > r->len / 2 || nsub < 1 || nsub > 1u << 20 || from >= nsub)
		goto damaged;
	rs->from = (int)from;
	rs->nsub = (int)nsub;
	memcpy(rs->job, job, jl);
	rs->job[jl] = 0;
	if (n && !(rs->names = calloc(2 * (size_t)n, sizeof(char *))))
		return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", k->base.table);
	for (; rs->n < (int)n; rs->n++) {
		char *st = get_name(r), *fi = get_name(r);
		rs->names[2 * rs->n] = st;
		rs->names[2 * rs->n + 1] = fi;
		if (!st || !fi || !pair_ok(st, fi, rs->job, rs->id)) {
			rs->n++; /* freed with the others */
			goto damaged;
		}
	}
	if (r->pos != r->len)
		goto damaged;
	return 0;
damaged:
	return sl_err_set(err, SL_ESTATE, "sink '%s': damaged filesystem sink checkpoint data",
	                  k->base.table);
}

/*
 * Refuses (SL_ESTATE) when the directory holds a published part of this
 * job (or the checkpoint's job) from a checkpoint newer than rs->id; the
 * message names the newest such part.
 */
static int refuse_newer(fs_sink *k, const fs_restored *rs, sl_err *err)
{
	DIR *d = opendir(k->dir);
	struct dirent *e;
	int64_t max = rs->id;
	fs_name nm;
	char name[FS_NAME_MAX] = "";
	if (!d)
		return sl_err_set(err, SL_EIO, "sink '%s': cannot open directory '%s': %s",
		                  k->base.table, k->dir, strerror(errno));
	while ((e = readdir(d)))
		if ((parse_name(e->d_name, k->job, FS_FINAL, &nm) ||
		     parse_name(e->d_name, rs->job, FS_FINAL, &nm)) && nm.id > max) {
			max = nm.id;
			snprintf(name, sizeof name, "%s", e->d_name);
		}
	closedir(d);
	if (max == rs->id)
		return 0;
	if (rs->id == 0)
		return sl_err_set(err, SL_ESTATE, "sink '%s': directory '%s' holds '%s', published "
		                  "by checkpoint %lld of job '%s', and the job starts without a "
		                  "checkpoint (checkpoint 0): its rows would be written twice; "
		                  "remove that output or rename the job", k->base.table, k->dir,
		                  name, (long long)max, k->job);
	return sl_err_set(err, SL_ESTATE, "sink '%s': directory '%s' holds '%s', published by "
	                  "checkpoint %lld, newer than the restored checkpoint %lld: falling "
	                  "back would repeat its rows", k->base.table, k->dir, name,
	                  (long long)max, (long long)rs->id);
}

/* Checks that each listed part is staged or published already, before
 * anything is renamed. */
static int check_present(fs_sink *k, const fs_restored *rs, sl_err *err)
{
	struct stat sb;
	for (int i = 0; i < rs->n; i++) {
		const char *st = rs->names[2 * i], *fi = rs->names[2 * i + 1];
		if (fstatat(k->dfd, st, &sb, 0) && fstatat(k->dfd, fi, &sb, 0))
			return sl_err_set(err, SL_ESTATE, "sink '%s': staged file '%s/%s' of checkpoint "
			                  "%lld is missing and was not published as '%s'",
			                  k->base.table, k->dir, st, (long long)rs->id, fi);
	}
	return 0;
}

/*
 * Whether recover deletes hidden file nm (in progress or staged, of this
 * job or rs's).  Each file is one recover's to delete, and only after the
 * record that could list it was published: the record of old instance j
 * deletes the files of instance j (and instance 0's those of instances >=
 * its run's count, left by runs at a higher parallelism; so a record of a
 * run of one instance deletes them all, as before parallel instances); a
 * fresh start, this instance's share (my_share: all of them at one
 * instance).  Files of this attempt are this run's: at several instances
 * they are never deleted.
 */
static int hidden_mine(const fs_sink *k, const fs_restored *rs, const fs_name *nm)
{
	if (k->nsub > 1 && nm->attempt == k->attempt)
		return 0;
	if (rs->from < 0)
		return my_share(k, nm);
	return nm->inst == rs->from || (rs->from == 0 && nm->inst >= rs->nsub);
}

/* Deletes the in-progress and staged files of this job or rs's job (all
 * attempts) that are this recover's (hidden_mine). */
static int delete_hidden(fs_sink *k, const fs_restored *rs, sl_err *err)
{
	DIR *d = opendir(k->dir);
	struct dirent *e;
	fs_name nm;
	int rc = 0, gone = 0;
	if (!d)
		return sl_err_set(err, SL_EIO, "sink '%s': cannot open directory '%s': %s",
		                  k->base.table, k->dir, strerror(errno));
	while (!rc && (e = readdir(d))) {
		const char *n = e->d_name;
		if (!parse_name(n, k->job, FS_INPROG, &nm) && !parse_name(n, k->job, FS_STAGED, &nm) &&
		    !parse_name(n, rs->job, FS_INPROG, &nm) && !parse_name(n, rs->job, FS_STAGED, &nm))
			continue;
		if (!hidden_mine(k, rs, &nm))
			continue;
		if (unlinkat(k->dfd, n, 0) && errno != ENOENT)
			rc = sl_err_set(err, SL_EIO, "sink '%s': cannot delete '%s/%s': %s",
			                k->base.table, k->dir, n, strerror(errno));
		gone++;
	}
	closedir(d);
	return rc ? rc : gone ? fsync_dir(k, err) : 0;
}

/*
 * recover: given the bytes pre_commit wrote for the restored checkpoint
 * (r), or NULL for a start without one (checkpoint "0", nothing to
 * publish), before any write: refuses with SL_ESTATE when a part of a
 * newer checkpoint is published; checks every listed part is staged or
 * published (SL_ESTATE naming the file); publishes the staged ones and
 * fsyncs the directory; deletes every other in-progress or staged file of
 * the job (any attempt) that is its to delete (hidden_mine: all of them
 * at one instance).  Idempotent; nothing is renamed when it fails before
 * publishing.  Several instances (conn.h): the checkpoint holds one record
 * per instance of the run that took it, and every record must be given to
 * some instance of the new run, at any parallelism (a record may be given
 * to several: publishing is idempotent); an instance may get several, one
 * call each, before it writes.  recover(NULL) is called on every instance.
 */
static int fsk_recover(sl_sink *s, sl_snap_reader *r, sl_err *err)
{
	fs_sink *k = (fs_sink *)s;
	fs_restored rs = {0};
	int rc;
	if ((rc = need_ckpt(k, "recover", err)))
		return rc;
	if (k->part > 0 || k->fd >= 0 || k->npend > 0)
		return sl_err_set(err, SL_EINVAL, "sink '%s': recover after output was written",
		                  s->table);
	rs.from = -1;
	if (r)
		rc = read_restored(k, r, &rs, err);
	else if (!(rc = k->overwrite ? delete_published(k, err) : 0))
		snprintf(rs.job, sizeof rs.job, "%s", k->job);
	/* (after --overwrite-output at several instances, the others' shares
	 * are theirs to delete, not output to refuse) */
	if (rc || (!(!r && k->overwrite && k->nsub > 1) && (rc = refuse_newer(k, &rs, err))) ||
	    (rc = check_present(k, &rs, err)))
		goto done;
	for (int i = 0; i < rs.n; i++)
		if ((rc = publish_one(k, rs.names[2 * i], rs.names[2 * i + 1], err)))
			goto done;
	if ((rs.n && (rc = fsync_dir(k, err))) || (rc = delete_hidden(k, &rs, err)))
		goto done;
	if (rs.id > k->last_id)
		k->last_id = rs.id;
done:
	restored_free(&rs);
	return rc;
}

int sl__fs_sink_idle(const sl_sink *s)
{
	const fs_sink *k = (const fs_sink *)s;
	return k->fd < 0 && k->pub_from == k->part && k->npend == 0 && k->out.len == 0;
}

static int fsk_can_update(const sl_conn_args *a)
{
	const char *name = sl_opts_get(a->opts, "format");
	const sl_format_vtab *vt = name ? sl_format_find(name) : NULL;
	return vt && vt->changelog;
}

/* Closes without publishing: in-progress and staged parts stay hidden. */
static void fsk_close(sl_sink *s)
{
	fs_sink *k = (fs_sink *)s;
	if (k->fd >= 0)
		close(k->fd);
	if (k->dfd >= 0)
		close(k->dfd);
	k->fd = k->dfd = -1;
	sl_buf_deinit(&k->out);
	if (k->enc)
		sl_encoder_free(k->enc);
	k->enc = NULL;
	free(k->dir);
	free(k->job);
	free(k->pend);
	k->dir = k->job = NULL;
	k->pend = NULL;
}

/* The 'filesystem' sink method table. */
const sl_sink_vtab sl_filesystem_sink_vtab = {
	.name = "filesystem",
	.size = sizeof(fs_sink),
	.accepts_updates = 1,
	.can_update = fsk_can_update,
	.guarantee = "exactly-once",
	.configure = fsk_configure,
	.open = fsk_open,
	.write = fsk_write,
	.finish = fsk_finish,
	.pre_commit = fsk_pre_commit,
	.commit = fsk_commit,
	.abort = fsk_abort,
	.recover = fsk_recover,
	.close = fsk_close,
	.partitioned = &sl__fs_partitioned_sink_vtab, /* conn_fs_partition.c */
};
