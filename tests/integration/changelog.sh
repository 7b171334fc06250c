#!/bin/sh
# changelog.sh - a changelog pipeline through the CLI: a debezium-json file
# (PostgreSQL without REPLICA IDENTITY FULL: updates without 'before', a
# key-only delete, a tombstone) read by a table with a PRIMARY KEY, a
# GROUP BY over it, written as canal-json.  Checks EXPLAIN's changelog
# kinds (upsert scan, ChangelogNormalize, updating aggregate and sink) and
# the written changes.
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.."
SLUICE="$PWD/$BUILD/sluice"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/products.json" <<'JSON'
{"before":null,"after":{"id":101,"name":"hammer","weight":1.0},"source":{"connector":"postgresql","snapshot":"true"},"op":"r","ts_ms":1}
{"before":null,"after":{"id":102,"name":"hammer","weight":2.0},"source":{"connector":"postgresql"},"op":"c","ts_ms":2}
{"before":null,"after":{"id":101,"name":"hammer","weight":4.0},"source":{"connector":"postgresql"},"op":"u","ts_ms":3}
{"before":{"id":102},"after":null,"source":{"connector":"postgresql"},"op":"d","ts_ms":4}
null
JSON
cat > "$dir/job.sql" <<SQL
CREATE TABLE products (id INT, name STRING, weight DOUBLE, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = '$dir/products.json', 'format' = 'debezium-json');
CREATE TABLE totals (name STRING, c BIGINT, w DOUBLE)
  WITH ('connector' = 'filesystem', 'path' = '$dir/out', 'format' = 'canal-json');
INSERT INTO totals SELECT name, COUNT(*), SUM(weight) FROM products GROUP BY name;
SQL
(cd "$dir" && "$SLUICE" run -e "$(sed 's/^INSERT/EXPLAIN INSERT/' job.sql)") > "$dir/explain"
grep -q 'TableSourceScan(table=\[products\], connector=\[filesystem\], format=\[debezium-json\]) \[upsert, key=\[id\]\]' "$dir/explain"
grep -q 'ChangelogNormalize(key=\[id\]) \[updating\] <- #0' "$dir/explain"
grep -q 'Sink(table=\[totals\], connector=\[filesystem\], changelog=\[updating\]' "$dir/explain"
(cd "$dir" && "$SLUICE" run job.sql) > "$dir/log" 2>&1
cat "$dir"/out/part-* > "$dir/got"
cat > "$dir/want" <<'OUT'
{"data":[{"name":"hammer","c":1,"w":1.0}],"type":"INSERT"}
{"data":[{"name":"hammer","c":1,"w":1.0}],"type":"DELETE"}
{"data":[{"name":"hammer","c":2,"w":3.0}],"type":"INSERT"}
{"data":[{"name":"hammer","c":2,"w":3.0}],"type":"DELETE"}
{"data":[{"name":"hammer","c":1,"w":2.0}],"type":"INSERT"}
{"data":[{"name":"hammer","c":1,"w":2.0}],"type":"DELETE"}
{"data":[{"name":"hammer","c":2,"w":6.0}],"type":"INSERT"}
{"data":[{"name":"hammer","c":2,"w":6.0}],"type":"DELETE"}
{"data":[{"name":"hammer","c":1,"w":4.0}],"type":"INSERT"}
OUT
cmp "$dir/want" "$dir/got" || { diff "$dir/want" "$dir/got"; exit 1; }
grep -q '1 change events without a row skipped' "$dir/log" || { cat "$dir/log"; exit 1; }
