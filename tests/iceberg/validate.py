"""validate.py - checks Iceberg table metadata files against the table spec
(format/spec.md, "Table Metadata Fields", "Snapshots", "Schemas",
"Partition Specs", "Sort Orders", "Snapshot References"; format version 2),
written from the spec's lists of required fields, sharing no code with
sluice.  Standard library only.

    python3 validate.py <table dir>

validates every metadata/v<N>.metadata.json of the table, the numbering
(1..N without gaps, version-hint.text naming one of them) and, across
versions, that each version keeps its predecessor's snapshots and appends.
Prints "ok: ..." or the problems (exit 1).
"""
import json
import os
import re
import sys

problems = []


def bad(where, msg):
    problems.append("%s: %s" % (where, msg))


def need(obj, keys, where, types=None):
    for k in keys:
        if k not in obj:
            bad(where, "required field '%s' missing" % k)
        elif types and k in types and not isinstance(obj[k], types[k]):
            bad(where, "field '%s' is %r, not %s" % (k, obj[k], types[k]))


PRIMS = {"boolean", "int", "long", "float", "double", "date", "time", "timestamp",
         "timestamptz", "string", "uuid", "binary"}
TRANSFORM = re.compile(r"^(identity|year|month|day|hour|void|bucket\[\d+\]|truncate\[\d+\])$")


def check_type(t, where, ids):
    if isinstance(t, str):
        if t not in PRIMS and not re.match(r"^decimal\(\d+,\s*\d+\)$", t) \
                and not re.match(r"^fixed\[\d+\]$", t):
            bad(where, "unknown type %r" % t)
        return
    if not isinstance(t, dict) or "type" not in t:
        bad(where, "bad type %r" % (t,))
        return
    if t["type"] == "struct":
        need(t, ["fields"], where)
        for f in t.get("fields", []):
            need(f, ["id", "name", "required", "type"], where + " field",
                 {"id": int, "name": str, "required": bool})
            if f.get("id") in ids:
                bad(where, "field id %s used twice" % f.get("id"))
            ids.add(f.get("id"))
            check_type(f.get("type"), where + "." + str(f.get("name")), ids)
    elif t["type"] == "list":
        need(t, ["element-id", "element", "element-required"], where)
        ids.add(t.get("element-id"))
        check_type(t.get("element"), where + "[]", ids)
    elif t["type"] == "map":
        need(t, ["key-id", "key", "value-id", "value", "value-required"], where)
        ids.update([t.get("key-id"), t.get("value-id")])
        check_type(t.get("key"), where + ".key", ids)
        check_type(t.get("value"), where + ".value", ids)
    else:
        bad(where, "unknown nested type %r" % t["type"])


