#!/bin/sh
# ckpt.sh - checkpoint figures for `make bench` (the exactly-once issue):
#   1. bench job (1) (file -> JSON -> 1-minute TUMBLE -> blackhole) with a
#      checkpoint every second vs none: rows per CPU-second (the forked
#      writers' CPU is included: wait4 counts reaped grandchildren);
#   2. about 1 GB of state (a GROUP BY over CKPT_KEYS keys) on each state
#      backend, hashmap and rocksdb: each checkpoint's duration, size and
#      the time processing was blocked, then the restore time after a crash
#      right after a checkpoint.
#
#   sh bench/ckpt.sh BUILD    (env: CKPT_KEYS, default 12000000; BENCH_DATA,
#   default BUILD/bench-data, where bench/run.sh left the 10 M orders;
#   CKPT_PAR, default "1 2": the parallelisms to run the state jobs at; at
#   2 each checkpoint also says how long the instances waited for the
#   barrier to cross the job, `aligned`, docs/parallel.md §5)
set -u
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
KEYS=${CKPT_KEYS:-12000000}
DATA="${BENCH_DATA:-$B/bench-data}/orders-10000000-10000.json"
case "$DATA" in /*) ;; *) DATA="$ROOT/$DATA" ;; esac
W=$(mktemp -d /tmp/sluice-ckbench.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"

if [ -f "$DATA" ]; then
	for mode in none 1s; do
		{
			[ $mode = 1s ] && echo "SET 'execution.checkpointing.interval' = '1 s';"
			cat <<SQL
SET 'pipeline.name' = 'ckbench';
CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time - INTERVAL '2' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '$DATA', 'format' = 'json');
CREATE TABLE o (user_id STRING, ws TIMESTAMP(3), s DECIMAL(38, 2), c BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT user_id, window_start, SUM(amount), COUNT(*)
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(event_time), INTERVAL '1' MINUTE))
  GROUP BY user_id, window_start, window_end;
SQL
		} > job.sql
		rm -rf sluice-state
		"$B/bench/rusage" ru.$mode "$B/sluice" run job.sql --stats > /dev/null 2> log.$mode
		read u s rss < ru.$mode
		echo "$mode" "$(echo "$u $s" | awk '{printf "%.2f", 10000000 / ($1 + $2) / 1e6}')" >> tput
		[ $mode = 1s ] && echo "  checkpoints taken: $(grep -c "^checkpoint" log.1s)"
	done
	awk '{v[$1]=$2} END {printf "file job: %s M rows/cpu-s without checkpoints, %s M with one per second: %.0f%% (target >= 90%%)\n", v["none"], v["1s"], 100 * v["1s"] / v["none"]}' tput
else
	echo "file job: skipped ($DATA missing: run bench/run.sh first)"
fi

# big BACKEND MULT: a GROUP BY over keys drawn at random from KEYS, MULT x
# KEYS rows: the state reaches most of its size early and every checkpoint
# after that finds it rewritten all over (the worst case for copy-on-write).
# MULT = seq: each key once, in order (RocksDB: random reads of 1 GB through
# its block cache ran at ~16 K rows/s, 25 min for 2 x 12 M rows).
# Prints each checkpoint, the blocked time once the state is >= 900 MB, and
# the restore time after a crash right after the last periodic checkpoint.
big() {
	par=${4:-1}
	if [ "$2" = seq ]; then
		keys="'number-of-rows' = '$KEYS', 'fields.k.kind' = 'sequence', 'fields.k.start' = '1', 'fields.k.end' = '$KEYS'"
		rows=$KEYS
	else
		keys="'number-of-rows' = '$(($2 * KEYS))', 'fields.k.min' = '1', 'fields.k.max' = '$KEYS'"
		rows=$(($2 * KEYS))
	fi
	{ echo "SET 'parallelism.default' = '$par';"; cat <<SQL
SET 'execution.checkpointing.interval' = '4 s';
SET 'state.backend.type' = '$1';
SET 'pipeline.name' = 'ck$1';
CREATE TABLE t (k BIGINT, v BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '0',
  $keys, 'fields.v.min' = '1', 'fields.v.max' = '100');
CREATE TABLE o (k BIGINT, s BIGINT, c BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT k, SUM(v), COUNT(*) FROM t GROUP BY k;
SQL
	} > big.sql
	rm -rf sluice-state
	"$B/bench/rusage" ru.big "$B/sluice" run big.sql --stats > /dev/null 2> log.big
	read u s rss < ru.big
	echo "state job, $1, parallelism $par: $rows rows over $KEYS keys, peak RSS $((rss / 1024)) MB; checkpoints:"
	grep 'checkpoint [0-9]' log.big | sed 's/^/  /'
	grep '^checkpoint' log.big | awk -v be="$1" -v t="$3" -v p="$par" '{gsub(",", "", $5); b = $8;
	  if ($5 >= 900e6) { n++; s += b; if (b > m) m = b } }
	  END { if (n) printf "%s, parallelism %d: blocked at >= 900 MB of state: %d checkpoints, mean %.2f ms, max %.2f ms (target <= %s ms)\n", be, p, n, s / n, m, t }'
	# the crash: at the second-to-last periodic checkpoint of the run above
	# (the last may not come in a run as long as this one)
	n=$(($(grep -c '^checkpoint' log.big) - 1))
	[ "$n" -ge 1 ] || n=1
	rm -rf sluice-state
	if SLUICE_FAULT="after-manifest-rename@$n" "$B/sluice" run big.sql > /dev/null 2>&1; then
		echo "$1: restore not measured (the job ended before checkpoint $n)"
	else
		"$B/sluice" run big.sql --stats > /dev/null 2> log.restore
		echo "$1: restore after a crash at checkpoint $n: $(grep '^restored' log.restore | sed 's/.*in //') (target < 10 s)"
	fi
}
for par in ${CKPT_PAR:-1 2}; do
	big hashmap 3 10 "$par"
	big rocksdb seq 50 "$par"
done
