#!/bin/sh
# bench/callgrind.sh - instruction counts of make bench's window query on
# fixed small inputs, the figure load does not distort (docs/performance.md).
#
# Usage: sh bench/callgrind.sh [BUILD_DIR]     (default build; needs valgrind)
#   CG_PAR=P runs the jobs with --set parallelism.default=P (unset: the
#   default parallelism, the CPUs this process may use).
#
# Runs `sluice run` under `valgrind --tool=callgrind` on two inputs made by
# bench/gen_orders.c: 200 K orders (job 1's distribution) and the first
# 400 K rows of the high-cardinality case (job 4: 10 ms of event time
# between rows), each file JSON -> 1-minute TUMBLE SUM/COUNT by user ->
# blackhole, and prints the total instructions (Ir) and the rows written.
# Inputs are generated once into BUILD_DIR/bench-cg/.  A benchmark, never a
# test: compare two builds by running it on each.
set -eu
BUILD=${1:-build}
DIR=$BUILD/bench-cg
mkdir -p "$DIR"
make -s "$BUILD/bench/gen_orders" "$BUILD/sluice" >/dev/null
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind not found" >&2; exit 1; }
[ -s "$DIR/o200k.json" ] || "$BUILD/bench/gen_orders" 200000 10000 > "$DIR/o200k.json"
[ -s "$DIR/hc400k.json" ] || "$BUILD/bench/gen_orders" 400000 10000 10 > "$DIR/hc400k.json"
for f in o200k hc400k; do
	cat > "$DIR/$f.sql" <<SQL
CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time - INTERVAL '2' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '$DIR/$f.json', 'format' = 'json');
CREATE TABLE out_w (user_id STRING, window_start TIMESTAMP(3), total DECIMAL(38, 2), cnt BIGINT)
  WITH ('connector' = 'blackhole');
INSERT INTO out_w SELECT user_id, window_start, SUM(amount), COUNT(*)
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(event_time), INTERVAL '1' MINUTE))
  GROUP BY user_id, window_start, window_end;
SQL
	out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BUILD/sluice" run \
		${CG_PAR:+--set parallelism.default=$CG_PAR} "$DIR/$f.sql" 2>&1)
	ir=$(echo "$out" | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
	rows=$(echo "$out" | sed -n 's/^sink out_w: \([0-9]*\) rows written.*/\1/p')
	echo "$f: $ir instructions, $rows rows written"
done