def check_version(path, latest):
    w = os.path.basename(path)
    try:
        m = json.load(open(path))
    except ValueError as e:
        bad(w, "not JSON: %s" % e)
        return None
    need(m, ["format-version", "table-uuid", "location", "last-sequence-number",
             "last-updated-ms", "last-column-id", "schemas", "current-schema-id",
             "partition-specs", "default-spec-id", "last-partition-id", "sort-orders",
             "default-sort-order-id"], w,
         {"format-version": int, "table-uuid": str, "location": str,
          "last-sequence-number": int, "last-updated-ms": int, "last-column-id": int,
          "schemas": list, "current-schema-id": int, "partition-specs": list,
          "default-spec-id": int, "last-partition-id": int, "sort-orders": list,
          "default-sort-order-id": int})
    if m.get("format-version") != 2:
        bad(w, "format-version is not 2")
    if not re.match(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
                    str(m.get("table-uuid"))):
        bad(w, "table-uuid is not a UUID")
    schema_ids = set()
    for s in m.get("schemas", []):
        need(s, ["schema-id", "type", "fields"], w + " schema")
        if s.get("type") != "struct":
            bad(w, "a schema is not a struct")
        ids = set()
        check_type(s, w + " schema %s" % s.get("schema-id"), ids)
        if ids and max(i for i in ids if isinstance(i, int)) > m.get("last-column-id", 0):
            bad(w, "a field id is above last-column-id")
        top = {f.get("id"): f for f in s.get("fields", [])}
        for i in s.get("identifier-field-ids", []):
            if i not in top or not top[i].get("required"):
                bad(w, "identifier field %s is not a required top-level field" % i)
        schema_ids.add(s.get("schema-id"))
    if m.get("current-schema-id") not in schema_ids:
        bad(w, "current-schema-id names no schema")
    spec_ids = set()
    for sp in m.get("partition-specs", []):
        need(sp, ["spec-id", "fields"], w + " partition spec")
        spec_ids.add(sp.get("spec-id"))
        for f in sp.get("fields", []):
            need(f, ["source-id", "field-id", "name", "transform"], w + " partition field")
            if not TRANSFORM.match(str(f.get("transform"))):
                bad(w, "unknown transform %r" % f.get("transform"))
            if f.get("field-id", 0) > m.get("last-partition-id", 0):
                bad(w, "a partition field id is above last-partition-id")
    if m.get("default-spec-id") not in spec_ids:
        bad(w, "default-spec-id names no spec")
    orders = set()
    for so in m.get("sort-orders", []):
        need(so, ["order-id", "fields"], w + " sort order")
        orders.add(so.get("order-id"))
        for f in so.get("fields", []):
            need(f, ["transform", "source-id", "direction", "null-order"], w + " sort field")
    if m.get("default-sort-order-id") not in orders:
        bad(w, "default-sort-order-id names no sort order")
    snaps = {}
    for s in m.get("snapshots", []):
        need(s, ["snapshot-id", "sequence-number", "timestamp-ms", "manifest-list",
                 "summary"], w + " snapshot",
             {"snapshot-id": int, "sequence-number": int, "timestamp-ms": int,
              "manifest-list": str, "summary": dict})
        if "operation" not in s.get("summary", {}):
            bad(w, "snapshot %s: summary has no operation" % s.get("snapshot-id"))
        if s.get("snapshot-id") in snaps:
            bad(w, "snapshot id %s twice" % s.get("snapshot-id"))
        if s.get("sequence-number", 0) > m.get("last-sequence-number", 0):
            bad(w, "a snapshot's sequence number is above last-sequence-number")
        ml = re.sub(r"^file:(//)?", "", s.get("manifest-list", ""))
        if latest and not os.path.isfile(ml):  # (expiring deletes older versions' lists)
            bad(w, "manifest list %s does not exist" % ml)
        snaps[s.get("snapshot-id")] = s
    seqs = [s.get("sequence-number") for s in m.get("snapshots", [])]
    if len(set(seqs)) != len(seqs):
        bad(w, "two snapshots share a sequence number")
    for i, s in enumerate(m.get("snapshots", [])):
        p = s.get("parent-snapshot-id")
        if p is not None and p not in snaps and i > 0:  # the oldest may outlive an expired parent
            bad(w, "snapshot %s: parent %s is not in the table" % (s["snapshot-id"], p))
        if p is not None and p in snaps and snaps[p]["sequence-number"] >= s["sequence-number"]:
            bad(w, "snapshot %s: sequence number not above its parent's" % s["snapshot-id"])
    cur = m.get("current-snapshot-id")
    if cur is not None and cur != -1:
        if cur not in snaps:
            bad(w, "current-snapshot-id names no snapshot")
        main = m.get("refs", {}).get("main")
        if not main or main.get("snapshot-id") != cur or main.get("type") != "branch":
            bad(w, "refs.main is not the current snapshot as a branch")
    for name, r in m.get("refs", {}).items():
        need(r, ["snapshot-id", "type"], w + " ref " + name)
        if r.get("snapshot-id") not in snaps:
            bad(w, "ref %s names no snapshot" % name)
    for e in m.get("snapshot-log", []):
        need(e, ["snapshot-id", "timestamp-ms"], w + " snapshot-log")
    times = [e.get("timestamp-ms", 0) for e in m.get("snapshot-log", [])]
    if times != sorted(times):
        bad(w, "snapshot-log is not in time order")
    for e in m.get("metadata-log", []):
        need(e, ["metadata-file", "timestamp-ms"], w + " metadata-log")
    return m


def main():
    table = sys.argv[1]
    md = os.path.join(table, "metadata")
    vers = sorted(int(x.group(1)) for n in os.listdir(md)
                  if (x := re.match(r"^v(\d+)\.metadata\.json$", n)))
    if not vers or vers != list(range(1, len(vers) + 1)):
        bad(table, "metadata versions are not 1..N: %s" % vers)
    hint = open(os.path.join(md, "version-hint.text")).read().strip() \
        if os.path.exists(os.path.join(md, "version-hint.text")) else None
    if hint is not None and (not hint.isdigit() or int(hint) not in vers):
        bad(table, "version-hint.text %r names no version" % hint)
    prev = None
    for v in vers:
        m = check_version(os.path.join(md, "v%d.metadata.json" % v), v == vers[-1])
        if m and prev:
            old = [s["snapshot-id"] for s in prev.get("snapshots", [])]
            new = [s["snapshot-id"] for s in m.get("snapshots", [])]
            # a version keeps its predecessor's snapshots, less an expired
            # oldest part, and appends
            kept = [i for i in old if i in new]
            if new[:len(kept)] != kept or old[len(old) - len(kept):] != kept:
                bad("v%d" % v, "does not keep v%d's snapshots" % (v - 1))
            if m.get("table-uuid") != prev.get("table-uuid"):
                bad("v%d" % v, "table-uuid changed")
        prev = m or prev
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print("ok: %d metadata versions, %d snapshots" % (len(vers),
          len(prev.get("snapshots", [])) if prev else 0))


main()
