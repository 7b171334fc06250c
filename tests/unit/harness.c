/*
 * harness.c - the shared unit-test harness (contracts in harness.h): the
 * capture and feeder operators and the feeders -> operator -> capture
 * graph of the operator tests, the two-input row feeder of the join
 * tests, sorted-line comparison, format decoders over a field list, the changelog collector of the SQL
 * property tests, scratch directories.
 *
 * Linked into every tests/unit/test_*.c program (Makefile); uses cmocka's
 * assertions, so a helper's failure fails the test that called it.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/valtext.h"
#include "state/state.h"

/* ---- the capture and feeder operators ------------------------------------- */

static const char *const kinds[] = {"+I", "-U", "+U", "-D"};

static int capture_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	th_capture *c = (th_capture *)op;
	SL_BATCH_FOREACH(in, k, row) {
		sl_buf_puts(&c->rows, kinds[in->op[row] & 3]);
		sl_buf_putc(&c->rows, '[');
		for (int i = 0; i < in->ncols; i++) {
			if (i)
				sl_buf_puts(&c->rows, ", ");
			sl_value_text(&in->cols[i], row, "NULL", NULL, &c->rows);
		}
		sl_buf_putc(&c->rows, ']');
		if (c->flags & TH_CAPTURE_ROW_WM)
			sl_buf_printf(&c->rows, " wm=%lld", (long long)in->wm[row]);
		sl_buf_putc(&c->rows, '\n');
	}
	return 0;
}

static int capture_wm(sl_op *op, int64_t wm, sl_err *err)
{
	((th_capture *)op)->last_wm = wm;
	return 0;
}

static void capture_close(sl_op *op)
{
	sl_buf_deinit(&((th_capture *)op)->rows);
}

static const sl_op_vtab capture_vtab = {.name = "Capture", .process = capture_process,
                                        .watermark = capture_wm, .close = capture_close};
static const sl_op_vtab feeder_vtab = {.name = "Feeder"};

th_capture *th_capture_new(unsigned flags)
{
	th_capture *c = calloc(1, sizeof(*c));
	assert_non_null(c);
	c->base.vt = &capture_vtab;
	c->flags = flags;
	sl_buf_init(&c->rows);
	return c;
}

const char *th_capture_text(th_capture *c)
{
	return sl_buf_cstr(&c->rows);
}

void th_capture_reset(th_capture *c)
{
	sl_buf_clear(&c->rows);
}

sl_op *th_feeder_new(void)
{
	sl_op *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	f->vt = &feeder_vtab;
	return f;
}

/* ---- feeders -> operator -> capture --------------------------------------- */

void th_graph_init(th_graph *h, const char *backend, int in_ncols)
{
	memset(h, 0, sizeof(*h));
	sl_err_clear(&h->err);
	sl_arena_init(&h->arena, 4096);
	assert_true(in_ncols <= TH_MAX_COLS);
	h->in_ncols = in_ncols;
	assert_int_equal(sl_state_backend_open(backend, &h->be, &h->err), 0);
	sl_graph_init(&h->g, h->be);
}

void th_graph_open(th_graph *h, sl_op *op, int ninputs, int nout, const sl_type *out_types,
                   sl_op *sink, unsigned cap_flags)
{
	assert_true(ninputs >= 1 && ninputs <= TH_MAX_INPUTS);
	h->nfeed = ninputs;
	for (int i = 0; i < ninputs; i++) {
		h->feed[i] = th_feeder_new();
		assert_int_equal(sl_graph_add(&h->g, h->feed[i], 0, h->in_ncols, h->types, NULL), 0);
	}
	h->op = op;
	assert_non_null(op);
	assert_int_equal(sl_graph_add(&h->g, op, ninputs, nout, out_types, NULL), 0);
	if (!sink) {
		h->cap = th_capture_new(cap_flags);
		sink = &h->cap->base;
	}
	assert_int_equal(sl_graph_add(&h->g, sink, 1, 0, NULL, NULL), 0);
	for (int i = 0; i < ninputs; i++)
		sl_graph_connect(&h->g, h->feed[i], op, i);
	sl_graph_connect(&h->g, op, sink, 0);
	assert_int_equal(sl_graph_open(&h->g, &h->err), 0);
}

void th_graph_deinit(th_graph *h)
{
	sl_graph_deinit(&h->g);
	sl_state_backend_close(h->be);
	sl_arena_deinit(&h->arena);
}

const char *th_out(th_graph *h)
{
	return th_capture_text(h->cap);
}

void th_out_reset(th_graph *h)
{
	th_capture_reset(h->cap);
}

void th_snapshot(th_graph *h, sl_snap_writer *w)
{
	sl_snap_writer_init(w);
	assert_int_equal(sl_graph_snapshot(&h->g, w, &h->err), 0);
}

void th_restore(th_graph *h, const sl_snap_writer *w)
{
	sl_snap_reader r;
	sl_snap_reader_init(&r, w->buf, w->len);
	assert_int_equal(sl_graph_restore(&h->g, &r, &h->err), 0);
}

/* ---- rows of (k STRING, ts TIMESTAMP(3), v BIGINT) ------------------------- */

void th_kv_schema(sl_type *t)
{
	t[0] = sl_type_varchar(SL_STRING_LEN);
	t[1] = sl_type_timestamp(SL_T_TIMESTAMP, 3);
	t[2] = sl_type_make(SL_T_BIGINT);
}

