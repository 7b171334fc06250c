/*
 * parse_int.h - state and helpers shared by the parser's files
 * (parser.c: statements, types, hints; parse_query.c: queries and FROM;
 * parse_expr.c: expressions; parse_fn.c: OVERLAY and JSON function syntax;
 * parse_group.c: the GROUP BY list; parse_match.c: MATCH_RECOGNIZE).
 * Internal to src/sql.
 *
 * Error protocol: a parse function returns NULL (or -1) after writing the
 * first error into p->err; every caller returns at once, so the first,
 * innermost error is the one reported.  p->depth bounds recursion.
 */
#ifndef SL_SQL_PARSE_INT_H
#define SL_SQL_PARSE_INT_H

#include "ast.h"
#include "parser.h"
#include "sql_token.h"

typedef struct sl_parser {
	sl_arena *a;
	const char *sql;
	const sl_token *t;  /* token array, EOF-terminated */
	int n, i;           /* count, current index */
	int depth;
	int maxh;           /* largest expression height since the last reset (parse_limits.c) */
	int links;          /* JOINs and set operations in the current statement */
	int lateral;        /* in a LATERAL subquery: WHERE without FROM is taken
	                     * (a sluice extension, docs/sql.md; Flink refuses it) */
	sl_err *err;
} sl_parser;

/* Token access. */
const sl_token *sl__p_tok(sl_parser *p, int k);      /* k-th token ahead (clamped to EOF) */
int sl__p_is_kw(sl_parser *p, int k, const char *kw); /* unquoted IDENT equal to kw */
int sl__p_is_op(sl_parser *p, int k, const char *op);
int sl__p_accept_kw(sl_parser *p, const char *kw);    /* consume if it matches */
int sl__p_accept_op(sl_parser *p, const char *op);
int sl__p_expect_kw(sl_parser *p, const char *kw);    /* 0 or -1 with error */
int sl__p_expect_op(sl_parser *p, const char *op);
int sl__p_error(sl_parser *p, const char *expected);  /* error at current token, -1 */
int sl__p_error_at(sl_parser *p, const sl_token *t, int code, const char *msg); /* custom, -1 */
/* parse_unsup.c: when the current token starts (or is inside the first
 * words of) a Flink construct sluice refuses, sets "... is not supported"
 * and returns -1; else 0.  sl__p_error asks it first. */
int sl__p_unsupported(sl_parser *p);
/* c, or the LISTAGG rewrite of a JSON_ARRAYAGG / JSON_OBJECTAGG call
 * (parse_fn.c); NULL on error. */
sl_ast_expr *sl__p_json_agg(sl_parser *p, sl_ast_expr *c, const sl_token *t);

/* Depth guard: sl__p_enter returns -1 with an error when too deep. */
int sl__p_enter(sl_parser *p);
void sl__p_leave(sl_parser *p);

/* parse_limits.c.  sl__p_fix sets e's height from its direct children
 * and fails (NULL, error at e) above SL_PARSE_MAX_HEIGHT; NULL e passes
 * through.  sl__p_subquery parses a query in expression position and
 * stores its height (1 + its largest expression's) in *height.
 * sl__p_link counts a JOIN or set operation of the statement at token t;
 * -1 with an error above SL_PARSE_MAX_LINKS. */
sl_ast_expr *sl__p_fix(sl_parser *p, sl_ast_expr *e);
sl_ast_query *sl__p_subquery(sl_parser *p, int *height);
int sl__p_link(sl_parser *p, const sl_token *t);

/* Allocation (zeroed); NULL with SL_ENOMEM set on failure. */
void *sl__p_alloc(sl_parser *p, size_t n);
/* Appends one zeroed element of size sz to the arena array *arr of *n
 * elements (capacity *cap) and returns it, or NULL on OOM. */
void *sl__p_push(sl_parser *p, void *arr, int *n, int *cap, size_t sz);

/* Token text helpers (arena copies). */
char *sl__p_text(sl_parser *p, const sl_token *t);     /* raw span */
char *sl__p_unquote(sl_parser *p, const sl_token *t);  /* '..', `..`, "..": content, doubled quote unescaped */
char *sl__p_upper(sl_parser *p, const char *s);

/* Identifier: unquoted non-reserved IDENT or QIDENT. */
int sl__p_is_ident(sl_parser *p, int k);
int sl__p_ident(sl_parser *p, sl_ast_ident *out, const char *what);
int sl__p_name(sl_parser *p, sl_ast_name *out, const char *what); /* dotted */
int sl__p_ident_list(sl_parser *p, sl_ast_ident **out, int *n);   /* ( a, b ) */
int sl__p_string(sl_parser *p, const char **out, const char *what);
int sl__p_hints(sl_parser *p, sl_ast_hint **out, int *n);         /* at HINT_BEGIN */
int sl__p_options(sl_parser *p, sl_ast_option **out, int *n);     /* ( 'k' = 'v', .. ) */

/* Grammar entry points across files. */
sl_ast_expr *sl__p_expr(sl_parser *p);
sl_ast_query *sl__p_query(sl_parser *p);
/* A query and, in *text, its text as written (arena copy; CREATE / ALTER
 * VIEW keep it). */
sl_ast_query *sl__p_query_text(sl_parser *p, const char **text);
/* One CREATE TABLE element (column, WATERMARK, [CONSTRAINT c] PRIMARY KEY)
 * appended to ct (parse_stmt.c). */
int sl__p_table_element(sl_parser *p, sl_ast_create_table *ct, int *ccap, int *wcap);
/* ALTER TABLE / ALTER VIEW, at ALTER (parse_alter.c). */
int sl__p_alter(sl_parser *p, sl_ast_stmt *s);
sl_ast_type *sl__p_type(sl_parser *p);
int sl__p_order_list(sl_parser *p, sl_ast_order **out, int *n);   /* after ORDER BY */
sl_ast_window *sl__p_window_spec(sl_parser *p);                   /* at '(' */
sl_ast_unit sl__p_unit_word(sl_parser *p, int k);                 /* unit keyword or NONE */
int sl__p_group_by(sl_parser *p, sl_ast_expr ***out, int *n);     /* after GROUP BY (parse_group.c) */
/* parse_match.c: at MATCH_RECOGNIZE after FROM item `in`: the MATCH item
 * reading it, or NULL with the error set. */
sl_ast_from *sl__p_match_recognize(sl_parser *p, sl_ast_from *in);
/* parse_fn.c: arguments of OVERLAY and the JSON functions (after '('):
 * 1 handled, 0 not one of them, -1 error; the kind after IS [NOT] JSON. */
int sl__p_fn_args(sl_parser *p, sl_ast_expr *c, const sl_token *t, int *cap);
sl_ast_expr *sl__p_json_kind(sl_parser *p);

/* parse_show.c: SHOW (after SHOW), DESCRIBE (after DESCRIBE / DESC),
 * CREATE / DROP FUNCTION (after FUNCTION).  0 or -1 with the error set. */
int sl__p_show(sl_parser *p, sl_ast_stmt *s);
int sl__p_describe(sl_parser *p, sl_ast_stmt *s);
int sl__p_create_function(sl_parser *p, sl_ast_stmt *s, int temporary, int system);
int sl__p_drop_function(sl_parser *p, sl_ast_stmt *s, int temporary, int system);

#endif
