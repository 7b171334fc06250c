#!/bin/sh
# iceberg_crash.sh - the short run of tests/iceberg/crash.sh in make test:
# 400 000 orders, 2 SIGKILLs at random moments and the six named fault
# points into an appended table, then 200 000 orders, 2 SIGKILLs and the
# fault points into an upserted one (a GROUP BY with a key: equality and
# position deletes); `make iceberg-torture` runs the long ones (1 M
# orders, 20 kills each).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
bash "$ROOT/tests/iceberg/crash.sh" 400000 2 append || exit 1
exec bash "$ROOT/tests/iceberg/crash.sh" 200000 2 upsert
