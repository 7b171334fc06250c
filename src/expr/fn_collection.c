/*
 * fn_collection.c - the kernels of ARRAY and MAP values (data/packed.h):
 *
 *   ARRAY[v1, ...]    packs its arguments (already of the element type,
 *                     expr_type.c) into one value; NULL elements kept.
 *   MAP[k1, v1, ...]  packs key, value pairs; a repeated key keeps its last
 *                     value at the first key's position (Flink's map
 *                     constructor gives one entry per key).
 *   a[i]              ITEM(array, i): element i, 1-based; NULL when i is
 *                     out of range, 0 or negative, as Flink returns.
 *   m[k]              ITEM(map, k): the value of key k, NULL when absent.
 *   CARDINALITY(c)    the number of elements or entries.
 *   ELEMENT(a)        the sole element of a, NULL for an empty array, and
 *                     a run-time error for more than one (Flink raises
 *                     "... has more than one element").
 *
 * Values are built in a per-step buffer and copied into the step's arena
 * (the output batch's when the value reaches an output column); elements
 * read out of a value are copied there too, so results never point into a
 * packed value that lives in scratch memory.  Each step owns its packing
 * buffers (built at bind time, freed with the program).  An element of
 * ROW type cannot be read out (only ROW(...) and CAST results get ROW
 * register storage, expr_compile.c; ITEM's result would be an alias):
 * the binder refuses arr[i] there.  Any NULL argument of ITEM, CARDINALITY or ELEMENT gives NULL.
 */
#include "expr_int.h"
#include "data/packed.h"

#include <stdlib.h>
#include <string.h>

/* A step's scratch: packing buffers. */
typedef struct coll_aux {
	sl_buf buf, tmp;
} coll_aux;

static void aux_free(void *v)
{
	coll_aux *a = v;
	sl_buf_deinit(&a->buf);
	sl_buf_deinit(&a->tmp);
	free(a);
}

/* Stores the packed bytes of a->buf as row i of o. */
static int put_packed(sl_xctx *x, const sl_step *st, coll_aux *a, sl_col *o, int i)
{
	return sl_col_set_str_in(sl__x_arena(x, st), o, i, a->buf.p, (int64_t)a->buf.len);
}

/* Packs row i of every argument of st into a->buf (a constructor's
 * elements, or a MAP's keys and values in turn); the caller ends it with
 * the element count.  0 or an allocation failure. */
static int pack_args(sl_xctx *x, const sl_step *st, coll_aux *a, int i)
{
	int rc = sl_pack_begin(&a->buf);
	for (int j = 0; j < st->nargs && !rc; j++)
		rc = sl_pack_value(&a->buf, SL_X_ARG(x, st, j), i);
	return rc;
}

static int k_array(sl_xctx *x, const sl_step *st)
{
	coll_aux *a = st->aux;
	sl_col *o = SL_X_OUT(x, st);
	int rc = 0;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (rc)
			break;
		rc = pack_args(x, st, a, i);
		if (!rc) {
			sl_pack_end(&a->buf, (uint32_t)st->nargs);
			rc = put_packed(x, st, a, o, i);
		}
	});
	return rc ? sl_err_set(x->err, SL_ENOMEM, "out of memory in ARRAY[...]") : 0;
}

static int k_map(sl_xctx *x, const sl_step *st)
{
	coll_aux *a = st->aux;
	sl_col *o = SL_X_OUT(x, st);
	sl_type kt = sl_type_map_key(st->type), vt = sl_type_map_value(st->type);
	int rc = 0;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (rc)
			break;
		rc = pack_args(x, st, a, i);
		if (!rc) {
			sl_pack_end(&a->buf, (uint32_t)(st->nargs / 2));
			if (st->nargs > 2)
				rc = sl_pack_map_hashmap(&a->buf, kt, vt, &a->tmp, 0) < 0;
		}
		if (!rc)
			rc = put_packed(x, st, a, o, i);
	});
	return rc ? sl_err_set(x->err, SL_ENOMEM, "out of memory in MAP[...]") : 0;
}

static int bad_value(sl_xctx *x, const sl_step *st)
{
	return sl_err_set(x->err, SL_ERUNTIME, "'%s': malformed %s value", sl_fn_name(st->fn),
	                  st->fn == SL_FN_ITEM ? "collection" : "ARRAY");
}

