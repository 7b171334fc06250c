/*
 * expr_int.h - internals shared by the expression compiler and its kernels.
 *
 * A compiled program (sl_prog) is a flat array of steps.  Every step reads
 * argument registers and writes one output register; a register is a column
 * vector: an input column of the batch being evaluated (referenced, never
 * copied), a constant broadcast once at compile time, or a temporary owned
 * by the program (capacity p->cap rows, grown when a bigger batch arrives).
 *
 * Every step runs under a selection (p->sels[st->sel]): the list of rows it
 * must compute.  Selection 0 is the input batch's live rows; CASE, and
 * AND/OR/COALESCE whose later arguments may fail, create sub-selections
 * with split steps so that a branch is evaluated only for the rows that
 * reach it.  Kernels touch only the rows of their selection and never call
 * malloc per row: string results go into the output batch's arena when the
 * step's value can reach an output column (st->out_arena), otherwise into
 * the program's scratch arena, reset at every call.
 *
 * Kernels are chosen at compile time per (function, physical type) by the
 * sl__bind_* functions of the fn_*.c files.
 */
#ifndef SL_EXPR_INT_H
#define SL_EXPR_INT_H

#include "expr.h"
#include "base/buf.h"
#include "data/decimal.h"
#include "sluice.h"

enum { SL_REG_TMP, SL_REG_INPUT, SL_REG_CONST, SL_REG_ALIAS };

typedef struct sl_reg {
	int kind;       /* SL_REG_* */
	sl_type type;
	int input;      /* SL_REG_INPUT: input column index */
	sl_value cval;  /* SL_REG_CONST: the value (strings in p->arena) */
	sl_col own;     /* TMP/CONST storage (null + data vectors) */
	int scalar;     /* CONST read only through its value (IN over
	                 * constants, fn_arith.c): no vector is allocated */
	sl_col *cur;    /* the column read and written during a call */
} sl_reg;

typedef struct sl_sel {
	uint32_t *idx;  /* NULL = dense rows 0..n-1 */
	int n;
	uint32_t *store; /* owned storage (p->cap entries) */
} sl_sel;

struct sl_xctx;
struct sl_step;
typedef int (*sl_kernel)(struct sl_xctx *x, const struct sl_step *st);

typedef struct sl_step {
	sl_kernel k;
	sl_fn fn;
	int out;        /* output register */
	int nargs;
	int *args;      /* argument registers */
	int sel;        /* selection the step runs under */
	int sel_a, sel_b; /* split steps: selections produced */
	int op;         /* kernel-specific sub-code (unit, comparison, ...) */
	int out_arena;  /* 1: strings go to the output batch's arena */
	int64_t k1, k2; /* kernel-specific constants (scale factors, ...) */
	sl_i128 m1, m2; /* kernel-specific 128-bit constants */
	void *aux;      /* compiled pattern (LIKE, regex, date format) */
	sl_type type;   /* result type */
	int line, col;  /* SQL position of its expression (or of the nearest
	                 * enclosing one that has one), 0: unknown */
} sl_step;

typedef void (*sl_aux_free)(void *);

struct sl_prog {
	sl_arena arena;    /* steps, args, constant strings, aux data */
	sl_arena scratch;  /* per-call intermediate strings */
	sl_step *steps;
	int nsteps, capsteps;
	sl_reg *regs;
	int nregs, capregs;
	sl_sel *sels;
	int nsels, capsels;
	int cap;           /* rows of every owned vector */
	int n;             /* expressions */
	int *roots;        /* root register per expression */
	int nin;
	sl_type *in_types;
	uint32_t *filter_sel; /* sl_prog_filter's selection storage */
	sl_buf tbuf;       /* text scratch of CAST to string */
	int nfrees, capfrees;
	sl_aux_free *free_fn;
	void **free_ptr;
	int no_pos;        /* sl_expr_eval_const: errors without SQL position
	                    * (its callers, planning, add their own) */
	int where_sel;     /* sl_prog_compile_where: the filter's TRUE rows, else 0 */
};

typedef struct sl_xctx {
	sl_prog *p;
	const sl_batch *in;
	sl_batch *out;        /* may be NULL (filter) */
	const sl_eval_ctx *ctx;
	sl_err *err;
} sl_xctx;

