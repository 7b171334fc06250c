#!/bin/sh
# types.sh - ARRAY and INTERVAL columns both ways against a real
# PostgreSQL 15 server of its own (tests/pg/pg.sh).  A table with arrays
# of several element types (integer[], text[][] with quotes, backslashes,
# commas and NULL elements, a 6-dimensional integer[], timestamptz[],
# bytea[], numeric[], interval[], empty and NULL arrays, a TOASTed array
# left unchanged by an update) and intervals of both kinds is read by the postgres-cdc source (snapshot, then inserts,
# updates and deletes) into a keyed exactly-once jdbc sink, by the jdbc
# scan into an append-only sink, and by a lookup join; each copy must
# equal the table, value for value (compared as text: '1 mon' and
# '30 days' are equal intervals to PostgreSQL, not to sluice).  Then:
# values sluice cannot hold are refused with a message naming the value
# (an interval with months read as DAY TO SECOND, one overflowing 64-bit
# microseconds, an array with fewer dimensions than the column's type), a
# sluice INTERVAL YEAR TO MONTH beyond PostgreSQL's 32-bit months is
# refused by the sink, not wrapped, as are a ragged ARRAY<ARRAY<INT>> and
# one holding a NULL inner array (no PostgreSQL form), and a column whose
# array type does not match is named before the job starts.  The sink
# writes the arrays in COPY's binary format (array_send's form): into the
# keyed exactly-once table through the stage and the direct COPY.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
SLUICE="$B/sluice"
. "$ROOT/tests/pg/pg.sh"
pg_up || exit 1
W="$PGW/w"
mkdir -p "$W"
chmod 777 "$W"
fail=0
JOB=
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
stop_job() { [ -n "$JOB" ] && kill -9 "$JOB" 2>/dev/null && wait "$JOB" 2>/dev/null; JOB=; }
trap 'stop_job; pg_down' EXIT

COLS="id int PRIMARY KEY, a1 integer[], a2 text[], a6 integer[], tz timestamptz(3)[],
  bs bytea[], nm numeric(10,2)[], ivs interval[], iv interval, ym interval"
psql_q "CREATE TABLE src ($COLS)"
for t in cdc_out scan_out lk_out; do psql_q "CREATE TABLE $t ($COLS)"; done
psql_q "ALTER TABLE scan_out DROP CONSTRAINT scan_out_pkey"
psql_q "ALTER TABLE lk_out DROP CONSTRAINT lk_out_pkey"
ins() { # id-from id-to
	psql_q "INSERT INTO src SELECT g, ARRAY[g, NULL, -g], ARRAY[ARRAY['a\"b', E'c\\\\d'],
	  ARRAY[NULL, 'x,y ' || g]], '{{{{{{1,2},{3,4}}}}},{{{{{5,6},{7,NULL}}}}}}'::int[],
	  ARRAY[TIMESTAMPTZ '2026-01-02 03:04:05.123+00' + g * INTERVAL '1 hour', NULL],
	  ARRAY['\\x00ff'::bytea, '\\x'::bytea, NULL], ARRAY[g * 1.25, -0.5],
	  ARRAY[INTERVAL '1 day 02:03:04.5', g * INTERVAL '-1 second'],
	  g * INTERVAL '1 day 00:00:01.25', g * INTERVAL '1 year 1 month'
	  FROM generate_series($1, $2) g"
}
ins 1 40
psql_q "INSERT INTO src VALUES (100, '{}', '{}', '{}', '{}', '{}', '{}', '{}', INTERVAL '0', INTERVAL '0'),
  (101, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)"
# a TOASTed array (about 10 kB of md5 text, stored out of line): an update
# of another column leaves it unsent in pgoutput ('u'), which must not be
# read as NULL
psql_q "ALTER TABLE src ALTER a2 SET STORAGE EXTERNAL"
psql_q "INSERT INTO src (id, a2, iv) SELECT 102, ARRAY[ARRAY(SELECT md5(g::text) || md5(g::text || 'x')
  FROM generate_series(1, 300) g)], INTERVAL '1 second'"

SLT="id INT, a1 ARRAY<INT>, a2 ARRAY<ARRAY<STRING>>,
  a6 ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<ARRAY<INT>>>>>>, tz ARRAY<TIMESTAMP_LTZ(3)>, bs ARRAY<BYTES>,
  nm ARRAY<DECIMAL(10, 2)>, ivs ARRAY<INTERVAL DAY TO SECOND(3)>, iv INTERVAL DAY TO SECOND(3),
  ym INTERVAL YEAR TO MONTH"
