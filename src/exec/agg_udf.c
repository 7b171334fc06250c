/*
 * agg_udf.c - user-defined aggregate functions (CREATE FUNCTION of a
 * library's SLUICE_UDF_AGGREGATE registration, include/sluice_udf.h) as
 * aggregate vtabs (agg.h), so that every aggregating operator (group,
 * window, session, OVER) runs them exactly as it runs the built-ins.
 *
 * Data flow:  udf.c checks the registration at CREATE FUNCTION and builds
 * the function's vtab with sl_agg_udf_vtab; the planner puts the casted
 * arguments in input columns (sl_agg.arg_cols); per input row the operator
 * calls sl_agg_add_one, which calls add_row here, which hands the library
 * the row's argument columns (sluice's own column memory, no copy) and
 * the accumulator, as a call of n = 1; results come from get_value, merges
 * (sessions) from merge.
 *
 * Accumulator layout in the operator's slot, at sl_agg.offset:
 *   [16-byte header: u32 initialised flag, padding][acc_size bytes, rounded up to 16]
 * Slots start as zero bytes (state backends create them zeroed); the
 * first row folded into one calls the library's init (or leaves the zero
 * bytes) and sets the flag, so no operator needs to know about init.  A
 * slot whose group saw no row (all filtered out) is read through a fresh
 * accumulator in a stack buffer.  The whole slice is plain bytes: it is
 * copied, moved and checkpointed with the slot.
 *
 * Results are brought to sluice's invariants as scalar UDF results are
 * (fn_udf.c): BOOLEAN to 0/1, FLOAT rounded to float, TINYINT/SMALLINT/INT
 * range-checked.  A callback's failure is a runtime error naming the
 * function, the callback and the library's message (with the input row
 * for accumulate and retract, as a SUM overflow has it).  One thread per
 * operator; nothing here allocates.
 */
#include "agg.h"
#include "sluice.h"
#include "sluice_udf.h"

#include <string.h>

_Static_assert(sizeof(sl_str) == sizeof(sluice_udf_str),
               "sluice_udf_str must have sl_str's layout");

#define HDR 16u

typedef struct udaf_hdr {
	uint32_t init; /* 1 once the library's init ran */
	uint32_t pad[3];
} udaf_hdr;

_Static_assert(sizeof(udaf_hdr) == HDR, "the accumulator header is 16 bytes");

/* The error of a failed callback; row >= 0 names the input row. */
static int cb_failed(const sl_agg *a, const char *cb, const sluice_udf_ctx *ctx, int row,
                     sl_err *err)
{
	char msg[sizeof ctx->errmsg];
	memcpy(msg, ctx->errmsg, sizeof msg);
	msg[sizeof msg - 1] = 0;
	if (a->line > 0)
		sl_err_set(err, SL_ERUNTIME, "line %d, column %d: user-defined aggregate function "
		           "'%s' failed in %s: %s", a->line, a->col, a->vt->name, cb,
		           msg[0] ? msg : "(no message)");
	else
		sl_err_set(err, SL_ERUNTIME, "user-defined aggregate function '%s' failed in %s: %s",
		           a->vt->name, cb, msg[0] ? msg : "(no message)");
	if (row >= 0) {
		err->row = row + 1;
		err->row_batch = NULL; /* the batch being folded: the graph fills it */
	}
	return SL_ERUNTIME;
}

static void ctx_init(sluice_udf_ctx *ctx)
{
	ctx->alloc = NULL; /* no string results from aggregates */
	ctx->errmsg[0] = 0;
	ctx->impl = NULL;
}

/* Sets up a fresh user accumulator at acc (u->acc_size bytes). */
static void fresh(const sluice_udf *u, void *acc)
{
	memset(acc, 0, u->acc_size);
	if (u->init)
		u->init(acc);
}

static int udaf_add_row(const sl_agg *a, void *accp, const sl_batch *in, int row, int sign,
                        sl_err *err)
{
	const sluice_udf *u = a->vt->udf;
	sluice_udf_col args[SL_AGG_MAX_ARGS];
	for (int j = 0; j < a->nargs; j++) {
		const sl_col *c = &in->cols[a->arg_cols[j]];
		if (c->null[row] && u->null_handling == SLUICE_UDF_NULL_IN_NULL_OUT)
			return 0; /* skipped, as the built-ins skip NULLs */
		args[j].null = c->null;
		args[j].v.i64 = (int64_t *)c->v.data;
	}
	udaf_hdr *h = accp;
	void *acc = (char *)accp + HDR;
	if (!h->init) {
		fresh(u, acc);
		h->init = 1;
	}
	sluice_udaf_accumulate_fn f = sign > 0 ? u->accumulate : u->retract;
	if (!f) /* the planner refuses retraction without retract */
		return sl_err_set(err, SL_ERUNTIME, "user-defined aggregate function '%s' has no "
		                  "retract function", a->vt->name);
	sluice_udf_ctx ctx;
	ctx_init(&ctx);
	uint32_t r = (uint32_t)row;
	void *accs[1] = {acc};
	if (f(&ctx, 1, &r, a->nargs ? args : NULL, accs))
		return cb_failed(a, sign > 0 ? "accumulate" : "retract", &ctx, row, err);
	return 0;
}

