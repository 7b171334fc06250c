/*
 * conn_nexmark.c - the 'nexmark' source: the Nexmark benchmark's event
 * stream (persons, auctions, bids) in Flink's wide-table schema.
 *
 * It sits at the start of a dataflow like any source (conn.h); the events
 * themselves come from conn_nexmark_gen.c, which makes event g a pure
 * function of the options and g.  This file reads the options, checks the
 * table's schema, cuts the stream into splits, fills batches, throttles
 * when asked to, and saves positions in checkpoints (docs/nexmark.md).
 *
 * Schema: Flink's (nexmark/nexmark's NexmarkTableSource, by position as
 * Flink's converter fills it): event_type INT, person ROW<id BIGINT, name,
 * emailAddress, creditCard, city, state STRING, dateTime TIMESTAMP(3),
 * extra STRING>, auction ROW<id, itemName, description, initialBid,
 * reserve, dateTime, expires, seller, category, extra>, bid ROW<auction,
 * bidder, price, channel, url, dateTime, extra>.  An event fills its
 * type's ROW; the other two are NULL.  The DDL adds `dateTime` and the
 * 4-second watermark as computed columns (bench/nexmark/ddl_gen.sql).
 *
 * Options (Flink's NexmarkSourceOptions; the planner refuses others):
 *   'events.num'            events; 0 (default) = unbounded
 *   'first-event.rate'      events per second of event time (10000)
 *   'next-event.rate', 'rate.shape' (SQUARE|SINE), 'rate.period',
 *   'rate.limited'          accepted and checked; as in Flink's generator
 *                           the rate stays 'first-event.rate'
 *   'person.proportion' / 'auction.proportion' / 'bid.proportion' (1/3/46)
 *   'person.avg-size' / 'auction.avg-size' / 'bid.avg-size' (200b/500b/100b)
 *   'bid.hot-ratio.auctions' (2), 'bid.hot-ratio.bidders' (4),
 *   'auction.hot-ratio.sellers' (4)
 *   'max-emit-speed'        true (default): as fast as possible; false:
 *                           each event when the wall clock since open
 *                           reaches its event time since 'base-time'
 *   'keep-alive'            true: after the last event stay idle, no end
 *   'stop-at'               >= 0: end after that many events
 *   RisingWave's form: 'nexmark.table.type' = 'Person' | 'Auction' | 'Bid'
 *   makes the table the events of that type, its columns the fields of
 *   that type's ROW; RisingWave's 'nexmark.event.num',
 *   'nexmark.min.event.gap.in.ns' (the delay in ns) and
 *   'nexmark.hot.{auction,bidder,seller}.ratio' are read for Flink's keys,
 *   'nexmark.split.num' and 'nexmark.max.chunk.size' checked and left.
 *   sluice extensions: 'seed' (the random streams), 'base-time' (the
 *   event time origin, 'YYYY-MM-DD HH:MM:SS' UTC; default 2026-01-01
 *   00:00:00, where Flink takes the wall clock: a fixed origin makes the
 *   same options give the same events).
 *
 * Splits (docs/parallel.md §4): the stream's event numbers are cut into
 * chunks of NX_CHUNK_EVENTS (a constant: the data, not the parallelism,
 * defines them).  Chunk k goes to instance k % nsubtasks, which reads its
 * chunks in order, one after the other; each chunk of a bounded stream is
 * a split with its own watermark, and a chunk k > 0 not yet started gets
 * as initial watermark the watermark expression of event k * C - 1, the
 * last one before it (a seed batch, conn.h), so a waiting chunk holds the
 * watermark where the stream before it ends.  An unbounded stream (or one
 * of more than NX_MAX_CHUNKS chunks) is one split per instance: its chunks
 * in order, one stream.  Every event is never late in its split (event
 * times grow with event numbers and the watermark trails them), at any
 * parallelism.
 */
#include "conn_builtin.h"
#include "conn_nexmark.h"
#include "sluice.h"
#include "base/timeutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define NX_CHUNK_EVENTS (1LL << 20) /* events of a split */
#define NX_MAX_CHUNKS (1 << 20)     /* more chunks than this: one split walks them */
#define NX_MAX_SLEEP_US 100000      /* longest sleep of one throttled read */
#define NX_SNAP_MAGIC 0x4e584d31u   /* "NXM1" */
#define NX_DEFAULT_SEED 0x6e65786d61726b31ULL
#define NX_DEFAULT_BASE_MS 1767225600000LL /* 2026-01-01 00:00:00 UTC */

