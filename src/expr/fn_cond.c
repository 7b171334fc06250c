/*
 * fn_cond.c - GREATEST and LEAST: the largest (smallest) of their
 * arguments, NULL when any argument is NULL (Flink 1.20's rule).
 *
 * The constructor has already brought every argument to the common type
 * (as for COALESCE), so the kernel compares one physical representation:
 * integers (and BOOLEAN, DATE, TIME, TIMESTAMP), DOUBLE, DECIMAL as scaled
 * 128-bit integers, strings byte-wise (UTF-8 order).  String results point
 * into the winning argument.
 */
#include "expr_int.h"

#include <string.h>

static int cmp_str(sl_str a, sl_str b)
{
	int64_t n = a.len < b.len ? a.len : b.len;
	int c = memcmp(a.ptr, b.ptr, (size_t)n);
	return c ? c : (a.len > b.len) - (a.len < b.len);
}

/* <0, 0, >0 comparing row i of a and b (physical type ph). */
static int cmp_val(const sl_col *a, const sl_col *b, int i, sl_phys ph)
{
	switch (ph) {
	case SL_PHYS_F64: return (a->v.f64[i] > b->v.f64[i]) - (a->v.f64[i] < b->v.f64[i]);
	case SL_PHYS_I128: return (a->v.i128[i] > b->v.i128[i]) - (a->v.i128[i] < b->v.i128[i]);
	case SL_PHYS_STR: return cmp_str(a->v.str[i], b->v.str[i]);
	default: return (a->v.i64[i] > b->v.i64[i]) - (a->v.i64[i] < b->v.i64[i]);
	}
}

static int k_greatest(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	sl_phys ph = sl_type_phys(st->type);
	int sign = st->fn == SL_FN_GREATEST ? 1 : -1;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		const sl_col *best = SL_X_ARG(x, st, 0);
		int null = best->null[i];
		for (int j = 1; j < st->nargs && !null; j++) {
			const sl_col *c = SL_X_ARG(x, st, j);
			if (c->null[i])
				null = 1;
			else if (sign * cmp_val(c, best, i, ph) > 0)
				best = c;
		}
		if (null)
			o->null[i] = 1;
		else
			sl__copy_val(o, i, best, i, ph);
	});
	return 0;
}

/* Picks the GREATEST / LEAST kernel. */
int sl__bind_cond(sl_prog *p, sl_step *st, sl_err *err)
{
	if (st->fn != SL_FN_GREATEST && st->fn != SL_FN_LEAST)
		return SL_ENOTSUP;
	st->k = k_greatest;
	return 0;
}
