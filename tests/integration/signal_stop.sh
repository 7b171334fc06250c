#!/bin/sh
# signal_stop.sh - a clean stop without checkpointing loses no row
# (docs/checkpoints.md, docs/semantics.md §3): `sluice run` over an
# unbounded datagen source into a json filesystem sink, stopped by SIGINT
# (and by SIGTERM with --drain over a window aggregate), publishes what it
# wrote, as the end of input does: exit status 0, no hidden in-progress
# part left, and the published rows are exactly the rows the summary
# counts as written (ids 1..N, no gap, no duplicate; with --drain every
# window is closed and the windows' counts add up to the rows read).
# Before, the output stayed in a hidden 0-byte .inprogress part.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
W=$(mktemp -d /tmp/sluice-sigstop.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"
fail=0

# run_until SQLFILE SIGNAL [ARGS...]: starts the job, waits until its sink
# has opened its part (the signal handlers are installed right after)
# plus 0.5 s, sends SIGNAL, waits
run_until() {
	sql=$1
	sig=$2
	shift 2
	"$B/sluice" run "$sql" "$@" > log 2>&1 &
	pid=$!
	i=0
	while [ $i -lt 1000 ] && [ -z "$(find out -name '.*' 2>/dev/null)" ]; do
		sleep 0.01
		i=$((i + 1))
	done
	sleep 0.5
	kill "-$sig" "$pid"
	wait "$pid"
	rc=$?
}

# hidden files left in out/ (in-progress or staged parts)
hidden() {
	find out -name '.*' | wc -l
}

cat > plain.sql <<'SQL'
CREATE TABLE gen (id BIGINT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = '5000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000');
CREATE TABLE sink (id BIGINT, v INT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json');
INSERT INTO sink SELECT id, v FROM gen;
SQL
run_until plain.sql INT
written=$(sed -n 's/^sink sink: \([0-9]*\) rows written.*/\1/p' log)
got=$(cat out/part-* 2>/dev/null | wc -l)
ids=$(cat out/part-* 2>/dev/null | sed 's/.*"id":\([0-9]*\).*/\1/' | sort -n | uniq | wc -l)
last=$(cat out/part-* 2>/dev/null | sed 's/.*"id":\([0-9]*\).*/\1/' | sort -n | tail -1)
if [ "$rc" = 0 ] && [ -n "$written" ] && [ "$written" -gt 0 ] && [ "$got" = "$written" ] &&
	[ "$ids" = "$written" ] && [ "$last" = "$written" ] && [ "$(hidden)" = 0 ] &&
	grep -q "published their output" log; then
	echo "ok   SIGINT without checkpointing: $got rows published, as the summary counts, ids 1..$last"
else
	echo "FAIL: SIGINT without checkpointing: exit $rc, summary '$written', published $got rows ($ids distinct ids, last $last), $(hidden) hidden files"
	ls -la out 2>/dev/null
	cat log
	fail=1
fi

rm -rf out
cat > windows.sql <<'SQL'
CREATE TABLE gen (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id, 3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'datagen', 'rows-per-second' = '5000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000');
CREATE TABLE sink (ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json');
INSERT INTO sink SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
SQL
run_until windows.sql TERM --drain
read_rows=$(sed -n 's/^source gen: \([0-9]*\) rows read.*/\1/p' log)
sum=$(cat out/part-* 2>/dev/null | sed 's/.*"n":\([0-9]*\).*/\1/' | awk '{ s += $1 } END { print s + 0 }')
if [ "$rc" = 0 ] && [ -n "$read_rows" ] && [ "$sum" = "$read_rows" ] && [ "$(hidden)" = 0 ]; then
	echo "ok   SIGTERM --drain without checkpointing: every window closed and published ($sum rows counted)"
else
	echo "FAIL: SIGTERM --drain: exit $rc, rows read '$read_rows', counted in published windows $sum, $(hidden) hidden files"
	ls -la out 2>/dev/null
	cat log
	fail=1
fi
exit $fail
