#!/usr/bin/env python3
"""gen.py N SEED - the input of tests/integration/parquet.sh: N JSON lines
holding every sluice type Parquet stores (the columns of ALL_TYPES in the
test), about one value in eight NULL, the extremes of each type among them,
strings from a small set (so dictionaries are used) and unique ones (so
they are not always), nested ROW values with NULL fields.  Deterministic."""
import base64, json, random, sys

n, seed = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(seed)
WORDS = ["alpha", "beta", "gamma", "δέλτα", "", "x" * 40, "comma,quote\"", "tab\tnl"]

def maybe(v):
    return None if rnd.random() < 0.125 else v

def dec(p, s):
    digits = rnd.randint(1, p)
    v = rnd.randint(0, 10 ** digits - 1) * rnd.choice([1, -1])
    t = str(abs(v)).rjust(s + 1, "0")
    txt = ("-" if v < 0 else "") + (t[:-s] + "." + t[-s:] if s else t)
    return txt

def ts(lo, hi, frac):
    us = rnd.randint(lo, hi)
    if frac == 3:
        us -= us % 1000
    sec, u = divmod(us, 1000000)
    import datetime
    d = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=sec, microseconds=u)
    txt = d.strftime("%Y-%m-%d %H:%M:%S")
    if u:
        txt += ("." + ("%06d" % u)).rstrip("0")
    return txt

EDGE = [
    {"b": True, "t": 127, "s": 32767, "i": 2147483647, "l": 9223372036854775807,
     "f": 3.5, "d": 1e300, "d1": "999.99", "d2": "999999999999.999",
     "d3": "99999999999999999999999999.9999", "str": "héllo", "bt": "AAEC/w==",
     "dt": "9999-12-31", "tm": "23:59:59.999", "ts": "2262-04-11 23:47:16.854",
     "ts6": "2262-04-11 23:47:16.854775", "ltz": "2262-04-11 23:47:16.854Z",
     "r": {"a": 2147483647, "b": "z"}},
    {"b": False, "t": -128, "s": -32768, "i": -2147483648, "l": -9223372036854775808,
     "f": -0.25, "d": -2.5e-300, "d1": "-999.99", "d2": "-999999999999.999",
     "d3": "-99999999999999999999999999.9999", "str": "", "bt": "",
     "dt": "1677-09-22", "tm": "00:00:00", "ts": "1677-09-22 00:12:44",
     "ts6": "1969-12-31 23:59:59.999999", "ltz": "1900-01-01 00:00:00Z",
     "r": {"a": None, "b": None}},
]

for k in range(n):
    if k < len(EDGE):
        print(json.dumps(EDGE[k], ensure_ascii=False))
        continue
    us_lo, us_hi = -2208988800 * 10**6, 4102444800 * 10**6
    row = {
        "b": maybe(rnd.random() < 0.5),
        "t": maybe(rnd.randint(-128, 127)),
        "s": maybe(rnd.randint(-32768, 32767)),
        "i": maybe(rnd.choice([rnd.randint(-2**31, 2**31 - 1), rnd.randint(0, 50)])),
        "l": maybe(rnd.choice([rnd.randint(-2**63, 2**63 - 1), rnd.randint(0, 1000)])),
        "f": maybe(rnd.randint(-4096, 4096) / 16.0),
        "d": maybe(rnd.choice([rnd.randint(-10**6, 10**6) / 64.0, rnd.random()])),
        "d1": maybe(dec(5, 2)),
        "d2": maybe(dec(15, 3)),
        "d3": maybe(dec(30, 4)),
        "str": maybe(rnd.choice(WORDS) if rnd.random() < 0.7 else "u%d-%x" % (k, rnd.getrandbits(40))),
        "bt": maybe(base64.b64encode(bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 12)))).decode()),
        "dt": maybe(ts(us_lo, us_hi, 3)[:10]),
        "tm": maybe(ts(0, 86399999999, 3)[11:]),
        "ts": maybe(ts(us_lo, us_hi, 3)),
        "ts6": maybe(ts(us_lo, us_hi, 6)),
        "ltz": maybe(ts(us_lo, us_hi, 3) + "Z"),
        "r": maybe({"a": maybe(rnd.randint(-1000, 1000)), "b": maybe(rnd.choice(WORDS))}),
    }
    print(json.dumps(row, ensure_ascii=False))
