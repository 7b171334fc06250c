/*
 * json_path.c - reads JSON text in place and evaluates Flink's JSON paths
 * over it (json_path.h has the language and the contracts).
 *
 * The reader never builds a tree: skip_value walks one value with an
 * explicit stack of open containers (bounded depth, no recursion), and the
 * path evaluator moves a set of spans step by step, skipping over the
 * members and elements it does not want.  Error rules follow Flink's JSON
 * functions (Calcite's SqlJsonUtils over the JsonPath library): in strict
 * mode a definite path that finds nothing, a property of a non-object or
 * an index into a non-array is an error, and so is a JSON null result; in
 * lax mode they are empty.  Inside an indefinite path (after a wildcard,
 * slice or list) what does not match is skipped.
 *
 * Numbers are written as Flink's JSON provider reads and writes them: an
 * integer keeps its digits, a number with a fraction or an exponent goes
 * through a double and is written as Java's Double.toString (1.50 -> 1.5,
 * 1e2 -> 100.0).
 *
 * Evaluation buffers live in an sl_jeval owned by the caller and are grown
 * by doubling, so a steady stream of rows allocates nothing.
 */
#include "json_path.h"
#include "data/valtext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_DEPTH 1024

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int64_t skip_ws(const char *s, int64_t n, int64_t i)
{
	while (i < n && is_ws(s[i]))
		i++;
	return i;
}

static int hexv(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	     : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* End of the string literal starting at s[i] == '"', or -1. */
static int64_t skip_string(const char *s, int64_t n, int64_t i)
{
	for (i++; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"')
			return i + 1;
		if (c < 0x20)
			return -1;
		if (c == '\\') {
			if (++i >= n)
				return -1;
			switch (s[i]) {
			case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
				break;
			case 'u':
				if (i + 4 >= n)
					return -1;
				for (int k = 1; k <= 4; k++)
					if (hexv(s[i + k]) < 0)
						return -1;
				i += 4;
				break;
			default:
				return -1;
			}
		}
	}
	return -1;
}

/* End of the number starting at s[i] (JSON grammar, no leading zeros), or -1. */
static int64_t skip_number(const char *s, int64_t n, int64_t i)
{
	if (i < n && s[i] == '-')
		i++;
	if (i >= n)
		return -1;
	if (s[i] == '0') {
		i++;
		if (i < n && s[i] >= '0' && s[i] <= '9')
			return -1;
	} else if (s[i] >= '1' && s[i] <= '9') {
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	} else {
		return -1;
	}
	if (i < n && s[i] == '.') {
		int64_t d = ++i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d)
			return -1;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		int64_t d = i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d)
			return -1;
	}
	return i;
}

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int64_t skip_literal(const char *s, int64_t n, int64_t i, const char *w)
{
	size_t k = strlen(w);
	if ((size_t)(n - i) < k || memcmp(s + i, w, k))
		return -1;
	i += (int64_t)k;
	return i < n && ident_char(s[i]) ? -1 : i;
}

int sl_json_kind(const char *s, int64_t n)
{
	if (n <= 0)
		return SL_JV_NONE;
	switch (s[0]) {
	case '{': return SL_JV_OBJECT;
	case '[': return SL_JV_ARRAY;
	case '"': return SL_JV_STRING;
	case 't': return SL_JV_TRUE;
	case 'f': return SL_JV_FALSE;
	case 'n': return SL_JV_NULL;
	default: return (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) ? SL_JV_NUMBER : SL_JV_NONE;
	}
}

/* End of the scalar at s[i], or -1. */
static int64_t skip_scalar(const char *s, int64_t n, int64_t i)
{
	switch (sl_json_kind(s + i, n - i)) {
	case SL_JV_STRING: return skip_string(s, n, i);
	case SL_JV_NUMBER: return skip_number(s, n, i);
	case SL_JV_TRUE: return skip_literal(s, n, i, "true");
	case SL_JV_FALSE: return skip_literal(s, n, i, "false");
	case SL_JV_NULL: return skip_literal(s, n, i, "null");
	default: return -1;
	}
}

/* End of the value starting at s[i] (no leading blanks), or -1 when it is
 * not well formed or nests deeper than MAX_DEPTH. */
