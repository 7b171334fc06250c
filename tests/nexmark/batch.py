#!/usr/bin/env python3
"""batch.py - the batch answers of Flink's Nexmark queries, to check
sluice's streaming answers (tests/nexmark/check.sh, docs/nexmark.md
"Correctness").

Usage:
  batch.py load EVENTS_DIR DB_FILE      loads the events into a database
                                         file (DB_FILE ends in .db), which
                                         the other commands take in place of
                                         EVENTS_DIR
  batch.py answer EVENTS_DIR QUERY      prints the batch answer of QUERY
  batch.py compare EVENTS_DIR QUERY [LABEL=]OUT...
                                         prints each streaming answer's
                                         differences (the batch answer is
                                         computed once for all: one per
                                         parallelism in check.sh, each line
                                         starting with its LABEL); exits 1
                                         if any

EVENTS_DIR holds the JSON lines sluice's filesystem sink wrote of the wide
table (event_type, person, auction, bid), in any order.  The events are
loaded into sqlite3 (person, auction and bid tables, times as epoch
milliseconds) and each query is answered by the SQL of BATCH below, written
from Flink's query text in bench/nexmark/queries/ (the same columns in the
same positions, window assignment by arithmetic on the milliseconds, Flink's
functions registered as Python functions).  q11's sessions are merged in
Python.  OUT is the directory of the query's sink: debezium-json files (the
changelog is applied to a multiset, so updating queries are compared by
their final state), or for q10 its partitioned CSV directories.

Values are compared after normalisation: numbers as floats rounded to 6
places (DECIMAL(23, 3) and BIGINT alike), timestamps ('yyyy-MM-dd
HH:mm:ss[.SSS]') as epoch milliseconds.  Where a query's answer is not
unique (q19's ties on price at rank 10), the compared columns are those
every valid answer agrees on (PROJECT below).
"""
import collections
import csv
import datetime
import glob
import json
import os
import re
import sqlite3
import sys

TS_RE = re.compile(r"^\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?$")
EPOCH = datetime.datetime(1970, 1, 1)


def ts_ms(s):
    if s is None:
        return None
    s = s.replace("T", " ")
    fmt = "%Y-%m-%d %H:%M:%S.%f" if "." in s else "%Y-%m-%d %H:%M:%S"
    d = datetime.datetime.strptime(s, fmt)
    return (d - EPOCH) // datetime.timedelta(milliseconds=1)


def ms_fmt(ms, fmt):
    d = EPOCH + datetime.timedelta(milliseconds=ms)
    return d.strftime(fmt)


def date_format(ms, pattern):
    # the Java patterns the queries use
    py = pattern.replace("yyyy", "%Y").replace("MM", "%m").replace("dd", "%d") \
        .replace("HH", "%H").replace("mm", "%M").replace("ss", "%S")
    return None if ms is None else ms_fmt(ms, py)


def regexp_extract(s, pattern, group):
    if s is None:
        return None
    m = re.search(pattern, s)
    if not m:
        return None
    return m.group(group)


def split_index(s, sep, i):
    if s is None:
        return None
    parts = s.split(sep)
    return parts[i] if 0 <= i < len(parts) else None


def count_char(s, c):
    return 0 if s is None else s.count(c[0])


def hour(ms):
    return (EPOCH + datetime.timedelta(milliseconds=ms)).hour


def functions(db):
    db.create_function("date_format", 2, date_format, deterministic=True)
    db.create_function("regexp_extract", 3, regexp_extract, deterministic=True)
    db.create_function("split_index", 3, split_index, deterministic=True)
    db.create_function("count_char", 2, count_char, deterministic=True)
    db.create_function("hour", 1, hour, deterministic=True)
    return db


