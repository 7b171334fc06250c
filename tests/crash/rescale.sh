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
# stop_soon PID DIR MS: SIGTERM MS milliseconds after the run took its
# first checkpoint (its signal handler is installed once its job started,
# after the restore: a fixed delay after the lock killed a slow restore
# outright)
stop_soon() {
	local before now i=0
	before=$(maxid "$2")
	before=${before:-0}
	while kill -0 "$1" 2>/dev/null; do
		now=$(maxid "$2")
		[ "${now:-0}" -gt "$before" ] && break
		sleep 0.01
		i=$((i + 1))
		[ $i -lt 6000 ] || break
	done
	sleep "$(($3 / 1000)).$(printf '%03d' $(($3 % 1000)))"
	kill -TERM "$1" 2>/dev/null
}
fail=0
for be in $BACKENDS; do
	fail0=$fail
	R="$W/ref-$be" D="$W/run-$be"
	mkdir -p "$R" "$D"
	job "$R" "$be" > "$R/job.sql"
	t0=$(date +%s%N)
	(cd "$R" && "$B/sluice" run job.sql) > "$R/log" 2>&1 || { echo "FAIL: reference run ($be)"; tail -3 "$R/log"; exit 1; }
	ref_ms=$((($(date +%s%N) - t0) / 1000000))
	# a stage that ends before its stop starts the chain over, stopping
	# sooner (a loaded machine runs the stages at other speeds than the
	# reference)
	ms=$((ref_ms / 10))
	for attempt in 1 2 3 4 5; do
		rm -rf "$D"
		mkdir -p "$D"
		sp="" stops=0 early=0
		for par in 3 1 3 2; do
			job "$D" "$be" $par > "$D/job.sql"
			from=""
			[ -n "$sp" ] && from="--from-savepoint $sp"
			(cd "$D" && exec "$B/sluice" run job.sql $from) > "$D/log.$par" 2>&1 &
			P=$!
			[ $stops = 3 ] || stop_soon $P "$D" $ms
			wait $P
			rc=$?
			cat "$D/log.$par" >> "$D/log"
			sp=$(sed -n 's/.*stopped with savepoint //p' "$D/log.$par")
			[ -n "$sp" ] && stops=$((stops + 1))
			if [ $rc != 0 ] && [ -z "$sp" ]; then
				echo "FAIL ($be): the run at parallelism $par failed ($rc)"; tail -5 "$D/log.$par"; fail=1; break 2
			fi
			if [ -z "$sp" ] && [ $stops -lt 3 ]; then early=1; break; fi
		done
		[ $early = 0 ] && break
		ms=$((ms / 2))
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
	[ "$rescaled" = 3 ] || { echo "FAIL ($be): $rescaled restores rescaled, not 3 (in $attempt attempts the stages ended before their stops)"; fail=1; }
	echo "rescale ($be): $ROWS rows, 3 -> 1 -> 3 -> 2 (attempt $attempt): $stops savepoints, $rescaled rescaled restores, $(wc -l < "$W/run.out_win") window rows, $(wc -l < "$W/run.out_agg") changelog rows, $(wc -l < "$W/run.out_top") top-n rows: $([ $fail = $fail0 ] && echo ok || echo FAILED)"
done
exit $fail
