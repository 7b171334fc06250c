/*
 * fn_regex.c - regular-expression kernels over libpcre2-8: REGEXP (find),
 * REGEXP_EXTRACT, REGEXP_REPLACE and SIMILAR TO.
 *
 * Flink's regex functions use Java's java.util.regex; PCRE2 accepts the
 * same syntax for everything but exotic constructs.  A literal pattern is
 * compiled (and JIT-compiled when the library supports it) once at bind
 * time; a pattern coming from a column is compiled when it differs from
 * the previous row's (kept in the step's cache), so a constant-per-batch
 * pattern costs one compile.  Match data is allocated once per step.
 * A subject is checked for well-formed UTF-8 here (sl__utf8_valid, eight
 * ASCII bytes at a time) and matched with PCRE2_NO_UTF_CHECK, through
 * pcre2_jit_match when the pattern is JIT-compiled; a malformed subject
 * goes to pcre2_match with its own check, which refuses it as before (no
 * match: REGEXP FALSE, REGEXP_EXTRACT NULL, REGEXP_REPLACE NULL).  A literal
 * pattern is not looked at again per row.
 * SIMILAR TO translates the SQL pattern ('%' -> '.*', '_' -> '.', regex
 * metacharacters '.', '^', '$', '\' quoted) and matches the whole string.
 *
 * REGEXP_EXTRACT returns NULL when nothing matches or the group does not
 * exist, and the whole match when no group is given (Flink's default 0);
 * REGEXP_REPLACE's replacement is literal text ('$1' is not a group
 * reference: Flink quotes it with Matcher.quoteReplacement);
 * REGEXP with an empty pattern is FALSE, as in Flink; an invalid literal pattern is a planning error, an invalid pattern
 * from data a runtime error naming it.
 */
#include "expr_int.h"
#include "str_util.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rx {
	pcre2_code *code;
	pcre2_match_data *md;
	char *last;          /* pattern text of `code` (dynamic patterns) */
	size_t last_len, last_cap;
	int similar;         /* translate SQL SIMILAR TO syntax */
	int jit;             /* `code` is JIT-compiled: pcre2_jit_match */
	int fixed;           /* literal pattern, compiled at bind time */
	char lit[64];        /* text every match contains (required_literal) */
	size_t litn;         /* its length, 0: none known */
	size_t rare;         /* index in lit of the byte memchr looks for */
} rx;

static void rx_free(void *ptr)
{
	rx *r = ptr;
	if (!r)
		return;
	pcre2_code_free(r->code);
	pcre2_match_data_free(r->md);
	free(r->last);
	free(r);
}

/* SQL SIMILAR TO pattern -> PCRE2 text (NUL-terminated, malloc'd). */
static char *similar_to_pcre(const char *p, size_t n, size_t *outn)
{
	char *d = malloc(n * 2 + 1), *w = d;
	if (!d)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (c == '%') {
			*w++ = '.';
			*w++ = '*';
		} else if (c == '_') {
			*w++ = '.';
		} else if (c == '.' || c == '^' || c == '$' || c == '\\') {
			*w++ = '\\';
			*w++ = c;
		} else {
			*w++ = c;
		}
	}
	*w = 0;
	*outn = (size_t)(w - d);
	return d;
}

/* Plain ASCII characters that a pattern matches as themselves (outside a
 * class, not escaped, without an inline option). */
static int plain_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr(" _-=&/:;,!@%'\"<>~`", c));
}

/*
 * Finds the longest run of plain characters that every match of PCRE2
 * pattern p (n bytes) contains: the pattern's top level (outside groups
 * and classes) must be a sequence, without '|'; a character followed by
 * '?', '*' or '{' may be absent, so it ends the run (and the bounds of
 * '{' are skipped); an escape ends it,
 * with the letters, digits and braces after it (\x41, \p{L}).  Patterns
 * with inline options or verbs ("(?", "(*"), \Q quoting or POSIX classes
 * give none, as does any doubt.  Sets *off and *len (0: none).  A subject
 * without that text cannot match, which has_literal tells faster than PCRE2:
 * Nexmark q21's "(&|^)channel_id=([^&]*)" over URLs of which half have no
 * channel_id (docs/nexmark.md §22).
 */
