/*
 * op_ident.c - the structural identity of an operator: the canonical,
 * versioned text of its kind and structural parameters that its state id
 * is a hash of (src/plan/plan_ident.c chains it through the inputs' ids;
 * docs/semantics.md §3, docs/checkpoints.md).
 *
 * An operator's state survives a savepoint restore into an edited job when
 * its id is unchanged, so the text holds exactly what the layout and the
 * meaning of its state depend on, and nothing that a harmless rewrite of
 * the query changes:
 *
 *   - the kind, under a frozen name of this file (display names and
 *     EXPLAIN labels stay free to change);
 *   - types, never names or aliases, in a frozen spelling of this file:
 *     logical type with precision and scale, without nullability and
 *     without the length of VARCHAR / VARBINARY (neither changes how a
 *     value is stored);
 *   - the types of what the operator keys its state by (GROUP BY,
 *     PARTITION BY, join and normalize keys, ORDER BY columns with their
 *     direction), in key order, and of what it accumulates (aggregate
 *     function, argument and result types, DISTINCT, retraction of
 *     MIN/MAX values, LISTAGG's separator, a UDAF's accumulator size);
 *   - the window (kind, size, slide, offset, time zone, event or
 *     processing time), the join kind (and for interval and window joins
 *     the side whose time the output keeps), Top-N's mode, function and
 *     rank range, deduplication's keep-first/last, the set operation;
 *   - an operator that keeps whole input rows in its state (joins, Top-N,
 *     deduplication, set operations, ChangelogNormalize, OVER, the SESSION
 *     TVF) also its input columns' types in order: the stored rows are
 *     that layout;
 *   - a stateless operator that computes or passes columns (Calc, Union,
 *     Values, ConstraintEnforcer, Sink, Correlate) only its kind and the multiset of
 *     its output types: neither its expressions (`v > 1` and `1 < v`, a
 *     projection's text, aliases) nor its column order (wiring: what an
 *     operator downstream stores is covered by that operator's own types)
 *     are part of it;
 *   - a scan: its table, connector and format, whether it has a rowtime
 *     and a watermark; not its columns (its state is its position in the
 *     source: a column added to the table keeps the ids of every operator
 *     that does not keep it in its state).
 *
 * Never part of it: expressions (filters, projections, residual join
 * conditions, HAVING, FILTER clauses, watermark expressions, interval join
 * bounds), input column positions (key columns are identified by type and
 * order within the key), ALLOWED LATENESS and the ON LATE policy, mini-
 * batching, a state TTL (checked apart: graph.c), and EXPLAIN text.  A
 * change of any of those keeps the ids, as in Flink, whose uids do not
 * depend on them either; a change of what is listed above changes the id
 * and a restore refuses the operator's state by name.
 *
 * The text starts with SL_OP_IDENT_VERSION; it is frozen per version: a
 * change of what a kind's text holds must come with a new version, and
 * restores of snapshots written under the old one must keep matching
 * (the label-hash ids of version 1 are kept for that, plan_ident.c).
 *
 * Pure function of its arguments; no state, any thread.
 */
#include "op_ident.h"
#include "join.h"
#include "op_match.h"
#include "op_over.h"
#include "op_rank.h"
#include "../format/format.h"
#include "sluice.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The frozen name of each kind in identity texts. */
static const char *kind_name(sl_op_kind k)
{
	switch (k) {
	case SL_OPK_SCAN: return "Scan";
	case SL_OPK_VALUES: return "Values";
	case SL_OPK_CALC: return "Calc";
	case SL_OPK_UNION: return "Union";
	case SL_OPK_CONSTRAINT: return "ConstraintEnforcer";
	case SL_OPK_SINK: return "Sink";
	case SL_OPK_WINDOW_ASSIGN: return "WindowTableFunction";
	case SL_OPK_SESSION_ASSIGN: return "SessionWindowTableFunction";
	case SL_OPK_LOOKUP_JOIN: return "LookupJoin";
	case SL_OPK_GROUP_AGG: return "GroupAggregate";
	case SL_OPK_WINDOW_AGG: return "WindowAggregate";
	case SL_OPK_SESSION_AGG: return "SessionWindowAggregate";
	case SL_OPK_OVER_AGG: return "OverAggregate";
	case SL_OPK_MATCH: return "MatchRecognize";
	case SL_OPK_JOIN: return "Join";
	case SL_OPK_SEMI_JOIN: return "SemiJoin";
	case SL_OPK_INTERVAL_JOIN: return "IntervalJoin";
	case SL_OPK_WINDOW_JOIN: return "WindowJoin";
	case SL_OPK_TEMPORAL_JOIN: return "TemporalJoin";
	case SL_OPK_RANK: return "Rank";
	case SL_OPK_DEDUP: return "Deduplicate";
	case SL_OPK_WINDOW_RANK: return "WindowRank";
	case SL_OPK_SET_OP: return "SetOp";
	case SL_OPK_CHANGELOG_NORMALIZE: return "ChangelogNormalize";
	case SL_OPK_LOCAL_WINDOW_AGG: return "LocalWindowAggregate";
	case SL_OPK_CORRELATE: return "Correlate";
	case SL_OPK_NONE:
	case SL_OPK__COUNT: break;
	}
	return NULL;
}

