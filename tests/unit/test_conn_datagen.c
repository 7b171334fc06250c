/*
 * test_conn_datagen.c - the 'datagen' source and the 'blackhole' sink
 * through their method tables: determinism (same options, same rows,
 * whatever the batch size), sequence bounds and end of input,
 * number-of-rows, random ranges, null-rate, snapshot/restore of the
 * generator state, a bounded generator cut into chunks (splits, read in
 * turns, restored after every batch; an unchunked snapshot onto chunks),
 * parallel instances (each generates its chunks, the union is the rows at
 * parallelism 1; restores at another parallelism), option errors, and
 * throughput into blackhole.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>

#include "connector/conn.h"
#include "sluice.h"

typedef struct fixture {
	sl_arena arena;
	sl_opts opts;
	sl_field fields[8];
	int nfields;
	sl_type types[8];
} fixture;

static void fx_init(fixture *f)
{
	memset(f, 0, sizeof *f);
	sl_arena_init(&f->arena, 0);
	sl_opts_init(&f->opts, &f->arena);
	sl_opts_set(&f->opts, "connector", "datagen");
	sl_opts_set(&f->opts, "rows-per-second", "0");
}

static void fx_field(fixture *f, const char *name, sl_type t)
{
	f->fields[f->nfields].name = name;
	f->fields[f->nfields].type = t;
	f->types[f->nfields] = t;
	f->nfields++;
}

static sl_source *fx_open(fixture *f, sl_err *err)
{
	sl_conn_args a = {.table = "gen", .fields = f->fields, .nfields = f->nfields,
	                  .opts = &f->opts, .tz = "UTC"};
	const sl_source_vtab *vt = sl_source_find(sl_opts_get(&f->opts, "connector"));
	assert_non_null(vt);
	sl_err_clear(err);
	return sl_source_new_open(vt, &a, err);
}

static void fx_deinit(fixture *f)
{
	sl_arena_deinit(&f->arena);
}

/* Reads every row (up to max) into flat arrays of column 0 (and 1). */
static int read_all(sl_source *s, fixture *f, int cap, int64_t *c0, int64_t *c1, int max)
{
	sl_batch *b = sl_batch_new(f->nfields, f->types, cap);
	sl_err err;
	int n = 0;
	for (;;) {
		sl_batch_reset(b);
		sl_err_clear(&err);
		int rc = s->vt->read(s, b, &err);
		if (rc == SL_EEOF)
			break;
		assert_true(rc > 0);
		for (int r = 0; r < b->nrows && n < max; r++, n++) {
			assert_int_equal(b->op[r], SL_INSERT);
			c0[n] = b->cols[0].null[r] ? -1 : b->cols[0].v.i64[r];
			if (c1)
				c1[n] = b->cols[1].null[r] ? -1 : b->cols[1].v.i64[r];
		}
		if (n >= max)
			break;
	}
	sl_batch_free(b);
	return n;
}

static void test_sequence_bounds(void **state)
{
	fixture f;
	sl_err err;
	int64_t v[200];
	fx_init(&f);
	fx_field(&f, "id", sl_type_make(SL_T_BIGINT));
	sl_opts_set(&f.opts, "fields.id.kind", "sequence");
	sl_opts_set(&f.opts, "fields.id.start", "5");
	sl_opts_set(&f.opts, "fields.id.end", "104");
	sl_source *s = fx_open(&f, &err);
	assert_non_null(s);
	assert_null(sl_opts_unused(&f.opts));
	int n = read_all(s, &f, 7, v, NULL, 200);
	assert_int_equal(n, 100);
	for (int i = 0; i < n; i++)
		assert_int_equal(v[i], 5 + i);
	assert_int_equal(s->rows_read, 100);
	sl_source_free(s);
	fx_deinit(&f);
}

static void test_number_of_rows_and_range(void **state)
{
	fixture f;
	sl_err err;
	int64_t v[2000], w[2000];
	fx_init(&f);
	fx_field(&f, "a", sl_type_make(SL_T_INT));
	fx_field(&f, "b", sl_type_make(SL_T_SMALLINT));
	sl_opts_set(&f.opts, "number-of-rows", "1500");
	sl_opts_set(&f.opts, "fields.a.min", "-3");
	sl_opts_set(&f.opts, "fields.a.max", "3");
	sl_source *s = fx_open(&f, &err);
	assert_non_null(s);
	int n = read_all(s, &f, 0, v, w, 2000);
	assert_int_equal(n, 1500);
	int seen[7] = {0};
	for (int i = 0; i < n; i++) {
		assert_true(v[i] >= -3 && v[i] <= 3);
		seen[v[i] + 3] = 1;
		assert_true(w[i] >= INT16_MIN && w[i] <= INT16_MAX);
	}
	for (int i = 0; i < 7; i++)
		assert_true(seen[i]);
	sl_source_free(s);
	fx_deinit(&f);
}

