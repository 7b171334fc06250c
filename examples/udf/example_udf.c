/*
 * example_udf.c - user-defined scalar functions for sluice, built as a
 * shared object (docs/udf.md):
 *
 *     cc -shared -fPIC -Iinclude -o libexample_udf.so examples/udf/example_udf.c
 *
 *     CREATE FUNCTION add_one AS 'add_one_udf' LANGUAGE C USING JAR './libexample_udf.so';
 *     SELECT add_one(x) FROM t;
 *
 * Each function is one static registration returned by an exported entry
 * symbol.  tests/integration/udf.sh builds this file and uses every
 * function from SQL (tests/udf/udf.slt), including the ones that misbehave
 * on purpose (wrong ABI version, a failing call, an out-of-range result).
 */
#include "sluice_udf.h"

#include <stdio.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* add_one(BIGINT) -> BIGINT; NULL in, NULL out (sluice skips those rows). */
static int add_one_eval(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
                        const sluice_udf_col *args, sluice_udf_col *out)
{
	(void)ctx;
	for (int k = 0; k < n; k++)
		out->v.i64[rows[k]] = args[0].v.i64[rows[k]] + 1;
	return 0;
}
static const char *const add_one_args[] = {"BIGINT"};
static const sluice_udf add_one = {
	.abi_version = SLUICE_UDF_ABI_VERSION, .name = "add_one",
	.nargs = 1, .arg_types = add_one_args, .result_type = "BIGINT",
	.null_handling = SLUICE_UDF_NULL_IN_NULL_OUT, .deterministic = 1, .eval = add_one_eval,
};
EXPORT const sluice_udf *add_one_udf(void) { return &add_one; }

/* greet(STRING) -> STRING 'hello, <s>!': string results from ctx->alloc. */
static int greet_eval(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
                      const sluice_udf_col *args, sluice_udf_col *out)
{
	for (int k = 0; k < n; k++) {
		uint32_t i = rows[k];
		sluice_udf_str s = args[0].v.str[i];
		char *p = ctx->alloc(ctx, (size_t)s.len + 8);
		if (!p) {
			snprintf(ctx->errmsg, sizeof ctx->errmsg, "out of memory");
			return -1;
		}
		memcpy(p, "hello, ", 7);
		memcpy(p + 7, s.ptr, (size_t)s.len);
		p[7 + s.len] = '!';
		out->v.str[i].ptr = p;
		out->v.str[i].len = s.len + 8;
	}
	return 0;
}
static const char *const greet_args[] = {"STRING"};
static const sluice_udf greet = {
	.abi_version = SLUICE_UDF_ABI_VERSION, .name = "greet",
	.nargs = 1, .arg_types = greet_args, .result_type = "STRING",
	.null_handling = SLUICE_UDF_NULL_IN_NULL_OUT, .deterministic = 1, .eval = greet_eval,
};
EXPORT const sluice_udf *greet_udf(void) { return &greet; }

/* or_default(STRING, STRING) -> STRING: the first argument, or the second
 * when the first is NULL; called on NULLs (sets out->null itself). */
static int or_default_eval(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
                           const sluice_udf_col *args, sluice_udf_col *out)
{
	(void)ctx;
	for (int k = 0; k < n; k++) {
		uint32_t i = rows[k];
		int a = args[0].null[i] ? 1 : 0;
		out->null[i] = args[a].null[i];
		out->v.str[i] = args[a].v.str[i];
	}
	return 0;
}
static const char *const or_default_args[] = {"STRING", "STRING"};
static const sluice_udf or_default = {
	.abi_version = SLUICE_UDF_ABI_VERSION, .name = "or_default",
	.nargs = 2, .arg_types = or_default_args, .result_type = "STRING",
	.null_handling = SLUICE_UDF_CALLED_ON_NULL, .deterministic = 1, .eval = or_default_eval,
};
EXPORT const sluice_udf *or_default_udf(void) { return &or_default; }

