/*
 * sql_token.c - table-driven SQL tokenizer (see sql_token.h).
 *
 * Each byte is mapped to a character class through a 256-entry constant
 * table (no state: tokenizers in several threads run at once); the main
 * loop dispatches on the class of the token's first byte, in the
 * manner of sqlite's tokenize.c.  Bytes >= 0x80 (UTF-8) are identifier
 * characters, so non-ASCII names work unquoted.  Line and column are
 * tracked incrementally; a column counts characters (UTF-8 continuation
 * bytes do not advance it).  The tokenizer never reads past the NUL and
 * every loop consumes at least one byte, so it terminates on any input.
 */
#include "sql_token.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdio.h>

enum cc {
	CC_ILLEGAL = 0, CC_SPACE, CC_NL, CC_ALPHA, CC_DIGIT, CC_DOT,
	CC_QUOTE, CC_BACKQ, CC_DQUOTE, CC_MINUS, CC_SLASH, CC_LT, CC_GT,
	CC_BANG, CC_PIPE, CC_EQ, CC_SIMPLE, CC_X, CC_NUL
};

/* Character class of each byte.  Constant data (no first-use fill), so
 * concurrent tokenizers in several threads share it safely.  Entries not
 * named are CC_ILLEGAL (0); the ranges do not overlap (-Woverride-init). */
static const unsigned char cclass[256] = {
	[0] = CC_NUL,
	['\t'] = CC_SPACE, ['\v'] = CC_SPACE, ['\f'] = CC_SPACE, ['\r'] = CC_SPACE,
	[' '] = CC_SPACE,
	['\n'] = CC_NL,
	['a' ... 'w'] = CC_ALPHA, ['x'] = CC_X, ['y' ... 'z'] = CC_ALPHA,
	['A' ... 'W'] = CC_ALPHA, ['X'] = CC_X, ['Y' ... 'Z'] = CC_ALPHA,
	['_'] = CC_ALPHA, ['$'] = CC_ALPHA,
	[0x80 ... 0xff] = CC_ALPHA, /* UTF-8 bytes: identifier characters */
	['0' ... '9'] = CC_DIGIT,
	['('] = CC_SIMPLE, [')'] = CC_SIMPLE, [','] = CC_SIMPLE, [';'] = CC_SIMPLE,
	['+'] = CC_SIMPLE, ['*'] = CC_SIMPLE, ['%'] = CC_SIMPLE, ['['] = CC_SIMPLE,
	[']'] = CC_SIMPLE, ['?'] = CC_SIMPLE, [':'] = CC_SIMPLE, ['{'] = CC_SIMPLE,
	['}'] = CC_SIMPLE, ['^'] = CC_SIMPLE, ['~'] = CC_SIMPLE, ['&'] = CC_SIMPLE,
	['.'] = CC_DOT,
	['\''] = CC_QUOTE,
	['`'] = CC_BACKQ,
	['"'] = CC_DQUOTE,
	['-'] = CC_MINUS,
	['/'] = CC_SLASH,
	['<'] = CC_LT,
	['>'] = CC_GT,
	['!'] = CC_BANG,
	['|'] = CC_PIPE,
	['='] = CC_EQ,
};

/* Reserved words, sorted (upper case) for bsearch. */
static const char *const reserved[] = {
	"ALL", "AND", "ANY", "ARRAY", "AS", "ASYMMETRIC", "BETWEEN", "BOTH",
	"BY", "CASE", "CAST", "CREATE", "CROSS", "CURRENT_DATE",
	"CURRENT_TIME", "CURRENT_TIMESTAMP", "DELETE", "DESCRIBE", "DISTINCT",
	"DROP", "ELSE", "END", "ESCAPE", "EXCEPT", "EXISTS", "EXPLAIN",
	"FALSE", "FETCH", "FILTER", "FOR", "FROM", "FULL", "GROUP", "HAVING",
	"IN", "INNER", "INSERT", "INTERSECT", "INTERVAL", "INTO", "IS", "JOIN",
	"LATERAL", "LEADING", "LEFT", "LIKE", "LIMIT", "LOCALTIME",
	"LOCALTIMESTAMP", "MATCH_RECOGNIZE", "MINUS", "NATURAL", "NOT", "NULL", "OFFSET", "ON",
	"OR", "ORDER", "OUTER", "OVER", "PARTITION", "RESET", "RIGHT", "ROW",
	"SELECT", "SET", "SIMILAR", "SOME", "SYMMETRIC", "TABLE", "TABLESAMPLE", "THEN",
	"TRAILING", "TRUE", "UNION", "UNKNOWN", "UPDATE", "USING", "VALUES",
	"WHEN", "WHERE", "WINDOW", "WITH",
};

