/*
 * plan_join_filter.c - the rewrite rule "join-filters" (rewrite.c): a
 * join's conditions over one side's columns only are evaluated by that
 * side before the join, as Flink's FilterJoinRule / JoinConditionPushRule
 * push them (docs/joins.md, "Filters below a join").
 *
 * For a regular, interval or window join J (INNER, LEFT, RIGHT or FULL;
 * not semi / anti, temporal or lookup joins) it collects the conjuncts
 *   - of J's residual (the ON condition, and for an inner JOIN ... ON also
 *     the WHERE, which plan_query.c joins to it), over the side S's
 *     columns: pushed into S when S's rows that fail it can never appear
 *     in J's output, i.e. when S is not a preserved side (INNER: both
 *     sides; LEFT: the right side; RIGHT: the left; FULL: neither);
 *   - of the filter of the Calc that is J's only consumer (the WHERE over
 *     an outer join, or over any join whose projection fused it), over
 *     S's columns: pushed into S when the other side is not preserved
 *     (then removing S's rows only removes joined rows that fail it), or
 *     when the conjunct rejects NULLs (it is not TRUE when every column it
 *     reads is NULL, so the rows that S's removal turns into the other
 *     side's NULL-padded rows fail it above the join as well).  Flink then
 *     also turns the outer join into an inner one; sluice keeps the join's
 *     kind, whose state layout and id would change (below), and the
 *     NULL-padded rows it still emits are dropped by the Calc above;
 * and inserts in front of J's input S a Calc (filter: their AND; the
 * projection: S's columns unchanged, so a view and no copy, op_calc.c).
 *
 * Which conjuncts move: only deterministic ones that cannot fail at run
 * time (pushable below): below the join a conjunct is evaluated over
 * every row of S, also those that would never have joined, so one that
 * raises an error (a division by zero, a failing CAST, a DECIMAL
 * overflow) or reads when it runs (PROCTIME(), CURRENT_WATERMARK(), RAND,
 * a user-defined function) stays where it was.  Not into an input that is
 * an upsert stream (a -D there may carry only the key, which a filter on
 * other columns would drop).
 *
 * State and ids (docs/semantics.md §3): ids were set on the plan as
 * planned (plan_ident.c); J keeps its parameters, layout and id, and
 * every moved conjunct stays where it was too (in J's residual, in the
 * Calc above), so the result does not depend on what J's state holds: a
 * savepoint of the plan without this rule, whose state holds rows the
 * pushed filter would have dropped, restores and answers the same.  The
 * inserted Calc is stateless and gets an id of its own,
 * hash("join-filter:<side>", J's id).  The cost of keeping the conjuncts:
 * one more evaluation per joined row (q20: one comparison per match).
 *
 * 'sluice.plan.join-filters' = 'false' (session) turns the rule off.
 *
 * Planning runs on the caller's thread; nothing here is shared.
 */
#include "plan_int.h"
#include "sluice.h"
#include "../base/hash.h"

#include <stdio.h>
#include <string.h>

#define MAX_CONJ 256

/* The identity text of the Calcs this rule inserts (by pointer: the
 * marker that a join's input is one, so the rule is applied once). */
static const char join_filter_ident[] = "JoinFilter";

/* Flattens AND into conjuncts (at most cap; 0 when more). */
static int conjuncts(sl_expr *e, sl_expr **out, int *n, int cap)
{
	if (e->kind == SL_EX_CALL && e->fn == SL_FN_AND) {
		for (int i = 0; i < e->nargs; i++)
			if (!conjuncts(e->args[i], out, n, cap))
				return 0;
		return 1;
	}
	if (*n == cap)
		return 0;
	out[(*n)++] = e;
	return 1;
}

/* Which sides e reads: bit 0 the left (columns below nl), bit 1 the right. */
static unsigned sides(const sl_expr *e, int nl)
{
	if (e->kind == SL_EX_COL)
		return e->col < nl ? 1u : 2u;
	unsigned s = 0;
	for (int i = 0; i < e->nargs; i++)
		s |= sides(e->args[i], nl);
	return s;
}

static int is_int(sl_type_id t)
{
	return t == SL_T_TINYINT || t == SL_T_SMALLINT || t == SL_T_INT || t == SL_T_BIGINT;
}

/* A CAST from f to t that cannot fail: to the same type of another
 * nullability, length (not shorter) or precision (a TIMESTAMP's), or from
 * an integer to a wider integer or to a floating-point type. */
