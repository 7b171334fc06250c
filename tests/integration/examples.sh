#!/bin/sh
# examples.sh - every runnable example gives its recorded output.
#
# Each examples/*/*.sql with a .expected file beside it is run with the CLI
# and its stdout compared byte for byte (the engine is deterministic: one
# thread, sources read in order).  The hourly-revenue pipeline writes a
# file sink; its published rows are compared, sorted.
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.."
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
for sql in examples/*/*.sql; do
	exp=${sql%.sql}.expected
	[ -f "$exp" ] || continue
	if ! "$BUILD/sluice" run "$sql" > "$T/out" 2>"$T/err"; then
		echo "FAIL $sql: exit status"; cat "$T/err"; fail=1; continue
	fi
	if ! cmp -s "$exp" "$T/out"; then
		echo "FAIL $sql: output differs"; diff "$exp" "$T/out" || true; fail=1
	else
		echo "ok $sql"
	fi
done
# late rows are counted once per row
"$BUILD/sluice" run examples/late/drop.sql 2>&1 >/dev/null | grep -q "2 late rows dropped" ||
	{ echo "FAIL: drop.sql should count 2 late rows"; fail=1; }
"$BUILD/sluice" run examples/fraud/job.sql 2>&1 >/dev/null | grep -q "1 late rows dropped" ||
	{ echo "FAIL: fraud/job.sql should count 1 late row"; fail=1; }
# the seed pipeline into a file sink
out=$(mktemp -d)
sed "s#'out/hourly_revenue'#'$out/hr'#" examples/hourly_revenue/job.sql > "$out/job.sql"
"$BUILD/sluice" run "$out/job.sql" 2>/dev/null
cat "$out"/hr/part-* | sort > "$out/got"
if ! cmp -s examples/hourly_revenue/expected.jsonl "$out/got"; then
	echo "FAIL hourly_revenue"; diff examples/hourly_revenue/expected.jsonl "$out/got" || true; fail=1
else
	echo "ok hourly_revenue"
fi
if ls -a "$out/hr" | grep -q '^\.'; then
	ls -a "$out/hr" | grep '^\.part' && { echo "FAIL: in-progress files left"; fail=1; }
fi
rm -rf "$out"
exit $fail
