/*
 * fn_array.c - the kernels of Flink's collection functions over packed
 * ARRAY and MAP values (data/packed.h; type rules in expr_type_coll.c):
 *
 *   ARRAY_CONTAINS(a, x)   TRUE when an element equals x; a NULL x finds a
 *                          NULL element ("checking for null elements in the
 *                          array is supported").
 *   ARRAY_POSITION(a, x)   1-based position of the first element equal to
 *                          x, 0 when none; NULL when a or x is NULL.
 *   ARRAY_REMOVE(a, x)     a without every element equal to x (a NULL x
 *                          removes the NULL elements); order kept.
 *   ARRAY_DISTINCT(a)      the first occurrence of each element, in order
 *                          (NULL elements are one element).
 *   ARRAY_REVERSE(a)       the elements in reverse order.
 *   ARRAY_SLICE(a, s[, e]) elements s..e inclusive, 1-based, negative
 *                          counted from the end, 0 the beginning; e omitted
 *                          is the length; an empty array when s is after e
 *                          or both are out of range (Flink's
 *                          ArraySliceFunction: s = max(1, s'), e = e' == 0
 *                          ? 1 : min(e', n) after adding n + 1 to negative
 *                          ones).
 *   ARRAY_UNION(a, b)      the distinct elements of a, then of b.
 *   ARRAY_EXCEPT(a, b)     the distinct elements of a that are not in b.
 *   ARRAY_INTERSECT(a, b)  the distinct elements of a that are in b.
 *   ARRAY_CONCAT(a, ...)   the elements of each in turn.
 *   ARRAY_APPEND(a, x), ARRAY_PREPEND(a, x)   a with x added last / first
 *                          (a NULL x is added; Flink 1.20 takes the array
 *                          first in both, whatever its docs' yml says).
 *   ARRAY_MAX(a), ARRAY_MIN(a)   the greatest / least non-NULL element; NULL
 *                          for an empty array or one of NULLs only (the
 *                          first of equal ones; DOUBLEs by SQL's > and <,
 *                          as Flink's, so a NaN wins only when first).
 *   ARRAY_SORT(a[, asc[, nulls_first]])   sorted, ascending by default;
 *                          NULLs first when ascending and last when
 *                          descending unless nulls_first says otherwise.
 *   ARRAY_JOIN(a, d[, r])  the elements joined by d; NULL elements left out,
 *                          or written as r.
 *   MAP_KEYS(m), MAP_VALUES(m), MAP_ENTRIES(m)   arrays in entry order
 *                          (entries as ROW<key, value>).
 *   MAP_FROM_ARRAYS(k, v)  a map of k[i] -> v[i]; arrays of different
 *                          lengths are a run-time error (as Flink's); a
 *                          repeated key keeps its last value.
 *   MAP_UNION(m, ...)      the entries of all maps, a later map's value
 *                          replacing an earlier one's for the same key.
 *
 * NULL arguments: a NULL collection gives NULL; so does any NULL argument
 * except the needle of ARRAY_CONTAINS / ARRAY_REMOVE and the element of
 * ARRAY_APPEND / ARRAY_PREPEND (nullmask below), as Flink documents.
 *
 * Equality of elements is equality of their packed bytes (the row form of
 * rowcodec.h): the elements of one collection type encode alike, so this
 * is value equality, with doubles compared by their bits (-0.0 and 0.0
 * differ, NaN equals NaN: Java's Double.equals, which Flink's
 * ARRAY_DISTINCT, ARRAY_EXCEPT, ARRAY_INTERSECT and maps use);
 * ARRAY_CONTAINS, ARRAY_POSITION, ARRAY_REMOVE and ARRAY_UNION compare as
 * SQL's `=`, as Flink's do (needle_eq: DOUBLE elements as numbers, -0.0 =
 * 0.0 and NaN equal to nothing; nested values still by their bytes).  Ordering (MAX, MIN, SORT) decodes the elements into a scratch
 * column and compares by physical kind: integers, dates and times as
 * signed numbers, doubles as Java's Double.compare (-0.0 < 0.0, NaN
 * last), DECIMAL by its unscaled value (one scale per type), strings and
 * bytes by unsigned bytes (Flink's BinaryStringData order).  Duplicates
 * are found by comparing each element with the kept ones: O(n^2) in an
 * array's length, fine for the arrays of events (tens of elements), slow
 * for arrays of many thousands.
 *
 * Results are built in the step's buffers (grown once to the largest
 * value, no allocation per row in steady state) and copied into the
 * step's arena.  Any thread; a step's scratch is its own.
 */
