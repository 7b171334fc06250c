/*
 * op_scan.c - the root of every pipeline: reads a source, computes the
 * table's computed columns and assigns watermarks.
 *
 * INTERFACE ROUTINES
 *   open       opens the source (conn.h: the planner only configured it,
 *              so EXPLAIN touches no file), allocates the batches
 *   pump       reads one batch from the source (a seed batch only sets
 *              splits' initial watermarks), evaluates computed columns,
 *              sets each row's W_before and emits the batch, then the
 *              watermark after its last row
 *   snapshot   the source's watermark, then the source's positions (with
 *              its splits' watermarks)
 *   finish     nothing: the graph sends +infinity after the last batch
 *   commit     the source's commit (a checkpoint's positions are durable:
 *              a Kafka source commits its offsets); only for sources that
 *              have one (scan_commit_vtab), NULL for the others
 *   pre_commit with commit: the source's pre_commit at the barrier, in this
 *              process (the snapshot may be written by a forked child)
 *
 * A source that keeps splits (sl_source.split_wm) but has none yet (a
 * Kafka source instance that owns no partition and waits for partition
 * discovery) is idle until its first rows.
 *
 * Watermark (docs/semantics.md §1, docs/parallel.md §4).  A split of the
 * source (a file, a range of a large file; the whole source when it has no
 * splits, conn.h) is one partition with its own W: W starts at -infinity,
 * or at the initial watermark a seed batch gives it (conn.h: the watermark
 * expression of a row before a file's range, computed by seed_splits);
 * for each row r of the split in arrival order, W_before(r) = W, then
 * W = max(W, expr(r)) unless expr(r) is NULL.  Every batch holds rows of
 * one split.  The watermark the scan emits after a batch is the source's:
 * the minimum of W over the splits that can still produce rows, started or
 * not (a finished split counts as +infinity).  The splits' W live in the
 * source (sl_source.split_wm), which saves them with the splits' positions.
 * A NULL rowtime is bad input: the job stops with an error naming the
 * source's position for that row; so is a NULL in a column declared NOT
 * NULL (Flink reads it and then computes with a value that is not there).
 *
 * The output batch is a view: physical columns point at the source batch's
 * vectors, computed columns at vectors owned here; nothing is copied.
 * With column pruning (sl_scan_plan.proj, src/plan/plan_prune.c) the
 * operator emits a view of the columns the query reads (none at all for
 * COUNT(*) or a cross join's side that reads nothing); the watermark,
 * the rowtime and the NOT NULL checks still see the whole row, and the
 * decoder is told which physical columns nothing reads (sl_decoder.skip,
 * set at open: the Parquet reader does not load them).
 * Push mode (no source): records arrive through sl_op_scan_push(_lines)
 * and are decoded with the table's 'format' (plain json by default; a
 * changelog format such as debezium-json yields -U/+U/-D rows).
 *
 * Run-time errors (a division by zero, a failed cast ...) in the computed
 * columns, the watermark or any Calc downstream that keeps row positions
 * come back with the failing row of this scan's batch (err->row, err.h);
 * the scan appends that row's source position (file and line, the
 * generator's row, or the line of the pushed text) to the message.
 */
#include "graph.h"
#include "ops.h"
#include "op_scan_pub.h"
#include "sluice.h"
#include "../format/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

typedef struct scan_op {
	sl_op base;
	sl_scan_plan p;
	sl_batch *phys;        /* filled by the source */
	sl_batch *comp;        /* computed columns */
	sl_batch view;         /* the table's row (cols owned here, vectors not) */
	sl_batch out;          /* what is emitted: view's columns proj[] (pruned),
	                        * or view itself when proj is NULL */
	int *proj;             /* sl_scan_plan.proj, owned */
	uint8_t *skip;         /* with proj: the physical columns nothing reads
	                        * (the decoder's skip, format.h), owned */
	sl_batch *wmb;         /* one column: the watermark expression */
	sl_prog *comp_prog;
	sl_prog *wm_prog;
	int64_t wm;            /* the watermark emitted last (the source's) */
	int restored;          /* restore calls so far (one per old instance) */
	sl_decoder *push_dec;  /* push mode */
	int64_t last_data_us;  /* monotonic time of the last rows (idle timeout) */
	int no_splits_idle;    /* idle because the source has no split yet */
	sl_scan_pub *pub;      /* its splits for the live metrics (op_scan_pub.c) */
	char table[128];
	int *push_line;        /* push mode: line of the pushed text of each row, 0 = a record */
	int push_line_cap;
} scan_op;

