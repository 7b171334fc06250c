/*
 * expr.h - bound scalar expressions: the tree the binder builds, and the
 * compiled program that evaluates it over a batch.
 *
 * Data flow:  SQL AST --(binder, src/plan)--> sl_expr trees
 *             --(sl_prog_compile, once per operator)--> sl_prog
 *             --(sl_prog_eval, per batch)--> result column vectors.
 *
 * sl_expr trees are built with the constructors below, which check the
 * argument types, apply Flink's implicit casts and result-type rules
 * (e.g. DECIMAL(p1,s1) + DECIMAL(p2,s2)), and report type errors through an
 * sl_err.  Nodes live in the arena passed to the constructors (the plan's
 * arena) and are immutable once built.
 *
 * A compiled program evaluates n expressions over an input batch into n
 * output columns, batch-at-a-time (a flat array of steps over column
 * registers, never a per-row tree walk, never a per-row malloc).
 * Evaluation errors (DECIMAL overflow, a CAST that fails, division by zero
 * on integers) fail the whole call with SL_ERUNTIME and a message naming
 * the function and the offending value; TRY_CAST yields NULL instead.
 *
 * Thread-safety: a program is used by one thread at a time.
 */
#ifndef SL_EXPR_H
#define SL_EXPR_H

#include "../base/arena.h"
#include "../base/err.h"
#include "../data/types.h"
#include "../data/batch.h"

/* Scalar functions and operators.  The binder maps SQL syntax onto these;
 * argument conventions are noted where not obvious. */
