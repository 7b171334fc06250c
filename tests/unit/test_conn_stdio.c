/*
 * test_conn_stdio.c - the 'print' sink (Flink's row text: kind, values in
 * Flink's text forms, "null", the print-identifier prefix, stderr), the
 * 'stdout' sink (json lines) and the 'stdin' source (records, line numbers
 * in errors, EOF), with the standard descriptors redirected to files.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_stdout_json),
		cmocka_unit_test(test_stdin),
	};
	return cmocka_run_group_tests_name("conn_stdio", tests, NULL, NULL);
}
