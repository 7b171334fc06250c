/*
 * expr_eval.c - running a compiled program over a batch, and the control
 * and logic kernels.
 *
 * sl_prog_eval binds the registers to this call's vectors (input columns of
 * `in`, the caller's output columns for the roots), sets selection 0 to the
 * batch's live rows and runs the steps in order.  Each kernel loops over its
 * selection only; a step whose selection is empty is skipped, which is how
 * a CASE branch no row reaches never runs (and never raises).
 * sl_prog_filter narrows the batch's selection to a BOOLEAN program's TRUE
 * rows; sl_prog_eval_where runs a filter and a projection compiled as one
 * program, whose split step gives the projection's rows and the new
 * selection.
 *
 * Three-valued logic: a BOOLEAN vector holds 0/1 values plus the null
 * vector.  AND is FALSE when either side is FALSE, else NULL when either is
 * NULL, else TRUE; OR symmetrically.  Both kernels are branch-free so the
 * dense loops vectorize; when the right side was evaluated only under a
 * sub-selection (expr_compile.c), the left side alone decides the other
 * rows and the right side's stale slots do not affect the result.
 */
#include "expr_int.h"

#include <string.h>

/* ---- control kernels ---------------------------------------------------- */

/* Rows of s where TAKE holds go to sa, the others to sb (when there is
 * one): branch-free, every row is written and only the count moves (the
 * filter of a Calc is such a split, sl_prog_eval_where). */
#define SPLIT_ROWS(TAKE)                                                      \
	do {                                                                  \
		if (sb)                                                       \
			SL_FOR_ROWS(s, i, {                                   \
				int t_ = (TAKE);                              \
				sa[na] = (uint32_t)i;                         \
				sb[nb] = (uint32_t)i;                         \
				na += t_;                                     \
				nb += !t_;                                    \
			});                                                   \
		else                                                          \
			SL_FOR_ROWS(s, i, {                                   \
				sa[na] = (uint32_t)i;                         \
				na += (TAKE);                                 \
			});                                                   \
	} while (0)

static int split(sl_xctx *x, const sl_step *st, int mode)
{
	sl_prog *p = x->p;
	const sl_sel *s = SL_X_SEL(x, st);
	const sl_col *c = SL_X_ARG(x, st, 0);
	sl_sel *a = &p->sels[st->sel_a];
	sl_sel *b = st->sel_b >= 0 ? &p->sels[st->sel_b] : NULL;
	int na = 0, nb = 0;
	uint32_t *sa = a->store, *sb = b ? b->store : NULL;
	const uint8_t *cn = c->null;
	const int64_t *cv = c->v.i64;
	switch (mode) {
	case 0: SPLIT_ROWS(!cn[i] & (cv[i] != 0)); break;  /* TRUE */
	case 1: SPLIT_ROWS(cn[i] | (cv[i] != 0)); break;   /* not FALSE */
	case 2: SPLIT_ROWS(cn[i] | (cv[i] == 0)); break;   /* not TRUE */
	default: SPLIT_ROWS(cn[i] != 0); break;           /* NULL */
	}
	a->idx = sa;
	a->n = na;
	if (b) {
		b->idx = sb;
		b->n = nb;
	}
	return 0;
}

int sl__k_split_true(sl_xctx *x, const sl_step *st) { return split(x, st, 0); }
int sl__k_split_notfalse(sl_xctx *x, const sl_step *st) { return split(x, st, 1); }
int sl__k_split_nottrue(sl_xctx *x, const sl_step *st) { return split(x, st, 2); }
int sl__k_split_null(sl_xctx *x, const sl_step *st) { return split(x, st, 3); }

int sl__k_case_merge(sl_xctx *x, const sl_step *st)
{
	sl_prog *p = x->p;
	sl_col *o = SL_X_OUT(x, st);
	const int *sels = st->aux;
	sl_phys ph = sl_type_phys(st->type);
	for (int k = 0; k < st->nargs; k++) {
		const sl_sel *s = &p->sels[sels[k]];
		if (st->args[k] < 0) {
			SL_FOR_ROWS(s, i, { o->null[i] = 1; });
			continue;
		}
		sl__copy_rows(o, p->regs[st->args[k]].cur, NULL, s, ph);
	}
	return 0;
}

