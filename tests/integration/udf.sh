#!/bin/sh
# udf.sh - user-defined functions from a shared object: builds
# examples/udf/example_udf.c (scalar) and example_udaf.c (aggregate) into
# build/tests/udf/libexample_udf.so and libexample_udaf.so with the system
# C compiler, runs tests/udf/udf.slt (CREATE FUNCTION, calls, NULL
# handling, errors naming the file and the symbol, DROP FUNCTION, a
# version-1 registration) and tests/udf/udaf.slt (aggregates: GROUP BY,
# retraction, windows, OVER, snapshot/restore, refused plans), then a
# `sluice run` script using a scalar and an aggregate function over a file
# source.
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.."
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
CREATE FUNCTION wavg AS 'wavg_udaf' LANGUAGE C USING JAR '$PWD/$BUILD/tests/udf/libexample_udaf.so';
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
echo "udf.sh: ok"
