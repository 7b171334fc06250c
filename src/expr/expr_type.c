/*
 * expr_type.c - constructors of bound expressions and Flink 1.20's typing
 * rules.
 *
 * The binder (src/plan) builds sl_expr trees with these functions.  Each
 * call checks arity and argument types, inserts the implicit casts Flink
 * inserts (integers meeting DECIMAL become DECIMAL(3|5|10|19, 0), anything
 * meeting DOUBLE becomes DOUBLE, a string literal compared with a temporal
 * value is cast to it, DATE meets TIMESTAMP as TIMESTAMP) and computes the
 * result type, DECIMAL precision/scale included (LogicalTypeMerging's
 * rules, capped at 38 digits).  Integer operands of different widths are
 * not cast: they share one physical representation (int64) and the kernels
 * wrap results to the result type's width like Java does.
 *
 * Nodes are allocated in the caller's arena and never modified after
 * construction.  Errors name the function and the argument types.  Two
 * families' rules live in files of their own: the collection functions'
 * (expr_type_coll.c) and ROW values' (expr_type_row.c).
 */
#include "expr_int.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ---- small helpers ------------------------------------------------------ */

int sl__type_is_char(sl_type t)
{
	return t.id == SL_T_CHAR || t.id == SL_T_VARCHAR;
}

const char *sl__type_str(sl_type t, char *buf, size_t cap)
{
	t.notnull = 0;
	return sl_type_format(t, buf, cap);
}

static sl_expr *node_new(sl_arena *a, sl_expr_kind kind, sl_type t)
{
	sl_expr *e = sl_arena_calloc(a, sizeof(*e));
	if (!e)
		return NULL;
	e->kind = kind;
	e->type = t;
	return e;
}

sl_expr *sl_expr_col(sl_arena *a, int col, sl_type type)
{
	sl_expr *e = node_new(a, SL_EX_COL, type);
	if (e)
		e->col = col;
	return e;
}

sl_expr *sl_expr_lit(sl_arena *a, sl_type type, sl_value v)
{
	sl_expr *e = node_new(a, SL_EX_LIT, type);
	if (!e)
		return NULL;
	e->lit = v;
	e->type.notnull = v.is_null ? 0 : 1;
	return e;
}

sl_expr *sl_expr_lit_null(sl_arena *a, sl_type type)
{
	sl_value v;
	memset(&v, 0, sizeof(v));
	v.is_null = 1;
	return sl_expr_lit(a, type, v);
}

sl_expr *sl_expr_lit_i64(sl_arena *a, sl_type type, int64_t x)
{
	sl_value v;
	memset(&v, 0, sizeof(v));
	v.v.i64 = x;
	return sl_expr_lit(a, type, v);
}

sl_expr *sl_expr_lit_str(sl_arena *a, const char *s, int64_t len)
{
	sl_value v;
	memset(&v, 0, sizeof(v));
	char *d = sl_arena_strndup(a, s, (size_t)len);
	if (!d)
		return NULL;
	v.v.str.ptr = d;
	v.v.str.len = len;
	sl_type t = sl_type_make(SL_T_CHAR);
	t.length = len > 0 ? (int32_t)len : 1;
	return sl_expr_lit(a, t, v);
}

static sl_expr *mk_call(sl_arena *a, sl_fn fn, sl_expr **args, int nargs, sl_type t)
{
	sl_expr *e = node_new(a, SL_EX_CALL, t);
	if (!e)
		return NULL;
	e->fn = fn;
	e->nargs = nargs;
	if (nargs > 0) {
		e->args = sl_arena_alloc(a, sizeof(sl_expr *) * (size_t)nargs);
		if (!e->args)
			return NULL;
		memcpy(e->args, args, sizeof(sl_expr *) * (size_t)nargs);
	}
	return e;
}

static int all_notnull(sl_expr **args, int nargs)
{
	for (int i = 0; i < nargs; i++)
		if (!args[i]->type.notnull)
			return 0;
	return 1;
}

static int is_null_type(const sl_expr *e)
{
	return e->type.id == SL_T_NULL;
}

static int bad_args(sl_err *err, sl_fn fn, sl_expr **args, int nargs)
{
	char msg[512], tb[128];
	size_t n = (size_t)snprintf(msg, sizeof(msg), "cannot apply '%s' to ", sl_fn_name(fn));
	for (int i = 0; i < nargs && n < sizeof(msg); i++)
		n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%s%s",
		                      i == 0 ? "" : (i == nargs - 1 ? " and " : ", "),
		                      sl__type_str(args[i]->type, tb, sizeof(tb)));
	if (nargs == 0)
		snprintf(msg + n, sizeof(msg) - n, "no arguments");
	return sl_err_set(err, SL_EPLAN, "%s", msg);
}

/* ---- numeric types ------------------------------------------------------ */

static int num_rank(sl_type t)
{
	switch (t.id) {
	case SL_T_TINYINT: return 1;
	case SL_T_SMALLINT: return 2;
	case SL_T_INT: return 3;
	case SL_T_BIGINT: return 4;
	case SL_T_DECIMAL: return 5;
	case SL_T_FLOAT: return 6;
	case SL_T_DOUBLE: return 7;
	default: return 0;
	}
}

/* An integer type as DECIMAL (TINYINT -> DECIMAL(3, 0), ...). */
static sl_type int_as_dec(sl_type t)
{
	if (t.id == SL_T_DECIMAL)
		return t;
	int p = t.id == SL_T_TINYINT ? 3 : t.id == SL_T_SMALLINT ? 5 : t.id == SL_T_INT ? 10 : 19;
	sl_type d = sl_type_decimal(p, 0);
	d.notnull = t.notnull;
	return d;
}

/* Flink's LogicalTypeMerging.adjustPrecisionScale. */
static sl_type dec_adjust(int p, int s)
{
	if (p <= 38)
		return sl_type_decimal(p < 1 ? 1 : p, s);
	int digits = p - s;
	int minscale = s < 6 ? s : 6;
	int adj = 38 - digits > minscale ? 38 - digits : minscale;
	return sl_type_decimal(38, adj);
}

static int imax(int a, int b) { return a > b ? a : b; }
static int imin(int a, int b) { return a < b ? a : b; }

static sl_type dec_result(sl_fn fn, sl_type a, sl_type b)
{
	int p1 = a.precision, s1 = a.scale, p2 = b.precision, s2 = b.scale;
	switch (fn) {
	case SL_FN_ADD:
	case SL_FN_SUB: {
		int s = imax(s1, s2);
		return dec_adjust(imax(p1 - s1, p2 - s2) + s + 1, s);
	}
	case SL_FN_MUL:
		return dec_adjust(p1 + p2, s1 + s2);
	case SL_FN_DIV: {
		int s = imax(6, s1 + p2 + 1);
		return dec_adjust(p1 - s1 + s2 + s, s);
	}
	default: { /* MOD */
		int s = imax(s1, s2);
		return dec_adjust(imin(p1 - s1, p2 - s2) + s, s);
	}
	}
}

/* Common numeric type of a and b (both numeric). */
static sl_type num_common(sl_type a, sl_type b)
{
	int ra = num_rank(a), rb = num_rank(b);
	if (ra >= 6 || rb >= 6)
		return sl_type_make(ra > rb ? a.id : b.id);
	if (ra == 5 || rb == 5) {
		sl_type x = int_as_dec(a), y = int_as_dec(b);
		int s = imax(x.scale, y.scale);
		int p = imax(x.precision - x.scale, y.precision - y.scale) + s;
		return p > 38 ? sl_type_decimal(38, imax(0, 38 - imax(x.precision - x.scale,
		                                                       y.precision - y.scale)))
		              : sl_type_decimal(p, s);
	}
	return sl_type_make(ra > rb ? a.id : b.id);
}

/* Casts e to t unless physically equal already; NULL-typed literals are
 * re-typed. */
static sl_expr *coerce(sl_arena *a, sl_expr *e, sl_type t, sl_err *err)
{
	if (is_null_type(e))
		return sl_expr_lit_null(a, t);
	if (sl_type_equal(e->type, t))
		return e;
	sl_type tt = t;
	tt.notnull = e->type.notnull;
	return sl_expr_cast(a, e, tt, err);
}

static int collection_of(sl_arena *a, sl_type_id id, sl_type elem, sl_type val, sl_type *out);

/* The least restrictive common type of c and t (neither NULL-typed) into
 * *out; 0 or -1 when none.  Collections of one kind (ARRAY with ARRAY, MAP
 * with MAP) merge element-wise, as Flink finds a common type for
 * ARRAY[ARRAY['a"b', 'c'], ARRAY[NULL, '']] (its element types in arena a);
 * ROW types must be equal. */
static int merge_type(sl_arena *a, sl_type c, sl_type t, sl_type *out)
{
	if (sl_type_is_numeric(c) && sl_type_is_numeric(t)) {
		c = num_common(c, t);
	} else if (sl__type_is_char(c) && sl__type_is_char(t)) {
		if (!(c.id == t.id && c.length == t.length))
			c = sl_type_varchar(imax(c.length, t.length));
	} else if (sl_type_is_binary(c) && sl_type_is_binary(t)) {
		if (!(c.id == t.id && c.length == t.length))
			c = sl_type_make(SL_T_VARBINARY);
	} else if ((sl_type_is_timestamp(c) || c.id == SL_T_DATE) &&
	           (sl_type_is_timestamp(t) || t.id == SL_T_DATE)) {
		int p = imax(c.id == SL_T_DATE ? 0 : c.precision, t.id == SL_T_DATE ? 0 : t.precision);
		if (!(c.id == SL_T_DATE && t.id == SL_T_DATE))
			c = sl_type_timestamp(c.id == SL_T_TIMESTAMP_LTZ || t.id == SL_T_TIMESTAMP_LTZ
			                          ? SL_T_TIMESTAMP_LTZ : SL_T_TIMESTAMP, p);
	} else if (c.id == t.id && sl_type_is_collection(c) && !sl_type_equal(c, t) && a &&
	           c.row && t.row) {
		sl_type e[2];
		for (int i = 0; i < (c.id == SL_T_MAP ? 2 : 1); i++) {
			sl_type x = c.row->fields[i].type, y = t.row->fields[i].type;
			if (x.id == SL_T_NULL || y.id == SL_T_NULL)
				e[i] = x.id == SL_T_NULL ? y : x;
			else if (merge_type(a, x, y, &e[i]))
				return -1;
		}
		if (collection_of(a, c.id, e[0], c.id == SL_T_MAP ? e[1] : e[0], &c))
			return -1;
	} else if (c.id == t.id && ((c.id != SL_T_ROW && !sl_type_is_collection(c)) ||
	                            sl_type_equal(c, t))) {
		if (c.id == SL_T_TIME && t.precision > c.precision)
			c.precision = t.precision;
	} else {
		return -1;
	}
	*out = c;
	return 0;
}

