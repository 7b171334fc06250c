"""read.py - the Python readers of tests/iceberg/ (docs/iceberg.md "Tests"):
pyiceberg (a StaticTable from the table's current metadata file, scanned
through its current snapshot) and pyarrow's Parquet reader over the data
files pyiceberg plans, both sharing no code with sluice.  Run with the
virtual environment tests/iceberg/peers.sh made.

    python read.py pyiceberg <table dir> <col,col,...>
    python read.py pyarrow <table dir> <col,col,...>
    python read.py partcheck <table dir>
    python read.py delta <table dir> <col,col,...>
    python read.py bounds <table dir>

print the columns as tab-separated canonical text (timestamps
"YYYY-MM-DD HH:MM:SS[.ffffff]", decimals as written, NULL), one row a line;
partcheck computes every row's partition with pyiceberg's own transforms
(pyiceberg.transforms) and checks it equals the partition the manifest
records for the row's data file: prints "ok N files, M rows".

delta reads a table with delete files: pyiceberg 0.12 plans no scan over
equality deletes ("does not yet support equality deletes"), so its
manifest readers list the current snapshot's live entries (sequence
numbers inherited as pyiceberg does), pyarrow reads the data and delete
files, and the deletes are applied here by the table spec's rules ("Scan
Planning": a position delete applies to data files of a sequence number
<= its own, an equality delete to those of a lower one, both within the
same partition).

bounds checks every live data file's column statistics in the manifests
(as pyiceberg reads them, the bounds decoded by pyiceberg.conversions)
against the file's values as pyarrow reads them: value_counts the rows,
null_value_counts the NULLs, lower and upper bounds the smallest and
largest non-null, non-NaN value (-0.0 below 0.0); strings and binary are
truncated to 16 code points / bytes as Iceberg's default metrics mode
does: the lower bound is then the prefix, the upper bound >= the largest
value and no longer than 16.  Prints "ok bounds: N files, M bounds".
"""
import os
import re
import sys


def current(table):
    vs = [int(m.group(1)) for n in os.listdir(os.path.join(table, "metadata"))
          if (m := re.match(r"^v(\d+)\.metadata\.json$", n))]
    return os.path.join(table, "metadata", "v%d.metadata.json" % max(vs))


def text(v):
    if v is None:
        return "NULL"
    if hasattr(v, "isoformat") and hasattr(v, "hour"):
        s = v.strftime("%Y-%m-%d %H:%M:%S")
        return s + (".%06d" % v.microsecond).rstrip("0") if v.microsecond else s
    return str(v)


def internal(v):
    """A pyarrow value as pyiceberg's transforms take it (micros, days)."""
    import datetime
    if isinstance(v, datetime.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=datetime.timezone.utc)
        d = v - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        return (d.days * 86400 + d.seconds) * 1000000 + d.microseconds
    if isinstance(v, datetime.date):
        return (v - datetime.date(1970, 1, 1)).days
    return v


def partcheck(t):
    import pyarrow.parquet as pq
    schema, spec = t.schema(), t.spec()
    fields = []
    for pf in spec.fields:
        src = schema.find_field(pf.source_id)
        fields.append((src.name, pf.transform.transform(src.field_type)))
    files = rows = 0
    for task in t.scan().plan_files():
        path = re.sub(r"^file:(//)?", "", task.file.file_path)
        want = tuple(task.file.partition[i] for i in range(len(fields)))
        for r in pq.read_table(path).to_pylist():
            got = tuple(None if r[c] is None else f(internal(r[c])) for c, f in fields)
            got = tuple(internal(g) for g in got)
            if got != tuple(internal(w) for w in want):
                sys.exit("%s: a row's partition is %r, the manifest says %r" % (path, got, want))
            rows += 1
        files += 1
    print("ok %d files, %d rows, spec %s" % (files, rows, spec))


def delta(t, cols):
    import pyarrow.parquet as pq
    from pyiceberg.manifest import DataFileContent
    schema = t.schema()
    entries = []
    for m in t.current_snapshot().manifests(t.io):
        for e in m.fetch_manifest_entry(t.io, discard_deleted=True):
            entries.append(e)
    path = lambda p: re.sub(r"^file:(//)?", "", p)
    part = lambda f: tuple(f.partition[i] for i in range(len(f.partition)))
    pos, eq = {}, []
    for e in entries:
        f = e.data_file
        if f.content == DataFileContent.POSITION_DELETES:
            for r in pq.read_table(path(f.file_path)).to_pylist():
                pos.setdefault((path(r["file_path"]), r["pos"]), []).append(e)
        elif f.content == DataFileContent.EQUALITY_DELETES:
            names = [schema.find_field(i).name for i in f.equality_ids]
            keys = {tuple(r[n] for n in names) for r in pq.read_table(path(f.file_path)).to_pylist()}
            eq.append((e, names, keys))
    out = []
    for e in entries:
        f = e.data_file
        if f.content != DataFileContent.DATA:
            continue
        for i, r in enumerate(pq.read_table(path(f.file_path)).to_pylist()):
            if any(d.sequence_number >= e.sequence_number and part(d.data_file) == part(f)
                   for d in pos.get((path(f.file_path), i), [])):
                continue
            if any(d.sequence_number > e.sequence_number and part(d.data_file) == part(f) and
                   tuple(r[n] for n in names) in keys for d, names, keys in eq):
                continue
            out.append(r)
    return out


