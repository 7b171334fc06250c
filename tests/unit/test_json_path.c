/*
 * test_json_path.c - unit tests of src/expr/json_path.c: the JSON document
 * check (Jackson's reading rules), the path parser (modes, steps, syntax
 * errors, refused features), the evaluator's strict/lax outcomes, compact
 * writing and number text.  A generated part feeds every prefix of a set
 * of documents and paths to the parser and evaluator (no crash, and the
 * compact form of every match reads back as JSON).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/json_path.h"

static int kind(const char *s)
{
	int64_t b, e;
	return sl_json_check(s, (int64_t)strlen(s), &b, &e);
}

static void test_check(void **st)
{
	assert_int_equal(kind("1"), SL_JV_NUMBER);
	assert_int_equal(kind(" [] "), SL_JV_ARRAY);
	assert_int_equal(kind("{\"a\": {\"b\": [1, -2.5e-3, true, false, null]}}"), SL_JV_OBJECT);
	assert_int_equal(kind("\"a\\u00e9\\n\""), SL_JV_STRING);
	assert_int_equal(kind("{} tail"), SL_JV_OBJECT); /* Jackson reads the first value */
	assert_int_equal(kind("1 2"), SL_JV_NUMBER);
	assert_int_equal(kind("1x"), SL_JV_NONE);    /* a root number needs a blank after it */
	assert_int_equal(kind("abc"), SL_JV_NONE);
	assert_int_equal(kind(""), SL_JV_NONE);
	assert_int_equal(kind("   "), SL_JV_NONE);
	assert_int_equal(kind("01"), SL_JV_NONE);
	assert_int_equal(kind("1."), SL_JV_NONE);
	assert_int_equal(kind("-"), SL_JV_NONE);
	assert_int_equal(kind("truex"), SL_JV_NONE);
	assert_int_equal(kind("[1,]"), SL_JV_NONE);
	assert_int_equal(kind("{\"a\":1,}"), SL_JV_NONE);
	assert_int_equal(kind("{'a':1}"), SL_JV_NONE);
	assert_int_equal(kind("\"tab\there\""), SL_JV_NONE); /* raw control character */
	assert_int_equal(kind("\"\\x\""), SL_JV_NONE);
	assert_int_equal(kind("\"\\u12\""), SL_JV_NONE);
	assert_int_equal(kind("[[[]]"), SL_JV_NONE);
	/* nesting beyond 1024 levels is refused, not a stack overflow */
	char deep[3000];
	memset(deep, '[', 1500);
	memset(deep + 1500, ']', 1500);
	assert_int_equal(sl_json_check(deep, 3000, &(int64_t){0}, &(int64_t){0}), SL_JV_NONE);
	assert_int_equal(sl_json_check(deep + 600, 1800, &(int64_t){0}, &(int64_t){0}), SL_JV_ARRAY);
}

/* Parses p; returns the SL_JP_* code. */
static int parse(sl_arena *a, const char *p, sl_jpath *out)
{
	char msg[200];
	return sl_jpath_parse(p, (int64_t)strlen(p), a, out, msg, sizeof(msg));
}

static void test_parse(void **st)
{
	sl_arena a;
	sl_jpath p;
	sl_arena_init(&a, 1024);
	assert_int_equal(parse(&a, "$", &p), SL_JP_OK);
	assert_int_equal(p.strict, 1); /* no mode: strict, as Flink */
	assert_int_equal(p.nsteps, 0);
	assert_int_equal(parse(&a, "lax $.a.b", &p), SL_JP_OK);
	assert_int_equal(p.strict, 0);
	assert_int_equal(p.nsteps, 2);
	assert_int_equal(p.definite, 1);
	assert_string_equal(p.steps[1].keys[0], "b");
	assert_int_equal(parse(&a, "  STRICT   $[3] ", &p), SL_JP_OK);
	assert_int_equal(p.strict, 1);
	assert_int_equal(p.steps[0].kind, SL_JP_INDEX);
	assert_int_equal(p.steps[0].idx[0], 3);
	assert_int_equal(parse(&a, "$.['a b'][\"c'd\"]", &p), SL_JP_OK);
	assert_string_equal(p.steps[0].keys[0], "a b");
	assert_string_equal(p.steps[1].keys[0], "c'd");
	assert_int_equal(parse(&a, "$['it''s']", &p), SL_JP_SYNTAX);
	assert_int_equal(parse(&a, "$['it\\'s']", &p), SL_JP_OK);
	assert_string_equal(p.steps[0].keys[0], "it's");
	assert_int_equal(parse(&a, "lax $.a[*].c", &p), SL_JP_OK);
	assert_int_equal(p.definite, 0);
	assert_int_equal(parse(&a, "$[0, -1]", &p), SL_JP_OK);
	assert_int_equal(p.definite, 0);
	assert_int_equal(p.steps[0].nidx, 2);
	assert_int_equal(parse(&a, "$[1:-1]", &p), SL_JP_OK);
	assert_int_equal(p.steps[0].kind, SL_JP_SLICE);
	assert_int_equal(parse(&a, "$.*", &p), SL_JP_OK);
	assert_int_equal(p.steps[0].kind, SL_JP_WILD);
	assert_int_equal(parse(&a, "$.a.b.c.d.e.f.g.h.i.j.k", &p), SL_JP_OK); /* steps grow */
	assert_int_equal(p.nsteps, 11);
	assert_string_equal(p.steps[10].keys[0], "k");
	/* errors */
	assert_int_equal(parse(&a, "a.b", &p), SL_JP_SYNTAX);
	assert_int_equal(parse(&a, "", &p), SL_JP_SYNTAX);
	assert_int_equal(parse(&a, "lax", &p), SL_JP_SYNTAX);
	assert_int_equal(parse(&a, "$.", &p), SL_JP_SYNTAX);
	assert_int_equal(parse(&a, "$[", &p), SL_JP_SYNTAX);
	assert_int_equal(parse(&a, "$[1", &p), SL_JP_SYNTAX);
	assert_int_equal(parse(&a, "$['a", &p), SL_JP_SYNTAX);
	assert_int_equal(parse(&a, "$a", &p), SL_JP_SYNTAX);
	assert_int_equal(parse(&a, "$..a", &p), SL_JP_UNSUPPORTED);
	assert_int_equal(parse(&a, "$.a[?(@.b)]", &p), SL_JP_UNSUPPORTED);
	assert_int_equal(parse(&a, "$.a.length()", &p), SL_JP_UNSUPPORTED);
	sl_arena_deinit(&a);
}