typedef struct nexmark_source {
	sl_source base;         /* must be first */
	nx_model m;
	int64_t total;          /* events of the stream (unbounded: Flink's bound) */
	int keep_alive;
	int throttled;          /* 'max-emit-speed' = false */
	int64_t wall_base_ms;   /* wall clock at open (throttling) */
	int64_t chunk;          /* events per chunk */
	int subtask, nsubtasks;
	/* bounded, split per chunk: the local chunks, in order */
	int nsplits;
	int64_t *gk;            /* global chunk index of each local split */
	int64_t *emitted;       /* events produced of each */
	int64_t *len;           /* events of each */
	uint8_t *done;          /* base.split_done */
	int64_t *wm;            /* base.split_wm */
	uint8_t *seeded;        /* its seed row was given */
	int32_t *seed_split;    /* per seed row: its split */
	int cur;                /* the first local split not done */
	int seeding;            /* seed rows may be left to give */
	/* otherwise one stream walking the chunks subtask, subtask + n, ... */
	int64_t walk_next;      /* its next event number */
	int table_type;         /* -1: the wide table; NX_*: RisingWave's table of that type */
	int64_t *row_g;         /* event number of each row of the last batch (where) */
	int row_cap;
} nexmark_source;

/* ---- options and schema ------------------------------------------------------ */

static int opt_int(const sl_opts *o, const char *key, int64_t def, int64_t lo, int64_t hi,
                   int64_t *out, const char *tbl, sl_err *err)
{
	if (sl_opts_int(o, key, def, out, err)) {
		sl_err_prefix(err, "source '%s': nexmark", tbl);
		return SL_EINVAL;
	}
	if (*out < lo || *out > hi)
		return sl_err_set(err, SL_EINVAL,
		                  "source '%s': nexmark: '%s' = %lld is out of range [%lld, %lld]", tbl,
		                  key, (long long)*out, (long long)lo, (long long)hi);
	return 0;
}

static int opt_size(const sl_opts *o, const char *key, int64_t def, int *out, const char *tbl,
                    sl_err *err)
{
	int64_t v;
	if (sl_opts_size(o, key, def, &v, err)) {
		sl_err_prefix(err, "source '%s': nexmark", tbl);
		return SL_EINVAL;
	}
	if (v > INT32_MAX)
		return sl_err_set(err, SL_EINVAL, "source '%s': nexmark: '%s' is too large", tbl, key);
	*out = (int)v;
	return 0;
}

/* The rate options Flink's generator accepts but does not act on. */
static int rate_opts(const sl_opts *o, const char *tbl, sl_err *err)
{
	int64_t v, dur;
	int b;
	const char *shape = sl_opts_get(o, "rate.shape");
	if (shape && strcmp(shape, "SQUARE") && strcmp(shape, "SINE"))
		return sl_err_set(err, SL_EINVAL,
		                  "source '%s': nexmark: 'rate.shape' must be 'SQUARE' or 'SINE', not '%s'",
		                  tbl, shape);
	if (opt_int(o, "next-event.rate", 10000, 1, INT32_MAX, &v, tbl, err))
		return SL_EINVAL;
	if (sl_opts_duration(o, "rate.period", 600000000, &dur, err) ||
	    sl_opts_bool(o, "rate.limited", 0, &b, err)) {
		sl_err_prefix(err, "source '%s': nexmark", tbl);
		return SL_EINVAL;
	}
	return 0;
}

/* Key, or RisingWave's spelling rw of it when that is set. */
static const char *key2(const sl_opts *o, const char *key, const char *rw)
{
	return sl_opts_get(o, rw) ? rw : key;
}

/* RisingWave's table type and the options of its form that change nothing
 * here (its splits and chunk sizes: sluice's splits are the data's). */
