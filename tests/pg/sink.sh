#!/bin/sh
# sink.sh - the jdbc sink against a real PostgreSQL 15 server of its own
# (tests/pg/pg.sh), each result read back with psql and compared:
#   seed      the seed's pipeline (orders -> hourly revenue, windows upserted
#             by key) equals examples/hourly_revenue/expected.jsonl
#   types     every sluice type and NULL round-trips through its column type
#   arrays    ARRAY columns into PostgreSQL arrays (text[], integer[], bytea[]):
#             quotes, backslashes, tabs, NULL elements, empty and NULL arrays
#   oracle    an append-only filter (COPY), a GROUP BY upserted by key and a
#             GROUP BY over a GROUP BY (upserts and deletes), flushed every 10
#             rows, equal the same queries run by PostgreSQL on the same input;
#             again exactly-once with checkpointing (and a restart of the
#             finished job changes nothing)
#   paths     a keyed sink's direct COPY, its deletes, its fallback through the
#             stage on a conflict and the skipped flushes after it (the server's
#             statement log), at-least-once and exactly-once
#   explain   the guarantee EXPLAIN shows; exactly-once without checkpointing
#             and an updating query into a table without a key are refused
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) B="$BUILD" ;; *) B="$ROOT/$BUILD" ;; esac
SLUICE="$B/sluice"
ROWS=${PG_SINK_ROWS:-4000}
. "$ROOT/tests/pg/pg.sh"
pg_up || exit 1
W="$PGW/w"
mkdir -p "$W"
chmod 777 "$W"
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
same() { # name expected-file actual-file
	if cmp -s "$2" "$3"; then ok "$1"; else bad "$1"; diff "$2" "$3" | head -10; fi
}
run() { # sql-file: runs it in $W, output in $W/log
	t0=$(date +%s.%N)
	(cd "$W" && timeout 120 "$SLUICE" run "$1") > "$W/log" 2>&1
	rc=$?; echo "     ($1: $(echo "$(date +%s.%N) - $t0" | bc) s)"; return $rc
}

# ---- seed --------------------------------------------------------------
psql_q "CREATE TABLE hourly_revenue (user_id text, window_start timestamp(3),
  revenue numeric(20,2), PRIMARY KEY (user_id, window_start))"
cat > "$W/seed.sql" <<SQL
CREATE TABLE orders (
    id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3),
    WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$ROOT/examples/data/orders.jsonl', 'format' = 'json');
CREATE TABLE hourly_revenue (
    user_id STRING, window_start TIMESTAMP(3), revenue DECIMAL(20, 2),
    PRIMARY KEY (user_id, window_start) NOT ENFORCED
) WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'table-name' = 'hourly_revenue',
        'username' = 'postgres', 'password' = '$PG_PASSWORD');
INSERT INTO hourly_revenue
SELECT user_id, TUMBLE_START(event_time, INTERVAL '1' HOUR) AS window_start, SUM(amount)
FROM orders GROUP BY user_id, TUMBLE(event_time, INTERVAL '1' HOUR);
SQL
run seed.sql || { bad "seed: job failed"; cat "$W/log"; }
sed -E 's/.*"user_id":"([^"]*)","window_start":"([^"]*)","revenue":([^}]*)\}.*/\1|\2|\3/' \
	"$ROOT/examples/hourly_revenue/expected.jsonl" | sort > "$W/seed.exp"
psql_q "SELECT user_id, window_start, revenue FROM hourly_revenue" | sort > "$W/seed.got"
same "seed pipeline into PostgreSQL ($(wc -l < "$W/seed.got") windows)" "$W/seed.exp" "$W/seed.got"

# ---- types ---------------------------------------------------------------
psql_q "CREATE TABLE alltypes (b boolean, ti smallint, si smallint, i integer, bi bigint,
  f real, d double precision, dec numeric(10,2), s text, vc varchar(10), ch char(3),
  bt bytea, dt date, tm time(3), ts timestamp(3), ltz timestamptz(3), ids interval,
  iym interval, extra text DEFAULT 'dflt')"
