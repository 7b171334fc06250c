/*
 * checkpoint.c - checkpoint and savepoint files (see checkpoint.h).
 *
 * Manifest format (little-endian, through sl_snap_writer):
 *     "SLCK" magic, u32 version, i64 id, i64 attempt, u8 finished,
 *     u8 savepoint, bytes job, u32 nfiles, nfiles x (bytes name, i64 size,
 *     u32 crc32c), then u32 crc32c of everything before it.
 * Every read is bounds-checked; a damaged manifest or state file is
 * reported, never trusted (the reader is fuzzed).
 */
#include "checkpoint.h"
#include "sluice.h"
#include "state.h"
#include "../base/crc32c.h"
#include "../base/fault.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC 0x4b434c53u /* "SLCK" */

int sl_mkdirs(const char *path, sl_err *err)
{
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0755) && errno != EEXIST)
			return sl_err_set(err, SL_EIO, "cannot create directory '%s': %s", buf,
			                  strerror(errno));
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return sl_err_set(err, SL_EIO, "cannot create directory '%s': %s", buf, strerror(errno));
	return 0;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

/* Writes a whole file and fsyncs it. */
static int write_file(const char *path, const void *data, size_t len, sl_err *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return sl_err_set(err, SL_EIO, "cannot create '%s': %s", path, strerror(errno));
	const char *p = data;
	size_t left = len;
	while (left) {
		size_t chunk = left > (1 << 20) ? (1 << 20) : left;
		ssize_t n = write(fd, p, chunk);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return sl_err_set(err, SL_EIO, "cannot write '%s': %s", path, strerror(errno));
		}
		p += n;
		left -= (size_t)n;
	}
	if (fsync(fd) || close(fd))
		return sl_err_set(err, SL_EIO, "cannot sync '%s': %s", path, strerror(errno));
	return 0;
}

/* Writes dir/_manifest for a state file of `len` bytes with CRC `crc`,
 * atomically (temporary name, fsync, rename, fsync of dir and base). */
static int write_manifest(const char *base, const char *dir, const sl_ckpt_meta *meta,
                          uint64_t len, uint32_t crc, sl_err *err)
{
	char path[4200], tmp[4200];
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	sl_snap_put_u32(&w, MAGIC);
	sl_snap_put_u32(&w, SL_CKPT_VERSION);
	sl_snap_put_i64(&w, meta->id);
	sl_snap_put_i64(&w, meta->attempt);
	sl_snap_put_u8(&w, (uint8_t)meta->finished);
	sl_snap_put_u8(&w, (uint8_t)meta->savepoint);
	sl_snap_put_bytes(&w, meta->job, strlen(meta->job));
	sl_snap_put_u32(&w, 1);
	sl_snap_put_bytes(&w, "state", 5);
	sl_snap_put_i64(&w, (int64_t)len);
	sl_snap_put_u32(&w, crc);
	sl_snap_put_u32(&w, sl_crc32c(0, w.buf, w.len));
	if (w.failed) {
		sl_snap_writer_deinit(&w);
		return sl_err_set(err, SL_ENOMEM, "out of memory writing a manifest");
	}
	snprintf(tmp, sizeof(tmp), "%s/_manifest.tmp", dir);
	snprintf(path, sizeof(path), "%s/_manifest", dir);
	int rc = write_file(tmp, w.buf, w.len, err);
	sl_snap_writer_deinit(&w);
	if (rc)
		return rc;
	sl_fault("before-manifest-rename");
	if (rename(tmp, path) || fsync_dir(dir) || fsync_dir(base))
		return sl_err_set(err, SL_EIO, "cannot publish '%s': %s", path, strerror(errno));
	sl_fault("after-manifest-rename");
	return 0;
}