/* Least restrictive common type of n types (merge_type); 0 or -1 when
 * none.  a: where merged collection types live (NULL: collections must be
 * equal). */
static int common_type_in(sl_arena *a, sl_expr **args, int n, int stride, sl_type *out)
{
	sl_type c = sl_type_make(SL_T_NULL);
	int have = 0;
	for (int i = 0; i < n; i += stride) {
		sl_type t = args[i]->type;
		if (t.id == SL_T_NULL)
			continue;
		if (!have) {
			c = t;
			have = 1;
			continue;
		}
		if (merge_type(a, c, t, &c))
			return -1;
		c.notnull = 0;
	}
	*out = c;
	out->notnull = 0;
	return 0;
}

static int common_type(sl_expr **args, int n, int stride, sl_type *out)
{
	return common_type_in(NULL, args, n, stride, out);
}

/* ---- the call constructor, by family ------------------------------------ */

static int is_str_lit(const sl_expr *e)
{
	return e->kind == SL_EX_LIT && sl__type_is_char(e->type);
}

static int temporal(sl_type t)
{
	return t.id == SL_T_DATE || sl_type_is_timestamp(t) || t.id == SL_T_TIME;
}

static sl_expr *type_arith(sl_arena *a, sl_fn fn, sl_expr **args, int nargs, sl_err *err)
{
	sl_expr *x = args[0], *y = nargs > 1 ? args[1] : NULL;
	sl_type rt;
	if (fn == SL_FN_NEG) {
		if (!sl_type_is_numeric(x->type) && x->type.id != SL_T_INTERVAL_DT &&
		    x->type.id != SL_T_INTERVAL_YM)
			goto bad;
		return mk_call(a, fn, args, 1, x->type);
	}
	if (is_null_type(x) && is_null_type(y))
		goto bad;
	if (is_null_type(x))
		x = sl_expr_lit_null(a, y->type);
	if (is_null_type(y))
		y = sl_expr_lit_null(a, x->type);
	sl_type tx = x->type, ty = y->type;
	int ivx = tx.id == SL_T_INTERVAL_DT || tx.id == SL_T_INTERVAL_YM;
	int ivy = ty.id == SL_T_INTERVAL_DT || ty.id == SL_T_INTERVAL_YM;
	if ((fn == SL_FN_ADD || fn == SL_FN_SUB) && temporal(tx) && ivy) {
		rt = tx;
	} else if (fn == SL_FN_ADD && ivx && temporal(ty)) {
		sl_expr *t = x; /* INTERVAL + ts: swap */
		x = y;
		y = t;
		rt = x->type;
	} else if ((fn == SL_FN_ADD || fn == SL_FN_SUB) && ivx && ivy && tx.id == ty.id) {
		rt = tx;
	} else if ((fn == SL_FN_MUL || fn == SL_FN_DIV) && ivx && sl_type_is_integer(ty)) {
		rt = tx;
	} else if (sl_type_is_numeric(tx) && sl_type_is_numeric(ty)) {
		int rx = num_rank(tx), ry = num_rank(ty);
		if (rx >= 6 || ry >= 6) {
			rt = sl_type_make(rx > ry ? tx.id : ty.id);
			if (!(x = coerce(a, x, rt, err)) || !(y = coerce(a, y, rt, err)))
				return NULL;
		} else if (rx == 5 || ry == 5) {
			sl_type dx = int_as_dec(tx), dy = int_as_dec(ty);
			if (!(x = coerce(a, x, dx, err)) || !(y = coerce(a, y, dy, err)))
				return NULL;
			rt = dec_result(fn, dx, dy);
		} else if (fn == SL_FN_MOD) {
			rt = sl_type_make(ty.id);
		} else {
			rt = sl_type_make(rx > ry ? tx.id : ty.id);
		}
	} else {
		goto bad;
	}
	/* division by zero raises rather than yielding NULL: nullability is the inputs' */
	rt.notnull = x->type.notnull && y->type.notnull;
	sl_expr *na[2] = {x, y};
	return mk_call(a, fn, na, 2, rt);
bad:
	bad_args(err, fn, args, nargs);
	return NULL;
}

/* Brings two comparison operands to a comparable pair. */
static int compare_pair(sl_arena *a, sl_expr **x, sl_expr **y, sl_err *err)
{
	sl_type tx = (*x)->type, ty = (*y)->type;
	if (tx.id == SL_T_NULL && ty.id == SL_T_NULL)
		return 0;
	if (tx.id == SL_T_NULL)
		return (*x = sl_expr_lit_null(a, ty)) ? 1 : -1;
	if (ty.id == SL_T_NULL)
		return (*y = sl_expr_lit_null(a, tx)) ? 1 : -1;
	if (sl_type_is_numeric(tx) && sl_type_is_numeric(ty)) {
		int rx = num_rank(tx), ry = num_rank(ty);
		if (rx >= 6 || ry >= 6) {
			sl_type d = sl_type_make(SL_T_DOUBLE);
			*x = coerce(a, *x, d, err);
			*y = coerce(a, *y, d, err);
		} else if (rx == 5 || ry == 5) {
			*x = coerce(a, *x, int_as_dec(tx), err);
			*y = coerce(a, *y, int_as_dec(ty), err);
		}
		return *x && *y ? 1 : -1;
	}
	if (sl__type_is_char(tx) && sl__type_is_char(ty))
		return 1;
	if (sl_type_is_binary(tx) && sl_type_is_binary(ty))
		return 1;
	if (is_str_lit(*x) && !sl__type_is_char(ty) && ty.id != SL_T_ROW)
		return (*x = coerce(a, *x, ty, err)) ? 1 : -1;
	if (is_str_lit(*y) && !sl__type_is_char(tx) && tx.id != SL_T_ROW)
		return (*y = coerce(a, *y, tx, err)) ? 1 : -1;
	if ((tx.id == SL_T_DATE || sl_type_is_timestamp(tx)) &&
	    (ty.id == SL_T_DATE || sl_type_is_timestamp(ty))) {
		if (tx.id == ty.id)
			return 1;
		sl_type c;
		sl_expr *pair[2] = {*x, *y};
		if (common_type(pair, 2, 1, &c))
			return 0;
		*x = coerce(a, *x, c, err);
		*y = coerce(a, *y, c, err);
		return *x && *y ? 1 : -1;
	}
	if (tx.id == ty.id && tx.id != SL_T_ROW)
		return 1;
	return 0;
}

/* Comparisons of ARRAY and MAP values: Flink compares ARRAYs element by
 * element and MAPs entry by entry whatever their order; sluice compares
 * packed bytes (packed.h), which is the same for ARRAYs of the same type
 * whose elements compare by their bytes, so only = and <> (and IS
 * [NOT] DISTINCT FROM) of such ARRAYs are allowed; the rest is refused
 * rather than answered wrongly.  0, or -1 with err set. */
static int collection_compare_ok(sl_fn fn, sl_expr **args, sl_err *err)
{
	sl_type tx = args[0]->type, ty = args[1]->type;
	char b1[128], b2[128];
	if (!sl_type_is_collection(tx) && !sl_type_is_collection(ty))
		return 0;
	sl__type_str(tx, b1, sizeof(b1));
	sl__type_str(ty, b2, sizeof(b2));
	if (tx.id == SL_T_MAP || ty.id == SL_T_MAP)
		return sl_err_set(err, SL_ENOTSUP, "comparing MAP values is not supported ('%s' of %s "
		                  "and %s)", sl_fn_name(fn), b1, b2);
	if (fn != SL_FN_EQ && fn != SL_FN_NE && fn != SL_FN_IS_DISTINCT && fn != SL_FN_IS_NOT_DISTINCT &&
	    fn != SL_FN_IN && fn != SL_FN_NULLIF)
		return sl_err_set(err, SL_EPLAN, "cannot apply '%s' to %s and %s (ARRAY values are "
		                  "only compared with = and <>)", sl_fn_name(fn), b1, b2);
	if (tx.id == SL_T_NULL || ty.id == SL_T_NULL)
		return 0;
	if (!sl_type_equal(tx, ty))
		return sl_err_set(err, SL_EPLAN, "cannot apply '%s' to %s and %s (ARRAYs of different "
		                  "element types)", sl_fn_name(fn), b1, b2);
	if (sl_type_contains(tx, SL_T_DOUBLE) || sl_type_contains(tx, SL_T_FLOAT) ||
	    sl_type_contains(tx, SL_T_MAP))
		return sl_err_set(err, SL_ENOTSUP, "comparing ARRAYs of FLOAT, DOUBLE or MAP elements "
		                  "is not supported ('%s' of %s)", sl_fn_name(fn), b1);
	return 0;
}

static sl_expr *type_compare(sl_arena *a, sl_fn fn, sl_expr **args, sl_err *err)
{
	sl_expr *x = args[0], *y = args[1];
	if (collection_compare_ok(fn, args, err))
		return NULL;
	int r = compare_pair(a, &x, &y, err);
	if (r < 0)
		return NULL;
	if (r == 0 && !(is_null_type(x) && is_null_type(y))) {
		bad_args(err, fn, args, 2);
		return NULL;
	}
	sl_type bt = sl_type_make(SL_T_BOOLEAN);
	if (fn == SL_FN_IS_DISTINCT || fn == SL_FN_IS_NOT_DISTINCT)
		bt.notnull = 1;
	else
		bt.notnull = x->type.notnull && y->type.notnull;
	sl_expr *na[2] = {x, y};
	return mk_call(a, fn, na, 2, bt);
}