/* Brings the result at (out, row) to sluice's invariants for type t. */
static int normalize(const sl_agg *a, sl_col *out, int row)
{
	int64_t lo = 0, hi = 0;
	if (out->null[row])
		return 0;
	switch ((sl_type_id)a->out_type.id) {
	case SL_T_BOOLEAN: out->v.i64[row] = out->v.i64[row] != 0; return 0;
	case SL_T_FLOAT: out->v.f64[row] = (double)(float)out->v.f64[row]; return 0;
	case SL_T_TINYINT: lo = INT8_MIN; hi = INT8_MAX; break;
	case SL_T_SMALLINT: lo = INT16_MIN; hi = INT16_MAX; break;
	case SL_T_INT: lo = INT32_MIN; hi = INT32_MAX; break;
	default: return 0;
	}
	return out->v.i64[row] < lo || out->v.i64[row] > hi;
}

static int udaf_result(const sl_agg *a, const void *accp, sl_col *out, int orow, sl_err *err)
{
	const sluice_udf *u = a->vt->udf;
	_Alignas(16) char tmp[SLUICE_UDF_MAX_ACC];
	const udaf_hdr *h = accp;
	const void *acc = (const char *)accp + HDR;
	if (!h->init) { /* no row reached this group's accumulator */
		fresh(u, tmp);
		acc = tmp;
	}
	sluice_udf_ctx ctx;
	ctx_init(&ctx);
	sluice_udf_col res;
	res.null = out->null;
	res.v.i64 = (int64_t *)out->v.data;
	out->null[orow] = 0;
	if (u->get_value(&ctx, acc, &res, (uint32_t)orow))
		return cb_failed(a, "get_value", &ctx, -1, err);
	if (normalize(a, out, orow)) {
		char tb[64];
		return sl_err_set(err, SL_ERUNTIME, "user-defined aggregate function '%s' returned "
		                  "%lld, out of range for its result type %s", a->vt->name,
		                  (long long)out->v.i64[orow],
		                  sl_type_format(a->out_type, tb, sizeof tb));
	}
	return 0;
}

static int udaf_merge(const sl_agg *a, void *dstp, const void *srcp, sl_err *err)
{
	const sluice_udf *u = a->vt->udf;
	udaf_hdr *d = dstp;
	const udaf_hdr *s = srcp;
	if (!s->init)
		return 0; /* nothing folded into src */
	if (!d->init) {
		memcpy(dstp, srcp, a->vt->acc_size);
		return 0;
	}
	if (!u->merge) /* the planner refuses SESSION windows without merge */
		return sl_err_set(err, SL_ERUNTIME, "user-defined aggregate function '%s' has no "
		                  "merge function", a->vt->name);
	sluice_udf_ctx ctx;
	ctx_init(&ctx);
	if (u->merge(&ctx, (char *)dstp + HDR, (const char *)srcp + HDR))
		return cb_failed(a, "merge", &ctx, -1, err);
	return 0;
}

/* The per-column add of the vtab: never called (sl_agg_add_one calls
 * add_row); it exists so that the vtab is complete. */
static int udaf_add(const sl_agg *a, void *acc, const sl_col *c, int row, int sign,
                    sl_err *err)
{
	(void)acc;
	(void)c;
	(void)row;
	(void)sign;
	return sl_err_set(err, SL_ERUNTIME, "user-defined aggregate function '%s' called "
	                  "without its input row", a->vt->name);
}

/* Result types are fixed by the registration (bind_udf.c); never called. */
static int udaf_type(sl_type arg, int star, sl_type *out, sl_err *err)
{
	(void)arg;
	(void)star;
	(void)out;
	return sl_err_set(err, SL_ERUNTIME, "user-defined aggregate: no result type");
}

void sl_agg_udf_vtab(sl_agg_vtab *vt, const sluice_udf *u, const char *name)
{
	memset(vt, 0, sizeof(*vt));
	vt->name = name;
	vt->retractable = u->retract != NULL;
	vt->result_type = udaf_type;
	vt->acc_size = HDR + (u->acc_size + 15u) / 16u * 16u;
	vt->add = udaf_add;
	vt->result = udaf_result;
	vt->merge = udaf_merge; /* an error when the library has none */
	vt->add_row = udaf_add_row;
	vt->udf = u;
}