#include "expr_int.h"
#include "data/packed.h"
#include "data/rowcodec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The bytes of one packed value (an element, a key or a map value). */
typedef struct span {
	const char *p;
	uint32_t len;
} span;

/* A step's scratch. */
typedef struct arr_aux {
	sl_buf out;      /* the packed result, or ARRAY_JOIN's text */
	sl_buf key;      /* a needle's bytes */
	sl_buf sp[3];    /* spans: of the inputs (sp[0], sp[1]) and kept ones (sp[2]) */
	sl_col col;      /* decoded elements, for ordering */
	int colcap;
	uint32_t *idx;   /* ARRAY_SORT's order */
	int idxcap;
	unsigned nullmask; /* bit j: a NULL argument j makes the result NULL */
	int (*row)(sl_xctx *x, const sl_step *st, struct arr_aux *a, int i, sl_col *o);
} arr_aux;

static void aux_free(void *v)
{
	arr_aux *a = v;
	sl_buf_deinit(&a->out);
	sl_buf_deinit(&a->key);
	for (int k = 0; k < 3; k++)
		sl_buf_deinit(&a->sp[k]);
	if (a->colcap)
		sl_col_free(&a->col);
	free(a->idx);
	free(a);
}

/* ---- spans -------------------------------------------------------------- */

/* Fills sb with the spans of the values of packed value (p, len): per
 * element of an ARRAY of et, or (per = 2, vt) key and value of a MAP's
 * entries.  *n gets the number of elements / entries.  0, SL_ESTATE or
 * SL_ENOMEM. */
static int spans_of(const sl_str *v, sl_type et, sl_type vt, int per, sl_buf *sb, uint32_t *n)
{
	sl_unpack u;
	if (sl_unpack_open(&u, v->ptr, v->len))
		return SL_ESTATE;
	sl_buf_clear(sb);
	if (sl_buf_reserve(sb, (size_t)u.n * (size_t)per * sizeof(span)))
		return SL_ENOMEM;
	span *s = (span *)sb->p;
	for (uint32_t e = 0; e < u.n * (uint32_t)per; e++) {
		const char *p0 = u.p;
		if (sl_unpack_skip(&u, per == 2 && (e & 1) ? vt : et))
			return SL_ESTATE;
		s[e].p = p0;
		s[e].len = (uint32_t)(u.p - p0);
	}
	sb->len = (size_t)u.n * (size_t)per * sizeof(span);
	*n = u.n;
	return 0;
}

/* The spans of row i's ARRAY argument j into a->sp[k]. */
static int arg_spans(sl_xctx *x, const sl_step *st, arr_aux *a, int j, int i, int k,
                     uint32_t *n)
{
	sl_type t = SL_X_ATYPE(x->p, st, j);
	return spans_of(&SL_X_ARG(x, st, j)->v.str[i], sl_type_elem(t), sl_type_elem(t), 1,
	                &a->sp[k], n);
}

static int span_eq(span a, span b)
{
	return a.len == b.len && memcmp(a.p, b.p, a.len) == 0;
}

/* Whether s equals one of in[0..n). */
static int span_in(span s, const span *in, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		if (span_eq(s, in[k]))
			return 1;
	return 0;
}

/* ---- building results ----------------------------------------------------- */

static int out_begin(arr_aux *a)
{
	return sl_pack_begin(&a->out);
}

static int out_add(arr_aux *a, span s)
{
	return sl_buf_append(&a->out, s.p, s.len) ? SL_ENOMEM : 0;
}

/* Ends the packed result (n values) and stores it as row i of o. */
static int out_end(sl_xctx *x, const sl_step *st, arr_aux *a, sl_col *o, int i, uint32_t n)
{
	sl_pack_end(&a->out, n);
	return sl_col_set_str_in(sl__x_arena(x, st), o, i, a->out.p, (int64_t)a->out.len)
	       ? SL_ENOMEM : 0;
}

static int needle_eq(span e, span nd, int f64);

/* Keeps s in the distinct list sp[2] (n kept so far) unless there already
 * (f64: compared as SQL's `=` compares DOUBLEs, needle_eq). */
