#!/usr/bin/env python3
"""diff.py - the differential test against Apache Flink (`make test-flink`, docs/testing.md).

Runs each case (a SQL script ending in one query) through sluice (`sluice run`) and
through Apache Flink 1.20 in a local MiniCluster (FlinkOracle.java), over the same
bounded input files, and compares:

  * the final result: each side's changelog applied as a multiset (+I/+U add a row,
    -U/-D remove one), always;
  * the changelog itself as a multiset of (kind, row), unless the case says
    `-- changelog: none` (where the interleaving of inputs makes it nondeterministic).

Rows are compared in their text forms (docs/semantics.md §2), after one normalization:
a number with a fraction or an exponent and 12 or more significant digits (DOUBLE results whose last bits depend on
the order of additions) is rounded to 12.

Cases: tests/flink/cases/*.sql (Flink's documented examples; `$DATA` in them is
tests/flink/data) and generated ones (tests/flink/gen.py, seeded, over random bounded
inputs). Markers in a case's leading comments:

  -- xfail: <reason>       expected to fail (a feature sluice does not have yet): a
                           difference or a sluice error is XFAIL, a match is XPASS
  -- deliberate: <reason>  a documented deliberate difference (docs/sql.md): a
                           difference (or an error of either engine) is DELIB, not a
                           failure
  -- changelog: none       compare only the final result
  -- changelog: ordered    compare the changelog in order (ORDER BY)
  -- both-refuse: <text>   Flink refuses the script with a message containing <text>
                           (SQL that Flink 1.20 does not run in streaming): PASS when
                           sluice refuses it too

Usage: diff.py [--sluice build/sluice] [--build build] [--seed N] [--random N]
               [--random2 N] [--only SUBSTRING] [--keep]
(--random: gen.py's first-generation cases gen_SEED_NNN; --random2: its second
generation, gen2_SEED_NNN, default 20 or $FLINK_RANDOM2)
Exit status 1 when a case FAILs (a difference, a sluice or Flink error, an XPASS is
reported but does not fail the run).
"""

import argparse
import collections
import difflib
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
JAVA_OPTS = (
    "-XX:+IgnoreUnrecognizedVMOptions -XX:TieredStopAtLevel=1 -Xss4m "
    "--add-exports=java.base/sun.net.util=ALL-UNNAMED "
    "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED "
    "--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED "
    "--add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED "
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED "
    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED "
    "--add-opens=java.base/java.text=ALL-UNNAMED --add-opens=java.base/java.time=ALL-UNNAMED "
    "--add-opens=java.base/java.util=ALL-UNNAMED "
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED "
    "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED "
    "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED"
).split()

ROW_RE = re.compile(r"^([+-][IUD])\[(.*)\]\s*$")
NUM_RE = re.compile(r"-?\d+(\.\d+)?(E-?\d+)?$")


class Case:
    def __init__(self, name, sql_path, data_dir):
        self.name = name
        self.sql_path = sql_path
        self.data_dir = data_dir
        self.text = open(sql_path, encoding="utf-8").read()
        self.xfail = self.marker("xfail")
        self.deliberate = self.marker("deliberate")
        self.changelog = (self.marker("changelog") or "multiset").strip()
        self.both_refuse = self.marker("both-refuse")

    def marker(self, key):
        for line in self.text.splitlines():
            s = line.strip()
            if not s:
                continue
            if not s.startswith("--"):
                break
            m = re.match(r"--\s*" + key + r":\s*(.*)$", s)
            if m:
                return m.group(1).strip()
        return None

    def script(self):
        return self.text.replace("$DATA", self.data_dir)

    def key(self):
        """Hash of the oracle, the script and every data file it names (the Flink cache key)."""
        h = hashlib.sha256(self.script().encode())
        for f in (os.path.join(HERE, "pom.xml"),
                  os.path.join(HERE, "src", "main", "java", "sluice", "FlinkOracle.java")):
            h.update(open(f, "rb").read())
        for path in sorted(set(re.findall(r"'path'\s*=\s*'([^']*)'", self.script()))):
            files = [path] if os.path.isfile(path) else sorted(glob.glob(path + "/*"))
            for f in files:
                if os.path.isfile(f):
                    h.update(f.encode())
                    h.update(open(f, "rb").read())
        return h.hexdigest()[:24]


def norm_value(v):
    if NUM_RE.match(v) and ("." in v or "E" in v):
        digits = re.sub(r"E.*$", "", v).replace("-", "").replace(".", "").lstrip("0")
        if len(digits) >= 12:
            try:
                return "%.12g" % float(v)
            except ValueError:
                pass
    return v


