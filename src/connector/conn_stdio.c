/*
 * conn_stdio.c - the 'stdin' source and the 'stdout' sink (sluice
 * extensions): the standard streams as tables, for shell pipelines such as
 * `tail -f log.jsonl | sluice run job.sql`.
 *
 * The stdin source reads newline-delimited records with 'format' like the
 * filesystem source (same line reader, conn_lines.c, records decoded in
 * place) until EOF.  It is not replayable: its snapshot holds only the line
 * count, so messages keep counting lines after a restore.  A read returns
 * the rows standard input holds rather than wait for more; once after
 * returning rows it reports no progress instead of blocking (so that a
 * parallel task flushes the exchange batches those rows sit in before it
 * sleeps: `tail -f | sluice` at parallelism > 1 shows each line's results
 * as at 1); then a read waits for data at most SIN_WAIT_MS and reports no
 * progress when none came, so that checkpoints (whose barriers are
 * injected between reads) complete while standard input is quiet.  A read
 * blocks only while a line has begun arriving and its end has not.
 *
 * The stdout sink encodes rows with 'format' (default json) into a buffer
 * and writes it to standard output (through stdio, so output stays ordered
 * with other stdout writers of the process) at the end of every batch,
 * with one fwrite + fflush under the stream's lock (flockfile), so the
 * lines of parallel instances (each its own buffer, on its own thread)
 * never interleave within a line.
 *
 * The stdin source is one instance whatever the parallelism
 * (single_instance: the runtime rebalances its rows, docs/parallel.md §2).
 */
#include "conn_builtin.h"
#include "conn_lines.h"
#include "sluice.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#define SIN_WAIT_MS 50 /* the longest a read waits for input (sin_read) */

/* ---- stdin source -------------------------------------------------------- */

typedef struct stdin_source {
	sl_source base;     /* must be first */
	sl_linereader lr;   /* reader of fd 0 */
	sl_decoder *dec;    /* the format's decoder */
	int started;        /* lr started on fd 0 */
	int64_t first_line; /* line of the last batch's first row */
	int64_t *prov_line; /* per row of the last batch: its line */
	int prov_cap, prov_n;
	int gave_rows;      /* the last read returned rows */
} stdin_source;

/* The format and its options; standard input is not touched yet. */
static int sin_configure(sl_source *s, const sl_conn_args *a, sl_err *err)
{
	stdin_source *in = (stdin_source *)s;
	sl__lines_init(&in->lr);
	if (!(in->dec = sl__conn_decoder(a, NULL, err)))
		return err && err->code ? err->code : SL_EINVAL;
	in->base.dec = in->dec;
	return 0;
}

/* Starts the line reader on fd 0. */
static int sin_open(sl_source *s, sl_err *err)
{
	stdin_source *in = (stdin_source *)s;
	if (sl__lines_start(&in->lr, STDIN_FILENO, 0, 0, 0))
		return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", s->table);
	in->started = 1;
	return 0;
}

static int sin_decode(stdin_source *in, const char *rec, size_t len, int64_t line,
                      sl_batch *out, sl_err *err)
{
	sl_err derr;
	sl_err_clear(&derr);
	int first = out->nrows;
	int rc = in->dec->vt->decode(in->dec, rec, len, out, SL_WM_MIN, &derr);
	if (rc == SL_EFULL)
		return rc; /* the caller ends the batch and reads the record again */
	if (rc == SL_EINPUT && in->dec->ignore_errors) {
		out->nrows = first;
		SL_CTR_ADD(in->base.rows_skipped, 1);
		return 0;
	}
	if (rc < 0) {
		sl_err_set(err, rc, "source '%s': stdin, line %lld: %s", in->base.table,
		           (long long)line, derr.code ? derr.msg : sl_err_name(rc));
		sl_err_input(err, "stdin", line);
		return rc;
	}
	for (int r = first; r < out->nrows; r++)
		in->prov_line[r] = line;
	return rc;
}

static int sin_read(sl_source *s, sl_batch *out, sl_err *err)
{
	stdin_source *in = (stdin_source *)s;
	int rows0 = out->nrows, rc = 0;
	if (out->cap > in->prov_cap) {
		int64_t *p = realloc(in->prov_line, (size_t)out->cap * sizeof *p);
		if (!p)
			return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", s->table);
		in->prov_line = p;
		in->prov_cap = out->cap;
	}
	/* nothing buffered and nothing to read now, just after rows went out:
	 * say "no progress" once, so the caller flushes what it holds (a
	 * parallel task's exchange batches) before the next read blocks */
	if (in->gave_rows && !sl__lines_ready(&in->lr)) {
		struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
		in->gave_rows = 0;
		if (poll(&pfd, 1, 0) == 0)
			return 0;
	}
	/* nothing buffered: wait for input at most SIN_WAIT_MS, then say "no
	 * progress", so that the thread takes its markers (a checkpoint's
	 * barrier is injected between reads) while standard input is quiet */
	if (!sl__lines_ready(&in->lr)) {
		struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
		if (poll(&pfd, 1, SIN_WAIT_MS) == 0)
			return 0;
	}
	while (out->cap - out->nrows >= 2) {
		const char *rec;
		size_t len;
		int64_t line, off;
		rc = sl__lines_next(&in->lr, out->nrows == rows0, &rec, &len, &line, &off);
		if (rc == 0 || rc == SL_EEOF)
			break;
		if (rc < 0) {
			sl_err_set(err, rc, "source '%s': stdin: read failed: %s", s->table,
			           rc == SL_ENOMEM ? "out of memory" : strerror(errno));
			break;
		}
		if ((rc = sin_decode(in, rec, len, line, out, err)) == SL_EFULL) {
			sl__lines_unread(&in->lr, rec, line, off);
			rc = 0;
			break;
		}
		if (rc < 0)
			break;
		/* a pipe delivers what is there: return it rather than block */
		if (out->nrows > rows0 && !sl__lines_ready(&in->lr))
			break;
	}
	in->prov_n = out->nrows;
	in->gave_rows = out->nrows > rows0;
	s->rows_read += out->nrows - rows0;
	if (rc < 0 && rc != SL_EEOF)
		return rc;
	if (out->nrows > rows0)
		return out->nrows - rows0;
	return rc == SL_EEOF ? SL_EEOF : 0;
}

