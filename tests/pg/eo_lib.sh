# eo_lib.sh - the exactly-once jdbc sink's test job and its checks, shared by
# tests/pg/crash.sh (kill -9 and fault points) and tests/pg/rescale.sh
# (restored at another parallelism); sourced by bash after tests/pg/pg.sh
# and pg_up (it uses $PGPORT, $PG_PASSWORD and psql over the socket).
#
# The job: a datagen sequence 1..$ROWS (throttled), each order's columns
# computed from its number (a replay gives the same rows), into three
# PostgreSQL tables with 'sink.delivery-guarantee' = 'exactly-once':
# app (append-only, no key: every order of amount >= 500), win (1-minute
# tumbling windows upserted by (user_id, ws)) and agg (a non-windowed GROUP
# BY upserted by user_id: updates).  The caller sets:
#   ROWS     the sequence's end
#   SLUICE   the binary
#   W        a scratch directory: $W/<db>.<table> hold the dumps,
#            $W/ref.<table> the uninterrupted run's
#   EO_NAME  the job's 'pipeline.name'
# and reads $fail (0 or 1), which the checks set to 1 on a difference.
#
#   eo_mkdb DB                      a database with the three tables
#   eo_job DB INTERVAL RATE [PAR]   the job's SQL on stdout (PAR: its
#                                   'parallelism.default', default unset)
#   eo_dump DB                      one sorted file per table, $W/DB.<table>
#   eo_compare DB LABEL             the tables equal $W/ref.*, no order twice
#   eo_fault_run DB DIR FAULT       run DIR/job.sql with SLUICE_FAULT=FAULT
#                                   until the fault point is reached (3
#                                   tries, each on empty tables); 1 if never
#   eo_finish_restart DB DIR LABEL LOG  a restart of the finished job in DIR
#                                   (its log appended to LOG) changes nothing
fail=0

eo_mkdb() {
	psql_q "CREATE DATABASE $1"
	psql -X -q -d "$1" -v ON_ERROR_STOP=1 -c "
	  CREATE TABLE app (id text, user_id text, amount numeric(10,2), event_time timestamp(3));
	  CREATE TABLE win (user_id text, ws timestamp(3), total numeric(38,2), n bigint,
	                    PRIMARY KEY (user_id, ws));
	  CREATE TABLE agg (user_id text PRIMARY KEY, total numeric(38,2), n bigint);"
}

eo_job() {
	local url="jdbc:postgresql://127.0.0.1:$PGPORT/$1"
	local o="'username' = 'postgres', 'password' = '$PG_PASSWORD', 'sink.delivery-guarantee' = 'exactly-once'"
	echo "SET 'execution.checkpointing.interval' = '$2';"
	echo "SET 'pipeline.name' = '$EO_NAME';"
	[ -z "${4:-}" ] || echo "SET 'parallelism.default' = '$4';"
	cat <<SQL
CREATE TABLE gen (n BIGINT,
  event_time AS TO_TIMESTAMP_LTZ(1785542400000 + n * 37 - MOD(n * 7, 3000), 3),
  WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'datagen', 'rows-per-second' = '$3',
        'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '$ROWS');
CREATE VIEW orders AS SELECT CONCAT('o', CAST(n AS STRING)) AS id,
  CONCAT('u', CAST(MOD(n * 7919, 1000) AS STRING)) AS user_id,
  CAST(MOD(n * 104729, 100000) AS DECIMAL(10, 2)) / 100 AS amount, event_time FROM gen;
CREATE TABLE app (id STRING, user_id STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3))
  WITH ('connector' = 'jdbc', 'url' = '$url', 'table-name' = 'app', $o);
CREATE TABLE win (user_id STRING, ws TIMESTAMP(3), total DECIMAL(38, 2), n BIGINT,
  PRIMARY KEY (user_id, ws) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$url', 'table-name' = 'win', $o);
CREATE TABLE agg (user_id STRING, total DECIMAL(38, 2), n BIGINT, PRIMARY KEY (user_id) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = '$url', 'table-name' = 'agg', $o);
INSERT INTO app SELECT id, user_id, amount, CAST(event_time AS TIMESTAMP(3)) FROM orders
  WHERE amount >= 500;
INSERT INTO win SELECT user_id, window_start, SUM(amount), COUNT(*)
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(event_time), INTERVAL '1' MINUTE))
  GROUP BY user_id, window_start, window_end;
INSERT INTO agg SELECT user_id, SUM(amount), COUNT(*) FROM orders GROUP BY user_id;
SQL
}

eo_dump() {
	for t in app win agg; do
		psql -X -A -t -q -d "$1" -c "SELECT * FROM $t" | sort > "$W/$1.$t"
	done
}

eo_compare() {
	eo_dump "$1"
	for t in app win agg; do
		if ! cmp -s "$W/ref.$t" "$W/$1.$t"; then
			echo "FAIL $2: table $t differs from the uninterrupted run's ($(wc -l < "$W/ref.$t") vs $(wc -l < "$W/$1.$t") rows)"
			diff "$W/ref.$t" "$W/$1.$t" | head -6
			fail=1
		fi
	done
	local d
	d=$(psql -X -A -t -q -d "$1" -c "SELECT count(*) - count(DISTINCT id) FROM app")
	[ "$d" = 0 ] || { echo "FAIL $2: $d rows of app twice"; fail=1; }
}

# the N-th checkpoint's commit may come after the job ended on a loaded
# machine (then the job finishes): start again on empty tables, 3 tries
eo_fault_run() {
	local try rc=0
	for try in 1 2 3; do
		{ (cd "$2" && SLUICE_FAULT="$3" exec timeout 120 "$SLUICE" run job.sql) > "$2/log" 2>&1; } 2>/dev/null
		rc=$?
		grep -q "fault point" "$2/log" && return 0
		rm -rf "$2/sluice-state"
		psql -X -q -d "$1" -c "TRUNCATE app, win, agg; DROP TABLE IF EXISTS sluice_sink_progress"
	done
	echo "FAIL $3: the fault point was not reached (status $rc)"
	fail=1
	return 1
}

eo_finish_restart() {
	(cd "$2" && timeout 120 "$SLUICE" run job.sql) >> "$4" 2>&1 ||
		{ echo "FAIL $3: restart of the finished job"; tail -5 "$4"; fail=1; }
	local before
	before=$(cat "$W/$1".{app,win,agg} | md5sum)
	eo_dump "$1"
	[ "$before" = "$(cat "$W/$1".{app,win,agg} | md5sum)" ] ||
		{ echo "FAIL $3: the finished job changed the tables on restart"; fail=1; }
}
