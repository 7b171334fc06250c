/*
 * conn_datagen.c - Flink's 'datagen' source: rows of synthetic data.
 *
 * It sits at the start of a dataflow like any source (conn.h) and is the
 * load generator of the benchmarks, so it is built for speed: a batch is
 * filled column by column (one tight loop per column, no per-row malloc;
 * string bytes come from one arena allocation per column and batch).
 *
 * Options (Flink 1.20):
 *   'rows-per-second'  default 10000, throttled by the wall clock; 0 or a
 *                      negative value means unthrottled (sluice extension).
 *   'number-of-rows'   bounded when set.
 *   'fields.<f>.kind'  'random' (default) or 'sequence'.
 *     sequence: '.start', '.end' (both required; numeric and string types);
 *               the source ends when a sequence is exhausted.
 *     random:   '.min', '.max' (numbers), '.length' (strings, default 100),
 *               '.max-past' (timestamps and dates: now minus up to this).
 *     both:     '.null-rate' (0..1, default 0).
 *   'seed'             the RNG seed (sluice extension; a fixed default).
 *
 * Determinism: each column draws from its own xoshiro256** stream (and a
 * second one for NULLs), seeded from (seed, column index), one fixed number
 * of draws per row in row order, so the same options give the same rows
 * whatever the batch sizes.  Exception: random TIMESTAMP/DATE values are
 * relative to the wall clock at open ("now", as Flink; read in open, not
 * in configure, so planning reads no clock), saved in snapshots.
 * Every type of types.h except ROW can be generated.
 *
 * Splits (docs/parallel.md §4): an unthrottled ('rows-per-second' <= 0)
 * bounded generator ('number-of-rows' or a sequence) of more than
 * DG_CHUNK_ROWS rows is cut into chunks of that many
 * rows, each a split with its own watermark in the scan.  Chunk 0 is the
 * generator as seeded (a generator of at most one chunk gives the rows it
 * gave before splits); chunk k starts its sequences k * DG_CHUNK_ROWS
 * further and draws from streams seeded from (seed, column, k), so every
 * row is still a function of the options and its row number.  The chunks
 * are read a batch each in turn.  An unbounded or throttled generator, or
 * one of more than DG_MAX_CHUNKS chunks (2^32 rows), is one split.
 *
 * Parallel instances (sl_conn_args.subtask of nsubtasks, docs/parallel.md
 * §4 rule 5): instance i generates the chunks k with k % nsubtasks == i
 * (chunk k is the same rows whatever the parallelism, so the union over
 * the instances is the output at parallelism 1); a generator of one split
 * is instance 0's, and an instance without rows ends at once.  So a
 * throttled generator keeps its one 'rows-per-second' rate in instance 0
 * rather than dividing it over instances as Flink's DataGen does: its rows
 * and their order stay those of parallelism 1 (docs/sql.md, "where sluice
 * differs").  Snapshots name chunks by their number in the whole
 * generator; a restore takes every old instance's snapshot (dg_restore).
 */
#include "conn_builtin.h"
#include "sluice.h"
#include "data/decimal.h"
#include "base/timeutil.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DG_DEFAULT_SEED 0x5eed5107c0ffee11ULL
#define DG_MAX_SLEEP_US 100000 /* longest sleep of one throttled read */
#define DG_CHUNK_ROWS (1LL << 20) /* rows of a split of a bounded generator */
#define DG_MAX_CHUNKS 4096          /* more chunks than this: one split */
#define DG_SNAP_CHUNKED 0xffffffffu /* first u32 of a chunked snapshot */
#define DG_SNAP_BY_ID 0xfffffffeu   /* ... of one of several instances */

enum { GEN_RANDOM = 0, GEN_SEQUENCE = 1 };

/* A 64-bit divisor prepared for rem_preinv (see there). */
typedef struct modinv {
	uint64_t d; /* span << l (top bit set); 0 = span wider than 64 bits */
	uint64_t v; /* floor((2^128 - 1) / d) - 2^64 */
	int l;
} modinv;

/* Generator of one column. */
typedef struct gen_col {
	int kind;              /* GEN_RANDOM or GEN_SEQUENCE */
	sl_type type;          /* the column's type */
	int64_t seq_next;      /* sequence: next value */
	int64_t seq_end;       /* sequence: last value (inclusive) */
	uint64_t seq_left;     /* sequence: values left (0 = exhausted) */
	int64_t imin, imax;    /* random integer-like range (inclusive) */
	double fmin, fmax;     /* random FLOAT/DOUBLE range */
	sl_i128 dmin, dmax;    /* random DECIMAL range, unscaled */
	modinv dinv;        /* for dmax - dmin + 1 (mod_u128) */
	int64_t length;        /* random string length */
	int64_t max_past;      /* random TIMESTAMP/DATE: micros before "now" */
	double null_rate;      /* probability of NULL */
	uint64_t rng[4];       /* value stream */
	uint64_t nrng[4];      /* NULL stream */
} gen_col;

typedef struct datagen_source {
	sl_source base;        /* must be first */
	int ncols;
	gen_col *cols;         /* one per field */
	int64_t rps;           /* rows per second; <= 0: unthrottled */
	int64_t limit;         /* 'number-of-rows', -1 = unbounded */
	int64_t emitted;       /* rows produced so far */
	int64_t anchor_us;     /* "now" for random TIMESTAMP/DATE values */
	int64_t thr_start_us;  /* monotonic time throttling counts from, 0 = unset */
	int64_t thr_base;      /* `emitted` at thr_start_us */
	int64_t batch_first;   /* row number of the last batch's first row */
	/* Splits (docs/parallel.md §4): a bounded generator of more than
	 * DG_CHUNK_ROWS rows is cut into chunks of that many rows, chunk k
	 * holding rows [k * DG_CHUNK_ROWS, ...) with its own generators (see
	 * the header); nchunks = 0: one split, d->cols. */
	int nchunks;
	int cur;               /* chunk whose turn it is */
	gen_col *ccols;        /* nchunks x ncols generators */
	int64_t *cemitted;     /* per chunk: rows produced */
	int64_t *clen;         /* per chunk: its rows */
	uint8_t *cdone;        /* per chunk: all produced (base.split_done) */
	int64_t *cwm;          /* per chunk: the scan's watermark (base.split_wm) */
	int ndone;
	int64_t chunk_rows;    /* DG_CHUNK_ROWS, or the test override */
	/* Parallel instances (docs/parallel.md §4 rule 5): instance subtask
	 * of nsub keeps the chunks k with k % nsub == subtask; the arrays
	 * above hold those only, chunk j being chunk cid[j] of the whole
	 * generator (of total chunks).  none: this instance generates nothing
	 * (the generator is one split, instance 0's, or it has no chunk). */
	int subtask, nsub;
	int total;             /* chunks of the whole generator (0: one split) */
	int *cid;              /* per chunk: its number in the whole generator */
	int none;
	/* Restores (dg_restore, once per snapshot of the previous run's
	 * instances): how many so far, which chunks they named (every one
	 * must be, checked at the first read), the watermarks restored. */
	int nrestored;
	int need_check;        /* a restore happened: check before the first read */
	int one_named;         /* one-split mode: the split's state came */
	uint8_t *cnamed;
	int64_t *cwm_keep;
} datagen_source;

