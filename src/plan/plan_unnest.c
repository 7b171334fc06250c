/*
 * plan_unnest.c - plans UNNEST: the expansion of an ARRAY or MAP value of
 * each row into rows (Flink's "Array, Multiset and Map Expansion"), as a
 * Correlate node (src/exec/op_correlate.c) over the relation the
 * collection is read from:
 *
 *   FROM t CROSS JOIN UNNEST(t.tags) AS u (tag)     -- also JOIN .. ON cond
 *   FROM t, UNNEST(t.tags) AS u (tag)               -- plan_comma.c
 *   FROM t LEFT JOIN UNNEST(t.tags) AS u (tag) ON TRUE
 *   FROM UNNEST(ARRAY[1, 2, 3]) AS u (x)            -- over one constant row
 *
 * The argument is bound against the left relation's columns (the
 * correlation); its type decides the element columns, named by the
 * alias's column list or, without one, as Calcite names them: an
 * ARRAY<ROW<..>>'s row fields, `EXPR$0` for an ARRAY of anything else,
 * `KEY` and `VALUE` for a MAP, and `ORDINALITY` for WITH ORDINALITY (a
 * Flink 2.1 clause, an extension here).  The output keeps the left
 * relation's columns first, with their time attributes and changelog: a
 * Correlate is stateless, so an updating input stays updating with every
 * change expanded (a full retract stream; an upsert stream, whose -D may
 * hold only the key, is refused).  An inner join's ON condition other
 * than TRUE becomes a filter after the expansion; a LEFT JOIN takes only
 * ON TRUE (Flink's rule for correlated joins).  sluice has no MULTISET
 * type, so UNNEST of a multiset does not arise.
 */
#include "plan_int.h"
#include "sluice.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

int sl__is_unnest(const sl_ast_from *f)
{
	return f && f->kind == SL_AF_TABLE_FN && f->u.fn.unnest;
}

/* The EXPLAIN label, after Flink's: Correlate(invocation=[$UNNEST_ROWS$1(
 * $cor0.tags)], correlate=[table(..)], select=[a,b,tag], joinType=[INNER]). */
static const char *corr_label(planner *p, const rel *left, const sl_expr *arg, const rel *out,
                              int left_join, int ordinality)
{
	const char **cn = sl_arena_alloc(p->a, sizeof(char *) * (size_t)(left->ncols + 1));
	for (int i = 0; i < left->ncols; i++)
		cn[i] = sl_arena_printf(p->a, "$cor0.%s", left->cols[i].name);
	char buf[1024];
	sl_expr_format(arg, cn, buf, sizeof(buf));
	sl_buf s;
	sl_buf_init(&s);
	sl_buf_printf(&s, "Correlate(invocation=[$UNNEST_ROWS$1(%s)%s], correlate=[table("
	              "$UNNEST_ROWS$1(%s))], select=[", buf, ordinality ? " WITH ORDINALITY" : "",
	              buf);
	for (int i = 0; i < out->ncols; i++)
		sl_buf_printf(&s, "%s%s", i ? "," : "", out->cols[i].name);
	sl_buf_printf(&s, "], joinType=[%s])", left_join ? "LEFT" : "INNER");
	const char *r = sl_arena_strndup(p->a, s.p, s.len);
	sl_buf_deinit(&s);
	return r;
}

/* The element columns of collection type t: their count, and names and
 * types into out (room for t's fields + 1). */
static int elem_cols(planner *p, sl_type t, rcol *out)
{
	if (t.id == SL_T_MAP) {
		out[0].name = "KEY", out[0].type = sl_type_map_key(t);
		out[1].name = "VALUE", out[1].type = sl_type_map_value(t);
		return 2;
	}
	sl_type e = sl_type_elem(t);
	if (e.id == SL_T_ROW && e.row) {
		for (int i = 0; i < e.row->nfields; i++) {
			out[i].name = e.row->fields[i].name;
			out[i].type = e.row->fields[i].type;
		}
		return e.row->nfields;
	}
	out[0].name = "EXPR$0", out[0].type = e;
	return 1;
}