static sl_expr *type_logic(sl_arena *a, sl_fn fn, sl_expr **args, int nargs, sl_err *err)
{
	sl_type bt = sl_type_make(SL_T_BOOLEAN);
	sl_expr *na[2];
	for (int i = 0; i < nargs; i++) {
		na[i] = args[i];
		if (is_null_type(args[i]))
			na[i] = sl_expr_lit_null(a, bt);
		else if (args[i]->type.id != SL_T_BOOLEAN && fn != SL_FN_IS_NULL &&
		         fn != SL_FN_IS_NOT_NULL) {
			bad_args(err, fn, args, nargs);
			return NULL;
		}
	}
	if (fn == SL_FN_AND || fn == SL_FN_OR || fn == SL_FN_NOT)
		bt.notnull = all_notnull(na, nargs);
	else
		bt.notnull = 1; /* IS [NOT] NULL/TRUE/FALSE */
	return mk_call(a, fn, na, nargs, bt);
}

static sl_expr *type_in(sl_arena *a, sl_expr **args, int nargs, sl_err *err)
{
	sl_expr **na = sl_arena_alloc(a, sizeof(sl_expr *) * (size_t)nargs);
	if (!na)
		return NULL;
	sl_type c;
	if (common_type(args, nargs, 1, &c)) {
		/* string literals in the list against a non-string x */
		c = args[0]->type;
	}
	for (int i = 0; i < nargs; i++) {
		sl_expr *x = args[0], *y = args[i];
		sl_expr *pair[2] = {x, y};
		if (i > 0 && collection_compare_ok(SL_FN_IN, pair, err))
			return NULL;
		if (i == 0) {
			na[0] = c.id == SL_T_NULL ? x : coerce(a, x, c, err);
		} else {
			int r = compare_pair(a, &x, &y, err);
			if (r <= 0) {
				if (r == 0)
					bad_args(err, SL_FN_IN, args, nargs);
				return NULL;
			}
			na[i] = coerce(a, y, na[0]->type, err);
		}
		if (!na[i])
			return NULL;
	}
	sl_type bt = sl_type_make(SL_T_BOOLEAN);
	bt.notnull = all_notnull(na, nargs);
	return mk_call(a, SL_FN_IN, na, nargs, bt);
}

static sl_expr *type_case(sl_arena *a, sl_expr **args, int nargs, sl_err *err)
{
	int has_else = nargs % 2 == 1;
	sl_expr **na = sl_arena_alloc(a, sizeof(sl_expr *) * (size_t)(nargs + 1));
	if (!na || nargs < 2)
		goto bad;
	/* the value positions: 1, 3, ..., and the else (nargs-1) */
	sl_expr **vals = sl_arena_alloc(a, sizeof(sl_expr *) * (size_t)(nargs + 1));
	int nv = 0;
	if (!vals)
		return NULL;
	for (int i = 1; i < nargs; i += 2)
		vals[nv++] = args[i];
	if (has_else)
		vals[nv++] = args[nargs - 1];
	sl_type c;
	if (common_type(vals, nv, 1, &c))
		goto bad;
	int nn = has_else;
	for (int i = 0; i < nargs; i++) {
		int is_cond = !(has_else && i == nargs - 1) && i % 2 == 0;
		if (is_cond) {
			if (!is_null_type(args[i]) && args[i]->type.id != SL_T_BOOLEAN)
				goto bad;
			na[i] = is_null_type(args[i]) ? sl_expr_lit_null(a, sl_type_make(SL_T_BOOLEAN))
			                              : args[i];
		} else {
			na[i] = c.id == SL_T_NULL ? args[i] : coerce(a, args[i], c, err);
			if (na[i] && !na[i]->type.notnull)
				nn = 0;
		}
		if (!na[i])
			return NULL;
	}
	c.notnull = nn;
	return mk_call(a, SL_FN_CASE, na, nargs, c);
bad:
	bad_args(err, SL_FN_CASE, args, nargs);
	return NULL;
}

static sl_expr *type_coalesce(sl_arena *a, sl_fn fn, sl_expr **args, int nargs, sl_err *err)
{
	sl_type c;
	sl_expr **na = sl_arena_alloc(a, sizeof(sl_expr *) * (size_t)(nargs + 1));
	if (!na)
		return NULL;
	if (common_type(args, nargs, 1, &c)) {
		bad_args(err, fn, args, nargs);
		return NULL;
	}
	int nn = 0;
	for (int i = 0; i < nargs; i++) {
		na[i] = c.id == SL_T_NULL ? args[i] : coerce(a, args[i], c, err);
		if (!na[i])
			return NULL;
		if (na[i]->type.notnull)
			nn = 1;
	}
	if (fn == SL_FN_NULLIF) {
		if (collection_compare_ok(SL_FN_NULLIF, na, err))
			return NULL;
		c = na[0]->type;
		nn = 0;
	}
	if (fn == SL_FN_GREATEST || fn == SL_FN_LEAST) {
		if (c.id == SL_T_ROW || sl_type_is_collection(c)) {
			bad_args(err, fn, args, nargs);
			return NULL;
		}
		nn = all_notnull(na, nargs);
	}
	c.notnull = (uint8_t)nn;
	return mk_call(a, fn, na, nargs, c);
}

/* Argument classes for the table-driven functions. */
enum { A_ANY, A_STR, A_INT, A_NUM, A_TIME, A_STRTIME, A_BOOL, A_STRINT, A_STRBIN, A_BIN };

static int arg_ok(sl_type t, int cls)
{
	switch (cls) {
	case A_STR: return sl__type_is_char(t) || t.id == SL_T_NULL;
	case A_INT: return sl_type_is_integer(t) || t.id == SL_T_NULL;
	case A_NUM: return sl_type_is_numeric(t) || t.id == SL_T_NULL;
	case A_TIME: return temporal(t) || t.id == SL_T_NULL;
	case A_STRTIME: return temporal(t) || sl__type_is_char(t) || t.id == SL_T_NULL;
	case A_BOOL: return t.id == SL_T_BOOLEAN || t.id == SL_T_NULL;
	case A_STRINT: return sl__type_is_char(t) || sl_type_is_integer(t) || t.id == SL_T_NULL;
	case A_STRBIN: return sl__type_is_char(t) || sl_type_is_binary(t) || t.id == SL_T_NULL;
	case A_BIN: return sl_type_is_binary(t) || t.id == SL_T_NULL;
	default: return 1;
	}
}

typedef struct fn_info {
	const char *name;
	int min, max;      /* arity; max -1 = variadic */
	int cls[3];        /* classes of the first three arguments (rest like the last) */
} fn_info;

