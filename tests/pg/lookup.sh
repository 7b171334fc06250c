#!/bin/sh
# lookup.sh - lookup joins against a 'jdbc' table and the jdbc scan, on a
# real PostgreSQL 15 server of its own (tests/pg/pg.sh).  5000 orders (a
# CSV file) are joined FOR SYSTEM_TIME AS OF their PROCTIME() with a
# PostgreSQL table of users on a two-column key (LEFT JOIN: some users are
# missing), with 'lookup.cache' NONE, PARTIAL (max-rows 50: evictions;
# 10000: fewer statements than NONE) and FULL; each result, written to PostgreSQL, must equal PostgreSQL's own
# LEFT JOIN of the same data.  The server's statement log must show one
# execution of the prepared statement per probe batch, not per order.  The
# PARTIAL cache's expire-after-write and expire-after-access and the FULL
# cache's periodic reload, with a row changed while a key is probed.  The jdbc scan reads the users table back
# whole.
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
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

psql_q "CREATE TABLE users (id text, region int, name text, tier smallint, since date,
  PRIMARY KEY (id, region))"
psql_q "INSERT INTO users SELECT 'u' || g, g % 3, 'name \"' || g || E'\\\\', CASE WHEN g % 5 = 0
  THEN NULL ELSE g % 4 END, DATE '2026-01-01' + g FROM generate_series(1, 400) g"
psql_q "CREATE TABLE orders (id int, user_id text, region int)"
awk 'BEGIN { for (i = 1; i <= 5000; i++) printf "%d,u%d,%d\n", i, (i * 7919) % 450 + 1, ((i * 7919) % 450 + 1) % 3 }' > "$W/orders.csv"
psql -X -q -c "\\copy orders FROM '$W/orders.csv' WITH (FORMAT csv)"
psql_q "CREATE TABLE expected AS SELECT o.id, o.user_id, u.name, u.tier, u.since FROM orders o
  LEFT JOIN users u ON o.user_id = u.id AND o.region = u.region"
psql_q "ALTER SYSTEM SET log_statement = 'all'" > /dev/null
psql_q "SELECT pg_reload_conf()" > /dev/null

for cache in NONE PARTIAL PARTIAL_BIG FULL; do
	case $cache in
	PARTIAL) opts=", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '50', 'lookup.partial-cache.expire-after-write' = '1 h'" ;;
	PARTIAL_BIG) opts=", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '10000'" ;;
	FULL) opts=", 'lookup.cache' = 'FULL'" ;;
	*) opts="" ;;
	esac
	t=joined_$(echo $cache | tr A-Z a-z)
	psql_q "CREATE TABLE $t (id int, user_id text, name text, tier smallint, since date)"
	cat > "$W/$t.sql" <<SQL
CREATE TABLE orders (id INT, user_id STRING, region INT, pt AS PROCTIME())
  WITH ('connector' = 'filesystem', 'path' = '$W/orders.csv', 'format' = 'csv');
CREATE TABLE users (id STRING, region INT, name STRING, tier SMALLINT, since DATE,
  PRIMARY KEY (id, region) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'table-name' = 'users',
        'username' = 'postgres', 'password' = '$PG_PASSWORD'$opts);
CREATE TABLE out_t (id INT, user_id STRING, name STRING, tier SMALLINT, since DATE)
  WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'table-name' = '$t',
        'username' = 'postgres', 'password' = '$PG_PASSWORD');
INSERT INTO out_t SELECT o.id, o.user_id, u.name, u.tier, u.since FROM orders AS o
  LEFT JOIN users FOR SYSTEM_TIME AS OF o.pt AS u ON o.user_id = u.id AND o.region = u.region;
