#!/bin/bash
# savepoint.sh - stop with a savepoint (SIGTERM), edit the job (a filter
# after the aggregate), restart from it: the output continues with no gap
# and no duplicate (the filter keeps every row, so the result must equal an
# uninterrupted run's); the same after a harmless rewrite before the
# aggregate (`amount > -1` as `-1 < amount`, aliases: structural operator
# ids keep its state).  Also: a second restart of the finished job emits
# nothing, and a savepoint of operators the edited job lacks is refused
# unless --allow-non-restored-state, and one restored with another
# 'pipeline.max-parallelism' is refused.  A savepoint taken on one state backend
# restores into the other (hashmap -> rocksdb and back) with the same output.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
W=$(mktemp -d /tmp/sluice-sp.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"
"$B/tools/gen_events" 3000000 100 3 > in.jsonl
head() {
	cat <<'SQL'
SET 'execution.checkpointing.interval' = '500 ms';
SET 'pipeline.name' = 'sp';
CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'in.jsonl', 'format' = 'json');
CREATE TABLE win_out (user_id STRING, ws TIMESTAMP(3), total DECIMAL(38, 2), n BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json');
SQL
}
AGG="SELECT user_id, window_start, SUM(amount) AS total, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(event_time), INTERVAL '1' MINUTE)) GROUP BY user_id, window_start, window_end"
{ head; echo "INSERT INTO win_out $AGG;"; } > v1.sql
{ head; echo "INSERT INTO win_out SELECT * FROM ($AGG) WHERE n > 0;"; } > v2.sql
{ head; echo "INSERT INTO win_out SELECT user_id, event_time, CAST(amount AS DECIMAL(38, 2)), CAST(1 AS BIGINT) FROM orders;"; } > v3.sql
AGGH="SELECT /*+ UID('hourly') */ user_id, window_start, SUM(amount) AS total, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(event_time), INTERVAL '1' MINUTE)) GROUP BY user_id, window_start, window_end"
{ head; echo "INSERT INTO win_out $AGGH;"; } > h1.sql
{ head; echo "CREATE VIEW o2 AS SELECT * FROM orders WHERE amount > -1;"; echo "INSERT INTO win_out $AGGH;" | sed 's/TABLE orders/TABLE o2/'; } > h2.sql
# stop_soon PID: SIGTERM once the job's scan emitted rows, read from its
# live metrics (`--http`, docs/observability.md): the signal handler is
# installed before the job runs, so the signal never comes before it, and
# rows come early in its 3 M rows on any machine (waiting for the lock
# plus 0.1 s raced a slow open of two RocksDB instances on a loaded
# machine: the job died of the signal without a savepoint; a fixed sleep
# before that raced the whole job, 0.54 s on an idle machine)
stop_soon() {
	local port="" n=0 i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 6000 ]; do
		[ -n "$port" ] || port=$(sed -n 's|^sluice: serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' log)
		if [ -n "$port" ]; then
			n=$(curl -sf "http://127.0.0.1:$port/metrics" | awk '/^sluice_num_records_out_total[{].*operator_name="TableSourceScan"/ { s += $NF } END { print s + 0 }')
			[ "${n:-0}" -gt 0 ] && break
		fi
		sleep 0.01
		i=$((i + 1))
	done
	kill -TERM "$1"
}
fail=0
"$B/sluice" run v1.sql 2>/dev/null && cat out/part-* | sort > ref.txt
rm -rf out sluice-state
"$B/sluice" run --http 127.0.0.1:0 v1.sql > log 2>&1 &
P=$!
stop_soon $P
wait $P
grep -q "stopped with savepoint" log || { echo "FAIL: no savepoint on SIGTERM"; cat log; exit 1; }
sp=$(sed -n 's/.*stopped with savepoint //p' log)
"$B/sluice" run v2.sql --from-savepoint "$sp" >> log 2>&1 || { echo "FAIL: restart from the savepoint"; tail -3 log; fail=1; }
cat out/part-* | sort > got.txt
cmp -s ref.txt got.txt && echo "ok   savepoint, edit (filter after the aggregate), restart: no gap, no duplicate ($(wc -l < got.txt) rows)" ||
	{ echo "FAIL: output after the savepoint round trip differs ($(wc -l < ref.txt) vs $(wc -l < got.txt))"; fail=1; }
n1=$(cat out/part-* | wc -l)
"$B/sluice" run v2.sql >> log 2>&1 || { echo "FAIL: restart of the finished job"; fail=1; }
[ "$(cat out/part-* | wc -l)" = "$n1" ] && echo "ok   a finished job restarts to nothing" || { echo "FAIL: the finished job emitted rows"; fail=1; }
# an edited job without the window aggregate: its state is refused
rm -rf out sluice-state
"$B/sluice" run --http 127.0.0.1:0 v1.sql > log 2>&1 &
P=$!
stop_soon $P
wait $P
sp=$(sed -n 's/.*stopped with savepoint //p' log)
rm -rf out
# another 'pipeline.max-parallelism' changes every key's group: refused,
# naming the option and both values (docs/parallel.md section 7)
if "$B/sluice" run v1.sql --from-savepoint "$sp" --set pipeline.max-parallelism=256 > logm 2>&1; then
	echo "FAIL: a savepoint restored with another max parallelism"; fail=1
