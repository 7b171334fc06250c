/*
 * fn_json.c - Flink's JSON functions: IS JSON, JSON_EXISTS, JSON_VALUE,
 * JSON_QUERY (json_path.c reads the text and walks the path), and the
 * constructors JSON_OBJECT, JSON_ARRAY and JSON_STRING.
 *
 * Semantics follow Flink 1.20 (SqlJsonUtils): a path without a mode is
 * strict; in lax mode a missing value, a JSON null or input that is not
 * JSON is "empty", in strict mode it is an error; then the ON EMPTY /
 * ON ERROR clause decides (NULL, ERROR, DEFAULT value, EMPTY ARRAY/OBJECT,
 * TRUE/FALSE/UNKNOWN).  JSON_VALUE returns scalars only (a string value
 * unescaped, a number, true/false) converted to the RETURNING
 * type as CAST from text would (a value that does not convert takes the
 * ON ERROR branch); numbers read as Flink's JSON provider reads them
 * (1.50 is 1.5, see json_path.c).  JSON_QUERY returns arrays and objects in compact form
 * (no blanks, strings re-escaped as Jackson writes them), with the wrapper
 * applied first; RETURNING ARRAY<STRING> gives the elements of the list
 * the wrapped value is (k_json_query_array), each scalar as its text, each
 * array or object as compact JSON.  The constructors write compact JSON with object keys
 * sorted (Flink sorts them), NULL ON NULL / ABSENT ON NULL, and insert the
 * output of a nested JSON_OBJECT / JSON_ARRAY as JSON, not as a string.
 *
 * Per step, a literal path is parsed once at bind time (a path using a
 * feature sluice lacks, such as filters, is a planning error); a path from
 * a column is parsed again only when it changes.  The step's state owns
 * the evaluation buffers and a text buffer, grown and reused, so rows do
 * not allocate except for the result text in the step's arena.
 *
 * JSON_ARRAYAGG and JSON_OBJECTAGG are LISTAGG of one-element JSON_ARRAY /
 * JSON_OBJECT items under $JSON_AGG (k_json_agg below; the parser's
 * rewrite, parse_fn.c).
 */
#include "expr_int.h"
#include "json_path.h"
#include "data/valtext.h"
#include "data/packed.h"
#include "base/timeutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct jstate {
	sl_jpath path;
	int path_rc;          /* SL_JP_* of the parsed path */
	char path_msg[160];
	int have_path;        /* path parsed (literal, or the last row's) */
	sl_arena parena;      /* the parsed path's memory */
	char *last;           /* text of a dynamic path */
	int64_t last_len, last_cap;
	sl_jeval ev;
	char *buf;            /* result text */
	int64_t len, cap;
	char *tmp;            /* unescaped strings */
	int64_t tcap;
	int *order;           /* JSON_OBJECT: entries sorted by key */
	sl_str *items;        /* $JSON_AGG: the items' bodies (sorted by key for an object) */
	int ncap;
	sl_jpath star;        /* JSON_QUERY RETURNING ARRAY: `$[*]`, an array's elements */
	sl_jeval ev2;         /* ... its matches */
	sl_buf pk;            /* ... the packed ARRAY<STRING> */
} jstate;

static void jstate_free(void *ptr)
{
	jstate *js = ptr;
	if (!js)
		return;
	sl_jeval_free(&js->ev);
	sl_jeval_free(&js->ev2);
	sl_buf_deinit(&js->pk);
	sl_arena_deinit(&js->parena);
	free(js->last);
	free(js->buf);
	free(js->tmp);
	free(js->order);
	free(js->items);
	free(js);
}

static int oom(sl_xctx *x, const sl_step *st)
{
	return sl_err_set(x->err, SL_ENOMEM, "out of memory in '%s'", sl_fn_name(st->fn));
}

static int64_t lit_int(const sl_prog *p, const sl_step *st, int j)
{
	const sl_value *v = sl__step_const(p, st, j);
	return v && !v->is_null ? v->v.i64 : 0;
}

static int parse_path(jstate *js, const char *p, int64_t n)
{
	sl_arena_reset(&js->parena);
	js->path_msg[0] = 0;
	js->path_rc = sl_jpath_parse(p, n, &js->parena, &js->path, js->path_msg, sizeof(js->path_msg));
	js->have_path = 1;
	return js->path_rc;
}

/* The path of row i (argument 1): parsed when it differs from the last. */
static int row_path(sl_xctx *x, const sl_step *st, jstate *js, int i)
{
	if (sl__step_const(x->p, st, 1))
		return js->path_rc;
	sl_str s = SL_X_ARG(x, st, 1)->v.str[i];
	if (js->have_path && s.len == js->last_len && !memcmp(js->last, s.ptr, (size_t)s.len))
		return js->path_rc;
	if (s.len + 1 > js->last_cap) { /* grown, never shrunk */
		char *nl = realloc(js->last, (size_t)s.len + 1);
		if (!nl)
			return SL_JP_NOMEM;
		js->last = nl;
		js->last_cap = s.len + 1;
	}
	memcpy(js->last, s.ptr, (size_t)s.len);
	js->last_len = s.len;
	return parse_path(js, s.ptr, s.len);
}

