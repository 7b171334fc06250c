#!/usr/bin/env python3
"""nexmark_ref.py - an independent implementation of the Nexmark event
specification of docs/nexmark.md ("Events", "Random draws", "Strings"),
written from the text of that note and not from src/connector/conn_nexmark*.c,
to check the C generator's first events value by value.

Usage: nexmark_ref.py check FILE N [RATE]
  FILE holds the events sluice wrote as JSON lines (event_type, person,
  auction, bid; a filesystem sink of the wide table with the default seed and
  base time) in event order; checks that they are exactly events 0..N-1 at
  RATE events per second (default 1000).  Exits 1 with the first difference.
"""
import json
import math
import sys

M64 = (1 << 64) - 1
SEED = 0x6E65786D61726B31
BASE_MS = 1767225600000  # 2026-01-01 00:00:00 UTC
P, A, B = 1, 3, 46
TOT = P + A + B
TEXT_POOL = 1 << 16
EXTRA_POOL = 1 << 20


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


class Rng:
    def __init__(self, e):
        self.x = mix64(SEED ^ mix64(e & M64))

    def next(self):
        self.x = (self.x + 0x9E3779B97F4A7C15) & M64
        return mix64(self.x)

    def int(self, n):  # [0, n), n < 2^32: high 32 bits times n, >> 32
        return ((self.next() >> 32) * n) >> 32

    def long(self, n):  # [0, n): the 64-bit draw times n, >> 64
        return (self.next() * n) >> 64

    def unit(self):
        return (self.next() >> 11) * 2.0 ** -53


def trunc_div(a, b):
    q = abs(a) // b
    return q if a >= 0 else -q


def build_pools():
    r = Rng(-3)
    text = []
    for _ in range(TEXT_POOL):
        text.append(' ' if r.int(13) == 0 else chr(ord('a') + r.int(26)))
    r = Rng(-2)
    extra = []
    rnd, left = 0, 0
    for _ in range(EXTRA_POOL):
        if left == 0:
            rnd = r.next() >> 32
            if rnd >= 1 << 31:
                rnd -= 1 << 32
            left = 6
        rem = abs(rnd) % 26 * (1 if rnd >= 0 else -1)
        extra.append(chr(ord('a') + rem))
        rnd = trunc_div(rnd, 26)
        left -= 1
    r = Rng(-1)

    def part():
        n = 3 + r.int(2)
        return ''.join('_' if r.int(13) == 0 else chr(ord('a') + r.int(26)) for _ in range(n))

    def base_url():
        s = "https://www.nexmark.com/"
        for _ in range(3):
            s += part() + '/'
        return s + "item.htm?query=1"

    urls = [base_url() for _ in range(4)]
    for i in range(10000):
        u = base_url()
        if r.int(10) > 0:
            v = int('{:032b}'.format(i)[::-1], 2)
            if v >= 1 << 31:
                v -= 1 << 32
            u += "&channel_id=%d" % (v if v == -(1 << 31) else abs(v))
        urls.append(u)
    return ''.join(text), ''.join(extra), urls


FIRST = ["Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter",
         "Walter"]
LAST = ["Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"]
CITIES = ["Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond",
          "Seattle", "Kent", "Cheyenne"]
STATES = ["AZ", "CA", "ID", "OR", "WA", "WY"]
HOT = ["Google", "Facebook", "Baidu", "Apple"]


