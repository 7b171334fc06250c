/*
 * fuzz_sql.c - libFuzzer target for the SQL front end: tokenizer, parser
 * and AST printer.  The input is NUL-terminated, parsed with a fresh arena,
 * printed when it parses (so the printer walks every node), and freed.
 * The parser must return 0 or an error code on any input, never crash,
 * leak or loop.
 *
 * Generated long chains: an input starting with byte 0xFE is a template
 * "\xFE" c1 c2 head "\0" item "\0" tail: the SQL is head, then item
 * repeated c1 * 256 + c2 times (up to 65 535), then tail, so the fuzzer
 * reaches chain lengths past every limit of parse_limits.c (long OR / AND
 * / '||' / '+' chains, nested CASE and calls, UNION chains; 50 000 ORs once
 * overflowed the stack) from a short input.  The seeds repeat 4 096 times:
 * enough to cross the limits, small enough to keep the fuzzer fast.  A
 * template's SQL that parses is also planned (sl_explain on an engine with
 * tables t(k STRING, v INT, ts TIMESTAMP(3) rowtime) and u(k, v)), so the
 * binder, type checker, compiler and EXPLAIN walk the long chains too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "base/buf.h"
#include "sql/parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

/* Expands a 0xFE template (above) into a malloc'd SQL text, or NULL. */
static char *expand(const uint8_t *d, size_t n)
{
	if (n < 3)
		return NULL;
	size_t reps = (size_t)d[1] * 256 + d[2];
	const char *p = (const char *)d + 3, *end = (const char *)d + n;
	const char *head = p, *item = memchr(p, 0, (size_t)(end - p));
	if (!item)
		return NULL;
	item++;
	const char *tail = memchr(item, 0, (size_t)(end - item));
	if (!tail)
		return NULL;
	tail++;
	size_t hl = (size_t)(item - 1 - head), il = (size_t)(tail - 1 - item), tl = (size_t)(end - tail);
	char *sql = malloc(hl + il * reps + tl + 1), *o = sql;
	if (!sql)
		return NULL;
	memcpy(o, head, hl), o += hl;
	for (size_t i = 0; i < reps; i++)
		memcpy(o, item, il), o += il;
	memcpy(o, tail, tl), o += tl;
	*o = 0;
	return sql;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n && d[0] == 0xFE) {
		char *t = expand(d, n);
		if (!t)
			return 0;
		sl_arena a;
		sl_err err;
		sl_ast_script *s;
		sl_arena_init(&a, 0);
		sl_err_clear(&err);
		int parsed = sl_parse(&a, t, &s, &err) == 0;
		if (parsed) {
			sl_buf b;
			sl_buf_init(&b);
			for (int k = 0; k < s->nstmts; k++)
				sl_ast_print_stmt(&b, s->stmts[k]);
			sl_buf_deinit(&b);
		}
		sl_arena_deinit(&a);
		sl_engine *e = NULL;
		const char *text;
		if (parsed && sl_engine_open(&e) == 0) {
			if (sl_exec(e, "CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts "
			               "AS ts) WITH ('connector' = 'datagen'); CREATE TABLE u (k STRING, "
			               "v INT) WITH ('connector' = 'datagen')") == 0)
				sl_explain(e, t, &text);
			sl_engine_close(e);
		}
		free(t);
		return 0;
	}
	char *sql = malloc(n + 1);
	sl_arena a;
	sl_err err;
	sl_ast_script *s;
	if (!sql)
		return 0;
	memcpy(sql, d, n);
	sql[n] = 0;
	sl_arena_init(&a, 0);
	sl_err_clear(&err);
	if (sl_parse(&a, sql, &s, &err) == 0) {
		sl_buf b;
		sl_buf_init(&b);
		for (int k = 0; k < s->nstmts; k++)
			sl_ast_print_stmt(&b, s->stmts[k]);
		sl_buf_deinit(&b);
	}
	sl_arena_deinit(&a);
	free(sql);
	return 0;
}
