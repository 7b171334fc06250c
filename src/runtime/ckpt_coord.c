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
 * state with huge pages again (docs/checkpoints.md, "Huge pages and fork").
 *
 * The RocksDB backend cannot be forked (its threads); there the state is
 * fixed at the barrier with sl_state_snap_begin and a writer thread does
 * steps 2 and 3 (struct ck_writer below).
 *
 * Snapshot layout: "SLJB", u32 version, graph snapshot (graph.c), u32 n,
 * n x (bytes uid, bytes pre-commit data): one record per operator with a
 * pre_commit hook, in graph order (the sinks; docs/checkpoints.md).
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
#define JOB_VERSION 1

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

/* The operator with id uid[0..n) that wrote pre-commit data (has the
 * hook); the id is of the scheme of the graph snapshot just restored
 * (sl_graph_op_by_snap_id: ids of snapshots written before structural ids
 * are matched too). */
static sl_op *committer_by_uid(sl_coord *c, const char *uid, size_t n)
{
	sl_op *op = sl_graph_op_by_snap_id(c->graph, uid, n);
	return op && op->vt->pre_commit ? op : NULL;
}

static int restore_blob(sl_coord *c, const void *data, size_t len)
{
	sl_snap_reader r;
	sl_snap_reader_init(&r, data, len);
	if (sl_snap_get_u32(&r) != JOB_MAGIC || sl_snap_get_u32(&r) > JOB_VERSION)
		return sl_err_set(c->err, SL_ESTATE, "not a sluice job snapshot (or a newer format)");
	int rc = sl_graph_restore(c->graph, &r, c->err);
	if (rc)
		return rc;
	uint32_t n = sl_snap_get_u32(&r);
	for (uint32_t i = 0; i < n && sl_snap_reader_ok(&r); i++) {
		size_t ul, bl;
		const char *uid = sl_snap_get_bytes(&r, &ul);
		const void *blob = sl_snap_get_bytes(&r, &bl);
		sl_op *op = uid ? committer_by_uid(c, uid, ul) : NULL;
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
	return sl_snap_reader_ok(&r) ? 0 : sl_err_set(c->err, SL_ESTATE, "job snapshot truncated");
}

/* A fresh start: every recover hook rolls back what earlier attempts
 * staged (sinks delete their staged output). */
static int recover_fresh(sl_coord *c)
{
	for (int i = 0; i < c->graph->nops; i++) {
		sl_op *op = c->graph->ops[i];
		if (!op->vt->recover)
			continue;
		int rc = op->vt->recover(op, NULL, c->err); /* nothing to publish */
		if (rc)
			return rc;
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
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	sl_buf_deinit(&c->log);
	sl_coord_init(c);
}

/* ---- taking checkpoints --------------------------------------------------- */

/* Phase 1: calls the pre_commit hook of every operator that has one for
 * checkpoint id, into `pc` (the pre-commit section: a record per such
 * operator, in graph order). */
static int pre_commit_all(sl_coord *c, int64_t id, sl_snap_writer *pc)
{
	uint32_t n = 0;
	for (int i = 0; i < c->graph->nops; i++)
		n += c->graph->ops[i]->vt->pre_commit != NULL;
	sl_snap_put_u32(pc, n);
	for (int i = 0; i < c->graph->nops; i++) {
		sl_op *op = c->graph->ops[i];
		if (!op->vt->pre_commit)
			continue;
		sl_snap_writer sub;
		sl_snap_writer_init(&sub);
		int rc = op->vt->pre_commit(op, id, &sub, c->err);
		sl_snap_put_bytes(pc, op->uid, strlen(op->uid));
		sl_snap_put_bytes(pc, sub.buf, sub.len);
		sl_snap_writer_deinit(&sub);
		if (rc)
			return rc;
	}
	return pc->failed ? sl_err_set(c->err, SL_ENOMEM, "out of memory") : 0;
}

/*
 * Serializes the graph and the pre-commit section pc, streaming the
 * checkpoint files (the snapshot is never held whole in memory).  ops and
 * snap, when not NULL, are the graph's operator section and the state
 * taken at the barrier (the writer-thread path); otherwise the live graph
 * is written.  Reads c's directories only, so it may run on the writer
 * thread.
 */
static int write_job(sl_coord *c, const sl_ckpt_meta *meta, const sl_snap_writer *ops,
                     sl_state_snap *snap, const sl_snap_writer *pc, size_t *size, sl_err *err)
{
	sl_ckpt_out out;
	const char *base = meta->savepoint ? c->sp_dir : c->dir;
	int rc = sl_ckpt_begin(&out, base, meta->savepoint ? "savepoint" : "chk", meta->id, err);
	if (rc) {
		sl_ckpt_abandon(&out);
		return rc;
	}
	sl_snap_writer *w = &out.w;
	sl_snap_put_u32(w, JOB_MAGIC);
	sl_snap_put_u32(w, JOB_VERSION);
	if (ops) {
		sl_snap_put_raw(w, ops->buf, ops->len);
		rc = sl_state_snap_write(snap, w, err);
	} else {
		rc = sl_graph_snapshot(c->graph, w, err);
	}
	sl_snap_put_raw(w, pc->buf, pc->len);
	if (!rc && w->failed)
		rc = sl_err_set(err, SL_EIO, "cannot write checkpoint %" PRId64, meta->id);
	*size = (size_t)(w->flushed + w->len);
	if (rc) {
		sl_ckpt_abandon(&out);
		return rc;
	}
	return sl_ckpt_commit(&out, meta, err);
}

/*
 * A checkpoint written by a thread (backends that cannot be forked:
 * RocksDB).  At the barrier the job thread runs the pre-commits and
 * serializes the operators' scalars into memory and fixes the state with
 * sl_state_snap_begin; the thread writes the files and the manifest while
 * the job goes on; the job thread runs the commits once `done` is set.
 */
struct ck_writer {
	sl_coord *c;
	sl_ckpt_meta meta;
	sl_snap_writer ops, pc;
	sl_state_snap *snap;
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
	cw->rc = write_job(cw->c, &cw->meta, &cw->ops, cw->snap, &cw->pc, &cw->size, &cw->err);
	atomic_store(&cw->done, 1);
	return NULL;
}

static void writer_free(struct ck_writer *cw)
{
	sl_state_snap_free(cw->snap);
	sl_snap_writer_deinit(&cw->ops);
	sl_snap_writer_deinit(&cw->pc);
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

/*
 * Phase 2 of checkpoint id: calls every operator's commit hook, in graph
 * order, or its abort hook once the checkpoint (failed != 0) or an earlier
 * commit failed; then prunes and logs.  Returns 0 or the first error.
 */
static int finish_ckpt(sl_coord *c, int64_t id, int failed, int savepoint, int final,
                       size_t size, int64_t t0, int64_t blocked)
{
	int rc = failed;
	for (int i = 0; i < c->graph->nops; i++) {
		sl_op *op = c->graph->ops[i];
		int (*hook)(sl_op *, int64_t, sl_err *) = rc ? op->vt->abort : op->vt->commit;
		if (!hook)
			continue;
		int r2 = hook(op, id, c->err);
		if (!rc && r2)
			rc = r2;
		if (!rc)
			sl_fault("mid-sink-publish"); /* some published, others not */
	}
	if (rc) {
		SL_CTR_ADD(c->m.failed, 1);
		return rc;
	}
	if (!savepoint)
		prune(c);
	int64_t t1 = mono_us();
	c->last_end_us = t1;
	/* the live metrics (read from other threads: base/counter.h) */
	SL_CTR_SET(c->m.last_id, id);
	SL_CTR_SET(c->m.last_duration_us, t1 - t0);
	SL_CTR_SET(c->m.last_size, (int64_t)size);
	SL_CTR_SET(c->m.last_blocked_us, blocked);
	SL_CTR_SET(c->m.last_end_wall_us, wall_us());
	SL_CTR_ADD(c->m.completed, 1);
	sl_buf_printf(&c->log, "%s %" PRId64 ": %.1f ms, %zu bytes, blocked %.2f ms\n",
	              savepoint ? "savepoint" : final ? "final checkpoint" : "checkpoint", id,
	              (t1 - t0) / 1000.0, size, blocked / 1000.0);
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
	                 c->pending_blocked);
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
	sl_collapser_run(c->collapser, c->state); /* see hugepage.h */
	if (!ok)
		sl_err_set(c->err, SL_EIO, "checkpoint %" PRId64 " failed while being written", id);
	char path[4200];
	struct stat st;
	snprintf(path, sizeof(path), "%s/chk-%" PRId64 "/state", c->dir, id);
	size_t size = ok && stat(path, &st) == 0 ? (size_t)st.st_size : 0;
	return finish_ckpt(c, id, ok ? 0 : SL_EIO, 0, 0, size, c->pending_t0, c->pending_blocked);
}

int sl_coord_take(sl_coord *c, int savepoint, int finished, char *path, size_t cap)
{
	int rc = reap(c, 1); /* one checkpoint at a time */
	if (rc)
		return rc;
	sl_fault_tick();
	int64_t t0 = mono_us();
	int64_t id = c->next_id++;
	sl_snap_writer pc;
	sl_snap_writer_init(&pc);
	sl_ckpt_meta meta;
	fill_meta(c, &meta, id, savepoint, finished);
	size_t size = 0;
	rc = pre_commit_all(c, id, &pc);
	if (!rc)
		rc = write_job(c, &meta, NULL, NULL, &pc, &size, c->err);
	sl_snap_writer_deinit(&pc);
	int64_t blocked = mono_us() - t0;
	if ((rc = finish_ckpt(c, id, rc, savepoint, finished, size, t0, blocked)))
		return rc;
	if (path)
		snprintf(path, cap, "%s/%s-%" PRId64, savepoint ? c->sp_dir : c->dir,
		         savepoint ? "savepoint" : "chk", id);
	return 0;
}

/* A periodic checkpoint written by a forked child (see the file comment). */
static int take_async(sl_coord *c)
{
	sl_fault_tick();
	int64_t t0 = mono_us();
	int64_t id = c->next_id++;
	sl_snap_writer pc;
	sl_snap_writer_init(&pc);
	int rc = pre_commit_all(c, id, &pc);
	if (rc) {
		sl_snap_writer_deinit(&pc);
		return finish_ckpt(c, id, rc, 0, 0, 0, t0, 0);
	}
	if (!c->collapser)
		c->collapser = sl_collapser_new(); /* NULL: no collapsing, still correct */
	sl_collapser_pause(c->collapser);      /* no other thread busy at fork */
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(1);
		sl_ckpt_meta meta;
		fill_meta(c, &meta, id, 0, 0);
		size_t size;
		_exit(write_job(c, &meta, NULL, NULL, &pc, &size, c->err) ? 1 : 0);
	}
	sl_snap_writer_deinit(&pc);
	if (pid < 0) {
		sl_err_set(c->err, SL_EIO, "cannot fork the checkpoint writer");
		return finish_ckpt(c, id, SL_EIO, 0, 0, 0, t0, 0);
	}
	c->pending_pid = pid;
	c->pending_id = id;
	c->pending_t0 = t0;
	c->pending_blocked = mono_us() - t0;
	return 0;
}

/* A periodic checkpoint written by a thread (see struct ck_writer). */
static int take_thread(sl_coord *c)
{
	sl_fault_tick();
	int64_t t0 = mono_us();
	int64_t id = c->next_id++;
	struct ck_writer *cw = calloc(1, sizeof(*cw));
	if (!cw) {
		sl_err_set(c->err, SL_ENOMEM, "out of memory");
		return finish_ckpt(c, id, SL_ENOMEM, 0, 0, 0, t0, 0);
	}
	cw->c = c;
	fill_meta(c, &cw->meta, id, 0, 0);
	sl_snap_writer_init(&cw->ops);
	sl_snap_writer_init(&cw->pc);
	int rc = pre_commit_all(c, id, &cw->pc);
	if (!rc)
		rc = sl_graph_snapshot_ops(c->graph, &cw->ops, c->err);
	if (!rc && cw->ops.failed)
		rc = sl_err_set(c->err, SL_ENOMEM, "out of memory");
	if (!rc)
		rc = sl_state_snap_begin(c->state, NULL, &cw->snap, c->err);
	if (!rc && pthread_create(&cw->thread, NULL, writer_main, cw) != 0)
		rc = sl_err_set(c->err, SL_EIO, "cannot start the checkpoint writer thread");
	if (rc) {
		writer_free(cw);
		return finish_ckpt(c, id, rc, 0, 0, 0, t0, 0);
	}
	c->pending_thr = cw;
	c->pending_id = id;
	c->pending_t0 = t0;
	c->pending_blocked = mono_us() - t0;
	return 0;
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
	if (!sl_state_backend_can_fork(c->state)) /* RocksDB's threads: no fork */
		return sl_state_snap_supported(c->state) ? take_thread(c)
		                                         : sl_coord_take(c, 0, 0, NULL, 0);
	return take_async(c);
}
