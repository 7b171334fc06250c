/*
 * fuzz_pgoutput.c - libFuzzer target: the postgres-cdc source's decoders
 * (src/connector/conn_pgcdc_proto.c) on arbitrary bytes.  The input is
 * parsed as a pgoutput message; every text value of its tuples is then
 * set into a column of each sluice type the source reads; the input is
 * also read as a line of COPY's text format, its fields set likewise.
 * Nothing may crash, read out of bounds or leak; a parse that succeeds
 * must give counts within SL_PGO_MAX_COLS.
 *
 *   sh tests/fuzz/run.sh 60 pgoutput
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "connector/conn_pgcdc.h"

static const sl_type T[] = {
	{.id = SL_T_BOOLEAN},
	{.id = SL_T_TINYINT},
	{.id = SL_T_SMALLINT},
	{.id = SL_T_INT},
	{.id = SL_T_BIGINT},
	{.id = SL_T_FLOAT},
	{.id = SL_T_DOUBLE},
	{.id = SL_T_DECIMAL, .precision = 10, .scale = 2},
	{.id = SL_T_VARCHAR, .length = SL_STRING_LEN},
	{.id = SL_T_VARBINARY, .length = SL_STRING_LEN},
	{.id = SL_T_DATE},
	{.id = SL_T_TIME, .precision = 3},
	{.id = SL_T_TIMESTAMP, .precision = 6},
	{.id = SL_T_TIMESTAMP_LTZ, .precision = 3},
};
#define NT ((int)(sizeof(T) / sizeof(T[0])))

static void set_all(sl_batch *b, const sl_pgo_val *v, int n)
{
	char emsg[256];
	for (int i = 0; i < n; i++) {
		if (v[i].kind != 't')
			continue;
		sl_batch_reset(b);
		int r = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
		for (int c = 0; c < NT; c++)
			sl__pgo_set_value(b, &b->cols[c], r, v[i].p, (size_t)v[i].len, emsg, sizeof emsg);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static sl_pgo_arrays a;
	static sl_batch *b;
	static sl_pgo_val *cv;
	static sl_buf scratch;
	if (!b) {
		a.rel = calloc(SL_PGO_MAX_COLS, sizeof(sl_pgo_relcol));
		a.old = calloc(SL_PGO_MAX_COLS, sizeof(sl_pgo_val));
		a.new_ = calloc(SL_PGO_MAX_COLS, sizeof(sl_pgo_val));
		a.trunc_rel = calloc(SL_PGO_MAX_COLS, sizeof(uint32_t));
		cv = calloc(64, sizeof(sl_pgo_val));
		b = sl_batch_new(NT, T, 1);
		sl_buf_init(&scratch);
	}
	/* an exact-size copy, so reading one byte too far is caught */
	uint8_t *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	sl_pgo_msg m;
	char emsg[256];
	if (sl__pgo_parse(copy, size, &m, &a, emsg, sizeof emsg) == 0) {
		if (m.ncols > SL_PGO_MAX_COLS || m.nold > SL_PGO_MAX_COLS ||
		    m.nnew > SL_PGO_MAX_COLS || m.ntrunc > SL_PGO_MAX_COLS)
			abort();
		set_all(b, a.old, m.nold);
		set_all(b, a.new_, m.nnew);
		for (int i = 0; i < m.ncols; i++)
			if (strlen(a.rel[i].name) > size)
				abort();
	}
	int n = sl__pgo_copy_line((const char *)copy, size, cv, 64, &scratch);
	if (n > 64)
		abort();
	if (n > 0)
		set_all(b, cv, n);
	int64_t lsn;
	char lb[24];
	if (size < 40) {
		char z[41];
		memcpy(z, copy, size);
		z[size] = 0;
		if (sl__pgo_lsn_parse(z, &lsn) == 0)
			sl__pgo_lsn_format(lsn, lb);
	}
	free(copy);
	return 0;
}