def split_fields(body):
    """Top-level ', ' split (ROW values are '(a, b)')."""
    out, depth, cur, i = [], 0, [], 0
    while i < len(body):
        c = body[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if depth == 0 and body.startswith(", ", i):
            out.append("".join(cur))
            cur = []
            i += 2
            continue
        cur.append(c)
        i += 1
    out.append("".join(cur))
    return out


def parse_rows(text):
    """[(kind, row text)] and [lines that are not rows]."""
    rows, other = [], []
    for line in text.split("\n"):
        m = ROW_RE.match(line)
        if m:
            row = ", ".join(norm_value(v) for v in split_fields(m.group(2)))
            rows.append((m.group(1), row))
        elif line.strip():
            other.append(line)
    return rows, other


def final_result(changes):
    """The changelog applied as a multiset; retractions of absent rows are reported."""
    bag = collections.Counter()
    bad = []
    for kind, row in changes:
        if kind in ("+I", "+U"):
            bag[row] += 1
        elif bag[row] > 0:
            bag[row] -= 1
        else:
            bad.append("%s[%s] retracts a row that is not there" % (kind, row))
    return bag, bad


def bag_lines(bag):
    return sorted(r for r, n in bag.items() for _ in range(n))


def show_diff(title, flink, sluice):
    d = list(difflib.unified_diff(flink, sluice, "flink", "sluice", lineterm="", n=2))
    if not d:
        return ""
    if len(d) > 60:
        d = d[:60] + ["... (%d more diff lines)" % (len(d) - 60)]
    return "  %s:\n" % title + "".join("    %s\n" % line for line in d)


def compare(case, flink_out, sluice_out):
    """'' when equal, else a readable description of the differences."""
    f_rows, f_other = parse_rows(flink_out)
    s_rows, s_other = parse_rows(sluice_out)
    msg = ""
    if s_other:
        msg += "  sluice printed lines that are not rows: %s\n" % s_other[:3]
    f_bag, f_bad = final_result(f_rows)
    s_bag, s_bad = final_result(s_rows)
    if s_bad and not f_bad:
        msg += "  sluice: " + "; ".join(s_bad[:3]) + "\n"
    msg += show_diff("final result (multiset)", bag_lines(f_bag), bag_lines(s_bag))
    if not msg and case.changelog == "ordered":
        msg += show_diff("changelog (in order)", ["%s[%s]" % r for r in f_rows],
                         ["%s[%s]" % r for r in s_rows])
    elif not msg and case.changelog != "none":
        f_cl = sorted("%s[%s]" % r for r in f_rows)
        s_cl = sorted("%s[%s]" % r for r in s_rows)
        msg += show_diff("changelog (multiset)", f_cl, s_cl)
    return msg


def run_oracle(cases, build, keep_dir):
    """Runs Flink over every case not in the cache; returns {name: (out, err)}."""
    cache = os.path.join(build, "flink", "cache")
    os.makedirs(cache, exist_ok=True)
    todo, result = [], {}
    for c in cases:
        k = c.key()
        p = os.path.join(cache, k)
        if os.path.exists(p + ".out") and os.path.exists(p + ".err"):
            result[c.name] = (open(p + ".out", newline="").read(), open(p + ".err").read())
        else:
            todo.append((c, k))
    if todo:
        scripts = []
        for c, k in todo:
            path = os.path.join(keep_dir, c.name + ".sql")
            with open(path, "w", encoding="utf-8") as f:
                f.write(c.script())
            scripts.append(path)
        outdir = os.path.join(keep_dir, "flink")
        classpath = os.path.join(build, "flink", "classes") + ":" + \
            open(os.path.join(build, "flink", "classpath.txt")).read().strip()
        print("flink: running %d case(s) in one JVM (%d cached)" % (len(todo), len(result)),
              flush=True)
        t0 = time.time()
        log = open(os.path.join(keep_dir, "flink.log"), "w")
        subprocess.run(["java"] + JAVA_OPTS + ["-Doracle.timeout=120", "-cp", classpath,
                        "sluice.FlinkOracle", outdir] + scripts,
                       stdout=log, stderr=subprocess.STDOUT, check=False)
        print("flink: %.0f s" % (time.time() - t0), flush=True)
        for c, k in todo:
            o = os.path.join(outdir, c.name + ".out")
            e = os.path.join(outdir, c.name + ".err")
            if not os.path.exists(e):
                result[c.name] = ("", "the oracle did not run this case (see %s/flink.log)\n"
                                  % keep_dir)
                continue
            out, err = open(o, newline="").read(), open(e).read()
            result[c.name] = (out, err)
            if not err.startswith("TIMEOUT"):
                shutil.copy(o, os.path.join(cache, k + ".out"))
                shutil.copy(e, os.path.join(cache, k + ".err"))
    return result


def run_sluice(sluice, case, keep_dir):
    path = os.path.join(keep_dir, case.name + ".sql")
    with open(path, "w", encoding="utf-8") as f:
        f.write(case.script())
    try:
        # at parallelism 1, as the oracle runs Flink (FlinkOracle.java): an
        # updating result's changes interleave keys as one instance does
        # (sluice's default is the CPU count; results at N are the same
        # multiset of final rows, not the same interleaving of changes)
        p = subprocess.run([sluice, "run", "--set", "parallelism.default=1", path],
                           capture_output=True, timeout=120,
                           cwd=keep_dir)  # bytes: a value may hold a CR (CHR(13))
        out = p.stdout.decode("utf-8", "replace")
        err = "" if p.returncode == 0 else (p.stderr.decode("utf-8", "replace").strip() or
                                            "exit %d" % p.returncode)
        return out, err
    except subprocess.TimeoutExpired:
        return "", "TIMEOUT after 120 s"


def first_line(s):
    """The first line of an error, with Flink's root cause when it has one."""
    lines = s.strip().splitlines()
    if not lines:
        return ""
    root = [x for x in lines[1:3] if x.startswith("root cause: ")]
    first = lines[0] if len(lines[0]) <= 200 else lines[0][:200] + "..."
    return first + ("\n    " + root[0] if root else "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", default=os.path.join(ROOT, "build", "sluice"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("FLINK_SEED", "1")))
    ap.add_argument("--random", type=int, default=int(os.environ.get("FLINK_RANDOM", "40")))
    ap.add_argument("--random2", type=int, default=int(os.environ.get("FLINK_RANDOM2", "20")))
    ap.add_argument("--only", default=os.environ.get("FLINK_ONLY", ""))
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    sluice = os.path.abspath(args.sluice)
    work = os.path.join(build, "flink", "run")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    cases = []
    data = os.path.join(HERE, "data")
    for p in sorted(glob.glob(os.path.join(HERE, "cases", "*.sql"))):
        cases.append(Case(os.path.basename(p)[:-4], p, data))
    if args.random > 0 or args.random2 > 0:
        gen_dir = os.path.join(build, "flink", "gen")
        shutil.rmtree(gen_dir, ignore_errors=True)
        subprocess.run([sys.executable, os.path.join(HERE, "gen.py"), gen_dir, str(args.seed),
                        str(args.random), str(args.random2)], check=True)
        for p in sorted(glob.glob(os.path.join(gen_dir, "*.sql"))):
            cases.append(Case(os.path.basename(p)[:-4], p, gen_dir))
    if args.only:
        cases = [c for c in cases if args.only in c.name]

    oracle = run_oracle(cases, build, work)
    counts = collections.Counter()
    fails = []
    for c in cases:
        f_out, f_err = oracle[c.name]
        s_out, s_err = run_sluice(sluice, c, work)
        with open(os.path.join(work, c.name + ".sluice.out"), "w", newline="") as f:
            f.write(s_out)
        with open(os.path.join(work, c.name + ".flink.out"), "w", newline="") as f:
            f.write(f_out)
        if c.both_refuse:
            if not f_err or c.both_refuse not in f_err:
                status = "FAIL"
                detail = "  Flink did not refuse it with '%s': %s\n" % (
                    c.both_refuse, first_line(f_err) or "it ran")
            elif s_err:
                status, detail = "PASS", ""
            else:
                status = "DELIB" if c.deliberate else "FAIL"
                detail = "  Flink refuses it (%s), sluice runs it\n" % c.both_refuse
        elif f_err and c.deliberate:
            status, detail = "DELIB", "  Flink refused the case: %s\n" % first_line(f_err)
        elif f_err:
            status, detail = "FAIL", "  Flink refused the case: %s\n" % first_line(f_err)
            if c.xfail:
                status = "FAIL"
                detail += "  (marked xfail, but the case itself must run on Flink)\n"
        elif s_err:
            detail = "  sluice: %s\n" % first_line(s_err)
            status = "XFAIL" if c.xfail else "DELIB" if c.deliberate else "FAIL"
        else:
            detail = compare(c, f_out, s_out)
            if not detail:
                status = "XPASS" if c.xfail else "PASS"
            elif c.xfail:
                status = "XFAIL"
            elif c.deliberate:
                status = "DELIB"
            else:
                status = "FAIL"
        counts[status] += 1
        note = {"XFAIL": c.xfail, "DELIB": c.deliberate,
                "XPASS": "marked xfail (%s) but matches Flink: remove the marker" % c.xfail}
        line = "%-5s %s" % (status, c.name)
        if status in note:
            line += "  (%s)" % note[status]
        print(line, flush=True)
        if status in ("FAIL", "DELIB") or (status == "XFAIL" and os.environ.get("FLINK_VERBOSE")):
            print(detail, end="", flush=True)
        if status == "FAIL":
            fails.append(c.name)
    print("test-flink: " + ", ".join("%d %s" % (counts[k], k) for k in
                                     ("PASS", "FAIL", "XFAIL", "XPASS", "DELIB") if counts[k])
          + " (outputs in %s)" % work)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
