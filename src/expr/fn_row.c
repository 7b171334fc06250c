/*
 * fn_row.c - the ROW(v1, ...) value constructor (and `(v1, v2, ...)`, which
 * the parser reads as ROW): one row value whose fields are its arguments.
 *
 * A ROW value in a register is a column with one child column per field
 * (data/batch.h).  The constructor's step writes into such a column: the
 * output column itself when the ROW is an expression's root (the output
 * batch's ROW column, with its child columns), else the register's own
 * storage (expr_compile.c gives a computed ROW register child columns, sized
 * with the program's other vectors).  Fields are copied by reference:
 * strings point where the argument's bytes live (the output batch's arena
 * when the value reaches an output column, st->out_arena, the input batch,
 * or the program's scratch for an intermediate value, which a root copy,
 * sl__k_copy, then copies into the output's arena).  Nested ROW fields are
 * copied child by child the same way.  The row itself is never NULL.  No
 * allocation per row.
 */
#include "expr_int.h"

/* Copies (src, srow) into (dst, drow) by reference, ROW values field by
 * field (children of the same shape, as the types are equal). */
static void copy_ref(sl_col *dst, int drow, const sl_col *src, int srow)
{
	sl_phys ph = sl_type_phys(dst->type);
	if (ph != SL_PHYS_ROW) {
		sl__copy_val(dst, drow, src, srow, ph);
		return;
	}
	dst->null[drow] = src->null[srow];
	for (int j = 0; j < dst->nchild && j < src->nchild; j++)
		copy_ref(&dst->child[j], drow, &src->child[j], srow);
}

static int k_row(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	if (!o->child || o->nchild != st->nargs)
		return sl_err_set(x->err, SL_ERUNTIME, "ROW value without storage for its %d fields",
		                  st->nargs);
	for (int j = 0; j < st->nargs; j++) {
		const sl_col *a = SL_X_ARG(x, st, j);
		sl_col *f = &o->child[j];
		SL_FOR_ROWS(SL_X_SEL(x, st), i, { copy_ref(f, i, a, i); });
	}
	SL_FOR_ROWS(SL_X_SEL(x, st), i, { o->null[i] = 0; });
	return 0;
}

/* Picks the kernel of ROW(...); SL_ENOTSUP for other functions. */
int sl__bind_row(sl_prog *p, sl_step *st, sl_err *err)
{
	(void)p;
	(void)err;
	if (st->fn != SL_FN_ROW)
		return SL_ENOTSUP;
	st->k = k_row;
	return 0;
}
