#!/bin/sh
# bench/run.sh - `make bench`: throughput and memory of sluice's window
# aggregation on this machine, each beside the floor of the same run.
#
# Usage: sh bench/run.sh BUILD_DIR      (called by `make bench` after `make`)
#
# A benchmark, never a timed test: it prints figures and compares them with
# the targets of the issue, but its exit status only reports failures to run.
#
#   1. file:    10 M orders as JSON lines (bench/gen_orders.c, generated once
#               into BUILD_DIR/bench-data/ and reused) -> json decode ->
#               1-minute TUMBLE SUM/COUNT by user -> blackhole.
#               floor: bench/floor_lines.c, read(2) 1 MiB blocks + memchr.
#   2. datagen: unthrottled datagen (seq -> TO_TIMESTAMP_LTZ(seq, 3), random
#               user 1..10000) -> the same window -> blackhole.
#               floor: the same datagen table straight into a blackhole.
#   3. keys:    1 M distinct keys open at once (datagen, random user in
#               1..1000000, 10 M rows over 2.8 h of event time, 1-day TUMBLE).
#   4. high cardinality: 4 M orders as JSON lines over 10 000 users with
#               10 ms of event time between rows (bench/gen_orders.c's
#               STEP_MS = 10: most user/window pairs hold one or two rows,
#               about 3/4 of the rows come out) -> the query of 1.
#   5. parallelism (issue 10): jobs 1 and 2 at 'parallelism.default' 1 and
#               2, wall time and CPU time each; targets: throughput in wall
#               time at 2 at least 1.8x that at 1, rows per CPU-second at 2
#               at least 90% of that at 1.  Also at 2 with slot sharing
#               ('sluice.slot-sharing' true, docs/parallel.md §1), for
#               comparison (no verdict).  Runs at 2 print the parallel
#               efficiency of their last run (--stats: time on a core /
#               (cores x wall)), which the machine's load changes less
#               than wall time; BENCH_CHRT (e.g. "chrt -r 10", as root)
#               runs each job under that command, so that other work on a
#               shared machine waits while it runs.
#
# Every run pins 'parallelism.default' (--set): jobs 1-4 run at 1, since
# their targets are per core and the default is the machine's CPU count.
#
# Figures: rows per CPU-second = rows / (user + sys) of the child, its
# peak RSS and its wall time, from wait4(2) and CLOCK_MONOTONIC
# (bench/rusage.c).  Wall times mean something only when the machine's
# other cores are idle: the load average is printed beside them.
#
# Environment (all optional): BENCH_FILE_ROWS (10000000), BENCH_USERS
# (10000), BENCH_DG_ROWS (50000000), BENCH_KEYS_ROWS (10000000),
# BENCH_KEYS (1000000), BENCH_HC_ROWS (4000000), BENCH_DATA
# (BUILD_DIR/bench-data), BENCH_REPEAT (3: each figure is the best of that
# many runs), BENCH_PAR (2: the parallelism job 5 compares with 1),
# BENCH_ONLY (unset: every job; "par": job 5 alone), BENCH_CHRT (unset:
# job 5's runs under that command prefix, e.g. "chrt -r 10").
set -eu

BUILD=${1:-build}
FILE_ROWS=${BENCH_FILE_ROWS:-10000000}
USERS=${BENCH_USERS:-10000}
DG_ROWS=${BENCH_DG_ROWS:-50000000}
KEYS_ROWS=${BENCH_KEYS_ROWS:-10000000}
KEYS=${BENCH_KEYS:-1000000}
HC_ROWS=${BENCH_HC_ROWS:-4000000}
DATA=${BENCH_DATA:-$BUILD/bench-data}
REPEAT=${BENCH_REPEAT:-3}
PAR=${BENCH_PAR:-2}
ONLY=${BENCH_ONLY:-}
SLUICE=$BUILD/sluice
TOOLS=$BUILD/bench
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sluice-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM

