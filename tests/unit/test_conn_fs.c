/*
 * test_conn_fs.c - the 'filesystem' source and sink through their method
 * tables, with the json and csv formats: a directory read in name order
 * (hidden files skipped, CRLF and empty lines, a last line without '\n'),
 * records straddling the 1 MiB read buffer, `where`, bad-record errors
 * with file and line, ignore-parse-errors, snapshot/restore mid-file, and
 * the sink's hidden in-progress parts published only at finish.
 */
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
#include "sluice.h"

static char tmpdir[256];

static void write_file(const char *dir, const char *name, const char *text)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *subdir(const char *name)
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
static void fx_init(fx *f, const char *fmt, const char *path)
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

static sl_conn_args fx_args(fx *f)
{
	sl_conn_args a = {.table = "orders", .fields = f->fields, .nfields = 2,
	                  .opts = &f->opts, .tz = "UTC"};
	return a;
}

static sl_source *fx_source(fx *f, sl_err *err)
{
	sl_conn_args a = fx_args(f);
	sl_err_clear(err);
	return sl_source_new(sl_source_find(sl_opts_get(&f->opts, "connector")), &a, err);
}

/* Reads up to max rows (batches of cap) into "name:n" strings joined by
 * ' '; returns the last read code. */
static int read_rows(sl_source *s, int cap, int max, char *out, size_t outcap, sl_err *err)
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

static void test_dir_json(void **state)
{
	char *d = subdir("dirjson");
	write_file(d, "b.jsonl", "{\"name\": \"b1\", \"n\": 3}\n{\"name\": \"b2\", \"n\": 4}");
	write_file(d, "a.jsonl", "{\"name\": \"a1\", \"n\": 1}\r\n\n\r\n{\"name\": \"a2\"}\n");
	write_file(d, ".hidden", "garbage\n");
	write_file(d, "_SUCCESS", "garbage\n");
	char sub[600];
	snprintf(sub, sizeof sub, "%s/zsub", d);
	mkdir(sub, 0777);
	fx f;
	sl_err err;
	fx_init(&f, "json", d);
	sl_source *s = fx_source(&f, &err);
	assert_non_null(s);
	assert_null(sl_opts_unused(&f.opts));
	char out[256] = "";
	assert_int_equal(read_rows(s, 3, 100, out, sizeof out, &err), SL_EEOF);
	assert_string_equal(out, "a1:1 a2:-1 b1:3 b2:4");
	assert_int_equal(s->rows_read, 4);
	sl_source_free(s);

	/* where: file and line of each row of the batch */
	s = fx_source(&f, &err);
	sl_batch *b = sl_batch_new(2, f.types, 0);
	/* a batch ends at a file boundary (the next file reuses the buffer) */
	assert_int_equal(s->vt->read(s, b, &err), 2);
	char w[600], want[600];
	s->vt->where(s, 1, w, sizeof w);
	snprintf(want, sizeof want, "file '%s/a.jsonl', line 4", d);
	assert_string_equal(w, want);
	sl_batch_reset(b);
	assert_int_equal(s->vt->read(s, b, &err), 2);
	s->vt->where(s, 1, w, sizeof w);
	snprintf(want, sizeof want, "file '%s/b.jsonl', line 2", d);
	assert_string_equal(w, want);
	sl_batch_free(b);
	sl_source_free(s);
	sl_arena_deinit(&f.arena);
}

static void test_single_file_csv(void **state)
{
	char *d = subdir("csv");
	write_file(d, "x.csv", "c1,10\nc2,20\r\nc3,\n");
	char p[600];
	snprintf(p, sizeof p, "%s/x.csv", d);
	fx f;
	sl_err err;
	fx_init(&f, "csv", p);
	sl_source *s = fx_source(&f, &err);
	assert_non_null(s);
	char out[256] = "";
	assert_int_equal(read_rows(s, 0, 100, out, sizeof out, &err), SL_EEOF);
	assert_string_equal(out, "c1:10 c2:20 c3:-1");
	sl_source_free(s);
	sl_arena_deinit(&f.arena);
}