static void test_deterministic_any_batch_size(void **state)
{
	fixture f1, f2;
	sl_err err;
	static int64_t a0[5000], a1[5000], b0[5000], b1[5000];
	fx_init(&f1);
	fx_init(&f2);
	fixture *fs[2] = {&f1, &f2};
	for (int k = 0; k < 2; k++) {
		fx_field(fs[k], "x", sl_type_make(SL_T_BIGINT));
		fx_field(fs[k], "y", sl_type_make(SL_T_INT));
		sl_opts_set(&fs[k]->opts, "number-of-rows", "5000");
		sl_opts_set(&fs[k]->opts, "fields.y.null-rate", "0.3");
	}
	sl_source *s1 = fx_open(&f1, &err), *s2 = fx_open(&f2, &err);
	assert_int_equal(read_all(s1, &f1, 1024, a0, a1, 5000), 5000);
	assert_int_equal(read_all(s2, &f2, 37, b0, b1, 5000), 5000);
	assert_memory_equal(a0, b0, sizeof a0);
	assert_memory_equal(a1, b1, sizeof a1);
	int nulls = 0;
	for (int i = 0; i < 5000; i++)
		nulls += a1[i] == -1;
	assert_true(nulls > 1200 && nulls < 1800);
	sl_source_free(s1);
	sl_source_free(s2);
	/* another seed gives other rows */
	sl_opts_set(&f2.opts, "seed", "42");
	s2 = fx_open(&f2, &err);
	assert_non_null(s2);
	read_all(s2, &f2, 1024, b0, b1, 5000);
	assert_true(memcmp(a0, b0, sizeof a0) != 0);
	sl_source_free(s2);
	fx_deinit(&f1);
	fx_deinit(&f2);
}

static void test_snapshot_restore(void **state)
{
	fixture f;
	sl_err err;
	int64_t full0[300], full1[300], p0[300], p1[300];
	fx_init(&f);
	fx_field(&f, "id", sl_type_make(SL_T_INT));
	fx_field(&f, "r", sl_type_make(SL_T_BIGINT));
	sl_opts_set(&f.opts, "fields.id.kind", "sequence");
	sl_opts_set(&f.opts, "fields.id.start", "1");
	sl_opts_set(&f.opts, "fields.id.end", "300");
	sl_source *s = fx_open(&f, &err);
	assert_int_equal(read_all(s, &f, 50, full0, full1, 300), 300);
	sl_source_free(s);

	s = fx_open(&f, &err);
	assert_int_equal(read_all(s, &f, 50, p0, p1, 100), 100);
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	assert_int_equal(s->vt->snapshot(s, &w, &err), 0);
	sl_source_free(s);

	s = fx_open(&f, &err);
	sl_snap_reader r;
	sl_snap_reader_init(&r, w.buf, w.len);
	assert_int_equal(s->vt->restore(s, &r, &err), 0);
	assert_int_equal(read_all(s, &f, 50, p0 + 100, p1 + 100, 200), 200);
	assert_memory_equal(full0, p0, sizeof full0);
	assert_memory_equal(full1, p1, sizeof full1);
	sl_source_free(s);
	/* a damaged snapshot is refused */
	s = fx_open(&f, &err);
	sl_snap_reader_init(&r, w.buf, w.len / 2);
	sl_err_clear(&err);
	assert_int_equal(s->vt->restore(s, &r, &err), SL_ESTATE);
	sl_source_free(s);
	sl_snap_writer_deinit(&w);
	fx_deinit(&f);
}

/* Reads one batch of cap rows into c0/c1 at *n and the batch's split into
 * sp; returns the read code. */