static int64_t skip_value(const char *s, int64_t n, int64_t i)
{
	char stack[MAX_DEPTH];
	int depth = 0;
	for (;;) {
		/* a value at i */
		if (i >= n)
			return -1;
		if (s[i] == '{' || s[i] == '[') {
			if (depth == MAX_DEPTH)
				return -1;
			stack[depth++] = s[i];
			i = skip_ws(s, n, i + 1);
			if (i < n && s[i] == (stack[depth - 1] == '{' ? '}' : ']')) {
				depth--;
				i++;
				goto after;
			}
			if (stack[depth - 1] == '{')
				goto key;
			continue;
		}
		if ((i = skip_scalar(s, n, i)) < 0)
			return -1;
	after:
		if (depth == 0)
			return i;
		i = skip_ws(s, n, i);
		if (i >= n)
			return -1;
		if (s[i] == ',') {
			i = skip_ws(s, n, i + 1);
			if (stack[depth - 1] == '{')
				goto key;
			continue;
		}
		if (s[i] != (stack[depth - 1] == '{' ? '}' : ']'))
			return -1;
		depth--;
		i++;
		goto after;
	key:
		if (i >= n || s[i] != '"' || (i = skip_string(s, n, i)) < 0)
			return -1;
		i = skip_ws(s, n, i);
		if (i >= n || s[i] != ':')
			return -1;
		i = skip_ws(s, n, i + 1);
	}
}

int sl_json_check(const char *s, int64_t n, int64_t *start, int64_t *end)
{
	int64_t b = skip_ws(s, n, 0), e;
	if (b >= n || (e = skip_value(s, n, b)) < 0)
		return SL_JV_NONE;
	int k = sl_json_kind(s + b, n - b);
	/* Jackson: a root number must be followed by a blank or the end */
	if (k == SL_JV_NUMBER && e < n && !is_ws(s[e]))
		return SL_JV_NONE;
	*start = b;
	*end = e;
	return k;
}

/* ---- paths -------------------------------------------------------------- */

static int perr(char *msg, size_t cap, int code, const char *what, int64_t at)
{
	snprintf(msg, cap, "%s at position %lld", what, (long long)at);
	return code;
}

static int parse_int(const char *p, int64_t n, int64_t *i, int64_t *out)
{
	int64_t k = *i, v = 0;
	int neg = 0;
	if (k < n && p[k] == '-')
		neg = 1, k++;
	int64_t d = k;
	while (k < n && p[k] >= '0' && p[k] <= '9' && v < (INT64_MAX - 9) / 10)
		v = v * 10 + (p[k++] - '0');
	if (k == d)
		return -1;
	*out = neg ? -v : v;
	*i = k;
	return 0;
}

static int64_t pskip(const char *p, int64_t n, int64_t i)
{
	while (i < n && p[i] == ' ')
		i++;
	return i;
}

