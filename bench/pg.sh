#!/bin/sh
# bench/pg.sh - `make bench`: rows per second into PostgreSQL through the
# jdbc sink, each case beside its own like-for-like floor, measured just
# before it: psql COPY of the same rows from a CSV file into the same kind
# of table (docs/postgres.md, "Which floor").  A benchmark, never a timed
# test.
#
#   floor       psql \copy of N orders (CSV) into a table without a key:
#               append's floor
#   keyed floor the same \copy into a table with PRIMARY KEY (id): the
#               index upkeep no client can avoid, so the upserts' and
#               exactly-once's floor (an upsert needs the key for ON
#               CONFLICT)
#   psql upsert the same rows upserted by psql over a full table: COPY
#               into a temporary table, INSERT ... ON CONFLICT (what a
#               client doing it the plain way gets), beside the upsert of
#               existing keys
#   insert      the same rows as multi-row INSERTs of 1000 rows (psql -f):
#               what a sink using INSERT instead of COPY would cost at best
#   append      sluice: N orders (JSON lines) -> jdbc sink, no key (COPY in
#               its binary format; 'sink.buffer-flush.max-rows' = '10000')
#   upsert      the same into a table with PRIMARY KEY (id): every key is
#               new, so each flush is the direct path, a binary COPY into
#               the keyed table (a key already there sends the flush
#               through the stage table and INSERT ... ON CONFLICT DO
#               UPDATE instead: measured by the next run)
#   re-upsert   the same job again over the now full table: every key is
#               there, the stage path (after one refused direct COPY, the
#               back-off sends flushes through the stage)
#   exactly-once  the upsert, checkpointing every second
# Rows per wall-clock second (the server works too); sluice's figures
# include reading and decoding the JSON.  Beside each, the server's CPU
# seconds (its backends', read from the postmaster's reaped children in
# /proc), which a loaded machine moves far less than the wall clock.
#
#   sh bench/pg.sh BUILD_DIR        (BENCH_PG_ROWS, default 1000000)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
N=${BENCH_PG_ROWS:-1000000}
mkdir -p "$B/bench"
if [ ! -x "$B/bench/rusage" ] || [ "$ROOT/bench/rusage.c" -nt "$B/bench/rusage" ]; then
	${CC:-cc} -O2 -Wall -Wextra -o "$B/bench/rusage" "$ROOT/bench/rusage.c" || exit 1
fi
. "$ROOT/tests/pg/pg.sh"
pg_up || exit 1
W="$PGW/w"
mkdir -p "$W"
"$B/tools/gen_events" "$N" 10000 3 > "$W/orders.jsonl"
jq -r '[.id, .user_id, .amount, .event_time] | @csv' "$W/orders.jsonl" > "$W/orders.csv"
awk -F, 'BEGIN { n = 0 } { if (n % 1000 == 0) { if (n) print ";"; printf "INSERT INTO ins VALUES " } else printf ","; printf "(%s,%s,%s,%s)", $1, $2, $3, $4; n++ } END { print ";" }' \
	"$W/orders.csv" | sed "s/\"/'/g" > "$W/orders.sql"
psql_q "CREATE TABLE floor (id text, user_id text, amount numeric(10,2), event_time timestamp(3));
        CREATE TABLE ins (LIKE floor); CREATE TABLE app (LIKE floor);
        CREATE TABLE ups (LIKE floor, PRIMARY KEY (id)); CREATE TABLE eo (LIKE floor, PRIMARY KEY (id))"
