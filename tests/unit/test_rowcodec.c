/*
 * test_rowcodec.c - unit tests of src/data/rowcodec.c: the bytes of the
 * key form and the row form for every type (pinned: snapshots and
 * checkpoints hold them), canonical doubles in the key form only, ROW
 * values (nested, NULL, NULL fields) through encode and decode,
 * equality as the key form defines it over either form, malformed
 * bytes refused, and the one-column key form written in place
 * (sl_rowcodec_key1) equal to sl_rowcodec_key's.
 *
 * The pinned bytes were checked equal to those of the two codecs
 * rowcodec.c replaced (data/rowkey.c per column for every non-ROW type,
 * the row bytes of exec/join_rows.c for whole rows) by this file's first
 * version (commit 7eb0eb0), before they were deleted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "data/rowcodec.h"
#include "data/packed.h"
#include "sluice.h"

/* ---- a batch with one column of every type ------------------------------- */

static sl_field inner_f[] = {
	{"x", {SL_T_INT, 0, 0, 0, 0, NULL}},
	{"s", {SL_T_VARCHAR, 0, 0, 0, SL_STRING_LEN, NULL}},
};
static sl_row_type inner_t = {2, inner_f};
static sl_field outer_f[] = {
	{"d", {SL_T_DOUBLE, 0, 0, 0, 0, NULL}},
	{"in", {SL_T_ROW, 0, 0, 0, 0, &inner_t}},
	{"m", {SL_T_DECIMAL, 38, 2, 0, 0, NULL}},
};
static sl_row_type outer_t = {3, outer_f};

enum { NT = 20 };

static void all_types(sl_type *t)
{
	t[0] = sl_type_make(SL_T_BOOLEAN);
	t[1] = sl_type_make(SL_T_TINYINT);
	t[2] = sl_type_make(SL_T_SMALLINT);
	t[3] = sl_type_make(SL_T_INT);
	t[4] = sl_type_make(SL_T_BIGINT);
	t[5] = sl_type_make(SL_T_FLOAT);
	t[6] = sl_type_make(SL_T_DOUBLE);
	t[7] = sl_type_decimal(10, 2);
	t[8] = sl_type_decimal(38, 4);
	t[9] = sl_type_make(SL_T_CHAR);
	t[9].length = 3;
	t[10] = sl_type_varchar(SL_STRING_LEN);
	t[11] = sl_type_make(SL_T_BINARY);
	t[11].length = 2;
	t[12] = sl_type_make(SL_T_VARBINARY);
	t[12].length = SL_STRING_LEN;
	t[13] = sl_type_make(SL_T_DATE);
	t[14] = sl_type_make(SL_T_TIME);
	t[15] = sl_type_timestamp(SL_T_TIMESTAMP, 3);
	t[16] = sl_type_timestamp(SL_T_TIMESTAMP_LTZ, 6);
	t[17] = sl_type_make(SL_T_INTERVAL_DT);
	t[18] = sl_type_make(SL_T_INTERVAL_YM);
	t[19] = sl_type_make(SL_T_ROW);
	t[19].row = &outer_t;
}

/* Row 0: values; row 1: every column NULL; row 2: other values (-0.0,
 * NaN, empty strings, a NULL field inside the ROW, a NULL nested ROW). */