static int read_one(sl_source *s, fixture *f, int cap, int64_t *c0, int64_t *c1, int *sp,
                    int *n)
{
	sl_batch *b = sl_batch_new(f->nfields, f->types, cap);
	sl_err err;
	sl_err_clear(&err);
	int rc = s->vt->read(s, b, &err);
	for (int r = 0; r < b->nrows; r++, (*n)++) {
		c0[*n] = b->cols[0].v.i64[r];
		c1[*n] = b->cols[1].v.i64[r];
		sp[*n] = s->split;
	}
	sl_batch_free(b);
	return rc;
}

/* A bounded generator of more rows than a chunk is cut into chunks
 * (splits, docs/parallel.md §4): here 5 chunks of 1000 rows (the test-only
 * SLUICE_TEST_DATAGEN_CHUNK_ROWS), read a batch from each in turn, each
 * batch of one chunk, chunk k's sequence starting at 1 + k * 1000; the
 * first chunk's rows are those of the unchunked generator; a snapshot
 * after every batch restored into a new source gives the same rows in the
 * same order with the chunks' watermarks; an unchunked snapshot (the
 * format before splits) restores onto the chunks; unbounded stays one
 * split. */
static void test_chunks(void **state)
{
	(void)state;
	enum { N = 5000 };
	static int64_t one0[N], one1[N], ref0[N], ref1[N], run0[N], run1[N];
	static int refsp[N], runsp[N];
	fixture f;
	sl_err err;
	fx_init(&f);
	fx_field(&f, "id", sl_type_make(SL_T_BIGINT));
	fx_field(&f, "r", sl_type_make(SL_T_BIGINT));
	sl_opts_set(&f.opts, "fields.id.kind", "sequence");
	sl_opts_set(&f.opts, "fields.id.start", "1");
	sl_opts_set(&f.opts, "fields.id.end", "5000");
	sl_source *s = fx_open(&f, &err);
	assert_int_equal(s->nsplits, 0); /* 5000 rows < 1 M: one split */
	assert_int_equal(read_all(s, &f, 300, one0, one1, N), N);
	sl_source_free(s);

	setenv("SLUICE_TEST_DATAGEN_CHUNK_ROWS", "1000", 1);
	s = fx_open(&f, &err);
	assert_int_equal(s->nsplits, 5);
	int n = 0, rc;
	while ((rc = read_one(s, &f, 300, ref0, ref1, refsp, &n)) > 0)
		;
	assert_int_equal(rc, SL_EEOF);
	assert_int_equal(n, N);
	static char seen[N + 1];
	int64_t next[5] = {1, 1001, 2001, 3001, 4001};
	for (int i = 0; i < N; i++) {
		assert_true(ref0[i] >= 1 && ref0[i] <= N && !seen[ref0[i]]);
		seen[ref0[i]] = 1;
		assert_int_equal((ref0[i] - 1) / 1000, refsp[i]);
		assert_int_equal(ref0[i], next[refsp[i]]++);
		if (refsp[i] == 0)
			assert_int_equal(ref1[i], one1[ref0[i] - 1]); /* chunk 0 = the old stream */
	}
	assert_true(refsp[300] == 1); /* the second batch is the second chunk's */
	sl_source_free(s);

	s = fx_open(&f, &err);
	for (int k = 0; k < 5; k++)
		s->split_wm[k] = 100 + k;
	n = 0;
	for (;;) {
		rc = read_one(s, &f, 300, run0, run1, runsp, &n);
		if (rc == SL_EEOF)
			break;
		assert_true(rc > 0);
		sl_snap_writer w;
		sl_snap_writer_init(&w);
		assert_int_equal(s->vt->snapshot(s, &w, &err), 0);
		sl_source_free(s);
		s = fx_open(&f, &err);
		sl_snap_reader r;
		sl_snap_reader_init(&r, w.buf, w.len);
		assert_int_equal(s->vt->restore(s, &r, &err), 0);
		sl_snap_writer_deinit(&w);
		for (int k = 0; k < 5; k++)
			assert_int_equal(s->split_wm[k], 100 + k);
	}
	assert_int_equal(n, N);
	assert_memory_equal(run0, ref0, sizeof ref0);
	assert_memory_equal(run1, ref1, sizeof ref1);
	assert_memory_equal(runsp, refsp, sizeof refsp);
	sl_source_free(s);

	/* an unchunked snapshot after 1500 rows: chunk 0 done, chunk 1 goes on
	 * at row 1501 with the old stream's watermark, the others from their
	 * starts at -infinity */
	unsetenv("SLUICE_TEST_DATAGEN_CHUNK_ROWS");
	s = fx_open(&f, &err);
	n = 0;
	assert_int_equal(read_all(s, &f, 500, run0, run1, 1500), 1500);
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	assert_int_equal(s->vt->snapshot(s, &w, &err), 0);
	sl_source_free(s);
	setenv("SLUICE_TEST_DATAGEN_CHUNK_ROWS", "1000", 1);
	s = fx_open(&f, &err);
	for (int k = 0; k < 5; k++)
		s->split_wm[k] = 777; /* the scan puts its watermark there before restore */
	sl_snap_reader r;
	sl_snap_reader_init(&r, w.buf, w.len);
	assert_int_equal(s->vt->restore(s, &r, &err), 0);
	sl_snap_writer_deinit(&w);
	assert_int_equal(s->split_done[0], 1);
	assert_int_equal(s->split_wm[1], 777);
	assert_int_equal(s->split_wm[2], SL_WM_MIN);
	n = 0;
	while ((rc = read_one(s, &f, 300, run0, run1, runsp, &n)) > 0)
		;
	assert_int_equal(n, N - 1500);
	memset(seen, 0, sizeof seen);
	for (int i = 0; i < n; i++) {
		assert_true(run0[i] > 1500 && !seen[run0[i]]);
		seen[run0[i]] = 1;
		if (run0[i] <= 2000)
			assert_int_equal(run1[i], one1[run0[i] - 1]); /* the old stream goes on */
	}

	sl_source_free(s);

	/* unbounded: one split; throttled: one split (a live stream, often a
	 * long sequence as a counter: tests/integration/signal_stop.sh) */
	fixture u;
	fx_init(&u);
	fx_field(&u, "id", sl_type_make(SL_T_BIGINT));
	s = fx_open(&u, &err);
	assert_int_equal(s->nsplits, 0);
	sl_source_free(s);
	sl_opts_set(&f.opts, "rows-per-second", "100");
	s = fx_open(&f, &err);
	assert_int_equal(s->nsplits, 0);
	sl_source_free(s);
	unsetenv("SLUICE_TEST_DATAGEN_CHUNK_ROWS");
	fx_deinit(&u);
	fx_deinit(&f);
}

