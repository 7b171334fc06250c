/*
 * ckpt_coord.c - the checkpoint coordinator of a job (docs/semantics.md §3,
 * docs/checkpoints.md; the interface is ckpt_coord.h).
 *
 * One job runs on one thread and pushes each batch to the end of the graph
 * before reading the next, so between two pump steps every operator is
 * quiescent: that moment is an aligned barrier for every source at once.
 * A checkpoint there
 *   1. calls the pre_commit hook of every operator that has one (sinks:
 *      stage what they wrote since the last checkpoint, durable but
 *      invisible) and keeps what each returns to finish it later,
 *   2. snapshots the graph (sources' positions, watermarks, operators'
 *      scalars, the state backend) and the pre-commit data,
 *   3. writes them and the manifest atomically (checkpoint.c),
 *   4. calls every commit hook (sinks publish the staged files; a source
 *      may commit its positions), or every abort hook when steps 1-3
 *      failed, and prunes old checkpoints beyond
 *      'state.checkpoints.num-retained'.
 * At start the newest complete checkpoint or savepoint is restored and
 * every recover hook gets its operator's pre-commit data (sinks publish
 * the restored checkpoint's staged output if not yet published and delete
 * every other staged file; a sink that already published output of a
 * newer checkpoint makes the job refuse to start).  The hooks are the
 * operators' (src/exec/op.h): the coordinator calls whichever exist and
 * knows no operator or connector kind.
 *
 * Not stalling the pipeline: steps 2 and 3 run in a forked child (the
 * Redis BGSAVE technique).  fork() gives the child a copy-on-write image of
 * the process at the barrier, so the child serializes and writes exactly
 * the barrier's state while the parent goes on processing; the parent is
 * blocked only for the pre-commits and the fork itself (page tables:
 * about 2 MB per GB of heap).  When the child exits successfully the parent
 * runs step 4.  The child dies with its parent (PR_SET_PDEATHSIG), so
 * a killed job leaves either no manifest or a complete one whose sinks the
 * restart publishes.  The final checkpoint and savepoints are written
 * synchronously.  Requires that no other thread changes the memory the
 * child serializes: the huge-page collapser (state/hugepage.h) is paused
 * first; librdkafka's threads (Kafka connectors) may run, since the child
 * never calls into librdkafka nor takes a lock they can hold
 * (docs/checkpoints.md, "Kafka").  After the child exits the collapser maps the
 * state with huge pages again (docs/checkpoints.md, "Huge pages and fork");
 * in a parallel job it collapses every instance's regions, listed at the
 * barrier while the instances are parked.
 *
 * The RocksDB backend cannot be forked (its threads); there the state is
 * fixed at the barrier with sl_state_snap_begin and a writer thread does
 * steps 2 and 3 (struct ck_writer below).
 *
 * Parallel jobs (docs/parallel.md §5): the coordinator runs on the job's
 * coordinating thread and holds one part per task (sl_coord_set_parts).
 * Before the pre-commits the runtime parks every instance at an aligned
 * barrier (sl_coord_rt.park: then no thread changes any graph, every
 * channel is empty); the pre-commits, the fork or the RocksDB snapshots
 * run as above over every part, then the instances are released; phase
 * 2 runs on each instance's thread (sl_coord_rt.phase2).
 *
 * Snapshot layout, version 1 (parallelism 1): "SLJB", u32 1, the body: a
 * graph snapshot (graph.c), u32 n, n x (bytes uid, bytes pre-commit
 * data): one record per operator with a pre_commit hook, in graph order
 * (the sinks; docs/checkpoints.md).  Version 2 (parallelism > 1): "SLJB",
 * u32 2, one version-1 body per instance (its graph snapshot: operators'
 * scalars and its backend's state grouped by key group; its sinks'
 * pre-commit records), then an index: "SLJX", u32 n, n x (u32 par, u32
 * inst, u32 nuid, nuid x bytes uid: the instance's plan operators, i64
 * offset, i64 length of its body), and last the index's offset (i64).
 * The index lets a restore find every old instance holding an operator,
 * at any new parallelism (docs/parallel.md §7, docs/state.md).
 *
 * Restore of a parallel job: each instance takes the body of the same
 * instance of the same operators when every instance has one (a restart);
 * otherwise the job is rescaled (restore_rescale: every instance reads
 * every old body holding one of its operators, sl_graph_restore_rescaled;
 * old sink record j goes to new instance j % par).  A parallelism-1
 * snapshot into a parallel job, and a version 2 one into a job at 1, are
 * rescales too.
 */
#include "ckpt_coord.h"
#include "sluice.h"
#include "../base/fault.h"
#include "../state/checkpoint.h"
#include "../state/hugepage.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define JOB_MAGIC 0x424a4c53u /* "SLJB" */
#define JOB_VERSION 1         /* written at parallelism 1 */
#define JOB_VERSION_PAR 2     /* written at parallelism > 1 */
#define IDX_MAGIC 0x584a4c53u /* "SLJX" */

struct ck_writer;
static void writer_join_free(struct ck_writer *cw);

static int64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t wall_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static const char *opt2(sl_coord *c, const char *k, const char *alias)
{
	return sl_opts_get2(c->opts, k, alias);
}

/* Reads the checkpointing options; c->on stays 0 when no interval is set. */
static int read_config(sl_coord *c)
{
	int rc;
	if (!opt2(c, "execution.checkpointing.interval", NULL))
		return 0;
	if ((rc = sl_opts_duration(c->opts, "execution.checkpointing.interval", 0,
	                           &c->interval_us, c->err)) ||
	    (rc = sl_opts_duration(c->opts, "execution.checkpointing.min-pause", 0,
	                           &c->min_pause_us, c->err)))
		return rc;
	const char *ret = opt2(c, "state.checkpoints.num-retained",
	                       "execution.checkpointing.num-retained");
	c->retained = ret ? atoll(ret) : 1;
	if (c->retained < 1)
		c->retained = 1;
	const char *mode = opt2(c, "execution.checkpointing.mode", NULL);
	if (mode && strcmp(mode, "EXACTLY_ONCE") && strcmp(mode, "AT_LEAST_ONCE"))
		return sl_err_set(c->err, SL_EINVAL, "execution.checkpointing.mode: '%s' is not "
		                  "EXACTLY_ONCE or AT_LEAST_ONCE", mode);
	const char *job = opt2(c, "pipeline.name", NULL);
	if (!job)
		job = opt2(c, "sluice.script-name", NULL);
	if (!job)
		return sl_err_set(c->err, SL_EINVAL, "checkpointing needs a job name: SET "
		                  "'pipeline.name' = '...' (run -e and run - have no script file name)");
	snprintf(c->job, sizeof(c->job), "%s", job);
	snprintf(c->jobdir, sizeof(c->jobdir), "./sluice-state/%s", job);
	const char *d = opt2(c, "state.checkpoints.dir", "execution.checkpointing.dir");
	if (d)
		snprintf(c->dir, sizeof(c->dir), "%s", d);
	else
		snprintf(c->dir, sizeof(c->dir), "%s/checkpoints", c->jobdir);
	d = opt2(c, "state.savepoints.dir", "execution.checkpointing.savepoint-dir");
	if (d)
		snprintf(c->sp_dir, sizeof(c->sp_dir), "%s", d);
	else
		snprintf(c->sp_dir, sizeof(c->sp_dir), "%s/savepoints", c->jobdir);
	c->on = 1;
	return 0;
}

