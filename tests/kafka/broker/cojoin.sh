#!/bin/bash
# cojoin.sh - a co-partitioned join of two topics in a scale-out
# (docs/kafka.md "Several processes, one job", "Co-partitioned joins"),
# against the real broker: ROWS orders and a payment for every third order,
# both keyed by user_id (user uN in partition N % 4 of each 4-partition
# topic); the job joins them on user_id and the order id into an
# exactly-once file sink.  Member A starts on round 1 of each topic, B
# joins (A gives partitions up with savepoints), round 2 arrives; when
# every partition has finished, the committed output equals one process's
# over the same topics, and so does a GROUP BY user over the join (its
# key traced through the join to the orders' Kafka key).  Also: EXPLAIN's
# Scale-out line names the second topic; a join that does not pair the
# Kafka keys, keys written in different formats, and a GROUP BY on the
# side a LEFT JOIN pads with NULLs are refused; a second topic with
# another partition count stops the member at its start.
#
#   cojoin.sh [ROWS]        (default 40000)
set -u
BUILD=${BUILD:-build}
ROWS=${1:-40000}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
SLUICE="$B/sluice"
W=$(mktemp -d /tmp/sluice-kcojoin.XXXXXX)
KAFKA_PEER=${KAFKA_PEER:-broker}
[ "$KAFKA_PEER" = broker ] || { echo "cojoin.sh needs the real broker (KAFKA_PEER=broker)"; exit 1; }
. "$ROOT/tests/kafka/lib.sh"
PIDS=
cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	kafka_down
	[ -n "${KEEP:-}" ] && echo "kept $W" || rm -rf "$W"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
kafka_up
kafka_topic cj_orders 4
kafka_topic cj_pays 4
kafka_topic cj_pays3 3
"$B/tools/gen_events" "$ROWS" 500 7 |
	awk -F'"' -v d="$W" '{ u = $8; p = substr(u, 2) % 4; print u "|" $0 > (d "/o" p)
		if (substr($4, 2) % 3 == 0)
			print u "|{\"oid\":\"" $4 "\",\"user_id\":\"" u "\",\"n\":" substr($4, 2) "}" > (d "/p" p) }'
OBND= PBND=
for p in 0 1 2 3; do
	for t in o p; do
		n=$(wc -l < "$W/$t$p")
		r=$(((n + 1) / 2))
		sed -n "1,${r}p" "$W/$t$p" > "$W/$t$p.r1"
		sed -n "$((r + 1)),\$p" "$W/$t$p" > "$W/$t$p.r2"
		[ $t = o ] && OBND="$OBND${OBND:+;}partition:$p,offset:$n" || PBND="$PBND${PBND:+;}partition:$p,offset:$n"
	done
done
produce() { # ROUND-SUFFIX
	for p in 0 1 2 3; do
		kafka_cat -P -t cj_orders -p "$p" -K'|' -X enable.idempotence=true < "$W/o$p$1"
		kafka_cat -P -t cj_pays -p "$p" -K'|' -X enable.idempotence=true < "$W/p$p$1"
	done
}
job() { # group scale-out(0/1) [pays-topic [pays-key-format [join]]]
	cat <<SQL
SET 'execution.checkpointing.interval' = '100 ms';
SET 'pipeline.name' = 'cj';
$([ "$2" = 1 ] && echo "SET 'sluice.scale-out' = 'kafka-group';")
CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3))
  WITH ('connector' = 'kafka', 'topic' = 'cj_orders', 'properties.bootstrap.servers' = '$KAFKA_BOOTSTRAP',
    'properties.group.id' = '$1', 'scan.startup.mode' = 'earliest-offset',
    'properties.session.timeout.ms' = '6000', 'properties.heartbeat.interval.ms' = '500',
    'scan.bounded.mode' = 'specific-offsets', 'scan.bounded.specific-offsets' = '$OBND',
    'key.format' = 'raw', 'key.fields' = 'user_id', 'value.format' = 'json');
CREATE TABLE pays (oid STRING, user_id STRING, n INT)
  WITH ('connector' = 'kafka', 'topic' = '${3:-cj_pays}', 'properties.bootstrap.servers' = '$KAFKA_BOOTSTRAP',
    'properties.group.id' = '$1', 'scan.startup.mode' = 'earliest-offset',
    'scan.bounded.mode' = 'specific-offsets', 'scan.bounded.specific-offsets' = '$PBND',
    'key.format' = '${4:-raw}', 'key.fields' = 'user_id', 'value.format' = 'json');
CREATE TABLE out (id STRING, user_id STRING, amount DECIMAL(10, 2), n INT)
  WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json');
CREATE TABLE agg_out (user_id STRING, paid BIGINT, total DECIMAL(38, 2))
  WITH ('connector' = 'filesystem', 'path' = 'agg', 'format' = 'debezium-json');
INSERT INTO out SELECT o.id, o.user_id, o.amount, p.n FROM orders o JOIN pays p
  ON ${5:-o.user_id = p.user_id AND o.id = p.oid};
${6:-INSERT INTO agg_out SELECT o.user_id, COUNT(*), SUM(o.amount) FROM orders o JOIN pays p
  ON o.user_id = p.user_id AND o.id = p.oid GROUP BY o.user_id;}
SQL
}
mkdir -p "$W/so" "$W/ref"
job cj-so 1 > "$W/so/job.sql"
"$SLUICE" explain "$W/so/job.sql" > "$W/explain" 2>&1 || { cat "$W/explain"; fail "explain"; }
grep -q "^Scale-out: kafka-group: processes sharing group 'cj-so' split topic 'cj_orders' by partition, co-partitioned with 'cj_pays'; state kept per partition (5 keyed inputs" "$W/explain" ||
	{ cat "$W/explain"; fail "EXPLAIN has no Scale-out line naming cj_pays"; }
