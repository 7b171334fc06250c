#!/bin/sh
# pool.sh - the pool of a cut file's ranges (docs/parallel.md §4.1): the
# source instances of a parallel run take a large file's ranges from a
# pool they share, so which instance reads which range depends on timing;
# the results must not.  One JSON file of 8000 orders cut into about 200
# ranges of 2 KiB (SLUICE_TEST_SPLIT_BYTES), with late rows next to range
# boundaries (the first line of a range, late for the range's seeded
# initial watermark; the last line before a boundary, the next range's
# seed line: 40 s behind, older than the 10-second windows the watermark
# has passed) and slightly late ones (3 s behind), through a tumbling window by key into a file sink and
# a GROUP BY: the windows' rows and the count of late rows dropped are the
# same at parallelism 1, 2 and 3, and at 2 and 3 with one instance slowed
# (SLUICE_TEST_SLOW_INSTANCE: it sleeps after every batch, so the others
# take most ranges from the pool).
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
W=$(mktemp -d /tmp/sluice-pool.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"
fail=0
export SLUICE_TEST_SPLIT_BYTES=2048

# line i: order i, 100 ms after order i - 1; next to the 2048-byte
# boundaries, rows 40 s late: the first line of range r when r % 3 != 0
# (late for its range's seeded initial watermark, the line before it) and
# the last line of range r - 1 when r % 3 == 0 (that range's seed: a late
# seed, lower than the range's rows); every 7th line a row 3 s late
awk 'function t(ms,  s, m, h) { s = int(ms / 1000) % 60; m = int(ms / 60000) % 60
	h = int(ms / 3600000); return sprintf("2026-01-01 %02d:%02d:%02d.%03d", h, m, s, ms % 1000) }
     function row(id, ms) { return sprintf("{\"id\":%d,\"user_id\":\"u%d\",\"amount\":%d,\"ts\":\"%s\"}", \
	id, (id * 7) % 40, id % 97, t(ms)) }
     function put(l) { r = int(bytes / 2048); print l; bytes += length(l) + 1; last = r }
     BEGIN { bytes = 0; last = 0; base = 3600000
	for (i = 0; i < 8000; i++) {
		ms = base + i * 100
		r = int(bytes / 2048)
		if (r != last && r % 3 != 0)                   # the first line of range r
			put(row(200000 + i, ms - 40000))
		r = int(bytes / 2048)
		l = row(100000 + i, ms - 40000)
		if (int((bytes + length(l) + 1) / 2048) != r && (r + 1) % 3 == 0)
			put(l)                                      # the last line of range r
		else
			put(row(i, ms))
		if (i % 7 == 3)
			put(row(300000 + i, ms - 3000))
	} }' > orders.json
nlate=$(grep -c '"id":[12]0[0-9][0-9][0-9][0-9],' orders.json)

sql() { # OUT
	cat <<SQL
CREATE TABLE o (id INT, user_id STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '$W/orders.json', 'format' = 'json');
CREATE TABLE w (user_id STRING, window_start TIMESTAMP(3), c BIGINT, total INT, ids BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '$1', 'format' = 'json');
INSERT INTO w SELECT user_id, window_start, COUNT(*), SUM(amount), SUM(CAST(id AS BIGINT))
  FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  GROUP BY user_id, window_start, window_end;
SQL
}

# run TAG PARALLELISM [SLOW]: the window rows sorted in TAG.out, the late
# rows dropped in TAG.late
run() {
	rm -rf "out.$1"
	sql "$W/out.$1" > "$1.sql"
	if ! env ${3:+SLUICE_TEST_SLOW_INSTANCE=$3} "$B/sluice" run --stats \
		--set "parallelism.default=$2" "$1.sql" > "$1.log" 2>&1; then
		echo "FAIL $1: exit $?:"; tail -5 "$1.log"; fail=1; return 1
	fi
	cat "out.$1"/* | sort > "$1.out"
	sed -n 's/.*WindowAggregate: \([0-9]*\) late rows dropped.*/\1/p' "$1.log" |
		awk '{ n += $1 } END { print n + 0 }' > "$1.late"
}

run p1 1 || exit 1
n=$(wc -l < p1.out)
late=$(cat p1.late)
if [ "$n" -lt 100 ] || [ "$late" -lt 100 ]; then
	echo "FAIL pool: $n window rows, $late late rows dropped at parallelism 1 (of $nlate 40 s late)"
	exit 1
fi
for c in "p2 2" "p3 3" "p2slow0 2 0:4000" "p2slow0m 2 0:300" "p2slow1 2 1:4000" "p3slow0 3 0:3000" "p3slow2 3 2:3000"; do
	set -- $c
	run "$@" || continue
	if ! cmp -s p1.out "$1.out"; then
		echo "FAIL pool $1: the windows differ from parallelism 1:"; diff p1.out "$1.out" | head -6
		fail=1
	elif [ "$(cat "$1.late")" != "$late" ]; then
		echo "FAIL pool $1: $(cat "$1.late") late rows dropped, $late at parallelism 1"; fail=1
	else
		echo "ok   pool $1: $n window rows, $late late rows dropped, as at parallelism 1"
	fi
done
exit $fail