def load(events_dir, path=":memory:"):
    """The events of events_dir in sqlite3 (path: a database file to write,
    or memory); a path ending in .db is an already loaded database."""
    if events_dir.endswith(".db"):
        return functions(sqlite3.connect(events_dir))
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE person (id, name, emailAddress, creditCard, city, state, "
               "dateTime, extra)")
    db.execute("CREATE TABLE auction (id, itemName, description, initialBid, reserve, "
               "dateTime, expires, seller, category, extra)")
    db.execute("CREATE TABLE bid (auction, bidder, price, channel, url, dateTime, extra)")
    rows = {0: [], 1: [], 2: []}
    for f in sorted(glob.glob(os.path.join(events_dir, "*"))):
        with open(f) as fh:
            for line in fh:
                e = json.loads(line)
                t = e["event_type"]
                if t == 0:
                    p = e["person"]
                    rows[0].append((p["id"], p["name"], p["emailAddress"], p["creditCard"],
                                    p["city"], p["state"], ts_ms(p["dateTime"]), p["extra"]))
                elif t == 1:
                    a = e["auction"]
                    rows[1].append((a["id"], a["itemName"], a["description"], a["initialBid"],
                                    a["reserve"], ts_ms(a["dateTime"]), ts_ms(a["expires"]),
                                    a["seller"], a["category"], a["extra"]))
                else:
                    b = e["bid"]
                    rows[2].append((b["auction"], b["bidder"], b["price"], b["channel"],
                                    b["url"], ts_ms(b["dateTime"]), b["extra"]))
    db.executemany("INSERT INTO person VALUES (?,?,?,?,?,?,?,?)", rows[0])
    db.executemany("INSERT INTO auction VALUES (?,?,?,?,?,?,?,?,?,?)", rows[1])
    db.executemany("INSERT INTO bid VALUES (?,?,?,?,?,?,?)", rows[2])
    db.execute("CREATE INDEX bid_auction ON bid (auction)")
    db.execute("CREATE INDEX auction_id ON auction (id)")
    db.commit()
    return functions(db)


# the windows of a HOP of size s and slide d containing t: starts
# floor(t / d) * d - k * d for k in 0 .. s / d - 1
HOP = """
WITH k(k) AS (VALUES (0), (1), (2), (3), (4)),
hb AS (SELECT b.*, (b.dateTime / 2000) * 2000 - k.k * 2000 AS ws FROM bid b, k
       WHERE b.dateTime < (b.dateTime / 2000) * 2000 - k.k * 2000 + 10000),
cnt AS (SELECT auction, COUNT(*) AS num, ws FROM hb GROUP BY auction, ws)
"""