/* Evaluates path over doc: the outcome, and the matches joined by '|' in
 * compact form into out. */
static int eval(const char *path, const char *doc, char *out, size_t cap)
{
	sl_arena a;
	sl_jpath p;
	sl_jeval ev;
	char msg[200];
	memset(&ev, 0, sizeof(ev));
	sl_arena_init(&a, 1024);
	assert_int_equal(parse(&a, path, &p), SL_JP_OK);
	int r = sl_jpath_eval(&p, doc, (int64_t)strlen(doc), &ev, msg, sizeof(msg));
	out[0] = 0;
	if (r == SL_JR_VALUE || r == SL_JR_LIST) {
		size_t o = 0;
		for (int k = 0; k < ev.ncur; k++) {
			char *b = NULL;
			int64_t len = 0, c = 0;
			assert_int_equal(sl_json_compact(doc + ev.cur[k].start, ev.cur[k].end - ev.cur[k].start,
			                                 &b, &len, &c), 0);
			o += (size_t)snprintf(out + o, cap - o, "%s%s", k ? "|" : "", b);
			free(b);
		}
	}
	sl_jeval_free(&ev);
	sl_arena_deinit(&a);
	return r;
}

static void test_eval(void **st)
{
	char o[256];
	const char *d = "{\"a\": [{\"c\": \"c1\"}, {\"c\": \"c2\"}, {\"x\": 1}], \"n\": null, \"o\": {\"p\": 1.50}}";
	assert_int_equal(eval("$", "[1, 2]", o, sizeof(o)), SL_JR_VALUE);
	assert_string_equal(o, "[1,2]");
	assert_int_equal(eval("$.a[0].c", d, o, sizeof(o)), SL_JR_VALUE);
	assert_string_equal(o, "\"c1\"");
	assert_int_equal(eval("$.a[-1]", d, o, sizeof(o)), SL_JR_VALUE);
	assert_string_equal(o, "{\"x\":1}");
	assert_int_equal(eval("$.o.p", d, o, sizeof(o)), SL_JR_VALUE);
	assert_string_equal(o, "1.5");
	/* indefinite: missing members inside are skipped, in strict mode too */
	assert_int_equal(eval("lax $.a[*].c", d, o, sizeof(o)), SL_JR_LIST);
	assert_string_equal(o, "\"c1\"|\"c2\"");
	assert_int_equal(eval("strict $.a[*].c", d, o, sizeof(o)), SL_JR_LIST);
	assert_int_equal(eval("$.a[*].zz", d, o, sizeof(o)), SL_JR_LIST);
	assert_string_equal(o, "");
	assert_int_equal(eval("$.a[0, 2]", d, o, sizeof(o)), SL_JR_LIST);
	assert_string_equal(o, "{\"c\":\"c1\"}|{\"x\":1}");
	assert_int_equal(eval("$.a[1:]", d, o, sizeof(o)), SL_JR_LIST);
	assert_string_equal(o, "{\"c\":\"c2\"}|{\"x\":1}");
	assert_int_equal(eval("$.o.*", d, o, sizeof(o)), SL_JR_LIST);
	assert_string_equal(o, "1.5");
	/* missing, null, wrong container: strict errors, lax empty */
	assert_int_equal(eval("$.b", d, o, sizeof(o)), SL_JR_ERROR);
	assert_int_equal(eval("lax $.b", d, o, sizeof(o)), SL_JR_EMPTY);
	assert_int_equal(eval("$.n", d, o, sizeof(o)), SL_JR_ERROR);
	assert_int_equal(eval("lax $.n", d, o, sizeof(o)), SL_JR_EMPTY);
	assert_int_equal(eval("$.o[0]", d, o, sizeof(o)), SL_JR_ERROR);
	assert_int_equal(eval("lax $.o[0]", d, o, sizeof(o)), SL_JR_EMPTY);
	assert_int_equal(eval("$.a.c", d, o, sizeof(o)), SL_JR_ERROR);
	assert_int_equal(eval("$.a[7]", d, o, sizeof(o)), SL_JR_ERROR);
	assert_int_equal(eval("$", "not json", o, sizeof(o)), SL_JR_ERROR);
	assert_int_equal(eval("lax $", "not json", o, sizeof(o)), SL_JR_EMPTY);
	/* duplicate keys: the last one, as Jackson; escaped names match */
	assert_int_equal(eval("$.k", "{\"k\": 1, \"k\": 2}", o, sizeof(o)), SL_JR_VALUE);
	assert_string_equal(o, "2");
	assert_int_equal(eval("$['a b']", "{\"a\\u0020b\": true}", o, sizeof(o)), SL_JR_VALUE);
	assert_string_equal(o, "true");
}