cat > "$W/types.sql" <<SQL
CREATE TABLE t (b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT, f FLOAT, d DOUBLE,
  dec DECIMAL(10, 2), s STRING, vc VARCHAR(10), ch CHAR(3), bt BYTES, dt DATE, tm TIME(3),
  ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3), ids INTERVAL DAY TO SECOND(3),
  iym INTERVAL YEAR TO MONTH)
  WITH ('connector' = 'jdbc', 'url' = 'postgresql://postgres:$PG_PASSWORD@127.0.0.1:$PGPORT/postgres',
        'table-name' = 'alltypes');
INSERT INTO t VALUES (TRUE, CAST(1 AS TINYINT), CAST(-2 AS SMALLINT), 3,
  CAST(4000000000 AS BIGINT), CAST(1.5 AS FLOAT), 0.1e0, CAST(-12.34 AS DECIMAL(10, 2)),
  'tab	and\\back
line', 'vc', 'abc', X'00ff10', DATE '2026-08-01', TIME '09:00:05.123',
  TIMESTAMP '2026-08-01 09:00:05.123', CAST(TIMESTAMP '2026-08-01 09:00:05.123' AS TIMESTAMP_LTZ(3)),
  INTERVAL '1 02:03:04.5' DAY TO SECOND(3), INTERVAL '1-2' YEAR TO MONTH),
  (CAST(NULL AS BOOLEAN), CAST(NULL AS TINYINT), CAST(NULL AS SMALLINT), CAST(NULL AS INT),
  CAST(NULL AS BIGINT), CAST(NULL AS FLOAT), CAST(NULL AS DOUBLE), CAST(NULL AS DECIMAL(10, 2)),
  CAST(NULL AS STRING), CAST(NULL AS VARCHAR(10)), CAST(NULL AS CHAR(3)), CAST(NULL AS BYTES),
  CAST(NULL AS DATE), CAST(NULL AS TIME(3)), CAST(NULL AS TIMESTAMP(3)),
  CAST(NULL AS TIMESTAMP_LTZ(3)), CAST(NULL AS INTERVAL DAY TO SECOND(3)),
  CAST(NULL AS INTERVAL YEAR TO MONTH));
SQL
run types.sql || { bad "types: job failed"; cat "$W/log"; }
cat > "$W/types.exp" <<'EOF'
t|1|-2|3|4000000000|1.5|0.1|-12.34|tab<TAB>and\back<NL>line|vc|abc|00ff10|2026-08-01|09:00:05.123|2026-08-01 09:00:05.123|2026-08-01 09:00:05.123+00|1 day 02:03:04.5|1 year 2 mons|dflt
N|N|N|N|N|N|N|N|N|N|N|N|N|N|N|N|N|N|dflt
EOF
PGTZ=UTC psql -X -A -t -q -P null=N -c "SELECT b, ti, si, i, bi, f, d, dec,
  replace(replace(s, E'\t', '<TAB>'), E'\n', '<NL>'), vc, ch, encode(bt, 'hex'), dt, tm, ts,
  ltz, ids, iym, extra FROM alltypes ORDER BY b NULLS LAST" > "$W/types.got"
same "every type round-trips (libpq URI)" "$W/types.exp" "$W/types.got"

# ---- arrays ----------------------------------------------------------------
psql_q "CREATE TABLE arrs (id integer, tags text[], nums integer[], bs bytea[])"
printf '%s\n' '{"id":1,"tags":["a","b\"c\\d",null,"t\tx"],"nums":[1,null,3],"bs":["AAE="]}' \
	'{"id":2,"tags":[],"nums":null,"bs":[null]}' > "$W/arr.jsonl"
cat > "$W/arrays.sql" <<SQL
CREATE TABLE src (id INT, tags ARRAY<STRING>, nums ARRAY<INT>, bs ARRAY<BYTES>)
  WITH ('connector' = 'filesystem', 'path' = '$W/arr.jsonl', 'format' = 'json');
CREATE TABLE arrs (id INT, tags ARRAY<STRING>, nums ARRAY<INT>, bs ARRAY<BYTES>)
  WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'table-name' = 'arrs',
        'username' = 'postgres', 'password' = '$PG_PASSWORD');