static int keep_distinct(arr_aux *a, span s, uint32_t *n, int f64)
{
	const span *kept = (const span *)a->sp[2].p;
	for (uint32_t k = 0; k < *n; k++)
		if (needle_eq(s, kept[k], f64))
			return 0;
	if (sl_buf_append(&a->sp[2], &s, sizeof(s)))
		return SL_ENOMEM;
	(*n)++;
	return out_add(a, s);
}

/* ---- needles -------------------------------------------------------------- */

/* Row i of the needle (argument j) encoded as an element into a->key. */
static int needle_span(sl_xctx *x, const sl_step *st, arr_aux *a, int j, int i, span *s)
{
	sl_buf_clear(&a->key);
	if (sl_rowcodec_value(SL_X_ARG(x, st, j), i, &a->key))
		return SL_ENOMEM;
	s->p = a->key.p;
	s->len = (uint32_t)a->key.len;
	return 0;
}

/* Whether element e equals needle nd as SQL's `=` does (Flink's
 * ARRAY_CONTAINS, ARRAY_POSITION and ARRAY_REMOVE compare with it): by
 * bytes, except that DOUBLE / FLOAT elements compare as numbers (-0.0 =
 * 0.0, NaN equal to nothing); two NULLs match (the functions' rule for a
 * NULL needle). */
static int needle_eq(span e, span nd, int f64)
{
	if (!f64 || e.len != 9 || nd.len != 9)
		return span_eq(e, nd);
	double u, v;
	memcpy(&u, e.p + 1, 8);
	memcpy(&v, nd.p + 1, 8);
	return u == v;
}

static int elem_is_f64(sl_xctx *x, const sl_step *st, int j)
{
	return sl_type_phys(sl_type_elem(SL_X_ATYPE(x->p, st, j))) == SL_PHYS_F64;
}

static int r_contains(sl_xctx *x, const sl_step *st, arr_aux *a, int i, sl_col *o)
{
	uint32_t n;
	span nd;
	int rc = arg_spans(x, st, a, 0, i, 0, &n), f64 = elem_is_f64(x, st, 0);
	if (!rc)
		rc = needle_span(x, st, a, 1, i, &nd);
	if (rc)
		return rc;
	const span *s = (const span *)a->sp[0].p;
	uint32_t k = 0;
	while (k < n && !needle_eq(s[k], nd, f64))
		k++;
	if (st->fn == SL_FN_ARRAY_CONTAINS)
		sl_col_set_i64(o, i, k < n);
	else
		sl_col_set_i64(o, i, k < n ? (int64_t)k + 1 : 0);
	return 0;
}

static int r_remove(sl_xctx *x, const sl_step *st, arr_aux *a, int i, sl_col *o)
{
	uint32_t n, kept = 0;
	span nd;
	int rc = arg_spans(x, st, a, 0, i, 0, &n), f64 = elem_is_f64(x, st, 0);
	if (!rc)
		rc = needle_span(x, st, a, 1, i, &nd);
	if (!rc)
		rc = out_begin(a);
	const span *s = (const span *)a->sp[0].p;
	for (uint32_t k = 0; !rc && k < n; k++)
		if (!needle_eq(s[k], nd, f64) && !(rc = out_add(a, s[k])))
			kept++;
	return rc ? rc : out_end(x, st, a, o, i, kept);
}

static int r_append(sl_xctx *x, const sl_step *st, arr_aux *a, int i, sl_col *o)
{
	int first = st->fn == SL_FN_ARRAY_PREPEND;
	uint32_t n;
	span nd;
	int rc = arg_spans(x, st, a, 0, i, 0, &n);
	if (!rc)
		rc = needle_span(x, st, a, 1, i, &nd);
	if (!rc)
		rc = out_begin(a);
	if (!rc && first)
		rc = out_add(a, nd);
	const span *s = (const span *)a->sp[0].p;
	for (uint32_t k = 0; !rc && k < n; k++)
		rc = out_add(a, s[k]);
	if (!rc && !first)
		rc = out_add(a, nd);
	return rc ? rc : out_end(x, st, a, o, i, n + 1);
}

/* ---- reshaping ------------------------------------------------------------ */

