/*
 * test_conn_stdio.c - the 'print' sink (Flink's row text: kind, values in
 * Flink's text forms, "null", the print-identifier prefix, stderr), the
 * 'stdout' sink (json lines) and the 'stdin' source (records, line numbers
 * in errors, EOF), with the standard descriptors redirected to files;
 * parallel instances of both sinks on their own threads writing whole
 * lines (the same text as at parallelism 1: no instance prefix).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "connector/conn.h"
#include "sluice.h"

static char tmpl[64];

/* Redirects fd (1 or 2) to a fresh temp file; returns the saved fd. */
static int redirect(int fd)
{
	fflush(fd == 1 ? stdout : stderr);
	snprintf(tmpl, sizeof tmpl, "/tmp/sluice-test-stdio-XXXXXX");
	int t = mkstemp(tmpl);
	assert_true(t >= 0);
	int saved = dup(fd);
	dup2(t, fd);
	close(t);
	return saved;
}

/* Restores fd and returns the captured text (static buffer). */
static const char *restore(int fd, int saved)
{
	static char text[4096];
	fflush(fd == 1 ? stdout : stderr);
	dup2(saved, fd);
	close(saved);
	FILE *f = fopen(tmpl, "r");
	size_t n = fread(text, 1, sizeof text - 1, f);
	text[n] = 0;
	fclose(f);
	unlink(tmpl);
	return text;
}

typedef struct fx {
	sl_arena arena;
	sl_opts opts;
	sl_field fields[3];
	sl_type types[3];
} fx;

static void fx_init(fx *f, const char *connector)
{
	memset(f, 0, sizeof *f);
	sl_arena_init(&f->arena, 0);
	sl_opts_init(&f->opts, &f->arena);
	sl_opts_set(&f->opts, "connector", connector);
	f->types[0] = sl_type_varchar(SL_STRING_LEN);
	f->types[1] = sl_type_make(SL_T_INT);
	f->types[2] = sl_type_timestamp(SL_T_TIMESTAMP, 3);
	f->fields[0] = (sl_field){"name", f->types[0]};
	f->fields[1] = (sl_field){"n", f->types[1]};
	f->fields[2] = (sl_field){"ts", f->types[2]};
}

static sl_sink *fx_sink(fx *f, sl_err *err)
{
	sl_conn_args a = {.table = "out", .fields = f->fields, .nfields = 3, .opts = &f->opts,
	                  .tz = "UTC"};
	sl_err_clear(err);
	sl_sink *k = sl_sink_new_open(sl_sink_find(sl_opts_get(&f->opts, "connector")), &a, err);
	assert_non_null(k);
	assert_null(sl_opts_unused(&f->opts));
	return k;
}

/* Two rows: +I[a, 1, 2026-08-01 09:00:00] and -U[null, null, ...05.123]. */
static sl_batch *sample(fx *f)
{
	sl_batch *b = sl_batch_new(3, f->types, 0);
	int r = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
	sl_col_set_str(b, &b->cols[0], r, "a", 1);
	sl_col_set_i64(&b->cols[1], r, 1);
	int64_t ts = 1785574800LL * 1000000; /* 2026-08-01 09:00:00 UTC */
	sl_col_set_i64(&b->cols[2], r, ts);
	r = sl_batch_add_row(b, SL_UPDATE_BEFORE, SL_WM_MIN);
	sl_col_set_i64(&b->cols[2], r, ts + 5123000);
	return b;
}

static void test_print(void **state)
{
	fx f;
	sl_err err;
	fx_init(&f, "print");
	sl_sink *k = fx_sink(&f, &err);
	sl_batch *b = sample(&f);
	int saved = redirect(1);
	int rc = k->vt->write(k, b, &err);
	const char *text = restore(1, saved);
	assert_int_equal(rc, 0);
	assert_string_equal(text, "+I[a, 1, 2026-08-01 09:00:00]\n"
	                          "-U[null, null, 2026-08-01 09:00:05.123]\n");
	assert_int_equal(k->rows_written, 2);
	sl_sink_free(k);

	/* identifier and stderr; a selection vector picks the live rows */
	sl_opts_set(&f.opts, "print-identifier", "x");
	sl_opts_set(&f.opts, "standard-error", "true");
	k = fx_sink(&f, &err);
	uint32_t sel[1] = {1};
	b->sel = sel;
	b->nsel = 1;
	saved = redirect(2);
	rc = k->vt->write(k, b, &err);
	text = restore(2, saved);
	assert_int_equal(rc, 0);
	assert_string_equal(text, "x> -U[null, null, 2026-08-01 09:00:05.123]\n");
	assert_true(k->vt->accepts_updates);
	sl_sink_free(k);
	sl_batch_free(b);
	sl_arena_deinit(&f.arena);
}

