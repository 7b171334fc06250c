#!/bin/sh
# kafka_discovery.sh - 'topic-pattern' with partition discovery
# ('scan.topic-partition-discovery.interval', docs/kafka.md "Partition
# discovery") against librdkafka's mock cluster, 5-9 s, and against the real
# broker in kafka_broker.sh, which also grows 'ev-a' from 2 to 3
# partitions while run 1 runs (the mock can create topics while running,
# not add partitions to one): its new partition is discovered, read from
# offset 0, and its rows count in both windows:
#   - run 1 reads 'ev-a' (2 partitions); topic 'ev-b' is created empty
#     while it runs and is discovered; ev-a's rows at 00:10 then leave the
#     00:05 window open, because ev-b's partition (no row yet) holds the
#     source's watermark at -infinity: its watermark joins the minimum.
#     ev-b's 00:05:30 row, produced half a second later, still counts
#     (the 00:05 window has 3 rows, not 2);
#   - SIGTERM stops run 1 with a savepoint, which holds ev-b's offset;
#     while it is stopped topic 'ev-c' appears with a 00:10:30 row;
#   - run 2 ('scan.startup.mode' = 'latest-offset') restores: ev-b goes on
#     from its saved offset (its 00:10 row counts once) and ev-c, not in
#     the savepoint, is read from its earliest offset as Flink does (with
#     the startup mode's latest offset its row would be lost and its
#     partition would hold the 00:10 window open): the 00:10 window has
#     4 rows;
#   - a discovery interval that is not a duration is refused (in
#     kafka_source.sh), '0' turns discovery off: run 3 never sees 'ev-d';
#   - parallelism 3 over a 1-partition topic: the instances without a
#     partition are idle, not holding the window back, and stay to read
#     the partitions of a topic discovered later.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
W=$(mktemp -d /tmp/sluice-kdisc.XXXXXX)
. "$ROOT/tests/kafka/lib.sh"
PID=
trap '[ -n "$PID" ] && kill -9 $PID 2>/dev/null; kafka_down; rm -rf "$W"' EXIT
cd "$W"
fail=0
kafka_up
kafka_topic ev-a 2
put() { # TOPIC PARTITION TIME
	printf '{"t":"2026-01-01 %s"}\n' "$3" | kafka_cat -P -t "$1" -p "$2"
}
# wait_for FILE PATTERN: up to 10 s
wait_for() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
	grep -q "$2" "$1"
}
job() { # NAME STARTUP INTERVAL
	cat > "$1.sql" <<SQL
SET 'execution.checkpointing.interval' = '300 ms';
SET 'pipeline.name' = '$1';
CREATE TABLE ev (t TIMESTAMP(3), WATERMARK FOR t AS t)
WITH ('connector' = 'kafka', 'topic-pattern' = 'ev-.*',
  'properties.bootstrap.servers' = '$KAFKA_BOOTSTRAP',
  'scan.startup.mode' = '$2', 'scan.topic-partition-discovery.interval' = '$3',
  'format' = 'json');
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(t), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;
SQL
}
job disc earliest-offset '100 ms'
put ev-a 0 00:00:10; put ev-a 1 00:00:20; put ev-a 0 00:05:00; put ev-a 1 00:05:00
"$B/sluice" run disc.sql > run1.out 2> run1.err &
PID=$!
wait_for run1.out '00:00:00, 2\]' || { echo "FAIL run 1 did not close the first window"; cat run1.out run1.err; exit 1; }
kafka_topic ev-b 1
if wait_for run1.err "discovered topic 'ev-b' partition 0, read from offset 0"; then
	echo "ok   a topic created while the job runs is discovered (stderr names it)"
else
	echo "FAIL ev-b was not discovered"; cat run1.err; fail=1
fi
n5=3 n10=4
if [ "$KAFKA_PEER" = broker ]; then
	"$B/tools/kafka_admin" "$KAFKA_BOOTSTRAP" ev-a 3 add || { echo "FAIL cannot grow ev-a"; exit 1; }
	if wait_for run1.err "discovered topic 'ev-a' partition 2, read from offset 0"; then
		echo "ok   a partition added to a topic while the job runs is discovered"
	else
		echo "FAIL partition 2 of ev-a was not discovered"; cat run1.err; fail=1
	fi
	put ev-a 2 00:05:10; put ev-a 2 00:10:00
	n5=4 n10=5
