#!/bin/sh
# run_all.sh - runs every test suite and prints one closing line:
#   N passed, N failed[, N skipped]
#
# Suites: the cmocka unit programs (build/tests/test_*), the sqllogictest
# files (tests/slt/*.slt, through build/tools/slt_runner, at parallelism 1
# and again at SLT_PARALLELISM, default 3: docs/testing.md), the shell
# integration tests (tests/integration/*.sh) and the layering check of
# src/'s directories (tests/tools/layers.sh, one test).  Each suite's own
# output is kept in build/test-logs/; a failing suite's log is printed.
BUILD=${1:-build}
LOGS=$BUILD/test-logs
mkdir -p "$LOGS"
passed=0
failed=0
skipped=0
failures=""

count_cmocka() { # log -> sets p f k (skipped)
	p=$(sed -n 's/.*\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -1)
	f=$(sed -n 's/.*\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -1)
	k=$(sed -n 's/.*\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$1" | tail -1)
	p=${p:-0}
	f=${f:-0}
	k=${k:-0}
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	log="$LOGS/$name.log"
	if (cd "$(dirname "$0")/.." && timeout 300 "$t") >"$log" 2>&1; then rc=0; else rc=$?; fi
	count_cmocka "$log"
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + k))
	if [ "$f" != 0 ]; then
		failures="$failures $name"
		echo "FAIL $name (exit $rc):"; tail -30 "$log"
	elif [ "$k" != 0 ]; then
		echo "ok   $name ($p tests, $k SKIPPED: $(sed -n 's/^\[  SKIPPED \] //p' "$log" | grep -v 'test(s)' | sort -u | tr '\n' ' ')see $log)"
	else
		echo "ok   $name ($p tests)"
	fi
done

# run_slt PAR: every slt file at parallelism PAR (the runner's --parallelism;
# at PAR > 1 compared as docs/testing.md "Parallelism" says, and counted as
# skipped, loudly, while the engine does not honour 'parallelism.default')
run_slt() {
	par=$1
	[ "$par" = 1 ] && tag=slt || tag="slt@$par"
	notrun=""
	for s in tests/slt/*.slt; do
		[ -f "$s" ] || continue
		name=$(basename "$s" .slt)
		[ "$par" = 1 ] && log="$LOGS/slt_$name.log" || log="$LOGS/slt${par}_$name.log"
		if timeout 300 "$BUILD/tools/slt_runner" --parallelism "$par" "$s" >"$log" 2>&1; then rc=0; else rc=$?; fi
		line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
		p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
		f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
		k=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
		p=${p:-0}
		f=${f:-0}
		k=${k:-0}
		if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
		passed=$((passed + p))
		failed=$((failed + f))
		skipped=$((skipped + k))
		if [ "$f" != 0 ]; then
			failures="$failures $tag:$name"
			echo "FAIL $tag $name:"; tail -40 "$log"
		elif grep -q "^SKIP $s: not run at parallelism" "$log"; then
			notrun=$(sed -n "s|^SKIP $s: not run at parallelism [0-9]*: ||p" "$log")
		else
			[ "$k" = 0 ] && ks="" || ks=", $k skipped"
			echo "ok   $tag $name ($p cases$ks)"
		fi
	done
	if [ -n "$notrun" ]; then
		echo "SKIP $tag: EVERY FILE NOT RUN AT PARALLELISM $par (counted as skipped): $notrun"
	fi
}

if [ -x "$BUILD/tools/slt_runner" ]; then
	run_slt 1
	[ "${SLT_PARALLELISM:-3}" = 1 ] || run_slt "${SLT_PARALLELISM:-3}"
fi

for s in tests/integration/*.sh; do
	[ -f "$s" ] || continue
	name=$(basename "$s" .sh)
	log="$LOGS/it_$name.log"
	if BUILD="$BUILD" timeout 600 sh "$s" >"$log" 2>&1; then rc=0; else rc=$?; fi
	if [ "$rc" = 77 ]; then
		skipped=$((skipped + 1))
		echo "skip $name"
	elif [ "$rc" = 0 ]; then
		passed=$((passed + 1))
		echo "ok   integration $name"
	else
		failed=$((failed + 1))
		failures="$failures it:$name"
		echo "FAIL integration $name:"; tail -40 "$log"
	fi
done

# the layering check (one test): src/ directories depend downwards only
log="$LOGS/layers.log"
if BUILD="$BUILD" timeout 300 sh tests/tools/layers.sh >"$log" 2>&1; then
	passed=$((passed + 1))
	tail -1 "$log"
else
	failed=$((failed + 1))
	failures="$failures layers"
	echo "FAIL layering:"; tail -40 "$log"
fi

[ -n "$failures" ] && echo "failed:$failures"
if [ "$skipped" != 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
