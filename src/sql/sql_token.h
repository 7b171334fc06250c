/*
 * sql_token.h - the SQL tokenizer: script text -> an array of tokens.
 *
 * Data flow:  SQL text --(sl_sql_tokenize)--> sl_token[] --(parser.c)--> AST.
 *
 * Tokens do not copy text: they are (offset, length) spans into the script,
 * with the 1-based line and column (in characters) of their first byte.
 * Comments (`-- ...` to end of line, slash-star ... star-slash) are
 * skipped; a hint comment (slash-star-plus) is kept as a HINT_BEGIN token,
 * its contents are tokenized normally and its closing star-slash becomes
 * HINT_END.  Keywords are IDENT tokens: the parser compares them
 * case-insensitively.  The array always ends with one EOF token.
 */
#ifndef SL_SQL_TOKEN_H
#define SL_SQL_TOKEN_H

#include <stddef.h>
#include <stdint.h>

#include "../base/err.h"

typedef enum sl_token_type {
	SL_TK_EOF = 0,
	SL_TK_IDENT,      /* unquoted identifier or keyword */
	SL_TK_QIDENT,     /* `quoted` or "quoted" identifier (span includes quotes) */
	SL_TK_STRING,     /* 'string' (span includes quotes, '' not unescaped) */
	SL_TK_BINARY,     /* X'0A1B' */
	SL_TK_INTEGER,    /* 123 */
	SL_TK_DECIMAL,    /* 1.5, .5, 1. */
	SL_TK_APPROX,     /* 1e5, 1.5E-3 */
	SL_TK_OP,         /* punctuation and operators: ( ) , ; . + - * / % = <> != < <= > >= || => [ ] ? : */
	SL_TK_HINT_BEGIN, /* slash-star-plus */
	SL_TK_HINT_END    /* star-slash closing a hint */
} sl_token_type;

typedef struct sl_token {
	uint8_t type;   /* sl_token_type */
	uint32_t off;   /* byte offset of the token in the script */
	uint32_t len;   /* byte length */
	int line, col;  /* 1-based */
} sl_token;

/*
 * Tokenizes the NUL-terminated sql.  On success stores a malloc'd array of
 * *ntok tokens (the last one EOF) in *toks, which the caller frees with
 * free(), and returns 0.  On a lexical error (unterminated string, quoted
 * identifier or comment, a character that starts no token) returns
 * SL_ESYNTAX with the position in err; SL_ENOMEM when out of memory.
 */
int sl_sql_tokenize(const char *sql, sl_token **toks, int *ntok, sl_err *err);

/* 1 if the n-byte word s is a reserved word (case-insensitive): one that
 * cannot be an unquoted identifier or an implicit alias. */
int sl_sql_is_reserved(const char *s, size_t n);

/* Short description of a token for error messages ("SELECT", "end of
 * input"), written into buf (truncated to cap).  Returns buf. */
char *sl_sql_token_desc(const char *sql, const sl_token *t, char *buf, size_t cap);

#endif