BATCH = {
    "q0": "SELECT auction, bidder, price, dateTime, extra FROM bid",
    "q1": "SELECT auction, bidder, 0.908 * price, dateTime, extra FROM bid",
    "q2": "SELECT auction, price FROM bid WHERE auction % 123 = 0",
    "q3": """SELECT P.name, P.city, P.state, A.id FROM auction A JOIN person P
             ON A.seller = P.id
             WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')""",
    # AVG of a BIGINT is a BIGINT (the sum divided by the count, truncated)
    "q4": """SELECT category, SUM(final) / COUNT(final) FROM (
               SELECT MAX(B.price) AS final, A.category FROM auction A, bid B
               WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
               GROUP BY A.id, A.category) GROUP BY category""",
    "q5": HOP + """SELECT c.auction, c.num FROM cnt c
             JOIN (SELECT MAX(num) AS maxn, ws FROM cnt GROUP BY ws) m
             ON c.ws = m.ws AND c.num >= m.maxn""",
    # the sink's columns are (auction, bidder, price, ...) and the query
    # writes B.price into bidder and B.bidder into price, by position
    # q6 as bench/nexmark/queries/q6_sluice.sql (the published text made
    # valid SQL): the final state of its OVER over the Top-1's updating
    # output is the window function over the final winners (ties on price:
    # the earlier bid wins, as the Top-1 keeps arrival order); AVG of a
    # BIGINT truncates
    "q6_sluice": """SELECT CAST(seller AS TEXT), SUM(price) OVER w / COUNT(price) OVER w FROM (
               SELECT A.id, A.seller, B.price, B.dateTime AS dt,
                      ROW_NUMBER() OVER (PARTITION BY A.id, A.seller
                                         ORDER BY B.price DESC, B.dateTime ASC) AS rn
               FROM auction A, bid B
               WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires)
             WHERE rn <= 1
             WINDOW w AS (PARTITION BY seller ORDER BY dt ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)""",
    "q7": """SELECT B.auction, B.price, B.bidder, B.dateTime, B.extra FROM bid B
             JOIN (SELECT MAX(price) AS maxprice, (dateTime / 10000) * 10000 + 10000 AS we
                   FROM bid GROUP BY (dateTime / 10000)) B1
             ON B.price = B1.maxprice
             WHERE B.dateTime BETWEEN B1.we - 10000 AND B1.we""",
    "q8": """SELECT P.id, P.name, P.ws FROM
             (SELECT DISTINCT id, name, (dateTime / 10000) * 10000 AS ws FROM person) P
             JOIN (SELECT DISTINCT seller, (dateTime / 10000) * 10000 AS ws FROM auction) A
             ON P.id = A.seller AND P.ws = A.ws""",
    "q9": """SELECT id, itemName, description, initialBid, reserve, adt, expires, seller,
                    category, aextra, auction, bidder, price, bdt, bextra FROM (
               SELECT A.id, A.itemName, A.description, A.initialBid, A.reserve,
                      A.dateTime AS adt, A.expires, A.seller, A.category, A.extra AS aextra,
                      B.auction, B.bidder, B.price, B.dateTime AS bdt, B.extra AS bextra,
                      ROW_NUMBER() OVER (PARTITION BY A.id
                                         ORDER BY B.price DESC, B.dateTime ASC) AS rn
               FROM auction A, bid B
               WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires)
             WHERE rn <= 1""",
    # q10: the rows of the files (partition columns are the directories)
    "q10": """SELECT auction, bidder, price, dateTime, extra,
                     'dt=' || date_format(dateTime, 'yyyy-MM-dd'),
                     'hm=' || date_format(dateTime, 'HH:mm') FROM bid""",
    "q13": "SELECT auction, bidder, price, dateTime, CAST(auction % 10000 AS TEXT) FROM bid",
    "q14": """SELECT auction, bidder, 0.908 * price,
                CASE WHEN hour(dateTime) >= 8 AND hour(dateTime) <= 18 THEN 'dayTime'
                     WHEN hour(dateTime) <= 6 OR hour(dateTime) >= 20 THEN 'nightTime'
                     ELSE 'otherTime' END,
                dateTime, extra, count_char(extra, 'c')
              FROM bid WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000""",
    "q15": """SELECT date_format(dateTime, 'yyyy-MM-dd'), count(*),
       count(*) filter (where price < 10000),
       count(*) filter (where price >= 10000 and price < 1000000),
       count(*) filter (where price >= 1000000),
       count(distinct bidder),
       count(distinct bidder) filter (where price < 10000),
       count(distinct bidder) filter (where price >= 10000 and price < 1000000),
       count(distinct bidder) filter (where price >= 1000000),
       count(distinct auction),
       count(distinct auction) filter (where price < 10000),
       count(distinct auction) filter (where price >= 10000 and price < 1000000),
       count(distinct auction) filter (where price >= 1000000)
       FROM bid GROUP BY date_format(dateTime, 'yyyy-MM-dd')""",
    "q16": """SELECT channel, date_format(dateTime, 'yyyy-MM-dd'),
       max(date_format(dateTime, 'HH:mm')), count(*),
       count(*) filter (where price < 10000),
       count(*) filter (where price >= 10000 and price < 1000000),
       count(*) filter (where price >= 1000000),
       count(distinct bidder),
       count(distinct bidder) filter (where price < 10000),
       count(distinct bidder) filter (where price >= 10000 and price < 1000000),
       count(distinct bidder) filter (where price >= 1000000),
       count(distinct auction),
       count(distinct auction) filter (where price < 10000),
       count(distinct auction) filter (where price >= 10000 and price < 1000000),
       count(distinct auction) filter (where price >= 1000000)
       FROM bid GROUP BY channel, date_format(dateTime, 'yyyy-MM-dd')""",
    "q17": """SELECT auction, date_format(dateTime, 'yyyy-MM-dd'), count(*),
       count(*) filter (where price < 10000),
       count(*) filter (where price >= 10000 and price < 1000000),
       count(*) filter (where price >= 1000000),
       min(price), max(price), sum(price) / count(price), sum(price)
       FROM bid GROUP BY auction, date_format(dateTime, 'yyyy-MM-dd')""",
    "q18": """SELECT auction, bidder, price, channel, url, dateTime, extra FROM (
       SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY dateTime DESC) AS rn
       FROM bid) WHERE rn <= 1""",
    "q19": """SELECT * FROM (
       SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rn FROM bid)
       WHERE rn <= 10""",
    "q20": """SELECT B.auction, B.bidder, B.price, B.channel, B.url, B.dateTime, B.extra,
       A.itemName, A.description, A.initialBid, A.reserve, A.dateTime, A.expires, A.seller,
       A.category, A.extra FROM bid B JOIN auction A ON B.auction = A.id
       WHERE A.category = 10""",
    "q21": """SELECT auction, bidder, price, channel,
       CASE WHEN lower(channel) = 'apple' THEN '0'
            WHEN lower(channel) = 'google' THEN '1'
            WHEN lower(channel) = 'facebook' THEN '2'
            WHEN lower(channel) = 'baidu' THEN '3'
            ELSE regexp_extract(url, '(&|^)channel_id=([^&]*)', 2) END
       FROM bid WHERE regexp_extract(url, '(&|^)channel_id=([^&]*)', 2) IS NOT NULL
          OR lower(channel) IN ('apple', 'google', 'facebook', 'baidu')""",
    "q22": """SELECT auction, bidder, price, channel, split_index(url, '/', 3),
       split_index(url, '/', 4), split_index(url, '/', 5) FROM bid""",
}

