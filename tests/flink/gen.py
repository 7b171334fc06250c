#!/usr/bin/env python3
"""gen.py OUTDIR SEED COUNT [COUNT2] - random cases for `make test-flink` (tests/flink/diff.py).

Writes COUNT cases (OUTDIR/gen_SEED_NNN.sql, each with its own OUTDIR/gen_SEED_NNN.jsonl
or .csv input) from one seed: a fixed schema of INT, BIGINT, DECIMAL(10, 2), DOUBLE,
STRING and TIMESTAMP(3) columns with NULLs, and one query each of the forms
projection + WHERE, GROUP BY (with HAVING), a global aggregate, SELECT DISTINCT,
TUMBLE / HOP / CUMULATE window aggregates, regular joins with a second table u
(inner and outer, some feeding an aggregate), Top-N, event-time deduplication, OVER
aggregates, UNION ALL and a filter over an aggregate, built from random expressions,
predicates and aggregates. With a fourth argument COUNT2 it also writes COUNT2 cases
gen2_SEED_NNN of the second generation of kinds (KINDS2: SESSION windows, TVF and legacy;
window Top-N and deduplication; window joins, inner, outer, semi and anti; interval joins
with a second table u that has an event-time column and a watermark; UNION / INTERSECT /
EXCEPT [ALL]; GROUPING SETS, ROLLUP and CUBE, over windows too; an aggregate over an
aggregate; Top-N over an aggregate; LAG over an OVER window; IN / NOT IN / EXISTS /
NOT EXISTS and scalar subqueries; window aggregates over window aggregates; legacy
GROUP BY TUMBLE / HOP / SESSION windows; three-way joins; window aggregates with HAVING),
each from its own random stream, so the first
generation's cases of a seed are unchanged. Inputs are out of order by less than the watermark delay,
so no row is late in either engine and the final results do not depend on when
watermarks are emitted. Cases whose changelog legitimately differs are marked
`-- changelog: none`, forms sluice lacks `-- xfail: not supported yet`. The same
seed gives the same files.
"""

import json
import os
import random
import sys

BASE_MS = 1785574800000  # 2026-08-01 09:00:00 UTC
SCHEMA = """CREATE TABLE t (
    id INT,
    k STRING,
    n INT,
    m BIGINT,
    d DECIMAL(10, 2),
    x DOUBLE,
    s STRING,
    ts TIMESTAMP(3),
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (%s);
"""
STRINGS = ["a", "ab", "abc", "b", "ba", "xyz", "", " a ", "Ab", "hello", "w0rld", "a_b",
           "%x", "caf\u00e9", "zz"]


def ts_text(ms):
    import datetime
    t = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    s = t.strftime("%Y-%m-%d %H:%M:%S")
    if ms % 1000:
        s += (".%03d" % (ms % 1000)).rstrip("0")
    return s


def gen_rows(r):
    rows = []
    base = BASE_MS + r.randrange(0, 60) * 1000
    for i in range(r.randint(8, 60)):
        base += r.choice([0, 0, 250, 1000, 1500, 3000, 7000, 11000])
        ts = base - r.choice([0, 0, 0, 1, 999, 2000, 4000])
        if r.random() < 0.3:
            ts = ts - ts % 1000 + r.choice([0, 1, 5, 500])  # fractions of a second
            ts = max(ts, base - 4999)
        rows.append({
            "id": i + 1,
            "k": r.choice(["a", "a", "b", "b", "c", "d", None]),
            "n": None if r.random() < 0.12 else r.randint(-20, 100),
            "m": None if r.random() < 0.12 else r.randint(-10**12, 10**12),
            "d": None if r.random() < 0.12 else round(r.randint(-10000, 100000) / 100, 2),
            "x": None if r.random() < 0.12 else r.randint(-200, 200) / 4,
            "s": None if r.random() < 0.12 else r.choice(STRINGS),
            "ts": ts_text(ts),
        })
    return rows


