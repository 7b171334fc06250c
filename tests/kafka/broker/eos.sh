#!/bin/sh
# eos.sh - the exactly-once Kafka sink against a real broker (docs/kafka.md
# "Exactly-once sink"; run by tests/integration/kafka_broker.sh, or alone
# with its own broker):
#   - planning errors: no 'sink.transactional-id-prefix', no checkpointing,
#     a checkpoint interval longer than 'transaction.timeout.ms';
#   - read_committed consumers do not see an open transaction's messages,
#     read_uncommitted ones do;
#   - a zombie is fenced: a second incarnation with the same prefix starts
#     (init_transactions aborts the first one's open transaction), the
#     first one's next write fails naming the fence, and the topic read
#     with read_committed holds the second one's rows only, once;
#   - a checkpoint taken after the fault point (manifest written, commit
#     not done) is refused by an at-least-once sink, and restored by the
#     exactly-once one, which commits the transaction again: every row
#     once;
#   - a fresh start resets the marker an earlier run of the prefix left
#     (a restore of the new run's checkpoint 1 commits it again), and at a
#     lower parallelism aborts what the removed instances' ids left open.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
W=$(mktemp -d /tmp/sluice-keos1.XXXXXX)
KAFKA_PEER=${KAFKA_PEER:-broker}
. "$ROOT/tests/kafka/lib.sh"
Z1=
trap '[ -n "$Z1" ] && kill -9 $Z1 2>/dev/null; kafka_down; rm -rf "$W"' EXIT
cd "$W"
fail=0
kafka_up
BS=$KAFKA_BOOTSTRAP
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

# ---- planning errors ----------------------------------------------------------
plan_err() { # name expected-substring sql
	printf '%s\n' "$3" > "$1.sql"
	if timeout 30 "$B/sluice" explain "$1.sql" > "$1.out" 2>&1; then
		bad "$1: planned"; cat "$1.out"
	elif grep -qF "$2" "$1.out"; then
		ok "$1"
	else
		bad "$1: wrong message"; cat "$1.out"
	fi
}
kafka_topic eos_p 1
SRC="CREATE TABLE s (n INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');"
SINK="'connector' = 'kafka', 'topic' = 'eos_p', 'properties.bootstrap.servers' = '$BS', 'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once'"
plan_err "exactly-once without a prefix" "'sink.transactional-id-prefix' must be specified" \
	"SET 'execution.checkpointing.interval' = '1 s'; $SRC CREATE TABLE o (n INT) WITH ($SINK); INSERT INTO o SELECT n FROM s;"
plan_err "exactly-once without checkpointing" "set 'execution.checkpointing.interval'" \
	"$SRC CREATE TABLE o (n INT) WITH ($SINK, 'sink.transactional-id-prefix' = 'p'); INSERT INTO o SELECT n FROM s;"
plan_err "checkpoint interval vs transaction.timeout.ms (default)" \
	"the checkpoint interval (90000 ms) must be shorter than the Kafka transaction timeout 'properties.transaction.timeout.ms' (60000 ms, librdkafka's default)" \
	"SET 'execution.checkpointing.interval' = '90 s'; $SRC CREATE TABLE o (n INT) WITH ($SINK, 'sink.transactional-id-prefix' = 'p'); INSERT INTO o SELECT n FROM s;"
plan_err "checkpoint interval vs transaction.timeout.ms (set)" \
	"the checkpoint interval (10000 ms) must be shorter than the Kafka transaction timeout 'properties.transaction.timeout.ms' (5000 ms)" \
	"SET 'execution.checkpointing.interval' = '10 s'; $SRC CREATE TABLE o (n INT) WITH ($SINK, 'sink.transactional-id-prefix' = 'p', 'properties.transaction.timeout.ms' = '5000'); INSERT INTO o SELECT n FROM s;"
printf '%s\n' "SET 'execution.checkpointing.interval' = '10 s'; $SRC CREATE TABLE o (n INT) WITH ($SINK, 'sink.transactional-id-prefix' = 'p'); INSERT INTO o SELECT n FROM s;" > ex.sql
if "$B/sluice" explain ex.sql 2>&1 | grep -q "guarantee=\[exactly-once\]"; then ok "EXPLAIN shows guarantee=[exactly-once]"; else bad "EXPLAIN guarantee"; "$B/sluice" explain ex.sql; fi

