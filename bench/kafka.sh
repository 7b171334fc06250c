#!/bin/sh
# bench/kafka.sh - `make bench`'s Kafka figure (docs/kafka.md, "Benchmark"):
# JSON orders over a real Apache Kafka broker -> sluice's kafka source ->
# 1-minute TUMBLE SUM/COUNT by user -> blackhole, in rows per CPU-second of
# the sluice process, beside the floor of the same run: a plain librdkafka
# consumer (bench/floor_kafka.c) reading the same topic to its end.
#
# Usage: sh bench/kafka.sh BUILD_DIR      (called by `make bench`)
#
# The broker (tests/kafka/lib.sh, KAFKA_PEER=broker: kafka_2.13 from Maven
# Central, KRaft, loopback) is started here and stopped at the end; its CPU
# time is not counted (both the floor and sluice are measured as the child
# process alone, bench/rusage.c).  BENCH_KAFKA_ROWS (2000000) orders of
# bench/gen_orders.c (10 000 users), produced with kcat into 4 partitions;
# sluice runs at parallelism 1 ('parallelism.default' pinned), so the
# figure is per core.  BENCH_REPEAT (3): best of that many runs.
set -eu
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
ROWS=${BENCH_KAFKA_ROWS:-2000000}
REPEAT=${BENCH_REPEAT:-3}
TOOLS=$B/bench
W=$(mktemp -d "${TMPDIR:-/tmp}/sluice-kbench.XXXXXX")
KAFKA_PEER=broker
KAFKA_BROKER_JVM_OPTS=  # the broker with its full JIT (lib.sh's default is C1 only)
. "$ROOT/tests/kafka/lib.sh"
trap 'kafka_down; rm -rf "$W"' EXIT INT TERM
mkdir -p "$TOOLS"
for t in gen_orders rusage; do
	if [ ! -x "$TOOLS/$t" ] || [ "$ROOT/bench/$t.c" -nt "$TOOLS/$t" ]; then
		${CC:-cc} -O2 -Wall -Wextra -o "$TOOLS/$t" "$ROOT/bench/$t.c"
	fi
done
if [ ! -x "$TOOLS/floor_kafka" ] || [ "$ROOT/bench/floor_kafka.c" -nt "$TOOLS/floor_kafka" ]; then
	${CC:-cc} -O2 -Wall -Wextra -o "$TOOLS/floor_kafka" "$ROOT/bench/floor_kafka.c" \
		$(pkg-config --cflags --libs rdkafka 2>/dev/null || echo -lrdkafka)
fi

kafka_up
kafka_topic bench_orders 4
t0=$(date +%s%N)
"$TOOLS/gen_orders" "$ROWS" 10000 |
	kafka_cat -P -t bench_orders -X linger.ms=50 -X batch.num.messages=10000 -X queue.buffering.max.messages=1000000
prod_ms=$((($(date +%s%N) - t0) / 1000000))

cat > "$W/job.sql" <<SQL
SET 'parallelism.default' = '1';
CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time - INTERVAL '2' SECOND)
  WITH ('connector' = 'kafka', 'topic' = 'bench_orders', 'properties.bootstrap.servers' = '$KAFKA_BOOTSTRAP',
    'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE out_w (user_id STRING, window_start TIMESTAMP(3), total DECIMAL(38, 2), cnt BIGINT)
  WITH ('connector' = 'blackhole');
INSERT INTO out_w SELECT user_id, window_start, SUM(amount), COUNT(*)
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(event_time), INTERVAL '1' MINUTE))
  GROUP BY user_id, window_start, window_end;
SQL

measure() { # NAME CMD...: sets CPU (s, the smallest of REPEAT runs), RSS (KiB), WALL (ms of that run)
	name=$1
	shift
	CPU= RSS=0 WALL=
	i=0
	while [ "$i" -lt "$REPEAT" ]; do
		i=$((i + 1))
		t1=$(date +%s%N)
		if ! "$TOOLS/rusage" "$W/$name.ru" "$@" > "$W/$name.log" 2>&1; then
			echo "bench kafka $name failed:" >&2
			cat "$W/$name.log" >&2
			exit 1
		fi
		w=$((($(date +%s%N) - t1) / 1000000))
		read -r u s rss < "$W/$name.ru"
		c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
		if [ -z "$CPU" ] || [ "$(awk -v a="$c" -v b="$CPU" 'BEGIN { print (a + 0 < b + 0) }')" = 1 ]; then
			CPU=$c
			WALL=$w
		fi
		RSS=$(awk -v a="$RSS" -v b="$rss" 'BEGIN { print (b + 0 > a + 0 ? b : a) }')
	done
}
rate() { awk -v r="$ROWS" -v c="$1" 'BEGIN { printf "%.2f M", (c > 0 ? r / c : 0) / 1e6 }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f MB", k * 1024 / 1e6 }'; }

measure floor "$TOOLS/floor_kafka" "$KAFKA_BOOTSTRAP" bench_orders
F_CPU=$CPU F_RSS=$RSS F_WALL=$WALL
got=$(sed -n 's/^\([0-9]*\) messages.*/\1/p' "$W/floor.log")
[ "$got" = "$ROWS" ] || { echo "bench kafka: the floor read $got messages, not $ROWS" >&2; exit 1; }
measure sluice "$B/sluice" run "$W/job.sql"
S_CPU=$CPU S_RSS=$RSS S_WALL=$WALL
read_rows=$(sed -n 's/^source orders: \([0-9]*\) rows read.*/\1/p' "$W/sluice.log")
out_rows=$(sed -n 's/^sink out_w: \([0-9]*\) rows written.*/\1/p' "$W/sluice.log")
[ "$read_rows" = "$ROWS" ] || { echo "bench kafka: sluice read $read_rows rows, not $ROWS" >&2; cat "$W/sluice.log" >&2; exit 1; }

echo
echo "sluice kafka bench  $(date -u '+%Y-%m-%d %H:%M UTC')  $(nproc) cores, Kafka $(sed -n 's|.*kafka_2.13-\([0-9.]*\)\.jar.*|\1|p' "$B/kafka/classpath.txt" | head -1) (KRaft, one node, loopback)"
echo "  $ROWS JSON orders in 4 partitions (produced with kcat in $prod_ms ms); rows per CPU-second of the"
echo "  reading process alone (the broker's CPU not counted), best of $REPEAT runs"
echo
printf '%-44s %8s %8s %14s %10s\n' "run" "cpu s" "wall ms" "rows/cpu-s" "peak RSS"
printf '%-44s %8s %8s %14s %10s\n' "kafka json -> tumble 1 min -> blackhole" "$S_CPU" "$S_WALL" "$(rate "$S_CPU")" "$(mib "$S_RSS")"
printf '%-44s %8s %8s %14s %10s\n' "   floor: librdkafka consumer to the end" "$F_CPU" "$F_WALL" "$(rate "$F_CPU")" "$(mib "$F_RSS")"
echo "window rows out: $out_rows"
