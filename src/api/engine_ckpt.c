/*
 * engine_ckpt.c - the checkpoint coordinator of a job (docs/semantics.md §3).
 *
 * One job runs on one thread and pushes each batch to the end of the graph
 * before reading the next, so between two pump steps every operator is
 * quiescent: that moment is an aligned barrier for every source at once.
 * A checkpoint there
 *   1. snapshots the graph (sources' positions, watermarks, operators'
 *      scalars, the state backend) into one buffer,
 *   2. asks each sink to pre-commit (stage what it wrote, invisible) and
 *      appends what it needs to publish later,
 *   3. writes the buffer and the manifest atomically (checkpoint.c),
 *   4. commits the sinks (publish the staged files), and prunes old
 *      checkpoints beyond 'state.checkpoints.num-retained'.
 * At start the newest complete checkpoint or savepoint is restored and each
 * sink recovers: it publishes the restored checkpoint's staged output if not
 * yet published and deletes every other staged file; a sink that already
 * published output of a newer checkpoint makes the job refuse to start.
 *
 * Not stalling the pipeline: steps 1 and 3 run in a forked child (the
 * Redis BGSAVE technique).  fork() gives the child a copy-on-write image of
 * the process at the barrier, so the child serializes and writes exactly
 * the barrier's state while the parent goes on processing; the parent is
 * blocked only for the sinks' pre-commit and the fork itself (page tables:
 * about 2 MB per GB of heap).  When the child exits successfully the parent
 * commits the sinks.  The child dies with its parent (PR_SET_PDEATHSIG), so
 * a killed job leaves either no manifest or a complete one whose sinks the
 * restart publishes.  The final checkpoint and savepoints are written
 * synchronously.  Requires no other thread busy at fork time: the huge-
 * page collapser (state/hugepage.h) is paused first; connectors with
 * threads must revisit this.  After the child exits the collapser maps the
 * state with huge pages again (docs/checkpoints.md, "Huge pages and fork").
 *
 * The RocksDB backend cannot be forked (its threads); there the state is
 * fixed at the barrier with sl_state_snap_begin and a writer thread does
 * steps 1 and 3 (struct ck_writer below).
 *
 * Snapshot layout: "SLJB", u32 version, graph snapshot (graph.c), u32
 * nsinks, nsinks x (bytes uid, bytes pre-commit data).
 */
#include "engine_int.h"
#include "../exec/ops.h"
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

sl_sink *sl_op_sink_get(sl_op *op);

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

static const char *opt2(sl_engine *e, const char *k, const char *alias)
{
	return sl_opts_get2(&e->session, k, alias);
}

/* Reads the checkpointing options; ck.on stays 0 when no interval is set. */
static int read_config(sl_engine *e)
{
	int rc;
	if (!opt2(e, "execution.checkpointing.interval", NULL))
		return 0;
	if ((rc = sl_opts_duration(&e->session, "execution.checkpointing.interval", 0,
	                           &e->ck.interval_us, &e->err)) ||
	    (rc = sl_opts_duration(&e->session, "execution.checkpointing.min-pause", 0,
	                           &e->ck.min_pause_us, &e->err)))
		return rc;
	const char *ret = opt2(e, "state.checkpoints.num-retained",
	                       "execution.checkpointing.num-retained");
	e->ck.retained = ret ? atoll(ret) : 1;
	if (e->ck.retained < 1)
		e->ck.retained = 1;
	const char *mode = opt2(e, "execution.checkpointing.mode", NULL);
	if (mode && strcmp(mode, "EXACTLY_ONCE") && strcmp(mode, "AT_LEAST_ONCE"))
		return sl_err_set(&e->err, SL_EINVAL, "execution.checkpointing.mode: '%s' is not "
		                  "EXACTLY_ONCE or AT_LEAST_ONCE", mode);
	const char *job = opt2(e, "pipeline.name", NULL);
	if (!job)
		job = opt2(e, "sluice.script-name", NULL);
	if (!job)
		return sl_err_set(&e->err, SL_EINVAL, "checkpointing needs a job name: SET "
		                  "'pipeline.name' = '...' (run -e and run - have no script file name)");
	snprintf(e->ck.job, sizeof(e->ck.job), "%s", job);
	snprintf(e->ck.jobdir, sizeof(e->ck.jobdir), "./sluice-state/%s", job);
	const char *d = opt2(e, "state.checkpoints.dir", "execution.checkpointing.dir");
	if (d)
		snprintf(e->ck.dir, sizeof(e->ck.dir), "%s", d);
	else
		snprintf(e->ck.dir, sizeof(e->ck.dir), "%s/checkpoints", e->ck.jobdir);
	d = opt2(e, "state.savepoints.dir", "execution.checkpointing.savepoint-dir");
	if (d)
		snprintf(e->ck.sp_dir, sizeof(e->ck.sp_dir), "%s", d);
	else
		snprintf(e->ck.sp_dir, sizeof(e->ck.sp_dir), "%s/savepoints", e->ck.jobdir);
	e->ck.on = 1;
	return 0;
}