SQL
	before=$(grep -c "execute sluice_lookup" "$PGW/server.log")
	[ $cache = PARTIAL_BIG ] && none_execs=$first_execs
	if ! (cd "$W" && timeout 120 "$SLUICE" run "$t.sql") > "$W/log" 2>&1; then
		bad "lookup.cache $cache: the job failed"; cat "$W/log"; continue
	fi
	execs=$(( $(grep -c "execute sluice_lookup" "$PGW/server.log") - before ))
	[ $cache = NONE ] && first_execs=$execs
	d=$(psql_q "SELECT count(*) FROM ((SELECT * FROM expected EXCEPT ALL SELECT * FROM $t)
	  UNION ALL (SELECT * FROM $t EXCEPT ALL SELECT * FROM expected)) x")
	miss=$(psql_q "SELECT count(*) FROM $t WHERE name IS NULL")
	[ "$d" = 0 ] && ok "lookup.cache $cache: 5000 orders joined as PostgreSQL joins them ($miss without a user), $execs executions of the lookup statement" ||
		bad "lookup.cache $cache: $d rows differ"
	case $cache in
	FULL) [ "$execs" = 0 ] || bad "FULL: the statement ran $execs times" ;;
	PARTIAL_BIG) [ "$execs" -lt "$none_execs" ] || bad "PARTIAL (10000 keys): $execs executions, not fewer than NONE's $none_execs" ;;
	*) [ "$execs" -ge 1 ] && [ "$execs" -le 60 ] || bad "$cache: $execs executions for 5000 orders (one per batch expected)" ;;
	esac
done

# the partial cache's expiry: one key probed over 4 s while its row
# changes after 1.5 s; expire-after-write (300 ms) sees the change,
# expire-after-access (2 s) probed ten times a second keeps the old row,
# expire-after-access (300 ms) probed at most twice a second sees it;
# FULL with 'lookup.full-cache.periodic-reload.interval' (500 ms) sees
# it, FULL without keeps the first read
exp_job() { # out-table rows-per-second end expiry-option
	cat <<SQL
CREATE TABLE probes (n BIGINT, uid AS 'u' || CAST(n - n + 1 AS STRING), rg AS CAST(n - n + 1 AS INT), pt AS PROCTIME()) WITH ('connector' = 'datagen',
  'rows-per-second' = '$2', 'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '$3');
CREATE TABLE users (id STRING, region INT, name STRING, PRIMARY KEY (id, region) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'table-name' = 'users', 'username' = 'postgres',
        'password' = '$PG_PASSWORD', $4);
CREATE TABLE o (n BIGINT, name STRING) WITH ('connector' = 'jdbc', 'url' = '$PG_URL',
  'table-name' = '$1', 'username' = 'postgres', 'password' = '$PG_PASSWORD',
  'sink.buffer-flush.max-rows' = '1');
INSERT INTO o SELECT p.n, u.name FROM probes AS p
  JOIN users FOR SYSTEM_TIME AS OF p.pt AS u ON p.uid = u.id AND p.rg = u.region;
SQL
}
old=$(psql_q "SELECT name FROM users WHERE id = 'u1' AND region = 1")
P="'lookup.cache' = 'PARTIAL',"
# a round is in time when the UPDATE came while every job had at most half
# of its rows written (on a loaded machine the jobs may start so late that
# the wait below ends after one finished); up to 3 rounds
for round in 1 2 3; do
pids=
for e in "ew 10 40 $P 'lookup.partial-cache.expire-after-write' = '300 ms'" \
         "eaf 10 40 $P 'lookup.partial-cache.expire-after-access' = '2 s'" \
         "eas 2 8 $P 'lookup.partial-cache.expire-after-access' = '300 ms'" \
         "fr 10 40 'lookup.cache' = 'FULL', 'lookup.full-cache.periodic-reload.interval' = '500 ms'" \
         "fn 10 40 'lookup.cache' = 'FULL'"; do
	set -- $e
	t=$1 rps=$2 end=$3; shift 3
	psql_q "DROP TABLE IF EXISTS exp_$t; CREATE TABLE exp_$t (n bigint, name text)"
	exp_job "exp_$t" "$rps" "$end" "$*" > "$W/exp_$t.sql"
	(cd "$W" && exec timeout 60 "$SLUICE" run "exp_$t.sql") > "$W/exp_$t.log" 2>&1 &
	pids="$pids $!"
done
i=0 # every job has probed (and cached) the old row first
while [ $i -lt 200 ] && [ "$(psql_q "SELECT (SELECT count(*) FROM exp_ew) > 1 AND (SELECT count(*) FROM exp_eaf) > 1
  AND (SELECT count(*) FROM exp_eas) > 1 AND (SELECT count(*) FROM exp_fr) > 1 AND (SELECT count(*) FROM exp_fn) > 1")" != t ]; do
	sleep 0.05; i=$((i + 1))
done
psql_q "UPDATE users SET name = 'changed' WHERE id = 'u1' AND region = 1"
intime=$(psql_q "SELECT (SELECT count(*) FROM exp_ew) <= 20 AND (SELECT count(*) FROM exp_eaf) <= 20
  AND (SELECT count(*) FROM exp_eas) <= 4 AND (SELECT count(*) FROM exp_fr) <= 20 AND (SELECT count(*) FROM exp_fn) <= 20")
for p in $pids; do wait "$p" || bad "an expiry job failed: $(cat "$W"/exp_*.log | grep sluice | head -2)"; done
psql_q "UPDATE users SET name = '$(echo "$old" | sed "s/'/''/g")' WHERE id = 'u1' AND region = 1"
[ "$intime" = t ] && break
echo "note cache expiry round $round: the update came after a job had written half its rows; again"
done
res=$(for t in ew eaf eas fr fn; do
	psql_q "SELECT '$t:' || count(*) || ':' || count(*) FILTER (WHERE name = 'changed') || ':' ||
	  coalesce(bool_and(name = 'changed') FILTER (WHERE n = (SELECT max(n) FROM exp_$t)), false) FROM exp_$t"
done | tr '\n' ' ')
case "$res" in
"ew:40:"*":true eaf:40:0:false eas:8:"*":true fr:40:"*":true fn:40:0:false ")
	ok "PARTIAL cache expiry: after write sees the change, after access only when probed less often; FULL sees it with a periodic reload only ($res)" ;;
*) bad "cache expiry and reload: $res (expected ew:40:N:true eaf:40:0:false eas:8:N:true fr:40:N:true fn:40:0:false)" ;;
esac

