/*
 * fuzz_csv.c - libFuzzer target: decodes arbitrary bytes with the csv
 * format (default options, and '|' with a null literal and comments)
 * against a fixed schema holding every type (a ROW among them), then
 * re-encodes what decoded and decodes that again: it must give a row.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Isrc \
 *     -D_GNU_SOURCE tests/fuzz/fuzz_csv.c <src/base, batch, format files> -lm -lpthread
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"

static sl_field inner_f[] = {
	{"x", {.id = SL_T_INT}},
	{"s", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
};
static sl_row_type inner_t = {2, inner_f};

static sl_field F[] = {
	{"b", {.id = SL_T_BOOLEAN}},
	{"i8", {.id = SL_T_TINYINT}},
	{"i", {.id = SL_T_INT}},
	{"l", {.id = SL_T_BIGINT}},
	{"f", {.id = SL_T_FLOAT}},
	{"d", {.id = SL_T_DOUBLE}},
	{"dec", {.id = SL_T_DECIMAL, .precision = 10, .scale = 2}},
	{"s", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
	{"by", {.id = SL_T_VARBINARY, .length = SL_STRING_LEN}},
	{"day", {.id = SL_T_DATE}},
	{"tm", {.id = SL_T_TIME}},
	{"ts", {.id = SL_T_TIMESTAMP, .precision = 3}},
	{"ltz", {.id = SL_T_TIMESTAMP_LTZ, .precision = 3}},
	{"r", {.id = SL_T_ROW, .row = &inner_t}},
};
#define NF ((int)(sizeof(F) / sizeof(F[0])))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static sl_decoder *d[2];
	static sl_encoder *e[2];
	static sl_batch *b, *b2;
	static sl_buf out;
	static sl_arena a;
	static sl_opts o;
	sl_err err;
	if (!b) {
		sl_type t[NF];
		for (int i = 0; i < NF; i++)
			t[i] = F[i].type;
		sl_err_clear(&err);
		sl_arena_init(&a, 0);
		sl_opts_init(&o, &a);
		sl_opts_set(&o, "csv.field-delimiter", "|");
		sl_opts_set(&o, "csv.null-literal", "\\N");
		sl_opts_set(&o, "csv.allow-comments", "true");
		b = sl_batch_new(NF, t, 4);
		b2 = sl_batch_new(NF, t, 4);
		const sl_format_vtab *vt = sl_format_find("csv");
		d[0] = sl_decoder_new(vt, F, NF, NULL, &err);
		e[0] = sl_encoder_new(vt, F, NF, NULL, &err);
		d[1] = sl_decoder_new(vt, F, NF, &o, &err);
		e[1] = sl_encoder_new(vt, F, NF, &o, &err);
		sl_buf_init(&out);
		if (!b || !b2 || !d[0] || !d[1] || !e[0] || !e[1])
			abort();
	}
	char *rec = malloc(size ? size : 1);
	memcpy(rec, data, size);
	for (int k = 0; k < 2; k++) {
		sl_batch_reset(b);
		sl_err_clear(&err);
		int n = d[k]->vt->decode(d[k], rec, size, b, 0, &err);
		if (n < 0 && (b->nrows != 0 || err.msg[0] == 0))
			abort();
		if (n != 1)
			continue;
		sl_buf_clear(&out);
		if (e[k]->vt->encode(e[k], b, 0, &out, &err))
			abort();
		/* re-decode what we wrote (without the newline) unless it holds a
		 * line break inside a field or is a comment line */
		if (out.len > 1 && !memchr(out.p, '\r', out.len - 1) &&
		    !memchr(out.p, '\n', out.len - 1) && out.p[0] != '#') {
			sl_batch_reset(b2);
			sl_err_clear(&err);
			if (d[k]->vt->decode(d[k], out.p, out.len - 1, b2, 0, &err) != 1)
				abort();
		}
	}
	free(rec);
	return 0;
}
