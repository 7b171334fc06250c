/*
 * conn_nexmark_gen.c - the Nexmark event generator: what event g of the
 * stream is (docs/nexmark.md "Events").
 *
 * It follows the generator of nexmark/nexmark's Flink module (the one
 * Flink's published figures use, described in ../shared/notes/nexmark.md
 * §2): the person/auction/bid mix by proportion of the event id, the ids
 * of the last person and auction at an id, hot sellers, auctions and
 * bidders (the first person, first auction, second person of the current
 * batch of 100), the non-hot picks among the last 1000 people plus 10 and
 * the last 100 auctions plus 10, log-uniform prices in cents, the auction
 * length from the event time 1666 events ahead, the random strings and the
 * 'extra' padding to the average sizes, the channels with their URLs, and
 * Flink's quirks: a bid's bidder id adds the first person id twice
 * (base-0 + 2000), and channel 1's channel_id is -2147483648
 * (Math.abs(Integer.reverse(1))).  The draws of each event come in Flink's
 * order, but from a splitmix64 stream seeded by (seed, event id) instead
 * of one unseeded stream per generator: so event g is a pure function of
 * the configuration and g (Flink's own output is not reproducible; the
 * distributions and the id logic are what compatibility needs).
 *
 * Speed: no allocation per event.  Names, cities, states, channels and
 * URLs are pregenerated strings; itemName, description and 'extra' are
 * slices of pregenerated pools (a random offset and length, trimmed as
 * Flink trims); only a person's e-mail and credit card (2% of the events)
 * are assembled in the batch's arena.  Prices use exp() (a pow() per bid
 * was the largest cost of a naive C generator, notes §2.7).
 *
 * Thread safety: a model is read-only after nx_model_init; several
 * sources may share none of it (each builds its own).
 */
#include "conn_nexmark.h"
#include "sluice.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_PERSON_ID 1000
#define FIRST_AUCTION_ID 1000
#define FIRST_CATEGORY_ID 10
#define NUM_CATEGORIES 5
#define PERSON_ID_LEAD 10
#define AUCTION_ID_LEAD 10
#define HOT_BATCH 100           /* HOT_{SELLER,AUCTION,BIDDER}_RATIO */
#define NUM_ACTIVE_PEOPLE 1000
#define NUM_IN_FLIGHT_AUCTIONS 100
#define CHANNELS 10000

static const char *const first_names[11] = {"Peter", "Paul", "Luke", "John", "Saul", "Vicky",
                                            "Kate", "Julie", "Sarah", "Deiter", "Walter"};
static const char *const last_names[9] = {"Shultz", "Abrams", "Spencer", "White", "Bartels",
                                          "Walton", "Smith", "Jones", "Noris"};
static const char *const cities[10] = {"Phoenix", "Los Angeles", "San Francisco", "Boise",
                                       "Portland", "Bend", "Redmond", "Seattle", "Kent",
                                       "Cheyenne"};
static const char *const states[6] = {"AZ", "CA", "ID", "OR", "WA", "WY"};
static const char *const hot_channels[4] = {"Google", "Facebook", "Baidu", "Apple"};

/* ---- random draws ------------------------------------------------------------- */

/* The splitmix64 finalizer (Steele, Lea, Flood 2014). */
static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

typedef struct rng {
	uint64_t x;
} rng;

static inline uint64_t rnext(rng *r)
{
	r->x += 0x9e3779b97f4a7c15ULL;
	return mix64(r->x);
}

/* Uniform in [0, n), n >= 1 (Java's nextInt(n)): multiply-shift of the
 * draw's high 32 bits. */
static inline uint32_t rint32(rng *r, uint32_t n)
{
	return (uint32_t)(((rnext(r) >> 32) * (uint64_t)n) >> 32);
}

/* Uniform in [0, n), n >= 1 (LongGenerator.nextLong). */
static inline int64_t rlong(rng *r, int64_t n)
{
	return (int64_t)(((unsigned __int128)rnext(r) * (uint64_t)n) >> 64);
}

/* Uniform in [0, 1) with 53 bits (nextDouble). */
static inline double runit(rng *r)
{
	return (double)(rnext(r) >> 11) * 0x1.0p-53;
}

/* The stream of event id e: a function of (seed, e) only. */
static inline void rseed(rng *r, uint64_t seed, int64_t e)
{
	r->x = mix64(seed ^ mix64((uint64_t)e));
}