/* Bracket contents after '[': names, '*', indexes or a slice. */
static int parse_bracket(const char *p, int64_t n, int64_t *pi, sl_arena *a, sl_jpath_step *st,
                         char *msg, size_t cap)
{
	int64_t i = pskip(p, n, *pi);
	if (i < n && p[i] == '?')
		return perr(msg, cap, SL_JP_UNSUPPORTED, "JSON path filters are not supported", i);
	if (i < n && p[i] == '*') {
		st->kind = SL_JP_WILD;
		i = pskip(p, n, i + 1);
	} else if (i < n && (p[i] == '\'' || p[i] == '"')) {
		st->kind = SL_JP_KEY;
		int capk = 8;
		st->keys = sl_arena_alloc(a, sizeof(char *) * (size_t)capk);
		st->keylens = sl_arena_alloc(a, sizeof(int64_t) * (size_t)capk);
		if (!st->keys || !st->keylens)
			return SL_JP_NOMEM;
		for (;;) {
			char q = p[i];
			int64_t b = ++i;
			while (i < n && p[i] != q)
				i += p[i] == '\\' ? 2 : 1;
			if (i >= n)
				return perr(msg, cap, SL_JP_SYNTAX, "unterminated property name", b);
			if (st->nkeys == capk)
				return perr(msg, cap, SL_JP_UNSUPPORTED, "more than 8 property names", b);
			char *k = sl_arena_alloc(a, (size_t)(i - b) + 1);
			if (!k)
				return SL_JP_NOMEM;
			int64_t kl = 0;
			for (int64_t j = b; j < i; j++) {
				if (p[j] == '\\' && j + 1 < i)
					j++;
				k[kl++] = p[j];
			}
			k[kl] = 0;
			st->keys[st->nkeys] = k;
			st->keylens[st->nkeys++] = kl;
			i = pskip(p, n, i + 1);
			if (i < n && p[i] == ',') {
				i = pskip(p, n, i + 1);
				if (i < n && (p[i] == '\'' || p[i] == '"'))
					continue;
				return perr(msg, cap, SL_JP_SYNTAX, "expected a quoted property name", i);
			}
			break;
		}
	} else {
		int64_t v;
		int have = 0;
		if (i < n && p[i] != ':') {
			if (parse_int(p, n, &i, &v))
				return perr(msg, cap, SL_JP_SYNTAX, "expected an index, '*' or a quoted name", i);
			have = 1;
			i = pskip(p, n, i);
		}
		if (i < n && p[i] == ':') {
			st->kind = SL_JP_SLICE;
			st->has_from = have;
			st->from = have ? v : 0;
			i = pskip(p, n, i + 1);
			if (i < n && p[i] != ']') {
				if (parse_int(p, n, &i, &st->to))
					return perr(msg, cap, SL_JP_SYNTAX, "expected a slice end", i);
				st->has_to = 1;
				i = pskip(p, n, i);
			}
		} else {
			int capi = 16;
			st->kind = SL_JP_INDEX;
			if (!(st->idx = sl_arena_alloc(a, sizeof(int64_t) * (size_t)capi)))
				return SL_JP_NOMEM;
			st->idx[st->nidx++] = v;
			while (i < n && p[i] == ',') {
				i = pskip(p, n, i + 1);
				if (st->nidx == capi)
					return perr(msg, cap, SL_JP_UNSUPPORTED, "more than 16 indexes", i);
				if (parse_int(p, n, &i, &st->idx[st->nidx++]))
					return perr(msg, cap, SL_JP_SYNTAX, "expected an index", i);
				i = pskip(p, n, i);
			}
		}
	}
	if (i >= n || p[i] != ']')
		return perr(msg, cap, SL_JP_SYNTAX, "expected ']'", i);
	*pi = i + 1;
	return SL_JP_OK;
}

static int step_definite(const sl_jpath_step *st)
{
	switch (st->kind) {
	case SL_JP_KEY: return st->nkeys == 1;
	case SL_JP_INDEX: return st->nidx == 1;
	default: return 0;
	}
}

int sl_jpath_parse(const char *spec, int64_t n, sl_arena *a, sl_jpath *out, char *msg, size_t cap)
{
	memset(out, 0, sizeof(*out));
	out->strict = 1;
	int64_t i = 0;
	while (i < n && is_ws(spec[i]))
		i++;
	for (int m = 0; m < 2; m++) {
		const char *w = m ? "strict" : "lax";
		int64_t k = (int64_t)strlen(w);
		if (n - i > k && !strncasecmp(spec + i, w, (size_t)k) && is_ws(spec[i + k])) {
			out->strict = m;
			i += k;
			while (i < n && is_ws(spec[i]))
				i++;
			break;
		}
	}
	while (n > i && is_ws(spec[n - 1]))
		n--;
	if (i >= n || spec[i] != '$')
		return perr(msg, cap, SL_JP_SYNTAX, "a JSON path must start with '$'", i);
	i++;
	int capst = 8;
	out->definite = 1;
	if (!(out->steps = sl_arena_calloc(a, sizeof(sl_jpath_step) * (size_t)capst)))
		return SL_JP_NOMEM;
	while (i < n) {
		if (out->nsteps == capst) {
			sl_jpath_step *ns = sl_arena_calloc(a, sizeof(sl_jpath_step) * (size_t)capst * 2);
			if (!ns)
				return SL_JP_NOMEM;
			memcpy(ns, out->steps, sizeof(sl_jpath_step) * (size_t)capst);
			out->steps = ns;
			capst *= 2;
		}
		sl_jpath_step *st = &out->steps[out->nsteps];
		memset(st, 0, sizeof(*st));
		int r;
		if (spec[i] == '.') {
			i++;
			if (i < n && spec[i] == '.')
				return perr(msg, cap, SL_JP_UNSUPPORTED, "JSON path deep scan '..' is not supported", i);
			if (i < n && spec[i] == '[') {
				i++;
				if ((r = parse_bracket(spec, n, &i, a, st, msg, cap)))
					return r;
			} else if (i < n && spec[i] == '*') {
				st->kind = SL_JP_WILD;
				i++;
			} else {
				int64_t b = i;
				while (i < n && spec[i] != '.' && spec[i] != '[' && spec[i] != ' ' && spec[i] != '(')
					i++;
				if (i == b)
					return perr(msg, cap, SL_JP_SYNTAX, "expected a property name", i);
				if (i < n && spec[i] == '(')
					return perr(msg, cap, SL_JP_UNSUPPORTED, "JSON path functions are not supported", b);
				st->kind = SL_JP_KEY;
				st->nkeys = 1;
				st->keys = sl_arena_alloc(a, sizeof(char *));
				st->keylens = sl_arena_alloc(a, sizeof(int64_t));
				char *k = sl_arena_strndup(a, spec + b, (size_t)(i - b));
				if (!st->keys || !st->keylens || !k)
					return SL_JP_NOMEM;
				st->keys[0] = k;
				st->keylens[0] = i - b;
			}
		} else if (spec[i] == '[') {
			i++;
			if ((r = parse_bracket(spec, n, &i, a, st, msg, cap)))
				return r;
		} else {
			return perr(msg, cap, SL_JP_SYNTAX, "expected '.' or '['", i);
		}
		out->definite &= step_definite(st);
		out->nsteps++;
	}
	return SL_JP_OK;
}