static void sin_where(sl_source *s, int row, char *buf, size_t cap)
{
	stdin_source *in = (stdin_source *)s;
	if (row >= 0 && row < in->prov_n && row < in->prov_cap)
		snprintf(buf, cap, "stdin, line %lld", (long long)in->prov_line[row]);
	else
		snprintf(buf, cap, "stdin");
}

static int sin_row_input(sl_source *s, int row, const char **file, int64_t *line)
{
	stdin_source *in = (stdin_source *)s;
	if (row < 0 || row >= in->prov_n || row >= in->prov_cap)
		return 0;
	*file = "stdin";
	*line = in->prov_line[row];
	return 1;
}

/* Not replayable: the snapshot is the line count only. */
static int sin_snapshot(sl_source *s, sl_snap_writer *w, sl_err *err)
{
	stdin_source *in = (stdin_source *)s;
	sl_snap_put_i64(w, in->lr.line);
	if (w->failed)
		return sl_err_set(err, SL_ENOMEM, "source '%s': snapshot: out of memory", s->table);
	return 0;
}

static int sin_restore(sl_source *s, sl_snap_reader *r, sl_err *err)
{
	stdin_source *in = (stdin_source *)s;
	int64_t line = sl_snap_get_i64(r);
	if (!sl_snap_reader_ok(r) || line < 0)
		return sl_err_set(err, SL_ESTATE, "source '%s': damaged stdin snapshot", s->table);
	in->lr.line = line;
	return 0;
}

static void sin_close(sl_source *s)
{
	stdin_source *in = (stdin_source *)s;
	sl__lines_deinit(&in->lr); /* fd 0 is not owned: stays open */
	if (in->dec)
		sl_decoder_free(in->dec);
	in->dec = NULL;
	free(in->prov_line);
	in->prov_line = NULL;
}

/* The 'stdin' source method table. */
const sl_source_vtab sl_stdin_source_vtab = {
	.name = "stdin",
	.size = sizeof(stdin_source),
	.configure = sin_configure,
	.open = sin_open,
	.read = sin_read,
	.where = sin_where,
	.row_input = sin_row_input,
	.snapshot = sin_snapshot,
	.restore = sin_restore,
	.close = sin_close,
	.single_instance = 1, /* one standard input */
};

/* ---- stdout sink --------------------------------------------------------- */

typedef struct stdout_sink {
	sl_sink base;    /* must be first */
	sl_encoder *enc; /* the format's encoder */
	sl_buf out;      /* the batch's encoded rows */
} stdout_sink;

/* The format and its options (stdout needs no opening). */
static int sout_configure(sl_sink *s, const sl_conn_args *a, sl_err *err)
{
	stdout_sink *k = (stdout_sink *)s;
	sl_buf_init(&k->out);
	if (!(k->enc = sl__conn_encoder(a, "json", err)))
		return err && err->code ? err->code : SL_EINVAL;
	return 0;
}

static int sout_flush(stdout_sink *k, sl_err *err)
{
	int bad = 0;
	flockfile(stdout); /* the batch's lines and the flush, as one */
	if (k->out.len && fwrite(k->out.p, 1, k->out.len, stdout) != k->out.len)
		bad = 1;
	if (!bad && fflush(stdout))
		bad = 1;
	funlockfile(stdout);
	sl_buf_clear(&k->out);
	if (bad)
		return sl_err_set(err, SL_EIO, "sink '%s': cannot write to stdout: %s",
		                  k->base.table, strerror(errno));
	return 0;
}

static int sout_write(sl_sink *s, const sl_batch *b, sl_err *err)
{
	stdout_sink *k = (stdout_sink *)s;
	SL_BATCH_FOREACH(b, i, row) {
		size_t before = k->out.len;
		int rc = k->enc->vt->encode(k->enc, b, row, &k->out, err);
		if (rc < 0) {
			k->out.len = before;
			sl_err_prefix(err, "sink '%s'", s->table);
			sout_flush(k, NULL); /* the rows before it */
			return rc;
		}
		s->rows_written++;
	}
	return sout_flush(k, err);
}

static int sout_finish(sl_sink *s, sl_err *err)
{
	return sout_flush((stdout_sink *)s, err);
}

static int sout_can_update(const sl_conn_args *a)
{
	const char *name = sl_opts_get(a->opts, "format");
	const sl_format_vtab *vt = sl_format_find(name ? name : "json");
	return vt && vt->changelog;
}

static void sout_close(sl_sink *s)
{
	stdout_sink *k = (stdout_sink *)s;
	sl_buf_deinit(&k->out);
	if (k->enc)
		sl_encoder_free(k->enc);
	k->enc = NULL;
}

/* The 'stdout' sink method table. */
const sl_sink_vtab sl_stdout_sink_vtab = {
	.name = "stdout",
	.size = sizeof(stdout_sink),
	.accepts_updates = 1,
	.can_update = sout_can_update,
	.guarantee = "at-least-once",
	.configure = sout_configure,
	.write = sout_write,
	.finish = sout_finish,
	.close = sout_close,
};