/* ---- ids (GeneratorConfig / PersonGenerator / AuctionGenerator) --------------- */

/* The last person id (base 0) at event id e: the current one for a person. */
static inline int64_t last_person(const nx_cfg *c, int64_t e)
{
	int64_t epoch = e / c->total_prop, off = e % c->total_prop;
	if (off >= c->person_prop)
		off = c->person_prop - 1;
	return epoch * c->person_prop + off;
}

/* The last auction id (base 0) at event id e: the current one for an auction. */
static inline int64_t last_auction(const nx_cfg *c, int64_t e)
{
	int64_t epoch = e / c->total_prop, off = e % c->total_prop;
	if (off < c->person_prop) {
		epoch--;
		off = c->auction_prop - 1;
	} else if (off >= c->person_prop + c->auction_prop) {
		off = c->auction_prop - 1;
	} else {
		off -= c->person_prop;
	}
	return epoch * c->auction_prop + off;
}

/* A person among the last NUM_ACTIVE_PEOPLE plus PERSON_ID_LEAD ahead. */
static inline int64_t next_person(const nx_cfg *c, int64_t e, rng *r)
{
	int64_t people = last_person(c, e) + 1;
	int64_t active = people < NUM_ACTIVE_PEOPLE ? people : NUM_ACTIVE_PEOPLE;
	return people - active + rlong(r, active + PERSON_ID_LEAD);
}

/* An auction among the last NUM_IN_FLIGHT_AUCTIONS plus AUCTION_ID_LEAD ahead. */
static inline int64_t next_auction(const nx_cfg *c, int64_t e, rng *r)
{
	int64_t hi = last_auction(c, e), lo = hi - NUM_IN_FLIGHT_AUCTIONS;
	if (lo < 0)
		lo = 0;
	return lo + rlong(r, hi - lo + 1 + AUCTION_ID_LEAD);
}

/* ---- event number, type and time ------------------------------------------------- */

/* Flink's factory starts at event number 1 and event id 1 + number. */
static inline int64_t event_id(int64_t g)
{
	return g + 2;
}

/* timestampForEvent(number): the base plus number * delay, in whole ms. */
static inline int64_t ts_of_number(const nx_cfg *c, int64_t number)
{
	return c->base_ms + (int64_t)((double)number * c->delay_us) / 1000;
}

/* The type (NX_PERSON, NX_AUCTION, NX_BID) of event g. */
int nx_event_type(const nx_cfg *c, int64_t g)
{
	int64_t rem = event_id(g) % c->total_prop;
	return rem < c->person_prop ? NX_PERSON
	       : rem < c->person_prop + c->auction_prop ? NX_AUCTION : NX_BID;
}

/* The event time (ms since the epoch) of event g. */
int64_t nx_event_ts(const nx_cfg *c, int64_t g)
{
	return ts_of_number(c, g + 1);
}

/* ---- values ------------------------------------------------------------------------ */

/* PriceGenerator: round(10^(u * 6) * 100) cents, as exp(u * 6 ln 10). */
static inline int64_t next_price(rng *r)
{
	static const double k = 13.815510557964274; /* 6 * ln(10) */
	return (int64_t)floor(exp(runit(r) * k) * 100.0 + 0.5);
}

/* nextString(max): 3 + U[0, max - 3) characters, each ' ' with p = 1/13,
 * else a-z, trimmed: a slice of the text pool, spaces cut at both ends. */
static inline sl_str next_string(const nx_model *m, rng *r, int max)
{
	uint32_t len = 3 + rint32(r, (uint32_t)(max - 3));
	const char *p = m->text + rint32(r, NX_TEXT_POOL - len);
	while (len && *p == ' ')
		p++, len--;
	while (len && p[len - 1] == ' ')
		len--;
	return (sl_str){p, len};
}

/* nextExtra: a string of the pool making cur + its length avg on average
 * (empty when cur already exceeds avg).  Returns 0 or SL_ENOMEM. */
