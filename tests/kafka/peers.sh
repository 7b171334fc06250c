#!/bin/sh
# peers.sh - installs KafkaJS (npm kafkajs, pinned in tests/kafka/js/package.json),
# the Kafka client of the tests that shares no code with librdkafka
# (tests/kafka/broker/kafkajs.sh), into a cache directory outside the
# repository ($SLUICE_NPM_DIR, default ~/.cache/sluice/npm-kafka); nothing is
# committed.  Prints the directory that holds node_modules.  Installs once:
# a second call with the same package.json only prints the directory.
#
#   DIR=$(sh tests/kafka/peers.sh) || exit 1
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${SLUICE_NPM_DIR:-${HOME:-/tmp}/.cache/sluice/npm-kafka}
mkdir -p "$DIR"
if [ -f "$DIR/node_modules/.sluice-ok" ] && cmp -s "$HERE/js/package.json" "$DIR/package.json"; then
	echo "$DIR"
	exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "peers.sh: npm not found (install nodejs and npm)" >&2; exit 2; }
cp "$HERE/js/package.json" "$DIR/package.json"
rm -f "$DIR/package-lock.json"
if ! (cd "$DIR" && npm install --no-audit --no-fund --loglevel=error >&2); then
	echo "peers.sh: npm install failed in $DIR" >&2
	exit 1
fi
touch "$DIR/node_modules/.sluice-ok"
echo "$DIR"