static int rw_opts(nexmark_source *x, const sl_opts *o, sl_err *err)
{
	const char *tbl = x->base.table;
	static const char *types[3] = {"Person", "Auction", "Bid"};
	const char *t = sl_opts_get(o, "nexmark.table.type");
	int64_t v;
	int b;
	x->table_type = -1;
	for (int i = 0; t && i < 3; i++)
		if (!strcasecmp(t, types[i]))
			x->table_type = i;
	if (t && x->table_type < 0)
		return sl_err_set(err, SL_EINVAL, "source '%s': nexmark: 'nexmark.table.type' must be "
		                  "'Person', 'Auction' or 'Bid', not '%s'", tbl, t);
	if (opt_int(o, "nexmark.split.num", 1, 1, INT32_MAX, &v, tbl, err) ||
	    opt_int(o, "nexmark.max.chunk.size", 1024, 1, INT32_MAX, &v, tbl, err))
		return SL_EINVAL;
	if (sl_opts_bool(o, "nexmark.use.real.time", 0, &b, err)) {
		sl_err_prefix(err, "source '%s': nexmark", tbl);
		return SL_EINVAL;
	}
	if (b)
		return sl_err_set(err, SL_EINVAL, "source '%s': nexmark: 'nexmark.use.real.time' = "
		                  "true (the wall clock as event time) is not supported", tbl);
	return 0;
}

static int read_cfg(nexmark_source *x, const sl_opts *o, nx_cfg *c, sl_err *err)
{
	const char *tbl = x->base.table;
	int64_t v, rate, events, stop, gap;
	memset(c, 0, sizeof *c);
	if (rw_opts(x, o, err) ||
	    opt_int(o, key2(o, "events.num", "nexmark.event.num"), 0, 0, INT64_MAX, &events, tbl,
	            err) ||
	    opt_int(o, "stop-at", -1, -1, INT64_MAX, &stop, tbl, err) ||
	    opt_int(o, "first-event.rate", 10000, 1, INT32_MAX, &rate, tbl, err) ||
	    opt_int(o, "nexmark.min.event.gap.in.ns", 0, 0, INT64_MAX / 2, &gap, tbl, err) ||
	    rate_opts(o, tbl, err))
		return SL_EINVAL;
	c->delay_us = gap ? (double)gap / 1000.0 : 1000000.0 / (double)rate;
	const char *prop[3] = {"person.proportion", "auction.proportion", "bid.proportion"};
	const int pdef[3] = {1, 3, 46};
	int *pv[3] = {&c->person_prop, &c->auction_prop, &c->bid_prop};
	for (int i = 0; i < 3; i++) {
		if (opt_int(o, prop[i], pdef[i], 0, 1000000, &v, tbl, err))
			return SL_EINVAL;
		*pv[i] = (int)v;
	}
	c->total_prop = c->person_prop + c->auction_prop + c->bid_prop;
	if (c->total_prop == 0)
		return sl_err_set(err, SL_EINVAL,
		                  "source '%s': nexmark: the proportions of persons, auctions and bids "
		                  "are all 0", tbl);
	const char *hot[3] = {"bid.hot-ratio.auctions", "bid.hot-ratio.bidders",
	                      "auction.hot-ratio.sellers"};
	const char *rwhot[3] = {"nexmark.hot.auction.ratio", "nexmark.hot.bidder.ratio",
	                        "nexmark.hot.seller.ratio"};
	const int hdef[3] = {2, 4, 4};
	int *hv[3] = {&c->hot_auctions, &c->hot_bidders, &c->hot_sellers};
	for (int i = 0; i < 3; i++) {
		if (opt_int(o, key2(o, hot[i], rwhot[i]), hdef[i], 1, INT32_MAX, &v, tbl, err))
			return SL_EINVAL;
		*hv[i] = (int)v;
	}
	if (opt_size(o, "person.avg-size", 200, &c->avg_person, tbl, err) ||
	    opt_size(o, "auction.avg-size", 500, &c->avg_auction, tbl, err) ||
	    opt_size(o, "bid.avg-size", 100, &c->avg_bid, tbl, err))
		return SL_EINVAL;
	int64_t seed = (int64_t)NX_DEFAULT_SEED;
	if (sl_opts_int(o, "seed", seed, &seed, err) ||
	    sl_opts_bool(o, "max-emit-speed", 1, &x->throttled, err) ||
	    sl_opts_bool(o, "keep-alive", 0, &x->keep_alive, err)) {
		sl_err_prefix(err, "source '%s': nexmark", tbl);
		return SL_EINVAL;
	}
	x->throttled = !x->throttled;
	c->seed = (uint64_t)seed;
	c->base_ms = NX_DEFAULT_BASE_MS;
	const char *bt = sl_opts_get(o, "base-time");
	if (bt) {
		int64_t us;
		if (sl_ts_parse(bt, strlen(bt), &us))
			return sl_err_set(err, SL_EINVAL,
			                  "source '%s': nexmark: 'base-time' = '%s' is not a timestamp "
			                  "('YYYY-MM-DD HH:MM:SS[.fff]')", tbl, bt);
		c->base_ms = sl_floordiv(us, 1000);
	}
	/* unbounded: Flink's bound, Long.MAX / (total proportion * largest avg size) */
	int big = c->avg_person > c->avg_auction ? c->avg_person : c->avg_auction;
	big = big > c->avg_bid ? big : c->avg_bid;
	x->total = events ? events : INT64_MAX / ((int64_t)c->total_prop * (big > 0 ? big : 1));
	if (stop >= 0 && stop < x->total)
		x->total = stop;
	return 0;
}

