#!/bin/bash
# group.sh - several processes sharing one job through a Kafka consumer
# group, against the real broker (docs/kafka.md "Several processes, one
# job"; the mock's group re-join stalls): ROWS orders keyed by user_id in a
# 4-partition topic (user uN in partition N % 4); a 1-minute tumbling
# window and a running GROUP BY per user into exactly-once file sinks, the
# window also into an exactly-once Kafka sink.  The job is bounded by
# 'scan.bounded.mode' = 'specific-offsets' at each partition's message
# count, and the scale-out's topic is fed in three rounds while the
# processes run, so each step below happens mid-stream whatever the
# machine's speed (on an idle machine, a topic filled up front was read to
# its end before B joined): round 1; A alone (4 children); B joins (A
# gives up partitions with savepoints); round 2; A is killed with kill -9
# (its children die with it); one of B's children is killed with kill -9
# alone (B restarts it from its checkpoint); C joins; round 3; B and C end
# when every partition has finished.  The committed output of all
# processes together must equal a single uninterrupted process's (the
# reference, over a second topic filled up front: windows row for row,
# the GROUP BY's changelog folded to the same final values).  The offsets
# in the consumer group, read with kafka-consumer-groups
# (ConsumerGroupCommand), are each partition's end, lag 0: for the
# reference's single process and for the scale-out (its members commit
# their children's checkpointed offsets).  Also: EXPLAIN's Scale-out line,
# the refusals (a key without the Kafka key, a global aggregate, no key).
#
#   group.sh [ROWS]        (default 200000)
set -u
BUILD=${BUILD:-build}
ROWS=${1:-200000}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
SLUICE="$B/sluice"
W=$(mktemp -d /tmp/sluice-kgroup.XXXXXX)
KAFKA_PEER=${KAFKA_PEER:-broker}
[ "$KAFKA_PEER" = broker ] || { echo "group.sh needs the real broker (KAFKA_PEER=broker)"; exit 1; }
. "$ROOT/tests/kafka/lib.sh"
PIDS=
cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	kafka_down
	[ -n "${KEEP:-}" ] && echo "kept $W" || rm -rf "$W"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
T0=$(date +%s)
phase() { echo "  ($(($(date +%s) - T0)) s) $*"; }
kafka_up
kafka_topic kg_orders 4
kafka_topic kg_orders_ref 4
kafka_topic kg_out_ref 1
kafka_topic kg_out_so 1
# keyed by user_id, user uN in partition N % 4, so one user's orders are
# in one partition; each partition's orders cut in three rounds
"$B/tools/gen_events" "$ROWS" 2000 11 |
	awk -F'"' -v d="$W" '{ u = $8; p = substr(u, 2) % 4; print u "|" $0 > (d "/in" p) }'
BOUND=
for p in 0 1 2 3; do
	n=$(wc -l < "$W/in$p")
	BOUND="$BOUND${BOUND:+;}partition:$p,offset:$n"
	r=$(((n + 2) / 3))
	sed -n "1,${r}p" "$W/in$p" > "$W/in$p.r1"
	sed -n "$((r + 1)),$((2 * r))p" "$W/in$p" > "$W/in$p.r2"
	sed -n "$((2 * r + 1)),\$p" "$W/in$p" > "$W/in$p.r3"
done
# produce TOPIC SUFFIX: each partition's file in order (idempotent: a
# retried produce keeps the order)
produce() {
	for p in 0 1 2 3; do
		kafka_cat -P -t "$1" -p "$p" -K'|' -X linger.ms=20 -X enable.idempotence=true < "$W/in$p$2"
	done
}
produce kg_orders_ref ""
produce kg_orders .r1
# lag GROUP TOPIC: each partition's "PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG"
# as kafka-consumer-groups --describe shows them
lag() {
	java -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$(cat "$B/kafka/classpath.txt")" \
		org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$KAFKA_BOOTSTRAP" \
		--describe --group "$1" 2> "$W/lag.err" | awk -v t="$2" '$2 == t { print $3, $4, $5, $6 }' | sort
}
# the expected lag lines: every partition committed at its end
lag_done() {
	for p in 0 1 2 3; do n=$(wc -l < "$W/in$p"); echo "$p $n $n 0"; done
}
job() { # dir group scale-out(0/1) [statement]
	cat <<SQL
SET 'execution.checkpointing.interval' = '100 ms';
SET 'pipeline.name' = 'kg';
SET 'table.exec.mini-batch.enabled' = 'true';
$([ "$3" = 1 ] && echo "SET 'sluice.scale-out' = 'kafka-group';")
CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'kafka', 'topic' = 'kg_orders$([ "$3" = 1 ] || echo _ref)', 'properties.bootstrap.servers' = '$KAFKA_BOOTSTRAP',
    'properties.group.id' = '$2', 'scan.startup.mode' = 'earliest-offset',
    'properties.session.timeout.ms' = '6000', 'properties.heartbeat.interval.ms' = '500',
    'scan.bounded.mode' = 'specific-offsets', 'scan.bounded.specific-offsets' = '$BOUND',
    'key.format' = 'raw', 'key.fields' = 'user_id', 'value.format' = 'json');