int sl_ckpt_begin(sl_ckpt_out *o, const char *base, const char *prefix, int64_t id, sl_err *err)
{
	snprintf(o->base, sizeof(o->base), "%s", base);
	snprintf(o->dir, sizeof(o->dir), "%s/%s-%" PRId64, base, prefix, id);
	sl_snap_writer_init(&o->w);
	int rc = sl_mkdirs(o->dir, err);
	if (rc)
		return rc;
	char path[4200];
	snprintf(path, sizeof(path), "%s/state", o->dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return sl_err_set(err, SL_EIO, "cannot create '%s': %s", path, strerror(errno));
	sl_snap_writer_stream(&o->w, fd);
	return 0;
}

int sl_ckpt_commit(sl_ckpt_out *o, const sl_ckpt_meta *meta, sl_err *err)
{
	int fd = o->w.fd;
	sl_fault("mid-state-write");
	int rc = sl_snap_writer_flush(&o->w);
	if (rc || fsync(fd))
		rc = sl_err_set(err, SL_EIO, "cannot write '%s/state': %s", o->dir,
		                o->w.failed && !errno ? "out of memory" : strerror(errno));
	close(fd);
	o->w.fd = -1;
	uint64_t len = o->w.flushed;
	uint32_t crc = o->w.crc;
	sl_snap_writer_deinit(&o->w);
	return rc ? rc : write_manifest(o->base, o->dir, meta, len, crc, err);
}

void sl_ckpt_abandon(sl_ckpt_out *o)
{
	if (o->w.fd >= 0)
		close(o->w.fd);
	o->w.fd = -1;
	sl_snap_writer_deinit(&o->w);
}

static void *read_all(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) || st.st_size < 0) {
		close(fd);
		return NULL;
	}
	size_t n = (size_t)st.st_size;
	char *buf = malloc(n ? n : 1);
	size_t got = 0;
	while (buf && got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			free(buf);
			buf = NULL;
			break;
		}
		got += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;
}

/* The state file mapped read-only (no copy through read(2): restoring a
 * 1 GB checkpoint spent 13% of its time there); NULL when missing. */
static void *map_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) || st.st_size < 0) {
		close(fd);
		return NULL;
	}
	*len = (size_t)st.st_size;
	void *p = mmap(NULL, *len ? *len : 1, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, *len ? *len : 1, MADV_SEQUENTIAL);
	return p;
}

void sl_ckpt_data_free(void *data, size_t len)
{
	if (data)
		munmap(data, len ? len : 1);
}

int sl_ckpt_has_manifest(const char *path)
{
	char m[4200];
	snprintf(m, sizeof(m), "%s/_manifest", path);
	return access(m, F_OK) == 0;
}

/* Parses and checks a manifest; fills meta and the state file's size/crc. */
static int parse_manifest(const char *path, const void *buf, size_t n, sl_ckpt_meta *meta,
                          int64_t *size, uint32_t *crc, sl_err *err)
{
	if (n < 8 || sl_crc32c(0, buf, n - 4) != ((const uint8_t *)buf)[n - 4] +
	                                            ((uint32_t)((const uint8_t *)buf)[n - 3] << 8) +
	                                            ((uint32_t)((const uint8_t *)buf)[n - 2] << 16) +
	                                            ((uint32_t)((const uint8_t *)buf)[n - 1] << 24))
		return sl_err_set(err, SL_ESTATE, "checkpoint '%s': manifest checksum mismatch", path);
	sl_snap_reader r;
	sl_snap_reader_init(&r, buf, n - 4);
	memset(meta, 0, sizeof(*meta));
	if (sl_snap_get_u32(&r) != MAGIC)
		return sl_err_set(err, SL_ESTATE, "checkpoint '%s': not a sluice manifest", path);
	meta->version = sl_snap_get_u32(&r);
	if (meta->version < 1 || meta->version > SL_CKPT_VERSION)
		return sl_err_set(err, SL_ESTATE, "checkpoint '%s': format version %u is not supported "
		                  "(this sluice reads up to %u)", path, meta->version, SL_CKPT_VERSION);
	meta->id = sl_snap_get_i64(&r);
	meta->attempt = sl_snap_get_i64(&r);
	meta->finished = sl_snap_get_u8(&r);
	meta->savepoint = sl_snap_get_u8(&r);
	size_t jl;
	const char *job = sl_snap_get_bytes(&r, &jl);
	if (job)
		snprintf(meta->job, sizeof(meta->job), "%.*s", (int)jl, job);
	uint32_t nfiles = sl_snap_get_u32(&r);
	size_t nl;
	const char *name = sl_snap_get_bytes(&r, &nl);
	*size = sl_snap_get_i64(&r);
	*crc = sl_snap_get_u32(&r);
	if (!sl_snap_reader_ok(&r) || nfiles != 1 || !name || nl != 5 || memcmp(name, "state", 5))
		return sl_err_set(err, SL_ESTATE, "checkpoint '%s': manifest damaged", path);
	return 0;
}

