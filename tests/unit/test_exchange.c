/*
 * test_exchange.c - the sender of src/runtime/exchange.c driven directly,
 * on one thread, its channels read back after every call: which channel
 * every row goes to and how it arrives.
 *
 * HASH: every row reaches exactly the instance owning the key group of
 * the row codec's key form of its key columns (computed here the generic
 * way, sl_rowcodec_key + sl_keygroup_of), for keys of one STRING column
 * (NULLs, empty strings, strings too long for the sender's stack buffer),
 * one BIGINT (NULLs, negative and large values: the sender hashes it from
 * the value), one DOUBLE (-0.0 with 0.0, NaNs), and two columns; at
 * parallelism 2, 3 and 7.  On every path (HASH, REBALANCE, GATHER,
 * FORWARD, BROADCAST): each row once per channel it is meant for, with
 * its change kind, W_before and values; each channel's rows in input
 * order; W_before non-decreasing along every batch although the input
 * holds batches where it decreases; input selection vectors honoured;
 * every batch within its capacity; a watermark never ahead of a row that
 * preceded it; strings owned by the channel's batch (the input's bytes
 * are overwritten after each call).  The same with a lent channel
 * (sl_xsend_set_local, every kind): its rows arrive as views of the input
 * (a selection of the input's rows, strings still the input's) while the
 * sender's call lasts, through the wait function, which reads the
 * channels as the thread's consumer would; a view is never handed back.
 * The receiver and the threads are test_prun's and test_channel's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/keygroup.h"
#include "data/rowcodec.h"
#include "runtime/exchange.h"
#include "sluice.h"

enum { NCOL = 5, MAXCH = 8, BROWS = 16, POOL = 256, CAP = 4096 };
/* columns: 0 id BIGINT (the row's number in the input), 1 s STRING,
 * 2 k BIGINT, 3 d DOUBLE, 4 t STRING (a second string) */

typedef struct got {
	int64_t id;
	int64_t wm_seen; /* the channel's last watermark message before it */
	sl_buf row;      /* row form of the row */
	uint8_t op;
	int64_t wm;
} got;

typedef struct fix {
	sl_type types[NCOL];
	int n;
	sl_chan *ch[MAXCH], *ret[MAXCH];
	sl_wake wake;
	sl_op *x;
	int64_t chwm[MAXCH];  /* last watermark message per channel */
	int ended[MAXCH];
	got *g[MAXCH];        /* rows per channel, in arrival order */
	int ng[MAXCH];
	char text[CAP * 8];   /* the input's string bytes (as a read buffer) */
	int64_t next_id;
	int64_t fed_wm;       /* the last watermark given to the sender */
} fix;

static int lend_ch = -1; /* the channel lent to (sl_xsend_set_local), or -1 */
static int nviews;       /* views seen */
static void drain(fix *f);

/* The sender's wait: reads the channels, as the consumer on the thread
 * would (the condition is checked again by the sender). */
static int wait_drain(void *ctx, sl_chan *c, int room)
{
	(void)c;
	(void)room;
	drain(ctx);
	return 0;
}

static void fix_init(fix *f, sl_xchg_kind kind, const int *cols, int ncols, int n)
{
	memset(f, 0, sizeof(*f));
	f->types[0] = sl_type_make(SL_T_BIGINT);
	f->types[1] = sl_type_varchar(SL_STRING_LEN);
	f->types[2] = sl_type_make(SL_T_BIGINT);
	f->types[3] = sl_type_make(SL_T_DOUBLE);
	f->types[4] = sl_type_varchar(SL_STRING_LEN);
	f->n = n;
	sl_wake_init(&f->wake);
	for (int t = 0; t < n; t++) {
		f->ch[t] = sl_chan_new(CAP, &f->wake);
		f->ret[t] = sl_chan_new(POOL, NULL);
		assert_non_null(f->ch[t]);
		assert_non_null(f->ret[t]);
		f->chwm[t] = SL_WM_MIN;
	}
	sl_err err;
	sl_err_clear(&err);
	f->x = sl_xsend_new(kind, cols, ncols, 128, f->ch, f->ret, n, POOL, BROWS, &err);
	assert_non_null(f->x);
	f->x->nout = NCOL;
	f->x->out_types = malloc(sizeof(f->types));
	assert_non_null(f->x->out_types);
	memcpy(f->x->out_types, f->types, sizeof(f->types));
	f->fed_wm = SL_WM_MIN;
	if (lend_ch >= 0) {
		sl_xsend_set_wait(f->x, wait_drain, f);
		sl_xsend_set_local(f->x, lend_ch);
	}
}