int sl__k_copy(sl_xctx *x, const sl_step *st)
{
	const sl_reg *src = &x->p->regs[st->args[0]];
	const sl_col *a = src->cur;
	sl_col *o = SL_X_OUT(x, st);
	const sl_sel *s = SL_X_SEL(x, st);
	sl_phys ph = sl_type_phys(st->type);
	if (ph == SL_PHYS_ROW) {
		if (!x->out)
			return sl_err_set(x->err, SL_ERUNTIME, "ROW value needs an output batch");
		SL_FOR_ROWS(s, i, {
			if (sl_col_copy_value(x->out, o, i, a, i))
				return sl_err_set(x->err, SL_ENOMEM, "out of memory copying a ROW");
		});
		return 0;
	}
	if (ph == SL_PHYS_STR && src->kind == SL_REG_CONST && !src->cval.is_null && x->out) {
		/* a constant string root: one copy per call into the output arena */
		char *d = sl_arena_memdup(&x->out->arena, src->cval.v.str.ptr,
		                          (size_t)src->cval.v.str.len + 1);
		if (!d)
			return sl_err_set(x->err, SL_ENOMEM, "out of memory");
		SL_FOR_ROWS(s, i, { sl_col_set_str_ref(o, i, d, src->cval.v.str.len); });
		return 0;
	}
	sl__copy_rows(o, a, NULL, s, ph);
	return 0;
}

/* ---- logic kernels ------------------------------------------------------ */

static int k_and(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0), *b = SL_X_ARG(x, st, 1);
	sl_col *o = SL_X_OUT(x, st);
	const uint8_t *an = a->null, *bn = b->null;
	const int64_t *av = a->v.i64, *bv = b->v.i64;
	uint8_t *on = o->null;
	int64_t *ov = o->v.i64;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		int af = !an[i] & !av[i], bf = !bn[i] & !bv[i];
		int isf = af | bf;
		on[i] = (uint8_t)((!isf) & (an[i] | bn[i]));
		ov[i] = !isf & !an[i] & !bn[i];
	});
	return 0;
}

static int k_or(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0), *b = SL_X_ARG(x, st, 1);
	sl_col *o = SL_X_OUT(x, st);
	const uint8_t *an = a->null, *bn = b->null;
	const int64_t *av = a->v.i64, *bv = b->v.i64;
	uint8_t *on = o->null;
	int64_t *ov = o->v.i64;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		int at = !an[i] & (av[i] != 0), bt = !bn[i] & (bv[i] != 0);
		int ist = at | bt;
		on[i] = (uint8_t)((!ist) & (an[i] | bn[i]));
		ov[i] = ist;
	});
	return 0;
}

static int k_not(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = a->null[i];
		o->v.i64[i] = !a->v.i64[i] & !a->null[i];
	});
	return 0;
}

/* IS [NOT] NULL / TRUE / FALSE: never NULL. */
static int k_is(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	int fn = st->fn;
	int isbool = x->p->regs[st->args[0]].type.id == SL_T_BOOLEAN;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		int n = a->null[i];
		int t = !n && isbool && a->v.i64[i], f = !n && isbool && !a->v.i64[i];
		int r;
		switch (fn) {
		case SL_FN_IS_NULL: r = n; break;
		case SL_FN_IS_NOT_NULL: r = !n; break;
		case SL_FN_IS_TRUE: r = t; break;
		case SL_FN_IS_FALSE: r = f; break;
		case SL_FN_IS_NOT_TRUE: r = !t; break;
		default: r = !f; break;
		}
		o->null[i] = 0;
		o->v.i64[i] = r;
	});
	return 0;
}

static int k_coalesce(sl_xctx *x, const sl_step *st)
{
	sl_col *o = SL_X_OUT(x, st);
	sl_phys ph = sl_type_phys(st->type);
	sl_reg *regs = x->p->regs;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = 1;
		for (int j = 0; j < st->nargs; j++) {
			const sl_col *a = regs[st->args[j]].cur;
			if (!a->null[i]) {
				sl__copy_val(o, i, a, i, ph);
				break;
			}
		}
	});
	return 0;
}

/* FIELD with a ROW result: the output register aliases the child vector. */
static int k_field_alias(sl_xctx *x, const sl_step *st)
{
	sl_col *a = SL_X_ARG(x, st, 0);
	x->p->regs[st->out].cur = &a->child[st->op];
	return 0;
}

/* FIELD with a scalar result: NULL when the row or the field is. */
static int k_field(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl__copy_rows(SL_X_OUT(x, st), &a->child[st->op], a->null, SL_X_SEL(x, st),
	              sl_type_phys(st->type));
	return 0;
}

/* Picks kernels for AND/OR/NOT, the IS predicates, COALESCE and FIELD. */
int sl__bind_logic(sl_prog *p, sl_step *st, sl_err *err)
{
	switch (st->fn) {
	case SL_FN_AND: st->k = k_and; return 0;
	case SL_FN_OR: st->k = k_or; return 0;
	case SL_FN_NOT: st->k = k_not; return 0;
	case SL_FN_IS_NULL: case SL_FN_IS_NOT_NULL: case SL_FN_IS_TRUE: case SL_FN_IS_FALSE:
	case SL_FN_IS_NOT_TRUE: case SL_FN_IS_NOT_FALSE:
		st->k = k_is;
		return 0;
	case SL_FN_COALESCE:
		if (st->type.id == SL_T_ROW)
			return sl_err_set(err, SL_ENOTSUP, "COALESCE of ROW values is not supported");
		st->k = k_coalesce;
		return 0;
	case SL_FN_FIELD:
		st->k = st->type.id == SL_T_ROW ? k_field_alias : k_field;
		return 0;
	default:
		return SL_ENOTSUP;
	}
}

