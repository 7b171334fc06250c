/*
 * parser.c - recursive-descent parser, part 1: the token helpers shared by
 * all parser files, data types, hints, and the statements (CREATE TABLE /
 * VIEW, DROP, INSERT, statement sets, SET / RESET, EXPLAIN, queries).
 *
 * Data flow:  sl_sql_tokenize -> sl_token[] -> sl_parse (here) -> AST.
 * Queries live in parse_query.c, expressions in parse_expr.c.
 *
 * Invariants: the current index p->i never passes the EOF token; every loop
 * consumes a token or stops, so parsing terminates; recursion is bounded by
 * SL_PARSE_MAX_DEPTH through sl__p_enter.  All memory comes from the
 * caller's arena except the token array, freed before sl_parse returns.
 */
#include "parse_int.h"
#include "sluice.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------ */
/* Token helpers                                                       */

const sl_token *sl__p_tok(sl_parser *p, int k)
{
	int j = p->i + k;
	if (j < 0)
		j = 0;
	return &p->t[j < p->n ? j : p->n - 1];
}

int sl__p_is_kw(sl_parser *p, int k, const char *kw)
{
	const sl_token *t = sl__p_tok(p, k);
	size_t n = strlen(kw);
	return t->type == SL_TK_IDENT && t->len == n && strncasecmp(p->sql + t->off, kw, n) == 0;
}

int sl__p_is_op(sl_parser *p, int k, const char *op)
{
	const sl_token *t = sl__p_tok(p, k);
	size_t n = strlen(op);
	return t->type == SL_TK_OP && t->len == n && memcmp(p->sql + t->off, op, n) == 0;
}

int sl__p_accept_kw(sl_parser *p, const char *kw)
{
	if (!sl__p_is_kw(p, 0, kw))
		return 0;
	p->i++;
	return 1;
}

int sl__p_accept_op(sl_parser *p, const char *op)
{
	if (!sl__p_is_op(p, 0, op))
		return 0;
	p->i++;
	return 1;
}

int sl__p_error(sl_parser *p, const char *expected)
{
	const sl_token *t = sl__p_tok(p, 0);
	char d[64];
	if (sl__p_unsupported(p))
		return -1;
	sl_sql_token_desc(p->sql, t, d, sizeof(d));
	if (t->type == SL_TK_EOF)
		sl_err_set_at(p->err, SL_ESYNTAX, t->line, t->col,
		              "line %d, column %d: expected %s, found end of input",
		              t->line, t->col, expected);
	else
		sl_err_set_at(p->err, SL_ESYNTAX, t->line, t->col,
		              "line %d, column %d: expected %s, found '%s'",
		              t->line, t->col, expected, d);
	return -1;
}

int sl__p_error_at(sl_parser *p, const sl_token *t, int code, const char *msg)
{
	sl_err_set_at(p->err, code, t->line, t->col, "line %d, column %d: %s",
	              t->line, t->col, msg);
	return -1;
}

int sl__p_expect_kw(sl_parser *p, const char *kw)
{
	if (sl__p_accept_kw(p, kw))
		return 0;
	return sl__p_error(p, kw);
}

int sl__p_expect_op(sl_parser *p, const char *op)
{
	char w[16];
	if (sl__p_accept_op(p, op))
		return 0;
	w[0] = '\'';
	strncpy(w + 1, op, sizeof(w) - 3);
	w[sizeof(w) - 2] = 0;
	strcat(w, "'");
	return sl__p_error(p, w);
}

int sl__p_enter(sl_parser *p)
{
	if (++p->depth > SL_PARSE_MAX_DEPTH) {
		sl__p_error_at(p, sl__p_tok(p, 0), SL_ESYNTAX,
		               "statement nested too deeply (limit " "200" ")");
		return -1;
	}
	return 0;
}

void sl__p_leave(sl_parser *p)
{
	p->depth--;
}

void *sl__p_alloc(sl_parser *p, size_t n)
{
	void *m = sl_arena_calloc(p->a, n ? n : 1);
	if (!m)
		sl_err_set(p->err, SL_ENOMEM, "parser: out of memory");
	return m;
}