mkdir -p "$TOOLS" "$DATA"
for t in gen_orders floor_lines rusage; do
	if [ ! -x "$TOOLS/$t" ] || [ "bench/$t.c" -nt "$TOOLS/$t" ]; then
		${CC:-cc} -O2 -Wall -Wextra -o "$TOOLS/$t" "bench/$t.c"
	fi
done

ORDERS=$DATA/orders-$FILE_ROWS-$USERS.json
if [ ! -f "$ORDERS" ]; then
	echo "generating $FILE_ROWS orders into $ORDERS (once) ..."
	"$TOOLS/gen_orders" "$FILE_ROWS" "$USERS" > "$ORDERS.tmp"
	mv "$ORDERS.tmp" "$ORDERS"
fi
HC_ORDERS=$DATA/orders-$HC_ROWS-$USERS-10ms.json
if [ -z "$ONLY" ] && [ ! -f "$HC_ORDERS" ]; then
	echo "generating $HC_ROWS orders 10 ms apart into $HC_ORDERS (once) ..."
	"$TOOLS/gen_orders" "$HC_ROWS" "$USERS" 10 > "$HC_ORDERS.tmp"
	mv "$HC_ORDERS.tmp" "$HC_ORDERS"
fi

# measure NAME ROWS CMD...: runs CMD REPEAT times under rusage; sets CPU (s,
# the smallest), WALL (s, the smallest), RSS (KiB, the largest), RATE (rows
# per CPU-second of the smallest CPU time); the command's output goes to
# $WORK/NAME.log.  The minimum, because other processes on the machine only
# ever add CPU time (cache and memory-bus contention) and wall time.
measure() {
	name=$1 rows=$2
	shift 2
	CPU= WALL= RSS=0
	i=0
	while [ "$i" -lt "$REPEAT" ]; do
		i=$((i + 1))
		if ! "$TOOLS/rusage" "$WORK/$name.ru" "$@" > "$WORK/$name.log" 2>&1; then
			echo "bench $name failed:" >&2
			cat "$WORK/$name.log" >&2
			exit 1
		fi
		read -r u s rss w < "$WORK/$name.ru"
		c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
		w=$(awk -v w="$w" 'BEGIN { printf "%.3f", w }')
		CPU=$(awk -v a="$CPU" -v b="$c" 'BEGIN { print (a == "" || b + 0 < a + 0 ? b : a) }')
		WALL=$(awk -v a="$WALL" -v b="$w" 'BEGIN { print (a == "" || b + 0 < a + 0 ? b : a) }')
		RSS=$(awk -v a="$RSS" -v b="$rss" 'BEGIN { print (b + 0 > a + 0 ? b : a) }')
	done
	RATE=$(awk -v r="$rows" -v c="$CPU" 'BEGIN { printf "%.0f", (c > 0 ? r / c : 0) }')
}

mrows() { awk -v r="$1" 'BEGIN { printf "%.2f M", r / 1e6 }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f MB", k * 1024 / 1e6 }'; }
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v >= t ? "met" : "NOT met") }'; }

window_sql() { # SOURCE_TABLE TIME_COL KEY_TYPE SIZE
	cat <<SQL
CREATE TABLE out_w (user_id $3, window_start TIMESTAMP(3), total DECIMAL(38, 2), cnt BIGINT)
  WITH ('connector' = 'blackhole');
INSERT INTO out_w SELECT user_id, window_start, SUM(amount), COUNT(*)
  FROM TABLE(TUMBLE(TABLE $1, DESCRIPTOR($2), INTERVAL $4))
  GROUP BY user_id, window_start, window_end;
SQL
}

