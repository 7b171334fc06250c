#!/bin/sh
# cdc_crash.sh [KILLS] [ROUNDS] - the postgres-cdc source under kill -9.
# A checkpointing job (every 100-300 ms) reads two tables (REPLICA
# IDENTITY DEFAULT and FULL, a TOASTed column in each) and writes a mirror
# of each and a SUM/COUNT per group through exactly-once jdbc sinks, while
# psql writes ROUNDS transactions into the tables (inserts, updates of the
# TOASTed column and of others, key updates, deletes; every tenth round
# one transaction updating every row, larger than a batch, so checkpoints
# fall inside it).  The job is killed with SIGKILL KILLS times at random
# moments and restarted each time.  At the end each mirror equals its table
# and each aggregate equals PostgreSQL's GROUP BY of the final table
# (a change read twice or lost shows in SUM and COUNT), and the only
# replication slots are the job's two, with no prepared transaction left.
# Between the kills, two runs die by themselves at the named fault points
# pgcdc-before-confirm and pgcdc-after-confirm (the third checkpoint's
# commit, either side of confirming the slot's position).  make test: 8
# kills; make test-pg: 25.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
SLUICE="$B/sluice"
KILLS=${1:-10}
ROUNDS=${2:-150}
. "$ROOT/tests/pg/pg.sh"
pg_up || exit 1
W="$PGW/w"
mkdir -p "$W"
chmod 777 "$W"
fail=0
JOB=
WRITER=
stop_job() { [ -n "$JOB" ] && kill -9 "$JOB" 2>/dev/null && wait "$JOB" 2>/dev/null; JOB=; }
TICKER=
trap 'stop_job; [ -n "$WRITER" ] && kill "$WRITER" 2>/dev/null; [ -n "$TICKER" ] && kill "$TICKER" 2>/dev/null; pg_down' EXIT

BIG="(SELECT string_agg(md5(random()::text || g::text), '') FROM generate_series(1, 300) g)"
for t in src_d src_f; do
	psql_q "CREATE TABLE $t (id int PRIMARY KEY, grp text NOT NULL, amount numeric(12,2), note text)"
	psql_q "CREATE TABLE ${t}_mirror (id int PRIMARY KEY, grp text, amount numeric(12,2), note text)"
	psql_q "CREATE TABLE ${t}_agg (grp text PRIMARY KEY, total numeric(20,2), n bigint)"
	psql_q "INSERT INTO $t SELECT g, 'g' || (g % 7), g, CASE WHEN g % 50 = 0 THEN $BIG
	  ELSE 'n' || g END FROM generate_series(1, 1500) g"
done
psql_q "ALTER TABLE src_f REPLICA IDENTITY FULL"
{
	echo "SET 'execution.checkpointing.interval' = '$((100 + $(od -An -N1 -tu1 /dev/urandom) % 200)) ms';"
	echo "SET 'pipeline.name' = 'cdccrash';"
	for t in src_d src_f; do
		echo "CREATE TABLE $t (id INT, grp STRING, amount DECIMAL(12, 2), note STRING,
  PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'postgres-cdc', 'hostname' = '127.0.0.1',
  'port' = '$PGPORT', 'username' = 'postgres', 'password' = '$PG_PASSWORD',
  'database-name' = 'postgres', 'schema-name' = 'public', 'table-name' = '$t',
  'slot.name' = 'crash_$t', 'decoding.plugin.name' = 'pgoutput');"
		o="'connector' = 'jdbc', 'url' = '$PG_URL', 'username' = 'postgres', 'password' = '$PG_PASSWORD', 'sink.delivery-guarantee' = 'exactly-once'"
		echo "CREATE TABLE ${t}_mirror (id INT, grp STRING, amount DECIMAL(12, 2), note STRING,
  PRIMARY KEY (id) NOT ENFORCED) WITH ($o, 'table-name' = '${t}_mirror');"
		echo "CREATE TABLE ${t}_agg (grp STRING, total DECIMAL(20, 2), n BIGINT,
  PRIMARY KEY (grp) NOT ENFORCED) WITH ($o, 'table-name' = '${t}_agg');"
		echo "INSERT INTO ${t}_mirror SELECT * FROM $t;"
		echo "INSERT INTO ${t}_agg SELECT grp, SUM(amount), COUNT(*) FROM $t GROUP BY grp;"
	done
} > "$W/job.sql"

writer() {
	r=1
	while [ $r -le "$ROUNDS" ]; do
		for t in src_d src_f; do
			big=""
			[ $((r % 10)) = 0 ] && big="UPDATE $t SET amount = amount + 1;"
			psql -X -q -v ON_ERROR_STOP=1 -c "BEGIN;
			  INSERT INTO $t SELECT g, 'r' || (g % 5), g % 1000, 'w' || g
			    FROM generate_series(10000 + $r * 20, 10000 + $r * 20 + 19) g;
			  UPDATE $t SET amount = amount + 0.5 WHERE id % 97 = $r % 97;
			  UPDATE $t SET note = $BIG WHERE id = $r * 7;
			  UPDATE $t SET grp = 'moved' WHERE id % 89 = $r % 89;
			  UPDATE $t SET id = id + 100000 WHERE id = $r * 11 AND id < 100000;
			  DELETE FROM $t WHERE id % 101 = $r % 101 AND id % 2 = 1;
			  $big COMMIT" > /dev/null 2>> "$W/writer.err" || echo "writer round $r failed" >> "$W/writer.err"
		done
		r=$((r + 1))
		sleep 0.02
	done
}
diffs() {
	n=0
	for t in src_d src_f; do
		d=$(psql_q "SELECT count(*) FROM ((SELECT * FROM $t EXCEPT SELECT * FROM ${t}_mirror)
		  UNION ALL (SELECT * FROM ${t}_mirror EXCEPT SELECT * FROM $t)) x")
		a=$(psql_q "SELECT count(*) FROM ((SELECT grp, SUM(amount), COUNT(*) FROM $t GROUP BY grp
		  EXCEPT SELECT * FROM ${t}_agg) UNION ALL (SELECT * FROM ${t}_agg EXCEPT
		  SELECT grp, SUM(amount), COUNT(*) FROM $t GROUP BY grp)) x")
		n=$((n + d + a))
	done
	echo $n
}
start_job() {
	(cd "$W" && exec "$SLUICE" run job.sql) >> "$W/log" 2>&1 &
	JOB=$!
}