static sl_batch *make_batch(void)
{
	sl_type t[NT];
	all_types(t);
	sl_batch *b = sl_batch_new(NT, t, 8);
	assert_non_null(b);
	int r = sl_batch_add_row(b, SL_INSERT, 0);
	int64_t iv[] = {1, -5, 300, -70000, 1234567890123LL};
	for (int i = 0; i < 5; i++)
		sl_col_set_i64(&b->cols[i], r, iv[i]);
	sl_col_set_f64(&b->cols[5], r, 1.5);
	sl_col_set_f64(&b->cols[6], r, -2.25);
	sl_col_set_i128(&b->cols[7], r, -12345);
	sl_col_set_i128(&b->cols[8], r, (sl_i128)1 << 100);
	sl_col_set_str(b, &b->cols[9], r, "ab ", 3);
	sl_col_set_str(b, &b->cols[10], r, "h\xc3\xa9llo", 6);
	sl_col_set_str(b, &b->cols[11], r, "\x00\xff", 2);
	sl_col_set_str(b, &b->cols[12], r, "\x01\x02\x03", 3);
	sl_col_set_i64(&b->cols[13], r, 20000);
	sl_col_set_i64(&b->cols[14], r, 3723004000LL);
	sl_col_set_i64(&b->cols[15], r, 1785574805123000LL);
	sl_col_set_i64(&b->cols[16], r, -1);
	sl_col_set_i64(&b->cols[17], r, 5000000);
	sl_col_set_i64(&b->cols[18], r, 14);
	sl_col *row = &b->cols[19];
	row->null[r] = 0;
	sl_col_set_f64(&row->child[0], r, 0.5);
	row->child[1].null[r] = 0;
	sl_col_set_i64(&row->child[1].child[0], r, 7);
	sl_col_set_str(b, &row->child[1].child[1], r, "in", 2);
	sl_col_set_i128(&row->child[2], r, 99);

	sl_batch_add_row(b, SL_INSERT, 0); /* all NULL */

	r = sl_batch_add_row(b, SL_INSERT, 0);
	for (int i = 0; i < 5; i++)
		sl_col_set_i64(&b->cols[i], r, 0);
	sl_col_set_f64(&b->cols[5], r, -0.0);
	sl_col_set_f64(&b->cols[6], r, -NAN);
	sl_col_set_i128(&b->cols[7], r, 0);
	sl_col_set_i128(&b->cols[8], r, -((sl_i128)1 << 120));
	sl_col_set_str(b, &b->cols[9], r, "", 0);
	sl_col_set_str(b, &b->cols[10], r, "", 0);
	sl_col_set_str(b, &b->cols[11], r, "", 0);
	sl_col_set_str(b, &b->cols[12], r, "", 0);
	for (int i = 13; i < 19; i++)
		sl_col_set_i64(&b->cols[i], r, INT64_MIN + i);
	row->null[r] = 0;
	sl_col_set_f64(&row->child[0], r, -0.0);
	/* child[1] (the nested ROW) stays NULL, child[2] too */
	return b;
}

static void hex(const sl_buf *b, char *out)
{
	for (size_t i = 0; i < b->len; i++)
		sprintf(out + 2 * i, "%02x", (uint8_t)b->p[i]);
	out[2 * b->len] = 0;
}

/* ---- pinned bytes -------------------------------------------------------- */

typedef struct pinned {
	int row, col, key; /* key: 1 key form, 0 row form */
	const char *hex;
} pinned;

/* Rows 0 and 2 of make_batch, one column at a time (row 1, all NULL, is
 * "01" for every column and form). */