static int next_extra(const nx_model *m, rng *r, int64_t cur, int64_t avg, sl_batch *b,
                      sl_str *out)
{
	*out = (sl_str){"", 0};
	if (cur > avg)
		return 0;
	int64_t d = avg - cur;
	int64_t delta = (int64_t)floor((double)d * 0.2 + 0.5);
	int64_t size = d - delta + (delta ? rlong(r, 2 * delta) : 0);
	if (size < NX_EXTRA_POOL / 2) {
		out->ptr = m->extra + rint32(r, (uint32_t)(NX_EXTRA_POOL - size));
		out->len = size;
		return 0;
	}
	/* longer than half the pool (an 'avg-size' near 1 MiB): slices of it */
	char *p = sl_arena_alloc(&b->arena, (size_t)size);
	if (!p)
		return SL_ENOMEM;
	for (int64_t at = 0; at < size;) {
		int64_t n = size - at < NX_EXTRA_POOL / 2 ? size - at : NX_EXTRA_POOL / 2;
		memcpy(p + at, m->extra + rint32(r, (uint32_t)(NX_EXTRA_POOL - n)), (size_t)n);
		at += n;
	}
	out->ptr = p;
	out->len = size;
	return 0;
}

static inline void put_i64(sl_col *c, int row, int64_t v)
{
	c->null[row] = 0;
	c->v.i64[row] = v;
}

static inline void put_str(sl_col *c, int row, const char *p, int64_t len)
{
	c->null[row] = 0;
	c->v.str[row].ptr = p;
	c->v.str[row].len = len;
}

/* ---- events ------------------------------------------------------------------------ */

static int fill_person(const nx_model *m, int64_t e, int64_t ts, rng *r, sl_batch *b, sl_col *f,
                       int row)
{
	const nx_cfg *c = &m->cfg;
	int ni = (int)rint32(r, 11) * 9;
	ni += (int)rint32(r, 9);
	sl_str u = next_string(m, r, 7), h = next_string(m, r, 5);
	int64_t elen = u.len + 1 + h.len + 4;
	char *mail = sl_arena_alloc(&b->arena, (size_t)elen + 19);
	if (!mail)
		return SL_ENOMEM;
	char *p = mail;
	memcpy(p, u.ptr, (size_t)u.len), p += u.len;
	*p++ = '@';
	memcpy(p, h.ptr, (size_t)h.len), p += h.len;
	memcpy(p, ".com", 4), p += 4;
	char *cc = p;
	for (int i = 0; i < 4; i++) {
		if (i)
			*p++ = ' ';
		memcpy(p, m->cc4[rint32(r, 10000)], 4), p += 4;
	}
	const char *city = cities[rint32(r, 10)], *state = states[rint32(r, 6)];
	size_t clen = strlen(city);
	int64_t cur = 8 + m->name_len[ni] + elen + 19 + (int64_t)clen + 2;
	sl_str extra;
	if (next_extra(m, r, cur, c->avg_person, b, &extra))
		return SL_ENOMEM;
	put_i64(&f[0], row, last_person(c, e) + FIRST_PERSON_ID);
	put_str(&f[1], row, m->names[ni], m->name_len[ni]);
	put_str(&f[2], row, mail, elen);
	put_str(&f[3], row, cc, 19);
	put_str(&f[4], row, city, (int64_t)clen);
	put_str(&f[5], row, state, 2);
	put_i64(&f[6], row, ts * 1000);
	put_str(&f[7], row, extra.ptr, extra.len);
	return 0;
}

static int fill_auction(const nx_model *m, int64_t g, int64_t e, int64_t ts, rng *r, sl_batch *b,
                        sl_col *f, int row)
{
	const nx_cfg *c = &m->cfg;
	int64_t seller;
	if (rint32(r, (uint32_t)c->hot_sellers) > 0)
		seller = (last_person(c, e) / HOT_BATCH) * HOT_BATCH;
	else
		seller = next_person(c, e, r);
	int64_t category = FIRST_CATEGORY_ID + rint32(r, NUM_CATEGORIES);
	int64_t initial = next_price(r);
	/* the auction lasts on average until the event time of the auction
	 * NUM_IN_FLIGHT_AUCTIONS auctions ahead */
	int64_t ahead = ((int64_t)NUM_IN_FLIGHT_AUCTIONS * c->total_prop) / c->auction_prop;
	int64_t horizon = ts_of_number(c, g + 1 + ahead) - ts;
	int64_t expires = ts + 1 + rlong(r, horizon * 2 > 1 ? horizon * 2 : 1);
	sl_str name = next_string(m, r, 20), desc = next_string(m, r, 100);
	int64_t reserve = initial + next_price(r);
	sl_str extra;
	if (next_extra(m, r, 8 + name.len + desc.len + 40, c->avg_auction, b, &extra))
		return SL_ENOMEM;
	put_i64(&f[0], row, last_auction(c, e) + FIRST_AUCTION_ID);
	put_str(&f[1], row, name.ptr, name.len);
	put_str(&f[2], row, desc.ptr, desc.len);
	put_i64(&f[3], row, initial);
	put_i64(&f[4], row, reserve);
	put_i64(&f[5], row, ts * 1000);
	put_i64(&f[6], row, expires * 1000);
	put_i64(&f[7], row, seller + FIRST_PERSON_ID);
	put_i64(&f[8], row, category);
	put_str(&f[9], row, extra.ptr, extra.len);
	return 0;
}

