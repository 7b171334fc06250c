/*
 * graph.c - the operator DAG of a running job: registration, edges,
 * watermark and idleness propagation, end of input, one pump step over
 * the sources (the run loop that repeats it is src/runtime/run.c), the
 * job snapshot of the operators, and sl_op_free (see graph.h, op.h).
 */
#include "graph.h"
#include "op_observe.h"
#include "../base/buf.h"
#include "sluice.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

void sl_graph_init(sl_graph *g, sl_state_backend *state)
{
	memset(g, 0, sizeof(*g));
	g->state = state;
	g->proc_manual = -1;
}

void sl_graph_tick(sl_graph *g)
{
	if (g->proc_manual >= 0) {
		g->ectx.proctime = g->proc_manual;
		return;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	g->ectx.proctime = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int sl_graph_fire_timers(sl_graph *g, sl_err *err)
{
	sl_graph_tick(g);
	if (!g->opened)
		return 0;
	for (int i = 0; i < g->nops; i++) {
		sl_op *op = g->ops[i];
		if (!op->vt->proctime || (op->nin > 0 && op->in_ended >= op->nin))
			continue;
		int rc = op->vt->proctime(op, g->ectx.proctime, err);
		if (rc)
			return rc;
	}
	return 0;
}

int sl_graph_pre_barrier(sl_graph *g, sl_err *err)
{
	if (!g->opened)
		return 0;
	for (int i = 0; i < g->nops; i++) {
		sl_op *op = g->ops[i];
		if (!op->vt->pre_barrier || (op->nin > 0 && op->in_ended >= op->nin))
			continue;
		int rc = op->vt->pre_barrier(op, err);
		if (rc)
			return rc;
	}
	return 0;
}

sl_state_table *sl_op_table_open(sl_op *op, const char *name, uint32_t val_size, int side,
                                 int flags, sl_err *err)
{
	int64_t ttl = op->graph ? op->state_ttl[side] : 0;
	if (ttl <= 0)
		return sl_state_table_open(op->state, op->uid, name, val_size, err);
	return sl_state_table_open_ttl(op->state, op->uid, name, val_size, ttl,
	                               &op->graph->ectx.proctime, flags, &op->ttl_chain, err);
}

int sl_graph_add(sl_graph *g, sl_op *op, int nin, int nout, const sl_type *types,
                 const char *const *names)
{
	if (g->nops == g->capops) {
		int nc = g->capops ? g->capops * 2 : 16;
		sl_op **nv = realloc(g->ops, sizeof(*nv) * (size_t)nc);
		if (!nv)
			return SL_ENOMEM;
		g->ops = nv;
		g->capops = nc;
	}
	op->graph = g;
	op->id = g->nops;
	op->state = g->state;
	op->nin = nin;
	op->in_wm = calloc((size_t)(nin ? nin : 1), sizeof(int64_t));
	op->in_idle = calloc((size_t)(nin ? nin : 1), 1);
	op->out_types = calloc((size_t)(nout ? nout : 1), sizeof(sl_type));
	op->out_names = calloc((size_t)(nout ? nout : 1), sizeof(char *));
	if (!op->in_wm || !op->in_idle || !op->out_types || !op->out_names)
		return SL_ENOMEM; /* the caller still owns op: sl_op_free */
	op->nout = nout;
	for (int i = 0; i < nin; i++)
		op->in_wm[i] = SL_WM_MIN;
	op->wm = op->out_wm = SL_WM_MIN;
	for (int i = 0; i < nout; i++) {
		op->out_types[i] = types[i];
		op->out_names[i] = strdup(names && names[i] ? names[i] : "");
		if (!op->out_names[i])
			return SL_ENOMEM;
	}
	if (!op->uid[0])
		snprintf(op->uid, sizeof(op->uid), "op%d", op->id);
	g->ops[g->nops++] = op;
	return 0;
}

int sl_graph_connect(sl_graph *g, sl_op *from, sl_op *to, int input)
{
	assert(input >= 0 && input < to->nin); /* sl_graph_add gave `to` its inputs */
	sl_edge *ne = realloc(from->edges, sizeof(*ne) * (size_t)(from->nedges + 1));
	if (!ne)
		return SL_ENOMEM;
	from->edges = ne;
	ne[from->nedges].to = to;
	ne[from->nedges].input = input;
	from->nedges++;
	return 0;
}

int sl_graph_open(sl_graph *g, sl_err *err)
{
	for (int i = 0; i < g->nops; i++) {
		sl_op *op = g->ops[i];
		if (op->vt->open) {
			sl__op_opening = op; /* timers.c registers its time tables */
			int rc = op->vt->open(op, err);
			sl__op_opening = NULL;
			if (rc)
				return rc;
		}
	}
	g->opened = 1;
	return 0;
}

int sl_op_emit(sl_op *op, const sl_batch *b, sl_err *err)
{
	int n = sl_batch_live(b);
	if (n == 0)
		return 0;
	SL_CTR_ADD(op->stats.rows_out, n);
	for (int i = 0; i < op->nedges; i++) {
		sl_op *to = op->edges[i].to;
		SL_CTR_ADD(to->stats.rows_in, n);
		int rc = to->vt->process(to, op->edges[i].input, b, err);
		if (rc) {
			/* a row-level error (an aggregate's overflow) in the batch
			 * `to` was given: b's row (err.h), named by the scan */
			if (err->row > 0 && !err->row_batch)
				err->row_batch = b;
			return rc;
		}
	}
	return 0;
}

int64_t sl_op_inputs_wm(const sl_op *op, int except)
{
	int64_t m = SL_WM_MAX;
	for (int i = 0; i < op->nin; i++)
		if (i != except && !op->in_idle[i] && op->in_wm[i] < m)
			m = op->in_wm[i];
	return m;
}

/* Recomputes op's merged watermark; calls its watermark method if it grew. */
static int merge_wm(sl_op *op, sl_err *err)
{
	int64_t m = sl_op_inputs_wm(op, -1);
	int all_idle = 1;
	for (int i = 0; i < op->nin; i++)
		all_idle &= op->in_idle[i];
	if (all_idle || m <= op->wm)
		return 0;
	SL_CTR_SET(op->wm, m);
	if (op->vt->watermark)
		return op->vt->watermark(op, m, err);
	return sl_op_emit_watermark(op, m, err);
}

/* Delivers watermark wm on input `input` of op. */
static int deliver_wm(sl_op *op, int input, int64_t wm, sl_err *err)
{
	assert(input >= 0 && input < op->nin);
	if (wm <= op->in_wm[input])
		return 0;
	SL_CTR_SET(op->in_wm[input], wm);
	return merge_wm(op, err);
}

int sl_op_emit_idle(sl_op *op, int idle, sl_err *err)
{
	if (op->idle == idle)
		return 0;
	if (idle && op->vt->went_idle) {
		int rc = op->vt->went_idle(op, err);
		if (rc)
			return rc;
	}
	SL_CTR_SET(op->idle, idle);
	for (int i = 0; i < op->nedges; i++) {
		sl_op *to = op->edges[i].to;
		SL_CTR_SET(to->in_idle[op->edges[i].input], (uint8_t)idle);
		int rc = merge_wm(to, err);
		if (rc)
			return rc;
		int all_idle = 1;
		for (int k = 0; k < to->nin; k++)
			all_idle &= to->in_idle[k];
		if ((rc = sl_op_emit_idle(to, all_idle, err)))
			return rc;
	}
	return 0;
}

int sl_op_emit_watermark(sl_op *op, int64_t wm, sl_err *err)
{
	if (wm <= op->out_wm)
		return 0;
	SL_CTR_SET(op->out_wm, wm);
	for (int i = 0; i < op->nedges; i++) {
		int rc = deliver_wm(op->edges[i].to, op->edges[i].input, wm, err);
		if (rc)
			return rc;
	}
	return 0;
}

int sl_graph_end_input(sl_op *op, int input, sl_err *err)
{
	int rc = deliver_wm(op, input, SL_WM_MAX, err);
	if (rc)
		return rc;
	assert(op->in_ended < op->nin); /* each input ends once: finish runs once */
	if (++op->in_ended < op->nin)
		return 0;
	if (op->vt->finish && (rc = op->vt->finish(op, err)))
		return rc;
	if ((rc = sl_op_emit_watermark(op, SL_WM_MAX, err)))
		return rc;
	for (int i = 0; i < op->nedges; i++)
		if ((rc = sl_graph_end_input(op->edges[i].to, op->edges[i].input, err)))
			return rc;
	return 0;
}

int sl_graph_end_source(sl_op *op, sl_err *err)
{
	if (op->in_ended)
		return 0;
	op->in_ended = 1;
	int rc;
	if (op->vt->finish && (rc = op->vt->finish(op, err)))
		return rc;
	if ((rc = sl_op_emit_watermark(op, SL_WM_MAX, err)))
		return rc;
	for (int i = 0; i < op->nedges; i++)
		if ((rc = sl_graph_end_input(op->edges[i].to, op->edges[i].input, err)))
			return rc;
	return 0;
}

int sl_graph_step(sl_graph *g, int64_t *progress, sl_err *err)
{
	int live = 0;
	*progress = 0;
	int rc0 = sl_graph_fire_timers(g, err);
	if (rc0)
		return rc0;
	for (int i = 0; i < g->nops; i++) {
		sl_op *op = g->ops[i];
		if (op->nin != 0 || !op->vt->pump || op->in_ended)
			continue;
		int rc = op->vt->pump(op, err);
		if (rc == SL_EEOF) {
			if ((rc = sl_graph_end_source(op, err)))
				return rc;
			continue;
		}
		if (rc < 0)
			return rc;
		*progress += rc;
		live = 1;
	}
	return live;
}

#define SNAP_MAGIC_V1 0x534c4731u /* "SLG1": operators by position */
#define SNAP_MAGIC_V2 0x534c4732u /* "SLG2": by label-hash id (op->uid_v1) */
#define SNAP_MAGIC 0x534c4733u    /* "SLG3": by structural id (op->uid) */

/* One operator's record in a job snapshot, as sl_graph_snapshot_ops writes
 * it: id, kind (vtab name), input watermarks, watermark, output watermark,
 * counters and the operator's own body.  Pointers borrow the reader's
 * buffer. */
typedef struct op_rec {
	const char *uid, *name;
	size_t ulen, nlen, sublen;
	uint32_t nin;
	int64_t in_wm[1024];
	int64_t wm, out_wm;
	const sl_op_stats *stats; /* unaligned: copy before use */
	const void *sub;
} op_rec;

/* Reads the next record into *o.  0, or SL_ESTATE naming a damaged or
 * truncated snapshot. */
static int read_op_rec(sl_snap_reader *r, op_rec *o, sl_err *err)
{
	o->uid = sl_snap_get_bytes(r, &o->ulen);
	o->name = sl_snap_get_bytes(r, &o->nlen);
	o->nin = sl_snap_get_u32(r);
	if (!sl_snap_reader_ok(r) || o->nin > 1024)
		return sl_err_set(err, SL_ESTATE, "job snapshot damaged");
	for (uint32_t k = 0; k < o->nin; k++)
		o->in_wm[k] = sl_snap_get_i64(r);
	o->wm = sl_snap_get_i64(r);
	o->out_wm = sl_snap_get_i64(r);
	o->stats = sl_snap_get_raw(r, sizeof(sl_op_stats));
	o->sub = sl_snap_get_bytes(r, &o->sublen);
	if (!sl_snap_reader_ok(r))
		return sl_err_set(err, SL_ESTATE, "job snapshot truncated");
	return 0;
}

int sl_graph_snapshot(sl_graph *g, sl_snap_writer *w, sl_err *err)
{
	int rc = sl_graph_snapshot_ops(g, w, err);
	return rc ? rc : sl_state_snapshot(g->state, NULL, w, err);
}

int sl_graph_snapshot_ops(sl_graph *g, sl_snap_writer *w, sl_err *err)
{
	sl_snap_put_u32(w, SNAP_MAGIC);
	sl_snap_put_u32(w, (uint32_t)g->nops);
	for (int i = 0; i < g->nops; i++) {
		sl_op *op = g->ops[i];
		sl_snap_put_bytes(w, op->uid, strlen(op->uid));
		sl_snap_put_bytes(w, op->vt->name, strlen(op->vt->name));
		sl_snap_put_u32(w, (uint32_t)op->nin);
		for (int k = 0; k < op->nin; k++)
			sl_snap_put_i64(w, op->in_wm[k]);
		sl_snap_put_i64(w, op->wm);
		sl_snap_put_i64(w, op->out_wm);
		sl_snap_put_raw(w, &op->stats, sizeof(op->stats));
		sl_snap_writer sub;
		sl_snap_writer_init(&sub);
		int rc = op->vt->snapshot ? op->vt->snapshot(op, &sub, err) : 0;
		if (rc) {
			sl_snap_writer_deinit(&sub);
			return rc;
		}
		sl_snap_put_bytes(w, sub.buf, sub.len);
		sl_snap_writer_deinit(&sub);
	}
	return 0;
}

static sl_op *op_by_uid(sl_graph *g, const char *uid, size_t n)
{
	for (int i = 0; i < g->nops; i++)
		if (strlen(g->ops[i]->uid) == n && !memcmp(g->ops[i]->uid, uid, n))
			return g->ops[i];
	return NULL;
}

/* The id under which the snapshot being restored names op. */
static const char *snap_id(const sl_graph *g, const sl_op *op)
{
	return g->restored_label_ids && op->uid_v1[0] ? op->uid_v1 : op->uid;
}

sl_op *sl_graph_op_by_snap_id(const sl_graph *g, const char *id, size_t n)
{
	for (int i = 0; i < g->nops; i++) {
		const char *u = snap_id(g, g->ops[i]);
		if (strlen(u) == n && !memcmp(u, id, n))
			return g->ops[i];
	}
	return NULL;
}

/*
 * The reader's rename hook (state.h) while a snapshot with label-hash ids
 * is restored: a state table "<uid_v1>/<name>" of an operator of the job
 * becomes "<uid>/<name>", so the backend restores it where the operator
 * opened it; tables of ids the job does not have keep their names (the
 * checks below find no operator for them either).  Every later step of
 * the restore reads the records through copies of the reader and so sees
 * the structural ids only.
 */
static void rename_table(void *ctx, char name[256])
{
	const sl_graph *g = ctx;
	char *slash = strchr(name, '/');
	sl_op *op = slash ? sl_graph_op_by_snap_id(g, name, (size_t)(slash - name)) : NULL;
	if (!op)
		return;
	size_t ul = strlen(op->uid), rl = strlen(slash);
	if (ul + rl > 255)
		return; /* ids are 16 hex digits: never */
	memmove(name + ul, slash, rl + 1);
	memcpy(name, op->uid, ul);
}

int sl_graph_restore_op_from(sl_op *op, sl_snap_reader r, sl_err *err)
{
	if (sl_snap_get_u32(&r) != SNAP_MAGIC)
		return sl_err_set(err, SL_ESTATE, "not a sluice job snapshot of this version");
	uint32_t n = sl_snap_get_u32(&r);
	op_rec o;
	for (uint32_t i = 0; i < n; i++) {
		int rc = read_op_rec(&r, &o, err);
		if (rc)
			return rc;
		if (!o.uid || o.ulen != strlen(op->uid) || memcmp(o.uid, op->uid, o.ulen))
			continue;
		if (!op->vt->restore)
			return 0;
		sl_snap_reader sr;
		sl_snap_reader_init(&sr, o.sub, o.sublen);
		return op->vt->restore(op, &sr, err);
	}
	return sl_snap_reader_ok(&r) ? 0 : sl_err_set(err, SL_ESTATE, "job snapshot damaged");
}

/* The refusal of a snapshot older than SNAP_MAGIC at parallelism > 1.
 * Every such snapshot was taken at parallelism 1 (parallel checkpoints
 * came after structural ids), so the message names the setting that
 * resumes it. */
static const char old_format_msg[] =
	"restoring at another parallelism needs a snapshot of this version (structural "
	"operator ids), and this one was taken at parallelism 1 by an older sluice: run the "
	"job with 'parallelism.default' = '1' to resume it (and take a savepoint there to "
	"rescale it)";

int sl_graph_snap_ids(sl_snap_reader r, void (*cb)(void *ctx, const char *id, size_t n),
                      void *ctx, sl_err *err)
{
	if (sl_snap_get_u32(&r) != SNAP_MAGIC)
		return sl_err_set(err, SL_ENOTSUP, "%s", old_format_msg);
	uint32_t n = sl_snap_get_u32(&r);
	op_rec o;
	for (uint32_t i = 0; i < n; i++) {
		int rc = read_op_rec(&r, &o, err);
		if (rc)
			return rc;
		if (o.uid && o.ulen)
			cb(ctx, o.uid, o.ulen);
	}
	return sl_snap_reader_ok(&r) ? 0 : sl_err_set(err, SL_ESTATE, "job snapshot damaged");
}

/* One old record of an operator, for a rescale. */
typedef struct old_rec {
	const void *sub;
	size_t sublen;
} old_rec;

/* keep hook of a rescale's readers: the tables of g's operators. */
static int keep_own(void *ctx, const char *name)
{
	const char *slash = strchr(name, '/');
	return slash && op_by_uid(ctx, name, (size_t)(slash - name)) != NULL;
}

/* The first i64 of a record (a watermark, for the kinds that start with
 * one); INT64_MAX when it has none. */
static int64_t lead_i64(const old_rec *o)
{
	sl_snap_reader r;
	sl_snap_reader_init(&r, o->sub, o->sublen);
	int64_t v = sl_snap_get_i64(&r);
	return sl_snap_reader_ok(&r) ? v : INT64_MAX;
}

static int check_ttl_layout(sl_graph *g, sl_snap_reader r, int *orphans, sl_err *err);

int sl_graph_restore_rescaled(sl_graph *g, sl_snap_reader *r, const int *from, int n, int inst,
                              int par, sl_err *err)
{
	int nops = g->nops;
	old_rec *recs = calloc((size_t)(nops ? nops : 1) * (size_t)(n ? n : 1), sizeof(*recs));
	int *nrec = calloc((size_t)(nops ? nops : 1), sizeof(int));
	uint8_t *seen = calloc((size_t)(nops ? nops : 1), 1);
	op_rec orec, *rec = &orec;
	int rc = 0;
	if (!recs || !nrec || !seen)
		rc = sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; !rc && i < n; i++) {
		if (sl_snap_get_u32(&r[i]) != SNAP_MAGIC) {
			rc = sl_err_set(err, SL_ENOTSUP, "%s", old_format_msg);
			break;
		}
		uint32_t nr = sl_snap_get_u32(&r[i]);
		for (uint32_t k = 0; !rc && k < nr; k++) {
			if ((rc = read_op_rec(&r[i], rec, err)))
				break;
			sl_op *op = rec->ulen ? op_by_uid(g, rec->uid, rec->ulen) : NULL;
			if (!op)
				continue; /* an exchange's end, or another instance's operator */
			int x = op->id;
			if (!(seen[x] & 1)) { /* the first record: as it is, then the minimum */
				seen[x] |= 1;
				op->wm = op->out_wm = SL_WM_MAX;
				memset(&op->stats, 0, sizeof(op->stats));
			}
			if ((int)rec->nin == op->nin)
				for (int w = 0; w < op->nin; w++)
					if (!(seen[x] & 2) || rec->in_wm[w] < op->in_wm[w])
						op->in_wm[w] = rec->in_wm[w];
			if ((int)rec->nin == op->nin)
				seen[x] |= 2;
			if (rec->wm < op->wm)
				op->wm = rec->wm;
			if (rec->out_wm < op->out_wm)
				op->out_wm = rec->out_wm;
			if (from[i] % par == inst) {
				sl_op_stats s1;
				memcpy(&s1, rec->stats, sizeof(s1));
				op->stats.rows_in += s1.rows_in;
				op->stats.rows_out += s1.rows_out;
				op->stats.late_dropped += s1.late_dropped;
				op->stats.late_diverted += s1.late_diverted;
				op->stats.late_corrected += s1.late_corrected;
			}
			if (rec->sublen)
				recs[(size_t)x * (size_t)n + (size_t)nrec[x]++] = (old_rec){rec->sub, rec->sublen};
		}
	}
	/* each operator's own scalars, by its kind's merge rule */
	for (int x = 0; !rc && x < nops; x++) {
		sl_op *op = g->ops[x];
		old_rec *o = &recs[(size_t)x * (size_t)n];
		if (!nrec[x] || !op->vt->restore)
			continue;
		int all = 0, lowest = 0;
		switch (op->vt->kind) {
		case SL_OPK_SCAN:
		case SL_OPK_VALUES:
		case SL_OPK_JOIN: /* keeps the largest of its creation numbers */
		case SL_OPK_INTERVAL_JOIN: /* the same: its rows' numbers */
		case SL_OPK_MATCH: /* merges: lowest rowtime, highest arrival number */
			all = 1;
			break;
		case SL_OPK_WINDOW_AGG:
		case SL_OPK_WINDOW_JOIN:
		case SL_OPK_WINDOW_RANK:
		case SL_OPK_TEMPORAL_JOIN:
		case SL_OPK_DEDUP:
		case SL_OPK_SESSION_AGG:
		case SL_OPK_SESSION_ASSIGN:
			lowest = 1;
			break;
		default:
			if (nrec[x] > 1)
				rc = sl_err_set(err, SL_ENOTSUP, "operator #%d %s (id %s) cannot be restored "
				                "at another parallelism: %d of its instances kept scalars "
				                "and it has no rule to merge them (OVER numbers its pending "
				                "rows per instance); restore at the parallelism that took the "
				                "snapshot", op->id, op->vt->name, op->uid, nrec[x]);
			break;
		}
		int pick = 0;
		for (int k = 1; lowest && k < nrec[x]; k++)
			if (lead_i64(&o[k]) < lead_i64(&o[pick]))
				pick = k;
		for (int k = 0; !rc && k < nrec[x]; k++) {
			if (!all && k != pick)
				continue;
			sl_snap_reader sr;
			sl_snap_reader_init(&sr, o[k].sub, o[k].sublen);
			rc = op->vt->restore(op, &sr, err);
		}
	}
	free(recs);
	free(nrec);
	free(seen);
	/* state: each old instance's tables of g's operators, g's groups */
	for (int i = 0; !rc && i < n; i++) {
		r[i].keep = keep_own;
		r[i].keep_ctx = g;
		rc = check_ttl_layout(g, r[i], NULL, err);
		if (!rc)
			rc = sl_state_restore_merge(g->state, &r[i], err);
		r[i].keep = NULL;
	}
	return rc;
}

/* A snapshot record's id and kind, and whether its operator kept state. */
typedef struct snap_rec {
	const char *uid;
	size_t ulen;
	const char *name; /* the operator's kind (vtab name), nlen bytes */
	size_t nlen;
	int matched;      /* the job has an operator with this id */
	int stateful;     /* a snapshot body or state tables, even empty ones */
	int held;         /* a snapshot body or a state entry */
} snap_rec;

/* Restores one operator's record (v2) and describes it in *rec. */
static int restore_op(sl_graph *g, sl_snap_reader *r, snap_rec *rec, sl_err *err)
{
	op_rec o;
	int rc = read_op_rec(r, &o, err);
	if (rc)
		return rc;
	if (!o.uid)
		return sl_err_set(err, SL_ESTATE, "job snapshot damaged");
	sl_op *op = sl_graph_op_by_snap_id(g, o.uid, o.ulen);
	rec->uid = op ? op->uid : o.uid; /* the job's id, as rename_table */
	rec->ulen = op ? strlen(op->uid) : o.ulen;
	rec->name = o.name ? o.name : "";
	rec->nlen = o.name ? o.nlen : 0;
	rec->matched = op != NULL;
	rec->stateful = rec->held = o.sublen > 0;
	if (!op || o.ulen == 0)
		return 0; /* lost if it held state: unclaimed_state(); no id: an
		           * exchange's end (parallel jobs), which keeps nothing */
	if ((int)o.nin == op->nin)
		memcpy(op->in_wm, o.in_wm, sizeof(int64_t) * o.nin);
	op->wm = o.wm;
	op->out_wm = o.out_wm;
	memcpy(&op->stats, o.stats, sizeof(op->stats));
	if (!op->vt->restore)
		return 0;
	sl_snap_reader sr;
	sl_snap_reader_init(&sr, o.sub, o.sublen);
	return op->vt->restore(op, &sr, err);
}

/*
 * Before operator ids were unique by construction (plan_ident.c), two
 * identical operators over the same input had one id and shared one state;
 * such a snapshot holds two records with that id.  Its state cannot be
 * split between the operators (their results were wrong when it was
 * taken), so a restore of it is refused, naming the operator; stateless
 * operators with one id are harmless.  recs[0..n) are the snapshot's
 * records, r a copy of the reader positioned at the state records.
 * Returns 0 or SL_ESTATE.
 */
static int check_shared_ids(sl_graph *g, snap_rec *recs, uint32_t n, sl_snap_reader r,
                            sl_err *err)
{
	/* a record is stateful when it has a body or state tables "uid/..." */
	char name[256];
	uint32_t vs;
	int64_t count;
	int rc;
	while ((rc = sl_snap_get_table(&r, name, &vs, &count, err)) == 1) {
		const char *slash = strchr(name, '/');
		for (uint32_t i = 0; slash && i < n; i++)
			if (recs[i].ulen == (size_t)(slash - name) && !memcmp(recs[i].uid, name, recs[i].ulen)) {
				recs[i].stateful = 1;
				recs[i].held |= count > 0; /* for unclaimed_state() */
			}
		if ((rc = sl_snap_skip_entries(&r, name, vs, count, err)))
			return rc;
	}
	if (rc < 0)
		return rc;
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = 0; j < i; j++) {
			if (recs[i].ulen != recs[j].ulen || memcmp(recs[i].uid, recs[j].uid, recs[i].ulen) ||
			    !(recs[i].stateful || recs[j].stateful))
				continue;
			sl_op *op = op_by_uid(g, recs[i].uid, recs[i].ulen);
			char who[160];
			if (op)
				snprintf(who, sizeof(who), "#%d %s (id %s)", op->id, op->vt->name, op->uid);
			else
				snprintf(who, sizeof(who), "with id %.*s", (int)recs[i].ulen, recs[i].uid);
			return sl_err_set(err, SL_ESTATE, "the snapshot cannot be restored: operator %s "
			                  "shared its state with an identical operator of the job "
			                  "(snapshot records %u and %u had one id, given by a sluice "
			                  "before ids were unique per job, and their results were wrong); "
			                  "start the job without it (remove the job's checkpoints, or give it "
			                  "a new 'pipeline.name')", who, j, i);
		}
	return 0;
}

