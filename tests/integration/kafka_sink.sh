#!/bin/sh
# kafka_sink.sh - the 'kafka' and 'upsert-kafka' sinks against a Kafka peer
# (tests/kafka/lib.sh: librdkafka's mock cluster by default); what they
# wrote is read back with kcat (docs/kafka.md "Tests"):
#   - the seed's pipeline with a kafka source and a kafka sink (json);
#   - 'sink.partitioner' fixed (one partition), round-robin (even spread),
#     default with 'key.fields' (a key always lands in one partition, the
#     key bytes are the key format's);
#   - upsert-kafka from a changelog: updates by key and a tombstone (null
#     value) for a delete;
#   - debezium-json from an updating query;
#   - the delivery guarantee's errors at planning (the exactly-once sink's
#     own tests need the real broker: tests/kafka/broker/eos.sh).
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
W=$(mktemp -d /tmp/sluice-kafkasink.XXXXXX)
. "$ROOT/tests/kafka/lib.sh"
trap 'kafka_down; rm -rf "$W"' EXIT
cd "$W"
fail=0
check() { # name expected-file actual-file
	if cmp -s "$2" "$3"; then
		echo "ok   $1"
	else
		echo "FAIL $1"; echo "--- expected"; cat "$2"; echo "--- got"; cat "$3"
		fail=1
	fi
}
run() { # name sql
	printf '%s\n' "$2" > "$1.sql"
	timeout 60 "$B/sluice" run "$1.sql" > "$1.raw" 2> "$1.err"
	rc=$?
	[ $rc = 0 ] || { echo "FAIL $1: sluice exited $rc"; cat "$1.err"; fail=1; }
}
readback() { # topic format -> sorted lines
	kafka_cat -C -t "$1" -o beginning -e -q -f "$2" | sort
}
kafka_up
BS=$KAFKA_BOOTSTRAP
WITH="'connector' = 'kafka', 'properties.bootstrap.servers' = '$BS'"

kafka_topic orders 3
cat > orders.txt <<'EOF'
o1|{"id":"o1","user_id":"u1","amount":10.50,"event_time":"2026-01-01 10:00:01"}
o2|{"id":"o2","user_id":"u2","amount":3.25,"event_time":"2026-01-01 10:20:00"}
o3|{"id":"o3","user_id":"u1","amount":1.00,"event_time":"2026-01-01 10:59:59"}
o4|{"id":"o4","user_id":"u1","amount":7.00,"event_time":"2026-01-01 11:10:00"}
o5|{"id":"o5","user_id":"u2","amount":2.00,"event_time":"2026-01-01 12:00:00"}
o6|{"id":"o6","user_id":"u3","amount":0.25,"event_time":"2026-01-01 12:30:00"}
EOF
kafka_cat -P -t orders -K'|' < orders.txt
ORDERS="CREATE TABLE orders (
    id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3),
    WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND
) WITH ($WITH, 'topic' = 'orders', 'scan.startup.mode' = 'earliest-offset',
    'scan.bounded.mode' = 'latest-offset', 'format' = 'json');"

# ---- the seed: kafka -> hourly revenue -> kafka ------------------------------------
kafka_topic hourly 2
run seed "SET 'parallelism.default' = '1';
$ORDERS
CREATE TABLE hourly_revenue (user_id STRING, window_start TIMESTAMP(3), revenue DECIMAL(20, 2))
WITH ($WITH, 'topic' = 'hourly', 'format' = 'json', 'sink.partitioner' = 'fixed');
INSERT INTO hourly_revenue
SELECT user_id, TUMBLE_START(event_time, INTERVAL '1' HOUR) AS window_start, SUM(amount)
FROM orders GROUP BY user_id, TUMBLE(event_time, INTERVAL '1' HOUR);"
cat > seed.exp <<'EOF'
0 {"user_id":"u1","window_start":"2026-01-01 10:00:00","revenue":11.50}
0 {"user_id":"u1","window_start":"2026-01-01 11:00:00","revenue":7.00}
0 {"user_id":"u2","window_start":"2026-01-01 10:00:00","revenue":3.25}
0 {"user_id":"u2","window_start":"2026-01-01 12:00:00","revenue":2.00}
0 {"user_id":"u3","window_start":"2026-01-01 12:00:00","revenue":0.25}
EOF
readback hourly '%p %s\n' > seed.got
check "seed pipeline kafka -> kafka (json, fixed partitioner, one instance: all in partition 0)" seed.exp seed.got

# ---- partitioners (one sink instance: 'fixed' and 'round-robin' are per
# instance, as Flink's; the default's partition depends on the key only) -----------------------------------------------------------------------
kafka_topic rr 2
run rr "SET 'parallelism.default' = '1';
$ORDERS
CREATE TABLE o2 (id STRING) WITH ($WITH, 'topic' = 'rr', 'format' = 'raw',
  'sink.partitioner' = 'round-robin');
INSERT INTO o2 SELECT id FROM orders;"
readback rr '%p\n' | uniq -c | awk '{print $2, $1}' > rr.got
printf '0 3\n1 3\n' > rr.exp
check "round-robin: 6 messages, 3 per partition" rr.exp rr.got
kafka_topic bykey 4
run bykey "$ORDERS
CREATE TABLE o3 (user_id STRING, id STRING) WITH ($WITH, 'topic' = 'bykey',
  'key.format' = 'raw', 'key.fields' = 'user_id', 'value.format' = 'json',
  'value.fields-include' = 'EXCEPT_KEY');