/* is_big(DOUBLE) -> BOOLEAN, answering 7 for true (sluice makes it TRUE). */
static int is_big_eval(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
                       const sluice_udf_col *args, sluice_udf_col *out)
{
	(void)ctx;
	for (int k = 0; k < n; k++)
		out->v.i64[rows[k]] = args[0].v.f64[rows[k]] > 100 ? 7 : 0;
	return 0;
}
static const char *const is_big_args[] = {"DOUBLE"};
static const sluice_udf is_big = {
	.abi_version = SLUICE_UDF_ABI_VERSION, .name = "is_big",
	.nargs = 1, .arg_types = is_big_args, .result_type = "BOOLEAN",
	.null_handling = SLUICE_UDF_NULL_IN_NULL_OUT, .deterministic = 1, .eval = is_big_eval,
};
EXPORT const sluice_udf *is_big_udf(void) { return &is_big; }

/* checked_inv(INT) -> INT: fails on 0 with a message; 1000000 / x. */
static int checked_inv_eval(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
                            const sluice_udf_col *args, sluice_udf_col *out)
{
	for (int k = 0; k < n; k++) {
		int64_t x = args[0].v.i64[rows[k]];
		if (x == 0) {
			snprintf(ctx->errmsg, sizeof ctx->errmsg, "checked_inv(0): division by zero");
			return -1;
		}
		out->v.i64[rows[k]] = 1000000 / x;
	}
	return 0;
}
static const char *const checked_inv_args[] = {"INT"};
static const sluice_udf checked_inv = {
	.abi_version = SLUICE_UDF_ABI_VERSION, .name = "checked_inv",
	.nargs = 1, .arg_types = checked_inv_args, .result_type = "INT",
	.null_handling = SLUICE_UDF_NULL_IN_NULL_OUT, .deterministic = 1, .eval = checked_inv_eval,
};
EXPORT const sluice_udf *checked_inv_udf(void) { return &checked_inv; }

/* too_big(INT) -> INT returning 2^40: out of range for INT. */
static int too_big_eval(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
                        const sluice_udf_col *args, sluice_udf_col *out)
{
	(void)ctx;
	(void)args;
	for (int k = 0; k < n; k++)
		out->v.i64[rows[k]] = (int64_t)1 << 40;
	return 0;
}
static const char *const too_big_args[] = {"INT"};
static const sluice_udf too_big = {
	.abi_version = SLUICE_UDF_ABI_VERSION, .name = "too_big",
	.nargs = 1, .arg_types = too_big_args, .result_type = "INT",
	.null_handling = SLUICE_UDF_NULL_IN_NULL_OUT, .deterministic = 1, .eval = too_big_eval,
};
EXPORT const sluice_udf *too_big_udf(void) { return &too_big; }

/* A registration from a future ABI: refused at CREATE FUNCTION. */
static const sluice_udf future = {
	.abi_version = 99, .name = "future", .result_type = "INT",
	.null_handling = SLUICE_UDF_NULL_IN_NULL_OUT, .deterministic = 1, .eval = too_big_eval,
};
EXPORT const sluice_udf *future_udf(void) { return &future; }

/* A registration with a type the ABI does not have. */
static const char *const bad_type_args[] = {"DECIMAL(10, 2)"};
static const sluice_udf bad_type = {
	.abi_version = SLUICE_UDF_ABI_VERSION, .name = "bad_type",
	.nargs = 1, .arg_types = bad_type_args, .result_type = "INT",
	.null_handling = SLUICE_UDF_NULL_IN_NULL_OUT, .deterministic = 1, .eval = too_big_eval,
};
EXPORT const sluice_udf *bad_type_udf(void) { return &bad_type; }

/*
 * neg_v1(BIGINT) -> BIGINT, registered as a library built against the
 * version-1 header would register it: a struct that ends at eval and says
 * abi_version 1.  sluice must load it and must not read past eval.
 */
typedef struct udf_v1 {
	uint32_t abi_version;
	const char *name;
	int nargs;
	const char *const *arg_types;
	const char *result_type;
	int null_handling;
	int deterministic;
	sluice_udf_eval_fn eval;
} udf_v1;
static int neg_eval(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
                    const sluice_udf_col *args, sluice_udf_col *out)
{
	(void)ctx;
	for (int k = 0; k < n; k++)
		out->v.i64[rows[k]] = -args[0].v.i64[rows[k]];
	return 0;
}
static const char *const neg_args[] = {"BIGINT"};
static const udf_v1 neg_v1 = {1, "neg_v1", 1, neg_args, "BIGINT", SLUICE_UDF_NULL_IN_NULL_OUT, 1,
                              neg_eval};
EXPORT const sluice_udf *neg_v1_udf(void) { return (const sluice_udf *)(const void *)&neg_v1; }