static int cmp_word(const void *k, const void *e)
{
	const char *key = k;
	return strcasecmp(key, *(const char *const *)e);
}

int sl_sql_is_reserved(const char *s, size_t n)
{
	char w[32];
	if (n == 0 || n >= sizeof(w))
		return 0;
	memcpy(w, s, n);
	w[n] = 0;
	return bsearch(w, reserved, sizeof(reserved) / sizeof(reserved[0]),
	               sizeof(reserved[0]), cmp_word) != NULL;
}

char *sl_sql_token_desc(const char *sql, const sl_token *t, char *buf, size_t cap)
{
	if (t->type == SL_TK_EOF) {
		snprintf(buf, cap, "end of input");
		return buf;
	}
	size_t n = t->len > 40 ? 40 : t->len;
	snprintf(buf, cap, "%.*s%s", (int)n, sql + t->off, t->len > 40 ? "..." : "");
	return buf;
}

typedef struct lexer {
	const char *s;
	size_t i;
	int line, col;
	sl_token *toks;
	int n, cap;
	int in_hint;
	sl_err *err;
} lexer;

/* Advances over n bytes, maintaining line and column. */
static void adv(lexer *lx, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		unsigned char c = (unsigned char)lx->s[lx->i++];
		if (c == '\n') {
			lx->line++;
			lx->col = 1;
		} else if ((c & 0xC0) != 0x80) {
			lx->col++;
		}
	}
}

static int push(lexer *lx, int type, size_t start, size_t len, int line, int col)
{
	if (lx->n == lx->cap) {
		int nc = lx->cap ? lx->cap * 2 : 64;
		sl_token *t = realloc(lx->toks, (size_t)nc * sizeof(*t));
		if (!t)
			return sl_err_set(lx->err, SL_ENOMEM, "tokenizer: out of memory");
		lx->toks = t;
		lx->cap = nc;
	}
	sl_token *t = &lx->toks[lx->n++];
	t->type = (uint8_t)type;
	t->off = (uint32_t)start;
	t->len = (uint32_t)len;
	t->line = line;
	t->col = col;
	return 0;
}

/* Length of a quoted token starting at s[0] == q, where qq doubles the
 * quote; 0 when unterminated. */
static size_t quoted_len(const char *s, char q)
{
	size_t i = 1;
	for (;;) {
		if (s[i] == 0)
			return 0;
		if (s[i] == q) {
			if (s[i + 1] == q) {
				i += 2;
				continue;
			}
			return i + 1;
		}
		i++;
	}
}

/* Length of a numeric literal at s and its token type. */
static size_t number_len(const char *s, int *type)
{
	size_t i = 0;
	*type = SL_TK_INTEGER;
	while (cclass[(unsigned char)s[i]] == CC_DIGIT)
		i++;
	if (s[i] == '.') {
		*type = SL_TK_DECIMAL;
		i++;
		while (cclass[(unsigned char)s[i]] == CC_DIGIT)
			i++;
	}
	if ((s[i] == 'e' || s[i] == 'E')) {
		size_t j = i + 1;
		if (s[j] == '+' || s[j] == '-')
			j++;
		if (cclass[(unsigned char)s[j]] == CC_DIGIT) {
			while (cclass[(unsigned char)s[j]] == CC_DIGIT)
				j++;
			*type = SL_TK_APPROX;
			i = j;
		}
	}
	return i;
}

/* Skips a block comment at s[i] == '/', s[i+1] == '*'. Returns 0 or error. */
static int skip_block_comment(lexer *lx)
{
	int line = lx->line, col = lx->col;
	const char *end = strstr(lx->s + lx->i + 2, "*/");
	if (!end)
		return sl_err_set_at(lx->err, SL_ESYNTAX, line, col,
		                     "line %d, column %d: unterminated comment", line, col);
	adv(lx, (size_t)(end - (lx->s + lx->i)) + 2);
	return 0;
}

