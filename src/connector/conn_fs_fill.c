/*
 * conn_fs_fill.c - the columns of a filesystem source that its format does
 * not read (conn_fs_int.h, sl__fs_fill): PARTITIONED BY columns, whose
 * values come from the file's `key=value/` directory names (listed by
 * conn_fs_partition.c), and METADATA columns, Flink 1.20's
 * FileSystemTableSource keys:
 *   file.path               STRING     the file's absolute path
 *   file.name               STRING     its last component
 *   file.size               BIGINT     bytes, from stat(2)
 *   file.modification-time  TIMESTAMP_LTZ(3), from stat(2)
 * The source (conn_filesystem.c) decodes the other columns into a view of
 * its batch (sl__fs_fill_view) and then sets these for the new rows
 * (sl__fs_fill_rows) from the values of the batch's file, loaded once per
 * file change (sl__fs_fill_load): constant per file, so a few stores per
 * row and nothing parsed per row.
 */
#include "conn_fs_int.h"
#include "sluice.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/timeutil.h"

enum { FS_META_PATH, FS_META_NAME, FS_META_SIZE, FS_META_MTIME };
const char *const sl__fs_meta_keys[] = {"file.path", "file.name", "file.size",
                                        "file.modification-time", NULL};

int sl__fs_fill_wanted(const sl_conn_args *a)
{
	for (int i = 0; a->meta && i < a->nfields; i++)
		if (a->meta[i])
			return 1;
	return a->npart > 0;
}

/* The METADATA key index of column i of a (its type checked), -1 for a
 * column that is not METADATA, or -2 with err set. */
static int meta_key(const sl_conn_args *a, int i, sl_err *err)
{
	const char *m = a->meta ? a->meta[i] : NULL;
	if (!m)
		return -1;
	int j = 0;
	while (sl__fs_meta_keys[j] && strcmp(sl__fs_meta_keys[j], m))
		j++;
	if (!sl__fs_meta_keys[j]) {
		sl_err_set(err, SL_EINVAL, "source '%s': Invalid metadata key '%s' in column '%s'. "
		           "The filesystem connector supports the following metadata keys for "
		           "reading: file.path, file.name, file.size, file.modification-time",
		           a->table, m, a->fields[i].name);
		return -2;
	}
	sl_type t = a->fields[i].type;
	int ok = j == FS_META_SIZE ? t.id == SL_T_BIGINT
	       : j == FS_META_MTIME ? t.id == SL_T_TIMESTAMP_LTZ : sl_type_is_string(t);
	if (!ok) {
		char tb[64];
		sl_err_set(err, SL_EINVAL, "source '%s': metadata column '%s' ('%s') is %s; it must be "
		           "%s", a->table, a->fields[i].name, m, sl_type_format(t, tb, sizeof tb),
		           j == FS_META_SIZE ? "BIGINT" : j == FS_META_MTIME ? "TIMESTAMP_LTZ(3)"
		                                                              : "STRING");
		return -2;
	}
	return j;
}

/* Refuses a partition column of a type a directory name cannot spell. */
static int check_part_type(const sl_conn_args *a, int i, sl_err *err)
{
	sl_type t = a->fields[i].type;
	if (t.id == SL_T_DECIMAL || t.id == SL_T_ROW || sl_type_is_collection(t) ||
	    t.id == SL_T_TIME || t.id == SL_T_INTERVAL_DT || t.id == SL_T_INTERVAL_YM ||
	    sl_type_is_binary(t)) {
		char tb[64];
		return sl_err_set(err, SL_ENOTSUP, "source '%s': partition column '%s' of type %s "
		                  "is not supported (use a string, integer, floating-point, "
		                  "BOOLEAN, DATE or TIMESTAMP column)", a->table, a->fields[i].name,
		                  sl_type_format(t, tb, sizeof tb));
	}
	return 0;
}

