/*
 * agg.c - the built-in aggregate functions (see agg.h).
 *
 * Accumulators are plain structs in the state slot; each function's add()
 * is a switch on the argument's physical kind.  The slot is written in
 * place (memory backend) so an add is a few instructions per row.  MIN and
 * MAX over updating input also keep a sorted multiset of the group's
 * values (sl_agg_vals_add, at the end of this file).  LISTAGG and
 * ARRAY_AGG are string aggregates: their value lives in the string table,
 * ARRAY_AGG's as a packed ARRAY (data/packed.h) of the group's values.
 */
#include "agg.h"
#include "sluice.h"
#include "../data/decimal.h"
#include "../data/rowcodec.h"

#include <math.h>
#include <string.h>
#include <strings.h>

typedef sl_acc_count acc_count;
typedef sl_acc_num acc_num;

static int is_true(const sl_col *f, int row)
{
	return !f->null[row] && f->v.i64[row] != 0;
}

int sl_agg_add_one(const sl_agg *a, void *slot, const sl_batch *in, int row, int sign,
                   sl_err *err)
{
	if (a->filter_col >= 0 && !is_true(&in->cols[a->filter_col], row))
		return 0;
	if (a->vt->add_row) /* user-defined (agg_udf.c): NULLs are its business */
		return a->vt->add_row(a, (char *)slot + a->offset, in, row, sign, err);
	const sl_col *c = a->arg_col >= 0 ? &in->cols[a->arg_col] : NULL;
	if (c && c->null[row])
		return 0;
	return a->vt->add(a, (char *)slot + a->offset, c, row, sign, err);
}

/* ---- COUNT ------------------------------------------------------------- */

static int count_type(sl_type arg, int star, sl_type *out, sl_err *err)
{
	*out = sl_type_make(SL_T_BIGINT);
	out->notnull = 1;
	return 0;
}

static int count_add(const sl_agg *a, void *acc, const sl_col *c, int row, int sign, sl_err *err)
{
	((acc_count *)acc)->n += sign;
	return 0;
}

static int count_result(const sl_agg *a, const void *acc, sl_col *out, int orow, sl_err *err)
{
	sl_col_set_i64(out, orow, ((const acc_count *)acc)->n);
	return 0;
}

/* ---- SUM / AVG ----------------------------------------------------------- */

static int numeric_arg(const char *fn, sl_type arg, sl_err *err)
{
	if (sl_type_is_numeric(arg))
		return 0;
	char buf[64];
	return sl_err_set(err, SL_EPLAN, "%s does not accept an argument of type %s", fn,
	                  sl_type_format(arg, buf, sizeof(buf)));
}

static int sum_type(sl_type arg, int star, sl_type *out, sl_err *err)
{
	if (numeric_arg("SUM", arg, err))
		return SL_EPLAN;
	if (arg.id == SL_T_DECIMAL)
		*out = sl_type_decimal(38, arg.scale);
	else if (arg.id == SL_T_FLOAT)
		*out = sl_type_make(SL_T_FLOAT);
	else
		*out = arg;
	out->notnull = 0;
	return 0;
}

static int avg_type(sl_type arg, int star, sl_type *out, sl_err *err)
{
	if (numeric_arg("AVG", arg, err))
		return SL_EPLAN;
	if (arg.id == SL_T_DECIMAL)
		*out = sl_type_decimal(38, arg.scale > 6 ? arg.scale : 6);
	else if (arg.id == SL_T_FLOAT || arg.id == SL_T_DOUBLE)
		*out = sl_type_make(SL_T_DOUBLE);
	else
		*out = arg;
	out->notnull = 0;
	return 0;
}

/* row: the input row being folded, -1 when none (results, merges). */
static int dec_overflow(const sl_agg *a, const char *fn, int row, sl_err *err)
{
	char buf[64];
	if (err && err->code)
		return SL_ERUNTIME;
	if (a->line > 0)
		sl_err_set_at(err, SL_ERUNTIME, a->line, a->col,
		              "line %d, column %d: %s overflow: the result does not fit %s", a->line,
		              a->col, fn, sl_type_format(a->out_type, buf, sizeof(buf)));
	else
		sl_err_set(err, SL_ERUNTIME, "%s overflow: the result does not fit %s", fn,
		           sl_type_format(a->out_type, buf, sizeof(buf)));
	if (err && row >= 0) {
		err->row = row + 1;
		err->row_batch = NULL; /* the batch being folded: the graph fills it */
	}
	return SL_ERUNTIME;
}

static int sum_add(const sl_agg *a, void *accp, const sl_col *c, int row, int sign, sl_err *err)
{
	acc_num *acc = accp;
	acc->n += sign;
	switch (sl_type_phys(c->type)) {
	case SL_PHYS_I64:
		/* Flink's SUM(INT) is INT and wraps on overflow; sluice keeps the
		 * 64-bit sum and narrows at result time */
		acc->v.i += sign * c->v.i64[row];
		break;
	case SL_PHYS_F64:
		acc->v.d += sign * c->v.f64[row];
		break;
	case SL_PHYS_I128: {
		sl_i128 r;
		if (sl_i128_add(acc->v.dec, sign > 0 ? c->v.i128[row] : -c->v.i128[row], &r) ||
		    !sl_dec_fits(r, 38))
			return dec_overflow(a, "SUM", row, err);
		acc->v.dec = r;
		break;
	}
	default:
		break;
	}
	return 0;
}