static sl_source *fx_instance(fixture *f, int inst, int np, sl_err *err)
{
	sl_conn_args a = {.table = "gen", .fields = f->fields, .nfields = f->nfields,
	                  .opts = &f->opts, .tz = "UTC", .subtask = inst, .nsubtasks = np};
	sl_err_clear(err);
	return sl_source_new_open(sl_source_find("datagen"), &a, err);
}

typedef struct pair {
	int64_t a, b;
} pair;

static int cmp_pair(const void *x, const void *y)
{
	const pair *p = x, *q = y;
	return p->a != q->a ? (p->a < q->a ? -1 : 1) : p->b != q->b ? (p->b < q->b ? -1 : 1) : 0;
}

/* Reads s to the end (batches of cap, at most max rows when max >= 0),
 * appending (column 0, column 1) pairs at out[*n]; checks that each
 * split's column 0 goes up by one per row when seq is set.  Returns the
 * last read code. */
static int read_pairs(sl_source *s, fixture *f, int cap, int max, int seq, pair *out, int *n)
{
	static int64_t last[64];
	for (int i = 0; i < 64; i++)
		last[i] = -1;
	sl_batch *b = sl_batch_new(f->nfields, f->types, cap);
	sl_err err;
	int rc, got = 0;
	do {
		sl_batch_reset(b);
		sl_err_clear(&err);
		rc = s->vt->read(s, b, &err);
		for (int r = 0; r < b->nrows; r++, got++) {
			int64_t v = b->cols[0].v.i64[r];
			int sp = s->nsplits ? s->split : 0;
			assert_true(sp < 64);
			if (seq && last[sp] >= 0)
				assert_int_equal(v, last[sp] + 1);
			last[sp] = v;
			out[*n].a = v;
			out[(*n)++].b = b->cols[1].v.i64[r];
		}
	} while (rc > 0 && (max < 0 || got < max));
	sl_batch_free(b);
	return rc;
}

/*
 * Parallel instances (docs/parallel.md §4 rule 5): a sequence of 5000 rows
 * and a 'number-of-rows' generator of 4500 random rows, both cut into
 * chunks of 1000: at parallelism 2, 3 and 7 (two instances without a
 * chunk) instance i generates the chunks k with k % p == i, and the union
 * of the instances' rows is the rows at parallelism 1, each once, each
 * chunk's sequence in order.  A generator of one split (at most a chunk,
 * or throttled) is instance 0's: the others end at once.
 */