int sl__fs_fill_configure(sl__fs_fill *fl, const sl_conn_args *a, sl_conn_args *da,
                          sl_err *err)
{
	size_t n = (size_t)a->nfields + 1;
	fl->npart = a->npart;
	fl->pnames = calloc(n, sizeof(char *));
	fl->pcol = calloc(n, sizeof(int));
	fl->mcol = calloc(n, sizeof(int));
	fl->mkey = calloc(n, sizeof(int));
	fl->dcol = calloc(n, sizeof(int));
	fl->vcols = calloc(n, sizeof(sl_col));
	fl->dfields = calloc(n, sizeof(sl_field));
	fl->val = calloc(n, sizeof(sl__fs_fval));
	const char *dn = sl_opts_get(a->opts, "partition.default-name");
	fl->default_name = strdup(dn ? dn : "__DEFAULT_PARTITION__");
	fl->val_file = -1;
	fl->fields = a->fields;
	if (!fl->pnames || !fl->pcol || !fl->mcol || !fl->mkey || !fl->dcol || !fl->vcols ||
	    !fl->dfields || !fl->val || !fl->default_name)
		return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", a->table);
	for (int i = 0; i < a->nfields; i++) {
		int mk = meta_key(a, i, err), pk = -1, rc;
		if (mk == -2)
			return err->code;
		if (mk >= 0) {
			fl->mcol[fl->nmeta] = i;
			fl->mkey[fl->nmeta++] = mk;
			continue;
		}
		for (int j = 0; j < a->npart; j++)
			if (a->part[j] == i)
				pk = j;
		if (pk < 0) {
			fl->dfields[fl->ndata] = a->fields[i];
			fl->dcol[fl->ndata++] = i;
			continue;
		}
		if ((rc = check_part_type(a, i, err)))
			return rc;
		fl->pcol[pk] = i;
		fl->pnames[pk] = a->fields[i].name;
	}
	*da = *a;
	da->fields = fl->dfields;
	da->nfields = fl->ndata;
	da->part = NULL;
	da->npart = 0;
	da->meta = NULL;
	return 0;
}

/* Parses file `file`'s directory values into fl->val[0..npart), typed as
 * their columns. */
static int load_parts(sl__fs_fill *fl, int file, const char *name, const char *table,
                      sl_err *err)
{
	for (int j = 0; j < fl->npart; j++) {
		const char *v = fl->values[(size_t)file * (size_t)fl->npart + (size_t)j];
		const sl_field *fd = &fl->fields[fl->pcol[j]];
		sl__fs_fval *pv = &fl->val[j];
		memset(pv, 0, sizeof *pv);
		pv->is_null = v == NULL;
		if (!v)
			continue;
		size_t n = strlen(v);
		char *end = NULL;
		int bad = 0;
		switch ((sl_type_id)fd->type.id) {
		case SL_T_BOOLEAN:
			bad = strcasecmp(v, "true") && strcasecmp(v, "false");
			pv->i64 = !strcasecmp(v, "true");
			break;
		case SL_T_TINYINT: case SL_T_SMALLINT: case SL_T_INT: case SL_T_BIGINT: {
			static const int64_t lim[] = {INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX};
			int64_t hi = lim[fd->type.id - SL_T_TINYINT];
			errno = 0;
			long long x = strtoll(v, &end, 10);
			bad = errno || end == v || *end || x > hi || x < -hi - 1;
			pv->i64 = x;
			break;
		}
		case SL_T_FLOAT: case SL_T_DOUBLE:
			pv->f64 = strtod(v, &end);
			bad = end == v || *end;
			break;
		case SL_T_DATE:
			bad = sl_date_parse(v, n, &pv->i64) != 0;
			break;
		case SL_T_TIMESTAMP: case SL_T_TIMESTAMP_LTZ:
			bad = sl_ts_parse(v, n, &pv->i64) != 0;
			break;
		default: /* CHAR, VARCHAR, STRING: the text (valid until close) */
			pv->str.ptr = v;
			pv->str.len = (int64_t)n;
			break;
		}
		if (bad) {
			char tb[64];
			return sl_err_set(err, SL_EINPUT, "source '%s': file '%s': partition value '%s' "
			                  "of column '%s' is not a valid %s", table, name, v, fd->name,
			                  sl_type_format(fd->type, tb, sizeof tb));
		}
	}
	return 0;
}

/* File `file`'s METADATA values into fl->val[npart..): its absolute path
 * (as Flink's split path; kept in fl->mpaths until free), its name, and its
 * size and modification time from stat(2). */
