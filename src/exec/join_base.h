/*
 * join_base.h - the base every join operator is built on (join_base.c):
 * what the regular, semi/anti, interval, window, temporal and lookup joins
 * share, written once.  Design note: docs/joins.md, "The join base".
 *
 * Contract.
 *   - A join operator's struct starts with an sl_join_base (whose first
 *     member is the sl_op), so `(sl_join_base *)op` is valid for it.
 *   - Construction: sl__join_base_new allocates the operator (its full
 *     size), sets its method table and copies the plan (key and type
 *     arrays owned by the operator, the residual expression still the
 *     planner's until open compiles it); outer[] is derived from p->kind
 *     (LEFT/FULL: the left side keeps and pads its unmatched rows,
 *     RIGHT/FULL: the right side), and the operator may change it.  The
 *     operator then checks its own plan rules and, on failure, frees
 *     itself with sl_op_free (its close calls sl__join_base_close).
 *   - Inputs: input 0 is the left side, input 1 the right (s below; 1 - s
 *     is the other side).  A row is judged by its own W_before, never by
 *     the other input's watermark, and results made for it carry it
 *     (docs/parallel.md §4, rules 3 and 6).
 *   - Keys: sl__join_key encodes a row's equi-key columns in the key form
 *     of data/rowcodec.h into b->key; a key with a NULL never matches.
 *   - State: sl__join_base_open opens one row table per side (names given,
 *     namespace per operator) with the side's state TTL when the method
 *     table has SL_OPF_TTL_PER_SIDE.  The semi, interval, window and
 *     temporal joins keep record lists as values (join.h: sl_jrec), read
 *     and rewritten whole through sl__jlist_load / _store (an empty list
 *     deletes the key), searched with sl__jlist_find and counted with
 *     sl__jlist_count; the regular join keeps a map per key instead
 *     (op_join.c) and copies the probed rows into a record list.
 *   - Matching: sl__join_match runs an input row of side s against the
 *     records of a list of the other side, in candidate chunks through the
 *     joiner (join.h: residual evaluated per chunk, a run-time error
 *     handed back as the input row), and calls back once per matching
 *     record.
 *   - Output: through the joiner's emitter (b->j.out, emit.h): joined rows,
 *     rows padded with NULLs on the other side (sl__joiner_emit_in /
 *     _stored); the operator flushes at the end of process and before it
 *     forwards a watermark.
 *   - Late rows and time-driven firing stay with each operator (their
 *     rules differ: interval bounds, window ends, probe times), on the
 *     timer service (timers.h); a dropped late row is counted in
 *     op.stats.late_dropped.
 *
 * Messages about damaged state name the operator by b->what ("join",
 * "semi join", ...).  No allocation per row: the key and list buffers are
 * reused.  One thread, the job's.
 */
#ifndef SL_JOIN_BASE_H
#define SL_JOIN_BASE_H

#include "join.h"
#include "../data/rowcodec.h"
#include "sluice.h"

#include <string.h>

typedef struct sl_join_base {
	sl_op op;              /* first: the operator */
	sl_join_plan p;        /* the operator's copy of its plan */
	int *keys[2];          /* equi-key columns of the left and right input */
	sl_type *types;        /* left ++ right column types (p.ltypes, p.rtypes) */
	int outer[2];          /* side s keeps its unmatched rows (padded) */
	sl_state_table *st[2]; /* row tables of the sides (sl__join_base_open) */
	sl_joiner j;           /* candidates, residual, output (join.h) */
	sl_buf key;            /* encoded join key of the current row */
	int key_empty;         /* without equi-keys, the key is empty (0: one
	                        * constant byte, the semi join's layout) */
	const char *what;      /* the operator in state error messages */
	size_t recoff[256];    /* sl__join_match: the chunk's records in the list */
} sl_join_base;

/*
 * Allocates a join operator of `size` bytes (>= sizeof(sl_join_base),
 * zero-filled) with method table vt and a copy of plan p (see above);
 * what names it in messages.  Returns the operator or NULL with err set
 * (SL_ENOMEM; nothing left allocated).
 */
sl_join_base *sl__join_base_new(size_t size, const sl_op_vtab *vt, const sl_join_plan *p,
                                const char *what, sl_err *err);

/*
 * Opens the row tables names[0] (left) and names[1] (right) of the
 * operator with sl__join_base_table (a NULL name: none, or opened before
 * by the operator), then the joiner (output and candidate batches, the
 * residual compiled).  Returns 0 or an error with err set.
 */