/* ---- evaluation --------------------------------------------------------- */

void sl_jeval_free(sl_jeval *ev)
{
	free(ev->cur);
	free(ev->next);
	memset(ev, 0, sizeof(*ev));
}

static int push_next(sl_jeval *ev, int64_t b, int64_t e)
{
	if (ev->nnext == ev->cap) {
		int nc = ev->cap ? ev->cap * 2 : 16;
		sl_jspan *a = realloc(ev->cur, sizeof(sl_jspan) * (size_t)nc);
		if (!a)
			return -1;
		ev->cur = a;
		sl_jspan *c = realloc(ev->next, sizeof(sl_jspan) * (size_t)nc);
		if (!c)
			return -1;
		ev->next = c;
		ev->cap = nc;
	}
	ev->next[ev->nnext].start = b;
	ev->next[ev->nnext++].end = e;
	return 0;
}

/* Compares the JSON string literal s[b..e) (quotes included) with key. */
static int key_eq(const char *s, int64_t b, int64_t e, const char *key, int64_t kl)
{
	int64_t i = b + 1, k = 0;
	e--;
	while (i < e) {
		char c = s[i];
		if (c == '\\') {
			/* escaped names: decode one character */
			char d = s[i + 1];
			if (d == 'u') {
				unsigned cp = 0;
				for (int j = 2; j < 6; j++)
					cp = cp * 16 + (unsigned)hexv(s[i + j]);
				if (cp >= 0x80)
					return 0; /* non-ASCII escapes: compared below only if ASCII */
				c = (char)cp;
				i += 6;
			} else {
				c = d == 'b' ? '\b' : d == 'f' ? '\f' : d == 'n' ? '\n' : d == 'r' ? '\r'
				  : d == 't' ? '\t' : d;
				i += 2;
			}
		} else {
			i++;
		}
		if (k >= kl || key[k++] != c)
			return 0;
	}
	return k == kl;
}

/* Member `key` of the object at s[b..), span to *vb and *ve; 1 found, 0 not. */
static int find_member(const char *s, int64_t n, int64_t b, const char *key, int64_t kl,
                       int64_t *vb, int64_t *ve)
{
	int64_t i = skip_ws(s, n, b + 1), found = 0;
	while (i < n && s[i] == '"') {
		int64_t ke = skip_string(s, n, i);
		int match = key_eq(s, i, ke, key, kl);
		i = skip_ws(s, n, skip_ws(s, n, ke) + 1);
		int64_t e = skip_value(s, n, i);
		if (match) { /* Jackson keeps the last of duplicate keys */
			*vb = i;
			*ve = e;
			found = 1;
		}
		i = skip_ws(s, n, e);
		if (i < n && s[i] == ',')
			i = skip_ws(s, n, i + 1);
	}
	return (int)found;
}

