/*
 * test_fs_splits.c - the filesystem source's splits (docs/parallel.md §4):
 * a large line-oriented file cut into byte ranges, each owning the lines
 * that start in it (every line read exactly once whatever the cut points:
 * empty lines, CRLF, a last line without '\n', ranges holding no line
 * start), error positions with the line in the whole file, a changelog
 * file never cut, the ranges of a file read in order and their initial
 * watermarks' seed rows (the last line before each range), the files of a
 * directory read interleaved in turns, snapshots taken
 * after every batch and restored into a new source giving the rows of the
 * uninterrupted run in the same order, a version-1 snapshot (one
 * stream over the files, before splits) mapped onto the splits, and
 * parallel instances (sl_conn_args.subtask/nsubtasks): each reads its
 * splits of the static assignment, their union is the rows at parallelism
 * 1, and a restore at another parallelism from every instance's snapshot
 * resumes every split where it was.  The threshold is the test-only
 * SLUICE_TEST_SPLIT_BYTES (docs/testing.md).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connector/conn.h"
#include "sluice.h"
#include "connector/conn_builtin.h"
#include "fs_test_util.h"

#define MAXROWS 4096

/* The filesystem source of f as instance `inst` of np (conn.h). */
static sl_source *fx_instance(fx *f, int inst, int np, sl_err *err)
{
	sl_conn_args a = fx_args(f);
	a.subtask = inst;
	a.nsubtasks = np;
	sl_err_clear(err);
	return sl_source_new_open(&sl_filesystem_source_vtab, &a, err);
}
/* Split j's first byte in its file, from its live-metrics name (conn.h's
 * split_name: "file 'x' bytes A-B", "file 'x' from byte A", or "file 'x'"
 * for a whole file), and 1 000 000 000 x the letter before ".jsonl" plus
 * it as the split's id: which instance reads a split is range_owner's
 * business (conn_filesystem.c), so the tests name splits by their ids. */
static long long split_start(sl_source *s, int j)
{
	char name[700];
	s->vt->split_name(s, j, name, sizeof name);
	const char *b = strstr(name, " bytes ");
	if (b)
		return atoll(b + 7);
	b = strstr(name, " from byte ");
	return b ? atoll(b + 11) : 0;
}

static long long split_id(sl_source *s, int j)
{
	char name[700];
	s->vt->split_name(s, j, name, sizeof name);
	const char *e = strstr(name, ".jsonl'");
	return (e ? e[-1] : 0) * 1000000000LL + split_start(s, j);
}
#define MAXSEEDS 16384 /* a range per byte of a 9 KB file */

/* Rows read: n of each row, its split and its line as `where` gives it. */
typedef struct got {
	int n;
	long long v[MAXROWS];
	int split[MAXROWS];
	long long line[MAXROWS];
	char file[MAXROWS]; /* the letter before ".jsonl" in its file's name */
	int seeds;  /* seed rows read (conn.h) */
	long long seed_v[MAXSEEDS];   /* their n */
	int seed_split[MAXSEEDS];     /* the split each seeds */
	int seed_at[MAXSEEDS];        /* rows read before it */
} got;

/* Reads batches of cap rows (at most max batches, -1 = to the end).
 * Returns the last read code. */
static int read_some(sl_source *s, int cap, int max, got *g)
{
	sl_batch *b = sl_batch_new(2, (sl_type[]){sl_type_varchar(SL_STRING_LEN),
	                                          sl_type_make(SL_T_BIGINT)}, cap);
	sl_err err;
	int rc = 0;
	for (int k = 0; max < 0 || k < max; k++) {
		sl_batch_reset(b);
		rc = s->vt->read(s, b, &err);
		if (rc > 0 && s->seed) { /* not data: the ranges' initial watermarks */
			for (int r = 0; r < b->nrows; r++) {
				assert_true(g->seeds < MAXSEEDS);
				g->seed_v[g->seeds] = b->cols[1].v.i64[r];
				g->seed_split[g->seeds] = s->seed_split[r];
				g->seed_at[g->seeds++] = g->n;
			}
			continue;
		}
		for (int r = 0; r < b->nrows; r++) {
			assert_true(g->n < MAXROWS);
			char w[600];
			s->vt->where(s, r, w, sizeof w);
			const char *l = strstr(w, "line ");
			assert_non_null(l);
			g->v[g->n] = b->cols[1].v.i64[r];
			g->split[g->n] = s->split;
			g->line[g->n] = atoll(l + 5);
			const char *e = strstr(w, ".jsonl'");
			g->file[g->n] = e ? e[-1] : 0;
			g->n++;
		}
		if (rc <= 0)
			break;
	}
	sl_batch_free(b);
	return rc;
}

/* A file of `lines` lines where line i (1-based) holds n = i, of varying
 * lengths, with empty lines (every 7th) and CRLF (every 5th), the last
 * line without '\n'.  Returns the number of records. */
static int write_lines(const char *dir, const char *name, int lines)
{
	char p[600];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *fp = fopen(p, "w");
	assert_non_null(fp);
	int recs = 0;
	for (int i = 1; i <= lines; i++) {
		if (i % 7 == 0) {
			fputs(i % 5 == 0 ? "\r\n" : "\n", fp);
			continue;
		}
		fprintf(fp, "{\"name\": \"%.*s\", \"n\": %d}%s", i % 13, "abcdefghijklmnop", i,
		        i == lines ? "" : i % 5 == 0 ? "\r\n" : "\n");
		recs++;
	}
	fclose(fp);
	return recs;
}