/* The run attempt: a counter in the job directory, bumped at every start. */
static int64_t next_attempt(sl_engine *e)
{
	char path[2200];
	snprintf(path, sizeof(path), "%s/attempt", e->ck.jobdir);
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

static sl_op *sink_by_uid(sl_engine *e, const char *uid, size_t n)
{
	for (int i = 0; i < e->graph.nops; i++) {
		sl_op *op = e->graph.ops[i];
		if (sl_op_sink_get(op) && strlen(op->uid) == n && !memcmp(op->uid, uid, n))
			return op;
	}
	return NULL;
}

static int restore_blob(sl_engine *e, const void *data, size_t len)
{
	sl_snap_reader r;
	sl_snap_reader_init(&r, data, len);
	if (sl_snap_get_u32(&r) != JOB_MAGIC || sl_snap_get_u32(&r) > JOB_VERSION)
		return sl_err_set(&e->err, SL_ESTATE, "not a sluice job snapshot (or a newer format)");
	int rc = sl_graph_restore(&e->graph, &r, &e->err);
	if (rc)
		return rc;
	uint32_t n = sl_snap_get_u32(&r);
	for (uint32_t i = 0; i < n && sl_snap_reader_ok(&r); i++) {
		size_t ul, bl;
		const char *uid = sl_snap_get_bytes(&r, &ul);
		const void *blob = sl_snap_get_bytes(&r, &bl);
		sl_op *op = uid ? sink_by_uid(e, uid, ul) : NULL;
		if (!op)
			return sl_err_set(&e->err, SL_ESTATE, "the checkpoint has output of a sink that "
			                  "the job no longer has");
		sl_sink *k = sl_op_sink_get(op);
		if (!k->vt->recover)
			continue;
		sl_snap_reader sr;
		sl_snap_reader_init(&sr, blob, bl);
		if ((rc = k->vt->recover(k, &sr, &e->err)))
			return rc;
	}
	return sl_snap_reader_ok(&r) ? 0 : sl_err_set(&e->err, SL_ESTATE, "job snapshot truncated");
}

/* A fresh start: sinks delete staged output of earlier attempts. */
static int recover_fresh(sl_engine *e)
{
	for (int i = 0; i < e->graph.nops; i++) {
		sl_sink *k = sl_op_sink_get(e->graph.ops[i]);
		if (!k || !k->vt->recover)
			continue;
		int rc = k->vt->recover(k, NULL, &e->err); /* nothing to publish */
		if (rc)
			return rc;
	}
	return 0;
}

/* Tries the checkpoint in `path`; 1 restored, 0 skipped (damaged), < 0 error. */
static int try_restore(sl_engine *e, const char *path)
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
	int rc = restore_blob(e, data, len);
	sl_ckpt_data_free(data, len);
	if (rc) {
		sl_err_prefix(&e->err, "%s", path);
		return rc;
	}
	e->ck.restored_id = meta.id;
	snprintf(e->ck.restored_path, sizeof(e->ck.restored_path), "%s", path);
	e->finished = meta.finished;
	fprintf(stderr, "sluice: resuming from %s %s%s\n", meta.savepoint ? "savepoint" : "checkpoint",
	        path, meta.finished ? " (the job had finished)" : "");
	sl_buf_printf(&e->ck.log, "restored %s in %.1f ms (%zu bytes)\n", path,
	              (mono_us() - t0) / 1000.0, len);
	return 1;
}