/* Elements (or member values) of the container at s[b..) into ev->next,
 * filtered by an index step (idx/nidx), a slice, or all (wildcard). */
static int children(const char *s, int64_t n, int64_t b, const sl_jpath_step *st, sl_jeval *ev)
{
	int obj = s[b] == '{';
	int64_t i = skip_ws(s, n, b + 1), len = 0;
	/* count elements first when an index may be negative or a slice is used */
	if (!obj && st->kind != SL_JP_WILD) {
		int64_t j = i;
		while (j < n && s[j] != ']') {
			j = skip_ws(s, n, skip_value(s, n, j));
			len++;
			if (j < n && s[j] == ',')
				j = skip_ws(s, n, j + 1);
		}
	}
	int64_t from = 0, to = len;
	if (st->kind == SL_JP_SLICE) {
		from = st->has_from ? (st->from < 0 ? len + st->from : st->from) : 0;
		to = st->has_to ? (st->to < 0 ? len + st->to : st->to) : len;
		if (from < 0)
			from = 0;
		if (to > len)
			to = len;
	}
	/* index steps emit in the order the indexes are written */
	if (st->kind == SL_JP_INDEX) {
		for (int k = 0; k < st->nidx; k++) {
			int64_t want = st->idx[k] < 0 ? len + st->idx[k] : st->idx[k];
			if (want < 0 || want >= len)
				continue;
			int64_t j = i;
			for (int64_t c = 0; c < want; c++) {
				j = skip_ws(s, n, skip_value(s, n, j));
				j = skip_ws(s, n, j + 1);
			}
			if (push_next(ev, j, skip_value(s, n, j)))
				return -1;
		}
		return 0;
	}
	for (int64_t c = 0; i < n && s[i] != (obj ? '}' : ']'); c++) {
		if (obj) /* skip the key */
			i = skip_ws(s, n, skip_ws(s, n, skip_string(s, n, i)) + 1);
		int64_t e = skip_value(s, n, i);
		if ((st->kind == SL_JP_WILD || (c >= from && c < to)) && push_next(ev, i, e))
			return -1;
		i = skip_ws(s, n, e);
		if (i < n && s[i] == ',')
			i = skip_ws(s, n, i + 1);
	}
	return 0;
}

static void swap(sl_jeval *ev)
{
	sl_jspan *t = ev->cur;
	ev->cur = ev->next;
	ev->next = t;
	ev->ncur = ev->nnext;
	ev->nnext = 0;
}

int sl_jpath_eval(const sl_jpath *path, const char *s, int64_t n, sl_jeval *ev, char *msg,
                  size_t cap)
{
	int64_t rb, re;
	ev->nnext = 0;
	if (sl_json_check(s, n, &rb, &re) == SL_JV_NONE) {
		if (!path->strict)
			return SL_JR_EMPTY;
		snprintf(msg, cap, "the input is not valid JSON");
		return SL_JR_ERROR;
	}
	if (push_next(ev, rb, re))
		goto nomem;
	swap(ev);
	int upstream_definite = 1;
	for (int k = 0; k < path->nsteps; k++) {
		const sl_jpath_step *st = &path->steps[k];
		int strict_here = path->strict && upstream_definite;
		for (int c = 0; c < ev->ncur; c++) {
			int64_t b = ev->cur[c].start;
			int kind = sl_json_kind(s + b, n - b);
			if (st->kind == SL_JP_KEY) {
				if (kind != SL_JV_OBJECT) {
					if (strict_here) {
						snprintf(msg, cap, "property '%s' of a value that is not an object",
						         st->keys[0]);
						return SL_JR_ERROR;
					}
					continue;
				}
				for (int j = 0; j < st->nkeys; j++) {
					int64_t vb, ve;
					if (find_member(s, n, b, st->keys[j], st->keylens[j], &vb, &ve)) {
						if (push_next(ev, vb, ve))
							goto nomem;
					}
				}
			} else if (st->kind == SL_JP_WILD) {
				if ((kind == SL_JV_OBJECT || kind == SL_JV_ARRAY) && children(s, n, b, st, ev))
					goto nomem;
			} else {
				if (kind != SL_JV_ARRAY) {
					if (strict_here) {
						snprintf(msg, cap, "index into a value that is not an array");
						return SL_JR_ERROR;
					}
					continue;
				}
				if (children(s, n, b, st, ev))
					goto nomem;
			}
		}
		swap(ev);
		upstream_definite &= step_definite(st);
	}
	if (!path->definite)
		return SL_JR_LIST;
	if (ev->ncur == 0) {
		if (!path->strict)
			return SL_JR_EMPTY;
		snprintf(msg, cap, "no results for the path");
		return SL_JR_ERROR;
	}
	if (sl_json_kind(s + ev->cur[0].start, n - ev->cur[0].start) == SL_JV_NULL) {
		if (!path->strict)
			return SL_JR_EMPTY;
		snprintf(msg, cap, "strict mode requires a non-null value, but it is null");
		return SL_JR_ERROR;
	}
	return SL_JR_VALUE;
nomem:
	snprintf(msg, cap, "out of memory");
	return SL_JR_ERROR;
}