jdbc() { # table [extra options]
	echo "'connector' = 'jdbc', 'url' = '$PG_URL', 'table-name' = '$1', 'username' = 'postgres',
  'password' = '$PG_PASSWORD'${2:-}"
}
cat > "$W/cdc.sql" <<SQL
SET 'execution.checkpointing.interval' = '200 ms';
CREATE TABLE src ($SLT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'postgres-cdc',
  'hostname' = '127.0.0.1', 'port' = '$PGPORT', 'username' = 'postgres',
  'password' = '$PG_PASSWORD', 'database-name' = 'postgres', 'schema-name' = 'public',
  'table-name' = 'src', 'slot.name' = 'types_slot', 'decoding.plugin.name' = 'pgoutput');
CREATE TABLE cdc_out ($SLT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ($(jdbc cdc_out ", 'sink.delivery-guarantee' = 'exactly-once'"));
INSERT INTO cdc_out SELECT * FROM src;
SQL
diffs() { # table
	psql_q "SELECT count(*) FROM ((SELECT id, a1::text, a2::text, a6::text, tz::text, bs::text,
	  nm::text, ivs::text, iv::text, ym::text FROM src EXCEPT ALL SELECT id, a1::text, a2::text,
	  a6::text, tz::text, bs::text, nm::text, ivs::text, iv::text, ym::text FROM $1) UNION ALL
	  (SELECT id, a1::text, a2::text, a6::text, tz::text, bs::text, nm::text, ivs::text, iv::text,
	  ym::text FROM $1 EXCEPT ALL SELECT id, a1::text, a2::text, a6::text, tz::text, bs::text,
	  nm::text, ivs::text, iv::text, ym::text FROM src)) x"
}
converge() { # table what
	i=0
	while [ $i -lt 300 ]; do
		[ "$(diffs "$1")" = 0 ] && { ok "$2"; return 0; }
		if [ -n "$JOB" ] && ! kill -0 "$JOB" 2>/dev/null; then
			bad "$2: the job died"; tail -5 "$W/log"; return 1
		fi
		sleep 0.2; i=$((i + 1))
	done
	bad "$2: $(diffs "$1") rows differ after 60 s"; tail -3 "$W/log"
	psql_q "SELECT id, a2::text, a6::text, ivs::text, iv::text, ym::text FROM $1 ORDER BY id LIMIT 3"
	return 1
}
(cd "$W" && exec "$SLUICE" run cdc.sql) > "$W/log" 2>&1 &
JOB=$!
converge cdc_out "postgres-cdc snapshot: arrays (6 dimensions, NULL elements, quoting) and intervals read as written"
ins 41 60
psql_q "UPDATE src SET a2 = ARRAY[ARRAY['new', NULL]], ivs = NULL, iv = -iv, ym = -ym WHERE id % 3 = 0"
psql_q "UPDATE src SET a6 = '{}' WHERE id % 4 = 0; DELETE FROM src WHERE id % 5 = 0"
psql_q "UPDATE src SET iv = INTERVAL '2 seconds' WHERE id = 102"
[ "$(psql_q "SELECT pg_relation_size(reltoastrelid) > 0 FROM pg_class WHERE oid = 'src'::regclass")" = t ] ||
	bad "the big array is not stored out of line: the TOAST case is not tested"
converge cdc_out "postgres-cdc stream: inserts, updates and deletes of array and interval columns"
stop_job

cat > "$W/scan.sql" <<SQL
CREATE TABLE src ($SLT) WITH ($(jdbc src));
CREATE TABLE scan_out ($SLT) WITH ($(jdbc scan_out));
INSERT INTO scan_out SELECT * FROM src;
SQL
(cd "$W" && timeout 60 "$SLUICE" run scan.sql) > "$W/log" 2>&1 || { bad "scan failed"; tail -3 "$W/log"; }
converge scan_out "jdbc scan: arrays and intervals read back whole"

psql_q "SELECT id FROM src" > "$W/ids.csv"
echo 999 >> "$W/ids.csv"
cat > "$W/lookup.sql" <<SQL
CREATE TABLE ids (k INT, pt AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = '$W/ids.csv', 'format' = 'csv');
CREATE TABLE src ($SLT, PRIMARY KEY (id) NOT ENFORCED) WITH ($(jdbc src ", 'lookup.cache' = 'PARTIAL'"));
CREATE TABLE lk_out ($SLT) WITH ($(jdbc lk_out));
INSERT INTO lk_out SELECT s.* FROM ids AS i JOIN src FOR SYSTEM_TIME AS OF i.pt AS s ON i.k = s.id;
SQL
(cd "$W" && timeout 60 "$SLUICE" run lookup.sql) > "$W/log" 2>&1 || { bad "lookup failed"; tail -3 "$W/log"; }
converge lk_out "lookup join: arrays and intervals looked up as written"

