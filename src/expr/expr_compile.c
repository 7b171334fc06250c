/*
 * expr_compile.c - turns bound expression trees into a flat step program.
 *
 * sl_prog_compile walks each tree once, post-order, and appends one step
 * per call node (expr_int.h describes steps, registers and selections).
 * Column references become input registers (the batch's vector is read in
 * place), literals become constant registers broadcast once, and constant
 * sub-trees are folded here by evaluating them on a one-row batch (a fold
 * that fails, say `1 / 0` in a CASE branch never taken, is left for run
 * time, where it raises only if a row reaches it).
 *
 * CASE compiles to split steps that partition the selection by each WHEN
 * condition, the branch values compiled under their sub-selections, and a
 * merge step; AND, OR and COALESCE whose later arguments may raise (a
 * division, a cast, DECIMAL arithmetic) evaluate those arguments only for
 * the rows whose result is not yet decided.
 *
 * A call that appears more than once (lower(channel) in each WHEN of a
 * CASE and in the filter's IN) is compiled once: a later occurrence reuses
 * the register of an earlier one when that one was computed under the
 * same selection or one it was split from (so every row it needs has
 * been computed), with strings in an arena that lives as long as it needs
 * (out_arena), and when it is deterministic (no call in it is volatile,
 * sl__fn_volatile: RAND, UUID, PROCTIME, CURRENT_TIMESTAMP, a UDF, ...).
 * Kernels only write their own output register, so a reused register
 * still holds the value.
 * Nexmark q21: lower(channel) ran about 4.3 times per row (docs/nexmark.md
 * §22).
 *
 * Owned vectors are allocated with capacity p->cap (SL_BATCH_ROWS at
 * first) and grown by sl__prog_reserve when a bigger batch arrives.  A
 * ROW-typed result is an alias of a column its step points it at (a
 * field of a ROW column), except a ROW built by ROW(...) or CAST, whose
 * register owns child columns (sl_col_new) at that capacity.
 */
#include "expr_int.h"

#include <stdlib.h>
#include <string.h>

/* A compiled call, for reuse by an equal one (see the header). */
typedef struct memo {
	const sl_expr *e;
	int reg, sel, oa;
} memo;

typedef struct cc {
	sl_prog *p;
	sl_err *err;
	int line, col; /* SQL position of the innermost call being compiled */
	int *in_reg;   /* register of each input column, -1 until used */
	int nofold;    /* do not fold the next root (sl_expr_eval_const) */
	int *sel_parent;  /* selection each one was split from (-1 for 0) */
	int capparent;
	memo *memo;       /* compiled calls, in order */
	int nmemo, capmemo;
	int hit;          /* the last comp() returned a reused register */
} cc;

/* ---- program building blocks -------------------------------------------- */

static int grow(void **arr, int *cap, int need, size_t elem)
{
	if (need <= *cap)
		return 0;
	int nc = *cap ? *cap * 2 : 16;
	while (nc < need)
		nc *= 2;
	void *n = realloc(*arr, (size_t)nc * elem);
	if (!n)
		return SL_ENOMEM;
	memset((char *)n + (size_t)*cap * elem, 0, (size_t)(nc - *cap) * elem);
	*arr = n;
	*cap = nc;
	return 0;
}

static int new_reg(sl_prog *p, int kind, sl_type t)
{
	if (grow((void **)&p->regs, &p->capregs, p->nregs + 1, sizeof(sl_reg)))
		return SL_ENOMEM;
	sl_reg *r = &p->regs[p->nregs];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->type = t;
	r->own.type = t;
	return p->nregs++;
}

static int new_sel(sl_prog *p)
{
	if (grow((void **)&p->sels, &p->capsels, p->nsels + 1, sizeof(sl_sel)))
		return SL_ENOMEM;
	memset(&p->sels[p->nsels], 0, sizeof(sl_sel));
	return p->nsels++;
}

/* A new selection split from `parent`; its index or SL_ENOMEM. */
static int sub_sel(cc *c, int parent)
{
	int s = new_sel(c->p);
	if (s < 0 || grow((void **)&c->sel_parent, &c->capparent, s + 1, sizeof(int)))
		return SL_ENOMEM;
	c->sel_parent[s] = parent;
	return s;
}

