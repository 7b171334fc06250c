/*
 * expr_type_coll.c - the type rules of Flink's collection functions
 * (ARRAY_CONTAINS ... MAP_UNION; kernels in fn_array.c), after Flink 1.20's
 * input and output type strategies, within what packed values allow:
 *
 *   - a needle (ARRAY_CONTAINS, ARRAY_POSITION, ARRAY_REMOVE) or an added
 *     element (ARRAY_APPEND, ARRAY_PREPEND) is used as it is when it
 *     encodes like the elements (the same type, strings with strings,
 *     binary with binary, integers with integers: their packed bytes are
 *     the same), else cast to the element type ("the given element is cast
 *     implicitly to the array's element type if necessary"); a NULL
 *     literal takes the element type;
 *   - functions of two or more collections (ARRAY_UNION, ARRAY_EXCEPT,
 *     ARRAY_INTERSECT, ARRAY_CONCAT, MAP_UNION) need element types one of
 *     which holds the other's values byte for byte (sl_type_same_bytes:
 *     equal types, CHAR into VARCHAR, INT into BIGINT...), and give that
 *     type; collections whose elements would need a conversion (ARRAY<INT>
 *     with ARRAY<DOUBLE>) are refused, as CAST between them is;
 *   - ordering (ARRAY_MAX, ARRAY_MIN, ARRAY_SORT) takes scalar elements
 *     only (no ROW, ARRAY or MAP), as Flink's comparable-type check does;
 *   - ARRAY_JOIN takes an ARRAY of CHAR / VARCHAR, as Flink.
 *
 * Results are nullable wherever an argument may be NULL; the element types
 * of built collections are nullable (sl__expr_collection_of).
 */
#include "expr_int.h"

#include <string.h>

/* The element type both element types t and u convert into without a
 * change of bytes (u when t's values are u's, else t), or -1. */
static int same_bytes_common(sl_type t, sl_type u, sl_type *out)
{
	if (sl_type_same_bytes(t, u))
		return *out = u, 0;
	if (sl_type_same_bytes(u, t))
		return *out = t, 0;
	return -1;
}

/* 1 when values of type a encode like values of type b (packed.h): no
 * cast needed to compare or store them among b's. */
static int encodes_like(sl_type a, sl_type b)
{
	return sl_type_equal(a, b) || (sl__type_is_char(a) && sl__type_is_char(b)) ||
	       (sl_type_is_binary(a) && sl_type_is_binary(b)) ||
	       (sl_type_is_integer(a) && sl_type_is_integer(b));
}

/* 1 when Flink casts a value of type f to t implicitly (numbers among
 * numbers, strings among strings, bytes among bytes, DATE and timestamps
 * among themselves, or values of one type id). */
static int implicit_cast(sl_type f, sl_type t)
{
	int ft = sl_type_is_timestamp(f) || f.id == SL_T_DATE;
	int tt = sl_type_is_timestamp(t) || t.id == SL_T_DATE;
	return (sl_type_is_numeric(f) && sl_type_is_numeric(t)) || encodes_like(f, t) ||
	       (ft && tt) || (f.id == t.id && (f.id != SL_T_ROW && !sl_type_is_collection(f)));
}

/* The needle (or added element) args[i] of fn for elements of type et: as
 * it is, a re-typed NULL, or cast; NULL with err set when Flink would not
 * cast it implicitly (an INT array and a STRING needle). */
static sl_expr *needle(sl_arena *a, sl_fn fn, sl_expr **args, int i, sl_type et, sl_err *err)
{
	sl_expr *x = args[i];
	if (x->type.id == SL_T_NULL)
		return sl_expr_lit_null(a, et);
	if (encodes_like(x->type, et) || sl_type_same_bytes(x->type, et))
		return x;
	if (!implicit_cast(x->type, et)) {
		char b1[128], b2[128];
		sl_err_set(err, SL_EPLAN, "'%s': argument %d of type %s cannot be compared with or "
		           "added to elements of type %s", sl_fn_name(fn), i + 1,
		           sl__type_str(x->type, b1, sizeof(b1)), sl__type_str(et, b2, sizeof(b2)));
		return NULL;
	}
	return sl__expr_coerce(a, x, et, err);
}

/* 1 when values of t can be ordered by fn_array.c (scalars). */
static int orderable(sl_type t)
{
	return t.id != SL_T_ROW && !sl_type_is_collection(t) && t.id != SL_T_NULL;
}

static sl_expr *not_array(sl_err *err, sl_fn fn, int pos, sl_type t, const char *what)
{
	char b[128];
	sl_err_set(err, SL_EPLAN, "'%s': argument %d must be %s, not %s", sl_fn_name(fn), pos,
	           what, sl__type_str(t, b, sizeof(b)));
	return NULL;
}