rel *sl__plan_unnest(planner *p, const sl_ast_from *f, rel *left, int left_join)
{
	const sl_ast_expr *call = f->u.fn.call;
	if (!call || call->kind != SL_AX_CALL || strcasecmp(call->u.call.fname, "UNNEST"))
		return sl__plan_error(p, f->line, f->col, SL_ESYNTAX, "expected UNNEST(collection)");
	if (call->u.call.nargs != 1)
		return sl__plan_error(p, call->line, call->col, SL_ENOTSUP,
		                      "UNNEST takes one ARRAY or MAP argument (%d given)",
		                      call->u.call.nargs);
	if (left->upsert_key)
		return sl__plan_error(p, f->line, f->col, SL_ENOTSUP,
		                      "UNNEST over an upsert stream (%s, keyed by %s) is not supported",
		                      left->upd_op ? left->upd_op : "its source", left->upsert_key);
	const sl_ast_expr *a = call->u.call.args[0];
	scope s = {left, NULL, NULL};
	sl_expr *arg = sl__bind_expr(p, &s, a);
	if (!arg)
		return NULL;
	if (!sl_type_is_collection(arg->type)) {
		char tb[128];
		return sl__plan_error(p, a->line, a->col, SL_EPLAN,
		                      "UNNEST needs an ARRAY or MAP argument, not %s",
		                      sl_type_format(arg->type, tb, sizeof(tb)));
	}
	int ord = f->u.fn.ordinality, ne;
	sl_type t = arg->type;
	int cap = (t.id == SL_T_ARRAY && sl_type_elem(t).id == SL_T_ROW && sl_type_elem(t).row
	           ? sl_type_elem(t).row->nfields : 2) + 1;
	rcol *ec = sl_arena_calloc(p->a, sizeof(rcol) * (size_t)(cap + 1));
	if (!ec)
		return sl__plan_error(p, f->line, f->col, SL_ENOMEM, "out of memory");
	ne = elem_cols(p, t, ec);
	if (ord) {
		ec[ne].name = "ORDINALITY";
		ec[ne].type = sl_type_make(SL_T_INT);
		ec[ne].type.notnull = !left_join;
	}
	int nall = ne + ord;
	if (f->ncol_aliases && f->ncol_aliases != nall)
		return sl__plan_error(p, f->line, f->col, SL_EPLAN,
		                      "List of column aliases must have same degree as table; UNNEST "
		                      "gives %d column%s (%s%s), the alias lists %d", nall,
		                      nall == 1 ? "" : "s", t.id == SL_T_MAP ? "key, value"
		                      : ne == 1 ? "the element" : "the row's fields",
		                      ord ? ", the ordinality" : "", f->ncol_aliases);
	rel *r = sl__rel_new(p, left->ncols + nall);
	if (!r)
		return sl__plan_error(p, f->line, f->col, SL_ENOMEM, "out of memory");
	const rcol *keep = r->cols;
	*r = *left;
	r->cols = (rcol *)keep;
	r->ncols = left->ncols + nall;
	memcpy(r->cols, left->cols, sizeof(rcol) * (size_t)left->ncols);
	const char *q = f->alias ? f->alias->name : NULL;
	for (int i = 0; i < nall; i++) {
		rcol *c = &r->cols[left->ncols + i];
		*c = ec[i];
		c->qual = q;
		if (f->ncol_aliases)
			c->name = f->col_aliases[i].name;
		if (left_join)
			c->type.notnull = 0;
	}
	r->node = NULL;
	r->upsert_key = NULL;
	r->mono = r->ukey = NULL;
	r->nukey = 0;
	r->tvf_in = NULL;
	sl_correlate_params cp = {arg, (uint8_t)(left_join != 0), (uint8_t)ord};
	const char *label = corr_label(p, left, arg, r, left_join, ord);
	if (!sl__node_new(p, SL_OPK_CORRELATE, &cp, sizeof(cp), &left->node, 1, NULL, r, label))
		return NULL;
	return r;
}

/* Whether the bound condition x is the constant TRUE. */
static int is_true(const sl_expr *x)
{
	return x->kind == SL_EX_LIT && x->type.id == SL_T_BOOLEAN && !x->lit.is_null &&
	       x->lit.v.i64 != 0;
}

rel *sl__plan_unnest_join(planner *p, const sl_ast_from *j, rel *left)
{
	const sl_ast_from *f = j->u.join.right;
	int type = j->u.join.type;
	if (type != SL_AJ_CROSS && type != SL_AJ_INNER && type != SL_AJ_LEFT && type != SL_AJ_COMMA)
		return sl__plan_error(p, j->line, j->col, SL_ENOTSUP,
		                      "%s JOIN UNNEST is not supported (Flink: CROSS JOIN, JOIN or LEFT "
		                      "JOIN with ON TRUE)", type == SL_AJ_RIGHT ? "RIGHT" : "FULL");
	if (j->u.join.nusing)
		return sl__plan_error(p, j->line, j->col, SL_EPLAN,
		                      "JOIN UNNEST takes ON TRUE, not USING");
	rel *r = sl__plan_unnest(p, f, left, type == SL_AJ_LEFT);
	if (!r || !j->u.join.on)
		return r;
	scope s = {r, NULL, NULL};
	sl_expr *c = sl__bind_expr(p, &s, j->u.join.on);
	if (!c || !sl__is_condition(p, j->u.join.on, c))
		return NULL;
	if (is_true(c))
		return r;
	if (type == SL_AJ_LEFT)
		return sl__plan_error(p, j->u.join.on->line, j->u.join.on->col, SL_ENOTSUP,
		                      "LEFT JOIN UNNEST supports only ON TRUE (as Flink's correlated "
		                      "joins); filter the elements in a WHERE or a subquery");
	return sl__add_filter(p, r, c);
}

rel *sl__plan_unnest_alone(planner *p, const sl_ast_from *f)
{
	rel *one = sl__plan_one_row(p);
	return one ? sl__plan_unnest(p, f, one, 0) : NULL;
}