static const pinned PINNED[] = {
	{0, 0, 1, "000100000000000000"},
	{0, 0, 0, "000100000000000000"},
	{0, 1, 1, "00fbffffffffffffff"},
	{0, 1, 0, "00fbffffffffffffff"},
	{0, 2, 1, "002c01000000000000"},
	{0, 2, 0, "002c01000000000000"},
	{0, 3, 1, "0090eefeffffffffff"},
	{0, 3, 0, "0090eefeffffffffff"},
	{0, 4, 1, "00cb04fb711f010000"},
	{0, 4, 0, "00cb04fb711f010000"},
	{0, 5, 1, "00000000000000f83f"},
	{0, 5, 0, "00000000000000f83f"},
	{0, 6, 1, "0000000000000002c0"},
	{0, 6, 0, "0000000000000002c0"},
	{0, 7, 1, "00c7cfffffffffffffffffffffffffffff"},
	{0, 7, 0, "00c7cfffffffffffffffffffffffffffff"},
	{0, 8, 1, "0000000000000000000000000010000000"},
	{0, 8, 0, "0000000000000000000000000010000000"},
	{0, 9, 1, "0003000000616220"},
	{0, 9, 0, "0003000000616220"},
	{0, 10, 1, "000600000068c3a96c6c6f"},
	{0, 10, 0, "000600000068c3a96c6c6f"},
	{0, 11, 1, "000200000000ff"},
	{0, 11, 0, "000200000000ff"},
	{0, 12, 1, "0003000000010203"},
	{0, 12, 0, "0003000000010203"},
	{0, 13, 1, "00204e000000000000"},
	{0, 13, 0, "00204e000000000000"},
	{0, 14, 1, "006088e8dd00000000"},
	{0, 14, 0, "006088e8dd00000000"},
	{0, 15, 1, "00b8affa87f8570600"},
	{0, 15, 0, "00b8affa87f8570600"},
	{0, 16, 1, "00ffffffffffffffff"},
	{0, 16, 0, "00ffffffffffffffff"},
	{0, 17, 1, "00404b4c0000000000"},
	{0, 17, 0, "00404b4c0000000000"},
	{0, 18, 1, "000e00000000000000"},
	{0, 18, 0, "000e00000000000000"},
	{0, 19, 1, "0000000000000000e03f000007000000000000000002000000696e0063000000000000000000000000000000"},
	{0, 19, 0, "0000000000000000e03f000007000000000000000002000000696e0063000000000000000000000000000000"},
	{2, 0, 1, "000000000000000000"},
	{2, 0, 0, "000000000000000000"},
	{2, 1, 1, "000000000000000000"},
	{2, 1, 0, "000000000000000000"},
	{2, 2, 1, "000000000000000000"},
	{2, 2, 0, "000000000000000000"},
	{2, 3, 1, "000000000000000000"},
	{2, 3, 0, "000000000000000000"},
	{2, 4, 1, "000000000000000000"},
	{2, 4, 0, "000000000000000000"},
	{2, 5, 1, "000000000000000000"},
	{2, 5, 0, "000000000000000080"},
	{2, 6, 1, "00000000000000f87f"},
	{2, 6, 0, "00000000000000f8ff"},
	{2, 7, 1, "0000000000000000000000000000000000"},
	{2, 7, 0, "0000000000000000000000000000000000"},
	{2, 8, 1, "00000000000000000000000000000000ff"},
	{2, 8, 0, "00000000000000000000000000000000ff"},
	{2, 9, 1, "0000000000"},
	{2, 9, 0, "0000000000"},
	{2, 10, 1, "0000000000"},
	{2, 10, 0, "0000000000"},
	{2, 11, 1, "0000000000"},
	{2, 11, 0, "0000000000"},
	{2, 12, 1, "0000000000"},
	{2, 12, 0, "0000000000"},
	{2, 13, 1, "000d00000000000080"},
	{2, 13, 0, "000d00000000000080"},
	{2, 14, 1, "000e00000000000080"},
	{2, 14, 0, "000e00000000000080"},
	{2, 15, 1, "000f00000000000080"},
	{2, 15, 0, "000f00000000000080"},
	{2, 16, 1, "001000000000000080"},
	{2, 16, 0, "001000000000000080"},
	{2, 17, 1, "001100000000000080"},
	{2, 17, 0, "001100000000000080"},
	{2, 18, 1, "001200000000000080"},
	{2, 18, 0, "001200000000000080"},
	{2, 19, 1, "000000000000000000000101"},
	{2, 19, 0, "000000000000000000800101"},
};