static int put_buf(jstate *js, const char *p, int64_t n)
{
	if (js->len + n + 1 > js->cap) {
		int64_t nc = js->cap ? js->cap * 2 : 256;
		while (nc < js->len + n + 1)
			nc *= 2;
		char *b = realloc(js->buf, (size_t)nc);
		if (!b)
			return -1;
		js->buf = b;
		js->cap = nc;
	}
	memcpy(js->buf + js->len, p, (size_t)n);
	js->len += n;
	js->buf[js->len] = 0;
	return 0;
}

/* Row i of o := a copy of js->buf in the step's arena. */
static int out_buf(sl_xctx *x, const sl_step *st, jstate *js, sl_col *o, int i)
{
	char *d = sl_arena_memdup(sl__x_arena(x, st), js->buf ? js->buf : "", (size_t)js->len + 1);
	if (!d)
		return oom(x, st);
	o->null[i] = 0;
	o->v.str[i].ptr = d;
	o->v.str[i].len = js->len;
	return 0;
}

/* eval_row's outcome for a path using a feature sluice lacks: x->err set. */
enum { JR_FATAL = -100 };

/* Evaluates the path of row i; msg receives the reason of SL_JR_ERROR.
 * A path sluice cannot evaluate (filters, ...) is not an ON ERROR case:
 * JR_FATAL with x->err set. */
static int eval_row(sl_xctx *x, const sl_step *st, jstate *js, int i, char *msg, size_t cap)
{
	int rc = row_path(x, st, js, i);
	if (rc == SL_JP_NOMEM)
		return snprintf(msg, cap, "out of memory"), SL_JR_ERROR;
	if (rc == SL_JP_UNSUPPORTED) {
		sl_str p = SL_X_ARG(x, st, 1)->v.str[i];
		sl_err_set(x->err, SL_ENOTSUP, "%s: %s in path '%.*s'", sl_fn_name(st->fn),
		           js->path_msg, (int)(p.len > 200 ? 200 : p.len), p.ptr);
		return JR_FATAL;
	}
	if (rc != SL_JP_OK) {
		snprintf(msg, cap, "illegal JSON path '%.*s': %s", (int)SL_X_ARG(x, st, 1)->v.str[i].len,
		         SL_X_ARG(x, st, 1)->v.str[i].ptr, js->path_msg);
		return SL_JR_ERROR;
	}
	sl_str s = SL_X_ARG(x, st, 0)->v.str[i];
	return sl_jpath_eval(&js->path, s.ptr, s.len, &js->ev, msg, cap);
}

static int is_scalar_kind(int k)
{
	return k != SL_JV_OBJECT && k != SL_JV_ARRAY;
}

static int raise(sl_xctx *x, const sl_step *st, const char *msg)
{
	return sl_err_set(x->err, SL_ERUNTIME, "%s: %s", sl_fn_name(st->fn), msg);
}

/* ---- IS JSON, JSON_EXISTS ------------------------------------------------ */

static int k_is_json(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	int want = (int)lit_int(x->p, st, 1);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		int64_t b, e;
		int k = a->null[i] ? SL_JV_NONE : sl_json_check(a->v.str[i].ptr, a->v.str[i].len, &b, &e);
		o->null[i] = 0;
		o->v.i64[i] = k != SL_JV_NONE &&
		              (want == 0 || (want == 1 && is_scalar_kind(k)) ||
		               (want == 2 && k == SL_JV_ARRAY) || (want == 3 && k == SL_JV_OBJECT));
	});
	return 0;
}

static int k_json_exists(sl_xctx *x, const sl_step *st)
{
	jstate *js = st->aux;
	sl_col *o = SL_X_OUT(x, st);
	int on_error = (int)lit_int(x->p, st, 2);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		char msg[256];
		if (SL_X_ARG(x, st, 0)->null[i] || SL_X_ARG(x, st, 1)->null[i]) {
			o->null[i] = 1;
			continue;
		}
		int r = eval_row(x, st, js, i, msg, sizeof(msg));
		if (r == JR_FATAL)
			return SL_ERUNTIME;
		o->null[i] = 0;
		if (r != SL_JR_ERROR) {
			o->v.i64[i] = r != SL_JR_EMPTY;
			continue;
		}
		if (on_error == SL_JSON_ERROR || !strcmp(msg, "out of memory"))
			return raise(x, st, msg);
		o->null[i] = on_error == SL_JSON_UNKNOWN;
		o->v.i64[i] = on_error == SL_JSON_TRUE;
	});
	return 0;
}

/* ---- JSON_VALUE ---------------------------------------------------------- */