static void test_text(void **st)
{
	char *b = NULL, n[48];
	int64_t len = 0, cap = 0;
	const char *doc = "{ \"s\" : \"a\\/b\\u0041\\ud83d\\ude00\\u0007\" , \"n\": [ 1e2, -0, 0.10 ] }";
	assert_int_equal(sl_json_compact(doc, (int64_t)strlen(doc), &b, &len, &cap), 0);
	assert_string_equal(b, "{\"s\":\"a/bA\xF0\x9F\x98\x80\\u0007\",\"n\":[100.0,0,0.1]}");
	len = 0;
	assert_int_equal(sl_json_quote("q\"\\\n\x01", 5, &b, &len, &cap), 0);
	assert_string_equal(b, "\"q\\\"\\\\\\n\\u0001\"");
	free(b);
	n[sl_json_number("12345678901234567890", 20, n)] = 0;
	assert_string_equal(n, "12345678901234567890");
	n[sl_json_number("2.5E-7", 6, n)] = 0;
	assert_string_equal(n, "2.5E-7");
	n[sl_json_number("1.0e7", 5, n)] = 0;
	assert_string_equal(n, "1.0E7");
}

/* Every prefix of these documents against every path, both modes: no
 * crash, no leak, and every match's compact form is JSON again. */
static void test_prefixes(void **st)
{
	static const char *const docs[] = {
		"{\"a\": [{\"b\": [1, 2, {\"c\": \"x\\\"y\"}]}, null, true], \"d\": {\"e\": -0.5e-3}}",
		"[[[], {}], [\"\\u00e9\", 1], {\"k\": [0]}]",
		"\"just a string\"",
	};
	static const char *const paths[] = {
		"$", "$.a", "$.a[0].b[2].c", "$.a[*].b[*]", "$[*][*]", "$.*.*", "$[0:2]", "$[-1].k[0]",
		"$['d']['e']", "$.a[0, 1, 2]",
	};
	sl_jeval ev;
	memset(&ev, 0, sizeof(ev));
	for (size_t d = 0; d < sizeof(docs) / sizeof(docs[0]); d++) {
		int64_t dn = (int64_t)strlen(docs[d]);
		for (int64_t cut = 0; cut <= dn; cut++) {
			for (size_t k = 0; k < sizeof(paths) / sizeof(paths[0]); k++) {
				sl_arena a;
				sl_jpath p;
				char msg[200];
				sl_arena_init(&a, 512);
				assert_int_equal(parse(&a, paths[k], &p), SL_JP_OK);
				for (int m = 0; m < 2; m++, p.strict = !p.strict) {
					int r = sl_jpath_eval(&p, docs[d], cut, &ev, msg, sizeof(msg));
					if (r != SL_JR_VALUE && r != SL_JR_LIST)
						continue;
					for (int c = 0; c < ev.ncur; c++) {
						char *b = NULL;
						int64_t len = 0, cap = 0, s0, e0;
						assert_int_equal(sl_json_compact(docs[d] + ev.cur[c].start,
						                                 ev.cur[c].end - ev.cur[c].start, &b,
						                                 &len, &cap), 0);
						assert_int_not_equal(sl_json_check(b, len, &s0, &e0), SL_JV_NONE);
						free(b);
					}
				}
				sl_arena_deinit(&a);
			}
		}
	}
	sl_jeval_free(&ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_eval),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_prefixes),
	};
	return cmocka_run_group_tests_name("json_path", tests, NULL, NULL);
}
