/*
 * harness.h - what the unit test programs share (tests/unit/harness.c,
 * linked into every test_*.c by the Makefile).
 *
 * Operator tests drive one operator through its method table:
 *
 *     feeder(s) --> operator under test --> capture
 *
 * th_graph builds that graph on a fresh state backend: a feeder is an
 * operator without methods that the test emits batches and watermarks
 * from (one per input of the operator, all with the schema types[0..
 * in_ncols)); the capture records every row it receives as text,
 * "+I[a, 2026-08-01 09:00:01, 30]\n", and the last watermark.
 * th_snapshot / th_restore move a graph's state to a fresh one.
 *
 * Many operator tests use the schema (k STRING, ts TIMESTAMP(3), v BIGINT)
 * with times in seconds after TH_T0; th_kv_row and th_feed_sides feed rows
 * of it to one of two inputs.
 *
 * Format tests decode record text into a batch with th_codec (a format's
 * decoder, and encoder, over a field list).
 *
 * SQL tests run a job through the push connector and collect its changelog
 * with th_changes (one "<table> <kind>[<row text>]" line per polled row).
 *
 * Scratch directories: th_tmpdir / th_rmtree.
 *
 * Every helper fails the running cmocka test on an unexpected error; none
 * is thread-safe (cmocka runs tests one at a time).
 */
#ifndef SLUICE_TEST_HARNESS_H
#define SLUICE_TEST_HARNESS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "sluice.h"
#include "base/buf.h"
#include "data/batch.h"
#include "exec/graph.h"
#include "format/format.h"
#include "state/state.h"

/* ---- the capture operator ------------------------------------------------- */

/* th_capture_new flags */
enum {
	TH_CAPTURE_ROW_WM = 1, /* append " wm=<W_before in micros>" to each row */
};

/* Records the rows it receives as text lines and the last watermark. */
typedef struct th_capture {
	sl_op base;
	sl_buf rows;     /* "<kind>[v1, v2, ...]\n" per row, values as Flink prints them */
	int64_t last_wm; /* the last watermark received (0 before any) */
	unsigned flags;
} th_capture;

/* A capture operator (the graph frees it).  flags: TH_CAPTURE_*. */
th_capture *th_capture_new(unsigned flags);

/* The rows recorded so far (valid until the next row or reset). */
const char *th_capture_text(th_capture *c);

/* Forgets the rows recorded so far. */
void th_capture_reset(th_capture *c);

/* An operator without methods, a graph's source: the test calls
 * sl_op_emit / sl_op_emit_watermark / sl_graph_end_source on it. */
sl_op *th_feeder_new(void);

/* ---- feeders -> operator -> capture --------------------------------------- */

#define TH_MAX_INPUTS 2
#define TH_MAX_COLS 16

typedef struct th_graph {
	sl_state_backend *be;
	sl_graph g;
	sl_op *feed[TH_MAX_INPUTS]; /* feed[i] is connected to input i of op */
	int nfeed;
	sl_op *op;                  /* the operator under test */
	th_capture *cap;            /* op's output, unless the test gave its own sink */
	sl_err err;
	sl_arena arena;             /* the test's expressions and plans */
	sl_type types[TH_MAX_COLS]; /* [0, in_ncols): every feeder's schema; the test may
	                               keep more types after them */
	int in_ncols;
} th_graph;

/* Zeroes h, opens `backend` ("hashmap", "rocksdb") and an empty graph on it,
 * and an arena.  The test then sets types[0..in_ncols) and builds op. */
void th_graph_init(th_graph *h, const char *backend, int in_ncols);

/* Adds ninputs feeders (schema types[0..in_ncols)), op (nout columns of
 * out_types) and the sink: `sink` when not NULL (an operator the test
 * made; h->cap stays NULL), else a capture with cap_flags.  Connects
 * feeder i to input i of op and op to the sink, and opens the graph. */
void th_graph_open(th_graph *h, sl_op *op, int ninputs, int nout, const sl_type *out_types,
                   sl_op *sink, unsigned cap_flags);

/* Frees the graph (and its operators), the backend and the arena. */
void th_graph_deinit(th_graph *h);

/* The captured output so far / forgets it. */
const char *th_out(th_graph *h);
void th_out_reset(th_graph *h);

/* Snapshots h's graph into w (initialised here; the caller deinits). */
void th_snapshot(th_graph *h, sl_snap_writer *w);