static void narrow_int(sl_type t, int64_t v, sl_col *out, int orow)
{
	switch (t.id) {
	case SL_T_TINYINT: v = (int8_t)v; break;
	case SL_T_SMALLINT: v = (int16_t)v; break;
	case SL_T_INT: v = (int32_t)v; break;
	default: break;
	}
	sl_col_set_i64(out, orow, v);
}

static int sum_result(const sl_agg *a, const void *accp, sl_col *out, int orow, sl_err *err)
{
	const acc_num *acc = accp;
	if (acc->n <= 0) {
		sl_col_set_null(out, orow);
		return 0;
	}
	switch (sl_type_phys(a->out_type)) {
	case SL_PHYS_I64: narrow_int(a->out_type, acc->v.i, out, orow); break;
	case SL_PHYS_F64:
		sl_col_set_f64(out, orow, a->out_type.id == SL_T_FLOAT ? (double)(float)acc->v.d : acc->v.d);
		break;
	case SL_PHYS_I128: sl_col_set_i128(out, orow, acc->v.dec); break;
	default: sl_col_set_null(out, orow); break;
	}
	return 0;
}

static int avg_result(const sl_agg *a, const void *accp, sl_col *out, int orow, sl_err *err)
{
	const acc_num *acc = accp;
	if (acc->n <= 0) {
		sl_col_set_null(out, orow);
		return 0;
	}
	switch (sl_type_phys(a->arg_type)) {
	case SL_PHYS_I64: narrow_int(a->out_type, acc->v.i / acc->n, out, orow); break;
	case SL_PHYS_F64: sl_col_set_f64(out, orow, acc->v.d / (double)acc->n); break;
	case SL_PHYS_I128: {
		/* rescale the sum to the result scale, then divide HALF_UP */
		sl_i128 s;
		if (sl_dec_rescale(acc->v.dec, a->arg_type.scale, a->out_type.scale, 38, &s))
			return dec_overflow(a, "AVG", -1, err);
		sl_i128 n = acc->n, q = s / n, r = s % n;
		if (r < 0)
			r = -r;
		if (2 * r >= n)
			q += s < 0 ? -1 : 1;
		sl_col_set_i128(out, orow, q);
		break;
	}
	default: sl_col_set_null(out, orow); break;
	}
	return 0;
}

/* ---- MIN / MAX / FIRST_VALUE / LAST_VALUE -------------------------------- */

static int minmax_type(sl_type arg, int star, sl_type *out, sl_err *err)
{
	if (sl_type_phys(arg) == SL_PHYS_ROW || sl_type_is_collection(arg)) {
		char buf[64];
		return sl_err_set(err, SL_ENOTSUP,
		                  "MIN/MAX/FIRST_VALUE/LAST_VALUE over %s are not supported",
		                  sl_type_format(arg, buf, sizeof(buf)));
	}
	*out = arg;
	out->notnull = 0;
	return 0;
}

/* -1, 0, 1 comparing the column value with the accumulator value */
static int cmp_val(const sl_col *c, int row, const acc_num *acc)
{
	switch (sl_type_phys(c->type)) {
	case SL_PHYS_I64: return c->v.i64[row] < acc->v.i ? -1 : c->v.i64[row] > acc->v.i;
	case SL_PHYS_F64: return c->v.f64[row] < acc->v.d ? -1 : c->v.f64[row] > acc->v.d;
	case SL_PHYS_I128: return c->v.i128[row] < acc->v.dec ? -1 : c->v.i128[row] > acc->v.dec;
	default: return 0;
	}
}

static void set_val(acc_num *acc, const sl_col *c, int row)
{
	switch (sl_type_phys(c->type)) {
	case SL_PHYS_I64: acc->v.i = c->v.i64[row]; break;
	case SL_PHYS_F64: acc->v.d = c->v.f64[row]; break;
	case SL_PHYS_I128: acc->v.dec = c->v.i128[row]; break;
	default: break;
	}
}

static int min_add(const sl_agg *a, void *accp, const sl_col *c, int row, int sign, sl_err *err)
{
	acc_num *acc = accp;
	if (acc->n == 0 || cmp_val(c, row, acc) < 0)
		set_val(acc, c, row);
	acc->n = 1;
	return 0;
}

static int max_add(const sl_agg *a, void *accp, const sl_col *c, int row, int sign, sl_err *err)
{
	acc_num *acc = accp;
	if (acc->n == 0 || cmp_val(c, row, acc) > 0)
		set_val(acc, c, row);
	acc->n = 1;
	return 0;
}

static int first_add(const sl_agg *a, void *accp, const sl_col *c, int row, int sign, sl_err *err)
{
	acc_num *acc = accp;
	if (acc->n == 0)
		set_val(acc, c, row);
	acc->n = 1;
	return 0;
}