INSERT INTO o3 SELECT user_id, id FROM orders;"
readback bykey '%k %p\n' | uniq | awk '{print $1}' | uniq -c | awk '{print $2, $1}' > bykey.got
printf 'u1 1\nu2 1\nu3 1\n' > bykey.exp
check "default partitioner with key.fields: each key in one partition" bykey.exp bykey.got
readback bykey '%k %s\n' > bykey.msgs
printf 'u1 {"id":"o1"}\nu1 {"id":"o3"}\nu1 {"id":"o4"}\nu2 {"id":"o2"}\nu2 {"id":"o5"}\nu3 {"id":"o6"}\n' > bykey.exp2
check "key bytes (raw) and EXCEPT_KEY value" bykey.exp2 bykey.msgs

# ---- upsert-kafka: updates by key, deletes as tombstones -----------------------------------
kafka_topic cdc 1
cat > cdc.txt <<'EOF'
{"before":null,"after":{"id":1,"qty":5},"op":"c"}
{"before":{"id":1,"qty":5},"after":{"id":1,"qty":7},"op":"u"}
{"before":null,"after":{"id":2,"qty":1},"op":"c"}
{"before":{"id":2,"qty":1},"after":null,"op":"d"}
EOF
kafka_cat -P -t cdc < cdc.txt
kafka_topic inv 1
run upsert "CREATE TABLE cdc (id INT, qty INT) WITH ($WITH, 'topic' = 'cdc',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'debezium-json');
CREATE TABLE inv (id INT, qty INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'upsert-kafka', 'properties.bootstrap.servers' = '$BS', 'topic' = 'inv',
  'key.format' = 'json', 'value.format' = 'json');
INSERT INTO inv SELECT id, qty FROM cdc;"
kafka_cat -C -t inv -o beginning -e -q -f '%k|%S|%s\n' > upsert.got
cat > upsert.exp <<'EOF'
{"id":1}|16|{"id":1,"qty":5}
{"id":1}|16|{"id":1,"qty":7}
{"id":2}|16|{"id":2,"qty":1}
{"id":2}|-1|
EOF
check "upsert-kafka sink: upserts by key, a delete is a tombstone (null value)" upsert.exp upsert.got
# and read back through upsert-kafka: the table holds id 1 only
run upsert_back "CREATE TABLE inv (id INT, qty INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'upsert-kafka', 'properties.bootstrap.servers' = '$BS', 'topic' = 'inv',
  'key.format' = 'json', 'value.format' = 'json', 'scan.bounded.mode' = 'latest-offset');
SELECT COUNT(*), SUM(qty) FROM inv;"
grep -E '^\+[IU]\[' upsert_back.raw | tail -1 | sed 's/^+[IU]//' > upsert_back.got
printf '[1, 7]\n' > upsert_back.exp
check "upsert-kafka round trip (COUNT, SUM after the tombstone)" upsert_back.exp upsert_back.got

# ---- debezium-json sink from an updating query ---------------------------------------------
kafka_topic counts 1
run dbz "$ORDERS
CREATE TABLE counts (user_id STRING, n BIGINT) WITH ($WITH, 'topic' = 'counts',
  'format' = 'debezium-json');
INSERT INTO counts SELECT user_id, COUNT(*) FROM orders GROUP BY user_id;"
kafka_cat -C -t counts -o beginning -e -q > dbz.msgs
if [ "$(grep -c '"op":"c"' dbz.msgs)" -ge 3 ] && grep -q '"op":"d"' dbz.msgs; then
	echo "ok   debezium-json sink: inserts and retractions of an updating query"
else
	echo "FAIL debezium-json sink"; cat dbz.msgs; fail=1
fi

# ---- planning errors -------------------------------------------------------------------------
perr() { # name expected-text sql
	printf '%s\n' "$3" > "$1.sql"
	timeout 20 "$B/sluice" explain "$1.sql" > "$1.raw" 2>&1
	if grep -qF "$2" "$1.raw"; then echo "ok   planning error: $1"; else
		echo "FAIL planning error $1"; cat "$1.raw"; fail=1; fi
}
perr eos "'sink.delivery-guarantee' = 'exactly-once' commits a Kafka transaction per checkpoint: set 'execution.checkpointing.interval'" \
	"CREATE TABLE s (n INT) WITH ($WITH, 'topic' = 't', 'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'p'); INSERT INTO s VALUES (1);"
perr badguar "Invalid value for option 'sink.delivery-guarantee'" \
	"CREATE TABLE s (n INT) WITH ($WITH, 'topic' = 't', 'format' = 'json', 'sink.delivery-guarantee' = 'twice'); INSERT INTO s VALUES (1);"
perr pkjson "doesn't support defining PRIMARY KEY constraint on the table" \
	"CREATE TABLE s (n INT, PRIMARY KEY (n) NOT ENFORCED) WITH ($WITH, 'topic' = 't', 'format' = 'json'); INSERT INTO s VALUES (1);"
perr updates "doesn't support consuming update and delete changes" \
	"CREATE TABLE s (n BIGINT) WITH ($WITH, 'topic' = 't', 'format' = 'json'); INSERT INTO s SELECT COUNT(*) FROM (VALUES (1), (2)) AS v(x);"
# (not an error: EXPLAIN names the guarantee as configured)
perr guarnone "guarantee=[none]" \
	"CREATE TABLE s (n INT) WITH ($WITH, 'topic' = 't', 'format' = 'json', 'sink.delivery-guarantee' = 'none'); INSERT INTO s VALUES (1);"
perr twotopics "only supports single topic" \
	"CREATE TABLE s (n INT) WITH ($WITH, 'topic' = 'a;b', 'format' = 'json'); INSERT INTO s VALUES (1);"
exit $fail
