/*
 * join.h - the join operators (regular, semi/anti, interval, window,
 * temporal, lookup): their plan struct and constructors, and the helpers
 * of join_rows.c that store rows in state values and build joined output
 * rows.  The operators are built on the join base (join_base.h), which
 * uses these helpers.
 *
 * Every join has two inputs: input 0 is the left side, input 1 the right
 * side.  Its output columns are the left input's columns followed by the
 * right input's (the planner projects afterwards).  Rows match when their
 * equi-keys are equal and not NULL (a NULL key never matches, as in Flink)
 * and the residual predicate, evaluated over the joined row, is TRUE.
 * Design note: docs/joins.md.
 */
#ifndef SL_JOIN_H
#define SL_JOIN_H

#include <string.h>

#include "../base/buf.h"
#include "../expr/expr.h"
#include "emit.h"
#include "op.h"
#include "sluice.h"

typedef enum sl_join_kind {
	SL_JOIN_INNER = 0,
	SL_JOIN_LEFT,
	SL_JOIN_RIGHT,
	SL_JOIN_FULL,
	SL_JOIN_SEMI,  /* window join only: the left rows with a match */
	SL_JOIN_ANTI   /* window join only: the left rows without one */
} sl_join_kind;

/* Read-only plan of a join (owned by the planner's arena; the operator
 * copies what it keeps). */
typedef struct sl_join_plan {
	sl_join_kind kind;
	int nl, nr;              /* columns of the left and right inputs */
	const sl_type *ltypes;   /* their types */
	const sl_type *rtypes;
	int nkeys;               /* equi-keys: lkeys[i] = rkeys[i]; 0: every pair (regular and semi joins) */
	const int *lkeys, *rkeys;
	sl_expr *residual;       /* over the joined row (left ++ right), NULL = none */
	/* Interval join: L.ltime - R.rtime in [lo, hi] (micros, lo <= hi). */
	int ltime, rtime;
	int64_t lo, hi;
	/* Interval and window joins: the output's rowtime is the left (0) or
	 * right (1) side's time column, or none (-1, FULL joins); it decides by
	 * how much the output watermark is held back. */
	int time_side;
	/* Window join: the window_end column of each side (both sides are the
	 * same window TVF, window_start is an equi-key) and the zone the
	 * windows align in (sl_window_spec.tz; NULL = UTC). */
	int lwend, rwend;
	const char *tz;
	/* Regular join of a scalar subquery (LEFT, no keys): the right input
	 * may hold at most one row; a second one is a run-time error naming
	 * the subquery at SQL line/column single_line, single_col (Flink's
	 * SINGLE_VALUE check).  0 = no check. */
	int single_right;
	int single_line, single_col;
} sl_join_plan;

/* Regular join (op_join.c): inputs may be updating; the output is updating
 * unless it is an inner join of two append-only inputs.  State (a map per
 * join key) is kept until retracted or, with a state TTL (sl_op.state_ttl
 * per side), until a row was not written for the TTL. */
sl_op *sl_op_join_new(const sl_join_plan *p, sl_err *err);

/* Interval join (op_interval_join.c): append-only inputs, append-only
 * output; state freed once the watermark passes each row's bound. */
sl_op *sl_op_interval_join_new(const sl_join_plan *p, sl_err *err);

/* Window join (op_window_join.c): append-only inputs of the same window
 * TVF, joined per window when the watermark closes it; append-only output.
 * SL_JOIN_SEMI / SL_JOIN_ANTI: the output is the left rows (left columns)
 * that have / have not a match in their window. */
sl_op *sl_op_window_join_new(const sl_join_plan *p, sl_err *err);

/* Event-time temporal join (op_temporal_join.c): the left (probe) rows
 * join the right side's version (keyed by lkeys/rkeys = its PRIMARY KEY)
 * valid at their rowtime (ltime), once the merged watermark passes it;
 * the right input is append-only or a full retract stream with its
 * rowtime at rtime.  INNER or LEFT; append-only output keeping the left
 * rowtime.  Returns NULL with err set. */
sl_op *sl_op_temporal_join_new(const sl_join_plan *p, sl_err *err);

/* Lookup join (op_lookup_join.c): one input (the probe side, input 0);
 * each row joins at once the rows lookup `lk` (conn.h; owned by the
 * operator from now on, even on failure) returns for its key lkeys; the
 * right columns are the looked-up table's fields.  INNER or LEFT; rows keep
 * the probe's kind and W_before.  No state.  Returns NULL with err set. */
struct sl_lookup;
sl_op *sl_op_lookup_join_new(const sl_join_plan *p, struct sl_lookup *lk, sl_err *err);

/* Semi (anti = 0) or anti (anti = 1) join (op_semi_join.c): emits the
 * left rows that have (semi) or have not (anti) a right row with equal
 * keys (nkeys may be 0: every pair) for which the residual holds; inputs
 * append-only or updating, output the left columns, updating unless a
 * semi join of append-only inputs.  p->kind is ignored.  State: a
 * list of records per key (join_base.h).  Returns NULL with err set. */
sl_op *sl_op_semi_join_new(const sl_join_plan *p, int anti, sl_err *err);

/* ---- join_rows.c: records and joined rows, for the join base and operators -- */

/*
 * A stored row record inside a state value (a list of records per key):
 *   u32 len (of the row bytes), u32 count (duplicates), i64 aux, i64 time,
 *   row bytes (the row form of data/rowcodec.h: exact, ROW values too)
 * aux is the number of matches of an outer-side row (regular and interval
 * joins) or the row's time (interval join keeps it in `time`).  Records
 * are unaligned: read them with sl__jrec_read.
 */
