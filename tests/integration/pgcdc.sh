#!/bin/sh
# pgcdc.sh - the PostgreSQL suites of `make test` for reading (tests/pg/;
# each starts and stops its own server): lookup joins against a jdbc table
# and its scan, ARRAY and INTERVAL columns read and written every way
# (types.sh), the postgres-cdc source end to end (at parallelism 1 and
# 2) and its short kill -9
# test.  `make test-pg` runs the long crash test.  Skipped (77) when
# PostgreSQL 15 is not installed.
set -u
cd "$(dirname "$0")/../.."
[ -x /usr/lib/postgresql/15/bin/postgres ] || { echo "skip: no PostgreSQL 15"; exit 77; }
rc=0
echo "== tests/pg/lookup.sh"
sh tests/pg/lookup.sh || rc=1
echo "== tests/pg/types.sh"
sh tests/pg/types.sh || rc=1
for par in 1 2; do
	echo "== tests/pg/cdc.sh $par"
	sh tests/pg/cdc.sh $par || rc=1
done
echo "== tests/pg/cdc_crash.sh 8 80"
sh tests/pg/cdc_crash.sh 8 80 || rc=1
exit $rc