static const fn_info FN[SL_FN__COUNT] = {
	[SL_FN_ADD] = {"+", 2, 2, {0}}, [SL_FN_SUB] = {"-", 2, 2, {0}},
	[SL_FN_MUL] = {"*", 2, 2, {0}}, [SL_FN_DIV] = {"/", 2, 2, {0}},
	[SL_FN_MOD] = {"MOD", 2, 2, {0}}, [SL_FN_NEG] = {"-", 1, 1, {0}},
	[SL_FN_EQ] = {"=", 2, 2, {0}}, [SL_FN_NE] = {"<>", 2, 2, {0}},
	[SL_FN_LT] = {"<", 2, 2, {0}}, [SL_FN_LE] = {"<=", 2, 2, {0}},
	[SL_FN_GT] = {">", 2, 2, {0}}, [SL_FN_GE] = {">=", 2, 2, {0}},
	[SL_FN_AND] = {"AND", 2, 2, {0}}, [SL_FN_OR] = {"OR", 2, 2, {0}},
	[SL_FN_NOT] = {"NOT", 1, 1, {0}},
	[SL_FN_IS_NULL] = {"IS NULL", 1, 1, {0}}, [SL_FN_IS_NOT_NULL] = {"IS NOT NULL", 1, 1, {0}},
	[SL_FN_IS_TRUE] = {"IS TRUE", 1, 1, {0}}, [SL_FN_IS_FALSE] = {"IS FALSE", 1, 1, {0}},
	[SL_FN_IS_NOT_TRUE] = {"IS NOT TRUE", 1, 1, {0}},
	[SL_FN_IS_NOT_FALSE] = {"IS NOT FALSE", 1, 1, {0}},
	[SL_FN_IS_DISTINCT] = {"IS DISTINCT FROM", 2, 2, {0}},
	[SL_FN_IS_NOT_DISTINCT] = {"IS NOT DISTINCT FROM", 2, 2, {0}},
	[SL_FN_IN] = {"IN", 2, -1, {0}},
	[SL_FN_LIKE] = {"LIKE", 2, 3, {A_STR, A_STR, A_STR}},
	[SL_FN_SIMILAR] = {"SIMILAR TO", 2, 2, {A_STR, A_STR, A_STR}},
	[SL_FN_CASE] = {"CASE", 2, -1, {0}},
	[SL_FN_CAST] = {"CAST", 1, 1, {0}}, [SL_FN_TRY_CAST] = {"TRY_CAST", 1, 1, {0}},
	[SL_FN_COALESCE] = {"COALESCE", 1, -1, {0}}, [SL_FN_NULLIF] = {"NULLIF", 2, 2, {0}},
	[SL_FN_CONCAT] = {"CONCAT", 1, -1, {A_STR, A_STR, A_STR}},
	[SL_FN_CONCAT_WS] = {"CONCAT_WS", 1, -1, {A_STR, A_STR, A_STR}},
	[SL_FN_UPPER] = {"UPPER", 1, 1, {A_STR}}, [SL_FN_LOWER] = {"LOWER", 1, 1, {A_STR}},
	[SL_FN_SUBSTRING] = {"SUBSTRING", 2, 3, {A_STR, A_INT, A_INT}},
	[SL_FN_CHAR_LENGTH] = {"CHAR_LENGTH", 1, 1, {A_STR}},
	[SL_FN_TRIM_BOTH] = {"TRIM", 1, 2, {A_STR, A_STR}},
	[SL_FN_TRIM_LEADING] = {"LTRIM", 1, 2, {A_STR, A_STR}},
	[SL_FN_TRIM_TRAILING] = {"RTRIM", 1, 2, {A_STR, A_STR}},
	[SL_FN_REPLACE] = {"REPLACE", 3, 3, {A_STR, A_STR, A_STR}},
	[SL_FN_POSITION] = {"POSITION", 2, 2, {A_STR, A_STR}},
	[SL_FN_REGEXP_EXTRACT] = {"REGEXP_EXTRACT", 2, 3, {A_STR, A_STR, A_INT}},
	[SL_FN_REGEXP] = {"REGEXP", 2, 2, {A_STR, A_STR}},
	[SL_FN_REGEXP_REPLACE] = {"REGEXP_REPLACE", 3, 3, {A_STR, A_STR, A_STR}},
	[SL_FN_SPLIT_INDEX] = {"SPLIT_INDEX", 3, 3, {A_STR, A_STR, A_INT}},
	[SL_FN_LPAD] = {"LPAD", 3, 3, {A_STR, A_INT, A_STR}},
	[SL_FN_RPAD] = {"RPAD", 3, 3, {A_STR, A_INT, A_STR}},
	[SL_FN_MD5] = {"MD5", 1, 1, {A_STR}},
	[SL_FN_ABS] = {"ABS", 1, 1, {A_NUM}}, [SL_FN_ROUND] = {"ROUND", 1, 2, {A_NUM, A_INT}},
	[SL_FN_FLOOR] = {"FLOOR", 1, 1, {A_NUM}}, [SL_FN_CEIL] = {"CEIL", 1, 1, {A_NUM}},
	[SL_FN_POWER] = {"POWER", 2, 2, {A_NUM, A_NUM}}, [SL_FN_SQRT] = {"SQRT", 1, 1, {A_NUM}},
	[SL_FN_LN] = {"LN", 1, 1, {A_NUM}}, [SL_FN_LOG10] = {"LOG10", 1, 1, {A_NUM}},
	[SL_FN_EXP] = {"EXP", 1, 1, {A_NUM}},
	[SL_FN_EXTRACT] = {"EXTRACT", 2, 2, {A_INT, A_ANY}},
	[SL_FN_FLOOR_TIME] = {"FLOOR", 2, 2, {A_TIME, A_INT}},
	[SL_FN_CEIL_TIME] = {"CEIL", 2, 2, {A_TIME, A_INT}},
	[SL_FN_DATE_TRUNC] = {"DATE_TRUNC", 2, 2, {A_STR, A_TIME}},
	[SL_FN_DATE_FORMAT] = {"DATE_FORMAT", 2, 2, {A_STRTIME, A_STR}},
	[SL_FN_TO_TIMESTAMP] = {"TO_TIMESTAMP", 1, 2, {A_STR, A_STR}},
	[SL_FN_TO_TIMESTAMP_LTZ] = {"TO_TIMESTAMP_LTZ", 1, 2, {A_NUM, A_INT}},
	[SL_FN_TO_DATE] = {"TO_DATE", 1, 2, {A_STR, A_STR}},
	[SL_FN_UNIX_TIMESTAMP] = {"UNIX_TIMESTAMP", 0, 2, {A_STR, A_STR}},
	[SL_FN_CURRENT_WATERMARK] = {"CURRENT_WATERMARK", 1, 1, {A_TIME}},
	[SL_FN_PROCTIME] = {"PROCTIME", 0, 0, {0}},
	[SL_FN_CURRENT_TIMESTAMP] = {"CURRENT_TIMESTAMP", 0, 0, {0}},
	[SL_FN_TIMESTAMPADD] = {"TIMESTAMPADD", 3, 3, {A_INT, A_INT, A_TIME}},
	[SL_FN_TIMESTAMPDIFF] = {"TIMESTAMPDIFF", 3, 3, {A_INT, A_TIME, A_TIME}},
	[SL_FN_CONVERT_TZ] = {"CONVERT_TZ", 3, 3, {A_STR, A_STR, A_STR}},
	[SL_FN_FROM_UNIXTIME] = {"FROM_UNIXTIME", 1, 2, {A_NUM, A_STR}},
	[SL_FN_FIELD] = {"FIELD", 1, 1, {0}},
	/* issue 8: more built-in functions (typed by type_morefn and type_json_*) */
	[SL_FN_GREATEST] = {"GREATEST", 1, -1, {0}}, [SL_FN_LEAST] = {"LEAST", 1, -1, {0}},
	[SL_FN_REPEAT] = {"REPEAT", 2, 2, {A_STR, A_INT}},
	[SL_FN_REVERSE] = {"REVERSE", 1, 1, {A_STR}}, [SL_FN_INITCAP] = {"INITCAP", 1, 1, {A_STR}},
	[SL_FN_ASCII] = {"ASCII", 1, 1, {A_STR}}, [SL_FN_CHR] = {"CHR", 1, 1, {A_INT}},
	[SL_FN_LEFT] = {"LEFT", 2, 2, {A_STR, A_INT}}, [SL_FN_RIGHT] = {"RIGHT", 2, 2, {A_STR, A_INT}},
	[SL_FN_INSTR] = {"INSTR", 2, 2, {A_STR, A_STR}},
	[SL_FN_LOCATE] = {"LOCATE", 2, 3, {A_STR, A_STR, A_INT}},
	[SL_FN_OVERLAY] = {"OVERLAY", 3, 4, {A_STR, A_STR, A_INT}},
	[SL_FN_PARSE_URL] = {"PARSE_URL", 2, 3, {A_STR, A_STR, A_STR}},
	[SL_FN_HEX] = {"HEX", 1, 1, {A_STRINT}}, [SL_FN_BIN] = {"BIN", 1, 1, {A_INT}},
	[SL_FN_TO_BASE64] = {"TO_BASE64", 1, 1, {A_STRBIN}},
	[SL_FN_FROM_BASE64] = {"FROM_BASE64", 1, 1, {A_STR}},
	[SL_FN_IS_ALPHA] = {"IS_ALPHA", 1, 1, {A_STR}}, [SL_FN_IS_DECIMAL] = {"IS_DECIMAL", 1, 1, {A_STR}},
	[SL_FN_IS_DIGIT] = {"IS_DIGIT", 1, 1, {A_STR}},
	[SL_FN_LOG] = {"LOG", 1, 2, {A_NUM, A_NUM}}, [SL_FN_LOG2] = {"LOG2", 1, 1, {A_NUM}},
	[SL_FN_SIN] = {"SIN", 1, 1, {A_NUM}}, [SL_FN_SINH] = {"SINH", 1, 1, {A_NUM}},
	[SL_FN_COS] = {"COS", 1, 1, {A_NUM}}, [SL_FN_COSH] = {"COSH", 1, 1, {A_NUM}},
	[SL_FN_TAN] = {"TAN", 1, 1, {A_NUM}}, [SL_FN_TANH] = {"TANH", 1, 1, {A_NUM}},
	[SL_FN_COT] = {"COT", 1, 1, {A_NUM}}, [SL_FN_ASIN] = {"ASIN", 1, 1, {A_NUM}},
	[SL_FN_ACOS] = {"ACOS", 1, 1, {A_NUM}}, [SL_FN_ATAN] = {"ATAN", 1, 1, {A_NUM}},
	[SL_FN_ATAN2] = {"ATAN2", 2, 2, {A_NUM, A_NUM}},
	[SL_FN_DEGREES] = {"DEGREES", 1, 1, {A_NUM}}, [SL_FN_RADIANS] = {"RADIANS", 1, 1, {A_NUM}},
	[SL_FN_SIGN] = {"SIGN", 1, 1, {A_NUM}}, [SL_FN_PI] = {"PI", 0, 0, {0}},
	[SL_FN_E] = {"E", 0, 0, {0}}, [SL_FN_TRUNCATE] = {"TRUNCATE", 1, 2, {A_NUM, A_INT}},
	[SL_FN_SHA1] = {"SHA1", 1, 1, {A_STR}}, [SL_FN_SHA224] = {"SHA224", 1, 1, {A_STR}},
	[SL_FN_SHA256] = {"SHA256", 1, 1, {A_STR}}, [SL_FN_SHA384] = {"SHA384", 1, 1, {A_STR}},
	[SL_FN_SHA512] = {"SHA512", 1, 1, {A_STR}}, [SL_FN_SHA2] = {"SHA2", 2, 2, {A_STR, A_INT}},
	[SL_FN_RAND] = {"RAND", 0, 1, {A_INT}},
	[SL_FN_RAND_INTEGER] = {"RAND_INTEGER", 1, 2, {A_INT, A_INT}},
	[SL_FN_UUID] = {"UUID", 0, 0, {0}},
	[SL_FN_IS_JSON] = {"IS JSON", 2, 2, {A_STR, A_INT}},
	[SL_FN_JSON_EXISTS] = {"JSON_EXISTS", 3, 3, {A_STR, A_STR, A_INT}},
	[SL_FN_JSON_VALUE] = {"JSON_VALUE", 6, 6, {A_STR, A_STR, A_ANY}},
	[SL_FN_JSON_QUERY] = {"JSON_QUERY", 5, 5, {A_STR, A_STR, A_INT}},
	[SL_FN_JSON_OBJECT] = {"JSON_OBJECT", 1, -1, {A_INT, A_ANY, A_ANY}},
	[SL_FN_JSON_ARRAY] = {"JSON_ARRAY", 1, -1, {A_INT, A_ANY, A_ANY}},
	[SL_FN_JSON_STRING] = {"JSON_STRING", 1, 1, {A_ANY}},
	[SL_FN_JSON_AGG] = {"$JSON_AGG", 2, 2, {A_STR, A_INT}},
	[SL_FN_SPLIT] = {"SPLIT", 2, 2, {A_STR, A_STR}},
	[SL_FN_ROW] = {"ROW", 1, -1, {0}},
	[SL_FN_STR_TO_MAP] = {"STR_TO_MAP", 1, 3, {A_STR, A_STR, A_STR}},
	[SL_FN_ENCODE] = {"ENCODE", 2, 2, {A_STR, A_STR}},
	[SL_FN_DECODE] = {"DECODE", 2, 2, {A_BIN, A_STR}},
	[SL_FN_ARRAY] = {"ARRAY", 1, -1, {0}}, [SL_FN_MAP] = {"MAP", 2, -1, {0}},
	[SL_FN_ITEM] = {"ITEM", 2, 2, {0}}, [SL_FN_CARDINALITY] = {"CARDINALITY", 1, 1, {0}},
	[SL_FN_ELEMENT] = {"ELEMENT", 1, 1, {0}},
	[SL_FN_ARRAY_CONTAINS] = {"ARRAY_CONTAINS", 2, 2, {0}},
	[SL_FN_ARRAY_POSITION] = {"ARRAY_POSITION", 2, 2, {0}},
	[SL_FN_ARRAY_REMOVE] = {"ARRAY_REMOVE", 2, 2, {0}},
	[SL_FN_ARRAY_DISTINCT] = {"ARRAY_DISTINCT", 1, 1, {0}},
	[SL_FN_ARRAY_REVERSE] = {"ARRAY_REVERSE", 1, 1, {0}},
	[SL_FN_ARRAY_SLICE] = {"ARRAY_SLICE", 2, 3, {0}},
	[SL_FN_ARRAY_UNION] = {"ARRAY_UNION", 2, 2, {0}},
	[SL_FN_ARRAY_EXCEPT] = {"ARRAY_EXCEPT", 2, 2, {0}},
	[SL_FN_ARRAY_INTERSECT] = {"ARRAY_INTERSECT", 2, 2, {0}},
	[SL_FN_ARRAY_CONCAT] = {"ARRAY_CONCAT", 1, -1, {0}},
	[SL_FN_ARRAY_APPEND] = {"ARRAY_APPEND", 2, 2, {0}},
	[SL_FN_ARRAY_PREPEND] = {"ARRAY_PREPEND", 2, 2, {0}},
	[SL_FN_ARRAY_MAX] = {"ARRAY_MAX", 1, 1, {0}}, [SL_FN_ARRAY_MIN] = {"ARRAY_MIN", 1, 1, {0}},
	[SL_FN_ARRAY_SORT] = {"ARRAY_SORT", 1, 3, {0}},
	[SL_FN_ARRAY_JOIN] = {"ARRAY_JOIN", 2, 3, {0}},
	[SL_FN_MAP_KEYS] = {"MAP_KEYS", 1, 1, {0}}, [SL_FN_MAP_VALUES] = {"MAP_VALUES", 1, 1, {0}},
	[SL_FN_MAP_ENTRIES] = {"MAP_ENTRIES", 1, 1, {0}},
	[SL_FN_MAP_FROM_ARRAYS] = {"MAP_FROM_ARRAYS", 2, 2, {0}},
	[SL_FN_MAP_UNION] = {"MAP_UNION", 1, -1, {0}},
	[SL_FN_UDF] = {"UDF", 0, 16, {0}},
};

