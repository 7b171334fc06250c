#!/bin/bash
# parquet_crash.sh - exactly-once through Parquet on both sides: a job
# reading a directory of Parquet files (the source's position is a row
# count per file, restored with file_skip) and writing Parquet part files
# (closed whole at every checkpoint, staged and published by the file
# sink's two-phase commit), checkpointing every 100-300 ms, killed with
# SIGKILL KILLS times at random moments and restarted until it finishes.
# Its committed files, read by DuckDB (npm, tests/parquet/peers.sh), equal
# an uninterrupted run's as a multiset; every published file is a whole
# Parquet file; no hidden file stays; a restart of the finished job writes
# nothing.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
SLUICE="$B/sluice"
ROWS=${ROWS:-1000000}
KILLS=${KILLS:-4}
command -v node >/dev/null 2>&1 || { echo "skip: node not found"; exit 77; }
PEERS=$(sh "$ROOT/tests/parquet/peers.sh") || { echo "FAIL: cannot install the peers"; exit 1; }
export PEERS
PEER="node $ROOT/tests/parquet/peer.mjs"
W=$(mktemp -d /tmp/sluice-pqcrash.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
export LC_ALL=C
mkdir -p "$W/ref" "$W/run"
"$B/tools/gen_events" "$ROWS" 1000 7 > "$W/orders.jsonl"
COLS="id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3)"

# the input: the orders as three Parquet files (rows in event-time order, so
# the first file's watermark moves the job's while it is read)
cat > "$W/in.sql" <<SQL
CREATE TABLE j ($COLS) WITH ('connector' = 'filesystem', 'path' = '$W/orders.jsonl', 'format' = 'json');
CREATE TABLE p ($COLS) WITH ('connector' = 'filesystem', 'path' = '$W/in', 'format' = 'parquet',
  'sink.rolling-policy.file-size' = '8mb', 'parquet.block.size' = '256kb');
INSERT INTO p SELECT * FROM j;
SQL
"$SLUICE" run "$W/in.sql" > "$W/in.log" 2>&1 || { echo "FAIL: writing the input"; cat "$W/in.log"; exit 1; }

job() { # interval
	cat <<SQL
SET 'execution.checkpointing.interval' = '$1';
SET 'pipeline.name' = 'pqcrash';
CREATE TABLE p ($COLS, WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '$W/in', 'format' = 'parquet');
CREATE TABLE o (id STRING, user_id STRING, amount DECIMAL(10, 2), hour_start TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'parquet',
  'parquet.compression' = 'zstd', 'parquet.block.size' = '64kb');
INSERT INTO o SELECT id, user_id, amount, TUMBLE_START(event_time, INTERVAL '1' MINUTE)
  FROM p GROUP BY id, user_id, amount, TUMBLE(event_time, INTERVAL '1' MINUTE);
SQL
}
committed() { # dir: the multiset of committed rows as count and sum of row hashes
	$PEER sql "SELECT count(*) n, sum(hash(id, user_id, amount, hour_start))::VARCHAR h,
	  count(DISTINCT id) ids FROM read_parquet('$1/out/part-*.parquet')"
}

fail=0
job "200 ms" > "$W/ref/job.sql"
t0=$(date +%s%N)
(cd "$W/ref" && "$SLUICE" run job.sql) > "$W/ref/log" 2>&1 || { echo "reference run failed"; cat "$W/ref/log"; exit 1; }
ref_ms=$((($(date +%s%N) - t0) / 1000000))
committed "$W/ref" > "$W/ref.rows"
# (the 1-minute windows drop the late rows of gen_events: about 15 in 400 000)
n=$(sed -n 's/.*"n":"\{0,1\}\([0-9]*\).*/\1/p' "$W/ref.rows")
[ "${n:-0}" -gt $((ROWS * 99 / 100)) ] || { echo "FAIL: reference wrote ${n:-no} rows"; fail=1; }

kills=0
attempts=0
while :; do
	attempts=$((attempts + 1))
	if [ $attempts -gt $((KILLS * 5 + 20)) ]; then echo "no progress after $attempts attempts"; exit 1; fi
	job "$((100 + RANDOM % 201)) ms" > "$W/run/job.sql"
	(cd "$W/run" && exec "$SLUICE" run job.sql) >> "$W/run/log" 2>&1 &
	pid=$!
	if [ $kills -lt "$KILLS" ]; then
		# at 20-80% of the uninterrupted run's wall time; the first kill
		# only once a checkpoint is complete (its _manifest), so that some
		# run resumes one: at the default parallelism (2 here) the first
		# checkpoint of this state (10-30 MB) can complete after 80%, and
		# in one run none of the four kills came after one
		ms=$((ref_ms / 5 + RANDOM % (ref_ms * 3 / 5 + 1)))
		if [ $kills = 0 ]; then
			i=0
			while [ $i -lt 200 ] && ! ls "$W"/run/sluice-state/pqcrash/checkpoints/chk-*/_manifest \
				> /dev/null 2>&1; do
				sleep 0.02; i=$((i + 1))
			done
			ms=$((RANDOM % 50))
		fi
		sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
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
committed "$W/run" > "$W/run.rows"
if ! cmp -s "$W/ref.rows" "$W/run.rows"; then
	echo "FAIL: committed output differs from the uninterrupted run: $(cat "$W/ref.rows") vs $(cat "$W/run.rows")"
	fail=1
fi
hidden=$(find "$W/run/out" -name '.*' | wc -l)
[ "$hidden" = 0 ] || { echo "FAIL: $hidden hidden files left"; find "$W/run/out" -name '.*' | head; fail=1; }
nfiles=$(ls "$W/run/out" | wc -l)
(cd "$W/run" && "$SLUICE" run job.sql) > "$W/run/log2" 2>&1 || { echo "FAIL: restart of the finished job"; fail=1; }
committed "$W/run" | cmp -s - "$W/run.rows" || { echo "FAIL: the finished job wrote rows on restart"; fail=1; }
resumed=$(grep -c "resuming from checkpoint" "$W/run/log")
[ "$resumed" -ge 1 ] || { echo "FAIL: no run resumed from a checkpoint"; fail=1; }
echo "parquet_crash: $ROWS rows (reference run $ref_ms ms), $resumed resumed from $(grep -o 'chk-[0-9]*' "$W/run/log" | sort -u | tr '\n' ' ')- $(ls "$W/in" | wc -l) Parquet files into $nfiles, $kills kills, $attempts runs: $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