static void test_instances_union(void **state)
{
	(void)state;
	enum { N = 5000 };
	static pair ref[N], got[N];
	setenv("SLUICE_TEST_DATAGEN_CHUNK_ROWS", "1000", 1);
	for (int kind = 0; kind < 4; kind++) {
		fixture f;
		sl_err err;
		fx_init(&f);
		fx_field(&f, "id", sl_type_make(SL_T_BIGINT));
		fx_field(&f, "r", sl_type_make(SL_T_BIGINT));
		int rows = kind == 1 ? 4500 : kind == 2 ? 800 : N;
		if (kind != 1) {
			sl_opts_set(&f.opts, "fields.id.kind", "sequence");
			sl_opts_set(&f.opts, "fields.id.start", "1");
			sl_opts_set(&f.opts, "fields.id.end", kind == 2 ? "800" : "5000");
		} else {
			sl_opts_set(&f.opts, "number-of-rows", "4500");
		}
		if (kind == 3)
			sl_opts_set(&f.opts, "rows-per-second", "1000000");
		int nref = 0;
		sl_source *s = fx_instance(&f, 0, 1, &err);
		assert_int_equal(s->nsplits, kind == 0 ? 5 : kind == 1 ? 5 : 0);
		assert_int_equal(read_pairs(s, &f, 300, -1, kind != 1, ref, &nref), SL_EEOF);
		assert_int_equal(nref, rows);
		sl_source_free(s);
		qsort(ref, (size_t)nref, sizeof *ref, cmp_pair);
		static const int ps[] = {2, 3, 7};
		for (size_t z = 0; z < sizeof ps / sizeof ps[0]; z++) {
			int np = ps[z], n = 0;
			for (int i = 0; i < np; i++) {
				s = fx_instance(&f, i, np, &err);
				assert_non_null(s);
				int before = n;
				assert_int_equal(read_pairs(s, &f, 100 + 50 * i, -1, kind != 1, got, &n),
				                 SL_EEOF);
				if (kind >= 2 && i > 0)
					assert_int_equal(n, before); /* one split: instance 0's */
				if (kind < 2)
					assert_int_equal(s->nsplits, (5 - i + np - 1) / np);
				sl_source_free(s);
			}
			assert_int_equal(n, nref);
			qsort(got, (size_t)n, sizeof *got, cmp_pair);
			assert_memory_equal(got, ref, (size_t)n * sizeof *got);
		}
		fx_deinit(&f);
	}
	fixture f;
	sl_err err;
	fx_init(&f);
	fx_field(&f, "id", sl_type_make(SL_T_BIGINT));
	assert_null(fx_instance(&f, 2, 2, &err));
	assert_non_null(strstr(err.msg, "instance 2 of 2"));
	fx_deinit(&f);
	unsetenv("SLUICE_TEST_DATAGEN_CHUNK_ROWS");
}

/*
 * Restore at another parallelism: the instances of a run at p read some
 * batches and take snapshots; every instance of a run at q restores all of
 * them (conn.h) and reads to the end: the rows before and after are the
 * rows at parallelism 1, each once, for p, q in 1..3, for a chunked and a
 * one-split generator, and the chunks' watermarks come back by chunk
 * number (the scan's overwriting of split_wm emulated).  A missing
 * snapshot is refused at the first read; a chunk in two snapshots at once.
 */