/* A field of Flink's schema: its name (for messages) and kind. */
typedef struct nx_field {
	const char *name;
	char kind; /* 'i' integer, 's' string, 't' timestamp */
} nx_field;

static const nx_field person_fields[8] = {
	{"id", 'i'}, {"name", 's'}, {"emailAddress", 's'}, {"creditCard", 's'},
	{"city", 's'}, {"state", 's'}, {"dateTime", 't'}, {"extra", 's'}};
static const nx_field auction_fields[10] = {
	{"id", 'i'}, {"itemName", 's'}, {"description", 's'}, {"initialBid", 'i'},
	{"reserve", 'i'}, {"dateTime", 't'}, {"expires", 't'}, {"seller", 'i'},
	{"category", 'i'}, {"extra", 's'}};
static const nx_field bid_fields[7] = {
	{"auction", 'i'}, {"bidder", 'i'}, {"price", 'i'}, {"channel", 's'},
	{"url", 's'}, {"dateTime", 't'}, {"extra", 's'}};

static int kind_ok(sl_type t, char kind)
{
	switch (kind) {
	case 'i': return t.id == SL_T_BIGINT;
	case 's': return sl_type_is_string(t);
	default: return sl_type_is_timestamp(t);
	}
}

static const char *row_names[3] = {"person", "auction", "bid"};
static const nx_field *row_fields[3] = {person_fields, auction_fields, bid_fields};
static const int row_nf[3] = {8, 10, 7};

/* RisingWave's form: the columns of type t's table are its ROW's fields. */
static int check_flat(const sl_conn_args *a, int t, sl_err *err)
{
	if (a->nfields != row_nf[t])
		return sl_err_set(err, SL_EINVAL, "source '%s': nexmark: a '%s' table "
		                  "('nexmark.table.type') has %d columns, not %d", a->table,
		                  row_names[t], row_nf[t], a->nfields);
	for (int i = 0; i < row_nf[t]; i++) {
		const nx_field *f = &row_fields[t][i];
		if (kind_ok(a->fields[i].type, f->kind))
			continue;
		char tb[64];
		return sl_err_set(err, SL_EINVAL, "source '%s': nexmark: column %d ('%s', the %s's %s) "
		                  "must be %s, not %s", a->table, i + 1, a->fields[i].name,
		                  row_names[t], f->name,
		                  f->kind == 'i' ? "BIGINT" : f->kind == 's' ? "a string" : "a TIMESTAMP",
		                  sl_type_format(a->fields[i].type, tb, sizeof tb));
	}
	return 0;
}

/* Checks the table's physical columns against Flink's wide schema. */
static int check_schema(const sl_conn_args *a, sl_err *err)
{
	const char **rows = row_names;
	const nx_field *const *fields = row_fields;
	const int *nf = row_nf;
	const char *want = "the physical columns must be Flink's Nexmark schema: event_type INT, "
	                   "person ROW<8 fields>, auction ROW<10 fields>, bid ROW<7 fields> "
	                   "(bench/nexmark/ddl_gen.sql)";
	if (a->nfields != 4 || a->fields[0].type.id != SL_T_INT)
		return sl_err_set(err, SL_EINVAL, "source '%s': nexmark: %s", a->table, want);
	for (int r = 0; r < 3; r++) {
		sl_type t = a->fields[1 + r].type;
		if (t.id != SL_T_ROW || !t.row || t.row->nfields != nf[r])
			return sl_err_set(err, SL_EINVAL, "source '%s': nexmark: column %d ('%s') must be "
			                  "the %s ROW of %d fields; %s", a->table, 2 + r,
			                  a->fields[1 + r].name, rows[r], nf[r], want);
		for (int i = 0; i < nf[r]; i++) {
			const nx_field *f = &fields[r][i];
			if (kind_ok(t.row->fields[i].type, f->kind))
				continue;
			char tb[64];
			return sl_err_set(err, SL_EINVAL,
			                  "source '%s': nexmark: field %d of %s ('%s', Flink's %s) must be %s, "
			                  "not %s", a->table, i + 1, rows[r], t.row->fields[i].name, f->name,
			                  f->kind == 'i' ? "BIGINT" : f->kind == 's' ? "a string" : "a TIMESTAMP",
			                  sl_type_format(t.row->fields[i].type, tb, sizeof tb));
		}
	}
	return 0;
}

