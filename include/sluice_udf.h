/*
 * sluice_udf.h - the C ABI of user-defined functions, scalar and aggregate,
 * loaded from a shared object by
 *
 *     CREATE [TEMPORARY] FUNCTION name AS 'symbol' LANGUAGE C USING JAR '/path/lib.so';
 *
 * `symbol` names a function of type sluice_udf_entry exported by the
 * library.  sluice calls it once, at CREATE FUNCTION, and keeps the
 * returned registration (it must stay valid while the library is loaded:
 * make it a static const).  Functions work on whole batches over column
 * vectors, never one row at a time.  A scalar function:
 *
 *     static int add_eval(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
 *                         const sluice_udf_col *args, sluice_udf_col *out)
 *     {
 *         for (int k = 0; k < n; k++) {
 *             uint32_t i = rows[k];
 *             out->v.i64[i] = args[0].v.i64[i] + args[1].v.i64[i];
 *         }
 *         return 0;
 *     }
 *     static const char *const add_args[] = {"BIGINT", "BIGINT"};
 *     static const sluice_udf add_udf = {
 *         .abi_version = SLUICE_UDF_ABI_VERSION, .name = "add",
 *         .nargs = 2, .arg_types = add_args, .result_type = "BIGINT",
 *         .null_handling = SLUICE_UDF_NULL_IN_NULL_OUT, .deterministic = 1,
 *         .eval = add_eval,
 *     };
 *     const sluice_udf *add_entry(void) { return &add_udf; }
 *
 * Types (arg_types, result_type) are SQL type names: BOOLEAN, TINYINT,
 * SMALLINT, INT, BIGINT, FLOAT, DOUBLE, STRING (or VARCHAR), BYTES, DATE,
 * TIMESTAMP(3) (any precision 0-9), TIMESTAMP_LTZ(3).  Their vectors:
 *
 *   BOOLEAN (0/1), TINYINT..BIGINT        v.i64  (int64_t)
 *   DATE                                  v.i64  days since 1970-01-01
 *   TIMESTAMP(p), TIMESTAMP_LTZ(p)        v.i64  microseconds since the epoch
 *   FLOAT, DOUBLE                         v.f64  (double)
 *   STRING, BYTES                         v.str  (pointer, length; not
 *                                                NUL-terminated, UTF-8 for STRING)
 *
 * Arguments are converted to the declared types as Flink's implicit casts
 * do (an INT column passed to a BIGINT parameter); other types are a
 * planning error naming the function.  null[i] is 1 for a NULL at row i.
 *
 * Evaluation contract (scalar): eval(ctx, n, rows, args, out) computes the
 * result for rows rows[0..n) (physical row indices, ascending) and writes
 * out->null[i] and out->v.<kind>[i] for each of them; other rows must not
 * be touched.  With SLUICE_UDF_NULL_IN_NULL_OUT, rows with a NULL
 * argument are not passed (their result is NULL already) and out->null[i]
 * is 0 on entry; with SLUICE_UDF_CALLED_ON_NULL every row is passed and
 * the function sets out->null[i] itself.  String results must point into
 * memory from ctx->alloc (valid until the batch is consumed) or into an
 * argument's bytes of the same row.  Return 0, or -1 after writing a
 * message into ctx->errmsg: the job stops with a runtime error naming the
 * function and the message.  The function must not keep pointers to
 * arguments after it returns, and it must be thread-safe if it keeps
 * state (it is called by one thread at a time per job operator).
 *
 * Aggregate functions (ABI version 2, kind = SLUICE_UDF_AGGREGATE) keep an
 * accumulator of acc_size bytes per group (and per window) that sluice
 * stores inline in its own state: it must be plain bytes, without
 * pointers, because sluice copies it, moves it, writes it to checkpoints
 * and restores it byte for byte (possibly into another process).  It is
 * aligned to 8 bytes.  The callbacks:
 *
 *   init(acc)            optional: sets up a fresh accumulator (NULL: the
 *                        accumulator starts as acc_size zero bytes).
 *   accumulate(ctx, n, rows, args, accs)
 *                        folds rows rows[0..n) into accs[0..n): accs[k] is
 *                        the accumulator of row rows[k].  Rows of one call
 *                        may belong to different groups, and several k may
 *                        share one accumulator: process them in order k =
 *                        0, 1, ...  n may be 1.
 *   retract(ctx, n, rows, args, accs)
 *                        optional: takes rows back (update and delete
 *                        changes of an updating input, sliding OVER
 *                        frames).  Without it, a query that would need it
 *                        is refused at planning time, naming the function.
 *   merge(ctx, acc, other)
 *                        optional: folds accumulator `other` into `acc`
 *                        (`acc` holds the earlier rows).  SESSION windows
 *                        need it (sessions merge); without it they are
 *                        refused at planning time.
 *   get_value(ctx, acc, out, row)
 *                        writes the result into out->null[row] and
 *                        out->v.<kind>[row].  A group whose rows were all
 *                        skipped (FILTER, NULL arguments) gets a fresh
 *                        accumulator (init).  Must not change acc.
 *
 * NULL arguments: with SLUICE_UDF_NULL_IN_NULL_OUT rows with a NULL
 * argument are skipped (as built-in aggregates skip NULLs), with
 * SLUICE_UDF_CALLED_ON_NULL every row is passed.  Result types are those
 * of scalar functions except STRING and BYTES (an accumulator cannot hold
 * a pointer to them); ctx->alloc is NULL in aggregate callbacks.  Each
 * callback returns 0, or -1 after writing ctx->errmsg: the job stops with
 * a runtime error naming the function, the callback and the message.
 *
 * Write registrations with designated initializers (fields not named are
 * zero: a scalar function's kind is SLUICE_UDF_SCALAR).
 *
 * Versioning: abi_version is SLUICE_UDF_ABI_VERSION of the header the
 * library was compiled with.  sluice accepts versions 1 and 2: a version-1
 * registration is a scalar function and sluice does not read the fields
 * version 2 appended (libraries built against the version-1 header load
 * unchanged).  Other versions are refused with a message naming both.
 * Fields are only ever appended, with a new version.
 */
