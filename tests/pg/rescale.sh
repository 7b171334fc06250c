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
EO_NAME=pgrescale
. "$ROOT/tests/pg/eo_lib.sh"  # the job (the same as crash.sh's) and the checks

eo_mkdb ref
eo_job ref "1 s" 0 1 > "$W/ref/job.sql"
(cd "$W/ref" && timeout 300 "$SLUICE" run job.sql) > "$W/ref/log" 2>&1 ||
	{ echo "reference run failed"; cat "$W/ref/log"; exit 1; }
eo_dump ref
echo "reference run at 1: $(wc -l < "$W/ref.app") app rows, $(wc -l < "$W/ref.win") windows, $(wc -l < "$W/ref.agg") users"

for f in after-manifest-rename@2 jdbc-before-commit@2 jdbc-after-commit@2; do
	for to in 1 3; do
		if [ -n "$QUICK" ]; then
			case "$f$to" in jdbc-after-commit@21 | after-manifest-rename@23) ;; *) continue ;; esac
		fi
		db=r$to$(echo "$f" | tr -c 'a-z0-9\n' '_')
		failed_before=$fail
		fail=0
		eo_mkdb "$db"
		mkdir -p "$W/$db"
		eo_job "$db" "150 ms" "$RATE" 2 > "$W/$db/job.sql"
		eo_fault_run "$db" "$W/$db" "$f"
		rows=$(psql -X -A -t -q -d "$db" -c "SELECT string_agg(sink || '=' || checkpoint_id, ' ' ORDER BY sink) FROM sluice_sink_progress")
		eo_job "$db" "150 ms" "$RATE" "$to" > "$W/$db/job.sql"
		(cd "$W/$db" && timeout 300 "$SLUICE" run job.sql) > "$W/$db/log2" 2>&1 ||
			{ echo "FAIL $f -> $to: the restore failed"; tail -5 "$W/$db/log2"; fail=1; }
		grep -q "rescaling from" "$W/$db/log2" ||
			{ echo "FAIL $f -> $to: the restore was not a rescale"; fail=1; }
		eo_compare "$db" "fault $f, restored at $to"
		eo_finish_restart "$db" "$W/$db" "$f -> $to" "$W/$db/log3"
		echo "fault $f at 2, restored at $to (progress at the crash: $rows): $([ $fail = 0 ] && echo ok || echo FAILED)"
		[ $failed_before = 0 ] || fail=1
	done
done
exit $fail
