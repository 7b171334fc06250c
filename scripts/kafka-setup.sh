#!/bin/sh
# kafka-setup.sh BUILD_DIR - the real Apache Kafka broker of the Kafka tests
# (tests/kafka/lib.sh, KAFKA_PEER=broker; docs/kafka.md "Tests").
#
# Fetches org.apache.kafka:kafka_2.13 (tests/kafka/broker/pom.xml) and its
# runtime dependencies from Maven Central with the machine's `mvn` into
# ~/.m2 and writes their class path to BUILD_DIR/kafka/classpath.txt, from
# which lib.sh formats and starts a single-node KRaft broker.  Nothing is
# committed or linked into sluice.  Idempotent: does nothing when the class
# path is newer than the pom and every jar it names exists (a first run
# downloads about 40 MB, ~15 s; later runs take no time).  Needs java (17)
# and mvn (3.8); without them it fails with a message (a test that needs the
# broker must fail, not pass vacuously).
set -e
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
POM=$ROOT/tests/kafka/broker/pom.xml
mkdir -p "$BUILD/kafka"
OUT=$(cd "$BUILD/kafka" && pwd)
for tool in java mvn; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "kafka-setup: '$tool' not found; install openjdk-17-jre-headless and maven" >&2
		exit 1
	fi
done
CP=$OUT/classpath.txt
jars_present() {
	tr ':' '\n' < "$CP" | while read -r j; do [ -f "$j" ] || { echo missing; break; }; done | grep -q missing && return 1
	return 0
}
if [ ! -s "$CP" ] || [ ! "$CP" -nt "$POM" ] || ! jars_present; then
	echo "kafka-setup: fetching Apache Kafka from Maven Central (tests/kafka/broker/pom.xml) into ~/.m2" >&2
	(cd "$ROOT/tests/kafka/broker" && mvn -q -B -Dstyle.color=never dependency:build-classpath \
		-Dmdep.outputFile="$CP.tmp") > "$OUT/mvn.log" 2>&1 ||
		{ cat "$OUT/mvn.log" >&2; echo "kafka-setup: mvn failed (is Maven Central reachable?)" >&2; exit 1; }
	mv "$CP.tmp" "$CP"
fi