/* ---- running a program -------------------------------------------------- */

/*
 * Step st failed with a run-time error (division by zero, a failed cast, an
 * overflow, an invalid argument).  Finds the first row of its selection
 * that fails on its own, by running the kernel again on one row at a time
 * (kernels are pure: they only write the step's output register), records
 * it in err->row / row_batch (err.h), and puts the SQL position of the
 * step's expression in front of the message.  Costs nothing unless a step
 * fails.  Returns the error code.
 */
static int locate_error(sl_prog *p, sl_xctx *x, const sl_step *st, int rc)
{
	sl_err *err = x->err;
	sl_err first = *err;
	sl_sel *s = &p->sels[st->sel];
	sl_sel saved = *s;
	uint32_t one;
	int row = -1;
	for (int k = 0; k < saved.n && row < 0; k++) {
		one = saved.idx ? saved.idx[k] : (uint32_t)k;
		s->idx = &one;
		s->n = 1;
		sl_err_clear(err);
		if (st->k(x, st))
			row = (int)one;
	}
	*s = saved;
	if (row < 0 || !err->code)
		*err = first;
	if (row >= 0) {
		err->row = row + 1;
		err->row_batch = x->in;
	}
	if (st->line > 0 && !p->no_pos)
		sl_err_prefix_at(err, st->line, st->col);
	return err->code ? err->code : rc;
}

static int run(sl_prog *p, sl_xctx *x)
{
	for (int i = 0; i < p->nsteps; i++) {
		const sl_step *st = &p->steps[i];
		if (p->sels[st->sel].n == 0 && st->k != k_field_alias) {
			if (st->sel_a > 0 && st->k != sl__k_case_merge) {
				/* an empty split still empties what it produces */
				p->sels[st->sel_a].n = 0;
				if (st->sel_b > 0)
					p->sels[st->sel_b].n = 0;
			}
			continue;
		}
		int r = st->k(x, st);
		if (r)
			return r == SL_ERUNTIME || r == SL_EINPUT ? locate_error(p, x, st, r) : r;
	}
	return 0;
}

static int bind_call(sl_prog *p, const sl_batch *in, sl_err *err)
{
	if (in->nrows > p->cap && sl__prog_reserve(p, in->nrows))
		return sl_err_set(err, SL_ENOMEM, "out of memory growing expression registers");
	if (in->ncols < p->nin)
		return sl_err_set(err, SL_EINVAL, "batch has %d columns, the program reads %d",
		                  in->ncols, p->nin);
	sl_arena_reset(&p->scratch);
	for (int i = 0; i < p->nregs; i++) {
		sl_reg *r = &p->regs[i];
		if (r->kind == SL_REG_INPUT)
			r->cur = &in->cols[r->input];
		else if (r->kind != SL_REG_ALIAS)
			r->cur = &r->own;
	}
	p->sels[0].idx = in->sel;
	p->sels[0].n = in->sel ? in->nsel : in->nrows;
	return 0;
}

/*
 * Evaluates the program over the live rows of `in` into out_cols (see
 * expr.h).  Returns 0, or SL_ERUNTIME / SL_ENOMEM with err set.
 */
int sl_prog_eval(sl_prog *p, const sl_batch *in, sl_batch *out_batch, sl_col *out_cols,
                 const sl_eval_ctx *ctx, sl_err *err)
{
	static const sl_eval_ctx utc = {0, NULL};
	int r = bind_call(p, in, err);
	if (r)
		return r;
	for (int i = 0; i < p->n; i++)
		p->regs[p->roots[i]].cur = &out_cols[i];
	sl_xctx x = {p, in, out_batch, ctx ? ctx : &utc, err};
	return run(p, &x);
}

/*
 * Evaluates a one-expression BOOLEAN program and narrows in->sel to the
 * rows where it is TRUE.  The selection storage belongs to the program and
 * stays valid until its next call.  Returns 0 or SL_ERUNTIME.
 */