static void required_literal(const char *p, size_t n, size_t *off, size_t *len)
{
	size_t best = 0, best_off = 0, run = 0, run_off = 0;
	int depth = 0;
	*off = *len = 0;
	if (memmem(p, n, "(?", 2) || memmem(p, n, "(*", 2) || memmem(p, n, "\\Q", 2) ||
	    memmem(p, n, "[:", 2) || memmem(p, n, "[.", 2) || memmem(p, n, "[=", 2))
		return;
	for (size_t i = 0; i <= n; i++) {
		unsigned char c = i < n ? (unsigned char)p[i] : 0;
		if (i < n && depth == 0 && plain_char(c)) {
			if (!run++)
				run_off = i;
			continue;
		}
		if (run) {
			if (c == '?' || c == '*' || c == '{')
				run--; /* the last character may be absent */
			if (run > best) {
				best = run;
				best_off = run_off;
			}
			run = 0;
		}
		if (i == n)
			break;
		switch (c) {
		case '\\':
			for (i++; i + 1 < n && (isalnum((unsigned char)p[i + 1]) || p[i + 1] == '{' ||
			                        p[i + 1] == '}' || p[i + 1] == ',');)
				i++;
			break;
		case '[':
			/* a class: ']' first (after '^') is a member; escapes inside */
			i++;
			if (i < n && p[i] == '^')
				i++;
			if (i < n && p[i] == ']')
				i++;
			while (i < n && p[i] != ']')
				i += p[i] == '\\' ? 2 : 1;
			if (i >= n)
				return;
			break;
		case '{':
			/* a quantifier's bounds are not text */
			while (i < n && p[i] != '}')
				i++;
			break;
		case '(': depth++; break;
		case ')':
			if (--depth < 0)
				return;
			break;
		case '|':
			if (depth == 0)
				return;
			break;
		default: break;
		}
	}
	if (depth != 0 || best < 2)
		return;
	*off = best_off;
	*len = best;
}

/* Index in the n bytes at s of the byte least likely in text, by a fixed
 * order from common to rare (English letters by frequency, then URL and
 * number characters, then capitals and the rest). */
static size_t rare_byte(const char *s, size_t n)
{
	static const char order[] = " etaoinsrhldcumfpgwybvkxjqz/.:-0123456789_"
	                            "ETAOINSRHLDCUMFPGWYBVKXJQZ,;=&!@%'\"<>~`";
	size_t best = 0, best_rank = 0;
	for (size_t k = 0; k < n; k++) {
		const char *at = strchr(order, s[k]);
		size_t rank = at ? (size_t)(at - order) : sizeof(order);
		if (rank > best_rank) {
			best = k;
			best_rank = rank;
		}
	}
	return best;
}

/* 1 when the lit of r occurs in the n bytes at s: memchr for its rarest
 * byte, memcmp at each place that byte is found (glibc's memmem cost 260
 * instructions per 75-byte URL, more than PCRE2's JIT match). */
static int has_literal(const rx *r, const char *s, size_t n)
{
	const char *end = s + n, *from = s + r->rare;
	size_t m = r->litn, k = r->rare;
	if (n < m)
		return 0;
	while (from < end - (m - 1 - k)) {
		const char *q = memchr(from, r->lit[k], (size_t)(end - (m - 1 - k) - from));
		if (!q)
			return 0;
		if (!memcmp(q - k, r->lit, m))
			return 1;
		from = q + 1;
	}
	return 0;
}

/* (Re)compiles r for pattern p.  Returns 0 or an error with msg set. */
static int rx_compile(rx *r, const char *p, size_t n, char *msg, size_t cap)
{
	char *tr = NULL;
	int ec;
	PCRE2_SIZE eo;
	if (r->code && r->last && n == r->last_len && !memcmp(r->last, p, n))
		return 0;
	const char *src = p;
	size_t sn = n;
	if (r->similar) {
		if (!(tr = similar_to_pcre(p, n, &sn)))
			return SL_ENOMEM;
		src = tr;
	}
	uint32_t opts = PCRE2_UTF | PCRE2_NO_UTF_CHECK |
	                (r->similar ? PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_DOTALL : 0);
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)src, sn, opts, &ec, &eo, NULL);
	size_t lo, ln;
	char lit[sizeof(r->lit)];
	required_literal(src, sn, &lo, &ln);
	if (ln > sizeof(lit))
		ln = sizeof(lit); /* a part of a required text is required */
	memcpy(lit, src + lo, ln);
	free(tr);
	if (!code) {
		PCRE2_UCHAR eb[128];
		pcre2_get_error_message(ec, eb, sizeof(eb));
		snprintf(msg, cap, "invalid regular expression '%.*s': %s at offset %d", (int)n, p,
		         (const char *)eb, (int)eo);
		return SL_EPLAN;
	}
	/* no JIT: interpreter fallback */
	int jit = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(code, NULL);
	if (!md) {
		pcre2_code_free(code);
		return SL_ENOMEM;
	}
	pcre2_code_free(r->code);
	pcre2_match_data_free(r->md);
	r->code = code;
	r->md = md;
	r->jit = jit;
	memcpy(r->lit, lit, ln);
	r->litn = ln;
	r->rare = rare_byte(lit, ln);
	if (n + 1 > r->last_cap) {
		char *nl = realloc(r->last, n + 1);
		if (!nl)
			return SL_ENOMEM;
		r->last = nl;
		r->last_cap = n + 1;
	}
	memcpy(r->last, p, n);
	r->last_len = n;
	return 0;
}

