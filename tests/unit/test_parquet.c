/*
 * test_parquet.c - unit tests of the 'parquet' format's parts
 * (src/format/parquet_*.c, fmt_parquet.c): the RLE/bit-packed hybrid and
 * the Thrift compact protocol round trips, decimal widths, the writer and
 * reader through the format's file hooks (every kind of value with NULLs,
 * many row groups and pages, each codec, page v1 and v2, file_skip to any
 * row, across row-group boundaries), and the option and type errors.  The
 * files written here are read by DuckDB and hyparquet in
 * tests/integration/parquet.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/format.h"
#include "format/parquet.h"
#include "data/valtext.h"
#include "harness.h"
#include "sluice.h"

static void test_rle(void **st)
{
	(void)st;
	uint64_t seed = 42;
	uint32_t v[3000], back[3000];
	for (int bw = 0; bw <= 20; bw++) {
		for (int n = 0; n < 3000; n += 371) {
			uint32_t max = bw ? (uint32_t)((1ull << bw) - 1) : 0;
			for (int i = 0; i < n; i++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				/* runs of random length, so both run kinds occur */
				v[i] = (i > 0 && (seed >> 60) < 10) ? v[i - 1] : (uint32_t)(seed >> 33) & max;
			}
			sl_buf b;
			sl_buf_init(&b);
			assert_int_equal(pq_rle_encode(&b, v, n, bw), 0);
			assert_int_equal(pq_rle_decode((uint8_t *)b.p, b.len, bw, back, n, max), 0);
			assert_memory_equal(v, back, (size_t)n * 4);
			if (n > 8 && bw > 0) /* a cut input is an error, never a read past it */
				assert_int_equal(pq_rle_decode((uint8_t *)b.p, b.len / 2, bw, back, n, max), -1);
			sl_buf_deinit(&b);
		}
	}
	assert_int_equal(pq_bit_width(0), 0);
	assert_int_equal(pq_bit_width(1), 1);
	assert_int_equal(pq_bit_width(255), 8);
	assert_int_equal(pq_bit_width(256), 9);
}

static void test_thrift(void **st)
{
	(void)st;
	sl_buf b;
	sl_buf_init(&b);
	pq_tw w;
	pq_tw_init(&w, &b);
	pq_tw_i32(&w, 1, -7);
	pq_tw_i64(&w, 40, 1234567890123LL); /* a delta over 15: long field header */
	pq_tw_bool(&w, 41, 1);
	pq_tw_struct(&w, 42);
	pq_tw_bin(&w, 3, "abc", 3);
	pq_tw_end(&w);
	pq_tw_list(&w, 43, TC_I32, 20); /* 15 or more: the long list header */
	for (int i = 0; i < 20; i++)
		pq_tw_elem_i32(&w, i - 10);
	pq_tw_i8(&w, 44, -3);
	pq_tw_end(&w);
	assert_false(w.failed);

	pq_tr r = {(uint8_t *)b.p, (uint8_t *)b.p + b.len, 0, 0};
	int16_t last = 0;
	int ty, et;
	assert_int_equal(pq_tr_field(&r, &last, &ty), 1);
	assert_int_equal(pq_tr_int(&r), -7);
	assert_int_equal(pq_tr_field(&r, &last, &ty), 40);
	assert_int_equal(pq_tr_int(&r), 1234567890123LL);
	assert_int_equal(pq_tr_field(&r, &last, &ty), 41);
	assert_int_equal(ty, TC_TRUE);
	assert_int_equal(pq_tr_field(&r, &last, &ty), 42);
	pq_tr_skip(&r, ty); /* the nested struct, skipped whole */
	assert_int_equal(pq_tr_field(&r, &last, &ty), 43);
	assert_int_equal(pq_tr_list(&r, &et), 20);
	assert_int_equal(et, TC_I32);
	for (int i = 0; i < 20; i++)
		assert_int_equal(pq_tr_int(&r), i - 10);
	assert_int_equal(pq_tr_field(&r, &last, &ty), 44);
	assert_int_equal(pq_tr_byte(&r), -3);
	assert_int_equal(pq_tr_field(&r, &last, &ty), 0);
	assert_false(r.err);
	assert_true(r.p == r.e);
	/* cut anywhere: an error, never a read past the end */
	for (size_t cut = 0; cut < b.len; cut++) {
		pq_tr c = {(uint8_t *)b.p, (uint8_t *)b.p + cut, 0, 0};
		pq_tr_skip(&c, TC_STRUCT);
		assert_true(c.err);
	}
	sl_buf_deinit(&b);
	assert_int_equal(pq_decimal_bytes(9), 4);
	assert_int_equal(pq_decimal_bytes(18), 8);
	assert_int_equal(pq_decimal_bytes(19), 9);
	assert_int_equal(pq_decimal_bytes(38), 16);
}