/* Loops over the rows of selection S: `i` is the physical row index. */
#define SL_FOR_ROWS(S, i, ...)                                                \
	do {                                                                  \
		const uint32_t *ix_ = (S)->idx;                               \
		int n_ = (S)->n;                                              \
		if (ix_) {                                                    \
			for (int k_ = 0; k_ < n_; k_++) {                     \
				int i = (int)ix_[k_];                         \
				__VA_ARGS__                                   \
			}                                                     \
		} else {                                                      \
			for (int i = 0; i < n_; i++) {                        \
				__VA_ARGS__                                   \
			}                                                     \
		}                                                             \
	} while (0)

/* Accessors used by kernels. */
#define SL_X_SEL(x, st) (&(x)->p->sels[(st)->sel])
#define SL_X_OUT(x, st) ((x)->p->regs[(st)->out].cur)
#define SL_X_ARG(x, st, j) ((x)->p->regs[(st)->args[j]].cur)
#define SL_X_ATYPE(p, st, j) ((p)->regs[(st)->args[j]].type)

/* Arena for string results of step st. */
static inline sl_arena *sl__x_arena(sl_xctx *x, const sl_step *st)
{
	return (st->out_arena && x->out) ? &x->out->arena : &x->p->scratch;
}

/* Compiles like sl_prog_compile; nofold = 1 keeps the roots unfolded
 * (used by sl_expr_eval_const to evaluate a constant tree). */
sl_prog *sl__prog_compile(sl_expr *const *exprs, int n, const sl_type *in_types, int nin,
                          int nofold, sl_err *err);

/* 1 when call e depends on more than its arguments (expr_type.c). */
int sl__fn_volatile(const sl_expr *e);

/* Grows every owned vector of p to hold n rows.  0 or SL_ENOMEM. */
int sl__prog_reserve(sl_prog *p, int n);

/* Copies value (src, srow) to (dst, drow) by physical type; strings by
 * reference. */
static inline void sl__copy_val(sl_col *dst, int drow, const sl_col *src, int srow, sl_phys ph)
{
	dst->null[drow] = src->null[srow];
	switch (ph) {
	case SL_PHYS_F64: dst->v.f64[drow] = src->v.f64[srow]; break;
	case SL_PHYS_I128: dst->v.i128[drow] = src->v.i128[srow]; break;
	case SL_PHYS_STR: dst->v.str[drow] = src->v.str[srow]; break;
	case SL_PHYS_ROW: break;
	default: dst->v.i64[drow] = src->v.i64[srow]; break;
	}
}

/* Copies the rows of selection s of src into the same rows of dst (values
 * and NULL flags; a ROW's flags only), with `nulls` (may be NULL) OR-ed
 * into the flags: one loop per physical type, not a switch per row
 * (sl__copy_val per row was 30 instructions per value of q0's FIELD
 * steps; docs/nexmark.md §22). */
static inline void sl__copy_rows(sl_col *dst, const sl_col *src, const uint8_t *nulls,
                                 const sl_sel *s, sl_phys ph)
{
	uint8_t *dn = dst->null;
	const uint8_t *sn = src->null;
	static const uint8_t zero[1];
	const uint8_t *an = nulls ? nulls : zero;
	size_t am = nulls ? ~(size_t)0 : 0; /* index mask: 0 reads zero[0] */
#define SL_COPY_ROWS_(FIELD)                                                  \
	SL_FOR_ROWS(s, i, {                                                   \
		dn[i] = sn[i] | an[(size_t)i & am];                           \
		dst->v.FIELD[i] = src->v.FIELD[i];                            \
	})
	switch (ph) {
	case SL_PHYS_F64: SL_COPY_ROWS_(f64); break;
	case SL_PHYS_I128: SL_COPY_ROWS_(i128); break;
	case SL_PHYS_STR: SL_COPY_ROWS_(str); break;
	case SL_PHYS_ROW: SL_FOR_ROWS(s, i, { dn[i] = sn[i] | an[(size_t)i & am]; }); break;
	default: SL_COPY_ROWS_(i64); break;
	}
#undef SL_COPY_ROWS_
}

