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
#      ms, killed with SIGKILL at random moments and restarted until it
#      finishes; its committed output per partition equals the
#      uninterrupted run's as a multiset, no hidden file stays, and a
#      restart of the finished job writes nothing.  The kills land at
#      20-80% of the uninterrupted run's measured wall time (at least two
#      checkpoint intervals in, and never before the run's first
#      checkpoint completed), so a faster engine is still killed
#      mid-run; only a kill that ended a running job counts, and the test
#      needs KILLS (4) of them: when the job finishes first, its output is
#      checked and it starts over in a fresh directory (a cycle).
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

# at parallelism 1: the 'success-file' commit policy is refused above 1
# (docs/nexmark.md, q10), and the engine's default is the CPU count
job() { # dir interval
	cat <<SQL
SET 'parallelism.default' = '1';
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
# the reference checkpoints every 200 ms, as the killed runs do on average,
# so that its wall time is theirs uninterrupted
job "$W/ref" "200 ms" > "$W/ref/job.sql"
t0=$(date +%s%N)
(cd "$W/ref" && "$SLUICE" run job.sql) > "$W/ref/log" 2>&1 || { echo "reference run failed"; cat "$W/ref/log"; exit 1; }
ref_ms=$((($(date +%s%N) - t0) / 1000000))
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

# check_run: the finished run's committed output against the reference
check_run() {
	committed "$W/run" > "$W/run.rows"
	if ! cmp -s "$W/ref.rows" "$W/run.rows"; then
		echo "FAIL (cycle $cycles): committed output differs from the uninterrupted run ($(wc -l < "$W/ref.rows") vs $(wc -l < "$W/run.rows") rows)"
		diff "$W/ref.rows" "$W/run.rows" | head -10
		fail=1
	fi
	hidden=$(find "$W/run/out" -name '.*' | wc -l)
	[ "$hidden" = 0 ] || { echo "FAIL (cycle $cycles): $hidden hidden files left"; find "$W/run/out" -name '.*' | head; fail=1; }
	rsucc=$(find "$W/run/out" -mindepth 3 -maxdepth 3 -name _SUCCESS | wc -l)
	[ "$rsucc" = "$nsucc" ] || { echo "FAIL (cycle $cycles): $rsucc success files after the crashes, $nsucc without"; fail=1; }
}

kills=0     # SIGKILLs that ended a running job
after=0     # SIGKILLs sent after the job had finished (not counted)
cycles=0    # runs to the end, each checked against the reference
attempts=0
fresh=1     # the run starts from scratch (no checkpoint of this cycle)
while :; do
	attempts=$((attempts + 1))
	if [ $attempts -gt $((KILLS * 5 + 20)) ]; then echo "no progress after $attempts attempts ($kills kills)"; exit 1; fi
	# checkpoint every 100-300 ms, but at least 5 times in the job's time
	iv=$((100 + RANDOM % 201))
	[ $iv -le $((ref_ms / 5)) ] || iv=$((ref_ms / 5))
	[ $iv -ge 20 ] || iv=20
	job "$W/run" "$iv ms" > "$W/run/job.sql"
	t0=$(date +%s%N)
	(cd "$W/run" && exec "$SLUICE" run job.sql) >> "$W/run/log" 2>&1 &
	pid=$!
	if [ $kills -lt "$KILLS" ]; then
		ms=$((ref_ms * (20 + RANDOM % 61) / 100))
		[ $ms -ge $((iv * 2 + 50)) ] || ms=$((iv * 2 + 50))
		sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
		# a kill before the run's first checkpoint completed restores
		# nothing; on a loaded machine start-up can outlast the kill
		# moment of a fast job, so such a kill waits for one (or the end)
		while kill -0 $pid 2>/dev/null &&
			! ls -d "$W/run/sluice-state/fspart/checkpoints"/chk-* >/dev/null 2>&1; do
			sleep 0.02
		done
		kill -9 $pid 2>/dev/null
	fi
	wait $pid 2>/dev/null
	rc=$?
	if [ $rc = 137 ] && [ $kills -lt "$KILLS" ]; then
		fresh=0
		kills=$((kills + 1))
		continue
	fi
	[ $rc = 0 ] || { echo "run failed with status $rc"; tail -20 "$W/run/log"; exit 1; }
	if [ $kills -lt "$KILLS" ]; then
		after=$((after + 1))
		# a whole run from scratch finished before its kill: the reference,
		# timed on a busier machine, overstated the job's time; time the
		# kills by this run from now on
		run_ms=$((($(date +%s%N) - t0) / 1000000))
		if [ "$fresh" = 1 ] && [ $run_ms -lt $ref_ms ]; then ref_ms=$run_ms; fi
	fi
	check_run
	cycles=$((cycles + 1))
	[ $kills -ge "$KILLS" ] && break
	# the job finished before the kill: start over for the kills still to come
	fresh=1
	cat "$W/run/log" >> "$W/runs.log"
	rm -rf "$W/run"
	mkdir -p "$W/run"
done
cat "$W/run/log" >> "$W/runs.log"
[ $kills -ge "$KILLS" ] || { echo "FAIL: $kills real kills, $KILLS wanted"; fail=1; }
restores=$(grep -c "resuming from checkpoint" "$W/runs.log")
[ "$restores" -gt 0 ] || { echo "FAIL: no restart restored a checkpoint"; tail "$W/runs.log"; fail=1; }
(cd "$W/run" && "$SLUICE" run job.sql) > "$W/run/log2" 2>&1 || { echo "FAIL: restart of the finished job"; fail=1; }
committed "$W/run" | cmp -s - "$W/run.rows" || { echo "FAIL: the finished job wrote rows on restart"; fail=1; }
echo "fs_partition: $ROWS rows in $nparts partitions, $kills kills in $cycles cycles ($after kills came after the job had finished, not counted), $attempts runs, $restores restored a checkpoint, kills at 20-80% of the uninterrupted ${ref_ms} ms: $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
