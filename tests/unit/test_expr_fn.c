/*
 * test_expr_fn.c - scalar functions: strings (UTF-8 aware), LIKE, regex,
 * time functions in UTC and in a fixed-offset session zone,
 * CURRENT_WATERMARK, numeric functions, and the string-result arena rules.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "expr/expr.h"
#include "sluice.h"

static sl_arena A;
static sl_err E;

static int setup(void **st)
{
	sl_arena_init(&A, 0);
	sl_err_clear(&E);
	return 0;
}

static int teardown(void **st)
{
	sl_arena_deinit(&A);
	return 0;
}

static sl_type T(sl_type_id id) { return sl_type_make(id); }
static sl_type STR(void) { return sl_type_varchar(SL_STRING_LEN); }
static sl_expr *ilit(int64_t v) { return sl_expr_lit_i64(&A, T(SL_T_INT), v); }
static sl_expr *slit(const char *s) { return sl_expr_lit_str(&A, s, (int64_t)strlen(s)); }
static sl_expr *unit(sl_time_unit u) { return sl_expr_lit_i64(&A, T(SL_T_INT), u); }

static sl_expr *call(sl_fn fn, int n, ...)
{
	sl_expr *args[8];
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		args[i] = va_arg(ap, sl_expr *);
	va_end(ap);
	sl_expr *e = sl_expr_call(&A, fn, args, n, NULL, 0, &E);
	if (!e)
		print_message("type error: %s\n", E.msg);
	assert_non_null(e);
	return e;
}

static sl_expr *cast(sl_expr *x, sl_type t)
{
	sl_expr *e = sl_expr_call(&A, SL_FN_CAST, &x, 1, &t, 0, &E);
	assert_non_null(e);
	return e;
}

/* Constant evaluation, string result ("<NULL>" for NULL). */
static const char *sv(sl_expr *e)
{
	sl_value v;
	int rc = sl_expr_eval_const(e, &A, &v, &E);
	if (rc)
		print_message("eval error: %s\n", E.msg);
	assert_int_equal(rc, 0);
	if (v.is_null)
		return "<NULL>";
	if (sl_type_phys(e->type) == SL_PHYS_STR)
		return sl_arena_strndup(&A, v.v.str.ptr, (size_t)v.v.str.len);
	sl_batch *b = sl_batch_new(1, &e->type, 1);
	(void)b;
	sl_batch_free(b);
	return sv(cast(e, STR()));
}

static int64_t iv(sl_expr *e)
{
	sl_value v;
	int rc = sl_expr_eval_const(e, &A, &v, &E);
	if (rc)
		print_message("eval error: %s\n", E.msg);
	assert_int_equal(rc, 0);
	assert_false(v.is_null);
	return v.v.i64;
}

static int isnull(sl_expr *e)
{
	sl_value v;
	assert_int_equal(sl_expr_eval_const(e, &A, &v, &E), 0);
	return v.is_null;
}

static void test_strings(void **st)
{
	assert_string_equal(sv(call(SL_FN_UPPER, 1, slit("héllo wörld"))), "HÉLLO WÖRLD");
	assert_string_equal(sv(call(SL_FN_LOWER, 1, slit("ÀB"))), "àb");
	assert_int_equal(iv(call(SL_FN_CHAR_LENGTH, 1, slit("日本語abc"))), 6);
	assert_string_equal(sv(call(SL_FN_SUBSTRING, 3, slit("日本語abc"), ilit(2), ilit(3))), "本語a");
	assert_string_equal(sv(call(SL_FN_SUBSTRING, 2, slit("hello"), ilit(3))), "llo");
	assert_string_equal(sv(call(SL_FN_SUBSTRING, 2, slit("hello"), ilit(-3))), "llo");
	assert_string_equal(sv(call(SL_FN_SUBSTRING, 3, slit("hello"), ilit(9), ilit(2))), "");
	assert_string_equal(sv(call(SL_FN_CONCAT, 3, slit("a"), slit("é"), slit("c"))), "aéc");
	assert_true(isnull(call(SL_FN_CONCAT, 2, slit("a"), sl_expr_lit_null(&A, STR()))));
	assert_string_equal(sv(call(SL_FN_CONCAT_WS, 4, slit("-"), slit("a"),
	                            sl_expr_lit_null(&A, STR()), slit("b"))), "a-b");
	assert_string_equal(sv(call(SL_FN_TRIM_BOTH, 1, slit("  x y  "))), "x y");
	assert_string_equal(sv(call(SL_FN_TRIM_LEADING, 1, slit("  x  "))), "x  ");
	assert_string_equal(sv(call(SL_FN_TRIM_TRAILING, 2, slit("xx€€"), slit("€"))), "xx");
	assert_string_equal(sv(call(SL_FN_REPLACE, 3, slit("a.b.c"), slit("."), slit("::"))), "a::b::c");
	assert_int_equal(iv(call(SL_FN_POSITION, 2, slit("語"), slit("日本語"))), 3);
	assert_int_equal(iv(call(SL_FN_POSITION, 2, slit("z"), slit("abc"))), 0);
	assert_string_equal(sv(call(SL_FN_SPLIT_INDEX, 3, slit("a,b,,c"), slit(","), ilit(3))), "c");
	assert_string_equal(sv(call(SL_FN_SPLIT_INDEX, 3, slit("a,b,,c"), slit(","), ilit(2))), "");
	assert_true(isnull(call(SL_FN_SPLIT_INDEX, 3, slit("a,b"), slit(","), ilit(5))));
	assert_string_equal(sv(call(SL_FN_LPAD, 3, slit("hi"), ilit(5), slit("ab"))), "abahi");
	assert_string_equal(sv(call(SL_FN_RPAD, 3, slit("hi"), ilit(4), slit("é"))), "hiéé");
	assert_string_equal(sv(call(SL_FN_LPAD, 3, slit("hello"), ilit(2), slit("x"))), "he");
	assert_true(isnull(call(SL_FN_LPAD, 3, slit("hi"), ilit(-1), slit("x"))));
	/* RFC 1321 test vectors */
	assert_string_equal(sv(call(SL_FN_MD5, 1, slit(""))), "d41d8cd98f00b204e9800998ecf8427e");
	assert_string_equal(sv(call(SL_FN_MD5, 1, slit("abc"))), "900150983cd24fb0d6963f7d28e17f72");
	assert_string_equal(sv(call(SL_FN_MD5, 1, slit("12345678901234567890123456789012345678901234567890123456789012345678901234567890"))),
	                    "57edf4a22be3c955ac49da2e2107b67a");
}