now() { date +%s.%N; }
rate() { echo "$N / ($2 - $1)" | bc; }
# the server's CPU ticks so far: its exited backends (reaped by the
# postmaster) and the postmaster itself; a backend is reaped just after
# its client leaves, hence the pause
ticks() { sleep 0.3; awk '{ print $14 + $15 + $16 + $17 }' "/proc/$PG_PID/stat"; }
cpu() { echo "scale=2; ($2 - $1) / $(getconf CLK_TCK)" | bc; }
# a floor: psql \copy of the CSV into table $1 (emptied first); prints
# "rows/s server-cpu-s"
floor_of() {
	psql_q "TRUNCATE $1"
	c0=$(ticks); t0=$(now)
	psql -X -q -c "\\copy $1 FROM '$W/orders.csv' WITH (FORMAT csv)"
	t1=$(now)
	echo "$(rate "$t0" "$t1") $(cpu "$c0" "$(ticks)")"
}
# psql's own upsert of the same rows into kfloor (COPY to a temporary
# table, INSERT ... ON CONFLICT), over what kfloor holds
psql_upsert() {
	c0=$(ticks); t0=$(now)
	psql -X -q <<SQL
BEGIN;
CREATE TEMP TABLE st (LIKE floor);
\\copy st FROM '$W/orders.csv' WITH (FORMAT csv)
INSERT INTO kfloor SELECT * FROM st ON CONFLICT (id) DO UPDATE SET user_id = EXCLUDED.user_id,
  amount = EXCLUDED.amount, event_time = EXCLUDED.event_time;
COMMIT;
SQL
	t1=$(now)
	echo "$(rate "$t0" "$t1") $(cpu "$c0" "$(ticks)")"
}
psql_q "CREATE TABLE kfloor (LIKE floor, PRIMARY KEY (id))"
t0=$(now); psql -X -q -f "$W/orders.sql"; t1=$(now)
ins=$(rate "$t0" "$t1")
job() { # table extra
	cat <<SQL
$2
CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '$W/orders.jsonl', 'format' = 'json');
CREATE TABLE t (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3)$3)
  WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'table-name' = '$1', 'username' = 'postgres',
        'password' = '$PG_PASSWORD', 'sink.buffer-flush.max-rows' = '10000'$4);
INSERT INTO t SELECT * FROM orders;
SQL
}
sl() { # name table set-lines key extra: prints "rows/s server-cpu-s client-cpu-s"
	job "$2" "$3" "$4" "$5" > "$W/$1.sql"
	c0=$(ticks)
	t0=$(now); (cd "$W" && "$B/bench/rusage" "$1.ru" "$B/sluice" run "$1.sql") > "$W/$1.log" 2>&1 ||
		{ cat "$W/$1.log"; exit 1; }
	t1=$(now)
	echo "$(rate "$t0" "$t1") $(cpu "$c0" "$(ticks)") $(awk '{ printf "%.2f", $1 + $2 }' "$W/$1.ru")"
}
pct() { echo "100 * $1 / $2" | bc; }
# each case right after its own floor, measured again for it (the load
# moves from minute to minute): append beside psql's COPY into a table
# without a key; the upserts and exactly-once beside psql's COPY into the
# same keyed table (every key new: the index upkeep no client avoids);
# upsert of existing keys beside it too, and beside psql's own upsert of
# existing keys (COPY to a temporary table + INSERT ... ON CONFLICT), the
# like-for-like plain-client figure
line() { # what sink-rows/s sink-server-cpu client-cpu floor-name floor-rows/s floor-cpu
	echo "pg $1: $2 rows/s = $(pct "$2" "$6")% of $5 ($6 rows/s); server $3 CPU s against the floor's $7; client $4 CPU s (reads the JSON too)"
}
set -- $(floor_of floor); f=$1 fc=$2
set -- $(sl app app "" "" ""); line "append (no key)" "$1" "$2" "$3" "the no-key floor" "$f" "$fc"
app=$1
set -- $(floor_of kfloor); f=$1 fc=$2
set -- $(sl ups ups "" ", PRIMARY KEY (id) NOT ENFORCED" ""); line "upsert, new keys" "$1" "$2" "$3" "the keyed floor" "$f" "$fc"
set -- $(floor_of kfloor); f=$1 fc=$2
set -- $(psql_upsert); pu=$1 puc=$2 # kfloor full: every key exists
set -- $(sl ups2 ups "" ", PRIMARY KEY (id) NOT ENFORCED" ""); line "upsert, existing keys" "$1" "$2" "$3" "the keyed floor" "$f" "$fc"
echo "    (psql's own upsert of existing keys, COPY to a temporary table + INSERT ... ON CONFLICT: $pu rows/s, server $puc CPU s; the sink = $(pct "$1" "$pu")% of it)"
set -- $(floor_of kfloor); f=$1 fc=$2
set -- $(sl eo eo "SET 'execution.checkpointing.interval' = '1 s'; SET 'pipeline.name' = 'bench';" \
	", PRIMARY KEY (id) NOT ENFORCED" ", 'sink.delivery-guarantee' = 'exactly-once'")
line "exactly-once upsert, new keys" "$1" "$2" "$3" "the keyed floor" "$f" "$fc"
c=$(psql_q "SELECT (SELECT count(*) FROM app) = $N AND (SELECT count(*) FROM ups) = $N AND (SELECT count(*) FROM eo) = $N")
[ "$c" = t ] || echo "WARNING: row counts differ from $N"
echo "pg multi-row INSERT (psql, 1000 rows per statement): $ins rows/s ($(pct "$ins" "$app")% of the sink's append)"
