#!/bin/sh
# fs_metadata.sh - the filesystem source's METADATA columns (Flink 1.20's
# file.path, file.name, file.size, file.modification-time; docs/sql.md
# "Connectors"): each row carries its file's values, checked against
# stat(1) for a directory of JSON files read at parallelism 1 and 3 with
# the files cut into byte ranges (SLUICE_TEST_SPLIT_BYTES), a partitioned
# CSV table, and a Parquet file (the file formats' path); a wrong key and
# a wrong type are refused naming the column.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
SLUICE="$B/sluice"
T=$(mktemp -d /tmp/sluice-fsmeta.XXXXXX)
trap '[ -n "${KEEP:-}" ] && echo "kept $T" || rm -rf "$T"' EXIT
fail=0
mkdir -p "$T/d" "$T/pt/dt=2024-01-01" "$T/pt/dt=2024-01-02"
i=0
while [ $i -lt 300 ]; do echo "{\"a\":$i,\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}"; i=$((i + 1)); done > "$T/d/x.json"
printf '{"a":1000}\n{"a":1001}\n' > "$T/d/y.json"
printf '1,x\n2,y\n' > "$T/pt/dt=2024-01-01/a.csv"
printf '3,z\n' > "$T/pt/dt=2024-01-02/b.csv"
touch -d '2024-03-01 12:34:56.789' "$T/d/x.json"
touch -d '2024-03-02 01:02:03.450' "$T/d/y.json" # a trailing zero the print format drops
# the expected line of file F: path, name, size, modification time (UTC, ms)
expect() {
	# (the print format drops the fraction's trailing zeros)
	printf '%s, %s, %s, %s' "$1" "$(basename "$1")" "$(stat -c %s "$1")" \
		"$(TZ=UTC date -d "@$(stat -c %.3Y "$1")" '+%Y-%m-%d %H:%M:%S.%3N' |
		sed -E 's/(\.[0-9]*[1-9])0+$/\1/; s/\.0+$//')"
}
DDL="SET 'table.local-time-zone' = 'UTC';
CREATE TABLE t (a INT, p STRING NOT NULL METADATA FROM 'file.path', n STRING METADATA FROM 'file.name' VIRTUAL,
  sz BIGINT METADATA FROM 'file.size', mt TIMESTAMP_LTZ(3) METADATA FROM 'file.modification-time')
  WITH ('connector' = 'filesystem', 'path' = '$T/d', 'format' = 'json');"
for par in 1 3; do
	if ! SLUICE_TEST_SPLIT_BYTES=4096 "$SLUICE" run -e "$DDL SET 'parallelism.default' = '$par';
	    SELECT p, n, sz, mt, COUNT(*) AS c, MIN(a) AS lo, MAX(a) AS hi FROM t GROUP BY p, n, sz, mt" \
	    > "$T/out$par" 2> "$T/err"; then
		echo "FAIL json at $par: exit status"; cat "$T/err"; fail=1; continue
	fi
	want=$(printf '%s, 300, 0, 299\n%s, 2, 1000, 1001\n' "$(expect "$T/d/x.json")" "$(expect "$T/d/y.json")")
	# the final count of each file: the last update of its group
	fin=$(grep -E '^\+(I|U)' "$T/out$par" | sed 's/^+[IU]\[//; s/\]$//' |
		awk -F', ' '{ last[$1] = $0 } END { for (k in last) print last[k] }' | sort)
	[ "$fin" = "$want" ] || { echo "FAIL json at $par:"; echo "got:  $fin"; echo "want: $want"; fail=1; }
done
# a partitioned table: the partition column and the file's name
if "$SLUICE" run -e "CREATE TABLE t (a INT, s STRING, dt STRING, f STRING METADATA FROM 'file.name')
    PARTITIONED BY (dt) WITH ('connector' = 'filesystem', 'path' = '$T/pt', 'format' = 'csv');
    SELECT * FROM t" > "$T/pout" 2> "$T/err"; then
	got=$(sort "$T/pout" | tr '\n' ' ')
	[ "$got" = "+I[1, x, 2024-01-01, a.csv] +I[2, y, 2024-01-01, a.csv] +I[3, z, 2024-01-02, b.csv] " ] ||
		{ echo "FAIL partitioned: $got"; fail=1; }
else
	echo "FAIL partitioned: exit status"; cat "$T/err"; fail=1
fi
# Parquet (a file format: whole files, row groups)
if "$SLUICE" run -e "CREATE TABLE w (a INT, b STRING) WITH ('connector' = 'filesystem',
      'path' = '$T/pq', 'format' = 'parquet');
    INSERT INTO w VALUES (1, 'x'), (2, 'y');" > /dev/null 2> "$T/err" &&
   "$SLUICE" run -e "CREATE TABLE r (a INT, b STRING, n STRING METADATA FROM 'file.name',
      sz BIGINT METADATA FROM 'file.size') WITH ('connector' = 'filesystem', 'path' = '$T/pq',
      'format' = 'parquet'); SELECT a, b, n, sz FROM r" > "$T/qout" 2> "$T/err"; then
	f=$(ls "$T/pq" | head -1)
	want="+I[1, x, $f, $(stat -c %s "$T/pq/$f")] +I[2, y, $f, $(stat -c %s "$T/pq/$f")] "
	got=$(sort "$T/qout" | tr '\n' ' ')
	[ "$got" = "$want" ] || { echo "FAIL parquet: $got (want $want)"; fail=1; }
else
	echo "FAIL parquet: exit status"; cat "$T/err"; fail=1
fi
# refusals
"$SLUICE" run -e "CREATE TABLE t (a INT, p INT METADATA FROM 'file.path') WITH ('connector' =
    'filesystem', 'path' = '$T/d', 'format' = 'json'); SELECT * FROM t" > /dev/null 2> "$T/err"
grep -q "metadata column 'p' ('file.path') is INT; it must be STRING" "$T/err" ||
	{ echo "FAIL wrong type:"; cat "$T/err"; fail=1; }
"$SLUICE" run -e "CREATE TABLE t (a INT, o STRING METADATA FROM 'file.owner') WITH ('connector' =
    'filesystem', 'path' = '$T/d', 'format' = 'json'); SELECT * FROM t" > /dev/null 2> "$T/err"
grep -q "Invalid metadata key 'file.owner' in column 'o'" "$T/err" ||
	{ echo "FAIL wrong key:"; cat "$T/err"; fail=1; }
[ $fail -eq 0 ] && echo "ok fs_metadata"
exit $fail