static void test_stdout_json(void **state)
{
	fx f;
	sl_err err;
	fx_init(&f, "stdout");
	sl_sink *k = fx_sink(&f, &err);
	sl_batch *b = sample(&f);
	b->op[1] = SL_INSERT;
	int saved = redirect(1);
	int rc = k->vt->write(k, b, &err);
	const char *text = restore(1, saved);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(text, "\"name\":\"a\""));
	assert_non_null(strstr(text, "\"n\":1"));
	assert_non_null(strchr(text, '\n'));
	assert_non_null(strchr(strchr(text, '\n') + 1, '\n')); /* two lines */
	sl_sink_free(k);
	sl_batch_free(b);
	sl_arena_deinit(&f.arena);
}

static void test_stdin(void **state)
{
	char path[] = "/tmp/sluice-test-stdin-XXXXXX";
	int t = mkstemp(path);
	const char *in = "{\"name\": \"a\", \"n\": 1}\n\n{\"name\": \"b\", \"n\": 2}\n"
	                 "{\"name\": \"c\", \"n\": \"x\"}\n";
	assert_int_equal(write(t, in, strlen(in)), (ssize_t)strlen(in));
	lseek(t, 0, SEEK_SET);
	int saved = dup(0);
	dup2(t, 0);
	close(t);
	fx f;
	sl_err err;
	sl_err_clear(&err); /* was left uninitialized: its garbage code hid the message */
	fx_init(&f, "stdin");
	sl_opts_set(&f.opts, "format", "json");
	sl_conn_args a = {.table = "in", .fields = f.fields, .nfields = 3, .opts = &f.opts};
	sl_source *s = sl_source_new_open(sl_source_find(sl_opts_get(&f.opts, "connector")), &a, &err);
	assert_non_null(s);
	sl_batch *b = sl_batch_new(3, f.types, 0);
	/* the bad record on line 4 stops the first batch after two rows */
	int rc = s->vt->read(s, b, &err);
	assert_int_equal(rc, SL_EINPUT);
	assert_int_equal(b->nrows, 2);
	assert_memory_equal(b->cols[0].v.str[1].ptr, "b", 1);
	assert_non_null(strstr(err.msg, "source 'in': stdin, line 4: "));
	char w[64];
	s->vt->where(s, 1, w, sizeof w);
	assert_string_equal(w, "stdin, line 3");
	sl_snap_writer sw;
	sl_snap_writer_init(&sw);
	assert_int_equal(s->vt->snapshot(s, &sw, &err), 0);
	sl_batch_reset(b);
	assert_int_equal(s->vt->read(s, b, &err), SL_EEOF);
	sl_source_free(s);
	sl_snap_writer_deinit(&sw);
	sl_batch_free(b);
	dup2(saved, 0);
	close(saved);
	unlink(path);
	sl_arena_deinit(&f.arena);
}

/* ---- parallel instances ------------------------------------------------- */

enum { NINST = 4, NBATCH = 30, NROWS = 20 };

typedef struct inst_arg {
	fx *f;
	int inst, print; /* print sink, else stdout (json) */
	int rc;
} inst_arg;

/* The payload length of row `seq` of instance `inst`: 50..4049 bytes, so
 * batches are larger than the stream's buffer and lines cross it. */
static int payload_len(int inst, int seq)
{
	return 50 + (seq * 7919 + inst * 104729) % 4000;
}

/* One instance (subtask inst of NINST) of the print or stdout sink writing
 * NBATCH batches of NROWS rows: name "<p|s><inst>-<seq>-xxx...", n = seq. */
