#!/bin/sh
# join_state_v1.sh - a regular join's checkpoint in state version 1 (one
# list value per join key, tables "left" and "right"; tests/fixtures/
# join-v1, written by the sluice before the map per key, docs/joins.md) is
# refused by name on both state backends: the restore fails naming the
# operator and its table, and the job's output is left as it was, never
# resumed with the join's rows lost.
set -eu
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
W0=$(mktemp -d)
trap 'rm -rf "$W0"' EXIT
for backend in hashmap rocksdb; do
	W="$W0/$backend"
	mkdir -p "$W"
	cp -a "$ROOT/tests/fixtures/join-v1/." "$W/"
	cd "$W"
	if "$B/sluice" run job.sql --set state.backend.type=$backend 2> log; then
		echo "FAIL: a version-1 join checkpoint was resumed ($backend)"; cat log; exit 1
	fi
	grep -q "operator #2 Join (id [0-9a-f]*): its state 'left' was written by an earlier version of sluice in a layout this version does not read" log ||
		{ echo "FAIL: not refused by name ($backend)"; cat log; exit 1; }
	[ ! -e out ] || [ -z "$(ls out)" ] || { echo "FAIL: the refused run wrote output ($backend)"; exit 1; }
done
echo "join state v1 refused on both backends: ok"