INSERT INTO arrs SELECT * FROM src;
SQL
run arrays.sql || { bad "arrays: job failed"; cat "$W/log"; }
cat > "$W/arrays.exp" <<'EOF'
1|b"c\d|t|t|4|{1,NULL,3}|0001
2|N|t|N|0|N|N
EOF
psql -X -A -t -q -P null=N -c "SELECT id, tags[2], tags[3] IS NULL, tags[4] = E't\tx',
  cardinality(tags), nums, encode(bs[1], 'hex') FROM arrs ORDER BY id" > "$W/arrays.got"
same "ARRAY columns into PostgreSQL arrays" "$W/arrays.exp" "$W/arrays.got"

# ---- binary COPY against text COPY ------------------------------------------
# A sink sends COPY's binary format (SLUICE_JDBC_COPY_TEXT=1 makes it send
# text, as it restores an older pre-commit record): the same values, with
# an ARRAY column (array_send's form) and a 2-dimensional one, through
# both, one table each, must read back the same; numerics of every shape (base-10000 groups around the point), a
# column wider than its sluice type (INT into bigint and numeric, FLOAT
# into double precision, CHAR(3) into char(5)), dates and times before
# PostgreSQL's epoch (2000-01-01), negative intervals.
psql_q "CREATE TABLE binv (n int, d38 numeric(38,10), d5 numeric, i8 bigint, inum numeric,
  t4 integer, f8 double precision, ch char(5), u text, dt date, ts timestamp(3),
  ts6 timestamp, tm time(3), iv interval, b boolean);
  ALTER TABLE binv ADD arr integer[], ADD arr2 text[], ADD arrt timestamp(3)[];
  CREATE TABLE txtv (LIKE binv)"
bin_job() { # table extra-column extra-value
	cat <<SQL
CREATE TABLE t (n INT, d38 DECIMAL(38, 10), d5 DECIMAL(5, 0), i8 INT, inum INT, t4 TINYINT,
  f8 FLOAT, ch CHAR(3), u STRING, dt DATE, ts TIMESTAMP(3), ts6 TIMESTAMP(6), tm TIME(3),
  iv INTERVAL DAY TO SECOND(3), b BOOLEAN$2)
  WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'table-name' = '$1',
        'username' = 'postgres', 'password' = '$PG_PASSWORD');
INSERT INTO t VALUES
 (1, CAST(0 AS DECIMAL(38, 10)), CAST(0 AS DECIMAL(5, 0)), 0, 0, CAST(0 AS TINYINT), CAST(0.1 AS FLOAT),
  'abc', 'é€', DATE '1969-12-31', TIMESTAMP '1960-01-01 00:00:00.001',
  TIMESTAMP '1999-12-31 23:59:59.999999', TIME '00:00:00', INTERVAL '-1 02:03:04.5' DAY TO SECOND(3), FALSE$3),
 (2, CAST(-0.5 AS DECIMAL(38, 10)), CAST(-10000 AS DECIMAL(5, 0)), -2147483648, 2147483647, CAST(-128 AS TINYINT),
  CAST(-3.25e10 AS FLOAT), 'a', '', DATE '1900-02-28', TIMESTAMP '2000-01-01 00:00:00.000',
  TIMESTAMP '2000-01-01 00:00:00.000001', TIME '23:59:59.999', INTERVAL '0 00:00:00.001' DAY TO SECOND(3), TRUE$3),
 (3, CAST(1234567890123456789012345678.0123456789 AS DECIMAL(38, 10)), CAST(99999 AS DECIMAL(5, 0)),
  7, -7, CAST(127 AS TINYINT), CAST(1.0e-30 AS FLOAT), 'xyz', 'tab	nl
bs\\\\', DATE '2038-01-19', TIMESTAMP '2262-04-11 23:47:16.854',
  TIMESTAMP '1970-01-01 00:00:00.000000', TIME '12:00:00.5', INTERVAL '-0 00:00:00.001' DAY TO SECOND(3), TRUE$3),
 (4, CAST(-99999999999999999999999999.9999999999 AS DECIMAL(38, 10)), CAST(10000 AS DECIMAL(5, 0)),
  100000000, 100000000, CAST(1 AS TINYINT), CAST(1.0e30 AS FLOAT), 'ab ', 'x', DATE '2000-01-01',
  TIMESTAMP '2000-01-02 00:00:00.000', TIMESTAMP '1999-12-31 23:59:59.000001', TIME '00:00:00.001',
  INTERVAL '25 00:00:00' DAY TO SECOND(3), FALSE$3),
 (5, CAST(0.0000000001 AS DECIMAL(38, 10)), CAST(NULL AS DECIMAL(5, 0)), CAST(NULL AS INT), 10000,
  CAST(NULL AS TINYINT), CAST(NULL AS FLOAT), CAST(NULL AS CHAR(3)), CAST(NULL AS STRING),
  CAST(NULL AS DATE), CAST(NULL AS TIMESTAMP(3)), CAST(NULL AS TIMESTAMP(6)), CAST(NULL AS TIME(3)),
  CAST(NULL AS INTERVAL DAY TO SECOND(3)), CAST(NULL AS BOOLEAN)$3),
 (6, CAST(10000.0001 AS DECIMAL(38, 10)), CAST(1 AS DECIMAL(5, 0)), 1, 1, CAST(1 AS TINYINT),
  CAST(1 AS FLOAT), 'a', 'a', DATE '2000-01-02', TIMESTAMP '2000-01-01 00:00:00.001',
  TIMESTAMP '2000-01-01 00:00:00', TIME '00:00:00', INTERVAL '0 00:00:00' DAY TO SECOND(3), TRUE$3);