/* ---- text helpers ------------------------------------------------------- */

static int put(char **buf, int64_t *len, int64_t *cap, const char *p, int64_t n)
{
	if (*len + n + 1 > *cap) {
		int64_t nc = *cap ? *cap : 64;
		while (nc < *len + n + 1)
			nc *= 2;
		char *b = realloc(*buf, (size_t)nc);
		if (!b)
			return -1;
		*buf = b;
		*cap = nc;
	}
	memcpy(*buf + *len, p, (size_t)n);
	*len += n;
	(*buf)[*len] = 0;
	return 0;
}

/* Appends the UTF-8 of code point cp. */
static int put_cp(char **buf, int64_t *len, int64_t *cap, unsigned cp)
{
	char u[4];
	int k;
	if (cp < 0x80) {
		u[0] = (char)cp;
		k = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3F));
		k = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xE0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F));
		k = 3;
	} else {
		u[0] = (char)(0xF0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[3] = (char)(0x80 | (cp & 0x3F));
		k = 4;
	}
	return put(buf, len, cap, u, k);
}

int64_t sl_json_unescape(const char *s, int64_t n, char **buf, int64_t *cap)
{
	int64_t len = 0;
	if (put(buf, &len, cap, "", 0))
		return -1;
	for (int64_t i = 1; i < n - 1; i++) {
		if (s[i] != '\\') {
			int64_t j = i;
			while (j < n - 1 && s[j] != '\\')
				j++;
			if (put(buf, &len, cap, s + i, j - i))
				return -1;
			i = j - 1;
			continue;
		}
		char d = s[++i];
		if (d == 'u') {
			unsigned cp = 0;
			for (int j = 1; j <= 4; j++)
				cp = cp * 16 + (unsigned)hexv(s[i + j]);
			i += 4;
			if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < n && s[i + 1] == '\\' && s[i + 2] == 'u') {
				unsigned lo = 0;
				for (int j = 3; j <= 6; j++)
					lo = lo * 16 + (unsigned)hexv(s[i + j]);
				if (lo >= 0xDC00 && lo < 0xE000) {
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					i += 6;
				}
			}
			if (put_cp(buf, &len, cap, cp))
				return -1;
			continue;
		}
		char c = d == 'b' ? '\b' : d == 'f' ? '\f' : d == 'n' ? '\n' : d == 'r' ? '\r'
		       : d == 't' ? '\t' : d;
		if (put(buf, &len, cap, &c, 1))
			return -1;
	}
	return len;
}

/* Appends s (raw UTF-8) as a JSON string literal, escaped as Jackson does. */
static int put_quoted(char **buf, int64_t *len, int64_t *cap, const char *s, int64_t n)
{
	static const char hx[] = "0123456789ABCDEF";
	if (put(buf, len, cap, "\"", 1))
		return -1;
	int64_t run = 0;
	for (int64_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		if (put(buf, len, cap, s + run, i - run))
			return -1;
		run = i + 1;
		char e[6] = {'\\', 0, 0, 0, 0, 0};
		int k = 2;
		switch (c) {
		case '"': e[1] = '"'; break;
		case '\\': e[1] = '\\'; break;
		case '\b': e[1] = 'b'; break;
		case '\f': e[1] = 'f'; break;
		case '\n': e[1] = 'n'; break;
		case '\r': e[1] = 'r'; break;
		case '\t': e[1] = 't'; break;
		default:
			e[1] = 'u';
			e[2] = '0';
			e[3] = '0';
			e[4] = hx[c >> 4];
			e[5] = hx[c & 15];
			k = 6;
		}
		if (put(buf, len, cap, e, k))
			return -1;
	}
	if (put(buf, len, cap, s + run, n - run))
		return -1;
	return put(buf, len, cap, "\"", 1);
}