static int r_distinct(sl_xctx *x, const sl_step *st, arr_aux *a, int i, sl_col *o)
{
	uint32_t n, kept = 0;
	int rc = arg_spans(x, st, a, 0, i, 0, &n);
	if (!rc)
		rc = out_begin(a);
	sl_buf_clear(&a->sp[2]);
	const span *s = (const span *)a->sp[0].p;
	for (uint32_t k = 0; !rc && k < n; k++) {
		if (st->fn == SL_FN_ARRAY_REVERSE)
			rc = out_add(a, s[n - 1 - k]), kept++;
		else
			rc = keep_distinct(a, s[k], &kept, 0);
	}
	return rc ? rc : out_end(x, st, a, o, i, kept);
}

static int r_slice(sl_xctx *x, const sl_step *st, arr_aux *a, int i, sl_col *o)
{
	uint32_t n;
	int rc = arg_spans(x, st, a, 0, i, 0, &n);
	if (rc)
		return rc;
	int64_t len = n, s = SL_X_ARG(x, st, 1)->v.i64[i];
	int64_t e = st->nargs > 2 ? SL_X_ARG(x, st, 2)->v.i64[i] : len;
	if ((rc = out_begin(a)))
		return rc;
	if (len == 0)
		return out_end(x, st, a, o, i, 0);
	s += s < 0 ? len + 1 : 0;
	e += e < 0 ? len + 1 : 0;
	s = s < 1 ? 1 : s;
	e = e == 0 ? 1 : e < len ? e : len;
	uint32_t kept = 0;
	const span *sp = (const span *)a->sp[0].p;
	for (int64_t k = s; !rc && k <= e; k++, kept++)
		rc = out_add(a, sp[k - 1]);
	return rc ? rc : out_end(x, st, a, o, i, kept);
}

/* ARRAY_UNION, ARRAY_EXCEPT, ARRAY_INTERSECT, ARRAY_CONCAT. */
static int r_setop(sl_xctx *x, const sl_step *st, arr_aux *a, int i, sl_col *o)
{
	uint32_t n0, n1 = 0, kept = 0;
	int rc = out_begin(a);
	sl_buf_clear(&a->sp[2]);
	if (st->fn == SL_FN_ARRAY_CONCAT) {
		for (int j = 0; !rc && j < st->nargs; j++) {
			if ((rc = arg_spans(x, st, a, j, i, 0, &n0)))
				break;
			const span *s = (const span *)a->sp[0].p;
			for (uint32_t k = 0; !rc && k < n0; k++, kept++)
				rc = out_add(a, s[k]);
		}
		return rc ? rc : out_end(x, st, a, o, i, kept);
	}
	if (!rc)
		rc = arg_spans(x, st, a, 0, i, 0, &n0);
	if (!rc)
		rc = arg_spans(x, st, a, 1, i, 1, &n1);
	const span *s0 = (const span *)a->sp[0].p, *s1 = (const span *)a->sp[1].p;
	int f64 = st->fn == SL_FN_ARRAY_UNION && elem_is_f64(x, st, 0);
	for (uint32_t k = 0; !rc && k < n0; k++) {
		int in1 = st->fn == SL_FN_ARRAY_UNION ? 0 : span_in(s0[k], s1, n1);
		if (st->fn != SL_FN_ARRAY_EXCEPT || !in1)
			if (st->fn != SL_FN_ARRAY_INTERSECT || in1)
				rc = keep_distinct(a, s0[k], &kept, f64);
	}
	for (uint32_t k = 0; !rc && st->fn == SL_FN_ARRAY_UNION && k < n1; k++)
		rc = keep_distinct(a, s1[k], &kept, f64);
	return rc ? rc : out_end(x, st, a, o, i, kept);
}

/* ---- ordering ------------------------------------------------------------- */

/* Decodes the elements s[0..n) into a->col (grown to n rows), strings
 * pointing into them.  0, SL_ESTATE or SL_ENOMEM. */
static int decode_all(arr_aux *a, sl_type et, const span *s, uint32_t n)
{
	if ((int)n > a->colcap) {
		if (a->colcap)
			sl_col_free(&a->col);
		a->colcap = 0;
		int cap = n < 64 ? 64 : (int)n;
		if (sl_col_new(&a->col, et, cap)) {
			sl_col_free(&a->col);
			return SL_ENOMEM;
		}
		a->colcap = cap;
	}
	for (uint32_t k = 0; k < n; k++) {
		const char *p = s[k].p;
		if (sl_rowcodec_get(&p, s[k].p + s[k].len, NULL, &a->col, (int)k))
			return SL_ESTATE;
	}
	return 0;
}

