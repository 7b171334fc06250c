#!/bin/bash
# eos_crash.sh - the exactly-once Kafka sink's crash test against a real
# broker (docs/kafka.md "Exactly-once sink"; tests/kafka/lib.sh with
# KAFKA_PEER=broker, sharing $KAFKA_SHARED_BOOTSTRAP when set): ROWS orders
# in a topic of PARTS partitions, a job reading them (bounded at the latest
# offsets) into a 1-minute tumbling window written to a Kafka topic with
# 'sink.delivery-guarantee' = 'exactly-once', checkpointing every 100-300
# ms, killed with SIGKILL at random moments and restarted until it
# finishes.  The output topic read with isolation.level=read_committed must
# hold exactly the rows of an uninterrupted run (written the same way to
# another topic), none twice.  The first run dies at the fault point after
# checkpoint 2's manifest, before its transaction's commit: the next run
# must commit that transaction from the checkpoint's record.
#
#   eos_crash.sh [ROWS] [KILLS] [PARTS]        (defaults: 100000 3 4)
set -u
BUILD=${BUILD:-build}
ROWS=${1:-100000}
KILLS=${2:-3}
PARTS=${3:-4}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
SLUICE="$B/sluice"
W=$(mktemp -d /tmp/sluice-keos.XXXXXX)
KAFKA_PEER=${KAFKA_PEER:-broker}
. "$ROOT/tests/kafka/lib.sh"
trap 'kafka_down; [ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
mkdir -p "$W/ref" "$W/run"
kafka_up
kafka_topic eos_orders "$PARTS"
kafka_topic eos_ref 3
kafka_topic eos_run 3
"$B/tools/gen_events" "$ROWS" 1000 7 | awk '{ print NR "|" $0 }' |
	kafka_cat -P -t eos_orders -K'|' -X linger.ms=20
job() { # dir interval out-topic
	cat <<SQL
SET 'execution.checkpointing.interval' = '$2';
SET 'pipeline.name' = 'keos';
SET 'parallelism.default' = '1';
CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'kafka', 'topic' = 'eos_orders', 'properties.bootstrap.servers' = '$KAFKA_BOOTSTRAP',
    'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE win_out (user_id STRING, ws TIMESTAMP(3), total DECIMAL(38, 2), n BIGINT)
  WITH ('connector' = 'kafka', 'topic' = '$3', 'properties.bootstrap.servers' = '$KAFKA_BOOTSTRAP',
    'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once',
    'sink.transactional-id-prefix' = '$3', 'key.format' = 'raw', 'key.fields' = 'user_id');
INSERT INTO win_out SELECT user_id, window_start, SUM(amount), COUNT(*)
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(event_time), INTERVAL '1' MINUTE))
  GROUP BY user_id, window_start, window_end;
SQL
}
job "$W/ref" "1 s" eos_ref > "$W/ref/job.sql"
t0=$(date +%s%N)
(cd "$W/ref" && "$SLUICE" run job.sql --stats) > "$W/ref/log" 2>&1 || { echo "reference run failed"; cat "$W/ref/log"; exit 1; }
ref_ms=$((($(date +%s%N) - t0) / 1000000))

newest_ckpt() { # the newest completed checkpoint's id of the killed runs (0: none)
	ls -d "$W"/run/sluice-state/*/checkpoints/chk-*/_manifest 2>/dev/null |
		sed 's|.*/chk-\([0-9]*\)/_manifest|\1|' | sort -n | tail -1 | grep . || echo 0
}
kills=0
attempts=0
while :; do
	attempts=$((attempts + 1))
	if [ $attempts -gt $((KILLS * 5 + 20)) ]; then echo "no progress after $attempts attempts"; exit 1; fi
	job "$W/run" "$((100 + RANDOM % 201)) ms" eos_run > "$W/run/job.sql"
	if [ $attempts = 1 ]; then
		# first: die after checkpoint 2's manifest is durable, before its
		# transaction commits; the restart must commit it from the record
		(cd "$W/run" && SLUICE_FAULT=after-manifest-rename@2 SLUICE_KAFKA_TRACE=1 \
			exec "$SLUICE" run job.sql --stats) >> "$W/run/log" 2>&1
		grep -q "fault point 'after-manifest-rename'" "$W/run/log" ||
			{ echo "FAIL: the fault point did not fire"; tail -5 "$W/run/log"; exit 1; }
		continue
	fi
	(cd "$W/run" && SLUICE_KAFKA_TRACE=1 exec "$SLUICE" run job.sql --stats) >> "$W/run/log" 2>&1 &
	pid=$!
	if [ $kills -lt "$KILLS" ]; then
		# kill once this run completed a checkpoint (so that restores and
		# recoveries happen), 0-250 ms later: before, during or after
		# the next one's pre-commit, manifest and commit
		c0=$(newest_ckpt)
		i=0
		while [ "$(newest_ckpt)" = "$c0" ] && kill -0 $pid 2>/dev/null &&
			[ $i -lt 500 ]; do
			sleep 0.01
			i=$((i + 1))
		done
		sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.3f", 0.25 * r / 32767 }')"
		if kill -9 $pid 2>/dev/null; then
			wait $pid 2>/dev/null
			kills=$((kills + 1))
			continue
		fi
	fi
	wait $pid
	rc=$?
	[ $rc = 0 ] && break
	echo "run failed with status $rc"; tail -20 "$W/run/log"; exit 1
done

read_topic() { # topic -> its committed values, sorted
	kafka_cat -C -t "$1" -o beginning -e -q -X isolation.level=read_committed | sort
}
read_topic eos_ref > "$W/ref.rows"
read_topic eos_run > "$W/run.rows"
uncommitted=$(kafka_cat -C -t eos_run -o beginning -e -q -X isolation.level=read_uncommitted | wc -l)
fail=0
if [ ! -s "$W/ref.rows" ] || ! cmp -s "$W/ref.rows" "$W/run.rows"; then
	echo "FAIL: the committed output differs from the uninterrupted run's ($(wc -l < "$W/ref.rows") vs $(wc -l < "$W/run.rows") rows)"
	diff "$W/ref.rows" "$W/run.rows" | head -10
	fail=1
fi
dups=$(uniq -d < "$W/run.rows" | wc -l)
[ "$dups" = 0 ] || { echo "FAIL: $dups rows twice"; fail=1; }
restored=$(grep -c "^restored " "$W/run/log")
recommitted=$(grep -c "committed again" "$W/run/log")
[ "$recommitted" -ge 1 ] || { echo "FAIL: no restart committed a pre-committed transaction again"; fail=1; }
echo "kafka exactly-once sink crash test: $ROWS rows in $PARTS partitions, $kills kills, $attempts runs, $restored restores, $recommitted transactions committed again at recovery, reference run $ref_ms ms, $(wc -l < "$W/run.rows") committed rows (read_committed; $uncommitted in the log with aborted ones): $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