/* Restore candidates: checkpoints and savepoints, newest id first. */
static int restore_newest(sl_engine *e)
{
	int64_t c[256], s[256];
	int nc = sl_ckpt_list(e->ck.dir, "chk", c, 256);
	int ns = sl_ckpt_list(e->ck.sp_dir, "savepoint", s, 256);
	int i = 0, k = 0;
	char path[4200];
	while (i < nc || k < ns) {
		int sp = k < ns && (i >= nc || s[k] > c[i]);
		int64_t id = sp ? s[k++] : c[i++];
		snprintf(path, sizeof(path), "%s/%s-%" PRId64, sp ? e->ck.sp_dir : e->ck.dir,
		         sp ? "savepoint" : "chk", id);
		if (!sl_ckpt_has_manifest(path))
			continue; /* never completed */
		int rc = try_restore(e, path);
		if (rc)
			return rc < 0 ? rc : 0;
	}
	return recover_fresh(e);
}

int sl__ckpt_prepare(sl_engine *e)
{
	e->ck.lock_fd = -1;
	int rc = read_config(e);
	if (rc || !e->ck.on)
		return rc;
	if ((rc = sl_ckpt_lock(e->ck.jobdir, &e->err)) < 0)
		return rc;
	e->ck.lock_fd = rc;
	e->ck.attempt = next_attempt(e);
	sl_fault_set_main();
	return 0;
}

int sl__ckpt_restore(sl_engine *e)
{
	int rc;
	if (!e->ck.on)
		return 0;
	const char *from = opt2(e, "execution.savepoint.path", "execution.state-recovery.path");
	const char *fresh = opt2(e, "sluice.fresh", NULL);
	if (from) {
		rc = try_restore(e, from);
		if (rc == 0)
			rc = sl_err_set(&e->err, SL_ESTATE, "cannot restore from '%s'", from);
		rc = rc < 0 ? rc : 0;
	} else if (fresh && !strcmp(fresh, "true")) {
		rc = recover_fresh(e);
	} else {
		rc = restore_newest(e);
	}
	if (rc)
		return rc;
	int64_t a = sl_ckpt_max_id(e->ck.dir, "chk"), b = sl_ckpt_max_id(e->ck.sp_dir, "savepoint");
	e->ck.next_id = (a > b ? a : b) + 1;
	e->ck.last_end_us = mono_us();
	return 0;
}

void sl__ckpt_close(sl_engine *e)
{
	if (e->ck.pending_thr) {
		/* as below: let the writer finish before the state goes away */
		writer_join_free(e->ck.pending_thr);
		e->ck.pending_thr = NULL;
	}
	if (e->ck.pending_pid) {
		/* closing without finishing: the child may complete the files;
		 * wait so that it does not outlive the lock */
		waitpid(e->ck.pending_pid, NULL, 0);
		e->ck.pending_pid = 0;
	}
	sl_collapser_free(e->ck.collapser);
	if (e->ck.lock_fd >= 0)
		close(e->ck.lock_fd);
	e->ck.lock_fd = -1;
	sl_buf_deinit(&e->ck.log);
	memset(&e->ck, 0, sizeof(e->ck));
	e->ck.lock_fd = -1;
}

/* ---- taking checkpoints --------------------------------------------------- */