/* Appends a step; returns its index or SL_ENOMEM.  args are copied. */
static int new_step(sl_prog *p, sl_fn fn, const int *args, int nargs, int sel, int out, sl_type t)
{
	if (grow((void **)&p->steps, &p->capsteps, p->nsteps + 1, sizeof(sl_step)))
		return SL_ENOMEM;
	sl_step *st = &p->steps[p->nsteps];
	memset(st, 0, sizeof(*st));
	st->fn = fn;
	st->sel = sel;
	st->out = out;
	st->type = t;
	st->nargs = nargs;
	if (nargs) {
		st->args = sl_arena_memdup(&p->arena, args, sizeof(int) * (size_t)nargs);
		if (!st->args)
			return SL_ENOMEM;
	}
	return p->nsteps++;
}

int sl__prog_on_free(sl_prog *p, sl_aux_free fn, void *ptr)
{
	int c1 = p->capfrees, c2 = p->capfrees;
	if (grow((void **)&p->free_fn, &c1, p->nfrees + 1, sizeof(sl_aux_free)) ||
	    grow((void **)&p->free_ptr, &c2, p->nfrees + 1, sizeof(void *))) {
		fn(ptr);
		return SL_ENOMEM;
	}
	p->capfrees = c1 < c2 ? c1 : c2;
	p->free_fn[p->nfrees] = fn;
	p->free_ptr[p->nfrees++] = ptr;
	return 0;
}

const sl_value *sl__step_const(const sl_prog *p, const sl_step *st, int j)
{
	if (j >= st->nargs)
		return NULL;
	const sl_reg *r = &p->regs[st->args[j]];
	return r->kind == SL_REG_CONST ? &r->cval : NULL;
}

/* ---- vector storage ----------------------------------------------------- */

static size_t phys_size(sl_phys ph)
{
	switch (ph) {
	case SL_PHYS_F64: return sizeof(double);
	case SL_PHYS_I128: return sizeof(sl_i128);
	case SL_PHYS_STR: return sizeof(sl_str);
	case SL_PHYS_ROW: return 0;
	default: return sizeof(int64_t);
	}
}

static void fill_const(sl_reg *r, int from, int to)
{
	sl_phys ph = sl_type_phys(r->type);
	memset(r->own.null + from, r->cval.is_null ? 1 : 0, (size_t)(to - from));
	for (int i = from; i < to; i++) {
		switch (ph) {
		case SL_PHYS_F64: r->own.v.f64[i] = r->cval.v.f64; break;
		case SL_PHYS_I128: r->own.v.i128[i] = r->cval.v.i128; break;
		case SL_PHYS_STR: r->own.v.str[i] = r->cval.v.str; break;
		case SL_PHYS_ROW: break;
		default: r->own.v.i64[i] = r->cval.v.i64; break;
		}
	}
}

/* Makes every owned vector hold at least n rows.  Returns 0 or SL_ENOMEM. */
static int prog_reserve(sl_prog *p, int n)
{
	if (n <= p->cap)
		return 0;
	for (int i = 0; i < p->nregs; i++) {
		sl_reg *r = &p->regs[i];
		if ((r->kind != SL_REG_TMP && r->kind != SL_REG_CONST) || r->scalar)
			continue;
		if (sl_type_phys(r->type) == SL_PHYS_ROW) {
			/* a computed ROW (fn_row.c): child columns, refilled every
			 * call, so nothing needs keeping; a ROW constant is NULL
			 * (CAST(NULL AS ROW<..>), expr_type.c) */
			sl_col_free(&r->own);
			if (sl_col_new(&r->own, r->type, n))
				return SL_ENOMEM;
			if (r->kind == SL_REG_CONST)
				memset(r->own.null, r->cval.is_null ? 1 : 0, (size_t)n);
			continue;
		}
		size_t w = phys_size(sl_type_phys(r->type));
		uint8_t *nl = realloc(r->own.null, (size_t)n);
		if (!nl)
			return SL_ENOMEM;
		r->own.null = nl;
		memset(nl + p->cap, 0, (size_t)(n - p->cap));
		if (w) {
			void *d = aligned_alloc(16, ((size_t)n * w + 15) & ~(size_t)15);
			if (!d)
				return SL_ENOMEM;
			if (r->own.v.data)
				memcpy(d, r->own.v.data, (size_t)p->cap * w);
			memset((char *)d + (size_t)p->cap * w, 0, (size_t)(n - p->cap) * w);
			free(r->own.v.data);
			r->own.v.data = d;
		}
		if (r->kind == SL_REG_CONST)
			fill_const(r, p->cap, n);
	}
	for (int i = 0; i < p->nsels; i++) {
		uint32_t *s = realloc(p->sels[i].store, sizeof(uint32_t) * (size_t)n);
		if (!s)
			return SL_ENOMEM;
		p->sels[i].store = s;
	}
	uint32_t *fs = realloc(p->filter_sel, sizeof(uint32_t) * (size_t)n);
	if (!fs)
		return SL_ENOMEM;
	p->filter_sel = fs;
	p->cap = n;
	return 0;
}