SQL
}
ARRC=", arr ARRAY<INT>, arr2 ARRAY<ARRAY<STRING>>, arrt ARRAY<TIMESTAMP(3)>"
ARRV=", ARRAY[1, CAST(NULL AS INT), -2147483647], ARRAY[CAST(ARRAY['a\"b', 'c\\d'] AS ARRAY<STRING>), CAST(ARRAY[CAST(NULL AS STRING), ''] AS ARRAY<STRING>)], ARRAY[TIMESTAMP '1999-12-31 23:59:59.999']"
bin_job binv "$ARRC" "$ARRV" > "$W/binv.sql"
bin_job txtv "$ARRC" "$ARRV" > "$W/txtv.sql"
psql -X -q -c "ALTER SYSTEM SET log_statement = 'all'" -c "SELECT pg_reload_conf()" > /dev/null
logn0=$(wc -l < "$PGW/server.log")
run binv.sql || { bad "binary values: job failed"; cat "$W/log"; }
SLUICE_JDBC_COPY_TEXT=1 run txtv.sql || { bad "text values: job failed"; cat "$W/log"; }
psql -X -q -c "ALTER SYSTEM RESET log_statement" -c "SELECT pg_reload_conf()" > /dev/null
fmts="$(tail -n +"$((logn0 + 1))" "$PGW/server.log" | grep -o 'statement: COPY "public"."[a-z]*" .* FROM STDIN[ (A-Za-z)]*' | sed 's/(.*) FROM/FROM/' | tr '\n' ';')"
[ "$fmts" = 'statement: COPY "public"."binv" FROM STDIN (FORMAT binary);statement: COPY "public"."txtv" FROM STDIN;' ] &&
	ok "COPY's binary format with ARRAY columns; text when asked" || bad "COPY formats: $fmts"
