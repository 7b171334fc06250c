#!/bin/sh
# bad.sh - the jdbc sink's bad-input cases against a real PostgreSQL 15
# server (tests/pg/pg.sh): each must fail with a clear message before any
# row is written, or, for a server that goes away mid-job, fail the job
# with a message naming the server, and (exactly-once) restart from its
# checkpoint with nothing lost or doubled once the server is back.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
SLUICE="$B/sluice"
. "$ROOT/tests/pg/pg.sh"
pg_up || exit 1
W="$PGW/w"
mkdir -p "$W"
fail=0
psql_q "CREATE TABLE good (id bigint, v text);
        CREATE TABLE mism (id bigint, amount integer);
        CREATE TABLE nokey (id bigint, v text);
        CREATE TABLE seq (id bigint PRIMARY KEY, v text);
        CREATE TABLE short (id bigint, v varchar(2));"
job() { # table-name columns extra-options (PW: the password)
	cat <<SQL
CREATE TABLE src (n BIGINT) WITH ('connector' = 'datagen', 'fields.n.kind' = 'sequence',
  'fields.n.start' = '1', 'fields.n.end' = '100');
CREATE TABLE t ($2) WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'table-name' = '$1',
  'username' = 'postgres', 'password' = '${PW:-$PG_PASSWORD}'$3);
SQL
}
expect_fail() { # label expected-message sql-file [explain]
	if (cd "$W" && timeout 60 "$SLUICE" ${4:-run} "$3") > "$W/log" 2>&1; then
		echo "FAIL $1: the job did not fail"; fail=1
	elif grep -qF "$2" "$W/log"; then
		echo "ok   $1: $(grep -F "$2" "$W/log" | head -1 | cut -c1-220)"
	else
		echo "FAIL $1: expected '$2', got:"; cat "$W/log"; fail=1
	fi
}

{ PW=wrong job good "id BIGINT, v STRING" ""
  echo "INSERT INTO t SELECT n, 'x' FROM src;"; } > "$W/pw.sql"
expect_fail "wrong password" "cannot connect to PostgreSQL at 127.0.0.1:$PGPORT/postgres as user 'postgres': connection to server at \"127.0.0.1\", port $PGPORT failed: FATAL:  password authentication failed" pw.sql
{ job nope "id BIGINT, v STRING" ""; echo "INSERT INTO t SELECT n, 'x' FROM src;"; } > "$W/nt.sql"
expect_fail "missing table" "sink 't': table 'nope' does not exist in the database" nt.sql
{ job good "id BIGINT, v STRING, extra INT" ""; echo "INSERT INTO t SELECT n, 'x', 1 FROM src;"; } > "$W/nc.sql"
expect_fail "missing column" "sink 't': column 'extra' does not exist in table 'good'" nc.sql
{ job mism "id BIGINT, amount DECIMAL(10, 2)" ""; echo "INSERT INTO t SELECT n, CAST(n AS DECIMAL(10, 2)) FROM src;"; } > "$W/tm.sql"
expect_fail "type mismatch" "sink 't': column 'amount' of table 'mism' is integer in the database, which cannot hold DECIMAL(10, 2) values (expected numeric(10,2))" tm.sql
{ job nokey "id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED" ""; echo "INSERT INTO t SELECT n, 'x' FROM src;"; } > "$W/nk.sql"
expect_fail "no unique constraint for the key" "table 'nokey' has no PRIMARY KEY or UNIQUE constraint on exactly (id)" nk.sql
{ job good "id BIGINT, v STRING" "" | sed "s|'url' = '[^']*'|'url' = 'jdbc:postgresql://127.0.0.1:1/x?reWriteBatchedInserts=true'|"
  echo "INSERT INTO t SELECT n, 'x' FROM src;"; } > "$W/url.sql"
expect_fail "a JDBC parameter libpq lacks (EXPLAIN, no connection)" "the JDBC URL parameter 'reWriteBatchedInserts' has no libpq equivalent" url.sql explain
# a value the table refuses: no retry (it would fail the same way), the
# message says the row and column
{ job short "id BIGINT, v STRING" ""; echo "INSERT INTO t SELECT n, CASE WHEN n = 60 THEN 'toolong' ELSE 'x' END FROM src;"; } > "$W/long.sql"
t0=$(date +%s)
expect_fail "a value too long for its column (no retry)" "COPY into 'short' failed: value too long for type character varying(2) (SQLSTATE 22001); COPY short, line " long.sql
grep -qF 'column v: "toolong"' "$W/log" || { echo "FAIL the message does not name the column and value"; fail=1; }
[ $(($(date +%s) - t0)) -le 2 ] || { echo "FAIL the refused value was retried ($(($(date +%s) - t0)) s)"; fail=1; }
n=$(psql_q "SELECT (SELECT count(*) FROM good) + (SELECT count(*) FROM mism) + (SELECT count(*) FROM nokey)")
[ "$n" = 0 ] && echo "ok   no row written by the failed jobs" || { echo "FAIL $n rows written"; fail=1; }