writer &
WRITER=$!
start_job
k=0
while [ $k -lt "$KILLS" ]; do
	# 0.3-1.8 s, so some kills land in the snapshot, some between checkpoints
	sleep "$(echo "scale=2; (30 + $(od -An -N1 -tu1 /dev/urandom) * 150 / 255) / 100" | bc)"
	if ! kill -0 "$JOB" 2>/dev/null; then
		echo "FAIL: the job died by itself"; tail -5 "$W/log"; fail=1; break
	fi
	kill -9 "$JOB" 2>/dev/null; wait "$JOB" 2>/dev/null
	k=$((k + 1))
	start_job
done
# the named fault points either side of confirming the slot's position
# to the server (the checkpoint complete): the job dies there by itself,
# and the next run resumes.  The points sit after pc_commit's check that
# the checkpoint carries a position the slot has not confirmed yet (none
# while the snapshot is read, none when nothing new was read), and
# SLUICE_FAULT="point@3" fired only in the third checkpoint's commit of
# the run: a third checkpoint with nothing new to confirm, or one that
# failed or was still in the snapshot, passed the point by for good and
# the run went on until the wait's end ("pgcdc-after-confirm not reached
# in 30 s", once, on a loaded machine).  So the runs ask for "point@3+"
# (the first time the point is reached from the third checkpoint on: the
# same point, the same crash), a ticker commits one insert into each
# table every 50 ms while a fault run waits so there is always something
# to confirm even after the writer ended (rows the final comparison checks
# like the writer's), and the wait is 60 s.
ticker() { # $1: the first id
	n=$1
	while :; do
		psql -X -q -c "BEGIN; INSERT INTO src_d VALUES ($n, 'tick', 1, 't'); INSERT INTO src_f VALUES ($n, 'tick', 1, 't'); COMMIT" \
			> /dev/null 2>> "$W/writer.err"
		n=$((n + 1))
		sleep 0.05
	done
}
tick_from=900000
for f in pgcdc-before-confirm pgcdc-after-confirm; do
	stop_job
	ticker $tick_from &
	TICKER=$!
	tick_from=$((tick_from + 50000))
	(cd "$W" && SLUICE_FAULT="$f@3+" exec "$SLUICE" run job.sql) >> "$W/log" 2>&1 &
	JOB=$!
	i=0
	while [ $i -lt 600 ] && kill -0 "$JOB" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
	kill "$TICKER" 2>/dev/null; wait "$TICKER" 2>/dev/null
	if kill -0 "$JOB" 2>/dev/null; then
		echo "FAIL: fault point $f not reached in 60 s"; fail=1; stop_job
	else
		wait "$JOB" 2>/dev/null; JOB=
		[ "$(grep -c "fault point '$f': crashing" "$W/log")" = 1 ] && faults="${faults:-}$f " ||
			{ echo "FAIL: the job ended without reaching fault point $f: $(tail -2 "$W/log")"; fail=1; }
	fi
	start_job
done
kill -0 "$WRITER" 2>/dev/null || echo "note: the writer ended before the fault points"
wait "$WRITER"
WRITER=
[ -s "$W/writer.err" ] && { echo "FAIL: the writer: $(head -3 "$W/writer.err")"; fail=1; }
i=0
while [ $i -lt 300 ] && [ "$(diffs)" != 0 ] && kill -0 "$JOB" 2>/dev/null; do
	sleep 0.2; i=$((i + 1))
done
n=$(diffs)
rows=$(psql_q "SELECT (SELECT count(*) FROM src_d) + (SELECT count(*) FROM src_f)")
resumed=$(grep -c "resuming from checkpoint" "$W/log")
if [ "$n" = 0 ]; then
	echo "ok   $KILLS kill -9 and the fault points ${faults:-(none)}($resumed restarts from a checkpoint), $ROUNDS rounds of changes: mirrors and aggregates of $rows rows equal PostgreSQL's"
else
	echo "FAIL $KILLS kill -9: $n rows differ"; tail -5 "$W/log"; fail=1
	for t in src_d src_f; do
		psql_q "SELECT * FROM ${t}_agg EXCEPT SELECT grp, SUM(amount), COUNT(*) FROM $t GROUP BY grp" | head -3
	done
fi
slots=$(psql_q "SELECT string_agg(slot_name, ',' ORDER BY slot_name) FROM pg_replication_slots")
[ "$slots" = "crash_src_d,crash_src_f" ] && echo "ok   replication slots: only the job's ($slots)" ||
	{ echo "FAIL slots: $slots"; fail=1; }
px=$(psql_q "SELECT count(*) FROM pg_prepared_xacts")
[ "$px" = 0 ] && echo "ok   no prepared transaction left" || { echo "FAIL $px prepared transactions left"; fail=1; }
stop_job
[ $fail = 0 ] && echo "cdc_crash: all passed" || echo "cdc_crash: FAILED"
exit $fail
