/*
 * fmt_json_envelope.c - the encoder shared by the JSON changelog formats
 * (fmt_debezium_json.c, fmt_canal_json.c, fmt_maxwell_json.c): a row is
 * written by fmt_json_write.c's schema-directed writer between the two literals
 * its format's sl_jenvelope gives for the row's change kind (+I/+U add a
 * row, -U/-D take one back; docs/semantics.md §2).  Decoding stays in each
 * format's file: the envelopes differ in what they carry, not in how a
 * row is written.
 *
 * Invariants: no allocation but the caller's output buffer; one call
 * appends one record with its newline, or on SL_ENOMEM whatever part fit
 * (the caller drops the record).  Encoders are per sink and used by one
 * thread.
 */
#include "fmt_json_envelope.h"

#include "sluice.h"

int sl__jenv_encoder_init(sl_encoder *e, const sl_jenvelope *env, const sl_opts *opts,
                          sl_err *err)
{
	sl_jenv_encoder *je = (sl_jenv_encoder *)e;
	je->env = env;
	return sl__jopts_read(env->format, opts, &je->o, NULL, err);
}

int sl__jenv_encode(sl_encoder *e, const sl_batch *b, int row, sl_buf *out, sl_err *err)
{
	const sl_jenv_encoder *je = (const sl_jenv_encoder *)e;
	const sl_jenvelope *env = je->env;
	int add = b->op[row] == SL_INSERT || b->op[row] == SL_UPDATE_AFTER;
	int rc = sl_buf_puts(out, add ? env->add_open : env->del_open);
	if (!rc)
		rc = sl__json_write_object(e->fields, e->nfields, b->cols, row, &je->o, out);
	if (!rc)
		rc = sl_buf_puts(out, add ? env->add_close : env->del_close);
	return rc ? sl_err_set(err, SL_ENOMEM, "%s: out of memory", env->format) : 0;
}

void sl__jenv_encoder_deinit(sl_encoder *e)
{
}