static void set_split_bytes(long long n)
{
	char v[32];
	snprintf(v, sizeof v, "%lld", n);
	setenv("SLUICE_TEST_SPLIT_BYTES", v, 1);
}

/* Every record exactly once, per split in file order, `where` naming the
 * record's line in the whole file (n = line). */
static void check_all(const got *g, int recs, int lines)
{
	assert_int_equal(g->n, recs);
	static char seen[MAXROWS];
	memset(seen, 0, sizeof seen);
	for (int i = 0; i < g->n; i++) {
		assert_true(g->v[i] >= 1 && g->v[i] <= lines);
		assert_int_equal(seen[g->v[i]], 0);
		seen[g->v[i]] = 1;
		assert_int_equal(g->line[i], g->v[i]);
		for (int j = i - 1; j >= 0; j--)
			if (g->split[j] == g->split[i]) {
				assert_true(g->v[j] < g->v[i]);
				break;
			}
	}
}

static void test_ranges_every_cut(void **state)
{
	(void)state;
	char *d = subdir("ranges");
	int lines = 300, recs = write_lines(d, "in.jsonl", lines);
	char p[600];
	snprintf(p, sizeof p, "%s/in.jsonl", d);
	static const long long sizes[] = {1, 2, 3, 17, 29, 30, 31, 64, 100, 1000, 1 << 20};
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		set_split_bytes(sizes[k]);
		fx f;
		sl_err err;
		fx_init(&f, "json", p);
		sl_source *s = fx_source(&f, &err);
		assert_non_null(s);
		assert_true(sizes[k] >= (1 << 20) ? s->nsplits == 1 : s->nsplits > 1);
		static got g;
		g.n = g.seeds = 0;
		assert_int_equal(read_some(s, 2 + (int)k % 4 * 3, -1, &g), SL_EEOF);
		check_all(&g, recs, lines);
		for (int i = 1; i < g.n; i++) /* the ranges of a file in order */
			assert_true(g.v[i] > g.v[i - 1]);
		for (int i = 0; i < s->nsplits; i++)
			assert_int_equal(s->split_done[i], 1);
		sl_source_free(s);
		sl_arena_deinit(&f.arena);
	}
	unsetenv("SLUICE_TEST_SPLIT_BYTES");
}

/*
 * Seeds: before any row, each range k > 0 gets one seed row, the last
 * line that starts before the range (the line holding byte start - 1),
 * unless that line is empty (it does not decode: no seed, -infinity).
 * Checked against the file's text for every cut size, at parallelism 1, 2
 * and 3 (each instance seeds the ranges it owns, by their starts); a
 * range whose watermark is already set (restored) gets none.
 */
static void test_seeds(void **state)
{
	(void)state;
	char *d = subdir("seeds");
	int lines = 300;
	write_lines(d, "in.jsonl", lines);
	char p[600];
	snprintf(p, sizeof p, "%s/in.jsonl", d);
	static char text[65536];
	FILE *fp = fopen(p, "rb");
	assert_non_null(fp);
	size_t len = fread(text, 1, sizeof text, fp);
	fclose(fp);
	static const long long sizes[] = {1, 2, 3, 17, 29, 30, 31, 64, 100, 1000};
	for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
	for (int np = 1; np <= 3; np++)
	for (int inst = 0; inst < np; inst++) {
		set_split_bytes(sizes[z]);
		fx f;
		sl_err err;
		fx_init(&f, "json", p);
		sl_source *s = fx_instance(&f, inst, np, &err);
		assert_non_null(s);
		static got g;
		g.n = g.seeds = 0;
		assert_int_equal(read_some(s, 7, -1, &g), SL_EEOF);
		int want = 0;
		for (int j = 0; j < s->nsplits; j++) {
			long long start = split_start(s, j);
			if (start == 0)
				continue;
			assert_int_equal(start % sizes[z], 0);
			size_t at = (size_t)start - 1; /* the line holding it */
			size_t b = at;
			while (b > 0 && text[b - 1] != '\n')
				b--;
			int blank = text[b] == '\n' || text[b] == '\r';
			int line = 1;
			for (size_t i = 0; i < b; i++)
				line += text[i] == '\n';
			int found = -1;
			for (int i = 0; i < g.seeds; i++)
				if (g.seed_split[i] == j)
					found = i;
			if (blank) {
				assert_int_equal(found, -1);
				continue;
			}
			assert_true(found >= 0);
			assert_int_equal(g.seed_v[found], line);
			assert_int_equal(g.seed_at[found], 0); /* before any row */
			want++;
		}
		assert_int_equal(g.seeds, want);
		assert_true(len > 0 && (want > 0 || s->nsplits <= 1));
		sl_source_free(s);
		/* a range whose watermark is set gets no seed */
		s = fx_instance(&f, inst, np, &err);
		for (int i = 0; i < s->nsplits; i++)
			s->split_wm[i] = 7;
		g.n = g.seeds = 0;
		assert_int_equal(read_some(s, 7, -1, &g), SL_EEOF);
		assert_int_equal(g.seeds, 0);
		sl_source_free(s);
		sl_arena_deinit(&f.arena);
	}
	unsetenv("SLUICE_TEST_SPLIT_BYTES");
}