/* ---- random numbers -------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed(uint64_t s[4], uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman and Vigna): 4 words of state, ~1 ns per draw. */
static inline uint64_t rng_next(uint64_t s[4])
{
	uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

static inline double rng_unit(uint64_t s[4]) /* [0, 1) */
{
	return (double)(rng_next(s) >> 11) * 0x1.0p-53;
}

/* Uniform in [lo, hi] (inclusive) by multiply-shift; the whole 64-bit
 * range when span wraps to 0. */
static inline int64_t rng_range(uint64_t s[4], int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
	uint64_t x = rng_next(s);
	if (span == 0)
		return (int64_t)x;
	return (int64_t)((uint64_t)lo + (uint64_t)(((unsigned __int128)x * span) >> 64));
}

/*
 * Remainders of 128-bit draws by the DECIMAL span without a divide.  Why:
 * the 128-bit modulo (libgcc's __umodti3, two divq for a 64-bit span) was
 * 8-10% of the datagen window benchmark; a divq instead of the call saved
 * nothing (perf).  Per draw on this machine (span 50 000, loop of 20 M,
 * best runs): __umodti3 3.5 ns, this 1.4 ns.  For a span that fits 64 bits
 * it gives the same remainder with multiplications by a precomputed
 * inverse: Moeller and Granlund, "Improved division by invariant integers"
 * (2011), Algorithm 4, on the divisor shifted left until its top bit is set.
 * Checked against % over 40 M random (draw, span) pairs and edge spans
 * (1, 2^32, 2^63, 2^64 - 1) while writing it.
 */
static void modinv_init(modinv *m, unsigned __int128 span)
{
	memset(m, 0, sizeof *m);
	if (span == 0 || span >> 64)
		return;
	m->l = __builtin_clzll((uint64_t)span);
	m->d = (uint64_t)span << m->l;
	m->v = (uint64_t)(((unsigned __int128)~m->d << 64 | ~(uint64_t)0) / m->d);
}

/* (u1 * 2^64 + u0) mod m->d, for u1 < m->d. */
static inline uint64_t rem_preinv(const modinv *m, uint64_t u1, uint64_t u0)
{
	unsigned __int128 q = (unsigned __int128)m->v * u1 + ((unsigned __int128)u1 << 64 | u0);
	uint64_t q1 = (uint64_t)(q >> 64) + 1, r = u0 - q1 * m->d;
	/* the two corrections without branches: data-dependent branches here
	 * mispredicted often enough to make this slower than divq */
	r += m->d & -(uint64_t)(r > (uint64_t)q);
	r -= m->d & -(uint64_t)(r >= m->d);
	return r;
}

/* (hi * 2^64 + lo) % span, m from modinv_init(span). */
static inline unsigned __int128 mod_u128(const modinv *m, uint64_t hi, uint64_t lo,
                                         unsigned __int128 span)
{
	if (!m->d)
		return ((unsigned __int128)hi << 64 | lo) % span;
	int l = m->l;
	uint64_t r = rem_preinv(m, l ? hi >> (64 - l) : 0, hi << l); /* (hi % span) << l */
	r = rem_preinv(m, r | (l ? lo >> (64 - l) : 0), lo << l);
	return r >> l;
}

/* ---- options ----------------------------------------------------------------- */

static const char *fopt(const sl_opts *o, const char *field, const char *what, char *key,
                        size_t cap)
{
	snprintf(key, cap, "fields.%s.%s", field, what);
	return sl_opts_get(o, key);
}

static int parse_double(const char *v, double *out)
{
	char *end;
	errno = 0;
	*out = strtod(v, &end);
	while (*end == ' ')
		end++;
	return (errno || end == v || *end) ? -1 : 0;
}

/* Default random range of an integer-like type. */
static void int_range(sl_type t, int64_t *lo, int64_t *hi)
{
	switch (t.id) {
	case SL_T_BOOLEAN: *lo = 0; *hi = 1; break;
	case SL_T_TINYINT: *lo = INT8_MIN; *hi = INT8_MAX; break;
	case SL_T_SMALLINT: *lo = INT16_MIN; *hi = INT16_MAX; break;
	case SL_T_INT: *lo = INT32_MIN; *hi = INT32_MAX; break;
	case SL_T_INTERVAL_DT: *lo = 0; *hi = SL_US_PER_DAY; break;
	case SL_T_INTERVAL_YM: *lo = 0; *hi = 120; break;
	default: *lo = INT64_MIN; *hi = INT64_MAX; break;
	}
}

static int is_int_like(sl_type t)
{
	return sl_type_phys(t) == SL_PHYS_I64 && t.id != SL_T_NULL && t.id != SL_T_DATE &&
	       t.id != SL_T_TIME && !sl_type_is_timestamp(t);
}

/* Reads '.start' / '.end' of a sequence column. */
static int open_sequence(gen_col *g, const sl_opts *o, const char *f, const char *tbl,
                         sl_err *err)
{
	char key[256];
	sl_type t = g->type;
	if (!is_int_like(t) && t.id != SL_T_FLOAT && t.id != SL_T_DOUBLE &&
	    t.id != SL_T_DECIMAL && !sl_type_is_string(t)) {
		char tb[64];
		return sl_err_set(err, SL_EINVAL,
		                  "source '%s': datagen: field '%s' of type %s cannot be a sequence",
		                  tbl, f, sl_type_format(t, tb, sizeof tb));
	}
	if (t.id == SL_T_BOOLEAN)
		return sl_err_set(err, SL_EINVAL,
		                  "source '%s': datagen: field '%s' of type BOOLEAN cannot be a sequence",
		                  tbl, f);
	const char *s = fopt(o, f, "start", key, sizeof key);
	const char *e = fopt(o, f, "end", key, sizeof key);
	if (!s || !e)
		return sl_err_set(err, SL_EINVAL,
		                  "source '%s': datagen: 'fields.%s.start' and 'fields.%s.end' are "
		                  "required for a sequence", tbl, f, f);
	snprintf(key, sizeof key, "fields.%s.start", f);
	if (sl_opts_int(o, key, 0, &g->seq_next, err))
		goto fail;
	snprintf(key, sizeof key, "fields.%s.end", f);
	if (sl_opts_int(o, key, 0, &g->seq_end, err))
		goto fail;
	if (g->seq_end < g->seq_next)
		return sl_err_set(err, SL_EINVAL,
		                  "source '%s': datagen: field '%s': sequence end %lld < start %lld",
		                  tbl, f, (long long)g->seq_end, (long long)g->seq_next);
	g->seq_left = (uint64_t)g->seq_end - (uint64_t)g->seq_next + 1;
	if (g->seq_left == 0)
		g->seq_left = UINT64_MAX; /* the whole 64-bit range */
	return 0;
fail:
	sl_err_prefix(err, "source '%s': datagen", tbl);
	return SL_EINVAL;
}

/* Reads '.min' / '.max' of a random numeric column (defaults: the type's
 * range, as Flink). */
static int open_random_range(gen_col *g, const sl_opts *o, const char *f, const char *tbl,
                             sl_err *err)
{
	char key[256];
	sl_type t = g->type;
	const char *mn = fopt(o, f, "min", key, sizeof key);
	const char *mx = fopt(o, f, "max", key, sizeof key);
	int bad = 0;
	if (is_int_like(t)) {
		int64_t lo, hi;
		int_range(t, &lo, &hi);
		g->imin = lo, g->imax = hi;
		snprintf(key, sizeof key, "fields.%s.min", f);
		if (sl_opts_int(o, key, lo, &g->imin, err))
			goto fail;
		snprintf(key, sizeof key, "fields.%s.max", f);
		if (sl_opts_int(o, key, hi, &g->imax, err))
			goto fail;
		bad = g->imin > g->imax || g->imin < lo || g->imax > hi;
	} else if (t.id == SL_T_FLOAT || t.id == SL_T_DOUBLE) {
		g->fmin = t.id == SL_T_FLOAT ? FLT_TRUE_MIN : DBL_TRUE_MIN;
		g->fmax = t.id == SL_T_FLOAT ? FLT_MAX : DBL_MAX;
		if ((mn && parse_double(mn, &g->fmin)) || (mx && parse_double(mx, &g->fmax)))
			bad = 1;
		bad |= !(g->fmin <= g->fmax);
	} else if (t.id == SL_T_DECIMAL) {
		sl_i128 lim = sl_pow10_i128(t.precision) - 1;
		g->dmin = -lim, g->dmax = lim;
		if ((mn && sl_dec_parse(mn, strlen(mn), t.precision, t.scale, &g->dmin)) ||
		    (mx && sl_dec_parse(mx, strlen(mx), t.precision, t.scale, &g->dmax)))
			bad = 1;
		bad |= g->dmin > g->dmax;
		modinv_init(&g->dinv, (unsigned __int128)(g->dmax - g->dmin) + 1);
	}
	if (bad)
		return sl_err_set(err, SL_EINVAL,
		                  "source '%s': datagen: field '%s': bad random range min '%s' max '%s'",
		                  tbl, f, mn ? mn : "(default)", mx ? mx : "(default)");
	return 0;
fail:
	sl_err_prefix(err, "source '%s': datagen", tbl);
	return SL_EINVAL;
}

/* Reads the options of a random column. */
static int open_random(gen_col *g, const sl_opts *o, const char *f, const char *tbl,
                       sl_err *err)
{
	char key[256];
	sl_type t = g->type;
	if (sl_type_is_collection(t)) /* physically strings: not random bytes */
		return sl_err_set(err, SL_EINVAL,
		                  "source '%s': datagen: field '%s': ARRAY and MAP columns are not "
		                  "supported", tbl, f);
	switch (sl_type_phys(t)) {
	case SL_PHYS_STR:
		snprintf(key, sizeof key, "fields.%s.length", f);
		if (sl_opts_int(o, key, 100, &g->length, err))
			goto fail;
		if (g->length < 0)
			return sl_err_set(err, SL_EINVAL, "source '%s': datagen: '%s' is negative",
			                  tbl, key);
		if (t.length > 0 && g->length > t.length)
			g->length = t.length; /* never longer than declared */
		return 0;
	case SL_PHYS_ROW:
		return sl_err_set(err, SL_EINVAL,
		                  "source '%s': datagen: field '%s': ROW columns are not supported",
		                  tbl, f);
	default:
		break;
	}
	if (t.id == SL_T_DATE || sl_type_is_timestamp(t)) {
		snprintf(key, sizeof key, "fields.%s.max-past", f);
		if (sl_opts_duration(o, key, 0, &g->max_past, err))
			goto fail;
		if (g->max_past < 0)
			return sl_err_set(err, SL_EINVAL, "source '%s': datagen: '%s' is negative",
			                  tbl, key);
		return 0;
	}
	if (t.id == SL_T_TIME || t.id == SL_T_NULL)
		return 0;
	return open_random_range(g, o, f, tbl, err);
fail:
	sl_err_prefix(err, "source '%s': datagen", tbl);
	return SL_EINVAL;
}

static int open_col(datagen_source *d, int i, const sl_field *fd, const sl_opts *o,
                    uint64_t seed, sl_err *err)
{
	char key[256];
	const char *tbl = d->base.table;
	gen_col *g = &d->cols[i];
	g->type = fd->type;
	const char *kind = fopt(o, fd->name, "kind", key, sizeof key);
	if (!kind || strcmp(kind, "random") == 0)
		g->kind = GEN_RANDOM;
	else if (strcmp(kind, "sequence") == 0)
		g->kind = GEN_SEQUENCE;
	else
		return sl_err_set(err, SL_EINVAL,
		                  "source '%s': datagen: '%s' must be 'random' or 'sequence', not '%s'",
		                  tbl, key, kind);
	int rc = g->kind == GEN_SEQUENCE ? open_sequence(g, o, fd->name, tbl, err)
	                                 : open_random(g, o, fd->name, tbl, err);
	if (rc)
		return rc;
	const char *nr = fopt(o, fd->name, "null-rate", key, sizeof key);
	if (nr && (parse_double(nr, &g->null_rate) || g->null_rate < 0 || g->null_rate > 1))
		return sl_err_set(err, SL_EINVAL,
		                  "source '%s': datagen: '%s' = '%s' is not a number in [0, 1]",
		                  tbl, key, nr);
	rng_seed(g->rng, seed ^ (0x100000001b3ULL * (uint64_t)(2 * i + 1)));
	rng_seed(g->nrng, seed ^ (0x100000001b3ULL * (uint64_t)(2 * i + 2)));
	return 0;
}

static int64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t rows_left(const datagen_source *d);
static int check_restored(datagen_source *d, sl_err *err);

/*
 * Cuts a bounded generator into chunks of chunk_rows rows (the test-only
 * SLUICE_TEST_DATAGEN_CHUNK_ROWS overrides DG_CHUNK_ROWS, docs/testing.md).
 * Chunk 0 keeps the column generators as seeded; chunk k > 0 starts its
 * sequences k * chunk_rows further and seeds its random streams from
 * (seed, column, k).  An unbounded generator, or one of at most one
 * chunk, stays one split (nchunks = 0): an unbounded one would hold the
 * watermark at -infinity with splits never started (rule 5).  So does a
 * throttled one ('rows-per-second' > 0): a live stream paced by the wall
 * clock (often a long sequence used as a counter), whose rows and
 * watermark would otherwise advance in a thousand chunks at once.
 */
static int make_chunks(datagen_source *d, uint64_t seed, sl_err *err)
{
	const char *v = getenv("SLUICE_TEST_DATAGEN_CHUNK_ROWS");
	long long c = v ? atoll(v) : 0;
	d->chunk_rows = c > 0 ? (int64_t)c : DG_CHUNK_ROWS;
	int64_t total = rows_left(d);
	int64_t n = total / d->chunk_rows + (total % d->chunk_rows != 0);
	if (d->rps > 0 || total == INT64_MAX || total <= d->chunk_rows || n > DG_MAX_CHUNKS) {
		/* one split (more than 2^32 rows: the chunks' state would be too
		 * big), instance 0's */
		d->none = d->subtask != 0;
		return 0;
	}
	d->total = (int)n;
	int own = (int)((n - d->subtask + d->nsub - 1) / d->nsub); /* k % nsub == subtask */
	if (own <= 0) {
		d->none = 1;
		return 0;
	}
	d->nchunks = own;
	d->ccols = calloc((size_t)own * (size_t)(d->ncols ? d->ncols : 1), sizeof(gen_col));
	d->cemitted = calloc((size_t)own, sizeof(int64_t));
	d->clen = calloc((size_t)own, sizeof(int64_t));
	d->cdone = calloc((size_t)own, 1);
	d->cwm = calloc((size_t)own, sizeof(int64_t));
	d->cid = calloc((size_t)own, sizeof(int));
	d->cnamed = calloc((size_t)own, 1);
	d->cwm_keep = calloc((size_t)own, sizeof(int64_t));
	if (!d->ccols || !d->cemitted || !d->clen || !d->cdone || !d->cwm || !d->cid ||
	    !d->cnamed || !d->cwm_keep)
		return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", d->base.table);
	for (int j = 0; j < own; j++) {
		int64_t k = (int64_t)j * d->nsub + d->subtask;
		int64_t start = k * d->chunk_rows;
		d->cid[j] = (int)k;
		d->clen[j] = total - start < d->chunk_rows ? total - start : d->chunk_rows;
		d->cwm[j] = SL_WM_MIN;
		for (int i = 0; i < d->ncols; i++) {
			gen_col *g = &d->ccols[(size_t)j * (size_t)d->ncols + (size_t)i];
			*g = d->cols[i];
			if (k == 0)
				continue;
			if (g->kind == GEN_SEQUENCE) {
				g->seq_next = (int64_t)((uint64_t)g->seq_next + (uint64_t)start);
				g->seq_left -= (uint64_t)start;
			}
			uint64_t ks = seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)k);
			rng_seed(g->rng, ks ^ (0x100000001b3ULL * (uint64_t)(2 * i + 1)));
			rng_seed(g->nrng, ks ^ (0x100000001b3ULL * (uint64_t)(2 * i + 2)));
		}
	}
	d->base.nsplits = d->nchunks;
	d->base.split_done = d->cdone;
	d->base.split_wm = d->cwm;
	return 0;
}

