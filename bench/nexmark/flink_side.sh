#!/bin/sh
# bench/nexmark/flink_side.sh - the Flink side of `make bench-nexmark`
# (docs/nexmark.md §9): Apache Flink 1.20 and sluice run the same Nexmark
# queries over the same events, at parallelism 1 and 2, and the table of
# their events per CPU-second is written between the bench-nexmark-flink
# markers of docs/nexmark.md.
#
# Usage: sh bench/nexmark/flink_side.sh BUILD_DIR [QUERIES]
#   NEXMARK_BENCH_FLINK_EVENTS (300000) events, multiplied by
#   NEXMARK_BENCH_SCALE (1); NEXMARK_BENCH_DOC (docs/nexmark.md) the file
#   written ("-" prints the table only); NEXMARK_BENCH_FLINK_DIR=dir keeps
#   Flink's figures there and, when it holds those of a run over the same
#   number of events, takes them instead of running Flink again (to
#   re-measure sluice alone; the table's date is then the sluice run's).
#   Exits 77 (nothing written) without java and mvn (scripts/flink-setup.sh).
#
# The events: sluice's generator (bench/nexmark's DDL, 'first-event.rate'
# 10 M as the rest of the benchmark) dumps them once as JSON lines of the
# wide table (tests/nexmark/dump_job.sh); both engines read that file
# through a filesystem source with Flink's wide-table DDL (computed dateTime,
# 4-second watermark), bench/nexmark/ddl_views.sql and the query file
# unchanged (its blackhole sink; q14 with Flink's CountChar class or
# sluice's ADD JAR library).  So both pay for reading JSON, not for the
# generator.
#
# Flink (tests/flink's FlinkBench, one JVM per parallelism, the queries one
# after the other in it, each in its own TableEnvironment and MiniCluster):
# every query runs twice, over an empty file and over the events; its events
# per CPU-second are events / (CPU(events) - CPU(empty)), the process's user
# + sys seconds of all its threads (JIT and GC included) spent on the
# events, so planning, the MiniCluster's start and stop and the JVM's start
# are excluded; the empty run's CPU-seconds (that fixed cost) are shown
# beside it.  sluice: events / (user + sys) of the whole `sluice run`
# process (bench/rusage.c), planning included (a few milliseconds).
set -eu
BUILD=${1:?usage: flink_side.sh BUILD_DIR [QUERIES]}
shift
QUERIES=${*:-q0 q1 q2 q3 q4 q5 q7 q8 q9 q10 q11 q12 q13 q14 q15 q16 q17 q18 q19 q20 q21 q22}
cd "$(dirname "$0")/../.."
SCALE=${NEXMARK_BENCH_SCALE:-1}
DOC=${NEXMARK_BENCH_DOC:-docs/nexmark.md}
N=$(awk -v n="${NEXMARK_BENCH_FLINK_EVENTS:-300000}" -v s="$SCALE" 'BEGIN { printf "%d\n", n * s }')
rc=0
sh scripts/flink-setup.sh "$BUILD" || rc=$?
[ $rc = 0 ] || exit $rc
RU=$BUILD/bench/rusage
if [ ! -x "$RU" ] || [ bench/rusage.c -nt "$RU" ]; then
	mkdir -p "$BUILD/bench"
	${CC:-cc} -O2 -Wall -Wextra -o "$RU" bench/rusage.c
fi
W=$(mktemp -d /tmp/sluice-nexmark-flink.XXXXXX)
trap 'rm -rf "$W"' EXIT
load0=$(cut -d' ' -f1-3 /proc/loadavg)

# the events, and an empty file for the fixed cost
sh tests/nexmark/dump_job.sh "$BUILD" "$W/dump" 10000000 "$N" "$W/events" > "$W/dump.sql"
"$BUILD/sluice" run "$W/dump.sql" --set parallelism.default=1 > "$W/dump.log" 2>&1 ||
	{ cat "$W/dump.log" >&2; exit 1; }
mkdir -p "$W/empty"
: > "$W/empty/events.json"

# file_job Q EVENTS_DIR ENGINE: the query over a file (ENGINE flink drops ADD JAR)
file_job() {
	NEXMARK_WORK=$W/$1 NEXMARK_JOB=$W/$1.gen.sql NEXMARK_EVENTS=$N sh bench/nexmark/run_query.sh "$BUILD" "$1"
	awk -v path="$2" -v engine="$3" '
	/^ADD JAR/ && engine == "flink" { next }
	/^CREATE TABLE datagen/ { indg = 1 }
	indg && /^\) WITH \(/ {
		print ") WITH (\047connector\047 = \047filesystem\047, \047path\047 = \047" path "\047, \047format\047 = \047json\047);"
		skip = 1; next
	}
	skip { if ($0 ~ /^\);/) { skip = 0; indg = 0 } next }
	{ print }' "$W/$1.gen.sql"
}

mkdir -p "$W/flink" "$W/sluice"
file_job q0 "$W/empty" flink > "$W/flink/warmup.sql"
list=$W/flink/warmup.sql
for q in $QUERIES; do
	file_job "$q" "$W/empty" flink > "$W/flink/${q}_empty.sql"
	file_job "$q" "$W/events" flink > "$W/flink/$q.sql"
	file_job "$q" "$W/events" sluice > "$W/sluice/$q.sql"
	list="$list $W/flink/${q}_empty.sql $W/flink/$q.sql"
done