refuse() { # expected-text job-args...
	want=$1
	shift
	job "$@" > "$W/r.sql"
	if "$SLUICE" explain "$W/r.sql" > "$W/r.out" 2>&1; then cat "$W/r.out"; fail "accepted: $*"; fi
	grep -qF -- "$want" "$W/r.out" || { cat "$W/r.out"; fail "refusal '$*' does not say '$want'"; }
}
refuse "which holds the whole Kafka key of none of the tables it reads" cj-r 1 cj_pays raw "o.id = p.oid"
refuse "pairs the Kafka key [user_id] of table 'orders' with columns of table 'pays' other than its Kafka key" \
	cj-r 1 cj_pays raw "o.user_id = p.oid AND o.id = p.user_id"
refuse "are not written alike" cj-r 1 cj_pays json
refuse "GroupAggregate is keyed by [user_id], which holds the whole Kafka key of none of the tables it reads" \
	cj-r 1 cj_pays raw "o.user_id = p.user_id AND o.id = p.oid" \
	"INSERT INTO agg_out SELECT p.user_id, COUNT(*), SUM(o.amount) FROM orders o LEFT JOIN pays p
	  ON o.user_id = p.user_id AND o.id = p.oid GROUP BY p.user_id;"
echo "ok   explain and 4 refusals (a GROUP BY on the side a LEFT JOIN pads with NULLs among them)"
# another partition count: the member refuses at its start
job cj-bad 1 cj_pays3 > "$W/bad.sql"
(cd "$W/so" && "$SLUICE" run ../bad.sql) > "$W/bad.out" 2>&1 && fail "3 against 4 partitions accepted"
grep -qF "topic 'cj_pays3' has 3 partitions and topic 'cj_orders' 4" "$W/bad.out" ||
	{ cat "$W/bad.out"; fail "partition-count refusal"; }
echo "ok   a second topic with another partition count is refused when the member starts"

produce .r1
cd "$W/so"
start() { "$SLUICE" run job.sql > "$W/$1.log" 2>&1 & eval "P$1=\$!"; PIDS="$PIDS $!"; }
CK="$W/so/sluice-state/cj/checkpoints"
start A
t=0
until [ "$(grep -c 'assigned: process' "$W/A.log")" = 4 ] && ls "$CK"/p*/checkpoints/*/_manifest > /dev/null 2>&1; do
	[ $t -lt 300 ] && kill -0 "$PA" 2>/dev/null || { cat "$W/A.log"; fail "A did not take the 4 partitions and checkpoint"; }
	sleep 0.05
	t=$((t + 1))
done
start B
t=0
until grep -q 'revoked: process [0-9]* stopped (exit status 0)' "$W/A.log"; do
	[ $t -lt 400 ] || { cat "$W/A.log" "$W/B.log"; fail "no partition of A was revoked when B joined"; }
	sleep 0.05
	t=$((t + 1))
done
produce .r2
rc=0
for p in $PA $PB; do
	t=0
	while kill -0 "$p" 2>/dev/null && [ $t -lt 900 ]; do sleep 0.1; t=$((t + 1)); done
	kill -0 "$p" 2>/dev/null && { kill -9 "$p"; rc=1; }
	wait "$p" || rc=1
done
[ $rc = 0 ] || { tail -20 "$W/A.log" "$W/B.log"; fail "A or B did not end cleanly"; }
grep -h "scale-out" "$W/A.log" "$W/B.log" | sed 's/^/  /'
job cj-ref 0 > "$W/ref/job.sql"
(cd "$W/ref" && "$SLUICE" run job.sql --set parallelism.default=1) > "$W/ref/log" 2>&1 ||
	{ cat "$W/ref/log"; fail "reference run failed"; }
cat "$W"/ref/out/part-* | sort > "$W/ref.out"
cat "$W"/so/out/part-* | sort > "$W/so.out"
n=$(wc -l < "$W/ref.out")
[ "$n" -gt 1000 ] || fail "the reference joined only $n rows"
cmp -s "$W/ref.out" "$W/so.out" || { diff "$W/ref.out" "$W/so.out" | head -5; fail "the scale-out's join ($(wc -l < "$W/so.out") rows) differs from one process's ($n)"; }
for p in 0 1 2 3; do
	ls "$W"/so/out/part-cj-p$p-* > /dev/null 2>&1 || fail "no committed part of partition $p"
done
# the GROUP BY over the join: its changelog folded to each user's last value
fold() {
	cat "$1"/agg/part-* 2>/dev/null | jq -rc 'if .op == "d" then "-" + (.before | tojson) else "+" + (.after | tojson) end' |
		awk '{ s = substr($0, 2); c[s] += substr($0, 1, 1) == "+" ? 1 : -1 }
			END { for (s in c) if (c[s] != 0) print c[s] " " s }' | sort
}
fold "$W/ref" > "$W/ref.agg"
fold "$W/so" > "$W/so.agg"
grep -qv '^1 ' "$W/ref.agg" && fail "the reference's GROUP BY does not fold to one row per user"
[ "$(wc -l < "$W/ref.agg")" -gt 100 ] || fail "the reference's GROUP BY has $(wc -l < "$W/ref.agg") users"
cmp -s "$W/ref.agg" "$W/so.agg" || { diff "$W/ref.agg" "$W/so.agg" | head -5; fail "the GROUP BY over the join differs"; }
echo "ok   A, then B: the co-partitioned join's committed output equals one process's ($n rows; the GROUP BY over it, $(wc -l < "$W/ref.agg") users, too)"
