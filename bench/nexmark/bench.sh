#!/bin/sh
# bench/nexmark/bench.sh - `make bench-nexmark`: every query of Flink's
# Nexmark suite (bench/nexmark/queries, through run_query.sh: Flink's DDL,
# views and query files unchanged but for ADD JAR of q14's function) over a
# fixed number of events into its blackhole sink, at parallelism 1 and 2,
# and the same-run floor (the generator alone into blackhole); writes the
# table between the bench-nexmark markers of docs/nexmark.md; then
# bench/nexmark/flink_side.sh runs the same queries in Apache Flink 1.20 and
# sluice over the same events (its own table, between the
# bench-nexmark-flink markers).
#
# Usage: sh bench/nexmark/bench.sh BUILD_DIR [QUERIES]
#   NEXMARK_BENCH_SCALE (1) multiplies every query's event count (0.1 for a
#   quick look; the table then says so), NEXMARK_BENCH_DOC (docs/nexmark.md)
#   is the file written ("-" prints the table only).
#
# Figures: events / (user + sys) of the whole `sluice run` process
# (bench/rusage.c: planning, generation and the query, as Flink's published
# figures include generation), wall-clock events per second, peak RSS.  The
# machine is shared: CPU-seconds are meaningful, wall clock is not.
# Published per-core figures are those of ../shared/notes/nexmark.md §0
# (Flink 2.0: nexmark V2; RisingWave: its 2023 report over Kafka + JSON,
# generation excluded; Feldera: 16 workers, generation excluded).
set -eu
BUILD=${1:?usage: bench.sh BUILD_DIR [QUERIES]}
shift
QUERIES=${*:-q0 q1 q2 q3 q4 q5 q6_sluice q7 q8 q9 q10 q11 q12 q13 q14 q15 q16 q17 q18 q19 q20 q21 q22}
cd "$(dirname "$0")/../.."
SCALE=${NEXMARK_BENCH_SCALE:-1}
DOC=${NEXMARK_BENCH_DOC:-docs/nexmark.md}
RU=$BUILD/bench/rusage
if [ ! -x "$RU" ] || [ bench/rusage.c -nt "$RU" ]; then
	mkdir -p "$BUILD/bench"
	${CC:-cc} -O2 -Wall -Wextra -o "$RU" bench/rusage.c
fi
W=$(mktemp -d /tmp/sluice-nexmark-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT

# events per query: about 5 CPU-seconds each at the first pass's speed
# (docs/nexmark.md §7), so every run is long enough to measure
events_of() {
	case $1 in
	floor) n=40000000 ;;
	q0|q1|q2) n=40000000 ;;
	q3) n=10000000 ;;
	q4|q6_sluice|q9|q20) n=1000000 ;;
	q5) n=5000000 ;;
	q7) n=2000000 ;;
	q8) n=25000000 ;;
	q10) n=3000000 ;;
	q11) n=15000000 ;;
	q12) n=30000000 ;;
	q13) n=10000000 ;;
	q14|q22) n=20000000 ;;
	q15|q17) n=6000000 ;;
	q16) n=1500000 ;;
	q18) n=8000000 ;;
	q19) n=5000000 ;;
	q21) n=7000000 ;;
	*) n=1000000 ;;
	esac
	awk -v n=$n -v s="$SCALE" 'BEGIN { printf "%d\n", n * s }'
}

# published per-core K events/s: Flink 2.0 (V2), RisingWave (2023 report), Feldera
published() {
	case $1 in
	q0) echo "378 170 436" ;; q1) echo "396 168 412" ;; q2) echo "414 172 422" ;;
	q3) echo "219 136 413" ;; q4) echo "28.2 25.0 265" ;; q5) echo "74.5 11.3 412" ;;
	q7) echo "22.9 37.5 196" ;; q8) echo "162 84.3 415" ;; q9) echo "13.8 21.2 57" ;;
	q10) echo "133 150 -" ;; q11) echo "46.1 - -" ;; q12) echo "194 92 418" ;;
	q13) echo "188 117 230" ;; q14) echo "259 154 429" ;; q15) echo "168 130 221" ;;
	q16) echo "45.2 12 51" ;; q17) echo "161 43 242" ;; q18) echo "65.4 26 85" ;;
	q19) echo "42.7 17 75" ;; q20) echo "17.8 18 85" ;; q21) echo "147 117 415" ;;
	q22) echo "211 150 394" ;; *) echo "- - -" ;;
	esac
}

# run NAME P EVENTS JOB: one measured run; prints "evcpu evwall rss_mb"
run() {
	name=$1 p=$2 n=$3 job=$4
	t0=$(date +%s.%N)
	if ! "$RU" "$W/$name.p$p.ru" "$BUILD/sluice" run "$job" --set parallelism.default=$p \
		> "$W/$name.p$p.log" 2>&1; then
		echo "bench-nexmark: $name at parallelism $p failed:" >&2
		tail -5 "$W/$name.p$p.log" >&2
		echo "- - -"
		return
	fi
	t1=$(date +%s.%N)
	read -r user sys rss _wall < "$W/$name.p$p.ru"
	awk -v n="$n" -v u="$user" -v s="$sys" -v r="$rss" -v t0="$t0" -v t1="$t1" \
		'BEGIN { printf "%.3f %.3f %d\n", n / (u + s) / 1e6, n / (t1 - t0) / 1e6, r / 1024 }'
}

