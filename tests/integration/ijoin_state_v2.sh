#!/bin/sh
# ijoin_state_v2.sh - an interval join's checkpoint in state version 2
# (every row in namespace 0 of "left_rows"/"right_rows", a timer each;
# tests/fixtures/ijoin-v2, written by the sluice before the expiry buckets,
# docs/joins.md "Interval join") is refused by name on both state backends:
# the restore fails naming the operator and its table, and the job never
# resumes with the join's rows lost.
set -eu
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
W0=$(mktemp -d)
trap 'rm -rf "$W0"' EXIT
for backend in hashmap rocksdb; do
	W="$W0/$backend"
	mkdir -p "$W"
	cp -a "$ROOT/tests/fixtures/ijoin-v2/." "$W/"
	cd "$W"
	if timeout 20 "$B/sluice" run job.sql --set state.backend.type=$backend 2> log; then
		echo "FAIL: a version-2 interval join checkpoint was resumed ($backend)"; cat log; exit 1
	fi
	grep -q "operator #2 IntervalJoin (id [0-9a-f]*): its state 'left_rows' was written by an earlier version of sluice in a layout this version does not read" log ||
		{ echo "FAIL: not refused by name ($backend)"; cat log; exit 1; }
done
echo "interval join state v2 refused on both backends: ok"