def bounds(t):
    import math
    import pyarrow.parquet as pq
    from pyiceberg.conversions import from_bytes
    from pyiceberg.types import StringType, BinaryType, FloatType, DoubleType
    schema = t.schema()
    files = nb = 0

    def norm(v):  # pyarrow's value as pyiceberg decodes a bound (days, micros)
        import datetime
        if isinstance(v, datetime.time):
            return ((v.hour * 60 + v.minute) * 60 + v.second) * 1000000 + v.microsecond
        return internal(v)

    def key(v):  # Iceberg's order: -0.0 before 0.0
        return (v, math.copysign(1, v)) if isinstance(v, float) else v

    for m in t.current_snapshot().manifests(t.io):
        for e in m.fetch_manifest_entry(t.io, discard_deleted=True):
            f = e.data_file
            if f.content != 0:
                continue
            path = re.sub(r"^file:(//)?", "", f.file_path)
            tab = pq.read_table(path)
            files += 1
            for i, field in enumerate(schema.fields):
                col = tab.column(i).to_pylist()
                where = "%s column %s" % (path, field.name)
                if f.value_counts.get(field.field_id) != len(col):
                    sys.exit("%s: value_counts %s, %d rows" % (where, f.value_counts.get(field.field_id), len(col)))
                nulls = sum(v is None for v in col)
                if f.null_value_counts.get(field.field_id) != nulls:
                    sys.exit("%s: null_value_counts %s, %d NULLs" % (where, f.null_value_counts.get(field.field_id), nulls))
                vals = [v for v in col if v is not None and not (isinstance(v, float) and math.isnan(v))]
                lo = (f.lower_bounds or {}).get(field.field_id)
                hi = (f.upper_bounds or {}).get(field.field_id)
                if not vals:
                    if lo is not None or hi is not None:
                        sys.exit("%s: bounds without a value" % where)
                    continue
                ft = field.field_type
                lo = from_bytes(ft, lo) if lo is not None else None
                hi = from_bytes(ft, hi) if hi is not None else None
                vals = [norm(v) for v in vals]
                vmin, vmax = min(vals, key=key), max(vals, key=key)
                if isinstance(ft, (StringType, BinaryType)):
                    n = 16
                    if lo != vmin[:n]:
                        sys.exit("%s: lower bound %r, smallest %r" % (where, lo, vmin))
                    if len(vmax) <= n and hi != vmax:
                        sys.exit("%s: upper bound %r, largest %r" % (where, hi, vmax))
                    if hi is not None and (len(hi) > n or hi < vmax[:len(hi)] or
                                           (hi == vmax[:len(hi)] and len(hi) < len(vmax))):
                        sys.exit("%s: upper bound %r below the largest %r" % (where, hi, vmax))
                else:
                    if isinstance(ft, (FloatType, DoubleType)):
                        same = key(lo) == key(vmin) and key(hi) == key(vmax)
                    else:
                        same = lo == vmin and hi == vmax
                    if not same:
                        sys.exit("%s: bounds %r..%r, values %r..%r" % (where, lo, hi, vmin, vmax))
                nb += (lo is not None) + (hi is not None)
    print("ok bounds: %d files, %d bounds" % (files, nb))


def main():
    cmd, table = sys.argv[1], sys.argv[2]
    cols = sys.argv[3].split(",") if len(sys.argv) > 3 else []
    from pyiceberg.table import StaticTable
    t = StaticTable.from_metadata(current(table))
    if cmd == "pyiceberg":
        rows = t.scan(selected_fields=tuple(cols)).to_arrow().to_pylist()
    elif cmd == "pyarrow":
        import pyarrow.parquet as pq
        rows = []
        for task in t.scan().plan_files():
            path = re.sub(r"^file:(//)?", "", task.file.file_path)
            rows += pq.read_table(path, columns=cols).to_pylist()
    elif cmd == "bounds":
        bounds(t)
        return
    elif cmd == "delta":
        rows = delta(t, cols)
    elif cmd == "partcheck":
        partcheck(t)
        return
    else:
        sys.exit("usage: read.py pyiceberg|pyarrow <table dir> <cols>")
    for r in rows:
        print("\t".join(text(r[c]) for c in cols))


main()
