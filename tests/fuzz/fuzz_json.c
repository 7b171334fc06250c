/*
 * fuzz_json.c - libFuzzer target: decodes arbitrary bytes with the json
 * and debezium-json formats against a fixed schema holding every type
 * (a nested ROW among them, and ARRAY and MAP fields nesting each other and
 * ROWs: packed values, data/packed.h), then re-encodes whatever decoded.
 * Any crash, sanitizer report or leak is a bug; decode errors are
 * expected.  Every field takes the json reader's flat path (fmt_json.c,
 * read_flat; a ROW's fields too, level by level, and ARRAY and MAP values
 * through read_value): a record is decoded as given and again with a
 * blank after its '{' (which the flat path never takes), and the two
 * must give the same result and re-encode to the same text.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Isrc \
 *     -D_GNU_SOURCE tests/fuzz/fuzz_json.c <src/base, batch, format files> -lm -lpthread
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"

static sl_field inner_f[] = {
	{"x", {.id = SL_T_INT}},
	{"s", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
	{"t", {.id = SL_T_TIMESTAMP_LTZ, .precision = 3}},
};
static sl_row_type inner_t = {3, inner_f};
static sl_field outer_f[] = {
	{"in", {.id = SL_T_ROW, .row = &inner_t}},
	{"y", {.id = SL_T_DOUBLE}},
};
static sl_row_type outer_t = {2, outer_f};
static sl_field arr_f[] = {{"element", {.id = SL_T_BIGINT}}};
static sl_row_type arr_t = {1, arr_f};
static sl_field arr_arr_f[] = {{"element", {.id = SL_T_ARRAY, .row = &arr_t}}};
static sl_row_type arr_arr_t = {1, arr_arr_f};
static sl_field map_f[] = {
	{"key", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
	{"value", {.id = SL_T_ARRAY, .row = &arr_t}},
};
static sl_row_type map_t = {2, map_f};
static sl_field arr_row_f[] = {{"element", {.id = SL_T_ROW, .row = &outer_t}}};
static sl_row_type arr_row_t = {1, arr_row_f};

static sl_field F[] = {
	{"b", {.id = SL_T_BOOLEAN}},
	{"i8", {.id = SL_T_TINYINT}},
	{"i16", {.id = SL_T_SMALLINT}},
	{"i", {.id = SL_T_INT}},
	{"l", {.id = SL_T_BIGINT}},
	{"f", {.id = SL_T_FLOAT}},
	{"d", {.id = SL_T_DOUBLE}},
	{"dec", {.id = SL_T_DECIMAL, .precision = 10, .scale = 2}},
	{"dec38", {.id = SL_T_DECIMAL, .precision = 38, .scale = 10}},
	{"c", {.id = SL_T_CHAR, .length = 3}},
	{"s", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
	{"by", {.id = SL_T_VARBINARY, .length = SL_STRING_LEN}},
	{"day", {.id = SL_T_DATE}},
	{"tm", {.id = SL_T_TIME}},
	{"ts", {.id = SL_T_TIMESTAMP, .precision = 3}},
	{"ts9", {.id = SL_T_TIMESTAMP, .precision = 9}},
	{"ltz", {.id = SL_T_TIMESTAMP_LTZ, .precision = 3}},
	{"ids", {.id = SL_T_INTERVAL_DT}},
	{"iym", {.id = SL_T_INTERVAL_YM}},
	{"r", {.id = SL_T_ROW, .row = &outer_t}},
	{"a", {.id = SL_T_ARRAY, .row = &arr_arr_t}},
	{"m", {.id = SL_T_MAP, .row = &map_t}},
	{"ar", {.id = SL_T_ARRAY, .row = &arr_row_t}},
};
#define NF ((int)(sizeof(F) / sizeof(F[0])))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static sl_decoder *dj, *dd;
	static sl_encoder *ej, *ed;
	static sl_batch *b;
	static sl_buf out;
	sl_err err;
	if (!b) {
		sl_type t[NF];
		for (int i = 0; i < NF; i++)
			t[i] = F[i].type;
		sl_err_clear(&err);
		b = sl_batch_new(NF, t, 4);
		dj = sl_decoder_new(sl_format_find("json"), F, NF, NULL, &err);
		dd = sl_decoder_new(sl_format_find("debezium-json"), F, NF, NULL, &err);
		ej = sl_encoder_new(sl_format_find("json"), F, NF, NULL, &err);
		ed = sl_encoder_new(sl_format_find("debezium-json"), F, NF, NULL, &err);
		sl_buf_init(&out);
		if (!b || !dj || !dd || !ej || !ed)
			abort();
	}
	static sl_decoder *df;
	static sl_batch *bf, *bg;
	static sl_encoder *ef;
	static sl_buf out2;
	if (!df) {
		sl_type t[NF];
		for (int i = 0; i < NF; i++)
			t[i] = F[i].type;
		bf = sl_batch_new(NF, t, 4);
		bg = sl_batch_new(NF, t, 4);
		df = sl_decoder_new(sl_format_find("json"), F, NF, NULL, &err);
		ef = sl_encoder_new(sl_format_find("json"), F, NF, NULL, &err);
		sl_buf_init(&out2);
		if (!bf || !bg || !df || !ef)
			abort();
	}
	/* an exact-size heap copy so ASan sees reads past the end */
	char *rec = malloc(size ? size : 1);
	memcpy(rec, data, size);
	if (size > 0 && rec[0] == '{') {
		char *rec2 = malloc(size + 1);
		rec2[0] = '{';
		rec2[1] = ' ';
		memcpy(rec2 + 2, rec + 1, size - 1);
		sl_batch_reset(bf);
		sl_batch_reset(bg);
		sl_err_clear(&err);
		int nf = df->vt->decode(df, rec, size, bf, 0, &err);
		sl_err_clear(&err);
		int ng = df->vt->decode(df, rec2, size + 1, bg, 0, &err);
		if (nf != ng || bf->nrows != bg->nrows)
			abort(); /* the flat path decided otherwise than the general one */
		if (nf == 1) {
			sl_buf_clear(&out);
			sl_buf_clear(&out2);
			ef->vt->encode(ef, bf, 0, &out, &err);
			ef->vt->encode(ef, bg, 0, &out2, &err);
			if (out.len != out2.len || memcmp(out.p, out2.p, out.len) != 0)
				abort(); /* ... or gave another row */
		}
		free(rec2);
	}
	sl_decoder *ds[2] = {dj, dd};
	for (int k = 0; k < 2; k++) {
		sl_batch_reset(b);
		sl_err_clear(&err);
		int n = ds[k]->vt->decode(ds[k], rec, size, b, 0, &err);
		if (n < 0 && (b->nrows != 0 || err.msg[0] == 0))
			abort(); /* an error must leave no row and say why */
		for (int r = 0; r < b->nrows; r++) {
			sl_buf_clear(&out);
			if (b->op[r] == 0)
				ej->vt->encode(ej, b, r, &out, &err);
			ed->vt->encode(ed, b, r, &out, &err);
		}
	}
	free(rec);
	return 0;
}