static void test_instances_rescale(void **state)
{
	(void)state;
	enum { N = 5000 };
	static pair ref[N], got[N];
	setenv("SLUICE_TEST_DATAGEN_CHUNK_ROWS", "1000", 1);
	for (int kind = 0; kind < 2; kind++) {
		fixture f;
		sl_err err;
		fx_init(&f);
		fx_field(&f, "id", sl_type_make(SL_T_BIGINT));
		fx_field(&f, "r", sl_type_make(SL_T_BIGINT));
		sl_opts_set(&f.opts, "fields.id.kind", "sequence");
		sl_opts_set(&f.opts, "fields.id.start", "1");
		sl_opts_set(&f.opts, "fields.id.end", kind ? "900" : "5000");
		int nref = 0;
		sl_source *s = fx_instance(&f, 0, 1, &err);
		assert_int_equal(read_pairs(s, &f, 300, -1, 1, ref, &nref), SL_EEOF);
		sl_source_free(s);
		qsort(ref, (size_t)nref, sizeof *ref, cmp_pair);
		for (int p = 1; p <= 3; p++)
		for (int q = 1; q <= 3; q++) {
			sl_snap_writer w[3];
			int n = 0;
			for (int i = 0; i < p; i++) {
				s = fx_instance(&f, i, p, &err);
				for (int j = 0; j < s->nsplits; j++)
					s->split_wm[j] = 5000 + (long long)j * p + i; /* by chunk number */
				read_pairs(s, &f, 100, 100 + 200 * i, 1, got, &n);
				sl_snap_writer_init(&w[i]);
				assert_int_equal(s->vt->snapshot(s, &w[i], &err), 0);
				sl_source_free(s);
			}
			assert_true(n > 0 && n < nref);
			for (int i = 0; i < q; i++) {
				s = fx_instance(&f, i, q, &err);
				for (int k = 0; k < p; k++) {
					for (int j = 0; j < s->nsplits; j++)
						s->split_wm[j] = 777; /* as op_scan.c's restore does */
					sl_snap_reader r;
					sl_snap_reader_init(&r, w[(k + i) % p].buf, w[(k + i) % p].len);
					assert_int_equal(s->vt->restore(s, &r, &err), 0);
				}
				for (int j = 0; j < s->nsplits; j++)
					assert_int_equal(s->split_wm[j], 5000 + (long long)j * q + i);
				assert_int_equal(read_pairs(s, &f, 100, -1, 1, got, &n), SL_EEOF);
				sl_source_free(s);
			}
			assert_int_equal(n, nref);
			qsort(got, (size_t)n, sizeof *got, cmp_pair);
			assert_memory_equal(got, ref, (size_t)n * sizeof *got);
			if (p > 1) { /* instance 0 of q without the last old instance's snapshot */
				s = fx_instance(&f, 0, q, &err);
				for (int k = 0; k < p - 1; k++) {
					sl_snap_reader r;
					sl_snap_reader_init(&r, w[k].buf, w[k].len);
					assert_int_equal(s->vt->restore(s, &r, &err), 0);
				}
				sl_batch *b = sl_batch_new(f.nfields, f.types, 0);
				int rc = s->vt->read(s, b, &err);
				/* refused when it owns what the missing snapshot held */
				if (kind == 0 && q == 1)
					assert_int_equal(rc, SL_ESTATE);
				if (rc == SL_ESTATE)
					assert_non_null(strstr(err.msg, "no snapshot holds"));
				sl_batch_free(b);
				sl_source_free(s);
				s = fx_instance(&f, 0, q, &err); /* the same snapshot twice */
				for (int k = 0; k < 2; k++) {
					sl_snap_reader r;
					sl_snap_reader_init(&r, w[0].buf, w[0].len);
					assert_int_equal(s->vt->restore(s, &r, &err), k ? SL_ESTATE : 0);
				}
				sl_source_free(s);
			}
			for (int i = 0; i < p; i++)
				sl_snap_writer_deinit(&w[i]);
		}
		fx_deinit(&f);
	}
	unsetenv("SLUICE_TEST_DATAGEN_CHUNK_ROWS");
}