/* args[from..to) must be collections of kind id (NULL literals take the
 * type of the others): their common type into *rt, the args re-typed or
 * kept.  0, or -1 with err set. */
static int common_collections(sl_arena *a, sl_fn fn, sl_expr **args, int from, int to,
                              sl_type_id id, sl_type *rt, sl_err *err)
{
	int have = 0;
	for (int i = from; i < to; i++) {
		sl_type t = args[i]->type;
		if (t.id == SL_T_NULL)
			continue;
		if (t.id != id)
			return not_array(err, fn, i + 1, t, id == SL_T_MAP ? "a MAP" : "an ARRAY"), -1;
		if (!have) {
			*rt = t;
			have = 1;
			continue;
		}
		sl_type c;
		if (same_bytes_common(t, *rt, &c)) {
			char b1[128], b2[128];
			sl_err_set(err, SL_ENOTSUP, "'%s' of %s and %s is not supported (their elements "
			           "would need a conversion)", sl_fn_name(fn),
			           sl__type_str(*rt, b1, sizeof(b1)), sl__type_str(t, b2, sizeof(b2)));
			return -1;
		}
		*rt = c;
	}
	if (!have)
		return sl_err_set(err, SL_EPLAN, "'%s': the type of its arguments is unknown (all "
		                  "NULL)", sl_fn_name(fn)), -1;
	rt->notnull = 0;
	for (int i = from; i < to; i++)
		if (args[i]->type.id == SL_T_NULL && !(args[i] = sl_expr_lit_null(a, *rt)))
			return -1;
	return 0;
}

/* INT (or BOOLEAN, with want_bool) argument i of fn, cast. */
static int scalar_arg(sl_arena *a, sl_fn fn, sl_expr **args, int i, int want_bool, sl_err *err)
{
	sl_type t = args[i]->type;
	int ok = t.id == SL_T_NULL || (want_bool ? t.id == SL_T_BOOLEAN : sl_type_is_integer(t));
	if (!ok) {
		not_array(err, fn, i + 1, t, want_bool ? "a BOOLEAN" : "an integer");
		return -1;
	}
	sl_type to = sl_type_make(want_bool ? SL_T_BOOLEAN : SL_T_INT);
	return (args[i] = sl__expr_coerce(a, args[i], to, err)) ? 0 : -1;
}

/* ARRAY<ROW<key K, value V>>: MAP_ENTRIES' type. */
static int entries_type(sl_arena *a, sl_type m, sl_type *out)
{
	sl_row_type *rt = sl_arena_calloc(a, sizeof(*rt));
	if (!rt || !(rt->fields = sl_arena_calloc(a, sizeof(sl_field) * 2)))
		return -1;
	rt->nfields = 2;
	rt->fields[0].name = "key";
	rt->fields[0].type = sl_type_map_key(m);
	rt->fields[1].name = "value";
	rt->fields[1].type = sl_type_map_value(m);
	sl_type row = sl_type_make(SL_T_ROW);
	row.row = rt;
	return sl__expr_collection_of(a, SL_T_ARRAY, row, row, out);
}

/* Functions of one array (and scalar options). */
static sl_expr *type_one_array(sl_arena *a, sl_fn fn, sl_expr **args, int nargs, sl_err *err)
{
	sl_type x = args[0]->type, rt = x, et;
	if (x.id == SL_T_NULL)
		return sl_err_set(err, SL_EPLAN, "'%s': the type of its array is unknown (NULL)",
		                  sl_fn_name(fn)), NULL;
	if (x.id != SL_T_ARRAY)
		return not_array(err, fn, 1, x, "an ARRAY");
	et = sl_type_elem(x);
	rt.notnull = 0;
	switch (fn) {
	case SL_FN_ARRAY_CONTAINS:
	case SL_FN_ARRAY_POSITION:
	case SL_FN_ARRAY_REMOVE:
		if (et.id == SL_T_ROW)
			return not_array(err, fn, 1, x, "an ARRAY of scalars, ARRAYs or MAPs");
		if (!(args[1] = needle(a, fn, args, 1, et, err)))
			return NULL;
		rt = fn == SL_FN_ARRAY_CONTAINS ? sl_type_make(SL_T_BOOLEAN)
		   : fn == SL_FN_ARRAY_POSITION ? sl_type_make(SL_T_INT) : x;
		rt.notnull = fn != SL_FN_ARRAY_POSITION && x.notnull;
		break;
	case SL_FN_ARRAY_DISTINCT:
	case SL_FN_ARRAY_REVERSE:
		rt.notnull = x.notnull;
		break;
	case SL_FN_ARRAY_SLICE:
		for (int i = 1; i < nargs; i++)
			if (scalar_arg(a, fn, args, i, 0, err))
				return NULL;
		break;
	case SL_FN_ARRAY_MAX:
	case SL_FN_ARRAY_MIN:
	case SL_FN_ARRAY_SORT:
		if (!orderable(et))
			return not_array(err, fn, 1, x, "an ARRAY of comparable scalars");
		for (int i = 1; i < nargs; i++)
			if (scalar_arg(a, fn, args, i, 1, err))
				return NULL;
		if (fn != SL_FN_ARRAY_SORT)
			rt = et, rt.notnull = 0;
		break;
	case SL_FN_ARRAY_JOIN:
		if (!sl__type_is_char(et))
			return not_array(err, fn, 1, x, "an ARRAY of strings");
		for (int i = 1; i < nargs; i++) {
			sl_type t = args[i]->type;
			if (t.id != SL_T_NULL && !sl__type_is_char(t))
				return not_array(err, fn, i + 1, t, "a string");
			if (t.id == SL_T_NULL && !(args[i] = sl_expr_lit_null(a, sl_type_varchar(SL_STRING_LEN))))
				return NULL;
		}
		rt = sl_type_varchar(SL_STRING_LEN);
		break;
	default:
		return NULL;
	}
	return sl__expr_mk_call(a, fn, args, nargs, rt);
}

