#!/bin/bash
# rescale.sh - rescaling from savepoints (docs/parallel.md §7): the crash
# test's job (tests/crash/job.sh: tumbling windows, a GROUP BY into
# debezium-json, a regular join, an interval join, a Top-N), stopped with a
# savepoint (SIGTERM) and restarted from it at another parallelism along
# 3 -> 1 -> 3 -> 2, the last run to its end: the committed output equals an
# uninterrupted run's at parallelism 1, every row once, on each state
# backend.  One input file (one split), so the changelogs do not depend on
# how splits interleave and must be equal row for row.  Each of the first
# three stages stops (SIGTERM, with savepoint) once it has read a sixth of
# the rows (stop_at_rows: its live metrics), not after a time.
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
SET 'execution.checkpointing.interval' = '50 ms';
SET 'pipeline.name' = 'rescale';
SET 'state.backend.type' = '$2';
SQL
	job_tables "$W/in" "$1"
}
# maxid DIR: the highest checkpoint or savepoint id of the job (0: none)
maxid() {
	ls "$1/sluice-state/rescale/checkpoints" "$1/sluice-state/rescale/savepoints" 2>/dev/null |
		sed -n 's/^\(chk\|savepoint\)-\([0-9]*\)$/\2/p' | sort -n | tail -1
}
# stop_at_rows PID LOG N: SIGTERM once the run's scans of orders emitted N
# rows, read from its live metrics (`--http`, docs/observability.md), so a
# stage stops by its progress through the input, never by time: it cannot
# end before its stop (each stage reads N of the ROWS rows, three stages
# stop), however fast or loaded the machine.  The counter moves only once
# the job runs, after the restore, when the signal handler is installed.
stop_at_rows() {
	local port="" n=0
	while kill -0 "$1" 2>/dev/null; do
		[ -n "$port" ] || port=$(sed -n 's|^sluice: serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$2")
		if [ -n "$port" ]; then
			n=$(curl -sf "http://127.0.0.1:$port/metrics" | awk '/^sluice_num_records_out_total[{].*operator_name="TableSourceScan".*table="orders"/ { s += $NF } END { print s + 0 }')
			[ "${n:-0}" -ge "$3" ] && break
		fi
		sleep 0.01
	done
	kill -TERM "$1" 2>/dev/null
}
fail=0
for be in $BACKENDS; do
	fail0=$fail
	R="$W/ref-$be" D="$W/run-$be"
	mkdir -p "$R" "$D"
	job "$R" "$be" > "$R/job.sql"
	(cd "$R" && "$B/sluice" run job.sql) > "$R/log" 2>&1 || { echo "FAIL: reference run ($be)"; tail -3 "$R/log"; exit 1; }
	n=$((ROWS / 6)) # rows each of the first three stages reads before its stop
	for attempt in 1 2 3; do
		rm -rf "$D"
		mkdir -p "$D"
		sp="" stops=0 early=0
		for par in 3 1 3 2; do
			job "$D" "$be" $par > "$D/job.sql"
			from=""
			[ -n "$sp" ] && from="--from-savepoint $sp"
			(cd "$D" && exec "$B/sluice" run --http 127.0.0.1:0 job.sql $from) > "$D/log.$par" 2>&1 &
			P=$!
			[ $stops = 3 ] || stop_at_rows $P "$D/log.$par" $n
			wait $P
			rc=$?
			cat "$D/log.$par" >> "$D/log"
			sp=$(sed -n 's/.*stopped with savepoint //p' "$D/log.$par")
			[ -n "$sp" ] && stops=$((stops + 1))
			if [ $rc != 0 ] && [ -z "$sp" ]; then
				echo "FAIL ($be): the run at parallelism $par failed ($rc)"; tail -5 "$D/log.$par"; fail=1; break 2
			fi
			if [ -z "$sp" ] && [ $stops -lt 3 ]; then
				echo "($be: the stage at parallelism $par ended before its stop at $n rows: attempt $attempt)"
				early=1; break
			fi
		done
		[ $early = 0 ] && break
	done
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
	[ "$rescaled" = 3 ] || { echo "FAIL ($be): $rescaled restores rescaled, not 3 (in $attempt attempts a stage ended before its stop)"; fail=1; }
	echo "rescale ($be): $ROWS rows, 3 -> 1 -> 3 -> 2, stops after $n rows each (attempt $attempt): $stops savepoints, $rescaled rescaled restores, $(wc -l < "$W/run.out_win") window rows, $(wc -l < "$W/run.out_agg") changelog rows, $(wc -l < "$W/run.out_top") top-n rows: $([ $fail = $fail0 ] && echo ok || echo FAILED)"
done
exit $fail