binq() { PGTZ=UTC psql -X -A -t -q -P null=N -c "SELECT n, d38, d5, i8, inum, t4, f8, ch, replace(replace(u, E'\t', '<T>'), E'\n', '<N>'), dt,
  ts, ts6, tm, iv, b, arr, arr2, arrt FROM $1 ORDER BY n"; }
binq binv > "$W/binv.got"
binq txtv > "$W/txtv.got"
[ "$(wc -l < "$W/binv.got")" = 6 ] && grep -q '^3|1234567890123456789012345678.0123456789|99999|7|-7|127|' "$W/binv.got" &&
	grep -q '^2|-0.5000000000|-10000|-2147483648|2147483647|-128|-32500000800|a    |' "$W/binv.got" ||
	{ bad "binary values: unexpected rows"; cat "$W/binv.got"; }
same "binary COPY reads back as text COPY (numerics, wider columns, before 2000, negative intervals, arrays)" \
	"$W/txtv.got" "$W/binv.got"

# ---- oracle: the same queries run by PostgreSQL -----------------------------
"$B/tools/gen_events" "$ROWS" 300 11 > "$W/orders.jsonl"
psql_q "CREATE TABLE src (id text, user_id text, amount numeric(10,2), event_time timestamp(3))"
jq -r '[.id, .user_id, .amount, .event_time] | @csv' "$W/orders.jsonl" |
	psql -X -q -c "COPY src FROM STDIN WITH (FORMAT csv)"
oracle_tables() { # suffix guarantee
	psql_q "CREATE TABLE big$1 (id text, user_id text, amount numeric(10,2), event_time timestamp(3));
	  CREATE TABLE per_user$1 (user_id text PRIMARY KEY, total numeric(38,2), n bigint);
	  CREATE TABLE per_n$1 (n bigint, users bigint, PRIMARY KEY (n))"
}
oracle_job() { # suffix extra-options
	cat <<SQL
CREATE TABLE orders (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '$W/orders.jsonl', 'format' = 'json');
CREATE TABLE big (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3))
  WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'table-name' = 'big$1',
        'username' = 'postgres', 'password' = '$PG_PASSWORD', 'sink.buffer-flush.max-rows' = '10'$2);
CREATE TABLE per_user (user_id STRING, total DECIMAL(38, 2), n BIGINT, PRIMARY KEY (user_id) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'table-name' = 'per_user$1',
        'username' = 'postgres', 'password' = '$PG_PASSWORD', 'sink.buffer-flush.max-rows' = '10'$2);
CREATE TABLE per_n (n BIGINT, users BIGINT, PRIMARY KEY (n) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'table-name' = 'per_n$1',
        'username' = 'postgres', 'password' = '$PG_PASSWORD', 'sink.buffer-flush.max-rows' = '10'$2);
INSERT INTO big SELECT * FROM orders WHERE amount >= 900;
INSERT INTO per_user SELECT user_id, SUM(amount), COUNT(*) FROM orders GROUP BY user_id;
INSERT INTO per_n SELECT n, COUNT(*) FROM (SELECT user_id, COUNT(*) AS n FROM orders GROUP BY user_id) GROUP BY n;
SQL
}
oracle_check() { # suffix label
	psql_q "SELECT * FROM src WHERE amount >= 900" | sort > "$W/big.exp"
	psql_q "SELECT * FROM big$1" | sort > "$W/big.got"
	same "$2: append-only filter equals PostgreSQL's ($(wc -l < "$W/big.got") rows)" "$W/big.exp" "$W/big.got"
	psql_q "SELECT user_id, sum(amount), count(*) FROM src GROUP BY user_id" | sort > "$W/pu.exp"
	psql_q "SELECT * FROM per_user$1" | sort > "$W/pu.got"
	same "$2: GROUP BY upserted by key equals PostgreSQL's ($(wc -l < "$W/pu.got") keys)" "$W/pu.exp" "$W/pu.got"
	psql_q "SELECT n, count(*) FROM (SELECT user_id, count(*) AS n FROM src GROUP BY user_id) x GROUP BY n" | sort > "$W/pn.exp"
	psql_q "SELECT * FROM per_n$1" | sort > "$W/pn.got"
	same "$2: upserts and deletes by key equal PostgreSQL's ($(wc -l < "$W/pn.got") keys)" "$W/pn.exp" "$W/pn.got"
}
oracle_tables ""
oracle_job "" "" > "$W/oracle.sql"
run oracle.sql || { bad "oracle: job failed"; cat "$W/log"; }
oracle_check "" "at-least-once"

oracle_tables _eo
# at parallelism 1 (one progress row per sink; the default is the CPU
# count): the case at 2 is eo_p2.sql below
{ echo "SET 'execution.checkpointing.interval' = '100 ms'; SET 'pipeline.name' = 'pg_eo';"
  echo "SET 'parallelism.default' = '1';"
  oracle_job _eo ", 'sink.delivery-guarantee' = 'exactly-once'"; } > "$W/eo.sql"
