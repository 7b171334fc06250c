#!/bin/sh
# kafka_idle.sh - 'scan.watermark.idle-timeout' per partition (docs/kafka.md,
# docs/watermarks.md): an unbounded Kafka source over a 2-partition topic
# whose partition 1 holds one early order and then stays silent, while
# partition 0 keeps receiving orders hours later.  Without the timeout the
# source's watermark is partition 1's, so the first hourly window never
# closes; with 'scan.watermark.idle-timeout' = '300 ms' partition 1 stops
# holding it back and the window closes while the job runs.  Each job runs
# about 2.5 s against the mock cluster and is stopped with SIGTERM.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
W=$(mktemp -d /tmp/sluice-kidle.XXXXXX)
. "$ROOT/tests/kafka/lib.sh"
trap 'kafka_down; rm -rf "$W"' EXIT
cd "$W"
fail=0
kafka_up
# run NAME TOPIC IDLE-OPTION: the job on its own topic, fed while it runs
run() {
	kafka_topic "$2" 2
	printf '{"u":"a","t":"2026-01-01 10:10:00"}\n' | kafka_cat -P -t "$2" -p 1
	printf '{"u":"a","t":"2026-01-01 10:00:00"}\n' | kafka_cat -P -t "$2" -p 0
	cat > "$1.sql" <<SQL
CREATE TABLE o (u STRING, t TIMESTAMP(3), WATERMARK FOR t AS t - INTERVAL '5' SECOND)
WITH ('connector' = 'kafka', 'topic' = '$2', 'properties.bootstrap.servers' = '$KAFKA_BOOTSTRAP',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json' $3);
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(t), INTERVAL '1' HOUR))
GROUP BY window_start, window_end;
SQL
	"$B/sluice" run "$1.sql" > "$1.out" 2> "$1.err" &
	pid=$!
	for m in 10 11 12 13 14 15 16 17 18 19 20 21; do
		printf '{"u":"a","t":"2026-01-01 12:%s:00"}\n' "$m" | kafka_cat -P -t "$2" -p 0
		sleep 0.2
	done
	kill -TERM $pid
	wait $pid
	cat "$1.out"
}
run noidle t1 ""
if grep -q '2026-01-01 10:00:00' noidle.out; then
	echo "FAIL without idle-timeout the 10:00 window closed"; cat noidle.out; fail=1
else
	echo "ok   without 'scan.watermark.idle-timeout' a silent partition holds the window open"
fi
run idle t2 ", 'scan.watermark.idle-timeout' = '300 ms'"
if grep -q '+I\[2026-01-01 10:00:00, 2\]' idle.out; then
	echo "ok   with 'scan.watermark.idle-timeout' the idle partition stops holding it: the window closes"
else
	echo "FAIL with idle-timeout the 10:00 window did not close"; cat idle.out idle.err; fail=1
fi
exit $fail