int sl_json_quote(const char *s, int64_t n, char **buf, int64_t *len, int64_t *cap)
{
	return put_quoted(buf, len, cap, s, n);
}

int sl_json_number(const char *s, int64_t n, char *out)
{
	int frac = 0;
	for (int64_t i = 0; i < n; i++)
		frac |= s[i] == '.' || s[i] == 'e' || s[i] == 'E';
	if (!frac) {
		if (n == 2 && s[0] == '-' && s[1] == '0')
			return (int)(memcpy(out, "0", 1), 1);
		if (n > 40)
			n = 40;
		memcpy(out, s, (size_t)n);
		return (int)n;
	}
	char tmp[64];
	if (n >= (int64_t)sizeof(tmp))
		n = sizeof(tmp) - 1;
	memcpy(tmp, s, (size_t)n);
	tmp[n] = 0;
	return sl_double_text(strtod(tmp, NULL), 0, out);
}

/* Appends the JSON string literal s[0..n) (quotes included, valid) as
 * Jackson writes it back: escapes decoded, then only '"', '\\' and control
 * characters escaped.  No temporary buffer. */
static int requote(const char *s, int64_t n, char **buf, int64_t *len, int64_t *cap)
{
	if (put(buf, len, cap, "\"", 1))
		return -1;
	for (int64_t i = 1; i < n - 1;) {
		if (s[i] != '\\') {
			int64_t j = i;
			while (j < n - 1 && s[j] != '\\')
				j++;
			if (put(buf, len, cap, s + i, j - i))
				return -1;
			i = j;
			continue;
		}
		char d = s[i + 1];
		unsigned cp = (unsigned char)d;
		i += 2;
		if (d == 'u') {
			cp = 0;
			for (int j = 0; j < 4; j++)
				cp = cp * 16 + (unsigned)hexv(s[i + j]);
			i += 4;
			if (cp >= 0xD800 && cp < 0xDC00 && i + 6 <= n - 1 && s[i] == '\\' && s[i + 1] == 'u') {
				unsigned lo = 0;
				for (int j = 2; j < 6; j++)
					lo = lo * 16 + (unsigned)hexv(s[i + j]);
				if (lo >= 0xDC00 && lo < 0xE000) {
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					i += 6;
				}
			}
		} else {
			cp = d == 'b' ? '\b' : d == 'f' ? '\f' : d == 'n' ? '\n' : d == 'r' ? '\r'
			   : d == 't' ? '\t' : (unsigned char)d;
		}
		if (cp < 0x20 || cp == '"' || cp == '\\') {
			char c = (char)cp;
			/* put_quoted writes the escape between quotes: drop them */
			int64_t mark = *len;
			if (put_quoted(buf, len, cap, &c, 1))
				return -1;
			memmove(*buf + mark, *buf + mark + 1, (size_t)(*len - mark - 2));
			*len -= 2;
			(*buf)[*len] = 0;
		} else if (put_cp(buf, len, cap, cp)) {
			return -1;
		}
	}
	return put(buf, len, cap, "\"", 1);
}

int sl_json_compact(const char *s, int64_t n, char **buf, int64_t *len, int64_t *cap)
{
	for (int64_t i = 0; i < n;) {
		if (is_ws(s[i])) {
			i++;
			continue;
		}
		if (s[i] == '"') {
			int64_t e = skip_string(s, n, i);
			if (e < 0 || requote(s + i, e - i, buf, len, cap))
				return -1;
			i = e;
			continue;
		}
		if (s[i] == '-' || (s[i] >= '0' && s[i] <= '9')) {
			char num[48];
			int64_t e = skip_number(s, n, i);
			if (e < 0 || put(buf, len, cap, num, sl_json_number(s + i, e - i, num)))
				return -1;
			i = e;
			continue;
		}
		if (put(buf, len, cap, s + i, 1))
			return -1;
		i++;
	}
	return 0;
}