typedef enum sl_fn {
	/* arithmetic: numeric x numeric; also TIMESTAMP/DATE +/- INTERVAL,
	 * TIMESTAMP - TIMESTAMP is not SQL and is refused */
	SL_FN_ADD, SL_FN_SUB, SL_FN_MUL, SL_FN_DIV, SL_FN_MOD, SL_FN_NEG,
	/* comparison: any comparable pair, result BOOLEAN (NULL if a side is) */
	SL_FN_EQ, SL_FN_NE, SL_FN_LT, SL_FN_LE, SL_FN_GT, SL_FN_GE,
	/* logic, SQL three-valued */
	SL_FN_AND, SL_FN_OR, SL_FN_NOT,
	SL_FN_IS_NULL, SL_FN_IS_NOT_NULL,
	SL_FN_IS_TRUE, SL_FN_IS_FALSE, SL_FN_IS_NOT_TRUE, SL_FN_IS_NOT_FALSE,
	SL_FN_IS_DISTINCT, SL_FN_IS_NOT_DISTINCT,
	SL_FN_IN,       /* args: x, v1, v2, ... (SQL semantics for NULL) */
	SL_FN_LIKE,     /* args: x, pattern [, escape] */
	SL_FN_SIMILAR,  /* args: x, pattern */
	SL_FN_CASE,     /* args: cond1, val1, cond2, val2, ..., [else] (odd count = else present) */
	SL_FN_CAST,     /* args: x; target is the node's type */
	SL_FN_TRY_CAST, /* args: x; NULL when the cast fails */
	SL_FN_COALESCE, SL_FN_NULLIF,
	/* strings */
	SL_FN_CONCAT,   /* || and CONCAT(...): NULL if any arg NULL */
	SL_FN_CONCAT_WS,
	SL_FN_UPPER, SL_FN_LOWER,
	SL_FN_SUBSTRING,   /* args: s, start [, len] (1-based, Flink rules) */
	SL_FN_CHAR_LENGTH,
	SL_FN_TRIM_BOTH, SL_FN_TRIM_LEADING, SL_FN_TRIM_TRAILING, /* args: s [, chars] */
	SL_FN_REPLACE,     /* args: s, from, to */
	SL_FN_POSITION,    /* args: needle, haystack */
	SL_FN_REGEXP_EXTRACT, /* args: s, regex [, group] (libpcre2, compiled once when the regex is a literal) */
	SL_FN_REGEXP,         /* args: s, regex -> BOOLEAN (find) */
	SL_FN_REGEXP_REPLACE, /* args: s, regex, replacement */
	SL_FN_SPLIT_INDEX,    /* args: s, delim, index (0-based) */
	SL_FN_LPAD, SL_FN_RPAD,
	SL_FN_MD5,
	/* numbers */
	SL_FN_ABS, SL_FN_ROUND /* x [, digits] */, SL_FN_FLOOR, SL_FN_CEIL,
	SL_FN_POWER, SL_FN_SQRT, SL_FN_LN, SL_FN_LOG10, SL_FN_EXP,
	/* time; `unit` argument is an INT literal holding an sl_time_unit */
	SL_FN_EXTRACT,       /* args: unit, x */
	SL_FN_FLOOR_TIME,    /* args: x, unit  (FLOOR(ts TO HOUR)) */
	SL_FN_CEIL_TIME,     /* args: x, unit */
	SL_FN_DATE_TRUNC,    /* args: unit-string, x (sluice extension, PostgreSQL's) */
	SL_FN_DATE_FORMAT,   /* args: ts|string, java-pattern */
	SL_FN_TO_TIMESTAMP,  /* args: string [, java-pattern] -> TIMESTAMP(3) */
	SL_FN_TO_TIMESTAMP_LTZ, /* args: epoch number, precision (0 = s, 3 = ms) -> TIMESTAMP_LTZ(3) */
	SL_FN_TO_DATE,       /* args: string [, pattern] */
	SL_FN_UNIX_TIMESTAMP, /* args: [] | string [, pattern] */
	SL_FN_CURRENT_WATERMARK, /* args: the rowtime column; reads the row's W_before; NULL at -inf */
	SL_FN_PROCTIME,      /* no args: the evaluation context's processing time */
	SL_FN_CURRENT_TIMESTAMP,
	SL_FN_TIMESTAMPADD,  /* args: unit, n, ts */
	SL_FN_TIMESTAMPDIFF, /* args: unit, ts1, ts2 */
	SL_FN_CONVERT_TZ,    /* args: string, zone from, zone to -> STRING */
	SL_FN_FROM_UNIXTIME, /* args: epoch seconds [, java-pattern] -> STRING in the session zone */
	/* rows */
	SL_FN_FIELD,         /* args: row; node->field = field index */
	/* issue 8: more of Flink's built-in functions (fn_text.c, fn_math.c,
	 * fn_json.c); conditional forms IF / IFNULL are bound to CASE / COALESCE */
	SL_FN_GREATEST, SL_FN_LEAST, /* args: v1, v2, ... (common type; NULL if any is NULL) */
	SL_FN_REPEAT,        /* args: s, n */
	SL_FN_REVERSE, SL_FN_INITCAP, SL_FN_ASCII,
	SL_FN_CHR,           /* args: INT */
	SL_FN_LEFT, SL_FN_RIGHT, /* args: s, n */
	SL_FN_INSTR,         /* args: s, needle -> INT (1-based, 0 when absent) */
	SL_FN_LOCATE,        /* args: needle, s [, from] -> INT */
	SL_FN_OVERLAY,       /* args: s, r, pos [, len] */
	SL_FN_PARSE_URL,     /* args: url, part [, query key] */
	SL_FN_HEX,           /* args: integer | string */
	SL_FN_BIN,           /* args: integer */
	SL_FN_TO_BASE64, SL_FN_FROM_BASE64,
	SL_FN_IS_ALPHA, SL_FN_IS_DECIMAL, SL_FN_IS_DIGIT, /* NULL gives FALSE */
	SL_FN_LOG,           /* args: x | base, x */
	SL_FN_LOG2, SL_FN_SIN, SL_FN_SINH, SL_FN_COS, SL_FN_COSH, SL_FN_TAN, SL_FN_TANH,
	SL_FN_COT, SL_FN_ASIN, SL_FN_ACOS, SL_FN_ATAN, SL_FN_ATAN2, SL_FN_DEGREES,
	SL_FN_RADIANS, SL_FN_SIGN, SL_FN_PI, SL_FN_E,
	SL_FN_TRUNCATE,      /* args: x [, digits] (typed like ROUND) */
	SL_FN_SHA1, SL_FN_SHA224, SL_FN_SHA256, SL_FN_SHA384, SL_FN_SHA512,
	SL_FN_SHA2,          /* args: s, bits (224 | 256 | 384 | 512, else an error) */
	SL_FN_RAND,          /* args: [seed] (never folded) */
	SL_FN_RAND_INTEGER,  /* args: [seed,] bound */
	SL_FN_UUID,
	SL_FN_IS_JSON,       /* args: s, kind INT literal (0 VALUE, 1 SCALAR, 2 ARRAY, 3 OBJECT) */
	SL_FN_JSON_EXISTS,   /* args: s, path, on-error INT literal (SL_JSON_*) */
	SL_FN_JSON_VALUE,    /* args: s, path, on-empty, empty-default, on-error, error-default;
	                      * the node's type is the RETURNING type */
	SL_FN_JSON_QUERY,    /* args: s, path, wrapper, on-empty, on-error (INT literals) */
	SL_FN_JSON_OBJECT,   /* args: on-null (0 NULL, 1 ABSENT), then (key, value, raw) triples;
	                      * raw = INT literal 1 when the value is JSON text to insert as is */
	SL_FN_JSON_ARRAY,    /* args: on-null, then (value, raw) pairs */
	SL_FN_JSON_STRING,   /* args: value -> its JSON text */
	/* collections (fn_collection.c): ARRAY and MAP values (data/packed.h) */
	SL_FN_ARRAY,         /* ARRAY[v1, ...]: args of the element type (common type) */
	SL_FN_MAP,           /* MAP[k1, v1, ...]: key, value pairs; a repeated key keeps its last value */
	SL_FN_ITEM,          /* args: array, INT index (1-based; NULL out of range) | map, key */
	SL_FN_CARDINALITY,   /* args: array | map -> INT */
	SL_FN_ELEMENT,       /* args: array of 0 or 1 element -> it (NULL when empty; an error over 1) */
	/* user-defined (CREATE FUNCTION, include/sluice_udf.h): node->udf; args
	 * already have the registration's types (fn_udf.c) */
	SL_FN_UDF,
	/* Flink's collection functions (fn_array.c; type rules in
	 * expr_type_coll.c).  Elements compare by their packed bytes (doubles by
	 * their bits, as Java's Double.equals); a needle is used as it is when
	 * it encodes like the elements, else cast to the element type. */
	SL_FN_ARRAY_CONTAINS,  /* args: array, needle -> BOOLEAN (a NULL needle finds a NULL element) */
	SL_FN_ARRAY_POSITION,  /* args: array, needle -> INT, 1-based, 0 when absent */
	SL_FN_ARRAY_REMOVE,    /* args: array, needle -> array without the elements equal to it */
	SL_FN_ARRAY_DISTINCT,  /* args: array -> its first occurrences, in order */
	SL_FN_ARRAY_REVERSE,   /* args: array */
	SL_FN_ARRAY_SLICE,     /* args: array, INT start [, INT end] (1-based, negative from the end) */
	SL_FN_ARRAY_UNION,     /* args: array, array -> distinct elements of both */
	SL_FN_ARRAY_EXCEPT,    /* args: array, array -> distinct elements of the first not in the second */
	SL_FN_ARRAY_INTERSECT, /* args: array, array -> distinct elements of the first also in the second */
	SL_FN_ARRAY_CONCAT,    /* args: array, ... -> their elements in turn */
	SL_FN_ARRAY_APPEND,    /* args: array, element */
	SL_FN_ARRAY_PREPEND,   /* args: array, element (Flink 1.20's order) */
	SL_FN_ARRAY_MAX,       /* args: array -> its greatest non-NULL element */
	SL_FN_ARRAY_MIN,       /* args: array -> its least non-NULL element */
	SL_FN_ARRAY_SORT,      /* args: array [, BOOLEAN ascending [, BOOLEAN nulls first]] */
	SL_FN_ARRAY_JOIN,      /* args: array of strings, delimiter [, NULL replacement] -> STRING */
	SL_FN_MAP_KEYS,        /* args: map -> ARRAY of its keys, in entry order */
	SL_FN_MAP_VALUES,      /* args: map -> ARRAY of its values */
	SL_FN_MAP_ENTRIES,     /* args: map -> ARRAY<ROW<key, value>> */
	SL_FN_MAP_FROM_ARRAYS, /* args: array of keys, array of values (of one length) -> MAP */
	SL_FN_MAP_UNION,       /* args: map, ... -> one map, later maps' values winning */
	SL_FN_SPLIT,           /* args: string, delimiter -> ARRAY<STRING> (fn_split.c) */
	SL_FN_JSON_AGG,        /* args: '\n'-joined JSON_ARRAY / JSON_OBJECT items (LISTAGG),
	                        * INT 0 array / 1 object -> JSON_ARRAYAGG's / JSON_OBJECTAGG's
	                        * result (parse_fn.c's rewrite; named "$JSON_AGG") */
	SL_FN_STR_TO_MAP,      /* args: text [, list delimiter, key-value delimiter] (Java regexes,
	                        * ',' and '=' by default) -> MAP<STRING, STRING> (fn_str_to_map.c) */
	SL_FN_ENCODE,          /* args: string, charset -> BYTES (fn_charset.c) */
	SL_FN_DECODE,          /* args: binary, charset -> STRING (fn_charset.c) */
	SL_FN_ROW,             /* ROW(v1, ...) / (v1, v2, ...): ROW<EXPR$0 t1, ...> NOT NULL, each
	                        * field of its value's type (Calcite's names, as Flink) */
	SL_FN__COUNT
} sl_fn;