CP=$BUILD/flink/classes:$(cat "$BUILD/flink/classpath.txt")
KEEP=${NEXMARK_BENCH_FLINK_DIR:-}
for p in 1 2; do
	if [ -n "$KEEP" ] && [ -s "$KEEP/flink.p$p.txt" ] && [ "$(cat "$KEEP/events" 2>/dev/null)" = "$N" ]; then
		echo "flink_side: Flink's figures at parallelism $p from $KEEP (a run over the same $N events)" >&2
		cp "$KEEP/flink.p$p.txt" "$W/flink.p$p.txt"
		continue
	fi
	# shellcheck disable=SC2086 # the scripts' paths hold no spaces
	java -Xmx2g -cp "$CP" sluice.FlinkBench $p $list > "$W/flink.p$p.txt" 2> "$W/flink.p$p.log" || true
	echo "flink_side: Flink at parallelism $p:" >&2
	cat "$W/flink.p$p.txt" >&2
	if [ -n "$KEEP" ]; then
		mkdir -p "$KEEP"
		cp "$W/flink.p$p.txt" "$KEEP/" && echo "$N" > "$KEEP/events"
	fi
done

# flink Q P: "K events per CPU-second (spent on the events), fixed CPU-s,
# K events per CPU-second of the whole job" of Flink's run, or "- - -"
flink() {
	awk -v q="$1" -v n="$N" '
	$1 == q "_empty" && $2 ~ /^cpu_s=/ { sub(/cpu_s=/, "", $2); e = $2 }
	$1 == q && $2 ~ /^cpu_s=/ { sub(/cpu_s=/, "", $2); f = $2 }
	END {
		if (e == "" || f == "" || f - e <= 0) print "- - -"
		else printf "%.1f %.1f %.1f\n", n / (f - e) / 1e3, e, n / f / 1e3
	}' "$W/flink.p$2.txt"
}

# sluice Q P: M events per CPU-second over the same file, or "-"
sluice() {
	if ! "$RU" "$W/$1.p$2.ru" "$BUILD/sluice" run "$W/sluice/$1.sql" --set parallelism.default="$2" \
		> "$W/$1.p$2.log" 2>&1; then
		echo "flink_side: sluice $1 at parallelism $2 failed:" >&2
		tail -3 "$W/$1.p$2.log" >&2
		echo "-"
		return
	fi
	read -r user sys _rss _wall < "$W/$1.p$2.ru"
	awk -v n="$N" -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f\n", n / (u + s) / 1e6 }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.0f\n", a * 1000 / b }'; }

TABLE=$W/table.md
echo "| q | sluice M ev/CPU-s p=1 | sluice p=2 | Flink 1.20 K ev/CPU-s p=1 (whole job) | Flink p=2 (whole job) | Flink fixed CPU-s p=1 / p=2 | x Flink p=1 | x Flink p=2 |" > "$TABLE"
echo "|---|---|---|---|---|---|---|---|" >> "$TABLE"
for q in $QUERIES; do
	s1=$(sluice "$q" 1)
	# q10's success-file partition commit is refused at parallelism > 1
	if [ "$q" = q10 ]; then s2=-; else s2=$(sluice "$q" 2); fi
	rm -rf "${W:?}/$q"
	set -- $(flink "$q" 1); f1=$1 e1=$2 g1=$3
	set -- $(flink "$q" 2); f2=$1 e2=$2 g2=$3
	echo "$q: sluice $s1 / $s2 M, Flink $f1 / $f2 K ev/CPU-s" >&2
	echo "| $q | $s1 | $s2 | $f1 ($g1) | $f2 ($g2) | $e1 / $e2 | $(ratio "$s1" "$f1") | $(ratio "$s2" "$f2") |" >> "$TABLE"
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
errs=$(cat "$W/flink.p1.txt" "$W/flink.p2.txt" | awk '$2 == "error" { sub(/_empty$/, "", $1); print $1 }' | sort -u | tr '\n' ' ')

{
	echo "<!-- bench-nexmark-flink:begin (written by bench/nexmark/flink_side.sh; do not edit) -->"
	echo
	echo "Run of $(date -u "+%Y-%m-%d %H:%M UTC") on $(nproc) CPUs ($(uname -m)), commit"
	echo "$(git rev-parse --short HEAD 2>/dev/null || echo '?'), $N events read from one JSON file by both engines"
	echo "('first-event.rate' 10 M), load average $load0 at the start and $load1 at the end."
	echo "Flink 1.20.3 (MiniCluster, one JVM per parallelism, -Xmx2g): events over the CPU-seconds"
	echo "spent on them (the run over the events minus the same job over an empty file, whose"
	echo "CPU-seconds are the fixed cost column; in brackets events over the whole job's CPU-seconds,"
	echo "a lower bound); sluice: events over the whole process's CPU-seconds.  Ratios: sluice over"
	echo "Flink's events per CPU-second spent on the events."
	[ -z "$errs" ] || echo "Flink failed on: $errs(see the run's log)."
	echo
	cat "$TABLE"
	echo
	echo "<!-- bench-nexmark-flink:end -->"
} > "$W/section.md"
if [ "$DOC" = - ]; then
	cat "$W/section.md"
	exit 0
fi
awk -v sec="$W/section.md" '
	/<!-- bench-nexmark-flink:begin/ { while ((getline l < sec) > 0) print l; skip = 1; next }
	/<!-- bench-nexmark-flink:end/ { skip = 0; next }
	!skip { print }' "$DOC" > "$W/doc.md"
cp "$W/doc.md" "$DOC"
echo "flink_side: wrote the table to $DOC" >&2
