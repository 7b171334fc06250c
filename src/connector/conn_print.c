/*
 * conn_print.c - Flink's 'print' sink: every row as text on standard
 * output (or standard error), for debugging and the examples.
 *
 * A row prints as its change kind and its values in Flink's text forms
 * (valtext.c), NULL as "null":
 *
 *     +I[a, 1, 2026-08-01 09:00:00]
 *     x> -U[a, 1, 2026-08-01 09:00:00]      with 'print-identifier' = 'x'
 *
 * 'standard-error' = 'true' writes to stderr.  Takes updates.  A batch is
 * formatted into one buffer (re-used, so no allocation in steady state)
 * and written with one fwrite + fflush at its end, under the stream's lock
 * (flockfile), which keeps output in order with other stdio writers of the
 * process and keeps the lines of parallel instances, each with its own
 * buffer on its own thread, whole: a batch's lines go out together,
 * never interleaved with another instance's within a line.
 *
 * Parallel instances: unlike Flink's print sink, which prefixes "<i>> "
 * (or "<identifier>:<i>> ") at parallelism > 1, sluice prints the same
 * text at every parallelism, so output does not change with the machine's
 * CPU count, the default parallelism (docs/sql.md, "where sluice
 * differs").
 */
#include "conn_builtin.h"
#include "sluice.h"
#include "data/valtext.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct print_sink {
	sl_sink base;  /* must be first */
	char *prefix;  /* "x> " or "" */
	char *tz;      /* session time zone for TIMESTAMP_LTZ, or NULL */
	FILE *fp;      /* stdout or stderr */
	sl_buf out;    /* the batch's text */
} print_sink;

/* Reads the options; stdout / stderr are the process's, open already. */
static int pr_configure(sl_sink *s, const sl_conn_args *a, sl_err *err)
{
	print_sink *k = (print_sink *)s;
	int to_err = 0;
	sl_buf_init(&k->out);
	const char *id = sl_opts_get(a->opts, "print-identifier");
	(void)sl_opts_get(a->opts, "sink.parallelism"); /* accepted; the job's parallelism
	                                                   * decides (docs/parallel.md) */
	if (sl_opts_bool(a->opts, "standard-error", 0, &to_err, err)) {
		sl_err_prefix(err, "sink '%s'", a->table);
		return SL_EINVAL;
	}
	k->fp = to_err ? stderr : stdout;
	size_t n = id ? strlen(id) + 3 : 1;
	if (!(k->prefix = malloc(n)))
		goto nomem;
	snprintf(k->prefix, n, "%s%s", id ? id : "", id ? "> " : "");
	if (a->tz && !(k->tz = strdup(a->tz)))
		goto nomem;
	return 0;
nomem:
	return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", a->table);
}

static const char *kind_text(uint8_t op)
{
	switch (op) {
	case SL_INSERT: return "+I";
	case SL_UPDATE_BEFORE: return "-U";
	case SL_UPDATE_AFTER: return "+U";
	case SL_DELETE: return "-D";
	}
	return "?";
}

/* Appends one row: prefix, kind, "[v1, v2, ...]", newline. */
static int print_row(print_sink *k, const sl_batch *b, int row)
{
	if ((k->prefix[0] && sl_buf_puts(&k->out, k->prefix)) ||
	    sl_buf_puts(&k->out, kind_text(b->op[row])) ||
	    sl_buf_putc(&k->out, '['))
		return SL_ENOMEM;
	for (int c = 0; c < b->ncols; c++) {
		if (c && sl_buf_append(&k->out, ", ", 2))
			return SL_ENOMEM;
		if (sl_value_text(&b->cols[c], row, "null", k->tz, &k->out))
			return SL_ENOMEM;
	}
	if (sl_buf_append(&k->out, "]\n", 2))
		return SL_ENOMEM;
	return 0;
}

static int pr_flush(print_sink *k, sl_err *err)
{
	int rc = 0;
	flockfile(k->fp); /* the batch's lines and the flush, as one */
	if (k->out.len && fwrite(k->out.p, 1, k->out.len, k->fp) != k->out.len)
		rc = SL_EIO;
	if (fflush(k->fp))
		rc = SL_EIO;
	funlockfile(k->fp);
	sl_buf_clear(&k->out);
	if (rc)
		return sl_err_set(err, rc, "sink '%s': cannot write to %s: %s", k->base.table,
		                  k->fp == stderr ? "stderr" : "stdout", strerror(errno));
	return 0;
}

static int pr_write(sl_sink *s, const sl_batch *b, sl_err *err)
{
	print_sink *k = (print_sink *)s;
	SL_BATCH_FOREACH(b, i, row) {
		if (print_row(k, b, row)) {
			pr_flush(k, NULL);
			return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", s->table);
		}
		s->rows_written++;
	}
	return pr_flush(k, err);
}

static int pr_finish(sl_sink *s, sl_err *err)
{
	return pr_flush((print_sink *)s, err);
}

static void pr_close(sl_sink *s)
{
	print_sink *k = (print_sink *)s;
	sl_buf_deinit(&k->out);
	free(k->prefix);
	free(k->tz);
	k->prefix = k->tz = NULL;
}

/* The 'print' sink method table. */
const sl_sink_vtab sl_print_sink_vtab = {
	.name = "print",
	.size = sizeof(print_sink),
	.accepts_updates = 1,
	.can_update = NULL,
	.guarantee = "at-least-once",
	.configure = pr_configure,
	.write = pr_write,
	.finish = pr_finish,
	.close = pr_close,
};
