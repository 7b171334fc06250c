/*
 * test_semi_join.c - the semi and anti join operator (op_semi_join.c)
 * driven through its method table with synthetic batches on two inputs:
 * a left row emitted when its first match arrives and retracted when the
 * last goes (semi), the opposite (anti), duplicates, updating inputs on
 * both sides, retractions of rows never seen, NULL keys (never a match;
 * an anti join emits its row at once), a residual predicate, no keys at
 * all (EXISTS without correlation), and NOT IN's null-aware condition
 * (x = y OR x IS NULL OR y IS NULL: a NULL on either side is a match, an
 * empty right side matches nothing); on both state backends, and with a
 * snapshot/restore after every row whose output equals an uninterrupted
 * run's.
 *
 * Harness (as test_joins.c): two feeder operators connected to inputs 0
 * (left) and 1 (right), a capture operator recording rows as text.  Both
 * inputs have the schema k STRING, ts TIMESTAMP(3), v BIGINT; the output
 * has the left columns.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "data/valtext.h"
#include "exec/graph.h"
#include "exec/join.h"

/* ---- harness ------------------------------------------------------------ */

typedef struct capture_op {
	sl_op base;
	sl_buf rows;
	int64_t last_wm;
} capture_op;

static const char *const kinds[] = {"+I", "-U", "+U", "-D"};

static int capture_process(sl_op *op, int input, const sl_batch *in, sl_err *err)
{
	capture_op *c = (capture_op *)op;
	SL_BATCH_FOREACH(in, k, row) {
		sl_buf_puts(&c->rows, kinds[in->op[row]]);
		sl_buf_putc(&c->rows, '[');
		for (int i = 0; i < in->ncols; i++) {
			if (i)
				sl_buf_puts(&c->rows, ", ");
			sl_value_text(&in->cols[i], row, "NULL", NULL, &c->rows);
		}
		sl_buf_puts(&c->rows, "]\n");
	}
	return 0;
}

static int capture_wm(sl_op *op, int64_t wm, sl_err *err)
{
	((capture_op *)op)->last_wm = wm;
	return 0;
}

static void capture_close(sl_op *op)
{
	sl_buf_deinit(&((capture_op *)op)->rows);
}

static const sl_op_vtab capture_vtab = {.name = "Capture", .process = capture_process,
                                        .watermark = capture_wm, .close = capture_close};
static const sl_op_vtab feeder_vtab = {.name = "Feeder"};

#define T0 1785574800000000LL /* 2026-08-01 09:00:00 UTC in micros */
#define S(x) ((int64_t)(x) * 1000000LL)

/* residual: none, left v < right v, NOT IN's (l.v = r.v OR l.v IS NULL OR
 * r.v IS NULL) with v NULL when the test writes -1 */
typedef enum { RES_NONE, RES_LT, RES_NOT_IN } res_kind;

typedef struct harness {
	sl_state_backend *be;
	sl_graph g;
	sl_op *feed[2], *op;
	capture_op *cap;
	sl_err err;
	sl_type types[6];
	sl_arena arena;
} harness;

static const char *g_backend = "hashmap";
static int keys[1] = {0};

static void schema(sl_type *t)
{
	t[0] = sl_type_varchar(SL_STRING_LEN);
	t[1] = sl_type_timestamp(SL_T_TIMESTAMP, 3);
	t[2] = sl_type_make(SL_T_BIGINT);
}

static sl_expr *col(harness *h, int c)
{
	return sl_expr_col(&h->arena, c, h->types[c]);
}

static sl_expr *call2(harness *h, sl_fn fn, sl_expr *a, sl_expr *b)
{
	sl_expr *x[2] = {a, b};
	return sl_expr_call(&h->arena, fn, x, b ? 2 : 1, NULL, 0, &h->err);
}