/* A bad record in a range past the first: the error names its line in the
 * whole file. */
static void test_range_error_line(void **state)
{
	(void)state;
	char *d = subdir("rangeerr");
	char text[4096] = "";
	for (int i = 1; i <= 40; i++)
		snprintf(text + strlen(text), sizeof text - strlen(text),
		         i == 33 ? "{\"name\": \"x\", \"n\": oops}\n" : "{\"name\": \"x\", \"n\": %d}\n", i);
	write_file(d, "bad.jsonl", text);
	char p[600];
	snprintf(p, sizeof p, "%s/bad.jsonl", d);
	set_split_bytes(200);
	fx f;
	sl_err err;
	fx_init(&f, "json", p);
	sl_source *s = fx_source(&f, &err);
	assert_non_null(s);
	sl_batch *b = sl_batch_new(2, f.types, 0);
	int rc;
	do {
		sl_batch_reset(b);
		sl_err_clear(&err);
		rc = s->vt->read(s, b, &err);
	} while (rc > 0);
	assert_int_equal(rc, SL_EINPUT);
	assert_non_null(strstr(err.msg, "bad.jsonl', line 33:"));
	sl_batch_free(b);
	sl_source_free(s);
	sl_arena_deinit(&f.arena);
	unsetenv("SLUICE_TEST_SPLIT_BYTES");
}

/* A changelog file is never cut (per-key order stays in one split); a
 * json table with a PRIMARY KEY is not either. */
static void test_changelog_not_cut(void **state)
{
	(void)state;
	char *d = subdir("cdcsplit");
	char text[8192] = "";
	for (int i = 1; i <= 50; i++)
		snprintf(text + strlen(text), sizeof text - strlen(text),
		         "{\"before\":null,\"after\":{\"name\":\"a\",\"n\":%d},\"op\":\"c\"}\n", i);
	write_file(d, "dbz.json", text);
	char p[600];
	snprintf(p, sizeof p, "%s/dbz.json", d);
	set_split_bytes(100);
	fx f;
	sl_err err;
	fx_init(&f, "debezium-json", p);
	sl_source *s = fx_source(&f, &err);
	assert_non_null(s);
	assert_int_equal(s->nsplits, 1);
	sl_source_free(s);
	sl_arena_deinit(&f.arena);

	fx_init(&f, "json", p);
	sl_conn_args a = fx_args(&f);
	int pk = 1;
	a.pk = &pk;
	a.npk = 1;
	s = sl_source_new_open(&sl_filesystem_source_vtab, &a, &err);
	assert_non_null(s);
	assert_int_equal(s->nsplits, 1);
	sl_source_free(s);
	sl_arena_deinit(&f.arena);
	unsetenv("SLUICE_TEST_SPLIT_BYTES");
}

/* Several files, the last one cut into ranges, read with small batches:
 * a snapshot after every batch restored into a new source (the split
 * watermarks travel too) gives exactly the rows, in the order, of the
 * uninterrupted run; the splits are read interleaved. */
static void test_restore_every_batch(void **state)
{
	(void)state;
	char *d = subdir("splitsdir");
	int recs = write_lines(d, "a.jsonl", 120) + write_lines(d, "b.jsonl", 90) +
	           write_lines(d, "c.jsonl", 500);
	(void)recs;
	set_split_bytes(4000); /* a and b: one split each; c: several; turns of 4000 bytes */
	fx f;
	sl_err err;
	fx_init(&f, "json", d);
	sl_source *s = fx_source(&f, &err);
	assert_non_null(s);
	assert_true(s->nsplits >= 4);
	static got ref, run;
	ref.n = run.n = 0;
	assert_int_equal(read_some(s, 5, -1, &ref), SL_EEOF);
	sl_source_free(s);
	/* interleaved: the second split's first row comes before the first
	 * split's last */
	int first_b = -1, last_a = -1;
	for (int i = 0; i < ref.n; i++) {
		if (ref.split[i] == 1 && first_b < 0)
			first_b = i;
		if (ref.split[i] == 0)
			last_a = i;
	}
	assert_true(first_b >= 0 && first_b < last_a);

	s = fx_source(&f, &err);
	for (int i = 0; i < s->nsplits; i++)
		s->split_wm[i] = 1000 + i; /* stands for the scan's watermarks */
	int steps = 0;
	for (;;) {
		int rc = read_some(s, 5, 1, &run);
		if (rc == SL_EEOF)
			break;
		assert_true(rc >= 0);
		sl_snap_writer w;
		sl_snap_writer_init(&w);
		assert_int_equal(s->vt->snapshot(s, &w, &err), 0);
		int nsplits = s->nsplits;
		sl_source_free(s);
		s = fx_source(&f, &err);
		assert_non_null(s);
		sl_snap_reader r;
		sl_snap_reader_init(&r, w.buf, w.len);
		assert_int_equal(s->vt->restore(s, &r, &err), 0);
		sl_snap_writer_deinit(&w);
		assert_int_equal(s->nsplits, nsplits);
		for (int i = 0; i < s->nsplits; i++)
			assert_int_equal(s->split_wm[i], 1000 + i);
		steps++;
	}
	assert_true(steps > 10);
	assert_int_equal(run.n, ref.n);
	for (int i = 0; i < ref.n; i++) {
		assert_int_equal(run.v[i], ref.v[i]);
		assert_int_equal(run.split[i], ref.split[i]);
		assert_int_equal(run.line[i], ref.line[i]);
	}
	sl_source_free(s);
	sl_arena_deinit(&f.arena);
	unsetenv("SLUICE_TEST_SPLIT_BYTES");
}

