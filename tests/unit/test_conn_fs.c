/*
 * test_conn_fs.c - the 'filesystem' source and sink through their method
 * tables, with the json and csv formats: a directory read in name order
 * (hidden files skipped, CRLF and empty lines, a last line without '\n'),
 * records straddling the 1 MiB read buffer, `where`, bad-record errors
 * with file and line, ignore-parse-errors, snapshot/restore mid-file,
 * changelog formats (debezium-json, canal-json records of several rows
 * that do not fit the batch's room: read again into the next batch), the
 * sink's hidden in-progress parts published only at finish, the checkpoint
 * protocol, configure (no I/O) then open.  PARTITIONED BY tables are tested by test_conn_fs_partition.c;
 * the helpers both share are in fs_test_util.h.
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
#include "fs_test_util.h"

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

/* Configure (sl_source_new / sl_sink_new, what the planner calls, so
 * EXPLAIN) looks at nothing on disk and creates nothing; open (the job's
 * start) reports the missing input and creates the output directory.  A
 * sink only configured and freed leaves no directory behind. */
static void test_configure_then_open(void **state)
{
	char in[600], out[600];
	struct stat st;
	snprintf(in, sizeof in, "%s/cfg_missing/in.jsonl", tmpdir);
	snprintf(out, sizeof out, "%s/cfg_out/a/b", tmpdir);
	fx f;
	sl_err err;
	fx_init(&f, "json", in);
	sl_conn_args a = fx_args(&f);
	sl_err_clear(&err);
	sl_source *s = sl_source_new(sl_source_find("filesystem"), &a, &err);
	assert_non_null(s);
	assert_non_null(s->dec); /* the format is configured */
	assert_int_equal(sl_source_open(s, &err), SL_EIO);
	assert_non_null(strstr(err.msg, "source 'orders': path '"));
	assert_non_null(strstr(err.msg, "cfg_missing/in.jsonl' does not exist"));
	sl_source_free(s);
	sl_arena_deinit(&f.arena);

	fx_init(&f, "json", out);
	a = fx_args(&f);
	sl_err_clear(&err);
	sl_sink *k = sl_sink_new(sl_sink_find("filesystem"), &a, &err);
	assert_non_null(k);
	assert_int_not_equal(stat(out, &st), 0);
	sl_sink_free(k); /* configured only: nothing to publish, nothing created */
	snprintf(in, sizeof in, "%s/cfg_out", tmpdir);
	assert_int_not_equal(stat(in, &st), 0);
	k = sl_sink_new(sl_sink_find("filesystem"), &a, &err);
	assert_non_null(k);
	assert_int_equal(sl_sink_open(k, &err), 0);
	assert_int_equal(stat(out, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	sl_sink_free(k);
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

/* Reads everything checking that row k has n == k and name "row<k>-x...",
 * that the rows of each file (`per` rows each) come in order, next[f]
 * being the next row expected of file f, and that a batch holds rows of
 * one file (a split, docs/parallel.md §4).  *k counts the rows read.
 * Returns the number of rows read (stops after max). */
static int check_seq(sl_source *s, int cap, int *next, int per, int *k, int max)
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
		int file = (int)(b->cols[1].v.i64[0] / per);
		assert_int_equal(s->split, file); /* one split per file here */
		for (int r = 0; r < b->nrows; r++, n++, (*k)++) {
			int v = (int)b->cols[1].v.i64[r];
			char want[16];
			snprintf(want, sizeof want, "row%07d-", v);
			assert_int_equal(v / per, file);
			assert_int_equal(v, next[file]);
			next[file]++;
			assert_int_equal(b->cols[0].v.str[r].len, 11 + v % 97);
			assert_memory_equal(b->cols[0].v.str[r].ptr, want, 11);
			assert_true(b->cols[0].v.str[r].ptr[10 + v % 97] == 'x' || v % 97 == 0);
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
	int k = 0, next[3] = {0, 20000, 40000};
	assert_int_equal(s->nsplits, 3);
	assert_int_equal(check_seq(s, 1024, next, 20000, &k, 1 << 30), 60000);
	assert_int_equal(next[0] + next[1] + next[2], 20000 + 40000 + 60000);
	sl_source_free(s);

	/* snapshot at odd places (mid-file, at a file boundary), restore into a
	 * new source each time: every file's sequence continues exactly */
	int stops[] = {5, 1234, 19995, 20000, 25000, 39999, 40000, 59999};
	k = 0;
	next[0] = 0, next[1] = 20000, next[2] = 40000;
	s = fx_source(&f, &err);
	sl_snap_writer w;
	for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
		int cap = 7 + (int)i * 100;
		while (k < stops[i]) {
			int want = stops[i] - k < cap ? stops[i] - k : cap;
			check_seq(s, want < 2 ? 2 : want, next, 20000, &k, 1);
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
	check_seq(s, 1024, next, 20000, &k, 1 << 30);
	assert_int_equal(k, 60000);
	assert_int_equal(next[0] + next[1] + next[2], 20000 + 40000 + 60000);
	sl_source_free(s);
	sl_arena_deinit(&f.arena);
}

/* Reads one batch of cap rows; appends "<kind>name:n" strings to out. */
static int read_kinds(sl_source *s, int cap, char *out, size_t outcap, sl_err *err)
{
	static const char *kind[] = {"+I", "-U", "+U", "-D"};
	sl_batch *b = sl_batch_new(2, (sl_type[]){sl_type_varchar(SL_STRING_LEN),
	                                          sl_type_make(SL_T_BIGINT)}, cap);
	sl_err_clear(err);
	int rc = s->vt->read(s, b, err);
	size_t len = strlen(out);
	for (int r = 0; r < b->nrows; r++)
		len += (size_t)snprintf(out + len, outcap - len, "%s%s%.*s:%lld", len ? " " : "",
		                        kind[b->op[r] & 3], (int)b->cols[0].v.str[r].len,
		                        b->cols[0].v.str[r].ptr, (long long)b->cols[1].v.i64[r]);
	sl_batch_free(b);
	return rc;
}

static void test_changelog_formats(void **state)
{
	char *d = subdir("cdc");
	write_file(d, "dbz.json",
	           "{\"before\":null,\"after\":{\"name\":\"a\",\"n\":1},\"op\":\"r\"}\n"
	           "{\"before\":{\"name\":\"a\",\"n\":1},\"after\":{\"name\":\"a\",\"n\":2},\"op\":\"u\"}\n"
	           "\n"
	           "{\"before\":{\"name\":\"a\",\"n\":2},\"after\":null,\"op\":\"d\"}\n");
	char p[600];
	snprintf(p, sizeof p, "%s/dbz.json", d);
	fx f;
	sl_err err;
	fx_init(&f, "debezium-json", p);
	sl_source *s = fx_source(&f, &err);
	assert_non_null(s);
	char out[512] = "";
	assert_int_equal(read_kinds(s, 0, out, sizeof out, &err), 4);
	assert_string_equal(out, "+Ia:1 -Ua:1 +Ua:2 -Da:2");
	sl_source_free(s);
	sl_arena_deinit(&f.arena);

	/* canal records of 2, 3 and 1 rows read with batches of 4: a record
	 * that does not fit goes whole into the next batch */
	write_file(d, "canal.json",
	           "{\"data\":[{\"name\":\"x\",\"n\":\"1\"},{\"name\":\"y\",\"n\":\"2\"}],\"type\":\"INSERT\"}\n"
	           "{\"data\":[{\"name\":\"x\",\"n\":\"3\"},{\"name\":\"y\",\"n\":\"4\"},{\"name\":\"z\",\"n\":\"5\"}],\"type\":\"INSERT\"}\n"
	           "{\"data\":[{\"name\":\"x\",\"n\":\"9\"}],\"old\":[{\"n\":\"1\"}],\"type\":\"UPDATE\"}\n");
	snprintf(p, sizeof p, "%s/canal.json", d);
	fx_init(&f, "canal-json", p);
	s = fx_source(&f, &err);
	assert_non_null(s);
	out[0] = 0;
	assert_int_equal(read_kinds(s, 4, out, sizeof out, &err), 2);
	assert_string_equal(out, "+Ix:1 +Iy:2");
	/* a snapshot here resumes at the record that did not fit */
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	assert_int_equal(s->vt->snapshot(s, &w, &err), 0);
	out[0] = 0;
	assert_int_equal(read_kinds(s, 4, out, sizeof out, &err), 3);
	assert_int_equal(read_kinds(s, 4, out, sizeof out, &err), 2);
	assert_string_equal(out, "+Ix:3 +Iy:4 +Iz:5 -Ux:1 +Ux:9");
	assert_int_equal(read_kinds(s, 4, out, sizeof out, &err), SL_EEOF);
	sl_source_free(s);
	s = fx_source(&f, &err);
	sl_snap_reader r;
	sl_snap_reader_init(&r, w.buf, w.len);
	assert_int_equal(s->vt->restore(s, &r, &err), 0);
	sl_snap_writer_deinit(&w);
	out[0] = 0;
	assert_int_equal(read_kinds(s, 8, out, sizeof out, &err), 5);
	assert_string_equal(out, "+Ix:3 +Iy:4 +Iz:5 -Ux:1 +Ux:9");
	sl_source_free(s);
	/* a record larger than a whole batch: an error naming file and line */
	s = fx_source(&f, &err);
	out[0] = 0;
	assert_int_equal(read_kinds(s, 2, out, sizeof out, &err), 2);
	assert_int_equal(read_kinds(s, 2, out, sizeof out, &err), SL_EINPUT);
	assert_non_null(strstr(err.msg, "canal.json', line 2: canal-json: the record holds 3 rows"));
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

/* Rows r<from>..r<from+nrows-1> with n = from..from+nrows-1. */
static sl_batch *rows_batch(int from, int nrows)
{
	sl_type t[2] = {sl_type_varchar(SL_STRING_LEN), sl_type_make(SL_T_BIGINT)};
	sl_batch *b = sl_batch_new(2, t, 0);
	for (int i = from; i < from + nrows; i++) {
		int r = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
		char name[16];
		snprintf(name, sizeof name, "r%d", i);
		sl_col_set_str(b, &b->cols[0], r, name, (int64_t)strlen(name));
		sl_col_set_i64(&b->cols[1], r, i);
	}
	return b;
}

static sl_batch *sample_batch(int nrows)
{
	return rows_batch(0, nrows);
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
	sl_sink *k = sl_sink_new_open(vt, &a, &err);
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
	k = sl_sink_new_open(vt, &a, &err);
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
	sl_sink *k = sl_sink_new_open(sl_sink_find("filesystem"), &a, &err);
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
		sl_sink *k = sl_sink_new_open(vt, &a, &err);
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

/* ---- sink: the checkpoint protocol ------------------------------------------ */

/* A checkpointing sink (job, attempt) over f's path; fails the test when
 * it does not open. */
static sl_sink *ck_sink(fx *f, const char *job, int attempt)
{
	sl_conn_args a = fx_args(f);
	a.checkpointing = 1;
	a.job = job;
	a.attempt = attempt;
	sl_err err;
	sl_err_clear(&err);
	sl_sink *k = sl_sink_new_open(sl_sink_find("filesystem"), &a, &err);
	if (!k)
		fail_msg("%s", err.msg);
	return k;
}

/* The expected rows r<from>..r<to-1>, like visible_rows. */
static const char *want_rows(int from, int to)
{
	static char out[8192];
	size_t len = 0;
	out[0] = 0;
	for (int i = from; i < to; i++)
		len += (size_t)snprintf(out + len, sizeof out - len, "%sr%d:%d", i > from ? " " : "",
		                        i, i);
	return out;
}

static void put_rows(sl_sink *k, int from, int n)
{
	sl_err err;
	sl_batch *b = rows_batch(from, n);
	sl_err_clear(&err);
	assert_int_equal(k->vt->write(k, b, &err), 0);
	sl_batch_free(b);
}

/* rows -> pre_commit(1): nothing visible -> commit(1): visible, once;
 * commit again is a no-op; the bytes pre_commit writes; an empty
 * checkpoint stages nothing; ids must increase. */
static void test_ckpt_commit(void **state)
{
	char *d = ck_dir("ck_commit");
	fx f;
	sl_err err;
	sl_snap_writer w;
	fx_init(&f, "json", d);
	sl_sink *k = ck_sink(&f, "j", 1);
	put_rows(k, 0, 3);
	assert_string_equal(dir_names(d), ".part-j-1-0.json.inprogress");
	pre_commit(k, 1, &w);
	assert_string_equal(dir_names(d), ".part-j-1-1-0.json.pending");
	assert_string_equal(visible_rows(d), "");
	/* the bytes: version, id, job, attempt, count, (staged, final) pairs */
	sl_snap_reader r;
	size_t n;
	sl_snap_reader_init(&r, w.buf, w.len);
	assert_int_equal(sl_snap_get_u8(&r), 1);
	assert_int_equal(sl_snap_get_i64(&r), 1);
	const char *p = sl_snap_get_bytes(&r, &n);
	assert_int_equal(n, 1);
	assert_memory_equal(p, "j", 1);
	assert_int_equal(sl_snap_get_u32(&r), 1);
	assert_int_equal(sl_snap_get_u32(&r), 1);
	p = sl_snap_get_bytes(&r, &n);
	assert_int_equal(n, strlen(".part-j-1-1-0.json.pending"));
	assert_memory_equal(p, ".part-j-1-1-0.json.pending", n);
	p = sl_snap_get_bytes(&r, &n);
	assert_int_equal(n, strlen("part-j-1-1-0.json"));
	assert_memory_equal(p, "part-j-1-1-0.json", n);
	assert_true(sl_snap_reader_ok(&r) && r.pos == r.len);
	sl_snap_writer_deinit(&w);
	commit(k, 1);
	assert_string_equal(dir_names(d), "part-j-1-1-0.json");
	assert_string_equal(visible_rows(d), want_rows(0, 3));
	commit(k, 1); /* idempotent */
	assert_string_equal(dir_names(d), "part-j-1-1-0.json");

	/* rows after the barrier go to a new part of the next checkpoint */
	put_rows(k, 3, 2);
	pre_commit(k, 2, &w);
	sl_snap_writer_deinit(&w);
	commit(k, 2);
	assert_string_equal(dir_names(d), "part-j-1-1-0.json part-j-2-1-0.json");
	assert_string_equal(visible_rows(d), want_rows(0, 5));

	/* an empty checkpoint stages nothing and lists nothing */
	pre_commit(k, 3, &w);
	assert_string_equal(dir_names(d), "part-j-1-1-0.json part-j-2-1-0.json");
	sl_snap_reader_init(&r, w.buf, w.len);
	(void)sl_snap_get_u8(&r);
	assert_int_equal(sl_snap_get_i64(&r), 3);
	(void)sl_snap_get_bytes(&r, &n);
	(void)sl_snap_get_u32(&r);
	assert_int_equal(sl_snap_get_u32(&r), 0);
	sl_snap_writer_deinit(&w);
	commit(k, 3);
	assert_string_equal(dir_names(d), "part-j-1-1-0.json part-j-2-1-0.json");

	/* ids never go back */
	sl_snap_writer_init(&w);
	sl_err_clear(&err);
	assert_int_equal(k->vt->pre_commit(k, 3, &w, &err), SL_EINVAL);
	assert_non_null(strstr(err.msg, "ids must increase"));
	sl_snap_writer_deinit(&w);
	sl_sink_free(k);
	assert_string_equal(dir_names(d), "part-j-1-1-0.json part-j-2-1-0.json");
	sl_arena_deinit(&f.arena);
}

/* Crash after pre_commit(2) with rows in progress: a new attempt restores
 * checkpoint 1: checkpoint 2's staged part and the in-progress part are
 * gone, checkpoint 1's rows visible once; the replayed rows are published
 * under the new attempt's names. */
static void test_ckpt_crash_restore_older(void **state)
{
	char *d = ck_dir("ck_older");
	fx f;
	sl_err err;
	sl_snap_writer w1, w2, w3;
	fx_init(&f, "json", d);
	sl_sink *k = ck_sink(&f, "j", 1);
	put_rows(k, 0, 3);
	pre_commit(k, 1, &w1);
	commit(k, 1);
	put_rows(k, 3, 3);
	pre_commit(k, 2, &w2);
	put_rows(k, 6, 2);
	sl_sink_free(k); /* crash: no commit(2) */
	assert_string_equal(dir_names(d), ".part-j-1-2.json.inprogress .part-j-2-1-0.json.pending "
	                                  "part-j-1-1-0.json");

	k = ck_sink(&f, "j", 2);
	assert_int_equal(recover(k, &w1, &err), 0);
	assert_string_equal(dir_names(d), "part-j-1-1-0.json");
	assert_string_equal(visible_rows(d), want_rows(0, 3));
	/* the sources replay from checkpoint 1's positions */
	put_rows(k, 3, 5);
	pre_commit(k, 3, &w3);
	commit(k, 3);
	assert_string_equal(dir_names(d), "part-j-1-1-0.json part-j-3-2-0.json");
	assert_string_equal(visible_rows(d), want_rows(0, 8));
	sl_sink_free(k);
	sl_snap_writer_deinit(&w3);

	/* recover is refused after a write, and is idempotent */
	k = ck_sink(&f, "j", 3);
	put_rows(k, 0, 1);
	assert_int_equal(recover(k, &w1, &err), SL_EINVAL);
	assert_non_null(strstr(err.msg, "recover after output was written"));
	sl_sink_free(k);
	k = ck_sink(&f, "j", 3);
	assert_int_equal(recover(k, &w2, &err), SL_ESTATE); /* 3 is published: see below */
	sl_sink_free(k);
	sl_snap_writer_deinit(&w1);
	sl_snap_writer_deinit(&w2);
	sl_arena_deinit(&f.arena);

	/* a crash between pre_commit(1) and commit(1): recover publishes */
	d = ck_dir("ck_older2");
	fx_init(&f, "json", d);
	k = ck_sink(&f, "j", 0);
	put_rows(k, 0, 2);
	pre_commit(k, 1, &w1);
	put_rows(k, 2, 2);
	sl_sink_free(k);
	for (int attempt = 1; attempt <= 2; attempt++) { /* twice: idempotent */
		k = ck_sink(&f, "j", attempt);
		assert_int_equal(recover(k, &w1, &err), 0);
		assert_string_equal(dir_names(d), "part-j-1-0-0.json");
		assert_string_equal(visible_rows(d), want_rows(0, 2));
		sl_sink_free(k);
	}
	sl_snap_writer_deinit(&w1);
	sl_arena_deinit(&f.arena);
}

/* Crash after the manifest of checkpoint 2 and before commit(2): restoring
 * checkpoint 2 publishes its parts and those of checkpoint 1, which was
 * never committed (its manifest failed); a commit cut half-way is
 * finished. */
static void test_ckpt_recover_publishes(void **state)
{
	char *d = ck_dir("ck_newer");
	fx f;
	sl_err err;
	sl_snap_writer w1, w2;
	fx_init(&f, "json", d);
	sl_sink *k = ck_sink(&f, "j", 1);
	put_rows(k, 0, 2);
	pre_commit(k, 1, &w1); /* no commit: checkpoint 1 did not complete */
	put_rows(k, 2, 2);
	pre_commit(k, 2, &w2);
	sl_sink_free(k);
	assert_string_equal(dir_names(d), ".part-j-1-1-0.json.pending .part-j-2-1-0.json.pending");
	/* a commit that renamed one part before the crash */
	char a[900], b[900];
	snprintf(a, sizeof a, "%s/.part-j-1-1-0.json.pending", d);
	snprintf(b, sizeof b, "%s/part-j-1-1-0.json", d);
	assert_int_equal(rename(a, b), 0);
	k = ck_sink(&f, "j", 2);
	assert_int_equal(recover(k, &w2, &err), 0);
	assert_string_equal(dir_names(d), "part-j-1-1-0.json part-j-2-1-0.json");
	assert_string_equal(visible_rows(d), want_rows(0, 4));
	/* the next checkpoint carries the new attempt */
	put_rows(k, 4, 1);
	sl_snap_writer w3;
	pre_commit(k, 3, &w3);
	commit(k, 3);
	assert_string_equal(dir_names(d), "part-j-1-1-0.json part-j-2-1-0.json part-j-3-2-0.json");
	assert_string_equal(visible_rows(d), want_rows(0, 5));
	sl_sink_free(k);

	/* commit(3) of a live sink publishes an earlier uncommitted one too */
	k = ck_sink(&f, "j", 3);
	assert_int_equal(recover(k, &w3, &err), 0);
	put_rows(k, 5, 1);
	sl_snap_writer w4, w5;
	pre_commit(k, 4, &w4);
	put_rows(k, 6, 1);
	pre_commit(k, 5, &w5);
	commit(k, 5);
	assert_string_equal(visible_rows(d), want_rows(0, 7));
	commit(k, 4); /* late, already published: no-op */
	assert_string_equal(visible_rows(d), want_rows(0, 7));
	sl_sink_free(k);
	sl_snap_writer_deinit(&w1);
	sl_snap_writer_deinit(&w2);
	sl_snap_writer_deinit(&w3);
	sl_snap_writer_deinit(&w4);
	sl_snap_writer_deinit(&w5);
	sl_arena_deinit(&f.arena);
}

/* Falling back to checkpoint 1 when checkpoint 2's output is published is
 * refused, naming the table and both ids, and changes nothing. */
static void test_ckpt_refuse_newer(void **state)
{
	char *d = ck_dir("ck_refuse");
	fx f;
	sl_err err;
	sl_snap_writer w1, w2;
	fx_init(&f, "json", d);
	sl_sink *k = ck_sink(&f, "j", 1);
	put_rows(k, 0, 2);
	pre_commit(k, 1, &w1);
	commit(k, 1);
	put_rows(k, 2, 2);
	pre_commit(k, 2, &w2);
	commit(k, 2);
	put_rows(k, 4, 2);
	sl_sink_free(k);
	char before[4096];
	snprintf(before, sizeof before, "%s", dir_names(d));
	k = ck_sink(&f, "j", 2);
	assert_int_equal(recover(k, &w1, &err), SL_ESTATE);
	assert_non_null(strstr(err.msg, "sink 'orders'"));
	assert_non_null(strstr(err.msg, "'part-j-2-1-0.json'"));
	assert_non_null(strstr(err.msg, "checkpoint 2, newer than the restored checkpoint 1"));
	assert_string_equal(dir_names(d), before);
	/* a start without a checkpoint is refused too */
	assert_int_equal(recover(k, NULL, &err), SL_ESTATE);
	assert_non_null(strstr(err.msg, "checkpoint 2 of job 'j', and the job starts without a "
	                                "checkpoint (checkpoint 0)"));
	assert_string_equal(dir_names(d), before);
	assert_int_equal(recover(k, &w2, &err), 0);
	assert_string_equal(dir_names(d), "part-j-1-1-0.json part-j-2-1-0.json");
	sl_sink_free(k);
	sl_snap_writer_deinit(&w1);
	sl_snap_writer_deinit(&w2);
	sl_arena_deinit(&f.arena);
}

/* A staged part that is gone without being published is an error naming
 * it; damaged bytes are refused; other jobs' and foreign files are left
 * alone; a start without a checkpoint clears this job's leftovers. */
static void test_ckpt_missing_and_foreign(void **state)
{
	char *d = ck_dir("ck_missing");
	fx f;
	sl_err err;
	sl_snap_writer w1;
	fx_init(&f, "json", d);
	sl_sink *k = ck_sink(&f, "j", 1);
	put_rows(k, 0, 2);
	pre_commit(k, 1, &w1);
	put_rows(k, 2, 1);
	sl_sink_free(k);
	char p[900];
	snprintf(p, sizeof p, "%s/.part-j-1-1-0.json.pending", d);
	assert_int_equal(unlink(p), 0);
	k = ck_sink(&f, "j", 2);
	assert_int_equal(recover(k, &w1, &err), SL_ESTATE);
	assert_non_null(strstr(err.msg, "sink 'orders'"));
	assert_non_null(strstr(err.msg, "/.part-j-1-1-0.json.pending' of checkpoint 1 is missing"));
	assert_string_equal(dir_names(d), ".part-j-1-1.json.inprogress");
	/* damaged: truncated, or a name outside the directory */
	sl_snap_writer t = w1;
	t.len--;
	assert_int_equal(recover(k, &t, &err), SL_ESTATE);
	assert_non_null(strstr(err.msg, "damaged"));
	sl_snap_writer bad;
	sl_snap_writer_init(&bad);
	sl_snap_put_u8(&bad, 1);
	sl_snap_put_i64(&bad, 1);
	sl_snap_put_bytes(&bad, "j", 1);
	sl_snap_put_u32(&bad, 1);
	sl_snap_put_u32(&bad, 1);
	sl_snap_put_bytes(&bad, ".part-j-1-1-0.json.pending", 26);
	sl_snap_put_bytes(&bad, "../part-j-1-1-0.json", 20);
	assert_int_equal(recover(k, &bad, &err), SL_ESTATE);
	sl_snap_writer_deinit(&bad);
	sl_sink_free(k);
	sl_snap_writer_deinit(&w1);

	/* foreign files: job "j-2" (whose names extend "j"), a run without
	 * checkpointing, the user's own */
	const char *foreign = ".part-j-2-1-0.json.inprogress .part-j-2-9-1-0.json.pending "
	                      ".part-j-x-1-0.json.inprogress .user part-j-2-9-1-0.json "
	                      "part-j-9-1-0-0.json part-j-9-1.json";
	char names[512], *save, *tok;
	snprintf(names, sizeof names, "%s", foreign);
	for (tok = strtok_r(names, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		write_file(d, tok, "");
	k = ck_sink(&f, "j", 3);
	assert_int_equal(recover(k, NULL, &err), 0); /* fresh start: leftovers of j go */
	assert_string_equal(dir_names(d), foreign);
	sl_sink_free(k);
	sl_arena_deinit(&f.arena);
}

/* Rolled parts wait hidden and are staged together at the next barrier;
 * a crash after pre_commit(2) restored from 1 keeps exactly 1's rows. */
static void test_ckpt_rolling(void **state)
{
	char *d = ck_dir("ck_roll");
	fx f;
	sl_err err;
	sl_snap_writer w1, w2;
	fx_init(&f, "json", d);
	sl_opts_set(&f.opts, "sink.rolling-policy.file-size", "100");
	sl_sink *k = ck_sink(&f, "j", 1);
	put_rows(k, 0, 12); /* ~20 bytes a row: 2 rolled parts and an open one */
	assert_string_equal(dir_names(d), ".part-j-1-0.json.inprogress .part-j-1-1.json.inprogress "
	                                  ".part-j-1-2.json.inprogress");
	pre_commit(k, 1, &w1);
	assert_string_equal(dir_names(d), ".part-j-1-1-0.json.pending .part-j-1-1-1.json.pending "
	                                  ".part-j-1-1-2.json.pending");
	put_rows(k, 12, 10); /* the rows are across the barrier */
	pre_commit(k, 2, &w2);
	commit(k, 1);
	assert_string_equal(visible_rows(d), want_rows(0, 12));
	put_rows(k, 22, 3);
	sl_sink_free(k); /* crash before commit(2) */
	k = ck_sink(&f, "j", 2);
	assert_int_equal(recover(k, &w1, &err), 0);
	assert_string_equal(dir_names(d), "part-j-1-1-0.json part-j-1-1-1.json part-j-1-1-2.json");
	assert_string_equal(visible_rows(d), want_rows(0, 12));
	sl_sink_free(k);
	k = ck_sink(&f, "j", 3);
	assert_int_equal(recover(k, &w1, &err), 0);
	put_rows(k, 12, 13);
	sl_snap_writer_deinit(&w2);
	pre_commit(k, 2, &w2);
	commit(k, 2);
	assert_string_equal(visible_rows(d), want_rows(0, 25));
	sl_sink_free(k);
	sl_snap_writer_deinit(&w1);
	sl_snap_writer_deinit(&w2);
	sl_arena_deinit(&f.arena);
}

/* With checkpointing finish only closes the part (the final checkpoint
 * publishes); abort deletes a checkpoint's staged parts; the protocol
 * needs checkpointing and a usable job name. */
static void test_ckpt_finish_abort_args(void **state)
{
	char *d = ck_dir("ck_finish");
	fx f;
	sl_err err;
	sl_snap_writer w;
	fx_init(&f, "json", d);
	sl_sink *k = ck_sink(&f, "j", 1);
	put_rows(k, 0, 3);
	sl_err_clear(&err);
	assert_int_equal(k->vt->finish(k, &err), 0);
	assert_string_equal(dir_names(d), ".part-j-1-0.json.inprogress");
	assert_string_equal(visible_rows(d), "");
	pre_commit(k, 1, &w);
	sl_snap_writer_deinit(&w);
	commit(k, 1);
	assert_string_equal(visible_rows(d), want_rows(0, 3));
	sl_sink_free(k);

	k = ck_sink(&f, "j", 2);
	put_rows(k, 3, 2);
	pre_commit(k, 2, &w);
	sl_snap_writer_deinit(&w);
	sl_err_clear(&err);
	assert_int_equal(k->vt->abort(k, 2, &err), 0);
	assert_string_equal(dir_names(d), "part-j-1-1-0.json");
	sl_err_clear(&err);
	assert_int_equal(k->vt->abort(k, 2, &err), 0);
	commit(k, 2); /* nothing left to publish */
	assert_string_equal(dir_names(d), "part-j-1-1-0.json");
	sl_sink_free(k);

	/* without checkpointing the protocol is refused */
	sl_conn_args a = fx_args(&f);
	k = sl_sink_new_open(sl_sink_find("filesystem"), &a, &err);
	assert_non_null(k);
	sl_snap_writer_init(&w);
	sl_err_clear(&err);
	assert_int_equal(k->vt->pre_commit(k, 1, &w, &err), SL_EINVAL);
	assert_non_null(strstr(err.msg, "sink 'orders': pre_commit without checkpointing"));
	sl_err_clear(&err);
	assert_int_equal(k->vt->recover(k, NULL, &err), SL_EINVAL);
	sl_snap_writer_deinit(&w);
	sl_sink_free(k);
	a.checkpointing = 1;
	a.job = "a/b";
	sl_err_clear(&err);
	assert_null(sl_sink_new_open(sl_sink_find("filesystem"), &a, &err));
	assert_non_null(strstr(err.msg, "job name"));
	a.job = NULL;
	sl_err_clear(&err);
	assert_null(sl_sink_new_open(sl_sink_find("filesystem"), &a, &err));
	assert_string_equal(dir_names(d), "part-j-1-1-0.json");
	sl_arena_deinit(&f.arena);
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dir_json),
		cmocka_unit_test(test_configure_then_open),
		cmocka_unit_test(test_single_file_csv),
		cmocka_unit_test(test_bad_record),
		cmocka_unit_test(test_missing_path_and_format),
		cmocka_unit_test(test_big_files_and_restore),
		cmocka_unit_test(test_changelog_formats),
		cmocka_unit_test(test_sink_publish_at_finish),
		cmocka_unit_test(test_sink_rolling),
		cmocka_unit_test(test_sink_changelog_and_ext),
		cmocka_unit_test(test_ckpt_commit),
		cmocka_unit_test(test_ckpt_crash_restore_older),
		cmocka_unit_test(test_ckpt_recover_publishes),
		cmocka_unit_test(test_ckpt_refuse_newer),
		cmocka_unit_test(test_ckpt_missing_and_foreign),
		cmocka_unit_test(test_ckpt_rolling),
		cmocka_unit_test(test_ckpt_finish_abort_args),
	};
	return cmocka_run_group_tests_name("conn_fs", tests, setup, teardown);
}
