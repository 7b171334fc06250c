#!/bin/sh
# ckpt_fixture.sh - this sluice resumes a checkpoint written by the first
# checkpoint format (manifest version 1, job snapshot "SLG2"), kept in
# tests/fixtures/ckpt-v1: the job crashed right after checkpoint 1's
# manifest (its sink parts still staged), and resuming must publish them and
# finish with exactly the output of an uninterrupted run.  When a change
# makes this fail, bump the format version and keep reading this one.
# Its operators are named by the label-hash ids of version 1: the restore
# matches them by sl_op.uid_v1 (exec/graph.c; docs/checkpoints.md).
# It was taken at parallelism 1, before parallel checkpoints, and resumes
# only there: the runs set 'parallelism.default' = '1' (the engine's
# default is the CPU count), and a run at 2 must be refused by name.
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
# Resumes it on both state backends (snapshots do not depend on the backend).
W0=$(mktemp -d)
trap 'rm -rf "$W0"' EXIT
for backend in hashmap rocksdb; do
	W="$W0/$backend"
	mkdir -p "$W"
	cp -a "$ROOT/tests/fixtures/ckpt-v1/." "$W/"
	cd "$W"
	sed "s|'path' = 'out_win', 'format' = 'json'|'path' = 'out_win', 'format' = 'debezium-json'|" \
		job.sql > job2.sql
	mv job2.sql job.sql
	grep -q "'out_win', 'format' = 'debezium-json'" job.sql || { echo "job.sql not edited"; exit 1; }
	# taken at parallelism 1 in a format older than parallel checkpoints:
	# refused at 2 with a message naming the setting, and resumed at 1
	before=$(ls -aR out_win out_agg)
	if "$B/sluice" run job.sql --set state.backend.type=$backend \
		--set parallelism.default=2 2> log; then
		echo "FAIL: the version-1 fixture resumed at parallelism 2"; cat log; exit 1
	fi
	grep -q "taken at parallelism 1 by an older sluice: run the job with 'parallelism.default' = '1'" log ||
		{ echo "FAIL: refusal at parallelism 2 ($backend)"; cat log; exit 1; }
	[ "$(ls -aR out_win out_agg)" = "$before" ] ||
		{ echo "FAIL: the refused run changed the output ($backend)"; exit 1; }
	"$B/sluice" run job.sql --set state.backend.type=$backend --set parallelism.default=1 \
		2> log || { cat log; exit 1; }
	grep -q "resuming from checkpoint ./sluice-state/fixture/checkpoints/chk-1" log ||
		{ echo "did not resume from the fixture checkpoint ($backend)"; cat log; exit 1; }
	cat out_win/part-* | sed 's/^{"before":null,"after":\(.*\),"op":"c"}$/\1/' | sort |
		cmp - expected_win.txt
	cat out_agg/part-* | sort | cmp - expected_agg.txt
done
# written before key groups, its state records no max parallelism: it
# resumes with any 'pipeline.max-parallelism' (a grouped snapshot with
# another one is refused: tests/crash/savepoint.sh)
W="$W0/maxp"
mkdir -p "$W"
cp -a "$W0/hashmap/." "$W/"
rm -rf "$W/out_win" "$W/out_agg" "$W/sluice-state"
cp -a "$ROOT/tests/fixtures/ckpt-v1/out_win" "$ROOT/tests/fixtures/ckpt-v1/out_agg" \
	"$ROOT/tests/fixtures/ckpt-v1/sluice-state" "$W/"
cd "$W"
"$B/sluice" run job.sql --set pipeline.max-parallelism=256 --set parallelism.default=1 2> log ||
	{ cat log; exit 1; }
grep -q "resuming from checkpoint ./sluice-state/fixture/checkpoints/chk-1" log ||
	{ echo "did not resume from the fixture checkpoint (max parallelism 256)"; cat log; exit 1; }
cat out_win/part-* | sed 's/^{"before":null,"after":\(.*\),"op":"c"}$/\1/' | sort |
	cmp - expected_win.txt
cat out_agg/part-* | sort | cmp - expected_agg.txt
echo "ok   the version-1 checkpoint fixture resumes to the uninterrupted output at parallelism 1 (hashmap, rocksdb; max parallelism 256) and is refused at 2, naming the setting"