static void fix_free(fix *f)
{
	sl_op_free(f->x);
	for (int t = 0; t < f->n; t++) {
		for (int i = 0; i < f->ng[t]; i++)
			sl_buf_deinit(&f->g[t][i].row);
		free(f->g[t]);
		sl_chan_free(f->ch[t]);
		sl_chan_free(f->ret[t]);
	}
}

/* Reads every channel empty: records rows, checks each batch, hands the
 * batches back. */
static void drain(fix *f)
{
	for (int t = 0; t < f->n; t++) {
		sl_chan_msg m;
		while (sl_chan_try_pop(f->ch[t], &m) == 1) {
			assert_false(f->ended[t]);
			if (m.kind == SL_CHAN_WATERMARK) {
				assert_true(m.value >= f->chwm[t]);
				f->chwm[t] = m.value;
				continue;
			}
			if (m.kind == SL_CHAN_END) {
				f->ended[t] = 1;
				continue;
			}
			assert_int_equal(m.kind, SL_CHAN_BATCH);
			sl_batch *b = m.batch;
			int view = m.flags != 0; /* lent: a view of the input */
			if (view) {
				assert_int_equal(t, lend_ch);
				assert_true(sl_batch_live(b) > 0);
				nviews++;
			} else {
				assert_null(b->sel);
				assert_true(b->nrows > 0 && b->nrows <= b->cap && b->cap == BROWS);
			}
			f->g[t] = realloc(f->g[t], sizeof(got) * (size_t)(f->ng[t] + sl_batch_live(b)));
			assert_non_null(f->g[t]);
			int prev = -1;
			SL_BATCH_FOREACH(b, k, r) {
				if (k)
					assert_true(b->wm[r] >= b->wm[prev]); /* W_before along a batch */
				prev = r;
				got *g = &f->g[t][f->ng[t]++];
				g->id = b->cols[0].v.i64[r];
				g->wm_seen = f->chwm[t];
				g->op = b->op[r];
				g->wm = b->wm[r];
				sl_buf_init(&g->row);
				assert_int_equal(sl_rowcodec_row(b, r, &g->row), 0);
				for (int c = 1; c < NCOL && !view; c += 3) /* strings: NUL-terminated, not the input's */
					if (!b->cols[c].null[r]) {
						const sl_str *s = &b->cols[c].v.str[r];
						assert_int_equal(s->ptr[s->len], 0);
						assert_false(s->ptr >= f->text && s->ptr < f->text + sizeof(f->text));
					}
			}
			if (view)
				continue; /* its sender is waiting for the channel to be drained */
			sl_chan_msg back = {SL_CHAN_BATCH, 0, 0, b};
			assert_int_equal(sl_chan_try_push(f->ret[t], &back), 1);
		}
	}
}

/* The expected rows, in input order: ids, row forms, keys' targets. */
typedef struct want {
	sl_buf row;
	uint8_t op;
	int64_t wm;
	int64_t wm_before_fed; /* the last watermark fed before the row */
	int target;            /* HASH: the owning instance */
	int live;              /* not left out by the input's selection */
} want;

static want *wants;
static int nwants, capwants;

/* A string value of length len at text + off (off, len < sizeof text). */
static const char *str_at(fix *f, int i, int len)
{
	int off = (i * 37) % (int)(sizeof(f->text) - 512);
	return f->text + off + (len % 5);
}

/* Feeds a batch of nr rows (ids next_id..), where some are left out by a
 * selection vector when sel_every > 0, W_before rising but falling back
 * once in the middle when wm_dip, to the sender; records what is
 * expected; then overwrites the string bytes and drains. */