static int last_add(const sl_agg *a, void *accp, const sl_col *c, int row, int sign, sl_err *err)
{
	acc_num *acc = accp;
	set_val(acc, c, row);
	acc->n = 1;
	return 0;
}

static int val_result(const sl_agg *a, const void *accp, sl_col *out, int orow, sl_err *err)
{
	const acc_num *acc = accp;
	if (acc->n <= 0) {
		sl_col_set_null(out, orow);
		return 0;
	}
	switch (sl_type_phys(a->out_type)) {
	case SL_PHYS_I64: sl_col_set_i64(out, orow, acc->v.i); break;
	case SL_PHYS_F64: sl_col_set_f64(out, orow, acc->v.d); break;
	case SL_PHYS_I128: sl_col_set_i128(out, orow, acc->v.dec); break;
	default: sl_col_set_null(out, orow); break;
	}
	return 0;
}

/* ---- merging (session windows) ------------------------------------------ */

static int count_merge(const sl_agg *a, void *dst, const void *src, sl_err *err)
{
	((acc_count *)dst)->n += ((const acc_count *)src)->n;
	return 0;
}

static int sum_merge(const sl_agg *a, void *dstp, const void *srcp, sl_err *err)
{
	acc_num *d = dstp;
	const acc_num *s = srcp;
	d->n += s->n;
	switch (sl_type_phys(a->arg_type)) {
	case SL_PHYS_I64: d->v.i += s->v.i; break;
	case SL_PHYS_F64: d->v.d += s->v.d; break;
	case SL_PHYS_I128: {
		sl_i128 r;
		if (sl_i128_add(d->v.dec, s->v.dec, &r) || !sl_dec_fits(r, 38))
			return dec_overflow(a, "SUM", -1, err);
		d->v.dec = r;
		break;
	}
	default: break;
	}
	return 0;
}

static int acc_cmp(const sl_agg *a, const acc_num *x, const acc_num *y)
{
	switch (sl_type_phys(a->arg_type)) {
	case SL_PHYS_I64: return x->v.i < y->v.i ? -1 : x->v.i > y->v.i;
	case SL_PHYS_F64: return x->v.d < y->v.d ? -1 : x->v.d > y->v.d;
	case SL_PHYS_I128: return x->v.dec < y->v.dec ? -1 : x->v.dec > y->v.dec;
	default: return 0;
	}
}

static int min_merge(const sl_agg *a, void *dst, const void *src, sl_err *err)
{
	const acc_num *s = src;
	if (s->n && (!((acc_num *)dst)->n || acc_cmp(a, s, dst) < 0))
		*(acc_num *)dst = *s;
	return 0;
}

static int max_merge(const sl_agg *a, void *dst, const void *src, sl_err *err)
{
	const acc_num *s = src;
	if (s->n && (!((acc_num *)dst)->n || acc_cmp(a, s, dst) > 0))
		*(acc_num *)dst = *s;
	return 0;
}

static int first_merge(const sl_agg *a, void *dst, const void *src, sl_err *err)
{
	if (!((acc_num *)dst)->n)
		*(acc_num *)dst = *(const acc_num *)src;
	return 0;
}

static int last_merge(const sl_agg *a, void *dst, const void *src, sl_err *err)
{
	if (((const acc_num *)src)->n)
		*(acc_num *)dst = *(const acc_num *)src;
	return 0;
}

/* ---- STDDEV_POP / STDDEV_SAMP / VAR_POP / VAR_SAMP / VARIANCE ------------ */

/*
 * Flink (Calcite's AggregateReduceFunctionsRule) rewrites these into
 * SUM(x * x), SUM(x) and COUNT(x) evaluated in the result type, which is the
 * argument's type (FLOAT arithmetic for FLOAT):
 *   VAR_POP  = (SUM(x*x) - SUM(x)*SUM(x) / COUNT(x)) / COUNT(x)
 *   VAR_SAMP = (...) / (COUNT(x) - 1), NULL when COUNT(x) = 1
 *   STDDEV_* = POWER(VAR_*, 0.5) cast to the result type.
 * Over an integer type every step is integer arithmetic in that type
 * (truncating division, wrapping like Flink's SUM(INT)); the accumulator
 * keeps 64-bit sums, which agree modulo the type's width, and narrows them
 * before each division.  DECIMAL arguments are refused (not supported).
 * Retraction subtracts; merging adds.
 */
typedef struct acc_var {
	int64_t n;
	int64_t pad;
	union {
		int64_t i;
		double d;
	} s, s2; /* sum and sum of squares */
} acc_var;

static int var_type(sl_type arg, int star, sl_type *out, sl_err *err)
{
	if (numeric_arg("STDDEV/VARIANCE", arg, err))
		return SL_EPLAN;
	if (arg.id == SL_T_DECIMAL)
		return sl_err_set(err, SL_ENOTSUP,
		                  "STDDEV_POP/STDDEV_SAMP/VAR_POP/VAR_SAMP/VARIANCE over DECIMAL "
		                  "are not supported");
	*out = arg; /* FLOAT stays FLOAT (computed in float, as Flink) */
	out->notnull = 0;
	return 0;
}