void th_feed_sides(th_graph *h, const th_kv_row *rows, int n, int bs, unsigned flags)
{
	sl_batch *b = sl_batch_new(3, h->types, bs);
	for (int i = 0; i < n;) {
		sl_batch_reset(b);
		int s = rows[i].side, k = i;
		for (; k < n && k < i + bs && rows[k].side == s; k++) {
			int64_t wm = rows[k].wm_s < 0 ? SL_WM_MIN : TH_T0 + TH_S(rows[k].wm_s);
			int r = sl_batch_add_row(b, rows[k].op, wm);
			if (rows[k].k)
				sl_col_set_str_ref(&b->cols[0], r, rows[k].k, (int64_t)strlen(rows[k].k));
			sl_col_set_i64(&b->cols[1], r, TH_T0 + TH_S(rows[k].ts_s));
			if ((flags & TH_NEG_IS_NULL) && rows[k].v < 0)
				sl_col_set_null(&b->cols[2], r);
			else
				sl_col_set_i64(&b->cols[2], r, rows[k].v);
		}
		assert_int_equal(sl_op_emit(h->feed[s], b, &h->err), 0);
		for (int m = k; m < n; m++)
			if (rows[m].side == s) {
				if (rows[m].wm_s >= 0)
					assert_int_equal(sl_op_emit_watermark(h->feed[s], TH_T0 + TH_S(rows[m].wm_s),
					                                      &h->err), 0);
				break;
			}
		i = k;
	}
	sl_batch_free(b);
}

/* ---- comparing outputs ------------------------------------------------------ */

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *th_sorted_lines(const char *text)
{
	char *copy = strdup(text), *save = NULL;
	size_t cap = 64, n = 0;
	char **lines = malloc(sizeof(char *) * cap);
	assert_non_null(copy);
	assert_non_null(lines);
	for (char *p = strtok_r(copy, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		if (n == cap) {
			cap *= 2;
			lines = realloc(lines, sizeof(char *) * cap);
			assert_non_null(lines);
		}
		lines[n++] = p;
	}
	qsort(lines, n, sizeof(char *), cmp_line);
	char *res = calloc(1, strlen(text) + 2), *q = res;
	assert_non_null(res);
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(lines[i]);
		memcpy(q, lines[i], l);
		q[l] = '\n';
		q += l + 1;
	}
	*q = 0;
	free(lines);
	free(copy);
	return res;
}

void th_assert_same_rows(const char *got, const char *want)
{
	char *x = th_sorted_lines(got), *y = th_sorted_lines(want);
	assert_string_equal(x, y);
	free(x);
	free(y);
}

/* ---- batches from record text through a format ------------------------------ */

void th_codec_init(th_codec *c, const char *fmt, const sl_field *fields, int n, int cap,
                   const char *const *kv, unsigned flags)
{
	sl_type types[TH_MAX_COLS];
	assert_true(n <= TH_MAX_COLS);
	for (int i = 0; i < n; i++)
		types[i] = fields[i].type;
	memset(c, 0, sizeof(*c));
	sl_arena_init(&c->a, 0);
	sl_opts_init(&c->o, &c->a);
	for (int i = 0; kv && kv[i]; i += 2)
		sl_opts_set(&c->o, kv[i], kv[i + 1]);
	c->d = sl_decoder_new(sl_format_find(fmt), fields, n, &c->o, &c->err);
	assert_non_null(c->d);
	if (flags & TH_CODEC_ENCODER) {
		c->e = sl_encoder_new(sl_format_find(fmt), fields, n, &c->o, &c->err);
		assert_non_null(c->e);
	}
	c->b = sl_batch_new(n, types, cap);
}

void th_codec_deinit(th_codec *c)
{
	sl_decoder_free(c->d);
	sl_encoder_free(c->e);
	sl_batch_free(c->b);
	sl_arena_deinit(&c->a);
}

int th_decode(th_codec *c, const char *rec)
{
	sl_err_clear(&c->err);
	return c->d->vt->decode(c->d, rec, strlen(rec), c->b, 0, &c->err);
}

/* ---- SQL jobs through the push connector ------------------------------------ */

void th_collect(void *ctx, const char *table, sl_rowkind kind, const char *text, size_t len)
{
	th_changes *ch = ctx;
	if (ch->n == ch->cap) {
		ch->cap = ch->cap ? 2 * ch->cap : 256;
		ch->v = realloc(ch->v, sizeof(*ch->v) * (size_t)ch->cap);
		assert_non_null(ch->v);
	}
	th_change *c = &ch->v[ch->n];
	assert_true(asprintf(&c->line, "%s %s %.*s", table, kinds[kind & 3], (int)len, text) > 0);
	c->text = c->line + strlen(table) + 4;
	c->kind = (int)kind & 3;
	c->seq = ch->n++;
}

void th_changes_free(th_changes *ch)
{
	for (int i = 0; i < ch->n; i++)
		free(ch->v[i].line);
	free(ch->v);
	memset(ch, 0, sizeof(*ch));
}

/* ---- scratch directories ---------------------------------------------------- */

int th_tmpdir(char *buf, size_t cap, const char *prefix)
{
	const char *t = getenv("TMPDIR");
	if (snprintf(buf, cap, "%s/%s-XXXXXX", t && *t ? t : "/tmp", prefix) >= (int)cap)
		return -1;
	return mkdtemp(buf) ? 0 : -1;
}

int th_rmtree(const char *dir)
{
	if (!dir[0])
		return 0;
	char *cmd;
	if (asprintf(&cmd, "rm -rf '%s'", dir) < 0)
		return -1;
	int rc = system(cmd);
	free(cmd);
	return rc == 0 ? 0 : -1;
}