static void test_pinned_bytes(void **st)
{
	sl_batch *b = make_batch();
	sl_buf a;
	sl_buf_init(&a);
	static char h[4096];
	for (size_t i = 0; i < sizeof(PINNED) / sizeof(PINNED[0]); i++) {
		const pinned *p = &PINNED[i];
		sl_buf_clear(&a);
		if (p->key)
			assert_int_equal(sl_rowcodec_key(b, &p->col, 1, p->row, &a), 0);
		else
			assert_int_equal(sl_rowcodec_cols(b, &p->col, 1, p->row, &a), 0);
		hex(&a, h);
		if (strcmp(h, p->hex))
			fail_msg("row %d column %d %s form: %s, pinned %s", p->row, p->col,
			         p->key ? "key" : "row", h, p->hex);
	}
	for (int c = 0; c < NT; c++) {
		sl_buf_clear(&a);
		assert_int_equal(sl_rowcodec_key(b, &c, 1, 1, &a), 0);
		sl_rowcodec_cols(b, &c, 1, 1, &a);
		hex(&a, h);
		assert_string_equal(h, "0101");
	}
	/* the row form of a whole row is its columns' row forms in order */
	for (int r = 0; r < 3; r++) {
		sl_buf whole;
		sl_buf_init(&whole);
		sl_buf_clear(&a);
		for (int c = 0; c < NT; c++)
			sl_rowcodec_cols(b, &c, 1, r, &a);
		assert_int_equal(sl_rowcodec_row(b, r, &whole), 0);
		assert_int_equal(whole.len, a.len);
		assert_memory_equal(whole.p, a.p, a.len);
		sl_buf_deinit(&whole);
	}
	sl_buf_deinit(&a);
	sl_batch_free(b);
}

/* The key form is canonical for doubles (-0.0 = 0.0, one NaN), also
 * inside ROW values; the row form keeps them. */
static void test_key_form_canonical(void **st)
{
	sl_type t[2] = {sl_type_make(SL_T_DOUBLE), sl_type_make(SL_T_ROW)};
	t[1].row = &outer_t;
	sl_batch *b = sl_batch_new(2, t, 4);
	double v[4] = {0.0, -0.0, NAN, -NAN};
	for (int r = 0; r < 4; r++) {
		sl_batch_add_row(b, SL_INSERT, 0);
		sl_col_set_f64(&b->cols[0], r, v[r]);
		b->cols[1].null[r] = 0;
		sl_col_set_f64(&b->cols[1].child[0], r, v[r]);
	}
	sl_buf k[4], w[4];
	int cols[2] = {0, 1};
	for (int r = 0; r < 4; r++) {
		sl_buf_init(&k[r]);
		sl_buf_init(&w[r]);
		assert_int_equal(sl_rowcodec_key(b, cols, 2, r, &k[r]), 0);
		assert_int_equal(sl_rowcodec_row(b, r, &w[r]), 0);
	}
	assert_memory_equal(k[0].p, k[1].p, k[0].len);
	assert_memory_equal(k[2].p, k[3].p, k[2].len);
	assert_memory_not_equal(w[0].p, w[1].p, w[0].len);
	/* the row form decodes to -0.0 exactly */
	sl_batch *o = sl_batch_new(2, t, 1);
	int r = sl_batch_add_row(o, SL_INSERT, 0);
	assert_int_equal(sl_rowcodec_decode_cols(w[1].p, (uint32_t)w[1].len, o, o->cols, 2, r), 0);
	assert_true(signbit(o->cols[0].v.f64[r]) && o->cols[0].v.f64[r] == 0);
	assert_true(signbit(o->cols[1].child[0].v.f64[r]));
	for (int i = 0; i < 4; i++) {
		sl_buf_deinit(&k[i]);
		sl_buf_deinit(&w[i]);
	}
	sl_batch_free(o);
	sl_batch_free(b);
}

/* A decoded NULL has its value zeroed (a ROW's fields NULL and zeroed
 * too), so a row decoded into a slot that was not cleared
 * (sl_batch_add_row_nc: the joins' candidates) is whole: the slot below
 * holds other values first. */