static void test_bad_record(void **state)
{
	char *d = subdir("bad");
	write_file(d, "a.jsonl", "{\"name\": \"a\", \"n\": 1}\n{\"name\": \"b\", \"n\": 2}\n"
	                         "{\"name\": \"c\", \"n\": \"abc\"}\n{\"name\": \"d\", \"n\": 4}\n"
	                         "{broken\n{\"name\": \"e\", \"n\": 5}\n");
	fx f;
	sl_err err;
	fx_init(&f, "json", d);
	sl_source *s = fx_source(&f, &err);
	assert_non_null(s);
	sl_batch *b = sl_batch_new(2, f.types, 0);
	int rc = s->vt->read(s, b, &err);
	assert_int_equal(rc, SL_EINPUT);
	assert_int_equal(b->nrows, 2); /* the rows before it stay */
	char want[600];
	snprintf(want, sizeof want, "source 'orders': file '%s/a.jsonl', line 3: ", d);
	assert_memory_equal(err.msg, want, strlen(want));
	assert_non_null(strstr(err.msg, "'n'"));
	sl_batch_free(b);
	sl_source_free(s);

	sl_opts_set(&f.opts, "json.ignore-parse-errors", "true");
	s = fx_source(&f, &err);
	assert_non_null(s);
	char out[256] = "";
	assert_int_equal(read_rows(s, 0, 100, out, sizeof out, &err), SL_EEOF);
	assert_string_equal(out, "a:1 b:2 d:4 e:5");
	assert_int_equal(s->rows_skipped, 2);
	assert_int_equal(s->rows_read, 4);
	sl_source_free(s);
	sl_arena_deinit(&f.arena);
}

static void test_missing_path_and_format(void **state)
{
	fx f;
	sl_err err;
	fx_init(&f, "json", "/nonexistent/sluice/orders.jsonl");
	assert_null(fx_source(&f, &err));
	assert_non_null(strstr(err.msg, "'/nonexistent/sluice/orders.jsonl' does not exist"));
	assert_non_null(strstr(err.msg, "source 'orders'"));
	sl_arena_deinit(&f.arena);
	fx_init(&f, "nosuchformat", "/tmp");
	assert_null(fx_source(&f, &err));
	assert_non_null(strstr(err.msg, "unknown format 'nosuchformat'"));
	sl_arena_deinit(&f.arena);
}

/* Big files: records straddle the 1 MiB buffer; every string referenced in
 * place must still be right when the batch is returned. */
static char *make_big(const char *d, int files, int rows)
{
	int k = 0;
	for (int i = 0; i < files; i++) {
		char name[32], p[600];
		snprintf(name, sizeof name, "part-%02d.jsonl", i);
		snprintf(p, sizeof p, "%s/%s", d, name);
		FILE *fp = fopen(p, "w");
		for (int r = 0; r < rows; r++, k++)
			fprintf(fp, "{\"name\": \"row%07d-%.*s\", \"n\": %d}\n", k, k % 97,
			        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			        "xxxxxxxxxxxxxxxxxxxxxxxx", k);
		fclose(fp);
	}
	return (char *)d;
}

/* Reads everything checking row k has n == k and name "row<k>-x..."; starts
 * at *k.  Returns the number of rows read (stops after max). */
static int check_seq(sl_source *s, int cap, int *k, int max)
{
	sl_type t[2] = {sl_type_varchar(SL_STRING_LEN), sl_type_make(SL_T_BIGINT)};
	sl_batch *b = sl_batch_new(2, t, cap);
	sl_err err;
	int n = 0;
	while (n < max) {
		sl_batch_reset(b);
		int rc = s->vt->read(s, b, &err);
		if (rc == SL_EEOF)
			break;
		assert_true(rc > 0);
		for (int r = 0; r < b->nrows; r++, n++, (*k)++) {
			char want[16];
			snprintf(want, sizeof want, "row%07d-", *k);
			assert_int_equal(b->cols[1].v.i64[r], *k);
			assert_int_equal(b->cols[0].v.str[r].len, 11 + *k % 97);
			assert_memory_equal(b->cols[0].v.str[r].ptr, want, 11);
			assert_true(b->cols[0].v.str[r].ptr[10 + *k % 97] == 'x' || *k % 97 == 0);
		}
	}
	sl_batch_free(b);
	return n;
}