int sl__prog_reserve(sl_prog *p, int n)
{
	return prog_reserve(p, n);
}

/* ---- the tree walk ------------------------------------------------------ */

static int comp(cc *c, const sl_expr *e, int sel, int oa);

static int const_reg(sl_prog *p, sl_type t, const sl_value *v)
{
	int r = new_reg(p, SL_REG_CONST, t);
	if (r < 0)
		return r;
	sl_reg *reg = &p->regs[r];
	reg->cval = *v;
	if (!v->is_null && sl_type_phys(t) == SL_PHYS_STR) {
		char *d = sl_arena_memdup(&p->arena, v->v.str.ptr ? v->v.str.ptr : "",
		                          (size_t)v->v.str.len + 1);
		if (!d)
			return SL_ENOMEM;
		d[v->v.str.len] = 0;
		reg->cval.v.str.ptr = d;
	}
	if (v->is_null)
		memset(&reg->cval.v, 0, sizeof(reg->cval.v));
	if (sl_type_phys(t) == SL_PHYS_STR && reg->cval.v.str.ptr == NULL)
		reg->cval.v.str.ptr = "";
	return r;
}

static int zone_dependent(const sl_expr *e);

/* 1 when e is a constant sub-tree that comp() folds (so it cannot raise at
 * run time). */
static int folds(const sl_expr *e)
{
	if (!sl_expr_is_const(e) || zone_dependent(e))
		return 0;
	sl_arena a;
	sl_value v;
	sl_err err;
	sl_arena_init(&a, 1024);
	sl_err_clear(&err);
	int ok = sl_expr_eval_const(e, &a, &v, &err) == 0;
	sl_arena_deinit(&a);
	return ok;
}

/* 1 when evaluating e may raise for some row (so guard it under CASE-like
 * control flow).  A constant that folds does not: 'apple' in
 * lower(channel) IN ('apple', ...) is CAST('apple' AS STRING), which had
 * put q21's IN under a guard of its own, where the CASE after it could not
 * reuse its lower(channel). */
static int may_fail(const sl_expr *e)
{
	if (e->kind != SL_EX_CALL)
		return 0;
	if (folds(e))
		return 0;
	switch (e->fn) {
	case SL_FN_DIV: case SL_FN_MOD: case SL_FN_CAST: case SL_FN_ROUND:
	case SL_FN_TO_TIMESTAMP_LTZ: case SL_FN_REGEXP_EXTRACT: case SL_FN_REGEXP:
	case SL_FN_REGEXP_REPLACE: case SL_FN_SIMILAR: case SL_FN_DATE_FORMAT:
	case SL_FN_FROM_BASE64: case SL_FN_REPEAT: case SL_FN_TRUNCATE: case SL_FN_SIGN:
	case SL_FN_JSON_VALUE: case SL_FN_JSON_QUERY: case SL_FN_JSON_EXISTS:
	case SL_FN_JSON_OBJECT: case SL_FN_JSON_AGG:
	case SL_FN_UDF: case SL_FN_MAP_FROM_ARRAYS: case SL_FN_STR_TO_MAP:
	case SL_FN_ENCODE: case SL_FN_DECODE:
		return 1;
	case SL_FN_ADD: case SL_FN_SUB: case SL_FN_MUL: case SL_FN_NEG: case SL_FN_ABS:
		if (e->type.id == SL_T_DECIMAL)
			return 1;
		break;
	default:
		break;
	}
	for (int i = 0; i < e->nargs; i++)
		if (may_fail(e->args[i]))
			return 1;
	return 0;
}

/* 1 when e's value depends on the session time zone (not folded). */
static int zone_dependent(const sl_expr *e)
{
	if (e->kind != SL_EX_CALL)
		return 0;
	if (e->type.id == SL_T_TIMESTAMP_LTZ || e->fn == SL_FN_UNIX_TIMESTAMP ||
	    e->fn == SL_FN_FROM_UNIXTIME)
		return 1;
	for (int i = 0; i < e->nargs; i++)
		if (e->args[i]->type.id == SL_T_TIMESTAMP_LTZ || zone_dependent(e->args[i]))
			return 1;
	return 0;
}