/* Compares non-NULL values r1 and r2 of c: < 0, 0, > 0. */
static int cmp_vals(const sl_col *c, int r1, int r2)
{
	switch (sl_type_phys(c->type)) {
	case SL_PHYS_I64: {
		int64_t u = c->v.i64[r1], v = c->v.i64[r2];
		return (u > v) - (u < v);
	}
	case SL_PHYS_F64: { /* Java's Double.compare */
		double u = c->v.f64[r1], v = c->v.f64[r2];
		if (u < v)
			return -1;
		if (u > v)
			return 1;
		int nu = isnan(u) != 0, nv = isnan(v) != 0;
		if (nu || nv)
			return nu - nv;
		return (signbit(v) != 0) - (signbit(u) != 0); /* -0.0 < 0.0 */
	}
	case SL_PHYS_I128: {
		sl_i128 u = c->v.i128[r1], v = c->v.i128[r2];
		return (u > v) - (u < v);
	}
	case SL_PHYS_STR: {
		sl_str u = c->v.str[r1], v = c->v.str[r2];
		int64_t m = u.len < v.len ? u.len : v.len;
		int r = m ? memcmp(u.ptr, v.ptr, (size_t)m) : 0;
		return r ? r : (u.len > v.len) - (u.len < v.len);
	}
	case SL_PHYS_ROW: break;
	}
	return 0;
}

static int r_minmax(sl_xctx *x, const sl_step *st, arr_aux *a, int i, sl_col *o)
{
	uint32_t n;
	int rc = arg_spans(x, st, a, 0, i, 0, &n);
	const span *s = (const span *)a->sp[0].p;
	if (!rc)
		rc = decode_all(a, sl_type_elem(SL_X_ATYPE(x->p, st, 0)), s, n);
	if (rc)
		return rc;
	int best = -1, sign = st->fn == SL_FN_ARRAY_MAX ? 1 : -1;
	int f64 = sl_type_phys(a->col.type) == SL_PHYS_F64;
	for (uint32_t k = 0; k < n; k++) {
		if (a->col.null[k])
			continue;
		if (best < 0) {
			best = (int)k;
		} else if (f64) { /* SQL's > / <, as Flink: NaN never replaces, -0.0 ties 0.0 */
			double u = a->col.v.f64[k], v = a->col.v.f64[best];
			if (sign > 0 ? u > v : u < v)
				best = (int)k;
		} else if (sign * cmp_vals(&a->col, (int)k, best) > 0) {
			best = (int)k;
		}
	}
	if (best < 0)
		return 0; /* empty, or NULLs only: NULL */
	const char *p = s[best].p;
	return sl_rowcodec_get(&p, s[best].p + s[best].len, sl__x_arena(x, st), o, i);
}

/* qsort_r's comparison: by value, NULLs by the sort's rule. */
typedef struct sort_ctx {
	const sl_col *c;
	int desc, nulls_first;
} sort_ctx;

static int cmp_sort(const void *pa, const void *pb, void *arg)
{
	const sort_ctx *sc = arg;
	int r1 = (int)*(const uint32_t *)pa, r2 = (int)*(const uint32_t *)pb;
	int n1 = sc->c->null[r1], n2 = sc->c->null[r2];
	if (n1 || n2)
		return n1 == n2 ? r1 - r2 : (n1 ? -1 : 1) * (sc->nulls_first ? 1 : -1);
	int r = cmp_vals(sc->c, r1, r2) * (sc->desc ? -1 : 1);
	return r ? r : r1 - r2; /* stable */
}

static int r_sort(sl_xctx *x, const sl_step *st, arr_aux *a, int i, sl_col *o)
{
	uint32_t n;
	int rc = arg_spans(x, st, a, 0, i, 0, &n);
	const span *s = (const span *)a->sp[0].p;
	if (!rc)
		rc = decode_all(a, sl_type_elem(SL_X_ATYPE(x->p, st, 0)), s, n);
	if (!rc && (int)n > a->idxcap) {
		uint32_t *ix = realloc(a->idx, sizeof(uint32_t) * n);
		if (!ix)
			return SL_ENOMEM;
		a->idx = ix;
		a->idxcap = (int)n;
	}
	if (rc)
		return rc;
	int asc = st->nargs > 1 ? SL_X_ARG(x, st, 1)->v.i64[i] != 0 : 1;
	sort_ctx sc = {&a->col, !asc, st->nargs > 2 ? SL_X_ARG(x, st, 2)->v.i64[i] != 0 : asc};
	for (uint32_t k = 0; k < n; k++)
		a->idx[k] = k;
	if (n > 1)
		qsort_r(a->idx, n, sizeof(uint32_t), cmp_sort, &sc);
	if ((rc = out_begin(a)))
		return rc;
	for (uint32_t k = 0; !rc && k < n; k++)
		rc = out_add(a, s[a->idx[k]]);
	return rc ? rc : out_end(x, st, a, o, i, n);
}

