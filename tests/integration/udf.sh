#!/bin/sh
# udf.sh - user-defined functions from a shared object: builds
# examples/udf/example_udf.c into build/tests/udf/libexample_udf.so with the
# system C compiler, runs tests/udf/udf.slt (CREATE FUNCTION, calls, NULL
# handling, errors naming the file and the symbol, DROP FUNCTION), then a
# `sluice run` script using a function over a file source.
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.."
CC=${CC:-cc}
mkdir -p "$BUILD/tests/udf"
"$CC" -shared -fPIC -O2 -Wall -Wextra -Werror -Iinclude \
	-o "$BUILD/tests/udf/libexample_udf.so" examples/udf/example_udf.c
"$BUILD/tools/slt_runner" tests/udf/udf.slt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '{"name": "ann"}\n{"name": "bob"}\n' > "$tmp/in.jsonl"
cat > "$tmp/job.sql" <<SQL
CREATE FUNCTION greet AS 'greet_udf' LANGUAGE C USING JAR '$PWD/$BUILD/tests/udf/libexample_udf.so';
CREATE TABLE names (name STRING) WITH ('connector' = 'filesystem', 'path' = '$tmp/in.jsonl', 'format' = 'json');
CREATE TABLE out (g STRING) WITH ('connector' = 'filesystem', 'path' = '$tmp/out', 'format' = 'csv');
INSERT INTO out SELECT greet(name) FROM names;
SQL
"$BUILD/sluice" run "$tmp/job.sql" 2>/dev/null
got=$(cat "$tmp"/out/part-* | sort)
want=$(printf '"hello, ann!"\n"hello, bob!"')
if [ "$got" != "$want" ]; then
	echo "udf.sh: sluice run wrote:"; echo "$got"; echo "expected:"; echo "$want"
	exit 1
fi
echo "udf.sh: ok"