# values sluice cannot hold: refused naming the value, never wrapped
refused() { # what pattern sql-file
	if (cd "$W" && timeout 60 "$SLUICE" run "$3") > "$W/log" 2>&1; then
		bad "$1: the job succeeded"
	elif grep -q -- "$2" "$W/log"; then
		ok "$1"
	else
		bad "$1: $(grep -i sluice "$W/log" | head -2)"
	fi
}
psql_q "CREATE TABLE odd (id int, iv interval, a integer[])"
psql_q "CREATE TABLE sink_ym (ym interval)"
odd_job() { # value-sql column-type
	psql_q "TRUNCATE odd; INSERT INTO odd VALUES $1"
	cat > "$W/odd.sql" <<SQL
CREATE TABLE odd (id INT, iv $2, a ARRAY<ARRAY<INT>>) WITH ($(jdbc odd));
CREATE TABLE o (id INT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT id FROM odd WHERE iv IS NOT NULL OR a IS NOT NULL;
SQL
}
odd_job "(1, INTERVAL '1 mon', NULL)" "INTERVAL DAY TO SECOND(3)"
refused "an interval with months read as DAY TO SECOND refused" "'1 mon' has months or years" odd.sql
odd_job "(1, INTERVAL '200000000 days', NULL)" "INTERVAL DAY TO SECOND(3)"
refused "an interval beyond 64-bit microseconds refused" "'200000000 days' is out of INTERVAL DAY TO SECOND's range" odd.sql
odd_job "(1, INTERVAL '3 days', NULL)" "INTERVAL YEAR TO MONTH"
refused "an interval with days read as YEAR TO MONTH refused" "'3 days' has days" odd.sql
odd_job "(1, NULL, '{1,2}')" "INTERVAL YEAR TO MONTH"
refused "a 1-dimensional array read as ARRAY<ARRAY<INT>> refused" "fewer dimensions than the column's type" odd.sql
cat > "$W/ym.sql" <<SQL
CREATE TABLE s (ym INTERVAL YEAR TO MONTH) WITH ($(jdbc sink_ym));
INSERT INTO s VALUES (INTERVAL '1' MONTH * 2147483647), (INTERVAL '1' MONTH * 2147483647 + INTERVAL '1' MONTH);
SQL
refused "an INTERVAL YEAR TO MONTH beyond PostgreSQL's 32-bit months refused by the sink" "does not fit PostgreSQL's interval" ym.sql
[ "$(psql_q "SELECT count(*) FROM sink_ym WHERE ym <> INTERVAL '2147483647 months'")" = 0 ] ||
	bad "sink_ym holds a wrapped row: $(psql_q "SELECT ym FROM sink_ym" | tr '\n' ' ')"
grep -q "column 'ym': INTERVAL YEAR TO MONTH of 2147483648 months" "$W/log" ||
	bad "the refusal names neither the column nor the value: $(grep sluice "$W/log" | head -2)"
psql_q "CREATE TABLE ymk (ym interval PRIMARY KEY, v int)"
printf '1\n' > "$W/one.csv"
cat > "$W/ymk.sql" <<SQL
CREATE TABLE p (k INT, ym AS INTERVAL '1' MONTH * 2147483647 + INTERVAL '1' MONTH * k, pt AS PROCTIME())
  WITH ('connector' = 'filesystem', 'path' = '$W/one.csv', 'format' = 'csv');
CREATE TABLE ymk (ym INTERVAL YEAR TO MONTH, v INT, PRIMARY KEY (ym) NOT ENFORCED) WITH ($(jdbc ymk));
CREATE TABLE o (v INT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT y.v FROM p JOIN ymk FOR SYSTEM_TIME AS OF p.pt AS y ON p.ym = y.ym;
SQL
refused "a lookup key beyond PostgreSQL's 32-bit months refused naming the key" "lookup key 'ym': INTERVAL YEAR TO MONTH of 2147483648 months" ymk.sql
psql_q "CREATE TABLE sink_rag (a integer[])"
for v in "ARRAY[ARRAY[1, 2], ARRAY[3]]|differ in length (1 against 2 at level 2)" \
         "ARRAY[ARRAY[1], CAST(NULL AS ARRAY<INT>)]|a NULL inner array"; do
	printf '%s\n' "CREATE TABLE s (a ARRAY<ARRAY<INT>>) WITH ($(jdbc sink_rag));" \
		"INSERT INTO s VALUES (${v%%|*});" > "$W/rag.sql"
	refused "a sink's ${v%%|*} refused (PostgreSQL's arrays are rectangular)" "column 'a': an ARRAY .*${v#*|}" rag.sql
done
cat > "$W/mism.sql" <<SQL
CREATE TABLE odd (id INT, iv INTERVAL DAY TO SECOND(3), a ARRAY<STRING>) WITH ($(jdbc odd));
INSERT INTO odd VALUES (1, INTERVAL '1' SECOND, ARRAY['x']);
SQL
refused "a sink's ARRAY<STRING> into integer[] named before the job starts" "column 'a' of table 'odd' is integer\[\]" mism.sql

[ $fail = 0 ] && echo "types: all passed" || echo "types: FAILED"
exit $fail