/* x rounded to float when the aggregate's type is FLOAT, else x.  Each
 * step of a float operation done in double then rounded is the correctly
 * rounded float result (for +, -, *, /), so this is Java float arithmetic. */
static double fl(const sl_agg *a, double x)
{
	return a->arg_type.id == SL_T_FLOAT ? (double)(float)x : x;
}

static int var_add(const sl_agg *a, void *accp, const sl_col *c, int row, int sign, sl_err *err)
{
	acc_var *acc = accp;
	acc->n += sign;
	if (sl_type_phys(c->type) == SL_PHYS_F64) {
		double x = c->v.f64[row];
		acc->s.d = fl(a, acc->s.d + sign * x);
		acc->s2.d = fl(a, acc->s2.d + sign * fl(a, x * x));
	} else {
		/* unsigned: wraps (Flink's INT/BIGINT arithmetic wraps too) */
		uint64_t x = (uint64_t)c->v.i64[row];
		uint64_t sg = (uint64_t)(int64_t)sign;
		acc->s.i = (int64_t)((uint64_t)acc->s.i + sg * x);
		acc->s2.i = (int64_t)((uint64_t)acc->s2.i + sg * (x * x));
	}
	return 0;
}

static int var_merge(const sl_agg *a, void *dstp, const void *srcp, sl_err *err)
{
	acc_var *d = dstp;
	const acc_var *s = srcp;
	d->n += s->n;
	if (sl_type_phys(a->arg_type) == SL_PHYS_F64) {
		d->s.d = fl(a, d->s.d + s->s.d);
		d->s2.d = fl(a, d->s2.d + s->s2.d);
	} else {
		d->s.i = (int64_t)((uint64_t)d->s.i + (uint64_t)s->s.i);
		d->s2.i = (int64_t)((uint64_t)d->s2.i + (uint64_t)s->s2.i);
	}
	return 0;
}

/* v narrowed to the width of integer type t (two's complement wrap) */
static int64_t wrap_int(sl_type t, int64_t v)
{
	switch (t.id) {
	case SL_T_TINYINT: return (int8_t)v;
	case SL_T_SMALLINT: return (int16_t)v;
	case SL_T_INT: return (int32_t)v;
	default: return v;
	}
}

static int var_result_k(const sl_agg *a, const void *accp, sl_col *out, int orow, int samp,
                        int sq)
{
	const acc_var *acc = accp;
	int64_t n = acc->n;
	if (n <= 0 || (samp && n == 1)) {
		sl_col_set_null(out, orow);
		return 0;
	}
	int64_t den = samp ? n - 1 : n;
	if (sl_type_phys(a->out_type) == SL_PHYS_F64) {
		double avg = fl(a, fl(a, acc->s.d * acc->s.d) / (double)n);
		double v = fl(a, fl(a, acc->s2.d - avg) / (double)den);
		sl_col_set_f64(out, orow, fl(a, sq ? pow(v, 0.5) : v));
		return 0;
	}
	sl_type t = a->out_type;
	int64_t s = wrap_int(t, acc->s.i), s2 = wrap_int(t, acc->s2.i);
	int64_t ss = wrap_int(t, (int64_t)((uint64_t)s * (uint64_t)s));
	/* n >= 1 and den >= 1 here: the divisions cannot trap */
	int64_t avg = wrap_int(t, ss / n);
	int64_t diff = wrap_int(t, (int64_t)((uint64_t)s2 - (uint64_t)avg));
	int64_t v = wrap_int(t, diff / den);
	if (sq) {
		double r = pow((double)v, 0.5);
		/* Java's (long) cast of a double: NaN -> 0, saturating */
		if (r != r)
			v = 0;
		else if (r >= 9.2233720368547758e18)
			v = INT64_MAX;
		else
			v = (int64_t)r;
		v = wrap_int(t, v);
	}
	sl_col_set_i64(out, orow, v);
	return 0;
}

static int var_pop_result(const sl_agg *a, const void *acc, sl_col *out, int orow, sl_err *err)
{
	return var_result_k(a, acc, out, orow, 0, 0);
}

static int var_samp_result(const sl_agg *a, const void *acc, sl_col *out, int orow, sl_err *err)
{
	return var_result_k(a, acc, out, orow, 1, 0);
}

static int stddev_pop_result(const sl_agg *a, const void *acc, sl_col *out, int orow,
                             sl_err *err)
{
	return var_result_k(a, acc, out, orow, 0, 1);
}

static int stddev_samp_result(const sl_agg *a, const void *acc, sl_col *out, int orow,
                              sl_err *err)
{
	return var_result_k(a, acc, out, orow, 1, 1);
}

/* ---- LISTAGG -------------------------------------------------------------- */

/* LISTAGG is a string aggregate: sl_agg_str_add does the work; listagg_add
 * only identifies it (never called: sl_agg_is_str routes around the vtab). */