/* A version-1 snapshot (u8 1, file index, name, offset, line: one stream
 * over the files in name order) restores onto the splits: the files
 * before the named one are done, the named one resumes at the offset with
 * the stream's watermark (put in split_wm by the scan before restore),
 * the later ones start afresh at -infinity. */
static void test_restore_v1(void **state)
{
	(void)state;
	char *d = subdir("v1dir");
	write_file(d, "a.jsonl", "{\"name\": \"a\", \"n\": 1}\n{\"name\": \"a\", \"n\": 2}\n");
	write_file(d, "b.jsonl", "{\"name\": \"b\", \"n\": 3}\n{\"name\": \"b\", \"n\": 4}\n"
	                         "{\"name\": \"b\", \"n\": 5}\n");
	write_file(d, "c.jsonl", "{\"name\": \"c\", \"n\": 6}\n");
	fx f;
	sl_err err;
	fx_init(&f, "json", d);
	sl_source *s = fx_source(&f, &err);
	assert_non_null(s);
	assert_int_equal(s->nsplits, 3);
	for (int i = 0; i < 3; i++)
		s->split_wm[i] = 777; /* the scan's restored stream watermark */
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	sl_snap_put_u8(&w, 1);
	sl_snap_put_u32(&w, 1);
	sl_snap_put_bytes(&w, "b.jsonl", 7);
	sl_snap_put_i64(&w, 22); /* after b's first line */
	sl_snap_put_i64(&w, 1);
	sl_snap_reader r;
	sl_snap_reader_init(&r, w.buf, w.len);
	assert_int_equal(s->vt->restore(s, &r, &err), 0);
	sl_snap_writer_deinit(&w);
	assert_int_equal(s->split_done[0], 1);
	assert_int_equal(s->split_done[1], 0);
	assert_int_equal(s->split_wm[1], 777);
	assert_int_equal(s->split_wm[2], SL_WM_MIN);
	static got g;
	g.n = 0;
	assert_int_equal(read_some(s, 10, -1, &g), SL_EEOF);
	char out[64] = "";
	for (int i = 0; i < g.n; i++)
		snprintf(out + strlen(out), sizeof out - strlen(out), "%s%lld@%lld", i ? " " : "",
		         g.v[i], g.line[i]);
	assert_string_equal(out, "4@2 5@3 6@1");
	sl_source_free(s);
	sl_arena_deinit(&f.arena);
}

/* Row key: file letter and line. */
static long long row_key(const got *g, int i)
{
	return (long long)g->file[i] * 1000000 + g->line[i];
}

/* Reads instance inst of np to the end into g (appending); checks that
 * the rows of each file come in line order (a split's rows in file order,
 * and the ranges an instance owns of a file one after the other). */
static void read_instance(fx *f, int inst, int np, int cap, got *g)
{
	sl_err err;
	sl_source *s = fx_instance(f, inst, np, &err);
	assert_non_null(s);
	int from = g->n;
	assert_int_equal(read_some(s, cap, -1, g), SL_EEOF);
	for (int i = from; i < g->n; i++)
		for (int j = i - 1; j >= from; j--)
			if (g->file[j] == g->file[i]) {
				assert_true(g->line[j] < g->line[i]);
				break;
			}
	sl_source_free(s);
}

/* The rows of g[0..n) are those of ref, each once. */
static void check_same_rows(const got *ref, const got *g)
{
	static char seen[MAXROWS];
	assert_int_equal(g->n, ref->n);
	memset(seen, 0, sizeof seen);
	for (int i = 0; i < g->n; i++) {
		int at = -1;
		for (int j = 0; j < ref->n && at < 0; j++)
			if (row_key(ref, j) == row_key(g, i))
				at = j;
		assert_true(at >= 0);
		assert_int_equal(seen[at], 0);
		seen[at] = 1;
		assert_int_equal(g->v[i], ref->v[at]);
	}
}

/*
 * Parallel instances (docs/parallel.md §4 rule 5): at parallelism 1, 2, 3
 * and 5 (more instances than some files have splits, one instance with
 * none), for a directory of three files the last cut into ranges and for
 * one large file: every instance reads only its splits (split k of the
 * whole order to the instance range_owner gives it), the union of the instances' rows is the
 * rows at parallelism 1, each once, each file's rows in line order within
 * an instance; an instance without a split ends at once.
 */