CREATE TABLE win_out (user_id STRING, ws TIMESTAMP(3), total DECIMAL(38, 2), n BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '$1/out_win', 'format' = 'json');
CREATE TABLE agg_out (user_id STRING, total DECIMAL(38, 2), n BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '$1/out_agg', 'format' = 'debezium-json');
CREATE TABLE kwin_out (user_id STRING, ws TIMESTAMP(3), total DECIMAL(38, 2), n BIGINT)
  WITH ('connector' = 'kafka', 'topic' = 'kg_out_$(basename "$1")', 'properties.bootstrap.servers' = '$KAFKA_BOOTSTRAP',
    'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'kgp-$(basename "$1")');
${4:-INSERT INTO win_out SELECT user_id, window_start, SUM(amount), COUNT(*)
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(event_time), INTERVAL '1' MINUTE))
  GROUP BY user_id, window_start, window_end;
INSERT INTO kwin_out SELECT user_id, window_start, SUM(amount), COUNT(*)
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(event_time), INTERVAL '1' MINUTE))
  GROUP BY user_id, window_start, window_end;
INSERT INTO agg_out SELECT user_id, SUM(amount), COUNT(*) FROM orders GROUP BY user_id;}
SQL
}
# the GROUP BY's changelog folded to each user's last value, whatever the
# order of the parts: every retraction cancels the row it names, and one
# row per user is left
fold() {
	cat "$1"/out_agg/part-* 2>/dev/null | jq -rc 'if .op == "d" then "-" + (.before | tojson) else "+" + (.after | tojson) end' |
		awk '{ s = substr($0, 2); c[s] += substr($0, 1, 1) == "+" ? 1 : -1 }
			END { for (s in c) if (c[s] != 0) print c[s] " " s }' | sort
}
committed() { cat "$1"/out_win/part-* 2>/dev/null | sort; }
# the exactly-once Kafka sink's topic, read_committed
kcommitted() { kafka_cat -C -t "kg_out_$1" -o beginning -e -q -X isolation.level=read_committed | sort; }

phase "produced $ROWS orders"
# 1. the reference: one process, every partition
mkdir -p "$W/ref"
job "$W/ref" kg-ref 0 > "$W/ref/job.sql"
(cd "$W/ref" && "$SLUICE" run job.sql --set parallelism.default=1) > "$W/ref/log" 2>&1 ||
	{ cat "$W/ref/log"; fail "reference run failed"; }
committed "$W/ref" > "$W/ref.win"
fold "$W/ref" > "$W/ref.agg"
nwin=$(wc -l < "$W/ref.win")
grep -qv '^1 ' "$W/ref.agg" && fail "the reference's GROUP BY changelog does not fold to one row per user"
[ "$nwin" -gt 1000 ] || fail "reference run wrote $nwin window rows"
phase "reference run done"
echo "reference: $nwin window rows, $(wc -l < "$W/ref.agg") users"
lag_done > "$W/lag.exp"
lag kg-ref kg_orders_ref > "$W/lag.ref"
cmp -s "$W/lag.exp" "$W/lag.ref" || { cat "$W/lag.ref" "$W/lag.err"; fail "kafka-consumer-groups: the single process's group kg-ref is not at the partitions' ends"; }
echo "ok   single process: kafka-consumer-groups shows group kg-ref at each partition's end (lag 0)"