static int listagg_type(sl_type arg, int star, sl_type *out, sl_err *err)
{
	if (!sl_type_is_string(arg)) {
		char buf[64];
		return sl_err_set(err, SL_EPLAN, "LISTAGG does not accept an argument of type %s",
		                  sl_type_format(arg, buf, sizeof(buf)));
	}
	*out = sl_type_varchar(SL_STRING_LEN);
	out->notnull = 0;
	return 0;
}

static int listagg_add(const sl_agg *a, void *acc, const sl_col *c, int row, int sign,
                       sl_err *err)
{
	return 0;
}

/* ---- ARRAY_AGG ------------------------------------------------------------ */

/* ARRAY_AGG(x) is a string aggregate as LISTAGG is: its value is a packed
 * ARRAY (data/packed.h) of the group's values in arrival order, NULLs
 * included (Flink 1.20's default, RESPECT NULLS; IGNORE NULLS is refused
 * by the parser), NULL for a group without values.  Appending rewrites the
 * group's array (O(values) a row, as LISTAGG's string).  Over an updating
 * input the group's values are kept as a list and a retraction removes
 * the first equal one (Flink's ArrayAggFunction: List.remove).  Its result
 * type ARRAY<x> needs the plan arena, so the planner sets it
 * (plan_agg.c); arrayagg_type only accepts every argument type. */
static int arrayagg_type(sl_type arg, int star, sl_type *out, sl_err *err)
{
	*out = sl_type_make(SL_T_ARRAY); /* without element: the planner sets it */
	out->notnull = 0;
	return 0;
}

static int arrayagg_add(const sl_agg *a, void *acc, const sl_col *c, int row, int sign,
                        sl_err *err)
{
	return 0; /* identifies ARRAY_AGG; sl_agg_str_add / sl_agg_vals_add do the work */
}

static const sl_agg_vtab aggs[] = {
	{"COUNT", 1, count_type, 16, count_add, count_result, count_merge, 0, NULL, NULL},
	{"SUM", 1, sum_type, sizeof(acc_num), sum_add, sum_result, sum_merge, 0, NULL, NULL},
	{"AVG", 1, avg_type, sizeof(acc_num), sum_add, avg_result, sum_merge, 0, NULL, NULL},
	{"MIN", 0, minmax_type, sizeof(acc_num), min_add, val_result, min_merge, 1, NULL, NULL},
	{"MAX", 0, minmax_type, sizeof(acc_num), max_add, val_result, max_merge, 1, NULL, NULL},
	{"FIRST_VALUE", 0, minmax_type, sizeof(acc_num), first_add, val_result, first_merge,
	 0, NULL, NULL},
	{"LAST_VALUE", 0, minmax_type, sizeof(acc_num), last_add, val_result, last_merge, 0, NULL, NULL},
	{"STDDEV_POP", 1, var_type, sizeof(acc_var), var_add, stddev_pop_result, var_merge, 0, NULL, NULL},
	{"STDDEV_SAMP", 1, var_type, sizeof(acc_var), var_add, stddev_samp_result, var_merge,
	 0, NULL, NULL},
	{"VAR_POP", 1, var_type, sizeof(acc_var), var_add, var_pop_result, var_merge, 0, NULL, NULL},
	{"VAR_SAMP", 1, var_type, sizeof(acc_var), var_add, var_samp_result, var_merge, 0, NULL, NULL},
	{"VARIANCE", 1, var_type, sizeof(acc_var), var_add, var_samp_result, var_merge, 0, NULL, NULL},
	/* STDDEV = STDDEV_SAMP (Calcite's alias, which Flink 1.20 accepts) */
	{"STDDEV", 1, var_type, sizeof(acc_var), var_add, stddev_samp_result, var_merge, 0, NULL,
	 NULL},
	{"LISTAGG", 0, listagg_type, sizeof(acc_num), listagg_add, val_result, first_merge, 1, NULL, NULL},
	{"ARRAY_AGG", 0, arrayagg_type, sizeof(acc_num), arrayagg_add, val_result, first_merge, 1, NULL,
	 NULL},
};

const sl_agg_vtab *sl_agg_find(const char *name)
{
	for (size_t i = 0; i < sizeof(aggs) / sizeof(aggs[0]); i++)
		if (strcasecmp(aggs[i].name, name) == 0)
			return &aggs[i];
	return NULL;
}

/* ---- inline kinds (agg.h: sl_agg_fold_row) --------------------------------- */

int sl_agg_fast_kind(const sl_agg *a)
{
	if (a->filter_col >= 0 || a->distinct)
		return SL_AGGK_GENERIC;
	if (a->vt->add == count_add)
		return SL_AGGK_COUNT;
	if (a->vt->add != sum_add || a->arg_col < 0)
		return SL_AGGK_GENERIC;
	switch (sl_type_phys(a->arg_type)) {
	case SL_PHYS_I64: return SL_AGGK_SUM_I64;
	case SL_PHYS_F64: return SL_AGGK_SUM_F64;
	case SL_PHYS_I128: return SL_AGGK_SUM_DEC;
	default: return SL_AGGK_GENERIC;
	}
}

int sl_agg_is_count(const sl_agg *a)
{
	return a->vt->add == count_add;
}