static void build_view(scan_op *o)
{
	sl_batch *v = &o->view;
	v->nrows = o->phys->nrows;
	v->cap = o->phys->cap;
	v->op = o->phys->op;
	v->wm = o->phys->wm;
	v->sel = NULL;
	v->nsel = 0;
	for (int i = 0; i < o->p.nout; i++) {
		int m = o->p.out_map[i];
		v->cols[i] = m >= 0 ? o->phys->cols[m] : o->comp->cols[-1 - m];
	}
	if (o->proj) {
		sl_batch *w = &o->out;
		w->nrows = v->nrows;
		w->cap = v->cap;
		w->op = v->op;
		w->wm = v->wm;
		w->sel = NULL;
		w->nsel = 0;
		for (int i = 0; i < o->p.nproj; i++)
			w->cols[i] = v->cols[o->proj[i]];
	}
}

/* The batch the scan emits (above). */
static sl_batch *out_batch(scan_op *o)
{
	return o->proj ? &o->out : &o->view;
}

/* The name of the table's column c (an index into the whole row). */
static const char *col_name(const scan_op *o, int c)
{
	if (o->proj && o->p.names)
		return o->p.names[c];
	for (int i = 0; o->proj && i < o->p.nproj; i++)
		if (o->proj[i] == c)
			return o->base.out_names[i];
	return o->proj ? "?" : o->base.out_names[c];
}

/* Records the input place of row `row` of this scan's batch in err
 * (sl_err_input): the source's file and line, or the line of the text
 * pushed through the API. */
static void row_input(scan_op *o, int row, sl_err *err)
{
	const char *file;
	int64_t line;
	if (o->p.source && o->p.source->vt->row_input &&
	    o->p.source->vt->row_input(o->p.source, row, &file, &line))
		sl_err_input(err, file, line);
	else if (!o->p.source && o->push_line && row < o->push_line_cap && o->push_line[row] > 0)
		sl_err_input(err, NULL, o->push_line[row]);
}

static int null_rowtime(scan_op *o, int row, sl_err *err)
{
	char where[512] = "";
	if (o->p.source && o->p.source->vt->where)
		o->p.source->vt->where(o->p.source, row, where, sizeof(where));
	sl_err_set(err, SL_EINPUT, "source '%s'%s%s: field '%s': NULL rowtime", o->table,
	           where[0] ? ": " : "", where, col_name(o, o->p.rowtime_col));
	row_input(o, row, err);
	return SL_EINPUT;
}

/* A run-time error whose failing row is a row of this scan's batch: appends
 * the row's source position.  Returns rc. */
static int name_row(scan_op *o, int rc, sl_err *err)
{
	if (!rc || err->row <= 0 || (err->row_batch != o->phys && err->row_batch != &o->view &&
	                            err->row_batch != &o->out))
		return rc;
	int row = err->row - 1;
	char where[512] = "";
	if (o->p.source && o->p.source->vt->where)
		o->p.source->vt->where(o->p.source, row, where, sizeof(where));
	else if (!o->p.source && o->push_line && row < o->push_line_cap && o->push_line[row] > 0)
		snprintf(where, sizeof(where), "line %d of the pushed text", o->push_line[row]);
	else if (!o->p.source)
		snprintf(where, sizeof(where), "the pushed record");
	sl_err_append(err, " (source '%s'%s%s)", o->table, where[0] ? ", " : "", where);
	row_input(o, row, err);
	err->row_batch = NULL; /* named */
	return rc;
}

static int push_batch2(scan_op *o, sl_err *err);

/* Marks in need[] the physical columns that expression e over the
 * physical columns reads. */