static int safe_cast(sl_type f, sl_type t)
{
	if (is_int(f.id))
		return (is_int(t.id) && t.id >= f.id) /* sl_type_id orders them by width */
		       || t.id == SL_T_FLOAT || t.id == SL_T_DOUBLE;
	if (f.id != t.id)
		return 0;
	switch (f.id) {
	case SL_T_BOOLEAN: case SL_T_FLOAT: case SL_T_DOUBLE: case SL_T_DATE:
	case SL_T_TIMESTAMP: case SL_T_TIMESTAMP_LTZ:
		return 1;
	case SL_T_CHAR: case SL_T_VARCHAR: case SL_T_BINARY: case SL_T_VARBINARY:
		return t.length >= f.length;
	case SL_T_DECIMAL:
		return t.scale >= f.scale && t.precision - t.scale >= f.precision - f.scale;
	default:
		return 0;
	}
}

/* 1 when e is deterministic and cannot raise an error at run time (the
 * top of the file); a constant part is tried once here. */
static int pushable(planner *p, const sl_expr *e)
{
	if (e->kind != SL_EX_CALL)
		return 1;
	if (sl_expr_is_const(e)) {
		sl_value v;
		sl_err err;
		sl_err_clear(&err);
		return sl_expr_eval_const(e, p->a, &v, &err) == 0;
	}
	switch (e->fn) {
	case SL_FN_EQ: case SL_FN_NE: case SL_FN_LT: case SL_FN_LE: case SL_FN_GT: case SL_FN_GE:
	case SL_FN_AND: case SL_FN_OR: case SL_FN_NOT:
	case SL_FN_IS_NULL: case SL_FN_IS_NOT_NULL: case SL_FN_IS_TRUE: case SL_FN_IS_FALSE:
	case SL_FN_IS_NOT_TRUE: case SL_FN_IS_NOT_FALSE:
	case SL_FN_IS_DISTINCT: case SL_FN_IS_NOT_DISTINCT:
	case SL_FN_IN: case SL_FN_CASE: case SL_FN_COALESCE: case SL_FN_NULLIF:
	case SL_FN_UPPER: case SL_FN_LOWER: case SL_FN_CHAR_LENGTH: case SL_FN_FIELD:
	case SL_FN_GREATEST: case SL_FN_LEAST:
		break;
	case SL_FN_LIKE: /* a constant pattern (and escape), checked at compile time */
		for (int i = 1; i < e->nargs; i++)
			if (!sl_expr_is_const(e->args[i]))
				return 0;
		break;
	case SL_FN_ADD: case SL_FN_SUB: case SL_FN_MUL: case SL_FN_NEG:
		/* integers wrap (fn_arith.c) and doubles do not fail; DECIMAL
		 * overflows raise, and date-time arithmetic is left alone */
		if (!is_int(e->type.id) && e->type.id != SL_T_FLOAT && e->type.id != SL_T_DOUBLE)
			return 0;
		for (int i = 0; i < e->nargs; i++)
			if (e->args[i]->type.id == SL_T_DECIMAL)
				return 0;
		break;
	case SL_FN_CAST:
		if (!safe_cast(e->args[0]->type, e->type))
			return 0;
		break;
	default:
		return 0;
	}
	for (int i = 0; i < e->nargs; i++)
		if (!pushable(p, e->args[i]))
			return 0;
	return 1;
}

/* 1 when e is NULL whenever every column it reads is NULL. */
static int null_if_null(const sl_expr *e)
{
	switch (e->kind) {
	case SL_EX_COL:
		return 1;
	case SL_EX_LIT:
		return e->lit.is_null;
	default:
		break;
	}
	switch (e->fn) {
	case SL_FN_IN: case SL_FN_NOT: case SL_FN_FIELD:
		return null_if_null(e->args[0]);
	case SL_FN_EQ: case SL_FN_NE: case SL_FN_LT: case SL_FN_LE: case SL_FN_GT: case SL_FN_GE:
	case SL_FN_ADD: case SL_FN_SUB: case SL_FN_MUL: case SL_FN_NEG: case SL_FN_CAST:
	case SL_FN_LIKE: case SL_FN_UPPER: case SL_FN_LOWER: case SL_FN_CHAR_LENGTH:
		for (int i = 0; i < e->nargs; i++)
			if (null_if_null(e->args[i]))
				return 1;
		return 0;
	default:
		return 0;
	}
}

/* 1 when condition e is not TRUE (FALSE or NULL) whenever every column it
 * reads is NULL: it rejects the NULL-padded rows of an outer join. */
static int rejects_nulls(const sl_expr *e)
{
	if (null_if_null(e))
		return 1;
	if (e->kind != SL_EX_CALL)
		return 0;
	switch (e->fn) {
	case SL_FN_AND:
		for (int i = 0; i < e->nargs; i++)
			if (rejects_nulls(e->args[i]))
				return 1;
		return 0;
	case SL_FN_OR:
		for (int i = 0; i < e->nargs; i++)
			if (!rejects_nulls(e->args[i]))
				return 0;
		return 1;
	case SL_FN_IS_NOT_NULL:
		return null_if_null(e->args[0]);
	case SL_FN_IS_TRUE:
		return rejects_nulls(e->args[0]);
	default:
		return 0;
	}
}

