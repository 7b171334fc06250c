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
# another topic), none twice.  Each round's first run dies at the fault
# point after checkpoint 2's manifest, before its transaction's commit:
# the next run must commit that transaction from the checkpoint's record.
# Rounds (a fresh output topic and state each) repeat until KILLS SIGKILLs
# were made.
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
trap 'kafka_down; rm -rf "$W"' EXIT
mkdir -p "$W/ref"
kafka_up
kafka_topic eos_orders "$PARTS"
kafka_topic eos_ref 3
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

read_topic() { # topic -> its committed values, sorted
	kafka_cat -C -t "$1" -o beginning -e -q -X isolation.level=read_committed | sort
}
read_topic eos_ref > "$W/ref.rows"
[ -s "$W/ref.rows" ] || { echo "FAIL: the uninterrupted run wrote nothing"; exit 1; }

# one round: a job writing to topic eos_run<round> (its own transactional
# ids and state), a fault after checkpoint 2's manifest first, then
# SIGKILLs until it finishes; its committed output must equal the
# reference.  Rounds repeat until KILLS kills were made (a round's job has
# only so many checkpoints to be killed after).
kills=0
attempts=0
round=0
recommitted=0
fail=0
summary=""
while [ $kills -lt "$KILLS" ] || [ $round = 0 ]; do
	round=$((round + 1))
	T=eos_run$round
	R=$W/run$round
	mkdir -p "$R"
	kafka_topic $T 3
	rk=0
	ra=0
	while :; do
		ra=$((ra + 1))
		attempts=$((attempts + 1))
		if [ $ra -gt $((KILLS * 5 + 20)) ]; then echo "no progress after $ra attempts"; exit 1; fi
		job "$R" "$((100 + RANDOM % 201)) ms" $T > "$R/job.sql"
		if [ $ra = 1 ]; then
			job "$R" "100 ms" $T > "$R/job.sql"
			# first: die after checkpoint 2's manifest is durable, before its
			# transaction commits; the restart must commit it from the record
			(cd "$R" && SLUICE_FAULT=after-manifest-rename@2 SLUICE_KAFKA_TRACE=1 \
				exec "$SLUICE" run job.sql --stats) >> "$R/log" 2>&1
			grep -q "fault point 'after-manifest-rename'" "$R/log" ||
				{ echo "FAIL: the fault point did not fire"; tail -5 "$R/log"; exit 1; }
			continue
		fi
		(cd "$R" && SLUICE_KAFKA_TRACE=1 exec "$SLUICE" run job.sql --stats) >> "$R/log" 2>&1 &
		pid=$!
		if [ $kills -lt "$KILLS" ]; then
			# kill at a random moment within an uninterrupted run's wall
			# time (this round's fault left a checkpoint to restore:
			# before, during or after a pre-commit, manifest or commit)
			sleep "$(awk -v r=$RANDOM -v t=$ref_ms 'BEGIN { printf "%.3f", (50 + t * r / 32767) / 1000 }')"
			if kill -9 $pid 2>/dev/null; then
				wait $pid 2>/dev/null
				kills=$((kills + 1))
				rk=$((rk + 1))
				continue
			fi
		fi
		wait $pid
		rc=$?
		[ $rc = 0 ] && break
		echo "run failed with status $rc"; tail -20 "$R/log"; exit 1
	done
	read_topic $T > "$R.rows"
	uncommitted=$(kafka_cat -C -t $T -o beginning -e -q -X isolation.level=read_uncommitted | wc -l)
	if ! cmp -s "$W/ref.rows" "$R.rows"; then
		echo "FAIL round $round: the committed output differs from the uninterrupted run's ($(wc -l < "$W/ref.rows") vs $(wc -l < "$R.rows") rows)"
		diff "$W/ref.rows" "$R.rows" | head -10
		fail=1
	fi
	dups=$(uniq -d < "$R.rows" | wc -l)
	[ "$dups" = 0 ] || { echo "FAIL round $round: $dups rows twice"; fail=1; }
	rc_again=$(grep -c "committed again" "$R/log")
	[ "$rc_again" -ge 1 ] || { echo "FAIL round $round: no restart committed a pre-committed transaction again"; fail=1; }
	recommitted=$((recommitted + rc_again))
	echo "round $round: fault + $rk kills, $ra runs, $rc_again transaction(s) committed again at recovery, $(wc -l < "$R.rows") committed rows (read_committed; $uncommitted in the log with aborted ones)"
done
echo "kafka exactly-once sink crash test: $ROWS rows in $PARTS partitions, $round round(s), $kills kills + $round faults, $attempts runs, $recommitted transactions committed again at recovery, reference run $ref_ms ms, $(wc -l < "$W/ref.rows") rows each: $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