/* Reads the options and prepares every column's generator; no clock yet. */
static int dg_configure(sl_source *s, const sl_conn_args *a, sl_err *err)
{
	datagen_source *d = (datagen_source *)s;
	const sl_opts *o = a->opts;
	int64_t seed = (int64_t)DG_DEFAULT_SEED;
	if (sl_opts_int(o, "rows-per-second", 10000, &d->rps, err) ||
	    sl_opts_int(o, "number-of-rows", -1, &d->limit, err) ||
	    sl_opts_int(o, "seed", seed, &seed, err)) {
		sl_err_prefix(err, "source '%s': datagen", a->table);
		return SL_EINVAL;
	}
	if (sl_opts_get(o, "number-of-rows") && d->limit < 0)
		return sl_err_set(err, SL_EINVAL,
		                  "source '%s': datagen: 'number-of-rows' must not be negative",
		                  a->table);
	d->nsub = a->nsubtasks > 0 ? a->nsubtasks : 1;
	d->subtask = a->subtask;
	if (d->subtask < 0 || d->subtask >= d->nsub)
		return sl_err_set(err, SL_EINVAL, "source '%s': instance %d of %d does not exist",
		                  a->table, a->subtask, d->nsub);
	d->ncols = a->nfields;
	d->cols = calloc((size_t)(a->nfields ? a->nfields : 1), sizeof(gen_col));
	if (!d->cols)
		return sl_err_set(err, SL_ENOMEM, "source '%s': out of memory", a->table);
	for (int i = 0; i < a->nfields; i++) {
		int rc = open_col(d, i, &a->fields[i], o, (uint64_t)seed, err);
		if (rc)
			return rc;
	}
	return make_chunks(d, (uint64_t)seed, err);
}

