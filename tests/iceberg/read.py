"""read.py - the Python readers of tests/iceberg/ (docs/iceberg.md "Tests"):
pyiceberg (a StaticTable from the table's current metadata file, scanned
through its current snapshot) and pyarrow's Parquet reader over the data
files pyiceberg plans, both sharing no code with sluice.  Run with the
virtual environment tests/iceberg/peers.sh made.

    python read.py pyiceberg <table dir> <col,col,...>
    python read.py pyarrow <table dir> <col,col,...>

print the columns as tab-separated canonical text (timestamps
"YYYY-MM-DD HH:MM:SS[.ffffff]", decimals as written, NULL), one row a line.
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


def main():
    cmd, table, cols = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
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
    else:
        sys.exit("usage: read.py pyiceberg|pyarrow <table dir> <cols>")
    for r in rows:
        print("\t".join(text(r[c]) for c in cols))


main()