/*
 * Flink refuses a savepoint that holds state of an operator the job no
 * longer has, unless allowNonRestoredState.  A snapshot record whose id no
 * operator of the job has counts as unclaimed when it held any state: a
 * snapshot body (scalars), or an entry in a state table of its id
 * ("uid/name", also "uid/name~ttl"; recs[].held, set by check_shared_ids
 * from the state records).  Decided by the state itself, never by the
 * operator's kind: every operator's keyed state lives in tables named by
 * its id on both backends (docs/state.md).  An operator without any state
 * at the snapshot loses nothing (Flink skips empty state too).  Appends
 * "Kind (id)" of each unclaimed record to lost.
 */
static void unclaimed_state(const snap_rec *recs, uint32_t n, sl_buf *lost)
{
	for (uint32_t i = 0; i < n; i++)
		if (!recs[i].matched && recs[i].held)
			sl_buf_printf(lost, "%s%.*s (%.*s)", lost->len ? ", " : "", (int)recs[i].nlen,
			              recs[i].name, (int)recs[i].ulen, recs[i].uid);
}

/*
 * The state of operators the job no longer has, restored with
 * --allow-non-restored-state (or carried by an earlier version), is
 * dropped as Flink drops it: its tables are emptied after the restore, so
 * later snapshots do not carry it and a later job that has the id again
 * starts it empty.  r: a copy of the reader positioned at the state
 * records.  Returns 0 or the snapshot's error.
 */