# the server goes away mid-job: at-least-once, no checkpointing
cat > "$W/gone.sql" <<SQL
CREATE TABLE src (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '2000',
  'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '1000000');
CREATE TABLE t (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = '$PG_URL',
  'table-name' = 'good', 'username' = 'postgres', 'password' = '$PG_PASSWORD',
  'sink.max-retries' = '1', 'sink.buffer-flush.max-rows' = '50');
INSERT INTO t SELECT n, 'x' FROM src;
SQL
(cd "$W" && exec timeout 60 "$SLUICE" run gone.sql) > "$W/log" 2>&1 &
pid=$!
sleep 1
pg_kill
wait $pid
rc=$?
if [ $rc = 0 ] || [ $rc = 124 ]; then echo "FAIL server gone: status $rc"; cat "$W/log"; fail=1
elif grep -q "sink 't': cannot connect to PostgreSQL at 127.0.0.1:$PGPORT/postgres" "$W/log"; then
	echo "ok   server gone mid-job (status $rc): $(grep -F "sink 't'" "$W/log" | head -1 | cut -c1-200)"
else echo "FAIL server gone: no clear message:"; cat "$W/log"; fail=1; fi
pg_restart || exit 1

# 'sink.max-retries': the server gone for about a second, the flush is
# retried on a new connection after 1 s, 2 s, ... and the job goes on
psql_q "CREATE TABLE retr (id bigint PRIMARY KEY, v text)"
cat > "$W/retry.sql" <<SQL
CREATE TABLE src (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '2000',
  'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '8000');
CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'jdbc',
  'url' = '$PG_URL', 'table-name' = 'retr', 'username' = 'postgres', 'password' = '$PG_PASSWORD',
  'sink.max-retries' = '5', 'sink.buffer-flush.max-rows' = '50');
INSERT INTO t SELECT n, 'x' FROM src;
SQL
(cd "$W" && exec timeout 60 "$SLUICE" run retry.sql) > "$W/log" 2>&1 &
pid=$!
sleep 1
pg_kill
sleep 0.5
pg_restart || exit 1
if wait $pid && [ "$(psql_q "SELECT count(*) FROM retr")" = 8000 ]; then
	echo "ok   'sink.max-retries' = '5': the server back within the back-off, the job went on (8000 rows)"
else echo "FAIL retries: status $?, $(psql_q "SELECT count(*) FROM retr") rows: $(tail -3 "$W/log")"; fail=1; fi

# ... exactly-once with checkpointing: the job fails, and once the server
# is back the restart resumes from its checkpoint with nothing lost or doubled
cat > "$W/eo.sql" <<SQL
SET 'execution.checkpointing.interval' = '200 ms';
SET 'pipeline.name' = 'gone';
CREATE TABLE src (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '4000',
  'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '12000');
CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'jdbc',
  'url' = '$PG_URL', 'table-name' = 'seq', 'username' = 'postgres', 'password' = '$PG_PASSWORD',
  'sink.max-retries' = '1', 'sink.delivery-guarantee' = 'exactly-once');
INSERT INTO t SELECT n, CAST(n * 2 AS STRING) FROM src;
SQL
(cd "$W" && exec timeout 60 "$SLUICE" run eo.sql) > "$W/log" 2>&1 &
pid=$!
sleep 1.5
pg_kill
wait $pid
rc=$?
before=$(grep -c . "$W/log")
if [ $rc = 0 ]; then echo "FAIL exactly-once, server gone: the job did not fail"; fail=1
else echo "ok   exactly-once, server gone mid-job: the job failed (status $rc): $(grep -F "sink 't'" "$W/log" | head -1 | cut -c1-160)"; fi
pg_restart || exit 1
if (cd "$W" && timeout 60 "$SLUICE" run eo.sql) >> "$W/log" 2>&1; then
	got=$(psql_q "SELECT count(*), count(DISTINCT id), sum(id), bool_and(v = (id * 2)::text) FROM seq")
	if [ "$got" = "12000|12000|72006000|t" ]; then
		echo "ok   exactly-once, server back: the restart resumed from its checkpoint ($(sed -n "$((before + 1)),\$p" "$W/log" | grep -o 'resuming from checkpoint [^ ]*' | head -1 | sed 's|.*/||')), 12000 rows, none lost or twice"
	else echo "FAIL exactly-once, server back: got $got"; fail=1; fi
else echo "FAIL exactly-once, server back: the restart failed"; tail -5 "$W/log"; fail=1; fi

[ $fail = 0 ] && echo "pg bad input: all passed" || echo "pg bad input: FAILED"
exit $fail
