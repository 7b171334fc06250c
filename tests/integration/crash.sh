#!/bin/sh
# crash.sh - the short exactly-once proof for `make test`: a 1 M-row job
# killed with SIGKILL 5 times, and every named fault point and damaged
# checkpoint case (tests/crash/).  `make torture` runs the long version.
set -e
cd "$(dirname "$0")/../.."
bash tests/crash/crash.sh 1000000 5
bash tests/crash/faults.sh 300000
bash tests/crash/savepoint.sh
bash tests/crash/crash.sh 1000000 5 rocksdb