static void test_all_types(void **state)
{
	fixture f;
	sl_err err;
	fx_init(&f);
	fx_field(&f, "s", sl_type_varchar(SL_STRING_LEN));
	fx_field(&f, "d", sl_type_decimal(6, 2));
	fx_field(&f, "ts", sl_type_timestamp(SL_T_TIMESTAMP, 3));
	fx_field(&f, "f", sl_type_make(SL_T_DOUBLE));
	fx_field(&f, "v", sl_type_varchar(5));
	fx_field(&f, "q", sl_type_varchar(SL_STRING_LEN));
	fx_field(&f, "dt", sl_type_make(SL_T_DATE));
	fx_field(&f, "bo", sl_type_make(SL_T_BOOLEAN));
	sl_opts_set(&f.opts, "number-of-rows", "100");
	sl_opts_set(&f.opts, "fields.s.length", "10");
	sl_opts_set(&f.opts, "fields.d.min", "-1.5");
	sl_opts_set(&f.opts, "fields.d.max", "2.25");
	sl_opts_set(&f.opts, "fields.ts.max-past", "10 s");
	sl_opts_set(&f.opts, "fields.f.min", "0.5");
	sl_opts_set(&f.opts, "fields.f.max", "1.5");
	sl_opts_set(&f.opts, "fields.q.kind", "sequence");
	sl_opts_set(&f.opts, "fields.q.start", "98");
	sl_opts_set(&f.opts, "fields.q.end", "1000");
	sl_source *s = fx_open(&f, &err);
	assert_non_null(s);
	assert_null(sl_opts_unused(&f.opts));
	sl_batch *b = sl_batch_new(f.nfields, f.types, 0);
	assert_int_equal(s->vt->read(s, b, &err), 100);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t now_us = (int64_t)now.tv_sec * 1000000;
	for (int r = 0; r < 100; r++) {
		assert_int_equal(b->cols[0].v.str[r].len, 10);
		for (int i = 0; i < 10; i++)
			assert_non_null(strchr("0123456789abcdef", b->cols[0].v.str[r].ptr[i]));
		assert_true(b->cols[1].v.i128[r] >= -150 && b->cols[1].v.i128[r] <= 225);
		int64_t ts = b->cols[2].v.i64[r];
		assert_true(ts % 1000 == 0);
		assert_true(ts <= now_us + 2000000 && ts >= now_us - 12000000);
		assert_true(b->cols[3].v.f64[r] >= 0.5 && b->cols[3].v.f64[r] <= 1.5);
		assert_int_equal(b->cols[4].v.str[r].len, 5); /* capped at VARCHAR(5) */
		char want[16];
		snprintf(want, sizeof want, "%d", 98 + r);
		assert_int_equal(b->cols[5].v.str[r].len, strlen(want));
		assert_memory_equal(b->cols[5].v.str[r].ptr, want, strlen(want));
		assert_true(b->cols[6].v.i64[r] <= now_us / 86400000000LL + 1);
		assert_true(b->cols[7].v.i64[r] == 0 || b->cols[7].v.i64[r] == 1);
	}
	assert_int_equal(s->vt->read(s, b, &err), SL_EEOF);
	sl_batch_free(b);
	sl_source_free(s);
	fx_deinit(&f);
}

static void test_option_errors(void **state)
{
	fixture f;
	sl_err err;
	fx_init(&f);
	fx_field(&f, "id", sl_type_make(SL_T_INT));
	sl_opts_set(&f.opts, "fields.id.kind", "sequence");
	sl_opts_set(&f.opts, "fields.id.start", "1");
	assert_null(fx_open(&f, &err));
	assert_int_equal(err.code, SL_EINVAL);
	assert_non_null(strstr(err.msg, "fields.id.end"));
	sl_opts_set(&f.opts, "fields.id.kind", "zigzag");
	assert_null(fx_open(&f, &err));
	assert_non_null(strstr(err.msg, "zigzag"));
	sl_opts_set(&f.opts, "fields.id.kind", "random");
	sl_opts_set(&f.opts, "fields.id.min", "10");
	sl_opts_set(&f.opts, "fields.id.max", "5");
	assert_null(fx_open(&f, &err));
	assert_non_null(strstr(err.msg, "field 'id'"));
	assert_non_null(strstr(err.msg, "source 'gen'"));
	fx_deinit(&f);
}