/* Pre-commits every sink for checkpoint id, into sinks (the sinks section). */
static int precommit_sinks(sl_engine *e, int64_t id, sl_snap_writer *sinks)
{
	uint32_t n = 0;
	for (int i = 0; i < e->graph.nops; i++)
		n += sl_op_sink_get(e->graph.ops[i]) != NULL;
	sl_snap_put_u32(sinks, n);
	for (int i = 0; i < e->graph.nops; i++) {
		sl_op *op = e->graph.ops[i];
		sl_sink *k = sl_op_sink_get(op);
		if (!k)
			continue;
		sl_snap_writer sub;
		sl_snap_writer_init(&sub);
		sl_op_sink_sync(op);
		int rc = k->vt->pre_commit ? k->vt->pre_commit(k, id, &sub, &e->err) : 0;
		sl_snap_put_bytes(sinks, op->uid, strlen(op->uid));
		sl_snap_put_bytes(sinks, sub.buf, sub.len);
		sl_snap_writer_deinit(&sub);
		if (rc)
			return rc;
	}
	return sinks->failed ? sl_err_set(&e->err, SL_ENOMEM, "out of memory") : 0;
}

/*
 * Serializes the graph and the sinks section, streaming the checkpoint
 * files (the snapshot is never held whole in memory).  ops and snap, when
 * not NULL, are the graph's operator section and the state taken at the
 * barrier (the writer-thread path); otherwise the live graph is written.
 * Reads e->ck's directories only, so it may run on the writer thread.
 */
static int write_job(sl_engine *e, const sl_ckpt_meta *meta, const sl_snap_writer *ops,
                     sl_state_snap *snap, const sl_snap_writer *sinks, size_t *size, sl_err *err)
{
	sl_ckpt_out out;
	const char *base = meta->savepoint ? e->ck.sp_dir : e->ck.dir;
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
		rc = sl_graph_snapshot(&e->graph, w, err);
	}
	sl_snap_put_raw(w, sinks->buf, sinks->len);
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
 * RocksDB).  At the barrier the job thread serializes the operators'
 * scalars and pre-commits the sinks into memory and fixes the state with
 * sl_state_snap_begin; the thread writes the files and the manifest while
 * the job goes on; the job thread commits the sinks once `done` is set.
 */
struct ck_writer {
	sl_engine *e;
	sl_ckpt_meta meta;
	sl_snap_writer ops, sinks;
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
	cw->rc = write_job(cw->e, &cw->meta, &cw->ops, cw->snap, &cw->sinks, &cw->size, &cw->err);
	atomic_store(&cw->done, 1);
	return NULL;
}

static void writer_free(struct ck_writer *cw)
{
	sl_state_snap_free(cw->snap);
	sl_snap_writer_deinit(&cw->ops);
	sl_snap_writer_deinit(&cw->sinks);
	free(cw);
}

static void writer_join_free(struct ck_writer *cw)
{
	pthread_join(cw->thread, NULL);
	writer_free(cw);
}

static void prune(sl_engine *e)
{
	int64_t ids[1024];
	int n = sl_ckpt_list(e->ck.dir, "chk", ids, 1024);
	int kept = 0;
	char path[4200];
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/chk-%" PRId64, e->ck.dir, ids[i]);
		if (sl_ckpt_has_manifest(path) && kept < e->ck.retained) {
			kept++;
			continue;
		}
		if (kept > 0) /* older than a retained complete one: not needed */
			sl_ckpt_remove(path);
	}
}