static void test_decode_null_zeroes(void **st)
{
	sl_type t[3] = {sl_type_make(SL_T_BIGINT), sl_type_make(SL_T_VARCHAR),
	                sl_type_make(SL_T_ROW)};
	t[2].row = &outer_t;
	sl_batch *b = sl_batch_new(3, t, 1);
	sl_batch_add_row(b, SL_INSERT, 0); /* all NULL */
	sl_buf w;
	sl_buf_init(&w);
	assert_int_equal(sl_rowcodec_row(b, 0, &w), 0);
	sl_batch *o = sl_batch_new(3, t, 2);
	int r = sl_batch_add_row(o, SL_INSERT, 0);
	sl_col_set_i64(&o->cols[0], r, 42);
	sl_col_set_str_ref(&o->cols[1], r, "stale", 5);
	o->cols[2].null[r] = 0;
	sl_col_set_f64(&o->cols[2].child[0], r, 2.5);
	assert_int_equal(sl_rowcodec_decode_cols(w.p, (uint32_t)w.len, o, o->cols, 3, r), 0);
	assert_true(o->cols[0].null[r] && o->cols[0].v.i64[r] == 0);
	assert_true(o->cols[1].null[r] && o->cols[1].v.str[r].len == 0);
	assert_true(o->cols[2].null[r] && o->cols[2].child[0].null[r]);
	assert_true(o->cols[2].child[0].v.f64[r] == 0);
	sl_buf_deinit(&w);
	sl_batch_free(o);
	sl_batch_free(b);
}

/* sl_rowcodec_equal: equality as the key form defines it, over either
 * form: -0.0 = 0.0 and NaN = NaN (also inside a ROW), other values and
 * NULLs by their bytes; every type's rows of make_batch equal themselves
 * and not each other; malformed or short bytes are not equal.
 * sl_rowcodec_forms_differ: only DOUBLE / FLOAT columns, ROW fields
 * included, make the forms differ. */
static void test_equal_as_key(void **st)
{
	sl_type t[2] = {sl_type_make(SL_T_DOUBLE), sl_type_make(SL_T_ROW)};
	t[1].row = &outer_t;
	sl_batch *b = sl_batch_new(2, t, 6);
	double v[6] = {0.0, -0.0, NAN, -NAN, 1.0, 2.0};
	for (int r = 0; r < 6; r++) {
		sl_batch_add_row(b, SL_INSERT, 0);
		sl_col_set_f64(&b->cols[0], r, v[r]);
		b->cols[1].null[r] = 0;
		sl_col_set_f64(&b->cols[1].child[0], r, v[r]);
	}
	sl_buf w[6], k1;
	int cols[2] = {0, 1};
	for (int r = 0; r < 6; r++) {
		sl_buf_init(&w[r]);
		assert_int_equal(sl_rowcodec_row(b, r, &w[r]), 0);
	}
	sl_buf_init(&k1);
	assert_int_equal(sl_rowcodec_key(b, cols, 2, 1, &k1), 0); /* -0.0 in the key form */
#define EQ(i, j) sl_rowcodec_equal(t, 2, w[i].p, (uint32_t)w[i].len, w[j].p, (uint32_t)w[j].len)
	assert_true(EQ(0, 1));
	assert_true(EQ(1, 0));
	assert_true(EQ(2, 3));
	assert_true(EQ(4, 4));
	assert_false(EQ(4, 5));
	assert_false(EQ(0, 2));
	assert_false(EQ(0, 4));
#undef EQ
	/* the row form of -0.0 equals the key form written by earlier versions */
	assert_true(sl_rowcodec_equal(t, 2, w[1].p, (uint32_t)w[1].len, k1.p, (uint32_t)k1.len));
	assert_true(sl_rowcodec_equal(t, 2, w[0].p, (uint32_t)w[0].len, k1.p, (uint32_t)k1.len));
	/* short or trailing bytes */
	assert_false(sl_rowcodec_equal(t, 2, w[0].p, (uint32_t)w[0].len - 1, w[1].p,
	                               (uint32_t)w[1].len - 1));
	assert_false(sl_rowcodec_equal(t, 1, w[0].p, (uint32_t)w[0].len, w[1].p, (uint32_t)w[1].len));
	/* every type: make_batch's rows */
	sl_type at[NT];
	all_types(at);
	sl_batch *m = make_batch();
	sl_buf r[3];
	for (int i = 0; i < 3; i++) {
		sl_buf_init(&r[i]);
		assert_int_equal(sl_rowcodec_row(m, i, &r[i]), 0);
	}
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			assert_int_equal(sl_rowcodec_equal(at, NT, r[i].p, (uint32_t)r[i].len, r[j].p,
			                                   (uint32_t)r[j].len), i == j);
	/* forms_differ */
	assert_true(sl_rowcodec_forms_differ(at, NT));
	assert_false(sl_rowcodec_forms_differ(at, 5));
	assert_true(sl_rowcodec_forms_differ(at + 5, 1)); /* FLOAT */
	assert_true(sl_rowcodec_forms_differ(at + 19, 1)); /* a ROW with a DOUBLE field */
	sl_type inner = sl_type_make(SL_T_ROW);
	inner.row = &inner_t;
	assert_false(sl_rowcodec_forms_differ(&inner, 1));
	for (int i = 0; i < 3; i++)
		sl_buf_deinit(&r[i]);
	for (int i = 0; i < 6; i++)
		sl_buf_deinit(&w[i]);
	sl_buf_deinit(&k1);
	sl_batch_free(m);
	sl_batch_free(b);
}

