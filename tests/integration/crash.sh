#!/bin/sh
# crash.sh - the short exactly-once proof for `make test`: a job killed with
# SIGKILL 3 times while running (tests/crash/crash.sh: kills at 20-80% of
# the uninterrupted run's wall time, only kills of a running job counted),
# and every named fault point and damaged checkpoint case (tests/crash/);
# then the job over 3 files cut into ranges (many splits, each with its
# watermark) killed 3 times, per backend; then the job at parallelism 2,
# 5 kills per backend, then over a file whose ranges come from the pool
# (one instance slowed), and rescaled from savepoints.  `sh crash.sh long`
# (in `make test-long`) runs the cases at parallelism 1 with 5 kills and
# the earlier rows (twice the rows of the first two), as make test did
# until the suite's time was cut (docs/testing.md, "Test time": 3 kills
# restore a checkpoint a restored run took, as 5 do); `make torture` runs
# the long version.  (Row counts: each real kill
# costs about half an uninterrupted run, and the job's state, so a RocksDB
# checkpoint, grows with its rows (the regular join keeps every order), so
# they are smaller than when kills came after a fixed 50-600 ms, which the
# faster engine often outran; RocksDB's smallest.)
set -e
cd "$(dirname "$0")/../.."
if [ "${1:-}" = long ]; then K=5 X=2; else K=3 X=1; fi
bash tests/crash/crash.sh $((200000 * X)) $K
bash tests/crash/faults.sh 300000
bash tests/crash/savepoint.sh
bash tests/crash/crash.sh $((100000 * X)) $K rocksdb
# splits: 3 files cut into ranges of about a third of a file (12 splits:
# the files read interleaved, the ranges of each in order from their seeded
# initial watermarks)
CRASH_FILES=3 SLUICE_TEST_SPLIT_BYTES=$((1250000 * X)) bash tests/crash/crash.sh $((150000 * X)) $K
CRASH_FILES=3 SLUICE_TEST_SPLIT_BYTES=1250000 bash tests/crash/crash.sh 150000 $K rocksdb
# parallelism 2 against an uninterrupted run at 1 (barriers, parking,
# phase 2 on the instances' threads: docs/parallel.md §5); one file, so
# the changelogs do not depend on how splits interleave.  `make
# crash-parallel` kills 20 times per backend.  Not made smaller: at half
# the rows (100 000, 923 ms uninterrupted) and 3 kills, no restart at load
# 20 had a checkpoint to restore (5 kills at 200 000 rows did)
bash tests/crash/crash.sh 200000 5 hashmap 2
bash tests/crash/crash.sh 100000 5 rocksdb 2
# the pool of a cut file's ranges (docs/parallel.md §4.1): one file of 13
# ranges at parallelism 2, instance 1 slowed (it sleeps 300 us after each
# batch: instance 0 takes more ranges), so kills land while ranges are
# taken, some after one instance's barrier and before the other's
SLUICE_TEST_SPLIT_BYTES=1000000 SLUICE_TEST_SLOW_INSTANCE=1:300 \
	bash tests/crash/crash.sh 150000 3 hashmap 2
# rescaling: savepoints along parallelism 3 -> 1 -> 3 -> 2 (docs/parallel.md §7);
# each stage stops after a sixth of the rows (its live metrics, published
# every 250 ms: a smaller input can end before its stage's stop)
bash tests/crash/rescale.sh 150000
