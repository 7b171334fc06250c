#!/bin/sh
# ckpt.sh - checkpoint figures for `make bench` (the exactly-once issue):
#   1. bench job (1) (file -> JSON -> 1-minute TUMBLE -> blackhole) with a
#      checkpoint every second vs none: rows per CPU-second (the forked
#      writers' CPU is included: wait4 counts reaped grandchildren);
#   2. about 1 GB of state (a GROUP BY over CKPT_KEYS distinct keys): the
#      checkpoint duration, size and time processing was blocked, then the
#      restore time after a crash right after a checkpoint.
#
#   sh bench/ckpt.sh BUILD    (env: CKPT_KEYS, default 12000000)
set -u
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
KEYS=${CKPT_KEYS:-12000000}
DATA="$B/bench-data/orders-10000000-10000.json"
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
		[ $mode = 1s ] && echo "  checkpoints taken: $(grep -c '^checkpoint' log.1s)"
	done
	awk '{v[$1]=$2} END {printf "file job: %s M rows/cpu-s without checkpoints, %s M with one per second: %.0f%% (target >= 90%%)\n", v["none"], v["1s"], 100 * v["1s"] / v["none"]}' tput
else
	echo "file job: skipped ($DATA missing: run bench/run.sh first)"
fi

cat > big.sql <<SQL
SET 'execution.checkpointing.interval' = '4 s';
SET 'pipeline.name' = 'ckbig';
CREATE TABLE t (k BIGINT, v BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '0',
  'number-of-rows' = '$KEYS', 'fields.k.kind' = 'sequence', 'fields.k.start' = '1',
  'fields.k.end' = '$KEYS', 'fields.v.min' = '1', 'fields.v.max' = '100');
CREATE TABLE o (k BIGINT, s BIGINT, c BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT k, SUM(v), COUNT(*) FROM t GROUP BY k;
SQL
rm -rf sluice-state
"$B/bench/rusage" ru.big "$B/sluice" run big.sql --stats > /dev/null 2> log.big
read u s rss < ru.big
echo "state job: $KEYS keys, peak RSS $((rss / 1024)) MB; checkpoints:"
grep '^checkpoint' log.big | sed 's/^/  /'
# restore time: crash right after the last periodic checkpoint, restart
n=$(grep -c '^checkpoint' log.big)
n=$((n - 1))
if [ $n -ge 1 ]; then
	rm -rf sluice-state
	SLUICE_FAULT="after-manifest-rename@$n" "$B/sluice" run big.sql > /dev/null 2>&1
	"$B/sluice" run big.sql --stats > /dev/null 2> log.restore
	echo "restore: $(grep '^restored' log.restore | sed 's/.*in //')"
fi
