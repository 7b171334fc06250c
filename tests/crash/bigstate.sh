#!/bin/sh
# bigstate.sh - state larger than memory: a non-windowed GROUP BY over KEYS
# distinct keys on the RocksDB backend with a 256 MB memory budget must run
# to completion with a peak RSS under MAX_RSS_MB and give the same result
# as the hashmap backend (docs/state.md).
#
#   bigstate.sh [KEYS] [MAX_RSS_MB] [COMPARE]   (defaults: 50000000 1024 1)
#
# The job: datagen seq 1..2*KEYS, GROUP BY seq % KEYS (every key twice, so
# every key is read back and updated once), COUNT(*) and SUM(amount), into
# a debezium-json file sink.  The result is folded into a checksum by
# replaying the changelog (keys alive, SUM of counts, SUM of totals in
# cents, SUM of key * total): it must show KEYS keys and 2*KEYS rows, and
# with COMPARE=1 equal the hashmap run's (which needs ~100 bytes of memory
# per key).  Prints time, rows per second and peak RSS of each run.
set -eu
KEYS=${1:-50000000}
MAX_RSS_MB=${2:-1024}
COMPARE=${3:-1}
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
W=$(mktemp -d "${TMPDIR:-/tmp}/sluice-bigstate.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
RU="$W/rusage"
${CC:-cc} -O2 -o "$RU" "$ROOT/bench/rusage.c"
ROWS=$((KEYS * 2))

job() { # backend out_dir
	cat <<SQL
SET 'state.backend.type' = '$1';
SET 'state.backend.rocksdb.memory.fixed-per-slot' = '256 mb';
SET 'state.backend.rocksdb.localdir' = '$W';
CREATE TABLE gen (seq BIGINT, amount DECIMAL(10, 2))
  WITH ('connector' = 'datagen', 'rows-per-second' = '0', 'number-of-rows' = '$ROWS',
        'fields.seq.kind' = 'sequence', 'fields.seq.start' = '1', 'fields.seq.end' = '$ROWS',
        'fields.amount.min' = '0.01', 'fields.amount.max' = '500.00');
CREATE TABLE out1 (k BIGINT, n BIGINT, total DECIMAL(38, 2))
  WITH ('connector' = 'filesystem', 'path' = '$2', 'format' = 'debezium-json');
INSERT INTO out1 SELECT seq % $KEYS, COUNT(*), SUM(amount) FROM gen GROUP BY seq % $KEYS;
SQL
}

# Replays a debezium-json changelog: "keys rows cents keysum".
fold() {
	cat "$1"/part-* | mawk '
	function take(sign, k, n, t) {
		keys += sign; rows += sign * n; cents += sign * int(t * 100 + (t < 0 ? -0.5 : 0.5))
		ks = (ks + sign * (k % 1000003) * (int(t * 100 + 0.5) % 1000003)) % 1000000007
	}
	{
		op = substr($0, length($0) - 2, 1); s = $0
		gsub(/"[a-z]+":/, "", s); m = split(s, a, /[^0-9.-]+/); c = 0
		for (i = 1; i <= m; i++) if (a[i] != "") v[++c] = a[i]
		if (op == "c") take(1, v[1], v[2], v[3])
		else if (op == "d") take(-1, v[1], v[2], v[3])
		else { take(-1, v[1], v[2], v[3]); take(1, v[4], v[5], v[6]) }
	}
	END { printf "%.0f %.0f %.0f %.0f\n", keys, rows, cents, (ks + 1000000007) % 1000000007 }'
}

run() { # backend -> sets SUM, RSS_MB, SECS
	mkdir -p "$W/$1"
	job "$1" "$W/$1/out" > "$W/$1/job.sql"
	t0=$(date +%s.%N)
	(cd "$W/$1" && "$RU" "$W/$1/ru" "$B/sluice" run job.sql) > "$W/$1/log" 2>&1 ||
		{ echo "FAIL: $1 run"; tail -5 "$W/$1/log"; exit 1; }
	t1=$(date +%s.%N)
	SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	RSS_MB=$(awk '{ printf "%d", $3 / 1024 }' "$W/$1/ru")
	SUM=$(fold "$W/$1/out")
	rm -rf "$W/$1/out"
	echo "$1: $KEYS keys, $ROWS rows in $SECS s ($(awk -v r=$ROWS -v s="$SECS" \
		'BEGIN { printf "%.2f", r / s / 1e6 }') M rows/s), peak RSS $RSS_MB MB; keys rows cents check: $SUM"
}

fail=0
run rocksdb
R_SUM=$SUM
[ "$RSS_MB" -lt "$MAX_RSS_MB" ] || { echo "FAIL: peak RSS $RSS_MB MB >= $MAX_RSS_MB MB"; fail=1; }
set -- $R_SUM
[ "$1" = "$KEYS" ] && [ "$2" = "$ROWS" ] || { echo "FAIL: $1 keys / $2 rows, expected $KEYS / $ROWS"; fail=1; }
if [ "$COMPARE" = 1 ]; then
	run hashmap
	[ "$SUM" = "$R_SUM" ] || { echo "FAIL: rocksdb result $R_SUM, hashmap $SUM"; fail=1; }
fi
echo "bigstate: $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
