#!/bin/sh
# cli.sh - the sluice command's conventions (src/cli/help.c, docs/man/sluice.1):
# --help and `help COMMAND` print to stdout with status 0; --version and
# `version` print "sluice X.Y.Z"; a wrong command line says what is wrong on
# stderr with status 2; rejected SQL is status 3 with the line and a caret; a
# job that fails while running is status 1.
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.."
S="$BUILD/sluice"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0

# expect STATUS STREAM PATTERN -- ARGS...: runs sluice ARGS, checks the exit
# status and that STREAM (out or err) holds PATTERN (a grep -E expression;
# empty: no check)
expect() {
	want=$1 stream=$2 pat=$3
	shift 4
	set +e
	"$S" "$@" > "$T/out" 2> "$T/err"
	got=$?
	set -e
	if [ "$got" != "$want" ]; then
		echo "FAIL sluice $*: status $got, want $want"; cat "$T/err"; fail=1; return
	fi
	if [ -n "$pat" ] && ! grep -Eq -- "$pat" "$T/$stream"; then
		echo "FAIL sluice $*: $stream lacks /$pat/"; cat "$T/out" "$T/err"; fail=1
	fi
}

expect 0 out '^usage: sluice <command>' -- --help
expect 0 out '^  run ' -- -h
expect 0 out '^exit status:' -- help
expect 0 out '^usage: sluice run ' -- help run
expect 0 out '--from-savepoint PATH' -- run --help
expect 0 out '^usage: sluice explain ' -- explain -h
expect 0 out '^usage: sluice version' -- help version
expect 0 out '^sluice [0-9]+\.[0-9]+\.[0-9]+$' -- --version
expect 0 out '^sluice [0-9]+\.[0-9]+\.[0-9]+$' -- version
expect 2 err '^usage: sluice <command>' --
expect 2 err "unknown command 'frobnicate'" -- frobnicate
expect 2 err "no such command: 'frobnicate'" -- help frobnicate
expect 2 err "unknown option '--bogus'" -- run --bogus job.sql
expect 2 err "Try 'sluice help run'" -- run --bogus job.sql
expect 2 err "options follow the command" -- --stats
expect 2 err "no script" -- run
expect 2 err "'-e' needs an argument" -- run -e
expect 2 err "not of 'explain'" -- explain --stats -e 'SELECT 1'
expect 2 err "cannot open '$T/missing.sql'" -- run "$T/missing.sql"
expect 2 err "one script per job" -- run -e 'SELECT 1' -e 'SELECT 2'
# `-e --help` is SQL (a comment: an empty script), not a request for help
expect 0 err '' -- run -e '--help'
grep -q usage "$T/out" && { echo "FAIL: run -e --help printed the help"; fail=1; }
expect 3 err '^  SELEC 1$' -- run -e 'SELEC 1'
expect 3 err "Object 'nope' not found" -- explain -e 'SELECT x FROM nope'
expect 1 err "cannot cast 'a' to INT" -- run -e "SELECT CAST('a' AS INT)"
expect 0 out '^\+I\[2\]$' -- run -e 'SELECT 1 + 1'

# help.c, the man page and sl_version() agree on the version
v=$("$S" --version | sed 's/^sluice //')
grep -q "\"sluice $v\"" docs/man/sluice.1 || { echo "FAIL: docs/man/sluice.1 is not for version $v"; fail=1; }
# every option `sluice help run` lists is in the man page
for o in $("$S" help run | grep -Eo -- '--[a-z-]+' | sort -u); do
	grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" docs/man/sluice.1 ||
		{ echo "FAIL: the man page lacks $o"; fail=1; }
done
exit $fail
