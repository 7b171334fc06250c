#!/bin/sh
# peers.sh - installs the Parquet peers of the tests (docs/testing.md):
# DuckDB (npm @duckdb/node-api: read_parquet, parquet_metadata, COPY ... TO
# parquet) and hyparquet (a pure JavaScript reader) with its compressors,
# as pinned in tests/parquet/package.json, into a cache directory outside
# the repository ($SLUICE_NPM_DIR, default ~/.cache/sluice/npm-parquet);
# nothing is committed or linked into sluice.  Prints the directory that
# holds node_modules.  Installs once: a second call with the same
# package.json only prints the directory.
#
#   DIR=$(sh tests/parquet/peers.sh) || exit 1
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${SLUICE_NPM_DIR:-${HOME:-/tmp}/.cache/sluice/npm-parquet}
mkdir -p "$DIR"
if [ -f "$DIR/node_modules/.sluice-ok" ] && cmp -s "$HERE/package.json" "$DIR/package.json"; then
	echo "$DIR"
	exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "peers.sh: npm not found (apt-get install npm)" >&2; exit 2; }
cp "$HERE/package.json" "$DIR/package.json"
rm -f "$DIR/package-lock.json"
if ! (cd "$DIR" && npm install --no-audit --no-fund --loglevel=error >&2); then
	echo "peers.sh: npm install failed in $DIR" >&2
	exit 1
fi
touch "$DIR/node_modules/.sluice-ok"
echo "$DIR"
