#!/usr/bin/env python3
"""http_fuzz.py - a corpus of malformed and hostile HTTP requests against the
job's endpoint (src/cli/http.c), run by tests/integration/http.sh:

    http_fuzz.py PORT [SEED] [N]

Sends, each on its own connection: request lines that are not HTTP, bad
versions, a 100 KB URL, thousands of headers, bad Content-Length and
chunked bodies, NUL and control bytes, a body on a GET, unsupported
methods, requests cut off half way, then N requests of random bytes and N
mutations of a valid request (seeded).  After every 25 it checks that a
plain GET /metrics still answers 200; at the end it checks the expected
statuses of a few well-formed requests (405 for POST, 404 for an unknown
path, 200 for /, /metrics, /jobs).  Prints "ok N requests" and exits 0, or
the first failure and exits 1.
"""
import random
import socket
import sys

PORT = int(sys.argv[1])
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 1
N = int(sys.argv[3]) if len(sys.argv) > 3 else 200


def send(data, read=True, timeout=5.0):
    s = socket.create_connection(("127.0.0.1", PORT), timeout=timeout)
    try:
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            return b""
        if not read:
            return b""
        try:
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not chunk:
                break
            out += chunk
        return out
    finally:
        s.close()


def status(data):
    resp = send(data)
    if not resp.startswith(b"HTTP/1."):
        return None
    return int(resp.split(b" ", 2)[1])


def alive(where):
    code = status(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    if code != 200:
        print("FAIL http_fuzz: after %s GET /metrics answered %r" % (where, code))
        sys.exit(1)


GOOD = b"GET /jobs/overview HTTP/1.1\r\nHost: localhost\r\nAccept: */*\r\n\r\n"
corpus = [
    b"GARBAGE\r\n\r\n",
    b"\r\n\r\n\r\n",
    b"GET\r\n\r\n",
    b"GET /metrics\r\n\r\n",
    b"GET /metrics HTTP/9.9\r\n\r\n",
    b"GET /metrics HTTP/1.1\r\n\r\n",  # no Host
    b"GET /metrics FOO/1.1\r\nHost: x\r\n\r\n",
    b"GET " + b"/" + b"A" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /metrics HTTP/1.1\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(5000)) + b"\r\n",
    b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"v" * 200000 + b"\r\n\r\n",
    b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
    b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
    b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123",
    b"POST /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\nxx\r\n",
    b"POST /jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n",
    b"GET /jobs/\x00/../ HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /jobs/%00%ff%fe HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /jobs/" + b"9" * 5000 + b"/vertices/99999999999999999999/watermarks HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /jobs/x/vertices/-1/watermarks HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /jobs/x/vertices//watermarks HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
    b"G\x01T /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /metrics HTTP/1.1\nHost: x\n\n",
    b"GET /metrics HTTP/1.1\r\nHost: x\r\n folded: header\r\n\r\n",
    b"GET /metrics HTTP/1.1\r\nHost: x\r\n:\r\n\r\n",
    b"DELETE /jobs HTTP/1.1\r\nHost: x\r\n\r\n",
    b"PATCH /jobs/x HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
    b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
    b"CONNECT localhost:1 HTTP/1.1\r\nHost: x\r\n\r\n",
    GOOD * 50,  # pipelined
    GOOD[:20],  # cut off
]

n = 0
for req in corpus:
    send(req)
    n += 1
    alive("corpus request %d (%r...)" % (n, req[:40]))

# requests that stop half way and hang up without reading
for cut in range(1, len(GOOD), 7):
    send(GOOD[:cut], read=False)
    n += 1
alive("half requests")

rnd = random.Random(SEED)
for i in range(N):
    if i % 2:
        data = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 2000)))
    else:
        data = bytearray(GOOD)
        for _ in range(rnd.randrange(1, 8)):
            pos = rnd.randrange(len(data))
            op = rnd.randrange(3)
            if op == 0:
                data[pos] = rnd.randrange(256)
            elif op == 1:
                del data[pos]
            else:
                data[pos:pos] = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 50)))
        data = bytes(data)
    send(data, timeout=3.0)
    n += 1
    if n % 25 == 0:
        alive("random request %d (seed %d)" % (i, SEED))

want = [
    (b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", 405),
    (b"GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", 404),
    (b"GET /jobs/no-such-job HTTP/1.1\r\nHost: x\r\n\r\n", 404),
    (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", 200),
    (b"HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 200),
    (b"GET /jobs HTTP/1.1\r\nHost: x\r\n\r\n", 200),
]
for req, code in want:
    got = status(req)
    if got != code:
        print("FAIL http_fuzz: %r answered %r, want %d" % (req[:30], got, code))
        sys.exit(1)
print("ok %d requests" % n)
