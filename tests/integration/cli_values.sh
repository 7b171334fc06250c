#!/bin/sh
# cli_values.sh - `sluice run` of a query over VALUES prints its rows, its
# statistics and exits 0 (the statistics read every operator without inputs
# as a table scan and crashed on the Values operator; found by make
# test-flink, cases select_values and setops_union_values).
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.."
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$BUILD/sluice" run -e "SELECT order_id, price FROM (VALUES (1, 2.0), (2, 3.1)) AS t (order_id, price);" \
	> "$T/out" 2> "$T/err" || { echo "FAIL: exit status $?"; cat "$T/err"; exit 1; }
printf '+I[1, 2.0]\n+I[2, 3.1]\n' | cmp -s - "$T/out" || { echo "FAIL: output"; cat "$T/out"; exit 1; }
grep -q "Values: 2 rows" "$T/err" || { echo "FAIL: statistics"; cat "$T/err"; exit 1; }
echo "ok cli_values"