# ---- read_committed, abort on restart, a zombie fenced ------------------------
kafka_topic zin 1
kafka_topic zout 1
zjob() { # name: kafka zin -> kafka zout, exactly-once, prefix 'zp'
	mkdir -p "$1"
	cat > "$1/job.sql" <<SQL
SET 'execution.checkpointing.interval' = '10 s';
SET 'pipeline.name' = 'zombie';
SET 'parallelism.default' = '1';
CREATE TABLE zin (n INT) WITH ('connector' = 'kafka', 'topic' = 'zin', 'properties.bootstrap.servers' = '$BS',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json' $2);
CREATE TABLE zout (n INT, who STRING) WITH ('connector' = 'kafka', 'topic' = 'zout', 'properties.bootstrap.servers' = '$BS',
  'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'zp');
INSERT INTO zout SELECT n, '$1' FROM zin;
SQL
}
count() { # isolation-level -> messages in zout
	kafka_cat -C -t zout -o beginning -e -q -X isolation.level="$1" | wc -l
}
printf '{"n":1}\n{"n":2}\n{"n":3}\n' | kafka_cat -P -t zin
zjob z1 ""
(cd z1 && exec "$B/sluice" run job.sql) > z1.out 2> z1.err &
Z1=$!
i=0
while [ "$(count read_uncommitted)" -lt 3 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
u=$(count read_uncommitted)
c=$(count read_committed)
if [ "$u" = 3 ] && [ "$c" = 0 ]; then
	ok "an open transaction: 3 messages, read_committed sees 0, read_uncommitted 3"
else
	bad "open transaction: read_committed $c, read_uncommitted $u (want 0, 3)"; cat z1.err
fi
# the second incarnation (bounded: it ends with its final checkpoint's commit)
zjob z2 ", 'scan.bounded.mode' = 'latest-offset'"
if (cd z2 && timeout 60 "$B/sluice" run job.sql) > z2.out 2> z2.err; then
	ok "a second incarnation with the same prefix runs and commits"
else
	bad "second incarnation failed"; cat z2.err
fi
# the zombie writes again: fenced
printf '{"n":4}\n' | kafka_cat -P -t zin
i=0
while kill -0 $Z1 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 $Z1 2>/dev/null; then
	bad "the zombie still runs 30 s after its next write"; kill -9 $Z1
	wait $Z1 2>/dev/null
else
	wait $Z1
	rc=$?
	if [ $rc != 0 ] && grep -q "fenced" z1.err; then
		ok "the zombie is fenced (exit $rc: $(grep "^sluice: sink" z1.err | head -1 | cut -c1-160))"
	else
		bad "the zombie ended with $rc without a fencing error"; cat z1.err
	fi
fi
Z1=
kafka_cat -C -t zout -o beginning -e -q -X isolation.level=read_committed | sort > got
printf '{"n":1,"who":"z2"}\n{"n":2,"who":"z2"}\n{"n":3,"who":"z2"}\n' > exp
if cmp -s exp got; then
	ok "read_committed: the second incarnation's 3 rows, none of the zombie's (its transaction was aborted)"
else
	bad "read_committed output"; echo "--- expected"; cat exp; echo "--- got"; cat got
fi

# ---- a checkpoint holding a transaction restores only as exactly-once ---------
kafka_topic eos_g 1
gjob() { # guarantee
	cat > g.sql <<SQL
SET 'execution.checkpointing.interval' = '200 ms';
SET 'pipeline.name' = 'eosg';
SET 'parallelism.default' = '1';
CREATE TABLE s (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '2000',
  'number-of-rows' = '3000', 'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '3000');
CREATE TABLE o (n BIGINT) WITH ('connector' = 'kafka', 'topic' = 'eos_g', 'properties.bootstrap.servers' = '$BS',
  'format' = 'json', 'sink.delivery-guarantee' = '$1', 'sink.transactional-id-prefix' = 'eosg');
INSERT INTO o SELECT n FROM s;
SQL
}
gjob exactly-once
SLUICE_FAULT=after-manifest-rename@2 timeout 60 "$B/sluice" run g.sql > g1.out 2> g1.err
gjob at-least-once
if timeout 60 "$B/sluice" run g.sql > g2.out 2> g2.err; then
	bad "an exactly-once checkpoint restored as at-least-once"
elif grep -q "restore it with 'sink.delivery-guarantee' = 'exactly-once'" g2.err; then
	ok "a checkpoint holding a transaction is refused as at-least-once"
else
	bad "wrong refusal"; cat g1.err g2.err
fi
gjob exactly-once
if SLUICE_KAFKA_TRACE=1 timeout 60 "$B/sluice" run g.sql > g3.out 2> g3.err && grep -q "committed again" g3.err; then
	got=$(kafka_cat -C -t eos_g -o beginning -e -q -X isolation.level=read_committed | jq -r .n | sort -n | uniq | wc -l)
	all=$(kafka_cat -C -t eos_g -o beginning -e -q -X isolation.level=read_committed | wc -l)
	if [ "$got" = 3000 ] && [ "$all" = 3000 ]; then
		ok "... and restores as exactly-once: the pre-committed transaction committed again, 3000 rows once each"
	else
		bad "exactly-once restore: $got distinct of $all rows (want 3000, 3000)"
	fi
else
	bad "exactly-once restore"; cat g3.err
fi
# ---- a fresh start resets the marker an earlier run left ----------------------
# the run above left marker group 'eosg-0' at its last checkpoint id; a new
# run of the same prefix and topic in another state directory numbers its
# checkpoints from 1 again: dying after checkpoint 1's manifest (before its
# commit), its restart must commit checkpoint 1 again, not take the old
# marker for a commit of it (every n of 1..3000 then twice in the topic)
mkdir -p g2dir && cd g2dir
gjob exactly-once
SLUICE_FAULT=after-manifest-rename@1 timeout 60 "$B/sluice" run g.sql > f1.out 2> f1.err
if timeout 60 "$B/sluice" run g.sql > f2.out 2> f2.err; then
	got=$(kafka_cat -C -t eos_g -o beginning -e -q -X isolation.level=read_committed | jq -r .n | sort -n | uniq -c | awk '$1 == 2' | wc -l)
	all=$(kafka_cat -C -t eos_g -o beginning -e -q -X isolation.level=read_committed | wc -l)
	if [ "$got" = 3000 ] && [ "$all" = 6000 ]; then
		ok "a fresh start resets the earlier run's marker: its checkpoint 1, pre-committed when it died, committed on restore (3000 rows once more)"
	else
		bad "stale marker: $got of 3000 rows twice, $all rows (want 3000, 6000)"; cat f1.err f2.err
	fi
else
	bad "restart after the fault"; cat f2.err
fi
cd "$W"

# ---- a fresh start at a lower parallelism aborts the removed ids' transactions --
# run r1 at parallelism 2 reads a 2-partition topic (scan and sink instance
# k: partition k), so both ids 'eosr-0' and 'eosr-1' commit checkpoint 1
# (their markers) and then hold 10 rows each in open transactions when r1
# is killed; a fresh run at 1 must abort 'eosr-1''s, or read_committed
# readers see nothing after it for 'transaction.timeout.ms' (60 s)
kafka_topic eos_rin 2
kafka_topic eos_r 1
rjob() { # dir parallelism source-table
	mkdir -p "$1"
	cat > "$1/r.sql" <<SQL
SET 'execution.checkpointing.interval' = '4 s';
SET 'pipeline.name' = 'eosr';
SET 'parallelism.default' = '$2';
$3
CREATE TABLE o (n BIGINT, who STRING) WITH ('connector' = 'kafka', 'topic' = 'eos_r', 'properties.bootstrap.servers' = '$BS',
  'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'eosr');
INSERT INTO o SELECT n, '$1' FROM s;
SQL
}
rcount() { kafka_cat -C -t eos_r -o beginning -e -q -X isolation.level="$1" | grep -c "\"who\":\"$2\"" ; }
rin() { # first last partition
	seq "$1" "$2" | awk '{ print "{\"n\":" $1 "}" }' | kafka_cat -P -t eos_rin -p "$3"
}
rin 1 100 0
rin 101 200 1
rjob r1 2 "CREATE TABLE s (n BIGINT) WITH ('connector' = 'kafka', 'topic' = 'eos_rin', 'properties.bootstrap.servers' = '$BS', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json');"
(cd r1 && exec "$B/sluice" run r.sql) > r1.out 2> r1.err &
Z1=$!
i=0
while [ "$(rcount read_committed r1)" -lt 200 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
rin 1001 1010 0
rin 2001 2010 1
i=0
while [ "$(rcount read_uncommitted r1)" -lt 220 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
kill -9 $Z1
wait $Z1 2>/dev/null
Z1=
c1=$(rcount read_committed r1) u1=$(rcount read_uncommitted r1)
if [ "$c1" != 200 ] || [ "$u1" != 220 ]; then
	bad "the killed run at parallelism 2: $c1 rows committed, $u1 written (want 200, 220: a checkpoint came between)"; cat r1.err
fi
rjob r2 1 "CREATE TABLE s (n BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '10');"
if (cd r2 && timeout 60 "$B/sluice" run r.sql) > r2.out 2> r2.err; then
	c2=$(rcount read_committed r2)
	if [ "$c2" = 10 ] && grep -q "aborted what transactional id 'eosr-1' of an earlier run left open" r2.err; then
		ok "a fresh start at parallelism 1 aborts what 'eosr-1' of a killed run at 2 left open: read_committed sees the new run's 10 rows at once"
	else
		bad "fresh start at a lower parallelism: read_committed sees $c2 of 10 new rows"; cat r2.err
	fi
else
	bad "fresh run at parallelism 1"; cat r2.err
fi
exit $fail
