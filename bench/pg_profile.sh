#!/bin/sh
# bench/pg_profile.sh - where the jdbc sink's client time goes: the sink's
# jobs of bench/pg.sh (append into a table without a key, upsert of new
# keys, upsert of existing keys, exactly-once upsert) run under valgrind's
# callgrind (the default: instruction counts, repeatable on a loaded
# machine) or perf record, against a private PostgreSQL 15 server
# (tests/pg/pg.sh).  Prints each job's total instructions (Ir) and its
# functions with the largest inclusive and self counts; the profiles stay in
# BUILD_DIR/bench-pgprof/ for callgrind_annotate / kcachegrind or perf
# report.  Only the client is profiled: the server's side is bench/pg.sh's
# server CPU seconds.  A benchmark, never a test.
#
#   sh bench/pg_profile.sh [BUILD_DIR]      (BENCH_PG_ROWS, default 100000;
#                                            PROFILER=callgrind | perf;
#                                            PROFILE_JOBS="app ups ups2 eo")
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
N=${BENCH_PG_ROWS:-100000}
PROFILER=${PROFILER:-callgrind}
JOBS=${PROFILE_JOBS:-app ups ups2 eo}
OUT="$B/bench-pgprof"
mkdir -p "$OUT"
case $PROFILER in
callgrind) command -v valgrind > /dev/null || { echo "pg_profile.sh: valgrind not found" >&2; exit 1; } ;;
perf) command -v perf > /dev/null || { echo "pg_profile.sh: perf not found" >&2; exit 1; } ;;
*) echo "pg_profile.sh: PROFILER must be callgrind or perf" >&2; exit 2 ;;
esac
. "$ROOT/tests/pg/pg.sh"
pg_up || exit 1
W="$PGW/w"
mkdir -p "$W"
chmod 777 "$W"
"$B/tools/gen_events" "$N" 10000 3 > "$W/orders.jsonl"
psql_q "CREATE TABLE app (id text, user_id text, amount numeric(10,2), event_time timestamp(3));
        CREATE TABLE ups (LIKE app, PRIMARY KEY (id)); CREATE TABLE eo (LIKE app, PRIMARY KEY (id))"
job() { # table set-lines key extra
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
K=", PRIMARY KEY (id) NOT ENFORCED"
for j in $JOBS; do
	case $j in
	app) job app "" "" "" ;;
	ups | ups2) job ups "" "$K" "" ;; # ups2: the same again, every key there
	eo) job eo "SET 'execution.checkpointing.interval' = '1 s'; SET 'pipeline.name' = 'prof';" "$K" \
		", 'sink.delivery-guarantee' = 'exactly-once'" ;;
	*) echo "pg_profile.sh: unknown job $j" >&2; exit 2 ;;
	esac > "$W/$j.sql"
	if [ $PROFILER = callgrind ]; then
		# one profile per process: a checkpointing job forks its
		# checkpoint writers (exactly-once); the figures are their sum,
		# the functions the job's main process's
		rm -f "$OUT/$j".*.cg
		(cd "$W" && valgrind --tool=callgrind --callgrind-out-file="$OUT/$j.%p.cg" \
			"$B/sluice" run "$j.sql") > "$OUT/$j.log" 2>&1 || { tail -5 "$OUT/$j.log"; exit 1; }
		ir=$(grep -o 'Collected : [0-9]*' "$OUT/$j.log" | grep -o '[0-9]*$' | paste -sd+ | bc)
		np=$(ls "$OUT/$j".*.cg | wc -l)
		main=$(ls -S "$OUT/$j".*.cg | head -1)
		cp "$main" "$OUT/$j.cg"
		echo "== $j: $N rows, $ir instructions in $np process(es) ($(echo "$ir / $N" | bc) per row); $OUT/$j.cg"
		callgrind_annotate --inclusive=yes "$OUT/$j.cg" 2>/dev/null | grep -E '^ *[0-9,]+ \(' |
			sed -n '2,13p' | sed 's/^/   incl /'
		callgrind_annotate "$OUT/$j.cg" 2>/dev/null | grep -E '^ *[0-9,]+ \(' | sed -n '2,11p' |
			sed 's/^/   self /'
	else
		(cd "$W" && perf record -g -o "$OUT/$j.perf" "$B/sluice" run "$j.sql") > "$OUT/$j.log" 2>&1 ||
			{ tail -5 "$OUT/$j.log"; exit 1; }
		echo "== $j: $N rows; $OUT/$j.perf"
		perf report -i "$OUT/$j.perf" --no-children --stdio 2>/dev/null | grep -E '^ +[0-9.]+%' | head -15
	fi
done
c=$(psql_q "SELECT (SELECT count(*) FROM app), (SELECT count(*) FROM ups), (SELECT count(*) FROM eo)")
echo "rows in app|ups|eo: $c"
