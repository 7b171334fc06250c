#!/bin/bash
# match.sh - exactly-once and rescaling of MATCH_RECOGNIZE (docs/match_recognize.md):
# a job of two MATCH_RECOGNIZE queries over one input file (a greedy loop
# with PREV and WITHIN, SKIP PAST LAST ROW; a reluctant loop, SKIP TO NEXT
# ROW), checkpointing every 50-150 ms, is killed with SIGKILL at 20-80% of
# an uninterrupted run's wall time and restarted, each run at parallelism
# 1, 2 or 3 at random (so most restores rescale the partitions' key
# groups), until KILLS kills hit a running job; each finished run's
# committed output must equal the uninterrupted run's at parallelism 1 as a
# multiset, with no staged file left, and at least one restart must have
# restored a checkpoint.  One file (one split): which rows of one rowtime
# come first does not depend on how splits interleave, so neither do the
# matches.  (crash.sh's loop, for this job alone.)
#
#   match.sh [ROWS] [KILLS] [BACKEND]   (defaults: 100000 3 hashmap)
set -u
BUILD=${BUILD:-build}
ROWS=${1:-100000}
KILLS=${2:-3}
BACKEND=${3:-hashmap}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
SLUICE="$B/sluice"
W=$(mktemp -d /tmp/sluice-match.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/in" "$W/ref" "$W/run"
"$B/tools/gen_events" "$ROWS" 200 11 > "$W/in/orders.jsonl"
SINKS="out_down out_next"

job() { # dir interval parallelism
	cat <<SQL
SET 'parallelism.default' = '$3';
SET 'execution.checkpointing.interval' = '$2';
SET 'pipeline.name' = 'match';
SET 'state.backend.type' = '$BACKEND';
CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '$W/in', 'format' = 'json');
CREATE TABLE down_out (user_id STRING, f STRING, l STRING, n BIGINT, top DECIMAL(10, 2),
  total DECIMAL(38, 2)) WITH ('connector' = 'filesystem', 'path' = '$1/out_down', 'format' = 'json');
INSERT INTO down_out SELECT * FROM orders MATCH_RECOGNIZE (
  PARTITION BY user_id ORDER BY event_time
  MEASURES FIRST(A.id) AS f, LAST(C.id) AS l, COUNT(*) AS n, MAX(B.amount) AS top,
    SUM(B.amount) AS total
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B+ C) WITHIN INTERVAL '2' MINUTE
  DEFINE A AS A.amount < 500, B AS B.amount > PREV(B.amount), C AS C.amount < LAST(B.amount, 1));
CREATE TABLE next_out (user_id STRING, f STRING, l STRING, nb BIGINT, avg_b DECIMAL(38, 6))
  WITH ('connector' = 'filesystem', 'path' = '$1/out_next', 'format' = 'json');
INSERT INTO next_out SELECT * FROM orders MATCH_RECOGNIZE (
  PARTITION BY user_id ORDER BY event_time
  MEASURES FIRST(A.id) AS f, C.id AS l, COUNT(B.id) AS nb, AVG(B.amount) AS avg_b
  AFTER MATCH SKIP TO NEXT ROW
  PATTERN (A B+? C)
  DEFINE A AS A.amount >= 900, B AS B.amount < 900, C AS C.amount >= 900);
SQL
}

job "$W/ref" "100 ms" 1 > "$W/ref/job.sql"
t0=$(date +%s%N)
(cd "$W/ref" && "$SLUICE" run job.sql) > "$W/ref/log" 2>&1 || { echo "reference run failed"; cat "$W/ref/log"; exit 1; }
ref_ms=$((($(date +%s%N) - t0) / 1000000))
for s in $SINKS; do
	cat "$W/ref/$s"/part-* 2>/dev/null | sort > "$W/ref.$s"
	[ -s "$W/ref.$s" ] || { echo "FAIL: the reference run matched nothing in $s"; exit 1; }
done

fail=0
check_run() {
	for s in $SINKS; do
		cat "$W/run/$s"/part-* 2>/dev/null | sort > "$W/run.$s"
		if ! cmp -s "$W/ref.$s" "$W/run.$s"; then
			echo "FAIL $s (cycle $cycles): committed output differs from the uninterrupted run ($(wc -l < "$W/ref.$s") vs $(wc -l < "$W/run.$s") rows)"
			diff "$W/ref.$s" "$W/run.$s" | head -10
			fail=1
		fi
		if ls -a "$W/run/$s" | grep -q '^\.part'; then
			echo "FAIL $s (cycle $cycles): staged or in-progress files left behind"; fail=1
		fi
	done
}

# want: the kills to make; raised by one while no restart has restored a
# checkpoint yet (a loaded machine can kill every run before its first
# checkpoint completes: "no restart restored a checkpoint", once, at load
# 18), bounded by the attempts limit below
want=$KILLS
kills=0 after=0 cycles=0 attempts=0 fresh=1
while :; do
	attempts=$((attempts + 1))
	if [ $attempts -gt $((KILLS * 8 + 20)) ]; then echo "no progress after $attempts attempts ($kills kills)"; exit 1; fi
	iv=$((50 + RANDOM % 101))
	[ $iv -le $((ref_ms / 5)) ] || iv=$((ref_ms / 5))
	[ $iv -ge 20 ] || iv=20
	job "$W/run" "$iv ms" $((1 + RANDOM % 3)) > "$W/run/job.sql"
	t0=$(date +%s%N)
	(cd "$W/run" && exec "$SLUICE" run job.sql) >> "$W/run/log" 2>&1 &
	pid=$!
	if [ $kills -lt "$want" ]; then
		ms=$((ref_ms * (20 + RANDOM % 61) / 100))
		[ $ms -ge $((iv * 2 + 50)) ] || ms=$((iv * 2 + 50))
		sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
		kill -9 $pid 2>/dev/null
	fi
	wait $pid 2>/dev/null
	rc=$?
	if [ $rc = 137 ] && [ $kills -lt "$want" ]; then
		fresh=0
		kills=$((kills + 1))
		continue
	fi
	[ $rc = 0 ] || { echo "run failed with status $rc"; tail -20 "$W/run/log"; exit 1; }
	if [ $kills -lt "$want" ]; then
		after=$((after + 1))
		run_ms=$((($(date +%s%N) - t0) / 1000000))
		if [ "$fresh" = 1 ] && [ $run_ms -lt $ref_ms ]; then ref_ms=$run_ms; fi
	fi
	check_run
	cycles=$((cycles + 1))
	if [ $kills -ge "$want" ]; then
		cat "$W/runs.log" "$W/run/log" 2>/dev/null | grep -q "resuming from checkpoint" && break
		want=$((want + 1))
	fi
	fresh=1
	cat "$W/run/log" >> "$W/runs.log"
	rm -rf "$W/run"
	mkdir -p "$W/run"
done
cat "$W/run/log" >> "$W/runs.log"
restores=$(grep -c "resuming from checkpoint" "$W/runs.log")
[ "$restores" -gt 0 ] || { echo "FAIL: no restart restored a checkpoint"; tail "$W/runs.log"; fail=1; }
echo "match crash test ($BACKEND, parallelism 1-3 at random against 1): $ROWS rows, $kills kills in $cycles cycles ($after finished before their kill), $attempts runs, $restores restored a checkpoint, $(wc -l < "$W/run.out_down") + $(wc -l < "$W/run.out_next") matches: $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
