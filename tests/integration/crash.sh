#!/bin/sh
# crash.sh - the short exactly-once proof for `make test`: a job killed with
# SIGKILL 5 times while running (tests/crash/crash.sh: kills at 20-80% of
# the uninterrupted run's wall time, only kills of a running job counted),
# and every named fault point and damaged checkpoint case (tests/crash/);
# then the job over 3 files cut into ranges (many splits, each with its
# watermark) killed 5 times, per backend; then the job at parallelism 2,
# 5 kills per backend, and rescaled from savepoints.  `make
# torture` runs the long version.  (Row counts: each real kill costs about
# half an uninterrupted run, and the job's state, so a RocksDB checkpoint,
# grows with its rows (the regular join keeps every order), so they are
# smaller than when kills came after a fixed 50-600 ms, which the faster
# engine often outran; RocksDB's smallest.)
set -e
cd "$(dirname "$0")/../.."
bash tests/crash/crash.sh 400000 5
bash tests/crash/faults.sh 300000
bash tests/crash/savepoint.sh
bash tests/crash/crash.sh 200000 5 rocksdb
# splits: 3 files cut into ranges of about a third of a file (12 splits:
# the files read interleaved, the ranges of each in order from their seeded
# initial watermarks)
CRASH_FILES=3 SLUICE_TEST_SPLIT_BYTES=2500000 bash tests/crash/crash.sh 300000 5
CRASH_FILES=3 SLUICE_TEST_SPLIT_BYTES=1250000 bash tests/crash/crash.sh 150000 5 rocksdb
# parallelism 2 against an uninterrupted run at 1 (barriers, parking,
# phase 2 on the instances' threads: docs/parallel.md §5); one file, so
# the changelogs do not depend on how splits interleave.  `make
# crash-parallel` kills 20 times per backend
bash tests/crash/crash.sh 200000 5 hashmap 2
bash tests/crash/crash.sh 100000 5 rocksdb 2
# rescaling: savepoints along parallelism 3 -> 1 -> 3 -> 2 (docs/parallel.md §7);
# each stage stops after a sixth of the rows (its live metrics), so the
# size no longer needs to outlast a timed stop
bash tests/crash/rescale.sh 150000
