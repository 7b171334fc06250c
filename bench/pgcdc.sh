#!/bin/sh
# bench/pgcdc.sh - `make bench`: change events per second read by the
# postgres-cdc source, beside the same run's floor: pg_recvlogical reading
# the same WAL with the same plugin and publication (docs/postgres.md,
# "Throughput").  A benchmark, never a timed test.
#
#   N inserts (in transactions of 10 000 rows) and N/2 updates are written
#   with three slots already made at the start.  pg_recvlogical reads one
#   to the WAL end (--endpos) into /dev/null over the Unix socket, and one
#   over TCP with the password as sluice connects; the faster is the
#   floor.  sluice reads the third ('scan.startup.mode' = 'latest-offset':
#   from the slot's position) into a blackhole sink, through the
#   ChangelogNormalize on the key, checkpointing every second.  Two times
#   for sluice, from its start (start-up included): "streamed", when the
#   server has sent the last change (its walsender's sent position reaches
#   the WAL end; the job is then at most a socket buffer behind), and
#   "confirmed", when the slot's confirmed position reaches the WAL end (a
#   checkpoint holding everything has completed and been confirmed: up to
#   one interval more).  One server backend waits for both (a PL/pgSQL
#   loop, 10 ms naps), so no client is started while sluice runs.
#
#   Beside each, CPU seconds: the client's (pg_recvlogical's from
#   bench/rusage.c, sluice's from /proc with its checkpoint children) and
#   the server's (its backends that exited, read from the postmaster in
#   /proc: the walsender, and for sluice its catalog connection and the
#   waiting backend).  A loaded machine moves these far less than the
#   wall clock; the load average is printed.
#
#   sh bench/pgcdc.sh BUILD_DIR        (BENCH_PGCDC_ROWS, default 500000)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
N=${BENCH_PGCDC_ROWS:-500000}
mkdir -p "$B/bench"
if [ ! -x "$B/bench/rusage" ] || [ "$ROOT/bench/rusage.c" -nt "$B/bench/rusage" ]; then
	${CC:-cc} -O2 -Wall -Wextra -o "$B/bench/rusage" "$ROOT/bench/rusage.c" || exit 1
fi
. "$ROOT/tests/pg/pg.sh"
pg_up || exit 1
W="$PGW/w"
mkdir -p "$W"
chmod 777 "$W"
psql_q "CREATE TABLE cdc (id int PRIMARY KEY, user_id text, amount numeric(10,2), ts timestamp(3));
        CREATE PUBLICATION dbz_publication FOR TABLE cdc"
for s in floor_u floor_t sluice_s; do
	psql_q "SELECT 1 FROM pg_create_logical_replication_slot('$s', 'pgoutput')" > /dev/null
done
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
hz=$(getconf CLK_TCK)
# the server's CPU ticks so far: its exited backends (reaped by the
# postmaster); a backend is reaped just after its client leaves
sticks() { sleep 0.3; awk '{ print $16 + $17 }' "/proc/$PG_PID/stat"; }
sec() { awk -v t="$1" -v hz="$hz" 'BEGIN { printf "%.2f", t / hz }'; }
rate() { echo "$EVENTS / ($2 - $1)" | bc; }
floor_run() { # name extra-options...: sets fl_rate, fl_cpu, fl_srv
	name=$1; shift
	c0=$(sticks); t0=$(now)
	"$B/bench/rusage" "$W/ru" "$PGBIN/pg_recvlogical" "$@" -d postgres --slot "$name" --start \
		--endpos="$END" -o proto_version=1 -o publication_names=dbz_publication -f /dev/null
	t1=$(now)
	fl_rate=$(rate "$t0" "$t1"); fl_srv=$(sec $(($(sticks) - c0)))
	fl_cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$W/ru")
}
floor_run floor_u
u_rate=$fl_rate u_cpu=$fl_cpu u_srv=$fl_srv
PGPASSWORD=$PG_PASSWORD floor_run floor_t -h 127.0.0.1
t_rate=$fl_rate t_cpu=$fl_cpu t_srv=$fl_srv
floor=$u_rate
[ "$t_rate" -gt "$floor" ] && floor=$t_rate
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
c0=$(sticks); t0=$(now)
(cd "$W" && exec "$B/sluice" run job.sql) > "$W/log" 2>&1 &
JOB=$!
# one backend watches the slot and its walsender (shared memory, not a
# snapshot: pg_stat_get_wal_senders, pg_replication_slots)
psql -X -q -c "DO \$\$ DECLARE sent boolean := false; BEGIN
  LOOP
    IF NOT sent AND coalesce((SELECT w.sent_lsn >= '$END' FROM pg_stat_get_wal_senders() w,
        pg_replication_slots s WHERE s.slot_name = 'sluice_s' AND w.pid = s.active_pid), false) THEN
      RAISE NOTICE 'sent %', extract(epoch FROM clock_timestamp()); sent := true;
    END IF;
    EXIT WHEN (SELECT coalesce(confirmed_flush_lsn >= '$END', false) FROM pg_replication_slots
               WHERE slot_name = 'sluice_s');
    PERFORM pg_sleep(0.01);
  END LOOP;
  RAISE NOTICE 'done %', extract(epoch FROM clock_timestamp()); END \$\$" > "$W/wait" 2>&1 &
WAITER=$!
while kill -0 $WAITER 2>/dev/null; do
	kill -0 $JOB 2>/dev/null || { echo "the job died:"; cat "$W/log"; exit 1; }
	sleep 0.05
done
cpu=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$JOB/stat")
kill -9 $JOB 2>/dev/null; wait $JOB 2>/dev/null
ts=$(sed -n 's/.*NOTICE: *sent //p' "$W/wait")
t1=$(sed -n 's/.*NOTICE: *done //p' "$W/wait")
[ -n "$t1" ] || { echo "pgcdc: the wait failed:"; cat "$W/wait"; exit 1; }
[ -n "$ts" ] || ts=$t1
srv=$(sec $(($(sticks) - c0)))
streamed=$(rate "$t0" "$ts"); confirmed=$(rate "$t0" "$t1")
ratio() { awk -v r="$1" -v f="$floor" 'BEGIN { printf "%.2f", r / f }'; }
echo "pgcdc: $EVENTS change events ($N inserts, $((N / 2)) updates); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "pgcdc: pg_recvlogical, Unix socket  $u_rate events/s (client $u_cpu CPU s, server $u_srv)"
echo "pgcdc: pg_recvlogical, TCP          $t_rate events/s (client $t_cpu CPU s, server $t_srv); floor $floor"
echo "pgcdc: sluice postgres-cdc, TCP     $streamed events/s streamed ($(ratio "$streamed")x the floor), $confirmed events/s confirmed ($(ratio "$confirmed")x; a checkpoint later); client $(sec "$cpu") CPU s, server $srv"