/* Registers a cleanup for compiled aux data (regex, date format). */
int sl__prog_on_free(sl_prog *p, sl_aux_free fn, void *ptr);

/* Constant argument j of a step, or NULL when that argument is not constant. */
const sl_value *sl__step_const(const sl_prog *p, const sl_step *st, int j);

/* Binders: pick the kernel for st (fn, arg registers and result type set)
 * from its argument types; compile literal patterns.  Return 0, or
 * SL_EPLAN / SL_ENOMEM with err set.  Each returns SL_ENOTSUP without
 * touching err when fn is not one of its family. */
int sl__bind_arith(sl_prog *p, sl_step *st, sl_err *err);   /* fn_arith.c */
int sl__bind_math(sl_prog *p, sl_step *st, sl_err *err);    /* fn_math.c */
/* Java's (fdlibm's) sinh, cosh and tanh, the digits Flink prints (fn_hyper.c) */
double sl__java_sinh(double x);
double sl__java_cosh(double x);
double sl__java_tanh(double x);
int sl__bind_cast(sl_prog *p, sl_step *st, sl_err *err);    /* fn_cast.c */
int sl__bind_string(sl_prog *p, sl_step *st, sl_err *err);  /* fn_string.c */
int sl__bind_regex(sl_prog *p, sl_step *st, sl_err *err);   /* fn_regex.c */
int sl__bind_time(sl_prog *p, sl_step *st, sl_err *err);    /* fn_time.c */
int sl__bind_hash(sl_prog *p, sl_step *st, sl_err *err);    /* fn_hash.c */
int sl__bind_logic(sl_prog *p, sl_step *st, sl_err *err);   /* expr_eval.c */
int sl__bind_text(sl_prog *p, sl_step *st, sl_err *err);    /* fn_text.c */
int sl__bind_split(sl_prog *p, sl_step *st, sl_err *err);   /* fn_split.c */
int sl__bind_row(sl_prog *p, sl_step *st, sl_err *err);     /* fn_row.c */
int sl__bind_str_to_map(sl_prog *p, sl_step *st, sl_err *err); /* fn_str_to_map.c */
int sl__bind_charset(sl_prog *p, sl_step *st, sl_err *err);  /* fn_charset.c */

/* One regular expression (Java syntax through libpcre2, fn_regex.c) for
 * kernels of other files: a handle freed with program p (NULL on OOM);
 * sl__rx_set (re)compiles it for pattern (pat, n) unless it holds that
 * pattern already (0, SL_ENOMEM, or SL_EPLAN with msg set); sl__rx_find
 * finds its first match in (s, n) at or after byte `from`: 1 with the
 * match's [*ms, *me), 0 when none, -1 on a matching error. */
void *sl__rx_new(sl_prog *p);
int sl__rx_set(void *r, const char *pat, size_t n, char *msg, size_t cap);
int sl__rx_find(void *r, const char *s, size_t n, size_t from, size_t *ms, size_t *me);
int sl__bind_cond(sl_prog *p, sl_step *st, sl_err *err);    /* fn_cond.c */
int sl__bind_json(sl_prog *p, sl_step *st, sl_err *err);    /* fn_json.c */
int sl__bind_sha(sl_prog *p, sl_step *st, sl_err *err);     /* fn_sha.c */
int sl__bind_rand(sl_prog *p, sl_step *st, sl_err *err);    /* fn_rand.c */
int sl__bind_collection(sl_prog *p, sl_step *st, sl_err *err); /* fn_collection.c */
int sl__bind_array_fn(sl_prog *p, sl_step *st, sl_err *err);   /* fn_array.c */

/* expr_type.c's helpers for the type rules of other files: a call node of
 * type t; e cast to t (NULL literals re-typed); the "cannot apply" error;
 * ARRAY<elem> / MAP<elem, val> with nullable elements in arena a (0 or -1). */
sl_expr *sl__expr_mk_call(sl_arena *a, sl_fn fn, sl_expr **args, int nargs, sl_type t);
sl_expr *sl__expr_coerce(sl_arena *a, sl_expr *e, sl_type t, sl_err *err);
int sl__expr_bad_args(sl_err *err, sl_fn fn, sl_expr **args, int nargs);
int sl__expr_collection_of(sl_arena *a, sl_type_id id, sl_type elem, sl_type val, sl_type *out);