int sl_agg_sum_overflow(const sl_agg *a, int row, sl_err *err)
{
	return dec_overflow(a, "SUM", row, err);
}

/* ---- string MIN / MAX / FIRST_VALUE / LAST_VALUE -------------------------- */

int sl_agg_is_str(const sl_agg *a)
{
	if (a->vt->add_row)
		return 0; /* user-defined: plain bytes in the slot */
	if (a->vt->add == arrayagg_add)
		return 1; /* its packed ARRAY, whatever the argument's type */
	return a->vt->add != count_add && a->vt->add != sum_add && a->vt->add != var_add &&
	       sl_type_phys(a->arg_type) == SL_PHYS_STR;
}

int sl_agg_keeps_nulls(const sl_agg *a)
{
	return a->vt->add == arrayagg_add;
}

static int str_key(sl_buf *b, int idx, const void *key, size_t klen)
{
	sl_buf_clear(b);
	return sl_buf_append(b, key, klen) || sl_buf_putc(b, (char)idx);
}

/* ARRAY_AGG over an append-only input: the group's packed array with the
 * value of (c, row) appended, built after the key in scratch. */
static int arrayagg_append(int idx, sl_state_table *t, int64_t ns, const void *key, size_t klen,
                           const sl_col *c, int row, sl_buf *scratch, sl_err *err)
{
	if (str_key(scratch, idx, key, klen))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	size_t kl = scratch->len;
	const void *cur;
	uint32_t clen, n = 0, zero = 0;
	int have = sl_state_get_var(t, ns, scratch->p, (uint32_t)kl, &cur, &clen) && clen >= 4;
	if ((have ? sl_buf_append(scratch, cur, clen) : sl_buf_append(scratch, &zero, 4)) ||
	    sl_rowcodec_value(c, row, scratch))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	memcpy(&n, scratch->p + kl, 4);
	n++;
	memcpy(scratch->p + kl, &n, 4);
	if (sl_state_put_var(t, ns, scratch->p, (uint32_t)kl, scratch->p + kl,
	                     (uint32_t)(scratch->len - kl)))
		return sl_err_set(err, SL_ENOMEM, "ARRAY_AGG: cannot store the group's array");
	return 0;
}

