/*
 * parse_unsup.c - Flink SQL syntax that sluice does not have, reported by
 * name ("line 1, column 17: TABLESAMPLE is not supported") instead of
 * as a syntax error ("expected ';', found 'TABLESAMPLE'").
 *
 * Where it sits: sl__p_error (parser.c), the one place every "expected X,
 * found Y" error goes through, first asks sl__p_unsupported whether the
 * parser stumbled on one of the constructs below; if so that message
 * replaces the syntax error.  The table is consulted only on a path that
 * already fails, so an entry can never refuse SQL that parses: a
 * construct implemented later simply parses before it gets here (SHOW,
 * DESCRIBE and CREATE / DROP FUNCTION are parsed by parse_show.c).
 *
 * Two kinds of entries:
 *   - statements: keyword sequences at the start of a statement (after
 *     ';', EXPLAIN [PLAN FOR] or BEGIN STATEMENT SET;), matched when the
 *     failing token is one of the sequence's words;
 *   - clauses: keyword sequences starting at the failing token itself
 *     (TABLESAMPLE, IGNORE NULLS, ...).
 * docs/sql.md, "Not yet", lists the same constructs.
 */
#include "parse_int.h"
#include "sluice.h"

#include <string.h>
#include <strings.h>

typedef struct unsup {
	const char *words[4]; /* keyword sequence, NULL-terminated */
	const char *name;     /* what the message calls it */
} unsup;

/* Statements Flink has and sluice refuses (first words of the statement). */
static const unsup stmts[] = {
	{{"CREATE", "CATALOG"}, "CREATE CATALOG"},
	{{"CREATE", "DATABASE"}, "CREATE DATABASE"},
	{{"DROP", "CATALOG"}, "DROP CATALOG"},
	{{"DROP", "DATABASE"}, "DROP DATABASE"},
	{{"ALTER", "DATABASE"}, "ALTER DATABASE"},
	{{"ALTER", "FUNCTION"}, "ALTER FUNCTION"},
	{{"ALTER", "TEMPORARY"}, "ALTER TEMPORARY FUNCTION"},
	{{"ALTER", "CATALOG"}, "ALTER CATALOG"},
	{{"ALTER", "MODEL"}, "ALTER MODEL"},
	{{"USE", "CATALOG"}, "USE CATALOG"},
	{{"USE", "MODULES"}, "USE MODULES"},
	{{"USE"}, "USE"},
	{{"DELETE"}, "DELETE"},
	{{"UPDATE"}, "UPDATE"},
	{{"TRUNCATE"}, "TRUNCATE TABLE"},
	{{"ANALYZE"}, "ANALYZE TABLE"},
	{{"LOAD", "MODULE"}, "LOAD MODULE"},
	{{"UNLOAD", "MODULE"}, "UNLOAD MODULE"},
	{{"CALL"}, "CALL (stored procedures)"},
};

/* Clauses, matched at the failing token. */
static const unsup clauses[] = {
	{{"TABLESAMPLE"}, "TABLESAMPLE"},
	{{"IGNORE", "NULLS"}, "IGNORE NULLS"},
	{{"RESPECT", "NULLS"}, "RESPECT NULLS"},
	{{"WITHIN", "GROUP"}, "WITHIN GROUP"},
};

/* 1 when tokens from index `at` spell words[]. */
static int match_at(sl_parser *p, int at, const char *const *words, int *len)
{
	int k = 0;
	for (; k < 4 && words[k]; k++)
		if (!sl__p_is_kw(p, at - p->i + k, words[k]))
			return 0;
	*len = k;
	return 1;
}

/* Index of the first token of the statement containing the current one. */
static int stmt_start(sl_parser *p)
{
	int s = p->i;
	while (s > 0 && !(p->t[s - 1].type == SL_TK_OP && p->t[s - 1].len == 1 &&
	                  p->sql[p->t[s - 1].off] == ';'))
		s--;
	/* EXPLAIN [PLAN FOR] stmt: the explained statement starts after it */
	if (sl__p_is_kw(p, s - p->i, "EXPLAIN")) {
		s++;
		if (sl__p_is_kw(p, s - p->i, "PLAN") && sl__p_is_kw(p, s + 1 - p->i, "FOR"))
			s += 2;
	}
	return s;
}

static int refuse(sl_parser *p, const sl_token *t, const char *name)
{
	sl_err_set_at(p->err, SL_ENOTSUP, t->line, t->col,
	              "line %d, column %d: %s is not supported", t->line, t->col, name);
	return -1;
}

int sl__p_unsupported(sl_parser *p)
{
	int len;
	for (size_t k = 0; k < sizeof(clauses) / sizeof(clauses[0]); k++)
		if (match_at(p, p->i, clauses[k].words, &len))
			return refuse(p, sl__p_tok(p, 0), clauses[k].name);
	/* f(x) IGNORE NULLS OVER ..: IGNORE was taken as a column alias */
	if (sl__p_is_kw(p, 0, "NULLS") && (sl__p_is_kw(p, -1, "IGNORE") || sl__p_is_kw(p, -1, "RESPECT")))
		return refuse(p, sl__p_tok(p, -1), sl__p_is_kw(p, -1, "IGNORE") ? "IGNORE NULLS"
		                                                                : "RESPECT NULLS");
	int s = stmt_start(p);
	for (size_t k = 0; k < sizeof(stmts) / sizeof(stmts[0]); k++) {
		if (!match_at(p, s, stmts[k].words, &len) || p->i >= s + len)
			continue;
		return refuse(p, sl__p_tok(p, s - p->i), stmts[k].name);
	}
	return 0;
}
