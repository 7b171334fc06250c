/*
 * fs_test_util.h - what the filesystem connector's two unit tests share
 * (test_conn_fs.c: the source, the sink and its checkpoint protocol;
 * test_conn_fs_partition.c: PARTITIONED BY tables): a scratch directory
 * made by setup() and removed by teardown() (harness.h's th_tmpdir), a
 * (name STRING, n BIGINT) fixture over a path, a reader that prints rows as "name:n", and the
 * sink's checkpoint steps that fail the test on error.  Included by each
 * test program once (static functions; a helper a program does not call is
 * inline, so it costs nothing).
 */
#ifndef SLUICE_FS_TEST_UTIL_H
#define SLUICE_FS_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "connector/conn.h"
#include "harness.h"
#include "sluice.h"

static char tmpdir[256];

static inline void write_file(const char *dir, const char *name, const char *text)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static inline int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static inline char *subdir(const char *name)
{
	static char p[512];
	snprintf(p, sizeof p, "%s/%s", tmpdir, name);
	mkdir(p, 0777);
	return p;
}

typedef struct fx {
	sl_arena arena;
	sl_opts opts;
	sl_field fields[3];
	sl_type types[3];
} fx;

/* Schema (name STRING, n BIGINT) with format fmt over path. */
static inline void fx_init(fx *f, const char *fmt, const char *path)
{
	memset(f, 0, sizeof *f);
	sl_arena_init(&f->arena, 0);
	sl_opts_init(&f->opts, &f->arena);
	sl_opts_set(&f->opts, "connector", "filesystem");
	sl_opts_set(&f->opts, "format", fmt);
	sl_opts_set(&f->opts, "path", path);
	f->types[0] = sl_type_varchar(SL_STRING_LEN);
	f->types[1] = sl_type_make(SL_T_BIGINT);
	f->fields[0] = (sl_field){"name", f->types[0]};
	f->fields[1] = (sl_field){"n", f->types[1]};
}

static inline sl_conn_args fx_args(fx *f)
{
	sl_conn_args a = {.table = "orders", .fields = f->fields, .nfields = 2,
	                  .opts = &f->opts, .tz = "UTC"};
	return a;
}

static inline sl_source *fx_source(fx *f, sl_err *err)
{
	sl_conn_args a = fx_args(f);
	sl_err_clear(err);
	return sl_source_new_open(sl_source_find(sl_opts_get(&f->opts, "connector")), &a, err);
}

/* Reads up to max rows (batches of cap) into "name:n" strings joined by
 * ' '; returns the last read code. */
static inline int read_rows(sl_source *s, int cap, int max, char *out, size_t outcap, sl_err *err)
{
	sl_batch *b = sl_batch_new(2, (sl_type[]){sl_type_varchar(SL_STRING_LEN),
	                                          sl_type_make(SL_T_BIGINT)}, cap);
	int rc, n = 0;
	size_t len = strlen(out);
	do {
		sl_batch_reset(b);
		sl_err_clear(err);
		rc = s->vt->read(s, b, err);
		for (int r = 0; r < b->nrows; r++, n++)
			len += (size_t)snprintf(out + len, outcap - len, "%s%.*s:%lld", len ? " " : "",
			                        (int)b->cols[0].v.str[r].len, b->cols[0].v.str[r].ptr,
			                        b->cols[1].null[r] ? -1LL : (long long)b->cols[1].v.i64[r]);
	} while (rc > 0 && n < max);
	sl_batch_free(b);
	return rc;
}

/* The names in dir (without . and ..), sorted, joined by ' '. */
static inline const char *dir_names(const char *dir)
{
	static char out[4096];
	char *names[256];
	int n = 0;
	size_t len = 0;
	DIR *dd = opendir(dir);
	assert_non_null(dd);
	struct dirent *e;
	while ((e = readdir(dd)) && n < 256)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			names[n++] = strdup(e->d_name);
	closedir(dd);
	qsort(names, (size_t)n, sizeof names[0], cmp_str);
	out[0] = 0;
	for (int i = 0; i < n; i++) {
		len += (size_t)snprintf(out + len, sizeof out - len, "%s%s", i ? " " : "", names[i]);
		free(names[i]);
	}
	return out;
}

/* What a reader of dir sees: "name:n" rows joined by ' '. */
static inline const char *visible_rows(const char *dir)
{
	static char out[8192];
	fx f;
	sl_err err;
	fx_init(&f, "json", dir);
	sl_source *s = fx_source(&f, &err);
	assert_non_null(s);
	out[0] = 0;
	assert_int_equal(read_rows(s, 0, 1 << 20, out, sizeof out, &err), SL_EEOF);
	sl_source_free(s);
	sl_arena_deinit(&f.arena);
	return out;
}

/* pre_commit(id) into w (initialized here; the caller deinits). */
static inline void pre_commit(sl_sink *k, int64_t id, sl_snap_writer *w)
{
	sl_err err;
	sl_err_clear(&err);
	sl_snap_writer_init(w);
	if (k->vt->pre_commit(k, id, w, &err))
		fail_msg("%s", err.msg);
}

static inline void commit(sl_sink *k, int64_t id)
{
	sl_err err;
	sl_err_clear(&err);
	if (k->vt->commit(k, id, &err))
		fail_msg("%s", err.msg);
}

static inline int recover(sl_sink *k, const sl_snap_writer *w, sl_err *err)
{
	sl_snap_reader r;
	sl_err_clear(err);
	if (!w)
		return k->vt->recover(k, NULL, err);
	sl_snap_reader_init(&r, w->buf, w->len);
	return k->vt->recover(k, &r, err);
}

static inline char *ck_dir(const char *name)
{
	static char p[600];
	snprintf(p, sizeof p, "%s/%s", tmpdir, name);
	return p;
}

static inline int setup(void **state)
{
	return th_tmpdir(tmpdir, sizeof tmpdir, "sluice-test-fs");
}

static inline int teardown(void **state)
{
	return th_rmtree(tmpdir);
}

#endif
