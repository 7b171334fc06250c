#!/bin/sh
# pg.sh - the PostgreSQL suites of `make test` (tests/pg/; each starts and
# stops its own server): the jdbc sink end to end, its bad-input cases and
# the short exactly-once crash test, the exactly-once sink restored at
# another parallelism after a crash (the postgres-cdc source and lookup
# joins: pgcdc.sh).  `make test-pg` runs the long crash
# test.  Skipped (77) when PostgreSQL 15 is not installed.
set -u
cd "$(dirname "$0")/../.."
[ -x /usr/lib/postgresql/15/bin/postgres ] || { echo "skip: no PostgreSQL 15"; exit 77; }
rc=0
for t in sink bad; do
	echo "== tests/pg/$t.sh"
	sh "tests/pg/$t.sh" || rc=1
done
echo "== tests/pg/crash.sh 60000 10"
bash tests/pg/crash.sh 60000 10 || rc=1
echo "== tests/pg/rescale.sh 20000 quick"
bash tests/pg/rescale.sh 20000 quick || rc=1
exit $rc