/* ---- splits ------------------------------------------------------------------- */

/* Cuts the stream into chunks and takes this instance's (the header). */
static int make_splits(nexmark_source *x, sl_err *err)
{
	const char *v = getenv("SLUICE_TEST_NEXMARK_CHUNK_EVENTS");
	long long c = v ? atoll(v) : 0;
	x->chunk = c > 0 ? (int64_t)c : NX_CHUNK_EVENTS;
	x->walk_next = (int64_t)x->subtask * x->chunk;
	int64_t n = x->total / x->chunk + (x->total % x->chunk != 0);
	if (n > NX_MAX_CHUNKS)
		return 0;
	int64_t local = n > x->subtask ? (n - x->subtask + x->nsubtasks - 1) / x->nsubtasks : 0;
	size_t k = (size_t)(local ? local : 1);
	x->gk = calloc(k, sizeof(int64_t));
	x->emitted = calloc(k, sizeof(int64_t));
	x->len = calloc(k, sizeof(int64_t));
	x->wm = calloc(k, sizeof(int64_t));
	x->done = calloc(k, 1);
	x->seeded = calloc(k, 1);
	if (!x->gk || !x->emitted || !x->len || !x->wm || !x->done || !x->seeded)
		return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", x->base.table);
	x->nsplits = (int)local;
	for (int j = 0; j < x->nsplits; j++) {
		int64_t g = x->subtask + (int64_t)j * x->nsubtasks, start = g * x->chunk;
		x->gk[j] = g;
		x->len[j] = x->total - start < x->chunk ? x->total - start : x->chunk;
		x->wm[j] = SL_WM_MIN;
	}
	/* an instance without chunks ends at once: one split, done */
	if (!x->nsplits) {
		x->nsplits = 1;
		x->done[0] = 1;
		x->gk[0] = -1;
	}
	x->seeding = 1;
	x->base.nsplits = x->nsplits;
	x->base.split_done = x->done;
	x->base.split_wm = x->wm;
	return 0;
}

static int nx_configure(sl_source *s, const sl_conn_args *a, sl_err *err)
{
	nexmark_source *x = (nexmark_source *)s;
	nx_cfg c;
	int rc;
	if ((rc = read_cfg(x, a->opts, &c, err)))
		return rc;
	if ((rc = x->table_type < 0 ? check_schema(a, err) : check_flat(a, x->table_type, err)))
		return rc;
	x->nsubtasks = a->nsubtasks > 0 ? a->nsubtasks : 1;
	x->subtask = a->subtask;
	x->m.cfg = c;
	return make_splits(x, err);
}

static int64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Builds the string pools (about 1.3 MB; not in configure, so planning
 * and EXPLAIN stay cheap) and reads the clock throttling counts from. */
static int nx_open(sl_source *s, sl_err *err)
{
	nexmark_source *x = (nexmark_source *)s;
	nx_cfg c = x->m.cfg;
	if (nx_model_init(&x->m, &c))
		return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", s->table);
	x->wall_base_ms = wall_ms();
	return 0;
}

/* ---- reading ------------------------------------------------------------------ */

/* Marks rows r0..r0+n of the three ROW columns (and their fields) NULL. */
static void null_rows(sl_batch *b, int r0, int n)
{
	for (int c = 1; c < 4; c++) {
		sl_col *col = &b->cols[c];
		memset(col->null + r0, 1, (size_t)n);
		for (int f = 0; f < col->nchild; f++)
			memset(col->child[f].null + r0, 1, (size_t)n);
	}
}

