/*
 * fuzz_sql.c - libFuzzer target for the SQL front end: tokenizer, parser
 * and AST printer.  The input is NUL-terminated, parsed with a fresh arena,
 * printed when it parses (so the printer walks every node), and freed.
 * The parser must return 0 or an error code on any input, never crash,
 * leak or loop.
 *
 * Generated long chains: an input starting with byte 0xFE is a template
 * "\xFE" c1 c2 head "\0" item "\0" tail: the SQL is head, then item
 * repeated (c1 * 256 + c2) * 4 times (up to 262 140), then tail, so the
 * fuzzer reaches the chain lengths that once overflowed the stack (50 000
 * ORs, long '||' and '+' chains, nested CASE and calls: parse_limits.c)
 * from a short input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "sql/parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

/* Expands a 0xFE template (above) into a malloc'd SQL text, or NULL. */
static char *expand(const uint8_t *d, size_t n)
{
	if (n < 3)
		return NULL;
	size_t reps = ((size_t)d[1] * 256 + d[2]) * 4;
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
		if (sl_parse(&a, t, &s, &err) == 0) {
			sl_buf b;
			sl_buf_init(&b);
			for (int k = 0; k < s->nstmts; k++)
				sl_ast_print_stmt(&b, s->stmts[k]);
			sl_buf_deinit(&b);
		}
		sl_arena_deinit(&a);
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