/* The scalar at span sp converted into row i of o; 0, 1 does not convert,
 * <0 error. */
static int value_out(sl_xctx *x, const sl_step *st, jstate *js, sl_jspan sp, sl_col *o, int i)
{
	const char *s = SL_X_ARG(x, st, 0)->v.str[i].ptr + sp.start;
	int64_t n = sp.end - sp.start;
	js->len = 0;
	if (*s == '"') {
		int64_t tl = sl_json_unescape(s, n, &js->tmp, &js->tcap);
		if (tl < 0 || put_buf(js, js->tmp, tl))
			return oom(x, st);
	} else if (*s == '-' || (*s >= '0' && *s <= '9')) {
		char num[48];
		if (put_buf(js, num, sl_json_number(s, n, num)))
			return oom(x, st);
	} else if (put_buf(js, s, n)) {
		return oom(x, st);
	}
	if (sl__type_is_char(st->type))
		return out_buf(x, st, js, o, i);
	o->null[i] = 0;
	return sl__cast_text(x, st, js->buf, js->len, o, i);
}

/* ON EMPTY / ON ERROR of JSON_VALUE: beh_arg is the behaviour literal,
 * beh_arg + 1 the default. */
static int value_fallback(sl_xctx *x, const sl_step *st, int beh_arg, const char *msg,
                          sl_col *o, int i)
{
	int beh = (int)lit_int(x->p, st, beh_arg);
	if (beh == SL_JSON_ERROR)
		return raise(x, st, msg);
	if (beh == SL_JSON_DEFAULT)
		sl__copy_val(o, i, SL_X_ARG(x, st, beh_arg + 1), i, sl_type_phys(st->type));
	else
		o->null[i] = 1;
	return 0;
}

static int k_json_value(sl_xctx *x, const sl_step *st)
{
	jstate *js = st->aux;
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		char msg[256];
		int rc;
		if (SL_X_ARG(x, st, 0)->null[i] || SL_X_ARG(x, st, 1)->null[i]) {
			o->null[i] = 1;
			continue;
		}
		int r = eval_row(x, st, js, i, msg, sizeof(msg));
		if (r == JR_FATAL)
			return SL_ERUNTIME;
		int strict = js->path_rc == SL_JP_OK && js->path.strict;
		if (r == SL_JR_VALUE || r == SL_JR_LIST) {
			sl_jspan sp = r == SL_JR_VALUE ? js->ev.cur[0] : (sl_jspan){0, 0};
			const char *doc = SL_X_ARG(x, st, 0)->v.str[i].ptr;
			int k = r == SL_JR_LIST ? SL_JV_ARRAY : sl_json_kind(doc + sp.start, sp.end - sp.start);
			if (is_scalar_kind(k)) {
				if ((rc = value_out(x, st, js, sp, o, i)) < 0)
					return rc;
				if (rc == 0)
					continue;
				snprintf(msg, sizeof(msg), "cannot convert '%.60s' to the RETURNING type", js->buf);
				r = SL_JR_ERROR;
			} else if (strict) {
				snprintf(msg, sizeof(msg), "strict JSON path mode requires a scalar value");
				r = SL_JR_ERROR;
			} else {
				r = SL_JR_EMPTY;
			}
		}
		if (r == SL_JR_EMPTY)
			rc = value_fallback(x, st, 2, "empty result of JSON_VALUE is not allowed", o, i);
		else
			rc = value_fallback(x, st, 4, msg, o, i);
		if (rc)
			return rc;
	});
	return 0;
}

/* ---- JSON_QUERY ---------------------------------------------------------- */

static int query_fallback(sl_xctx *x, const sl_step *st, jstate *js, int beh, const char *msg,
                          sl_col *o, int i)
{
	if (beh == SL_JSON_ERROR)
		return raise(x, st, msg);
	if (beh == SL_JSON_NULL) {
		o->null[i] = 1;
		return 0;
	}
	js->len = 0;
	if (put_buf(js, beh == SL_JSON_EMPTY_ARRAY ? "[]" : "{}", 2))
		return oom(x, st);
	return out_buf(x, st, js, o, i);
}

/* Row i of JSON_QUERY as both kernels (k_json_query, k_json_query_array)
 * see it, set by query_row. */
typedef struct jq_row {
	char msg[256];        /* the reason of SL_JR_ERROR */
	const char *doc;      /* the row's JSON text */
	int r;                /* eval_row's outcome: SL_JR_VALUE, _LIST, _EMPTY or _ERROR */
	int list;             /* SL_JR_LIST: the path's matches are in js->ev */
	sl_jspan sp;          /* SL_JR_VALUE: the value's span in doc */
	int kind;             /* the value's SL_JV_* kind (SL_JV_ARRAY for a list) */
	int wrap;             /* the WRAPPER clause (argument 2) wraps it in an array */
} jq_row;