# the jdbc scan
psql_q "CREATE TABLE users_copy (LIKE users)"
cat > "$W/scan.sql" <<SQL
CREATE TABLE users (id STRING, region INT, name STRING, tier SMALLINT, since DATE)
  WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'table-name' = 'users',
        'username' = 'postgres', 'password' = '$PG_PASSWORD');
CREATE TABLE users_copy (id STRING, region INT, name STRING, tier SMALLINT, since DATE)
  WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'table-name' = 'users_copy',
        'username' = 'postgres', 'password' = '$PG_PASSWORD');
INSERT INTO users_copy SELECT * FROM users;
SQL
if (cd "$W" && timeout 60 "$SLUICE" run scan.sql) > "$W/log" 2>&1; then
	d=$(psql_q "SELECT count(*) FROM ((SELECT * FROM users EXCEPT ALL SELECT * FROM users_copy)
	  UNION ALL (SELECT * FROM users_copy EXCEPT ALL SELECT * FROM users)) x")
	[ "$d" = 0 ] && ok "jdbc scan: the table read back whole (400 rows)" || bad "jdbc scan: $d rows differ"
else
	bad "jdbc scan failed"; cat "$W/log"
fi
# the session's settings are sluice's, not the server's: with a server
# whose TimeZone is not UTC, DateStyle not ISO, IntervalStyle not postgres
# and bytea_output escape, the text values a lookup and the scan read must
# still parse to the same instants, dates, times and bytes (a lookup
# session that left them to the server read a timestamptz 5 hours off, and
# dates in 'SQL, DMY' failed or swapped day and month)
psql_q "CREATE TABLE tzt (id text PRIMARY KEY, ts timestamp(3), tl timestamptz(3), d date, b bytea)"
psql_q "INSERT INTO tzt VALUES ('a', '2026-03-04 05:06:07.125', '2026-03-04 05:06:07.125+00', '2026-03-04', '\x00ff41'),
  ('b', '1999-12-31 23:59:59', '2000-01-01 00:00:00+00', '2001-02-03', '\x')"