static void test_like(void **st)
{
	struct {
		const char *s, *p;
		int m;
	} cases[] = {
		{"hello", "hello", 1}, {"hello", "he%", 1}, {"hello", "%lo", 1}, {"hello", "%ll%", 1},
		{"hello", "h_llo", 1}, {"héllo", "h_llo", 1}, {"hello", "h%o", 1}, {"hello", "h%x", 0},
		{"", "%", 1}, {"abc", "a%b%c", 1}, {"abcbc", "a%bc", 1}, {"ab", "a_c", 0},
		{"mississippi", "%iss%ppi", 1}, {"hello", "HELLO", 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t r = iv(call(SL_FN_LIKE, 2, slit(cases[i].s), slit(cases[i].p)));
		if (r != cases[i].m)
			print_message("'%s' LIKE '%s'\n", cases[i].s, cases[i].p);
		assert_int_equal(r, cases[i].m);
	}
	/* ESCAPE */
	assert_int_equal(iv(call(SL_FN_LIKE, 3, slit("100%"), slit("100!%"), slit("!"))), 1);
	assert_int_equal(iv(call(SL_FN_LIKE, 3, slit("1000"), slit("100!%"), slit("!"))), 0);
	assert_int_equal(iv(call(SL_FN_LIKE, 3, slit("a_b"), slit("a!_b"), slit("!"))), 1);
	/* column subject, literal pattern (bind-time classification) */
	sl_type s = STR();
	sl_batch *in = sl_batch_new(1, &s, 0);
	const char *vals[] = {"apple", "banana", "grape"};
	for (int i = 0; i < 3; i++)
		sl_col_set_str(in, &in->cols[0], sl_batch_add_row(in, 0, SL_WM_MIN), vals[i],
		               (int64_t)strlen(vals[i]));
	sl_expr *e = call(SL_FN_LIKE, 2, sl_expr_col(&A, 0, s), slit("%ap%"));
	sl_prog *p = sl_prog_compile(&e, 1, &s, 1, &E);
	assert_non_null(p);
	assert_int_equal(sl_prog_filter(p, in, NULL, &E), 0);
	assert_int_equal(in->nsel, 2);
	assert_int_equal(in->sel[0], 0);
	assert_int_equal(in->sel[1], 2);
	sl_prog_free(p);
	sl_batch_free(in);
}

static void test_regex(void **st)
{
	assert_string_equal(sv(call(SL_FN_REGEXP_EXTRACT, 3, slit("foo123bar"), slit("([a-z]+)(\\d+)"),
	                            ilit(2))), "123");
	/* no group: the whole match (Flink's SqlFunctionUtils.regexpExtract uses group 0) */
	assert_string_equal(sv(call(SL_FN_REGEXP_EXTRACT, 2, slit("foo123bar"), slit("([a-z]+)(\\d+)"))),
	                    "foo123");
	assert_true(isnull(call(SL_FN_REGEXP_EXTRACT, 2, slit("xyz"), slit("(\\d+)"))));
	assert_int_equal(iv(call(SL_FN_REGEXP, 2, slit("abc42"), slit("\\d"))), 1);
	assert_int_equal(iv(call(SL_FN_REGEXP, 2, slit("abc"), slit("^b"))), 0);
	assert_string_equal(sv(call(SL_FN_REGEXP_REPLACE, 3, slit("a1b22c333"), slit("\\d+"), slit("#"))),
	                    "a#b#c#");
	/* the replacement is literal (Flink's SqlFunctionUtils.regexpReplace quotes it) */
	assert_string_equal(sv(call(SL_FN_REGEXP_REPLACE, 3, slit("john smith"), slit("(\\w+) (\\w+)"),
	                            slit("$2, $1"))), "$2, $1");
	assert_int_equal(iv(call(SL_FN_SIMILAR, 2, slit("abcabc"), slit("(abc)+"))), 1);
	assert_int_equal(iv(call(SL_FN_SIMILAR, 2, slit("abcab"), slit("(abc)+"))), 0);
	assert_int_equal(iv(call(SL_FN_SIMILAR, 2, slit("a.c"), slit("a.c"))), 1);
	assert_int_equal(iv(call(SL_FN_SIMILAR, 2, slit("abc"), slit("a.c"))), 0);
	assert_int_equal(iv(call(SL_FN_SIMILAR, 2, slit("axxc"), slit("a%c"))), 1);
	/* an invalid literal regex is a compile-time error */
	sl_type s = STR();
	sl_expr *e = call(SL_FN_REGEXP, 2, sl_expr_col(&A, 0, s), slit("(unclosed"));
	sl_err_clear(&E);
	assert_null(sl_prog_compile(&e, 1, &s, 1, &E));
	assert_non_null(strstr(E.msg, "invalid regular expression"));
	/* per-row patterns */
	sl_type t2[2] = {s, s};
	sl_batch *in = sl_batch_new(2, t2, 0);
	const char *rows[][2] = {{"abc1", "\\d"}, {"abc", "\\d"}, {"xyz", "^x"}};
	for (int i = 0; i < 3; i++) {
		int r = sl_batch_add_row(in, 0, SL_WM_MIN);
		sl_col_set_str(in, &in->cols[0], r, rows[i][0], (int64_t)strlen(rows[i][0]));
		sl_col_set_str(in, &in->cols[1], r, rows[i][1], (int64_t)strlen(rows[i][1]));
	}
	e = call(SL_FN_REGEXP, 2, sl_expr_col(&A, 0, s), sl_expr_col(&A, 1, s));
	sl_prog *p = sl_prog_compile(&e, 1, t2, 2, &E);
	assert_non_null(p);
	sl_type bt = T(SL_T_BOOLEAN);
	sl_batch *out = sl_batch_new(1, &bt, 0);
	for (int i = 0; i < 3; i++)
		sl_batch_add_row(out, 0, SL_WM_MIN);
	assert_int_equal(sl_prog_eval(p, in, out, out->cols, NULL, &E), 0);
	assert_int_equal(out->cols[0].v.i64[0], 1);
	assert_int_equal(out->cols[0].v.i64[1], 0);
	assert_int_equal(out->cols[0].v.i64[2], 1);
	sl_prog_free(p);
	sl_batch_free(out);
	sl_batch_free(in);
}

/* Evaluates e (over one STRING column $0) for the rows given (NULL: a NULL
 * row) and returns row i's result as text, "<NULL>" for NULL, or 0/1 for
 * a BOOLEAN. */
static const char **col_eval(sl_expr *e, const char *const *rows, int n)
{
	sl_type s = STR();
	sl_batch *in = sl_batch_new(1, &s, 0);
	for (int i = 0; i < n; i++) {
		int r = sl_batch_add_row(in, 0, SL_WM_MIN);
		if (rows[i])
			sl_col_set_str(in, &in->cols[0], r, rows[i], (int64_t)strlen(rows[i]));
		else
			in->cols[0].null[r] = 1;
	}
	sl_prog *p = sl_prog_compile(&e, 1, &s, 1, &E);
	assert_non_null(p);
	sl_batch *out = sl_batch_new(1, &e->type, 0);
	for (int i = 0; i < n; i++)
		sl_batch_add_row(out, 0, SL_WM_MIN);
	assert_int_equal(sl_prog_eval(p, in, out, out->cols, NULL, &E), 0);
	const char **res = sl_arena_alloc(&A, sizeof(char *) * (size_t)n);
	for (int i = 0; i < n; i++) {
		const sl_col *c = &out->cols[0];
		if (c->null[i])
			res[i] = "<NULL>";
		else if (e->type.id == SL_T_BOOLEAN)
			res[i] = c->v.i64[i] ? "1" : "0";
		else
			res[i] = sl_arena_strndup(&A, c->v.str[i].ptr, (size_t)c->v.str[i].len);
	}
	sl_prog_free(p);
	sl_batch_free(out);
	sl_batch_free(in);
	return res;
}

/* A literal pattern over a column: groups, empty matches, anchors, NULLs,
 * UTF-8 subjects, and malformed UTF-8, which PCRE2 refuses (no match) on
 * every path (the subject check of fn_regex.c must not let one through). */
static void test_regex_rows(void **st)
{
	sl_expr *c0 = sl_expr_col(&A, 0, STR());
	const char *rows[] = {
		"channel_id=7", "a=1&channel_id=42&b=2", "a=1&channel_id=", "xchannel_id=5", NULL,
		"q=\xc3\xa9t\xc3\xa9&channel_id=\xe6\x97\xa5\xe6\x9c\xac&z=1", "\xc0\xaf&channel_id=3",
		"https://www.nexmark.com/a/b/c/item.htm?query=1&channel_id=1666711552",
		"https://www.nexmark.com/a/b/c/item.htm?query=1", "",
	};
	const char *want[] = {
		"7", "42", "", "<NULL>", "<NULL>", "\xe6\x97\xa5\xe6\x9c\xac", "<NULL>", "1666711552",
		"<NULL>", "<NULL>",
	};
	int n = (int)(sizeof(rows) / sizeof(rows[0]));
	const char **got = col_eval(call(SL_FN_REGEXP_EXTRACT, 3, c0, slit("(&|^)channel_id=([^&]*)"),
	                                 ilit(2)), rows, n);
	for (int i = 0; i < n; i++)
		assert_string_equal(got[i], want[i]);
	/* group 1 took part in every match: '&' or the empty string of '^' */
	got = col_eval(call(SL_FN_REGEXP_EXTRACT, 3, c0, slit("(&|^)channel_id=([^&]*)"), ilit(1)),
	               rows, 3);
	assert_string_equal(got[0], "");
	assert_string_equal(got[1], "&");
	/* a group that does not take part, one that does not exist, an empty match */
	const char *r2[] = {"b", "ab", "xyz", "\xc3\xa9", NULL};
	got = col_eval(call(SL_FN_REGEXP_EXTRACT, 3, c0, slit("(a)|b"), ilit(1)), r2, 5);
	assert_string_equal(got[0], "<NULL>");
	assert_string_equal(got[1], "a");
	assert_string_equal(got[2], "<NULL>");
	assert_string_equal(got[4], "<NULL>");
	got = col_eval(call(SL_FN_REGEXP_EXTRACT, 3, c0, slit("(a)|b"), ilit(2)), r2, 5);
	assert_string_equal(got[1], "<NULL>");
	got = col_eval(call(SL_FN_REGEXP_EXTRACT, 2, c0, slit("a*")), r2, 5);
	assert_string_equal(got[0], "");
	assert_string_equal(got[1], "a");
	assert_string_equal(got[2], "");
	/* anchors, and '.' is one character in UTF-8 */
	got = col_eval(call(SL_FN_REGEXP, 2, c0, slit("^.$")), r2, 5);
	assert_string_equal(got[0], "1");
	assert_string_equal(got[1], "0");
	assert_string_equal(got[3], "1");
	assert_string_equal(got[4], "<NULL>");
	got = col_eval(call(SL_FN_REGEXP_EXTRACT, 2, c0, slit("b$")), r2, 3);
	assert_string_equal(got[1], "b");
	assert_string_equal(got[2], "<NULL>");
	/* well-formed UTF-8 at the edges of each range matches '.' ... */
	const char *ok[] = {
		"\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf",
		"\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf", "abcdefgh\xc3\xa9", "abcdefg\xc3\xa9xyzabcdefgh",
		"abcdefghijklmnopqrstuvwxyz01234\xc3\xa9" "abcdefghijklmnopqrstuvwxyz012345",
	};
	int nok = (int)(sizeof(ok) / sizeof(ok[0]));
	got = col_eval(call(SL_FN_REGEXP, 2, c0, slit(".")), ok, nok);
	for (int i = 0; i < nok; i++)
		assert_string_equal(got[i], "1");
	/* ... malformed UTF-8 (overlong, surrogate, above U+10FFFF, stray or
	 * missing continuation, cut at the end) matches nothing */
	const char *bad[] = {
		"\xc0\xaf", "\xc1\xbf", "\xe0\x9f\xbf", "\xed\xa0\x80", "\xf0\x8f\xbf\xbf",
		"\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xe2\x82", "\x80", "\xe2\x28\xa1",
		"abcdefgh\xff", "abcdefg\xc3", "abcdefghijklmnop\xed\xbf\xbf", "\xf8\x88\x80\x80\x80",
		"abcdefghijklmnopqrstuvwxyz012345\xc0\x80", "abcdefghijklmnopqrstuvwxyz01234\xe2\x82",
		"abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\x80",
	};
	int nbad = (int)(sizeof(bad) / sizeof(bad[0]));
	got = col_eval(call(SL_FN_REGEXP, 2, c0, slit(".")), bad, nbad);
	for (int i = 0; i < nbad; i++) {
		if (strcmp(got[i], "0"))
			print_message("malformed row %d matched\n", i);
		assert_string_equal(got[i], "0");
	}
	got = col_eval(call(SL_FN_REGEXP_EXTRACT, 2, c0, slit("[a-z]+")), bad, nbad);
	for (int i = 0; i < nbad; i++)
		assert_string_equal(got[i], "<NULL>");
	/* REGEXP_REPLACE over well-formed subjects, literal and UTF-8 */
	const char *r3[] = {"h\xc3\xa9llo w\xc3\xb6rld", "abc", NULL};
	got = col_eval(call(SL_FN_REGEXP_REPLACE, 3, c0, slit("[\xc3\xa9\xc3\xb6]"), slit("_")), r3, 3);
	assert_string_equal(got[0], "h_llo w_rld");
	assert_string_equal(got[1], "abc");
	assert_string_equal(got[2], "<NULL>");
}

/* REGEXP over a column against PCRE2 itself, for patterns whose required
 * text (fn_regex.c's prefilter) is easy to get wrong: optional and
 * repeated characters, alternatives, groups, classes, escapes, inline
 * options, \Q quoting, POSIX classes. */
static void test_regex_prefilter(void **st)
{
	const char *pats[] = {
		"ab?cd", "ab*cd", "ab{0,2}cd", "ab+cd", "abc|xyz", "(?i)abcd", "\\x41bcd", "\\x{41}bcd",
		"[[:alpha:]]xyz", "[abc]def", "[]x]yzw", "[^]x]yzw", "\\Qa|bc\\E", "foo(bar|baz)qux",
		"a\\.bcd", "hello world", "(&|^)channel_id=([^&]*)", "x\\d+yz", "\\p{Lu}bcd", "ab\\Kcd",
		"abc(?=def)", "(a)bc\\1", "a[\\]]bcd", "ab\\Bcd", "ab{2}cd", "z*abcd?", "\\ncd", "",
	};
	const char *subj[] = {
		"acd", "abcd", "abbcd", "abbbcd", "xyz", "ABCD", "Abcd", "axyz", "adef", "def", "]yzw",
		"xyzw", "ayzw", "a|bc", "foobazqux", "foobarqux", "a.bcd", "axbcd", "hello world",
		"a=1&channel_id=42", "channel_id=", "x12yz", "xyz", "\xc3\x89" "bcd", "abc", "abcdef",
		"abca", "aabca", "a]bcd", "ab cd", "zzabc", "\ncd", "", "\xc0\xaf" "abcd",
	};
	int ns = (int)(sizeof(subj) / sizeof(subj[0]));
	sl_expr *c0 = sl_expr_col(&A, 0, STR());
	for (size_t k = 0; k < sizeof(pats) / sizeof(pats[0]); k++) {
		int ec;
		PCRE2_SIZE eo;
		pcre2_code *code = pcre2_compile((PCRE2_SPTR)pats[k], PCRE2_ZERO_TERMINATED, PCRE2_UTF,
		                                 &ec, &eo, NULL);
		assert_non_null(code);
		pcre2_match_data *md = pcre2_match_data_create_from_pattern(code, NULL);
		const char **got = col_eval(call(SL_FN_REGEXP, 2, c0, slit(pats[k])), subj, ns);
		for (int i = 0; i < ns; i++) {
			int m = pcre2_match(code, (PCRE2_SPTR)subj[i], strlen(subj[i]), 0, 0, md, NULL);
			const char *want = *pats[k] ? (m >= 0 ? "1" : "0") : "0"; /* '' is FALSE */
			if (strcmp(got[i], want))
				print_message("REGEXP('%s', '%s') = %s\n", subj[i], pats[k], got[i]);
			assert_string_equal(got[i], want);
		}
		pcre2_match_data_free(md);
		pcre2_code_free(code);
	}
}

/* UPPER/LOWER over a column: every ASCII byte at three positions (in the
 * first and second eight-byte word of the word-at-a-time scan of
 * fn_string.c, and in the tail) of a string with nothing else to change,
 * UTF-8 after an unchanged ASCII prefix, '', NULL; an unchanged string is
 * its own result. */
static void test_case_map_rows(void **st)
{
	static char bufs[2][127 * 3][24];
	const char *rows[2][127 * 3];
	int n = 0;
	for (int c = 1; c < 128; c++)
		for (int at = 0; at < 3; at++, n++)
			for (int up = 0; up < 2; up++) {
				char *b = bufs[up][n];
				memcpy(b, up ? "MIXED-0123456789ZZ" : "mixed-0123456789zz", 19);
				b[at == 0 ? 3 : at == 1 ? 11 : 16] = (char)c;
				rows[up][n] = b;
			}
	sl_expr *c0 = sl_expr_col(&A, 0, STR());
	const char **lo = col_eval(call(SL_FN_LOWER, 1, c0), rows[0], n);
	const char **up = col_eval(call(SL_FN_UPPER, 1, c0), rows[1], n);
	for (int i = 0; i < n; i++) {
		char l[24], u[24];
		for (size_t k = 0; k <= 18; k++) {
			char c = rows[0][i][k], d = rows[1][i][k];
			l[k] = c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
			u[k] = d >= 'a' && d <= 'z' ? (char)(d - 32) : d;
		}
		assert_string_equal(lo[i], l);
		assert_string_equal(up[i], u);
	}
	const char *extra[] = {"", NULL, "channel-1234", "CHANNEL-1234@[`{", "abcdefgh\xc3\x80\xc3\xa0Z",
	                       "ABCDEFGHIJ\xce\x91\xce\xb1"};
	lo = col_eval(call(SL_FN_LOWER, 1, c0), extra, 6);
	up = col_eval(call(SL_FN_UPPER, 1, c0), extra, 6);
	assert_string_equal(lo[0], "");
	assert_string_equal(up[1], "<NULL>");
	assert_string_equal(lo[2], "channel-1234");
	assert_string_equal(up[2], "CHANNEL-1234");
	assert_string_equal(lo[3], "channel-1234@[`{");
	assert_string_equal(up[3], "CHANNEL-1234@[`{");
	assert_string_equal(lo[4], "abcdefgh\xc3\xa0\xc3\xa0z");
	assert_string_equal(up[4], "ABCDEFGH\xc3\x80\xc3\x80Z");
	assert_string_equal(lo[5], "abcdefghij\xce\xb1\xce\xb1");
	assert_string_equal(up[5], "ABCDEFGHIJ\xce\x91\xce\x91");
}

/* = and <> of strings (fn_arith.c's k_eq_str): equal, a prefix, longer,
 * same length and other bytes, '', NULL, UTF-8. */
static void test_str_eq_rows(void **st)
{
	sl_expr *c0 = sl_expr_col(&A, 0, STR());
	const char *rows[] = {"apple", "appl", "apples", "apPle", "", NULL, "\xc3\xa9t\xc3\xa9"};
	const char **eq = col_eval(call(SL_FN_EQ, 2, c0, slit("apple")), rows, 7);
	const char **ne = col_eval(call(SL_FN_NE, 2, c0, slit("apple")), rows, 7);
	const char *weq[] = {"1", "0", "0", "0", "0", "<NULL>", "0"};
	const char *wne[] = {"0", "1", "1", "1", "1", "<NULL>", "1"};
	for (int i = 0; i < 7; i++) {
		assert_string_equal(eq[i], weq[i]);
		assert_string_equal(ne[i], wne[i]);
	}
	eq = col_eval(call(SL_FN_EQ, 2, c0, slit("")), rows, 7);
	assert_string_equal(eq[0], "0");
	assert_string_equal(eq[4], "1");
	eq = col_eval(call(SL_FN_EQ, 2, c0, slit("\xc3\xa9t\xc3\xa9")), rows, 7);
	assert_string_equal(eq[6], "1");
	eq = col_eval(call(SL_FN_EQ, 2, c0, c0), rows, 7);
	assert_string_equal(eq[0], "1");
	assert_string_equal(eq[4], "1");
	assert_string_equal(eq[5], "<NULL>");
}

/* 2026-08-01 09:00:05.123 as micros */
#define TS1 1785574805123000LL

static sl_expr *ts(int64_t us, sl_type_id id)
{
	return sl_expr_lit_i64(&A, sl_type_timestamp(id, 3), us);
}

static void test_time_utc(void **st)
{
	sl_expr *t = ts(TS1, SL_T_TIMESTAMP);
	assert_int_equal(iv(call(SL_FN_EXTRACT, 2, unit(SL_TU_YEAR), t)), 2026);
	assert_int_equal(iv(call(SL_FN_EXTRACT, 2, unit(SL_TU_MONTH), t)), 8);
	assert_int_equal(iv(call(SL_FN_EXTRACT, 2, unit(SL_TU_HOUR), t)), 9);
	assert_int_equal(iv(call(SL_FN_EXTRACT, 2, unit(SL_TU_DOW), t)), 7); /* a Saturday */
	assert_int_equal(iv(call(SL_FN_EXTRACT, 2, unit(SL_TU_DOY), t)), 213);
	assert_int_equal(iv(call(SL_FN_EXTRACT, 2, unit(SL_TU_QUARTER), t)), 3);
	assert_int_equal(iv(call(SL_FN_EXTRACT, 2, unit(SL_TU_WEEK), t)), 31);
	assert_string_equal(sv(call(SL_FN_FLOOR_TIME, 2, t, unit(SL_TU_HOUR))), "2026-08-01 09:00:00.000");
	assert_string_equal(sv(call(SL_FN_CEIL_TIME, 2, t, unit(SL_TU_HOUR))), "2026-08-01 10:00:00.000");
	assert_string_equal(sv(call(SL_FN_FLOOR_TIME, 2, t, unit(SL_TU_MONTH))), "2026-08-01 00:00:00.000");
	assert_string_equal(sv(call(SL_FN_CEIL_TIME, 2, t, unit(SL_TU_YEAR))), "2027-01-01 00:00:00.000");
	assert_string_equal(sv(call(SL_FN_FLOOR_TIME, 2, t, unit(SL_TU_WEEK))), "2026-07-26 00:00:00.000");
	assert_string_equal(sv(call(SL_FN_DATE_TRUNC, 2, slit("week"), t)), "2026-07-27 00:00:00.000");
	assert_string_equal(sv(call(SL_FN_DATE_TRUNC, 2, slit("quarter"), t)), "2026-07-01 00:00:00.000");
	assert_string_equal(sv(call(SL_FN_DATE_FORMAT, 2, t, slit("yyyy/MM/dd HH:mm:ss.SSS"))),
	                    "2026/08/01 09:00:05.123");
	assert_string_equal(sv(call(SL_FN_DATE_FORMAT, 2, slit("2026-08-01 09:00:05.000"), slit("HH:mm"))),
	                    "09:00");
	assert_string_equal(sv(call(SL_FN_TO_TIMESTAMP, 1, slit("2026-08-01 09:00:05.000"))),
	                    "2026-08-01 09:00:05.000");
	assert_string_equal(sv(call(SL_FN_TO_TIMESTAMP, 2, slit("01/08/2026 09"), slit("dd/MM/yyyy HH"))),
	                    "2026-08-01 09:00:00.000");
	assert_true(isnull(call(SL_FN_TO_TIMESTAMP, 1, slit("not a time"))));
	assert_string_equal(sv(call(SL_FN_TO_DATE, 1, slit("2026-08-01"))), "2026-08-01");
	assert_string_equal(sv(call(SL_FN_TIMESTAMPADD, 3, unit(SL_TU_MONTH), ilit(1),
	                            ts(1706695200000000LL, SL_T_TIMESTAMP))), /* 2024-01-31 10:00 */
	                    "2024-02-29 10:00:00.000");
	assert_int_equal(iv(call(SL_FN_TIMESTAMPDIFF, 3, unit(SL_TU_HOUR), ts(0, SL_T_TIMESTAMP),
	                         ts(TS1, SL_T_TIMESTAMP))), 1785574805LL / 3600);
	/* Flink 1.20 (Calcite's subtractMonths: 2024-01-31 + 1 month is the
	 * clamped 2024-02-29): 1 */
	assert_int_equal(iv(call(SL_FN_TIMESTAMPDIFF, 3, unit(SL_TU_MONTH),
	                         cast(slit("2024-01-31"), T(SL_T_DATE)),
	                         cast(slit("2024-02-29"), T(SL_T_DATE)))), 1);
	assert_int_equal(iv(call(SL_FN_TIMESTAMPDIFF, 3, unit(SL_TU_YEAR),
	                         cast(slit("2020-03-01"), T(SL_T_DATE)),
	                         cast(slit("2024-03-01"), T(SL_T_DATE)))), 4);
	/* EXTRACT from an interval */
	sl_expr *iv1 = sl_expr_lit_i64(&A, T(SL_T_INTERVAL_DT), (26 * 3600 + 5) * 1000000LL);
	assert_int_equal(iv(call(SL_FN_EXTRACT, 2, unit(SL_TU_HOUR), iv1)), 2);
	assert_int_equal(iv(call(SL_FN_EXTRACT, 2, unit(SL_TU_DAY), iv1)), 1);
}

/* Evaluates e (no inputs) over a one-row batch with the given context. */
static sl_batch *eval_ctx(sl_expr *e, const sl_eval_ctx *ctx, int64_t wm)
{
	sl_prog *p = sl_prog_compile(&e, 1, NULL, 0, &E);
	assert_non_null(p);
	sl_batch *in = sl_batch_new(0, NULL, 1);
	sl_batch_add_row(in, 0, wm);
	sl_batch *out = sl_batch_new(1, &e->type, 1);
	sl_batch_add_row(out, 0, SL_WM_MIN);
	assert_int_equal(sl_prog_eval(p, in, out, out->cols, ctx, &E), 0);
	sl_prog_free(p);
	sl_batch_free(in);
	return out;
}

static void test_time_zone(void **st)
{
	sl_eval_ctx z8 = {0, "+08:00"};
	/* TIMESTAMP_LTZ at 2026-08-01 20:00:00Z is 2026-08-02 04:00 in +08:00 */
	int64_t inst = 1785614400000000LL;
	sl_expr *l = ts(inst, SL_T_TIMESTAMP_LTZ);
	sl_batch *o = eval_ctx(call(SL_FN_EXTRACT, 2, unit(SL_TU_DAY), l), &z8, 0);
	assert_int_equal(o->cols[0].v.i64[0], 2);
	sl_batch_free(o);
	o = eval_ctx(call(SL_FN_FLOOR_TIME, 2, l, unit(SL_TU_DAY)), &z8, 0);
	assert_int_equal(o->cols[0].v.i64[0], inst - 4 * 3600 * 1000000LL); /* local midnight */
	sl_batch_free(o);
	o = eval_ctx(cast(l, sl_type_timestamp(SL_T_TIMESTAMP, 3)), &z8, 0);
	assert_int_equal(o->cols[0].v.i64[0], inst + 8 * 3600 * 1000000LL);
	sl_batch_free(o);
	o = eval_ctx(cast(l, STR()), &z8, 0);
	assert_int_equal(o->cols[0].v.str[0].len, 23); /* Flink's CAST keeps the 3 digits */
	assert_memory_equal(o->cols[0].v.str[0].ptr, "2026-08-02 04:00:00.000", 23);
	sl_batch_free(o);
	/* TIMESTAMP -> LTZ reads the wall clock in the session zone */
	o = eval_ctx(cast(ts(inst, SL_T_TIMESTAMP), sl_type_timestamp(SL_T_TIMESTAMP_LTZ, 3)), &z8, 0);
	assert_int_equal(o->cols[0].v.i64[0], inst - 8 * 3600 * 1000000LL);
	sl_batch_free(o);
	o = eval_ctx(call(SL_FN_UNIX_TIMESTAMP, 1, slit("1970-01-01 08:00:00")), &z8, 0);
	assert_int_equal(o->cols[0].v.i64[0], 0);
	sl_batch_free(o);
	o = eval_ctx(call(SL_FN_TO_TIMESTAMP_LTZ, 2, sl_expr_lit_i64(&A, T(SL_T_BIGINT), 1700000000123LL),
	                  ilit(3)), &z8, 0);
	assert_int_equal(o->cols[0].v.i64[0], 1700000000123000LL);
	sl_batch_free(o);
	/* PROCTIME from the context, truncated to milliseconds */
	sl_eval_ctx pt = {1700000000123456LL, NULL};
	o = eval_ctx(call(SL_FN_PROCTIME, 0), &pt, 0);
	assert_int_equal(o->cols[0].v.i64[0], 1700000000123000LL);
	assert_int_equal(o->cols[0].type.id, SL_T_TIMESTAMP_LTZ);
	sl_batch_free(o);
}

static void test_current_watermark(void **st)
{
	sl_type t = sl_type_timestamp(SL_T_TIMESTAMP, 3);
	sl_batch *in = sl_batch_new(1, &t, 0);
	int64_t wms[] = {SL_WM_MIN, 1000000, 5000000};
	for (int i = 0; i < 3; i++)
		sl_col_set_i64(&in->cols[0], sl_batch_add_row(in, 0, wms[i]), 7000000 + i);
	sl_expr *e = call(SL_FN_CURRENT_WATERMARK, 1, sl_expr_col(&A, 0, t));
	assert_int_equal(e->type.id, SL_T_TIMESTAMP);
	sl_prog *p = sl_prog_compile(&e, 1, &t, 1, &E);
	sl_batch *out = sl_batch_new(1, &e->type, 0);
	for (int i = 0; i < 3; i++)
		sl_batch_add_row(out, 0, SL_WM_MIN);
	assert_int_equal(sl_prog_eval(p, in, out, out->cols, NULL, &E), 0);
	assert_true(out->cols[0].null[0]);
	assert_int_equal(out->cols[0].v.i64[1], 1000000);
	assert_int_equal(out->cols[0].v.i64[2], 5000000);
	sl_prog_free(p);
	sl_batch_free(out);
	sl_batch_free(in);
}

static void test_numeric_functions(void **st)
{
	sl_value v;
	sl_expr *d = cast(slit("2.345"), sl_type_decimal(10, 3));
	sl_expr *r = call(SL_FN_ROUND, 2, d, ilit(2));
	char buf[64];
	assert_string_equal(sl_type_format(r->type, buf, sizeof(buf)), "DECIMAL(10, 2) NOT NULL");
	assert_string_equal(sv(r), "2.35");
	assert_string_equal(sv(call(SL_FN_ROUND, 2, cast(slit("-2.345"), sl_type_decimal(10, 3)), ilit(2))),
	                    "-2.35");
	assert_string_equal(sv(call(SL_FN_ROUND, 2, cast(slit("1250"), sl_type_decimal(10, 0)), ilit(-2))),
	                    "1300");
	assert_int_equal(iv(call(SL_FN_ROUND, 2, ilit(1250), ilit(-2))), 1300);
	assert_string_equal(sv(call(SL_FN_FLOOR, 1, cast(slit("-2.5"), sl_type_decimal(5, 1)))), "-3");
	assert_string_equal(sv(call(SL_FN_CEIL, 1, cast(slit("2.1"), sl_type_decimal(5, 1)))), "3");
	assert_string_equal(sv(call(SL_FN_ABS, 1, cast(slit("-2.1"), sl_type_decimal(5, 1)))), "2.1");
	assert_int_equal(sl_expr_eval_const(call(SL_FN_SQRT, 1, ilit(16)), &A, &v, &E), 0);
	assert_true(v.v.f64 == 4.0);
	assert_int_equal(sl_expr_eval_const(call(SL_FN_POWER, 2, ilit(2), ilit(10)), &A, &v, &E), 0);
	assert_true(v.v.f64 == 1024.0);
	assert_int_equal(sl_expr_eval_const(call(SL_FN_LOG10, 1, ilit(1000)), &A, &v, &E), 0);
	assert_true(v.v.f64 > 2.999999 && v.v.f64 < 3.000001);
	assert_string_equal(sv(call(SL_FN_ROUND, 2, sl_expr_lit(&A, T(SL_T_DOUBLE), (sl_value){.v.f64 = 2.5}),
	                            ilit(0))), "3.0");
}

/* String results of an output expression live in the output batch's arena
 * (they outlive the program's scratch arena, reset at the next call). */
static void test_string_lifetime(void **st)
{
	sl_type s = STR();
	sl_batch *in = sl_batch_new(1, &s, 0);
	sl_col_set_str(in, &in->cols[0], sl_batch_add_row(in, 0, SL_WM_MIN), "abc", 3);
	sl_expr *e = call(SL_FN_SUBSTRING, 3, call(SL_FN_UPPER, 1, sl_expr_col(&A, 0, s)), ilit(2), ilit(5));
	sl_prog *p = sl_prog_compile(&e, 1, &s, 1, &E);
	sl_batch *out = sl_batch_new(1, &e->type, 0);
	sl_batch_add_row(out, 0, SL_WM_MIN);
	assert_int_equal(sl_prog_eval(p, in, out, out->cols, NULL, &E), 0);
	sl_batch *out2 = sl_batch_new(1, &e->type, 0);
	sl_batch_add_row(out2, 0, SL_WM_MIN);
	sl_col_set_str(in, &in->cols[0], 0, "xyz", 3);
	assert_int_equal(sl_prog_eval(p, in, out2, out2->cols, NULL, &E), 0);
	assert_memory_equal(out->cols[0].v.str[0].ptr, "BC", 2);
	assert_memory_equal(out2->cols[0].v.str[0].ptr, "YZ", 2);
	sl_prog_free(p);
	sl_batch_free(out);
	sl_batch_free(out2);
	sl_batch_free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_strings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_like, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regex, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regex_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regex_prefilter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_case_map_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_str_eq_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_utc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_zone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_current_watermark, setup, teardown),
		cmocka_unit_test_setup_teardown(test_numeric_functions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_string_lifetime, setup, teardown),
	};
	return cmocka_run_group_tests_name("expr_fn", tests, NULL, NULL);
}