static void test_instances_union(void **state)
{
	(void)state;
	char *d = subdir("instdir");
	write_lines(d, "a.jsonl", 120);
	write_lines(d, "b.jsonl", 90);
	write_lines(d, "c.jsonl", 500);
	char big[600];
	snprintf(big, sizeof big, "%s/c.jsonl", d);
	char dir[600];
	snprintf(dir, sizeof dir, "%s", d); /* subdir's buffer is reused */
	const char *paths[2] = {dir, big};
	set_split_bytes(2000);
	for (int pi = 0; pi < 2; pi++) {
		fx f;
		fx_init(&f, "json", paths[pi]);
		static got ref, g;
		ref.n = ref.seeds = 0;
		read_instance(&f, 0, 1, 7, &ref);
		assert_true(ref.n > 400);
		static const int ps[] = {2, 3, 5};
		for (size_t z = 0; z < sizeof ps / sizeof ps[0]; z++) {
			int np = ps[z], total = 0;
			g.n = g.seeds = 0;
			for (int i = 0; i < np; i++) {
				sl_err err;
				sl_source *s = fx_instance(&f, i, np, &err);
				assert_non_null(s);
				total += s->nsplits;
				sl_source_free(s);
				read_instance(&f, i, np, 3 + i, &g);
			}
			sl_err err;
			sl_source *s1 = fx_instance(&f, 0, 1, &err);
			assert_int_equal(total, s1->nsplits); /* every split to one instance */
			sl_source_free(s1);
			check_same_rows(&ref, &g);
		}
		sl_arena_deinit(&f.arena);
	}
	/* one file of one split at parallelism 3: instances 1 and 2 end at once */
	fx f;
	fx_init(&f, "json", big);
	unsetenv("SLUICE_TEST_SPLIT_BYTES");
	for (int i = 1; i < 3; i++) {
		sl_err err;
		sl_source *s = fx_instance(&f, i, 3, &err);
		assert_non_null(s);
		assert_int_equal(s->nsplits, 0);
		static got g;
		g.n = 0;
		assert_int_equal(read_some(s, 5, -1, &g), SL_EEOF);
		assert_int_equal(g.n, 0);
		sl_source_free(s);
	}
	sl_err err;
	assert_null(fx_instance(&f, 3, 3, &err));
	assert_non_null(strstr(err.msg, "instance 3 of 3"));
	sl_arena_deinit(&f.arena);
}

/*
 * Restore at another parallelism: the instances of a run at p read some
 * batches each and take snapshots; every instance of a run at p' gets all
 * of them (conn.h) and reads to the end.  The rows before the snapshots
 * and after the restore are the rows at parallelism 1, each once, for
 * every p, p' in 1..3; every split's watermark comes back under its id
 * (the scan's overwriting of split_wm before each restore call emulated).
 * Without one of the snapshots the first read refuses.
 */
static void test_instances_rescale(void **state)
{
	(void)state;
	char *d = subdir("rescaledir");
	write_lines(d, "a.jsonl", 120);
	write_lines(d, "b.jsonl", 90);
	write_lines(d, "c.jsonl", 500);
	set_split_bytes(2000);
	fx f;
	fx_init(&f, "json", d);
	static got ref, g;
	ref.n = 0;
	read_instance(&f, 0, 1, 7, &ref);
	for (int p = 1; p <= 3; p++)
	for (int q = 1; q <= 3; q++) {
		sl_snap_writer w[3];
		sl_err err;
		g.n = g.seeds = 0;
		for (int i = 0; i < p; i++) {
			sl_source *s = fx_instance(&f, i, p, &err);
			assert_non_null(s);
			for (int j = 0; j < s->nsplits; j++)
				s->split_wm[j] = split_id(s, j); /* by the split's id */
			read_some(s, 4, 2 + 3 * i, &g);
			sl_snap_writer_init(&w[i]);
			assert_int_equal(s->vt->snapshot(s, &w[i], &err), 0);
			sl_source_free(s);
		}
		assert_true(g.n > 0 && g.n < ref.n);
		for (int i = 0; i < q; i++) {
			sl_source *s = fx_instance(&f, i, q, &err);
			assert_non_null(s);
			for (int k = p - 1; k >= 0; k--) { /* any order */
				for (int j = 0; j < s->nsplits; j++)
					s->split_wm[j] = 777; /* as op_scan.c's restore does */
				sl_snap_reader r;
				sl_snap_reader_init(&r, w[k].buf, w[k].len);
				assert_int_equal(s->vt->restore(s, &r, &err), 0);
			}
			for (int j = 0; j < s->nsplits; j++)
				assert_int_equal(s->split_wm[j], split_id(s, j));
			int from = g.n;
			assert_int_equal(read_some(s, 5, -1, &g), SL_EEOF);
			for (int a = from; a < g.n; a++)
				for (int b = a - 1; b >= from; b--)
					if (g.file[b] == g.file[a]) {
						assert_true(g.line[b] < g.line[a]);
						break;
					}
			sl_source_free(s);
		}
		check_same_rows(&ref, &g);
		if (p > 1) { /* a missing snapshot is refused at the first read */
			sl_source *s = fx_instance(&f, 0, q, &err);
			sl_snap_reader r;
			sl_snap_reader_init(&r, w[0].buf, w[0].len);
			assert_int_equal(s->vt->restore(s, &r, &err), 0);
			sl_batch *b = sl_batch_new(2, f.types, 0);
			assert_int_equal(s->vt->read(s, b, &err), SL_ESTATE);
			assert_non_null(strstr(err.msg, "snapshots of 1 of the"));
			sl_batch_free(b);
			sl_source_free(s);
			/* the same instance's snapshot twice is refused at once */
			s = fx_instance(&f, 0, q, &err);
			for (int k = 0; k < 2; k++) {
				sl_snap_reader_init(&r, w[1].buf, w[1].len);
				int rc = s->vt->restore(s, &r, &err);
				assert_int_equal(rc, k ? SL_ESTATE : 0);
			}
			sl_source_free(s);
		}
		for (int i = 0; i < p; i++)
			sl_snap_writer_deinit(&w[i]);
	}
	sl_arena_deinit(&f.arena);
	unsetenv("SLUICE_TEST_SPLIT_BYTES");
}

