/*
 * parser.h - the SQL front end's entry point: Flink SQL text -> AST.
 *
 * Data flow:  script text --(sl_parse)--> sl_ast_script (ast.h)
 *             --(binder, src/plan)--> plans.
 *
 * The parser is a hand-written recursive-descent parser over the token
 * array produced by sql_token.c.  It never crashes or loops on any input:
 * nesting deeper than SL_PARSE_MAX_DEPTH is a syntax error.  It allocates
 * the AST from the caller's arena and uses no global state (thread-safe
 * with distinct arenas).
 */
#ifndef SL_SQL_PARSER_H
#define SL_SQL_PARSER_H

#include "../base/arena.h"
#include "../base/err.h"
#include "ast.h"

#define SL_PARSE_MAX_DEPTH 200
/* Height of an expression tree (AND / OR chains excepted: built balanced)
 * and JOINs + set operations per statement: parse_limits.c. */
#define SL_PARSE_MAX_HEIGHT 1000
#define SL_PARSE_MAX_LINKS 1000

/*
 * Parses a script of ';'-separated statements (a trailing ';' is optional;
 * empty statements are skipped).  On success stores the script, allocated in
 * a, in *out and returns 0.  On failure returns SL_ESYNTAX (message "line L,
 * column C: expected <what>, found '<token>'" with err->line/col set to the
 * offending token), SL_ENOTSUP for recognised but refused syntax (INSERT
 * OVERWRITE), or SL_ENOMEM; *out is then NULL.  sql must be NUL-terminated.
 */
int sl_parse(sl_arena *a, const char *sql, sl_ast_script **out, sl_err *err);

/*
 * Parses one expression (the whole text must be one expression); used by
 * tests and by option values that hold SQL expressions.  Same contract as
 * sl_parse.
 */
int sl_parse_expr(sl_arena *a, const char *sql, sl_ast_expr **out, sl_err *err);

#endif
