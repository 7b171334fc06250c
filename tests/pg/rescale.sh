#!/bin/bash
# rescale.sh - the exactly-once jdbc sink restored at another parallelism
# (docs/postgres.md "Rescaling"): a checkpointing job at parallelism 2
# writing three PostgreSQL tables exactly-once is crashed between a
# checkpoint's pre-commit and its commit, at a named fault point, then
# restored at 1 and at 3 and run to its end.  Every old instance's staged
# batch must be applied exactly once whatever the new parallelism: the
# tables must equal an uninterrupted run's (at parallelism 1), no row
# twice, and a restart of the finished job must change nothing.
#   after-manifest-rename@2   checkpoint 2 is complete, no instance has
#                             committed it: both instances' batches of
#                             every sink are staged in the checkpoint only
#   jdbc-before-commit@2      inside the first commit transaction of
#                             checkpoint 2 (rolled back by the server)
#   jdbc-after-commit@2       right after the first commit of checkpoint
#                             2: one instance's batch of one sink is in,
#                             its progress row says 2, the rest are staged
#                             only (a record checked against the
#                             recovering instance's own row, the one
#                             that says 2, would be skipped: silent loss)
# Before the rescale was built the restore at another parallelism was
# refused; a restore that checked a record against the recovering
# instance's own progress row would skip one instance's batch.
#
#   rescale.sh [ROWS] [quick]   (default 40000; quick: two of the six
#                               cases, jdbc-after-commit -> 1 and
#                               after-manifest-rename -> 3, for make test)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
SLUICE="$B/sluice"
ROWS=${1:-40000}
QUICK=${2:-}
RATE=$((ROWS / 3))  # the faulty run lasts about 3 s: checkpoint 2 comes first
. "$ROOT/tests/pg/pg.sh"
pg_up || exit 1
W="$PGW/w"
mkdir -p "$W/ref"

mkdb() { # name: a database with the three tables
	psql_q "CREATE DATABASE $1"
	psql -X -q -d "$1" -v ON_ERROR_STOP=1 -c "
	  CREATE TABLE app (id text, user_id text, amount numeric(10,2), event_time timestamp(3));
	  CREATE TABLE win (user_id text, ws timestamp(3), total numeric(38,2), n bigint,
	                    PRIMARY KEY (user_id, ws));
	  CREATE TABLE agg (user_id text PRIMARY KEY, total numeric(38,2), n bigint);"
}
job() { # database checkpoint-interval rows-per-second parallelism
	local url="jdbc:postgresql://127.0.0.1:$PGPORT/$1"
	local o="'username' = 'postgres', 'password' = '$PG_PASSWORD', 'sink.delivery-guarantee' = 'exactly-once'"
	cat <<SQL
SET 'execution.checkpointing.interval' = '$2';
SET 'pipeline.name' = 'pgrescale';
SET 'parallelism.default' = '$4';
CREATE TABLE gen (n BIGINT,
  event_time AS TO_TIMESTAMP_LTZ(1785542400000 + n * 37 - MOD(n * 7, 3000), 3),
  WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'datagen', 'rows-per-second' = '$3',
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

mkdb ref
job ref "1 s" 0 1 > "$W/ref/job.sql"
(cd "$W/ref" && timeout 300 "$SLUICE" run job.sql) > "$W/ref/log" 2>&1 ||
	{ echo "reference run failed"; cat "$W/ref/log"; exit 1; }
dump ref
echo "reference run at 1: $(wc -l < "$W/ref.app") app rows, $(wc -l < "$W/ref.win") windows, $(wc -l < "$W/ref.agg") users"

for f in after-manifest-rename@2 jdbc-before-commit@2 jdbc-after-commit@2; do
	for to in 1 3; do
		if [ -n "$QUICK" ]; then
			case "$f$to" in jdbc-after-commit@21 | after-manifest-rename@23) ;; *) continue ;; esac
		fi
		db=r$to$(echo "$f" | tr -c 'a-z0-9\n' '_')
		failed_before=$fail
		fail=0
		mkdb "$db"
		mkdir -p "$W/$db"
		job "$db" "150 ms" "$RATE" 2 > "$W/$db/job.sql"
		# the second checkpoint may come after the job ended on a loaded
		# machine (then the job finishes): start again on empty tables
		for try in 1 2 3; do
			{ (cd "$W/$db" && SLUICE_FAULT="$f" exec timeout 120 "$SLUICE" run job.sql) > "$W/$db/log" 2>&1; } 2>/dev/null
			grep -q "fault point" "$W/$db/log" && break
			rm -rf "$W/$db/sluice-state"
			psql -X -q -d "$db" -c "TRUNCATE app, win, agg; DROP TABLE IF EXISTS sluice_sink_progress"
		done
		grep -q "fault point" "$W/$db/log" || { echo "FAIL $f: the fault point was not reached"; fail=1; }
		rows=$(psql -X -A -t -q -d "$db" -c "SELECT string_agg(sink || '=' || checkpoint_id, ' ' ORDER BY sink) FROM sluice_sink_progress")
		job "$db" "150 ms" "$RATE" "$to" > "$W/$db/job.sql"
		(cd "$W/$db" && timeout 300 "$SLUICE" run job.sql) > "$W/$db/log2" 2>&1 ||
			{ echo "FAIL $f -> $to: the restore failed"; tail -5 "$W/$db/log2"; fail=1; }
		grep -q "rescaling from" "$W/$db/log2" ||
			{ echo "FAIL $f -> $to: the restore was not a rescale"; fail=1; }
		compare "$db" "fault $f, restored at $to"
		before=$(cat "$W/$db".{app,win,agg} | md5sum)
		(cd "$W/$db" && timeout 120 "$SLUICE" run job.sql) > "$W/$db/log3" 2>&1 ||
			{ echo "FAIL $f -> $to: restart of the finished job"; tail -5 "$W/$db/log3"; fail=1; }
		dump "$db"
		[ "$before" = "$(cat "$W/$db".{app,win,agg} | md5sum)" ] ||
			{ echo "FAIL $f -> $to: the finished job changed the tables on restart"; fail=1; }
		echo "fault $f at 2, restored at $to (progress at the crash: $rows): $([ $fail = 0 ] && echo ok || echo FAILED)"
		[ $failed_before = 0 ] || fail=1
	done
done
exit $fail