static sl_op *make_op(harness *h, int anti, int nkeys, res_kind res)
{
	sl_join_plan p;
	memset(&p, 0, sizeof(p));
	p.nl = p.nr = 3;
	p.ltypes = h->types;
	p.rtypes = h->types + 3;
	p.nkeys = nkeys;
	p.lkeys = p.rkeys = keys;
	if (res == RES_LT)
		p.residual = call2(h, SL_FN_LT, col(h, 2), col(h, 5));
	if (res == RES_NOT_IN)
		p.residual = call2(h, SL_FN_OR,
		                   call2(h, SL_FN_OR, call2(h, SL_FN_EQ, col(h, 2), col(h, 5)),
		                         call2(h, SL_FN_IS_NULL, col(h, 2), NULL)),
		                   call2(h, SL_FN_IS_NULL, col(h, 5), NULL));
	return sl_op_semi_join_new(&p, anti, &h->err);
}

static void h_init(harness *h, int anti, int nkeys, res_kind res)
{
	memset(h, 0, sizeof(*h));
	sl_err_clear(&h->err);
	sl_arena_init(&h->arena, 4096);
	assert_int_equal(sl_state_backend_open(g_backend, &h->be, &h->err), 0);
	sl_graph_init(&h->g, h->be);
	schema(h->types);
	schema(h->types + 3);
	for (int s = 0; s < 2; s++) {
		h->feed[s] = calloc(1, sizeof(sl_op));
		h->feed[s]->vt = &feeder_vtab;
		assert_int_equal(sl_graph_add(&h->g, h->feed[s], 0, 3, h->types, NULL), 0);
	}
	h->op = make_op(h, anti, nkeys, res);
	assert_non_null(h->op);
	assert_int_equal(sl_graph_add(&h->g, h->op, 2, 3, h->types, NULL), 0);
	h->cap = calloc(1, sizeof(capture_op));
	h->cap->base.vt = &capture_vtab;
	assert_int_equal(sl_graph_add(&h->g, &h->cap->base, 1, 0, NULL, NULL), 0);
	sl_graph_connect(&h->g, h->feed[0], h->op, 0);
	sl_graph_connect(&h->g, h->feed[1], h->op, 1);
	sl_graph_connect(&h->g, h->op, &h->cap->base, 0);
	assert_int_equal(sl_graph_open(&h->g, &h->err), 0);
}

static void h_deinit(harness *h)
{
	sl_graph_deinit(&h->g);
	sl_state_backend_close(h->be);
	sl_arena_deinit(&h->arena);
}

/* An input row: side, key (NULL ok), ts in seconds after T0, value, op,
 * W_before of its side in seconds (-1 = -inf). */
typedef struct in_row {
	int side;
	const char *k;
	int64_t ts_s;
	int64_t v;
	uint8_t op;
	int64_t wm_s;
} in_row;

/* Feeds rows (consecutive rows of one side in batches of up to bs); after
 * each batch the side's watermark moves to the next row's W_before of that
 * side, when given. */
