#!/bin/sh
# iceberg_upsert.sh - upserts into Iceberg tables with row-level deletes
# (docs/iceberg.md "Upserts"; peers from tests/iceberg/peers.sh):
#   1. a GROUP BY (an updating input) into a table with a PRIMARY KEY,
#      checkpointing every 5 ms, its HAVING making keys disappear (-D) and
#      come back; equality deletes for keys of earlier checkpoints,
#      position deletes for rows of the same checkpoint;
#   2. the same per user and minute into a table PARTITIONED BY the minute
#      (a key column, as Flink requires in upsert mode);
#   3. the first query without checkpointing: one snapshot, whose deletes
#      are all position deletes, which pyiceberg's own scan applies;
#   2b. `sluice iceberg rewrite-data-files` on that table (a replace
#      snapshot of one data file per partition, deletes applied), an
#      upserting job after it, a second rewrite, a third with nothing to do;
#   4. 'write.upsert.enabled' with an insert-only input: a second job's
#      rows replace the first job's of their key (equality deletes against
#      an earlier snapshot), the last of several rows of a key in one
#      checkpoint wins;
# each table read through its current snapshot by icebird (deletes applied
# by icebird), by DuckDB over the live data and delete files the manifests
# list as avsc decodes them and by pyiceberg's manifest readers with
# pyarrow (deletes applied by the tests, tests/iceberg/peer.mjs delta and
# read.py delta, from the spec's rules), every answer equal to sqlite3's
# over the input; every metadata version validated.  Then refusals: a
# partition column outside the key in upsert mode, 'write.upsert.enabled'
# without a key.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/iceberg/lib.sh"
ice_setup iceups

# readers TABLE COLS DUCKSEL ORACLE: every reader's rows (sorted) equal the oracle's
readers() {
	t=$1 cols=$2 sel=$3 want=$4
	python3 "$ROOT/tests/iceberg/validate.py" "$t" > "$W/v.out" 2>&1 && ok "validate $(cat "$W/v.out")" ||
		{ no "validate $t:"; head -20 "$W/v.out"; }
	node "$ROOT/tests/iceberg/peer.mjs" delta "$t" "$sel" 2> "$W/duck.err" | sort > "$W/duck.rows"
	"$PY" "$ROOT/tests/iceberg/read.py" delta "$t" "$cols" 2> "$W/pyi.err" | sort > "$W/pyiceberg.rows"
	node "$ROOT/tests/iceberg/peer.mjs" icebird "$t" "$cols" 2> "$W/ib.err" | sort > "$W/icebird.rows"
	ice_same "$want" duck pyiceberg icebird
	ok "$(tail -1 "$W/duck.err")"
}

# sqlite3 over the orders: SQL with the table `o` (id, user_id, amount cents, event_time)
oracle() { # sql > rows
	sqlite3 -separator '	' :memory: "CREATE TABLE o AS SELECT json_extract(value, '\$.id') id,
	  json_extract(value, '\$.user_id') user_id, round(json_extract(value, '\$.amount') * 100) cents,
	  json_extract(value, '\$.event_time') event_time, key AS seq FROM json_each(readfile('$W/in.json'));
	  $1" | sort
}

"$B/tools/gen_events" 200000 50 11 > "$W/orders.jsonl"
ice_json "$W/orders.jsonl"
SRC="CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '$W/orders.jsonl', 'format' = 'json');"

# 1. GROUP BY with HAVING into a keyed table, checkpointing every 5 ms
mkdir -p "$W/j1"
cat > "$W/j1/job.sql" <<SQL
SET 'execution.checkpointing.interval' = '5 ms';
SET 'pipeline.name' = 'per_user';
$SRC
CREATE TABLE per_user (user_id STRING, n BIGINT, total DECIMAL(20, 2),
    PRIMARY KEY (user_id) NOT ENFORCED)
  WITH ('connector' = 'iceberg', 'warehouse' = '$W/wh', 'catalog-database' = 'db');