static int bind_step(sl_prog *p, sl_step *st, sl_err *err)
{
	int (*binders[])(sl_prog *, sl_step *, sl_err *) = {
		sl__bind_logic, sl__bind_arith, sl__bind_math, sl__bind_cast,
		sl__bind_string, sl__bind_regex, sl__bind_time, sl__bind_hash,
		sl__bind_text, sl__bind_cond, sl__bind_json, sl__bind_sha, sl__bind_rand,
		sl__bind_collection, sl__bind_array_fn, sl__bind_split, sl__bind_udf, sl__bind_row,
		sl__bind_str_to_map, sl__bind_charset,
	};
	for (size_t i = 0; i < sizeof(binders) / sizeof(binders[0]); i++) {
		int r = binders[i](p, st, err);
		if (r != SL_ENOTSUP)
			return r;
	}
	return sl_err_set(err, SL_ENOTSUP, "function '%s' is not supported", sl_fn_name(st->fn));
}

static int comp_case(cc *c, const sl_expr *e, int sel, int oa)
{
	sl_prog *p = c->p;
	int has_else = e->nargs % 2 == 1, npairs = e->nargs / 2 + 1;
	int *vals = sl_arena_alloc(&p->arena, sizeof(int) * (size_t)npairs);
	int *sels = sl_arena_alloc(&p->arena, sizeof(int) * (size_t)npairs);
	if (!vals || !sels)
		return SL_ENOMEM;
	if (e->type.id == SL_T_ROW)
		return sl_err_set(c->err, SL_ENOTSUP, "CASE returning a ROW is not supported");
	int cur = sel, k = 0;
	for (int i = 0; i + 1 < e->nargs; i += 2, k++) {
		int cr = comp(c, e->args[i], cur, 0);
		int sa = cr < 0 ? cr : sub_sel(c, cur);
		int sb = sa < 0 ? sa : sub_sel(c, cur);
		if (sb < 0)
			return sb;
		int s = new_step(p, SL_FN_CASE, &cr, 1, cur, -1, e->type);
		if (s < 0)
			return s;
		p->steps[s].k = sl__k_split_true;
		p->steps[s].sel_a = sa;
		p->steps[s].sel_b = sb;
		if ((vals[k] = comp(c, e->args[i + 1], sa, oa)) < 0)
			return vals[k];
		sels[k] = sa;
		cur = sb;
	}
	sels[k] = cur;
	vals[k] = has_else ? comp(c, e->args[e->nargs - 1], cur, oa) : -1;
	if (vals[k] < -1)
		return vals[k];
	k++;
	int out = new_reg(p, SL_REG_TMP, e->type);
	int s = out < 0 ? out : new_step(p, SL_FN_CASE, vals, k, sel, out, e->type);
	if (s < 0)
		return s;
	p->steps[s].k = sl__k_case_merge;
	p->steps[s].aux = sels;
	p->steps[s].out_arena = oa;
	return out;
}

/* AND / OR / COALESCE whose later arguments may fail: evaluate argument i
 * only where the result is still open after the previous ones. */
static int comp_guarded(cc *c, const sl_expr *e, int sel, int oa, int *args)
{
	sl_prog *p = c->p;
	int cur = sel;
	for (int i = 0; i < e->nargs; i++) {
		if ((args[i] = comp(c, e->args[i], cur, oa)) < 0)
			return args[i];
		if (i == e->nargs - 1)
			break;
		int sa = sub_sel(c, cur);
		int s = sa < 0 ? sa : new_step(p, e->fn, &args[i], 1, cur, -1, e->type);
		if (s < 0)
			return s;
		p->steps[s].k = e->fn == SL_FN_AND ? sl__k_split_notfalse
		              : e->fn == SL_FN_OR ? sl__k_split_nottrue : sl__k_split_null;
		p->steps[s].sel_a = sa;
		p->steps[s].sel_b = -1;
		cur = sa;
	}
	return 0;
}

static int comp_call2(cc *c, const sl_expr *e, int sel, int oa);

/* Compiles call e with its SQL position current (implicit casts and other
 * calls without one take their enclosing call's). */