static void *inst_main(void *p)
{
	inst_arg *ia = p;
	sl_conn_args a = {.table = "out", .fields = ia->f->fields, .nfields = 3,
	                  .opts = &ia->f->opts, .tz = "UTC", .subtask = ia->inst,
	                  .nsubtasks = NINST};
	sl_err err;
	sl_err_clear(&err);
	sl_sink *k = sl_sink_new_open(sl_sink_find(ia->print ? "print" : "stdout"), &a, &err);
	if (!k) {
		ia->rc = -1;
		return NULL;
	}
	static char x[4100];
	memset(x, 'x', sizeof x);
	char name[4200];
	sl_batch *b = sl_batch_new(3, ia->f->types, 0);
	for (int bi = 0, seq = 0; bi < NBATCH && !ia->rc; bi++) {
		sl_batch_reset(b);
		for (int r = 0; r < NROWS; r++, seq++) {
			int row = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
			int len = snprintf(name, sizeof name, "%c%d-%d-%.*s", ia->print ? 'p' : 's',
			                   ia->inst, seq, payload_len(ia->inst, seq), x);
			sl_col_set_str(b, &b->cols[0], row, name, len);
			sl_col_set_i64(&b->cols[1], row, seq);
			b->cols[2].null[row] = 1;
		}
		ia->rc = k->vt->write(k, b, &err);
	}
	sl_batch_free(b);
	sl_sink_free(k);
	return NULL;
}

/* Checks a line "<p|s><inst>-<seq>-<payload>" at name; returns its kind
 * index (0 print, 1 stdout) and sets *inst, *seq, or -1. */
static int check_name(const char *name, const char *end, int *inst, int *seq)
{
	int kind = name[0] == 'p' ? 0 : name[0] == 's' ? 1 : -1;
	char *e;
	if (kind < 0)
		return -1;
	*inst = (int)strtol(name + 1, &e, 10);
	if (*e != '-' || *inst < 0 || *inst >= NINST)
		return -1;
	*seq = (int)strtol(e + 1, &e, 10);
	if (*e != '-')
		return -1;
	int n = payload_len(*inst, *seq);
	for (int i = 1; i <= n; i++)
		if (e[i] != 'x')
			return -1;
	return e + 1 + n == end ? kind : -1;
}

/*
 * NINST print and NINST stdout sink instances on their own threads write
 * rows of 50 to 4000 bytes to one standard output: every line is whole
 * (one row of one instance), each instance's lines come in its order and
 * all of them, and the print lines have no instance prefix.
 */
static void test_instances_whole_lines(void **state)
{
	(void)state;
	fx fp, fs;
	fx_init(&fp, "print");
	fx_init(&fs, "stdout");
	pthread_t th[2 * NINST];
	inst_arg args[2 * NINST];
	int saved = redirect(1);
	for (int i = 0; i < 2 * NINST; i++) {
		args[i] = (inst_arg){i % 2 ? &fs : &fp, i / 2, !(i % 2), 0};
		assert_int_equal(pthread_create(&th[i], NULL, inst_main, &args[i]), 0);
	}
	for (int i = 0; i < 2 * NINST; i++)
		pthread_join(th[i], NULL);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	for (int i = 0; i < 2 * NINST; i++)
		assert_int_equal(args[i].rc, 0);
	FILE *f = fopen(tmpl, "r");
	assert_non_null(f);
	static char line[8192];
	int next[2][NINST] = {{0}};
	int lines = 0;
	while (fgets(line, sizeof line, f)) {
		size_t n = strlen(line);
		assert_true(n > 0 && line[n - 1] == '\n');
		line[--n] = 0;
		int inst, seq, kind;
		if (!strncmp(line, "+I[", 3)) { /* print: +I[<name>, <seq>, null] */
			char *c = strstr(line, ", ");
			assert_non_null(c);
			kind = check_name(line + 3, c, &inst, &seq);
			assert_int_equal(kind, 0);
			char tail[64];
			snprintf(tail, sizeof tail, ", %d, null]", seq);
			assert_string_equal(c, tail);
		} else { /* stdout: {"name":"<name>","n":<seq>,"ts":null} */
			assert_true(!strncmp(line, "{\"name\":\"", 9));
			char *q = strchr(line + 9, '"');
			assert_non_null(q);
			kind = check_name(line + 9, q, &inst, &seq);
			assert_int_equal(kind, 1);
			char tail[64];
			snprintf(tail, sizeof tail, "\",\"n\":%d,\"ts\":null}", seq);
			assert_string_equal(q, tail);
		}
		assert_int_equal(seq, next[kind][inst]);
		next[kind][inst]++;
		lines++;
	}
	fclose(f);
	unlink(tmpl);
	assert_int_equal(lines, 2 * NINST * NBATCH * NROWS);
	sl_arena_deinit(&fp.arena);
	sl_arena_deinit(&fs.arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_stdout_json),
		cmocka_unit_test(test_stdin),
		cmocka_unit_test(test_instances_whole_lines),
	};
	return cmocka_run_group_tests_name("conn_stdio", tests, NULL, NULL);
}
