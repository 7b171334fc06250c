# lib.sh - the start-up and the comparisons shared by the Iceberg tests
# (tests/integration/iceberg.sh, iceberg_upsert.sh, tests/iceberg/crash.sh;
# docs/iceberg.md "Tests"), sourced (POSIX sh) after the caller set ROOT,
# the repository's root.
#
#   ice_setup NAME   sets B (the build directory, from $BUILD, default
#                    build), SLUICE, NPM (exported: the npm peers'
#                    directory) and PY (the venv's python) from
#                    tests/iceberg/peers.sh, W (a fresh /tmp/sluice-NAME.*,
#                    removed on exit unless KEEP is set), LC_ALL=C and
#                    fail=0; exits 77 (skip) without node or sqlite3, 1
#                    when the peers cannot be installed
#   ok TEXT / no TEXT  print "ok   TEXT" / "FAIL TEXT" (no sets fail=1)
#   ice_json JSONL   $W/in.json: the JSON-lines file as one JSON array, for
#                    sqlite3's json_each(readfile(...)) oracles
#   ice_same WANT READER...  each reader's sorted rows, $W/READER.rows,
#                    equal WANT's (sqlite3's answer); on a difference the
#                    first lines of the diff and the end of the readers'
#                    error output ($W/*.err)

ice_setup() {
	BUILD=${BUILD:-build}
	case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
	SLUICE="$B/sluice"
	command -v node >/dev/null 2>&1 || { echo "skip: node not found"; exit 77; }
	command -v sqlite3 >/dev/null 2>&1 || { echo "skip: sqlite3 not found"; exit 77; }
	PEERS=$(sh "$ROOT/tests/iceberg/peers.sh") || { echo "FAIL: cannot install the peers"; exit 1; }
	NPM=$(echo "$PEERS" | sed -n 1p)
	PY=$(echo "$PEERS" | sed -n 2p)
	export NPM
	W=$(mktemp -d "/tmp/sluice-$1.XXXXXX")
	trap '[ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
	export LC_ALL=C
	fail=0
}

ok() { echo "ok   $*"; }
no() { echo "FAIL $*"; fail=1; }

ice_json() {
	sed '1s/^/[/; $!s/$/,/; $s/$/]/' "$1" > "$W/in.json"
}

ice_same() {
	_want=$1
	shift
	for _r in "$@"; do
		if cmp -s "$_want" "$W/$_r.rows"; then
			ok "$_r: $(wc -l < "$_want") rows equal sqlite3's"
		else
			no "$_r differs from sqlite3 ($(wc -l < "$W/$_r.rows") vs $(wc -l < "$_want") rows):"
			diff "$_want" "$W/$_r.rows" | head -5
			for _e in "$W"/*.err; do [ -f "$_e" ] && tail -3 "$_e"; done
		fi
	done
}
