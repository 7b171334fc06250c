#!/bin/sh
# kafka_source.sh - the 'kafka' and 'upsert-kafka' sources against a Kafka
# peer (tests/kafka/lib.sh: librdkafka's mock cluster by default), fed
# with kcat (docs/kafka.md "Tests"):
#   - the seed's pipeline (orders topic -> hourly revenue per user) into a
#     filesystem sink, bounded by 'scan.bounded.mode' = 'latest-offset',
#     also at parallelism 3 (a partition per scan instance);
#   - a ';' topic list and a 'topic-pattern';
#   - startup modes: earliest, latest (nothing), timestamp (only what was
#     produced after it), specific-offsets, group-offsets (a checkpointing
#     run commits its offsets; the next run reads only the new messages);
#   - bounded modes timestamp and specific-offsets;
#   - metadata columns partition, offset, timestamp, topic;
#   - 'scan.partitions' (a sluice extension) reads only the listed partitions;
#   - key.format + key.fields + value.fields-include = EXCEPT_KEY;
#   - upsert-kafka: a null value deletes its key (SELECT shows -D);
#   - debezium-json from a topic;
#   - a malformed message stops the job naming topic, partition and
#     offset; with 'json.ignore-parse-errors' it is skipped and counted;
#   - planning errors for bad or missing options.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
W=$(mktemp -d /tmp/sluice-kafka.XXXXXX)
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
# run NAME SQL: runs the script, stdout (the SELECTs' rows) sorted into NAME.out
run() {
	printf '%s\n' "$2" > "$1.sql"
	timeout 60 "$B/sluice" run "$1.sql" > "$1.raw" 2> "$1.err"
	echo $? > "$1.rc"
	grep -E '^[-+][IUD]\[' "$1.raw" | sort > "$1.out"
}
kafka_up
BS=$KAFKA_BOOTSTRAP
WITH="'connector' = 'kafka', 'properties.bootstrap.servers' = '$BS'"

# ---- the seed's pipeline ------------------------------------------------------
kafka_topic orders 3
cat > orders.txt <<'EOF'
o1:{"id":"o1","user_id":"u1","amount":10.50,"event_time":"2026-01-01 10:00:01"}
o2:{"id":"o2","user_id":"u2","amount":3.25,"event_time":"2026-01-01 10:20:00"}
o3:{"id":"o3","user_id":"u1","amount":1.00,"event_time":"2026-01-01 10:59:59"}
o4:{"id":"o4","user_id":"u1","amount":7.00,"event_time":"2026-01-01 11:10:00"}
o5:{"id":"o5","user_id":"u2","amount":2.00,"event_time":"2026-01-01 12:00:00"}
o6:{"id":"o6","user_id":"u3","amount":0.25,"event_time":"2026-01-01 12:30:00"}
EOF
kafka_cat -P -t orders -K: -X enable.idempotence=true < orders.txt
# the producer (kcat) must have put all six in the topic, each partition in
# file order, before sluice reads it: against a broker just started, a
# retried first produce once landed o1 behind o3, o4 and o6 in its partition,
# where sluice rightly dropped it as late (the test's fault, not sluice's);
# idempotence keeps the order on retries, and a topic that is still short or
# out of order is produced again (and said)
for try in 1 2 3; do
	bad=$(kafka_cat -C -t orders -e -q -o beginning -f '%p %k\n' 2>/dev/null |
		awk '{ n = substr($2, 2) + 0; if (n <= last[$1]) bad++; last[$1] = n; c++ }
		     END { print (c == 6 ? 0 : 1) + bad }')
	[ "$bad" = 0 ] && break
	echo "note: topic 'orders' short or out of file order after producing (try $try); producing again"
	kafka_topic orders 3
	kafka_cat -P -t orders -K: -X enable.idempotence=true < orders.txt
done
ORDERS="CREATE TABLE orders (
    id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3),
    WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND
) WITH ($WITH, 'topic' = 'orders', 'properties.group.id' = 'seed',
    'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
    'format' = 'json');"
