#!/bin/bash
# fs_partition.sh - PARTITIONED BY filesystem tables end to end (Nexmark
# q10's sink: 'path' = 'file:///...', csv, partitions dt/hm, partition-time
# commit with a delay, success files, rollover options):
#   1. an uninterrupted run: one directory per (dt, hm), rows without the
#      partition columns, a _SUCCESS file in every partition at the end,
#      and the table read back (values from the directory names) equal to
#      the input (written through an INSERT with an OPTIONS hint that
#      overrides the sink's path and format);
#   2. the exactly-once proof: the same job, checkpointing every 100-300
#      ms, killed with SIGKILL 4 times at random moments and restarted
#      until it finishes; its committed output per partition equals the
#      uninterrupted run's as a multiset, no hidden file stays, and a
#      restart of the finished job writes nothing.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
SLUICE="$B/sluice"
ROWS=${ROWS:-100000}
KILLS=${KILLS:-4}
W=$(mktemp -d /tmp/sluice-fspart.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/ref" "$W/run"
"$B/tools/gen_events" "$ROWS" 1000 7 > "$W/orders.jsonl"

job() { # dir interval
	cat <<SQL
SET 'execution.checkpointing.interval' = '$2';
SET 'pipeline.name' = 'fspart';
CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'file://$W/orders.jsonl', 'format' = 'json');
CREATE TABLE fs_sink (id STRING, user_id STRING, amount DECIMAL(10, 2), dt STRING, hm STRING)
  PARTITIONED BY (dt, hm) WITH (
  'connector' = 'filesystem', 'path' = 'file://$1/out', 'format' = 'csv',
  'sink.partition-commit.trigger' = 'partition-time',
  'sink.partition-commit.delay' = '1 min',
  'sink.partition-commit.policy.kind' = 'success-file',
  'partition.time-extractor.timestamp-pattern' = '\$dt \$hm:00',
  'sink.rolling-policy.rollover-interval' = '1min',
  'sink.rolling-policy.check-interval' = '1min');
INSERT INTO fs_sink SELECT id, user_id, amount, DATE_FORMAT(event_time, 'yyyy-MM-dd'),
  DATE_FORMAT(event_time, 'HH:mm') FROM orders;
SQL
}

# the committed rows as "partition<TAB>row", sorted
committed() {
	(cd "$1/out" && for f in $(find . -name 'part-*' | sort); do
		sed "s#^#$(dirname "$f")\t#" "$f"; done) | sort
}

fail=0
job "$W/ref" "1 s" > "$W/ref/job.sql"
(cd "$W/ref" && "$SLUICE" run job.sql) > "$W/ref/log" 2>&1 || { echo "reference run failed"; cat "$W/ref/log"; exit 1; }
committed "$W/ref" > "$W/ref.rows"
[ "$(wc -l < "$W/ref.rows")" = "$ROWS" ] || { echo "FAIL: reference wrote $(wc -l < "$W/ref.rows") rows"; fail=1; }
nparts=$(find "$W/ref/out" -mindepth 2 -maxdepth 2 -type d | wc -l)
nsucc=$(find "$W/ref/out" -mindepth 3 -maxdepth 3 -name _SUCCESS | wc -l)
[ "$nparts" -gt 10 ] && [ "$nparts" = "$nsucc" ] || { echo "FAIL: $nparts partitions, $nsucc success files"; fail=1; }
ls "$W/ref/out" | grep -qx 'dt=2026-08-01' || { echo "FAIL: no dt=2026-08-01"; ls "$W/ref/out"; fail=1; }
ls "$W/ref/out/dt=2026-08-01" | grep -qx 'hm=00%3A00' || { echo "FAIL: hm not escaped"; fail=1; }
# rows hold id, user_id, amount only
awk -F'\t' '{ if (split($2, f, ",") != 3) bad++ } END { exit bad > 0 }' "$W/ref.rows" ||
	{ echo "FAIL: partition columns written into the files"; fail=1; }
# read back: the partition values come from the directory names
cat > "$W/read.sql" <<SQL
CREATE TABLE fs_sink (id STRING, user_id STRING, amount DECIMAL(10, 2), dt STRING, hm STRING)
  PARTITIONED BY (dt, hm) WITH ('connector' = 'filesystem', 'path' = '$W/ref/out', 'format' = 'csv');
CREATE TABLE back (id STRING, ts STRING) WITH ('connector' = 'filesystem', 'path' = '$W/not_here', 'format' = 'json');
INSERT INTO back /*+ OPTIONS('path' = '$W/back', 'format' = 'csv') */ SELECT id, CONCAT(dt, ' ', hm) FROM fs_sink;
SQL
"$SLUICE" run "$W/read.sql" > "$W/read.log" 2>&1 || { echo "FAIL: read back"; cat "$W/read.log"; fail=1; }
sort "$W"/back/part-* > "$W/back.rows"
sed 's/.*"id":"\([^"]*\)".*"event_time":"\(.\{16\}\).*/\1,\2/' "$W/orders.jsonl" | sort > "$W/want.rows"
cmp -s "$W/back.rows" "$W/want.rows" || { echo "FAIL: read back differs"; diff "$W/back.rows" "$W/want.rows" | head -5; fail=1; }

kills=0
attempts=0
while :; do
	attempts=$((attempts + 1))
	if [ $attempts -gt $((KILLS * 5 + 20)) ]; then echo "no progress after $attempts attempts"; exit 1; fi
	job "$W/run" "$((100 + RANDOM % 201)) ms" > "$W/run/job.sql"
	(cd "$W/run" && exec "$SLUICE" run job.sql) >> "$W/run/log" 2>&1 &
	pid=$!
	if [ $kills -lt "$KILLS" ]; then
		sleep "0.$(printf '%03d' $((50 + RANDOM % 400)))"
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
committed "$W/run" > "$W/run.rows"
if ! cmp -s "$W/ref.rows" "$W/run.rows"; then
	echo "FAIL: committed output differs from the uninterrupted run ($(wc -l < "$W/ref.rows") vs $(wc -l < "$W/run.rows") rows)"
	diff "$W/ref.rows" "$W/run.rows" | head -10
	fail=1
fi
hidden=$(find "$W/run/out" -name '.*' | wc -l)
[ "$hidden" = 0 ] || { echo "FAIL: $hidden hidden files left"; find "$W/run/out" -name '.*' | head; fail=1; }
rsucc=$(find "$W/run/out" -mindepth 3 -maxdepth 3 -name _SUCCESS | wc -l)
[ "$rsucc" = "$nsucc" ] || { echo "FAIL: $rsucc success files after the crashes, $nsucc without"; fail=1; }
(cd "$W/run" && "$SLUICE" run job.sql) > "$W/run/log2" 2>&1 || { echo "FAIL: restart of the finished job"; fail=1; }
committed "$W/run" | cmp -s - "$W/run.rows" || { echo "FAIL: the finished job wrote rows on restart"; fail=1; }
echo "fs_partition: $ROWS rows in $nparts partitions, $kills kills, $attempts runs: $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