/* ---- canonical pieces ------------------------------------------------------ */

/* The text being built; an append that fails latches `failed`, so a text
 * is never returned truncated. */
typedef struct tbuf {
	sl_buf *b;
	int failed;
} tbuf;

static void tputs(tbuf *o, const char *s)
{
	o->failed |= sl_buf_puts(o->b, s) != 0;
}

static void tputc(tbuf *o, char c)
{
	o->failed |= sl_buf_putc(o->b, c) != 0;
}

static void tprintf(tbuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tprintf(tbuf *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || sl_buf_reserve(o->b, (size_t)n + 1)) {
		o->failed = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(o->b->p + o->b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	o->b->len += (size_t)n;
}

/* The frozen spelling of a type (see the file header). */
static void put_type(tbuf *o, sl_type t)
{
	switch ((sl_type_id)t.id) {
	case SL_T_NULL: tputs(o, "NULL"); break;
	case SL_T_BOOLEAN: tputs(o, "BOOLEAN"); break;
	case SL_T_TINYINT: tputs(o, "TINYINT"); break;
	case SL_T_SMALLINT: tputs(o, "SMALLINT"); break;
	case SL_T_INT: tputs(o, "INT"); break;
	case SL_T_BIGINT: tputs(o, "BIGINT"); break;
	case SL_T_FLOAT: tputs(o, "FLOAT"); break;
	case SL_T_DOUBLE: tputs(o, "DOUBLE"); break;
	case SL_T_DECIMAL: tprintf(o, "DECIMAL(%d,%d)", t.precision, t.scale); break;
	case SL_T_CHAR: tprintf(o, "CHAR(%d)", (int)t.length); break;
	case SL_T_VARCHAR: tputs(o, "VARCHAR"); break;
	case SL_T_BINARY: tprintf(o, "BINARY(%d)", (int)t.length); break;
	case SL_T_VARBINARY: tputs(o, "VARBINARY"); break;
	case SL_T_DATE: tputs(o, "DATE"); break;
	case SL_T_TIME: tprintf(o, "TIME(%d)", t.precision); break;
	case SL_T_TIMESTAMP: tprintf(o, "TIMESTAMP(%d)", t.precision); break;
	case SL_T_TIMESTAMP_LTZ: tprintf(o, "TIMESTAMP_LTZ(%d)", t.precision); break;
	case SL_T_INTERVAL_DT: tputs(o, "INTERVAL_DT"); break;
	case SL_T_INTERVAL_YM: tputs(o, "INTERVAL_YM"); break;
	case SL_T_ROW:
		tputs(o, "ROW<");
		for (int i = 0; t.row && i < t.row->nfields; i++) {
			if (i)
				tputc(o, ',');
			put_type(o, t.row->fields[i].type);
		}
		tputc(o, '>');
		break;
	case SL_T_ARRAY:
	case SL_T_MAP:
		tputs(o, t.id == SL_T_ARRAY ? "ARRAY<" : "MAP<");
		for (int i = 0; t.row && i < t.row->nfields; i++) {
			if (i)
				tputc(o, ',');
			put_type(o, t.row->fields[i].type);
		}
		tputc(o, '>');
		break;
	default: tprintf(o, "T%d", t.id); break;
	}
}

/* " name=[t0,t1,...]": types in order. */
static void put_types(tbuf *o, const char *name, const sl_type *t, int n)
{
	tprintf(o, " %s=[", name);
	for (int i = 0; i < n; i++) {
		if (i)
			tputc(o, ',');
		put_type(o, t[i]);
	}
	tputc(o, ']');
}

/* " name=[...]": the types of columns cols[0..n) of t (in that order);
 * desc / nulls_first (may be NULL) mark ORDER BY keys. */
static int put_cols(tbuf *o, const char *name, const sl_type *t, int nt, const int *cols,
                    int n, const uint8_t *desc, const uint8_t *nulls_first, sl_err *err)
{
	tprintf(o, " %s=[", name);
	for (int i = 0; i < n; i++) {
		if (!t || cols[i] < 0 || cols[i] >= nt)
			return sl_err_set(err, SL_EINVAL, "operator identity: column %d of %s is not an "
			                  "input column", cols[i], name);
		if (i)
			tputc(o, ',');
		put_type(o, t[cols[i]]);
		if (desc)
			tputs(o, desc[i] ? " DESC" : " ASC");
		if (nulls_first)
			tputs(o, nulls_first[i] ? " NULLS FIRST" : " NULLS LAST");
	}
	tputc(o, ']');
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* " out={t,...}": the multiset of the types, sorted by their spelling. */
static int put_multiset(tbuf *o, const sl_type *t, int n, sl_err *err)
{
	sl_buf tmp;
	sl_buf_init(&tmp);
	tbuf tt = {&tmp, 0};
	size_t *off = calloc((size_t)n + 1, sizeof(size_t));
	const char **s = calloc((size_t)n + 1, sizeof(char *));
	tt.failed = !off || !s;
	for (int i = 0; !tt.failed && i < n; i++) {
		off[i] = tmp.len;
		put_type(&tt, t[i]);
		tputc(&tt, 0);
	}
	if (!tt.failed) {
		for (int i = 0; i < n; i++)
			s[i] = tmp.p + off[i];
		qsort(s, (size_t)n, sizeof(char *), cmp_str);
		tputs(o, " out={");
		for (int i = 0; i < n; i++)
			tprintf(o, "%s%s", i ? "," : "", s[i]);
		tputc(o, '}');
	}
	free(off);
	free(s);
	sl_buf_deinit(&tmp);
	return tt.failed ? sl_err_set(err, SL_ENOMEM, "out of memory") : 0;
}

static void put_window(tbuf *o, const sl_window_spec *w)
{
	static const char *const wk[] = {"TUMBLE", "HOP", "CUMULATE", "SESSION"};
	tprintf(o, " window=%s(size=%lld,slide=%lld,offset=%lld,tz=%s,%s)",
	        (unsigned)w->kind < 4 ? wk[w->kind] : "?", (long long)w->size,
	        (long long)w->slide, (long long)w->offset, w->tz ? w->tz : "UTC",
	        w->proc ? "proctime" : "rowtime");
	if (w->attached) /* only then, so other windows' identities stay as they were */
		tprintf(o, " attached(end=%d)", w->time_col);
}

/* One aggregate call: FN(arg types)->result, with its state-bearing flags. */
static void put_agg(tbuf *o, const sl_agg *a, const sl_type *in, int nin)
{
	tprintf(o, "%s(", a->vt->name);
	if (a->distinct)
		tputs(o, "DISTINCT ");
	if (a->vt->udf) {
		for (int i = 0; i < a->nargs && i < SL_AGG_MAX_ARGS; i++) {
			if (i)
				tputc(o, ',');
			int c = a->arg_cols[i];
			if (in && c >= 0 && c < nin)
				put_type(o, in[c]);
		}
	} else if (a->arg_col < 0) {
		tputc(o, '*');
	} else {
		put_type(o, a->arg_type);
	}
	tputs(o, ")->");
	put_type(o, a->out_type);
	if (a->retract)
		tputs(o, " retract");
	if (a->sep)
		tprintf(o, " sep=%u:%.*s", (unsigned)a->seplen, (int)a->seplen, a->sep);
	if (a->vt->udf)
		tprintf(o, " acc=%u", (unsigned)a->vt->acc_size);
}

static void put_aggs(tbuf *o, const sl_agg *aggs, int n, const sl_type *in, int nin)
{
	tputs(o, " aggs=[");
	for (int i = 0; i < n; i++) {
		if (i)
			tputs(o, ", ");
		put_agg(o, &aggs[i], in, nin);
	}
	tputc(o, ']');
}

/* ---- per kind ---------------------------------------------------------------- */

static int scan_ident(tbuf *o, const sl_scan_plan *p)
{
	const sl_decoder *dec = p->push_dec ? p->push_dec : p->source ? p->source->dec : NULL;
	tprintf(o, " table=%s connector=%s format=%s rowtime=%s watermark=%s",
	        p->table ? p->table : "", p->source ? p->source->vt->name : "push",
	        dec ? dec->vt->name : "none", p->rowtime_col >= 0 ? "yes" : "no",
	        p->watermark ? "yes" : "no");
	return 0;
}

static int join_ident(tbuf *o, sl_op_kind kind, const sl_join_plan *p, sl_err *err)
{
	static const char *const jk[] = {"INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI"};
	tprintf(o, " kind=%s", (unsigned)p->kind < 6 ? jk[p->kind] : "?");
	int rc = put_cols(o, "lkeys", p->ltypes, p->nl, p->lkeys, p->nkeys, NULL, NULL, err);
	if (!rc && kind != SL_OPK_LOOKUP_JOIN)
		rc = put_cols(o, "rkeys", p->rtypes, p->nr, p->rkeys, p->nkeys, NULL, NULL, err);
	if (rc)
		return rc;
	if (kind != SL_OPK_LOOKUP_JOIN) /* stateless: the probe row is not kept */
		put_types(o, "left", p->ltypes, p->nl);
	put_types(o, "right", p->rtypes, p->nr);
	if (kind == SL_OPK_INTERVAL_JOIN || kind == SL_OPK_WINDOW_JOIN)
		tprintf(o, " rowtime=%d", p->time_side);
	if (kind == SL_OPK_WINDOW_JOIN)
		tprintf(o, " tz=%s", p->tz ? p->tz : "UTC");
	return 0;
}

static int group_agg_ident(tbuf *o, const sl_group_agg_plan *p, const sl_type *in, int nin,
                           sl_err *err)
{
	int rc = put_cols(o, "keys", in, nin, p->key_cols, p->nkeys, NULL, NULL, err);
	if (!rc)
		put_aggs(o, p->aggs, p->naggs, in, nin);
	return rc;
}

static int window_agg_ident(tbuf *o, const sl_window_agg_plan *p, const sl_type *in, int nin,
                            sl_err *err)
{
	put_window(o, &p->win);
	int rc = put_cols(o, "keys", in, nin, p->key_cols, p->nkeys, NULL, NULL, err);
	if (rc)
		return rc;
	put_aggs(o, p->aggs, p->naggs, in, nin);
	tputs(o, " time=");
	put_type(o, p->time_type);
	return 0;
}

static int over_ident(tbuf *o, const sl_over_plan *p, const sl_type *in, int nin, sl_err *err)
{
	int rc = put_cols(o, "keys", in, nin, p->key_cols, p->nkeys, NULL, NULL, err);
	if (!rc)
		rc = put_cols(o, "time", in, nin, &p->time_col, 1, NULL, NULL, err);
	if (!rc)
		rc = put_cols(o, "sort", in, nin, p->sort_cols, p->nsort, p->sort_desc,
		              p->sort_nulls_first, err);
	if (rc)
		return rc;
	tprintf(o, " frame=%s preceding=%lld", p->rows ? "ROWS" : "RANGE",
	        (long long)p->preceding);
	if (p->retract)
		tprintf(o, " retract=1");
	put_aggs(o, p->aggs, p->naggs, in, nin);
	put_types(o, "in", in, nin);
	return 0;
}

static int rank_ident(tbuf *o, const sl_rank_plan *p, const sl_type *in, int nin, sl_err *err)
{
	static const char *const mode[] = {"TOPN", "PROCTIME_FIRST", "PROCTIME_LAST",
	                                   "ROWTIME_FIRST", "ROWTIME_LAST", "WINDOW"};
	static const char *const fn[] = {"ROW_NUMBER", "RANK", "DENSE_RANK"};
	tprintf(o, " mode=%s", (unsigned)p->mode < 6 ? mode[p->mode] : "?");
	if (p->mode == SL_RANK_TOPN || p->mode == SL_RANK_WINDOW)
		tprintf(o, " fn=%s range=[%lld,%lld]", (unsigned)p->fn < 3 ? fn[p->fn] : "?",
		        (long long)p->lo, (long long)p->n);
	int rc = put_cols(o, "keys", in, nin, p->key_cols, p->nkeys, NULL, NULL, err);
	if (!rc)
		rc = put_cols(o, "order", in, nin, p->order_cols, p->norder, p->desc, p->nulls_first,
		              err);
	if (!rc && p->mode != SL_RANK_TOPN && p->time_col >= 0)
		rc = put_cols(o, "time", in, nin, &p->time_col, 1, NULL, NULL, err);
	if (rc)
		return rc;
	if (p->mode == SL_RANK_TOPN) {
		tprintf(o, " retract=%d", p->retract);
		if (p->update_fast &&
		    (rc = put_cols(o, "update_fast_key", in, nin, p->ukey_cols, p->nukey, NULL, NULL,
		                   err)))
			return rc;
	}
	put_types(o, "in", in, nin);
	return 0;
}

static int kind_ident(tbuf *o, sl_op_kind kind, const void *plan, const sl_type *in, int nin,
                      const sl_type *out, int nout, sl_err *err)
{
	switch (kind) {
	case SL_OPK_VALUES:
	case SL_OPK_CALC:
	case SL_OPK_UNION:
	case SL_OPK_CONSTRAINT:
	case SL_OPK_SINK:
	case SL_OPK_CORRELATE:
		if (!out && nout > 0)
			break;
		return put_multiset(o, out, nout, err);
	case SL_OPK_SCAN:
		return scan_ident(o, plan);
	case SL_OPK_WINDOW_ASSIGN:
		put_window(o, plan);
		return 0;
	case SL_OPK_SESSION_ASSIGN: {
		const sl_assign_ident *s = plan;
		put_window(o, &s->win);
		int rc = put_cols(o, "keys", in, nin, s->key_cols, s->nkeys, NULL, NULL, err);
		if (!rc)
			put_types(o, "in", in, nin);
		return rc;
	}
	case SL_OPK_LOOKUP_JOIN:
	case SL_OPK_JOIN:
	case SL_OPK_SEMI_JOIN:
	case SL_OPK_INTERVAL_JOIN:
	case SL_OPK_WINDOW_JOIN:
	case SL_OPK_TEMPORAL_JOIN:
		return join_ident(o, kind, plan, err);
	case SL_OPK_GROUP_AGG:
		return group_agg_ident(o, plan, in, nin, err);
	case SL_OPK_WINDOW_AGG:
	case SL_OPK_SESSION_AGG:
	case SL_OPK_LOCAL_WINDOW_AGG:
		return window_agg_ident(o, plan, in, nin, err);
	case SL_OPK_OVER_AGG:
		return over_ident(o, plan, in, nin, err);
	case SL_OPK_MATCH: {
		const sl_match_plan *m = plan;
		int rc = put_cols(o, "keys", in, nin, m->key_cols, m->nkeys, NULL, NULL, err);
		if (!rc)
			rc = put_cols(o, "time", in, nin, &m->time_col, 1, NULL, NULL, err);
		if (rc)
			return rc;
		tprintf(o, " match=%s", m->text);
		put_types(o, "in", in, nin);
		return 0;
	}
	case SL_OPK_RANK:
	case SL_OPK_DEDUP:
	case SL_OPK_WINDOW_RANK:
		return rank_ident(o, plan, in, nin, err);
	case SL_OPK_SET_OP: {
		const sl_set_op_ident *s = plan;
		tprintf(o, " op=%s all=%d", s->kind == SL_SETOP_INTERSECT ? "INTERSECT" : "EXCEPT",
		        s->all);
		put_types(o, "in", in, nin);
		return 0;
	}
	case SL_OPK_CHANGELOG_NORMALIZE: {
		const sl_keys_ident *k = plan;
		int rc = put_cols(o, "keys", in, nin, k->key_cols, k->nkeys, NULL, NULL, err);
		if (!rc)
			put_types(o, "in", in, nin);
		return rc;
	}
	case SL_OPK_NONE:
	case SL_OPK__COUNT:
		break;
	}
	return sl_err_set(err, SL_EINVAL, "operator identity: no parameters for kind %d",
	                  (int)kind);
}

int sl_op_struct_ident(sl_buf *out, sl_op_kind kind, const void *plan, const sl_type *in_types,
                       int nin, const sl_type *out_types, int nout, sl_err *err)
{
	const char *name = kind_name(kind);
	int stateless = kind == SL_OPK_VALUES || kind == SL_OPK_CALC || kind == SL_OPK_UNION ||
	                kind == SL_OPK_CONSTRAINT || kind == SL_OPK_SINK ||
	                kind == SL_OPK_CORRELATE;
	if (!name || (!plan && !stateless))
		return sl_err_set(err, SL_EINVAL, "operator identity: no structural identity for "
		                  "operator kind %d", (int)kind);
	size_t start = out->len;
	tbuf o = {out, 0};
	tprintf(&o, "%s %s", SL_OP_IDENT_VERSION, name);
	int rc = kind_ident(&o, kind, plan, in_types, nin, out_types, nout, err);
	tputc(&o, 0);
	if (!rc && o.failed)
		rc = sl_err_set(err, SL_ENOMEM, "out of memory");
	if (rc) {
		out->len = start;
		return rc;
	}
	out->len--; /* the text, NUL-terminated */
	return 0;
}