/* The run attempt: a counter in the job directory, bumped at every start. */
static int64_t next_attempt(sl_coord *c)
{
	char path[2200];
	snprintf(path, sizeof(path), "%s/attempt", c->jobdir);
	int64_t a = 0;
	FILE *f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%" SCNd64, &a) != 1)
			a = 0;
		fclose(f);
	}
	a++;
	if ((f = fopen(path, "w"))) {
		fprintf(f, "%" PRId64 "\n", a);
		fflush(f);
		fsync(fileno(f));
		fclose(f);
	}
	return a;
}

/* ---- restore --------------------------------------------------------------- */

/* The operator of g with id uid[0..n) that wrote pre-commit data (has
 * the hook); the id is of the scheme of the graph snapshot just restored
 * (sl_graph_op_by_snap_id: ids of snapshots written before structural ids
 * are matched too). */
static sl_op *committer_by_uid(sl_graph *g, const char *uid, size_t n)
{
	sl_op *op = sl_graph_op_by_snap_id(g, uid, n);
	return op && op->vt->pre_commit ? op : NULL;
}

/* Restores a version-1 body (graph snapshot, pre-commit records) into
 * part pt and calls its operators' recover hooks. */
static int restore_body(sl_coord *c, sl_coord_part *pt, sl_snap_reader *r)
{
	int rc = sl_graph_restore(pt->graph, r, c->err);
	if (rc)
		return rc;
	uint32_t n = sl_snap_get_u32(r);
	for (uint32_t i = 0; i < n && sl_snap_reader_ok(r); i++) {
		size_t ul, bl;
		const char *uid = sl_snap_get_bytes(r, &ul);
		const void *blob = sl_snap_get_bytes(r, &bl);
		sl_op *op = uid ? committer_by_uid(pt->graph, uid, ul) : NULL;
		if (!op)
			return sl_err_set(c->err, SL_ESTATE, "the checkpoint has output of a sink that "
			                  "the job no longer has");
		if (!op->vt->recover)
			continue;
		sl_snap_reader sr;
		sl_snap_reader_init(&sr, blob, bl);
		if ((rc = op->vt->recover(op, &sr, c->err)))
			return rc;
	}
	return sl_snap_reader_ok(r) ? 0 : sl_err_set(c->err, SL_ESTATE, "job snapshot truncated");
}

/* The plan operators of a part (not the exchanges' ends, which have no
 * id), in graph order. */
static int part_nuids(const sl_coord_part *pt)
{
	int n = 0;
	for (int i = 0; i < pt->graph->nops; i++)
		n += pt->graph->ops[i]->uid[0] != 0;
	return n;
}

/* One instance's body in a version-2 snapshot (its index entry). */
typedef struct snap_sec {
	uint32_t par, inst, nuid;
	sl_snap_reader uids; /* nuid x bytes uid */
	int64_t off, len;
	int used;
} snap_sec;

/* 1 when section s holds exactly the plan operators of part pt. */
static int sec_matches(const snap_sec *s, const sl_coord_part *pt)
{
	if ((int)s->par != pt->par || (int)s->inst != pt->inst || (int)s->nuid != part_nuids(pt))
		return 0;
	sl_snap_reader r = s->uids;
	for (uint32_t k = 0; k < s->nuid; k++) {
		size_t ul;
		const char *u = sl_snap_get_bytes(&r, &ul);
		int found = 0;
		for (int i = 0; u && !found && i < pt->graph->nops; i++)
			found = strlen(pt->graph->ops[i]->uid) == ul && !memcmp(pt->graph->ops[i]->uid, u, ul);
		if (!found)
			return 0;
	}
	return 1;
}

/* 1 when section s holds operator uid. */
static int sec_has(const snap_sec *s, const char *uid)
{
	sl_snap_reader r = s->uids;
	size_t n = strlen(uid);
	for (uint32_t k = 0; k < s->nuid; k++) {
		size_t ul;
		const char *u = sl_snap_get_bytes(&r, &ul);
		if (u && ul == n && !memcmp(u, uid, n))
			return 1;
	}
	return 0;
}

/* The largest parallelism among a version-2 snapshot's instances. */
static uint32_t secs_par(const snap_sec *secs, uint32_t n)
{
	uint32_t p = 0;
	for (uint32_t i = 0; i < n; i++)
		if (secs[i].par > p)
			p = secs[i].par;
	return p;
}

/* A snapshot's instances: the index of a version-2 snapshot, or one
 * section for the body of a version-1 one (parallelism 1; its operators'
 * ids read from its graph snapshot).  *out (free it) and *nout. */
typedef struct id_list {
	sl_snap_writer w; /* nid x bytes id */
	uint32_t n;
} id_list;

static void add_id(void *ctx, const char *id, size_t n)
{
	id_list *l = ctx;
	sl_snap_put_bytes(&l->w, id, n);
	l->n++;
}