int sl_agg_str_add(const sl_agg *a, int idx, sl_state_table *t, int64_t ns, const void *key,
                   size_t klen, const sl_batch *in, int row, sl_buf *scratch, sl_err *err)
{
	if (a->filter_col >= 0 && !is_true(&in->cols[a->filter_col], row))
		return 0;
	const sl_col *c = &in->cols[a->arg_col];
	if (a->vt->add == arrayagg_add) /* NULLs too */
		return arrayagg_append(idx, t, ns, key, klen, c, row, scratch, err);
	if (c->null[row])
		return 0;
	if (str_key(scratch, idx, key, klen))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	const void *cur;
	uint32_t clen;
	int have = sl_state_get_var(t, ns, scratch->p, (uint32_t)scratch->len, &cur, &clen);
	const sl_str *v = &c->v.str[row];
	int take;
	if (have && a->vt->add == listagg_add) {
		/* kept string + separator + value, built after the key in scratch */
		size_t kl = scratch->len;
		const char *sep = a->sep ? a->sep : ",";
		size_t sl = a->sep ? a->seplen : 1;
		if (sl_buf_append(scratch, cur, clen) || sl_buf_append(scratch, sep, sl) ||
		    sl_buf_append(scratch, v->ptr, (size_t)v->len) ||
		    sl_state_put_var(t, ns, scratch->p, (uint32_t)kl, scratch->p + kl,
		                     (uint32_t)(scratch->len - kl)))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		return 0;
	}
	if (!have) {
		take = 1;
	} else if (a->vt->add == first_add) {
		take = 0;
	} else if (a->vt->add == last_add) {
		take = 1;
	} else {
		size_t n = (size_t)v->len < clen ? (size_t)v->len : clen;
		int cmp = memcmp(v->ptr, cur, n);
		if (!cmp)
			cmp = v->len < clen ? -1 : v->len > clen;
		take = a->vt->add == min_add ? cmp < 0 : cmp > 0;
	}
	if (take && sl_state_put_var(t, ns, scratch->p, (uint32_t)scratch->len, v->ptr,
	                             (uint32_t)v->len))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

int sl_agg_str_result(const sl_agg *a, int idx, sl_state_table *t, int64_t ns, const void *key,
                      size_t klen, sl_buf *scratch, sl_batch *ob, sl_col *out, int orow)
{
	if (str_key(scratch, idx, key, klen))
		return SL_ENOMEM;
	const void *cur;
	uint32_t clen;
	if (!sl_state_get_var(t, ns, scratch->p, (uint32_t)scratch->len, &cur, &clen)) {
		sl_col_set_null(out, orow);
		return 0;
	}
	return sl_col_set_str(ob, out, orow, cur, clen);
}

void sl_agg_str_delete(int idx, sl_state_table *t, int64_t ns, const void *key, size_t klen,
                       sl_buf *scratch)
{
	if (!str_key(scratch, idx, key, klen))
		sl_state_delete(t, ns, scratch->p, (uint32_t)scratch->len);
}

/* ---- MIN / MAX with retraction: the group's values with counts ------------ */

/* Bytes of the value of (c, row) as the multiset stores it. */
static const void *val_bytes(const sl_col *c, int row, uint32_t *len)
{
	switch (sl_type_phys(c->type)) {
	case SL_PHYS_I64: *len = 8; return &c->v.i64[row];
	case SL_PHYS_F64: *len = 8; return &c->v.f64[row];
	case SL_PHYS_I128: *len = 16; return &c->v.i128[row];
	default: *len = (uint32_t)c->v.str[row].len; return c->v.str[row].ptr;
	}
}

/* Compares stored values x[0..xl) and y[0..yl) of physical kind phys. */
static int val_cmp(int phys, const char *x, uint32_t xl, const char *y, uint32_t yl)
{
	switch (phys) {
	case SL_PHYS_I64: {
		int64_t u, v;
		memcpy(&u, x, 8);
		memcpy(&v, y, 8);
		return u < v ? -1 : u > v;
	}
	case SL_PHYS_F64: {
		double u, v;
		memcpy(&u, x, 8);
		memcpy(&v, y, 8);
		return u < v ? -1 : u > v;
	}
	case SL_PHYS_I128: {
		sl_i128 u, v;
		memcpy(&u, x, 16);
		memcpy(&v, y, 16);
		return u < v ? -1 : u > v;
	}
	default: {
		int c = memcmp(x, y, xl < yl ? xl : yl);
		return c ? c : xl < yl ? -1 : xl > yl;
	}
	}
}

/* Applies (v, sign) to the sorted entries in w.  Returns 0 or SL_ENOMEM. */
static int vals_apply(sl_buf *w, int phys, const void *v, uint32_t vl, int sign)
{
	size_t pos = 0;
	while (pos < w->len) {
		uint32_t el;
		memcpy(&el, w->p + pos, 4);
		const char *ev = w->p + pos + 4;
		int c = val_cmp(phys, v, vl, ev, el);
		if (c == 0) {
			int64_t n;
			memcpy(&n, ev + el, 8);
			n += sign;
			if (n > 0) {
				memcpy((char *)ev + el, &n, 8);
			} else {
				size_t sz = 4 + el + 8;
				memmove(w->p + pos, w->p + pos + sz, w->len - pos - sz);
				w->len -= sz;
			}
			return 0;
		}
		if (c < 0)
			break;
		pos += 4 + el + 8;
	}
	if (sign < 0)
		return 0; /* not held: nothing to take back */
	size_t sz = 4 + vl + 8, tail = w->len - pos;
	if (w->len + sz > w->cap && sl_buf_reserve(w, sz))
		return SL_ENOMEM;
	memmove(w->p + pos + sz, w->p + pos, tail);
	int64_t one = 1;
	memcpy(w->p + pos, &vl, 4);
	memcpy(w->p + pos + 4, v, vl);
	memcpy(w->p + pos + 4 + vl, &one, 8);
	w->len += sz;
	return 0;
}

/*
 * LISTAGG over updating input (as Flink's retracting LISTAGG): work holds
 * the group's values in arrival order, entries [u32 len][bytes]; +1
 * appends v, -1 removes its first occurrence (a value the group does not
 * hold changes nothing); then the list is stored in vals under the key in
 * scratch and its joined string in strs (deleted when the list is empty).
 */
static int list_apply(const sl_agg *a, sl_state_table *vals, sl_state_table *strs, int64_t ns,
                      sl_buf *scratch, sl_buf *work, const void *v, uint32_t vl, int sign,
                      sl_err *err)
{
	if (sign > 0) {
		if (sl_buf_append(work, &vl, 4) || sl_buf_append(work, v, vl))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	} else {
		uint32_t el = 0;
		for (size_t pos = 0; pos < work->len; pos += 4 + el) {
			memcpy(&el, work->p + pos, 4);
			if (el == vl && !memcmp(work->p + pos + 4, v, vl)) {
				size_t end = pos + 4 + el;
				memmove(work->p + pos, work->p + end, work->len - end);
				work->len -= 4 + el;
				break;
			}
		}
	}
	uint32_t kl = (uint32_t)scratch->len;
	if (!work->len) {
		sl_state_delete(vals, ns, scratch->p, kl);
		sl_state_delete(strs, ns, scratch->p, kl);
		return 0;
	}
	if (sl_state_put_var(vals, ns, scratch->p, kl, work->p, (uint32_t)work->len))
		return sl_err_set(err, SL_ENOMEM, "LISTAGG: cannot store the group's values");
	/* the joined string, built after the key in scratch */
	const char *sep = a->sep ? a->sep : ",";
	size_t sl = a->sep ? a->seplen : 1;
	uint32_t el = 0;
	for (size_t pos = 0; pos < work->len; pos += 4 + el) {
		memcpy(&el, work->p + pos, 4);
		if ((pos && sl_buf_append(scratch, sep, sl)) ||
		    sl_buf_append(scratch, work->p + pos + 4, el))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	if (sl_state_put_var(strs, ns, scratch->p, kl, scratch->p + kl, (uint32_t)(scratch->len - kl)))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

/*
 * ARRAY_AGG over updating input: vals holds the group's values in arrival
 * order, entries [u32 len][row-form bytes] (NULLs included); +1 appends
 * (c, row), -1 removes its first occurrence (nothing when not held); then
 * the packed array of the entries goes to strs (both deleted when the list
 * is empty: the result is NULL).
 */
static int arrayagg_list(int idx, sl_state_table *vals, sl_state_table *strs, int64_t ns,
                         const void *key, size_t klen, const sl_col *c, int row, int sign,
                         sl_buf *scratch, sl_buf *work, sl_err *err)
{
	if (str_key(scratch, idx, key, klen))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	uint32_t kl = (uint32_t)scratch->len, clen, el = 0, n = 0, vl;
	const void *cur;
	sl_buf_clear(work);
	if ((sl_state_get_var(vals, ns, scratch->p, kl, &cur, &clen) &&
	     sl_buf_append(work, cur, clen)) || sl_rowcodec_value(c, row, scratch))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	vl = (uint32_t)scratch->len - kl; /* the value, after the key */
	const char *v = scratch->p + kl;
	if (sign > 0) {
		if (sl_buf_append(work, &vl, 4) || sl_buf_append(work, v, vl))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	} else {
		for (size_t pos = 0; pos < work->len; pos += 4 + el) {
			memcpy(&el, work->p + pos, 4);
			if (el == vl && !memcmp(work->p + pos + 4, v, vl)) {
				size_t end = pos + 4 + el;
				memmove(work->p + pos, work->p + end, work->len - end);
				work->len -= 4 + el;
				break;
			}
		}
	}
	scratch->len = kl;
	if (!work->len) {
		sl_state_delete(vals, ns, scratch->p, kl);
		sl_state_delete(strs, ns, scratch->p, kl);
		return 0;
	}
	if (sl_state_put_var(vals, ns, scratch->p, kl, work->p, (uint32_t)work->len) ||
	    sl_buf_append(scratch, &n, 4))
		return sl_err_set(err, SL_ENOMEM, "ARRAY_AGG: cannot store the group's values");
	for (size_t pos = 0; pos < work->len; pos += 4 + el, n++) {
		memcpy(&el, work->p + pos, 4);
		if (sl_buf_append(scratch, work->p + pos + 4, el))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	memcpy(scratch->p + kl, &n, 4);
	if (sl_state_put_var(strs, ns, scratch->p, kl, scratch->p + kl, (uint32_t)(scratch->len - kl)))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

int sl_agg_vals_add(const sl_agg *a, int idx, sl_state_table *vals, sl_state_table *strs,
                    int64_t ns, const void *key, size_t klen, void *slot, const sl_batch *in,
                    int row, int sign, sl_buf *scratch, sl_buf *work, sl_err *err)
{
	if (a->filter_col >= 0 && !is_true(&in->cols[a->filter_col], row))
		return 0;
	const sl_col *c = &in->cols[a->arg_col];
	if (a->vt->add == arrayagg_add) /* NULLs too */
		return arrayagg_list(idx, vals, strs, ns, key, klen, c, row, sign, scratch, work, err);
	if (c->null[row])
		return 0;
	if (str_key(scratch, idx, key, klen))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	const void *cur;
	uint32_t clen, vl;
	sl_buf_clear(work);
	if (sl_state_get_var(vals, ns, scratch->p, (uint32_t)scratch->len, &cur, &clen) &&
	    sl_buf_append(work, cur, clen))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	int phys = sl_type_phys(c->type);
	const void *v = val_bytes(c, row, &vl);
	if (a->vt->add == listagg_add)
		return list_apply(a, vals, strs, ns, scratch, work, v, vl, sign, err);
	if (vals_apply(work, phys, v, vl, sign))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	/* the extreme: the first entry (MIN) or the last (MAX) */
	const char *ext = NULL;
	uint32_t el = 0;
	for (size_t pos = 0; pos < work->len; pos += 4 + el + 8) {
		memcpy(&el, work->p + pos, 4);
		ext = work->p + pos + 4;
		if (a->vt->add == min_add)
			break;
	}
	int rc = work->len ? sl_state_put_var(vals, ns, scratch->p, (uint32_t)scratch->len,
	                                      work->p, (uint32_t)work->len)
	                   : (sl_state_delete(vals, ns, scratch->p, (uint32_t)scratch->len), 0);
	if (rc)
		return sl_err_set(err, rc, "MIN/MAX: cannot store the group's values");
	if (phys == SL_PHYS_STR) {
		if (!ext)
			sl_state_delete(strs, ns, scratch->p, (uint32_t)scratch->len);
		else if (sl_state_put_var(strs, ns, scratch->p, (uint32_t)scratch->len, ext, el))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
		return 0;
	}
	acc_num *acc = (acc_num *)((char *)slot + a->offset);
	acc->n = ext != NULL;
	if (ext)
		memcpy(&acc->v, ext, el);
	return 0;
}