/* The type rules of ROW values (expr_type_row.c): ROW(v1, ...) typed
 * ROW<EXPR$0 t1, ...> NOT NULL; x = y, <>, IS [NOT] DISTINCT FROM between
 * two ROW values, and x IN (r1, ...), as comparisons of their fields.
 * Each returns the expression or NULL with err set. */
sl_expr *sl__type_row(sl_arena *a, sl_expr **args, int nargs, sl_err *err);
sl_expr *sl__type_row_compare(sl_arena *a, sl_fn fn, sl_expr *x, sl_expr *y, sl_err *err);
sl_expr *sl__type_row_in(sl_arena *a, sl_expr **args, int nargs, sl_err *err);

/* The type rule of Flink's ARRAY_* and MAP_* functions (expr_type_coll.c):
 * checks and casts args, returns the call node or NULL with err set. */
sl_expr *sl__type_collection_fn(sl_arena *a, sl_fn fn, sl_expr **args, int nargs, sl_err *err);

/* The C.UTF-8 locale (a locale_t) for Unicode character classes and case
 * mapping without touching the global locale; created once, kept for the
 * process; NULL when the C library lacks it (fn_text.c). */
void *sl__utf8_locale(void);

/* Converts text (p, n) to st->type into row i of o as CAST(text AS type)
 * does (blanks trimmed): 0, 1 when it does not convert (fn_cast.c). */
int sl__cast_text(sl_xctx *x, const sl_step *st, const char *p, int64_t n, sl_col *o, int i);
int sl__bind_udf(sl_prog *p, sl_step *st, sl_err *err);     /* fn_udf.c */
/* fn_udf.c: the step data of an SL_FN_UDF call (in p's arena), or NULL. */
void *sl__udf_ref(sl_prog *p, const sl_expr *e);

/* Kernels for the control steps the compiler emits (expr_eval.c). */
int sl__k_split_true(sl_xctx *x, const sl_step *st);     /* arg0 TRUE -> sel_a, else sel_b */
int sl__k_split_notfalse(sl_xctx *x, const sl_step *st); /* arg0 not FALSE -> sel_a */
int sl__k_split_nottrue(sl_xctx *x, const sl_step *st);  /* arg0 not TRUE -> sel_a */
int sl__k_split_null(sl_xctx *x, const sl_step *st);     /* arg0 NULL -> sel_a */
int sl__k_case_merge(sl_xctx *x, const sl_step *st);     /* args: (val, sel) pairs via k1 */
int sl__k_copy(sl_xctx *x, const sl_step *st);           /* out = arg0 (same phys) */

/* Type helpers shared by the constructor and the binders (expr_type.c). */
int sl__type_is_char(sl_type t);                 /* CHAR/VARCHAR */
const char *sl__type_str(sl_type t, char *buf, size_t cap);

/* Java-style integer wrap-around to the width of an integer type. */
static inline int64_t sl__wrap_int(int64_t v, int id)
{
	switch (id) {
	case SL_T_TINYINT: return (int8_t)v;
	case SL_T_SMALLINT: return (int16_t)v;
	case SL_T_INT: return (int32_t)v;
	default: return v;
	}
}

/* A timestamp (micros) plus n calendar months, day clamped (fn_arith.c). */
int64_t sl__add_months_us(int64_t us, int64_t n);

/* Checked int128 multiply: 1 on overflow.  Operands that fit in int64 take
 * the fast path (their product cannot overflow); the general case goes to
 * decimal.c (clang's __builtin_mul_overflow on __int128 needs compiler-rt). */
static inline int sl__mul128_ovf(sl_i128 a, sl_i128 b, sl_i128 *out)
{
	if (a == (int64_t)a && b == (int64_t)b) {
		*out = a * b;
		return 0;
	}
	return sl_i128_mul(a, b, out) != 0;
}

/* Session time zone offset at a UTC instant (micros; 0 for UTC/NULL). */
int64_t sl__tz_off(const sl_xctx *x, int64_t utc_us);

#endif
