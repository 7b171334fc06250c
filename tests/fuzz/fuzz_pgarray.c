/*
 * fuzz_pgarray.c - libFuzzer target: PostgreSQL array literals and
 * intervals as the postgres-cdc source, the jdbc lookup and the jdbc scan
 * read them (sl__pgo_set_value, src/connector/conn_pg_array.c and
 * conn_pgcdc_proto.c).  The input is parsed as the text of a column of
 * each of ARRAY<INT>, ARRAY<STRING>, ARRAY<BYTES>, ARRAY<ARRAY<DECIMAL>>,
 * ARRAY nested 6 deep, ARRAY<INTERVAL DAY TO SECOND>, ARRAY<TIMESTAMP_LTZ>
 * and the two INTERVAL types; each value accepted is written back in
 * COPY's text form (sl__pg_copy_value, the sink's writer), which must
 * parse again to the same packed bytes.  Nothing may crash, read out of
 * bounds or leak.  The last session's finding, the literal '{,}', is a
 * case of test_pgcdc_proto's test_arrays.
 *
 *   sh tests/fuzz/run.sh 60 pgarray
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "connector/conn_pgcdc.h"
#include "connector/conn_pg.h"

#define NT 9

static sl_row_type rt[12];
static sl_field rf[12];
static sl_type T[NT];

static void types(void)
{
	for (int i = 0; i < 12; i++)
		rt[i].fields = &rf[i];
	rf[0].type = (sl_type){.id = SL_T_INT};
	T[0] = sl_type_collection(SL_T_ARRAY, &rt[0]);
	rf[1].type = (sl_type){.id = SL_T_VARCHAR, .length = SL_STRING_LEN};
	T[1] = sl_type_collection(SL_T_ARRAY, &rt[1]);
	rf[2].type = (sl_type){.id = SL_T_VARBINARY, .length = SL_STRING_LEN};
	T[2] = sl_type_collection(SL_T_ARRAY, &rt[2]);
	rf[3].type = (sl_type){.id = SL_T_DECIMAL, .precision = 10, .scale = 2};
	rf[4].type = sl_type_collection(SL_T_ARRAY, &rt[3]);
	T[3] = sl_type_collection(SL_T_ARRAY, &rt[4]);
	sl_type a = T[0];
	for (int i = 5; i < 10; i++) {
		rf[i].type = a;
		a = sl_type_collection(SL_T_ARRAY, &rt[i]);
	}
	T[4] = a; /* 6 levels */
	rf[10].type = (sl_type){.id = SL_T_INTERVAL_DT};
	T[5] = sl_type_collection(SL_T_ARRAY, &rt[10]);
	rf[11].type = (sl_type){.id = SL_T_TIMESTAMP_LTZ, .precision = 3};
	T[6] = sl_type_collection(SL_T_ARRAY, &rt[11]);
	T[7] = (sl_type){.id = SL_T_INTERVAL_DT};
	T[8] = (sl_type){.id = SL_T_INTERVAL_YM};
}

/* COPY's text of one field, unescaped as the server reads it: \n, \t,
 * \r to their characters, \x to x. */
static size_t copy_unescape(char *p, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char ch = p[i];
		if (ch == '\\' && i + 1 < n) {
			ch = p[++i];
			ch = ch == 'n' ? '\n' : ch == 't' ? '\t' : ch == 'r' ? '\r' : ch;
		}
		p[o++] = ch;
	}
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static sl_batch *b;
	static sl_buf out;
	char emsg[256];
	if (!b) {
		types();
		b = sl_batch_new(NT, T, 2);
		sl_buf_init(&out);
	}
	sl_batch_reset(b);
	int r = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
	int r2 = sl_batch_add_row(b, SL_INSERT, SL_WM_MIN);
	char *copy = malloc(size ? size : 1); /* exact size: reading past it is caught */
	memcpy(copy, data, size);
	for (int c = 0; c < NT; c++) {
		sl_col *col = &b->cols[c];
		if (sl__pgo_set_value(b, col, r, copy, size, emsg, sizeof emsg))
			continue;
		sl_buf_clear(&out);
		int rc = sl__pg_copy_value(col, r, &out);
		if (rc == SL_ERUNTIME)
			continue; /* a value PostgreSQL cannot hold, refused: months > 2^31 - 1 */
		if (rc)
			abort();
		if (c == 5 || c >= 7)
			continue; /* intervals: written as days and seconds for the server's
			           * input, not in the form it prints */
		out.len = copy_unescape((char *)out.p, out.len);
		if (sl__pgo_set_value(b, col, r2, (const char *)out.p, out.len, emsg, sizeof emsg))
			abort(); /* what the sink writes must read back */
		if (col->v.str[r].len != col->v.str[r2].len ||
		    memcmp(col->v.str[r].ptr, col->v.str[r2].ptr, (size_t)col->v.str[r].len))
			abort();
	}
	free(copy);
	return 0;
}
