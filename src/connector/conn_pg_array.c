/*
 * conn_pg_array.c - PostgreSQL array literals read into sluice ARRAY
 * values: the text the server prints for an array column (pgoutput's
 * tuples, COPY TO, a lookup's result), parsed into the packed value of an
 * ARRAY<T> column (data/packed.h).  Shared by the postgres-cdc source, the
 * jdbc lookup and the jdbc scan through sl__pgo_set_value
 * (conn_pgcdc_proto.c), which parses each element.
 *
 * The literal, as array_out writes it:
 *     [lo:hi][lo:hi]={{1,2},{3,NULL}}      (the bounds only when lo != 1)
 *     {"a b","say \"hi\"",NULL,plain}
 * A multi-dimensional PostgreSQL array (up to 6 dimensions, MAXDIM) is an
 * ARRAY of ARRAY ... of T in sluice, one level per dimension; '{}' is an
 * empty array at any level.  An element is quoted ("...", backslash
 * escapes) or not (backslash escapes, surrounding blanks dropped); an
 * unquoted NULL (any case) is a NULL element.  A literal whose nesting
 * does not match the column's type, an empty element ('{,}', '{1,}'), an
 * unclosed quote or brace, or an element its type does not hold is refused
 * with a message saying where; the parser recurses once per level of the
 * column's type, never deeper, whatever the input.
 *
 * Memory: the elements' text and the element columns live in the batch's
 * arena; one growable buffer per nested level holds a packed value while
 * it is built.
 */
#include "conn_pgcdc.h"
#include "data/packed.h"
#include "sluice.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef struct arr_parse {
	sl_batch *b;
	const char *lit;   /* the whole literal, for messages */
	size_t litn;
	char *tmp;         /* an element's unescaped text (litn + 1 bytes) */
	char *emsg;
	size_t cap;
	int elem;          /* elements read so far, for messages */
} arr_parse;

static int fail(arr_parse *a, const char *why)
{
	snprintf(a->emsg, a->cap, "array '%.*s'%s: %s", (int)(a->litn > 64 ? 64 : a->litn),
	         a->lit, a->litn > 64 ? "..." : "", why);
	return -1;
}

static const char *blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\v' ||
	                   *p == '\f'))
		p++;
	return p;
}

/* Reads one element's text at *pp into a->tmp: quoted or not.  Sets *len,
 * *quoted; leaves *pp at the ',' or '}' after it.  0 or -1. */
static int token(arr_parse *a, const char **pp, const char *end, size_t *len, int *quoted)
{
	const char *p = *pp;
	size_t n = 0, keep = 0; /* keep: length up to the last escaped or non-blank char */
	*quoted = 0;
	if (p < end && *p == '"') {
		*quoted = 1;
		for (p++;; p++) {
			if (p >= end)
				return fail(a, "a quoted element is not closed");
			if (*p == '"')
				break;
			if (*p == '\\' && ++p >= end)
				return fail(a, "a quoted element is not closed");
			a->tmp[n++] = *p;
		}
		p = blanks(p + 1, end);
		keep = n;
	} else {
		for (; p < end && *p != ',' && *p != '}'; p++) {
			if (*p == '{' || *p == '"')
				return fail(a, "an unquoted element holds '{' or '\"'");
			if (*p == '\\') {
				if (++p >= end)
					return fail(a, "the literal ends in a backslash");
				a->tmp[n++] = *p;
				keep = n;
				continue;
			}
			a->tmp[n++] = *p;
			if (!(*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\v' ||
			      *p == '\f'))
				keep = n;
		}
		if (!keep)
			return fail(a, "an element is empty");
	}
	if (p >= end || (*p != ',' && *p != '}'))
		return fail(a, "an element is not followed by ',' or '}'");
	a->tmp[keep] = 0;
	*len = keep;
	*pp = p;
	return 0;
}

/* Parses one level '{...}' at *pp (blanks before it skipped) as a value
 * of ARRAY type at into out (a packed value).  0 or -1. */
static int level(arr_parse *a, sl_type at, const char **pp, const char *end, sl_buf *out)
{
	const char *p = blanks(*pp, end);
	sl_type et = sl_type_elem(at);
	int nested = et.id == SL_T_ARRAY;
	sl_col ec;
	if (p >= end || *p != '{')
		return fail(a, "expected '{'");
	if (sl_col_new_in(&a->b->arena, &ec, et) || sl_pack_begin(out))
		return fail(a, "out of memory");
	uint32_t cnt = 0;
	p = blanks(p + 1, end);
	if (p < end && *p == '}') {
		*pp = p + 1;
		sl_pack_end(out, 0);
		return 0;
	}
	for (;;) {
		p = blanks(p, end);
		a->elem++;
		if (nested && p < end && *p == '{') {
			sl_buf sub;
			sl_buf_init(&sub);
			int rc = level(a, et, &p, end, &sub);
			if (!rc && sl_col_set_str(a->b, &ec, 0, (const char *)sub.p, (int64_t)sub.len))
				rc = fail(a, "out of memory");
			sl_buf_deinit(&sub);
			if (rc)
				return rc;
		} else if (!nested && p < end && *p == '{') {
			return fail(a, "it has more dimensions than the column's type");
		} else {
			size_t n;
			int quoted;
			if (token(a, &p, end, &n, &quoted))
				return -1;
			if (!quoted && n == 4 && !strncasecmp(a->tmp, "NULL", 4)) {
				sl_col_set_null(&ec, 0);
			} else if (nested) {
				return fail(a, "it has fewer dimensions than the column's type");
			} else {
				char why[200];
				if (sl__pgo_set_value(a->b, &ec, 0, a->tmp, n, why, sizeof why)) {
					char m[260];
					snprintf(m, sizeof m, "element %d: %s", a->elem, why);
					return fail(a, m);
				}
			}
		}
		if (sl_pack_value(out, &ec, 0))
			return fail(a, "out of memory");
		cnt++;
		p = blanks(p, end);
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		if (p < end && *p == '}') {
			p++;
			break;
		}
		return fail(a, "expected ',' or '}'");
	}
	sl_pack_end(out, cnt);
	*pp = p;
	return 0;
}

int sl__pg_array_parse(sl_batch *b, sl_col *c, int row, const char *p, size_t n, char *emsg,
                       size_t cap)
{
	arr_parse a = {b, p, n, NULL, emsg, cap, 0};
	const char *s = blanks(p, p + n), *end = p + n;
	if (sl__pg_array_dims(c->type) > SL_PG_MAXDIM)
		return fail(&a, "the column's type has more than 6 levels of ARRAY");
	if (s < end && *s == '[') { /* dimension bounds: [lo:hi]...= */
		const char *eq = memchr(s, '=', (size_t)(end - s));
		if (!eq)
			return fail(&a, "its dimensions are not followed by '='");
		s = eq + 1;
	}
	if (!(a.tmp = sl_arena_alloc(&b->arena, n + 1)))
		return fail(&a, "out of memory");
	sl_buf out;
	sl_buf_init(&out);
	int rc = level(&a, c->type, &s, end, &out);
	if (!rc && blanks(s, end) != end)
		rc = fail(&a, "there is text after its closing '}'");
	if (!rc && sl_col_set_str(b, c, row, (const char *)out.p, (int64_t)out.len))
		rc = fail(&a, "out of memory");
	sl_buf_deinit(&out);
	return rc;
}

int sl__pg_array_dims(sl_type t)
{
	int d = 0;
	while (t.id == SL_T_ARRAY && t.row) {
		d++;
		t = sl_type_elem(t);
	}
	return d;
}
