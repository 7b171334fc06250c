/*
 * conn_jdbc.h - internals of the 'jdbc' connector shared between its files
 * (conn_jdbc.c, the sink; conn_jdbc_changes.c, its buffer of changes
 * reduced per key).  Internal to src/connector.
 */
#ifndef SL_CONN_JDBC_H
#define SL_CONN_JDBC_H

#include "base/buf.h"

#include <stddef.h>
#include <stdint.h>

/* One buffered line: bytes lines[off, off+len), key keys[koff, koff+klen). */
typedef struct sl_jd_ent {
	size_t off, len, koff, klen;
	uint64_t hash;
	int live;
} sl_jd_ent;

/*
 * Buffered changes as lines of COPY text.  keyed = 0: every line is live,
 * in arrival order.  keyed = 1: one live line per key (the newest), the
 * others dead until sl__jd_changes_compact.  After a compaction `lines`
 * holds exactly the live lines, ready to send.
 */
typedef struct sl_jd_changes {
	int keyed;
	sl_buf lines;
	sl_buf keys;
	sl_jd_ent *ents; /* keyed: every line added since the last compaction */
	int nents, cap;
	uint32_t *slots; /* keyed: open addressing, entry index + 1, 0 = empty */
	uint32_t mask;
	int64_t live;        /* live lines */
	size_t live_bytes;   /* their bytes */
	int64_t ndel;        /* deletes added since the last clear (live or not):
	                      * 0 = the lines hold no delete */
} sl_jd_changes;

void sl__jd_changes_init(sl_jd_changes *c, int keyed);
void sl__jd_changes_deinit(sl_jd_changes *c);
/* Empties c, keeping its memory. */
void sl__jd_changes_clear(sl_jd_changes *c);
/* Moves src's contents into dst (empty) and empties src; no copy. */
void sl__jd_changes_move(sl_jd_changes *dst, sl_jd_changes *src);
/* Adds line[0..len) (one COPY line with its newline) for key[0..klen)
 * (ignored when not keyed): it replaces the key's live line, or with
 * only_if_absent = 1 is dropped when the key has one.  0 or SL_ENOMEM. */
int sl__jd_changes_add(sl_jd_changes *c, const void *key, size_t klen, const char *line,
                       size_t len, int only_if_absent);
/* Notes that a delete was added (sl_jd_changes.ndel). */
static inline void sl__jd_changes_note_delete(sl_jd_changes *c) { c->ndel++; }
/* Adds the live lines of `older` (changes that happened before c's) whose
 * keys c does not have: c then holds the reduction of both.  0 or
 * SL_ENOMEM. */
int sl__jd_changes_merge_older(sl_jd_changes *c, const sl_jd_changes *older);
/* Drops dead lines, so `lines` holds the live ones only.  0. */
int sl__jd_changes_compact(sl_jd_changes *c);
/* 1 when dead lines hold most of the bytes (and there are > 1 MiB). */
int sl__jd_changes_bloated(const sl_jd_changes *c);

#endif
