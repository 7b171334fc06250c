/*
 * conn_lines.h - newline-delimited record reader shared by the 'filesystem'
 * and 'stdin' sources (internal to src/connector).
 *
 * Reads a file descriptor in large read(2) blocks into one buffer and hands
 * out records in place: a record is the bytes before a '\n', without a
 * trailing '\r'; empty lines are skipped (but counted as lines).  Records
 * point into the buffer, so a decoder may reference their bytes from a
 * batch (sl_col_set_str_ref).  The buffer is only moved (tail to the front,
 * or grown for a record longer than it) when the caller says no batch row
 * references it (may_move); otherwise the reader asks the caller to stop
 * filling the batch.
 *
 * Position: `off` is the byte offset of the next unconsumed record and
 * `line` the number of lines consumed, so a checkpoint taken between
 * records restores exactly with sl__lines_start at (off, line).
 *
 * Also declares the format helpers shared by the file-like connectors.
 */
#ifndef SL_CONN_LINES_H
#define SL_CONN_LINES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "conn.h"
#include "format/format.h"

#define SL_LINES_BLOCK (1u << 20) /* read(2) block and initial buffer size */

typedef struct sl_linereader {
	int fd;          /* descriptor being read, -1 = none */
	int owns_fd;     /* close fd when done */
	char *buf;       /* read buffer (NULL until the first start) */
	size_t cap;      /* its size: SL_LINES_BLOCK, doubled for longer records */
	size_t pos, end; /* unconsumed bytes are buf[pos..end) */
	size_t scan;     /* buf[pos..scan) is known to hold no '\n' */
	int eof;         /* read(2) returned 0 */
	int64_t off;     /* byte offset of buf[pos] in the input */
	int64_t line;    /* lines consumed */
	int64_t *bytes_read; /* NULL, or where the bytes read(2) are counted (the
	                      * source's progress: SL_CTR_ADD, read live by the
	                      * metrics); kept by sl__lines_start */
} sl_linereader;

/* Initializes an idle reader (no fd, no buffer). */
void sl__lines_init(sl_linereader *lr);

/*
 * Starts reading fd, positioned at byte `off` that begins line `line` + 1
 * (the caller has already seeked there).  Closes the previous descriptor
 * if owned.  The buffer's contents are discarded: call it only when no
 * batch row references them.  Returns 0 or SL_ENOMEM.
 */
int sl__lines_start(sl_linereader *lr, int fd, int owns_fd, int64_t off, int64_t line);

/* Closes the descriptor (if owned) and forgets it; keeps the buffer. */
void sl__lines_stop(sl_linereader *lr);

/* Frees everything. */
void sl__lines_deinit(sl_linereader *lr);

/*
 * Returns the next record: 1 with *rec, *len, *rec_line (1-based) and
 * *rec_off set; 0 when the buffer would have to move and may_move is 0
 * (stop the batch); SL_EEOF at the end of input; SL_EIO on a read error
 * (errno set) or SL_ENOMEM when a long record cannot grow the buffer.
 */
int sl__lines_next_slow(sl_linereader *lr, int may_move, const char **rec, size_t *len,
                        int64_t *rec_line, int64_t *rec_off);

/* sl__lines_next with the common case inline: a non-empty record without
 * '\r' whose '\n' is already buffered (the call per record was ~60
 * instructions of each ~85-byte JSON line, callgrind, bench 4).  Anything
 * else is sl__lines_next_slow's, which gives the same results. */
static inline int sl__lines_next(sl_linereader *lr, int may_move, const char **rec, size_t *len,
                                 int64_t *rec_line, int64_t *rec_off)
{
	if (lr->fd >= 0 && lr->scan < lr->end) {
		char *s = lr->buf + lr->pos;
		char *nl = memchr(lr->buf + lr->scan, '\n', lr->end - lr->scan);
		if (nl && nl > s && nl[-1] != '\r') {
			size_t n = (size_t)(nl - s);
			*rec = s;
			*len = n;
			*rec_off = lr->off;
			*rec_line = ++lr->line;
			lr->pos += n + 1;
			lr->off += (int64_t)(n + 1);
			lr->scan = lr->pos;
			return 1;
		}
	}
	return sl__lines_next_slow(lr, may_move, rec, len, rec_line, rec_off);
}

/* Gives back the record sl__lines_next just returned (rec, rec_line,
 * rec_off as it set them): the next call returns it again.  Used when a
 * record's rows do not fit in the batch (format.h, SL_EFULL). */
void sl__lines_unread(sl_linereader *lr, const char *rec, int64_t rec_line, int64_t rec_off);

/* 1 when a whole record (or the final one at EOF) is buffered, so that
 * sl__lines_next will not block in read(2). */
int sl__lines_ready(sl_linereader *lr);

/* ---- format helpers of record connectors (conn_format.c) ---------------- */

/*
 * Opens the decoder (source) or encoder (sink) named by the 'format' option
 * (def when absent; NULL = required) for a's fields, passing a's options to
 * the format.  Returns NULL with err set ("source 't': unknown format 'x'").
 * Free with sl_decoder_free / sl_encoder_free.
 */
sl_decoder *sl__conn_decoder(const sl_conn_args *a, const char *def, sl_err *err);
sl_encoder *sl__conn_encoder(const sl_conn_args *a, const char *def, sl_err *err);

#endif