static int drop_unclaimed(sl_graph *g, sl_snap_reader r, sl_err *err)
{
	char name[256];
	uint32_t vs;
	int64_t count;
	int rc;
	while ((rc = sl_snap_get_table(&r, name, &vs, &count, err)) == 1) {
		if ((rc = sl_snap_skip_entries(&r, name, vs, count, err)))
			return rc;
		char *slash = strchr(name, '/');
		if (!slash || count == 0 || op_by_uid(g, name, (size_t)(slash - name)))
			continue;
		*slash = 0;
		sl_state_table *t = sl_state_table_open(g->state, name, slash + 1, vs, err);
		if (!t)
			return err->code ? err->code : SL_ESTATE;
		int64_t ns;
		while (sl_state_ns_first(t, &ns))
			sl_state_ns_drop(t, ns);
	}
	return rc < 0 ? rc : 0;
}

/*
 * A state TTL is part of a table's layout (state_ttl.c: the backend table
 * `name~ttl`, values behind a write time): state written with a TTL cannot
 * be read by a job without one on that table, nor the reverse; Flink
 * refuses such a restore too.  Checks the table names of the snapshot's
 * state records (r: a copy of the reader, positioned at them) against the
 * tables the job's operators opened with a TTL, and refuses the tables an
 * operator lists as retired (sl_op_vtab.retired: an earlier layout of its
 * state, e.g. the regular join's lists per key).  *orphans (if not NULL)
 * is set when a table with entries belongs to no operator of the job.
 * Returns 0, or SL_ESTATE naming the operator and the table.
 */