# 2. EXPLAIN and the planner's refusals
mkdir -p "$W/so"
job "$W/so" kg-so 1 > "$W/so/job.sql"
"$SLUICE" explain "$W/so/job.sql" > "$W/explain" 2>&1 || { cat "$W/explain"; fail "explain"; }
grep -q "^Scale-out: kafka-group: processes sharing group 'kg-so' split topic 'kg_orders' by partition; state kept per partition (3 keyed inputs, each keyed by the Kafka key \[user_id\]" "$W/explain" ||
	{ cat "$W/explain"; fail "EXPLAIN has no Scale-out line"; }
refuse() { # statement expected-text
	job "$W/r" kg-r 1 "$1" > "$W/r.sql"
	if "$SLUICE" explain "$W/r.sql" > "$W/r.out" 2>&1; then cat "$W/r.out"; fail "accepted: $1"; fi
	grep -qF -- "$2" "$W/r.out" || { cat "$W/r.out"; fail "refusal of '$1' does not say '$2'"; }
}
refuse "INSERT INTO agg_out SELECT id, SUM(amount), COUNT(*) FROM orders GROUP BY id;" \
	"GroupAggregate is keyed by [id], which does not hold the Kafka key [user_id] of table 'orders'"
refuse "INSERT INTO agg_out SELECT UPPER(user_id), SUM(amount), COUNT(*) FROM orders GROUP BY UPPER(user_id);" \
	"does not hold the Kafka key [user_id]"
refuse "INSERT INTO agg_out SELECT MAX(user_id), SUM(amount), COUNT(*) FROM orders;" \
	"GroupAggregate needs every row of the job in one place"
sed "s/'key.format' = 'raw', 'key.fields' = 'user_id', 'value.format'/'format'/" "$W/so/job.sql" > "$W/r.sql"
if "$SLUICE" explain "$W/r.sql" > "$W/r.out" 2>&1; then fail "accepted without a Kafka key"; fi
grep -qF "declares no Kafka key" "$W/r.out" || { cat "$W/r.out"; fail "no-key refusal"; }
echo "ok   explain and 4 refusals"

# 3. round 1; A alone, then B joins (the cooperative rebalance revokes
# some of A's partitions: A's children stop with savepoints, B's resume
# from them); round 2; A is killed with kill -9; one of B's children is
# killed alone; C joins; round 3.  No partition can finish before round 3,
# so every step is mid-stream.
cd "$W/so"
start() { "$SLUICE" run job.sql > "$W/$1.log" 2>&1 & eval "P$1=\$!"; PIDS="$PIDS $!"; }
CK="$W/so/sluice-state/kg/checkpoints"
done_parts() { ls "$CK"/p*/_finished 2>/dev/null | wc -l; }
# partitions member $1 holds now: assigned (or restarted) and not revoked since
held() {
	awk '/partition [0-9]+ assigned: process/ { h[$4] = $7 }
		/partition [0-9]+ (revoked|lost):/ { delete h[$4] }
		END { for (p in h) print p ":" h[p] }' "$W/$1.log"
}
start A
t=0
until [ "$(held A | wc -l)" = 4 ] && ls "$CK"/p*/checkpoints/*/_manifest > /dev/null 2>&1; do
	[ $t -lt 300 ] && kill -0 "$PA" 2>/dev/null || { cat "$W/A.log"; fail "A did not take the 4 partitions and checkpoint"; }
	sleep 0.05
	t=$((t + 1))
done
start B
t=0
until grep -q 'revoked: process [0-9]* stopped (exit status 0)' "$W/A.log" && [ "$(held B | wc -l)" -ge 1 ]; do
	[ $t -lt 400 ] || { cat "$W/A.log" "$W/B.log"; fail "no partition of A was revoked while running when B joined"; }
	sleep 0.05
	t=$((t + 1))
done
echo "B joined: A gave up $(grep -c 'revoked: process' "$W/A.log") partition(s) with a savepoint"
phase "B joined"
produce kg_orders .r2
sleep 0.3
[ "$(done_parts)" = 0 ] || fail "a partition finished before its last round was produced"
killed=$(held A | head -1)
killed=${killed%%:*}
[ -n "$killed" ] || { cat "$W/A.log"; fail "A holds no partition"; }
kill -9 "$PA"
wait "$PA" 2>/dev/null
echo "killed A with kill -9 mid-stream, holding partition(s) $(held A | cut -d: -f1 | tr '\n' ' ')"
sleep 0.2
orphans=$(pgrep -P "$PA" | wc -l)
[ "$orphans" = 0 ] || fail "A's children outlived it"
phase "A killed"
# one of B's children dies alone: B restarts it from its last checkpoint
bk=$(held B | head -1)
bpart=${bk%%:*} bkid=${bk##*:}
kill -9 "$bkid"
t=0
until grep -q "partition $bpart ended (killed by signal 9) before its input did: restarting it" "$W/B.log" &&
	[ "$(held B | grep "^$bpart:" | cut -d: -f2)" != "$bkid" ]; do
	[ $t -lt 200 ] || { cat "$W/B.log"; fail "B did not restart the child of partition $bpart"; }
	sleep 0.05
	t=$((t + 1))
done
echo "ok   B restarted the child of partition $bpart after its kill -9"
start C
produce kg_orders .r3
phase "round 3 produced"
rc=0
for p in $PB $PC; do
	t=0
	while kill -0 "$p" 2>/dev/null && [ $t -lt 900 ]; do sleep 0.1; t=$((t + 1)); done
	kill -0 "$p" 2>/dev/null && { kill -9 "$p"; rc=1; }
	wait "$p" || rc=1
done
[ $rc = 0 ] || { tail -20 "$W/B.log" "$W/C.log"; fail "B or C did not end cleanly within 90 s"; }
cd "$W"
[ "$(done_parts)" = 4 ] || fail "only $(done_parts) partitions finished"
grep -h 'scale-out' "$W/A.log" "$W/B.log" "$W/C.log" | sed 's/^/  /'
rv=$(sed -n 's/.*partition \([0-9]*\) revoked: process [0-9]* stopped (exit status 0).*/\1/p' "$W/A.log" | head -1)
grep -h "resuming from" "$W/A.log" "$W/B.log" "$W/C.log" | sed 's/^/  /'
# (A itself may get a partition it gave up back in a later rebalance)
grep -q "resuming from savepoint .*/p$rv/savepoints/" "$W/A.log" "$W/B.log" "$W/C.log" ||
	fail "nobody resumed partition $rv, revoked from A, from its savepoint"