/* Takes "now" for random TIMESTAMP/DATE values from the wall clock (a
 * restore replaces it with the snapshot's). */
static int dg_open(sl_source *s, sl_err *err)
{
	datagen_source *d = (datagen_source *)s;
	struct timespec ts;
	(void)err;
	clock_gettime(CLOCK_REALTIME, &ts);
	d->anchor_us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
	return 0;
}

/* ---- generation ---------------------------------------------------------------- */

/* Rows left before a bound (number-of-rows, an exhausted sequence). */
static int64_t rows_left(const datagen_source *d)
{
	int64_t left = d->limit >= 0 ? d->limit - d->emitted : INT64_MAX;
	for (int i = 0; i < d->ncols; i++) {
		const gen_col *g = &d->cols[i];
		if (g->kind != GEN_SEQUENCE)
			continue;
		if (g->seq_left < (uint64_t)left)
			left = (int64_t)g->seq_left;
	}
	return left;
}

/* Truncates micros to a TIMESTAMP/TIME precision. */
static inline int64_t trunc_prec(int64_t us, int p)
{
	static const int64_t div[7] = {1000000, 100000, 10000, 1000, 100, 10, 1};
	int64_t q = div[p > 6 ? 6 : p];
	return q == 1 ? us : sl_floordiv(us, q) * q;
}

