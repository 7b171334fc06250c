#!/bin/sh
# scalar_state_v1.sh - a scalar subquery's savepoint written before s12
# (tests/fixtures/scalar-v1: the subquery's aggregate LEFT-joined on a
# constant key behind two Calcs, Join(leftKeys=[$k0])) is refused by name
# on both state backends: the plan is now a LEFT JOIN ON TRUE without
# keys (docs/joins.md, "Scalar subqueries"), a new operator id, so the
# restore fails naming the old join, and the job writes nothing, never
# resumed with the aggregate's state but not the join's.
set -eu
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
W0=$(mktemp -d)
trap 'rm -rf "$W0"' EXIT
for backend in hashmap rocksdb; do
	W="$W0/$backend"
	mkdir -p "$W"
	cp -a "$ROOT/tests/fixtures/scalar-v1/." "$W/"
	cd "$W"
	if "$B/sluice" run job.sql -q --set state.backend.type=$backend 2> log; then
		echo "FAIL: a pre-s12 scalar subquery savepoint was resumed ($backend)"; cat log; exit 1
	fi
	grep -q "the snapshot holds state of operators the job no longer has: Join (39b31acfe07cf0bd)" log ||
		{ echo "FAIL: not refused by name ($backend)"; cat log; exit 1; }
	[ ! -e out ] || [ -z "$(ls out)" ] || { echo "FAIL: the refused run wrote output ($backend)"; exit 1; }
done
echo "scalar subquery state v1 refused on both backends: ok"
