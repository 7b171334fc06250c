/*
 * example_udaf.c - user-defined aggregate functions for sluice (ABI
 * version 2, docs/udf.md), built as a shared object:
 *
 *     cc -shared -fPIC -Iinclude -o libexample_udaf.so examples/udf/example_udaf.c
 *
 *     CREATE FUNCTION wavg AS 'wavg_udaf' LANGUAGE C USING JAR './libexample_udaf.so';
 *     SELECT k, wavg(price, qty) FROM t GROUP BY k;
 *
 * Each function is one static registration returned by an exported entry
 * symbol; its accumulator is a plain struct (no pointers: sluice copies
 * it and writes it to checkpoints).  tests/integration/udf.sh builds this
 * file and uses every function from SQL (tests/udf/udaf.slt), including
 * the registrations that are wrong on purpose.
 *
 *   wavg(DOUBLE v, BIGINT w)  weighted average sum(v * w) / sum(w); NULL
 *                             arguments skipped; retract and merge, so it
 *                             works over updating input and in SESSION
 *                             windows.
 *   geo_mean(DOUBLE)          geometric mean; retract, no merge; a value
 *                             <= 0 fails the job with a message.
 *   max_by(BIGINT v, DOUBLE k) the v of the row with the largest k (the
 *                             first such row); called on NULLs (a NULL k
 *                             is ignored, a NULL v can be the answer);
 *                             init sets k to -infinity; merge, no retract.
 *   row_count()               rows, without arguments (COUNT(*)); the
 *                             accumulator is the zero bytes sluice starts
 *                             with (no init); retract and merge.
 */
#include "sluice_udf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* ---- wavg ------------------------------------------------------------------ */

typedef struct wavg_acc {
	double sum;  /* sum of v * w */
	int64_t w;   /* sum of w */
} wavg_acc;

static int wavg_fold(int n, const uint32_t *rows, const sluice_udf_col *args,
                     void *const *accs, int sign)
{
	for (int k = 0; k < n; k++) {
		wavg_acc *a = accs[k];
		uint32_t i = rows[k];
		a->sum += sign * args[0].v.f64[i] * (double)args[1].v.i64[i];
		a->w += sign * args[1].v.i64[i];
	}
	return 0;
}

static int wavg_accumulate(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
                           const sluice_udf_col *args, void *const *accs)
{
	(void)ctx;
	return wavg_fold(n, rows, args, accs, 1);
}

static int wavg_retract(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
                        const sluice_udf_col *args, void *const *accs)
{
	(void)ctx;
	return wavg_fold(n, rows, args, accs, -1);
}

static int wavg_merge(sluice_udf_ctx *ctx, void *acc, const void *other)
{
	(void)ctx;
	wavg_acc *a = acc;
	const wavg_acc *b = other;
	a->sum += b->sum;
	a->w += b->w;
	return 0;
}

static int wavg_get_value(sluice_udf_ctx *ctx, const void *acc, sluice_udf_col *out,
                          uint32_t row)
{
	(void)ctx;
	const wavg_acc *a = acc;
	if (a->w == 0)
		out->null[row] = 1;
	else
		out->v.f64[row] = a->sum / (double)a->w;
	return 0;
}

static const char *const wavg_args[] = {"DOUBLE", "BIGINT"};
static const sluice_udf wavg = {
	.abi_version = SLUICE_UDF_ABI_VERSION, .name = "wavg",
	.nargs = 2, .arg_types = wavg_args, .result_type = "DOUBLE",
	.null_handling = SLUICE_UDF_NULL_IN_NULL_OUT, .deterministic = 1,
	.kind = SLUICE_UDF_AGGREGATE, .acc_size = sizeof(wavg_acc),
	.accumulate = wavg_accumulate, .retract = wavg_retract, .merge = wavg_merge,
	.get_value = wavg_get_value,
};
EXPORT const sluice_udf *wavg_udaf(void) { return &wavg; }

/* ---- geo_mean --------------------------------------------------------------- */