/* arr[i]: steps over i - 1 elements and decodes the i-th into o. */
static int k_item_array(sl_xctx *x, const sl_step *st)
{
	const sl_col *c = SL_X_ARG(x, st, 0), *ix = SL_X_ARG(x, st, 1);
	sl_col *o = SL_X_OUT(x, st);
	sl_type et = sl_type_elem(SL_X_ATYPE(x->p, st, 0));
	sl_arena *ar = sl__x_arena(x, st);
	int rc = 0;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		sl_col_clear(o, i);
		if (rc || c->null[i] || ix->null[i])
			continue;
		sl_unpack u;
		int64_t k = ix->v.i64[i];
		if (sl_unpack_open(&u, c->v.str[i].ptr, c->v.str[i].len)) {
			rc = SL_ESTATE;
			continue;
		}
		if (k < 1 || k > (int64_t)u.n)
			continue;
		for (int64_t s = 1; s < k && !rc; s++)
			rc = sl_unpack_skip(&u, et);
		if (!rc)
			rc = sl_unpack_next(&u, ar, o, i);
	});
	if (rc == SL_ENOMEM)
		return sl_err_set(x->err, SL_ENOMEM, "out of memory in '[...]'");
	return rc ? bad_value(x, st) : 0;
}

/* map[k]: the value of the first entry whose key has k's bytes. */
static int k_item_map(sl_xctx *x, const sl_step *st)
{
	coll_aux *a = st->aux;
	const sl_col *c = SL_X_ARG(x, st, 0), *key = SL_X_ARG(x, st, 1);
	sl_col *o = SL_X_OUT(x, st);
	sl_type mt = SL_X_ATYPE(x->p, st, 0);
	sl_arena *ar = sl__x_arena(x, st);
	int rc = 0;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		sl_col_clear(o, i);
		if (rc || c->null[i] || key->null[i])
			continue;
		int r = sl_unpack_map_get(c->v.str[i].ptr, c->v.str[i].len, mt, key, i, &a->buf, ar,
		                          o, i);
		if (r < 0)
			rc = r;
	});
	if (rc == SL_ENOMEM)
		return sl_err_set(x->err, SL_ENOMEM, "out of memory in '[...]'");
	return rc ? bad_value(x, st) : 0;
}

static int k_cardinality(sl_xctx *x, const sl_step *st)
{
	const sl_col *c = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	int rc = 0;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		sl_unpack u;
		if (c->null[i]) {
			sl_col_clear(o, i);
		} else if (sl_unpack_open(&u, c->v.str[i].ptr, c->v.str[i].len)) {
			rc = 1;
		} else {
			sl_col_set_i64(o, i, (int64_t)u.n);
		}
	});
	return rc ? bad_value(x, st) : 0;
}

static int k_element(sl_xctx *x, const sl_step *st)
{
	const sl_col *c = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	sl_arena *ar = sl__x_arena(x, st);
	int rc = 0;
	uint32_t many = 0;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		sl_col_clear(o, i);
		if (rc || many || c->null[i])
			continue;
		sl_unpack u;
		if (sl_unpack_open(&u, c->v.str[i].ptr, c->v.str[i].len))
			rc = SL_ESTATE;
		else if (u.n > 1)
			many = u.n;
		else if (u.n == 1)
			rc = sl_unpack_next(&u, ar, o, i);
	});
	if (many)
		return sl_err_set(x->err, SL_ERUNTIME, "ELEMENT: the array has %u elements (more "
		                  "than one)", many);
	if (rc == SL_ENOMEM)
		return sl_err_set(x->err, SL_ENOMEM, "out of memory in ELEMENT");
	return rc ? bad_value(x, st) : 0;
}

/* Picks the kernel of a collection function; builds the step's scratch. */
int sl__bind_collection(sl_prog *p, sl_step *st, sl_err *err)
{
	sl_type t0 = SL_X_ATYPE(p, st, 0);
	switch (st->fn) {
	case SL_FN_ARRAY: st->k = k_array; break;
	case SL_FN_MAP: st->k = k_map; break;
	case SL_FN_ITEM: st->k = t0.id == SL_T_MAP ? k_item_map : k_item_array; break;
	case SL_FN_CARDINALITY: st->k = k_cardinality; return 0;
	case SL_FN_ELEMENT: st->k = k_element; return 0;
	default: return SL_ENOTSUP;
	}
	coll_aux *a = calloc(1, sizeof(*a));
	if (!a || sl__prog_on_free(p, aux_free, a)) {
		free(a);
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	sl_buf_init(&a->buf);
	sl_buf_init(&a->tmp);
	st->aux = a;
	return 0;
}
