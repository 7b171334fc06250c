#!/bin/sh
# pgcdc.sh - the PostgreSQL suites of `make test` for reading (tests/pg/;
# each starts and stops its own server): lookup joins against a jdbc table
# and its scan, the postgres-cdc source end to end and its short kill -9
# test.  `make test-pg` runs the long crash test.  Skipped (77) when
# PostgreSQL 15 is not installed.
set -u
cd "$(dirname "$0")/../.."
[ -x /usr/lib/postgresql/15/bin/postgres ] || { echo "skip: no PostgreSQL 15"; exit 77; }
rc=0
for t in lookup cdc; do
	echo "== tests/pg/$t.sh"
	sh "tests/pg/$t.sh" || rc=1
done
echo "== tests/pg/cdc_crash.sh 8 80"
sh tests/pg/cdc_crash.sh 8 80 || rc=1
exit $rc