static int fill_seq(sl_batch *b, sl_col *c, gen_col *g, int r0, int n)
{
	sl_type t = g->type;
	uint64_t v = (uint64_t)g->seq_next; /* unsigned: no overflow at INT64_MAX */
	if (is_int_like(t)) {
		int64_t *o = c->v.i64 + r0;
		for (int k = 0; k < n; k++)
			o[k] = (int64_t)(v + k);
	} else if (t.id == SL_T_FLOAT || t.id == SL_T_DOUBLE) {
		for (int k = 0; k < n; k++)
			c->v.f64[r0 + k] = t.id == SL_T_FLOAT ? (double)(float)(int64_t)(v + k)
			                                      : (double)(int64_t)(v + k);
	} else if (t.id == SL_T_DECIMAL) {
		sl_i128 m = sl_pow10_i128(t.scale);
		for (int k = 0; k < n; k++)
			c->v.i128[r0 + k] = (sl_i128)(int64_t)(v + k) * m;
	} else {
		char *p = sl_arena_alloc(&b->arena, (size_t)n * 24);
		if (!p)
			return SL_ENOMEM;
		for (int k = 0; k < n; k++, p += 24) {
			int len = snprintf(p, 24, "%lld", (long long)(int64_t)(v + k));
			c->v.str[r0 + k].ptr = p;
			c->v.str[r0 + k].len = len;
		}
	}
	g->seq_next = (int64_t)(v + (uint64_t)n);
	g->seq_left -= (uint64_t)n;
	return 0;
}

static int fill_str(sl_batch *b, sl_col *c, gen_col *g, int r0, int n)
{
	static const char hex[16] = "0123456789abcdef";
	size_t len = (size_t)g->length;
	int binary = sl_type_is_binary(g->type);
	size_t per = binary ? 8 : 16; /* bytes or hex digits per 64-bit draw */
	int shift = binary ? 8 : 4;
	char *p = sl_arena_alloc(&b->arena, (size_t)n * (len + 1));
	if (!p)
		return SL_ENOMEM;
	for (int k = 0; k < n; k++) {
		c->v.str[r0 + k].ptr = p;
		c->v.str[r0 + k].len = (int64_t)len;
		for (size_t j = 0; j < len; j += per) {
			uint64_t x = rng_next(g->rng);
			size_t m = len - j < per ? len - j : per;
			for (size_t q = 0; q < m; q++, x >>= shift)
				p[j + q] = binary ? (char)(x & 0xff) : hex[x & 15];
		}
		p[len] = 0;
		p += len + 1;
	}
	return 0;
}

static void fill_rand_i64(sl_col *c, gen_col *g, int64_t anchor, int r0, int n)
{
	sl_type t = g->type;
	int64_t *o = c->v.i64 + r0;
	if (sl_type_is_timestamp(t)) {
		for (int k = 0; k < n; k++)
			o[k] = trunc_prec(anchor - rng_range(g->rng, 0, g->max_past), t.precision);
	} else if (t.id == SL_T_DATE) {
		for (int k = 0; k < n; k++)
			o[k] = sl_floordiv(anchor - rng_range(g->rng, 0, g->max_past), SL_US_PER_DAY);
	} else if (t.id == SL_T_TIME) {
		for (int k = 0; k < n; k++)
			o[k] = trunc_prec(rng_range(g->rng, 0, SL_US_PER_DAY - 1), t.precision);
	} else if (t.id == SL_T_NULL) {
		memset(o, 0, (size_t)n * sizeof *o);
	} else {
		int64_t lo = g->imin, hi = g->imax;
		for (int k = 0; k < n; k++)
			o[k] = rng_range(g->rng, lo, hi);
	}
}

static int fill_rand(sl_batch *b, sl_col *c, gen_col *g, int64_t anchor, int r0, int n)
{
	switch (sl_type_phys(g->type)) {
	case SL_PHYS_I64:
		fill_rand_i64(c, g, anchor, r0, n);
		return 0;
	case SL_PHYS_F64: {
		double lo = g->fmin, hi = g->fmax, span = hi - lo;
		int wide = !isfinite(span), fl = g->type.id == SL_T_FLOAT;
		for (int k = 0; k < n; k++) {
			double u = rng_unit(g->rng);
			double v = wide ? lo * (1 - u) + hi * u : lo + u * span;
			c->v.f64[r0 + k] = fl ? (double)(float)v : v;
		}
		return 0;
	}
	case SL_PHYS_I128: {
		unsigned __int128 span = (unsigned __int128)(g->dmax - g->dmin) + 1;
		for (int k = 0; k < n; k++) {
			uint64_t hi = rng_next(g->rng), lo = rng_next(g->rng);
			c->v.i128[r0 + k] = g->dmin + (sl_i128)mod_u128(&g->dinv, hi, lo, span);
		}
		return 0;
	}
	case SL_PHYS_STR:
		return fill_str(b, c, g, r0, n);
	case SL_PHYS_ROW:
		break;
	}
	return SL_ENOTSUP;
}