/* Every row of make_batch survives encode + decode in both forms: the
 * decoded row encodes to the same bytes; a NULL ROW sets its fields NULL. */
static void test_round_trip(void **st)
{
	sl_batch *b = make_batch();
	sl_type t[NT];
	all_types(t);
	sl_batch *o = sl_batch_new(NT, t, 8);
	sl_col *out[NT];
	int cols[NT];
	for (int c = 0; c < NT; c++) {
		out[c] = &o->cols[c];
		cols[c] = c;
	}
	sl_buf a, again;
	sl_buf_init(&a);
	sl_buf_init(&again);
	for (int r = 0; r < 3; r++) {
		for (int key = 0; key < 2; key++) {
			sl_buf_clear(&a);
			sl_buf_clear(&again);
			if (key)
				sl_rowcodec_key(b, cols, NT, r, &a);
			else
				sl_rowcodec_row(b, r, &a);
			sl_buf_putc(&a, 'x'); /* trailing bytes are the caller's */
			/* fill the output row with a value first: decoding NULLs clears it */
			int orow = sl_batch_copy_row(o, b, 0, SL_INSERT, 0);
			assert_int_equal(sl_rowcodec_decode(a.p, (uint32_t)a.len, o, out, NT, orow),
			                 (int)a.len - 1);
			if (key)
				sl_rowcodec_key(o, cols, NT, orow, &again);
			else
				sl_rowcodec_row(o, orow, &again);
			assert_int_equal(again.len, a.len - 1);
			assert_memory_equal(again.p, a.p, again.len);
			assert_int_equal(sl_rowcodec_decode_cols(a.p, (uint32_t)a.len, o, o->cols, NT,
			                                         orow), SL_ESTATE);
			assert_int_equal(sl_rowcodec_decode_cols(a.p, (uint32_t)a.len - 1, o, o->cols,
			                                         NT, orow), 0);
		}
	}
	/* row 2's nested ROW is NULL: its fields read back NULL */
	sl_col *nested = &o->cols[19].child[1];
	int last = o->nrows - 1;
	assert_int_equal(nested->null[last], 1);
	assert_int_equal(nested->child[0].null[last], 1);
	assert_int_equal(nested->child[1].null[last], 1);
	/* row 1's ROW is NULL: every field reads back NULL */
	int r1 = o->nrows - 3;
	assert_int_equal(o->cols[19].null[r1], 1);
	assert_int_equal(o->cols[19].child[0].null[r1], 1);
	assert_int_equal(o->cols[19].child[1].child[1].null[r1], 1);
	sl_buf_deinit(&a);
	sl_buf_deinit(&again);
	sl_batch_free(o);
	sl_batch_free(b);
}

