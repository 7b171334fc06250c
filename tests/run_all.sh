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
# Some integration suites run in a second lane alongside the rest (LANE2
# below).  Every suite's wall time is printed on
# its line and written with its CPU time, one "wall<TAB>cpu<TAB>suite" line
# each (seconds), to build/test-logs/times.tsv; the run ends with the
# slowest ten, the whole run's wall and CPU time and the load average
# (docs/testing.md, "Test time").
BUILD=${1:-build}
LOGS=$BUILD/test-logs
mkdir -p "$LOGS"
TIMES=$LOGS/times.tsv
: >"$TIMES"
now_ms() { date +%s%3N; }
# cpu_of FILE: sets $cpu to the user+system CPU time (ms) in FILE, the
# output of the shell's `times` (its second line: the children's)
cpu_of() {
	cpu=$(sed -n 2p "$1" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] } printf "%d\n", t * 1000 }')
}
# timed NAME CMD...: runs CMD in a subshell with its output in $log; sets
# rc (its exit status) and secs ("S.ss s", for the suite's line) and
# appends "wall<TAB>cpu<TAB>NAME" (seconds) to $TIMES.  The CPU time is
# the subshell's `times`: the processes CMD waited for, and theirs; not
# the second lane's, which this shell may reap while CMD runs.
run_start=$(now_ms)
timed() {
	_name=$1
	shift
	_t0=$(now_ms)
	if ( "$@" >"$log" 2>&1; _r=$?; times >"$log.cpu"; exit $_r ); then rc=0; else rc=$?; fi
	ms=$(($(now_ms) - _t0))
	cpu_of "$log.cpu"
	rm -f "$log.cpu"
	secs=$(printf '%d.%02ds' $((ms / 1000)) $((ms % 1000 / 10)))
	printf '%d.%03d\t%d.%03d\t%s\n' $((ms / 1000)) $((ms % 1000)) $((cpu / 1000)) $((cpu % 1000)) "$_name" >>"$TIMES"
}
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

# run_it NAME: one integration suite, tests/integration/NAME.sh; prints its
# line (and a failing suite's log) and appends "ok|FAIL|skip NAME" to
# $results
run_it() {
	log="$LOGS/it_$1.log"
	timed "it:$1" env BUILD="$BUILD" timeout 600 sh "tests/integration/$1.sh"
	if [ "$rc" = 77 ]; then
		echo "skip $1" >>"$results"
		echo "skip $1 $secs"
	elif [ "$rc" = 0 ]; then
		echo "ok $1" >>"$results"
		echo "ok   integration $1 $secs"
	else
		echo "FAIL $1" >>"$results"
		echo "FAIL integration $1 ($secs):"; tail -40 "$log"
	fi
}

# The integration suites that spend their time waiting on a server of their
# own (PostgreSQL, the real Kafka broker's JVM), on a throttled source or on
# a running job's idle timeouts and live metrics (pending, kafka_idle), and
# the crash suite (the longest; it times its kills by its own uninterrupted
# runs, made for loaded machines) run in a second lane, one after the
# other, alongside everything else: they share no port (each server takes
# a free one), no directory (each its own mktemp) and no file of build/
# with the rest, and the 2-core machine's second core runs them while the
# first lane keeps one busy (docs/testing.md, "Test time").
# SLUICE_TEST_LANES=1 runs them in line, after the others.
LANE2="kafka_broker crash pg pgcdc pending kafka_idle"
: >"$LOGS/lane1.res"
: >"$LOGS/lane2.res"
if [ "${SLUICE_TEST_LANES:-2}" != 1 ]; then
	(
		results="$LOGS/lane2.res"
		for n in $LANE2; do
			[ -f "tests/integration/$n.sh" ] && run_it "$n"
		done
	) >"$LOGS/lane2.out" 2>&1 &
	lane2=$!
	# the unit programs, the slt files and the other integration suites
	# run meanwhile
else
	lane2=
fi

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	log="$LOGS/$name.log"
	timed "$name" sh -c 'cd "$1" && exec timeout 300 "$2"' sh "$(dirname "$0")/.." "$t"
	count_cmocka "$log"
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + k))
	if [ "$f" != 0 ]; then
		failures="$failures $name"
		echo "FAIL $name (exit $rc, $secs):"; tail -30 "$log"
	elif [ "$k" != 0 ]; then
		echo "ok   $name ($p tests, $k SKIPPED: $(sed -n 's/^\[  SKIPPED \] //p' "$log" | grep -v 'test(s)' | sort -u | tr '\n' ' ')see $log) $secs"
	else
		echo "ok   $name ($p tests) $secs"
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
		timed "$tag:$name" timeout 300 "$BUILD/tools/slt_runner" --parallelism "$par" "$s"
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
			echo "FAIL $tag $name ($secs):"; tail -40 "$log"
		elif grep -q "^SKIP $s: not run at parallelism" "$log"; then
			notrun=$(sed -n "s|^SKIP $s: not run at parallelism [0-9]*: ||p" "$log")
		else
			[ "$k" = 0 ] && ks="" || ks=", $k skipped"
			echo "ok   $tag $name ($p cases$ks) $secs"
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

results="$LOGS/lane1.res"
for s in tests/integration/*.sh; do
	[ -f "$s" ] || continue
	name=$(basename "$s" .sh)
	case " $LANE2 " in *" $name "*) [ -n "$lane2" ] && continue ;; esac
	run_it "$name"
done
if [ -n "$lane2" ]; then
	wait "$lane2"
	echo "second lane (alongside the above):"
	cat "$LOGS/lane2.out"
fi
for n in $(sed -n 's/^ok //p' "$LOGS/lane1.res" "$LOGS/lane2.res"); do passed=$((passed + 1)); done
for n in $(sed -n 's/^skip //p' "$LOGS/lane1.res" "$LOGS/lane2.res"); do skipped=$((skipped + 1)); done
for n in $(sed -n 's/^FAIL //p' "$LOGS/lane1.res" "$LOGS/lane2.res"); do
	failed=$((failed + 1))
	failures="$failures it:$n"
done

# the layering check (one test): src/ directories depend downwards only
log="$LOGS/layers.log"
timed layers env BUILD="$BUILD" timeout 300 sh tests/tools/layers.sh
if [ "$rc" = 0 ]; then
	passed=$((passed + 1))
	tail -1 "$log"
else
	failed=$((failed + 1))
	failures="$failures layers"
	echo "FAIL layering:"; tail -40 "$log"
fi

# the slowest ten suites and the whole run's wall time
echo "slowest suites (wall s, CPU s; all in $TIMES):"
sort -rn "$TIMES" | head -10 | sed 's/^/  /'
# (the whole run's CPU time: every child this shell waited for, the
# second lane's included)
ms=$(($(now_ms) - run_start))
times >"$LOGS/total.cpu"
cpu_of "$LOGS/total.cpu"
rm -f "$LOGS/total.cpu"
printf '%d.%03d\t%d.%03d\ttotal\n' $((ms / 1000)) $((ms % 1000)) $((cpu / 1000)) $((cpu % 1000)) >>"$TIMES"
echo "wall time $((ms / 1000)) s, CPU $((cpu / 1000)) s, load average now $(cut -d' ' -f1-3 /proc/loadavg)"
[ -n "$failures" ] && echo "failed:$failures"
if [ "$skipped" != 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