/*
 * Appends the events g0 .. g0+n-1 (n <= room) of the table's type (all of
 * them for the wide table) while out has room; *used gets how many events
 * were looked at.  Returns the rows appended or an error.
 */
static int fill(nexmark_source *x, sl_batch *out, int64_t g0, int64_t n, int64_t *used,
                sl_err *err)
{
	int r0 = out->nrows, k = 0;
	if (x->row_cap < out->cap) {
		free(x->row_g);
		x->row_cap = 0;
		if (!(x->row_g = malloc((size_t)out->cap * sizeof(int64_t))))
			return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", x->base.table);
		x->row_cap = out->cap;
	}
	if (x->table_type < 0) {
		memset(out->op + r0, SL_INSERT, (size_t)n);
		null_rows(out, r0, (int)n);
		for (k = 0; k < n; k++) {
			out->wm[r0 + k] = SL_WM_MIN;
			x->row_g[r0 + k] = g0 + k;
			if (nx_event_fill(&x->m, g0 + k, out, r0 + k))
				return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", x->base.table);
		}
		*used = n;
		out->nrows += (int)n;
		return (int)n;
	}
	int64_t i = 0;
	for (; i < n && r0 + k < out->cap; i++) {
		if (nx_event_type(&x->m.cfg, g0 + i) != x->table_type)
			continue;
		int r = r0 + k++;
		out->op[r] = SL_INSERT;
		out->wm[r] = SL_WM_MIN;
		x->row_g[r] = g0 + i;
		if (nx_event_fill_flat(&x->m, g0 + i, out, r))
			return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", x->base.table);
	}
	*used = i;
	out->nrows += k;
	return k;
}

/* How many of the n events from g0 are due now (all unless throttled);
 * sleeps up to NX_MAX_SLEEP_US for the first when none is. */
static int64_t due(nexmark_source *x, int64_t g0, int64_t n)
{
	if (!x->throttled)
		return n;
	const nx_cfg *c = &x->m.cfg;
	int64_t now = wall_ms() - x->wall_base_ms;
	int64_t k = 0;
	while (k < n && nx_event_ts(c, g0 + k) - c->base_ms <= now)
		k++;
	if (k == 0) {
		int64_t wait = (nx_event_ts(c, g0) - c->base_ms - now) * 1000;
		if (wait > NX_MAX_SLEEP_US)
			wait = NX_MAX_SLEEP_US;
		struct timespec ts = {wait / 1000000, (wait % 1000000) * 1000};
		nanosleep(&ts, NULL);
	}
	return k;
}

/* Seed rows (conn.h): for each local split k > 0 not started and still at
 * -infinity, the event just before it.  Returns how many. */
static int read_seeds(nexmark_source *x, sl_batch *out, sl_err *err)
{
	int n = 0;
	if (!x->seed_split && !(x->seed_split = calloc((size_t)out->cap, sizeof(int32_t))))
		return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", x->base.table);
	for (int j = 0; j < x->nsplits && out->nrows < out->cap; j++) {
		if (x->seeded[j] || x->gk[j] <= 0 || x->emitted[j] || x->wm[j] != SL_WM_MIN)
			continue;
		x->seeded[j] = 1;
		/* the last event of the table's type before the chunk */
		int64_t g = x->gk[j] * x->chunk - 1, used;
		while (x->table_type >= 0 && g >= 0 && nx_event_type(&x->m.cfg, g) != x->table_type &&
		       g > x->gk[j] * x->chunk - 1 - x->m.cfg.total_prop)
			g--;
		if (g < 0 || (x->table_type >= 0 && nx_event_type(&x->m.cfg, g) != x->table_type))
			continue; /* none: the chunk starts at -infinity */
		x->seed_split[out->nrows] = j;
		int rc = fill(x, out, g, 1, &used, err);
		if (rc < 0)
			return rc;
		n++;
	}
	return n;
}

/* Events to look at for a batch's room: the room itself for the wide
 * table; for one type's table, enough events to fill it on average. */
static int64_t span(const nexmark_source *x, int room)
{
	if (x->table_type < 0)
		return room;
	const nx_cfg *c = &x->m.cfg;
	int p = x->table_type == NX_PERSON ? c->person_prop
	        : x->table_type == NX_AUCTION ? c->auction_prop : c->bid_prop;
	return p ? (int64_t)room * c->total_prop / p + c->total_prop : INT64_MAX;
}