else
	grep -q "'pipeline.max-parallelism' = 128 and the job has 256" logm &&
		echo "ok   another max parallelism refused, naming the option and both values" ||
		{ echo "FAIL: max parallelism refusal message"; cat logm; fail=1; }
fi
rm -rf out
if "$B/sluice" run v3.sql --from-savepoint "$sp" > log3 2>&1; then
	echo "FAIL: state of a removed operator was dropped silently"; fail=1
else
	grep -q "no longer has" log3 && echo "ok   unmatched state refused" || { echo "FAIL: refusal message"; cat log3; fail=1; }
fi
# a harmless rewrite before the aggregate (`amount > -1` as `-1 < amount`,
# aliases, other spacing) keeps every operator's id (structural identity):
# the restart continues with no gap and no duplicate
{ head; echo "INSERT INTO win_out SELECT user_id, window_start, SUM(amount), COUNT(*) FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(event_time), INTERVAL '1' MINUTE)) WHERE amount > -1 GROUP BY user_id, window_start, window_end;"; } > r1.sql
{ head; echo "INSERT INTO win_out"; echo "  SELECT user_id AS u, window_start AS ws, SUM(amount) AS total, COUNT( * ) AS n"; echo "  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(event_time), INTERVAL '1' MINUTE)) AS w"; echo "  WHERE -1 < amount   GROUP BY user_id, window_start, window_end;"; } > r2.sql
rm -rf out sluice-state
"$B/sluice" run --http 127.0.0.1:0 r1.sql > log 2>&1 &
P=$!
stop_soon $P
wait $P
sp=$(sed -n 's/.*stopped with savepoint //p' log)
"$B/sluice" run r2.sql --from-savepoint "$sp" >> log 2>&1 || { echo "FAIL: rewritten job from the savepoint"; tail -3 log; fail=1; }
cat out/part-* | sort > got.txt
cmp -s ref.txt got.txt && echo "ok   savepoint, harmless rewrite before the aggregate, restart: no gap, no duplicate ($(wc -l < got.txt) rows)" ||
	{ echo "FAIL: rewrite round trip differs ($(wc -l < ref.txt) vs $(wc -l < got.txt))"; fail=1; }
# the UID hint keeps the aggregate's state across an edit of its input
rm -rf out sluice-state
"$B/sluice" run --http 127.0.0.1:0 h1.sql > log 2>&1 &
P=$!
stop_soon $P
wait $P
sp=$(sed -n 's/.*stopped with savepoint //p' log)
"$B/sluice" run h2.sql --from-savepoint "$sp" >> log 2>&1 || { echo "FAIL: UID hint restart"; tail -3 log; fail=1; }
cat out/part-* | sort > got.txt
cmp -s ref.txt got.txt && echo "ok   UID hint: state kept across a changed input" ||
	{ echo "FAIL: UID hint round trip differs ($(wc -l < ref.txt) vs $(wc -l < got.txt))"; fail=1; }
# a savepoint is backend-independent: hashmap -> rocksdb, rocksdb -> hashmap
for pair in "hashmap rocksdb" "rocksdb hashmap"; do
	set -- $pair
	{ echo "SET 'state.backend.type' = '$1';"; cat v1.sql; } > from.sql
	{ echo "SET 'state.backend.type' = '$2';"; cat v2.sql; } > to.sql
	rm -rf out sluice-state
	"$B/sluice" run --http 127.0.0.1:0 from.sql > log 2>&1 &
	P=$!
	stop_soon $P
	wait $P
	sp=$(sed -n 's/.*stopped with savepoint //p' log)
	[ -n "$sp" ] || { echo "FAIL: no savepoint on $1"; cat log; fail=1; continue; }
	before=$(cat out/part-* 2>/dev/null | wc -l)
	[ "$before" -lt "$(wc -l < ref.txt)" ] || { echo "FAIL: the $1 job ended before its savepoint"; fail=1; }
	"$B/sluice" run to.sql --from-savepoint "$sp" > log2 2>&1 || { echo "FAIL: $1 savepoint into $2"; tail -3 log2; fail=1; }
	cat out/part-* | sort > got.txt
	cmp -s ref.txt got.txt && echo "ok   savepoint of $1 restored into $2: no gap, no duplicate ($(wc -l < got.txt) rows)" ||
		{ echo "FAIL: $1 savepoint into $2 differs ($(wc -l < ref.txt) vs $(wc -l < got.txt))"; fail=1; }
done
exit $fail