int sl_prog_filter(sl_prog *p, sl_batch *in, const sl_eval_ctx *ctx, sl_err *err)
{
	static const sl_eval_ctx utc = {0, NULL};
	if (p->n != 1 || p->regs[p->roots[0]].type.id != SL_T_BOOLEAN)
		return sl_err_set(err, SL_EINVAL, "a filter needs one BOOLEAN expression");
	int r = bind_call(p, in, err);
	if (r)
		return r;
	sl_xctx x = {p, in, NULL, ctx ? ctx : &utc, err};
	if ((r = run(p, &x)))
		return r;
	const sl_col *c = p->regs[p->roots[0]].cur;
	const uint8_t *cn = c->null;
	const int64_t *cv = c->v.i64;
	uint32_t *out = p->filter_sel;
	int n = 0;
	/* branch-free compaction: write every row, advance only on TRUE */
	SL_FOR_ROWS(&p->sels[0], i, {
		out[n] = (uint32_t)i;
		n += (cv[i] != 0) & !cn[i];
	});
	in->sel = out;
	in->nsel = n;
	return 0;
}

/*
 * Evaluates a program of sl_prog_compile_where (expr.h): the filter and its
 * split step, then the expressions under the split's TRUE rows, which
 * become in->sel.  Returns 0, or SL_ERUNTIME / SL_ENOMEM with err set.
 */
int sl_prog_eval_where(sl_prog *p, sl_batch *in, sl_batch *out_batch, sl_col *out_cols,
                       const sl_eval_ctx *ctx, sl_err *err)
{
	static const sl_eval_ctx utc = {0, NULL};
	if (p->where_sel <= 0)
		return sl_err_set(err, SL_EINVAL, "not a program of sl_prog_compile_where");
	int r = bind_call(p, in, err);
	if (r)
		return r;
	for (int i = 0; i < p->n; i++)
		p->regs[p->roots[i]].cur = &out_cols[i];
	sl_xctx x = {p, in, out_batch, ctx ? ctx : &utc, err};
	if ((r = run(p, &x)))
		return r;
	const sl_sel *w = &p->sels[p->where_sel];
	in->sel = w->n ? w->idx : p->filter_sel; /* an empty split may not have set idx */
	in->nsel = w->n;
	return 0;
}

static int value_from_col(const sl_col *c, sl_arena *a, sl_value *out)
{
	memset(out, 0, sizeof(*out));
	out->is_null = c->null[0];
	if (out->is_null)
		return 0;
	switch (sl_type_phys(c->type)) {
	case SL_PHYS_F64: out->v.f64 = c->v.f64[0]; break;
	case SL_PHYS_I128: out->v.i128 = c->v.i128[0]; break;
	case SL_PHYS_STR: {
		char *d = sl_arena_strndup(a, c->v.str[0].ptr, (size_t)c->v.str[0].len);
		if (!d)
			return SL_ENOMEM;
		out->v.str.ptr = d;
		out->v.str.len = c->v.str[0].len;
		break;
	}
	case SL_PHYS_ROW: return SL_ENOTSUP;
	default: out->v.i64 = c->v.i64[0]; break;
	}
	return 0;
}

/*
 * Evaluates a constant expression (see expr.h) by compiling it and running
 * it over a one-row batch.  Strings of the result are copied into `a`.
 * Returns 0, SL_ERUNTIME (the evaluation error), SL_ENOTSUP or SL_ENOMEM.
 */
int sl_expr_eval_const(const sl_expr *e, sl_arena *a, sl_value *out, sl_err *err)
{
	sl_prog *p = NULL;
	sl_batch *in = NULL, *ob = NULL;
	int r;
	if (e->kind == SL_EX_LIT) {
		*out = e->lit;
		if (!e->lit.is_null && sl_type_phys(e->type) == SL_PHYS_STR &&
		    !(out->v.str.ptr = sl_arena_strndup(a, e->lit.v.str.ptr, (size_t)e->lit.v.str.len)))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		return 0;
	}
	if (!sl_expr_is_const(e))
		return sl_err_set(err, SL_EINVAL, "expression is not constant");
	sl_expr *const roots[1] = {(sl_expr *)e};
	r = SL_ENOMEM;
	if (!(p = sl__prog_compile(roots, 1, NULL, 0, 1, err)))
		return err && err->code ? err->code : SL_ENOMEM;
	p->no_pos = 1;
	in = sl_batch_new(0, NULL, 1);
	ob = sl_batch_new(1, &e->type, 1);
	if (!in || !ob)
		goto fail;
	sl_batch_add_row(in, 0, SL_WM_MIN);
	sl_batch_add_row(ob, 0, SL_WM_MIN);
	if ((r = sl_prog_eval(p, in, ob, ob->cols, NULL, err)))
		goto fail;
	if ((r = value_from_col(&ob->cols[0], a, out)))
		sl_err_set(err, r, "cannot fold a constant of this type");
fail:
	if (r == SL_ENOMEM)
		sl_err_set(err, r, "out of memory");
	sl_batch_free(in);
	sl_batch_free(ob);
	sl_prog_free(p);
	return r;
}