static int read_split(nexmark_source *x, sl_batch *out, sl_err *err)
{
	for (;;) {
		while (x->cur < x->nsplits && x->done[x->cur])
			x->cur++;
		if (x->cur >= x->nsplits)
			return x->keep_alive ? 0 : SL_EEOF;
		int j = x->cur;
		int64_t g0 = x->gk[j] * x->chunk + x->emitted[j], n = x->len[j] - x->emitted[j], used;
		int64_t room = span(x, out->cap - out->nrows);
		if (n > room)
			n = room;
		n = due(x, g0, n);
		if (n <= 0)
			return 0;
		int rc = fill(x, out, g0, n, &used, err);
		if (rc < 0)
			return rc;
		x->emitted[j] += used;
		if (x->emitted[j] >= x->len[j])
			x->done[j] = 1;
		if (rc == 0)
			continue; /* no event of the table's type there */
		x->base.split = j;
		x->base.rows_read += rc;
		return rc;
	}
}

/* One stream over the chunks subtask, subtask + n, ... in order. */
static int read_walk(nexmark_source *x, sl_batch *out, sl_err *err)
{
	for (;;) {
		int64_t g0 = x->walk_next, used;
		if (g0 >= x->total)
			return x->keep_alive ? 0 : SL_EEOF;
		int64_t n = x->chunk - g0 % x->chunk; /* to the chunk's end */
		int64_t room = span(x, out->cap - out->nrows);
		if (n > x->total - g0)
			n = x->total - g0;
		if (n > room)
			n = room;
		n = due(x, g0, n);
		if (n <= 0)
			return 0;
		int rc = fill(x, out, g0, n, &used, err);
		if (rc < 0)
			return rc;
		x->walk_next = g0 + used;
		if (x->walk_next % x->chunk == 0) /* the chunk is done: our next one */
			x->walk_next += (int64_t)(x->nsubtasks - 1) * x->chunk;
		if (rc == 0)
			continue;
		x->base.rows_read += rc;
		return rc;
	}
}

static int nx_read(sl_source *s, sl_batch *out, sl_err *err)
{
	nexmark_source *x = (nexmark_source *)s;
	s->seed = 0;
	if (!x->nsplits)
		return read_walk(x, out, err);
	if (x->seeding && out->nrows == 0) {
		int n = read_seeds(x, out, err);
		if (n > 0) {
			s->seed = 1;
			s->seed_split = x->seed_split;
		}
		if (n)
			return n;
		x->seeding = 0;
	}
	return read_split(x, out, err);
}

static void nx_where(sl_source *s, int row, char *buf, size_t cap)
{
	nexmark_source *x = (nexmark_source *)s;
	snprintf(buf, cap, "generated event %lld",
	         (long long)(row >= 0 && row < x->row_cap ? x->row_g[row] + 1 : 0));
}

/* ---- checkpoints ---------------------------------------------------------------- */

/*
 * Snapshot: u32 NX_SNAP_MAGIC, u32 local splits (0: one walking stream),
 * i64 chunk size, u32 subtask, u32 instances, i64 wall base; then per
 * split its global chunk index, events produced and watermark
 * (base.split_wm), or the walking stream's next event number.
 */
static int nx_snapshot(sl_source *s, sl_snap_writer *w, sl_err *err)
{
	nexmark_source *x = (nexmark_source *)s;
	sl_snap_put_u32(w, NX_SNAP_MAGIC);
	sl_snap_put_u32(w, (uint32_t)x->nsplits);
	sl_snap_put_i64(w, x->chunk);
	sl_snap_put_u32(w, (uint32_t)x->subtask);
	sl_snap_put_u32(w, (uint32_t)x->nsubtasks);
	sl_snap_put_i64(w, x->wall_base_ms);
	if (!x->nsplits)
		sl_snap_put_i64(w, x->walk_next);
	for (int j = 0; j < x->nsplits; j++) {
		sl_snap_put_i64(w, x->gk[j]);
		sl_snap_put_i64(w, x->emitted[j]);
		sl_snap_put_i64(w, x->wm[j]);
	}
	if (w->failed)
		return sl_err_set(err, SL_ENOMEM, "source '%s': snapshot: out of memory", s->table);
	return 0;
}