int sl_ckpt_read(const char *path, sl_ckpt_meta *meta, void **data, size_t *len, sl_err *err)
{
	char m[4200], s[4200];
	snprintf(m, sizeof(m), "%s/_manifest", path);
	snprintf(s, sizeof(s), "%s/state", path);
	size_t mn;
	void *mb = read_all(m, &mn);
	if (!mb)
		return sl_err_set(err, SL_ESTATE, "checkpoint '%s': no manifest", path);
	int64_t size = 0;
	uint32_t crc = 0;
	int rc = parse_manifest(path, mb, mn, meta, &size, &crc, err);
	free(mb);
	if (rc)
		return rc;
	size_t sn;
	void *sb = map_file(s, &sn);
	if (!sb)
		return sl_err_set(err, SL_ESTATE, "checkpoint '%s': state file missing", path);
	if ((int64_t)sn != size || sl_crc32c(0, sb, sn) != crc) {
		sl_ckpt_data_free(sb, sn);
		return sl_err_set(err, SL_ESTATE, "checkpoint '%s': state file damaged (size or "
		                  "checksum mismatch)", path);
	}
	*data = sb;
	*len = sn;
	return 0;
}

static int cmp_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

int sl_ckpt_list(const char *base, const char *prefix, int64_t *ids, int cap)
{
	DIR *d = opendir(base);
	if (!d)
		return 0;
	size_t pl = strlen(prefix);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < cap) {
		if (strncmp(e->d_name, prefix, pl) || e->d_name[pl] != '-')
			continue;
		char *end;
		long long id = strtoll(e->d_name + pl + 1, &end, 10);
		if (*end || id <= 0)
			continue;
		ids[n++] = id;
	}
	closedir(d);
	qsort(ids, (size_t)n, sizeof(int64_t), cmp_desc);
	return n;
}

int64_t sl_ckpt_max_id(const char *base, const char *prefix)
{
	int64_t ids[1024];
	int n = sl_ckpt_list(base, prefix, ids, 1024);
	return n ? ids[0] : 0;
}

void sl_ckpt_remove(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *e;
	char f[4400];
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(f, sizeof(f), "%s/%s", path, e->d_name);
		unlink(f);
	}
	closedir(d);
	rmdir(path);
}

int sl_ckpt_lock(const char *dir, sl_err *err)
{
	int rc = sl_mkdirs(dir, err);
	if (rc)
		return rc;
	char path[4200];
	snprintf(path, sizeof(path), "%s/lock", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return sl_err_set(err, SL_EIO, "cannot open lock file '%s': %s", path, strerror(errno));
	/* a killed job's checkpoint writer dies with it (PR_SET_PDEATHSIG) but
	 * may hold the lock a few milliseconds longer: retry for 2 s */
	int tries = 0;
	while (flock(fd, LOCK_EX | LOCK_NB) && tries++ < 200)
		usleep(10000);
	if (tries > 200) {
		close(fd);
		return sl_err_set(err, SL_EIO, "another sluice process is running this job (lock '%s' "
		                  "is held)", path);
	}
	return fd;
}
