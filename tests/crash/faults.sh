#!/bin/bash
# faults.sh - named fault points and damaged checkpoints (docs/checkpoints.md).
#
# Each case crashes the job at a named point of its N-th checkpoint
# (SLUICE_FAULT=point@N), restarts it without the fault until it finishes,
# and compares the committed output with an uninterrupted run's (as a
# multiset, no row twice).  Then:
#   - a flipped byte in the newest checkpoint's state, and a truncated
#     newest manifest, of a job whose newest checkpoint was never committed:
#     detected, and the job falls back to the previous checkpoint;
#   - a flipped byte in the newest checkpoint of a finished job whose sinks
#     published its output: detected, and the job refuses to start, naming
#     the sink.
set -u
BUILD=${BUILD:-build}
ROWS=${1:-400000}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
SLUICE="$B/sluice"
. "$ROOT/tests/crash/job.sh"
W=$(mktemp -d /tmp/sluice-faults.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/in"
"$B/tools/gen_events" "$ROWS" 500 11 > "$W/in/orders.jsonl"
fail=0

# at parallelism 1 (the engine's default is the CPU count): the refusal
# case needs the newest checkpoint to have published output, which holds
# at 1 (the final checkpoint publishes the last part) but not always at 2:
# in a run at 2 the final checkpoint published no part (every part was
# the one before's), so its damage fell back, correctly, to the previous
# checkpoint with the output unchanged and nothing to refuse;
# mid-sink-publish at 2 is the case after the loop below
job() { # dir [parallelism]
	cat <<SQL
SET 'parallelism.default' = '${2:-1}';
SET 'execution.checkpointing.interval' = '20 ms';
SET 'state.checkpoints.num-retained' = '3';
SET 'pipeline.name' = 'faults';
SQL
	job_tables "$W/in" "$1"
}

flip() { # file offset: inverts one byte
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "\\$(printf '%03o' $((b ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

run() { # dir [fault]
	if [ -n "${2:-}" ]; then
		(cd "$1" && SLUICE_FAULT="$2" "$SLUICE" run job.sql) >> "$1/log" 2>&1
	else
		(cd "$1" && "$SLUICE" run job.sql) >> "$1/log" 2>&1
	fi
}

same() { # name dir
	local s ok=1
	for s in $SINKS; do
		cat "$W/ref/$s"/part-* | sort > "$W/a"
		cat "$2/$s"/part-* 2>/dev/null | sort > "$W/b"
		cmp -s "$W/a" "$W/b" || { echo "FAIL $1: $s differs ($(wc -l < "$W/a") vs $(wc -l < "$W/b") rows)"; ok=0; }
		ls -a "$2/$s" | grep -q '^\.part' && { echo "FAIL $1: staged files left in $s"; ok=0; }
	done
	[ $ok = 1 ] && echo "ok   $1" || fail=1
}

mkdir -p "$W/ref" && job "$W/ref" > "$W/ref/job.sql"
run "$W/ref" || { echo "reference run failed"; cat "$W/ref/log"; exit 1; }

for point in mid-state-write before-manifest-rename after-manifest-rename mid-sink-publish; do
	d="$W/$point"; mkdir -p "$d"; job "$d" > "$d/job.sql"
	run "$d" "$point@3"
	rc=$?
	[ $rc = 137 ] || { echo "FAIL $point: the fault did not fire (status $rc)"; fail=1; continue; }
	run "$d" || { echo "FAIL $point: restart failed"; tail -5 "$d/log"; fail=1; continue; }
	same "fault $point" "$d"
done

# mid-sink-publish at parallelism 2: it follows each commit hook of an
# instance's phase 2 (src/runtime/prun.c), so one instance has published
# part of its output and the other none; the restart publishes the rest.
# The input stays one split (SLUICE_TEST_SPLIT_BYTES above its size: it
# is larger than the 16 MiB ranges of s12-par), so each key's changes
# come in the reference's order and the changelogs compare row for row
# (over several splits they follow the arrival order: docs/parallel.md §4)
export SLUICE_TEST_SPLIT_BYTES=1073741824
d="$W/mid-sink-publish-p2"; mkdir -p "$d"; job "$d" 2 > "$d/job.sql"
run "$d" "mid-sink-publish@3"
rc=$?
if [ $rc != 137 ]; then
	echo "FAIL mid-sink-publish at parallelism 2: the fault did not fire (status $rc)"; fail=1
elif ! run "$d"; then
	echo "FAIL mid-sink-publish at parallelism 2: restart failed"; tail -5 "$d/log"; fail=1
else
	same "fault mid-sink-publish at parallelism 2 (against the reference at 1)" "$d"
fi
unset SLUICE_TEST_SPLIT_BYTES

# damaged newest checkpoint that was never committed: fall back
for damage in flip truncate; do
	d="$W/fallback-$damage"; mkdir -p "$d"; job "$d" > "$d/job.sql"
	run "$d" "after-manifest-rename@4"
	newest="$d/sluice-state/faults/checkpoints/chk-$(ls "$d"/sluice-state/faults/checkpoints | sed -n 's/^chk-//p' | sort -n | tail -1)"
	if [ $damage = flip ]; then
		flip "$newest/state" 100
	else
		truncate -s 10 "$newest/_manifest"
	fi
	run "$d" || { echo "FAIL fallback-$damage: restart failed"; tail -5 "$d/log"; fail=1; continue; }
	grep -q "trying an older checkpoint" "$d/log" || { echo "FAIL fallback-$damage: damage not reported"; fail=1; }
	same "fallback after a damaged checkpoint ($damage)" "$d"
done

# damaged newest checkpoint whose output was published: refuse
d="$W/refuse"; mkdir -p "$d"; job "$d" > "$d/job.sql"
run "$d"
newest="$d/sluice-state/faults/checkpoints/chk-$(ls "$d"/sluice-state/faults/checkpoints | sed -n 's/^chk-//p' | sort -n | tail -1)"
flip "$newest/state" 100
if run "$d"; then
	echo "FAIL refuse: the job started from an older checkpoint although its sinks published newer output"; fail=1
elif grep -q "sink 'win_out'\|sink 'agg_out'" "$d/log"; then
	echo "ok   refusal names the sink"
else
	echo "FAIL refuse: message does not name the sink"; tail -3 "$d/log"; fail=1
fi
exit $fail