/* Scans one token (or skips whitespace/comment) at the current position. */
static int scan(lexer *lx)
{
	const char *p = lx->s + lx->i;
	int line = lx->line, col = lx->col;
	size_t len = 1;
	int type = SL_TK_OP;
	switch (cclass[(unsigned char)*p]) {
	case CC_SPACE:
	case CC_NL:
		adv(lx, 1);
		return 0;
	case CC_MINUS:
		if (p[1] == '-') {
			while (lx->s[lx->i] && lx->s[lx->i] != '\n')
				adv(lx, 1);
			return 0;
		}
		break;
	case CC_SLASH:
		if (p[1] == '*' && p[2] == '+' && !lx->in_hint) {
			lx->in_hint = 1;
			type = SL_TK_HINT_BEGIN;
			len = 3;
		} else if (p[1] == '*') {
			return skip_block_comment(lx);
		}
		break;
	case CC_SIMPLE:
		if (*p == '*' && p[1] == '/' && lx->in_hint) {
			lx->in_hint = 0;
			type = SL_TK_HINT_END;
			len = 2;
		}
		break;
	case CC_LT:
		if (p[1] == '>' || p[1] == '=')
			len = 2;
		break;
	case CC_GT:
		if (p[1] == '=')
			len = 2;
		break;
	case CC_EQ:
		if (p[1] == '>')
			len = 2;
		break;
	case CC_BANG:
		if (p[1] != '=')
			goto illegal;
		len = 2;
		break;
	case CC_PIPE: /* || ; a lone | is PATTERN alternation, which the parser
	               * refuses by name (parse_match.c) */
		len = p[1] == '|' ? 2 : 1;
		break;
	case CC_DOT:
		if (cclass[(unsigned char)p[1]] == CC_DIGIT)
			len = number_len(p, &type);
		break;
	case CC_DIGIT:
		len = number_len(p, &type);
		break;
	case CC_QUOTE:
	case CC_BACKQ:
	case CC_DQUOTE:
		len = quoted_len(p, *p);
		if (!len)
			return sl_err_set_at(lx->err, SL_ESYNTAX, line, col,
			                     "line %d, column %d: unterminated %s", line, col,
			                     *p == '\'' ? "string literal" : "quoted identifier");
		type = *p == '\'' ? SL_TK_STRING : SL_TK_QIDENT;
		break;
	case CC_X:
		if (p[1] == '\'') {
			len = quoted_len(p + 1, '\'');
			if (!len)
				return sl_err_set_at(lx->err, SL_ESYNTAX, line, col,
				                     "line %d, column %d: unterminated binary literal", line, col);
			len++;
			type = SL_TK_BINARY;
			break;
		}
		/* fall through */
	case CC_ALPHA:
		len = 0;
		while (cclass[(unsigned char)p[len]] == CC_ALPHA || cclass[(unsigned char)p[len]] == CC_X ||
		       cclass[(unsigned char)p[len]] == CC_DIGIT)
			len++;
		type = SL_TK_IDENT;
		break;
	default:
		goto illegal;
	}
	if (push(lx, type, lx->i, len, line, col))
		return SL_ENOMEM;
	adv(lx, len);
	return 0;
illegal:
	return sl_err_set_at(lx->err, SL_ESYNTAX, line, col,
	                     "line %d, column %d: unexpected character '%c'", line, col,
	                     (*p >= 32 && *p < 127) ? *p : '?');
}

int sl_sql_tokenize(const char *sql, sl_token **toks, int *ntok, sl_err *err)
{
	lexer lx;
	int rc;
	memset(&lx, 0, sizeof(lx));
	lx.s = sql;
	lx.line = lx.col = 1;
	lx.err = err;
	*toks = NULL;
	*ntok = 0;
	while (sql[lx.i]) {
		if (lx.i >= 0xFFFFFFF0u) {
			rc = sl_err_set(err, SL_EINVAL, "SQL text too long");
			goto fail;
		}
		if ((rc = scan(&lx)))
			goto fail;
	}
	if ((rc = push(&lx, SL_TK_EOF, lx.i, 0, lx.line, lx.col)))
		goto fail;
	*toks = lx.toks;
	*ntok = lx.n;
	return 0;
fail:
	free(lx.toks);
	return rc;
}