void *sl__p_push(sl_parser *p, void *arr, int *n, int *cap, size_t sz)
{
	char **ap = arr;
	if (*n == *cap) {
		int nc = *cap ? *cap * 2 : 4;
		char *na = sl__p_alloc(p, (size_t)nc * sz);
		if (!na)
			return NULL;
		if (*n)
			memcpy(na, *ap, (size_t)*n * sz);
		*ap = na;
		*cap = nc;
	}
	char *slot = *ap + (size_t)(*n)++ * sz;
	memset(slot, 0, sz);
	return slot;
}

char *sl__p_text(sl_parser *p, const sl_token *t)
{
	char *s = sl_arena_strndup(p->a, p->sql + t->off, t->len);
	if (!s)
		sl_err_set(p->err, SL_ENOMEM, "parser: out of memory");
	return s;
}

char *sl__p_unquote(sl_parser *p, const sl_token *t)
{
	const char *s = p->sql + t->off;
	size_t start = t->type == SL_TK_BINARY ? 2 : 1;
	char q = s[start - 1];
	char *o = sl__p_alloc(p, t->len);
	if (!o)
		return NULL;
	size_t j = 0;
	for (size_t k = start; k + 1 < t->len; k++) {
		o[j++] = s[k];
		if (s[k] == q && k + 2 < t->len && s[k + 1] == q)
			k++;
	}
	o[j] = 0;
	return o;
}