typedef struct geo_acc {
	double log_sum;
	int64_t n;
} geo_acc;

static int geo_fold(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
                    const sluice_udf_col *args, void *const *accs, int sign)
{
	for (int k = 0; k < n; k++) {
		double x = args[0].v.f64[rows[k]];
		if (!(x > 0)) {
			snprintf(ctx->errmsg, sizeof ctx->errmsg, "geo_mean(%g): the value must be "
			         "positive", x);
			return -1;
		}
		geo_acc *a = accs[k];
		a->log_sum += sign * log(x);
		a->n += sign;
	}
	return 0;
}

static int geo_accumulate(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
                          const sluice_udf_col *args, void *const *accs)
{
	return geo_fold(ctx, n, rows, args, accs, 1);
}

static int geo_retract(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
                       const sluice_udf_col *args, void *const *accs)
{
	return geo_fold(ctx, n, rows, args, accs, -1);
}

static int geo_get_value(sluice_udf_ctx *ctx, const void *acc, sluice_udf_col *out,
                         uint32_t row)
{
	(void)ctx;
	const geo_acc *a = acc;
	if (a->n <= 0)
		out->null[row] = 1;
	else /* rounded to 1e-9 so that results print the same on every libm */
		out->v.f64[row] = round(exp(a->log_sum / (double)a->n) * 1e9) / 1e9;
	return 0;
}

static const char *const geo_args[] = {"DOUBLE"};
static const sluice_udf geo_mean = {
	.abi_version = SLUICE_UDF_ABI_VERSION, .name = "geo_mean",
	.nargs = 1, .arg_types = geo_args, .result_type = "DOUBLE",
	.null_handling = SLUICE_UDF_NULL_IN_NULL_OUT, .deterministic = 1,
	.kind = SLUICE_UDF_AGGREGATE, .acc_size = sizeof(geo_acc),
	.accumulate = geo_accumulate, .retract = geo_retract, .get_value = geo_get_value,
};
EXPORT const sluice_udf *geo_mean_udaf(void) { return &geo_mean; }

/* ---- max_by ------------------------------------------------------------------ */

typedef struct max_by_acc {
	double key;      /* the largest key so far (-infinity: none) */
	int64_t value;
	int32_t has;     /* a row with a non-NULL key was seen */
	int32_t null;    /* its value was NULL */
} max_by_acc;

static void max_by_init(void *acc)
{
	max_by_acc *a = acc;
	a->key = -INFINITY;
}

static int max_by_accumulate(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
                             const sluice_udf_col *args, void *const *accs)
{
	(void)ctx;
	for (int k = 0; k < n; k++) {
		uint32_t i = rows[k];
		max_by_acc *a = accs[k];
		if (args[1].null[i] || (a->has && !(args[1].v.f64[i] > a->key)))
			continue;
		a->key = args[1].v.f64[i];
		a->value = args[0].v.i64[i];
		a->null = args[0].null[i];
		a->has = 1;
	}
	return 0;
}

static int max_by_merge(sluice_udf_ctx *ctx, void *acc, const void *other)
{
	(void)ctx;
	max_by_acc *a = acc;
	const max_by_acc *b = other;
	if (b->has && (!a->has || b->key > a->key))
		*a = *b;
	return 0;
}

static int max_by_get_value(sluice_udf_ctx *ctx, const void *acc, sluice_udf_col *out,
                            uint32_t row)
{
	(void)ctx;
	const max_by_acc *a = acc;
	if (!a->has || a->null)
		out->null[row] = 1;
	else
		out->v.i64[row] = a->value;
	return 0;
}

