#!/bin/sh
# flink-setup.sh BUILD_DIR - the Flink oracle of `make test-flink` (docs/testing.md).
#
# Fetches Apache Flink 1.20 (table planner, runtime, clients, files connector, json
# and csv formats; tests/flink/pom.xml) from Maven Central with the machine's `mvn`
# into ~/.m2, writes their class path to BUILD_DIR/flink/classpath.txt and compiles
# the Java sources under tests/flink/src/main/java (FlinkOracle, the oracle;
# FlinkBench and q14's CountChar, for bench/nexmark/bench.sh) into
# BUILD_DIR/flink/classes.
# Nothing is committed or linked into sluice. Idempotent: does nothing when the
# class path and the classes are newer than pom.xml and the source (a first run
# downloads about 140 MB, ~10 s on a fast link; later runs take no time).
# Needs java (17) and mvn (3.8); exits 77 when either is missing.
set -e
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
POM=$ROOT/tests/flink/pom.xml
SRCS=$(find "$ROOT/tests/flink/src/main/java" -name '*.java' | sort)
mkdir -p "$BUILD/flink"
OUT=$(cd "$BUILD/flink" && pwd)
mkdir -p "$OUT/classes"
for tool in java javac mvn; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "flink-setup: '$tool' not found; install openjdk-17-jdk-headless and maven" >&2
		exit 77
	fi
done
CP=$OUT/classpath.txt
fresh() { # fresh FILE DEP...: FILE exists and is newer than each DEP
	f=$1; shift
	[ -s "$f" ] || return 1
	for d in "$@"; do [ "$f" -nt "$d" ] || return 1; done
}
jars_present() {
	tr ':' '\n' < "$CP" | while read -r j; do [ -f "$j" ] || { echo missing; break; }; done | grep -q missing && return 1
	return 0
}
if ! fresh "$CP" "$POM" || ! jars_present; then
	echo "flink-setup: fetching Flink from Maven Central (tests/flink/pom.xml) into ~/.m2" >&2
	(cd "$ROOT/tests/flink" && mvn -q -B -Dstyle.color=never dependency:build-classpath \
		-Dmdep.outputFile="$CP.tmp") > "$OUT/mvn.log" 2>&1 ||
		{ cat "$OUT/mvn.log" >&2; echo "flink-setup: mvn failed (is Maven Central reachable?)" >&2; exit 1; }
	mv "$CP.tmp" "$CP"
fi
CLS=$OUT/classes/sluice/FlinkOracle.class
# shellcheck disable=SC2086 # the sources' paths hold no spaces
if ! fresh "$CLS" $SRCS "$CP"; then
	javac -nowarn -cp "$(cat "$CP")" -d "$OUT/classes" $SRCS
	touch "$CLS"
fi