static void phys_refs(const sl_expr *e, uint8_t *need, int nphys)
{
	if (e->kind == SL_EX_COL && e->col >= 0 && e->col < nphys)
		need[e->col] = 1;
	for (int i = 0; i < e->nargs; i++)
		phys_refs(e->args[i], need, nphys);
}

/* Marks in need[] what output column c (of the whole row) is made of. */
static void out_refs(const sl_scan_plan *p, int c, uint8_t *need)
{
	int m = p->out_map[c];
	if (m >= 0)
		need[m] = 1;
	else
		phys_refs(p->computed[-1 - m], need, p->nphys);
}

/* Marks in need[] the output columns expression e over the row reads. */
static void wm_refs(const sl_scan_plan *p, const sl_expr *e, uint8_t *need)
{
	if (e->kind == SL_EX_COL && e->col >= 0 && e->col < p->nout)
		out_refs(p, e->col, need);
	for (int i = 0; i < e->nargs; i++)
		wm_refs(p, e->args[i], need);
}

/* With pruning: o->skip[i] = 1 for the physical columns that nothing reads:
 * not emitted, not in a computed column (all are computed), the watermark
 * or the rowtime, not declared NOT NULL (checked on every row).  0 or
 * SL_ENOMEM. */
static int make_skip(scan_op *o)
{
	const sl_scan_plan *p = &o->p;
	uint8_t *need = calloc((size_t)p->nphys + 1, 1);
	if (!need)
		return SL_ENOMEM;
	for (int i = 0; i < p->nproj; i++)
		out_refs(p, o->proj[i], need);
	for (int k = 0; k < p->ncomputed; k++)
		phys_refs(p->computed[k], need, p->nphys);
	if (p->watermark)
		wm_refs(p, p->watermark, need);
	if (p->rowtime_col >= 0)
		out_refs(p, p->rowtime_col, need);
	for (int i = 0; i < p->nphys; i++)
		need[i] = !(need[i] || p->phys[i].type.notnull);
	o->skip = need; /* now: 1 = skip */
	return 0;
}

/* The source has splits with their own watermarks (conn.h). */
static int has_splits(const scan_op *o)
{
	return o->p.source && o->p.source->split_wm && o->p.source->nsplits > 0;
}

/* The source's watermark: the minimum of its splits' that can still
 * produce rows, leaving out idle splits (sl_source.split_idle); when none
 * can, the largest (the end of input follows); when every split that can
 * is idle, -infinity (nothing moves: the scan's own idleness, idle_check,
 * speaks for the source). */
static int64_t source_wm(const scan_op *o)
{
	const sl_source *s = o->p.source;
	int64_t lo = SL_WM_MAX, hi = SL_WM_MIN;
	int live = 0, idle = 0;
	for (int i = 0; i < s->nsplits; i++) {
		int64_t w = s->split_wm[i];
		if (w > hi)
			hi = w;
		if (!s->split_done[i]) {
			if (s->split_idle && s->split_idle[i]) {
				idle = 1;
				continue;
			}
			live = 1;
			if (w < lo)
				lo = w;
		}
	}
	return live ? lo : idle ? SL_WM_MIN : hi;
}

/* A seed batch (conn.h): each row's watermark expression, after the
 * computed columns, is its split's initial watermark (-infinity when NULL
 * or when the expression fails: the row is not data, so its failure is
 * reported, if at all, where the row is read as data).  Emits nothing. */
static void seed_splits(scan_op *o)
{
	sl_batch *b = o->phys;
	sl_source *s = o->p.source;
	if (!o->wm_prog || !has_splits(o))
		return;
	sl_err e;
	sl_err_clear(&e);
	if (o->comp_prog) {
		sl_batch_reset(o->comp);
		o->comp->nrows = b->nrows;
		if (sl_prog_eval(o->comp_prog, b, o->comp, o->comp->cols, &o->base.graph->ectx, &e))
			return;
	}
	build_view(o);
	sl_batch_reset(o->wmb);
	o->wmb->nrows = b->nrows;
	if (sl_prog_eval(o->wm_prog, &o->view, o->wmb, o->wmb->cols, &o->base.graph->ectx, &e))
		return;
	const sl_col *wc = &o->wmb->cols[0];
	for (int i = 0; i < b->nrows; i++) {
		int k = s->seed_split[i];
		if (k >= 0 && k < s->nsplits)
			s->split_wm[k] = wc->null[i] ? SL_WM_MIN : wc->v.i64[i];
	}
}