const char *sl_fn_name(sl_fn fn)
{
	if ((int)fn < 0 || fn >= SL_FN__COUNT || !FN[fn].name)
		return "?";
	return FN[fn].name;
}

static int check_table_args(sl_fn fn, sl_expr **args, int nargs, sl_err *err)
{
	const fn_info *fi = &FN[fn];
	if (nargs < fi->min || (fi->max >= 0 && nargs > fi->max)) {
		if (fi->max < 0)
			return sl_err_set(err, SL_EPLAN, "'%s' takes at least %d argument%s, got %d",
			                  fi->name, fi->min, fi->min == 1 ? "" : "s", nargs);
		if (fi->max != fi->min)
			return sl_err_set(err, SL_EPLAN, "'%s' takes %d to %d arguments, got %d", fi->name,
			                  fi->min, fi->max, nargs);
		return sl_err_set(err, SL_EPLAN, "'%s' takes %d argument%s, got %d", fi->name, fi->min,
		                  fi->min == 1 ? "" : "s", nargs);
	}
	for (int i = 0; i < nargs; i++)
		if (!arg_ok(args[i]->type, fi->cls[i < 3 ? i : 2]))
			return bad_args(err, fn, args, nargs);
	return 0;
}

static sl_type bytes_type(void)
{
	sl_type t = sl_type_make(SL_T_VARBINARY);
	t.length = SL_STRING_LEN;
	return t;
}

static sl_type str_type(int notnull)
{
	sl_type t = sl_type_varchar(SL_STRING_LEN);
	t.notnull = (uint8_t)notnull;
	return t;
}

static sl_type with_nn(sl_type t, int nn)
{
	t.notnull = (uint8_t)(nn ? 1 : 0);
	return t;
}

/* Result type of ROUND / FLOOR / CEIL on a DECIMAL (Flink's findRoundDecimalType). */
static sl_type round_dec(sl_type t, int r)
{
	int p = t.precision, s = t.scale;
	if (r >= s)
		return sl_type_decimal(p, s);
	if (r < 0)
		return sl_type_decimal(imin(38, 1 + p - s), 0);
	return sl_type_decimal(imin(38, 1 + p - s + r), r);
}

static int lit_int(const sl_expr *e, int64_t *v)
{
	/* `-1` is NEG(1) */
	if (e->kind == SL_EX_CALL && e->fn == SL_FN_NEG && e->nargs == 1 && lit_int(e->args[0], v)) {
		*v = -*v;
		return 1;
	}
	if (e->kind != SL_EX_LIT || e->lit.is_null || !sl_type_is_integer(e->type))
		return 0;
	*v = e->lit.v.i64;
	return 1;
}

static int type_numfn(sl_fn fn, sl_expr **args, int nargs, sl_type *rt, sl_err *err)
{
	sl_type t = args[0]->type;
	int nn = all_notnull(args, nargs);
	if (t.id == SL_T_NULL)
		t = sl_type_make(SL_T_DOUBLE);
	switch (fn) {
	case SL_FN_ABS:
		*rt = t;
		break;
	case SL_FN_ROUND: {
		int64_t d = 0;
		if (nargs == 2 && !lit_int(args[1], &d) && t.id == SL_T_DECIMAL)
			return sl_err_set(err, SL_EPLAN, "ROUND of a DECIMAL needs a literal digit count");
		*rt = t.id == SL_T_DECIMAL ? round_dec(t, (int)d) : t;
		break;
	}
	case SL_FN_FLOOR:
	case SL_FN_CEIL:
		*rt = t.id == SL_T_DECIMAL ? round_dec(t, 0) : t;
		break;
	default:
		*rt = sl_type_make(SL_T_DOUBLE);
		break;
	}
	*rt = with_nn(*rt, nn);
	return 0;
}

static int type_timefn(sl_fn fn, sl_expr **args, int nargs, sl_type *rt, sl_err *err)
{
	int nn = all_notnull(args, nargs);
	sl_type ts3 = sl_type_timestamp(SL_T_TIMESTAMP, 3);
	sl_type ltz3 = sl_type_timestamp(SL_T_TIMESTAMP_LTZ, 3);
	switch (fn) {
	case SL_FN_EXTRACT: {
		sl_type x = args[1]->type;
		if (!temporal(x) && x.id != SL_T_INTERVAL_DT && x.id != SL_T_INTERVAL_YM &&
		    x.id != SL_T_NULL)
			return bad_args(err, fn, args, nargs);
		*rt = with_nn(sl_type_make(SL_T_BIGINT), nn);
		return 0;
	}
	case SL_FN_FLOOR_TIME: case SL_FN_CEIL_TIME:
		*rt = with_nn(args[0]->type, nn);
		return 0;
	case SL_FN_DATE_TRUNC:
		*rt = with_nn(args[1]->type, nn);
		return 0;
	case SL_FN_DATE_FORMAT: *rt = str_type(0); return 0;
	case SL_FN_TO_TIMESTAMP: *rt = ts3; return 0;
	case SL_FN_TO_TIMESTAMP_LTZ: *rt = with_nn(ltz3, nn); return 0;
	case SL_FN_TO_DATE: *rt = sl_type_make(SL_T_DATE); return 0;
	case SL_FN_UNIX_TIMESTAMP:
		*rt = with_nn(sl_type_make(SL_T_BIGINT), nargs == 0);
		return 0;
	case SL_FN_CURRENT_WATERMARK: *rt = with_nn(args[0]->type, 0); return 0;
	case SL_FN_PROCTIME: case SL_FN_CURRENT_TIMESTAMP: *rt = with_nn(ltz3, 1); return 0;
	case SL_FN_TIMESTAMPADD: *rt = with_nn(args[2]->type, nn); return 0;
	case SL_FN_TIMESTAMPDIFF: *rt = with_nn(sl_type_make(SL_T_INT), nn); return 0;
	case SL_FN_CONVERT_TZ: case SL_FN_FROM_UNIXTIME: *rt = str_type(0); return 0;
	default: return SL_ENOTSUP;
	}
}

static int type_strfn(sl_fn fn, sl_expr **args, int nargs, sl_type *rt)
{
	int nn = all_notnull(args, nargs);
	switch (fn) {
	case SL_FN_SUBSTRING: /* a negative length gives NULL */
		*rt = str_type(nn && (nargs < 3 || (args[2]->kind == SL_EX_LIT && args[2]->lit.v.i64 >= 0)));
		return 0;
	case SL_FN_CONCAT: case SL_FN_TRIM_BOTH:
	case SL_FN_TRIM_LEADING: case SL_FN_TRIM_TRAILING: case SL_FN_REPLACE:
		*rt = str_type(nn);
		return 0;
	case SL_FN_CONCAT_WS: *rt = str_type(args[0]->type.notnull); return 0;
	case SL_FN_UPPER: case SL_FN_LOWER:
		*rt = args[0]->type.id == SL_T_NULL ? str_type(0) : args[0]->type;
		return 0;
	case SL_FN_CHAR_LENGTH: case SL_FN_POSITION:
		*rt = with_nn(sl_type_make(SL_T_INT), nn);
		return 0;
	case SL_FN_REGEXP: *rt = sl_type_make(SL_T_BOOLEAN); return 0;
	case SL_FN_LIKE: case SL_FN_SIMILAR:
		*rt = with_nn(sl_type_make(SL_T_BOOLEAN), nn);
		return 0;
	case SL_FN_MD5: {
		sl_type t = sl_type_make(SL_T_CHAR);
		t.length = 32;
		*rt = with_nn(t, nn);
		return 0;
	}
	case SL_FN_REGEXP_EXTRACT: case SL_FN_REGEXP_REPLACE: case SL_FN_SPLIT_INDEX:
	case SL_FN_LPAD: case SL_FN_RPAD:
		*rt = str_type(0);
		return 0;
	default: return SL_ENOTSUP;
	}
}

