/*
 * fn_udf.c - calls of user-defined scalar functions (CREATE FUNCTION,
 * include/sluice_udf.h) inside compiled expression programs.
 *
 * Data flow:  the binder builds an SL_FN_UDF node (sl_expr_udf) whose
 * arguments have the registration's types; the compiler gives its step the
 * registration (sl__udf_ref); per batch the kernel hands the library the
 * step's argument registers as sluice_udf_col vectors (sluice's own column
 * memory, no copy: sl_str and sluice_udf_str have the same layout), the
 * rows to compute and the output register, in one call.
 *
 * Null handling (SLUICE_UDF_NULL_IN_NULL_OUT) is done here: rows with a
 * NULL argument get a NULL result and are not passed.  After the call the
 * results are brought to sluice's invariants: BOOLEAN to 0/1, FLOAT
 * rounded to float precision, TINYINT/SMALLINT/INT checked for range (an
 * out-of-range value is a runtime error naming the function, as is a
 * failed call, with the library's message).  The only allocation per batch
 * is the row list, in the program's scratch arena; string results come
 * from ctx->alloc, the output batch's arena.
 */
#include "expr_int.h"
#include "sluice_udf.h"

#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(sl_str) == sizeof(sluice_udf_str) &&
               offsetof(sl_str, ptr) == offsetof(sluice_udf_str, ptr) &&
               offsetof(sl_str, len) == offsetof(sluice_udf_str, len),
               "sluice_udf_str must have sl_str's layout");

/* What a UDF step needs at run time (aux). */
typedef struct udf_ref {
	const sluice_udf *u;
	const char *name;
} udf_ref;

sl_expr *sl_expr_udf(sl_arena *a, const sluice_udf *u, const char *name, sl_type result,
                     sl_expr **args, int nargs)
{
	sl_expr *e = sl_arena_calloc(a, sizeof(*e));
	if (!e)
		return NULL;
	e->kind = SL_EX_CALL;
	e->fn = SL_FN_UDF;
	e->type = result;
	e->type.notnull = 0;
	e->udf = u;
	e->udf_name = name;
	e->nargs = nargs;
	if (nargs > 0) {
		if (!(e->args = sl_arena_alloc(a, sizeof(sl_expr *) * (size_t)nargs)))
			return NULL;
		memcpy(e->args, args, sizeof(sl_expr *) * (size_t)nargs);
	}
	return e;
}

void *sl__udf_ref(sl_prog *p, const sl_expr *e)
{
	udf_ref *r = sl_arena_alloc(&p->arena, sizeof(*r));
	if (!r)
		return NULL;
	r->u = e->udf;
	r->name = sl_arena_strdup(&p->arena, e->udf_name ? e->udf_name : "udf");
	return r->name ? r : NULL;
}

/* ctx->alloc: bytes in the arena the step's strings go to. */
static void *udf_alloc(sluice_udf_ctx *ctx, size_t n)
{
	return sl_arena_alloc((sl_arena *)ctx->impl, n ? n : 1);
}

static void as_udf_col(const sl_col *c, sluice_udf_col *u)
{
	u->null = c->null;
	u->v.i64 = (int64_t *)c->v.data;
}

/* Brings the results of rows[0..n) to sluice's invariants for type t. */
static int normalize(sl_xctx *x, const udf_ref *r, sl_col *out, const uint32_t *rows, int n,
                     sl_type t)
{
	int64_t lo = 0, hi = 0;
	switch ((sl_type_id)t.id) {
	case SL_T_BOOLEAN:
		for (int k = 0; k < n; k++)
			out->v.i64[rows[k]] = out->v.i64[rows[k]] != 0;
		return 0;
	case SL_T_FLOAT:
		for (int k = 0; k < n; k++)
			out->v.f64[rows[k]] = (double)(float)out->v.f64[rows[k]];
		return 0;
	case SL_T_TINYINT: lo = INT8_MIN; hi = INT8_MAX; break;
	case SL_T_SMALLINT: lo = INT16_MIN; hi = INT16_MAX; break;
	case SL_T_INT: lo = INT32_MIN; hi = INT32_MAX; break;
	default: return 0;
	}
	for (int k = 0; k < n; k++) {
		uint32_t i = rows[k];
		if (!out->null[i] && (out->v.i64[i] < lo || out->v.i64[i] > hi)) {
			char tb[64];
			return sl_err_set(x->err, SL_ERUNTIME, "user-defined function '%s' returned "
			                  "%lld, out of range for its result type %s", r->name,
			                  (long long)out->v.i64[i], sl_type_format(t, tb, sizeof tb));
		}
	}
	return 0;
}

static int k_udf(sl_xctx *x, const sl_step *st)
{
	const udf_ref *r = st->aux;
	const sluice_udf *u = r->u;
	const sl_sel *s = SL_X_SEL(x, st);
	sl_col *out = SL_X_OUT(x, st);
	sluice_udf_col args[16], res;
	uint32_t *rows = sl_arena_alloc(&x->p->scratch, sizeof(uint32_t) * (size_t)(s->n + 1));
	int n = 0;
	if (!rows)
		return sl_err_set(x->err, SL_ENOMEM, "out of memory");
	for (int j = 0; j < st->nargs; j++)
		as_udf_col(SL_X_ARG(x, st, j), &args[j]);
	as_udf_col(out, &res);
	int skip_nulls = u->null_handling == SLUICE_UDF_NULL_IN_NULL_OUT;
	SL_FOR_ROWS(s, i, {
		int isnull = 0;
		for (int j = 0; skip_nulls && j < st->nargs; j++)
			isnull |= args[j].null[i];
		out->null[i] = (uint8_t)isnull;
		if (!isnull)
			rows[n++] = (uint32_t)i;
	});
	if (n == 0)
		return 0;
	sluice_udf_ctx ctx;
	memset(&ctx, 0, sizeof ctx);
	ctx.alloc = udf_alloc;
	ctx.impl = sl__x_arena(x, st);
	if (u->eval(&ctx, n, rows, st->nargs ? args : NULL, &res)) {
		ctx.errmsg[sizeof ctx.errmsg - 1] = 0;
		return sl_err_set(x->err, SL_ERUNTIME, "user-defined function '%s' failed: %s",
		                  r->name, ctx.errmsg[0] ? ctx.errmsg : "(no message)");
	}
	return normalize(x, r, out, rows, n, st->type);
}

int sl__bind_udf(sl_prog *p, sl_step *st, sl_err *err)
{
	(void)p;
	(void)err;
	if (st->fn != SL_FN_UDF)
		return SL_ENOTSUP;
	st->k = k_udf;
	return 0;
}