/* The first row of the source's batch, other than a delete, with a NULL
 * in a column declared NOT NULL, or -1; *col is its column.  A delete may
 * carry only its key (upsert-kafka's tombstones), so its other columns are
 * not checked. */
static int null_in_not_null(const scan_op *o, int *col)
{
	const sl_batch *b = o->phys;
	int bad = -1;
	for (int c = 0; c < o->p.nphys; c++) {
		if (!o->p.phys[c].type.notnull)
			continue;
		const uint8_t *nl = b->cols[c].null;
		int n = bad >= 0 ? bad : b->nrows;
		for (int i = 0; i < n; i++)
			if (nl[i] && b->op[i] != SL_DELETE) {
				bad = i;
				*col = c;
				break;
			}
	}
	return bad;
}

static int null_not_null_error(scan_op *o, int row, int col, sl_err *err)
{
	char where[512] = "";
	if (o->p.source && o->p.source->vt->where)
		o->p.source->vt->where(o->p.source, row, where, sizeof(where));
	else if (!o->p.source && o->push_line && row < o->push_line_cap && o->push_line[row] > 0)
		snprintf(where, sizeof(where), "line %d of the pushed text", o->push_line[row]);
	sl_err_set(err, SL_EINPUT, "source '%s'%s%s: field '%s': NULL in a column declared NOT NULL",
	           o->table, where[0] ? ": " : "", where, o->p.phys[col].name);
	row_input(o, row, err);
	return SL_EINPUT;
}

/* Computed columns, watermarks, emit.  A NULL in a NOT NULL column is bad
 * input (docs/semantics.md §4): the rows before it flow, then the job
 * stops with an error naming the field and the row's place. */
static int push_batch(scan_op *o, sl_err *err)
{
	int col = -1, bad = null_in_not_null(o, &col);
	if (bad >= 0)
		o->phys->nrows = bad;
	int rc = name_row(o, push_batch2(o, err), err);
	if (rc || bad < 0)
		return rc;
	return null_not_null_error(o, bad, col, err);
}

static int push_batch2(scan_op *o, sl_err *err)
{
	sl_batch *b = o->phys;
	int rc;
	if (b->nrows == 0)
		return 0;
	if (o->p.idle_timeout_us)
		o->last_data_us = mono_us();
	if (o->base.idle && (rc = sl_op_emit_idle(&o->base, 0, err)))
		return rc;
	if (o->comp_prog) {
		sl_batch_reset(o->comp);
		o->comp->nrows = b->nrows;
		if ((rc = sl_prog_eval(o->comp_prog, b, o->comp, o->comp->cols, &o->base.graph->ectx, err))) {
			sl_err_prefix(err, "computed column of table '%s'", o->table);
			return rc;
		}
	}
	build_view(o);
	const sl_col *wc = NULL;
	if (o->wm_prog) {
		sl_batch_reset(o->wmb);
		o->wmb->nrows = b->nrows;
		if ((rc = sl_prog_eval(o->wm_prog, &o->view, o->wmb, o->wmb->cols, &o->base.graph->ectx, err))) {
			sl_err_prefix(err, "WATERMARK of table '%s'", o->table);
			return rc;
		}
		wc = &o->wmb->cols[0];
	}
	const sl_col *rt = o->p.rowtime_col >= 0 ? &o->view.cols[o->p.rowtime_col] : NULL;
	int split = has_splits(o) ? o->p.source->split : -1;
	int64_t w = split >= 0 ? o->p.source->split_wm[split] : o->wm;
	int bad = -1;
	for (int i = 0; i < b->nrows; i++) {
		if (rt && rt->null[i]) {
			bad = i;
			break;
		}
		b->wm[i] = w;
		if (wc && !wc->null[i] && wc->v.i64[i] > w)
			w = wc->v.i64[i];
	}
	if (o->pub) { /* the live metrics: the split's rows, last rowtime, time */
		int last = (bad >= 0 ? bad : b->nrows) - 1;
		sl__scan_pub_batch(o->pub, split, last + 1,
		                   rt && last >= 0 ? rt->v.i64[last] : SL_WM_MIN);
	}
	if (split >= 0) {
		o->p.source->split_wm[split] = w;
		w = source_wm(o);
	}
	o->wm = w;
	if (bad >= 0)
		o->view.nrows = o->out.nrows = bad; /* the rows before the bad one still flow */
	if ((rc = sl_op_emit(&o->base, out_batch(o), err)) ||
	    (rc = sl_op_emit_watermark(&o->base, w, err)))
		return rc;
	return bad >= 0 ? null_rowtime(o, bad, err) : 0;
}