static sl_field inner_f[] = {
	{"x", {.id = SL_T_INT}},
	{"y", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
};
static sl_row_type inner_t = {2, inner_f};
static sl_field F[] = {
	{"i", {.id = SL_T_INT}},
	{"l", {.id = SL_T_BIGINT, .notnull = 1}},
	{"d", {.id = SL_T_DECIMAL, .precision = 30, .scale = 4}},
	{"s", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
	{"ts", {.id = SL_T_TIMESTAMP, .precision = 6}},
	{"b", {.id = SL_T_BOOLEAN}},
	{"r", {.id = SL_T_ROW, .row = &inner_t}},
};
#define NF ((int)(sizeof(F) / sizeof(F[0])))
#define NROWS 5000

/* Row k's values (NULL patterns differ per column). */
static void fill_row(sl_batch *b, int row, int k)
{
	char tmp[32];
	if (k % 7)
		sl_col_set_i64(&b->cols[0], row, k * 37 - 1000);
	sl_col_set_i64(&b->cols[1], row, (int64_t)k * 1000003LL - (1LL << 40));
	if (k % 5)
		sl_col_set_i128(&b->cols[2], row, ((sl_i128)k * 1000000007 - 3) * (k % 2 ? -1 : 1) *
		                (sl_i128)1000000000000LL);
	if (k % 3) {
		int n = snprintf(tmp, sizeof tmp, "v%d", k % 11 ? k % 50 : k);
		assert_int_equal(sl_col_set_str(b, &b->cols[3], row, tmp, n), 0);
	}
	if (k % 4)
		sl_col_set_i64(&b->cols[4], row, (int64_t)k * 86400000123LL - 5);
	if (k % 6)
		sl_col_set_i64(&b->cols[5], row, k % 3 == 1);
	if (k % 9) {
		sl_col *r = &b->cols[6];
		r->null[row] = 0;
		if (k % 2)
			sl_col_set_i64(&r->child[0], row, -k);
		if (k % 10)
			assert_int_equal(sl_col_set_str(b, &r->child[1], row, k % 4 ? "yy" : "", k % 4 ? 2 : 0), 0);
	}
}

/* Writes NROWS rows with the options (key, value pairs, NULL-ended) into a
 * memfd; returns it. */
static int write_file(const char *const *kv)
{
	sl_arena a;
	sl_opts o;
	sl_err e;
	sl_err_clear(&e);
	sl_arena_init(&a, 0);
	sl_opts_init(&o, &a);
	for (int i = 0; kv && kv[i]; i += 2)
		sl_opts_set(&o, kv[i], kv[i + 1]);
	sl_type t[NF];
	for (int i = 0; i < NF; i++)
		t[i] = F[i].type;
	sl_batch *b = sl_batch_new(NF, t, 256);
	sl_encoder *enc = sl_encoder_new(sl_format_find("parquet"), F, NF, &o, &e);
	assert_non_null(enc);
	sl_buf out;
	sl_buf_init(&out);
	assert_int_equal(enc->vt->file_begin(enc, &out, &e), 0);
	for (int k = 0; k < NROWS; k++) {
		if (b->nrows == b->cap)
			sl_batch_reset(b);
		int row = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
		fill_row(b, row, k);
		assert_int_equal(enc->vt->encode(enc, b, row, &out, &e), 0);
	}
	assert_int_equal(enc->vt->file_end(enc, &out, &e), 0);
	int fd = memfd_create("test_parquet", 0);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, out.p, out.len), (ssize_t)out.len);
	sl_buf_deinit(&out);
	sl_encoder_free(enc);
	sl_batch_free(b);
	sl_arena_deinit(&a);
	return fd;
}

/* Row `row` of b as text, NULL as "null". */
static void row_text(const sl_batch *b, int row, char *buf, size_t cap)
{
	sl_buf t;
	sl_buf_init(&t);
	for (int c = 0; c < b->ncols; c++) {
		if (c)
			sl_buf_puts(&t, ", ");
		assert_int_equal(sl_value_text(&b->cols[c], row, "null", "UTC", &t), 0);
	}
	snprintf(buf, cap, "%s", sl_buf_cstr(&t));
	sl_buf_deinit(&t);
}

/* Reads the file from row `from` (file_skip) and checks every value. */
static void check_file(int fd, int from)
{
	sl_err e;
	sl_err_clear(&e);
	sl_type t[NF];
	for (int i = 0; i < NF; i++)
		t[i] = F[i].type;
	sl_batch *got = sl_batch_new(NF, t, 100), *want = sl_batch_new(NF, t, 1);
	sl_decoder *d = sl_decoder_new(sl_format_find("parquet"), F, NF, NULL, &e);
	assert_non_null(d);
	assert_int_equal(d->vt->file_open(d, fd, "mem.parquet", &e), 0);
	if (from)
		assert_int_equal(d->vt->file_skip(d, from, &e), 0);
	int k = from, n;
	while ((n = d->vt->file_read(d, got, &e)) > 0) {
		for (int row = 0; row < got->nrows; row++, k++) {
			sl_batch_reset(want);
			sl_batch_add_row(want, SL_INSERT, SL_WM_MIN);
			fill_row(want, 0, k);
			char a[512], b[512];
			row_text(got, row, a, sizeof a);
			row_text(want, 0, b, sizeof b);
			if (strcmp(a, b))
				fail_msg("row %d: read %s, wrote %s", k, a, b);
		}
		sl_batch_reset(got);
	}
	assert_int_equal(n, SL_EEOF);
	assert_int_equal(k, NROWS);
	d->vt->file_close(d);
	sl_decoder_free(d);
	sl_batch_free(got);
	sl_batch_free(want);
}