# the columns compared, where the answer is not unique: q19's rows tied on
# price at rank 10 (and their rank numbers among the tied) may be any of them
PROJECT = {"q19": (0, 2, 7)}


def q11(db):
    """Session windows of 10 s per bidder: a bid within 10 s of the
    session's last one extends it; end = last + 10 s."""
    out = []
    cur = db.execute("SELECT bidder, dateTime FROM bid ORDER BY bidder, dateTime")
    last_bidder, start, last, n = None, None, None, 0
    for bidder, t in cur:
        if bidder == last_bidder and t < last + 10000:
            last, n = t, n + 1
            continue
        if last_bidder is not None:
            out.append((last_bidder, n, start, last + 10000))
        last_bidder, start, last, n = bidder, t, t, 1
    if last_bidder is not None:
        out.append((last_bidder, n, start, last + 10000))
    return out


def norm_value(v):
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return round(float(v), 6)
    if isinstance(v, str) and TS_RE.match(v):
        return round(float(ts_ms(v)), 6)
    return v


def norm(row, q):
    row = tuple(norm_value(v) for v in row)
    if q in PROJECT:
        row = tuple(row[i] for i in PROJECT[q])
    return row


def answer(db, q):
    rows = q11(db) if q == "q11" else db.execute(BATCH[q]).fetchall()
    return collections.Counter(norm(r, q) for r in rows)


def stream_debezium(out_dir, q):
    c = collections.Counter()
    files = sorted(f for f in glob.glob(os.path.join(out_dir, "**", "*"), recursive=True)
                   if os.path.isfile(f) and not os.path.basename(f).startswith(("_", ".")))
    for f in files:
        with open(f) as fh:
            for line in fh:
                e = json.loads(line)
                if e.get("before") is not None:
                    c[norm(tuple(e["before"].values()), q)] -= 1
                if e.get("after") is not None:
                    c[norm(tuple(e["after"].values()), q)] += 1
    bad = {k: v for k, v in c.items() if v < 0}
    if bad:
        raise SystemExit("%s: the changelog retracts rows it never inserted: %s"
                         % (q, list(bad.items())[:3]))
    return +c


def stream_q10(out_dir):
    c = collections.Counter()
    for f in glob.glob(os.path.join(out_dir, "**", "*"), recursive=True):
        base = os.path.basename(f)
        if not os.path.isfile(f) or base.startswith(("_", ".")):
            continue
        parts = os.path.relpath(f, out_dir).split(os.sep)
        dt, hm = parts[-3], parts[-2]
        with open(f, newline="") as fh:
            for r in csv.reader(fh):
                vals = [None if v == "" else v for v in r]
                for i in (0, 1, 2):
                    vals[i] = int(vals[i])
                c[norm(tuple(vals) + (dt, hm.replace("%3A", ":")), "q10")] += 1
    return c


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    cmd, events, q = sys.argv[1:4]
    if cmd == "load":  # batch.py load EVENTS_DIR DB_FILE
        load(events, q).close()
        return
    db = load(events)
    want = answer(db, q)
    if cmd == "answer":
        for r in sorted(want.elements(), key=repr):
            print(r)
        return
    if cmd != "compare" or len(sys.argv) < 5:
        raise SystemExit(__doc__)
    bad = 0
    for arg in sys.argv[4:]:
        head = arg.split("/", 1)[0]  # LABEL= before the path (LABEL may hold '=')
        label, out = (arg[:head.rindex("=")], arg[head.rindex("=") + 1:]) if "=" in head else ("", arg)
        bad |= compare(want, q, out, label + " " if label else "")
    sys.exit(bad)


def compare(want, q, out, label):
    """Prints how the streaming answer in OUT compares with WANT; 1 if not equal."""
    got = stream_q10(out) if q == "q10" else stream_debezium(out, q)
    if got == want:
        print("%s%s: %d rows equal the batch answer" % (label, q, sum(want.values())))
        return 0
    missing, extra = want - got, got - want
    print("%s%s: FAIL: %d rows, batch %d; %d missing, %d extra" %
          (label, q, sum(got.values()), sum(want.values()), sum(missing.values()),
           sum(extra.values())))
    for r in list(missing.elements())[:5]:
        print("  missing", r)
    for r in list(extra.elements())[:5]:
        print("  extra  ", r)
    return 1


if __name__ == "__main__":
    main()