/* No rows now: the source turns idle once 'scan.watermark.idle-timeout'
 * passed without data (docs/semantics.md §1; measured on the monotonic clock,
 * not the job's processing-time clock).  Returns 0
 * or an error. */
static int idle_check(scan_op *o, sl_err *err)
{
	if (!o->p.idle_timeout_us || o->base.idle)
		return 0;
	int64_t now = mono_us();
	if (!o->last_data_us)
		o->last_data_us = now;
	else if (now - o->last_data_us >= o->p.idle_timeout_us)
		return sl_op_emit_idle(&o->base, 1, err);
	return 0;
}

static int scan_pump(sl_op *op, sl_err *err)
{
	scan_op *o = (scan_op *)op;
	if (!o->p.source)
		return idle_check(o, err); /* push mode: rows arrive through the API */
	sl_batch_reset(o->phys);
	int n = o->p.source->vt->read(o->p.source, o->phys, err);
	if (n > 0 && o->p.source->seed) {
		seed_splits(o);
		return n; /* progress, though no row flows */
	}
	if (n < 0 && n != SL_EEOF) {
		/* rows decoded before the error still flow (docs/semantics.md §4) */
		if (o->phys->nrows) {
			sl_err keep = *err;
			sl_err_clear(err);
			push_batch(o, err);
			*err = keep;
		}
		return n;
	}
	if (o->phys->nrows) {
		int rc = push_batch(o, err);
		if (rc)
			return rc;
	}
	if (n == SL_EEOF)
		return SL_EEOF;
	if (!o->phys->nrows && has_splits(o) && !o->base.idle) {
		/* a split ended without rows: the source's watermark may move */
		int64_t w = source_wm(o);
		if (w > o->wm) {
			o->wm = w;
			int rc = sl_op_emit_watermark(&o->base, w, err);
			if (rc)
				return rc;
		}
	}
	if (n == 0 && o->p.source->split_wm && o->p.source->nsplits == 0) {
		/* a source with splits that has none yet (a Kafka instance
		 * without partitions, waiting for discovery) holds nothing back */
		o->no_splits_idle = 1;
		return sl_op_emit_idle(&o->base, 1, err);
	}
	if (o->no_splits_idle && o->p.source->nsplits > 0) {
		/* its first splits came: their watermarks (-infinity) hold the
		 * consumers back from now on, before any of their rows is read */
		o->no_splits_idle = 0;
		int rc = sl_op_emit_idle(&o->base, 0, err);
		if (rc)
			return rc;
	}
	if (n == 0)
		return idle_check(o, err);
	return o->phys->nrows;
}

const char *sl_op_scan_table(const sl_op *op)
{
	return ((const scan_op *)op)->table;
}

void sl_op_scan_publish(sl_op *op)
{
	scan_op *o = (scan_op *)op;
	sl__scan_pub_sync(o->pub, o->p.source, o->wm, op->in_ended);
}

int sl_op_scan_splits(const sl_op *op, sl_metric_split *out, int cap)
{
	return sl__scan_pub_read(((const scan_op *)op)->pub, out, cap);
}

int sl_op_scan_nsplits(const sl_op *op)
{
	const scan_op *o = (const scan_op *)op;
	return o->pub ? o->pub->n : 0;
}

