#!/bin/sh
# kafka_broker.sh - the Kafka tests against a real Apache Kafka broker
# (docs/kafka.md "Tests"): starts one single-node KRaft broker
# (tests/kafka/lib.sh, KAFKA_PEER=broker: kafka_2.13 from Maven Central
# through scripts/kafka-setup.sh, a private log directory, loopback ports)
# and runs against it, sharing that one start:
#   - kafka_source.sh (with the startup and bounded timestamp modes, which
#     the mock cannot answer), kafka_sink.sh and the Kafka-source crash
#     test (tests/kafka/crash.sh 100000 3 4), unchanged;
#   - what only a real broker can prove: the exactly-once sink
#     (tests/kafka/broker/eos.sh: read_committed, the abort on restart, a
#     zombie fenced; tests/kafka/eos_crash.sh 200000 3 4: a fault between
#     a checkpoint's manifest and its commit, then 3 SIGKILLs), KafkaJS
#     as a second client (tests/kafka/broker/kafkajs.sh), several
#     processes sharing a topic through the consumer group
#     (tests/kafka/broker/group.sh: its input arrives in rounds while the
#     processes run, so its kill -9 is mid-stream on any machine) and a
#     co-partitioned join of two topics in such a scale-out
#     (tests/kafka/broker/cojoin.sh);
#   - partition discovery with a partition added to a topic
#     (kafka_discovery.sh).
# The broker is stopped at the end.  A broker that cannot start (no java,
# no Maven, Maven Central out of reach) fails this test: it never passes
# vacuously.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
W=$(mktemp -d /tmp/sluice-kbroker.XXXXXX)
KAFKA_PEER=broker
. "$ROOT/tests/kafka/lib.sh"
trap 'kafka_down; rm -rf "$W"' EXIT
t0=$(date +%s%N)
kafka_up
echo "broker up at $KAFKA_BOOTSTRAP in $((($(date +%s%N) - t0) / 1000000)) ms"
export KAFKA_PEER KAFKA_SHARED_BOOTSTRAP="$KAFKA_BOOTSTRAP" BUILD
fail=0
# each: a script and its arguments
while read -r s args; do
	name=$(basename "$s" .sh)
	t1=$(date +%s%N)
	if bash "$ROOT/$s" $args > "$W/$name.log" 2>&1; then rc=0; else rc=$?; fi
	ms=$((($(date +%s%N) - t1) / 1000000))
	sed "s/^/  $name: /" "$W/$name.log"
	if [ $rc = 0 ]; then
		echo "ok   $name against the broker ($ms ms)"
	else
		echo "FAIL $name against the broker (exit $rc, $ms ms)"
		fail=1
	fi
done <<LIST
tests/integration/kafka_source.sh
tests/integration/kafka_sink.sh
tests/integration/kafka_discovery.sh
tests/kafka/crash.sh 100000 3 4
tests/kafka/broker/eos.sh
tests/kafka/eos_crash.sh 200000 3 4
tests/kafka/broker/kafkajs.sh
tests/kafka/broker/group.sh
tests/kafka/broker/cojoin.sh
LIST
exit $fail
