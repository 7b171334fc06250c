#!/bin/bash
# crash.sh - the exactly-once proof for the jdbc sink (docs/postgres.md): a
# checkpointing job (every 100-300 ms) writing three PostgreSQL tables with
# 'sink.delivery-guarantee' = 'exactly-once' is killed with SIGKILL at
# random moments and restarted until it finishes; then it is crashed at the
# named fault points between staging and commit (jdbc-before-commit: inside
# the commit transaction, jdbc-after-commit: after COMMIT, before the
# checkpoint is finished) and restarted.  Each time the tables must equal an
# uninterrupted run's, with no row twice, and a restart of the finished job
# must change nothing; at the end no prepared transaction or replication
# slot is left on the server.
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
# updates); the job and the checks are tests/pg/eo_lib.sh's.
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
EO_NAME=pgcrash
. "$ROOT/tests/pg/eo_lib.sh"

eo_mkdb ref
eo_job ref "1 s" 0 > "$W/ref/job.sql"
t0=$(date +%s)
(cd "$W/ref" && timeout 300 "$SLUICE" run job.sql) > "$W/ref/log" 2>&1 ||
	{ echo "reference run failed"; cat "$W/ref/log"; exit 1; }
eo_dump ref
echo "reference run: $(($(date +%s) - t0)) s, $(wc -l < "$W/ref.app") app rows, $(wc -l < "$W/ref.win") windows, $(wc -l < "$W/ref.agg") users"

eo_mkdb run
kills=0
attempts=0
while :; do
	attempts=$((attempts + 1))
	if [ $attempts -gt $((KILLS * 5 + 20)) ]; then echo "no progress after $attempts attempts"; exit 1; fi
	eo_job run "$((100 + RANDOM % 201)) ms" "$RATE" > "$W/run/job.sql"
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
eo_compare run "kill -9"
fences=$(psql -X -A -t -q -d run -c "SELECT min(fence) FROM sluice_sink_progress")
# each run that got as far as recovering bumped the fence (a kill may come earlier)
[ "$fences" -ge 1 ] 2>/dev/null && [ "$fences" -le "$attempts" ] ||
	{ echo "FAIL: fence $fences after $attempts runs"; fail=1; }
eo_finish_restart run "$W/run" "kill -9" "$W/run/log"
[ $kills = "$KILLS" ] || { echo "FAIL: only $kills kills (the job finished first)"; fail=1; }
echo "crash test (jdbc): $ROWS rows at $RATE rows/s, $kills kills, $attempts runs, fence $fences: $([ $fail = 0 ] && echo ok || echo FAILED)"

# the fault points between staging (pre-commit) and commit
for f in jdbc-before-commit@2 jdbc-after-commit@2 jdbc-after-commit@1; do
	db=f$(echo "$f" | tr -c 'a-z0-9\n' '_')
	failed_before=$fail
	fail=0
	eo_mkdb "$db"
	mkdir -p "$W/$db"
	eo_job "$db" "150 ms" $((ROWS / 2)) > "$W/$db/job.sql"
	eo_fault_run "$db" "$W/$db" "$f"
	(cd "$W/$db" && timeout 300 "$SLUICE" run job.sql) >> "$W/$db/log" 2>&1 ||
		{ echo "FAIL $f: the restart failed"; tail -5 "$W/$db/log"; fail=1; }
	eo_compare "$db" "fault $f"
	eo_finish_restart "$db" "$W/$db" "fault $f" "$W/$db/log"
	echo "fault $f: $([ $fail = 0 ] && echo ok || echo FAILED)"
	[ $failed_before = 0 ] || fail=1
done
# the sink commits with plain transactions: nothing prepared, no slot
left=$(psql_q "SELECT (SELECT count(*) FROM pg_prepared_xacts) || ' ' || (SELECT count(*) FROM pg_replication_slots)")
[ "$left" = "0 0" ] && echo "ok   no prepared transaction or replication slot left" ||
	{ echo "FAIL prepared transactions, slots left: $left"; fail=1; }
exit $fail