static void feed(fix *f, int nr, int sel_every, int wm_dip, int hash_cols_n, const int *hash_cols)
{
	for (size_t i = 0; i < sizeof(f->text); i++)
		f->text[i] = (char)('A' + (i * 7 + (size_t)f->next_id) % 26);
	sl_batch *b = sl_batch_new(NCOL, f->types, nr);
	assert_non_null(b);
	int64_t wbase = f->fed_wm == SL_WM_MIN ? 0 : f->fed_wm;
	for (int i = 0; i < nr; i++) {
		int64_t id = f->next_id + i;
		int64_t wm = wbase + i / 3;
		if (wm_dip && i >= nr / 2)
			wm -= nr; /* a later split's rows, behind */
		int r = sl_batch_add_row(b, (uint8_t)(id % 4), wm);
		sl_col_set_i64(&b->cols[0], r, id);
		int len = (int)(id % 9 == 0 ? 0 : id % 23 == 0 ? 200 : id % 11);
		if (id % 13 != 5)
			sl_col_set_str_ref(&b->cols[1], r, str_at(f, (int)id, len), len);
		if (id % 17 != 3)
			sl_col_set_i64(&b->cols[2], r, ((id * 7919) % 1000 - 500) *
			                                   (id % 3 ? 1 : 1000000007LL * 1000003));
		if (id % 19 != 4) {
			double d = (double)(id % 50) - 25.5;
			if (id % 10 == 1)
				d = id % 20 == 1 ? -0.0 : 0.0;
			if (id % 29 == 2)
				d = id % 58 == 2 ? NAN : -NAN;
			sl_col_set_f64(&b->cols[3], r, d);
		}
		if (id % 5)
			sl_col_set_str_ref(&b->cols[4], r, str_at(f, (int)id + 3, (int)(id % 7)),
			                   (int)(id % 7));
	}
	uint32_t *sel = NULL;
	if (sel_every) {
		sel = malloc(sizeof(uint32_t) * (size_t)nr);
		assert_non_null(sel);
		int k = 0;
		for (int i = 0; i < nr; i++)
			if (i % sel_every)
				sel[k++] = (uint32_t)i;
		b->sel = sel;
		b->nsel = k;
	}
	for (int row = 0; row < nr; row++) {
		if (nwants == capwants) {
			capwants = capwants ? capwants * 2 : 1024;
			wants = realloc(wants, sizeof(want) * (size_t)capwants);
			assert_non_null(wants);
		}
		assert_int_equal(b->cols[0].v.i64[row], nwants); /* id = index in wants */
		want *w = &wants[nwants++];
		sl_buf_init(&w->row);
		assert_int_equal(sl_rowcodec_row(b, row, &w->row), 0);
		w->live = !sel_every || row % sel_every;
		w->op = b->op[row];
		w->wm = b->wm[row];
		w->wm_before_fed = f->fed_wm;
		w->target = -1;
		if (hash_cols_n >= 0) {
			sl_buf key;
			sl_buf_init(&key);
			assert_int_equal(sl_rowcodec_key(b, hash_cols, hash_cols_n, row, &key), 0);
			int kg = sl_keygroup_of(key.p, (uint32_t)key.len, 128);
			w->target = sl_keygroup_instance(kg, f->n, 128);
			sl_buf_deinit(&key);
		}
	}
	sl_err err;
	sl_err_clear(&err);
	assert_int_equal(f->x->vt->process(f->x, 0, b, &err), 0);
	memset(f->text, '#', sizeof(f->text)); /* the source reads on */
	drain(f);
	f->next_id += nr;
	free(sel);
	sl_batch_free(b);
}

static void watermark(fix *f, int64_t wm)
{
	sl_err err;
	sl_err_clear(&err);
	assert_int_equal(f->x->vt->watermark(f->x, wm, &err), 0);
	f->fed_wm = wm;
	drain(f);
}

/* Checks what arrived against wants: copies (1 for every kind but
 * BROADCAST, which sends every row to every channel), targets, order, values,
 * watermarks behind rows. */