typedef struct sl_jrec {
	uint32_t len;
	uint32_t count;
	int64_t aux;
	int64_t time;
	const char *row;  /* row bytes */
} sl_jrec;

#define SL_JREC_HDR 24 /* len, count, aux, time */

/* Reads the record at *p (advancing it) within [*p, end); returns 0 or
 * SL_ESTATE when the bytes are malformed.  Inline: it runs once per stored
 * row a join visits (see join_base.h on inlining). */
static inline int sl__jrec_read(const char **p, const char *end, sl_jrec *r)
{
	if (end - *p < SL_JREC_HDR)
		return SL_ESTATE;
	memcpy(&r->len, *p, 4);
	memcpy(&r->count, *p + 4, 4);
	memcpy(&r->aux, *p + 8, 8);
	memcpy(&r->time, *p + 16, 8);
	if ((uint64_t)(end - *p - SL_JREC_HDR) < r->len)
		return SL_ESTATE;
	r->row = *p + SL_JREC_HDR;
	*p += SL_JREC_HDR + r->len;
	return 0;
}

/* Appends a record header + the row form of row `row` of all columns of
 * `in` to out.  Returns 0 or SL_ENOMEM. */
int sl__jrec_append(sl_buf *out, const sl_batch *in, int row, uint32_t count, int64_t aux,
                    int64_t time);

/* Writes count/aux of the record starting at `rec` (as read by
 * sl__jrec_read, which left it at rec). */
void sl__jrec_set(char *rec, uint32_t count, int64_t aux);

/* Copies plan p into *dst with the operator's own copies of the key arrays
 * (keys[0] for lkeys, keys[1] for rkeys; the operator frees them at close,
 * also after a failure here).  Returns 0 or SL_ENOMEM with err set. */
int sl__join_plan_own(sl_join_plan *dst, int *keys[2], const sl_join_plan *p, sl_err *err);

/*
 * Builder of joined output rows: an emitter (emit.h) of output rows (left
 * ++ right columns) to the operator's consumers, and a candidate batch in
 * which joined pairs are assembled and filtered by the residual predicate.
 */
typedef struct sl_joiner {
	sl_op *op;
	int nl, nr;
	sl_emitter out;    /* rows being emitted */
	sl_batch *cand;    /* candidate joined rows (residual evaluation) */
	sl_prog *residual; /* NULL = every candidate matches */
	uint8_t *ok;       /* per candidate row: the residual held */
	/* per candidate row: the input batch row it was built from (either
	 * side), src_b NULL when both sides came from state; an error of the
	 * residual is handed back as that row (err.h), so the scan upstream
	 * names its source position */
	const sl_batch **src_b;
	int *src_row;
	sl_eval_ctx *ectx;
} sl_joiner;

/* Candidates have p's left and right columns, the output op's columns
 * (the joined row, or the left columns of a semi / anti join). */
int sl__joiner_init(sl_joiner *j, sl_op *op, const sl_join_plan *p, sl_err *err);
void sl__joiner_deinit(sl_joiner *j);

/* Starts a new candidate set (cand emptied). */
void sl__joiner_cand_reset(sl_joiner *j);

/* Adds a candidate: the left part from input batch row (lb, lrow) or stored
 * bytes (lrow < 0: lbytes/llen), the same for the right part; a NULL part
 * (both lb == NULL and lbytes == NULL) is padded with NULLs.  Returns the
 * candidate index or a negative code.  The caller evaluates when
 * cand->nrows == cand->cap. */
int sl__joiner_cand_add(sl_joiner *j, const sl_batch *lb, int lrow, const char *lbytes,
                        uint32_t llen, const sl_batch *rb, int rrow, const char *rbytes,
                        uint32_t rlen, sl_err *err);

/* Evaluates the residual over the candidates: sets j->ok[i].  Returns 0 or
 * an evaluation error (err->row / row_batch: the input row of the failing
 * candidate, when it has one). */
int sl__joiner_cand_eval(sl_joiner *j, sl_err *err);

/*
 * Emits the candidates themselves, each with the kind and W_before the
 * caller set in cand->op[i] / cand->wm[i] after sl__joiner_cand_add:
 * flushes the rows pending in the output first (order), evaluates the
 * residual (a selection vector over cand), emits cand to the consumers
 * (sl_op_emit) and empties it.  For a join that emits every match once as
 * built (the regular INNER join), instead of sl__joiner_cand_eval and a
 * copy per match; candidates may then come from many input rows (the
 * caller emits when cand->nrows == cand->cap and at the end of its batch).
 * Errors of the residual or downstream naming a candidate name its input
 * row (err.h).  Returns 0 or the error; cand is empty either way.
 */
int sl__joiner_cand_emit(sl_joiner *j, sl_err *err);

/* Copies candidate i to the output with kind op and W_before wm (flushing
 * the output first when it is full).  Returns 0 or an error. */
int sl__joiner_emit_cand(sl_joiner *j, int i, uint8_t op, int64_t wm, sl_err *err);

/* Emits a joined row directly (parts as in sl__joiner_cand_add). */
int sl__joiner_emit(sl_joiner *j, const sl_batch *lb, int lrow, const char *lbytes,
                    uint32_t llen, const sl_batch *rb, int rrow, const char *rbytes,
                    uint32_t rlen, uint8_t op, int64_t wm, sl_err *err);

/* Emits a stored left row alone (the output has the left columns only:
 * semi and anti joins). */
int sl__joiner_emit_left(sl_joiner *j, const char *lbytes, uint32_t llen, uint8_t op,
                         int64_t wm, sl_err *err);

/* Emits the pending output rows to the consumers. */
int sl__joiner_flush(sl_joiner *j, sl_err *err);

#endif