#ifndef SLUICE_UDF_H
#define SLUICE_UDF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SLUICE_UDF_ABI_VERSION 2

/* kind (version 2) */
#define SLUICE_UDF_SCALAR 0    /* eval per row (version 1 registrations are scalar) */
#define SLUICE_UDF_AGGREGATE 1 /* acc_size, init, accumulate, retract, merge, get_value */

/* The largest acc_size sluice accepts. */
#define SLUICE_UDF_MAX_ACC 1024

/* null_handling */
#define SLUICE_UDF_NULL_IN_NULL_OUT 0 /* any NULL argument gives NULL, eval never sees it */
#define SLUICE_UDF_CALLED_ON_NULL 1   /* eval sees every row and sets out->null */

typedef struct sluice_udf_str {
	const char *ptr;
	int64_t len;
} sluice_udf_str;

/* A column vector: per-row null flags and values (indexed by row). */
typedef struct sluice_udf_col {
	uint8_t *null;
	union {
		int64_t *i64;
		double *f64;
		sluice_udf_str *str;
	} v;
} sluice_udf_col;

typedef struct sluice_udf_ctx sluice_udf_ctx;
struct sluice_udf_ctx {
	/* Allocates n bytes for string results, valid until the batch is
	 * consumed (NULL when out of memory: return -1). */
	void *(*alloc)(sluice_udf_ctx *ctx, size_t n);
	char errmsg[256];     /* message of a failed call */
	void *impl;           /* sluice's (do not touch) */
};

typedef int (*sluice_udf_eval_fn)(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
                                  const sluice_udf_col *args, sluice_udf_col *out);

/* Aggregate callbacks (version 2): see "Aggregate functions" above. */
typedef void (*sluice_udaf_init_fn)(void *acc);
typedef int (*sluice_udaf_accumulate_fn)(sluice_udf_ctx *ctx, int n, const uint32_t *rows,
                                         const sluice_udf_col *args, void *const *accs);
typedef int (*sluice_udaf_merge_fn)(sluice_udf_ctx *ctx, void *acc, const void *other);
typedef int (*sluice_udaf_get_value_fn)(sluice_udf_ctx *ctx, const void *acc,
                                        sluice_udf_col *out, uint32_t row);

typedef struct sluice_udf {
	uint32_t abi_version;          /* SLUICE_UDF_ABI_VERSION */
	const char *name;              /* informative (messages) */
	int nargs;                     /* 0..16 */
	const char *const *arg_types;  /* nargs SQL type names */
	const char *result_type;       /* SQL type name */
	int null_handling;             /* SLUICE_UDF_NULL_IN_NULL_OUT or _CALLED_ON_NULL */
	int deterministic;             /* 1: same arguments, same result (informative) */
	sluice_udf_eval_fn eval;       /* scalar: required; aggregate: NULL */
	/* ---- version 2 (not read in a version-1 registration) ---- */
	int kind;                      /* SLUICE_UDF_SCALAR or SLUICE_UDF_AGGREGATE */
	uint32_t acc_size;             /* aggregate: accumulator bytes, 1..SLUICE_UDF_MAX_ACC */
	sluice_udaf_init_fn init;      /* optional (NULL: zero bytes) */
	sluice_udaf_accumulate_fn accumulate;
	sluice_udaf_accumulate_fn retract;   /* optional */
	sluice_udaf_merge_fn merge;          /* optional */
	sluice_udaf_get_value_fn get_value;
} sluice_udf;

/* The type of the symbol named in CREATE FUNCTION ... AS 'symbol'. */
typedef const sluice_udf *(*sluice_udf_entry)(void);

#ifdef __cplusplus
}
#endif
#endif