static void test_throttle(void **state)
{
	fixture f;
	sl_err err;
	int64_t v[64];
	fx_init(&f);
	fx_field(&f, "id", sl_type_make(SL_T_INT));
	sl_opts_set(&f.opts, "rows-per-second", "200");
	sl_opts_set(&f.opts, "number-of-rows", "40");
	sl_source *s = fx_open(&f, &err);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int n = 0;
	sl_batch *b = sl_batch_new(1, f.types, 0);
	while (n < 40) {
		sl_batch_reset(b);
		int rc = s->vt->read(s, b, &err);
		assert_true(rc >= 0);
		n += rc;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	assert_true(secs > 0.15 && secs < 1.0); /* 40 rows at 200/s: ~0.2 s */
	(void)v;
	sl_batch_free(b);
	sl_source_free(s);
	fx_deinit(&f);
}

static void test_blackhole_throughput(void **state)
{
	fixture f;
	sl_err err;
	fx_init(&f);
	fx_field(&f, "id", sl_type_make(SL_T_BIGINT));
	fx_field(&f, "x", sl_type_make(SL_T_INT));
	fx_field(&f, "p", sl_type_make(SL_T_DOUBLE));
	sl_opts_set(&f.opts, "fields.id.kind", "sequence");
	sl_opts_set(&f.opts, "fields.id.start", "1");
	sl_opts_set(&f.opts, "fields.id.end", "20000000");
	sl_source *s = fx_open(&f, &err);
	sl_conn_args a = {.table = "bh", .fields = f.fields, .nfields = f.nfields,
	                  .opts = &f.opts};
	sl_sink *k = sl_sink_new_open(sl_sink_find("blackhole"), &a, &err);
	assert_non_null(k);
	sl_batch *b = sl_batch_new(f.nfields, f.types, 0);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		sl_batch_reset(b);
		int rc = s->vt->read(s, b, &err);
		if (rc == SL_EEOF)
			break;
		assert_int_equal(k->vt->write(k, b, &err), 0);
	}
	assert_int_equal(k->vt->finish(k, &err), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	assert_int_equal(k->rows_written, 20000000);
	print_message("datagen -> blackhole: %.1f M rows/s\n", 20.0 / secs);
	sl_batch_free(b);
	sl_sink_free(k);
	sl_source_free(s);
	fx_deinit(&f);
}

typedef struct bh_arg {
	fixture *f;
	int inst;
	int64_t read, written;
} bh_arg;

/* Instance inst of 3: datagen into a blackhole, both of that instance. */
static void *bh_main(void *p)
{
	bh_arg *ba = p;
	sl_err err;
	sl_source *s = fx_instance(ba->f, ba->inst, 3, &err);
	sl_conn_args a = {.table = "bh", .fields = ba->f->fields, .nfields = ba->f->nfields,
	                  .opts = &ba->f->opts, .subtask = ba->inst, .nsubtasks = 3};
	sl_sink *k = sl_sink_new_open(sl_sink_find("blackhole"), &a, &err);
	sl_batch *b = sl_batch_new(ba->f->nfields, ba->f->types, 0);
	while (s && k) {
		sl_batch_reset(b);
		if (s->vt->read(s, b, &err) <= 0 || k->vt->write(k, b, &err))
			break;
	}
	ba->read = s ? s->rows_read : -1;
	ba->written = k ? k->rows_written : -1;
	sl_batch_free(b);
	sl_sink_free(k);
	sl_source_free(s);
	return NULL;
}

/* Three blackhole instances on their own threads, fed by three datagen
 * instances (7 chunks of 1000 rows): each counts the rows of its own
 * instance only, and the counts add up to the table's rows. */
static void test_blackhole_instances(void **state)
{
	(void)state;
	fixture f;
	fx_init(&f);
	fx_field(&f, "id", sl_type_make(SL_T_BIGINT));
	sl_opts_set(&f.opts, "fields.id.kind", "sequence");
	sl_opts_set(&f.opts, "fields.id.start", "1");
	sl_opts_set(&f.opts, "fields.id.end", "6500");
	setenv("SLUICE_TEST_DATAGEN_CHUNK_ROWS", "1000", 1);
	pthread_t th[3];
	bh_arg args[3];
	for (int i = 0; i < 3; i++) {
		args[i] = (bh_arg){&f, i, 0, 0};
		assert_int_equal(pthread_create(&th[i], NULL, bh_main, &args[i]), 0);
	}
	int64_t sum = 0;
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(args[i].written, args[i].read);
		sum += args[i].written;
	}
	assert_int_equal(args[0].written, 2500); /* chunks 0, 3, 6 (500 rows) */
	assert_int_equal(args[1].written, 2000);
	assert_int_equal(sum, 6500);
	unsetenv("SLUICE_TEST_DATAGEN_CHUNK_ROWS");
	fx_deinit(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequence_bounds),
		cmocka_unit_test(test_number_of_rows_and_range),
		cmocka_unit_test(test_deterministic_any_batch_size),
		cmocka_unit_test(test_snapshot_restore),
		cmocka_unit_test(test_chunks),
		cmocka_unit_test(test_instances_union),
		cmocka_unit_test(test_instances_rescale),
		cmocka_unit_test(test_blackhole_instances),
		cmocka_unit_test(test_all_types),
		cmocka_unit_test(test_option_errors),
		cmocka_unit_test(test_throttle),
		cmocka_unit_test(test_blackhole_throughput),
	};
	return cmocka_run_group_tests_name("conn_datagen", tests, NULL, NULL);
}