/* Evaluates row i of a JSON_QUERY step into *q.  Returns 0; 1 when an
 * argument is NULL (row i of o is set to NULL: the row is done); or
 * SL_ERUNTIME with x->err set (a path sluice cannot evaluate). */
static int query_row(sl_xctx *x, const sl_step *st, jstate *js, sl_col *o, int i, jq_row *q)
{
	if (SL_X_ARG(x, st, 0)->null[i] || SL_X_ARG(x, st, 1)->null[i]) {
		o->null[i] = 1;
		return 1;
	}
	q->doc = SL_X_ARG(x, st, 0)->v.str[i].ptr;
	if ((q->r = eval_row(x, st, js, i, q->msg, sizeof(q->msg))) == JR_FATAL)
		return SL_ERUNTIME;
	int wrapper = (int)lit_int(x->p, st, 2);
	q->list = q->r == SL_JR_LIST;
	q->sp = q->r == SL_JR_VALUE ? js->ev.cur[0] : (sl_jspan){0, 0};
	q->kind = q->list ? SL_JV_ARRAY
	        : q->r == SL_JR_VALUE ? sl_json_kind(q->doc + q->sp.start, q->sp.end - q->sp.start)
	                              : SL_JV_NONE;
	q->wrap = wrapper == SL_JSON_UNCONDITIONAL_WRAPPER ||
	          (wrapper == SL_JSON_CONDITIONAL_WRAPPER && q->kind != SL_JV_ARRAY);
	return 0;
}

static int k_json_query(sl_xctx *x, const sl_step *st)
{
	jstate *js = st->aux;
	sl_col *o = SL_X_OUT(x, st);
	int on_empty = (int)lit_int(x->p, st, 3), on_error = (int)lit_int(x->p, st, 4);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		jq_row q;
		int rc = query_row(x, st, js, o, i, &q);
		if (rc < 0)
			return rc;
		if (rc)
			continue;
		if (q.r == SL_JR_VALUE || q.r == SL_JR_LIST) {
			if (!q.wrap && is_scalar_kind(q.kind)) {
				if (js->path.strict) {
					snprintf(q.msg, sizeof(q.msg),
					         "strict JSON path mode requires an array or object value");
					rc = query_fallback(x, st, js, on_error, q.msg, o, i);
				} else {
					rc = query_fallback(x, st, js, on_empty, "empty result of JSON_QUERY is not allowed",
					                    o, i);
				}
				if (rc)
					return rc;
				continue;
			}
			js->len = 0;
			int bad = (q.wrap && put_buf(js, "[", 1)) || (q.list && put_buf(js, "[", 1));
			for (int c = 0; !bad && c < (q.list ? js->ev.ncur : 1); c++) {
				sl_jspan e = js->ev.cur[c];
				bad = (c > 0 && put_buf(js, ",", 1)) ||
				      sl_json_compact(q.doc + e.start, e.end - e.start, &js->buf, &js->len, &js->cap);
			}
			bad = bad || (q.list && put_buf(js, "]", 1)) || (q.wrap && put_buf(js, "]", 1));
			if (bad)
				return oom(x, st);
			if ((rc = out_buf(x, st, js, o, i)))
				return rc;
			continue;
		}
		if (q.r == SL_JR_EMPTY)
			rc = query_fallback(x, st, js, on_empty, "empty result of JSON_QUERY is not allowed", o, i);
		else
			rc = query_fallback(x, st, js, on_error, q.msg, o, i);
		if (rc)
			return rc;
	});
	return 0;
}

/* ---- JSON_QUERY ... RETURNING ARRAY<STRING> ------------------------------- */

/* Appends element e of document doc to the packed array as Flink's
 * SqlJsonUtils.jsonQuery does: a JSON null is NULL, a scalar its
 * String.valueOf (a string unescaped, a number as Jackson reads it), an
 * array or object its compact JSON. */
static int pack_elem(jstate *js, const char *doc, sl_jspan e)
{
	const char *s = doc + e.start;
	int64_t n = e.end - e.start;
	int k = sl_json_kind(s, n);
	uint8_t nul = k == SL_JV_NULL;
	js->len = 0;
	if (k == SL_JV_STRING) {
		int64_t tl = sl_json_unescape(s, n, &js->tmp, &js->tcap);
		if (tl < 0 || put_buf(js, js->tmp, tl))
			return -1;
	} else if (k == SL_JV_NUMBER) {
		char num[48];
		if (put_buf(js, num, sl_json_number(s, n, num)))
			return -1;
	} else if (k == SL_JV_OBJECT || k == SL_JV_ARRAY) {
		if (sl_json_compact(s, n, &js->buf, &js->len, &js->cap))
			return -1;
	} else if (!nul && put_buf(js, s, n)) {
		return -1;
	}
	sl_str v = {js->buf ? js->buf : "", js->len};
	sl_col c = {.type = sl_type_make(SL_T_VARCHAR), .null = &nul, .v.str = &v};
	return sl_pack_value(&js->pk, &c, 0);
}

