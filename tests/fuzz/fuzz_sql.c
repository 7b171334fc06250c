/*
 * fuzz_sql.c - libFuzzer target for the SQL front end: tokenizer, parser
 * and AST printer.  The input is NUL-terminated, parsed with a fresh arena,
 * printed when it parses (so the printer walks every node), and freed.
 * The parser must return 0 or an error code on any input, never crash,
 * leak or loop.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "sql/parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
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