static void check(fix *f, int broadcast)
{
	sl_err err;
	sl_err_clear(&err);
	assert_int_equal(f->x->vt->finish(f->x, &err), 0);
	drain(f);
	int *seen = calloc((size_t)nwants, sizeof(int));
	assert_non_null(seen);
	for (int t = 0; t < f->n; t++) {
		assert_true(f->ended[t]);
		assert_int_equal(f->chwm[t], f->fed_wm); /* the last watermark reached every channel */
		int64_t prev = -1;
		for (int i = 0; i < f->ng[t]; i++) {
			got *g = &f->g[t][i];
			assert_true(g->id >= 0 && g->id < nwants);
			assert_true(g->id > prev); /* input order per channel */
			prev = g->id;
			want *w = &wants[g->id];
			if (w->target >= 0)
				assert_int_equal(t, w->target);
			assert_int_equal(g->op, w->op);
			assert_int_equal(g->wm, w->wm);
			assert_int_equal(g->row.len, w->row.len);
			assert_memory_equal(g->row.p, w->row.p, w->row.len);
			/* no watermark on the channel ahead of a row fed before it */
			assert_true(g->wm_seen <= w->wm_before_fed || g->wm_seen == SL_WM_MIN);
			seen[g->id]++;
		}
	}
	for (int i = 0; i < nwants; i++)
		assert_int_equal(seen[i], !wants[i].live ? 0 : broadcast ? f->n : 1);
	free(seen);
	for (int i = 0; i < nwants; i++)
		sl_buf_deinit(&wants[i].row);
	free(wants);
	wants = NULL;
	nwants = capwants = 0;
}

/* A run over one exchange: batches of several sizes (below, at and above
 * the sender's batch size and the input row count), with selections and
 * W_before dips, watermarks between them. */
static void run(sl_xchg_kind kind, const int *cols, int ncols, int n)
{
	fix *f = malloc(sizeof(fix));
	assert_non_null(f);
	fix_init(f, kind, cols, ncols, n);
	int hn = kind == SL_XCHG_HASH ? ncols : -1;
	int sizes[] = {1, 5, 16, 17, 100, 333, 1024, 3};
	for (int i = 0; i < 8; i++) {
		feed(f, sizes[i], i % 3 == 1 ? 4 : 0, i % 4 == 3, hn, cols);
		if (i % 2)
			watermark(f, f->fed_wm == SL_WM_MIN ? 10 : f->fed_wm + 40);
	}
	watermark(f, SL_WM_MAX - 1);
	check(f, kind == SL_XCHG_BROADCAST);
	fix_free(f);
	free(f);
}

static void test_hash_string(void **st)
{
	(void)st;
	int cols[] = {1};
	run(SL_XCHG_HASH, cols, 1, 2);
	run(SL_XCHG_HASH, cols, 1, 3);
	run(SL_XCHG_HASH, cols, 1, 7);
}

static void test_hash_bigint_double(void **st)
{
	(void)st;
	int k[] = {2}, d[] = {3};
	run(SL_XCHG_HASH, k, 1, 3);
	run(SL_XCHG_HASH, d, 1, 2);
	run(SL_XCHG_HASH, d, 1, 7);
}

static void test_hash_two_columns(void **st)
{
	(void)st;
	int cols[] = {4, 2};
	run(SL_XCHG_HASH, cols, 2, 3);
}

static void test_one_target_kinds(void **st)
{
	(void)st;
	run(SL_XCHG_GATHER, NULL, 0, 1);
	run(SL_XCHG_FORWARD, NULL, 0, 1);
	run(SL_XCHG_REBALANCE, NULL, 0, 3);
	run(SL_XCHG_BROADCAST, NULL, 0, 3);
}

/* Every kind with one channel lent (its consumer on the sender's thread). */
static void test_lent_channel(void **st)
{
	(void)st;
	int scol[] = {1}, kcol[] = {2};
	nviews = 0;
	lend_ch = 1;
	run(SL_XCHG_HASH, scol, 1, 2);
	run(SL_XCHG_HASH, kcol, 1, 3);
	run(SL_XCHG_REBALANCE, NULL, 0, 3);
	lend_ch = 2;
	run(SL_XCHG_BROADCAST, NULL, 0, 3);
	lend_ch = 0;
	run(SL_XCHG_GATHER, NULL, 0, 1);
	run(SL_XCHG_HASH, scol, 1, 7);
	lend_ch = -1;
	assert_true(nviews > 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_string),
		cmocka_unit_test(test_hash_bigint_double),
		cmocka_unit_test(test_hash_two_columns),
		cmocka_unit_test(test_one_target_kinds),
		cmocka_unit_test(test_lent_channel),
	};
	return cmocka_run_group_tests_name("exchange", tests, NULL, NULL);
}