static int check_ttl_layout(sl_graph *g, sl_snap_reader r, int *orphans, sl_err *err)
{
	char name[256];
	uint32_t vs;
	int64_t count;
	int rc;
	while ((rc = sl_snap_get_table(&r, name, &vs, &count, err)) == 1) {
		if ((rc = sl_snap_skip_entries(&r, name, vs, count, err)))
			return rc;
		const char *slash = strchr(name, '/');
		sl_op *op = slash ? op_by_uid(g, name, (size_t)(slash - name)) : NULL;
		if (!op && orphans && count > 0)
			*orphans = 1;
		if (!op)
			continue;
		const char *t = slash + 1;
		size_t tl = strlen(t);
		int ttl = tl > 4 && !strcmp(t + tl - 4, "~ttl");
		for (const char *const *x = op->vt->retired; x && *x && count > 0; x++)
			if (strlen(*x) == (ttl ? tl - 4 : tl) && !memcmp(*x, t, strlen(*x)))
				return sl_err_set(err, SL_ESTATE, "operator #%d %s (id %s): its state '%s' "
				                  "was written by an earlier version of sluice in a layout "
				                  "this version does not read; start the job without this "
				                  "checkpoint or savepoint, or finish it with the sluice "
				                  "that wrote it", op->id, op->vt->name, op->uid, *x);
		if (ttl == sl_state_ttl_chain_has(op->ttl_chain, t, ttl ? tl - 4 : tl))
			continue;
		return sl_err_set(err, SL_ESTATE, "operator #%d %s: its state '%.*s' was written %s a "
		                  "state TTL and the job has %s ('table.exec.state.ttl', STATE_TTL "
		                  "hint); restore with a TTL set as before (its value may change)",
		                  op->id, op->vt->name, (int)(ttl ? tl - 4 : tl), t,
		                  ttl ? "with" : "without", ttl ? "none" : "one");
	}
	return rc < 0 ? rc : 0;
}