/* Result types of issue 8's table-driven functions. */
static int type_morefn(sl_fn fn, sl_expr **args, int nargs, sl_type *rt, sl_err *err)
{
	int nn = all_notnull(args, nargs);
	switch (fn) {
	case SL_FN_REPEAT: case SL_FN_REVERSE: case SL_FN_INITCAP: case SL_FN_LEFT:
	case SL_FN_RIGHT: case SL_FN_OVERLAY: case SL_FN_TO_BASE64:
	case SL_FN_HEX: case SL_FN_BIN: case SL_FN_CHR: case SL_FN_FROM_BASE64:
	case SL_FN_JSON_QUERY:
		*rt = str_type(fn == SL_FN_JSON_QUERY ? 0 : nn);
		return 0;
	case SL_FN_PARSE_URL:
		*rt = str_type(0);
		return 0;
	case SL_FN_JSON_AGG:
		*rt = str_type(1); /* no items: [] or {} */
		return 0;
	case SL_FN_ASCII: case SL_FN_INSTR: case SL_FN_LOCATE:
		*rt = with_nn(sl_type_make(SL_T_INT), nn);
		return 0;
	case SL_FN_IS_JSON: case SL_FN_IS_ALPHA: case SL_FN_IS_DECIMAL: case SL_FN_IS_DIGIT:
		*rt = with_nn(sl_type_make(SL_T_BOOLEAN), 1); /* NULL gives FALSE */
		return 0;
	case SL_FN_JSON_EXISTS:
		*rt = sl_type_make(SL_T_BOOLEAN); /* UNKNOWN ON ERROR gives NULL */
		return 0;
	case SL_FN_SIGN:
		*rt = with_nn(args[0]->type.id == SL_T_NULL ? sl_type_make(SL_T_DOUBLE) : args[0]->type, nn);
		return 0;
	case SL_FN_TRUNCATE:
		return type_numfn(SL_FN_ROUND, args, nargs, rt, err);
	case SL_FN_SHA1: case SL_FN_SHA224: case SL_FN_SHA256: case SL_FN_SHA384:
	case SL_FN_SHA512: {
		static const int hexlen[] = {40, 56, 64, 96, 128};
		sl_type t = sl_type_make(SL_T_CHAR);
		t.length = hexlen[fn - SL_FN_SHA1];
		*rt = with_nn(t, nn);
		return 0;
	}
	case SL_FN_SHA2:
		*rt = str_type(0);
		return 0;
	case SL_FN_RAND:
		*rt = with_nn(sl_type_make(SL_T_DOUBLE), 1);
		return 0;
	case SL_FN_RAND_INTEGER:
		*rt = with_nn(sl_type_make(SL_T_INT), args[nargs - 1]->type.notnull);
		return 0;
	case SL_FN_UUID:
		*rt = str_type(1);
		return 0;
	default:
		if (fn >= SL_FN_LOG && fn <= SL_FN_E) {
			*rt = with_nn(sl_type_make(SL_T_DOUBLE), nn);
			return 0;
		}
		return SL_ENOTSUP;
	}
}

static int castable(sl_type f, sl_type t);

/* JSON_VALUE(s, path, on-empty, empty-default, on-error, error-default)
 * RETURNING *target (STRING when NULL): the defaults are brought to the
 * result type; a BOOLEAN default of a STRING result reads 'true'/'false'
 * as Flink's JSON_VALUE returns it. */
static sl_expr *type_json_value(sl_arena *a, sl_expr **args, const sl_type *target, sl_err *err)
{
	sl_type rt = target ? *target : str_type(0);
	rt.notnull = 0;
	if (!(sl__type_is_char(rt) || rt.id == SL_T_BOOLEAN || sl_type_is_numeric(rt))) {
		char b[64];
		sl_err_set(err, SL_ENOTSUP, "JSON_VALUE ... RETURNING %s is not supported",
		           sl__type_str(rt, b, sizeof(b)));
		return NULL;
	}
	sl_expr *na[6];
	for (int i = 0; i < 6; i++)
		na[i] = args[i];
	for (int i = 0; i < 2; i++) {
		if (!arg_ok(na[i]->type, A_STR))
			goto bad;
		if (is_null_type(na[i]) && !(na[i] = sl_expr_lit_null(a, str_type(0))))
			return NULL;
	}
	for (int i = 3; i < 6; i += 2) {
		sl_expr *d = na[i];
		if (is_null_type(d)) {
			na[i] = sl_expr_lit_null(a, rt);
		} else if (d->type.id == SL_T_BOOLEAN && sl__type_is_char(rt)) {
			sl_expr *t = sl_expr_lit_str(a, "true", 4), *f = sl_expr_lit_str(a, "false", 5);
			sl_expr *nd = t && f ? sl_expr_call(a, SL_FN_NOT, &d, 1, NULL, 0, err) : NULL;
			sl_expr *cs[4] = {d, t, nd, f};
			na[i] = nd ? sl_expr_call(a, SL_FN_CASE, cs, 4, NULL, 0, err) : NULL;
			if (na[i])
				na[i] = coerce(a, na[i], rt, err);
		} else if (!castable(d->type, rt)) {
			goto bad;
		} else {
			na[i] = coerce(a, d, rt, err);
		}
		if (!na[i])
			return NULL;
	}
	return mk_call(a, SL_FN_JSON_VALUE, na, 6, rt);
bad:
	bad_args(err, SL_FN_JSON_VALUE, args, 6);
	return NULL;
}

/* A value JSON_OBJECT / JSON_ARRAY (ctor = 1) / JSON_STRING can write: the
 * constructors also take TIMESTAMP, TIMESTAMP_LTZ (ISO-8601 text) and
 * BINARY / BYTES (base64), as Flink's JsonGenerateUtils writes them. */
static int json_writable(sl_type t, int ctor)
{
	if (ctor && (t.id == SL_T_TIMESTAMP || t.id == SL_T_TIMESTAMP_LTZ || t.id == SL_T_BINARY ||
	             t.id == SL_T_VARBINARY))
		return 1;
	return t.id == SL_T_NULL || sl__type_is_char(t) || sl_type_is_numeric(t) ||
	       t.id == SL_T_BOOLEAN;
}

/* JSON_OBJECT(on-null, k1, v1, ...) -> (on-null, k1, v1, raw1, ...);
 * JSON_ARRAY(on-null, v1, ...) -> (on-null, v1, raw1, ...); raw is 1 when
 * the value is itself built by JSON_OBJECT / JSON_ARRAY (inserted as JSON,
 * not as a string, as Flink does). */
static sl_expr *type_json_ctor(sl_arena *a, sl_fn fn, sl_expr **args, int nargs, sl_err *err)
{
	int obj = fn == SL_FN_JSON_OBJECT, first = fn == SL_FN_JSON_STRING ? 0 : 1;
	int per = obj ? 2 : 1;
	if (fn != SL_FN_JSON_STRING && (nargs - 1) % per) {
		sl_err_set(err, SL_EPLAN, "JSON_OBJECT takes KEY k VALUE v pairs");
		return NULL;
	}
	int nv = (nargs - first) / per;
	int total = fn == SL_FN_JSON_STRING ? 1 : first + nv * (per + 1);
	sl_expr **na = sl_arena_alloc(a, sizeof(sl_expr *) * (size_t)(total + 1));
	if (!na)
		return NULL;
	if (first)
		na[0] = args[0];
	for (int k = 0; k < nv; k++) {
		sl_expr *key = obj ? args[first + 2 * k] : NULL, *v = args[first + per * k + per - 1];
		char b[64];
		if (key && !sl__type_is_char(key->type)) {
			sl_err_set(err, SL_EPLAN, "JSON_OBJECT keys must be strings, got %s",
			           sl__type_str(key->type, b, sizeof(b)));
			return NULL;
		}
		if (!json_writable(v->type, fn != SL_FN_JSON_STRING)) {
			sl_err_set(err, SL_ENOTSUP, "%s of a %s value is not supported", sl_fn_name(fn),
			           sl__type_str(v->type, b, sizeof(b)));
			return NULL;
		}
		if (is_null_type(v) && !(v = sl_expr_lit_null(a, str_type(0))))
			return NULL;
		if (fn == SL_FN_JSON_STRING) {
			na[0] = v;
			break;
		}
		int raw = v->kind == SL_EX_CALL && (v->fn == SL_FN_JSON_OBJECT || v->fn == SL_FN_JSON_ARRAY);
		int o = first + k * (per + 1);
		if (key)
			na[o++] = key;
		na[o++] = v;
		if (!(na[o] = sl_expr_lit_i64(a, sl_type_make(SL_T_INT), raw)))
			return NULL;
	}
	return mk_call(a, fn, na, total, str_type(fn == SL_FN_JSON_STRING ? na[0]->type.notnull : 1));
}