/* A copy of e with every column reference c replaced by c - by. */
static sl_expr *shift(planner *p, const sl_expr *e, int by)
{
	sl_expr *x = sl_arena_alloc(p->a, sizeof(*x));
	if (!x)
		return NULL;
	*x = *e;
	if (e->kind == SL_EX_COL)
		x->col = e->col - by;
	if (e->nargs) {
		if (!(x->args = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)e->nargs)))
			return NULL;
		for (int i = 0; i < e->nargs; i++)
			if (!(x->args[i] = shift(p, e->args[i], by)))
				return NULL;
	}
	return x;
}

/* The pushable conjuncts of one join, per side. */
typedef struct side_conj {
	sl_expr *c[MAX_CONJ];
	int n;
} side_conj;

static void add(side_conj *s, sl_expr *e)
{
	for (int i = 0; i < s->n; i++)
		if (s->c[i] == e)
			return;
	if (s->n < MAX_CONJ)
		s->c[s->n++] = e;
}

/* The number of (node, input) pairs that node x feeds; *only, the last. */
static int consumers(const sl_pplan *pl, const sl_pnode *x, sl_pnode **only)
{
	int n = 0;
	for (int j = x->id + 1; j < pl->n; j++)
		for (int k = 0; k < pl->nodes[j]->nin; k++)
			if (pl->nodes[j]->in[k] == x) {
				n++;
				*only = pl->nodes[j];
			}
	return n;
}

/* Whether side k (0 left, 1 right) of a join of kind jk keeps its
 * unmatched rows (NULL-padded). */
static int preserved(sl_join_kind jk, int k)
{
	return jk == SL_JOIN_FULL || (jk == SL_JOIN_LEFT && k == 0) || (jk == SL_JOIN_RIGHT && k == 1);
}

/* Collects into sc[0..1] what may move below join j (the top of the file). */
static void collect(planner *p, const sl_pnode *j, side_conj sc[2])
{
	const sl_join_plan *jp = j->params;
	sl_expr *c[MAX_CONJ];
	int n = 0;
	if (jp->residual && conjuncts(jp->residual, c, &n, MAX_CONJ))
		for (int i = 0; i < n; i++) {
			unsigned s = sides(c[i], jp->nl);
			int k = s == 2u;
			if ((s == 1u || s == 2u) && !preserved(jp->kind, k) && pushable(p, c[i]))
				add(&sc[k], c[i]);
		}
	sl_pnode *above = NULL;
	if (consumers(&p->plan, j, &above) != 1 || above->kind != SL_OPK_CALC || above->nin != 1)
		return;
	const sl_calc_params *cp = above->params;
	n = 0;
	if (!cp->filter || !conjuncts(cp->filter, c, &n, MAX_CONJ))
		return;
	for (int i = 0; i < n; i++) {
		unsigned s = sides(c[i], jp->nl);
		int k = s == 2u;
		if ((s == 1u || s == 2u) && (!preserved(jp->kind, !k) || rejects_nulls(c[i])) &&
		    pushable(p, c[i]))
			add(&sc[k], c[i]);
	}
}

/* Inserts before join j a Calc over its input k that keeps the rows for
 * which every conjunct of sc holds (over j's columns; k = 1: shifted to
 * the right input's). */