int sl__join_base_open(sl_join_base *b, const char *const names[2], sl_err *err);

/*
 * Opens b->st[s], the row table `name` of side s, with the side's state
 * TTL when vt->flags has SL_OPF_TTL_PER_SIDE.  For an operator that opens
 * tables of its own in between (the order tables are opened in is the
 * order a snapshot writes them).  Returns 0 or an error with err set.
 */
int sl__join_base_table(sl_join_base *b, int s, const char *name, sl_err *err);

/* Frees what the base owns (joiner, buffers, key and type arrays); the
 * tables belong to the backend.  Safe after a failed new or open. */
void sl__join_base_close(sl_join_base *b);

/*
 * Why the key, list and matching helpers below are inline (with join.h's
 * sl__jrec_read), and the match callbacks static functions the compiler
 * can inline through them: out of line, the base cost the operators it
 * replaced code in +3.9% (regular join) and +3.1% (interval join)
 * instructions (callgrind, bench/stateful.sh's join and interval jobs at
 * 200 K rows: 1,147.7 M vs 1,104.3 M and 1,630.2 M vs 1,581.4 M before the
 * base); inline, 1,093.8 M and 1,543.4 M, -1.0% and -2.4%.
 */

/* Encodes the equi-key of row `row` of `in` (input s) into b->key
 * (cleared first).  Returns 0, 1 when a key column is NULL (b->key is then
 * empty: the row matches nothing), or SL_ENOMEM (< 0) with err set.
 * Without equi-keys (p.nkeys 0: cross / theta and semi / anti joins) every
 * row has the same key, so it meets every row of the other side: empty
 * when b->key_empty (the regular and interval joins), else one constant
 * byte (the semi join's state layout, kept for its checkpoints). */
