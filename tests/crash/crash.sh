#!/bin/bash
# crash.sh - the exactly-once proof (docs/semantics.md §3): a job over a bounded
# input, checkpointing every 100-300 ms, is killed with SIGKILL at random
# moments and restarted each time until it finishes; its committed output,
# compared as a multiset, must equal an uninterrupted run's, with no row
# twice.  Then a restart of the finished job must emit nothing.
#
#   crash.sh [ROWS] [KILLS] [BACKEND]      (defaults: 1000000 20 hashmap)
#
# CRASH_FILES=N cuts the input into N files of a directory (N splits, each
# with its own watermark, read interleaved: docs/watermarks.md, "Splits");
# with SLUICE_TEST_SPLIT_BYTES the files are cut into ranges too, so the
# kills restore the job mid-way through many splits.
#
# The job (tests/crash/job.sh): 1-minute tumbling windows into a json file
# sink, a non-windowed aggregate into a debezium-json file sink, a regular
# join, an interval join and a Top-N, each into its own file sink.
set -u
BUILD=${BUILD:-build}
ROWS=${1:-1000000}
KILLS=${2:-20}
BACKEND=${3:-hashmap}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
SLUICE="$B/sluice"
. "$ROOT/tests/crash/job.sh"
W=$(mktemp -d /tmp/sluice-crash.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/in" "$W/ref" "$W/run"
"$B/tools/gen_events" "$ROWS" 1000 7 > "$W/in/orders.jsonl"
if [ "${CRASH_FILES:-1}" -gt 1 ]; then
	(cd "$W/in" && split -n "l/$CRASH_FILES" -d --additional-suffix=.jsonl orders.jsonl orders- &&
		rm orders.jsonl)
fi

job() { # dir interval
	cat <<SQL
SET 'execution.checkpointing.interval' = '$2';
SET 'pipeline.name' = 'crash';
SET 'state.backend.type' = '$BACKEND';
SQL
	job_tables "$W/in" "$1"
}

job "$W/ref" "1 s" > "$W/ref/job.sql"
(cd "$W/ref" && "$SLUICE" run job.sql) > "$W/ref/log" 2>&1 || { echo "reference run failed"; cat "$W/ref/log"; exit 1; }

kills=0
attempts=0
while :; do
	attempts=$((attempts + 1))
	if [ $attempts -gt $((KILLS * 5 + 20)) ]; then echo "no progress after $attempts attempts"; exit 1; fi
	job "$W/run" "$((100 + RANDOM % 201)) ms" > "$W/run/job.sql"
	(cd "$W/run" && exec "$SLUICE" run job.sql) >> "$W/run/log" 2>&1 &
	pid=$!
	if [ $kills -lt "$KILLS" ]; then
		sleep "0.$(printf '%03d' $((50 + RANDOM % 550)))"
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
for s in $SINKS; do
	cat "$W/ref/$s"/part-* 2>/dev/null | sort > "$W/ref.$s"
	cat "$W/run/$s"/part-* 2>/dev/null | sort > "$W/run.$s"
	if ! cmp -s "$W/ref.$s" "$W/run.$s"; then
		echo "FAIL $s: committed output differs from the uninterrupted run ($(wc -l < "$W/ref.$s") vs $(wc -l < "$W/run.$s") rows)"
		diff "$W/ref.$s" "$W/run.$s" | head -10
		fail=1
	fi
	if ls -a "$W/run/$s" | grep -q '^\.part'; then
		echo "FAIL $s: staged or in-progress files left behind"; ls -a "$W/run/$s"; fail=1
	fi
done
dups=$(cut -d, -f1-2 "$W/run.out_win" | sort | uniq -d | wc -l)
[ "$dups" = 0 ] || { echo "FAIL: $dups window rows twice"; fail=1; }

# a finished job restarts to nothing
before=$(for s in $SINKS; do cat "$W/run/$s"/part-*; done | wc -l)
(cd "$W/run" && "$SLUICE" run job.sql) > "$W/run/log2" 2>&1 || { echo "FAIL: restart of a finished job"; fail=1; }
after=$(for s in $SINKS; do cat "$W/run/$s"/part-*; done | wc -l)
[ "$before" = "$after" ] || { echo "FAIL: the finished job emitted $((after - before)) rows on restart"; fail=1; }

echo "crash test ($BACKEND): $ROWS rows, $kills kills, $attempts runs, $(wc -l < "$W/run.out_win") window rows, $(wc -l < "$W/run.out_agg") changelog rows, $(wc -l < "$W/run.out_join") join, $(wc -l < "$W/run.out_ij") interval-join, $(wc -l < "$W/run.out_top") top-n rows: $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