typedef enum sl_time_unit {
	SL_TU_MICROSECOND, SL_TU_MILLISECOND, SL_TU_SECOND, SL_TU_MINUTE,
	SL_TU_HOUR, SL_TU_DAY, SL_TU_WEEK, SL_TU_MONTH, SL_TU_QUARTER,
	SL_TU_YEAR, SL_TU_DOW, SL_TU_DOY, SL_TU_EPOCH, SL_TU_DECADE, SL_TU_CENTURY,
	SL_TU_MILLENNIUM,
	SL_TU_ISODOW, SL_TU_ISOYEAR, /* EXTRACT only: Monday = 1 .. Sunday = 7; ISO week's year */
	SL_TU_NANOSECOND             /* EXTRACT only (micros * 1000) */
} sl_time_unit;

/* Behaviours of the JSON functions' ON EMPTY / ON ERROR / wrapper clauses
 * (INT literal arguments). */
enum {
	SL_JSON_NULL = 0, SL_JSON_ERROR, SL_JSON_DEFAULT, /* JSON_VALUE */
	SL_JSON_EMPTY_ARRAY, SL_JSON_EMPTY_OBJECT,        /* JSON_QUERY */
	SL_JSON_TRUE, SL_JSON_FALSE, SL_JSON_UNKNOWN,     /* JSON_EXISTS */
	SL_JSON_WITHOUT_WRAPPER = 0, SL_JSON_CONDITIONAL_WRAPPER, SL_JSON_UNCONDITIONAL_WRAPPER
};