static int comp_call(cc *c, const sl_expr *e, int sel, int oa)
{
	int line = c->line, col = c->col;
	if (e->line > 0) {
		c->line = e->line;
		c->col = e->pos;
	}
	int first = c->p->nsteps;
	int r = comp_call2(c, e, sel, oa);
	for (int i = first; r >= 0 && i < c->p->nsteps; i++)
		if (!c->p->steps[i].line) {
			c->p->steps[i].line = c->line;
			c->p->steps[i].col = c->col;
		}
	c->line = line;
	c->col = col;
	return r;
}

static int comp_call2(cc *c, const sl_expr *e, int sel, int oa)
{
	sl_prog *p = c->p;
	if (e->fn == SL_FN_CASE)
		return comp_case(c, e, sel, oa);
	int *args = sl_arena_alloc(&p->arena, sizeof(int) * (size_t)(e->nargs + 1));
	if (!args)
		return SL_ENOMEM;
	int guarded = 0;
	if (e->fn == SL_FN_AND || e->fn == SL_FN_OR || e->fn == SL_FN_COALESCE)
		for (int i = 1; i < e->nargs; i++)
			guarded |= may_fail(e->args[i]);
	if (guarded) {
		int r = comp_guarded(c, e, sel, oa, args);
		if (r < 0)
			return r;
	} else {
		for (int i = 0; i < e->nargs; i++)
			if ((args[i] = comp(c, e->args[i], sel, oa)) < 0)
				return args[i];
	}
	/* a ROW result is an alias of a column the step points it at (FIELD),
	 * except a ROW built here (ROW(...), a CAST copying one), which has its
	 * own child columns (prog_reserve) */
	int own_row = e->fn == SL_FN_ROW || e->fn == SL_FN_CAST || e->fn == SL_FN_TRY_CAST;
	int out = new_reg(p, e->type.id == SL_T_ROW && !own_row ? SL_REG_ALIAS : SL_REG_TMP,
	                  e->type);
	int s = out < 0 ? out : new_step(p, e->fn, args, e->nargs, sel, out, e->type);
	if (s < 0)
		return s;
	sl_step *st = &p->steps[s];
	st->out_arena = oa;
	st->op = e->fn == SL_FN_FIELD ? e->field : 0;
	if (e->fn == SL_FN_UDF && !(st->aux = sl__udf_ref(p, e)))
		return SL_ENOMEM;
	int r = bind_step(p, st, c->err);
	return r < 0 ? r : out;
}

static int try_fold(cc *c, const sl_expr *e)
{
	sl_value v;
	sl_err ferr;
	sl_err_clear(&ferr);
	if (sl_expr_eval_const(e, &c->p->arena, &v, &ferr))
		return SL_ERUNTIME; /* leave it for run time (not -1: that is SL_ENOMEM) */
	return const_reg(c->p, e->type, &v);
}

static int same_type(const sl_type *a, const sl_type *b)
{
	return a->id == b->id && a->precision == b->precision && a->scale == b->scale &&
	       a->length == b->length && a->row == b->row;
}

/* 1 when a and b are the same expression (same types, literals, calls). */
static int same_expr(const sl_expr *a, const sl_expr *b)
{
	if (a == b)
		return 1;
	if (a->kind != b->kind || !same_type(&a->type, &b->type))
		return 0;
	switch (a->kind) {
	case SL_EX_COL:
		return a->col == b->col;
	case SL_EX_LIT:
		if (a->lit.is_null || b->lit.is_null)
			return a->lit.is_null == b->lit.is_null;
		switch (sl_type_phys(a->type)) {
		case SL_PHYS_STR:
			return a->lit.v.str.len == b->lit.v.str.len &&
			       !memcmp(a->lit.v.str.ptr, b->lit.v.str.ptr, (size_t)a->lit.v.str.len);
		case SL_PHYS_I128: return a->lit.v.i128 == b->lit.v.i128;
		case SL_PHYS_F64: return !memcmp(&a->lit.v.f64, &b->lit.v.f64, sizeof(double));
		case SL_PHYS_ROW: return 0;
		default: return a->lit.v.i64 == b->lit.v.i64;
		}
	case SL_EX_CALL:
		break;
	}
	if (a->fn != b->fn || a->nargs != b->nargs || a->field != b->field || a->udf != b->udf)
		return 0;
	for (int i = 0; i < a->nargs; i++)
		if (!same_expr(a->args[i], b->args[i]))
			return 0;
	return 1;
}