static void test_big_files_and_restore(void **state)
{
	char *d = make_big(subdir("big"), 3, 20000); /* ~3 x 1.7 MB */
	fx f;
	sl_err err;
	fx_init(&f, "json", d);
	sl_source *s = fx_source(&f, &err);
	int k = 0;
	assert_int_equal(check_seq(s, 1024, &k, 1 << 30), 60000);
	sl_source_free(s);

	/* snapshot at odd places (mid-file, at a file boundary), restore into a
	 * new source each time: the sequence continues exactly */
	int stops[] = {5, 1234, 19995, 20000, 25000, 39999, 40000, 59999};
	k = 0;
	s = fx_source(&f, &err);
	sl_snap_writer w;
	for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
		int cap = 7 + (int)i * 100;
		while (k < stops[i]) {
			int want = stops[i] - k < cap ? stops[i] - k : cap;
			check_seq(s, want < 2 ? 2 : want, &k, 1);
		}
		sl_snap_writer_init(&w);
		assert_int_equal(s->vt->snapshot(s, &w, &err), 0);
		sl_source_free(s);
		s = fx_source(&f, &err);
		sl_snap_reader r;
		sl_snap_reader_init(&r, w.buf, w.len);
		assert_int_equal(s->vt->restore(s, &r, &err), 0);
		sl_snap_writer_deinit(&w);
	}
	check_seq(s, 1024, &k, 1 << 30);
	assert_int_equal(k, 60000);
	sl_source_free(s);
	sl_arena_deinit(&f.arena);
}

/* ---- sink ----------------------------------------------------------------- */

/* Counts files in dir: visible part-*.ext and hidden .part-*.inprogress. */
static void count_files(const char *dir, int *visible, int *hidden)
{
	*visible = *hidden = 0;
	DIR *dd = opendir(dir);
	assert_non_null(dd);
	struct dirent *e;
	while ((e = readdir(dd))) {
		if (strncmp(e->d_name, "part-", 5) == 0)
			(*visible)++;
		else if (strncmp(e->d_name, ".part-", 6) == 0 && strstr(e->d_name, ".inprogress"))
			(*hidden)++;
	}
	closedir(dd);
}

static sl_batch *sample_batch(int nrows)
{
	sl_type t[2] = {sl_type_varchar(SL_STRING_LEN), sl_type_make(SL_T_BIGINT)};
	sl_batch *b = sl_batch_new(2, t, 0);
	for (int i = 0; i < nrows; i++) {
		int r = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
		char name[16];
		snprintf(name, sizeof name, "r%d", i);
		sl_col_set_str(b, &b->cols[0], r, name, (int64_t)strlen(name));
		sl_col_set_i64(&b->cols[1], r, i);
	}
	return b;
}

static void test_sink_publish_at_finish(void **state)
{
	char out[600];
	snprintf(out, sizeof out, "%s/out/nested", tmpdir);
	fx f;
	sl_err err;
	fx_init(&f, "json", out);
	sl_conn_args a = fx_args(&f);
	const sl_sink_vtab *vt = sl_sink_find(sl_opts_get(&f.opts, "connector"));
	assert_non_null(vt);
	assert_false(vt->can_update(&a));
	sl_sink *k = sl_sink_new(vt, &a, &err);
	assert_non_null(k);
	assert_null(sl_opts_unused(&f.opts));
	sl_batch *b = sample_batch(3);
	assert_int_equal(k->vt->write(k, b, &err), 0);
	int vis, hid;
	count_files(out, &vis, &hid);
	assert_int_equal(vis, 0);
	assert_int_equal(hid, 1);
	assert_int_equal(k->vt->finish(k, &err), 0);
	count_files(out, &vis, &hid);
	assert_int_equal(vis, 1);
	assert_int_equal(hid, 0);
	assert_int_equal(k->rows_written, 3);
	sl_sink_free(k);

	/* read back what was published through the source */
	fx f2;
	fx_init(&f2, "json", out);
	sl_source *s = fx_source(&f2, &err);
	assert_non_null(s);
	char text[256] = "";
	assert_int_equal(read_rows(s, 0, 100, text, sizeof text, &err), SL_EEOF);
	assert_string_equal(text, "r0:0 r1:1 r2:2");
	sl_source_free(s);

	/* an updating row is refused by a plain format; close without finish
	 * leaves the part hidden */
	k = sl_sink_new(vt, &a, &err);
	assert_int_equal(k->vt->write(k, b, &err), 0);
	b->op[1] = SL_DELETE;
	sl_err_clear(&err);
	assert_true(k->vt->write(k, b, &err) < 0);
	assert_non_null(strstr(err.msg, "sink 'orders'"));
	sl_sink_free(k);
	count_files(out, &vis, &hid);
	assert_int_equal(vis, 1);
	assert_int_equal(hid, 1);
	sl_batch_free(b);
	sl_arena_deinit(&f.arena);
	sl_arena_deinit(&f2.arena);
}