typedef enum sl_expr_kind {
	SL_EX_COL,  /* input column `col` of the operator's input batch */
	SL_EX_LIT,  /* literal value (lit), possibly NULL */
	SL_EX_CALL  /* fn(args) */
} sl_expr_kind;

/* A literal value.  Strings point into the plan arena. */
typedef struct sl_value {
	int is_null;
	union {
		int64_t i64;
		double f64;
		sl_i128 i128;
		sl_str str;
	} v;
} sl_value;

typedef struct sl_expr {
	sl_expr_kind kind;
	sl_type type;       /* result type */
	int col;            /* SL_EX_COL */
	sl_value lit;       /* SL_EX_LIT */
	sl_fn fn;           /* SL_EX_CALL */
	int field;          /* SL_FN_FIELD: field index */
	int nargs;
	struct sl_expr **args;
	const struct sluice_udf *udf; /* SL_FN_UDF: the registration */
	const char *udf_name;         /* SL_FN_UDF: the SQL name (messages, EXPLAIN) */
	int line, pos;      /* SQL line and column of the call (binder), 0:
	                     * unknown; run-time errors of its step name it */
} sl_expr;

/* Constructors.  All allocate in `a`; on a type error they return NULL with
 * the message in err (callers add the SQL position with sl_err_prefix or by
 * having set err->line/col). */
sl_expr *sl_expr_col(sl_arena *a, int col, sl_type type);
sl_expr *sl_expr_lit(sl_arena *a, sl_type type, sl_value v);
sl_expr *sl_expr_lit_null(sl_arena *a, sl_type type);
sl_expr *sl_expr_lit_i64(sl_arena *a, sl_type type, int64_t v);
sl_expr *sl_expr_lit_str(sl_arena *a, const char *s, int64_t len); /* CHAR(len) literal as Flink types it; STRING-compatible */

/*
 * Builds fn(args[0..nargs)): checks arity and argument types, inserts
 * implicit casts, computes the result type.  For SL_FN_CAST / TRY_CAST the
 * caller passes the target type in *target (ignored otherwise, may be
 * NULL).  For SL_FN_FIELD, `field` is the field index (ignored otherwise).
 * Returns NULL with err set on a type error ("cannot apply '+' to STRING
 * and INT").
 */
sl_expr *sl_expr_call(sl_arena *a, sl_fn fn, sl_expr **args, int nargs,
                      const sl_type *target, int field, sl_err *err);

/*
 * A call of user-defined function u (include/sluice_udf.h), named `name` in
 * SQL, returning `result` (nullable); args[0..nargs) must already have the
 * registration's argument types (the binder casts them).  Never folded as
 * a constant.  NULL on OOM.
 */
sl_expr *sl_expr_udf(sl_arena *a, const struct sluice_udf *u, const char *name, sl_type result,
                     sl_expr **args, int nargs);

