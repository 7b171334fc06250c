/*
 * plan_sink.c - what stands between a query and the sink it is written
 * to: the implicit casts to the sink's column types and Flink's sink
 * constraints.
 *
 *   Calc(cast to sink types)   each query column whose type differs from
 *       its sink column's is CAST.  Lengths follow
 *       'table.exec.sink.type-length-enforcer': IGNORE (Flink's default)
 *       writes strings and bytes whole into CHAR(n)/VARCHAR(n)/BINARY(n)/
 *       VARBINARY(n) columns, neither trimmed nor padded; TRIM_PAD trims
 *       them to n and pads CHAR(n) with spaces and BINARY(n) with zero
 *       bytes (the CAST's own rules).
 *   ConstraintEnforcer         'table.exec.sink.not-null-enforcer': a NULL
 *       in a NOT NULL column (PRIMARY KEY columns are NOT NULL, as in
 *       Flink) stops the job (ERROR, the default) or drops the row (DROP);
 *       op_constraint.c.
 *
 * Both are left out when they have nothing to do.
 */
#include "plan_int.h"
#include "sluice.h"

#include <string.h>
#include <strings.h>

/* An enum-valued session option: index into names (case-insensitive, as
 * Flink parses enum options), def when absent, -1 with p->err set. */
static int enum_opt(planner *p, const char *key, const char *const *names, int n, int def)
{
	const char *v = sl_opts_get(p->session, key);
	if (!v)
		return def;
	for (int i = 0; i < n; i++)
		if (!strcasecmp(v, names[i]))
			return i;
	sl_err_set(p->err, SL_EINVAL, "option '%s': '%s' is not %s or %s", key, v, names[0],
	           names[1]);
	return -1;
}

/* The type a query column of type q is cast to for a sink column of type
 * s; under IGNORE a length is not applied. */
static sl_type sink_target(sl_type q, sl_type s, int trim_pad)
{
	s.notnull = 0;
	if (trim_pad || s.length == SL_STRING_LEN)
		return s;
	if (sl_type_is_string(s)) {
		if (sl_type_is_string(q)) {
			q.notnull = 0;
			return q;
		}
		return sl_type_varchar(SL_STRING_LEN);
	}
	if (sl_type_is_binary(s)) {
		if (sl_type_is_binary(q)) {
			q.notnull = 0;
			return q;
		}
		sl_type b = sl_type_make(SL_T_VARBINARY);
		return b;
	}
	return s;
}

/* Casts the columns of in to the sink's types where they differ. */
static rel *cast_to(planner *p, rel *in, const sl_field *f, int n, int trim_pad)
{
	sl_type *tt = sl_arena_alloc(p->a, sizeof(sl_type) * (size_t)(n + 1));
	int same = 1;
	for (int i = 0; i < n; i++) {
		sl_type a = in->cols[i].type;
		tt[i] = sink_target(a, f[i].type, trim_pad);
		a.notnull = 0;
		if (!sl_type_equal(a, tt[i]))
			same = 0;
	}
	if (same)
		return in;
	sl_expr **x = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		x[i] = sl_expr_cast(p->a, sl_expr_col(p->a, i, in->cols[i].type), tt[i], p->err);
		if (!x[i])
			return NULL;
	}
	rel *r = sl__rel_new(p, n);
	for (int i = 0; i < n; i++) {
		r->cols[i].name = f[i].name;
		r->cols[i].type = x[i]->type;
	}
	r->updating = in->updating;
	r->upd_op = in->upd_op;
	sl_calc_params cp = {NULL, x, n};
	if (!sl__node_new(p, SL_OPK_CALC, &cp, sizeof(cp), &in->node, 1, NULL, r,
	                  "Calc(cast to sink types)"))
		return NULL;
	return r;
}

/* The ConstraintEnforcer for the NOT NULL columns of t, if it has any. */
static rel *not_null(planner *p, rel *in, const sl_table_def *t, int drop)
{
	int *cols = sl_arena_alloc(p->a, sizeof(int) * (size_t)(t->ncols + 1));
	const char **names = sl_arena_alloc(p->a, sizeof(char *) * (size_t)(t->ncols + 1));
	int n = 0, k = 0;
	sl_buf lb;
	sl_buf_init(&lb);
	for (int c = 0; c < t->ncols; c++) {
		if (!sl__sink_writes(t, c))
			continue;
		int nn = t->cols[c].type.notnull;
		for (int j = 0; j < t->npk; j++)
			nn |= t->pk[j] == c;
		if (nn) {
			cols[n] = k;
			names[n] = t->cols[c].name;
			sl_buf_printf(&lb, "%s%s", n ? ", " : "", names[n]);
			n++;
		}
		k++;
	}
	if (!n) {
		sl_buf_deinit(&lb);
		return in;
	}
	const char *label = sl_arena_printf(p->a, "ConstraintEnforcer[NotNullEnforcer(fields=[%s]%s)]",
	                                    sl_buf_cstr(&lb), drop ? ", drop" : "");
	sl_buf_deinit(&lb);
	sl_constraint_params cp = {cols, names, n, drop};
	rel *r = sl__rel_new(p, in->ncols);
	memcpy(r->cols, in->cols, sizeof(rcol) * (size_t)in->ncols);
	r->rowtime = r->proctime = -1;
	r->updating = in->updating;
	r->upd_op = in->upd_op;
	r->upsert_key = in->upsert_key;
	if (!sl__node_new(p, SL_OPK_CONSTRAINT, &cp, sizeof(cp), &in->node, 1, NULL, r, label))
		return NULL;
	return r;
}

rel *sl__plan_sink_input(planner *p, rel *in, const sl_table_def *t, const sl_field *f, int n)
{
	static const char *const len_names[] = {"IGNORE", "TRIM_PAD"};
	static const char *const nn_names[] = {"ERROR", "DROP"};
	int trim_pad = enum_opt(p, "table.exec.sink.type-length-enforcer", len_names, 2, 0);
	int drop = enum_opt(p, "table.exec.sink.not-null-enforcer", nn_names, 2, 0);
	if (trim_pad < 0 || drop < 0)
		return NULL;
	rel *r = cast_to(p, in, f, n, trim_pad);
	return r ? not_null(p, r, t, drop) : NULL;
}
