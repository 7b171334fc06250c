#!/bin/sh
# pending.sh - "why is there no output yet?" down to the Kafka partition
# (docs/observability.md, src/api/metrics_pending.c, exec/op_observe.c).
# An unbounded Kafka source at parallelism 1 reads a 2-partition topic (the
# librdkafka mock cluster): partition 1 holds one order at 10:10 and then
# stays silent, partition 0 receives orders hours later and, at the end, an
# order at 09:00 that is late by its partition's watermark.  While the job
# runs, /pending (and `sluice explain --pending`) must say
# - which window the WindowAggregate waits on (the 10:00 window, ending at
#   11:00, holding its one group) and the watermark it has (10:09:55);
# - that partition 1 of the topic holds the watermark back, with its
#   watermark and last event time;
# - the late row with its values and the watermark it was late for;
# /metrics must carry the window's state size and /jobs/<id> the same.  A
# second job with 'scan.watermark.idle-timeout' lists partition 1 as idle
# and left out.  A third reads a bounded topic ('scan.bounded.mode') and
# its progress must reach its end offsets.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
for tool in curl jq kcat; do
	command -v $tool >/dev/null 2>&1 || { echo "SKIP pending.sh: no $tool"; exit 0; }
done
W=$(mktemp -d /tmp/sluice-pending.XXXXXX)
. "$ROOT/tests/kafka/lib.sh"
SPID=""
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null; kafka_down; rm -rf "$W"' EXIT
cd "$W"
fail=0
bad() { echo "FAIL pending: $*"; fail=1; }
kafka_up