/* The previous format: the same operators in the same order. */
static int restore_v1(sl_graph *g, sl_snap_reader *r, sl_err *err)
{
	uint32_t n = sl_snap_get_u32(r);
	if (n != (uint32_t)g->nops)
		return sl_err_set(err, SL_ESTATE, "snapshot has %u operators, the job has %d", n,
		                  g->nops);
	for (int i = 0; i < g->nops; i++) {
		sl_op *op = g->ops[i];
		size_t ulen, sublen;
		const char *uid = sl_snap_get_bytes(r, &ulen);
		const char *want = snap_id(g, op);
		if (!uid || ulen != strlen(want) || memcmp(uid, want, ulen))
			return sl_err_set(err, SL_ESTATE, "snapshot operator %d does not match '%s'", i,
			                  want);
		for (int k = 0; k < op->nin; k++)
			op->in_wm[k] = sl_snap_get_i64(r);
		op->wm = sl_snap_get_i64(r);
		op->out_wm = sl_snap_get_i64(r);
		const void *st = sl_snap_get_raw(r, sizeof(op->stats));
		if (st)
			memcpy(&op->stats, st, sizeof(op->stats));
		const void *sub = sl_snap_get_bytes(r, &sublen);
		if (!sl_snap_reader_ok(r))
			return sl_err_set(err, SL_ESTATE, "job snapshot truncated");
		if (op->vt->restore) {
			sl_snap_reader sr;
			sl_snap_reader_init(&sr, sub, sublen);
			int rc = op->vt->restore(op, &sr, err);
			if (rc)
				return rc;
		}
	}
	int rc = check_ttl_layout(g, *r, NULL, err);
	return rc ? rc : sl_state_restore(g->state, r, err);
}

