#!/bin/sh
# match_crash.sh - exactly-once and rescaling of MATCH_RECOGNIZE in `make
# test` (tests/crash/match.sh: SIGKILL 3 times at 20-80% of an
# uninterrupted run, each run at parallelism 1-3 at random, the committed
# output equal to the uninterrupted run's at parallelism 1), per backend.
set -e
cd "$(dirname "$0")/../.."
bash tests/crash/match.sh 100000 3 hashmap
bash tests/crash/match.sh 60000 3 rocksdb