/* The elements of the JSON array at span a of doc into js->ev2 (`$[*]`):
 * their count, or -1. */
static int array_elems(jstate *js, const char *doc, sl_jspan a)
{
	char msg[64];
	int r = sl_jpath_eval(&js->star, doc + a.start, a.end - a.start, &js->ev2, msg, sizeof(msg));
	if (r != SL_JR_LIST)
		return r == SL_JR_EMPTY ? 0 : -1;
	for (int i = 0; i < js->ev2.ncur; i++) { /* spans relative to the array's text */
		js->ev2.cur[i].start += a.start;
		js->ev2.cur[i].end += a.start;
	}
	return js->ev2.ncur;
}

/* ON EMPTY / ON ERROR returning an array: NULL, ERROR, EMPTY ARRAY ([]);
 * EMPTY OBJECT is an error, as Flink raises ("illegal ... behavior"). */
static int query_array_fallback(sl_xctx *x, const sl_step *st, jstate *js, int beh,
                                const char *msg, sl_col *o, int i)
{
	if (beh == SL_JSON_EMPTY_OBJECT)
		return raise(x, st, "EMPTY OBJECT ON EMPTY / ON ERROR cannot return an ARRAY<STRING>");
	if (beh != SL_JSON_EMPTY_ARRAY)
		return query_fallback(x, st, js, beh, msg, o, i);
	sl_buf_clear(&js->pk);
	if (sl_pack_begin(&js->pk))
		return oom(x, st);
	sl_pack_end(&js->pk, 0);
	if (sl_col_set_str_in(sl__x_arena(x, st), o, i, js->pk.p, (int64_t)js->pk.len))
		return oom(x, st);
	return 0;
}

/*
 * JSON_QUERY(.. RETURNING ARRAY<STRING>) (Flink's SqlJsonUtils.jsonQuery,
 * JsonQueryReturnType.ARRAY): the value after the wrapper must be a list:
 * an indefinite path's matches or a JSON array (WITHOUT / CONDITIONAL
 * WRAPPER), or the one-element list a wrapper makes of anything else; a
 * scalar without a wrapper is empty in lax mode and an error in strict
 * mode, an object without one an error (Java's ClassCastException).
 */
static int k_json_query_array(sl_xctx *x, const sl_step *st)
{
	jstate *js = st->aux;
	sl_col *o = SL_X_OUT(x, st);
	int on_empty = (int)lit_int(x->p, st, 3), on_error = (int)lit_int(x->p, st, 4);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		jq_row q;
		int rc = query_row(x, st, js, o, i, &q);
		if (rc < 0)
			return rc;
		if (rc)
			continue;
		if (q.r == SL_JR_EMPTY || q.r == SL_JR_ERROR) {
			rc = q.r == SL_JR_EMPTY
			         ? query_array_fallback(x, st, js, on_empty,
			                                "empty result of JSON_QUERY is not allowed", o, i)
			         : query_array_fallback(x, st, js, on_error, q.msg, o, i);
			if (rc)
				return rc;
			continue;
		}
		if (!q.wrap && q.kind != SL_JV_ARRAY) {
			if (is_scalar_kind(q.kind) && !js->path.strict)
				rc = query_array_fallback(x, st, js, on_empty,
				                          "empty result of JSON_QUERY is not allowed", o, i);
			else
				rc = query_array_fallback(x, st, js, on_error,
				                          is_scalar_kind(q.kind)
				                              ? "strict JSON path mode requires an array or "
				                                "object value"
				                              : "an object is not an ARRAY<STRING>",
				                          o, i);
			if (rc)
				return rc;
			continue;
		}
		sl_buf_clear(&js->pk);
		int bad = sl_pack_begin(&js->pk);
		uint32_t n = 0;
		if (q.wrap && q.list) { /* the matches' list, as one JSON array element */
			js->len = 0;
			bad = bad || put_buf(js, "[", 1);
			for (int c = 0; !bad && c < js->ev.ncur; c++) {
				sl_jspan e = js->ev.cur[c];
				bad = (c > 0 && put_buf(js, ",", 1)) ||
				      sl_json_compact(q.doc + e.start, e.end - e.start, &js->buf, &js->len, &js->cap);
			}
			bad = bad || put_buf(js, "]", 1);
			uint8_t nul = 0;
			sl_str v = {js->buf, js->len};
			sl_col c = {.type = sl_type_make(SL_T_VARCHAR), .null = &nul, .v.str = &v};
			bad = bad || sl_pack_value(&js->pk, &c, 0);
			n = 1;
		} else if (q.wrap) {
			bad = bad || pack_elem(js, q.doc, q.sp);
			n = 1;
		} else if (q.list) {
			for (int c = 0; !bad && c < js->ev.ncur; c++)
				bad = pack_elem(js, q.doc, js->ev.cur[c]);
			n = (uint32_t)js->ev.ncur;
		} else {
			int m = array_elems(js, q.doc, q.sp);
			bad = bad || m < 0;
			for (int c = 0; !bad && c < m; c++)
				bad = pack_elem(js, q.doc, js->ev2.cur[c]);
			n = m < 0 ? 0 : (uint32_t)m;
		}
		if (bad)
			return oom(x, st);
		sl_pack_end(&js->pk, n);
		if (sl_col_set_str_in(sl__x_arena(x, st), o, i, js->pk.p, (int64_t)js->pk.len))
			return oom(x, st);
	});
	return 0;
}