datagen_sql() { # ROWS MAX_USER
	cat <<SQL
CREATE TABLE gen (seq BIGINT, user_id BIGINT, amount DECIMAL(10, 2),
  ts AS TO_TIMESTAMP_LTZ(seq, 3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
  WITH ('connector' = 'datagen', 'rows-per-second' = '0', 'number-of-rows' = '$1',
        'fields.seq.kind' = 'sequence', 'fields.seq.start' = '1', 'fields.seq.end' = '$1',
        'fields.user_id.min' = '1', 'fields.user_id.max' = '$2',
        'fields.amount.min' = '0.01', 'fields.amount.max' = '500.00');
SQL
}

orders_sql() { # PATH: the JSON orders table of jobs 1 and 4
	cat <<SQL
CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time - INTERVAL '2' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '$1', 'format' = 'json');
SQL
}

if [ -z "$ONLY" ]; then
# ---- 1. file -> json -> tumble -> blackhole ---------------------------------
{ orders_sql "$ORDERS"; window_sql orders event_time STRING "'1' MINUTE"; } > "$WORK/file.sql"
measure floor_lines "$FILE_ROWS" "$TOOLS/floor_lines" "$ORDERS"
F1_RATE=$RATE F1_RSS=$RSS F1_CPU=$CPU
measure file "$FILE_ROWS" "$SLUICE" run --set parallelism.default=1 "$WORK/file.sql"
R1_RATE=$RATE R1_RSS=$RSS R1_CPU=$CPU
R1_OUT=$(sed -n 's/^sink out_w: \([0-9]*\) rows written.*/\1/p' "$WORK/file.log")

# ---- 2. datagen -> tumble -> blackhole ----------------------------------------
{ datagen_sql "$DG_ROWS" "$USERS"; window_sql gen ts BIGINT "'1' MINUTE"; } > "$WORK/dg.sql"
{
	datagen_sql "$DG_ROWS" "$USERS"
	cat <<SQL
CREATE TABLE out_f (seq BIGINT, user_id BIGINT, amount DECIMAL(10, 2), ts TIMESTAMP_LTZ(3))
  WITH ('connector' = 'blackhole');
INSERT INTO out_f SELECT seq, user_id, amount, ts FROM gen;
SQL
} > "$WORK/dg_floor.sql"
measure dg_floor "$DG_ROWS" "$SLUICE" run --set parallelism.default=1 "$WORK/dg_floor.sql"
F2_RATE=$RATE F2_RSS=$RSS F2_CPU=$CPU
measure dg "$DG_ROWS" "$SLUICE" run --set parallelism.default=1 "$WORK/dg.sql"
R2_RATE=$RATE R2_RSS=$RSS R2_CPU=$CPU
R2_OUT=$(sed -n 's/^sink out_w: \([0-9]*\) rows written.*/\1/p' "$WORK/dg.log")

# ---- 3. 1 M distinct keys open at once -------------------------------------------
{ datagen_sql "$KEYS_ROWS" "$KEYS"; window_sql gen ts BIGINT "'1' DAY"; } > "$WORK/keys.sql"
measure keys "$KEYS_ROWS" "$SLUICE" run --set parallelism.default=1 "$WORK/keys.sql"
R3_RATE=$RATE R3_RSS=$RSS R3_CPU=$CPU
R3_OUT=$(sed -n 's/^sink out_w: \([0-9]*\) rows written.*/\1/p' "$WORK/keys.log")

# ---- 4. high cardinality: 10 ms between rows, ~1.3 rows per user and window --
{ orders_sql "$HC_ORDERS"; window_sql orders event_time STRING "'1' MINUTE"; } > "$WORK/hc.sql"
measure hc "$HC_ROWS" "$SLUICE" run --set parallelism.default=1 "$WORK/hc.sql"
R4_RATE=$RATE R4_RSS=$RSS R4_CPU=$CPU
R4_OUT=$(sed -n 's/^sink out_w: \([0-9]*\) rows written.*/\1/p' "$WORK/hc.log")

fi

# ---- 5. parallelism 1 and PAR: jobs 1 and 2 ------------------------------------
# measure_par NAME ROWS SQL: sets W1 C1 W2 C2 (best wall and CPU seconds at
# parallelism 1 and PAR) and OUT1 OUT2 (rows written, which must agree);
# W3 C3: PAR with slot sharing ('sluice.slot-sharing' true,
# docs/parallel.md §1; a thread per task is the default), for comparison
measure_par() {
	for p in 1 "$PAR" "${PAR}t"; do
		ss=false
		[ "$p" = "${PAR}t" ] && ss=true
		# shellcheck disable=SC2086 # BENCH_CHRT is a command prefix
		measure "$1_p$p" "$2" ${BENCH_CHRT:-} "$SLUICE" run --stats \
			--set parallelism.default="${p%t}" --set sluice.slot-sharing=$ss "$3"
		e=$(sed -n 's/.*parallel efficiency \([0-9]*%\).*/\1/p' "$WORK/$1_p$p.log")
		o=$(sed -n 's/^sink out_w: \([0-9]*\) rows written.*/\1/p' "$WORK/$1_p$p.log")
		case $p in
		1) W1=$WALL C1=$CPU OUT1=$o ;;
		*t) W3=$WALL C3=$CPU OUT3=$o E3=$e ;;
		*) W2=$WALL C2=$CPU OUT2=$o E2=$e ;;
		esac
	done
	if [ "$OUT1" != "$OUT2" ] || [ "$OUT1" != "$OUT3" ]; then
		echo "bench $1: $OUT1 rows out at parallelism 1, $OUT2 at $PAR ($OUT3 with slot sharing)" >&2
		exit 1
	fi
}
par_line() { # LABEL ROWS P WALL CPU [EFFICIENCY]
	printf '%-34s %3s %10s %8s %8s %12s %12s %6s\n' "$1" "$3" "$(mrows "$2")" "$4" "$5" \
		"$(awk -v r="$2" -v w="$4" 'BEGIN { printf "%.2f M", r / w / 1e6 }')" \
		"$(awk -v r="$2" -v c="$5" 'BEGIN { printf "%.2f M", r / c / 1e6 }')" "${6:-}"
}
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
[ -f "$WORK/file.sql" ] || { orders_sql "$ORDERS"; window_sql orders event_time STRING "'1' MINUTE"; } > "$WORK/file.sql"
[ -f "$WORK/dg.sql" ] || { datagen_sql "$DG_ROWS" "$USERS"; window_sql gen ts BIGINT "'1' MINUTE"; } > "$WORK/dg.sql"
measure_par pfile "$FILE_ROWS" "$WORK/file.sql"
PF_W1=$W1 PF_C1=$C1 PF_W2=$W2 PF_C2=$C2 PF_W3=$W3 PF_C3=$C3 PF_OUT=$OUT1 PF_E2=$E2 PF_E3=$E3
measure_par pdg "$DG_ROWS" "$WORK/dg.sql"
PD_W1=$W1 PD_C1=$C1 PD_W2=$W2 PD_C2=$C2 PD_W3=$W3 PD_C3=$C3 PD_OUT=$OUT1 PD_E2=$E2 PD_E3=$E3
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- report ------------------------------------------------------------------------
echo
echo "sluice bench  $(date -u '+%Y-%m-%d %H:%M UTC')  $(uname -m), $(nproc) cores"
echo "  (rows per CPU-second = rows / (user + sys), best of $REPEAT runs; RSS = peak resident set)"
if [ -z "$ONLY" ]; then
echo
printf '%-34s %12s %8s %14s %10s\n' "run" "rows" "cpu s" "rows/cpu-s" "peak RSS"
printf '%-34s %12s %8s %14s %10s\n' "1. file json tumble 1 min" "$(mrows "$FILE_ROWS")" \
	"$R1_CPU" "$(mrows "$R1_RATE")" "$(mib "$R1_RSS")"
