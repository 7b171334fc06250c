/*
 * fn_split.c - SPLIT(string, delimiter): the ARRAY<STRING> of the pieces of
 * a string (Flink 1.20's SplitFunction).
 *
 * As Flink: the delimiter is literal text, and every piece is kept,
 * leading, trailing and adjacent empty ones included (commons-lang's
 * splitByWholeSeparatorPreserveAllTokens: SPLIT('a,b,,c', ',') is
 * [a, b, , c], SPLIT('a,', ',') is [a, ]); an empty string gives an empty
 * array; an empty delimiter splits into characters (code points: UTF-8
 * sequences here); a NULL argument gives NULL.
 *
 * The pieces are packed (data/packed.h) in the step's buffer and the value
 * copied into the step's arena; no allocation per row otherwise.
 */
#include "expr_int.h"
#include "data/packed.h"

#include <stdlib.h>
#include <string.h>

typedef struct split_aux {
	sl_buf buf;
} split_aux;

static void aux_free(void *v)
{
	split_aux *a = v;
	sl_buf_deinit(&a->buf);
	free(a);
}

/* Appends the string (p, n) as the next element of the packed value. */
static int put_piece(sl_buf *b, const char *p, int64_t n)
{
	uint8_t nul = 0;
	sl_str s = {p, n};
	sl_col c = {.type = sl_type_make(SL_T_VARCHAR), .null = &nul, .v.str = &s};
	return sl_pack_value(b, &c, 0);
}

/* The length of the UTF-8 sequence starting with byte c (1 for a stray
 * continuation byte, so every byte is consumed). */
static int utf8_len(unsigned char c)
{
	return c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
}

static int k_split(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0), *d = SL_X_ARG(x, st, 1);
	sl_col *o = SL_X_OUT(x, st);
	split_aux *aux = st->aux;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = a->null[i] | d->null[i];
		if (o->null[i])
			continue;
		sl_str s = a->v.str[i], sep = d->v.str[i];
		uint32_t n = 0;
		int rc = sl_pack_begin(&aux->buf);
		if (s.len && !sep.len) {
			for (int64_t k = 0; k < s.len && !rc; n++) {
				int64_t l = utf8_len((unsigned char)s.ptr[k]);
				if (l > s.len - k)
					l = s.len - k;
				rc = put_piece(&aux->buf, s.ptr + k, l);
				k += l;
			}
		} else if (s.len) {
			int64_t from = 0;
			for (int64_t k = 0; k + sep.len <= s.len && !rc;) {
				if (memcmp(s.ptr + k, sep.ptr, (size_t)sep.len)) {
					k++;
					continue;
				}
				rc = put_piece(&aux->buf, s.ptr + from, k - from);
				n++;
				k += sep.len;
				from = k;
			}
			if (!rc) {
				rc = put_piece(&aux->buf, s.ptr + from, s.len - from);
				n++;
			}
		}
		if (rc)
			return sl_err_set(x->err, SL_ENOMEM, "out of memory in SPLIT");
		sl_pack_end(&aux->buf, n);
		if (sl_col_set_str_in(sl__x_arena(x, st), o, i, aux->buf.p, (int64_t)aux->buf.len))
			return sl_err_set(x->err, SL_ENOMEM, "out of memory in SPLIT");
	});
	return 0;
}

/* Picks the kernel of SPLIT; SL_ENOTSUP for other functions. */
int sl__bind_split(sl_prog *p, sl_step *st, sl_err *err)
{
	if (st->fn != SL_FN_SPLIT)
		return SL_ENOTSUP;
	split_aux *a = calloc(1, sizeof(*a));
	if (!a || sl__prog_on_free(p, aux_free, a)) {
		free(a);
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	sl_buf_init(&a->buf);
	st->aux = a;
	st->k = k_split;
	return 0;
}
