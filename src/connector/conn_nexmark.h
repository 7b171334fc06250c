/*
 * conn_nexmark.h - the Nexmark event model shared by the 'nexmark' source
 * (conn_nexmark.c: options, splits, batches, checkpoints) and the event
 * generator (conn_nexmark_gen.c: ids, hot keys, prices, strings).
 * Internal to src/connector; docs/nexmark.md describes the design.
 *
 * The stream is one timeline of events numbered g = 0, 1, 2, ... (Flink's
 * event number g + 1 and event id g + 2, as its table factory starts them).
 * Event g is a pure function of the configuration and g: its type comes
 * from the id, its timestamp from the rate, and its random draws from a
 * stream seeded by (seed, id).  So any cut of the sequence into splits,
 * read by any number of instances in any order, gives the same events.
 */
#ifndef SL_CONN_NEXMARK_H
#define SL_CONN_NEXMARK_H

#include <stdint.h>

#include "../data/batch.h"

/* What the generator is configured with (defaults are Flink's). */
typedef struct nx_cfg {
	int person_prop, auction_prop, bid_prop, total_prop; /* 1 / 3 / 46 / 50 */
	int hot_auctions;        /* 'bid.hot-ratio.auctions' (2) */
	int hot_bidders;         /* 'bid.hot-ratio.bidders' (4) */
	int hot_sellers;         /* 'auction.hot-ratio.sellers' (4) */
	int avg_person, avg_auction, avg_bid; /* '*.avg-size' in bytes (200/500/100) */
	double delay_us;         /* inter-event delay: 1e6 / 'first-event.rate' */
	int64_t base_ms;         /* event time of event number 0 (ms since the epoch) */
	uint64_t seed;           /* the random streams' seed */
} nx_cfg;

/*
 * The pools every event's strings are sliced from, built once from the
 * seed (docs/nexmark.md "Strings"): strings point into them and live as
 * long as the model.
 */
typedef struct nx_model {
	nx_cfg cfg;
	char *text;              /* NX_TEXT_POOL chars, ' ' with p = 1/13, else a-z */
	char *extra;             /* NX_EXTRA_POOL chars of Flink's 'extra' alphabet */
	char *urls;              /* 4 hot + 10 000 channel URLs, back to back */
	int32_t url_off[4 + 10000 + 1];
	char *chan;              /* "channel-0" ... "channel-9999", back to back */
	int32_t chan_off[10000 + 1];
	char names[11 * 9][16];  /* "First Last" */
	uint8_t name_len[11 * 9];
	char cc4[10000][4];      /* "%04d" of 0..9999 */
} nx_model;

#define NX_TEXT_POOL (1 << 16)
#define NX_EXTRA_POOL (1 << 20)

/* Event types (the wide table's event_type). */
enum { NX_PERSON = 0, NX_AUCTION = 1, NX_BID = 2 };

/*
 * Builds m's pools from cfg (copied).  Returns 0 or SL_ENOMEM.  Free with
 * nx_model_deinit (safe after a failed or no init of a zeroed model).
 */
int nx_model_init(nx_model *m, const nx_cfg *cfg);
void nx_model_deinit(nx_model *m);

/* The type (NX_PERSON ...) and the timestamp (ms) of event g. */
int nx_event_type(const nx_cfg *c, int64_t g);
int64_t nx_event_ts(const nx_cfg *c, int64_t g);

/*
 * Writes event g into row `row` of b, a batch of the wide schema (column 0
 * event_type INT, 1 person ROW<8>, 2 auction ROW<10>, 3 bid ROW<7>; the
 * caller has marked the row's ROW columns and their fields NULL).  Strings
 * point into m's pools, or into b's arena (a person's e-mail and credit
 * card, an 'extra' longer than half the pool).  Returns 0 or SL_ENOMEM.
 */
int nx_event_fill(const nx_model *m, int64_t g, sl_batch *b, int row);

/*
 * Writes event g into row `row` of b, a batch of one type's table
 * (RisingWave's three-table form: the fields of that type's ROW, in the
 * same order, as columns); g must be of that type.  Returns 0 or
 * SL_ENOMEM.
 */
int nx_event_fill_flat(const nx_model *m, int64_t g, sl_batch *b, int row);

#endif
