#!/bin/sh
# explain_no_io.sh - `sluice explain` touches nothing on disk (issue 9: the
# planner only configures connectors, conn.h; the runtime opens them):
#   1. explain of a job whose source file, lookup table and sink
#      directories (plain and PARTITIONED BY) do not exist exits 0, prints
#      the plan and creates nothing;
#   2. `sluice run` of the same job fails with the missing file's message
#      (as when planning opened the source) and creates no sink directory;
#   3. an unknown option and a bad option value are still refused by
#      explain, with the same message as run gives;
#   4. explain opens no state backend: with the RocksDB backend and its
#      'state.backend.rocksdb.localdir' under a directory that does not
#      exist, explain succeeds and creates nothing (an unknown backend
#      name is still refused, as by run).
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.."
T=$(mktemp -d /tmp/sluice-explain.XXXXXX)
trap 'rm -rf "$T"' EXIT

job() { # extra options of the source
	cat <<SQL
CREATE TABLE src (k STRING, v BIGINT, pt AS PROCTIME())
  WITH ('connector' = 'filesystem', 'path' = '$T/in/src.jsonl', 'format' = 'json'$1);
CREATE TABLE dim (k STRING, name STRING)
  WITH ('connector' = 'filesystem', 'path' = 'file://$T/in/dim', 'format' = 'csv');
CREATE TABLE dst (k STRING, name STRING, v BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '$T/out/dst', 'format' = 'json');
CREATE TABLE pdst (k STRING, v BIGINT) PARTITIONED BY (k)
  WITH ('connector' = 'filesystem', 'path' = '$T/out/pdst', 'format' = 'csv');
INSERT INTO dst SELECT s.k, d.name, s.v FROM src AS s
  JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d ON s.k = d.k;
INSERT INTO pdst SELECT k, v FROM src;
SQL
}

job "" > "$T/job.sql"
"$BUILD/sluice" explain "$T/job.sql" > "$T/plan" 2> "$T/err" \
	|| { echo "FAIL: explain exit status"; cat "$T/err"; exit 1; }
for want in 'TableSourceScan(table=[src], connector=[filesystem]' 'LookupJoin(' \
            'Sink(table=[dst], connector=[filesystem]' 'Sink(table=[pdst], connector=[filesystem]'; do
	grep -qF "$want" "$T/plan" || { echo "FAIL: plan lacks $want"; cat "$T/plan"; exit 1; }
done
[ ! -e "$T/in" ] && [ ! -e "$T/out" ] || { echo "FAIL: explain created files"; ls -R "$T"; exit 1; }

if "$BUILD/sluice" run "$T/job.sql" > "$T/out.txt" 2> "$T/err"; then
	echo "FAIL: run of a job without its input succeeded"; exit 1
fi
grep -qF "table 'src': source 'src': path '$T/in/src.jsonl' does not exist" "$T/err" \
	|| { echo "FAIL: run error"; cat "$T/err"; exit 1; }
[ ! -e "$T/out" ] || { echo "FAIL: run created a sink directory"; ls -R "$T"; exit 1; }

for opt in ", 'no.such.option' = 'x'" ", 'json.ignore-parse-errors' = 'perhaps'"; do
	job "$opt" > "$T/bad.sql"
	if "$BUILD/sluice" explain "$T/bad.sql" > /dev/null 2> "$T/err.explain"; then
		echo "FAIL: explain accepted$opt"; exit 1
	fi
	if "$BUILD/sluice" run "$T/bad.sql" > /dev/null 2> "$T/err.run"; then
		echo "FAIL: run accepted$opt"; exit 1
	fi
	head -1 "$T/err.explain" > "$T/e1"
	head -1 "$T/err.run" > "$T/e2"
	cmp -s "$T/e1" "$T/e2" || { echo "FAIL: explain and run differ$opt"; cat "$T/e1" "$T/e2"; exit 1; }
	grep -qE "no.such.option|json.ignore-parse-errors" "$T/e1" \
		|| { echo "FAIL: message$opt"; cat "$T/err.explain"; exit 1; }
	[ ! -e "$T/in" ] && [ ! -e "$T/out" ] || { echo "FAIL: files created$opt"; exit 1; }
done
{ echo "SET 'state.backend.type' = 'rocksdb';"
  echo "SET 'state.backend.rocksdb.localdir' = '$T/rocksdb';"; job ""; } > "$T/rdb.sql"
"$BUILD/sluice" explain "$T/rdb.sql" > /dev/null 2> "$T/err" \
	|| { echo "FAIL: explain with the RocksDB backend"; cat "$T/err"; exit 1; }
[ ! -e "$T/rocksdb" ] || { echo "FAIL: explain created the RocksDB directory"; ls -R "$T"; exit 1; }
{ echo "SET 'state.backend.type' = 'nosuch';"; job ""; } > "$T/nobe.sql"
for cmd in explain run; do
	if "$BUILD/sluice" $cmd "$T/nobe.sql" > /dev/null 2> "$T/err.$cmd"; then
		echo "FAIL: $cmd accepted an unknown state backend"; exit 1
	fi
	grep -qF "unknown state backend 'nosuch'" "$T/err.$cmd" \
		|| { echo "FAIL: $cmd message"; cat "$T/err.$cmd"; exit 1; }
done
echo "ok explain_no_io"