/* 1 when e gives the same value each time it is evaluated on a row: no
 * call in it is volatile (expr_type.c's list, the one constant folding
 * uses). */
static int deterministic(const sl_expr *e)
{
	if (e->kind != SL_EX_CALL)
		return 1;
	if (sl__fn_volatile(e))
		return 0;
	for (int i = 0; i < e->nargs; i++)
		if (!deterministic(e->args[i]))
			return 0;
	return 1;
}

/* 1 when every row of selection `sel` is a row of selection `of`. */
static int sel_within(const cc *c, int sel, int of)
{
	while (sel > of)
		sel = c->sel_parent[sel];
	return sel == of;
}

/* Register of an earlier compiled call equal to e that can stand for it
 * under `sel` with arena `oa`, or -1. */
static int memo_find(const cc *c, const sl_expr *e, int sel, int oa)
{
	for (int i = 0; i < c->nmemo; i++) {
		const memo *m = &c->memo[i];
		if (m->oa >= oa && m->e->fn == e->fn && sel_within(c, sel, m->sel) && same_expr(m->e, e))
			return m->reg;
	}
	return -1;
}

static int memo_add(cc *c, const sl_expr *e, int reg, int sel, int oa)
{
	if (grow((void **)&c->memo, &c->capmemo, c->nmemo + 1, sizeof(memo)))
		return SL_ENOMEM;
	c->memo[c->nmemo++] = (memo){e, reg, sel, oa};
	return 0;
}

static int comp(cc *c, const sl_expr *e, int sel, int oa)
{
	c->hit = 0;
	switch (e->kind) {
	case SL_EX_COL: {
		if (e->col < 0 || e->col >= c->p->nin)
			return sl_err_set(c->err, SL_EPLAN, "column $%d out of range (%d inputs)", e->col,
			                  c->p->nin);
		if (c->in_reg[e->col] >= 0)
			return c->in_reg[e->col];
		int r = new_reg(c->p, SL_REG_INPUT, c->p->in_types[e->col]);
		if (r >= 0)
			c->p->regs[r].input = e->col;
		return c->in_reg[e->col] = r;
	}
	case SL_EX_LIT:
		return const_reg(c->p, e->type, &e->lit);
	case SL_EX_CALL:
		break;
	}
	if (!c->nofold && sl_expr_is_const(e) && !zone_dependent(e)) {
		int r = try_fold(c, e);
		if (r >= 0 || r == SL_ENOMEM)
			return r;
	}
	c->nofold = 0;
	int det = deterministic(e);
	int r = det ? memo_find(c, e, sel, oa) : -1;
	if (r >= 0) {
		c->hit = 1;
		return r;
	}
	r = comp_call(c, e, sel, oa);
	c->hit = 0;
	if (r >= 0 && det && memo_add(c, e, r, sel, oa))
		return SL_ENOMEM;
	return r;
}

/* Compiles one root under selection sel: its value must land in a TMP
 * register written by a step, so that evaluation can point that register
 * at the output column. */
static int comp_root(cc *c, const sl_expr *e, int sel)
{
	sl_prog *p = c->p;
	sl_phys ph = sl_type_phys(e->type);
	int oa = ph == SL_PHYS_STR || ph == SL_PHYS_ROW;
	int r = comp(c, e, sel, oa);
	if (r < 0)
		return r;
	if (p->regs[r].kind == SL_REG_TMP && !c->hit)
		return r; /* a reused register may be another root's: copy it */
	int out = new_reg(p, SL_REG_TMP, e->type);
	int s = out < 0 ? out : new_step(p, SL_FN_CAST, &r, 1, sel, out, e->type);
	if (s < 0)
		return s;
	p->steps[s].k = sl__k_copy;
	p->steps[s].out_arena = 1;
	return out;
}

/* The filter of a where program, over all rows, then a split step whose
 * TRUE rows become the selection of the roots.  Its strings go to the
 * output arena (oa 1) so that the roots can reuse its calls.  Returns
 * that selection or an error code. */
static int comp_where(cc *c, const sl_expr *filter)
{
	sl_prog *p = c->p;
	if (filter->type.id != SL_T_BOOLEAN)
		return sl_err_set(c->err, SL_EINVAL, "a filter needs one BOOLEAN expression");
	int r = comp(c, filter, 0, 1);
	int sa = r < 0 ? r : sub_sel(c, 0);
	int s = sa < 0 ? sa : new_step(p, SL_FN_CASE, &r, 1, 0, -1, filter->type);
	if (s < 0)
		return s;
	p->steps[s].k = sl__k_split_true;
	p->steps[s].sel_a = sa;
	p->steps[s].sel_b = -1;
	return p->where_sel = sa;
}