/* 1 when CAST(from AS to) is allowed. */
static int castable(sl_type f, sl_type t)
{
	/* ROW to ROW: the fields renamed (CAST(ROW(a, b) AS ROW<x INT, y
	 * STRING>), as Flink), each only widened (sl_type_same_bytes): the
	 * value is copied as it is (fn_cast.c) */
	if (f.id == SL_T_ROW && t.id == SL_T_ROW && f.row && t.row) {
		if (f.row->nfields != t.row->nfields)
			return 0;
		for (int i = 0; i < f.row->nfields; i++) {
			sl_type a = f.row->fields[i].type, b = t.row->fields[i].type;
			a.notnull = b.notnull = 0;
			if (!sl_type_same_bytes(a, b) && !(a.id == SL_T_ROW && castable(a, b)))
				return 0;
		}
		return 1;
	}
	if (f.id == SL_T_NULL || f.id == t.id)
		return (f.id != SL_T_ROW && !sl_type_is_collection(f)) || f.id == SL_T_NULL ||
		       sl_type_equal(f, t) || (sl_type_is_collection(f) && sl_type_same_bytes(f, t));
	if ((sl_type_is_collection(f) || f.id == SL_T_ROW) && sl__type_is_char(t))
		return 1; /* "[1, 2]", "{a=1}", "(1, NULL)" (valtext.c) */
	if (f.id == SL_T_ROW || t.id == SL_T_ROW || t.id == SL_T_NULL || sl_type_is_collection(f) ||
	    sl_type_is_collection(t))
		return 0;
	if (sl__type_is_char(f) || sl__type_is_char(t))
		return 1;
	int fn = sl_type_is_numeric(f) || f.id == SL_T_BOOLEAN;
	int tn = sl_type_is_numeric(t) || t.id == SL_T_BOOLEAN;
	if (fn && tn)
		return 1;
	if (sl_type_is_binary(f) && sl_type_is_binary(t))
		return 1;
	if (temporal(f) && temporal(t))
		return !(f.id == SL_T_DATE && t.id == SL_T_TIME) && !(f.id == SL_T_TIME && t.id != SL_T_TIME);
	if ((f.id == SL_T_BIGINT || f.id == SL_T_INT) && t.id == SL_T_TIMESTAMP_LTZ)
		return 1;
	if (sl_type_is_timestamp(f) && sl_type_is_integer(t))
		return 1;
	return 0;
}

static sl_expr *type_cast(sl_arena *a, sl_fn fn, sl_expr *x, const sl_type *target, sl_err *err)
{
	if (!target) {
		sl_err_set(err, SL_EPLAN, "%s without a target type", sl_fn_name(fn));
		return NULL;
	}
	if (!castable(x->type, *target)) {
		char b1[128], b2[128];
		sl_err_set(err, SL_EPLAN, "cannot cast %s to %s", sl__type_str(x->type, b1, sizeof(b1)),
		           sl__type_str(*target, b2, sizeof(b2)));
		return NULL;
	}
	sl_type rt = *target;
	rt.notnull = fn == SL_FN_CAST ? x->type.notnull : 0;
	if (is_null_type(x) && rt.id == SL_T_ROW) /* a ROW register has no storage of its
	                                           * own to hold a computed NULL: the
	                                           * literal instead (CAST(NULL AS ROW<..>)
	                                           * crashed) */
		return sl_expr_lit_null(a, rt);
	return mk_call(a, fn, &x, 1, rt);
}

static sl_expr *type_field(sl_arena *a, sl_expr *x, int field, sl_err *err)
{
	if (x->type.id != SL_T_ROW || !x->type.row || field < 0 || field >= x->type.row->nfields) {
		char b[128];
		sl_err_set(err, SL_EPLAN, "cannot access field %d of %s", field,
		           sl__type_str(x->type, b, sizeof(b)));
		return NULL;
	}
	sl_type rt = x->type.row->fields[field].type;
	rt.notnull = rt.notnull && x->type.notnull;
	sl_expr *e = mk_call(a, SL_FN_FIELD, &x, 1, rt);
	if (e)
		e->field = field;
	return e;
}

/* Table-driven functions: check classes, coerce NULL-typed args to the
 * class's natural type, compute the result type. */
static sl_expr *type_generic(sl_arena *a, sl_fn fn, sl_expr **args, int nargs, sl_err *err)
{
	if (check_table_args(fn, args, nargs, err))
		return NULL;
	sl_expr **na = sl_arena_alloc(a, sizeof(sl_expr *) * (size_t)(nargs + 1));
	if (!na)
		return NULL;
	for (int i = 0; i < nargs; i++) {
		na[i] = args[i];
		if (!is_null_type(args[i]))
			continue;
		int cls = FN[fn].cls[i < 3 ? i : 2];
		sl_type t = cls == A_INT ? sl_type_make(SL_T_INT)
		          : cls == A_NUM ? sl_type_make(SL_T_DOUBLE)
		          : cls == A_BOOL ? sl_type_make(SL_T_BOOLEAN)
		          : cls == A_TIME ? sl_type_timestamp(SL_T_TIMESTAMP, 3)
		          : str_type(0);
		if (!(na[i] = sl_expr_lit_null(a, t)))
			return NULL;
	}
	sl_type rt;
	int r = type_strfn(fn, na, nargs, &rt);
	if (r == SL_ENOTSUP)
		r = type_timefn(fn, na, nargs, &rt, err);
	if (r == SL_ENOTSUP)
		r = type_morefn(fn, na, nargs, &rt, err);
	if (r == SL_ENOTSUP)
		r = type_numfn(fn, na, nargs, &rt, err);
	if (r)
		return NULL;
	if (fn == SL_FN_POWER || fn == SL_FN_SQRT || fn == SL_FN_LN || fn == SL_FN_LOG10 ||
	    fn == SL_FN_EXP || (fn >= SL_FN_LOG && fn <= SL_FN_RADIANS)) {
		for (int i = 0; i < nargs; i++)
			if (!(na[i] = coerce(a, na[i], sl_type_make(SL_T_DOUBLE), err)))
				return NULL;
	}
	return mk_call(a, fn, na, nargs, rt);
}

sl_expr *sl__expr_mk_call(sl_arena *a, sl_fn fn, sl_expr **args, int nargs, sl_type t)
{
	return mk_call(a, fn, args, nargs, t);
}

sl_expr *sl__expr_coerce(sl_arena *a, sl_expr *e, sl_type t, sl_err *err)
{
	return coerce(a, e, t, err);
}

int sl__expr_bad_args(sl_err *err, sl_fn fn, sl_expr **args, int nargs)
{
	return bad_args(err, fn, args, nargs);
}

/* ARRAY<elem> or MAP<elem, val> in arena a (nullable elements). */
static int collection_of(sl_arena *a, sl_type_id id, sl_type elem, sl_type val, sl_type *out)
{
	sl_row_type *rt = sl_arena_calloc(a, sizeof(*rt));
	if (!rt || !(rt->fields = sl_arena_calloc(a, sizeof(sl_field) * 2)))
		return -1;
	elem.notnull = val.notnull = 0;
	rt->fields[0].type = elem;
	rt->fields[1].type = val;
	*out = sl_type_collection(id, rt);
	return 0;
}

int sl__expr_collection_of(sl_arena *a, sl_type_id id, sl_type elem, sl_type val, sl_type *out)
{
	return collection_of(a, id, elem, val, out);
}

/* ARRAY[...], MAP[...], ITEM, CARDINALITY, ELEMENT (fn_collection.c). */
static sl_expr *type_collection(sl_arena *a, sl_fn fn, sl_expr **args, int nargs, sl_err *err)
{
	sl_expr **na = sl_arena_alloc(a, sizeof(sl_expr *) * (size_t)(nargs + 1));
	sl_type c0, c1, rt, x = args[0]->type;
	char b[128];
	if (!na)
		return NULL;
	memcpy(na, args, sizeof(sl_expr *) * (size_t)nargs);
	switch (fn) {
	case SL_FN_ARRAY:
	case SL_FN_MAP: {
		int ismap = fn == SL_FN_MAP;
		if (ismap && nargs % 2)
			return sl_err_set(err, SL_EPLAN, "MAP[...] takes key, value pairs, got %d values",
			                  nargs), NULL;
		if (common_type_in(a, args, nargs, 1 + ismap, &c0) ||
		    (ismap && common_type_in(a, args + 1, nargs - 1, 2, &c1))) {
			bad_args(err, fn, args, nargs);
			return NULL;
		}
		if (c0.id == SL_T_NULL)
			c0 = sl_type_make(ismap ? SL_T_VARCHAR : SL_T_INT);
		if (ismap && c1.id == SL_T_NULL)
			c1 = sl_type_make(SL_T_INT);
		for (int i = 0; i < nargs; i++)
			if (!(na[i] = coerce(a, args[i], ismap && i % 2 ? c1 : c0, err)))
				return NULL;
		if (collection_of(a, ismap ? SL_T_MAP : SL_T_ARRAY, c0, ismap ? c1 : c0, &rt))
			return NULL;
		rt.notnull = 1;
		return mk_call(a, fn, na, nargs, rt);
	}
	case SL_FN_ITEM:
		if (x.id == SL_T_ARRAY) {
			if (!sl_type_is_integer(args[1]->type) && !is_null_type(args[1]))
				return sl_err_set(err, SL_EPLAN, "an ARRAY index must be an integer, not "
				                  "%s", sl__type_str(args[1]->type, b, sizeof(b))), NULL;
			if (!(na[1] = coerce(a, args[1], sl_type_make(SL_T_INT), err)))
				return NULL;
			rt = sl_type_elem(x);
		} else if (x.id == SL_T_MAP) {
			/* keys match by their packed bytes (packed.h), so the key is
			 * used as it is when it encodes like the map's keys: strings
			 * with strings (no CAST to CHAR(n), which would cut 'ab' to
			 * 'a' and find key 'a'), integers with integers (all 8 bytes) */
			sl_type kt = sl_type_map_key(x), at = args[1]->type;
			if (is_null_type(args[1])) {
				if (!(na[1] = sl_expr_lit_null(a, kt)))
					return NULL;
			} else if (!sl_type_equal(at, kt) &&
			           !(sl__type_is_char(at) && sl__type_is_char(kt)) &&
			           !(sl_type_is_binary(at) && sl_type_is_binary(kt)) &&
			           !(sl_type_is_integer(at) && sl_type_is_integer(kt))) {
				char b2[128];
				return sl_err_set(err, SL_EPLAN, "a key of %s cannot be used with %s",
				                  sl__type_str(at, b, sizeof(b)),
				                  sl__type_str(x, b2, sizeof(b2))), NULL;
			}
			rt = sl_type_map_value(x);
		} else {
			return sl_err_set(err, SL_EPLAN, "'[...]' applies to an ARRAY or a MAP, not %s",
			                  sl__type_str(x, b, sizeof(b))), NULL;
		}
		if (rt.id == SL_T_ROW)
			return sl_err_set(err, SL_ENOTSUP, "reading a ROW element out of %s is not "
			                  "supported yet", sl__type_str(x, b, sizeof(b))), NULL;
		rt.notnull = 0;
		return mk_call(a, fn, na, 2, rt);
	case SL_FN_CARDINALITY:
		if (!sl_type_is_collection(x))
			return bad_args(err, fn, args, nargs), NULL;
		rt = sl_type_make(SL_T_INT);
		rt.notnull = x.notnull;
		return mk_call(a, fn, na, 1, rt);
	case SL_FN_ELEMENT:
		if (x.id != SL_T_ARRAY)
			return bad_args(err, fn, args, nargs), NULL;
		rt = sl_type_elem(x);
		if (rt.id == SL_T_ROW)
			return sl_err_set(err, SL_ENOTSUP, "reading a ROW element out of %s is not "
			                  "supported yet", sl__type_str(x, b, sizeof(b))), NULL;
		rt.notnull = 0;
		return mk_call(a, fn, na, 1, rt);
	default:
		return NULL;
	}
}