/*
 * Called once per instance of the run that took the checkpoint (all of
 * them, connector/conn.h): each record's chunks are global (chunk g is
 * events [g * chunk, (g + 1) * chunk)), and this instance takes the
 * positions of the chunks it owns now and skips the rest, so a restart
 * at parallelism n (where every instance is given every instance's
 * record) and a restore at another parallelism resume every chunk where
 * it was.  A walking (unbounded) stream's position is one instance's:
 * another instance's record at the same parallelism is skipped, and one
 * of another parallelism refused.
 */
static int nx_restore(sl_source *s, sl_snap_reader *r, sl_err *err)
{
	nexmark_source *x = (nexmark_source *)s;
	uint32_t magic = sl_snap_get_u32(r), n = sl_snap_get_u32(r);
	int64_t chunk = sl_snap_get_i64(r);
	uint32_t sub = sl_snap_get_u32(r), nsub = sl_snap_get_u32(r);
	if (!sl_snap_reader_ok(r) || magic != NX_SNAP_MAGIC)
		return sl_err_set(err, SL_ESTATE, "source '%s': not a nexmark snapshot", s->table);
	/* a walking stream's position is one instance's (its chunks sub, sub + nsub, ...) */
	if (!x->nsplits && nsub != (uint32_t)x->nsubtasks)
		return sl_err_set(err, SL_ESTATE,
		                  "source '%s': the nexmark snapshot is of instance %u of %u, this is "
		                  "instance %d of %d (an unbounded stream restores only at the "
		                  "parallelism it was saved at)", s->table, sub, nsub, x->subtask,
		                  x->nsubtasks);
	if ((n == 0) != (x->nsplits == 0) || chunk != x->chunk)
		return sl_err_set(err, SL_ESTATE,
		                  "source '%s': the nexmark snapshot has %u splits of %lld events, the "
		                  "table's options and this instance make %d of %lld", s->table, n,
		                  (long long)chunk, x->nsplits, (long long)x->chunk);
	int64_t base = sl_snap_get_i64(r);
	if (!x->nsplits) {
		int64_t walk = sl_snap_get_i64(r);
		if (!sl_snap_reader_ok(r))
			return sl_err_set(err, SL_ESTATE, "source '%s': nexmark snapshot is damaged",
			                  s->table);
		if (sub != (uint32_t)x->subtask)
			return 0; /* another instance's stream */
		x->wall_base_ms = base;
		x->walk_next = walk;
		return 0;
	}
	x->wall_base_ms = base;
	for (uint32_t i = 0; i < n && sl_snap_reader_ok(r); i++) {
		int64_t g = sl_snap_get_i64(r), emitted = sl_snap_get_i64(r), wm = sl_snap_get_i64(r);
		if (g < 0 || !sl_snap_reader_ok(r))
			continue; /* an instance without chunks */
		for (int j = 0; j < x->nsplits; j++) {
			if (x->gk[j] != g)
				continue;
			x->emitted[j] = emitted;
			x->wm[j] = wm;
			x->done[j] = x->emitted[j] >= x->len[j];
			x->seeded[j] = 0;
		}
	}
	x->cur = 0;
	x->seeding = x->nsplits > 0;
	if (!sl_snap_reader_ok(r))
		return sl_err_set(err, SL_ESTATE, "source '%s': nexmark snapshot is damaged", s->table);
	return 0;
}

static void nx_close(sl_source *s)
{
	nexmark_source *x = (nexmark_source *)s;
	nx_model_deinit(&x->m);
	free(x->gk);
	free(x->emitted);
	free(x->len);
	free(x->wm);
	free(x->done);
	free(x->seeded);
	free(x->seed_split);
	free(x->row_g);
	x->row_g = NULL;
	x->row_cap = 0;
	x->gk = x->emitted = x->len = x->wm = NULL;
	x->done = x->seeded = NULL;
	x->seed_split = NULL;
	x->nsplits = 0;
	s->nsplits = 0;
	s->split_done = NULL;
	s->split_wm = NULL;
}

/* The 'nexmark' source method table. */
const sl_source_vtab sl_nexmark_source_vtab = {
	.name = "nexmark",
	.size = sizeof(nexmark_source),
	.configure = nx_configure,
	.open = nx_open,
	.read = nx_read,
	.where = nx_where,
	.snapshot = nx_snapshot,
	.restore = nx_restore,
	.close = nx_close,
};