static int load_meta(sl__fs_fill *fl, int file, const char *name, const char *table,
                     sl_err *err)
{
	if (!fl->mpaths && !(fl->mpaths = calloc((size_t)fl->nfiles + 1, sizeof(char *))))
		return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", table);
	if (!fl->mpaths[file]) {
		char cwd[4096];
		if (name[0] != '/' && !getcwd(cwd, sizeof cwd))
			return sl_err_set(err, SL_EIO, "source '%s': cannot get the working directory: %s",
			                  table, strerror(errno));
		size_t n = strlen(name) + (name[0] == '/' ? 0 : strlen(cwd) + 1) + 1;
		if (!(fl->mpaths[file] = malloc(n)))
			return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", table);
		if (name[0] == '/')
			memcpy(fl->mpaths[file], name, n);
		else
			snprintf(fl->mpaths[file], n, "%s/%s", cwd, name);
	}
	const char *path = fl->mpaths[file], *slash = strrchr(path, '/');
	struct stat st;
	if (stat(path, &st))
		return sl_err_set(err, SL_EIO, "source '%s': file '%s': %s", table, path,
		                  strerror(errno));
	for (int j = 0; j < fl->nmeta; j++) {
		sl__fs_fval *v = &fl->val[fl->npart + j];
		memset(v, 0, sizeof *v);
		switch (fl->mkey[j]) {
		case FS_META_PATH:
			v->str.ptr = path;
			v->str.len = (int64_t)strlen(path);
			break;
		case FS_META_NAME:
			v->str.ptr = slash ? slash + 1 : path;
			v->str.len = (int64_t)strlen(v->str.ptr);
			break;
		case FS_META_SIZE: v->i64 = (int64_t)st.st_size; break;
		default: /* microseconds of Flink's TIMESTAMP_LTZ(3): whole milliseconds */
			v->i64 = ((int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000) * 1000;
			break;
		}
	}
	return 0;
}

int sl__fs_fill_load(sl__fs_fill *fl, int file, const char *name, const char *table,
                     sl_err *err)
{
	if (fl->val_file == file)
		return 0;
	int rc = load_parts(fl, file, name, table, err);
	if (!rc && fl->nmeta)
		rc = load_meta(fl, file, name, table, err);
	if (!rc)
		fl->val_file = file;
	return rc;
}

void sl__fs_fill_view(sl__fs_fill *fl, sl_batch *out, sl_batch *v)
{
	*v = *out;
	for (int j = 0; j < fl->ndata; j++)
		fl->vcols[j] = out->cols[fl->dcol[j]];
	v->cols = fl->vcols;
	v->ncols = fl->ndata;
}

void sl__fs_fill_rows(const sl__fs_fill *fl, sl_batch *out, int first)
{
	for (int j = 0; j < fl->npart + fl->nmeta; j++) {
		sl_col *c = &out->cols[j < fl->npart ? fl->pcol[j] : fl->mcol[j - fl->npart]];
		const sl__fs_fval *pv = &fl->val[j];
		sl_phys ph = sl_type_phys(c->type);
		for (int r = first; r < out->nrows; r++) {
			c->null[r] = (uint8_t)pv->is_null;
			if (ph == SL_PHYS_F64)
				c->v.f64[r] = pv->f64;
			else if (ph == SL_PHYS_STR)
				c->v.str[r] = pv->str;
			else
				c->v.i64[r] = pv->i64;
		}
	}
}

void sl__fs_fill_free(sl__fs_fill *fl)
{
	if (fl->values)
		for (int i = 0; i < fl->nfiles * fl->npart; i++)
			free(fl->values[i]);
	if (fl->mpaths)
		for (int i = 0; i < fl->nfiles; i++)
			free(fl->mpaths[i]);
	free(fl->values);
	free(fl->mpaths);
	free(fl->pnames);
	free(fl->pcol);
	free(fl->mcol);
	free(fl->mkey);
	free(fl->dcol);
	free(fl->vcols);
	free(fl->dfields);
	free(fl->val);
	free(fl->default_name);
	memset(fl, 0, sizeof *fl);
}
