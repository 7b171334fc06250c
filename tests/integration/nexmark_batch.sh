#!/bin/sh
# nexmark_batch.sh - every Nexmark query that runs (all but q6; q12's
# processing-time windows have no batch answer) over 20 000 events at
# parallelism 1 and 2, its final answer compared with sqlite3's batch
# answer over the same events (tests/nexmark/check.sh, docs/nexmark.md
# "Correctness"); `make test-nexmark` runs the same over 200 000 events.
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build} sh tests/nexmark/check.sh 20000 "1 2"
