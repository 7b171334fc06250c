#!/bin/sh
# threads_helgrind.sh - runs build/tests/test_sql_threads (two threads
# parsing SQL, checksumming and running engines at once) under valgrind's
# helgrind: any data race it reports fails the test (issue 9: no lazily
# initialised globals; the old tokenizer and CRC tables were filled on
# first use and raced).  Skipped (77) without valgrind.
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.."
command -v valgrind >/dev/null 2>&1 || { echo "skip: no valgrind"; exit 77; }
[ -x "$BUILD/tests/test_sql_threads" ] || { echo "FAIL: $BUILD/tests/test_sql_threads not built"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if ! valgrind --tool=helgrind -q --error-exitcode=3 "$BUILD/tests/test_sql_threads" \
	> "$T/out" 2> "$T/err"; then
	echo "FAIL: helgrind reported errors or the test failed"
	head -60 "$T/err"
	tail -5 "$T/out"
	exit 1
fi
echo "ok threads_helgrind"