static int load_secs(sl_coord *c, const uint8_t *data, size_t len, uint32_t version,
                     id_list *v1ids, snap_sec **out, uint32_t *nout)
{
	*out = NULL;
	*nout = 0;
	if (version != JOB_VERSION_PAR) {
		sl_snap_reader r;
		sl_snap_reader_init(&r, data + 8, len - 8);
		int rc = sl_graph_snap_ids(r, add_id, v1ids, c->err);
		if (rc)
			return rc;
		if (v1ids->w.failed)
			return sl_err_set(c->err, SL_ENOMEM, "out of memory");
		snap_sec *s = calloc(1, sizeof(*s));
		if (!s)
			return sl_err_set(c->err, SL_ENOMEM, "out of memory");
		s->par = 1;
		s->nuid = v1ids->n;
		sl_snap_reader_init(&s->uids, v1ids->w.buf, v1ids->w.len);
		s->off = 8;
		s->len = (int64_t)len - 8;
		*out = s;
		*nout = 1;
		return 0;
	}
	if (len < 16)
		return sl_err_set(c->err, SL_ESTATE, "job snapshot truncated");
	sl_snap_reader r;
	sl_snap_reader_init(&r, data + len - 8, 8);
	int64_t ioff = sl_snap_get_i64(&r);
	if (ioff < 8 || (uint64_t)ioff > len - 8)
		return sl_err_set(c->err, SL_ESTATE, "job snapshot damaged (its index)");
	sl_snap_reader_init(&r, data + ioff, len - 8 - (size_t)ioff);
	uint32_t magic = sl_snap_get_u32(&r), n = sl_snap_get_u32(&r);
	if (magic != IDX_MAGIC || !sl_snap_reader_ok(&r) || n > 1u << 20)
		return sl_err_set(c->err, SL_ESTATE, "job snapshot damaged (its index)");
	snap_sec *secs = calloc(n ? n : 1, sizeof(*secs));
	if (!secs)
		return sl_err_set(c->err, SL_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < n && sl_snap_reader_ok(&r); i++) {
		snap_sec *s = &secs[i];
		s->par = sl_snap_get_u32(&r);
		s->inst = sl_snap_get_u32(&r);
		s->nuid = sl_snap_get_u32(&r);
		s->uids = r;
		for (uint32_t k = 0; k < s->nuid && sl_snap_reader_ok(&r); k++) {
			size_t ul;
			sl_snap_get_bytes(&r, &ul);
		}
		s->off = sl_snap_get_i64(&r);
		s->len = sl_snap_get_i64(&r);
		if (s->off < 8 || s->len < 0 || s->off > ioff || s->len > ioff - s->off ||
		    s->inst >= s->par)
			r.failed = 1;
	}
	if (!sl_snap_reader_ok(&r)) {
		free(secs);
		return sl_err_set(c->err, SL_ESTATE, "job snapshot damaged (its index)");
	}
	*out = secs;
	*nout = n;
	return 0;
}

/* 1 when some part's graph has operator id[0..n). */
static int parts_have(const sl_coord *c, const char *id, size_t n)
{
	for (int k = 0; k < c->nparts; k++) {
		const sl_graph *g = c->parts[k].graph;
		for (int i = 0; i < g->nops; i++)
			if (strlen(g->ops[i]->uid) == n && !memcmp(g->ops[i]->uid, id, n))
				return 1;
	}
	return 0;
}

/* 1 when section s holds some operator of graph g. */
static int sec_touches(const snap_sec *s, const sl_graph *g)
{
	for (int i = 0; i < g->nops; i++)
		if (g->ops[i]->uid[0] && sec_has(s, g->ops[i]->uid))
			return 1;
	return 0;
}

/*
 * A rescale (docs/parallel.md §7): the snapshot's instances are not the
 * job's.  Every old operator must be some new instance's (else refused,
 * as an operator the job no longer has, unless the user allowed dropping
 * its state); each new instance restores from every old instance holding
 * one of its operators (sl_graph_restore_rescaled: its key groups, the
 * scalars by each kind's merge rule, the sources' positions from every
 * old instance); the sink record of old instance j goes to new instance j
 * % par of that sink, so every record is recovered by exactly one.
 */
static int restore_rescale(sl_coord *c, const uint8_t *data, snap_sec *secs, uint32_t n)
{
	sl_buf lost;
	sl_buf_init(&lost);
	for (uint32_t i = 0; i < n; i++) {
		sl_snap_reader r = secs[i].uids;
		for (uint32_t k = 0; k < secs[i].nuid; k++) {
			size_t ul;
			const char *u = sl_snap_get_bytes(&r, &ul);
			char id[80];
			snprintf(id, sizeof(id), "%.*s", (int)(ul < 64 ? ul : 64), u ? u : "");
			if (u && !parts_have(c, u, ul) && !strstr(sl_buf_cstr(&lost), id))
				sl_buf_printf(&lost, "%s%s", lost.len ? ", " : "", id);
		}
	}
	int rc = 0;
	if (lost.len && !c->parts[0].graph->allow_non_restored)
		rc = sl_err_set(c->err, SL_ESTATE, "restoring at another parallelism: the snapshot "
		                "holds operators the job no longer has: %s (start with "
		                "--allow-non-restored-state to drop their state)", sl_buf_cstr(&lost));
	sl_buf_deinit(&lost);
	sl_snap_reader *rd = calloc(n ? n : 1, sizeof(*rd));
	int *from = calloc(n ? n : 1, sizeof(int));
	uint32_t *which = calloc(n ? n : 1, sizeof(uint32_t));
	if (!rc && (!rd || !from || !which))
		rc = sl_err_set(c->err, SL_ENOMEM, "out of memory");
	for (int k = 0; !rc && k < c->nparts; k++) {
		sl_coord_part *pt = &c->parts[k];
		int m = 0;
		for (uint32_t i = 0; i < n; i++)
			if (sec_touches(&secs[i], pt->graph)) {
				sl_snap_reader_init(&rd[m], data + secs[i].off, (size_t)secs[i].len);
				from[m] = (int)secs[i].inst;
				which[m++] = i;
			}
		rc = sl_graph_restore_rescaled(pt->graph, rd, from, m, pt->inst, pt->par, c->err);
		/* the sinks' records: old instance j's to new instance j % par */
		for (int i = 0; !rc && i < m; i++) {
			uint32_t nr = sl_snap_get_u32(&rd[i]);
			for (uint32_t q = 0; !rc && q < nr && sl_snap_reader_ok(&rd[i]); q++) {
				size_t ul, bl;
				const char *uid = sl_snap_get_bytes(&rd[i], &ul);
				const void *blob = sl_snap_get_bytes(&rd[i], &bl);
				sl_op *op = uid ? committer_by_uid(pt->graph, uid, ul) : NULL;
				if (!op || from[i] % pt->par != pt->inst || !op->vt->recover)
					continue;
				sl_snap_reader sr;
				sl_snap_reader_init(&sr, blob, bl);
				rc = op->vt->recover(op, &sr, c->err);
			}
			if (!rc && !sl_snap_reader_ok(&rd[i]))
				rc = sl_err_set(c->err, SL_ESTATE, "job snapshot truncated");
		}
		if (rc)
			sl_err_prefix(c->err, "instance %d of %d", pt->inst, pt->par);
	}
	free(rd);
	free(from);
	free(which);
	return rc;
}

/*
 * A snapshot of a parallel job (version 2), or one of parallelism 1
 * restored into a parallel job.  Each instance of the job gets the body
 * written by the same instance of the same operators at the same
 * parallelism when every instance has one (a restart); otherwise the job
 * is rescaled (restore_rescale).
 */
