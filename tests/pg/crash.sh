#!/bin/bash
# crash.sh - the exactly-once proof for the jdbc sink (docs/postgres.md): a
# checkpointing job (every 100-300 ms) writing three PostgreSQL tables with
# 'sink.delivery-guarantee' = 'exactly-once' is killed with SIGKILL at
# random moments and restarted until it finishes; then it is crashed at the
# named fault points between staging and commit (jdbc-before-commit: inside
# the commit transaction, jdbc-after-commit: after COMMIT, before the
# checkpoint is finished) and restarted.  Each time the tables must equal an
# uninterrupted run's, with no row twice, and a restart of the finished job
# must change nothing.
#
#   crash.sh [ROWS] [KILLS]      (defaults: 80000 10)
#
# The input is a datagen sequence throttled to ROWS / (KILLS * 0.6 s) rows
# per second, each order's columns computed from its number (so a replay
# gives the same rows): every run lasts long enough for its kill (at most
# 0.45 s of input each) whatever the machine's speed, and the job cannot
# finish before the last kill.  The tables: app (append-only, no key:
# every order of amount >= 500), win (1-minute tumbling windows upserted by
# (user_id, ws)) and agg (a non-windowed GROUP BY upserted by user_id:
# updates).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
SLUICE="$B/sluice"
ROWS=${1:-80000}
KILLS=${2:-10}
RATE=$((ROWS * 10 / (KILLS * 6)))
. "$ROOT/tests/pg/pg.sh"
pg_up || exit 1
W="$PGW/w"
mkdir -p "$W/ref" "$W/run"

mkdb() { # name: a database with the three tables
	psql_q "CREATE DATABASE $1"
	psql -X -q -d "$1" -v ON_ERROR_STOP=1 -c "
	  CREATE TABLE app (id text, user_id text, amount numeric(10,2), event_time timestamp(3));
	  CREATE TABLE win (user_id text, ws timestamp(3), total numeric(38,2), n bigint,
	                    PRIMARY KEY (user_id, ws));
	  CREATE TABLE agg (user_id text PRIMARY KEY, total numeric(38,2), n bigint);"
}
job() { # database checkpoint-interval [rows-per-second]
	local url="jdbc:postgresql://127.0.0.1:$PGPORT/$1"
	local o="'username' = 'postgres', 'password' = '$PG_PASSWORD', 'sink.delivery-guarantee' = 'exactly-once'"
	cat <<SQL
SET 'execution.checkpointing.interval' = '$2';
SET 'pipeline.name' = 'pgcrash';
CREATE TABLE gen (n BIGINT,
  event_time AS TO_TIMESTAMP_LTZ(1785542400000 + n * 37 - MOD(n * 7, 3000), 3),
  WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'datagen', 'rows-per-second' = '${3:-$RATE}',
        'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '$ROWS');
CREATE VIEW orders AS SELECT CONCAT('o', CAST(n AS STRING)) AS id,
  CONCAT('u', CAST(MOD(n * 7919, 1000) AS STRING)) AS user_id,
  CAST(MOD(n * 104729, 100000) AS DECIMAL(10, 2)) / 100 AS amount, event_time FROM gen;
CREATE TABLE app (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3))
  WITH ('connector' = 'jdbc', 'url' = '$url', 'table-name' = 'app', $o);
CREATE TABLE win (user_id STRING, ws TIMESTAMP(3), total DECIMAL(38, 2), n BIGINT,
  PRIMARY KEY (user_id, ws) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$url', 'table-name' = 'win', $o);
CREATE TABLE agg (user_id STRING, total DECIMAL(38, 2), n BIGINT, PRIMARY KEY (user_id) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$url', 'table-name' = 'agg', $o);
INSERT INTO app SELECT id, user_id, amount, CAST(event_time AS TIMESTAMP(3)) FROM orders
  WHERE amount >= 500;
INSERT INTO win SELECT user_id, window_start, SUM(amount), COUNT(*)
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(event_time), INTERVAL '1' MINUTE))
  GROUP BY user_id, window_start, window_end;
INSERT INTO agg SELECT user_id, SUM(amount), COUNT(*) FROM orders GROUP BY user_id;
SQL
}
dump() { # database -> one sorted file per table in $W/<database>.<table>
	for t in app win agg; do
		psql -X -A -t -q -d "$1" -c "SELECT * FROM $t" | sort > "$W/$1.$t"
	done
}
fail=0
compare() { # database label
	dump "$1"
	for t in app win agg; do
		if ! cmp -s "$W/ref.$t" "$W/$1.$t"; then
			echo "FAIL $2: table $t differs from the uninterrupted run's ($(wc -l < "$W/ref.$t") vs $(wc -l < "$W/$1.$t") rows)"
			diff "$W/ref.$t" "$W/$1.$t" | head -6
			fail=1
		fi
	done
	local d
	d=$(psql -X -A -t -q -d "$1" -c "SELECT count(*) - count(DISTINCT id) FROM app")
	[ "$d" = 0 ] || { echo "FAIL $2: $d rows of app twice"; fail=1; }
}
finish_restart() { # database dir label: a restart of the finished job changes nothing
	(cd "$2" && timeout 120 "$SLUICE" run job.sql) >> "$2/log" 2>&1 ||
		{ echo "FAIL $3: restart of the finished job"; tail -5 "$2/log"; fail=1; }
	local before
	before=$(cat "$W/$1".{app,win,agg} | md5sum)
	dump "$1"
	[ "$before" = "$(cat "$W/$1".{app,win,agg} | md5sum)" ] ||
		{ echo "FAIL $3: the finished job changed the tables on restart"; fail=1; }
}

