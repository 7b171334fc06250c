/*
 * fuzz_changelog.c - libFuzzer target for the changelog formats:
 * decodes arbitrary bytes with debezium-json (plain and keyed, the
 * PRIMARY KEY mode that accepts a missing 'before'), canal-json (with a
 * table filter) and maxwell-json into small batches (4 rows, some already
 * used, so canal's multi-row records hit the batch-room signal SL_EFULL),
 * then re-encodes every decoded row with each format's encoder.  Any
 * crash, sanitizer report or leak is a bug; decode errors are expected,
 * but an error or SL_EFULL must leave no row appended.
 *
 * Built and run by tests/fuzz/run.sh (seed corpus tests/fuzz/corpus/changelog/).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "sluice.h"

static sl_field inner_f[] = {
	{"x", {.id = SL_T_INT}},
	{"s", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
};
static sl_row_type inner_t = {2, inner_f};

static sl_field F[] = {
	{"id", {.id = SL_T_INT}},
	{"name", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
	{"weight", {.id = SL_T_DOUBLE}},
	{"amount", {.id = SL_T_DECIMAL, .precision = 10, .scale = 2}},
	{"ts", {.id = SL_T_TIMESTAMP, .precision = 3}},
	{"ok", {.id = SL_T_BOOLEAN}},
	{"r", {.id = SL_T_ROW, .row = &inner_t}},
};
#define NF ((int)(sizeof(F) / sizeof(F[0])))

static const char *const names[] = {"debezium-json", "debezium-json", "canal-json",
                                    "maxwell-json"};
#define ND 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static sl_decoder *d[ND];
	static sl_encoder *e[ND];
	static sl_batch *b;
	static sl_buf out;
	static sl_arena a;
	static sl_opts o;
	sl_err err;
	if (!b) {
		sl_type t[NF];
		for (int i = 0; i < NF; i++)
			t[i] = F[i].type;
		sl_err_clear(&err);
		b = sl_batch_new(NF, t, 4);
		sl_arena_init(&a, 0);
		sl_opts_init(&o, &a);
		sl_opts_set(&o, "canal-json.table.include", "prod.*|t");
		for (int k = 0; k < ND; k++) {
			d[k] = sl_decoder_new(sl_format_find(names[k]), F, NF, &o, &err);
			e[k] = sl_encoder_new(sl_format_find(names[k]), F, NF, NULL, &err);
			if (!d[k] || !e[k])
				abort();
		}
		d[1]->keyed = 1;
		sl_buf_init(&out);
	}
	/* an exact-size heap copy so ASan sees reads past the end */
	char *rec = malloc(size ? size : 1);
	memcpy(rec, data, size);
	for (int k = 0; k < ND; k++) {
		for (int used = 0; used <= 2; used += 2) {
			sl_batch_reset(b);
			for (int i = 0; i < used; i++)
				sl_batch_add_row(b, SL_INSERT, 0);
			sl_err_clear(&err);
			int n = d[k]->vt->decode(d[k], rec, size, b, 0, &err);
			if (n < 0 && b->nrows != used)
				abort(); /* an error must leave no row */
			if (n < 0 && n != SL_EFULL && err.msg[0] == 0)
				abort(); /* and say why */
			if (n == SL_EFULL && used == 0)
				abort(); /* an empty batch gets an error instead */
			for (int r = used; r < b->nrows; r++)
				for (int j = 0; j < ND; j++) {
					sl_buf_clear(&out);
					e[j]->vt->encode(e[j], b, r, &out, &err);
				}
		}
	}
	free(rec);
	return 0;
}