run eo.sql || { bad "exactly-once: job failed"; cat "$W/log"; }
oracle_check _eo "exactly-once"
prog=$(psql_q "SELECT count(*), min(fence), bool_and(checkpoint_id > 0) FROM sluice_sink_progress WHERE job = 'pg_eo'")
[ "$prog" = "3|1|t" ] && ok "sluice_sink_progress: one row per sink, fence 1, a checkpoint recorded" ||
	bad "sluice_sink_progress: got '$prog'"
before=$(psql_q "SELECT count(*) FROM big_eo")
run eo.sql || { bad "exactly-once: restart of the finished job failed"; cat "$W/log"; }
after=$(psql_q "SELECT count(*) FROM big_eo")
oracle_check _eo "exactly-once, restarted after the end"
[ "$before" = "$after" ] && ok "a finished job restarts to nothing ($after rows)" || bad "restart added $((after - before)) rows"

# exactly-once at parallelism 2 (a sink instance per progress row), then a
# restore of its final checkpoint at 1 (a rescale: each old instance's
# record is checked against its own progress row, tests/pg/rescale.sh
# crashes before the commit): nothing changes
oracle_tables _p2
{ echo "SET 'execution.checkpointing.interval' = '100 ms'; SET 'pipeline.name' = 'pg_eo_p2';"
  echo "SET 'parallelism.default' = '2';"
  oracle_job _p2 ", 'sink.delivery-guarantee' = 'exactly-once'"; } > "$W/eo_p2.sql"
run eo_p2.sql || { bad "exactly-once at 2: job failed"; cat "$W/log"; }
oracle_check _p2 "exactly-once at parallelism 2"
prog=$(psql_q "SELECT count(*) FROM sluice_sink_progress WHERE job = 'pg_eo_p2'")
[ "$prog" = 6 ] && ok "exactly-once at 2: a progress row per sink instance" || bad "progress rows at 2: '$prog'"
sed "s/'parallelism.default' = '2'/'parallelism.default' = '1'/" "$W/eo_p2.sql" > "$W/eo_p1.sql"
if ! run eo_p1.sql; then bad "exactly-once restore at 1: $(head -3 "$W/log")"
elif ! grep -q "rescaling from" "$W/log"; then bad "exactly-once restore at 1: not a rescale"
else oracle_check _p2 "exactly-once at 2, its final checkpoint restored at 1"; fi

