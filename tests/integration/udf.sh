#!/bin/sh
# udf.sh - user-defined functions from a shared object: builds
# examples/udf/example_udf.c (scalar) and example_udaf.c (aggregate) into
# build/tests/udf/libexample_udf.so and libexample_udaf.so with the system
# C compiler, runs tests/udf/udf.slt (CREATE FUNCTION, calls, NULL
# handling, errors naming the file and the symbol, DROP FUNCTION, a
# version-1 registration, ADD JAR / REMOVE JAR with Nexmark q14's
# count_char from bench/nexmark/udf/nexmark_udf.c) and tests/udf/udaf.slt (aggregates: GROUP BY,
# retraction, windows, OVER, snapshot/restore, refused plans), then a
# `sluice run` script using a scalar and an aggregate function over a file
# source, and a checkpointed window job with the three example aggregates
# killed with SIGKILL and restarted (its output equals an uninterrupted
# run's).
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.."
case "$BUILD" in /*) B="$BUILD" ;; *) B="$PWD/$BUILD" ;; esac
CC=${CC:-cc}
# under `make asan` the libraries are instrumented too, so that sluice
# reading past a registration (a version-1 one ends at eval) is caught
SAN=
case "$BUILD" in *asan*) SAN=-fsanitize=address ;; esac
mkdir -p "$BUILD/tests/udf"
"$CC" -shared -fPIC -O2 $SAN -Wall -Wextra -Werror -Iinclude \
	-o "$BUILD/tests/udf/libexample_udf.so" examples/udf/example_udf.c
"$CC" -shared -fPIC -O2 $SAN -Wall -Wextra -Werror -Iinclude \
	-o "$BUILD/tests/udf/libexample_udaf.so" examples/udf/example_udaf.c -lm
"$CC" -shared -fPIC -O2 $SAN -Wall -Wextra -Werror -Iinclude \
	-o "$BUILD/tests/udf/libnexmark_udf.so" bench/nexmark/udf/nexmark_udf.c
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the .slt files name build/tests/udf/; another BUILD gets its own copies
for f in udf udaf; do
	sed "s#build/tests/udf/#$BUILD/tests/udf/#g" "tests/udf/$f.slt" > "$tmp/$f.slt"
	"$BUILD/tools/slt_runner" "$tmp/$f.slt"
done
printf '{"name": "ann", "v": 2, "w": 1}\n{"name": "bob", "v": 8, "w": 3}\n' > "$tmp/in.jsonl"
cat > "$tmp/job.sql" <<SQL
CREATE FUNCTION greet AS 'greet_udf' LANGUAGE C USING JAR '$PWD/$BUILD/tests/udf/libexample_udf.so';
CREATE FUNCTION wavg AS 'wavg_udaf' LANGUAGE C USING JAR '$B/tests/udf/libexample_udaf.so';
CREATE TABLE names (name STRING, v DOUBLE, w INT) WITH ('connector' = 'filesystem', 'path' = '$tmp/in.jsonl', 'format' = 'json');
CREATE TABLE out (g STRING) WITH ('connector' = 'filesystem', 'path' = '$tmp/out', 'format' = 'csv');
CREATE TABLE avg_out (wa DOUBLE) WITH ('connector' = 'filesystem', 'path' = '$tmp/avg', 'format' = 'debezium-json');
INSERT INTO out SELECT greet(name) FROM names;
INSERT INTO avg_out SELECT wavg(v, w) FROM names;
SQL
"$BUILD/sluice" run "$tmp/job.sql" 2>/dev/null
got=$(cat "$tmp"/out/part-* | sort)
want=$(printf '"hello, ann!"\n"hello, bob!"')
if [ "$got" != "$want" ]; then
	echo "udf.sh: sluice run wrote:"; echo "$got"; echo "expected:"; echo "$want"
	exit 1
fi
last=$(cat "$tmp"/avg/part-* | tail -1)
case "$last" in
*'"after":{"wa":6.5}'*) ;;
*) echo "udf.sh: the aggregate's last change is $last, expected wa 6.5"; exit 1 ;;
esac

# ---- checkpoints: the accumulators survive kill -9 ------------------------
# A TUMBLE window with wavg, geo_mean and max_by over generated orders,
# at batch size 32, checkpointing every 20-60 ms, killed with SIGKILL at
# random moments (between 20% and 80% of the uninterrupted run's wall
# time, so that a faster build or machine still gets killed mid-run) and
# restarted until it finishes
# (at least one restart restores a checkpoint): its committed output equals an
# uninterrupted run's, row for row (the accumulators are restored byte for
# byte, so even the DOUBLE results are identical).
ROWS=${UDAF_ROWS:-1000000}
KILLS=${UDAF_KILLS:-3}
# The input is one split (no 16 MiB ranges), so one source instance reads
# every row in file order at any parallelism (the job runs at the default,
# the CPU count) and each key's rows reach its window in that order: the
# DOUBLE sums depend on the order of their terms, and rows of different
# ranges reach a window in arrival order, which depends on timing (more so
# since the instances take the ranges from a pool: docs/parallel.md §4.1)
export SLUICE_TEST_SPLIT_BYTES=1073741824
"$BUILD/tools/gen_events" "$ROWS" 50 11 > "$tmp/orders.jsonl"
mkdir -p "$tmp/ref" "$tmp/run"
job() { # dir interval
	cat <<SQL
SET 'execution.checkpointing.interval' = '$2';
SET 'sluice.batch-size' = '32';
CREATE FUNCTION wavg AS 'wavg_udaf' LANGUAGE C USING JAR '$B/tests/udf/libexample_udaf.so';
CREATE FUNCTION geo_mean AS 'geo_mean_udaf' LANGUAGE C USING JAR '$B/tests/udf/libexample_udaf.so';
CREATE FUNCTION max_by AS 'max_by_udaf' LANGUAGE C USING JAR '$B/tests/udf/libexample_udaf.so';
CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '$tmp/orders.jsonl', 'format' = 'json');
CREATE TABLE out (user_id STRING, ws TIMESTAMP(3), wa DOUBLE, gm DOUBLE, mb BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '$1/out', 'format' = 'csv');
INSERT INTO out SELECT user_id, window_start,
  wavg(CAST(amount AS DOUBLE), CHAR_LENGTH(id)), geo_mean(CAST(amount AS DOUBLE) + 1),
  max_by(CAST(SUBSTRING(id FROM 2) AS BIGINT), CAST(amount AS DOUBLE))
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(event_time), INTERVAL '1' MINUTE))
GROUP BY user_id, window_start, window_end;
SQL
}
job "$tmp/ref" "1 s" > "$tmp/ref/job.sql"
t0=$(date +%s%N)
(cd "$tmp/ref" && "$B/sluice" run job.sql) > "$tmp/ref/log" 2>&1 ||
	{ echo "udf.sh: reference run failed"; cat "$tmp/ref/log"; exit 1; }
ref_ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ref_ms" -ge 50 ] || ref_ms=50
sort "$tmp"/ref/out/part-* > "$tmp/ref.rows"
[ "$(wc -l < "$tmp/ref.rows")" -gt 100 ] || { echo "udf.sh: reference wrote too few rows"; exit 1; }
kills=0
attempts=0
while :; do
	attempts=$((attempts + 1))
	[ $attempts -le $((KILLS * 5 + 20)) ] || { echo "udf.sh: no progress after $attempts runs"; exit 1; }
	iv=$((20 + $(od -An -N1 -tu1 /dev/urandom) % 41))
	job "$tmp/run" "$iv ms" > "$tmp/run/job.sql"
	(cd "$tmp/run" && exec "$B/sluice" run --stats job.sql) >> "$tmp/run/log" 2>&1 &
	pid=$!
	if [ $kills -lt "$KILLS" ]; then
		ms=$((ref_ms * (20 + $(od -An -N1 -tu1 /dev/urandom) % 61) / 100))
		# after at least two checkpoint intervals, so a kill can restore one
		[ $ms -ge $((iv * 2 + 30)) ] || ms=$((iv * 2 + 30))
		sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
		if kill -9 $pid 2>/dev/null; then
			wait $pid 2>/dev/null || true
			kills=$((kills + 1))
			continue
		fi
	fi
	rc=0
	wait $pid || rc=$?
	if [ $rc = 0 ] && [ $kills = 0 ]; then # finished before the first kill: again
		rm -rf "$tmp/run" && mkdir -p "$tmp/run"
		continue
	fi
	[ $rc = 0 ] && break
	echo "udf.sh: run failed with status $rc"; tail -20 "$tmp/run/log"; exit 1
done
restores=$(grep -c "^restored " "$tmp/run/log" || true)
[ "$kills" = 0 ] || [ "$restores" -gt 0 ] ||
	{ echo "udf.sh: $kills kills but no run restored a checkpoint"; tail "$tmp/run/log"; exit 1; }
sort "$tmp"/run/out/part-* > "$tmp/run.rows"
if ! cmp -s "$tmp/ref.rows" "$tmp/run.rows"; then
	echo "udf.sh: after $kills kills the committed output differs from the uninterrupted run"
	diff "$tmp/ref.rows" "$tmp/run.rows" | head -10
	exit 1
fi
echo "udf.sh: $(wc -l < "$tmp/ref.rows") window rows equal after $kills kills in $attempts runs ($restores restored a checkpoint; uninterrupted run $ref_ms ms)"
echo "udf.sh: ok"