static int fill_bid(const nx_model *m, int64_t e, int64_t ts, rng *r, sl_batch *b, sl_col *f,
                    int row)
{
	const nx_cfg *c = &m->cfg;
	int64_t auction, bidder;
	if (rint32(r, (uint32_t)c->hot_auctions) > 0)
		auction = (last_auction(c, e) / HOT_BATCH) * HOT_BATCH;
	else
		auction = next_auction(c, e, r);
	if (rint32(r, (uint32_t)c->hot_bidders) > 0)
		bidder = (last_person(c, e) / HOT_BATCH) * HOT_BATCH + 1;
	else
		bidder = next_person(c, e, r);
	int64_t price = next_price(r);
	int u;
	if (rint32(r, 2) > 0) {
		int i = (int)rint32(r, 4);
		put_str(&f[3], row, hot_channels[i], (int64_t)strlen(hot_channels[i]));
		u = i;
	} else {
		int n = (int)rint32(r, CHANNELS);
		put_str(&f[3], row, m->chan + m->chan_off[n], m->chan_off[n + 1] - m->chan_off[n]);
		u = 4 + n;
	}
	sl_str extra;
	if (next_extra(m, r, 32, c->avg_bid, b, &extra))
		return SL_ENOMEM;
	put_i64(&f[0], row, auction + FIRST_AUCTION_ID);
	put_i64(&f[1], row, bidder + 2 * FIRST_PERSON_ID); /* Flink adds it twice */
	put_i64(&f[2], row, price);
	put_str(&f[4], row, m->urls + m->url_off[u], m->url_off[u + 1] - m->url_off[u]);
	put_i64(&f[5], row, ts * 1000);
	put_str(&f[6], row, extra.ptr, extra.len);
	return 0;
}

/* Event g, of type t, into the field columns f (its ROW's fields or a
 * table's columns). */
static int fill_event(const nx_model *m, int64_t g, int t, sl_batch *b, sl_col *f, int row)
{
	const nx_cfg *c = &m->cfg;
	int64_t e = event_id(g), ts = ts_of_number(c, g + 1);
	rng r;
	rseed(&r, c->seed, e);
	switch (t) {
	case NX_PERSON:
		return fill_person(m, e, ts, &r, b, f, row);
	case NX_AUCTION:
		return fill_auction(m, g, e, ts, &r, b, f, row);
	default:
		return fill_bid(m, e, ts, &r, b, f, row);
	}
}

/*
 * Writes event g into row `row` of the wide-schema batch b (see the
 * header).  Returns 0 or SL_ENOMEM (the batch's arena is exhausted).
 */
int nx_event_fill(const nx_model *m, int64_t g, sl_batch *b, int row)
{
	int t = nx_event_type(&m->cfg, g);
	put_i64(&b->cols[0], row, t);
	b->cols[1 + t].null[row] = 0;
	return fill_event(m, g, t, b, b->cols[1 + t].child, row);
}

/*
 * Writes event g, whose type the caller checked, into row `row` of b, a
 * batch of that type's table (RisingWave's form: the ROW's fields as
 * columns).  Returns 0 or SL_ENOMEM.
 */
int nx_event_fill_flat(const nx_model *m, int64_t g, sl_batch *b, int row)
{
	return fill_event(m, g, nx_event_type(&m->cfg, g), b, b->cols, row);
}

/* ---- pools --------------------------------------------------------------------------- */