/* The current format and SLG2: operators by id (restore_v1: by position). */
static int restore_by_id(sl_graph *g, sl_snap_reader *r, sl_err *err)
{
	uint32_t n = sl_snap_get_u32(r);
	if (n > 1u << 20)
		return sl_err_set(err, SL_ESTATE, "job snapshot damaged");
	snap_rec *recs = calloc(n ? n : 1, sizeof(*recs));
	if (!recs)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	sl_buf lost;
	sl_buf_init(&lost);
	int rc = 0;
	for (uint32_t i = 0; !rc && i < n; i++)
		rc = restore_op(g, r, &recs[i], err);
	if (!rc)
		rc = check_shared_ids(g, recs, n, *r, err);
	if (!rc)
		unclaimed_state(recs, n, &lost);
	free(recs);
	if (!rc && lost.len && !g->allow_non_restored)
		rc = sl_err_set(err, SL_ESTATE, "the snapshot holds state of operators the job no "
		                "longer has: %s (start with --allow-non-restored-state to drop it)",
		                sl_buf_cstr(&lost));
	sl_buf_deinit(&lost);
	int orphans = 0;
	sl_snap_reader state_at = *r;
	if (!rc)
		rc = check_ttl_layout(g, *r, &orphans, err);
	if (!rc)
		rc = sl_state_restore(g->state, r, err);
	if (!rc && orphans)
		rc = drop_unclaimed(g, state_at, err);
	return rc;
}