/* ---- constructors ------------------------------------------------------- */

/*
 * A DECIMAL as Flink's JSON constructors write it (Jackson's node factory:
 * BigDecimal.stripTrailingZeros().toString()): -0.500 is -0.5, 0.00 is 0,
 * 1200.00 is 1.2E+3, 0.0000001 is 1E-7.  Found by make test-flink.  out
 * holds at least 128 bytes.
 */
static int dec_json_text(sl_i128 v, int scale, char *out)
{
	char d[48];
	int neg = v < 0;
	int n = sl_dec_format(neg ? -v : v, 0, d); /* the unscaled digits */
	if (n == 1 && d[0] == '0')
		return sprintf(out, "0");
	while (n > 1 && d[n - 1] == '0') {
		n--;
		scale--;
	}
	d[n] = 0;
	int adj = n - 1 - scale; /* exponent of the first digit */
	char *o = out;
	if (neg)
		*o++ = '-';
	if (scale >= 0 && adj >= -6) {
		if (scale == 0) {
			o += sprintf(o, "%s", d);
		} else if (n > scale) {
			o += sprintf(o, "%.*s.%s", n - scale, d, d + n - scale);
		} else {
			o += sprintf(o, "0.");
			for (int k = 0; k < scale - n; k++)
				*o++ = '0';
			o += sprintf(o, "%s", d);
		}
	} else {
		*o++ = d[0];
		if (n > 1)
			o += sprintf(o, ".%s", d + 1);
		o += sprintf(o, "E%c%d", adj < 0 ? '-' : '+', adj < 0 ? -adj : adj);
	}
	*o = 0;
	return (int)(o - out);
}

/* Appends the JSON text of row i of column c (type t); raw: c holds JSON. */
static int put_value(sl_xctx *x, jstate *js, const sl_col *c, int i, sl_type t, int raw)
{
	char b[48];
	if (c->null[i])
		return put_buf(js, "null", 4);
	if (raw)
		return put_buf(js, c->v.str[i].ptr, c->v.str[i].len);
	if (sl__type_is_char(t))
		return sl_json_quote(c->v.str[i].ptr, c->v.str[i].len, &js->buf, &js->len, &js->cap);
	if (t.id == SL_T_BOOLEAN)
		return c->v.i64[i] ? put_buf(js, "true", 4) : put_buf(js, "false", 5);
	if (t.id == SL_T_DOUBLE || t.id == SL_T_FLOAT) {
		int n = sl_double_text(c->v.f64[i], t.id == SL_T_FLOAT, b);
		int quote = !(b[0] == '-' || (b[0] >= '0' && b[0] <= '9')); /* NaN, Infinity */
		return (quote && put_buf(js, "\"", 1)) || put_buf(js, b, n) ||
		       (quote && put_buf(js, "\"", 1));
	}
	if (t.id == SL_T_DECIMAL) {
		char db[128];
		return put_buf(js, db, dec_json_text(c->v.i128[i], t.scale, db));
	}
	if (t.id == SL_T_TIMESTAMP || t.id == SL_T_TIMESTAMP_LTZ) {
		/* Flink: ISO_LOCAL_DATE_TIME of the wall clock (an LTZ's in UTC, then
		 * "Z"): seconds always, the fraction without trailing zeros */
		char tb[48];
		int n = sl_ts_format(c->v.i64[i], 9, 1, t.id == SL_T_TIMESTAMP_LTZ, tb);
		return put_buf(js, "\"", 1) || put_buf(js, tb, n) || put_buf(js, "\"", 1);
	}
	if (t.id == SL_T_BINARY || t.id == SL_T_VARBINARY) { /* Jackson: base64 text */
		static const char B64[] =
			"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		const unsigned char *p = (const unsigned char *)c->v.str[i].ptr;
		int64_t len = c->v.str[i].len;
		if (put_buf(js, "\"", 1))
			return -1;
		for (int64_t k = 0; k < len; k += 3) {
			uint32_t v = (uint32_t)p[k] << 16;
			if (k + 1 < len)
				v |= (uint32_t)p[k + 1] << 8;
			if (k + 2 < len)
				v |= p[k + 2];
			char q[4] = {B64[v >> 18], B64[(v >> 12) & 63], k + 1 < len ? B64[(v >> 6) & 63] : '=',
			             k + 2 < len ? B64[v & 63] : '='};
			if (put_buf(js, q, 4))
				return -1;
		}
		return put_buf(js, "\"", 1);
	}
	sl_buf *tb = &x->p->tbuf;
	sl_buf_clear(tb);
	if (sl_value_text(c, i, "null", x->ctx->tz, tb))
		return -1;
	return put_buf(js, tb->p ? tb->p : "", (int64_t)tb->len);
}