/* Convenience: an explicit CAST(x AS t) (no-op when types are equal). */
sl_expr *sl_expr_cast(sl_arena *a, sl_expr *x, sl_type t, sl_err *err);

/* True when the expression only reads literals (can be folded). */
int sl_expr_is_const(const sl_expr *e);

/* Evaluates a constant expression into *out (strings in arena `a`).
 * Returns 0 or a negative SL_E* code with err set. */
int sl_expr_eval_const(const sl_expr *e, sl_arena *a, sl_value *out, sl_err *err);

/* Name of a function as written in SQL (for messages and EXPLAIN). */
const char *sl_fn_name(sl_fn fn);

/* The function a generic call `name(...)` means (case-insensitive, aliases
 * such as CHARACTER_LENGTH, LCASE, SUBSTR, CEILING accepted), or -1 when
 * unknown.  FLOOR/CEIL map to the numeric forms; the binder picks
 * SL_FN_FLOOR_TIME for FLOOR(ts TO unit). */
int sl_fn_from_name(const char *sql_name);

/* The sl_time_unit named (case-insensitive: "HOUR", "hours", "DOW", ...), or
 * -1 when unknown. */
int sl_time_unit_from_name(const char *name);

/* Writes a readable form of the expression ("($1 + 5)", "UPPER($0)") into
 * buf for EXPLAIN; column i prints as names[i] when names is non-NULL. */
char *sl_expr_format(const sl_expr *e, const char *const *names, char *buf, size_t cap);

/* ---- compiled programs -------------------------------------------------- */

typedef struct sl_prog sl_prog;

/* Per-call evaluation context. */
typedef struct sl_eval_ctx {
	int64_t proctime;   /* processing time for PROCTIME(), micros since epoch */
	const char *tz;     /* table.local-time-zone (NULL = UTC) */
} sl_eval_ctx;

/*
 * Compiles n expressions over an input of `nin` columns with types
 * `in_types` into one program.  The expressions are not retained after the
 * call (the program copies what it needs).  Constant sub-expressions are
 * folded, literal regexes and date patterns compiled once here.  Returns
 * NULL with err set on failure.  Free with sl_prog_free.
 */
sl_prog *sl_prog_compile(sl_expr *const *exprs, int n, const sl_type *in_types, int nin,
                         sl_err *err);

void sl_prog_free(sl_prog *p);

/*
 * Evaluates every expression for the live rows of `in` (honouring in->sel)
 * and writes results into out_cols[0..n) at the same physical row indices
 * (rows not live are left untouched).  out_cols must be columns of
 * `out_batch` (whose arena receives new string bytes) with the expressions'
 * result types, capacity at least in->nrows.  Results may also reference
 * string bytes of `in` (valid as long as `in` is).  Returns 0, or
 * SL_ERUNTIME with err set (message names the function and value).
 */
int sl_prog_eval(sl_prog *p, const sl_batch *in, sl_batch *out_batch, sl_col *out_cols,
                 const sl_eval_ctx *ctx, sl_err *err);

/*
 * Evaluates a single BOOLEAN expression program (n == 1) as a filter: sets
 * in->sel to the live rows for which it is TRUE (NULL and FALSE drop the
 * row).  `in` is modified only in sel/nsel; sel storage comes from the
 * program.  Returns 0 or SL_ERUNTIME.
 */
int sl_prog_filter(sl_prog *p, sl_batch *in, const sl_eval_ctx *ctx, sl_err *err);

/*
 * A Calc's filter and projection as one program: the n expressions are
 * computed only for the rows where the BOOLEAN `filter` is TRUE, and a
 * call that appears in both is computed once (the filter's strings go to
 * the output batch's arena, so the projection can use them).  Evaluate
 * with sl_prog_eval_where.  Returns the program or NULL with err set, as
 * sl_prog_compile.
 */
sl_prog *sl_prog_compile_where(sl_expr *filter, sl_expr *const *exprs, int n,
                               const sl_type *in_types, int nin, sl_err *err);

/*
 * Evaluates a program of sl_prog_compile_where over the live rows of `in`:
 * narrows in->sel to the rows where the filter is TRUE (as sl_prog_filter;
 * the selection storage is the program's, valid until its next call) and
 * writes the expressions' values for those rows into out_cols (as
 * sl_prog_eval).  Returns 0 or SL_ERUNTIME / SL_ENOMEM with err set.
 */
int sl_prog_eval_where(sl_prog *p, sl_batch *in, sl_batch *out_batch, sl_col *out_cols,
                       const sl_eval_ctx *ctx, sl_err *err);

#endif