grep -q "resuming from .*/p$killed/" "$W/B.log" "$W/C.log" ||
	fail "nobody resumed partition $killed from its checkpoint"
lag kg-so kg_orders > "$W/lag.so"
cmp -s "$W/lag.exp" "$W/lag.so" || { cat "$W/lag.so" "$W/lag.err"; fail "kafka-consumer-groups: the scale-out's group kg-so is not at the partitions' ends"; }
echo "ok   scale-out: kafka-consumer-groups shows group kg-so at each partition's end (lag 0: the members commit their children's checkpointed offsets)"
committed "$W/so" > "$W/so.win"
fold "$W/so" > "$W/so.agg"
if ! cmp -s "$W/ref.win" "$W/so.win"; then
	diff "$W/ref.win" "$W/so.win" | head -10
	fail "window output differs: reference $nwin rows, scale-out $(wc -l < "$W/so.win")"
fi
grep -qv '^1 ' "$W/so.agg" && fail "the scale-out's GROUP BY changelog does not fold to one row per user"
cmp -s "$W/ref.agg" "$W/so.agg" || { diff "$W/ref.agg" "$W/so.agg" | head; fail "GROUP BY output differs"; }
# the exactly-once Kafka sink: each partition's child writes under its own
# transactional ids ('kgp-so-p<P>-0'; one id for all would fence each other)
kcommitted ref > "$W/ref.k"
kcommitted so > "$W/so.k"
cmp -s "$W/ref.win" "$W/ref.k" || fail "the reference's Kafka sink differs from its file sink"
cmp -s "$W/ref.k" "$W/so.k" || { diff "$W/ref.k" "$W/so.k" | head -5; fail "the exactly-once Kafka sink's topic (read_committed, $(wc -l < "$W/so.k") rows) differs from one process's ($(wc -l < "$W/ref.k"))"; }
for p in 0 1 2 3; do
	ls "$W"/so/out_win/part-kg-p$p-* > /dev/null 2>&1 || fail "no committed part of partition $p"
done
echo "ok   A, B (A killed with kill -9 mid-stream, a child of B killed alone), then C: committed output equals one process's ($nwin window rows in files and in a Kafka topic read_committed, $(wc -l < "$W/so.agg") users)"
