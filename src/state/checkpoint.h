/*
 * checkpoint.h - durable checkpoints and savepoints on the file system.
 *
 * Layout (docs/checkpoints.md):
 *
 *     <checkpoints dir>/chk-<id>/state        the job snapshot (graph, state,
 *                                              operators' pre-commit data)
 *     <checkpoints dir>/chk-<id>/_manifest    written last, atomically
 *     <savepoints dir>/savepoint-<id>/...     same layout, self-contained
 *
 * A checkpoint exists when its _manifest exists and is valid.  The manifest
 * lists every file it needs with its size and CRC32C, the checkpoint id,
 * the job name, the run attempt, whether the job had finished (end of all
 * inputs) and whether it is a savepoint; it carries a format version and
 * its own CRC32C.  It is written under a temporary name, fsync'ed, renamed
 * into place and the directory fsync'ed, so a crash leaves either no
 * checkpoint or a complete one.  Ids are never reused: the next id is one
 * more than the highest id of any checkpoint or savepoint directory,
 * complete or not.
 *
 * A lock file in the job directory (flock) stops two processes from running
 * the same job.  The coordinator that decides what goes into a checkpoint
 * and when is src/runtime/ckpt_coord.c; this file only stores them.
 */
#ifndef SL_CHECKPOINT_H
#define SL_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "../base/err.h"
#include "state.h"

/* 1: state tables ungrouped; 2: state tables grouped by key group with an
 * index (docs/state.md "Key groups").  Both are read; 2 is written. */
#define SL_CKPT_VERSION 2

typedef struct sl_ckpt_meta {
	int64_t id;
	int64_t attempt;     /* run attempt that wrote it */
	int finished;        /* written at the end of all inputs */
	int savepoint;       /* a savepoint (stop-with-savepoint or explicit) */
	char job[128];
	uint32_t version;
} sl_ckpt_meta;

/*
 * Writes checkpoint `id` into directory `base` (the checkpoints or
 * savepoints dir, created if needed) as <prefix>-<id>/state + _manifest:
 * begin creates <base>/<prefix>-<id>/state and gives a writer (o->w) that
 * streams to it in 1 MiB chunks (the snapshot never sits whole in memory);
 * commit flushes, fsyncs and writes the manifest; abandon closes after a
 * failure.  begin and commit return 0 or SL_EIO with err naming the file.
 * Fault points (tests, see SLUICE_FAULT): "mid-state-write",
 * "before-manifest-rename", "after-manifest-rename".
 */
typedef struct sl_ckpt_out {
	char base[2048];
	char dir[4096];
	sl_snap_writer w;
} sl_ckpt_out;

int sl_ckpt_begin(sl_ckpt_out *o, const char *base, const char *prefix, int64_t id, sl_err *err);
int sl_ckpt_commit(sl_ckpt_out *o, const sl_ckpt_meta *meta, sl_err *err);
void sl_ckpt_abandon(sl_ckpt_out *o);

/*
 * Reads and verifies the checkpoint in directory `path` (a chk-<id> or
 * savepoint-<id> directory): manifest CRC, version, every file's size and
 * CRC32C.  On success *data and *len hold the state file (mapped: release
 * it with sl_ckpt_data_free).  Returns 0, or SL_ESTATE with err saying what
 * is damaged.
 */
int sl_ckpt_read(const char *path, sl_ckpt_meta *meta, void **data, size_t *len, sl_err *err);
void sl_ckpt_data_free(void *data, size_t len);

/* Whether `path` holds a manifest at all (complete or damaged). */
int sl_ckpt_has_manifest(const char *path);

/*
 * Lists the checkpoint directories of `base` named <prefix>-<id>, newest
 * first, into ids[0..cap) (with or without a manifest).  Returns the count
 * (0 when base does not exist).
 */
int sl_ckpt_list(const char *base, const char *prefix, int64_t *ids, int cap);

/* Highest id found among <prefix>-<id> directories of base (0 if none). */
int64_t sl_ckpt_max_id(const char *base, const char *prefix);

/* Deletes a checkpoint directory and its files. */
void sl_ckpt_remove(const char *path);

/* Creates directories along path (mkdir -p).  Returns 0 or SL_EIO. */
int sl_mkdirs(const char *path, sl_err *err);

/* Takes an exclusive lock on <dir>/lock (creating dir).  Returns the open
 * descriptor (keep it open while running), or SL_EIO with err saying that
 * another process runs the job. */
int sl_ckpt_lock(const char *dir, sl_err *err);

#endif
