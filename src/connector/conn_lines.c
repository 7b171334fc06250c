/*
 * conn_lines.c - newline-delimited record reader (see conn_lines.h).
 *
 * Sits between a file descriptor and a format decoder in the 'filesystem'
 * and 'stdin' sources.  Invariants: buf[pos..end) holds unconsumed input,
 * buf[pos..scan) has no '\n' (so a record that straddles several reads is
 * scanned once), `off` is the input offset of buf[pos].  The buffer moves
 * only with may_move set: records handed out earlier stay valid until the
 * caller allows a move.  Single-threaded.
 */
#include "conn_lines.h"
#include "sluice.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sl__lines_init(sl_linereader *lr)
{
	memset(lr, 0, sizeof(*lr));
	lr->fd = -1;
}

int sl__lines_start(sl_linereader *lr, int fd, int owns_fd, int64_t off, int64_t line)
{
	sl__lines_stop(lr);
	if (!lr->buf) {
		lr->buf = malloc(SL_LINES_BLOCK);
		if (!lr->buf)
			return SL_ENOMEM;
		lr->cap = SL_LINES_BLOCK;
	}
	lr->fd = fd;
	lr->owns_fd = owns_fd;
	lr->pos = lr->end = lr->scan = 0;
	lr->eof = 0;
	lr->off = off;
	lr->line = line;
	return 0;
}

void sl__lines_stop(sl_linereader *lr)
{
	if (lr->fd >= 0 && lr->owns_fd)
		close(lr->fd);
	lr->fd = -1;
	lr->owns_fd = 0;
}

void sl__lines_deinit(sl_linereader *lr)
{
	sl__lines_stop(lr);
	free(lr->buf);
	sl__lines_init(lr);
}

/* Consumes buf[pos..pos+n) plus `skip` terminator bytes as one line. */
static void take(sl_linereader *lr, size_t n, size_t skip, const char **rec, size_t *len,
                 int64_t *rec_line, int64_t *rec_off)
{
	*rec = lr->buf + lr->pos;
	*len = n;
	if (n > 0 && (*rec)[n - 1] == '\r')
		(*len)--;
	*rec_off = lr->off;
	*rec_line = ++lr->line;
	lr->pos += n + skip;
	lr->off += (int64_t)(n + skip);
	lr->scan = lr->pos;
}

/* Makes room at the end of the buffer, moving or growing it (may_move
 * only).  Returns 0, or SL_ENOMEM. */
static int make_room(sl_linereader *lr)
{
	if (lr->pos > 0) {
		size_t n = lr->end - lr->pos;
		memmove(lr->buf, lr->buf + lr->pos, n);
		lr->scan -= lr->pos;
		lr->end = n;
		lr->pos = 0;
		if (lr->end < lr->cap)
			return 0;
	}
	/* one record fills the whole buffer: double it */
	char *nb = realloc(lr->buf, lr->cap * 2);
	if (!nb)
		return SL_ENOMEM;
	lr->buf = nb;
	lr->cap *= 2;
	return 0;
}

/* Reads more input into buf[end..cap).  Returns 0 or SL_EIO. */
static int fill(sl_linereader *lr)
{
	for (;;) {
		ssize_t n = read(lr->fd, lr->buf + lr->end, lr->cap - lr->end);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return SL_EIO;
		if (n == 0)
			lr->eof = 1;
		if (lr->bytes_read)
			SL_CTR_ADD(*lr->bytes_read, n); /* per 1 MiB block, not per row */
		lr->end += (size_t)n;
		return 0;
	}
}

int sl__lines_next_slow(sl_linereader *lr, int may_move, const char **rec, size_t *len,
                        int64_t *rec_line, int64_t *rec_off)
{
	if (lr->fd < 0)
		return SL_EEOF;
	for (;;) {
		char *nl = lr->scan < lr->end
		                   ? memchr(lr->buf + lr->scan, '\n', lr->end - lr->scan)
		                   : NULL;
		if (nl) {
			take(lr, (size_t)(nl - (lr->buf + lr->pos)), 1, rec, len, rec_line, rec_off);
			if (*len == 0)
				continue; /* empty line */
			return 1;
		}
		lr->scan = lr->end;
		if (lr->eof) {
			if (lr->pos == lr->end)
				return SL_EEOF;
			take(lr, lr->end - lr->pos, 0, rec, len, rec_line, rec_off);
			if (*len == 0)
				continue;
			return 1;
		}
		if (may_move && (lr->pos > 0 || lr->end == lr->cap)) {
			if (make_room(lr))
				return SL_ENOMEM;
		} else if (lr->end == lr->cap) {
			return 0;
		}
		if (fill(lr))
			return SL_EIO;
	}
}

void sl__lines_unread(sl_linereader *lr, const char *rec, int64_t rec_line, int64_t rec_off)
{
	lr->pos = (size_t)(rec - lr->buf);
	lr->scan = lr->pos;
	lr->off = rec_off;
	lr->line = rec_line - 1;
}

int sl__lines_ready(sl_linereader *lr)
{
	if (lr->fd < 0 || lr->eof)
		return 1;
	if (lr->scan < lr->end && memchr(lr->buf + lr->scan, '\n', lr->end - lr->scan))
		return 1;
	lr->scan = lr->end; /* buf[pos..end) has no '\n' */
	return 0;
}