class Exprs:
    """Random typed expressions over the schema."""

    def __init__(self, r):
        self.r = r

    def pick(self, *alts):
        return self.r.choice(alts)()

    def int_(self, depth=0):
        r = self.r
        base = [lambda: "n", lambda: "id", lambda: str(r.randint(-5, 30))]
        if depth > 1:
            return self.pick(*base)
        return self.pick(
            *base,
            lambda: "n + %s" % self.int_(depth + 1),
            lambda: "n * %d" % r.randint(-3, 5),
            lambda: "MOD(n, %d)" % r.randint(2, 7),
            lambda: "ABS(n - 40)",
            lambda: "-n",
            lambda: "n / %d" % r.randint(2, 5),
            lambda: "CHAR_LENGTH(s)",
            lambda: "COALESCE(n, %d)" % r.randint(-1, 9),
            lambda: "CAST(d AS INT)",
            lambda: "EXTRACT(SECOND FROM ts)",
            lambda: "EXTRACT(MINUTE FROM ts)",
            lambda: "CASE WHEN %s THEN %s ELSE %s END" % (self.pred(depth + 1),
                                                         self.int_(depth + 1),
                                                         self.int_(depth + 1)),
            lambda: "POSITION('a' IN s)",
            lambda: "POSITION(k IN s)",
            lambda: "TIMESTAMPDIFF(SECOND, TIMESTAMP '2026-08-01 09:00:00', ts)",
            lambda: "TIMESTAMPDIFF(MINUTE, ts, TIMESTAMP '2026-08-01 10:00:00')",
            lambda: "CAST(x AS INT)",
            lambda: "TRY_CAST(s AS INT)",
            lambda: "CASE WHEN n > 10 THEN n ELSE id END",
            lambda: "n %% %d" % r.randint(2, 6),
        )

    def dec(self, depth=0):
        r = self.r
        base = [lambda: "d", lambda: "CAST(n AS DECIMAL(10, 2))"]
        if depth > 1:
            return self.pick(*base)
        return self.pick(
            *base,
            lambda: "d + %s" % r.choice(["1.5", "0.01", "n", "d"]),
            lambda: "d * %s" % r.choice(["2", "n", "0.5"]),
            lambda: "d - n",
            lambda: "ROUND(d, %d)" % r.randint(0, 1),
            lambda: "ABS(d)",
            lambda: "d / %s" % r.choice(["4", "3", "0.5"]),
            lambda: "FLOOR(d)",
            lambda: "CEIL(d)",
            lambda: "COALESCE(d, 0)",
            lambda: "d / NULLIF(n, 0)",
            lambda: "COALESCE(d, n)",
            lambda: "CASE WHEN %s THEN d ELSE n END" % self.pred(depth + 1),
            lambda: "ROUND(d / 3, 2)",
            lambda: "CAST(x AS DECIMAL(10, 2))",
            lambda: "d * d",
        )

    def dbl(self, depth=0):
        return self.pick(
            lambda: "x",
            lambda: "x * 2",
            lambda: "x + n",
            lambda: "CAST(n AS DOUBLE)",
            lambda: "SQRT(ABS(x))",
            lambda: "POWER(x, 2)",
            lambda: "x / 4",
            lambda: "ROUND(x, 1)",
            lambda: "x * d",
            lambda: "EXP(x / 50)",
            lambda: "LN(ABS(x) + 1)",
            lambda: "CAST(d AS DOUBLE) / 3",
            lambda: "x + 0.1",
        )

    def str_(self, depth=0):
        r = self.r
        base = [lambda: "s", lambda: "k", lambda: "'lit'"]
        if depth > 1:
            return self.pick(*base)
        return self.pick(
            *base,
            lambda: "UPPER(%s)" % self.str_(depth + 1),
            lambda: "LOWER(s)",
            lambda: "CONCAT(k, %s)" % self.str_(depth + 1),
            lambda: "k || '-' || s",
            lambda: "SUBSTRING(s, %d, %d)" % (r.randint(1, 3), r.randint(1, 3)),
            lambda: "SUBSTRING(s, %d)" % r.randint(1, 3),
            lambda: "TRIM(s)",
            lambda: "REPLACE(s, 'a', 'xy')",
            lambda: "LPAD(s, %d, '*')" % r.randint(1, 6),
            lambda: "RPAD(k, 3, '.')",
            lambda: "CAST(n AS STRING)",
            lambda: "CAST(d AS STRING)",
            lambda: "CAST(x AS STRING)",
            lambda: "DATE_FORMAT(ts, '%s')" % r.choice(["yyyy-MM-dd HH:mm:ss", "HH:mm",
                                                         "yyyyMMdd"]),
            lambda: "CONCAT_WS('|', k, s)",
            lambda: "COALESCE(s, k, '?')",
            lambda: "CASE WHEN %s THEN k ELSE s END" % self.pred(depth + 1),
            lambda: "CAST(ts AS STRING)",
            lambda: "NULLIF(k, 'a')",
            lambda: "SUBSTRING(s, -2)",
            lambda: "SUBSTRING(s, 0, 2)",
            lambda: "LPAD(s, 4, '')",
            lambda: "REPLACE(s, '', '.')",
            lambda: "REGEXP_EXTRACT(s, '([a-z])([a-z])', 2)",
            lambda: "SPLIT_INDEX(s, 'a', 1)",
            lambda: "REGEXP_REPLACE(s, '[aeiou]', '#')",
            lambda: "DATE_FORMAT(ts, 'yyyy-MM-dd''T''HH:mm:ss.SSS')",
            lambda: "CAST(CAST(ts AS DATE) AS STRING)",
            lambda: "CAST(x * 1000000 AS STRING)",
            lambda: "CAST(x / 1000 AS STRING)",
            lambda: "CAST(m AS STRING)",
            lambda: "CAST(d / 7 AS STRING)",
            lambda: "CAST(AVG_PLACEHOLDER AS STRING)".replace("AVG_PLACEHOLDER", "d * n"),
            lambda: "TRIM(BOTH 'a' FROM s)",
            lambda: "CONCAT(s, CAST(n AS STRING), k)",
        )

    def ts_(self):
        return self.pick(
            lambda: "ts",
            lambda: "ts + INTERVAL '%d' MINUTE" % self.r.randint(1, 90),
            lambda: "FLOOR(ts TO MINUTE)",
            lambda: "CEIL(ts TO HOUR)",
            lambda: "TIMESTAMPADD(SECOND, 30, ts)",
            lambda: "TO_TIMESTAMP(DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss'))",
            lambda: "CAST(CAST(ts AS DATE) AS TIMESTAMP(3))",
            lambda: "TIMESTAMPADD(MONTH, 1, ts)",
            lambda: "FLOOR(ts TO SECOND)",
        )

    def cmp(self):
        return self.r.choice(["=", "<>", "<", "<=", ">", ">="])

    def compare(self, a, op, b):
        """a op b; an expression compared with itself becomes `(a) + 0 op a`: Flink 1.20.3
        keeps a NULL row of WHERE x = x (cases/where_self_compare.sql). Draws nothing, so
        every other case of a seed stays as it was."""
        if a == b:
            a = "(%s) + 0" % a
        return "%s %s %s" % (a, op, b)

    def pred(self, depth=0):
        r = self.r
        base = [
            lambda: "n %s %d" % (self.cmp(), r.randint(-5, 60)),
            lambda: "d %s %s" % (self.cmp(), r.choice(["10", "100.5", "0", "-3.25"])),
            lambda: "x %s %s" % (self.cmp(), r.choice(["0", "12.5", "-7.75"])),
            lambda: "k %s '%s'" % (self.cmp(), r.choice("abcd")),
            lambda: "s LIKE '%s'" % r.choice(["a%", "%b%", "_", "%", "a\\_b"]),
            lambda: "k IN ('a', 'c')",
            lambda: "n NOT IN (1, 2, 3, 50)",
            lambda: "n BETWEEN %d AND %d" % (r.randint(-10, 20), r.randint(20, 80)),
            lambda: "%s IS NULL" % r.choice("knmdxs"),
            lambda: "%s IS NOT NULL" % r.choice("knmdxs"),
            lambda: "s = k",
            lambda: "d > n",
            lambda: "m %s %d" % (self.cmp(), r.randint(-10**12, 10**12)),
            lambda: "ts >= TIMESTAMP '2026-08-01 09:01:00'",
            lambda: self.compare(self.int_(depth + 1), self.cmp(), self.int_(depth + 1)),
            lambda: "%s IS DISTINCT FROM %s" % (self.str_(depth + 1), self.str_(depth + 1)),
            lambda: "x > d",
            lambda: "d = n",
            lambda: "s < k",
            lambda: "UPPER(s) = 'AB'",
            lambda: "CHAR_LENGTH(s) > 2",
            lambda: self.compare(self.dec(depth + 1), self.cmp(), self.dec(depth + 1)),
        ]
        if depth > 1:
            return self.pick(*base)
        return self.pick(
            *base,
            lambda: "NOT (%s)" % self.pred(depth + 1),
            lambda: "(%s AND %s)" % (self.pred(depth + 1), self.pred(depth + 1)),
            lambda: "(%s OR %s)" % (self.pred(depth + 1), self.pred(depth + 1)),
            lambda: "(%s) IS TRUE" % self.pred(depth + 1),
            lambda: "(%s) IS NOT FALSE" % self.pred(depth + 1),
        )

    def scalar(self):
        return self.pick(self.int_, self.int_, self.dec, self.dbl, self.str_, self.str_,
                         self.ts_, lambda: "(%s)" % self.pred())

    def agg(self):
        r = self.r
        return self.pick(
            lambda: "COUNT(*)",
            lambda: "COUNT(%s)" % r.choice("nmdxs"),
            lambda: "COUNT(DISTINCT %s)" % r.choice(["k", "n", "s"]),
            lambda: "SUM(%s)" % r.choice(["n", "m", "d", "x", self.int_(1), self.dec(1)]),
            lambda: "MIN(%s)" % r.choice(["n", "d", "s", "ts", "x", self.str_(1)]),
            lambda: "MAX(%s)" % r.choice(["n", "d", "s", "ts", "m", self.int_(1)]),
            lambda: "AVG(%s)" % r.choice(["n", "d", "x", "m"]),
            lambda: "SUM(n) FILTER (WHERE %s)" % self.pred(1),
            lambda: "COUNT(*) FILTER (WHERE %s)" % self.pred(1),
            lambda: "COUNT(DISTINCT k) FILTER (WHERE %s)" % self.pred(1),
            lambda: "MAX(d) FILTER (WHERE %s)" % self.pred(1),
        )