printf '%-34s %12s %8s %14s %10s\n' "   floor: read 1 MiB + memchr" "$(mrows "$FILE_ROWS")" \
	"$F1_CPU" "$(mrows "$F1_RATE")" "$(mib "$F1_RSS")"
printf '%-34s %12s %8s %14s %10s\n' "2. datagen tumble 1 min" "$(mrows "$DG_ROWS")" \
	"$R2_CPU" "$(mrows "$R2_RATE")" "$(mib "$R2_RSS")"
printf '%-34s %12s %8s %14s %10s\n' "   floor: datagen -> blackhole" "$(mrows "$DG_ROWS")" \
	"$F2_CPU" "$(mrows "$F2_RATE")" "$(mib "$F2_RSS")"
printf '%-34s %12s %8s %14s %10s\n' "3. $R3_OUT keys open, tumble 1 day" \
	"$(mrows "$KEYS_ROWS")" "$R3_CPU" "$(mrows "$R3_RATE")" "$(mib "$R3_RSS")"
printf '%-34s %12s %8s %14s %10s\n' "4. high-card json tumble 1 min" "$(mrows "$HC_ROWS")" \
	"$R4_CPU" "$(mrows "$R4_RATE")" "$(mib "$R4_RSS")"
echo
echo "window rows out: file $R1_OUT, datagen $R2_OUT, keys $R3_OUT, high-card $R4_OUT"
echo "target 1 (>= 4 M rows/cpu-s):      $(verdict "$R1_RATE" 4000000)"
echo "target 2 (>= 15 M rows/cpu-s):     $(verdict "$R2_RATE" 15000000)"
echo "target 3 (1 M keys in < 100 MB):   $(awk -v k="$R3_RSS" 'BEGIN { print (k * 1024 < 100e6 ? "met" : "NOT met") }')"
echo "target 4 (>= 6 M rows/cpu-s):      $(verdict "$R4_RATE" 6000000)"
fi