sl_expr *sl_expr_call(sl_arena *a, sl_fn fn, sl_expr **args, int nargs,
                      const sl_type *target, int field, sl_err *err)
{
	if ((int)fn < 0 || fn >= SL_FN__COUNT) {
		sl_err_set(err, SL_EPLAN, "unknown function %d", (int)fn);
		return NULL;
	}
	const fn_info *fi = &FN[fn];
	if (nargs < fi->min || (fi->max >= 0 && nargs > fi->max)) {
		check_table_args(fn, args, nargs, err);
		return NULL;
	}
	for (int i = 0; i < nargs; i++)
		if (!args[i]) {
			sl_err_set(err, SL_EPLAN, "'%s': missing argument %d", fi->name, i + 1);
			return NULL;
		}
	if ((fn == SL_FN_EQ || fn == SL_FN_NE || fn == SL_FN_IS_DISTINCT ||
	     fn == SL_FN_IS_NOT_DISTINCT) && nargs == 2 && args[0]->type.id == SL_T_ROW &&
	    args[1]->type.id == SL_T_ROW)
		return sl__type_row_compare(a, fn, args[0], args[1], err);
	if (fn == SL_FN_IN && nargs >= 2 && args[0]->type.id == SL_T_ROW)
		return sl__type_row_in(a, args, nargs, err);
	switch (fn) {
	case SL_FN_ADD: case SL_FN_SUB: case SL_FN_MUL: case SL_FN_DIV: case SL_FN_MOD:
	case SL_FN_NEG:
		return type_arith(a, fn, args, nargs, err);
	case SL_FN_EQ: case SL_FN_NE: case SL_FN_LT: case SL_FN_LE: case SL_FN_GT: case SL_FN_GE:
	case SL_FN_IS_DISTINCT: case SL_FN_IS_NOT_DISTINCT:
		return type_compare(a, fn, args, err);
	case SL_FN_AND: case SL_FN_OR: case SL_FN_NOT: case SL_FN_IS_NULL: case SL_FN_IS_NOT_NULL:
	case SL_FN_IS_TRUE: case SL_FN_IS_FALSE: case SL_FN_IS_NOT_TRUE: case SL_FN_IS_NOT_FALSE:
		return type_logic(a, fn, args, nargs, err);
	case SL_FN_IN:
		return type_in(a, args, nargs, err);
	case SL_FN_CASE:
		return type_case(a, args, nargs, err);
	case SL_FN_COALESCE: case SL_FN_NULLIF: case SL_FN_GREATEST: case SL_FN_LEAST:
		return type_coalesce(a, fn, args, nargs, err);
	case SL_FN_JSON_VALUE:
		return type_json_value(a, args, target, err);
	case SL_FN_JSON_OBJECT: case SL_FN_JSON_ARRAY: case SL_FN_JSON_STRING:
		return type_json_ctor(a, fn, args, nargs, err);
	case SL_FN_SPLIT: { /* ARRAY<STRING>, NULL when an argument is */
		sl_type rt;
		for (int i = 0; i < nargs; i++)
			if (!sl__type_is_char(args[i]->type) && args[i]->type.id != SL_T_NULL)
				return bad_args(err, fn, args, nargs), NULL;
		if (nargs != 2 || sl__expr_collection_of(a, SL_T_ARRAY, str_type(0), str_type(0), &rt))
			return nargs != 2 ? (bad_args(err, fn, args, nargs), NULL) : NULL;
		rt.notnull = all_notnull(args, nargs);
		return mk_call(a, fn, args, nargs, rt);
	}
	case SL_FN_ENCODE: case SL_FN_DECODE: { /* BYTES / STRING, NULL when an argument is */
		if (check_table_args(fn, args, nargs, err))
			return NULL;
		sl_expr **na = sl_arena_alloc(a, sizeof(sl_expr *) * 2);
		if (!na)
			return NULL;
		for (int i = 0; i < 2; i++)
			if (!(na[i] = is_null_type(args[i])
			                  ? sl_expr_lit_null(a, i == 0 && fn == SL_FN_DECODE
			                                            ? bytes_type() : str_type(0))
			                  : args[i]))
				return NULL;
		sl_type rt = fn == SL_FN_ENCODE ? bytes_type() : str_type(0);
		rt.notnull = all_notnull(na, 2);
		return mk_call(a, fn, na, 2, rt);
	}
	case SL_FN_STR_TO_MAP: { /* MAP<STRING, STRING>, NULL when an argument is */
		sl_type rt;
		for (int i = 0; i < nargs; i++)
			if (!sl__type_is_char(args[i]->type) && args[i]->type.id != SL_T_NULL)
				return bad_args(err, fn, args, nargs), NULL;
		if (nargs == 2)
			return sl_err_set(err, SL_EPLAN, "STR_TO_MAP takes one argument or three: "
			                  "STR_TO_MAP(text [, listDelimiter, keyValueDelimiter])"), NULL;
		if (sl__expr_collection_of(a, SL_T_MAP, str_type(0), str_type(0), &rt))
			return NULL;
		rt.notnull = all_notnull(args, nargs);
		return mk_call(a, fn, args, nargs, rt);
	}
	case SL_FN_CAST: case SL_FN_TRY_CAST:
		return type_cast(a, fn, args[0], target, err);
	case SL_FN_FIELD:
		/* a field of a ROW(...) constructor is that argument */
		if (args[0]->kind == SL_EX_CALL && args[0]->fn == SL_FN_ROW && field >= 0 &&
		    field < args[0]->nargs)
			return args[0]->args[field];
		return type_field(a, args[0], field, err);
	case SL_FN_ROW:
		return sl__type_row(a, args, nargs, err);
	case SL_FN_JSON_QUERY: { /* RETURNING ARRAY<STRING>: the target, nullable */
		sl_expr *e = type_generic(a, fn, args, nargs, err);
		if (e && target && target->id == SL_T_ARRAY) {
			sl_type rt;
			if (sl__expr_collection_of(a, SL_T_ARRAY, str_type(0), str_type(0), &rt))
				return NULL;
			e->type = rt;
		}
		return e;
	}
	case SL_FN_ARRAY: case SL_FN_MAP: case SL_FN_ITEM: case SL_FN_CARDINALITY:
	case SL_FN_ELEMENT:
		return type_collection(a, fn, args, nargs, err);
	case SL_FN_ARRAY_CONTAINS: case SL_FN_ARRAY_POSITION: case SL_FN_ARRAY_REMOVE:
	case SL_FN_ARRAY_DISTINCT: case SL_FN_ARRAY_REVERSE: case SL_FN_ARRAY_SLICE:
	case SL_FN_ARRAY_UNION: case SL_FN_ARRAY_EXCEPT: case SL_FN_ARRAY_INTERSECT:
	case SL_FN_ARRAY_CONCAT: case SL_FN_ARRAY_APPEND: case SL_FN_ARRAY_PREPEND:
	case SL_FN_ARRAY_MAX: case SL_FN_ARRAY_MIN: case SL_FN_ARRAY_SORT: case SL_FN_ARRAY_JOIN:
	case SL_FN_MAP_KEYS: case SL_FN_MAP_VALUES: case SL_FN_MAP_ENTRIES:
	case SL_FN_MAP_FROM_ARRAYS: case SL_FN_MAP_UNION:
		return sl__type_collection_fn(a, fn, args, nargs, err);
	default:
		return type_generic(a, fn, args, nargs, err);
	}
}

sl_expr *sl_expr_cast(sl_arena *a, sl_expr *x, sl_type t, sl_err *err)
{
	if (!x)
		return NULL;
	if (sl_type_equal(x->type, t))
		return x;
	return sl_expr_call(a, SL_FN_CAST, &x, 1, &t, 0, err);
}

/*
 * 1 when call e's value is not a function of its arguments alone: the
 * time, a random number, a UDF (which may keep state), the row's
 * watermark.  Such a call is never folded to a constant and never computed
 * once for two occurrences (expr_compile.c).  A new function of that kind
 * goes here.
 */
int sl__fn_volatile(const sl_expr *e)
{
	return e->kind == SL_EX_CALL &&
	       (e->fn == SL_FN_PROCTIME || e->fn == SL_FN_CURRENT_TIMESTAMP ||
	        e->fn == SL_FN_CURRENT_WATERMARK || e->fn == SL_FN_UDF || e->fn == SL_FN_RAND ||
	        e->fn == SL_FN_RAND_INTEGER || e->fn == SL_FN_UUID ||
	        (e->fn == SL_FN_UNIX_TIMESTAMP && e->nargs == 0));
}

int sl_expr_is_const(const sl_expr *e)
{
	switch (e->kind) {
	case SL_EX_LIT: return 1;
	case SL_EX_COL: return 0;
	default: break;
	}
	if (sl__fn_volatile(e) ||
	    (e->kind == SL_EX_CALL && e->fn == SL_FN_ROW)) /* a sl_value holds no ROW: built per batch */
		return 0;
	for (int i = 0; i < e->nargs; i++)
		if (!sl_expr_is_const(e->args[i]))
			return 0;
	return 1;
}