/* Commits (or aborts) every sink for checkpoint id; prunes; logs. */
static int finish_ckpt(sl_engine *e, int64_t id, int failed, int savepoint, int final,
                       size_t size, int64_t t0, int64_t blocked)
{
	int rc = failed;
	for (int i = 0; i < e->graph.nops; i++) {
		sl_sink *k = sl_op_sink_get(e->graph.ops[i]);
		if (!k)
			continue;
		int r2 = rc ? (k->vt->abort ? k->vt->abort(k, id, &e->err) : 0)
		            : (k->vt->commit ? k->vt->commit(k, id, &e->err) : 0);
		if (!rc && r2)
			rc = r2;
		if (!rc)
			sl_fault("mid-sink-publish"); /* some sinks published, others not */
	}
	if (rc)
		return rc;
	if (!savepoint)
		prune(e);
	int64_t t1 = mono_us();
	e->ck.last_end_us = t1;
	sl_buf_printf(&e->ck.log, "%s %" PRId64 ": %.1f ms, %zu bytes, blocked %.2f ms\n",
	              savepoint ? "savepoint" : final ? "final checkpoint" : "checkpoint", id, (t1 - t0) / 1000.0, size,
	              blocked / 1000.0);
	return 0;
}

static void fill_meta(sl_engine *e, sl_ckpt_meta *meta, int64_t id, int savepoint, int finished)
{
	memset(meta, 0, sizeof(*meta));
	meta->id = id;
	meta->attempt = e->ck.attempt;
	meta->finished = finished;
	meta->savepoint = savepoint;
	meta->version = SL_CKPT_VERSION;
	snprintf(meta->job, sizeof(meta->job), "%s", e->ck.job);
}

/* Waits for the pending writer thread (block = 1) or polls it. */
static int reap_thread(sl_engine *e, int block)
{
	struct ck_writer *cw = e->ck.pending_thr;
	if (!block && !atomic_load(&cw->done))
		return 0;
	pthread_join(cw->thread, NULL);
	e->ck.pending_thr = NULL;
	int rc = cw->rc;
	if (rc)
		sl_err_set(&e->err, rc, "checkpoint %" PRId64 ": %s", cw->meta.id, cw->err.msg);
	rc = finish_ckpt(e, cw->meta.id, rc, 0, 0, cw->size, e->ck.pending_t0,
	                 e->ck.pending_blocked);
	writer_free(cw);
	return rc;
}

/* Waits for the pending background checkpoint (block = 1) or polls it. */
static int reap(sl_engine *e, int block)
{
	if (e->ck.pending_thr)
		return reap_thread(e, block);
	if (!e->ck.pending_pid)
		return 0;
	int status;
	pid_t r = waitpid(e->ck.pending_pid, &status, block ? 0 : WNOHANG);
	if (r == 0)
		return 0;
	int64_t id = e->ck.pending_id;
	e->ck.pending_pid = 0;
	int ok = r > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	sl_collapser_run(e->ck.collapser, e->state); /* see hugepage.h */
	if (!ok)
		sl_err_set(&e->err, SL_EIO, "checkpoint %" PRId64 " failed while being written", id);
	char path[4200];
	struct stat st;
	snprintf(path, sizeof(path), "%s/chk-%" PRId64 "/state", e->ck.dir, id);
	size_t size = ok && stat(path, &st) == 0 ? (size_t)st.st_size : 0;
	return finish_ckpt(e, id, ok ? 0 : SL_EIO, 0, 0, size, e->ck.pending_t0, e->ck.pending_blocked);
}

int sl__ckpt_take(sl_engine *e, int savepoint, int finished, char *path, size_t cap)
{
	int rc = reap(e, 1); /* one checkpoint at a time */
	if (rc)
		return rc;
	sl_fault_tick();
	int64_t t0 = mono_us();
	int64_t id = e->ck.next_id++;
	sl_snap_writer sinks;
	sl_snap_writer_init(&sinks);
	sl_ckpt_meta meta;
	fill_meta(e, &meta, id, savepoint, finished);
	size_t size = 0;
	rc = precommit_sinks(e, id, &sinks);
	if (!rc)
		rc = write_job(e, &meta, NULL, NULL, &sinks, &size, &e->err);
	sl_snap_writer_deinit(&sinks);
	int64_t blocked = mono_us() - t0;
	if ((rc = finish_ckpt(e, id, rc, savepoint, finished, size, t0, blocked)))
		return rc;
	if (path)
		snprintf(path, cap, "%s/%s-%" PRId64, savepoint ? e->ck.sp_dir : e->ck.dir,
		         savepoint ? "savepoint" : "chk", id);
	return 0;
}