static int insert_filter(planner *p, sl_pnode *j, int k, const side_conj *sc)
{
	const sl_join_plan *jp = j->params;
	sl_pnode *in = j->in[k];
	sl_expr *args[MAX_CONJ];
	for (int i = 0; i < sc->n; i++)
		if (!(args[i] = shift(p, sc->c[i], k ? jp->nl : 0)))
			return SL_ENOMEM;
	sl_expr *filter = args[0];
	if (sc->n > 1 && !(filter = sl_expr_call(p->a, SL_FN_AND, args, sc->n, NULL, 0, p->err)))
		return p->err->code ? p->err->code : SL_ENOMEM;
	sl_calc_params *cp = sl_arena_alloc(p->a, sizeof(*cp));
	sl_expr **proj = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(in->nout + 1));
	sl_pnode *f = sl_arena_calloc(p->a, sizeof(*f));
	sl_pnode **fin = sl_arena_alloc(p->a, sizeof(sl_pnode *));
	if (!cp || !proj || !f || !fin)
		return SL_ENOMEM;
	for (int i = 0; i < in->nout; i++)
		if (!(proj[i] = sl_expr_col(p->a, i, in->out_types[i])))
			return SL_ENOMEM;
	cp->filter = filter;
	cp->proj = proj;
	cp->nproj = in->nout;
	fin[0] = in;
	f->kind = SL_OPK_CALC;
	f->params = cp;
	f->nin = 1;
	f->in = fin;
	f->nout = in->nout;
	f->out_types = in->out_types;
	f->out_names = in->out_names;
	f->changelog = in->changelog;
	f->upsert_key = in->upsert_key;
	f->rowtime = in->rowtime;
	f->state = SL_STATE_NONE;
	f->ident = join_filter_ident;
	/* the label as plan_query.c's calc_label prints it (plan_prune.c
	 * relabels it when it narrows), with the decoration of sl__node_new */
	sl_buf s;
	sl_buf_init(&s);
	char buf[1024];
	sl_buf_printf(&s, "Calc(where=[%s], select=[", sl_expr_format(filter, in->out_names, buf,
	                                                               sizeof(buf)));
	for (int i = 0; i < in->nout; i++)
		sl_buf_printf(&s, "%s%s", i ? ", " : "", in->out_names[i]);
	const char *kind = in->changelog == SL_CHANGELOG_APPEND ? "append-only" : "updating";
	int rt = in->rowtime >= 0;
	sl_buf_printf(&s, "]) [%s%s%s]", kind, rt ? ", rowtime=" : "", rt ? in->out_names[in->rowtime] : "");
	f->label = sl_arena_strndup(p->a, s.p, s.len);
	sl_buf_deinit(&s);
	if (!f->label)
		return SL_ENOMEM;
	if (sl__node_struct(p, f))
		return p->err->code ? p->err->code : SL_ENOMEM;
	char key[32];
	snprintf(key, sizeof(key), "join-filter:%d", k);
	uint64_t h = sl_hash_bytes(key, strlen(key), sl_hash_bytes(j->uid, strlen(j->uid), 0));
	snprintf(f->uid, sizeof(f->uid), "%016llx", (unsigned long long)h);
	h = sl_hash_bytes(key, strlen(key), sl_hash_bytes(j->uid_v1, strlen(j->uid_v1), 0));
	snprintf(f->uid_v1, sizeof(f->uid_v1), "%016llx", (unsigned long long)h);

	/* f takes j's place in the order: after its input, before j */
	sl_pplan *pl = &p->plan;
	if (pl->n == pl->cap) {
		int cap = pl->cap ? pl->cap * 2 : 32;
		sl_pnode **nn = sl_arena_alloc(p->a, sizeof(*nn) * (size_t)cap);
		if (!nn)
			return SL_ENOMEM;
		memcpy(nn, pl->nodes, sizeof(*nn) * (size_t)pl->n);
		pl->nodes = nn;
		pl->cap = cap;
	}
	int at = j->id;
	memmove(&pl->nodes[at + 1], &pl->nodes[at], sizeof(*pl->nodes) * (size_t)(pl->n - at));
	pl->nodes[at] = f;
	pl->n++;
	for (int i = at; i < pl->n; i++)
		pl->nodes[i]->id = i;
	j->in[k] = f;
	return 0;
}

/* Whether join node j is one this rule handles. */
static int candidate(const sl_pnode *j)
{
	if (j->kind != SL_OPK_JOIN && j->kind != SL_OPK_INTERVAL_JOIN && j->kind != SL_OPK_WINDOW_JOIN)
		return 0;
	const sl_join_plan *jp = j->params;
	return j->nin == 2 && j->in[0] && j->in[1] && jp->kind <= SL_JOIN_FULL;
}

/* The rule (rewrite.c): 1 when the plan changed, 0 when not, or a negative
 * SL_E* code with p->err set. */
int sl__plan_join_filters(planner *p)
{
	int on = 1;
	if (sl_opts_bool(p->session, "sluice.plan.join-filters", 1, &on, p->err))
		return p->err->code ? p->err->code : SL_EINVAL;
	if (!on)
		return 0;
	int changed = 0;
	for (int i = 0; i < p->plan.n; i++) {
		sl_pnode *j = p->plan.nodes[i];
		if (!candidate(j))
			continue;
		side_conj sc[2];
		sc[0].n = sc[1].n = 0;
		collect(p, j, sc);
		for (int k = 0; k < 2; k++) {
			if (!sc[k].n || j->in[k]->ident == join_filter_ident ||
			    j->in[k]->changelog == SL_CHANGELOG_UPSERT)
				continue;
			int rc = insert_filter(p, j, k, &sc[k]);
			if (rc)
				return rc == SL_ENOMEM ? sl_err_set(p->err, SL_ENOMEM, "out of memory") : rc;
			changed = 1;
			i++; /* j moved one place on */
		}
	}
	return changed;
}
