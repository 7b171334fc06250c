#!/bin/sh
# bench/stateful.sh - `make bench`, part 3: the stateful SQL of the joins /
# dedup / Top-N issue, each in rows per CPU-second with its peak RSS, beside
# the floor of the same run (the same sources straight into blackholes).
#
#   1. join:     a 5 M-row datagen stream (key random in 1..100 K) JOIN a
#                dimension changelog of 100 K rows, one per key (debezium-
#                json file with a PRIMARY KEY, generated once).
#   2. interval: two 5 M-row datagen streams, a.seq = b.seq AND a.ts BETWEEN
#                b.ts - 1 s AND b.ts (b.ts = a.ts + 0.5 s): one match a row.
#   3. dedup:    event-time keep-first (ROW_NUMBER ... ORDER BY ts ASC = 1)
#                over 5 M rows, keys random in 1..1 M.
#   4. top-10:   ROW_NUMBER() OVER (PARTITION BY k ORDER BY amount DESC)
#                <= 10 over 5 M rows, keys random in 1..10 K, rn selected.
#
# A benchmark, never a timed test.  Rows per CPU-second counts the input
# rows of every source.  Usage: sh bench/stateful.sh BUILD_DIR
# (env: BENCH_SF_ROWS, default 5000000; BENCH_REPEAT, default 3).
set -eu
BUILD=${1:-build}
N=${BENCH_SF_ROWS:-5000000}
DIM=100000
REPEAT=${BENCH_REPEAT:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
W=$(mktemp -d "${TMPDIR:-/tmp}/sluice-sfbench.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
cd "$W"
awk -v n=$DIM 'BEGIN { for (i = 1; i <= n; i++)
	printf "{\"before\":null,\"after\":{\"k\":%d,\"name\":\"name-%d\"},\"op\":\"c\"}\n", i, i }' > dim.json

# measure NAME ROWS SQLFILE: best CPU of REPEAT runs; sets CPU, RSS, RATE
measure() {
	CPU= RSS=0
	i=0
	while [ "$i" -lt "$REPEAT" ]; do
		i=$((i + 1))
		if ! "$B/bench/rusage" "$1.ru" "$B/sluice" run "$3" > "$1.log" 2>&1; then
			echo "bench $1 failed:" >&2
			cat "$1.log" >&2
			exit 1
		fi
		read -r u s rss _wall < "$1.ru"
		c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
		CPU=$(awk -v a="$CPU" -v b="$c" 'BEGIN { print (a == "" || b + 0 < a + 0 ? b : a) }')
		RSS=$(awk -v a="$RSS" -v b="$rss" 'BEGIN { print (b + 0 > a + 0 ? b : a) }')
	done
	RATE=$(awk -v r="$2" -v c="$CPU" 'BEGIN { printf "%.2f M", (c > 0 ? r / c / 1e6 : 0) }')
	RSS=$(awk -v k="$RSS" 'BEGIN { printf "%.1f MB", k * 1024 / 1e6 }')
}

gen() { # NAME KEYMAX [TS_SHIFT]: a datagen table seq, k, amount, ts
	cat <<SQL
CREATE TABLE $1 (seq BIGINT, k BIGINT, amount DECIMAL(10, 2),
  ts AS TO_TIMESTAMP_LTZ(seq + ${3:-0}, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'datagen', 'rows-per-second' = '0', 'number-of-rows' = '$N',
        'fields.seq.kind' = 'sequence', 'fields.seq.start' = '1', 'fields.seq.end' = '$N',
        'fields.k.min' = '1', 'fields.k.max' = '$2',
        'fields.amount.min' = '0.01', 'fields.amount.max' = '10000.00');
SQL
}
dim() {
	cat <<SQL
CREATE TABLE dim (k BIGINT, name STRING, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = 'dim.json', 'format' = 'debezium-json');
SQL
}
hole() { # NAME: a blackhole taking (seq, k, amount, ts) and its INSERT from NAME
	echo "CREATE TABLE f_$1 (seq BIGINT, k BIGINT, amount DECIMAL(10, 2), ts TIMESTAMP_LTZ(3)) WITH ('connector' = 'blackhole');"
	echo "INSERT INTO f_$1 SELECT seq, k, amount, ts FROM $1;"
}

{ gen g $DIM; dim; cat <<SQL
CREATE TABLE out (seq BIGINT, k BIGINT, name STRING) WITH ('connector' = 'blackhole');
INSERT INTO out SELECT g.seq, g.k, d.name FROM g JOIN dim d ON g.k = d.k;
SQL
} > join.sql
{ gen g $DIM; dim; hole g; cat <<SQL
CREATE TABLE f_dim (k BIGINT, name STRING) WITH ('connector' = 'blackhole');
INSERT INTO f_dim SELECT k, name FROM dim;
SQL
} > join_floor.sql
{ gen a 1000; gen b 1000 500; cat <<SQL
CREATE TABLE out (sa BIGINT, sb BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out SELECT a.seq, b.seq FROM a JOIN b ON a.seq = b.seq
  AND a.ts BETWEEN b.ts - INTERVAL '1' SECOND AND b.ts;
SQL
} > interval.sql
{ gen a 1000; gen b 1000 500; hole a; hole b; } > interval_floor.sql
{ gen g 1000000; cat <<SQL
CREATE TABLE out (k BIGINT, seq BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out SELECT k, seq FROM (
  SELECT k, seq, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts ASC) AS rn FROM g) WHERE rn = 1;
SQL
} > dedup.sql
{ gen g 1000000; hole g; } > dedup_floor.sql
{ gen g 10000; cat <<SQL
CREATE TABLE out (k BIGINT, seq BIGINT, amount DECIMAL(10, 2), rn BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out SELECT k, seq, amount, rn FROM (
  SELECT k, seq, amount, ROW_NUMBER() OVER (PARTITION BY k ORDER BY amount DESC) AS rn FROM g)
  WHERE rn <= 10;
SQL
} > topn.sql
{ gen g 10000; hole g; } > topn_floor.sql

echo
echo "stateful SQL  $(date -u '+%Y-%m-%d %H:%M UTC')  ($N-row streams, best of $REPEAT runs)"
printf '%-40s %12s %8s %14s %10s\n' "run" "input rows" "cpu s" "rows/cpu-s" "peak RSS"
row() { # LABEL NAME ROWS
	measure "$2" "$3" "$2.sql"
	out=$(sed -n 's/^sink out: \([0-9]*\) rows written.*/\1/p' "$2.log")
	printf '%-40s %12s %8s %14s %10s   (%s rows out)\n' "$1" "$3" "$CPU" "$RATE" "$RSS" "$out"
	measure "$2_floor" "$3" "$2_floor.sql"
	printf '%-40s %12s %8s %14s %10s\n' "   floor: sources -> blackhole" "$3" "$CPU" "$RATE" "$RSS"
}
row "1. join 5 M x dim changelog 100 K" join $((N + DIM))
row "2. interval join 5 M x 5 M" interval $((2 * N))
row "3. event-time dedup (keep first)" dedup "$N"
row "4. top-10 per key (10 K keys)" topn "$N"
