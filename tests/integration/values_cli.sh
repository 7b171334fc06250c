#!/bin/sh
# values_cli.sh - VALUES sources and SELECT without FROM through the CLI
# (sluice run): the rows are printed, the job ends with status 0 and
# --stats names the Values source (it used to crash there: the stats
# treated every source as a table scan), and INSERT INTO a filesystem sink
# from VALUES publishes its rows.
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.."
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
printf "SELECT 1 + 1 AS two, 'x' AS s;\n" > "$T/a.sql"
if ! "$BUILD/sluice" run --stats "$T/a.sql" > "$T/out" 2> "$T/err"; then
	echo "FAIL select without FROM: exit status"; cat "$T/err"; fail=1
fi
[ "$(cat "$T/out")" = "+I[2, x]" ] || { echo "FAIL select without FROM: output"; cat "$T/out"; fail=1; }
grep -q "source #0 Values: 1 rows" "$T/err" || { echo "FAIL stats"; cat "$T/err"; fail=1; }
cat > "$T/b.sql" <<SQL
CREATE TABLE f (a INT, b STRING) WITH ('connector' = 'filesystem', 'path' = '$T/f', 'format' = 'json');
INSERT INTO f VALUES (1, 'x'), (2, 'y');
SQL
if ! "$BUILD/sluice" run "$T/b.sql" > /dev/null 2> "$T/err"; then
	echo "FAIL insert values: exit status"; cat "$T/err"; fail=1
fi
got=$(cat "$T"/f/* 2>/dev/null | sort | tr '\n' ' ')
[ "$got" = '{"a":1,"b":"x"} {"a":2,"b":"y"} ' ] || { echo "FAIL insert values: '$got'"; fail=1; }
[ $fail -eq 0 ] && echo "ok values_cli"
exit $fail
