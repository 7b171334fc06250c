#!/bin/sh
# iceberg_crash.sh - the short run of tests/iceberg/crash.sh in make test:
# 400 000 orders, 2 SIGKILLs at random moments and the six named fault
# points; `make iceberg-torture` runs the long one (1 M orders, 20 kills).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
exec bash "$ROOT/tests/iceberg/crash.sh" 400000 2