# ---- a keyed sink's two paths ------------------------------------------------
# A keyed flush first COPYs its upserts straight into the table (its deletes
# through the stage); when a key is there already (SQLSTATE 23505) it rolls
# back to a savepoint and goes through the stage (INSERT ... ON CONFLICT),
# and the next flush skips the direct COPY.  Flushes of 10 rows (a debezium
# changelog, each event one sink row): new keys; new keys and deletes;
# updates (conflict); new keys (skipped: stage); new keys (direct again);
# an update, a delete and a new key (conflict).
dbz() { # op id v: one debezium-json event
	case $1 in
	c) printf '{"before":null,"after":{"id":%d,"v":"%s"},"op":"c"}\n' "$2" "$3" ;;
	u) printf '{"before":{"id":%d,"v":"c%d"},"after":{"id":%d,"v":"%s"},"op":"u"}\n' "$2" "$2" "$2" "$3" ;;
	d) printf '{"before":{"id":%d,"v":"c%d"},"after":null,"op":"d"}\n' "$2" "$2" ;;
	esac
}
{ for i in $(seq 101 110); do dbz c $i c$i; done
  for i in 101 102 103; do dbz d $i; done; for i in $(seq 111 117); do dbz c $i c$i; done
  for i in $(seq 104 108); do dbz u $i u$i; done; for i in $(seq 118 122); do dbz c $i c$i; done
  for i in $(seq 123 142); do dbz c $i c$i; done
  dbz u 140 u140; dbz d 141; dbz c 143 c143; } > "$W/mix.json"
{ for i in $(seq 104 108); do echo "$i|u$i"; done
  for i in $(seq 109 143); do case $i in 140) echo "140|u140" ;; 141) ;; *) echo "$i|c$i" ;; esac; done
} | sort > "$W/mix.exp"
mix_job() { # table extra-set extra-options
	cat <<SQL
$2
CREATE TABLE ch (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = '$W/mix.json', 'format' = 'debezium-json');
CREATE TABLE t (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'table-name' = '$1',
        'username' = 'postgres', 'password' = '$PG_PASSWORD', 'sink.buffer-flush.max-rows' = '10'$3);
INSERT INTO t SELECT * FROM ch;
SQL
}
psql_q "CREATE TABLE mix (id int PRIMARY KEY, v text); CREATE TABLE mix_eo (LIKE mix INCLUDING ALL)"
psql -X -q -c "ALTER SYSTEM SET log_statement = 'all'" -c "SELECT pg_reload_conf()" > /dev/null
logn0=$(wc -l < "$PGW/server.log")
mix_job mix "SET 'parallelism.default' = '1';" "" > "$W/mix.sql"
run mix.sql || { bad "keyed paths: job failed"; cat "$W/log"; }
psql -X -q -c "ALTER SYSTEM RESET log_statement" -c "SELECT pg_reload_conf()" > /dev/null
tail -n +"$((logn0 + 1))" "$PGW/server.log" > "$W/mix.log"
psql_q "SELECT id, v FROM mix" | sort > "$W/mix.got"
same "keyed paths: direct COPY, deletes, a conflict and the stage equal the changelog ($(wc -l < "$W/mix.got") keys)" "$W/mix.exp" "$W/mix.got"
paths="$(grep -c 'statement: COPY "public"."mix"' "$W/mix.log") $(grep -c 'ERROR:  duplicate key value violates unique constraint' "$W/mix.log") $(grep -c 'statement: .*COPY pg_temp.sluice_stage' "$W/mix.log")"
# direct COPYs: flushes 1, 2, 3 (refused), 5 and the last (6: refused,
# its update's key is there); stage: 2 (its deletes), 3, 4 (skipped) and 6
# (4 is sent whole, "BEGIN; COPY pg_temp.sluice_stage ...; INSERT ...;
# COMMIT", and 1, 3 and 5 as one COPY each, without waiting: send_async)
[ "$paths" = "5 2 4" ] && ok "keyed paths: 5 direct COPYs, 2 refused and rolled back, 4 through the stage" ||
	bad "keyed paths: direct COPYs, rollbacks, stage COPYs: $paths (expected 5 2 4)"
mix_job mix_eo "SET 'execution.checkpointing.interval' = '100 ms'; SET 'pipeline.name' = 'pg_mix';" \
	", 'sink.delivery-guarantee' = 'exactly-once'" > "$W/mix_eo.sql"
psql_q "INSERT INTO mix_eo SELECT id, 'x' FROM generate_series(104, 106) id"
run mix_eo.sql || { bad "keyed paths, exactly-once: job failed"; cat "$W/log"; }
psql_q "SELECT id, v FROM mix_eo" | sort > "$W/mix_eo.got"
same "keyed paths, exactly-once, over rows already in the table" "$W/mix.exp" "$W/mix_eo.got"

# ---- explain and refusals -------------------------------------------------
expl() { (cd "$W" && "$SLUICE" explain "$1") 2>&1 | grep -o 'guarantee=\[[a-z-]*\]' | sort -u | tr '\n' ' '; }
g=$(expl oracle.sql)
[ "$g" = "guarantee=[at-least-once] " ] && ok "EXPLAIN without checkpointing: at-least-once" || bad "EXPLAIN: '$g'"
g=$(expl eo.sql)
[ "$g" = "guarantee=[exactly-once] " ] && ok "EXPLAIN with checkpointing and exactly-once: exactly-once" || bad "EXPLAIN eo: '$g'"
oracle_job "" ", 'sink.delivery-guarantee' = 'exactly-once'" > "$W/eo_nock.sql"
if (cd "$W" && "$SLUICE" explain eo_nock.sql) > "$W/log" 2>&1; then bad "exactly-once without checkpointing accepted"
elif grep -q "needs checkpointing" "$W/log"; then ok "exactly-once without checkpointing refused"
else bad "exactly-once without checkpointing: $(cat "$W/log")"; fi
sed -e "s/PRIMARY KEY (n) NOT ENFORCED//" -e 's/users BIGINT,/users BIGINT/' "$W/oracle.sql" > "$W/nokey.sql"
if (cd "$W" && "$SLUICE" explain nokey.sql) > "$W/log" 2>&1; then bad "updating input without a key accepted"
elif grep -q "doesn't support consuming update and delete changes" "$W/log"; then ok "updating input without a PRIMARY KEY refused at planning"
else bad "updating without key: $(cat "$W/log")"; fi