static const char *const max_by_args[] = {"BIGINT", "DOUBLE"};
static const sluice_udf max_by = {
	.abi_version = SLUICE_UDF_ABI_VERSION, .name = "max_by",
	.nargs = 2, .arg_types = max_by_args, .result_type = "BIGINT",
	.null_handling = SLUICE_UDF_CALLED_ON_NULL, .deterministic = 1,
	.kind = SLUICE_UDF_AGGREGATE, .acc_size = sizeof(max_by_acc), .init = max_by_init,
	.accumulate = max_by_accumulate, .merge = max_by_merge, .get_value = max_by_get_value,
};
EXPORT const sluice_udf *max_by_udaf(void) { return &max_by; }

/* ---- row_count ------------------------------------------------------------- */

static int row_count_fold(int n, void *const *accs, int sign)
{
	for (int k = 0; k < n; k++)
		*(int64_t *)accs[k] += sign;
	return 0;
}

static int row_count_accumulate(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
                                const sluice_udf_col *args, void *const *accs)
{
	(void)ctx;
	(void)rows;
	(void)args; /* NULL: no arguments */
	return row_count_fold(n, accs, 1);
}

static int row_count_retract(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
                             const sluice_udf_col *args, void *const *accs)
{
	(void)ctx;
	(void)rows;
	(void)args;
	return row_count_fold(n, accs, -1);
}

static int row_count_merge(sluice_udf_ctx *ctx, void *acc, const void *other)
{
	(void)ctx;
	*(int64_t *)acc += *(const int64_t *)other;
	return 0;
}

static int row_count_get_value(sluice_udf_ctx *ctx, const void *acc, sluice_udf_col *out,
                               uint32_t row)
{
	(void)ctx;
	out->v.i64[row] = *(const int64_t *)acc;
	return 0;
}

static const sluice_udf row_count = {
	.abi_version = SLUICE_UDF_ABI_VERSION, .name = "row_count",
	.nargs = 0, .result_type = "BIGINT",
	.null_handling = SLUICE_UDF_NULL_IN_NULL_OUT, .deterministic = 1,
	.kind = SLUICE_UDF_AGGREGATE, .acc_size = sizeof(int64_t),
	.accumulate = row_count_accumulate, .retract = row_count_retract,
	.merge = row_count_merge, .get_value = row_count_get_value,
};
EXPORT const sluice_udf *row_count_udaf(void) { return &row_count; }

/* ---- registrations that are wrong on purpose (refused at CREATE FUNCTION) --- */

static const sluice_udf no_accumulate = {
	.abi_version = SLUICE_UDF_ABI_VERSION, .name = "no_accumulate",
	.nargs = 1, .arg_types = geo_args, .result_type = "DOUBLE",
	.kind = SLUICE_UDF_AGGREGATE, .acc_size = 16, .get_value = geo_get_value,
};
EXPORT const sluice_udf *no_accumulate_udaf(void) { return &no_accumulate; }

static const sluice_udf huge_acc = {
	.abi_version = SLUICE_UDF_ABI_VERSION, .name = "huge_acc",
	.nargs = 1, .arg_types = geo_args, .result_type = "DOUBLE",
	.kind = SLUICE_UDF_AGGREGATE, .acc_size = 1 << 20,
	.accumulate = geo_accumulate, .get_value = geo_get_value,
};
EXPORT const sluice_udf *huge_acc_udaf(void) { return &huge_acc; }

static const sluice_udf string_result = {
	.abi_version = SLUICE_UDF_ABI_VERSION, .name = "string_result",
	.nargs = 1, .arg_types = geo_args, .result_type = "STRING",
	.kind = SLUICE_UDF_AGGREGATE, .acc_size = 16,
	.accumulate = geo_accumulate, .get_value = geo_get_value,
};
EXPORT const sluice_udf *string_result_udaf(void) { return &string_result; }

static const sluice_udf bad_kind = {
	.abi_version = SLUICE_UDF_ABI_VERSION, .name = "bad_kind",
	.nargs = 1, .arg_types = geo_args, .result_type = "DOUBLE",
	.kind = 7, .acc_size = 16, .accumulate = geo_accumulate, .get_value = geo_get_value,
};
EXPORT const sluice_udf *bad_kind_udaf(void) { return &bad_kind; }
