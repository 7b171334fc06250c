#!/bin/sh
# conn_instances.sh - the connectors as parallel instances, through
# `sluice run` at parallelism 1 and 3 (docs/parallel.md §6, docs/sql.md
# "Connectors at parallelism > 1"):
#   1. a directory of five JSON files cut into 20 000-byte ranges
#      (SLUICE_TEST_SPLIT_BYTES) -> WHERE -> filesystem sink: the same rows
#      at 1 and 3; part names carry their instance (-s0..-s2) at 3 and no
#      instance at 1;
#   2. a time-ordered file with rows up to 3 s out of order, cut into
#      ranges spread over the instances -> 1 s tumbling count per user
#      (watermark ts - 1 s): the same windows at 1 and 3 (each range seeded
#      by the data, so the same rows are late);
#   3. datagen cut into chunks (SLUICE_TEST_DATAGEN_CHUNK_ROWS) -> print:
#      the same lines, none with an instance prefix;
#   4. a lookup join whose table file is cut into tiny ranges: every
#      instance's lookup reads the whole table (the same rows at 1 and 3);
#   5. the stdout sink at 3 with rows of 2-6 KB: every line whole.
set -eu
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.."
S="$PWD/$BUILD/sluice"
T=$(mktemp -d /tmp/sluice-conninst.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir "$T/in"
for f in a b c d e; do
	awk -v f=$f 'BEGIN { for (i = 1; i <= 2000; i++)
		printf "{\"user\":\"u%d\",\"n\":%d,\"f\":\"%s\"}\n", i % 7, i, f }' > "$T/in/$f.jsonl"
done
awk 'BEGIN { for (i = 1; i <= 6000; i++) { t = i * 50; if (i % 37 == 0) t -= 3000;
	printf "{\"user\":\"u%d\",\"ts\":%d}\n", i % 5, t } }' > "$T/events.jsonl"
for i in 0 1 2 3 4 5 6; do echo "{\"user\":\"u$i\",\"name\":\"N$i\"}"; done > "$T/dim.jsonl"

run() { # p sql-file out
	SLUICE_TEST_SPLIT_BYTES=20000 SLUICE_TEST_DATAGEN_CHUNK_ROWS=1000 \
		"$S" run "$2" --set "parallelism.default=$1" > "$3" 2> "$3.err" \
		|| { cat "$3.err"; fail "sluice run at parallelism $1 ($2)"; }
}

# 1. filesystem -> filesystem
for p in 1 3; do
	cat > "$T/fs$p.sql" <<SQL
CREATE TABLE src (user STRING, n BIGINT, f STRING)
  WITH ('connector' = 'filesystem', 'path' = '$T/in', 'format' = 'json');
CREATE TABLE dst (user STRING, n BIGINT, f STRING)
  WITH ('connector' = 'filesystem', 'path' = '$T/out$p', 'format' = 'json');