class Gen:
    def __init__(self, rate):
        self.delay = 1000000.0 / rate
        self.text, self.extra, self.urls = build_pools()

    def ts(self, number):
        return BASE_MS + int(number * self.delay) // 1000

    @staticmethod
    def last_person(e):
        epoch, off = divmod(e, TOT)
        return epoch * P + min(off, P - 1)

    @staticmethod
    def last_auction(e):
        epoch, off = divmod(e, TOT)
        if off < P:
            epoch, off = epoch - 1, A - 1
        elif off >= P + A:
            off = A - 1
        else:
            off -= P
        return epoch * A + off

    def next_person(self, e, r):
        n = self.last_person(e) + 1
        active = min(n, 1000)
        return n - active + r.long(active + 10)

    def next_auction(self, e, r):
        hi = self.last_auction(e)
        lo = max(hi - 100, 0)
        return lo + r.long(hi - lo + 1 + 10)

    @staticmethod
    def price(r):
        return math.floor(math.exp(r.unit() * 13.815510557964274) * 100.0 + 0.5)

    def string(self, r, mx):
        n = 3 + r.int(mx - 3)
        off = r.int(TEXT_POOL - n)
        return self.text[off:off + n].strip(' ')

    def extra_of(self, r, cur, avg):
        if cur > avg:
            return ""
        d = avg - cur
        delta = math.floor(d * 0.2 + 0.5)
        size = d - delta + (r.long(2 * delta) if delta else 0)
        off = r.int(EXTRA_POOL - size)
        return self.extra[off:off + size]

    def event(self, g):
        e, number = g + 2, g + 1
        ts = self.ts(number)
        r = Rng(e)
        rem = e % TOT
        if rem < P:
            name = FIRST[r.int(11)]
            name += ' ' + LAST[r.int(9)]
            email = self.string(r, 7) + '@' + self.string(r, 5) + '.com'
            cc = ' '.join('%04d' % r.int(10000) for _ in range(4))
            city, state = CITIES[r.int(10)], STATES[r.int(6)]
            cur = 8 + len(name) + len(email) + len(cc) + len(city) + len(state)
            extra = self.extra_of(r, cur, 200)
            return {"event_type": 0, "person": {
                "id": self.last_person(e) + 1000, "name": name, "emailAddress": email,
                "creditCard": cc, "city": city, "state": state, "dateTime": ts,
                "extra": extra}, "auction": None, "bid": None}
        if rem < P + A:
            if r.int(4) > 0:
                seller = self.last_person(e) // 100 * 100
            else:
                seller = self.next_person(e, r)
            category = 10 + r.int(5)
            initial = self.price(r)
            horizon = self.ts(number + (100 * TOT) // A) - ts
            expires = ts + 1 + r.long(max(horizon * 2, 1))
            item, desc = self.string(r, 20), self.string(r, 100)
            reserve = initial + self.price(r)
            extra = self.extra_of(r, 8 + len(item) + len(desc) + 40, 500)
            return {"event_type": 1, "person": None, "auction": {
                "id": self.last_auction(e) + 1000, "itemName": item, "description": desc,
                "initialBid": initial, "reserve": reserve, "dateTime": ts, "expires": expires,
                "seller": seller + 1000, "category": category, "extra": extra}, "bid": None}
        if r.int(2) > 0:
            auction = self.last_auction(e) // 100 * 100
        else:
            auction = self.next_auction(e, r)
        if r.int(4) > 0:
            bidder = self.last_person(e) // 100 * 100 + 1
        else:
            bidder = self.next_person(e, r)
        price = self.price(r)
        if r.int(2) > 0:
            i = r.int(4)
            channel, url = HOT[i], self.urls[i]
        else:
            n = r.int(10000)
            channel, url = "channel-%d" % n, self.urls[4 + n]
        extra = self.extra_of(r, 32, 100)
        return {"event_type": 2, "person": None, "auction": None, "bid": {
            "auction": auction + 1000, "bidder": bidder + 2000, "price": price,
            "channel": channel, "url": url, "dateTime": ts, "extra": extra}}


def ts_ms(text):
    """'2026-01-01 00:00:01.5' (UTC) -> ms since the epoch."""
    date, time = text.split(' ')
    y, mo, d = (int(x) for x in date.split('-'))
    hms, _, frac = time.partition('.')
    h, mi, s = (int(x) for x in hms.split(':'))
    ms = int((frac + '000')[:3])
    # days from civil (Howard Hinnant's algorithm)
    y -= mo <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (mo + (-3 if mo > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    days = era * 146097 + doe - 719468
    return ((days * 24 + h) * 60 + mi) * 60000 + s * 1000 + ms


def normalize(ev):
    for k in ("person", "auction", "bid"):
        row = ev.get(k)
        if row:
            for f in ("dateTime", "expires"):
                if f in row and isinstance(row[f], str):
                    row[f] = ts_ms(row[f])
    return ev


def main():
    if len(sys.argv) < 4 or sys.argv[1] != "check":
        sys.stderr.write(__doc__)
        return 2
    n = int(sys.argv[3])
    rate = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    gen = Gen(rate)
    with open(sys.argv[2]) as f:
        lines = [line for line in f if line.strip()]
    if len(lines) != n:
        print("nexmark_ref: %d events in %s, expected %d" % (len(lines), sys.argv[2], n))
        return 1
    for g, line in enumerate(lines):
        got, want = normalize(json.loads(line)), gen.event(g)
        if got != want:
            print("nexmark_ref: event %d differs\n  sluice:    %s\n  reference: %s"
                  % (g, json.dumps(got, sort_keys=True), json.dumps(want, sort_keys=True)))
            return 1
    print("nexmark_ref: %d events equal the reference" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
