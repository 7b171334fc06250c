#!/bin/sh
# bench/parquet.sh - `make bench`: rows per CPU-second into Parquet files
# (snappy, sluice's writer, docs/parquet.md) beside the same rows into JSON
# files and into a blackhole (the floor: generating the rows), into an
# Iceberg table (snappy, a checkpoint every 10 s, docs/iceberg.md), and beside
# DuckDB writing the same kind of rows to Parquet (snappy) with one thread
# (`COPY ... TO ... (FORMAT parquet)`, npm @duckdb/node-api through
# tests/parquet/peers.sh; its figure includes starting node, about 0.1 s).
#
# Usage: sh bench/parquet.sh BUILD_DIR    Environment: BENCH_PQ_ROWS
# (10000000), BENCH_REPEAT (3: best of that many runs).
# A benchmark, never a timed test.
set -eu
BUILD=${1:-build}
ROWS=${BENCH_PQ_ROWS:-10000000}
REPEAT=${BENCH_REPEAT:-3}
SLUICE=$BUILD/sluice
case "$SLUICE" in /*) ;; *) SLUICE=$PWD/$SLUICE ;; esac # (the iceberg run changes directory)
TOOLS=$BUILD/bench
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sluice-benchpq.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM
mkdir -p "$TOOLS"
if [ ! -x "$TOOLS/rusage" ] || [ bench/rusage.c -nt "$TOOLS/rusage" ]; then
	${CC:-cc} -O2 -Wall -Wextra -o "$TOOLS/rusage" bench/rusage.c
fi

# best CPU time of REPEAT runs of CMD: sets RATE, CPU
measure() {
	name=$1
	shift
	CPU=
	i=0
	while [ "$i" -lt "$REPEAT" ]; do
		i=$((i + 1))
		rm -rf "$WORK/out" && mkdir -p "$WORK/out"
		if ! "$TOOLS/rusage" "$WORK/$name.ru" "$@" > "$WORK/$name.log" 2>&1; then
			echo "bench $name failed:" >&2
			cat "$WORK/$name.log" >&2
			exit 1
		fi
		read -r u s rss _wall < "$WORK/$name.ru"
		c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
		CPU=$(awk -v a="$CPU" -v b="$c" 'BEGIN { print (a == "" || b + 0 < a + 0 ? b : a) }')
	done
	SIZE=$(du -sm "$WORK/out" 2>/dev/null | cut -f1)
	RATE=$(awk -v r="$ROWS" -v c="$CPU" 'BEGIN { printf "%.0f", (c > 0 ? r / c : 0) }')
}

job() { # sink options
	cat <<SQL
CREATE TABLE gen (seq BIGINT, user_id BIGINT, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  name STRING) WITH ('connector' = 'datagen', 'rows-per-second' = '0',
  'number-of-rows' = '$ROWS', 'fields.seq.kind' = 'sequence', 'fields.seq.start' = '1',
  'fields.seq.end' = '$ROWS', 'fields.user_id.min' = '1', 'fields.user_id.max' = '10000',
  'fields.amount.min' = '0.01', 'fields.amount.max' = '500.00', 'fields.name.length' = '8');
CREATE TABLE o (seq BIGINT, user_id BIGINT, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  name STRING) WITH ($1);
INSERT INTO o SELECT * FROM gen;
SQL
}
job "'connector' = 'blackhole'" > "$WORK/floor.sql"
job "'connector' = 'filesystem', 'path' = '$WORK/out', 'format' = 'json'" > "$WORK/json.sql"
job "'connector' = 'filesystem', 'path' = '$WORK/out', 'format' = 'parquet'" > "$WORK/pq.sql"
measure floor "$SLUICE" run "$WORK/floor.sql"; R_FLOOR=$RATE C_FLOOR=$CPU
measure json "$SLUICE" run "$WORK/json.sql"; R_JSON=$RATE C_JSON=$CPU S_JSON=$SIZE
measure pq "$SLUICE" run "$WORK/pq.sql"; R_PQ=$RATE C_PQ=$CPU S_PQ=$SIZE
{ echo "SET 'execution.checkpointing.interval' = '10 s';"; echo "SET 'pipeline.name' = 'benchice';"
  job "'connector' = 'iceberg', 'warehouse' = '$WORK/out', 'write.parquet.compression-codec' = 'snappy'"
} > "$WORK/ice.sql"
measure ice sh -c "cd '$WORK' && rm -rf sluice-state && exec '$SLUICE' run ice.sql"
R_ICE=$RATE C_ICE=$CPU S_ICE=$SIZE
R_DUCK=- C_DUCK=- S_DUCK=-
if command -v node >/dev/null 2>&1 && PEERS=$(sh tests/parquet/peers.sh 2>/dev/null); then
	export PEERS
	measure duck node tests/parquet/peer.mjs sql "SET threads = 1; COPY (SELECT range + 1 AS seq,
	  (1 + floor(random() * 10000))::BIGINT AS user_id,
	  (1 + floor(random() * 49999))::DECIMAL(10, 2) / 100 AS amount,
	  TIMESTAMP '2026-08-01' + to_milliseconds(range) AS ts,
	  substr(md5(range::VARCHAR), 1, 8) AS name FROM range($ROWS))
	  TO '$WORK/out/duck.parquet' (FORMAT parquet, COMPRESSION snappy)"
	R_DUCK=$RATE C_DUCK=$CPU S_DUCK=$SIZE
fi
echo
echo "sluice bench parquet  $(date -u '+%Y-%m-%d %H:%M UTC')  $(uname -m), $(nproc) cores"
echo "  ($ROWS rows of (BIGINT, BIGINT, DECIMAL(10,2), TIMESTAMP(3), 8-char STRING);"
echo "   rows per CPU-second = rows / (user + sys), best of $REPEAT runs)"
printf '%-44s %8s %14s %8s\n' "run" "cpu s" "rows/cpu-s" "MB out"
printf '%-44s %8s %14s %8s\n' "datagen -> parquet (snappy)" "$C_PQ" "$R_PQ" "$S_PQ"
printf '%-44s %8s %14s %8s\n' "datagen -> iceberg (snappy, checkpoint 10 s)" "$C_ICE" "$R_ICE" "$S_ICE"
printf '%-44s %8s %14s %8s\n' "datagen -> json (same run's floor)" "$C_JSON" "$R_JSON" "$S_JSON"
printf '%-44s %8s %14s %8s\n' "datagen -> blackhole (generating the rows)" "$C_FLOOR" "$R_FLOOR" "-"
printf '%-44s %8s %14s %8s\n' "DuckDB COPY TO parquet (snappy, 1 thread)" "$C_DUCK" "$R_DUCK" "$S_DUCK"