static void test_roundtrip(void **st)
{
	(void)st;
	static const char *const sets[][12] = {
		{NULL},
		{"parquet.compression", "zstd", "parquet.block.size", "8kb", "parquet.page.size", "1kb", NULL},
		{"parquet.compression", "gzip", "parquet.writer.version", "PARQUET_2_0",
		 "parquet.enable.dictionary", "false", "parquet.block.size", "20kb", NULL},
		{"parquet.compression", "uncompressed", "parquet.writer.version", "PARQUET_2_0",
		 "parquet.page.size", "300", NULL},
	};
	for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
		int fd = write_file(sets[s]);
		check_file(fd, 0);
		for (int from = 1; from < NROWS; from += 997) /* inside and across row groups */
			check_file(fd, from);
		check_file(fd, NROWS);
		close(fd);
	}
}

static void test_errors(void **st)
{
	(void)st;
	sl_err e;
	sl_arena a;
	sl_opts o;
	sl_err_clear(&e);
	sl_arena_init(&a, 0);
	sl_opts_init(&o, &a);
	sl_opts_set(&o, "parquet.compression", "lz4");
	assert_null(sl_encoder_new(sl_format_find("parquet"), F, NF, &o, &e));
	assert_string_equal(e.msg, "option 'parquet.compression': 'lz4' is not supported (use "
	                    "UNCOMPRESSED, SNAPPY, GZIP or ZSTD)");
	sl_err_clear(&e);
	sl_field iv[] = {{"gap", {.id = SL_T_INTERVAL_DT}}};
	assert_null(sl_encoder_new(sl_format_find("parquet"), iv, 1, NULL, &e));
	assert_non_null(strstr(e.msg, "column 'gap' of type INTERVAL"));
	/* a NULL in a NOT NULL column is refused, and nothing of the row stays */
	sl_err_clear(&e);
	sl_type t[NF];
	for (int i = 0; i < NF; i++)
		t[i] = F[i].type;
	sl_batch *b = sl_batch_new(NF, t, 4);
	sl_encoder *enc = sl_encoder_new(sl_format_find("parquet"), F, NF, NULL, &e);
	sl_buf out;
	sl_buf_init(&out);
	assert_int_equal(enc->vt->file_begin(enc, &out, &e), 0);
	int row = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
	assert_int_equal(enc->vt->encode(enc, b, row, &out, &e), SL_EINVAL);
	assert_string_equal(e.msg, "parquet: NULL in NOT NULL column 'l'");
	assert_int_equal(enc->vt->file_buffered(enc), 0);
	sl_buf_deinit(&out);
	sl_encoder_free(enc);
	sl_batch_free(b);
	/* not a Parquet file */
	sl_err_clear(&e);
	int fd = memfd_create("bad", 0);
	assert_int_equal(write(fd, "PAR1 not really PAR1", 20), 20);
	sl_decoder *d = sl_decoder_new(sl_format_find("parquet"), F, NF, NULL, &e);
	assert_int_equal(d->vt->file_open(d, fd, "x.parquet", &e), SL_EINPUT);
	assert_string_equal(e.msg, "parquet file 'x.parquet': the footer length is larger than "
	                    "the file");
	d->vt->file_close(d);
	sl_decoder_free(d);
	close(fd);
	sl_arena_deinit(&a);
}

/* fuzz_parquet's first finding: a dictionary page claiming more entries
 * than the reader allows leaked its decompressed buffer (LeakSanitizer,
 * `make asan`); now it is refused and freed. */
static void test_dict_over_cap(void **st)
{
	(void)st;
	int fd = write_file(NULL);
	int64_t cap = pq_read_value_cap;
	sl_err e;
	sl_err_clear(&e);
	sl_type t[NF];
	for (int i = 0; i < NF; i++)
		t[i] = F[i].type;
	sl_batch *got = sl_batch_new(NF, t, 100);
	sl_decoder *d = sl_decoder_new(sl_format_find("parquet"), F, NF, NULL, &e);
	assert_int_equal(d->vt->file_open(d, fd, "dict.parquet", &e), 0);
	pq_read_value_cap = 2;
	assert_int_equal(d->vt->file_read(d, got, &e), SL_EINPUT);
	pq_read_value_cap = cap;
	assert_string_equal(e.msg, "parquet file 'dict.parquet': column 'i': damaged dictionary page");
	assert_int_equal(got->nrows, 0);
	d->vt->file_close(d);
	sl_decoder_free(d);
	sl_batch_free(got);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rle),
		cmocka_unit_test(test_thrift),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_dict_over_cap),
	};
	return cmocka_run_group_tests_name("parquet", tests, NULL, NULL);
}
