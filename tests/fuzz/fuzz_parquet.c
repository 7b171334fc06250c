/*
 * fuzz_parquet.c - libFuzzer target: reads arbitrary bytes as a Parquet
 * file with the 'parquet' format's reader (src/format/parquet_read.c)
 * through its file hooks, against a fixed schema holding every type
 * Parquet stores (a ROW among them, the columns of the seed files written
 * by sluice and DuckDB), then passes over rows with file_skip on a second
 * open.  The input goes through a memfd, as the filesystem source hands
 * the reader a file descriptor.  Pages may claim at most 4096 values here
 * (pq_read_value_cap), so allocations stay small.
 *
 *   sh tests/fuzz/run.sh 60 parquet
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sluice.h"
#include "format/format.h"
#include "format/parquet.h"

static sl_field inner_f[] = {
	{"a", {.id = SL_T_INT}},
	{"b", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
};
static sl_row_type inner_t = {2, inner_f};

static sl_field F[] = {
	{"b", {.id = SL_T_BOOLEAN}},
	{"t", {.id = SL_T_TINYINT}},
	{"s", {.id = SL_T_SMALLINT}},
	{"i", {.id = SL_T_INT}},
	{"l", {.id = SL_T_BIGINT}},
	{"f", {.id = SL_T_FLOAT}},
	{"d", {.id = SL_T_DOUBLE}},
	{"d1", {.id = SL_T_DECIMAL, .precision = 5, .scale = 2}},
	{"d2", {.id = SL_T_DECIMAL, .precision = 15, .scale = 3}},
	{"d3", {.id = SL_T_DECIMAL, .precision = 30, .scale = 4}},
	{"str", {.id = SL_T_VARCHAR, .length = SL_STRING_LEN}},
	{"bt", {.id = SL_T_VARBINARY, .length = SL_STRING_LEN}},
	{"dt", {.id = SL_T_DATE}},
	{"tm", {.id = SL_T_TIME, .precision = 3}},
	{"ts", {.id = SL_T_TIMESTAMP, .precision = 3}},
	{"ts6", {.id = SL_T_TIMESTAMP, .precision = 6}},
	{"ltz", {.id = SL_T_TIMESTAMP_LTZ, .precision = 3}},
	{"r", {.id = SL_T_ROW, .row = &inner_t}},
};
#define NF ((int)(sizeof(F) / sizeof(F[0])))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static sl_decoder *d;
	static sl_batch *b;
	static int fd = -1;
	sl_err err;
	sl_err_clear(&err);
	if (!d) {
		sl_type t[NF];
		for (int i = 0; i < NF; i++)
			t[i] = F[i].type;
		pq_read_value_cap = 4096;
		b = sl_batch_new(NF, t, 64);
		d = sl_decoder_new(sl_format_find("parquet"), F, NF, NULL, &err);
		fd = memfd_create("fuzz_parquet", 0);
		if (!b || !d || fd < 0)
			abort();
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	const sl_format_vtab *vt = d->vt;
	for (int pass = 0; pass < 2; pass++) {
		sl_err_clear(&err);
		if (vt->file_open(d, fd, "fuzz.parquet", &err) == 0) {
			if (pass == 1) {
				(void)vt->file_skip(d, 100, &err);
			} else {
				for (int k = 0; k < 1000; k++) {
					sl_batch_reset(b);
					int n = vt->file_read(d, b, &err);
					if (n == SL_EEOF)
						break;
					if (n < 0) {
						if (b->nrows != 0 || !err.msg[0])
							abort(); /* an error leaves no row and says why */
						break;
					}
				}
			}
		} else if (!err.msg[0]) {
			abort();
		}
		vt->file_close(d);
	}
	return 0;
}
