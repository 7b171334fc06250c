#!/usr/bin/env python3
"""flink_check.py - Apache Flink 1.20 as a second oracle for Nexmark's
answers (docs/nexmark.md, "Correctness"): checks that tests/nexmark/
batch.py's sqlite3 SQL answers each query as Flink itself does.

Usage: flink_check.py BUILD EVENTS_DIR WORK QUERY...

EVENTS_DIR holds the events tests/nexmark/check.sh dumps (JSON lines of the
wide table); BUILD has Flink's class path and tests/flink's FlinkOracle
(scripts/flink-setup.sh BUILD).  For each query a Flink script declares the
same wide table over the file (filesystem source, json format, Flink's
computed dateTime and 4-second watermark), bench/nexmark/ddl_views.sql's
views, and the query's SELECT (its INSERT's body); FlinkOracle runs them in
one JVM (streaming mode, parallelism 1) and prints each changelog, which is
applied to a multiset and compared with batch.py's answer.  Values are
compared as text normalised the same way on both sides (numbers and
timestamps as numbers).  Exits 1 on a difference.
"""
import collections
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import batch  # noqa: E402

WIDE = """CREATE TABLE datagen (
    event_type INT,
    person ROW<id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR,
               city VARCHAR, state VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR>,
    auction ROW<id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT,
                reserve BIGINT, `dateTime` TIMESTAMP(3), expires TIMESTAMP(3),
                seller BIGINT, category BIGINT, extra VARCHAR>,
    bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
            `dateTime` TIMESTAMP(3), extra VARCHAR>,
    `dateTime` AS CASE WHEN event_type = 0 THEN person.`dateTime`
                       WHEN event_type = 1 THEN auction.`dateTime`
                       ELSE bid.`dateTime` END,
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
"""

NUM_RE = re.compile(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$")


def norm_text(v):
    if v is None or v == "null":
        return None
    s = str(v)
    if NUM_RE.match(s):
        return round(float(s), 6)
    if batch.TS_RE.match(s):
        return round(float(batch.ts_ms(s)), 6)
    return s


def select_of(q):
    text = open(os.path.join(ROOT, "bench", "nexmark", "queries", q + ".sql")).read()
    text = "\n".join(l for l in text.splitlines() if not l.strip().startswith("--"))
    m = re.search(r"INSERT INTO nexmark_%s\s+(.*?);?\s*$" % q, text, re.S)
    return m.group(1).rstrip().rstrip(";")


def parse_row(line):
    m = re.match(r"^([+-][IUD])\[(.*)\]$", line)
    if not m:
        return None, None
    return m.group(1), tuple(norm_text(v) for v in m.group(2).split(", "))


def main():
    if len(sys.argv) < 5:
        raise SystemExit(__doc__)
    build, events, work = sys.argv[1:4]
    queries = sys.argv[4:]
    os.makedirs(work, exist_ok=True)
    views = open(os.path.join(ROOT, "bench", "nexmark", "ddl_views.sql")).read() \
        .replace("${NEXMARK_TABLE}", "datagen")
    scripts = []
    for q in queries:
        path = os.path.join(work, q + ".sql")
        with open(path, "w") as f:
            f.write(WIDE % os.path.abspath(events) + views + "\n" + select_of(q) + ";\n")
        scripts.append(path)
    cp = os.path.join(build, "flink", "classes") + ":" + \
        open(os.path.join(build, "flink", "classpath.txt")).read().strip()
    out = os.path.join(work, "flink")
    with open(os.path.join(work, "flink.log"), "w") as log:
        subprocess.run(["java", "-Xmx1g", "-Doracle.timeout=300", "-cp", cp,
                        "sluice.FlinkOracle", out] + scripts,
                       stdout=log, stderr=subprocess.STDOUT, check=False)
    db = batch.load(events)
    fail = 0
    for q in queries:
        err = open(os.path.join(out, q + ".err")).read() if \
            os.path.exists(os.path.join(out, q + ".err")) else "did not run"
        if err.strip():
            print("%s: Flink failed: %s" % (q, err.strip().splitlines()[0]))
            fail = 1
            continue
        got = collections.Counter()
        for line in open(os.path.join(out, q + ".out")):
            kind, row = parse_row(line.rstrip("\n"))
            if kind is None:
                continue
            got[row] += 1 if kind in ("+I", "+U") else -1
        rows = batch.q11(db) if q == "q11" else db.execute(batch.BATCH[q]).fetchall()
        want = collections.Counter(tuple(norm_text(v) for v in r) for r in rows)
        got = +got
        if q in batch.PROJECT:
            got = collections.Counter({tuple(k[i] for i in batch.PROJECT[q]): 0
                                       for k in got}) + collections.Counter(
                tuple(k[i] for i in batch.PROJECT[q]) for k in got.elements())
            want = collections.Counter(tuple(k[i] for i in batch.PROJECT[q])
                                       for k in want.elements())
        if got == want:
            print("%s: Flink's %d rows equal the batch answer" % (q, sum(want.values())))
            continue
        fail = 1
        missing, extra = want - got, got - want
        print("%s: FAIL: Flink %d rows, batch %d" % (q, sum(got.values()), sum(want.values())))
        for r in list(missing.elements())[:3]:
            print("  batch only", r)
        for r in list(extra.elements())[:3]:
            print("  Flink only", r)
    sys.exit(fail)


if __name__ == "__main__":
    main()
