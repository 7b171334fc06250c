/*
 * conn_push.c - the 'push' sink: result rows queued inside the engine for
 * sl_poll (include/sluice.h).  Bare SELECTs run through the C API use it
 * too.
 *
 * Rows are queued with their change kind, as JSON objects (fields in
 * schema order, through the json format's encoder) or, when the engine
 * option 'sluice.poll.format' = 'text', as Flink's print text without the
 * kind prefix ("[u1, 30.00]").  Accepts updating streams; a table with a
 * PRIMARY KEY receives them as upserts (+I/+U/-D by key, no -U: conn.h).
 * A batch's rows are queued at once, under the queue's lock: at
 * parallelism > 1 each instance of the sink runs on its own thread.
 */
#include "engine_int.h"
#include "../data/valtext.h"
#include "../connector/conn.h"
#include "../format/format.h"

#include <stdlib.h>
#include <string.h>

typedef struct push_sink {
	sl_sink base;
	struct sl_engine *engine;
	sl_encoder *enc;
	sl_buf line;
	sl_buf rec;    /* the batch's records, queued under one lock */
	const char *tz;
	uint8_t *ins;  /* all +I, for the JSON encoder */
} push_sink;

/* Everything is in memory: configure is all there is (no open). */
static int push_configure(sl_sink *k, const sl_conn_args *a, sl_err *err)
{
	push_sink *s = (push_sink *)k;
	s->engine = a->engine;
	s->tz = a->tz;
	sl_buf_init(&s->rec);
	if (!s->engine)
		return sl_err_set(err, SL_EINVAL, "the 'push' connector needs the C API's engine");
	sl_opts_get(a->opts, "format"); /* accepted and ignored: rows are JSON */
	sl_arena tmp;
	sl_arena_init(&tmp, 1024);
	sl_opts none;
	sl_opts_init(&none, &tmp);
	s->enc = sl_encoder_new(sl_format_find("json"), a->fields, a->nfields, &none, err);
	sl_arena_deinit(&tmp);
	if (!s->enc)
		return err->code ? err->code : SL_EINVAL;
	s->ins = calloc(SL_BATCH_ROWS * 64, 1);
	return s->ins ? 0 : sl_err_set(err, SL_ENOMEM, "out of memory");
}

static int push_write(sl_sink *k, const sl_batch *b, sl_err *err)
{
	push_sink *s = (push_sink *)k;
	sl_batch view = *b;
	if (b->nrows > SL_BATCH_ROWS * 64)
		return sl_err_set(err, SL_EINVAL, "batch too large");
	view.op = s->ins;
	SL_BATCH_FOREACH(b, i, row) {
		sl_buf_clear(&s->line);
		int rc = 0;
		if (s->engine->queue_text) {
			sl_buf_putc(&s->line, '[');
			for (int c = 0; c < b->ncols && !rc; c++) {
				if (c)
					sl_buf_puts(&s->line, ", ");
				rc = sl_value_text(&b->cols[c], row, "NULL", s->tz, &s->line);
			}
			sl_buf_putc(&s->line, ']');
		} else {
			rc = s->enc->vt->encode(s->enc, &view, row, &s->line, err);
			if (!rc && s->line.len && s->line.p[s->line.len - 1] == '\n')
				s->line.len--;
		}
		if (rc)
			return rc;
		if ((rc = sl__engine_record(&s->rec, k->table, b->op[row], s->line.p, s->line.len)))
			return sl_err_set(err, rc, "out of memory");
		k->rows_written++;
	}
	int rc = sl__engine_enqueue_records(s->engine, &s->rec);
	sl_buf_clear(&s->rec);
	return rc ? sl_err_set(err, rc, "out of memory") : 0;
}

static void push_close(sl_sink *k)
{
	push_sink *s = (push_sink *)k;
	sl_encoder_free(s->enc);
	sl_buf_deinit(&s->line);
	sl_buf_deinit(&s->rec);
	free(s->ins);
}

const sl_sink_vtab sl_push_sink_vtab = {
	.name = "push",
	.size = sizeof(push_sink),
	.accepts_updates = 1,
	.upsert = 1,
	.guarantee = "at-least-once",
	.configure = push_configure,
	.write = push_write,
	.close = push_close,
};