fi
put ev-a 0 00:10:00; put ev-a 1 00:10:00
sleep 0.5
if grep -q '00:05:00' run1.out; then
	echo "FAIL the 00:05 window closed while ev-b's partition had no row"; cat run1.out; fail=1
else
	echo "ok   the discovered partition's watermark joins the minimum (the window waits for it)"
fi
put ev-b 0 00:05:30; put ev-b 0 00:10:00
if wait_for run1.out "00:05:00, $n5\\]"; then
	echo "ok   the discovered partitions' rows count in their window ($n5 rows)"
else
	echo "FAIL the 00:05 window is not $n5 rows"; cat run1.out; fail=1
fi
sleep 0.4 # a checkpoint after ev-b's rows (the savepoint holds them anyway)
kill -TERM $PID; wait $PID; PID=
kafka_topic ev-c 1
put ev-c 0 00:10:30
put ev-a 0 00:15:00; put ev-a 1 00:15:00; put ev-b 0 00:15:00; put ev-c 0 00:15:00
[ "$KAFKA_PEER" = broker ] && put ev-a 2 00:15:00
job disc latest-offset '100 ms'
"$B/sluice" run disc.sql > run2.out 2> run2.err &
PID=$!
if wait_for run2.out "00:10:00, $n10\\]"; then
	echo "ok   after the restore: ev-b resumes at its saved offset, ev-c (not in the savepoint) is read from its earliest offset"
else
	echo "FAIL the 00:10 window is not $n10 rows after the restore"; cat run2.out run2.err; fail=1
fi
grep -q "ev-c' partition 0 is not in the restored checkpoint: read from its earliest offset 0" run2.err ||
	{ echo "FAIL stderr does not say where ev-c starts"; cat run2.err; fail=1; }
kill -TERM $PID; wait $PID; PID=
if [ "$(grep -c '+I' run1.out run2.out | awk -F: '{s += $2} END {print s}')" = 3 ]; then
	echo "ok   three windows in all, none twice"
else
	echo "FAIL windows"; cat run1.out run2.out; fail=1
fi
# '0' turns discovery off
job off earliest-offset 0
"$B/sluice" run off.sql > run3.out 2> run3.err &
PID=$!
wait_for run3.out "00:10:00, $n10\\]" || { echo "FAIL run 3"; cat run3.out run3.err; fail=1; }
kafka_topic ev-d 1
sleep 0.5
kill -TERM $PID; wait $PID; PID=
if grep -q "discovered" run3.err; then
	echo "FAIL discovery ran with interval 0"; cat run3.err; fail=1
else
	echo "ok   'scan.topic-partition-discovery.interval' = '0' turns discovery off"
fi
# parallelism 3 over one partition: the two instances without a partition
# are idle (they hold no window open) and stay for discovery; 'px-b' (2
# partitions) appears and its partitions go to their owners (Flink's
# getSplitOwner), whose rows count
kafka_topic px-a 1
put px-a 0 00:00:10; put px-a 0 00:05:00
cat > par.sql <<SQL
SET 'parallelism.default' = '3';
CREATE TABLE px (t TIMESTAMP(3), WATERMARK FOR t AS t)
WITH ('connector' = 'kafka', 'topic-pattern' = 'px-.*',
  'properties.bootstrap.servers' = '$KAFKA_BOOTSTRAP', 'scan.startup.mode' = 'earliest-offset',
  'scan.topic-partition-discovery.interval' = '100 ms', 'format' = 'json');
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE px, DESCRIPTOR(t), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;
SQL
"$B/sluice" run par.sql > run4.out 2> run4.err &
PID=$!
if wait_for run4.out '00:00:00, 1\]'; then
	echo "ok   parallelism 3, one partition: the instances without one are idle, the window closes"
else
	echo "FAIL parallelism 3: the first window did not close"; cat run4.out run4.err; fail=1
fi
kafka_topic px-b 2
wait_for run4.err "discovered topic 'px-b' partition 1" && wait_for run4.err "discovered topic 'px-b' partition 0" ||
	{ echo "FAIL px-b not discovered"; cat run4.err; fail=1; }
put px-b 0 00:05:30; put px-b 1 00:05:40
put px-a 0 00:10:00; put px-b 0 00:10:00; put px-b 1 00:10:00
if wait_for run4.out '00:05:00, 3\]'; then
	echo "ok   parallelism 3: both discovered partitions are read by their owners"
else
	echo "FAIL parallelism 3: the 00:05 window is not 3 rows"; cat run4.out run4.err; fail=1
fi
kill -TERM $PID; wait $PID; PID=
exit $fail