static void feed(harness *h, const in_row *rows, int n, int bs)
{
	sl_batch *b = sl_batch_new(3, h->types, bs);
	for (int i = 0; i < n;) {
		sl_batch_reset(b);
		int s = rows[i].side, k = i;
		for (; k < n && k < i + bs && rows[k].side == s; k++) {
			int64_t wm = rows[k].wm_s < 0 ? SL_WM_MIN : T0 + S(rows[k].wm_s);
			int r = sl_batch_add_row(b, rows[k].op, wm);
			if (rows[k].k)
				sl_col_set_str_ref(&b->cols[0], r, rows[k].k, (int64_t)strlen(rows[k].k));
			sl_col_set_i64(&b->cols[1], r, T0 + S(rows[k].ts_s));
			if (rows[k].v >= 0)
				sl_col_set_i64(&b->cols[2], r, rows[k].v);
			else
				sl_col_set_null(&b->cols[2], r);
		}
		assert_int_equal(sl_op_emit(h->feed[s], b, &h->err), 0);
		for (int m = k; m < n; m++)
			if (rows[m].side == s) {
				if (rows[m].wm_s >= 0)
					assert_int_equal(sl_op_emit_watermark(h->feed[s], T0 + S(rows[m].wm_s),
					                                      &h->err), 0);
				break;
			}
		i = k;
	}
	sl_batch_free(b);
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of text, sorted (outputs compared as multisets: the harness
 * moves watermarks at batch ends, which may order fired rows differently). */
static char *sorted(const char *text)
{
	char *copy = strdup(text), *lines[512];
	int n = 0;
	for (char *p = strtok(copy, "\n"); p && n < 512; p = strtok(NULL, "\n"))
		lines[n++] = p;
	qsort(lines, (size_t)n, sizeof(char *), cmp_line);
	char *res = calloc(1, strlen(text) + 2);
	for (int i = 0; i < n; i++) {
		strcat(res, lines[i]);
		strcat(res, "\n");
	}
	free(copy);
	return res;
}

static void assert_same_rows(const char *got, const char *want)
{
	char *x = sorted(got), *y = sorted(want);
	assert_string_equal(x, y);
	free(x);
	free(y);
}

static const char *out(harness *h)
{
	return sl_buf_cstr(&h->cap->rows);
}

static void reset_out(harness *h)
{
	sl_buf_clear(&h->cap->rows);
}

#define L 0
#define R 1
#define I SL_INSERT
#define D SL_DELETE
#define UB SL_UPDATE_BEFORE
#define UA SL_UPDATE_AFTER
#define SEMI 0
#define ANTI 1

/* ---- semi join ------------------------------------------------------------ */

static void test_semi_first_and_last_match(void **st)
{
	harness h;
	h_init(&h, SEMI, 1, RES_NONE);
	/* no match yet; a NULL key never matches */
	const in_row a[] = {{L, "a", 1, 1, I, -1}, {L, "a", 1, 1, I, -1}, {L, NULL, 2, 2, I, -1},
	                    {L, "b", 3, 3, I, -1}};
	feed(&h, a, 4, 4);
	assert_string_equal(out(&h), "");
	/* the first match emits both duplicates; the second match nothing */
	const in_row b[] = {{R, "a", 5, 10, I, -1}, {R, "a", 6, 11, I, -1}, {R, NULL, 7, 12, I, -1}};
	feed(&h, b, 3, 1);
	assert_string_equal(out(&h), "+I[a, 2026-08-01 09:00:01, 1]\n"
	                             "+I[a, 2026-08-01 09:00:01, 1]\n");
	reset_out(&h);
	/* a new left row of a matched key at once; a retraction of a row never
	 * seen is ignored */
	const in_row c[] = {{L, "a", 4, 4, I, -1}, {L, "z", 4, 4, D, -1}, {R, "q", 1, 1, D, -1}};
	feed(&h, c, 3, 3);
	assert_string_equal(out(&h), "+I[a, 2026-08-01 09:00:04, 4]\n");
	reset_out(&h);
	/* the matches go: -D after the last one only */
	const in_row d[] = {{R, "a", 5, 10, UB, -1}, {R, "a", 6, 11, D, -1}};
	feed(&h, d, 2, 1);
	assert_string_equal(out(&h), "-D[a, 2026-08-01 09:00:01, 1]\n"
	                             "-D[a, 2026-08-01 09:00:01, 1]\n"
	                             "-D[a, 2026-08-01 09:00:04, 4]\n");
	reset_out(&h);
	/* an update of a left row while matched: -D old, +I new */
	const in_row e[] = {{R, "b", 1, 1, I, -1}, {L, "b", 3, 3, UB, -1}, {L, "b", 3, 30, UA, -1}};
	feed(&h, e, 3, 1);
	assert_string_equal(out(&h), "+I[b, 2026-08-01 09:00:03, 3]\n"
	                             "-D[b, 2026-08-01 09:00:03, 3]\n"
	                             "+I[b, 2026-08-01 09:00:03, 30]\n");
	h_deinit(&h);
}

static void test_semi_residual(void **st)
{
	harness h;
	h_init(&h, SEMI, 1, RES_LT);
	/* l.v < r.v: 5 < 4 fails, 5 < 6 holds */
	const in_row a[] = {{L, "a", 1, 5, I, -1}, {R, "a", 2, 4, I, -1}, {R, "a", 3, 6, I, -1},
	                    {R, "a", 3, 6, D, -1}, {R, "a", 2, 4, D, -1}};
	feed(&h, a, 5, 1);
	assert_string_equal(out(&h), "+I[a, 2026-08-01 09:00:01, 5]\n"
	                             "-D[a, 2026-08-01 09:00:01, 5]\n");
	h_deinit(&h);
}

/* ---- anti join ------------------------------------------------------------ */

static void test_anti_key(void **st)
{
	harness h;
	h_init(&h, ANTI, 1, RES_NONE);
	/* no match: emitted at once; a NULL key at once too (never matches) */
	const in_row a[] = {{L, "a", 1, 1, I, -1}, {L, NULL, 2, 2, I, -1}, {R, "b", 1, 1, I, -1},
	                    {L, "b", 3, 3, I, -1}};
	feed(&h, a, 4, 2);
	assert_string_equal(out(&h), "+I[a, 2026-08-01 09:00:01, 1]\n"
	                             "+I[NULL, 2026-08-01 09:00:02, 2]\n");
	reset_out(&h);
	/* a match arrives: -D; it goes: +I again; NULL-keyed right rows ignored */
	const in_row b[] = {{R, "a", 5, 10, I, -1}, {R, NULL, 7, 12, I, -1}, {R, "a", 5, 10, D, -1},
	                    {R, "b", 1, 1, D, -1}, {L, NULL, 2, 2, D, -1}};
	feed(&h, b, 5, 1);
	assert_string_equal(out(&h), "-D[a, 2026-08-01 09:00:01, 1]\n"
	                             "+I[a, 2026-08-01 09:00:01, 1]\n"
	                             "+I[b, 2026-08-01 09:00:03, 3]\n"
	                             "-D[NULL, 2026-08-01 09:00:02, 2]\n");
	h_deinit(&h);
}

/* NOT IN without correlation: no keys, the null-aware residual. */
static void test_anti_not_in_nulls(void **st)
{
	harness h;
	h_init(&h, ANTI, 0, RES_NOT_IN);
	/* right side empty: every left row, a NULL v too, is kept */
	const in_row a[] = {{L, "a", 1, 1, I, -1}, {L, "b", 2, -1, I, -1}, {L, "c", 3, 3, I, -1}};
	feed(&h, a, 3, 3);
	assert_string_equal(out(&h), "+I[a, 2026-08-01 09:00:01, 1]\n"
	                             "+I[b, 2026-08-01 09:00:02, NULL]\n"
	                             "+I[c, 2026-08-01 09:00:03, 3]\n");
	reset_out(&h);
	/* right gets 3: the NULL (unknown) and 3 go */
	const in_row b[] = {{R, "x", 1, 3, I, -1}};
	feed(&h, b, 1, 1);
	assert_string_equal(out(&h), "-D[b, 2026-08-01 09:00:02, NULL]\n"
	                             "-D[c, 2026-08-01 09:00:03, 3]\n");
	reset_out(&h);
	/* a NULL in the subquery: NOT IN is unknown for every row */
	const in_row c[] = {{R, "y", 1, -1, I, -1}, {L, "d", 4, 4, I, -1}};
	feed(&h, c, 2, 1);
	assert_string_equal(out(&h), "-D[a, 2026-08-01 09:00:01, 1]\n");
	reset_out(&h);
	/* both right rows go: all visible again */
	const in_row d[] = {{R, "y", 1, -1, D, -1}, {R, "x", 1, 3, D, -1}};
	feed(&h, d, 2, 2);
	assert_same_rows(out(&h), "+I[a, 2026-08-01 09:00:01, 1]\n"
	                          "+I[d, 2026-08-01 09:00:04, 4]\n"
	                          "+I[b, 2026-08-01 09:00:02, NULL]\n"
	                          "+I[c, 2026-08-01 09:00:03, 3]\n");
	h_deinit(&h);
}

/* ---- snapshot / restore at every cut ---------------------------------------- */

static const in_row mixed[] = {
	{L, "a", 1, 1, I, -1}, {L, "b", 2, 2, I, -1}, {R, "b", 3, 3, I, -1},
	{R, "c", 4, 4, I, -1}, {L, "c", 5, 5, I, -1}, {L, NULL, 5, 5, I, -1},
	{R, "b", 3, 3, D, -1}, {L, "a", 1, 1, UB, -1}, {L, "a", 1, 7, UA, -1},
	{R, "a", 8, 8, I, -1}, {R, "a", 8, 8, I, -1}, {R, "a", 8, 8, D, -1},
	{L, "c", 5, 5, D, -1}, {R, "c", 4, 4, UB, -1}, {R, "c", 4, -1, UA, -1},
};
#define NMIXED ((int)(sizeof(mixed) / sizeof(mixed[0])))

static void roundtrip(int anti, int nkeys, res_kind res, int cut)
{
	harness a, b, c;
	h_init(&a, anti, nkeys, res);
	feed(&a, mixed, NMIXED, 2);

	h_init(&b, anti, nkeys, res);
	feed(&b, mixed, cut, 2);
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	assert_int_equal(sl_graph_snapshot(&b.g, &w, &b.err), 0);
	char *first = strdup(out(&b));
	h_deinit(&b);

	h_init(&c, anti, nkeys, res);
	sl_snap_reader r;
	sl_snap_reader_init(&r, w.buf, w.len);
	assert_int_equal(sl_graph_restore(&c.g, &r, &c.err), 0);
	feed(&c, mixed + cut, NMIXED - cut, 2);
	sl_buf all;
	sl_buf_init(&all);
	sl_buf_puts(&all, first);
	sl_buf_puts(&all, out(&c));
	assert_same_rows(sl_buf_cstr(&all), out(&a));
	sl_buf_deinit(&all);
	free(first);
	sl_snap_writer_deinit(&w);
	h_deinit(&a);
	h_deinit(&c);
}

static void test_snapshot_every_cut(void **st)
{
	for (int cut = 0; cut <= NMIXED; cut++) {
		roundtrip(SEMI, 1, RES_NONE, cut);
		roundtrip(ANTI, 1, RES_NONE, cut);
		roundtrip(SEMI, 1, RES_LT, cut);
		roundtrip(ANTI, 0, RES_NOT_IN, cut);
	}
}

/* The uninterrupted run of `mixed` itself (so the roundtrips compare
 * against a known answer): anti join by key. */
static void test_anti_mixed_answer(void **st)
{
	harness h;
	h_init(&h, ANTI, 1, RES_NONE);
	feed(&h, mixed, NMIXED, 1);
	assert_string_equal(out(&h),
	                    "+I[a, 2026-08-01 09:00:01, 1]\n"    /* a: no match */
	                    "+I[b, 2026-08-01 09:00:02, 2]\n"    /* b: no match yet */
	                    "-D[b, 2026-08-01 09:00:02, 2]\n"    /* b matched */
	                    "+I[NULL, 2026-08-01 09:00:05, 5]\n" /* c matched at once; NULL key */
	                    "+I[b, 2026-08-01 09:00:02, 2]\n"    /* b's match retracted */
	                    "-D[a, 2026-08-01 09:00:01, 1]\n"    /* a updated */
	                    "+I[a, 2026-08-01 09:00:01, 7]\n"
	                    "-D[a, 2026-08-01 09:00:01, 7]\n");  /* a matched; one of two
	                                                           * matches goes: no change */
	h_deinit(&h);
}

static void run_all(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_semi_first_and_last_match),
		cmocka_unit_test(test_semi_residual),
		cmocka_unit_test(test_anti_key),
		cmocka_unit_test(test_anti_not_in_nulls),
		cmocka_unit_test(test_anti_mixed_answer),
		cmocka_unit_test(test_snapshot_every_cut),
	};
	if (cmocka_run_group_tests_name(g_backend, tests, NULL, NULL))
		exit(1);
}

int main(void)
{
	g_backend = "hashmap";
	run_all();
	g_backend = "rocksdb";
	run_all();
	return 0;
}