static inline int sl__join_key(sl_join_base *b, int s, const sl_batch *in, int row, sl_err *err)
{
	sl_buf_clear(&b->key);
	if (b->p.nkeys == 0 && b->key_empty) /* no equi-key (cross, theta joins) */
		return 0;
	if (b->p.nkeys == 0) /* no equi-key (semi / anti joins): one constant byte */
		return sl_buf_putc(&b->key, 0) ? sl_err_set(err, SL_ENOMEM, "out of memory") : 0;
	if (sl_rowcodec_key_null(in, b->keys[s], b->p.nkeys, row))
		return 1;
	if (sl_rowcodec_key(in, b->keys[s], b->p.nkeys, row, &b->key))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

/* A sl_state_pkey_fn for a join's tables whose keys start with the
 * sl__join_key of a row: the first ctx->n key columns (sl_state_pkey_cols),
 * or without equi-keys (n 0) nothing: the empty key, whose key group is
 * the one a singleton exchange gives every row (plan_dist.c; the state of
 * a join without keys is one key, run as one instance).  The partitioning
 * key of key groups and, for map tables, the prefix a probe visits (with
 * n 0 only for an empty sl__join_key: b->key_empty). */
uint32_t sl__join_pkey(const void *ctx, const void *key, uint32_t klen, const void *val,
                       uint32_t vlen, const void **pk);

/* ---- record lists (state values) ------------------------------------------ */

/* Loads the list of (ns, key) from t into `into` (cleared; empty when
 * absent).  Returns 0 or SL_ENOMEM with err set. */
static inline int sl__jlist_load(sl_state_table *t, int64_t ns, const void *key, uint32_t klen,
                                 sl_buf *into, sl_err *err)
{
	const void *v;
	uint32_t vl;
	sl_buf_clear(into);
	if (sl_state_get_var(t, ns, key, klen, &v, &vl) && sl_buf_append(into, v, vl))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	return 0;
}

/* Writes list `val` as the value of (ns, key); an empty list deletes the
 * key.  Returns 0 or the backend's error with err set ("<what> state:
 * write failed"). */
static inline int sl__jlist_store(const sl_join_base *b, sl_state_table *t, int64_t ns,
                                  const void *key, uint32_t klen, const sl_buf *val, sl_err *err)
{
	if (val->len == 0) {
		sl_state_delete(t, ns, key, klen);
		return 0;
	}
	int rc = sl_state_put_var(t, ns, key, klen, val->p, (uint32_t)val->len);
	return rc ? sl_err_set(err, rc, "%s state: write failed", b->what) : 0;
}

/* Finds the record whose row bytes equal row[0..len) in `list`: its
 * offset, -1 when absent, or -2 with err set (SL_ESTATE) when the list is
 * malformed. */
long sl__jlist_find(const sl_join_base *b, const sl_buf *list, const char *row, size_t len,
                    sl_err *err);

/*
 * Counts row `row` of `in` in `list`: appended as a new record (count 1,
 * aux nm) when at < 0; else the record at offset `at` gets one more (acc)
 * or one fewer duplicate and aux nm, and is removed when none is left.
 * Returns 0, SL_ENOMEM or (at not a record) SL_ESTATE, with err set.
 */
int sl__jlist_count(sl_buf *list, const sl_batch *in, int row, int acc, long at, int64_t nm,
                    sl_err *err);

/* ---- matching and output ---------------------------------------------------- */

/* Optional filter of sl__join_match: 1 when record r may match at all
 * (the interval join's time bounds), before the residual is evaluated. */
typedef int (*sl_join_keep_fn)(void *ctx, const sl_jrec *r);

/* Called for a matching record: rec is the record inside the list (its
 * count/aux may be rewritten with sl__jrec_set), r its fields, cand its
 * candidate in b->j (for sl__joiner_emit_cand).  Returns 0 or an error. */
typedef int (*sl_join_match_fn)(void *ctx, char *rec, const sl_jrec *r, int cand, sl_err *err);

/*
 * Matches input row (in, row) of side s against every record of `list`
 * (records of side 1 - s): candidates (the input row on side s, the
 * record on the other) are built in chunks of the joiner's capacity for
 * the records `keep` accepts (NULL: all), the residual is evaluated per
 * chunk, and on_match is called for each match in list order.  Returns
 * 0, SL_ESTATE for a malformed list, or the residual's or on_match's
 * error (err set).
 */
static inline int sl__join_match(sl_join_base *b, int s, const sl_batch *in, int row,
                                 sl_buf *list, sl_join_keep_fn keep, sl_join_match_fn on_match,
                                 void *ctx, sl_err *err)
{
	sl_joiner *j = &b->j;
	int cap = j->cand->cap < 256 ? j->cand->cap : 256, rc;
	const char *p = list->p, *end = p + list->len;
	while (p < end) {
		sl__joiner_cand_reset(j);
		int n = 0;
		while (p < end && n < cap) {
			sl_jrec r;
			size_t at = (size_t)(p - list->p);
			if (sl__jrec_read(&p, end, &r))
				return sl_err_set(err, SL_ESTATE, "%s state: malformed record", b->what);
			if (keep && !keep(ctx, &r))
				continue;
			b->recoff[n] = at;
			rc = s == 0 ? sl__joiner_cand_add(j, in, row, NULL, 0, NULL, -1, r.row, r.len, err)
			            : sl__joiner_cand_add(j, NULL, -1, r.row, r.len, in, row, NULL, 0, err);
			if (rc < 0)
				return rc;
			n++;
		}
		if ((rc = sl__joiner_cand_eval(j, err)))
			return rc;
		for (int i = 0; i < n; i++) {
			if (!j->ok[i])
				continue;
			char *rec = list->p + b->recoff[i];
			const char *q = rec;
			sl_jrec r;
			if (sl__jrec_read(&q, list->p + list->len, &r))
				return sl_err_set(err, SL_ESTATE, "%s state: malformed record", b->what);
			if ((rc = on_match(ctx, rec, &r, i, err)))
				return rc;
		}
	}
	return 0;
}

/* Emits input row (in, row) on side s joined with stored row bytes
 * obytes[0..olen) of the other side, or padded with NULLs when obytes is
 * NULL.  Returns 0 or an error. */
static inline int sl__joiner_emit_in(sl_joiner *j, int s, const sl_batch *in, int row,
                                     const char *obytes, uint32_t olen, uint8_t op, int64_t wm,
                                     sl_err *err)
{
	if (s == 0)
		return sl__joiner_emit(j, in, row, NULL, 0, NULL, -1, obytes, olen, op, wm, err);
	return sl__joiner_emit(j, NULL, -1, obytes, olen, in, row, NULL, 0, op, wm, err);
}

/* Emits stored row bytes[0..len) of side s, the other side padded. */
static inline int sl__joiner_emit_stored(sl_joiner *j, int s, const char *bytes, uint32_t len,
                                         uint8_t op, int64_t wm, sl_err *err)
{
	if (s == 0)
		return sl__joiner_emit(j, NULL, -1, bytes, len, NULL, -1, NULL, 0, op, wm, err);
	return sl__joiner_emit(j, NULL, -1, NULL, 0, NULL, -1, bytes, len, op, wm, err);
}

#endif
