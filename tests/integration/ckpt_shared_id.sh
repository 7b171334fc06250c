#!/bin/sh
# ckpt_shared_id.sh - a checkpoint written by a sluice that gave two
# identical operators one id (tests/fixtures/ckpt-shared-id: two INSERTs
# with the same GROUP BY, whose counts went into one state) is refused with
# a message naming the operator, and nothing is published; the same job
# without that checkpoint now gives each sink its own, correct counts.
set -eu
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cp -a "$ROOT/tests/fixtures/ckpt-shared-id/." "$W/"
cd "$W"
# the fixture was taken at parallelism 1 in the format before parallel
# checkpoints, which resumes only there (ckpt_fixture.sh)
if "$B/sluice" run job.sql --set parallelism.default=1 2> log; then
	echo "FAIL: the shared-id checkpoint was resumed"; cat log; exit 1
fi
grep -q "chk-1: the snapshot cannot be restored: operator #1 GroupAggregate (id [0-9a-f]*) shared its state" log ||
	{ echo "FAIL: refusal message"; cat log; exit 1; }
if [ -n "$(find out_a out_b -type f 2>/dev/null)" ]; then
	echo "FAIL: output published"; ls -la out_a out_b; exit 1
fi
echo "ok   a checkpoint with one state for two operators is refused, naming the operator"
rm -rf sluice-state out_a out_b
"$B/sluice" run job.sql 2> log || { cat log; exit 1; }
for t in out_a out_b; do
	# the last count of each key (debezium-json: the last "after")
	n=$(grep -h '"u":"u0"' $t/part-* | grep -o '"after":{[^}]*}' | tail -1)
	[ "$n" = '"after":{"u":"u0","n":143}' ] ||
		{ echo "FAIL: $t counts $n, want 143 rows of u0"; exit 1; }
done
echo "ok   the same job started afresh counts each key once per sink"