/*
 * A snapshot taken with another split size restores at the positions it
 * names (fss_restore cuts the files at the snapshot's size, recorded since
 * version 4): a run cutting at 2000 bytes, at parallelism 1 and 2,
 * snapshots after a few batches and is restored by a source of a build
 * cutting at 3000 (at parallelism 2 and 1): every record once.  Then a
 * version-2 snapshot (written before version 4: the files were cut at 64
 * MiB) of a 17 MB file, one split started past 16 MiB, restores at its
 * offset instead of reading the second 16 MiB range again (the test the
 * move from 64 to 16 MiB needed: without the recut, the rows from 16 MiB
 * on came twice).
 */
static void test_restore_other_cut(void **state)
{
	(void)state;
	char *d = subdir("cutdir");
	int lines = 500, recs = write_lines(d, "c.jsonl", lines);
	fx f;
	sl_err err;
	fx_init(&f, "json", d);
	for (int p = 1; p <= 2; p++) {
		static got g;
		g.n = g.seeds = 0;
		sl_snap_writer w[2];
		set_split_bytes(2000);
		for (int i = 0; i < p; i++) {
			sl_source *s = fx_instance(&f, i, p, &err);
			assert_non_null(s);
			read_some(s, 4, 3 + i, &g);
			sl_snap_writer_init(&w[i]);
			assert_int_equal(s->vt->snapshot(s, &w[i], &err), 0);
			sl_source_free(s);
		}
		set_split_bytes(3000);
		int q = 3 - p;
		for (int i = 0; i < q; i++) {
			sl_source *s = fx_instance(&f, i, q, &err);
			assert_non_null(s);
			for (int k = 0; k < p; k++) {
				sl_snap_reader r;
				sl_snap_reader_init(&r, w[k].buf, w[k].len);
				assert_int_equal(s->vt->restore(s, &r, &err), 0);
			}
			for (int j = 0; j < s->nsplits; j++)
				assert_int_equal(split_start(s, j) % 2000, 0);
			assert_int_equal(read_some(s, 5, -1, &g), SL_EEOF);
			sl_source_free(s);
		}
		for (int i = 0; i < p; i++)
			sl_snap_writer_deinit(&w[i]);
		assert_int_equal(g.n, recs);
		static char seen[MAXROWS];
		memset(seen, 0, sizeof seen);
		for (int i = 0; i < g.n; i++) {
			assert_int_equal(seen[g.v[i]], 0);
			seen[g.v[i]] = 1;
		}
	}
	unsetenv("SLUICE_TEST_SPLIT_BYTES");
	sl_arena_deinit(&f.arena);

	d = subdir("cutv2");
	char path[600];
	snprintf(path, sizeof path, "%s/big.jsonl", d);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	static char pad[1001];
	memset(pad, 'x', 1000);
	long long off = 0, resume = -1;
	for (int i = 1; i <= 17000; i++) {
		if (i == 16950)
			resume = off;
		off += fprintf(fp, "{\"name\": \"%s\", \"n\": %d}\n", pad, i);
	}
	fclose(fp);
	assert_true(resume > 16 * 1024 * 1024 && off < 64 * 1024 * 1024);
	fx_init(&f, "json", d);
	sl_source *s = fx_source(&f, &err);
	assert_non_null(s);
	assert_int_equal(s->nsplits, 2); /* 16 MiB ranges */
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	sl_snap_put_u8(&w, 2);
	sl_snap_put_u32(&w, 0);     /* whose turn */
	sl_snap_put_i64(&w, -1);    /* turn end */
	sl_snap_put_u32(&w, 1);     /* one split: the whole file at 64 MiB */
	sl_snap_put_bytes(&w, "big.jsonl", 9);
	sl_snap_put_i64(&w, 0);     /* start */
	sl_snap_put_u8(&w, 1);      /* started */
	sl_snap_put_i64(&w, 0);     /* first line */
	sl_snap_put_i64(&w, resume);
	sl_snap_put_i64(&w, 16949); /* lines consumed */
	sl_snap_put_i64(&w, 0);     /* lines before the origin */
	sl_snap_put_i64(&w, 4242);  /* watermark */
	sl_snap_reader r;
	sl_snap_reader_init(&r, w.buf, w.len);
	assert_int_equal(s->vt->restore(s, &r, &err), 0);
	sl_snap_writer_deinit(&w);
	assert_int_equal(s->nsplits, 1);
	assert_int_equal(s->split_wm[0], 4242);
	sl_batch *b = sl_batch_new(2, f.types, 64);
	long long n = 0, next = 16950;
	int rc;
	while ((rc = s->vt->read(s, b, &err)) >= 0) {
		for (int i = 0; !s->seed && i < b->nrows; i++, n++)
			assert_int_equal(b->cols[1].v.i64[i], next++);
		sl_batch_reset(b);
		if (rc == 0)
			break;
	}
	assert_int_equal(rc, SL_EEOF);
	assert_int_equal(n, 51);
	sl_batch_free(b);
	sl_source_free(s);
	sl_arena_deinit(&f.arena);
}

/* ---- the pool (docs/parallel.md §4.1) ------------------------------------- */

