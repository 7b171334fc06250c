#!/bin/sh
# layers.sh - checks that the directories of src/ depend on each other in
# one direction only (docs/testing.md):
#
#   base <- data <- {sql, expr, format, state} <- connector <- exec <- runtime
#        <- plan <- api <- {cli, server}
#
# A file in src/<dir>/ may include a header of its own directory, of a
# directory of a lower layer, or the public headers of include/.  Within one
# layer, directories do not include each other (sql, expr, format and state
# are independent: the parser sits beside them, below plan).  Two checks:
#
#   1. every #include "..." line of src/*/*.[ch], resolved to its directory;
#   2. with a build (BUILD, default build), every symbol an object file of
#      src/<dir>/ uses (nm -u) that another directory's object defines: a
#      prototype or `extern` written by hand hides a dependency from the
#      include check, not from the linker.
#
# A violation prints the file and the include or symbol, and the script
# exits 1.  Known violations that belong to another piece of work are
# listed in EXCEPTIONS below, each with its reason; an exception that no
# longer occurs is reported too (so the list shrinks as they are fixed).
# A new directory under src/ must be given its layer here first.
# Run by tests/run_all.sh (make test) as one test.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
cd "$ROOT"

# Allowed exceptions: "<file> <included path or symbol>", one per line,
# each with a comment saying why it stands and who removes it.
# (none today; the last one, the connector registry naming the engine's
# push sink, went with sl_plan_args.push_sink)
EXCEPTIONS='
'

# Sets L to the layer of directory $1 (-1: none).
layer() {
	case "$1" in
	base) L=0 ;;
	data) L=1 ;;
	sql | expr | format | state) L=2 ;;
	connector) L=3 ;;
	exec) L=4 ;;
	runtime) L=5 ;;
	plan) L=6 ;;
	api) L=7 ;;
	cli | server) L=8 ;;
	*) L=-1 ;;
	esac
}

fail=0
for d in src/*/; do
	d=${d%/}
	d=${d#src/}
	layer "$d"
	if [ "$L" = -1 ]; then
		echo "src/$d/: a directory without a layer (add it to tests/tools/layers.sh)"
		fail=1
	fi
done

# allowed FROM TO: true when a file of FROM may depend on TO; sets LF, LT
allowed() {
	layer "$1"
	LF=$L
	layer "$2"
	LT=$L
	[ "$1" = "$2" ] && return 0
	[ "$LT" -ge 0 ] && [ "$LT" -lt "$LF" ]
}

excepted() { # file what
	printf '%s\n' "$EXCEPTIONS" | grep -v '^#' | grep -qx "$1 $2"
}

found=$(mktemp)
defs=$found.defs
uses=$found.uses
trap 'rm -f "$found" "$found.used" "$defs" "$uses"' EXIT

# ---- 1. includes ----
awk -F'"' '/^[ \t]*#[ \t]*include[ \t]*"/ {print FILENAME, FNR, $2}' src/*/*.c src/*/*.h |
while read -r f n inc; do
	d=${f#src/}
	d=${d%%/*}
	p=$inc
	while :; do
		case "$p" in ../*) p=${p#../} ;; ./*) p=${p#./} ;; *) break ;; esac
	done
	case "$p" in
	*/*) t=${p%%/*} ;;
	*)
		if [ -f "src/$d/$p" ]; then
			t=$d
		elif [ -f "include/$p" ]; then
			continue
		else
			echo "$f:$n: #include \"$inc\" resolves to no file of src/$d/ or include/"
			echo x >>"$found"
			continue
		fi
		;;
	esac
	[ "$t" = include ] && continue
	if [ ! -d "src/$t" ]; then
		echo "$f:$n: #include \"$inc\": no directory src/$t/"
		echo x >>"$found"
		continue
	fi
	allowed "$d" "$t" && continue
	if excepted "$f" "$p"; then
		echo "$f $p" >>"$found.used"
		continue
	fi
	echo "$f:$n: src/$d/ (layer $LF) includes \"$inc\" of src/$t/ (layer $LT)"
	echo x >>"$found"
done

# ---- 2. symbols (needs the objects of a build) ----
# the objects of current sources (a build directory may keep objects of
# files since moved or deleted)
objs=
for o in "$B"/src/*/*.o; do
	c=${o#"$B"/}
	[ -f "${c%.o}.c" ] && objs="$objs $o"
done
if [ -n "$objs" ] && command -v nm >/dev/null 2>&1; then
	# "symbol dir file" of every global definition and every use
	# shellcheck disable=SC2086
	nm -A -g --defined-only $objs | awk -v b="$B/" '
		{ split($1, a, ":"); f = substr(a[1], length(b) + 1); split(f, p, "/");
		  sub(/\.o$/, ".c", f); print $NF, p[2], f }' >"$defs"
	# shellcheck disable=SC2086
	nm -A -u $objs | awk -v b="$B/" '
		{ split($1, a, ":"); f = substr(a[1], length(b) + 1); split(f, p, "/");
		  sub(/\.o$/, ".c", f); print $NF, p[2], f }' >"$uses"
	# file symbol used-by-dir defined-in-dir
	awk 'NR == FNR {def[$1] = $2; next} ($1 in def) && def[$1] != $2 {print $3, $1, $2, def[$1]}' \
		"$defs" "$uses" | sort -u | while read -r f sym from to; do
		allowed "$from" "$to" && continue
		if excepted "$f" "$sym"; then
			echo "$f $sym" >>"$found.used"
			continue
		fi
		echo "$f: src/$from/ (layer $LF) uses $sym, defined in src/$to/ (layer $LT)"
		echo x >>"$found"
	done
else
	echo "note: no objects under $B/src: the symbol check was skipped"
fi

# ---- exceptions that no longer occur ----
printf '%s\n' "$EXCEPTIONS" | grep -v '^#' | grep -v '^$' | while IFS= read -r e; do
	if ! { [ -f "$found.used" ] && grep -qx "$e" "$found.used"; }; then
		echo "exception no longer needed (remove it from tests/tools/layers.sh): $e"
		echo x >>"$found"
	fi
done
if [ -s "$found" ] || [ "$fail" != 0 ]; then
	echo "FAIL layering: $(wc -l <"$found" | tr -d ' ') violation(s)"
	exit 1
fi
echo "ok   layering: src/ directories depend downwards only ($(printf '%s\n' "$EXCEPTIONS" | grep -v '^#' | grep -vc '^$') listed exception(s))"
