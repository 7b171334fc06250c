/*
 * parse_match.c - the MATCH_RECOGNIZE clause after a FROM item:
 *
 *   input MATCH_RECOGNIZE (
 *     [PARTITION BY e, ..] [ORDER BY e [ASC|DESC], ..]
 *     [MEASURES [FINAL|RUNNING] e [AS] name, ..]
 *     [ONE ROW PER MATCH | ALL ROWS PER MATCH]
 *     [AFTER MATCH SKIP (PAST LAST ROW | TO NEXT ROW | TO [FIRST|LAST] var)]
 *     PATTERN ( term term .. ) [WITHIN interval]
 *     DEFINE var AS cond [,] ..
 *   ) [[AS] alias]
 *
 * A term is a variable and an optional quantifier: *, +, ?, {n}, {n,},
 * {n,m}, {,m}, each optionally followed by ? (reluctant).  The pattern
 * syntax Flink lacks too (groups, alternation |, PERMUTE, anchors ^ $,
 * exclusion {- -}) and SUBSET are refused here by name; what parses but
 * Flink or sluice does not run (ALL ROWS PER MATCH, a greedy last term,
 * ...) is refused by the planner (plan_match.c), which owns the meaning.
 * The comma between DEFINE items may be left out (one example of Flink's
 * documentation does), as the next item starts with `var AS`.
 */
#include "parse_int.h"
#include "sluice.h"

#include <stdlib.h>
#include <string.h>

/* A non-negative integer literal into *out; -1 with an error. */
static int small_int(sl_parser *p, int *out)
{
	const sl_token *t = sl__p_tok(p, 0);
	if (t->type != SL_TK_INTEGER || t->len > 9)
		return sl__p_error(p, "an integer");
	*out = atoi(p->sql + t->off);
	p->i++;
	return 0;
}

/* { n } { n , } { n , m } { , m } after '{' was consumed. */
static int brace_quant(sl_parser *p, sl_ast_match_term *t)
{
	if (sl__p_is_op(p, 0, "-"))
		return sl__p_error_at(p, sl__p_tok(p, 0), SL_ENOTSUP,
		                      "pattern exclusion {- -} is not supported in MATCH_RECOGNIZE");
	t->min = 0;
	if (!sl__p_is_op(p, 0, ",") && small_int(p, &t->min))
		return -1;
	if (sl__p_accept_op(p, ",")) {
		t->max = -1;
		if (!sl__p_is_op(p, 0, "}") && small_int(p, &t->max))
			return -1;
	} else {
		t->max = t->min;
	}
	return sl__p_expect_op(p, "}");
}

/* The terms of PATTERN ( .. ) after PATTERN. */
static int pattern(sl_parser *p, sl_ast_match *m)
{
	int cap = 0;
	if (sl__p_expect_op(p, "("))
		return -1;
	do {
		const sl_token *tk = sl__p_tok(p, 0);
		if (sl__p_is_op(p, 0, "(") || sl__p_is_op(p, 0, "|") || sl__p_is_op(p, 0, "^") ||
		    sl__p_is_op(p, 0, "$") || sl__p_is_kw(p, 0, "PERMUTE") || sl__p_is_op(p, 0, "{")) {
			const char *what = sl__p_is_op(p, 0, "(") ? "pattern groups ( .. ) are"
			                   : sl__p_is_op(p, 0, "|") ? "pattern alternation | is"
			                   : sl__p_is_kw(p, 0, "PERMUTE") ? "PERMUTE is"
			                   : sl__p_is_op(p, 0, "{") ? "pattern exclusion {- -} is"
			                                            : "pattern anchors ^ and $ are";
			return sl__p_error_at(p, tk, SL_ENOTSUP,
			                      sl_arena_printf(p->a, "%s not supported in MATCH_RECOGNIZE",
			                                      what));
		}
		sl_ast_match_term *t = sl__p_push(p, &m->terms, &m->nterms, &cap, sizeof(*t));
		if (!t || sl__p_ident(p, &t->var, "a pattern variable"))
			return -1;
		t->line = tk->line;
		t->col = tk->col;
		t->min = t->max = 1;
		if (sl__p_accept_op(p, "*")) {
			t->min = 0;
			t->max = -1;
		} else if (sl__p_accept_op(p, "+")) {
			t->max = -1;
		} else if (sl__p_accept_op(p, "?")) {
			t->min = 0;
		} else if (sl__p_accept_op(p, "{")) {
			if (brace_quant(p, t))
				return -1;
		} else {
			continue;
		}
		if (sl__p_accept_op(p, "?"))
			t->reluctant = 1;
	} while (!sl__p_is_op(p, 0, ")") && sl__p_tok(p, 0)->type != SL_TK_EOF);
	return sl__p_expect_op(p, ")");
}

/* MEASURES items. */
static int measures(sl_parser *p, sl_ast_match *m)
{
	int cap = 0, ncap = 0, nn = 0;
	do {
		if (sl__p_is_ident(p, 1) || sl__p_is_op(p, 1, "("))
			if (!sl__p_accept_kw(p, "FINAL"))
				sl__p_accept_kw(p, "RUNNING"); /* one row per match: the same */
		sl_ast_expr **e = sl__p_push(p, &m->measures, &m->nmeasures, &cap, sizeof(*e));
		sl_ast_ident *id = sl__p_push(p, &m->measure_names, &nn, &ncap, sizeof(*id));
		if (!e || !id || !(*e = sl__p_expr(p)))
			return -1;
		sl__p_accept_kw(p, "AS");
		if (sl__p_ident(p, id, "a measure name (AS name)"))
			return -1;
	} while (sl__p_accept_op(p, ","));
	return 0;
}

