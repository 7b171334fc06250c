#!/bin/sh
# bench/pg.sh - `make bench`: rows per second into PostgreSQL through the
# jdbc sink, beside the same run's floor: psql COPY of the same rows from a
# CSV file (docs/postgres.md).  A benchmark, never a timed test.
#
#   floor       psql \copy of N orders (CSV) into a table without a key:
#               the issue's floor, what append is judged against
#   keyed floor the same \copy into a table with PRIMARY KEY (id): the
#               index upkeep no client can avoid, so the upsert's
#               like-for-like floor (the upsert needs the key for ON
#               CONFLICT); both ratios are printed for the upserts, each
#               with its verdict (docs/postgres.md, "Which floor")
#   psql upsert the same rows upserted by psql: COPY into a temporary
#               table, INSERT ... ON CONFLICT (what a client doing it the
#               plain way gets)
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
c0=$(ticks); t0=$(now); psql -X -q -c "\\copy floor FROM '$W/orders.csv' WITH (FORMAT csv)"; t1=$(now)
floor=$(rate "$t0" "$t1"); floor_cpu=$(cpu "$c0" "$(ticks)")
t0=$(now); psql -X -q -f "$W/orders.sql"; t1=$(now)
ins=$(rate "$t0" "$t1")
psql_q "CREATE TABLE kfloor (LIKE floor, PRIMARY KEY (id))"
c0=$(ticks); t0=$(now)
psql -X -q -c "\copy kfloor FROM '$W/orders.csv' WITH (FORMAT csv)"
t1=$(now)
kcopy=$(rate "$t0" "$t1"); kcopy_cpu=$(cpu "$c0" "$(ticks)")
psql_q "TRUNCATE kfloor"
c0=$(ticks); t0=$(now)
psql -X -q <<SQL
BEGIN;
CREATE TEMP TABLE st (LIKE floor);
\copy st FROM '$W/orders.csv' WITH (FORMAT csv)
INSERT INTO kfloor SELECT * FROM st ON CONFLICT (id) DO UPDATE SET user_id = EXCLUDED.user_id,
  amount = EXCLUDED.amount, event_time = EXCLUDED.event_time;
COMMIT;
SQL
t1=$(now)
kups=$(rate "$t0" "$t1"); kups_cpu=$(cpu "$c0" "$(ticks)")
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
set -- $(sl app app "" "" ""); app=$1; app_cpu=$2; app_ccpu=$3
set -- $(sl ups ups "" ", PRIMARY KEY (id) NOT ENFORCED" ""); ups=$1; ups_cpu=$2; ups_ccpu=$3
set -- $(sl ups2 ups "" ", PRIMARY KEY (id) NOT ENFORCED" ""); ups2=$1; ups2_cpu=$2; ups2_ccpu=$3
set -- $(sl eo eo "SET 'execution.checkpointing.interval' = '1 s'; SET 'pipeline.name' = 'bench';" \
	", PRIMARY KEY (id) NOT ENFORCED" ", 'sink.delivery-guarantee' = 'exactly-once'"); eo=$1; eo_cpu=$2; eo_ccpu=$3
c=$(psql_q "SELECT (SELECT count(*) FROM app) = $N AND (SELECT count(*) FROM ups) = $N AND (SELECT count(*) FROM eo) = $N")
[ "$c" = t ] || echo "WARNING: row counts differ from $N"
pct() { echo "100 * $1 / $floor" | bc; }
kpct() { echo "100 * $1 / $kcopy" | bc; }
met() { [ "$1" -ge 50 ] && echo met || echo missed; }
echo "pg floor (psql COPY into a table without a key, $N rows): $floor rows/s, server $floor_cpu CPU s; multi-row INSERT (psql, 1000 rows per statement): $ins rows/s ($(pct $ins)% of COPY)"
echo "pg keyed floor (psql COPY into a table with PRIMARY KEY (id), the upsert's like-for-like floor): $kcopy rows/s ($(pct $kcopy)% of the floor, server $kcopy_cpu CPU s); psql COPY to a temporary table + INSERT ... ON CONFLICT $kups rows/s ($(pct $kups)%, server $kups_cpu CPU s)"
echo "pg sink append (COPY): $app rows/s = $(pct $app)% of the floor [target >= 50%: $(met $(pct $app))]; client $app_ccpu CPU s (reads the JSON too), server $app_cpu"
for m in upsert:$ups:$ups_ccpu:$ups_cpu "re-upsert (every key there, the stage path):$ups2:$ups2_ccpu:$ups2_cpu" "upsert exactly-once:$eo:$eo_ccpu:$eo_cpu"; do
	IFS=: read -r what r cc sc <<EOT
$m
EOT
	echo "pg sink $what: $r rows/s = $(pct $r)% of the floor without a key [the issue's target >= 50%: $(met $(pct $r))], $(kpct $r)% of the keyed floor [like-for-like >= 50%: $(met $(kpct $r))]; client $cc CPU s, server $sc"
done
