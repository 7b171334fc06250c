#!/bin/sh
# install.sh - `make install PREFIX=...` installs what a user of the command
# and of the library needs: the binary runs from the prefix, `man sluice`
# finds the page, and a program built with only `pkg-config --cflags --libs
# sluice` (the installed headers, library and link flags; no source tree)
# links and runs (examples/embed.c, its output checked against
# examples/embed.expected).
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.."
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P="$T/prefix"
make -s install BUILD="$BUILD" PREFIX="$P" > "$T/log" 2>&1 || { cat "$T/log"; exit 1; }
for f in bin/sluice lib/libsluice.a include/sluice.h include/sluice_udf.h \
	lib/pkgconfig/sluice.pc share/man/man1/sluice.1; do
	[ -f "$P/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
v=$("$P/bin/sluice" --version)
pv=$(PKG_CONFIG_PATH="$P/lib/pkgconfig" pkg-config --modversion sluice)
[ "$v" = "sluice $pv" ] || { echo "FAIL: pkg-config version '$pv', binary '$v'"; exit 1; }
"$P/bin/sluice" run -e 'SELECT 6 * 7' 2> /dev/null | grep -qx '+I\[42\]' ||
	{ echo "FAIL: the installed binary does not run a query"; exit 1; }

# the page renders from the prefix, as `man sluice` with the prefix's MANPATH
if command -v man > /dev/null; then
	MANPATH="$P/share/man" MANWIDTH=80 man sluice 2> "$T/manerr" > "$T/man" || true
	grep -q 'EXIT STATUS' "$T/man" || { echo "FAIL: man sluice"; cat "$T/manerr"; exit 1; }
else
	groff -man -Tutf8 "$P/share/man/man1/sluice.1" | grep -q 'EXIT STATUS' ||
		{ echo "FAIL: the man page does not render"; exit 1; }
fi

# a program built from the installed files alone
cp examples/embed.c "$T/embed.c"
PKG_CONFIG_PATH="$P/lib/pkgconfig"
export PKG_CONFIG_PATH
cc -o "$T/embed" "$T/embed.c" $(pkg-config --cflags --libs sluice) ||
	{ echo "FAIL: building against the installed library"; exit 1; }
"$T/embed" > "$T/embed.out" || { echo "FAIL: the installed-library program failed"; exit 1; }
cmp -s "$T/embed.out" examples/embed.expected ||
	{ echo "FAIL: embed output"; diff examples/embed.expected "$T/embed.out"; exit 1; }
exit 0
