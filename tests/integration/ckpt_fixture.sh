#!/bin/sh
# ckpt_fixture.sh - this sluice resumes a checkpoint written by the first
# checkpoint format (manifest version 1, job snapshot "SLG2"), kept in
# tests/fixtures/ckpt-v1: the job crashed right after checkpoint 1's
# manifest (its sink parts still staged), and resuming must publish them and
# finish with exactly the output of an uninterrupted run.  When a change
# makes this fail, bump the format version and keep reading this one.
#
# The fixture's job writes a window aggregate with ALLOWED LATENESS into a
# json file; such an aggregate is now planned as updating (its corrections
# are -U/+U) and a json sink refuses it at planning, as Flink does.  The
# job is run with that sink in debezium-json instead (the sink's id is its
# table, so the checkpoint's ids are unchanged; this input has no
# correction, so every row is a create whose "after" is the json row).
set -eu
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cp -a "$ROOT/tests/fixtures/ckpt-v1/." "$W/"
cd "$W"
sed "s|'path' = 'out_win', 'format' = 'json'|'path' = 'out_win', 'format' = 'debezium-json'|" \
	job.sql > job2.sql
mv job2.sql job.sql
grep -q "'out_win', 'format' = 'debezium-json'" job.sql || { echo "job.sql not edited"; exit 1; }
"$B/sluice" run job.sql 2> log || { cat log; exit 1; }
grep -q "resuming from checkpoint ./sluice-state/fixture/checkpoints/chk-1" log ||
	{ echo "did not resume from the fixture checkpoint"; cat log; exit 1; }
cat out_win/part-* | sed 's/^{"before":null,"after":\(.*\),"op":"c"}$/\1/' | sort |
	cmp - expected_win.txt
cat out_agg/part-* | sort | cmp - expected_agg.txt
echo "ok   the version-1 checkpoint fixture resumes to the uninterrupted output"