/* Pattern of row i into r; runtime errors go to x->err. */
static int rx_row(sl_xctx *x, const sl_step *st, rx *r, int i)
{
	if (r->fixed)
		return 0;
	const sl_col *pc = SL_X_ARG(x, st, 1);
	char msg[300];
	int rc = rx_compile(r, pc->v.str[i].ptr, (size_t)pc->v.str[i].len, msg, sizeof(msg));
	if (rc == SL_ENOMEM)
		return sl_err_set(x->err, SL_ENOMEM, "out of memory compiling a regex");
	if (rc)
		return sl_err_set(x->err, SL_ERUNTIME, "%s: %s", sl_fn_name(st->fn), msg);
	return 0;
}

static int any_null(const sl_xctx *x, const sl_step *st, int i)
{
	for (int j = 0; j < st->nargs; j++)
		if (SL_X_ARG(x, st, j)->null[i])
			return 1;
	return 0;
}

/* pcre2_match's result for subject s (ovector in r->md).  Well-formed
 * UTF-8 skips PCRE2's byte-by-byte check (and pcre2_match's other checks
 * with JIT code: pcre2_jit_match); a malformed subject gets PCRE2's
 * check and its error (< 0), as before. */
static int rx_exec(rx *r, sl_str s)
{
	if (r->litn && !has_literal(r, s.ptr, (size_t)s.len))
		return PCRE2_ERROR_NOMATCH; /* also what a malformed subject gives */
	if (!sl__utf8_valid(s.ptr, s.len))
		return pcre2_match(r->code, (PCRE2_SPTR)s.ptr, (PCRE2_SIZE)s.len, 0, 0, r->md, NULL);
	if (r->jit)
		return pcre2_jit_match(r->code, (PCRE2_SPTR)s.ptr, (PCRE2_SIZE)s.len, 0, 0, r->md,
		                       NULL);
	return pcre2_match(r->code, (PCRE2_SPTR)s.ptr, (PCRE2_SIZE)s.len, 0, PCRE2_NO_UTF_CHECK,
	                   r->md, NULL);
}

/* REGEXP and SIMILAR TO: BOOLEAN. */
static int k_regexp(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	sl_col *o = SL_X_OUT(x, st);
	rx *r = st->aux;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = any_null(x, st, i);
		if (o->null[i])
			continue;
		if (st->fn == SL_FN_REGEXP && SL_X_ARG(x, st, 1)->v.str[i].len == 0) {
			o->v.i64[i] = 0; /* Flink: an empty regex matches nothing */
			continue;
		}
		int rc = rx_row(x, st, r, i);
		if (rc)
			return rc;
		o->v.i64[i] = rx_exec(r, a->v.str[i]) >= 0;
	});
	return 0;
}

static int k_regexp_extract(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0);
	const sl_col *g = st->nargs > 2 ? SL_X_ARG(x, st, 2) : NULL;
	sl_col *o = SL_X_OUT(x, st);
	rx *r = st->aux;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = 1;
		if (any_null(x, st, i))
			continue;
		int rc = rx_row(x, st, r, i);
		if (rc)
			return rc;
		int64_t grp = g ? g->v.i64[i] : 0; /* Flink: the whole match by default */
		int m = rx_exec(r, a->v.str[i]);
		if (m < 0 || grp < 0 || grp >= (int64_t)pcre2_get_ovector_count(r->md))
			continue;
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->md);
		if (grp >= m || ov[2 * grp] == PCRE2_UNSET)
			continue;
		o->null[i] = 0;
		o->v.str[i].ptr = a->v.str[i].ptr + ov[2 * grp];
		o->v.str[i].len = (int64_t)(ov[2 * grp + 1] - ov[2 * grp]);
	});
	return 0;
}