int sl_graph_restore(sl_graph *g, sl_snap_reader *r, sl_err *err)
{
	uint32_t magic = sl_snap_get_u32(r);
	if (magic != SNAP_MAGIC_V1 && magic != SNAP_MAGIC_V2 && magic != SNAP_MAGIC)
		return sl_err_set(err, SL_ESTATE, "not a sluice job snapshot");
	/* written before structural ids: match by the label-hash ids */
	g->restored_label_ids = magic != SNAP_MAGIC;
	void (*rename0)(void *, char *) = r->rename;
	void *ctx0 = r->rename_ctx;
	if (g->restored_label_ids) {
		r->rename = rename_table;
		r->rename_ctx = g;
	}
	int rc = magic == SNAP_MAGIC_V1 ? restore_v1(g, r, err) : restore_by_id(g, r, err);
	r->rename = rename0;
	r->rename_ctx = ctx0;
	return rc;
}

void sl_op_free(sl_op *op)
{
	if (!op)
		return;
	if (op->vt && op->vt->close)
		op->vt->close(op);
	sl_state_ttl_free_chain(op->ttl_chain);
	sl_op_observe_free(op);
	free(op->in_wm);
	free(op->in_idle);
	free(op->out_types);
	for (int k = 0; op->out_names && k < op->nout; k++)
		free((char *)op->out_names[k]);
	free(op->out_names);
	free(op->edges);
	free(op);
}

void sl_graph_deinit(sl_graph *g)
{
	for (int i = 0; i < g->nops; i++)
		sl_op_free(g->ops[i]);
	free(g->ops);
	memset(g, 0, sizeof(*g));
}