/* Every truncation of an encoded row is refused, never read past. */
static void test_malformed(void **st)
{
	sl_batch *b = make_batch();
	sl_type t[NT];
	all_types(t);
	sl_batch *o = sl_batch_new(NT, t, 1);
	sl_col *out[NT];
	for (int c = 0; c < NT; c++)
		out[c] = &o->cols[c];
	sl_buf a;
	sl_buf_init(&a);
	assert_int_equal(sl_rowcodec_row(b, 0, &a), 0);
	int r = sl_batch_add_row(o, SL_INSERT, 0);
	for (uint32_t n = 0; n < a.len; n++) {
		assert_int_equal(sl_rowcodec_decode(a.p, n, o, out, NT, r), SL_ESTATE);
		assert_int_equal(sl_rowcodec_decode_cols(a.p, n, o, o->cols, NT, r), SL_ESTATE);
		sl_batch_reset(o);
		r = sl_batch_add_row(o, SL_INSERT, 0);
	}
	sl_buf_deinit(&a);
	sl_batch_free(o);
	sl_batch_free(b);
}

/* sl_rowcodec_key1 writes what sl_rowcodec_key writes for one column:
 * every type and row of make_batch (values, NULL, -0.0, NaN, empty
 * strings), strings of every length around the inline copy's widths, and
 * -1 (nothing written past cap) for a ROW column or a value that does not
 * fit. */
static void test_key1(void **st)
{
	(void)st;
	sl_batch *b = make_batch();
	sl_buf a;
	sl_buf_init(&a);
	char kb[64];
	for (int row = 0; row < 3; row++)
		for (int c = 0; c < NT; c++) {
			a.len = 0;
			assert_int_equal(sl_rowcodec_key(b, &c, 1, row, &a), 0);
			int n = sl_rowcodec_key1(&b->cols[c], row, kb, (int)sizeof(kb));
			if (c == 19 && row != 1) { /* a non-NULL ROW: the caller's generic path */
				assert_int_equal(n, -1);
				continue;
			}
			assert_int_equal(n, (int)a.len);
			assert_memory_equal(kb, a.p, a.len);
		}
	sl_type vt = sl_type_varchar(SL_STRING_LEN);
	sl_batch *s = sl_batch_new(1, &vt, 64);
	assert_non_null(s);
	char text[64];
	for (int i = 0; i < 64; i++)
		text[i] = (char)('a' + i % 26);
	int zero = 0;
	for (int len = 0; len < 64; len++) {
		int r = sl_batch_add_row(s, SL_INSERT, 0);
		sl_col_set_str_ref(&s->cols[0], r, text, len);
		a.len = 0;
		assert_int_equal(sl_rowcodec_key(s, &zero, 1, r, &a), 0);
		memset(kb, 0x55, sizeof(kb));
		int n = sl_rowcodec_key1(&s->cols[0], r, kb, 40);
		if (len + 5 > 40) {
			assert_int_equal(n, -1);
			continue;
		}
		assert_int_equal(n, (int)a.len);
		assert_memory_equal(kb, a.p, a.len);
		for (int i = n; i < (int)sizeof(kb); i++)
			assert_int_equal((uint8_t)kb[i], 0x55); /* nothing past the key */
	}
	assert_int_equal(sl_rowcodec_key1(&b->cols[4], 0, kb, 8), -1); /* BIGINT needs 9 */
	sl_buf_deinit(&a);
	sl_batch_free(s);
	sl_batch_free(b);
}

/* ARRAY and MAP values (data/packed.h): the packed bytes of [1, NULL] and
 * {a=x'79', b=NULL}, pinned as those of the row codec's layout, and their
 * key form a string of them; elements read back, out of order by skip. */