# start NAME TOPIC EXTRA-OPTION: the job on its own topic; sets U, SPID
start() {
	kafka_topic "$2" 2
	printf '{"u":"a","t":"2026-01-01 10:10:00"}\n' | kafka_cat -P -t "$2" -p 1
	printf '{"u":"a","t":"2026-01-01 10:00:00"}\n' | kafka_cat -P -t "$2" -p 0
	cat > "$1.sql" <<SQL
SET 'parallelism.default' = '1';
SET 'pipeline.name' = '$1';
CREATE TABLE o (u STRING, t TIMESTAMP(3), WATERMARK FOR t AS t - INTERVAL '5' SECOND)
WITH ('connector' = 'kafka', 'topic' = '$2', 'properties.bootstrap.servers' = '$KAFKA_BOOTSTRAP',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json' $3);
CREATE TABLE out (ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(t),
  INTERVAL '1' HOUR)) GROUP BY window_start, window_end;
SQL
	"$B/sluice" run "$1.sql" --http 127.0.0.1:0 > "$1.out" 2> "$1.err" &
	SPID=$!
	PORT=""
	for _ in $(seq 1 200); do
		PORT=$(sed -n 's|^sluice: serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$1.err")
		[ -n "$PORT" ] && break
		sleep 0.05
	done
	[ -n "$PORT" ] || { bad "$1: no 'serving' line"; cat "$1.err"; exit 1; }
	U="http://127.0.0.1:$PORT"
	for m in 10 11 12; do
		printf '{"u":"b","t":"2026-01-01 12:%s:00"}\n' "$m" | kafka_cat -P -t "$2" -p 0
	done
	printf '{"u":"late","t":"2026-01-01 09:00:00"}\n' | kafka_cat -P -t "$2" -p 0
}
# wait_for FILE PATTERN: /pending until it holds PATTERN (10 s at most)
wait_for() {
	for _ in $(seq 1 100); do
		curl -sf "$U/pending" > "$1" && grep -q "$2" "$1" && return 0
		sleep 0.1
	done
	return 1
}
stop() { kill -TERM "$SPID"; wait "$SPID"; SPID=""; }

start p1 tp1 ""
wait_for p1.pending 'late rows dropped' || bad "no late row in /pending"
grep -q '^#[0-9]* WindowAggregate waits for its input watermark, now 2026-01-01 10:09:55, to reach 2026-01-01 11:00:00$' p1.pending ||
	bad "the watermark it has and the one it waits for"
grep -q '^  its oldest open window ends at 2026-01-01 11:00:00, holding 1 group; 2 windows open in all, published' p1.pending ||
	bad "the oldest open window"
grep -q "^  held back by source o: watermark 2026-01-01 10:09:55, 6 rows read$" p1.pending ||
	bad "the source instance"
grep -q "^  in it, held back by topic 'tp1' partition 1: watermark 2026-01-01 10:09:55, 1 rows read, last event time 2026-01-01 10:10:00, last row [0-9.]* s ago$" p1.pending ||
	bad "the partition that holds it back"
# (the row as the window receives it: the columns the query reads; column
# pruning drops the order's id, which nothing reads)
grep -q "^  #[0-9]* WindowAggregate: 1; the newest, +I\[2026-01-01 09:00:00\], was late for watermark 2026-01-01 12:11:55, dropped [0-9.]* s ago$" p1.pending ||
	bad "the late row with its values"
grep -q "^    topic 'tp1' partition 0: watermark 2026-01-01 12:11:55, 5 rows read, last event time 2026-01-01 09:00:00" p1.pending ||
	bad "the watermarks of the partitions"
[ $fail = 0 ] || cat p1.pending
"$B/sluice" explain --pending "127.0.0.1:$PORT" > p1.explain || bad "explain --pending: status $?"
grep -q "in it, held back by topic 'tp1' partition 1" p1.explain || bad "explain --pending"
# the window's state: one group in each of two windows
curl -sf "$U/metrics" > p1.metrics || bad "/metrics"
sz=$(sed -n 's/^sluice_state_size_bytes{.*operator_name="WindowAggregate".*} \([0-9]*\)$/\1/p' p1.metrics)
en=$(sed -n 's/^sluice_state_entries{.*operator_name="WindowAggregate".*} \([0-9]*\)$/\1/p' p1.metrics)
[ "${sz:-0}" -gt 0 ] && [ "$en" = 2 ] || bad "state size of the window: '$sz' bytes, '$en' entries"
JID=$(curl -sf "$U/jobs" | jq -r '.jobs[0].id')
js=$(curl -sf "$U/jobs/$JID" | jq '[.vertices[] | select(.name == "WindowAggregate") | .metrics."state-size"] | .[0]')
[ "$js" = "$sz" ] || bad "/jobs state-size $js, /metrics $sz"
stop
[ $fail = 0 ] && echo "ok   /pending names the Kafka partition that holds the window back, the window and the late row"

start p2 tp2 ", 'scan.watermark.idle-timeout' = '200 ms'"
wait_for p2.pending "idle, left out of its watermark: topic 'tp2' partition 1" ||
	{ bad "the idle partition"; cat p2.pending; }
stop
[ $fail = 0 ] && echo "ok   /pending lists an idle partition as left out"

# percent done of a bounded Kafka source ('scan.bounded.mode'): offsets
# consumed of those up to the end offsets, 7 of 7 once it ended (the job
# stays up on a held-open stdin beside it)
kafka_topic tb 2
printf '{"u":"a","t":"2026-01-01 10:00:00"}\n{"u":"b","t":"2026-01-01 10:00:01"}\n{"u":"c","t":"2026-01-01 10:00:02"}\n' |
	kafka_cat -P -t tb -p 0
printf '{"u":"d","t":"2026-01-01 10:00:00"}\n{"u":"e","t":"2026-01-01 10:00:01"}\n{"u":"f","t":"2026-01-01 10:00:02"}\n{"u":"g","t":"2026-01-01 10:00:03"}\n' |
	kafka_cat -P -t tb -p 1
# (at parallelism 2: at 1 the held-open stdin's read blocks the job's one thread)
cat > p3.sql <<SQL
SET 'parallelism.default' = '2';
CREATE TABLE kb (u STRING, t TIMESTAMP(3))
WITH ('connector' = 'kafka', 'topic' = 'tb', 'properties.bootstrap.servers' = '$KAFKA_BOOTSTRAP',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE held (u STRING, t TIMESTAMP(3)) WITH ('connector' = 'stdin', 'format' = 'json');
CREATE TABLE out (u STRING) WITH ('connector' = 'blackhole');
INSERT INTO out SELECT u FROM kb UNION ALL SELECT u FROM held;
SQL
mkfifo held.in
"$B/sluice" run p3.sql --http 127.0.0.1:0 < held.in > p3.out 2> p3.err &
SPID=$!
exec 8> held.in
PORT=""
for _ in $(seq 1 200); do
	PORT=$(sed -n 's|^sluice: serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' p3.err)
	[ -n "$PORT" ] && break
	sleep 0.05
done
U="http://127.0.0.1:$PORT"
prog=""
for _ in $(seq 1 100); do
	prog=$(curl -sf "$U/jobs/p3" | jq -r '.vertices[] | select(.name == "Source: kb") |
		"\(.metrics.sourceBytesRead)/\(.metrics.sourceBytesTotal)"')
	[ "$prog" = 7/7 ] && break
	sleep 0.1
done
[ "$prog" = 7/7 ] || { bad "bounded Kafka progress '$prog', not 7/7"; cat p3.err; }
exec 8>&-
wait "$SPID" || bad "p3 exit status $?"
SPID=""
[ $fail = 0 ] && echo "ok   a bounded Kafka source's progress: offsets to the end offsets ($prog)"
exit $fail