/* DEFINE items. */
static int defines(sl_parser *p, sl_ast_match *m)
{
	int cap = 0, vcap = 0, nv = 0;
	do {
		sl_ast_ident *v = sl__p_push(p, &m->define_vars, &nv, &vcap, sizeof(*v));
		sl_ast_expr **e = sl__p_push(p, &m->defines, &m->ndefines, &cap, sizeof(*e));
		if (!v || !e || sl__p_ident(p, v, "a pattern variable") || sl__p_expect_kw(p, "AS") ||
		    !(*e = sl__p_expr(p)))
			return -1;
	} while (sl__p_accept_op(p, ",") || (sl__p_is_ident(p, 0) && sl__p_is_kw(p, 1, "AS")));
	return 0;
}

/* AFTER MATCH SKIP .. after AFTER. */
static int after_match(sl_parser *p, sl_ast_match *m)
{
	if (sl__p_expect_kw(p, "MATCH") || sl__p_expect_kw(p, "SKIP"))
		return -1;
	if (sl__p_accept_kw(p, "PAST")) {
		m->skip = SL_AMS_PAST_LAST;
		return sl__p_expect_kw(p, "LAST") || sl__p_expect_kw(p, "ROW") ? -1 : 0;
	}
	if (sl__p_expect_kw(p, "TO"))
		return -1;
	if (sl__p_is_kw(p, 0, "NEXT") && sl__p_is_kw(p, 1, "ROW")) {
		p->i += 2;
		m->skip = SL_AMS_NEXT_ROW;
		return 0;
	}
	m->skip = SL_AMS_TO_LAST;
	if (sl__p_accept_kw(p, "FIRST"))
		m->skip = SL_AMS_TO_FIRST;
	else
		sl__p_accept_kw(p, "LAST");
	return sl__p_ident(p, &m->skip_var, "a pattern variable");
}

/* The clauses between the parentheses, in Flink's order. */
static int match_body(sl_parser *p, sl_ast_match *m)
{
	/* without AFTER MATCH: SKIP TO NEXT ROW, what Flink 1.20.3 does (its
	 * SqlToRelConverter's default; docs/match_recognize.md) */
	m->skip = SL_AMS_NEXT_ROW;
	if (sl__p_is_kw(p, 0, "PARTITION") && sl__p_is_kw(p, 1, "BY")) {
		int cap = 0;
		p->i += 2;
		do {
			sl_ast_expr **e = sl__p_push(p, &m->partition, &m->npartition, &cap, sizeof(*e));
			if (!e || !(*e = sl__p_expr(p)))
				return -1;
		} while (sl__p_accept_op(p, ","));
	}
	if (sl__p_is_kw(p, 0, "ORDER") && sl__p_is_kw(p, 1, "BY")) {
		p->i += 2;
		if (sl__p_order_list(p, &m->order, &m->norder))
			return -1;
	}
	if (sl__p_accept_kw(p, "MEASURES") && measures(p, m))
		return -1;
	if (sl__p_is_kw(p, 0, "ONE") || sl__p_is_kw(p, 0, "ALL")) {
		const sl_token *t = sl__p_tok(p, 0);
		m->all_rows = sl__p_is_kw(p, 0, "ALL");
		m->all_rows_line = t->line;
		m->all_rows_col = t->col;
		p->i++;
		if (sl__p_expect_kw(p, m->all_rows ? "ROWS" : "ROW"))
			return -1;
		if (sl__p_expect_kw(p, "PER") || sl__p_expect_kw(p, "MATCH"))
			return -1;
	}
	if (sl__p_accept_kw(p, "AFTER") && after_match(p, m))
		return -1;
	if (sl__p_expect_kw(p, "PATTERN") || pattern(p, m))
		return -1;
	if (sl__p_accept_kw(p, "WITHIN") && !(m->within = sl__p_expr(p)))
		return -1;
	if (sl__p_is_kw(p, 0, "SUBSET"))
		return sl__p_error_at(p, sl__p_tok(p, 0), SL_ENOTSUP,
		                      "SUBSET is not supported in MATCH_RECOGNIZE");
	if (sl__p_expect_kw(p, "DEFINE") || defines(p, m))
		return -1;
	return 0;
}

/*
 * At MATCH_RECOGNIZE after FROM item `in`: parses the clause and returns
 * the MATCH item reading `in` (its alias comes after), or NULL with the
 * error in p->err.
 */
sl_ast_from *sl__p_match_recognize(sl_parser *p, sl_ast_from *in)
{
	const sl_token *t = sl__p_tok(p, 0);
	sl_ast_from *f = sl__p_alloc(p, sizeof(*f));
	sl_ast_match *m = sl__p_alloc(p, sizeof(*m));
	if (!f || !m)
		return NULL;
	p->i++; /* MATCH_RECOGNIZE */
	f->kind = SL_AF_MATCH;
	f->line = in->line;
	f->col = in->col;
	f->u.match = m;
	m->input = in;
	m->line = t->line;
	m->col = t->col;
	if (sl__p_expect_op(p, "(") || match_body(p, m) || sl__p_expect_op(p, ")"))
		return NULL;
	return f;
}
