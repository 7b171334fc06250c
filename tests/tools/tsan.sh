#!/bin/sh
# tsan.sh - runs what starts threads under ThreadSanitizer (`make tsan`,
# docs/testing.md): the unit programs named on the command line, built
# with -fsanitize=thread into BUILD, and a checkpointing job on each state
# backend (tests/crash/job.sh's tables over ROWS generated orders,
# checkpoints every 50 ms): on hashmap the checkpoint is written by a
# forked child while the huge-page collapser thread runs, on rocksdb by
# the writer thread while the job thread goes on; each at parallelism 1
# and 2 (barriers through the channels, every instance parked at the
# fork or the RocksDB snapshots, phase 2 on the instances' threads); and a
# job at parallelism 2 whose metrics the HTTP endpoint's thread serves
# while it runs (scraped until three rounds answered, then stopped with
# SIGTERM: docs/observability.md).  A program passes when
# it exits 0 and TSan reported nothing; tests/tools/tsan.supp lists what
# is suppressed and why.  Ends with "N passed, N failed"; exit 1 on a
# failure.
#
#   tsan.sh BUILD TEST...      (make tsan: build-tsan and the programs)
set -u
BUILD=${1:-build-tsan}
shift
ROWS=${TSAN_ROWS:-50000}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
LOGS="$B/test-logs"
mkdir -p "$LOGS"
TSAN_OPTIONS="exitcode=66 second_deadlock_stack=1 suppressions=$ROOT/tests/tools/tsan.supp"
export TSAN_OPTIONS
passed=0
failed=0

check() { # name log rc
	if [ "$3" = 0 ] && ! grep -q 'WARNING: ThreadSanitizer' "$2"; then
		passed=$((passed + 1))
		echo "ok   tsan $1"
	else
		failed=$((failed + 1))
		echo "FAIL tsan $1 (exit $3, $(grep -c 'WARNING: ThreadSanitizer' "$2") report(s)):"
		grep -A 24 -m 1 'WARNING: ThreadSanitizer' "$2" || tail -20 "$2"
	fi
}

for t in "$@"; do
	log="$LOGS/tsan_$t.log"
	if (cd "$ROOT" && timeout 600 "$B/tests/$t") >"$log" 2>&1; then rc=0; else rc=$?; fi
	check "$t" "$log" "$rc"
done

W=$(mktemp -d /tmp/sluice-tsan.XXXXXX)
trap 'rm -rf "$W"' EXIT
. "$ROOT/tests/crash/job.sh"
mkdir -p "$W/in"
"$B/tools/gen_events" "$ROWS" 1000 7 >"$W/in/orders.jsonl"
for be in hashmap rocksdb; do
	for par in 1 2; do
		d="$W/$be-$par"
		mkdir -p "$d"
		{
			echo "SET 'execution.checkpointing.interval' = '50 ms';"
			echo "SET 'pipeline.name' = 'tsan-$be-$par';"
			echo "SET 'state.backend.type' = '$be';"
			echo "SET 'parallelism.default' = '$par';" # the default is the CPU count
			job_tables "$W/in" "$d"
		} >"$d/job.sql"
		log="$LOGS/tsan_job_$be-$par.log"
		if (cd "$d" && timeout 600 "$B/sluice" run --stats job.sql) >"$log" 2>&1; then rc=0; else rc=$?; fi
		n=$(grep -c '^checkpoint [0-9]*:' "$log")
		if [ "$rc" = 0 ] && [ "$n" -lt 2 ]; then
			echo "(the $be job took $n periodic checkpoints: too few to test the writer)" >>"$log"
			rc=1
		fi
		check "job_$be parallelism $par ($n checkpoints)" "$log" "$rc"
	done
done
# the live metrics read by the HTTP endpoint's thread (docs/observability.md)
# while a job runs at parallelism 2: /metrics, /jobs/<id> and /pending
# scraped until three rounds of all three answered, then the job is stopped
# with SIGTERM.  The datagen table is unbounded, so the job cannot end
# before the scrapes however fast it runs (a bounded one ended before its
# third scrape once the engine got faster); a job that ends by itself has
# failed
mkdir -p "$W/http"
cat >"$W/http/job.sql" <<EOF
SET 'parallelism.default' = '2';
SET 'pipeline.name' = 'tsan-http';
CREATE TABLE gen (k INT, seq BIGINT, ts AS TO_TIMESTAMP_LTZ(seq, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'datagen', 'rows-per-second' = '0',
        'fields.seq.kind' = 'sequence', 'fields.seq.start' = '1',
        'fields.seq.end' = '9000000000000000',
        'fields.k.min' = '1', 'fields.k.max' = '50');
CREATE TABLE out (k INT, n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts),
  INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end;
EOF
log="$LOGS/tsan_http.log"
# --foreground: a SIGTERM to timeout then reaches sluice once (without it
# timeout also signals its process group, and a second signal aborts the
# stop at once: exit 130 under TSan, which does not merge the two)
(cd "$W/http" && exec timeout --foreground 600 "$B/sluice" run --stats --http 127.0.0.1:0 job.sql) >"$log" 2>&1 &
jpid=$!
scrapes=0
rounds=0
while [ "$rounds" -lt 3 ] && kill -0 $jpid 2>/dev/null; do
	port=$(sed -n 's|^sluice: serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$log")
	if [ -n "$port" ]; then
		ok=0
		for path in metrics jobs/tsan-http pending; do
			curl -sf "http://127.0.0.1:$port/$path" >/dev/null 2>&1 && ok=$((ok + 1))
		done
		scrapes=$((scrapes + ok))
		[ "$ok" = 3 ] && rounds=$((rounds + 1))
	fi
	[ "$rounds" -lt 3 ] && sleep 0.05
done
ended=0
kill -0 $jpid 2>/dev/null || ended=1
kill -TERM $jpid 2>/dev/null
if wait $jpid; then rc=0; else rc=$?; fi
if [ "$ended" = 1 ]; then
	echo "(the unbounded job ended by itself after $scrapes scrapes)" >>"$log"
	[ "$rc" = 0 ] && rc=1
fi
check "http ($scrapes scrapes)" "$log" "$rc"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