static int r_join(sl_xctx *x, const sl_step *st, arr_aux *a, int i, sl_col *o)
{
	uint32_t n;
	int rc = arg_spans(x, st, a, 0, i, 0, &n);
	if (rc)
		return rc;
	const sl_str *d = &SL_X_ARG(x, st, 1)->v.str[i];
	const sl_str *nr = st->nargs > 2 ? &SL_X_ARG(x, st, 2)->v.str[i] : NULL;
	const span *s = (const span *)a->sp[0].p;
	int first = 1;
	sl_buf_clear(&a->out);
	for (uint32_t k = 0; !rc && k < n; k++) {
		const char *p = s[k].p;
		const char *txt;
		uint32_t len;
		if (*p) { /* NULL: left out, or the replacement */
			if (!nr)
				continue;
			txt = nr->ptr, len = (uint32_t)nr->len;
		} else {
			memcpy(&len, p + 1, 4);
			txt = p + 5;
		}
		if ((!first && sl_buf_append(&a->out, d->ptr, (size_t)d->len)) ||
		    sl_buf_append(&a->out, txt, len))
			rc = SL_ENOMEM;
		first = 0;
	}
	if (rc)
		return rc;
	return sl_col_set_str_in(sl__x_arena(x, st), o, i, a->out.len ? a->out.p : "",
	                         (int64_t)a->out.len) ? SL_ENOMEM : 0;
}

/* ---- maps ----------------------------------------------------------------- */

/* The entry spans (key, value, key, value...) of row i's MAP argument j. */
static int map_spans(sl_xctx *x, const sl_step *st, arr_aux *a, int j, int i, int k,
                     uint32_t *n)
{
	sl_type t = SL_X_ATYPE(x->p, st, j);
	return spans_of(&SL_X_ARG(x, st, j)->v.str[i], sl_type_map_key(t), sl_type_map_value(t),
	                2, &a->sp[k], n);
}

static int r_map_parts(sl_xctx *x, const sl_step *st, arr_aux *a, int i, sl_col *o)
{
	uint32_t n;
	int rc = map_spans(x, st, a, 0, i, 0, &n);
	if (!rc)
		rc = out_begin(a);
	const span *s = (const span *)a->sp[0].p;
	static const char row_present = 0; /* a non-NULL ROW<key, value>'s null byte */
	for (uint32_t k = 0; !rc && k < n; k++) {
		if (st->fn == SL_FN_MAP_ENTRIES) {
			rc = sl_buf_append(&a->out, &row_present, 1) ? SL_ENOMEM : 0;
			if (!rc)
				rc = out_add(a, s[2 * k]);
			if (!rc)
				rc = out_add(a, s[2 * k + 1]);
		} else {
			rc = out_add(a, s[2 * k + (st->fn == SL_FN_MAP_VALUES)]);
		}
	}
	return rc ? rc : out_end(x, st, a, o, i, n);
}

/* Ends a MAP built in a->out from n entries: one entry per key, the last
 * value at the first key's place (packed.h), stored as row i of o. */
static int map_end(sl_xctx *x, const sl_step *st, arr_aux *a, sl_col *o, int i, uint32_t n)
{
	sl_pack_end(&a->out, n);
	int kept = sl_pack_map_dedup(&a->out, sl_type_map_key(st->type),
	                             sl_type_map_value(st->type), &a->key);
	if (kept < 0)
		return kept;
	return sl_col_set_str_in(sl__x_arena(x, st), o, i, a->out.p, (int64_t)a->out.len)
	       ? SL_ENOMEM : 0;
}

