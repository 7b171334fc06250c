#!/bin/sh
# install-deps.sh - installs the Debian 12 packages sluice needs
# (docs/architecture.md, "Dependencies").
#
# libmicrohttpd-dev: the sluice binary's HTTP endpoint (src/cli/http.c);
# prometheus: its promtool checks /metrics in tests/integration/http.sh.
# chromium, curl: tests/integration/page.sh loads the live page headless.
#
# Checks which packages are missing with dpkg-query; installs them through
# apt-get when run as root, otherwise prints the exact apt-get line and fails.
# Called by `make deps` (and so by `make demo` and `make test`).
set -eu
PKGS="build-essential pkg-config libcmocka-dev libpcre2-dev librdkafka-dev kcat \
libpq-dev postgresql librocksdb-dev sqlite3 clang libclang-rt-14-dev jq \
libsnappy-dev libzstd-dev zlib1g-dev openjdk-17-jre-headless maven \
libmicrohttpd-dev prometheus chromium curl"
missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
line="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
	echo "sluice needs these Debian packages:$missing" >&2
	echo "run as root:  apt-get update && $line" >&2
	exit 1
fi
echo "installing:$missing" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive $line >/dev/null
