#!/bin/sh
# bench/metrics.sh - what the live metrics cost (docs/performance.md,
# "Metrics", docs/observability.md): make bench's job 1 (JSON orders from a
# file -> 1-minute TUMBLE SUM/COUNT by user -> blackhole) run side by side
#   base     BASE_SLUICE: a build without the metrics (the commit before them)
#   off      this build, nothing reading the metrics
#   on       this build with --http 127.0.0.1:0, /metrics scraped every
#            second, and the status line drawn on a pseudo-terminal (script)
# at parallelism 1 and 2, in turns (base, off, on, base, ...), REPEAT times
# each; prints per variant the smallest CPU time and wall time and the rows
# per CPU-second, and on against base in percent.
#
# Usage: sh bench/metrics.sh BUILD_DIR BASE_SLUICE
# Environment: BENCH_FILE_ROWS (4000000), BENCH_USERS (10000), REPEAT (5),
# BENCH_DATA (BUILD_DIR/bench-data).
set -eu
BUILD=${1:?BUILD_DIR}
BASE=${2:?BASE_SLUICE (a sluice binary built without the metrics)}
ROWS=${BENCH_FILE_ROWS:-4000000}
USERS=${BENCH_USERS:-10000}
REPEAT=${REPEAT:-5}
DATA=${BENCH_DATA:-$BUILD/bench-data}
SLUICE=$(cd "$(dirname "$BUILD/sluice")" && pwd)/sluice
TOOLS=$BUILD/bench
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sluice-mbench.XXXXXX")
SCRAPER=""
trap '[ -n "$SCRAPER" ] && kill $SCRAPER 2>/dev/null; rm -rf "$WORK"' EXIT INT TERM

mkdir -p "$TOOLS" "$DATA"
for t in gen_orders rusage; do
	if [ ! -x "$TOOLS/$t" ] || [ "bench/$t.c" -nt "$TOOLS/$t" ]; then
		${CC:-cc} -O2 -Wall -Wextra -o "$TOOLS/$t" "bench/$t.c"
	fi
done
ORDERS=$(cd "$DATA" && pwd)/orders-$ROWS-$USERS.json
if [ ! -f "$ORDERS" ]; then
	echo "generating $ROWS orders into $ORDERS (once) ..."
	"$TOOLS/gen_orders" "$ROWS" "$USERS" > "$ORDERS.tmp"
	mv "$ORDERS.tmp" "$ORDERS"
fi
RU=$(cd "$TOOLS" && pwd)/rusage

job() { # PARALLELISM
	cat <<SQL
SET 'parallelism.default' = '$1';
CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time - INTERVAL '2' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '$ORDERS', 'format' = 'json');
CREATE TABLE out_w (user_id STRING, window_start TIMESTAMP(3), total DECIMAL(38, 2), cnt BIGINT)
  WITH ('connector' = 'blackhole');
INSERT INTO out_w SELECT user_id, window_start, SUM(amount), COUNT(*)
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(event_time), INTERVAL '1' MINUTE))
  GROUP BY user_id, window_start, window_end;
SQL
}

now_ms() { date +%s%3N; }

# run VARIANT PAR: one run; appends "cpu wall" to $WORK/VARIANT-PAR
run() {
	v=$1 p=$2
	t0=$(now_ms)
	case $v in
	base) "$RU" "$WORK/ru" "$BASE" run "$WORK/job$p.sql" > "$WORK/log" 2>&1 ;;
	off) "$RU" "$WORK/ru" "$SLUICE" run "$WORK/job$p.sql" > "$WORK/log" 2>&1 ;;
	on)
		# the status line needs a terminal: script(1) gives the job one
		port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
		t0=$(now_ms) # not counting python's start
		script -qfec "stty rows 30 cols 160; '$RU' '$WORK/ru' '$SLUICE' run '$WORK/job$p.sql' \
			--http 127.0.0.1:$port > /dev/null" /dev/null > "$WORK/log" 2>&1 &
		spid=$!
		( while :; do curl -sf "http://127.0.0.1:$port/metrics" > /dev/null || true; sleep 1; done ) &
		SCRAPER=$!
		wait $spid
		t1=$(now_ms) # before the scraper's sleep ends
		kill $SCRAPER 2>/dev/null || true
		wait $SCRAPER 2>/dev/null || true
		SCRAPER=""
		;;
	esac
	[ "$v" = on ] || t1=$(now_ms)
	read -r u s rss < "$WORK/ru"
	awk -v u="$u" -v s="$s" -v w="$((t1 - t0))" 'BEGIN { printf "%.3f %.3f\n", u + s, w / 1000 }' \
		>> "$WORK/$v-$p"
}

for p in 1 2; do
	job $p > "$WORK/job$p.sql"
	i=0
	while [ $i -lt "$REPEAT" ]; do
		i=$((i + 1))
		for v in base off on; do
			run $v $p
		done
	done
	for v in base off on; do
		sort -n "$WORK/$v-$p" | head -1 > "$WORK/$v-$p.cpu"
		sort -n -k2 "$WORK/$v-$p" | head -1 | awk '{print $2}' > "$WORK/$v-$p.wall"
	done
	bc=$(cut -d' ' -f1 "$WORK/base-$p.cpu")
	bw=$(cat "$WORK/base-$p.wall")
	for v in base off on; do
		c=$(cut -d' ' -f1 "$WORK/$v-$p.cpu")
		w=$(cat "$WORK/$v-$p.wall")
		awk -v v=$v -v p=$p -v c="$c" -v w="$w" -v r="$ROWS" -v bc="$bc" -v bw="$bw" 'BEGIN {
			printf "p=%d %-5s cpu %6.2f s  wall %6.2f s  %5.2f M rows/cpu-s  cpu %+5.1f%%  wall %+5.1f%% vs base\n",
			       p, v, c, w, r / c / 1e6, (c / bc - 1) * 100, (w / bw - 1) * 100 }'
	done
done