run seed "$ORDERS
CREATE TABLE hourly_revenue (
    user_id STRING, window_start TIMESTAMP(3), revenue DECIMAL(20, 2)
) WITH ('connector' = 'filesystem', 'path' = '$W/hourly', 'format' = 'csv');
INSERT INTO hourly_revenue
SELECT user_id, TUMBLE_START(event_time, INTERVAL '1' HOUR) AS window_start, SUM(amount)
FROM orders GROUP BY user_id, TUMBLE(event_time, INTERVAL '1' HOUR);"
cat > seed.exp <<'EOF'
u1,2026-01-01 10:00:00,11.50
u1,2026-01-01 11:00:00,7.00
u2,2026-01-01 10:00:00,3.25
u2,2026-01-01 12:00:00,2.00
u3,2026-01-01 12:00:00,0.25
EOF
cat hourly/* 2>/dev/null | sort > seed.got
check "seed pipeline: kafka -> hourly revenue -> filesystem (rc $(cat seed.rc))" seed.exp seed.got
cmp -s seed.exp seed.got || { echo "--- the topic (partition offset key) and the job's stderr:"
	kafka_cat -C -t orders -e -q -o beginning -f '%p %o %k\n' 2>&1 | sort; cat seed.err; }

# the same at parallelism 3: each scan instance reads partition k of the
# sorted list (sl_conn_args.subtask), the window rows are the same
run seed3 "SET 'parallelism.default' = '3';
$ORDERS
CREATE TABLE hourly_revenue (
    user_id STRING, window_start TIMESTAMP(3), revenue DECIMAL(20, 2)
) WITH ('connector' = 'filesystem', 'path' = '$W/hourly3', 'format' = 'csv');
INSERT INTO hourly_revenue
SELECT user_id, TUMBLE_START(event_time, INTERVAL '1' HOUR) AS window_start, SUM(amount)
FROM orders GROUP BY user_id, TUMBLE(event_time, INTERVAL '1' HOUR);"
cat hourly3/* 2>/dev/null | sort > seed3.got
check "seed pipeline at parallelism 3 (one partition per scan instance)" seed.exp seed3.got

# ---- startup and bounded modes ------------------------------------------------
kafka_topic events 1
printf '{"n":1}\n{"n":2}\n{"n":3}\n' | kafka_cat -P -t events
sleep 0.05
T=$(($(date +%s%N) / 1000000))
sleep 0.05
printf '{"n":4}\n{"n":5}\n' | kafka_cat -P -t events
ev() { # startup-mode extra-options
	echo "CREATE TABLE ev (n INT) WITH ($WITH, 'topic' = 'events', 'format' = 'json',
	  'scan.bounded.mode' = 'latest-offset', 'scan.startup.mode' = '$1' $2);
	  SELECT n FROM ev;"
}
run earliest "$(ev earliest-offset '')"
printf '+I[1]\n+I[2]\n+I[3]\n+I[4]\n+I[5]\n' > earliest.exp
check "startup earliest-offset" earliest.exp earliest.out
run latest "$(ev latest-offset '')"
: > latest.exp
check "startup latest-offset (bounded at latest: nothing)" latest.exp latest.out
run spec "$(ev specific-offsets ", 'scan.startup.specific-offsets' = 'partition:0,offset:3'")"
printf '+I[4]\n+I[5]\n' > spec.exp
check "startup specific-offsets" spec.exp spec.out
run bspec "CREATE TABLE ev (n INT) WITH ($WITH, 'topic' = 'events', 'format' = 'json',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'specific-offsets',
  'scan.bounded.specific-offsets' = 'partition:0,offset:2'); SELECT n FROM ev;"
printf '+I[1]\n+I[2]\n' > bspec.exp
check "bounded specific-offsets (ends before offset 2)" bspec.exp bspec.out
if [ "$KAFKA_PEER" = mock ]; then
	# librdkafka 2.0.2's mock answers every ListOffsets by timestamp with -1
	echo "skip startup/bounded timestamp modes: the mock cannot look offsets up by time (real broker)"
else
	# at parallelism 3 over one partition: instances without a split must
	# not ask librdkafka about an empty list (it fails "Invalid argument")
	run ts "SET 'parallelism.default' = '3'; $(ev timestamp ", 'scan.startup.timestamp-millis' = '$T'")"
	check "startup timestamp (parallelism 3, one partition)" spec.exp ts.out
	run bts "SET 'parallelism.default' = '3'; CREATE TABLE ev (n INT) WITH ($WITH, 'topic' = 'events', 'format' = 'json',
	  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'timestamp',
	  'scan.bounded.timestamp-millis' = '$T'); SELECT n FROM ev;"
	printf '+I[1]\n+I[2]\n+I[3]\n' > bts.exp
	check "bounded timestamp (parallelism 3, one partition)" bts.exp bts.out
fi
# group offsets: a checkpointing run commits where it ended
GRP="CREATE TABLE ev (n INT) WITH ($WITH, 'topic' = 'events', 'format' = 'json',
  'properties.group.id' = 'g-offsets', 'properties.auto.offset.reset' = 'earliest',
  'scan.bounded.mode' = 'latest-offset');"
run grp1 "SET 'execution.checkpointing.interval' = '1 h'; SET 'pipeline.name' = 'grp1';
$GRP SELECT n FROM ev;"
check "group-offsets, no committed offset: auto.offset.reset earliest" earliest.exp grp1.out
printf '{"n":6}\n{"n":7}\n' | kafka_cat -P -t events
run grp2 "$GRP SELECT n FROM ev;"
printf '+I[6]\n+I[7]\n' > grp2.exp
check "group-offsets: resumes at the offsets the last run committed" grp2.exp grp2.out
kafka_cat -C -t events -o beginning -e -q > /dev/null
run grp3 "CREATE TABLE ev (n INT) WITH ($WITH, 'topic' = 'events', 'format' = 'json',
  'properties.group.id' = 'never-committed', 'scan.bounded.mode' = 'latest-offset');
  SELECT n FROM ev;"
if [ "$(cat grp3.rc)" != 0 ] && grep -q "Undefined offset with no reset policy for partitions: \[events-0\]" grp3.err; then
	echo "ok   group-offsets without a committed offset or reset policy: error"
else
	echo "FAIL group-offsets without offsets"; cat grp3.err; fail=1
fi

# ---- metadata columns, key and value formats -----------------------------------
kafka_topic keyed 2
printf 'a:{"v":1}\nb:{"v":2}\na:{"v":3}\n' | kafka_cat -P -t keyed -K: -p 0
printf 'c:{"v":4}\n' | kafka_cat -P -t keyed -K: -p 1
run meta "CREATE TABLE k (
    k STRING, v INT, \`partition\` INT METADATA VIRTUAL, off BIGINT METADATA FROM 'offset' VIRTUAL,
    tp STRING METADATA FROM 'topic' VIRTUAL, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'
) WITH ($WITH, 'topic' = 'keyed', 'scan.startup.mode' = 'earliest-offset',
    'scan.bounded.mode' = 'latest-offset', 'key.format' = 'raw', 'key.fields' = 'k',
    'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY');
SELECT k, v, \`partition\`, off, tp, ts IS NOT NULL AND ts > TIMESTAMP '2020-01-01 00:00:00' FROM k;"
printf '+I[a, 1, 0, 0, keyed, TRUE]\n+I[a, 3, 0, 2, keyed, TRUE]\n+I[b, 2, 0, 1, keyed, TRUE]\n+I[c, 4, 1, 0, keyed, TRUE]\n' > meta.exp
check "metadata columns + key.format raw + EXCEPT_KEY" meta.exp meta.out
# 'scan.partitions' (sluice extension, the scale-out's children): only
# the listed partitions are read; a partition the topic lacks is an error
run onlyp "CREATE TABLE k (k STRING, v INT, \`partition\` INT METADATA VIRTUAL) WITH ($WITH,
    'topic' = 'keyed', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
    'key.format' = 'raw', 'key.fields' = 'k', 'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY',
    'scan.partitions' = '1');
SELECT k, v, \`partition\` FROM k;"
printf '+I[c, 4, 1]\n' > onlyp.exp
check "'scan.partitions' = '1' reads partition 1 only" onlyp.exp onlyp.out
run nop "CREATE TABLE k (v INT) WITH ($WITH, 'topic' = 'keyed', 'scan.startup.mode' = 'earliest-offset',
    'scan.bounded.mode' = 'latest-offset', 'format' = 'json', 'scan.partitions' = '0,5');
SELECT v FROM k;"
if [ "$(cat nop.rc)" != 0 ] && grep -q "'scan.partitions' lists partition 5, which the topic does not have" nop.err; then
	echo "ok   'scan.partitions' naming a partition the topic lacks: the job fails saying so"
else
	echo "FAIL 'scan.partitions' = '0,5'"; cat nop.err; fail=1
fi
# topic lists and patterns: 'events' holds 7 messages, 'keyed' 4
run tlist "CREATE TABLE t (tp STRING METADATA FROM 'topic' VIRTUAL, x STRING) WITH ($WITH,
  'topic' = 'events; keyed', 'format' = 'raw', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset'); SELECT tp, COUNT(*) FROM t GROUP BY tp;"
run tpat "CREATE TABLE t (tp STRING METADATA FROM 'topic' VIRTUAL, x STRING) WITH ($WITH,
  'topic-pattern' = 'ev.*|key.d', 'format' = 'raw', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset'); SELECT tp, COUNT(*) FROM t GROUP BY tp;"
for t in tlist tpat; do grep -E '^[-+][IU]\[' $t.raw | awk -F'[][, ]+' '{ last[$2] = $3 } END { for (k in last) print k, last[k] }' | sort > $t.got; done
printf 'events 7\nkeyed 4\n' > tlist.exp
check "'topic' = 'events; keyed' reads both topics" tlist.exp tlist.got
check "'topic-pattern' matches whole names ('ev.*|key.d'; 'orders', 'bad', ... are not read)" tlist.exp tpat.got
run badmeta "CREATE TABLE k (v INT, h STRING METADATA FROM 'nope') WITH ($WITH,
  'topic' = 'keyed', 'format' = 'json'); SELECT * FROM k;"
if grep -q "Invalid metadata key 'nope' in column 'h' of table 'k'" badmeta.err; then
	echo "ok   unknown metadata key: planning error"
else
	echo "FAIL unknown metadata key"; cat badmeta.err; fail=1
fi

# ---- upsert-kafka: tombstones delete ----------------------------------------------
kafka_topic users 1
printf '{"id":"u1"}|{"id":"u1","name":"ann"}\n{"id":"u2"}|{"id":"u2","name":"bob"}\n{"id":"u1"}|{"id":"u1","name":"amy"}\n' |
	kafka_cat -P -t users -K'|'
printf '{"id":"u2"}|\n' | kafka_cat -P -t users -K'|' -Z
run upsert "CREATE TABLE users (id STRING, name STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'properties.bootstrap.servers' = '$BS', 'topic' = 'users',
  'key.format' = 'json', 'value.format' = 'json', 'scan.bounded.mode' = 'latest-offset');
SELECT COUNT(*) AS n, MAX(name) AS m FROM users;"
# the last row's values (+I or +U: how the messages fall into batches decides
# which intermediate results are emitted, not the final one)
grep -E '^\+[IU]\[' upsert.raw | tail -1 | sed 's/^+[IU]//' > upsert.last
printf '[1, amy]\n' > upsert.exp
check "upsert-kafka: update by key, tombstone = delete (last aggregate row)" upsert.exp upsert.last
run upsert2 "CREATE TABLE users (id STRING, name STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'properties.bootstrap.servers' = '$BS', 'topic' = 'users',
  'key.format' = 'json', 'value.format' = 'json', 'scan.bounded.mode' = 'latest-offset');
SELECT id, name FROM users;"
printf -- '+I[u1, ann]\n+I[u2, bob]\n+U[u1, amy]\n-D[u2, bob]\n-U[u1, ann]\n' | sort > upsert2.exp
check "upsert-kafka changelog (+I, -U/+U, -D with the full row)" upsert2.exp upsert2.out
run upsertnopk "CREATE TABLE users (id STRING, name STRING) WITH ('connector' = 'upsert-kafka',
  'properties.bootstrap.servers' = '$BS', 'topic' = 'users', 'key.format' = 'json',
  'value.format' = 'json'); SELECT * FROM users;"
if grep -q "'upsert-kafka' tables require to define a PRIMARY KEY constraint" upsertnopk.err; then
	echo "ok   upsert-kafka without PRIMARY KEY: planning error"
else
	echo "FAIL upsert-kafka without PRIMARY KEY"; cat upsertnopk.err; fail=1
fi

# ---- debezium-json ---------------------------------------------------------------------
kafka_topic cdc 1
cat > cdc.txt <<'EOF'
{"before":null,"after":{"id":1,"qty":5},"op":"c"}
{"before":{"id":1,"qty":5},"after":{"id":1,"qty":7},"op":"u"}
{"before":null,"after":{"id":2,"qty":1},"op":"c"}
{"before":{"id":2,"qty":1},"after":null,"op":"d"}
EOF
kafka_cat -P -t cdc < cdc.txt
run cdc "CREATE TABLE inv (id INT, qty INT) WITH ($WITH, 'topic' = 'cdc',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'debezium-json');
SELECT SUM(qty) FROM inv;"
grep -E '^\+[IU]\[' cdc.raw | tail -1 | sed 's/^+[IU]//' > cdc.last
printf '[7]\n' > cdc.exp
check "debezium-json from a topic (SUM after updates and deletes)" cdc.exp cdc.last

# ---- malformed messages ---------------------------------------------------------------------
kafka_topic bad 1
printf '{"n":1}\n{"n":oops}\n{"n":3}\n' | kafka_cat -P -t bad
run bad "CREATE TABLE b (n INT) WITH ($WITH, 'topic' = 'bad', 'format' = 'json',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
SELECT n FROM b;"
if [ "$(cat bad.rc)" != 0 ] && grep -q "topic 'bad', partition 0, offset 1" bad.err; then
	echo "ok   malformed message: the job stops naming topic, partition and offset"
else
	echo "FAIL malformed message (rc $(cat bad.rc))"; cat bad.err; fail=1
fi
run skip "CREATE TABLE b (n INT) WITH ($WITH, 'topic' = 'bad', 'format' = 'json',
  'json.ignore-parse-errors' = 'true',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
SELECT n FROM b;"
printf '+I[1]\n+I[3]\n' > skip.exp
check "json.ignore-parse-errors skips it" skip.exp skip.out
if grep -q "source b: 3 rows read, 1 skipped\|1 skipped" skip.raw skip.err; then
	echo "ok   the skipped message is counted"
else
	echo "FAIL skipped count"; cat skip.raw skip.err; fail=1
fi
run vskip "CREATE TABLE b (k STRING, n INT) WITH ($WITH, 'topic' = 'bad', 'value.format' = 'json',
  'value.json.ignore-parse-errors' = 'true', 'key.format' = 'raw', 'key.fields' = 'k',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
SELECT n, k FROM b;"
printf '+I[1, null]\n+I[3, null]\n' > vskip.exp
check "value.json.ignore-parse-errors; keyless messages give a NULL key (key.format raw)" vskip.exp vskip.out

# ---- planning errors --------------------------------------------------------------------------
perr() { # name expected-text sql
	printf '%s\n' "$3" > "$1.sql"
	timeout 20 "$B/sluice" explain "$1.sql" > "$1.raw" 2>&1
	if grep -qF "$2" "$1.raw"; then echo "ok   planning error: $1"; else
		echo "FAIL planning error $1"; cat "$1.raw"; fail=1; fi
}
perr notopic "Either 'topic' or 'topic-pattern' must be set." \
	"CREATE TABLE t (n INT) WITH ('connector' = 'kafka', 'properties.bootstrap.servers' = 'x:1', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset'); SELECT * FROM t;"
perr noformat "Could not find required scan format 'value.format'." \
	"CREATE TABLE t (n INT) WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'x:1', 'scan.startup.mode' = 'earliest-offset'); SELECT * FROM t;"
perr nobs "properties.bootstrap.servers" \
	"CREATE TABLE t (n INT) WITH ('connector' = 'kafka', 'topic' = 't', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset'); SELECT * FROM t;"
perr badmode "Invalid value for option 'scan.startup.mode'" \
	"CREATE TABLE t (n INT) WITH ($WITH, 'topic' = 't', 'format' = 'json', 'scan.startup.mode' = 'first'); SELECT * FROM t;"
perr badprop "No such configuration property" \
	"CREATE TABLE t (n INT) WITH ($WITH, 'topic' = 't', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset', 'properties.no.such' = '1'); SELECT * FROM t;"
perr tsmissing "'scan.startup.timestamp-millis' is required" \
	"CREATE TABLE t (n INT) WITH ($WITH, 'topic' = 't', 'format' = 'json', 'scan.startup.mode' = 'timestamp'); SELECT * FROM t;"
perr keyfields "A key format 'key.format' requires the declaration of one or more of key fields using 'key.fields'." \
	"CREATE TABLE t (n INT) WITH ($WITH, 'topic' = 't', 'value.format' = 'json', 'key.format' = 'json', 'scan.startup.mode' = 'earliest-offset'); SELECT * FROM t;"
perr nogroup "'properties.group.id' is required with 'scan.startup.mode' = 'group-offsets'" \
	"CREATE TABLE t (n INT) WITH ($WITH, 'topic' = 't', 'format' = 'json'); SELECT * FROM t;"
perr discovery "'scan.topic-partition-discovery.interval' = 'often' is not a duration" \
	"CREATE TABLE t (n INT) WITH ($WITH, 'topic' = 't', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset', 'scan.topic-partition-discovery.interval' = 'often'); SELECT * FROM t;"
exit $fail