/* Fills rows r0..r0+n of column c: values, then NULLs from the second
 * stream (one draw per row when null-rate > 0). */
static int fill_col(datagen_source *d, sl_batch *b, int i, int r0, int n)
{
	gen_col *g = &d->cols[i];
	sl_col *c = &b->cols[i];
	int rc = g->kind == GEN_SEQUENCE ? fill_seq(b, c, g, r0, n)
	                                 : fill_rand(b, c, g, d->anchor_us, r0, n);
	if (rc)
		return rc;
	memset(c->null + r0, g->type.id == SL_T_NULL, (size_t)n);
	if (g->null_rate > 0)
		for (int k = 0; k < n; k++)
			if (rng_unit(g->nrng) < g->null_rate)
				c->null[r0 + k] = 1;
	return 0;
}

/* How many rows the throttle allows now (sleeping up to DG_MAX_SLEEP_US
 * for the next one); INT64_MAX when unthrottled. */
static int64_t throttle(datagen_source *d)
{
	if (d->rps <= 0)
		return INT64_MAX;
	int64_t now = mono_us();
	if (!d->thr_start_us) {
		d->thr_start_us = now;
		d->thr_base = d->emitted;
	}
	int64_t done = d->emitted - d->thr_base;
	int64_t allowed = (int64_t)((double)(now - d->thr_start_us) * (double)d->rps / 1e6) + 1;
	if (allowed <= done) {
		int64_t due = d->thr_start_us + (int64_t)((double)done * 1e6 / (double)d->rps);
		int64_t wait = due - now;
		if (wait > DG_MAX_SLEEP_US)
			wait = DG_MAX_SLEEP_US;
		if (wait > 0) {
			struct timespec ts = {wait / 1000000, (wait % 1000000) * 1000};
			nanosleep(&ts, NULL);
		}
		now = mono_us();
		allowed = (int64_t)((double)(now - d->thr_start_us) * (double)d->rps / 1e6) + 1;
	}
	return allowed > done ? allowed - done : 0;
}

/* Appends up to `left` generated rows to out from the generators `cols`
 * (d->cols, or a chunk's), bounded by the batch's room and the throttle.
 * Returns the count (0: no room or not yet allowed) or an error. */
static int append_rows(datagen_source *d, sl_batch *out, gen_col *cols, int64_t left,
                       sl_err *err)
{
	int64_t n = left, room = out->cap - out->nrows, allow = throttle(d);
	if (n > room)
		n = room;
	if (n > allow)
		n = allow;
	if (n <= 0)
		return 0;
	int r0 = out->nrows;
	memset(out->op + r0, SL_INSERT, (size_t)n);
	for (int j = 0; j < n; j++)
		out->wm[r0 + j] = SL_WM_MIN;
	gen_col *saved = d->cols;
	d->cols = cols;
	for (int i = 0; i < d->ncols; i++) {
		int rc = fill_col(d, out, i, r0, (int)n);
		if (rc) {
			d->cols = saved;
			return sl_err_set(err, rc, "source '%s': datagen: out of memory", d->base.table);
		}
	}
	d->cols = saved;
	out->nrows += (int)n;
	d->emitted += n;
	d->base.rows_read += n;
	return (int)n;
}

/* A bounded generator cut into chunks: a batch from each chunk in turn
 * (docs/parallel.md §4, rule 5), each batch holding rows of one chunk. */
static int dg_read_chunk(datagen_source *d, sl_batch *out, sl_err *err)
{
	if (d->ndone >= d->nchunks)
		return SL_EEOF;
	int k = d->cur, r0 = out->nrows;
	int n = append_rows(d, out, &d->ccols[(size_t)k * (size_t)d->ncols],
	                    d->clen[k] - d->cemitted[k], err);
	if (n <= 0)
		return n;
	d->base.split = k;
	d->batch_first = (int64_t)d->cid[k] * d->chunk_rows + d->cemitted[k] - r0;
	d->cemitted[k] += n;
	if (d->cemitted[k] >= d->clen[k]) {
		d->cdone[k] = 1;
		d->ndone++;
	}
	for (int i = 1; i <= d->nchunks; i++) { /* the next chunk not done */
		int j = (k + i) % d->nchunks;
		if (!d->cdone[j]) {
			d->cur = j;
			break;
		}
	}
	return n;
}

static int dg_read(sl_source *s, sl_batch *out, sl_err *err)
{
	datagen_source *d = (datagen_source *)s;
	if (d->need_check) {
		int rc = check_restored(d, err);
		if (rc)
			return rc;
	}
	if (d->none)
		return SL_EEOF;
	if (d->nchunks)
		return dg_read_chunk(d, out, err);
	int64_t left = rows_left(d);
	if (left <= 0)
		return SL_EEOF;
	int64_t first = d->emitted - out->nrows;
	int n = append_rows(d, out, d->cols, left, err);
	if (n > 0)
		d->batch_first = first;
	return n;
}

static void dg_where(sl_source *s, int row, char *buf, size_t cap)
{
	datagen_source *d = (datagen_source *)s;
	snprintf(buf, cap, "generated row %lld", (long long)(d->batch_first + row + 1));
}

static void put_col(sl_snap_writer *w, const gen_col *g)
{
	sl_snap_put_i64(w, g->seq_next);
	sl_snap_put_i64(w, (int64_t)g->seq_left);
	for (int j = 0; j < 4; j++)
		sl_snap_put_i64(w, (int64_t)g->rng[j]);
	for (int j = 0; j < 4; j++)
		sl_snap_put_i64(w, (int64_t)g->nrng[j]);
}