# the floor: Flink's DDL into a blackhole sink of the wide table and dateTime
n=$(events_of floor)
NEXMARK_WORK=$W NEXMARK_JOB=$W/floor.sql NEXMARK_EVENTS=$n sh bench/nexmark/run_query.sh "$BUILD" q0
sed -i '/^CREATE TABLE nexmark_q0/,$d' "$W/floor.sql"
cat >> "$W/floor.sql" <<'SQL'
CREATE TABLE floor_sink (
    event_type INT,
    person ROW<id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR,
               city VARCHAR, state VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR>,
    auction ROW<id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT,
                reserve BIGINT, `dateTime` TIMESTAMP(3), expires TIMESTAMP(3),
                seller BIGINT, category BIGINT, extra VARCHAR>,
    bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
            `dateTime` TIMESTAMP(3), extra VARCHAR>,
    `dateTime` TIMESTAMP(3)
) WITH ('connector' = 'blackhole');
INSERT INTO floor_sink SELECT * FROM datagen;
SQL
f1=$(run floor 1 "$n" "$W/floor.sql")
f2=$(run floor 2 "$n" "$W/floor.sql")
echo "floor: $n events: p=1 $f1, p=2 $f2 (M ev/CPU-s, M ev/s wall, MB)" >&2

TABLE=$W/table.md
{
	echo "| q | events | M ev/CPU-s p=1 | M ev/CPU-s p=2 | wall M ev/s p=1 | wall M ev/s p=2 | peak RSS MB p=1 / p=2 | Flink 2.0 K/core | x Flink 2.0 | RisingWave K/core | x RW | Feldera K/core | x Feldera |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	set -- $f1; a1=$1 w1=$2 r1=$3
	set -- $f2; a2=$1 w2=$2 r2=$3
	echo "| floor (generator into blackhole) | $(echo "$n" | awk '{ printf "%g M", $1 / 1e6 }') | $a1 | $a2 | $w1 | $w2 | $r1 / $r2 | | | | | | |"
} > "$TABLE"

for q in $QUERIES; do
	n=$(events_of "$q")
	NEXMARK_WORK=$W/$q NEXMARK_JOB=$W/$q.sql NEXMARK_EVENTS=$n sh bench/nexmark/run_query.sh "$BUILD" "$q"
	r1=$(run "$q" 1 "$n" "$W/$q.sql")
	# q10's success-file partition commit is refused at parallelism > 1
	if [ "$q" = q10 ]; then r2="- - -"; else r2=$(run "$q" 2 "$n" "$W/$q.sql"); fi
	rm -rf "$W/$q"
	echo "$q: $n events: p=1 $r1, p=2 $r2" >&2
	set -- $r1; a1=$1 w1=$2 m1=$3
	set -- $r2; a2=$1 w2=$2 m2=$3
	set -- $(published "$q"); fl=$1 rw=$2 fe=$3
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.0f\n", a * 1000 / b }'; }
	echo "| $q | $(echo "$n" | awk '{ printf "%g M", $1 / 1e6 }') | $a1 | $a2 | $w1 | $w2 | $m1 / $m2 | $fl | $(ratio "$a1" "$fl") | $rw | $(ratio "$a1" "$rw") | $fe | $(ratio "$a1" "$fe") |" >> "$TABLE"
done

{
	echo "<!-- bench-nexmark:begin (written by make bench-nexmark; do not edit) -->"
	echo
	echo "Run of $(date -u "+%Y-%m-%d %H:%M UTC") on $(nproc) CPUs ($(uname -m)), commit"
	echo "$(git rev-parse --short HEAD 2>/dev/null || echo '?'), scale $SCALE, 'first-event.rate' 10 M (Flink's V1 suite);"
	echo "ratios are sluice's p=1 events per CPU-second over the published per-core figure."
	echo
	cat "$TABLE"
	echo
	echo "<!-- bench-nexmark:end -->"
} > "$W/section.md"
if [ "$DOC" = - ]; then
	cat "$W/section.md"
else
	awk -v sec="$W/section.md" '
		/<!-- bench-nexmark:begin/ { while ((getline l < sec) > 0) print l; skip = 1; next }
		/<!-- bench-nexmark:end/ { skip = 0; next }
		!skip { print }' "$DOC" > "$W/doc.md"
	cp "$W/doc.md" "$DOC"
	echo "bench-nexmark: wrote the table to $DOC" >&2
fi

# Flink 1.20 beside sluice over the same events (bench/nexmark/flink_side.sh;
# skipped, with a note, without java and mvn)
rc=0
sh bench/nexmark/flink_side.sh "$BUILD" $QUERIES || rc=$?
[ $rc = 77 ] && echo "bench-nexmark: Flink side by side skipped (no java or mvn)" >&2
[ $rc = 0 ] || [ $rc = 77 ]
