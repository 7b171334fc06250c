#!/bin/sh
# embed.sh - examples/embed.c (the C API: push rows, poll results) prints
# the tutorial's four tumbling-window totals.
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.."
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$BUILD/examples/embed" > "$out"
cmp examples/embed.expected "$out"