int64_t sl_op_scan_skipped(const sl_op *op)
{
	const scan_op *o = (const scan_op *)op;
	return o->p.source ? SL_CTR_GET(o->p.source->rows_skipped) : 0; /* live metrics too */
}

/* Change events of the scan's changelog format that carried no row
 * (tombstones, truncates, messages). */
void sl_op_scan_progress(const sl_op *op, int64_t *done, int64_t *total)
{
	const scan_op *o = (const scan_op *)op;
	const sl_source *s = o->p.source;
	*done = s ? SL_CTR_GET(s->bytes_read) : 0;
	*total = s ? SL_CTR_GET(s->bytes_total) : 0; /* set in open (a restore may reset it) */
	if (*total && *done > *total)
		*done = *total;
}

int64_t sl_op_scan_events_skipped(const sl_op *op)
{
	const scan_op *o = (const scan_op *)op;
	const sl_decoder *d = o->push_dec ? o->push_dec : o->p.source ? o->p.source->dec : NULL;
	return d ? d->events_skipped : 0;
}

int sl_op_scan_is_push(const sl_op *op)
{
	return op->vt->pump == scan_pump && !((const scan_op *)op)->p.source;
}

int sl_op_scan_push(sl_op *op, const char *json, size_t len, sl_err *err)
{
	scan_op *o = (scan_op *)op;
	if (op->in_ended)
		return sl_err_set(err, SL_EINVAL, "table '%s': input already ended", o->table);
	sl_batch_reset(o->phys);
	int n = o->push_dec->vt->decode(o->push_dec, json, len, o->phys, SL_WM_MIN, err);
	if (n < 0) {
		sl_err_prefix(err, "table '%s'", o->table);
		return n;
	}
	if (o->push_line)
		memset(o->push_line, 0, sizeof(int) * (size_t)o->push_line_cap);
	return push_batch(o, err);
}

int sl_op_scan_push_lines(sl_op *op, const char *text, size_t len, sl_err *err)
{
	scan_op *o = (scan_op *)op;
	if (op->in_ended)
		return sl_err_set(err, SL_EINVAL, "table '%s': input already ended", o->table);
	const char *p = text, *end = text + len;
	int line = 0, rc;
	sl_batch_reset(o->phys);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		line++;
		if (le > p) {
			if (o->phys->nrows + 2 > o->phys->cap) {
				if ((rc = push_batch(o, err)))
					return rc;
				sl_batch_reset(o->phys);
			}
			int n = o->push_dec->vt->decode(o->push_dec, p, (size_t)(le - p), o->phys,
			                                SL_WM_MIN, err);
			if (n == SL_EFULL) {
				/* the record's rows need an empty batch: emit, decode again */
				if ((rc = push_batch(o, err)))
					return rc;
				sl_batch_reset(o->phys);
				n = o->push_dec->vt->decode(o->push_dec, p, (size_t)(le - p), o->phys,
				                            SL_WM_MIN, err);
			}
			if (n < 0) {
				sl_err_prefix(err, "table '%s', line %d", o->table, line);
				sl_err_input(err, NULL, line);
				return n;
			}
			if (o->phys->nrows > o->push_line_cap) {
				int nc = o->phys->cap > o->phys->nrows ? o->phys->cap : o->phys->nrows;
				int *nl2 = realloc(o->push_line, sizeof(int) * (size_t)nc);
				if (!nl2)
					return sl_err_set(err, SL_ENOMEM, "out of memory");
				memset(nl2 + o->push_line_cap, 0, sizeof(int) * (size_t)(nc - o->push_line_cap));
				o->push_line = nl2;
				o->push_line_cap = nc;
			}
			for (int r = o->phys->nrows - (n > 0 ? n : 0); r < o->phys->nrows; r++)
				o->push_line[r] = line;
		}
		p = nl ? nl + 1 : end;
	}
	return push_batch(o, err);
}