char *sl__p_upper(sl_parser *p, const char *s)
{
	char *u = sl_arena_strdup(p->a, s);
	if (!u) {
		sl_err_set(p->err, SL_ENOMEM, "parser: out of memory");
		return NULL;
	}
	for (char *c = u; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	return u;
}

int sl__p_is_ident(sl_parser *p, int k)
{
	const sl_token *t = sl__p_tok(p, k);
	if (t->type == SL_TK_QIDENT)
		return 1;
	return t->type == SL_TK_IDENT && !sl_sql_is_reserved(p->sql + t->off, t->len);
}

int sl__p_ident(sl_parser *p, sl_ast_ident *out, const char *what)
{
	const sl_token *t = sl__p_tok(p, 0);
	if (!sl__p_is_ident(p, 0))
		return sl__p_error(p, what);
	out->quoted = t->type == SL_TK_QIDENT;
	out->name = out->quoted ? sl__p_unquote(p, t) : sl__p_text(p, t);
	out->line = t->line;
	out->col = t->col;
	p->i++;
	return out->name ? 0 : -1;
}

int sl__p_name(sl_parser *p, sl_ast_name *out, const char *what)
{
	int cap = 0;
	out->n = 0;
	out->parts = NULL;
	do {
		sl_ast_ident *id = sl__p_push(p, &out->parts, &out->n, &cap, sizeof(*id));
		if (!id || sl__p_ident(p, id, out->n == 1 ? what : "identifier after '.'"))
			return -1;
	} while (sl__p_is_op(p, 0, ".") && sl__p_is_ident(p, 1) && (p->i++, 1));
	return 0;
}

int sl__p_ident_list(sl_parser *p, sl_ast_ident **out, int *n)
{
	int cap = 0;
	*n = 0;
	*out = NULL;
	if (sl__p_expect_op(p, "("))
		return -1;
	do {
		sl_ast_ident *id = sl__p_push(p, out, n, &cap, sizeof(*id));
		if (!id || sl__p_ident(p, id, "column name"))
			return -1;
	} while (sl__p_accept_op(p, ","));
	return sl__p_expect_op(p, ")");
}

int sl__p_string(sl_parser *p, const char **out, const char *what)
{
	const sl_token *t = sl__p_tok(p, 0);
	if (t->type != SL_TK_STRING)
		return sl__p_error(p, what);
	*out = sl__p_unquote(p, t);
	p->i++;
	return *out ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* Hints and options                                                   */

/* One hint argument: 'k' = 'v', k = v, 'v' or v. */
static int hint_arg(sl_parser *p, sl_ast_option *o)
{
	const sl_token *t = sl__p_tok(p, 0);
	const char *first;
	o->line = t->line;
	o->col = t->col;
	if (t->type == SL_TK_STRING || t->type == SL_TK_QIDENT)
		first = sl__p_unquote(p, t);
	else if (t->type == SL_TK_IDENT || t->type == SL_TK_INTEGER || t->type == SL_TK_DECIMAL)
		first = sl__p_text(p, t);
	else
		return sl__p_error(p, "hint option");
	if (!first)
		return -1;
	p->i++;
	if (!sl__p_accept_op(p, "=")) {
		o->value = first;
		return 0;
	}
	o->key = first;
	t = sl__p_tok(p, 0);
	if (t->type == SL_TK_STRING || t->type == SL_TK_QIDENT)
		o->value = sl__p_unquote(p, t);
	else if (t->type == SL_TK_IDENT || t->type == SL_TK_INTEGER || t->type == SL_TK_DECIMAL)
		o->value = sl__p_text(p, t);
	else
		return sl__p_error(p, "hint option value");
	p->i++;
	return o->value ? 0 : -1;
}

int sl__p_hints(sl_parser *p, sl_ast_hint **out, int *n)
{
	int cap = *n;
	while (sl__p_tok(p, 0)->type == SL_TK_HINT_BEGIN) {
		p->i++;
		do {
			const sl_token *t = sl__p_tok(p, 0);
			sl_ast_hint *h = sl__p_push(p, out, n, &cap, sizeof(*h));
			int acap = 0;
			if (!h)
				return -1;
			if (t->type != SL_TK_IDENT)
				return sl__p_error(p, "hint name");
			h->line = t->line;
			h->col = t->col;
			if (!(h->name = sl__p_text(p, t)) || !(h->name = sl__p_upper(p, h->name)))
				return -1;
			p->i++;
			if (!sl__p_accept_op(p, "("))
				continue;
			if (!sl__p_accept_op(p, ")")) {
				do {
					sl_ast_option *o = sl__p_push(p, &h->args, &h->nargs, &acap, sizeof(*o));
					if (!o || hint_arg(p, o))
						return -1;
				} while (sl__p_accept_op(p, ","));
				if (sl__p_expect_op(p, ")"))
					return -1;
			}
		} while (sl__p_accept_op(p, ","));
		if (sl__p_tok(p, 0)->type != SL_TK_HINT_END)
			return sl__p_error(p, "',' or end of hint '*/'");
		p->i++;
	}
	return 0;
}

/* ( 'k' = 'v', ... ) after WITH: see parse_int.h. */
int sl__p_options(sl_parser *p, sl_ast_option **out, int *n)
{
	int cap = 0;
	if (sl__p_expect_op(p, "("))
		return -1;
	if (sl__p_accept_op(p, ")"))
		return 0;
	do {
		const sl_token *t = sl__p_tok(p, 0);
		sl_ast_option *o = sl__p_push(p, out, n, &cap, sizeof(*o));
		if (!o)
			return -1;
		o->line = t->line;
		o->col = t->col;
		if (sl__p_string(p, &o->key, "option key string") || sl__p_expect_op(p, "=") ||
		    sl__p_string(p, &o->value, "option value string"))
			return -1;
	} while (sl__p_accept_op(p, ","));
	return sl__p_expect_op(p, ")");
}

/* ------------------------------------------------------------------ */
/* Data types                                                          */

/* Optional "(n)" or "(p, s)"; returns count of numbers read, -1 on error. */
static int type_params(sl_parser *p, long *a, long *b)
{
	int cnt = 0;
	if (!sl__p_accept_op(p, "("))
		return 0;
	for (;;) {
		const sl_token *t = sl__p_tok(p, 0);
		if (t->type != SL_TK_INTEGER || t->len > 10)
			return sl__p_error(p, "integer type parameter");
		long v = strtol(p->sql + t->off, NULL, 10);
		if (cnt == 0)
			*a = v;
		else
			*b = v;
		cnt++;
		p->i++;
		if (cnt == 2 || !sl__p_accept_op(p, ","))
			break;
	}
	return sl__p_expect_op(p, ")") ? -1 : cnt;
}

/* ROW<a INT, b STRING> / ROW(a INT, b STRING) fields. */
static int row_fields(sl_parser *p, sl_ast_type *ty)
{
	const char *close = sl__p_accept_op(p, "<") ? ">" : (sl__p_expect_op(p, "(") ? NULL : ")");
	int cap = 0, cap2 = 0, nf2 = 0, mapped = 1;
	if (!close)
		return -1;
	if (!sl__p_accept_op(p, close)) {
		do {
			sl_ast_ident *id = sl__p_push(p, &ty->field_names, &ty->nfields, &cap, sizeof(*id));
			sl_ast_type **ft = sl__p_push(p, &ty->field_types, &nf2, &cap2, sizeof(*ft));
			if (!id || !ft || sl__p_ident(p, id, "field name") || !(*ft = sl__p_type(p)))
				return -1;
			if ((*ft)->kind != SL_ATY_SQL)
				mapped = 0;
			if (sl__p_is_kw(p, 0, "COMMENT") && (p->i++, 1)) {
				const char *c;
				if (sl__p_string(p, &c, "comment string"))
					return -1;
			}
		} while (sl__p_accept_op(p, ","));
		if (sl__p_expect_op(p, close))
			return -1;
	}
	if (!mapped) {
		ty->kind = SL_ATY_ROW;
		return 0;
	}
	sl_row_type *rt = sl__p_alloc(p, sizeof(*rt));
	if (!rt || !(rt->fields = sl__p_alloc(p, sizeof(sl_field) * (size_t)(ty->nfields + 1))))
		return -1;
	rt->nfields = ty->nfields;
	for (int k = 0; k < ty->nfields; k++) {
		rt->fields[k].name = ty->field_names[k].name;
		rt->fields[k].type = ty->field_types[k]->sql;
	}
	ty->sql = sl_type_make(SL_T_ROW);
	ty->sql.row = rt;
	return 0;
}

/* INTERVAL type qualifier: DAY [TO SECOND], YEAR [TO MONTH], ... */
static int interval_type(sl_parser *p, sl_ast_type *ty)
{
	sl_ast_unit u = sl__p_unit_word(p, 0), u2 = SL_AU_NONE;
	long a, b;
	if (u == SL_AU_NONE)
		return sl__p_error(p, "interval unit");
	p->i++;
	if (type_params(p, &a, &b) < 0)
		return -1;
	if (sl__p_accept_kw(p, "TO")) {
		if ((u2 = sl__p_unit_word(p, 0)) == SL_AU_NONE)
			return sl__p_error(p, "interval unit");
		p->i++;
		if (type_params(p, &a, &b) < 0)
			return -1;
	}
	int ym = (u == SL_AU_YEAR || u == SL_AU_MONTH) && (u2 == SL_AU_NONE || u2 == SL_AU_MONTH);
	ty->sql = sl_type_make(ym ? SL_T_INTERVAL_YM : SL_T_INTERVAL_DT);
	return 0;
}

/* Plain SQL scalar type by keyword; 1 if recognised, 0 if not, -1 error. */
static int scalar_type(sl_parser *p, sl_ast_type *ty)
{
	static const struct { const char *kw; sl_type_id id; } simple[] = {
		{"BOOLEAN", SL_T_BOOLEAN}, {"TINYINT", SL_T_TINYINT}, {"SMALLINT", SL_T_SMALLINT},
		{"INT", SL_T_INT}, {"INTEGER", SL_T_INT}, {"BIGINT", SL_T_BIGINT},
		{"FLOAT", SL_T_FLOAT}, {"REAL", SL_T_FLOAT}, {"DOUBLE", SL_T_DOUBLE},
		{"DATE", SL_T_DATE}, {"NULL", SL_T_NULL},
	};
	long a = -1, b = 0;
	int np;
	for (size_t k = 0; k < sizeof(simple) / sizeof(simple[0]); k++) {
		if (sl__p_accept_kw(p, simple[k].kw)) {
			ty->sql = sl_type_make(simple[k].id);
			if (simple[k].id == SL_T_DOUBLE)
				sl__p_accept_kw(p, "PRECISION");
			return 1;
		}
	}
	if (sl__p_accept_kw(p, "DECIMAL") || sl__p_accept_kw(p, "DEC") || sl__p_accept_kw(p, "NUMERIC")) {
		if ((np = type_params(p, &a, &b)) < 0)
			return -1;
		ty->sql = sl_type_decimal(np ? (int)a : 10, np == 2 ? (int)b : 0);
		if (np && (a < 1 || a > 38 || b < 0 || b > a))
			return sl__p_error_at(p, sl__p_tok(p, -1), SL_ESYNTAX,
			                      "DECIMAL precision must be 1..38 and scale 0..precision");
		return 1;
	}
	if (sl__p_accept_kw(p, "STRING")) {
		ty->sql = sl_type_varchar(SL_STRING_LEN);
		return 1;
	}
	if (sl__p_accept_kw(p, "BYTES")) {
		ty->sql = sl_type_make(SL_T_VARBINARY);
		return 1;
	}
	static const struct { const char *kw; sl_type_id id; } sized[] = {
		{"CHAR", SL_T_CHAR}, {"CHARACTER", SL_T_CHAR}, {"VARCHAR", SL_T_VARCHAR},
		{"BINARY", SL_T_BINARY}, {"VARBINARY", SL_T_VARBINARY},
	};
	for (size_t k = 0; k < sizeof(sized) / sizeof(sized[0]); k++) {
		if (!sl__p_accept_kw(p, sized[k].kw))
			continue;
		if (sized[k].id == SL_T_CHAR && sl__p_accept_kw(p, "VARYING"))
			k = 2;
		if ((np = type_params(p, &a, &b)) < 0)
			return -1;
		if (np && (a < 1 || a > SL_STRING_LEN))
			return sl__p_error_at(p, sl__p_tok(p, -1), SL_ESYNTAX,
			                      "type length must be 1..2147483647");
		/* without a length: CHAR and BINARY are CHAR(1) and BINARY(1), VARCHAR
		 * and VARBINARY the maximum length, i.e. STRING and BYTES (Flink's type
		 * system, FlinkTypeSystem.getDefaultPrecision) */
		ty->sql = sl_type_make(sized[k].id);
		if (np)
			ty->sql.length = (int32_t)a;
		return 1;
	}
	return 0;
}

/* TIME / TIMESTAMP / TIMESTAMP_LTZ with precision and zone; 1/0/-1. */
static int time_type(sl_parser *p, sl_ast_type *ty)
{
	long a = -1, b = 0;
	int np;
	if (sl__p_accept_kw(p, "TIME")) {
		if ((np = type_params(p, &a, &b)) < 0)
			return -1;
		/* TIME(p) is TIME(0): Flink 1.20's planner supports only precision 0
		 * (TYPEOF shows TIME(0), the json format reads whole seconds) */
		ty->sql = sl_type_make(SL_T_TIME);
		ty->sql.precision = 0;
		if (sl__p_accept_kw(p, "WITHOUT") &&
		    (sl__p_expect_kw(p, "TIME") || sl__p_expect_kw(p, "ZONE")))
			return -1;
	} else if (sl__p_accept_kw(p, "TIMESTAMP_LTZ")) {
		if ((np = type_params(p, &a, &b)) < 0)
			return -1;
		ty->sql = sl_type_timestamp(SL_T_TIMESTAMP_LTZ, np ? (int)a : 6);
	} else if (sl__p_accept_kw(p, "TIMESTAMP")) {
		if ((np = type_params(p, &a, &b)) < 0)
			return -1;
		sl_type_id id = SL_T_TIMESTAMP;
		if (sl__p_accept_kw(p, "WITHOUT")) {
			if (sl__p_expect_kw(p, "TIME") || sl__p_expect_kw(p, "ZONE"))
				return -1;
		} else if (sl__p_accept_kw(p, "WITH")) {
			if (sl__p_expect_kw(p, "LOCAL") || sl__p_expect_kw(p, "TIME") ||
			    sl__p_expect_kw(p, "ZONE"))
				return -1;
			id = SL_T_TIMESTAMP_LTZ;
		}
		ty->sql = sl_type_timestamp(id, np ? (int)a : 6);
	} else {
		return 0;
	}
	if (np && (a < 0 || a > 9))
		return sl__p_error_at(p, sl__p_tok(p, -1), SL_ESYNTAX, "time precision must be 0..9");
	return 1;
}

/* An ARRAY or MAP whose element types are SQL types becomes the SQL type
 * ARRAY<T> / MAP<K, V> (kind SL_ATY_SQL); MULTISET, and collections of a
 * type the binder refuses, keep their kind.  0 or -1. */
static int collection_type(sl_parser *p, sl_ast_type *ty)
{
	if (ty->kind == SL_ATY_MULTISET || ty->elem->kind != SL_ATY_SQL ||
	    (ty->kind == SL_ATY_MAP && ty->value->kind != SL_ATY_SQL))
		return 0;
	sl_row_type *rt = sl__p_alloc(p, sizeof(*rt));
	if (!rt || !(rt->fields = sl__p_alloc(p, sizeof(sl_field) * 2)))
		return -1;
	rt->fields[0].type = ty->elem->sql;
	if (ty->kind == SL_ATY_MAP)
		rt->fields[1].type = ty->value->sql;
	ty->sql = sl_type_collection(ty->kind == SL_ATY_MAP ? SL_T_MAP : SL_T_ARRAY, rt);
	ty->sql.notnull = ty->notnull;
	ty->kind = SL_ATY_SQL;
	return 0;
}

/* The type body without NOT NULL / postfix ARRAY. 0 or -1. */
static int type_body(sl_parser *p, sl_ast_type *ty)
{
	int r;
	if ((r = scalar_type(p, ty)) != 0 || (r = time_type(p, ty)) != 0)
		return r < 0 ? -1 : 0;
	if (sl__p_accept_kw(p, "INTERVAL"))
		return interval_type(p, ty);
	if (sl__p_accept_kw(p, "ROW"))
		return row_fields(p, ty);
	if (sl__p_is_kw(p, 0, "ARRAY") || sl__p_is_kw(p, 0, "MULTISET")) {
		ty->kind = sl__p_is_kw(p, 0, "ARRAY") ? SL_ATY_ARRAY : SL_ATY_MULTISET;
		p->i++;
		if (sl__p_expect_op(p, "<") || !(ty->elem = sl__p_type(p)) || sl__p_expect_op(p, ">"))
			return -1;
		return collection_type(p, ty);
	}
	if (sl__p_accept_kw(p, "MAP")) {
		ty->kind = SL_ATY_MAP;
		if (sl__p_expect_op(p, "<") || !(ty->elem = sl__p_type(p)) || sl__p_expect_op(p, ",") ||
		    !(ty->value = sl__p_type(p)) || sl__p_expect_op(p, ">"))
			return -1;
		return collection_type(p, ty);
	}
	return sl__p_error(p, "data type");
}

sl_ast_type *sl__p_type(sl_parser *p)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_type *ty = NULL;
	if (sl__p_enter(p))
		return NULL;
	if (!(ty = sl__p_alloc(p, sizeof(*ty))))
		goto fail;
	ty->line = t->line;
	ty->col = t->col;
	if (type_body(p, ty))
		goto fail;
	for (;;) {
		if (sl__p_is_kw(p, 0, "NOT") && sl__p_is_kw(p, 1, "NULL")) {
			p->i += 2;
			ty->notnull = 1;
			ty->sql.notnull = 1;
		} else if (sl__p_is_kw(p, 0, "NULL")) {
			p->i++;
		} else if (sl__p_is_kw(p, 0, "ARRAY") || sl__p_is_kw(p, 0, "MULTISET")) {
			sl_ast_type *outer = sl__p_alloc(p, sizeof(*outer));
			if (!outer)
				goto fail;
			outer->kind = sl__p_is_kw(p, 0, "ARRAY") ? SL_ATY_ARRAY : SL_ATY_MULTISET;
			outer->elem = ty;
			outer->line = ty->line;
			outer->col = ty->col;
			ty = outer;
			p->i++;
			if (collection_type(p, ty))
				goto fail;
		} else {
			break;
		}
	}
	sl__p_leave(p);
	return ty;
fail:
	sl__p_leave(p);
	return NULL;
}