static int cmp_key(sl_str a, sl_str b)
{
	int64_t n = a.len < b.len ? a.len : b.len;
	int c = memcmp(a.ptr, b.ptr, (size_t)n);
	return c ? c : (a.len > b.len) - (a.len < b.len);
}

static int k_json_object(sl_xctx *x, const sl_step *st)
{
	jstate *js = st->aux;
	sl_col *o = SL_X_OUT(x, st);
	int absent = (int)lit_int(x->p, st, 0), ne = (st->nargs - 1) / 3;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		int n = 0;
		for (int k = 0; k < ne; k++) {
			const sl_col *kc = SL_X_ARG(x, st, 1 + 3 * k), *vc = SL_X_ARG(x, st, 2 + 3 * k);
			if (kc->null[i])
				return raise(x, st, "a key must not be NULL");
			if (absent && vc->null[i])
				continue;
			/* insertion sort by key; a repeated key replaces the earlier one */
			sl_str key = kc->v.str[i];
			int pos = n, dup = -1;
			for (int m = 0; m < n; m++) {
				int c = cmp_key(key, SL_X_ARG(x, st, 1 + 3 * js->order[m])->v.str[i]);
				if (c == 0)
					dup = m;
				if (c < 0 && pos == n)
					pos = m;
			}
			if (dup >= 0) {
				js->order[dup] = k;
				continue;
			}
			memmove(js->order + pos + 1, js->order + pos, sizeof(int) * (size_t)(n - pos));
			js->order[pos] = k;
			n++;
		}
		js->len = 0;
		int bad = put_buf(js, "{", 1);
		for (int m = 0; m < n && !bad; m++) {
			int k = js->order[m];
			const sl_col *kc = SL_X_ARG(x, st, 1 + 3 * k), *vc = SL_X_ARG(x, st, 2 + 3 * k);
			bad = (m && put_buf(js, ",", 1)) ||
			      sl_json_quote(kc->v.str[i].ptr, kc->v.str[i].len, &js->buf, &js->len, &js->cap) ||
			      put_buf(js, ":", 1) ||
			      put_value(x, js, vc, i, SL_X_ATYPE(x->p, st, 2 + 3 * k), (int)lit_int(x->p, st, 3 + 3 * k));
		}
		if (bad || put_buf(js, "}", 1))
			return oom(x, st);
		int rc = out_buf(x, st, js, o, i);
		if (rc)
			return rc;
	});
	return 0;
}

static int k_json_array(sl_xctx *x, const sl_step *st)
{
	jstate *js = st->aux;
	sl_col *o = SL_X_OUT(x, st);
	int absent = (int)lit_int(x->p, st, 0), ne = (st->nargs - 1) / 2;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		js->len = 0;
		int bad = put_buf(js, "[", 1), n = 0;
		for (int k = 0; k < ne && !bad; k++) {
			const sl_col *vc = SL_X_ARG(x, st, 1 + 2 * k);
			if (absent && vc->null[i])
				continue;
			bad = (n++ && put_buf(js, ",", 1)) ||
			      put_value(x, js, vc, i, SL_X_ATYPE(x->p, st, 1 + 2 * k), (int)lit_int(x->p, st, 2 + 2 * k));
		}
		if (bad || put_buf(js, "]", 1))
			return oom(x, st);
		int rc = out_buf(x, st, js, o, i);
		if (rc)
			return rc;
	});
	return 0;
}

/* ---- JSON_ARRAYAGG, JSON_OBJECTAGG ------------------------------------- */

/* The key text of an object item `"key":value` (its JSON-escaped form, up
 * to the closing quote). */
static sl_str item_key(sl_str it)
{
	int64_t e = 1;
	while (e < it.len && it.ptr[e] != '"')
		e += it.ptr[e] == '\\' ? 2 : 1;
	return (sl_str){it.ptr + 1, e - 1};
}

/*
 * $JSON_AGG(items, kind): the result of JSON_ARRAYAGG (kind 0) or
 * JSON_OBJECTAGG (1), which the parser rewrites into
 * $JSON_AGG(LISTAGG(JSON_ARRAY(on-null, v) | JSON_OBJECT(on-null, k, v),
 * '\n'), kind) (parse_fn.c): each item is a one-element array or object,
 * "[]" / "{}" when ABSENT ON NULL dropped a NULL; JSON text never holds a
 * raw newline.  The array joins the elements in arrival order; the object
 * sorts its members by key (Flink's sorted object node) and fails on a
 * repeated key, as Flink's JsonObjectAggFunction does.  No items (LISTAGG's
 * NULL) give [] or {}.
 */