static int scan_open(sl_op *op, sl_err *err)
{
	scan_op *o = (scan_op *)op;
	/* the connector's I/O (files, the clock) happens now, not when the
	 * job was planned (conn.h): its errors name the table as planning's do */
	if (o->skip && o->p.source && o->p.source->dec)
		o->p.source->dec->skip = o->skip;
	int rc = o->p.source ? sl_source_open(o->p.source, err) : 0;
	if (rc) {
		sl_err_prefix(err, "table '%s'", o->table);
		return rc;
	}
	sl_type *pt = calloc((size_t)o->p.nphys + 1, sizeof(sl_type));
	if (!pt)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < o->p.nphys; i++)
		pt[i] = o->p.phys[i].type;
	/* at least 2 rows: one change event may decode to -U and +U */
	int cap = o->p.batch_rows > 0 && o->p.batch_rows < 2 ? 2 : o->p.batch_rows;
	o->phys = sl_batch_new(o->p.nphys, pt, cap);
	free(pt);
	if (!o->phys)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (o->p.ncomputed) {
		sl_type *ct = calloc((size_t)o->p.ncomputed, sizeof(sl_type));
		for (int i = 0; i < o->p.ncomputed; i++)
			ct[i] = o->p.computed[i]->type;
		o->comp = sl_batch_new(o->p.ncomputed, ct, o->phys->cap);
		free(ct);
		if (!o->comp)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	o->view.ncols = o->p.nout;
	o->view.cols = calloc((size_t)o->p.nout + 1, sizeof(sl_col));
	if (!o->view.cols)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	if (o->proj) {
		o->out.ncols = o->p.nproj;
		if (!(o->out.cols = calloc((size_t)o->p.nproj + 1, sizeof(sl_col))))
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	if (o->p.watermark) {
		o->wmb = sl_batch_new(1, &o->p.watermark->type, o->phys->cap);
		if (!o->wmb)
			return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	o->pub = sl__scan_pub_new(o->p.source); /* NULL: the splits are not shown */
	if (!o->p.source && o->p.push_dec) {
		o->push_dec = o->p.push_dec;
		o->p.push_dec = NULL;
	} else if (!o->p.source) {
		sl_opts none;
		sl_arena a;
		sl_arena_init(&a, 1024);
		sl_opts_init(&none, &a);
		o->push_dec = sl_decoder_new(sl_format_find("json"), o->p.phys, o->p.nphys, &none, err);
		sl_arena_deinit(&a);
		if (!o->push_dec)
			return err->code ? err->code : SL_EINVAL;
	}
	return 0;
}

static int scan_snapshot(sl_op *op, sl_snap_writer *w, sl_err *err)
{
	scan_op *o = (scan_op *)op;
	sl_snap_put_i64(w, o->wm);
	if (o->p.source && o->p.source->vt->snapshot)
		return o->p.source->vt->snapshot(o->p.source, w, err);
	return 0;
}

static int scan_restore(sl_op *op, sl_snap_reader *r, sl_err *err)
{
	scan_op *o = (scan_op *)op;
	o->wm = sl_snap_get_i64(r);
	if (!sl_snap_reader_ok(r))
		return sl_err_set(err, SL_ESTATE, "scan state damaged");
	/* a source's snapshot from before splits holds one stream's watermark:
	 * the source gives it to the split it resumes (conn_filesystem.c).
	 * Only the first of several calls (one per instance of the run that
	 * took the checkpoint, conn.h) sets it: a later one would overwrite
	 * the splits an earlier call's source snapshot restored */
	if (has_splits(o) && !o->restored++)
		for (int i = 0; i < o->p.source->nsplits; i++)
			o->p.source->split_wm[i] = o->wm;
	if (o->p.source && o->p.source->vt->restore)
		return o->p.source->vt->restore(o->p.source, r, err);
	return 0;
}

static void scan_close(sl_op *op)
{
	scan_op *o = (scan_op *)op;
	sl_batch_free(o->phys);
	sl_batch_free(o->comp);
	sl_batch_free(o->wmb);
	free(o->view.cols);
	free(o->out.cols);
	free(o->proj);
	free(o->skip);
	sl_prog_free(o->comp_prog);
	sl_prog_free(o->wm_prog);
	sl_source_free(o->p.source);
	sl_decoder_free(o->push_dec);
	sl_decoder_free(o->p.push_dec);
	free(o->p.out_map);
	free(o->push_line);
	sl__scan_pub_free(o->pub);
}

static int scan_commit(sl_op *op, int64_t id, sl_err *err)
{
	sl_source *src = ((scan_op *)op)->p.source;
	int rc = src->vt->commit(src, id, err);
	if (rc)
		sl_err_prefix(err, "source '%s'", src->table ? src->table : "?");
	return rc;
}

/* At the barrier: the source remembers what its commit will publish (the
 * checkpoint gets an empty pre-commit record for the scan). */
static int scan_pre_commit(sl_op *op, int64_t id, sl_snap_writer *w, sl_err *err)
{
	sl_source *src = ((scan_op *)op)->p.source;
	int rc = src->vt->pre_commit ? src->vt->pre_commit(src, id, err) : 0;
	if (rc)
		sl_err_prefix(err, "source '%s'", src->table ? src->table : "?");
	return rc;
}

static const sl_op_vtab scan_vtab = {
	.name = "TableSourceScan",
	.kind = SL_OPK_SCAN,
	.open = scan_open,
	.snapshot = scan_snapshot,
	.restore = scan_restore,
	.close = scan_close,
	.pump = scan_pump,
};

/* A scan of a source with a commit hook: the checkpoint coordinator calls
 * only the hooks that exist, so the others keep commit and pre_commit
 * NULL (and have no pre-commit record in checkpoints). */
static const sl_op_vtab scan_commit_vtab = {
	.name = "TableSourceScan",
	.kind = SL_OPK_SCAN,
	.open = scan_open,
	.snapshot = scan_snapshot,
	.restore = scan_restore,
	.close = scan_close,
	.pump = scan_pump,
	.pre_commit = scan_pre_commit,
	.commit = scan_commit,
};

sl_op *sl_op_scan_new(const sl_scan_plan *p, sl_err *err)
{
	scan_op *o = calloc(1, sizeof(*o));
	if (!o) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	o->base.vt = p->source && p->source->vt->commit ? &scan_commit_vtab : &scan_vtab;
	o->p = *p;
	o->wm = SL_WM_MIN;
	snprintf(o->table, sizeof(o->table), "%s", p->table ? p->table : "?");
	o->p.out_map = malloc(sizeof(int) * (size_t)(p->nout + 1));
	if (!o->p.out_map)
		goto nomem;
	memcpy(o->p.out_map, p->out_map, sizeof(int) * (size_t)p->nout);
	o->p.proj = NULL;
	if (p->proj) { /* nproj may be 0: a join side that keeps no column */
		if (!(o->proj = malloc(sizeof(int) * (size_t)(p->nproj + 1))))
			goto nomem;
		memcpy(o->proj, p->proj, sizeof(int) * (size_t)p->nproj);
		if (make_skip(o))
			goto nomem;
	}
	if (p->ncomputed) {
		sl_type *pt = calloc((size_t)p->nphys + 1, sizeof(sl_type));
		if (!pt)
			goto nomem;
		for (int i = 0; i < p->nphys; i++)
			pt[i] = p->phys[i].type;
		o->comp_prog = sl_prog_compile(p->computed, p->ncomputed, pt, p->nphys, err);
		free(pt);
		if (!o->comp_prog)
			goto fail;
	}
	if (p->watermark) {
		sl_type *ot = calloc((size_t)p->nout + 1, sizeof(sl_type));
		if (!ot)
			goto nomem;
		for (int i = 0; i < p->nout; i++) {
			int m = p->out_map[i];
			ot[i] = m >= 0 ? p->phys[m].type : p->computed[-1 - m]->type;
		}
		o->wm_prog = sl_prog_compile(&p->watermark, 1, ot, p->nout, err);
		free(ot);
		if (!o->wm_prog)
			goto fail;
	}
	return &o->base;
nomem:
	sl_err_set(err, SL_ENOMEM, "out of memory");
fail:
	o->p.source = NULL; /* the caller still owns them on failure */
	o->p.push_dec = NULL;
	sl_op_free(&o->base); /* calls its close */
	return NULL;
}