INSERT INTO per_user SELECT user_id, COUNT(*), SUM(amount) FROM orders GROUP BY user_id
  HAVING COUNT(*) % 7 <> 3;
SQL
(cd "$W/j1" && "$SLUICE" run job.sql) > "$W/j1/log" 2>&1 || { no "per-user job:"; cat "$W/j1/log"; }
oracle "SELECT user_id, count(*), printf('%.2f', sum(cents) / 100.0) FROM o GROUP BY user_id
  HAVING count(*) % 7 <> 3" > "$W/j1.want"
readers "$W/wh/db/per_user" user_id,n,total "user_id, n, total::VARCHAR" "$W/j1.want"
nsnap=$(python3 -c "
import json, os, re
d = '$W/wh/db/per_user/metadata'
v = max(int(m.group(1)) for n in os.listdir(d) if (m := re.match(r'v(\d+)\.metadata\.json$', n)))
m = json.load(open('%s/v%d.metadata.json' % (d, v)))
ops = set(s['summary']['operation'] for s in m['snapshots'])
eq = sum(int(s['summary'].get('added-equality-deletes', 0)) for s in m['snapshots'])
pos = sum(int(s['summary'].get('added-position-deletes', 0)) for s in m['snapshots'])
print(len(m['snapshots']), eq, pos, ','.join(sorted(ops)))")
set -- $nsnap
[ "${1:-0}" -ge 2 ] && [ "${2:-0}" -gt 0 ] && [ "${3:-0}" -gt 0 ] &&
	ok "$1 snapshots ($4) with $2 equality and $3 position deletes" ||
	no "snapshots, equality and position deletes: $nsnap"

# 2. per user and minute, PARTITIONED BY the minute (a key column)
mkdir -p "$W/j2"
cat > "$W/j2/job.sql" <<SQL
SET 'execution.checkpointing.interval' = '5 ms';
SET 'pipeline.name' = 'per_minute';
$SRC
CREATE TABLE per_minute (m STRING, user_id STRING, n BIGINT, total DECIMAL(20, 2),
    PRIMARY KEY (user_id, m) NOT ENFORCED) PARTITIONED BY (m)
  WITH ('connector' = 'iceberg', 'warehouse' = '$W/wh', 'catalog-database' = 'db');
INSERT INTO per_minute SELECT DATE_FORMAT(event_time, 'yyyy-MM-dd HH:mm'), user_id, COUNT(*), SUM(amount)
  FROM orders GROUP BY DATE_FORMAT(event_time, 'yyyy-MM-dd HH:mm'), user_id;
SQL
(cd "$W/j2" && "$SLUICE" run job.sql) > "$W/j2/log" 2>&1 || { no "per-minute job:"; cat "$W/j2/log"; }
oracle "SELECT substr(event_time, 1, 16) m, user_id, count(*), printf('%.2f', sum(cents) / 100.0)
  FROM o GROUP BY m, user_id" > "$W/j2.want"
readers "$W/wh/db/per_minute" m,user_id,n,total "m, user_id, n, total::VARCHAR" "$W/j2.want"
"$PY" "$ROOT/tests/iceberg/read.py" bounds "$W/wh/db/per_minute" > "$W/b.out" 2>&1 &&
	ok "data files' $(tail -1 "$W/b.out")" || { no "bounds:"; tail -3 "$W/b.out"; }
np=$(ls "$W/wh/db/per_minute/data" | grep -c '^m=')
[ "$np" -ge 30 ] && ok "$np partition directories" || no "partition directories: $np"

# 2b. rewrite-data-files: the per-minute table's live rows, deletes
# applied, into one data file per partition in a replace snapshot; then
# an upserting job replaces user u1's rows (equality deletes against the
# rewritten files) and a second rewrite folds them in; a third has
# nothing to do.  Each time the readers equal sqlite3's answer, and after
# a rewrite pyiceberg's own scan (no delete files left) too.
T2="$W/wh/db/per_minute"
rewritten() { # want: the readers, pyiceberg's scan, one data file per partition
	readers "$T2" m,user_id,n,total "m, user_id, n, total::VARCHAR" "$1"
	"$PY" "$ROOT/tests/iceberg/read.py" pyiceberg "$T2" m,user_id,n,total 2> "$W/pyi.err" | sort > "$W/rw.rows"
	nd=$(grep -o "[0-9]* data files, [0-9]* position and [0-9]* equality" "$W/duck.err")
	cmp -s "$1" "$W/rw.rows" && [ "$nd" = "$np data files, 0 position and 0 equality" ] &&
		ok "after rewriting: pyiceberg's scan reads $(wc -l < "$W/rw.rows") rows equal to sqlite3's; $nd delete files" ||
		{ no "after rewriting: $nd, $(wc -l < "$W/rw.rows") rows"; diff "$1" "$W/rw.rows" | head -3; tail -2 "$W/pyi.err"; }
}
"$SLUICE" iceberg rewrite-data-files "$T2" > "$W/rw.out" 2>&1 && grep -q "^rewrote [0-9]* data files and [1-9][0-9]* delete files into $np data files of $(wc -l < "$W/j2.want") rows" "$W/rw.out" &&
	ok "$(cat "$W/rw.out")" || no "rewrite-data-files: $(cat "$W/rw.out")"
rewritten "$W/j2.want"
cat > "$W/j2/up.sql" <<SQL
SET 'parallelism.default' = '1';
$SRC
CREATE TABLE per_minute (m STRING, user_id STRING, n BIGINT, total DECIMAL(20, 2),
    PRIMARY KEY (user_id, m) NOT ENFORCED) PARTITIONED BY (m)
  WITH ('connector' = 'iceberg', 'warehouse' = '$W/wh', 'catalog-database' = 'db',
    'write.upsert.enabled' = 'true');
INSERT INTO per_minute SELECT DATE_FORMAT(event_time, 'yyyy-MM-dd HH:mm'), user_id, -1, 0
  FROM orders WHERE user_id = 'u1';
SQL
(cd "$W/j2" && "$SLUICE" run up.sql) > "$W/j2/up.log" 2>&1 || { no "upsert after rewriting:"; cat "$W/j2/up.log"; }
awk -F '\t' 'BEGIN { OFS = "\t" } $2 == "u1" { $3 = -1; $4 = "0.00" } { print }' "$W/j2.want" | sort > "$W/j2b.want"
readers "$T2" m,user_id,n,total "m, user_id, n, total::VARCHAR" "$W/j2b.want"
"$SLUICE" iceberg rewrite-data-files "$T2" --target-file-size 100000000 > "$W/rw.out" 2>&1 &&
	grep -q "^rewrote [0-9]* data files and [1-9][0-9]* delete files into $np data files of $(wc -l < "$W/j2b.want") rows" "$W/rw.out" &&
	ok "$(cat "$W/rw.out")" || no "second rewrite: $(cat "$W/rw.out")"
rewritten "$W/j2b.want"
"$SLUICE" iceberg rewrite-data-files "$T2" > "$W/rw.out" 2>&1 && grep -q "^nothing to rewrite" "$W/rw.out" &&
	ok "third rewrite: $(cat "$W/rw.out")" || no "third rewrite: $(cat "$W/rw.out")"

# 3. without checkpointing: position deletes only, applied by pyiceberg's own scan
mkdir -p "$W/j3"
sed "/execution.checkpointing/d; s/'per_user'/'once'/;
     s/'catalog-database' = 'db'/'catalog-database' = 'db', 'catalog-table' = 'once'/" "$W/j1/job.sql" > "$W/j3/job.sql"
(cd "$W/j3" && "$SLUICE" run job.sql) > "$W/j3/log" 2>&1 || { no "job without checkpointing:"; cat "$W/j3/log"; }
"$PY" "$ROOT/tests/iceberg/read.py" pyiceberg "$W/wh/db/once" user_id,n,total 2> "$W/pyi.err" | sort > "$W/j3.rows"
neq=$(ls "$W/wh/db/once/data" | grep -c 'eq-delete')
npos=$(ls "$W/wh/db/once/data" | grep -c 'pos-delete')
cmp -s "$W/j1.want" "$W/j3.rows" && [ "$neq" = 0 ] && [ "$npos" = 1 ] &&
	ok "one snapshot, one position delete file: pyiceberg's scan reads $(wc -l < "$W/j3.rows") rows equal to sqlite3's" ||
	{ no "without checkpointing: $neq equality, $npos position delete files, $(wc -l < "$W/j3.rows") rows"; diff "$W/j1.want" "$W/j3.rows" | head -3; tail -2 "$W/pyi.err"; }
readers "$W/wh/db/once" user_id,n,total "user_id, n, total::VARCHAR" "$W/j1.want"

# 4. 'write.upsert.enabled' with insert-only input: job a writes the
# orders below o100, job b those below o20000 of the users below 'u3'
# (several per user: the last wins), replacing job a's rows of those users
mkdir -p "$W/j4"
for j in a b; do
	cond="CAST(SUBSTRING(id, 2) AS INT) < 100"
	[ $j = b ] && cond="CAST(SUBSTRING(id, 2) AS INT) < 20000 AND user_id < 'u3'"
	cat > "$W/j4/$j.sql" <<SQL
SET 'parallelism.default' = '1';
SET 'execution.checkpointing.interval' = '20 ms';
SET 'pipeline.name' = 'last_$j';
$SRC
CREATE TABLE last_order (user_id STRING, id STRING, amount DECIMAL(10, 2),
    PRIMARY KEY (user_id) NOT ENFORCED)
  WITH ('connector' = 'iceberg', 'warehouse' = '$W/wh', 'catalog-database' = 'db',
    'write.upsert.enabled' = 'true');
INSERT INTO last_order SELECT user_id, id, amount FROM orders WHERE $cond;
SQL
	(cd "$W/j4" && "$SLUICE" run $j.sql) > "$W/j4/$j.log" 2>&1 || { no "upsert job $j:"; cat "$W/j4/$j.log"; }
done
oracle "WITH r AS (SELECT * FROM o WHERE CAST(substr(id, 2) AS INT) < 100
    UNION ALL SELECT * FROM o WHERE CAST(substr(id, 2) AS INT) < 20000 AND user_id < 'u3'),
  l AS (SELECT user_id, max(CAST(substr(id, 2) AS INT)) k FROM r GROUP BY user_id)
  SELECT DISTINCT r.user_id, r.id, printf('%.2f', r.cents / 100.0) FROM r JOIN l
  ON r.user_id = l.user_id AND CAST(substr(r.id, 2) AS INT) = l.k" > "$W/j4.want"