/* A periodic checkpoint written by a forked child (see the file comment). */
static int take_async(sl_engine *e)
{
	sl_fault_tick();
	int64_t t0 = mono_us();
	int64_t id = e->ck.next_id++;
	sl_snap_writer sinks;
	sl_snap_writer_init(&sinks);
	int rc = precommit_sinks(e, id, &sinks);
	if (rc) {
		sl_snap_writer_deinit(&sinks);
		return finish_ckpt(e, id, rc, 0, 0, 0, t0, 0);
	}
	if (!e->ck.collapser)
		e->ck.collapser = sl_collapser_new(); /* NULL: no collapsing, still correct */
	sl_collapser_pause(e->ck.collapser);      /* no other thread busy at fork */
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(1);
		sl_ckpt_meta meta;
		fill_meta(e, &meta, id, 0, 0);
		size_t size;
		_exit(write_job(e, &meta, NULL, NULL, &sinks, &size, &e->err) ? 1 : 0);
	}
	sl_snap_writer_deinit(&sinks);
	if (pid < 0) {
		sl_err_set(&e->err, SL_EIO, "cannot fork the checkpoint writer");
		return finish_ckpt(e, id, SL_EIO, 0, 0, 0, t0, 0);
	}
	e->ck.pending_pid = pid;
	e->ck.pending_id = id;
	e->ck.pending_t0 = t0;
	e->ck.pending_blocked = mono_us() - t0;
	return 0;
}

/* A periodic checkpoint written by a thread (see struct ck_writer). */
static int take_thread(sl_engine *e)
{
	sl_fault_tick();
	int64_t t0 = mono_us();
	int64_t id = e->ck.next_id++;
	struct ck_writer *cw = calloc(1, sizeof(*cw));
	if (!cw) {
		sl_err_set(&e->err, SL_ENOMEM, "out of memory");
		return finish_ckpt(e, id, SL_ENOMEM, 0, 0, 0, t0, 0);
	}
	cw->e = e;
	fill_meta(e, &cw->meta, id, 0, 0);
	sl_snap_writer_init(&cw->ops);
	sl_snap_writer_init(&cw->sinks);
	int rc = precommit_sinks(e, id, &cw->sinks);
	if (!rc)
		rc = sl_graph_snapshot_ops(&e->graph, &cw->ops, &e->err);
	if (!rc && cw->ops.failed)
		rc = sl_err_set(&e->err, SL_ENOMEM, "out of memory");
	if (!rc)
		rc = sl_state_snap_begin(e->state, NULL, &cw->snap, &e->err);
	if (!rc && pthread_create(&cw->thread, NULL, writer_main, cw) != 0)
		rc = sl_err_set(&e->err, SL_EIO, "cannot start the checkpoint writer thread");
	if (rc) {
		writer_free(cw);
		return finish_ckpt(e, id, rc, 0, 0, 0, t0, 0);
	}
	e->ck.pending_thr = cw;
	e->ck.pending_id = id;
	e->ck.pending_t0 = t0;
	e->ck.pending_blocked = mono_us() - t0;
	return 0;
}

int sl__ckpt_maybe(sl_engine *e)
{
	if (!e->ck.on)
		return 0;
	int rc = reap(e, 0);
	if (rc || e->ck.pending_pid || e->ck.pending_thr)
		return rc;
	int64_t now = mono_us(), since = now - e->ck.last_end_us;
	if (since < e->ck.interval_us || since < e->ck.min_pause_us)
		return 0;
	if (!sl_state_backend_can_fork(e->state)) /* RocksDB's threads: no fork */
		return sl_state_snap_supported(e->state) ? take_thread(e)
		                                         : sl__ckpt_take(e, 0, 0, NULL, 0);
	return take_async(e);
}
