#!/bin/bash
# crash.sh - the exactly-once proof with a Kafka source (docs/kafka.md,
# docs/checkpoints.md "Kafka"): ROWS orders produced with kcat into a topic
# of PARTS partitions (tests/kafka/lib.sh's peer: the mock by default), a
# job reading it (bounded at the latest offsets) into a 1-minute tumbling
# window (json) and a non-windowed aggregate (debezium-json) file sink,
# checkpointing every 100-300 ms through the forked writer while
# librdkafka's threads run, is killed with SIGKILL at random moments and
# restarted until it finishes; its committed window rows must equal an
# uninterrupted run's as a multiset, none twice, and the aggregate's
# changelog must fold to the same final values (see fold below).
#
#   crash.sh [ROWS] [KILLS] [PARTS]        (defaults: 200000 5 8)
#
# The mock keeps 5 MiB per partition: ROWS x ~90 bytes / PARTS must stay
# below it.
set -u
BUILD=${BUILD:-build}
ROWS=${1:-200000}
KILLS=${2:-5}
PARTS=${3:-8}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
SLUICE="$B/sluice"
W=$(mktemp -d /tmp/sluice-kcrash.XXXXXX)
. "$ROOT/tests/kafka/lib.sh"
trap 'kafka_down; rm -rf "$W"' EXIT
mkdir -p "$W/ref" "$W/run"
kafka_up
kafka_topic orders "$PARTS"
# keyed by row number: spread evenly (the mock keeps 5 MiB a partition, and
# keyless messages go to partitions in sticky runs)
"$B/tools/gen_events" "$ROWS" 1000 7 | awk '{ print NR "|" $0 }' |
	kafka_cat -P -t orders -K'|' -X linger.ms=20
SINKS="out_win out_agg"
job() { # dir interval
	cat <<SQL
SET 'execution.checkpointing.interval' = '$2';
SET 'pipeline.name' = 'kcrash';
CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3),
  \`partition\` INT METADATA VIRTUAL,
  WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '$KAFKA_BOOTSTRAP',
    'properties.group.id' = 'kcrash-$(basename "$1")', 'scan.startup.mode' = 'earliest-offset',
    'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE win_out (user_id STRING, ws TIMESTAMP(3), total DECIMAL(38, 2), n BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '$1/out_win', 'format' = 'json');
CREATE TABLE agg_out (user_id STRING, total DECIMAL(38, 2), n BIGINT, parts BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '$1/out_agg', 'format' = 'debezium-json');
INSERT INTO win_out SELECT user_id, window_start, SUM(amount), COUNT(*)
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(event_time), INTERVAL '1' MINUTE))
  GROUP BY user_id, window_start, window_end;
INSERT INTO agg_out SELECT user_id, SUM(amount), COUNT(*), COUNT(DISTINCT \`partition\`)
  FROM orders GROUP BY user_id;
SQL
}
job "$W/ref" "1 s" > "$W/ref/job.sql"
t0=$(date +%s%N)
(cd "$W/ref" && "$SLUICE" run job.sql --stats) > "$W/ref/log" 2>&1 || { echo "reference run failed"; cat "$W/ref/log"; exit 1; }
ref_ms=$((($(date +%s%N) - t0) / 1000000))

kills=0
attempts=0
while :; do
	attempts=$((attempts + 1))
	if [ $attempts -gt $((KILLS * 5 + 20)) ]; then echo "no progress after $attempts attempts"; exit 1; fi
	job "$W/run" "$((100 + RANDOM % 201)) ms" > "$W/run/job.sql"
	(cd "$W/run" && exec "$SLUICE" run job.sql --stats) >> "$W/run/log" 2>&1 &
	pid=$!
	if [ $kills -lt "$KILLS" ]; then
		# kill at 15-50% of the uninterrupted run's wall time (a restored run has less to do)
		sleep "$(awk -v r=$RANDOM -v t=$ref_ms 'BEGIN { printf "%.3f", t * (0.15 + 0.35 * r / 32767) / 1000 }')"
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

fail=0
# the window rows are deterministic (a row is late by its own partition's
# watermark, windows fire at the minimum: docs/watermarks.md); the
# non-windowed aggregate's intermediate updates depend on how the
# partitions' messages interleave, which no two runs share, so its
# changelog is compared folded: per user, the sum of every 'after' minus
# every 'before' (a row emitted twice or lost changes it)
fold() { # debezium-json lines -> "user n total" per user, sorted
	jq -r '(if .after then "\(.after.user_id) \(.after.n) \(.after.total)" else empty end),
	       (if .before then "\(.before.user_id) -\(.before.n) -\(.before.total)" else empty end)' |
		awk '{ n[$1] += $2; t[$1] += $3 } END { for (u in n) printf "%s %d %.2f\n", u, n[u], t[u] }' | sort
}
for s in $SINKS; do
	if [ "$s" = out_agg ]; then
		cat "$W/ref/$s"/part-* 2>/dev/null | fold > "$W/ref.$s"
		cat "$W/run/$s"/part-* 2>/dev/null | fold > "$W/run.$s"
	else
		cat "$W/ref/$s"/part-* 2>/dev/null | sort > "$W/ref.$s"
		cat "$W/run/$s"/part-* 2>/dev/null | sort > "$W/run.$s"
	fi
	if [ ! -s "$W/ref.$s" ] || ! cmp -s "$W/ref.$s" "$W/run.$s"; then
		echo "FAIL $s: committed output differs from the uninterrupted run ($(wc -l < "$W/ref.$s") vs $(wc -l < "$W/run.$s") rows)"
		diff "$W/ref.$s" "$W/run.$s" | head -10
		fail=1
	fi
done
dups=$(cut -d, -f1-2 "$W/run.out_win" | sort | uniq -d | wc -l)
[ "$dups" = 0 ] || { echo "FAIL: $dups window rows twice"; fail=1; }
restored=$(grep -c "^restored " "$W/run/log")
ckpts=$(grep -c "^checkpoint [0-9]" "$W/run/log")
blocked=$(grep -o "blocked [0-9.]* *[mu]s" "$W/run/log" | head -20 | tr '\n' ' ')
echo "kafka crash test: $ROWS rows in $PARTS partitions, $kills kills, $attempts runs, the last run restored a checkpoint: $restored, reference run $ref_ms ms, $(wc -l < "$W/run.out_win") window rows, $(wc -l < "$W/run.out_agg") users in the folded changelog: $([ $fail = 0 ] && echo ok || echo FAILED)"
echo "blocked times (first 20): $blocked"
exit $fail