def query(r, e):
    kind = r.choice(["project", "project", "group", "group", "group", "global", "distinct",
                     "tumble", "tumble", "hop", "cumulate", "join", "join", "topn", "dedup",
                     "over", "union", "nested"])
    where = " WHERE %s" % e.pred() if r.random() < 0.5 else ""
    aggs = ", ".join("%s AS a%d" % (e.agg(), i) for i in range(r.randint(1, 4)))
    if kind == "project":
        cols = ", ".join("%s AS c%d" % (e.scalar(), i) for i in range(r.randint(1, 4)))
        return kind, "SELECT id, %s FROM t%s;" % (cols, where)
    if kind == "group":
        key = r.choice(["k", "k", "MOD(n, 3)", "k, n IS NULL", "s", "CHAR_LENGTH(s)"])
        having = " HAVING COUNT(*) > 1" if r.random() < 0.3 else ""
        return kind, "SELECT %s, %s FROM t%s GROUP BY %s%s;" % (key, aggs, where, key, having)
    if kind == "global":
        return kind, "SELECT %s FROM t%s;" % (aggs, where)
    if kind == "join":
        jt = r.choice(["JOIN", "JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
        cond = r.choice(["t.k = u.k", "t.n = u.n", "t.k = u.k AND t.n < u.n", "t.s = u.s"])
        cols = ", ".join(r.sample(["t.id", "u.uid", "t.k", "u.k AS uk", "t.n", "u.n AS un",
                                   "t.d", "u.v", "t.s", "u.s AS us"], r.randint(2, 5)))
        left = "(SELECT * FROM t%s) t" % where if where else "t"
        if r.random() < 0.4:
            return kind, ("SELECT u.k AS uk, COUNT(*) AS c, SUM(u.v) AS sv, MAX(t.n) AS mn "
                          "FROM %s %s u ON %s GROUP BY u.k;" % (left, jt, cond))
        return kind, "SELECT %s FROM %s %s u ON %s;" % (cols, left, jt, cond)
    if kind == "topn":
        order = r.choice(["n DESC", "d ASC", "s DESC", "x DESC", "ts DESC"])
        part = r.choice(["k", "MOD(n, 3)", "s IS NULL"])
        rn = "rn, " if r.random() < 0.5 else ""
        return kind, ("SELECT %sid, k, n, d, s FROM (SELECT *, ROW_NUMBER() OVER "
                      "(PARTITION BY %s ORDER BY %s) AS rn FROM t%s) WHERE rn <= %d;"
                      % (rn, part, order, where, r.randint(1, 3)))
    if kind == "dedup":
        order = r.choice(["ts ASC", "ts DESC"])
        return kind, ("SELECT id, k, n, ts FROM (SELECT *, ROW_NUMBER() OVER "
                      "(PARTITION BY k ORDER BY %s) AS rn FROM t%s) WHERE rn = 1;" % (order, where))
    if kind == "over":
        fn = r.choice(["SUM(n)", "COUNT(*)", "MAX(d)", "MIN(s)", "AVG(x)", "COUNT(DISTINCT k)"])
        frame = r.choice(["ROWS BETWEEN 2 PRECEDING AND CURRENT ROW",
                          "RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW",
                          "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"])
        part = r.choice(["PARTITION BY k ", ""])
        return kind, ("SELECT id, k, ts, %s OVER (%sORDER BY ts %s) AS o FROM t%s;"
                      % (fn, part, frame, where))
    if kind == "union":
        c1 = e.str_()
        return kind, ("SELECT id, %s AS c FROM t WHERE %s UNION ALL SELECT id, k FROM t WHERE %s;"
                      % (c1, e.pred(), e.pred()))
    if kind == "nested":
        return kind, ("SELECT k2, a FROM (SELECT k AS k2, %s AS a FROM t%s GROUP BY k) "
                      "WHERE a IS NOT NULL;" % (e.agg(), where))
    if kind == "distinct":
        cols = r.choice(["k", "k, MOD(n, 4)", "s", "k, d IS NULL", "UPPER(s)"])
        return kind, "SELECT DISTINCT %s FROM t%s;" % (cols, where)
    # Flink's INTERVAL 'n' SECOND has a leading precision of 2 digits: every size < 100
    size = r.choice([5, 10, 20]) if kind != "tumble" else r.choice([5, 10, 30, 60])
    if kind == "tumble":
        tvf = "TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '%d' SECOND)" % size
    elif kind == "hop":
        tvf = "HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '%d' SECOND, INTERVAL '%d' SECOND)" % (
            size, size * r.choice([2, 3]))
    else:
        tvf = "CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '%d' SECOND, INTERVAL '%d' SECOND)" % (
            size, size * r.choice([2, 4]))
    keys = r.choice(["", ", k", ", k", ", MOD(n, 2)"])
    sel_keys = keys.replace("MOD(n, 2)", "MOD(n, 2) AS nk")
    return kind, ("SELECT window_start, window_end%s, %s FROM TABLE(%s)%s "
                  "GROUP BY window_start, window_end%s;" % (sel_keys, aggs, tvf, where, keys))


# ---- the second generation of kinds (gen2_SEED_NNN cases) ----------------------------
# Generated after the cases above, each from its own random stream (seeded by the seed
# and the case number), so the first generation's cases of a seed stay as they were and
# a new kind appended to KINDS2 changes only gen2_ cases.

KINDS2 = ["session", "window_topn", "window_dedup", "window_join", "interval_join",
          "setop", "grouping_sets", "two_level", "topn_updating", "lag", "subquery",
          "cascade", "legacy_window", "multi_join", "window_having"]

U_SCHEMA = ("CREATE TABLE u (uid INT, k STRING, n INT, v INT, s STRING, uts TIMESTAMP(3), "
            "WATERMARK FOR uts AS uts - INTERVAL '5' SECOND) WITH ("
            "'connector' = 'filesystem', 'path' = '$DATA/%s_u.jsonl', 'format' = 'json');\n")


def gen_urows(r, first_ms):
    """Rows of u: like t's keys, an event time near t's, out of order by < 5 s."""
    rows = []
    base = first_ms + r.randrange(-10, 10) * 1000
    for j in range(r.randint(3, 25)):
        base += r.choice([0, 500, 1000, 2000, 4000, 9000])
        ts = base - r.choice([0, 0, 1, 1000, 3000, 4999])
        rows.append({"uid": 100 + j, "k": r.choice(["a", "b", "c", "e", None]),
                     "n": None if r.random() < 0.15 else r.randint(-5, 30),
                     "v": r.randint(1, 9), "s": r.choice(STRINGS + [None]),
                     "uts": ts_text(ts)})
    return rows


def plain_agg(e):
    """An aggregate every window kind takes (SESSION has no DISTINCT, no string MIN/MAX)."""
    r = e.r
    return e.pick(
        lambda: "COUNT(*)",
        lambda: "COUNT(%s)" % r.choice("nmdxs"),
        lambda: "SUM(%s)" % r.choice(["n", "m", "d", "x", e.int_(1), e.dec(1)]),
        lambda: "MIN(%s)" % r.choice(["n", "d", "ts", "x"]),
        lambda: "MAX(%s)" % r.choice(["n", "d", "ts", "m", e.int_(1)]),
        lambda: "AVG(%s)" % r.choice(["n", "d", "x", "m"]),
        lambda: "SUM(n) FILTER (WHERE %s)" % e.pred(1),
        lambda: "COUNT(*) FILTER (WHERE %s)" % e.pred(1),
    )


def tvf_of(r, table="t", col="ts"):
    size = r.choice([5, 10, 20])
    return r.choice([
        "TUMBLE(TABLE %s, DESCRIPTOR(%s), INTERVAL '%d' SECOND)" % (table, col, size),
        "HOP(TABLE %s, DESCRIPTOR(%s), INTERVAL '%d' SECOND, INTERVAL '%d' SECOND)" % (
            table, col, size, size * r.choice([2, 3])),
        "CUMULATE(TABLE %s, DESCRIPTOR(%s), INTERVAL '%d' SECOND, INTERVAL '%d' SECOND)" % (
            table, col, size, size * r.choice([2, 4])),
    ])


def query2(r, e, kind):
    """(sql, uses_u, changelog_none) of one case of a second-generation kind."""
    where = " WHERE %s" % e.pred() if r.random() < 0.5 else ""
    src = "(SELECT * FROM t%s)" % where if where else "t"
    if kind == "session":
        aggs = ", ".join("%s AS a%d" % (plain_agg(e), i) for i in range(r.randint(1, 3)))
        gap = r.choice([2, 3, 5, 10])
        if r.random() < 0.3:
            return ("SELECT SESSION_START(ts, INTERVAL '%d' SECOND) AS ws, "
                    "SESSION_END(ts, INTERVAL '%d' SECOND) AS we, k, %s FROM t%s "
                    "GROUP BY SESSION(ts, INTERVAL '%d' SECOND), k;"
                    % (gap, gap, aggs, where, gap)), False, False
        part = r.choice(["PARTITION BY k", "PARTITION BY k", ""])
        keys = ", k" if part else ""
        # TABLE takes a name, not a subquery: a filter goes into a view
        view = "CREATE TEMPORARY VIEW tw AS SELECT * FROM t%s;\n" % where if where else ""
        return ("%sSELECT window_start, window_end%s, %s FROM TABLE(SESSION(TABLE %s %s, "
                "DESCRIPTOR(ts), INTERVAL '%d' SECOND)) GROUP BY window_start, window_end%s;"
                % (view, keys, aggs, "tw" if where else "t", part, gap, keys)), False, False
    if kind == "window_topn":
        tvf = tvf_of(r)
        part = r.choice(["", ", k"])
        n = r.randint(1, 3)
        if r.random() < 0.5:
            order = r.choice(["n DESC", "d ASC", "x DESC", "s DESC", "ts ASC"])
            return ("SELECT window_start, window_end, id, k, n, rn FROM (SELECT *, ROW_NUMBER() "
                    "OVER (PARTITION BY window_start, window_end%s ORDER BY %s, id) AS rn "
                    "FROM TABLE(%s)%s) WHERE rn <= %d;" % (part, order, tvf, where, n)), \
                False, False
        agg = plain_agg(e)
        return ("SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, "
                "window_end ORDER BY a %s, k) AS rn FROM (SELECT window_start, window_end, k, "
                "%s AS a, COUNT(*) AS c FROM TABLE(%s)%s GROUP BY window_start, window_end, k)) "
                "WHERE rn <= %d;" % (r.choice(["DESC", "ASC"]), agg, tvf, where, n)), \
            False, False
    if kind == "window_dedup":
        tvf = tvf_of(r)
        part = r.choice(["", ", k", ", k"])
        order = r.choice(["ts ASC", "ts DESC"])
        return ("SELECT window_start, window_end, id, k, n, ts FROM (SELECT *, ROW_NUMBER() "
                "OVER (PARTITION BY window_start, window_end%s ORDER BY %s) AS rn "
                "FROM TABLE(%s)%s) WHERE rn = 1;" % (part, order, tvf, where)), False, False
    if kind == "window_join":
        size = r.choice([5, 10, 20])
        if r.random() < 0.3:
            lt = "TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '%d' SECOND)" % size
            rt = "TUMBLE(TABLE u, DESCRIPTOR(uts), INTERVAL '%d' SECOND)" % size
        else:
            slide = size * r.choice([2, 3])
            lt = "HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '%d' SECOND, INTERVAL '%d' SECOND)" % (
                size, slide)
            rt = "HOP(TABLE u, DESCRIPTOR(uts), INTERVAL '%d' SECOND, INTERVAL '%d' SECOND)" % (
                size, slide)
        key = r.choice(["k", "k", "n"])
        wcond = "L.window_start = R.window_start AND L.window_end = R.window_end"
        lsrc = "(SELECT * FROM TABLE(%s)%s) L" % (lt, where)
        rsrc = "(SELECT * FROM TABLE(%s)) R" % rt
        form = r.choice(["JOIN", "JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "IN", "EXISTS",
                         "NOT EXISTS"])
        if form in ("IN", "EXISTS", "NOT EXISTS"):
            if form == "IN":
                cond = "L.%s IN (SELECT R.%s FROM %s WHERE %s)" % (key, key, rsrc, wcond)
            else:
                cond = "%s (SELECT * FROM %s WHERE L.%s = R.%s AND %s)" % (form, rsrc, key, key,
                                                                         wcond)
            return ("SELECT L.window_start, L.window_end, L.id, L.k, L.n FROM %s WHERE %s;"
                    % (lsrc, cond)), True, False
        ws = "COALESCE(L.window_start, R.window_start) AS ws" if "FULL" in form or \
            "RIGHT" in form else "L.window_start AS ws"
        return ("SELECT %s, L.id, R.uid, L.k, R.v, L.n, R.n AS rn FROM %s %s %s ON L.%s = R.%s "
                "AND %s;" % (ws, lsrc, form, rsrc, key, key, wcond)), True, False
    if kind == "interval_join":
        lo, hi = r.choice([(2, 0), (5, 5), (10, 2), (0, 3), (3, 8)])
        bound = r.choice([
            "t.ts BETWEEN u.uts - INTERVAL '%d' SECOND AND u.uts + INTERVAL '%d' SECOND" % (lo, hi),
            "t.ts >= u.uts - INTERVAL '%d' SECOND AND t.ts < u.uts + INTERVAL '%d' SECOND" % (lo, hi),
            "u.uts BETWEEN t.ts - INTERVAL '%d' SECOND AND t.ts" % lo,
        ])
        key = r.choice(["t.k = u.k", "t.k = u.k", "t.n = u.n", "t.k = u.k AND t.n > u.n"])
        jt = r.choice(["JOIN", "JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
        cols = ", ".join(r.sample(["t.id", "u.uid", "t.k", "u.v", "t.n", "u.n AS un", "t.ts",
                                   "u.uts", "t.d"], r.randint(2, 5)))
        left = "(SELECT * FROM t%s) t" % where if where else "t"
        if r.random() < 0.2:
            return ("SELECT t.id, u.uid, t.ts, u.uts FROM %s, u WHERE %s AND %s;"
                    % (left, key, bound)), True, False
        return "SELECT %s FROM %s %s u ON %s AND %s;" % (cols, left, jt, key, bound), True, False
    if kind == "setop":
        op = r.choice(["UNION", "UNION", "INTERSECT", "EXCEPT", "INTERSECT ALL", "EXCEPT ALL",
                       "UNION ALL"])
        cols = r.choice([("k", "k"), ("k, MOD(n, 3)", "k, MOD(n, 3)"), ("s", "s"),
                         ("k, n", "k, n"), ("k", "u.k"), ("n", "u.n"), ("s, k", "u.s, u.k")])
        other = "u" if "u." in cols[1] else "t"
        right = "SELECT %s FROM %s WHERE %s" % (cols[1], other,
                                                e.pred() if other == "t" else
                                                r.choice(["u.v > 3", "u.n IS NOT NULL",
                                                          "u.k <> 'b'", "u.v < 8"]))
        sql = "SELECT %s FROM t WHERE %s %s %s;" % (cols[0], e.pred(), op, right)
        if r.random() < 0.3 and "(" not in cols[0]:
            # not COUNT(*) alone over INTERSECT / EXCEPT ALL: Flink 1.20.3 prunes their
            # columns then and counts equal empty rows (setops_count_except_all)
            if op in ("INTERSECT ALL", "EXCEPT ALL"):
                sql = "SELECT %s, COUNT(*) AS c FROM (%s) GROUP BY %s;" % (
                    cols[0], sql[:-1], cols[0])
            else:
                sql = "SELECT COUNT(*) AS c FROM (%s);" % sql[:-1]
        # INTERSECT / EXCEPT's changes depend on which input Flink reads first
        return sql, other == "u", op.startswith(("INTERSECT", "EXCEPT"))
    if kind == "grouping_sets":
        aggs = ", ".join("%s AS a%d" % (e.agg(), i) for i in range(r.randint(1, 3)))
        gs = r.choice(["GROUPING SETS ((k, nm), (k), ())", "ROLLUP (k, nm)", "CUBE (k, nm)",
                       "GROUPING SETS ((k), (nm))", "ROLLUP (k)", "CUBE (k, sn)",
                       "GROUPING SETS ((k, sn), (nm), ())"])
        g = r.choice(["", ", GROUPING(k) AS gk", ", GROUPING_ID(k, nm) AS gi"]) \
            if "nm" in gs else ""
        inner = "(SELECT *, MOD(n, 3) AS nm, s IS NULL AS sn FROM t%s)" % where
        if r.random() < 0.3:
            tvf = tvf_of(r, "t").replace("TABLE t", "TABLE %s" % "t")
            return ("SELECT window_start, window_end, k, %s FROM TABLE(%s)%s "
                    "GROUP BY window_start, window_end, %s;"
                    % (aggs, tvf, where, r.choice(["GROUPING SETS ((k), ())", "ROLLUP (k)",
                                                   "CUBE (k)"]))), False, False
        sel = ", ".join(c for c in ("k", "nm", "sn") if c in gs)
        return ("SELECT %s%s, %s FROM %s GROUP BY %s;" % (sel, g, aggs, inner, gs)), False, False
    if kind == "two_level":
        inner_agg = r.choice(["COUNT(*)", "SUM(n)", "MAX(n)", "MIN(d)", "COUNT(DISTINCT s)",
                              "SUM(d)"])
        outer = ", ".join(r.sample(["COUNT(*) AS c2", "SUM(a) AS sa", "MAX(a) AS ma",
                                    "MIN(a) AS mi", "COUNT(DISTINCT a) AS da", "AVG(a) AS va"],
                                   r.randint(1, 3)))
        if r.random() < 0.35:
            tvf = tvf_of(r)
            return ("SELECT k, %s FROM (SELECT window_start, window_end, k, %s AS a FROM "
                    "TABLE(%s)%s GROUP BY window_start, window_end, k) GROUP BY k;"
                    % (outer, inner_agg, tvf, where)), False, False
        key2 = r.choice(["a", "a IS NULL", "MOD(a, 2)" if inner_agg.startswith(("COUNT", "SUM(n",
                                                                               "MAX")) else "a"])
        return ("SELECT %s AS g, %s FROM (SELECT k, %s AS a FROM t%s GROUP BY k) GROUP BY %s;"
                % (key2, outer, inner_agg, where, key2)), False, False
    if kind == "topn_updating":
        agg = r.choice(["COUNT(*)", "SUM(n)", "MAX(n)", "MIN(d)", "SUM(d)", "COUNT(n)"])
        order = r.choice(["DESC", "ASC"])
        key = r.choice(["k", "s", "MOD(n, 4)"])
        part = r.choice(["", "PARTITION BY g IS NULL "])
        rn = r.choice(["rn, ", ""])
        return ("SELECT %sg, a FROM (SELECT g, a, ROW_NUMBER() OVER (%sORDER BY a %s, g) AS rn "
                "FROM (SELECT %s AS g, %s AS a FROM t%s GROUP BY %s)) WHERE rn <= %d;"
                % (rn, part, order, key, agg, where, key, r.randint(1, 3))), False, False
    if kind == "lag":
        fns = []
        for i in range(r.randint(1, 3)):
            fns.append(r.choice([
                # a default only over values that are never NULL: Flink 1.20.3 replaces a
                # NULL value by it (cases/over_lag_null_default.sql)
                "LAG(n)", "LAG(n, 2)", "LAG(id, 1, -1)", "LAG(s)", "LAG(d, %d)" % r.randint(1, 3),
                "LAG(ts)", "LAG(COALESCE(k, '-'), 1, 'none')", "SUM(n)", "COUNT(*)",
            ]) + " OVER w AS l%d" % i)
        part = r.choice(["PARTITION BY k ", ""])
        return ("SELECT id, k, n, %s FROM t%s WINDOW w AS (%sORDER BY ts);"
                % (", ".join(fns), where, part)), False, False
    if kind == "cascade":
        aggs = ", ".join("%s AS a%d" % (plain_agg(e), i) for i in range(r.randint(1, 2)))
        size = r.choice([5, 10])
        outer = r.choice([
            "TUMBLE(TABLE w1, DESCRIPTOR(rt), INTERVAL '%d' SECOND)" % (size * r.choice([2, 4])),
            "HOP(TABLE w1, DESCRIPTOR(rt), INTERVAL '%d' SECOND, INTERVAL '%d' SECOND)" % (
                size, size * 2),
        ])
        view = ("CREATE TEMPORARY VIEW w1 AS SELECT window_start AS ws1, window_end AS we1, "
                "window_time AS rt, k, %s, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE t, "
                "DESCRIPTOR(ts), INTERVAL '%d' SECOND))%s GROUP BY window_start, window_end, "
                "window_time, k;\n" % (aggs, size, where))
        okeys = r.choice(["", ", k"])
        return (view + "SELECT window_start, window_end%s, SUM(c) AS sc, MAX(a0) AS ma, "
                "COUNT(*) AS n1 FROM TABLE(%s) GROUP BY window_start, window_end%s;"
                % (okeys, outer, okeys)), False, False
    if kind == "legacy_window":
        aggs = ", ".join("%s AS a%d" % (plain_agg(e), i) for i in range(r.randint(1, 3)))
        size = r.choice([5, 10, 20])
        fn, args = r.choice([
            ("TUMBLE", "ts, INTERVAL '%d' SECOND" % size),
            ("HOP", "ts, INTERVAL '%d' SECOND, INTERVAL '%d' SECOND" % (size, size * 2)),
            ("SESSION", "ts, INTERVAL '%d' SECOND" % r.choice([2, 5]))])
        keys = r.choice(["", ", k", ", MOD(n, 2)"])
        having = " HAVING COUNT(*) > 1" if r.random() < 0.3 else ""
        return ("SELECT %s_START(%s) AS ws, %s_END(%s) AS we%s, %s FROM t%s GROUP BY %s(%s)%s%s;"
                % (fn, args, fn, args, keys, aggs, where, fn, args, keys, having)), False, False
    if kind == "multi_join":
        jt1 = r.choice(["JOIN", "JOIN", "LEFT JOIN"])
        jt2 = r.choice(["JOIN", "LEFT JOIN", "RIGHT JOIN"])
        left = "(SELECT * FROM t%s) t" % where if where else "t"
        if r.random() < 0.4:
            return ("SELECT a.k, COUNT(*) AS c, SUM(b.v) AS sv, MAX(t.n) AS mn FROM %s %s u a "
                    "ON t.k = a.k %s u b ON a.n = b.n GROUP BY a.k;" % (left, jt1, jt2)), \
                True, True
        return ("SELECT t.id, a.uid, b.uid AS uid2, t.k, b.v FROM %s %s u a ON t.k = a.k %s u b "
                "ON a.n = b.n%s;" % (left, jt1, jt2,
                                     r.choice(["", " AND t.n < b.v * 10"]))), True, True
    if kind == "window_having":
        aggs = ", ".join("%s AS a%d" % (e.agg(), i) for i in range(r.randint(1, 3)))
        tvf = tvf_of(r)
        keys = r.choice([", k", ", k", ", MOD(n, 2)", ""])
        sel_keys = keys.replace("MOD(n, 2)", "MOD(n, 2) AS nk")
        having = r.choice(["COUNT(*) > 1", "SUM(n) > 20", "MAX(d) IS NOT NULL",
                           "COUNT(DISTINCT s) >= 2", "MIN(x) < 0"])
        return ("SELECT window_start, window_end%s, %s FROM TABLE(%s)%s GROUP BY window_start, "
                "window_end%s HAVING %s;" % (sel_keys, aggs, tvf, where, keys, having)), \
            False, False
    # subquery
    form = r.choice(["IN", "NOT IN", "EXISTS", "NOT EXISTS", "IN2", "SCALAR"])
    upred = r.choice(["", " WHERE u.v > 4", " WHERE u.n IS NOT NULL", " WHERE u.k <> 'a'"])
    if form == "IN":
        cond = "t.%s IN (SELECT u.%s FROM u%s)" % ((r.choice("kns"),) * 2 + (upred,))
    elif form == "NOT IN":
        c = r.choice("kn")
        cond = "t.%s NOT IN (SELECT u.%s FROM u%s)" % (c, c, upred or " WHERE u.%s IS NOT NULL"
                                                      % c)
    elif form == "IN2":
        cond = "t.k IN (SELECT u.k FROM u WHERE u.n = t.n)"
    elif form == "SCALAR":
        cond = "t.n > (SELECT %s FROM u%s)" % (r.choice(["AVG(u.n)", "MIN(u.v)", "MAX(u.n)"]),
                                              upred)
    else:
        corr = r.choice(["u.k = t.k", "u.k = t.k AND u.n < t.n", "u.n = t.n", "u.s = t.s"])
        cond = "%s (SELECT 1 FROM u WHERE %s)" % (form, corr)
    extra = " AND %s" % e.pred() if r.random() < 0.4 else ""
    return "SELECT t.id, t.k, t.n FROM t WHERE %s%s;" % (cond, extra), True, True


def write_data(out, name, rows, r):
    """Writes t's rows as JSON or CSV; returns the WITH options of t."""
    csv = r.random() < 0.25
    if csv:
        path = os.path.join(out, name + ".csv")
        cols = ["id", "k", "n", "m", "d", "x", "s", "ts"]
        with open(path, "w", encoding="utf-8") as f:
            for row in rows:
                vals = []
                for c in cols:
                    v = row[c]
                    if v is None:
                        vals.append("NULL")
                    elif c == "s" or c == "k":
                        vals.append('"%s"' % v)
                    elif c == "d":
                        vals.append("%.2f" % v)
                    else:
                        vals.append(str(v))
                f.write(",".join(vals) + "\n")
        return ("'connector' = 'filesystem', 'path' = '$DATA/%s.csv', 'format' = 'csv', "
                "'csv.null-literal' = 'NULL'" % name)
    path = os.path.join(out, name + ".jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return "'connector' = 'filesystem', 'path' = '$DATA/%s.jsonl', 'format' = 'json'" % name


def main2(out, seed, count):
    for i in range(count):
        r = random.Random("gen2/%d/%d" % (seed, i))
        e = Exprs(r)
        name = "gen2_%d_%03d" % (seed, i)
        kind = KINDS2[r.randrange(len(KINDS2))]
        rows = gen_rows(r)
        opts = write_data(out, name, rows, r)
        q, uses_u, cl_none = query2(r, e, kind)
        with open(os.path.join(out, name + ".sql"), "w", encoding="utf-8") as f:
            f.write("-- generated by tests/flink/gen.py, seed %d, second generation, case %d (%s)\n"
                    % (seed, i, kind))
            if cl_none:
                f.write("-- changelog: none\n")
            f.write(SCHEMA % opts)
            if uses_u:
                first = min(int(_parse_ms(row["ts"])) for row in rows)
                urows = gen_urows(r, first)
                with open(os.path.join(out, name + "_u.jsonl"), "w", encoding="utf-8") as f2:
                    for row in urows:
                        f2.write(json.dumps(row, ensure_ascii=False) + "\n")
                f.write(U_SCHEMA % name)
            f.write(q + "\n")


def _parse_ms(text):
    import datetime
    t = datetime.datetime.strptime(text[:19], "%Y-%m-%d %H:%M:%S").replace(
        tzinfo=datetime.timezone.utc)
    frac = text[20:] if len(text) > 19 else ""
    return int(t.timestamp()) * 1000 + (int((frac + "000")[:3]) if frac else 0)


def main():
    out, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    count2 = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    os.makedirs(out, exist_ok=True)
    r = random.Random(seed)
    e = Exprs(r)
    for i in range(count):
        name = "gen_%d_%03d" % (seed, i)
        rows = gen_rows(r)
        csv = r.random() < 0.25
        if csv:
            path = os.path.join(out, name + ".csv")
            cols = ["id", "k", "n", "m", "d", "x", "s", "ts"]
            with open(path, "w", encoding="utf-8") as f:
                for row in rows:
                    vals = []
                    for c in cols:
                        v = row[c]
                        if v is None:
                            vals.append("NULL")
                        elif c == "s" or c == "k":
                            vals.append('"%s"' % v)
                        elif c == "d":
                            vals.append("%.2f" % v)
                        else:
                            vals.append(str(v))
                    f.write(",".join(vals) + "\n")
            opts = ("'connector' = 'filesystem', 'path' = '$DATA/%s.csv', 'format' = 'csv', "
                    "'csv.null-literal' = 'NULL'" % name)
        else:
            path = os.path.join(out, name + ".jsonl")
            with open(path, "w", encoding="utf-8") as f:
                for row in rows:
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")
            opts = "'connector' = 'filesystem', 'path' = '$DATA/%s.jsonl', 'format' = 'json'" % name
        kind, q = query(r, e)
        with open(os.path.join(out, name + ".sql"), "w", encoding="utf-8") as f:
            f.write("-- generated by tests/flink/gen.py, seed %d, case %d (%s)\n" % (seed, i, kind))
            if kind in ("join",):
                f.write("-- changelog: none\n")
            if kind == "dedup" and "ts ASC" in q:
                # sluice emits a key's first row once the watermark passes it; Flink at
                # once, with -U/+U when an earlier row arrives (dedup_keep_first_out_of_order)
                f.write("-- changelog: none\n")
            f.write(SCHEMA % opts)
            if kind == "join":
                urows = [{"uid": 100 + j, "k": r.choice(["a", "b", "c", "e", None]),
                          "n": None if r.random() < 0.15 else r.randint(-5, 30),
                          "v": r.randint(1, 9), "s": r.choice(STRINGS + [None])}
                         for j in range(r.randint(3, 12))]
                with open(os.path.join(out, name + "_u.jsonl"), "w", encoding="utf-8") as f2:
                    for row in urows:
                        f2.write(json.dumps(row, ensure_ascii=False) + "\n")
                f.write("CREATE TABLE u (uid INT, k STRING, n INT, v INT, s STRING) WITH ("
                        "'connector' = 'filesystem', 'path' = '$DATA/%s_u.jsonl', "
                        "'format' = 'json');\n" % name)
            f.write(q + "\n")
    main2(out, seed, count2)


if __name__ == "__main__":
    main()