static int k_regexp_replace(sl_xctx *x, const sl_step *st)
{
	const sl_col *a = SL_X_ARG(x, st, 0), *rp = SL_X_ARG(x, st, 2);
	sl_col *o = SL_X_OUT(x, st);
	sl_arena *ar = sl__x_arena(x, st);
	rx *r = st->aux;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = 1;
		if (any_null(x, st, i))
			continue;
		int rc = rx_row(x, st, r, i);
		if (rc)
			return rc;
		sl_str s = a->v.str[i], rs = rp->v.str[i];
		/* PCRE2 checks subject and replacement, or neither */
		uint32_t utf_ok = sl__utf8_valid(s.ptr, s.len) && sl__utf8_valid(rs.ptr, rs.len)
		                      ? PCRE2_NO_UTF_CHECK : 0;
		PCRE2_SIZE cap = (PCRE2_SIZE)(s.len * 2 + rs.len + 64), outn = cap;
		for (int tries = 0; tries < 2; tries++) {
			char *d = sl_arena_alloc(ar, cap + 1);
			if (!d)
				return sl_err_set(x->err, SL_ENOMEM, "out of memory in REGEXP_REPLACE");
			outn = cap;
			int m = pcre2_substitute(r->code, (PCRE2_SPTR)s.ptr, (PCRE2_SIZE)s.len, 0,
			                         PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH |
			                             PCRE2_SUBSTITUTE_LITERAL | utf_ok,
			                         r->md, NULL, (PCRE2_SPTR)rs.ptr, (PCRE2_SIZE)rs.len,
			                         (PCRE2_UCHAR *)d, &outn);
			if (m == PCRE2_ERROR_NOMEMORY) {
				cap = outn;
				continue;
			}
			if (m < 0) {
				PCRE2_UCHAR eb[128];
				pcre2_get_error_message(m, eb, sizeof(eb));
				return sl_err_set(x->err, SL_ERUNTIME, "REGEXP_REPLACE: bad replacement '%.*s': %s",
				                  (int)rs.len, rs.ptr, (const char *)eb);
			}
			d[outn] = 0;
			o->null[i] = 0;
			o->v.str[i].ptr = d;
			o->v.str[i].len = (int64_t)outn;
			break;
		}
	});
	return 0;
}

/* ---- for other kernels (fn_str_to_map.c): one cached pattern ---------- */

void *sl__rx_new(sl_prog *p)
{
	rx *r = calloc(1, sizeof(*r));
	if (r && sl__prog_on_free(p, rx_free, r)) {
		rx_free(r);
		return NULL;
	}
	return r;
}

int sl__rx_set(void *r, const char *pat, size_t n, char *msg, size_t cap)
{
	return rx_compile(r, pat, n, msg, cap);
}

int sl__rx_find(void *rp, const char *s, size_t n, size_t from, size_t *ms, size_t *me)
{
	rx *r = rp;
	int m = pcre2_match(r->code, (PCRE2_SPTR)s, (PCRE2_SIZE)n, (PCRE2_SIZE)from, 0, r->md, NULL);
	if (m == PCRE2_ERROR_NOMATCH)
		return 0;
	if (m < 0)
		return -1;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->md);
	*ms = ov[0];
	*me = ov[1];
	return 1;
}

/* Picks kernels for the regex functions; compiles a literal pattern. */
int sl__bind_regex(sl_prog *p, sl_step *st, sl_err *err)
{
	switch (st->fn) {
	case SL_FN_REGEXP: case SL_FN_SIMILAR: st->k = k_regexp; break;
	case SL_FN_REGEXP_EXTRACT: st->k = k_regexp_extract; break;
	case SL_FN_REGEXP_REPLACE: st->k = k_regexp_replace; break;
	default: return SL_ENOTSUP;
	}
	rx *r = calloc(1, sizeof(*r));
	if (!r || sl__prog_on_free(p, rx_free, r))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	r->similar = st->fn == SL_FN_SIMILAR;
	st->aux = r;
	const sl_value *pv = sl__step_const(p, st, 1);
	if (pv && !pv->is_null) {
		char msg[300];
		int rc = rx_compile(r, pv->v.str.ptr, (size_t)pv->v.str.len, msg, sizeof(msg));
		if (rc)
			return sl_err_set(err, rc, "%s: %s", sl_fn_name(st->fn),
			                  rc == SL_ENOMEM ? "out of memory" : msg);
		r->fixed = 1;
	}
	return 0;
}
