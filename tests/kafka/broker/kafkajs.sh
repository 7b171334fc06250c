#!/bin/sh
# kafkajs.sh - sluice against a second Kafka client that shares no code with
# librdkafka (docs/kafka.md "Tests"; run by tests/integration/kafka_broker.sh,
# or alone with its own broker): KafkaJS (npm kafkajs, installed by
# tests/kafka/peers.sh into ~/.cache) produces 2000 keyed JSON orders into a
# 3-partition topic; a sluice job reads them (bounded at the latest
# offsets), keeps the orders above 50.00 and writes them with the
# exactly-once sink (key = id, raw); KafkaJS reads the output topic
# (read_committed, its default) and it must equal the orders it produced
# that pass the filter, once each, with their keys.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
W=$(mktemp -d /tmp/sluice-kjs.XXXXXX)
KAFKA_PEER=${KAFKA_PEER:-broker}
. "$ROOT/tests/kafka/lib.sh"
trap 'kafka_down; rm -rf "$W"' EXIT
cd "$W"
NM=$(sh "$ROOT/tests/kafka/peers.sh")/node_modules || { echo "FAIL: cannot install kafkajs"; exit 1; }
js() { NODE_PATH=$NM node "$ROOT/tests/kafka/js/peer.js" "$@"; }
kafka_up
BS=$KAFKA_BOOTSTRAP
kafka_topic kjs_in 3
kafka_topic kjs_out 2
js produce "$BS" kjs_in 2000 > produced || { echo "FAIL: kafkajs produce"; exit 1; }
cat > job.sql <<SQL
SET 'execution.checkpointing.interval' = '300 ms';
SET 'parallelism.default' = '1';
CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3))
  WITH ('connector' = 'kafka', 'topic' = 'kjs_in', 'properties.bootstrap.servers' = '$BS',
    'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE big (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3))
  WITH ('connector' = 'kafka', 'topic' = 'kjs_out', 'properties.bootstrap.servers' = '$BS',
    'key.format' = 'raw', 'key.fields' = 'id', 'value.format' = 'json',
    'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'kjs');
INSERT INTO big SELECT id, user_id, amount, event_time FROM orders WHERE amount > 50;
SQL
timeout 60 "$B/sluice" run job.sql > run.out 2> run.err || { echo "FAIL: the sluice job failed"; cat run.err; exit 1; }
# key|value lines as {"k", "v"} objects, the value's JSON normalized
# (numbers as numbers, keys sorted), sorted
norm() {
	jq -RcS 'index("|") as $i | {k: .[:$i], v: (.[$i + 1:] | fromjson | .amount |= tonumber)}' | sort
}
grep . produced | norm | jq -c 'select(.v.amount > 50)' > exp
n=$(wc -l < exp)
js consume "$BS" kjs_out "$n" > consumed || { echo "FAIL: kafkajs consume"; exit 1; }
norm < consumed > got
if [ "$n" -gt 0 ] && cmp -s exp got; then
	echo "ok   KafkaJS -> sluice -> KafkaJS: $n of 2000 orders, keys and values equal, none twice (read_committed)"
else
	echo "FAIL KafkaJS round trip: expected $n rows, got $(wc -l < got)"; diff exp got | head -10
	exit 1
fi