mkdb ref
job ref "1 s" 0 > "$W/ref/job.sql"
t0=$(date +%s)
(cd "$W/ref" && timeout 300 "$SLUICE" run job.sql) > "$W/ref/log" 2>&1 ||
	{ echo "reference run failed"; cat "$W/ref/log"; exit 1; }
dump ref
echo "reference run: $(($(date +%s) - t0)) s, $(wc -l < "$W/ref.app") app rows, $(wc -l < "$W/ref.win") windows, $(wc -l < "$W/ref.agg") users"

mkdb run
kills=0
attempts=0
while :; do
	attempts=$((attempts + 1))
	if [ $attempts -gt $((KILLS * 5 + 20)) ]; then echo "no progress after $attempts attempts"; exit 1; fi
	job run "$((100 + RANDOM % 201)) ms" > "$W/run/job.sql"
	(cd "$W/run" && exec "$SLUICE" run job.sql) >> "$W/run/log" 2>&1 &
	pid=$!
	if [ $kills -lt "$KILLS" ]; then
		sleep "0.$(printf "%03d" $((50 + RANDOM % 400)))"
		if kill -9 $pid 2>/dev/null; then
			wait $pid 2>/dev/null
			kills=$((kills + 1))
			continue
		fi
	fi
	wait $pid
	rc=$?
	[ $rc = 0 ] && break
	echo "run failed with status $rc"; tail -20 "$W/run/log"; exit 1
done
compare run "kill -9"
fences=$(psql -X -A -t -q -d run -c "SELECT min(fence) FROM sluice_sink_progress")
# each run that got as far as recovering bumped the fence (a kill may come earlier)
[ "$fences" -ge 1 ] 2>/dev/null && [ "$fences" -le "$attempts" ] ||
	{ echo "FAIL: fence $fences after $attempts runs"; fail=1; }
finish_restart run "$W/run" "kill -9"
[ $kills = "$KILLS" ] || { echo "FAIL: only $kills kills (the job finished first)"; fail=1; }
echo "crash test (jdbc): $ROWS rows at $RATE rows/s, $kills kills, $attempts runs, fence $fences: $([ $fail = 0 ] && echo ok || echo FAILED)"

# the fault points between staging (pre-commit) and commit
for f in jdbc-before-commit@2 jdbc-after-commit@2 jdbc-after-commit@1; do
	db=f$(echo "$f" | tr -c 'a-z0-9\n' '_')
	failed_before=$fail
	fail=0
	mkdb "$db"
	mkdir -p "$W/$db"
	job "$db" "150 ms" $((ROWS / 2)) > "$W/$db/job.sql"
	# the N-th checkpoint's commit may come after the job ended on a loaded
	# machine (then the job finishes): start again on empty tables, 3 tries
	for try in 1 2 3; do
		{ (cd "$W/$db" && SLUICE_FAULT="$f" exec timeout 120 "$SLUICE" run job.sql) > "$W/$db/log" 2>&1; } 2>/dev/null
		rc=$?
		grep -q "fault point" "$W/$db/log" && break
		rm -rf "$W/$db/sluice-state"
		psql -X -q -d "$db" -c "TRUNCATE app, win, agg; DROP TABLE sluice_sink_progress"
	done
	grep -q "fault point" "$W/$db/log" || { echo "FAIL $f: the fault point was not reached (status $rc)"; fail=1; }
	(cd "$W/$db" && timeout 300 "$SLUICE" run job.sql) >> "$W/$db/log" 2>&1 ||
		{ echo "FAIL $f: the restart failed"; tail -5 "$W/$db/log"; fail=1; }
	compare "$db" "fault $f"
	finish_restart "$db" "$W/$db" "fault $f"
	echo "fault $f: $([ $fail = 0 ] && echo ok || echo FAILED)"
	[ $failed_before = 0 ] || fail=1
done
exit $fail
