#!/bin/bash
# crash.sh - the exactly-once proof (docs/semantics.md §3): a job over a bounded
# input, checkpointing every 100-300 ms, is killed with SIGKILL at random
# moments and restarted each time until it finishes; its committed output,
# compared as a multiset, must equal an uninterrupted run's, with no row
# twice.  Then a restart of the finished job must emit nothing.
#
#   crash.sh [ROWS] [KILLS] [BACKEND] [PAR]  (defaults: 1000000 20 hashmap 1)
#
# PAR > 1 runs the killed job at that parallelism ('parallelism.default':
# checkpoints with barriers through the channels, docs/parallel.md §5)
# while the reference stays an uninterrupted run at parallelism 1, so the
# committed output must equal the parallelism-1 output.  PAR = mix: each
# run picks 1, 2 or 3 at random, so most restarts restore a checkpoint
# taken at another parallelism (rescaling, docs/parallel.md §7).
#
# The kills land between 20% and 80% of the uninterrupted run's measured
# wall time after a run starts (at least two checkpoint intervals in, so a
# restart can restore a checkpoint), so a faster engine or machine is still
# killed mid-run.  Only a kill that hit a running job counts (its run ended
# by SIGKILL); one that came after the job had finished does not.  A job
# finishes after a few kills, since each restart resumes from a checkpoint;
# until KILLS real kills are reached, its output is checked and the job
# starts over in a fresh directory (a cycle), and the test fails with fewer
# than KILLS real kills.
#
# CRASH_FILES=N cuts the input into N files of a directory (N splits, each
# with its own watermark, read interleaved: docs/watermarks.md, "Splits");
# with SLUICE_TEST_SPLIT_BYTES the files are cut into ranges too, so the
# kills restore the job mid-way through many splits.
#
# The job (tests/crash/job.sh): 1-minute tumbling windows into a json file
# sink, a non-windowed aggregate into a debezium-json file sink, a regular
# join, an interval join and a Top-N, each into its own file sink.
set -u
BUILD=${BUILD:-build}
ROWS=${1:-1000000}
KILLS=${2:-20}
BACKEND=${3:-hashmap}
PAR=${4:-1}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
SLUICE="$B/sluice"
. "$ROOT/tests/crash/job.sh"
W=$(mktemp -d /tmp/sluice-crash.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/in" "$W/ref" "$W/run"
"$B/tools/gen_events" "$ROWS" 1000 7 > "$W/in/orders.jsonl"
if [ "${CRASH_FILES:-1}" -gt 1 ]; then
	(cd "$W/in" && split -n "l/$CRASH_FILES" -d --additional-suffix=.jsonl orders.jsonl orders- &&
		rm orders.jsonl)
fi

job() { # dir interval [parallelism]
	[ -n "${3:-}" ] && echo "SET 'parallelism.default' = '$3';"
	cat <<SQL
SET 'execution.checkpointing.interval' = '$2';
SET 'pipeline.name' = 'crash';
SET 'state.backend.type' = '$BACKEND';
SQL
	job_tables "$W/in" "$1"
}

# the reference checkpoints every 200 ms, as the killed runs do on average,
# so that its wall time is theirs uninterrupted; at parallelism 1, the
# reference every PAR is compared against
job "$W/ref" "200 ms" 1 > "$W/ref/job.sql"
t0=$(date +%s%N)
(cd "$W/ref" && "$SLUICE" run job.sql) > "$W/ref/log" 2>&1 || { echo "reference run failed"; cat "$W/ref/log"; exit 1; }
ref_ms=$((($(date +%s%N) - t0) / 1000000))
for s in $SINKS; do
	cat "$W/ref/$s"/part-* 2>/dev/null | sort > "$W/ref.$s"
done

# The updating sinks' changelogs (debezium-json: out_agg, out_top) are
# compared row for row only when the order of each key's changes is the
# reference's: at parallelism 1, or when the input is one split.  Above 1
# over several splits (CRASH_FILES > 1, or a file larger than the split
# size: SLUICE_TEST_SPLIT_BYTES, else conn_filesystem.c's FS_SPLIT_BYTES,
# 16 MiB) the instances read different splits at once, and the changes a
# key gets from rows of different splits come in arrival order
# (docs/parallel.md §4, "What stays dependent on the arrival order"): an
# uninterrupted run differs from the reference there too.  What is
# promised then, and checked, is the final table: the changelog's net
# multiset (each after image +1, each before image -1) equal to the
# reference's, every row's net count 0 or 1 (a change applied twice, or a
# retraction of a row never emitted, shows).  Top-N's final table without
# the id: among orders of one user with equal amounts, which holds a rank
# is their arrival order too (ROW_NUMBER breaks ties by arrival, as
# Flink's); the ranks' amounts are the data's.
insize=$(cat "$W/in"/* | wc -c)
strict=1
if [ "$PAR" != 1 ] && { [ "${CRASH_FILES:-1}" -gt 1 ] ||
	[ "$insize" -gt "${SLUICE_TEST_SPLIT_BYTES:-16777216}" ]; }; then
	strict=0
fi
CHANGELOG_SINKS="out_agg out_top"
net_table() { # SINK: its debezium-json lines on stdin -> "count<TAB>row" of nonzero net counts, sorted
	f=.
	[ "$1" = out_top ] && f='del(.id)'
	jq -c -r "if .after != null then \"+\\t\" + (.after | $f | tojson) else empty end,
	          if .before != null then \"-\\t\" + (.before | $f | tojson) else empty end" |
		awk -F '\t' '{ n[$2] += ($1 == "+") ? 1 : -1 } END { for (r in n) if (n[r]) print n[r] "\t" r }' |
		LC_ALL=C sort
}
if [ $strict = 0 ]; then
	for s in $CHANGELOG_SINKS; do net_table $s < "$W/ref.$s" > "$W/ref.$s.net"; done
fi

# check_run: the finished run's committed output against the reference
fail=0
check_run() {
	for s in $SINKS; do
		cat "$W/run/$s"/part-* 2>/dev/null | sort > "$W/run.$s"
		if [ $strict = 0 ] && case " $CHANGELOG_SINKS " in *" $s "*) true ;; *) false ;; esac; then
			net_table $s < "$W/run.$s" > "$W/run.$s.net"
			if ! cmp -s "$W/ref.$s.net" "$W/run.$s.net"; then
				echo "FAIL $s (cycle $cycles): the committed changelog's final table differs from the uninterrupted run's ($(wc -l < "$W/ref.$s.net") vs $(wc -l < "$W/run.$s.net") rows)"
				diff "$W/ref.$s.net" "$W/run.$s.net" | head -10
				fail=1
			fi
			if awk -F '\t' '$1 != 1 { bad = 1 } END { exit !bad }' "$W/run.$s.net"; then
				echo "FAIL $s (cycle $cycles): a row's net count in the changelog is not 1"
				awk -F '\t' '$1 != 1' "$W/run.$s.net" | head -5
				fail=1
			fi
		elif ! cmp -s "$W/ref.$s" "$W/run.$s"; then
			echo "FAIL $s (cycle $cycles): committed output differs from the uninterrupted run ($(wc -l < "$W/ref.$s") vs $(wc -l < "$W/run.$s") rows)"
			diff "$W/ref.$s" "$W/run.$s" | head -10
			fail=1
		fi
		if ls -a "$W/run/$s" | grep -q '^\.part'; then
			echo "FAIL $s (cycle $cycles): staged or in-progress files left behind"; ls -a "$W/run/$s"; fail=1
		fi
	done
	dups=$(cut -d, -f1-2 "$W/run.out_win" | sort | uniq -d | wc -l)
	[ "$dups" = 0 ] || { echo "FAIL (cycle $cycles): $dups window rows twice"; fail=1; }
}

kills=0     # SIGKILLs that ended a running job
after=0     # SIGKILLs sent after the job had finished (not counted)
cycles=0    # runs to the end, each checked against the reference
ckills=0    # real kills in the current cycle
attempts=0
fresh=1     # the run starts from scratch (no checkpoint of this cycle)
while :; do
	attempts=$((attempts + 1))
	if [ $attempts -gt $((KILLS * 5 + 20)) ]; then echo "no progress after $attempts attempts ($kills kills)"; exit 1; fi
	# checkpoint every 100-300 ms, but at least 5 times in the job's time
	iv=$((100 + RANDOM % 201))
	[ $iv -le $((ref_ms / 5)) ] || iv=$((ref_ms / 5))
	[ $iv -ge 20 ] || iv=20
	par=$PAR
	[ "$PAR" = mix ] && par=$((1 + RANDOM % 3))
	job "$W/run" "$iv ms" "$par" > "$W/run/job.sql"
	t0=$(date +%s%N)
	(cd "$W/run" && exec "$SLUICE" run job.sql) >> "$W/run/log" 2>&1 &
	pid=$!
	if [ $kills -lt "$KILLS" ]; then
		ms=$((ref_ms * (20 + RANDOM % 61) / 100))
		[ $ms -ge $((iv * 2 + 50)) ] || ms=$((iv * 2 + 50))
		sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
		kill -9 $pid 2>/dev/null
	fi
	wait $pid 2>/dev/null
	rc=$?
	if [ $rc = 137 ] && [ $kills -lt "$KILLS" ]; then
		fresh=0
		kills=$((kills + 1))
		ckills=$((ckills + 1))
		continue
	fi
	[ $rc = 0 ] || { echo "run failed with status $rc"; tail -20 "$W/run/log"; exit 1; }
	if [ $kills -lt "$KILLS" ]; then
		after=$((after + 1))
		# a whole run from scratch finished before its kill: the reference,
		# timed on a busier machine, overstated the job's time; time the
		# kills by this run from now on
		run_ms=$((($(date +%s%N) - t0) / 1000000))
		if [ "$fresh" = 1 ] && [ $run_ms -lt $ref_ms ]; then ref_ms=$run_ms; fi
	fi
	check_run
	cycles=$((cycles + 1))
	[ $kills -ge "$KILLS" ] && break
	# the job finished before the kill: start over for the kills still to come
	fresh=1
	ckills=0
	cat "$W/run/log" >> "$W/runs.log"
	rm -rf "$W/run"
	mkdir -p "$W/run"
done
cat "$W/run/log" >> "$W/runs.log"
[ $kills -ge "$KILLS" ] || { echo "FAIL: $kills real kills, $KILLS wanted"; fail=1; }
restores=$(grep -c "resuming from checkpoint" "$W/runs.log")
[ "$restores" -gt 0 ] || { echo "FAIL: no restart restored a checkpoint"; tail "$W/runs.log"; fail=1; }

# a finished job restarts to nothing
before=$(for s in $SINKS; do cat "$W/run/$s"/part-*; done | wc -l)
(cd "$W/run" && "$SLUICE" run job.sql) > "$W/run/log2" 2>&1 || { echo "FAIL: restart of a finished job"; fail=1; }
after_rows=$(for s in $SINKS; do cat "$W/run/$s"/part-*; done | wc -l)
[ "$before" = "$after_rows" ] || { echo "FAIL: the finished job emitted $((after_rows - before)) rows on restart"; fail=1; }

echo "crash test ($BACKEND, parallelism $PAR against 1): $ROWS rows, $kills kills in $cycles cycles ($after kills came after the job had finished, not counted), $attempts runs, $restores restored a checkpoint, kills at 20-80% of the uninterrupted ${ref_ms} ms, $(wc -l < "$W/run.out_win") window rows, $(wc -l < "$W/run.out_agg") changelog rows, $(wc -l < "$W/run.out_join") join, $(wc -l < "$W/run.out_ij") interval-join, $(wc -l < "$W/run.out_top") top-n rows, changelogs compared $([ $strict = 1 ] && echo row for row || echo by final table): $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