/* Compiles with or without folding the roots (eval_const passes nofold),
 * after a filter when one is given (sl_prog_compile_where). */
static sl_prog *compile(const sl_expr *filter, sl_expr *const *exprs, int n,
                        const sl_type *in_types, int nin, int nofold, sl_err *err)
{
	cc c = {0};
	sl_prog *p = calloc(1, sizeof(*p));
	if (!p)
		goto nomem;
	sl_arena_init(&p->arena, 16 * 1024);
	sl_arena_init(&p->scratch, 64 * 1024);
	p->n = n;
	p->nin = nin;
	p->roots = sl_arena_alloc(&p->arena, sizeof(int) * (size_t)(n + 1));
	p->in_types = sl_arena_calloc(&p->arena, sizeof(sl_type) * (size_t)(nin + 1));
	if (p->in_types && nin > 0)
		memcpy(p->in_types, in_types, sizeof(sl_type) * (size_t)nin);
	c.in_reg = sl_arena_alloc(&p->arena, sizeof(int) * (size_t)(nin + 1));
	if (!p->roots || !p->in_types || !c.in_reg || new_sel(p) != 0)
		goto nomem;
	for (int i = 0; i < nin; i++)
		c.in_reg[i] = -1;
	c.p = p;
	c.err = err;
	int sel = 0;
	if (filter && (sel = comp_where(&c, filter)) < 0) {
		if (sel == SL_ENOMEM)
			goto nomem;
		if (!err->code)
			sl_err_set(err, sel, "cannot compile the filter");
		goto fail;
	}
	for (int i = 0; i < n; i++) {
		c.nofold = nofold;
		int r = comp_root(&c, exprs[i], sel);
		if (r < 0) {
			if (r == SL_ENOMEM)
				goto nomem;
			sl_err_set(err, r, "cannot compile expression %d", i);
			goto fail;
		}
		p->roots[i] = r;
	}
	if (prog_reserve(p, SL_BATCH_ROWS))
		goto nomem;
	free(c.sel_parent);
	free(c.memo);
	return p;
nomem:
	sl_err_set(err, SL_ENOMEM, "out of memory compiling expressions");
fail:
	free(c.sel_parent);
	free(c.memo);
	sl_prog_free(p);
	return NULL;
}

sl_prog *sl__prog_compile(sl_expr *const *exprs, int n, const sl_type *in_types, int nin,
                          int nofold, sl_err *err)
{
	return compile(NULL, exprs, n, in_types, nin, nofold, err);
}

/*
 * Compiles n expressions over `nin` input columns into one program (see
 * expr.h).  Returns the program (free with sl_prog_free) or NULL with err
 * set (SL_EPLAN, SL_ENOTSUP or SL_ENOMEM).
 */
sl_prog *sl_prog_compile(sl_expr *const *exprs, int n, const sl_type *in_types, int nin,
                         sl_err *err)
{
	return compile(NULL, exprs, n, in_types, nin, 0, err);
}

/* A filter and n expressions for its TRUE rows as one program (expr.h). */
sl_prog *sl_prog_compile_where(sl_expr *filter, sl_expr *const *exprs, int n,
                               const sl_type *in_types, int nin, sl_err *err)
{
	return compile(filter, exprs, n, in_types, nin, 0, err);
}

/* Frees a program and everything it owns.  Safe on NULL. */
void sl_prog_free(sl_prog *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nfrees; i++)
		p->free_fn[i](p->free_ptr[i]);
	for (int i = 0; i < p->nregs; i++) {
		if (sl_type_phys(p->regs[i].type) == SL_PHYS_ROW) {
			sl_col_free(&p->regs[i].own);
			continue;
		}
		free(p->regs[i].own.null);
		free(p->regs[i].own.v.data);
	}
	for (int i = 0; i < p->nsels; i++)
		free(p->sels[i].store);
	free(p->free_fn);
	free(p->free_ptr);
	free(p->regs);
	free(p->sels);
	free(p->steps);
	free(p->filter_sel);
	sl_buf_deinit(&p->tbuf);
	sl_arena_deinit(&p->arena);
	sl_arena_deinit(&p->scratch);
	free(p);
}