/* Restores the snapshot in w into h's (open, fresh) graph. */
void th_restore(th_graph *h, const sl_snap_writer *w);

/* ---- rows of (k STRING, ts TIMESTAMP(3), v BIGINT) ------------------------- */

#define TH_T0 1785574800000000LL /* 2026-08-01 09:00:00 UTC in micros */
#define TH_S(x) ((int64_t)(x) * 1000000LL)

/* Sets types[0..3) to k STRING, ts TIMESTAMP(3), v BIGINT. */
void th_kv_schema(sl_type *t);

/* An input row: input (0 left, 1 right), key (NULL = NULL), ts in seconds
 * after TH_T0, value, change kind, W_before of its input in seconds after
 * TH_T0 (-1 = -infinity). */
typedef struct th_kv_row {
	int side;
	const char *k;
	int64_t ts_s;
	int64_t v;
	uint8_t op;
	int64_t wm_s;
} th_kv_row;

/* th_feed_sides flags */
enum {
	TH_NEG_IS_NULL = 1, /* a negative v is NULL */
};

/* Feeds rows[0..n): consecutive rows of one input in batches of up to bs;
 * after each batch that input's watermark moves to the W_before of its
 * next row, when given. */
void th_feed_sides(th_graph *h, const th_kv_row *rows, int n, int bs, unsigned flags);

/* ---- comparing outputs ------------------------------------------------------ */

/* The lines of text sorted (malloc'd), to compare outputs as multisets. */
char *th_sorted_lines(const char *text);

/* Fails unless got and want hold the same lines in any order. */
void th_assert_same_rows(const char *got, const char *want);

/* ---- batches from record text through a format ------------------------------ */

/* th_codec_init flags */
enum {
	TH_CODEC_ENCODER = 1, /* also open the format's encoder */
};

/* A format's decoder (and encoder) over a field list, and the batch its
 * records decode into. */
typedef struct th_codec {
	sl_decoder *d;
	sl_encoder *e; /* NULL without TH_CODEC_ENCODER */
	sl_batch *b;   /* cap rows of the fields' types */
	sl_err err;    /* the last decode's error */
	sl_arena a;
	sl_opts o;     /* the format options */
} th_codec;

/* Opens format `fmt` over fields[0..n) with the options kv (key, value
 * pairs ending with NULL; NULL for none) and a batch of cap rows.  Fails
 * the test when the decoder (or the encoder) cannot be made. */
void th_codec_init(th_codec *c, const char *fmt, const sl_field *fields, int n, int cap,
                   const char *const *kv, unsigned flags);

/* Frees what th_codec_init made. */
void th_codec_deinit(th_codec *c);

/* Decodes one record (W_before 0) into c->b after its rows, with c->err
 * cleared first.  Returns the decoder's result: rows added, or an error. */
int th_decode(th_codec *c, const char *rec);

/* ---- SQL jobs through the push connector ------------------------------------ */

/* One polled row. */
typedef struct th_change {
	char *line; /* "<table> <kind> <row text>" (malloc'd) */
	char *text; /* the row text, inside line */
	int kind;   /* SL_INSERT ... SL_DELETE */
	int seq;    /* arrival order from 0 */
} th_change;

/* +1 for a row that adds (+I, +U), -1 for one that takes back (-U, -D). */
static inline int th_change_sign(const th_change *c)
{
	return c->kind == SL_INSERT || c->kind == SL_UPDATE_AFTER ? 1 : -1;
}

/* The rows a job emitted, in arrival order. */
typedef struct th_changes {
	th_change *v;
	int n, cap;
} th_changes;

/* An sl_row_cb that appends each row to the th_changes given as ctx. */
void th_collect(void *ctx, const char *table, sl_rowkind kind, const char *text, size_t len);

/* Frees the lines and the array (ch may be reused after). */
void th_changes_free(th_changes *ch);

/* ---- scratch directories ---------------------------------------------------- */

/* Makes a fresh directory $TMPDIR/<prefix>-XXXXXX (TMPDIR defaults to
 * /tmp) and writes its path to buf.  Returns 0 or -1. */
int th_tmpdir(char *buf, size_t cap, const char *prefix);

/* Removes dir and everything in it (no-op for ""); 0 or -1. */
int th_rmtree(const char *dir);

#endif