/* ARRAY_APPEND(array, e) / ARRAY_PREPEND(array, e): e last / first. */
static sl_expr *type_add(sl_arena *a, sl_fn fn, sl_expr **args, sl_err *err)
{
	int ai = 0, ei = 1;
	sl_type x = args[ai]->type, rt = x, et;
	if (x.id != SL_T_ARRAY)
		return not_array(err, fn, ai + 1, x, "an ARRAY");
	et = sl_type_elem(x);
	sl_type vt = args[ei]->type;
	if (vt.id == SL_T_NULL) {
		if (!(args[ei] = sl_expr_lit_null(a, et)))
			return NULL;
	} else if (sl_type_same_bytes(et, vt) && !sl_type_same_bytes(vt, et)) {
		if (sl__expr_collection_of(a, SL_T_ARRAY, vt, vt, &rt)) /* a wider element */
			return NULL;
	} else if (!sl_type_same_bytes(vt, et)) {
		if (et.id == SL_T_ROW)
			return not_array(err, fn, ai + 1, x, "an ARRAY of scalars, ARRAYs or MAPs");
		if (!(args[ei] = needle(a, fn, args, ei, et, err)))
			return NULL;
	}
	rt.notnull = x.notnull;
	return sl__expr_mk_call(a, fn, args, 2, rt);
}

sl_expr *sl__type_collection_fn(sl_arena *a, sl_fn fn, sl_expr **args0, int nargs, sl_err *err)
{
	sl_expr **args = sl_arena_alloc(a, sizeof(sl_expr *) * (size_t)(nargs + 1));
	sl_type rt, x = args0[0]->type;
	if (!args)
		return NULL;
	memcpy(args, args0, sizeof(sl_expr *) * (size_t)nargs);
	switch (fn) {
	case SL_FN_ARRAY_UNION:
	case SL_FN_ARRAY_EXCEPT:
	case SL_FN_ARRAY_INTERSECT:
	case SL_FN_ARRAY_CONCAT:
		if (common_collections(a, fn, args, 0, nargs, SL_T_ARRAY, &rt, err))
			return NULL;
		return sl__expr_mk_call(a, fn, args, nargs, rt);
	case SL_FN_MAP_UNION:
		if (common_collections(a, fn, args, 0, nargs, SL_T_MAP, &rt, err))
			return NULL;
		return sl__expr_mk_call(a, fn, args, nargs, rt);
	case SL_FN_ARRAY_APPEND:
	case SL_FN_ARRAY_PREPEND:
		return type_add(a, fn, args, err);
	case SL_FN_MAP_KEYS:
	case SL_FN_MAP_VALUES:
	case SL_FN_MAP_ENTRIES:
		if (x.id != SL_T_MAP)
			return not_array(err, fn, 1, x, "a MAP");
		if (fn == SL_FN_MAP_ENTRIES ? entries_type(a, x, &rt)
		    : sl__expr_collection_of(a, SL_T_ARRAY, fn == SL_FN_MAP_KEYS ? sl_type_map_key(x)
		                             : sl_type_map_value(x), x, &rt))
			return NULL;
		rt.notnull = x.notnull;
		return sl__expr_mk_call(a, fn, args, nargs, rt);
	case SL_FN_MAP_FROM_ARRAYS:
		for (int i = 0; i < 2; i++)
			if (args[i]->type.id != SL_T_ARRAY)
				return not_array(err, fn, i + 1, args[i]->type, "an ARRAY");
		if (sl__expr_collection_of(a, SL_T_MAP, sl_type_elem(args[0]->type),
		                           sl_type_elem(args[1]->type), &rt))
			return NULL;
		return sl__expr_mk_call(a, fn, args, nargs, rt);
	default:
		return type_one_array(a, fn, args, nargs, err);
	}
}
