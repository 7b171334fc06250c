/*
 * parse_alter.c - recursive-descent parser, part: ALTER TABLE and ALTER
 * VIEW, Flink 1.20's grammar (docs/dev/table/sql/alter.md):
 *
 *   ALTER TABLE [IF EXISTS] t {
 *       ADD { element | ( element [, ...] ) }
 *     | MODIFY { element | ( element [, ...] ) }
 *     | DROP { col | ( col [, ...] ) | PRIMARY KEY | CONSTRAINT c | WATERMARK }
 *     | RENAME col TO col
 *     | RENAME TO t2
 *     | SET ( 'k' = 'v' [, ...] )
 *     | RESET ( 'k' [, ...] ) }
 *   ALTER VIEW v { RENAME TO v2 | AS query }
 *
 * where an element is a CREATE TABLE element (a column definition, `[CONSTRAINT
 * c] PRIMARY KEY (..) NOT ENFORCED` or `WATERMARK FOR c AS expr`), a column
 * optionally followed by FIRST or AFTER col.  The statement becomes an
 * sl_ast_alter; the catalog applies it (plan/catalog_alter.c).
 */
#include "parse_int.h"
#include "sluice.h"

#include <string.h>

/* ADD / MODIFY: one element or a parenthesised list. */
static int elements(sl_parser *p, sl_ast_alter *al)
{
	int ccap = 0, wcap = 0, paren = sl__p_accept_op(p, "(");
	do {
		int before = al->elems.ncols;
		if (sl__p_table_element(p, &al->elems, &ccap, &wcap))
			return -1;
		if (al->elems.ncols > before) { /* a column: its position */
			sl_ast_column *c = &al->elems.cols[al->elems.ncols - 1];
			if (sl__p_accept_kw(p, "FIRST"))
				c->pos_first = 1;
			else if (sl__p_accept_kw(p, "AFTER") &&
			         sl__p_ident(p, &c->pos_after, "column name after AFTER"))
				return -1;
		}
	} while (paren && sl__p_accept_op(p, ","));
	return paren ? sl__p_expect_op(p, ")") : 0;
}

/* DROP's operand. */
static int drop(sl_parser *p, sl_ast_alter *al)
{
	if (sl__p_is_kw(p, 0, "PRIMARY") && sl__p_is_kw(p, 1, "KEY")) {
		p->i += 2;
		al->drop_pk = 1;
		return 0;
	}
	if (sl__p_accept_kw(p, "WATERMARK")) {
		al->drop_wm = 1;
		return 0;
	}
	if (sl__p_accept_kw(p, "CONSTRAINT")) {
		sl_ast_ident c;
		if (sl__p_ident(p, &c, "constraint name"))
			return -1;
		al->drop_constraint = c.name;
		return 0;
	}
	if (sl__p_is_op(p, 0, "("))
		return sl__p_ident_list(p, &al->drop, &al->ndrop);
	al->drop = sl__p_alloc(p, sizeof(*al->drop));
	if (!al->drop)
		return -1;
	al->ndrop = 1;
	return sl__p_ident(p, al->drop, "column name, PRIMARY KEY, CONSTRAINT or WATERMARK");
}

/* RESET ( 'k' [, ...] ): the keys, as options without values. */
static int reset_keys(sl_parser *p, sl_ast_alter *al)
{
	int cap = 0;
	if (sl__p_expect_op(p, "("))
		return -1;
	do {
		const sl_token *t = sl__p_tok(p, 0);
		sl_ast_option *o = sl__p_push(p, &al->options, &al->noptions, &cap, sizeof(*o));
		if (!o || sl__p_string(p, &o->key, "option key string"))
			return -1;
		o->line = t->line;
		o->col = t->col;
	} while (sl__p_accept_op(p, ","));
	return sl__p_expect_op(p, ")");
}

static int alter_table(sl_parser *p, sl_ast_alter *al)
{
	const sl_token *t = sl__p_tok(p, 0);
	al->line = t->line;
	al->col = t->col;
	if (sl__p_accept_kw(p, "ADD")) {
		al->kind = SL_ALTER_ADD;
		return elements(p, al);
	}
	if (sl__p_accept_kw(p, "MODIFY")) {
		al->kind = SL_ALTER_MODIFY;
		return elements(p, al);
	}
	if (sl__p_accept_kw(p, "DROP")) {
		al->kind = SL_ALTER_DROP;
		return drop(p, al);
	}
	if (sl__p_accept_kw(p, "SET")) {
		al->kind = SL_ALTER_SET;
		return sl__p_options(p, &al->options, &al->noptions);
	}
	if (sl__p_accept_kw(p, "RESET")) {
		al->kind = SL_ALTER_RESET;
		return reset_keys(p, al);
	}
	if (!sl__p_accept_kw(p, "RENAME"))
		return sl__p_error(p, "ADD, MODIFY, DROP, RENAME, SET or RESET");
	if (sl__p_accept_kw(p, "TO")) {
		al->kind = SL_ALTER_RENAME;
		return sl__p_name(p, &al->new_name, "new table name");
	}
	al->kind = SL_ALTER_RENAME_COL;
	if (sl__p_ident(p, &al->old_col, "column name") || sl__p_expect_kw(p, "TO"))
		return -1;
	return sl__p_ident(p, &al->new_col, "new column name");
}

int sl__p_alter(sl_parser *p, sl_ast_stmt *s)
{
	sl_ast_alter *al = &s->u.alter;
	p->i++; /* ALTER */
	int view = sl__p_is_kw(p, 0, "VIEW");
	p->i++; /* TABLE | VIEW */
	s->kind = view ? SL_AS_ALTER_VIEW : SL_AS_ALTER_TABLE;
	if (!view && sl__p_is_kw(p, 0, "IF") && sl__p_is_kw(p, 1, "EXISTS")) {
		p->i += 2;
		al->if_exists = 1;
	}
	if (sl__p_name(p, &al->name, view ? "view name" : "table name"))
		return -1;
	if (!view)
		return alter_table(p, al);
	const sl_token *t = sl__p_tok(p, 0);
	al->line = t->line;
	al->col = t->col;
	if (sl__p_accept_kw(p, "RENAME")) {
		al->kind = SL_ALTER_RENAME;
		if (sl__p_expect_kw(p, "TO"))
			return -1;
		return sl__p_name(p, &al->new_name, "new view name");
	}
	if (!sl__p_accept_kw(p, "AS"))
		return sl__p_error(p, "RENAME TO or AS");
	al->kind = SL_ALTER_AS;
	return (al->query = sl__p_query_text(p, &al->query_text)) ? 0 : -1;
}