static int restore_par(sl_coord *c, const uint8_t *data, size_t len, uint32_t version)
{
	id_list v1ids = {0};
	sl_snap_writer_init(&v1ids.w);
	snap_sec *secs;
	uint32_t n;
	int rc = load_secs(c, data, len, version, &v1ids, &secs, &n);
	int *of = rc ? NULL : calloc((size_t)c->nparts, sizeof(int));
	if (!rc && !of)
		rc = sl_err_set(c->err, SL_ENOMEM, "out of memory");
	int exact = !rc && version == JOB_VERSION_PAR && c->multi;
	for (int k = 0; exact && k < c->nparts; k++) {
		of[k] = -1;
		for (uint32_t i = 0; i < n && of[k] < 0; i++)
			if (!secs[i].used && sec_matches(&secs[i], &c->parts[k])) {
				secs[i].used = 1;
				of[k] = (int)i;
			}
		exact = of[k] >= 0;
	}
	for (uint32_t i = 0; exact && i < n; i++)
		exact = secs[i].used;
	if (!rc && !exact && c->on) /* a checkpoint or savepoint (not the API's) */
		fprintf(stderr, "sluice: rescaling from %u instances at parallelism %u to %d at "
		        "parallelism %d\n", n, secs_par(secs, n), c->nparts,
		        c->parts[c->nparts - 1].par);
	if (!rc && !exact)
		rc = restore_rescale(c, data, secs, n);
	for (int k = 0; !rc && exact && k < c->nparts; k++) {
		/* a source instance's restore gets the snapshots of every instance
		 * of the run that took the checkpoint (connector/conn.h), its own
		 * last, in restore_body */
		sl_graph *g = c->parts[k].graph;
		for (int o = 0; !rc && o < g->nops; o++) {
			sl_op *op = g->ops[o];
			if (op->nin || op->vt->kind != SL_OPK_SCAN || !op->uid[0])
				continue;
			for (uint32_t i = 0; !rc && i < n; i++) {
				if ((int)i == of[k] || !sec_has(&secs[i], op->uid))
					continue;
				sl_snap_reader b;
				sl_snap_reader_init(&b, data + secs[i].off, (size_t)secs[i].len);
				rc = sl_graph_restore_op_from(op, b, c->err);
			}
		}
		const snap_sec *s = &secs[of[k]];
		sl_snap_reader b;
		sl_snap_reader_init(&b, data + s->off, (size_t)s->len);
		if (!rc)
			rc = restore_body(c, &c->parts[k], &b);
	}
	free(of);
	free(secs);
	sl_snap_writer_deinit(&v1ids.w);
	return rc;
}

static int restore_blob(sl_coord *c, const void *data, size_t len)
{
	sl_snap_reader r;
	sl_snap_reader_init(&r, data, len);
	uint32_t magic = sl_snap_get_u32(&r), version = sl_snap_get_u32(&r);
	if (magic != JOB_MAGIC || version > JOB_VERSION_PAR || !sl_snap_reader_ok(&r))
		return sl_err_set(c->err, SL_ESTATE, "not a sluice job snapshot (or a newer format)");
	if (version == JOB_VERSION_PAR || c->multi)
		return restore_par(c, data, len, version);
	return restore_body(c, &c->parts[0], &r);
}

/* A fresh start: every recover hook rolls back what earlier attempts
 * staged (sinks delete their staged output). */
