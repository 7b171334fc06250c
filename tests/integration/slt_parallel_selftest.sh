#!/bin/sh
# slt_parallel_selftest.sh - a self-test of the slt runner's comparison at
# parallelism N (tests/tools/slt_compare.c, docs/testing.md "Parallelism"),
# on every slt file's real output, whether or not the engine runs jobs in
# parallel yet: with --assume-parallel the runner compares as at N = 3 while
# the engine may run at 1, and reorders each expect's rows at random as a
# parallel run may (each key's changes, each row value's without a key, in
# order).  The engine's own answers at parallelism 1 must pass: a failure
# here means the comparison demands more than the contract (or cannot read
# some output form), not that the engine is wrong.
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.."
out=$("$BUILD/tools/slt_runner" --assume-parallel --parallelism 3 tests/slt/*.slt) || {
	echo "$out" | grep -v '^SKIP' | tail -60
	echo "FAIL: the comparison at parallelism 3 rejects answers it must accept"
	exit 1
}
echo "$out" | tail -1