psql_q "CREATE TABLE tz_expected (id text, ts timestamp(3), tl timestamptz(3), d date, b bytea)"
psql_q "INSERT INTO tz_expected SELECT * FROM tzt"
psql_q "ALTER SYSTEM SET timezone = 'America/New_York'" > /dev/null
psql_q "ALTER SYSTEM SET datestyle = 'SQL, DMY'" > /dev/null
psql_q "ALTER SYSTEM SET intervalstyle = 'sql_standard'" > /dev/null
psql_q "ALTER SYSTEM SET bytea_output = 'escape'" > /dev/null
psql_q "SELECT pg_reload_conf()" > /dev/null
sleep 0.2
printf 'a\nb\nc\n' > "$W/ids.csv"
for how in lookup scan; do
	psql_q "CREATE TABLE tz_$how (id text, ts timestamp(3), tl timestamptz(3), d date, b bytea)"
	if [ $how = lookup ]; then
		q="SELECT i.id, t.ts, t.tl, t.d, t.b FROM ids AS i JOIN tzt FOR SYSTEM_TIME AS OF i.pt AS t ON i.id = t.id"
	else
		q="SELECT * FROM tzt"
	fi
	cat > "$W/tz_$how.sql" <<SQL
CREATE TABLE ids (id STRING, pt AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = '$W/ids.csv', 'format' = 'csv');
CREATE TABLE tzt (id STRING, ts TIMESTAMP(3), tl TIMESTAMP_LTZ(3), d DATE, b BYTES, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'table-name' = 'tzt', 'username' = 'postgres', 'password' = '$PG_PASSWORD');
CREATE TABLE o (id STRING, ts TIMESTAMP(3), tl TIMESTAMP_LTZ(3), d DATE, b BYTES)
  WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'table-name' = 'tz_$how', 'username' = 'postgres', 'password' = '$PG_PASSWORD');
INSERT INTO o $q;
SQL
	if (cd "$W" && timeout 60 "$SLUICE" run "tz_$how.sql") > "$W/log" 2>&1; then
		d=$(psql_q "SELECT count(*) FROM ((SELECT * FROM tz_expected EXCEPT ALL SELECT * FROM tz_$how)
		  UNION ALL (SELECT * FROM tz_$how EXCEPT ALL SELECT * FROM tz_expected)) x")
		[ "$d" = 0 ] && ok "$how with a server in America/New_York, DateStyle 'SQL, DMY', bytea_output escape: values read as written" ||
			bad "$how under the server's TimeZone/DateStyle: $d rows differ ($(psql_q "SELECT * FROM tz_$how ORDER BY id" | tr '\n' ' '))"
	else
		bad "$how under the server's TimeZone/DateStyle failed: $(grep -i sluice "$W/log" | head -2)"
	fi
done
for s in timezone datestyle intervalstyle bytea_output; do psql_q "ALTER SYSTEM RESET $s" > /dev/null; done
psql_q "SELECT pg_reload_conf()" > /dev/null

printf '%s\n' "CREATE TABLE users (id STRING, region INT) WITH ('connector' = 'jdbc',
  'url' = '$PG_URL', 'table-name' = 'users', 'lookup.cache' = 'SOMETIMES');
CREATE TABLE p (id STRING) WITH ('connector' = 'blackhole');
INSERT INTO p SELECT id FROM users;" > "$W/badopt.sql"
(cd "$W" && "$SLUICE" explain badopt.sql) > "$W/log" 2>&1
grep -q "'lookup.cache' must be 'NONE', 'PARTIAL' or 'FULL'" "$W/log" && ok "a bad 'lookup.cache' refused at planning" ||
	bad "bad lookup.cache: $(cat "$W/log")"

[ $fail = 0 ] && echo "lookup: all passed" || echo "lookup: FAILED"
exit $fail
