/*
 * slt_compare.h - how the slt runner compares a job's changes with what is
 * expected (tests/tools/slt_compare.c; docs/testing.md, "Parallelism").
 *
 * A change is one line as the runner keeps it: "[<table> ]<kind>[<values>]"
 * ("+I[a, 1]" for the bare SELECT's sink, "totals -U[a, 1]" for a push
 * sink).  At parallelism 1 an `expect` compares multisets and an `expect
 * ordered` the exact sequence, as they always did.  At parallelism N > 1
 * the contract (DESIGN.md §4: "the same multiset, with the same per-key
 * order, at every N") is what is compared, against the file and against
 * the file's run at parallelism 1 (the reference):
 *
 *   - the multiset of changes equals the file's expected lines;
 *   - for a table whose key is known (a sink's PRIMARY KEY, or the key an
 *     slt file declares), each key's sequence of changes equals the
 *     reference's;
 *   - for a table without a known key (a retract stream), no change is
 *     compared by position, but a -U/-D that retracts a row the table had
 *     emitted before it (at this point of the case) in the reference must
 *     do so here too: a retraction never overtakes the row it retracts.
 *
 * None of this is thread-safe; the runner is single-threaded.
 */
#ifndef SLUICE_SLT_COMPARE_H
#define SLUICE_SLT_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#define SC_MAX_KEY 16
#define SC_NO_KEY (-1) /* sc_table_key.nkey: no key known */

/* What the runner knows of one sink table's key. */
typedef struct sc_table_key {
	char *table; /* as in the lines: "select" for the bare SELECT */
	int ncols;   /* the table's number of columns (0: unknown: the values are
	                split at every ", " outside brackets) */
	int nkey;    /* SC_NO_KEY: none known, the table is compared as a retract
	                stream; 0: the empty key (all changes are one sequence);
	                > 0: the key's columns */
	int cols[SC_MAX_KEY]; /* the key's column positions, 0-based */
	int upsert;  /* an upsert sink (a PRIMARY KEY): +I/+U set the key's row,
	                -U/-D delete it; otherwise changes add and remove rows */
} sc_table_key;

typedef struct sc_keys {
	sc_table_key *v;
	int n, cap;
} sc_keys;

/* Records table's key (nkey positions in cols, each < ncols when ncols
 * > 0; nkey and upsert as sc_table_key says; upsert needs nkey > 0),
 * replacing an earlier record of the table.  Returns 0, or -1 when nkey is
 * out of range, a position is, or out of memory. */
int sc_keys_add(sc_keys *k, const char *table, int ncols, const int *cols, int nkey, int upsert);

/* The record of table (the first len bytes of table), or NULL. */
const sc_table_key *sc_keys_find(const sc_keys *k, const char *table, size_t len);

/* Forgets every table (sc_keys_free: and frees the array). */
void sc_keys_clear(sc_keys *k);
void sc_keys_free(sc_keys *k);

/* A change split into its parts (pointers into the line). */
typedef struct sc_change {
	const char *table; /* "select" when the line has no table name */
	size_t tlen;
	char kind;         /* 'I', 'U' (+U), 'B' (-U, update before) or 'D' */
	const char *vals;  /* the values between the brackets */
	size_t vlen;
} sc_change;

/* Splits a line; returns 0, or -1 when it is not "[<table> ]<+I|-U|+U|-D>[...]". */
int sc_parse(const char *line, sc_change *c);

/* The key text of a change under keys: "<table>|<key values>" for a table
 * with a known key whose values split into its ncols columns (or, ncols 0,
 * into enough columns), "<table>|" for the empty key, else
 * "<table>|<all values>" (a finer partition than the key: still a correct
 * per-key check, only a weaker one).  Writes a NUL-terminated string into
 * buf (truncated to cap) and returns its length. */
size_t sc_key_text(const sc_keys *keys, const char *line, char *buf, size_t cap);

/* Reads DESCRIBE's output (Flink's tableau, "| name | type | null | key |
 * ...", one row per column): *ncols receives the number of columns, cols
 * the positions of the columns with a key entry (the PRIMARY KEY), *nkey
 * their number (0 when none, or the text has no "key" column). */
void sc_parse_describe(const char *text, int *ncols, int *cols, int *nkey);

/*
 * What each table holds so far in one run of a case, its changes applied:
 * an upsert sink's rows by key; any other table's rows as a multiset,
 * where every +I/+U adds its row and every -U/-D removes one, and a
 * retraction of a row the table does not hold is "unmatched" and removes
 * nothing.
 */
typedef struct sc_ledger {
	struct sc_ledger_ent *v; /* open addressing, cap a power of two */
	size_t n, cap;
} sc_ledger;

void sc_ledger_clear(sc_ledger *l); /* empty (keeps its memory) */
void sc_ledger_free(sc_ledger *l);

/* Applies n changes in order to the ledger.  When unmatched is not NULL,
 * every unmatched retraction of a table without a known key has its
 * "<table>|<values>" malloc'd into (*unmatched)[*nunmatched++] (the array
 * grown with realloc).  Returns 0, or -1 when out of memory. */
int sc_ledger_apply(sc_ledger *l, const sc_keys *keys, char *const *rows, int n,
                    char ***unmatched, int *nunmatched);

/* 1 when two ledgers hold the same (a: the run at parallelism 1); else
 * prints up to ten differences to out and returns 0. */
int sc_ledger_same(const sc_ledger *a, const sc_ledger *b, FILE *out);

/* Prints the expected and actual lists and their difference (want and got
 * sorted when !ordered) to out, as the runner reports a failed expect. */
void sc_print_diff(FILE *out, char *const *want, int nwant, char *const *got, int ngot,
                   int ordered);

/*
 * The comparison at parallelism N > 1 of one expect record: got (the
 * changes polled, in arrival order) against want (the file's expected
 * lines, any order) and ref (the same record's changes in the run at
 * parallelism 1, in arrival order; pass want when there is none).  ref_l
 * and got_l are the two runs' ledgers before this record; both are
 * advanced past it (ref and got applied).  Prints what differs to out and
 * returns 0 when everything holds, or the number of properties that fail
 * (1-3: the multiset, a key's order, a retraction ahead of its row), or -1
 * when out of memory.  With result_only (a case whose changes depend on
 * arrival order by design), only what the tables hold after the record is
 * compared with the reference (1 when it differs).
 */
int sc_compare_parallel(const sc_keys *keys, int result_only, char *const *want, int nwant,
                        char *const *ref, int nref, sc_ledger *ref_l, char *const *got, int ngot,
                        sc_ledger *got_l, FILE *out);

/* Reorders rows (pointers only) as a run at parallelism N may: a random
 * interleaving, from seed, of the groups of changes that keep their order:
 * one per key of a table with a known key, one per row value of a table
 * without (so no retraction overtakes a row of its value).  The runner's
 * self-test (--assume-parallel) feeds its comparisons such orders.
 * Returns 0, or -1 when out of memory (rows unchanged). */
int sc_scramble(const sc_keys *keys, char **rows, int n, unsigned long long seed);

#endif