static void test_sink_rolling(void **state)
{
	char out[600];
	snprintf(out, sizeof out, "%s/roll", tmpdir);
	fx f;
	sl_err err;
	fx_init(&f, "json", out);
	sl_opts_set(&f.opts, "sink.rolling-policy.file-size", "100");
	sl_conn_args a = fx_args(&f);
	sl_sink *k = sl_sink_new(sl_sink_find("filesystem"), &a, &err);
	assert_non_null(k);
	sl_batch *b = sample_batch(40); /* ~20 bytes a row: a part every 5 rows */
	assert_int_equal(k->vt->write(k, b, &err), 0);
	int vis, hid, parts;
	count_files(out, &vis, &hid);
	assert_int_equal(vis, 0);
	assert_true(hid >= 7 && hid <= 10);
	parts = hid;
	assert_int_equal(k->vt->finish(k, &err), 0);
	count_files(out, &vis, &hid);
	assert_int_equal(vis, parts);
	assert_int_equal(hid, 0);
	/* every published part is at least the roll size, except the last */
	DIR *dd = opendir(out);
	struct dirent *e;
	int small = 0;
	while ((e = readdir(dd))) {
		char p[900];
		struct stat st;
		snprintf(p, sizeof p, "%s/%s", out, e->d_name);
		if (e->d_name[0] != '.' && stat(p, &st) == 0 && st.st_size < 100)
			small++;
	}
	closedir(dd);
	assert_true(small <= 1);
	sl_sink_free(k);
	fx f2;
	fx_init(&f2, "json", out);
	sl_source *s = fx_source(&f2, &err);
	char text[1024] = "";
	assert_int_equal(read_rows(s, 0, 100, text, sizeof text, &err), SL_EEOF);
	assert_int_equal(s->rows_read, 40);
	sl_source_free(s);
	sl_batch_free(b);
	sl_arena_deinit(&f.arena);
	sl_arena_deinit(&f2.arena);
}

/* A changelog format takes updates; debezium-json parts end in .json and
 * csv parts in .csv. */
static void test_sink_changelog_and_ext(void **state)
{
	const char *fmts[2] = {"debezium-json", "csv"};
	const char *exts[2] = {".json", ".csv"};
	for (int i = 0; i < 2; i++) {
		char out[600];
		snprintf(out, sizeof out, "%s/ext%d", tmpdir, i);
		fx f;
		sl_err err;
		fx_init(&f, fmts[i], out);
		sl_conn_args a = fx_args(&f);
		const sl_sink_vtab *vt = sl_sink_find("filesystem");
		assert_int_equal(vt->can_update(&a), i == 0);
		sl_sink *k = sl_sink_new(vt, &a, &err);
		assert_non_null(k);
		sl_batch *b = sample_batch(2);
		if (i == 0)
			b->op[1] = SL_DELETE;
		assert_int_equal(k->vt->write(k, b, &err), 0);
		assert_int_equal(k->vt->finish(k, &err), 0);
		DIR *dd = opendir(out);
		struct dirent *e;
		int found = 0;
		while ((e = readdir(dd))) {
			size_t n = strlen(e->d_name), m = strlen(exts[i]);
			if (strncmp(e->d_name, "part-", 5) == 0 && n > m &&
			    strcmp(e->d_name + n - m, exts[i]) == 0)
				found++;
		}
		closedir(dd);
		assert_int_equal(found, 1);
		/* read back */
		fx f2;
		fx_init(&f2, fmts[i], out);
		sl_source *s = fx_source(&f2, &err);
		assert_non_null(s);
		char text[256] = "";
		assert_int_equal(read_rows(s, 0, 100, text, sizeof text, &err), SL_EEOF);
		assert_string_equal(text, "r0:0 r1:1");
		sl_source_free(s);
		sl_sink_free(k);
		sl_batch_free(b);
		sl_arena_deinit(&f.arena);
		sl_arena_deinit(&f2.arena);
	}
}

static int setup(void **state)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/sluice-test-fs-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dir_json),
		cmocka_unit_test(test_single_file_csv),
		cmocka_unit_test(test_bad_record),
		cmocka_unit_test(test_missing_path_and_format),
		cmocka_unit_test(test_big_files_and_restore),
		cmocka_unit_test(test_sink_publish_at_finish),
		cmocka_unit_test(test_sink_rolling),
		cmocka_unit_test(test_sink_changelog_and_ext),
	};
	return cmocka_run_group_tests_name("conn_fs", tests, setup, teardown);
}