/* A run's share slot (conn.h), as prun.c makes one per plan node. */
static void share_init(sl_conn_share *sh)
{
	memset(sh, 0, sizeof *sh);
	pthread_mutex_init(&sh->mu, NULL);
}

static void share_free(sl_conn_share *sh)
{
	if (sh->p && sh->free_p)
		sh->free_p(sh->p);
	sh->p = NULL;
	pthread_mutex_destroy(&sh->mu);
}

/* Instance inst of np sharing sh (the pooled source of a parallel run). */
static sl_source *pool_instance(fx *f, int inst, int np, sl_conn_share *sh, sl_err *err)
{
	sl_conn_args a = fx_args(f);
	a.subtask = inst;
	a.nsubtasks = np;
	a.share = sh;
	sl_err_clear(err);
	return sl_source_new_open(&sl_filesystem_source_vtab, &a, err);
}

/* Reads the instances s[0..np) in turns until every one ended: in each
 * round instance i reads turns[i] batches of 4 rows (0: it waits), into
 * g[i].  Checks that each file's rows come in line order per instance. */
static void pool_read_all(sl_source **s, int np, const int *turns, got *g)
{
	int ended[8] = {0}, left = np, from[8];
	for (int i = 0; i < np; i++)
		from[i] = g[i].n;
	while (left) {
		for (int i = 0; i < np; i++) {
			if (ended[i] || !turns[i])
				continue;
			if (read_some(s[i], 4, turns[i], &g[i]) == SL_EEOF) {
				ended[i] = 1;
				left--;
			}
		}
		int active = 0;
		for (int i = 0; i < np; i++)
			active += !ended[i] && turns[i];
		if (!active && left) { /* only waiting ones are left: they read now */
			static const int one[8] = {1, 1, 1, 1, 1, 1, 1, 1};
			turns = one;
		}
	}
	for (int i = 0; i < np; i++)
		for (int a = from[i]; a < g[i].n; a++)
			for (int b = a - 1; b >= from[i]; b--)
				if (g[i].file[b] == g[i].file[a]) {
					assert_true(g[i].line[b] < g[i].line[a]);
					break;
				}
}

/* Appends the rows of src[0..n) to dst. */
static void got_append(got *dst, const got *src, int n)
{
	for (int i = 0; i < n; i++) {
		assert_true(dst->n < MAXROWS);
		dst->v[dst->n] = src->v[i];
		dst->split[dst->n] = src->split[i];
		dst->line[dst->n] = src->line[i];
		dst->file[dst->n] = src->file[i];
		dst->n++;
	}
}

/* Rows of file letter c in g. */
static int rows_of(const got *g, char c)
{
	int n = 0;
	for (int i = 0; i < g->n; i++)
		n += g->file[i] == c;
	return n;
}

/*
 * The pool: a directory of two small files and one cut into about 20
 * ranges (in test_pool_checkpoints, a second one cut into 3), read by 2 and 3 instances sharing a slot, in turns: every record
 * once (the union of the instances' rows is the rows at parallelism 1),
 * each file's rows in line order per instance; when instance 0 reads one
 * batch for every eight of the others (a slowed instance), it reads fewer
 * of the cut file's rows than instance 1 (the others took more ranges);
 * whole files stay assigned statically (each instance reads the same
 * whole files as without the pool).
 */
static void test_pool_balance(void **state)
{
	(void)state;
	char *d = subdir("pooldir");
	write_lines(d, "a.jsonl", 30); /* whole files (under 1000 bytes) */
	write_lines(d, "b.jsonl", 20);
	write_lines(d, "c.jsonl", 900);
	set_split_bytes(1000);
	fx f;
	fx_init(&f, "json", d);
	static got ref, all, g[3];
	ref.n = 0;
	read_instance(&f, 0, 1, 7, &ref);
	for (int np = 2; np <= 3; np++)
		for (int skew = 0; skew < 2; skew++) {
			sl_conn_share sh;
			share_init(&sh);
			sl_source *s[3];
			sl_err err;
			for (int i = 0; i < np; i++) {
				s[i] = pool_instance(&f, i, np, &sh, &err);
				assert_non_null(s[i]);
				g[i].n = g[i].seeds = 0;
			}
			int turns[3] = {1, skew ? 8 : 1, skew ? 8 : 1};
			pool_read_all(s, np, turns, g);
			all.n = 0;
			for (int i = 0; i < np; i++) {
				got_append(&all, &g[i], g[i].n);
				sl_source *st = fx_instance(&f, i, np, &err); /* static: same whole files */
				static got w;
				w.n = w.seeds = 0;
				assert_int_equal(read_some(st, 5, -1, &w), SL_EEOF);
				assert_int_equal(rows_of(&g[i], 'a'), rows_of(&w, 'a'));
				assert_int_equal(rows_of(&g[i], 'b'), rows_of(&w, 'b'));
				sl_source_free(st);
			}
			check_same_rows(&ref, &all);
			if (skew)
				assert_true(rows_of(&g[0], 'c') * 2 < rows_of(&g[1], 'c'));
			for (int i = 0; i < np; i++)
				sl_source_free(s[i]);
			share_free(&sh);
		}
	sl_arena_deinit(&f.arena);
	unsetenv("SLUICE_TEST_SPLIT_BYTES");
}