static int r_map_from_arrays(sl_xctx *x, const sl_step *st, arr_aux *a, int i, sl_col *o)
{
	uint32_t nk, nv;
	int rc = arg_spans(x, st, a, 0, i, 0, &nk);
	if (!rc)
		rc = arg_spans(x, st, a, 1, i, 1, &nv);
	if (rc)
		return rc;
	if (nk != nv)
		return sl_err_set(x->err, SL_ERUNTIME, "Invalid function MAP_FROM_ARRAYS call: The "
		                  "length of the keys array %u is not equal to the length of the "
		                  "values array %u", nk, nv);
	const span *k = (const span *)a->sp[0].p, *v = (const span *)a->sp[1].p;
	rc = out_begin(a);
	for (uint32_t e = 0; !rc && e < nk; e++)
		if (!(rc = out_add(a, k[e])))
			rc = out_add(a, v[e]);
	return rc ? rc : map_end(x, st, a, o, i, nk);
}

static int r_map_union(sl_xctx *x, const sl_step *st, arr_aux *a, int i, sl_col *o)
{
	uint32_t total = 0;
	int rc = out_begin(a);
	for (int j = 0; !rc && j < st->nargs; j++) {
		uint32_t n;
		if ((rc = map_spans(x, st, a, j, i, 0, &n)))
			break;
		const span *s = (const span *)a->sp[0].p;
		for (uint32_t k = 0; !rc && k < 2 * n; k++)
			rc = out_add(a, s[k]);
		total += n;
	}
	return rc ? rc : map_end(x, st, a, o, i, total);
}

/* ---- the kernel ----------------------------------------------------------- */

static int k_array_fn(sl_xctx *x, const sl_step *st)
{
	arr_aux *a = st->aux;
	sl_col *o = SL_X_OUT(x, st);
	int rc = 0;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (rc)
			break;
		sl_col_clear(o, i);
		int isnull = 0;
		for (int j = 0; j < st->nargs && !isnull; j++)
			isnull = ((a->nullmask >> j) & 1) && SL_X_ARG(x, st, j)->null[i];
		if (!isnull)
			rc = a->row(x, st, a, i, o);
	});
	if (!rc)
		return 0;
	if (rc == SL_ERUNTIME)
		return rc; /* message set */
	if (rc == SL_ENOMEM)
		return sl_err_set(x->err, SL_ENOMEM, "out of memory in %s", sl_fn_name(st->fn));
	return sl_err_set(x->err, SL_ERUNTIME, "'%s': malformed ARRAY or MAP value",
	                  sl_fn_name(st->fn));
}

int sl__bind_array_fn(sl_prog *p, sl_step *st, sl_err *err)
{
	int (*row)(sl_xctx *, const sl_step *, arr_aux *, int, sl_col *) = NULL;
	unsigned all = (1u << st->nargs) - 1, mask = all;
	switch (st->fn) {
	case SL_FN_ARRAY_CONTAINS: row = r_contains, mask = 1; break;
	case SL_FN_ARRAY_POSITION: row = r_contains; break;
	case SL_FN_ARRAY_REMOVE: row = r_remove, mask = 1; break;
	case SL_FN_ARRAY_APPEND: row = r_append, mask = 1; break;
	case SL_FN_ARRAY_PREPEND: row = r_append, mask = 1; break;
	case SL_FN_ARRAY_DISTINCT: case SL_FN_ARRAY_REVERSE: row = r_distinct; break;
	case SL_FN_ARRAY_SLICE: row = r_slice; break;
	case SL_FN_ARRAY_UNION: case SL_FN_ARRAY_EXCEPT: case SL_FN_ARRAY_INTERSECT:
	case SL_FN_ARRAY_CONCAT: row = r_setop; break;
	case SL_FN_ARRAY_MAX: case SL_FN_ARRAY_MIN: row = r_minmax; break;
	case SL_FN_ARRAY_SORT: row = r_sort; break;
	case SL_FN_ARRAY_JOIN: row = r_join; break;
	case SL_FN_MAP_KEYS: case SL_FN_MAP_VALUES: case SL_FN_MAP_ENTRIES: row = r_map_parts; break;
	case SL_FN_MAP_FROM_ARRAYS: row = r_map_from_arrays; break;
	case SL_FN_MAP_UNION: row = r_map_union; break;
	default: return SL_ENOTSUP;
	}
	arr_aux *a = calloc(1, sizeof(*a));
	if (!a || sl__prog_on_free(p, aux_free, a)) {
		free(a);
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	sl_buf_init(&a->out);
	sl_buf_init(&a->key);
	for (int k = 0; k < 3; k++)
		sl_buf_init(&a->sp[k]);
	a->row = row;
	a->nullmask = mask;
	st->aux = a;
	st->k = k_array_fn;
	return 0;
}
