#!/bin/bash
# rescale.sh - rescaling from savepoints (docs/parallel.md §7): the crash
# test's job (tests/crash/job.sh: tumbling windows, a GROUP BY into
# debezium-json, a regular join, an interval join, a Top-N), stopped with a
# savepoint (SIGTERM) and restarted from it at another parallelism along
# 3 -> 1 -> 3 -> 2, the last run to its end: the committed output equals an
# uninterrupted run's at parallelism 1, every row once, on each state
# backend.  One input file (one split), so the changelogs do not depend on
# how splits interleave and must be equal row for row.
#
#   rescale.sh [ROWS] [BACKEND...]      (defaults: 300000 hashmap rocksdb)
set -u
BUILD=${BUILD:-build}
ROWS=${1:-300000}
shift 2>/dev/null
BACKENDS=${*:-hashmap rocksdb}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
. "$ROOT/tests/crash/job.sh"
W=$(mktemp -d /tmp/sluice-rescale.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/in"
"$B/tools/gen_events" "$ROWS" 1000 7 > "$W/in/orders.jsonl"
job() { # dir backend [parallelism]
	[ -n "${3:-}" ] && echo "SET 'parallelism.default' = '$3';"
	cat <<SQL
SET 'execution.checkpointing.interval' = '200 ms';
SET 'pipeline.name' = 'rescale';
SET 'state.backend.type' = '$2';
SQL
	job_tables "$W/in" "$1"
}
# stop_soon PID DIR MS: SIGTERM MS milliseconds after the job took its lock
stop_soon() {
	local i=0
	while [ ! -e "$2/sluice-state/rescale/lock" ] && [ $i -lt 1000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	sleep "$(($3 / 1000)).$(printf '%03d' $(($3 % 1000)))"
	kill -TERM "$1" 2>/dev/null
}
fail=0
for be in $BACKENDS; do
	R="$W/ref-$be" D="$W/run-$be"
	mkdir -p "$R" "$D"
	job "$R" "$be" > "$R/job.sql"
	t0=$(date +%s%N)
	(cd "$R" && "$B/sluice" run job.sql) > "$R/log" 2>&1 || { echo "FAIL: reference run ($be)"; tail -3 "$R/log"; exit 1; }
	ref_ms=$((($(date +%s%N) - t0) / 1000000))
	sp="" stops=0
	for par in 3 1 3 2; do
		job "$D" "$be" $par > "$D/job.sql"
		from=""
		[ -n "$sp" ] && from="--from-savepoint $sp"
		(cd "$D" && exec "$B/sluice" run job.sql $from) > "$D/log.$par" 2>&1 &
		P=$!
		# each stage runs about a sixth of the reference's time
		[ $par = 2 ] && [ $stops = 3 ] || stop_soon $P "$D" $((ref_ms / 6 + 50))
		wait $P
		rc=$?
		cat "$D/log.$par" >> "$D/log"
		sp=$(sed -n 's/.*stopped with savepoint //p' "$D/log.$par")
		[ -n "$sp" ] && stops=$((stops + 1))
		if [ $rc != 0 ] && [ -z "$sp" ]; then
			echo "FAIL ($be): the run at parallelism $par failed ($rc)"; tail -5 "$D/log.$par"; fail=1; break
		fi
		[ -z "$sp" ] && break # it finished
	done
	if [ -n "$sp" ]; then # the last stop came too late to resume: finish at 2
		job "$D" "$be" 2 > "$D/job.sql"
		(cd "$D" && "$B/sluice" run job.sql --from-savepoint "$sp") >> "$D/log" 2>&1 || { echo "FAIL ($be): the last run"; fail=1; }
	fi
	rescaled=$(grep -c "rescaling from" "$D/log")
	for s in $SINKS; do
		cat "$R/$s"/part-* 2>/dev/null | sort > "$W/ref.$s"
		cat "$D/$s"/part-* 2>/dev/null | sort > "$W/run.$s"
		if ! cmp -s "$W/ref.$s" "$W/run.$s"; then
			echo "FAIL $s ($be): committed output differs from the uninterrupted run ($(wc -l < "$W/ref.$s") vs $(wc -l < "$W/run.$s") rows)"
			diff "$W/ref.$s" "$W/run.$s" | head -6
			fail=1
		fi
		if ls -a "$D/$s" | grep -q '^\.part'; then
			echo "FAIL $s ($be): staged or in-progress files left behind"; fail=1
		fi
	done
	[ "$rescaled" -ge 2 ] || { echo "FAIL ($be): only $rescaled restores rescaled (stops came after the job's end)"; fail=1; }
	echo "rescale ($be): $ROWS rows, 3 -> 1 -> 3 -> 2: $stops savepoints, $rescaled rescaled restores, $(wc -l < "$W/run.out_win") window rows, $(wc -l < "$W/run.out_agg") changelog rows, $(wc -l < "$W/run.out_top") top-n rows: $([ $fail = 0 ] && echo ok || echo FAILED)"
done
exit $fail