static int k_json_agg(sl_xctx *x, const sl_step *st)
{
	jstate *js = st->aux;
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	int obj = (int)lit_int(x->p, st, 1) == 1;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		int n = 0;
		sl_str s = a->null[i] ? (sl_str){"", 0} : a->v.str[i];
		for (int64_t b = 0, e; b < s.len; b = e + 1) { /* the non-empty items' bodies */
			for (e = b; e < s.len && s.ptr[e] != '\n'; e++)
				;
			if (e - b <= 2)
				continue;
			if (n + 1 > js->ncap) {
				int nc = js->ncap ? js->ncap * 2 : 16;
				sl_str *ni = realloc(js->items, sizeof(sl_str) * (size_t)nc);
				if (!ni)
					return oom(x, st);
				js->items = ni;
				js->ncap = nc;
			}
			sl_str it = {s.ptr + b + 1, e - b - 2};
			int pos = n;
			if (obj) { /* insertion sort by key: the items of a group are few */
				sl_str k = item_key(it);
				for (pos = 0; pos < n; pos++) {
					int c = cmp_key(k, item_key(js->items[pos]));
					if (c == 0) {
						char m[200];
						snprintf(m, sizeof(m), "key '%.*s' is already present; duplicate "
						         "keys are not allowed in JSON_OBJECTAGG (as Flink)",
						         (int)(k.len > 100 ? 100 : k.len), k.ptr);
						return sl_err_set(x->err, SL_ERUNTIME, "JSON_OBJECTAGG: %s", m);
					}
					if (c < 0)
						break;
				}
				memmove(js->items + pos + 1, js->items + pos, sizeof(sl_str) * (size_t)(n - pos));
			}
			js->items[pos] = it;
			n++;
		}
		js->len = 0;
		int bad = put_buf(js, obj ? "{" : "[", 1);
		for (int m = 0; m < n && !bad; m++)
			bad = (m && put_buf(js, ",", 1)) || put_buf(js, js->items[m].ptr, js->items[m].len);
		if (bad || put_buf(js, obj ? "}" : "]", 1))
			return oom(x, st);
		int rc = out_buf(x, st, js, o, i);
		if (rc)
			return rc;
	});
	return 0;
}

static int k_json_string(sl_xctx *x, const sl_step *st)
{
	jstate *js = st->aux;
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		if (a->null[i]) {
			o->null[i] = 1;
			continue;
		}
		js->len = 0;
		if (put_value(x, js, a, i, SL_X_ATYPE(x->p, st, 0), 0))
			return oom(x, st);
		int rc = out_buf(x, st, js, o, i);
		if (rc)
			return rc;
	});
	return 0;
}

/* Picks the JSON kernels; parses a literal path once (a path using a
 * feature sluice lacks is a planning error). */
int sl__bind_json(sl_prog *p, sl_step *st, sl_err *err)
{
	sl_kernel k;
	switch (st->fn) {
	case SL_FN_IS_JSON: st->k = k_is_json; return 0;
	case SL_FN_JSON_EXISTS: k = k_json_exists; break;
	case SL_FN_JSON_VALUE: k = k_json_value; break;
	case SL_FN_JSON_QUERY:
		k = st->type.id == SL_T_ARRAY ? k_json_query_array : k_json_query;
		break;
	case SL_FN_JSON_OBJECT: k = k_json_object; break;
	case SL_FN_JSON_ARRAY: k = k_json_array; break;
	case SL_FN_JSON_STRING: k = k_json_string; break;
	case SL_FN_JSON_AGG: k = k_json_agg; break;
	default: return SL_ENOTSUP;
	}
	jstate *js = calloc(1, sizeof(*js));
	if (!js || sl__prog_on_free(p, jstate_free, js))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	sl_arena_init(&js->parena, 1024);
	st->k = k;
	st->aux = js;
	if (st->fn == SL_FN_JSON_OBJECT && !(js->order = calloc((size_t)st->nargs + 1, sizeof(int))))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (k == k_json_query_array) {
		char msg[64];
		sl_buf_init(&js->pk);
		if (sl_jpath_parse("$[*]", 4, &p->arena, &js->star, msg, sizeof(msg)) != SL_JP_OK)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	if (st->fn != SL_FN_JSON_EXISTS && st->fn != SL_FN_JSON_VALUE && st->fn != SL_FN_JSON_QUERY)
		return 0;
	const sl_value *pv = sl__step_const(p, st, 1);
	if (pv && !pv->is_null &&
	    parse_path(js, pv->v.str.ptr, pv->v.str.len) == SL_JP_UNSUPPORTED)
		return sl_err_set(err, SL_ENOTSUP, "%s: %s in path '%.*s'", sl_fn_name(st->fn),
		                  js->path_msg, (int)pv->v.str.len, pv->v.str.ptr);
	return 0;
}
