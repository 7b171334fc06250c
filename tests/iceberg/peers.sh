#!/bin/sh
# peers.sh - installs the Iceberg peers of tests/iceberg/ (docs/iceberg.md
# "Tests"): npm avsc (Avro), icebird (an Iceberg reader over hyparquet),
# DuckDB (@duckdb/node-api: read_parquet) as pinned in package.json, into
# $SLUICE_ICEBERG_NPM (default ~/.cache/sluice/npm-iceberg), and pyiceberg
# with pyarrow from PyPI as pinned in requirements.txt, into a virtual
# environment $SLUICE_ICEBERG_VENV (default ~/.cache/sluice/venv-iceberg).
# Nothing is committed or linked into sluice.  Installs once: later calls
# with the same pins only print.  Prints two lines: the npm directory
# (holding node_modules) and the venv's python.
#
#   set -- $(sh tests/iceberg/peers.sh) || exit 1; NPM=$1; PY=$2
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
NPM=${SLUICE_ICEBERG_NPM:-${HOME:-/tmp}/.cache/sluice/npm-iceberg}
VENV=${SLUICE_ICEBERG_VENV:-${HOME:-/tmp}/.cache/sluice/venv-iceberg}
mkdir -p "$NPM"
if ! { [ -f "$NPM/node_modules/.sluice-ok" ] && cmp -s "$HERE/package.json" "$NPM/package.json"; }; then
	command -v npm >/dev/null 2>&1 || { echo "peers.sh: npm not found (apt-get install npm)" >&2; exit 2; }
	cp "$HERE/package.json" "$NPM/package.json"
	rm -f "$NPM/package-lock.json" "$NPM/node_modules/.sluice-ok"
	(cd "$NPM" && npm install --no-audit --no-fund --loglevel=error >&2) ||
		{ echo "peers.sh: npm install failed in $NPM" >&2; exit 1; }
	touch "$NPM/node_modules/.sluice-ok"
fi
if ! { [ -f "$VENV/.sluice-ok" ] && cmp -s "$HERE/requirements.txt" "$VENV/requirements.txt"; }; then
	rm -f "$VENV/.sluice-ok"
	[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV" >&2 ||
		{ echo "peers.sh: python3 -m venv failed (apt-get install python3-venv)" >&2; exit 2; }
	"$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$HERE/requirements.txt" >&2 ||
		{ echo "peers.sh: pip install failed in $VENV" >&2; exit 1; }
	cp "$HERE/requirements.txt" "$VENV/requirements.txt"
	touch "$VENV/.sluice-ok"
fi
echo "$NPM"
echo "$VENV/bin/python"
