/*
 * test_slt_compare.c - the slt runner's comparison at parallelism N > 1
 * (tests/tools/slt_compare.c), checked on its own before any parallel
 * runtime exists: changes of different keys may come in any order, one
 * key's may not; a missing or a duplicated change fails; a retraction may
 * not overtake the row it retracts when the table's key is unknown, and
 * only then; the key comes from DESCRIBE's PRIMARY KEY, or from the slt
 * file (the empty key included), and the row text's fields (ROW values,
 * strings that do not split); the reordering the runner's self-test
 * simulates is one the comparison accepts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slt_compare.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* A keys table with "t" keyed by column 0 of 2 and "u" (no key). */
static void keys_tu(sc_keys *k)
{
	int c0 = 0;
	assert_int_equal(sc_keys_add(k, "t", 2, &c0, 1, 1), 0); /* an upsert sink */
	assert_int_equal(sc_keys_add(k, "u", 2, NULL, SC_NO_KEY, 0), 0);
	assert_int_equal(sc_keys_add(k, "select", 0, NULL, SC_NO_KEY, 0), 0);
}

/* sc_compare_parallel of got against want (= ref) on fresh ledgers; the
 * diagnostics go to a temporary file, returned in *msg (malloc'd). */
static int compare(char **want, int nw, char **got, int ng, char **msg)
{
	sc_keys k = {0};
	sc_ledger rl = {0}, gl = {0};
	keys_tu(&k);
	FILE *f = tmpfile();
	assert_non_null(f);
	int rc = sc_compare_parallel(&k, 0, want, nw, want, nw, &rl, got, ng, &gl, f);
	long n = ftell(f);
	rewind(f);
	*msg = calloc((size_t)n + 1, 1);
	assert_non_null(*msg);
	assert_int_equal(fread(*msg, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	sc_ledger_free(&rl);
	sc_ledger_free(&gl);
	sc_keys_free(&k);
	return rc;
}

static void test_keys_interleave_freely(void **state)
{
	char *want[] = {"t +I[a, 1]", "t +I[b, 1]", "t +U[a, 2]", "t +U[b, 2]", "t -D[a, 2]"};
	char *got[] = {"t +I[b, 1]", "t +U[b, 2]", "t +I[a, 1]", "t +U[a, 2]", "t -D[a, 2]"};
	char *msg;
	assert_int_equal(compare(want, N(want), got, N(got), &msg), 0);
	assert_string_equal(msg, "");
	free(msg);
	/* keyless rows too, as long as no retraction overtakes its row */
	char *w2[] = {"+I[a, 1]", "+I[b, 1]", "-U[a, 1]", "+U[a, 2]"};
	char *g2[] = {"+I[a, 1]", "-U[a, 1]", "+I[b, 1]", "+U[a, 2]"};
	assert_int_equal(compare(w2, N(w2), g2, N(g2), &msg), 0);
	free(msg);
}

static void test_one_key_reordered_fails(void **state)
{
	char *want[] = {"t +I[a, 1]", "t +I[b, 1]", "t -U[a, 1]", "t +U[a, 2]"};
	char *got[] = {"t +I[b, 1]", "t +I[a, 1]", "t +U[a, 2]", "t -U[a, 1]"};
	char *msg;
	assert_int_equal(compare(want, N(want), got, N(got), &msg), 1);
	assert_non_null(strstr(msg, "the changes of key t|a come in another order"));
	free(msg);
	/* an upsert sink's two +U of one key swapped: the last one wins */
	char *w2[] = {"t +I[a, 1]", "t +U[a, 2]", "t +U[a, 3]"};
	char *g2[] = {"t +I[a, 1]", "t +U[a, 3]", "t +U[a, 2]"};
	assert_int_equal(compare(w2, N(w2), g2, N(g2), &msg), 1);
	free(msg);
}

static void test_retraction_before_its_row_fails(void **state)
{
	char *want[] = {"u +I[a, 1]", "u -U[a, 1]", "u +U[a, 2]"};
	char *got[] = {"u -U[a, 1]", "u +I[a, 1]", "u +U[a, 2]"};
	char *msg;
	assert_int_equal(compare(want, N(want), got, N(got), &msg), 1);
	assert_non_null(strstr(msg, "-U/-D of u|a, 1"));
	free(msg);
	/* the bare SELECT's sink: the same */
	char *w2[] = {"+I[x]", "-D[x]"};
	char *g2[] = {"-D[x]", "+I[x]"};
	assert_int_equal(compare(w2, N(w2), g2, N(g2), &msg), 1);
	free(msg);
}

/* Without a key, the -U/+U of one update may come in either order: the
 * rows do not say which key they belong to (documented in slt_compare.c). */
static void test_keyless_update_pair_not_ordered(void **state)
{
	char *want[] = {"+I[a, 1]", "-U[a, 1]", "+U[a, 2]"};
	char *got[] = {"+I[a, 1]", "+U[a, 2]", "-U[a, 1]"};
	char *msg;
	assert_int_equal(compare(want, N(want), got, N(got), &msg), 0);
	free(msg);
}

/* A retraction that found no row at parallelism 1 (a changelog input
 * deleting what it never inserted) may find none at N either. */
static void test_unmatched_in_reference_allowed(void **state)
{
	char *want[] = {"-D[z, 9]", "+I[a, 1]"};
	char *got[] = {"+I[a, 1]", "-D[z, 9]"};
	char *msg;
	assert_int_equal(compare(want, N(want), got, N(got), &msg), 0);
	free(msg);
}

static void test_missing_or_duplicated_row_fails(void **state)
{
	char *want[] = {"t +I[a, 1]", "+I[b, 1]", "+I[c, 1]"};
	char *missing[] = {"t +I[a, 1]", "+I[c, 1]"};
	char *dup[] = {"+I[c, 1]", "t +I[a, 1]", "+I[b, 1]", "+I[c, 1]"};
	char *kind[] = {"t +I[a, 1]", "+I[b, 1]", "+U[c, 1]"};
	char *msg;
	assert_true(compare(want, N(want), missing, N(missing), &msg) >= 1);
	assert_non_null(strstr(msg, "as a multiset"));
	assert_non_null(strstr(msg, "- +I[b, 1]"));
	free(msg);
	assert_true(compare(want, N(want), dup, N(dup), &msg) >= 1);
	assert_non_null(strstr(msg, "+ +I[c, 1]"));
	free(msg);
	assert_true(compare(want, N(want), kind, N(kind), &msg) >= 1);
	free(msg);
	/* a keyed table's row missing also shows as its key's sequence */
	char *w2[] = {"t +I[a, 1]", "t +U[a, 2]"};
	char *g2[] = {"t +I[a, 1]"};
	assert_int_equal(compare(w2, N(w2), g2, N(g2), &msg), 2);
	free(msg);
}

/* The ledgers carry the rows of earlier records: a -U retracting a row of
 * the previous expect is matched; one whose row came later at N is not. */
static void test_ledger_across_records(void **state)
{
	sc_keys k = {0};
	sc_ledger rl = {0}, gl = {0};
	keys_tu(&k);
	FILE *null = fopen("/dev/null", "w");
	assert_non_null(null);
	char *r1[] = {"+I[a, 1]"}, *r2[] = {"-U[a, 1]", "+U[a, 2]"};
	assert_int_equal(sc_compare_parallel(&k, 0, r1, 1, r1, 1, &rl, r1, 1, &gl, null), 0);
	assert_int_equal(sc_compare_parallel(&k, 0, r2, 2, r2, 2, &rl, r2, 2, &gl, null), 0);
	/* next record: at 1, -U[a, 2] retracts the +U of record 2; here the
	 * +U[a, 2] was lost in record 2 and arrives after its -U */
	sc_ledger_clear(&rl);
	sc_ledger_clear(&gl);
	char *g2[] = {"-U[a, 1]"};
	char *r3[] = {"-U[a, 2]", "+U[a, 3]"}, *g3[] = {"-U[a, 2]", "+U[a, 2]", "+U[a, 3]"};
	assert_int_equal(sc_compare_parallel(&k, 0, r1, 1, r1, 1, &rl, r1, 1, &gl, null), 0);
	assert_int_equal(sc_compare_parallel(&k, 0, r2, 2, r2, 2, &rl, g2, 1, &gl, null), 1);
	assert_int_equal(sc_compare_parallel(&k, 0, r3, 2, r3, 2, &rl, g3, 3, &gl, null), 2);
	fclose(null);
	sc_ledger_free(&rl);
	sc_ledger_free(&gl);
	sc_keys_free(&k);
}

static void test_key_text(void **state)
{
	sc_keys k = {0};
	int c1[] = {1}, c02[] = {0, 2};
	char buf[256];
	assert_int_equal(sc_keys_add(&k, "r", 3, c1, 1, 0), 0);
	assert_int_equal(sc_keys_add(&k, "s", 3, c02, 2, 0), 0);
	assert_int_equal(sc_keys_add(&k, "bad", 2, c02, 2, 0), -1); /* column 2 of 2 */
	sc_key_text(&k, "r +I[a, (1, x, (1.5, q)), 7]", buf, sizeof(buf));
	assert_string_equal(buf, "r|(1, x, (1.5, q))");
	sc_key_text(&k, "s -D[a, b, c]", buf, sizeof(buf));
	assert_string_equal(buf, "s|a\x1f" "c");
	/* a string holding ", " splits into too many fields: the whole row */
	sc_key_text(&k, "r +I[a, b, c, d]", buf, sizeof(buf));
	assert_string_equal(buf, "r|a, b, c, d");
	sc_key_text(&k, "+I[a, 1]", buf, sizeof(buf));
	assert_string_equal(buf, "select|a, 1");
	sc_change c;
	assert_int_equal(sc_parse("late_orders +I[c, 3.00]", &c), 0);
	assert_int_equal((int)c.tlen, 11);
	assert_int_equal(c.kind, 'I');
	assert_int_equal(sc_parse("-U[]", &c), 0);
	assert_int_equal(c.kind, 'B');
	assert_int_equal((int)c.vlen, 0);
	assert_int_equal(sc_parse("x +X[1]", &c), -1);
	assert_int_equal(sc_parse("+I[1", &c), -1);
	sc_keys_free(&k);
}

/* Keys an slt file declares: the empty key keeps the whole order (a
 * keyless operator: a global aggregate, a temporal sort); positions without
 * a column count split the values as far as needed. */
static void test_declared_keys(void **state)
{
	sc_keys k = {0};
	sc_ledger rl = {0}, gl = {0};
	int c1[] = {1};
	char buf[256];
	FILE *null = fopen("/dev/null", "w");
	assert_non_null(null);
	assert_int_equal(sc_keys_add(&k, "select", 0, NULL, 0, 0), 0);
	sc_key_text(&k, "+I[a, 1]", buf, sizeof(buf));
	assert_string_equal(buf, "select|");
	char *ref[] = {"+I[a, 1]", "+I[b, 1]"}, *got[] = {"+I[b, 1]", "+I[a, 1]"};
	assert_int_equal(sc_compare_parallel(&k, 0, ref, 2, ref, 2, &rl, got, 2, &gl, null), 1);
	/* replaced by a key of column 2 (0-based 1): now b and a are one key */
	assert_int_equal(sc_keys_add(&k, "select", 0, c1, 1, 0), 0);
	sc_key_text(&k, "+I[x, (1, 2), y]", buf, sizeof(buf));
	assert_string_equal(buf, "select|(1, 2)");
	assert_int_equal(sc_compare_parallel(&k, 0, ref, 2, ref, 2, &rl, got, 2, &gl, null), 1);
	char *got2[] = {"+I[a, 1]", "+I[b, 1]"};
	assert_int_equal(sc_compare_parallel(&k, 0, ref, 2, ref, 2, &rl, got2, 2, &gl, null), 0);
	/* too few fields for the key: the whole row */
	sc_key_text(&k, "+I[x]", buf, sizeof(buf));
	assert_string_equal(buf, "select|x");
	fclose(null);
	sc_ledger_free(&rl);
	sc_ledger_free(&gl);
	sc_keys_free(&k);
}

/* A case marked `parallel result`: only what the tables hold is compared
 * (a SUM over a re-keyed updating stream: its intermediate values depend on
 * arrival order); the full comparison fails on it and says so. */
static void test_result_only(void **state)
{
	sc_keys k = {0};
	sc_ledger rl = {0}, gl = {0};
	keys_tu(&k);
	char *ref[] = {"+I[5]", "-U[5]", "+U[12]", "t +I[a, 1]", "t +U[a, 2]", "t +I[b, 1]"};
	char *got[] = {"t +I[b, 1]", "+I[7]", "t +I[a, 3]", "-U[7]", "+U[12]", "t +U[a, 2]"};
	char *bad[] = {"+I[7]", "-U[7]", "+U[13]", "t +I[a, 1]", "t +U[a, 2]", "t +I[b, 1]"};
	char *bad2[] = {"+I[5]", "-U[5]", "+U[12]", "t +U[a, 2]", "t +I[a, 1]", "t +I[b, 1]"};
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_int_equal(sc_compare_parallel(&k, 1, ref, 6, ref, 6, &rl, got, 6, &gl, f), 0);
	sc_ledger_clear(&rl);
	sc_ledger_clear(&gl);
	assert_int_equal(sc_compare_parallel(&k, 1, ref, 6, ref, 6, &rl, bad, 6, &gl, f), 1);
	sc_ledger_clear(&rl);
	sc_ledger_clear(&gl);
	assert_int_equal(sc_compare_parallel(&k, 1, ref, 6, ref, 6, &rl, bad2, 6, &gl, f), 1);
	sc_ledger_clear(&rl);
	sc_ledger_clear(&gl);
	assert_true(sc_compare_parallel(&k, 0, ref, 6, ref, 6, &rl, got, 6, &gl, f) >= 1);
	long n = ftell(f);
	rewind(f);
	char *msg = calloc((size_t)n + 1, 1);
	assert_non_null(msg);
	assert_int_equal(fread(msg, 1, (size_t)n, f), (size_t)n);
	assert_non_null(strstr(msg, "row select|13"));       /* bad: the sum */
	assert_non_null(strstr(msg, "key t|a"));             /* bad2: the last upsert */
	assert_non_null(strstr(msg, "mark the case 'parallel result")); /* the hint */
	free(msg);
	fclose(f);
	sc_ledger_free(&rl);
	sc_ledger_free(&gl);
	sc_keys_free(&k);
}

/* The runner's self-test reorders rows as a parallel run may: a
 * permutation that keeps each key's order (each row value's, without a
 * key), different orders for different seeds, and always accepted by the
 * comparison. */
static void test_scramble(void **state)
{
	sc_keys k = {0};
	keys_tu(&k);
	char *ref[] = {"t +I[a, 1]", "+I[x]", "t +I[b, 1]", "-U[x]", "t +U[a, 2]", "+U[y]",
	               "u +I[p, 1]", "t -D[b, 1]", "u -D[p, 1]", "-D[y]", "+I[x]"};
	int n = N(ref), moved = 0;
	FILE *null = fopen("/dev/null", "w");
	assert_non_null(null);
	for (unsigned long long seed = 1; seed <= 200; seed++) {
		char *got[N(ref)];
		memcpy(got, ref, sizeof(got));
		assert_int_equal(sc_scramble(&k, got, n, seed), 0);
		moved += memcmp(got, ref, sizeof(got)) != 0;
		/* a permutation keeping each group's order: every row of ref once */
		int used[N(ref)] = {0};
		for (int i = 0; i < n; i++) {
			int j = 0;
			while (j < n && (used[j] || got[i] != ref[j]))
				j++;
			assert_true(j < n);
			used[j] = 1;
		}
		sc_ledger rl = {0}, gl = {0};
		assert_int_equal(sc_compare_parallel(&k, 0, ref, n, ref, n, &rl, got, n, &gl, null), 0);
		sc_ledger_free(&rl);
		sc_ledger_free(&gl);
	}
	assert_true(moved > 150);
	fclose(null);
	sc_keys_free(&k);
}

static void test_parse_describe(void **state)
{
	const char *text =
		"+------+--------+-------+-----------+--------+-----------+---------+\n"
		"| name |   type |  null |       key | extras | watermark | comment |\n"
		"+------+--------+-------+-----------+--------+-----------+---------+\n"
		"|    u | STRING | FALSE | PRI(c, u) |        |           |         |\n"
		"|    x |    INT |  TRUE |           |        |           |         |\n"
		"|    c | BIGINT | FALSE | PRI(c, u) |        |           |         |\n"
		"+------+--------+-------+-----------+--------+-----------+---------+\n"
		"3 rows in set\n";
	int ncols, cols[SC_MAX_KEY], nkey;
	sc_parse_describe(text, &ncols, cols, &nkey);
	assert_int_equal(ncols, 3);
	assert_int_equal(nkey, 2);
	assert_int_equal(cols[0], 0);
	assert_int_equal(cols[1], 2);
	sc_parse_describe("error", &ncols, cols, &nkey);
	assert_int_equal(ncols, 0);
	assert_int_equal(nkey, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys_interleave_freely),
		cmocka_unit_test(test_one_key_reordered_fails),
		cmocka_unit_test(test_retraction_before_its_row_fails),
		cmocka_unit_test(test_keyless_update_pair_not_ordered),
		cmocka_unit_test(test_unmatched_in_reference_allowed),
		cmocka_unit_test(test_missing_or_duplicated_row_fails),
		cmocka_unit_test(test_ledger_across_records),
		cmocka_unit_test(test_key_text),
		cmocka_unit_test(test_declared_keys),
		cmocka_unit_test(test_result_only),
		cmocka_unit_test(test_scramble),
		cmocka_unit_test(test_parse_describe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