static int recover_fresh(sl_coord *c)
{
	for (int k = 0; k < c->nparts; k++) {
		sl_graph *g = c->parts[k].graph;
		for (int i = 0; i < g->nops; i++) {
			sl_op *op = g->ops[i];
			if (!op->vt->recover)
				continue;
			int rc = op->vt->recover(op, NULL, c->err); /* nothing to publish */
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Tries the checkpoint in `path`; 1 restored (*finished set), 0 skipped
 * (damaged), < 0 error. */
static int try_restore(sl_coord *c, const char *path, int *finished)
{
	int64_t t0 = mono_us();
	sl_ckpt_meta meta;
	void *data;
	size_t len;
	sl_err rerr;
	sl_err_clear(&rerr);
	if (sl_ckpt_read(path, &meta, &data, &len, &rerr)) {
		fprintf(stderr, "sluice: %s; trying an older checkpoint\n", rerr.msg);
		return 0;
	}
	int rc = restore_blob(c, data, len);
	sl_ckpt_data_free(data, len);
	if (rc) {
		sl_err_prefix(c->err, "%s", path);
		return rc;
	}
	c->restored_id = meta.id;
	snprintf(c->restored_path, sizeof(c->restored_path), "%s", path);
	*finished = meta.finished;
	fprintf(stderr, "sluice: resuming from %s %s%s\n", meta.savepoint ? "savepoint" : "checkpoint",
	        path, meta.finished ? " (the job had finished)" : "");
	sl_buf_printf(&c->log, "restored %s in %.1f ms (%zu bytes)\n", path,
	              (mono_us() - t0) / 1000.0, len);
	return 1;
}

/* Restore candidates: checkpoints and savepoints, newest id first. */
static int restore_newest(sl_coord *c, int *finished)
{
	int64_t ck[256], s[256];
	int nc = sl_ckpt_list(c->dir, "chk", ck, 256);
	int ns = sl_ckpt_list(c->sp_dir, "savepoint", s, 256);
	int i = 0, k = 0;
	char path[4200];
	while (i < nc || k < ns) {
		int sp = k < ns && (i >= nc || s[k] > ck[i]);
		int64_t id = sp ? s[k++] : ck[i++];
		snprintf(path, sizeof(path), "%s/%s-%" PRId64, sp ? c->sp_dir : c->dir,
		         sp ? "savepoint" : "chk", id);
		if (!sl_ckpt_has_manifest(path))
			continue; /* never completed */
		int rc = try_restore(c, path, finished);
		if (rc)
			return rc < 0 ? rc : 0;
	}
	return recover_fresh(c);
}

void sl_coord_init(sl_coord *c)
{
	memset(c, 0, sizeof(*c));
	c->lock_fd = -1;
}

int sl_coord_prepare(sl_coord *c, const sl_opts *opts, sl_graph *g, sl_state_backend *st,
                     sl_err *err)
{
	c->opts = opts;
	c->graph = g;
	c->state = st;
	c->err = err;
	c->one = (sl_coord_part){g, st, 1, 0};
	c->parts = &c->one;
	c->nparts = 1;
	int rc = read_config(c);
	if (rc || !c->on)
		return rc;
	if ((rc = sl_ckpt_lock(c->jobdir, c->err)) < 0)
		return rc;
	c->lock_fd = rc;
	c->attempt = next_attempt(c);
	sl_fault_set_main();
	return 0;
}

int sl_coord_set_parts(sl_coord *c, const sl_coord_part *parts, int n, const sl_coord_rt *rt)
{
	sl_coord_part *p = malloc(sizeof(*p) * (size_t)(n ? n : 1));
	if (!p)
		return sl_err_set(c->err, SL_ENOMEM, "out of memory");
	memcpy(p, parts, sizeof(*p) * (size_t)n);
	if (c->parts != &c->one)
		free(c->parts);
	c->parts = p;
	c->nparts = n;
	c->multi = 1;
	c->rt = *rt;
	return 0;
}

int sl_coord_restore(sl_coord *c, int *finished)
{
	int rc;
	if (!c->on)
		return 0;
	*finished = 0;
	const char *from = opt2(c, "execution.savepoint.path", "execution.state-recovery.path");
	const char *fresh = opt2(c, "sluice.fresh", NULL);
	if (from) {
		rc = try_restore(c, from, finished);
		if (rc == 0)
			rc = sl_err_set(c->err, SL_ESTATE, "cannot restore from '%s'", from);
		rc = rc < 0 ? rc : 0;
	} else if (fresh && !strcmp(fresh, "true")) {
		rc = recover_fresh(c);
	} else {
		rc = restore_newest(c, finished);
	}
	if (rc)
		return rc;
	int64_t a = sl_ckpt_max_id(c->dir, "chk"), b = sl_ckpt_max_id(c->sp_dir, "savepoint");
	c->next_id = (a > b ? a : b) + 1;
	c->last_end_us = mono_us();
	return 0;
}

void sl_coord_close(sl_coord *c)
{
	if (c->pending_thr) {
		/* as below: let the writer finish before the state goes away */
		writer_join_free(c->pending_thr);
		c->pending_thr = NULL;
	}
	if (c->pending_pid) {
		/* closing without finishing: the child may complete the files;
		 * wait so that it does not outlive the lock */
		waitpid(c->pending_pid, NULL, 0);
		c->pending_pid = 0;
	}
	sl_collapser_free(c->collapser);
	if (c->parts != &c->one)
		free(c->parts);
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	sl_buf_deinit(&c->log);
	sl_coord_init(c);
}

/* ---- taking checkpoints --------------------------------------------------- */

/* Phase 1 in part pt: calls the pre_commit hook of every operator that
 * has one for checkpoint id, into `pc` (the pre-commit section: a record
 * per such operator, in graph order). */
static int pre_commit_part(sl_coord_part *pt, int64_t id, sl_snap_writer *pc, sl_err *err)
{
	sl_graph *g = pt->graph;
	uint32_t n = 0;
	for (int i = 0; i < g->nops; i++)
		n += g->ops[i]->vt->pre_commit != NULL;
	sl_snap_put_u32(pc, n);
	for (int i = 0; i < g->nops; i++) {
		sl_op *op = g->ops[i];
		if (!op->vt->pre_commit)
			continue;
		sl_snap_writer sub;
		sl_snap_writer_init(&sub);
		int rc = op->vt->pre_commit(op, id, &sub, err);
		sl_snap_put_bytes(pc, op->uid, strlen(op->uid));
		sl_snap_put_bytes(pc, sub.buf, sub.len);
		sl_snap_writer_deinit(&sub);
		if (rc)
			return rc;
	}
	return pc->failed ? sl_err_set(err, SL_ENOMEM, "out of memory") : 0;
}

/* Per part: its pre-commit section, and (the writer-thread path) its
 * operators' section and its state fixed at the barrier. */
typedef struct part_snap {
	sl_snap_writer pc, ops;
	sl_state_snap *snap;
} part_snap;

static part_snap *parts_new(sl_coord *c)
{
	part_snap *ps = calloc((size_t)c->nparts, sizeof(*ps));
	for (int k = 0; ps && k < c->nparts; k++) {
		sl_snap_writer_init(&ps[k].pc);
		sl_snap_writer_init(&ps[k].ops);
	}
	if (!ps)
		sl_err_set(c->err, SL_ENOMEM, "out of memory");
	return ps;
}

static void parts_free(part_snap *ps, int n)
{
	for (int k = 0; ps && k < n; k++) {
		sl_snap_writer_deinit(&ps[k].pc);
		sl_snap_writer_deinit(&ps[k].ops);
		sl_state_snap_free(ps[k].snap);
	}
	free(ps);
}

/* Phase 1 in every part. */
static int pre_commit_all(sl_coord *c, int64_t id, part_snap *ps)
{
	/* parallelism 1: the barrier reaches every operator at once (a
	 * parallel job's instances ran their pre_barrier hooks already) */
	int rc0 = c->multi ? 0 : sl_graph_pre_barrier(c->parts[0].graph, c->err);
	if (rc0)
		return rc0;
	for (int k = 0; k < c->nparts; k++) {
		int rc = pre_commit_part(&c->parts[k], id, &ps[k].pc, c->err);
		if (rc)
			return rc;
	}
	return 0;
}

static uint64_t wpos(const sl_snap_writer *w)
{
	return w->flushed + w->len;
}

/*
 * Serializes the parts and their pre-commit sections ps[k].pc into w
 * (write_job streams the checkpoint files: the snapshot is never held
 * whole in memory).
 * With `fixed`, each part's operator section and state are the ones
 * taken at the barrier (ps[k].ops, ps[k].snap: the writer-thread path);
 * otherwise the live graphs are written.  Reads c's directories and
 * parts only, so it may run on the writer thread.
 */
static int write_parts(sl_coord *c, part_snap *ps, int fixed, sl_snap_writer *w, sl_err *err)
{
	int rc = 0;
	sl_snap_put_u32(w, JOB_MAGIC);
	sl_snap_put_u32(w, c->multi ? JOB_VERSION_PAR : JOB_VERSION);
	int64_t *off = calloc((size_t)c->nparts * 2, sizeof(int64_t));
	if (!off)
		rc = sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int k = 0; !rc && k < c->nparts; k++) {
		off[2 * k] = (int64_t)wpos(w);
		if (fixed) {
			sl_snap_put_raw(w, ps[k].ops.buf, ps[k].ops.len);
			rc = sl_state_snap_write(ps[k].snap, w, err);
		} else {
			rc = sl_graph_snapshot(c->parts[k].graph, w, err);
		}
		sl_snap_put_raw(w, ps[k].pc.buf, ps[k].pc.len);
		off[2 * k + 1] = (int64_t)wpos(w) - off[2 * k];
	}
	if (!rc && c->multi) { /* the index (see the file comment) */
		int64_t ioff = (int64_t)wpos(w);
		sl_snap_put_u32(w, IDX_MAGIC);
		sl_snap_put_u32(w, (uint32_t)c->nparts);
		for (int k = 0; k < c->nparts; k++) {
			const sl_coord_part *pt = &c->parts[k];
			sl_snap_put_u32(w, (uint32_t)pt->par);
			sl_snap_put_u32(w, (uint32_t)pt->inst);
			sl_snap_put_u32(w, (uint32_t)part_nuids(pt));
			for (int i = 0; i < pt->graph->nops; i++)
				if (pt->graph->ops[i]->uid[0])
					sl_snap_put_bytes(w, pt->graph->ops[i]->uid, strlen(pt->graph->ops[i]->uid));
			sl_snap_put_i64(w, off[2 * k]);
			sl_snap_put_i64(w, off[2 * k + 1]);
		}
		sl_snap_put_i64(w, ioff);
	}
	free(off);
	return rc;
}

static int write_job(sl_coord *c, const sl_ckpt_meta *meta, part_snap *ps, int fixed,
                     size_t *size, sl_err *err)
{
	sl_ckpt_out out;
	const char *base = meta->savepoint ? c->sp_dir : c->dir;
	int rc = sl_ckpt_begin(&out, base, meta->savepoint ? "savepoint" : "chk", meta->id, err);
	if (rc) {
		sl_ckpt_abandon(&out);
		return rc;
	}
	sl_snap_writer *w = &out.w;
	rc = write_parts(c, ps, fixed, w, err);
	if (!rc && w->failed)
		rc = sl_err_set(err, SL_EIO, "cannot write checkpoint %" PRId64, meta->id);
	*size = (size_t)wpos(w);
	if (rc) {
		sl_ckpt_abandon(&out);
		return rc;
	}
	return sl_ckpt_commit(&out, meta, err);
}

int sl_coord_snapshot_parts(sl_coord_part *parts, int n, sl_snap_writer *w, sl_err *err)
{
	sl_coord c;
	sl_coord_init(&c);
	c.parts = parts;
	c.nparts = n;
	c.multi = 1;
	c.err = err;
	part_snap *ps = parts_new(&c);
	if (!ps)
		return err->code;
	for (int k = 0; k < n; k++)
		sl_snap_put_u32(&ps[k].pc, 0); /* no sink's record: the API's snapshot */
	int rc = write_parts(&c, ps, 0, w, err);
	parts_free(ps, n);
	return !rc && w->failed ? sl_err_set(err, SL_ENOMEM, "out of memory") : rc;
}

int sl_coord_is_job_snapshot(const void *buf, size_t len)
{
	sl_snap_reader r;
	sl_snap_reader_init(&r, buf, len);
	return sl_snap_get_u32(&r) == JOB_MAGIC && sl_snap_reader_ok(&r);
}

int sl_coord_restore_parts(sl_coord_part *parts, int n, int multi, const void *buf, size_t len,
                           sl_err *err)
{
	sl_coord c;
	sl_coord_init(&c);
	c.parts = parts;
	c.nparts = n;
	c.multi = multi;
	c.err = err;
	if (sl_coord_is_job_snapshot(buf, len))
		return restore_blob(&c, buf, len);
	/* a graph snapshot (sl_snapshot at parallelism 1): the body of a
	 * version-1 job snapshot without sinks' records */
	sl_snap_writer w;
	sl_snap_writer_init(&w);
	sl_snap_put_u32(&w, JOB_MAGIC);
	sl_snap_put_u32(&w, JOB_VERSION);
	sl_snap_put_raw(&w, buf, len);
	sl_snap_put_u32(&w, 0);
	int rc = w.failed ? sl_err_set(err, SL_ENOMEM, "out of memory")
	                  : restore_blob(&c, w.buf, w.len);
	sl_snap_writer_deinit(&w);
	return rc;
}

/*
 * A checkpoint written by a thread (backends that cannot be forked:
 * RocksDB).  At the barrier the job thread runs the pre-commits and
 * serializes the operators' scalars into memory and fixes the state with
 * sl_state_snap_begin, per part; the thread writes the files and the
 * manifest while the job goes on; the job thread runs the commits once
 * `done` is set.
 */
struct ck_writer {
	sl_coord *c;
	sl_ckpt_meta meta;
	part_snap *ps;
	int nparts;
	pthread_t thread;
	sl_err err;
	int rc;
	size_t size;
	atomic_int done;
};

static void *writer_main(void *arg)
{
	struct ck_writer *cw = arg;
	sl_err_clear(&cw->err);
	cw->rc = write_job(cw->c, &cw->meta, cw->ps, 1, &cw->size, &cw->err);
	atomic_store(&cw->done, 1);
	return NULL;
}

static void writer_free(struct ck_writer *cw)
{
	parts_free(cw->ps, cw->nparts);
	free(cw);
}

static void writer_join_free(struct ck_writer *cw)
{
	pthread_join(cw->thread, NULL);
	writer_free(cw);
}

static void prune(sl_coord *c)
{
	int64_t ids[1024];
	int n = sl_ckpt_list(c->dir, "chk", ids, 1024);
	int kept = 0;
	char path[4200];
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/chk-%" PRId64, c->dir, ids[i]);
		if (sl_ckpt_has_manifest(path) && kept < c->retained) {
			kept++;
			continue;
		}
		if (kept > 0) /* older than a retained complete one: not needed */
			sl_ckpt_remove(path);
	}
}

/* Appends a checkpoint to the live metrics' history (ckpt_coord.h). */
static void hist_put(sl_coord_metrics *m, int64_t id, int failed, int savepoint, int64_t t0,
                     int64_t t1, int64_t size, int64_t blocked)
{
	sl_coord_hist *h = &m->hist[m->nhist % SL_COORD_HIST];
	int64_t s = h->seq;
	__atomic_store_n(&h->seq, s + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	SL_CTR_SET(h->id, id);
	SL_CTR_SET(h->status, failed ? 2 : 1);
	SL_CTR_SET(h->savepoint, savepoint);
	SL_CTR_SET(h->trigger_us, wall_us() - (t1 - t0));
	SL_CTR_SET(h->duration_us, t1 - t0);
	SL_CTR_SET(h->size, size);
	SL_CTR_SET(h->blocked_us, blocked);
	__atomic_store_n(&h->seq, s + 2, __ATOMIC_RELEASE);
	SL_CTR_SET(m->nhist, m->nhist + 1);
}

/*
 * Phase 2 of checkpoint id: calls every operator's commit hook, in graph
 * order, or its abort hook once the checkpoint (failed != 0) or an earlier
 * commit failed (a parallel job: on each instance's thread, rt.phase2);
 * then prunes and logs.  Returns 0 or the first error.
 */
static int finish_ckpt(sl_coord *c, int64_t id, int failed, int savepoint, int final,
                       size_t size, int64_t t0, int64_t blocked, int64_t aligned)
{
	int rc = failed;
	if (c->rt.phase2) {
		int r2 = c->rt.phase2(c->rt.ctx, id, rc != 0, c->err);
		if (!rc)
			rc = r2;
	} else {
		sl_graph *g = c->parts[0].graph;
		for (int i = 0; i < g->nops; i++) {
			sl_op *op = g->ops[i];
			int (*hook)(sl_op *, int64_t, sl_err *) = rc ? op->vt->abort : op->vt->commit;
			if (!hook)
				continue;
			int r2 = hook(op, id, c->err);
			if (!rc && r2)
				rc = r2;
			if (!rc)
				sl_fault("mid-sink-publish"); /* some published, others not */
		}
	}
	if (rc) {
		SL_CTR_ADD(c->m.failed, 1);
		hist_put(&c->m, id, 1, savepoint, t0, mono_us(), 0, blocked);
		return rc;
	}
	if (!savepoint)
		prune(c);
	int64_t t1 = mono_us();
	hist_put(&c->m, id, 0, savepoint, t0, t1, (int64_t)size, blocked);
	c->last_end_us = t1;
	/* the live metrics (read from other threads: base/counter.h) */
	SL_CTR_SET(c->m.last_id, id);
	SL_CTR_SET(c->m.last_duration_us, t1 - t0);
	SL_CTR_SET(c->m.last_size, (int64_t)size);
	SL_CTR_SET(c->m.last_blocked_us, blocked);
	SL_CTR_SET(c->m.last_end_wall_us, wall_us());
	SL_CTR_ADD(c->m.completed, 1);
	sl_buf_printf(&c->log, "%s %" PRId64 ": %.1f ms, %zu bytes, blocked %.2f ms",
	              savepoint ? "savepoint" : final ? "final checkpoint" : "checkpoint", id,
	              (t1 - t0) / 1000.0, size, blocked / 1000.0);
	if (c->multi)
		sl_buf_printf(&c->log, ", aligned %.2f ms", aligned / 1000.0);
	sl_buf_printf(&c->log, "\n");
	return 0;
}

static void fill_meta(sl_coord *c, sl_ckpt_meta *meta, int64_t id, int savepoint, int finished)
{
	memset(meta, 0, sizeof(*meta));
	meta->id = id;
	meta->attempt = c->attempt;
	meta->finished = finished;
	meta->savepoint = savepoint;
	meta->version = SL_CKPT_VERSION;
	snprintf(meta->job, sizeof(meta->job), "%s", c->job);
}

/* Waits for the pending writer thread (block = 1) or polls it. */
static int reap_thread(sl_coord *c, int block)
{
	struct ck_writer *cw = c->pending_thr;
	if (!block && !atomic_load(&cw->done))
		return 0;
	pthread_join(cw->thread, NULL);
	c->pending_thr = NULL;
	int rc = cw->rc;
	if (rc)
		sl_err_set(c->err, rc, "checkpoint %" PRId64 ": %s", cw->meta.id, cw->err.msg);
	rc = finish_ckpt(c, cw->meta.id, rc, 0, 0, cw->size, c->pending_t0,
	                 c->pending_blocked, c->pending_aligned);
	writer_free(cw);
	return rc;
}

/* Waits for the pending background checkpoint (block = 1) or polls it. */
static int reap(sl_coord *c, int block)
{
	if (c->pending_thr)
		return reap_thread(c, block);
	if (!c->pending_pid)
		return 0;
	int status;
	pid_t r = waitpid(c->pending_pid, &status, block ? 0 : WNOHANG);
	if (r == 0)
		return 0;
	int64_t id = c->pending_id;
	c->pending_pid = 0;
	int ok = r > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	if (!c->multi)
		sl_collapser_run(c->collapser, c->state); /* see hugepage.h */
	else
		sl_collapser_go(c->collapser); /* the regions taken at the barrier */
	if (!ok)
		sl_err_set(c->err, SL_EIO, "checkpoint %" PRId64 " failed while being written", id);
	char path[4200];
	struct stat st;
	snprintf(path, sizeof(path), "%s/chk-%" PRId64 "/state", c->dir, id);
	size_t size = ok && stat(path, &st) == 0 ? (size_t)st.st_size : 0;
	return finish_ckpt(c, id, ok ? 0 : SL_EIO, 0, 0, size, c->pending_t0, c->pending_blocked,
	                   c->pending_aligned);
}

int sl_coord_take(sl_coord *c, int savepoint, int finished, char *path, size_t cap)
{
	int rc = reap(c, 1); /* one checkpoint at a time */
	if (rc)
		return rc;
	sl_fault_tick();
	int64_t t0 = mono_us();
	int64_t id = c->next_id++;
	part_snap *ps = parts_new(c);
	if (!ps)
		return c->err->code;
	sl_ckpt_meta meta;
	fill_meta(c, &meta, id, savepoint, finished);
	size_t size = 0;
	rc = pre_commit_all(c, id, ps);
	if (!rc)
		rc = write_job(c, &meta, ps, 0, &size, c->err);
	parts_free(ps, c->nparts);
	int64_t blocked = mono_us() - t0;
	if ((rc = finish_ckpt(c, id, rc, savepoint, finished, size, t0, blocked, 0)))
		return rc;
	if (path)
		snprintf(path, cap, "%s/%s-%" PRId64, savepoint ? c->sp_dir : c->dir,
		         savepoint ? "savepoint" : "chk", id);
	return 0;
}

/* A parallel job: every instance parked at barrier id (1), the job ended
 * first (0), or an error.  At parallelism 1 the caller is between two
 * pump steps: always 1. */
static int park(sl_coord *c, int64_t id, int64_t *aligned)
{
	*aligned = 0;
	return c->rt.park ? c->rt.park(c->rt.ctx, id, aligned, c->err) : 1;
}

static void release(sl_coord *c)
{
	if (c->rt.release)
		c->rt.release(c->rt.ctx);
}

/* A periodic checkpoint written by a forked child (see the file comment). */
static int take_async(sl_coord *c)
{
	sl_fault_tick();
	int64_t t0 = mono_us(), aligned;
	int64_t id = c->next_id++;
	int rc = park(c, id, &aligned);
	if (rc <= 0)
		return rc;
	int64_t tp = mono_us();
	part_snap *ps = parts_new(c);
	rc = ps ? pre_commit_all(c, id, ps) : c->err->code;
	if (rc) {
		release(c);
		parts_free(ps, c->nparts);
		return finish_ckpt(c, id, rc, 0, 0, 0, t0, 0, aligned);
	}
	if (!c->collapser)
		c->collapser = sl_collapser_new(); /* NULL: no collapsing, still correct */
	sl_collapser_pause(c->collapser);      /* no other thread busy at fork */
	if (c->multi) { /* every instance's regions, now that none changes them */
		sl_state_backend **bes = malloc(sizeof(*bes) * (size_t)c->nparts);
		for (int k = 0; bes && k < c->nparts; k++)
			bes[k] = c->parts[k].state;
		if (bes)
			sl_collapser_take(c->collapser, bes, c->nparts);
		free(bes);
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(1);
		sl_ckpt_meta meta;
		fill_meta(c, &meta, id, 0, 0);
		size_t size;
		_exit(write_job(c, &meta, ps, 0, &size, c->err) ? 1 : 0);
	}
	release(c);
	parts_free(ps, c->nparts);
	if (pid < 0) {
		sl_err_set(c->err, SL_EIO, "cannot fork the checkpoint writer");
		return finish_ckpt(c, id, SL_EIO, 0, 0, 0, t0, 0, aligned);
	}
	c->pending_pid = pid;
	c->pending_id = id;
	c->pending_t0 = t0;
	c->pending_blocked = mono_us() - tp;
	c->pending_aligned = aligned;
	return 0;
}

/* What an instance does at its barrier on the no-park path: part k's
 * pre-commits, operators' section and state fixed (sl_coord_rt.barrier). */
typedef struct part_work_arg {
	sl_coord *c;
	part_snap *ps;
	int64_t id;
} part_work_arg;

/* Runs on instance k's thread (or the coordinator's when k ended):
 * touches only part k's graph and backend and ps[k]. */
static int part_work(void *arg, int k, sl_err *err)
{
	part_work_arg *a = arg;
	sl_coord_part *pt = &a->c->parts[k];
	part_snap *p = &a->ps[k];
	int rc = pre_commit_part(pt, a->id, &p->pc, err);
	if (!rc)
		rc = sl_graph_snapshot_ops(pt->graph, &p->ops, err);
	if (!rc && p->ops.failed)
		rc = sl_err_set(err, SL_ENOMEM, "out of memory");
	if (!rc)
		rc = sl_state_snap_begin(pt->state, NULL, &p->snap, err);
	return rc;
}

/* A periodic checkpoint written by a thread, parallel job, without
 * parking (docs/parallel.md §5, "Without parking"): each instance fixes
 * its own part at its own barrier and goes on; the writer thread starts
 * when the last one has.  Blocked: the longest instance's own work. */
static int take_thread_nopark(sl_coord *c)
{
	sl_fault_tick();
	int64_t t0 = mono_us(), aligned = 0, blocked = 0;
	int64_t id = c->next_id++;
	struct ck_writer *cw = calloc(1, sizeof(*cw));
	if (!cw) {
		sl_err_set(c->err, SL_ENOMEM, "out of memory");
		return finish_ckpt(c, id, SL_ENOMEM, 0, 0, 0, t0, 0, 0);
	}
	cw->c = c;
	cw->nparts = c->nparts;
	fill_meta(c, &cw->meta, id, 0, 0);
	cw->ps = parts_new(c);
	if (!cw->ps) {
		free(cw);
		return finish_ckpt(c, id, c->err->code, 0, 0, 0, t0, 0, 0);
	}
	part_work_arg a = {c, cw->ps, id};
	int work_rc = 0;
	int rc = c->rt.barrier(c->rt.ctx, id, part_work, &a, &work_rc, &aligned, &blocked, c->err);
	if (rc <= 0) { /* the job ended or failed first: nothing taken */
		writer_free(cw);
		return rc;
	}
	rc = work_rc;
	if (!rc && pthread_create(&cw->thread, NULL, writer_main, cw) != 0)
		rc = sl_err_set(c->err, SL_EIO, "cannot start the checkpoint writer thread");
	if (rc) {
		writer_free(cw);
		return finish_ckpt(c, id, rc, 0, 0, 0, t0, 0, aligned);
	}
	c->pending_thr = cw;
	c->pending_id = id;
	c->pending_t0 = t0;
	c->pending_blocked = blocked;
	c->pending_aligned = aligned;
	return 0;
}

/* A periodic checkpoint written by a thread (see struct ck_writer). */
static int take_thread(sl_coord *c)
{
	if (c->rt.barrier)
		return take_thread_nopark(c);
	sl_fault_tick();
	int64_t t0 = mono_us(), aligned;
	int64_t id = c->next_id++;
	int rc = park(c, id, &aligned);
	if (rc <= 0)
		return rc;
	int64_t tp = mono_us();
	struct ck_writer *cw = calloc(1, sizeof(*cw));
	if (!cw) {
		release(c);
		sl_err_set(c->err, SL_ENOMEM, "out of memory");
		return finish_ckpt(c, id, SL_ENOMEM, 0, 0, 0, t0, 0, aligned);
	}
	cw->c = c;
	cw->nparts = c->nparts;
	fill_meta(c, &cw->meta, id, 0, 0);
	cw->ps = parts_new(c);
	rc = cw->ps ? pre_commit_all(c, id, cw->ps) : c->err->code;
	for (int k = 0; !rc && k < c->nparts; k++) {
		part_snap *p = &cw->ps[k];
		rc = sl_graph_snapshot_ops(c->parts[k].graph, &p->ops, c->err);
		if (!rc && p->ops.failed)
			rc = sl_err_set(c->err, SL_ENOMEM, "out of memory");
		if (!rc)
			rc = sl_state_snap_begin(c->parts[k].state, NULL, &p->snap, c->err);
	}
	if (!rc && pthread_create(&cw->thread, NULL, writer_main, cw) != 0)
		rc = sl_err_set(c->err, SL_EIO, "cannot start the checkpoint writer thread");
	release(c);
	if (rc) {
		writer_free(cw);
		return finish_ckpt(c, id, rc, 0, 0, 0, t0, 0, aligned);
	}
	c->pending_thr = cw;
	c->pending_id = id;
	c->pending_t0 = t0;
	c->pending_blocked = mono_us() - tp;
	c->pending_aligned = aligned;
	return 0;
}

/* A periodic checkpoint written at the barrier (a backend with neither
 * fork nor two-step snapshots). */
static int take_sync(sl_coord *c)
{
	int64_t aligned;
	int rc = park(c, c->next_id, &aligned);
	if (rc <= 0)
		return rc;
	rc = sl_coord_take(c, 0, 0, NULL, 0);
	release(c);
	return rc;
}

int sl_coord_maybe(sl_coord *c)
{
	if (!c->on)
		return 0;
	int rc = reap(c, 0);
	if (rc || c->pending_pid || c->pending_thr)
		return rc;
	int64_t now = mono_us(), since = now - c->last_end_us;
	if (since < c->interval_us || since < c->min_pause_us)
		return 0;
	sl_state_backend *st = c->parts[0].state;
	if (!sl_state_backend_can_fork(st)) /* RocksDB's threads: no fork */
		return sl_state_snap_supported(st) ? take_thread(c) : take_sync(c);
	return take_async(c);
}