static void test_packed(void **st)
{
	sl_field ef[1] = {{"element", sl_type_make(SL_T_INT)}};
	sl_row_type et = {1, ef};
	sl_field mf[2] = {{"key", sl_type_make(SL_T_VARCHAR)}, {"value", sl_type_make(SL_T_VARBINARY)}};
	sl_row_type mt = {2, mf};
	sl_type ta = sl_type_collection(SL_T_ARRAY, &et), tm = sl_type_collection(SL_T_MAP, &mt);
	sl_col ci, ck, cv;
	assert_int_equal(sl_col_new(&ci, ef[0].type, 2), 0);
	assert_int_equal(sl_col_new(&ck, mf[0].type, 2), 0);
	assert_int_equal(sl_col_new(&cv, mf[1].type, 2), 0);
	sl_col_set_i64(&ci, 0, 1);
	sl_col_set_null(&ci, 1);
	sl_col_set_str_ref(&ck, 0, "a", 1);
	sl_col_set_str_ref(&ck, 1, "b", 1);
	sl_col_set_str_ref(&cv, 0, "y", 1);
	sl_col_set_null(&cv, 1);
	sl_buf a, m, k;
	sl_buf_init(&a);
	sl_buf_init(&m);
	sl_buf_init(&k);
	static char h[256];
	assert_int_equal(sl_pack_begin(&a), 0);
	assert_int_equal(sl_pack_value(&a, &ci, 0), 0);
	assert_int_equal(sl_pack_value(&a, &ci, 1), 0);
	sl_pack_end(&a, 2);
	hex(&a, h);
	assert_string_equal(h, "02000000" "000100000000000000" "01");
	assert_int_equal(sl_pack_begin(&m), 0);
	for (int r = 0; r < 2; r++) {
		assert_int_equal(sl_pack_value(&m, &ck, r), 0);
		assert_int_equal(sl_pack_value(&m, &cv, r), 0);
	}
	sl_pack_end(&m, 2);
	hex(&m, h);
	assert_string_equal(h, "02000000" "000100000061" "000100000079" "000100000062" "01");
	/* a batch column of the ARRAY type: its key form is the packed string's */
	sl_batch *b = sl_batch_new(2, (sl_type[]){ta, tm}, 1);
	int row = sl_batch_add_row(b, SL_INSERT, 0);
	sl_col_set_str_ref(&b->cols[0], row, a.p, (int64_t)a.len);
	sl_col_set_str_ref(&b->cols[1], row, m.p, (int64_t)m.len);
	int c0 = 0;
	assert_int_equal(sl_rowcodec_key(b, &c0, 1, 0, &k), 0);
	hex(&k, h);
	assert_string_equal(h, "00" "0e000000" "02000000" "000100000000000000" "01");
	/* reading: the second entry's value, the map lookup, a short value */
	sl_unpack u;
	assert_int_equal(sl_unpack_open(&u, m.p, (int64_t)m.len), 0);
	assert_int_equal(u.n, 2);
	assert_int_equal(sl_unpack_skip(&u, mf[0].type), 0);
	assert_int_equal(sl_unpack_skip(&u, mf[1].type), 0);
	assert_int_equal(sl_unpack_next(&u, NULL, &ck, 0), 0);
	assert_memory_equal(ck.v.str[0].ptr, "b", 1);
	assert_int_equal(sl_unpack_next(&u, NULL, &cv, 0), 0);
	assert_int_equal(cv.null[0], 1);
	sl_buf kb;
	sl_buf_init(&kb);
	sl_col_set_str_ref(&ck, 0, "a", 1);
	assert_int_equal(sl_unpack_map_get(m.p, (int64_t)m.len, tm, &ck, 0, &kb, NULL, &cv, 1), 1);
	assert_memory_equal(cv.v.str[1].ptr, "y", 1);
	sl_col_set_str_ref(&ck, 0, "z", 1);
	assert_int_equal(sl_unpack_map_get(m.p, (int64_t)m.len, tm, &ck, 0, &kb, NULL, &cv, 1), 0);
	assert_int_equal(sl_unpack_map_get(m.p, 9, tm, &ck, 0, &kb, NULL, &cv, 1), SL_ESTATE);
	assert_int_equal(sl_unpack_open(&u, a.p, 3), SL_ESTATE);
	sl_buf_deinit(&kb);
	sl_batch_free(b);
	sl_buf_deinit(&a);
	sl_buf_deinit(&m);
	sl_buf_deinit(&k);
	sl_col_free(&ci);
	sl_col_free(&ck);
	sl_col_free(&cv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pinned_bytes),
		cmocka_unit_test(test_key_form_canonical),
		cmocka_unit_test(test_decode_null_zeroes),
		cmocka_unit_test(test_equal_as_key),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_key1),
		cmocka_unit_test(test_packed),
	};
	return cmocka_run_group_tests_name("rowcodec", tests, NULL, NULL);
}