/*
 * Checkpoints with the pool (docs/parallel.md §4.1): three generations of
 * runs, each a restore of the one before: at parallelism 2, then 3, then
 * 1 or 2 to the end.  In a run that is stopped, every instance takes its
 * snapshot at another moment (its barrier) and reads on after it (what it
 * reads then, ranges it takes from the pool then included, is not
 * committed: the run is killed); the committed rows are each instance's
 * rows up to its snapshot.  All generations' committed rows are the rows at
 * parallelism 1, each once: a range no snapshot shows taken goes back to
 * the pool, a range a restored run never took keeps the position the run
 * restored (every instance's snapshot names it so).
 */
static void test_pool_checkpoints(void **state)
{
	(void)state;
	char *d = subdir("poolckdir");
	write_lines(d, "a.jsonl", 120);
	write_lines(d, "c.jsonl", 900);
	set_split_bytes(1000);
	fx f;
	fx_init(&f, "json", d);
	static got ref, committed, g[3];
	ref.n = 0;
	read_instance(&f, 0, 1, 7, &ref);
	for (int last = 1; last <= 2; last++) {
		static const int pars[3] = {2, 3, 0};
		sl_snap_writer w[3];
		int nw = 0;
		committed.n = 0;
		for (int gen = 0; gen < 3; gen++) {
			int np = gen < 2 ? pars[gen] : last;
			sl_conn_share sh;
			share_init(&sh);
			sl_source *s[3];
			sl_err err;
			for (int i = 0; i < np; i++) {
				s[i] = pool_instance(&f, i, np, &sh, &err);
				assert_non_null(s[i]);
				for (int k = 0; k < nw; k++) {
					for (int j = 0; j < s[i]->nsplits; j++)
						s[i]->split_wm[j] = 777; /* as op_scan.c's restore does */
					sl_snap_reader r;
					sl_snap_reader_init(&r, w[k].buf, w[k].len);
					assert_int_equal(s[i]->vt->restore(s[i], &r, &err), 0);
				}
				g[i].n = g[i].seeds = 0;
			}
			for (int k = 0; k < nw; k++)
				sl_snap_writer_deinit(&w[k]);
			nw = 0;
			if (gen == 2) { /* to the end: all committed */
				static const int one[3] = {1, 1, 1};
				pool_read_all(s, np, one, g);
				for (int i = 0; i < np; i++)
					got_append(&committed, &g[i], g[i].n);
			} else {
				/* instance i reads (i + 1) * 3 batches, snapshots, then
				 * reads 6 more (after its barrier: not committed) while
				 * the later instances still read towards theirs */
				for (int i = 0; i < np; i++) {
					read_some(s[i], 4, (i + 1) * 3, &g[i]);
					got_append(&committed, &g[i], g[i].n);
					sl_snap_writer_init(&w[i]);
					assert_int_equal(s[i]->vt->snapshot(s[i], &w[i], &err), 0);
					read_some(s[i], 4, 6, &g[i]);
				}
				nw = np;
			}
			for (int i = 0; i < np; i++)
				sl_source_free(s[i]);
			share_free(&sh);
		}
		check_same_rows(&ref, &committed);
	}
	sl_arena_deinit(&f.arena);
	unsetenv("SLUICE_TEST_SPLIT_BYTES");
}

/*
 * Many pooled files (a directory of six files each cut into about 4
 * ranges): every pool stays where the instances found it while others
 * are made (before the fix, the pools moved when their array grew past 4,
 * and instances holding the old ones read ranges twice); every record
 * once at 2 and 3.
 */
static void test_pool_many_files(void **state)
{
	(void)state;
	char *d = subdir("poolmany");
	const char *names[] = {"a.jsonl", "b.jsonl", "c.jsonl", "d.jsonl", "e.jsonl", "f.jsonl"};
	for (int i = 0; i < 6; i++)
		write_lines(d, names[i], 150);
	set_split_bytes(1000);
	fx f;
	fx_init(&f, "json", d);
	static got ref, all, g[3];
	ref.n = 0;
	read_instance(&f, 0, 1, 7, &ref);
	for (int np = 2; np <= 3; np++) {
		sl_conn_share sh;
		share_init(&sh);
		sl_source *s[3];
		sl_err err;
		for (int i = 0; i < np; i++) {
			s[i] = pool_instance(&f, i, np, &sh, &err);
			assert_non_null(s[i]);
			g[i].n = g[i].seeds = 0;
		}
		static const int turns[3] = {1, 2, 3};
		pool_read_all(s, np, turns, g);
		all.n = 0;
		for (int i = 0; i < np; i++) {
			got_append(&all, &g[i], g[i].n);
			sl_source_free(s[i]);
		}
		check_same_rows(&ref, &all);
		share_free(&sh);
	}
	sl_arena_deinit(&f.arena);
	unsetenv("SLUICE_TEST_SPLIT_BYTES");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges_every_cut),
		cmocka_unit_test(test_seeds),
		cmocka_unit_test(test_range_error_line),
		cmocka_unit_test(test_changelog_not_cut),
		cmocka_unit_test(test_restore_every_batch),
		cmocka_unit_test(test_restore_v1),
		cmocka_unit_test(test_instances_union),
		cmocka_unit_test(test_instances_rescale),
		cmocka_unit_test(test_restore_other_cut),
		cmocka_unit_test(test_pool_balance),
		cmocka_unit_test(test_pool_checkpoints),
		cmocka_unit_test(test_pool_many_files),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