echo
echo "5. parallelism 1 and $PAR (load average $LOAD0 before, $LOAD1 after; best of $REPEAT, wall and CPU each)"
printf '%-34s %3s %10s %8s %8s %12s %12s %6s\n' "run" "p" "rows" "wall s" "cpu s" "rows/wall-s" "rows/cpu-s" "eff"
par_line "   file json tumble 1 min" "$FILE_ROWS" 1 "$PF_W1" "$PF_C1"
par_line "" "$FILE_ROWS" "$PAR" "$PF_W2" "$PF_C2" "$PF_E2"
par_line "     (slot sharing)" "$FILE_ROWS" "$PAR" "$PF_W3" "$PF_C3" "$PF_E3"
par_line "   datagen tumble 1 min" "$DG_ROWS" 1 "$PD_W1" "$PD_C1"
par_line "" "$DG_ROWS" "$PAR" "$PD_W2" "$PD_C2" "$PD_E2"
par_line "     (slot sharing)" "$DG_ROWS" "$PAR" "$PD_W3" "$PD_C3" "$PD_E3"
echo "window rows out: file $PF_OUT, datagen $PD_OUT (the same at 1 and $PAR)"
# ratio NAME W1 W2 C1 C2: wall-throughput gain and rows/cpu-s ratio at PAR
ratio() {
	awk -v n="$1" -v w1="$2" -v w2="$3" -v c1="$4" -v c2="$5" 'BEGIN {
		g = w1 / w2; e = c1 / c2
		printf "target %s: wall throughput x%.2f (>= 1.8: %s), rows/cpu-s %.0f%% of p=1 (>= 90%%: %s)\n",
			n, g, (g >= 1.8 ? "met" : "NOT met"), e * 100, (e >= 0.9 ? "met" : "NOT met") }'
}
ratio "5 file   " "$PF_W1" "$PF_W2" "$PF_C1" "$PF_C2"
ratio "5 datagen" "$PD_W1" "$PD_W2" "$PD_C1" "$PD_C2"