INSERT INTO dst SELECT * FROM src WHERE n % 3 = 0;
SQL
	run $p "$T/fs$p.sql" "$T/fs$p.out"
	cat "$T/out$p"/* | sort > "$T/fs$p.rows"
done
[ "$(wc -l < "$T/fs1.rows")" -eq 3330 ] || fail "fs: $(wc -l < "$T/fs1.rows") rows at 1, want 3330"
cmp -s "$T/fs1.rows" "$T/fs3.rows" || fail "fs: rows differ between parallelism 1 and 3"
ls "$T/out1" | grep -q -- '-s[0-9]' && fail "fs: an instance in a name at parallelism 1"
# every part at 3 names its instance; which instances wrote one depends on
# timing (the cut files' ranges come from a pool, docs/parallel.md §4.1)
[ -n "$(ls "$T/out3")" ] || fail "fs: no part at parallelism 3"
ls "$T/out3" | grep -qv -- '-s[0-2]-[0-9]*\.json$' && fail "fs: a part without its instance: $(ls "$T/out3")"

# 2. ranges spread over instances, event time
for p in 1 3; do
	cat > "$T/win$p.sql" <<SQL
CREATE TABLE ev (user STRING, ts BIGINT, rt AS TO_TIMESTAMP_LTZ(ts, 3),
  WATERMARK FOR rt AS rt - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '$T/events.jsonl', 'format' = 'json');
CREATE TABLE p (user STRING, w TIMESTAMP(3), c BIGINT) WITH ('connector' = 'print');
INSERT INTO p SELECT user, window_start, COUNT(*) FROM TABLE(
  TUMBLE(TABLE ev, DESCRIPTOR(rt), INTERVAL '1' SECOND)) GROUP BY user, window_start, window_end;
SQL
	run $p "$T/win$p.sql" "$T/win$p.out"
	sort "$T/win$p.out" > "$T/win$p.rows"
done
[ "$(wc -l < "$T/win1.rows")" -gt 1000 ] || fail "windows: $(wc -l < "$T/win1.rows") rows at 1"
cmp -s "$T/win1.rows" "$T/win3.rows" || fail "windows: results differ between parallelism 1 and 3"

# 3. datagen -> print
for p in 1 3; do
	cat > "$T/dg$p.sql" <<SQL
CREATE TABLE g (id BIGINT, r INT) WITH ('connector' = 'datagen', 'rows-per-second' = '0',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5000',
  'fields.r.min' = '0', 'fields.r.max' = '9');
CREATE TABLE p (id BIGINT, r INT) WITH ('connector' = 'print');
INSERT INTO p SELECT id, r FROM g;
SQL
	run $p "$T/dg$p.sql" "$T/dg$p.out"
	sort "$T/dg$p.out" > "$T/dg$p.rows"
done
[ "$(wc -l < "$T/dg1.rows")" -eq 5000 ] || fail "datagen: $(wc -l < "$T/dg1.rows") rows at 1"
cmp -s "$T/dg1.rows" "$T/dg3.rows" || fail "datagen: rows differ between parallelism 1 and 3"
grep -qv '^+I\[[0-9]*, [0-9]\]$' "$T/dg3.out" && fail "print: a line that is not a whole row"

# 4. lookup join against a file cut into tiny ranges
for p in 1 3; do
	cat > "$T/lk$p.sql" <<SQL
CREATE TABLE src (user STRING, n BIGINT, f STRING, pt AS PROCTIME())
  WITH ('connector' = 'filesystem', 'path' = '$T/in', 'format' = 'json');
CREATE TABLE dim (user STRING, name STRING)
  WITH ('connector' = 'filesystem', 'path' = '$T/dim.jsonl', 'format' = 'json');
CREATE TABLE p (n BIGINT, f STRING, name STRING) WITH ('connector' = 'print');
INSERT INTO p SELECT s.n, s.f, d.name FROM src AS s
  JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d ON s.user = d.user WHERE s.n % 50 = 0;
SQL
	SLUICE_TEST_SPLIT_BYTES=20 "$S" run "$T/lk$p.sql" --set "parallelism.default=$p" \
		> "$T/lk$p.out" 2> "$T/lk$p.err" || { cat "$T/lk$p.err"; fail "lookup run at $p"; }
	sort "$T/lk$p.out" > "$T/lk$p.rows"
done
[ "$(wc -l < "$T/lk1.rows")" -eq 200 ] || fail "lookup: $(wc -l < "$T/lk1.rows") rows at 1"
cmp -s "$T/lk1.rows" "$T/lk3.rows" || fail "lookup: rows differ between parallelism 1 and 3"

# 5. stdout at 3: long rows stay whole lines
cat > "$T/so.sql" <<SQL
CREATE TABLE g (id BIGINT, s STRING) WITH ('connector' = 'datagen', 'rows-per-second' = '0',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '4000',
  'fields.s.length' = '3000');
CREATE TABLE o (id BIGINT, s STRING) WITH ('connector' = 'stdout');
INSERT INTO o SELECT id, s FROM g;
SQL
run 3 "$T/so.sql" "$T/so.out"
[ "$(wc -l < "$T/so.out")" -eq 4000 ] || fail "stdout: $(wc -l < "$T/so.out") lines, want 4000"
grep -qv '^{"id":[0-9]*,"s":"[0-9a-f]\{3000\}"}$' "$T/so.out" && fail "stdout: a broken line"
[ "$(cut -d, -f1 "$T/so.out" | sort -u | wc -l)" -eq 4000 ] || fail "stdout: ids not unique"
echo "conn_instances: ok"