readers "$W/wh/db/last_order" user_id,id,amount "user_id, id, amount::VARCHAR" "$W/j4.want"

# 5. refusals
refuse() { # name, expected message part, sql
	if "$SLUICE" run -e "$3" > "$W/r.log" 2>&1; then no "$1: accepted";
	elif grep -q "$2" "$W/r.log"; then ok "$1 refused"; else no "$1: $(cat "$W/r.log")"; fi
}
refuse "a partition column outside the key" "should be included in the PRIMARY KEY" "$SRC
CREATE TABLE t (user_id STRING, d STRING, n BIGINT, PRIMARY KEY (user_id) NOT ENFORCED)
  PARTITIONED BY (d) WITH ('connector' = 'iceberg', 'warehouse' = '$W/wh');
INSERT INTO t SELECT user_id, MAX(id), COUNT(*) FROM orders GROUP BY user_id;"
refuse "upserts without a key" "needs a PRIMARY KEY" "$SRC
CREATE TABLE t (user_id STRING, n BIGINT) WITH ('connector' = 'iceberg', 'warehouse' = '$W/wh',
  'write.upsert.enabled' = 'true');
INSERT INTO t SELECT user_id, 1 FROM orders;"
[ $fail = 0 ] && echo "iceberg upsert: ok" || echo "iceberg upsert: FAILED"
exit $fail
