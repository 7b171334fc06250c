#!/bin/sh
# crash.sh - the short exactly-once proof for `make test`: a 1 M-row job
# killed with SIGKILL 5 times, and every named fault point and damaged
# checkpoint case (tests/crash/); then the 1 M-row job over 3 files cut into
# ranges (many splits, each with its watermark) killed 5 times, per backend.  `make torture` runs the long version.
set -e
cd "$(dirname "$0")/../.."
bash tests/crash/crash.sh 1000000 5
bash tests/crash/faults.sh 300000
bash tests/crash/savepoint.sh
bash tests/crash/crash.sh 1000000 5 rocksdb
# splits: 3 files cut into 8 MB ranges (12 splits: the files read interleaved,
# the ranges of each in order from their seeded initial watermarks)
CRASH_FILES=3 SLUICE_TEST_SPLIT_BYTES=8000000 bash tests/crash/crash.sh 1000000 5
CRASH_FILES=3 SLUICE_TEST_SPLIT_BYTES=8000000 bash tests/crash/crash.sh 1000000 5 rocksdb
