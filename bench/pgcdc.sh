#!/bin/sh
# bench/pgcdc.sh - `make bench`: change events per second read by the
# postgres-cdc source, beside the same run's floor: pg_recvlogical reading
# the same WAL with the same plugin and publication (docs/postgres.md).  A
# benchmark, never a timed test.
#
#   N inserts (in transactions of 10 000 rows) and N/2 updates are written
#   with two slots already made at the start: pg_recvlogical reads one to
#   the WAL end (--endpos) into /dev/null; sluice reads the other
#   ('scan.startup.mode' = 'latest-offset': from the slot's position)
#   into a blackhole sink, through the ChangelogNormalize on the key,
#   checkpointing every second, until the slot's confirmed position
#   reaches the WAL end (polled every 50 ms; its start-up is included).
#
#   sh bench/pgcdc.sh BUILD_DIR        (BENCH_PGCDC_ROWS, default 500000)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
N=${BENCH_PGCDC_ROWS:-500000}
. "$ROOT/tests/pg/pg.sh"
pg_up || exit 1
W="$PGW/w"
mkdir -p "$W"
chmod 777 "$W"
psql_q "CREATE TABLE cdc (id int PRIMARY KEY, user_id text, amount numeric(10,2), ts timestamp(3));
        CREATE PUBLICATION dbz_publication FOR TABLE cdc"
psql_q "SELECT 1 FROM pg_create_logical_replication_slot('floor_s', 'pgoutput')" > /dev/null
psql_q "SELECT 1 FROM pg_create_logical_replication_slot('sluice_s', 'pgoutput')" > /dev/null
i=0
while [ $i -lt "$N" ]; do
	psql_q "INSERT INTO cdc SELECT g, 'u' || (g % 1000), g % 10000 / 100.0,
	  TIMESTAMP '2026-08-01' + g * INTERVAL '1 ms' FROM generate_series($i, $i + 9999) g"
	i=$((i + 10000))
done
psql_q "UPDATE cdc SET amount = amount + 1 WHERE id % 2 = 0"
END=$(psql_q "SELECT pg_current_wal_flush_lsn()")
EVENTS=$((N + N / 2))
now() { date +%s.%N; }
t0=$(now)
"$PGBIN/pg_recvlogical" -d postgres --slot floor_s --start --endpos="$END" \
	-o proto_version=1 -o publication_names=dbz_publication -f /dev/null
t1=$(now)
floor=$(echo "$EVENTS / ($t1 - $t0)" | bc)
cat > "$W/job.sql" <<SQL
SET 'execution.checkpointing.interval' = '1 s';
CREATE TABLE cdc (id INT, user_id STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'postgres-cdc', 'hostname' = '127.0.0.1',
  'port' = '$PGPORT', 'username' = 'postgres', 'password' = '$PG_PASSWORD',
  'database-name' = 'postgres', 'table-name' = 'cdc', 'slot.name' = 'sluice_s',
  'scan.startup.mode' = 'latest-offset');
CREATE TABLE sink (id INT, user_id STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3))
  WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT * FROM cdc;
SQL
t0=$(now)
(cd "$W" && exec "$B/sluice" run job.sql) > "$W/log" 2>&1 &
JOB=$!
while [ "$(psql_q "SELECT confirmed_flush_lsn >= '$END' FROM pg_replication_slots WHERE slot_name = 'sluice_s'")" != t ]; do
	kill -0 $JOB 2>/dev/null || { echo "the job died:"; cat "$W/log"; exit 1; }
	sleep 0.05
done
t1=$(now)
kill -9 $JOB 2>/dev/null; wait $JOB 2>/dev/null
rate=$(echo "$EVENTS / ($t1 - $t0)" | bc)
echo "pgcdc: $EVENTS change events ($N inserts, $((N / 2)) updates)"
echo "pgcdc: pg_recvlogical (floor)    $floor events/s"
echo "pgcdc: sluice postgres-cdc       $rate events/s ($(echo "scale=2; $rate / $floor" | bc)x the floor; start-up and the last checkpoint (1 s) included)"