static void get_col(sl_snap_reader *r, gen_col *g)
{
	g->seq_next = sl_snap_get_i64(r);
	g->seq_left = (uint64_t)sl_snap_get_i64(r);
	for (int j = 0; j < 4; j++)
		g->rng[j] = (uint64_t)sl_snap_get_i64(r);
	for (int j = 0; j < 4; j++)
		g->nrng[j] = (uint64_t)sl_snap_get_i64(r);
}

/*
 * Snapshot of one split: u32 columns, row count, anchor, then per column
 * the sequence counter and both RNG states (the format before splits,
 * unchanged).  Of a chunked generator at one instance: u32
 * DG_SNAP_CHUNKED, u32 columns, row count, anchor, u32 chunks, u32 the
 * chunk whose turn it is, then per chunk its rows produced, its watermark
 * (base.split_wm) and its columns' states.  Of instance `subtask` of nsub
 * > 1 with chunks, or of an instance that generates nothing: u32
 * DG_SNAP_BY_ID, u32 columns, row count, anchor, u32 subtask, u32 nsub,
 * u32 chunks of the whole generator (0: one split), u32 the turn (index
 * in the list), u32 count, then per chunk of this instance its number,
 * rows produced, watermark and columns' states.  Instance 0 of a generator
 * that is one split writes the first form.
 */
static int dg_snapshot(sl_source *s, sl_snap_writer *w, sl_err *err)
{
	datagen_source *d = (datagen_source *)s;
	if (d->nsub > 1 && (d->nchunks || d->none)) {
		sl_snap_put_u32(w, DG_SNAP_BY_ID);
		sl_snap_put_u32(w, (uint32_t)d->ncols);
		sl_snap_put_i64(w, d->emitted);
		sl_snap_put_i64(w, d->anchor_us);
		sl_snap_put_u32(w, (uint32_t)d->subtask);
		sl_snap_put_u32(w, (uint32_t)d->nsub);
		sl_snap_put_u32(w, (uint32_t)d->total);
		sl_snap_put_u32(w, (uint32_t)d->cur);
		sl_snap_put_u32(w, (uint32_t)d->nchunks);
		for (int k = 0; k < d->nchunks; k++) {
			sl_snap_put_u32(w, (uint32_t)d->cid[k]);
			sl_snap_put_i64(w, d->cemitted[k]);
			sl_snap_put_i64(w, d->cwm[k]);
			for (int i = 0; i < d->ncols; i++)
				put_col(w, &d->ccols[(size_t)k * (size_t)d->ncols + i]);
		}
	} else if (d->nchunks) {
		sl_snap_put_u32(w, DG_SNAP_CHUNKED);
		sl_snap_put_u32(w, (uint32_t)d->ncols);
		sl_snap_put_i64(w, d->emitted);
		sl_snap_put_i64(w, d->anchor_us);
		sl_snap_put_u32(w, (uint32_t)d->nchunks);
		sl_snap_put_u32(w, (uint32_t)d->cur);
		for (int k = 0; k < d->nchunks; k++) {
			sl_snap_put_i64(w, d->cemitted[k]);
			sl_snap_put_i64(w, d->cwm[k]);
			for (int i = 0; i < d->ncols; i++)
				put_col(w, &d->ccols[(size_t)k * (size_t)d->ncols + i]);
		}
	} else {
		sl_snap_put_u32(w, (uint32_t)d->ncols);
		sl_snap_put_i64(w, d->emitted);
		sl_snap_put_i64(w, d->anchor_us);
		for (int i = 0; i < d->ncols; i++)
			put_col(w, &d->cols[i]);
	}
	if (w->failed)
		return sl_err_set(err, SL_ENOMEM, "source '%s': snapshot: out of memory", s->table);
	return 0;
}

/* Marks chunk k done or not from its rows produced. */
static void chunk_state(datagen_source *d, int k)
{
	int done = d->cemitted[k] >= d->clen[k];
	d->ndone += done - d->cdone[k];
	d->cdone[k] = (uint8_t)done;
}

/* The index of chunk `id` of the whole generator among this instance's,
 * or -1 when another instance owns it. */
static int own_chunk(const datagen_source *d, int64_t id)
{
	if (id < 0 || id % d->nsub != d->subtask)
		return -1;
	int64_t j = id / d->nsub;
	return j < d->nchunks ? (int)j : -1;
}

/* Restores chunk `id`'s rows produced, watermark and columns from r when
 * this instance owns it (the bytes are read either way).  SL_ESTATE when
 * a snapshot named it before. */
static int get_chunk(datagen_source *d, sl_snap_reader *r, int64_t id, sl_err *err)
{
	int j = own_chunk(d, id);
	int64_t emitted = sl_snap_get_i64(r), wm = sl_snap_get_i64(r);
	gen_col tmp;
	for (int i = 0; i < d->ncols; i++)
		get_col(r, j >= 0 ? &d->ccols[(size_t)j * (size_t)d->ncols + i] : &tmp);
	if (j < 0)
		return 0;
	if (d->cnamed[j])
		return sl_err_set(err, SL_ESTATE, "source '%s': datagen restore: chunk %lld is in "
		                  "two snapshots", d->base.table, (long long)id);
	d->cnamed[j] = 1;
	d->cemitted[j] = emitted;
	d->cwm[j] = wm;
	chunk_state(d, j);
	return 0;
}

/*
 * A snapshot from before chunks (one stream of `emitted` rows) onto the
 * chunks this instance owns: the chunks before that row are done, the one
 * holding it goes on with the stream's generators and watermark (the
 * scan's, in cwm), the later ones start afresh at -infinity.
 */
static void restore_stream(datagen_source *d, sl_snap_reader *r)
{
	int64_t wm = d->nchunks ? d->cwm[0] : SL_WM_MIN;
	int64_t at = d->emitted / d->chunk_rows;
	int j_at = own_chunk(d, at);
	gen_col tmp;
	for (int i = 0; i < d->ncols; i++) /* the stream's columns: chunk `at`'s */
		get_col(r, j_at >= 0 ? &d->ccols[(size_t)j_at * (size_t)d->ncols + i] : &tmp);
	for (int j = 0; j < d->nchunks; j++) {
		int64_t k = d->cid[j];
		d->cemitted[j] = k < at ? d->clen[j] : k == at ? d->emitted - k * d->chunk_rows : 0;
		d->cwm[j] = k == at ? wm : SL_WM_MIN;
		d->cnamed[j] = 1;
		chunk_state(d, j);
	}
	d->cur = j_at >= 0 ? j_at : 0;
}