/* nextString(max, special) of Flink's URL parts, written at p. */
static int url_part(rng *r, char *p)
{
	int len = 3 + (int)rint32(r, 2);
	for (int i = 0; i < len; i++)
		p[i] = rint32(r, 13) == 0 ? '_' : (char)('a' + rint32(r, 26));
	return len;
}

/* "https://www.nexmark.com/<a>/<b>/<c>/item.htm?query=1" at p. */
static int base_url(rng *r, char *p)
{
	int n = sprintf(p, "https://www.nexmark.com/");
	for (int k = 0; k < 3; k++) {
		n += url_part(r, p + n);
		p[n++] = '/';
	}
	return n + sprintf(p + n, "item.htm?query=1");
}

/* Math.abs(Integer.reverse(i)) of Java: INT32_MIN stays negative. */
static int64_t channel_id(uint32_t i)
{
	uint32_t v = 0;
	for (int k = 0; k < 32; k++)
		v |= ((i >> k) & 1u) << (31 - k);
	int32_t s = (int32_t)v;
	return s == INT32_MIN ? s : s < 0 ? -(int64_t)s : s;
}

static int build_urls(nx_model *m)
{
	rng r;
	rseed(&r, m->cfg.seed, -1);
	m->urls = malloc((size_t)(4 + CHANNELS) * 96);
	m->chan = malloc((size_t)CHANNELS * 16);
	if (!m->urls || !m->chan)
		return SL_ENOMEM;
	int n = 0;
	for (int i = 0; i < 4 + CHANNELS; i++) {
		m->url_off[i] = n;
		n += base_url(&r, m->urls + n);
		if (i >= 4 && rint32(&r, 10) > 0)
			n += sprintf(m->urls + n, "&channel_id=%lld", (long long)channel_id((uint32_t)(i - 4)));
	}
	m->url_off[4 + CHANNELS] = n;
	n = 0;
	for (int i = 0; i < CHANNELS; i++) {
		m->chan_off[i] = n;
		n += sprintf(m->chan + n, "channel-%d", i);
	}
	m->chan_off[CHANNELS] = n;
	return 0;
}

/*
 * The 'extra' pool: Flink's nextExactString alphabet, 'a' + rnd % 26 of a
 * signed 32-bit rnd (Java's remainder keeps the sign), six characters per
 * draw, rnd /= 26 between them: 'H'..'z', '\\' and '`' among them.
 */
static void build_extra(nx_model *m)
{
	rng r;
	rseed(&r, m->cfg.seed, -2);
	int32_t rnd = 0;
	int left = 0;
	for (int i = 0; i < NX_EXTRA_POOL; i++) {
		if (!left) {
			rnd = (int32_t)(uint32_t)(rnext(&r) >> 32);
			left = 6;
		}
		m->extra[i] = (char)('a' + rnd % 26);
		rnd /= 26;
		left--;
	}
}

/*
 * Builds the pools of m from cfg (see the header).  Returns 0 or SL_ENOMEM
 * (m is then partly built: nx_model_deinit frees it).
 */
int nx_model_init(nx_model *m, const nx_cfg *cfg)
{
	m->cfg = *cfg;
	m->text = malloc(NX_TEXT_POOL);
	m->extra = malloc(NX_EXTRA_POOL);
	if (!m->text || !m->extra)
		return SL_ENOMEM;
	rng r;
	rseed(&r, cfg->seed, -3);
	for (int i = 0; i < NX_TEXT_POOL; i++)
		m->text[i] = rint32(&r, 13) == 0 ? ' ' : (char)('a' + rint32(&r, 26));
	build_extra(m);
	for (int f = 0; f < 11; f++)
		for (int l = 0; l < 9; l++)
			m->name_len[f * 9 + l] = (uint8_t)snprintf(m->names[f * 9 + l], 16, "%s %s",
			                                           first_names[f], last_names[l]);
	for (int i = 0; i < 10000; i++) {
		char t[8];
		snprintf(t, sizeof t, "%04d", i);
		memcpy(m->cc4[i], t, 4);
	}
	return build_urls(m);
}

/* Frees m's pools; safe on a zeroed or partly built model. */
void nx_model_deinit(nx_model *m)
{
	free(m->text);
	free(m->extra);
	free(m->urls);
	free(m->chan);
	m->text = m->extra = m->urls = m->chan = NULL;
}