# ---- 'sink.buffer-flush.interval' --------------------------------------------
# 20 rows a second for 4 s, no row limit: only the interval (300 ms)
# flushes before the end, so rows are in the table while the job runs
psql_q "CREATE TABLE ivl (n bigint)"
cat > "$W/ivl.sql" <<SQL
CREATE TABLE src (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '20',
  'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '80');
CREATE TABLE t (n BIGINT) WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'table-name' = 'ivl',
  'username' = 'postgres', 'password' = '$PG_PASSWORD', 'sink.buffer-flush.max-rows' = '0',
  'sink.buffer-flush.interval' = '300 ms');
INSERT INTO t SELECT n FROM src;
SQL
(cd "$W" && exec timeout 60 "$SLUICE" run ivl.sql) > "$W/ivl.log" 2>&1 &
pid=$!
sleep 2
mid=$(psql_q "SELECT count(*) FROM ivl")
wait $pid
end=$(psql_q "SELECT count(*) || ' ' || count(DISTINCT n) FROM ivl")
[ "$mid" -gt 0 ] && [ "$mid" -lt 80 ] && [ "$end" = "80 80" ] &&
	ok "'sink.buffer-flush.interval' = '300 ms' flushes while the job runs ($mid of 80 rows after 2 s)" ||
	bad "interval: $mid rows after 2 s, '$end' at the end: $(tail -2 "$W/ivl.log")"

# ---- the fence: a newer run of the job takes over ----------------------------
# run A (exactly-once) is writing when run B of the same job starts with
# --fresh --overwrite-output: B's start bumps the fence in
# sluice_sink_progress, and A's next commit fails instead of writing
psql_q "CREATE TABLE fen (id bigint PRIMARY KEY, v text)"
fence_job() { # rows per second, end
	cat <<SQL
SET 'execution.checkpointing.interval' = '100 ms'; SET 'pipeline.name' = 'pg_fence';
CREATE TABLE src (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '$1',
  'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '$2');
CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'jdbc',
  'url' = '$PG_URL', 'table-name' = 'fen', 'username' = 'postgres', 'password' = '$PG_PASSWORD',
  'sink.delivery-guarantee' = 'exactly-once');
INSERT INTO t SELECT n, 'x' FROM src;
SQL
}
mkdir -p "$W/fa" "$W/fb"
fence_job 1000 30000 > "$W/fa/job.sql"
fence_job 1000000 10 > "$W/fb/job.sql"
(cd "$W/fa" && exec timeout 60 "$SLUICE" run job.sql) > "$W/fa/log" 2>&1 &
pid=$!
i=0
while [ $i -lt 100 ] && [ "$(psql_q "SELECT count(*) > 0 FROM fen")" != t ]; do sleep 0.1; i=$((i + 1)); done
(cd "$W/fb" && timeout 60 "$SLUICE" run job.sql --fresh --overwrite-output) > "$W/fb/log" 2>&1 ||
	bad "fence: run B failed: $(tail -2 "$W/fb/log")"
wait $pid
rc=$?
if [ $rc != 0 ] && grep -q "another run of job 'pg_fence' took over table 'fen' (fence 2, this run's 1): this run stops" "$W/fa/log"; then
	ok "fence: the older run stops at its next commit once a newer run started ($(psql_q "SELECT count(*) FROM fen") rows, not 30000)"
else
	bad "fence: run A ended with status $rc: $(tail -2 "$W/fa/log")"
fi
[ $fail = 0 ] && echo "pg sink: all passed" || echo "pg sink: FAILED"
exit $fail