/* The one-split form (see dg_snapshot), into a generator of one split or
 * of chunks. */
static int restore_one(datagen_source *d, sl_snap_reader *r, sl_err *err)
{
	d->emitted = sl_snap_get_i64(r);
	d->anchor_us = sl_snap_get_i64(r);
	if (d->nchunks) {
		restore_stream(d, r);
	} else if (!d->none && !d->total) {
		if (d->one_named)
			return sl_err_set(err, SL_ESTATE, "source '%s': datagen restore: the generator "
			                  "is in two snapshots", d->base.table);
		d->one_named = 1;
		for (int i = 0; i < d->ncols; i++)
			get_col(r, &d->cols[i]);
	}
	return 0; /* an instance without rows ignores it */
}

/* The chunked forms (see dg_snapshot). */
static int restore_chunks(datagen_source *d, sl_snap_reader *r, int by_id, sl_err *err)
{
	uint32_t from = 0, nsub = 1, total, cur, n;
	int64_t emitted = sl_snap_get_i64(r);
	d->anchor_us = sl_snap_get_i64(r);
	if (by_id) {
		from = sl_snap_get_u32(r);
		nsub = sl_snap_get_u32(r);
	}
	total = sl_snap_get_u32(r);
	cur = by_id ? sl_snap_get_u32(r) : 0;
	n = by_id ? sl_snap_get_u32(r) : total;
	if (!by_id)
		cur = sl_snap_get_u32(r);
	if (!sl_snap_reader_ok(r) || from >= nsub || (n && cur >= n) || n > total)
		return sl_err_set(err, SL_ESTATE, "source '%s': datagen snapshot is damaged",
		                  d->base.table);
	if (total != (uint32_t)d->total)
		return sl_err_set(err, SL_ESTATE, "source '%s': datagen snapshot has %u chunks, "
		                  "the table's options make %d", d->base.table, total, d->total);
	(void)emitted; /* per instance: the chunks' counts decide */
	for (uint32_t i = 0; i < n && sl_snap_reader_ok(r); i++) {
		int64_t id = by_id ? (int64_t)sl_snap_get_u32(r) : (int64_t)i;
		int rc = get_chunk(d, r, id, err);
		if (rc)
			return rc;
		if (i == cur && own_chunk(d, id) >= 0)
			d->cur = own_chunk(d, id); /* the turn goes on where it was */
	}
	return 0;
}

/*
 * Restore: called once per snapshot of the instances of the run that took
 * the checkpoint (conn.h), before the first read.  Each instance takes
 * the chunks it owns (by their number in the whole generator) and skips
 * the others; the first read checks that every chunk it owns was named
 * (check_restored).  A later call gets back the watermarks the earlier
 * ones restored (the scan sets every split_wm before each call).
 */
static int dg_restore(sl_source *s, sl_snap_reader *r, sl_err *err)
{
	datagen_source *d = (datagen_source *)s;
	uint32_t first = sl_snap_get_u32(r);
	int chunked = first == DG_SNAP_CHUNKED || first == DG_SNAP_BY_ID;
	uint32_t ncols = chunked ? sl_snap_get_u32(r) : first;
	int rc;
	if (ncols != (uint32_t)d->ncols || !sl_snap_reader_ok(r))
		return sl_err_set(err, SL_ESTATE,
		                  "source '%s': datagen snapshot has a different number of columns",
		                  s->table);
	if (d->nrestored && d->nchunks)
		memcpy(d->cwm, d->cwm_keep, (size_t)d->nchunks * sizeof *d->cwm);
	rc = chunked ? restore_chunks(d, r, first == DG_SNAP_BY_ID, err) : restore_one(d, r, err);
	if (rc)
		return rc;
	if (!sl_snap_reader_ok(r))
		return sl_err_set(err, SL_ESTATE, "source '%s': datagen snapshot is damaged",
		                  s->table);
	for (int i = 0; d->nchunks && d->cdone[d->cur] && i < d->nchunks; i++)
		d->cur = (d->cur + 1) % d->nchunks; /* a chunk not done takes the turn */
	if (d->nchunks)
		memcpy(d->cwm_keep, d->cwm, (size_t)d->nchunks * sizeof *d->cwm);
	d->nrestored++;
	d->need_check = 1;
	d->thr_start_us = 0; /* throttle afresh */
	return 0;
}

/* Before the first read after a restore: every chunk of this instance, or
 * its one split, came back from some snapshot. */
static int check_restored(datagen_source *d, sl_err *err)
{
	d->need_check = 0;
	for (int j = 0; j < d->nchunks; j++)
		if (!d->cnamed[j])
			return sl_err_set(err, SL_ESTATE, "source '%s': datagen restore: no snapshot "
			                  "holds chunk %d (the snapshot of the instance that read it is "
			                  "missing)", d->base.table, d->cid[j]);
	if (!d->none && !d->nchunks && !d->one_named)
		return sl_err_set(err, SL_ESTATE, "source '%s': datagen restore: no snapshot holds "
		                  "the generator's state (the snapshot of instance 0 is missing)",
		                  d->base.table);
	return 0;
}

static void dg_close(sl_source *s)
{
	datagen_source *d = (datagen_source *)s;
	free(d->cols);
	free(d->ccols);
	free(d->cemitted);
	free(d->clen);
	free(d->cdone);
	free(d->cwm);
	free(d->cid);
	free(d->cnamed);
	free(d->cwm_keep);
	d->cid = NULL;
	d->cnamed = NULL;
	d->cwm_keep = NULL;
	d->cols = d->ccols = NULL;
	d->cemitted = d->clen = d->cwm = NULL;
	d->cdone = NULL;
	d->nchunks = 0;
	s->nsplits = 0;
	s->split_done = NULL;
	s->split_wm = NULL;
}

/* The 'datagen' source method table. */
const sl_source_vtab sl_datagen_source_vtab = {
	.name = "datagen",
	.size = sizeof(datagen_source),
	.configure = dg_configure,
	.open = dg_open,
	.read = dg_read,
	.where = dg_where,
	.snapshot = dg_snapshot,
	.restore = dg_restore,
	.close = dg_close,
};
