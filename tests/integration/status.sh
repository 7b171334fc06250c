#!/bin/sh
# status.sh - the live status line of `sluice run` (src/cli/status.c,
# docs/observability.md), under a pseudo-terminal made by script(1):
# a 2-second datagen job (3000 rows at 1500 rows/s into a tumbling window)
# shows RUNNING, the source's rows and rate, the watermark with its lag and
# the sink's rows; it redraws at most 4 times a second; the line is erased
# and the final statistics follow on lines of their own, the same as
# without a terminal; standard output on the same terminal gets a scroll
# region that is given back at the end.  With --quiet, or with standard
# error not a terminal, nothing of it is drawn.
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.."
S="$(pwd)/$BUILD/sluice"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
ESC=$(printf '\033')

if ! command -v script >/dev/null 2>&1; then
	echo "SKIP status.sh: no script(1) (util-linux)"; exit 0
fi

cat > "$T/job.sql" <<'EOF'
CREATE TABLE src (k INT, ts AS LOCALTIMESTAMP,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'datagen', 'rows-per-second' = '1500', 'number-of-rows' = '3000',
        'fields.k.min' = '1', 'fields.k.max' = '5');
CREATE TABLE out (k INT, n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts),
  INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end;
EOF

sed "s/'3000'/'600'/" "$T/job.sql" > "$T/short.sql"

# pty ARGS...: runs sluice ARGS on a 30x160 pseudo-terminal; output in $T/pty
pty() {
	t0=$(date +%s%N)
	TERM=xterm script -qfec "stty rows 30 cols 160; cd '$T'; '$S' $*" /dev/null \
		> "$T/pty" 2>&1 < /dev/null
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
}

check() { # what pattern
	if ! grep -Eq -- "$2" "$T/lines"; then
		echo "FAIL status: $1: no /$2/ in:"; head -c 3000 "$T/lines"; echo; fail=1
	fi
}

pty run job.sql
# one line per redraw: split at carriage returns and cursor restores
tr '\r' '\n' < "$T/pty" | sed "s/${ESC}8/\\
/g" | sed "s/$ESC\[[0-9;]*[A-Za-z]//g; s/${ESC}7//g" > "$T/lines"
check "state and source" '^RUNNING 0:0[0-9] \| read src [0-9.]+k? [0-9.]+k?/s'
check "a rate" 'read src [0-9.]+k 1\.[0-9]k/s'
check "watermark and lag" '\| wm 20[0-9-]+ [0-9:]+ lag [0-9.]+m?s now'
check "sink" '\| wrote out [0-9]+'
check "final stats on their own line" '^source src: 3000 rows read, 0 skipped'
check "sink stats" '^sink out: [0-9]+ rows written'
draws=$(grep -o "RUNNING" "$T/pty" | wc -l)
# at most 4 a second (the first at once), over the run's wall time
max=$(( ms * 4 / 1000 + 2 ))
if [ "$draws" -lt 4 ] || [ "$draws" -gt "$max" ]; then
	echo "FAIL status: $draws redraws in $ms ms (want 4 .. $max)"; fail=1
fi
# the scroll region (stdout is the terminal too) is set and given back,
# and the statistics come after it
if ! grep -q "$ESC\[1;29r" "$T/pty" || ! grep -q "$ESC\[r" "$T/pty"; then
	echo "FAIL status: scroll region not set to rows 1-29 and reset"; fail=1
fi
after=$(sed -n "s/.*$ESC\[r//p" "$T/pty" | tr -d '\r' | head -c 200)
case "$after" in
*"source src: 3000 rows read"*) ;;
*) echo "FAIL status: the statistics do not follow the erased line: '$after'"; fail=1 ;;
esac

# stdout not a terminal: the line redraws in place (no scroll region)
TERM=xterm script -qfec "stty rows 30 cols 160; cd '$T'; '$S' run short.sql > out.txt" /dev/null \
	> "$T/pty2" 2>&1 < /dev/null
if grep -q "$ESC\[1;29r" "$T/pty2" || ! grep -q "RUNNING" "$T/pty2"; then
	echo "FAIL status: with stdout redirected, want the in-place line only"; fail=1
fi

# a narrow terminal: the line is cut to its width (no wrapping)
TERM=xterm script -qfec "stty rows 30 cols 40; cd '$T'; '$S' run short.sql > out.txt" /dev/null \
	> "$T/pty3" 2>&1 < /dev/null
long=$(tr '\r' '\n' < "$T/pty3" | sed "s/$ESC\[[0-9;]*[A-Za-z]//g" | grep RUNNING |
	awk 'length($0) > 39' | head -1)
if [ -n "$long" ]; then
	echo "FAIL status: a line wider than the 40-column terminal: '$long'"; fail=1
fi

# --quiet, and stderr not a terminal: no escape sequence at all
pty run short.sql --quiet
if grep -q "$ESC" "$T/pty" || grep -q RUNNING "$T/pty"; then
	echo "FAIL status: --quiet still draws"; fail=1
fi
grep -q '^source src: 600 rows read' "$T/pty" || { echo "FAIL status: --quiet lost the stats"; fail=1; }
(cd "$T" && "$S" run short.sql) > "$T/o" 2> "$T/e"
if grep -q "$ESC" "$T/e" || ! grep -q '^source src: 600 rows read' "$T/e"; then
	echo "FAIL status: stderr to a file: want the stats and no escape sequence"; fail=1
fi

[ "$fail" = 0 ] && echo "ok   status line"
exit $fail
